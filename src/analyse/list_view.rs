//! GOCE's list-view algorithm (the paper's Algorithm 2): group elements by an id made
//! of their depth and class, rank the ids by R = 2OL / (O + L) (O occurrences, L words
//! of text), and among the top n take the id with the highest average text length
//! ATL = L / O; the main content is the text of the elements with that id.

use foldhash::HashMap;
use std::hash::BuildHasher;

use super::profile::{ListKey, ListViewProfile};
use super::view::View;
use crate::dom::NodeId;

/// What Algorithm 2 chose: the elements of the winning id, and its statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct ListChoice {
    pub items: Vec<NodeId>,
    pub occurrences: u32,
    pub words: u64,
    pub r: f64,
}

impl ListChoice {
    pub fn average_words(&self) -> f64 {
        self.words as f64 / f64::from(self.occurrences.max(1))
    }
}

#[derive(Default)]
struct IdStats {
    count: u32,
    words: u64,
    elements: Vec<NodeId>,
}

/// Lines 13-18 of Algorithm 2. `None` when the page has no element with text.
pub fn choose(view: &View<'_>, profile: &ListViewProfile) -> Option<ListChoice> {
    // retrieveEle / updateInfo, over every kept element (line 14: "recursively").
    // Keyed by a 64-bit hash of (depth, tag, class), not by the strings: long class values
    // were compared byte by byte at every element, and two keys of a page share a hash
    // with odds near 10^-13 (the keys themselves are not read again).
    let hashing = foldhash::fast::FixedState::with_seed(0x115e);
    let mut ids: HashMap<u64, IdStats> = HashMap::default();
    let start = view.start();
    let mut stack = vec![start];
    while let Some(node) = stack.pop() {
        for child in view.children(node) {
            stack.push(child);
        }
        let Some(e) = view.dom.element(node) else { continue };
        let class = e.class();
        if class.is_empty() && !profile.classless {
            continue;
        }
        let key = match profile.key {
            ListKey::DepthClass => (view.depth(node), "", class),
            ListKey::DepthTagFirstClass => (view.depth(node), e.tag(), class.split_whitespace().next().unwrap_or("")),
        };
        let stats = ids.entry(hashing.hash_one(key)).or_default();
        stats.count += 1;
        stats.words += u64::from(view.words[node]);
        stats.elements.push(node);
    }
    // Line 15: R = 2OL / (O + L); line 16: the top n by R.
    let mut ranked: Vec<(f64, IdStats)> = ids
        .into_values()
        .filter(|s| s.words > 0 && s.count >= profile.min_occurrences)
        .map(|s| {
            let (o, l) = (f64::from(s.count), s.words as f64);
            (2.0 * o * l / (o + l), s)
        })
        .collect();
    // Ties: the earlier element in the document first, so the choice is deterministic.
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.elements[0].cmp(&b.1.elements[0])));
    ranked.truncate(profile.top_n.max(1));
    // Line 17: the highest average text length (ties: the higher R, i.e. the earlier).
    let mut best: Option<(f64, IdStats)> = None;
    for (r, stats) in ranked {
        let atl = stats.words as f64 / f64::from(stats.count);
        let better = best.as_ref().is_none_or(|(_, b)| atl > b.words as f64 / f64::from(b.count));
        if better {
            best = Some((r, stats));
        }
    }
    let (r, stats) = best?;
    let mut items = stats.elements;
    items.sort_unstable();
    Some(ListChoice { items, occurrences: stats.count, words: stats.words, r })
}

/// The text to output for a choice: the items, or (improved profile) the smallest
/// element holding them all when it is not much wordier than they are.
pub fn output_roots(view: &View<'_>, choice: &ListChoice, profile: &ListViewProfile) -> Vec<NodeId> {
    if profile.container_slack > 0.0
        && let Some(mut container) = common_ancestor(view, &choice.items)
    {
        let words = f64::from(view.words[container]);
        if words <= profile.container_slack * choice.words as f64 {
            while let Some(parent) = view.dom.nodes[container].parent.filter(|&p| view.dom.element(p).is_some()) {
                if f64::from(view.words[parent]) > profile.climb_slack * f64::from(view.words[container]) {
                    break;
                }
                container = parent;
            }
            return vec![container];
        }
    }
    choice.items.clone()
}

fn common_ancestor(view: &View<'_>, nodes: &[NodeId]) -> Option<NodeId> {
    let path = |mut n: NodeId| {
        let mut p = vec![n];
        while let Some(parent) = view.dom.nodes[n].parent {
            p.push(parent);
            n = parent;
        }
        p.reverse();
        p
    };
    let mut common = path(*nodes.first()?);
    for &n in &nodes[1..] {
        let other = path(n);
        let shared = common.iter().zip(&other).take_while(|(a, b)| a == b).count();
        common.truncate(shared);
    }
    common.last().copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::profile::LIST_VIEW_PAPER;
    use crate::dom::Dom;

    #[test]
    fn the_id_with_the_highest_average_text_among_the_top_n_wins() {
        // 12 menu items of 1 word (R = 12), 6 product cards of 7 words (R = 10.5), one
        // grid wrapper (1 x 42 words: R = 1.95), one footer (1 x 30: R = 1.94).
        let menu: String = (0..12).map(|i| format!("<li class=menu>m{i}</li>")).collect();
        let cards: String = (0..6).map(|i| format!("<div class=card>product {i} with a longer description here</div>")).collect();
        let html = format!("<body><ul class=nav>{menu}</ul><div class=grid>{cards}</div><div class=foot>{}</div></body>", "f ".repeat(30));
        let dom = Dom::parse_unbounded(&html);
        let view = View::new(&dom, &LIST_VIEW_PAPER.prune);
        // With n = 2, only the menu items and the cards compete: the cards' ATL (7) wins.
        let profile = ListViewProfile { top_n: 2, ..LIST_VIEW_PAPER };
        let choice = choose(&view, &profile).unwrap();
        assert_eq!(choice.items.len(), 6);
        assert!((choice.r - 10.5).abs() < 1e-9);
        let text = view.text_of(&choice.items);
        assert_eq!(text.lines().count(), 6);
        assert!(text.starts_with("product 0"));
        // With n = 15 the single wrappers make the list too, and their ATL is higher.
        let choice = choose(&view, &LIST_VIEW_PAPER).unwrap();
        assert_eq!(choice.occurrences, 1);
    }

    #[test]
    fn r_ranks_frequent_wordy_ids_first() {
        let r = |o: f64, l: f64| 2.0 * o * l / (o + l);
        assert!(r(12.0, 12.0) > r(6.0, 42.0));
        assert!(r(6.0, 42.0) > r(1.0, 84.0));
    }
}
