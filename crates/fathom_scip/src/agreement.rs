//! How far Fathom's own resolution agrees with a SCIP index, measured in
//! the files the index covers before the index changes anything: the
//! precision and recall of the inferred `CALLS` and `IMPORTS` edges against
//! the index's references to the project's own definitions, with each
//! disagreement put down to a cause.
//!
//! - **Precision** is judged per call site (caller, line, name as written)
//!   where the index resolved that name: the site is right when one of
//!   Fathom's candidates is the index's target (an ambiguous site counts as
//!   right when one of its candidates is, and is counted apart).
//! - **Recall** is per reference of the index to an internal definition at
//!   one of Fathom's call sites (SCIP has no role for a call, so a reference
//!   is taken for a call where the parse saw one): found when Fathom has an
//!   edge from the same caller, on the same line, to that definition.
//!   References to functions elsewhere are counted apart.

use std::collections::{BTreeMap, HashMap, HashSet};

use fathom_graph::{CodeGraph, EdgeKind, NodeId, Reason};
use serde::{Deserialize, Serialize};

/// Agreement on one kind of edge.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KindAgreement {
    /// Fathom's sites (or edges, for imports) that the index resolved, and
    /// how many of them it resolved to one of Fathom's candidates.
    pub judged: usize,
    pub agreed: usize,
    /// Judged sites where Fathom gave more than one candidate, and how many
    /// of those held the index's.
    pub ambiguous: usize,
    pub ambiguous_agreed: usize,
    /// The index's edges to the project's own definitions, and how many
    /// Fathom found.
    pub index_edges: usize,
    pub found: usize,
    /// References of the index to the project's functions and methods
    /// where Fathom's parse has no call (a function passed as a value, a
    /// decorator): outside what recall can count, so counted apart.
    #[serde(default)]
    pub references_elsewhere: usize,
    /// Fathom's wrong sites, by cause.
    pub wrong_by_cause: BTreeMap<String, usize>,
    /// The index's edges Fathom missed, by cause.
    pub missed_by_cause: BTreeMap<String, usize>,
}

impl KindAgreement {
    pub fn precision(&self) -> Option<f64> {
        (self.judged > 0).then(|| self.agreed as f64 / self.judged as f64)
    }

    pub fn recall(&self) -> Option<f64> {
        (self.index_edges > 0).then(|| self.found as f64 / self.index_edges as f64)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    pub calls: KindAgreement,
    pub imports: KindAgreement,
}

/// A call the index resolved: where, as written, and to what.
pub(crate) struct IndexCall {
    pub from: NodeId,
    pub line: u32,
    pub written: String,
    /// The receiver as written (`self`, `app.config`), where there is one.
    pub receiver: Option<String>,
    pub target: NodeId,
}

/// What the measure asks of the graph and the parse.
pub(crate) struct Lookups<'a> {
    /// Whether Fathom's callee is the index's target.
    pub same_callee: &'a dyn Fn(NodeId, NodeId) -> bool,
    /// Whether a call written so could be Fathom's callee.
    pub written_as: &'a dyn Fn(NodeId, &str) -> bool,
    /// Whether the caller's file imports the name from a module other than
    /// the target's.
    pub imported_from_elsewhere: &'a dyn Fn(NodeId, &str, NodeId) -> bool,
    pub decorated: &'a dyn Fn(NodeId) -> bool,
    /// Whether the importing module re-exports the target
    /// (`export { x } from './x'`, `from .x import y` in an `__init__`).
    pub reexported: &'a dyn Fn(NodeId, NodeId) -> bool,
}

/// Why an import edge disagrees:
/// - `module`: Fathom links the module itself, which the index does not
///   name (`import flask`, `from . import typing`);
/// - `variable`: a global or field, whose definition the index names by a
///   symbol Fathom's parse has no node for;
/// - `re-export`: the importing module passes the name on;
/// - `other`.
fn import_cause(graph: &CodeGraph, from: NodeId, to: NodeId, lookups: &Lookups<'_>) -> &'static str {
    use fathom_model::SymbolKind;
    if (lookups.reexported)(from, to) {
        return "re-export";
    }
    match graph.node(to).kind {
        SymbolKind::Module | SymbolKind::Package => "module",
        SymbolKind::GlobalVariable | SymbolKind::Field => "variable",
        _ => "other",
    }
}

/// The causes a disagreement is put down to, checked in this order.
/// - `alias`: the name as written is not the definition's (`import x as y`,
///   `f = g`), so no lookup by name can reach it;
/// - `inheritance`: a call on `self`, `cls`, `this` or `super()` that lands
///   in another class of the hierarchy;
/// - `dynamic dispatch`: a method called on a value whose type must be
///   inferred (`app.route(...)`);
/// - `re-export`: a plain name imported from a module that does not
///   define it (a package's `__init__`, an `export * from`);
/// - `decorator`: the definition is decorated, and so may be replaced;
/// - `other`.
fn cause(graph: &CodeGraph, call: &IndexCall, lookups: &Lookups<'_>) -> &'static str {
    let target = graph.node(call.target);
    let constructor_of_class = target.kind == fathom_model::SymbolKind::Class;
    if target.name != call.written && !constructor_of_class && target.name != "__init__" && target.name != "constructor"
    {
        return "alias";
    }
    match call.receiver.as_deref() {
        Some(r) if matches!(r, "self" | "cls" | "this" | "super()" | "super") || r.starts_with("super(") => {
            "inheritance"
        }
        Some(_) => "dynamic dispatch",
        None if (lookups.imported_from_elsewhere)(call.from, &call.written, call.target) => "re-export",
        None if (lookups.decorated)(call.target) => "decorator",
        None => "other",
    }
}

/// Measures `graph`'s inferred edges in `covered` files against the
/// index's `calls` and `imports` (module → internal definition).
pub(crate) fn measure(
    graph: &CodeGraph,
    covered: &[bool],
    calls: &[IndexCall],
    imports: &HashSet<(NodeId, NodeId)>,
    lookups: &Lookups<'_>,
) -> Agreement {
    let (same_callee, written_as) = (lookups.same_callee, lookups.written_as);
    let mut agreement = Agreement::default();
    let in_covered = |node: NodeId| graph.node(node).file.is_some_and(|f| covered[f.0 as usize]);

    // Fathom's inferred calls, by (caller, line).
    let mut ours: HashMap<(NodeId, u32), Vec<NodeId>> = HashMap::new();
    for (_, from, to, edge) in graph.edges() {
        if edge.kind != EdgeKind::Calls || matches!(edge.reason, Reason::Scip) || !in_covered(from) {
            continue;
        }
        if let Some(line) = edge.line {
            ours.entry((from, line)).or_default().push(to);
        }
    }
    // The index's calls, by (caller, line, name as written).
    let mut theirs: HashMap<(NodeId, u32, &str), Vec<&IndexCall>> = HashMap::new();
    for call in calls {
        theirs.entry((call.from, call.line, call.written.as_str())).or_default().push(call);
    }

    // Precision: each of Fathom's sites with an internal candidate that the
    // index resolved.
    let c = &mut agreement.calls;
    let mut sites: Vec<(NodeId, u32, &str)> = theirs.keys().copied().collect();
    sites.sort();
    for (from, line, written) in sites {
        let resolved = &theirs[&(from, line, written)];
        let Some(candidates) = ours.get(&(from, line)) else { continue };
        let candidates: Vec<NodeId> =
            candidates.iter().copied().filter(|&to| !graph.node(to).is_external && written_as(to, written)).collect();
        if candidates.is_empty() {
            continue;
        }
        c.judged += 1;
        let right = candidates.iter().any(|&to| resolved.iter().any(|call| same_callee(to, call.target)));
        c.agreed += usize::from(right);
        if candidates.len() > 1 {
            c.ambiguous += 1;
            c.ambiguous_agreed += usize::from(right);
        }
        if !right {
            let why = if resolved.iter().all(|call| graph.node(call.target).is_external) {
                "the index calls it external"
            } else {
                cause(graph, resolved[0], lookups)
            };
            *c.wrong_by_cause.entry(why.to_owned()).or_default() += 1;
        }
    }
    // Recall: each of the index's calls to an internal definition.
    for call in calls.iter().filter(|call| !graph.node(call.target).is_external) {
        c.index_edges += 1;
        let found =
            ours.get(&(call.from, call.line)).is_some_and(|to| to.iter().any(|&to| same_callee(to, call.target)));
        if found {
            c.found += 1;
        } else {
            let why = cause(graph, call, lookups);
            *c.missed_by_cause.entry(why.to_owned()).or_default() += 1;
        }
    }

    // Imports: module → internal definition, as sets.
    let i = &mut agreement.imports;
    let mut inferred: HashSet<(NodeId, NodeId)> = HashSet::new();
    for (_, from, to, edge) in graph.edges() {
        if edge.kind == EdgeKind::Imports
            && !matches!(edge.reason, Reason::Scip)
            && in_covered(from)
            && !graph.node(to).is_external
        {
            inferred.insert((from, to));
        }
    }
    // The index names the imported symbol, or the module of an
    // `export ... from`; Fathom may link the module that defines the symbol,
    // or a symbol of the module: either way it is the same import.
    let by_module = |edges: &HashSet<(NodeId, NodeId)>| {
        let mut map: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
        for &(from, to) in edges {
            map.entry(from).or_default().push(to);
        }
        map
    };
    let (index_by, ours_by) = (by_module(imports), by_module(&inferred));
    let related = |a: NodeId, b: NodeId| a == b || graph.parent(a) == Some(b) || graph.parent(b) == Some(a);
    let mut inferred: Vec<(NodeId, NodeId)> = inferred.into_iter().collect();
    inferred.sort();
    for &(from, to) in &inferred {
        let Some(theirs) = index_by.get(&from) else { continue };
        i.judged += 1;
        let right = theirs.iter().any(|&t| related(t, to));
        i.agreed += usize::from(right);
        if !right {
            *i.wrong_by_cause.entry(import_cause(graph, from, to, lookups).to_owned()).or_default() += 1;
        }
    }
    for &(from, to) in imports {
        i.index_edges += 1;
        if ours_by.get(&from).is_some_and(|ours| ours.iter().any(|&o| related(o, to))) {
            i.found += 1;
        } else {
            *i.missed_by_cause.entry(import_cause(graph, from, to, lookups).to_owned()).or_default() += 1;
        }
    }
    agreement
}
