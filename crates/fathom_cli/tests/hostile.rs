//! The hostile corpus (`tests/hostile/generate.py`, built here at test time)
//! through `fathom index` and `fathom search`. For every case:
//! - the process ends by itself within [`CASE_SECONDS`] per 2 GiB of its
//!   address space (more memory lets it index more), in an address space
//!   of [`ADDRESS_SPACE_MB`] or the case's first limit; with
//!   `FATHOM_HOSTILE_LIMITS=all` (`make bench`, on the release build), once
//!   under each of the case's limits (the memory cases: 2, 4 and 6 GiB);
//! - nothing panics, and the exit status is the one the case expects: 2
//!   only for an input unreadable as a whole, with a message naming the cause;
//! - the ordinary file is indexed and found by its function's name;
//! - each skipped file or part the case names is listed with its reason, and
//!   every skipped entry has a detail;
//! - nothing is written anywhere but the bundle asked for.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Wall-clock limit for each command, in this unoptimised test build (the
/// release build takes under 60 s for any case: the dense shapes parse
/// about a megabyte a second).
const CASE_SECONDS: u64 = 180;
/// The address space each command runs in (`ulimit -v`), unless the case
/// sets its own.
const ADDRESS_SPACE_MB: u64 = 2048;

/// How long a command may run in an address space of `limit_mb`.
fn seconds_for(limit_mb: u64) -> u64 {
    CASE_SECONDS * limit_mb.div_ceil(ADDRESS_SPACE_MB).max(1)
}

fn repo() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("../..")
}

#[derive(serde::Deserialize)]
struct Case {
    name: String,
    input: String,
    exit: i32,
    needle: bool,
    skipped: Vec<(String, String)>,
    errors: Vec<String>,
    stderr: Option<String>,
    args: Vec<String>,
    limits_mb: Vec<u64>,
}

/// What one command did.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    seconds: f64,
    timed_out: bool,
}

/// Runs `fathom args` in `cwd`, with `home` as its home, under an address
/// space limit, killed past [`CASE_SECONDS`] per 2 GiB of it. Output goes to files, so a
/// large answer cannot fill a pipe that nobody reads while it runs.
fn fathom(args: &[&str], cwd: &Path, home: &Path, limit_mb: u64) -> Run {
    let out = cwd.join("../stdout");
    let err = cwd.join("../stderr");
    let start = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", limit_mb * 1024))
        .arg(env!("CARGO_BIN_EXE_fathom"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env_remove("FATHOM_CACHE")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("sh runs");
    let deadline = start + Duration::from_secs(seconds_for(limit_mb));
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break (Some(status), false);
        }
        if Instant::now() > deadline {
            child.kill().ok();
            child.wait().ok();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.and_then(|s| s.code()),
        stdout: String::from_utf8_lossy(&std::fs::read(&out).unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&std::fs::read(&err).unwrap_or_default()).into_owned(),
        seconds: start.elapsed().as_secs_f64(),
        timed_out,
    }
}

/// Every file under `dir`, relative to it.
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(at) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&at) else { continue };
        for entry in read.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path.clone());
            }
            out.push(path.strip_prefix(dir).unwrap().display().to_string());
        }
    }
    out.sort();
    out
}

/// The problems with one case, empty when it meets every rule.
fn check(case: &Case, limit: u64, corpus: &Path, work: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let (cwd, home) = (work.join("cwd"), work.join("home"));
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let input = corpus.join(&case.input);
    let input = input.to_str().unwrap();
    let mut args = vec!["index", input, "--json", "--no-embed", "-o", "index.fathom"];
    args.extend(case.args.iter().map(String::as_str));
    let run = fathom(&args, &cwd, &home, limit);
    let said = || format!("stderr: {}", run.stderr.chars().take(600).collect::<String>());
    if run.timed_out {
        problems.push(format!("still running after {} s", seconds_for(limit)));
        return problems;
    }
    if run.stderr.contains("panicked") || run.code.is_none() {
        problems.push(format!("crashed ({:?}); {}", run.code, said()));
        return problems;
    }
    if run.code != Some(case.exit) {
        problems.push(format!("exit {:?}, expected {}; {}", run.code, case.exit, said()));
        return problems;
    }
    let wanted = case.stderr.as_deref().unwrap_or_default();
    if !run.stderr.contains(wanted) {
        problems.push(format!("the messages do not say `{wanted}`; {}", said()));
    }
    if case.exit == 2 {
        if !run.stderr.contains(case.input.as_str()) {
            problems.push(format!("the message does not name the input; {}", said()));
        }
    } else {
        let summary: Value = match serde_json::from_str(&run.stdout) {
            Ok(summary) => summary,
            Err(err) => return vec![format!("stdout is not JSON ({err}); {}", said())],
        };
        let skipped = summary["skipped"].as_array().cloned().unwrap_or_default();
        for (reason, part) in &case.skipped {
            if !skipped.iter().any(|s| {
                s["reason"] == reason.as_str() && s["path"].as_str().is_some_and(|p| p.contains(part.as_str()))
            }) {
                problems.push(format!("no `{part}` skipped as {reason}"));
            }
        }
        if let Some(bare) = skipped.iter().find(|s| s["detail"].as_str().is_none_or(str::is_empty)) {
            problems.push(format!("skipped with no detail: {bare}"));
        }
        let errors = summary["errors"].as_array().cloned().unwrap_or_default();
        for part in &case.errors {
            if !errors.iter().any(|e| e["path"].as_str().is_some_and(|p| p.contains(part.as_str()))) {
                problems.push(format!("no problem reported for `{part}`"));
            }
        }
        if case.needle {
            let args = ["search", "index.fathom", "hostile_needle_marker", "--mode", "lexical", "--json"];
            let search = fathom(&args, &cwd, &home, ADDRESS_SPACE_MB);
            let hits: Value = serde_json::from_str(&search.stdout).unwrap_or_default();
            let found = hits["hits"].as_array().is_some_and(|hits| {
                hits.iter().any(|h| h["file"].as_str().is_some_and(|f| f.ends_with("hostile_needle.py")))
            });
            if !found {
                problems.push(format!(
                    "the ordinary file was not found: {}",
                    search.stdout.chars().take(400).collect::<String>()
                ));
            }
        }
    }
    // Nothing written but the bundle: not in the working folder, the home
    // folder, or beside the input (where `../` names would land).
    let written: Vec<String> = tree(work)
        .into_iter()
        .filter(|p| !["cwd", "home", "cwd/index.fathom", "stdout", "stderr"].contains(&p.as_str()))
        .collect();
    if !written.is_empty() {
        problems.push(format!("wrote {written:?}"));
    }
    eprintln!("{:<34} {:>5} MB {:6.2} s  exit {:?}", case.name, limit, run.seconds, run.code);
    problems
}

#[test]
fn every_hostile_case_ends_in_seconds_keeps_the_ordinary_file_and_lists_what_it_skipped() {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{}", std::process::id()));
    let corpus = root.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    let generated = Command::new("python3")
        .arg(repo().join("tests/hostile/generate.py"))
        .arg(&corpus)
        .status()
        .expect("python3 runs the generator");
    assert!(generated.success(), "the generator failed");
    let cases: Vec<Case> =
        serde_json::from_slice(&std::fs::read(corpus.join("manifest.json")).unwrap()).expect("the manifest reads");
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let before = tree(&corpus);
    let every_limit = std::env::var("FATHOM_HOSTILE_LIMITS").is_ok_and(|v| v == "all");
    let runs: Vec<(&Case, u64)> = cases
        .iter()
        .flat_map(|case| {
            let limits = match case.limits_mb.as_slice() {
                [] => vec![ADDRESS_SPACE_MB],
                all if every_limit => all.to_vec(),
                [first, ..] => vec![*first],
            };
            limits.into_iter().map(move |limit| (case, limit))
        })
        .collect();
    // Two at a time: each case is bounded in memory by its address space.
    let queue = Mutex::new(runs.iter());
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while let Some(&(case, limit)) = { queue.lock().unwrap().next() } {
                    let work = root.join("work").join(format!("{}-{limit}", case.name));
                    let problems = check(case, limit, &corpus, &work);
                    if !problems.is_empty() {
                        failures.lock().unwrap().push(format!("{} ({limit} MB): {}", case.name, problems.join("; ")));
                    }
                }
            });
        }
    });
    assert_eq!(tree(&corpus), before, "the corpus folder changed");
    let failures = failures.into_inner().unwrap();
    // The unreadable folders the generator made must be readable to be removed.
    let _ = Command::new("chmod").args(["-R", "u+rwx"]).arg(&root).status();
    std::fs::remove_dir_all(&root).ok();
    assert!(failures.is_empty(), "{} of {} runs failed:\n{}", failures.len(), runs.len(), failures.join("\n"));
}
