//! Text statistics of a block: words, stopwords, sentences, punctuation, in one pass over
//! its characters (Web2Text's text features), and the whitespace collapse every text node
//! goes through.

use memchr::memmem;
use std::sync::LazyLock;

use crate::page::language::stands_alone;

/// The 124-word English stopword list of the reference implementation.
pub const STOPWORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being",
    "below", "between", "both", "but", "by", "cannot", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had",
    "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
    "me", "more", "most", "my", "myself", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "ought", "our", "ours", "ourselves", "out",
    "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these",
    "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "why", "with", "would", "you", "your", "yours", "yourself", "yourselves",
];

/// Characters counted as punctuation: ASCII's, the full-width marks of Chinese and
/// Japanese, Arabic's comma and question mark, the Devanagari full stop.
const PUNCTUATION: &[char] = &['.', ',', '?', ';', ':', '!', '。', '、', '，', '？', '；', '：', '！', '،', '؟', '।'];
/// Marks that end a sentence when whitespace and a capital (or a letter of a script
/// without case) follow.
const STOPS: &[char] = &['.', '?', '!', ';', '؟', '।', '۔'];
/// Full stops after which a sentence starts whatever follows (no capitals, no space).
const CJK_STOPS: &[char] = &['。', '？', '！'];

/// Text statistics of a node, summed over its leaves.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TextStats {
    pub chars: usize,
    pub words: usize,
    pub word_chars: usize,
    pub sentences: usize,
    pub punctuation: usize,
    pub numeric: usize,
    pub stopwords: usize,
    pub capitalised: usize,
    pub link_chars: usize,
    pub ends_with_punctuation: bool,
    pub ends_with_question: bool,
    pub copyright: bool,
    pub email: bool,
    pub url: bool,
    pub year: bool,
    pub form: bool,
}

impl TextStats {
    /// Whether links hold at least half of the characters.
    pub fn mostly_links(&self) -> bool {
        self.link_chars * 2 >= self.chars.max(1)
    }

    /// The statistics of one block's text (whitespace already collapsed), in one pass over
    /// its characters: words are the runs of alphanumeric characters, and each Chinese
    /// ideograph or Japanese kana is a word by itself ([`stands_alone`]). It runs for every
    /// block of every page, so ASCII, nearly all of it, is told by its byte, and a run of
    /// lower-case ASCII letters inside a word, which changes nothing but the counts of
    /// characters, is skipped over in one step.
    pub fn of(text: &str) -> Self {
        let text = text.trim();
        let bytes = text.as_bytes();
        let mut s = Self { sentences: 1, ..Self::default() };
        // Where the word being read started, in bytes.
        let mut word_start = None;
        // A sentence ends at . ? ! ; followed by whitespace and a capital letter (or a
        // letter without case: Arabic, Hindi): `after_stop` is 1 right after such a mark,
        // 2 once whitespace has followed it; after 。？！ (3) the next character starts
        // one whatever it is.
        let mut after_stop = 0u8;
        let mut at = 0;
        while at < bytes.len() {
            let (kind, len) = match bytes[at] {
                b if b.is_ascii() => {
                    let kind = ASCII_KINDS[usize::from(b)];
                    if kind.alphanumeric && word_start.is_some() {
                        // Inside a word, after its first character: lower-case letters
                        // only add to the counts of characters.
                        let run = bytes[at..].iter().take_while(|b| b.is_ascii_lowercase()).count();
                        if run > 0 {
                            s.chars += run;
                            s.word_chars += run;
                            after_stop = 0;
                            at += run;
                            continue;
                        }
                    }
                    (kind, 1)
                }
                _ => match text[at..].chars().next() {
                    Some(c) => {
                        s.copyright |= c == '©';
                        (CharKind::general(c), c.len_utf8())
                    }
                    None => break,
                },
            };
            s.chars += 1;
            if kind.alone {
                if let Some(start) = word_start.take() {
                    s.end_word(&text[start..at]);
                }
                s.word_chars += 1;
                s.words += 1;
                s.end_word(&text[at..at + len]);
            } else if kind.alphanumeric {
                s.word_chars += 1;
                if word_start.is_none() {
                    word_start = Some(at);
                    s.words += 1;
                    s.capitalised += usize::from(kind.uppercase);
                }
            } else if let Some(start) = word_start.take() {
                s.end_word(&text[start..at]);
            }
            s.punctuation += usize::from(kind.punctuation);
            s.numeric += usize::from(kind.numeric);
            if kind.whitespace {
                if after_stop == 1 {
                    after_stop = 2;
                }
            } else {
                if (after_stop == 2 && (kind.uppercase || kind.caseless_letter)) || after_stop == 3 {
                    s.sentences += 1;
                }
                after_stop = kind.stop;
            }
            at += len;
        }
        if let Some(start) = word_start {
            s.end_word(&text[start..]);
        }
        let last = text.chars().next_back();
        s.ends_with_punctuation = last.is_some_and(|c| PUNCTUATION.contains(&c));
        s.ends_with_question = last.is_some_and(|c| c == '?' || c == '？');
        s.email = has_email(text);
        s.url = has_address(text);
        s
    }

    /// What a whole word adds beyond its count: a stopword, a year.
    fn end_word(&mut self, word: &str) {
        if is_stopword(word) {
            self.stopwords += 1;
        }
        if word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()) {
            self.year = true;
        }
    }

    pub(super) fn add(&mut self, other: &Self) {
        self.chars += other.chars;
        self.words += other.words;
        self.word_chars += other.word_chars;
        self.sentences += other.sentences;
        self.punctuation += other.punctuation;
        self.numeric += other.numeric;
        self.stopwords += other.stopwords;
        self.capitalised += other.capitalised;
        self.link_chars += other.link_chars;
        // A node ends the way its last child ends.
        self.ends_with_punctuation = other.ends_with_punctuation;
        self.ends_with_question = other.ends_with_question;
        self.copyright |= other.copyright;
        self.email |= other.email;
        self.url |= other.url;
        self.year |= other.year;
        self.form |= other.form;
    }
}

/// What [`TextStats::of`] asks of a character: the `char` methods' answers, in a table for
/// ASCII ([`ASCII_KINDS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CharKind {
    /// A word by itself ([`stands_alone`]).
    alone: bool,
    alphanumeric: bool,
    uppercase: bool,
    /// A letter of a script without case (Arabic, Devanagari, Chinese).
    caseless_letter: bool,
    numeric: bool,
    whitespace: bool,
    punctuation: bool,
    /// 1 for a mark that ends a sentence before a capital ([`STOPS`]), 3 for one that
    /// ends it whatever follows ([`CJK_STOPS`]), else 0.
    stop: u8,
}

impl CharKind {
    fn general(c: char) -> Self {
        Self {
            alone: stands_alone(c),
            alphanumeric: c.is_alphanumeric(),
            uppercase: c.is_uppercase(),
            caseless_letter: c.is_alphabetic() && !c.is_uppercase() && !c.is_lowercase(),
            numeric: c.is_numeric(),
            whitespace: c.is_whitespace(),
            punctuation: PUNCTUATION.contains(&c),
            stop: if STOPS.contains(&c) {
                1
            } else if CJK_STOPS.contains(&c) {
                3
            } else {
                0
            },
        }
    }
}

/// [`CharKind::general`] of each ASCII character, worked out when the program is built.
const ASCII_KINDS: [CharKind; 128] = {
    let mut kinds = [CharKind {
        alone: false,
        alphanumeric: false,
        uppercase: false,
        caseless_letter: false,
        numeric: false,
        whitespace: false,
        punctuation: false,
        stop: 0,
    }; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        kinds[b] = CharKind {
            alone: false,
            alphanumeric: c.is_ascii_alphanumeric(),
            uppercase: c.is_ascii_uppercase(),
            caseless_letter: false,
            numeric: c.is_ascii_digit(),
            // `char::is_whitespace`: tab to carriage return, and the space.
            whitespace: matches!(c, b'\t'..=b'\r' | b' '),
            punctuation: matches!(c, b'.' | b',' | b'?' | b';' | b':' | b'!'),
            stop: if matches!(c, b'.' | b'?' | b'!' | b';') { 1 } else { 0 },
        };
        b += 1;
    }
    kinds
};

/// The words [`TextStats::of`] counts: runs of alphanumeric characters, and each
/// character that stands alone ([`stands_alone`]) by itself. It reads every block of a
/// page not in English again, so an ASCII character is told by its byte and only the others
/// are decoded.
pub(super) fn words(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    // The character at a byte: whether it is in a word, whether it stands alone, its length.
    let at_char = move |at: usize| match bytes[at] {
        b if b.is_ascii() => (b.is_ascii_alphanumeric(), false, 1),
        _ => text[at..].chars().next().map_or((false, false, 1), |c| (c.is_alphanumeric(), stands_alone(c), c.len_utf8())),
    };
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let (in_word, alone, len) = at_char(at);
            let start = at;
            at += len;
            if alone {
                return Some(&text[start..at]);
            }
            if in_word {
                while at < bytes.len() {
                    let (in_word, alone, len) = at_char(at);
                    if !in_word || alone {
                        break;
                    }
                    at += len;
                }
                return Some(&text[start..at]);
            }
        }
        None
    })
}

/// Whether a word is one of [`STOPWORDS`], in any case. It runs for every word of every
/// page: most words are ruled out by their length and first letter; the other ASCII words
/// (nearly all that match) are lowered into a 128-bit key and looked up in a set of the
/// list's keys, a hash, not a search through strings.
fn is_stopword(word: &str) -> bool {
    static KEYS: LazyLock<foldhash::HashSet<u128>> = LazyLock::new(|| STOPWORDS.iter().filter_map(|w| ascii_key(w)).collect());
    let Some(&first) = word.as_bytes().first() else { return false };
    if word.len() > LONGEST_STOPWORD {
        return false;
    }
    // Most words are told apart by their length and first letter, without a lookup.
    if first.is_ascii() && !(first.is_ascii_alphabetic() && STOPWORD_STARTS[word.len()] & 1 << (first.to_ascii_lowercase() - b'a') != 0) {
        return false;
    }
    match ascii_key(word) {
        Some(key) => KEYS.contains(&key),
        // Not ASCII (a short word always fits a key otherwise): a stopword only if its
        // lower case is (the Kelvin sign lowers to `k`), since every stopword is ASCII.
        None => ascii_key(&word.to_lowercase()).is_some_and(|key| KEYS.contains(&key)),
    }
}

/// Whether `word`, lower-cased, is in `list` (of lower-case words). An ASCII word is lowered
/// on the stack: a new string for each word of every block took about 2% of the default's
/// CPU on pages in German.
pub(super) fn in_word_list(word: &str, list: &foldhash::HashSet<&str>) -> bool {
    const ON_THE_STACK: usize = 32;
    let bytes = word.as_bytes();
    if !bytes.is_ascii() || bytes.len() > ON_THE_STACK {
        return list.contains(word.to_lowercase().as_str());
    }
    if !bytes.iter().any(u8::is_ascii_uppercase) {
        return list.contains(word);
    }
    let mut buffer = [0u8; ON_THE_STACK];
    let lower = &mut buffer[..bytes.len()];
    lower.copy_from_slice(bytes);
    lower.make_ascii_lowercase();
    std::str::from_utf8(lower).is_ok_and(|lower| list.contains(lower))
}

/// The longest word of [`STOPWORDS`] ("themselves", "yourselves").
const LONGEST_STOPWORD: usize = 10;

/// For each length, the first letters of the stopwords of that length (bit 0 for `a`).
const STOPWORD_STARTS: [u32; LONGEST_STOPWORD + 1] = {
    let mut starts = [0; LONGEST_STOPWORD + 1];
    let mut i = 0;
    while i < STOPWORDS.len() {
        let word = STOPWORDS[i].as_bytes();
        starts[word.len()] |= 1 << (word[0] - b'a');
        i += 1;
    }
    starts
};

/// A lower-cased ASCII word of at most 15 bytes as one number: its bytes, then its length
/// in the last byte (so "a" and "a\0" differ).
fn ascii_key(word: &str) -> Option<u128> {
    let bytes = word.as_bytes();
    if bytes.len() > 15 || !word.is_ascii() {
        return None;
    }
    let mut key = [0u8; 16];
    for (k, b) in key.iter_mut().zip(bytes) {
        *k = b.to_ascii_lowercase();
    }
    key[15] = bytes.len() as u8;
    Some(u128::from_le_bytes(key))
}

/// Whether a text holds `http://`, `https://`, `ftp://` or `www.`: each `://` is checked
/// for its scheme, so a block is searched twice, not four times (it runs for every block).
fn has_address(text: &str) -> bool {
    static WWW: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new("www."));
    static SEPARATOR: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new("://"));
    let bytes = text.as_bytes();
    WWW.find(bytes).is_some() || SEPARATOR.find_iter(bytes).any(|at| [b"http".as_slice(), b"https", b"ftp"].iter().any(|scheme| bytes[..at].ends_with(scheme)))
}

/// `name@host.tld`: a word character on each side of `@` and a dot after it.
fn has_email(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'@', bytes).any(|i| {
        i > 0
            && bytes[i - 1].is_ascii_alphanumeric()
            && bytes.get(i + 1).is_some_and(u8::is_ascii_alphanumeric)
            && text[i + 1..].split(char::is_whitespace).next().is_some_and(|host| host.trim_end_matches('.').contains('.'))
    })
}

/// Whitespace as the text collapses it: Unicode's, and the non-breaking space.
pub(super) fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{a0}'
}

/// Collapses runs of whitespace (and non-breaking spaces) to one space and trims. It runs
/// on every text node of every page, so an ASCII byte is told by its value and only the
/// other characters are decoded.
pub fn collapse_whitespace(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::new();
    // Where the word being read started.
    let mut word_start = None;
    let mut at = 0;
    while at < bytes.len() {
        let (space, len) = match bytes[at] {
            b if b.is_ascii() => (matches!(b, b' ' | b'\t'..=b'\r'), 1),
            _ => text[at..].chars().next().map_or((false, 1), |c| (is_space(c), c.len_utf8())),
        };
        match (space, word_start) {
            (true, Some(start)) => {
                if out.is_empty() {
                    // Most text nodes between tags are blank (indentation): they allocate nothing.
                    out.reserve(text.len() - start);
                } else {
                    out.push(' ');
                }
                out.push_str(&text[start..at]);
                word_start = None;
            }
            (false, None) => word_start = Some(at),
            _ => {}
        }
        at += len;
    }
    if let Some(start) = word_start {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&text[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statistics as two passes over the characters work them out, the one-pass
    /// [`TextStats::of`]'s reference.
    fn two_pass_stats(text: &str) -> TextStats {
        let text = text.trim();
        let mut s = TextStats { chars: text.chars().count(), sentences: 1, ..TextStats::default() };
        let spaced: String = text.chars().flat_map(|c| if stands_alone(c) { vec![' ', c, ' '] } else { vec![c] }).collect();
        for word in spaced.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            s.words += 1;
            s.word_chars += word.chars().count();
            s.capitalised += usize::from(word.chars().next().is_some_and(char::is_uppercase));
            s.stopwords += usize::from(is_stopword(word));
            s.year |= word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit());
        }
        let mut after_stop = 0u8;
        for c in text.chars() {
            s.punctuation += usize::from(PUNCTUATION.contains(&c));
            s.numeric += usize::from(c.is_numeric());
            if c.is_whitespace() {
                after_stop = match after_stop {
                    1 | 2 => 2,
                    3 => 3,
                    _ => 0,
                };
            } else {
                let caseless = c.is_alphabetic() && !c.is_uppercase() && !c.is_lowercase();
                s.sentences += usize::from((after_stop == 2 && (c.is_uppercase() || caseless)) || after_stop == 3);
                after_stop = if STOPS.contains(&c) {
                    1
                } else if CJK_STOPS.contains(&c) {
                    3
                } else {
                    0
                };
            }
        }
        let last = text.chars().last();
        s.ends_with_punctuation = last.is_some_and(|c| PUNCTUATION.contains(&c));
        s.ends_with_question = last == Some('?') || last == Some('？');
        s.copyright = text.contains('©');
        s.email = has_email(text);
        s.url = ["http://", "https://", "ftp://", "www."].iter().any(|p| text.contains(p));
        s
    }

    #[test]
    fn the_ascii_table_answers_as_the_char_methods_do() {
        for b in 0..128u8 {
            assert_eq!(ASCII_KINDS[usize::from(b)], CharKind::general(char::from(b)), "{b:#04x}");
        }
    }

    proptest::proptest! {
        /// One pass gives what two give, on text mixing ASCII of every kind with capitals,
        /// digits and spaces beyond ASCII, stopwords and years.
        #[test]
        fn one_pass_stats_are_the_two_pass_stats(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "Z", "q", "0", "7", "_", ".", ",", "?", "!", ";", ":", "©", "@", " ", "\t", "\n", "\x0b", "\u{a0}",
                "É", "é", "ß", "Ⅻ", "٣", "²", "中", "カ", "の", "・", "。", "？", "、", "ب", "؟", "।", "😀", "\u{301}", "the", "The", "2024", "www.", "x@y.org", "Über", "http", "s", "ftp", "://", "ww",
            ]), 0..30)
        ) {
            let text: String = pieces.concat();
            proptest::prop_assert_eq!(TextStats::of(&text), two_pass_stats(&text), "{:?}", text);
        }

        /// The byte-wise word split gives the words a search by character gives.
        #[test]
        fn words_are_those_a_search_by_character_finds(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "Z", "0", "_", ".", " ", "-", "é", "ß", "Ü", "Ⅻ", "٣", "²", "中", "カ", "の", "・", "。", "한", "ب", "😀", "\u{301}", "\u{a0}", "Über", "und",
            ]), 0..30)
        ) {
            let text: String = pieces.concat();
            let mut expected = Vec::new();
            let mut rest = text.as_str();
            while let Some(start) = rest.find(char::is_alphanumeric) {
                let tail = &rest[start..];
                let first = tail.chars().next().unwrap_or_default();
                let len = if stands_alone(first) { first.len_utf8() } else { tail.find(|c: char| !c.is_alphanumeric() || stands_alone(c)).unwrap_or(tail.len()) };
                expected.push(&tail[..len]);
                rest = &tail[len..];
            }
            proptest::prop_assert_eq!(words(&text).collect::<Vec<_>>(), expected, "{:?}", text);
        }

        /// The byte-wise collapse gives what splitting at every whitespace character gives,
        /// on text mixing ASCII blanks (and controls that are none) with Unicode's spaces.
        #[test]
        fn whitespace_collapses_as_split_words_join(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "Z", "0", ".", " ", "  ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\0", "\u{85}", "\u{a0}", "\u{1680}",
                "\u{2000}", "\u{200a}", "\u{200b}", "\u{2028}", "\u{202f}", "\u{205f}", "\u{3000}", "\u{feff}", "é", "中", "😀", "word",
            ]), 0..30)
        ) {
            let text: String = pieces.concat();
            let split: Vec<&str> = text.split(is_space).filter(|w| !w.is_empty()).collect();
            proptest::prop_assert_eq!(collapse_whitespace(&text), split.join(" "), "{:?}", text);
        }
    }

    #[test]
    fn stopwords_are_found_in_any_case() {
        assert!(STOPWORDS.iter().all(|w| w.len() <= LONGEST_STOPWORD), "is_stopword skips longer words");
        assert!(STOPWORDS.iter().all(|w| w.is_ascii()), "is_stopword looks words up by their ASCII key");
        assert!(STOPWORDS.iter().all(|w| w.starts_with(|c: char| c.is_ascii_lowercase())), "is_stopword sorts them by their first letter");
        for word in STOPWORDS.iter().copied().chain(["The", "THE", "yourselves", "Ourselves", "A"]) {
            assert!(is_stopword(word), "{word}");
        }
        for word in ["cat", "thee", "th", "", "a\0", "yourselvesx", "Ünder", "théir", "aboutaboutabout", "0f", "_the", "Zoo"] {
            assert!(!is_stopword(word), "{word}");
        }
    }

    #[test]
    fn a_word_is_in_a_language_list_as_its_lower_case_is() {
        let german = crate::page::language::stopwords("de").expect("a German list");
        let (long, long_capitals) = ("x".repeat(40), "A".repeat(33));
        let words = ["und", "Und", "UND", "über", "Über", "ÜBER", "Haus", "der", "DeR", "\u{212A}ein", "İch", "ΣΟΦΙΑ", &long, &long_capitals];
        for word in words.into_iter().chain(german.iter().copied()) {
            assert_eq!(in_word_list(word, german), german.contains(word.to_lowercase().as_str()), "{word}");
        }
        assert!(in_word_list("UND", german) && in_word_list("Über", german) && !in_word_list("Haus", german));
    }

    #[test]
    fn text_statistics_by_hand() {
        let s = TextStats::of("The Quick fox, in 2024, met bob@example.org. Is it? ©");
        // words: The Quick fox in 2024 met bob example org Is it → 11
        assert_eq!(s.words, 11);
        assert_eq!(s.stopwords, 4); // the, in, is, it
        assert_eq!(s.capitalised, 3); // The Quick Is
        assert_eq!(s.punctuation, 5); // , , . . ?
        assert_eq!(s.numeric, 4);
        assert_eq!(s.sentences, 2); // ". Is"
        assert!(s.year && s.email && s.copyright && !s.url);
        assert!(!s.ends_with_punctuation);
        assert!(TextStats::of("Why?").ends_with_question);
        assert!(TextStats::of("see https://example.org/x").url);
        assert!(!has_email("a @ b"));
        // A sentence mark, whitespace, then a capital: the mark nearest the capital counts.
        for (text, sentences) in
            [("One. Two! Three? Four; Five", 5), ("e.g. this", 1), ("End.Next", 1), ("Wait.. Then", 2), (". . Then", 2), ("A.\u{a0} B", 2), ("A. 1 B", 1)]
        {
            assert_eq!(TextStats::of(text).sentences, sentences, "{text}");
        }
    }
}
