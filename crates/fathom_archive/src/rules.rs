//! What counts as vendored, generated or binary.

/// Directory names whose contents are third-party, built or tool caches.
const VENDORED_DIRS: &[&str] = &[
    ".cache",
    ".eggs",
    ".git",
    ".gradle",
    ".hg",
    ".idea",
    ".mypy_cache",
    ".next",
    ".nox",
    ".nuxt",
    ".parcel-cache",
    ".pytest_cache",
    ".ruff_cache",
    ".svn",
    ".terraform",
    ".tox",
    ".venv",
    ".yarn",
    "__pycache__",
    "_vendor",
    "bower_components",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "target",
    "third_party",
    "vendor",
    "vendored",
    "venv",
];

/// File name endings of bundles and source maps: generated, and written for
/// a machine to read. A bundle's lines run to thousands of characters and it
/// repeats code the project already holds, so parsing one costs the memory
/// plan far more than it gives a reader. Every other generated file (protobuf
/// and gRPC output, parsers, `@generated` modules) is read and indexed:
/// `fathom_search::roles` marks it generated, by GitHub Linguist's rules.
const BUNDLE_SUFFIXES: &[&str] = &[".min.js", ".min.mjs", ".bundle.js", ".chunk.js", ".min.css", ".map"];

/// The first path component (a directory, never the file name) that marks
/// the path as vendored, if any.
pub fn vendored_component(path: &str) -> Option<&str> {
    let mut parts = path.split('/');
    parts.next_back(); // the file name itself is never a vendored directory
    parts.find(|dir| VENDORED_DIRS.contains(dir) || dir.ends_with(".egg-info"))
}

/// Why the file is a bundle or a source map, judging by its name.
pub fn bundle_marker(path: &str) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let suffix = BUNDLE_SUFFIXES.iter().find(|s| name.ends_with(*s))?;
    Some(format!("a generated bundle or source map (`*{suffix}`), not indexed"))
}

/// Script and style files written by a minifier rather than a person, whatever
/// their name (Sphinx ships jQuery, minified, as `static/jquery.js`): lines
/// of hundreds of characters on average. Hand-written code averages well
/// under 80; a small file is left alone, whatever its lines.
pub fn minified(path: &str, text: &str) -> Option<String> {
    if web_extension(path).is_none() || text.len() < 4 * 1024 {
        return None;
    }
    let lines = text.lines().count().max(1);
    let average = text.len() / lines;
    (average > MINIFIED_LINE).then(|| format!("minified ({average} characters a line on average)"))
}

/// A script or style named with a release's version (`jquery-3.5.1.js`,
/// `underscore-1.3.1.min.js`, `d3.v5.js`): a copy of someone else's library,
/// which a project names by what it copied and never names its own files so.
pub fn vendored_release(path: &str) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = web_extension(name)?;
    let stem = name[..name.len() - ext.len()].trim_end_matches(".min");
    let numeric = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    // `-3.5.1` (two numbers at least), or `.v5`.
    let dashed = stem.rsplit_once('-').is_some_and(|(lib, version)| {
        let version = version.strip_prefix('v').unwrap_or(version);
        !lib.is_empty() && version.split('.').count() >= 2 && version.split('.').all(numeric)
    });
    let dotted = stem.rsplit_once(".v").is_some_and(|(lib, major)| !lib.is_empty() && numeric(major));
    (dashed || dotted).then(|| format!("a library's release, copied (`{name}`)"))
}

/// A script's or a style's extension, which minifiers and copied releases
/// come with.
fn web_extension(path: &str) -> Option<&'static str> {
    [".js", ".mjs", ".cjs", ".css"].into_iter().find(|ext| path.ends_with(ext))
}

/// The average line length above which a script is taken for minified.
const MINIFIED_LINE: usize = 200;

/// Text files never hold NUL bytes in their first few kilobytes.
pub(crate) fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8 * 1024).any(|&b| b == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendored_directories_are_recognised_anywhere_but_not_as_file_names() {
        assert_eq!(vendored_component("web/node_modules/react/index.js"), Some("node_modules"));
        assert_eq!(vendored_component("pkg.egg-info/PKG-INFO"), Some("pkg.egg-info"));
        // Python's conventions for copied packages (pip, setuptools, botocore).
        assert_eq!(vendored_component("src/pip/_vendor/rich/console.py"), Some("_vendor"));
        assert_eq!(vendored_component("botocore/vendored/six.py"), Some("vendored"));
        assert_eq!(vendored_component("src/build.py"), None);
        assert_eq!(vendored_component("build"), None);
        assert_eq!(vendored_component("src/builder/x.py"), None);
    }

    #[test]
    fn minified_scripts_are_recognised_by_their_lines_not_their_names() {
        let minified_js = format!("/*! lib v1 */\n!function(e,t){{{}}}\n", "var a=e.b(t);".repeat(600));
        assert!(minified("themes/static/jquery.js", &minified_js).unwrap().starts_with("minified ("));
        let written = "function add(a, b) {\n  return a + b;\n}\n".repeat(200);
        assert_eq!(minified("static/app.js", &written), None);
        // Only scripts and styles: a Python module of long data lines is code.
        assert_eq!(minified("pkg/_table.py", &minified_js), None);
        // A small one-liner is no bundle.
        assert_eq!(minified("x.js", "module.exports = require('./lib');"), None);
    }

    #[test]
    fn scripts_named_with_a_release_are_vendored_copies() {
        for copied in
            ["static/jquery-3.5.1.js", "_static/underscore-1.3.1.min.js", "js/d3.v5.js", "css/bootstrap-v4.6.2.css"]
        {
            assert!(vendored_release(copied).is_some(), "{copied}");
        }
        for own in
            ["static/app.js", "src/jquery.js", "lib/es2015.js", "migrations/0001-initial.py", "x-1.js", "-1.2.js"]
        {
            assert_eq!(vendored_release(own), None, "{own}");
        }
    }

    #[test]
    fn only_bundles_and_source_maps_are_left_out_by_name() {
        assert!(bundle_marker("static/app.min.js").is_some());
        assert!(bundle_marker("dist-ish/app.js.map").unwrap().contains("*.map"));
        // Generated code a reader can name is kept: roles mark it.
        for kept in ["api/user_pb2.py", "rpc/hello.pb.go", "lib/model.g.dart", "Form1.Designer.cs", "src/app.js"] {
            assert_eq!(bundle_marker(kept), None, "{kept}");
        }
    }

    #[test]
    fn nul_bytes_mean_binary() {
        assert!(looks_binary(b"\x89PNG\r\n\x1a\n\0\0"));
        assert!(!looks_binary("héllo wörld".as_bytes()));
    }
}
