//! Sentence embeddings with all-MiniLM-L6-v2, implemented on burn.
//!
//! One [`Embedder`] holds the tokenizer and the encoder on one device:
//! burn's `flex` backend on the CPU (native and wasm), or WebGPU through
//! burn-wgpu in the browser (wasm builds only). The vectors are the
//! sentence-transformers ones: the last hidden state mean-pooled over real
//! tokens, L2-normalised, 384 floats.

pub mod asset;
mod bert;
pub mod cache;
#[cfg(feature = "distil")]
pub mod distil;

use burn::tensor::{Device, Int, Tensor, TensorData};
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

pub use asset::MODEL_ID;
use bert::{Bert, BertConfig};

/// Length of one embedding.
pub const DIM: usize = fathom_static::MINILM_DIM;
/// Longest input in word pieces, `[CLS]` and `[SEP]` included; longer inputs
/// are truncated, as sentence-transformers does (`max_seq_length`).
pub const MAX_TOKENS: usize = 256;

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error(
        "{file} failed its integrity check ({bytes} bytes, sha256 {actual}, expected {expected}); rebuild the model asset with `make model`"
    )]
    Integrity { file: String, expected: String, actual: String, bytes: usize },
    #[error("model asset missing: {0}")]
    Missing(String),
    #[error("model weights are unreadable: {0}")]
    Weights(String),
    #[error("the static lane's table is unusable: {0}")]
    StaticTable(String),
    #[error("model weights lack tensor {0}")]
    MissingTensor(String),
    #[error("model tensor {name} has shape {found:?}, expected {expected:?}")]
    TensorShape { name: String, expected: Vec<usize>, found: Vec<usize> },
    #[error("model tensor {name} is stored as {dtype}, which is not a float type this loader reads")]
    TensorType { name: String, dtype: String },
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    #[error("WebGPU is unavailable: {0}")]
    NoWebGpu(String),
    #[error("reading embeddings back from the device failed: {0}")]
    Readback(String),
}

/// Which burn backend an [`Embedder`] runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendKind {
    /// burn's pure-Rust CPU backend.
    Cpu,
    /// WebGPU through burn-wgpu.
    WebGpu,
}

impl BackendKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BackendKind::Cpu => "cpu (burn flex)",
            BackendKind::WebGpu => "webgpu (burn wgpu)",
        }
    }
}

/// The tokenizer of the model, truncating at [`MAX_TOKENS`] and never padding
/// (batches are padded to their own longest input).
pub struct WordPieces {
    inner: Tokenizer,
}

impl WordPieces {
    pub fn from_json(json: &[u8]) -> Result<WordPieces, EmbedError> {
        let mut inner = Tokenizer::from_bytes(json).map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        inner
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        inner.with_padding(None);
        Ok(WordPieces { inner })
    }

    /// Token ids with `[CLS]` and `[SEP]`.
    pub fn ids(&self, text: &str) -> Result<Vec<u32>, EmbedError> {
        let encoding = self.inner.encode(text, true).map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        Ok(encoding.get_ids().to_vec())
    }

    /// Word pieces as strings, for diagnostics and tests.
    pub fn pieces(&self, text: &str) -> Result<Vec<String>, EmbedError> {
        let encoding = self.inner.encode(text, true).map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        Ok(encoding.get_tokens().to_vec())
    }
}

/// A padded batch ready for the encoder.
struct Batch {
    ids: Tensor<2, Int>,
    mask: Tensor<2>,
    size: usize,
}

pub struct Embedder {
    tokenizer: WordPieces,
    model: Bert,
    device: Device,
    backend: BackendKind,
}

impl Embedder {
    /// Loads the asset on the CPU backend, after checking both files' hashes.
    pub fn cpu(weights: &[u8], tokenizer: &[u8]) -> Result<Embedder, EmbedError> {
        Self::on(Device::flex(), BackendKind::Cpu, weights, tokenizer)
    }

    /// Loads the asset on WebGPU. Fails with [`EmbedError::NoWebGpu`] where
    /// the platform has no adapter, so the caller can fall back to [`Embedder::cpu`].
    #[cfg(target_family = "wasm")]
    pub async fn webgpu(weights: &[u8], tokenizer: &[u8]) -> Result<Embedder, EmbedError> {
        let device = Device::wgpu_options()
            .graphics_api(burn::tensor::wgpu::WgpuBackend::WebGpu)
            .init_async()
            .await
            .map_err(|e| EmbedError::NoWebGpu(e.to_string()))?;
        Self::on(device, BackendKind::WebGpu, weights, tokenizer)
    }

    /// Native builds carry no WebGPU backend: the CLI runs on the CPU.
    #[cfg(not(target_family = "wasm"))]
    pub async fn webgpu(_weights: &[u8], _tokenizer: &[u8]) -> Result<Embedder, EmbedError> {
        Err(EmbedError::NoWebGpu("this is a native build; WebGPU is built into the browser build only".into()))
    }

    fn on(device: Device, backend: BackendKind, weights: &[u8], tokenizer: &[u8]) -> Result<Embedder, EmbedError> {
        asset::verify(asset::WEIGHTS_FILE, weights, asset::WEIGHTS_SHA256)?;
        asset::verify(asset::TOKENIZER_FILE, tokenizer, asset::TOKENIZER_SHA256)?;
        Self::unverified(device, backend, weights, tokenizer)
    }

    /// Loads weights and tokenizer without the integrity check: for the
    /// converter's own tests and for comparing precisions.
    pub fn unverified(
        device: Device,
        backend: BackendKind,
        weights: &[u8],
        tokenizer: &[u8],
    ) -> Result<Embedder, EmbedError> {
        let tokenizer = WordPieces::from_json(tokenizer)?;
        let model = Bert::load(BertConfig::MINILM_L6, weights, &device, backend == BackendKind::Cpu)?;
        Ok(Embedder { tokenizer, model, device, backend })
    }

    pub fn backend(&self) -> BackendKind {
        self.backend
    }

    pub fn tokenizer(&self) -> &WordPieces {
        &self.tokenizer
    }

    fn batch(&self, texts: &[&str]) -> Result<Batch, EmbedError> {
        let encoded = texts.iter().map(|t| self.tokenizer.ids(t)).collect::<Result<Vec<_>, _>>()?;
        Ok(self.padded(&encoded))
    }

    /// Token id sequences padded to the longest (at least one token).
    fn padded(&self, sequences: &[Vec<u32>]) -> Batch {
        let len = sequences.iter().map(Vec::len).max().unwrap_or(0).max(1);
        let mut ids = vec![0i32; sequences.len() * len];
        let mut mask = vec![0f32; sequences.len() * len];
        for (row, tokens) in sequences.iter().enumerate() {
            for (col, &id) in tokens.iter().enumerate() {
                ids[row * len + col] = id as i32;
                mask[row * len + col] = 1.0;
            }
        }
        let shape = [sequences.len(), len];
        Batch {
            ids: Tensor::from_data(TensorData::new(ids, shape), &self.device),
            mask: Tensor::from_data(TensorData::new(mask, shape), &self.device),
            size: sequences.len(),
        }
    }

    fn rows(data: TensorData, size: usize) -> Result<Vec<Vec<f32>>, EmbedError> {
        let flat = data.try_to_vec::<f32>().map_err(|e| EmbedError::Readback(format!("{e:?}")))?;
        debug_assert_eq!(flat.len(), size * DIM);
        Ok(flat.chunks_exact(DIM).map(<[f32]>::to_vec).collect())
    }

    /// Embeds a batch synchronously. On WebGPU in a browser, where reading
    /// back must be awaited, use [`Embedder::embed_async`].
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let run = |part: &[&str]| {
            let batch = self.batch(part)?;
            Self::rows(self.model.embed(batch.ids, batch.mask).into_data(), batch.size)
        };
        #[cfg(not(target_family = "wasm"))]
        if self.backend == BackendKind::Cpu {
            // One part of the batch per core: the backend's kernels leave
            // cores idle between and inside its matrix products (1.4x faster
            // on 2 cores).
            use rayon::prelude::*;
            let parts = rayon::current_num_threads().min(texts.len());
            if parts > 1 {
                let done = texts.par_chunks(texts.len().div_ceil(parts)).map(run).collect::<Result<Vec<_>, _>>()?;
                return Ok(done.into_iter().flatten().collect());
            }
        }
        run(texts)
    }

    /// Embeds sequences of token ids as they are (no `[CLS]` or `[SEP]` is
    /// added): for distilling the static table, one word piece at a time.
    pub fn embed_ids(&self, sequences: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if sequences.iter().all(Vec::is_empty) {
            return Ok(vec![Vec::new(); sequences.len()]);
        }
        let batch = self.padded(sequences);
        let out = self.model.embed(batch.ids, batch.mask);
        Self::rows(out.into_data(), batch.size)
    }

    /// Embeds a query of any length: a long one (a bug report) in
    /// [`segments`], their vectors fused by [`mean_unit`], instead of
    /// reading only its first [`MAX_TOKENS`] word pieces.
    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        Ok(mean_unit(&self.embed(&segments(text))?))
    }

    pub async fn embed_async(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let batch = self.batch(texts)?;
        let out = self.model.embed(batch.ids, batch.mask);
        let data = out.to_data_async().await.map_err(|e| EmbedError::Readback(format!("{e:?}")))?;
        Self::rows(data, batch.size)
    }
}

/// About how many characters of text fill the model's window: a word piece
/// is three to four characters of prose or code.
pub const SEGMENT_CHARS: usize = 800;
/// A report is read in at most this many segments (its start counts most).
pub const MAX_SEGMENTS: usize = 8;

/// A long text cut into segments of at most [`SEGMENT_CHARS`], at line ends
/// where it can be (a longer line is cut at a character boundary); blank
/// segments are left out. A short text is one segment.
pub fn segments(text: &str) -> Vec<&str> {
    fn push<'t>(piece: &'t str, out: &mut Vec<&'t str>) {
        if !piece.trim().is_empty() && out.len() < MAX_SEGMENTS {
            out.push(piece);
        }
    }
    let mut out = Vec::new();
    let mut start = 0;
    let mut end = 0;
    for line in text.split_inclusive('\n') {
        let line_end = end + line.len();
        if line_end - start > SEGMENT_CHARS && end > start {
            push(&text[start..end], &mut out);
            start = end;
        }
        while line_end - start > SEGMENT_CHARS {
            let mut cut = start + SEGMENT_CHARS;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            push(&text[start..cut], &mut out);
            start = cut;
        }
        end = line_end;
    }
    push(&text[start..], &mut out);
    if out.is_empty() {
        out.push(text);
    }
    out
}

/// The mean of unit vectors, made unit again: segments fused.
pub fn mean_unit(vectors: &[Vec<f32>]) -> Vec<f32> {
    if let [one] = vectors {
        return one.clone();
    }
    let mut mean = vec![0.0f32; vectors.first().map_or(0, Vec::len)];
    for v in vectors {
        mean.iter_mut().zip(v).for_each(|(m, x)| *m += x);
    }
    let norm = mean.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        mean.iter_mut().for_each(|m| *m /= norm);
    }
    mean
}

/// Cosine similarity of two vectors (both already unit length for
/// embeddings, but this does not assume it).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 { 0.0 } else { dot / (na * nb) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_text_is_cut_into_segments_at_line_ends() {
        assert_eq!(segments("short query"), ["short query"]);
        let line = "x".repeat(300) + "\n";
        let text = line.repeat(7);
        let parts = segments(&text);
        assert!(parts.len() >= 3, "{}", parts.len());
        assert!(parts.iter().all(|p| p.len() <= SEGMENT_CHARS && p.ends_with('\n')));
        assert_eq!(parts.concat(), text, "nothing lost, nothing repeated");
        // One line longer than a segment is cut inside, at character boundaries.
        let wide = "é".repeat(SEGMENT_CHARS);
        let parts = segments(&wide);
        assert!(parts.len() >= 2 && parts.iter().all(|p| p.len() <= SEGMENT_CHARS));
        assert_eq!(parts.concat(), wide);
        // At most MAX_SEGMENTS: the start of a very long report.
        assert_eq!(segments(&line.repeat(100)).len(), MAX_SEGMENTS);
        assert_eq!(segments("  \n\n"), ["  \n\n"], "a blank text is still one segment");
    }

    #[test]
    fn segments_fuse_to_a_unit_mean() {
        let fused = mean_unit(&[vec![1.0, 0.0], vec![0.0, 1.0]]);
        assert!((fused[0] - fused[1]).abs() < 1e-6 && (fused[0] * fused[0] + fused[1] * fused[1] - 1.0).abs() < 1e-5);
        assert_eq!(mean_unit(&[vec![0.6, 0.8]]), vec![0.6, 0.8]);
    }
}
