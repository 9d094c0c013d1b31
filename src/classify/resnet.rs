//! The genre ResNet: basic residual blocks over the 224×224 wireframe picture, global
//! average pooling, and a head of two linear parts whose logits add up: one over the
//! pooled picture features, one over the page's standardised features. Training starts
//! the feature part from the features-only linear model and keeps it fixed, and the
//! picture part at zero, so the network begins as that model and the picture can only
//! correct it (boosting; validation loss picks the epoch). Depth and width are data ([`NetSpec`]),
//! stored beside the weights, so training and inference build the same network. The layers
//! are LibTorch's, in `crates/goce-warc-torch` (opened through [`crate::torch`]), or on the
//! CPU this crate's own ([`super::cpu_net`]); this module prepares their inputs.

use std::path::Path;

use super::cpu_net::CpuResNet;
use super::device::{Device, DeviceChoice};
use super::features::Features;
use super::words::WordModel;
use super::{ClassifyError, PAGE_TYPE_COUNT, PAGE_TYPES, Prediction, RESNET_SPEC, RESNET_WEIGHTS, WORD_MODEL};
use crate::models::ModelFileError;
use crate::render::Picture;
use crate::torch::{self, ResNet, TorchError};

/// The network's shape and its input contract, saved as `models/genre-resnet.json`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NetSpec {
    /// Channels of each stage (each stage after the first halves the resolution).
    pub widths: Vec<i64>,
    /// Basic blocks per stage.
    pub blocks: Vec<i64>,
    /// The picture's side in pixels (the lite renderer's `--size`).
    pub input_size: i64,
    /// The renderer and its settings the pictures must come from.
    pub renderer: String,
    /// Fused HTML features (empty: the picture alone), with their training statistics.
    pub feature_names: Vec<String>,
    pub feature_mean: Vec<f32>,
    pub feature_std: Vec<f32>,
    pub dropout: f64,
    /// Output order.
    pub classes: Vec<String>,
    /// The page is list-view when the list-view types' summed probability exceeds this.
    #[serde(default = "half")]
    pub list_view_threshold: f32,
    /// Whether the word model's (`models/genre-words.json`) seven log-probabilities follow
    /// the page features among the fused inputs.
    #[serde(default)]
    pub fuses_words: bool,
}

fn half() -> f32 {
    0.5
}

impl NetSpec {
    pub fn fuses_features(&self) -> bool {
        !self.feature_names.is_empty()
    }

    /// What the layers need of it (`goce_warc_torch::resnet::ResNetShape`), as JSON.
    pub fn shape_json(&self) -> String {
        serde_json::json!({
            "widths": self.widths,
            "blocks": self.blocks,
            "input_size": self.input_size,
            "features": self.feature_names.len(),
            "classes": PAGE_TYPE_COUNT,
            "dropout": self.dropout,
        })
        .to_string()
    }

    fn check(&self) -> Result<(), String> {
        let classes: Vec<&str> = PAGE_TYPES.iter().map(|t| t.name()).collect();
        if self.classes != classes {
            return Err(format!("classes {:?}, expected {classes:?}", self.classes));
        }
        if self.widths.is_empty() || self.widths.len() != self.blocks.len() || self.widths.iter().chain(&self.blocks).any(|&v| v < 1) {
            return Err("widths and blocks must be positive and of equal length".into());
        }
        let n = self.feature_names.len();
        if self.feature_mean.len() != n || self.feature_std.len() != n {
            return Err("feature statistics do not match the feature names".into());
        }
        let expected = super::features::FEATURE_COUNT + if self.fuses_words { PAGE_TYPE_COUNT } else { 0 };
        if n != 0 && n != expected {
            return Err(format!("{n} fused features; this goce-warc computes {expected}"));
        }
        if n == 0 && self.fuses_words {
            return Err("word scores are fused, but no page features".into());
        }
        if !(0.0..1.0).contains(&self.list_view_threshold) {
            return Err(format!("list-view threshold {} outside [0, 1)", self.list_view_threshold));
        }
        if !(32..=1024).contains(&self.input_size) {
            return Err(format!("input size {} out of range", self.input_size));
        }
        Ok(())
    }
}

/// One page for the network: its picture (None: render failed; a blank page is used) and
/// its features.
pub struct NetInput<'a> {
    pub picture: Option<&'a Picture>,
    pub features: &'a Features,
}

/// Pictures as the network reads them: `side`×`side` RGB bytes each, row by row (a missing
/// picture is a blank page, one of another size is resized).
pub fn picture_bytes(pictures: &[Option<&Picture>], side: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(pictures.len() * side * side * 3);
    let blank = Picture::blank(side as u32, side as u32);
    for picture in pictures {
        let picture = picture.unwrap_or(&blank);
        if picture.width as usize == side && picture.height as usize == side && picture.rgb.len() == side * side * 3 {
            bytes.extend_from_slice(&picture.rgb);
        } else {
            bytes.extend(resized(picture, side));
        }
    }
    bytes
}

/// Nearest-neighbour resize for a picture drawn at another size (e.g. `render --size`).
fn resized(picture: &Picture, side: usize) -> Vec<u8> {
    let (w, h) = (picture.width.max(1) as usize, picture.height.max(1) as usize);
    let mut out = vec![255u8; side * side * 3];
    if picture.rgb.len() < w * h * 3 {
        return out;
    }
    for y in 0..side {
        let sy = y * h / side;
        for x in 0..side {
            let sx = x * w / side;
            let from = (sy * w + sx) * 3;
            out[(y * side + x) * 3..][..3].copy_from_slice(&picture.rgb[from..from + 3]);
        }
    }
    out
}

/// A page's fused inputs before standardisation: its features, then (with a word model)
/// the word model's log-probabilities.
pub fn fused_row(features: &Features, words: Option<&WordModel>) -> Vec<f32> {
    let mut row = features.values.to_vec();
    if let Some(model) = words {
        row.extend(model.log_probabilities(&features.words));
    }
    row
}

/// The fused rows standardised with the spec's statistics, row after row (nothing when the
/// net does not fuse them).
pub fn standardised_rows(rows: &[Vec<f32>], spec: &NetSpec) -> Vec<f32> {
    if !spec.fuses_features() {
        return Vec::new();
    }
    rows.iter().flat_map(|row| row.iter().zip(&spec.feature_mean).zip(&spec.feature_std).map(|((v, m), s)| (v - m) / s)).collect()
}

/// Whose layers run the network on the CPU (on a GPU, LibTorch's always).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuLayers {
    /// LibTorch's, loaded now: `--classifier resnet`, which sends every page (its batched
    /// layers take 4.9 ms a picture on one core, these 12.7), and training.
    LibTorch,
    /// This crate's own forward pass ([`CpuResNet`]), and LibTorch never opens: the
    /// cascade, whose gate passes few pages on.
    Rust,
}

/// The layers a loaded network runs on.
enum Layers {
    Rust(Box<CpuResNet>),
    LibTorch(ResNet),
}

/// The shipped model, loaded for inference.
pub struct GenreNet {
    pub spec: NetSpec,
    pub device: Device,
    /// Present when the spec fuses word scores.
    pub words: Option<WordModel>,
    layers: Layers,
}

impl GenreNet {
    /// Reads the spec, the word model and the weights, into this crate's layers on the CPU
    /// (`--device cpu`, or `auto` on a machine without an NVIDIA GPU) when `cpu` says so,
    /// else into LibTorch on the resolved device.
    pub fn load(models: &Path, choice: DeviceChoice, cpu: CpuLayers) -> Result<Self, ClassifyError> {
        let spec_path = models.join(RESNET_SPEC);
        let weights = models.join(RESNET_WEIGHTS);
        let model_err = |path: &Path, source| ClassifyError::Model { path: path.to_path_buf(), source };
        let spec: NetSpec =
            ModelFileError::read(&spec_path).and_then(|text| ModelFileError::parse(&text, "goce-warc network spec")).map_err(|e| model_err(&spec_path, e))?;
        spec.check().map_err(|e| model_err(&spec_path, ModelFileError::Invalid(e)))?;
        if !weights.is_file() {
            return Err(model_err(&weights, ModelFileError::Invalid("missing".into())));
        }
        let words = if spec.fuses_words { Some(load_word_model(&models.join(WORD_MODEL))?) } else { None };
        let on_cpu_anyway = choice == DeviceChoice::Cpu || (choice == DeviceChoice::Auto && !torch::nvidia_gpu_present());
        let (device, layers) = if on_cpu_anyway && cpu == CpuLayers::Rust {
            (Device::Cpu, Layers::Rust(Box::new(CpuResNet::load(&spec, &weights).map_err(|e| model_err(&weights, e))?)))
        } else {
            torch::library_path().map_err(torch_err)?;
            let device = torch::resolve_device(choice).map_err(|e| ClassifyError::Device(e.to_string()))?;
            let net = ResNet::load(&spec.shape_json(), &weights, device).map_err(|e| model_err(&weights, ModelFileError::Weights(e.to_string())))?;
            (device, Layers::LibTorch(net))
        };
        Ok(Self { spec, device, words, layers })
    }

    /// Whose layers run it: "LibTorch" or "goce-warc".
    pub fn layers(&self) -> &'static str {
        match self.layers {
            Layers::Rust(_) => "goce-warc",
            Layers::LibTorch(_) => "LibTorch",
        }
    }

    /// One forward pass over the inputs, predictions in input order.
    pub fn predict(&self, inputs: &[NetInput<'_>]) -> Result<Vec<Prediction>, ClassifyError> {
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let side = usize::try_from(self.spec.input_size).unwrap_or(224);
        let pictures: Vec<Option<&Picture>> = inputs.iter().map(|i| i.picture).collect();
        let rows: Vec<Vec<f32>> = inputs.iter().map(|i| fused_row(i.features, self.words.as_ref())).collect();
        let (rgb, features) = (picture_bytes(&pictures, side), standardised_rows(&rows, &self.spec));
        let probs = match &self.layers {
            Layers::Rust(net) => net.probabilities(&rgb, &features, inputs.len()).ok_or(ClassifyError::Net("inputs that do not fit its shape"))?,
            Layers::LibTorch(net) => net.probabilities(&rgb, &features, inputs.len(), PAGE_TYPE_COUNT).map_err(torch_err)?,
        };
        Ok(probs
            .chunks_exact(PAGE_TYPE_COUNT)
            .map(|row| {
                let mut p = [0.0f32; PAGE_TYPE_COUNT];
                p.copy_from_slice(row);
                Prediction::with_threshold(p, self.spec.list_view_threshold)
            })
            .collect())
    }
}

fn torch_err(e: TorchError) -> ClassifyError {
    ClassifyError::Torch(e.to_string())
}

/// Reads `models/genre-words.json`.
pub fn load_word_model(path: &Path) -> Result<WordModel, ClassifyError> {
    let err = |source| ClassifyError::Model { path: path.to_path_buf(), source };
    let mut model: WordModel = ModelFileError::read(path).and_then(|text| ModelFileError::parse(&text, "goce-warc word model")).map_err(err)?;
    if !model.is_consistent() {
        return Err(err(ModelFileError::Invalid("its shapes do not fit its vocabulary and the 7 page types".into())));
    }
    model.index();
    Ok(model)
}
