//! A query, answered: symbols by retrieval's lanes, and files by the best
//! of them, or, for a bug report, by everything the report says (the
//! localiser's ranking, which the symbols then follow).

use std::collections::HashMap;

use fathom_graph::{CodeGraph, NodeId};

use crate::chunks::Sources;
use crate::issue::Issue;
use crate::locate::{Localiser, Located, Named, WEIGHTS};
use crate::retrieval::{
    Accept, ChunkVectors, FUSION, FileRank, Lane, Mode, RankedHit, Ranking, Retrieval, SearchOptions, Symbols,
};
use crate::roles::FileRoles;

/// Ranks symbols and files for `query` over `index`. `query_vector` is the
/// query's embedding, needed by the dense lane.
pub fn search(
    index: &Retrieval,
    sources: &dyn Sources,
    query: &str,
    options: &SearchOptions,
    query_vector: Option<&[f32]>,
) -> Ranking {
    search_with(index, sources, query, options, query_vector, None)
}

/// [`search`], with MiniLM's vectors for the question's candidates
/// ([`Retrieval::candidates`]), which serve the dense lane where MiniLM's
/// whole index is not built.
pub fn search_with(
    index: &Retrieval,
    sources: &dyn Sources,
    query: &str,
    options: &SearchOptions,
    query_vector: Option<&[f32]>,
    candidates: Option<&ChunkVectors>,
) -> Ranking {
    let graph = sources.graph();
    let Symbols { mode, note, mut hits, lane, best_chunk, .. } =
        index.rank_symbols(sources, query, options, query_vector, candidates);
    let files = if options.read_report && mode != Mode::Dense && Issue::is_report(query) {
        let accept = Accept::new(&options.filter).ok().filter(|a| !a.is_empty());
        // The lane this search already embedded the report for, where its
        // weight counts.
        let lane = Localiser::weighed(lane.as_ref().filter(|_| mode == Mode::Hybrid));
        let evidence = Localiser::new(index, sources).gather(query, lane);
        let files = located_files(graph, WEIGHTS.rank(evidence.files), &hits, accept.as_ref());
        let order: HashMap<&str, usize> = files.iter().enumerate().map(|(i, f)| (f.file.as_str(), i)).collect();
        hits.sort_by_key(|h| graph.path_of(h.node).and_then(|p| order.get(p)).copied().unwrap_or(usize::MAX));
        files
    } else {
        rank_files(graph, index.roles(), &hits)
    };
    hits.truncate(options.k);
    for hit in &mut hits {
        if let Some(&chunk) = best_chunk.get(&hit.node) {
            hit.explain.matched_terms = index.matched_terms(query, chunk);
        }
    }
    let mut params = index.params(options.weights);
    if mode != Mode::Lexical {
        params.meaning = lane.as_ref().map(Lane::meaning);
        params.fusion = lane.as_ref().map_or(FUSION, Lane::fusion);
    }
    Ranking { mode, note, hits, files, params }
}

/// Every hit and file a search ranks, before either is cut to `k`, and the
/// hits expansion started from, with their scores before it: what a split
/// bundle's reader checks it holds in whole before it answers. Words only:
/// a bug report is read by the localiser, over every file.
pub struct Plan {
    pub hits: Vec<RankedHit>,
    pub files: Vec<FileRank>,
    pub seeds: Vec<(NodeId, f64)>,
}

pub fn plan(index: &Retrieval, sources: &dyn Sources, query: &str, options: &SearchOptions) -> Plan {
    let Symbols { hits, seeds, .. } = index.rank_symbols(sources, query, options, None, None);
    let files = rank_files(sources.graph(), index.roles(), &hits);
    Plan { hits, files, seeds }
}

/// Located files as a ranking, each with its best symbols: the definitions
/// the report names, then its best hits there.
fn located_files(
    graph: &CodeGraph,
    located: Vec<Located>,
    hits: &[RankedHit],
    accept: Option<&Accept>,
) -> Vec<FileRank> {
    let modules: HashMap<&str, NodeId> = graph.files().iter().map(|f| (f.path.as_str(), f.module)).collect();
    located
        .into_iter()
        .filter(|l| accept.is_none_or(|a| modules.get(l.evidence.file.as_str()).is_some_and(|&m| a.node(graph, m))))
        .map(|l| {
            let mut named: Vec<&Named> = l.evidence.named.iter().collect();
            named.sort_by(|a, b| b.specificity.total_cmp(&a.specificity));
            let mut symbols: Vec<NodeId> = Vec::new();
            let in_file = hits.iter().filter(|h| graph.path_of(h.node) == Some(l.evidence.file.as_str()));
            for node in named.iter().map(|n| n.node).chain(in_file.map(|h| h.node)) {
                if symbols.len() < 3 && !symbols.contains(&node) {
                    symbols.push(node);
                }
            }
            FileRank { file: l.evidence.file, score: l.score, symbols }
        })
        .collect()
}

/// Files by their best symbol (MaxP), with a small share of their next two
/// (a hundredth each) to order files whose best symbols tie. Fused scores are
/// flat (1/61 and 1/62 are ranks 1 and 2), so a larger share would let two
/// middling hits outrank one excellent one. A file generated from the
/// project's own (an amalgamation) follows the best of its sources, as the
/// localiser ranks it ([`crate::locate::Weights::companion`]).
fn rank_files(graph: &CodeGraph, roles: &FileRoles, hits: &[RankedHit]) -> Vec<FileRank> {
    let mut files: HashMap<&str, FileRank> = HashMap::new();
    for hit in hits {
        let Some(path) = graph.path_of(hit.node) else { continue };
        let file =
            files.entry(path).or_insert_with(|| FileRank { file: path.to_owned(), score: 0.0, symbols: Vec::new() });
        if file.symbols.len() < 3 {
            file.score += hit.score * if file.symbols.is_empty() { 1.0 } else { 0.01 };
            file.symbols.push(hit.node);
        }
    }
    let scores: HashMap<&str, f64> = files.iter().map(|(&path, f)| (path, f.score)).collect();
    for (path, file) in &mut files {
        file.score = WEIGHTS.as_companion(file.score, roles.sources_of(path), &scores);
    }
    let mut files: Vec<FileRank> = files.into_values().collect();
    files.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.file.cmp(&b.file)));
    files
}
