//! Web2Text's two networks (section 3.4 of its paper): 1-D convolutions along the sequence
//! of blocks (unary: block features → 2 logits per block) or of edges (pairwise: edge
//! features → 4 logits per pair). ReLU between the layers, zero padding so every layer keeps
//! the sequence length; the filters and kernel sizes are data ([`CnnShape`]).

use std::path::Path;
use std::sync::Mutex;

use tch::nn::{self, Module};
use tch::{Kind, Tensor};

use crate::TorchError;

/// What the layers need of goce-warc's Web2Text `ModelSpec`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CnnShape {
    pub filters: Vec<i64>,
    pub kernels: Vec<i64>,
    pub dropout: f64,
    pub block_features: i64,
    pub edge_features: i64,
}

impl CnnShape {
    pub fn check(&self) -> Result<(), TorchError> {
        if self.kernels.len() != self.filters.len() + 1 || self.kernels.iter().chain(&self.filters).any(|&v| v < 1) {
            return Err(TorchError::Invalid("kernels must be one more than filters, all positive".into()));
        }
        if self.block_features < 1 || self.edge_features < 1 {
            return Err(TorchError::Invalid("no block or edge features".into()));
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
    pub fn new(p: nn::Path<'_>, inputs: i64, outputs: i64, shape: &CnnShape) -> Self {
        let mut widths = vec![inputs];
        widths.extend(&shape.filters);
        widths.push(outputs);
        let layers = shape
            .kernels
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                let config = nn::ConvConfig { padding: k / 2, ..Default::default() };
                nn::conv1d(&p / format!("conv{i}"), widths[i], widths[i + 1], k, config)
            })
            .collect();
        Self { layers, dropout: shape.dropout }
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
    pub fn new(vs: &nn::VarStore, shape: &CnnShape) -> Self {
        let root = vs.root();
        Self {
            unary: SequenceCnn::new(&root / "unary", shape.block_features, 2, shape),
            pairwise: SequenceCnn::new(&root / "pairwise", shape.edge_features, 4, shape),
        }
    }
}

/// Standardised values, feature by feature (`features` runs of `length`) → [1, features, length].
pub fn sequence_tensor(values: &[f32], features: usize, length: usize) -> Tensor {
    Tensor::from_slice(values).reshape([1, features as i64, length as i64])
}

/// Logits [1, K, n] → softmax rows of K.
pub fn probabilities<const K: usize>(logits: &Tensor) -> Result<Vec<[f32; K]>, TorchError> {
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

/// The trained networks, loaded for inference (on the CPU).
pub struct Web2TextNets {
    pub shape: CnnShape,
    nets: Mutex<(nn::VarStore, Nets)>,
}

impl Web2TextNets {
    pub fn load(shape: CnnShape, weights: &Path) -> Result<Self, TorchError> {
        shape.check()?;
        let mut vs = nn::VarStore::new(tch::Device::Cpu);
        let nets = Nets::new(&vs, &shape);
        vs.load(weights)?;
        Ok(Self { shape, nets: Mutex::new((vs, nets)) })
    }

    /// Per block [boilerplate, content] and per pair of neighbouring blocks [00, 01, 10,
    /// 11], flattened: `blocks` and `edges` as [`sequence_tensor`] reads them.
    pub fn potentials(&self, blocks: &[f32], n_blocks: usize, edges: &[f32], n_edges: usize) -> Result<(Vec<f32>, Vec<f32>), TorchError> {
        let (bf, ef) = (usize::try_from(self.shape.block_features).unwrap_or(0), usize::try_from(self.shape.edge_features).unwrap_or(0));
        if blocks.len() != n_blocks * bf || edges.len() != n_edges * ef {
            return Err(TorchError::Invalid(format!("{n_blocks} blocks, {n_edges} edges: {} and {} values", blocks.len(), edges.len())));
        }
        if n_blocks == 0 {
            return Ok((Vec::new(), Vec::new()));
        }
        let xs = sequence_tensor(blocks, bf, n_blocks);
        let es = (n_edges > 0).then(|| sequence_tensor(edges, ef, n_edges));
        let guard = self.nets.lock().map_err(|_| TorchError::Net("their lock was poisoned"))?;
        let nets = &guard.1;
        tch::no_grad(|| -> Result<_, TorchError> {
            let unary = probabilities::<2>(&nets.unary.forward_t(&xs, false))?.concat();
            let pairwise = match &es {
                Some(es) => probabilities::<4>(&nets.pairwise.forward_t(es, false))?.concat(),
                None => Vec::new(),
            };
            Ok((unary, pairwise))
        })
    }
}
