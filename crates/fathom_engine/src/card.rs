//! Feature cards: one answer to "how does X work" built from search and the
//! graph, with no language model. A card leads with the definitions that
//! implement the behaviour and what each does (signature, doc comment, code
//! cited to exact lines), then gives the public entry points that reach
//! them, the settings that change them (builder and options types, config
//! keys and environment variables their code reads), where they sit (their
//! directory and the directories it depends on and is used by), the edges
//! that connect them, and their tests, last. Every statement is read off a
//! graph edge or a line of code. A Markdown rendering sized to a token
//! budget goes into any LLM as context.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::LazyLock;

use fathom_graph::{CodeGraph, EdgeKind, NodeId};
use fathom_model::{SymbolKind, Visibility};
use fathom_query::{Hop, NodeRef, Reached, hop};
use fathom_search::retrieval::{Intent, is_runnable_test, is_test, is_test_path};
use fathom_search::roles::Role;
use regex::Regex;
use serde::Serialize;

use crate::{ChunkVectors, Index, SearchMode, SearchOptions};

/// How many symbols a card is about.
const TOP: usize = 6;
/// How many in-between symbols may join the card to connect its symbols.
const CONNECTORS: usize = 4;
/// How many calls up from a card's definition an entry point may be.
const ENTRY_HOPS: usize = 3;
/// At most this many entry points, settings and neighbouring directories.
const ENTRY_POINTS: usize = 5;
const SETTINGS: usize = 8;
const NEIGHBOURS: usize = 3;
/// A definition's doc, as the card gives it, is at most this long.
const DOC_CHARS: usize = 320;
/// Callers visited per definition while looking for entry points.
const ENTRY_VISITS: usize = 400;
/// Edges that say how code depends on code (containment is shown by the
/// citations instead).
const DEPENDENCIES: [EdgeKind; 7] = [
    EdgeKind::Calls,
    EdgeKind::Uses,
    EdgeKind::Inherits,
    EdgeKind::Implements,
    EdgeKind::Overrides,
    EdgeKind::Imports,
    EdgeKind::Decorates,
];
/// A budget below this cannot hold a useful card.
pub const MIN_BUDGET: usize = 200;

#[derive(Clone, Debug, Serialize)]
pub struct FeatureCard {
    pub query: String,
    /// The search mode that ran (hybrid runs as lexical until embeddings
    /// are ready).
    pub mode: SearchMode,
    /// The definitions that implement what the question asks, best first.
    /// Tests, docs and examples lead only where the question asks for them,
    /// or where the search put one first (a question naming a test helper).
    pub symbols: Vec<CardSymbol>,
    /// Public definitions with no caller in the project's own code that
    /// reach the symbols through calls: where a user of the code comes in.
    pub entry_points: Vec<EntryPoint>,
    /// What changes the symbols' behaviour: builder and options types
    /// linked to them, config keys and environment variables their code reads.
    pub settings: Vec<Setting>,
    /// The directory most of the symbols live in, and its neighbours.
    pub placement: Option<Placement>,
    /// The entry points, settings and placement as the card says them, one
    /// sentence each (the page and the Markdown show the same words).
    pub sentences: Sentences,
    /// Symbols that are not among the best but connect two of them.
    pub connectors: Vec<NodeRef>,
    /// Edges among the card's symbols and connectors.
    pub edges: Vec<Hop>,
    /// Tests that reach the card's symbols through calls (3 hops at most),
    /// then tests that matched the question themselves (`depth` 0).
    pub tests: Vec<Reached>,
    /// Sentences on the structure, each read off the graph.
    pub summary: Vec<String>,
    /// The card as Markdown for an LLM, cut to the budget.
    pub markdown: String,
    /// The Markdown's size in estimated tokens, and the budget it was cut to.
    pub tokens: usize,
    pub budget: usize,
    /// Symbols whose code did not fit the budget (cited, without code).
    pub omitted_code: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CardSymbol {
    pub symbol: NodeRef,
    pub score: f64,
    pub signature: Option<String>,
    /// The docstring's first paragraph.
    pub doc: Option<String>,
    pub language: String,
    pub code: Option<String>,
    /// How many definitions share its name and kind in its class or
    /// module (overloads), itself included; the card shows the best-ranked.
    pub overloads: usize,
}

/// A public definition that reaches some of the card's symbols through calls.
#[derive(Clone, Debug, Serialize)]
pub struct EntryPoint {
    pub symbol: NodeRef,
    /// The card's symbols it reaches (qualified names), in the card's order.
    pub reaches: Vec<String>,
    /// Calls from it to the nearest of them; 0 where it is one of them.
    pub calls: usize,
}

/// Something that changes how the card's symbols behave.
#[derive(Clone, Debug, Serialize)]
pub struct Setting {
    /// A type's qualified name, a config key or an environment variable.
    pub name: String,
    /// `"type"` (a builder, options or configuration type), `"key"` (a key
    /// read from a configuration object) or `"environment"`.
    pub kind: &'static str,
    /// Where it is defined (a type) or read (a key).
    pub file: String,
    pub line: u32,
    /// The card's symbol that uses it or whose code reads it.
    pub used_by: String,
}

/// Where the card's symbols sit: their directory and the directories it
/// depends on and is used by (calls, imports, uses and inheritance between
/// their files, tests and docs left out).
#[derive(Clone, Debug, Serialize)]
pub struct Placement {
    /// The directory most of the symbols live in ("" at the root).
    pub directory: String,
    /// Files of the project's own code in it.
    pub files: usize,
    /// The other directories the symbols live in.
    pub also: Vec<String>,
    pub depends_on: Vec<DirectoryLink>,
    pub used_by: Vec<DirectoryLink>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Sentences {
    pub entry_points: Vec<String>,
    pub settings: Vec<String>,
    pub placement: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DirectoryLink {
    pub directory: String,
    /// Dependency edges between the two directories' files, that way.
    pub edges: usize,
}

/// Tokens in `text`, estimated as an LLM's BPE tokenizer counts code: about
/// one token per four bytes, and never fewer than one per word.
pub fn estimate_tokens(text: &str) -> usize {
    let words = text.split_whitespace().count();
    text.len().div_ceil(4).max(words)
}

impl Index {
    /// Builds the card for `query`: `query_vector` is its embedding, for
    /// hybrid search once the dense index is ready. `budget` caps the
    /// Markdown in estimated tokens.
    pub fn feature_card(&self, query: &str, query_vector: Option<&[f32]>, budget: usize) -> FeatureCard {
        self.feature_card_with(query, query_vector, None, budget)
    }

    /// [`Index::feature_card`] on the ranking [`Index::search_with`] gives
    /// with MiniLM's vectors for the question's candidates, so that the card
    /// is about what the search put first.
    pub fn feature_card_with(
        &self,
        query: &str,
        query_vector: Option<&[f32]>,
        candidates: Option<&ChunkVectors>,
        budget: usize,
    ) -> FeatureCard {
        let budget = budget.max(MIN_BUDGET);
        let graph = &self.graph;
        let roles = self.retrieval().roles();
        let options = SearchOptions { k: TOP * 3, ..SearchOptions::default() };
        // The ranking's own node ids: no snippets to build, no names to
        // resolve back to nodes.
        let ranking = self.rank(query, &options, query_vector, candidates);
        // Tests, docs and examples are evidence. The search already ranks
        // them below the code unless the question asks for them or names
        // one; where it still put one first, the card follows it.
        let aside = |path: &str| matches!(roles.of(path).role, Role::Test | Role::Docs) || is_test_path(path);
        let evidence = |id: NodeId| is_runnable_test(graph, id) || graph.path_of(id).is_some_and(aside);
        let intent = Intent::of(query);
        let implementation_leads = !intent.tests
            && !intent.examples
            && ranking.hits.first().is_some_and(|h| !evidence(h.node))
            && !ranking.hits.iter().all(|h| evidence(h.node));
        // The best definitions, a file or package standing in only when no
        // definition matched. Overloads are one entry, the best-ranked, with
        // their count.
        let mut picked: Vec<(NodeId, f64)> = Vec::new();
        let mut matched_tests: Vec<NodeId> = Vec::new();
        for hit in &ranking.hits {
            let node = graph.node(hit.node);
            let stand_in = matches!(node.kind, SymbolKind::Module | SymbolKind::Package) && ranking.hits.len() > TOP;
            let overload = picked.iter().any(|&(id, _)| {
                let other = graph.node(id);
                other.kind == node.kind && other.qualified_name == node.qualified_name
            });
            if stand_in || overload {
                continue;
            }
            if implementation_leads && evidence(hit.node) {
                if is_test(graph, hit.node) {
                    matched_tests.push(hit.node);
                }
                continue;
            }
            if picked.len() < TOP {
                picked.push((hit.node, crate::round5(hit.score)));
            }
        }
        let top: Vec<NodeId> = picked.iter().map(|(id, _)| *id).collect();
        // Tests connect the code they call; they are listed as tests.
        let (edges, connectors) = connect(graph, &top, &|id| implementation_leads && evidence(id));
        let contexts: Vec<fathom_query::SymbolContext> =
            top.iter().map(|&id| fathom_query::symbol(graph, id)).collect();
        let mut tests: Vec<Reached> = Vec::new();
        for context in &contexts {
            for test in &context.tests {
                if !tests.iter().any(|t| t.node.id == test.node.id) {
                    tests.push(test.clone());
                }
            }
        }
        tests.sort_by(|a, b| a.depth.cmp(&b.depth).then(b.confidence.total_cmp(&a.confidence)));
        tests.truncate(10);
        // Tests the question matched, after those that reach the code.
        for &id in matched_tests.iter().take(4) {
            if tests.len() < 12 && !tests.iter().any(|t| t.node.id == id.index() as u32) {
                tests.push(Reached { node: NodeRef::new(graph, id), depth: 0, confidence: 1.0, path: Vec::new() });
            }
        }
        let symbols: Vec<CardSymbol> = picked
            .iter()
            .zip(&contexts)
            .map(|(&(id, score), context)| CardSymbol {
                symbol: context.symbol.clone(),
                score,
                signature: context.signature.clone(),
                doc: context.docstring.as_deref().map(first_paragraph),
                language: graph.node(id).language.name().to_owned(),
                code: self.code(id).map(str::to_owned),
                overloads: overloads(graph, id),
            })
            .collect();
        let entry_points = entry_points(graph, &top, &evidence);
        let settings = settings(graph, &symbols, &top);
        let placement = placement(graph, &top, &aside);
        let summary = summarize(graph, &top, &edges, &connectors, &tests);
        let sentences = Sentences {
            entry_points: entry_points.iter().map(entry_sentence).collect(),
            settings: settings.iter().map(setting_sentence).collect(),
            placement: placement.as_ref().map(placement_sentences).unwrap_or_default(),
        };
        let mut card = FeatureCard {
            query: query.to_owned(),
            mode: ranking.mode,
            symbols,
            entry_points,
            settings,
            placement,
            sentences,
            connectors: connectors.iter().map(|&id| NodeRef::new(graph, id)).collect(),
            edges,
            tests,
            summary,
            markdown: String::new(),
            tokens: 0,
            budget,
            omitted_code: Vec::new(),
        };
        render(&mut card);
        card
    }
}

/// Whether a user of the code may call `id`: not private or internal by its
/// language's marks, nor named private by convention (`_helper`).
fn is_public(graph: &CodeGraph, id: NodeId) -> bool {
    let node = graph.node(id);
    let marked = node.details.as_ref().and_then(|d| d.visibility);
    let underscored = node.name.starts_with('_') && !(node.name.starts_with("__") && node.name.ends_with("__"));
    !matches!(marked, Some(Visibility::Private | Visibility::Internal)) && !underscored
}

/// The public definitions, within [`ENTRY_HOPS`] calls above each of `top`,
/// that nothing in the project's own code calls (tests, docs and examples
/// do not count as callers): most of `top` reached first, then the nearest.
fn entry_points(graph: &CodeGraph, top: &[NodeId], evidence: &dyn Fn(NodeId) -> bool) -> Vec<EntryPoint> {
    // Each entry point's distance from each of `top` it reaches.
    let mut found: BTreeMap<NodeId, BTreeMap<usize, usize>> = BTreeMap::new();
    for (i, &start) in top.iter().enumerate() {
        let mut seen = HashSet::from([start]);
        let mut frontier = vec![start];
        for depth in 0..=ENTRY_HOPS {
            let mut next = Vec::new();
            for &id in &frontier {
                let callers: Vec<NodeId> = graph
                    .incoming(id)
                    .filter(|(edge, caller)| {
                        edge.kind == EdgeKind::Calls
                            && *caller != id
                            && !graph.node(*caller).is_external
                            && !evidence(*caller)
                    })
                    .map(|(_, caller)| caller)
                    .collect();
                if callers.is_empty() {
                    // Functions and methods: a class is entered through its
                    // constructor, a module by importing it.
                    if is_public(graph, id) && matches!(graph.node(id).kind, SymbolKind::Function | SymbolKind::Method)
                    {
                        found.entry(id).or_default().entry(i).or_insert(depth);
                    }
                } else if depth < ENTRY_HOPS {
                    for caller in callers {
                        if seen.len() < ENTRY_VISITS && seen.insert(caller) {
                            next.push(caller);
                        }
                    }
                }
            }
            frontier = next;
        }
    }
    // One of `top` that reaches others is said by those; one that reaches
    // only itself is an entry point at 0 calls.
    let mut ranked: Vec<(NodeId, usize, BTreeSet<usize>)> = found
        .into_iter()
        .map(|(id, reached)| {
            let others: BTreeMap<usize, usize> =
                reached.iter().filter(|&(_, &d)| d > 0).map(|(&i, &d)| (i, d)).collect();
            let reached = if others.is_empty() { reached } else { others };
            let calls = reached.values().copied().min().unwrap_or(0);
            (id, calls, reached.into_keys().collect())
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.2.len()
            .cmp(&a.2.len())
            .then(a.1.cmp(&b.1))
            .then(graph.fan_in(b.0).cmp(&graph.fan_in(a.0)))
            .then(a.0.cmp(&b.0))
    });
    ranked
        .into_iter()
        .take(ENTRY_POINTS)
        .map(|(id, calls, reaches)| EntryPoint {
            symbol: NodeRef::new(graph, id),
            reaches: reaches.into_iter().map(|i| graph.node(top[i]).qualified_name.clone()).collect(),
            calls,
        })
        .collect()
}

/// A type that configures others, by the conventions of its name:
/// `GsonBuilder`, `ClientOptions`, `Config`, `Settings`, `BuildParameters`.
static SETTINGS_TYPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(builder|options?|config|configuration|settings|preferences|params|parameters|flags)$")
        .expect("the pattern compiles")
});
/// An environment variable read: `os.environ["X"]`, `os.getenv("X")`,
/// `std::env::var("X")`, `System.getenv("X")`, `process.env.X`, `os.Getenv("X")`.
static ENVIRONMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"\b(?:getenv|Getenv|LookupEnv|environ(?:\.get)?|env::var(?:_os)?|process\.env)\s*(?:\(\s*|\[\s*|\.)["'`]?([A-Za-z_][A-Za-z0-9_]*)"#,
    )
    .expect("the pattern compiles")
});
/// A key read from a configuration object: `app.config["DEBUG"]`,
/// `self.options.get("timeout")`, `settings.getProperty("x")`,
/// `System.getProperty("x")`.
static CONFIG_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\b(?:config|conf|cfg|settings|options|opts|props|properties|preferences|system)\s*(?:\[\s*|\.get\w*\(\s*)["']([A-Za-z_][\w.\-]*)["']"#,
    )
    .expect("the pattern compiles")
});

/// The settings of the card's symbols: builder, options and configuration
/// types (classes, structs, interfaces) one dependency edge away from a
/// symbol or its class; then the config keys and environment variables each
/// symbol's code reads, with their lines.
fn settings(graph: &CodeGraph, symbols: &[CardSymbol], top: &[NodeId]) -> Vec<Setting> {
    let mut out: Vec<Setting> = Vec::new();
    let mut named = HashSet::new();
    let mut push = |setting: Setting, out: &mut Vec<Setting>| {
        if out.len() < SETTINGS && named.insert((setting.kind, setting.name.clone())) {
            out.push(setting);
        }
    };
    for (&id, symbol) in top.iter().zip(symbols) {
        let mut near: Vec<NodeId> = Vec::new();
        let owner = graph.parent(id).filter(|&p| graph.node(p).kind == SymbolKind::Class);
        for at in std::iter::once(id).chain(owner) {
            near.extend(graph.outgoing(at).filter(|(e, _)| DEPENDENCIES.contains(&e.kind)).map(|(_, n)| n));
            near.extend(graph.incoming(at).filter(|(e, _)| DEPENDENCIES.contains(&e.kind)).map(|(_, n)| n));
        }
        // A method of a configuring type reads as its type.
        let near = near.into_iter().map(|n| match graph.node(n).kind {
            SymbolKind::Method | SymbolKind::Field => graph.parent(n).unwrap_or(n),
            _ => n,
        });
        let mut near: Vec<NodeId> = near
            .filter(|&n| {
                let node = graph.node(n);
                n != id && !node.is_external && node.kind == SymbolKind::Class && SETTINGS_TYPE.is_match(&node.name)
            })
            .collect();
        near.sort_unstable();
        near.dedup();
        for n in near {
            let node = graph.node(n);
            push(
                Setting {
                    name: node.qualified_name.clone(),
                    kind: "type",
                    file: graph.path_of(n).unwrap_or_default().to_owned(),
                    line: node.span.start_line,
                    used_by: symbol.symbol.qualified_name.clone(),
                },
                &mut out,
            );
        }
        let Some(code) = &symbol.code else { continue };
        let file = symbol.symbol.file.clone().unwrap_or_default();
        for (offset, line) in code.lines().enumerate() {
            let at = symbol.symbol.start_line + offset as u32;
            for (pattern, kind) in [(&*ENVIRONMENT, "environment"), (&*CONFIG_KEY, "key")] {
                for found in pattern.captures_iter(line) {
                    push(
                        Setting {
                            name: found[1].to_owned(),
                            kind,
                            file: file.clone(),
                            line: at,
                            used_by: symbol.symbol.qualified_name.clone(),
                        },
                        &mut out,
                    );
                }
            }
        }
    }
    out
}

fn directory_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The directory most of `top` live in (the best-ranked's on a tie), its
/// files, and the directories its files depend on and are used by, by the
/// dependency edges between their files; test and docs files (`excluded`)
/// count on neither side.
fn placement(graph: &CodeGraph, top: &[NodeId], excluded: &dyn Fn(&str) -> bool) -> Option<Placement> {
    let dirs: Vec<&str> = top.iter().filter_map(|&id| graph.path_of(id)).map(directory_of).collect();
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for &dir in &dirs {
        match counts.iter_mut().find(|(d, _)| *d == dir) {
            Some((_, n)) => *n += 1,
            None => counts.push((dir, 1)),
        }
    }
    // Stable: the first of the most common in rank order.
    let (directory, _) = counts.iter().copied().rev().max_by_key(|&(_, n)| n)?;
    let also: Vec<String> =
        counts.iter().filter(|(d, _)| *d != directory).map(|(d, _)| d.to_string()).take(NEIGHBOURS).collect();
    // Each file's directory, or none where it is excluded: judged once per
    // file, not once per edge.
    let dir_of: Vec<Option<&str>> =
        graph.files().iter().map(|f| (!excluded(&f.path)).then(|| directory_of(&f.path))).collect();
    let files = dir_of.iter().filter(|d| **d == Some(directory)).count();
    let node_dir = |id: NodeId| graph.node(id).file.and_then(|f| dir_of[f.0 as usize]);
    let mut depends_on: HashMap<&str, usize> = HashMap::new();
    let mut used_by: HashMap<&str, usize> = HashMap::new();
    for (_, from, to, edge) in graph.edges() {
        if !DEPENDENCIES.contains(&edge.kind) {
            continue;
        }
        let (Some(da), Some(db)) = (node_dir(from), node_dir(to)) else { continue };
        if da == db {
            continue;
        }
        if da == directory {
            *depends_on.entry(db).or_default() += 1;
        } else if db == directory {
            *used_by.entry(da).or_default() += 1;
        }
    }
    let strongest = |links: HashMap<&str, usize>| -> Vec<DirectoryLink> {
        let mut links: Vec<(&str, usize)> = links.into_iter().collect();
        links.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        links.into_iter().take(NEIGHBOURS).map(|(d, n)| DirectoryLink { directory: d.to_owned(), edges: n }).collect()
    };
    Some(Placement {
        directory: directory.to_owned(),
        files,
        also,
        depends_on: strongest(depends_on),
        used_by: strongest(used_by),
    })
}

/// The definitions beside `id` in its parent with its name and kind: its
/// overloads, itself included (1 where it has none). A declaration of one
/// of them (`void area();` in its class) is not another overload.
fn overloads(graph: &CodeGraph, id: NodeId) -> usize {
    let node = graph.node(id);
    let Some(parent) = graph.parent(id) else { return 1 };
    let mut same: Vec<NodeId> = graph
        .outgoing(parent)
        .map(|(_, child)| child)
        .filter(|&child| {
            let other = graph.node(child);
            other.kind == node.kind && other.qualified_name == node.qualified_name && graph.declared(child).is_none()
        })
        .collect();
    same.sort_unstable();
    same.dedup();
    same.len().max(1)
}

/// Edges among `top`, and the symbols (not in `top`, nor `left_out`)
/// adjacent to two or more of them, with their edges: a call chain
/// `a -> x -> b` shows through `x`.
fn connect(graph: &CodeGraph, top: &[NodeId], left_out: &dyn Fn(NodeId) -> bool) -> (Vec<Hop>, Vec<NodeId>) {
    let in_top: HashSet<NodeId> = top.iter().copied().collect();
    let mut edges = Vec::new();
    let mut touching: HashMap<NodeId, HashSet<NodeId>> = HashMap::new();
    for &id in top {
        for (edge, other) in graph.outgoing(id) {
            if !DEPENDENCIES.contains(&edge.kind) || other == id {
                continue;
            }
            if in_top.contains(&other) {
                edges.push(hop(graph, id, other, edge));
            } else if !graph.node(other).is_external && !left_out(other) {
                touching.entry(other).or_default().insert(id);
            }
        }
        for (edge, other) in graph.incoming(id) {
            if DEPENDENCIES.contains(&edge.kind)
                && !in_top.contains(&other)
                && !graph.node(other).is_external
                && !left_out(other)
            {
                touching.entry(other).or_default().insert(id);
            }
        }
    }
    let mut connectors: Vec<(NodeId, usize)> =
        touching.into_iter().filter(|(_, ends)| ends.len() >= 2).map(|(id, ends)| (id, ends.len())).collect();
    connectors.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    connectors.truncate(CONNECTORS);
    let connectors: Vec<NodeId> = connectors.into_iter().map(|(id, _)| id).collect();
    for &x in &connectors {
        for (edge, other) in graph.outgoing(x) {
            if DEPENDENCIES.contains(&edge.kind) && in_top.contains(&other) {
                edges.push(hop(graph, x, other, edge));
            }
        }
        for (edge, other) in graph.incoming(x) {
            if DEPENDENCIES.contains(&edge.kind) && in_top.contains(&other) {
                edges.push(hop(graph, other, x, edge));
            }
        }
    }
    edges.sort_by_key(|a| (a.from.id, a.to.id, a.edge));
    edges.dedup_by(|a, b| a.from.id == b.from.id && a.to.id == b.to.id && a.edge == b.edge);
    (edges, connectors)
}

/// Sentences a reader can check against the graph: where the code lives,
/// which symbol leads (calls most of the others), what the classes inherit,
/// how widely the code is used, and which tests reach it.
fn summarize(
    graph: &CodeGraph,
    top: &[NodeId],
    edges: &[Hop],
    connectors: &[NodeId],
    tests: &[Reached],
) -> Vec<String> {
    let mut out = Vec::new();
    if top.is_empty() {
        out.push("Nothing in the repository matches this question.".to_owned());
        return out;
    }
    let name = |id: NodeId| format!("`{}`", graph.node(id).qualified_name);
    let mut files: BTreeMap<&str, usize> = BTreeMap::new();
    for &id in top {
        *files.entry(graph.path_of(id).unwrap_or("?")).or_default() += 1;
    }
    let mut by_count: Vec<(&str, usize)> = files.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let listed: Vec<String> = by_count.iter().map(|(f, n)| format!("`{f}` ({n})")).collect();
    out.push(format!(
        "The {} best-matching definitions live in {} file{}: {}.",
        top.len(),
        by_count.len(),
        if by_count.len() == 1 { "" } else { "s" },
        listed.join(", ")
    ));
    // The lead: the symbol with the most outgoing dependency edges within
    // the card.
    let mut outgoing: HashMap<u32, Vec<&Hop>> = HashMap::new();
    for edge in edges.iter().filter(|e| e.edge == EdgeKind::Calls) {
        outgoing.entry(edge.from.id).or_default().push(edge);
    }
    if let Some((_, calls)) = outgoing.iter().max_by(|a, b| a.1.len().cmp(&b.1.len()).then(b.0.cmp(a.0))) {
        let from = &calls[0].from.qualified_name;
        let mut callees: Vec<String> = calls.iter().map(|h| format!("`{}`", h.to.qualified_name)).collect();
        callees.dedup();
        out.push(format!("`{from}` leads: it calls {}.", join(&callees)));
    }
    for &x in connectors {
        let linked: Vec<String> = edges
            .iter()
            .filter(|e| e.from.id == x.index() as u32 || e.to.id == x.index() as u32)
            .map(|e| if e.from.id == x.index() as u32 { &e.to } else { &e.from })
            .map(|n| format!("`{}`", n.qualified_name))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        out.push(format!("{} connects {}.", name(x), join(&linked)));
    }
    for edge in edges.iter().filter(|e| matches!(e.edge, EdgeKind::Inherits | EdgeKind::Implements)) {
        let verb = if edge.edge == EdgeKind::Inherits { "extends" } else { "implements" };
        out.push(format!("`{}` {verb} `{}`.", edge.from.qualified_name, edge.to.qualified_name));
    }
    if let Some(&most) = top.iter().max_by_key(|&&id| (graph.fan_in(id), std::cmp::Reverse(id)))
        && graph.fan_in(most) >= 2
    {
        out.push(format!("{} is the most used: {} callers in the repository.", name(most), graph.fan_in(most)));
    }
    let reaching: Vec<&Reached> = tests.iter().filter(|t| t.depth > 0).collect();
    if !reaching.is_empty() {
        let names: Vec<String> = reaching.iter().take(4).map(|t| format!("`{}`", t.node.qualified_name)).collect();
        out.push(format!(
            "{} test{} reach{} them, such as {}.",
            reaching.len(),
            plural(reaching.len()),
            if reaching.len() == 1 { "es" } else { "" },
            join(&names)
        ));
    } else if !top.iter().all(|&id| is_test(graph, id)) {
        // A card made of tests has nothing to say of tests that reach it.
        out.push("No test reaches these symbols through calls.".to_owned());
    }
    // Every sentence once: two symbols of one name (overloads, or a class
    // and its amalgamated copy) must not say the same thing twice.
    let mut seen = HashSet::new();
    out.retain(|sentence| seen.insert(sentence.clone()));
    out
}

fn join(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// What a doc comment says first, as plain text: its first paragraph (up to
/// a blank line, a Javadoc `<p>` or its first `@param`-style tag), inline
/// tags read as their text (`{@code Date}` as `Date`), markup dropped, and
/// at most [`DOC_CHARS`] characters, cut after a sentence where one ends.
fn first_paragraph(doc: &str) -> String {
    static INLINE_TAG: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\{@(code|link|linkplain|literal|value)\s+([^}]*)\}").expect("the pattern compiles")
    });
    static MARKUP: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"</?[A-Za-z][^>]*>").expect("the pattern compiles"));
    let doc = doc.trim();
    let mut end = doc.find("\n\n").unwrap_or(doc.len());
    for mark in ["<p>", "<P>", "\n@", "\n * @"] {
        if let Some(at) = doc.find(mark).filter(|&at| at > 0) {
            end = end.min(at);
        }
    }
    if doc.starts_with('@') {
        end = 0;
    }
    let text = INLINE_TAG.replace_all(&doc[..end], |c: &regex::Captures| {
        // `{@link Type#method label}` reads as its label, else its target;
        // `{@code new Gson()}` as its code.
        let inner = c[2].trim();
        match &c[1] {
            "link" | "linkplain" => {
                let shown = inner.split_once(' ').map_or(inner, |(_, label)| label.trim());
                shown.trim_start_matches('#').replace('#', ".")
            }
            _ => inner.to_owned(),
        }
    });
    let text = MARKUP.replace_all(&text, "");
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.len() <= DOC_CHARS {
        return text;
    }
    let cut = &text[..text.floor_char_boundary(DOC_CHARS)];
    match cut.rfind(". ") {
        Some(at) if at > DOC_CHARS / 3 => cut[..=at].to_owned(),
        _ => format!("{}…", cut.trim_end()),
    }
}

/// Writes the Markdown in the card's order: the implementing definitions
/// with their code, then entry points, settings, placement, structure,
/// relations and tests. The sections after the code take at most half the
/// budget (each cut where it would pass its share, the cut said); the code
/// the rest: cut to its head, or, when even that does not fit, left out and
/// listed.
fn render(card: &mut FeatureCard) {
    let mut head = String::new();
    let _ = writeln!(head, "# {}\n", card.query.trim());
    let _ = writeln!(head, "Context from Fathom's code graph. Every path is `file:start-end`.\n");
    let mut rest = String::new();
    let share = |tenths: usize| card.budget * tenths / 10;
    let bullets = |sentences: &[String]| -> Vec<String> { sentences.iter().map(|s| format!("- {s}")).collect() };
    for (heading, sentences, tenths, what) in [
        ("Entry points", &card.sentences.entry_points, 1, "entry points"),
        ("Settings", &card.sentences.settings, 2, "settings"),
        ("Where it sits", &card.sentences.placement, 3, "sentences"),
    ] {
        if !sentences.is_empty() {
            let _ = writeln!(rest, "\n## {heading}\n");
            push_limited(&mut rest, &bullets(sentences), share(tenths), what);
        }
    }
    let _ = writeln!(rest, "\n## Structure\n");
    push_limited(&mut rest, &bullets(&card.summary), share(4), "sentences");
    if !card.edges.is_empty() {
        let _ = writeln!(rest, "\n## Relations\n");
        let lines: Vec<String> = card
            .edges
            .iter()
            .map(|e| {
                let at = e.line.map_or(String::new(), |l| format!(" at {}:{l}", e.from.file.as_deref().unwrap_or("?")));
                format!(
                    "- `{}` {} `{}` (confidence {:.2}{at})",
                    e.from.qualified_name,
                    e.edge.label(),
                    e.to.qualified_name,
                    e.confidence
                )
            })
            .collect();
        push_limited(&mut rest, &lines, card.budget * 9 / 20, "relations");
    }
    if !card.tests.is_empty() {
        let _ = writeln!(rest, "\n## Tests\n");
        let lines: Vec<String> = card
            .tests
            .iter()
            .map(|t| {
                let how = if t.depth == 0 { "matches the question".to_owned() } else { calls_to(t.depth as usize) };
                format!("- `{}` — {} ({how})", t.node.qualified_name, cite(&t.node))
            })
            .collect();
        push_limited(&mut rest, &lines, share(5), "tests");
    }
    let _ = writeln!(head, "## Implementation\n");
    let mut text = head;
    let mut omitted = Vec::new();
    // Room for the sections after the code, and for the closing note,
    // should it name every symbol.
    let reserve = estimate_tokens(&rest)
        + 12
        + card.symbols.iter().map(|s| estimate_tokens(&s.symbol.qualified_name) + 2).sum::<usize>();
    for s in &card.symbols {
        let overloads = if s.overloads > 1 { format!(", 1 of {} overloads", s.overloads) } else { String::new() };
        let title =
            format!("### `{}` ({}{overloads}) — {}\n", s.symbol.qualified_name, s.symbol.kind.name(), cite(&s.symbol));
        let doc = s.doc.as_ref().map_or(String::new(), |d| format!("{d}\n"));
        let used = estimate_tokens(&text) + reserve;
        let frame = estimate_tokens(&title) + estimate_tokens(&doc) + 8;
        let Some(code) = &s.code else {
            if used + frame <= card.budget {
                text.push_str(&title);
                text.push_str(&doc);
                text.push('\n');
            } else {
                omitted.push(s.symbol.qualified_name.clone());
            }
            continue;
        };
        let room = card.budget.saturating_sub(used + frame);
        let body = fit(code, room);
        if body.is_empty() {
            omitted.push(s.symbol.qualified_name.clone());
            continue;
        }
        let _ = write!(text, "{title}{doc}```{}\n{body}\n```\n\n", fence_language(&s.language));
    }
    if !omitted.is_empty() {
        let note = format!(
            "Left out for the token budget: {}.\n",
            omitted.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        );
        text.push_str(&note);
    }
    text.push_str(&rest);
    card.tokens = estimate_tokens(&text);
    card.markdown = text;
    card.omitted_code = omitted;
}

fn calls_to(depth: usize) -> String {
    format!("{depth} call{} away", if depth == 1 { "" } else { "s" })
}

/// "`Gson.toJson` (method) — `Gson.java:12-40`: reaches `a` and `b`, the nearest in 2 calls".
fn entry_sentence(entry: &EntryPoint) -> String {
    let what = format!("`{}` ({}) — {}", entry.symbol.qualified_name, entry.symbol.kind.name(), cite(&entry.symbol));
    if entry.calls == 0 {
        return format!("{what}: is itself public, and nothing in the project calls it");
    }
    let reaches: Vec<String> = entry.reaches.iter().map(|r| format!("`{r}`")).collect();
    let nearest = if reaches.len() > 1 { ", the nearest" } else { "" };
    format!("{what}: reaches {}{nearest} in {} call{}", join(&reaches), entry.calls, plural(entry.calls))
}

/// "`GsonBuilder` (type) — `gson/GsonBuilder.java:80`, used by `Gson`."
fn setting_sentence(setting: &Setting) -> String {
    let (what, verb) = match setting.kind {
        "type" => ("type", "used by"),
        "environment" => ("environment variable", "read by"),
        _ => ("config key", "read by"),
    };
    format!("`{}` ({what}) — {}:{}, {verb} `{}`", setting.name, setting.file, setting.line, setting.used_by)
}

/// Where the symbols live, and which directories depend on theirs.
fn placement_sentences(placement: &Placement) -> Vec<String> {
    let dir =
        if placement.directory.is_empty() { "the root".to_owned() } else { format!("`{}/`", placement.directory) };
    let mut out = vec![format!("They live in {dir} ({} source file{}).", placement.files, plural(placement.files))];
    if !placement.also.is_empty() {
        let also: Vec<String> = placement.also.iter().map(|d| format!("`{d}/`")).collect();
        out.push(format!("Others are in {}.", join(&also)));
    }
    let links = |links: &[DirectoryLink]| -> String {
        join(
            &links
                .iter()
                .map(|l| format!("`{}/` ({} edge{})", l.directory, l.edges, plural(l.edges)))
                .collect::<Vec<_>>(),
        )
    };
    if !placement.depends_on.is_empty() {
        out.push(format!("{dir} depends on {}.", links(&placement.depends_on)));
    }
    if !placement.used_by.is_empty() {
        out.push(format!("{dir} is used by {}.", links(&placement.used_by)));
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Appends `lines` while `text` stays within `limit` tokens, then one line
/// saying how many were left out.
fn push_limited(text: &mut String, lines: &[String], limit: usize, what: &str) {
    for (i, line) in lines.iter().enumerate() {
        if estimate_tokens(text) + estimate_tokens(line) > limit {
            let _ = writeln!(text, "- … {} more {what}", lines.len() - i);
            return;
        }
        text.push_str(line);
        text.push('\n');
    }
}

/// `code` whole when it fits in `room` tokens, else its first lines and a
/// line saying how many were cut; empty when not even a few lines fit.
fn fit(code: &str, room: usize) -> String {
    if estimate_tokens(code) <= room {
        return code.trim_end().to_owned();
    }
    let lines: Vec<&str> = code.lines().collect();
    let mut kept = String::new();
    for (i, line) in lines.iter().enumerate() {
        let marker = format!("    … {} more lines", lines.len() - i);
        if estimate_tokens(&kept) + estimate_tokens(line) + estimate_tokens(&marker) + 1 > room {
            if i < 3 {
                return String::new();
            }
            kept.push_str(&marker);
            return kept;
        }
        kept.push_str(line);
        kept.push('\n');
    }
    kept.trim_end().to_owned()
}

fn cite(node: &NodeRef) -> String {
    format!("{}:{}-{}", node.file.as_deref().unwrap_or("?"), node.start_line, node.end_line)
}

/// The Markdown fence name of a language.
fn fence_language(language: &str) -> &str {
    match language {
        "c_sharp" | "csharp" => "csharp",
        "tsx" => "tsx",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::first_paragraph;

    #[test]
    fn a_javadoc_reads_as_its_first_paragraph_in_plain_text() {
        let doc = "Configures Gson to serialize {@code Date} objects according to the pattern provided. \
You can call this method or {@link #setDateFormat(int)} multiple times.\n<p>The date format will be used \
to serialize and deserialize {@link java.util.Date}.</p>\n@param pattern the pattern";
        assert_eq!(
            first_paragraph(doc),
            "Configures Gson to serialize Date objects according to the pattern provided. \
You can call this method or setDateFormat(int) multiple times."
        );
        assert_eq!(
            first_paragraph("Use {@code new Gson()} or a {@link GsonBuilder builder}."),
            "Use new Gson() or a builder."
        );
        assert_eq!(first_paragraph("First.\n\nSecond."), "First.");
        let long = "A sentence that goes on. ".repeat(30);
        let cut = first_paragraph(&long);
        assert!(cut.len() <= super::DOC_CHARS && cut.ends_with('.'), "{cut}");
    }
}
