//! What indexing a repository produced, in the shape the CLI prints and the
//! page shows.

use std::collections::BTreeMap;

use fathom_archive::Skipped;
use fathom_graph::CodeGraph;
use fathom_model::SymbolKind;
use fathom_parse::SyntaxError;
use fathom_resolve::Stats;
use serde::{Deserialize, Serialize};

/// Read back from JSON (a split bundle's root keeps it so): the maps' keys
/// are the names their language, kind or edge type gives, and no other.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexSummary {
    pub archive: String,
    /// Source files parsed.
    pub files: usize,
    /// Definitions: graph nodes other than modules and packages.
    pub symbols: usize,
    pub edges: usize,
    /// Files parsed, by language name.
    #[serde(deserialize_with = "languages")]
    pub languages: BTreeMap<&'static str, usize>,
    /// Graph nodes defined in the archive, by kind name.
    #[serde(deserialize_with = "kinds")]
    pub kinds: BTreeMap<&'static str, usize>,
    /// Definitions (the `symbols`), by language.
    #[serde(deserialize_with = "languages")]
    pub symbols_by_language: BTreeMap<&'static str, usize>,
    /// Nodes standing for things outside the archive.
    pub external: usize,
    /// Edges by type.
    #[serde(deserialize_with = "edge_types")]
    pub edge_types: BTreeMap<&'static str, usize>,
    /// How many imports and calls resolved, and how.
    pub resolution: Stats,
    pub skipped: Vec<Skipped>,
    /// Files indexed despite a problem, such as invalid syntax.
    pub errors: Vec<FileError>,
    pub timings_ms: Timings,
    /// What SCIP indexes, where given, did to the graph (kept in a bundle's
    /// header).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scip: Option<fathom_scip::ScipReport>,
    /// What indexing planned for the heap after parsing, and what it took,
    /// where the budget names the heap and the heap is counted (not kept in
    /// a bundle).
    #[serde(skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub memory: Option<MemoryReport>,
}

/// A map of counts keyed by one of `names`, each key read as the name
/// itself; another key is refused.
fn named<'de, D: serde::Deserializer<'de>>(
    names: impl Iterator<Item = &'static str> + Clone,
    deserializer: D,
) -> Result<BTreeMap<&'static str, usize>, D::Error> {
    let read = BTreeMap::<String, usize>::deserialize(deserializer)?;
    read.into_iter()
        .map(|(key, count)| match names.clone().find(|name| *name == key) {
            Some(name) => Ok((name, count)),
            None => Err(serde::de::Error::custom(format!("`{key}` names nothing a summary counts"))),
        })
        .collect()
}

fn languages<'de, D: serde::Deserializer<'de>>(d: D) -> Result<BTreeMap<&'static str, usize>, D::Error> {
    named(fathom_model::Language::ALL.iter().chain(&[fathom_model::Language::Text]).map(|l| l.name()), d)
}

fn kinds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<BTreeMap<&'static str, usize>, D::Error> {
    named(SymbolKind::ALL.iter().map(|k| k.name()), d)
}

fn edge_types<'de, D: serde::Deserializer<'de>>(d: D) -> Result<BTreeMap<&'static str, usize>, D::Error> {
    named(fathom_graph::EdgeKind::ALL.iter().map(|k| k.label()), d)
}

/// The heap after parsing: what the stages after it were bounded by, and
/// what they took.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MemoryReport {
    /// The heap indexing may take.
    pub budget: u64,
    /// The heap's peak while reading and parsing.
    pub parse_peak: u64,
    /// What the heap held once parsing ended.
    pub parsed: u64,
    /// What every later stage would add at most, from the parses' counts
    /// ([`crate::cost`]).
    pub after: u64,
    /// The counts, over every file kept.
    pub counts: crate::cost::Counts,
    /// The heap's peak since parsing ended, where the caller measures it
    /// (`fathom index`, after writing the bundle).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak: Option<u64>,
}

/// Milliseconds spent in each stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    pub read: f64,
    pub parse: f64,
    pub graph: f64,
    pub resolve: f64,
    pub index: f64,
    pub total: f64,
}

/// A problem with one file. The file is still in the index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileError {
    pub path: String,
    pub message: String,
    pub line: Option<u32>,
}

impl FileError {
    pub(crate) fn new(path: &str, message: String, line: Option<u32>) -> Self {
        FileError { path: path.to_owned(), message, line }
    }

    pub(crate) fn syntax(path: &str, first: &SyntaxError, count: usize) -> Self {
        let more = match count {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        let message = format!("syntax error at {}:{}: {}{more}", first.line, first.column, first.message);
        FileError::new(path, message, Some(first.line))
    }
}

impl IndexSummary {
    pub(crate) fn new(
        archive: &str,
        graph: &CodeGraph,
        skipped: Vec<Skipped>,
        errors: Vec<FileError>,
        resolution: Stats,
        timings: Timings,
    ) -> Self {
        let mut languages = BTreeMap::new();
        for file in graph.files() {
            *languages.entry(file.language.name()).or_default() += 1;
        }
        let mut symbols_by_language = BTreeMap::new();
        for (_, node) in graph.nodes().filter(|(_, n)| !n.is_external && is_definition(n.kind)) {
            *symbols_by_language.entry(node.language.name()).or_default() += 1;
        }
        let counts = graph.kind_counts();
        let internal: usize = counts.values().sum();
        let containers: usize = counts.iter().filter(|(kind, _)| !is_definition(**kind)).map(|(_, n)| n).sum();
        IndexSummary {
            archive: archive.to_owned(),
            files: graph.files().len(),
            symbols: internal - containers,
            edges: graph.edge_count(),
            languages,
            kinds: counts.into_iter().map(|(kind, n)| (kind.name(), n)).collect(),
            symbols_by_language,
            external: graph.node_count() - internal,
            edge_types: graph.edge_counts().into_iter().map(|(kind, n)| (kind.label(), n)).collect(),
            resolution,
            skipped,
            errors,
            timings_ms: round(timings),
            scip: None,
            memory: None,
        }
    }
}

impl IndexSummary {
    /// The summary of an index read back from a bundle: the counts come from
    /// the graph again, the rest as it was recorded (timings already rounded).
    pub(crate) fn restore(
        archive: &str,
        graph: &CodeGraph,
        skipped: Vec<Skipped>,
        errors: Vec<FileError>,
        resolution: Stats,
        timings_ms: Timings,
    ) -> Self {
        IndexSummary { timings_ms, ..IndexSummary::new(archive, graph, skipped, errors, resolution, timings_ms) }
    }
}

/// Symbols are definitions: modules and packages only contain them.
fn is_definition(kind: SymbolKind) -> bool {
    !matches!(kind, SymbolKind::Module | SymbolKind::Package)
}

fn round(t: Timings) -> Timings {
    let r = |ms: f64| (ms * 100.0).round() / 100.0;
    Timings {
        read: r(t.read),
        parse: r(t.parse),
        graph: r(t.graph),
        resolve: r(t.resolve),
        index: r(t.index),
        total: r(t.total),
    }
}
