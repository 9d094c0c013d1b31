//! The block trees laid out for prediction. forust-ml predicts tree by tree over a
//! column-major f64 matrix, with 80-byte nodes; a page's ~400 blocks × 300 trees then cost
//! as much as building the blocks (`examples/combiner_timing.rs`). Here every tree's nodes
//! sit in one array of 8-byte nodes, each split's two children side by side, and `LANES`
//! blocks at a time walk every tree, as f32 values straight from the table. The same
//! branches (f32 thresholds that split as forust-ml's f64 comparison does, NaN to the
//! missing branch) and the same sums in the same order as forust-ml's `predict`, so the
//! same values (checked in the tests).

use std::collections::VecDeque;

use forust_ml::GradientBooster;

/// One node in 8 bytes. A split sends a block to `first` when its value is below the
/// threshold and to `first + 1` otherwise, NaN included: the second child is always the
/// side missing values take. Where forust-ml sends them left, the node is stored mirrored
/// (value and threshold negated, see [`FlatTrees::of`]), so a step is one load of the
/// node, one of the value, one comparison and an add. A leaf's threshold is NaN, which no
/// value is below, and its `first` the node before it, so a walk of a fixed number of
/// steps stays on it; its value is in [`FlatTrees::leaf_values`].
#[derive(Debug, Clone, Copy)]
#[repr(C)] // the AVX2 walk reads `feature` and `first` as one 32-bit word, `threshold` as the next
struct FlatNode {
    /// The feature split on, with [`NEGATE`] set on a mirrored node; a leaf's is 0.
    feature: u16,
    /// The first child, counted from the tree's first node.
    first: u16,
    threshold: f32,
}

/// The bit of [`FlatNode::feature`] that marks a mirrored node: it flips the value's sign.
const NEGATE: u16 = 1 << 15;

/// The nodes of a tree's first six levels: laid out breadth first, the nodes of depth `d`
/// or less take places 0 to 2^(d+1) - 2 (the levels before a node's come first, each
/// split's children in the next two places), so a walk's first six steps (depth 0 to 5)
/// stay on places 0 to 62.
const TOP_NODES: usize = 64;
/// The steps of the AVX2 walk looked up in registers: depth 0 to 3, places 0 to 14.
const AVX2_TOP_STEPS: u32 = 4;
/// The steps of the AVX-512 walk looked up in registers: depth 0 to 5, every step of the
/// shipped trees (depth 6).
const AVX512_TOP_STEPS: u32 = 6;

/// A tree's first [`TOP_NODES`] nodes as two arrays, `FlatNode`'s first word (feature and
/// first child) and its threshold; a tree with fewer nodes is padded with leaves no walk
/// reaches. The vector walks' first steps look nodes up here with in-register permutes
/// instead of gathering them from memory (a gather costs a load per lane).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct TreeTop {
    words: [i32; TOP_NODES],
    thresholds: [f32; TOP_NODES],
}

impl TreeTop {
    fn of(tree: &[FlatNode]) -> Self {
        let mut top = Self { words: [0; TOP_NODES], thresholds: [f32::NAN; TOP_NODES] };
        for (i, node) in tree.iter().take(TOP_NODES).enumerate() {
            top.words[i] = (u32::from(node.feature) | (u32::from(node.first) << 16)) as i32;
            top.thresholds[i] = node.threshold;
        }
        top
    }
}

/// Rows walked through a tree side by side: their walks do not depend on each other, so
/// the processor overlaps them instead of waiting on one chain of loads.
const LANES: usize = 32;

/// How [`FlatTrees::predict_table`] walks the trees: one row at a time, or eight or
/// sixteen side by side in vector registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walk {
    Scalar,
    Avx2,
    Avx512,
}

impl Walk {
    /// The widest walk this processor runs (looked up once).
    fn fastest() -> Self {
        static FASTEST: std::sync::OnceLock<Walk> = std::sync::OnceLock::new();
        *FASTEST.get_or_init(|| [Self::Avx512, Self::Avx2].into_iter().find(|w| w.is_available()).unwrap_or(Self::Scalar))
    }

    fn is_available(self) -> bool {
        match self {
            Self::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Self::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Self::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            Self::Avx2 | Self::Avx512 => false,
        }
    }
}

/// The smallest f32 not below `split`: for every f32 `x`, `f64::from(x) < split` exactly
/// when `x < f32_threshold(split)` (a smaller f32 at or above `split` would contradict
/// "smallest"), so the walk compares f32s and still takes forust-ml's branches.
fn f32_threshold(split: f64) -> f32 {
    let rounded = split as f32;
    if f64::from(rounded) < split { rounded.next_up() } else { rounded }
}

/// The threshold of a mirrored node: for every f32 `x` that is no NaN, `-x` is below it
/// exactly when `x` is not below `threshold` (`x >= t` is `-x <= -t`, and below the next
/// f32 up is at or below). `None` where no f32 is next: `threshold` is minus infinity.
fn mirrored_threshold(threshold: f32) -> Option<f32> {
    (threshold != f32::NEG_INFINITY).then(|| (-threshold).next_up())
}

/// A booster's trees, flattened. Built only for models whose missing value is NaN (the
/// default, and how the table marks a missing classifier).
pub struct FlatTrees {
    base_score: f64,
    nodes: Vec<FlatNode>,
    /// Each leaf's value, at its node's index (0 for splits).
    leaf_values: Vec<f32>,
    /// Each tree's first node and depth (the most steps from its root to a leaf).
    trees: Vec<(u32, u32)>,
    /// Each tree's first [`TOP_NODES`] nodes, for the AVX2 walk's lookups in registers.
    tops: Vec<TreeTop>,
    /// The values a row must hold: every split's feature is below it.
    features: usize,
}

impl FlatTrees {
    /// `None` when the model cannot be flattened as is: a missing value other than NaN, a
    /// child or feature index outside the tree or the row, a split whose missing values
    /// take a branch of their own, a tree of more than 65,535 nodes, or a tree that is no
    /// tree (a damaged model).
    pub fn of(booster: &GradientBooster, features: usize) -> Option<Self> {
        if !booster.missing.is_nan() || features == 0 || features >= usize::from(NEGATE) {
            return None;
        }
        let mut nodes = Vec::new();
        let mut leaf_values = Vec::new();
        let mut trees = Vec::with_capacity(booster.trees.len());
        let mut tops = Vec::with_capacity(booster.trees.len());
        for tree in &booster.trees {
            let start = nodes.len();
            let count = tree.nodes.len();
            if count > usize::from(u16::MAX) {
                return None;
            }
            let children: Vec<Option<[usize; 3]>> = tree.nodes.iter().map(|n| (!n.is_leaf).then_some([n.left_child, n.right_child, n.missing_node])).collect();
            let depth = depth(&children)?;
            // Laid out breadth first: a split's two children take the next two places, the
            // one missing values take second. `depth` saw every node reached once, so the
            // places fill the tree's `count` exactly.
            let mut flat = vec![FlatNode { feature: 0, first: 0, threshold: f32::NAN }; count];
            let mut values = vec![0f32; count];
            let mut next_place = 1usize;
            let mut queue = VecDeque::from([(0usize, 0usize)]);
            while let Some((index, place)) = queue.pop_front() {
                let node = tree.nodes.get(index)?;
                if node.is_leaf {
                    // Below a leaf's threshold (NaN) is nothing: the walk goes to `first + 1`, itself.
                    flat[place] = FlatNode { feature: 0, first: u16::try_from(place.saturating_sub(1)).ok()?, threshold: f32::NAN };
                    values[place] = node.weight_value;
                    continue;
                }
                if node.split_feature >= features || node.split_value.is_nan() {
                    return None;
                }
                let feature = u16::try_from(node.split_feature).ok()?;
                let threshold = f32_threshold(node.split_value);
                let (feature, threshold, below, not_below) = match node.missing_node {
                    missing if missing == node.right_child => (feature, threshold, node.left_child, node.right_child),
                    missing if missing == node.left_child => (feature | NEGATE, mirrored_threshold(threshold)?, node.right_child, node.left_child),
                    _ => return None,
                };
                if next_place + 2 > count {
                    return None;
                }
                flat[place] = FlatNode { feature, first: u16::try_from(next_place).ok()?, threshold };
                queue.push_back((below, next_place));
                queue.push_back((not_below, next_place + 1));
                next_place += 2;
            }
            if next_place != count {
                return None;
            }
            tops.push(TreeTop::of(&flat));
            nodes.extend(flat);
            leaf_values.extend(values);
            trees.push((u32::try_from(start).ok()?, depth));
        }
        Some(Self { base_score: booster.base_score, nodes, leaf_values, trees, tops, features })
    }

    /// The raw predictions for the rows of a table laid out row after row, `features`
    /// values each (a [`BlockTable`](super::BlockTable)'s). Where the processor has
    /// AVX-512, sixteen rows take each step of a walk at once, with AVX2 eight (gathered
    /// loads); the branches and sums are those of [`Self::predict_rows`], bit for bit
    /// (checked in the tests).
    pub fn predict_table(&self, table: &[f32], features: usize) -> Vec<f64> {
        self.predict_table_with(table, features, Walk::fastest())
    }

    /// [`Self::predict_table`] with a given walk (the tests compare them all); a vector
    /// walk the processor lacks, or a table it cannot take, falls back to the scalar one.
    fn predict_table_with(&self, table: &[f32], features: usize, walk: Walk) -> Vec<f64> {
        #[cfg(target_arch = "x86_64")]
        if features > 0 && table.len().is_multiple_of(features) && i32::try_from(table.len()).is_ok() && self.features <= features {
            // SAFETY (both): the processor has the walk's instructions (`Walk::fastest`
            // and the tests ask `is_available`); every row holds `features` values, at
            // least as many as the trees were flattened for (so every split's feature is
            // inside its row), and every index into the table fits an i32.
            #[allow(unsafe_code)]
            match walk {
                Walk::Avx512 if walk.is_available() => return unsafe { avx512::predict_table(self, table, features) },
                Walk::Avx2 if walk.is_available() => return unsafe { avx2::predict_table(self, table, features) },
                _ => {}
            }
        }
        let rows: Vec<&[f32]> = table.chunks_exact(features.max(1)).collect();
        self.predict_rows(&rows)
    }

    /// The raw predictions for many rows, `LANES` rows side by side through every tree:
    /// those rows (1 KB each) stay in the nearest cache while the trees stream past them,
    /// which measured 15% faster than taking one tree through every row
    /// (`examples/combiner_timing.rs`). Each row's sum takes the trees in forust-ml's
    /// order, so the values are forust-ml's (checked in the tests).
    ///
    /// Every row must hold the `features` the trees were flattened for.
    pub fn predict_rows(&self, rows: &[&[f32]]) -> Vec<f64> {
        let mut sums = vec![self.base_score; rows.len()];
        for (sums, rows) in sums.chunks_mut(LANES).zip(rows.chunks(LANES)) {
            for &(start, depth) in &self.trees {
                let tree = &self.nodes[start as usize..];
                let mut at = [0usize; LANES];
                for _ in 0..depth {
                    for (at, row) in at.iter_mut().zip(rows) {
                        let node = tree[*at];
                        let value = row[usize::from(node.feature & !NEGATE)];
                        let value = f32::from_bits(value.to_bits() ^ (u32::from(node.feature & NEGATE) << 16));
                        // Arithmetic, not a branch: which way a block goes is as good as random.
                        // Below the threshold is `first`; not below (NaN included) `first + 1`.
                        *at = usize::from(node.first) + 1 - usize::from(value < node.threshold);
                    }
                }
                let values = &self.leaf_values[start as usize..];
                for (sum, &at) in sums.iter_mut().zip(&at) {
                    *sum += f64::from(values[at]);
                }
            }
        }
        sums
    }
}

/// Each lane's row start in the table for the vector walks' pass `chunk` of `LANES` rows,
/// `rows` of them real: lanes past the last row read the chunk's first row and are not summed.
/// The table's length fits an i32 (the walks' callers' promise), so every start does.
#[cfg(target_arch = "x86_64")]
fn row_starts<const LANES: usize>(chunk: usize, rows: usize, features: usize) -> [i32; LANES] {
    let first_row = chunk * LANES;
    std::array::from_fn(|lane| {
        let row = if lane < rows { first_row + lane } else { first_row };
        (row * features) as i32
    })
}

/// [`FlatTrees::predict_table`]'s walk with AVX2: `LANES` rows in four vectors of eight,
/// each step of each vector the same comparison as the scalar walk. The node of a step
/// is looked up in the tree's [`TreeTop`](super::TreeTop) with permutes for the first
/// [`AVX2_TOP_STEPS`](super::AVX2_TOP_STEPS) steps and gathered from memory after them; the rows'
/// values are always gathered.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{AVX2_TOP_STEPS as TOP_STEPS, FlatTrees, NEGATE, row_starts};

    /// Rows per pass, eight to a vector: four vectors keep enough gathers in flight (16 rows
    /// took 60% longer, 64 no less time than 32, `examples/combiner_timing.rs`).
    const LANES: usize = 32;
    const VECTORS: usize = LANES / 8;

    /// # Safety
    /// The processor has AVX2; `table.len()` is a multiple of `features`, fits an i32, and
    /// `features` is at least the trees' `features`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn predict_table(trees: &FlatTrees, table: &[f32], features: usize) -> Vec<f64> {
        let rows = table.len() / features;
        let mut sums = vec![trees.base_score; rows];
        let nodes = trees.nodes.as_ptr();
        let values = table.as_ptr();
        let low_bits = _mm256_set1_epi32(i32::from(!NEGATE));
        let negate = _mm256_set1_epi32(i32::from(NEGATE));
        let one = _mm256_set1_epi32(1);
        let seven = _mm256_set1_epi32(7);
        for (chunk, sums) in sums.chunks_mut(LANES).enumerate() {
            let starts = row_starts::<LANES>(chunk, sums.len(), features);
            let starts: [__m256i; VECTORS] = std::array::from_fn(|v| unsafe { _mm256_loadu_si256(starts.as_ptr().add(v * 8).cast()) });
            // Each lane's sum, four to a vector.
            let mut totals = [_mm256_set1_pd(trees.base_score); 2 * VECTORS];
            for (&(start, depth), top) in trees.trees.iter().zip(&trees.tops) {
                // SAFETY: `start` is a tree's first node, inside `nodes`.
                let tree = unsafe { nodes.add(start as usize) }.cast::<i32>();
                // SAFETY: a `TreeTop` is 64-byte aligned and holds two vectors of each (and more).
                let [words_low, words_high] = [0, 8].map(|at| unsafe { _mm256_load_si256(top.words.as_ptr().add(at).cast()) });
                let [thresholds_low, thresholds_high] = [0, 8].map(|at| unsafe { _mm256_load_ps(top.thresholds.as_ptr().add(at)) });
                let mut at = [_mm256_setzero_si256(); VECTORS];
                for step in 0..depth {
                    for (at, &row_start) in at.iter_mut().zip(&starts) {
                        // Before step 3 a walk is at depth 2 or less, on places 0 to 6; at
                        // step 3, depth 3 or less, places 0 to 14 (`TreeTop`).
                        let (word, threshold) = if step < TOP_STEPS - 1 {
                            (_mm256_permutevar8x32_epi32(words_low, *at), _mm256_permutevar8x32_ps(thresholds_low, *at))
                        } else if step < TOP_STEPS {
                            let high = _mm256_cmpgt_epi32(*at, seven);
                            let word = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(words_low, *at), _mm256_permutevar8x32_epi32(words_high, *at), high);
                            let threshold = _mm256_blendv_ps(
                                _mm256_permutevar8x32_ps(thresholds_low, *at),
                                _mm256_permutevar8x32_ps(thresholds_high, *at),
                                _mm256_castsi256_ps(high),
                            );
                            (word, threshold)
                        } else {
                            // SAFETY: a walk stays inside its tree (`FlatTrees::of` checked
                            // every child); a node is two 32-bit words, read with a stride of 8 bytes.
                            unsafe { (_mm256_i32gather_epi32::<8>(tree, *at), _mm256_i32gather_ps::<8>(tree.add(1).cast::<f32>(), *at)) }
                        };
                        let feature = _mm256_and_si256(word, low_bits);
                        let sign = _mm256_slli_epi32::<16>(_mm256_and_si256(word, negate));
                        // SAFETY: a split's feature is below the row's length.
                        let value = unsafe { _mm256_i32gather_ps::<4>(values, _mm256_add_epi32(row_start, feature)) };
                        let value = _mm256_castsi256_ps(_mm256_xor_si256(_mm256_castps_si256(value), sign));
                        // All ones (minus one) where below, NaN never: `first`, else `first + 1`.
                        let below = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LT_OQ>(value, threshold));
                        let first = _mm256_srli_epi32::<16>(word);
                        *at = _mm256_add_epi32(_mm256_add_epi32(first, one), below);
                    }
                }
                // SAFETY: every walk ended on a leaf of this tree, inside `leaf_values`.
                let leaf_values = unsafe { trees.leaf_values.as_ptr().add(start as usize) };
                for (v, at) in at.iter().enumerate() {
                    let leaf = unsafe { _mm256_i32gather_ps::<4>(leaf_values, *at) };
                    // Each lane adds its trees in order, as the scalar walk does: the same sums.
                    totals[2 * v] = _mm256_add_pd(totals[2 * v], _mm256_cvtps_pd(_mm256_castps256_ps128(leaf)));
                    totals[2 * v + 1] = _mm256_add_pd(totals[2 * v + 1], _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(leaf)));
                }
            }
            let mut lanes = [0f64; LANES];
            for (v, total) in totals.iter().enumerate() {
                // SAFETY: four f64s fit from lane v * 4 of `lanes`.
                unsafe { _mm256_storeu_pd(lanes.as_mut_ptr().add(v * 4), *total) };
            }
            sums.copy_from_slice(&lanes[..sums.len()]);
        }
        sums
    }
}

/// [`FlatTrees::predict_table`]'s walk with AVX-512: `LANES` rows in four vectors of
/// sixteen, each step the same comparison as the scalar walk. The node of a step is looked
/// up in the tree's [`TreeTop`](super::TreeTop) with permutes for the first
/// [`AVX512_TOP_STEPS`](super::AVX512_TOP_STEPS) steps (every step of a tree of depth 6:
/// only the rows' values and the leaves are gathered) and gathered from memory after them.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{AVX512_TOP_STEPS, FlatTrees, NEGATE, row_starts};

    /// Rows per pass, sixteen to a vector: four vectors keep enough gathers in flight (two
    /// took 12% longer, `examples/combiner_timing.rs`), and with the tree's top they still
    /// fit the 32 registers.
    const LANES: usize = 64;
    const VECTORS: usize = LANES / 16;

    /// # Safety
    /// The processor has AVX-512F; `table.len()` is a multiple of `features`, fits an i32,
    /// and `features` is at least the trees' `features`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn predict_table(trees: &FlatTrees, table: &[f32], features: usize) -> Vec<f64> {
        let rows = table.len() / features;
        let mut sums = vec![trees.base_score; rows];
        let nodes = trees.nodes.as_ptr();
        let values = table.as_ptr();
        let low_bits = _mm512_set1_epi32(i32::from(!NEGATE));
        let negate = _mm512_set1_epi32(i32::from(NEGATE));
        let one = _mm512_set1_epi32(1);
        let thirty_two = _mm512_set1_epi32(32);
        for (chunk, sums) in sums.chunks_mut(LANES).enumerate() {
            let starts = row_starts::<LANES>(chunk, sums.len(), features);
            let starts: [__m512i; VECTORS] = std::array::from_fn(|v| unsafe { _mm512_loadu_si512(starts.as_ptr().add(v * 16).cast()) });
            // Each lane's sum, eight to a vector.
            let mut totals = [_mm512_set1_pd(trees.base_score); 2 * VECTORS];
            for (&(start, depth), top) in trees.trees.iter().zip(&trees.tops) {
                // SAFETY: `start` is a tree's first node, inside `nodes`.
                let tree = unsafe { nodes.add(start as usize) }.cast::<i32>();
                // SAFETY: a `TreeTop` holds four vectors of each.
                let words: [__m512i; 4] = std::array::from_fn(|i| unsafe { _mm512_loadu_si512(top.words.as_ptr().add(16 * i).cast()) });
                let thresholds: [__m512; 4] = std::array::from_fn(|i| unsafe { _mm512_loadu_ps(top.thresholds.as_ptr().add(16 * i)) });
                let mut at = [_mm512_setzero_si512(); VECTORS];
                for step in 0..depth {
                    for (at, &row_start) in at.iter_mut().zip(&starts) {
                        // At step s a walk is at depth s or less, on places 0 to 2^(s+1) - 2:
                        // one vector of the top holds them up to step 3, two up to step 4,
                        // four up to step 5 (`TreeTop`).
                        let (word, threshold) = if step < AVX512_TOP_STEPS - 2 {
                            (_mm512_permutexvar_epi32(*at, words[0]), _mm512_permutexvar_ps(*at, thresholds[0]))
                        } else if step < AVX512_TOP_STEPS - 1 {
                            (_mm512_permutex2var_epi32(words[0], *at, words[1]), _mm512_permutex2var_ps(thresholds[0], *at, thresholds[1]))
                        } else if step < AVX512_TOP_STEPS {
                            let high = _mm512_test_epi32_mask(*at, thirty_two);
                            let word = _mm512_mask_blend_epi32(
                                high,
                                _mm512_permutex2var_epi32(words[0], *at, words[1]),
                                _mm512_permutex2var_epi32(words[2], *at, words[3]),
                            );
                            let threshold = _mm512_mask_blend_ps(
                                high,
                                _mm512_permutex2var_ps(thresholds[0], *at, thresholds[1]),
                                _mm512_permutex2var_ps(thresholds[2], *at, thresholds[3]),
                            );
                            (word, threshold)
                        } else {
                            // SAFETY: a walk stays inside its tree (`FlatTrees::of` checked
                            // every child); a node is two 32-bit words, read with a stride of 8 bytes.
                            unsafe { (_mm512_i32gather_epi32::<8>(*at, tree), _mm512_i32gather_ps::<8>(*at, tree.add(1).cast::<f32>())) }
                        };
                        let feature = _mm512_and_si512(word, low_bits);
                        let sign = _mm512_slli_epi32::<16>(_mm512_and_si512(word, negate));
                        // SAFETY: a split's feature is below the row's length.
                        let value = unsafe { _mm512_i32gather_ps::<4>(_mm512_add_epi32(row_start, feature), values) };
                        let value = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(value), sign));
                        // Below the threshold (NaN never is) goes to `first`, else `first + 1`.
                        let below = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(value, threshold);
                        let second = _mm512_add_epi32(_mm512_srli_epi32::<16>(word), one);
                        *at = _mm512_mask_sub_epi32(second, below, second, one);
                    }
                }
                // SAFETY: every walk ended on a leaf of this tree, inside `leaf_values`.
                let leaf_values = unsafe { trees.leaf_values.as_ptr().add(start as usize) };
                for (v, at) in at.iter().enumerate() {
                    let leaf = unsafe { _mm512_i32gather_ps::<4>(*at, leaf_values) };
                    let low = _mm512_castps512_ps256(leaf);
                    let high = _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(leaf)));
                    // Each lane adds its trees in order, as the scalar walk does: the same sums.
                    totals[2 * v] = _mm512_add_pd(totals[2 * v], _mm512_cvtps_pd(low));
                    totals[2 * v + 1] = _mm512_add_pd(totals[2 * v + 1], _mm512_cvtps_pd(high));
                }
            }
            let mut lanes = [0f64; LANES];
            for (v, total) in totals.iter().enumerate() {
                // SAFETY: eight f64s fit from lane v * 8 of `lanes`.
                unsafe { _mm512_storeu_pd(lanes.as_mut_ptr().add(v * 8), *total) };
            }
            sums.copy_from_slice(&lanes[..sums.len()]);
        }
        sums
    }
}

/// The most steps from a tree's root (its first node) to a leaf, given each node's
/// children (left, right, missing; `None` for a leaf); `None` when a node is reached
/// twice (a cycle or a shared child: no tree), a child is outside it, or it is empty.
fn depth(children: &[Option<[usize; 3]>]) -> Option<u32> {
    let mut seen = vec![false; children.len()];
    let mut deepest = 0;
    let mut stack = vec![(0usize, 0u32)];
    while let Some((i, d)) = stack.pop() {
        if std::mem::replace(seen.get_mut(i)?, true) {
            return None;
        }
        match children[i] {
            None => deepest = deepest.max(d),
            Some(three) => {
                let mut distinct = three.to_vec();
                distinct.sort_unstable();
                distinct.dedup();
                stack.extend(distinct.into_iter().map(|c| (c, d + 1)));
            }
        }
    }
    Some(deepest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use forust_ml::Matrix;

    #[test]
    fn flat_trees_predict_what_forust_predicts() {
        // Shallow trees stay inside their `TreeTop`; deeper ones are gathered from memory
        // after step 3 (AVX2) or 5 (AVX-512).
        for max_depth in [4, 6, 8] {
            predicts_what_forust_predicts(max_depth);
        }
    }

    fn predicts_what_forust_predicts(max_depth: usize) {
        // Rows with a pattern, some values missing; rows × 4 features.
        let rows = 300;
        let mut data = vec![0f32; rows * 4];
        for (i, v) in data.iter_mut().enumerate() {
            *v = if i % 37 == 0 { f32::NAN } else { ((i * 7919) % 101) as f32 / 10.0 };
        }
        // A target that deep trees keep splitting on: the parity of three features' tenths.
        let y: Vec<f64> = (0..rows).map(|r| f64::from((0..3).map(|f| (data[r * 4 + f] * 10.0) as u32).fold(0, |a, b| a ^ b) & 1)).collect();
        let columns = crate::extract::combine::column_major(&data, rows);
        let matrix = Matrix::new(&columns, rows, 4);
        let mut booster = GradientBooster::default().set_iterations(20).set_max_depth(max_depth);
        booster.fit(&matrix, &y, &vec![1.0; rows], None).unwrap();
        let flat = FlatTrees::of(&booster, 4).unwrap();
        let deepest = flat.trees.iter().map(|&(_, depth)| depth).max();
        assert_eq!(deepest, Some(max_depth as u32), "the trees grow to their limit");
        let expected = booster.predict(&matrix, false);
        let all: Vec<&[f32]> = data.chunks(4).collect();
        let bits = |values: &[f64]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&flat.predict_rows(&all)), bits(&expected));
        assert!(FlatTrees::of(&booster, 1).is_none(), "a split on a feature the rows lack is refused");

        // forust-ml sends missing values one way at every split here (left; the shipped
        // model's go right): flip every other split, and both kinds of node must follow.
        for node in booster.trees.iter_mut().flat_map(|t| t.nodes.iter_mut()).filter(|n| !n.is_leaf).step_by(2) {
            node.missing_node = if node.missing_node == node.left_child { node.right_child } else { node.left_child };
        }
        let flat = FlatTrees::of(&booster, 4).unwrap();
        let splits = flat.nodes.iter().filter(|n| !n.threshold.is_nan());
        let mirrored = splits.clone().filter(|n| n.feature & NEGATE != 0).count();
        let total = splits.count();
        assert!(mirrored > 0 && mirrored < total, "missing values go left at some splits and right at others: {mirrored} of {total}");
        let expected = booster.predict(&matrix, false);
        assert_eq!(bits(&flat.predict_rows(&all)), bits(&expected));
        // Rows wider than the trees read (a last chunk of 12 rows, a fifth value never split on).
        let wide: Vec<f32> = data.chunks(4).flat_map(|row| row.iter().copied().chain([f32::NAN])).collect();
        for walk in [Walk::Scalar, Walk::Avx2, Walk::Avx512] {
            // A walk this processor lacks is the scalar one again (said in the output).
            println!("{walk:?} walk: {}", if walk.is_available() { "run" } else { "not on this processor" });
            assert_eq!(bits(&flat.predict_table_with(&data, 4, walk)), bits(&expected), "the {walk:?} table walk agrees");
            assert_eq!(bits(&flat.predict_table_with(&wide, 5, walk)), bits(&expected), "the {walk:?} walk over wider rows agrees");
        }
    }

    #[test]
    fn a_tree_that_is_no_tree_has_no_depth() {
        let split = |left, right| Some([left, right, left]);
        let leaf = |_me: usize| None;
        assert_eq!(depth(&[split(1, 2), leaf(1), split(3, 4), leaf(3), leaf(4)]), Some(2));
        assert_eq!(depth(&[split(1, 0), leaf(1)]), None, "a cycle back to the root");
        assert_eq!(depth(&[split(1, 2), split(2, 2), leaf(2)]), None, "a child shared by two parents");
        assert_eq!(depth(&[split(1, 7), leaf(1)]), None, "a child outside the tree");
        assert_eq!(depth(&[]), None);
    }

    #[test]
    fn a_mirrored_split_sends_what_is_not_below_the_threshold_first() {
        let thresholds = [0.5f32, -0.5, 0.0, -0.0, f32::MIN_POSITIVE, f32::MAX, f32::MIN, f32::INFINITY, 1e-45];
        for t in thresholds {
            let m = mirrored_threshold(t).unwrap();
            let near = [t, t.next_down(), t.next_up(), 0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, f32::MIN];
            for x in near {
                // x is no NaN: not below t is at or above it.
                assert_eq!(-x < m, x >= t, "x {x:e} threshold {t:e} mirrored {m:e}");
            }
            assert_eq!((-f32::NAN).partial_cmp(&m), None, "NaN is below nothing: it takes the second side");
        }
        assert_eq!(mirrored_threshold(f32::NEG_INFINITY), None, "every value is at or above minus infinity: no f32 says so");
    }

    #[test]
    fn f32_thresholds_branch_as_the_f64_split_does() {
        let splits = [0.1f64, -0.1, 1.0 / 3.0, 2.5, 0.0, -0.0, 1e-40, 16_777_217.0, f64::from(f32::MAX) * 2.0, -1e300];
        for split in splits {
            let t = f32_threshold(split);
            let near = [t, t.next_down(), t.next_up(), split as f32, (split as f32).next_down(), (split as f32).next_up(), 0.0, -0.0];
            for x in near {
                assert_eq!(f64::from(x) < split, x < t, "x {x:e} split {split:e} threshold {t:e}");
            }
        }
    }
}
