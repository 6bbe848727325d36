//! A change as a unified diff: which lines of which files it touches.
//!
//! Lines are counted in the *old* version, which is the one indexed: a
//! removed line is its own number, and an added line is placed at the old
//! line it follows (so an insertion inside a function lands in that
//! function).

use serde::Serialize;

/// One file of a diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChangedFile {
    /// The old path (the new one for an added file), without `a/`/`b/`.
    pub path: String,
    /// Old-version line numbers that the change touches, sorted, unique.
    pub lines: Vec<u32>,
    /// The file is new: nothing of it is in the index.
    pub added: bool,
    pub deleted: bool,
    /// The added and removed lines, without their markers: the change's words.
    pub text: String,
}

/// Why a diff could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffError(pub String);

impl std::fmt::Display for DiffError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not a unified diff: {}", self.0)
    }
}

impl std::error::Error for DiffError {}

/// Reads a unified diff (`git diff`, `diff -u`) of one or more files.
///
/// Hunks are read by their headers' counts, as `git apply` and GNU `patch`
/// read them, which also puts back what a diff loses when it is pasted from
/// a web page, a chat or an email: a blank context line that lost its
/// leading space, line ends of `\r\n`, and context lines cut off the end of
/// a hunk (trailing blank lines trimmed). Anything between files (git's
/// `diff --git`, `index`, mode and rename lines, prose) is passed over.
pub fn parse_diff(diff: &str) -> Result<Vec<ChangedFile>, DiffError> {
    let mut files: Vec<ChangedFile> = Vec::new();
    let mut old_path: Option<String> = None;
    // Inside a hunk: the next old line's number, and the lines each side still holds.
    let mut hunk: Option<(u32, u32, u32)> = None;
    let mut hunks = 0usize;
    for (number, line) in diff.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let (Some((at, old, new)), Some(file)) = (&mut hunk, files.last_mut()) {
            let context = *old > 0 && *new > 0;
            let mut consumed = true;
            match line.as_bytes().first() {
                None | Some(b' ') if context => {
                    (*at, *old, *new) = (*at + 1, *old - 1, *new - 1);
                }
                // `--- ` is the next file's header only where nothing but
                // context can be missing (a removed SQL comment reads `--- x`).
                Some(b'-') if *old > 0 && !(line.starts_with("--- ") && old == new) => {
                    file.lines.push(*at);
                    (*at, *old) = (*at + 1, *old - 1);
                    file.text.push_str(&line[1..]);
                    file.text.push('\n');
                }
                // An insertion sits between `at - 1` and `at`: it belongs to the line before.
                Some(b'+') if *new > 0 && !(line.starts_with("+++ ") && old == new) => {
                    file.lines.push(at.saturating_sub(1).max(1));
                    *new -= 1;
                    file.text.push_str(&line[1..]);
                    file.text.push('\n');
                }
                Some(b'\\') => {} // "\ No newline at end of file"
                // The hunk ends early: only context may be missing from its end.
                _ if old == new => consumed = false,
                _ => {
                    return Err(DiffError(format!(
                        "line {}: the hunk before it is short of {old} old and {new} new lines",
                        number + 1
                    )));
                }
            }
            if !consumed || (*old == 0 && *new == 0) {
                hunk = None;
            }
            if consumed {
                continue;
            }
        }
        if let Some(path) = line.strip_prefix("--- ") {
            old_path = Some(diff_path(path));
        } else if let Some(path) = line.strip_prefix("+++ ") {
            let new = diff_path(path);
            let old = old_path.take().unwrap_or_else(|| new.clone());
            let (added, deleted) = (old == "/dev/null", new == "/dev/null");
            let path = if added { new } else { old };
            files.push(ChangedFile { path, lines: Vec::new(), added, deleted, text: String::new() });
        } else if line.starts_with("@@") {
            let Some(header) = hunk_header(line) else {
                return Err(DiffError(format!("line {}: `{}` is not a hunk header", number + 1, first_line(line))));
            };
            if files.is_empty() {
                return Err(DiffError(format!("line {}: a hunk before any `--- a/…` `+++ b/…` header", number + 1)));
            }
            hunk = Some(header).filter(|&(_, old, new)| old > 0 || new > 0);
            hunks += 1;
        }
    }
    if hunks == 0 {
        return Err(DiffError("it has no hunk (`@@ -a,b +c,d @@`)".into()));
    }
    for file in &mut files {
        file.lines.sort_unstable();
        file.lines.dedup();
    }
    Ok(files)
}

/// A header's path, without `a/`/`b/` or a timestamp after a tab.
fn diff_path(path: &str) -> String {
    let path = path.split('\t').next().unwrap_or(path).trim();
    path.strip_prefix("a/").or_else(|| path.strip_prefix("b/")).unwrap_or(path).to_owned()
}

/// A hunk header `@@ -a,b +c,d @@`: the old start, and the old and new line
/// counts (a count left out is 1).
fn hunk_header(header: &str) -> Option<(u32, u32, u32)> {
    let mut parts = header.strip_prefix("@@ ")?.split_whitespace();
    let range = |range: &str| -> Option<(u32, u32)> {
        match range.split_once(',') {
            Some((start, n)) => Some((start.parse().ok()?, n.parse().ok()?)),
            None => Some((range.parse().ok()?, 1)),
        }
    };
    let (start, old) = range(parts.next()?.strip_prefix('-')?)?;
    let (_, new) = range(parts.next()?.strip_prefix('+')?)?;
    Some((start, old, new))
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or(text).chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIT_DIFF: &str = "\
diff --git a/src/app/parser.py b/src/app/parser.py
index 3b18e51..a9c0f2d 100644
--- a/src/app/parser.py
+++ b/src/app/parser.py
@@ -3,7 +3,8 @@ class Parser:
         return tokenize(data)
 
 def tokenize(text):
-    return normalize(text).split()
+    words = normalize(text).split()
+    return [w for w in words if w]
 
 def normalize(text):
     return text.strip()
diff --git a/docs/new.md b/docs/new.md
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/docs/new.md
@@ -0,0 +1,2 @@
+# New
+text
";

    #[test]
    fn a_git_diff_gives_old_line_numbers_per_file() {
        let files = parse_diff(GIT_DIFF).unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(files[0].path, "src/app/parser.py");
        // Line 6 is removed; both added lines follow it, in the old numbering.
        assert_eq!(files[0].lines, [6]);
        assert!(!files[0].added && !files[0].deleted);
        // The change's words: its removed and added lines, not the context.
        assert_eq!(
            files[0].text,
            "    return normalize(text).split()\n    words = normalize(text).split()\n    return [w for w in words if w]\n"
        );
        assert_eq!(files[1].path, "docs/new.md");
        assert!(files[1].added);
    }

    #[test]
    fn a_pasted_diff_reads_as_the_diff_it_was() {
        // Blank context lines without their space, as a web page or a chat
        // gives them back, line ends of \r\n, and the hunk's last context
        // line (blank) trimmed off the end.
        let pasted = GIT_DIFF.lines().map(|l| if l == " " { "" } else { l }).collect::<Vec<_>>().join("\r\n");
        assert!(pasted.contains("\r\n\r\n def tokenize"));
        let trimmed = "\
--- a/src/app/parser.py
+++ b/src/app/parser.py
@@ -5,4 +5,5 @@ def tokenize(text):
 def tokenize(text):
-    return normalize(text).split()
+    words = normalize(text).split()
+    return [w for w in words if w]
";
        let want = parse_diff(GIT_DIFF).unwrap();
        assert_eq!(parse_diff(&pasted).unwrap(), want);
        let files = parse_diff(trimmed).unwrap();
        assert_eq!(files[0].lines, [6]);
        assert_eq!(files[0].text, want[0].text);
    }

    #[test]
    fn a_hunk_header_gives_its_counts() {
        assert_eq!(hunk_header("@@ -3,7 +3,8 @@ class Parser:"), Some((3, 7, 8)));
        assert_eq!(hunk_header("@@ -3 +3 @@"), Some((3, 1, 1)));
        assert_eq!(hunk_header("@@ -0,0 +1,2 @@"), Some((0, 0, 2)));
        assert_eq!(hunk_header("@@ nonsense"), None);
    }

    #[test]
    fn text_that_is_not_a_diff_is_refused_with_the_cause() {
        let error = parse_diff("please fix the login page").unwrap_err();
        assert!(error.to_string().contains("no hunk"), "{error}");
    }
}
