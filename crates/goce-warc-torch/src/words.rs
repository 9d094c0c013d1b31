//! The word model's fit: a class-weighted softmax regression with an L2 penalty, full-batch
//! Adam written out (two tensors need no VarStore). goce-warc's `classify::words` builds the
//! vocabulary and the TF-IDF rows and keeps the weights.

use tch::{Device, Kind, Tensor};

/// The regression to fit: `x` is `rows` × `columns`, row by row.
pub struct SoftmaxProblem<'a> {
    pub x: &'a [f32],
    pub rows: usize,
    pub columns: usize,
    pub labels: &'a [usize],
    pub sample_weights: &'a [f32],
    pub classes: usize,
    pub l2: f64,
    pub steps: usize,
    pub learning_rate: f64,
}

/// Per class, the bias then the weights of every column.
pub fn fit_softmax_regression(problem: &SoftmaxProblem<'_>) -> Result<Vec<Vec<f32>>, tch::TchError> {
    let SoftmaxProblem { x, rows, columns, labels, sample_weights, classes, l2, steps, learning_rate } = *problem;
    let device = Device::Cpu;
    let x = Tensor::from_slice(x).view([rows as i64, columns as i64]);
    let targets = Tensor::from_slice(&labels.iter().map(|&l| l as i64).collect::<Vec<_>>());
    let sample_weights = Tensor::from_slice(sample_weights);
    let total = sample_weights.sum(Kind::Float);
    let w = Tensor::zeros([columns as i64, classes as i64], (Kind::Float, device)).set_requires_grad(true);
    let b = Tensor::zeros([classes as i64], (Kind::Float, device)).set_requires_grad(true);
    let (mut m_w, mut v_w) = (w.zeros_like(), w.zeros_like());
    let (mut m_b, mut v_b) = (b.zeros_like(), b.zeros_like());
    let (beta1, beta2, lr) = (0.9f64, 0.999f64, learning_rate);
    for step in 1..=steps {
        let logits = x.matmul(&w) + &b;
        let picked = logits.log_softmax(-1, Kind::Float).gather(1, &targets.unsqueeze(1), false).squeeze_dim(1);
        let loss = -(picked * &sample_weights).sum(Kind::Float) / &total + w.square().sum(Kind::Float) * l2;
        let (gw, gb) = {
            let grads = Tensor::run_backward(&[loss], &[&w, &b], false, false);
            (grads[0].shallow_clone(), grads[1].shallow_clone())
        };
        tch::no_grad(|| {
            for (p, g, m, v) in [(&w, &gw, &mut m_w, &mut v_w), (&b, &gb, &mut m_b, &mut v_b)] {
                *m = &*m * beta1 + g * (1.0 - beta1);
                *v = &*v * beta2 + g.square() * (1.0 - beta2);
                let m_hat = &*m / (1.0 - beta1.powi(step as i32));
                let v_hat = &*v / (1.0 - beta2.powi(step as i32));
                let mut p = p.shallow_clone();
                let _ = p.f_sub_(&(m_hat / (v_hat.sqrt() + 1e-8) * lr));
            }
        });
    }
    let w = Vec::<f32>::try_from(w.detach().transpose(0, 1).contiguous().flatten(0, -1))?;
    let b = Vec::<f32>::try_from(b.detach())?;
    Ok((0..classes).map(|k| std::iter::once(b[k]).chain(w[k * columns..(k + 1) * columns].iter().copied()).collect()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_separates_two_classes_by_their_column() {
        // Class 0 pages have column 0, class 1 pages column 1.
        let rows = 20;
        let x: Vec<f32> = (0..rows).flat_map(|i| if i % 2 == 0 { [1.0, 0.0] } else { [0.0, 1.0] }).collect();
        let labels: Vec<usize> = (0..rows).map(|i| i % 2).collect();
        let weights = vec![1.0; rows];
        let problem =
            SoftmaxProblem { x: &x, rows, columns: 2, labels: &labels, sample_weights: &weights, classes: 2, l2: 1e-4, steps: 200, learning_rate: 0.05 };
        let fitted = fit_softmax_regression(&problem).unwrap();
        assert_eq!(fitted.len(), 2);
        assert!(fitted.iter().all(|w| w.len() == 3), "{fitted:?}");
        // Class k's weight on its own column beats the other class's.
        assert!(fitted[0][1] > fitted[1][1] + 1.0 && fitted[1][2] > fitted[0][2] + 1.0, "{fitted:?}");
    }
}
