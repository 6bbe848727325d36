//! Turning the matches of a language's `references.scm` into raw facts:
//! call sites, imports, uses, typed locals, the declared package, and
//! supertypes declared apart from their type.
//!
//! Capture vocabulary (see `queries/README.md`): an outer capture says what a
//! match is (`@call`, `@new`, `@import`, `@reexport`, `@use`, `@write`,
//! `@local`, `@package`, `@impl`); inner captures give its parts.

use std::borrow::Cow;
use std::collections::HashMap;

use fathom_model::{
    BaseKind, BaseRef, CallSite, Definition, FileFacts, Implementation, Import, Local, LocalType, Name, SymbolKind,
    TypeAlias, Use,
};
use rustc_hash::FxHashSet;
use tree_sitter::{Node, Query};

use crate::definitions::{node_text, span_of};
use crate::metrics::Marks;
use crate::order::Capture;
use crate::text::{bare_type, collapse, collapsed, is_comment, unquote};

/// What a match is: its outer capture.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outer {
    Call,
    New,
    Import,
    Reexport,
    Use,
    Write,
    Local,
    Callback,
    Alias,
    Package,
    Impl,
}

/// The inner captures, which give a match's parts.
#[derive(Clone, Copy)]
enum Part {
    CallName,
    CallReceiver,
    CallArguments,
    ImportSource,
    ImportDefault,
    ImportAlias,
    ImportWildcard,
    ImportName,
    UseName,
    UseReceiver,
    LocalName,
    LocalType,
    CallbackFunction,
    CallbackArrow,
    AliasName,
    AliasType,
    PackageName,
    ImplType,
    ImplTrait,
}

const PARTS: usize = Part::ImplTrait as usize + 1;

enum Role {
    /// An outer capture; `None` for a name outside the vocabulary, whose
    /// matches are ignored.
    Outer(Option<Outer>),
    Part(Part),
    /// `@_helpers` for predicates, and inner names outside the vocabulary.
    Ignored,
}

/// The capture vocabulary, looked up once per query by capture index: every
/// bare identifier is a match, so matching compares no strings.
pub(crate) struct Vocabulary {
    captures: Vec<Role>,
}

impl Vocabulary {
    pub(crate) fn new(query: &Query) -> Self {
        let captures = query.capture_names().iter().map(|name| capture(name)).collect();
        Vocabulary { captures }
    }
}

fn capture(name: &str) -> Role {
    let outer = match name {
        "call" => Some(Outer::Call),
        "new" => Some(Outer::New),
        "import" => Some(Outer::Import),
        "reexport" => Some(Outer::Reexport),
        "use" => Some(Outer::Use),
        "write" => Some(Outer::Write),
        "local" => Some(Outer::Local),
        "callback" => Some(Outer::Callback),
        "alias" => Some(Outer::Alias),
        "package" => Some(Outer::Package),
        "impl" => Some(Outer::Impl),
        _ => None,
    };
    if !name.contains('.') && !name.starts_with('_') {
        return Role::Outer(outer);
    }
    let part = match name {
        "call.name" => Part::CallName,
        "call.receiver" => Part::CallReceiver,
        "call.arguments" => Part::CallArguments,
        "import.source" => Part::ImportSource,
        "import.default" => Part::ImportDefault,
        "import.alias" => Part::ImportAlias,
        "import.wildcard" => Part::ImportWildcard,
        "import.name" => Part::ImportName,
        "use.name" => Part::UseName,
        "use.receiver" => Part::UseReceiver,
        "local.name" => Part::LocalName,
        "local.type" => Part::LocalType,
        "callback.function" => Part::CallbackFunction,
        "callback.arrow" => Part::CallbackArrow,
        "alias.name" => Part::AliasName,
        "alias.type" => Part::AliasType,
        "package.name" => Part::PackageName,
        "impl.type" => Part::ImplType,
        "impl.trait" => Part::ImplTrait,
        _ => return Role::Ignored,
    };
    Role::Part(part)
}

/// A use as found, before duplicates are dropped: its strings still borrow
/// the file, so the many repeated ones are never copied.
struct Found<'t> {
    /// The start of its name node.
    at: u32,
    user: Option<usize>,
    name: &'t str,
    receiver: Option<Cow<'t, str>>,
    write: bool,
    span: fathom_model::Span,
}

/// The matches of the reference patterns, kept until the definitions they
/// refer to are known: their captures in one flat list.
#[derive(Default)]
pub(crate) struct Matches<'t> {
    captures: Vec<(u32, Node<'t>)>,
    /// Where each match's captures end.
    ends: Vec<usize>,
}

impl<'t> Matches<'t> {
    pub(crate) fn add(&mut self, captures: &[Capture<'t>]) {
        self.captures.extend_from_slice(captures);
        self.ends.push(self.captures.len());
    }

    fn iter(&self) -> impl Iterator<Item = &[(u32, Node<'t>)]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(self.ends.iter().copied()).map(|(start, end)| &self.captures[start..end])
    }
}

/// How many arguments a call's argument list holds: its named children,
/// less any comments among them. Walking the children costs some 2,800
/// instructions a call, so it is done only where a comment is.
fn arguments(args: Node<'_>, marks: &Marks) -> u32 {
    if !marks.has_comment_in(args) {
        return args.named_child_count() as u32;
    }
    let mut c = args.walk();
    args.named_children(&mut c).filter(|a| !is_comment(a.kind())).count() as u32
}

/// The file's names and receivers, each spelled once: [`FileFacts::names`].
/// Keyed by names from the file: a hasher with random keys, so a hostile
/// file cannot choose names that collide.
#[derive(Default)]
struct Names<'t> {
    ids: HashMap<Cow<'t, str>, Name, ahash::RandomState>,
    spelled: Vec<String>,
}

impl<'t> Names<'t> {
    fn id(&mut self, name: Cow<'t, str>) -> Name {
        if let Some(&id) = self.ids.get(name.as_ref()) {
            return id;
        }
        let id = Name(self.spelled.len() as u32);
        self.spelled.push(name.as_ref().to_owned());
        self.ids.insert(name, id);
        id
    }
}

pub(crate) fn extract(
    vocabulary: &Vocabulary,
    matches: &Matches<'_>,
    text: &str,
    scopes: &Scopes,
    marks: &Marks,
    facts: &mut FileFacts,
) {
    let declared: FxHashSet<u32> = facts.definitions.iter().map(|d| d.name_span.start_byte).collect();
    // A write target is not also a read.
    let mut uses: Vec<Found<'_>> = Vec::new();
    let mut names = Names::default();
    let mut imported: Vec<Node<'_>> = Vec::new();
    for captures in matches.iter() {
        let mut outer: Option<(Option<Outer>, Node<'_>)> = None;
        let mut parts: [Option<Node<'_>>; PARTS] = [None; PARTS];
        imported.clear();
        for &(index, node) in captures {
            match vocabulary.captures[index as usize] {
                Role::Outer(kind) => {
                    outer.get_or_insert((kind, node));
                }
                Role::Part(Part::ImportName) => imported.push(node),
                Role::Part(part) => {
                    parts[part as usize].get_or_insert(node);
                }
                Role::Ignored => {}
            }
        }
        let Some((Some(outer), node)) = outer else { continue };
        let part = |part: Part| parts[part as usize];
        let span = span_of(node);
        match outer {
            Outer::Call | Outer::New => {
                let Some(name) = part(Part::CallName) else { continue };
                let arguments = part(Part::CallArguments).map_or(0, |args| arguments(args, marks));
                facts.calls.push(CallSite {
                    caller: scopes.innermost(span.start_byte, &facts.definitions),
                    name: names.id(Cow::Borrowed(node_text(name, text))),
                    receiver: part(Part::CallReceiver).map(|r| names.id(collapsed(node_text(r, text)))),
                    arguments,
                    instantiates: outer == Outer::New,
                    span,
                });
            }
            Outer::Import | Outer::Reexport => {
                let Some(source) = part(Part::ImportSource) else { continue };
                let source = unquote(node_text(source, text));
                let default = part(Part::ImportDefault).map(|n| node_text(n, text).to_owned());
                let alias = part(Part::ImportAlias).map(|n| node_text(n, text).to_owned()).or(default.clone());
                let wildcard = part(Part::ImportWildcard).is_some();
                let mut names: Vec<Option<String>> =
                    imported.iter().map(|&n| Some(node_text(n, text).to_owned())).collect();
                if names.is_empty() {
                    names.push(default.map(|_| "default".to_owned()));
                }
                for name in names {
                    facts.imports.push(Import {
                        source: source.clone(),
                        name,
                        alias: alias.clone(),
                        wildcard,
                        reexport: outer == Outer::Reexport,
                        span,
                    });
                }
            }
            Outer::Use | Outer::Write => {
                let explicit = part(Part::UseName);
                let name_node = explicit.unwrap_or(node);
                let at = name_node.start_byte() as u32;
                if declared.contains(&at) || (explicit.is_none() && marks.is_member(node)) {
                    continue;
                }
                uses.push(Found {
                    at,
                    user: scopes.innermost(span.start_byte, &facts.definitions),
                    name: node_text(name_node, text),
                    receiver: part(Part::UseReceiver).map(|r| collapsed(node_text(r, text))),
                    write: outer == Outer::Write,
                    span,
                });
            }
            Outer::Local => {
                let (Some(name), Some(type_node)) = (part(Part::LocalName), part(Part::LocalType)) else { continue };
                // `x = make()` is typed by what `make` returns, which only resolution knows.
                let called = parent_under(node, type_node)
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
            Outer::Callback => {
                let (Some(callee), Some(function)) = (part(Part::CallbackFunction), part(Part::CallbackArrow)) else {
                    continue;
                };
                let scope = scopes.innermost(span.start_byte, &facts.definitions);
                facts.locals.extend(callback_parameters(node, callee, function, text, scope));
            }
            Outer::Alias => {
                let (Some(name), Some(written)) = (part(Part::AliasName), part(Part::AliasType)) else { continue };
                facts.aliases.push(TypeAlias {
                    name: node_text(name, text).to_owned(),
                    written: collapse(node_text(written, text)),
                    span,
                });
            }
            Outer::Package => {
                if let Some(name) = part(Part::PackageName) {
                    facts.package.get_or_insert_with(|| collapse(node_text(name, text)));
                }
            }
            Outer::Impl => {
                let (Some(type_node), Some(base)) = (part(Part::ImplType), part(Part::ImplTrait)) else { continue };
                facts.impls.push(Implementation {
                    type_name: bare_type(node_text(type_node, text)),
                    base: BaseRef {
                        name: bare_type(node_text(base, text)),
                        kind: BaseKind::Implements,
                        span: span_of(base),
                    },
                });
            }
        }
    }
    let written: FxHashSet<u32> = uses.iter().filter(|u| u.write).map(|u| u.at).collect();
    // Two uses are the same when user, name, receiver and writing agree: the
    // names are interned first, so the set compares their ids, and each
    // string is hashed once, by the interner.
    let mut seen: FxHashSet<(Option<usize>, Name, Option<Name>, bool)> = FxHashSet::default();
    for u in uses.iter().filter(|u| u.write || !written.contains(&u.at)) {
        let name = names.id(Cow::Borrowed(u.name));
        let receiver = u.receiver.clone().map(|r| names.id(r));
        if seen.insert((u.user, name, receiver, u.write)) {
            facts.uses.push(Use { user: u.user, name, receiver, write: u.write, span: u.span });
        }
    }
    facts.names = names.spelled;
}

/// `node`'s parent, found from `ancestor` (its match's outer node) down:
/// tree-sitter's own `parent()` walks down from the root of the file, which
/// costs as much as the file is deep and wide (a sixth of extracting
/// references, on Django). That walk is left for a node outside `ancestor`.
fn parent_under<'t>(ancestor: Node<'t>, node: Node<'t>) -> Option<Node<'t>> {
    let mut at = ancestor;
    loop {
        let Some(next) = at.child_with_descendant(node) else { return node.parent() };
        if next.id() == node.id() {
            return Some(at);
        }
        at = next;
    }
}

/// The untyped parameters of a function passed as an argument, each typed
/// by its position in the callee's declared parameter (`operate(fn)`).
fn callback_parameters(
    outer: Node<'_>,
    callee: Node<'_>,
    function: Node<'_>,
    text: &str,
    scope: Option<usize>,
) -> Vec<Local> {
    let Some(arguments) = parent_under(outer, function) else { return Vec::new() };
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
        parameters.named_children(&mut cursor).filter(|p| !is_comment(p.kind())).collect()
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
