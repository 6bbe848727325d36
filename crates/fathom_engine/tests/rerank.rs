//! MiniLM without embedding the repository: a question's candidates (the
//! best chunks of its words, names and static table) are embedded, through
//! the same content-hash cache as whole-repository embedding, and MiniLM
//! re-ranks them. The index itself gets no vector.

#![cfg(feature = "embed")]

mod common;

use common::{Recorder, fixture};
use fathom_embed::cache::DiskCache;
use fathom_embed::{Embedder, asset};
use fathom_engine::{CANDIDATES, Index, Options, SearchMode, SearchOptions, index_dir};
use fathom_search::retrieval::Meaning;

fn indexed() -> Index {
    let mut index = index_dir(&fixture("semantic-mini"), &Options::default(), &mut Recorder::new()).unwrap();
    let model = fathom_engine::embed::load_static(&asset::default_dir()).expect("the static table: run `make model`");
    index.build_static(model).unwrap();
    index
}

#[test]
fn the_dense_lane_reads_the_vectors_given_for_the_candidates() {
    let index = indexed();
    let question = "compute how big a round shape is";
    let candidates = index.candidates(question, &SearchOptions::default());
    assert!(!candidates.is_empty() && candidates.len() <= CANDIDATES, "{candidates:?}");
    let mut unique = candidates.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), candidates.len(), "one vector per chunk: {candidates:?}");

    // Vectors that put `hypotenuse` nearest the query: the dense lane
    // follows them, not the static table, which puts `circle_area` first.
    let dense = SearchOptions { mode: SearchMode::Dense, expand: false, ..SearchOptions::default() };
    assert_eq!(index.search(question, &dense, None).hits[0].symbol, "geometry.circle_area");
    let query = fathom_search::dense::synthetic_unit(7, 384);
    let vectors: Vec<(usize, Vec<f32>)> = candidates
        .iter()
        .map(|&chunk| {
            let node = index.chunks()[chunk].node;
            let wanted = index.graph().node(node).name == "hypotenuse";
            (chunk, if wanted { query.clone() } else { fathom_search::dense::synthetic_unit(100 + chunk as u64, 384) })
        })
        .collect();
    assert!(
        candidates.iter().any(|&c| index.graph().node(index.chunks()[c].node).name == "hypotenuse"),
        "a three-function repository's candidates hold all of it"
    );
    let found = index.search_with(question, &dense, Some(&query), Some(&vectors));
    assert_eq!(found.params.meaning, Some(Meaning::MinilmCandidates));
    assert_eq!(found.hits[0].symbol, "geometry.hypotenuse");
    assert_eq!(found.hits[0].explain.similarity, Some(1.0));

    // The card on the same vectors is about what that search put first.
    let hybrid = SearchOptions::default();
    let searched = index.search_with(question, &hybrid, Some(&query), Some(&vectors));
    let card = index.feature_card_with(question, Some(&query), Some(&vectors), 2000);
    assert_eq!(card.symbols[0].symbol.qualified_name, searched.hits[0].symbol);
    assert_eq!(card.symbols[0].symbol.qualified_name, "geometry.hypotenuse");
}

#[test]
fn lexical_searches_and_bug_reports_get_no_candidates() {
    let index = indexed();
    let lexical = SearchOptions { mode: SearchMode::Lexical, ..SearchOptions::default() };
    assert!(index.candidates("compute how big a round shape is", &lexical).is_empty());
    let report = "send_message fails\n\nTraceback (most recent call last):\n  File \"mail/outbox.py\", line 5, in \
                  send_message\nConnectionRefusedError: [Errno 111] Connection refused\n";
    assert!(index.candidates(report, &SearchOptions::default()).is_empty(), "the localiser ranks reports");
}

#[test]
fn minilm_reranks_a_question_without_embedding_the_repository_and_caches_what_it_read() {
    let (weights, tokenizer) = asset::read_dir(&asset::default_dir()).expect("model asset");
    let embedder = Embedder::cpu(&weights, &tokenizer).unwrap();
    let index = indexed();
    let dir = std::env::temp_dir().join(format!("fathom-rerank-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let question = "deliver a letter to a recipient";
    let candidates = index.candidates(question, &SearchOptions::default());

    let mut cache = DiskCache::open(&dir).unwrap();
    let found =
        fathom_engine::embed::search(&index, &embedder, Some(&mut cache), question, &SearchOptions::default()).unwrap();
    assert_eq!(found.params.meaning, Some(Meaning::MinilmCandidates));
    assert_eq!(found.hits[0].symbol, "outbox.send_message");
    assert!(found.hits[0].explain.similarity.is_some_and(|s| s > 0.2), "{:?}", found.hits[0].explain);
    // The candidates, and only they, were embedded, into the cache and not the index.
    assert_eq!(cache.len(), candidates.len());
    assert_eq!(index.embedding_status().embedded, 0);

    // Read back from the disk, the same vectors give the same answer, and
    // whole-repository embedding finds them there.
    let mut reopened = DiskCache::open(&dir).unwrap();
    assert_eq!(reopened.len(), candidates.len());
    let again =
        fathom_engine::embed::search(&index, &embedder, Some(&mut reopened), question, &SearchOptions::default())
            .unwrap();
    assert_eq!(again.hits, found.hits);
    let mut whole = indexed();
    let report =
        fathom_engine::embed::embed_index(&mut whole, &embedder, Some(&mut reopened), &mut Recorder::new()).unwrap();
    assert_eq!(report.from_cache, candidates.len(), "{report:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
