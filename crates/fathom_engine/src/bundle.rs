//! An [`Index`] as one portable file (`.fathom`), and back.
//!
//! A bundle holds everything a search or a query reads, so loading one never
//! parses, resolves or tokenises: the graph, the file texts, the summary, the
//! chunks, the lexical postings, the vectors and the HNSW graph.
//!
//! # Layout
//!
//! ```text
//! offset  size  what
//! 0       8     magic: \x89 F A T H O M \n
//! 8       4     format version, u32 little-endian (FORMAT_VERSION)
//! 12      4     header length H, u32 little-endian
//! 16      8     payload length P, u64 little-endian
//! 24      H     header: JSON (BundleHeader)
//! 24+H    P     payload: the sections, one after another
//! 24+H+P  8     checksum: xxh3-64 of every byte before it, u64 little-endian
//! ```
//!
//! The header says what the bundle is without decoding the payload: the
//! format and engine versions, the graph schema, the archive, the embedding
//! model, the indexing options, counts, and each section's name and size.
//! Each section is one value in postcard's encoding, stored as it is or as
//! one LZ4 block, as the header says. In format 1 the sections are, in order: `graph`, `texts`,
//! `summary`, `chunks`, `lexical`, `vectors` (MiniLM's, those the HNSW graph
//! does not hold) and `dense` (the HNSW graph, or none). Format 2 adds
//! `statics`: the static lane's vectors (int8), its word-piece counts and the
//! table they were made with, or none. A reader loads the table (a few MB)
//! to embed queries and uses the vectors as they are; a bundle may hold
//! them, MiniLM's, both or neither.
//!
//! # Reading
//!
//! A bundle is verified before it is decoded: magic, version, sizes, then the
//! checksum over the whole file, and only then the header and the sections.
//! Every refusal is a [`BundleError`] that names its cause; no input panics.
//! The decoded graph and index are checked for references that do not hold
//! (a node id past the end, a chunk of no node), since the code that walks
//! them indexes by id. The checksum guards against damage, not against a
//! forged file: the HNSW graph's neighbour lists are trusted to
//! instant-distance.
//!
//! # Compatibility
//!
//! postcard writes fields and enum variants by position, so any change to
//! a stored type (a field added, variants reordered) changes the format:
//! bump [`FORMAT_VERSION`]. Format 1 is still read (it has no static
//! vectors); a bundle of any other version is refused, and the archive is
//! indexed again. Lexical postings made by other terms or BM25
//! constants are rebuilt from the stored texts on load (see
//! [`fathom_search::lexical::StoredLexical::is_current`]).

use std::borrow::Cow;
use std::collections::HashMap;

use fathom_archive::Skipped;
use fathom_graph::CodeGraph;
use fathom_resolve::Stats;
use fathom_search::chunks::Chunk;
use fathom_search::dense::Dense;
use fathom_search::lexical::StoredLexical;
use fathom_search::retrieval::{Retrieval, StoredParts, StoredStatic};
use serde::{Deserialize, Serialize};

use crate::summary::{FileError, IndexSummary, Timings};
use crate::{GraphTexts, Index, Options};

/// The first bytes of every bundle. The high byte and the newline, as in
/// PNG's signature, catch a file mangled as text.
pub const MAGIC: [u8; 8] = *b"\x89FATHOM\n";
/// The layout and encoding this build writes; it reads this one and
/// [`OLDEST_READ`] on.
pub const FORMAT_VERSION: u32 = 2;
/// The oldest format this build reads: format 1, which lacks `statics`.
pub const OLDEST_READ: u32 = 1;
/// The file extension bundles are saved with.
pub const EXTENSION: &str = "fathom";

/// Magic, version, header length and payload length.
const PREFIX: usize = 24;
const CHECKSUM: usize = 8;
/// The sections of format 2, in order; format 1's are all but the last.
const SECTIONS: [&str; 8] = ["graph", "texts", "summary", "chunks", "lexical", "vectors", "dense", "statics"];

/// The sections of a format this build reads.
fn sections_of(format: u32) -> &'static [&'static str] {
    if format == 1 { &SECTIONS[..7] } else { &SECTIONS }
}

/// Why a bundle was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BundleError {
    #[error("not a Fathom bundle: it does not begin with the bundle magic bytes")]
    NotABundle,
    #[error(
        "written by bundle format v{found}; this build reads v{OLDEST_READ} to v{supported}; re-index the archive to make a v{supported} bundle"
    )]
    Version { found: u32, supported: u32 },
    #[error("truncated bundle: {actual} bytes where {expected} were expected")]
    Truncated { expected: u64, actual: u64 },
    #[error("damaged bundle: {actual} bytes where {expected} were expected (extra bytes after the checksum)")]
    TrailingBytes { expected: u64, actual: u64 },
    #[error("corrupt bundle: its checksum is {stored:016x} but its bytes hash to {computed:016x}")]
    Checksum { stored: u64, computed: u64 },
    #[error("undecodable bundle {part}: {cause}")]
    Undecodable { part: String, cause: String },
}

impl BundleError {
    fn undecodable(part: &str, cause: impl ToString) -> BundleError {
        BundleError::Undecodable { part: part.to_owned(), cause: cause.to_string() }
    }
}

/// What a bundle says about itself, readable without decoding its payload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BundleHeader {
    pub format: u32,
    /// The version of `fathom_engine` that wrote it.
    pub engine: String,
    /// `fathom_graph::SCHEMA_VERSION` of the stored graph.
    pub graph_schema: u32,
    pub archive: String,
    /// The model the vectors come from; `None` when unnamed or none embedded.
    pub model: Option<String>,
    /// The static table the static vectors were made with, when the bundle
    /// holds them (format 2 on).
    #[serde(default)]
    pub static_table: Option<String>,
    pub options: Options,
    pub counts: Counts,
    pub sections: Vec<Section>,
    /// What SCIP indexes gave the graph, when it was indexed with them:
    /// which files they covered, with which tool and version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scip: Option<fathom_scip::ScipReport>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub files: usize,
    pub nodes: usize,
    pub edges: usize,
    pub chunks: usize,
    /// Chunks with a vector.
    pub embedded: usize,
    /// Points of the HNSW graph, when it is built.
    pub dense_points: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Compression {
    None,
    /// One LZ4 block. A writer asked for LZ4 uses it for the sections it
    /// shrinks by a tenth or more: text and the graph, not vectors.
    Lz4,
}

/// One section of the payload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    pub name: String,
    pub compression: Compression,
    /// Bytes in the file.
    pub bytes: u64,
    /// Bytes once decompressed: the postcard encoding.
    pub raw_bytes: u64,
}

/// The summary's own facts; its counts are the graph's, computed again.
#[derive(Serialize, Deserialize)]
pub(crate) struct StoredSummary<'a> {
    archive: Cow<'a, str>,
    skipped: Cow<'a, [Skipped]>,
    errors: Cow<'a, [FileError]>,
    resolution: Cow<'a, Stats>,
    timings_ms: Timings,
}

impl StoredSummary<'_> {
    /// Puts what a summary's counts do not give into `summary` (a split
    /// bundle's reader, whose root counts).
    pub(crate) fn fill(self, summary: &mut IndexSummary) {
        summary.skipped = self.skipped.into_owned();
        summary.errors = self.errors.into_owned();
        summary.resolution = self.resolution.into_owned();
        summary.timings_ms = self.timings_ms;
    }
}

impl Index {
    /// The index as a bundle, LZ4-compressed where that pays: see the
    /// [module docs](self) for the layout.
    pub fn to_bundle(&self) -> Vec<u8> {
        self.to_bundle_with(Compression::Lz4)
    }

    /// The index as a bundle, its sections compressed as asked.
    pub fn to_bundle_with(&self, compression: Compression) -> Vec<u8> {
        let retrieval = &self.retrieval;
        let statics = retrieval.stored_static();
        let raw = [
            encode(&self.graph),
            encode(&self.texts),
            encode(&self.stored_summary()),
            encode(retrieval.chunks().whole()),
            encode(&retrieval.stored_lexical()),
            encode(&retrieval.loose_vectors()),
            encode(&retrieval.dense()),
            encode(&statics),
        ];
        let stored: Vec<(Compression, Cow<'_, [u8]>)> = raw.iter().map(|r| compress(compression, r)).collect();
        let sections = SECTIONS
            .iter()
            .zip(raw.iter().zip(&stored))
            .map(|(name, (raw, (compression, stored)))| Section {
                name: (*name).to_owned(),
                compression: *compression,
                bytes: stored.len() as u64,
                raw_bytes: raw.len() as u64,
            })
            .collect();
        let header = self.header(FORMAT_VERSION, sections);
        let header = serde_json::to_vec(&header).expect("the header is plain data");
        let payload: usize = stored.iter().map(|(_, s)| s.len()).sum();
        let mut out = Vec::with_capacity(PREFIX + header.len() + payload + CHECKSUM);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
        out.extend_from_slice(&(payload as u64).to_le_bytes());
        out.extend_from_slice(&header);
        for (_, section) in &stored {
            out.extend_from_slice(section);
        }
        let checksum = xxhash_rust::xxh3::xxh3_64(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// What a bundle's header says of this index; a split bundle's root
    /// says the same.
    pub(crate) fn header(&self, format: u32, sections: Vec<Section>) -> BundleHeader {
        let summary = &self.summary;
        let retrieval = &self.retrieval;
        BundleHeader {
            format,
            engine: env!("CARGO_PKG_VERSION").to_owned(),
            graph_schema: fathom_graph::SCHEMA_VERSION,
            archive: summary.archive.clone(),
            model: self.embedding_model.clone(),
            static_table: retrieval
                .static_lane()
                .map(|l| l.table())
                .or(retrieval.stored_static_table())
                .map(str::to_owned),
            options: self.options.clone(),
            scip: summary.scip.clone(),
            counts: Counts {
                files: self.graph.files().len(),
                nodes: self.graph.node_count(),
                edges: self.graph.edge_count(),
                chunks: retrieval.chunks().len(),
                embedded: retrieval.embedded(),
                dense_points: retrieval.dense().map(|d| d.params().points),
            },
            sections,
        }
    }

    /// The summary's own facts, as a bundle stores them.
    pub(crate) fn stored_summary(&self) -> StoredSummary<'_> {
        let summary = &self.summary;
        StoredSummary {
            archive: Cow::Borrowed(&summary.archive),
            skipped: Cow::Borrowed(&summary.skipped),
            errors: Cow::Borrowed(&summary.errors),
            resolution: Cow::Borrowed(&summary.resolution),
            timings_ms: summary.timings_ms,
        }
    }

    /// Reads a bundle back. It is verified whole before anything is decoded;
    /// see [`BundleError`] for what is refused.
    pub fn from_bundle(bytes: &[u8]) -> Result<Index, BundleError> {
        let (header, payload) = verify(bytes)?;
        let mut sections = split(&header, payload)?;
        let mut next = |name| sections.next().expect("split checked the names").decode_as(name);

        // A newer schema adds edge types and reasons this build cannot read
        // (they are appended, so an older schema always decodes).
        if header.graph_schema > fathom_graph::SCHEMA_VERSION {
            let cause = format!(
                "its graph schema v{} is newer than this build's v{}; re-index the archive with this build",
                header.graph_schema,
                fathom_graph::SCHEMA_VERSION
            );
            return Err(BundleError::undecodable("graph", cause));
        }
        let mut graph: CodeGraph = next("graph")?.value()?;
        graph.check_references().map_err(|e| BundleError::undecodable("graph", e))?;
        let texts: Vec<String> = next("texts")?.value()?;
        if texts.len() != graph.files().len() {
            let cause = format!("{} texts for {} files", texts.len(), graph.files().len());
            return Err(BundleError::undecodable("texts", cause));
        }
        // Graphs of schema 1 predate TESTS edges; they are inferred from the
        // graph and texts alone, so an older bundle gains them on load.
        if header.graph_schema < 2 {
            fathom_tests::link(&mut graph, &texts);
        }
        let summary: StoredSummary<'static> = next("summary")?.value()?;
        let parts = StoredParts {
            chunks: next("chunks")?.value::<Vec<Chunk>>()?,
            lexical: next("lexical")?.value::<StoredLexical<'static>>()?,
            vectors: next("vectors")?.value::<Vec<(u32, Vec<f32>)>>()?,
            dense: next("dense")?.value::<Option<Dense>>()?,
            statics: if header.format >= 2 { next("statics")?.value::<Option<StoredStatic>>()? } else { None },
        };
        let retrieval =
            Retrieval::restore(&GraphTexts { graph: &graph, texts: &texts, line_terms: None, name_terms: &[] }, parts)
                .map_err(|e| BundleError::undecodable("search index", e))?;

        let mut summary = IndexSummary::restore(
            &summary.archive,
            &graph,
            summary.skipped.into_owned(),
            summary.errors.into_owned(),
            summary.resolution.into_owned(),
            summary.timings_ms,
        );
        summary.scip = header.scip.clone();
        let by_path: HashMap<String, u32> =
            graph.files().iter().enumerate().map(|(at, f)| (f.path.clone(), at as u32)).collect();
        Ok(Index {
            graph,
            retrieval,
            texts,
            by_path,
            summary,
            options: header.options.clone(),
            embedding_model: header.model.clone(),
        })
    }
}

/// The header of a bundle, after the whole bundle is verified; nothing else
/// is decoded. Lets a caller see what a bundle holds (its archive, model and
/// counts) before loading it.
pub fn read_header(bytes: &[u8]) -> Result<BundleHeader, BundleError> {
    verify(bytes).map(|(header, _)| header)
}

/// Checks magic, version, sizes and checksum, in that order, then reads the
/// header. Returns the header and the payload's bytes.
fn verify(bytes: &[u8]) -> Result<(BundleHeader, &[u8]), BundleError> {
    let actual = bytes.len() as u64;
    if bytes.is_empty() {
        return Err(BundleError::NotABundle);
    }
    let magic = &bytes[..bytes.len().min(MAGIC.len())];
    if magic != &MAGIC[..magic.len()] {
        return Err(BundleError::NotABundle);
    }
    if bytes.len() < MAGIC.len() + 4 {
        return Err(BundleError::Truncated { expected: PREFIX as u64, actual });
    }
    let found = u32::from_le_bytes(bytes[8..12].try_into().expect("four bytes"));
    if !(OLDEST_READ..=FORMAT_VERSION).contains(&found) {
        return Err(BundleError::Version { found, supported: FORMAT_VERSION });
    }
    if bytes.len() < PREFIX {
        return Err(BundleError::Truncated { expected: PREFIX as u64, actual });
    }
    let header_len = u64::from(u32::from_le_bytes(bytes[12..16].try_into().expect("four bytes")));
    let payload_len = u64::from_le_bytes(bytes[16..24].try_into().expect("eight bytes"));
    let expected = (PREFIX as u64 + CHECKSUM as u64 + header_len).saturating_add(payload_len);
    if actual < expected {
        return Err(BundleError::Truncated { expected, actual });
    }
    if actual > expected {
        return Err(BundleError::TrailingBytes { expected, actual });
    }
    let (body, checksum) = bytes.split_at(bytes.len() - CHECKSUM);
    let stored = u64::from_le_bytes(checksum.try_into().expect("eight bytes"));
    let computed = xxhash_rust::xxh3::xxh3_64(body);
    if stored != computed {
        return Err(BundleError::Checksum { stored, computed });
    }
    let (header, payload) = body[PREFIX..].split_at(header_len as usize);
    let header: BundleHeader = serde_json::from_slice(header).map_err(|e| BundleError::undecodable("header", e))?;
    if header.format != found {
        let cause = format!("it says format v{} in a v{found} file", header.format);
        return Err(BundleError::undecodable("header", cause));
    }
    Ok((header, payload))
}

/// One section's stored bytes.
struct StoredSection<'a> {
    section: &'a Section,
    bytes: &'a [u8],
}

/// A section decompressed, ready to decode.
struct RawSection<'a> {
    name: &'a str,
    bytes: Cow<'a, [u8]>,
}

/// The payload cut into the sections the header lists, which must be the
/// sections of this format, in order, and fill it exactly.
fn split<'a>(
    header: &'a BundleHeader,
    payload: &'a [u8],
) -> Result<impl Iterator<Item = StoredSection<'a>>, BundleError> {
    let names: Vec<&str> = header.sections.iter().map(|s| s.name.as_str()).collect();
    let expected = sections_of(header.format);
    if names != expected {
        let cause = format!("it lists sections {names:?}; format v{} has {expected:?}", header.format);
        return Err(BundleError::undecodable("header", cause));
    }
    let total = header.sections.iter().try_fold(0u64, |sum, s| sum.checked_add(s.bytes));
    if total != Some(payload.len() as u64) {
        let cause = format!("its sections add up to {total:?} bytes; the payload is {} bytes", payload.len());
        return Err(BundleError::undecodable("header", cause));
    }
    let mut at = 0usize;
    Ok(header.sections.iter().map(move |section| {
        let bytes = &payload[at..at + section.bytes as usize];
        at += section.bytes as usize;
        StoredSection { section, bytes }
    }))
}

impl<'a> StoredSection<'a> {
    fn decode_as(self, name: &'a str) -> Result<RawSection<'a>, BundleError> {
        debug_assert_eq!(self.section.name, name);
        let bytes = decompress(self.section.compression, self.bytes, self.section.raw_bytes)
            .map_err(|cause| BundleError::undecodable(name, cause))?;
        Ok(RawSection { name, bytes })
    }
}

impl RawSection<'_> {
    /// The section's one value; bytes left over are an error.
    fn value<T: for<'de> Deserialize<'de>>(&self) -> Result<T, BundleError> {
        let (value, rest) =
            postcard::take_from_bytes::<T>(&self.bytes).map_err(|e| BundleError::undecodable(self.name, e))?;
        if !rest.is_empty() {
            return Err(BundleError::undecodable(self.name, format!("{} bytes left over", rest.len())));
        }
        Ok(value)
    }
}

fn encode<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    postcard::to_allocvec(value).expect("every stored type has a postcard form")
}

/// A section as stored: LZ4 when asked and when it saves a tenth or more
/// (vectors and hashes barely shrink, and would only cost time to load).
fn compress(compression: Compression, raw: &[u8]) -> (Compression, Cow<'_, [u8]>) {
    if compression == Compression::Lz4 {
        let packed = lz4_flex::block::compress(raw);
        if packed.len() <= raw.len() - raw.len() / 10 {
            return (Compression::Lz4, Cow::Owned(packed));
        }
    }
    (Compression::None, Cow::Borrowed(raw))
}

/// LZ4 expands at most 255 times; a header claiming more is refused before
/// anything is allocated.
const LZ4_MAX_RATIO: u64 = 255;

fn decompress(compression: Compression, stored: &[u8], raw_len: u64) -> Result<Cow<'_, [u8]>, String> {
    match compression {
        Compression::None if raw_len == stored.len() as u64 => Ok(Cow::Borrowed(stored)),
        Compression::None => Err(format!("{} bytes stored, {raw_len} said", stored.len())),
        Compression::Lz4 => {
            if raw_len > (stored.len() as u64).saturating_mul(LZ4_MAX_RATIO) + 16 {
                return Err(format!("{raw_len} bytes cannot come of {} LZ4 bytes", stored.len()));
            }
            let raw = lz4_flex::block::decompress(stored, raw_len as usize).map_err(|e| e.to_string())?;
            if raw.len() as u64 != raw_len {
                return Err(format!("{} bytes decompressed, {raw_len} said", raw.len()));
            }
            Ok(Cow::Owned(raw))
        }
    }
}
