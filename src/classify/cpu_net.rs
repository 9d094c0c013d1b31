//! The genre ResNet's forward pass on the CPU without LibTorch: the layers of
//! `crates/goce-warc-torch`'s `resnet.rs` (a strided 7×7 stem, max pooling, basic residual
//! blocks, global average pooling, two linear heads whose logits add up), read from the same
//! weights file. Each batch norm is folded into the convolution before it, and each
//! convolution is one matrix product over the unrolled input (ndarray's, by matrixmultiply). Opening
//! LibTorch costs a process about 0.3 CPU s and 125 MB of memory, more than the forward
//! passes of the few pages the cascade's gate is unsure of (docs/performance.md).

use std::path::Path;

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2};
use safetensors::SafeTensors;

use super::linear::softmax;
use super::resnet::NetSpec;
use crate::models::ModelFileError;

/// LibTorch's default for `batch_norm2d`, which the network was trained with.
const BATCH_NORM_EPS: f32 = 1e-5;

/// A convolution (no bias of its own) with the batch norm after it folded in.
struct Conv {
    outputs: usize,
    inputs: usize,
    kernel: usize,
    stride: usize,
    /// `outputs` rows of `inputs × kernel × kernel` weights, each scaled by its batch norm.
    weights: Vec<f32>,
    /// The batch norm's shift for each output channel.
    bias: Vec<f32>,
}

/// A basic residual block: two 3×3 convolutions, and a strided 1×1 one on the shortcut
/// where the block changes the resolution or the width.
struct Block {
    conv1: Conv,
    conv2: Conv,
    shortcut: Option<Conv>,
}

struct Linear {
    inputs: usize,
    /// `outputs` rows of `inputs` weights.
    weights: Vec<f32>,
    bias: Vec<f32>,
}

/// Channels × height × width values, channel after channel, row after row.
struct Maps {
    channels: usize,
    height: usize,
    width: usize,
    values: Vec<f32>,
}

/// The network's weights, ready for forward passes on the CPU.
pub struct CpuResNet {
    side: usize,
    stem: Conv,
    blocks: Vec<Block>,
    picture_head: Linear,
    feature_head: Option<Linear>,
    classes: usize,
}

/// Reads the weights by the names `crates/goce-warc-torch` gives them.
struct Weights<'a> {
    file: SafeTensors<'a>,
}

impl Weights<'_> {
    fn tensor(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, ModelFileError> {
        let view = self.file.tensor(name).map_err(|e| ModelFileError::Weights(format!("{name}: {e}")))?;
        if view.dtype() != safetensors::Dtype::F32 || view.shape() != shape {
            return Err(ModelFileError::Invalid(format!("{name} is {:?} {:?}, expected F32 {shape:?}", view.dtype(), view.shape())));
        }
        Ok(view.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
    }

    /// The convolution `name`.conv... with the batch norm `bn` folded in.
    fn conv(&self, conv: &str, bn: &str, (inputs, outputs): (usize, usize), kernel: usize, stride: usize) -> Result<Conv, ModelFileError> {
        let mut weights = self.tensor(&format!("{conv}.weight"), &[outputs, inputs, kernel, kernel])?;
        let [gamma, beta, mean, var] = ["weight", "bias", "running_mean", "running_var"].map(|part| self.tensor(&format!("{bn}.{part}"), &[outputs]));
        let (gamma, beta, mean, var) = (gamma?, beta?, mean?, var?);
        let per_output = inputs * kernel * kernel;
        let mut bias = Vec::with_capacity(outputs);
        for (o, row) in weights.chunks_exact_mut(per_output).enumerate() {
            let scale = gamma[o] / (var[o] + BATCH_NORM_EPS).sqrt();
            row.iter_mut().for_each(|w| *w *= scale);
            bias.push(beta[o] - mean[o] * scale);
        }
        Ok(Conv { outputs, inputs, kernel, stride, weights, bias })
    }

    fn linear(&self, name: &str, inputs: usize, outputs: usize) -> Result<Linear, ModelFileError> {
        Ok(Linear { inputs, weights: self.tensor(&format!("{name}.weight"), &[outputs, inputs])?, bias: self.tensor(&format!("{name}.bias"), &[outputs])? })
    }
}

impl CpuResNet {
    /// The network `spec` describes, its weights from `weights` (safetensors).
    pub fn load(spec: &NetSpec, weights: &Path) -> Result<Self, ModelFileError> {
        let bytes = std::fs::read(weights).map_err(ModelFileError::Read)?;
        let file = SafeTensors::deserialize(&bytes).map_err(|e| ModelFileError::Weights(e.to_string()))?;
        let weights = Weights { file };
        let size = |v: i64| usize::try_from(v).map_err(|_| ModelFileError::Invalid(format!("{v} in the network's shape")));
        let widths = spec.widths.iter().map(|&w| size(w)).collect::<Result<Vec<_>, _>>()?;
        let stem_width = *widths.first().ok_or_else(|| ModelFileError::Invalid("no stages".into()))?;
        let stem = weights.conv("stem.conv", "stem.bn", (3, stem_width), 7, 2)?;
        let mut blocks = Vec::new();
        let mut inputs = stem_width;
        for (stage, (&width, &count)) in widths.iter().zip(&spec.blocks).enumerate() {
            for block in 0..count {
                let stride = if stage > 0 && block == 0 { 2 } else { 1 };
                let name = format!("stage{stage}.block{block}");
                let shortcut = if stride != 1 || inputs != width {
                    Some(weights.conv(&format!("{name}.shortcut.conv"), &format!("{name}.shortcut.bn"), (inputs, width), 1, stride)?)
                } else {
                    None
                };
                let conv1 = weights.conv(&format!("{name}.conv1"), &format!("{name}.bn1"), (inputs, width), 3, stride)?;
                let conv2 = weights.conv(&format!("{name}.conv2"), &format!("{name}.bn2"), (width, width), 3, 1)?;
                blocks.push(Block { conv1, conv2, shortcut });
                inputs = width;
            }
        }
        let classes = spec.classes.len();
        let picture_head = weights.linear("picture_head", inputs, classes)?;
        let features = spec.feature_names.len();
        let feature_head = if features > 0 { Some(weights.linear("feature_head", features, classes)?) } else { None };
        Ok(Self { side: size(spec.input_size)?, stem, blocks, picture_head, feature_head, classes })
    }

    /// The classes' probabilities of `n` pages, row by row: `rgb` `n` pictures of
    /// side × side RGB bytes, `features` `n` standardised rows (none when the network
    /// fuses no features). None when the lengths do not fit, or a layer does not fit the
    /// maps before it (the side in the network's spec too small for its strides).
    pub fn probabilities(&self, rgb: &[u8], features: &[f32], n: usize) -> Option<Vec<f32>> {
        let picture_bytes = self.side * self.side * 3;
        let columns = self.feature_head.as_ref().map_or(0, |head| head.inputs);
        if rgb.len() != n * picture_bytes || features.len() != n * columns {
            return None;
        }
        let mut scratch = Scratch::default();
        let mut out = Vec::with_capacity(n * self.classes);
        for page in 0..n {
            let picture = &rgb[page * picture_bytes..][..picture_bytes];
            let row = &features[page * columns..][..columns];
            out.extend(softmax(&self.logits(picture, row, &mut scratch)?));
        }
        Some(out)
    }

    /// None when a layer's input has not the shape its weights were read for.
    fn logits(&self, picture: &[u8], features: &[f32], scratch: &mut Scratch) -> Option<Vec<f32>> {
        let input = picture_maps(picture, self.side, scratch);
        let stem = relu(self.stem.apply(&input, scratch)?);
        scratch.give(input);
        let mut maps = max_pool_3x3_stride_2(&stem, scratch);
        scratch.give(stem);
        for block in &self.blocks {
            let first = relu(block.conv1.apply(&maps, scratch)?);
            let inner = block.conv2.apply(&first, scratch)?;
            scratch.give(first);
            let mut sum = match &block.shortcut {
                Some(shortcut) => {
                    let sum = shortcut.apply(&maps, scratch)?;
                    scratch.give(maps);
                    sum
                }
                None => maps,
            };
            sum.values.iter_mut().zip(&inner.values).for_each(|(s, v)| *s += v);
            scratch.give(inner);
            maps = relu(sum);
        }
        let area = (maps.height * maps.width) as f32;
        let pooled: Vec<f32> = maps.values.chunks_exact(maps.height * maps.width).map(|channel| channel.iter().sum::<f32>() / area).collect();
        let mut logits = self.picture_head.apply(&pooled);
        if let Some(head) = &self.feature_head {
            logits.iter_mut().zip(head.apply(features)).for_each(|(l, f)| *l += f);
        }
        Some(logits)
    }
}

/// Buffers reused from layer to layer and page to page: feature maps run to megabytes, which
/// fresh from the allocator are fresh pages for the kernel to clear.
#[derive(Default)]
struct Scratch {
    unrolled: Vec<f32>,
    spare: Vec<Vec<f32>>,
}

impl Scratch {
    /// A buffer of `len` values, each `value`.
    fn take(&mut self, len: usize, value: f32) -> Vec<f32> {
        let mut buffer = self.spare.pop().unwrap_or_default();
        buffer.clear();
        buffer.resize(len, value);
        buffer
    }

    fn give(&mut self, maps: Maps) {
        self.spare.push(maps.values);
    }
}

/// The picture as the network reads it: ink positive, white paper 0 (as
/// `goce_warc_torch::resnet::pictures_tensor` computes it).
fn picture_maps(rgb: &[u8], side: usize, scratch: &mut Scratch) -> Maps {
    let mut values = scratch.take(3 * side * side, 0.0);
    for (pixel, rgb) in rgb.chunks_exact(3).enumerate() {
        for (channel, &byte) in rgb.iter().enumerate() {
            values[channel * side * side + pixel] = f32::from(byte) / -255.0 + 1.0;
        }
    }
    Maps { channels: 3, height: side, width: side, values }
}

impl Conv {
    /// The convolution (zero padding of half the kernel) and its folded batch norm; None
    /// when `input` has not the channels the weights were read for (or is smaller than
    /// the kernel's reach).
    fn apply(&self, input: &Maps, scratch: &mut Scratch) -> Option<Maps> {
        let (kernel, stride, pad) = (self.kernel, self.stride, self.kernel / 2);
        if input.channels != self.inputs || input.height + 2 * pad < kernel || input.width + 2 * pad < kernel {
            return None;
        }
        let height = (input.height + 2 * pad - kernel) / stride + 1;
        let width = (input.width + 2 * pad - kernel) / stride + 1;
        let positions = height * width;
        let depth = self.inputs * kernel * kernel;
        // One row per (input channel, kernel row, kernel column), one column per output
        // position: the input value under that weight there, 0 in the padding.
        let unrolled = &mut scratch.unrolled;
        unrolled.clear();
        unrolled.resize(depth * positions, 0.0);
        let mut rows = unrolled.chunks_exact_mut(positions);
        for channel in input.values.chunks_exact(input.height * input.width) {
            for ky in 0..kernel {
                for kx in 0..kernel {
                    let Some(row) = rows.next() else { continue };
                    // The output columns whose input column `x * stride + kx - pad` is inside.
                    let first = pad.saturating_sub(kx).div_ceil(stride);
                    let end = (input.width + pad).saturating_sub(kx).div_ceil(stride).min(width);
                    for y in 0..height {
                        let Some(iy) = (y * stride + ky).checked_sub(pad).filter(|&iy| iy < input.height) else { continue };
                        let source = &channel[iy * input.width..][..input.width];
                        let target = &mut row[y * width..][..width];
                        if first >= end {
                            continue;
                        }
                        if stride == 1 {
                            target[first..end].copy_from_slice(&source[first + kx - pad..end + kx - pad]);
                        } else {
                            for (x, value) in target.iter_mut().enumerate().take(end).skip(first) {
                                *value = source[x * stride + kx - pad];
                            }
                        }
                    }
                }
            }
        }
        let mut values = scratch.take(self.outputs * positions, 0.0);
        for (row, &bias) in values.chunks_exact_mut(positions).zip(&self.bias) {
            row.fill(bias);
        }
        let weights = ArrayView2::from_shape((self.outputs, depth), &self.weights).ok()?;
        let unrolled = ArrayView2::from_shape((depth, positions), &scratch.unrolled[..]).ok()?;
        let mut out = ArrayViewMut2::from_shape((self.outputs, positions), &mut values[..]).ok()?;
        general_mat_mul(1.0, &weights, &unrolled, 1.0, &mut out);
        Some(Maps { channels: self.outputs, height, width, values })
    }
}

impl Linear {
    fn apply(&self, input: &[f32]) -> Vec<f32> {
        self.weights.chunks_exact(self.inputs).zip(&self.bias).map(|(row, b)| b + row.iter().zip(input).map(|(w, x)| w * x).sum::<f32>()).collect()
    }
}

fn relu(mut maps: Maps) -> Maps {
    maps.values.iter_mut().for_each(|v| *v = v.max(0.0));
    maps
}

/// 3×3 max pooling with stride 2 and padding 1 (the padding never wins).
fn max_pool_3x3_stride_2(input: &Maps, scratch: &mut Scratch) -> Maps {
    let height = (input.height + 2 - 3) / 2 + 1;
    let width = (input.width + 2 - 3) / 2 + 1;
    let mut values = scratch.take(0, 0.0);
    for channel in input.values.chunks_exact(input.height * input.width) {
        for y in 0..height {
            for x in 0..width {
                let mut best = f32::NEG_INFINITY;
                for iy in (2 * y).saturating_sub(1)..(2 * y + 2).min(input.height) {
                    for ix in (2 * x).saturating_sub(1)..(2 * x + 2).min(input.width) {
                        best = best.max(channel[iy * input.width + ix]);
                    }
                }
                values.push(best);
            }
        }
    }
    Maps { channels: input.channels, height, width, values }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn maps(channels: usize, side: usize, values: Vec<f32>) -> Maps {
        Maps { channels, height: side, width: side, values }
    }

    #[test]
    fn a_convolution_sums_its_inputs_under_the_kernel_with_zero_padding() {
        // One output channel, one input, 3×3 of ones plus 0.5: each output is its 3×3
        // neighbourhood's sum (the padding adds nothing).
        let conv = Conv { outputs: 1, inputs: 1, kernel: 3, stride: 1, weights: vec![1.0; 9], bias: vec![0.5] };
        let input = maps(1, 3, (1..=9).map(|v| v as f32).collect());
        let out = conv.apply(&input, &mut Scratch::default()).expect("shapes fit");
        assert_eq!((out.channels, out.height, out.width), (1, 3, 3));
        // Corner 1,2,4,5; centre every value; last corner 5,6,8,9.
        assert_eq!(out.values[0], 12.5);
        assert_eq!(out.values[4], 45.5);
        assert_eq!(out.values[8], 28.5);
    }

    #[test]
    fn a_convolution_refuses_maps_of_other_channels_rather_than_skipping_its_product() {
        let conv = Conv { outputs: 1, inputs: 2, kernel: 1, stride: 1, weights: vec![1.0, 1.0], bias: vec![0.0] };
        assert!(conv.apply(&maps(3, 2, vec![1.0; 12]), &mut Scratch::default()).is_none());
        assert!(conv.apply(&maps(2, 2, vec![1.0; 8]), &mut Scratch::default()).is_some());
    }
}
