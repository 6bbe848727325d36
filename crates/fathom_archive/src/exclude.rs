//! Paths a user leaves out (`fathom index --exclude GLOB`).

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Glob patterns over root-relative paths, as in `.gitignore`: a pattern
/// with a `/` matches the whole path (`docs/**`, `src/*/gen/*.py`); one
/// without matches any component of it, a directory or a file name
/// (`tests`, `*.min.js`). Stored and compared as its patterns.
#[derive(Clone, Debug)]
pub struct Exclude {
    patterns: Vec<String>,
    /// Indexes into `patterns` for each set.
    paths: (GlobSet, Vec<usize>),
    names: (GlobSet, Vec<usize>),
}

/// A pattern that is not a glob.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad exclude pattern `{pattern}`: {message}")]
pub struct ExcludeError {
    pub pattern: String,
    pub message: String,
}

impl Exclude {
    pub fn new(patterns: &[String]) -> Result<Exclude, ExcludeError> {
        let (mut paths, mut names) = (GlobSetBuilder::new(), GlobSetBuilder::new());
        let (mut path_ids, mut name_ids) = (Vec::new(), Vec::new());
        for (i, pattern) in patterns.iter().enumerate() {
            let trimmed = pattern.trim_start_matches("./").trim_end_matches('/');
            let glob = Glob::new(trimmed.trim_start_matches('/'))
                .map_err(|e| ExcludeError { pattern: pattern.clone(), message: e.kind().to_string() })?;
            if trimmed.contains('/') {
                paths.add(glob);
                path_ids.push(i);
            } else {
                names.add(glob);
                name_ids.push(i);
            }
        }
        let build = |b: GlobSetBuilder| b.build().unwrap_or_else(|_| GlobSet::empty());
        Ok(Exclude { patterns: patterns.to_vec(), paths: (build(paths), path_ids), names: (build(names), name_ids) })
    }

    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// The first pattern that leaves `path` out, if any.
    pub fn matches(&self, path: &str) -> Option<&str> {
        if self.patterns.is_empty() {
            return None;
        }
        let pattern = |(set, ids): &(GlobSet, Vec<usize>), text: &str| {
            set.matches(text).first().map(|&at| self.patterns[ids[at]].as_str())
        };
        // A path pattern also covers everything under a matching directory.
        let mut prefix = path;
        loop {
            if let Some(p) = pattern(&self.paths, prefix) {
                return Some(p);
            }
            match prefix.rfind('/') {
                Some(at) => prefix = &prefix[..at],
                None => break,
            }
        }
        path.split('/').find_map(|component| pattern(&self.names, component))
    }
}

impl Default for Exclude {
    fn default() -> Exclude {
        Exclude::new(&[]).expect("no pattern is valid")
    }
}

impl PartialEq for Exclude {
    fn eq(&self, other: &Exclude) -> bool {
        self.patterns == other.patterns
    }
}

impl Serialize for Exclude {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.patterns.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Exclude {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Exclude, D::Error> {
        let patterns = Vec::<String>::deserialize(deserializer)?;
        Exclude::new(&patterns).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_any_component_and_paths_match_from_the_root() {
        let exclude = Exclude::new(&["tests".into(), "*.min.js".into(), "docs/**".into(), "src/gen/".into()]).unwrap();
        assert_eq!(exclude.matches("tests/test_app.py"), Some("tests"));
        assert_eq!(exclude.matches("pkg/tests/helpers.py"), Some("tests"));
        assert_eq!(exclude.matches("web/app.min.js"), Some("*.min.js"));
        assert_eq!(exclude.matches("docs/conf.py"), Some("docs/**"));
        assert_eq!(exclude.matches("src/gen/a/b.py"), Some("src/gen/"));
        assert_eq!(exclude.matches("src/app.py"), None);
        assert_eq!(exclude.matches("pkg/testsuite.py"), None);
        let error = Exclude::new(&["a[".into()]).unwrap_err();
        assert!(error.to_string().starts_with("bad exclude pattern `a[`"), "{error}");
    }
}
