//! React's streamed server rendering (React 18+, Next.js's app router) sends a page's
//! slow parts last, as `<div hidden id="S:N">` at the end of the body, and a script moves
//! each one where it belongs: in place of `<template id="P:N">` (`$RS`), or in place of the
//! loading fallback that follows `<template id="B:N">` up to the boundary's `<!--/$-->`
//! (`$RC`). Scripts never run here, so without this the main text of such a page sits in
//! a hidden element, out of order, and the extractors drop it. This does what the scripts do.

use std::collections::HashMap;

use super::{Element, Node, NodeData, NodeId};

/// The comments React brackets a suspense boundary with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundaryMarker {
    /// `<!--$-->`, `<!--$?-->`, `<!--$!-->`.
    Open,
    /// `<!--/$-->`.
    Close,
}

impl BoundaryMarker {
    pub fn of_comment(text: &[u8]) -> Option<Self> {
        match text {
            b"$" | b"$?" | b"$!" => Some(Self::Open),
            b"/$" => Some(Self::Close),
            _ => None,
        }
    }
}

/// An element whose id has React's streaming form (`S:N`, `B:N`, `P:N`), noted by the sink
/// as it is created so that [`reveal`] need not walk the whole tree.
#[derive(Debug, Clone)]
pub struct StreamedElement {
    pub node: NodeId,
    pub kind: u8,
    pub number: String,
}

/// The kind and number of an element's streamed id, if it has one.
pub fn streamed_id_of(element: &Element) -> Option<(u8, String)> {
    element.attr("id").and_then(streamed_id).map(|(kind, number)| (kind, number.to_owned()))
}

/// Moves every streamed segment where React's scripts would.
pub fn reveal(nodes: &mut [Node], streamed: &[StreamedElement], markers: &HashMap<NodeId, BoundaryMarker>) {
    let mut segments = Vec::new();
    let mut templates: HashMap<(u8, &str), NodeId> = HashMap::new();
    for candidate in streamed {
        let NodeData::Element(e) = &nodes[candidate.node].data else { continue };
        match (e.tag(), candidate.kind) {
            ("div", b'S') if e.attr("hidden").is_some() => segments.push((candidate.node, candidate.number.as_str())),
            ("template", b'B' | b'P') => {
                templates.entry((candidate.kind, candidate.number.as_str())).or_insert(candidate.node);
            }
            _ => {}
        }
    }
    for (segment, number) in segments {
        if let Some(&placeholder) = templates.get(&(b'P', number)) {
            move_children(nodes, segment, placeholder, None);
        } else if let Some(&boundary) = templates.get(&(b'B', number)) {
            move_children(nodes, segment, boundary, Some(markers));
        }
    }
}

/// `S:12` → (`S`, `12`).
fn streamed_id(id: &str) -> Option<(u8, &str)> {
    let (kind, number) = id.split_once(':')?;
    let kind = match kind.as_bytes() {
        [k @ (b'S' | b'B' | b'P')] => *k,
        _ => return None,
    };
    (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())).then_some((kind, number))
}

/// Puts the children of `segment` where `template` is and removes both; with `markers`
/// (a boundary), the fallback after the template up to its closing marker goes too.
fn move_children(nodes: &mut [Node], segment: NodeId, template: NodeId, markers: Option<&HashMap<NodeId, BoundaryMarker>>) {
    let Some(parent) = nodes[template].parent else { return };
    // A template inside its own segment would make the tree a cycle.
    if is_inside(nodes, template, segment) {
        return;
    }
    let Some(at) = nodes[parent].children.iter().position(|&c| c == template) else { return };
    let mut end = at + 1;
    if let Some(markers) = markers {
        let siblings = &nodes[parent].children;
        let mut depth = 0usize;
        let close = siblings[at + 1..].iter().position(|c| match markers.get(c) {
            Some(BoundaryMarker::Open) => {
                depth += 1;
                false
            }
            Some(BoundaryMarker::Close) if depth == 0 => true,
            Some(BoundaryMarker::Close) => {
                depth -= 1;
                false
            }
            None => false,
        });
        // Without its closing marker the fallback's extent is unknown: it stays.
        if let Some(close) = close {
            end = at + 1 + close;
        }
    }
    let moved = std::mem::take(&mut nodes[segment].children);
    for &child in &moved {
        nodes[child].parent = Some(parent);
    }
    let removed: Vec<NodeId> = nodes[parent].children.splice(at..end, moved).collect();
    for id in removed {
        nodes[id].parent = None;
    }
    if let Some(old_parent) = nodes[segment].parent.take() {
        nodes[old_parent].children.retain(|&c| c != segment);
    }
}

/// Whether `node` is `ancestor` or under it.
fn is_inside(nodes: &[Node], node: NodeId, ancestor: NodeId) -> bool {
    let mut current = Some(node);
    for _ in 0..nodes.len() {
        match current {
            Some(id) if id == ancestor => return true,
            Some(id) => current = nodes[id].parent,
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use crate::dom::{Dom, DomLimits};

    fn text(html: &str) -> String {
        let dom = Dom::parse(html, DomLimits { max_elements: 10_000, deadline: None }).expect("small page");
        let body = dom.body().expect("a body");
        dom.descendants(body)
            .filter_map(|id| match &dom.nodes[id].data {
                crate::dom::NodeData::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("|")
    }

    #[test]
    fn a_completed_boundary_replaces_its_fallback() {
        let html = "<main><h1>T</h1><!--$?--><template id=\"B:0\"></template><p>Loading…</p><!--/$--><p>after</p></main>\
                    <div hidden id=\"S:0\"><p>streamed</p><p>text</p></div>";
        assert_eq!(text(html), "T|streamed|text|after");
    }

    #[test]
    fn a_placeholder_is_replaced_and_nested_segments_follow() {
        let html = "<main><template id=\"P:1\"></template><p>end</p></main>\
                    <div hidden id=\"S:1\"><p>one</p><!--$?--><template id=\"B:2\"></template><!--$--><i>x</i><!--/$--><!--/$--></div>\
                    <div hidden id=\"S:2\"><p>two</p></div>";
        assert_eq!(text(html), "one|two|end");
    }

    #[test]
    fn pages_without_segments_or_with_odd_ones_are_left_alone() {
        let plain = "<div hidden id=\"S:x\"><p>a</p></div><template id=\"B:0\"></template><p>b</p>";
        assert_eq!(text(plain), "a|b");
        // A boundary without its closing marker keeps its fallback; a segment holding its
        // own template is not moved into itself.
        let odd = "<p>start</p><template id=\"B:0\"></template><p>fallback</p><div hidden id=\"S:0\"><p>s</p></div>\
                   <div hidden id=\"S:3\"><template id=\"P:3\"></template><p>self</p></div>";
        assert_eq!(text(odd), "start|s|fallback|self");
    }
}
