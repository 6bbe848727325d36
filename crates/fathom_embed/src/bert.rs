//! The BERT encoder of all-MiniLM-L6-v2, written against burn's tensor API so
//! that one definition runs on every device burn offers (flex on the CPU,
//! WebGPU in the browser).
//!
//! Weights are read from a safetensors file laid out as Hugging Face's
//! `BertModel` saves it; linear weights there are `[out, in]` and are
//! transposed to burn's `[in, out]` on load.

use burn::module::Param;
use burn::nn::{Embedding, EmbeddingConfig, LayerNorm, LayerNormConfig, Linear, LinearConfig};
use burn::tensor::activation::{gelu, softmax};
use burn::tensor::module::attention;
use burn::tensor::ops::AttentionModuleOptions;
use burn::tensor::{Device, Int, Tensor, TensorData};
use safetensors::{Dtype, SafeTensors};

use crate::EmbedError;

/// The architecture of MiniLM-L6-H384 (its `config.json`).
#[derive(Debug, Clone, Copy)]
pub struct BertConfig {
    pub vocab: usize,
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub intermediate: usize,
    pub max_positions: usize,
    pub type_vocab: usize,
    pub layer_norm_eps: f64,
}

impl BertConfig {
    pub const MINILM_L6: BertConfig = BertConfig {
        vocab: 30522,
        hidden: 384,
        layers: 6,
        heads: 12,
        intermediate: 1536,
        max_positions: 512,
        type_vocab: 2,
        layer_norm_eps: 1e-12,
    };
}

#[derive(Debug)]
struct Layer {
    /// Query, key and value as one `[hidden, 3·hidden]` projection.
    qkv: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

#[derive(Debug)]
pub struct Bert {
    config: BertConfig,
    /// The CPU's kernels: attention through the backend's fused kernel, and
    /// natively GELU by [`gelu_cpu`]; WebGPU runs matrix products, a softmax
    /// and the backend's GELU instead.
    cpu_kernels: bool,
    words: Embedding,
    positions: Embedding,
    token_types: Embedding,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
}

/// Reads named tensors out of a safetensors file as f32, whatever their
/// stored float type.
struct Weights<'a> {
    file: SafeTensors<'a>,
    device: &'a Device,
}

impl Weights<'_> {
    fn floats(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, EmbedError> {
        let view = self.file.tensor(name).map_err(|_| EmbedError::MissingTensor(name.to_owned()))?;
        if view.shape() != shape {
            return Err(EmbedError::TensorShape {
                name: name.to_owned(),
                expected: shape.to_vec(),
                found: view.shape().to_vec(),
            });
        }
        let bytes = view.data();
        Ok(match view.dtype() {
            Dtype::F32 => bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
            Dtype::F16 => bytes.chunks_exact(2).map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
            other => return Err(EmbedError::TensorType { name: name.to_owned(), dtype: format!("{other:?}") }),
        })
    }

    fn vector(&self, name: &str, len: usize) -> Result<Param<Tensor<1>>, EmbedError> {
        let data = self.floats(name, &[len])?;
        Ok(Param::from_tensor(Tensor::from_data(TensorData::new(data, [len]), self.device)))
    }

    fn matrix(&self, name: &str, rows: usize, cols: usize) -> Result<Tensor<2>, EmbedError> {
        let data = self.floats(name, &[rows, cols])?;
        Ok(Tensor::from_data(TensorData::new(data, [rows, cols]), self.device))
    }

    fn embedding(&self, name: &str, rows: usize, cols: usize) -> Result<Embedding, EmbedError> {
        let mut module = EmbeddingConfig::new(rows, cols).init(self.device);
        module.weight = Param::from_tensor(self.matrix(&format!("{name}.weight"), rows, cols)?);
        Ok(module)
    }

    /// A PyTorch `nn.Linear(input, output)`: weight `[output, input]`.
    fn linear(&self, name: &str, input: usize, output: usize) -> Result<Linear, EmbedError> {
        self.linears(&[name.to_owned()], input, output)
    }

    /// Several PyTorch `nn.Linear(input, output)` that read the same input,
    /// as one `Linear(input, n·output)`: one matrix product instead of n.
    fn linears(&self, names: &[String], input: usize, output: usize) -> Result<Linear, EmbedError> {
        let mut weights = Vec::new();
        let mut biases = Vec::new();
        for name in names {
            weights.extend(self.floats(&format!("{name}.weight"), &[output, input])?);
            biases.extend(self.floats(&format!("{name}.bias"), &[output])?);
        }
        let rows = names.len() * output;
        let mut module = LinearConfig::new(input, rows).init(self.device);
        let weight = transposed(&weights, rows, input);
        module.weight = Param::from_tensor(Tensor::from_data(TensorData::new(weight, [input, rows]), self.device));
        module.bias = Some(Param::from_tensor(Tensor::from_data(TensorData::new(biases, [rows]), self.device)));
        Ok(module)
    }

    fn layer_norm(&self, name: &str, size: usize, eps: f64) -> Result<LayerNorm, EmbedError> {
        let mut module = LayerNormConfig::new(size).with_epsilon(eps).init(self.device);
        module.gamma = self.vector(&format!("{name}.weight"), size)?;
        module.beta = Some(self.vector(&format!("{name}.bias"), size)?);
        Ok(module)
    }
}

/// A row-major `[rows, cols]` matrix as `[cols, rows]`: PyTorch's linear
/// weights in burn's layout, laid out afresh rather than as a transposed view,
/// so that the matrix kernels read them in order.
fn transposed(values: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; values.len()];
    for (r, row) in values.chunks_exact(cols).enumerate() {
        for (c, &v) in row.iter().enumerate() {
            out[c * rows + r] = v;
        }
    }
    out
}

impl Bert {
    pub fn load(
        config: BertConfig,
        safetensors: &[u8],
        device: &Device,
        cpu_kernels: bool,
    ) -> Result<Bert, EmbedError> {
        let file = SafeTensors::deserialize(safetensors).map_err(|e| EmbedError::Weights(e.to_string()))?;
        let w = Weights { file, device };
        let (h, eps) = (config.hidden, config.layer_norm_eps);
        let layers = (0..config.layers)
            .map(|i| {
                let p = format!("encoder.layer.{i}");
                Ok(Layer {
                    qkv: w.linears(&["query", "key", "value"].map(|n| format!("{p}.attention.self.{n}")), h, h)?,
                    attention_out: w.linear(&format!("{p}.attention.output.dense"), h, h)?,
                    attention_norm: w.layer_norm(&format!("{p}.attention.output.LayerNorm"), h, eps)?,
                    intermediate: w.linear(&format!("{p}.intermediate.dense"), h, config.intermediate)?,
                    output: w.linear(&format!("{p}.output.dense"), config.intermediate, h)?,
                    output_norm: w.layer_norm(&format!("{p}.output.LayerNorm"), h, eps)?,
                })
            })
            .collect::<Result<Vec<_>, EmbedError>>()?;
        Ok(Bert {
            config,
            cpu_kernels,
            words: w.embedding("embeddings.word_embeddings", config.vocab, h)?,
            positions: w.embedding("embeddings.position_embeddings", config.max_positions, h)?,
            token_types: w.embedding("embeddings.token_type_embeddings", config.type_vocab, h)?,
            embedding_norm: w.layer_norm("embeddings.LayerNorm", h, eps)?,
            layers,
        })
    }

    /// Sentence embeddings for a padded batch: the encoder's last hidden
    /// state, mean-pooled over the real tokens and L2-normalised.
    ///
    /// `ids` and `mask` are `[batch, len]`; `mask` is 1 for real tokens and 0
    /// for padding.
    pub fn embed(&self, ids: Tensor<2, Int>, mask: Tensor<2>) -> Tensor<2> {
        let [batch, len] = ids.dims();
        let device = ids.device();
        let (h, heads) = (self.config.hidden, self.config.heads);
        let head_dim = h / heads;

        let positions = Tensor::<1, Int>::arange(0..len as i64, &device).unsqueeze_dim::<2>(0).repeat_dim(0, batch);
        let types = Tensor::<2, Int>::zeros([batch, len], &device);
        let mut x = self.words.forward(ids) + self.positions.forward(positions) + self.token_types.forward(types);
        x = self.embedding_norm.forward(x);

        // Padding is hidden from attention by a large negative bias on its keys.
        let bias = (mask.clone() - 1.0).mul_scalar(1.0e4).reshape([batch, 1, 1, len]);
        // Natively the CPU's attention reads that bias as plain floats, one per key.
        let key_bias: Option<Vec<f32>> = (self.cpu_kernels && cfg!(not(target_family = "wasm")))
            .then(|| bias.clone().into_data().try_into_vec::<f32>().expect("the mask is f32"));
        // In the browser flex's fused kernel reads its bias per query row: one
        // [len, len] tile per text, shared by every head and layer.
        let tile = (self.cpu_kernels && key_bias.is_none()).then(|| bias.clone().repeat_dim(2, len));
        let scale = 1.0 / (head_dim as f64).sqrt();
        let split = |t: Tensor<3>| t.reshape([batch, len, heads, head_dim]).swap_dims(1, 2);

        for layer in &self.layers {
            let qkv = layer.qkv.forward(x.clone());
            let context = match &key_bias {
                #[cfg(not(target_family = "wasm"))]
                Some(key_bias) => attention_cpu(qkv, key_bias, heads, scale as f32),
                _ => {
                    let q = split(qkv.clone().narrow(2, 0, h));
                    let k = split(qkv.clone().narrow(2, h, h));
                    let v = split(qkv.narrow(2, 2 * h, h));
                    let context = match &tile {
                        Some(tile) => {
                            let options =
                                AttentionModuleOptions { scale: Some(scale), softcap: None, is_causal: false };
                            attention(q, k, v, None, Some(tile.clone()), options)
                        }
                        None => softmax(q.matmul(k.swap_dims(2, 3)).mul_scalar(scale) + bias.clone(), 3).matmul(v),
                    };
                    context.swap_dims(1, 2).reshape([batch, len, h])
                }
            };
            x = layer.attention_norm.forward(layer.attention_out.forward(context) + x);
            let inner = layer.intermediate.forward(x.clone());
            // In the browser, the CPU's activations cannot be read back
            // synchronously, so there the backend's own GELU runs.
            let inner =
                if self.cpu_kernels && cfg!(not(target_family = "wasm")) { gelu_cpu(inner) } else { gelu(inner) };
            x = layer.output_norm.forward(layer.output.forward(inner) + x);
        }

        let weights = mask.reshape([batch, len, 1]);
        let summed = (x * weights.clone()).sum_dim(1).reshape([batch, h]);
        let counts = weights.sum_dim(1).reshape([batch, 1]).clamp_min(1e-9);
        let mean = summed / counts;
        let norm = mean.clone().powf_scalar(2.0).sum_dim(1).sqrt().clamp_min(1e-12);
        mean / norm
    }
}

/// Attention on the CPU, natively, from the fused query-key-value projection
/// `[batch, len, 3·hidden]` straight into the context `[batch, len, hidden]`.
/// Per text and head: the scores by one matrix product that reads the
/// queries and keys where they lie (strided, with no copy into heads), a
/// softmax whose exp vectorises, and the context by a second product
/// written into its place. flex's fused kernel spent a fifth of MiniLM's
/// time in its softmax, on a scalar `expf` and per-element branches for
/// masks it is not given. Texts run in parallel (rayon), within the parts
/// of a batch that the embedder runs one per core.
#[cfg(not(target_family = "wasm"))]
fn attention_cpu(qkv: Tensor<3>, key_bias: &[f32], heads: usize, scale: f32) -> Tensor<3> {
    let [batch, len, width] = qkv.dims();
    let h = width / 3;
    let d = h / heads;
    let device = qkv.device();
    let qkv = qkv.into_data().try_into_vec::<f32>().expect("activations are f32");
    assert!(qkv.len() == batch * len * width && key_bias.len() == batch * len && d * heads == h);
    let mut context = vec![0.0f32; batch * len * h];
    // Texts in parallel, each with its own scores: the two parts of a batch
    // seldom take equally long, and rayon lets the core that is done first
    // take texts from the other.
    use rayon::prelude::*;
    context.par_chunks_exact_mut(len * h).enumerate().for_each_init(
        || vec![0.0f32; len * len],
        |scores, (b, out)| {
            let rows = &qkv[b * len * width..(b + 1) * len * width];
            let bias = &key_bias[b * len..(b + 1) * len];
            for head in 0..heads {
                let (q, k, v) = (&rows[head * d..], &rows[h + head * d..], &rows[2 * h + head * d..]);
                // SAFETY: query i's row is q[i·width .. i·width + d], key j's is
                // k[j·width .. j·width + d] and value j's v[j·width .. j·width + d];
                // the last (i = j = len − 1) ends within `rows`, whose length is
                // len·width. scores[i·len + j] and out[head·d + i·h + c] (c < d) stay
                // within `scores` (len·len) and `out` (len·h).
                unsafe {
                    // scores = scale · Q Kᵀ
                    gemm::gemm(
                        len,
                        len,
                        d,
                        scores.as_mut_ptr(),
                        1,
                        len as isize,
                        false,
                        q.as_ptr(),
                        1,
                        width as isize,
                        k.as_ptr(),
                        width as isize,
                        1,
                        0.0,
                        scale,
                        false,
                        false,
                        false,
                        gemm::Parallelism::None,
                    );
                }
                softmax_rows(scores, len, bias);
                unsafe {
                    // context[:, head] = softmax(scores) V
                    gemm::gemm(
                        len,
                        d,
                        len,
                        out[head * d..].as_mut_ptr(),
                        1,
                        h as isize,
                        false,
                        scores.as_ptr(),
                        1,
                        len as isize,
                        v.as_ptr(),
                        1,
                        width as isize,
                        0.0,
                        1.0,
                        false,
                        false,
                        false,
                        gemm::Parallelism::None,
                    );
                }
            }
        },
    );
    Tensor::from_data(TensorData::new(context, [batch, len, h]), &device)
}

/// Rows of `len` attention scores, plus each key's bias, into their
/// softmax, in the widest vectors the CPU has.
#[cfg(not(target_family = "wasm"))]
fn softmax_rows(scores: &mut [f32], len: usize, bias: &[f32]) {
    widest(scores, &Softmax { len, bias });
}

/// A loop over floats, compiled once per instruction set by [`widest`].
trait Kernel {
    /// Must be `#[inline(always)]`, with all it calls, to be compiled into
    /// each of `widest`'s versions.
    fn run(&self, values: &mut [f32]);
}

#[cfg(not(target_family = "wasm"))]
struct Softmax<'a> {
    len: usize,
    bias: &'a [f32],
}

#[cfg(not(target_family = "wasm"))]
impl Kernel for Softmax<'_> {
    #[inline(always)]
    fn run(&self, scores: &mut [f32]) {
        for row in scores.chunks_exact_mut(self.len) {
            softmax_row(row, self.bias);
        }
    }
}

/// GELU, exactly as BERT defines it (`0.5·x·(1 + erf(x/√2))`).
struct Gelu;

impl Kernel for Gelu {
    #[inline(always)]
    fn run(&self, values: &mut [f32]) {
        for v in values {
            *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
        }
    }
}

/// Runs `kernel` on `values` compiled for AVX-512 or AVX2 with FMA where the
/// CPU has them, and for the build's baseline otherwise. The native build
/// targets baseline x86-64 (SSE2), so wider code is chosen at run time, as
/// gemm chooses its kernels.
#[cfg(not(target_family = "wasm"))]
fn widest(values: &mut [f32], kernel: &impl Kernel) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx2,fma")]
        fn avx512(values: &mut [f32], kernel: &impl Kernel) {
            kernel.run(values)
        }
        #[target_feature(enable = "avx2,fma")]
        fn avx2(values: &mut [f32], kernel: &impl Kernel) {
            kernel.run(values)
        }
        if std::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has the features this was compiled for.
            return unsafe { avx512(values, kernel) };
        }
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            // SAFETY: as above.
            return unsafe { avx2(values, kernel) };
        }
    }
    kernel.run(values)
}

/// A row of attention scores, plus each key's bias, into its softmax. Each
/// pass is a plain loop over the row (the max and the sum in eight lanes)
/// and exp is branch-free, so every pass vectorises.
#[cfg(not(target_family = "wasm"))]
#[inline(always)]
fn softmax_row(row: &mut [f32], bias: &[f32]) {
    for (s, b) in row.iter_mut().zip(bias) {
        *s += *b;
    }
    let max = lanes(row, f32::NEG_INFINITY, f32::max);
    for s in row.iter_mut() {
        *s = exp(*s - max);
    }
    let inv = 1.0 / lanes(row, 0.0, |a, b| a + b);
    for s in row.iter_mut() {
        *s *= inv;
    }
}

/// `values` folded by `f` in eight lanes, then the lanes folded.
#[cfg(not(target_family = "wasm"))]
#[inline(always)]
fn lanes(values: &[f32], init: f32, f: impl Fn(f32, f32) -> f32) -> f32 {
    let mut acc = [init; 8];
    let mut chunks = values.chunks_exact(8);
    for chunk in &mut chunks {
        for (a, &v) in acc.iter_mut().zip(chunk) {
            *a = f(*a, v);
        }
    }
    for &v in chunks.remainder() {
        acc[0] = f(acc[0], v);
    }
    acc.into_iter().fold(init, f)
}

/// GELU on the CPU, with erf computed branch-free so that the loop
/// vectorises, where the backend's own GELU calls libm's scalar `erff` once
/// per element.
fn gelu_cpu(x: Tensor<3>) -> Tensor<3> {
    let (shape, device) = (x.shape(), x.device());
    let mut values = x.into_data().try_into_vec::<f32>().expect("activations are f32");
    #[cfg(not(target_family = "wasm"))]
    widest(&mut values, &Gelu);
    #[cfg(target_family = "wasm")]
    Gelu.run(&mut values);
    Tensor::from_data(TensorData::new(values, shape), &device)
}

/// erf by Abramowitz and Stegun's 7.1.26, written without branches: absolute
/// error under 1e-6 in f32 (the formula's own is 1.5e-7).
#[inline(always)]
fn erf(x: f32) -> f32 {
    let z = x.abs().min(6.0);
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = ((((1.061_405_4 * t - 1.453_152_1) * t + 1.421_413_8) * t - 0.284_496_74) * t + 0.254_829_6) * t;
    (1.0 - poly * exp(-z * z)).copysign(x)
}

/// e^x for x in [-87, 0] (all `erf` needs), by Cephes' expf: x = n·ln 2 + r,
/// a polynomial in r, and 2^n put in the exponent bits; relative error about 2e-7.
#[inline(always)]
fn exp(x: f32) -> f32 {
    let x = x.max(-87.0);
    // Rounded by adding and taking away 1.5·2^23, which needs no rounding
    // instruction (baseline x86-64 has none, and a call to `rintf` would stop
    // the loop from vectorising).
    const SHIFT: f32 = 12_582_912.0;
    let shifted = x * std::f32::consts::LOG2_E + SHIFT;
    let n = shifted - SHIFT;
    let r = x - n * 0.693_359_4 + n * 2.121_944_4e-4;
    let p = (((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r + 0.166_666_65)
        * r
        + 0.5)
        * r
        * r
        + r
        + 1.0;
    // 2^n, n read from the shifted sum's low mantissa bits (its bits are
    // SHIFT's plus n), not by a float-to-integer cast, which Rust saturates
    // and LLVM then leaves scalar.
    p * f32::from_bits(shifted.to_bits().wrapping_sub(SHIFT.to_bits()).wrapping_add(127) << 23)
}

#[cfg(test)]
mod tests {
    #[test]
    fn erf_and_exp_match_their_definitions() {
        let mut worst = (0.0f32, 0.0f32);
        for i in -80_000i32..=80_000 {
            let x = i as f32 * 1e-4;
            let e = (super::erf(x) - erf_reference(x)).abs();
            if e > worst.0 {
                worst = (e, x);
            }
            let y = -(i.abs() as f32) * 1e-3;
            let rel = (super::exp(y) - y.exp()).abs() / y.exp();
            assert!(rel < 5e-7, "exp({y}): {} against {}", super::exp(y), y.exp());
        }
        // The formula's own error is 1.5e-7; f32 rounding near 0 adds to it.
        assert!(worst.0 < 1e-6, "erf's worst absolute error is {} at {}", worst.0, worst.1);
        assert!(super::erf(0.0).abs() < 1e-6);
        assert_eq!(super::erf(100.0), 1.0);
        assert_eq!(super::erf(-100.0), -1.0);
    }

    /// erf in f64 (by its Taylor series to |x| ≤ 3, and 1 beyond within f32's precision).
    fn erf_reference(x: f32) -> f32 {
        let x = x as f64;
        if x.abs() > 4.5 {
            return x.signum() as f32;
        }
        let (mut sum, mut term, mut n) = (0.0f64, x, 0.0f64);
        while term.abs() > 1e-17 || n < 3.0 {
            sum += term / (2.0 * n + 1.0);
            n += 1.0;
            term *= -x * x / n;
        }
        (sum * 2.0 / std::f64::consts::PI.sqrt()) as f32
    }
}
