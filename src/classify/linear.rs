//! The GOCE paper's baseline: a linear model over its 11 HTML features (the paper used
//! an SVM; a multinomial logistic regression gives probabilities as well). Plain Rust,
//! no LibTorch: it trains in a second and serves as the fast classifier.

use super::PAGE_TYPE_COUNT;

/// Standardisation and weights, stored as JSON in `models/`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct LinearModel {
    pub feature_names: Vec<String>,
    pub mean: Vec<f32>,
    pub std: Vec<f32>,
    /// One row per page type: the bias, then a weight per feature.
    pub weights: Vec<Vec<f32>>,
}

/// How the baseline is fitted.
#[derive(Debug, Clone, Copy)]
pub struct LinearTraining {
    pub iterations: usize,
    pub learning_rate: f32,
    pub l2: f32,
}

pub const LINEAR_TRAINING: LinearTraining = LinearTraining { iterations: 3000, learning_rate: 0.5, l2: 1e-3 };

impl LinearModel {
    /// Fits by full-batch gradient descent on the cross-entropy; `class_weights` balance
    /// the page types.
    pub fn train(feature_names: Vec<String>, rows: &[Vec<f32>], labels: &[usize], class_weights: &[f32], training: LinearTraining) -> Self {
        let dims = feature_names.len();
        let (mean, std) = standardisation(rows, dims);
        let x: Vec<Vec<f32>> = rows.iter().map(|r| standardise(r, &mean, &std)).collect();
        let mut weights = vec![vec![0.0f32; dims + 1]; PAGE_TYPE_COUNT];
        let total_weight: f32 = labels.iter().map(|&l| class_weights[l]).sum::<f32>().max(1e-9);
        for _ in 0..training.iterations {
            let mut gradient = vec![vec![0.0f32; dims + 1]; PAGE_TYPE_COUNT];
            for (row, &label) in x.iter().zip(labels) {
                let probs = softmax(&logits(&weights, row));
                let w = class_weights[label] / total_weight;
                for (k, p) in probs.iter().enumerate() {
                    let error = w * (p - if k == label { 1.0 } else { 0.0 });
                    gradient[k][0] += error;
                    for (g, v) in gradient[k][1..].iter_mut().zip(row) {
                        *g += error * v;
                    }
                }
            }
            for (wk, gk) in weights.iter_mut().zip(&gradient) {
                for (j, (w, g)) in wk.iter_mut().zip(gk).enumerate() {
                    let decay = if j == 0 { 0.0 } else { training.l2 * *w };
                    *w -= training.learning_rate * (g + decay);
                }
            }
        }
        Self { feature_names, mean, std, weights }
    }

    /// Page-type probabilities for one feature row.
    pub fn probabilities(&self, row: &[f32]) -> [f32; PAGE_TYPE_COUNT] {
        let probs = softmax(&logits(&self.weights, &standardise(row, &self.mean, &self.std)));
        let mut out = [0.0; PAGE_TYPE_COUNT];
        for (o, p) in out.iter_mut().zip(probs) {
            *o = p;
        }
        out
    }

    /// Whether the stored shapes fit together (a hand-edited or truncated file does not).
    pub fn is_consistent(&self) -> bool {
        let dims = self.feature_names.len();
        self.mean.len() == dims
            && self.std.len() == dims
            && self.weights.len() == PAGE_TYPE_COUNT
            && self.weights.iter().all(|w| w.len() == dims + 1 && w.iter().all(|v| v.is_finite()))
    }
}

/// Per-feature mean and standard deviation (1 where a feature is constant).
pub fn standardisation(rows: &[Vec<f32>], dims: usize) -> (Vec<f32>, Vec<f32>) {
    let n = rows.len().max(1) as f64;
    let mut mean = vec![0.0f64; dims];
    for r in rows {
        for (m, v) in mean.iter_mut().zip(r) {
            *m += f64::from(*v) / n;
        }
    }
    let mut var = vec![0.0f64; dims];
    for r in rows {
        for ((s, v), m) in var.iter_mut().zip(r).zip(&mean) {
            *s += (f64::from(*v) - m).powi(2) / n;
        }
    }
    let std = var.iter().map(|v| if *v > 1e-12 { v.sqrt() as f32 } else { 1.0 }).collect();
    (mean.iter().map(|m| *m as f32).collect(), std)
}

pub fn standardise(row: &[f32], mean: &[f32], std: &[f32]) -> Vec<f32> {
    row.iter().zip(mean).zip(std).map(|((v, m), s)| (v - m) / s).collect()
}

fn logits(weights: &[Vec<f32>], row: &[f32]) -> Vec<f32> {
    weights.iter().map(|w| w[0] + w[1..].iter().zip(row).map(|(a, b)| a * b).sum::<f32>()).collect()
}

/// Probabilities from logits (also the ResNet's, [`super::cpu_net`]).
pub(super) fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.iter().map(|e| e / sum).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separable_classes_are_learned() {
        // Type 0 has a small first feature, type 3 a large one.
        let rows: Vec<Vec<f32>> = (0..40).map(|i| vec![if i % 2 == 0 { -1.0 - (i as f32) / 40.0 } else { 1.0 + (i as f32) / 40.0 }, 0.5]).collect();
        let labels: Vec<usize> = (0..40).map(|i| if i % 2 == 0 { 0 } else { 3 }).collect();
        let model = LinearModel::train(vec!["a".into(), "b".into()], &rows, &labels, &[1.0; PAGE_TYPE_COUNT], LINEAR_TRAINING);
        assert!(model.is_consistent());
        let low = model.probabilities(&[-2.0, 0.5]);
        let high = model.probabilities(&[2.0, 0.5]);
        assert!(low[0] > 0.9, "{low:?}");
        assert!(high[3] > 0.9, "{high:?}");
        assert!((low.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
}
