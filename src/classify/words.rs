//! The page's words as classifier input: what a page says ("reply", "add to cart",
//! "parameters", "sign in") and what its markup calls its parts (`post-body`,
//! `product-price`, `pagination`) tell its type across sites far better than counts do.
//!
//! A page becomes a [`WordBag`]: four fields (visible text, class and id words, title,
//! URL path), each word hashed with its field. [`WordModel`] weighs the bag by TF-IDF
//! (sublinear term frequency, each field L2-normalised) and scores it with a multinomial
//! logistic regression; its seven log-probabilities are fused into the ResNet's head like
//! the other page features. The vocabulary is learned by `make model` from the training
//! domains only and stored as words in `models/genre-words.json`.

use std::hash::{BuildHasher, Hasher};

use foldhash::HashMap;
use html5ever::local_name;

use super::PAGE_TYPE_COUNT;
use crate::dom::{DOCUMENT, Dom, NodeData, TagList};

/// The bag's fields, in column order.
pub const FIELDS: [&str; 4] = ["text", "class", "title", "url"];

/// Words read per field and page: a resource bound, far above what decides the type.
pub const MAX_WORDS_PER_FIELD: usize = 20_000;

/// Tags whose text is not shown.
pub(super) const HIDDEN_TEXT: &[&str] = &["style", "script", "noscript", "template", "title", "head", "svg"];
static HIDDEN: TagList = TagList::new(HIDDEN_TEXT);

/// The hashed, counted words of one page, sorted by hash.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WordBag(pub Vec<(u64, u32)>);

impl WordBag {
    /// Every word of the page.
    pub fn of(dom: &Dom, url: &str) -> Self {
        Self::of_words_where(dom, url, |_| true)
    }

    /// The words of the page that `model` knows: all that its
    /// [`WordModel::log_probabilities`] reads, counted without the rest.
    pub fn of_known(dom: &Dom, url: &str, model: &WordModel) -> Self {
        Self::of_words_where(dom, url, |hash| model.columns.contains_key(&hash))
    }

    fn of_words_where(dom: &Dom, url: &str, keep: impl Fn(u64) -> bool) -> Self {
        let mut counts: HashMap<u64, u32> = HashMap::default();
        for_each_word(dom, url, &mut |field, word| {
            let hash = word_hash(field, word);
            if keep(hash) {
                *counts.entry(hash).or_default() += 1;
            }
        });
        let mut bag: Vec<(u64, u32)> = counts.into_iter().collect();
        bag.sort_unstable();
        Self(bag)
    }

    /// The bag of a page's [`word_counts`] (training has those already; no second walk).
    pub fn from_counts(counts: &[(usize, String, u32)]) -> Self {
        let mut bag: Vec<(u64, u32)> = counts.iter().map(|(field, word, count)| (word_hash(*field, word), *count)).collect();
        bag.sort_unstable();
        Self(bag)
    }
}

/// A word's key: its field and its (lower-case) text, hashed with a fixed seed so that
/// training and every later run agree.
pub fn word_hash(field: usize, word: &str) -> u64 {
    let mut hasher = foldhash::fast::FixedState::with_seed(0x600d_3a6e).build_hasher();
    hasher.write_u8(field as u8);
    hasher.write(word.as_bytes());
    hasher.finish()
}

/// Calls `f(field, word)` for every word of the page, lower-cased: words are runs of
/// letters and digits of two or more characters, not all digits; class and id values
/// are also cut where camelCase turns upper.
pub fn for_each_word(dom: &Dom, url: &str, f: &mut dyn FnMut(usize, &str)) {
    let mut words = Words::default();
    let mut title = String::new();
    let mut budget = [MAX_WORDS_PER_FIELD; FIELDS.len()];
    // (node, inside hidden text, inside <title>)
    let mut stack = vec![(DOCUMENT, false, false)];
    while let Some((id, hidden, in_title)) = stack.pop() {
        let node = &dom.nodes[id];
        match &node.data {
            NodeData::Text(text) if in_title => title.push_str(text),
            NodeData::Text(text) if !hidden => words.split(text, false, &mut |w| emit(0, w, &mut budget, f)),
            NodeData::Element(element) => {
                // The first `class`, then the first `id`, as the words were counted in training.
                for value in [element.get(&local_name!("class")), element.get(&local_name!("id"))].into_iter().flatten() {
                    words.split(value, true, &mut |w| emit(1, w, &mut budget, f));
                }
                let hidden = hidden || HIDDEN.contains(&element.name.local);
                let in_title = in_title || element.is(&local_name!("title"));
                stack.extend(node.children.iter().rev().map(|&c| (c, hidden, in_title)));
            }
            _ => stack.extend(node.children.iter().rev().map(|&c| (c, hidden, in_title))),
        }
    }
    words.split(&title, false, &mut |w| emit(2, w, &mut budget, f));
    let rest = url.split_once("://").map_or("", |(_, r)| r);
    let path = rest.find('/').map_or("", |i| &rest[i..]);
    words.split(path, false, &mut |w| emit(3, w, &mut budget, f));
}

fn emit(field: usize, word: &str, budget: &mut [usize; FIELDS.len()], f: &mut dyn FnMut(usize, &str)) {
    if budget[field] > 0 {
        budget[field] -= 1;
        f(field, word);
    }
}

/// [`ASCII_CLASSES`]' bits: a letter or digit, a capital, a digit.
const ALPHANUMERIC: u8 = 1;
const UPPER: u8 = 2;
const DIGIT: u8 = 4;

/// What [`Words::split`] asks of each ASCII byte, worked out when the program is built.
const ASCII_CLASSES: [u8; 128] = {
    let mut classes = [0; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        let mut class = 0;
        if c.is_ascii_alphanumeric() {
            class |= ALPHANUMERIC;
        }
        if c.is_ascii_uppercase() {
            class |= UPPER;
        }
        if c.is_ascii_digit() {
            class |= DIGIT;
        }
        classes[b] = class;
        b += 1;
    }
    classes
};

/// A reused buffer for the current word.
#[derive(Default)]
struct Words {
    word: String,
    chars: usize,
    digits_only: bool,
}

impl Words {
    fn split(&mut self, text: &str, camel_case: bool, out: &mut dyn FnMut(&str)) {
        let bytes = text.as_bytes();
        let mut previous_lower = false;
        let mut i = 0;
        while i < bytes.len() {
            // A word of ASCII letters and digits that ends before an ASCII byte (or the
            // text): most words are, and they need no decoding and, but for capitals, no
            // copy (these words took 4% of the default's CPU char by char). Each byte is
            // read once: whether the word goes on, has a capital, is all digits.
            if self.chars == 0 && bytes[i].is_ascii() {
                let kind = ASCII_CLASSES[usize::from(bytes[i])];
                if kind & ALPHANUMERIC == 0 {
                    // Between words: spaces and punctuation, skipped a run at a time.
                    i = bytes[i..].iter().position(|&b| !b.is_ascii() || ASCII_CLASSES[usize::from(b)] & ALPHANUMERIC != 0).map_or(bytes.len(), |n| i + n);
                    previous_lower = false;
                    continue;
                }
                let (mut end, mut any, mut all) = (i + 1, kind, kind);
                while let Some(&b) = bytes.get(end) {
                    let kind = if b.is_ascii() { ASCII_CLASSES[usize::from(b)] } else { 0 };
                    if kind & ALPHANUMERIC == 0 {
                        break;
                    }
                    (any, all) = (any | kind, all & kind);
                    end += 1;
                }
                if bytes.get(end).is_none_or(u8::is_ascii) {
                    let word = &text[i..end];
                    if camel_case && any & UPPER != 0 {
                        self.ascii_word(word, out);
                    } else {
                        self.ascii_piece(word, any & UPPER != 0, all & DIGIT != 0, out);
                    }
                    i = end;
                    continue;
                }
            }
            let Some(c) = text[i..].chars().next() else { break };
            i += c.len_utf8();
            self.push_char(c, camel_case, &mut previous_lower, out);
        }
        self.flush(out);
    }

    /// One character of [`Self::split`], the general way.
    fn push_char(&mut self, c: char, camel_case: bool, previous_lower: &mut bool, out: &mut dyn FnMut(&str)) {
        // Most characters are ASCII, where the `ascii` tests give the same answers as
        // the Unicode ones at a fraction of the cost.
        let ascii = c.is_ascii();
        if !(if ascii { c.is_ascii_alphanumeric() } else { c.is_alphanumeric() }) {
            self.flush(out);
            *previous_lower = false;
            return;
        }
        if camel_case && *previous_lower && (if ascii { c.is_ascii_uppercase() } else { c.is_uppercase() }) {
            self.flush(out);
        }
        *previous_lower = if ascii { c.is_ascii_lowercase() } else { c.is_lowercase() };
        if self.chars == 0 {
            self.digits_only = true;
        }
        self.digits_only &= c.is_ascii_digit();
        self.chars += 1;
        if ascii {
            self.word.push(c.to_ascii_lowercase());
        } else {
            self.word.extend(c.to_lowercase());
        }
    }

    /// A whole word of ASCII letters and digits with a capital, cut where camelCase turns
    /// upper.
    fn ascii_word(&mut self, word: &str, out: &mut dyn FnMut(&str)) {
        let bytes = word.as_bytes();
        let mut start = 0;
        for i in 1..bytes.len() {
            if bytes[i - 1].is_ascii_lowercase() && bytes[i].is_ascii_uppercase() {
                self.camel_case_piece(&word[start..i], out);
                start = i;
            }
        }
        self.camel_case_piece(&word[start..], out);
    }

    fn camel_case_piece(&mut self, piece: &str, out: &mut dyn FnMut(&str)) {
        self.ascii_piece(piece, piece.bytes().any(|b| b.is_ascii_uppercase()), piece.bytes().all(|b| b.is_ascii_digit()), out);
    }

    /// One ASCII word (or camelCase piece), given whether it has a capital and whether it
    /// is all digits.
    fn ascii_piece(&mut self, piece: &str, has_capital: bool, all_digits: bool, out: &mut dyn FnMut(&str)) {
        if piece.len() < 2 || all_digits {
            return;
        }
        if has_capital {
            self.word.clear();
            self.word.push_str(piece);
            self.word.make_ascii_lowercase();
            out(&self.word);
            self.word.clear();
        } else {
            out(piece);
        }
    }

    fn flush(&mut self, out: &mut dyn FnMut(&str)) {
        if self.chars >= 2 && !self.digits_only {
            out(&self.word);
        }
        self.word.clear();
        self.chars = 0;
    }
}

/// One field's vocabulary and inverse document frequencies.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct WordField {
    pub name: String,
    pub words: Vec<String>,
    pub idf: Vec<f32>,
}

/// TF-IDF over the bag and a multinomial logistic regression; `models/genre-words.json`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct WordModel {
    pub fields: Vec<WordField>,
    /// Per page type: the bias, then a weight per word (fields in order).
    pub weights: Vec<Vec<f32>>,
    /// Word hash → (field, column), and each column's IDF: built by [`WordModel::index`].
    #[serde(skip)]
    columns: HashMap<u64, (usize, usize)>,
    #[serde(skip)]
    idf: Vec<f32>,
}

/// Log-probabilities are floored here, so one confident word model cannot swamp the head.
const LOG_FLOOR: f32 = 1e-4;

impl WordModel {
    fn new(fields: Vec<WordField>, weights: Vec<Vec<f32>>) -> Self {
        let mut model = Self { fields, weights, columns: HashMap::default(), idf: Vec::new() };
        model.index();
        model
    }

    /// Builds the hash → (field, column) map; call after deserialising.
    pub fn index(&mut self) {
        self.columns.clear();
        self.idf.clear();
        for (f, field) in self.fields.iter().enumerate() {
            for (word, idf) in field.words.iter().zip(&field.idf) {
                self.columns.insert(word_hash(f, word), (f, self.idf.len()));
                self.idf.push(*idf);
            }
        }
    }

    pub fn columns(&self) -> usize {
        self.fields.iter().map(|f| f.words.len()).sum()
    }

    /// Whether the stored shapes fit together.
    pub fn is_consistent(&self) -> bool {
        let columns = self.columns();
        self.fields.len() == FIELDS.len()
            && self.fields.iter().all(|f| f.words.len() == f.idf.len())
            && self.weights.len() == PAGE_TYPE_COUNT
            && self.weights.iter().all(|w| w.len() == columns + 1 && w.iter().all(|v| v.is_finite()))
    }

    /// The bag as sparse TF-IDF columns, each field's part of unit length.
    fn tf_idf(&self, bag: &WordBag) -> Vec<(usize, f32)> {
        let mut entries = Vec::new();
        let mut norms = [0.0f32; FIELDS.len()];
        for &(hash, count) in &bag.0 {
            if let Some(&(field, column)) = self.columns.get(&hash) {
                let value = (1.0 + (count as f32).ln()) * self.idf[column];
                norms[field] += value * value;
                entries.push((field, column, value));
            }
        }
        entries.into_iter().map(|(field, column, value)| (column, value / norms[field].sqrt().max(1e-12))).collect()
    }

    /// The page types' log-probabilities (floored at ln 1e-4).
    pub fn log_probabilities(&self, bag: &WordBag) -> [f32; PAGE_TYPE_COUNT] {
        let entries = self.tf_idf(bag);
        let mut logits = [0.0f32; PAGE_TYPE_COUNT];
        for (logit, w) in logits.iter_mut().zip(&self.weights) {
            *logit = w[0] + entries.iter().map(|&(c, v)| w[c + 1] * v).sum::<f32>();
        }
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let sum: f32 = logits.iter().map(|l| (l - max).exp()).sum();
        logits.map(|l| ((l - max).exp() / sum).max(LOG_FLOOR).ln())
    }

    /// Learns the vocabulary (per field: words in at least `min_df` training pages, the
    /// `max_words` most common) and the regression, which `fit` solves (LibTorch's Adam in
    /// the trainer: `goce_warc_torch::words`). `docs[i]` lists page i's distinct (field,
    /// word) pairs with counts.
    pub fn train<E>(
        docs: &[&[(usize, String, u32)]],
        labels: &[usize],
        class_weights: &[f32],
        settings: &WordTraining,
        fit: impl FnOnce(&WordRegression<'_>) -> Result<Vec<Vec<f32>>, E>,
    ) -> Result<Self, E> {
        let n = docs.len().max(1) as f32;
        let mut df: Vec<HashMap<&str, u32>> = vec![HashMap::default(); FIELDS.len()];
        for doc in docs {
            for (field, word, _) in doc.iter() {
                *df[*field].entry(word.as_str()).or_default() += 1;
            }
        }
        let fields: Vec<WordField> = df
            .iter()
            .enumerate()
            .map(|(f, counts)| {
                let min_df = settings.min_df[f];
                let mut kept: Vec<(&str, u32)> = counts.iter().filter(|(_, d)| **d >= min_df).map(|(w, d)| (*w, *d)).collect();
                kept.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
                kept.truncate(settings.max_words);
                kept.sort_by(|a, b| a.0.cmp(b.0));
                WordField {
                    name: FIELDS[f].to_string(),
                    idf: kept.iter().map(|(_, d)| ((1.0 + n) / (1.0 + *d as f32)).ln() + 1.0).collect(),
                    words: kept.into_iter().map(|(w, _)| w.to_string()).collect(),
                }
            })
            .collect();
        let mut model = Self::new(fields, vec![vec![0.0; 1]; PAGE_TYPE_COUNT]);
        let columns = model.columns();
        let mut x = vec![0.0f32; docs.len() * columns];
        for (row, doc) in x.chunks_exact_mut(columns.max(1)).zip(docs) {
            for (column, value) in model.tf_idf(&WordBag::from_counts(doc)) {
                row[column] = value;
            }
        }
        let sample_weights: Vec<f32> = labels.iter().map(|&l| class_weights[l]).collect();
        let regression = WordRegression { x: &x, rows: docs.len(), columns, labels, sample_weights: &sample_weights, classes: PAGE_TYPE_COUNT, settings };
        model.weights = fit(&regression)?;
        Ok(model)
    }
}

/// The regression the word model's weights solve: TF-IDF rows `x` (`rows` × `columns`, row
/// by row) and their page types; per class, the bias then a weight per column.
pub struct WordRegression<'a> {
    pub x: &'a [f32],
    pub rows: usize,
    pub columns: usize,
    pub labels: &'a [usize],
    pub sample_weights: &'a [f32],
    pub classes: usize,
    pub settings: &'a WordTraining,
}

/// How the word model is fitted.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WordTraining {
    /// Per field (text, class, title, url): pages a word must appear in to be kept.
    pub min_df: [u32; FIELDS.len()],
    /// Words kept per field.
    pub max_words: usize,
    /// L2 penalty on the weights (the loss is the class-weighted mean cross-entropy).
    pub l2: f64,
    pub steps: usize,
    pub learning_rate: f64,
}

impl Default for WordTraining {
    fn default() -> Self {
        Self { min_df: [3, 3, 2, 2], max_words: 5000, l2: 5e-5, steps: 300, learning_rate: 0.05 }
    }
}

/// A page's distinct (field, word) pairs with counts, for training.
pub fn word_counts(dom: &Dom, url: &str) -> Vec<(usize, String, u32)> {
    let mut counts: std::collections::BTreeMap<(usize, String), u32> = std::collections::BTreeMap::new();
    for_each_word(dom, url, &mut |field, word| *counts.entry((field, word.to_string())).or_default() += 1);
    counts.into_iter().map(|((f, w), c)| (f, w, c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::DomLimits;

    fn words(html: &str, url: &str) -> Vec<(usize, String, u32)> {
        let dom = Dom::parse_with_styles(html, DomLimits { max_elements: 1000, deadline: None }).unwrap();
        let counts = word_counts(&dom, url);
        // Training builds the bag from the counts, inference walks the page: the same bag.
        assert_eq!(WordBag::from_counts(&counts), WordBag::of(&dom, url));
        counts
    }

    #[test]
    fn fields_hold_shown_text_markup_words_title_and_path() {
        let got = words(
            "<title>Reply to: Bikes</title><style>.x{}</style><body><div class='postBody post-2' id=main>Add to cart, add it! 2024 a</div><script>var cart</script></body>",
            "https://shop.example/Forum/viewtopic.php?t=12",
        );
        let field = |f: usize| got.iter().filter(|(g, _, _)| *g == f).map(|(_, w, c)| format!("{w}:{c}")).collect::<Vec<_>>();
        assert_eq!(field(0), ["add:2", "cart:1", "it:1", "to:1"], "script and style are not shown; one-letter words and numbers are dropped");
        assert_eq!(field(1), ["body:1", "main:1", "post:2"], "camelCase and dashes split class words");
        assert_eq!(field(2), ["bikes:1", "reply:1", "to:1"]);
        assert_eq!(field(3), ["forum:1", "php:1", "viewtopic:1"], "the host and the query are not path words");
    }

    /// Every word by the general path alone, character by character.
    fn split_slowly(text: &str, camel_case: bool) -> Vec<String> {
        let (mut words, mut got, mut previous_lower) = (Words::default(), Vec::new(), false);
        for c in text.chars() {
            words.push_char(c, camel_case, &mut previous_lower, &mut |w| got.push(w.to_string()));
        }
        words.flush(&mut |w| got.push(w.to_string()));
        got
    }

    proptest::proptest! {
        /// The fast path for ASCII words cuts and lower-cases as the general path does.
        #[test]
        fn ascii_words_split_as_characters_do(
            chars in proptest::collection::vec(proptest::sample::select(vec!['a', 'b', 'Q', 'Z', '0', '7', '-', ' ', '_', 'é', 'É', 'ß', '中', '٣', '\u{301}']), 0..30),
            camel_case: bool,
        ) {
            let text: String = chars.into_iter().collect();
            let mut got = Vec::new();
            Words::default().split(&text, camel_case, &mut |w| got.push(w.to_string()));
            proptest::prop_assert_eq!(got, split_slowly(&text, camel_case), "{:?}", text);
        }
    }

    /// A fit for the tests, without LibTorch: each class's weights its rows' mean, scaled
    /// (the trainer's Adam fit is tested in goce-warc-torch).
    fn centroids(r: &WordRegression<'_>) -> Result<Vec<Vec<f32>>, std::convert::Infallible> {
        Ok((0..r.classes)
            .map(|k| {
                let rows: Vec<&[f32]> = r.x.chunks_exact(r.columns).zip(r.labels).filter(|(_, l)| **l == k).map(|(row, _)| row).collect();
                let mean = |c: usize| if rows.is_empty() { 0.0 } else { 10.0 * rows.iter().map(|row| row[c]).sum::<f32>() / rows.len() as f32 };
                std::iter::once(0.0).chain((0..r.columns).map(mean)).collect()
            })
            .collect())
    }

    #[test]
    fn a_trained_model_separates_pages_by_their_words() {
        let page = |type_word: &str, i: usize| vec![(0usize, type_word.to_string(), 3u32), (0, format!("filler{}", i % 4), 1), (1, "content".to_string(), 1)];
        let docs: Vec<_> = (0..40).map(|i| page(if i % 2 == 0 { "reply" } else { "cart" }, i)).collect();
        let labels: Vec<usize> = (0..40).map(|i| if i % 2 == 0 { 1 } else { 2 }).collect();
        let docs: Vec<&[(usize, String, u32)]> = docs.iter().map(Vec::as_slice).collect();
        let model = WordModel::train(&docs, &labels, &[1.0; PAGE_TYPE_COUNT], &WordTraining::default(), centroids).unwrap();
        assert!(model.is_consistent());
        let bag = |w: &str| WordBag(vec![(word_hash(0, w), 2)]);
        let forum = model.log_probabilities(&bag("reply"));
        let product = model.log_probabilities(&bag("cart"));
        assert!(forum[1] > forum[2] + 1.0 && product[2] > product[1] + 1.0, "{forum:?} {product:?}");
        // The model round-trips through JSON once re-indexed.
        let mut loaded: WordModel = serde_json::from_str(&serde_json::to_string(&model).unwrap()).unwrap();
        loaded.index();
        assert_eq!(loaded.log_probabilities(&bag("reply")), forum);
    }

    #[test]
    fn the_known_words_score_as_the_whole_bag_does() {
        let docs: Vec<Vec<(usize, String, u32)>> = (0..40)
            .map(|i| vec![(0usize, if i % 2 == 0 { "reply" } else { "cart" }.to_string(), 2u32), (1, "post".to_string(), 1), (2, format!("title{}", i % 3), 1)])
            .collect();
        let docs: Vec<&[(usize, String, u32)]> = docs.iter().map(Vec::as_slice).collect();
        let labels: Vec<usize> = (0..40).map(|i| if i % 2 == 0 { 1 } else { 2 }).collect();
        let model = WordModel::train(&docs, &labels, &[1.0; PAGE_TYPE_COUNT], &WordTraining::default(), centroids).unwrap();
        let html = "<title>title1 and more</title><div class='post unknownClass'>reply reply, cart and words no page had</div>";
        let dom = Dom::parse_with_styles(html, DomLimits { max_elements: 1000, deadline: None }).unwrap();
        let (all, known) = (WordBag::of(&dom, "https://x.example/some/path"), WordBag::of_known(&dom, "https://x.example/some/path", &model));
        assert!(known.0.len() < all.0.len() && known.0.iter().all(|entry| all.0.contains(entry)), "{known:?} {all:?}");
        assert_eq!(known.0.len(), 4, "reply, cart, post, title1: {known:?}");
        assert_eq!(model.log_probabilities(&known), model.log_probabilities(&all));
    }
}
