//! Turning the matches of a language's `definitions.scm` into [`Definition`]s.
//!
//! Capture vocabulary (see `queries/README.md`):
//! - `@definition.<kind>` marks the definition node; a bare `@definition`
//!   only adds facts to a definition another pattern marks;
//! - `@name`, `@parameters`, `@return_type`, `@body`, `@type`, `@owner`;
//! - `@modifiers`, `@decorator`, `@base.inherits`, `@base.implements`, any
//!   number of times;
//! - `@declaration`, on the definition node: it declares, and is defined
//!   elsewhere.
//!
//! Several patterns may match one node; their facts are merged by node.

use std::collections::HashSet;

use fathom_model::{BaseKind, BaseRef, ClassKind, Decorator, Definition, Parameter, Span, SymbolKind};
use rustc_hash::FxHashMap;
use tree_sitter::{Node, Query};

use crate::order::Capture;
use crate::profile::{Docstrings, Profile, TestContext};
use crate::text::{bare_type, collapse, collapse_to, comment_body, split_decorator, unquote};

/// Everything the patterns said about one definition node.
#[derive(Default)]
pub(crate) struct Found<'t> {
    kind: Option<String>,
    node: Option<Node<'t>>,
    name: Option<Node<'t>>,
    parameters: Option<Node<'t>>,
    return_type: Option<Node<'t>>,
    body: Option<Node<'t>>,
    type_node: Option<Node<'t>>,
    owner: Option<Node<'t>>,
    modifiers: Vec<Node<'t>>,
    decorators: Vec<Node<'t>>,
    bases: Vec<(BaseKind, Node<'t>)>,
    declaration: bool,
}

/// What a found definition becomes once its enclosing definitions are known.
enum Role {
    Keep {
        kind: SymbolKind,
        class_kind: Option<ClassKind>,
        constructor: bool,
    },
    /// A local variable: not a graph node.
    Drop,
}

/// Turns what a [`Collector`] found into definitions, nested by span.
/// `text` is what was parsed; `written`, the file as written (they differ
/// where C and C++ were preprocessed, at the same offsets), counts lines of
/// code: a blanked branch or directive is still a line a reader reads.
pub(crate) fn extract<'t>(
    profile: &Profile,
    found: Vec<Found<'t>>,
    wrapped: &Wrapped<'t>,
    text: &str,
    written: &str,
    path: &str,
    reserved: &HashSet<String>,
) -> Vec<Definition> {
    let mut spans: Vec<(Span, usize)> =
        found.iter().enumerate().map(|(at, f)| (span_of(wrapped.outer(f.node.expect("set"))), at)).collect();
    spans.sort_by_key(|(span, _)| (span.start_byte, std::cmp::Reverse(span.end_byte)));

    // Nest by span: each definition's parent is the innermost one around it.
    let mut out: Vec<Definition> = Vec::with_capacity(found.len());
    let mut open: Vec<usize> = Vec::new();
    let mut seen_fields: HashSet<(Option<usize>, String)> = HashSet::new();
    let declares_only = profile.declaration_files.iter().any(|suffix| path.ends_with(suffix));
    for (span, at) in spans {
        let f = &found[at];
        while open.last().is_some_and(|&o| out[o].span.end_byte < span.end_byte) {
            open.pop();
        }
        let parent = open.last().copied();
        let name_node = unspecialised(f.name.expect("set"));
        let name = if name_node.kind().contains("string") {
            unquote(node_text(name_node, text))
        } else if name_node.kind() == "operator_cast" {
            // C++'s conversion operator is named by the type it converts
            // to, not by its parameters and qualifiers: `operator bool`.
            let to = name_node.child_by_field_name("type").map_or("", |t| node_text(t, text));
            format!("operator {}", collapse(to))
        } else {
            node_text(name_node, text).to_owned()
        };
        // A name that error recovery made up (a missing identifier, or a
        // keyword read as one: `if (…) {…}` as a function named `if`) names
        // nothing.
        if name.trim().is_empty() || reserved.contains(&name) {
            continue;
        }
        let kind_name = f.kind.as_deref().expect("set");
        let (parent, role) = role(kind_name, parent, &out, f.owner.is_some());
        let Role::Keep { kind, class_kind, constructor } = role else { continue };
        // A declaration inside a function is the function's own (a local
        // prototype, or C++'s `Widget w(size);` read as one): not a symbol.
        if f.declaration && parent.is_some_and(|p| out[p].kind.is_callable()) {
            continue;
        }
        let forced_test = kind_name == "test";
        if kind == SymbolKind::Field && !seen_fields.insert((parent, name.clone())) {
            continue;
        }
        let mut definition = Definition::new(kind, name, parent, span);
        definition.class_kind = class_kind;
        definition.name_span = span_of(name_node);
        definition.owner = f.owner.map(|o| bare_type(node_text(o, text)));
        definition.declaration = declares_only || f.declaration;
        fill(&mut definition, f, wrapped, profile, text, written, open.len());
        let class = enclosing_class(&out, parent).map(|c| (out[c].name.as_str(), out[c].bases.as_slice()));
        definition.is_constructor = constructor
            || (kind == SymbolKind::Method
                && class.is_some_and(|(class, _)| (profile.is_constructor)(&definition.name, class)));
        definition.is_test = forced_test
            || (profile.is_test)(&TestContext {
                path,
                name: &definition.name,
                kind,
                decorators: &definition.decorators,
                bases: &definition.bases,
                class,
            });
        if kind != SymbolKind::Field && kind != SymbolKind::GlobalVariable {
            open.push(out.len());
        }
        out.push(definition);
    }
    out
}

/// Gathers the matches of the definition patterns, merging the facts of
/// every pattern that matched one node.
pub(crate) struct Collector<'q, 't> {
    names: &'q [&'q str],
    index: FxHashMap<usize, usize>,
    found: Vec<Found<'t>>,
}

impl<'q, 't> Collector<'q, 't> {
    pub(crate) fn new(query: &'q Query) -> Self {
        Collector { names: query.capture_names(), index: FxHashMap::default(), found: Vec::new() }
    }

    pub(crate) fn add(&mut self, captures: &[Capture<'t>]) {
        let names = self.names;
        let Some(&(_, target)) = captures.iter().find(|(c, _)| names[*c as usize].starts_with("definition")) else {
            return;
        };
        let found = &mut self.found;
        let at = *self.index.entry(target.id()).or_insert_with(|| {
            found.push(Found { node: Some(target), ..Found::default() });
            found.len() - 1
        });
        let f = &mut found[at];
        for &(index, node) in captures {
            match names[index as usize] {
                "definition" => {}
                kind if kind.starts_with("definition.") => {
                    // A node that is both a variable and a function is a function.
                    let kind = &kind["definition.".len()..];
                    let weak = |k: &str| matches!(k, "field" | "global");
                    if f.kind.as_deref().is_none_or(|old| weak(old) && !weak(kind)) {
                        f.kind = Some(kind.to_owned());
                    }
                }
                "name" => f.name = f.name.or(Some(node)),
                "parameters" => f.parameters = f.parameters.or(Some(node)),
                "return_type" => f.return_type = f.return_type.or(Some(node)),
                "body" => f.body = f.body.or(Some(node)),
                "type" => f.type_node = f.type_node.or(Some(node)),
                "owner" => f.owner = f.owner.or(Some(node)),
                "declaration" => f.declaration = true,
                "modifiers" => push_unique(&mut f.modifiers, node),
                "decorator" => push_unique(&mut f.decorators, node),
                "base.inherits" => push_base(&mut f.bases, BaseKind::Inherits, node),
                "base.implements" => push_base(&mut f.bases, BaseKind::Implements, node),
                _ => {} // `@_helpers` for predicates
            }
        }
    }

    pub(crate) fn finish(mut self) -> Vec<Found<'t>> {
        self.found.retain(|f| f.kind.is_some() && f.name.is_some());
        self.found
    }
}

fn push_unique<'t>(nodes: &mut Vec<Node<'t>>, node: Node<'t>) {
    if !nodes.iter().any(|n| n.id() == node.id()) {
        nodes.push(node);
    }
}

fn push_base<'t>(bases: &mut Vec<(BaseKind, Node<'t>)>, kind: BaseKind, node: Node<'t>) {
    if !bases.iter().any(|(_, n)| n.id() == node.id()) {
        bases.push((kind, node));
    }
}

/// A specialisation's name without its arguments: C++'s
/// `struct hash<json>` and `struct std::hash<json>` are named `hash`, as the
/// template they specialise is.
fn unspecialised(mut node: Node<'_>) -> Node<'_> {
    loop {
        match node.kind() {
            "template_type" => match node.child_by_field_name("name") {
                Some(name) => node = name,
                None => return node,
            },
            "qualified_identifier" => match node.child_by_field_name("name") {
                Some(name) if name.kind() == "template_type" => node = name,
                _ => return node,
            },
            _ => return node,
        }
    }
}

/// Decides what a capture kind becomes where it was found, and under which parent.
fn role(kind: &str, parent: Option<usize>, out: &[Definition], has_owner: bool) -> (Option<usize>, Role) {
    let parent_kind = parent.map(|p| out[p].kind);
    let keep = |kind, class_kind, constructor| Role::Keep { kind, class_kind, constructor };
    if let Some(class_kind) = ClassKind::from_name(kind) {
        return (parent, keep(SymbolKind::Class, Some(class_kind), false));
    }
    match kind {
        "function" | "method" | "test" if has_owner || parent_kind == Some(SymbolKind::Class) => {
            (parent, keep(SymbolKind::Method, None, false))
        }
        "function" | "method" | "test" => (parent, keep(SymbolKind::Function, None, false)),
        "constructor" => (parent, keep(SymbolKind::Method, None, true)),
        "package" => (parent, keep(SymbolKind::Package, None, false)),
        "annotation" => (parent, keep(SymbolKind::Annotation, None, false)),
        // An instance field may be assigned inside a method: it belongs to the class.
        "field" => match enclosing_class(out, parent) {
            Some(class) => (Some(class), keep(SymbolKind::Field, None, false)),
            None if parent.is_none() => (None, keep(SymbolKind::GlobalVariable, None, false)),
            None => (parent, Role::Drop),
        },
        "global" => match parent_kind {
            None | Some(SymbolKind::Package) => (parent, keep(SymbolKind::GlobalVariable, None, false)),
            Some(SymbolKind::Class) => (parent, keep(SymbolKind::Field, None, false)),
            Some(_) => (parent, Role::Drop),
        },
        _ => (parent, Role::Drop),
    }
}

fn enclosing_class(out: &[Definition], mut at: Option<usize>) -> Option<usize> {
    while let Some(i) = at {
        if out[i].kind == SymbolKind::Class {
            return Some(i);
        }
        at = out[i].parent;
    }
    None
}

/// Definitions nested deeper than this get no leading-comment docstring:
/// finding a node's previous sibling costs tree-sitter a walk down from the
/// root, so 5,000 functions nested one in the next took seconds for it alone.
const MAX_DOCSTRING_NESTING: usize = 64;

/// `text` is what was parsed, `written` the file as written ([`extract`]).
fn fill<'t>(
    d: &mut Definition,
    f: &Found<'t>,
    wrapped: &Wrapped<'t>,
    profile: &Profile,
    text: &str,
    written: &str,
    nesting: usize,
) {
    let node = f.node.expect("set");
    d.signature = Some(signature(node, f.body, text));
    d.parameters = f.parameters.map(|p| parameters(p, profile, text)).unwrap_or_default();
    d.return_type = f.return_type.map(|n| type_text(node_text(n, text)));
    d.type_name = f.type_node.map(|n| type_text(node_text(n, text)));
    d.modifiers = modifiers(&f.modifiers, text);
    d.visibility = (profile.visibility)(&d.name, &d.modifiers);
    d.decorators = f
        .decorators
        .iter()
        .map(|&n| {
            let (name, arguments) = split_decorator(node_text(n, text));
            Decorator { name, arguments, span: span_of(n) }
        })
        .collect();
    d.bases = f
        .bases
        .iter()
        .map(|&(kind, n)| BaseRef { name: bare_type(node_text(n, text)), kind, span: span_of(n) })
        .filter(|b| !b.name.is_empty())
        .collect();
    let leading = matches!(profile.docstrings, Docstrings::LeadingComments);
    if nesting <= MAX_DOCSTRING_NESTING || !leading {
        d.docstring = docstring(profile, wrapped, node, f.body, text);
    }
    let source = &written[d.span.start_byte as usize..d.span.end_byte as usize];
    d.loc = fathom_model::count_lines(source).code;
}

/// The declaration up to its body, or its first line without one.
fn signature(node: Node<'_>, body: Option<Node<'_>>, text: &str) -> String {
    let start = node.start_byte();
    let end = match body {
        Some(body) if body.start_byte() > start => body.start_byte(),
        _ => text[start..node.end_byte()].find('\n').map_or(node.end_byte(), |at| start + at),
    };
    let head = collapse_to(&text[start..end], 300);
    head.trim_end_matches([':', '{', ' ']).trim_end().to_owned()
}

fn parameters(list: Node<'_>, profile: &Profile, text: &str) -> Vec<Parameter> {
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|p| !profile.comments.contains(&p.kind()))
        .map(|p| {
            let name = ["name", "pattern", "declarator"]
                .iter()
                .find_map(|field| p.child_by_field_name(field))
                .or_else(|| p.kind().contains("identifier").then_some(p))
                .or_else(|| first_identifier(p))
                .map(|n| collapse(node_text(n, text)).trim_start_matches(['*', '&', '$', ' ']).to_owned());
            let type_name = p.child_by_field_name("type").map(|t| type_text(node_text(t, text)));
            Parameter { text: collapse(node_text(p, text)), name, type_name }
        })
        .filter(|p| !profile.implicit_parameters.contains(&p.text.as_str()))
        .collect()
}

fn first_identifier(node: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).find(|c| c.kind().ends_with("identifier"))
}

/// A written type without the `:` or `->` that introduces it.
fn type_text(text: &str) -> String {
    collapse(text.trim().trim_start_matches(':').trim_start_matches("->").trim())
}

fn modifiers(nodes: &[Node<'_>], text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for &node in nodes {
        let mut cursor = node.walk();
        let parts: Vec<Node<'_>> =
            if node.child_count() == 0 { vec![node] } else { node.children(&mut cursor).collect() };
        for part in parts {
            let kind = part.kind();
            if kind.contains("annotation") || kind.contains("attribute") || kind.contains("decorator") {
                continue;
            }
            for word in node_text(part, text).split_whitespace() {
                if !out.iter().any(|w| w == word) {
                    out.push(word.to_owned());
                }
            }
        }
    }
    out
}

fn docstring<'t>(
    profile: &Profile,
    wrapped: &Wrapped<'t>,
    node: Node<'t>,
    body: Option<Node<'t>>,
    text: &str,
) -> Option<String> {
    let doc = match profile.docstrings {
        Docstrings::FirstStringInBody => {
            let first = body?.named_child(0)?;
            let string = if first.kind() == "expression_statement" { first.named_child(0)? } else { first };
            (string.kind() == "string").then(|| unquote(node_text(string, text)))?
        }
        Docstrings::LeadingComments => {
            let mut comments = Vec::new();
            let outer = wrapped.outer(node);
            let mut line = outer.start_position().row;
            let mut previous = outer.prev_sibling();
            // Attributes (`#[derive]`) may stand between a doc comment and its item.
            while let Some(p) = previous.filter(|p| p.kind().contains("attribute")) {
                line = p.start_position().row;
                previous = p.prev_sibling();
            }
            while let Some(p) = previous.filter(|p| profile.comments.contains(&p.kind())) {
                if p.end_position().row + 1 < line {
                    break;
                }
                comments.push(comment_body(node_text(p, text)));
                line = p.start_position().row;
                previous = p.prev_sibling();
            }
            comments.reverse();
            comments.join("\n")
        }
    };
    let doc = doc.trim();
    (!doc.is_empty()).then(|| collapse_to(doc, 2000))
}

/// The wrappers of definitions ([`Profile::wrappers`]: Python's decorators,
/// JavaScript's `export`), by the id of each one's children: a wrapped
/// definition's span is its wrapper's. The wrappers come from a pattern of
/// their own in the query's one pass ([`wrapper_patterns`]): asking each
/// definition for its parent cost more than the rest of its extraction, as
/// tree-sitter finds a node's parent by descending from the root.
#[derive(Default)]
pub(crate) struct Wrapped<'t> {
    by_child: FxHashMap<usize, Node<'t>>,
}

impl<'t> Wrapped<'t> {
    pub(crate) fn add(&mut self, wrapper: Node<'t>) {
        let mut cursor = wrapper.walk();
        for child in wrapper.children(&mut cursor) {
            self.by_child.insert(child.id(), wrapper);
        }
    }

    /// The node whose span is the definition's: its parent if that is a
    /// wrapper, else itself.
    fn outer(&self, node: Node<'t>) -> Node<'t> {
        self.by_child.get(&node.id()).copied().unwrap_or(node)
    }
}

/// The pattern that finds a language's wrappers, `[(a) (b)] @wrapper`, or
/// nothing for a language without them.
pub(crate) fn wrapper_patterns(profile: &Profile, grammar: &tree_sitter::Language) -> String {
    let kinds: Vec<String> = profile
        .wrappers
        .iter()
        .filter(|kind| grammar.id_for_node_kind(kind, true) != 0)
        .map(|kind| format!("({kind})"))
        .collect();
    if kinds.is_empty() { String::new() } else { format!("[{}] @wrapper\n", kinds.join(" ")) }
}

pub(crate) fn node_text<'s>(node: Node<'_>, text: &'s str) -> &'s str {
    &text[node.start_byte()..node.end_byte()]
}

pub(crate) fn span_of(node: Node<'_>) -> Span {
    let (start, end) = (node.start_position(), node.end_position());
    // A node that ends at column 0 ends with the previous line's newline.
    let end_row = if end.column == 0 && end.row > start.row { end.row - 1 } else { end.row };
    Span {
        start_line: start.row as u32 + 1,
        end_line: end_row as u32 + 1,
        start_byte: node.start_byte() as u32,
        end_byte: node.end_byte() as u32,
    }
}
