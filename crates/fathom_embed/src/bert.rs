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
        // The fused kernel reads its bias per query row: one [len, len] tile
        // per text, shared by every head and layer.
        let tile = self.cpu_kernels.then(|| bias.clone().repeat_dim(2, len));
        let scale = 1.0 / (head_dim as f64).sqrt();
        let split = |t: Tensor<3>| t.reshape([batch, len, heads, head_dim]).swap_dims(1, 2);

        for layer in &self.layers {
            let qkv = layer.qkv.forward(x.clone());
            let q = split(qkv.clone().narrow(2, 0, h));
            let k = split(qkv.clone().narrow(2, h, h));
            let v = split(qkv.narrow(2, 2 * h, h));
            let context = match &tile {
                Some(tile) => {
                    let options = AttentionModuleOptions { scale: Some(scale), softcap: None, is_causal: false };
                    attention(q, k, v, None, Some(tile.clone()), options)
                }
                None => softmax(q.matmul(k.swap_dims(2, 3)).mul_scalar(scale) + bias.clone(), 3).matmul(v),
            };
            let context = context.swap_dims(1, 2).reshape([batch, len, h]);
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

/// GELU on the CPU, exactly as BERT defines it (`0.5·x·(1 + erf(x/√2))`),
/// with erf computed branch-free so that the loop vectorises, where the
/// backend's own GELU calls libm's scalar `erff` once per element.
fn gelu_cpu(x: Tensor<3>) -> Tensor<3> {
    let (shape, device) = (x.shape(), x.device());
    let mut values = x.into_data().try_into_vec::<f32>().expect("activations are f32");
    for v in &mut values {
        *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
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
    let n = (x * std::f32::consts::LOG2_E + SHIFT) - SHIFT;
    let r = x - n * 0.693_359_4 + n * 2.121_944_4e-4;
    let p = (((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r + 0.166_666_65)
        * r
        + 0.5)
        * r
        * r
        + r
        + 1.0;
    p * f32::from_bits(((n as i32 + 127) as u32) << 23)
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
