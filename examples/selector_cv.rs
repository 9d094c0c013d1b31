//! The selector's variants, cross-validated on the out-of-fold rows `train-extract
//! --selector-rows FILE` writes (same domain-grouped folds): mean word F1 and pages under
//! 0.3 per dataset for each way of training it.
//! `cargo run --release --example selector_cv -- target/eval/selector-rows.json [N]` (N:
//! choose among the first N candidates only).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failure here is the report
use forust_ml::{GradientBooster, Matrix, objective::ObjectiveType};
use goce_warc::train::combine::SelectorTarget;

#[derive(serde::Deserialize)]
struct Row {
    dataset: String,
    fold: usize,
    features: Vec<Option<f32>>,
    word_f1: Vec<f64>,
}

fn main() -> anyhow::Result<()> {
    let path = std::env::args().nth(1).unwrap_or_else(|| "target/eval/selector-rows.json".into());
    let rows: Vec<Row> = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    let folds = rows.iter().map(|r| r.fold).max().unwrap_or(0) + 1;
    let features = |r: &Row| -> Vec<f64> { r.features.iter().map(|v| v.map_or(f64::NAN, f64::from)).collect() };
    let report = |name: &str, chosen: &[usize]| {
        let mut line = format!("{name:>36}:");
        for dataset in ["wcxb", "cleaneval", "scrapinghub"] {
            let picked: Vec<f64> = rows.iter().zip(chosen).filter(|(r, _)| r.dataset == dataset).map(|(r, &c)| r.word_f1[c]).collect();
            let mean = picked.iter().sum::<f64>() / picked.len().max(1) as f64;
            let low = picked.iter().filter(|&&f| f < 0.3).count();
            line += &format!("  {dataset} {mean:.4} / {low:>3}");
        }
        println!("{line}");
    };
    report("blocks", &vec![0; rows.len()]);
    // The selector may choose among the first N candidates only (second argument).
    let all = rows.first().map_or(0, |r| r.word_f1.len());
    let candidates = std::env::args().nth(2).and_then(|n| n.parse().ok()).unwrap_or(all).min(all);
    for n in 2..=all {
        let best: Vec<usize> = rows.iter().map(|r| (0..n).fold(0, |b, c| if r.word_f1[c] > r.word_f1[b] { c } else { b })).collect();
        report(&format!("best of the first {n} (a bound)"), &best);
    }

    let variants: Vec<(&str, SelectorTarget, usize, usize)> = vec![
        ("word F1, 100 trees depth 3 (shipped)", SelectorTarget::WordF1, 100, 3),
        ("advantage, 100 trees depth 3", SelectorTarget::Advantage, 100, 3),
        ("advantage over blocks, 100 depth 3", SelectorTarget::OverBlocks, 100, 3),
        ("word F1, 200 trees depth 4", SelectorTarget::WordF1, 200, 4),
        ("advantage, 200 trees depth 4", SelectorTarget::Advantage, 200, 4),
        ("sqrt word F1, 100 trees depth 3", SelectorTarget::SqrtWordF1, 100, 3),
        ("scores 0.3 or more, 100 depth 3", SelectorTarget::AtLeast03, 100, 3),
        ("word F1, 300 trees depth 2", SelectorTarget::WordF1, 300, 2),
    ];
    for (name, target, iterations, depth) in variants {
        let mut chosen = vec![0usize; rows.len()];
        for fold in 0..folds {
            let train: Vec<&Row> = rows.iter().filter(|r| r.fold != fold).collect();
            let flat: Vec<f64> = train.iter().flat_map(|r| features(r)).collect();
            let cols = flat.len() / train.len();
            let mut columns = vec![0.0; flat.len()];
            for (i, v) in flat.iter().enumerate() {
                columns[(i % cols) * train.len() + i / cols] = *v;
            }
            let matrix = Matrix::new(&columns, train.len(), cols);
            let boosters: Vec<GradientBooster> = (0..candidates)
                .map(|c| {
                    let y: Vec<f64> = train.iter().map(|r| target.of(&r.word_f1, c)).collect();
                    let mut b = GradientBooster::default()
                        .set_objective_type(ObjectiveType::SquaredLoss)
                        .set_iterations(iterations)
                        .set_learning_rate(0.05)
                        .set_max_depth(depth)
                        .set_subsample(0.8)
                        .set_min_leaf_weight(10.0)
                        .set_seed(2026)
                        .set_parallel(false);
                    b.fit(&matrix, &y, &vec![1.0; train.len()], None).unwrap();
                    b
                })
                .collect();
            for (k, r) in rows.iter().enumerate().filter(|(_, r)| r.fold == fold) {
                let f = features(r);
                let m = Matrix::new(&f, 1, f.len());
                let p: Vec<f64> = boosters.iter().map(|b| b.predict(&m, false)[0]).collect();
                chosen[k] = (0..candidates).fold(0, |b, c| if p[c] > p[b] { c } else { b });
            }
        }
        report(name, &chosen);
    }
    Ok(())
}
