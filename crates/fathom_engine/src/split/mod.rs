//! An [`Index`] as a split bundle: a directory any static host serves as it
//! is, read in parts, on demand (see [`crate::store`] for the items).
//!
//! ```text
//! root.fathom          magic, format, the root (gzipped postcard), xxh3-64
//! s/<hash>.bin         every other item, named by its SHA-256
//! ```
//!
//! The root is small and says everything a first question needs to know
//! before it fetches anything else:
//!
//! - BM25's corpus figures (chunks and their average length), so a query
//!   scores exactly as the whole index scores it from its terms' postings
//!   alone;
//! - the postings items, each holding the terms of one range of term
//!   hashes (uniform ranges, so a term's item is computed, not looked up),
//!   each term's postings complete: chunk, node and weight;
//! - the name pages, each the names between two keys of the names in
//!   order ([`fathom_search::NameIndex`]'s order), with the first key of
//!   each, so a word's exact and prefix matches are read from the page or
//!   pages its run falls in;
//! - the file table's item, which gives each file's path and its graph and
//!   text items: a file's definitions, chunks and every edge that touches
//!   them, and its text, each fetched when a question reaches that file.
//!
//! Sizes are chosen so that an item is a few tens of kilobytes gzipped:
//! a question reads a few items of each kind, not the whole bundle.

use std::collections::HashMap;
use std::io::{Read, Write};

use fathom_graph::{Edge, Node};
use fathom_model::{Language, SymbolKind};
use fathom_search::chunks::Chunk;
use fathom_search::roles::Judged;
use serde::{Deserialize, Serialize};

use crate::Index;
use crate::store::{ItemRef, StoreError, seal};

mod reader;
pub use reader::{Fetched, Need, SplitReader, Step, drive};

/// The root's file name in a split bundle's directory.
pub const ROOT: &str = "root.fathom";
/// A split bundle's root begins so: a whole bundle's magic with `/` for its
/// newline, so neither is read as the other.
pub const SPLIT_MAGIC: [u8; 8] = *b"\x89FATHOM/";
/// The layout of the root and its items this build writes and reads.
pub const SPLIT_FORMAT: u32 = 1;
/// What a postings item or a name page holds before it is gzipped, about.
const POSTINGS_BYTES: usize = 48 * 1024;
const NAME_PAGE_BYTES: usize = 40 * 1024;
const GRAPH_PAGE_BYTES: usize = 8 * 1024;
/// The most a root may inflate to.
const ROOT_LIMIT: u64 = 64 << 20;

/// The root: see the [module docs](self).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// What a whole bundle's header says, as its JSON.
    pub header: String,
    /// BM25's corpus: how many chunks, and their average length.
    pub documents: u32,
    pub avgdl: f32,
    /// Postings items; item `i` holds the terms whose hash `h` has
    /// `h * len / 2^32 == i`.
    pub postings: Vec<ItemRef>,
    /// Name pages, with the first key each holds.
    pub names: Vec<(String, ItemRef)>,
    /// Graph pages ([`GraphPage`]), with the first node id each holds: the
    /// pages cut the node ids into runs, between files where they can.
    pub graph: Vec<(u32, ItemRef)>,
    /// How many nodes and chunks the index has, and its files in id order
    /// as far as a search must know them without their pages (none, yet:
    /// each page says what its files are).
    pub nodes: u32,
    pub chunks: u32,
    pub files: u32,
    /// The index summary, as a bundle stores it.
    pub summary: ItemRef,
}

/// What a file is, as a page carries it: its path, language and module,
/// its role for ranking (and the files it is made from), and its text's
/// item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileHead {
    pub id: u32,
    pub path: String,
    pub language: Language,
    pub module: u32,
    pub role: Judged,
    pub sources: Vec<String>,
    pub text: ItemRef,
}

/// A run of node ids: those nodes whole, the chunks of them, every edge
/// that starts or ends at one of them (by the whole graph's edge id), the
/// nodes at those edges' other ends without their details, and the heads
/// of the files any of these are in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphPage {
    pub nodes: Vec<(u32, Node)>,
    pub chunks: Vec<(u32, Chunk)>,
    pub edges: Vec<(u32, u32, u32, Edge)>,
    pub far: Vec<(u32, Node)>,
    pub files: Vec<FileHead>,
}

/// A term's posting in a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Posting {
    pub chunk: u32,
    /// The chunk's node.
    pub node: u32,
    /// BM25's weight of the term in the chunk, as the whole index holds it.
    pub weight: f32,
}

/// The terms of one range of hashes, each with every chunk holding it.
pub type PostingsItem = Vec<(u32, Vec<Posting>)>;

/// A definition's names, as a name page holds them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NameEntry {
    /// The name in lower case: the page's order.
    pub key: String,
    pub node: u32,
    pub name: String,
    pub qualified_name: String,
    pub kind: SymbolKind,
    pub file: Option<u32>,
    pub line: u32,
}

/// What a family of items holds, for the writer's report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Family {
    pub items: usize,
    /// Bytes as stored (gzipped), and inflated.
    pub bytes: u64,
    pub plain: u64,
}

impl Family {
    fn add(&mut self, item: &ItemRef) {
        self.items += 1;
        self.bytes += u64::from(item.bytes);
        self.plain += u64::from(item.plain);
    }
}

/// A split bundle, in memory: the root's bytes and every item's. Writing it
/// is the caller's: [`Split::write`] natively.
pub struct Split {
    pub root: Vec<u8>,
    /// Items by reference; one copy of each, however many refer to it.
    pub items: HashMap<ItemRef, Vec<u8>>,
    pub report: SplitReport,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct SplitReport {
    pub root_bytes: u64,
    pub postings: Family,
    pub names: Family,
    pub graph: Family,
    pub texts: Family,
    pub summary: Family,
}

impl Split {
    /// Writes the bundle under `dir`: items first, the root last, so a
    /// reader never meets a root whose items are not all there.
    #[cfg(feature = "fs")]
    pub fn write(&self, dir: &std::path::Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir.join("s"))?;
        for (item, bytes) in &self.items {
            let path = dir.join(item.path());
            if !path.exists() {
                std::fs::write(path, bytes)?;
            }
        }
        std::fs::write(dir.join(ROOT), &self.root)
    }
}

impl Index {
    /// The index as a split bundle: see the [module docs](self).
    pub fn to_split(&self) -> Split {
        let mut items: HashMap<ItemRef, Vec<u8>> = HashMap::new();
        let mut report = SplitReport::default();
        let mut keep = |family: &mut Family, (item, bytes): (ItemRef, Vec<u8>)| {
            family.add(&item);
            items.entry(item).or_insert(bytes);
            item
        };
        let graph = &self.graph;
        let chunks = self.retrieval.chunks();

        // Postings, by term, in chunk order.
        let lexical = self.retrieval.stored_lexical();
        let mut by_term: HashMap<u32, Vec<Posting>> = HashMap::new();
        let mut plain_postings = 0usize;
        for (chunk, list) in lexical.postings.iter().enumerate() {
            let node = chunks[chunk].node.index() as u32;
            for &(term, weight) in list {
                by_term.entry(term).or_default().push(Posting { chunk: chunk as u32, node, weight });
                plain_postings += 12;
            }
        }
        let ranges = plain_postings.div_ceil(POSTINGS_BYTES).max(1);
        let mut shards: Vec<PostingsItem> = vec![Vec::new(); ranges];
        for (term, list) in by_term {
            shards[term_range(term, ranges)].push((term, list));
        }
        let postings: Vec<ItemRef> = shards
            .into_iter()
            .map(|mut shard| {
                shard.sort_unstable_by_key(|(term, _)| *term);
                keep(&mut report.postings, seal(&shard))
            })
            .collect();

        // Names, in the name index's order, cut into pages.
        let mut entries: Vec<NameEntry> = graph
            .nodes()
            .filter(|(_, n)| !n.is_external)
            .map(|(id, n)| NameEntry {
                key: n.name.to_lowercase(),
                node: id.index() as u32,
                name: n.name.clone(),
                qualified_name: n.qualified_name.clone(),
                kind: n.kind,
                file: n.file.map(|f| f.0),
                line: n.span.start_line,
            })
            .collect();
        entries.sort_by(|a, b| a.key.cmp(&b.key).then(a.node.cmp(&b.node)));
        let mut names: Vec<(String, ItemRef)> = Vec::new();
        let mut page: Vec<NameEntry> = Vec::new();
        let mut size = 0;
        for entry in entries {
            size += entry.key.len() + entry.name.len() + entry.qualified_name.len() + 12;
            page.push(entry);
            if size >= NAME_PAGE_BYTES {
                let first = page[0].key.clone();
                names.push((first, keep(&mut report.names, seal(&std::mem::take(&mut page)))));
                size = 0;
            }
        }
        if !page.is_empty() || names.is_empty() {
            let first = page.first().map(|e| e.key.clone()).unwrap_or_default();
            names.push((first, keep(&mut report.names, seal(&page))));
        }

        // Texts, then the graph in pages of consecutive node ids.
        let roles = self.retrieval.roles();
        let heads: Vec<FileHead> = graph
            .files()
            .iter()
            .zip(&self.texts)
            .enumerate()
            .map(|(id, (file, text))| FileHead {
                id: id as u32,
                path: file.path.clone(),
                language: file.language,
                module: file.module.index() as u32,
                role: roles.of(&file.path).clone(),
                sources: roles.sources_of(&file.path).to_vec(),
                text: keep(&mut report.texts, seal(text.as_str())),
            })
            .collect();
        let mut chunks_of: Vec<Vec<u32>> = vec![Vec::new(); graph.node_count()];
        for (i, chunk) in chunks.iter().enumerate() {
            chunks_of[chunk.node.index()].push(i as u32);
        }
        let mut edges_at: Vec<Vec<u32>> = vec![Vec::new(); graph.node_count()];
        let edges: Vec<(u32, u32, &Edge)> =
            graph.edges().map(|(_, from, to, edge)| (from.index() as u32, to.index() as u32, edge)).collect();
        for (id, &(from, to, _)) in edges.iter().enumerate() {
            edges_at[from as usize].push(id as u32);
            if to != from {
                edges_at[to as usize].push(id as u32);
            }
        }
        let mut pages: Vec<(u32, ItemRef)> = Vec::new();
        let mut from = 0usize;
        while from < graph.node_count() {
            // A page ends past its size, where the next node is in another file.
            let mut to = from;
            let mut size = 0;
            while to < graph.node_count() {
                let node = graph.node(fathom_graph::NodeId::new(to));
                if size >= GRAPH_PAGE_BYTES && node.file != graph.node(fathom_graph::NodeId::new(to - 1)).file {
                    break;
                }
                size += 64 + node.qualified_name.len() + 24 * edges_at[to].len();
                to += 1;
            }
            let page = graph_page(graph, &heads, &chunks_of, &edges_at, &edges, chunks, from..to);
            pages.push((from as u32, keep(&mut report.graph, seal(&page))));
            from = to;
        }
        let summary = keep(&mut report.summary, seal(&self.stored_summary()));

        let header = serde_json::to_string(&self.header(SPLIT_FORMAT, Vec::new())).expect("the header is plain data");
        let params = self.retrieval.params(Default::default()).bm25;
        let root = Root {
            header,
            documents: params.documents as u32,
            avgdl: params.avgdl,
            postings,
            names,
            graph: pages,
            nodes: graph.node_count() as u32,
            chunks: chunks.len() as u32,
            files: graph.files().len() as u32,
            summary,
        };
        let root = encode_root(&root);
        report.root_bytes = root.len() as u64;
        Split { root, items, report }
    }
}

/// The graph page of the nodes `range`: see [`GraphPage`].
fn graph_page(
    graph: &fathom_graph::CodeGraph,
    heads: &[FileHead],
    chunks_of: &[Vec<u32>],
    edges_at: &[Vec<u32>],
    edges: &[(u32, u32, &Edge)],
    chunks: &[Chunk],
    range: std::ops::Range<usize>,
) -> GraphPage {
    use fathom_graph::NodeId;
    let inside = |id: u32| range.contains(&(id as usize));
    let mut page =
        GraphPage { nodes: Vec::new(), chunks: Vec::new(), edges: Vec::new(), far: Vec::new(), files: Vec::new() };
    let mut edge_ids: Vec<u32> = Vec::new();
    for at in range.clone() {
        page.nodes.push((at as u32, graph.node(NodeId::new(at)).clone()));
        page.chunks.extend(chunks_of[at].iter().map(|&c| (c, chunks[c as usize].clone())));
        edge_ids.extend(&edges_at[at]);
    }
    edge_ids.sort_unstable();
    edge_ids.dedup();
    let mut far: Vec<u32> = Vec::new();
    for id in edge_ids {
        let (from, to, edge) = edges[id as usize];
        page.edges.push((id, from, to, *edge));
        far.extend([from, to].into_iter().filter(|&end| !inside(end)));
    }
    far.sort_unstable();
    far.dedup();
    page.far = far
        .into_iter()
        .map(|id| (id, fathom_graph::Node { details: None, ..graph.node(NodeId::new(id as usize)).clone() }))
        .collect();
    let mut files: Vec<u32> =
        page.nodes.iter().chain(&page.far).filter_map(|(_, node)| node.file.map(|f| f.0)).collect();
    files.sort_unstable();
    files.dedup();
    page.files = files.into_iter().map(|f| heads[f as usize].clone()).collect();
    page
}

/// Which of `ranges` uniform ranges of hashes holds `term`.
pub fn term_range(term: u32, ranges: usize) -> usize {
    ((u64::from(term) * ranges as u64) >> 32) as usize
}

fn encode_root(root: &Root) -> Vec<u8> {
    let plain = postcard::to_allocvec(root).expect("the root is plain data");
    let mut out = Vec::with_capacity(plain.len() / 2);
    out.extend_from_slice(&SPLIT_MAGIC);
    out.extend_from_slice(&SPLIT_FORMAT.to_le_bytes());
    let mut gzip = flate2::write::GzEncoder::new(out, flate2::Compression::best());
    gzip.write_all(&plain).expect("writing to memory");
    let mut out = gzip.finish().expect("writing to memory");
    let checksum = xxhash_rust::xxh3::xxh3_64(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// Reads a root back, verified: magic, format, checksum, then its contents.
pub fn read_root(path: &str, bytes: &[u8]) -> Result<Root, StoreError> {
    let what = "the split bundle's root";
    let undecodable = |cause: String| StoreError::Undecodable { what: what.to_owned(), path: path.to_owned(), cause };
    if crate::store::looks_like_html(bytes) {
        return Err(StoreError::Html { what: what.to_owned(), path: path.to_owned() });
    }
    if bytes.len() < 20 || bytes[..8] != SPLIT_MAGIC {
        let cause = if bytes.starts_with(&crate::bundle::MAGIC) {
            "it is a whole bundle: open it as a file, not a directory".to_owned()
        } else {
            "it does not begin as a split bundle's root does".to_owned()
        };
        return Err(undecodable(cause));
    }
    let format = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if format != SPLIT_FORMAT {
        let cause = format!("split format {format}; this build reads {SPLIT_FORMAT}: index the project again with it");
        return Err(StoreError::Version { path: path.to_owned(), cause });
    }
    let (body, checksum) = bytes.split_at(bytes.len() - 8);
    if xxhash_rust::xxh3::xxh3_64(body).to_le_bytes() != checksum {
        return Err(StoreError::Altered { what: what.to_owned(), path: path.to_owned() });
    }
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(&body[12..])
        .take(ROOT_LIMIT)
        .read_to_end(&mut plain)
        .map_err(|e| undecodable(format!("it does not inflate: {e}")))?;
    postcard::from_bytes(&plain).map_err(|e| undecodable(e.to_string()))
}
