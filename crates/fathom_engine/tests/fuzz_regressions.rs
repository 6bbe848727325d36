//! Every input that made a fuzz target crash, hang or exhaust memory
//! (`make fuzz`), replayed through the same harness on stable: each must now
//! run clean. Inputs live in `crates/fathom_fuzz/regressions/<target>/`.

#[path = "../../fathom_fuzz/src/harness.rs"]
#[allow(dead_code)]
mod harness;

/// A target's folder of inputs, and what it does with one.
type Target = (&'static str, fn(&[u8]));

#[test]
fn every_input_that_once_broke_a_fuzz_target_now_runs_clean() {
    let root =
        std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../fathom_fuzz/regressions");
    let targets: [Target; 6] = [
        ("archive", harness::archive),
        ("extract", harness::extract),
        ("resolve", harness::resolve),
        ("cypher", harness::cypher),
        ("bundle", harness::bundle),
        ("diff", harness::diff),
    ];
    for (target, run) in targets {
        let Ok(entries) = std::fs::read_dir(root.join(target)) else { continue };
        for entry in entries.flatten() {
            let bytes = std::fs::read(entry.path()).unwrap();
            eprintln!("{target}: {}", entry.file_name().to_string_lossy());
            run(&bytes);
        }
    }
}
