//! Embedding an index natively: every chunk without a vector is looked up in
//! the disk cache by its content hash, and only the rest run through the
//! model. The browser does the same in `fathom_wasm`, asynchronously, with
//! IndexedDB for the cache.

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
    cache: Option<&mut DiskCache>,
    observer: &mut dyn Observer,
) -> Result<EmbedReport, fathom_embed::EmbedError> {
    index.set_embedding_model(fathom_embed::MODEL_ID);
    let pending = index.pending_chunks();
    let mut report = EmbedReport { chunks: index.chunks().len(), ..EmbedReport::default() };
    let found = vectors(index, embedder, cache, pending, |done, total| observer.progress(Stage::Embed, done, total))?;
    report.from_cache = found.from_cache;
    report.embedded = found.vectors.len() - found.from_cache;
    for (chunk, vector) in found.vectors {
        index.set_vector(chunk, vector);
    }
    index.build_dense();
    Ok(report)
}

/// MiniLM's vectors for some chunks, and how many of them were not
/// computed (the index or the cache had them).
struct Found {
    vectors: Vec<(usize, Vec<f32>)>,
    from_cache: usize,
}

/// MiniLM's vectors for `chunks`: the index's where it has one, else the
/// cache's by content hash, else the model's (shortest texts first, in
/// batches of [`BATCH`]), which go into the cache. `progress(done, total)`
/// counts the chunks the model embeds. The one path both whole-repository
/// embedding and a question's candidates take, so they share the cache.
fn vectors(
    index: &Index,
    embedder: &Embedder,
    mut cache: Option<&mut DiskCache>,
    chunks: Vec<usize>,
    mut progress: impl FnMut(usize, usize),
) -> Result<Found, fathom_embed::EmbedError> {
    let mut found = Found { vectors: Vec::with_capacity(chunks.len()), from_cache: 0 };
    let mut todo: Vec<(usize, Option<cache::Key>, String)> = Vec::new();
    for chunk in chunks {
        if let Some(vector) = index.vector(chunk) {
            found.vectors.push((chunk, vector.to_vec()));
            found.from_cache += 1;
            continue;
        }
        // The cache key is computed only for a cache: indexing hashes nothing.
        let key = cache.as_ref().and_then(|_| cache::key(&index.chunk_hash(chunk)?));
        match key.and_then(|key| cache.as_deref()?.get(&key)) {
            Some(vector) => {
                found.vectors.push((chunk, vector.to_vec()));
                found.from_cache += 1;
            }
            None => {
                if let Some(text) = index.chunk_text(chunk) {
                    todo.push((chunk, key, text));
                }
            }
        }
    }
    by_length(embedder, &mut todo, |(_, _, text)| text);
    let total = todo.len();
    progress(0, total);
    for (done, batch) in todo.chunks(BATCH).enumerate() {
        let texts: Vec<&str> = batch.iter().map(|(_, _, text)| text.as_str()).collect();
        for ((chunk, key, _), vector) in batch.iter().zip(embedder.embed(&texts)?) {
            if let (Some(cache), Some(key)) = (cache.as_deref_mut(), key) {
                cache.insert(*key, &vector);
            }
            found.vectors.push((*chunk, vector));
        }
        progress(((done + 1) * BATCH).min(total), total);
    }
    if let Some(cache) = cache {
        // A cache that cannot be written costs the next run time, not this one its answer.
        let _ = cache.flush();
    }
    Ok(found)
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
    cache: Option<&mut DiskCache>,
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
    let found = vectors(index, embedder, cache, wanted, |_, _| ())?;
    let vector = embedder.embed_query(query)?;
    Ok(index.search_with(query, options, Some(&vector), Some(&found.vectors)))
}
