//! Leave-one-repository-out figures for localisation's weights.
//!
//! The shipped [`WEIGHTS`] were fitted on the development sets. To say how
//! much of their score is fit, each repository is held out in turn: the weights are
//! fitted again on the other repositories' evidence (a coordinate search
//! over a coarse grid, as `scripts/dev/locate-fit.py` does, from the shipped
//! weights, keeping any gain of the objective Acc@1 + Acc@5 + 50 × MRR) and
//! the held-out repository's reports are ranked with them. The figures are
//! pooled over the folds, overall and per language: the headline figures.

use std::collections::{BTreeMap, HashSet};

use fathom_search::locate::{FileEvidence, WEIGHTS, Weights};
use rayon::prelude::*;
use serde_json::{Value, json};

use crate::locate::Acc;

/// One report's evidence, kept for refitting.
pub struct Case {
    pub repo: String,
    pub language: String,
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
    (|w, v| w.logged = v, &[0.0, 0.25, 0.5, 1.0, 2.0]),
    (|w, v| w.neighbour = v, &[0.0, 0.1, 0.2, 0.5, 1.0]),
    (|w, v| w.test = v, &[0.05, 0.1, 0.3, 0.6, 1.0]),
    (|w, v| w.aside = v, &[0.05, 0.1, 0.3, 0.6, 1.0]),
    (|w, v| w.foreign = v, &[0.01, 0.05, 0.1, 0.3, 1.0]),
    (|w, v| w.companion = v, &[0.0, 0.5, 0.9, 0.99]),
];

/// The 1-based rank of each gold file under `weights` (`None`: not ranked,
/// its score 0), as [`Weights::rank`] would place it, without sorting.
fn gold_ranks(case: &Case, weights: &Weights) -> Vec<Option<usize>> {
    let scored: Vec<(f64, &str)> =
        weights.scores(&case.files).into_iter().zip(case.files.iter().map(|f| f.file.as_str())).collect();
    case.gold
        .iter()
        .map(|g| {
            let &(score, file) = scored.iter().find(|(_, f)| f == g)?;
            (score > 0.0).then(|| 1 + scored.iter().filter(|&&(s, f)| s > score || (s == score && f < file)).count())
        })
        .collect()
}

fn score(cases: &[&Case], weights: &Weights) -> Acc {
    let mut acc = Acc::default();
    for case in cases {
        acc.add_ranks(&gold_ranks(case, weights));
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

/// The shipped weights' figures and the held-out ones, overall, per
/// language and per repository, with the weights each fold chose. The
/// folds are fitted on every core (rayon).
pub fn leave_one_repository_out(cases: &[Case]) -> Value {
    let repos: Vec<&str> =
        cases.iter().map(|c| c.repo.as_str()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let all: Vec<&Case> = cases.iter().collect();
    let fitted: Vec<Weights> = repos
        .par_iter()
        .map(|repo| {
            let train: Vec<&Case> = all.iter().copied().filter(|c| c.repo != *repo).collect();
            if train.is_empty() { WEIGHTS } else { fit(&train) }
        })
        .collect();
    let (mut pooled, mut shipped) = (Acc::default(), Acc::default());
    let mut languages: BTreeMap<&str, Acc> = BTreeMap::new();
    let mut shipped_languages: BTreeMap<&str, Acc> = BTreeMap::new();
    let mut folds = BTreeMap::new();
    for (repo, weights) in repos.iter().zip(&fitted) {
        let mut fold = Acc::default();
        for case in all.iter().filter(|c| c.repo == *repo) {
            let ranks = gold_ranks(case, weights);
            fold.add_ranks(&ranks);
            pooled.add_ranks(&ranks);
            languages.entry(&case.language).or_default().add_ranks(&ranks);
            let ranks = gold_ranks(case, &WEIGHTS);
            shipped.add_ranks(&ranks);
            shipped_languages.entry(&case.language).or_default().add_ranks(&ranks);
        }
        folds.insert(repo.to_string(), json!({"held_out": fold.json(), "weights": weights}));
    }
    let by = |m: &BTreeMap<&str, Acc>| -> Value {
        m.iter().map(|(l, a)| (l.to_string(), a.json())).collect::<serde_json::Map<_, _>>().into()
    };
    json!({
        "shipped": {"overall": shipped.json(), "languages": by(&shipped_languages)},
        "held_out": {"overall": pooled.json(), "languages": by(&languages)},
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
        Case { repo: repo.into(), language: "python".into(), gold: HashSet::from([gold.to_owned()]), files }
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
