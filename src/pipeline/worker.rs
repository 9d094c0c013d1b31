//! One page's work, from its response record to its row: decode, parse once, compute the
//! classifier's features, draw the picture where it is used (parsing again with the style
//! sheets, unless every page is drawn), extract. A page whose type
//! only the ResNet can decide leaves its row waiting ([`Waiting`]) until the batch's
//! forward pass, and [`PageWorker::finish`] completes it.

use std::path::Path;

use crate::annotate::TextFacts;
use crate::classify::{Classifier, Features, Prediction};
use crate::dom::{Dom, FOR_CLASSIFIER, FOR_RENDERING};
use crate::extract::{
    CombinerBlocks, ExtractError, ExtractLimits, ExtractModels, ExtractRequest, Extraction, Extractor, Genre, MarkdownOptions, PageAnalysis, PageSource,
    parse_page,
};
use crate::output::{Row, parse_warc_date};
use crate::page::{Decision, Page, PageFilter, ResponseRecord, decode_page};
use crate::render::{PageRenderer, Picture};

use super::ProcessConfig;

/// What one worker thread needs to turn records into rows: the run's models and settings,
/// borrowed for the input being processed.
pub(super) struct PageWorker<'a> {
    filter: &'a PageFilter,
    extractor: Extractor,
    models: &'a ExtractModels,
    classifier: Option<&'a Classifier>,
    renderer: Option<&'a PageRenderer>,
    markdown: Option<&'a MarkdownOptions>,
    limits: ExtractLimits,
    pictures_dir: Option<&'a Path>,
    /// The input's name, for the `warc_file` column and the pictures' names.
    warc_file: &'a str,
}

/// A record's outcome.
pub(super) enum Processed {
    Row(Box<Row>, Option<RenderNote>, Option<Box<Waiting>>),
    Filtered(&'static str),
    Skipped(&'static str),
}

/// What rendering a page came to, for the manifest.
pub(super) struct RenderNote {
    pub renderer: &'static str,
    pub note: Option<&'static str>,
}

/// A page waiting for the batched ResNet: the network's input, and what its prediction
/// will decide.
pub(super) struct Waiting {
    pub picture: Option<Picture>,
    pub features: Features,
    undecided: Undecided,
}

/// What a page came to before its row is written.
struct Extracted {
    extraction: Extraction,
    render_note: Option<RenderNote>,
    /// The prediction, where the classifier could make it without the network.
    prediction: Option<Prediction>,
    waiting: Option<Box<Waiting>>,
}

impl Extracted {
    fn text_only(extraction: Extraction) -> Self {
        Self { extraction, render_note: None, prediction: None, waiting: None }
    }
}

/// What a page's prediction decides of its row besides the genre columns.
enum Undecided {
    /// Nothing: the text does not depend on the page type.
    Nothing,
    /// Under a genre-picking extractor: the text of each genre, article first.
    ByGenre(Box<[Extraction; 2]>),
    /// Under `combined`: the page's blocks, which the trees decide with the page types,
    /// and with `--markdown` the page's DOM, which the Markdown is written from.
    Blocks(Box<CombinerBlocks>, Option<(Box<Dom>, MarkdownOptions)>),
}

impl<'a> PageWorker<'a> {
    pub fn new(config: &'a ProcessConfig, warc_file: &'a str) -> Self {
        Self {
            filter: &config.filter,
            extractor: config.extractor,
            models: &config.models,
            classifier: config.classifier.as_deref(),
            renderer: config.renderer.as_deref(),
            markdown: config.markdown.as_ref(),
            limits: config.extract_limits,
            pictures_dir: config.pictures_dir.as_deref(),
            warc_file,
        }
    }

    /// A record's row, or why it has none.
    pub fn process(&self, record: ResponseRecord) -> Processed {
        let page = match decode_page(record, self.filter) {
            Decision::Page(page) => page,
            Decision::Filtered(reason) => return Processed::Filtered(reason.name()),
            Decision::Broken(e) => {
                tracing::debug!("page skipped: {e}");
                return Processed::Skipped(e.name());
            }
        };
        let markdown = self.markdown.map(|m| MarkdownOptions { page_url: Some(page.url.clone()), ..m.clone() });
        let request = ExtractRequest { markdown: markdown.as_ref(), limits: self.limits, ..ExtractRequest::default() };
        let done = if self.renderer.is_none() && self.classifier.is_none() {
            self.extractor.extract(self.models, PageSource::html(&page.html), &request).map(Extracted::text_only)
        } else {
            self.process_parsed(&page, &request)
        };
        let Extracted { extraction, render_note, prediction, waiting } = match done {
            Ok(done) => done,
            Err(e) => {
                tracing::debug!(url = %page.url, "extraction failed: {e}");
                return Processed::Skipped(e.name());
            }
        };
        let page = *page;
        let language = extraction.language;
        let mut row = Row {
            warc_date: page.warc_date.as_deref().and_then(parse_warc_date),
            warc_offset: page.offset.and_then(|o| i64::try_from(o).ok()),
            warc_record_id: page.record_id,
            warc_file: self.warc_file.to_string(),
            http_status: i32::from(page.http_status),
            content_type: page.content_type,
            charset: page.charset.to_string(),
            html_bytes: i64::try_from(page.html_bytes).unwrap_or(i64::MAX),
            title: extraction.title,
            page_type: None,
            genre: extraction.genre.map(|g| g.name().to_string()),
            genre_confidence: None,
            extractor: self.extractor.name().to_string(),
            declared_language: crate::annotate::declared_language(extraction.declared_language.as_deref(), page.content_language.as_deref()),
            text: extraction.text,
            markdown: extraction.markdown,
            extraction_confidence: extraction.confidence,
            url: page.url,
            ..Row::default()
        };
        if let Some(p) = &prediction {
            set_prediction(&mut row, p);
        }
        if waiting.is_none() {
            annotate(&mut row, language);
        }
        Processed::Row(Box::new(row), render_note, waiting)
    }

    /// With a renderer or a classifier: one DOM for the features and the text, and for the
    /// picture where every page is drawn.
    fn process_parsed(&self, page: &Page, request: &ExtractRequest<'_>) -> Result<Extracted, ExtractError> {
        // The picture is drawn only where it is used: for the network, or when asked for
        // (--pictures, or a renderer named beside a classifier that reads none).
        let asked_for_pictures = self.pictures_dir.is_some() || self.classifier.is_none_or(|c| !c.kind().needs_picture());
        // Drawing needs the style sheets. Where every page is drawn, the one parse keeps them;
        // else the page is parsed for the classifier and the text, and the pages drawn are
        // parsed again with them (the same tree; should that parse run out of time, the page
        // is drawn unstyled).
        let always_drawn = self.renderer.is_some() && (asked_for_pictures || self.classifier.is_some_and(|c| c.kind().needs_every_picture()));
        let dom = parse_page(&page.html, &self.limits, if always_drawn { &FOR_RENDERING } else { &FOR_CLASSIFIER })?;
        let mut render_note = None;
        let mut draw = || {
            self.renderer.and_then(|renderer| {
                let styled = if always_drawn { None } else { parse_page(&page.html, &self.limits, &FOR_RENDERING).ok() };
                let (note, picture) = render_page(renderer, &page.html, styled.as_ref().unwrap_or(&dom), self.pictures_dir, self.warc_file, page.offset);
                render_note = Some(note);
                picture
            })
        };
        let analysis = PageAnalysis::new(&dom);
        let source = PageSource::parsed(&page.html, &analysis);
        let features = self.classifier.map(|c| c.features_of(&analysis, &page.url));
        let cheap = self.classifier.zip(features.as_ref()).and_then(|(c, f)| c.decide_cheaply(f));
        let features = match features {
            Some(features) if cheap.is_none() => features,
            _ => {
                // No classifier, or one that decided without the network: the text now.
                if asked_for_pictures {
                    draw();
                }
                let request = ExtractRequest { genre: cheap.as_ref().map(|p| p.genre), page_types: cheap.as_ref().map(|p| &p.probabilities), ..*request };
                let extraction = self.extractor.extract(self.models, source, &request)?;
                return Ok(Extracted { extraction, render_note, prediction: cheap, waiting: None });
            }
        };
        // The page waits for the batch's forward pass.
        let picture = draw();
        let (extraction, undecided) = match self.extractor {
            Extractor::Combined => {
                // The trees read the page types: the blocks wait, the text is decided later.
                self.models.combiner()?;
                let blocks = Box::new(CombinerBlocks::of(&analysis));
                let head = Extraction { title: dom.title(), declared_language: dom.declared_language(), ..Extraction::default() };
                drop(analysis);
                let markdown = request.markdown.map(|m| (Box::new(dom), m.clone()));
                (head, Undecided::Blocks(blocks, markdown))
            }
            extractor if extractor.uses_genre() => {
                let [article, list_view] =
                    [Genre::Article, Genre::ListView].map(|genre| extractor.extract(self.models, source, &ExtractRequest { genre: Some(genre), ..*request }));
                let (article, list_view) = (article?, list_view?);
                (article.clone(), Undecided::ByGenre(Box::new([article, list_view])))
            }
            extractor => (extractor.extract(self.models, source, request)?, Undecided::Nothing),
        };
        let waiting = Some(Box::new(Waiting { picture, features, undecided }));
        Ok(Extracted { extraction, render_note, prediction: None, waiting })
    }

    /// Completes a row that waited for its page's prediction: the genre columns, the text
    /// the prediction decides, and the columns computed from that text.
    pub fn finish(&self, processed: &mut Processed, prediction: Option<&Prediction>) {
        let Processed::Row(row, _, waiting) = processed else { return };
        let Some(waiting) = waiting.take() else { return };
        let mut language = None;
        match waiting.undecided {
            Undecided::Nothing => {}
            Undecided::Blocks(blocks, markdown) => {
                // The combiner was there when the page was processed (or it would have no row).
                if let Ok(model) = self.models.combiner() {
                    let markdown = markdown.as_ref().map(|(dom, options)| (&**dom, options));
                    let decided = blocks.decide(model, prediction.map(|p| &p.probabilities), markdown).truncated(self.limits.max_text_bytes);
                    (row.text, row.markdown, row.extraction_confidence, language) = (decided.text, decided.markdown, decided.confidence, decided.language);
                }
            }
            Undecided::ByGenre(candidates) => {
                if let Some(prediction) = prediction {
                    let [article, list_view] = *candidates;
                    let chosen = match prediction.genre {
                        Genre::Article => article,
                        Genre::ListView => list_view,
                    };
                    (row.text, row.markdown, language) = (chosen.text, chosen.markdown, chosen.language);
                }
            }
        }
        if let Some(prediction) = prediction {
            set_prediction(row, prediction);
        }
        annotate(row, language);
    }
}

/// The columns computed from the final text; its language from the text unless the
/// extractor read it already.
fn annotate(row: &mut Row, language: Option<(String, f32)>) {
    let facts = match language {
        Some(language) => TextFacts::with_language(&row.text, Some(language)),
        None => TextFacts::of(&row.text),
    };
    row.language = facts.language;
    row.language_confidence = facts.language_confidence;
    row.text_words = facts.words;
    row.text_sha256 = facts.sha256;
}

fn set_prediction(row: &mut Row, prediction: &Prediction) {
    row.page_type = Some(prediction.page_type.name().to_string());
    row.genre = Some(prediction.genre.name().to_string());
    row.genre_confidence = Some(prediction.genre_confidence);
}

fn render_page(renderer: &PageRenderer, html: &str, dom: &Dom, pictures: Option<&Path>, warc_file: &str, offset: Option<u64>) -> (RenderNote, Option<Picture>) {
    match renderer.render(html, dom) {
        Ok(rendered) => {
            let mut note = rendered.limit.map(crate::render::RenderLimit::name);
            if let Some(dir) = pictures {
                let stem = warc_file.rsplit('/').next().unwrap_or(warc_file).split('.').next().unwrap_or("warc");
                let path = dir.join(format!("{stem}-{}.png", offset.unwrap_or(0)));
                let written = rendered.picture.to_png().map_err(|e| e.to_string()).and_then(|png| std::fs::write(&path, png).map_err(|e| e.to_string()));
                if let Err(e) = written {
                    tracing::warn!("cannot write picture {}: {e}", path.display());
                    note = note.or(Some("picture_not_written"));
                }
            }
            (RenderNote { renderer: rendered.renderer.name(), note }, Some(rendered.picture))
        }
        Err(e) => {
            tracing::debug!("render failed: {e}");
            (RenderNote { renderer: crate::render::RendererKind::Chrome.name(), note: Some("chrome_failed") }, None)
        }
    }
}
