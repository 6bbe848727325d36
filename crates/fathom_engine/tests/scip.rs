//! SCIP indexes read into the graph: a real index from scip-python 0.6.6
//! (`tests/fixtures/scip-python`, made by `scripts/dev/scip-fixture.sh`)
//! over a package whose one call syntax cannot pin down.

mod common;

use std::collections::BTreeMap;

use common::{Recorder, fixture, zip_folder};
use fathom_engine::{Index, Options, ScipIndex, pipeline, read_scip};

fn index(archive: &[u8], scip: Vec<ScipIndex>) -> Index {
    pipeline::stage_zip("scip-python.zip", archive, &Options::default(), &mut Recorder::new())
        .unwrap()
        .with_scip(scip)
        .index(&mut Recorder::new())
}

/// The fixture's package as an archive, with the index inside it or not.
fn archive(with_index: Option<&[u8]>) -> Vec<u8> {
    // Tests run at once: each archive is made in a folder of its own.
    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("fathom-scip-archive-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("shop")).unwrap();
    for entry in std::fs::read_dir(fixture("scip-python/shop")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join("shop").join(path.file_name().unwrap())).unwrap();
    }
    if let Some(bytes) = with_index {
        std::fs::write(dir.join("index.scip"), bytes).unwrap();
    }
    let zipped = zip_folder(&dir, "scip-python");
    std::fs::remove_dir_all(&dir).unwrap();
    zipped
}

fn scip() -> ScipIndex {
    let bytes = std::fs::read(fixture("scip-python/index.scip")).unwrap();
    read_scip("index.scip", &bytes).unwrap()
}

/// `caller → callee: reason` for every CALLS edge.
fn calls(index: &Index) -> Vec<String> {
    let result = index
        .query(
            "MATCH (a)-[r:CALLS]->(b) RETURN a.qualified_name, b.qualified_name, r.reason, r.confidence \
             ORDER BY a.qualified_name, b.qualified_name",
            &BTreeMap::new(),
        )
        .unwrap();
    result
        .rows
        .iter()
        .map(|row| {
            let text = |i: usize| row[i].as_str().unwrap().to_owned();
            format!("{} -> {}: {} {:.2}", text(0), text(1), text(2), row[3].as_f64().unwrap())
        })
        .collect()
}

#[test]
fn scip_pins_down_the_call_syntax_could_not_and_adds_what_it_missed() {
    let archive = archive(None);
    let heuristic = index(&archive, Vec::new());
    // From syntax alone: `view.render(order)` is either class's `render`.
    let before = calls(&heuristic);
    assert!(
        before.contains(&"shop.checkout.print_receipt -> shop.views.OrderView.render: ambiguous-name 0.30".into()),
        "{before:#?}"
    );
    assert!(heuristic.summary().scip.is_none());

    let precise = index(&archive, vec![scip()]);
    let after = calls(&precise);
    assert_eq!(
        after,
        [
            // The index's own edge: a call Fathom leaves to the core library.
            "shop.checkout.print_receipt -> python-stdlib@3.11:builtins.str.upper: scip 1.00",
            // Fathom's inferences, confirmed.
            "shop.checkout.print_receipt -> shop.factory.make_receipt: scip-confirmed 1.00",
            "shop.checkout.print_receipt -> shop.views.ReceiptView.render: scip-confirmed 1.00",
            "shop.factory.make_receipt -> shop.views.ReceiptView: scip-confirmed 1.00",
        ],
        "{after:#?}"
    );
    // The contradicted candidate is gone, so its callers are right.
    let wrong = precise.callers("shop.views.OrderView.render", 1).unwrap();
    assert!(wrong.is_empty(), "{wrong:#?}");
    let right = precise.callers("shop.views.ReceiptView.render", 1).unwrap();
    assert_eq!(
        right.iter().map(|r| r.node.qualified_name.as_str()).collect::<Vec<_>>(),
        ["shop.checkout.print_receipt"]
    );

    let report = precise.summary().scip.as_ref().unwrap();
    assert_eq!(report.sources[0].tool, "scip-python");
    assert_eq!(report.sources[0].version, "0.6.6");
    assert_eq!(report.covered, ["shop/__init__.py", "shop/checkout.py", "shop/factory.py", "shop/views.py"]);
    assert_eq!((report.dropped, report.definitions_unmatched), (1, 0));
    assert_eq!(report.added.get("CALLS"), Some(&1));
    // Fathom's own calls against the index, before it changed them: every
    // site the index resolved holds its target (the ambiguous `render` by
    // one of its two candidates), and every internal call was found.
    let agreed = &report.agreement.calls;
    assert_eq!(
        (agreed.judged, agreed.agreed, agreed.ambiguous, agreed.ambiguous_agreed, agreed.index_edges, agreed.found),
        (3, 3, 1, 1, 3, 3),
        "{agreed:#?}"
    );
    assert_eq!((agreed.precision(), agreed.recall()), (Some(1.0), Some(1.0)));
    assert!(agreed.wrong_by_cause.is_empty() && agreed.missed_by_cause.is_empty(), "{agreed:#?}");

    // A bundle keeps the edges, and in its header what the index covered.
    let bytes = precise.to_bundle();
    let header = fathom_engine::bundle::read_header(&bytes).unwrap();
    assert_eq!(header.scip.as_ref(), Some(report));
    let loaded = Index::from_bundle(&bytes).unwrap();
    assert_eq!(calls(&loaded), after);
    assert_eq!(loaded.summary().scip.as_ref(), Some(report));
}

#[test]
fn an_index_of_another_revision_is_set_aside_where_it_differs() {
    // views.py gained two lines at its top since the index was made.
    let dir = std::env::temp_dir().join(format!("fathom-scip-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("shop")).unwrap();
    for name in ["__init__.py", "checkout.py", "factory.py", "views.py"] {
        let text = std::fs::read_to_string(fixture("scip-python/shop").join(name)).unwrap();
        let text = if name == "views.py" { format!("import os\n\n{text}") } else { text };
        std::fs::write(dir.join("shop").join(name), text).unwrap();
    }
    let archive = zip_folder(&dir, "scip-python");
    std::fs::remove_dir_all(&dir).unwrap();
    let precise = index(&archive, vec![scip()]);
    let report = precise.summary().scip.as_ref().unwrap();
    assert_eq!(report.sources[0].stale, ["shop/views.py"]);
    assert!(!report.covered.contains(&"shop/views.py".to_owned()));
    // Its symbols are unknown, so the call into it keeps Fathom's reading.
    let after = calls(&precise);
    assert!(
        after.contains(&"shop.checkout.print_receipt -> shop.views.OrderView.render: ambiguous-name 0.30".into()),
        "{after:#?}"
    );
}

#[test]
fn an_index_inside_the_archive_is_read_as_if_given() {
    let bytes = std::fs::read(fixture("scip-python/index.scip")).unwrap();
    let given = index(&archive(None), vec![scip()]);
    let inside = index(&archive(Some(&bytes)), Vec::new());
    assert_eq!(calls(&inside), calls(&given));
    let report = inside.summary().scip.as_ref().unwrap();
    assert_eq!((report.sources.len(), report.sources[0].name.as_str()), (1, "index.scip"));
    assert_eq!(report.covered.len(), 4);
    assert!(inside.summary().skipped.iter().all(|s| s.path != "index.scip"), "{:#?}", inside.summary().skipped);
    // The same index given too (`--scip` on a folder that holds it) is read once.
    let both = index(&archive(Some(&bytes)), vec![scip()]);
    assert_eq!(both.summary().scip.as_ref().unwrap().sources.len(), 1);
    assert_eq!(calls(&both), calls(&given));

    // A damaged one is named with its cause, and the graph is Fathom's own.
    let damaged = index(&archive(Some(&bytes[..bytes.len() / 2])), Vec::new());
    assert!(damaged.summary().scip.is_none());
    assert_eq!(calls(&damaged), calls(&index(&archive(None), Vec::new())));
    let skipped = damaged.summary().skipped.iter().find(|s| s.path == "index.scip").expect("the index is named");
    assert!(skipped.detail.contains("not a readable SCIP index"), "{skipped:#?}");
}

#[test]
fn an_exported_index_reads_back_as_the_same_edges() {
    use protobuf::Message;
    let archive = archive(None);
    let heuristic = index(&archive, Vec::new());
    let exported = heuristic.export_scip();
    assert_eq!(exported.documents, 4, "{exported:?}");
    assert!(exported.references >= 3 && exported.definitions >= 8, "{exported:?}");

    // Valid by the protocol's own bindings: it parses, every symbol is one.
    let raw = scip::types::Index::parse_from_bytes(&exported.bytes).unwrap();
    assert_eq!(raw.metadata.tool_info.name, "fathom");
    for document in &raw.documents {
        for occurrence in &document.occurrences {
            scip::symbol::parse_symbol(&occurrence.symbol).unwrap_or_else(|e| panic!("{}: {e:?}", occurrence.symbol));
            assert_eq!(occurrence.range.len(), 3);
        }
    }

    // Read back into the same archive: every call Fathom was sure of comes
    // back confirmed, the one it was not sure of keeps its inference, and
    // nothing is dropped or added.
    let back = index(&archive, vec![read_scip("fathom.scip", &exported.bytes).unwrap()]);
    let report = back.summary().scip.as_ref().unwrap();
    assert_eq!(report.sources[0].tool, "fathom");
    assert_eq!((report.sources[0].matched, report.definitions_unmatched, report.dropped), (4, 0, 0), "{report:#?}");
    assert_eq!(report.added.get("CALLS"), None, "{report:#?}");
    let before = calls(&heuristic);
    let after = calls(&back);
    let strip =
        |edges: &[String]| -> Vec<String> { edges.iter().map(|e| e.split(':').next().unwrap().to_owned()).collect() };
    assert_eq!(strip(&after), strip(&before));
    for edge in &after {
        let confidence = |e: &String| e.rsplit(' ').next().unwrap().parse::<f64>().unwrap();
        let was = before.iter().find(|b| b.split(':').next() == edge.split(':').next()).unwrap();
        assert_eq!(edge.contains("scip-confirmed"), confidence(was) >= 0.9, "{edge}: {before:#?}");
    }
    assert!(after.iter().any(|e| e.contains("ambiguous-name")), "{after:#?}");
}

#[test]
fn a_damaged_index_is_refused_with_its_cause() {
    let bytes = std::fs::read(fixture("scip-python/index.scip")).unwrap();
    for (what, bytes) in [
        ("cut in half", bytes[..bytes.len() / 2].to_vec()),
        ("random bytes", (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect()),
        ("empty", Vec::new()),
    ] {
        let err = read_scip("index.scip", &bytes).err().unwrap_or_else(|| panic!("{what}: read"));
        let text = err.to_string();
        assert!(text.starts_with("`index.scip` is"), "{what}: {text}");
        assert!(text.contains("not a readable SCIP index") || text.contains("empty"), "{what}: {text}");
    }
}
