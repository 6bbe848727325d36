//! The whole pipeline on the `mini-py-js` fixture, read as a zip (as the
//! browser does) and as a directory (as the CLI does).

mod common;

use std::io::Write;

use common::{Recorder, fixture, outline, zip_folder};
use fathom_engine::{EdgeKind, Index, Options, SearchOptions, SkipReason, Stage, index_dir, index_files, index_zip};
use zip::write::SimpleFileOptions;

fn index_fixture_zip() -> Index {
    let bytes = zip_folder(&fixture("mini-py-js"), "mini-py-js-main");
    index_zip("mini-py-js.zip", &bytes, &Options::default(), &mut Recorder::new()).unwrap()
}

#[test]
fn the_fixture_graph_holds_every_definition_with_its_span_and_containment() {
    insta::assert_snapshot!(outline(&index_fixture_zip()));
}

#[test]
fn the_summary_counts_languages_and_kinds_and_says_what_was_skipped_and_why() {
    let index = index_fixture_zip();
    insta::assert_json_snapshot!(index.summary(), { ".timings_ms.*" => "[ms]" });
}

#[test]
fn a_directory_and_its_zip_give_the_same_index() {
    let from_zip = index_fixture_zip();
    let from_dir = index_dir(&fixture("mini-py-js"), &Options::default(), &mut Recorder::new()).unwrap();
    assert_eq!(outline(&from_zip), outline(&from_dir));
    let (z, d) = (from_zip.summary(), from_dir.summary());
    assert_eq!((z.files, z.symbols, z.edges), (d.files, d.symbols, d.edges));
    assert_eq!(z.errors, d.errors);
    let reasons =
        |s: &fathom_engine::IndexSummary| s.skipped.iter().map(|s| (s.path.clone(), s.reason)).collect::<Vec<_>>();
    assert_eq!(reasons(z), reasons(d));
}

#[test]
fn search_cites_the_exact_lines_of_the_definition() {
    let index = index_fixture_zip();
    let hits = index.search("add", &SearchOptions { k: 5, ..SearchOptions::default() }, None).hits;
    let top = &hits[0];
    assert_eq!((top.symbol.as_str(), top.file.as_str()), ("pkg.calc.Calculator.add", "pkg/calc.py"));
    let text = index.file_text(&top.file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cited = lines[top.start_line as usize - 1..top.end_line as usize].join("\n");
    assert_eq!(cited, "    def add(self, amount):\n        self.total += amount\n        return self");
    assert_eq!(&text[top.start_byte as usize..top.end_byte as usize], cited.trim_start());
    let prefix =
        hits.iter().find(|h| h.symbol == "web/src/store.CartStore.addItem").expect("the prefix match is found");
    assert_eq!(serde_json::to_value(prefix.match_kind).unwrap(), "prefix");
    assert!(prefix.explain.name_rank > top.explain.name_rank, "after the exact match");
}

#[test]
fn progress_reaches_the_end_of_every_stage() {
    let bytes = zip_folder(&fixture("mini-py-js"), "root");
    let mut recorder = Recorder::new();
    index_zip("f.zip", &bytes, &Options::default(), &mut recorder).unwrap();
    for stage in [Stage::Read, Stage::Parse, Stage::Graph, Stage::Resolve, Stage::Index] {
        let last = recorder.stages.iter().rfind(|(s, _, _)| *s == stage).expect("stage reported");
        assert_eq!(last.1, last.2, "{stage:?} ends with done == total");
    }
}

#[test]
fn a_cut_zip_keeps_the_entries_before_the_cut_and_a_corrupt_one_is_refused_with_its_cause() {
    let whole = zip_folder(&fixture("mini-py-js"), "root");
    let all = index_zip("whole.zip", &whole, &Options::default(), &mut Recorder::new()).unwrap();
    // Cut in half, the central directory is gone: the local headers are read.
    let half = index_zip("half.zip", &whole[..whole.len() / 2], &Options::default(), &mut Recorder::new()).unwrap();
    let (kept, total) = (half.summary().files, all.summary().files);
    assert!(kept > 0 && kept < total, "{kept} of {total} files kept");
    let rest = half.summary().skipped.iter().find(|s| s.path == "the rest of half.zip").expect("the cut is reported");
    assert_eq!(rest.reason, SkipReason::Unreadable);
    assert!(rest.detail.contains("central directory is unreadable"), "{}", rest.detail);
    // Cut inside the first entry's header, nothing is left to read.
    let err = index_zip("stub.zip", &whole[..20], &Options::default(), &mut Recorder::new()).err().unwrap();
    let message = err.to_string();
    assert!(message.starts_with("archive `stub.zip` is not a readable zip:"), "{message}");
    let err = index_zip("notes.zip", b"plain text", &Options::default(), &mut Recorder::new()).err().unwrap();
    assert!(err.to_string().contains("notes.zip"));
    let err = index_zip("shot.zip", b"\x89PNG\r\n\x1a\n....", &Options::default(), &mut Recorder::new()).err().unwrap();
    assert_eq!(err.to_string(), "`shot.zip` is a PNG image, not a zip, tar or tar.gz archive");
    let err = index_zip("none.zip", b"", &Options::default(), &mut Recorder::new()).err().unwrap();
    assert_eq!(err.to_string(), "archive `none.zip` holds nothing: the file is empty (0 bytes)");
}

#[test]
fn hostile_entries_are_skipped_and_the_rest_is_kept() {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default();
    let entries: [(&str, Vec<u8>); 4] = [
        ("../../etc/evil.py", b"def evil(): pass\n".to_vec()),
        ("big.py", format!("x = '{}'\n", "a".repeat(4096)).into_bytes()),
        ("ok.py", b"def fine():\n    pass\n".to_vec()),
        ("latin1.py", b"# caf\xe9\ndef accented():\n    pass\n".to_vec()),
    ];
    for (name, bytes) in &entries {
        writer.start_file(*name, opts).unwrap();
        writer.write_all(bytes).unwrap();
    }
    let bytes = writer.finish().unwrap().into_inner();
    let mut options = Options::default();
    options.limits.max_file_bytes = 1024;
    let index = index_zip("hostile.zip", &bytes, &options, &mut Recorder::new()).unwrap();
    let summary = index.summary();
    let reason = |path: &str| summary.skipped.iter().find(|s| s.path == path).map(|s| s.reason);
    assert_eq!(reason("../../etc/evil.py"), Some(SkipReason::Unreadable));
    assert_eq!(reason("big.py"), Some(SkipReason::TooLarge));
    assert_eq!(summary.files, 2);
    assert!(index.search("fine", &SearchOptions::default(), None).hits[0].file == "ok.py");
    assert_eq!(index.search("accented", &SearchOptions::default(), None).hits[0].start_line, 2);
    assert!(summary.errors.iter().any(|e| e.path == "latin1.py" && e.message.contains("UTF-8")));
}

#[test]
fn the_total_size_limit_stops_reading_but_keeps_what_fits() {
    let mut options = Options::default();
    options.limits.max_total_bytes = 2000;
    let bytes = zip_folder(&fixture("mini-py-js"), "root");
    let index = index_zip("f.zip", &bytes, &options, &mut Recorder::new()).unwrap();
    let summary = index.summary();
    assert!(summary.files > 0);
    assert!(summary.skipped.iter().any(|s| s.reason == SkipReason::Limit), "{:?}", summary.skipped);
}

/// The browser's way: the files handed out in shares, parsed apart (as a
/// parse worker would, through bytes) and merged back in any order, give
/// the index that parsing in one place gives.
#[test]
fn shares_parsed_apart_and_merged_in_any_order_give_the_same_index() {
    use fathom_engine::pipeline::{decode_parsed, parse_share_bytes, stage_zip};

    for name in ["mini-py-js", "lang-java-spring", "lang-rust"] {
        let bytes = zip_folder(&fixture(name), "root");
        let whole = index_zip(name, &bytes, &Options::default(), &mut Recorder::new()).unwrap();
        let mut staged = stage_zip(name, &bytes, &Options::default(), &mut Recorder::new()).unwrap();
        let shares = staged.shares(3);
        assert!(shares.len() > 1, "{name}: more than one share");
        let mut all: Vec<u32> = shares.concat();
        all.sort_unstable();
        assert_eq!(all, (0..staged.files().len() as u32).collect::<Vec<_>>(), "{name}: each file in one share");
        for share in shares.iter().rev() {
            let parsed = decode_parsed(&parse_share_bytes(&staged.share(share).unwrap()).unwrap()).unwrap();
            staged.accept(share, parsed).unwrap();
        }
        let merged = staged.index(&mut Recorder::new());
        assert_eq!(outline(&merged), outline(&whole), "{name}: the same graph");
        let (m, w) = (merged.summary(), whole.summary());
        assert_eq!((m.files, m.symbols, m.edges, &m.errors), (w.files, w.symbols, w.edges, &w.errors), "{name}");
        let query = "MATCH (a)-[r:CALLS]->(b) RETURN a.qualified_name, b.qualified_name, r.confidence ORDER BY a.qualified_name, b.qualified_name";
        let params = std::collections::BTreeMap::new();
        assert_eq!(
            serde_json::to_value(merged.query(query, &params).unwrap()).unwrap(),
            serde_json::to_value(whole.query(query, &params).unwrap()).unwrap(),
            "{name}: the same calls"
        );
    }
}

/// A share whose worker never answered is parsed where the index is built;
/// a wrong or damaged answer is refused with its cause and changes nothing.
#[test]
fn a_lost_share_is_parsed_here_and_a_bad_answer_is_refused() {
    use fathom_engine::pipeline::{decode_parsed, parse_share_bytes, stage_zip};

    let bytes = zip_folder(&fixture("mini-py-js"), "root");
    let whole = index_zip("mini", &bytes, &Options::default(), &mut Recorder::new()).unwrap();
    let mut staged = stage_zip("mini", &bytes, &Options::default(), &mut Recorder::new()).unwrap();
    let shares = staged.shares(2);
    let parsed = decode_parsed(&parse_share_bytes(&staged.share(&shares[0]).unwrap()).unwrap()).unwrap();

    let short = staged.accept(&shares[0], parsed[1..].to_vec()).unwrap_err();
    assert!(short.contains("parses for"), "{short}");
    let first = &staged.files()[shares[0][0] as usize].path;
    let elsewhere = (0..staged.files().len() as u32)
        .find(|&i| staged.files()[i as usize].path.rsplit('.').next() != first.rsplit('.').next())
        .expect("the fixture mixes languages");
    let misplaced = staged.accept(&[elsewhere], vec![parsed[0].clone()]).unwrap_err();
    assert!(misplaced.contains("is of"), "{misplaced}");
    assert!(decode_parsed(b"\xff\xff\xff\xff garbage").unwrap_err().contains("undecodable"));
    assert!(parse_share_bytes(b"\xff\xff\xff\xff").unwrap_err().contains("undecodable"));
    assert!(staged.share(&[9999]).unwrap_err().contains("9999"));

    // Only the first share comes back; the second is parsed here.
    let mut staged = stage_zip("mini", &bytes, &Options::default(), &mut Recorder::new()).unwrap();
    staged.accept(&shares[0], parsed).unwrap();
    let index = staged.index(&mut Recorder::new());
    assert_eq!(outline(&index), outline(&whole));
}

/// A plan reads no file but counts what indexing would keep, and its
/// estimate is the sum of its folders' and the archive's own.
#[test]
fn a_plan_counts_what_indexing_keeps_and_sums_its_estimate() {
    let bytes = zip_folder(&fixture("mini-py-js"), "root");
    let plan = fathom_engine::pipeline::plan_zip("mini.zip", &bytes, &Options::default()).unwrap();
    let index = index_zip("mini.zip", &bytes, &Options::default(), &mut Recorder::new()).unwrap();
    let source: u64 = index.file_list().iter().filter_map(|f| index.file_text(&f.path)).map(|t| t.len() as u64).sum();
    let configs = plan.survey.files - index.summary().files;
    assert!(configs <= 2, "only project files beside the sources: {configs}");
    assert!(plan.survey.bytes >= source, "{} < {source}", plan.survey.bytes);
    assert_eq!(plan.folder_heap_bytes.len(), plan.survey.folders.len());
    assert_eq!(plan.estimated_heap_bytes, plan.base_heap_bytes + plan.folder_heap_bytes.iter().sum::<u64>());
    assert_eq!(plan.base_heap_bytes, 2 * bytes.len() as u64);
    assert!(plan.estimated_heap_bytes > 8 * source, "about 9 bytes of heap per byte of source");
}

/// An archive's first files, read and parsed ahead while the whole archive
/// is read, are taken by the staged files with their path and text; what
/// was read under another root, or reads otherwise, is not.
#[test]
fn a_sample_parsed_ahead_is_taken_where_path_and_text_agree() {
    use fathom_engine::pipeline::{Sample, Staged, decode_parsed, parse_share_bytes, sample_zip, stage_zip};

    fn take(staged: &mut Staged, sample: &Sample) -> usize {
        let mut taken = 0;
        for share in sample.shares(2) {
            let parsed = decode_parsed(&parse_share_bytes(&sample.share(&share).unwrap()).unwrap()).unwrap();
            taken += staged.accept_sample(sample, &share, parsed).unwrap();
        }
        taken
    }

    let bytes = zip_folder(&fixture("mini-py-js"), "root");
    let whole = index_zip("mini", &bytes, &Options::default(), &mut Recorder::new()).unwrap();
    let sample = sample_zip(&bytes, &Options::default(), 1000);
    let sampled = sample.files().len();
    assert!(sampled > 0 && sampled < whole.summary().files, "{sampled} of {}", whole.summary().files);
    let sizes: Vec<usize> = sample.files().iter().map(|f| f.text.len()).collect();
    let before_last: usize = sizes[..sizes.len() - 1].iter().sum();
    assert!(
        before_last < 1000 && before_last + sizes[sizes.len() - 1] >= 1000,
        "it stops once it has 1000 bytes: {sizes:?}"
    );

    let mut staged = stage_zip("mini", &bytes, &Options::default(), &mut Recorder::new()).unwrap();
    assert_eq!(take(&mut staged, &sample), sampled);
    assert_eq!(staged.parsed_count(), sampled);
    let left: usize = staged.shares(3).iter().map(Vec::len).sum();
    assert_eq!(left, staged.files().len() - sampled, "shares hold only what is left to parse");
    assert_eq!(outline(&staged.index(&mut Recorder::new())), outline(&whole));

    // The same files under another folder: their paths are the same once
    // stripped, but the sample is of another reading.
    let elsewhere = sample_zip(&zip_folder(&fixture("mini-py-js"), "elsewhere"), &Options::default(), 1000);
    let mut staged = stage_zip("mini", &bytes, &Options::default(), &mut Recorder::new()).unwrap();
    assert_eq!(take(&mut staged, &elsewhere), 0);
    assert_eq!(outline(&staged.index(&mut Recorder::new())), outline(&whole));

    // One file's text differs: only the other is taken.
    let zip_of = |files: &[(&str, &str)]| {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (path, text) in files {
            writer.start_file(*path, SimpleFileOptions::default()).unwrap();
            writer.write_all(text.as_bytes()).unwrap();
        }
        writer.finish().unwrap().into_inner()
    };
    let before = zip_of(&[("r/a.py", "def f():\n    pass\n"), ("r/b.py", "def g():\n    f()\n")]);
    let after = zip_of(&[("r/a.py", "def f(x):\n    pass\n"), ("r/b.py", "def g():\n    f()\n")]);
    let sample = sample_zip(&before, &Options::default(), 1 << 20);
    let mut staged = stage_zip("after", &after, &Options::default(), &mut Recorder::new()).unwrap();
    assert_eq!(take(&mut staged, &sample), 1);
    let fresh = index_zip("after", &after, &Options::default(), &mut Recorder::new()).unwrap();
    assert_eq!(outline(&staged.index(&mut Recorder::new())), outline(&fresh));

    // A C++ file sampled without the header that defines its macros was
    // read otherwise than the whole archive reads it: it is parsed again,
    // and the other languages' parses are taken.
    let header = "#define LIB_NAMESPACE_BEGIN namespace lib {\n#define LIB_NAMESPACE_END }\n";
    let source = "LIB_NAMESPACE_BEGIN\nclass Widget {};\nLIB_NAMESPACE_END\n";
    let python = "def f():\n    pass\n";
    let sampled = zip_of(&[("r/src/widget.cpp", source), ("r/src/tool.py", python)]);
    let whole = zip_of(&[("r/src/widget.cpp", source), ("r/src/tool.py", python), ("r/include/ns.hpp", header)]);
    let sample = sample_zip(&sampled, &Options::default(), 1 << 20);
    let mut staged = stage_zip("whole", &whole, &Options::default(), &mut Recorder::new()).unwrap();
    assert_eq!(take(&mut staged, &sample), 1, "only the Python file is taken");
    let fresh = index_zip("whole", &whole, &Options::default(), &mut Recorder::new()).unwrap();
    assert_eq!(outline(&staged.index(&mut Recorder::new())), outline(&fresh));
    let namespace =
        fresh.query("MATCH (p:PACKAGE {name: 'lib'})-[:CONTAINS]->(c:CLASS) RETURN c.name", &Default::default());
    assert_eq!(namespace.unwrap().rows.len(), 1, "the header's namespace holds the class");
}

/// Two indexes of one repository in one process hold the same graph, edge
/// for edge in the same order: nothing follows the order of a map hashed
/// with random keys (each map draws its own). Flask has overriding methods,
/// which once came out in such an order.
#[test]
fn indexing_twice_gives_the_same_edges_in_the_same_order() {
    let bytes = zip_folder(&common::corpus("flask-3.0.3"), "flask-3.0.3");
    let edges = || {
        let index = index_zip("flask", &bytes, &Options::default(), &mut Recorder::new()).unwrap();
        serde_json::to_value(index.export_graph().edges).unwrap()
    };
    let first = edges();
    assert!(first.as_array().unwrap().iter().any(|e| e["type"] == "OVERRIDES"), "Flask has overrides");
    for _ in 0..3 {
        assert!(edges() == first, "the same edges in the same order");
    }
}

/// A call on a class reaches its constructors in one order on every run:
/// they are found in a map hashed with random keys, a fresh one each index,
/// so the order of `__new__` and `__init__` once changed from run to run.
#[test]
fn a_class_call_reaches_its_constructors_in_the_same_order_every_time() {
    let source = "class Money:\n    def __new__(cls, amount):\n        return super().__new__(cls)\n\n    def __init__(self, amount):\n        self.amount = amount\n\n\ndef open_account():\n    return Money(10)\n";
    let calls = || {
        let files = vec![("bank.py".to_owned(), source.as_bytes().to_vec())];
        let index = index_files("bank", files, &Options::default(), &mut Recorder::new());
        let edges = index.edges(&[EdgeKind::Calls]).into_iter();
        edges.filter(|e| e.from.symbol == "bank.open_account").map(|e| e.to.symbol).collect::<Vec<_>>()
    };
    let first = calls();
    let mut sorted = first.clone();
    sorted.sort();
    assert_eq!(sorted, ["bank.Money.__init__", "bank.Money.__new__"]);
    for _ in 0..12 {
        assert_eq!(calls(), first, "the same constructors in the same order");
    }
}
