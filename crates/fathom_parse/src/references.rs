//! Turning the matches of a language's `references.scm` into raw facts:
//! call sites, imports, uses, typed locals, the declared package, and
//! supertypes declared apart from their type.
//!
//! Capture vocabulary (see `queries/README.md`): an outer capture says what a
//! match is (`@call`, `@new`, `@import`, `@reexport`, `@use`, `@write`,
//! `@local`, `@package`, `@impl`); inner captures give its parts.

use std::collections::HashSet;

use fathom_model::{
    BaseKind, BaseRef, CallSite, Definition, FileFacts, Implementation, Import, Local, LocalType, SymbolKind,
    TypeAlias, Use,
};
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor};

use crate::definitions::{node_text, span_of};
use crate::text::{bare_type, collapse, unquote};

pub(crate) fn extract(query: &Query, root: Node<'_>, text: &str, facts: &mut FileFacts) {
    let names = query.capture_names();
    let scopes = Scopes::new(&facts.definitions);
    let declared: HashSet<u32> = facts.definitions.iter().map(|d| d.name_span.start_byte).collect();
    // Uses by the start of their name node; a write target is not also a read.
    let mut uses: Vec<(u32, Use)> = Vec::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, root, text.as_bytes());
    while let Some(m) = matches.next() {
        let part = |name: &str| m.captures().iter().find(|c| names[c.index as usize] == name).map(|c| c.node);
        let Some((outer, node)) = m.captures().iter().find_map(|c| {
            let name = names[c.index as usize];
            (!name.contains('.') && !name.starts_with('_')).then_some((name, c.node))
        }) else {
            continue;
        };
        let span = span_of(node);
        match outer {
            "call" | "new" => {
                let Some(name) = part("call.name") else { continue };
                let arguments = part("call.arguments").map_or(0, |args| {
                    let mut c = args.walk();
                    args.named_children(&mut c).filter(|a| !a.kind().contains("comment")).count() as u32
                });
                facts.calls.push(CallSite {
                    caller: scopes.innermost(span.start_byte, &facts.definitions),
                    name: node_text(name, text).to_owned(),
                    receiver: part("call.receiver").map(|r| collapse(node_text(r, text))),
                    arguments,
                    instantiates: outer == "new",
                    span,
                });
            }
            "import" | "reexport" => {
                let Some(source) = part("import.source") else { continue };
                let source = unquote(node_text(source, text));
                let default = part("import.default").map(|n| node_text(n, text).to_owned());
                let alias = part("import.alias").map(|n| node_text(n, text).to_owned()).or(default.clone());
                let wildcard = part("import.wildcard").is_some();
                let mut imported: Vec<Option<String>> = m
                    .captures()
                    .iter()
                    .filter(|c| names[c.index as usize] == "import.name")
                    .map(|c| Some(node_text(c.node, text).to_owned()))
                    .collect();
                if imported.is_empty() {
                    imported.push(default.map(|_| "default".to_owned()));
                }
                for name in imported {
                    facts.imports.push(Import {
                        source: source.clone(),
                        name,
                        alias: alias.clone(),
                        wildcard,
                        reexport: outer == "reexport",
                        span,
                    });
                }
            }
            "use" | "write" => {
                let explicit = part("use.name");
                let name_node = explicit.unwrap_or(node);
                if declared.contains(&(name_node.start_byte() as u32)) || (explicit.is_none() && is_member_name(node)) {
                    continue;
                }
                let user = scopes.innermost(span.start_byte, &facts.definitions);
                let name = node_text(name_node, text).to_owned();
                let receiver = part("use.receiver").map(|r| collapse(node_text(r, text)));
                uses.push((name_node.start_byte() as u32, Use { user, name, receiver, write: outer == "write", span }));
            }
            "local" => {
                let (Some(name), Some(type_node)) = (part("local.name"), part("local.type")) else { continue };
                // `x = make()` is typed by what `make` returns, which only resolution knows.
                let called = type_node
                    .parent()
                    .and_then(|p| p.child_by_field_name("function"))
                    .is_some_and(|f| f.id() == type_node.id());
                let written = collapse(node_text(type_node, text));
                let type_of = if called { LocalType::CallResult(written) } else { LocalType::Written(written) };
                facts.locals.push(Local {
                    scope: scopes.innermost(span.start_byte, &facts.definitions),
                    name: node_text(name, text).to_owned(),
                    type_of,
                    span,
                });
            }
            "callback" => {
                let (Some(callee), Some(function)) = (part("callback.function"), part("callback.arrow")) else {
                    continue;
                };
                let scope = scopes.innermost(span.start_byte, &facts.definitions);
                facts.locals.extend(callback_parameters(callee, function, text, scope));
            }
            "alias" => {
                let (Some(name), Some(written)) = (part("alias.name"), part("alias.type")) else { continue };
                facts.aliases.push(TypeAlias {
                    name: node_text(name, text).to_owned(),
                    written: collapse(node_text(written, text)),
                    span,
                });
            }
            "package" => {
                if let Some(name) = part("package.name") {
                    facts.package.get_or_insert_with(|| collapse(node_text(name, text)));
                }
            }
            "impl" => {
                let (Some(type_node), Some(base)) = (part("impl.type"), part("impl.trait")) else { continue };
                facts.impls.push(Implementation {
                    type_name: bare_type(node_text(type_node, text)),
                    base: BaseRef {
                        name: bare_type(node_text(base, text)),
                        kind: BaseKind::Implements,
                        span: span_of(base),
                    },
                });
            }
            _ => {}
        }
    }
    let written: HashSet<u32> = uses.iter().filter(|(_, u)| u.write).map(|(at, _)| *at).collect();
    let mut seen: HashSet<(Option<usize>, String, Option<String>, bool)> = HashSet::new();
    for (at, u) in uses {
        if (u.write || !written.contains(&at)) && seen.insert((u.user, u.name.clone(), u.receiver.clone(), u.write)) {
            facts.uses.push(u);
        }
    }
}

/// The untyped parameters of a function passed as an argument, each typed
/// by its position in the callee's declared parameter (`operate(fn)`).
fn callback_parameters(callee: Node<'_>, function: Node<'_>, text: &str, scope: Option<usize>) -> Vec<Local> {
    let Some(arguments) = function.parent() else { return Vec::new() };
    let mut cursor = arguments.walk();
    let Some(argument) = arguments.named_children(&mut cursor).position(|a| a.id() == function.id()) else {
        return Vec::new();
    };
    let callee = node_text(callee, text).to_owned();
    let Some(parameters) =
        function.child_by_field_name("parameters").or_else(|| function.child_by_field_name("parameter"))
    else {
        return Vec::new();
    };
    let list: Vec<Node<'_>> = if parameters.kind() == "identifier" {
        vec![parameters]
    } else {
        let mut cursor = parameters.walk();
        parameters.named_children(&mut cursor).filter(|p| !p.kind().contains("comment")).collect()
    };
    list.into_iter()
        .enumerate()
        .filter(|(_, p)| p.child_by_field_name("type").is_none())
        .filter_map(|(at, p)| {
            let name = if p.kind() == "identifier" { p } else { p.child_by_field_name("pattern")? };
            (name.kind() == "identifier").then(|| Local {
                scope,
                name: node_text(name, text).to_owned(),
                type_of: LocalType::CallbackParameter {
                    callee: callee.clone(),
                    argument: argument as u32,
                    parameter: at as u32,
                },
                span: span_of(p),
            })
        })
        .collect()
}

/// Whether a bare name is really the member part of `a.b`, a keyword
/// argument's name or a property key: then it names no variable.
fn is_member_name(node: Node<'_>) -> bool {
    const MEMBER_FIELDS: [&str; 6] = ["attribute", "property", "field", "name", "key", "alias"];
    let Some(parent) = node.parent() else { return false };
    // The node's own field, read off a cursor over its siblings: a field
    // name from the cursor is a table lookup, where `child_by_field_name`
    // compares the name with every field of the grammar.
    let mut cursor = parent.walk();
    if !cursor.goto_first_child() {
        return false;
    }
    loop {
        if cursor.node().id() == node.id() {
            return cursor.field_name().is_some_and(|field| MEMBER_FIELDS.contains(&field));
        }
        if !cursor.goto_next_sibling() {
            return false;
        }
    }
}

/// Finds the innermost function, method or class around a byte offset.
///
/// Only these scopes are indexed: their parents follow span nesting, unlike
/// fields, which belong to their class wherever they are assigned.
pub(crate) struct Scopes {
    /// Indices of the scope definitions, by start byte (definitions are sorted).
    scopes: Vec<usize>,
    starts: Vec<u32>,
}

impl Scopes {
    pub(crate) fn new(definitions: &[Definition]) -> Scopes {
        let mut scopes: Vec<usize> = (0..definitions.len())
            .filter(|&i| is_scope(&definitions[i]) && definitions[i].synthesized.is_none())
            .collect();
        scopes.sort_by_key(|&i| definitions[i].span.start_byte);
        let starts = scopes.iter().map(|&i| definitions[i].span.start_byte).collect();
        Scopes { scopes, starts }
    }

    pub(crate) fn innermost(&self, at: u32, definitions: &[Definition]) -> Option<usize> {
        let before = self.starts.partition_point(|&start| start <= at);
        let mut candidate = before.checked_sub(1).map(|i| self.scopes[i]);
        // A scope that starts before `at` but has ended: the answer encloses it.
        while let Some(i) = candidate {
            if at < definitions[i].span.end_byte {
                return Some(i);
            }
            candidate = definitions[i].parent.filter(|&p| is_scope(&definitions[p]));
        }
        None
    }
}

fn is_scope(d: &Definition) -> bool {
    matches!(d.kind, SymbolKind::Function | SymbolKind::Method | SymbolKind::Class)
}
