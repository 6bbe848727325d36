//! Parsing measures the heap (issue 51): where the allocator is counted and
//! the budget names the heap indexing may take, files are parsed smallest
//! first and, once the heap holds half the budget, the rest are left out,
//! listed as skipped (limit) with the measurement, whatever the plan's
//! estimate said. This binary installs the counting allocator, as the CLI
//! does.

use fathom_engine::heap::Counted;
use fathom_engine::{Budget, Options, SearchOptions, SkipReason};

#[global_allocator]
static ALLOCATOR: Counted = Counted;

struct Clock;

impl fathom_engine::Observer for Clock {
    fn now_ms(&self) -> f64 {
        0.0
    }
}

/// 200 KB of one-line functions: several times the heap per byte that
/// ordinary code takes.
fn dense(module: usize) -> Vec<u8> {
    let mut text = String::new();
    let mut j = 0;
    while text.len() < 200_000 {
        text.push_str(&format!("def f_{module}_{j}(value): return helper_{j}(value) + {module}\n"));
        j += 1;
    }
    text.into_bytes()
}

fn files() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = (0..40).map(|i| (format!("dense/module_{i:02}.py"), dense(i))).collect();
    // The ordinary file comes last in the archive, after the large ones.
    files.push(("needle/ordinary.py".into(), b"def find_the_ordinary_file():\n    return 42\n".to_vec()));
    files
}

#[test]
fn parsing_stops_near_the_measured_budget_and_keeps_the_small_files() {
    fathom_engine::heap::count_tree_sitter();
    // The estimate behind `weight` admits everything; only the measured
    // heap can stop it.
    let budget = Budget { weight: u64::MAX, per_file: 0, why: "256.0 MiB (a test)".into(), heap: 256 << 20 };
    let mut options = Options::default();
    options.limits.budget = Some(budget);
    let index = fathom_engine::index_files("dense.zip", files(), &options, &mut Clock);
    let summary = index.summary();
    let left_out: Vec<_> = summary.skipped.iter().filter(|s| s.reason == SkipReason::Limit).collect();
    assert!(!left_out.is_empty(), "nothing was left out: {} files indexed", summary.files);
    assert!(summary.files >= 2, "only {} files indexed", summary.files);
    let detail = &left_out[0].detail;
    // Left out as too dense, named with its density, or past the room left.
    assert!(detail.starts_with(fathom_engine::OVER_BUDGET), "{detail}");
    assert!(
        left_out.iter().all(|s| s.detail.contains("definitions in")
            || s.detail.contains("the heap held")
            || s.detail.contains("beside it was too dense")),
        "{:?}",
        left_out.iter().map(|s| &s.detail).collect::<Vec<_>>()
    );
    assert!(left_out.iter().all(|s| s.path.starts_with("dense/")), "only the large files are left out");
    let hits = index.search("find_the_ordinary_file", &SearchOptions::default(), None);
    assert_eq!(hits.hits.first().map(|h| h.file.as_str()), Some("needle/ordinary.py"));

    // Without a heap budget, everything is indexed.
    let index = fathom_engine::index_files("dense.zip", files(), &Options::default(), &mut Clock);
    assert_eq!(index.summary().files, 41);
}
