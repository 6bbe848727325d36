//! Bug localisation and tests for a fix on real issues, in every language
//! Fathom reads: `../shared/data/swe-dev` (Python) and
//! `../shared/data/swe-poly` (Java, Go, JavaScript, Rust, C, C++), both in
//! SWE-bench's format.
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
//! Every figure is given per language and per repository, beside plain BM25
//! over whole files in the same run; the headline is leave-one-repository-out
//! (`fit`): weights fitted without a repository, scored on it.
//!
//! The clones are looked for in `$FATHOM_SWE_REPOS/<owner>+<name>` (a bare
//! clone or a folder holding one as `repo`; the name in any case, as GitHub
//! spells it or as the set does), then in the cache beside the
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
use fathom_search::locate::Localiser;
use fathom_static::StaticModel;
use serde_json::{Value, json};

use crate::Clock;

/// The file-level cut-offs of Acc@k.
const KS: [usize; 4] = [1, 3, 5, 10];
/// The modes scored, each with the embeddings its dense lane reads:
/// - `bm25` (not in this list: [`WholeFileBm25`]) is plain BM25 over whole
///   files, the baseline every figure stands beside;
/// - `plain` is Fathom's search as a short query gets it, the report not
///   read apart;
/// - `lexical` reads the report, with no embeddings;
/// - `static` and `lexical+static` read the static table's vectors (no
///   query vector is given, so the static lane serves);
/// - `dense` and `hybrid` read MiniLM's, where the chunks are embedded.
pub const MODES: [(SearchMode, bool, Vectors, &str); 6] = [
    (SearchMode::Lexical, false, Vectors::None, "plain"),
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

    /// One report, by the 1-based rank of each gold file (`None`: unranked).
    pub fn add_ranks(&mut self, ranks: &[Option<usize>]) {
        self.n += 1;
        for (i, k) in KS.iter().enumerate() {
            if ranks.iter().all(|r| r.is_some_and(|r| r <= *k)) {
                self.hits[i] += 1;
            }
        }
        if let Some(first) = ranks.iter().flatten().min() {
            self.rr += 1.0 / *first as f64;
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
pub(crate) fn clone_of(repo: &str, cache: &Path) -> Result<PathBuf, String> {
    let key = repo.replace('/', "+");
    let mut places = Vec::new();
    if let Some(dir) = std::env::var_os("FATHOM_SWE_REPOS") {
        // The set writes `fasterxml/jackson-core`, GitHub `FasterXML/…`.
        let named = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case(&key)));
        let folder = named.unwrap_or_else(|| PathBuf::from(&dir).join(&key));
        places.push(folder.join("repo"));
        places.push(folder);
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

/// Plain BM25 over whole files: each indexed file one document, the report
/// or question the query. The baseline the issue's figures stand beside,
/// measured in the same run on the same files; built once per index, however
/// many queries it answers.
pub struct WholeFileBm25 {
    paths: Vec<String>,
    lexical: fathom_search::lexical::Lexical,
}

impl WholeFileBm25 {
    pub fn new(index: &fathom_engine::Index) -> Self {
        let paths: Vec<String> = index.file_list().into_iter().map(|f| f.path).collect();
        let texts: Vec<String> = paths.iter().map(|p| index.file_text(p).unwrap_or_default().to_owned()).collect();
        WholeFileBm25 { lexical: fathom_search::lexical::Lexical::build(&texts), paths }
    }

    /// The best 100 files for `query`, best first.
    pub fn search(&self, query: &str) -> Vec<String> {
        self.lexical.search(query, 100).into_iter().map(|(doc, _)| self.paths[doc as usize].clone()).collect()
    }
}

/// Figures for every mode, under one label (a language, a repository, all).
type Table = BTreeMap<&'static str, Acc>;

/// The sets: swe-dev and swe-poly beside it, or the `:`-separated folders of
/// `FATHOM_EVAL_LOCATE_SET`. Each instance with its language (swe-dev's are
/// Python).
pub fn instances(sets: &[PathBuf]) -> Vec<Value> {
    let mut all = Vec::new();
    for set in sets {
        let Ok(lines) = std::fs::read_to_string(set.join("instances.jsonl")) else {
            eprintln!("eval: {} has no instances.jsonl; skipped", set.display());
            continue;
        };
        for line in lines.lines().filter(|l| !l.trim().is_empty()) {
            let mut instance: Value = serde_json::from_str(line).expect("an instance is JSON");
            if instance.get("language").is_none() {
                instance["language"] = json!("python");
            }
            all.push(instance);
        }
    }
    all
}

/// The whole set: each instance indexed once, every mode and the tests asked.
/// `embedder`, with its disk cache, embeds each tree's chunks (the cache
/// keeps what earlier commits shared) for the dense and hybrid modes.
pub fn evaluate(
    instances: &[Value],
    cache: &Path,
    statics: Option<Arc<StaticModel>>,
    mut embedder: Option<(&Embedder, Option<&mut DiskCache>)>,
) -> Value {
    let only: Option<String> = std::env::var("FATHOM_EVAL_ONLY").ok();
    let mut clones: BTreeMap<String, Result<PathBuf, String>> = BTreeMap::new();
    let mut by_repo: BTreeMap<String, Table> = BTreeMap::new();
    let mut by_language: BTreeMap<String, Table> = BTreeMap::new();
    let mut overall: Table = BTreeMap::new();
    let mut tests = TestHits::default();
    let mut tests_by_repo: BTreeMap<String, TestHits> = BTreeMap::new();
    let mut tests_by_language: BTreeMap<String, TestHits> = BTreeMap::new();
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
    for instance in instances {
        let id = instance["instance_id"].as_str().unwrap();
        let repo = instance["repo"].as_str().unwrap().to_owned();
        let language = instance["language"].as_str().unwrap_or("python").to_owned();
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
        let evidence = Localiser::new(index.retrieval(), &index.sources()).evidence(query, None, false);
        cases.push(crate::fit::Case {
            repo: repo.clone(),
            language: language.clone(),
            gold: gold.clone(),
            files: evidence.files,
        });
        if let Some(dump) = &dump {
            let evidence = Localiser::new(index.retrieval(), &index.sources()).evidence(query, vector.as_deref(), true);
            let line = json!({"instance": id, "repo": repo, "language": language, "gold": gold,
                "issue": evidence.issue, "files": evidence.files});
            writeln!(dump.borrow_mut(), "{line}").unwrap();
        }
        let mut row = json!({"instance": id, "language": language, "index_s": (index_s * 100.0).round() / 100.0,
            "static_s": (static_s * 100.0).round() / 100.0, "gold": gold});
        let mut record = |name: &'static str, ranking: Vec<String>, row: &mut Value| {
            for acc in [
                by_repo.entry(repo.clone()).or_default().entry(name).or_default(),
                by_language.entry(language.clone()).or_default().entry(name).or_default(),
                overall.entry(name).or_default(),
            ] {
                acc.add(&ranking, &gold);
            }
            let first = ranking.iter().position(|r| gold.contains(r)).map(|p| p + 1);
            let worst = gold.iter().map(|g| ranking.iter().position(|r| r == g).map_or(usize::MAX, |p| p + 1)).max();
            row[name] = json!({"first_gold": first, "all_gold_by": worst.filter(|w| *w != usize::MAX),
                "top": ranking.iter().take(5).collect::<Vec<_>>()});
        };
        record("bm25", WholeFileBm25::new(&index).search(query), &mut row);
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
            record(name, results.files.iter().map(|f| f.file.clone()).collect(), &mut row);
        }
        // Tests for the fix: the files its tests changed that were there
        // before it, whatever they are (a C project's tests are often
        // scripts and data, which count as misses where Fathom cannot rank them).
        let relevant: HashSet<String> = diff_paths(instance["test_patch"].as_str().unwrap_or(""))
            .into_iter()
            .filter(|p| present.contains(p))
            .collect();
        if !relevant.is_empty() {
            let change =
                Change { diff: Some(instance["patch"].as_str().unwrap().to_owned()), k: Some(50), ..Change::default() };
            let found = index.tests_for(&change, None).expect("a fix's diff parses");
            let mut seen = HashSet::new();
            let ranking: Vec<String> =
                found.tests.iter().filter_map(|t| t.test.file.clone()).filter(|f| seen.insert(f.clone())).collect();
            for hits in [
                &mut tests,
                tests_by_repo.entry(repo.clone()).or_default(),
                tests_by_language.entry(language.clone()).or_default(),
            ] {
                hits.add(&ranking, &relevant, found.abstained);
            }
            row["tests_for"] = json!({"relevant": relevant, "abstained": found.abstained,
                "first_relevant": ranking.iter().position(|r| relevant.contains(r)).map(|p| p + 1),
                "indexed": relevant.iter().filter(|r| index.file_text(r).is_some()).count(),
                "top": ranking.iter().take(5).collect::<Vec<_>>(), "notes": found.notes});
        }
        eprintln!("eval: {id} {}", row);
        rows.push(row);
    }
    let table = |accs: &Table| -> Value {
        accs.iter().map(|(mode, acc)| (mode.to_string(), acc.json())).collect::<serde_json::Map<_, _>>().into()
    };
    let tables = |by: &BTreeMap<String, Table>| -> Value {
        by.iter().map(|(r, accs)| (r.clone(), table(accs))).collect::<serde_json::Map<_, _>>().into()
    };
    let hits = |by: &BTreeMap<String, TestHits>| -> Value {
        by.iter().map(|(r, t)| (r.clone(), t.json())).collect::<serde_json::Map<_, _>>().into()
    };
    let median = |v: &mut Vec<f64>| -> f64 {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let ms_per_query: serde_json::Map<String, Value> =
        ms.iter_mut().map(|(mode, v)| (mode.to_string(), json!((median(v) * 10.0).round() / 10.0))).collect();
    json!({
        "overall": table(&overall),
        "languages": tables(&by_language),
        "repos": tables(&by_repo),
        "median_ms_per_question": ms_per_query,
        "tests_for": {"overall": tests.json(), "languages": hits(&tests_by_language), "repos": hits(&tests_by_repo)},
        "leave_one_repository_out": crate::fit::leave_one_repository_out(&cases),
        "skipped": skipped,
        "instances": rows,
    })
}

/// The modes the table shows: the baseline, the plain search, the report
/// read apart, and whichever embeddings' modes ran.
const SHOWN: [&str; 5] = ["bm25", "plain", "lexical", "lexical+static", "hybrid"];

pub fn print_table(report: &Value) {
    println!(
        "{:<34} {:<14} {:>6} {:>6} {:>6} {:>6} {:>7}",
        "localisation", "mode", "Acc@1", "Acc@3", "Acc@5", "Acc@10", "MRR"
    );
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
    // Each label's modes, then the held-out figure: weights fitted again
    // without the repository, that repository ranked with them.
    let loro = &report["leave_one_repository_out"];
    let group = |by: &str, held: &Value| {
        for (label, accs) in report[by].as_object().into_iter().flatten() {
            for mode in SHOWN {
                if let Some(a) = accs.get(mode) {
                    row(label, mode, a);
                }
            }
            if let Some(a) = held.get(label) {
                row(label, "held out", a);
            }
        }
    };
    let repos: serde_json::Map<String, Value> = loro["repos"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(r, fold)| (r.clone(), fold["held_out"].clone()))
        .collect();
    group("repos", &Value::Object(repos));
    group("languages", &loro["held_out"]["languages"]);
    for mode in SHOWN {
        if let Some(a) = report["overall"].get(mode) {
            row("overall", mode, a);
        }
    }
    row("overall", "fit shipped", &loro["shipped"]["overall"]);
    row("overall", "held out", &loro["held_out"]["overall"]);
    let t = &report["tests_for"];
    let line = |label: &str, t: &Value| {
        println!(
            "tests for the fix, {label:<28} hit@1 {:>5} hit@5 {:>5} hit@10 {:>5} recall@10 {:>5} MRR {:>6} abstained {} of {}",
            t["hit_at_1"], t["hit_at_5"], t["hit_at_10"], t["recall_at_10"], t["mrr"], t["abstained"], t["instances"]
        );
    };
    for (language, hits) in t["languages"].as_object().into_iter().flatten() {
        line(language, hits);
    }
    line("overall", &t["overall"]);
    println!("median ms per question: {}", report["median_ms_per_question"]);
}
