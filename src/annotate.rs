//! Stage after extraction: what corpus builders filter on first, computed from the final
//! text of a page: its language (detected, and as the page declares it), a digest for
//! exact-duplicate removal, and its word count.

use sha2::{Digest, Sha256};
use unicode_segmentation::UnicodeSegmentation;

pub use crate::page::language::{LANGUAGE_SAMPLE_BYTES, MIN_LANGUAGE_LETTERS, detect_language};

/// The text-derived columns of one row.
#[derive(Debug, Clone, PartialEq)]
pub struct TextFacts {
    /// ISO 639-1 code where the language has one, ISO 639-3 otherwise.
    pub language: Option<String>,
    /// The detector's confidence in `language`, 0 to 1.
    pub language_confidence: Option<f32>,
    /// Lower-case hex SHA-256 of the text's UTF-8 bytes.
    pub sha256: String,
    /// Words by Unicode's word boundaries (UAX #29): punctuation is no word, and each
    /// Chinese or Japanese ideograph counts as one, so scripts written without spaces
    /// are not counted as a handful of "words".
    pub words: i32,
}

impl TextFacts {
    /// The columns of `text`, its language read from its first [`LANGUAGE_SAMPLE_BYTES`].
    pub fn of(text: &str) -> Self {
        Self::with_language(text, detect_language(text))
    }

    /// The columns of `text` with its `language` and the detector's confidence as read
    /// already (by the extractor), None where the detector could not tell.
    pub fn with_language(text: &str, language: Option<(String, f32)>) -> Self {
        let (language, language_confidence) = language.map_or((None, None), |(code, confidence)| (Some(code), Some(confidence)));
        Self { language, language_confidence, sha256: hex_sha256(text), words: i32::try_from(count_words(text)).unwrap_or(i32::MAX) }
    }
}

/// A declared language (`<html lang>`, `Content-Language`) as a code comparable with
/// the detected one: the primary subtag of the first tag, lower-cased, in ISO 639-1
/// where it has a code; None when it is not a known language code.
pub fn normalize_declared(tag: &str) -> Option<String> {
    let first = tag.split([',', ';', ' ']).map(str::trim).find(|t| !t.is_empty())?;
    let primary = first.split(['-', '_']).next()?.to_ascii_lowercase();
    // Codes withdrawn from ISO 639-1 that pages still declare.
    let primary = match primary.as_str() {
        "iw" => "he".to_string(),
        "in" => "id".to_string(),
        "ji" => "yi".to_string(),
        "jw" => "jv".to_string(),
        _ => primary,
    };
    match primary.len() {
        2 => isolang::Language::from_639_1(&primary).map(|_| primary),
        3 => isolang::Language::from_639_3(&primary).map(|l| l.to_639_1().map_or(primary.clone(), str::to_string)),
        _ => None,
    }
}

/// The page's declared language: `<html lang>` first (the author's), then the server's
/// `Content-Language`.
pub fn declared_language(html_lang: Option<&str>, content_language: Option<&str>) -> Option<String> {
    html_lang.and_then(normalize_declared).or_else(|| content_language.and_then(normalize_declared))
}

fn hex_sha256(text: &str) -> String {
    use std::fmt::Write;
    let digest = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The number of UAX #29 words in `text`, as `unicode_words().count()` gives it. No word
/// runs across ASCII whitespace, so each run between it is counted on its own: runs of
/// ASCII (most of them) by the rules that apply there, the rest by unicode-segmentation
/// (which took 2% of the default's CPU counting every word of every text).
fn count_words(text: &str) -> usize {
    text.split(|c: char| c.is_ascii_whitespace() || c == '\x0b')
        .map(|run| if run.is_ascii() { count_ascii_words(run.as_bytes()) } else { run.unicode_words().count() })
        .sum()
}

/// The UAX #29 classes of ASCII characters that join into words.
#[derive(Clone, Copy, PartialEq, Eq)]
enum WordClass {
    Letter,
    Digit,
    /// `_` (ExtendNumLet): joins letters, digits and itself.
    Connector,
    /// `:` (MidLetter): joins two letters.
    BetweenLetters,
    /// `,` and `;` (MidNum): join two digits.
    BetweenDigits,
    /// `.` and `'` (MidNumLet, Single_Quote): join two letters or two digits.
    BetweenEither,
    Other,
}

fn word_class(b: u8) -> WordClass {
    match b {
        b'a'..=b'z' | b'A'..=b'Z' => WordClass::Letter,
        b'0'..=b'9' => WordClass::Digit,
        b'_' => WordClass::Connector,
        b':' => WordClass::BetweenLetters,
        b',' | b';' => WordClass::BetweenDigits,
        b'.' | b'\'' => WordClass::BetweenEither,
        _ => WordClass::Other,
    }
}

/// Words of an ASCII run without whitespace: letters, digits and `_` join (WB5, WB8–10,
/// WB13a/b), a letter-joiner between two letters and a digit-joiner between two digits
/// join too (WB6/7, WB11/12); a word needs a letter or digit.
fn count_ascii_words(run: &[u8]) -> usize {
    use WordClass::*;
    let class = |i: usize| run.get(i).map_or(Other, |&b| word_class(b));
    let (mut words, mut in_word, mut has_alphanumeric) = (0, false, false);
    let mut i = 0;
    while i < run.len() {
        let here = class(i);
        match here {
            Letter | Digit | Connector => {
                in_word = true;
                has_alphanumeric |= here != Connector;
                i += 1;
                continue;
            }
            BetweenLetters | BetweenDigits | BetweenEither if in_word => {
                let (before, after) = (class(i - 1), class(i + 1));
                let joins = match here {
                    BetweenLetters => before == Letter && after == Letter,
                    BetweenDigits => before == Digit && after == Digit,
                    _ => (before == Letter && after == Letter) || (before == Digit && after == Digit),
                };
                if joins {
                    i += 2;
                    continue;
                }
            }
            _ => {}
        }
        words += usize::from(in_word && has_alphanumeric);
        (in_word, has_alphanumeric) = (false, false);
        i += 1;
    }
    words + usize::from(in_word && has_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_of_four_scripts_are_detected() {
        let cases = [
            ("en", "The committee met on Tuesday to discuss the new budget for the city's public libraries and parks."),
            ("ru", "Комитет собрался во вторник, чтобы обсудить новый бюджет городских библиотек и парков."),
            ("zh", "委员会星期二开会讨论了城市公共图书馆和公园的新预算，并决定增加开放时间。"),
            ("ar", "اجتمعت اللجنة يوم الثلاثاء لمناقشة الميزانية الجديدة للمكتبات العامة والحدائق في المدينة."),
            ("de", "Der Ausschuss traf sich am Dienstag, um den neuen Haushalt der städtischen Bibliotheken zu beraten."),
        ];
        for (code, text) in cases {
            let facts = TextFacts::of(text);
            assert_eq!(facts.language.as_deref(), Some(code), "{text}");
            assert!(facts.language_confidence.is_some_and(|c| (0.0..=1.0).contains(&c)));
        }
    }

    #[test]
    fn too_little_text_has_no_language() {
        assert_eq!(TextFacts::of("Home | Login").language, None);
        assert_eq!(TextFacts::of("").language_confidence, None);
        assert_eq!(TextFacts::of("12 345 678 90 12 345 678 90 12 345").language, None);
    }

    #[test]
    fn digest_and_words() {
        let facts = TextFacts::of("two words");
        assert_eq!(facts.words, 2);
        assert_eq!(TextFacts::of("Hello, world! — it's 2024.").words, 4);
        assert_eq!(TextFacts::of("市图书馆重新开放").words, 8);
        assert_eq!(facts.sha256.len(), 64);
        assert_eq!(TextFacts::of("").sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_ne!(TextFacts::of("two words").sha256, TextFacts::of("two  words").sha256);
    }

    proptest::proptest! {
        /// The fast count agrees with unicode-segmentation's on text mixing every ASCII
        /// joiner with whitespace, marks, joiners, emoji, CJK and Hebrew.
        #[test]
        fn words_are_counted_as_unicode_segmentation_counts_them(
            chars in proptest::collection::vec(proptest::sample::select(vec![
                'a', 'Z', 'q', '0', '7', '_', '.', ',', ';', ':', '\'', '"', '-', '!', '/', ' ', '\t', '\n', '\r', '\x0b', '\x0c',
                'é', '’', '\u{301}', '\u{93f}', '\u{200d}', '\u{a0}', '😀', '中', 'カ', 'א', '\u{ff0e}', '\u{1f1e6}',
            ]), 0..40)
        ) {
            let text: String = chars.into_iter().collect();
            proptest::prop_assert_eq!(count_words(&text), text.unicode_words().count(), "{:?}", text);
        }
    }

    #[test]
    fn ascii_words_join_as_uax29_joins_them() {
        for (text, words) in [("can't stop", 2), ("3.14 or 1,000,000", 3), ("e.g. a..b", 3), ("a_b __ _1", 2), ("a:b 1:2 a.1", 5), ("", 0), ("...", 0)] {
            assert_eq!(count_words(text), words, "{text}");
            assert_eq!(text.unicode_words().count(), words, "{text}");
        }
    }

    #[test]
    fn declared_tags_are_normalised() {
        assert_eq!(normalize_declared("en-US").as_deref(), Some("en"));
        assert_eq!(normalize_declared(" zh_Hans ").as_deref(), Some("zh"));
        assert_eq!(normalize_declared("de, en;q=0.5").as_deref(), Some("de"));
        assert_eq!(normalize_declared("iw").as_deref(), Some("he"));
        assert_eq!(normalize_declared("deu").as_deref(), Some("de"));
        assert_eq!(normalize_declared("an").as_deref(), Some("an"));
        assert_eq!(normalize_declared("xx").as_deref(), None);
        assert_eq!(normalize_declared("").as_deref(), None);
        assert_eq!(normalize_declared("{{lang}}").as_deref(), None);
        assert_eq!(declared_language(Some("bogus"), Some("fr-FR")).as_deref(), Some("fr"));
        assert_eq!(declared_language(Some("nl"), Some("fr")).as_deref(), Some("nl"));
    }
}
