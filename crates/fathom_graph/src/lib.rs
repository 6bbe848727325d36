//! The code property graph.
//!
//! Nodes are modules (one per file) and the symbols defined in them; edges
//! say what contains what. The graph knows nothing of tree-sitter: it is
//! built from plain [`Definition`]s, whatever produced them.

mod module_name;

use std::collections::BTreeMap;

use fathom_model::{ClassKind, Definition, Language, Span, SymbolKind};
use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use serde::Serialize;

pub use module_name::module_name;

/// Stable within one graph: the index of a node.
pub type NodeId = NodeIndex<u32>;

/// Index of a file in [`CodeGraph::files`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FileId(pub u32);

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Node {
    pub kind: SymbolKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_kind: Option<ClassKind>,
    pub name: String,
    pub qualified_name: String,
    pub file: FileId,
    pub language: Language,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EdgeKind {
    /// A module, class or function holds a nested definition.
    Contains,
    /// A class holds a method.
    HasMethod,
}

/// A file of the graph and its module node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEntry {
    pub path: String,
    pub language: Language,
    pub module: NodeId,
}

/// One file's definitions, ready to be added.
pub struct FileInput<'a> {
    pub path: &'a str,
    pub language: Language,
    /// The whole file, for the module node's span.
    pub text: &'a str,
    /// Parents come before their children, as the parser reports them.
    pub definitions: &'a [Definition],
}

#[derive(Debug, Default)]
pub struct CodeGraph {
    graph: DiGraph<Node, EdgeKind, u32>,
    files: Vec<FileEntry>,
}

impl CodeGraph {
    /// Builds the graph of a whole repository. `progress(done, total)` is
    /// called once per file.
    pub fn build(inputs: &[FileInput<'_>], progress: &mut dyn FnMut(usize, usize)) -> CodeGraph {
        let all_paths: Vec<&str> = inputs.iter().map(|f| f.path).collect();
        let packages = module_name::PythonPackages::new(&all_paths);
        let mut graph = CodeGraph::default();
        for (done, input) in inputs.iter().enumerate() {
            progress(done, inputs.len());
            graph.add_file(input, module_name(input.path, input.language, &packages));
        }
        progress(inputs.len(), inputs.len());
        graph
    }

    fn add_file(&mut self, input: &FileInput<'_>, module: String) {
        let file = FileId(self.files.len() as u32);
        let module_node = self.graph.add_node(Node {
            kind: SymbolKind::Module,
            class_kind: None,
            name: module.clone(),
            qualified_name: module,
            file,
            language: input.language,
            span: whole_file_span(input.text),
        });
        self.files.push(FileEntry { path: input.path.to_owned(), language: input.language, module: module_node });
        let mut ids: Vec<NodeId> = Vec::with_capacity(input.definitions.len());
        for definition in input.definitions {
            let parent = definition.parent.map_or(module_node, |at| ids[at]);
            let qualified_name = format!("{}.{}", self.graph[parent].qualified_name, definition.name);
            let node = self.graph.add_node(Node {
                kind: definition.kind,
                class_kind: definition.class_kind,
                name: definition.name.clone(),
                qualified_name,
                file,
                language: input.language,
                span: definition.span,
            });
            let edge = match (self.graph[parent].kind, definition.kind) {
                (SymbolKind::Class, SymbolKind::Method) => EdgeKind::HasMethod,
                _ => EdgeKind::Contains,
            };
            self.graph.add_edge(parent, node, edge);
            ids.push(node);
        }
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.graph[id]
    }

    pub fn nodes(&self) -> impl Iterator<Item = (NodeId, &Node)> {
        self.graph.node_indices().map(move |id| (id, &self.graph[id]))
    }

    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    pub fn files(&self) -> &[FileEntry] {
        &self.files
    }

    pub fn file(&self, id: FileId) -> &FileEntry {
        &self.files[id.0 as usize]
    }

    /// The edges leaving `id`, with their targets.
    pub fn outgoing(&self, id: NodeId) -> impl Iterator<Item = (EdgeKind, NodeId)> + '_ {
        self.graph.edges_directed(id, Direction::Outgoing).map(|e| (*e.weight(), e.target()))
    }

    /// The node that contains `id`, if any (modules have none).
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.graph.edges_directed(id, Direction::Incoming).next().map(|e| e.source())
    }

    /// Node counts by kind, for summaries.
    pub fn kind_counts(&self) -> BTreeMap<SymbolKind, usize> {
        let mut counts = BTreeMap::new();
        for node in self.graph.node_weights() {
            *counts.entry(node.kind).or_default() += 1;
        }
        counts
    }
}

fn whole_file_span(text: &str) -> Span {
    let lines = text.lines().count().max(1);
    Span { start_line: 1, end_line: lines as u32, start_byte: 0, end_byte: text.len() as u32 }
}
