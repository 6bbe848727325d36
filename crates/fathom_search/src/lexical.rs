//! BM25 over chunks, through the `bm25` crate, with Fathom's own terms
//! ([`crate::tokens`]).
//!
//! A chunk's document is its text with the symbol's name repeated
//! [`NAME_BOOST`] times and its path's segments added, so a name or a path
//! that matches outweighs a passing mention in a body.

use bm25::{Embedder, EmbedderBuilder, Embedding, Scorer, Tokenizer};
use serde::Serialize;

use crate::tokens::Terms;

/// BM25's term-frequency saturation and length normalisation, the values of
/// Robertson and Zaragoza's survey; recorded in every search's `params`.
pub const K1: f32 = 1.2;
pub const B: f32 = 0.75;
/// How many times a symbol's own name counts in its document.
pub const NAME_BOOST: usize = 3;

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Bm25Params {
    pub k1: f32,
    pub b: f32,
    pub avgdl: f32,
    pub name_boost: usize,
    pub documents: usize,
}

struct TermTokenizer(Terms);

impl Tokenizer for TermTokenizer {
    fn tokenize(&self, input_text: &str) -> Vec<String> {
        self.0.terms(input_text)
    }
}

pub struct Lexical {
    embedder: Embedder<u32, TermTokenizer>,
    scorer: Scorer<u32, u32>,
    terms: Terms,
    documents: usize,
}

impl Lexical {
    /// Indexes `documents`, where document `i` is chunk `i`.
    pub fn build(documents: &[String]) -> Lexical {
        let refs: Vec<&str> = documents.iter().map(String::as_str).collect();
        let embedder: Embedder<u32, TermTokenizer> =
            EmbedderBuilder::with_tokenizer_and_fit_to_corpus(TermTokenizer(Terms::default()), &refs)
                .k1(K1)
                .b(B)
                .build();
        let mut scorer = Scorer::new();
        for (i, doc) in refs.iter().enumerate() {
            scorer.upsert(&(i as u32), dedup(embedder.embed(doc)));
        }
        Lexical { embedder, scorer, terms: Terms::default(), documents: documents.len() }
    }

    pub fn params(&self) -> Bm25Params {
        Bm25Params { k1: K1, b: B, avgdl: self.embedder.avgdl(), name_boost: NAME_BOOST, documents: self.documents }
    }

    /// Chunks by BM25 score, best first, at most `limit`.
    pub fn search(&self, query: &str, limit: usize) -> Vec<(u32, f32)> {
        let query = dedup(self.embedder.embed(query));
        let mut matches = self.scorer.matches(&query);
        // The scorer lists equal scores in hash order, which differs between
        // two copies of one index; the chunk order breaks ties instead.
        matches.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
        matches.truncate(limit);
        matches.into_iter().map(|m| (m.id, m.score)).collect()
    }

    /// The query's terms, as the index reads them.
    pub fn terms(&self, text: &str) -> Vec<String> {
        self.terms.terms(text)
    }
}

/// The crate's embedding repeats a term once per occurrence, with the same
/// weight each time; scoring reads the first, so the rest only cost memory
/// (and, in a query, would count a repeated word twice).
fn dedup(embedding: Embedding<u32>) -> Embedding<u32> {
    let mut seen = std::collections::HashSet::new();
    Embedding(embedding.0.into_iter().filter(|t| seen.insert(t.index)).collect())
}
