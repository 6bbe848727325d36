//! The CPU backend against the original model: every text of the fixture
//! must embed to a vector with cosine >= 0.999 to sentence-transformers' own,
//! and tokenize to the same word pieces.

use base64::Engine;
use fathom_embed::{Embedder, asset, cosine};

fn fixture(name: &str) -> serde_json::Value {
    let path = format!(
        "{}/tests/fixtures/{name}",
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn texts() -> Vec<String> {
    fixture("parity-texts.json")["texts"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_owned()).collect()
}

fn reference() -> Vec<Vec<f32>> {
    fixture("parity-vectors.json")["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let bytes = base64::engine::general_purpose::STANDARD.decode(v.as_str().unwrap()).unwrap();
            bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
        })
        .collect()
}

fn embedder() -> Embedder {
    let (weights, tokenizer) = asset::read_dir(&asset::default_dir()).expect("model asset");
    Embedder::cpu(&weights, &tokenizer).expect("load model")
}

#[test]
fn tokenizer_matches_the_python_word_pieces() {
    let embedder = embedder();
    let expected = fixture("parity-pieces.json");
    for (text, pieces) in texts().iter().zip(expected.as_array().unwrap()) {
        let pieces: Vec<&str> = pieces.as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        assert_eq!(embedder.tokenizer().pieces(text).unwrap(), pieces, "{text:?}");
    }
}

#[test]
fn cpu_embeddings_match_sentence_transformers() {
    let embedder = embedder();
    let texts = texts();
    let reference = reference();
    assert!(texts.len() >= 50 && texts.len() == reference.len());
    let mut worst = (1.0f32, String::new());
    // Batches of mixed lengths, so padding is exercised too.
    for (chunk, expected) in texts.chunks(8).zip(reference.chunks(8)) {
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        for ((text, got), want) in chunk.iter().zip(embedder.embed(&refs).unwrap()).zip(expected) {
            assert_eq!(got.len(), fathom_embed::DIM);
            let c = cosine(&got, want);
            if c < worst.0 {
                worst = (c, text.chars().take(40).collect());
            }
        }
    }
    eprintln!("worst cosine {:.6} on {:?}", worst.0, worst.1);
    assert!(worst.0 >= 0.999, "cosine {} on {:?}", worst.0, worst.1);
}

#[test]
fn a_tampered_asset_is_refused_with_its_hashes() {
    let (mut weights, tokenizer) = asset::read_dir(&asset::default_dir()).unwrap();
    weights[1000] ^= 1;
    let err = Embedder::cpu(&weights, &tokenizer).err().expect("refused").to_string();
    assert!(err.contains(asset::WEIGHTS_FILE) && err.contains(asset::WEIGHTS_SHA256), "{err}");
    let err = Embedder::cpu(&weights[..1000], &tokenizer).err().unwrap().to_string();
    assert!(err.contains("1000 bytes"), "{err}");
}
