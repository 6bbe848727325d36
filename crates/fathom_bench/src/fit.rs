//! Leave-one-repository-out figures for localisation's weights.
//!
//! The shipped [`WEIGHTS`] were fitted on all of swe-dev. To say how much of
//! their score is fit, each repository is held out in turn: the weights are
//! fitted again on the other repositories' evidence (a coordinate search
//! over a coarse grid, as `scripts/dev/locate-fit.py` does, from the shipped
//! weights, keeping any gain of the objective Acc@1 + Acc@5 + 50 × MRR) and
//! the held-out repository's reports are ranked with them. The figures are
//! pooled over the folds.

use std::collections::{BTreeMap, HashSet};

use fathom_search::locate::{FileEvidence, WEIGHTS, Weights};
use serde_json::{Value, json};

use crate::locate::{Acc, HARD};

/// One report's evidence, kept for refitting.
pub struct Case {
    pub repo: String,
    pub gold: HashSet<String>,
    pub files: Vec<FileEvidence>,
}

type Setter = fn(&mut Weights, f64);

/// The grid: each weight the lexical reading uses, with the values tried.
const GRID: &[(Setter, &[f64])] = &[
    (|w, v| w.word = v, &[0.5, 1.0, 2.0]),
    (|w, v| w.word_exponent = v, &[0.0, 0.5, 1.0, 2.0]),
    (|w, v| w.word_mass = v, &[0.0, 0.2, 0.5, 1.0]),
    (|w, v| w.rank_k = v, &[1.0, 3.0, 10.0, 30.0, 60.0]),
    (|w, v| w.code = v, &[0.0, 0.25, 0.5, 1.0]),
    (|w, v| w.prose = v, &[0.0, 0.25, 0.5, 1.0]),
    (|w, v| w.name = v, &[0.0, 0.1, 0.3, 0.6, 1.0, 2.0]),
    (|w, v| w.name_cap = v, &[0.5, 1.0, 1.5, 3.0, 10.0]),
    (|w, v| w.name_prose = v, &[0.0, 0.1, 0.3, 0.6, 1.0]),
    (|w, v| w.name_import = v, &[0.0, 0.5, 1.0, 3.0]),
    (|w, v| w.name_dotted = v, &[0.0, 0.5, 1.0, 3.0]),
    (|w, v| w.module = v, &[0.0, 0.25, 0.5, 1.0, 2.0]),
    (|w, v| w.title_named = v, &[0.0, 0.5, 1.0, 2.0, 4.0, 8.0]),
    (|w, v| w.title_run = v, &[0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0]),
    (|w, v| w.path = v, &[0.0, 0.3, 1.0, 2.0, 4.0, 8.0, 16.0]),
    (|w, v| w.stem = v, &[0.0, 0.05, 0.1, 0.3, 0.6]),
    (|w, v| w.stem_coded = v, &[0.0, 0.6, 1.0, 2.0, 3.0, 4.0]),
    (|w, v| w.phrase = v, &[0.0, 0.3, 1.0, 2.0, 3.0, 4.0]),
    (|w, v| w.phrase_cap = v, &[0.5, 1.0, 2.0, 5.0]),
    (|w, v| w.frame = v, &[0.0, 0.5, 1.0, 2.0]),
    (|w, v| w.frame_decay = v, &[0.3, 0.5, 0.8, 1.0]),
    (|w, v| w.neighbour = v, &[0.0, 0.1, 0.2, 0.5, 1.0]),
    (|w, v| w.test = v, &[0.05, 0.1, 0.3, 0.6, 1.0]),
    (|w, v| w.aside = v, &[0.05, 0.1, 0.3, 0.6, 1.0]),
];

/// The files of a case, best first, under `weights`.
fn ranking(case: &Case, weights: &Weights) -> Vec<String> {
    weights.rank(case.files.clone()).into_iter().map(|l| l.evidence.file).collect()
}

fn score(cases: &[&Case], weights: &Weights) -> Acc {
    let mut acc = Acc::default();
    for case in cases {
        acc.add(&ranking(case, weights), &case.gold);
    }
    acc
}

fn objective(cases: &[&Case], weights: &Weights) -> f64 {
    let m = score(cases, weights).json();
    let f = |k: &str| m[k].as_f64().unwrap_or(0.0);
    f("acc_at_1") + f("acc_at_5") + 50.0 * f("mrr")
}

/// Coordinate search from the shipped weights, three passes at most.
fn fit(cases: &[&Case]) -> Weights {
    let mut best = WEIGHTS;
    let mut best_score = objective(cases, &best);
    for _ in 0..3 {
        let mut improved = false;
        for (set, values) in GRID {
            for &value in *values {
                let mut trial = best;
                set(&mut trial, value);
                let o = objective(cases, &trial);
                if o > best_score + 1e-9 {
                    (best, best_score, improved) = (trial, o, true);
                }
            }
        }
        if !improved {
            break;
        }
    }
    best
}

/// The shipped weights' figures and the held-out ones, overall, on the hard
/// three and per repository, with the weights each fold chose.
pub fn leave_one_repository_out(cases: &[Case]) -> Value {
    let repos: Vec<&str> =
        cases.iter().map(|c| c.repo.as_str()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let all: Vec<&Case> = cases.iter().collect();
    let (mut pooled, mut hard) = (Acc::default(), Acc::default());
    let mut folds = BTreeMap::new();
    for repo in &repos {
        let train: Vec<&Case> = all.iter().copied().filter(|c| c.repo != *repo).collect();
        let test: Vec<&Case> = all.iter().copied().filter(|c| c.repo == *repo).collect();
        let weights = if train.is_empty() { WEIGHTS } else { fit(&train) };
        let mut fold = Acc::default();
        for case in &test {
            let ranked = ranking(case, &weights);
            fold.add(&ranked, &case.gold);
            pooled.add(&ranked, &case.gold);
            if HARD.contains(&case.repo.as_str()) {
                hard.add(&ranked, &case.gold);
            }
        }
        folds.insert(repo.to_string(), json!({"held_out": fold.json(), "weights": weights}));
    }
    let shipped_hard: Vec<&Case> = all.iter().copied().filter(|c| HARD.contains(&c.repo.as_str())).collect();
    json!({
        "shipped": {"overall": score(&all, &WEIGHTS).json(), "hard": score(&shipped_hard, &WEIGHTS).json()},
        "held_out": {"overall": pooled.json(), "hard": hard.json()},
        "repos": folds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(repo: &str, gold: &str, files: &[(&str, f64, f64)]) -> Case {
        // (file, a path written out, a phrase found): evidence the weights read.
        let files = files
            .iter()
            .map(|(file, path, phrases)| FileEvidence {
                file: file.to_string(),
                path_named: *path,
                phrases: *phrases,
                ..FileEvidence::default()
            })
            .collect();
        Case { repo: repo.into(), gold: HashSet::from([gold.to_owned()]), files }
    }

    #[test]
    fn each_repository_is_ranked_by_weights_fitted_without_it() {
        // The same evidence in three repositories: a faint path written out
        // (x.py) against a phrase found (y.py). The shipped weights (a path
        // at 8, a phrase at 3) side with the phrase, right in the third only.
        let evidence = [("x.py", 0.1, 0.0), ("y.py", 0.0, 0.5)];
        let cases =
            [case("a/one", "x.py", &evidence), case("b/two", "x.py", &evidence), case("c/three", "y.py", &evidence)];
        let report = leave_one_repository_out(&cases);
        assert!((report["shipped"]["overall"]["acc_at_1"].as_f64().unwrap() - 33.3).abs() < 0.1, "{report}");
        // Fitted without the third, the weights side with the path, and the
        // third's report is lost: what the shipped figure owed to fitting.
        let three = &report["repos"]["c/three"];
        let (path, phrase) = (three["weights"]["path"].as_f64().unwrap(), three["weights"]["phrase"].as_f64().unwrap());
        assert!(0.1 * path > 0.5 * phrase, "{three}");
        assert_eq!(three["held_out"]["acc_at_1"], 0.0);
        // Without the first, the other two pull both ways: no gain, the
        // shipped weights, and the first is lost as before.
        assert_eq!(report["repos"]["a/one"]["held_out"]["acc_at_1"], 0.0);
        assert_eq!(report["held_out"]["overall"]["acc_at_1"], 0.0);
    }
}
