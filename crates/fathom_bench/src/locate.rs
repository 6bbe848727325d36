//! Bug localisation and tests for a fix on real issues
//! (`../shared/data/swe-dev`, SWE-bench's format).
//!
//! For each instance the repository's tree at `base_commit` is read out of a
//! bare clone (`git ls-tree`, `git cat-file --batch`: nothing is checked
//! out) and indexed as a folder dropped on the page would be. Then:
//! - localisation: the issue's text is the query; the file ranking of each
//!   mode is scored by Acc@k (all gold files in the top k, as the SWE-bench
//!   localisation papers count it) and the MRR of the first gold file;
//! - tests for a change: the fix's diff (`patch`) goes to
//!   `Index::tests_for`; the relevant files are the test files that
//!   `test_patch` touches and that exist at `base_commit`.
//!
//! The clones are looked for in `$FATHOM_SWE_REPOS/<owner>+<name>` (a bare
//! clone or a folder holding one as `repo`), then in the cache beside the
//! corpora; a missing one is cloned there once, and where that fails (no
//! network), its instances are skipped, saying so.

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use fathom_embed::Embedder;
use fathom_embed::cache::DiskCache;
use fathom_engine::tests_for::Change;
use fathom_engine::{Options, SearchMode, SearchOptions};
use fathom_search::retrieval::is_test_path;
use fathom_static::StaticModel;
use serde_json::{Value, json};

use crate::Clock;

/// The file-level cut-offs of Acc@k.
const KS: [usize; 4] = [1, 3, 5, 10];
/// The repositories judged hardest (issue 28): the bar reads them together.
pub const HARD: [&str; 3] = ["pydicom/pydicom", "pylint-dev/astroid", "sqlfluff/sqlfluff"];

/// The modes scored, each with the embeddings its dense lane reads:
/// - `bm25` is the search as it was before reports were read as reports:
///   the baseline;
/// - `lexical` reads the report, with no embeddings;
/// - `static` and `lexical+static` read the static table's vectors (no
///   query vector is given, so the static lane serves);
/// - `dense` and `hybrid` read MiniLM's, where the chunks are embedded.
pub const MODES: [(SearchMode, bool, Vectors, &str); 6] = [
    (SearchMode::Lexical, false, Vectors::None, "bm25"),
    (SearchMode::Lexical, true, Vectors::None, "lexical"),
    (SearchMode::Dense, true, Vectors::Static, "static"),
    (SearchMode::Hybrid, true, Vectors::Static, "lexical+static"),
    (SearchMode::Dense, true, Vectors::Minilm, "dense"),
    (SearchMode::Hybrid, true, Vectors::Minilm, "hybrid"),
];

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Vectors {
    None,
    Static,
    Minilm,
}

#[derive(Default, Clone)]
pub struct Acc {
    n: usize,
    hits: [usize; 4],
    rr: f64,
}

impl Acc {
    pub fn add(&mut self, ranking: &[String], gold: &HashSet<String>) {
        self.n += 1;
        for (i, k) in KS.iter().enumerate() {
            if gold.iter().all(|g| ranking.iter().take(*k).any(|r| r == g)) {
                self.hits[i] += 1;
            }
        }
        if let Some(first) = ranking.iter().position(|r| gold.contains(r)) {
            self.rr += 1.0 / (first + 1) as f64;
        }
    }

    pub fn json(&self) -> Value {
        let pct = |x: usize| (x as f64 * 1000.0 / self.n.max(1) as f64).round() / 10.0;
        json!({"instances": self.n, "acc_at_1": pct(self.hits[0]), "acc_at_3": pct(self.hits[1]),
               "acc_at_5": pct(self.hits[2]), "acc_at_10": pct(self.hits[3]),
               "mrr": (self.rr / self.n.max(1) as f64 * 10_000.0).round() / 10_000.0})
    }
}

/// Hit@k, recall@10 and MRR of test files, and how often it abstained.
#[derive(Default, Clone)]
pub struct TestHits {
    n: usize,
    hit1: usize,
    hit5: usize,
    hit10: usize,
    recall10: f64,
    rr: f64,
    abstained: usize,
}

impl TestHits {
    fn add(&mut self, ranking: &[String], relevant: &HashSet<String>, abstained: bool) {
        self.n += 1;
        self.abstained += usize::from(abstained);
        let first = ranking.iter().position(|r| relevant.contains(r));
        self.hit1 += usize::from(first.is_some_and(|p| p < 1));
        self.hit5 += usize::from(first.is_some_and(|p| p < 5));
        self.hit10 += usize::from(first.is_some_and(|p| p < 10));
        self.rr += first.map_or(0.0, |p| 1.0 / (p + 1) as f64);
        self.recall10 +=
            ranking.iter().take(10).filter(|r| relevant.contains(*r)).count() as f64 / relevant.len().max(1) as f64;
    }

    fn json(&self) -> Value {
        let n = self.n.max(1) as f64;
        let pct = |x: f64| (x * 1000.0 / n).round() / 10.0;
        json!({"instances": self.n, "hit_at_1": pct(self.hit1 as f64), "hit_at_5": pct(self.hit5 as f64),
               "hit_at_10": pct(self.hit10 as f64), "recall_at_10": pct(self.recall10),
               "mrr": (self.rr / n * 10_000.0).round() / 10_000.0, "abstained": self.abstained})
    }
}

/// A bare clone of `repo` (`owner/name`), found or made; `None` says why not.
fn clone_of(repo: &str, cache: &Path) -> Result<PathBuf, String> {
    let key = repo.replace('/', "+");
    let mut places = Vec::new();
    if let Some(dir) = std::env::var_os("FATHOM_SWE_REPOS") {
        places.push(PathBuf::from(&dir).join(&key));
        places.push(PathBuf::from(&dir).join(&key).join("repo"));
    }
    let cached = cache.join(format!("{key}.git"));
    places.push(cached.clone());
    if let Some(found) = places.iter().find(|p| p.join("objects").is_dir()) {
        return Ok(found.clone());
    }
    std::fs::create_dir_all(cache).map_err(|e| format!("{}: {e}", cache.display()))?;
    let status = Command::new("git")
        .args(["clone", "--quiet", "--bare", &format!("https://github.com/{repo}.git")])
        .arg(&cached)
        .env("GIT_TERMINAL_PROMPT", "0")
        .status()
        .map_err(|e| format!("git: {e}"))?;
    if status.success() { Ok(cached) } else { Err(format!("{repo} could not be cloned into {}", cached.display())) }
}

/// Every file of `commit`'s tree, `(path, bytes)`, read from a bare clone.
pub fn tree_files(git_dir: &Path, commit: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let listing = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["ls-tree", "-r", "-z", "--full-tree", commit])
        .output()
        .map_err(|e| format!("git ls-tree: {e}"))?;
    if !listing.status.success() {
        return Err(format!("git ls-tree {commit}: {}", String::from_utf8_lossy(&listing.stderr).trim()));
    }
    // `<mode> blob <sha>\t<path>`; submodules (commits) and links are left out.
    let entries: Vec<(String, String)> = listing
        .stdout
        .split(|b| *b == 0)
        .filter_map(|entry| {
            let entry = std::str::from_utf8(entry).ok()?;
            let (meta, path) = entry.split_once('\t')?;
            let mut meta = meta.split(' ');
            let (mode, kind, sha) = (meta.next()?, meta.next()?, meta.next()?);
            (kind == "blob" && mode != "120000").then(|| (sha.to_owned(), path.to_owned()))
        })
        .collect();
    let mut child = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("git cat-file: {e}"))?;
    let mut stdin = child.stdin.take().unwrap();
    let shas: Vec<String> = entries.iter().map(|(sha, _)| sha.clone()).collect();
    let writer = std::thread::spawn(move || {
        for sha in shas {
            writeln!(stdin, "{sha}").ok();
        }
    });
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut files = Vec::with_capacity(entries.len());
    for (_, path) in &entries {
        let mut header = String::new();
        out.read_line(&mut header).map_err(|e| e.to_string())?;
        // A clone may lack the largest blobs (`<sha> missing`): that file is left out.
        if header.trim_end().ends_with(" missing") {
            continue;
        }
        let size: usize = header.trim_end().rsplit(' ').next().and_then(|s| s.parse().ok()).ok_or(header.clone())?;
        let mut bytes = vec![0; size + 1];
        out.read_exact(&mut bytes).map_err(|e| e.to_string())?;
        bytes.pop();
        // Under one folder, as a dropped folder is: its name is stripped.
        files.push((format!("repo/{path}"), bytes));
    }
    writer.join().ok();
    child.wait().ok();
    Ok(files)
}

/// The paths of the files a unified diff changes (its `+++ b/…` and
/// `--- a/…` lines), new files included.
pub fn diff_paths(diff: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for line in diff.lines() {
        let path = line.strip_prefix("--- a/").or_else(|| line.strip_prefix("+++ b/"));
        if let Some(path) = path {
            let path = path.split('\t').next().unwrap_or(path).trim().to_owned();
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    paths
}

/// The whole set: each instance indexed once, every mode and the tests asked.
/// `embedder`, with its disk cache, embeds each tree's chunks (the cache
/// keeps what earlier commits shared) for the dense and hybrid modes.
pub fn evaluate(
    data: &Path,
    cache: &Path,
    statics: Option<Arc<StaticModel>>,
    mut embedder: Option<(&Embedder, Option<&mut DiskCache>)>,
) -> Value {
    let lines = std::fs::read_to_string(data.join("instances.jsonl")).expect("instances.jsonl reads");
    let instances: Vec<Value> =
        lines.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect();
    let only: Option<String> = std::env::var("FATHOM_EVAL_ONLY").ok();
    let mut clones: BTreeMap<String, Result<PathBuf, String>> = BTreeMap::new();
    let mut by_repo: BTreeMap<String, BTreeMap<&str, Acc>> = BTreeMap::new();
    let mut overall: BTreeMap<&str, Acc> = BTreeMap::new();
    let mut hard: BTreeMap<&str, Acc> = BTreeMap::new();
    let mut tests = TestHits::default();
    let mut tests_by_repo: BTreeMap<String, TestHits> = BTreeMap::new();
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    let mut ms: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut cases = Vec::new();
    // `FATHOM_EVAL_DUMP=DIR`: every instance's evidence, file by file, for
    // studying how to weigh it offline.
    let dump = std::env::var_os("FATHOM_EVAL_DUMP").map(|dir| {
        std::fs::create_dir_all(&dir).unwrap();
        std::cell::RefCell::new(std::fs::File::create(Path::new(&dir).join("locate.jsonl")).unwrap())
    });
    // `FATHOM_EVAL_CHUNKS=FILE`: every distinct chunk's cache key and text,
    // once, for embedding them elsewhere (`scripts/dev/embed-chunks.py` on a
    // GPU) into the disk cache that the dense modes then read.
    let mut exported: HashSet<String> = HashSet::new();
    let mut export = std::env::var_os("FATHOM_EVAL_CHUNKS")
        .map(|file| std::io::BufWriter::new(std::fs::File::create(file).expect("the chunk export is writable")));
    for instance in &instances {
        let id = instance["instance_id"].as_str().unwrap();
        let repo = instance["repo"].as_str().unwrap().to_owned();
        if only.as_deref().is_some_and(|o| !id.contains(o)) {
            continue;
        }
        let clone = clones.entry(repo.clone()).or_insert_with(|| clone_of(&repo, cache));
        let git_dir = match clone {
            Ok(dir) => dir.clone(),
            Err(why) => {
                skipped.push(json!({"instance": id, "why": why.clone()}));
                continue;
            }
        };
        let commit = instance["base_commit"].as_str().unwrap();
        let files = match tree_files(&git_dir, commit) {
            Ok(files) => files,
            Err(why) => {
                eprintln!("eval: {id}: {why}");
                skipped.push(json!({"instance": id, "why": why}));
                continue;
            }
        };
        let present: HashSet<String> = files.iter().map(|(p, _)| p["repo/".len()..].to_owned()).collect();
        let started = Instant::now();
        let mut index = fathom_engine::index_files("repo", files, &Options::default(), &mut Clock(Instant::now()));
        let index_s = started.elapsed().as_secs_f64();
        let started = Instant::now();
        if let Some(model) = &statics {
            index.build_static(Arc::clone(model)).expect("the static lane builds");
        }
        let static_s = started.elapsed().as_secs_f64();
        let query = instance["problem_statement"].as_str().unwrap();
        if let Some(out) = &mut export {
            for chunk in 0..index.chunks().len() {
                let (Some(key), Some(text)) = (index.chunk_hash(chunk), index.chunk_text(chunk)) else { continue };
                if exported.insert(key.clone()) {
                    writeln!(out, "{}", json!({"key": key, "text": text})).unwrap();
                }
            }
        }
        let vector = match &mut embedder {
            Some((model, cache)) => {
                let report = fathom_engine::embed::embed_index(
                    &mut index,
                    model,
                    cache.as_deref_mut(),
                    &mut Clock(Instant::now()),
                )
                .expect("embeds");
                eprintln!("eval: {id}: {} chunks, {} embedded now", report.chunks, report.embedded);
                Some(model.embed_query(query).expect("the issue embeds"))
            }
            None => None,
        };
        let gold: HashSet<String> =
            instance["gold_files"].as_array().unwrap().iter().map(|g| g.as_str().unwrap().to_owned()).collect();
        // The lexical reading's evidence, kept for the held-out figures.
        let evidence = index.retrieval().evidence(&index.sources(), query, None, false);
        cases.push(crate::fit::Case { repo: repo.clone(), gold: gold.clone(), files: evidence.files });
        if let Some(dump) = &dump {
            let evidence = index.retrieval().evidence(&index.sources(), query, vector.as_deref(), true);
            let line =
                json!({"instance": id, "repo": repo, "gold": gold, "issue": evidence.issue, "files": evidence.files});
            writeln!(dump.borrow_mut(), "{line}").unwrap();
        }
        let mut row = json!({"instance": id, "index_s": (index_s * 100.0).round() / 100.0,
            "static_s": (static_s * 100.0).round() / 100.0, "gold": gold});
        for (mode, read_report, vectors, name) in MODES {
            let given = match vectors {
                Vectors::None => None,
                Vectors::Static if statics.is_some() => None,
                Vectors::Minilm if vector.is_some() => vector.as_deref(),
                _ => continue,
            };
            let options = SearchOptions { k: 50, mode, read_report, ..SearchOptions::default() };
            let started = Instant::now();
            let results = index.search(query, &options, given);
            ms.entry(name).or_default().push(started.elapsed().as_secs_f64() * 1000.0);
            let ranking: Vec<String> = results.files.iter().map(|f| f.file.clone()).collect();
            for acc in
                [by_repo.entry(repo.clone()).or_default().entry(name).or_default(), overall.entry(name).or_default()]
            {
                acc.add(&ranking, &gold);
            }
            if HARD.contains(&repo.as_str()) {
                hard.entry(name).or_default().add(&ranking, &gold);
            }
            let first = ranking.iter().position(|r| gold.contains(r)).map(|p| p + 1);
            let worst = gold.iter().map(|g| ranking.iter().position(|r| r == g).map_or(usize::MAX, |p| p + 1)).max();
            row[name] = json!({"first_gold": first, "all_gold_by": worst.filter(|w| *w != usize::MAX),
                "top": ranking.iter().take(5).collect::<Vec<_>>()});
        }
        // Tests for the fix.
        let relevant: HashSet<String> = diff_paths(instance["test_patch"].as_str().unwrap_or(""))
            .into_iter()
            .filter(|p| present.contains(p) && is_test_path(p))
            .collect();
        if !relevant.is_empty() {
            let change =
                Change { diff: Some(instance["patch"].as_str().unwrap().to_owned()), k: Some(50), ..Change::default() };
            let found = index.tests_for(&change, None).expect("a fix's diff parses");
            let mut seen = HashSet::new();
            let ranking: Vec<String> =
                found.tests.iter().filter_map(|t| t.test.file.clone()).filter(|f| seen.insert(f.clone())).collect();
            tests.add(&ranking, &relevant, found.abstained);
            tests_by_repo.entry(repo.clone()).or_default().add(&ranking, &relevant, found.abstained);
            row["tests_for"] = json!({"relevant": relevant, "abstained": found.abstained,
                "first_relevant": ranking.iter().position(|r| relevant.contains(r)).map(|p| p + 1),
                "top": ranking.iter().take(5).collect::<Vec<_>>(), "notes": found.notes});
        }
        eprintln!("eval: {id} {}", row);
        rows.push(row);
    }
    let table = |accs: &BTreeMap<&str, Acc>| -> Value {
        accs.iter().map(|(mode, acc)| (mode.to_string(), acc.json())).collect::<serde_json::Map<_, _>>().into()
    };
    let median = |v: &mut Vec<f64>| -> f64 {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let ms_per_query: serde_json::Map<String, Value> =
        ms.iter_mut().map(|(mode, v)| (mode.to_string(), json!((median(v) * 10.0).round() / 10.0))).collect();
    json!({
        "overall": table(&overall),
        "hard": table(&hard),
        "repos": by_repo.iter().map(|(r, accs)| (r.clone(), table(accs))).collect::<serde_json::Map<_, _>>(),
        "median_ms_per_question": ms_per_query,
        "tests_for": {"overall": tests.json(),
            "repos": tests_by_repo.iter().map(|(r, t)| (r.clone(), t.json())).collect::<serde_json::Map<_, _>>()},
        "leave_one_repository_out": crate::fit::leave_one_repository_out(&cases),
        "skipped": skipped,
        "instances": rows,
    })
}

pub fn print_table(report: &Value) {
    println!(
        "{:<34} {:<14} {:>6} {:>6} {:>6} {:>6} {:>7}",
        "localisation", "mode", "Acc@1", "Acc@3", "Acc@5", "Acc@10", "MRR"
    );
    let mut rows: Vec<(String, &Value)> =
        report["repos"].as_object().into_iter().flatten().map(|(r, v)| (r.clone(), v)).collect();
    rows.push(("hard (pydicom, astroid, sqlfluff)".into(), &report["hard"]));
    rows.push(("overall".into(), &report["overall"]));
    let row = |label: &str, mode: &str, a: &Value| {
        let c = |k: &str| a[k].as_f64().unwrap_or(f64::NAN);
        println!(
            "{label:<34} {mode:<14} {:>6.1} {:>6.1} {:>6.1} {:>6.1} {:>7.4}",
            c("acc_at_1"),
            c("acc_at_3"),
            c("acc_at_5"),
            c("acc_at_10"),
            c("mrr")
        );
    };
    for (label, accs) in rows {
        for (_, _, _, mode) in MODES {
            if let Some(a) = accs.get(mode) {
                row(&label, mode, a);
            }
        }
    }
    // The weights fitted again without each repository, that repository
    // ranked with them: how much of the figures above is fit.
    let loro = &report["leave_one_repository_out"];
    for (label, part) in [("overall", "overall"), ("hard (pydicom, astroid, sqlfluff)", "hard")] {
        for (mode, key) in [("fit shipped", "shipped"), ("fit held out", "held_out")] {
            row(label, mode, &loro[key][part]);
        }
    }
    let t = &report["tests_for"]["overall"];
    println!(
        "tests for the fix: hit@1 {} hit@5 {} hit@10 {} recall@10 {} MRR {} abstained {} of {}",
        t["hit_at_1"], t["hit_at_5"], t["hit_at_10"], t["recall_at_10"], t["mrr"], t["abstained"], t["instances"]
    );
    println!("median ms per question: {}", report["median_ms_per_question"]);
}
