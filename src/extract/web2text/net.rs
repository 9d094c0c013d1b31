//! The two networks of the paper's section 3.4, in LibTorch through `tch`: 1-D
//! convolutions along the sequence of blocks (unary: block features → 2 logits per block)
//! or of edges (pairwise: edge features → 4 logits per pair). Five layers, ReLU between
//! them, zero padding so every layer keeps the sequence length; filters 50, 50, 50, 10
//! and the output, kernel sizes 1, 1, 3, 3, 3 (the reference implementation's shape).

use std::path::Path;
use std::sync::Mutex;

use tch::nn::{self, Module};
use tch::{Device, Kind, Tensor};

use super::features::{BLOCK_FEATURES, EDGE_FEATURES};
use super::{MODEL_SPEC, MODEL_WEIGHTS, Web2TextError};
use crate::models::ModelFileError;

/// Per block [boilerplate, content], per pair of neighbouring blocks [00, 01, 10, 11].
pub type Potentials = (Vec<[f32; 2]>, Vec<[f32; 4]>);

/// The model's shape and input contract, saved as `models/web2text.json`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ModelSpec {
    pub filters: Vec<i64>,
    pub kernels: Vec<i64>,
    pub dropout: f64,
    /// The interpolation factor λ of equation 3.
    pub lambda: f32,
    /// Feature names and the training set's statistics (values are clipped when
    /// computed, then standardised with these).
    pub block_features: Vec<String>,
    pub block_mean: Vec<f32>,
    pub block_std: Vec<f32>,
    pub edge_features: Vec<String>,
    pub edge_mean: Vec<f32>,
    pub edge_std: Vec<f32>,
    /// What the model was trained on (for the card).
    pub trained_on: String,
}

impl ModelSpec {
    pub fn paper_shape(lambda: f32) -> Self {
        Self {
            filters: vec![50, 50, 50, 10],
            kernels: vec![1, 1, 3, 3, 3],
            dropout: 0.2,
            lambda,
            block_features: super::features::block_feature_names(),
            block_mean: vec![0.0; BLOCK_FEATURES],
            block_std: vec![1.0; BLOCK_FEATURES],
            edge_features: super::features::edge_feature_names(),
            edge_mean: vec![0.0; EDGE_FEATURES],
            edge_std: vec![1.0; EDGE_FEATURES],
            trained_on: String::new(),
        }
    }

    fn check(&self) -> Result<(), String> {
        if self.kernels.len() != self.filters.len() + 1 || self.kernels.iter().chain(&self.filters).any(|&v| v < 1) {
            return Err("kernels must be one more than filters, all positive".into());
        }
        if self.block_features != super::features::block_feature_names() || self.block_mean.len() != BLOCK_FEATURES || self.block_std.len() != BLOCK_FEATURES {
            return Err(format!("block features differ from the {BLOCK_FEATURES} this goce-warc computes"));
        }
        if self.edge_features != super::features::edge_feature_names() || self.edge_mean.len() != EDGE_FEATURES || self.edge_std.len() != EDGE_FEATURES {
            return Err(format!("edge features differ from the {EDGE_FEATURES} this goce-warc computes"));
        }
        Ok(())
    }
}

/// One of the two CNNs.
pub struct SequenceCnn {
    layers: Vec<nn::Conv1D>,
    dropout: f64,
}

impl SequenceCnn {
    pub fn new(p: nn::Path<'_>, inputs: i64, outputs: i64, spec: &ModelSpec) -> Self {
        let mut widths = vec![inputs];
        widths.extend(&spec.filters);
        widths.push(outputs);
        let layers = spec
            .kernels
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                let config = nn::ConvConfig { padding: k / 2, ..Default::default() };
                nn::conv1d(&p / format!("conv{i}"), widths[i], widths[i + 1], k, config)
            })
            .collect();
        Self { layers, dropout: spec.dropout }
    }

    /// `xs`: [batch, features, length] → logits [batch, outputs, length].
    pub fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        let last = self.layers.len() - 1;
        let mut ys = xs.shallow_clone();
        for (i, layer) in self.layers.iter().enumerate() {
            ys = layer.forward(&ys);
            if i < last {
                ys = ys.relu().dropout(self.dropout, train);
            }
        }
        ys
    }
}

/// Both networks under one variable store (`unary/…`, `pairwise/…`).
pub struct Nets {
    pub unary: SequenceCnn,
    pub pairwise: SequenceCnn,
}

impl Nets {
    pub fn new(vs: &nn::VarStore, spec: &ModelSpec) -> Self {
        let root = vs.root();
        Self {
            unary: SequenceCnn::new(&root / "unary", BLOCK_FEATURES as i64, 2, spec),
            pairwise: SequenceCnn::new(&root / "pairwise", EDGE_FEATURES as i64, 4, spec),
        }
    }
}

/// Rows of features → a standardised [1, features, rows] tensor.
pub fn sequence_tensor<const N: usize>(rows: &[[f32; N]], mean: &[f32], std: &[f32]) -> Tensor {
    let mut data = vec![0f32; N * rows.len()];
    for (j, row) in rows.iter().enumerate() {
        for i in 0..N {
            data[i * rows.len() + j] = standardise(row[i], mean[i], std[i]);
        }
    }
    Tensor::from_slice(&data).reshape([1, N as i64, rows.len() as i64])
}

pub fn standardise(value: f32, mean: f32, std: f32) -> f32 {
    (value - mean) / std.max(1e-6)
}

/// The shipped model, loaded for inference.
pub struct Web2TextModel {
    pub spec: ModelSpec,
    nets: Mutex<(nn::VarStore, Nets)>,
}

impl Web2TextModel {
    pub fn load(models: &Path) -> Result<Self, Web2TextError> {
        let spec_path = models.join(MODEL_SPEC);
        let err = |path: &Path, source| Web2TextError::Model { path: path.to_path_buf(), source };
        let spec: ModelSpec =
            ModelFileError::read(&spec_path).and_then(|text| ModelFileError::parse(&text, "Web2Text spec")).map_err(|e| err(&spec_path, e))?;
        spec.check().map_err(|e| err(&spec_path, ModelFileError::Invalid(e)))?;
        let weights_path = models.join(MODEL_WEIGHTS);
        let mut vs = nn::VarStore::new(Device::Cpu);
        let nets = Nets::new(&vs, &spec);
        vs.load(&weights_path).map_err(|e| err(&weights_path, ModelFileError::Weights(e)))?;
        Ok(Self { spec, nets: Mutex::new((vs, nets)) })
    }

    pub fn from_parts(spec: ModelSpec, vs: nn::VarStore, nets: Nets) -> Self {
        Self { spec, nets: Mutex::new((vs, nets)) }
    }

    /// The networks' probabilities: per block [boilerplate, content], per pair of
    /// neighbouring blocks [00, 01, 10, 11].
    pub fn potentials(&self, blocks: &[[f32; BLOCK_FEATURES]], edges: &[[f32; EDGE_FEATURES]]) -> Result<Potentials, Web2TextError> {
        if blocks.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let s = &self.spec;
        let xs = sequence_tensor(blocks, &s.block_mean, &s.block_std);
        let es = (!edges.is_empty()).then(|| sequence_tensor(edges, &s.edge_mean, &s.edge_std));
        let guard = self.nets.lock().map_err(|_| Web2TextError::Net("their lock was poisoned"))?;
        let nets = &guard.1;
        tch::no_grad(|| -> Result<_, Web2TextError> {
            let unary = probabilities::<2>(&nets.unary.forward_t(&xs, false))?;
            let pairwise = match &es {
                Some(es) => probabilities::<4>(&nets.pairwise.forward_t(es, false))?,
                None => Vec::new(),
            };
            Ok((unary, pairwise))
        })
    }
}

/// Logits [1, K, n] → softmax rows of K.
pub fn probabilities<const K: usize>(logits: &Tensor) -> Result<Vec<[f32; K]>, Web2TextError> {
    let probs = logits.softmax(1, Kind::Float).squeeze_dim(0).transpose(0, 1).contiguous();
    let flat: Vec<f32> = Vec::<f32>::try_from(probs.flatten(0, -1))?;
    Ok(flat
        .chunks_exact(K)
        .map(|c| {
            let mut row = [0.0; K];
            row.copy_from_slice(c);
            row
        })
        .collect())
}
