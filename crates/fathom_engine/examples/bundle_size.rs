//! Measures index bundles on a real repository: size, write time and load
//! time, lexical only and with a vector for every chunk (synthetic unit
//! vectors, so no model is needed).
//!
//! `cargo run --release -p fathom_engine --features fs --example bundle_size -- DIR [SAVE.fathom]`
//!
//! With a second argument the hybrid bundle is saved there; given that
//! `.fathom` file instead of a directory, the bundles are measured without
//! indexing and building the HNSW graph again.

use std::time::Instant;

use fathom_engine::bundle::{self, Compression};
use fathom_engine::{Index, Observer, Options};
use fathom_search::dense::synthetic_unit as unit;
use fathom_search::retrieval::{Retrieval, StoredParts};

struct Clock(Instant);

impl Observer for Clock {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1000.0
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

fn measure(label: &str, index: &Index, source_mb: f64) {
    for compression in [Compression::None, Compression::Lz4] {
        let start = Instant::now();
        let bytes = index.to_bundle_with(compression);
        let write = ms(start);
        let mut loads = Vec::new();
        for _ in 0..3 {
            let start = Instant::now();
            let loaded = Index::from_bundle(&bytes).expect("loads");
            loads.push(ms(start));
            drop(loaded);
        }
        loads.sort_by(f64::total_cmp);
        let mb = bytes.len() as f64 / 1e6;
        println!(
            "{label:8} {compression:?}: {mb:.1} MB ({:.2} per source MB), write {write:.0} ms, load {:.0} ms (best of 3)",
            mb / source_mb,
            loads[0]
        );
        sections(&bytes);
    }
}

fn sections(bytes: &[u8]) {
    for s in bundle::read_header(bytes).unwrap().sections {
        println!("    {:8} {:>10} bytes ({:?}, {} raw)", s.name, s.bytes, s.compression, s.raw_bytes);
    }
}

/// From a saved hybrid bundle: its write and load times, then those of the
/// same index without its vectors.
fn from_file(path: &str) {
    let bytes = std::fs::read(path).unwrap();
    let mut index = Index::from_bundle(&bytes).unwrap();
    let source_mb =
        index.graph().files().iter().map(|f| index.file_text(&f.path).unwrap().len()).sum::<usize>() as f64 / 1e6;
    measure("hybrid", &index, source_mb);
    index.clear_embeddings();
    measure("lexical", &index, source_mb);
}

fn main() {
    let dir = std::env::args().nth(1).expect("a directory to index");
    if dir.ends_with(".fathom") {
        return from_file(&dir);
    }
    let save = std::env::args().nth(2);
    let start = Instant::now();
    let mut index = fathom_engine::index_dir(dir.as_ref(), &Options::default(), &mut Clock(Instant::now())).unwrap();
    let source_mb =
        index.graph().files().iter().map(|f| index.file_text(&f.path).unwrap().len()).sum::<usize>() as f64 / 1e6;
    println!(
        "indexed {} files ({source_mb:.1} MB of source), {} nodes, {} edges, {} chunks in {:.0} ms",
        index.graph().files().len(),
        index.graph().node_count(),
        index.graph().edge_count(),
        index.chunks().len(),
        ms(start)
    );
    measure("lexical", &index, source_mb);

    // The lexical index: stored postings against a rebuild from the texts.
    let stored = index.retrieval().stored_lexical().into_owned();
    for (label, current) in [("postings", true), ("rebuild", false)] {
        let mut lexical = stored.clone();
        if !current {
            lexical.terms_version += 1;
        }
        let parts =
            StoredParts { chunks: index.chunks().to_vec(), lexical, vectors: Vec::new(), dense: None, statics: None };
        let start = Instant::now();
        let restored = Retrieval::restore(&index.sources(), parts).unwrap();
        println!("lexical index from {label}: {:.0} ms", ms(start));
        drop(restored);
    }

    let start = Instant::now();
    for chunk in 0..index.chunks().len() {
        index.set_vector(chunk, unit(chunk as u64, 384));
    }
    index.build_dense();
    println!("HNSW over {} vectors built in {:.0} ms", index.chunks().len(), ms(start));
    measure("hybrid", &index, source_mb);
    if let Some(save) = save {
        std::fs::write(save, index.to_bundle()).unwrap();
    }
}
