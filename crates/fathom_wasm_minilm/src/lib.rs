//! MiniLM in the browser, as a module of its own: burn, its WebGPU stack
//! (wgpu, naga, cubecl) and its CPU kernels are most of the engine's code,
//! and the engine needs none of them until MiniLM runs. The worker loads
//! this module with MiniLM's weights; texts go in and vectors come out, and
//! the engine module (`fathom_wasm`) holds them.

use std::rc::Rc;

use fathom_embed::{DIM, EmbedError, Embedder, MODEL_ID};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** The loaded model: where it runs, and why WebGPU was not used when "auto" fell back to the CPU. */
export interface ModelInfo { backend: string; model: string; dim: number; fallback: string | null; weights_sha256: string; }
"#;

// `inventory` (under burn's cubecl) registers with static constructors.
// Unless the module calls them itself, wasm-ld wraps *every* export in a
// call to all of them (see fathom_wasm, where this cost 1000x): they run
// once here, at instantiation.
#[cfg(target_arch = "wasm32")]
unsafe extern "C" {
    fn __wasm_call_ctors();
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(start)]
fn start() {
    // SAFETY: wasm-ld synthesizes this; it runs each static constructor, and
    // this is its only caller, once, before any other export runs.
    unsafe { __wasm_call_ctors() }
}

/// all-MiniLM-L6-v2, loaded and ready to embed.
#[wasm_bindgen]
pub struct MiniLm {
    embedder: Rc<Embedder>,
    info: ModelInfo,
}

#[wasm_bindgen]
impl MiniLm {
    /// Loads the model from the asset's bytes, after checking their hashes.
    /// `backend` is "auto" (WebGPU, else the CPU), "webgpu" or "cpu".
    pub async fn load(weights: Vec<u8>, tokenizer: Vec<u8>, backend: String) -> Result<MiniLm, JsError> {
        console_error_panic_hook::set_once();
        let mut fallback = None;
        let embedder = match backend.as_str() {
            "cpu" => Embedder::cpu(&weights, &tokenizer).map_err(js_error)?,
            "webgpu" => Embedder::webgpu(&weights, &tokenizer).await.map_err(js_error)?,
            "auto" => match Embedder::webgpu(&weights, &tokenizer).await {
                Ok(embedder) => embedder,
                Err(EmbedError::NoWebGpu(why)) => {
                    fallback = Some(why);
                    Embedder::cpu(&weights, &tokenizer).map_err(js_error)?
                }
                Err(e) => return Err(js_error(e)),
            },
            other => return Err(JsError::new(&format!("unknown backend `{other}`; use auto, webgpu or cpu"))),
        };
        let info = ModelInfo {
            backend: embedder.backend().as_str(),
            model: MODEL_ID,
            dim: DIM,
            fallback,
            weights_sha256: fathom_embed::asset::WEIGHTS_SHA256,
        };
        Ok(MiniLm { embedder: Rc::new(embedder), info })
    }

    #[wasm_bindgen(getter, unchecked_return_type = "ModelInfo")]
    pub fn info(&self) -> Result<JsValue, JsError> {
        self.info
            .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// Embeds texts: `texts.length` unit vectors of `dim` floats, end to end.
    #[wasm_bindgen(unchecked_return_type = "Promise<Float32Array>")]
    pub fn embed(&self, texts: Vec<String>) -> js_sys::Promise {
        let embedder = Rc::clone(&self.embedder);
        wasm_bindgen_futures::future_to_promise(async move {
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let vectors = embedder.embed_async(&refs).await.map_err(js_error)?;
            let flat: Vec<f32> = vectors.into_iter().flatten().collect();
            Ok(js_sys::Float32Array::from(&flat[..]).into())
        })
    }

    /// A query's vector: a long one (a bug report) in segments, their
    /// vectors averaged, as the CLI embeds it.
    #[wasm_bindgen(js_name = embedQuery, unchecked_return_type = "Promise<Float32Array>")]
    pub fn embed_query(&self, text: String) -> js_sys::Promise {
        let embedder = Rc::clone(&self.embedder);
        wasm_bindgen_futures::future_to_promise(async move {
            let vectors = embedder.embed_async(&fathom_embed::segments(&text)).await.map_err(js_error)?;
            Ok(js_sys::Float32Array::from(&fathom_embed::mean_unit(&vectors)[..]).into())
        })
    }
}

#[derive(Serialize)]
struct ModelInfo {
    backend: &'static str,
    model: &'static str,
    dim: usize,
    /// Why WebGPU was not used, when "auto" fell back to the CPU.
    fallback: Option<String>,
    /// Names the model in cache keys: vectors of another model are never reused.
    weights_sha256: &'static str,
}

fn js_error(e: EmbedError) -> JsError {
    JsError::new(&e.to_string())
}
