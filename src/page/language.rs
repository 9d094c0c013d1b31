//! What language a page's text is in, and what that asks of the stages after it: the
//! detector (whatlang), the stopwords of each language (NLTK's lists where it has one,
//! Stopwords ISO's otherwise, from the `stop-words` crate), and which characters are words
//! by themselves (scripts written without spaces between words).

use std::sync::{LazyLock, OnceLock};

use whatlang::Detector;

/// The detector reads at most this many bytes of the text (cut at a character
/// boundary): a paragraph tells the language, and the detector's cost grows with the
/// sample. Against 4,096 bytes, 1,024 agree with the declared language as often or more
/// (trafi-dev 0.968 → 0.970, WCXB-dev + Scrapinghub 0.986 → 0.989) at 0.12 ms a text
/// instead of 0.20 (`examples/language_sample.rs`, docs/languages.md).
pub const LANGUAGE_SAMPLE_BYTES: usize = 1024;
/// Below this many letters the language is not guessed (the column is null).
pub const MIN_LANGUAGE_LETTERS: usize = 20;

/// The language of `text` and the detector's confidence, or None when the text is too
/// short (or too mixed) to tell. The code is ISO 639-1 where the language has one, ISO
/// 639-3 otherwise.
pub fn detect_language(text: &str) -> Option<(String, f32)> {
    detect_language_in(text, LANGUAGE_SAMPLE_BYTES)
}

/// [`detect_language`] reading at most `sample_bytes` of the text.
pub fn detect_language_in(text: &str, sample_bytes: usize) -> Option<(String, f32)> {
    let sample = sample(text, sample_bytes);
    if !has_enough_letters(sample) {
        return None;
    }
    detect(sample).map(Detection::code_and_confidence)
}

/// What the detector read in a sample: its language, how confident it is, and whether
/// whatlang's own test (`Info::is_reliable`) calls it sure.
#[derive(Debug, Clone, PartialEq)]
pub struct Detection {
    /// ISO 639-1 where the language has a code, ISO 639-3 otherwise.
    pub code: String,
    pub confidence: f32,
    pub reliable: bool,
}

impl Detection {
    pub fn code_and_confidence(self) -> (String, f32) {
        (self.code, self.confidence)
    }
}

/// The detector's reading of `sample` (whole: the caller cuts it), None where it finds no
/// script it knows.
pub fn detect(sample: &str) -> Option<Detection> {
    let info = detector().detect(sample)?;
    Some(Detection { code: iso_639_1_or_3(info.lang().code()), confidence: info.confidence() as f32, reliable: info.is_reliable() })
}

/// Whether a sample holds the [`MIN_LANGUAGE_LETTERS`] it takes to name its language.
pub fn has_enough_letters(sample: &str) -> bool {
    sample.chars().filter(|c| c.is_alphabetic()).take(MIN_LANGUAGE_LETTERS).count() >= MIN_LANGUAGE_LETTERS
}

/// The part of `text` the detector reads: its first `bytes` (cut at a character boundary).
fn sample(text: &str, bytes: usize) -> &str {
    &text[..floor_char_boundary(text, bytes)]
}

fn detector() -> &'static Detector {
    static DETECTOR: OnceLock<Detector> = OnceLock::new();
    DETECTOR.get_or_init(Detector::new)
}

/// The two-letter code of a three-letter one where ISO 639-1 has it. whatlang names
/// Mandarin (`cmn`) and Iranian Persian (`pes`), individual languages inside the
/// macrolanguages that 639-1 codes as `zh` and `fa`.
fn iso_639_1_or_3(code: &str) -> String {
    match code {
        "cmn" => "zh".to_string(),
        "pes" => "fa".to_string(),
        _ => isolang::Language::from_639_3(code).and_then(|l| l.to_639_1()).unwrap_or(code).to_string(),
    }
}

/// The largest character boundary at or below `at`.
pub fn floor_char_boundary(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0)
}

/// The lower-case stopwords of a language by its ISO 639-1 code, None where no list has
/// it. A list holds whole words; in Chinese and Japanese, whose characters are each a
/// word here ([`stands_alone`]), only its one-character entries can match.
pub fn stopwords(code: &str) -> Option<&'static foldhash::HashSet<&'static str>> {
    static SETS: LazyLock<foldhash::HashMap<&'static str, foldhash::HashSet<&'static str>>> = LazyLock::new(|| {
        stop_words::available_languages().iter().filter_map(|&code| Some((code, stop_words::lookup(code)?.iter().copied().collect()))).collect()
    });
    SETS.get(code)
}

/// `text.split_whitespace().count()` for ASCII text: the places where a non-space follows
/// a space (or starts the text), a sum the compiler vectorises. `None` for other text.
pub fn ascii_word_count(text: &str) -> Option<usize> {
    // Rust's whitespace among ASCII: tab, newline, vertical tab, form feed, return, space.
    let is_space = |b: u8| b == b' ' || (b'\t'..=b'\r').contains(&b);
    let bytes = text.as_bytes();
    if !bytes.is_ascii() {
        return None;
    }
    let Some(&first) = bytes.first() else { return Some(0) };
    // Counted in bytes within runs of 255 pairs of neighbours, which the compiler turns
    // into 16 or 32 pairs per instruction (style sheets run to hundreds of kilobytes).
    let (before, here) = (&bytes[..bytes.len() - 1], &bytes[1..]);
    let starts: usize = before
        .chunks(255)
        .zip(here.chunks(255))
        .map(|(before, here)| usize::from(before.iter().zip(here).fold(0u8, |n, (&b, &h)| n + u8::from(is_space(b) & !is_space(h)))))
        .sum();
    Some(starts + usize::from(!is_space(first)))
}

/// Whether a character is a word by itself: Chinese ideographs and Japanese kana, written
/// without spaces between words. Counting a run of them as one "word" makes a paragraph
/// look like a short label to every rule and model that counts words.
pub fn stands_alone(c: char) -> bool {
    let in_block = matches!(c,
        '\u{3040}'..='\u{30ff}' // Hiragana, Katakana
        | '\u{31f0}'..='\u{31ff}' // Katakana phonetic extensions
        | '\u{3400}'..='\u{4dbf}' // CJK Unified Ideographs Extension A
        | '\u{4e00}'..='\u{9fff}' // CJK Unified Ideographs
        | '\u{f900}'..='\u{faff}' // CJK Compatibility Ideographs
        | '\u{ff66}'..='\u{ff9f}' // Halfwidth Katakana
        | '\u{20000}'..='\u{2fa1f}' // Extensions B-F, Compatibility Supplement
    );
    // The blocks also hold marks that are no letters (`・`, `゠`).
    in_block && c.is_alphabetic()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_text_is_sampled_at_a_character_boundary() {
        let text = "é".repeat(LANGUAGE_SAMPLE_BYTES);
        assert!(text.is_char_boundary(floor_char_boundary(&text, LANGUAGE_SAMPLE_BYTES + 1)));
        assert_eq!(floor_char_boundary("abc", 10), 3);
        // Sampling cuts inside the text without panicking.
        let _ = detect_language(&text);
    }

    #[test]
    fn stopword_lists_are_found_by_two_letter_code() {
        for (code, word) in [("fr", "le"), ("de", "und"), ("es", "que"), ("cs", "že"), ("zh", "的"), ("ja", "の"), ("ru", "и")] {
            assert!(stopwords(code).is_some_and(|set| set.contains(word)), "{code}: {word}");
        }
        assert!(stopwords("xx").is_none());
    }

    proptest::proptest! {
        /// ASCII is counted as `split_whitespace` counts it; other text is left to it.
        #[test]
        fn ascii_words_are_counted_as_split_whitespace_counts_them(
            pieces in proptest::collection::vec(proptest::sample::select(vec!["a", "Z", "7", ".", " ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\0", "é"]), 0..40)
        ) {
            let text: String = pieces.concat();
            let expected = text.is_ascii().then(|| text.split_whitespace().count());
            proptest::prop_assert_eq!(ascii_word_count(&text), expected, "{:?}", text);
        }
    }

    #[test]
    fn ascii_words_are_counted_in_long_and_empty_texts() {
        let text = "ab \t".repeat(700_001) + "c";
        assert_eq!(ascii_word_count(&text), Some(700_002));
        assert_eq!(ascii_word_count(""), Some(0));
        // Words that start on either side of the places where the count's pieces meet.
        for blanks in 250..=260 {
            let text = " ".repeat(blanks) + "b c" + &"x ".repeat(blanks);
            assert_eq!(ascii_word_count(&text), Some(text.split_whitespace().count()), "{blanks}");
        }
        assert_eq!(ascii_word_count("é"), None);
    }

    #[test]
    fn ideographs_and_kana_stand_alone_and_other_scripts_do_not() {
        for c in ['中', '文', 'の', 'カ', 'ー', '𠀀'] {
            assert!(stands_alone(c), "{c}");
        }
        for c in ['a', 'é', 'я', '한', 'ก', '。', '、', '１', '・'] {
            assert!(!stands_alone(c), "{c}");
        }
    }
}
