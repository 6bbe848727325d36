//! Shared helpers: fixture and corpus paths, zipping folders, a silent observer, and a
//! text outline of a graph for golden tests.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

use fathom_engine::{Index, Observer, Options, Stage};
use zip::write::SimpleFileOptions;

pub struct Recorder {
    pub stages: Vec<(Stage, usize, usize)>,
}

impl Recorder {
    pub fn new() -> Recorder {
        Recorder { stages: Vec::new() }
    }
}

impl Observer for Recorder {
    fn now_ms(&self) -> f64 {
        0.0
    }
    fn progress(&mut self, stage: Stage, done: usize, total: usize) {
        self.stages.push((stage, done, total));
    }
}

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name)
}

/// A pinned real project unpacked by `scripts/corpora.sh`, under
/// `$FATHOM_CORPORA` or `~/.cache/fathom/corpora`; missing, the test fails
/// and says how to fetch it.
pub fn corpus(name: &str) -> PathBuf {
    let corpora = std::env::var_os("FATHOM_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/fathom/corpora"));
    let dir = corpora.join(name);
    assert!(dir.is_dir(), "{} is missing: run scripts/corpora.sh (make test does)", dir.display());
    dir
}

/// Zips a folder under a top-level `prefix/`, as GitHub archives do.
pub fn zip_folder(dir: &Path, prefix: &str) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let mut stack = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() { stack.push(path) } else { files.push(path) }
        }
    }
    files.sort();
    for path in files {
        let name = format!("{prefix}/{}", path.strip_prefix(dir).unwrap().to_string_lossy());
        writer.start_file(name, SimpleFileOptions::default()).unwrap();
        writer.write_all(&std::fs::read(&path).unwrap()).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

pub fn index_dir(dir: &Path) -> Index {
    fathom_engine::index_dir(dir, &Options::default(), &mut Recorder::new()).unwrap()
}

/// A node's qualified name, with its parameter types when it is a callable
/// whose name is overloaded, so that edges show which overload they reach.
pub fn display_name(index: &Index, id: fathom_graph::NodeId) -> String {
    let graph = index.graph();
    let node = graph.node(id);
    let overloaded = node.kind.is_callable()
        && graph.parent(id).is_some_and(|p| {
            let contained = |e: &fathom_graph::Edge| {
                matches!(e.kind, fathom_graph::EdgeKind::Contains | fathom_graph::EdgeKind::HasMethod)
            };
            graph.outgoing(p).filter(|(e, sibling)| contained(e) && graph.node(*sibling).name == node.name).count() > 1
        });
    match node.details.as_ref().filter(|_| overloaded) {
        Some(details) => {
            let params: Vec<&str> =
                details.parameters.iter().map(|p| p.type_name.as_deref().unwrap_or(&p.text)).collect();
            format!("{}({})", node.qualified_name, params.join(", "))
        }
        None => node.qualified_name.clone(),
    }
}

/// Every node (with its key properties) and every edge (with its type,
/// confidence, reason and line), in a stable order.
pub fn outline(index: &Index) -> String {
    let graph = index.graph();
    let mut lines = Vec::new();
    for (id, node) in graph.nodes() {
        let place = match graph.path_of(id) {
            Some(path) => format!("{path}:{}-{}", node.span.start_line, node.span.end_line),
            None if node.is_external => "external".to_owned(),
            None => "folder".to_owned(),
        };
        let mut line = format!("{} {} @ {place}", node.kind.label(), node.qualified_name);
        if let Some(class_kind) = node.class_kind.filter(|_| !node.is_external) {
            line += &format!(" kind={}", class_kind.name());
        }
        if let Some(d) = &node.details {
            if d.is_constructor {
                line += " ctor";
            }
            if d.is_test {
                line += " test";
            }
            if let Some(reason) = d.synthesized {
                line += &format!(" synthesized={reason}");
            }
            if node.kind.is_callable() && !d.parameters.is_empty() {
                let params: Vec<&str> = d.parameters.iter().map(|p| p.text.as_str()).collect();
                line += &format!(" params={params:?}");
            }
            if let Some(cc) = d.complexity {
                line += &format!(" cc={cc}");
            }
        }
        lines.push(line);
        for (edge, target) in graph.outgoing(id) {
            let mut e = format!("    -{}-> {}", edge.kind.label(), display_name(index, target));
            if edge.reason != fathom_graph::Reason::Syntax {
                e += &format!(" ({:.2} {}", edge.confidence, edge.reason.name());
                if let Some(line) = edge.line {
                    e += &format!(" L{line}");
                }
                if let Some(access) = edge.access {
                    e += &format!(" {access:?}");
                }
                e += ")";
            }
            lines.push(e);
        }
    }
    lines.join("\n")
}
