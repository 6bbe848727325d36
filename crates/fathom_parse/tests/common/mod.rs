//! Renders extracted facts as text, one fact per line, for snapshot tests.

#![allow(dead_code)]

use std::fmt::Write;
use std::path::PathBuf;

use fathom_model::{Definition, FileFacts, Language};
use fathom_parse::{ParsedFile, Parsers};

/// Asserts one snapshot per source file of a fixture folder. A macro, so that
/// insta names the snapshots after the calling test.
#[macro_export]
macro_rules! assert_fixture_snapshots {
    ($fixture:expr) => {
        for (name, rendered) in common::fixture_snapshots($fixture) {
            insta::assert_snapshot!(name, rendered);
        }
    };
}

pub fn fixture_root(fixture: &str) -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(fixture)
}

/// Every source file of `tests/fixtures/<fixture>`, by sorted path, rendered
/// and named for its snapshot: `<fixture>__<path, with / as __>`.
pub fn fixture_snapshots(fixture: &str) -> Vec<(String, String)> {
    let root = fixture_root(fixture);
    let mut files = Vec::new();
    let mut pending = vec![root.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let relative = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            if Language::from_path(&relative).is_some() {
                files.push(relative);
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no source files in {fixture}");
    files
        .into_iter()
        .map(|path| {
            let rendered = render(&parse_fixture_file(fixture, &path));
            (format!("{fixture}__{}", path.replace('/', "__")), rendered)
        })
        .collect()
}

/// Parses one file of a fixture folder, in the language its path says.
pub fn parse_fixture_file(fixture: &str, path: &str) -> ParsedFile {
    let text = std::fs::read_to_string(fixture_root(fixture).join(path)).unwrap();
    let language = Language::from_path(path).unwrap_or_else(|| panic!("no language for {path}"));
    parse(language, path, &text)
}

pub fn parse(language: Language, path: &str, text: &str) -> ParsedFile {
    Parsers::new().parse(language, path, text).unwrap_or_else(|e| panic!("{e}"))
}

pub fn render(parsed: &ParsedFile) -> String {
    let facts = &parsed.facts;
    let mut out = String::new();
    for (at, d) in facts.definitions.iter().enumerate() {
        let depth = std::iter::successors(d.parent, |&p| facts.definitions[p].parent).count();
        writeln!(out, "{}{}", "  ".repeat(depth), definition(at, d)).unwrap();
    }
    if let Some(package) = &facts.package {
        writeln!(out, "package {package}").unwrap();
    }
    for i in &facts.imports {
        let mut line = format!("import {:?}", i.source);
        if let Some(name) = &i.name {
            write!(line, " name={name}").unwrap();
        }
        if let Some(alias) = &i.alias {
            write!(line, " as={alias}").unwrap();
        }
        if i.wildcard {
            line += " *";
        }
        if i.reexport {
            line += " reexport";
        }
        writeln!(out, "{line} L{}", i.span.start_line).unwrap();
    }
    for c in &facts.calls {
        let caller = c.caller.map_or("<module>".to_owned(), |i| facts.definitions[i].name.clone());
        let receiver = c.receiver.map_or(String::new(), |r| format!("{}.", facts.name(r)));
        let new = if c.instantiates { "new " } else { "" };
        let name = facts.name(c.name);
        writeln!(out, "call {caller} -> {new}{receiver}{name}/{} L{}", c.arguments, c.span.start_line).unwrap();
    }
    for u in facts.uses.iter().filter(|u| u.receiver.is_some()) {
        let user = u.user.map_or("<module>".to_owned(), |i| facts.definitions[i].name.clone());
        let access = if u.write { "writes" } else { "reads" };
        let receiver = u.receiver.map_or("", |r| facts.name(r));
        writeln!(out, "use {user} {access} {receiver}.{} L{}", facts.name(u.name), u.span.start_line).unwrap();
    }
    for l in &facts.locals {
        let scope = l.scope.map_or("<module>".to_owned(), |i| facts.definitions[i].name.clone());
        writeln!(out, "local {scope}: {}: {} L{}", l.name, l.type_of, l.span.start_line).unwrap();
    }
    for a in &facts.aliases {
        writeln!(out, "alias {} = {} L{}", a.name, a.written, a.span.start_line).unwrap();
    }
    for i in &facts.impls {
        writeln!(out, "impl {} for {}", i.base.name, i.type_name).unwrap();
    }
    for e in &parsed.syntax_errors {
        writeln!(out, "error L{}:{} {}", e.line, e.column, e.message).unwrap();
    }
    out
}

/// Bare-name uses, which are many: rendered apart, as `user: names`.
pub fn render_bare_uses(facts: &FileFacts) -> String {
    let mut out = String::new();
    for u in facts.uses.iter().filter(|u| u.receiver.is_none()) {
        let user = u.user.map_or("<module>".to_owned(), |i| facts.definitions[i].name.clone());
        writeln!(out, "{user}: {}", facts.name(u.name)).unwrap();
    }
    out
}

fn definition(at: usize, d: &Definition) -> String {
    let mut line = format!("#{at} {}", d.kind.name());
    if let Some(class_kind) = d.class_kind {
        write!(line, ":{}", class_kind.name()).unwrap();
    }
    write!(line, " {} L{}-{}", d.name, d.span.start_line, d.span.end_line).unwrap();
    if let Some(owner) = &d.owner {
        write!(line, " owner={owner}").unwrap();
    }
    if let Some(signature) = &d.signature {
        write!(line, " sig=`{signature}`").unwrap();
    }
    if !d.parameters.is_empty() {
        let params: Vec<String> = d
            .parameters
            .iter()
            .map(|p| match (&p.name, &p.type_name) {
                (Some(n), Some(t)) => format!("{}<{n}:{t}>", p.text),
                (Some(n), None) => format!("{}<{n}>", p.text),
                _ => p.text.clone(),
            })
            .collect();
        write!(line, " params={params:?}").unwrap();
    }
    for (label, value) in [("returns", &d.return_type), ("type", &d.type_name)] {
        if let Some(value) = value {
            write!(line, " {label}={value}").unwrap();
        }
    }
    if !d.modifiers.is_empty() {
        write!(line, " mods={:?}", d.modifiers).unwrap();
    }
    if let Some(visibility) = d.visibility {
        write!(line, " {visibility:?}").unwrap();
    }
    for decorator in &d.decorators {
        write!(line, " @{}{}", decorator.name, decorator.arguments.as_deref().unwrap_or("")).unwrap();
    }
    for base in &d.bases {
        write!(line, " {:?}={}", base.kind, base.name).unwrap();
    }
    if d.is_constructor {
        line += " ctor";
    }
    if d.declaration {
        line += " declaration";
    }
    if d.is_test {
        line += " test";
    }
    if let Some(cc) = d.complexity {
        write!(line, " cc={cc}").unwrap();
    }
    write!(line, " loc={}", d.loc).unwrap();
    if let Some(doc) = &d.docstring {
        write!(line, " doc={:?}", doc.lines().next().unwrap_or("")).unwrap();
    }
    line
}
