//! How a file's path becomes the name its language imports it by.

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

/// The module name of a file:
/// - Python: the dotted import path, counted from the outermost enclosing
///   package (`src/pkg/calc.py` with `src/pkg/__init__.py` is `pkg.calc`;
///   a package's `__init__.py` is the package itself);
/// - JavaScript and TypeScript: the path without its extension.
pub fn module_name(path: &str, language: Language, packages: &PythonPackages) -> String {
    match language {
        Language::Python => python_module(path, packages),
        Language::JavaScript | Language::TypeScript | Language::Tsx => strip_extension(path).to_owned(),
    }
}

fn python_module(path: &str, packages: &PythonPackages) -> String {
    let stem = strip_extension(path);
    let (mut dir, file) = stem.rsplit_once('/').unwrap_or(("", stem));
    let mut parts = if file == "__init__" { Vec::new() } else { vec![file] };
    while !dir.is_empty() && packages.dirs.contains(dir) {
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
        let name = |p| module_name(p, Language::Python, &packages);
        assert_eq!(name("src/pkg/calc.py"), "pkg.calc");
        assert_eq!(name("src/pkg/__init__.py"), "pkg");
        assert_eq!(name("src/pkg/sub/x.py"), "pkg.sub.x");
        assert_eq!(name("src/pkg/sub/__init__.py"), "pkg.sub");
        assert_eq!(name("scripts/run.py"), "run");
    }

    #[test]
    fn script_modules_are_paths_without_extension() {
        let packages = PythonPackages::new(&[]);
        let name = |p, l| module_name(p, l, &packages);
        assert_eq!(name("src/utils/math.ts", Language::TypeScript), "src/utils/math");
        assert_eq!(name("types/index.d.ts", Language::TypeScript), "types/index");
        assert_eq!(name("app.test.js", Language::JavaScript), "app.test");
    }
}
