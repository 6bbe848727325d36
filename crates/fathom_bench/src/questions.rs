//! A newcomer's questions, taken from the projects' own guides (issue 50).
//!
//! Nobody here writes a question or its answer. For each project of
//! `tests/eval/questions.json` (a repository of `swe-dev` or `swe-poly` and a
//! pinned commit), the tree is read out of its bare clone, as `locate` reads
//! it, and:
//! - every guide the project ships is split into sections: Markdown and
//!   reStructuredText files, and a Rust crate's module documentation
//!   (`//!` in `lib.rs` and `mod.rs`), which is its guide. Changelogs,
//!   contribution and conduct notes, issue templates and translations are
//!   not guides;
//! - a section's heading is the question ("Serializing Objects",
//!   "Spawning tasks"), with its parent's where the heading alone is one word;
//! - the API names the section's code mentions (code spans, code blocks,
//!   reStructuredText roles, rustdoc links) are resolved to the files that
//!   define them: the project's own source, by the index's roles, where a
//!   name is defined in at most [`MAX_FILES_PER_NAME`] files. Those files are
//!   the gold. A section whose names resolve to nothing, or to more than
//!   [`MAX_GOLD`] files, asks nothing answerable and is left out.
//!
//! Each question goes to `Index::search` as a person's would (hybrid, the
//! static table's meaning, the graph expansion: the product's default), and
//! to plain BM25 over whole files in the same run. Scored: Acc@1 and Acc@5
//! (a gold file in the top k), MRR, and the share of the first five places
//! that tests hold. Per language, per repository and overall.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, LazyLock};
use std::time::Instant;

use fathom_embed::Embedder;
use fathom_embed::cache::DiskCache;
use fathom_engine::{Index, Options, SearchOptions};
use fathom_model::{Language, SymbolKind};
use fathom_search::roles::Role;
use fathom_static::StaticModel;
use regex::Regex;
use serde_json::{Value, json};

/// A name defined in more files than this is too common to say which file a
/// section is about (`get`, `parse`, `format`).
pub const MAX_FILES_PER_NAME: usize = 3;
/// A section whose names resolve to more files than this is an overview.
const MAX_GOLD: usize = 5;
/// At most this many questions from one project, taken from its guides in
/// turn, so that one large reference does not decide a language's figure.
const MAX_PER_PROJECT: usize = 30;

/// One question: where it comes from, its text and its gold files.
#[derive(Clone, Debug)]
pub struct Question {
    pub repo: String,
    pub language: String,
    pub source: String,
    pub question: String,
    /// The section's first sentence of prose, its code left out: what the
    /// question reads as with it ([`Question::with_lead`]), a variant reported
    /// beside the set.
    pub lead: Option<String>,
    pub names: Vec<String>,
    pub gold: BTreeSet<String>,
}

impl Question {
    /// The heading and the section's lead sentence, as one question.
    pub fn with_lead(&self) -> String {
        match &self.lead {
            Some(lead) => format!("{}: {lead}", self.question),
            None => self.question.clone(),
        }
    }
}

/// A section's first sentence of prose: the first paragraph outside code
/// blocks, directives, lists, tables and quotes, with links read as their
/// text and code spans left out (they hold the very names the gold is
/// made of), cut after its first sentence, at most 200 characters.
pub fn lead(body: &str) -> Option<String> {
    static SPAN: LazyLock<Regex> = LazyLock::new(|| pattern(r"`+[^`]*`+"));
    let mut paragraph: Vec<&str> = Vec::new();
    let mut in_fence = false;
    let mut literal = false;
    for line in body.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || (literal && (line.starts_with(' ') || line.starts_with('\t') || trimmed.is_empty())) {
            continue;
        }
        literal = trimmed.ends_with("::") || trimmed.starts_with(".. ");
        let prose = !trimmed.is_empty()
            && !literal
            && !line.starts_with(' ')
            && !line.starts_with('\t')
            && !trimmed.starts_with(['#', '-', '*', '|', '>', '<', '=', '+', '!', '['])
            && !trimmed.chars().next().is_some_and(|c| c.is_ascii_digit());
        if prose {
            paragraph.push(trimmed);
        } else if !paragraph.is_empty() {
            break;
        }
    }
    let text = plain(&SPAN.replace_all(&paragraph.join(" "), ""));
    let sentence = match text.find(". ") {
        Some(end) => &text[..=end],
        None => &text,
    };
    let sentence = &sentence[..sentence.floor_char_boundary(200)];
    (sentence.split_whitespace().count() >= 3).then(|| sentence.trim().to_owned())
}

/// One section of a guide: its headings from the outermost, and its text.
#[derive(Debug, PartialEq)]
pub struct Section {
    pub headings: Vec<String>,
    pub body: String,
}

/// Whether `path` is a guide: prose a project writes for its users, in
/// English. Changelogs, release notes, migration notes, contribution and
/// conduct notes, security policies, issue templates and translations
/// (`docs/ja/…`, `readme-cn.md`, `README.zh-CN.md`) are not.
pub fn is_guide(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let Some(ext) = lower.rsplit_once('.').map(|(_, e)| e) else { return false };
    if !matches!(ext, "md" | "markdown" | "rst") || lower.starts_with(".github/") {
        return false;
    }
    let file = lower.rsplit('/').next().unwrap_or(&lower);
    let stem = &file[..file.len() - ext.len() - 1];
    const NOT_GUIDES: [&str; 10] = [
        "change",
        "history",
        "news",
        "release",
        "migrat",
        "contributing",
        "code_of_conduct",
        "code-of-conduct",
        "security",
        "authors",
    ];
    let folders = lower.split('/').rev().skip(1);
    let named = |part: &str| {
        NOT_GUIDES
            .iter()
            .any(|n| part.starts_with(n) || part.contains(&format!("-{n}")) || part.contains(&format!("_{n}")))
    };
    if named(stem) || folders.clone().any(named) {
        return false;
    }
    // A translation: a locale tag ending the name, or a locale folder in docs.
    static TAG: LazyLock<Regex> = LazyLock::new(|| pattern(r"[-.](?:[a-z]{2})(?:[-_][a-z]{2})?$"));
    static LOCALE: LazyLock<Regex> = LazyLock::new(|| pattern(r"^[a-z]{2}(?:[-_][a-z]{2})?$"));
    if TAG.is_match(stem) {
        return false;
    }
    let segments: Vec<&str> = lower.split('/').collect();
    !segments.windows(2).any(|w| matches!(w[0], "doc" | "docs") && w[1] != "en" && LOCALE.is_match(w[1]))
}

/// A pattern of this file's, compiled once where it is declared.
fn pattern(source: &str) -> Regex {
    Regex::new(source).expect("the pattern compiles")
}

/// A Rust crate's module documentation (`//!` lines) in `lib.rs` or
/// `mod.rs`, as Markdown; `None` for other files.
pub fn rustdoc(path: &str, text: &str) -> Option<String> {
    let file = path.rsplit('/').next()?;
    if !matches!(file, "lib.rs" | "mod.rs") {
        return None;
    }
    let doc: Vec<&str> = text
        .lines()
        .map(str::trim_start)
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    (doc.len() > 3).then(|| doc.join("\n"))
}

/// A Markdown or reStructuredText guide's sections, in order.
pub fn sections(path: &str, text: &str) -> Vec<Section> {
    let rst = path.to_ascii_lowercase().ends_with(".rst");
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<Section> = Vec::new();
    // The open headings, by level.
    let mut open: Vec<(usize, String)> = Vec::new();
    let mut body = String::new();
    let mut fence: Option<&str> = None;
    // reStructuredText levels: each underline character, in order of use.
    let mut rst_levels: Vec<char> = Vec::new();
    let mut i = 0;
    let flush = |open: &Vec<(usize, String)>, body: &mut String, out: &mut Vec<Section>| {
        if !open.is_empty() {
            out.push(Section { headings: open.iter().map(|(_, h)| h.clone()).collect(), body: std::mem::take(body) });
        }
        body.clear();
    };
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        if !rst {
            if let Some(f) = fence {
                if trimmed.starts_with(f) {
                    fence = None;
                }
                body.push_str(line);
                body.push('\n');
                i += 1;
                continue;
            }
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                fence = Some(&trimmed[..3]);
                body.push_str(line);
                body.push('\n');
                i += 1;
                continue;
            }
        }
        let heading = if rst {
            rst_heading(&lines, i).map(|(c, title, used)| {
                let level = rst_levels.iter().position(|&l| l == c).unwrap_or_else(|| {
                    rst_levels.push(c);
                    rst_levels.len() - 1
                });
                (level, title, used)
            })
        } else {
            md_heading(&lines, i)
        };
        match heading {
            Some((level, title, used)) => {
                flush(&open, &mut body, &mut out);
                while open.last().is_some_and(|(l, _)| *l >= level) {
                    open.pop();
                }
                open.push((level, title));
                i += used;
            }
            None => {
                body.push_str(line);
                body.push('\n');
                i += 1;
            }
        }
    }
    flush(&open, &mut body, &mut out);
    out
}

/// A Markdown heading at line `i`: ATX (`## Title`) or setext (a line
/// underlined with `===` or `---`): its level, title and lines used.
fn md_heading(lines: &[&str], i: usize) -> Option<(usize, String, usize)> {
    let line = lines[i].trim_end();
    let hashes = line.len() - line.trim_start_matches('#').len();
    if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') && !lines[i].starts_with(' ') {
        return Some((hashes, line[hashes..].trim().trim_end_matches('#').trim().to_owned(), 1));
    }
    let next = lines.get(i + 1)?.trim_end();
    if !line.trim().is_empty() && !line.starts_with(' ') && next.len() >= 3 {
        if next.chars().all(|c| c == '=') {
            return Some((1, line.trim().to_owned(), 2));
        }
        if next.chars().all(|c| c == '-') && !line.trim_start().starts_with(['-', '*', '|', '<']) {
            return Some((2, line.trim().to_owned(), 2));
        }
    }
    None
}

/// A reStructuredText title at line `i` (underlined, or over- and
/// underlined): its underline character, title and lines used.
fn rst_heading(lines: &[&str], i: usize) -> Option<(char, String, usize)> {
    const MARKS: &str = "=-~^\"'`#*+:._";
    let is_rule = |l: &str| {
        let l = l.trim_end();
        let c = l.chars().next()?;
        (l.len() >= 3 && MARKS.contains(c) && l.chars().all(|x| x == c)).then_some(c)
    };
    let line = lines[i];
    if let Some(c) = is_rule(line) {
        // An overline: title, then the same rule.
        let title = lines.get(i + 1)?;
        let under = lines.get(i + 2)?;
        return (is_rule(under) == Some(c) && !title.trim().is_empty()).then(|| (c, title.trim().to_owned(), 3));
    }
    let under = lines.get(i + 1)?;
    let c = is_rule(under)?;
    (!line.trim().is_empty() && !line.starts_with(' ') && under.trim_end().len() >= line.trim_end().len())
        .then(|| (c, line.trim().to_owned(), 2))
}

/// The text of a heading as a person reads it: no markup, no links' targets.
pub fn plain(heading: &str) -> String {
    static LINK: LazyLock<Regex> = LazyLock::new(|| pattern(r"\[([^\]]*)\]\([^)]*\)"));
    static TAG: LazyLock<Regex> = LazyLock::new(|| pattern(r"</?[A-Za-z][^>]*>"));
    static ROLE: LazyLock<Regex> = LazyLock::new(|| pattern(r":[a-z:]+:`~?([^`]*)`"));
    let text = LINK.replace_all(heading, "$1");
    let text = TAG.replace_all(&text, "");
    let text = ROLE.replace_all(&text, "$1");
    let text: String = text.chars().filter(|c| !matches!(c, '`' | '*' | '#')).collect();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The code a section's text holds: inline spans, fenced and indented
/// blocks, reStructuredText roles and literals, rustdoc links. A fenced or
/// directive block counts where `counts` accepts its info string (`python`,
/// `console`; empty where it has none).
pub fn code_of(body: &str, counts: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut code = Vec::new();
    let mut in_fence = false;
    let mut skip_block = false;
    let mut literal = false;
    for line in body.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            if !in_fence {
                let info = trimmed.trim_start_matches(['`', '~']).trim().to_ascii_lowercase();
                let info = info.split([' ', ',', '{']).next().unwrap_or_default();
                skip_block = !counts(info);
            }
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            if !skip_block {
                code.push(line.to_owned());
            }
            continue;
        }
        // reStructuredText: a paragraph ending in `::` or a code directive
        // opens an indented literal block; `>>>` lines are examples.
        if literal && (line.starts_with(' ') || line.starts_with('\t') || line.trim().is_empty()) {
            code.push(line.to_owned());
            continue;
        }
        literal = (trimmed.ends_with("::") && !trimmed.starts_with(".. code"))
            || trimmed.starts_with(".. doctest")
            || trimmed
                .strip_prefix(".. code-block::")
                .or_else(|| trimmed.strip_prefix(".. code::"))
                .or_else(|| trimmed.strip_prefix(".. sourcecode::"))
                .is_some_and(|l| counts(&l.trim().to_ascii_lowercase()));
        if trimmed.starts_with(">>>") || trimmed.starts_with("...") {
            code.push(trimmed.to_owned());
            continue;
        }
        let mut rest = line;
        while let Some(start) = rest.find('`') {
            let after = &rest[start..];
            let ticks = after.len() - after.trim_start_matches('`').len();
            let inner = &after[ticks..];
            let Some(end) = inner.find(&"`".repeat(ticks)) else { break };
            code.push(inner[..end].to_owned());
            rest = &inner[end + ticks..];
        }
    }
    code
}

/// GitHub Linguist's languages (`crates/fathom_search/linguist/languages.yml`,
/// kept by `scripts/linguist.sh`), as GitHub reads a code block's info
/// string: each language's lowercase name, aliases and extensions (without
/// the dot), to the extensions of the language, and of the one it is grouped
/// under (`pycon`, "Python console", reads as Python).
static LINGUIST: LazyLock<HashMap<String, Vec<String>>> =
    LazyLock::new(|| linguist(include_str!("../../fathom_search/linguist/languages.yml")));

/// Reads Linguist's `languages.yml`: only the fields named above, from its
/// fixed layout (a language per unindented `Name:` line, two-space fields,
/// `  - item` lists).
fn linguist(yaml: &str) -> HashMap<String, Vec<String>> {
    struct Entry {
        name: String,
        group: Option<String>,
        aliases: Vec<String>,
        extensions: Vec<String>,
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut list: Option<&str> = None;
    for line in yaml.lines() {
        if line.starts_with('#') || line.trim().is_empty() || line == "---" {
            continue;
        }
        if !line.starts_with(' ') {
            let name = line.trim_end_matches(':').trim_matches(['"', '\'']).to_owned();
            entries.push(Entry { name, group: None, aliases: Vec::new(), extensions: Vec::new() });
            list = None;
            continue;
        }
        let Some(entry) = entries.last_mut() else { continue };
        let item = |s: &str| s.trim().trim_matches(['"', '\'']).to_owned();
        if let Some(value) = line.strip_prefix("  - ") {
            match list {
                Some("aliases") => entry.aliases.push(item(value).to_lowercase()),
                Some("extensions") => entry.extensions.push(item(value).trim_start_matches('.').to_lowercase()),
                _ => {}
            }
        } else if let Some(field) = line.strip_prefix("  ").filter(|f| !f.starts_with(' ')) {
            let (key, value) = field.split_once(':').unwrap_or((field, ""));
            list = Some(match key {
                "aliases" => "aliases",
                "extensions" => "extensions",
                _ => "",
            });
            if key == "group" {
                entry.group = Some(item(value));
            }
        }
    }
    let extensions: HashMap<String, Vec<String>> =
        entries.iter().map(|e| (e.name.clone(), e.extensions.clone())).collect();
    let mut by_key: HashMap<String, Vec<String>> = HashMap::new();
    for entry in &entries {
        let mut exts = entry.extensions.clone();
        if let Some(group) = entry.group.as_ref().and_then(|g| extensions.get(g)) {
            exts.extend(group.iter().cloned());
        }
        let keys = std::iter::once(entry.name.to_lowercase()).chain(entry.aliases.iter().cloned());
        for key in keys.chain(entry.extensions.iter().cloned()) {
            by_key.entry(key).or_insert_with(|| exts.clone());
        }
    }
    by_key
}

/// The languages Fathom parses that a code block's info string names, by
/// Linguist; `None` where Linguist knows no such language.
pub fn block_languages(info: &str) -> Option<BTreeSet<Language>> {
    let extensions = LINGUIST.get(&info.to_lowercase())?;
    Some(extensions.iter().filter_map(|e| Language::from_path(&format!("x.{e}"))).collect())
}

/// The identifiers in `code` that name an API, three characters or more, in
/// order, once each: one that a span holds alone (`` `Schema` ``,
/// `` `tokio::spawn` ``, `` `load()` ``; a bare lowercase word such as
/// `` `ignore` `` only where the code also uses it), or one the code calls,
/// reaches into or names a type with: followed by `(`, after `.` or `::`, or
/// capitalised as a type is (`UserSchema`). The rest of a line
/// (`for item in items`) names variables and words.
pub fn identifiers(code: &[String]) -> Vec<String> {
    static WORD: LazyLock<Regex> = LazyLock::new(|| pattern(r"[A-Za-z_][A-Za-z0-9_]*"));
    static PATH: LazyLock<Regex> =
        LazyLock::new(|| pattern(r"^[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?$"));
    static BARE_WORD: LazyLock<Regex> = LazyLock::new(|| pattern(r"^[a-z]+$"));
    // What each line of code calls, reaches into or names as a type, its
    // strings, comments and file paths left out.
    let masked: Vec<String> = code.iter().map(|line| code_only(line)).collect();
    let named: Vec<Vec<&str>> = code
        .iter()
        .zip(&masked)
        .map(|(original, line)| {
            if PATH.is_match(original.trim()) {
                return Vec::new();
            }
            WORD.find_iter(line)
                .filter(|m| {
                    let name = m.as_str();
                    let before = &line[..m.start()];
                    let after = line[m.end()..].trim_start();
                    let type_name =
                        name.chars().next().is_some_and(char::is_uppercase) && name.chars().any(char::is_lowercase);
                    after.starts_with('(') || before.ends_with('.') || before.ends_with("::") || type_name
                })
                .map(|m| m.as_str())
                .collect()
        })
        .collect();
    let used: HashSet<&str> = named.iter().flatten().copied().collect();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut keep = |name: &str, out: &mut Vec<String>| {
        if name.len() >= 3 && seen.insert(name.to_owned()) {
            out.push(name.to_owned());
        }
    };
    for (line, names) in code.iter().zip(&named) {
        let trimmed = line.trim();
        if PATH.is_match(trimmed) {
            // A bare lowercase word alone (`ignore`, `ref`, `format`) is
            // as often a config key, a command or a value as an API name:
            // it names one where the section's code also uses it.
            if BARE_WORD.is_match(trimmed) && !used.contains(trimmed) {
                continue;
            }
            let last = trimmed.trim_end_matches("()").rsplit(['.', ':']).next().unwrap_or(trimmed);
            keep(last, &mut out);
        }
        for name in names {
            keep(name, &mut out);
        }
    }
    out
}

/// A line of code with what names no definition blanked out: string
/// literals (`"Hello World"`), line comments (`// Create a client`,
/// `# Output`), and file paths, URLs and environment variables
/// (`$HOME/.config/Jib/config.json`, `https://…`), which name folders and
/// products, not the project's API.
fn code_only(line: &str) -> String {
    static STRING: LazyLock<Regex> = LazyLock::new(|| pattern(r#""(?:[^"\\]|\\.)*"|(?:^|[\s(\[{=,])('[^'\s][^']*')"#));
    static COMMENT: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?:^|[^:])//.*$|(?:^|\s)#\s.*$"));
    static RUN: LazyLock<Regex> = LazyLock::new(|| pattern(r"\S+"));
    static FILE_PATH: LazyLock<Regex> = LazyLock::new(|| pattern(r"^[$%~]|^\.\.?/|://|\w[/\\]\w"));
    let blank = |m: &str| " ".repeat(m.len());
    // A single-quoted string keeps the character before it (`load('x')`).
    let out = STRING.replace_all(line, |c: &regex::Captures| match c.get(1) {
        Some(quoted) => {
            format!("{}{}", &c[0][..quoted.start() - c.get(0).expect("a match").start()], blank(quoted.as_str()))
        }
        None => blank(&c[0]),
    });
    let out = COMMENT.replace_all(&out, |c: &regex::Captures| blank(&c[0]));
    let out = RUN.replace_all(
        &out,
        |c: &regex::Captures| {
            if FILE_PATH.is_match(&c[0]) { blank(&c[0]) } else { c[0].to_owned() }
        },
    );
    out.into_owned()
}

/// The project's own definitions by name: the source files (by the index's
/// roles) that define each class, function, method, interface or type.
pub fn definers(index: &Index) -> HashMap<String, BTreeSet<String>> {
    let graph = index.graph();
    let roles = index.retrieval().roles();
    let mut by_name: HashMap<String, BTreeSet<String>> = HashMap::new();
    for (id, node) in graph.nodes() {
        if matches!(
            node.kind,
            SymbolKind::Module | SymbolKind::Package | SymbolKind::Field | SymbolKind::GlobalVariable
        ) {
            continue;
        }
        let Some(path) = graph.path_of(id) else { continue };
        // An amalgamation defines what its sources define: the sources are
        // what a newcomer reads.
        if roles.of(path).role != Role::Source || !roles.sources_of(path).is_empty() {
            continue;
        }
        by_name.entry(node.name.clone()).or_default().insert(path.to_owned());
    }
    by_name
}

/// A project's guides, each by its path with its sections, read from the
/// tree (`repo/…` paths, as `locate::tree_files` gives them) before it is
/// indexed.
pub fn guides(files: &[(String, Vec<u8>)]) -> Vec<(String, Vec<Section>)> {
    let mut out = Vec::new();
    for (path, bytes) in files {
        let path = path.strip_prefix("repo/").unwrap_or(path);
        let Ok(text) = std::str::from_utf8(bytes) else { continue };
        if is_guide(path) {
            out.push((path.to_owned(), sections(path, text)));
        } else if let Some(doc) = rustdoc(path, text) {
            out.push((path.to_owned(), sections("doc.md", &doc)));
        }
    }
    out
}

/// The questions a project's guides ask, with their gold files, taken from
/// each guide in turn, at most [`MAX_PER_PROJECT`].
///
/// A code block counts where it has no info string, or where Linguist reads
/// its info string as a language the project's source (`languages`) is in:
/// commands, data, configuration and other languages' code (SQL in a
/// Python project's guide) name no definition of the project. A heading
/// asked twice in one project is asked with its parent's, so that it says
/// which section it is; where that is asked already, or the same heading
/// has the same gold (a page kept twice), it is left out.
pub fn questions(
    repo: &str,
    language: &str,
    guides: Vec<(String, Vec<Section>)>,
    definers: &HashMap<String, BTreeSet<String>>,
    languages: &HashSet<Language>,
) -> Vec<Question> {
    let counts = |info: &str| block_counts(info, languages);
    let mut by_guide: Vec<Vec<Question>> = Vec::new();
    let mut seen = HashSet::new();
    let mut asked_sections = HashSet::new();
    for (kind, sections) in guides {
        let mut asked = Vec::new();
        for section in sections {
            let Some(own) = section.headings.last().map(|h| plain(h)) else { continue };
            let words = own.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).count();
            if words == 0 {
                continue;
            }
            // A one-word heading ("Usage", "Matchers") says more with its parent's.
            let n = section.headings.len();
            let with_parent = || format!("{}: {own}", plain(&section.headings[n - 2]));
            let mut question = if words < 2 && n >= 2 { with_parent() } else { own.clone() };
            if seen.contains(&question.to_lowercase()) && n >= 2 {
                question = with_parent();
            }
            let ascii = question.chars().filter(char::is_ascii_alphabetic).count();
            let letters = question.chars().filter(|c| c.is_alphabetic()).count();
            if question.split_whitespace().count() < 2 || ascii * 10 < letters * 9 {
                continue;
            }
            let mut names = Vec::new();
            let mut gold = BTreeSet::new();
            for name in identifiers(&code_of(&section.body, &counts)) {
                match definers.get(&name) {
                    Some(files) if files.len() <= MAX_FILES_PER_NAME => {
                        gold.extend(files.iter().cloned());
                        names.push(name);
                    }
                    _ => {}
                }
            }
            // A section a project ships twice (a page kept in two places)
            // is asked once.
            if gold.is_empty() || gold.len() > MAX_GOLD || !asked_sections.insert((own.to_lowercase(), gold.clone())) {
                continue;
            }
            if !seen.insert(question.to_lowercase()) {
                continue;
            }
            asked.push(Question {
                repo: repo.to_owned(),
                language: language.to_owned(),
                source: format!("{kind}#{}", section.headings.last().unwrap()),
                question,
                lead: lead(&section.body),
                names,
                gold,
            });
        }
        if !asked.is_empty() {
            by_guide.push(asked);
        }
    }
    in_turn(&by_guide, MAX_PER_PROJECT)
}

/// Whether a code block with the info string `info` (empty where it has
/// none) holds code of the project's source `languages`, by Linguist.
pub fn block_counts(info: &str, languages: &HashSet<Language>) -> bool {
    info.is_empty() || block_languages(info).is_some_and(|named| named.iter().any(|l| languages.contains(l)))
}

/// At most `max` items, taken from each guide's list in turn (the first of
/// each, then the second of each, …), so that one long reference does not
/// make a project's set.
pub fn in_turn<T: Clone>(by_guide: &[Vec<T>], max: usize) -> Vec<T> {
    let mut out = Vec::new();
    let mut round = 0;
    while out.len() < max && by_guide.iter().any(|g| g.len() > round) {
        for guide in by_guide {
            if let Some(item) = guide.get(round)
                && out.len() < max
            {
                out.push(item.clone());
            }
        }
        round += 1;
    }
    out
}

/// The languages of a project's own source files (by the index's roles).
pub fn source_languages(index: &Index) -> HashSet<Language> {
    let roles = index.retrieval().roles();
    let files = index.graph().files().iter();
    files.filter(|f| roles.of(&f.path).role == Role::Source).filter_map(|f| Language::from_path(&f.path)).collect()
}

/// Acc@1, Acc@5, MRR and the tests' share of the first five places.
#[derive(Default, Clone, Copy)]
struct Score {
    n: usize,
    at1: usize,
    at5: usize,
    rr: f64,
    test_places: usize,
    places: usize,
}

impl Score {
    fn add(&mut self, ranking: &[String], gold: &BTreeSet<String>, is_test: &dyn Fn(&str) -> bool) {
        self.n += 1;
        if let Some(first) = ranking.iter().position(|f| gold.contains(f)) {
            self.rr += 1.0 / (first + 1) as f64;
            self.at1 += usize::from(first == 0);
            self.at5 += usize::from(first < 5);
        }
        for file in ranking.iter().take(5) {
            self.places += 1;
            self.test_places += usize::from(is_test(file));
        }
    }

    fn json(&self) -> Value {
        let n = self.n.max(1) as f64;
        let pct = |x: usize, of: f64| (x as f64 * 1000.0 / of.max(1.0)).round() / 10.0;
        json!({"questions": self.n, "acc_at_1": pct(self.at1, n), "acc_at_5": pct(self.at5, n),
               "mrr": (self.rr / n * 10_000.0).round() / 10_000.0,
               "tests_in_top_5": pct(self.test_places, self.places as f64)})
    }
}

/// Generates the set and scores Fathom's search and plain BM25 on it:
/// `fathom` is the search without MiniLM, `rerank` the product's default
/// where MiniLM is loaded (each question's candidates embedded, through the
/// disk cache, and re-ranked).
pub fn evaluate(
    root: &Path,
    cache: &Path,
    statics: Option<Arc<StaticModel>>,
    mut minilm: Option<(&Embedder, Option<&mut DiskCache>)>,
) -> Value {
    let config: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/eval/questions.json")).expect("tests/eval/questions.json"),
    )
    .expect("tests/eval/questions.json is JSON");
    let mut scores: BTreeMap<(String, String, &str), Score> = BTreeMap::new();
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for project in config["projects"].as_array().expect("projects") {
        let repo = project["repo"].as_str().unwrap();
        let language = project["language"].as_str().unwrap();
        let commit = project["commit"].as_str().unwrap();
        let files = match crate::locate::clone_of(repo, cache).and_then(|dir| crate::locate::tree_files(&dir, commit)) {
            Ok(files) => files,
            Err(why) => {
                eprintln!("questions: {repo}: {why}");
                skipped.push(json!({"repo": repo, "why": why}));
                continue;
            }
        };
        let guides = guides(&files);
        let started = Instant::now();
        let mut index =
            fathom_engine::index_files("repo", files, &Options::default(), &mut crate::Clock(Instant::now()));
        if let Some(model) = &statics {
            index.build_static(Arc::clone(model)).expect("the static lane builds");
        }
        let index_s = started.elapsed().as_secs_f64();
        let definers = definers(&index);
        let languages = source_languages(&index);
        let asked = questions(repo, language, guides, &definers, &languages);
        let whole_files = crate::locate::WholeFileBm25::new(&index);
        eprintln!("questions: {repo}: {} questions (indexed in {index_s:.1} s)", asked.len());
        let roles = index.retrieval().roles();
        let is_test = |f: &str| roles.of(f).role == Role::Test;
        for q in asked {
            let options = SearchOptions { k: 100, ..SearchOptions::default() };
            let fathom: Vec<String> =
                index.search(&q.question, &options, None).files.into_iter().map(|f| f.file).collect();
            let bm25 = whole_files.search(&q.question);
            let rerank: Option<Vec<String>> = minilm.as_mut().map(|(embedder, cache)| {
                fathom_engine::embed::search(&index, embedder, cache.as_deref_mut(), &q.question, &options)
                    .expect("embeds")
                    .files
                    .into_iter()
                    .map(|f| f.file)
                    .collect()
            });
            // The variant: each question with its section's lead sentence.
            let asked = q.with_lead();
            let fathom_lead: Vec<String> =
                index.search(&asked, &options, None).files.into_iter().map(|f| f.file).collect();
            let bm25_lead = whole_files.search(&asked);
            let modes = [
                ("fathom", Some(&fathom)),
                ("bm25", Some(&bm25)),
                ("rerank", rerank.as_ref()),
                ("fathom_lead", Some(&fathom_lead)),
                ("bm25_lead", Some(&bm25_lead)),
            ];
            for (mode, ranking) in modes.into_iter().filter_map(|(m, r)| Some((m, r?))) {
                for (group, key) in [("language", q.language.as_str()), ("repo", q.repo.as_str()), ("all", "overall")] {
                    scores.entry((group.to_owned(), key.to_owned(), mode)).or_default().add(ranking, &q.gold, &is_test);
                }
            }
            let first = |r: &[String]| r.iter().position(|f| q.gold.contains(f)).map(|p| p + 1);
            let row = json!({"repo": q.repo, "language": q.language, "source": q.source, "question": q.question, "lead": q.lead,
                "names": q.names, "gold": q.gold, "fathom_first_gold": first(&fathom), "bm25_first_gold": first(&bm25),
                "fathom_top": fathom.iter().take(5).collect::<Vec<_>>(),
                "rerank_first_gold": rerank.as_deref().map(first), "bm25_top": bm25.iter().take(5).collect::<Vec<_>>()});
            eprintln!("question: {row}");
            rows.push(row);
        }
    }
    let mut groups: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();
    for ((group, key, mode), score) in &scores {
        let at = groups.entry(group.clone()).or_default().entry(key.clone()).or_insert_with(|| json!({}));
        at[*mode] = score.json();
    }
    json!({"overall": groups.get("all").and_then(|g| g.get("overall")).cloned().unwrap_or(Value::Null),
           "languages": groups.get("language"), "repos": groups.get("repo"),
           "questions": rows, "skipped": skipped})
}

/// The table `make eval` prints.
pub fn print_table(report: &Value) {
    println!(
        "\n{:<34} {:<11} {:>6} {:>6} {:>7} {:>9} {:>5}",
        "questions", "mode", "Acc@1", "Acc@5", "MRR", "tests@5", "n"
    );
    let row = |name: &str, v: &Value| {
        for mode in ["bm25", "fathom", "rerank", "bm25_lead", "fathom_lead"] {
            let m = &v[mode];
            if m.is_null() {
                continue;
            }
            println!(
                "{:<34} {:<11} {:>6} {:>6} {:>7} {:>8}% {:>5}",
                name, mode, m["acc_at_1"], m["acc_at_5"], m["mrr"], m["tests_in_top_5"], m["questions"]
            );
        }
    };
    for group in ["repos", "languages"] {
        if let Some(map) = report[group].as_object() {
            for (name, v) in map {
                row(name, v);
            }
        }
    }
    row("overall", &report["overall"]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guides_are_english_prose_for_users() {
        assert!(is_guide("docs/quickstart.rst"));
        assert!(is_guide("README.md"));
        assert!(is_guide("docs/en/API-reference.md"));
        assert!(!is_guide("docs/ja/API-reference.md"));
        assert!(!is_guide("docs/zh-cn/Plugin.md"));
        assert!(!is_guide("core/logx/readme-cn.md"));
        assert!(!is_guide("docs/zh-cn/README.zh-CN.md"));
        assert!(!is_guide("CHANGELOG.md"));
        assert!(!is_guide("docs/release-notes.md"));
        assert!(!is_guide(".github/ISSUE_TEMPLATE/bug_report.md"));
        assert!(!is_guide("src/lib.rs"));
        assert!(!is_guide("docs/contributing/keeping-track.md"));
    }

    #[test]
    fn markdown_sections_nest_under_their_headings_and_skip_code_fences() {
        let text = "# Guide\nintro\n## Parsing dates\nUse `parse_date`.\n```\n# not a heading\n```\n## Output\nx\n";
        let s = sections("g.md", text);
        let heads: Vec<Vec<String>> = s.iter().map(|s| s.headings.clone()).collect();
        assert_eq!(heads, vec![vec!["Guide"], vec!["Guide", "Parsing dates"], vec!["Guide", "Output"]]);
        assert!(s[1].body.contains("# not a heading"));
        assert_eq!(identifiers(&code_of(&s[1].body, &|_| true)), vec!["parse_date"]);
    }

    #[test]
    fn rst_titles_take_their_level_from_the_order_of_their_underlines() {
        let text = "Quickstart\n==========\n\nDeclaring Schemas\n-----------------\nUse :class:`Schema` ::\n\n    schema = UserSchema()\n\nNext\n====\n";
        let s = sections("q.rst", text);
        let heads: Vec<Vec<String>> = s.iter().map(|s| s.headings.clone()).collect();
        assert_eq!(heads, vec![vec!["Quickstart"], vec!["Quickstart", "Declaring Schemas"], vec!["Next"]]);
        assert_eq!(identifiers(&code_of(&s[1].body, &|_| true)), vec!["Schema", "UserSchema"]);
        let go = |info: &str| block_languages(info).is_some_and(|l| l.contains(&Language::Go));
        let shell =
            code_of("```bash\ngo install x\n```\n```go\nsrv := rest.MustNewServer(c)\nfor item in items\n```\n", &go);
        assert_eq!(identifiers(&shell), vec!["MustNewServer"]);
        assert_eq!(plain(":class:`~marshmallow.Schema` and `[links](x)`"), "marshmallow.Schema and links");
    }

    #[test]
    fn strings_comments_and_file_paths_name_no_definition() {
        let code = [
            r#"log.Println("Hello World") // Create a New client"#,
            "x = load('Some Value')  # Output: Result",
            "$XDG_CONFIG_HOME/Google/Jib/config.json",
            "see https://Example.org/Docs and ./Build/Out",
            "fn get<'a>(x: &'a Config) -> Parser",
        ]
        .map(str::to_owned);
        assert_eq!(identifiers(&code), vec!["Println", "load", "Config", "Parser"]);
    }

    #[test]
    fn a_code_block_is_in_the_language_linguist_reads_from_its_info_string() {
        let named = |info: &str| block_languages(info).map(|l| l.into_iter().collect::<Vec<_>>());
        assert_eq!(named("python"), Some(vec![Language::Python]));
        assert_eq!(named("py"), Some(vec![Language::Python]));
        assert_eq!(named("pycon"), Some(vec![Language::Python]), "Python console, grouped under Python");
        assert_eq!(named("golang"), Some(vec![Language::Go]));
        assert_eq!(named("rust"), Some(vec![Language::Rust]));
        assert!(named("c++").is_some_and(|l| l.contains(&Language::Cpp)), "C++, whose headers Fathom reads as C too");
        assert_eq!(named("sql"), Some(vec![]));
        assert_eq!(named("console"), Some(vec![]));
        assert_eq!(named("yaml"), Some(vec![]));
        assert_eq!(named("not-a-language"), None);
    }

    #[test]
    fn a_lead_is_the_first_sentence_of_prose_without_its_code() {
        let md =
            "```python\nx = 1\n```\nUse `XmlMapper` to write [POJOs](x) as XML. Then read them.\nMore.\n\n- a list\n";
        assert_eq!(lead(md).as_deref(), Some("Use to write POJOs as XML."));
        let rst = ".. code-block:: python\n\n    schema.load(data)\n\nValidation runs when data is loaded\n";
        assert_eq!(lead(rst).as_deref(), Some("Validation runs when data is loaded"));
        assert_eq!(lead("```\ncode only\n```\n"), None);
    }

    #[test]
    fn rustdoc_of_a_crate_root_is_a_guide() {
        let text = "//! # Tokio\n//!\n//! ## Spawning\n//! Use [`spawn`].\nfn main() {}\n";
        let doc = rustdoc("tokio/src/lib.rs", text).unwrap();
        let s = sections("doc.md", &doc);
        assert_eq!(s[1].headings, vec!["Tokio", "Spawning"]);
        assert!(rustdoc("tokio/src/task.rs", text).is_none());
    }
}
