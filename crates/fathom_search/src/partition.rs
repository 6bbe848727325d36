//! The static lane's vectors in partitions (an inverted file, IVF): the
//! vectors clustered by spherical k-means, each chunk in the partition of its
//! nearest centroid. A reader that holds the centroids and fetches a query's
//! nearest partitions scans a few percent of the vectors, not all of them
//! (a split bundle's meaning: [`crate::dense::StaticVectors`] is the exact
//! scan it is measured against).

use crate::dense::{StaticVectors, dot};

/// Chunks clustered around centroids.
#[derive(Clone, Debug, PartialEq)]
pub struct Partitions {
    pub dim: usize,
    /// Unit length, `dim` each, one per partition.
    pub centroids: Vec<f32>,
    /// Each partition's chunks, in ascending order. A chunk with no vector
    /// is in none.
    pub members: Vec<Vec<u32>>,
}

/// Rounds of k-means over the sample, and the most points it learns from
/// for each centroid (the rest are only assigned): enough for centroids to
/// settle, in seconds for a quarter of a million chunks.
const ROUNDS: usize = 10;
const SAMPLE_PER_CENTROID: usize = 64;

impl Partitions {
    /// Clusters `vectors` into partitions of about `size` chunks each, by
    /// their directions from the vectors' mean where `centre` (every chunk
    /// shares much of the mean's direction: the common words of code), else
    /// by their own. Deterministic: the same vectors give the same
    /// partitions.
    pub fn build(vectors: &StaticVectors, size: usize, centre: bool) -> Partitions {
        let dim = vectors.dim();
        let held: Vec<u32> = (0..vectors.len() as u32).filter(|&i| vectors.row(i as usize).1 > 0.0).collect();
        let plain = |chunk: u32| -> Vec<f32> {
            let (row, scale) = vectors.row(chunk as usize);
            let mut v: Vec<f32> = row.iter().map(|&r| f32::from(r) * scale).collect();
            fathom_static::unit(&mut v);
            v
        };
        let mut mean = vec![0f32; dim];
        for &c in &held {
            mean.iter_mut().zip(plain(c)).for_each(|(m, x)| *m += x / held.len() as f32);
        }
        let unit = |chunk: u32| -> Vec<f32> {
            let mut v = plain(chunk);
            if centre {
                v.iter_mut().zip(&mean).for_each(|(x, m)| *x -= m);
                fathom_static::unit(&mut v);
            }
            v
        };
        let k = held.len().div_ceil(size.max(1)).max(1).min(held.len().max(1));
        if held.is_empty() {
            return Partitions { dim, centroids: Vec::new(), members: Vec::new() };
        }
        // A spread sample, by a fixed hash of each chunk's number.
        let mut order: Vec<u32> = held.clone();
        order.sort_by_key(|&c| (mix(u64::from(c)), c));
        let sample: Vec<Vec<f32>> = order.iter().take(k * SAMPLE_PER_CENTROID).map(|&c| unit(c)).collect();
        let mut centroids: Vec<f32> = sample.iter().take(k).flatten().copied().collect();
        for _ in 0..ROUNDS {
            let nearest = crate::parallel::map(&sample, |v| nearest(&centroids, dim, v));
            let mut sums = vec![0f32; k * dim];
            let mut counts = vec![0usize; k];
            for (v, &c) in sample.iter().zip(&nearest) {
                counts[c] += 1;
                sums[c * dim..(c + 1) * dim].iter_mut().zip(v).for_each(|(s, x)| *s += x);
            }
            for c in 0..k {
                let sum = &mut sums[c * dim..(c + 1) * dim];
                if counts[c] == 0 {
                    // An empty centroid starts again at the sample point
                    // its own centroid fits worst.
                    let worst = (0..sample.len())
                        .min_by(|&a, &b| {
                            let fit = |i: usize| dot(&sample[i], &centroids[nearest[i] * dim..(nearest[i] + 1) * dim]);
                            fit(a).total_cmp(&fit(b)).then(a.cmp(&b))
                        })
                        .unwrap_or(0);
                    sum.copy_from_slice(&sample[worst]);
                }
                fathom_static::unit(sum);
            }
            centroids = sums;
        }
        let assigned = crate::parallel::map(&held, |&c| nearest(&centroids, dim, &unit(c)));
        let mut members = vec![Vec::new(); k];
        for (&chunk, &c) in held.iter().zip(&assigned) {
            members[c].push(chunk);
        }
        Partitions { dim, centroids, members }
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Partitions by their centroid's similarity to `query`, nearest first.
    pub fn nearest(&self, query: &[f32]) -> Vec<(usize, f32)> {
        by_centroid(&self.centroids, self.dim, query)
    }
}

/// Partitions by their centroid's similarity to `query` (unit length),
/// nearest first; ties by number.
pub fn by_centroid(centroids: &[f32], dim: usize, query: &[f32]) -> Vec<(usize, f32)> {
    if dim == 0 || query.len() != dim {
        return Vec::new();
    }
    let mut scored: Vec<(usize, f32)> = centroids.chunks_exact(dim).map(|c| dot(c, query)).enumerate().collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored
}

fn nearest(centroids: &[f32], dim: usize, v: &[f32]) -> usize {
    let mut best = (0, f32::NEG_INFINITY);
    for (i, c) in centroids.chunks_exact(dim).enumerate() {
        let s = dot(c, v);
        if s > best.1 {
            best = (i, s);
        }
    }
    best.0
}

/// SplitMix64's finaliser: a fixed, well-spread order of chunk numbers.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dense::synthetic_unit;

    #[test]
    fn every_chunk_with_a_vector_is_in_one_partition_and_its_nearest_partitions_find_it() {
        let mut vectors = StaticVectors::new(16);
        for i in 0..600 {
            // Six directions, each with its own noise: six clusters.
            let mut v = synthetic_unit(i % 6, 16);
            v.iter_mut().zip(synthetic_unit(1_000 + i, 16)).for_each(|(x, n)| *x += 0.2 * n);
            fathom_static::unit(&mut v);
            vectors.push(&v);
        }
        vectors.push(&[0.0; 16]);
        for centre in [false, true] {
            let parts = Partitions::build(&vectors, 100, centre);
            assert_eq!(parts.len(), 6);
            let mut all: Vec<u32> = parts.members.iter().flatten().copied().collect();
            all.sort_unstable();
            assert_eq!(all, (0..600).collect::<Vec<u32>>(), "each chunk once; the one with no vector in none");
            assert_eq!(parts, Partitions::build(&vectors, 100, centre), "the same vectors, the same partitions");
            // A query at a chunk's own vector finds it in the nearest partition.
            let (row, scale) = vectors.row(7);
            let mut query: Vec<f32> = row.iter().map(|&r| f32::from(r) * scale).collect();
            fathom_static::unit(&mut query);
            let first = parts.nearest(&query)[0].0;
            assert!(parts.members[first].contains(&7));
        }
        assert!(Partitions::build(&StaticVectors::new(16), 100, true).is_empty());
    }
}
