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
    let targets: [Target; 7] = [
        ("archive", harness::archive),
        ("extract", harness::extract),
        ("resolve", harness::resolve),
        ("cypher", harness::cypher),
        ("bundle", harness::bundle),
        ("diff", harness::diff),
        ("scip", harness::scip),
    ];
    for (target, run) in targets {
        let Ok(entries) = std::fs::read_dir(root.join(target)) else { continue };
        for entry in entries.flatten() {
            let bytes = std::fs::read(entry.path()).unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            eprintln!("{target}: {name}");
            // A hang that comes back fails here rather than stalling the
            // suite (libFuzzer's limit is 20 s on an instrumented build).
            let (done, finished) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                run(&bytes);
                let _ = done.send(());
            });
            match finished.recv_timeout(std::time::Duration::from_secs(120)) {
                Ok(()) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{target}: {name} ran past 120 s"),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("{target}: {name} panicked"),
            }
        }
    }
}
