//! Bounded traversals: callers, callees, impact, paths and neighbors, and a
//! symbol with its context.

use std::collections::{HashMap, HashSet};

use fathom_graph::{CodeGraph, Edge, EdgeKind, NodeId, Reason};
use fathom_model::{SymbolKind, Visibility};
use serde::Serialize;

use crate::{MAX_DEPTH, NodeRef, QueryError, check_depth};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Along edges: callees, what this uses.
    Outgoing,
    /// Against edges: callers, what depends on this.
    Incoming,
    Both,
}

/// One edge of an answer, in its own direction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hop {
    pub from: NodeRef,
    pub to: NodeRef,
    #[serde(rename = "type")]
    pub edge: EdgeKind,
    pub confidence: f32,
    pub reason: Reason,
    pub line: Option<u32>,
}

/// A node reached by a traversal, and how.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reached {
    pub node: NodeRef,
    /// Hops from the start.
    pub depth: u32,
    /// The product of the confidences along the path.
    pub confidence: f32,
    /// The edges from the start to this node, in traversal order.
    pub path: Vec<Hop>,
}

/// The functions and methods that call `id`, up to `depth` hops away.
pub fn callers(graph: &CodeGraph, ids: &[NodeId], depth: u32) -> Result<Vec<Reached>, QueryError> {
    Ok(walk(graph, ids, check_depth(depth)?, &[(EdgeKind::Calls, Direction::Incoming)]))
}

/// What `id` calls, up to `depth` hops away.
pub fn callees(graph: &CodeGraph, ids: &[NodeId], depth: u32) -> Result<Vec<Reached>, QueryError> {
    Ok(walk(graph, ids, check_depth(depth)?, &[(EdgeKind::Calls, Direction::Outgoing)]))
}

/// Everything that depends on `id` or on anything it contains, up to
/// `depth` hops away: callers, users of its state, subclasses and
/// implementors, overriders, importers, and what its annotations decorate.
pub fn impact(graph: &CodeGraph, ids: &[NodeId], depth: u32) -> Result<Vec<Reached>, QueryError> {
    let depth = check_depth(depth)?;
    let seeds: Vec<NodeId> = ids.iter().flat_map(|&id| with_descendants(graph, id)).collect();
    let dependents = [
        (EdgeKind::Calls, Direction::Incoming),
        (EdgeKind::Uses, Direction::Incoming),
        (EdgeKind::Inherits, Direction::Incoming),
        (EdgeKind::Implements, Direction::Incoming),
        (EdgeKind::Overrides, Direction::Incoming),
        (EdgeKind::Imports, Direction::Incoming),
        (EdgeKind::Decorates, Direction::Outgoing),
    ];
    Ok(walk(graph, &seeds, depth, &dependents))
}

/// The shortest chain of dependency edges from `from` to `to`, followed
/// forwards; `None` if there is none within `depth` hops.
pub fn path(graph: &CodeGraph, from: &[NodeId], to: &[NodeId], depth: u32) -> Result<Option<Vec<Hop>>, QueryError> {
    let depth = check_depth(depth)?;
    let kinds: Vec<(EdgeKind, Direction)> = EdgeKind::ALL
        .into_iter()
        // Containment is not dependency; TESTS summarises paths of calls and
        // would short-circuit them.
        .filter(|k| !k.is_containment() && *k != EdgeKind::Tests)
        .map(|k| (k, Direction::Outgoing))
        .collect();
    let targets: HashSet<u32> = to.iter().map(|id| id.index() as u32).collect();
    Ok(walk(graph, from, depth, &kinds).into_iter().find(|r| targets.contains(&r.node.id)).map(|r| r.path))
}

/// The edges at `id`, of the given types (all when empty), in a direction.
pub fn neighbors(graph: &CodeGraph, id: NodeId, kinds: &[EdgeKind], direction: Direction) -> Vec<Hop> {
    let wanted = |e: &Edge| kinds.is_empty() || kinds.contains(&e.kind);
    let mut hops = Vec::new();
    if direction != Direction::Incoming {
        hops.extend(graph.outgoing(id).filter(|(e, _)| wanted(e)).map(|(e, to)| hop(graph, id, to, e)));
    }
    if direction != Direction::Outgoing {
        hops.extend(graph.incoming(id).filter(|(e, _)| wanted(e)).map(|(e, from)| hop(graph, from, id, e)));
    }
    hops
}

/// A symbol with the context a reader needs first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SymbolContext {
    pub symbol: NodeRef,
    pub class_kind: Option<&'static str>,
    pub signature: Option<String>,
    pub docstring: Option<String>,
    pub parameters: Vec<String>,
    pub return_type: Option<String>,
    pub modifiers: Vec<String>,
    pub visibility: Option<Visibility>,
    pub decorators: Vec<String>,
    pub is_test: bool,
    pub is_constructor: bool,
    pub cyclomatic_complexity: Option<u32>,
    pub loc: Option<u32>,
    pub fan_in: usize,
    pub fan_out: usize,
    /// What contains it.
    pub parent: Option<NodeRef>,
    /// Methods and fields, for a class; nested definitions otherwise.
    pub members: Vec<NodeRef>,
    /// For a declaration, the definition it declares (`DECLARES`).
    pub declares: Option<NodeRef>,
    /// For a definition, its declarations: prototypes, members declared
    /// in their class, `.d.ts` declarations.
    pub declarations: Vec<NodeRef>,
    /// Direct callers and callees, with the confidence of each edge.
    pub callers: Vec<Hop>,
    pub callees: Vec<Hop>,
    /// Tests that reach it through calls, within three hops.
    pub tests: Vec<Reached>,
    /// Its source text, filled in by whoever holds the files.
    pub code: Option<String>,
}

pub fn symbol(graph: &CodeGraph, id: NodeId) -> SymbolContext {
    let node = graph.node(id);
    let details = node.details.as_deref();
    let contained = [EdgeKind::Contains, EdgeKind::HasMethod, EdgeKind::HasField];
    let members = graph
        .outgoing(id)
        .filter(|(e, _)| contained.contains(&e.kind))
        .map(|(_, member)| NodeRef::new(graph, member))
        .collect();
    let tests = walk(graph, &[id], 3, &[(EdgeKind::Calls, Direction::Incoming)])
        .into_iter()
        .filter(|r| graph.node(NodeId::new(r.node.id as usize)).is_test())
        .collect();
    SymbolContext {
        symbol: NodeRef::new(graph, id),
        class_kind: node.class_kind.map(|k| k.name()),
        signature: details.and_then(|d| d.signature.as_deref().map(str::to_owned)),
        docstring: details.and_then(|d| d.docstring.as_deref().map(str::to_owned)),
        parameters: details.map(|d| d.parameters.iter().map(|p| p.text.clone()).collect()).unwrap_or_default(),
        return_type: details.and_then(|d| d.return_type.as_deref().map(str::to_owned)),
        modifiers: details.map(|d| d.modifiers.to_vec()).unwrap_or_default(),
        visibility: details.and_then(|d| d.visibility),
        decorators: details.map(|d| d.decorators.to_vec()).unwrap_or_default(),
        is_test: node.is_test(),
        is_constructor: details.is_some_and(|d| d.is_constructor),
        cyclomatic_complexity: details.and_then(|d| d.complexity),
        loc: details.map(|d| d.loc),
        fan_in: graph.fan_in(id),
        fan_out: graph.fan_out(id),
        parent: graph.parent(id).map(|p| NodeRef::new(graph, p)),
        members,
        declares: graph.declared(id).map(|d| NodeRef::new(graph, d)),
        declarations: graph.declarations(id).map(|d| NodeRef::new(graph, d)).collect(),
        callers: neighbors(graph, id, &[EdgeKind::Calls], Direction::Incoming),
        callees: neighbors(graph, id, &[EdgeKind::Calls], Direction::Outgoing),
        tests,
        code: None,
    }
}

/// `id` and everything it contains, transitively: where [`impact`] starts.
pub fn with_descendants(graph: &CodeGraph, id: NodeId) -> Vec<NodeId> {
    let mut out = vec![id];
    let mut at = 0;
    while at < out.len() {
        let current = out[at];
        out.extend(
            graph
                .outgoing(current)
                .filter(|(e, _)| e.kind.is_containment())
                .map(|(_, child)| child)
                .filter(|child| graph.node(*child).kind != SymbolKind::Module),
        );
        at += 1;
    }
    out
}

/// Breadth-first, level by level: each node is reached by a shortest path,
/// and among those by the most confident one. The starts are not reported.
fn walk(graph: &CodeGraph, starts: &[NodeId], depth: u32, kinds: &[(EdgeKind, Direction)]) -> Vec<Reached> {
    debug_assert!(depth <= MAX_DEPTH);
    let mut seen: HashSet<NodeId> = starts.iter().copied().collect();
    let mut frontier: Vec<(NodeId, f32, Vec<Hop>)> = starts.iter().map(|&s| (s, 1.0, Vec::new())).collect();
    let mut out = Vec::new();
    for level in 1..=depth {
        let mut next: HashMap<NodeId, (f32, Vec<Hop>)> = HashMap::new();
        for (node, confidence, path) in &frontier {
            for (kind, direction) in kinds {
                let steps: Vec<(NodeId, Hop, f32)> = match direction {
                    Direction::Outgoing | Direction::Both => graph
                        .outgoing(*node)
                        .filter(|(e, _)| e.kind == *kind)
                        .map(|(e, to)| (to, hop(graph, *node, to, e), e.confidence))
                        .collect(),
                    Direction::Incoming => Vec::new(),
                };
                let back: Vec<(NodeId, Hop, f32)> = match direction {
                    Direction::Incoming | Direction::Both => graph
                        .incoming(*node)
                        .filter(|(e, _)| e.kind == *kind)
                        .map(|(e, from)| (from, hop(graph, from, *node, e), e.confidence))
                        .collect(),
                    Direction::Outgoing => Vec::new(),
                };
                for (other, step, edge_confidence) in steps.into_iter().chain(back) {
                    if seen.contains(&other) {
                        continue;
                    }
                    let reached = confidence * edge_confidence;
                    if next.get(&other).is_none_or(|(best, _)| reached > *best) {
                        let mut longer = path.clone();
                        longer.push(step);
                        next.insert(other, (reached, longer));
                    }
                }
            }
        }
        let mut level_nodes: Vec<(NodeId, (f32, Vec<Hop>))> = next.into_iter().collect();
        level_nodes.sort_by_key(|(id, _)| *id);
        frontier.clear();
        for (id, (confidence, path)) in level_nodes {
            seen.insert(id);
            out.push(Reached { node: NodeRef::new(graph, id), depth: level, confidence, path: path.clone() });
            frontier.push((id, confidence, path));
        }
        if frontier.is_empty() {
            break;
        }
    }
    out.sort_by(|a, b| {
        a.depth
            .cmp(&b.depth)
            .then(b.confidence.total_cmp(&a.confidence))
            .then(a.node.qualified_name.cmp(&b.node.qualified_name))
    });
    out
}

/// One edge as an answer gives it: both ends cited, confidence to two places.
pub fn hop(graph: &CodeGraph, from: NodeId, to: NodeId, edge: &Edge) -> Hop {
    Hop {
        from: NodeRef::new(graph, from),
        to: NodeRef::new(graph, to),
        edge: edge.kind,
        confidence: (edge.confidence * 100.0).round() / 100.0,
        reason: edge.reason,
        line: edge.line,
    }
}
