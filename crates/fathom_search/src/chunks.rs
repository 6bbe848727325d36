//! The units both indexes hold: one chunk per function, method and class,
//! overlapping windows over long bodies, and one chunk per module for its
//! top-level code.
//!
//! A chunk keeps only where its text is (a node and a line range); the text
//! is rebuilt from the file on demand, so the index never holds a second
//! copy of the sources.

use fathom_graph::{CodeGraph, NodeId};
use fathom_model::{LineStarts, SymbolKind};
use sha2::{Digest, Sha256};

use crate::tokens::in_word;

/// A window's size in characters of body text: about what MiniLM reads
/// (256 word pieces) of typical code.
pub const WINDOW_CHARS: usize = 1200;
/// Lines a window repeats from the end of the one before it.
pub const OVERLAP_LINES: usize = 3;
/// Windows past this many are not made: the first ones carry a function's
/// purpose, and a generated 5,000-line function would otherwise dominate.
pub const MAX_WINDOWS: usize = 24;
/// The characters a file's function and method chunks may hold, as a
/// multiple of the file's size (plus [`MIN_FILE_CHUNK_CHARS`]). Ordinary
/// code stays far under it, as a nested function's lines are counted again
/// only in the few functions around it; 5,000 functions nested one in the
/// next would repeat every line thousands of times. Past it, a function gets
/// its first window only.
pub const FILE_CHUNK_FACTOR: usize = 4;
pub const MIN_FILE_CHUNK_CHARS: usize = 1 << 16;

/// Which part of its symbol a chunk covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "part", content = "index")]
pub enum Part {
    /// The whole function or method.
    Whole,
    /// One window of a long body, counted from 0.
    Window(u16),
    /// A class: its header, fields and the names of its members.
    Outline,
    /// A module's top-level code (imports, globals, statements).
    TopLevel,
}

/// Its text is rebuilt when asked for ([`text`]), and so is its key in the
/// embedding cache ([`hash`]): indexing never hashes, so an index is
/// searchable before any chunk is hashed, and one that is never embedded
/// never hashes at all.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(from = "StoredChunk", into = "StoredChunk")]
pub struct Chunk {
    pub node: NodeId,
    pub part: Part,
    /// 1-based, inclusive: the lines of the file this chunk's body covers.
    pub start_line: u32,
    pub end_line: u32,
}

/// A chunk as an index bundle stores it. The last field held the chunk's
/// hash when indexing computed it; it is written empty and not read, so
/// bundles keep their format.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct StoredChunk {
    node: NodeId,
    #[serde(with = "stored_part")]
    part: Part,
    start_line: u32,
    end_line: u32,
    hash: String,
}

impl From<StoredChunk> for Chunk {
    fn from(stored: StoredChunk) -> Chunk {
        let StoredChunk { node, part, start_line, end_line, hash: _ } = stored;
        Chunk { node, part, start_line, end_line }
    }
}

impl From<Chunk> for StoredChunk {
    fn from(chunk: Chunk) -> StoredChunk {
        let Chunk { node, part, start_line, end_line } = chunk;
        StoredChunk { node, part, start_line, end_line, hash: String::new() }
    }
}

/// A part as an index bundle stores it: `(kind, window)`. `Part`'s own serde
/// form is the tagged JSON the page reads, which only a self-describing
/// format can read back.
mod stored_part {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Part;

    pub fn serialize<S: Serializer>(part: &Part, serializer: S) -> Result<S::Ok, S::Error> {
        let code: (u8, u16) = match *part {
            Part::Whole => (0, 0),
            Part::Window(n) => (1, n),
            Part::Outline => (2, 0),
            Part::TopLevel => (3, 0),
        };
        code.serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Part, D::Error> {
        match <(u8, u16)>::deserialize(deserializer)? {
            (0, _) => Ok(Part::Whole),
            (1, n) => Ok(Part::Window(n)),
            (2, _) => Ok(Part::Outline),
            (3, _) => Ok(Part::TopLevel),
            (kind, _) => Err(D::Error::custom(format!("unknown chunk part {kind}"))),
        }
    }
}

/// An index's chunks, by number: each whole, or a sparse index's
/// ([`Chunks::sparse`]), which holds each chunk's symbol and the rest of a
/// chunk only once a page brought it. A split bundle's postings name the
/// symbol of every chunk a common term is in (most of them), where its
/// pages bring a few hundred chunks: on the 50k set, a symbol is four bytes
/// a chunk where a whole chunk was sixteen (5.5 MB).
#[derive(Clone, Debug)]
pub enum Chunks {
    Whole(Vec<Chunk>),
    Sparse { nodes: Vec<NodeId>, whole: std::collections::HashMap<u32, Chunk, ahash::RandomState> },
}

impl Chunks {
    /// `len` chunks of no symbol yet, to put in as they arrive.
    pub fn sparse(len: usize) -> Chunks {
        Chunks::Sparse { nodes: vec![NodeId::end(); len], whole: Default::default() }
    }

    pub fn len(&self) -> usize {
        match self {
            Chunks::Whole(chunks) => chunks.len(),
            Chunks::Sparse { nodes, .. } => nodes.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Chunk `i`'s symbol. Panics past the end, as indexing does.
    pub fn node(&self, i: usize) -> NodeId {
        match self {
            Chunks::Whole(chunks) => chunks[i].node,
            Chunks::Sparse { nodes, .. } => nodes[i],
        }
    }

    /// Chunk `i`: a sparse index's, where no page brought it, of its symbol
    /// alone (the whole part, at line 0).
    pub fn get(&self, i: usize) -> Option<Chunk> {
        match self {
            Chunks::Whole(chunks) => chunks.get(i).cloned(),
            Chunks::Sparse { nodes, whole } => whole.get(&(i as u32)).cloned().or_else(|| {
                let node = *nodes.get(i)?;
                Some(Chunk { node, part: Part::Whole, start_line: 0, end_line: 0 })
            }),
        }
    }

    /// Chunk `i`'s first and last lines ([`Chunks::get`]'s). Panics past the end.
    pub fn lines(&self, i: usize) -> [u32; 2] {
        match self {
            Chunks::Whole(chunks) => [chunks[i].start_line, chunks[i].end_line],
            Chunks::Sparse { nodes, whole } => {
                assert!(i < nodes.len(), "chunk {i} of {}", nodes.len());
                whole.get(&(i as u32)).map_or([0, 0], |c| [c.start_line, c.end_line])
            }
        }
    }

    /// Every chunk of a whole index; none of a sparse one's, which holds
    /// most of its chunks by their symbol alone.
    pub fn whole(&self) -> &[Chunk] {
        match self {
            Chunks::Whole(chunks) => chunks,
            Chunks::Sparse { .. } => &[],
        }
    }

    /// Notes chunk `i`'s symbol, keeping the rest of it; nothing past the end.
    pub fn set_node(&mut self, i: usize, node: NodeId) {
        match self {
            Chunks::Whole(chunks) => {
                if let Some(chunk) = chunks.get_mut(i) {
                    chunk.node = node;
                }
            }
            Chunks::Sparse { nodes, whole } => {
                if let Some(slot) = nodes.get_mut(i) {
                    *slot = node;
                    if let Some(chunk) = whole.get_mut(&(i as u32)) {
                        chunk.node = node;
                    }
                }
            }
        }
    }

    /// Puts chunk `i` in whole; nothing past the end.
    pub fn put(&mut self, i: usize, chunk: Chunk) {
        match self {
            Chunks::Whole(chunks) => {
                if let Some(slot) = chunks.get_mut(i) {
                    *slot = chunk;
                }
            }
            Chunks::Sparse { nodes, whole } => {
                if let Some(slot) = nodes.get_mut(i) {
                    *slot = chunk.node;
                    whole.insert(i as u32, chunk);
                }
            }
        }
    }
}

/// What chunking reads: the graph and the text of each file. Chunks are
/// indexed on every core natively, so sources are shared between threads.
pub trait Sources: Sync {
    fn graph(&self) -> &CodeGraph;
    /// The text of the file with this index in `graph().files()`.
    fn file_text(&self, file: usize) -> &str;
    /// The file's lines already split into lexical terms, when parsing did
    /// it ([`crate::lexical::LineTerms`]); the lexical index then reads them
    /// instead of splitting the chunks' lines again.
    fn line_terms(&self, _file: usize) -> Option<&crate::lexical::LineTerms> {
        None
    }
    /// A node's name already split into lexical terms, when parsing did it
    /// ([`crate::lexical::LineTerms::name`]).
    fn name_terms(&self, _node: NodeId) -> Option<&[u32]> {
        None
    }
    /// Where the file's lines start, when a build found them once for all
    /// its chunks; lines are otherwise found by scanning the text.
    fn line_starts(&self, _file: usize) -> Option<&LineStarts> {
        None
    }
}

/// A piece of a chunk's text ([`pieces`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Text of its own: a header, a docstring, the member list.
    Text(&'a str),
    /// Line `.0` (0-based) of the chunk's file, as `str::lines` gives it.
    /// Consecutive lines are joined by a newline.
    Line(u32, &'a str),
    /// The name of node `.0`: a member in a class's outline, or the last
    /// segment of a header's qualified name. The lexical index reads the
    /// terms parsing split of it ([`Sources::name_terms`]).
    Name(NodeId, &'a str),
}

pub fn content_hash(text: &str) -> String {
    Sha256::digest(text.as_bytes())[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// A chunk's key in the embedding cache: SHA-256 of its [`text`], the first
/// 16 bytes in hex. Two chunks with the same text share their vector,
/// whatever repository or index they are in.
pub fn hash(sources: &dyn Sources, chunk: &Chunk) -> String {
    content_hash(&text(sources, chunk))
}

/// Cuts every definition of the graph into chunks.
pub fn chunk_all(sources: &dyn Sources) -> Vec<Chunk> {
    let graph = sources.graph();
    let mut chunks = Vec::new();
    // Characters of function chunks so far, per file.
    let mut used: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for (id, node) in graph.nodes() {
        let Some(file) = node.file.filter(|_| !node.is_external) else { continue };
        let parts: Vec<(Part, u32, u32)> = match node.kind {
            SymbolKind::Function | SymbolKind::Method => {
                let file = file.0 as usize;
                let budget = FILE_CHUNK_FACTOR * sources.file_text(file).len() + MIN_FILE_CHUNK_CHARS;
                let used = used.entry(file).or_default();
                // A test script or case file is one test, and every line of
                // it may be what a change's words meet.
                let max_windows = if graph.files()[file].language == fathom_model::Language::Text {
                    usize::from(u16::MAX)
                } else if *used < budget {
                    MAX_WINDOWS
                } else {
                    1
                };
                let (windows, chars) = body_windows(sources, id, max_windows);
                *used += chars;
                windows
            }
            SymbolKind::Class => vec![(Part::Outline, node.span.start_line, outline_end(graph, id))],
            SymbolKind::Module => {
                if has_top_level_lines(sources, id) {
                    vec![(Part::TopLevel, node.span.start_line, node.span.end_line)]
                } else {
                    vec![]
                }
            }
            _ => vec![],
        };
        chunks.extend(parts.into_iter().map(|(part, start_line, end_line)| Chunk {
            node: id,
            part,
            start_line,
            end_line,
        }));
    }
    chunks
}

/// The lines of a file, 1-based `start..=end`, clamped to the file.
#[cfg(test)]
fn lines(text: &str, start: u32, end: u32) -> impl Iterator<Item = &str> {
    node_lines(text, None, fathom_model::Span::default(), start, end).map(|(_, line)| line)
}

/// A file's lines, each with its 0-based number.
type Lines<'t> = Box<dyn Iterator<Item = (u32, &'t str)> + 't>;

/// The text of `node`'s file, and where its lines start if the sources
/// know.
fn file_of<'s>(sources: &'s dyn Sources, node: &fathom_graph::Node) -> (&'s str, Option<&'s LineStarts>) {
    let file = node.file.map_or(0, |f| f.0 as usize);
    (sources.file_text(file), sources.line_starts(file))
}

/// Lines `ats` (0-based, within the file) of a file, sliced where `starts`
/// says they are.
fn sliced<'t>(text: &'t str, starts: &'t LineStarts, ats: std::ops::Range<u32>) -> Lines<'t> {
    Box::new(ats.map(move |at| (at, starts.line(text, at).unwrap_or_default())))
}

/// Every line of a file.
fn all_lines<'t>(text: &'t str, starts: Option<&'t LineStarts>) -> Lines<'t> {
    match starts {
        Some(starts) => sliced(text, starts, 0..starts.len()),
        None => Box::new(text.lines().enumerate().map(|(at, line)| (at as u32, line))),
    }
}

/// The lines `start..=end` of a file (at least line `start`, if the file
/// has it), each with its 0-based number: sliced where `starts` says they
/// are, or else counted from the line where `node` starts rather than from
/// the top, so that a big file's chunks each cost their own length, not the
/// file's.
fn node_lines<'t>(
    text: &'t str,
    starts: Option<&'t LineStarts>,
    node: fathom_model::Span,
    start: u32,
    end: u32,
) -> Lines<'t> {
    let start = start.max(1);
    if let Some(starts) = starts {
        return sliced(text, starts, start - 1..end.max(start).min(starts.len()));
    }
    let (from, line) = match text.get(..node.start_byte as usize) {
        Some(before) if node.start_line >= 1 && node.start_line <= start => {
            (before.rfind('\n').map_or(0, |i| i + 1), node.start_line)
        }
        _ => (0, 1),
    };
    let lines = text[from..].lines().skip((start - line) as usize).take(end.saturating_sub(start) as usize + 1);
    Box::new(lines.enumerate().map(move |(k, line)| (start - 1 + k as u32, line)))
}

/// A function's windows, at most `max_windows`, and the characters they
/// hold. Lines are counted only as far as the windows reach.
fn body_windows(sources: &dyn Sources, id: NodeId, max_windows: usize) -> (Vec<(Part, u32, u32)>, usize) {
    let node = sources.graph().node(id);
    let (text, starts) = file_of(sources, node);
    let (start, end) = (node.span.start_line, node.span.end_line.max(node.span.start_line));
    // Most bodies fit one window: their lines are counted, not gathered.
    let reach = max_windows * WINDOW_CHARS;
    let (total, lines) = node_lines(text, starts, node.span, start, end)
        .scan(0, |size, (_, line)| {
            let before = *size;
            *size += line.len() + 1;
            (before <= reach).then_some(line.len() + 1)
        })
        .fold((0, 0), |(t, n), len| (t + len, n + 1));
    if total <= WINDOW_CHARS || lines <= 1 {
        return (vec![(Part::Whole, start, end)], total);
    }
    let body: Vec<&str> = node_lines(text, starts, node.span, start, end).map(|(_, line)| line).take(lines).collect();
    let mut windows = Vec::new();
    let mut chars = 0;
    let mut first = 0usize;
    while first < body.len() && windows.len() < max_windows {
        let mut last = first;
        let mut size = 0;
        while last < body.len() && (size == 0 || size + body[last].len() < WINDOW_CHARS) {
            size += body[last].len() + 1;
            last += 1;
        }
        chars += size;
        windows.push((Part::Window(windows.len() as u16), start + first as u32, start + last as u32 - 1));
        if last >= body.len() {
            break;
        }
        first = (last.saturating_sub(OVERLAP_LINES)).max(first + 1);
    }
    (windows, chars)
}

/// A class's outline ends where its first member begins.
fn outline_end(graph: &CodeGraph, id: NodeId) -> u32 {
    let node = graph.node(id);
    members(graph, id)
        .map(|m| graph.node(m).span.start_line.saturating_sub(1))
        .filter(|&l| l >= node.span.start_line)
        .min()
        .unwrap_or(node.span.end_line)
}

fn members(graph: &CodeGraph, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    graph.outgoing(id).filter(|(e, _)| e.kind.is_containment()).map(|(_, to)| to)
}

/// Whether a module has [`top_level_lines`], found without walking past the
/// first (every module is asked, and most have one near their top).
fn has_top_level_lines(sources: &dyn Sources, module: NodeId) -> bool {
    let mut any = false;
    each_top_level_line(sources, module, &mut |_, _| {
        any = true;
        false
    });
    any
}

/// The lines of a module that no function or class covers, each with its
/// 0-based number.
fn top_level_lines(sources: &dyn Sources, module: NodeId) -> Vec<(u32, &str)> {
    let mut out = Vec::new();
    each_top_level_line(sources, module, &mut |at, line| {
        out.push((at, line));
        true
    });
    out
}

/// Hands [`top_level_lines`] to `take` in order, while it returns true.
fn each_top_level_line<'s>(sources: &'s dyn Sources, module: NodeId, take: &mut dyn FnMut(u32, &'s str) -> bool) {
    let graph = sources.graph();
    let node = graph.node(module);
    let (text, starts) = file_of(sources, node);
    let mut covered: Vec<(u32, u32)> = members(graph, module)
        .map(|m| graph.node(m))
        .filter(|m| matches!(m.kind, SymbolKind::Class | SymbolKind::Function | SymbolKind::Method))
        .map(|m| (m.span.start_line, m.span.end_line))
        .collect();
    covered.sort_unstable();
    // Overlapping spans merged, so that one pass in step with the lines
    // tells whether a span covers each (rather than asking every span).
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(covered.len());
    for (start, end) in covered.into_iter().filter(|(start, end)| start <= end) {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    let mut spans = merged.into_iter().peekable();
    let mut size = 0;
    for (i, line) in all_lines(text, starts) {
        let n = i + 1;
        while spans.next_if(|&(_, end)| end < n).is_some() {}
        if spans.peek().is_some_and(|&(start, _)| start <= n) || line.trim().is_empty() {
            continue;
        }
        size += line.len() + 1;
        if size > WINDOW_CHARS || !take(i, line) {
            break;
        }
    }
}

/// The text a chunk stands for: what is embedded and what the lexical index
/// reads (which adds the name and path itself, see `lexical`).
///
/// A function's chunk is its source, as the model was trained on code, with
/// its docstring first when the docstring sits outside the body (JSDoc,
/// Javadoc). Context the body lacks is put in a one-line header: the
/// qualified name for a method (its class) and for a window past the first
/// (which lacks the signature), the path for a module's top-level code.
pub fn text(sources: &dyn Sources, chunk: &Chunk) -> String {
    let mut out = String::new();
    let mut after_line = false;
    pieces(sources, chunk, &mut |piece| {
        match piece {
            Piece::Text(text) | Piece::Name(_, text) => out.push_str(text),
            Piece::Line(_, line) => {
                if after_line {
                    out.push('\n');
                }
                out.push_str(line);
            }
        }
        after_line = matches!(piece, Piece::Line(..));
    });
    out
}

/// A chunk's [`text`] in pieces, in order: the lines of its file kept apart
/// from the text around them, so that the lexical index can read each
/// line's terms as parsing split them. No word spans two pieces.
pub fn pieces(sources: &dyn Sources, chunk: &Chunk, emit: &mut dyn FnMut(Piece<'_>)) {
    let graph = sources.graph();
    let node = graph.node(chunk.node);
    let path = graph.path_of(chunk.node).unwrap_or_default();
    let (file, starts) = file_of(sources, node);
    let body: Vec<(u32, &str)> = match chunk.part {
        Part::TopLevel => top_level_lines(sources, chunk.node),
        _ => node_lines(file, starts, node.span, chunk.start_line, chunk.end_line).collect(),
    };
    let kind = kind_word(node.kind);
    match chunk.part {
        Part::TopLevel => emit(Piece::Text(&format!("{kind} {path}\n"))),
        Part::Window(1..) => qualified_header(kind, chunk.node, node, emit),
        _ if node.kind == SymbolKind::Method => qualified_header(kind, chunk.node, node, emit),
        _ => {}
    }
    if let Some(doc) = node.details.as_ref().and_then(|d| d.docstring.as_deref())
        && matches!(chunk.part, Part::Whole | Part::Outline | Part::Window(0))
    {
        // Whether the body (its lines joined) holds the docstring's first
        // line: one line of text lies within one line of the body.
        let first = doc.lines().next().unwrap_or_default().trim();
        if !first.is_empty() && !body.iter().any(|(_, line)| line.contains(first)) {
            emit(Piece::Text(doc));
            emit(Piece::Text("\n"));
        }
    }
    for &(at, line) in &body {
        emit(Piece::Line(at, line));
    }
    if chunk.part == Part::Outline {
        for (at, member) in members(graph, chunk.node).enumerate() {
            emit(Piece::Text(if at == 0 { "\nmembers: " } else { ", " }));
            emit(Piece::Name(member, &graph.node(member).name));
        }
    }
}

/// A header of a node's kind and qualified name: `method a.B.c\n`. The
/// name that ends the qualified name is a piece of its own, when it does end
/// it as a word of its own, so that the lexical index reads its terms as
/// parsing split them ([`Piece::Name`]).
fn qualified_header(kind: &str, id: NodeId, node: &fathom_graph::Node, emit: &mut dyn FnMut(Piece<'_>)) {
    let (qualified, name) = (node.qualified_name.as_str(), node.name.as_str());
    // A word character on both sides of the cut would make one word of two pieces.
    let before = qualified
        .strip_suffix(name)
        .filter(|before| !(name.is_empty() || (before.ends_with(in_word) && name.starts_with(in_word))));
    match before {
        Some(before) => {
            emit(Piece::Text(&format!("{kind} {before}")));
            emit(Piece::Name(id, name));
            emit(Piece::Text("\n"));
        }
        None => emit(Piece::Text(&format!("{kind} {qualified}\n"))),
    }
}

fn kind_word(kind: SymbolKind) -> &'static str {
    match kind {
        SymbolKind::Class => "class",
        SymbolKind::Function => "function",
        SymbolKind::Method => "method",
        SymbolKind::Module => "module",
        _ => "symbol",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sparse index's chunk reads as a whole one's once its page is in,
    /// and by its symbol alone (lines 0) before; nothing past the end goes
    /// in, and a symbol noted later keeps the lines a page brought.
    #[test]
    fn sparse_chunks_read_as_whole_ones_once_in() {
        let chunk = Chunk { node: NodeId::new(7), part: Part::Window(2), start_line: 10, end_line: 40 };
        let mut whole =
            Chunks::Whole(vec![Chunk { node: NodeId::end(), part: Part::Whole, start_line: 0, end_line: 0 }; 3]);
        let mut sparse = Chunks::sparse(3);
        for chunks in [&mut whole, &mut sparse] {
            chunks.set_node(0, NodeId::new(5));
            chunks.put(1, chunk.clone());
            chunks.set_node(1, NodeId::new(7));
            chunks.put(3, chunk.clone());
            chunks.set_node(9, NodeId::new(1));
        }
        for i in 0..3 {
            assert_eq!(sparse.get(i), whole.get(i), "chunk {i}");
            assert_eq!(sparse.node(i), whole.node(i));
            assert_eq!(sparse.lines(i), whole.lines(i));
        }
        assert_eq!(sparse.get(1), Some(chunk));
        assert_eq!(sparse.lines(0), [0, 0]);
        assert_eq!((sparse.len(), sparse.get(3)), (3, None));
        assert!(sparse.whole().is_empty() && whole.whole().len() == 3);
    }

    /// Slicing lines where `LineStarts` says they start gives the lines
    /// scanning gives: for every range (backwards, past the end, from a
    /// node's own first line or the file's top), and every line of the file.
    #[test]
    fn lines_sliced_by_their_starts_are_the_lines_scanned() {
        let texts = ["", "\n", "a", "def f():\r\n    pass\r\n\r\nx = 1\r", "a\n\n  b\nc\n", "é\n\tü\r\n\n"];
        for text in texts {
            let starts = LineStarts::of(text);
            let scanned: Vec<(u32, &str)> = all_lines(text, None).collect();
            assert_eq!(all_lines(text, Some(&starts)).collect::<Vec<_>>(), scanned, "{text:?}");
            let count = starts.len();
            for first in 1..=count + 2 {
                // A node whose first line is `first`, if the file has it, and one at the top.
                let start_byte = match first {
                    1 => Some(0),
                    _ => text.match_indices('\n').nth(first as usize - 2).map(|(at, _)| at as u32 + 1),
                };
                let own = start_byte.filter(|_| first <= count).map(|start_byte| fathom_model::Span {
                    start_line: first,
                    start_byte,
                    ..Default::default()
                });
                for node in [Some(fathom_model::Span::default()), own].into_iter().flatten() {
                    for end in 0..=count + 2 {
                        let sliced: Vec<_> = node_lines(text, Some(&starts), node, first, end).collect();
                        let scanned: Vec<_> = node_lines(text, None, node, first, end).collect();
                        assert_eq!(sliced, scanned, "{text:?} lines {first}..={end} of a node at {node:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn lines_are_one_based_and_inclusive() {
        let text = "a\nb\nc\nd";
        assert_eq!(lines(text, 2, 3).collect::<Vec<_>>(), ["b", "c"]);
        assert_eq!(lines(text, 1, 1).collect::<Vec<_>>(), ["a"]);
        assert_eq!(lines(text, 4, 9).collect::<Vec<_>>(), ["d"]);
    }
}
