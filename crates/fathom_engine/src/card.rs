//! Feature cards: one answer to "how does X work" built from search and the
//! graph, with no language model. A card holds the best symbols for the
//! question, the edges that connect them (directly, or through one symbol in
//! between), their code cited to exact lines, the tests that reach them, a
//! few sentences on the structure read off the graph, and a Markdown
//! rendering sized to a token budget, to paste into any LLM as context.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

use fathom_graph::{CodeGraph, EdgeKind, NodeId};
use fathom_model::SymbolKind;
use fathom_query::{Hop, NodeRef, Reached, hop};
use serde::Serialize;

use crate::{Index, SearchMode, SearchOptions};

/// How many symbols a card is about.
const TOP: usize = 6;
/// How many in-between symbols may join the card to connect its symbols.
const CONNECTORS: usize = 4;
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
    pub symbols: Vec<CardSymbol>,
    /// Symbols that are not among the best but connect two of them.
    pub connectors: Vec<NodeRef>,
    /// Edges among the card's symbols and connectors.
    pub edges: Vec<Hop>,
    /// Tests that reach the card's symbols through calls (3 hops at most).
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
        let budget = budget.max(MIN_BUDGET);
        let graph = &self.graph;
        let options = SearchOptions { k: TOP * 3, ..SearchOptions::default() };
        // The ranking's own node ids: no snippets to build, no names to
        // resolve back to nodes.
        let ranking = self.rank(query, &options, query_vector);
        // The best definitions, a file or package standing in only when no
        // definition matched.
        // Overloads are one entry, the best-ranked, with their count.
        let mut picked: Vec<(NodeId, f64)> = Vec::new();
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
            picked.push((hit.node, crate::round5(hit.score)));
            if picked.len() == TOP {
                break;
            }
        }
        let top: Vec<NodeId> = picked.iter().map(|(id, _)| *id).collect();
        let (edges, connectors) = connect(graph, &top);
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
        let summary = summarize(graph, &top, &edges, &connectors, &tests);
        let mut card = FeatureCard {
            query: query.to_owned(),
            mode: ranking.mode,
            symbols,
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

/// The definitions beside `id` in its parent with its name and kind: its
/// overloads, itself included (1 where it has none).
fn overloads(graph: &CodeGraph, id: NodeId) -> usize {
    let node = graph.node(id);
    let Some(parent) = graph.parent(id) else { return 1 };
    let mut same: Vec<NodeId> = graph
        .outgoing(parent)
        .map(|(_, child)| child)
        .filter(|&child| {
            let other = graph.node(child);
            other.kind == node.kind && other.qualified_name == node.qualified_name
        })
        .collect();
    same.sort_unstable();
    same.dedup();
    same.len().max(1)
}

/// Edges among `top`, and the symbols (not in `top`) adjacent to two or more
/// of them, with their edges: a call chain `a -> x -> b` shows through `x`.
fn connect(graph: &CodeGraph, top: &[NodeId]) -> (Vec<Hop>, Vec<NodeId>) {
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
            } else if !graph.node(other).is_external {
                touching.entry(other).or_default().insert(id);
            }
        }
        for (edge, other) in graph.incoming(id) {
            if DEPENDENCIES.contains(&edge.kind) && !in_top.contains(&other) && !graph.node(other).is_external {
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
    if !tests.is_empty() {
        let names: Vec<String> = tests.iter().take(4).map(|t| format!("`{}`", t.node.qualified_name)).collect();
        out.push(format!(
            "{} test{} reach{} them, such as {}.",
            tests.len(),
            if tests.len() == 1 { "" } else { "s" },
            if tests.len() == 1 { "es" } else { "" },
            join(&names)
        ));
    } else if !top.iter().all(|&id| fathom_search::retrieval::is_test(graph, id)) {
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

fn first_paragraph(doc: &str) -> String {
    doc.trim().split("\n\n").next().unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Writes the Markdown: the summary, the relations and the symbols' code in
/// rank order, each cited. Code that does not fit the budget is cut (its
/// head kept, the cut said) or, when even that does not fit, left out and
/// listed.
fn render(card: &mut FeatureCard) {
    let mut head = String::new();
    let _ = writeln!(head, "# {}\n", card.query.trim());
    let _ = writeln!(head, "Context from Fathom's code graph. Every path is `file:start-end`.\n");
    let _ = writeln!(head, "## Structure\n");
    let sentences: Vec<String> = card.summary.iter().map(|s| format!("- {s}")).collect();
    push_limited(&mut head, &sentences, card.budget * 2 / 5, "sentences");
    // The summary, relations and tests take at most half the budget; the
    // code the rest, less room for the note on what was left out.
    let half = card.budget / 2;
    if !card.edges.is_empty() {
        let _ = writeln!(head, "\n## Relations\n");
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
        push_limited(&mut head, &lines, half, "relations");
    }
    if !card.tests.is_empty() {
        let _ = writeln!(head, "\n## Tests\n");
        let lines: Vec<String> =
            card.tests.iter().map(|t| format!("- `{}` — {}", t.node.qualified_name, cite(&t.node))).collect();
        push_limited(&mut head, &lines, half, "tests");
    }
    let _ = writeln!(head, "\n## Code\n");
    let mut text = head;
    let mut omitted = Vec::new();
    for s in &card.symbols {
        let overloads = if s.overloads > 1 { format!(", 1 of {} overloads", s.overloads) } else { String::new() };
        let title =
            format!("### `{}` ({}{overloads}) — {}\n", s.symbol.qualified_name, s.symbol.kind.name(), cite(&s.symbol));
        let doc = s.doc.as_ref().map_or(String::new(), |d| format!("{d}\n"));
        // Room for the closing note, should it name every symbol.
        let reserve = 12 + card.symbols.iter().map(|s| estimate_tokens(&s.symbol.qualified_name) + 2).sum::<usize>();
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
    card.tokens = estimate_tokens(&text);
    card.markdown = text;
    card.omitted_code = omitted;
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
