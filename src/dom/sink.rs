//! html5ever's `TreeSink` over the arena.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};

use html5ever::interface::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::{Attribute, QualName, ns};

use std::collections::HashMap;

use super::streamed::{self, BoundaryMarker, StreamedElement};
use super::{DOCUMENT, Dom, Element, Node, NodeData, NodeId, looks_like_markup};

pub struct ArenaSink {
    nodes: RefCell<Vec<Node>>,
    /// Template contents live in their own fragment node.
    templates: RefCell<Vec<(NodeId, NodeId)>>,
    /// Name returned for handles that are not elements (the parser never asks for them).
    placeholder: RefCell<QualName>,
    /// React's suspense-boundary comments and streamed elements, for [`streamed::reveal`].
    boundary_markers: RefCell<HashMap<NodeId, BoundaryMarker>>,
    streamed: RefCell<Vec<StreamedElement>>,
    /// `<noscript>` elements, for [`drop_escaped_noscript_markup`].
    noscripts: RefCell<Vec<NodeId>>,
    max_elements: usize,
    elements: Cell<usize>,
    exceeded: Cell<bool>,
}

impl ArenaSink {
    /// `expected_nodes`: room made at once, so the arena is not copied as it grows.
    pub fn new(max_elements: usize, expected_nodes: usize) -> Self {
        let mut nodes = Vec::with_capacity(expected_nodes.max(1));
        nodes.push(Node { parent: None, children: Vec::new(), data: NodeData::Document });
        Self {
            nodes: RefCell::new(nodes),
            templates: RefCell::new(Vec::new()),
            placeholder: RefCell::new(QualName::new(None, ns!(html), html5ever::local_name!(""))),
            boundary_markers: RefCell::new(HashMap::new()),
            streamed: RefCell::new(Vec::new()),
            noscripts: RefCell::new(Vec::new()),
            max_elements,
            elements: Cell::new(0),
            exceeded: Cell::new(false),
        }
    }

    pub fn exceeded(&self) -> bool {
        self.exceeded.get()
    }

    fn push(&self, data: NodeData) -> NodeId {
        if matches!(data, NodeData::Element(_)) {
            self.elements.set(self.elements.get() + 1);
            if self.elements.get() > self.max_elements {
                self.exceeded.set(true);
            }
        }
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(Node { parent: None, children: Vec::new(), data });
        nodes.len() - 1
    }

    fn detach(nodes: &mut [Node], id: NodeId) {
        if let Some(parent) = nodes[id].parent.take() {
            nodes[parent].children.retain(|&c| c != id);
        }
    }

    /// Adds text to the node before `position` in `parent` if that is text, else a new node.
    fn insert(&self, parent: NodeId, position: Option<usize>, child: NodeOrText<NodeId>) {
        let id = match child {
            NodeOrText::AppendText(text) => {
                let mut nodes = self.nodes.borrow_mut();
                let siblings = &nodes[parent].children;
                let before = match position {
                    Some(0) => None,
                    Some(i) => siblings.get(i - 1).copied(),
                    None => siblings.last().copied(),
                };
                if let Some(prev) = before
                    && let NodeData::Text(existing) = &mut nodes[prev].data
                {
                    existing.push_str(&text);
                    return;
                }
                drop(nodes);
                self.push(NodeData::Text(String::from(&*text)))
            }
            NodeOrText::AppendNode(id) => id,
        };
        let mut nodes = self.nodes.borrow_mut();
        Self::detach(&mut nodes, id);
        nodes[id].parent = Some(parent);
        let children = &mut nodes[parent].children;
        match position {
            Some(i) if i <= children.len() => children.insert(i, id),
            _ => children.push(id),
        }
    }
}

/// A page saved from a live DOM (a prerendering service, a headless browser's
/// `content()`) has its `<noscript>` contents serialized as escaped text, since scripts ran:
/// `<noscript>&lt;img src=...&gt;</noscript>`. Read with scripts off, as here, that is
/// literal markup in the text. Text inside `<noscript>` that starts like a tag is that
/// markup, never prose: it is dropped (kept in the tree as a node nobody reads).
fn drop_escaped_noscript_markup(nodes: &mut [Node], noscripts: &[NodeId]) {
    for &noscript in noscripts {
        for i in 0..nodes[noscript].children.len() {
            let child = nodes[noscript].children[i];
            if let NodeData::Text(text) = &nodes[child].data
                && looks_like_markup(text)
            {
                nodes[child].data = NodeData::Other;
            }
        }
    }
}

impl TreeSink for ArenaSink {
    type Handle = NodeId;
    type Output = Dom;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Dom {
        let mut nodes = self.nodes.into_inner();
        streamed::reveal(&mut nodes, &self.streamed.into_inner(), &self.boundary_markers.into_inner());
        drop_escaped_noscript_markup(&mut nodes, &self.noscripts.into_inner());
        Dom { nodes, scripts: Default::default() }
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> NodeId {
        DOCUMENT
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Ref<'a, QualName> {
        Ref::filter_map(self.nodes.borrow(), |nodes| nodes.get(*target).and_then(Node::element).map(|e| &e.name)).unwrap_or_else(|_| self.placeholder.borrow())
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        let attrs = attrs.into_iter().map(|a| (a.name.local, String::from(&*a.value))).collect();
        let element = Element { name, attrs };
        let streamed_id = streamed::streamed_id_of(&element);
        let noscript = element.name.local == html5ever::local_name!("noscript");
        let id = self.push(NodeData::Element(element));
        if noscript {
            self.noscripts.borrow_mut().push(id);
        }
        if let Some((kind, number)) = streamed_id {
            self.streamed.borrow_mut().push(StreamedElement { node: id, kind, number });
        }
        if flags.template {
            let contents = self.push(NodeData::Other);
            self.templates.borrow_mut().push((id, contents));
        }
        id
    }

    fn create_comment(&self, text: StrTendril) -> NodeId {
        let id = self.push(NodeData::Other);
        if let Some(marker) = BoundaryMarker::of_comment(text.as_bytes()) {
            self.boundary_markers.borrow_mut().insert(id, marker);
        }
        id
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> NodeId {
        self.push(NodeData::Other)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        self.insert(*parent, None, child);
    }

    fn append_based_on_parent_node(&self, element: &NodeId, prev_element: &NodeId, child: NodeOrText<NodeId>) {
        let has_parent = self.nodes.borrow()[*element].parent.is_some();
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, _name: StrTendril, _public_id: StrTendril, _system_id: StrTendril) {
        let id = self.push(NodeData::Other);
        self.insert(DOCUMENT, None, NodeOrText::AppendNode(id));
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        // Template contents are never shown: they go to a detached fragment node.
        let templates = self.templates.borrow();
        templates.iter().find(|(t, _)| t == target).map_or(*target, |&(_, contents)| contents)
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        let (parent, position) = {
            let nodes = self.nodes.borrow();
            let Some(parent) = nodes[*sibling].parent else { return };
            let position = nodes[parent].children.iter().position(|c| c == sibling);
            (parent, position)
        };
        self.insert(parent, position, new_node);
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        let mut nodes = self.nodes.borrow_mut();
        if let NodeData::Element(e) = &mut nodes[*target].data {
            for a in attrs {
                if !e.attrs.iter().any(|(n, _)| *n == a.name.local) {
                    e.attrs.push((a.name.local, String::from(&*a.value)));
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &NodeId) {
        Self::detach(&mut self.nodes.borrow_mut(), *target);
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        let mut nodes = self.nodes.borrow_mut();
        let children = std::mem::take(&mut nodes[*node].children);
        for &c in &children {
            nodes[c].parent = Some(*new_parent);
        }
        nodes[*new_parent].children.extend(children);
    }
}
