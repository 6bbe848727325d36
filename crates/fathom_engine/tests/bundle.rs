//! Index bundles: an index read back answers every question as the original
//! does, and a damaged, truncated or foreign file is refused with its cause,
//! never with a panic.

mod common;

use std::collections::BTreeMap;

use common::{fixture, index_dir};
use fathom_engine::bundle::{self, BundleError, Compression, FORMAT_VERSION, MAGIC};
use fathom_engine::{Index, SearchMode, SearchOptions};
use fathom_graph::CodeGraph;
use fathom_search::dense::synthetic_unit as unit;
use fathom_search::retrieval::{Retrieval, StoredParts};
use serde_json::Value;

/// Every fixture a bundle is tried on: the mixed one and one per language.
fn fixtures() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixture(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("lang-") || name == "mini-py-js")
        .collect();
    names.sort();
    names
}

const QUERIES: &[&str] =
    &["add numbers", "Calculator", "user repository save", "parse config file", "http request handler", "main"];

const CYPHER: &[&str] = &[
    "MATCH (f:FUNCTION) RETURN f.qualified_name, f.start_line, f.code ORDER BY f.qualified_name LIMIT 200",
    "MATCH (a)-[r:CALLS]->(b) RETURN a.qualified_name, b.qualified_name, r.confidence, r.reason, r.line ORDER BY a.qualified_name, b.qualified_name, r.line",
    "MATCH (c:CLASS)-[:HAS_METHOD]->(m:METHOD) RETURN c.name, count(m) ORDER BY c.name",
];

fn json(value: impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap()
}

fn search(index: &Index, query: &str, mode: SearchMode, vector: Option<&[f32]>) -> Value {
    let options = SearchOptions { mode, k: 20, ..SearchOptions::default() };
    json(index.search(query, &options, vector))
}

/// The graph, node by node and edge by edge, in id order.
fn assert_same_graph(a: &CodeGraph, b: &CodeGraph, name: &str) {
    assert_eq!(a.files(), b.files(), "{name}: files");
    assert_eq!(a.node_count(), b.node_count(), "{name}: nodes");
    for ((ia, na), (ib, nb)) in a.nodes().zip(b.nodes()) {
        assert_eq!((ia, na), (ib, nb), "{name}: node");
    }
    let edges = |g: &CodeGraph| g.edges().map(|(id, from, to, e)| (id, from, to, *e)).collect::<Vec<_>>();
    assert_eq!(edges(a), edges(b), "{name}: edges");
    for (id, _) in a.nodes() {
        let at = |g: &CodeGraph| {
            let ids = |outgoing| g.edges_at(id, outgoing).into_iter().map(|(edge, ..)| edge).collect::<Vec<_>>();
            (ids(true), ids(false), g.parent(id))
        };
        assert_eq!(at(a), at(b), "{name}: edges at {id:?}");
    }
}

/// Everything a reader of the index sees, compared between two indexes.
fn assert_same_answers(a: &Index, b: &Index, name: &str, vector: Option<&[f32]>) {
    assert_eq!(a.summary(), b.summary(), "{name}: summary");
    assert_same_graph(a.graph(), b.graph(), name);
    for file in a.graph().files() {
        assert_eq!(a.file_text(&file.path), b.file_text(&file.path), "{name}: {}", file.path);
        assert!(b.file_text(&file.path).is_some(), "{name}: {} is readable", file.path);
    }
    for (id, _) in a.graph().nodes() {
        assert_eq!(a.code(id), b.code(id), "{name}: code of {id:?}");
    }
    assert_eq!(a.edges(&[]), b.edges(&[]), "{name}: edge records");
    assert_eq!(a.chunks(), b.chunks(), "{name}: chunks");
    for chunk in 0..a.chunks().len() {
        assert_eq!(a.chunk_text(chunk), b.chunk_text(chunk), "{name}: chunk {chunk}");
        assert_eq!(a.vector(chunk), b.vector(chunk), "{name}: vector {chunk}");
    }
    assert_eq!(a.embedding_status(), b.embedding_status(), "{name}: embedding status");
    assert_eq!(a.options(), b.options(), "{name}: options");
    assert_eq!(a.embedding_model(), b.embedding_model(), "{name}: model");
    for query in QUERIES {
        assert_eq!(
            search(a, query, SearchMode::Lexical, None),
            search(b, query, SearchMode::Lexical, None),
            "{name}: lexical `{query}`"
        );
        if vector.is_some() {
            for mode in [SearchMode::Hybrid, SearchMode::Dense] {
                assert_eq!(
                    search(a, query, mode, vector),
                    search(b, query, mode, vector),
                    "{name}: {mode:?} `{query}`"
                );
            }
        }
    }
    for query in CYPHER {
        let run = |index: &Index| index.query(query, &BTreeMap::new()).map(json).map_err(|e| e.to_string());
        assert_eq!(run(a), run(b), "{name}: {query}");
    }
    // Callers and impact of every function and method that has a unique name.
    let graph = a.graph();
    for (_, node) in graph.nodes().filter(|(_, n)| n.kind.is_callable() && !n.is_external) {
        let symbol = &node.qualified_name;
        let answers = |index: &Index| {
            (
                index.callers(symbol, 3).map(json).map_err(|e| e.to_string()),
                index.impact(symbol, 2).map(json).map_err(|e| e.to_string()),
                index.symbol(symbol).map(json).map_err(|e| e.to_string()),
            )
        };
        assert_eq!(answers(a), answers(b), "{name}: callers and impact of {symbol}");
    }
}

#[test]
fn a_bundle_reads_back_as_the_index_it_was_written_from() {
    for name in fixtures() {
        let index = index_dir(&fixture(&name));
        for compression in [Compression::None, Compression::Lz4] {
            let bytes = index.to_bundle_with(compression);
            let loaded = Index::from_bundle(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_same_answers(&index, &loaded, &name, None);
            assert_eq!(loaded.to_bundle_with(compression), bytes, "{name}: a loaded index writes the same bytes");
        }
    }
}

#[test]
fn a_bundle_keeps_vectors_and_the_dense_index() {
    for name in ["mini-py-js", "lang-java-spring", "lang-typescript"] {
        let mut index = index_dir(&fixture(name));
        let chunks = index.chunks().len();
        // Most chunks are embedded and indexed; the last few arrive after the
        // dense index was built, and one replaces an indexed vector, so the
        // vectors the HNSW graph does not hold are stored beside it.
        for chunk in 0..chunks - 2 {
            index.set_vector(chunk, unit(chunk as u64, 16));
        }
        index.build_dense().expect("vectors are in");
        index.set_vector(chunks - 2, unit(1_000, 16));
        index.set_vector(0, unit(2_000, 16));
        index.set_embedding_model("test-model");
        let query = unit(7, 16);

        let bytes = index.to_bundle();
        let loaded = Index::from_bundle(&bytes).unwrap();
        assert_same_answers(&index, &loaded, name, Some(&query));
        let header = bundle::read_header(&bytes).unwrap();
        assert_eq!(header.model.as_deref(), Some("test-model"));
        assert_eq!(header.counts.embedded, chunks - 1);
        assert_eq!(header.counts.dense_points, Some(chunks - 2));
        assert!(search(&loaded, "add", SearchMode::Hybrid, Some(&query))["mode"] == "hybrid");
    }
}

/// Each vector is in memory once: the table of vectors by chunk and the
/// HNSW graph's points share their allocations, when built and when loaded.
#[test]
fn vectors_are_held_once_beside_the_dense_index() {
    let index = embedded("mini-py-js");
    let loaded = Index::from_bundle(&index.to_bundle()).unwrap();
    for (name, index) in [("built", &index), ("loaded", &loaded)] {
        let retrieval = index.retrieval();
        let dense = retrieval.dense().expect("a dense index");
        let mut points = 0;
        for (chunk, point) in dense.points() {
            let vector = retrieval.vector(chunk as usize).expect("a vector");
            assert!(std::ptr::eq(vector.as_ptr(), point.0.as_ptr()), "{name}: chunk {chunk}'s vector is a copy");
            points += 1;
        }
        assert_eq!(points, index.chunks().len(), "{name}");
    }
}

#[test]
fn clearing_embeddings_leaves_a_lexical_index() {
    let mut index = embedded("mini-py-js");
    index.set_embedding_model("old-model");
    let mut loaded = Index::from_bundle(&index.to_bundle()).unwrap();
    loaded.clear_embeddings();
    let status = loaded.embedding_status();
    assert_eq!((status.embedded, status.dense_ready), (0, false));
    assert_eq!(loaded.embedding_model(), None);
    assert_eq!(loaded.pending_chunks().len(), index.chunks().len());
}

/// The header describes the bundle without decoding it.
#[test]
fn the_header_says_what_the_bundle_holds() {
    let index = index_dir(&fixture("mini-py-js"));
    let bytes = index.to_bundle();
    assert_eq!(&bytes[..8], &MAGIC);
    let header = bundle::read_header(&bytes).unwrap();
    assert_eq!(header.format, FORMAT_VERSION);
    assert_eq!(header.engine, env!("CARGO_PKG_VERSION"));
    assert_eq!(header.graph_schema, fathom_graph::SCHEMA_VERSION);
    assert_eq!(header.archive, "mini-py-js");
    assert_eq!((header.model, header.static_table), (None, None));
    assert_eq!(&header.options, index.options());
    assert_eq!(header.counts.files, index.graph().files().len());
    assert_eq!(header.counts.nodes, index.graph().node_count());
    assert_eq!(header.counts.edges, index.graph().edge_count());
    assert_eq!(header.counts.chunks, index.chunks().len());
    assert_eq!((header.counts.embedded, header.counts.dense_points), (0, None));
    let names: Vec<&str> = header.sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["graph", "texts", "summary", "chunks", "lexical", "vectors", "dense", "statics"]);
}

/// Indexing reads each line's and each name's terms as parsing split them
/// (on every core, or in the parse workers); postings rebuilt from the
/// chunks' plain text are the same, to the bit, in every language.
#[test]
fn terms_split_while_parsing_give_the_postings_of_the_plain_text() {
    let fixtures = std::fs::read_dir(fixture("")).unwrap().map(|entry| entry.unwrap().path());
    for dir in fixtures.filter(|path| path.is_dir()) {
        let index = index_dir(&dir);
        let sources = index.sources();
        let mut lexical = index.retrieval().stored_lexical().into_owned();
        let built = lexical.postings.clone().into_owned();
        // Marked stale and made wrong, so that only a rebuild can match.
        lexical.terms_version += 1;
        lexical.postings.to_mut().iter_mut().for_each(|p| p.iter_mut().for_each(|(term, _)| *term ^= 0x5555));
        let parts =
            StoredParts { chunks: index.chunks().to_vec(), lexical, vectors: Vec::new(), dense: None, statics: None };
        let rebuilt = Retrieval::restore(&sources, parts).unwrap();
        assert!(!built.is_empty(), "{}", dir.display());
        assert_eq!(rebuilt.stored_lexical().postings.into_owned(), built, "{}", dir.display());
    }
}

#[test]
fn postings_of_other_terms_are_rebuilt_from_the_text() {
    let index = index_dir(&fixture("mini-py-js"));
    let sources = index.sources();
    let mut lexical = index.retrieval().stored_lexical().into_owned();
    assert!(lexical.is_current());
    // Postings that another build's terms made: wrong, and marked so.
    lexical.terms_version += 1;
    lexical.postings.to_mut().iter_mut().for_each(|p| p.iter_mut().for_each(|(term, _)| *term ^= 0x5555));
    let parts =
        StoredParts { chunks: index.chunks().to_vec(), lexical, vectors: Vec::new(), dense: None, statics: None };
    let restored = Retrieval::restore(&sources, parts).unwrap();
    let options = SearchOptions { mode: SearchMode::Lexical, ..SearchOptions::default() };
    for query in QUERIES {
        let want = fathom_search::query::search(index.retrieval(), &sources, query, &options, None);
        let got = fathom_search::query::search(&restored, &sources, query, &options, None);
        assert_eq!((want.hits, want.files), (got.hits, got.files), "`{query}`");
    }
}

// Refusals.

fn bundle_of(name: &str) -> Vec<u8> {
    embedded(name).to_bundle()
}

/// A fixture indexed, each chunk given a vector, and the dense index built.
fn embedded(name: &str) -> Index {
    let mut index = index_dir(&fixture(name));
    for chunk in 0..index.chunks().len() {
        index.set_vector(chunk, unit(chunk as u64, 8));
    }
    index.build_dense();
    index
}

/// Recomputes the checksum, as a writer with a bug would have.
fn reseal(bytes: &mut [u8]) {
    let end = bytes.len() - 8;
    let checksum = xxhash_rust::xxh3::xxh3_64(&bytes[..end]);
    bytes[end..].copy_from_slice(&checksum.to_le_bytes());
}

fn refusal(bytes: &[u8]) -> String {
    match Index::from_bundle(bytes) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn foreign_files_are_not_bundles() {
    for bytes in [&b""[..], b"PK\x03\x04 a zip", b"{\"format\": 1}", b"\x89PNG\r\n\x1a\n0000000000000000000000000"] {
        assert_eq!(Index::from_bundle(bytes).err(), Some(BundleError::NotABundle));
        assert!(refusal(bytes).starts_with("not a Fathom bundle"));
    }
}

#[test]
fn another_format_version_is_refused_by_name() {
    let mut bytes = bundle_of("mini-py-js");
    bytes[8..12].copy_from_slice(&3u32.to_le_bytes());
    assert_eq!(Index::from_bundle(&bytes).err(), Some(BundleError::Version { found: 3, supported: 2 }));
    assert_eq!(
        refusal(&bytes),
        "written by bundle format v3; this build reads v1 to v2; re-index the archive to make a v2 bundle"
    );
    bytes[8..12].copy_from_slice(&0u32.to_le_bytes());
    assert_eq!(Index::from_bundle(&bytes).err(), Some(BundleError::Version { found: 0, supported: 2 }));
    assert!(bundle::read_header(&bytes).is_err());
}

#[test]
fn a_truncated_bundle_says_how_much_is_missing() {
    let bytes = bundle_of("mini-py-js");
    let len = bytes.len() as u64;
    assert_eq!(
        Index::from_bundle(&bytes[..bytes.len() - 100]).err(),
        Some(BundleError::Truncated { expected: len, actual: len - 100 })
    );
    assert_eq!(refusal(&bytes[..10]), "truncated bundle: 10 bytes where 24 were expected");
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"tail");
    assert_eq!(Index::from_bundle(&longer).err(), Some(BundleError::TrailingBytes { expected: len, actual: len + 4 }));
}

#[test]
fn a_changed_byte_fails_the_checksum() {
    let mut bytes = bundle_of("mini-py-js");
    let at = bytes.len() / 2;
    bytes[at] ^= 0x01;
    assert!(matches!(Index::from_bundle(&bytes), Err(BundleError::Checksum { .. })));
    assert!(refusal(&bytes).starts_with("corrupt bundle: its checksum is "));
}

#[test]
fn a_bundle_that_does_not_decode_is_refused_with_its_section() {
    let bytes = bundle_of("mini-py-js");
    let header = bundle::read_header(&bytes).unwrap();
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    // The first byte of the `texts` section is its count of files.
    let texts = 24 + header_len + header.sections[0].bytes as usize;
    let mut bad = bytes.clone();
    bad[texts] = 0x7f;
    reseal(&mut bad);
    let message = refusal(&bad);
    assert!(message.starts_with("undecodable bundle texts: "), "{message}");
    // A header that is not JSON.
    let mut bad = bytes.clone();
    bad[24] = b'[';
    reseal(&mut bad);
    assert!(refusal(&bad).starts_with("undecodable bundle header: "));
}

/// The loop the brief asks for: every length short of the whole, and a
/// flipped bit at offsets across the file, is an error, never a panic.
#[test]
fn no_truncation_or_flipped_byte_is_accepted_or_panics() {
    let bytes = bundle_of("mini-py-js");
    let step = (bytes.len() / 3000).max(1);
    for len in (0..bytes.len()).step_by(step).chain(0..64).chain(bytes.len() - 64..bytes.len()) {
        assert!(Index::from_bundle(&bytes[..len]).is_err(), "accepted {len} of {} bytes", bytes.len());
    }
    for at in (0..bytes.len()).step_by(step).chain(0..64).chain(bytes.len() - 64..bytes.len()) {
        for bit in [0x01, 0x80] {
            let mut bad = bytes.clone();
            bad[at] ^= bit;
            assert!(Index::from_bundle(&bad).is_err(), "accepted a flip at {at}");
        }
    }
}

/// Past the checksum, the decoder itself must refuse rather than panic: a
/// changed byte with a matching checksum (a writer's bug) loads or is
/// refused, and whatever loads can still be searched and queried.
#[test]
fn a_resealed_damaged_bundle_never_panics() {
    let bytes = bundle_of("mini-py-js");
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let header = bundle::read_header(&bytes).unwrap();
    // The dense section is left out: its neighbour lists are trusted to
    // instant-distance (see the bundle module's docs).
    let dense = header.sections.last().unwrap().bytes as usize;
    let payload = 24 + header_len..bytes.len() - 8 - dense;
    let step = (payload.len() / 1500).max(1);
    for at in payload.step_by(step) {
        for value in [0x00, 0xff, 0x80] {
            let mut bad = bytes.clone();
            bad[at] = value;
            reseal(&mut bad);
            if let Ok(index) = Index::from_bundle(&bad) {
                index.search("add numbers", &SearchOptions { mode: SearchMode::Lexical, ..Default::default() }, None);
                let _ = index.callers("add", 2);
                let _ = index.query("MATCH (f:FUNCTION) RETURN f.code", &BTreeMap::new());
                let _ = index.summary();
                for chunk in index.pending_chunks() {
                    index.chunk_text(chunk);
                }
            }
        }
    }
}

/// A bundle written by format v1, committed: a change to a stored type that
/// does not bump `FORMAT_VERSION` makes it undecodable, and this test says
/// so. After a deliberate bump, write the new one with
/// `FATHOM_BLESS_BUNDLE=1 cargo test -p fathom_engine --features fs --test bundle`
/// and rename it for the new version.
#[test]
fn a_bundle_written_by_format_v1_still_loads() {
    let path = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("tests/data/mini-py-js.v1.fathom");
    if std::env::var_os("FATHOM_BLESS_BUNDLE").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut index = index_dir(&fixture("mini-py-js"));
        for chunk in 0..index.chunks().len() {
            index.set_vector(chunk, unit(chunk as u64, 8));
        }
        index.build_dense();
        index.set_embedding_model("test-model");
        std::fs::write(&path, index.to_bundle_with(Compression::Lz4)).unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();
    let header = bundle::read_header(&bytes).unwrap();
    let index = Index::from_bundle(&bytes).unwrap_or_else(|e| {
        panic!("a stored type changed without a FORMAT_VERSION bump (or the committed bundle is stale): {e}")
    });
    assert_eq!(header.counts.nodes, index.graph().node_count());
    // A schema-1 graph predates TESTS edges: they are inferred on load.
    assert_eq!(header.graph_schema, 1);
    let tests = index.graph().edges().filter(|(_, _, _, e)| e.kind == fathom_engine::EdgeKind::Tests).count();
    assert!(tests > 0);
    assert_eq!(header.counts.edges + tests, index.graph().edge_count());
    assert_eq!(header.counts.chunks, index.chunks().len());
    assert_eq!(index.summary().archive, "mini-py-js");
    assert!(index.file_text("pkg/calc.py").is_some_and(|t| t.contains("class Calculator")));
    let lexical =
        index.search("Calculator add", &SearchOptions { mode: SearchMode::Lexical, ..Default::default() }, None);
    assert!(lexical.hits.iter().any(|h| h.name == "add"), "{:?}", lexical.hits);
    let hybrid = index.search("Calculator add", &SearchOptions::default(), Some(&unit(3, 8)));
    assert_eq!(hybrid.mode, SearchMode::Hybrid);
    assert!(!index.callers("Calculator.add", 2).unwrap().is_empty());
    let rows = index.query("MATCH (c:CLASS) RETURN c.name", &BTreeMap::new()).unwrap();
    assert!(!rows.rows.is_empty());
}
