//! A corpus builder filters by language first: every row says which language its text is
//! in, which one the page declares, how many words it has and its digest.

use crate::common::{process_paths, project_file, read_all_rows, stderr};
use sha2::{Digest, Sha256};

/// A plain WARC of one response per page: (URL, extra HTTP header lines, HTML file).
fn warc_of(pages: &[(&str, &str, &str)]) -> Vec<u8> {
    let mut warc = Vec::new();
    for (i, (url, headers, file)) in pages.iter().enumerate() {
        let html = std::fs::read(project_file(&format!("tests/fixtures/languages/{file}"))).expect("fixture");
        let mut block = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n{headers}\r\n").into_bytes();
        block.extend_from_slice(&html);
        let head = format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\nWARC-Date: 2024-01-0{}T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-00000000000{i}>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
            i + 1,
            block.len()
        );
        warc.extend_from_slice(head.as_bytes());
        warc.extend_from_slice(&block);
        warc.extend_from_slice(b"\r\n\r\n");
    }
    warc
}

#[test]
fn every_row_carries_its_language_the_declared_one_words_and_digest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("languages.warc");
    std::fs::write(
        &input,
        warc_of(&[
            ("https://journal.example.fr/bibliotheque", "", "fr.html"),
            ("https://gazeta.example.ru/biblioteka", "Content-Language: ru\r\n", "ru.html"),
            ("https://ribao.example.cn/library", "Content-Language: en\r\n", "zh.html"),
            ("https://jarida.example.com/library", "", "ar.html"),
        ]),
    )
    .expect("write");
    // The default (the combiner decides after the batch is classified) and a mode
    // that decides the text on the workers.
    for extra in [&[][..], &["--classifier", "none", "--extractor", "article"][..]] {
        let out = dir.path().join(format!("out-{}", extra.len()));
        let run = process_paths(&out, std::slice::from_ref(&input), extra);
        assert!(run.status.success(), "{}", stderr(&run));
        let mut rows = read_all_rows(&out);
        rows.sort_by(|a, b| a.url.cmp(&b.url));
        let got: Vec<(&str, Option<&str>, Option<&str>)> =
            rows.iter().map(|r| (r.url.as_str(), r.language.as_deref(), r.declared_language.as_deref())).collect();
        assert_eq!(
            got,
            [
                ("https://gazeta.example.ru/biblioteka", Some("ru"), Some("ru")),
                ("https://jarida.example.com/library", Some("ar"), None),
                ("https://journal.example.fr/bibliotheque", Some("fr"), Some("fr")),
                // <html lang> wins over the server's header.
                ("https://ribao.example.cn/library", Some("zh"), Some("zh")),
            ],
            "{extra:?}"
        );
        for row in &rows {
            assert!(row.language_confidence.is_some_and(|c| c > 0.0 && c <= 1.0), "{row:?}");
            let digest: String = Sha256::digest(row.text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(row.text_sha256, digest);
            // Unicode word boundaries: at least the whitespace-separated words, and many
            // more in Chinese, which has no spaces.
            assert!(row.text_words as usize >= row.text.split_whitespace().count(), "{row:?}");
            assert!(row.text_words > 50, "{row:?}");
        }
    }
}
