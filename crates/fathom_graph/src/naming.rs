//! How a file's path becomes the name its language imports it by, and how a
//! symbol's qualified name is spelled.

use std::collections::HashSet;

use fathom_model::Language;

/// The directories that are Python packages (they hold an `__init__.py`).
pub struct PythonPackages {
    dirs: HashSet<String>,
}

impl PythonPackages {
    pub fn new(paths: &[&str]) -> Self {
        let dirs = paths
            .iter()
            .filter_map(|p| p.strip_suffix("/__init__.py").or_else(|| p.strip_suffix("/__init__.pyi")))
            .map(str::to_owned)
            .collect();
        PythonPackages { dirs }
    }
}

/// The separator between the parts of a qualified name.
pub fn separator(language: Language) -> &'static str {
    match language {
        Language::Rust | Language::Cpp | Language::Ruby => "::",
        // A test script's one test is named by its path: `tests/jq.test`.
        Language::Text => "/",
        _ => ".",
    }
}

/// The module name of a file:
/// - Python: the dotted import path, counted from the outermost enclosing
///   package (`src/pkg/calc.py` with `src/pkg/__init__.py` is `pkg.calc`);
/// - Java and Kotlin: the declared package and the file's stem (`a.b.User`);
/// - Rust: the crate (the folder holding `src/`) and the module path
///   (`fathom_graph::naming`);
/// - a test script or case file: its path (`tests/jq.test`);
/// - others: the path without its extension.
pub fn module_name(path: &str, language: Language, package: Option<&str>, packages: &PythonPackages) -> String {
    match language {
        Language::Text => path.to_owned(),
        Language::Python => python_module(path, packages),
        Language::Java | Language::Kotlin => {
            let stem = file_stem(path);
            match package {
                Some(package) if !package.is_empty() => format!("{package}.{stem}"),
                _ => stem.to_owned(),
            }
        }
        Language::Rust => rust_module(path),
        _ => strip_extension(path).to_owned(),
    }
}

/// The prefix of the qualified names of a file's top-level symbols.
pub(crate) fn qualified_root(language: Language, module: &str, package: Option<&str>) -> String {
    match language {
        // Declared packages and namespaces, not files, name these languages' symbols.
        Language::Java | Language::Kotlin | Language::CSharp | Language::Php | Language::Go => {
            package.unwrap_or_default().to_owned()
        }
        // Ruby constants are global: `Shop::Cart`.
        Language::Ruby => String::new(),
        // Its folder: the one test, named by the file's name, is its path.
        Language::Text => module.rsplit_once('/').map_or("", |(folder, _)| folder).to_owned(),
        _ => module.to_owned(),
    }
}

fn python_module(path: &str, packages: &PythonPackages) -> String {
    let stem = strip_extension(path);
    let (mut dir, file) = stem.rsplit_once('/').unwrap_or(("", stem));
    let mut parts = if file == "__init__" { Vec::new() } else { vec![file] };
    // Folders count up to the outermost package; folders without an
    // `__init__.py` below it are namespace packages (PEP 420), and count too.
    let outermost = std::iter::successors(Some(dir), |d| d.rsplit_once('/').map(|(parent, _)| parent))
        .filter(|d| packages.dirs.contains(*d))
        .last();
    let Some(outermost) = outermost else {
        return if parts.is_empty() {
            dir.rsplit('/').next().filter(|d| !d.is_empty()).unwrap_or("__init__").to_owned()
        } else {
            file.to_owned()
        };
    };
    while dir.len() >= outermost.len() && !dir.is_empty() {
        let (parent, name) = dir.rsplit_once('/').unwrap_or(("", dir));
        parts.push(name);
        dir = parent;
    }
    if parts.is_empty() {
        // An `__init__.py` outside any package: name it by its folder.
        return dir.rsplit('/').next().filter(|d| !d.is_empty()).unwrap_or("__init__").to_owned();
    }
    parts.reverse();
    parts.join(".")
}

fn rust_module(path: &str) -> String {
    let stem = strip_extension(path);
    let (krate, inner) = match stem.rfind("src/") {
        Some(at) if at == 0 || stem[..at].ends_with('/') => {
            let above = stem[..at].trim_end_matches('/');
            let krate = above.rsplit('/').next().filter(|s| !s.is_empty()).unwrap_or("crate");
            (krate.replace('-', "_"), &stem[at + 4..])
        }
        _ => ("crate".to_owned(), stem),
    };
    let mut parts: Vec<&str> = inner.split('/').collect();
    if matches!(parts.last(), Some(&"mod" | &"lib" | &"main")) {
        parts.pop();
    }
    std::iter::once(krate.as_str()).chain(parts.into_iter().filter(|p| !p.is_empty())).collect::<Vec<_>>().join("::")
}

fn file_stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    strip_extension(name)
}

fn strip_extension(path: &str) -> &str {
    for compound in [".d.ts", ".d.mts", ".d.cts"] {
        if let Some(stem) = path.strip_suffix(compound) {
            return stem;
        }
    }
    match path.rsplit_once('.') {
        Some((stem, ext)) if !ext.contains('/') && !stem.ends_with('/') && !stem.is_empty() => stem,
        _ => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_modules_are_named_from_their_outermost_package() {
        let paths =
            ["src/pkg/__init__.py", "src/pkg/calc.py", "src/pkg/sub/__init__.py", "src/pkg/sub/x.py", "scripts/run.py"];
        let packages = PythonPackages::new(&paths);
        let name = |p| module_name(p, Language::Python, None, &packages);
        assert_eq!(name("src/pkg/calc.py"), "pkg.calc");
        assert_eq!(name("src/pkg/__init__.py"), "pkg");
        assert_eq!(name("src/pkg/sub/x.py"), "pkg.sub.x");
        assert_eq!(name("src/pkg/sub/__init__.py"), "pkg.sub");
        assert_eq!(name("scripts/run.py"), "run");
        assert_eq!(name("src/pkg/ns/mod.py"), "pkg.ns.mod", "a namespace folder inside a package counts");
    }

    #[test]
    fn other_languages_name_modules_by_package_crate_or_path() {
        let packages = PythonPackages::new(&[]);
        let name = |p, l, pkg| module_name(p, l, pkg, &packages);
        assert_eq!(name("src/utils/math.ts", Language::TypeScript, None), "src/utils/math");
        assert_eq!(name("types/index.d.ts", Language::TypeScript, None), "types/index");
        assert_eq!(name("src/main/java/a/b/User.java", Language::Java, Some("a.b")), "a.b.User");
        assert_eq!(name("crates/fathom_graph/src/naming.rs", Language::Rust, None), "fathom_graph::naming");
        assert_eq!(name("crates/fathom_graph/src/lib.rs", Language::Rust, None), "fathom_graph");
        assert_eq!(name("my-tool/src/net/mod.rs", Language::Rust, None), "my_tool::net");
        assert_eq!(name("src/main.rs", Language::Rust, None), "crate");
        assert_eq!(name("lib/shop/cart.rb", Language::Ruby, None), "lib/shop/cart");
    }
}
