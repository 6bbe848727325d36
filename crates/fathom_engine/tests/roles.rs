//! What each file of a project is, decided from its content and the
//! project's layout, and the traces of every language read as frames: each
//! on a small project written here, whose files say what a real one's do.

mod common;

use common::Recorder;
use fathom_engine::{Index, Options, SearchMode, SearchOptions, index_files};
use fathom_search::roles::Role;

fn project(files: &[(&str, String)]) -> Index {
    let files = files.iter().map(|(p, t)| (format!("repo/{p}"), t.clone().into_bytes())).collect();
    index_files("repo", files, &Options::default(), &mut Recorder::new())
}

fn role(index: &Index, path: &str) -> Role {
    index.retrieval().roles().of(path).role
}

fn ranked(index: &Index, report: &str) -> Vec<String> {
    index.locate(report, 20, None).files.into_iter().map(|f| f.file).collect()
}

/// The parts of a C++ library, one file each under `folder` (`{part}{ext}`),
/// and the one file `pasted` its release script pastes them into.
fn released(
    folder: &str,
    ext: &str,
    pasted: &'static str,
    body: impl Fn(&str) -> String,
) -> Vec<(&'static str, String)> {
    let parts = ["lexer", "parser", "serializer", "iterator", "pointer", "convert"];
    let mut files: Vec<(&'static str, String)> = parts
        .iter()
        .map(|p| {
            let path: &'static str = Box::leak(format!("{folder}/{p}{ext}").into_boxed_str());
            (path, body(p))
        })
        .collect();
    files.push((pasted, parts.iter().map(|p| body(p)).collect()));
    files
}

/// A header-only C++ library: six headers, and the single header its
/// release script pastes them into.
fn library() -> Vec<(&'static str, String)> {
    let mut files = released("include/lib", ".hpp", "single_include/lib.hpp", |part| {
        (0..4)
            .map(|i| format!("int {part}_step{i}(int x) {{ return x + {i}; }}\n"))
            .chain([format!("class {part}_state {{ public: int depth() {{ return 1; }} }};\n")])
            .collect()
    });
    files.push((
        "include/lib/pointer_error.hpp",
        "// a pointer that walks past the end of an array reports the wrong token\nint pointer_past_end(int token) { return token; }\n".into(),
    ));
    files
}

#[test]
fn an_amalgamation_follows_the_header_it_copies() {
    let index = project(&library());
    assert_eq!(role(&index, "single_include/lib.hpp"), Role::Generated);
    assert_eq!(role(&index, "include/lib/pointer.hpp"), Role::Source);
    let why = index.retrieval().roles().of("single_include/lib.hpp").why.clone().unwrap();
    assert!(why.starts_with("an amalgamation"), "{why}");
    // The report names a function both define: the header first, its
    // amalgamation right after it, with the reason.
    let report = "pointer_step2 returns the wrong value\n\nCalling `pointer_step2(3)` gives 5 where the docs say 4.\nIt breaks every pointer walk.";
    let files = ranked(&index, report);
    assert_eq!(files[..2], ["include/lib/pointer.hpp", "single_include/lib.hpp"], "{files:?}");
    let located = index.locate(report, 5, None);
    assert!(located.files[1].reasons.iter().any(|r| r.contains("companion")), "{:?}", located.files[1].reasons);
}

/// Three files of another project copied into `src/decnum/`, each under
/// that project's copyright notice, with the code `body` gives for its name.
fn copied_library(files: &mut Vec<(&str, String)>, body: impl Fn(&str) -> String) {
    for name in ["decimal", "context", "rounding"] {
        let path: &'static str = Box::leak(format!("src/decnum/{name}.c").into_boxed_str());
        let notice = "/* ------------------------------------------------------------------ */\n/* Copyright (c) IBM Corporation, 2000, 2009.  All rights reserved.   */\n/* ------------------------------------------------------------------ */\n";
        files.push((path, format!("{notice}{}", body(name))));
    }
}

#[test]
fn a_folder_with_its_own_copyright_notice_is_another_projects_code() {
    let mut files: Vec<(&str, String)> = vec![
        ("src/main.c", "#include \"decnum/decimal.h\"\nint main(void) { return parse_number(\"1\"); }\n".into()),
        ("src/parse.c", "int parse_number(const char *text) { return decimal_from_string(text); }\n".into()),
        ("src/print.c", "int print_number(int n) { return n; }\n".into()),
        ("src/value.c", "int value_kind(int v) { return v & 3; }\n".into()),
    ];
    copied_library(&mut files, |name| format!("int decimal_{name}_number(const char *text) {{ return text[0]; }}\n"));
    files.push(("src/decnum/decimal.h", "int decimal_from_string(const char *text);\n".into()));
    let index = project(&files);
    assert_eq!(role(&index, "src/decnum/decimal.c"), Role::Vendored);
    assert_eq!(role(&index, "src/parse.c"), Role::Source);
    let why = index.retrieval().roles().of("src/decnum/context.c").why.clone().unwrap();
    assert!(why.contains("ibm corporation"), "{why}");
}

#[test]
fn a_tools_folder_is_the_projects_own_program_when_it_holds_much_of_its_code() {
    let function = |name: &str| format!("package x\n\nfunc {name}() int {{ return 1 }}\n");
    let mut files: Vec<(&str, String)> = vec![
        ("core/logx/logs.go", function("Info")),
        ("core/mapping/unmarshal.go", function("Unmarshal")),
        ("rest/server.go", function("Start")),
        ("scripts/release.py", "def release():\n    return 1\n".into()),
    ];
    for name in ["parser", "generator", "format", "gomod", "gopath"] {
        let path: &'static str = Box::leak(format!("tools/goctl/util/{name}.go").into_boxed_str());
        files.push((path, function(name)));
    }
    let index = project(&files);
    assert_eq!(role(&index, "tools/goctl/util/gomod.go"), Role::Source, "most of the project's Go");
    assert_eq!(role(&index, "scripts/release.py"), Role::Build);
    assert_eq!(role(&index, "core/logx/logs.go"), Role::Source);
}

#[test]
fn other_languages_traces_name_their_frames_and_logs_are_not_frames() {
    let files: Vec<(&str, String)> = vec![
        ("lib/utils.js", "function isFormData(thing) {\n  return thing && thing.constructor.name === 'FormData';\n}\nmodule.exports = { isFormData };\n".into()),
        ("lib/adapters/http.js", "const utils = require('../utils');\nfunction send(data) {\n  return utils.isFormData(data);\n}\nmodule.exports = send;\n".into()),
        ("lib/core/request.js", "function request(config) {\n  return config;\n}\nmodule.exports = request;\n".into()),
    ];
    let index = project(&files);
    let report = "TypeError when posting a plain object\n\n```\nTypeError: Cannot read properties of undefined (reading 'name')\n    at isFormData (file:///home/me/app/node_modules/mylib/lib/utils.js:2:36)\n    at send (file:///home/me/app/node_modules/mylib/lib/adapters/http.js:3:16)\n    at node:internal/process/task_queues:95:5\n```\n";
    let located = index.locate(report, 5, None);
    let order: Vec<&str> = located.files.iter().map(|f| f.file.as_str()).collect();
    let raised = located.files.iter().find(|f| f.file == "lib/utils.js").expect("the innermost frame's file");
    assert_eq!(raised.evidence.frame_depth, Some(0), "the dependency's copy is the repository's own file");
    assert!(raised.reasons.iter().any(|r| r.contains("where it raised")), "{:?}", raised.reasons);
    let caller = located.files.iter().find(|f| f.file == "lib/adapters/http.js").expect("the caller's frame");
    assert_eq!(caller.evidence.frame_depth, Some(1), "the runtime's frame is passed over");
    assert!(order.iter().position(|f| *f == "lib/core/request.js").is_none_or(|p| p >= 2), "{order:?}");
    // A log line's location is said there, not raised there.
    let logged =
        "Requests hang\n\nThe debug log ends with\nDEBUG|mylib|lib/core/request.js:2: sending\nand nothing after it.";
    let located = index.locate(logged, 5, None);
    let request = located.files.iter().find(|f| f.file == "lib/core/request.js").expect("the logged file");
    assert_eq!(request.evidence.frame_depth, None);
    assert!(request.evidence.logged > 0.0);
}

#[test]
fn plain_search_ranks_a_vendored_copy_below_the_projects_own_code_and_says_why() {
    // The project's decimal parser, and a vendored copy of a library that
    // says the same words more often.
    let mut files: Vec<(&str, String)> = vec![
        (
            "src/number.c",
            "/* reads text */\nint parse_decimal_number(const char *text) { return text[0] - '0'; }\n".into(),
        ),
        ("src/print.c", "int print_value(int n) { return n; }\n".into()),
        ("src/value.c", "int value_kind(int v) { return v & 3; }\n".into()),
    ];
    copied_library(&mut files, |name| {
        format!(
            "/* parse a decimal number: parse each decimal number, decimal by decimal */\nint parse_decimal_number_{name}(const char *text) {{ return text[1]; }}\n"
        )
    });
    let index = project(&files);
    assert_eq!(role(&index, "src/decnum/decimal.c"), Role::Vendored);
    let options = fathom_engine::SearchOptions { mode: fathom_engine::SearchMode::Lexical, ..Default::default() };
    let results = index.search("parse decimal number", &options, None);
    let order: Vec<&str> = results.files.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(order.first(), Some(&"src/number.c"), "{order:?}");
    assert!(order.contains(&"src/decnum/decimal.c"), "still found: {order:?}");
    let copy = results.hits.iter().find(|h| h.file == "src/decnum/decimal.c").expect("the copy's definition");
    assert_eq!(copy.explain.role, Some(Role::Vendored));
    let own = results.hits.iter().find(|h| h.file == "src/number.c").expect("the project's definition");
    assert_eq!(own.explain.role, None);
}

/// A Go service with protoc's output checked in beside its hand-written
/// code, and a minified bundle of its web page.
fn service_with_generated_code() -> Vec<(&'static str, String)> {
    let pb = "// Code generated by protoc-gen-go. DO NOT EDIT.\n// versions:\n// \tprotoc-gen-go v1.28.1\n// source: greeter.proto\n\npackage greeterpb\n\n// HelloRequest is the request of Greeter.SayHello.\ntype HelloRequest struct {\n\tName string\n}\n\nfunc (x *HelloRequest) GetName() string {\n\tif x != nil {\n\t\treturn x.Name\n\t}\n\treturn \"\"\n}\n\n// Greeting is what Greeter.SayHello answers.\ntype Greeting struct {\n\tText string\n}\n";
    let server = "package server\n\nimport \"example.com/greeter/greeterpb\"\n\n// Greeting words a reply to a request's name.\ntype Greeting struct {\n\tSalutation string\n}\n\n// SayHello answers a HelloRequest with a greeting.\nfunc SayHello(req *greeterpb.HelloRequest) string {\n\treturn \"hello \" + req.GetName()\n}\n";
    let bundle = format!("!function(e){{{}}}\n", "var a=e.b(t);".repeat(600));
    vec![
        ("go.mod", "module example.com/greeter\n\ngo 1.21\n".into()),
        ("greeterpb/greeter.pb.go", pb.into()),
        ("server/server.go", server.into()),
        ("web/app.min.js", bundle),
        (
            "tools/apigen/api_parser.go",
            "// Code generated from Api.g4 by ANTLR 4.9. DO NOT EDIT.\n\npackage apigen\n\nfunc NewApiParser() int { return 1 }\n".into(),
        ),
    ]
}

#[test]
fn generated_code_is_indexed_marked_ranked_below_and_resolved() {
    let index = project(&service_with_generated_code());
    // Indexed, not skipped; the bundle alone is left out, with its reason.
    let skipped = &index.summary().skipped;
    assert!(skipped.iter().all(|s| !s.path.ends_with(".pb.go")), "{skipped:?}");
    let bundle = skipped.iter().find(|s| s.path == "web/app.min.js").expect("the bundle is skipped");
    assert!(bundle.detail.contains("bundle"), "{}", bundle.detail);
    // Marked by its header, with the line that says so.
    let judged = index.retrieval().roles().of("greeterpb/greeter.pb.go");
    assert_eq!(judged.role, Role::Generated);
    assert!(judged.why.as_deref().unwrap().contains("Code generated by protoc-gen-go"), "{judged:?}");
    // In a tool's folder too.
    assert_eq!(role(&index, "tools/apigen/api_parser.go"), Role::Generated);
    // Its definitions resolve: the call to `GetName` reaches the generated method.
    let text = index.file_text("server/server.go").unwrap();
    let at = text.find("GetName()").unwrap();
    let line = text[..at].matches('\n').count() as u32 + 1;
    let column = (at - text[..at].rfind('\n').map_or(0, |i| i + 1)) as u32;
    let found = index.definition_at("server/server.go", line, column + 1).unwrap();
    assert_eq!(found[0].file.as_deref(), Some("greeterpb/greeter.pb.go"), "{found:?}");
    assert!(found[0].symbol.ends_with(".GetName"), "{found:?}");
    // A name only the generated file defines is still found first…
    let options = SearchOptions { mode: SearchMode::Lexical, ..Default::default() };
    let hits = index.search("HelloRequest", &options, None).hits;
    assert_eq!((hits[0].name.as_str(), hits[0].file.as_str()), ("HelloRequest", "greeterpb/greeter.pb.go"));
    assert_eq!(hits[0].explain.role, Some(Role::Generated));
    // … and one both define comes from the hand-written code first.
    let hits = index.search("Greeting", &options, None).hits;
    assert_eq!(hits[0].file, "server/server.go", "{:?}", hits.iter().map(|h| &h.symbol).collect::<Vec<_>>());
    let generated = hits.iter().position(|h| h.file == "greeterpb/greeter.pb.go").expect("the generated namesake");
    assert!(generated > 0);
}

/// The header-only library's parts, each with a source file beside it, and
/// a release that pastes the headers into one header and the sources into
/// one source, as Catch2's `extras/` does.
fn amalgamated_twice() -> Vec<(&'static str, String)> {
    let mut files = library();
    files.extend(released("src", ".cpp", "extras/lib_amalgamated.cpp", |part| {
        (0..4)
            .map(|i| format!("int {part}_step{i}(int x) {{ return x + {i}; }}\n"))
            .chain([format!("int {part}_run(int x) {{ return {part}_step0(x); }}\n")])
            .collect()
    }));
    files
}

#[test]
fn an_amalgamated_source_beside_an_amalgamated_header_is_found_too() {
    let index = project(&amalgamated_twice());
    assert_eq!(role(&index, "single_include/lib.hpp"), Role::Generated);
    // Its names are the header's too, whose size hides what it copies
    // until the header is set aside.
    assert_eq!(role(&index, "extras/lib_amalgamated.cpp"), Role::Generated);
    assert_eq!(role(&index, "src/pointer.cpp"), Role::Source);
    assert!(index.retrieval().roles().sources_of("extras/lib_amalgamated.cpp").contains(&"src/pointer.cpp".to_owned()));
    // A name it copies is found in the file it copies first.
    let options = SearchOptions { mode: SearchMode::Lexical, ..Default::default() };
    let hits = index.search("pointer_run", &options, None).hits;
    assert_eq!(hits[0].file, "src/pointer.cpp", "{:?}", hits.iter().map(|h| &h.file).collect::<Vec<_>>());
}
