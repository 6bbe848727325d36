//! Embedding an index natively: every chunk without a vector is looked up in
//! the disk cache by its content hash, and only the rest run through the
//! model. The browser does the same in `fathom_wasm`, asynchronously, with
//! IndexedDB for the cache.

use std::collections::HashMap;

use fathom_embed::Embedder;
use fathom_embed::cache::{self, DiskCache};

use crate::{Index, Observer, Stage};

/// Chunks per forward pass: large enough to keep the CPU busy, small enough
/// that padding to the longest input wastes little.
pub const BATCH: usize = 16;

/// What an embedding run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct EmbedReport {
    pub chunks: usize,
    pub from_cache: usize,
    pub embedded: usize,
}

/// Gives every chunk a vector and builds the dense index. Progress is
/// reported as [`Stage::Embed`].
pub fn embed_index(
    index: &mut Index,
    embedder: &Embedder,
    mut cache: Option<&mut DiskCache>,
    observer: &mut dyn Observer,
) -> Result<EmbedReport, fathom_embed::EmbedError> {
    index.set_embedding_model(fathom_embed::MODEL_ID);
    let pending = index.pending_chunks();
    let mut report = EmbedReport { chunks: index.chunks().len(), ..EmbedReport::default() };
    let mut todo = Vec::new();
    // Each chunk's cache key, computed once, and only for a cache: indexing
    // hashes nothing.
    let keys: HashMap<usize, cache::Key> = match cache {
        Some(_) => pending.iter().filter_map(|&chunk| Some((chunk, cache::key(&index.chunk_hash(chunk)?)?))).collect(),
        None => HashMap::new(),
    };
    for chunk in pending {
        let cached = keys.get(&chunk).and_then(|key| cache.as_deref()?.get(key)).map(<[f32]>::to_vec);
        match cached {
            Some(vector) => {
                index.set_vector(chunk, vector);
                report.from_cache += 1;
            }
            None => todo.push(chunk),
        }
    }
    let mut texts: Vec<(usize, String)> = todo.into_iter().filter_map(|c| Some((c, index.chunk_text(c)?))).collect();
    by_length(embedder, &mut texts, |(_, t)| t);
    let total = texts.len();
    observer.progress(Stage::Embed, 0, total);
    for (done, batch) in texts.chunks(BATCH).enumerate() {
        let refs: Vec<&str> = batch.iter().map(|(_, t)| t.as_str()).collect();
        let vectors = embedder.embed(&refs)?;
        for ((chunk, _), vector) in batch.iter().zip(vectors) {
            if let (Some(cache), Some(key)) = (cache.as_deref_mut(), keys.get(chunk)) {
                cache.insert(*key, &vector);
            }
            index.set_vector(*chunk, vector);
            report.embedded += 1;
        }
        observer.progress(Stage::Embed, ((done + 1) * BATCH).min(total), total);
    }
    if let Some(cache) = cache {
        // A cache that cannot be written costs the next run time, not this one its answer.
        let _ = cache.flush();
    }
    index.build_dense();
    Ok(report)
}

/// Puts texts in the order the model reads them best: by their length in
/// word pieces, so that a batch pads little (each batch runs at its longest
/// text's length). Tokenising costs a fraction of a percent of embedding.
pub fn by_length<T>(embedder: &Embedder, items: &mut [T], text: impl Fn(&T) -> &str) {
    items.sort_by_cached_key(|item| embedder.tokenizer().ids(text(item)).map_or(0, |ids| ids.len()));
}

/// The static lane's table and its tokenizer, read from the model asset's
/// folder (`make model` puts both there), naming what is missing and how to
/// make it.
pub fn load_static(dir: &std::path::Path) -> Result<std::sync::Arc<fathom_static::StaticModel>, String> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read(&path).map_err(|e| format!("{}: {e}; build it with `make model`", path.display()))
    };
    fathom_embed::asset::static_model(&read(fathom_static::TABLE_FILE)?, &read(fathom_embed::asset::TOKENIZER_FILE)?)
        .map_err(|e| e.to_string())
}

/// A question answered with MiniLM where its whole index is not built: the
/// question's [`Index::candidates`] are looked up in `cache` by content hash
/// (the same keys whole-repository embedding writes), the rest embedded,
/// and the dense lane reads MiniLM over them. Where MiniLM's index is
/// built, the query is embedded and searched as usual; where no candidate
/// is wanted (a lexical search, a bug report), the search is plain.
pub fn search(
    index: &Index,
    embedder: &Embedder,
    mut cache: Option<&mut DiskCache>,
    query: &str,
    options: &crate::SearchOptions,
) -> Result<crate::SearchResults, fathom_embed::EmbedError> {
    if index.embedding_status().dense_ready {
        let vector = embedder.embed_query(query)?;
        return Ok(index.search(query, options, Some(&vector)));
    }
    let wanted = index.candidates(query, options);
    if wanted.is_empty() {
        return Ok(index.search(query, options, None));
    }
    let mut vectors: Vec<(usize, Vec<f32>)> = Vec::with_capacity(wanted.len());
    let mut todo: Vec<(usize, Option<cache::Key>, String)> = Vec::new();
    for chunk in wanted {
        if let Some(vector) = index.vector(chunk) {
            vectors.push((chunk, vector.to_vec()));
            continue;
        }
        let key = index.chunk_hash(chunk).and_then(|hash| cache::key(&hash));
        match key.and_then(|key| cache.as_deref()?.get(&key)) {
            Some(vector) => vectors.push((chunk, vector.to_vec())),
            None => {
                if let Some(text) = index.chunk_text(chunk) {
                    todo.push((chunk, key, text));
                }
            }
        }
    }
    by_length(embedder, &mut todo, |(_, _, text)| text);
    for batch in todo.chunks(BATCH) {
        let texts: Vec<&str> = batch.iter().map(|(_, _, text)| text.as_str()).collect();
        for ((chunk, key, _), vector) in batch.iter().zip(embedder.embed(&texts)?) {
            if let (Some(cache), Some(key)) = (cache.as_deref_mut(), key) {
                cache.insert(*key, &vector);
            }
            vectors.push((*chunk, vector));
        }
    }
    if let Some(cache) = cache {
        // As in `embed_index`: a cache that cannot be written costs the next question time.
        let _ = cache.flush();
    }
    let vector = embedder.embed_query(query)?;
    Ok(index.search_with(query, options, Some(&vector), Some(&vectors)))
}
