//! Nearest neighbours over chunk embeddings: an HNSW graph built with
//! `instant-distance`, and exact search beside it for measuring recall.

use std::sync::Arc;

use instant_distance::{Builder, HnswMap, Point, Search};
use serde::{Deserialize, Serialize};

/// HNSW parameters, recorded in every search's `params`. `M` is fixed by
/// instant-distance at 32.
pub const EF_CONSTRUCTION: usize = 100;
pub const EF_SEARCH: usize = 100;
/// Fixed, so the same vectors always build the same graph.
pub const SEED: u64 = 0x05ee_dfa7;

#[derive(Clone, Copy, Debug, Serialize)]
pub struct HnswParams {
    pub m: usize,
    pub ef_construction: usize,
    pub ef_search: usize,
    pub points: usize,
    pub dim: usize,
}

/// A unit vector; distance is `1 - cosine`. Shared: the HNSW graph and the
/// retrieval index's table of vectors by chunk hold the same allocation, so an
/// embedded repository's vectors are in memory once (serde writes it as the
/// plain list of numbers, so bundles do not change).
#[derive(Clone, Debug, PartialEq)]
pub struct Vector(pub Arc<[f32]>);

impl Serialize for Vector {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Vector {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vector, D::Error> {
        Vec::<f32>::deserialize(deserializer).map(|v| Vector(v.into()))
    }
}

impl Point for Vector {
    fn distance(&self, other: &Self) -> f32 {
        1.0 - dot(&self.0, &other.0)
    }
}

pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Stored in index bundles as instant-distance writes it (points, layers,
/// and chunk ids), so loading never rebuilds the graph.
#[derive(Serialize, Deserialize)]
pub struct Dense {
    map: HnswMap<Vector, u32>,
    dim: usize,
}

impl Dense {
    /// Builds the graph over `(chunk, vector)` pairs.
    pub fn build(points: Vec<(u32, Vector)>) -> Dense {
        let dim = points.first().map_or(0, |(_, v)| v.0.len());
        let (values, vectors): (Vec<u32>, Vec<Vector>) = points.into_iter().unzip();
        let map =
            Builder::default().ef_construction(EF_CONSTRUCTION).ef_search(EF_SEARCH).seed(SEED).build(vectors, values);
        Dense { map, dim }
    }

    pub fn params(&self) -> HnswParams {
        HnswParams {
            m: 32,
            ef_construction: EF_CONSTRUCTION,
            ef_search: EF_SEARCH,
            points: self.map.iter().count(),
            dim: self.dim,
        }
    }

    /// Every point with its chunk, in the graph's own order.
    pub fn points(&self) -> impl Iterator<Item = (u32, &Vector)> {
        self.map.iter().map(|(id, vector)| (self.map.values[id.into_inner() as usize], vector))
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Checks a graph read back from bytes: one chunk per point, every chunk
    /// among `chunks`, every point of the graph's dimension.
    pub fn check(&self, chunks: usize) -> Result<(), String> {
        let points = self.map.iter().count();
        if points != self.map.values.len() {
            return Err(format!("the HNSW graph has {points} points and {} chunk ids", self.map.values.len()));
        }
        if let Some(chunk) = self.map.values.iter().find(|&&c| c as usize >= chunks) {
            return Err(format!("the HNSW graph holds chunk {chunk} of {chunks}"));
        }
        if let Some((_, v)) = self.map.iter().find(|(_, v)| v.0.len() != self.dim) {
            return Err(format!("an HNSW point has {} dimensions, not {}", v.0.len(), self.dim));
        }
        Ok(())
    }

    /// Chunks by cosine similarity to `query`, best first, at most `limit`
    /// (and at most `EF_SEARCH`).
    pub fn search(&self, query: &[f32], limit: usize) -> Vec<(u32, f32)> {
        let mut search = Search::default();
        let point = Vector(query.into());
        self.map.search(&point, &mut search).take(limit).map(|item| (*item.value, 1.0 - item.distance)).collect()
    }
}

/// The static lane's chunk vectors, one int8 row each with its scale
/// (256 bytes a chunk, not 1,024), searched exactly: a scan of 45,000 rows
/// takes milliseconds, and there is no graph to build before the first
/// query.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StaticVectors {
    dim: usize,
    rows: Vec<i8>,
    scales: Vec<f32>,
    /// A sparse set's chunks ([`StaticVectors::sparse`]): the rows are those
    /// put in, in the order they came, not one per chunk. Never stored.
    #[serde(skip)]
    held: Option<Held>,
}

/// The chunks of a sparse set's rows, and where each chunk's row is.
#[derive(Clone, Debug, Default, PartialEq)]
struct Held {
    len: usize,
    chunks: Vec<u32>,
    at: std::collections::HashMap<u32, usize>,
}

/// An int8 row's product with `query`, at its scale.
fn row_score(row: &[i8], scale: f32, query: &[f32]) -> f32 {
    row.iter().zip(query).map(|(&r, q)| f32::from(r) * q).sum::<f32>() * scale
}

impl StaticVectors {
    pub fn new(dim: usize) -> StaticVectors {
        StaticVectors { dim, rows: Vec::new(), scales: Vec::new(), held: None }
    }

    /// Appends the next chunk's vector (unit length, or all zeros for a
    /// chunk with no known word piece, which then matches nothing).
    pub fn push(&mut self, vector: &[f32]) {
        debug_assert_eq!(vector.len(), self.dim);
        let (row, scale) = fathom_static::quantise(vector);
        self.rows.extend(row);
        self.scales.push(scale);
    }

    /// How many chunks the vectors are of (a sparse set's too, however few
    /// rows it holds).
    pub fn len(&self) -> usize {
        self.held.as_ref().map_or(self.scales.len(), |h| h.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// `len` chunks with no vector yet, for [`Self::set`] to fill: a split
    /// bundle's reader holds the rows it fetched, in the memory they take
    /// (not a row for every chunk), and a scan reads only those.
    pub fn sparse(len: usize, dim: usize) -> StaticVectors {
        StaticVectors { dim, rows: Vec::new(), scales: Vec::new(), held: Some(Held { len, ..Held::default() }) }
    }

    /// Puts chunk `i`'s row in, as [`Self::row`] gave it.
    pub fn set(&mut self, i: usize, row: &[i8], scale: f32) {
        if i >= self.len() || row.len() != self.dim {
            return;
        }
        let scale = if scale.is_finite() { scale } else { 0.0 };
        let at = match &mut self.held {
            None => i,
            Some(held) => *held.at.entry(i as u32).or_insert_with(|| {
                held.chunks.push(i as u32);
                self.rows.resize(self.rows.len() + self.dim, 0);
                self.scales.push(0.0);
                held.chunks.len() - 1
            }),
        };
        self.rows[at * self.dim..(at + 1) * self.dim].copy_from_slice(row);
        self.scales[at] = scale;
    }

    /// Row `i` as floats: its int8 values times its scale (none for a row
    /// not held).
    pub fn vector(&self, i: usize) -> Vec<f32> {
        let (row, scale) = self.row(i);
        row.iter().map(|&r| f32::from(r) * scale).collect()
    }

    /// Row `i`'s product with `query` (0 for a row not held).
    pub fn score(&self, i: usize, query: &[f32]) -> f32 {
        let (row, scale) = self.row(i);
        row_score(row, scale, query)
    }

    /// Chunk `i`'s row and scale (0 for a chunk with no vector, whose row
    /// is empty where the set is sparse).
    pub fn row(&self, i: usize) -> (&[i8], f32) {
        let at = match &self.held {
            None => i,
            Some(held) => match held.at.get(&(i as u32)) {
                Some(&at) => at,
                None => return (&[], 0.0),
            },
        };
        (&self.rows[at * self.dim..(at + 1) * self.dim], self.scales[at])
    }

    /// Chunks by cosine similarity to `query` (unit length), best first, at
    /// most `limit`; chunks without a vector are left out.
    pub fn search(&self, query: &[f32], limit: usize) -> Vec<(u32, f32)> {
        if query.len() != self.dim || self.dim == 0 {
            return Vec::new();
        }
        let mut scored: Vec<(u32, f32)> = self
            .rows
            .chunks_exact(self.dim)
            .zip(&self.scales)
            .enumerate()
            .filter(|(_, (_, scale))| **scale > 0.0)
            .map(|(i, (row, scale))| {
                (self.held.as_ref().map_or(i as u32, |h| h.chunks[i]), row_score(row, *scale, query))
            })
            .collect();
        let limit = limit.min(scored.len());
        if limit == 0 {
            return Vec::new();
        }
        let by_score = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        scored.select_nth_unstable_by(limit - 1, by_score);
        scored.truncate(limit);
        scored.sort_by(by_score);
        scored
    }

    /// Checks vectors read back from bytes against the chunks they are of.
    pub fn check(&self, chunks: usize) -> Result<(), String> {
        if self.scales.len() != chunks || self.rows.len() != chunks * self.dim {
            return Err(format!(
                "the static lane has {} vectors ({} values of {} dimensions) for {chunks} chunks",
                self.scales.len(),
                self.rows.len(),
                self.dim
            ));
        }
        Ok(())
    }
}

/// Exact nearest neighbours by brute force: the reference for HNSW's recall.
pub fn exact(points: &[(u32, Vector)], query: &[f32], limit: usize) -> Vec<(u32, f32)> {
    let mut scored: Vec<(u32, f32)> = points.iter().map(|(id, v)| (*id, dot(&v.0, query))).collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(limit);
    scored
}

/// A deterministic pseudo-random unit vector: for tests and benchmarks that
/// need a dense lane without a model. The same seed always gives the same
/// vector, on every platform.
pub fn synthetic_unit(seed: u64, dim: usize) -> Vec<f32> {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut v: Vec<f32> = (0..dim)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        })
        .collect();
    let n = v.iter().map(|e| e * e).sum::<f32>().sqrt();
    v.iter_mut().for_each(|e| *e /= n);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: u64, dim: usize) -> Vector {
        Vector(synthetic_unit(seed, dim).into())
    }

    /// A sparse set holds the rows put in, in their memory alone, and scans
    /// them as a whole set scans the same rows.
    #[test]
    fn a_sparse_set_scans_the_rows_put_in_as_a_whole_set_does() {
        let mut whole = StaticVectors::new(16);
        (0..1_000).for_each(|i| whole.push(&synthetic_unit(i, 16)));
        let mut sparse = StaticVectors::sparse(1_000, 16);
        for i in [900usize, 7, 512, 7] {
            let (row, scale) = whole.row(i);
            sparse.set(i, row, scale);
        }
        sparse.set(1_000, whole.row(0).0, 1.0);
        assert_eq!((sparse.len(), sparse.rows.len()), (1_000, 3 * 16), "three rows held, each once; none past the end");
        assert_eq!(sparse.row(512), whole.row(512));
        assert_eq!(sparse.row(3), (&[][..], 0.0));
        let query = synthetic_unit(512, 16);
        let held: Vec<(u32, f32)> =
            whole.search(&query, 1_000).into_iter().filter(|(c, _)| [7, 512, 900].contains(c)).collect();
        assert_eq!(sparse.search(&query, 10), held);
        assert_eq!(sparse.search(&query, 1)[0].0, 512);
    }

    #[test]
    fn hnsw_finds_what_exact_search_finds() {
        let points: Vec<(u32, Vector)> = (0..800).map(|i| (i, unit(i as u64, 32))).collect();
        let dense = Dense::build(points.clone());
        let mut found = 0;
        for q in 0..50 {
            let query = unit(10_000 + q, 32);
            let want: Vec<u32> = exact(&points, &query.0, 10).into_iter().map(|(id, _)| id).collect();
            let got: Vec<u32> = dense.search(&query.0, 10).into_iter().map(|(id, _)| id).collect();
            found += want.iter().filter(|id| got.contains(id)).count();
        }
        let recall = found as f64 / 500.0;
        assert!(recall >= 0.9, "recall@10 {recall}");
        // A stored point is its own nearest neighbour.
        assert_eq!(dense.search(&points[7].1.0, 1)[0].0, 7);
    }

    #[test]
    fn static_vectors_rank_as_exact_search_does() {
        let points: Vec<(u32, Vector)> = (0..300).map(|i| (i, unit(i as u64, 64))).collect();
        let mut statics = StaticVectors::new(64);
        for (_, v) in &points {
            statics.push(&v.0);
        }
        statics.push(&[0.0; 64]);
        assert!(statics.check(301).is_ok() && statics.check(300).is_err());
        for q in 0..20 {
            let query = unit(50_000 + q, 64);
            let want: Vec<u32> = exact(&points, &query.0, 5).into_iter().map(|(id, _)| id).collect();
            let got = statics.search(&query.0, 5);
            let ids: Vec<u32> = got.iter().map(|(id, _)| *id).collect();
            assert_eq!(ids[0], want[0], "quantising never changes the best match here");
            assert!(want.iter().filter(|id| ids.contains(id)).count() >= 4, "{want:?} {ids:?}");
            assert!(got.windows(2).all(|w| w[0].1 >= w[1].1));
        }
        assert!(
            statics.search(&unit(1, 64).0, 400).iter().all(|(id, _)| *id != 300),
            "an empty vector matches nothing"
        );
        assert!(statics.search(&[1.0; 3], 5).is_empty(), "a query of another model's width finds nothing");
    }
}
