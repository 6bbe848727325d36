//! Tests that are not code: a test folder's scripts (`tests/shtest`) and
//! the case files they hand the program (`tests/jq.test`, which
//! `tests/jqtest` runs as `jq --run-tests "$DIR/jq.test"`). Command-line
//! tools, C projects above all, test this way: the program under test is
//! built, and scripts feed it cases and compare what it prints. No grammar
//! reads these files; indexing keeps them as [`fathom_model::Language::Text`],
//! one test each, so that tests-for can name them.
//!
//! Only files directly in a test folder are considered, and a file there
//! is a test when it is a script (its first line a `#!`) or when one of
//! those scripts names it. Fixtures deeper down (`tests/data/…`) and build
//! files beside the scripts (`tests/CMakeLists.txt`) are neither.

use fathom_search::retrieval::TEST_DIRS;

/// The largest script or case file read as a test. Case files past this
/// are data sets rather than cases a person writes.
pub const MAX_TEXT_TEST_BYTES: usize = 256 * 1024;

/// Whether the file at `path` might be a test script or case file, and so
/// is worth reading: it lies directly in a test folder (`tests/shtest`), is
/// not hidden, and no grammar reads it (the caller checks that).
pub fn may_be_text_test(path: &str) -> bool {
    let mut segments = path.rsplit('/');
    let name = segments.next().unwrap_or_default();
    let folder = segments.next().unwrap_or_default();
    !name.is_empty() && !name.starts_with('.') && TEST_DIRS.contains(&folder)
}

/// Which of `files`, given as (path, text) and each let in by
/// [`may_be_text_test`], are tests: scripts, and the files a script names
/// by file name (`$DIR/jq.test`), at most [`MAX_TEXT_TEST_BYTES`] each. A
/// file that scripts source (`. "$DIR/setup"`) is their helper, not a test,
/// even with a `#!` of its own.
pub fn text_tests(files: &[(&str, &str)]) -> Vec<bool> {
    let fits = |text: &str| text.len() <= MAX_TEXT_TEST_BYTES && !text.contains('\0');
    let scripts: Vec<bool> = files.iter().map(|(_, text)| fits(text) && text.starts_with("#!")).collect();
    files
        .iter()
        .zip(&scripts)
        .map(|(&(path, text), &script)| {
            let name = path.rsplit('/').next().unwrap_or(path);
            let how: Vec<Naming> = files
                .iter()
                .zip(&scripts)
                .filter(|&(&(other, _), &runs)| runs && other != path)
                .map(|(&(_, said), _)| naming(said, name))
                .collect();
            !how.contains(&Naming::Sources) && (script || fits(text) && how.contains(&Naming::Names))
        })
        .collect()
}

/// How a script's text names a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Naming {
    No,
    /// As a word of its own: `jq.test` in `"$DIR/jq.test"`, not in
    /// `onig.test` or `jq.tests`.
    Names,
    /// On a line that sources it (`. "$DIR/setup"`, `source setup`).
    Sources,
}

fn naming(text: &str, name: &str) -> Naming {
    let part = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '-');
    let mut found = Naming::No;
    for (at, _) in text.match_indices(name) {
        if text[..at].chars().next_back().is_some_and(part) || text[at + name.len()..].chars().next().is_some_and(part)
        {
            continue;
        }
        let line = text[..at].rsplit('\n').next().unwrap_or_default().trim_start();
        if line.starts_with(". ") || line.starts_with("source ") {
            return Naming::Sources;
        }
        found = Naming::Names;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_directly_in_a_test_folder_are_read() {
        assert!(may_be_text_test("tests/shtest"));
        assert!(may_be_text_test("test/jq.test"));
        assert!(may_be_text_test("pkg/tests/run"));
        assert!(!may_be_text_test("tests/data/input.json"));
        assert!(!may_be_text_test("tests/.gitignore"));
        assert!(!may_be_text_test("src/shtest"));
        assert!(!may_be_text_test("shtest"));
    }

    #[test]
    fn scripts_and_the_case_files_they_run_are_tests() {
        let files = [
            ("tests/jqtest", "#!/bin/sh\n. \"${0%/*}/setup\"\n$JQ --run-tests $JQTESTDIR/jq.test\n"),
            ("tests/jq.test", "# Tests are groups of three lines: program, input, expected output\n.\nnull\nnull\n"),
            ("tests/onig.test", "[match(\"( )*\"; \"g\")]\n\"abc\"\n[]\n"),
            ("tests/jq.tests", "not named: only jq.test is\n"),
            ("tests/setup", "#!/bin/sh\nJQ=$JQBASEDIR/jq\n"),
            ("tests/onigtest", "#!/bin/sh\nsource setup\n$JQ --run-tests onig.test\n"),
            ("tests/CMakeLists.txt", "add_test(NAME unit COMMAND unit)\n"),
        ];
        // `setup` is sourced by the scripts: a helper, not a test.
        assert_eq!(text_tests(&files), [true, true, true, false, false, true, false]);
    }

    #[test]
    fn a_script_does_not_make_itself_a_case_file_and_size_is_capped() {
        let big = format!("#!/bin/sh\n{}", "x".repeat(MAX_TEXT_TEST_BYTES));
        let files = [("tests/big", big.as_str()), ("tests/notes", "see tests/notes\n")];
        assert_eq!(text_tests(&files), [false, false]);
    }
}
