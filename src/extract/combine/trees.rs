//! The block trees laid out for prediction. forust-ml predicts tree by tree over a
//! column-major f64 matrix, with 80-byte nodes; a page's ~400 blocks × 200 trees then cost
//! as much as building the blocks (`examples/combiner_timing.rs`). Here every tree's nodes
//! sit in one array of 24-byte nodes and each block's row is walked through all trees in
//! turn, as f32 values straight from the table. The same comparisons (the f32 input widened
//! to f64, `<` the split value, NaN to the missing branch) and the same sums in the same
//! order as forust-ml's `predict`, so the same values (checked in the tests).

use forust_ml::GradientBooster;

#[derive(Debug, Clone, Copy)]
struct FlatNode {
    split_value: f64,
    /// The feature split on, or `u32::MAX` for a leaf.
    feature: u32,
    left: u32,
    right: u32,
    /// A leaf's value; else the node the missing values go to.
    leaf_value_or_missing: FlatPayload,
}

#[derive(Debug, Clone, Copy)]
enum FlatPayload {
    Leaf(f32),
    Missing(u32),
}

/// A booster's trees, flattened. Built only for models whose missing value is NaN (the
/// default, and how the table marks a missing classifier).
pub struct FlatTrees {
    base_score: f64,
    nodes: Vec<FlatNode>,
    /// Each tree's first node and node count.
    trees: Vec<(u32, u32)>,
}

impl FlatTrees {
    /// `None` when the model cannot be flattened as is: a missing value other than NaN, or a
    /// child or feature index outside the tree or the row (a damaged model).
    pub fn of(booster: &GradientBooster, features: usize) -> Option<Self> {
        if !booster.missing.is_nan() {
            return None;
        }
        let mut nodes = Vec::new();
        let mut trees = Vec::with_capacity(booster.trees.len());
        for tree in &booster.trees {
            let start = u32::try_from(nodes.len()).ok()?;
            let count = u32::try_from(tree.nodes.len()).ok()?;
            let local = |i: usize| u32::try_from(i).ok().filter(|&i| i < count).map(|i| start + i);
            for node in &tree.nodes {
                let flat = if node.is_leaf {
                    FlatNode { split_value: 0.0, feature: u32::MAX, left: 0, right: 0, leaf_value_or_missing: FlatPayload::Leaf(node.weight_value) }
                } else {
                    if node.split_feature >= features {
                        return None;
                    }
                    FlatNode {
                        split_value: node.split_value,
                        feature: u32::try_from(node.split_feature).ok()?,
                        left: local(node.left_child)?,
                        right: local(node.right_child)?,
                        leaf_value_or_missing: FlatPayload::Missing(local(node.missing_node)?),
                    }
                };
                nodes.push(flat);
            }
            trees.push((start, count));
        }
        Some(Self { base_score: booster.base_score, nodes, trees })
    }

    /// The raw predictions for many rows, tree by tree: one tree's nodes stay in the
    /// nearest cache while every row goes through it. Each row's sum takes the trees in
    /// the same order as [`Self::predict`], so the values are the same.
    pub fn predict_rows(&self, rows: &[&[f32]]) -> Vec<f64> {
        let mut sums = vec![self.base_score; rows.len()];
        for &(start, count) in &self.trees {
            let tree = &self.nodes[start as usize..(start + count) as usize];
            for (sum, row) in sums.iter_mut().zip(rows) {
                *sum += f64::from(walk(tree, start, row));
            }
        }
        sums
    }

    /// The raw prediction (log-odds under log loss) for one row of `features` values,
    /// row by row: what [`Self::predict_rows`] is checked against.
    #[cfg(test)]
    pub fn predict(&self, row: &[f32]) -> f64 {
        let mut sum = self.base_score;
        for &(start, count) in &self.trees {
            let mut i = start as usize;
            // A tree is walked at most once through each of its nodes (a damaged model
            // with a cycle stops there).
            for _ in 0..count {
                let node = &self.nodes[i];
                match node.leaf_value_or_missing {
                    FlatPayload::Leaf(value) => {
                        sum += f64::from(value);
                        break;
                    }
                    FlatPayload::Missing(missing) => {
                        let value = f64::from(row.get(node.feature as usize).copied().unwrap_or(f32::NAN));
                        i = if value.is_nan() {
                            missing
                        } else if value < node.split_value {
                            node.left
                        } else {
                            node.right
                        } as usize;
                    }
                }
            }
        }
        sum
    }
}

/// The leaf value `row` reaches in one tree (`tree`, whose first node is `start` in the
/// whole array); 0 when a damaged model cycles (each node is visited at most once).
#[inline]
fn walk(tree: &[FlatNode], start: u32, row: &[f32]) -> f32 {
    let mut i = 0usize;
    for _ in 0..tree.len() {
        let Some(node) = tree.get(i) else { return 0.0 };
        match node.leaf_value_or_missing {
            FlatPayload::Leaf(value) => return value,
            FlatPayload::Missing(missing) => {
                let value = f64::from(row.get(node.feature as usize).copied().unwrap_or(f32::NAN));
                let next = if value.is_nan() {
                    missing
                } else if value < node.split_value {
                    node.left
                } else {
                    node.right
                };
                i = next.wrapping_sub(start) as usize;
            }
        }
    }
    0.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use forust_ml::Matrix;

    #[test]
    fn flat_trees_predict_what_forust_predicts() {
        // Rows with a pattern, some values missing; rows × 4 features.
        let rows = 300;
        let mut data = vec![0f32; rows * 4];
        for (i, v) in data.iter_mut().enumerate() {
            *v = if i % 37 == 0 { f32::NAN } else { ((i * 7919) % 101) as f32 / 10.0 };
        }
        let y: Vec<f64> = (0..rows).map(|r| if data[r * 4] + data[r * 4 + 1] > 10.0 { 1.0 } else { 0.0 }).collect();
        let columns = crate::extract::combine::column_major(&data, rows);
        let matrix = Matrix::new(&columns, rows, 4);
        let mut booster = GradientBooster::default().set_iterations(20).set_max_depth(4);
        booster.fit(&matrix, &y, &vec![1.0; rows], None).unwrap();
        let flat = FlatTrees::of(&booster, 4).unwrap();
        let expected = booster.predict(&matrix, false);
        for (r, want) in expected.iter().enumerate() {
            assert_eq!(flat.predict(&data[r * 4..r * 4 + 4]).to_bits(), want.to_bits(), "row {r}");
        }
        let all: Vec<&[f32]> = data.chunks(4).collect();
        let tree_by_tree = flat.predict_rows(&all);
        assert_eq!(tree_by_tree.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), expected.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
        assert!(FlatTrees::of(&booster, 1).is_none(), "a split on a feature the rows lack is refused");
    }
}
