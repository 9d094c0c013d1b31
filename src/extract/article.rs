//! GOCE's article algorithm (the paper's Algorithm 1): from the top element, descend
//! into the child with the most words while the gap between the two wordiest children
//! exceeds the standard deviation of the children's word counts; else take the node.

use super::profile::ArticleProfile;
use super::view::View;
use crate::dom::NodeId;

/// The node whose text is the article (Algorithm 1's return value).
pub fn article_node(view: &View<'_>, profile: &ArticleProfile) -> NodeId {
    descend(view, profile, &mut Vec::new())
}

/// The article node and, with `sibling_paragraph_words`, the paragraphs left beside
/// the descent's path, in document order.
pub fn article_roots(view: &View<'_>, profile: &ArticleProfile) -> Vec<NodeId> {
    let mut roots = Vec::new();
    let node = descend(view, profile, &mut roots);
    roots.push(node);
    roots.sort_unstable();
    roots
}

fn descend(view: &View<'_>, profile: &ArticleProfile, beside: &mut Vec<NodeId>) -> NodeId {
    let mut node = view.start();
    loop {
        // Line 2: childEle ← element.allChild
        let children: Vec<NodeId> = view.children(node).filter(|&c| !profile.ignore_empty_children || view.words[c] > 0).collect();
        match children.len() {
            0 => return node, // lines 3-4
            1 => {
                // Lines 5-6, unless the child is a paragraph-level block.
                if profile.stop_at.contains(&view.tag(children[0])) {
                    return node;
                }
                node = children[0];
                continue;
            }
            _ => {}
        }
        // Lines 7-10: the two wordiest children and the standard deviation.
        let counts: Vec<f64> = children.iter().map(|&c| f64::from(view.words[c])).collect();
        let (m1, lm1, lm2) = two_max(&children, &counts);
        let std_dev = std_dev(&counts);
        let share = lm1 / f64::from(view.words[node].max(1));
        // Lines 11-14.
        let repeated = profile.stop_at_repeated > 0 && siblings_like(view, &children, m1) >= profile.stop_at_repeated;
        if lm1 - lm2 > std_dev && share >= profile.min_child_share && !profile.stop_at.contains(&view.tag(m1)) && !repeated {
            if profile.sibling_paragraph_words > 0 {
                beside.extend(
                    children.iter().copied().filter(|&c| c != m1 && profile.stop_at.contains(&view.tag(c)) && view.words[c] >= profile.sibling_paragraph_words),
                );
            }
            node = m1;
        } else {
            return node;
        }
    }
}

/// Siblings of `child` (among `children`) with its tag and first class word.
fn siblings_like(view: &View<'_>, children: &[NodeId], child: NodeId) -> usize {
    let key = |id: NodeId| view.dom.element(id).map(|e| (e.tag(), e.class().split_whitespace().next().unwrap_or("")));
    let target = key(child);
    children.iter().filter(|&&c| c != child && key(c) == target).count()
}

fn two_max(children: &[NodeId], counts: &[f64]) -> (NodeId, f64, f64) {
    let (mut best, mut first, mut second) = (children[0], f64::MIN, f64::MIN);
    for (&c, &n) in children.iter().zip(counts) {
        if n > first {
            second = first;
            first = n;
            best = c;
        } else if n > second {
            second = n;
        }
    }
    (best, first, second)
}

/// Sample standard deviation (N − 1), as the GOCE slides define it.
pub(crate) fn std_dev(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return 0.0;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::Dom;
    use crate::extract::profile::{ARTICLE, ARTICLE_PAPER};

    fn article(html: &str, profile: &ArticleProfile) -> String {
        let dom = Dom::parse_unbounded(html);
        let view = View::new(&dom, &profile.prune);
        view.text_of(&[article_node(&view, profile)])
    }

    const FIGURE_3: &str = r#"<html><div class="main-part"><p id="1">Hello world,</p><p id="2">this is some text</p></div></html>"#;

    #[test]
    fn the_papers_figure_3_element_text_and_algorithm_1_on_it() {
        let dom = Dom::parse_unbounded(FIGURE_3);
        let view = View::new(&dom, &ARTICLE_PAPER.prune);
        let div = dom.descendants(0).find(|&id| view.tag(id) == "div").unwrap();
        // "the text attribute of the <div> tag is 'Hello world, \n this is some text'"
        assert_eq!(view.text_of(&[div]), "Hello world,\nthis is some text");
        // Algorithm 1: html → body → div (single children), then word counts 2 and 4:
        // the gap 2 exceeds the sample SD 1.41, so it descends into p id=2.
        assert_eq!(article(FIGURE_3, &ARTICLE_PAPER), "this is some text");
    }

    #[test]
    fn a_gap_below_the_standard_deviation_keeps_the_parents_text() {
        // Word counts 10, 9, 1: gap 1 < SD 4.03 → the whole body.
        let ten = "w ".repeat(10);
        let nine = "w ".repeat(9);
        let html = format!("<body><div>{ten}</div><div>{nine}</div><div>w</div></body>");
        let text = article(&html, &ARTICLE_PAPER);
        assert_eq!(text.split_whitespace().count(), 20);
    }

    #[test]
    fn a_gap_above_the_standard_deviation_descends_into_the_longest_child() {
        // Word counts 60, 5, 4, 3: gap 55 > SD ~24 → only the longest child.
        let long = "content ".repeat(60);
        let html = format!("<body><nav>a b c d e</nav><div id=main>{long}</div><div>x y z w</div><footer>f g h</footer></body>");
        let text = article(&html, &ARTICLE_PAPER);
        assert_eq!(text.split_whitespace().count(), 60);
        assert!(text.starts_with("content"));
    }

    #[test]
    fn the_improved_profile_keeps_paragraphs_together() {
        // One long paragraph among short ones: the paper descends into it and loses the rest.
        let html = format!(
            "<body><div class=post><p>{}</p><p>{}</p><p>{}</p></div><div class=share>Share this</div></body>",
            "long ".repeat(80),
            "short ".repeat(20),
            "tiny ".repeat(10)
        );
        assert_eq!(article(&html, &ARTICLE_PAPER).split_whitespace().count(), 80);
        let improved = article(&html, &ARTICLE);
        assert_eq!(improved.split_whitespace().count(), 110);
        assert!(!improved.contains("Share"));
    }
}
