//! The repository as a map: every definition and directory with a position,
//! a level of detail and a colour group, and the edges between them, laid
//! out as column arrays so a 100,000-node map crosses into JavaScript as a
//! few arrays instead of 100,000 objects.
//!
//! Positions come from the containment tree: each directory, file and
//! definition sits on a sunflower (Vogel) spiral around its parent, its
//! distance growing with the square root of the weight placed before it, so
//! a subtree takes room in proportion to its size and the map reads like the
//! folder tree. A force layout in the browser only refines it.

use std::collections::HashMap;

use fathom_graph::{CodeGraph, EdgeKind, NodeId};
use fathom_model::SymbolKind;
use serde::Serialize;

/// How far down the tree a node sits, for level of detail: a map shows
/// directories first, then files, then definitions, then members.
pub const LEVEL_DIRECTORY: u8 = 0;
pub const LEVEL_FILE: u8 = 1;
pub const LEVEL_DEFINITION: u8 = 2;
pub const LEVEL_MEMBER: u8 = 3;

#[derive(Clone, Debug, Default, Serialize)]
pub struct GraphMap {
    /// Symbol kinds by code (`kind` below); directories are `"directory"`.
    pub kinds: Vec<&'static str>,
    pub edge_kinds: Vec<&'static str>,
    /// Colour groups: the first directory under the repository's root.
    /// Directories are the graph's folder packages.
    pub groups: Vec<String>,
    pub nodes: MapNodes,
    pub edges: MapEdges,
}

/// One entry per node in each column.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MapNodes {
    /// What a map label shows: a directory's or file's last segment, a
    /// definition's name.
    pub label: Vec<String>,
    /// The qualified name to open; a directory's path.
    pub key: Vec<String>,
    pub kind: Vec<u8>,
    pub level: Vec<u8>,
    /// The containing node's index; -1 at the top.
    pub parent: Vec<i32>,
    pub group: Vec<u32>,
    pub x: Vec<f32>,
    pub y: Vec<f32>,
    /// Grows with the subtree and with the number of callers.
    pub size: Vec<f32>,
    /// File path, "" for directories.
    pub file: Vec<String>,
    pub line: Vec<u32>,
    /// Whether the node's file is test code (its role, as search reads
    /// it): the overview draws tests as their own layer, or hides them.
    /// False for directories.
    pub test: Vec<bool>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct MapEdges {
    pub source: Vec<u32>,
    pub target: Vec<u32>,
    pub kind: Vec<u8>,
}

/// A node of the layout tree before it is written out.
struct Item {
    label: String,
    key: String,
    kind: u8,
    level: u8,
    parent: Option<usize>,
    group: u32,
    file: String,
    line: u32,
    fan_in: usize,
}

const DIRECTORY_KIND: &str = "directory";
const GOLDEN_ANGLE: f32 = 2.399_963_1;

pub fn build(graph: &CodeGraph, is_test: impl Fn(&str) -> bool) -> GraphMap {
    let mut kinds: Vec<&'static str> = SymbolKind::ALL.iter().map(|k| k.name()).collect();
    kinds.push(DIRECTORY_KIND);
    let directory_kind = (kinds.len() - 1) as u8;
    let kind_code = |k: SymbolKind| SymbolKind::ALL.iter().position(|&x| x == k).unwrap_or(0) as u8;

    let root = common_root(graph);
    let mut items: Vec<Item> = Vec::new();
    let mut groups: Vec<String> = Vec::new();
    let mut group_of = |path: &str| -> u32 {
        let rest = path.strip_prefix(&root).unwrap_or(path).trim_start_matches('/');
        let first = match rest.split_once('/') {
            Some((dir, _)) => dir,
            None => ".",
        };
        match groups.iter().position(|g| g == first) {
            Some(i) => i as u32,
            None => {
                groups.push(first.to_owned());
                (groups.len() - 1) as u32
            }
        }
    };

    // Every directory (the graph's packages), file and definition, in graph
    // order; parents are linked once all are numbered.
    let mut index_of: HashMap<NodeId, usize> = HashMap::new();
    let mut ids: Vec<NodeId> = Vec::new();
    for (id, node) in graph.nodes() {
        let directory = node.kind == SymbolKind::Package && node.file.is_none();
        if node.is_external || (node.file.is_none() && !directory) {
            continue;
        }
        let path =
            if directory { node.qualified_name.clone() } else { graph.path_of(id).unwrap_or_default().to_owned() };
        let parent_kind = graph.parent(id).map(|p| graph.node(p).kind);
        let level = match node.kind {
            _ if directory => LEVEL_DIRECTORY,
            SymbolKind::Module => LEVEL_FILE,
            _ if matches!(parent_kind, None | Some(SymbolKind::Module | SymbolKind::Package)) => LEVEL_DEFINITION,
            _ => LEVEL_MEMBER,
        };
        let label = match node.kind {
            SymbolKind::Module => path.rsplit('/').next().unwrap_or(&path).to_owned(),
            _ => node.name.clone(),
        };
        index_of.insert(id, items.len());
        ids.push(id);
        items.push(Item {
            label,
            key: node.qualified_name.clone(),
            kind: if directory { directory_kind } else { kind_code(node.kind) },
            level,
            parent: None,
            group: group_of(&path),
            file: if directory { String::new() } else { path },
            line: node.span.start_line,
            fan_in: graph.fan_in(id),
        });
    }
    for (item, &id) in items.iter_mut().zip(&ids) {
        item.parent = graph.parent(id).and_then(|p| index_of.get(&p).copied());
    }

    let (x, y, weight) = layout(&items);
    let mut nodes = MapNodes::default();
    for (i, item) in items.into_iter().enumerate() {
        nodes.size.push(node_size(item.level, weight[i], item.fan_in));
        nodes.label.push(item.label);
        nodes.key.push(item.key);
        nodes.kind.push(item.kind);
        nodes.level.push(item.level);
        nodes.parent.push(item.parent.map_or(-1, |p| p as i32));
        nodes.group.push(item.group);
        nodes.test.push(!item.file.is_empty() && is_test(&item.file));
        nodes.file.push(item.file);
        nodes.line.push(item.line);
    }
    nodes.x = x;
    nodes.y = y;

    let mut edges = MapEdges::default();
    for (_, from, to, edge) in graph.edges() {
        if let (Some(&s), Some(&t)) = (index_of.get(&from), index_of.get(&to))
            && s != t
        {
            edges.source.push(s as u32);
            edges.target.push(t as u32);
            edges.kind.push(EdgeKind::ALL.iter().position(|&k| k == edge.kind).unwrap_or(0) as u8);
        }
    }
    GraphMap { kinds, edge_kinds: EdgeKind::ALL.iter().map(|k| k.label()).collect(), groups, nodes, edges }
}

/// The directory every file shares, so colour groups start below it (a
/// `flask-3.0.3/src/flask/...` archive is coloured by what is under `flask`).
fn common_root(graph: &CodeGraph) -> String {
    let mut paths = graph.files().iter().map(|f| f.path.as_str());
    let Some(first) = paths.next() else { return String::new() };
    let mut root: Vec<&str> = first.split('/').collect();
    root.pop();
    for path in paths {
        let segments: Vec<&str> = path.split('/').collect();
        let shared = root.iter().zip(&segments[..segments.len() - 1]).take_while(|(a, b)| a == b).count();
        root.truncate(shared);
    }
    root.join("/")
}

fn node_size(level: u8, weight: f32, fan_in: usize) -> f32 {
    let base = match level {
        LEVEL_DIRECTORY => 3.0,
        LEVEL_FILE => 2.5,
        LEVEL_DEFINITION => 1.6,
        _ => 1.0,
    };
    base + weight.ln_1p() * 0.6 + (fan_in as f32).ln_1p() * 0.8
}

/// Sunflower layout of the containment tree: returns x, y and each node's
/// subtree weight (itself plus its descendants).
fn layout(items: &[Item]) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let n = items.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.parent {
            Some(p) if p != i => children[p].push(i),
            _ => roots.push(i),
        }
    }
    // Weights bottom-up, by an explicit post-order (no recursion: trees of
    // deep directories must not exhaust a wasm stack).
    let mut weight = vec![1.0f32; n];
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<usize> = roots.clone();
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(children[i].iter().copied());
    }
    for &i in order.iter().rev() {
        let sum: f32 = children[i].iter().map(|&c| weight[c]).sum();
        weight[i] += sum;
    }
    for list in children.iter_mut().chain(std::iter::once(&mut roots)) {
        list.sort_by(|&a, &b| weight[b].total_cmp(&weight[a]).then(a.cmp(&b)));
    }
    let mut x = vec![0.0f32; n];
    let mut y = vec![0.0f32; n];
    place(&roots, 0.0, 0.0, &weight, &mut x, &mut y);
    for &i in &order {
        place(&children[i], x[i], y[i], &weight, &mut x, &mut y);
    }
    (x, y, weight)
}

/// Puts `members` on a spiral around (cx, cy): member k at the angle k × the
/// golden angle and at a distance that grows with the square root of the
/// weight before it plus half its own.
fn place(members: &[usize], cx: f32, cy: f32, weight: &[f32], x: &mut [f32], y: &mut [f32]) {
    let mut before = 0.0f32;
    for (k, &m) in members.iter().enumerate() {
        let distance = (before + weight[m] / 2.0).sqrt() * 2.0 + 1.0;
        let angle = k as f32 * GOLDEN_ANGLE;
        x[m] = cx + distance * angle.cos();
        y[m] = cy + distance * angle.sin();
        before += weight[m];
    }
}
