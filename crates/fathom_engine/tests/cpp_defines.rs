//! A C++ project read with its own `#define`s: a namespace macro defined in
//! one header opens its namespace in another, and a macro that stands for
//! `try` no longer ends a class in the middle.

mod common;

use std::collections::BTreeMap;

use common::Recorder;
use fathom_engine::{Index, Options};

const ABI: &str = r#"#pragma once
#ifndef JSON_NAMESPACE_BEGIN
#define JSON_NAMESPACE_BEGIN                \
    namespace nlohmann                      \
    {                                       \
    inline namespace JSON_ABI_TAG(v3, 11)   \
    {
#endif
#define JSON_NAMESPACE_END } }
#if defined(__cpp_exceptions)
    #define JSON_TRY try
    #define JSON_CATCH(exception) catch(exception)
#else
    #define JSON_TRY if(true)
    #define JSON_CATCH(exception) if(false)
#endif
#if defined(__GNUC__)
    #define JSON_API __attribute__((visibility("default")))
#else
    #define JSON_API
#endif
"#;

const JSON: &str = r#"#pragma once
#include "abi.hpp"

JSON_NAMESPACE_BEGIN

class JSON_API basic_json
{
  public:
    void check() const
    {
        JSON_TRY
        {
            validate();
        }
        JSON_CATCH(...) {}
    }

    int size() const
    {
        return 0;
    }
};

JSON_NAMESPACE_END
"#;

fn index(files: &[(&str, &str)]) -> Index {
    let files = files.iter().map(|(p, t)| ((*p).to_owned(), t.as_bytes().to_vec())).collect();
    fathom_engine::index_files("json", files, &Options::default(), &mut Recorder::new())
}

fn column(index: &Index, query: &str) -> Vec<String> {
    let result = index.query(query, &BTreeMap::new()).unwrap_or_else(|e| panic!("{query}\n{e}"));
    result.rows.iter().map(|row| row[0].as_str().unwrap_or_default().to_owned()).collect()
}

#[test]
fn a_namespace_macro_defined_in_another_header_opens_its_namespace() {
    let index = index(&[("include/abi.hpp", ABI), ("include/json.hpp", JSON)]);
    let namespaces = column(&index, "MATCH (p:PACKAGE)-[:CONTAINS]->(c:CLASS {name: 'basic_json'}) RETURN p.name");
    assert_eq!(namespaces, ["nlohmann"]);
    // The method after the `JSON_TRY` block is still the class's.
    let methods =
        column(&index, "MATCH (c:CLASS {name: 'basic_json'})-[:HAS_METHOD]->(m) RETURN m.name ORDER BY m.name");
    assert_eq!(methods, ["check", "size"]);
}

#[test]
fn without_the_defining_header_the_macros_are_only_blanked() {
    let index = index(&[("include/json.hpp", JSON)]);
    let namespaces = column(&index, "MATCH (p:PACKAGE)-[:CONTAINS]->(c:CLASS {name: 'basic_json'}) RETURN p.name");
    assert!(namespaces.is_empty(), "{namespaces:?}");
    let classes = column(&index, "MATCH (c:CLASS) RETURN c.name");
    assert_eq!(classes, ["basic_json"]);
}
