//! "Which tests should I run for this change, and what else could break?"
//!
//! A change is a unified diff, a description, chosen symbols, or any mix.
//! It becomes seeds (changed definitions); `fathom_tests::recommend` walks
//! from them up the dependents to the tests linked there (the graph lane);
//! BM25 over test code, and embeddings when the caller has a query vector,
//! read the change's words (the text lanes): the description, or the diff's
//! added and removed lines and the changed names. The lanes are fused with
//! reciprocal rank fusion, k = 60. Every test carries its evidence: the
//! edge path from the change, the matched terms, the similarity. Once the
//! graph has found tests, a test found only by its words is kept, with
//! those words as its evidence (`make eval` measured it: see ARCHITECTURE).
//!
//! It abstains rather than guess: when nothing in the change is found in
//! the repository, when most of a description's words are unknown to it, or
//! when no test is linked to what changed.

use std::collections::{BTreeMap, HashMap};

use fathom_graph::NodeId;
use fathom_model::{Language, SymbolKind};
use fathom_query::{Hop, NodeRef, Reached};
use fathom_search::retrieval::{RankedHit, is_test_path};
use fathom_search::tokens::Terms;
use fathom_tests::change::{ChangedFile, parse_diff};
use fathom_tests::recommend::{GraphHit, Seed, graph_lane};
use serde::Serialize;

use crate::{Index, SearchMode, SearchOptions, TestFilter};

/// The fusion constant of reciprocal rank fusion.
pub const RRF_K: f32 = 60.0;
/// How many tests a text lane offers to the fusion.
const TEXT_LANE_DEPTH: usize = 50;
/// How many tests of one test file the naming lane offers.
const TESTS_PER_NAMED_FILE: usize = 5;
/// How much of one changed definition's text the scripts lane reads, and
/// of all of them, in bytes.
const SCRIPT_WORDS_PER_DEFINITION: usize = 8 * 1024;
const SCRIPT_WORDS: usize = 16 * 1024;
/// A description whose known words cover less than this is not understood.
const MIN_COVERAGE: f32 = 0.5;

/// What changed: any of a diff, a description and symbols.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct Change {
    pub diff: Option<String>,
    pub text: Option<String>,
    #[serde(default)]
    pub symbols: Vec<String>,
    /// How many tests to return (default 20).
    pub k: Option<usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct TestsFor {
    /// The definitions the change was read as, with why.
    pub changed: Vec<Changed>,
    /// Best first; empty when it abstains.
    pub tests: Vec<RecommendedTest>,
    /// What depends on the changed definitions, by package (4 hops).
    pub impact: Vec<ImpactGroup>,
    pub abstained: bool,
    /// Why it abstained, or what it could not use (unknown symbols, files).
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Changed {
    pub symbol: NodeRef,
    /// `diff`, `symbol` or `text`.
    pub from: &'static str,
    pub weight: f32,
}

#[derive(Clone, Debug, Serialize)]
pub struct RecommendedTest {
    pub test: NodeRef,
    pub score: f32,
    /// 1-based rank in each lane that found it.
    pub graph_rank: Option<u32>,
    pub lexical_rank: Option<u32>,
    pub dense_rank: Option<u32>,
    /// The graph lane's score: the product of the confidences along the path.
    pub graph_score: Option<f32>,
    /// From the change to the tested definition, then the `TESTS` edge.
    pub path: Vec<Hop>,
    pub matched_terms: Vec<String>,
    pub similarity: Option<f32>,
}

impl RecommendedTest {
    /// A test before any lane has ranked it.
    fn unranked(graph: &fathom_graph::CodeGraph, test: NodeId) -> RecommendedTest {
        RecommendedTest {
            test: NodeRef::new(graph, test),
            score: 0.0,
            graph_rank: None,
            lexical_rank: None,
            dense_rank: None,
            graph_score: None,
            path: Vec::new(),
            matched_terms: Vec::new(),
            similarity: None,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ImpactGroup {
    pub package: String,
    pub dependents: Vec<Reached>,
}

impl Index {
    /// Tests to run for a change, with their evidence, and its impact.
    /// `query_vector` embeds the description (for the dense lane), if any.
    pub fn tests_for(
        &self,
        change: &Change,
        query_vector: Option<&[f32]>,
    ) -> Result<TestsFor, fathom_tests::change::DiffError> {
        let k = change.k.unwrap_or(20).clamp(1, 500);
        let mut notes = Vec::new();
        let mut changed: Vec<Changed> = Vec::new();
        let mut words = String::new();

        // The diff's own lines, for the text lanes when there is no description.
        let mut diff_words = String::new();
        if let Some(diff) = change.diff.as_deref().filter(|d| !d.trim().is_empty()) {
            for file in parse_diff(diff)? {
                self.changed_in_file(&file, &mut changed, &mut notes);
                diff_words.push_str(&file.text);
            }
        }
        for name in &change.symbols {
            match fathom_query::find_symbol(&self.graph, name) {
                Ok(ids) if !ids.is_empty() => changed.extend(ids.into_iter().map(|id| Changed {
                    symbol: NodeRef::new(&self.graph, id),
                    from: "symbol",
                    weight: 1.0,
                })),
                _ => notes.push(format!("no symbol named `{name}` in this repository")),
            }
        }
        let mut coverage = None;
        if let Some(text) = change.text.as_deref().filter(|t| !t.trim().is_empty()) {
            words.push_str(text);
            let options = SearchOptions {
                k: 10,
                filter: crate::SearchFilter { tests: TestFilter::Exclude, ..Default::default() },
                ..SearchOptions::default()
            };
            let results = self.rank(text, &options, query_vector, None);
            let terms = Terms::default().terms(text);
            let known: std::collections::HashSet<&String> =
                results.hits.iter().flat_map(|h| &h.explain.matched_terms).collect();
            let unknown: Vec<&String> = terms.iter().filter(|t| !known.contains(t)).collect();
            let covered = if terms.is_empty() { 0.0 } else { 1.0 - unknown.len() as f32 / terms.len() as f32 };
            coverage = Some(covered);
            if !unknown.is_empty() {
                let unknown_words = surface_words(text, &unknown);
                notes.push(format!(
                    "words of the description found nowhere in the top matches: {}",
                    unknown_words.join(", ")
                ));
            }
            if covered >= MIN_COVERAGE {
                let best = results.hits.first().map_or(1.0, |h| h.score.max(f64::EPSILON)) as f32;
                changed.extend(results.hits.iter().take(5).map(|hit| Changed {
                    symbol: NodeRef::new(&self.graph, hit.node),
                    from: "text",
                    weight: (hit.score as f32 / best).clamp(0.0, 1.0),
                }));
            }
        }

        // The graph lane.
        let seeds: Vec<Seed> =
            changed.iter().map(|c| Seed { node: NodeId::new(c.symbol.id as usize), weight: c.weight }).collect();
        let graph_hits = graph_lane(&self.graph, &seeds);
        // The text lanes read the description, or the changed names and lines.
        if words.is_empty() {
            words = changed.iter().map(|c| c.symbol.name.clone()).collect::<Vec<_>>().join(" ");
            words.push('\n');
            words.push_str(&diff_words);
        }
        let text_options = |mode| SearchOptions {
            k: TEXT_LANE_DEPTH,
            mode,
            expand: false,
            // The tests alone: a vendored test framework in the test folder
            // shares every word of a change to the code it tests, and its
            // chunks would fill the lane.
            filter: crate::SearchFilter { tests: TestFilter::Runnable, ..Default::default() },
            // A diff's lines are many, but they are code to match, not a report.
            read_report: false,
            ..SearchOptions::default()
        };
        let lexical = if words.is_empty() {
            Vec::new()
        } else {
            self.rank(&words, &text_options(SearchMode::Lexical), None, None).hits
        };
        let dense = match query_vector {
            Some(v) if !words.is_empty() => self.rank(&words, &text_options(SearchMode::Dense), Some(v), None).hits,
            _ => Vec::new(),
        };

        // The scripts lane: a test script or case file runs the program as a
        // whole, so no call links it to what changed; it spells the changed
        // code's words in its cases (`@uri` for the function that formats
        // URIs). It reads the changed definitions' text, not only the
        // changed lines.
        let scripts = self.scripts_lane(&changed, &diff_words);

        // The tests of files named like the changed files (`test_fields.py`
        // for `fields.py`, `unittest_brain_builtin.py` for
        // `brain_builtin_inference.py`, `unit-json_pointer.cpp` for
        // `json_pointer.hpp`): a project's own convention for where a file's
        // tests live, evidence beside the calls (which reach the tests of
        // every caller too) and the only evidence where no call is linked.
        let named_like = self.tests_named_like(&changed);
        let unknown_text = coverage.is_some_and(|c| c < MIN_COVERAGE);
        let abstain_why = if changed.is_empty() && unknown_text {
            Some("the description names nothing this repository holds".to_owned())
        } else if changed.is_empty() {
            Some("nothing in the change was found in this repository".to_owned())
        } else if graph_hits.is_empty() && named_like.is_empty() && lexical.is_empty() && scripts.is_empty() {
            let names: Vec<&str> = changed.iter().map(|c| c.symbol.qualified_name.as_str()).collect();
            Some(format!("no test is linked to what changed ({}), and none shares its name or words", names.join(", ")))
        } else {
            None
        };
        if graph_hits.is_empty() && abstain_why.is_none() {
            let names: Vec<&str> = changed.iter().map(|c| c.symbol.qualified_name.as_str()).collect();
            notes.push(format!(
                "no test is linked to what changed ({}): these tests are named like its files or share its words",
                names.join(", ")
            ));
        }
        let impact = self.impact_of(&seeds);
        if let Some(why) = abstain_why {
            notes.push(why);
            return Ok(TestsFor { changed, tests: Vec::new(), impact, abstained: true, notes });
        }
        let tests = self.fuse(&graph_hits, &named_like, &lexical, &scripts, &dense, k);
        Ok(TestsFor { changed, tests, impact, abstained: false, notes })
    }

    /// The project's test scripts and case files ([`Language::Text`]) that
    /// share the changed definitions' words, best first; none where the
    /// project has none.
    fn scripts_lane(&self, changed: &[Changed], diff_words: &str) -> Vec<RankedHit> {
        if changed.is_empty() || !self.graph.files().iter().any(|f| f.language == Language::Text) {
            return Vec::new();
        }
        let mut words = diff_words.to_owned();
        for c in changed {
            let Some(body) = self.code(NodeId::new(c.symbol.id as usize)) else { continue };
            let cut = body.floor_char_boundary(SCRIPT_WORDS_PER_DEFINITION);
            words.push('\n');
            words.push_str(&body[..cut]);
            if words.len() > SCRIPT_WORDS {
                break;
            }
        }
        let options = SearchOptions {
            k: TEXT_LANE_DEPTH,
            mode: SearchMode::Lexical,
            expand: false,
            filter: crate::SearchFilter {
                tests: TestFilter::Runnable,
                languages: vec![Language::Text.name().to_owned()],
                ..Default::default()
            },
            read_report: false,
            ..SearchOptions::default()
        };
        self.rank(&words[..words.floor_char_boundary(SCRIPT_WORDS)], &options, None, None).hits
    }

    /// The innermost definitions holding the changed lines of one file.
    fn changed_in_file(&self, file: &ChangedFile, changed: &mut Vec<Changed>, notes: &mut Vec<String>) {
        if file.added {
            notes.push(format!("{} is a new file: nothing of it is indexed", file.path));
            return;
        }
        // Diff paths may carry the archive's root folder, or lack it.
        let Some(&at) = self.by_path.get(&file.path).or_else(|| {
            self.by_path
                .iter()
                .find(|(p, _)| file.path.ends_with(p.as_str()) || p.ends_with(&file.path))
                .map(|(_, at)| at)
        }) else {
            notes.push(format!("{} is not in the index", file.path));
            return;
        };
        // The file's definitions, gathered once rather than per changed line.
        let in_file: Vec<(NodeId, &fathom_graph::Node)> = self
            .graph
            .nodes()
            .filter(|(_, n)| n.file.is_some_and(|f| f.0 == at) && n.kind != SymbolKind::Package)
            .collect();
        let mut found: BTreeMap<u32, NodeId> = BTreeMap::new();
        for &line in &file.lines {
            let innermost = in_file
                .iter()
                .filter(|(_, n)| n.span.start_line <= line && line <= n.span.end_line)
                .min_by_key(|(_, n)| n.span.end_line - n.span.start_line);
            if let Some(&(id, _)) = innermost {
                found.insert(id.index() as u32, id);
            }
        }
        changed.extend(found.into_values().map(|id| Changed {
            symbol: NodeRef::new(&self.graph, id),
            from: "diff",
            weight: 1.0,
        }));
    }

    fn impact_of(&self, seeds: &[Seed]) -> Vec<ImpactGroup> {
        let ids: Vec<NodeId> = seeds.iter().map(|s| s.node).collect();
        let reached =
            fathom_query::impact(&self.graph, &ids, fathom_tests::recommend::MAX_HOPS as u32).unwrap_or_default();
        let mut groups: BTreeMap<String, Vec<Reached>> = BTreeMap::new();
        for r in reached {
            let package =
                r.node.file.as_deref().and_then(|f| f.rsplit_once('/')).map_or(".", |(dir, _)| dir).to_owned();
            groups.entry(package).or_default().push(r);
        }
        groups.into_iter().map(|(package, dependents)| ImpactGroup { package, dependents }).collect()
    }

    /// Tests in test files named like the changed definitions' files, best
    /// named first: the share of the two names' words they have in common
    /// (`test`, `tests` and `unittest` aside), a folder's name counting half.
    fn tests_named_like(&self, changed: &[Changed]) -> Vec<NodeId> {
        fn words(part: &str) -> Vec<String> {
            fathom_search::tokens::split_identifier(part)
                .into_iter()
                .map(str::to_lowercase)
                .filter(|w| !matches!(w.as_str(), "test" | "tests" | "unittest" | "spec" | "py" | "src"))
                .collect()
        }
        fn stem(path: &str) -> &str {
            let name = path.rsplit('/').next().unwrap_or(path);
            name.split('.').next().unwrap_or(name)
        }
        // Each changed file's words and its folders' words, found once.
        let changed_files: Vec<(Vec<String>, Vec<String>)> = {
            let mut files: Vec<&str> = changed.iter().filter_map(|c| c.symbol.file.as_deref()).collect();
            files.sort_unstable();
            files.dedup();
            files
                .into_iter()
                .map(|file| (words(stem(file)), file.split('/').rev().skip(1).flat_map(words).collect()))
                .collect()
        };
        let mut scored: Vec<(f32, &str)> = Vec::new();
        for test_file in self.graph.files().iter().map(|f| f.path.as_str()).filter(|p| is_test_path(p)) {
            let test_words = words(stem(test_file));
            let score = changed_files
                .iter()
                .map(|(file_words, folders)| {
                    let shared = test_words.iter().filter(|w| file_words.contains(w)).count() as f32
                        + 0.5
                            * test_words.iter().filter(|w| !file_words.contains(w) && folders.contains(w)).count()
                                as f32;
                    let all = (test_words.len() + file_words.len()) as f32 - shared;
                    if all > 0.0 { shared / all } else { 0.0 }
                })
                .fold(0.0, f32::max);
            if score > 0.0 {
                scored.push((score, test_file));
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let mut tests = Vec::new();
        for (_, file) in scored.into_iter().take(TEXT_LANE_DEPTH) {
            let Some(&at) = self.by_path.get(file) else { continue };
            let runnable = self.graph.nodes().filter(|(_, n)| n.file.is_some_and(|f| f.0 == at) && n.is_test());
            tests.extend(runnable.map(|(id, _)| id).take(TESTS_PER_NAMED_FILE));
        }
        tests
    }

    /// Reciprocal rank fusion of the graph lane, the naming lane and the
    /// text lanes.
    fn fuse(
        &self,
        graph: &[GraphHit],
        named_like: &[NodeId],
        lexical: &[RankedHit],
        scripts: &[RankedHit],
        dense: &[RankedHit],
        k: usize,
    ) -> Vec<RecommendedTest> {
        let mut by_test: HashMap<NodeId, RecommendedTest> = HashMap::new();
        let mut fused: HashMap<NodeId, f32> = HashMap::new();
        for (rank, &test) in named_like.iter().enumerate() {
            *fused.entry(test).or_default() += 1.0 / (RRF_K + rank as f32 + 1.0);
            by_test.entry(test).or_insert_with(|| RecommendedTest::unranked(&self.graph, test));
        }
        for (rank, hit) in graph.iter().enumerate() {
            *fused.entry(hit.test).or_default() += 1.0 / (RRF_K + rank as f32 + 1.0);
            let t = by_test.entry(hit.test).or_insert_with(|| RecommendedTest::unranked(&self.graph, hit.test));
            t.graph_rank = Some(rank as u32 + 1);
            t.graph_score = Some((hit.score * 1000.0).round() / 1000.0);
            t.path = hit.path.clone();
        }
        for (lane, hits) in [("lexical", lexical), ("lexical", scripts), ("dense", dense)] {
            for (rank, hit) in hits.iter().enumerate() {
                let id = hit.node;
                // The lanes search the tests and the code inside them; code
                // inside a test (a nested function) cannot be run on its own,
                // and ranks only where the graph lane listed it.
                let runnable = self.graph.node(id).is_test();
                if !runnable && !by_test.contains_key(&id) {
                    continue;
                }
                *fused.entry(id).or_default() += 1.0 / (RRF_K + rank as f32 + 1.0);
                let t = by_test.entry(id).or_insert_with(|| RecommendedTest::unranked(&self.graph, id));
                if lane == "lexical" {
                    // A script found by both word lanes shows its better rank.
                    let rank = t.lexical_rank.map_or(rank as u32 + 1, |r| r.min(rank as u32 + 1));
                    t.lexical_rank = Some(rank);
                    if t.matched_terms.is_empty() {
                        t.matched_terms = hit.explain.matched_terms.clone();
                    }
                } else {
                    t.dense_rank = Some(rank as u32 + 1);
                    t.similarity = hit.explain.similarity.map(|s| s as f32);
                }
            }
        }
        let mut tests: Vec<RecommendedTest> = by_test
            .into_iter()
            .map(|(id, mut t)| {
                t.score = (fused[&id] * 10_000.0).round() / 10_000.0;
                t
            })
            .collect();
        tests.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.test.qualified_name.cmp(&b.test.qualified_name)));
        tests.truncate(k);
        tests
    }
}

/// The description's own words whose terms (stemmed, split) are all in
/// `unknown`, in order, once each: "invoice", not the stem "invoic".
fn surface_words<'t>(text: &'t str, unknown: &[&String]) -> Vec<&'t str> {
    let terms = Terms::default();
    let mut words: Vec<&str> = Vec::new();
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()) {
        let of_word = terms.terms(word);
        if !of_word.is_empty() && of_word.iter().all(|t| unknown.contains(&t)) && !words.contains(&word) {
            words.push(word);
        }
    }
    words
}
