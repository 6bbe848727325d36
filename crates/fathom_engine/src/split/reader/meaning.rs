//! The static lane of a split bundle, read by a query: its word pieces'
//! rows of the table, the head, the nearest groups and their nearest
//! partitions, and the rows of the best chunks by their codes (see
//! [`super::super::Meaning`]). Once those rows are in, the lane is the
//! whole index's, scanning the rows it holds: the chunks a query's codes
//! rank best, scored exactly.

use std::collections::HashMap;

use fathom_search::partition::{Quantiser, nearest_groups, rank_partitions};
use fathom_search::retrieval::{Mode, SearchOptions};

use super::{SplitReader, Want};
use crate::split::{GroupItem, MeaningHead, PIECES_PER_PAGE, PartItem, PiecePage, ROWS_PER_PAGE, RowPage};
use crate::store::{ItemRef, StoreError, open};

/// The partitions a query reads, nearest first (3,600 chunks in
/// partitions of 50), and how many of the chunks its codes rank best it
/// scores exactly: the top ten symbols by meaning 0.91-0.92 of the whole
/// index's on grpc-go and Django, in 210-250 KB (median) for a fresh
/// reader's query with the head (`fathom-bench split-meaning`,
/// bench/PERFORMANCE.md).
pub const PROBE: usize = 72;
pub const RESCORE: usize = 200;
/// The groups whose partitions a query ranks, nearest first: all of them
/// up to about 30,000 chunks; about a third of the 50,000-file set's 84,
/// whose codes alone are 213 KB (`fathom-bench ivf-codes`).
pub const GROUP_PROBE: usize = 24;

/// What a reader holds of the static lane.
pub(super) struct MeaningIn {
    head: Option<Head>,
    /// Each partition's codes, once in.
    parts: HashMap<usize, Vec<u8>>,
    pub(super) rows_in: Vec<bool>,
    pub(super) pieces_in: Vec<bool>,
}

struct Head {
    coarse: Vec<f32>,
    groups: Vec<u32>,
    group_rows: Vec<u32>,
    centres: Quantiser,
    residuals: Quantiser,
    /// Each partition's coded centroid, `centres.parts` codes each, and
    /// where its rows start and end: zero until its group is in.
    centre_codes: Vec<u8>,
    rows: Vec<(usize, usize)>,
    groups_in: Vec<bool>,
}

impl Head {
    fn parts(&self) -> usize {
        self.rows.len()
    }
}

impl SplitReader {
    /// Reads the bundle's static lane from here on, its queries embedded
    /// with `tokenizer` (the bytes of `fathom_static::TOKENIZER_FILE`, which
    /// the table it was made with came from). Without this, or in a bundle
    /// with no vectors, a search runs by words.
    pub fn read_meaning(&mut self, tokenizer: &[u8]) -> Result<(), String> {
        let Some(meaning) = &self.root.meaning else {
            return Err("the split bundle carries no vectors (index it with --vectors static)".into());
        };
        let actual = fathom_static::sha256_hex(tokenizer);
        if actual != fathom_static::TOKENIZER_SHA256 {
            return Err(fathom_static::StaticError::Integrity {
                file: fathom_static::TOKENIZER_FILE,
                expected: fathom_static::TOKENIZER_SHA256,
                actual,
                bytes: tokenizer.len(),
            }
            .to_string());
        }
        let pages = (meaning.vocabulary as usize).div_ceil(PIECES_PER_PAGE);
        if meaning.pieces.count as usize != pages || meaning.dim == 0 {
            return Err(format!(
                "the split bundle's meaning lists {} pages of the table's {} pieces of {} dimensions",
                meaning.pieces.count, meaning.vocabulary, meaning.dim
            ));
        }
        let model = fathom_static::StaticModel::sparse(
            tokenizer,
            meaning.vocabulary as usize,
            meaning.dim as usize,
            meaning.table.clone(),
        )
        .map_err(|e| e.to_string())?;
        let documents = meaning.documents;
        let rows = meaning.rows.count as usize;
        self.index.retrieval.set_sparse_static(model, documents);
        self.meaning = Some(MeaningIn {
            head: None,
            parts: HashMap::new(),
            rows_in: vec![false; rows],
            pieces_in: vec![false; pages],
        });
        Ok(())
    }

    /// What the static lane of a search still needs, a stage at a time:
    /// the query's pieces and the head; then its nearest groups; then their
    /// nearest partitions; then the rows of the chunks their codes rank
    /// best. Nothing for a lexical search, a reader not reading meaning,
    /// or a query with no word the table knows whole (which the whole
    /// index runs by words too).
    pub(super) fn meaning_wants(&self, query: &str, options: &SearchOptions) -> Vec<Want> {
        let Some(meaning) = &self.meaning else { return Vec::new() };
        let Some(lane) = self.index.retrieval.static_lane() else { return Vec::new() };
        if options.mode == Mode::Lexical {
            return Vec::new();
        }
        let mut wants = vec![Want::Meaning];
        if let Ok(pieces) = lane.model().query_pieces(query) {
            wants.extend(pieces.iter().map(|&id| Want::Pieces(id as usize / PIECES_PER_PAGE)));
        }
        wants.sort_unstable_by_key(|w| match w {
            Want::Pieces(at) => *at,
            _ => 0,
        });
        wants.dedup();
        if wants.iter().any(|&w| !self.have(w)) {
            return wants;
        }
        let (Some(head), Some(vector)) = (&meaning.head, lane.embed(query)) else { return Vec::new() };
        let dim = lane.vectors().dim();
        let among = nearest_groups(dim, &head.coarse, &vector, GROUP_PROBE);
        let groups: Vec<Want> = among.iter().map(|&g| Want::Group(g)).collect();
        if groups.iter().any(|&w| !self.have(w)) {
            return groups;
        }
        let nearest =
            rank_partitions(dim, &head.coarse, &head.groups, &head.centres, &head.centre_codes, &vector, &among, PROBE);
        let parts: Vec<Want> = nearest.iter().map(|&(p, _)| Want::Part(p)).collect();
        if parts.iter().any(|&w| !self.have(w)) {
            return parts;
        }
        // Each chunk by its centroid's product with the query and its code's.
        let table = head.residuals.table(&vector);
        let runs = head.residuals.parts;
        let mut scored: Vec<(usize, f32)> = Vec::new();
        for &(p, centre) in &nearest {
            for (i, code) in meaning.parts[&p].chunks_exact(runs).enumerate() {
                scored.push((head.rows[p].0 + i, centre + head.residuals.score(&table, code)));
            }
        }
        let limit = RESCORE.min(scored.len());
        if limit > 0 {
            let by_score = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
            scored.select_nth_unstable_by(limit - 1, by_score);
            scored.truncate(limit);
        }
        let mut rows: Vec<Want> = scored.iter().map(|&(at, _)| Want::Rows(at / ROWS_PER_PAGE)).collect();
        rows.sort_unstable_by_key(|w| if let Want::Rows(at) = w { *at } else { 0 });
        rows.dedup();
        rows
    }

    /// Whether the static lane ranks `query` (some word of it is one the
    /// table knows whole): `None` until its pieces are in, `Some(false)`
    /// where the reader reads no meaning.
    pub(super) fn meaning_ranks(&self, query: &str) -> Option<bool> {
        let (Some(_), Some(lane)) = (&self.meaning, self.index.retrieval.static_lane()) else { return Some(false) };
        let Ok(pieces) = lane.model().query_pieces(query) else { return Some(false) };
        if pieces.iter().any(|&id| !self.have(Want::Pieces(id as usize / PIECES_PER_PAGE))) {
            return None;
        }
        Some(lane.embed(query).is_some())
    }

    pub(super) fn have_meaning(&self, want: Want) -> bool {
        let Some(meaning) = &self.meaning else { return true };
        match want {
            Want::Meaning => meaning.head.is_some(),
            Want::Group(at) => meaning.head.as_ref().is_some_and(|h| h.groups_in.get(at).copied().unwrap_or(true)),
            Want::Part(at) => meaning.parts.contains_key(&at) || meaning.head.as_ref().is_some_and(|h| at >= h.parts()),
            Want::Rows(at) => meaning.rows_in.get(at).copied().unwrap_or(true),
            Want::Pieces(at) => meaning.pieces_in.get(at).copied().unwrap_or(true),
            _ => true,
        }
    }

    pub(super) fn meaning_item(&self, want: Want) -> Option<(ItemRef, String)> {
        let meaning = self.root.meaning.as_ref()?;
        let tag = &self.root.tag;
        Some(match want {
            Want::Meaning => (meaning.head, "the meaning's head".to_owned()),
            Want::Group(at) => (meaning.groups.item(tag, crate::split::GROUPS, at)?, format!("group {at}")),
            Want::Part(at) => (meaning.parts.item(tag, crate::split::PARTS, at)?, format!("partition {at}")),
            Want::Rows(at) => (meaning.rows.item(tag, crate::split::ROWS, at)?, format!("rows {at}")),
            Want::Pieces(at) => (meaning.pieces.item(tag, crate::split::PIECES, at)?, format!("table page {at}")),
            _ => return None,
        })
    }

    /// Puts an item of the static lane in, checked whole first.
    pub(super) fn put_meaning(&mut self, want: Want, item: &ItemRef, bytes: &[u8]) -> Result<(), StoreError> {
        let bad = |what: &str, cause: String| StoreError::Undecodable { what: what.into(), path: item.path(), cause };
        let Some(root) = self.root.meaning.as_ref() else { return Ok(()) };
        let dim = root.dim as usize;
        let chunks = self.index.retrieval.chunks().len();
        match want {
            Want::Meaning => {
                let head: MeaningHead = open("the meaning's head", item, bytes)?;
                let groups = head.coarse_scales.len();
                let parts = root.parts.count as usize;
                let (centres, residuals) = (head.centres.quantiser(dim), head.residuals.quantiser(dim));
                let rising = |cuts: &[u32], last: u64| {
                    cuts.len() == groups + 1
                        && cuts.first() == Some(&0)
                        && cuts.windows(2).all(|w| w[0] <= w[1])
                        && cuts.last().map(|&l| u64::from(l)) == Some(last)
                };
                let held = head.group_rows.last().map_or(0, |&l| l as usize);
                let whole = head.coarse.len() == groups * dim
                    && groups == root.groups.count as usize
                    && rising(&head.groups, parts as u64)
                    && rising(&head.group_rows, held as u64)
                    && held <= chunks
                    && held.div_ceil(ROWS_PER_PAGE) == root.rows.count as usize;
                let (true, Some(centres), Some(residuals)) = (whole, centres, residuals) else {
                    return Err(bad("the meaning's head", "its groups, rows or codes do not fit the root".into()));
                };
                let coarse = head
                    .coarse
                    .chunks_exact(dim)
                    .zip(&head.coarse_scales)
                    .flat_map(|(c, &scale)| c.iter().map(move |&x| f32::from(x) * scale))
                    .collect();
                if let Some(meaning) = self.meaning.as_mut() {
                    meaning.head = Some(Head {
                        coarse,
                        groups: head.groups,
                        group_rows: head.group_rows,
                        centre_codes: vec![0; parts * centres.parts],
                        centres,
                        residuals,
                        rows: vec![(0, 0); parts],
                        groups_in: vec![false; groups],
                    });
                }
            }
            Want::Group(at) => {
                let group: GroupItem = open("a group", item, bytes)?;
                let Some(meaning) = self.meaning.as_mut() else { return Ok(()) };
                let Some(head) = meaning.head.as_mut() else {
                    return Err(bad("a group", "it came before the meaning's head".into()));
                };
                let (from, to) = (head.groups[at] as usize, head.groups[at + 1] as usize);
                let runs = head.centres.parts;
                let codes = head.centres.unpack(&group.centre_codes, (to - from) * runs);
                let rows: u64 = group.sizes.iter().map(|&n| u64::from(n)).sum();
                let (Some(codes), true) = (
                    codes,
                    group.sizes.len() == to - from && rows == u64::from(head.group_rows[at + 1] - head.group_rows[at]),
                ) else {
                    return Err(bad(
                        "a group",
                        format!("its {} partitions' codes and sizes do not fit the head's group", group.sizes.len()),
                    ));
                };
                head.centre_codes[from * runs..to * runs].copy_from_slice(&codes);
                let mut start = head.group_rows[at] as usize;
                for (p, &size) in (from..to).zip(&group.sizes) {
                    head.rows[p] = (start, start + size as usize);
                    start += size as usize;
                }
                head.groups_in[at] = true;
            }
            Want::Part(at) => {
                let part: PartItem = open("a partition", item, bytes)?;
                let Some(meaning) = self.meaning.as_mut() else { return Ok(()) };
                let Some(head) = &meaning.head else {
                    return Err(bad("a partition", "it came before the meaning's head".into()));
                };
                let group = head.groups.partition_point(|&first| first as usize <= at).saturating_sub(1);
                if !head.groups_in.get(group).copied().unwrap_or(false) {
                    return Err(bad("a partition", format!("it came before its group ({group})")));
                }
                let size = head.rows.get(at).map(|&(from, to)| to - from);
                let Some(codes) = size.and_then(|size| head.residuals.unpack(&part.codes, size * head.residuals.parts))
                else {
                    return Err(bad(
                        "a partition",
                        format!("its {} bytes of codes do not fit the head's partition", part.codes.len()),
                    ));
                };
                meaning.parts.insert(at, codes);
            }
            Want::Rows(at) => {
                let page: RowPage = open("rows", item, bytes)?;
                let (nodes, files) = (self.held.len(), self.index.texts.len());
                let fits = |r: &crate::split::Row| {
                    (r.chunk as usize) < chunks
                        && r.of.node.index() < nodes
                        && (r.file as usize) < files
                        && r.row.len() == dim
                };
                if !page.rows.iter().all(fits) {
                    return Err(bad(
                        "rows",
                        "a row is of a chunk, node or file past the end, or of another length".into(),
                    ));
                }
                for row in page.rows {
                    let node = row.of.node;
                    let (slots, _, _) = self.index.retrieval.sparse_parts();
                    slots.put(row.chunk as usize, row.of);
                    // Known in brief, as a posting makes it.
                    self.posted(node, row.file, row.flags);
                    if let Some((_, _, vectors)) = self.index.retrieval.sparse_static() {
                        vectors.set(row.chunk as usize, &row.row, row.scale);
                    }
                }
                if let Some(meaning) = self.meaning.as_mut() {
                    meaning.rows_in[at] = true;
                }
            }
            Want::Pieces(at) => {
                let page: PiecePage = open("a table page", item, bytes)?;
                let first = at * PIECES_PER_PAGE;
                let n = PIECES_PER_PAGE.min((root.vocabulary as usize).saturating_sub(first));
                if page.scales.len() != n || page.counts.len() != n || page.rows.len() != n * dim {
                    return Err(bad("a table page", format!("it holds {} pieces, not {n}", page.scales.len())));
                }
                if let Some((model, corpus, _)) = self.index.retrieval.sparse_static() {
                    for (i, (row, (&scale, &count))) in
                        page.rows.chunks_exact(dim).zip(page.scales.iter().zip(&page.counts)).enumerate()
                    {
                        model.fill((first + i) as u32, row, scale);
                        corpus.set((first + i) as u32, count);
                    }
                }
                if let Some(meaning) = self.meaning.as_mut() {
                    meaning.pieces_in[at] = true;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Every item of the static lane: what a reader fetches ahead to search
    /// by meaning offline.
    pub(super) fn every_meaning_want(&self) -> Vec<Want> {
        let Some(meaning) = &self.root.meaning else { return Vec::new() };
        let count = |placed: &crate::split::Placed| placed.count as usize;
        std::iter::once(Want::Meaning)
            .chain((0..count(&meaning.groups)).map(Want::Group))
            .chain((0..count(&meaning.parts)).map(Want::Part))
            .chain((0..count(&meaning.rows)).map(Want::Rows))
            .chain((0..count(&meaning.pieces)).map(Want::Pieces))
            .collect()
    }
}
