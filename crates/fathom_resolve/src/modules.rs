//! Finding the module (or package) an import's source names, per language.

use fathom_graph::NodeId;
use fathom_model::Language;

use crate::tables::{Family, Tables};
use crate::{ProjectConfig, SourceFile};

/// What an import source denotes inside the archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Module(NodeId),
    /// A package or namespace spread over files (Java, Go, C#, PHP).
    Package(String),
}

/// The module or package that `source`, imported from `file`, names; `None`
/// when it lies outside the archive.
pub(crate) fn locate(tables: &Tables, config: &ProjectConfig, file: &SourceFile<'_>, source: &str) -> Option<Place> {
    let family = Family::of(file.language);
    match file.language {
        Language::Python => python(tables, file, source).map(Place::Module),
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            ecmascript(tables, config, file.path, source).map(Place::Module)
        }
        Language::Java | Language::Kotlin | Language::CSharp | Language::Php => {
            let normalized = source.trim_start_matches('\\').replace('\\', ".");
            let package = normalized.trim_end_matches(".*");
            if tables.package_members.contains_key(&(family, package.to_owned())) {
                return Some(Place::Package(package.to_owned()));
            }
            // `a.b.C` names a type in package `a.b`, whose module is `a.b.C`.
            by_name(tables, family, package).map(Place::Module)
        }
        Language::Go => {
            let dir = config.go_modules.iter().find_map(|(dir, module)| {
                let rest = source.strip_prefix(module.as_str())?;
                Some(join(dir, rest.trim_start_matches('/')))
            })?;
            tables.package_members.contains_key(&(family, dir.clone())).then_some(Place::Package(dir))
        }
        Language::Rust => rust(tables, config, file, source).map(Place::Module),
        Language::C | Language::Cpp => {
            let relative = join(dir_of(file.path), source);
            tables.module_by_path.get(&relative).copied().or_else(|| by_suffix(tables, source)).map(Place::Module)
        }
        Language::Ruby => {
            let with_ext = if source.ends_with(".rb") { source.to_owned() } else { format!("{source}.rb") };
            let relative = join(dir_of(file.path), &with_ext);
            tables
                .module_by_path
                .get(&relative)
                .copied()
                .or_else(|| tables.module_by_path.get(&format!("lib/{with_ext}")).copied())
                .or_else(|| by_suffix(tables, &with_ext))
                .map(Place::Module)
        }
        // A test script imports nothing that is read.
        Language::Text => None,
    }
}

fn by_name(tables: &Tables, family: Family, name: &str) -> Option<NodeId> {
    match tables.module_by_name.get(&(family, name.to_owned())).map(Vec::as_slice) {
        Some([only]) => Some(*only),
        _ => None,
    }
}

/// The one module whose path ends with `/suffix`.
fn by_suffix(tables: &Tables, suffix: &str) -> Option<NodeId> {
    let suffix = suffix.trim_start_matches("./");
    let mut found = tables
        .module_by_path
        .iter()
        .filter(|(path, _)| path.as_str() == suffix || path.ends_with(&format!("/{suffix}")));
    let first = found.next().map(|(_, &id)| id);
    if found.next().is_some() { None } else { first }
}

/// Python: `.sibling`, `..parent.mod`, or an absolute dotted name.
fn python(tables: &Tables, file: &SourceFile<'_>, source: &str) -> Option<NodeId> {
    let dots = source.chars().take_while(|&c| c == '.').count();
    let rest = &source[dots..];
    let absolute = if dots == 0 {
        rest.to_owned()
    } else {
        let module = &tables_module_name(tables, file)?;
        let is_package = file.path.ends_with("__init__.py") || file.path.ends_with("__init__.pyi");
        let mut parts: Vec<&str> = module.split('.').collect();
        if !is_package {
            parts.pop();
        }
        for _ in 1..dots {
            parts.pop()?;
        }
        if !rest.is_empty() {
            parts.push(rest);
        }
        parts.join(".")
    };
    by_name(tables, Family::Python, &absolute)
}

fn tables_module_name(tables: &Tables, file: &SourceFile<'_>) -> Option<String> {
    tables.module_names.get(&file.nodes.module).cloned()
}

const ECMA_EXTENSIONS: [&str; 8] = [".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts"];

/// JS and TS: relative paths, tsconfig `paths`/`baseUrl`, workspace packages.
fn ecmascript(tables: &Tables, config: &ProjectConfig, from: &str, source: &str) -> Option<NodeId> {
    let candidates: Vec<String> = if source.starts_with('.') {
        vec![join(dir_of(from), source)]
    } else {
        let mut bases: Vec<String> = config.ts_paths(source);
        if let Some((dir, rest)) = config.package_dir(source) {
            bases.push(join(&dir, &rest));
        }
        bases
    };
    candidates.iter().find_map(|base| {
        // TS ESM imports name the emitted `.js` file; the source is `.ts`.
        let stem = ["js", "mjs", "cjs", "jsx"]
            .iter()
            .find_map(|ext| base.strip_suffix(&format!(".{ext}")))
            .unwrap_or(base.as_str());
        let mut tries = vec![base.clone()];
        tries.extend(ECMA_EXTENSIONS.iter().map(|ext| format!("{stem}{ext}")));
        tries.extend(ECMA_EXTENSIONS.iter().map(|ext| format!("{base}/index{ext}")));
        tries.iter().find_map(|path| tables.module_by_path.get(path).copied())
    })
}

/// Rust: `crate::a::b`, `self::x`, `super::x`, or another crate of the archive.
fn rust(tables: &Tables, config: &ProjectConfig, file: &SourceFile<'_>, source: &str) -> Option<NodeId> {
    let module = tables_module_name(tables, file)?;
    let own_crate = module.split("::").next().unwrap_or("crate").to_owned();
    let mut parts: Vec<String> = Vec::new();
    for (at, segment) in source.split("::").enumerate() {
        match (at, segment) {
            (0, "crate") => parts.push(own_crate.clone()),
            (0, "self") => parts.extend(module.split("::").map(str::to_owned)),
            (0, "super") => {
                parts.extend(module.split("::").map(str::to_owned));
                parts.pop();
            }
            (_, "super") => {
                parts.pop();
            }
            (0, name) => parts.push(config.crate_dir_name(name).unwrap_or(name).to_owned()),
            (_, name) => parts.push(name.to_owned()),
        }
    }
    // The longest prefix that names a module: `use a::b::Item` names module `a::b`.
    while !parts.is_empty() {
        if let Some(id) = by_name(tables, Family::Rust, &parts.join("::")) {
            return Some(id);
        }
        parts.pop();
    }
    None
}

pub(crate) fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// Joins a relative path onto a folder, resolving `.` and `..`.
pub(crate) fn join(dir: &str, relative: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_join_onto_folders() {
        assert_eq!(join("web/src", "./format.js"), "web/src/format.js");
        assert_eq!(join("web/src/a", "../b/c"), "web/src/b/c");
        assert_eq!(join("", "x.h"), "x.h");
    }
}
