//! Questions asked of the code graph, answered with cited nodes and the
//! edges that justify them.
//!
//! Every traversal is bounded: at most [`MAX_DEPTH`] hops, so that an
//! answer stays readable and its cost stays small on any graph.

pub mod cypher;
mod traverse;

use fathom_graph::{CodeGraph, NodeId};
use fathom_model::SymbolKind;
use serde::Serialize;

pub use traverse::{
    Direction, Hop, Reached, SymbolContext, callees, callers, hop, impact, neighbors, path, symbol, with_descendants,
};

/// The deepest any traversal goes.
pub const MAX_DEPTH: u32 = 4;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum QueryError {
    #[error("no symbol named `{0}`")]
    UnknownSymbol(String),
    #[error("`{name}` names {} symbols; use a qualified name: {}", .candidates.len(), .candidates.join(", "))]
    AmbiguousSymbol { name: String, candidates: Vec<String> },
    #[error("depth {0} is out of range: use 1 to {MAX_DEPTH}")]
    Depth(u32),
}

/// A node as answers cite it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeRef {
    /// Stable within one index.
    pub id: u32,
    pub kind: SymbolKind,
    pub name: String,
    pub qualified_name: String,
    pub file: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    pub is_external: bool,
}

impl NodeRef {
    pub fn new(graph: &CodeGraph, id: NodeId) -> NodeRef {
        let node = graph.node(id);
        NodeRef {
            id: id.index() as u32,
            kind: node.kind,
            name: node.name.clone(),
            qualified_name: node.qualified_name.clone(),
            file: graph.path_of(id).map(str::to_owned),
            start_line: node.span.start_line,
            end_line: node.span.end_line,
            is_external: node.is_external,
        }
    }
}

/// The nodes a user means by `name`: those with that exact qualified name
/// (an overload set is one symbol), else those whose qualified name ends
/// with it (`Order.add`), else the definitions with that simple name.
/// Different symbols are an error that lists them, never a silent pick.
pub fn find_symbol(graph: &CodeGraph, name: &str) -> Result<Vec<NodeId>, QueryError> {
    let name = name.trim();
    let found = symbol_matches(graph, name);
    if found.is_empty() {
        return Err(QueryError::UnknownSymbol(name.to_owned()));
    }
    let first = &graph.node(found[0]).qualified_name;
    if found.iter().all(|&id| &graph.node(id).qualified_name == first) {
        return Ok(found);
    }
    let mut names: Vec<String> = found
        .iter()
        .map(|&id| {
            let place = graph.path_of(id).map(|p| format!(" ({p}:{})", graph.node(id).span.start_line));
            format!("{}{}", graph.node(id).qualified_name, place.unwrap_or_default())
        })
        .collect();
    names.sort();
    names.dedup();
    Err(QueryError::AmbiguousSymbol { name: name.to_owned(), candidates: names })
}

/// The nodes of the first of [`find_symbol`]'s tiers that any match, one
/// symbol or several: what it reads of each is its names, kind, file and
/// line.
pub fn symbol_matches(graph: &CodeGraph, name: &str) -> Vec<NodeId> {
    let name = name.trim();
    let suffixes = [format!(".{name}"), format!("::{name}")];
    let tiers: [&dyn Fn(&fathom_graph::Node) -> bool; 3] = [
        &|n| n.qualified_name == name,
        &|n| suffixes.iter().any(|s| n.qualified_name.ends_with(s.as_str())) && name.contains(['.', ':']),
        &|n| n.name == name,
    ];
    for matches in tiers {
        let found: Vec<NodeId> =
            graph.nodes().filter(|(_, n)| !n.is_external && matches(n)).map(|(id, _)| id).collect();
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

pub(crate) fn check_depth(depth: u32) -> Result<u32, QueryError> {
    if (1..=MAX_DEPTH).contains(&depth) { Ok(depth) } else { Err(QueryError::Depth(depth)) }
}
