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
pub fn parse_diff(diff: &str) -> Result<Vec<ChangedFile>, DiffError> {
    // The parser wants each file to start at its `---` line: git's
    // `diff --git`, `index`, mode and rename lines carry nothing we use.
    let text: String = diff
        .lines()
        .filter(|l| {
            !(l.starts_with("diff --git ")
                || l.starts_with("index ")
                || l.starts_with("new file mode")
                || l.starts_with("deleted file mode")
                || l.starts_with("old mode")
                || l.starts_with("new mode")
                || l.starts_with("similarity index")
                || l.starts_with("rename from")
                || l.starts_with("rename to"))
        })
        .collect::<Vec<_>>()
        .join("\n");
    let text = mend_hunks(&text);
    if !text.lines().any(|l| l.starts_with("@@")) {
        return Err(DiffError("it has no hunk (`@@ -a,b +c,d @@`)".into()));
    }
    let patches = patch::Patch::from_multiple(&text).map_err(|e| DiffError(first_line(&e.to_string())))?;
    let mut files = Vec::new();
    for p in patches {
        let strip = |path: &str| -> String {
            let path = path.trim();
            path.strip_prefix("a/").or_else(|| path.strip_prefix("b/")).unwrap_or(path).to_owned()
        };
        let (old, new) = (strip(&p.old.path), strip(&p.new.path));
        let added = old == "/dev/null";
        let deleted = new == "/dev/null";
        let mut lines = Vec::new();
        let mut words = String::new();
        for hunk in &p.hunks {
            let mut at = hunk.old_range.start as u32;
            for line in &hunk.lines {
                match line {
                    patch::Line::Context(_) => at += 1,
                    patch::Line::Remove(text) => {
                        lines.push(at);
                        at += 1;
                        words.push_str(text);
                        words.push('\n');
                    }
                    // An insertion sits between `at - 1` and `at`: it belongs to the line before.
                    patch::Line::Add(text) => {
                        lines.push(at.saturating_sub(1).max(1));
                        words.push_str(text);
                        words.push('\n');
                    }
                }
            }
        }
        lines.sort_unstable();
        lines.dedup();
        files.push(ChangedFile { path: if added { new } else { old }, lines, added, deleted, text: words });
    }
    Ok(files)
}

/// Puts back what a diff loses when it is pasted from a web page, a chat or
/// an email, as `git apply` and GNU `patch` accept it: a blank context line
/// that lost its leading space, line ends of `\r\n`, and context lines cut
/// off the end of a hunk (trailing blank lines trimmed). Hunks are read by
/// their header's counts; anything else is left for the parser to judge.
fn mend_hunks(diff: &str) -> String {
    let mut out = String::with_capacity(diff.len() + 64);
    // Lines the current hunk still holds, in the old and the new version.
    let (mut old, mut new) = (0u32, 0u32);
    let close = |out: &mut String, old: &mut u32, new: &mut u32| {
        if *old == *new {
            for _ in 0..*old {
                out.push_str(" \n");
            }
        }
        (*old, *new) = (0, 0);
    };
    for line in diff.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if old > 0 || new > 0 {
            match line.as_bytes().first() {
                None => {
                    out.push_str(" \n");
                    old -= 1;
                    new -= 1;
                    continue;
                }
                Some(b' ') if old > 0 && new > 0 => (old, new) = (old - 1, new - 1),
                // `--- ` is the next file's header only where nothing but
                // context can be missing (a removed SQL comment reads `--- x`).
                Some(b'-') if old > 0 && !(line.starts_with("--- ") && old == new) => old -= 1,
                Some(b'+') if new > 0 && !(line.starts_with("+++ ") && old == new) => new -= 1,
                Some(b'\\') => {}
                _ => close(&mut out, &mut old, &mut new),
            }
        }
        if line.starts_with("@@") {
            close(&mut out, &mut old, &mut new);
            (old, new) = hunk_counts(line).unwrap_or((0, 0));
        }
        out.push_str(line);
        out.push('\n');
    }
    close(&mut out, &mut old, &mut new);
    out
}

/// The old and new line counts of a hunk header `@@ -a,b +c,d @@` (a count
/// left out is 1).
fn hunk_counts(header: &str) -> Option<(u32, u32)> {
    let mut parts = header.strip_prefix("@@ ")?.split_whitespace();
    let count = |range: &str| -> Option<u32> {
        match range.split_once(',') {
            Some((_, n)) => n.parse().ok(),
            None => range.parse::<u32>().ok().map(|_| 1),
        }
    };
    let old = count(parts.next()?.strip_prefix('-')?)?;
    let new = count(parts.next()?.strip_prefix('+')?)?;
    Some((old, new))
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
        assert_eq!(hunk_counts("@@ -3,7 +3,8 @@ class Parser:"), Some((7, 8)));
        assert_eq!(hunk_counts("@@ -3 +3 @@"), Some((1, 1)));
        assert_eq!(hunk_counts("@@ -0,0 +1,2 @@"), Some((0, 2)));
        assert_eq!(hunk_counts("@@ nonsense"), None);
    }

    #[test]
    fn text_that_is_not_a_diff_is_refused_with_the_cause() {
        let error = parse_diff("please fix the login page").unwrap_err();
        assert!(error.to_string().contains("no hunk"), "{error}");
    }
}
