//! Fathom's definitions against universal-ctags, file by file (issue 62):
//! for each project of `tests/eval/questions.json` (the same pinned
//! commits as the question set), and each pinned corpus, the tree is
//! written to a folder, tagged by Debian's `universal-ctags`, and indexed
//! as a folder dropped on the page would be. A tag counts as found where
//! Fathom's graph holds a symbol of the same name in the same file; the
//! recall is given per language, per kind of tag and per project.
//!
//! The kinds are those a reader types the name of (`NAMED`): functions,
//! prototypes, classes, structs, unions, enums, typedefs, interfaces,
//! traits and methods; macros, enumerators, fields and locals are counted
//! beside them but kept out of the headline. Beside the recall, every
//! symbol Fathom names after a reserved word of its language (C's and
//! C++'s grammar words: `return`, `typename`) is counted and listed: a
//! keyword is never a name (a test is named by its title, which may be
//! any word: `TEST_CASE("noexcept")`). Names that are keywords only in
//! context (Rust's `default`) are listed apart.
//!
//! ctags' prototypes on lines inside a macro-declared test's body
//! (doctest's `TEST_CASE("…") { CHECK(x); }`, whose statements ctags reads
//! at namespace scope, as declarations) are no definitions: they are
//! counted apart (`prototypes_in_test_bodies`), as vendored tags are.
//!
//! Skipped, saying so, where `ctags` is not installed or a clone is absent.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use fathom_engine::{Index, Options};
use fathom_model::{Language, SymbolKind};
use serde_json::{Value, json};

use crate::Clock;

/// The tag kinds a reader names, per ctags language: the headline.
const NAMED: &[(&str, &[&str])] = &[
    ("C", &["function", "prototype", "struct", "union", "enum", "typedef"]),
    ("C++", &["function", "prototype", "class", "struct", "union", "enum", "typedef"]),
    ("Java", &["class", "interface", "enum", "method", "annotation"]),
    ("Rust", &["function", "method", "struct", "enum", "interface", "typedef", "macro"]),
    ("Go", &["func", "struct", "interface", "type", "talias"]),
    ("Python", &["class", "function", "member"]),
    ("JavaScript", &["function", "class", "method"]),
    ("TypeScript", &["function", "class", "method", "interface", "enum", "alias"]),
];

/// Tags of no definition a reader looks for (included headers, goto
/// labels, Go's package clauses, make targets): not counted at all.
const IGNORED: &[&str] = &["header", "label", "packageName", "package", "module", "target", "unknown", "namespace"];

/// Fathom's name for a ctags language, for a file Fathom did not index.
fn fathom_name(ctags: &str) -> String {
    match ctags {
        "C++" => "cpp".to_owned(),
        other => other.to_lowercase(),
    }
}

pub(crate) fn named(language: &str, kind: &str) -> bool {
    NAMED.iter().any(|(l, kinds)| *l == language && kinds.contains(&kind))
}

/// One tag: its file, its name, its ctags language and kind, and each
/// place the file defines it.
pub(crate) struct Tag {
    pub path: String,
    pub name: String,
    pub language: String,
    pub kind: String,
    pub at: Vec<Place>,
}

/// Where a file defines a tag: its line, and its scope there (`Schema`,
/// `cobra.Command`, `Catch::Session`; `None` at a file's top level) with
/// the scope's kind (`class`, `struct`, `package`, `function`).
pub(crate) struct Place {
    pub line: u64,
    pub scope: Option<String>,
    pub scope_kind: Option<String>,
}

impl Place {
    /// At a file's, a module's, a package's or a namespace's top level (Go's
    /// `cobra`), not in a class or a function.
    pub fn top_level(&self) -> bool {
        self.scope.is_none() || matches!(self.scope_kind.as_deref(), Some("package" | "namespace" | "module"))
    }

    /// Inside a function or a method: a local, not the project's API.
    pub fn in_function(&self) -> bool {
        matches!(self.scope_kind.as_deref(), Some("function" | "func" | "method" | "member" | "generator"))
    }
}

/// Runs ctags over `dir`, returning every tag of the languages Fathom
/// parses, once per file, name and kind (a name defined under two `#if`
/// branches is one tag, with both places); `Err` where ctags cannot be run.
pub(crate) fn tags(dir: &Path) -> Result<Vec<Tag>, String> {
    let mut child = Command::new("ctags")
        .args([
            "--output-format=json",
            "--sort=no",
            "--fields=+nKl",
            "--kinds-C=+px",
            "--kinds-C++=+px",
            "-R",
            "-f",
            "-",
        ])
        .arg(".")
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("ctags: {e} (Debian's universal-ctags)"))?;
    let stdout = child.stdout.take().expect("piped");
    let mut seen: HashMap<(String, String, String), usize> = HashMap::new();
    let mut out: Vec<Tag> = Vec::new();
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.map_err(|e| format!("ctags: {e}"))?;
        let Ok(tag) = serde_json::from_str::<Value>(&line) else { continue };
        let field = |key: &str| tag[key].as_str().unwrap_or_default().to_owned();
        let (path, name, language, kind) = (field("path"), field("name"), field("language"), field("kind"));
        if !NAMED.iter().any(|(l, _)| *l == language) || IGNORED.contains(&kind.as_str()) || name.is_empty() {
            continue;
        }
        // ctags names anonymous types `__anon…`: nothing a reader types.
        if name.starts_with("__anon") {
            continue;
        }
        let path = path.trim_start_matches("./").to_owned();
        let place = Place {
            line: tag["line"].as_u64().unwrap_or(0),
            scope: tag["scope"].as_str().map(str::to_owned),
            scope_kind: tag["scopeKind"].as_str().map(str::to_owned),
        };
        match seen.entry((path.clone(), name.clone(), kind.clone())) {
            std::collections::hash_map::Entry::Occupied(at) => out[*at.get()].at.push(place),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(out.len());
                out.push(Tag { path, name, language, kind, at: vec![place] });
            }
        }
    }
    child.wait().map_err(|e| format!("ctags: {e}"))?;
    Ok(out)
}

#[derive(Default)]
struct Tally {
    tags: usize,
    found: usize,
}

impl Tally {
    fn json(&self) -> Value {
        let recall = if self.tags == 0 {
            Value::Null
        } else {
            json!((self.found as f64 / self.tags as f64 * 10_000.0).round() / 10_000.0)
        };
        json!({"tags": self.tags, "found": self.found, "recall": recall})
    }
}

/// Writes `files` under `dir`, a folder of its own.
fn write_tree(files: Vec<(String, Vec<u8>)>, dir: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(dir);
    for (path, bytes) in &files {
        let at = dir.join(path);
        std::fs::create_dir_all(at.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&at, bytes).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Unpacks a tarball under `dir`; the folder it holds, where it holds one.
fn unpack(tarball: &Path, dir: &Path) -> Result<PathBuf, String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let status =
        Command::new("tar").arg("-xzf").arg(tarball).arg("-C").arg(dir).status().map_err(|e| format!("tar: {e}"))?;
    if !status.success() {
        return Err(format!("{} does not unpack", tarball.display()));
    }
    let entries: Vec<_> = std::fs::read_dir(dir).map_err(|e| e.to_string())?.flatten().map(|e| e.path()).collect();
    Ok(match entries.as_slice() {
        [only] if only.is_dir() => only.clone(),
        _ => dir.to_owned(),
    })
}

/// A name as written, without its spaces: ctags writes `operator <`,
/// Fathom `operator<`.
fn spaceless(name: &str) -> String {
    name.split_whitespace().collect()
}

/// Tags and indexes the folder `dir`, and compares.
fn compare(dir: &Path) -> Result<Value, String> {
    let tags = tags(dir)?;
    let started = Instant::now();
    let index =
        fathom_engine::index_dir(dir, &Options::default(), &mut Clock(Instant::now())).map_err(|e| e.to_string())?;
    let seconds = started.elapsed().as_secs_f64();
    let graph = index.graph();
    // Vendored code (a library copied in, `vendor/`, `third_party/`) is not
    // the project's: Fathom leaves it out by design, and its tags are
    // counted apart. A generated file's tags count: issue 62 indexes them.
    let vendored = Vendored::of(&index);
    // Every symbol's simple name, by file; C++'s `ns::f` is named `f`.
    let mut names: HashMap<&str, HashSet<String>> = HashMap::new();
    let mut languages: HashMap<&str, Language> = HashMap::new();
    let mut keyword_named: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut words: HashMap<Language, HashSet<String>> = HashMap::new();
    let mut reserved: HashMap<Language, HashSet<String>> = HashMap::new();
    // Named after a word that is a keyword only in context (Rust's
    // `default`, Java's `open`): legitimate names, listed apart.
    let mut contextual: BTreeMap<String, usize> = BTreeMap::new();
    for (_, node) in graph.nodes() {
        let Some(file) = node.file else { continue };
        if matches!(node.kind, SymbolKind::Module | SymbolKind::Package) {
            continue;
        }
        let path = graph.file(file).path.as_str();
        let simple = node.name.rsplit("::").next().unwrap_or(&node.name);
        names.entry(path).or_default().insert(spaceless(simple));
        languages.insert(path, node.language);
        let words = words
            .entry(node.language)
            .or_insert_with(|| fathom_parse::grammar_words(node.language).into_iter().collect());
        let reserved = reserved.entry(node.language).or_insert_with(|| fathom_parse::reserved_words(node.language));
        // A test declared by a macro is named by its author's string
        // (`TEST_CASE("noexcept")`): a title, not an identifier.
        let titled = node.is_test();
        if reserved.contains(simple) && !titled {
            keyword_named
                .entry(format!("{} {}", node.language.name(), simple))
                .or_default()
                .push(format!("{path}:{}", node.span.start_line));
        } else if words.contains(simple) {
            *contextual.entry(format!("{} {}", node.language.name(), simple)).or_default() += 1;
        }
    }
    let mut by_kind: BTreeMap<(String, String), Tally> = BTreeMap::new();
    let mut headline: BTreeMap<String, Tally> = BTreeMap::new();
    // The bodies of tests declared by a macro (doctest's and Catch2's
    // `TEST_CASE("…") { … }`, read from the balanced braces): ctags does not
    // know the macro, so it reads the statements in the body at namespace
    // scope, and `CHECK(a == b);` becomes a prototype named `CHECK`.
    let mut test_bodies: HashMap<&str, Vec<(u32, u32)>> = HashMap::new();
    for (_, node) in graph.nodes() {
        if let Some(file) = node.file
            && node.is_test()
            && matches!(node.kind, SymbolKind::Function | SymbolKind::Method)
            && node.span.end_line > node.span.start_line
        {
            let path = graph.file(file).path.as_str();
            test_bodies.entry(path).or_default().push((node.span.start_line, node.span.end_line));
        }
    }
    let in_test_body = |tag: &Tag| {
        let bodies = test_bodies.get(tag.path.as_str()).map_or(&[][..], Vec::as_slice);
        tag.at
            .iter()
            .all(|place| bodies.iter().any(|&(start, end)| (start as u64) < place.line && place.line <= end as u64))
    };
    let mut missed: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut vendored_tags = 0;
    let mut statements_in_tests = 0;
    for tag in &tags {
        if vendored.holds(&tag.path) {
            vendored_tags += 1;
            continue;
        }
        if tag.kind == "prototype" && in_test_body(tag) {
            statements_in_tests += 1;
            continue;
        }
        // A file Fathom did not index (an unknown extension, a skipped
        // file) loses its tags too: that is what a reader meets.
        let found = names.get(tag.path.as_str()).is_some_and(|n| n.contains(&spaceless(&tag.name)));
        let tally = by_kind.entry((tag.language.clone(), tag.kind.clone())).or_default();
        tally.tags += 1;
        tally.found += usize::from(found);
        if named(&tag.language, &tag.kind) {
            // By the language Fathom reads the file as (ctags reads every
            // `.h` as C++), else by ctags': a file Fathom left out is missed.
            let language =
                languages.get(tag.path.as_str()).map_or_else(|| fathom_name(&tag.language), |l| l.name().to_owned());
            let tally = headline.entry(language).or_default();
            tally.tags += 1;
            tally.found += usize::from(found);
            if !found {
                let list = missed.entry((tag.language.clone(), tag.kind.clone())).or_default();
                if list.len() < 12 {
                    list.push(format!("{}:{}", tag.path, tag.name));
                }
            }
        }
    }
    let kinds: serde_json::Map<String, Value> =
        by_kind.iter().map(|((language, kind), tally)| (format!("{language} {kind}"), tally.json())).collect();
    let named: serde_json::Map<String, Value> =
        headline.iter().map(|(language, tally)| (language.clone(), tally.json())).collect();
    let missed: serde_json::Map<String, Value> =
        missed.into_iter().map(|((language, kind), list)| (format!("{language} {kind}"), json!(list))).collect();
    let keyword_count: usize = keyword_named.values().map(Vec::len).sum();
    Ok(json!({
        "named": named, "kinds": kinds, "missed_examples": missed,
        "keyword_named": keyword_count, "contextual_named": contextual, "vendored_tags": vendored_tags,
        "prototypes_in_test_bodies": statements_in_tests,
        "keyword_examples": keyword_named.into_iter().take(20).map(|(k, at)| json!({"name": k, "at": at.into_iter().take(3).collect::<Vec<_>>()})).collect::<Vec<_>>(),
        "index_s": (seconds * 100.0).round() / 100.0,
    }))
}

/// The paths the archive left out as vendored (a folder's ending in `/`).
pub(crate) struct Vendored(Vec<String>);

impl Vendored {
    pub fn of(index: &Index) -> Vendored {
        let skipped = index.summary().skipped.iter();
        Vendored(skipped.filter(|s| s.reason == fathom_archive::SkipReason::Vendored).map(|s| s.path.clone()).collect())
    }

    pub fn holds(&self, path: &str) -> bool {
        self.0.iter().any(|v| if v.ends_with('/') { path.starts_with(v.as_str()) } else { path == v })
    }
}

/// Puts a project's tree in the folder given; the folder its files are then
/// under.
pub(crate) type Tree = Box<dyn FnOnce(&Path) -> Result<PathBuf, String>>;

/// A project read against ctags: its name, its language (as
/// `tests/eval/questions.json` writes it), and how to put its tree in a
/// folder.
pub(crate) struct Project {
    pub name: String,
    pub language: String,
    pub tree: Tree,
}

/// The question set's projects at their pinned commits, each read out of
/// its clone (`locate::clone_of`, the corpora cache's `swe-dev` beside
/// `$FATHOM_SWE_REPOS`) when its tree is asked for.
pub(crate) fn question_projects(root: &Path, corpora: &Path) -> Vec<Project> {
    let set: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/eval/questions.json")).expect("tests/eval/questions.json reads"),
    )
    .expect("tests/eval/questions.json parses");
    let field = |project: &Value, key: &str| {
        project[key].as_str().expect("a project names its repo, language and commit").to_owned()
    };
    let mut out = Vec::new();
    for project in set["projects"].as_array().into_iter().flatten() {
        let (repo, commit, cache) = (field(project, "repo"), field(project, "commit"), corpora.join("swe-dev"));
        let name = repo.clone();
        let tree: Tree = Box::new(move |dir: &Path| {
            let files =
                crate::locate::clone_of(&repo, &cache).and_then(|clone| crate::locate::tree_files(&clone, &commit))?;
            write_tree(files, dir)?;
            Ok(dir.to_owned())
        });
        out.push(Project { name, language: field(project, "language"), tree });
    }
    out
}

/// A pinned corpus, a tarball of the corpora cache (`scripts/corpora.sh`),
/// named for its file without the extension.
pub(crate) fn corpus(corpora: &Path, file: &str, language: &str) -> Project {
    let path = corpora.join(file);
    let tree: Tree = Box::new(move |dir: &Path| {
        if !path.is_file() {
            return Err(format!("{} is absent (scripts/corpora.sh fetches it)", path.display()));
        }
        unpack(&path, dir)
    });
    let name = [".tar.gz", ".tgz", ".crate"].iter().fold(file, |name, ext| name.trim_end_matches(ext));
    Project { name: name.to_owned(), language: language.to_owned(), tree }
}

/// The pinned corpora beside the question set's projects (a tarball each,
/// read from the corpora cache); absent ones are skipped.
/// (jq's and Catch2's are the question set's projects at other commits:
/// left out, so that no project counts twice.)
const CORPORA: &[(&str, &str)] =
    &[("gson-2.10.1.tar.gz", "java"), ("cobra-1.8.1.tar.gz", "go"), ("bytes-1.7.2.crate", "rust")];

/// Checkouts named by `FATHOM_EVAL_CHECKOUTS=DIR[:DIR…]`, read where they
/// are: projects no set here holds (ones nobody here has tuned on), measured
/// the same way by the definitions and the typed names, each named by its
/// folder and grouped as `checkout`.
pub(crate) fn checkouts() -> Vec<Project> {
    let Some(dirs) = std::env::var_os("FATHOM_EVAL_CHECKOUTS") else { return Vec::new() };
    std::env::split_paths(&dirs)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| {
            let name = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
            let read = move |_: &Path| match dir.is_dir() {
                true => Ok(dir),
                false => Err(format!("{} is not a folder", dir.display())),
            };
            let tree: Tree = Box::new(read);
            Project { name, language: "checkout".to_owned(), tree }
        })
        .collect()
}

/// Whether Debian's `universal-ctags` runs here.
pub(crate) fn installed() -> bool {
    Command::new("ctags").arg("--version").stdout(Stdio::null()).status().is_ok()
}

pub fn evaluate(root: &Path, corpora: &Path) -> Value {
    if !installed() {
        eprintln!("eval: ctags is not installed (Debian's universal-ctags); skipping the definitions set");
        return json!({"skipped": "ctags is not installed (Debian's universal-ctags)"});
    }
    let work = std::env::temp_dir().join(format!("fathom-ctags-{}", std::process::id()));
    let mut projects = serde_json::Map::new();
    let mut skipped = Vec::new();
    let mut sources = question_projects(root, corpora);
    sources.extend(CORPORA.iter().map(|(file, language)| corpus(corpora, file, language)));
    sources.extend(checkouts());
    let mut totals: BTreeMap<String, Tally> = BTreeMap::new();
    let mut keyword_named = 0;
    for Project { name, tree, .. } in sources {
        let result = tree(&work.join("tree")).and_then(|dir| compare(&dir));
        match result {
            Ok(report) => {
                for (language, tally) in report["named"].as_object().into_iter().flatten() {
                    let total = totals.entry(language.clone()).or_default();
                    total.tags += tally["tags"].as_u64().unwrap_or(0) as usize;
                    total.found += tally["found"].as_u64().unwrap_or(0) as usize;
                }
                keyword_named += report["keyword_named"].as_u64().unwrap_or(0);
                projects.insert(name, report);
            }
            Err(why) => {
                eprintln!("eval: {why}; skipping {name}");
                skipped.push(json!({"project": name, "why": why}));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    let languages: serde_json::Map<String, Value> = totals.iter().map(|(l, t)| (l.clone(), t.json())).collect();
    json!({"languages": languages, "keyword_named": keyword_named, "projects": projects, "skipped": skipped})
}

pub fn print_table(report: &Value) {
    println!(
        "\nDefinitions against universal-ctags, file by file (the named kinds: functions, prototypes, types, methods)"
    );
    println!("{:<28} {:>7} {:>7} {:>7}", "language / project", "tags", "found", "recall");
    let row = |name: &str, t: &Value| {
        println!(
            "{:<28} {:>7} {:>7} {:>7.3}",
            name,
            t["tags"].as_u64().unwrap_or(0),
            t["found"].as_u64().unwrap_or(0),
            t["recall"].as_f64().unwrap_or(f64::NAN)
        );
    };
    for (language, tally) in report["languages"].as_object().into_iter().flatten() {
        row(language, tally);
    }
    for (project, value) in report["projects"].as_object().into_iter().flatten() {
        for (language, tally) in value["named"].as_object().into_iter().flatten() {
            row(&format!("  {project} ({language})"), tally);
        }
    }
    println!("symbols named after a reserved word: {}", report["keyword_named"]);
}
