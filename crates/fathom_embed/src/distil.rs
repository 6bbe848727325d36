//! Distils the static lane's table from MiniLM: every word piece of the
//! vocabulary is embedded on its own, as `[CLS] piece [SEP]`, and
//! `fathom_static::distil::table` reduces, weights and quantises the
//! vectors. Build time only (`make model`).

use std::collections::BTreeMap;

use tokenizers::Tokenizer;

use crate::{EmbedError, Embedder, asset};

/// Pieces per forward pass: three tokens each, so a pass is small.
const BATCH: usize = 512;

/// The table's bytes. `progress` hears `(done, total)` after each batch.
pub fn static_table(
    embedder: &Embedder,
    weights: &[u8],
    tokenizer_json: &[u8],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<u8>, EmbedError> {
    let tokenizer = Tokenizer::from_bytes(tokenizer_json).map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
    let special = |name: &str| {
        tokenizer.token_to_id(name).ok_or_else(|| EmbedError::Tokenizer(format!("the vocabulary has no {name}")))
    };
    let (cls, sep) = (special("[CLS]")?, special("[SEP]")?);
    let vocab = tokenizer.get_vocab_size(true);
    // Bracketed pieces ([PAD], [UNK], [unused0], ...) stand for no text: no row.
    let pieces: Vec<u32> = (0..vocab as u32)
        .filter(|&id| {
            tokenizer.id_to_token(id).is_some_and(|p| !(p.len() > 2 && p.starts_with('[') && p.ends_with(']')))
        })
        .collect();
    let mut vectors: Vec<Option<Vec<f32>>> = vec![None; vocab];
    for (done, batch) in pieces.chunks(BATCH).enumerate() {
        let sequences: Vec<Vec<u32>> = batch.iter().map(|&id| vec![cls, id, sep]).collect();
        for (&id, vector) in batch.iter().zip(embedder.embed_ids(&sequences)?) {
            vectors[id as usize] = Some(vector);
        }
        progress((done * BATCH + batch.len()).min(pieces.len()), pieces.len());
    }
    let metadata = BTreeMap::from([
        ("teacher".to_owned(), crate::MODEL_ID.to_owned()),
        ("teacher_weights_sha256".to_owned(), asset::sha256_hex(weights)),
        ("tokenizer_sha256".to_owned(), asset::sha256_hex(tokenizer_json)),
        ("pooling".to_owned(), "mean of [CLS] piece [SEP], unit length".to_owned()),
    ]);
    fathom_static::distil::table(&vectors, &fathom_static::RECIPE, metadata)
        .map_err(|e| EmbedError::Weights(format!("distilling the static table: {e}")))
}
