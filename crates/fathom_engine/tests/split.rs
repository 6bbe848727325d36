//! Split bundles: a search read in parts answers as the whole index does,
//! and a missing, truncated or altered item is refused by name.

mod common;

use common::{Recorder, zip_folder};
use fathom_engine::split::{Costly, Need, Split, SplitReader, Step, drive, drive_within};
use fathom_engine::store::{ItemRef, Span, StoreError};
use fathom_engine::{Index, Options, index_files, index_zip};
use fathom_search::retrieval::{Filter, Mode as SearchMode, SearchOptions, TestFilter};

fn lexical(k: usize) -> SearchOptions {
    SearchOptions { k, mode: SearchMode::Lexical, ..SearchOptions::default() }
}

/// Searches the split bundle from its items in memory; the answer, and the
/// items and waves it took.
fn split_search(
    split: &Split,
    reader: &mut SplitReader,
    query: &str,
    options: &SearchOptions,
) -> (serde_json::Value, usize) {
    let fetch = fetcher(split);
    let (results, waves) = drive(reader, fetch, |r| r.search_step(query, options)).unwrap();
    (serde_json::to_value(results).unwrap(), waves)
}

fn whole(index: &Index, query: &str, options: &SearchOptions) -> serde_json::Value {
    serde_json::to_value(index.search(query, options, None)).unwrap()
}

/// Names, phrases and questions over Flask: every answer the split bundle
/// gives is the whole index's, explanations and snippets included, whether
/// the reader is fresh or has kept what earlier questions fetched.
#[test]
fn a_split_search_answers_as_the_whole_index_does() {
    let bytes = zip_folder(&common::corpus("flask-3.0.3"), "flask-3.0.3");
    let index = index_zip("flask", &bytes, &Options::default(), &mut Recorder::new()).unwrap();
    let split = index.to_split();
    let questions: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(common::fixture("../eval/flask-3.0.3.queries.json")).unwrap())
            .unwrap();
    let mut queries: Vec<String> =
        questions["queries"].as_array().unwrap().iter().map(|q| q["q"].as_str().unwrap().to_owned()).collect();
    queries.extend(
        [
            "Flask",
            "url_for",
            "register_blueprint",
            "Blueprint.route",
            "session",
            "app.route",
            "json",
            "abort 404",
            "get_json()",
            "make_response",
        ]
        .map(String::from),
    );
    // A bug report, which the localiser reads against every file.
    queries.push(
        "Session cookie is not refreshed on every request\n\nWith SESSION_REFRESH_EACH_REQUEST set, the cookie is not sent again after a request that did not modify the session, so a permanent session expires early.\nExpected: the cookie is refreshed on each request."
            .into(),
    );
    let mut kept = SplitReader::open("root", &split.root).unwrap();
    let mut waves_seen = Vec::new();
    for query in &queries {
        let expected = whole(&index, query, &lexical(10));
        let mut fresh = SplitReader::open("root", &split.root).unwrap();
        let (fresh_answer, waves) = split_search(&split, &mut fresh, query, &lexical(10));
        assert_eq!(fresh_answer, expected, "a fresh reader, {query:?}");
        let (kept_answer, _) = split_search(&split, &mut kept, query, &lexical(10));
        if kept_answer != expected {
            std::fs::write("/tmp/kept.json", serde_json::to_string_pretty(&kept_answer).unwrap()).unwrap();
            std::fs::write("/tmp/expected.json", serde_json::to_string_pretty(&expected).unwrap()).unwrap();
        }
        assert!(kept_answer == expected, "a reader that kept what it fetched, {query:?}");
        waves_seen.push(waves);
    }
    // A name or a phrase reads its terms and names, then its candidates,
    // then what it shows: three waves at most (a report, everything at once).
    assert!(waves_seen.iter().all(|&w| (1..=3).contains(&w)), "{waves_seen:?}");
    // The candidates' wave also brings the pages of hits that expansion may
    // lift into the ten: a third of these questions need no third wave (a
    // fifth did when only the ten before expansion came).
    let two = waves_seen.iter().filter(|&&w| w <= 2).count();
    assert!(two * 3 >= waves_seen.len(), "{waves_seen:?}");
    assert!(
        kept.fetched().bytes < split.items.values().map(|b| b.len() as u64).sum::<u64>(),
        "not everything was read"
    );
    // After a search, each file an answer named opens with the whole
    // index's text, after one fetch of its own item; the others are not
    // known by name yet.
    let mut reader = SplitReader::open("root", &split.root).unwrap();
    split_search(&split, &mut reader, "url_for", &lexical(10));
    let fetch = fetcher(&split);
    let before = reader.fetched().files;
    let mut opened = 0;
    for file in index.graph().files() {
        let (text, waves) = drive(&mut reader, fetch, |r| r.file_step(&file.path)).unwrap();
        let Some(text) = text else { continue };
        assert_eq!(Some(text.as_str()), index.file_text(&file.path), "{}", file.path);
        assert_eq!(waves, 1, "{}", file.path);
        opened += 1;
    }
    assert_eq!(before, 0, "a search reads no file whole");
    assert!(opened > 0 && opened < index.graph().files().len(), "{opened} files opened");
}

/// What reads the whole index still answers as it does: a bug report (the
/// localiser), a path and line (the trace lane), a filter, and an
/// amalgamation whose copies stand in for the definitions they copy.
#[test]
fn questions_that_read_everything_answer_as_the_whole_index_does() {
    // Six headers of a C++ library, and the single header its release
    // pastes them into.
    let parts = ["lexer", "parser", "serializer", "iterator", "pointer", "convert"];
    let body = |part: &str| -> String {
        (0..4)
            .map(|i| format!("int {part}_step{i}(int x) {{ return x + {i}; }}\n"))
            .chain([format!("class {part}_state {{ public: int depth() {{ return 1; }} }};\n")])
            .collect()
    };
    let mut files: Vec<(String, Vec<u8>)> =
        parts.iter().map(|p| (format!("repo/include/lib/{p}.hpp"), body(p).into_bytes())).collect();
    files.push(("repo/single_include/lib.hpp".into(), parts.iter().map(|p| body(p)).collect::<String>().into_bytes()));
    files.push(("repo/tests/test_pointer.cpp".into(), b"int test_pointer() { return pointer_step2(3); }\n".to_vec()));
    let index = index_files("repo", files, &Options::default(), &mut Recorder::new());
    assert!(
        !index.retrieval().roles().sources_of("single_include/lib.hpp").is_empty(),
        "the pasted file is an amalgamation"
    );
    let split = index.to_split();
    let tests_only = SearchOptions { filter: Filter { tests: TestFilter::Only, ..Filter::default() }, ..lexical(10) };
    let report = "pointer_step2 returns the wrong value\n\nCalling `pointer_step2(3)` gives 5 where the docs say 4.\nIt breaks every pointer walk.";
    let cases = [
        (report, lexical(10), "report"),
        ("pointer_step2", lexical(10), "copies"),
        ("error at include/lib/parser.hpp:2 in parser_step1", lexical(10), "trace"),
        ("pointer_step2", tests_only, "filter"),
        ("lexer step", lexical(5), "phrase"),
    ];
    for (query, options, case) in cases {
        let expected = whole(&index, query, &options);
        let hits = expected["hits"].as_array().unwrap();
        match case {
            "copies" => {
                assert!(hits.iter().any(|h| h["file"] == "single_include/lib.hpp"), "the copy is found: {hits:?}")
            }
            "trace" => {
                assert!(hits.iter().any(|h| h["explain"]["trace_rank"] == 1), "the trace lane answers: {hits:?}")
            }
            "filter" => assert!(hits.iter().all(|h| h["file"] == "tests/test_pointer.cpp") && !hits.is_empty()),
            "report" => assert_eq!(expected["files"][0]["file"], "include/lib/pointer.hpp", "the localiser answers"),
            _ => assert!(!hits.is_empty()),
        }
        let mut reader = SplitReader::open("root", &split.root).unwrap();
        let (answer, _) = split_search(&split, &mut reader, query, &options);
        assert_eq!(answer, expected, "{query:?}");
    }
}

/// Fetches a step's need from the split bundle written in memory.
fn fetcher(split: &Split) -> impl Fn(&Need) -> Result<Vec<u8>, StoreError> + Copy + '_ {
    |need: &Need| Ok(split.bytes(&need.item, need.span.as_ref()).expect("every item a step names is written"))
}

/// The reader, fed whatever it still needs, answers "add" as the whole index does.
fn answers_add_as_whole(reader: &mut SplitReader, split: &Split, index: &Index) {
    let (answer, _) = drive(reader, fetcher(split), |r| r.search_step("add", &lexical(10))).unwrap();
    assert_eq!(serde_json::to_value(answer).unwrap(), whole(index, "add", &lexical(10)));
}

fn small_split() -> (Index, Split) {
    let files = vec![(
        "repo/calc.py".to_owned(),
        b"def add(a, b):\n    return a + b\n\n\nclass Calculator:\n    def total(self, xs):\n        return sum(xs)\n"
            .to_vec(),
    )];
    let index = index_files("repo", files, &Options::default(), &mut Recorder::new());
    let split = index.to_split();
    (index, split)
}

/// The first item a search asks for, with its bytes.
fn first_need(split: &Split) -> (SplitReader, ItemRef, Vec<u8>) {
    let mut reader = SplitReader::open("root", &split.root).unwrap();
    let Step::Needs(needs) = reader.search_step("add", &lexical(10)) else { panic!("a fresh reader needs items") };
    let item = needs[0].item;
    let bytes = split.items[&item].clone();
    (reader, item, bytes)
}

#[test]
fn a_changed_item_is_refused_by_name_and_the_reader_keeps_working() {
    let (index, split) = small_split();
    let (mut reader, item, bytes) = first_need(&split);
    let mut altered = bytes.clone();
    *altered.last_mut().unwrap() ^= 0x55;
    let error = reader.supply(&item, &altered).unwrap_err();
    assert!(matches!(error, StoreError::Altered { .. }), "{error}");
    assert!(error.to_string().contains(&item.path()), "the item is named: {error}");
    let error = reader.supply(&item, &bytes[..bytes.len() / 2]).unwrap_err();
    assert!(error.to_string().contains("truncated"), "{error}");
    let error = reader.supply(&item, b"<!doctype html><h1>Not Found</h1>").unwrap_err();
    assert!(matches!(error, StoreError::Html { .. }), "{error}");
    // The right bytes still go in, and the search answers.
    answers_add_as_whole(&mut reader, &split, &index);
}

/// A postings item whose own checksum holds, but which names a chunk, node
/// or file past the index's, is refused by what it names: nothing after it
/// indexes past the end.
#[test]
fn postings_past_the_end_are_refused() {
    use fathom_engine::split::{Columns, Posting, PostingsItem};
    let (index, split) = small_split();
    let (mut reader, item, bytes) = first_need(&split);
    let posting = Posting { chunk: 0, node: 0, file: 0, weight: 1.0, flags: 0 };
    for (past, what) in [
        (Posting { chunk: 1 << 30, ..posting }, "chunk 1073741824"),
        (Posting { node: 1 << 30, ..posting }, "node 1073741824"),
        (Posting { file: 1 << 30, ..posting }, "in file 1073741824"),
    ] {
        let forged: PostingsItem = vec![(7, Columns::of(&[posting, past]))];
        let error = reader.supply(&item, &fathom_engine::store::seal_placed(&forged).0).unwrap_err();
        assert!(error.to_string().contains(what), "{error}");
    }
    reader.supply(&item, &bytes).unwrap();
    answers_add_as_whole(&mut reader, &split, &index);
}

/// The reader counts the waves its steps asked for, as the loop that
/// fetched them did; a question answered from what is in asks for none.
#[test]
fn the_reader_counts_the_waves_it_asked_for() {
    let (_, split) = small_split();
    let mut reader = SplitReader::open("root", &split.root).unwrap();
    let fetch = fetcher(&split);
    let (_, waves) = drive(&mut reader, fetch, |r| r.search_step("add", &lexical(10))).unwrap();
    assert!(waves >= 2, "postings, then the hits' pages: {waves}");
    assert_eq!(reader.fetched().waves, waves);
    let (_, again) = drive(&mut reader, fetch, |r| r.search_step("add", &lexical(10))).unwrap();
    assert_eq!((again, reader.fetched().waves), (0, waves));
}

#[test]
fn a_missing_item_stops_the_search_with_its_name_and_nothing_else() {
    let (_, split) = small_split();
    let mut reader = SplitReader::open("root", &split.root).unwrap();
    let missing = |need: &Need| Err(StoreError::Missing { what: need.what.clone(), path: need.item.path() });
    let error = drive(&mut reader, missing, |r| r.search_step("add", &lexical(10))).unwrap_err();
    assert!(error.to_string().contains("is missing") && error.to_string().contains("s/"), "{error}");
}

#[test]
fn a_root_that_is_not_one_says_what_it_is() {
    let (index, split) = small_split();
    let whole_bundle = SplitReader::open("site/root.fathom", &index.to_bundle()).err().unwrap();
    assert!(whole_bundle.to_string().contains("it is a whole bundle"), "{whole_bundle}");
    let html = SplitReader::open("site/root.fathom", b"<!DOCTYPE html><html>404</html>").err().unwrap();
    assert!(html.to_string().contains("HTML page"), "{html}");
    let mut altered = split.root.clone();
    altered[20] ^= 1;
    let error = SplitReader::open("site/root.fathom", &altered).err().unwrap();
    assert!(error.to_string().contains("altered"), "{error}");
    let mut newer = split.root.clone();
    newer[8] = 99;
    let error = SplitReader::open("site/root.fathom", &newer).err().unwrap();
    assert!(error.to_string().contains("split format 99"), "{error}");
    // A root that counts more than its pages could hold is refused before
    // the reader holds a place for each.
    let mut forged = fathom_engine::split::read_root("root", &split.root).unwrap();
    let mut header: serde_json::Value = serde_json::from_str(&forged.header).unwrap();
    header["counts"]["nodes"] = serde_json::json!(3_000_000_000u64);
    forged.header = header.to_string();
    let error = SplitReader::open("site/root.fathom", &fathom_engine::split::encode_root(&forged)).err().unwrap();
    assert!(error.to_string().contains("more than its node pages"), "{error}");
    // An item the root does not name is refused rather than guessed at; one
    // it names is taken once, and again (two questions asked it at once) is
    // no error.
    let (mut reader, item, bytes) = first_need(&split);
    let stray = ItemRef { hash: [7; fathom_engine::store::HASH], bytes: 3, plain: 3 };
    assert!(reader.supply(&stray, b"abc").unwrap_err().to_string().contains("the root names no such item"));
    reader.supply(&item, &bytes).unwrap();
    let fetched = reader.fetched();
    reader.supply(&item, &bytes).unwrap();
    assert_eq!(reader.fetched(), fetched, "an item supplied twice is kept once");
}

/// A file is read from its own item, text and colours at once, after one
/// fetch once a page has named it, and not at all where no item has.
#[test]
fn a_file_is_read_from_its_item() {
    let (index, split) = small_split();
    let fetch = fetcher(&split);
    let mut reader = SplitReader::open("root", &split.root).unwrap();
    assert!(matches!(reader.file_step("calc.py"), Step::Ready(None)), "no item has named it yet");
    // The postings alone name the file's id, not its path: a search's pages do.
    drive(&mut reader, fetch, |r| r.search_step("add", &lexical(10))).unwrap();
    let (text, waves) = drive(&mut reader, fetch, |r| r.file_step("calc.py")).unwrap();
    assert!(text.as_deref().is_some_and(|t| t.contains("def add(a, b)")), "{text:?}");
    assert_eq!(text.as_deref(), index.file_text("calc.py"));
    assert_eq!(waves, 1, "the file's item");
    assert!(matches!(reader.file_step("nowhere.py"), Step::Ready(None)));
    // Its colours came with it, and are the whole index's.
    let (colours, waves) = drive(&mut reader, fetch, |r| r.highlight_step("calc.py")).unwrap();
    assert_eq!(waves, 0);
    let expected = index.highlight("calc.py").unwrap();
    assert!(expected.spans.len() > 5, "{expected:?}");
    assert_eq!(colours, Some(expected));
    // A search after it shows the file's snippets from its whole text.
    let (answer, _) = drive(&mut reader, fetch, |r| r.search_step("add", &lexical(10))).unwrap();
    assert_eq!(serde_json::to_value(answer).unwrap(), whole(&index, "add", &lexical(10)));
}

/// A name sixty symbols share, in two spellings: the split bundle holds its
/// digest, a phrase or a name reads that and not its pages, and the answer
/// is the whole index's.
#[test]
fn a_shared_name_reads_its_digest_and_answers_as_the_whole_index_does() {
    let files: Vec<(String, Vec<u8>)> = (0..60)
        .map(|i| {
            let name = if i % 4 == 0 { "Handle" } else { "handle" };
            let text = format!(
                "def {name}(request_{i}):\n    return request_{i}.body\n\n\ndef other_{i}():\n    return {name}(None)\n"
            );
            (format!("repo/pkg{}/mod{i}.py", i % 7), text.into_bytes())
        })
        .collect();
    let index = index_files("repo", files, &Options::default(), &mut Recorder::new());
    let split = index.to_split();
    let root = SplitReader::open("root", &split.root).unwrap();
    assert_eq!(root.root().digests.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["handle"]);
    for query in ["handle", "Handle", "handle the request body", "handle request"] {
        let mut reader = SplitReader::open("root", &split.root).unwrap();
        let (answer, _) = split_search(&split, &mut reader, query, &lexical(10));
        assert_eq!(answer, whole(&index, query, &lexical(10)), "{query:?}");
    }
}

/// Graph questions over Flask read a symbol's names and the edges around
/// it, and answer as the whole index does: a symbol with its context
/// (callers, callees, members, tests and code), callers and callees,
/// impact at every depth and references (their lines and columns read from
/// the files they are in), an ambiguous name's error and an unknown one's;
/// whether the reader is fresh or kept what earlier questions fetched, and
/// a search after them still answers as the whole index does.
#[test]
fn graph_questions_answer_as_the_whole_index_does() {
    let (index, split) = flask();
    let fetch = fetcher(&split);
    let graph = index.graph();
    // Every symbol is found among the names its qualified name reads.
    for (_, node) in graph.nodes().filter(|(_, n)| !n.is_external) {
        let keys = fathom_engine::split::name_keys(&node.qualified_name);
        assert!(keys.contains(&node.name.to_lowercase()), "{} among {keys:?}", node.name);
    }
    // Every eleventh definition by its qualified name, and names typed
    // short: simple, dotted, shared by several symbols, and none.
    let mut symbols: Vec<String> = graph
        .nodes()
        .filter(|(_, n)| !n.is_external && n.file.is_some())
        .map(|(_, n)| n.qualified_name.clone())
        .step_by(11)
        .collect();
    symbols.extend(["url_for", "Flask.route", "get", "__init__", "no_such_symbol_here", "Blueprint"].map(String::from));
    let json = |value: &dyn erased::Json| value.json();
    let mut kept = SplitReader::open("root", &split.root).unwrap();
    let everything: u64 = split.items.values().map(|b| b.len() as u64).sum();
    let mut costs = Vec::new();
    for symbol in &symbols {
        let depth = 1 + (symbols.len() as u32 % 4);
        let expected = [
            json(&index.symbol(symbol).map_err(|e| e.to_string())),
            json(&index.callers(symbol, depth).map_err(|e| e.to_string())),
            json(&index.callees(symbol, 2).map_err(|e| e.to_string())),
            json(&index.impact(symbol, 4).map_err(|e| e.to_string())),
            json(&index.references(symbol).map_err(|e| e.to_string())),
        ];
        let ask = |reader: &mut SplitReader| {
            [
                json(&drive(reader, fetch, |r| r.symbol_step(symbol)).unwrap().0.map_err(|e| e.to_string())),
                json(&drive(reader, fetch, |r| r.callers_step(symbol, depth)).unwrap().0.map_err(|e| e.to_string())),
                json(&drive(reader, fetch, |r| r.callees_step(symbol, 2)).unwrap().0.map_err(|e| e.to_string())),
                json(&drive(reader, fetch, |r| r.impact_step(symbol, 4)).unwrap().0.map_err(|e| e.to_string())),
                json(&drive(reader, fetch, |r| r.references_step(symbol)).unwrap().0.map_err(|e| e.to_string())),
            ]
        };
        let mut fresh = SplitReader::open("root", &split.root).unwrap();
        assert_eq!(ask(&mut fresh), expected, "a fresh reader, {symbol:?}");
        costs.push(fresh.fetched().bytes);
        assert_eq!(ask(&mut kept), expected, "a kept reader, {symbol:?}");
    }
    costs.sort_unstable();
    let median = costs[costs.len() / 2];
    assert!(median * 20 < everything, "a symbol's questions read {median} bytes of {everything}");
    // Searches after them: the edges graph questions brought change no answer.
    for query in ["url_for", "register a blueprint", "session cookie", "Flask.route"] {
        let (answer, _) = split_search(&split, &mut kept, query, &lexical(10));
        assert_eq!(answer, whole(&index, query, &lexical(10)), "{query:?}");
    }
}

/// Flask indexed whole, and split.
fn flask() -> (Index, Split) {
    let bytes = zip_folder(&common::corpus("flask-3.0.3"), "flask-3.0.3");
    let index = index_zip("flask", &bytes, &Options::default(), &mut Recorder::new()).unwrap();
    let split = index.to_split();
    (index, split)
}

/// A Cypher query's answer, or its error, from a split reader, as JSON;
/// fetching at most `allowed` bytes.
fn split_query(
    split: &Split,
    reader: &mut SplitReader,
    text: &str,
    params: &Params,
    allowed: u64,
) -> serde_json::Value {
    let fetch = fetcher(split);
    match drive_within(reader, fetch, |r| r.query_step(text, params), allowed).unwrap() {
        Ok((answer, _)) => serde_json::to_value(answer.map_err(|e| e.to_string())).unwrap(),
        Err(costly) => panic!("{text}: {costly:?}"),
    }
}

type Params = std::collections::BTreeMap<String, serde_json::Value>;

/// Cypher over a split bundle answers as over the whole graph: queries
/// that name the nodes they start from read those names' pages and the
/// neighbourhood they walk; one that matches every node reads the whole
/// graph within its allowance, and past it says what it would fetch and
/// fetches nothing; a query refused is refused alike.
#[test]
fn cypher_answers_as_the_whole_graph_does_and_asks_before_reading_it_all() {
    let (index, split) = flask();
    let fetch = fetcher(&split);
    let everything: u64 = split.items.values().map(|b| b.len() as u64).sum();
    let params: Params = [("name".to_owned(), serde_json::json!("url_for"))].into();
    let named = [
        "MATCH (f {name: 'url_for'})<-[:CALLS]-(c) RETURN c.qualified_name, c.file_path, c.start_line ORDER BY c.qualified_name",
        "MATCH (c:CLASS {name: 'Flask'})-[:HAS_METHOD]->(m) RETURN m.name, m.signature, m.docstring, m.is_test ORDER BY m.name",
        "MATCH (a)-[r:CALLS]->(b) WHERE a.name = 'dispatch_request' RETURN id(r), r, b ORDER BY id(r)",
        "MATCH (f {qualified_name: 'flask.helpers.url_for'}) RETURN f.code, f.fan_in, f.fan_out, labels(f)",
        "MATCH (n {name: 'Exception'})<-[:INHERITS]-(c) RETURN n, c.name ORDER BY c.name",
        "MATCH (a {name: $name})<-[:CALLS*1..3]-(b) RETURN DISTINCT b.qualified_name ORDER BY b.qualified_name",
        "MATCH (a {name: 'Blueprint'})-[*1..2]-(b) RETURN count(DISTINCT b)",
        "MATCH (a {name: 'no_such_name'}) RETURN a",
        "MATCH (a {name: 'url_for'}) DELETE a",
    ];
    let whole = |text: &str| serde_json::to_value(index.query(text, &params).map_err(|e| e.to_string())).unwrap();
    let ask = |reader: &mut SplitReader, text: &str, allowed: u64| split_query(&split, reader, text, &params, allowed);
    let mut kept = SplitReader::open("root", &split.root).unwrap();
    for text in named {
        let mut fresh = SplitReader::open("root", &split.root).unwrap();
        assert_eq!(ask(&mut fresh, text, 5_000_000), whole(text), "a fresh reader, {text}");
        assert!(fresh.fetched().bytes * 10 < everything, "{text} read {} of {everything} bytes", fresh.fetched().bytes);
        assert_eq!(ask(&mut kept, text, 5_000_000), whole(text), "a kept reader, {text}");
    }
    // Every node, by no name: the whole graph, past a small allowance.
    let scan = "MATCH (c:CLASS) RETURN c.name, c.file_path ORDER BY c.name";
    let mut fresh = SplitReader::open("root", &split.root).unwrap();
    match drive_within(&mut fresh, fetch, |r| r.query_step(scan, &params), 100_000).unwrap() {
        Err(Costly { bytes, items }) => {
            assert_eq!(fresh.fetched().bytes, 0, "nothing fetched before it asks");
            assert!(bytes > everything / 2 && bytes < everything * 2, "estimated {bytes} of {everything}");
            assert!(items > 100, "{items} items");
        }
        Ok(_) => panic!("{scan} read the whole graph within 100 KB"),
    }
    assert_eq!(ask(&mut fresh, scan, u64::MAX), whole(scan));
}

/// A type found by its name reads as the whole graph has it: its own kind
/// (an interface, a struct, an enum) is on its page, not its name page.
#[test]
fn cypher_reads_a_named_type_s_own_kind() {
    for language in ["lang-go", "lang-typescript", "lang-rust", "lang-java"] {
        let index = common::index_dir(&common::fixture(language));
        let split = index.to_split();
        let typed: Vec<String> = index
            .graph()
            .nodes()
            .filter(|(_, n)| n.class_kind.is_some_and(|k| k != fathom_model::ClassKind::Class) && !n.is_external)
            .map(|(_, n)| n.name.clone())
            .collect();
        assert!(!typed.is_empty(), "{language} has an interface, a struct or an enum");
        for name in typed {
            let text = "MATCH (n {name: $name}) RETURN n.qualified_name, n.kind, labels(n) ORDER BY n.qualified_name";
            let params: Params = [("name".to_owned(), serde_json::json!(name))].into();
            let whole = serde_json::to_value(index.query(text, &params).map_err(|e| e.to_string())).unwrap();
            let mut reader = SplitReader::open("root", &split.root).unwrap();
            assert_eq!(split_query(&split, &mut reader, text, &params, u64::MAX), whole, "{language}: {name}");
        }
    }
}

/// Answers as JSON, whatever their type, for comparing whole and split.
mod erased {
    pub trait Json {
        fn json(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap()
        }
    }
}

/// A name many symbols share spans several name pages. A symbol typed by
/// its qualified name reads the page that holds it, not every page of the
/// name; typed by its simple name, it reads them all, and is refused as
/// the whole index refuses it.
#[test]
fn a_qualified_name_reads_its_own_name_page() {
    let files: Vec<(String, Vec<u8>)> = (0..1500)
        .map(|i| {
            let source = format!(
                "class Record{i}:\n    def name(self):\n        return {i}\n\n\ndef use{i}(r):\n    return r.name()\n"
            );
            (format!("repo/m{i:04}.py"), source.into_bytes())
        })
        .collect();
    let index = index_files("repo", files, &Options::default(), &mut Recorder::new());
    let split = index.to_split();
    let fetch = fetcher(&split);
    let json = |value: &dyn erased::Json| value.json();
    for symbol in ["m0123.Record123.name", "m1499.Record1499.name", "m0000.Record0.name", "name", "Record7.name"] {
        let expected = json(&index.symbol(symbol).map_err(|e| e.to_string()));
        let mut reader = SplitReader::open("root", &split.root).unwrap();
        let (answer, _) = drive(&mut reader, fetch, |r| r.symbol_step(symbol)).unwrap();
        assert_eq!(json(&answer.map_err(|e| e.to_string())), expected, "{symbol:?}");
        let pages = reader.fetched().names;
        let all: u64 = {
            let mut whole = SplitReader::open("root", &split.root).unwrap();
            let _ = drive(&mut whole, fetch, |r| r.symbol_step("name"));
            whole.fetched().names
        };
        if symbol.starts_with('m') {
            assert!(pages * 3 < all, "{symbol:?} read {pages} bytes of names, against {all} for every page of `name`");
        } else {
            assert!(pages >= all, "{symbol:?}: {pages} against {all}");
        }
    }
}

/// A reader fetches every item ahead (an offline demo): the root's items
/// and the files its node pages name are every item the bundle has, and a
/// reader that may read only those answers any question as the whole
/// index does; an altered node page is refused by name.
#[test]
fn every_item_fetched_ahead_answers_every_question() {
    let (index, split) = flask();
    let reader = SplitReader::open("root", &split.root).unwrap();
    let ahead = reader.every_item();
    let mut kept: std::collections::HashMap<ItemRef, Vec<u8>> =
        ahead.iter().map(|n| (n.item, split.items[&n.item].clone())).collect();
    let mut named = std::collections::HashSet::new();
    for need in ahead.iter().filter(|n| n.what.starts_with("node page")) {
        for file in reader.files_named(&need.item, &split.items[&need.item]).unwrap() {
            assert!(file.what.starts_with("the text of `"), "{}", file.what);
            named.insert(file.what.clone());
            kept.insert(file.item, split.items[&file.item].clone());
        }
    }
    assert_eq!(ahead.len(), ahead.iter().map(|n| n.item).collect::<std::collections::HashSet<_>>().len(), "each once");
    assert_eq!(named.len(), index.summary().files, "every file's item");
    // Every item the bundle has (files alike share one), the summary's too.
    let left: Vec<&ItemRef> = split.items.keys().filter(|item| !kept.contains_key(item)).collect();
    assert!(left.is_empty(), "{left:?}");
    assert!(kept.contains_key(&reader.root().summary));
    // Offline: only what was fetched ahead.
    let offline = |need: &Need| {
        let slot = |s: &fathom_engine::store::Span| {
            kept.get(&s.pack).map(|pack| pack[s.offset as usize..][..s.length as usize].to_vec())
        };
        need.span
            .as_ref()
            .map_or_else(|| kept.get(&need.item).cloned(), slot)
            .ok_or_else(|| StoreError::Missing { what: need.what.clone(), path: need.path() })
    };
    let mut reader = SplitReader::open("root", &split.root).unwrap();
    for query in ["url_for", "register a blueprint", "how are sessions signed"] {
        let answer = drive(&mut reader, offline, |r| r.search_step(query, &lexical(10))).unwrap().0;
        assert_eq!(serde_json::to_value(answer).unwrap(), whole(&index, query, &lexical(10)), "{query:?}");
    }
    let impact = drive(&mut reader, offline, |r| r.impact_step("flask.app.Flask", 2)).unwrap().0.unwrap();
    assert_eq!(
        serde_json::to_value(impact).unwrap(),
        serde_json::to_value(index.impact("flask.app.Flask", 2).unwrap()).unwrap()
    );
    let text = drive(&mut reader, offline, |r| r.file_step("src/flask/app.py")).unwrap().0;
    assert_eq!(text.as_deref(), index.file_text("src/flask/app.py"));
    // A page altered on its way is refused by name, and names no files.
    let page = ahead.iter().find(|n| n.what.starts_with("node page")).unwrap();
    let mut altered = split.items[&page.item].clone();
    let last = altered.len() - 1;
    altered[last] ^= 1;
    let refused = reader.files_named(&page.item, &altered).unwrap_err().to_string();
    assert!(refused.contains(&page.item.path()), "{refused}");
}

/// Meaning over a split bundle: Flask indexed with the static table, its
/// split bundle searched by meaning from its items (the query's pieces of
/// the table, the head, the nearest partitions, the best chunks' rows)
/// finds what the whole index's exact scan finds, and a search by words
/// reads none of it.
#[test]
fn meaning_over_a_split_bundle_finds_what_the_whole_lane_finds() {
    use fathom_embed::asset;
    let model = fathom_engine::embed::load_static(&asset::default_dir()).expect("the static table: run `make model`");
    let tokenizer = std::fs::read(asset::default_dir().join(asset::TOKENIZER_FILE)).unwrap();
    let (mut index, plain) = flask();
    let refused = SplitReader::open("root", &plain.root).unwrap().read_meaning(&tokenizer).unwrap_err();
    assert!(refused.contains("carries no vectors"), "{refused}");
    index.build_static(model).unwrap();
    let split = index.to_split();
    assert!(split.report.meaning.items > 0);
    // The lane's rows and the table's pieces are packed: a few files, each
    // checked slot by slot, where a file for each would be thousands.
    let ahead = SplitReader::open("root", &split.root).unwrap();
    let packs: Vec<Need> = ahead.every_item().into_iter().filter(|n| n.what.starts_with("the pack of")).collect();
    let (rows, pieces) = {
        let meaning = ahead.root().meaning.as_ref().unwrap();
        (meaning.rows.count as usize, meaning.pieces.count as usize)
    };
    assert!(rows > 1000 && pieces > 10_000 && (2..8).contains(&packs.len()), "{rows} rows, {pieces} pieces, {packs:?}");
    assert!(split.items.len() < plain.items.len() + 2 * packs.len() + 2000, "{} files", split.items.len());
    for pack in &packs {
        ahead.check(&pack.what, &pack.item, &split.items[&pack.item]).unwrap();
    }
    let mut altered = split.items[&packs[0].item].clone();
    let stride = ahead.root().meaning.as_ref().unwrap().rows.stride.max(1) as usize;
    altered[stride + 20] ^= 1;
    let error = ahead.check(&packs[0].what, &packs[0].item, &altered).unwrap_err();
    assert!(
        matches!(error, StoreError::Altered { .. }) && error.to_string().contains(&packs[0].item.path()),
        "{error}"
    );
    let error = ahead.check(&packs[0].what, &packs[0].item, &altered[..stride * 3]).unwrap_err();
    assert!(error.to_string().contains("truncated"), "{error}");
    let mut reader = SplitReader::open("root", &split.root).unwrap();
    let wrong = reader.read_meaning(b"{}").unwrap_err();
    assert!(wrong.contains(asset::TOKENIZER_FILE), "{wrong}");
    reader.read_meaning(&tokenizer).unwrap();

    let questions: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(common::fixture("../eval/flask-3.0.3.queries.json")).unwrap())
            .unwrap();
    let queries: Vec<String> =
        questions["queries"].as_array().unwrap().iter().map(|q| q["q"].as_str().unwrap().to_owned()).collect();
    let dense = SearchOptions { k: 10, mode: SearchMode::Dense, ..SearchOptions::default() };
    let symbols = |v: &serde_json::Value| -> Vec<String> {
        v["hits"].as_array().unwrap().iter().map(|h| h["symbol"].as_str().unwrap_or_default().to_owned()).collect()
    };
    let (mut found, mut wanted, mut same) = (0, 0, 0);
    for query in &queries {
        let before = reader.fetched().meaning;
        let (answer, _) = split_search(&split, &mut reader, query, &dense);
        let truth = whole(&index, query, &dense);
        let (got, want) = (symbols(&answer), symbols(&truth));
        wanted += want.len();
        found += want.iter().filter(|s| got.contains(s)).count();
        same += usize::from(answer == truth);
        if answer != truth && std::env::var_os("SHOW_DIFF").is_some() {
            eprintln!("{query}\nsplit {}\nwhole {}", answer["hits"], truth["hits"]);
        }
        assert!(reader.fetched().meaning - before < 400 << 10, "{query:?} read past 400 KB of meaning");
    }
    if std::env::var_os("SHOW_HYBRID").is_some() {
        let hybrid = SearchOptions { k: 10, ..SearchOptions::default() };
        for query in ["how are errors handled", "register a blueprint", "session cookie"] {
            let (answer, _) = split_search(&split, &mut reader, query, &hybrid);
            eprintln!("{query}\nsplit {:?}\nwhole {:?}", symbols(&answer), symbols(&whole(&index, query, &hybrid)));
        }
    }
    let recall = found as f64 / wanted as f64;
    eprintln!(
        "meaning over split: recall@10 {recall:.3}, {same} of {} answers whole, {:?}",
        queries.len(),
        reader.fetched()
    );
    assert!(recall >= 0.9, "recall@10 {recall}");
    // By meaning alone, the ranking reads no postings and no names, as the
    // whole index's reads none.
    assert_eq!((reader.fetched().postings, reader.fetched().names), (0, 0));
    // A query the table knows no word of whole runs by words, as the whole
    // index's does: its pieces tell, then its postings are read.
    let mut fallback = SplitReader::open("root", &split.root).unwrap();
    fallback.read_meaning(&tokenizer).unwrap();
    let query = "jsonify";
    let (answer, _) = split_search(&split, &mut fallback, query, &dense);
    let truth = whole(&index, query, &dense);
    assert!(truth["note"].as_str().is_some_and(|n| n.contains("ran dense as lexical")), "{}", truth["note"]);
    assert_eq!(answer, truth);
    assert!(fallback.fetched().postings > 0);
    // Packed items whose slots follow one another in a pack share a run,
    // which a page reads with one Range request: each run's slots are
    // contiguous, in one pack, and no longer than RUN_BYTES.
    let mut runs_of = SplitReader::open("root", &split.root).unwrap();
    runs_of.read_meaning(&tokenizer).unwrap();
    let (mut joined, mut packed) = (0, 0);
    for query in ["how are errors handled", "render a template with context", "register a blueprint"] {
        while let Step::Needs(needs) = runs_of.search_step(query, &dense) {
            let mut runs: std::collections::BTreeMap<u32, Vec<Span>> = std::collections::BTreeMap::new();
            for need in &needs {
                assert_eq!(need.run.is_some(), need.span.is_some(), "{need:?}");
                if let (Some(run), Some(span)) = (need.run, need.span) {
                    runs.entry(run).or_default().push(span);
                }
            }
            for spans in runs.values_mut() {
                spans.sort_by_key(|s| s.offset);
                assert!(
                    spans
                        .windows(2)
                        .all(|w| w[0].pack == w[1].pack && w[0].offset + u64::from(w[0].length) == w[1].offset)
                );
                let last = spans.last().unwrap();
                assert!(last.offset + u64::from(last.length) - spans[0].offset <= fathom_engine::split::RUN_BYTES);
                packed += spans.len();
                joined += spans.len() - 1;
            }
            for need in needs {
                runs_of.supply(&need.item, &split.bytes(&need.item, need.span.as_ref()).unwrap()).unwrap();
            }
        }
    }
    assert!(joined > 0 && joined < packed, "{joined} of {packed} packed items joined a run");
    // A group's item that checks itself but does not fit the head (sizes
    // that do not add up to its rows, codes of another length) is refused
    // by name, and the reader keeps what it holds.
    let mut forged = SplitReader::open("root", &split.root).unwrap();
    forged.read_meaning(&tokenizer).unwrap();
    let mut refused = Vec::new();
    for _ in 0..8 {
        let Step::Needs(needs) = forged.search_step("how are errors handled", &dense) else { break };
        for need in needs {
            let bytes = if need.what.starts_with("group ") {
                let group = fathom_engine::split::GroupItem { centre_codes: vec![0; 3], sizes: vec![1] };
                fathom_engine::store::seal_placed(&group).0
            } else {
                split.bytes(&need.item, need.span.as_ref()).unwrap()
            };
            if let Err(e) = forged.supply(&need.item, &bytes) {
                refused.push(e.to_string());
            }
        }
        if !refused.is_empty() {
            break;
        }
    }
    assert!(refused.iter().all(|e| e.contains("do not fit the head's group")), "{refused:?}");
    assert!(!refused.is_empty(), "the forged groups were asked for");
    let (answer, _) = split_search(&split, &mut forged, "url_for", &lexical(10));
    assert_eq!(answer, whole(&index, "url_for", &lexical(10)));
    // By words: no item of the lane.
    let mut words = SplitReader::open("root", &split.root).unwrap();
    words.read_meaning(&tokenizer).unwrap();
    let (answer, _) = split_search(&split, &mut words, "url_for", &lexical(10));
    assert_eq!(answer, whole(&index, "url_for", &lexical(10)));
    assert_eq!(words.fetched().meaning, 0);
}

#[test]
fn the_summary_reads_as_the_whole_index_s() {
    let (index, split) = flask();
    let mut reader = SplitReader::open("root", &split.root).unwrap();
    let fetch = fetcher(&split);
    let (summary, waves) = drive(&mut reader, fetch, |r| r.summary_step()).unwrap();
    assert_eq!(waves, 1, "the summary's own item");
    assert!(!summary.skipped.is_empty() && summary.symbols > 0, "{summary:?}");
    // What the heap took while indexing is not kept in a bundle either.
    assert_eq!(summary, fathom_engine::IndexSummary { memory: None, ..index.summary().clone() });
    let (_, waves) = drive(&mut reader, fetch, |r| r.summary_step()).unwrap();
    assert_eq!(waves, 0, "kept");
}
