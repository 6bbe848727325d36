//! Golden graphs: every fixture repository under `tests/fixtures/lang-*`,
//! indexed and resolved, rendered node by node and edge by edge.
//! Review every snapshot change like code.

mod common;

use common::{fixture, index_dir, outline};

fn golden(name: &str) {
    let index = index_dir(&fixture(name));
    assert!(index.summary().files > 0, "the fixture {name} has source files");
    insta::assert_snapshot!(name, outline(&index));
}

macro_rules! golden_tests {
    ($($test:ident => $fixture:literal),* $(,)?) => {
        $(#[test] fn $test() { golden($fixture) })*

        /// Every `lang-*` fixture folder has a golden test above.
        #[test]
        fn every_language_fixture_has_a_golden_test() {
            let covered = [$($fixture),*];
            let dir = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
            for entry in std::fs::read_dir(dir).unwrap() {
                let name = entry.unwrap().file_name().to_string_lossy().into_owned();
                if name.starts_with("lang-") {
                    assert!(covered.contains(&name.as_str()), "no golden test for {name}");
                }
            }
        }
    };
}

golden_tests! {
    c => "lang-c",
    cpp => "lang-cpp",
    csharp => "lang-csharp",
    go => "lang-go",
    java => "lang-java",
    java_spring => "lang-java-spring",
    kotlin => "lang-kotlin",
    php => "lang-php",
    python => "lang-python",
    ruby => "lang-ruby",
    rust => "lang-rust",
    typescript => "lang-typescript",
}
