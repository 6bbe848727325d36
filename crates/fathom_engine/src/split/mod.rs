//! An [`Index`] as a split bundle: a directory any static host serves as it
//! is, read in parts, on demand (see [`crate::store`] for the items).
//!
//! ```text
//! root.fathom          magic, format, the root (gzipped postcard), xxh3-64
//! s/<name>.bin         every other item: placed, or named by its SHA-256;
//!                      or a pack of placed items of one family, each in a
//!                      slot of the family's stride, read by Range
//! ```
//!
//! The root is small and says everything a first question needs to know
//! before it fetches anything else:
//!
//! - BM25's corpus figures (chunks and their average length), so a query
//!   scores exactly as the whole index scores it from its terms' postings
//!   alone;
//! - how many postings items there are, each holding the terms of one
//!   range of term hashes (uniform ranges, so a term's item is computed,
//!   not looked up), each term's postings complete: chunk, node and weight;
//! - the name pages, each the names between two keys of the names in
//!   order ([`fathom_search::NameIndex`]'s order), with the first key of
//!   each, so a word's exact and prefix matches are read from the page or
//!   pages its run falls in;
//! - where the node pages ([`NodePage`]) and edge runs ([`EdgeRun`]) cut
//!   the node ids: a node page holds a run of definitions whole, their
//!   chunks, their files' heads and the lines their snippets read, for the
//!   symbols an answer shows; an edge run holds a run of nodes in brief,
//!   every edge that touches them and those edges' far ends in brief, for
//!   the symbols an answer expands from and those that could tie with them.
//!
//! Postings items, name pages, node pages and edge runs are *placed*
//! ([`ItemRef::placed`]): named by the bundle's tag and their place, so the
//! root lists no hash for each of them, and a project of 50,000 files has a
//! root of about ten kilobytes. The file items ([`FileItem`]), each a file's
//! text and colours, read when the file is opened, are named by their hash
//! in the heads of their files.
//!
//! Sizes are chosen so that an item is a few kilobytes gzipped: a question
//! reads a few items of each kind, not the whole bundle.

use std::collections::HashMap;
use std::io::{Read, Write};

use fathom_graph::{Edge, Node};
use fathom_model::{Language, SymbolKind};
use fathom_search::chunks::Chunk;
use fathom_search::roles::{Judged, Role};
use serde::{Deserialize, Serialize};

use crate::Index;
use crate::store::{ItemRef, Span, StoreError, seal, seal_packed, seal_placed};

mod reader;
pub use reader::{ALLOWANCE, Costly, Fetched, Need, RUN_BYTES, SplitReader, Step, drive, drive_within, name_keys};

/// The root's file name in a split bundle's directory.
pub const ROOT: &str = "root.fathom";
/// A split bundle's root begins so: a whole bundle's magic with `/` for its
/// newline, so neither is read as the other.
pub const SPLIT_MAGIC: [u8; 8] = *b"\x89FATHOM/";
/// The layout of the root and its items this build writes and reads.
pub const SPLIT_FORMAT: u32 = 8;
/// What an item holds before it is gzipped, about. Small: a placed item
/// costs the root nothing, and a question reads a few dozen items, so what
/// it fetches is mostly what it reads (measured in `bench/PERFORMANCE.md`).
const POSTINGS_BYTES: usize = 4 * 1024;
const NAME_PAGE_BYTES: usize = 6 * 1024;
const NODE_PAGE_BYTES: usize = 1024;
const EDGE_RUN_BYTES: usize = 1024;
/// A name more symbols share than this gets a digest.
const DIGEST_SHARED: usize = 48;
/// The most a root may inflate to.
const ROOT_LIMIT: u64 = 64 << 20;
/// The static lane's vectors in partitions of about this many chunks
/// ([`fathom_search::partition::Coded`]); rows in pages of
/// `ROWS_PER_PAGE` in partition order, and the table's rows in pages of
/// `PIECES_PER_PAGE` pieces. Chosen by `fathom-bench ivf-codes` and
/// `split-meaning` (bench/PERFORMANCE.md): at the same number of chunks
/// probed, partitions of 50 find more of the nearest than of 100; a row
/// an item fetches the rows a query scores and no neighbour (10% fewer
/// bytes than two a page).
const PARTITION_CHUNKS: usize = 50;
pub const ROWS_PER_PAGE: usize = 1;
pub const PIECES_PER_PAGE: usize = 1;

/// The root: see the [module docs](self).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// What a whole bundle's header says, as its JSON: among it, how many
    /// files, nodes and chunks the index has (BM25's documents are its
    /// chunks).
    pub header: String,
    /// BM25's average document length.
    pub avgdl: f32,
    /// The tag that names the placed items (postings items, node pages and
    /// edge runs: [`ItemRef::placed`]), a hash of all their checksums.
    pub tag: [u8; crate::store::HASH],
    /// How many postings items there are: item `i` holds the terms whose
    /// hash `h` has `h * postings / 2^32 == i`.
    pub postings: Placed,
    /// Name pages, with the first key each holds.
    pub names: Placed,
    pub name_keys: Vec<String>,
    /// For a name page that goes on with the name its last page ended
    /// with, the qualified name it starts at (within a name, pages are in
    /// order of qualified names): a symbol typed by its qualified name reads
    /// the page that holds it, not every page of a name many share.
    pub name_quals: Vec<(u32, String)>,
    /// For a name many symbols share, the few an exact search of it can
    /// rank first ([`fathom_search::NameIndex::exact_digest`]), by the name
    /// in lower case: a phrase's word reads these, not every page of it.
    pub digests: Vec<(String, ItemRef)>,
    /// Node pages ([`NodePage`]) and edge runs ([`EdgeRun`]), by the first
    /// node id each holds: both cut the node ids into runs in order.
    pub nodes: Placed,
    pub edges: Placed,
    /// The edges no search reads ([`searched`]): uses, tests, overrides,
    /// decorators and calls out of the archive, in runs of their own, by the
    /// first node id each holds. A graph question (callers, impact) reads
    /// these with the edge runs of the nodes it walks through.
    pub more: Placed,
    /// The index summary, as a bundle stores it.
    pub summary: ItemRef,
    /// The static lane, where the index has one: see [`Meaning`].
    pub meaning: Option<Meaning>,
    /// What the index holds, as [`IndexSummary`](crate::IndexSummary)'s
    /// JSON without the files skipped and the errors (those are in
    /// `summary`): counts by language and kind, for the page's first view.
    pub brief: String,
}

impl Root {
    /// Each family of placed items: its name, the byte its items' names are
    /// made with, and what the root says of it.
    pub fn families(&self) -> impl Iterator<Item = (&'static str, u8, &Placed)> {
        let graph = [
            ("postings", POSTINGS, &self.postings),
            ("name pages", NAMES, &self.names),
            ("node pages", NODES, &self.nodes),
            ("edge runs", EDGES, &self.edges),
            ("more edges", MORE, &self.more),
        ];
        let meaning = self.meaning.iter().flat_map(|m| {
            [
                ("groups", GROUPS, &m.groups),
                ("partitions", PARTS, &m.parts),
                ("rows", ROWS, &m.rows),
                ("table pages", PIECES, &m.pieces),
            ]
        });
        graph.into_iter().chain(meaning)
    }

    /// The family of placed items whose names are made with `kind`.
    pub fn family(&self, kind: u8) -> Option<&Placed> {
        self.families().find(|&(_, k, _)| k == kind).map(|(.., placed)| placed)
    }
}

/// A family of placed items: how many, the most one inflates to, and for
/// runs of nodes each one's first node id (stored as the difference from
/// the one before).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Placed {
    pub count: u32,
    pub max: u32,
    /// Every item's bytes as stored, together: what a question that reads
    /// many says it will fetch, before it does.
    pub bytes: u64,
    #[serde(with = "runs")]
    pub first: Vec<u32>,
    /// For a packed family, each item's slot in its pack (the most one
    /// stores); 0 where each item is a file of its own.
    pub stride: u32,
}

/// The static lane of a split bundle, read by a query's word pieces: the
/// head ([`MeaningHead`]: the groups' centroids, the codes' points), each
/// group's partitions' coded centroids and sizes ([`GroupItem`]), each
/// partition's chunks' codes ([`PartItem`], placed by partition), the
/// chunks' rows in partition order ([`RowPage`]), and the table's rows with
/// the corpus's count of each piece ([`PiecePage`]). A query reads its
/// pieces' pages and the head, its nearest groups, their nearest
/// partitions, and the rows of the best chunks by their codes, which it
/// scores exactly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Meaning {
    /// The table the vectors were made with, as
    /// [`fathom_static::StaticModel::id`] names it: a reader embeds queries
    /// with that table's tokenizer.
    pub table: String,
    pub dim: u32,
    /// The table's pieces, and how many chunks the corpus counts pieces in.
    pub vocabulary: u32,
    pub documents: u32,
    pub head: ItemRef,
    pub groups: Placed,
    pub parts: Placed,
    pub rows: Placed,
    pub pieces: Placed,
}

/// What a query reads of the static lane before any partition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeaningHead {
    /// Each group's centroid (unit length), `dim` int8 with a scale, and
    /// where its partitions start (group `g` holds partitions
    /// `groups[g]..groups[g + 1]`).
    pub coarse: Vec<i8>,
    pub coarse_scales: Vec<f32>,
    pub groups: Vec<u32>,
    /// Where each group's rows start, and where the last ends: the row
    /// pages hold the chunks of partition 0, then 1, and so on.
    pub group_rows: Vec<u32>,
    /// The points of the partitions' centroids' codes ([`GroupItem`]).
    pub centres: Book,
    /// The points of the chunks' codes.
    pub residuals: Book,
}

/// A group's partitions, what a query reads of the groups nearest it:
/// each one's centroid as the code of its difference from the group's,
/// packed ([`fathom_search::partition::Quantiser::pack`]), and how many
/// chunks each holds. Held apart from the head, so that what a query reads
/// first grows with the groups (about the square root of the partitions),
/// not the partitions: 6,900 partitions' codes are 213 KB gzipped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupItem {
    pub centre_codes: Vec<u8>,
    pub sizes: Vec<u32>,
}

/// A quantiser's points as stored ([`fathom_search::partition::Quantiser::stored`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Book {
    pub runs: u32,
    pub points: u32,
    pub books: Vec<i8>,
    pub scale: f32,
}

impl Book {
    fn of(quantiser: &fathom_search::partition::Quantiser) -> Book {
        let (books, scale) = quantiser.book_bytes();
        Book { runs: quantiser.parts as u32, points: quantiser.codes as u32, books, scale }
    }

    /// The quantiser, where its shape is whole for `dim`.
    pub fn quantiser(&self, dim: usize) -> Option<fathom_search::partition::Quantiser> {
        let (runs, points) = (self.runs as usize, self.points as usize);
        let whole =
            runs > 0 && dim.is_multiple_of(runs) && (1..=256).contains(&points) && self.books.len() == points * dim;
        whole.then(|| fathom_search::partition::Quantiser::stored(dim, runs, points, &self.books, self.scale))
    }
}

/// A partition: each of its chunks' codes, in the order of its rows (the
/// row pages say which chunk each is), packed as the head's residual book
/// packs them ([`fathom_search::partition::Quantiser::pack`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartItem {
    pub codes: Vec<u8>,
}

/// Chunks' vectors, exactly as the whole index scans them, with what
/// ranking weighs of each chunk's symbol (as a posting holds it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowPage {
    pub rows: Vec<Row>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub chunk: u32,
    pub of: Chunk,
    pub file: u32,
    pub flags: u8,
    pub row: Vec<i8>,
    pub scale: f32,
}

/// The table's rows of `PIECES_PER_PAGE` pieces from the page's first,
/// each with its scale and in how many chunks the corpus has it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PiecePage {
    pub rows: Vec<i8>,
    pub scales: Vec<f32>,
    pub counts: Vec<u32>,
}

/// The families of placed items, as their names are made.
pub const POSTINGS: u8 = b'p';
pub const NAMES: u8 = b'm';
pub const NODES: u8 = b'n';
pub const EDGES: u8 = b'e';
pub const MORE: u8 = b'r';
pub const PARTS: u8 = b'v';
pub const GROUPS: u8 = b'g';
pub const ROWS: u8 = b'w';
pub const PIECES: u8 = b't';
/// The families whose items are packed ([`Placed::span`]): each a row of
/// int8 and a few numbers, so all about one size, and many (one for each
/// chunk, one for each piece of the table).
const PACKED_FAMILIES: [u8; 2] = [ROWS, PIECES];

/// A pack of a family's items is named as a placed item of the family's
/// byte with this bit set.
const PACKED: u8 = 0x80;

impl Placed {
    /// The reference of item `at`.
    pub fn item(&self, tag: &[u8; crate::store::HASH], family: u8, at: usize) -> Option<ItemRef> {
        (at < self.count as usize).then(|| ItemRef::placed(tag, family, at as u32, self.max))
    }

    /// How many items a pack holds, for a packed family.
    fn per_pack(&self) -> u64 {
        (crate::store::PACK_BYTES / u64::from(self.stride.max(1))).max(1)
    }

    /// The reference of pack `p`, for a packed family.
    fn pack(&self, tag: &[u8; crate::store::HASH], family: u8, p: u64) -> ItemRef {
        ItemRef::placed(tag, family | PACKED, p as u32, self.max)
    }

    /// Where item `at` is, for a packed family.
    pub fn span(&self, tag: &[u8; crate::store::HASH], family: u8, at: usize) -> Option<Span> {
        if self.stride == 0 || at >= self.count as usize {
            return None;
        }
        let (pack, slot) = (at as u64 / self.per_pack(), at as u64 % self.per_pack());
        Some(Span { pack: self.pack(tag, family, pack), offset: slot * u64::from(self.stride), length: self.stride })
    }

    /// How many files the family's items are: one each, or their packs.
    pub fn files(&self) -> usize {
        if self.stride == 0 { self.count as usize } else { (self.count as usize).div_ceil(self.per_pack() as usize) }
    }

    /// A packed family's packs, each with the items it holds.
    pub fn packs(&self, tag: &[u8; crate::store::HASH], family: u8) -> Vec<(ItemRef, std::ops::Range<usize>)> {
        if self.stride == 0 {
            return Vec::new();
        }
        let per = self.per_pack() as usize;
        (0..self.files())
            .map(|p| (self.pack(tag, family, p as u64), p * per..((p + 1) * per).min(self.count as usize)))
            .collect()
    }

    /// The run holding node `id`.
    pub fn run_of(&self, id: u32) -> usize {
        self.first.partition_point(|first| *first <= id).saturating_sub(1)
    }
}

/// What a file is, as a page carries it: its path, language and module,
/// its role for ranking (and the files it is made from), and the item of
/// its text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileHead {
    pub id: u32,
    pub path: String,
    pub language: Language,
    pub module: u32,
    pub role: Judged,
    pub sources: Vec<String>,
    /// Its [`FileItem`].
    pub text: ItemRef,
}

/// A file opened: its text, and its syntax colours, made where the grammars
/// are (a viewer carries none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileItem {
    pub text: String,
    pub colours: Colours,
}

/// A run of nodes in id order, with every detail; their chunks; the heads
/// of their files; and of those files the lines their snippets read
/// ([`fathom_search::snippet::lines_read`] of each chunk and of the node's
/// span, each line cut as a snippet cuts it), so a hit shows as the whole
/// index shows it without its file's text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodePage {
    pub files: Vec<FileHead>,
    pub nodes: Vec<(u32, Node)>,
    pub chunks: Vec<(u32, Chunk)>,
    pub lines: Vec<Lines>,
}

/// Consecutive lines of a file, from line `first` (1-based).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lines {
    pub file: u32,
    pub first: u32,
    pub lines: Vec<String>,
}

/// A file's [`Highlights`](fathom_parse::Highlights), small: four numbers a
/// span (its line as the difference from the last span's, its start as the
/// difference from the last span's end on the same line, its length and
/// its class), each a varint as postcard writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Colours {
    pub spans: Vec<u32>,
    pub truncated: bool,
}

impl Colours {
    pub fn of(highlights: &fathom_parse::Highlights) -> Colours {
        let mut spans = Vec::with_capacity(highlights.spans.len() * 4);
        let (mut line, mut end) = (0u32, 0u32);
        for &[at, start, stop, class] in &highlights.spans {
            let from = if at == line { start.wrapping_sub(end) } else { start };
            spans.extend([at.wrapping_sub(line), from, stop.wrapping_sub(start), class]);
            (line, end) = (at, stop);
        }
        Colours { spans, truncated: highlights.truncated }
    }

    /// The highlights back; `None` where the numbers do not make spans.
    pub fn highlights(&self) -> Option<fathom_parse::Highlights> {
        if !self.spans.len().is_multiple_of(4) {
            return None;
        }
        let (mut line, mut end) = (0u32, 0u32);
        let mut spans = Vec::with_capacity(self.spans.len() / 4);
        for span in self.spans.chunks_exact(4) {
            let at = line.checked_add(span[0])?;
            let start = if span[0] == 0 { end.checked_add(span[1])? } else { span[1] };
            let stop = start.checked_add(span[2])?;
            if span[3] as usize >= fathom_parse::CLASSES.len() {
                return None;
            }
            spans.push([at, start, stop, span[3]]);
            (line, end) = (at, stop);
        }
        Some(fathom_parse::Highlights { classes: fathom_parse::CLASSES.to_vec(), spans, truncated: self.truncated })
    }
}

/// A run of node ids in brief (without details), every edge that starts or
/// ends at one of them (by the whole graph's edge id), the nodes at those
/// edges' other ends in brief, and the heads of the files any of these are
/// in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EdgeRun {
    pub nodes: Vec<(u32, Node)>,
    pub edges: Vec<(u32, u32, u32, Edge)>,
    pub far: Vec<(u32, Node)>,
    pub files: Vec<FileHead>,
}

/// A term's posting in a chunk, with what ranking weighs of the chunk's
/// symbol before it reads the symbol's page.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Posting {
    pub chunk: u32,
    /// The chunk's node, and its file.
    pub node: u32,
    pub file: u32,
    /// BM25's weight of the term in the chunk, as the whole index holds it.
    pub weight: f32,
    /// [`Flags`] of the node.
    pub flags: u8,
}

/// A symbol's file's role, whether that file is made from others, and
/// whether the symbol declares a definition elsewhere, in one byte.
pub struct Flags;

impl Flags {
    const ROLES: [Role; 6] = [Role::Source, Role::Test, Role::Docs, Role::Build, Role::Vendored, Role::Generated];

    pub fn of(role: Role, has_sources: bool, declared: bool) -> u8 {
        let role = Self::ROLES.iter().position(|&r| r == role).expect("every role is listed") as u8;
        role | (u8::from(has_sources) << 3) | (u8::from(declared) << 4)
    }

    /// The role, whether the file has sources, whether the symbol declares.
    pub fn read(flags: u8) -> (Role, bool, bool) {
        let role = Self::ROLES.get(usize::from(flags & 7)).copied().unwrap_or(Role::Source);
        (role, flags & 8 != 0, flags & 16 != 0)
    }
}

/// The terms of one range of hashes, each with every chunk holding it, as
/// stored: column by column, each id as the difference from the one before,
/// so that gzip finds the runs (a term's chunks are close, its nodes and
/// files closer, and most flags are alike).
pub type PostingsItem = Vec<(u32, Columns)>;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Columns {
    #[serde(deserialize_with = "fitted")]
    chunks: Vec<i32>,
    #[serde(deserialize_with = "fitted")]
    nodes: Vec<i32>,
    #[serde(deserialize_with = "fitted")]
    files: Vec<i32>,
    #[serde(deserialize_with = "fitted")]
    weights: Vec<f32>,
    #[serde(deserialize_with = "fitted")]
    flags: Vec<u8>,
}

/// The most elements a list read by [`fitted`] reserves before they arrive.
const RESERVED_AHEAD: usize = 1 << 20;

/// A list read into as much room as its stated length, where serde's own
/// reserves a mebibyte and doubles from there: a common term's columns (on
/// the 50k set, 315,000 postings) held two fifths more than their length,
/// and each doubling held the old list beside the new. A length an item
/// states falsely reserves no more than [`RESERVED_AHEAD`] elements at a
/// time: the rest grows as elements arrive, each at least a byte of an
/// item whose size its family bounds.
fn fitted<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
    struct Fitted<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Fitted<T> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list")
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let stated = seq.size_hint().unwrap_or(0);
            let mut list = Vec::with_capacity(stated.min(RESERVED_AHEAD));
            while let Some(value) = seq.next_element()? {
                if list.len() == list.capacity() {
                    match stated.saturating_sub(list.len()) {
                        0 => list.reserve(1),
                        left => list.reserve_exact(left.min(RESERVED_AHEAD)),
                    }
                }
                list.push(value);
            }
            Ok(list)
        }
    }
    deserializer.deserialize_seq(Fitted(std::marker::PhantomData))
}

impl Columns {
    pub fn of(postings: &[Posting]) -> Columns {
        let delta = |values: &mut dyn Iterator<Item = u32>| {
            let mut last = 0i64;
            values
                .map(|v| {
                    let d = i64::from(v) - last;
                    last = i64::from(v);
                    d as i32
                })
                .collect()
        };
        Columns {
            chunks: delta(&mut postings.iter().map(|p| p.chunk)),
            nodes: delta(&mut postings.iter().map(|p| p.node)),
            files: delta(&mut postings.iter().map(|p| p.file)),
            weights: postings.iter().map(|p| p.weight).collect(),
            flags: postings.iter().map(|p| p.flags).collect(),
        }
    }

    /// How many postings the columns hold.
    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The postings back, in order, one at a time (a common term has one
    /// for most chunks: a list of them, beside the columns, doubled what
    /// reading it held at once); `None` where the columns disagree in
    /// length, and a `None` in place of a posting whose ids run out of range.
    pub fn postings(&self) -> Option<impl Iterator<Item = Option<Posting>> + '_> {
        let n = self.chunks.len();
        if [self.nodes.len(), self.files.len(), self.weights.len(), self.flags.len()].iter().any(|&l| l != n) {
            return None;
        }
        let (mut chunk, mut node, mut file) = (0i64, 0i64, 0i64);
        Some((0..n).map(move |i| {
            chunk += i64::from(self.chunks[i]);
            node += i64::from(self.nodes[i]);
            file += i64::from(self.files[i]);
            Some(Posting {
                chunk: u32::try_from(chunk).ok()?,
                node: u32::try_from(node).ok()?,
                file: u32::try_from(file).ok()?,
                weight: self.weights[i],
                flags: self.flags[i],
            })
        }))
    }
}

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
    /// [`Flags`] of the node; the name of what holds it, and its file's path.
    pub flags: u8,
    pub parent: Option<String>,
    pub path: Option<String>,
    /// Something outside the archive: no search finds it by name, but a
    /// graph query that names it does.
    pub external: bool,
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
    pub nodes: Family,
    pub edges: Family,
    pub more: Family,
    pub files: Family,
    pub summary: Family,
    pub meaning: Family,
}

impl SplitReport {
    /// Each family of items, by name.
    pub fn families(&self) -> [(&'static str, Family); 8] {
        [
            ("postings", self.postings),
            ("names", self.names),
            ("node pages", self.nodes),
            ("edge runs", self.edges),
            ("more edges", self.more),
            ("files", self.files),
            ("summary", self.summary),
            ("meaning", self.meaning),
        ]
    }

    /// Every byte of the bundle, root and items.
    pub fn bytes(&self) -> u64 {
        self.root_bytes + self.families().iter().map(|(_, f)| f.bytes).sum::<u64>()
    }
}

impl Split {
    /// An item's bytes as its host serves them: its own, or its slot of
    /// its pack.
    pub fn bytes(&self, item: &ItemRef, span: Option<&Span>) -> Option<Vec<u8>> {
        match span {
            None => self.items.get(item).cloned(),
            Some(span) => {
                let pack = self.items.get(&span.pack)?;
                let start = usize::try_from(span.offset).ok()?;
                Some(pack.get(start..start + span.length as usize)?.to_vec())
            }
        }
    }

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
        let chunks = self.retrieval.chunks().whole();

        // What ranking weighs of each node before reading its page.
        let flags: Vec<u8> = graph
            .nodes()
            .map(|(id, _)| {
                let (role, has_sources) = self.retrieval.file_role(graph, id).unwrap_or_default();
                Flags::of(role, has_sources, graph.declared(id).is_some())
            })
            .collect();
        // Postings, by term, in chunk order.
        let lexical = self.retrieval.stored_lexical();
        let mut by_term: HashMap<u32, Vec<Posting>> = HashMap::new();
        let mut plain_postings = 0usize;
        for (chunk, list) in lexical.postings.iter().enumerate() {
            let node = chunks[chunk].node;
            let file = graph.node(node).file.map_or(u32::MAX, |f| f.0);
            let (node, flags) = (node.index() as u32, flags[node.index()]);
            for &(term, weight) in list {
                by_term.entry(term).or_default().push(Posting { chunk: chunk as u32, node, file, weight, flags });
                plain_postings += 14;
            }
        }
        let ranges = plain_postings.div_ceil(POSTINGS_BYTES).max(1);
        let mut shards: Vec<PostingsItem> = vec![Vec::new(); ranges];
        for (term, list) in by_term {
            shards[term_range(term, ranges)].push((term, Columns::of(&list)));
        }
        let mut placed: Vec<(u8, Vec<u8>, u64, u32)> = Vec::new();
        let mut place = |family: &mut Family, kind: u8, (bytes, checksum, plain): (Vec<u8>, u64, u32)| {
            family.items += 1;
            family.bytes += bytes.len() as u64;
            family.plain += u64::from(plain);
            placed.push((kind, bytes, checksum, plain));
        };
        for mut shard in shards {
            shard.sort_unstable_by_key(|(term, _)| *term);
            place(&mut report.postings, POSTINGS, seal_placed(&shard));
        }

        // Names, in the name index's order, cut into pages.
        let mut entries: Vec<NameEntry> = graph
            .nodes()
            .filter(|(_, n)| !n.is_external || !n.name.is_empty())
            .map(|(id, n)| NameEntry {
                external: n.is_external,
                key: n.name.to_lowercase(),
                node: id.index() as u32,
                name: n.name.clone(),
                qualified_name: n.qualified_name.clone(),
                kind: n.kind,
                file: n.file.map(|f| f.0),
                line: n.span.start_line,
                flags: flags[id.index()],
                parent: graph.parent(id).map(|p| graph.node(p).name.clone()),
                path: graph.path_of(id).map(str::to_owned),
            })
            .collect();
        entries.sort_by(|a, b| {
            a.key.cmp(&b.key).then_with(|| a.qualified_name.cmp(&b.qualified_name)).then(a.node.cmp(&b.node))
        });
        // Digests of the names more symbols share than a digest holds.
        let index = self.retrieval.names();
        let mut digests: Vec<(String, ItemRef)> = Vec::new();
        for run in entries.chunk_by(|a, b| a.key == b.key).filter(|run| run.len() > DIGEST_SHARED) {
            let key = &run[0].key;
            let wanted: Vec<u32> = index
                .exact_digest(graph, key, fathom_search::retrieval::NAME_LANE_DEPTH)
                .into_iter()
                .map(|n| n.index() as u32)
                .collect();
            let digest: Vec<&NameEntry> = run.iter().filter(|e| wanted.binary_search(&e.node).is_ok()).collect();
            digests.push((key.clone(), keep(&mut report.names, seal(&digest))));
        }
        let mut name_keys: Vec<String> = Vec::new();
        let mut name_quals: Vec<(u32, String)> = Vec::new();
        let mut last_key = String::new();
        let mut page: Vec<NameEntry> = Vec::new();
        let mut size = 0;
        let mut cut = |page: Vec<NameEntry>, name_keys: &mut Vec<String>, last_key: &mut String| {
            let first =
                page.first().map_or((String::new(), String::new()), |e| (e.key.clone(), e.qualified_name.clone()));
            // A page that goes on with its last page's name says which
            // qualified name it starts at.
            if !name_keys.is_empty() && first.0 == *last_key {
                name_quals.push((name_keys.len() as u32, first.1));
            }
            *last_key = page.last().map(|e| e.key.clone()).unwrap_or_default();
            name_keys.push(first.0);
            place(&mut report.names, NAMES, seal_placed(&page));
        };
        for entry in entries {
            size += entry.key.len() + entry.name.len() + entry.qualified_name.len() + 12;
            page.push(entry);
            if size >= NAME_PAGE_BYTES {
                cut(std::mem::take(&mut page), &mut name_keys, &mut last_key);
                size = 0;
            }
        }
        if !page.is_empty() || name_keys.is_empty() {
            cut(page, &mut name_keys, &mut last_key);
        }

        // Files: each one's text and colours, an item named by its head.
        let roles = self.retrieval.roles();
        let heads: Vec<FileHead> = graph
            .files()
            .iter()
            .enumerate()
            .map(|(id, file)| {
                let text = &self.texts[id];
                let colours = Colours::of(&fathom_parse::highlight(file.language, text));
                let item = FileItem { text: text.clone(), colours };
                FileHead {
                    id: id as u32,
                    path: file.path.clone(),
                    language: file.language,
                    module: file.module.index() as u32,
                    role: roles.of(&file.path).clone(),
                    sources: roles.sources_of(&file.path).to_vec(),
                    text: keep(&mut report.files, seal(&item)),
                }
            })
            .collect();
        // The graph: node pages and edge runs.
        let mut chunks_of: Vec<Vec<u32>> = vec![Vec::new(); graph.node_count()];
        for (i, chunk) in chunks.iter().enumerate() {
            chunks_of[chunk.node.index()].push(i as u32);
        }
        // Each node's edges, those a search reads and the rest.
        let mut edges_at: Vec<Vec<u32>> = vec![Vec::new(); graph.node_count()];
        let mut more_at: Vec<Vec<u32>> = vec![Vec::new(); graph.node_count()];
        let edges: Vec<(u32, u32, &Edge)> =
            graph.edges().map(|(_, from, to, edge)| (from.index() as u32, to.index() as u32, edge)).collect();
        for (id, &(from, to, edge)) in edges.iter().enumerate() {
            let at = if searched(graph, from, to, edge) { &mut edges_at } else { &mut more_at };
            at[from as usize].push(id as u32);
            if to != from {
                at[to as usize].push(id as u32);
            }
        }
        let node = |at: usize| graph.node(fathom_graph::NodeId::new(at));
        let runs = |limit: usize, size: &dyn Fn(usize) -> usize| {
            let mut cuts: Vec<std::ops::Range<usize>> = Vec::new();
            let mut from = 0;
            while from < graph.node_count() {
                let (mut to, mut bytes) = (from, 0);
                while to < graph.node_count() && (bytes < limit || to == from) {
                    bytes += size(to);
                    to += 1;
                }
                cuts.push(from..to);
                from = to;
            }
            cuts
        };
        let file_lines: Vec<Vec<&str>> = self.texts.iter().map(|text| text.lines().collect()).collect();
        let read = ReadLines { graph, chunks, chunks_of: &chunks_of, file_lines: &file_lines };
        let mut nodes_at: Vec<u32> = Vec::new();
        for range in read.pages(NODE_PAGE_BYTES) {
            nodes_at.push(range.start as u32);
            place(&mut report.nodes, NODES, seal_placed(&node_page(graph, &heads, &read, range)));
        }
        let edge_bytes = |at: usize| 48 + node(at).qualified_name.len() + 40 * edges_at[at].len();
        let mut edges_first: Vec<u32> = Vec::new();
        for range in runs(EDGE_RUN_BYTES, &edge_bytes) {
            edges_first.push(range.start as u32);
            let run = edge_run(graph, &heads, &edges_at, &edges, range, true);
            place(&mut report.edges, EDGES, seal_placed(&run));
        }
        // The rest of the edges, in runs of their own (their nodes are in
        // the edge runs).
        let more_bytes = |at: usize| 2 + 40 * more_at[at].len();
        let mut more_first: Vec<u32> = Vec::new();
        for range in runs(EDGE_RUN_BYTES, &more_bytes) {
            more_first.push(range.start as u32);
            let run = edge_run(graph, &heads, &more_at, &edges, range, false);
            place(&mut report.more, MORE, seal_placed(&run));
        }
        // The static lane: partitions, their codes, rows, the table's pages.
        let meaning_head = self.retrieval.static_lane().map(|lane| {
            let (head, groups, parts, rows, pieces) = meaning_items(lane, chunks, graph, &flags);
            groups.iter().for_each(|group| place(&mut report.meaning, GROUPS, seal_placed(group)));
            parts.iter().for_each(|part| place(&mut report.meaning, PARTS, seal_placed(part)));
            rows.iter().for_each(|page| place(&mut report.meaning, ROWS, seal_packed(page)));
            pieces.iter().for_each(|page| place(&mut report.meaning, PIECES, seal_packed(page)));
            let figures = (lane.vectors().dim() as u32, lane.model().vocabulary() as u32, lane.corpus().documents());
            (lane.table().to_owned(), figures, head)
        });
        // The tag names the placed items: of all their checksums, so a
        // bundle's placed names change whenever any of them does.
        let mut tag = <sha2::Sha256 as sha2::Digest>::new();
        for (kind, _, checksum, _) in &placed {
            sha2::Digest::update(&mut tag, [*kind]);
            sha2::Digest::update(&mut tag, checksum.to_le_bytes());
        }
        let tag: [u8; crate::store::HASH] =
            sha2::Digest::finalize(tag)[..crate::store::HASH].try_into().expect("a SHA-256 is 32 bytes");
        let family = |kind: u8, first: Vec<u32>| {
            let of_kind = placed.iter().filter(|(k, ..)| *k == kind);
            let max = of_kind.clone().map(|(.., plain)| *plain).max().unwrap_or(0);
            let count = of_kind.clone().count() as u32;
            let (bytes, stride) = if PACKED_FAMILIES.contains(&kind) {
                let stride = of_kind.map(|(_, bytes, ..)| bytes.len() as u32).max().unwrap_or(0);
                (u64::from(count) * u64::from(stride), stride)
            } else {
                (of_kind.map(|(_, bytes, ..)| bytes.len() as u64).sum(), 0)
            };
            Placed { count, max, bytes, first, stride }
        };
        let (postings, names, nodes, edges_placed, more) = (
            family(POSTINGS, Vec::new()),
            family(NAMES, Vec::new()),
            family(NODES, nodes_at),
            family(EDGES, edges_first),
            family(MORE, more_first),
        );
        let summary = keep(&mut report.summary, seal(&self.stored_summary()));
        let meaning = meaning_head.map(|(table, (dim, vocabulary, documents), head)| Meaning {
            table,
            dim,
            vocabulary,
            documents,
            head: keep(&mut report.meaning, seal(&head)),
            groups: family(GROUPS, Vec::new()),
            parts: family(PARTS, Vec::new()),
            rows: family(ROWS, Vec::new()),
            pieces: family(PIECES, Vec::new()),
        });
        let brief = crate::IndexSummary { skipped: Vec::new(), errors: Vec::new(), ..self.summary.clone() };
        let brief = serde_json::to_string(&brief).expect("the summary is plain data");

        let header = serde_json::to_string(&self.header(SPLIT_FORMAT, Vec::new())).expect("the header is plain data");
        let avgdl = self.retrieval.params(Default::default()).bm25.avgdl;
        let root = Root {
            header,
            avgdl,
            tag,
            postings,
            names,
            name_keys,
            name_quals,
            digests,
            nodes,
            edges: edges_placed,
            more,
            summary,
            meaning,
            brief,
        };
        let mut counts: HashMap<u8, u32> = HashMap::new();
        for (kind, mut bytes, _, _) in placed {
            let at = counts.entry(kind).or_default();
            let of = root.family(kind).expect("every placed item's family is in the root");
            match of.span(&tag, kind, *at as usize) {
                // Packed: in its slot, zeros after it.
                Some(span) => {
                    bytes.resize(span.length as usize, 0);
                    items.entry(span.pack).or_default().extend_from_slice(&bytes);
                }
                None => drop(items.insert(ItemRef::placed(&tag, kind, *at, of.max), bytes)),
            }
            *at += 1;
        }
        let root = encode_root(&root);
        report.root_bytes = root.len() as u64;
        Split { root, items, report }
    }
}

/// The static lane's items (see [`Meaning`]): the head, each partition's,
/// the row pages and the table's pages.
fn meaning_items(
    lane: &fathom_search::retrieval::StaticLane,
    chunks: &[Chunk],
    graph: &fathom_graph::CodeGraph,
    flags: &[u8],
) -> (MeaningHead, Vec<GroupItem>, Vec<PartItem>, Vec<RowPage>, Vec<PiecePage>) {
    let vectors = lane.vectors();
    let coded = fathom_search::partition::Coded::build(vectors, PARTITION_CHUNKS);
    let parts = &coded.parts;
    let items = coded.codes.iter().map(|codes| PartItem { codes: coded.residuals.pack(codes) }).collect();
    let held: Vec<u32> = parts.members.iter().flatten().copied().collect();
    let rows: Vec<RowPage> = held
        .chunks(ROWS_PER_PAGE)
        .map(|page| RowPage {
            rows: page
                .iter()
                .map(|&chunk| {
                    let (row, scale) = vectors.row(chunk as usize);
                    let of = chunks[chunk as usize].clone();
                    let node = of.node;
                    Row {
                        chunk,
                        file: graph.node(node).file.map_or(u32::MAX, |f| f.0),
                        flags: flags[node.index()],
                        of,
                        row: row.to_vec(),
                        scale,
                    }
                })
                .collect(),
        })
        .collect();
    let model = lane.model();
    let corpus = lane.corpus();
    let pieces = (0..model.vocabulary() as u32)
        .collect::<Vec<u32>>()
        .chunks(PIECES_PER_PAGE)
        .map(|ids| {
            let mut page = PiecePage { rows: Vec::new(), scales: Vec::new(), counts: Vec::new() };
            for &id in ids {
                let (row, scale) = model.row(id).expect("a piece of the table");
                page.rows.extend_from_slice(row);
                page.scales.push(scale);
                page.counts.push(corpus.count(id));
            }
            page
        })
        .collect();
    let mut coarse = Vec::with_capacity(parts.coarse.len());
    let mut coarse_scales = Vec::new();
    for c in parts.coarse.chunks_exact(parts.dim.max(1)) {
        let (q, scale) = fathom_static::quantise(c);
        coarse.extend(q);
        coarse_scales.push(scale);
    }
    let runs = coded.centres.parts;
    let mut group_rows = vec![0u32];
    let groups = parts
        .groups
        .windows(2)
        .map(|w| {
            let (from, to) = (w[0] as usize, w[1] as usize);
            let sizes: Vec<u32> = parts.members[from..to].iter().map(|m| m.len() as u32).collect();
            group_rows.push(group_rows.last().copied().unwrap_or(0) + sizes.iter().sum::<u32>());
            GroupItem { centre_codes: coded.centres.pack(&coded.centre_codes[from * runs..to * runs]), sizes }
        })
        .collect();
    let head = MeaningHead {
        coarse,
        coarse_scales,
        groups: parts.groups.clone(),
        group_rows,
        centres: Book::of(&coded.centres),
        residuals: Book::of(&coded.residuals),
    };
    (head, groups, items, rows, pieces)
}

/// Whether a search reads the edge: containment (what holds a symbol, a
/// class's members, a module's top level), a declaration, or an edge
/// expansion follows (calls, inheritance, imports) to a definition of the
/// archive. Edge runs carry only these: the rest (uses, tests, overrides,
/// decorators, calls out of the archive) are for graph queries.
fn searched(graph: &fathom_graph::CodeGraph, from: u32, to: u32, edge: &Edge) -> bool {
    use fathom_graph::{EdgeKind, NodeId};
    let inside = |id: u32| {
        let node = graph.node(NodeId::new(id as usize));
        !node.is_external && node.kind != SymbolKind::Package
    };
    edge.kind.is_containment()
        || edge.kind == EdgeKind::Declares
        || (matches!(edge.kind, EdgeKind::Calls | EdgeKind::Inherits | EdgeKind::Imports) && inside(from) && inside(to))
}

/// A node in brief: all but its details, save whether it is a test (which
/// a symbol's tests are found by).
fn brief(node: &Node) -> Node {
    let details = node.is_test().then(|| Box::new(fathom_graph::Details { is_test: true, ..Default::default() }));
    Node { details, ..node.clone() }
}

/// Where a node's snippet lines are: see [`NodePage`].
struct ReadLines<'a> {
    graph: &'a fathom_graph::CodeGraph,
    chunks: &'a [Chunk],
    chunks_of: &'a [Vec<u32>],
    file_lines: &'a [Vec<&'a str>],
}

impl ReadLines<'_> {
    /// The node's file, and the ranges of its lines a snippet of it reads
    /// (of any of its chunks, or of its span), in order and merged.
    fn of(&self, at: usize) -> Option<(u32, Vec<std::ops::RangeInclusive<u32>>)> {
        use fathom_search::snippet::lines_read;
        let node = self.graph.node(fathom_graph::NodeId::new(at));
        let file = node.file.filter(|_| !node.is_external)?.0;
        let mut ranges: Vec<std::ops::RangeInclusive<u32>> = self.chunks_of[at]
            .iter()
            .map(|&c| &self.chunks[c as usize])
            .map(|c| lines_read(c.start_line, c.end_line))
            .chain([lines_read(node.span.start_line, node.span.end_line)])
            .collect();
        Some((file, merge(&mut ranges)))
    }

    /// The nodes cut into runs of about `limit` bytes of lines and nodes:
    /// a line counted once in a run however many of its nodes read it (a
    /// module's top level and the functions in it share lines).
    fn pages(&self, limit: usize) -> Vec<std::ops::Range<usize>> {
        let count = self.graph.node_count();
        let mut cuts: Vec<std::ops::Range<usize>> = Vec::new();
        let mut from = 0;
        while from < count {
            let (mut to, mut bytes) = (from, 0);
            let mut covered: Vec<(u32, std::ops::RangeInclusive<u32>)> = Vec::new();
            while to < count && (bytes < limit || to == from) {
                bytes += 64 + self.graph.node(fathom_graph::NodeId::new(to)).qualified_name.len();
                for (file, range) in
                    self.of(to).into_iter().flat_map(|(f, ranges)| ranges.into_iter().map(move |r| (f, r)))
                {
                    let first = *range.start();
                    let new: usize = self
                        .lines(file, range.clone())
                        .zip(first..)
                        .filter(|(_, at)| !covered.iter().any(|(f, r)| *f == file && r.contains(at)))
                        .map(|(line, _)| line.len() + 1)
                        .sum();
                    bytes += new;
                    covered.push((file, range));
                }
                to += 1;
            }
            cuts.push(from..to);
            from = to;
        }
        cuts
    }

    /// Lines `range` of a file, as far as the file goes, each cut as a
    /// snippet cuts it.
    fn lines(&self, file: u32, range: std::ops::RangeInclusive<u32>) -> impl Iterator<Item = &str> {
        let lines = self.file_lines.get(file as usize).map_or(&[][..], Vec::as_slice);
        let (start, end) = (*range.start() as usize - 1, *range.end() as usize);
        lines[start.min(lines.len())..end.min(lines.len())]
            .iter()
            .map(|line| fathom_search::snippet::cut(line.strip_suffix('\r').unwrap_or(line)))
    }
}

/// Ranges sorted and merged where they touch or overlap.
fn merge(ranges: &mut [std::ops::RangeInclusive<u32>]) -> Vec<std::ops::RangeInclusive<u32>> {
    ranges.sort_by_key(|r| *r.start());
    let mut merged: Vec<std::ops::RangeInclusive<u32>> = Vec::new();
    for range in ranges.iter() {
        match merged.last_mut() {
            Some(last) if *range.start() <= last.end().saturating_add(1) => {
                *last = *last.start()..=*last.end().max(range.end());
            }
            _ => merged.push(range.clone()),
        }
    }
    merged
}

/// The node page of the nodes `range`: see [`NodePage`].
fn node_page(
    graph: &fathom_graph::CodeGraph,
    heads: &[FileHead],
    read: &ReadLines<'_>,
    range: std::ops::Range<usize>,
) -> NodePage {
    let mut page = NodePage { files: Vec::new(), nodes: Vec::new(), chunks: Vec::new(), lines: Vec::new() };
    let mut ranges: std::collections::BTreeMap<u32, Vec<std::ops::RangeInclusive<u32>>> = Default::default();
    for at in range {
        let node = graph.node(fathom_graph::NodeId::new(at));
        if let Some((file, read)) = read.of(at) {
            ranges.entry(file).or_default().extend(read);
        }
        page.nodes.push((at as u32, node.clone()));
        page.chunks.extend(read.chunks_of[at].iter().map(|&c| (c, read.chunks[c as usize].clone())));
    }
    // Every file a node of the page is in, with the lines it reads.
    let mut files: Vec<u32> = page.nodes.iter().filter_map(|(_, n)| n.file.map(|f| f.0)).collect();
    files.sort_unstable();
    files.dedup();
    page.files = files.into_iter().map(|f| heads[f as usize].clone()).collect();
    for (file, mut ranges) in ranges {
        for range in merge(&mut ranges) {
            let first = *range.start();
            let lines: Vec<String> = read.lines(file, range).map(str::to_owned).collect();
            if !lines.is_empty() {
                page.lines.push(Lines { file, first, lines });
            }
        }
    }
    page
}

/// The edge run of the nodes `range`, of the edges `edges_at` lists at
/// each: see [`EdgeRun`]. Without `with_nodes`, the run's own nodes are
/// left out (another run holds them).
fn edge_run(
    graph: &fathom_graph::CodeGraph,
    heads: &[FileHead],
    edges_at: &[Vec<u32>],
    edges: &[(u32, u32, &Edge)],
    range: std::ops::Range<usize>,
    with_nodes: bool,
) -> EdgeRun {
    use fathom_graph::NodeId;
    let inside = |id: u32| range.contains(&(id as usize));
    let mut run = EdgeRun { nodes: Vec::new(), edges: Vec::new(), far: Vec::new(), files: Vec::new() };
    let mut edge_ids: Vec<u32> = Vec::new();
    for at in range.clone() {
        if with_nodes {
            run.nodes.push((at as u32, brief(graph.node(NodeId::new(at)))));
        }
        edge_ids.extend(&edges_at[at]);
    }
    edge_ids.sort_unstable();
    edge_ids.dedup();
    let mut far: Vec<u32> = Vec::new();
    for id in edge_ids {
        let (from, to, edge) = edges[id as usize];
        run.edges.push((id, from, to, *edge));
        far.extend([from, to].into_iter().filter(|&end| !inside(end)));
    }
    far.sort_unstable();
    far.dedup();
    run.far = far.into_iter().map(|id| (id, brief(graph.node(NodeId::new(id as usize))))).collect();
    let mut files: Vec<u32> = run.nodes.iter().chain(&run.far).filter_map(|(_, node)| node.file.map(|f| f.0)).collect();
    files.sort_unstable();
    files.dedup();
    run.files = files.into_iter().map(|f| heads[f as usize].clone()).collect();
    run
}

/// A directory of runs, each first id stored as the step from the last.
mod runs {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(firsts: &[u32], serializer: S) -> Result<S::Ok, S::Error> {
        let mut last = 0;
        let steps: Vec<u32> = firsts
            .iter()
            .map(|&first| {
                let step = first.wrapping_sub(last);
                last = first;
                step
            })
            .collect();
        steps.serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u32>, D::Error> {
        let steps: Vec<u32> = Vec::deserialize(deserializer)?;
        let mut at = 0u32;
        Ok(steps
            .into_iter()
            .map(|step| {
                at = at.wrapping_add(step);
                at
            })
            .collect())
    }
}

/// Which of `ranges` uniform ranges of hashes holds `term`.
pub fn term_range(term: u32, ranges: usize) -> usize {
    ((u64::from(term) * ranges as u64) >> 32) as usize
}

/// The root as stored: magic, format, checksum and gzipped postcard (what [`read_root`] reads).
pub fn encode_root(root: &Root) -> Vec<u8> {
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

#[cfg(test)]
mod tests {
    use super::{Colours, Columns, Posting, RESERVED_AHEAD};

    /// A long list of postings reads into lists as long as they are, and a
    /// list that states more elements than its item holds is refused
    /// without reserving room for them all.
    #[test]
    fn columns_read_into_room_of_their_length() {
        let postings: Vec<Posting> = (0..300_000u32)
            .map(|i| Posting { chunk: i, node: i / 4, file: i / 40, weight: 0.5, flags: (i % 3) as u8 })
            .collect();
        let bytes = postcard::to_allocvec(&Columns::of(&postings)).unwrap();
        let read: Columns = postcard::from_bytes(&bytes).unwrap();
        let lengths = [read.chunks.len(), read.nodes.len(), read.files.len(), read.weights.len(), read.flags.len()];
        let rooms = [
            read.chunks.capacity(),
            read.nodes.capacity(),
            read.files.capacity(),
            read.weights.capacity(),
            read.flags.capacity(),
        ];
        assert_eq!((lengths, rooms), ([300_000; 5], [300_000; 5]));
        assert!(read.postings().unwrap().map(Option::unwrap).eq(postings));
        // The first column states four billion elements (16 GB) and holds
        // three: refused, with room for a mebi-element at most reserved.
        let mut forged = postcard::to_allocvec(&u32::MAX).unwrap();
        forged.extend([2, 2, 2]);
        assert!(postcard::from_bytes::<Columns>(&forged).is_err());
        assert!(RESERVED_AHEAD * size_of::<i32>() <= 4 << 20);
    }

    #[test]
    fn colours_round_trip_and_refuse_what_makes_no_spans() {
        let text = "def total(xs):\n    return sum(xs)  # the sum\n\n\nclass Cart:\n    pass\n";
        let highlights = fathom_parse::highlight(fathom_model::Language::Python, text);
        assert!(highlights.spans.len() > 6, "{highlights:?}");
        let colours = Colours::of(&highlights);
        assert_eq!(colours.highlights(), Some(highlights));
        // Small: a span's numbers are differences, each a byte here.
        assert!(colours.spans.iter().all(|&n| n < 128), "{:?}", colours.spans);
        let mut forged = colours.clone();
        forged.spans[3] = fathom_parse::CLASSES.len() as u32;
        assert_eq!(forged.highlights(), None, "a class past the list");
        forged.spans.pop();
        assert_eq!(forged.highlights(), None, "a span cut short");
        let overflow = Colours { spans: vec![u32::MAX, 0, 1, 0, 1, 0, 1, 0], truncated: false };
        assert_eq!(overflow.highlights(), None, "lines past u32");
    }
}
