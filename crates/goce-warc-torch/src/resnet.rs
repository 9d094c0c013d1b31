//! The genre ResNet's layers: basic residual blocks over the wireframe picture, global
//! average pooling, and a head of two linear parts whose logits add up: one over the
//! pooled picture features, one over the page's standardised features (goce-warc's
//! `classify::resnet` says why). The shape is data ([`ResNetShape`]), so training and
//! inference build the same network.

use std::path::Path;
use std::sync::Mutex;

use tch::nn::{self, ModuleT};
use tch::{Device, Kind, Tensor};

use crate::TorchError;

/// What the layers need of goce-warc's `NetSpec`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ResNetShape {
    /// Channels of each stage (each stage after the first halves the resolution).
    pub widths: Vec<i64>,
    /// Basic blocks per stage.
    pub blocks: Vec<i64>,
    /// The picture's side in pixels.
    pub input_size: i64,
    /// Fused page features (0: the picture alone).
    pub features: i64,
    /// Output classes.
    pub classes: i64,
    pub dropout: f64,
}

impl ResNetShape {
    pub fn check(&self) -> Result<(), TorchError> {
        let positive = self.widths.iter().chain(&self.blocks).all(|&v| v >= 1);
        if self.widths.is_empty() || self.widths.len() != self.blocks.len() || !positive {
            return Err(TorchError::Invalid("widths and blocks must be positive and of equal length".into()));
        }
        if !(32..=1024).contains(&self.input_size) || self.features < 0 || self.classes < 1 {
            return Err(TorchError::Invalid(format!("input size {}, {} features, {} classes", self.input_size, self.features, self.classes)));
        }
        Ok(())
    }
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
    pub fn new(p: &nn::Path<'_>, shape: &ResNetShape) -> Self {
        let stem_width = shape.widths[0];
        let mut trunk = nn::seq_t()
            .add(conv(p / "stem" / "conv", 3, stem_width, 7, 2))
            .add(nn::batch_norm2d(p / "stem" / "bn", stem_width, Default::default()))
            .add_fn(|xs| xs.relu().max_pool2d([3, 3], [2, 2], [1, 1], [1, 1], false));
        let mut c_in = stem_width;
        for (stage, (&width, &blocks)) in shape.widths.iter().zip(&shape.blocks).enumerate() {
            for block in 0..blocks {
                let stride = if stage > 0 && block == 0 { 2 } else { 1 };
                trunk = trunk.add(basic_block(p / format!("stage{stage}") / format!("block{block}"), c_in, width, stride));
                c_in = width;
            }
        }
        let zero = nn::LinearConfig { ws_init: nn::Init::Const(0.0), bs_init: Some(nn::Init::Const(0.0)), bias: true };
        let picture_head = nn::linear(p / "picture_head", c_in, shape.classes, zero);
        let feature_head = (shape.features > 0).then(|| nn::linear(p / "feature_head", shape.features, shape.classes, zero));
        Self { trunk, picture_head, feature_head, dropout: shape.dropout }
    }

    /// Sets the feature part to a trained linear model (rows: bias then weights, per
    /// class, over standardised features) and freezes it.
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

/// `n` pictures of `size`×`size` RGB bytes, row by row → a float tensor [N, 3, S, S] with
/// ink positive (white paper is 0), on `device`.
pub fn pictures_tensor(rgb: &[u8], n: usize, size: i64, device: Device) -> Tensor {
    let images = Tensor::from_slice(rgb).to_device(device).view([n as i64, size, size, 3]).permute([0, 3, 1, 2]);
    images.to_kind(Kind::Float).divide_scalar(-255.0) + 1.0
}

/// `n` rows of `features` standardised values → [N, F] (F may be 0), on `device`.
pub fn features_tensor(values: &[f32], n: usize, features: i64, device: Device) -> Tensor {
    if features == 0 {
        return Tensor::zeros([n as i64, 0], (Kind::Float, device));
    }
    Tensor::from_slice(values).view([n as i64, features]).to_device(device)
}

/// The trained network, loaded for inference.
pub struct ResNet {
    pub shape: ResNetShape,
    pub device: Device,
    // LibTorch modules are used from one thread at a time.
    net: Mutex<(nn::VarStore, Net)>,
}

impl ResNet {
    pub fn load(shape: ResNetShape, weights: &Path, device: Device) -> Result<Self, TorchError> {
        shape.check()?;
        let mut vs = nn::VarStore::new(device);
        let net = Net::new(&vs.root(), &shape);
        vs.load(weights)?;
        if device.is_cuda() {
            vs.half();
        }
        Ok(Self { shape, device, net: Mutex::new((vs, net)) })
    }

    /// The classes' probabilities of `n` pages, row by row: `rgb` as [`pictures_tensor`]
    /// reads it, `features` `n` standardised rows.
    pub fn probabilities(&self, rgb: &[u8], features: &[f32], n: usize) -> Result<Vec<f32>, TorchError> {
        let side = usize::try_from(self.shape.input_size).unwrap_or(0);
        let columns = usize::try_from(self.shape.features).unwrap_or(0);
        if rgb.len() != n * side * side * 3 || features.len() != n * columns {
            return Err(TorchError::Invalid(format!("{n} pages: {} picture bytes and {} feature values", rgb.len(), features.len())));
        }
        if n == 0 {
            return Ok(Vec::new());
        }
        let guard = self.net.lock().map_err(|_| TorchError::Net("its lock was poisoned"))?;
        let (_, net) = &*guard;
        let probs = tch::no_grad(|| -> Result<Vec<f32>, tch::TchError> {
            let mut images = pictures_tensor(rgb, n, self.shape.input_size, self.device);
            let mut feats = features_tensor(features, n, self.shape.features, self.device);
            if self.device.is_cuda() {
                images = images.to_kind(Kind::Half);
                feats = feats.to_kind(Kind::Half);
            }
            let probs = net.forward(&images, &feats, false).to_kind(Kind::Float).softmax(-1, Kind::Float).to_device(Device::Cpu);
            Vec::<f32>::try_from(probs.flatten(0, -1))
        })?;
        Ok(probs)
    }
}
