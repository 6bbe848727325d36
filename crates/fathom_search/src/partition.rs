//! The static lane's vectors in partitions (an inverted file, IVF): the
//! vectors clustered by spherical k-means, each chunk in the partition of its
//! nearest centroid. A reader that holds the centroids and fetches a query's
//! nearest partitions scans a few percent of the vectors, not all of them
//! (a split bundle's meaning: [`crate::dense::StaticVectors`] is the exact
//! scan it is measured against).

use crate::dense::{StaticVectors, dot};

/// Chunks clustered around centroids, and the centroids in groups around
/// coarser ones: a reader holds the coarse centroids, reads the fine ones
/// of a query's nearest groups, then the nearest partitions among those.
/// Two levels keep both what a reader holds first and the work of
/// clustering small at any size: a quarter of a million chunks in
/// thousands of partitions cluster in seconds, where one level would
/// measure every chunk against every centroid.
#[derive(Clone, Debug, PartialEq)]
pub struct Partitions {
    pub dim: usize,
    /// Unit length, `dim` each, one per partition, a group's together.
    pub centroids: Vec<f32>,
    /// Each partition's chunks, in ascending order. A chunk with no vector
    /// is in none.
    pub members: Vec<Vec<u32>>,
    /// Each group's centroid (unit length), and where its partitions
    /// start: group `g` holds partitions `groups[g]..groups[g + 1]`.
    pub coarse: Vec<f32>,
    pub groups: Vec<u32>,
}

/// Rounds of k-means over the sample, and the most points it learns from
/// for each centroid (the rest are only assigned): enough for centroids to
/// settle.
const ROUNDS: usize = 10;
const SAMPLE_PER_CENTROID: usize = 64;

impl Partitions {
    /// Clusters `vectors` into partitions of about `size` chunks each, in
    /// about as many groups as a group has partitions. Deterministic: the
    /// same vectors give the same partitions.
    pub fn build(vectors: &StaticVectors, size: usize) -> Partitions {
        let dim = vectors.dim();
        let held: Vec<u32> = (0..vectors.len() as u32).filter(|&i| vectors.row(i as usize).1 > 0.0).collect();
        let unit = |chunk: u32| -> Vec<f32> {
            let mut v = vectors.vector(chunk as usize);
            fathom_static::unit(&mut v);
            v
        };
        if held.is_empty() || dim == 0 {
            return Partitions { dim, centroids: Vec::new(), members: Vec::new(), coarse: Vec::new(), groups: vec![0] };
        }
        let k = held.len().div_ceil(size.max(1)).max(1);
        let g = (k as f64).sqrt().ceil() as usize;
        let coarse = spherical(&spread(&held, g * SAMPLE_PER_CENTROID, &unit), g, dim);
        let in_group = crate::parallel::map(&held, |&c| nearest(&coarse, dim, &unit(c)));
        let mut grouped: Vec<Vec<u32>> = vec![Vec::new(); g];
        for (&chunk, &at) in held.iter().zip(&in_group) {
            grouped[at].push(chunk);
        }
        // Each group in partitions of about `size`, together about `k`.
        let fine: Vec<(Vec<f32>, Vec<Vec<u32>>)> = crate::parallel::map(&grouped, |chunks| {
            if chunks.is_empty() {
                return (Vec::new(), Vec::new());
            }
            let kg = chunks.len().div_ceil(size.max(1)).max(1);
            let centroids = spherical(&spread(chunks, kg * SAMPLE_PER_CENTROID, &unit), kg, dim);
            let mut members = vec![Vec::new(); kg];
            for &chunk in chunks {
                members[nearest(&centroids, dim, &unit(chunk))].push(chunk);
            }
            // A partition left empty is dropped with its centroid.
            let kept: Vec<usize> = (0..kg).filter(|&p| !members[p].is_empty()).collect();
            let centroids = kept.iter().flat_map(|&p| centroids[p * dim..(p + 1) * dim].to_vec()).collect();
            (centroids, kept.into_iter().map(|p| std::mem::take(&mut members[p])).collect())
        });
        let mut parts =
            Partitions { dim, centroids: Vec::new(), members: Vec::new(), coarse: Vec::new(), groups: vec![0] };
        for (at, (centroids, members)) in fine.into_iter().enumerate() {
            if members.is_empty() {
                continue;
            }
            parts.coarse.extend_from_slice(&coarse[at * dim..(at + 1) * dim]);
            parts.centroids.extend(centroids);
            parts.members.extend(members);
            parts.groups.push(parts.members.len() as u32);
        }
        parts
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// The static lane coded for a reader that fetches it in parts: the
/// partitions; each partition's centroid as a code of its difference from
/// its group's (`centres`, so a reader ranks thousands of partitions from a
/// few bytes each); and each chunk as a code of its difference from its
/// partition's centroid as decoded (`residuals`), so that a centroid's
/// product with a query plus a code's is the chunk's, nearly.
#[derive(Clone, Debug, PartialEq)]
pub struct Coded {
    pub parts: Partitions,
    pub centres: Quantiser,
    /// `centres.parts` bytes a partition.
    pub centre_codes: Vec<u8>,
    pub residuals: Quantiser,
    /// Each partition's chunks' codes, `residuals.parts` bytes each, in
    /// the order of its members.
    pub codes: Vec<Vec<u8>>,
}

/// The codes' shapes: a centroid and a chunk each in 64 runs of 16 points,
/// 32 bytes packed. Against a chunk in 32 runs of 256, the same bytes a
/// chunk, the points a reader fetches first shrink from 98 KB to 6 KB, at
/// about the same recall once the best are scored exactly
/// (`fathom-bench ivf-codes`, bench/PERFORMANCE.md).
pub const CENTRE_RUNS: usize = 64;
pub const CENTRE_POINTS: usize = 16;
pub const RESIDUAL_RUNS: usize = 64;
pub const RESIDUAL_POINTS: usize = 16;
/// The most residuals the chunks' codes are learnt from.
const RESIDUAL_SAMPLE: usize = 20_000;

impl Coded {
    pub fn build(vectors: &StaticVectors, size: usize) -> Coded {
        Coded::shaped(vectors, size, (CENTRE_RUNS, CENTRE_POINTS), (RESIDUAL_RUNS, RESIDUAL_POINTS))
    }

    /// [`Coded::build`] with other shapes of code (runs, points), to measure.
    pub fn shaped(vectors: &StaticVectors, size: usize, centre: (usize, usize), chunk: (usize, usize)) -> Coded {
        let parts = Partitions::build(vectors, size);
        let dim = parts.dim.max(1);
        let runs = |most: usize| (1..=most.min(dim)).rev().find(|&r| dim.is_multiple_of(r)).unwrap_or(1);
        let group_of: Vec<usize> = (0..parts.groups.len().saturating_sub(1))
            .flat_map(|g| std::iter::repeat_n(g, (parts.groups[g + 1] - parts.groups[g]) as usize))
            .collect();
        let coarse = |p: usize| &parts.coarse[group_of[p] * dim..(group_of[p] + 1) * dim];
        let offsets: Vec<Vec<f32>> = (0..parts.len())
            .map(|p| parts.centroids[p * dim..(p + 1) * dim].iter().zip(coarse(p)).map(|(f, c)| f - c).collect())
            .collect();
        let centres = Quantiser::train(&offsets, dim, runs(centre.0), centre.1);
        let centre_codes: Vec<u8> = offsets.iter().flat_map(|o| centres.encode(o)).collect();
        // Each partition's centroid as a reader decodes it.
        let decoded: Vec<Vec<f32>> = (0..parts.len())
            .map(|p| {
                let code = &centre_codes[p * centres.parts..(p + 1) * centres.parts];
                centres.decode(code).iter().zip(coarse(p)).map(|(o, c)| o + c).collect()
            })
            .collect();
        let plain = |chunk: u32| vectors.vector(chunk as usize);
        let held: Vec<(usize, u32)> =
            parts.members.iter().enumerate().flat_map(|(p, m)| m.iter().map(move |&c| (p, c))).collect();
        let residual =
            |&(p, c): &(usize, u32)| -> Vec<f32> { plain(c).iter().zip(&decoded[p]).map(|(x, m)| x - m).collect() };
        let step = held.len().div_ceil(RESIDUAL_SAMPLE).max(1);
        let sample: Vec<Vec<f32>> = held.iter().step_by(step).map(residual).collect();
        let residuals = Quantiser::train(&sample, dim, runs(chunk.0), chunk.1);
        let mut flat = crate::parallel::map(&held, |at| residuals.encode(&residual(at))).into_iter();
        let codes = parts.members.iter().map(|m| flat.by_ref().take(m.len()).flatten().collect()).collect();
        Coded { parts, centres, centre_codes, residuals, codes }
    }
}

/// The `probe` groups whose centroids (`coarse`, `dim` each) are nearest
/// `query`, nearest first; ties by number.
pub fn nearest_groups(dim: usize, coarse: &[f32], query: &[f32], probe: usize) -> Vec<usize> {
    if dim == 0 || query.len() != dim {
        return Vec::new();
    }
    let mut scored: Vec<(usize, f32)> = coarse.chunks_exact(dim).map(|c| dot(c, query)).enumerate().collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.into_iter().take(probe).map(|(g, _)| g).collect()
}

/// The nearest `probe` partitions to `query` (unit length) in the groups
/// `among`, by their centroids as decoded: each group's centroid (`coarse`,
/// `dim` each; group `g` holds partitions `groups[g]..groups[g + 1]`) plus
/// each partition's code of its difference from it (`centre_codes`, read
/// only for those groups' partitions). Each with its centroid's product
/// with the query, nearest first; ties by number.
#[allow(clippy::too_many_arguments)]
pub fn rank_partitions(
    dim: usize,
    coarse: &[f32],
    groups: &[u32],
    centres: &Quantiser,
    centre_codes: &[u8],
    query: &[f32],
    among: &[usize],
    probe: usize,
) -> Vec<(usize, f32)> {
    if dim == 0 || query.len() != dim {
        return Vec::new();
    }
    let table = centres.table(query);
    let mut scored: Vec<(usize, f32)> = Vec::new();
    for &g in among {
        let base = dot(&coarse[g * dim..(g + 1) * dim], query);
        for p in groups[g] as usize..groups[g + 1] as usize {
            let code = &centre_codes[p * centres.parts..(p + 1) * centres.parts];
            scored.push((p, base + centres.score(&table, code)));
        }
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(probe);
    scored
}

/// At most `limit` of `chunks`' vectors, spread by a fixed hash of each
/// chunk's number.
fn spread(chunks: &[u32], limit: usize, unit: &(dyn Fn(u32) -> Vec<f32> + Sync)) -> Vec<Vec<f32>> {
    let mut order: Vec<u32> = chunks.to_vec();
    if order.len() > limit {
        order.sort_by_key(|&c| (mix(u64::from(c)), c));
        order.truncate(limit);
    }
    order.iter().map(|&c| unit(c)).collect()
}

/// Spherical k-means: `k` unit centroids of `sample` (started at its first
/// `k`, repeated where it has fewer).
fn spherical(sample: &[Vec<f32>], k: usize, dim: usize) -> Vec<f32> {
    let mut centroids: Vec<f32> = sample.iter().cycle().take(k).flatten().copied().collect();
    for _ in 0..ROUNDS {
        let nearest = crate::parallel::map(sample, |v| nearest(&centroids, dim, v));
        let mut sums = vec![0f32; k * dim];
        let mut counts = vec![0usize; k];
        for (v, &c) in sample.iter().zip(&nearest) {
            counts[c] += 1;
            sums[c * dim..(c + 1) * dim].iter_mut().zip(v).for_each(|(s, x)| *s += x);
        }
        for c in 0..k {
            let sum = &mut sums[c * dim..(c + 1) * dim];
            if counts[c] == 0 {
                // An empty centroid starts again at the sample point its
                // own centroid fits worst.
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
    centroids
}

/// A product quantiser: each vector cut into `parts` runs of equal length,
/// each run replaced by the number of the nearest of `codes` points learnt
/// for that run by k-means. A vector costs `parts` bytes (half that where
/// `codes` is at most 16), and its inner product with a query is read from
/// one table of `parts × codes` products made once per query.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantiser {
    pub dim: usize,
    pub parts: usize,
    pub codes: usize,
    /// `parts × codes × (dim / parts)`: each run's points.
    pub books: Vec<f32>,
}

impl Quantiser {
    /// Learns the runs' points from `sample` (vectors of `dim`), the same
    /// sample giving the same points.
    pub fn train(sample: &[Vec<f32>], dim: usize, parts: usize, codes: usize) -> Quantiser {
        assert!(parts > 0 && dim.is_multiple_of(parts) && (1..=256).contains(&codes));
        let run = dim / parts;
        let runs: Vec<usize> = (0..parts).collect();
        let books: Vec<f32> = crate::parallel::map(&runs, |&p| {
            let points: Vec<Vec<f32>> = sample.iter().map(|v| v[p * run..(p + 1) * run].to_vec()).collect();
            lloyd(&points, run, codes)
        })
        .concat();
        // Kept as stored (int8, one scale), so that codes made here and
        // tables made from the stored points agree.
        let (stored, scale) = fathom_static::quantise(&books);
        Quantiser::stored(dim, parts, codes, &stored, scale)
    }

    /// The quantiser [`Self::book_bytes`] stored.
    pub fn stored(dim: usize, parts: usize, codes: usize, books: &[i8], scale: f32) -> Quantiser {
        Quantiser { dim, parts, codes, books: books.iter().map(|&b| f32::from(b) * scale).collect() }
    }

    /// The runs' points as stored: int8 with one scale.
    pub fn book_bytes(&self) -> (Vec<i8>, f32) {
        fathom_static::quantise(&self.books)
    }

    fn run(&self) -> usize {
        self.dim / self.parts
    }

    pub fn encode(&self, v: &[f32]) -> Vec<u8> {
        let run = self.run();
        (0..self.parts)
            .map(|p| {
                let book = &self.books[p * self.codes * run..(p + 1) * self.codes * run];
                let piece = &v[p * run..(p + 1) * run];
                let mut best = (0usize, f32::INFINITY);
                for (i, point) in book.chunks_exact(run).enumerate() {
                    let d: f32 = point.iter().zip(piece).map(|(a, b)| (a - b) * (a - b)).sum();
                    if d < best.1 {
                        best = (i, d);
                    }
                }
                best.0 as u8
            })
            .collect()
    }

    /// The vector a code stands for.
    pub fn decode(&self, code: &[u8]) -> Vec<f32> {
        let run = self.run();
        code.iter()
            .enumerate()
            .flat_map(|(p, &c)| {
                let at = (p * self.codes + c as usize) * run;
                self.books[at..at + run].iter().copied()
            })
            .collect()
    }

    /// Each run's point's product with the query's run: `parts × codes`.
    pub fn table(&self, query: &[f32]) -> Vec<f32> {
        let run = self.run();
        (0..self.parts)
            .flat_map(|p| {
                let piece = &query[p * run..(p + 1) * run];
                self.books[p * self.codes * run..(p + 1) * self.codes * run]
                    .chunks_exact(run)
                    .map(move |point| dot(point, piece))
            })
            .collect()
    }

    /// A code's product with the query `table` was made for.
    pub fn score(&self, table: &[f32], code: &[u8]) -> f32 {
        code.iter().enumerate().map(|(p, &c)| table[p * self.codes + c as usize]).sum()
    }

    /// Codes as stored: two to a byte, low half first, where a run has at
    /// most 16 points; as they are otherwise.
    pub fn pack(&self, codes: &[u8]) -> Vec<u8> {
        if self.codes > 16 {
            return codes.to_vec();
        }
        codes.chunks(2).map(|pair| pair[0] | pair.get(1).map_or(0, |&high| high << 4)).collect()
    }

    /// The `count` codes [`Self::pack`] stored, or `None` where `stored`
    /// holds another number of them, or a code past its run's points.
    pub fn unpack(&self, stored: &[u8], count: usize) -> Option<Vec<u8>> {
        let codes: Vec<u8> = if self.codes > 16 {
            stored.to_vec()
        } else {
            if stored.len() != count.div_ceil(2) || (count % 2 == 1 && stored.last().is_some_and(|b| b >> 4 != 0)) {
                return None;
            }
            stored.iter().flat_map(|&b| [b & 15, b >> 4]).take(count).collect()
        };
        (codes.len() == count && codes.iter().all(|&c| (c as usize) < self.codes)).then_some(codes)
    }
}

/// k-means by Euclidean distance: `k` points of `dim` (fewer where there
/// are fewer distinct points), started at a spread sample.
fn lloyd(points: &[Vec<f32>], dim: usize, k: usize) -> Vec<f32> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by_key(|&i| (mix(i as u64), i));
    let mut centres: Vec<f32> = order.iter().cycle().take(k).flat_map(|&i| points[i].clone()).collect();
    if points.is_empty() {
        return vec![0.0; k * dim];
    }
    for _ in 0..ROUNDS * 2 {
        let mut sums = vec![0f32; k * dim];
        let mut counts = vec![0usize; k];
        for v in points {
            let mut best = (0usize, f32::INFINITY);
            for (i, c) in centres.chunks_exact(dim).enumerate() {
                let d: f32 = c.iter().zip(v).map(|(a, b)| (a - b) * (a - b)).sum();
                if d < best.1 {
                    best = (i, d);
                }
            }
            counts[best.0] += 1;
            sums[best.0 * dim..(best.0 + 1) * dim].iter_mut().zip(v).for_each(|(s, x)| *s += x);
        }
        for c in 0..k {
            if counts[c] > 0 {
                for d in 0..dim {
                    centres[c * dim + d] = sums[c * dim + d] / counts[c] as f32;
                }
            }
        }
    }
    centres
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
        let parts = Partitions::build(&vectors, 100);
        assert_eq!(parts.len(), 6);
        let groups = parts.coarse.len() / 16;
        assert_eq!(groups, 3, "about as many groups as a group has partitions");
        assert_eq!((parts.groups.len(), parts.groups.last()), (groups + 1, Some(&6)));
        let mut all: Vec<u32> = parts.members.iter().flatten().copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..600).collect::<Vec<u32>>(), "each chunk once; the one with no vector in none");
        assert_eq!(parts, Partitions::build(&vectors, 100), "the same vectors, the same partitions");
        // A query at a chunk's own vector finds it in the nearest partition
        // of the nearest group.
        let mut query = vectors.vector(7);
        fathom_static::unit(&mut query);
        let best = |centroids: &[f32]| {
            (0..centroids.len() / 16).max_by(|&a, &b| {
                dot(&centroids[a * 16..a * 16 + 16], &query).total_cmp(&dot(&centroids[b * 16..b * 16 + 16], &query))
            })
        };
        let group = best(&parts.coarse).unwrap();
        let (from, to) = (parts.groups[group] as usize, parts.groups[group + 1] as usize);
        let first = from + best(&parts.centroids[from * 16..to * 16]).unwrap();
        assert!(parts.members[first].contains(&7));
        // Coded, the nearest partition by its coded centroid is the same.
        let coded = Coded::build(&vectors, 100);
        let all: Vec<usize> = (0..groups).collect();
        let ranked =
            rank_partitions(16, &parts.coarse, &parts.groups, &coded.centres, &coded.centre_codes, &query, &all, 6);
        assert_eq!((ranked.len(), ranked[0].0), (6, first));
        // Among the nearest group alone, the same partition first, and only
        // that group's.
        let near = nearest_groups(16, &parts.coarse, &query, 1);
        assert_eq!(near, vec![group]);
        let ranked =
            rank_partitions(16, &parts.coarse, &parts.groups, &coded.centres, &coded.centre_codes, &query, &near, 6);
        assert_eq!(ranked[0].0, first);
        assert!(ranked.iter().all(|&(p, _)| (from..to).contains(&p)));
        assert!(Partitions::build(&StaticVectors::new(16), 100).is_empty());
    }

    #[test]
    fn codes_of_at_most_sixteen_points_pack_two_to_a_byte_and_unpack_only_whole() {
        let sample: Vec<Vec<f32>> = (0..64).map(|i| synthetic_unit(i, 8)).collect();
        let small = Quantiser::train(&sample, 8, 4, 16);
        let codes: Vec<u8> = sample.iter().take(5).flat_map(|v| small.encode(v)).collect();
        assert!(codes.iter().any(|&c| c > 0) && codes.iter().all(|&c| c < 16));
        let packed = small.pack(&codes);
        assert_eq!(packed.len(), 10, "20 codes in 10 bytes");
        assert_eq!(small.unpack(&packed, 20), Some(codes.clone()));
        // An odd count leaves the last byte's high half empty.
        let odd = small.pack(&codes[..19]);
        assert_eq!((odd.len(), small.unpack(&odd, 19)), (10, Some(codes[..19].to_vec())));
        assert_eq!(small.unpack(&packed, 19), None, "a high half where none may be");
        assert_eq!(small.unpack(&packed, 22), None, "fewer bytes than the codes need");
        // Fewer points than a half byte holds: a code past them is refused.
        let few = Quantiser::train(&sample, 8, 4, 10);
        assert_eq!(few.unpack(&[0xAB], 2), None);
        assert_eq!(few.unpack(&[0x98], 2), Some(vec![8, 9]));
        // More than sixteen points: a byte each.
        let wide = Quantiser::train(&sample, 8, 4, 32);
        assert_eq!(wide.pack(&[31, 2]), vec![31, 2]);
        assert_eq!((wide.unpack(&[31, 2], 2), wide.unpack(&[32], 1)), (Some(vec![31, 2]), None));
    }
}
