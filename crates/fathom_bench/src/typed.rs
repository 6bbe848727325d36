//! Typed names: what a reader types into the search box after reading a
//! project's guide, an API name as the guide writes it, answered by the
//! file that defines it.
//!
//! Nobody writes a name or its answer here. The projects are the
//! definitions set's (`ctags`): the question set's projects at their pinned
//! commits, read out of their clones, and the pinned corpora (Flask, Django,
//! RxJS, Gson, Cobra; marshmallow's, Express's, bytes', Catch2's and jq's
//! tarballs stand in for the question set's project where its clone is
//! absent). For each:
//! - the names: every guide `questions` reads (and Sphinx's `.txt` sources
//!   under `docs/`, Django's), by path, section by section: the API names
//!   its code spans and code blocks mention (`questions::identifiers`), in
//!   the form written. A span holding one name alone keeps its qualifier
//!   (`Flask.route`, `tokio::spawn`, `Router#route`, `cobra.Command`); a
//!   reStructuredText role's `~` or title shows its last part, as Sphinx
//!   shows it, and a role that names no code (`:doc:`, `:ref:`, `:mod:`)
//!   is not read, nor is a note's or a warning's prose read as a literal
//!   block. Not typed: a receiver (`self.`, `this.`), a file's name
//!   (`package.json`), a module (`marshmallow.schema`, what an import line
//!   names: `from django.utils import timezone`), and what the guide's own
//!   code defines (the tutorial's `def results(…):`). Each name once, at
//!   most [`MAX_PER_PROJECT`], taken from each guide in turn;
//! - the gold, read from code by universal-ctags, not by Fathom's parser:
//!   the files whose tags of the kinds a reader names (`ctags::named`, less
//!   C's and C++'s prototypes, which declare, and less definitions local to
//!   a function) define the name's last part, exact case, in the project's
//!   own source. Own source is the role the index's roles give a file
//!   (`fathom_search::roles`: Linguist's rules, then the project's
//!   conventions), or for a file Fathom did not index its path's
//!   (`roles::by_path`), outside the folders the archive leaves out as
//!   vendored: no test, example, benchmark, documentation, build script,
//!   vendored or generated file, and no amalgamation (Fathom's roles', or
//!   one the tags show: a file defining again at least half of its names
//!   from five other files, as `extras/catch_amalgamated.cpp` does). A
//!   qualified name keeps the definitions whose ctags scope, or file path,
//!   holds the qualifier's last part (`Schema.load`: the `load` of
//!   `Schema`; `marshmallow.fields.Nested`: the one in `fields.py`); where
//!   none does, a receiver (`app.route`) keeps them all and a path
//!   (`std::cout`) none. A name the project also binds as a top-level
//!   variable elsewhere (Django's `apps`) is left out, and so is one defined
//!   in more than [`MAX_FILES_PER_NAME`] files (too ambiguous to ask, as
//!   the question set has it) or in none.
//!
//! Each name goes to `Index::search` with the product's defaults (hybrid,
//! the static table's meaning, the graph expansion), on an index built as a
//! dropped folder's is, and to plain BM25 over whole files in the same run.
//! Scored: Acc@1 (the first hit's file defines the name), Acc@5 and MRR
//! over distinct files in the hits' order, and "named as typed": the first
//! hit is a symbol whose name is the name's last part, exact case (for
//! BM25's whole files not defined: `null`). Per language, per project and
//! overall; each project's names are listed with their gold files and
//! lines, and its misses with Fathom's first three hits.
//!
//! Skipped, saying so, where `ctags` is not installed; a project, where
//! neither its clone nor a tarball standing in for it is there.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, LazyLock};
use std::time::Instant;

use fathom_engine::{Index, Options, SearchOptions};
use fathom_search::roles::{Role, by_path};
use fathom_static::StaticModel;
use regex::Regex;
use serde_json::{Value, json};

use crate::ctags::{Place, Project, Tag, Vendored};
use crate::questions::{MAX_FILES_PER_NAME, Section};

/// At most this many names from one project.
const MAX_PER_PROJECT: usize = 40;

/// The pinned corpora, each with its language and, where it is a question
/// set's project at another commit, that project: it stands in for the
/// project where the clone is absent, and is left out where it is there.
const CORPORA: &[(&str, &str, Option<&str>)] = &[
    ("flask-3.0.3.tar.gz", "python", None),
    ("Django-5.0.6.tar.gz", "python", None),
    ("marshmallow-3.21.3.tar.gz", "python", Some("marshmallow-code/marshmallow")),
    ("express-4.21.2.tgz", "js", Some("expressjs/express")),
    ("rxjs-7.8.1.tgz", "ts", None),
    ("gson-2.10.1.tar.gz", "java", None),
    ("cobra-1.8.1.tar.gz", "go", None),
    ("bytes-1.7.2.crate", "rust", Some("tokio-rs/bytes")),
    ("catch2-3.7.1.tar.gz", "cpp", Some("catchorg/Catch2")),
    ("jq-1.7.1.tar.gz", "c", Some("jqlang/jq")),
];

/// Receivers a reader does not type: `self.data` is typed `data`.
const RECEIVERS: &[&str] = &["self", "this", "cls", "super"];

/// A typed name's qualifier, where it has one, and its last part:
/// `Flask.route` → (`Flask`, `route`), `tokio::sync::Mutex` →
/// (`tokio::sync`, `Mutex`), `Router#route` → (`Router`, `route`).
pub fn split_qualified(typed: &str) -> (Option<&str>, &str) {
    let cut = ["::", ".", "#"].iter().filter_map(|sep| typed.rfind(sep).map(|at| (at, sep.len()))).max();
    match cut {
        Some((at, len)) => (Some(&typed[..at]), &typed[at + len..]),
        None => (None, typed),
    }
}

/// The name a code span shows where it holds one name alone, as a reader
/// types it, and whether it was written qualified (an API's name for
/// certain, however short): `Flask.route`, `tokio::spawn()`, `@app.route`,
/// `Router#route`; a reStructuredText role's `~marshmallow.Schema` shows
/// `Schema`, and its `title <target>` the title; `self.data` is `data`.
fn alone(span: &str) -> Option<(String, bool)> {
    static NAME: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^@?(~?)([A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|#)[A-Za-z_][A-Za-z0-9_]*)*)(?:\(\))?$")
            .expect("the pattern compiles")
    });
    let span = span.trim();
    let span = match span.split_once(" <") {
        Some((title, target)) if target.ends_with('>') => title.trim(),
        _ => span,
    };
    let found = NAME.captures(span)?;
    let written = found.get(2)?.as_str();
    let shown = match split_qualified(written) {
        (Some(_), last) if !found[1].is_empty() => last,
        (Some(qualifier), last) if RECEIVERS.contains(&qualifier.split(['.', ':']).next().unwrap_or_default()) => last,
        _ => written,
    };
    Some((shown.to_owned(), shown != written || split_qualified(written).0.is_some()))
}

/// A project's files, by path and by name, for telling a file's or a
/// module's name from an API's.
#[derive(Default)]
pub struct Files {
    paths: Vec<String>,
    names: HashSet<String>,
}

impl Files {
    pub fn new(paths: Vec<String>) -> Files {
        let names = paths.iter().map(|p| p.rsplit('/').next().unwrap_or(p).to_owned()).collect();
        Files { paths, names }
    }

    /// Whether a dotted span names a file, not an API: a file of the tree
    /// (`package.json`, `setup.py`), or a lowercase `name.ext` whose
    /// extension Linguist knows (`config.toml`, `app.py`).
    fn is_file_name(&self, name: &str) -> bool {
        self.names.contains(name)
            || name.split_once('.').is_some_and(|(stem, ext)| {
                !ext.contains('.')
                    && !stem.chars().any(char::is_uppercase)
                    && !ext.chars().any(char::is_uppercase)
                    && crate::questions::block_languages(ext).is_some()
            })
    }

    /// Whether a qualified name names a module or a package of the tree
    /// (`marshmallow.schema`, `django.contrib.messages`, `tokio::sync`),
    /// which no definition answers.
    fn is_module(&self, name: &str) -> bool {
        let (Some(_), _) = split_qualified(name) else { return false };
        let as_path = name.replace("::", "/").replace(['.', '#'], "/");
        let (file, folder) = (format!("{as_path}."), format!("{as_path}/"));
        self.paths.iter().any(|p| {
            let at = |needle: &str| p.starts_with(needle) || p.contains(&format!("/{needle}"));
            at(&file) || at(&folder)
        })
    }
}

/// The API names a section's code mentions, in the form typed, in order,
/// once each: `questions::identifiers`' names, qualified as written where a
/// span holds one alone ([`alone`]); what an import line brings in
/// ([`imported`]), modules left out; no file's or module's name.
pub fn typed_names(code: &[String], files: &Files) -> Vec<String> {
    let mut modules: HashSet<String> = HashSet::new();
    let code: Vec<String> =
        code.iter().map(|line| imported(line, files, &mut modules).unwrap_or_else(|| line.clone())).collect();
    let found: HashSet<String> = crate::questions::identifiers(&code).into_iter().collect();
    let mut out: Vec<String> = Vec::new();
    for line in &code {
        let names = match alone(line) {
            // Written qualified, it is an API's name; one part alone is kept
            // as `identifiers` keeps it (a bare lowercase word only where
            // the code uses it).
            Some((name, qualified)) => {
                let last = split_qualified(&name).1;
                let keep = if qualified { last.len() >= 3 && !files.is_file_name(&name) } else { found.contains(last) };
                if keep { vec![name] } else { Vec::new() }
            }
            None => crate::questions::identifiers(std::slice::from_ref(line)),
        };
        for name in names {
            if !files.is_module(&name) && !modules.contains(&name) && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// What an import line brings in, alone: `from django.apps import
/// AppConfig` → `AppConfig`, `import com.google.gson.Gson;` → `Gson`, `use
/// tokio::sync::{Mutex, mpsc};` → `{Mutex, mpsc}`, a console's prompt
/// (`>>> `) read past. The modules it names are not definitions (`apps`,
/// `sync`), nor is a module it imports (`from django.utils import
/// timezone`, where `django/utils/timezone.py` is a file of `files`): that
/// one joins `modules`. `None` for any other line.
fn imported(line: &str, files: &Files, modules: &mut HashSet<String>) -> Option<String> {
    static FROM: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*from\s+([\w.]+)\s+import\s+(.*)$").expect("the pattern compiles"));
    static IMPORT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^\s*import\s+(?:static\s+)?([\w.]+)(?:\s+as\s+\w+)?\s*;?\s*$").expect("the pattern compiles")
    });
    static USE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*(?:pub\s+)?use\s+(.*?);?\s*$").expect("the pattern compiles"));
    static ALIAS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s+as\s+\w+").expect("the pattern compiles"));
    static PATH: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\w+::").expect("the pattern compiles"));
    let line = line.trim_start();
    let line = line.strip_prefix(">>> ").or_else(|| line.strip_prefix("... ")).unwrap_or(line);
    if let Some(from) = FROM.captures(line) {
        let names = ALIAS.replace_all(&from[2], "");
        let names = names.split([',', '(', ')', ' ']).filter(|n| !n.is_empty());
        let (imported, kept): (Vec<&str>, Vec<&str>) =
            names.partition(|n| files.is_module(&format!("{}.{n}", &from[1])));
        modules.extend(imported.into_iter().map(str::to_owned));
        return Some(kept.join(", "));
    }
    if let Some(module) = IMPORT.captures(line) {
        return Some(module[1].rsplit('.').next().unwrap_or_default().to_owned());
    }
    USE.captures(line).map(|used| PATH.replace_all(&ALIAS.replace_all(&used[1], ""), "").into_owned())
}

/// The section text as code is read from it: the reStructuredText roles
/// that name no code left out (`:doc:`, `:ref:`, `:term:`, `:setting:`,
/// `:djadmin:`, and `:mod:`: a module is no definition; Sphinx's code
/// roles, `:class:`, `:meth:`, `:func:`, `:attr:`, `:exc:`, in any domain,
/// stay), and a directive without arguments (`.. note::`, `.. warning::`)
/// no longer read as opening a literal block: its content is prose.
fn code_roles(body: &str) -> String {
    static ROLE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r":(?:[a-z]+:)?([a-z]+):`[^`]*`").expect("the pattern compiles"));
    static DIRECTIVE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?m)^(\s*\.\. [\w:-]+)::[ \t]*$").expect("the pattern compiles"));
    const CODE: &[&str] = &[
        "class",
        "func",
        "function",
        "meth",
        "method",
        "attr",
        "attribute",
        "exc",
        "exception",
        "data",
        "obj",
        "const",
        "member",
        "type",
        "struct",
        "macro",
        "var",
        "enum",
        "enumerator",
        "any",
        "prop",
    ];
    let body = ROLE.replace_all(
        body,
        |role: &regex::Captures| {
            if CODE.contains(&&role[1]) { role[0].to_owned() } else { String::new() }
        },
    );
    DIRECTIVE
        .replace_all(&body, |directive: &regex::Captures| {
            let name = directive[1].trim_start().trim_start_matches(".. ");
            let code = matches!(name, "code" | "code-block" | "sourcecode" | "doctest" | "testcode");
            if code { directive[0].to_owned() } else { format!("{}:", &directive[1]) }
        })
        .into_owned()
}

/// The names a guide's own code defines, with a body (`def results(…):`,
/// `class Event {`, `func main() {`): the reader's code, not the
/// project's, however a namesake in the project is called. A signature
/// alone (`struct adl_serializer;`) defines nothing.
fn defined_in(code: &[String]) -> HashSet<String> {
    static DEFINES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"\b(?:def|class|fn|func|function|struct|interface|enum|trait|type|record|object)\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)[^;]*[:{]\s*$",
        )
        .expect("the pattern compiles")
    });
    code.iter().filter_map(|line| DEFINES.captures(line).map(|d| d[1].to_owned())).collect()
}

/// Where a typed name is defined: each gold file with its lines.
pub type Gold = BTreeMap<String, BTreeSet<u64>>;

/// The gold of `typed` among the tags of its last part (`tags`): the
/// definitions (the named kinds, not prototypes, and none local to a
/// function) of that exact name in the files `own` calls the project's own
/// source; those in the qualifier's scope or path where the name is
/// qualified and any are. None where the project's own source also binds
/// the name at a top level, as a variable or constant, outside those files
/// (Django's `apps`, a registry, beside a migration state's `apps`
/// method): the guide may mean that variable, which no named kind holds.
pub fn gold(typed: &str, tags: &[&Tag], own: &dyn Fn(&str) -> bool) -> Gold {
    const VARIABLES: &[&str] = &["variable", "constant", "var", "const"];
    let (qualifier, last) = split_qualified(typed);
    let own_tags = tags.iter().copied().filter(|t| t.name == last && own(&t.path));
    let defining: Vec<&Tag> =
        own_tags.clone().filter(|t| t.kind != "prototype" && crate::ctags::named(&t.language, &t.kind)).collect();
    let part = qualifier.map(|q| split_qualified(q).1);
    let mut all = Gold::new();
    let mut qualified = Gold::new();
    for tag in defining {
        let by_path = part.is_some_and(|part| {
            tag.path.split('/').any(|folder| folder == part || folder.split('.').next() == Some(part))
        });
        for place in tag.at.iter().filter(|p| !p.in_function()) {
            all.entry(tag.path.clone()).or_default().insert(place.line);
            let scope = place.scope.as_deref();
            let by_scope = scope.is_some_and(|s| part.is_some_and(|p| s.split(['.', ':']).any(|x| x == p)));
            if by_scope || by_path {
                qualified.entry(tag.path.clone()).or_default().insert(place.line);
            }
        }
    }
    // A receiver (`app.route`, `cmd.Execute`) is the reader's variable, and
    // leaves every definition; a path (`std::cout`) names a namespace, and
    // one of another project where the project has none of its names.
    let gold = match (qualifier, qualified.is_empty()) {
        (_, false) => qualified,
        (Some(_), true) if typed.contains("::") => Gold::new(),
        _ => all,
    };
    let mut variables = own_tags.filter(|t| VARIABLES.contains(&t.kind.as_str()) && t.at.iter().any(Place::top_level));
    if variables.any(|t| !gold.contains_key(&t.path)) { Gold::new() } else { gold }
}

/// The files that define again what many other files define, by their
/// tags: an amalgamation (`extras/catch_amalgamated.cpp`), which copies the
/// project's source and is not where it is written. The rule of the
/// index's roles (`fathom_search::roles`: at least half of its names
/// defined in at least five other files, which it copies at least 30% of),
/// read from ctags' tags of `own` files rather than from Fathom's graph. A
/// prototype defines nothing: a C header that declares what five sources
/// define (jq's `src/jv.h`) is the API, not a copy.
fn amalgamations(tags: &[Tag], own: &dyn Fn(&str) -> bool) -> HashSet<String> {
    let mut names: BTreeMap<&str, HashSet<&str>> = BTreeMap::new();
    let mut definers: HashMap<&str, HashSet<&str>> = HashMap::new();
    let defines = |t: &&Tag| crate::ctags::named(&t.language, &t.kind) && t.kind != "prototype" && own(&t.path);
    for tag in tags.iter().filter(defines) {
        names.entry(tag.path.as_str()).or_default().insert(tag.name.as_str());
        definers.entry(tag.name.as_str()).or_default().insert(tag.path.as_str());
    }
    let mut out = HashSet::new();
    for (path, defined) in &names {
        if defined.len() < 10 {
            continue;
        }
        let mut others: HashSet<&str> = HashSet::new();
        let mut again = 0;
        for name in defined {
            let elsewhere: Vec<&str> = definers[name].iter().copied().filter(|p| p != path).collect();
            again += usize::from(!elsewhere.is_empty());
            others.extend(elsewhere);
        }
        let copied_from: usize = others.iter().map(|o| names[o].len()).sum();
        if again * 2 >= defined.len() && others.len() >= 5 && again as f64 >= 0.3 * copied_from as f64 {
            out.insert((*path).to_owned());
        }
    }
    out
}

/// A project's guides by path, with their sections: as `questions::guides`
/// reads them, and Sphinx's `.txt` sources under `docs/` as
/// reStructuredText; none in a test's, vendored or generated folder. With
/// them, every file of the tree, and every file's name.
fn guides(dir: &Path) -> (Vec<(String, Vec<Section>)>, Files) {
    let mut paths = Vec::new();
    let mut folders = vec![dir.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                folders.push(path);
            } else if let Ok(relative) = path.strip_prefix(dir) {
                paths.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    paths.sort();
    let mut out = Vec::new();
    for path in &paths {
        let shown = path.strip_prefix("repo/").unwrap_or(path);
        let sphinx = shown
            .strip_suffix(".txt")
            .map(|stem| format!("{stem}.rst"))
            .filter(|rst| rst.split('/').any(|f| f == "docs" || f == "doc") && crate::questions::is_guide(rst));
        let is_guide = crate::questions::is_guide(shown) || sphinx.is_some();
        let is_crate_root = shown.ends_with("/lib.rs") || shown.ends_with("/mod.rs") || shown == "lib.rs";
        if !(is_guide || is_crate_root) || matches!(by_path(shown).role, Role::Test | Role::Vendored | Role::Generated)
        {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(dir.join(path)) else { continue };
        if is_guide {
            out.push((shown.to_owned(), crate::questions::sections(sphinx.as_deref().unwrap_or(shown), &text)));
        } else if let Some(doc) = crate::questions::rustdoc(shown, &text) {
            out.push((shown.to_owned(), crate::questions::sections("doc.md", &doc)));
        }
    }
    let paths = paths.iter().map(|p| p.strip_prefix("repo/").unwrap_or(p).to_owned()).collect();
    (out, Files::new(paths))
}

/// One typed name: as typed, the guide it comes from, and its gold.
#[derive(Clone)]
struct Typed {
    query: String,
    guide: String,
    gold: Gold,
}

/// A project's typed names, from each guide in turn, with their gold.
fn typed_set(dir: &Path, index: &Index, tags: &[Tag]) -> Vec<Typed> {
    let (guides, files) = guides(dir);
    let languages = crate::questions::source_languages(index);
    let counts = |info: &str| crate::questions::block_counts(info, &languages);
    let indexed: HashSet<String> = index.file_list().into_iter().map(|f| f.path).collect();
    let roles = index.retrieval().roles();
    let vendored = Vendored::of(index);
    let source = |path: &str| {
        let role = if indexed.contains(path) { roles.of(path).role } else { by_path(path).role };
        role == Role::Source && roles.sources_of(path).is_empty() && !vendored.holds(path)
    };
    let copies = amalgamations(tags, &source);
    if !copies.is_empty() {
        eprintln!("typed: amalgamations left out of the gold: {copies:?}");
    }
    let own = |path: &str| source(path) && !copies.contains(path);
    let mut by_name: HashMap<&str, Vec<&Tag>> = HashMap::new();
    for tag in tags {
        by_name.entry(tag.name.as_str()).or_default().push(tag);
    }
    let mut typed_once = HashSet::new();
    let mut asked = HashSet::new();
    let mut by_guide: Vec<Vec<Typed>> = Vec::new();
    for (guide, sections) in guides {
        let code: Vec<Vec<String>> =
            sections.iter().map(|section| crate::questions::code_of(&code_roles(&section.body), &counts)).collect();
        let readers = defined_in(&code.concat());
        let mut names = Vec::new();
        for query in code.iter().flat_map(|code| typed_names(code, &files)) {
            let last = split_qualified(&query).1;
            if readers.contains(last) || !typed_once.insert(query.clone()) {
                continue;
            }
            let gold = gold(&query, by_name.get(last).map_or(&[], Vec::as_slice), &own);
            // The same definitions typed twice (`Schema`, then
            // `marshmallow.Schema`) are asked once.
            let defining: Vec<String> = gold.keys().cloned().collect();
            if gold.is_empty() || gold.len() > MAX_FILES_PER_NAME || !asked.insert((last.to_owned(), defining)) {
                continue;
            }
            names.push(Typed { query, guide: guide.clone(), gold });
        }
        if !names.is_empty() {
            by_guide.push(names);
        }
    }
    crate::questions::in_turn(&by_guide, MAX_PER_PROJECT)
}

/// Acc@1, Acc@5, MRR and named as typed of Fathom's search, and BM25's.
#[derive(Default)]
struct Score {
    n: usize,
    at1: usize,
    at5: usize,
    rr: f64,
    named: usize,
    bm25_at1: usize,
    bm25_at5: usize,
    bm25_rr: f64,
}

/// How one name was answered: the 0-based place of the first gold file in
/// Fathom's ranking and in BM25's, and whether Fathom's first hit is named
/// as typed.
#[derive(Clone, Copy)]
struct Answered {
    fathom: Option<usize>,
    named: bool,
    bm25: Option<usize>,
}

impl Score {
    fn add(&mut self, Answered { fathom, named, bm25 }: Answered) {
        self.n += 1;
        self.named += usize::from(named);
        for (place, at1, at5, rr) in [
            (fathom, &mut self.at1, &mut self.at5, &mut self.rr),
            (bm25, &mut self.bm25_at1, &mut self.bm25_at5, &mut self.bm25_rr),
        ] {
            if let Some(place) = place {
                *at1 += usize::from(place == 0);
                *at5 += usize::from(place < 5);
                *rr += 1.0 / (place + 1) as f64;
            }
        }
    }

    fn json(&self) -> Value {
        let n = self.n.max(1) as f64;
        let pct = |x: usize| (x as f64 * 1000.0 / n).round() / 10.0;
        let mrr = |rr: f64| (rr / n * 10_000.0).round() / 10_000.0;
        json!({"names": self.n,
               "fathom": {"acc_at_1": pct(self.at1), "acc_at_5": pct(self.at5), "mrr": mrr(self.rr),
                          "named_as_typed": pct(self.named)},
               "bm25": {"acc_at_1": pct(self.bm25_at1), "acc_at_5": pct(self.bm25_at5), "mrr": mrr(self.bm25_rr),
                        "named_as_typed": Value::Null}})
    }
}

/// Tags, indexes and asks one project's typed names; its report, and each
/// name's places for the totals.
fn measure(name: &str, dir: &Path, statics: Option<&Arc<StaticModel>>) -> Result<(Value, Vec<Answered>), String> {
    let tags = crate::ctags::tags(dir)?;
    let started = Instant::now();
    let mut index = fathom_engine::index_dir(dir, &Options::default(), &mut crate::Clock(Instant::now()))
        .map_err(|e| e.to_string())?;
    if let Some(model) = statics {
        index.build_static(Arc::clone(model)).map_err(|e| e.to_string())?;
    }
    let index_s = started.elapsed().as_secs_f64();
    let set = typed_set(dir, &index, &tags);
    let whole_files = crate::locate::WholeFileBm25::new(&index);
    let roles = index.retrieval().roles();
    let options = SearchOptions { k: 100, ..SearchOptions::default() };
    let (mut places, mut names, mut misses) = (Vec::new(), Vec::new(), Vec::new());
    let mut score = Score::default();
    for typed in &set {
        let results = index.search(&typed.query, &options, None);
        let mut seen = HashSet::new();
        let files: Vec<&str> = results.hits.iter().map(|h| h.file.as_str()).filter(|f| seen.insert(*f)).collect();
        let fathom = files.iter().position(|f| typed.gold.contains_key(*f));
        let last = split_qualified(&typed.query).1;
        let named = results.hits.first().is_some_and(|h| h.name.rsplit("::").next() == Some(last));
        let bm25 = whole_files.search(&typed.query).iter().position(|f| typed.gold.contains_key(f));
        let answered = Answered { fathom, named, bm25 };
        score.add(answered);
        places.push(answered);
        let rank = |place: Option<usize>| place.map(|p| p + 1);
        names.push(json!({"query": typed.query, "guide": typed.guide, "gold": typed.gold,
            "fathom_first_gold": rank(fathom), "named_as_typed": named, "bm25_first_gold": rank(bm25)}));
        if fathom != Some(0) || !named {
            let top: Vec<Value> = results
                .hits
                .iter()
                .take(3)
                .map(|h| {
                    json!({"file": h.file, "line": h.start_line, "symbol": h.symbol, "name": h.name,
                           "kind": h.kind.name(), "role": roles.of(&h.file).role})
                })
                .collect();
            misses.push(json!({"query": typed.query, "gold": typed.gold, "fathom_first_gold": rank(fathom),
                "named_as_typed": named, "top": top}));
        }
    }
    eprintln!("typed: {name}: {} names (indexed in {index_s:.1} s)", set.len());
    let report = json!({"scores": score.json(), "names": names, "misses": misses,
        "index_s": (index_s * 100.0).round() / 100.0});
    Ok((report, places))
}

/// Generates the set for every project and scores Fathom's search (with
/// the static table where `statics` is loaded) and plain BM25 on it.
pub fn evaluate(root: &Path, corpora: &Path, statics: Option<Arc<StaticModel>>) -> Value {
    if !crate::ctags::installed() {
        eprintln!("eval: ctags is not installed (Debian's universal-ctags); skipping the typed names");
        return json!({"skipped": "ctags is not installed (Debian's universal-ctags)"});
    }
    let work = std::env::temp_dir().join(format!("fathom-typed-{}", std::process::id()));
    let mut sources = crate::ctags::question_projects(root, corpora);
    let mut stand_ins: HashMap<&str, Project> = HashMap::new();
    for (file, language, stands_for) in CORPORA {
        let corpus = crate::ctags::corpus(corpora, file, language);
        match stands_for {
            Some(repo) => drop(stand_ins.insert(repo, corpus)),
            None => sources.push(corpus),
        }
    }
    sources.extend(crate::ctags::checkouts());
    let (mut projects, mut skipped) = (serde_json::Map::new(), Vec::new());
    let mut totals: BTreeMap<(&str, String), Score> = BTreeMap::new();
    let dir = work.join("tree");
    for Project { name, language, tree } in sources {
        let (name, language, stands_for, unpacked) = match tree(&dir) {
            Ok(at) => (name, language, None, Ok(at)),
            Err(why) => match stand_ins.remove(name.as_str()) {
                Some(corpus) => {
                    eprintln!("typed: {name}: {why}; its pinned corpus {} stands in", corpus.name);
                    (corpus.name, corpus.language, Some(name), (corpus.tree)(&dir))
                }
                None => (name, language, None, Err(why)),
            },
        };
        match unpacked.and_then(|at| measure(&name, &at, statics.as_ref())) {
            Ok((mut report, places)) => {
                for answered in places {
                    for key in [("language", language.clone()), ("all", "overall".into())] {
                        totals.entry(key).or_default().add(answered);
                    }
                }
                report["language"] = json!(language);
                report["stands_for"] = json!(stands_for);
                projects.insert(name, report);
            }
            Err(why) => {
                eprintln!("typed: {why}; skipping {name}");
                skipped.push(json!({"project": name, "why": why}));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    let group = |by: &str| -> serde_json::Map<String, Value> {
        totals.iter().filter(|((g, _), _)| *g == by).map(|((_, key), s)| (key.clone(), s.json())).collect()
    };
    json!({"overall": group("all").remove("overall").unwrap_or(Value::Null), "languages": group("language"),
           "projects": projects, "skipped": skipped})
}

/// The table `make eval` prints.
pub fn print_table(report: &Value) {
    println!("\nTyped names (API names from the guides; gold: their definitions by universal-ctags)");
    println!(
        "{:<34} {:>5} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "language / project", "names", "Acc@1", "Acc@5", "named", "MRR", "BM25@1", "BM25MRR"
    );
    let row = |label: &str, s: &Value| {
        if s["names"].as_u64().unwrap_or(0) == 0 {
            println!("{label:<34} {:>5} {:>7}", 0, "-");
            return;
        }
        let (f, b) = (&s["fathom"], &s["bm25"]);
        let c = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
        println!(
            "{label:<34} {:>5} {:>7.1} {:>7.1} {:>6.1}% {:>7.4} {:>7.1} {:>7.4}",
            s["names"].as_u64().unwrap_or(0),
            c(&f["acc_at_1"]),
            c(&f["acc_at_5"]),
            c(&f["named_as_typed"]),
            c(&f["mrr"]),
            c(&b["acc_at_1"]),
            c(&b["mrr"])
        );
    };
    for (project, p) in report["projects"].as_object().into_iter().flatten() {
        row(&format!("{project} ({})", p["language"].as_str().unwrap_or_default()), &p["scores"]);
    }
    for (language, s) in report["languages"].as_object().into_iter().flatten() {
        row(language, s);
    }
    if !report["overall"].is_null() {
        row("overall", &report["overall"]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::questions::code_of;

    fn tag(path: &str, name: &str, language: &str, kind: &str, at: &[(u64, Option<&str>)]) -> Tag {
        let place = |(line, scope): &(u64, Option<&str>)| Place {
            line: *line,
            scope: scope.map(str::to_owned),
            scope_kind: scope.map(|_| "class".to_owned()),
        };
        Tag {
            path: path.into(),
            name: name.into(),
            language: language.into(),
            kind: kind.into(),
            at: at.iter().map(place).collect(),
        }
    }

    #[test]
    fn an_amalgamation_copies_definitions_and_a_header_that_declares_them_is_none() {
        let mut tags = Vec::new();
        for source in 0..6 {
            for f in 0..3 {
                let name = format!("f{source}_{f}");
                tags.push(tag(&format!("src/part{source}.c"), &name, "C", "function", &[(1, None)]));
                tags.push(tag("src/api.h", &name, "C", "prototype", &[(1, None)]));
                tags.push(tag("dist/all.c", &name, "C", "function", &[(1, None)]));
            }
        }
        assert_eq!(amalgamations(&tags, &|_| true), HashSet::from(["dist/all.c".to_owned()]));
    }

    #[test]
    fn a_typed_name_splits_at_its_last_separator() {
        assert_eq!(split_qualified("Flask.route"), (Some("Flask"), "route"));
        assert_eq!(split_qualified("tokio::sync::Mutex"), (Some("tokio::sync"), "Mutex"));
        assert_eq!(split_qualified("Router#route"), (Some("Router"), "route"));
        assert_eq!(split_qualified("marshmallow.fields.Nested"), (Some("marshmallow.fields"), "Nested"));
        assert_eq!(split_qualified("jv_parse"), (None, "jv_parse"));
    }

    #[test]
    fn a_span_is_typed_as_shown() {
        let shown = |span: &str| alone(span).map(|(name, _)| name);
        assert_eq!(shown("Flask.route()").as_deref(), Some("Flask.route"));
        assert_eq!(shown("@app.route").as_deref(), Some("app.route"));
        assert_eq!(shown("~marshmallow.Schema").as_deref(), Some("Schema"), "Sphinx shows a `~` role's last part");
        assert_eq!(shown("Schema.load <marshmallow.Schema.load>").as_deref(), Some("Schema.load"));
        assert_eq!(shown("self.context").as_deref(), Some("context"));
        assert_eq!(shown("pip install flask"), None);
        let files = Files::new(["package.json", "django/utils/timezone.py"].map(str::to_owned).to_vec());
        let code = [
            "from django.apps import AppConfig",
            ">>> from django.utils import timezone",
            "pub_date=timezone.now()",
            "~django.views.decorators.csrf.csrf_protect",
            "app = Flask(__name__)",
            "package.json",
            "config.toml",
            "Flask.route",
            "flask run",
            "use tokio::sync::{Mutex, mpsc};",
        ]
        .map(str::to_owned);
        assert_eq!(
            typed_names(&code, &files),
            vec!["AppConfig", "now", "csrf_protect", "Flask", "Flask.route", "Mutex"]
        );
        let body = "See :doc:`Reference <ref/index>` and :py:meth:`Schema.load`, not :mod:`marshmallow.fields`.\n\n\
                    .. note::\n\n    The :class:`~django.middleware.csrf.CsrfViewMiddleware` accepts either.\n";
        assert_eq!(
            code_of(&code_roles(body), &|_| true),
            vec!["Schema.load", "~django.middleware.csrf.CsrfViewMiddleware"],
            "a note's prose is no literal block"
        );
    }

    #[test]
    fn the_readers_own_code_and_modules_are_not_typed_names() {
        let code = ["def results(request, question_id):", "class Event {", "struct adl_serializer;", "func main() {"]
            .map(str::to_owned);
        let defined = defined_in(&code);
        assert!(defined.contains("results") && defined.contains("Event") && defined.contains("main"));
        assert!(!defined.contains("adl_serializer"), "a signature alone defines nothing");
        let files =
            Files::new(["src/marshmallow/schema.py", "django/contrib/messages/api.py"].map(str::to_owned).to_vec());
        assert!(files.is_module("marshmallow.schema"));
        assert!(files.is_module("django.contrib.messages"));
        assert!(!files.is_module("Schema.load"));
        assert!(!files.is_module("schema"), "one part is a name, not a module path");
    }

    #[test]
    fn the_gold_is_the_projects_own_definition_in_the_qualifiers_scope() {
        let own = |path: &str| by_path(path).role == Role::Source;
        let tags = [
            tag("src/marshmallow/base.py", "load", "Python", "member", &[(52, Some("SchemaABC"))]),
            tag("src/marshmallow/schema.py", "load", "Python", "member", &[(691, Some("Schema"))]),
            tag("tests/test_schema.py", "load", "Python", "member", &[(40, Some("Schema"))]),
            tag("src/marshmallow/schema.py", "load", "Python", "variable", &[(12, None)]),
        ];
        let tags: Vec<&Tag> = tags.iter().collect();
        let at = |gold: Gold| gold.into_iter().map(|(f, l)| (f, l.into_iter().collect())).collect::<Vec<(_, Vec<_>)>>();
        assert_eq!(at(gold("Schema.load", &tags, &own)), vec![("src/marshmallow/schema.py".into(), vec![691])]);
        assert_eq!(
            at(gold("load", &tags, &own)),
            vec![("src/marshmallow/base.py".into(), vec![52]), ("src/marshmallow/schema.py".into(), vec![691])],
            "unqualified: every own definition, the test's and the variable left out"
        );
        assert_eq!(at(gold("user_schema.load", &tags, &own)).len(), 2, "a receiver matching no scope keeps them all");
        assert_eq!(at(gold("schema.load", &tags, &own)).len(), 1, "a module qualifier matches the file");
        // A package qualifier matches the file's folder (Go's `cobra.Command`
        // is scoped `cobra` too); a prototype declares, and is no gold.
        let c = [
            tag("src/jv.h", "jv_parse", "C++", "prototype", &[(230, None)]),
            tag("src/jv_parse.c", "jv_parse", "C", "function", &[(880, None)]),
        ];
        let c: Vec<&Tag> = c.iter().collect();
        assert_eq!(at(gold("jv_parse", &c, &own)), vec![("src/jv_parse.c".into(), vec![880])]);
        // A path names a namespace: `std::cout` is not Catch2's `cout`.
        let cout = [tag("src/catch2/internal/catch_stdstreams.cpp", "cout", "C++", "function", &[(19, Some("Catch"))])];
        let cout: Vec<&Tag> = cout.iter().collect();
        assert!(gold("std::cout", &cout, &own).is_empty());
        assert_eq!(gold("Catch::cout", &cout, &own).len(), 1);
        // Django's `apps` is the registry, a variable; a migration state's
        // `apps` method is a namesake.
        let apps = [
            tag("django/db/migrations/state.py", "apps", "Python", "member", &[(565, Some("ProjectState"))]),
            tag("django/apps/registry.py", "apps", "Python", "variable", &[(436, None)]),
        ];
        let apps: Vec<&Tag> = apps.iter().collect();
        assert!(gold("apps", &apps, &own).is_empty());
        assert_eq!(gold("ProjectState.apps", &apps[..1], &own).len(), 1);
    }
}
