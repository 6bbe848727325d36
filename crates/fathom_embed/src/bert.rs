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
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

#[derive(Debug)]
pub struct Bert {
    config: BertConfig,
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
        let mut module = LinearConfig::new(input, output).init(self.device);
        module.weight = Param::from_tensor(self.matrix(&format!("{name}.weight"), output, input)?.transpose());
        module.bias = Some(self.vector(&format!("{name}.bias"), output)?);
        Ok(module)
    }

    fn layer_norm(&self, name: &str, size: usize, eps: f64) -> Result<LayerNorm, EmbedError> {
        let mut module = LayerNormConfig::new(size).with_epsilon(eps).init(self.device);
        module.gamma = self.vector(&format!("{name}.weight"), size)?;
        module.beta = Some(self.vector(&format!("{name}.bias"), size)?);
        Ok(module)
    }
}

impl Bert {
    pub fn load(config: BertConfig, safetensors: &[u8], device: &Device) -> Result<Bert, EmbedError> {
        let file = SafeTensors::deserialize(safetensors).map_err(|e| EmbedError::Weights(e.to_string()))?;
        let w = Weights { file, device };
        let (h, eps) = (config.hidden, config.layer_norm_eps);
        let layers = (0..config.layers)
            .map(|i| {
                let p = format!("encoder.layer.{i}");
                Ok(Layer {
                    query: w.linear(&format!("{p}.attention.self.query"), h, h)?,
                    key: w.linear(&format!("{p}.attention.self.key"), h, h)?,
                    value: w.linear(&format!("{p}.attention.self.value"), h, h)?,
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
        let scale = 1.0 / (head_dim as f64).sqrt();
        let split = |t: Tensor<3>| t.reshape([batch, len, heads, head_dim]).swap_dims(1, 2);

        for layer in &self.layers {
            let q = split(layer.query.forward(x.clone()));
            let k = split(layer.key.forward(x.clone()));
            let v = split(layer.value.forward(x.clone()));
            let scores = q.matmul(k.swap_dims(2, 3)).mul_scalar(scale) + bias.clone();
            let context = softmax(scores, 3).matmul(v).swap_dims(1, 2).reshape([batch, len, h]);
            x = layer.attention_norm.forward(layer.attention_out.forward(context) + x);
            let inner = gelu(layer.intermediate.forward(x.clone()));
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
