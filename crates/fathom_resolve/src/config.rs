//! The project files that change how imports resolve: `go.mod`,
//! `tsconfig.json`/`jsconfig.json`, `package.json` and `Cargo.toml`.

use serde::Deserialize;

use crate::modules::{dir_of, join};

/// What the archive's configuration files say about module names.
#[derive(Clone, Debug, Default)]
pub struct ProjectConfig {
    /// (folder, module path) for each `go.mod`.
    pub go_modules: Vec<(String, String)>,
    /// tsconfig `paths`: (pattern, folder of the tsconfig, targets).
    ts_paths: Vec<(String, String, Vec<String>)>,
    /// tsconfig `baseUrl`s, resolved to archive folders.
    ts_base_urls: Vec<String>,
    /// (package name, folder) for each `package.json` with a name.
    packages: Vec<(String, String)>,
    /// (crate name with `_`, folder name) for each `Cargo.toml` package.
    crates: Vec<(String, String)>,
    /// Files that could not be read, and why.
    pub problems: Vec<(String, String)>,
}

/// Whether a path is a configuration file this crate reads.
pub fn is_config_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(name, "go.mod" | "package.json" | "tsconfig.json" | "jsconfig.json" | "Cargo.toml")
}

#[derive(Deserialize)]
struct TsConfig {
    #[serde(rename = "compilerOptions")]
    compiler_options: Option<CompilerOptions>,
}

#[derive(Deserialize)]
struct CompilerOptions {
    #[serde(rename = "baseUrl")]
    base_url: Option<String>,
    paths: Option<std::collections::BTreeMap<String, Vec<String>>>,
}

#[derive(Deserialize)]
struct PackageJson {
    name: Option<String>,
}

#[derive(Deserialize)]
struct CargoToml {
    package: Option<CargoPackage>,
}

#[derive(Deserialize)]
struct CargoPackage {
    name: String,
}

impl ProjectConfig {
    /// Reads the configuration files among `files` (path, text).
    pub fn read<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> ProjectConfig {
        let mut config = ProjectConfig::default();
        for (path, text) in files {
            let dir = dir_of(path).to_owned();
            let name = path.rsplit('/').next().unwrap_or(path);
            let result = match name {
                "go.mod" => {
                    let module =
                        text.lines().find_map(|l| l.trim().strip_prefix("module ")).map(|m| m.trim().to_owned());
                    if let Some(module) = module {
                        config.go_modules.push((dir, module));
                    }
                    Ok(())
                }
                "tsconfig.json" | "jsconfig.json" => {
                    json5::from_str::<TsConfig>(text).map_err(|e| e.to_string()).map(|ts| {
                        let Some(options) = ts.compiler_options else { return };
                        let base = options.base_url.as_deref().map(|b| join(&dir, b)).unwrap_or_else(|| dir.clone());
                        if options.base_url.is_some() {
                            config.ts_base_urls.push(base.clone());
                        }
                        for (pattern, targets) in options.paths.unwrap_or_default() {
                            config.ts_paths.push((pattern, base.clone(), targets));
                        }
                    })
                }
                "package.json" => serde_json::from_str::<PackageJson>(text).map_err(|e| e.to_string()).map(|p| {
                    if let Some(name) = p.name {
                        config.packages.push((name, dir));
                    }
                }),
                "Cargo.toml" => toml::from_str::<CargoToml>(text).map_err(|e| e.to_string()).map(|c| {
                    if let Some(package) = c.package {
                        let folder = dir.rsplit('/').next().unwrap_or(&dir).to_owned();
                        config.crates.push((package.name.replace('-', "_"), folder.replace('-', "_")));
                    }
                }),
                _ => Ok(()),
            };
            if let Err(why) = result {
                config.problems.push((path.to_owned(), why));
            }
        }
        config
    }

    /// Archive paths a non-relative TS import may name, through `paths` and `baseUrl`.
    pub(crate) fn ts_paths(&self, source: &str) -> Vec<String> {
        let mut out = Vec::new();
        for (pattern, base, targets) in &self.ts_paths {
            let captured = match pattern.split_once('*') {
                Some((prefix, suffix)) => source.strip_prefix(prefix).and_then(|rest| rest.strip_suffix(suffix)),
                None => (source == pattern).then_some(""),
            };
            if let Some(captured) = captured {
                out.extend(targets.iter().map(|target| join(base, &target.replace('*', captured))));
            }
        }
        out.extend(self.ts_base_urls.iter().map(|base| join(base, source)));
        out
    }

    /// The folder of the workspace package a bare import names, and the rest
    /// of the import path: `@acme/ui/button` → (`packages/ui`, `button`).
    pub(crate) fn package_dir(&self, source: &str) -> Option<(String, String)> {
        self.packages.iter().find_map(|(name, dir)| {
            let rest = source.strip_prefix(name.as_str())?;
            if rest.is_empty() {
                Some((dir.clone(), "index".to_owned()))
            } else {
                rest.strip_prefix('/').map(|r| (dir.clone(), r.to_owned()))
            }
        })
    }

    /// The folder name of the crate a Rust path starts with, when it differs.
    pub(crate) fn crate_dir_name(&self, name: &str) -> Option<&str> {
        self.crates.iter().find(|(krate, _)| krate == name).map(|(_, dir)| dir.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_files_map_import_names_to_folders() {
        let tsconfig = r#"{
            // comments and trailing commas are allowed here
            "compilerOptions": { "baseUrl": "src", "paths": { "@app/*": ["app/*"], }, },
        }"#;
        let config = ProjectConfig::read([
            ("web/tsconfig.json", tsconfig),
            ("go.mod", "module example.com/shop\n\ngo 1.22\n"),
            ("packages/ui/package.json", r#"{"name": "@acme/ui"}"#),
            ("crates/my-lib/Cargo.toml", "[package]\nname = \"my-lib\"\nversion = \"0.1.0\"\n"),
            ("broken/package.json", "{ not json"),
        ]);
        assert_eq!(config.ts_paths("@app/cart"), ["web/src/app/cart", "web/src/@app/cart"]);
        assert_eq!(config.go_modules, [(String::new(), "example.com/shop".to_owned())]);
        assert_eq!(config.package_dir("@acme/ui/button"), Some(("packages/ui".into(), "button".into())));
        assert_eq!(config.crate_dir_name("my_lib"), Some("my_lib"));
        assert_eq!(config.problems.len(), 1, "a broken file is reported, not fatal");
    }
}
