//! Native embedding through the disk cache: a second run embeds nothing, and
//! a changed archive embeds only the chunks whose text changed.

#![cfg(feature = "embed")]

mod common;

use common::{Recorder, fixture};
use fathom_embed::cache::DiskCache;
use fathom_embed::{Embedder, asset};
use fathom_engine::{Options, SearchMode, SearchOptions, Stage, index_dir};

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn embeddings_are_cached_by_content_and_only_changes_are_embedded_again() {
    let (weights, tokenizer) = asset::read_dir(&asset::default_dir()).expect("model asset");
    let embedder = Embedder::cpu(&weights, &tokenizer).unwrap();
    let root = std::env::temp_dir().join(format!("fathom-embed-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let repo = root.join("repo");
    copy_dir(&fixture("semantic-mini"), &repo);
    let cache_dir = root.join("cache");

    let run = || {
        let mut index = index_dir(&repo, &Options::default(), &mut Recorder::new()).unwrap();
        let mut cache = DiskCache::open(&cache_dir).unwrap();
        let mut recorder = Recorder::new();
        let report = fathom_engine::embed::embed_index(&mut index, &embedder, Some(&mut cache), &mut recorder).unwrap();
        (index, report, recorder)
    };

    let (index, first, recorder) = run();
    assert_eq!((first.embedded, first.from_cache), (first.chunks, 0));
    assert!(recorder.stages.iter().any(|&(s, done, total)| s == Stage::Embed && done == total));
    let status = index.embedding_status();
    assert!(status.dense_ready && status.embedded == status.chunks);
    let query = "length of the longest side of a right triangle";
    let vector = embedder.embed(&[query]).unwrap().pop().unwrap();
    let results = index.search(query, &SearchOptions::default(), Some(&vector));
    assert_eq!(results.mode, SearchMode::Hybrid);
    assert_eq!(results.hits[0].symbol, "geometry.hypotenuse");
    assert!(results.hits[0].explain.lexical_rank.is_none() && results.hits[0].explain.dense_rank == Some(1));

    let (_, second, _) = run();
    assert_eq!((second.embedded, second.from_cache), (0, first.chunks));

    // One function changes: its chunk, and nothing else, is embedded again.
    let geometry = repo.join("shapes/geometry.py");
    let text = std::fs::read_to_string(&geometry).unwrap().replace("3.14159 * r * r", "math.pi * r ** 2");
    std::fs::write(&geometry, text).unwrap();
    let (_, third, _) = run();
    assert_eq!(third.embedded, 1, "{third:?}");
    assert_eq!(third.from_cache, third.chunks - 1);
    std::fs::remove_dir_all(&root).unwrap();
}
