//! Precise edges from SCIP indexes.
//!
//! A SCIP index (the Semantic Code Intelligence Protocol: scip-python,
//! scip-typescript, scip-java, rust-analyzer...) says, for every name in a
//! file, which symbol it refers to, as the compiler sees it. Fathom keeps
//! its own graph and reads the index into it:
//!
//! - documents are matched to the graph's files by path, and a document
//!   whose definitions do not sit where the file has them (another
//!   revision) is set aside, named;
//! - definitions are matched to graph nodes by the byte where their name
//!   starts;
//! - each reference becomes an edge by what Fathom's own parse says is at
//!   that place: a call site gives `CALLS` from the call's enclosing
//!   definition, an import statement `IMPORTS` from the module, a field or
//!   global `USES`; `is_implementation` relationships give `INHERITS`,
//!   `IMPLEMENTS` or `OVERRIDES`. Each has confidence 1 and reason `scip`;
//! - in a file the index covers, an inferred `CALLS` edge that the index
//!   resolves to the same target is marked `scip-confirmed`, and one that
//!   it resolves elsewhere at the same call site is dropped
//!   ([`CodeGraph::retain_edges`]). A call the index leaves unresolved
//!   keeps Fathom's inference.
//!
//! It knows nothing of tree-sitter: it reads `FileFacts` and the graph.

mod agreement;
pub mod export;

use std::collections::{BTreeMap, HashMap, HashSet};

use fathom_graph::{Access, CodeGraph, Edge, EdgeKind, FileNodes, NodeId, Reason};
use fathom_model::{ClassKind, FileFacts, Language, SymbolKind};
use protobuf::Message;
use scip::types::descriptor::Suffix;
use scip::types::{Document, Index as RawIndex, Occurrence, PositionEncoding, SymbolRole};
use serde::{Deserialize, Serialize};

pub use agreement::{Agreement, KindAgreement};

/// The largest SCIP index read (Django's, from scip-python, is 54 MB).
pub const MAX_SCIP_BYTES: usize = 512 << 20;
/// Paths named in a report's lists; the rest are counted.
const NAMED: usize = 20;

#[derive(Debug, thiserror::Error)]
pub enum ScipError {
    #[error("`{name}` is empty: not a SCIP index")]
    Empty { name: String },
    #[error("`{name}` is {size} bytes, over the {MAX_SCIP_BYTES} bytes a SCIP index may take")]
    TooLarge { name: String, size: usize },
    #[error("`{name}` is not a readable SCIP index: {detail}")]
    Corrupt { name: String, detail: String },
}

/// A SCIP index, read.
pub struct ScipIndex {
    name: String,
    tool: String,
    version: String,
    documents: Vec<Document>,
    /// A hash of its bytes: the same index given twice (by `--scip` and
    /// inside the folder) is read once.
    fingerprint: u64,
}

impl ScipIndex {
    /// Whether `other` was read from the same bytes.
    pub fn same_as(&self, other: &ScipIndex) -> bool {
        self.fingerprint == other.fingerprint
    }

    /// The tool that wrote it (`scip-python`) and its version.
    pub fn tool(&self) -> (&str, &str) {
        (&self.tool, &self.version)
    }

    pub fn documents(&self) -> usize {
        self.documents.len()
    }
}

/// Reads a SCIP index's protobuf bytes. Bytes that are not one, or hold no
/// document, are refused with the cause.
pub fn read(name: &str, bytes: &[u8]) -> Result<ScipIndex, ScipError> {
    let name = name.to_owned();
    if bytes.is_empty() {
        return Err(ScipError::Empty { name });
    }
    if bytes.len() > MAX_SCIP_BYTES {
        return Err(ScipError::TooLarge { name, size: bytes.len() });
    }
    let raw = RawIndex::parse_from_bytes(bytes)
        .map_err(|e| ScipError::Corrupt { name: name.clone(), detail: e.to_string() })?;
    if raw.documents.is_empty() {
        let detail = "it holds no documents".to_owned();
        return Err(ScipError::Corrupt { name, detail });
    }
    let tool = raw.metadata.tool_info.name.clone();
    let version = raw.metadata.tool_info.version.clone();
    let fingerprint = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut hasher);
        hasher.finish()
    };
    Ok(ScipIndex { name, tool, version, documents: raw.documents, fingerprint })
}

/// One file of the graph, as the SCIP reader needs it.
pub struct ScipFile<'a> {
    pub path: &'a str,
    pub language: Language,
    pub text: &'a str,
    pub facts: &'a FileFacts,
    pub nodes: &'a FileNodes,
}

/// What one SCIP index gave.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScipSource {
    /// The index's file name.
    pub name: String,
    pub tool: String,
    pub version: String,
    pub documents: usize,
    /// Documents matched to a file of the archive and used.
    pub matched: usize,
    /// Documents whose definitions are not where the file has them: an
    /// index of another revision. Their first paths, and how many.
    pub stale: Vec<String>,
    pub stale_count: usize,
    /// Documents with no file of that path in the archive.
    pub unmatched: Vec<String>,
    pub unmatched_count: usize,
}

/// What the SCIP indexes did to the graph.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScipReport {
    pub sources: Vec<ScipSource>,
    /// The files whose references came from an index, sorted.
    pub covered: Vec<String>,
    /// Definitions matched to graph nodes, and those Fathom's parse has no
    /// node for (parameters and locals are not counted).
    pub definitions: usize,
    pub definitions_unmatched: usize,
    /// Edges added, by type name (`CALLS`...).
    pub added: BTreeMap<String, usize>,
    /// Inferred `CALLS` edges the index confirmed, and those it contradicted
    /// (dropped).
    pub confirmed: usize,
    pub dropped: usize,
    /// References to a symbol of the project that no matched document
    /// defines.
    pub unresolved: usize,
    /// How far Fathom's own `CALLS` and `IMPORTS` agreed with the index in
    /// the files it covers, before it changed them.
    #[serde(default)]
    pub agreement: Agreement,
}

/// Reads `indexes` into `graph`, whose files are `files`; see the crate's
/// docs. The first index that covers a file is the one used for it.
pub fn apply(graph: &mut CodeGraph, files: &[ScipFile<'_>], indexes: &[ScipIndex]) -> ScipReport {
    let mut report = ScipReport::default();
    let used = match_documents(files, indexes, &mut report);
    let defined = define(files, &used, &mut report);
    let overloads = &defined.overloads;
    let Referenced { added, resolved_calls, index_calls, index_imports, references_elsewhere } =
        reference(graph, files, &used, &defined, &mut report);

    // Fathom's own CALLS edges in covered files: confirmed, dropped or kept.
    let covered: Vec<bool> = {
        let mut covered = vec![false; graph.files().len()];
        for (file, ..) in &used {
            if let Some(id) = graph.node(files[*file].nodes.module).file {
                covered[id.0 as usize] = true;
            }
        }
        covered
    };
    report.agreement = measure_agreement(graph, files, &covered, &index_calls, &index_imports, overloads);
    report.agreement.calls.references_elsewhere = references_elsewhere;
    let confirmed = judge(graph, &covered, &resolved_calls, overloads, &mut report);
    merge(graph, added, &confirmed, overloads, &mut report);
    report
}

/// A call of Fathom's the index confirmed: (edge, caller, callee, line).
type Confirmed = (fathom_graph::EdgeId, NodeId, NodeId, u32);

/// Pass 4: Fathom's own calls in covered files, at the sites the index
/// resolved: confirmed where it resolves them alike, dropped where it
/// resolves the name elsewhere, kept where it says nothing.
fn judge(
    graph: &mut CodeGraph,
    covered: &[bool],
    resolved_calls: &HashMap<(NodeId, u32), Vec<(String, NodeId)>>,
    overloads: &HashMap<NodeId, Vec<NodeId>>,
    report: &mut ScipReport,
) -> Vec<Confirmed> {
    let mut confirmed = Vec::new();
    let mut dropped = rustc_hash::FxHashSet::default();
    for (id, from, to, edge) in graph.edges() {
        if edge.kind != EdgeKind::Calls || edge.reason == Reason::Scip {
            continue;
        }
        let Some(file) = graph.node(from).file else { continue };
        let Some(line) = edge.line else { continue };
        if !covered[file.0 as usize] {
            continue;
        }
        let Some(calls) = resolved_calls.get(&(from, line)) else { continue };
        if calls.iter().any(|&(_, target)| same_callee(graph, overloads, to, target)) {
            confirmed.push((id, from, to, line));
        } else if calls.iter().any(|(written, _)| written_as(graph, to, written)) {
            dropped.insert(id);
        }
    }
    report.confirmed = confirmed.len();
    report.dropped = dropped.len();
    for &(id, ..) in &confirmed {
        let edge = graph.edge_mut(id);
        edge.reason = Reason::ScipConfirmed;
        edge.confidence = 1.0;
    }
    if !dropped.is_empty() {
        graph.retain_edges(|id, _, _, _| !dropped.contains(&id));
    }
    confirmed
}

/// Pass 5: the index's edges join the graph; one Fathom found too (a call
/// confirmed above, a base, an import) is marked confirmed instead.
fn merge(
    graph: &mut CodeGraph,
    added: Vec<(NodeId, NodeId, Edge)>,
    confirmed: &[Confirmed],
    overloads: &HashMap<NodeId, Vec<NodeId>>,
    report: &mut ScipReport,
) {
    let canonical: HashMap<NodeId, NodeId> =
        overloads.iter().flat_map(|(&last, all)| all.iter().map(move |&node| (node, last))).collect();
    // An external target is known by its dotted path: Fathom's nodes are
    // named `dataclasses.dataclass`, the index's
    // `python-stdlib@3.11:dataclasses.dataclass`.
    let key = |graph: &CodeGraph, from: NodeId, to: NodeId, edge: &Edge| {
        let line = matches!(edge.kind, EdgeKind::Calls | EdgeKind::Uses).then_some(edge.line).flatten();
        let node = graph.node(to);
        let to = match node.is_external {
            true => Err(external_path(&node.qualified_name).to_owned()),
            false => Ok(canonical.get(&to).copied().unwrap_or(to)),
        };
        (from, to, edge.kind, line)
    };
    let existing: rustc_hash::FxHashMap<_, fathom_graph::EdgeId> = graph
        .edges()
        .filter(|(_, _, _, e)| !e.kind.is_containment() && e.reason != Reason::Scip)
        .map(|(id, from, to, edge)| (key(graph, from, to, edge), id))
        .collect();
    let mut seen = rustc_hash::FxHashSet::default();
    let mut also_found = Vec::new();
    for (from, to, edge) in added {
        // A confirmed call to a constructor stands for the class's own entry.
        if edge.kind == EdgeKind::Calls
            && confirmed
                .iter()
                .any(|&(_, f, t, l)| f == from && Some(l) == edge.line && same_callee(graph, overloads, t, to))
        {
            continue;
        }
        let key = key(graph, from, to, &edge);
        if from == to || !seen.insert(key.clone()) {
            continue;
        }
        if let Some(&id) = existing.get(&key) {
            also_found.push(id);
            continue;
        }
        *report.added.entry(edge.kind.label().to_owned()).or_default() += 1;
        graph.add_edge(from, to, edge);
    }
    for id in also_found {
        let edge = graph.edge_mut(id);
        if edge.reason != Reason::ScipConfirmed {
            edge.reason = Reason::ScipConfirmed;
            edge.confidence = 1.0;
            report.confirmed += 1;
        }
    }
}

/// A document used, with its file's position and that file's line table.
type Used<'i, 't> = (usize, &'i Document, Lines<'t>);

/// Pass 1: each index's documents matched to files by path; a document of
/// another revision is set aside, named. The first index that covers a
/// file is the one used for it.
fn match_documents<'i, 't>(
    files: &[ScipFile<'t>],
    indexes: &'i [ScipIndex],
    report: &mut ScipReport,
) -> Vec<Used<'i, 't>> {
    let by_path: HashMap<&str, usize> = files.iter().enumerate().map(|(at, f)| (f.path, at)).collect();
    // The documents used, each with its file and that file's line table.
    let mut used: Vec<Used<'i, 't>> = Vec::new();
    let mut taken = vec![false; files.len()];
    for index in indexes {
        let mut source = ScipSource {
            name: index.name.clone(),
            tool: index.tool.clone(),
            version: index.version.clone(),
            documents: index.documents.len(),
            ..ScipSource::default()
        };
        for document in &index.documents {
            let Some(file) = match_path(&document.relative_path, &by_path) else {
                note(&mut source.unmatched, &mut source.unmatched_count, &document.relative_path);
                continue;
            };
            if taken[file] {
                continue;
            }
            let lines = Lines::new(files[file].text, encoding(document));
            if !same_revision(files[file].text, &lines, document) {
                note(&mut source.stale, &mut source.stale_count, &document.relative_path);
                continue;
            }
            taken[file] = true;
            source.matched += 1;
            used.push((file, document, lines));
        }
        report.sources.push(source);
    }
    used.sort_by_key(|(file, ..)| *file);
    report.covered = used.iter().map(|(file, ..)| files[*file].path.to_owned()).collect();
    report.covered.sort();

    used
}

/// The symbols the used documents define, with their nodes; overloads;
/// and the packages the project's own symbols name.
struct Defined<'i> {
    symbols: HashMap<&'i str, NodeId>,
    /// The implementation that stands for a symbol's overloads, and all of them.
    overloads: HashMap<NodeId, Vec<NodeId>>,
    packages: Vec<String>,
}

/// Pass 2: definitions matched to nodes by the byte where their name starts.
fn define<'i>(files: &[ScipFile<'_>], used: &[Used<'i, '_>], report: &mut ScipReport) -> Defined<'i> {
    // Every symbol defined in a used document, with its node.
    // Several nodes for one symbol are overloads (Python's `@overload`
    // stubs, TypeScript's signatures): the last, the implementation, stands
    // for them, and an edge to any of them is the same edge.
    let mut symbols: HashMap<&'i str, NodeId> = HashMap::new();
    let mut overloads: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    let mut project_packages: Vec<String> = Vec::new();
    for (file, document, lines) in used {
        let file = &files[*file];
        let starts: HashMap<u32, usize> =
            file.facts.definitions.iter().enumerate().map(|(at, d)| (d.name_span.start_byte, at)).collect();
        for occurrence in &document.occurrences {
            if is_local(&occurrence.symbol) || occurrence.symbol.is_empty() {
                continue;
            }
            if occurrence.symbol_roles & (SymbolRole::Definition as i32) == 0 {
                // scip-python reads a redefinition (an `@overload`'s next
                // signature) as a reference to the first: where it names a
                // definition of Fathom's, that node is the same symbol's.
                let Some((start, end)) = lines.range(occurrence) else { continue };
                let Some(&at) = starts.get(&(start as u32)) else { continue };
                if file.facts.definitions[at].name != file.text[start..end] {
                    continue;
                }
                let node = file.nodes.definitions[at];
                if let Some(&previous) = symbols.get(occurrence.symbol.as_str())
                    && previous != node
                {
                    symbols.insert(occurrence.symbol.as_str(), node);
                    let mut all = overloads.remove(&previous).unwrap_or_else(|| vec![previous]);
                    all.push(node);
                    overloads.insert(node, all);
                }
                continue;
            }
            let Ok(symbol) = scip::symbol::parse_symbol(&occurrence.symbol) else { continue };
            if let Some(package) = symbol.package.as_ref().map(|p| p.name.clone())
                && !project_packages.contains(&package)
            {
                project_packages.push(package);
            }
            let last = symbol.descriptors.last().map(|d| d.suffix.enum_value_or_default());
            if matches!(last, Some(Suffix::Parameter | Suffix::TypeParameter | Suffix::Local | Suffix::Meta)) {
                continue;
            }
            let Some((start, end)) = lines.range(occurrence) else { continue };
            let node = if start == end {
                Some(file.nodes.module) // a module's own definition, at its first byte
            } else {
                starts.get(&(start as u32)).map(|&at| file.nodes.definitions[at])
            };
            match node {
                Some(node) => {
                    if let Some(previous) = symbols.insert(occurrence.symbol.as_str(), node)
                        && previous != node
                    {
                        let mut all = overloads.remove(&previous).unwrap_or_else(|| vec![previous]);
                        all.push(node);
                        overloads.insert(node, all);
                    }
                    report.definitions += 1;
                }
                None => report.definitions_unmatched += 1,
            }
        }
    }

    Defined { symbols, overloads, packages: project_packages }
}

/// What the references of the used documents say.
struct Referenced {
    /// The edges they give: (from, to, edge).
    added: Vec<(NodeId, NodeId, Edge)>,
    /// Call sites resolved: (caller, line) → (name as written, target).
    resolved_calls: HashMap<(NodeId, u32), Vec<(String, NodeId)>>,
    /// The same calls, and the imports of the project's own definitions,
    /// as the agreement reads them.
    index_calls: Vec<agreement::IndexCall>,
    index_imports: HashSet<(NodeId, NodeId)>,
    /// References to the project's functions where the parse has no call.
    references_elsewhere: usize,
}

/// Pass 3: each reference becomes an edge by what Fathom's parse has at its
/// place; relationships become supertypes and overrides. Symbols outside
/// the documents become external nodes.
fn reference(
    graph: &mut CodeGraph,
    files: &[ScipFile<'_>],
    used: &[Used<'_, '_>],
    defined: &Defined<'_>,
    report: &mut ScipReport,
) -> Referenced {
    let mut added: Vec<(NodeId, NodeId, Edge)> = Vec::new();
    // Symbols outside the documents used, each looked up once (parsing a
    // symbol string is slow: 8 µs).
    let mut outside: HashMap<&str, Option<NodeId>> = HashMap::new();
    // Call sites the index resolved: (caller, line) → (name as written, target).
    let mut resolved_calls: HashMap<(NodeId, u32), Vec<(String, NodeId)>> = HashMap::new();
    // The same calls as the agreement reads them, and the imports of the
    // project's own definitions.
    let mut index_calls: Vec<agreement::IndexCall> = Vec::new();
    let mut index_imports: HashSet<(NodeId, NodeId)> = HashSet::new();
    let Defined { symbols, packages: project_packages, .. } = defined;
    let mut references_elsewhere = 0;
    for (file_at, document, lines) in used {
        let file = &files[*file_at];
        let facts = file.facts;
        for occurrence in &document.occurrences {
            if occurrence.symbol_roles & (SymbolRole::Definition as i32) != 0
                || is_local(&occurrence.symbol)
                || occurrence.symbol.is_empty()
            {
                continue;
            }
            let Some((start, end)) = lines.range(occurrence) else { continue };
            // 1-based; the range read, so its line is one of the text's.
            let line = u32::try_from(occurrence.range[0]).unwrap_or(0) + 1;
            let written = &file.text[start..end];
            let internal = symbols.get(occurrence.symbol.as_str()).copied();
            let offset = start as u32;
            let call = call_at(facts, offset, written);
            let (kind, from) = if facts.imports.iter().any(|i| i.span.start_byte <= offset && offset < i.span.end_byte)
            {
                (EdgeKind::Imports, file.nodes.module)
            } else if let Some(call) = call {
                (EdgeKind::Calls, call.caller.map_or(file.nodes.module, |at| file.nodes.definitions[at]))
            } else if internal
                .is_some_and(|node| matches!(graph.node(node).kind, SymbolKind::Field | SymbolKind::GlobalVariable))
            {
                (EdgeKind::Uses, enclosing(facts, offset).map_or(file.nodes.module, |at| file.nodes.definitions[at]))
            } else {
                // A type annotation, a function passed as a value or named
                // by a decorator: no call site of Fathom's is there, so the
                // agreement's recall cannot count it; it counts how many.
                if internal
                    .is_some_and(|node| matches!(graph.node(node).kind, SymbolKind::Function | SymbolKind::Method))
                {
                    references_elsewhere += 1;
                }
                continue;
            };
            let target = match internal {
                Some(node) => node,
                None => match outside.entry(occurrence.symbol.as_str()) {
                    std::collections::hash_map::Entry::Occupied(known) => match *known.get() {
                        Some(node) => node,
                        None => {
                            report.unresolved += 1;
                            continue;
                        }
                    },
                    std::collections::hash_map::Entry::Vacant(slot) => {
                        match *slot.insert(external(graph, &occurrence.symbol, project_packages, file.language)) {
                            Some(node) => node,
                            None => {
                                report.unresolved += 1;
                                continue;
                            }
                        }
                    }
                },
            };
            let mut edge = Edge::inferred(kind, 1.0, Reason::Scip, Some(line));
            match kind {
                EdgeKind::Calls if !callable(graph, target) => continue,
                EdgeKind::Calls => {
                    resolved_calls.entry((from, line)).or_default().push((written.to_owned(), target));
                    index_calls.push(agreement::IndexCall {
                        from,
                        line,
                        written: written.to_owned(),
                        receiver: call.and_then(|c| c.receiver).map(|r| facts.name(r).to_owned()),
                        target,
                    });
                }
                EdgeKind::Imports if internal.is_some() => {
                    index_imports.insert((from, target));
                }
                EdgeKind::Uses => {
                    let write = occurrence.symbol_roles & (SymbolRole::WriteAccess as i32) != 0;
                    edge.access = Some(if write { Access::Write } else { Access::Read });
                }
                _ => {}
            }
            added.push((from, target, edge));
        }
        // Supertypes and overridden methods. scip-typescript lists every
        // ancestor: where the parse read a class's bases, only those count.
        let definition_of: HashMap<NodeId, usize> =
            file.nodes.definitions.iter().enumerate().map(|(at, &node)| (node, at)).collect();
        for information in &document.symbols {
            let Some(&from) = symbols.get(information.symbol.as_str()) else { continue };
            let bases = definition_of.get(&from).map_or(&[][..], |&at| &facts.definitions[at].bases[..]);
            for relationship in information.relationships.iter().filter(|r| r.is_implementation) {
                let to = match symbols.get(relationship.symbol.as_str()) {
                    Some(&node) => Some(node),
                    None => *outside
                        .entry(relationship.symbol.as_str())
                        .or_insert_with(|| external(graph, &relationship.symbol, project_packages, file.language)),
                };
                let Some(to) = to else { continue };
                let named = |base: &fathom_model::BaseRef| {
                    base.name.rsplit(['.', ':']).next().is_some_and(|last| last == graph.node(to).name)
                };
                if graph.node(from).kind == SymbolKind::Class && !bases.is_empty() && !bases.iter().any(named) {
                    continue;
                }
                let kind = match graph.node(from).kind {
                    SymbolKind::Class => match graph.node(to).class_kind {
                        Some(ClassKind::Interface | ClassKind::Protocol | ClassKind::Trait) => EdgeKind::Implements,
                        _ => EdgeKind::Inherits,
                    },
                    SymbolKind::Method | SymbolKind::Function => EdgeKind::Overrides,
                    _ => continue,
                };
                added.push((from, to, Edge::inferred(kind, 1.0, Reason::Scip, None)));
            }
        }
    }

    Referenced { added, resolved_calls, index_calls, index_imports, references_elsewhere }
}

/// [`agreement::measure`] over the graph as Fathom resolved it.
fn measure_agreement(
    graph: &CodeGraph,
    files: &[ScipFile<'_>],
    covered: &[bool],
    calls: &[agreement::IndexCall],
    imports: &HashSet<(NodeId, NodeId)>,
    overloads: &HashMap<NodeId, Vec<NodeId>>,
) -> Agreement {
    let by_file: HashMap<u32, usize> =
        files.iter().enumerate().filter_map(|(at, f)| graph.node(f.nodes.module).file.map(|id| (id.0, at))).collect();
    let file_of = |node: NodeId| graph.node(node).file.and_then(|id| by_file.get(&id.0)).map(|&at| &files[at]);
    // A plain name the caller's file imports from a module other than the
    // one whose file defines it.
    // A module as its file's stem (`views`), and as an import names it
    // (`..shop.views`, `./views`: its last segment).
    let stem = |path: &'_ str| path.rsplit('/').next().unwrap_or(path).split('.').next().unwrap_or(path).to_owned();
    let named = |source: &str| source.rsplit(['.', '/']).find(|s| !s.is_empty()).map(str::to_owned);
    let imported_from_elsewhere = |from: NodeId, written: &str, target: NodeId| {
        let (Some(file), Some(path)) = (file_of(from), graph.path_of(target)) else { return false };
        let module = stem(path);
        file.facts
            .imports
            .iter()
            .any(|i| i.local_name() == Some(written) && named(&i.source).is_some_and(|m| m != module))
    };
    let decorated = |target: NodeId| {
        file_of(target).is_some_and(|file| {
            file.nodes
                .definitions
                .iter()
                .position(|&n| n == target)
                .is_some_and(|at| !file.facts.definitions[at].decorators.is_empty())
        })
    };
    // An `export ... from` (or, in Python, an import in a package's
    // `__init__`) of the target's module or name.
    let reexported = |from: NodeId, target: NodeId| {
        let Some(file) = file_of(from) else { return false };
        let name = graph.node(target).name.as_str();
        let module = graph.path_of(target).map(stem);
        let package = file.path.ends_with("__init__.py");
        file.facts.imports.iter().any(|i| {
            (i.reexport || package)
                && (i.name.as_deref() == Some(name) || named(&i.source).is_some_and(|m| Some(m) == module))
        })
    };
    let lookups = agreement::Lookups {
        same_callee: &|ours, theirs| same_callee(graph, overloads, ours, theirs),
        written_as: &|ours, written| written_as(graph, ours, written),
        imported_from_elsewhere: &imported_from_elsewhere,
        decorated: &decorated,
        reexported: &reexported,
    };
    agreement::measure(graph, covered, calls, imports, &lookups)
}

/// A symbol local to its document (`local 3`, `local 13(kw)`, which the
/// `scip` crate's parser refuses).
fn is_local(symbol: &str) -> bool {
    symbol.starts_with("local ")
}

fn note(list: &mut Vec<String>, count: &mut usize, path: &str) {
    *count += 1;
    if list.len() < NAMED {
        list.push(path.to_owned());
    }
}

/// The file a document's path names: the same path, or, where the index
/// was made from a parent or a child folder of the archive's root, the one
/// file whose path ends the other.
fn match_path(relative: &str, by_path: &HashMap<&str, usize>) -> Option<usize> {
    let relative = relative.trim_start_matches("./");
    if let Some(&file) = by_path.get(relative) {
        return Some(file);
    }
    // The index's root above the archive's: drop its leading folders.
    let mut rest = relative;
    while let Some((_, tail)) = rest.split_once('/') {
        if let Some(&file) = by_path.get(tail) {
            return Some(file);
        }
        rest = tail;
    }
    // The archive's root above the index's: one path that ends with it.
    let suffix = format!("/{relative}");
    let mut found = by_path.iter().filter(|(path, _)| path.ends_with(&suffix));
    match (found.next(), found.next()) {
        (Some((_, &file)), None) => Some(file),
        _ => None,
    }
}

/// Whether the document is of this file's revision: its definitions name
/// what the file has at their places (at least 4 in 5 of them).
fn same_revision(text: &str, lines: &Lines<'_>, document: &Document) -> bool {
    let (mut checked, mut agreed) = (0usize, 0usize);
    for occurrence in &document.occurrences {
        if occurrence.symbol_roles & (SymbolRole::Definition as i32) == 0 || is_local(&occurrence.symbol) {
            continue;
        }
        let Ok(symbol) = scip::symbol::parse_symbol(&occurrence.symbol) else { continue };
        let Some(last) = symbol.descriptors.last() else { continue };
        // A meta descriptor is the indexer's own name for something unnamed
        // (scip-typescript's `errorThrown0:` for an object literal's key).
        if last.suffix.enum_value_or_default() == Suffix::Meta {
            continue;
        }
        // scip-typescript names a constructor `<constructor>`.
        let name = last.name.trim_start_matches('<').trim_end_matches('>');
        let range = lines.range(occurrence);
        if range.is_some_and(|(start, end)| start == end) {
            continue; // a module's definition names no text
        }
        checked += 1;
        if range.is_some_and(|(start, end)| &text[start..end] == name) {
            agreed += 1;
        }
    }
    agreed * 5 >= checked * 4
}

/// How a document counts columns. Unstated, as scip-python and
/// scip-typescript leave it, they are UTF-16 code units, as in the
/// Language Server Protocol that both tools build on.
fn encoding(document: &Document) -> PositionEncoding {
    match document.position_encoding.enum_value_or_default() {
        PositionEncoding::UnspecifiedPositionEncoding => PositionEncoding::UTF16CodeUnitOffsetFromLineStart,
        other => other,
    }
}

/// A text's lines, to turn SCIP's (line, column) into byte offsets.
struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
    encoding: PositionEncoding,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str, encoding: PositionEncoding) -> Lines<'t> {
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(at, _)| at + 1)).collect();
        Lines { text, starts, encoding }
    }

    /// An occurrence's byte range; `None` where it lies outside the text.
    fn range(&self, occurrence: &Occurrence) -> Option<(usize, usize)> {
        let (start_line, start_column, end_line, end_column) = match *occurrence.range.as_slice() {
            [line, start, end] => (line, start, line, end),
            [start_line, start, end_line, end] => (start_line, start, end_line, end),
            _ => return None,
        };
        let start = self.offset(start_line, start_column)?;
        let end = self.offset(end_line, end_column)?;
        (start <= end).then_some((start, end))
    }

    fn offset(&self, line: i32, column: i32) -> Option<usize> {
        let line = usize::try_from(line).ok()?;
        let column = usize::try_from(column).ok()?;
        let start = *self.starts.get(line)?;
        let end = self.starts.get(line + 1).map_or(self.text.len(), |&next| next);
        let text = &self.text[start..end];
        let within = match self.encoding {
            PositionEncoding::UTF8CodeUnitOffsetFromLineStart => column,
            PositionEncoding::UTF32CodeUnitOffsetFromLineStart => {
                text.char_indices().nth(column).map_or(text.len(), |(at, _)| at)
            }
            _ => {
                let mut units = 0;
                let mut at = text.len();
                for (byte, c) in text.char_indices() {
                    if units >= column {
                        at = byte;
                        break;
                    }
                    units += c.len_utf16();
                }
                at
            }
        };
        (within <= text.len() && text.is_char_boundary(within)).then_some(start + within)
    }
}

/// The innermost call site whose called name is the text at `offset`.
fn call_at<'f>(facts: &'f FileFacts, offset: u32, written: &str) -> Option<&'f fathom_model::CallSite> {
    facts
        .calls
        .iter()
        .filter(|c| c.span.start_byte <= offset && offset < c.span.end_byte && facts.name(c.name) == written)
        .min_by_key(|c| c.span.end_byte - c.span.start_byte)
}

/// The innermost definition around `offset`.
fn enclosing(facts: &FileFacts, offset: u32) -> Option<usize> {
    facts
        .definitions
        .iter()
        .enumerate()
        .filter(|(_, d)| d.span.start_byte <= offset && offset < d.span.end_byte)
        .min_by_key(|(_, d)| d.span.end_byte - d.span.start_byte)
        .map(|(at, _)| at)
}

fn callable(graph: &CodeGraph, node: NodeId) -> bool {
    matches!(graph.node(node).kind, SymbolKind::Function | SymbolKind::Method | SymbolKind::Class)
}

/// Whether Fathom's callee `ours` is the index's `theirs`: the same node, a
/// constructor of that class, or the same external symbol.
fn same_callee(graph: &CodeGraph, overloads: &HashMap<NodeId, Vec<NodeId>>, ours: NodeId, theirs: NodeId) -> bool {
    if ours == theirs
        || overloads.get(&theirs).is_some_and(|all| all.contains(&ours))
        || graph.parent(ours) == Some(theirs) && is_constructor(graph, ours)
    {
        return true;
    }
    let (a, b) = (graph.node(ours), graph.node(theirs));
    a.is_external && b.is_external && external_path(&b.qualified_name).ends_with(a.qualified_name.as_str())
}

fn is_constructor(graph: &CodeGraph, node: NodeId) -> bool {
    graph.node(node).details.as_ref().is_some_and(|d| d.is_constructor)
}

/// Whether a call written `written` could be the call Fathom resolved to
/// `ours`: it bears that name, or, for a constructor, its class's.
fn written_as(graph: &CodeGraph, ours: NodeId, written: &str) -> bool {
    let node = graph.node(ours);
    node.name == written
        || is_constructor(graph, ours) && graph.parent(ours).is_some_and(|class| graph.node(class).name == written)
}

/// The node for a symbol outside the documents used: an external one
/// (`package@version:dotted.path`) for another package's symbol; `None` for
/// one of the project's own packages that no document used defines, or
/// an unreadable symbol.
fn external(graph: &mut CodeGraph, symbol: &str, project: &[String], language: Language) -> Option<NodeId> {
    let parsed = scip::symbol::parse_symbol(symbol).ok()?;
    let package = parsed.package.as_ref()?;
    if project.contains(&package.name) {
        return None;
    }
    let descriptors = &parsed.descriptors;
    let last = descriptors.last()?;
    let kind = match last.suffix.enum_value_or_default() {
        Suffix::Type => SymbolKind::Class,
        Suffix::Method
            if descriptors.len() > 1
                && descriptors[descriptors.len() - 2].suffix.enum_value_or_default() == Suffix::Type =>
        {
            SymbolKind::Method
        }
        Suffix::Method => SymbolKind::Function,
        Suffix::Term => SymbolKind::GlobalVariable,
        Suffix::Namespace => SymbolKind::Module,
        _ => return None,
    };
    let dotted: Vec<&str> =
        descriptors.iter().map(|d| d.name.as_str()).filter(|n| !n.is_empty() && *n != "__init__").collect();
    let name = match package.version.as_str() {
        "" | "." => format!("{}:{}", package.name, dotted.join(".")),
        version => format!("{}@{}:{}", package.name, version, dotted.join(".")),
    };
    Some(graph.external(kind, &name, language))
}

/// The dotted path of an external node named by [`external`].
fn external_path(qualified: &str) -> &str {
    qualified.split_once(':').map_or(qualified, |(_, path)| path)
}
