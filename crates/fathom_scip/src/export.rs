//! Fathom's graph written as a SCIP index, so that tools which read SCIP
//! can use it for languages that have no SCIP indexer.
//!
//! - Each file is a document; each of its definitions a definition
//!   occurrence at its name, with a symbol in the package `fathom . ARCHIVE .`
//!   whose descriptors are the file's path and the definition's containers
//!   (`` `shop/views.py`/ReceiptView#render(). ``). A module is defined at
//!   its first byte, as scip-python does.
//! - Each `CALLS`, `USES` or `IMPORTS` edge of at least the confidence asked
//!   for, to a definition of the project, is a reference at the name as
//!   written on the edge's line (a constructor by its class's name).
//! - `INHERITS`, `IMPLEMENTS` and `OVERRIDES` are `is_implementation`
//!   relationships; `DECLARES` is `is_definition` (go to definition from a
//!   prototype reaches its body).
//!
//! Edges to other packages are left out: Fathom knows their dotted path,
//! not the package and version a SCIP symbol names.

use std::collections::HashMap;

use fathom_graph::{CodeGraph, EdgeKind, NodeId};
use fathom_model::SymbolKind;
use protobuf::{EnumOrUnknown, Message, MessageField};
use scip::types::descriptor::Suffix;
use scip::types::{
    Descriptor, Document, Index, Metadata, Occurrence, Package, PositionEncoding, Relationship, Symbol,
    SymbolInformation, SymbolRole, TextEncoding, ToolInfo,
};

/// What an export wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exported {
    pub bytes: Vec<u8>,
    pub documents: usize,
    pub definitions: usize,
    pub references: usize,
    pub relationships: usize,
}

/// Writes `graph` as a SCIP index; `text(path)` gives each file's text.
/// `archive` names the package, `version` is Fathom's.
pub fn export(
    graph: &CodeGraph,
    text: &dyn Fn(&str) -> Option<String>,
    archive: &str,
    version: &str,
    min_confidence: f32,
) -> Exported {
    let package = archive.chars().map(|c| if c.is_whitespace() { '-' } else { c }).collect::<String>();
    let package = if package.is_empty() { "archive".to_owned() } else { package };
    let mut symbols: HashMap<NodeId, String> = HashMap::new();
    let mut symbol_of = |node: NodeId| -> Option<String> {
        if let Some(known) = symbols.get(&node) {
            return Some(known.clone());
        }
        let symbol = symbol(graph, node, &package)?;
        symbols.insert(node, symbol.clone());
        Some(symbol)
    };

    // Where each file's definitions and references go.
    let mut documents: Vec<Document> = graph
        .files()
        .iter()
        .map(|f| Document {
            relative_path: f.path.clone(),
            language: format!("{:?}", f.language),
            position_encoding: EnumOrUnknown::new(PositionEncoding::UTF8CodeUnitOffsetFromLineStart),
            ..Document::default()
        })
        .collect();
    let texts: Vec<Option<String>> = graph.files().iter().map(|f| text(&f.path)).collect();
    // Each text's line starts, so a byte's line is found, not counted.
    let starts: Vec<Vec<usize>> = texts
        .iter()
        .map(|t| {
            let t = t.as_deref().unwrap_or("");
            std::iter::once(0).chain(t.match_indices('\n').map(|(at, _)| at + 1)).collect()
        })
        .collect();
    let mut out = Exported::default();
    let mut information: HashMap<NodeId, (usize, usize)> = HashMap::new();

    for (node, n) in graph.nodes() {
        let (Some(file), false) = (n.file, n.is_external) else { continue };
        if matches!(n.kind, SymbolKind::Package) {
            continue;
        }
        let at = file.0 as usize;
        let Some(source) = texts[at].as_deref() else { continue };
        let range = if n.kind == SymbolKind::Module {
            vec![0, 0, 0]
        } else {
            match name_in(source, n.span.start_byte as usize, n.span.end_byte as usize, &n.name) {
                Some(start) => range_at(&starts[at], start, n.name.len()),
                None => continue,
            }
        };
        let Some(symbol) = symbol_of(node) else { continue };
        documents[at].occurrences.push(Occurrence {
            range,
            symbol: symbol.clone(),
            symbol_roles: SymbolRole::Definition as i32,
            ..Occurrence::default()
        });
        information.insert(node, (at, documents[at].symbols.len()));
        documents[at].symbols.push(SymbolInformation {
            symbol,
            display_name: n.name.clone(),
            ..SymbolInformation::default()
        });
        out.definitions += 1;
    }

    for (_, from, to, edge) in graph.edges() {
        if edge.confidence < min_confidence || !information.contains_key(&to) {
            continue;
        }
        match edge.kind {
            EdgeKind::Calls | EdgeKind::Uses | EdgeKind::Imports => {
                let (Some(file), Some(line)) = (graph.node(from).file, edge.line) else { continue };
                let at = file.0 as usize;
                let Some(source) = texts[at].as_deref() else { continue };
                let target = graph.node(to);
                // A constructor is called by its class's name, and the
                // reference is to the class, as SCIP's indexers write it.
                let constructor = target.details.as_ref().is_some_and(|d| d.is_constructor);
                let (written, referenced) = match graph.parent(to).filter(|_| constructor) {
                    Some(class) => (graph.node(class).name.as_str(), class),
                    None => (target.name.as_str(), to),
                };
                let Some(start) = name_on_line(source, &starts[at], line, written) else { continue };
                let Some(symbol) = symbol_of(referenced) else { continue };
                documents[at].occurrences.push(Occurrence {
                    range: range_at(&starts[at], start, written.len()),
                    symbol,
                    ..Occurrence::default()
                });
                out.references += 1;
            }
            EdgeKind::Inherits | EdgeKind::Implements | EdgeKind::Overrides | EdgeKind::Declares => {
                let (Some(&(at, i)), Some(symbol)) = (information.get(&from), symbol_of(to)) else { continue };
                let declares = edge.kind == EdgeKind::Declares;
                documents[at].symbols[i].relationships.push(Relationship {
                    symbol,
                    is_implementation: !declares,
                    is_definition: declares,
                    ..Relationship::default()
                });
                out.relationships += 1;
            }
            _ => {}
        }
    }

    documents.retain(|d| !d.occurrences.is_empty());
    for document in &mut documents {
        document.occurrences.sort_by(|a, b| a.range.cmp(&b.range).then_with(|| a.symbol.cmp(&b.symbol)));
        document.occurrences.dedup_by(|a, b| a.range == b.range && a.symbol == b.symbol);
    }
    out.documents = documents.len();
    let index = Index {
        metadata: MessageField::some(Metadata {
            tool_info: MessageField::some(ToolInfo {
                name: "fathom".to_owned(),
                version: version.to_owned(),
                ..ToolInfo::default()
            }),
            project_root: format!("file:///{package}"),
            text_document_encoding: EnumOrUnknown::new(TextEncoding::UTF8),
            ..Metadata::default()
        }),
        documents,
        ..Index::default()
    };
    out.bytes = index.write_to_bytes().expect("an index in memory encodes");
    out
}

/// A node's symbol: the package, then its file's path as namespaces, then
/// its containers below the module and itself.
fn symbol(graph: &CodeGraph, node: NodeId, package: &str) -> Option<String> {
    let file = graph.node(node).file?;
    let mut descriptors: Vec<Descriptor> =
        graph.file(file).path.split('/').map(|segment| descriptor(segment, Suffix::Namespace, String::new())).collect();
    let mut chain = Vec::new();
    let mut at = Some(node);
    while let Some(current) = at {
        let n = graph.node(current);
        if n.kind == SymbolKind::Module || n.file != Some(file) {
            break;
        }
        chain.push(current);
        at = graph.parent(current);
    }
    for &current in chain.iter().rev() {
        let n = graph.node(current);
        let suffix = match n.kind {
            SymbolKind::Class => Suffix::Type,
            SymbolKind::Function | SymbolKind::Method => Suffix::Method,
            _ => Suffix::Term,
        };
        // Overloads share a name: the byte each starts at tells them apart.
        let disambiguator = if suffix == Suffix::Method { n.span.start_byte.to_string() } else { String::new() };
        descriptors.push(descriptor(&n.name, suffix, disambiguator));
    }
    Some(scip::symbol::format_symbol(Symbol {
        scheme: "fathom".to_owned(),
        package: MessageField::some(Package {
            manager: ".".to_owned(),
            name: package.to_owned(),
            version: ".".to_owned(),
            ..Package::default()
        }),
        descriptors,
        ..Symbol::default()
    }))
}

fn descriptor(name: &str, suffix: Suffix, disambiguator: String) -> Descriptor {
    Descriptor { name: name.to_owned(), disambiguator, suffix: EnumOrUnknown::new(suffix), ..Descriptor::default() }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Where `name` stands as a whole word in `text[start..end]`, outside a
/// decorator (`@name.setter` comes before `def name`).
fn name_in(text: &str, start: usize, end: usize, name: &str) -> Option<usize> {
    let outside_decorator = |before: char, after: char| before == '@' || before == '.' || after == '.';
    word_in(text, start, end, name, &outside_decorator).or_else(|| word_in(text, start, end, name, &|_, _| false))
}

/// Where `name` stands as a whole word on 1-based `line`.
fn name_on_line(text: &str, starts: &[usize], line: u32, name: &str) -> Option<usize> {
    let start = *starts.get(line.checked_sub(1)? as usize)?;
    let end = starts.get(line as usize).map_or(text.len(), |&next| next);
    word_in(text, start, end, name, &|_, _| false)
}

/// The first place in `text[start..end]` where `name` stands as a whole
/// word and `refuse(the char before, the char after)` does not hold (a
/// text's edge reads as a space).
fn word_in(text: &str, start: usize, end: usize, name: &str, refuse: &dyn Fn(char, char) -> bool) -> Option<usize> {
    let slice = text.get(start..end.min(text.len()))?;
    slice.match_indices(name).map(|(at, _)| start + at).find(|&at| {
        let before = text[..at].chars().next_back().unwrap_or(' ');
        let after = text[at + name.len()..].chars().next().unwrap_or(' ');
        !is_word(before) && !is_word(after) && !refuse(before, after)
    })
}

/// A SCIP range (`[line, start, end]`, UTF-8 columns) for `len` bytes at
/// `at`, by the text's line starts.
fn range_at(starts: &[usize], at: usize, len: usize) -> Vec<i32> {
    let line = starts.partition_point(|&start| start <= at) - 1;
    let column = (at - starts[line]) as i32;
    vec![line as i32, column, column + len as i32]
}
