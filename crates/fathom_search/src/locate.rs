//! "Where is the code this bug report is about?": files, best first, each
//! with the evidence that put it there.
//!
//! A report is read apart ([`Issue`]) and each part becomes evidence about
//! files:
//! - the words, by BM25 over the chunks, grouped to files by their best
//!   chunk, with a little of the next ones;
//! - the names the report uses, resolved to definitions: a name defined in
//!   one place says more than one defined in twenty (`specificity`), and a
//!   name written in code or imported more than one that only looks like
//!   code in prose;
//! - the modules and files it names (`from a.b import c`, `a/b.py`, the
//!   word `L031` for `rules/L031.py`);
//! - the frames of its tracebacks that lie in the repository;
//! - the graph: a file one call, import or inheritance away from a named
//!   definition gets a damped share of that definition's evidence (fixes
//!   often land one hop from the name the report gives);
//! - a prior: tests, docs, examples and build scripts are rarely where a
//!   fix lands; they stay findable, below the source.

use std::collections::HashMap;

use fathom_graph::{CodeGraph, EdgeKind, NodeId};
use fathom_model::SymbolKind;
use serde::Serialize;

use crate::chunks::Sources;
use crate::issue::{Issue, Place};
use crate::retrieval::{Lane, Meaning, Retrieval};
use crate::roles::Family;
pub use crate::roles::Role;
use crate::{MatchKind, NameIndex};

/// How many chunks the word lane reads.
const WORD_DEPTH: usize = 400;
/// A phrase found in more files than this is a common one.
const MAX_PHRASE_FILES: usize = 5;

/// Pairs of the report's words, next to each other, that together spell a
/// file's stem the report does not write as one word: "man page" for
/// `manpage.py`, "index entries" for `indexentries.py`. Each part is a word
/// of three letters or more; only a space or a hyphen may stand between
/// them. Once each, lower case, in order.
fn spelled_stems(text: &str, is_stem: impl Fn(&str) -> bool) -> Vec<String> {
    let written: std::collections::HashSet<String> =
        text.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase).collect();
    let joinable = |w: &str| w.len() >= 3 && w.chars().all(char::is_alphabetic);
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        // A word joins the one before it when one space or hyphen parts them.
        let mut previous: Option<&str> = None;
        let mut rest = line;
        while let Some(start) = rest.find(char::is_alphanumeric) {
            let gap = &rest[..start];
            let after = &rest[start..];
            let end = after.find(|c: char| !c.is_alphanumeric()).unwrap_or(after.len());
            let word = &after[..end];
            if let Some(first) = previous.filter(|p| matches!(gap, " " | "-") && joinable(p) && joinable(word)) {
                let joined = format!("{first}{word}").to_lowercase();
                if !written.contains(&joined) && is_stem(&joined) && !out.contains(&joined) {
                    out.push(joined);
                }
            }
            previous = Some(word);
            rest = &after[end..];
        }
    }
    out
}

/// A definition the report names, as found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Named {
    pub node: NodeId,
    /// The mention as the report wrote it.
    pub mention: String,
    /// 1 / how many definitions answer to the mention.
    pub specificity: f64,
    pub place: Place,
    pub imported: bool,
}

/// Everything known about one file.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FileEvidence {
    pub file: String,
    pub role: Option<Role>,
    /// Why the file has its role, where it is not plain source.
    pub role_why: Option<String>,
    /// The files it is generated from (an amalgamation's): it is ranked
    /// as their companion, right below the best of them.
    #[serde(skip)]
    pub follows: Vec<String>,
    /// 1-based rank of the file by its best chunk's BM25 score.
    pub word_rank: Option<u32>,
    /// Its best chunk's score over the best file's.
    pub word_score: f64,
    /// How much of the lane the file holds: the sum of its chunks' scores
    /// (each over the lane's best) among the lane's first chunks, over 3.
    pub word_mass: f64,
    /// The matched terms of its best chunk.
    pub word_chunk: Option<usize>,
    /// Definitions in the file that the report names.
    pub named: Vec<Named>,
    /// The file's module is named (imported, or a prefix of a dotted name).
    pub module_named: f64,
    /// The report's title names one of the file's definitions in code
    /// (`PersonName3`, `` `from_iso_datetime` ``): the best such name's
    /// specificity.
    pub title_named: f64,
    pub title_mention: Option<String>,
    /// Words of the title, in a row, spell part of a definition's name
    /// ("ambiguous VR element", `correct_ambiguous_vr_element`): the share
    /// of the name they spell over how many files hold such a definition;
    /// the best such definition's name.
    pub title_run: f64,
    pub title_run_name: Option<String>,
    /// The report names the file's path or its name (`a/b.py`, `b.py`):
    /// 1 / how many files answer to it.
    pub path_named: f64,
    /// A word of the report is the file's stem (`filewriter`), and a
    /// code-shaped one (`L031`, `brain_typing`).
    pub stem_named: f64,
    pub stem_coded: f64,
    /// Phrases of the report found in the file as they are, each counted
    /// 1 / how many files hold it.
    pub phrases: f64,
    /// The longest of those phrases (at most three).
    pub phrase_texts: Vec<String>,
    /// The file's rank and relative score by the words of the report's
    /// code alone, and of its prose alone.
    pub code_rank: Option<u32>,
    pub code_score: f64,
    pub prose_rank: Option<u32>,
    pub prose_score: f64,
    /// The file's rank and relative similarity by the report's MiniLM
    /// embedding, and by its static one.
    pub dense_rank: Option<u32>,
    pub dense_score: f64,
    pub static_rank: Option<u32>,
    pub static_score: f64,
    /// Frames of a traceback in the file, as the lowest depth.
    pub frame_depth: Option<u32>,
    /// The lines its frames name, each with the frame's function.
    pub frame_lines: Vec<(u32, Option<String>)>,
    /// A compiler's diagnostic or a log line names a line of the file: 1
    /// for the first such location of the report, 1/2 for the second, …
    pub logged: f64,
    /// The best share reached through an edge from a named definition.
    pub neighbour: f64,
    pub neighbour_of: Option<(NodeId, EdgeKind)>,
}

/// A report's title: its first line, where that is prose with more below.
fn report_title(text: &str) -> Option<&str> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    match (lines.next(), lines.next()) {
        (Some(title), Some(_)) if !crate::issue::is_fence(title) && crate::issue::python_frame(title).is_none() => {
            Some(title)
        }
        _ => None,
    }
}

/// The names of a graph, by exact text, for resolving mentions.
struct Resolver<'g> {
    graph: &'g CodeGraph,
    names: &'g NameIndex,
}

impl Resolver<'_> {
    /// The definitions that answer to `text` exactly: a dotted path by the
    /// suffix of qualified names, dropping leading segments (a variable, an
    /// alias) until something answers; a plain name by name. Externals and
    /// packages are left out.
    fn resolve(&self, text: &str) -> Vec<NodeId> {
        let text = text.strip_prefix("self.").or_else(|| text.strip_prefix("cls.")).unwrap_or(text);
        let segments: Vec<&str> = text.split('.').collect();
        for from in 0..segments.len() {
            let candidate = segments[from..].join(".");
            if candidate.len() < 2 {
                continue;
            }
            let hits: Vec<NodeId> = self
                .names
                .search(self.graph, &candidate, 64)
                .into_iter()
                .filter(|h| h.match_kind == MatchKind::Exact)
                .map(|h| h.node)
                .filter(|&n| {
                    let node = self.graph.node(n);
                    !node.is_external && node.kind != SymbolKind::Package && node.file.is_some()
                })
                .collect();
            if !hits.is_empty() {
                // A plain name must agree in case where some do.
                let same_case: Vec<NodeId> =
                    hits.iter().copied().filter(|&n| self.graph.node(n).qualified_name.ends_with(&candidate)).collect();
                return if same_case.is_empty() { hits } else { same_case };
            }
        }
        // A name the reporter's version had with a number (`PersonName3`,
        // since renamed `PersonName`).
        let stripped = text.trim_end_matches(|c: char| c.is_ascii_digit());
        if stripped.len() < text.len() && stripped.len() >= 4 && !stripped.ends_with(['.', '_']) {
            return self.resolve(stripped);
        }
        Vec::new()
    }
}

/// What locating found: every file with evidence, unranked.
pub struct Evidence {
    pub issue: Issue,
    pub files: Vec<FileEvidence>,
}

/// How each kind of evidence counts. Fitted on `make eval`'s localisation
/// set (coordinate search over a coarse grid: `scripts/dev/locate-fit.py`
/// offline); `make eval` reports leave-one-repository-out figures beside the
/// fitted ones; see bench/PERFORMANCE.md. Every answer records them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Weights {
    /// The whole report's words: `word × (k + 1) / (k + rank) × score^exponent`.
    pub word: f64,
    pub word_exponent: f64,
    pub rank_k: f64,
    /// The file's share of the lane ([`FileEvidence::word_mass`]).
    pub word_mass: f64,
    /// The words of the report's code alone, and of its prose alone.
    pub code: f64,
    pub prose: f64,
    /// The embeddings' lane, read like the others. MiniLM's mean over a
    /// report's segments ties the lexical reading at 0.15 and less, and
    /// costs Acc@1 from 0.25 on (83 of the set's reports, see
    /// bench/PERFORMANCE.md): a tie-breaker.
    pub dense: f64,
    /// The static lane's, read the same way. It costs Acc@1 at every weight
    /// tried (0.025 to 0.8, and sharper shapings of its scores): a report's
    /// mean vector points at the repository's commonest topics, not at the
    /// fix. Gathered, so it can be studied, and weighed at 0.
    pub statics: f64,
    /// Named definitions: the sum of their specificities, capped; a name
    /// written in prose counts `name_prose` as much, an imported one
    /// `1 + name_import` times, a dotted one `1 + name_dotted` times.
    pub name: f64,
    pub name_cap: f64,
    pub name_prose: f64,
    pub name_import: f64,
    pub name_dotted: f64,
    pub module: f64,
    /// A definition the title names, by its specificity: after a path
    /// written out, the surest sign (0.77 of such source files are fixed,
    /// against 0.74 for paths and 0.35 for names anywhere).
    pub title_named: f64,
    /// The title's words spelling a definition's name ([`FileEvidence::title_run`]).
    pub title_run: f64,
    pub path: f64,
    /// A file's stem as a word of the report; as a code-shaped word
    /// (`LT12`, `brain_typing`), nearly as sure a sign as a path.
    pub stem: f64,
    pub stem_coded: f64,
    pub phrase: f64,
    pub phrase_cap: f64,
    /// A frame at depth `d` (0 where it raised) counts `frame × decay^d`.
    pub frame: f64,
    pub frame_decay: f64,
    /// A location a diagnostic or a log line names ([`FileEvidence::logged`]).
    pub logged: f64,
    pub neighbour: f64,
    /// Factors for tests; for docs, examples and build scripts; and for
    /// code that is not the project's own (vendored, generated).
    pub test: f64,
    pub aside: f64,
    pub foreign: f64,
    /// A generated file's companion score: this share of the best score
    /// among the files it is generated from (0: none).
    pub companion: f64,
}

pub const WEIGHTS: Weights = Weights {
    word: 2.0,
    word_exponent: 2.0,
    rank_k: 30.0,
    word_mass: 0.5,
    code: 0.5,
    prose: 0.0,
    dense: 0.1,
    statics: 0.0,
    name: 0.1,
    name_cap: 1.5,
    name_prose: 0.3,
    name_import: 1.0,
    name_dotted: 0.5,
    module: 0.0,
    title_named: 4.0,
    title_run: 2.5,
    path: 8.0,
    stem: 0.1,
    stem_coded: 3.0,
    phrase: 3.0,
    phrase_cap: 2.0,
    frame: 0.5,
    frame_decay: 0.5,
    logged: 0.5,
    neighbour: 0.2,
    test: 0.05,
    aside: 0.05,
    foreign: 0.05,
    companion: 0.99,
};

impl Weights {
    /// A file's score from its evidence.
    pub fn score(&self, f: &FileEvidence) -> f64 {
        let lane = |weight: f64, rank: Option<u32>, score: f64| {
            rank.map_or(0.0, |r| {
                weight * (self.rank_k + 1.0) / (self.rank_k + f64::from(r)) * score.powf(self.word_exponent)
            })
        };
        let mut s = lane(self.word, f.word_rank, f.word_score)
            + self.word_mass * f.word_mass
            + lane(self.code, f.code_rank, f.code_score)
            + lane(self.prose, f.prose_rank, f.prose_score)
            + lane(self.dense, f.dense_rank, f.dense_score)
            + lane(self.statics, f.static_rank, f.static_score);
        let named: f64 = f
            .named
            .iter()
            .map(|n| {
                let mut v = n.specificity;
                if n.place == Place::Prose {
                    v *= self.name_prose;
                }
                if n.imported {
                    v *= 1.0 + self.name_import;
                }
                if n.mention.contains('.') {
                    v *= 1.0 + self.name_dotted;
                }
                v
            })
            .sum();
        s += self.name * named.min(self.name_cap);
        s += self.module * f.module_named
            + self.title_named * f.title_named
            + self.title_run * f.title_run
            + self.path * f.path_named;
        s += self.stem * f.stem_named + self.stem_coded * f.stem_coded;
        s += self.phrase * f.phrases.min(self.phrase_cap);
        if let Some(depth) = f.frame_depth {
            s += self.frame * self.frame_decay.powi(depth as i32);
        }
        s += self.logged * f.logged;
        s += self.neighbour * f.neighbour;
        s * match f.role.map(Role::family) {
            Some(Family::Test) => self.test,
            Some(Family::Aside) => self.aside,
            Some(Family::Foreign) => self.foreign,
            _ => 1.0,
        }
    }
}

/// A file a report points at, with its score and evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Located {
    pub score: f64,
    pub evidence: FileEvidence,
}

/// A definition inside a located file and why it is worth opening.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocatedSymbol {
    pub node: NodeId,
    pub why: Vec<String>,
}

/// A located file, explained: what put it there, in words, and the
/// definitions to open in it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Explained {
    pub file: String,
    pub score: f64,
    pub reasons: Vec<String>,
    pub symbols: Vec<LocatedSymbol>,
    pub evidence: FileEvidence,
}

impl Weights {
    /// Every file's score, a generated file's raised to follow the best of
    /// the files it is generated from.
    pub fn scores(&self, files: &[FileEvidence]) -> Vec<f64> {
        let mut scores: Vec<f64> = files.iter().map(|f| self.score(f)).collect();
        if self.companion > 0.0 && files.iter().any(|f| !f.follows.is_empty()) {
            let by_path: HashMap<&str, f64> =
                files.iter().map(|f| f.file.as_str()).zip(scores.iter().copied()).collect();
            for (at, f) in files.iter().enumerate() {
                let best = f.follows.iter().filter_map(|p| by_path.get(p.as_str())).fold(0.0f64, |a, &b| a.max(b));
                scores[at] = scores[at].max(self.companion * best);
            }
        }
        scores
    }

    /// The files, best first; files with no score are left out.
    pub fn rank(&self, files: Vec<FileEvidence>) -> Vec<Located> {
        let scores = self.scores(&files);
        let mut located: Vec<Located> = files
            .into_iter()
            .zip(scores)
            .map(|(evidence, score)| Located { score, evidence })
            .filter(|l| l.score > 0.0)
            .collect();
        located.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.evidence.file.cmp(&b.evidence.file)));
        located
    }
}

/// A lane's file: its best chunk, that chunk's score over the lane's best,
/// and the file's mass (the sum of its chunks' relative scores).
struct LaneFile<'g> {
    path: &'g str,
    chunk: usize,
    relative: f64,
    mass: f64,
}

impl Retrieval {
    /// A lane's ranked chunks grouped into files, in the order of each
    /// file's best chunk.
    fn by_file<'g>(&self, graph: &'g CodeGraph, ranked: Vec<(u32, f32)>) -> Vec<LaneFile<'g>> {
        let best = ranked.first().map_or(1.0, |&(_, score)| f64::from(score.max(f32::EPSILON)));
        let mut files: Vec<LaneFile<'g>> = Vec::new();
        let mut at: HashMap<&'g str, usize> = HashMap::new();
        for (chunk, score) in ranked {
            let Some(path) = graph.path_of(self.chunks()[chunk as usize].node) else { continue };
            let relative = f64::from(score) / best;
            match at.get(path) {
                Some(&i) => files[i].mass += relative,
                None => {
                    at.insert(path, files.len());
                    files.push(LaneFile { path, chunk: chunk as usize, relative, mass: relative });
                }
            }
        }
        files
    }

    /// Gathers the evidence about every file a report points at. With
    /// `meaning`, the dense lane adds its own: MiniLM's where
    /// `query_vector`, the report's embedding, is given and the chunks are
    /// embedded, else the static table's where it is built, even at weight
    /// 0 (for studying it, as `make eval`'s dump does).
    pub fn evidence(&self, sources: &dyn Sources, text: &str, query_vector: Option<&[f32]>, meaning: bool) -> Evidence {
        let lane = if meaning { self.lane(text, query_vector) } else { None };
        self.evidence_by(sources, text, lane.as_ref())
    }

    /// The lane a report's ranking reads, of the lane a search has: none
    /// where [`WEIGHTS`] gives it no weight, so that no report is embedded
    /// or scanned for nothing.
    pub(crate) fn weighed<'l, 'r>(lane: Option<&'l Lane<'r>>) -> Option<&'l Lane<'r>> {
        lane.filter(|l| match l.meaning() {
            Meaning::Minilm => WEIGHTS.dense > 0.0,
            Meaning::Static => WEIGHTS.statics > 0.0,
        })
    }

    /// [`Retrieval::evidence`], with the dense lane already chosen.
    pub(crate) fn evidence_by(&self, sources: &dyn Sources, text: &str, lane: Option<&Lane<'_>>) -> Evidence {
        let graph = sources.graph();
        let text = &crate::issue::without_template(&crate::issue::untagged(text));
        let issue = Issue::read(text);
        let mut files: HashMap<&str, FileEvidence> = HashMap::new();
        fn entry<'a, 'p>(files: &'a mut HashMap<&'p str, FileEvidence>, path: &'p str) -> &'a mut FileEvidence {
            files.entry(path).or_insert_with(|| FileEvidence { file: path.to_owned(), ..FileEvidence::default() })
        }

        // Stems: `pydicom/filewriter.py` and `filewriter.py` name a file; so,
        // more loosely, does the bare word `filewriter`, or `L031`, or the
        // name written as two words (`man page` for `manpage.py`).
        let mut stems: HashMap<String, Vec<&str>> = HashMap::new();
        for f in graph.files() {
            let name = f.path.rsplit('/').next().unwrap_or(&f.path);
            let stem = name.split('.').next().unwrap_or(name).to_lowercase();
            if stem.len() >= 3 && stem != "__init__" {
                stems.entry(stem).or_default().push(&f.path);
            }
        }
        let spelled = spelled_stems(text, |joined| stems.contains_key(joined));

        // Words, and meaning where the chunks are embedded. A stem spelled
        // as two words is searched as the one word the code writes.
        let words = if spelled.is_empty() { text.to_owned() } else { format!("{text}\n\n{}", spelled.join(" ")) };
        for (rank, f) in self.by_file(graph, self.lexical().search(&words, WORD_DEPTH)).into_iter().enumerate() {
            let file = entry(&mut files, f.path);
            (file.word_rank, file.word_score, file.word_chunk) = (Some(rank as u32 + 1), f.relative, Some(f.chunk));
            file.word_mass = f.mass / 3.0;
        }
        if let Some(lane) = lane {
            let minilm = lane.meaning() == Meaning::Minilm;
            for (rank, f) in self.by_file(graph, lane.search(WORD_DEPTH)).into_iter().enumerate() {
                let file = entry(&mut files, f.path);
                let (lane_rank, lane_score) = if minilm {
                    (&mut file.dense_rank, &mut file.dense_score)
                } else {
                    (&mut file.static_rank, &mut file.static_score)
                };
                (*lane_rank, *lane_score) = (Some(rank as u32 + 1), f.relative);
            }
        }

        // Names; those in the title (written as code: `PersonName3`, a span
        // in backticks) say what the report is about, where the names its
        // example calls are often only the way in.
        let title = report_title(text);
        let titled: Vec<String> =
            title.map(|t| Issue::read(t).mentions.into_iter().map(|m| m.text).collect()).unwrap_or_default();
        let resolver = Resolver { graph, names: self.names() };
        for mention in &issue.mentions {
            let nodes = resolver.resolve(&mention.text);
            if nodes.is_empty() {
                continue;
            }
            let specificity = 1.0 / nodes.len() as f64;
            let in_title = titled.contains(&mention.text);
            for node in nodes {
                let Some(path) = graph.path_of(node) else { continue };
                let file = entry(&mut files, path);
                if in_title && specificity > file.title_named {
                    file.title_named = specificity;
                    file.title_mention = Some(mention.text.clone());
                }
                if graph.node(node).kind == SymbolKind::Module {
                    file.module_named = file.module_named.max(specificity);
                } else if !file.named.iter().any(|n| n.node == node) {
                    file.named.push(Named {
                        node,
                        mention: mention.text.clone(),
                        specificity,
                        place: mention.place,
                        imported: mention.imported,
                    });
                }
            }
        }

        // The title's words, in a row, spelling a definition's name: a
        // report says in words what the code says in identifiers.
        if let Some(title) = title {
            let terms = crate::tokens::Terms::default();
            // Definitions share most of their names' parts: each is stemmed
            // once a report.
            let mut stemmed: HashMap<String, String> = HashMap::new();
            let mut stem = |part: &str| match stemmed.get(part) {
                Some(s) => s.clone(),
                None => stemmed.entry(part.to_owned()).or_insert_with(|| terms.stem(part)).clone(),
            };
            let mut parts = |t: &str| -> Vec<String> {
                let mut parts = crate::tokens::stemmed_parts(t, &mut stem);
                parts.retain(|p| p.len() >= 2);
                parts
            };
            let title = parts(title);
            // Each run of two words or more, with the definitions it spells
            // the most of: (file, share of the name, name).
            // In order, so that ties name the same definition every time.
            let mut runs: std::collections::BTreeMap<&[String], Vec<(&str, f64, &str)>> =
                std::collections::BTreeMap::new();
            for (_, node) in graph.nodes() {
                if node.is_external || matches!(node.kind, SymbolKind::Module | SymbolKind::Package) {
                    continue;
                }
                let Some(file) = node.file else { continue };
                let name = parts(&node.name);
                if name.len() < 2 {
                    continue;
                }
                let mut best: &[String] = &[];
                for i in 0..title.len() {
                    for j in 0..name.len() {
                        let run = title[i..].iter().zip(&name[j..]).take_while(|(a, b)| a == b).count();
                        if run > best.len() {
                            best = &title[i..i + run];
                        }
                    }
                }
                if best.len() >= 2 {
                    let share = best.len() as f64 / name.len() as f64;
                    runs.entry(best).or_default().push((graph.file(file).path.as_str(), share, node.name.as_str()));
                }
            }
            for holders in runs.values() {
                // Tests are named for what they test: they spell the same.
                let spread = holders
                    .iter()
                    .filter(|h| self.roles().of(h.0).role != Role::Test)
                    .map(|h| h.0)
                    .collect::<std::collections::HashSet<_>>()
                    .len()
                    .max(1) as f64;
                for &(path, share, name) in holders {
                    let file = entry(&mut files, path);
                    if share / spread > file.title_run {
                        file.title_run = share / spread;
                        file.title_run_name = Some(name.to_owned());
                    }
                }
            }
        }

        // Paths and the stems above.
        let mut seen = std::collections::HashSet::new();
        // A traceback's frames name their files as frames, by depth, below;
        // an import names a module, which only the module resolved counts
        // (`from typing import TypeVar` is not about `astroid/typing.py`).
        let unframed: String = text
            .lines()
            .filter(|l| crate::issue::python_frame(l.trim()).is_none() && !crate::issue::is_import(l))
            .flat_map(|l| [l, "\n"])
            .collect();
        // Names an import binds, wherever it is written (`python -c "from
        // astroid import __pkginfo__; print(__pkginfo__.version)"`), are
        // that import's, not stems.
        let bound = crate::issue::imported_names(text);
        let mut coded_stems: Vec<(&str, f64)> = Vec::new();
        for token in
            unframed.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '(' | ')' | ',' | '[' | ']'))
        {
            // A link to a file names it too: `…/blob/<commit>/pkg/mod.py#L46`.
            let token = token.split(['#', '?']).next().unwrap_or(token);
            let token = token.trim_matches(|c: char| matches!(c, '.' | ':' | ';' | '!' | '?'));
            if token.len() < 3 || !seen.insert(token) {
                continue;
            }
            if crate::hints::is_source_path(token) {
                let wanted = token.trim_start_matches("./").trim_start_matches(".../");
                let found: Vec<&str> = graph
                    .files()
                    .iter()
                    .filter(|f| crate::retrieval::path_matches(&f.path, wanted))
                    .map(|f| f.path.as_str())
                    .collect();
                for path in &found {
                    let file = entry(&mut files, path);
                    file.path_named = file.path_named.max(1.0 / found.len() as f64);
                }
                continue;
            }
            for word in token.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                if bound.iter().any(|b| b == word) {
                    continue;
                }
                let lower = word.to_lowercase();
                let Some(paths) = stems.get(&lower) else { continue };
                let coded = crate::hints::looks_like_code(word) || word.chars().any(|c| c.is_ascii_digit());
                let specificity = 1.0 / paths.len() as f64;
                for path in paths {
                    if coded {
                        coded_stems.push((path, specificity));
                    } else {
                        let file = entry(&mut files, path);
                        file.stem_named = file.stem_named.max(specificity);
                    }
                }
            }
        }
        for joined in &spelled {
            let paths = &stems[joined];
            for path in paths {
                let file = entry(&mut files, path);
                file.stem_named = file.stem_named.max(1.0 / paths.len() as f64);
            }
        }
        // A report that lists many code-shaped file names (a linter's whole
        // output, `L001` to `L049`) names none of them in particular: past
        // three files, they share three files' worth.
        let named_files = coded_stems.iter().map(|(p, _)| *p).collect::<std::collections::HashSet<_>>().len();
        let share = (3.0 / named_files as f64).min(1.0);
        for (path, specificity) in coded_stems {
            let file = entry(&mut files, path);
            file.stem_coded = file.stem_coded.max(specificity * share);
        }

        // Phrases found as they are: error messages above all.
        let mut phrases = crate::issue::phrases(text);
        phrases.retain(|p| !issue.quoted.iter().any(|line| line.contains(p.as_str())));
        if !phrases.is_empty() {
            let automaton = aho_corasick::AhoCorasick::new(&phrases).expect("phrases are short literals");
            let mut holders: Vec<Vec<usize>> = vec![Vec::new(); phrases.len()];
            for at in 0..graph.files().len() {
                for found in automaton.find_overlapping_iter(sources.file_text(at)) {
                    let list = &mut holders[found.pattern().as_usize()];
                    if list.last() != Some(&at) {
                        list.push(at);
                    }
                }
            }
            for (index, list) in
                holders.iter().enumerate().filter(|(_, l)| !l.is_empty() && l.len() <= MAX_PHRASE_FILES)
            {
                let specificity = 1.0 / list.len() as f64;
                for &at in list {
                    let file = entry(&mut files, &graph.files()[at].path);
                    file.phrases += specificity;
                    file.phrase_texts.push(phrases[index].clone());
                }
            }
        }

        // The code and the prose apart, by their words.
        for (part, words) in [(0, &issue.code), (1, &issue.prose)] {
            if words.trim().is_empty() {
                continue;
            }
            for (rank, f) in self.by_file(graph, self.lexical().search(words, WORD_DEPTH)).into_iter().enumerate() {
                let file = entry(&mut files, f.path);
                let found = (Some(rank as u32 + 1), f.relative);
                if part == 0 {
                    (file.code_rank, file.code_score) = found;
                } else {
                    (file.prose_rank, file.prose_score) = found;
                }
            }
        }

        // Frames, each trace's from its innermost: a frame's depth counts
        // only the frames above it that lie in the repository, so that the
        // call into a dependency (or the runtime) is where it raised.
        let mut frames: Vec<&crate::issue::Frame> = issue.frames.iter().collect();
        frames.sort_by_key(|f| (f.trace, f.depth));
        let mut resolved_in: HashMap<u32, u32> = HashMap::new();
        for frame in frames {
            let wanted = frame.path.replace('\\', "/");
            let wanted = wanted.trim_start_matches("./").trim_start_matches(".../");
            let Some(found) = crate::retrieval::file_named(graph, wanted) else { continue };
            let file = entry(&mut files, &found.path);
            if frame.kind == crate::issue::Kind::Logged {
                // Said there, not raised there: the earlier, the surer.
                file.logged = file.logged.max(1.0 / f64::from(frame.depth + 1));
                continue;
            }
            let depth = resolved_in.entry(frame.trace).or_default();
            file.frame_lines.push((frame.line, frame.function.clone()));
            file.frame_depth = Some(file.frame_depth.map_or(*depth, |d| d.min(*depth)));
            *depth += 1;
        }

        // One hop from named definitions.
        let mut named: Vec<(NodeId, f64)> =
            files.values().flat_map(|f| f.named.iter().map(|n| (n.node, n.specificity))).collect();
        // In order, so that ties name the same edge every time.
        named.sort_unstable_by_key(|&(node, _)| node);
        for (node, specificity) in named {
            let edges = graph.outgoing(node).chain(graph.incoming(node));
            for (edge, neighbour) in edges {
                if !matches!(edge.kind, EdgeKind::Calls | EdgeKind::Inherits | EdgeKind::Imports) {
                    continue;
                }
                let n = graph.node(neighbour);
                if n.is_external || n.kind == SymbolKind::Package {
                    continue;
                }
                let Some(path) = graph.path_of(neighbour) else { continue };
                if graph.path_of(node) == Some(path) {
                    continue;
                }
                let share = specificity * f64::from(edge.confidence);
                let file = entry(&mut files, path);
                if share > file.neighbour {
                    file.neighbour = share;
                    file.neighbour_of = Some((node, edge.kind));
                }
            }
        }

        let mut files: Vec<FileEvidence> = files.into_values().collect();
        for file in &mut files {
            let judged = self.roles().of(&file.file);
            file.role = Some(judged.role);
            file.role_why = judged.why.clone();
            file.follows = self.roles().sources_of(&file.file).to_vec();
            file.phrase_texts.sort_by_key(|p| std::cmp::Reverse(p.len()));
            file.phrase_texts.truncate(3);
        }
        files.sort_by(|a, b| a.file.cmp(&b.file));
        Evidence { issue, files }
    }
}

impl Retrieval {
    /// Files for a bug report, best first, at most `k`, each explained; the
    /// report as it was read; and whose embeddings took part, if any did.
    pub fn locate(
        &self,
        sources: &dyn Sources,
        text: &str,
        query_vector: Option<&[f32]>,
        k: usize,
    ) -> (Issue, Option<Meaning>, Vec<Explained>) {
        let lane = self.lane(text, query_vector);
        let lane = Self::weighed(lane.as_ref());
        let Evidence { issue, files } = self.evidence_by(sources, text, lane);
        let located = WEIGHTS.rank(files);
        (issue, lane.map(Lane::meaning), located.into_iter().take(k).map(|l| self.explain(sources, text, l)).collect())
    }

    fn explain(&self, sources: &dyn Sources, text: &str, located: Located) -> Explained {
        let graph = sources.graph();
        let e = &located.evidence;
        let mut reasons = Vec::new();
        let mut symbols: Vec<LocatedSymbol> = Vec::new();
        let add = |symbols: &mut Vec<LocatedSymbol>, node: NodeId, why: String| match symbols
            .iter_mut()
            .find(|s| s.node == node)
        {
            Some(s) if !s.why.contains(&why) => s.why.push(why),
            Some(_) => {}
            None => symbols.push(LocatedSymbol { node, why: vec![why] }),
        };
        if let Some(depth) = e.frame_depth {
            reasons.push(match depth {
                0 => "a traceback frame, where it raised".to_owned(),
                1 => "a traceback frame, one call above where it raised".to_owned(),
                d => format!("a traceback frame, {d} calls above where it raised"),
            });
            for (line, function) in &e.frame_lines {
                if let Some(node) = crate::retrieval::frame_symbol(graph, &e.file, *line, function.as_deref()) {
                    add(&mut symbols, node, format!("traceback line {line}"));
                }
            }
        }
        if e.path_named > 0.0 {
            reasons.push("the report names this file".to_owned());
        }
        if e.logged > 0.0 {
            reasons.push("a diagnostic or a log line of the report names a line of it".to_owned());
        }
        if let Some(mention) = e.title_mention.as_ref().filter(|_| e.title_named > 0.0) {
            reasons.push(format!("defines what the title names: `{mention}`"));
        }
        if let Some(name) = e.title_run_name.as_ref().filter(|_| e.title_run >= 0.25) {
            reasons.push(format!("the title's words spell `{name}`"));
        }
        let mut named: Vec<&Named> = e.named.iter().collect();
        named.sort_by(|a, b| b.specificity.total_cmp(&a.specificity));
        if !named.is_empty() {
            let mentions: Vec<String> = named.iter().take(4).map(|n| format!("`{}`", n.mention)).collect();
            let mut unique = mentions.clone();
            unique.dedup();
            reasons.push(format!("defines what the report names: {}", unique.join(", ")));
            for n in named.iter().take(5) {
                let how = if n.imported {
                    "imported in the report"
                } else if n.place == Place::Code {
                    "named in the report's code"
                } else {
                    "named in the report"
                };
                add(&mut symbols, n.node, format!("{how} as `{}`", n.mention));
            }
        }
        if e.module_named > 0.0 {
            reasons.push("the report imports or names this module".to_owned());
        }
        if !e.phrase_texts.is_empty() {
            let quoted: Vec<String> = e.phrase_texts.iter().map(|p| format!("\"{p}\"")).collect();
            reasons.push(format!("holds the report's words as they are: {}", quoted.join(", ")));
        }
        if let Some(rank) = e.word_rank {
            let terms = e.word_chunk.map(|c| self.matched_terms(sources, text, c)).unwrap_or_default();
            let shown: Vec<&str> = terms.iter().take(8).map(String::as_str).collect();
            reasons.push(format!("by its words, #{rank}: {}", shown.join(", ")));
            if let Some(chunk) = e.word_chunk {
                add(
                    &mut symbols,
                    self.chunks()[chunk].node,
                    format!("best match for the words ({})", shown.join(", ")),
                );
            }
        }
        if e.code_rank == Some(1) {
            reasons.push("first by the words of the report's code".to_owned());
        }
        if let Some(rank) = e.dense_rank.or(e.static_rank).filter(|&r| r <= 3) {
            reasons.push(format!("#{rank} by meaning"));
        }
        if e.stem_named > 0.0 || e.stem_coded > 0.0 {
            reasons.push("its name is a word of the report".to_owned());
        }
        if let Some((from, edge)) = e.neighbour_of.filter(|_| e.neighbour > 0.0) {
            reasons.push(format!("one {} edge from `{}`", edge.label(), graph.node(from).qualified_name));
        }
        if let Some(best) = e.follows.first().filter(|_| e.follows.len() == 1) {
            reasons.push(format!("generated from `{best}`: ranked as its companion"));
        } else if !e.follows.is_empty() {
            reasons
                .push(format!("generated from {} files: ranked as a companion of the best of them", e.follows.len()));
        }
        if let Some(why) = e.role_why.as_ref().filter(|_| e.role != Some(Role::Source)) {
            reasons.push(format!("{why}: ranked below the project's own source"));
        }
        symbols.retain(|s| graph.node(s.node).kind != SymbolKind::Module);
        symbols.truncate(5);
        Explained {
            file: located.evidence.file.clone(),
            score: located.score,
            reasons,
            symbols,
            evidence: located.evidence,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_files_stem_written_as_two_words_is_found() {
        let stems = ["manpage", "indexentries", "dataset"];
        let is_stem = |w: &str| stems.contains(&w);
        let text = "Man page sections are wrong\nThe index entries (and the man-page) break; a data\nset, a data. Set, Data\u{2014}set.";
        assert_eq!(spelled_stems(text, is_stem), ["manpage", "indexentries"]);
        // Written as one word already: the word lane has it.
        assert!(spelled_stems("The manpage builder: man page output", is_stem).is_empty());
        // Short parts and numbers are not joined.
        assert!(spelled_stems("the py test, L0 31", |_| true).is_empty());
    }
}
