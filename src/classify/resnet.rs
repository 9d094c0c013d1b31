//! The genre ResNet: basic residual blocks over the 224×224 wireframe picture, global
//! average pooling, and a head of two linear parts whose logits add up: one over the
//! pooled picture features, one over the page's standardised features. Training starts
//! the feature part from the features-only linear model and keeps it fixed, and the
//! picture part at zero, so the network begins as that model and the picture can only
//! correct it (boosting; validation loss picks the epoch). Depth and width are data ([`NetSpec`]),
//! stored beside the weights, so training and inference build the same network.

use std::path::Path;
use std::sync::Mutex;

use tch::nn::{self, ModuleT};
use tch::{Device, Kind, Tensor};

use super::features::Features;
use super::words::WordModel;
use super::{ClassifyError, PAGE_TYPE_COUNT, PAGE_TYPES, Prediction, RESNET_SPEC, RESNET_WEIGHTS, WORD_MODEL};
use crate::models::ModelFileError;
use crate::render::Picture;

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

/// The network's layers.
pub struct Net {
    trunk: nn::SequentialT,
    picture_head: nn::Linear,
    pub feature_head: Option<nn::Linear>,
    dropout: f64,
}

fn conv(p: nn::Path<'_>, c_in: i64, c_out: i64, kernel: i64, stride: i64) -> nn::Conv2D {
    let config = nn::ConvConfig { stride, padding: kernel / 2, bias: false, ..Default::default() };
    nn::conv2d(p, c_in, c_out, kernel, config)
}

fn basic_block(p: nn::Path<'_>, c_in: i64, c_out: i64, stride: i64) -> impl ModuleT + use<> {
    let conv1 = conv(&p / "conv1", c_in, c_out, 3, stride);
    let bn1 = nn::batch_norm2d(&p / "bn1", c_out, Default::default());
    let conv2 = conv(&p / "conv2", c_out, c_out, 3, 1);
    let bn2 = nn::batch_norm2d(&p / "bn2", c_out, Default::default());
    let shortcut = (stride != 1 || c_in != c_out).then(|| {
        nn::seq_t().add(conv(&p / "shortcut" / "conv", c_in, c_out, 1, stride)).add(nn::batch_norm2d(&p / "shortcut" / "bn", c_out, Default::default()))
    });
    nn::func_t(move |xs, train| {
        let ys = xs.apply(&conv1).apply_t(&bn1, train).relu().apply(&conv2).apply_t(&bn2, train);
        let identity = match &shortcut {
            Some(s) => xs.apply_t(s, train),
            None => xs.shallow_clone(),
        };
        (identity + ys).relu()
    })
}

impl Net {
    pub fn new(p: &nn::Path<'_>, spec: &NetSpec) -> Self {
        let stem_width = spec.widths[0];
        let mut trunk = nn::seq_t()
            .add(conv(p / "stem" / "conv", 3, stem_width, 7, 2))
            .add(nn::batch_norm2d(p / "stem" / "bn", stem_width, Default::default()))
            .add_fn(|xs| xs.relu().max_pool2d([3, 3], [2, 2], [1, 1], [1, 1], false));
        let mut c_in = stem_width;
        for (stage, (&width, &blocks)) in spec.widths.iter().zip(&spec.blocks).enumerate() {
            for block in 0..blocks {
                let stride = if stage > 0 && block == 0 { 2 } else { 1 };
                trunk = trunk.add(basic_block(p / format!("stage{stage}") / format!("block{block}"), c_in, width, stride));
                c_in = width;
            }
        }
        let zero = nn::LinearConfig { ws_init: nn::Init::Const(0.0), bs_init: Some(nn::Init::Const(0.0)), bias: true };
        let picture_head = nn::linear(p / "picture_head", c_in, PAGE_TYPE_COUNT as i64, zero);
        let features = spec.feature_names.len() as i64;
        let feature_head = (features > 0).then(|| nn::linear(p / "feature_head", features, PAGE_TYPE_COUNT as i64, zero));
        Self { trunk, picture_head, feature_head, dropout: spec.dropout }
    }

    /// Sets the feature part to a trained linear model (rows: bias then weights, per
    /// page type, over standardised features) and freezes it.
    pub fn start_from_linear(&mut self, weights: &[Vec<f32>]) {
        let Some(head) = &mut self.feature_head else { return };
        let rows = weights.len() as i64;
        let bias: Vec<f32> = weights.iter().map(|w| w[0]).collect();
        let ws: Vec<f32> = weights.iter().flat_map(|w| w[1..].iter().copied()).collect();
        tch::no_grad(|| {
            head.ws.copy_(&Tensor::from_slice(&ws).view([rows, -1]).to_device(head.ws.device()));
            if let Some(bs) = &mut head.bs {
                bs.copy_(&Tensor::from_slice(&bias).to_device(bs.device()));
            }
        });
        let _ = head.ws.set_requires_grad(false);
        if let Some(bs) = &mut head.bs {
            let _ = bs.set_requires_grad(false);
        }
    }

    /// Logits for a batch: `images` [N, 3, S, S] as from [`pictures_tensor`], `features`
    /// [N, F] standardised (or [N, 0]).
    pub fn forward(&self, images: &Tensor, features: &Tensor, train: bool) -> Tensor {
        let pooled = images.apply_t(&self.trunk, train).adaptive_avg_pool2d([1, 1]).flatten(1, -1);
        let logits = pooled.dropout(self.dropout, train).apply(&self.picture_head);
        match &self.feature_head {
            Some(head) if features.size().get(1).copied().unwrap_or(0) > 0 => logits + features.to_kind(images.kind()).apply(head),
            _ => logits,
        }
    }
}

/// Pictures → a float tensor [N, 3, S, S] with ink positive (white paper is 0), on `device`.
pub fn pictures_tensor(pictures: &[Option<&Picture>], size: i64, device: Device) -> Tensor {
    let side = usize::try_from(size).unwrap_or(224);
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
    let n = pictures.len() as i64;
    let images = Tensor::from_slice(&bytes).to_device(device).view([n, size, size, 3]).permute([0, 3, 1, 2]);
    images.to_kind(Kind::Float).divide_scalar(-255.0) + 1.0
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

/// Standardised fused rows [N, F] (F = 0 when the net does not fuse them).
pub fn fused_tensor(rows: &[Vec<f32>], spec: &NetSpec, device: Device) -> Tensor {
    let n = rows.len() as i64;
    if !spec.fuses_features() {
        return Tensor::zeros([n, 0], (Kind::Float, device));
    }
    let values: Vec<f32> = rows.iter().flat_map(|row| row.iter().zip(&spec.feature_mean).zip(&spec.feature_std).map(|((v, m), s)| (v - m) / s)).collect();
    Tensor::from_slice(&values).view([n, spec.feature_names.len() as i64]).to_device(device)
}

/// The shipped model, loaded for inference.
pub struct GenreNet {
    pub spec: NetSpec,
    pub device: Device,
    /// Present when the spec fuses word scores.
    pub words: Option<WordModel>,
    // LibTorch modules are used from one thread at a time.
    net: Mutex<(nn::VarStore, Net)>,
}

impl GenreNet {
    pub fn load(models: &Path, device: Device) -> Result<Self, ClassifyError> {
        let spec_path = models.join(RESNET_SPEC);
        let weights_path = models.join(RESNET_WEIGHTS);
        let model_err = |path: &Path, source| ClassifyError::Model { path: path.to_path_buf(), source };
        let spec: NetSpec =
            ModelFileError::read(&spec_path).and_then(|text| ModelFileError::parse(&text, "goce-warc network spec")).map_err(|e| model_err(&spec_path, e))?;
        spec.check().map_err(|e| model_err(&spec_path, ModelFileError::Invalid(e)))?;
        if !weights_path.is_file() {
            return Err(model_err(&weights_path, ModelFileError::Invalid("missing".into())));
        }
        let mut vs = nn::VarStore::new(device);
        let net = Net::new(&vs.root(), &spec);
        vs.load(&weights_path).map_err(|e| model_err(&weights_path, ModelFileError::Weights(e)))?;
        if device.is_cuda() {
            vs.half();
        }
        let words = if spec.fuses_words { Some(load_word_model(&models.join(WORD_MODEL))?) } else { None };
        Ok(Self { spec, device, words, net: Mutex::new((vs, net)) })
    }

    /// One forward pass over the inputs, predictions in input order.
    pub fn predict(&self, inputs: &[NetInput<'_>]) -> Result<Vec<Prediction>, ClassifyError> {
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let guard = self.net.lock().map_err(|_| ClassifyError::Net("its lock was poisoned"))?;
        let (_, net) = &*guard;
        let pictures: Vec<Option<&Picture>> = inputs.iter().map(|i| i.picture).collect();
        let rows: Vec<Vec<f32>> = inputs.iter().map(|i| fused_row(i.features, self.words.as_ref())).collect();
        let probs = tch::no_grad(|| -> Result<Vec<f32>, tch::TchError> {
            let mut images = pictures_tensor(&pictures, self.spec.input_size, self.device);
            let mut feats = fused_tensor(&rows, &self.spec, self.device);
            if self.device.is_cuda() {
                images = images.to_kind(Kind::Half);
                feats = feats.to_kind(Kind::Half);
            }
            let probs = net.forward(&images, &feats, false).to_kind(Kind::Float).softmax(-1, Kind::Float).to_device(Device::Cpu);
            Vec::<f32>::try_from(probs.flatten(0, -1))
        })?;
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
