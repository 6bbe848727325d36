//! The static embedding lane: one vector per word piece of MiniLM's
//! vocabulary, distilled from MiniLM itself (the Model2Vec recipe, Tulkens
//! and van Dongen, 2024), so that a text's vector is a table lookup and a
//! mean instead of a transformer's forward pass.
//!
//! - [`StaticModel`] reads a table and the tokenizer it was made with, and
//!   embeds texts: the word pieces' rows, summed with their scales, made unit
//!   length. It needs no model and no GPU, in every target.
//! - [`distil`] (feature `distil`, the build-time tool only) turns the
//!   teacher's vectors for every piece into a table: PCA, frequency
//!   weighting, int8 quantisation. `fathom-model-asset` in `fathom_embed`
//!   runs MiniLM over the vocabulary and calls it.
//!
//! The table is a safetensors file: `rows` (int8, `[vocab, dims]`) and
//! `scales` (f32, `[vocab]`, one per row; 0 for a piece with no vector, such
//! as `[PAD]`), with the recipe and the teacher's hash in its metadata.

#[cfg(feature = "distil")]
pub mod distil;

use std::collections::HashMap;

use safetensors::{Dtype, SafeTensors};
use sha2::{Digest, Sha256};
use tokenizers::Tokenizer;

/// The table's file name beside the app and in the model asset. The version
/// is the recipe's: change [`RECIPE`] and it changes too, so that no stale
/// table is taken for a new one.
pub const TABLE_FILE: &str = "minilm-l6-v2.static-v1.safetensors";

/// The table's hash as the reference build made it (`make model` on an
/// x86-64 CPU with AVX-512, burn 0.22.1's flex backend). The recipe is
/// deterministic: the same run gives the same bytes whatever the thread
/// count. Another CPU's float kernels may round the teacher's vectors
/// differently; `fathom-model-asset` then says so and keeps its own table,
/// which [`StaticModel::id`] names by its hash.
pub const TABLE_SHA256: &str = "a19908721713067c520fae006fb63e190d319eb1b0aa2cd06911a3ea758b949d";

/// MiniLM's `tokenizer.json`, which the lane reads text with, as the model
/// asset names and pins it (its weights are `fathom_embed`'s to check).
pub const TOKENIZER_FILE: &str = "minilm-l6-v2.tokenizer.json";
pub const TOKENIZER_SHA256: &str = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037";

/// The width of MiniLM's vectors, which the static table is distilled from
/// (and which an index's MiniLM vectors have).
pub const MINILM_DIM: usize = 384;

pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The lane's model from its table's and tokenizer's bytes, wherever they
/// came from (the asset's folder, the page's origin). The tokenizer is
/// checked against MiniLM's pinned hash: the lane must cut text exactly as
/// MiniLM does, its table being distilled piece by piece from MiniLM.
pub fn load_checked(table: &[u8], tokenizer: &[u8]) -> Result<std::sync::Arc<StaticModel>, StaticError> {
    let actual = sha256_hex(tokenizer);
    if actual != TOKENIZER_SHA256 {
        return Err(StaticError::Integrity {
            file: TOKENIZER_FILE,
            expected: TOKENIZER_SHA256,
            actual,
            bytes: tokenizer.len(),
        });
    }
    StaticModel::load(table, tokenizer).map(std::sync::Arc::new)
}

/// How the table is made. Recorded in the table's metadata and in
/// ARCHITECTURE.md.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recipe {
    /// Dimensions kept by PCA (MiniLM has 384).
    pub dims: usize,
    /// SIF's coefficient `a`: a piece of (Zipf-estimated) probability `p`
    /// is weighted `a / (a + p)`.
    pub sif: f64,
}

pub const RECIPE: Recipe = Recipe { dims: 256, sif: 1e-4 };

/// The longest query read, in word pieces: past it, the rest of the text is
/// left out (a pasted report holds a few thousand).
pub const MAX_PIECES: usize = 8192;

/// How much of a chunk its vector reads: its first 128 word pieces (its
/// signature, docstring and first lines), the window MiniLM's tokenizer
/// cuts at too. Reading whole chunks made the static lane alone better on
/// Flask (files MRR 0.738 against 0.696) but fused search worse (0.850
/// against 0.874; symbols 0.731 against 0.765); 64 and 256 were worse on
/// both (bench/PERFORMANCE.md).
pub const CHUNK_PIECES: usize = 128;

/// Words a [`Words`] cache holds before it starts again: a few MB at most.
const WORDS_HELD: usize = 1 << 16;
/// Longer words are tokenised each time: they seldom come back.
const WORD_BYTES_HELD: usize = 48;

#[derive(Debug, thiserror::Error)]
pub enum StaticError {
    #[error("the static table is unreadable: {0}")]
    Table(String),
    #[error("the static table's {name} has shape {found:?}, expected {expected}")]
    Shape { name: &'static str, found: Vec<usize>, expected: String },
    #[error(
        "the static table has {table} rows but the tokenizer has {tokenizer} pieces; they come from different models"
    )]
    Vocabulary { table: usize, tokenizer: usize },
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    #[error("{file} ({bytes} bytes) has SHA-256 {actual}, not the pinned {expected}: a damaged or different file")]
    Integrity { file: &'static str, expected: &'static str, actual: String, bytes: usize },
}

/// A loaded table and its tokenizer.
pub struct StaticModel {
    tokenizer: Tokenizer,
    /// The rows, `dim` bytes each: piece `id`'s at `id` in a whole table;
    /// in a sparse one, at the place [`Self::placed`] gives it.
    rows: Vec<i8>,
    /// A sparse model's row of each piece put in: a split bundle's reader
    /// holds only its queries' pieces' rows (a whole table is 7.8 MB, more
    /// than all the rows a reader fetches in a long visit).
    placed: Option<HashMap<u32, usize>>,
    scales: Vec<f32>,
    dim: usize,
    id: String,
}

impl StaticModel {
    /// Reads a table made by [`distil::table`] and the `tokenizer.json` of
    /// its teacher.
    pub fn load(table: &[u8], tokenizer: &[u8]) -> Result<StaticModel, StaticError> {
        let file = SafeTensors::deserialize(table).map_err(|e| StaticError::Table(e.to_string()))?;
        let rows = file.tensor("rows").map_err(|e| StaticError::Table(format!("rows: {e}")))?;
        let scales = file.tensor("scales").map_err(|e| StaticError::Table(format!("scales: {e}")))?;
        let (vocab, dim) = match (rows.dtype(), rows.shape()) {
            (Dtype::I8, &[vocab, dim]) if dim > 0 => (vocab, dim),
            (_, shape) => {
                return Err(StaticError::Shape {
                    name: "rows",
                    found: shape.to_vec(),
                    expected: "int8 [vocab, dims]".into(),
                });
            }
        };
        if scales.dtype() != Dtype::F32 || scales.shape() != [vocab] {
            return Err(StaticError::Shape {
                name: "scales",
                found: scales.shape().to_vec(),
                expected: format!("f32 [{vocab}]"),
            });
        }
        let tokenizer = lookup_tokenizer(tokenizer, vocab)?;
        let scales: Vec<f32> = scales
            .data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .map(|s| if s.is_finite() { s } else { 0.0 })
            .collect();
        let rows = rows.data().iter().map(|&b| b as i8).collect();
        let digest: String = Sha256::digest(table).iter().take(8).map(|b| format!("{b:02x}")).collect();
        Ok(StaticModel { tokenizer, rows, placed: None, scales, dim, id: format!("{TABLE_FILE} (sha256 {digest}…)") })
    }

    /// The tokenizer alone, with every row of a table of `vocabulary` rows
    /// of `dim` unknown until [`Self::fill`] puts it in: what a reader of a
    /// split bundle holds, fetching only the rows its queries' pieces read.
    /// `id` is the table's, as [`Self::id`] named it where the rows came
    /// from.
    pub fn sparse(tokenizer: &[u8], vocabulary: usize, dim: usize, id: String) -> Result<StaticModel, StaticError> {
        let tokenizer = lookup_tokenizer(tokenizer, vocabulary)?;
        let placed = Some(HashMap::new());
        Ok(StaticModel { tokenizer, rows: Vec::new(), placed, scales: vec![0.0; vocabulary], dim, id })
    }

    /// Puts piece `id`'s row in (a sparse model's), as [`Self::row`] gave it.
    pub fn fill(&mut self, id: u32, row: &[i8], scale: f32) {
        if id as usize >= self.scales.len() || row.len() != self.dim {
            return;
        }
        let at = match &mut self.placed {
            None => id as usize,
            Some(placed) => *placed.entry(id).or_insert_with(|| {
                self.rows.resize(self.rows.len() + self.dim, 0);
                self.rows.len() / self.dim - 1
            }),
        };
        self.rows[at * self.dim..(at + 1) * self.dim].copy_from_slice(row);
        self.scales[id as usize] = if scale.is_finite() { scale } else { 0.0 };
    }

    /// Piece `id`'s row and scale (a scale of 0: no row; a sparse model's
    /// piece not put in has none).
    pub fn row(&self, id: u32) -> Option<(&[i8], f32)> {
        let scale = *self.scales.get(id as usize)?;
        let at = match &self.placed {
            None => id as usize,
            Some(placed) => match placed.get(&id) {
                Some(&at) => at,
                None => return Some((&[][..], 0.0)),
            },
        };
        Some((self.rows.get(at * self.dim..(at + 1) * self.dim)?, scale))
    }

    /// The pieces [`Self::embed_query`] reads of `text`.
    pub fn query_pieces(&self, text: &str) -> Result<Vec<u32>, StaticError> {
        let encoding = self.tokenizer.encode(text, false).map_err(|e| StaticError::Tokenizer(e.to_string()))?;
        let mut ids = encoding.get_ids().to_vec();
        ids.truncate(MAX_PIECES);
        Ok(ids)
    }

    /// Names the table, its hash included, so that two tables are told
    /// apart (`make eval` records it beside its figures).
    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn vocabulary(&self) -> usize {
        self.scales.len()
    }

    /// The word pieces of `text`, without `[CLS]` and `[SEP]`, at most
    /// `limit`.
    pub fn ids(&self, text: &str, limit: usize) -> Result<Vec<u32>, StaticError> {
        let encoding = self.tokenizer.encode_fast(text, false).map_err(|e| StaticError::Tokenizer(e.to_string()))?;
        let mut ids = encoding.get_ids().to_vec();
        ids.truncate(limit);
        Ok(ids)
    }

    /// A chunk's first [`CHUNK_PIECES`] pieces, exactly as [`Self::ids`]
    /// gives them, read word by word through `words`. ASCII spaces, tabs
    /// and line breaks end a word for the tokenizer whatever surrounds them
    /// (it normalises character by character, then splits there), so a
    /// text's pieces are its words' pieces end to end; and code says the
    /// same words again and again (`self`, `return`, `=`), so most are
    /// looked up rather than tokenised. The tokenizer is most of the lane's
    /// build time.
    pub fn chunk_ids(&self, text: &str, words: &mut Words) -> Result<Vec<u32>, StaticError> {
        let mut ids = Vec::with_capacity(CHUNK_PIECES);
        for word in text.split([' ', '\n', '\t', '\r']).filter(|w| !w.is_empty()) {
            if ids.len() >= CHUNK_PIECES {
                break;
            }
            if word.len() > WORD_BYTES_HELD {
                ids.extend(self.ids(word, CHUNK_PIECES)?);
                continue;
            }
            if let Some(known) = words.0.get(word) {
                ids.extend_from_slice(known);
                continue;
            }
            let pieces = self.ids(word, CHUNK_PIECES)?;
            ids.extend_from_slice(&pieces);
            if words.0.len() >= WORDS_HELD {
                words.0.clear();
            }
            words.0.insert(word.into(), pieces.into());
        }
        ids.truncate(CHUNK_PIECES);
        Ok(ids)
    }

    /// The text's vector from its pieces: each distinct piece's row, scaled
    /// by how often it occurs (the square root of its count) and, given the
    /// corpus's [`Frequencies`], by its inverse document frequency, summed
    /// and made unit length. All zeros where no piece has a row (an empty
    /// text, or only unknown pieces).
    ///
    /// Weighting by the corpus is what makes the lane: on CoSQA, MRR 0.150
    /// for the plain mean and 0.290 weighted (see bench/PERFORMANCE.md).
    pub fn embed_ids(&self, ids: &[u32], corpus: Option<&Frequencies>) -> Vec<f32> {
        let mut sorted = ids.to_vec();
        sorted.sort_unstable();
        let mut sum = vec![0f32; self.dim];
        for run in sorted.chunk_by(|a, b| a == b) {
            let Some((row, scale)) = self.row(run[0]) else { continue };
            if scale == 0.0 {
                continue;
            }
            let weight = scale * (run.len() as f32).sqrt() * corpus.map_or(1.0, |c| c.idf(run[0]));
            for (s, &r) in sum.iter_mut().zip(row) {
                *s += weight * f32::from(r);
            }
        }
        unit(&mut sum);
        sum
    }

    pub fn embed(&self, text: &str, corpus: Option<&Frequencies>) -> Result<Vec<f32>, StaticError> {
        Ok(self.embed_ids(&self.chunk_ids(text, &mut Words::default())?, corpus))
    }

    /// A query's vector, or `None` when the query holds no word the
    /// vocabulary knows whole. Gibberish (`qwxz zzyq`) falls apart into
    /// single letters, whose rows, weighted as rare, still point somewhere
    /// with a confident-looking similarity (0.58 on a test fixture, above
    /// many real matches): such a query has no meaning to read.
    pub fn embed_query(&self, text: &str, corpus: Option<&Frequencies>) -> Result<Option<Vec<f32>>, StaticError> {
        // `encode`, not `encode_fast`: only it tells which word each piece is of.
        let encoding = self.tokenizer.encode(text, false).map_err(|e| StaticError::Tokenizer(e.to_string()))?;
        let words = encoding.get_word_ids();
        let whole = words.iter().enumerate().any(|(i, word)| {
            word.is_some()
                && (i == 0 || words[i - 1] != *word)
                && words.get(i + 1).is_none_or(|next| next != word)
                && self.scales.get(encoding.get_ids()[i] as usize).is_some_and(|&s| s > 0.0)
        });
        if !whole {
            return Ok(None);
        }
        let mut ids = encoding.get_ids().to_vec();
        ids.truncate(MAX_PIECES);
        Ok(Some(self.embed_ids(&ids, corpus)))
    }
}

/// MiniLM's tokenizer, for a table of `vocabulary` rows. Its tokenizer.json
/// pads and truncates to 128 pieces, for the transformer: a lookup wants
/// neither (it cuts chunks itself, and queries are read to MAX_PIECES).
fn lookup_tokenizer(bytes: &[u8], vocabulary: usize) -> Result<Tokenizer, StaticError> {
    let mut tokenizer = Tokenizer::from_bytes(bytes).map_err(|e| StaticError::Tokenizer(e.to_string()))?;
    tokenizer.with_padding(None);
    tokenizer.with_truncation(None).map_err(|e| StaticError::Tokenizer(e.to_string()))?;
    let pieces = tokenizer.get_vocab_size(true);
    if pieces != vocabulary {
        return Err(StaticError::Vocabulary { table: vocabulary, tokenizer: pieces });
    }
    Ok(tokenizer)
}

/// Words already tokenised, with their pieces: one per thread that reads
/// chunks ([`StaticModel::chunk_ids`]).
#[derive(Default)]
pub struct Words(std::collections::HashMap<Box<str>, Box<[u32]>>);

/// In how many of a corpus's texts (chunks) each word piece occurs.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Frequencies {
    documents: u32,
    /// By piece id.
    counts: Vec<u32>,
}

impl Frequencies {
    pub fn new(vocabulary: usize) -> Frequencies {
        Frequencies { documents: 0, counts: vec![0; vocabulary] }
    }

    /// Counts one text's pieces, each once.
    pub fn add(&mut self, ids: &[u32]) {
        let mut distinct = ids.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        for id in distinct {
            if let Some(c) = self.counts.get_mut(id as usize) {
                *c += 1;
            }
        }
        self.documents += 1;
    }

    pub fn documents(&self) -> u32 {
        self.documents
    }

    /// Counts of `documents` texts with none of their pieces counted yet,
    /// for [`Self::set`] to fill: a split bundle's reader holds the counts
    /// of its queries' pieces only.
    pub fn sparse(vocabulary: usize, documents: u32) -> Frequencies {
        Frequencies { documents, counts: vec![0; vocabulary] }
    }

    /// In how many texts piece `id` occurs.
    pub fn count(&self, id: u32) -> u32 {
        self.counts.get(id as usize).copied().unwrap_or(0)
    }

    pub fn set(&mut self, id: u32, count: u32) {
        if let Some(c) = self.counts.get_mut(id as usize) {
            *c = count;
        }
    }

    /// `ln((N + 1) / (df + 1))`: a piece in every text weighs nothing, one
    /// the corpus lacks (a query's own word) the most.
    pub fn idf(&self, id: u32) -> f32 {
        let df = self.counts.get(id as usize).copied().unwrap_or(0);
        ((f64::from(self.documents) + 1.0) / (f64::from(df) + 1.0)).ln() as f32
    }
}

/// Scales `v` to unit length; a zero vector stays zero.
pub fn unit(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// A vector as int8 with one scale: `v[i] ≈ scale * q[i]`. The static lane
/// keeps each chunk's vector this way (a quarter of f32's memory); cosine
/// rankings move by less than the lane's own noise.
pub fn quantise(v: &[f32]) -> (Vec<i8>, f32) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        return (vec![0; v.len()], 0.0);
    }
    let scale = max / 127.0;
    (v.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8).collect(), scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantised_vectors_keep_their_direction() {
        let v: Vec<f32> = (0..256).map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0).collect();
        let (q, scale) = quantise(&v);
        let back: Vec<f32> = q.iter().map(|&x| scale * f32::from(x)).collect();
        let dot: f32 = v.iter().zip(&back).map(|(a, b)| a * b).sum();
        let (na, nb) = (v.iter().map(|x| x * x).sum::<f32>().sqrt(), back.iter().map(|x| x * x).sum::<f32>().sqrt());
        assert!(dot / (na * nb) > 0.9999, "{}", dot / (na * nb));
        assert_eq!(quantise(&[0.0, 0.0]), (vec![0, 0], 0.0));
    }
}
