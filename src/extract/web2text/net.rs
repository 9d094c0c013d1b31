//! The two networks of the paper's section 3.4: 1-D convolutions along the sequence of
//! blocks (unary: block features → 2 logits per block) or of edges (pairwise: edge
//! features → 4 logits per pair). Five layers, ReLU between them, zero padding so every
//! layer keeps the sequence length; filters 50, 50, 50, 10 and the output, kernel sizes 1,
//! 1, 3, 3, 3 (the reference implementation's shape). The layers are LibTorch's, in
//! `crates/goce-warc-torch`; this module holds their spec and prepares their inputs.

use std::path::Path;

use crate::torch::{TorchError, Web2TextNets};

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

    /// What the layers need of it (`goce_warc_torch::web2text::CnnShape`), as JSON.
    pub fn shape_json(&self) -> String {
        serde_json::json!({
            "filters": self.filters,
            "kernels": self.kernels,
            "dropout": self.dropout,
            "block_features": BLOCK_FEATURES,
            "edge_features": EDGE_FEATURES,
        })
        .to_string()
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

/// Rows of features → their standardised values, feature by feature (the layout
/// `goce_warc_torch::web2text::sequence_tensor` reads as [1, features, rows]).
pub fn feature_major<const N: usize>(rows: &[[f32; N]], mean: &[f32], std: &[f32]) -> Vec<f32> {
    let mut data = vec![0f32; N * rows.len()];
    for (j, row) in rows.iter().enumerate() {
        for i in 0..N {
            data[i * rows.len() + j] = standardise(row[i], mean[i], std[i]);
        }
    }
    data
}

pub fn standardise(value: f32, mean: f32, std: f32) -> f32 {
    (value - mean) / std.max(1e-6)
}

/// The shipped model, loaded for inference (LibTorch opened through [`crate::torch`]).
pub struct Web2TextModel {
    pub spec: ModelSpec,
    nets: Web2TextNets,
}

impl Web2TextModel {
    pub fn load(models: &Path) -> Result<Self, Web2TextError> {
        let spec_path = models.join(MODEL_SPEC);
        let err = |path: &Path, source| Web2TextError::Model { path: path.to_path_buf(), source };
        let spec: ModelSpec =
            ModelFileError::read(&spec_path).and_then(|text| ModelFileError::parse(&text, "Web2Text spec")).map_err(|e| err(&spec_path, e))?;
        spec.check().map_err(|e| err(&spec_path, ModelFileError::Invalid(e)))?;
        let weights_path = models.join(MODEL_WEIGHTS);
        let nets = Web2TextNets::load(&spec.shape_json(), &weights_path, BLOCK_FEATURES, EDGE_FEATURES).map_err(|e| match e {
            TorchError::Call(message) => err(&weights_path, ModelFileError::Weights(message)),
            other => Web2TextError::Torch(other.to_string()),
        })?;
        Ok(Self { spec, nets })
    }

    /// The networks' probabilities: per block [boilerplate, content], per pair of
    /// neighbouring blocks [00, 01, 10, 11].
    pub fn potentials(&self, blocks: &[[f32; BLOCK_FEATURES]], edges: &[[f32; EDGE_FEATURES]]) -> Result<Potentials, Web2TextError> {
        if blocks.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let s = &self.spec;
        let xs = feature_major(blocks, &s.block_mean, &s.block_std);
        let es = feature_major(edges, &s.edge_mean, &s.edge_std);
        let (unary, pairwise) = self.nets.potentials(&xs, blocks.len(), &es, edges.len()).map_err(|e| Web2TextError::Torch(e.to_string()))?;
        Ok((rows_of::<2>(&unary), rows_of::<4>(&pairwise)))
    }
}

fn rows_of<const K: usize>(flat: &[f32]) -> Vec<[f32; K]> {
    flat.chunks_exact(K)
        .map(|c| {
            let mut row = [0.0; K];
            row.copy_from_slice(c);
            row
        })
        .collect()
}
