//! The code property graph.
//!
//! Nodes are modules (one per file), packages, the symbols defined in files,
//! and the external symbols they refer to. Edges carry their kind, a
//! confidence and the reason they exist. This crate builds the containment
//! skeleton from extracted facts; `fathom_resolve` adds the inferred edges.
//! It knows nothing of tree-sitter.

mod build;
mod naming;
mod schema;

use std::collections::{BTreeMap, HashMap};

use fathom_model::{ClassKind, Language, Parameter, Span, SymbolKind, Visibility};
use petgraph::Direction;
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use build::{FileInput, FileNodes};
pub use naming::{PythonPackages, module_name, separator};
pub use schema::{EdgeKind, EdgeSchema, LabelSchema, Reason, ReasonSchema, SCHEMA_VERSION, Schema, schema};

/// Stable within one graph: the index of a node.
pub type NodeId = NodeIndex<u32>;
pub type EdgeId = EdgeIndex<u32>;

/// Index of a file in [`CodeGraph::files`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FileId(pub u32);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub kind: SymbolKind,
    pub class_kind: Option<ClassKind>,
    pub name: String,
    pub qualified_name: String,
    /// `None` for external and package nodes.
    pub file: Option<FileId>,
    pub language: Language,
    pub span: Span,
    pub is_external: bool,
    /// What the source says about a definition; `None` for modules, packages
    /// and external nodes.
    pub details: Option<Box<Details>>,
}

impl Node {
    /// Whether the definition is a test: a test function, method or class,
    /// marked by its language's conventions or its framework.
    pub fn is_test(&self) -> bool {
        self.details.as_ref().is_some_and(|d| d.is_test)
    }
}

/// A name known at compile time. Spelled through an alias because serde's
/// derive borrows every field written `&str` from its input, which a
/// `'static` field cannot; `synthesizer` reads it instead.
pub type StaticName = &'static str;

/// The properties of a definition beyond its identity. Boxed strings and
/// slices, not `String`s and `Vec`s: most definitions leave most of these
/// empty, and a large repository has hundreds of thousands of them (serde
/// writes both forms alike).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Details {
    pub signature: Option<Box<str>>,
    pub docstring: Option<Box<str>>,
    pub parameters: Box<[Parameter]>,
    pub return_type: Option<Box<str>>,
    /// The declared type of a field or global.
    pub type_name: Option<Box<str>>,
    pub modifiers: Box<[String]>,
    pub visibility: Option<Visibility>,
    /// Decorator and annotation names as written.
    pub decorators: Box<[String]>,
    pub is_test: bool,
    pub is_constructor: bool,
    pub complexity: Option<u32>,
    pub loc: u32,
    #[serde(deserialize_with = "synthesizer")]
    pub synthesized: Option<StaticName>,
    /// Go receiver or Rust `impl` type, for methods declared outside their type.
    pub owner: Option<Box<str>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    Read,
    Write,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub kind: EdgeKind,
    /// 1 for syntax edges; below 1 for inferred ones.
    pub confidence: f32,
    pub reason: Reason,
    /// The line of the call, use, import or decoration.
    pub line: Option<u32>,
    pub access: Option<Access>,
}

impl Edge {
    pub fn syntax(kind: EdgeKind) -> Edge {
        Edge { kind, confidence: 1.0, reason: Reason::Syntax, line: None, access: None }
    }

    pub fn inferred(kind: EdgeKind, confidence: f32, reason: Reason, line: Option<u32>) -> Edge {
        Edge { kind, confidence, reason, line, access: None }
    }
}

/// A file of the graph and its module node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    pub path: String,
    pub language: Language,
    pub module: NodeId,
}

/// Serialised as its nodes and edges in index order (petgraph's own form),
/// so a graph read back has the same ids and the same edge order at every
/// node; externals are written sorted, so equal graphs write equal bytes.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(from = "StoredGraph")]
pub struct CodeGraph {
    graph: DiGraph<Node, Edge, u32>,
    files: Vec<FileEntry>,
    /// External nodes by kind and qualified name, so each exists once.
    #[serde(serialize_with = "sorted")]
    externals: HashMap<(SymbolKind, String), NodeId>,
    /// Each node's [`CodeGraph::parent`], kept as edges are added and not
    /// stored (it follows from the edges): found among a node's incoming
    /// edges, it cost a walk over every caller of the node, and resolving
    /// a call on an unknown receiver asks it of every same-named method.
    #[serde(skip)]
    parents: Vec<Option<NodeId>>,
    /// Where a sparse graph ([`CodeGraph::sparse`]) keeps each node; then
    /// `graph` holds only the nodes put in, each at its own place, and
    /// `parents` follows those places. `None` for a graph built or read
    /// whole, whose places are its ids.
    #[serde(skip)]
    sparse: Option<Box<Sparse>>,
}

/// A sparse graph's map from the whole graph's ids to what it holds: a
/// split bundle's reader puts in a few thousand of hundreds of thousands of
/// nodes, and a place for each (a `Node` is 64 bytes in wasm) cost the
/// 50,000-file site's tab most of its memory.
#[derive(Debug)]
struct Sparse {
    /// By the whole graph's id: [`HELD`] with its place in `graph` for a
    /// node put in; one more than its file's id for a node known only to be
    /// in that file ([`CodeGraph::place_in_file`]); 0 for a node not known.
    slots: Vec<u32>,
    /// Each place's id in the whole graph.
    ids: Vec<NodeId>,
    /// The placeholder of a node known only by its file, one for each file.
    in_file: Vec<Node>,
    /// The placeholder of a node not known.
    blank: Node,
    /// Each edge's id in the whole graph, by its id here.
    edge_numbers: Vec<u32>,
}

/// A [`Sparse`] slot's mark of a node put in.
const HELD: u32 = 1 << 31;

impl Sparse {
    /// A node no name, path or edge reaches, in `file` if given.
    fn placeholder(file: Option<FileId>) -> Node {
        Node {
            kind: SymbolKind::Package,
            class_kind: None,
            name: String::new(),
            qualified_name: String::new(),
            file,
            language: Language::Text,
            span: Span::default(),
            is_external: false,
            details: None,
        }
    }
}

/// What a [`CodeGraph`] is read back from: all but what follows from it.
#[derive(Deserialize)]
struct StoredGraph {
    graph: DiGraph<Node, Edge, u32>,
    files: Vec<FileEntry>,
    externals: HashMap<(SymbolKind, String), NodeId>,
}

impl From<StoredGraph> for CodeGraph {
    fn from(stored: StoredGraph) -> CodeGraph {
        let StoredGraph { graph, files, externals } = stored;
        let mut parents = vec![None; graph.node_count()];
        // In index order, which is age order: the oldest containing edge wins.
        for edge in graph.edge_references().filter(|e| e.weight().kind.is_containment()) {
            parents[edge.target().index()].get_or_insert(edge.source());
        }
        CodeGraph { graph, files, externals, parents, sparse: None }
    }
}

/// A graph read back from bytes whose references do not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphError(pub String);

impl std::fmt::Display for GraphError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GraphError {}

impl CodeGraph {
    pub fn add_node(&mut self, node: Node) -> NodeId {
        match &mut self.sparse {
            None => {
                self.parents.push(None);
                self.graph.add_node(node)
            }
            Some(sparse) => {
                let id = NodeId::new(sparse.slots.len());
                sparse.slots.push(0);
                self.add_place(id, node);
                id
            }
        }
    }

    pub fn add_edge(&mut self, from: NodeId, to: NodeId, edge: Edge) -> EdgeId {
        let (at_from, at_to) = (self.hold(from), self.hold(to));
        if edge.kind.is_containment() {
            self.parents[at_to.index()].get_or_insert(from);
        }
        self.graph.add_edge(at_from, at_to, edge)
    }

    /// A node's place in `graph`: its id, or in a sparse graph where it was
    /// put; `None` for a node a sparse graph does not hold.
    fn place(&self, id: NodeId) -> Option<NodeId> {
        match &self.sparse {
            None => Some(id),
            Some(sparse) => {
                let slot = sparse.slots[id.index()];
                (slot & HELD != 0).then(|| NodeId::new((slot & !HELD) as usize))
            }
        }
    }

    /// The id of the node at a place in `graph`.
    fn id_at(&self, place: NodeId) -> NodeId {
        match &self.sparse {
            None => place,
            Some(sparse) => sparse.ids[place.index()],
        }
    }

    /// A node's place in `graph`, putting it there first (as it reads now)
    /// where a sparse graph does not hold it.
    fn hold(&mut self, id: NodeId) -> NodeId {
        if let Some(place) = self.place(id) {
            return place;
        }
        self.add_place(id, self.node(id).clone());
        NodeId::new(self.graph.node_count() - 1)
    }

    /// An edge's weight, to change its confidence or reason.
    pub fn edge_mut(&mut self, id: EdgeId) -> &mut Edge {
        &mut self.graph[id]
    }

    /// Keeps the edges `keep` accepts, in their order; every node keeps its
    /// id. The one exception to a graph that only grows: inferred edges
    /// that a precise index contradicts (`fathom_scip`) go, once, before
    /// anything reads the graph. Containment edges must be kept.
    pub fn retain_edges(&mut self, mut keep: impl FnMut(EdgeId, NodeId, NodeId, &Edge) -> bool) {
        let (nodes, edges) = std::mem::take(&mut self.graph).into_nodes_edges();
        let mut graph = DiGraph::with_capacity(nodes.len(), edges.len());
        for node in nodes {
            graph.add_node(node.weight);
        }
        for (at, edge) in edges.into_iter().enumerate() {
            let (from, to) = (edge.source(), edge.target());
            if keep(EdgeId::new(at), self.id_at(from), self.id_at(to), &edge.weight) {
                graph.add_edge(from, to, edge.weight);
            } else {
                debug_assert!(!edge.weight.kind.is_containment(), "containment edges are kept");
            }
        }
        self.graph = graph;
    }

    /// A graph of `nodes` ids over `files`, every id where the whole graph
    /// has it, holding none of them yet: a split bundle's, whose parts are
    /// put in as they arrive ([`CodeGraph::put_node`], [`CodeGraph::place_in_file`],
    /// [`CodeGraph::set_edges`]). A node not put in reads as a placeholder:
    /// a node of no name, in no file or the one it was placed in, which no
    /// name, path or edge reaches. It costs four bytes, where a node put in
    /// costs what a whole graph's does.
    pub fn sparse(nodes: usize, files: Vec<FileEntry>) -> CodeGraph {
        let sparse = Sparse {
            slots: vec![0; nodes],
            ids: Vec::new(),
            in_file: (0..files.len() as u32).map(|f| Sparse::placeholder(Some(FileId(f)))).collect(),
            blank: Sparse::placeholder(None),
            edge_numbers: Vec::new(),
        };
        CodeGraph {
            graph: DiGraph::default(),
            files,
            externals: HashMap::new(),
            parents: Vec::new(),
            sparse: Some(Box::new(sparse)),
        }
    }

    /// Puts a node in place, the whole graph's at its id.
    pub fn put_node(&mut self, id: NodeId, node: Node) {
        match self.place(id) {
            Some(place) => self.graph[place] = node,
            None => self.add_place(id, node),
        }
    }

    /// Puts a node a sparse graph does not hold in a place of its own.
    fn add_place(&mut self, id: NodeId, node: Node) {
        let place = self.graph.add_node(node);
        self.parents.push(None);
        let sparse = self.sparse.as_mut().expect("only a sparse graph lacks a node");
        sparse.ids.push(id);
        sparse.slots[id.index()] = HELD | place.index() as u32;
    }

    /// Notes that a node is in `file`, where nothing more of it is known:
    /// it then reads as a placeholder in that file. A node held already is
    /// left as it is.
    pub fn place_in_file(&mut self, id: NodeId, file: FileId) {
        match &mut self.sparse {
            None => self.graph[id].file = Some(file),
            Some(sparse) => {
                let slot = &mut sparse.slots[id.index()];
                if *slot & HELD == 0 && (file.0 as usize) < sparse.in_file.len() {
                    *slot = file.0 + 1;
                }
            }
        }
    }

    /// A file of a [`CodeGraph::sparse`] graph, to put in place.
    pub fn file_mut(&mut self, id: FileId) -> &mut FileEntry {
        &mut self.files[id.0 as usize]
    }

    /// Replaces every edge of a [`CodeGraph::sparse`] graph with `edges`,
    /// each with its id in the whole graph, given in that order: each node
    /// then lists its edges in the order the whole graph does, its parent
    /// is the one the whole graph gives it, and [`CodeGraph::edge_number`]
    /// is the whole graph's.
    pub fn set_edges(&mut self, edges: impl IntoIterator<Item = (EdgeId, NodeId, NodeId, Edge)>) {
        self.graph.clear_edges();
        self.parents.iter_mut().for_each(|p| *p = None);
        let mut numbers = Vec::new();
        for (number, from, to, edge) in edges {
            self.add_edge(from, to, edge);
            numbers.push(number.index() as u32);
        }
        if let Some(sparse) = &mut self.sparse {
            sparse.edge_numbers = numbers;
        }
    }

    /// An edge's id in the whole graph: its own, but for a sparse graph's.
    pub fn edge_number(&self, id: EdgeId) -> usize {
        match &self.sparse {
            Some(sparse) => sparse.edge_numbers.get(id.index()).map_or(id.index(), |n| *n as usize),
            None => id.index(),
        }
    }

    /// Gives back the room the node and edge lists grew into beyond what
    /// they hold: once a graph is complete, up to half of each (1.3 million
    /// edges for 50,000 files).
    pub fn shrink_to_fit(&mut self) {
        self.graph.shrink_to_fit();
        self.parents.shrink_to_fit();
        self.files.shrink_to_fit();
        self.externals.shrink_to_fit();
    }

    /// The node standing for something outside the archive, created once.
    pub fn external(&mut self, kind: SymbolKind, qualified_name: &str, language: Language) -> NodeId {
        if let Some(&id) = self.externals.get(&(kind, qualified_name.to_owned())) {
            return id;
        }
        let name = qualified_name.rsplit(['.', ':', '/', '\\']).find(|s| !s.is_empty()).unwrap_or(qualified_name);
        let id = self.add_node(Node {
            kind,
            class_kind: (kind == SymbolKind::Class).then_some(ClassKind::Class),
            name: name.to_owned(),
            qualified_name: qualified_name.to_owned(),
            file: None,
            language,
            span: Span::default(),
            is_external: true,
            details: None,
        });
        self.externals.insert((kind, qualified_name.to_owned()), id);
        id
    }

    pub fn node(&self, id: NodeId) -> &Node {
        match &self.sparse {
            None => &self.graph[id],
            Some(sparse) => match sparse.slots[id.index()] {
                0 => &sparse.blank,
                slot if slot & HELD != 0 => &self.graph[NodeId::new((slot & !HELD) as usize)],
                file => &sparse.in_file[file as usize - 1],
            },
        }
    }

    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        let place = self.hold(id);
        &mut self.graph[place]
    }

    /// Every node in id order; a sparse graph's placeholders too.
    pub fn nodes(&self) -> impl Iterator<Item = (NodeId, &Node)> {
        (0..self.node_count()).map(move |at| {
            let id = NodeId::new(at);
            (id, self.node(id))
        })
    }

    pub fn node_count(&self) -> usize {
        match &self.sparse {
            None => self.graph.node_count(),
            Some(sparse) => sparse.slots.len(),
        }
    }

    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    pub fn edges(&self) -> impl Iterator<Item = (EdgeId, NodeId, NodeId, &Edge)> {
        self.graph.edge_references().map(|e| (e.id(), self.id_at(e.source()), self.id_at(e.target()), e.weight()))
    }

    pub fn files(&self) -> &[FileEntry] {
        &self.files
    }

    pub fn file(&self, id: FileId) -> &FileEntry {
        &self.files[id.0 as usize]
    }

    /// The path of the file a node is defined in, if any.
    pub fn path_of(&self, id: NodeId) -> Option<&str> {
        self.node(id).file.map(|f| self.files[f.0 as usize].path.as_str())
    }

    /// The module of the file a node is defined in, if any.
    pub fn module_of(&self, id: NodeId) -> Option<NodeId> {
        self.node(id).file.map(|f| self.files[f.0 as usize].module)
    }

    /// The edges leaving `id`, oldest first, with their targets.
    pub fn outgoing(&self, id: NodeId) -> impl Iterator<Item = (&Edge, NodeId)> + '_ {
        self.edges_at(id, true).into_iter().map(|(_, _, to, edge)| (edge, to))
    }

    /// The edges entering `id`, oldest first, with their sources.
    pub fn incoming(&self, id: NodeId) -> impl Iterator<Item = (&Edge, NodeId)> + '_ {
        self.edges_at(id, false).into_iter().map(|(_, from, _, edge)| (edge, from))
    }

    /// The edges leaving (`outgoing`) or entering `id`, with their ids and
    /// both ends, oldest first.
    pub fn edges_at(&self, id: NodeId, outgoing: bool) -> Vec<(EdgeId, NodeId, NodeId, &Edge)> {
        let direction = if outgoing { Direction::Outgoing } else { Direction::Incoming };
        let Some(place) = self.place(id) else { return Vec::new() };
        let mut edges: Vec<_> = self
            .graph
            .edges_directed(place, direction)
            .map(|e| (e.id(), self.id_at(e.source()), self.id_at(e.target()), e.weight()))
            .collect();
        // petgraph puts each new edge at the head of its ends' lists, and
        // edges are never removed here: the lists run newest first, so
        // reversing them sorts them (sorting cost most of a busy node's walk).
        edges.reverse();
        debug_assert!(edges.is_sorted_by_key(|(id, ..)| *id));
        edges
    }

    /// An edge's ends and weight.
    pub fn edge(&self, id: EdgeId) -> (NodeId, NodeId, &Edge) {
        let (from, to) = self.graph.edge_endpoints(id).expect("edge ids come from this graph");
        (self.id_at(from), self.id_at(to), &self.graph[id])
    }

    /// The definition a declaration declares (its `DECLARES` edge), where
    /// the archive holds it.
    pub fn declared(&self, id: NodeId) -> Option<NodeId> {
        self.outgoing(id).find(|(e, _)| e.kind == EdgeKind::Declares).map(|(_, definition)| definition)
    }

    /// Every declaration whose definition the archive holds (the sources
    /// of `DECLARES` edges), gathered once for a pass that asks of every node.
    pub fn linked_declarations(&self) -> std::collections::HashSet<NodeId> {
        self.edges()
            .filter(|(_, _, _, e)| e.kind == EdgeKind::Declares)
            .map(|(_, declaration, _, _)| declaration)
            .collect()
    }

    /// The declarations of a definition (prototypes, members declared in
    /// their class, `.d.ts` declarations), oldest first.
    pub fn declarations(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.incoming(id).filter(|(e, _)| e.kind == EdgeKind::Declares).map(|(_, declaration)| declaration)
    }

    /// The node that contains `id` (modules and externals have none).
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.parents[self.place(id)?.index()]
    }

    /// Distinct callers and callees over `CALLS` edges.
    pub fn fan_in(&self, id: NodeId) -> usize {
        self.distinct(id, Direction::Incoming, EdgeKind::Calls)
    }

    pub fn fan_out(&self, id: NodeId) -> usize {
        self.distinct(id, Direction::Outgoing, EdgeKind::Calls)
    }

    fn distinct(&self, id: NodeId, direction: Direction, kind: EdgeKind) -> usize {
        let Some(place) = self.place(id) else { return 0 };
        let mut others: Vec<NodeId> = self
            .graph
            .edges_directed(place, direction)
            .filter(|e| e.weight().kind == kind)
            .map(|e| if direction == Direction::Incoming { e.source() } else { e.target() })
            .collect();
        others.sort();
        others.dedup();
        others.len()
    }

    /// Node counts by kind, for summaries; external nodes are left out.
    pub fn kind_counts(&self) -> BTreeMap<SymbolKind, usize> {
        let mut counts = BTreeMap::new();
        for (_, node) in self.nodes().filter(|(_, n)| !n.is_external) {
            *counts.entry(node.kind).or_default() += 1;
        }
        counts
    }

    /// Edge counts by type.
    pub fn edge_counts(&self) -> BTreeMap<EdgeKind, usize> {
        let mut counts = BTreeMap::new();
        for edge in self.graph.edge_weights() {
            *counts.entry(edge.kind).or_default() += 1;
        }
        counts
    }

    /// Checks what a graph read back from bytes refers to: every node's
    /// file, every file's module and every external's node exists. Edges
    /// are checked as petgraph reads them. Code that walks the graph indexes
    /// by these ids, so a graph that fails here must not be used.
    pub fn check_references(&self) -> Result<(), GraphError> {
        let nodes = self.node_count();
        for (id, node) in self.nodes() {
            if let Some(file) = node.file
                && file.0 as usize >= self.files.len()
            {
                return Err(GraphError(format!("node {} is in file {} of {}", id.index(), file.0, self.files.len())));
            }
        }
        for file in &self.files {
            if file.module.index() >= nodes {
                return Err(GraphError(format!(
                    "file `{}` has module node {} of {nodes}",
                    file.path,
                    file.module.index()
                )));
            }
        }
        if let Some(((_, name), id)) = self.externals.iter().find(|(_, id)| id.index() >= nodes) {
            return Err(GraphError(format!("external `{name}` is node {} of {nodes}", id.index())));
        }
        Ok(())
    }

    pub(crate) fn push_file(&mut self, entry: FileEntry) -> FileId {
        self.files.push(entry);
        FileId(self.files.len() as u32 - 1)
    }

    pub(crate) fn set_file_module(&mut self, file: FileId, module: NodeId) {
        self.files[file.0 as usize].module = module;
    }
}

/// The externals map in key order.
fn sorted<S: Serializer>(externals: &HashMap<(SymbolKind, String), NodeId>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_map(externals.iter().collect::<BTreeMap<_, _>>())
}

/// `synthesized` names the [`Reason`] its member's edge carries (`lombok`).
/// Read back, it becomes that reason's own name, so the field stays a
/// `&'static str`; a name no reason has is refused.
fn synthesizer<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<&'static str>, D::Error> {
    let Some(name) = Option::<String>::deserialize(deserializer)? else { return Ok(None) };
    let known = Reason::ALL.iter().map(|r| r.name()).find(|known| *known == name);
    known.map(Some).ok_or_else(|| D::Error::custom(format!("unknown synthesizer `{name}`")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(kind: SymbolKind, name: &str) -> Node {
        Node {
            kind,
            class_kind: None,
            name: name.to_owned(),
            qualified_name: name.to_owned(),
            file: None,
            language: Language::Go,
            span: Span::default(),
            is_external: false,
            details: None,
        }
    }

    /// A sparse graph holds only what was put in, each at the whole graph's
    /// id, and answers of those as the whole graph does: the rest read as
    /// placeholders (in their file, where one was placed), and an edge's
    /// ends are put in with it.
    #[test]
    fn a_sparse_graph_answers_for_what_it_holds_as_the_whole_one_does() {
        let mut whole = CodeGraph::default();
        let file = |path: &str| FileEntry { path: path.into(), language: Language::Go, module: NodeId::end() };
        let ids: Vec<NodeId> = (0..8).map(|i| whole.add_node(node(SymbolKind::Function, &format!("f{i}")))).collect();
        whole.files = vec![file("a.go"), file("b.go")];
        let edges = [
            (0, 1, EdgeKind::Contains),
            (1, 2, EdgeKind::Calls),
            (5, 2, EdgeKind::Calls),
            (0, 5, EdgeKind::Contains),
            (2, 7, EdgeKind::Calls),
        ];
        for &(from, to, kind) in &edges {
            whole.add_edge(ids[from], ids[to], Edge::syntax(kind));
        }
        let mut sparse = CodeGraph::sparse(whole.node_count(), whole.files.clone());
        // Put in out of order, as items arrive; one node only by its file.
        for at in [5, 2, 1] {
            sparse.put_node(ids[at], whole.node(ids[at]).clone());
        }
        sparse.place_in_file(ids[3], FileId(1));
        sparse.place_in_file(ids[5], FileId(1));
        let kept = |&&(from, to, _): &&(usize, usize, EdgeKind)| from != 0 || to != 5;
        let numbered = edges.iter().enumerate().filter(|(_, e)| kept(e));
        sparse.set_edges(
            numbered.map(|(at, &(from, to, kind))| (EdgeId::new(at), ids[from], ids[to], Edge::syntax(kind))),
        );
        assert_eq!(sparse.node_count(), 8);
        assert_eq!(sparse.nodes().map(|(id, _)| id).collect::<Vec<_>>(), ids);
        // Held: as the whole graph has them, with the same neighbours.
        for at in [1, 2, 5] {
            assert_eq!(sparse.node(ids[at]), whole.node(ids[at]));
        }
        let around = |g: &CodeGraph, id: NodeId| {
            (
                g.outgoing(id).map(|(e, to)| (e.kind, to)).collect::<Vec<_>>(),
                g.incoming(id).map(|(e, from)| (e.kind, from)).collect::<Vec<_>>(),
            )
        };
        for at in [1, 2] {
            assert_eq!(around(&sparse, ids[at]), around(&whole, ids[at]));
            assert_eq!(sparse.parent(ids[at]), whole.parent(ids[at]));
        }
        assert_eq!(sparse.fan_in(ids[2]), 2);
        let numbers = |g: &CodeGraph| g.edges().map(|(id, ..)| g.edge_number(id)).collect::<Vec<_>>();
        assert_eq!((numbers(&sparse), numbers(&whole)), (vec![0, 1, 2, 4], vec![0, 1, 2, 3, 4]));
        // An edge's ends are put in with it: node 0 as it read (blank), 7 too.
        assert_eq!(sparse.node(ids[0]).name, "");
        assert_eq!(sparse.outgoing(ids[0]).map(|(_, to)| to).collect::<Vec<_>>(), [ids[1]]);
        assert_eq!(
            sparse.edges().map(|(_, from, to, _)| (from, to)).collect::<Vec<_>>(),
            [(ids[0], ids[1]), (ids[1], ids[2]), (ids[5], ids[2]), (ids[2], ids[7])]
        );
        // Not held: placeholders, in the file placed, no edges; a held node
        // keeps its own file when placed again.
        assert_eq!((sparse.node(ids[3]).name.as_str(), sparse.path_of(ids[3])), ("", Some("b.go")));
        assert_eq!((sparse.node(ids[4]).file, sparse.parent(ids[4]), sparse.incoming(ids[4]).count()), (None, None, 0));
        assert_eq!(sparse.node(ids[5]).name, "f5");
    }

    /// A node's parent is the source of its oldest containing edge, as it
    /// is built and as it is read back: calls into it, and a type that
    /// claims it later (a Go method's receiver), change nothing.
    #[test]
    fn a_parent_is_the_oldest_container_and_survives_a_round_trip() {
        let mut graph = CodeGraph::default();
        let module = graph.add_node(node(SymbolKind::Module, "m"));
        let class = graph.add_node(node(SymbolKind::Class, "C"));
        let method = graph.add_node(node(SymbolKind::Method, "f"));
        let other = graph.add_node(node(SymbolKind::Class, "D"));
        graph.add_edge(module, method, Edge::inferred(EdgeKind::Calls, 0.9, Reason::SameFile, Some(3)));
        graph.add_edge(module, class, Edge::syntax(EdgeKind::Contains));
        graph.add_edge(class, method, Edge::syntax(EdgeKind::HasMethod));
        graph.add_edge(other, method, Edge::inferred(EdgeKind::HasMethod, 0.9, Reason::SameFile, None));
        let external = graph.external(SymbolKind::Function, "fmt.Println", Language::Go);
        let parents = |g: &CodeGraph| [module, class, method, other, external].map(|id| g.parent(id));
        assert_eq!(parents(&graph), [None, Some(module), Some(class), None, None]);
        let read: CodeGraph = postcard::from_bytes(&postcard::to_allocvec(&graph).unwrap()).unwrap();
        assert_eq!(parents(&read), parents(&graph));
    }
}
