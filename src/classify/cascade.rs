//! The default classifier (`--classifier cascade`): the ResNet's forward pass only where it
//! is needed. A linear model over the ResNet's own fused inputs (the 39 page features and
//! the word model's seven scores, no picture) decides the pages it is sure of; the picture
//! is drawn and the ResNet reads only the others. How sure is sure enough is learned on the
//! classifier's validation domains ([`choose_sure_at`]), not set by hand.

use std::path::Path;

use super::resnet::fused_row;
use super::{ClassifyError, Features, GenreNet, LinearModel, NetInput, PAGE_TYPE_COUNT, Prediction};
use crate::models::{CASCADE_MODEL, ModelFileError};

/// The file's format tag: another format is refused on load.
pub const FORMAT: &str = "goce-warc cascade 1";

/// `models/genre-cascade.json`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CascadeFile {
    pub format: String,
    /// The linear model over the fused inputs (the ResNet spec's `feature_names`).
    pub fused: LinearModel,
    /// The linear model decides a page when its most likely type has at least this probability.
    pub sure_at: f32,
    /// How each threshold tried did on the validation and test domains.
    pub sweep: Vec<SweepPoint>,
}

/// One threshold's figures on one split.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SweepPoint {
    pub split: String,
    pub sure_at: f32,
    /// The share of pages the ResNet reads.
    pub to_network: f64,
    pub genre_accuracy: f64,
    pub type_accuracy: f64,
    /// The pages scored (0 in files written before it was stored).
    #[serde(default)]
    pub pages: usize,
}

/// The linear gate in front of the ResNet.
pub struct Cascade {
    pub fused: LinearModel,
    pub sure_at: f32,
    pub net: GenreNet,
}

impl Cascade {
    pub fn load(models: &Path, net: GenreNet) -> Result<Self, ClassifyError> {
        let path = models.join(CASCADE_MODEL);
        let err = |source| ClassifyError::Model { path: path.clone(), source };
        let invalid = |detail: String| err(ModelFileError::Invalid(detail));
        let file: CascadeFile = ModelFileError::read(&path).and_then(|text| ModelFileError::parse(&text, "goce-warc cascade")).map_err(err)?;
        if file.format != FORMAT {
            return Err(invalid(format!("format {:?}, this build reads {FORMAT:?}", file.format)));
        }
        if !file.fused.is_consistent() || file.fused.feature_names != net.spec.feature_names || net.words.is_none() {
            return Err(invalid("its linear model does not read the ResNet's fused inputs".into()));
        }
        Ok(Self { fused: file.fused, sure_at: file.sure_at, net })
    }

    /// The linear model's prediction when it is sure of the page, else None (the ResNet decides).
    pub fn decide_cheaply(&self, features: &Features) -> Option<Prediction> {
        let probabilities = self.fused.probabilities(&fused_row(features, self.net.words.as_ref()));
        is_sure(&probabilities, self.sure_at).then(|| Prediction::from_probabilities(probabilities))
    }

    /// Every page: the linear model's answer where it is sure, the ResNet's (one forward
    /// pass over the rest) elsewhere.
    pub fn predict(&self, inputs: &[NetInput<'_>]) -> Result<Vec<Prediction>, ClassifyError> {
        let cheap: Vec<Option<Prediction>> = inputs.iter().map(|i| self.decide_cheaply(i.features)).collect();
        let unsure: Vec<NetInput<'_>> =
            inputs.iter().zip(&cheap).filter(|(_, c)| c.is_none()).map(|(i, _)| NetInput { picture: i.picture, features: i.features }).collect();
        let mut from_net = self.net.predict(&unsure)?.into_iter();
        cheap.into_iter().map(|c| c.or_else(|| from_net.next()).ok_or(ClassifyError::Net("it returned too few predictions"))).collect()
    }
}

/// Whether the most likely page type has at least `sure_at` probability.
pub fn is_sure(probabilities: &[f32; PAGE_TYPE_COUNT], sure_at: f32) -> bool {
    probabilities.iter().copied().fold(0.0f32, f32::max) >= sure_at
}

/// The thresholds tried: 0.30 to 1.00 in steps of 0.025 (at 1.00 the ResNet reads nearly
/// every page; of seven types the likeliest has at least 1/7, so below 0.3 few pages move).
pub fn thresholds() -> Vec<f32> {
    (12..=40).map(|i| i as f32 * 0.025).collect()
}

/// The cascade's predictions on a split at a threshold, from each page's linear and
/// ResNet predictions; returns them and the share that reached the ResNet.
pub fn combine_predictions(linear: &[Prediction], net: &[Prediction], sure_at: f32) -> (Vec<Prediction>, f64) {
    let mut to_net = 0usize;
    let out = linear
        .iter()
        .zip(net)
        .map(|(l, n)| {
            if is_sure(&l.probabilities, sure_at) {
                l.clone()
            } else {
                to_net += 1;
                n.clone()
            }
        })
        .collect();
    (out, to_net as f64 / linear.len().max(1) as f64)
}

/// The threshold to ship, from the validation domains' sweep: the lowest (the fewest pages
/// to the ResNet) whose pages right (genre and type accuracy summed) come within one standard
/// error of the best threshold's. This is the one-standard-error rule of model selection: on
/// a few hundred validation pages a smaller difference is noise, while every step up sends
/// more pages to the network. Without a page count (an older file), the best, and of equals
/// the lowest.
pub fn choose_sure_at(validation: &[SweepPoint]) -> f32 {
    let key = |p: &SweepPoint| p.genre_accuracy + p.type_accuracy;
    let Some(best) = validation.iter().max_by(|a, b| key(a).total_cmp(&key(b))) else { return 1.0 };
    let standard_error = |accuracy: f64| (accuracy * (1.0 - accuracy) / best.pages as f64).sqrt();
    let margin = if best.pages == 0 { 0.0 } else { standard_error(best.genre_accuracy) + standard_error(best.type_accuracy) };
    validation.iter().filter(|p| key(p) >= key(best) - margin - 1e-12).map(|p| p.sure_at).fold(best.sure_at, f32::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(sure_at: f32, genre: f64, page_type: f64, pages: usize) -> SweepPoint {
        SweepPoint { split: "validation".into(), sure_at, to_network: 0.0, genre_accuracy: genre, type_accuracy: page_type, pages }
    }

    #[test]
    fn the_cheapest_threshold_within_a_standard_error_of_the_best_is_chosen() {
        let sweep = |pages| [point(0.5, 0.90, 0.80, pages), point(0.6, 0.93, 0.85, pages), point(0.7, 0.93, 0.85, pages), point(1.0, 0.92, 0.85, pages)];
        // 100 pages: the best's standard errors (0.026 + 0.036) do not cover 0.5's shortfall of 0.08.
        assert_eq!(choose_sure_at(&sweep(100)), 0.6);
        // 30 pages: 0.047 + 0.065 do cover it, so the cheapest threshold is as good as the best.
        assert_eq!(choose_sure_at(&sweep(30)), 0.5);
        // Without a page count: the best, of equals the lowest.
        assert_eq!(choose_sure_at(&sweep(0)), 0.6);
        assert_eq!(choose_sure_at(&[]), 1.0);
    }

    #[test]
    fn the_shipped_gate_is_sure_at_what_the_rule_chooses_from_its_own_sweep() {
        let dir = crate::models::find_dir(None).unwrap();
        let file: CascadeFile = serde_json::from_str(&std::fs::read_to_string(dir.join(CASCADE_MODEL)).unwrap()).unwrap();
        let validation: Vec<SweepPoint> = file.sweep.iter().filter(|p| p.split == "validation").cloned().collect();
        assert!(!validation.is_empty() && validation.iter().all(|p| p.pages > 0));
        assert_eq!(file.sure_at, choose_sure_at(&validation));
    }

    #[test]
    fn sure_pages_keep_the_linear_answer_and_the_rest_take_the_network() {
        let sure = Prediction::from_probabilities([0.9, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0]);
        let unsure = Prediction::from_probabilities([0.4, 0.35, 0.25, 0.0, 0.0, 0.0, 0.0]);
        let net = Prediction::from_probabilities([0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        let (out, share) = combine_predictions(&[sure.clone(), unsure], &[net.clone(), net.clone()], 0.8);
        assert_eq!(out, vec![sure, net]);
        assert!((share - 0.5).abs() < 1e-12);
        assert!(thresholds().first() == Some(&0.3) && thresholds().last() == Some(&1.0));
    }
}
