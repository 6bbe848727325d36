//! The graph's half of "which tests should I run for this change": from the
//! changed definitions, up through what depends on them (at most
//! [`MAX_HOPS`] hops in all, the `TESTS` hop included), to the tests linked
//! there. Each test keeps its best path as its evidence.

use std::collections::HashMap;

use fathom_graph::{CodeGraph, EdgeKind, NodeId};
use fathom_model::SymbolKind;
use fathom_query::{Hop, hop};

/// The bound on a path from a change to a test, the `TESTS` edge included.
pub const MAX_HOPS: usize = 4;
/// Each dependency hop up from the change multiplies a path's score by this.
pub const UPSTREAM_DAMPING: f32 = 0.5;

/// A changed definition and how much it counts (1 for a diff or a named
/// symbol; a search hit's relative score for a description).
#[derive(Clone, Copy, Debug)]
pub struct Seed {
    pub node: NodeId,
    pub weight: f32,
}

/// A test the graph leads to.
#[derive(Clone, Debug)]
pub struct GraphHit {
    pub test: NodeId,
    pub score: f32,
    /// From the change up to the tested definition, then the `TESTS` edge
    /// (from the test): the evidence trail.
    pub path: Vec<Hop>,
}

/// Edges along which a change reaches what depends on it, followed backwards.
const DEPENDENTS: [EdgeKind; 5] =
    [EdgeKind::Calls, EdgeKind::Uses, EdgeKind::Inherits, EdgeKind::Implements, EdgeKind::Overrides];

/// Whether a change reaches `from` through `edge`, an edge into the changed
/// node: what depends on it, or, with `containers`, what holds it. A
/// method's class and a definition's module stand in where nothing that
/// depends on the definition is tested: a private helper, a constant, a hook
/// a framework calls, tested through their class or module.
fn climbs(graph: &CodeGraph, edge: EdgeKind, from: NodeId, containers: bool) -> bool {
    DEPENDENTS.contains(&edge)
        || (containers
            && matches!(edge, EdgeKind::Contains | EdgeKind::HasMethod)
            && matches!(graph.node(from).kind, SymbolKind::Class | SymbolKind::Module))
}

/// Tests reached from the seeds, best first. A seed that is itself a test
/// comes first with its own weight (a changed test must run).
pub fn graph_lane(graph: &CodeGraph, seeds: &[Seed]) -> Vec<GraphHit> {
    let mut best: HashMap<NodeId, GraphHit> = HashMap::new();
    let mut offer = |hit: GraphHit| {
        if best.get(&hit.test).is_none_or(|b| b.score < hit.score) {
            best.insert(hit.test, hit);
        }
    };
    for seed in seeds {
        if graph.node(seed.node).is_test() {
            offer(GraphHit { test: seed.node, score: seed.weight, path: Vec::new() });
        }
        // What depends on the seed first; what holds it only where that
        // reaches no test.
        if !walk(graph, seed, false, &mut offer) {
            walk(graph, seed, true, &mut offer);
        }
    }
    let mut hits: Vec<GraphHit> = best.into_values().collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.test.index().cmp(&b.test.index())));
    hits
}

/// Breadth-first up from one seed, keeping each node's best path; offers
/// every test reached, and says whether there was one.
fn walk(graph: &CodeGraph, seed: &Seed, containers: bool, offer: &mut dyn FnMut(GraphHit)) -> bool {
    let mut found = false;
    let mut reached: HashMap<NodeId, (f32, Vec<Hop>)> = HashMap::from([(seed.node, (seed.weight, Vec::new()))]);
    let mut frontier = vec![seed.node];
    for depth in 0..MAX_HOPS {
        let mut next = Vec::new();
        for &node in &frontier {
            let (score, path) = reached[&node].clone();
            for (edge, from) in graph.incoming(node) {
                if edge.kind == EdgeKind::Tests {
                    let mut trail = path.clone();
                    trail.push(hop(graph, from, node, edge));
                    offer(GraphHit { test: from, score: score * edge.confidence, path: trail });
                    found = true;
                } else if climbs(graph, edge.kind, from, containers) && depth + 2 <= MAX_HOPS {
                    let up = score * edge.confidence * UPSTREAM_DAMPING;
                    if reached.get(&from).is_some_and(|(s, _)| *s >= up) {
                        continue;
                    }
                    let mut trail = path.clone();
                    trail.push(hop(graph, from, node, edge));
                    reached.insert(from, (up, trail));
                    next.push(from);
                }
            }
        }
        frontier = next;
    }
    found
}
