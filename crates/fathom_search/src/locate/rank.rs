//! Ranking: each file's evidence weighed into one score.

use std::collections::HashMap;

use serde::Serialize;

use super::evidence::FileEvidence;
use crate::issue::Place;
use crate::roles::{Family, Role};

/// How each kind of evidence counts. Fitted on `make eval`'s localisation
/// set (a coordinate search over a coarse grid, `fathom_bench`'s `fit.rs`);
/// `make eval` reports leave-one-repository-out figures beside the fitted
/// ones; see bench/PERFORMANCE.md. Every answer records them.
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

impl Weights {
    /// Every file's score, a generated file's raised to follow the best of
    /// the files it is generated from.
    pub fn scores(&self, files: &[FileEvidence]) -> Vec<f64> {
        let mut scores: Vec<f64> = files.iter().map(|f| self.score(f)).collect();
        if self.companion > 0.0 && files.iter().any(|f| !f.follows.is_empty()) {
            let by_path: HashMap<&str, f64> =
                files.iter().map(|f| f.file.as_str()).zip(scores.iter().copied()).collect();
            for (at, f) in files.iter().enumerate() {
                scores[at] = self.as_companion(scores[at], &f.follows, &by_path);
            }
        }
        scores
    }

    /// A generated file's score, raised to `companion` of the best score
    /// among the files it is generated from (`sources`, scored in
    /// `scores`); any other file's as it is.
    pub(crate) fn as_companion(&self, own: f64, sources: &[String], scores: &HashMap<&str, f64>) -> f64 {
        let best = sources.iter().filter_map(|p| scores.get(p.as_str())).fold(0.0f64, |a, &b| a.max(b));
        own.max(self.companion * best)
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
