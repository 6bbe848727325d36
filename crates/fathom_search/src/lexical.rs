//! BM25 over chunks, with Fathom's own terms ([`crate::tokens`]) and the
//! `bm25` crate's formulas: its embedder's term weights and its scorer's
//! IDF, over postings lists held here (see [`Inverted`]).
//!
//! A chunk's document is its text with the symbol's name repeated
//! [`NAME_BOOST`] times and its path's segments added, so a name or a path
//! that matches outweighs a passing mention in a body.

use std::borrow::Cow;

use std::collections::{HashMap, HashSet};

use ahash::RandomState;
use bm25::{Embedder, EmbedderBuilder, Embedding, TokenEmbedder, Tokenizer};
use serde::{Deserialize, Serialize};

use crate::tokens::{TERMS_VERSION, Terms};

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

#[derive(Default)]
struct TermTokenizer(Terms);

impl Tokenizer for TermTokenizer {
    fn tokenize(&self, input_text: &str) -> Vec<String> {
        self.0.terms(input_text)
    }
}

/// The lexical index as an index bundle stores it: each chunk's postings
/// (term hash and BM25 weight, by term) and what they were computed with.
/// Loading them only fills the postings lists; nothing is tokenised again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredLexical<'a> {
    pub k1: f32,
    pub b: f32,
    pub name_boost: u32,
    pub terms_version: u32,
    pub avgdl: f32,
    /// Document `i`'s distinct terms and their weights.
    pub postings: Cow<'a, [Vec<(u32, f32)>]>,
}

impl StoredLexical<'_> {
    pub fn into_owned(self) -> StoredLexical<'static> {
        StoredLexical { postings: Cow::Owned(self.postings.into_owned()), ..self }
    }

    /// Whether these postings are what this build would compute: the same
    /// BM25 constants, name boost and terms.
    pub fn is_current(&self) -> bool {
        self.k1 == K1 && self.b == B && self.name_boost as usize == NAME_BOOST && self.terms_version == TERMS_VERSION
    }
}

pub struct Lexical {
    embedder: Embedder<u32, TermTokenizer>,
    /// The only copy of the postings: a bundle stores them turned back into
    /// each document's list ([`Lexical::stored`]), so writing one does not
    /// tokenise every chunk again (on Django, 5 s of 6 s of writing), and
    /// no second copy is held for it (12 MB there).
    inverted: Inverted,
    terms: Terms,
}

/// The documents holding each term, with the term's weight in each, in
/// document order. The `bm25` crate's own scorer keeps a hash set of
/// documents per term and a hash map of documents, and finds a term's
/// weight in a document by scanning it; built for Django, it took longer
/// than splitting the documents into terms.
///
/// Its maps are keyed by words of the repository (or their hashes), so they
/// hash with random keys: a hostile file cannot choose words that collide.
struct Inverted {
    documents: usize,
    terms: HashMap<u32, Vec<(u32, f32)>, RandomState>,
}

impl Inverted {
    /// Takes each document's postings, freeing each list once it is in.
    fn new(postings: Vec<Vec<(u32, f32)>>) -> Inverted {
        let documents = postings.len();
        let mut terms: HashMap<u32, Vec<(u32, f32)>, RandomState> = HashMap::default();
        for (document, postings) in postings.into_iter().enumerate() {
            for (term, weight) in postings {
                terms.entry(term).or_default().push((document as u32, weight));
            }
        }
        Inverted { documents, terms }
    }

    /// Each document's postings, by term hash: what [`Inverted::new`] was
    /// given, in a fixed order.
    fn by_document(&self) -> Vec<Vec<(u32, f32)>> {
        let mut postings: Vec<Vec<(u32, f32)>> = vec![Vec::new(); self.documents];
        for (&term, holding) in &self.terms {
            for &(document, weight) in holding {
                postings[document as usize].push((term, weight));
            }
        }
        for list in &mut postings {
            list.sort_unstable_by_key(|&(term, _)| term);
        }
        postings
    }

    /// Every document holding a query term, with its BM25 score: the sum,
    /// over the query's terms in order, of the term's IDF times its weight
    /// in the document, as the `bm25` crate's scorer sums them. Each is
    /// handed to `each` once, in no set order.
    ///
    /// Summed in a hash map where the query's postings are few beside the
    /// documents, and in an array of every document's sum where they are
    /// many: a common term lists most documents, and a map's entry with its
    /// spare room takes two to four times an array's four bytes (on the
    /// 50k set, 4.7 MB against 1.4 MB for a term in 315,000 chunks).
    fn scores(&self, query: &[u32], mut each: impl FnMut(u32, f32)) {
        let lists: Vec<(&[(u32, f32)], f32)> = query
            .iter()
            .filter_map(|term| self.terms.get(term))
            .map(|holding| {
                let frequency = holding.len() as f32;
                let idf = (1.0 + (self.documents as f32 - frequency + 0.5) / (frequency + 0.5)).ln();
                (holding.as_slice(), idf)
            })
            .collect();
        let postings: usize = lists.iter().map(|(list, _)| list.len()).sum();
        Inverted::sum(lists, self.documents, postings.saturating_mul(DENSE_BELOW) >= self.documents, &mut each);
    }

    /// Sums the lists' weights by document, in an array of `documents` or
    /// in a map.
    fn sum(lists: Vec<(&[(u32, f32)], f32)>, documents: usize, dense: bool, each: &mut dyn FnMut(u32, f32)) {
        if !dense {
            let postings = lists.iter().map(|(list, _)| list.len()).sum();
            let mut scores: HashMap<u32, f32, RandomState> =
                HashMap::with_capacity_and_hasher(postings, RandomState::default());
            for (holding, idf) in lists {
                for &(document, weight) in holding {
                    *scores.entry(document).or_insert(0.0) += idf * weight;
                }
            }
            scores.into_iter().for_each(|(document, score)| each(document, score));
            return;
        }
        // `0.0 + x` is `x`, so each sum is the map's to the bit; a document
        // is found where a posting names it, whatever its sum.
        let mut sums = vec![0.0f32; documents];
        let mut found = vec![0u64; documents.div_ceil(64)];
        for (holding, idf) in lists {
            for &(document, weight) in holding {
                let at = document as usize;
                // A stored posting past the documents is refused where it is
                // read ([`Lexical::put_term`]'s callers); never indexed here.
                if let Some(sum) = sums.get_mut(at) {
                    *sum += idf * weight;
                    found[at / 64] |= 1 << (at % 64);
                }
            }
        }
        for (word, &bits) in found.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let at = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                each(at as u32, sums[at]);
            }
        }
    }
}

/// [`Inverted::scores`] sums in an array where the query's postings are
/// at least the documents over this.
const DENSE_BELOW: usize = 4;

impl Lexical {
    /// Indexes `documents`, where document `i` is chunk `i`.
    ///
    /// Each document is split into terms once, through a cache of each
    /// distinct word's terms (stemming is most of the cost, and code repeats
    /// its words), and weighted by the formula of the `bm25` crate's
    /// embedder, whose scorer then holds the postings. The crate's own
    /// embedder would split every document twice (once to fit the average
    /// length) and stem every word afresh.
    pub fn build(documents: &[String]) -> Lexical {
        Lexical::build_from(documents.len(), |i, piece| piece(Input::Text(&documents[i])))
    }

    /// [`Lexical::build`] over `count` documents that `pieces(i, piece)`
    /// hands over in pieces, each a separate run of words or terms already
    /// split: document `i` is the pieces joined with spaces, never built.
    pub fn build_from(count: usize, pieces: impl Fn(usize, &mut dyn FnMut(Input<'_>)) + Sync + Send) -> Lexical {
        let documents: Vec<usize> = (0..count).collect();
        // Each document's terms go through one buffer (per thread) and only
        // their counts are kept until the average length, which weighing
        // needs, is known: every document's terms were held at once.
        let init = || (WordTerms::default(), Vec::new());
        let counted: Vec<Counted> = crate::parallel::map_init(&documents, init, |(cache, terms), &i| {
            terms.clear();
            pieces(i, &mut |piece| match piece {
                Input::Text(text) => cache.extend(text, terms),
                Input::Repeated(text, times) => {
                    let from = terms.len();
                    cache.extend(text, terms);
                    let to = terms.len();
                    for _ in 1..times {
                        terms.extend_from_within(from..to);
                    }
                }
                Input::Terms(split) => terms.extend_from_slice(split),
            });
            Counted::of(terms)
        });
        let total: usize = counted.iter().map(|c| c.length as usize).sum();
        let avgdl = if count == 0 { FALLBACK_AVGDL } else { (total as f64 / count as f64) as f32 };
        let embedder: Embedder<u32, TermTokenizer> = EmbedderBuilder::with_avgdl(avgdl).k1(K1).b(B).build();
        let postings = crate::parallel::map(&counted, |counted| counted.weigh(avgdl));
        drop(counted);
        Lexical::with_postings(embedder, postings)
    }

    fn with_postings(embedder: Embedder<u32, TermTokenizer>, postings: Vec<Vec<(u32, f32)>>) -> Lexical {
        Lexical { embedder, inverted: Inverted::new(postings), terms: Terms::default() }
    }

    /// An index of `documents` chunks of average length `avgdl` that holds
    /// no term yet: a split bundle's, whose terms' postings are put in as a
    /// query needs them ([`Lexical::put_term`]). A term it holds scores as
    /// the whole index scores it, since its postings are complete.
    pub fn sparse(documents: usize, avgdl: f32) -> Lexical {
        let embedder: Embedder<u32, TermTokenizer> =
            EmbedderBuilder::with_tokenizer_and_fit_to_corpus(TermTokenizer(Terms::default()), &[])
                .avgdl(avgdl)
                .k1(K1)
                .b(B)
                .build();
        Lexical { embedder, inverted: Inverted { documents, terms: HashMap::default() }, terms: Terms::default() }
    }

    /// Puts a term's every posting, in chunk order, into a sparse index.
    pub fn put_term(&mut self, term: u32, postings: Vec<(u32, f32)>) {
        self.inverted.terms.insert(term, postings);
    }

    /// The postings, for storing.
    pub fn stored(&self) -> StoredLexical<'_> {
        StoredLexical {
            k1: K1,
            b: B,
            name_boost: NAME_BOOST as u32,
            terms_version: TERMS_VERSION,
            avgdl: self.embedder.avgdl(),
            postings: Cow::Owned(self.inverted.by_document()),
        }
    }

    /// The index whose postings these are. The caller checks
    /// [`StoredLexical::is_current`] first.
    pub fn from_stored(stored: StoredLexical<'_>) -> Lexical {
        let embedder: Embedder<u32, TermTokenizer> =
            EmbedderBuilder::with_tokenizer_and_fit_to_corpus(TermTokenizer(Terms::default()), &[])
                .avgdl(stored.avgdl)
                .k1(K1)
                .b(B)
                .build();
        Lexical::with_postings(embedder, stored.postings.into_owned())
    }

    pub fn params(&self) -> Bm25Params {
        let documents = self.inverted.documents;
        Bm25Params { k1: K1, b: B, avgdl: self.embedder.avgdl(), name_boost: NAME_BOOST, documents }
    }

    /// Chunks by BM25 score, best first, at most `limit`.
    pub fn search(&self, query: &str, limit: usize) -> Vec<(u32, f32)> {
        self.search_where(query, limit, |_| true)
    }

    /// [`Lexical::search`] over the chunks `keep` accepts: the best `limit`
    /// of those, however many others score above them.
    pub fn search_where(&self, query: &str, limit: usize, keep: impl Fn(u32) -> bool) -> Vec<(u32, f32)> {
        if limit == 0 {
            return Vec::new();
        }
        let query = self.query_terms(query);
        // Equal scores in chunk order, not hash order, which could differ
        // between two copies of one index: a total order, so the best
        // `limit` are one set however the matches arrive. They are kept as
        // they come, at most twice `limit` at a time (a common term's
        // matches are most chunks), and only the best are sorted.
        let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        let room = limit.saturating_mul(2);
        let mut matches: Vec<(u32, f32)> = Vec::new();
        self.inverted.scores(&query, |chunk, score| {
            if !keep(chunk) {
                return;
            }
            matches.push((chunk, score));
            if matches.len() >= room {
                matches.select_nth_unstable_by(limit - 1, order);
                matches.truncate(limit);
            }
        });
        if matches.len() > limit {
            matches.select_nth_unstable_by(limit - 1, order);
            matches.truncate(limit);
        }
        matches.sort_by(order);
        matches
    }

    /// The hashes of the query's distinct terms, in the order they are
    /// scored: the postings lists a search reads.
    pub fn query_terms(&self, query: &str) -> Vec<u32> {
        dedup(self.embedder.embed(query)).0.iter().map(|t| t.index).collect()
    }

    /// Whether a chunk holds a term (one of [`Lexical::terms`]): whether
    /// the term's postings list it.
    pub fn holds(&self, term: &str, chunk: u32) -> bool {
        let hash = <u32 as TokenEmbedder>::embed(term);
        self.inverted.terms.get(&hash).is_some_and(|list| list.binary_search_by_key(&chunk, |&(c, _)| c).is_ok())
    }

    /// The query's terms, as the index reads them.
    pub fn terms(&self, text: &str) -> Vec<String> {
        self.terms.terms(text)
    }
}

/// The `bm25` crate's default when there is no corpus to fit.
const FALLBACK_AVGDL: f32 = 256.0;

/// One document's terms, counted: its length and each distinct term's
/// frequency, by term.
struct Counted {
    length: u32,
    frequencies: Box<[(u32, u32)]>,
}

impl Counted {
    /// Counts `terms` by sorting them (which reorders them): a document's
    /// terms are few, and sorting them cost less than counting them in a
    /// hash map did (the lexical index of Django took 6 % fewer
    /// instructions).
    fn of(terms: &mut [u32]) -> Counted {
        terms.sort_unstable();
        let frequencies = terms.chunk_by(|a, b| a == b).map(|run| (run[0], run.len() as u32)).collect();
        Counted { length: terms.len() as u32, frequencies }
    }

    /// Each distinct term with its BM25 weight: the `bm25` crate's
    /// embedder's formula, term frequency saturated by `K1` and normalised
    /// by length with `B`.
    fn weigh(&self, avgdl: f32) -> Vec<(u32, f32)> {
        let length = self.length as f32;
        self.frequencies
            .iter()
            .map(|&(term, tf)| {
                let tf = tf as f32;
                (term, tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * (length / avgdl))))
            })
            .collect()
    }
}

/// A piece of a document for [`Lexical::build_from`].
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    /// Text, split into terms as it is read.
    Text(&'a str),
    /// Text read this many times over (a boosted name), split once.
    Repeated(&'a str, usize),
    /// Terms already split ([`LineTerms`]).
    Terms(&'a [u32]),
}

/// A file's lexical terms, line by line (as `str::lines` splits it), and
/// those of each of its definitions' names, hashed as the index keys them.
/// Parsing splits them, on every core, so the lexical index, built on one
/// thread after resolution, only reads them (splitting was most of its
/// cost). No word spans two lines, so a chunk's terms are its lines' terms in
/// order. A name is split where the parse worker already split the line
/// that declares it, so its words are found in that worker's cache; the
/// index would otherwise split nearly every name afresh (most are unique
/// words), once in a class's member list and once in its own chunk.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LineTerms {
    terms: Box<[u32]>,
    /// Where each line's terms start in `terms`.
    starts: Box<[u32]>,
    /// The definitions' names' terms, in the order of the file's definitions.
    names: Box<[u32]>,
    /// Where each name's terms start in `names`.
    name_starts: Box<[u32]>,
}

impl LineTerms {
    /// How many terms it holds, of lines and of names together.
    pub fn len(&self) -> usize {
        self.terms.len() + self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many lines it splits.
    pub fn lines(&self) -> usize {
        self.starts.len()
    }

    /// The terms of line `at` (0-based), if the file has that line.
    pub fn line(&self, at: u32) -> Option<&[u32]> {
        slice(&self.terms, &self.starts, at as usize)
    }

    /// The terms of the name of the file's definition `at`, if it has one.
    pub fn name(&self, at: usize) -> Option<&[u32]> {
        slice(&self.names, &self.name_starts, at)
    }

    /// Whether these are a split of `text` and of `names` names: one list
    /// per line and one per name, in order. A parse worker's answer is
    /// checked with it before it is taken.
    pub fn fits(&self, text: &str, names: usize) -> bool {
        let ordered = |starts: &[u32], len: usize| {
            starts.windows(2).all(|w| w[0] <= w[1]) && starts.last().is_none_or(|&last| last as usize <= len)
        };
        ordered(&self.starts, self.terms.len())
            && ordered(&self.name_starts, self.names.len())
            && self.starts.len() == fathom_model::count_lines(text).lines as usize
            && self.name_starts.len() == names
    }
}

/// Run `at` of `all`, which `starts` cuts into runs.
fn slice<'a>(all: &'a [u32], starts: &[u32], at: usize) -> Option<&'a [u32]> {
    let start = *starts.get(at)? as usize;
    let end = starts.get(at + 1).map_or(all.len(), |&end| end as usize);
    all.get(start..end)
}

/// Splits files into [`LineTerms`], with one cache of words and stems for
/// all of them (one per thread or parse worker).
#[derive(Default)]
pub struct Splitter(WordTerms);

impl Splitter {
    /// The terms of `text`'s lines and of `names`, a file's definitions' names.
    pub fn split<'n>(&mut self, text: &str, names: impl IntoIterator<Item = &'n str>) -> LineTerms {
        let (terms, starts) = self.runs(text.lines());
        let (names, name_starts) = self.runs(names);
        LineTerms { terms, starts, names, name_starts }
    }

    /// The terms of one text, as the lexical index reads it.
    pub fn terms(&mut self, text: &str) -> Box<[u32]> {
        let mut terms = Vec::new();
        self.0.extend(text, &mut terms);
        terms.into_boxed_slice()
    }

    /// Each text's terms, one after another, and where each one's start.
    fn runs<'t>(&mut self, texts: impl IntoIterator<Item = &'t str>) -> (Box<[u32]>, Box<[u32]>) {
        let mut terms = Vec::new();
        let mut starts = Vec::new();
        for text in texts {
            starts.push(terms.len() as u32);
            self.0.extend(text, &mut terms);
        }
        (terms.into_boxed_slice(), starts.into_boxed_slice())
    }
}

/// Hashed terms of documents, each distinct word split once and each
/// distinct part stemmed once: parts repeat across words (`user` in
/// `user_id`, `getUser`, `UserAdmin`), and stemming was most of the cost of
/// a new word.
#[derive(Default)]
struct WordTerms {
    terms: Terms,
    words: HashMap<String, Box<[u32]>, RandomState>,
    stems: HashMap<String, String, RandomState>,
}

impl WordTerms {
    /// Adds the hashed terms of `text` to `out`.
    fn extend(&mut self, text: &str, out: &mut Vec<u32>) {
        for word in crate::tokens::words(text) {
            if let Some(cached) = self.words.get(word) {
                out.extend_from_slice(cached);
                continue;
            }
            let mut hashed = Vec::new();
            let (terms, stems) = (&self.terms, &mut self.stems);
            let mut stem = |part: &str| match stems.get(part) {
                Some(stemmed) => stemmed.clone(),
                None => {
                    let stemmed = terms.stem(part);
                    stems.insert(part.to_owned(), stemmed.clone());
                    stemmed
                }
            };
            terms.word(word, &mut stem, &mut |term| hashed.push(<u32 as TokenEmbedder>::embed(&term)));
            out.extend_from_slice(&hashed);
            self.words.insert(word.to_owned(), hashed.into_boxed_slice());
        }
    }
}

/// The crate's embedding repeats a term once per occurrence, with the same
/// weight each time; scoring reads the first, so the rest only cost memory
/// (and, in a query, would count a repeated word twice).
fn dedup(embedding: Embedding<u32>) -> Embedding<u32> {
    let mut seen: HashSet<u32, RandomState> = HashSet::default();
    Embedding(embedding.0.into_iter().filter(|t| seen.insert(t.index)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The postings built through the word cache are the ones the `bm25`
    /// crate's own embedder computes, fitted to the same corpus: the same
    /// term hashes with the same weights.
    #[test]
    fn postings_match_the_bm25_crates_own_embedder() {
        let documents: Vec<String> = [
            "def parseHTTPDate(value):\n    return parse_date(value) or parse_date(value.strip())",
            "class UserRepository:\n    \"\"\"Saves users and finds them by id.\"\"\"\n    def save(self, user): ...",
            "export function getUserById(id: string) { return users.get(id) ?? null }",
            "",
            "authenticate authenticated authentication authenticate",
        ]
        .map(String::from)
        .to_vec();
        let lexical = Lexical::build(&documents);
        let refs: Vec<&str> = documents.iter().map(String::as_str).collect();
        let reference: Embedder<u32, TermTokenizer> =
            EmbedderBuilder::with_tokenizer_and_fit_to_corpus(TermTokenizer::default(), &refs).k1(K1).b(B).build();
        assert_eq!(lexical.embedder.avgdl(), reference.avgdl());
        for (doc, postings) in refs.iter().zip(&lexical.inverted.by_document()) {
            let mut expected: Vec<(u32, f32)> =
                dedup(reference.embed(doc)).0.into_iter().map(|t| (t.index, t.value)).collect();
            expected.sort_by_key(|&(term, _)| term);
            assert_eq!(postings, &expected, "{doc:?}");
        }
        let hits = lexical.search("authenticate user", 5);
        assert_eq!(hits[0].0, 4, "the document that says it four times comes first");
    }

    /// Scores are the `bm25` crate's scorer's, to the bit, for every
    /// document it finds, and for no other.
    #[test]
    fn scores_are_the_bm25_crates_scorers() {
        use bm25::{Scorer, TokenEmbedding};
        let documents: Vec<String> = [
            "def save(self, user): self.users[user.id] = user",
            "class UserRepository: saves users and finds users by id",
            "def find_user(user_id): return repository.get(user_id)",
            "parse the HTTP date of a header, or return None",
            "users users users",
            "",
        ]
        .map(String::from)
        .to_vec();
        let lexical = Lexical::build(&documents);
        let mut scorer: Scorer<u32, u32> = Scorer::new();
        for (i, postings) in lexical.inverted.by_document().iter().enumerate() {
            let embedding = postings.iter().map(|&(index, value)| TokenEmbedding { index, value }).collect();
            scorer.upsert(&(i as u32), Embedding(embedding));
        }
        for query in ["user", "find users by id", "save user repository", "http date", "nothing here", ""] {
            let mut expected: Vec<(u32, f32)> =
                scorer.matches(&dedup(lexical.embedder.embed(query))).into_iter().map(|m| (m.id, m.score)).collect();
            expected.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            assert_eq!(lexical.search(query, 100), expected, "{query:?}");
        }
    }

    /// Summed in an array or in a map, every document a posting names has
    /// the same score to the bit; and the best few, kept as they come, are
    /// the best of all the matches sorted.
    #[test]
    fn scores_in_an_array_are_the_maps_and_the_best_are_kept_as_they_come() {
        let words = ["alpha", "beta", "gamma", "delta", "user", "save", "parse", "header"];
        let documents: Vec<String> = (0..300u32)
            .map(|i| {
                let picked = (0..1 + i % 5).map(|j| words[((i * 7 + j * 3) % 8) as usize]);
                picked.collect::<Vec<_>>().join(" ")
            })
            .collect();
        let lexical = Lexical::build(&documents);
        for query in ["alpha", "user save", "gamma delta header beta", "nothing"] {
            let terms = lexical.query_terms(query);
            let summed = |dense: bool| {
                let lists = terms
                    .iter()
                    .filter_map(|term| lexical.inverted.terms.get(term))
                    .map(|holding| {
                        let frequency = holding.len() as f32;
                        let idf = (1.0 + (300.0 - frequency + 0.5) / (frequency + 0.5)).ln();
                        (holding.as_slice(), idf)
                    })
                    .collect();
                let mut out: Vec<(u32, u32)> = Vec::new();
                Inverted::sum(lists, 300, dense, &mut |d, s| out.push((d, s.to_bits())));
                out.sort_unstable();
                out
            };
            assert_eq!(summed(true), summed(false), "{query:?}");
            let all = lexical.search(query, usize::MAX);
            for limit in [1, 2, 3, 10, 299] {
                assert_eq!(lexical.search(query, limit), all[..limit.min(all.len())], "{query:?} {limit}");
            }
        }
        assert!(lexical.search("alpha", 0).is_empty());
        assert!(lexical.search("alpha", usize::MAX).len() > 50);
    }

    /// A document given in pieces is the pieces joined by spaces.
    #[test]
    fn a_document_in_pieces_is_its_pieces_joined() {
        let pieces = [["getUser", "getUser", "src/users/api.py", "def getUser(id):\n    return USERS[id]"]];
        let joined: Vec<String> = pieces.iter().map(|p| p.join(" ")).collect();
        let whole = Lexical::build(&joined);
        let parts = Lexical::build_from(pieces.len(), |i, piece| pieces[i].iter().for_each(|p| piece(Input::Text(p))));
        assert_eq!(parts.inverted.by_document(), whole.inverted.by_document());
        assert_eq!(parts.embedder.avgdl(), whole.embedder.avgdl());
        let repeated = Lexical::build_from(pieces.len(), |i, piece| {
            piece(Input::Repeated(pieces[i][0], 2));
            pieces[i][2..].iter().for_each(|p| piece(Input::Text(p)));
        });
        assert_eq!(repeated.inverted.by_document(), whole.inverted.by_document());
    }

    /// A text's lines split ahead ([`LineTerms`]) give the terms the text
    /// gives, line by line and all together; and its names', name by name.
    #[test]
    fn line_terms_are_the_texts_terms_by_line() {
        let text = "def getUser(id):\r\n    \"\"\"Fetch the user.\"\"\"\n\n    return USERS[id]  # naïve\nlast";
        let names = ["getUser", "", "operator()", "naïve_café"];
        let lines = Splitter::default().split(text, names);
        assert!(lines.fits(text, names.len()));
        assert!(!lines.fits("one line", names.len()));
        assert!(!lines.fits(text, names.len() + 1));
        let mut cache = WordTerms::default();
        for (at, name) in names.iter().enumerate() {
            let mut expected = Vec::new();
            cache.extend(name, &mut expected);
            assert_eq!(lines.name(at), Some(expected.as_slice()), "{name:?}");
        }
        assert_eq!(lines.name(names.len()), None);
        let mut all = Vec::new();
        for (at, line) in text.lines().enumerate() {
            let mut expected = Vec::new();
            cache.extend(line, &mut expected);
            assert_eq!(lines.line(at as u32), Some(expected.as_slice()), "{line:?}");
            all.extend(expected);
        }
        assert_eq!(lines.line(text.lines().count() as u32), None);
        let mut whole = Vec::new();
        cache.extend(text, &mut whole);
        assert_eq!(all, whole, "no word spans two lines");
        let split = Lexical::build_from(1, |_, piece| {
            (0..5).for_each(|at| piece(Input::Terms(lines.line(at).unwrap())));
        });
        assert_eq!(split.inverted.by_document(), Lexical::build(&[text.to_owned()]).inverted.by_document());
    }
}
