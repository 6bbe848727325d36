//! The arithmetic of distillation, after the teacher has embedded every word
//! piece on its own: PCA to [`Recipe::dims`], SIF weighting by the pieces'
//! Zipf-estimated frequency, int8 quantisation of each row.
//!
//! Everything here is deterministic for given inputs: sums run in a fixed
//! order in f64, the eigenvectors' signs are fixed (each one's largest
//! coefficient is positive), and ties cannot reorder anything.

use std::collections::BTreeMap;

use nalgebra::{DMatrix, SymmetricEigen};
use safetensors::Dtype;
use safetensors::tensor::TensorView;

use crate::{Recipe, StaticError, quantise};

/// Makes the table from the teacher's vectors, one per piece of the
/// vocabulary in id order; `None` for a piece that gets no row (special and
/// unused pieces). `metadata` is stored beside the recipe in the file.
pub fn table(
    vectors: &[Option<Vec<f32>>],
    recipe: &Recipe,
    metadata: BTreeMap<String, String>,
) -> Result<Vec<u8>, StaticError> {
    let kept: Vec<&[f32]> = vectors.iter().flatten().map(Vec::as_slice).collect();
    let width = kept.first().map_or(0, |v| v.len());
    if kept.is_empty() || kept.iter().any(|v| v.len() != width) {
        return Err(StaticError::Table("the teacher's vectors are missing or of different lengths".into()));
    }
    let dims = recipe.dims.min(width);
    let projection = principal_axes(&kept, dims);

    let vocab = vectors.len();
    let weights = sif_weights(vocab, recipe.sif);
    let mut rows = vec![0i8; vocab * dims];
    let mut scales = vec![0f32; vocab];
    for (id, vector) in vectors.iter().enumerate() {
        let Some(vector) = vector else { continue };
        let projected: Vec<f32> = projection.project(vector).iter().map(|&x| (x * weights[id]) as f32).collect();
        let (q, scale) = quantise(&projected);
        rows[id * dims..(id + 1) * dims].copy_from_slice(&q);
        scales[id] = scale;
    }

    let row_bytes: Vec<u8> = rows.iter().map(|&r| r as u8).collect();
    let scale_bytes: Vec<u8> = scales.iter().flat_map(|s| s.to_le_bytes()).collect();
    let views = [
        ("rows", TensorView::new(Dtype::I8, vec![vocab, dims], &row_bytes)),
        ("scales", TensorView::new(Dtype::F32, vec![vocab], &scale_bytes)),
    ];
    let views = views
        .into_iter()
        .map(|(name, view)| view.map(|v| (name, v)).map_err(|e| StaticError::Table(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let mut metadata = metadata;
    metadata.insert("recipe".into(), format!("pca {dims}, sif {}, zipf by piece id, int8 rows", recipe.sif));
    metadata.insert("pieces_with_rows".into(), kept.len().to_string());
    // One key, its lines in order: safetensors writes a map's keys in hash
    // order, which would make every build's bytes differ.
    let about: String = metadata.iter().map(|(k, v)| format!("{k}: {v}\n")).collect();
    safetensors::serialize(views, Some([("fathom".to_owned(), about)].into_iter().collect()))
        .map_err(|e| StaticError::Table(e.to_string()))
}

/// SIF weights `a / (a + p)`, `p` estimated by Zipf's law from the piece's
/// id: WordPiece vocabularies list pieces roughly by frequency, so the
/// probability of id `i` is taken as proportional to `1 / (i + 2)`.
fn sif_weights(vocab: usize, a: f64) -> Vec<f64> {
    let inverse: Vec<f64> = (0..vocab).map(|i| 1.0 / (i as f64 + 2.0)).collect();
    let total: f64 = inverse.iter().sum();
    inverse.iter().map(|&x| a / (a + x / total)).collect()
}

/// The mean and the leading principal axes of a set of vectors.
struct Projection {
    mean: Vec<f64>,
    /// `dims` axes, each of the vectors' width.
    axes: Vec<Vec<f64>>,
}

impl Projection {
    fn project(&self, v: &[f32]) -> Vec<f64> {
        self.axes
            .iter()
            .map(|axis| axis.iter().zip(v).zip(&self.mean).map(|((a, &x), m)| a * (f64::from(x) - m)).sum())
            .collect()
    }
}

fn principal_axes(vectors: &[&[f32]], dims: usize) -> Projection {
    let width = vectors[0].len();
    let n = vectors.len() as f64;
    let mut mean = vec![0f64; width];
    for v in vectors {
        mean.iter_mut().zip(v.iter()).for_each(|(m, &x)| *m += f64::from(x));
    }
    mean.iter_mut().for_each(|m| *m /= n);
    let mut covariance = DMatrix::<f64>::zeros(width, width);
    let mut centred = vec![0f64; width];
    for v in vectors {
        centred.iter_mut().zip(v.iter()).zip(&mean).for_each(|((c, &x), m)| *c = f64::from(x) - m);
        for i in 0..width {
            let ci = centred[i];
            for j in i..width {
                covariance[(i, j)] += ci * centred[j];
            }
        }
    }
    for i in 0..width {
        for j in 0..i {
            covariance[(i, j)] = covariance[(j, i)];
        }
    }
    covariance /= n;
    let eigen = SymmetricEigen::new(covariance);
    let mut order: Vec<usize> = (0..width).collect();
    order.sort_by(|&a, &b| eigen.eigenvalues[b].total_cmp(&eigen.eigenvalues[a]).then(a.cmp(&b)));
    let axes = order
        .into_iter()
        .take(dims)
        .map(|k| {
            let mut axis: Vec<f64> = eigen.eigenvectors.column(k).iter().copied().collect();
            let largest = axis.iter().copied().fold(0f64, |best, x| if x.abs() > best.abs() { x } else { best });
            if largest < 0.0 {
                axis.iter_mut().for_each(|x| *x = -*x);
            }
            axis
        })
        .collect();
    Projection { mean, axes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StaticModel;

    #[test]
    fn principal_axes_find_the_direction_of_most_variance() {
        // Points spread along (1, 1) and barely along (1, -1).
        let points: Vec<Vec<f32>> = (0..50)
            .map(|i| i as f32 / 10.0)
            .map(|t| vec![t + 0.01 * (t * 7.0).sin(), t - 0.01 * (t * 7.0).sin()])
            .collect();
        let refs: Vec<&[f32]> = points.iter().map(Vec::as_slice).collect();
        let p = principal_axes(&refs, 1);
        let axis = &p.axes[0];
        assert!((axis[0] - axis[1]).abs() < 1e-3 && axis[0] > 0.0, "{axis:?}");
        assert!((axis[0] * axis[0] + axis[1] * axis[1] - 1.0).abs() < 1e-9);
    }

    #[test]
    fn frequent_pieces_weigh_less() {
        let w = sif_weights(30_000, 1e-4);
        assert!(w[10] < w[1000] && w[1000] < w[29_000] && w[29_000] < 1.0, "{} {} {}", w[10], w[1000], w[29_000]);
    }

    #[test]
    fn a_table_is_made_deterministically_and_read_back() {
        let tokenizer = br###"{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
            "normalizer":{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true},
            "pre_tokenizer":{"type":"BertPreTokenizer"},"post_processor":null,"decoder":null,
            "model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":100,
            "vocab":{"[UNK]":0,"parse":1,"file":2,"read":3,"##s":4,"network":5}}}"###;
        let vectors: Vec<Option<Vec<f32>>> = vec![
            None,
            Some(vec![1.0, 0.2, 0.0]),
            Some(vec![0.9, 0.3, 0.1]),
            Some(vec![0.8, 0.1, 0.2]),
            Some(vec![0.1, 0.1, 0.1]),
            Some(vec![-1.0, 0.5, 0.9]),
        ];
        let recipe = Recipe { dims: 2, sif: 1e-4 };
        let bytes = table(&vectors, &recipe, BTreeMap::new()).unwrap();
        assert_eq!(bytes, table(&vectors, &recipe, BTreeMap::new()).unwrap(), "the same inputs make the same bytes");
        let model = StaticModel::load(&bytes, tokenizer).unwrap();
        assert_eq!((model.dim(), model.vocabulary()), (2, 6));
        let cos = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        let files = model.embed("read files", None).unwrap();
        assert!(
            cos(&files, &model.embed("parse file", None).unwrap())
                > cos(&files, &model.embed("network", None).unwrap())
        );
        assert_eq!(model.embed("zzz", None).unwrap(), vec![0.0, 0.0], "unknown pieces have no row");
        assert!(model.embed_query("read files", None).unwrap().is_some());
        assert_eq!(model.embed_query("zzz", None).unwrap(), None, "no word of the query is a whole piece");
    }
}
