//! What each fuzz target does with its input: shared by the targets
//! (`fuzz_targets/`, libFuzzer on nightly) and by the regression test that
//! replays every committed input on stable (`fathom_engine`'s
//! `tests/fuzz_regressions.rs`, which includes this file). Each function must
//! return without panicking, hanging or exhausting memory, whatever the bytes.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use fathom_archive::{Exclude, Limits, ReadOptions};
use fathom_engine::{Index, Observer, Options, Stage};
use fathom_model::Language;

struct Quiet;

impl Observer for Quiet {
    fn now_ms(&self) -> f64 {
        0.0
    }
    fn progress(&mut self, _stage: Stage, _done: usize, _total: usize) {}
}

fn accept(path: &str) -> bool {
    Language::from_path(path).is_some()
}

/// The zip, tar and tar.gz readers, the survey and the sample, with limits
/// small enough that a run stays fast: a 64 KB file, 1 MB kept, 1,000 entries.
pub fn archive(bytes: &[u8]) {
    static EXCLUDE: OnceLock<Exclude> = OnceLock::new();
    let exclude = EXCLUDE.get_or_init(|| Exclude::new(&["docs/**".to_owned()]).expect("a valid glob"));
    let limits = Limits { max_file_bytes: 64 << 10, max_total_bytes: 1 << 20, max_entries: 1000, budget: None };
    let options = ReadOptions { limits, accept: &accept, read_cap: &fathom_archive::no_cap, exclude };
    if let Ok(archive) = fathom_archive::read_archive("fuzz.zip", bytes, &options, &mut |_, _| {}) {
        for file in &archive.files {
            assert!(!file.path.is_empty() && !file.path.split('/').any(|part| part == ".." || part.is_empty()));
            assert!(file.text.len() <= 64 << 10 || file.lossy, "{} is over the cap", file.path);
        }
    }
    let _ = fathom_archive::survey_archive("fuzz.zip", bytes, &options);
    let _ = fathom_archive::sample_archive(bytes, &options, 4096);
}

/// One file's extraction: the first byte picks the language, the rest is the text.
pub fn extract(bytes: &[u8]) {
    let Some((&pick, text)) = bytes.split_first() else { return };
    let language = Language::ALL[pick as usize % Language::ALL.len()];
    let text = String::from_utf8_lossy(text);
    thread_local! {
        // Compiling a language's queries costs far more than one parse.
        static PARSERS: std::cell::RefCell<fathom_parse::Parsers> = Default::default();
    }
    PARSERS.with_borrow_mut(|parsers| {
        let _ = parsers.parse(language, "fuzz", &text);
    });
    let _ = fathom_parse::highlight(language, &text);
}

/// The whole pipeline (parse, graph, resolution, indexes) on several files:
/// the input is split at NUL bytes into `path\ntext` files.
pub fn resolve(bytes: &[u8]) {
    let files: Vec<(String, Vec<u8>)> = bytes
        .split(|&b| b == 0)
        .take(16)
        .filter_map(|part| {
            let at = part.iter().position(|&b| b == b'\n')?;
            Some((String::from_utf8_lossy(&part[..at]).into_owned(), part[at + 1..].to_vec()))
        })
        .collect();
    let index = fathom_engine::index_files("fuzz", files, &Options::default(), &mut Quiet);
    let _ = index.query("MATCH (a)-[r]->(b) RETURN a.name, type(r), b.name LIMIT 20", &BTreeMap::new());
}

/// A SCIP index read into the graph of `tests/fixtures/scip-python`, whose
/// own index seeds it: matching, the revision check, edges, confirmation
/// and dropping all run on what the mutations leave.
pub fn scip(bytes: &[u8]) {
    let Ok(index) = fathom_engine::read_scip("index.scip", bytes) else { return };
    let files = [
        ("shop/__init__.py", ""),
        (
            "shop/views.py",
            "class OrderView:\n    def render(self, order):\n        return f\"order {order}\"\n\n\nclass ReceiptView:\n    def render(self, order):\n        return f\"receipt {order}\"\n",
        ),
        ("shop/factory.py", "from shop.views import ReceiptView\n\n\ndef make_receipt():\n    return ReceiptView()\n"),
        (
            "shop/checkout.py",
            "from shop.factory import make_receipt\n\n\ndef print_receipt(order):\n    view = make_receipt()\n    return view.render(order).upper()\n",
        ),
    ];
    let files = files.iter().map(|(p, t)| ((*p).to_owned(), t.as_bytes().to_vec())).collect();
    let staged = fathom_engine::pipeline::stage_files("scip", files, &Options::default(), &mut Quiet);
    let index = staged.with_scip(vec![index]).index(&mut Quiet);
    let _ = index.query("MATCH (a)-[r]->(b) RETURN a.name, type(r), b.name LIMIT 50", &BTreeMap::new());
}

/// A fixed index for the Cypher target: a few files with classes, calls and imports.
fn cypher_index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let files = vec![
            ("pkg/base.py".to_owned(), b"class Base:\n    def run(self):\n        return self.step()\n    def step(self):\n        return 1\n".to_vec()),
            ("pkg/child.py".to_owned(), b"from pkg.base import Base\n\nclass Child(Base):\n    def step(self):\n        return helper(2)\n\ndef helper(x):\n    return x\n".to_vec()),
            ("web/app.ts".to_owned(), b"import { f } from './lib';\nexport class App { go() { return f(); } }\n".to_vec()),
            ("web/lib.ts".to_owned(), b"export function f() { return 1; }\n".to_vec()),
        ];
        fathom_engine::index_files("fixture", files, &Options::default(), &mut Quiet)
    })
}

/// The Cypher parser and executor (with its step budget), on a small index.
pub fn cypher(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let params =
        BTreeMap::from([("name".to_owned(), serde_json::json!("run")), ("n".to_owned(), serde_json::json!(3))]);
    let _ = cypher_index().query(&text, &params);
}

/// The bundle loader, past its checksum: the input's last eight bytes are
/// replaced by the checksum of the rest, so mutations reach the sections.
pub fn bundle(bytes: &[u8]) {
    let _ = Index::from_bundle(bytes);
    if bytes.len() > 8 {
        let mut fixed = bytes.to_vec();
        let body = fixed.len() - 8;
        let sum = xxhash_rust::xxh3::xxh3_64(&fixed[..body]);
        fixed[body..].copy_from_slice(&sum.to_le_bytes());
        if let Ok(index) = Index::from_bundle(&fixed) {
            let _ = index.search("run", &Default::default(), None);
        }
    }
}

/// The diff reader of `tests-for`.
pub fn diff(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let _ = fathom_tests::change::parse_diff(&text);
}
