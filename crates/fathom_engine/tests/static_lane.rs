//! The static lane (the table distilled from MiniLM by `make model`): built
//! in a moment after indexing, it serves the dense lane with no chunk run
//! through MiniLM, finds code described in other words than its own, and
//! gives way to MiniLM's lane once a query vector and MiniLM's index exist.

#![cfg(feature = "embed")]

mod common;

use common::{Recorder, fixture};
use fathom_embed::asset;
use fathom_engine::{Options, SearchMode, SearchOptions, index_dir};
use fathom_search::retrieval::Meaning;

#[test]
fn the_static_lane_reads_meaning_before_any_chunk_is_embedded() {
    let mut index = index_dir(&fixture("semantic-mini"), &Options::default(), &mut Recorder::new()).unwrap();
    let dense = SearchOptions { mode: SearchMode::Dense, expand: false, ..SearchOptions::default() };

    // Without it, a search by meaning runs by words, and says so.
    let before = index.search("deliver a letter to a recipient", &dense, None);
    assert_eq!(before.mode, SearchMode::Lexical);
    assert!(before.note.as_deref().is_some_and(|n| n.contains("not ready")), "{:?}", before.note);
    assert!(before.hits.is_empty(), "no word of the query is in the code");

    let model = fathom_engine::embed::load_static(&asset::default_dir()).expect("the static table: run `make model`");
    index.build_static(model).unwrap();
    let status = index.embedding_status();
    assert!(status.static_ready && !status.dense_ready && status.embedded == 0, "{status:?}");
    assert_eq!(index.retrieval().static_lane().unwrap().vectors().len(), status.chunks);

    let found = index.search("deliver a letter to a recipient", &dense, None);
    assert_eq!((found.mode, found.params.meaning), (SearchMode::Dense, Some(Meaning::Static)));
    assert!(found.hits[0].symbol.starts_with("outbox"), "{:?}", found.hits[0].symbol);
    assert!(found.hits[0].explain.similarity.is_some_and(|s| s > 0.2));
    let area = index.search("compute how big a round shape is", &dense, None);
    assert_eq!(area.hits[0].symbol, "geometry.circle_area");

    // Hybrid fuses it with the words, and names it in its params.
    let hybrid = index.search("deliver a letter to a recipient", &SearchOptions::default(), None);
    assert_eq!((hybrid.mode, hybrid.params.meaning), (SearchMode::Hybrid, Some(Meaning::Static)));
    assert!(hybrid.hits[0].symbol.starts_with("outbox"));
    // A lexical search reads no embeddings at all.
    let lexical =
        index.search("send_message", &SearchOptions { mode: SearchMode::Lexical, ..SearchOptions::default() }, None);
    assert_eq!(lexical.params.meaning, None);

    // MiniLM takes over the dense lane where its index and a query vector exist.
    let chunks = index.chunks().len();
    for chunk in 0..chunks {
        index.set_vector(chunk, fathom_search::dense::synthetic_unit(chunk as u64, 384));
    }
    index.build_dense();
    let query = fathom_search::dense::synthetic_unit(3, 384);
    let minilm = index.search("deliver a letter to a recipient", &dense, Some(&query));
    assert_eq!(minilm.params.meaning, Some(Meaning::Minilm));
    let without_vector = index.search("deliver a letter to a recipient", &dense, None);
    assert_eq!(without_vector.params.meaning, Some(Meaning::Static), "no query vector: the static lane still serves");
}

/// A chunk's pieces, read word by word through a cache of words, are
/// exactly the whole text's first pieces: on real code of every kind the
/// fixtures hold and on Fathom's own sources, from many starting points, and
/// on the characters a tokenizer treats specially.
#[test]
fn a_chunk_cut_short_gives_the_same_pieces_as_the_whole_of_it() {
    let model = fathom_engine::embed::load_static(&asset::default_dir()).expect("the static table: run `make model`");
    let mut texts: Vec<String> = Vec::new();
    let mut stack = vec![fixture(""), fixture("../../crates/fathom_search/src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                texts.push(text);
            }
        }
    }
    // Accents, CJK, punctuation, special tokens, and control characters and
    // other whitespace between words.
    texts.push(format!("{} Café naïve 日本語 x\u{0B}y «quoted» [MASK] ünïcödé", "word ".repeat(200)));
    texts.push(format!(
        "{}\u{0B}joined\u{A0}nbsp\u{2028}line\u{0}nul\r\ncrlf\u{3000}wide{}",
        "a".repeat(1023),
        " tail".repeat(300)
    ));
    texts.push("İstanbul ǅemal ﬁle ⅷ x² ".repeat(40));
    assert!(texts.len() > 50, "{} texts", texts.len());
    let mut cut = 0;
    let mut words = fathom_static::Words::default();
    for text in &texts {
        for start in (0..text.len()).step_by(97).filter(|&i| text.is_char_boundary(i)) {
            let text = &text[start..];
            let whole = model.ids(text, fathom_static::CHUNK_PIECES).unwrap();
            assert_eq!(model.chunk_ids(text, &mut words).unwrap(), whole, "{:?}", &text[..text.len().min(200)]);
            cut += usize::from(whole.len() == fathom_static::CHUNK_PIECES);
        }
    }
    assert!(cut > 100, "only {cut} texts past {} pieces", fathom_static::CHUNK_PIECES);
}

/// A bundle carries the static lane: its vectors and word counts come back
/// as they were written, wait for their table (which embeds the queries), and
/// then serve exactly what the writer's lane served, with nothing embedded
/// again. Without them, or after `clear_static`, the lane is built or absent
/// as before.
#[test]
fn a_bundle_carries_the_static_lane() {
    let mut index = index_dir(&fixture("semantic-mini"), &Options::default(), &mut Recorder::new()).unwrap();
    let model = fathom_engine::embed::load_static(&asset::default_dir()).expect("the static table: run `make model`");
    index.build_static(std::sync::Arc::clone(&model)).unwrap();
    let dense = SearchOptions { mode: SearchMode::Dense, expand: false, ..SearchOptions::default() };
    let query = "deliver a letter to a recipient";
    let written = index.search(query, &dense, None);
    let bytes = index.to_bundle();
    let header = fathom_engine::bundle::read_header(&bytes).unwrap();
    assert_eq!(header.static_table.as_deref(), Some(model.id()));

    let mut loaded = fathom_engine::Index::from_bundle(&bytes).unwrap();
    let status = loaded.embedding_status();
    assert!(!status.static_ready, "the table is not loaded yet: {status:?}");
    assert_eq!(status.static_stored.as_deref(), Some(model.id()));
    assert_eq!(loaded.retrieval().stored_static(), index.retrieval().stored_static());
    // Written again before the table comes, it still carries them.
    let again = fathom_engine::Index::from_bundle(&loaded.to_bundle()).unwrap();
    assert_eq!(again.retrieval().stored_static(), index.retrieval().stored_static());

    loaded.build_static(std::sync::Arc::clone(&model)).unwrap();
    let status = loaded.embedding_status();
    assert!(status.static_ready && status.static_stored.is_none(), "{status:?}");
    let read = loaded.search(query, &dense, None);
    assert_eq!(read.params.meaning, Some(Meaning::Static));
    let symbols = |r: &fathom_engine::SearchResults| r.hits.iter().map(|h| h.symbol.clone()).collect::<Vec<_>>();
    assert_eq!(symbols(&read), symbols(&written));
    assert!(read.hits[0].symbol.starts_with("outbox"));

    // A bundle without them: the lane is built from the texts on load of the table.
    index.clear_static();
    let bare = index.to_bundle();
    assert_eq!(fathom_engine::bundle::read_header(&bare).unwrap().static_table, None);
    assert!(bare.len() < bytes.len());
    let mut loaded = fathom_engine::Index::from_bundle(&bare).unwrap();
    assert_eq!(loaded.embedding_status().static_stored, None);
    loaded.build_static(model).unwrap();
    assert_eq!(symbols(&loaded.search(query, &dense, None)), symbols(&written));
}

/// A bundle written by format v2, with static vectors, committed: a change
/// to a stored type that does not bump `FORMAT_VERSION` makes it
/// undecodable, and this test says so. After a deliberate bump, write the
/// new one with `FATHOM_BLESS_BUNDLE=1 cargo test -p fathom_engine --features
/// embed,fs --test static_lane` and rename it for the new version.
#[test]
fn a_bundle_written_by_format_v2_still_loads_with_its_static_vectors() {
    let path = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("tests/data/semantic-mini.v2.fathom");
    let model = fathom_engine::embed::load_static(&asset::default_dir()).expect("the static table: run `make model`");
    if std::env::var_os("FATHOM_BLESS_BUNDLE").is_some() {
        let mut index = index_dir(&fixture("semantic-mini"), &Options::default(), &mut Recorder::new()).unwrap();
        index.build_static(std::sync::Arc::clone(&model)).unwrap();
        std::fs::write(&path, index.to_bundle()).unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();
    let header = fathom_engine::bundle::read_header(&bytes).unwrap();
    assert_eq!(header.format, 2);
    let mut index = fathom_engine::Index::from_bundle(&bytes).unwrap_or_else(|e| {
        panic!("a stored type changed without a FORMAT_VERSION bump (or the committed bundle is stale): {e}")
    });
    assert_eq!(index.embedding_status().static_stored, header.static_table);
    // Its vectors were made with the table of the machine that blessed it; a
    // machine whose table came out otherwise (the distillation's floats
    // round per CPU, see `fathom_static::TABLE_SHA256`) embeds again.
    index.build_static(model).unwrap();
    let dense = SearchOptions { mode: SearchMode::Dense, expand: false, ..SearchOptions::default() };
    let found = index.search("deliver a letter to a recipient", &dense, None);
    assert_eq!(found.params.meaning, Some(Meaning::Static));
    assert!(found.hits[0].symbol.starts_with("outbox"), "{:?}", found.hits[0].symbol);
}
