//! Code navigation for the code view: highlighting, go-to-definition and
//! find-references.
//!
//! Go-to-definition reads the graph first: the resolver already decided,
//! with a confidence and a reason, what each call, use, import, base and
//! decorator at a line refers to. Names are the fallback, ranked below
//! every edge, for the places the resolver records nothing (a type in an
//! annotation, a name passed as a value).

use std::collections::HashMap;

use fathom_graph::{CodeGraph, EdgeKind, FileId, Node, NodeId, Reason};
use fathom_model::{Language, SymbolKind};
use fathom_parse::utf16_len;
use fathom_query::QueryError;
use serde::Serialize;

use crate::Index;

pub use fathom_parse::highlight::{CLASSES as HIGHLIGHT_CLASSES, MAX_HIGHLIGHT_BYTES, MAX_HIGHLIGHT_SPANS};
pub use fathom_parse::{Highlights, IdentifierAt};

/// Name lookups give up above this many candidates, as the resolver does:
/// a longer list is noise, not an answer.
const MAX_CANDIDATES: usize = 8;

/// The edges go-to-definition follows out of the symbols around the cursor.
const OUTGOING: [EdgeKind; 5] =
    [EdgeKind::Calls, EdgeKind::Uses, EdgeKind::Inherits, EdgeKind::Implements, EdgeKind::Imports];

/// The edges whose source refers to their target by name. `DECORATES` is
/// not among them: it runs from the decorator to what it decorates, so a
/// decorator's references are its outgoing `DECORATES` edges.
/// The edges a reference is: what refers to a symbol.
pub(crate) const REFERRING: [EdgeKind; 6] =
    [EdgeKind::Calls, EdgeKind::Uses, EdgeKind::Inherits, EdgeKind::Implements, EdgeKind::Imports, EdgeKind::Overrides];

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NavError {
    #[error("no indexed file at `{0}`")]
    UnknownFile(String),
}

/// How a definition was found, from most to least certain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FoundBy {
    /// The cursor is on the definition's own name.
    Definition,
    /// A resolved edge from the symbol around the cursor, at the cursor's
    /// line (or, failing that, elsewhere in the same symbol).
    Edge,
    /// A lookup of the name: in the file, in what it imports, in the
    /// repository.
    Name,
}

/// A definition that the identifier under a position may mean.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Definition {
    /// The qualified name.
    pub symbol: String,
    pub name: String,
    pub kind: SymbolKind,
    /// `None` for symbols outside the archive.
    pub file: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    pub is_external: bool,
    pub found_by: FoundBy,
    /// The edge that was followed, for [`FoundBy::Edge`].
    pub edge_type: Option<EdgeKind>,
    /// The line of that edge, when it has one.
    pub edge_line: Option<u32>,
    /// The edge's reason, or the tier of a name lookup (`same-file`,
    /// `import-resolved`, `unique-name`, `ambiguous-name`); `syntax` for a
    /// definition's own name.
    pub reason: Reason,
    pub confidence: f32,
}

/// A place that refers to a symbol.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reference {
    /// The symbol referred to: the one asked for, one of its overloads, or
    /// a constructor of the class asked for.
    pub symbol: String,
    /// The qualified name of the symbol whose code holds the reference
    /// (its module, for top-level code).
    pub from: String,
    pub from_kind: SymbolKind,
    pub file: String,
    /// 1-based. Edges that record no line (`INHERITS`, `IMPLEMENTS`,
    /// `OVERRIDES`) are placed where the referring symbol first writes the
    /// name, else at its first line.
    pub line: u32,
    /// Where the name is written on that line, in UTF-16 units, when it is.
    pub column: Option<u32>,
    #[serde(rename = "type")]
    pub edge_type: EdgeKind,
    pub confidence: f32,
    pub reason: Reason,
}

impl Index {
    /// The classed spans of an indexed file (see [`Highlights`]); `None`
    /// when no file has that path.
    pub fn highlight(&self, path: &str) -> Option<Highlights> {
        let at = *self.by_path.get(path)?;
        let language = self.graph.file(FileId(at)).language;
        Some(fathom_parse::highlight(language, &self.texts[at as usize]))
    }

    /// The identifier at a position of an indexed file (`line` 1-based,
    /// `column` in UTF-16 units), if any.
    pub fn identifier_at(&self, path: &str, line: u32, column: u32) -> Result<Option<IdentifierAt>, NavError> {
        let at = *self.by_path.get(path).ok_or_else(|| NavError::UnknownFile(path.to_owned()))?;
        let language = self.graph.file(FileId(at)).language;
        Ok(fathom_parse::identifier_at(language, &self.texts[at as usize], line, column))
    }

    /// What the identifier at a position refers to, best first; several when
    /// it is ambiguous, none when the position holds no identifier or nothing
    /// is found. In order, the first that finds anything answers:
    /// 1. the cursor is on a definition's own name: that definition;
    /// 2. the graph's edges (calls, uses, bases, imports, decorators) at
    ///    that line from the innermost symbol around it, then from the
    ///    symbols that contain it, whose other end bears the name; then the
    ///    same edges at other lines of the innermost symbol (confidence ×
    ///    0.9);
    /// 3. the name, in the same language family: definitions in the same
    ///    file (confidence 0.6, shared among them), then those that the
    ///    file imports or that its imported modules hold (0.5, shared),
    ///    then a unique name in the repository (0.4) or up to eight
    ///    namesakes (0.3, shared). Definitions local to a function are
    ///    only found from their own file.
    pub fn definition_at(&self, path: &str, line: u32, column: u32) -> Result<Vec<Definition>, NavError> {
        let Some(identifier) = self.identifier_at(path, line, column)? else {
            return Ok(Vec::new());
        };
        let file = FileId(self.by_path[path]);
        let text = &self.texts[file.0 as usize];
        let mut lookup = Lookup { graph: &self.graph, text, file, identifier: &identifier, aliased: None };
        lookup.aliased = lookup.aliased_name();
        if let Some(id) = lookup.defined_here() {
            // On a declaration's own name, the definition it declares first.
            let declares = self.graph.outgoing(id).find(|(e, _)| e.kind == EdgeKind::Declares);
            let defined = declares.map(|(edge, definition)| {
                let edge_type = Some((EdgeKind::Declares, None));
                self.definition(definition, FoundBy::Edge, edge_type, Reason::Declared, edge.confidence)
            });
            return Ok(defined
                .into_iter()
                .chain([self.definition(id, FoundBy::Definition, None, Reason::Syntax, 1.0)])
                .collect());
        }
        let mut found = lookup.by_edges();
        if found.is_empty() {
            found = lookup.by_name();
        }
        // A declaration found by name gives way to the definition it
        // declares: go to definition lands on the body, and the
        // declaration is one click away in the symbol panel.
        for candidate in &mut found {
            if let Some(definition) = self.graph.declared(candidate.id) {
                candidate.id = definition;
            }
        }
        // Stable: among equals, the innermost symbol's edges stay first.
        found.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
        let mut seen = std::collections::HashSet::new();
        found.retain(|c| seen.insert(c.id));
        Ok(found
            .into_iter()
            .map(|Candidate { id, found_by, edge, reason, confidence }| {
                self.definition(id, found_by, edge, reason, confidence)
            })
            .collect())
    }

    /// Every place that refers to `symbol`: incoming calls, uses, bases,
    /// imports and overrides, and where a decorator is applied, each with
    /// the referring symbol, its file and line, the edge's type and its
    /// confidence; ordered by file, then line. A class's references include
    /// those of its constructors, since `Foo()` and `new Foo()` resolve to
    /// them. `symbol` is looked up as the typed API does (qualified name,
    /// dotted suffix, unique simple name).
    pub fn references(&self, symbol: &str) -> Result<Vec<Reference>, QueryError> {
        let ids = fathom_query::find_symbol(&self.graph, symbol)?;
        let mut targets = ids.clone();
        for &id in &ids {
            if self.graph.node(id).kind == SymbolKind::Class {
                targets.extend(self.graph.outgoing(id).filter_map(|(edge, member)| {
                    let is_constructor = self.graph.node(member).details.as_ref().is_some_and(|d| d.is_constructor);
                    (edge.kind == EdgeKind::HasMethod && is_constructor).then_some(member)
                }));
            }
        }
        let mut lines = LineIndex::default();
        let mut references = Vec::new();
        for &target in &targets {
            let referring = self.graph.incoming(target).filter(|(edge, _)| REFERRING.contains(&edge.kind));
            let decorated = self.graph.outgoing(target).filter(|(edge, _)| edge.kind == EdgeKind::Decorates);
            for (edge, from) in referring.chain(decorated) {
                let Some(file) = self.graph.node(from).file else { continue };
                let text = &self.texts[file.0 as usize];
                let name = written_name(self.graph.node(target), &self.graph, target);
                let line = edge.line.unwrap_or_else(|| first_line_naming(self.graph.node(from), text, name));
                references.push(Reference {
                    symbol: self.graph.node(target).qualified_name.clone(),
                    from: self.graph.node(from).qualified_name.clone(),
                    from_kind: self.graph.node(from).kind,
                    file: self.graph.file(file).path.clone(),
                    line,
                    column: lines.column_of(file, text, line, name),
                    edge_type: edge.kind,
                    confidence: round2(edge.confidence),
                    reason: edge.reason,
                });
            }
        }
        references.sort_by(|a, b| {
            (&a.file, a.line, a.column, &a.from, a.edge_type).cmp(&(&b.file, b.line, b.column, &b.from, b.edge_type))
        });
        references.dedup_by(|a, b| (&a.file, a.line, &a.from, a.edge_type) == (&b.file, b.line, &b.from, b.edge_type));
        Ok(references)
    }

    fn definition(
        &self,
        id: NodeId,
        found_by: FoundBy,
        edge: Option<(EdgeKind, Option<u32>)>,
        reason: Reason,
        confidence: f32,
    ) -> Definition {
        let node = self.graph.node(id);
        Definition {
            symbol: node.qualified_name.clone(),
            name: node.name.clone(),
            kind: node.kind,
            file: self.graph.path_of(id).map(str::to_owned),
            start_line: node.span.start_line,
            end_line: node.span.end_line,
            is_external: node.is_external,
            found_by,
            edge_type: edge.map(|(kind, _)| kind),
            edge_line: edge.and_then(|(_, line)| line),
            reason,
            confidence: round2(confidence),
        }
    }
}

/// A definition go-to-definition may answer, before it is cited.
struct Candidate {
    id: NodeId,
    found_by: FoundBy,
    edge: Option<(EdgeKind, Option<u32>)>,
    reason: Reason,
    confidence: f32,
}

/// One go-to-definition request: the identifier and the file it is in.
struct Lookup<'a> {
    graph: &'a CodeGraph,
    text: &'a str,
    file: FileId,
    identifier: &'a IdentifierAt,
    /// The name the identifier stands for when an import renamed it
    /// (`import discount as apply_discount`).
    aliased: Option<&'a str>,
}

impl<'a> Lookup<'a> {
    /// The definitions of this file, modules left out.
    fn local_definitions(&self) -> impl Iterator<Item = (NodeId, &Node)> + '_ {
        self.graph.nodes().filter(|(_, n)| n.file == Some(self.file) && n.kind != SymbolKind::Module)
    }

    /// The definition whose own name is under the cursor: the innermost
    /// definition of that name around it that first writes the name there
    /// (a recursive call writes it again, later).
    fn defined_here(&self) -> Option<NodeId> {
        let at = self.identifier.start_byte;
        self.local_definitions()
            .filter(|(_, n)| {
                n.name == self.identifier.name
                    && n.details.as_ref().is_none_or(|d| d.synthesized.is_none())
                    && (n.span.start_byte as usize) <= at
                    && at < n.span.end_byte as usize
            })
            .filter(|(_, n)| {
                let span = &self.text[n.span.start_byte as usize..n.span.end_byte as usize];
                find_word(span, &n.name) == Some(at - n.span.start_byte as usize)
            })
            .min_by_key(|(_, n)| n.span.end_byte - n.span.start_byte)
            .map(|(id, _)| id)
    }

    /// The innermost definition around the cursor's line, then the ones that
    /// contain it, out to the module.
    fn scopes(&self) -> Vec<NodeId> {
        let line = self.identifier.line;
        let innermost = self
            .local_definitions()
            .filter(|(_, n)| n.span.start_line <= line && line <= n.span.end_line)
            .min_by_key(|(_, n)| n.span.end_byte - n.span.start_byte)
            .map(|(id, _)| id);
        let module = self.graph.file(self.file).module;
        let mut scopes: Vec<NodeId> = std::iter::successors(innermost, |&id| self.graph.parent(id)).collect();
        if !scopes.contains(&module) {
            scopes.push(module);
        }
        scopes
    }

    fn by_edges(&self) -> Vec<Candidate> {
        let line = self.identifier.line;
        let scopes = self.scopes();
        let mut found = Vec::new();
        for (depth, &scope) in scopes.iter().enumerate() {
            let outgoing = self.graph.outgoing(scope).filter(|(e, _)| OUTGOING.contains(&e.kind));
            // A decorator's edge runs to what it decorates, from the decorator.
            let decorators = self.graph.incoming(scope).filter(|(e, _)| e.kind == EdgeKind::Decorates);
            for (edge, other) in outgoing.chain(decorators) {
                // Bases carry no line: they count from the class itself.
                let here = edge.line == Some(line) || (edge.line.is_none() && depth == 0);
                if here && self.names(other) {
                    found.push(Candidate {
                        id: other,
                        found_by: FoundBy::Edge,
                        edge: Some((edge.kind, edge.line)),
                        reason: edge.reason,
                        confidence: edge.confidence,
                    });
                }
            }
        }
        if found.is_empty() {
            // The same name elsewhere in the same symbol most likely means
            // the same thing.
            let scope = scopes[0];
            for (edge, other) in self.graph.outgoing(scope) {
                if OUTGOING.contains(&edge.kind) && edge.kind != EdgeKind::Imports && self.names(other) {
                    found.push(Candidate {
                        id: other,
                        found_by: FoundBy::Edge,
                        edge: Some((edge.kind, edge.line)),
                        reason: edge.reason,
                        confidence: edge.confidence * 0.9,
                    });
                }
            }
        }
        found
    }

    /// Whether `id` is what the identifier names: by its name (or the name
    /// an import alias stands for), a module by its last segment, a
    /// constructor by its class's name.
    fn names(&self, id: NodeId) -> bool {
        let node = self.graph.node(id);
        let is = |name: &str| name == self.identifier.name || self.aliased == Some(name);
        if is(&node.name) || (node.kind == SymbolKind::Module && is(last_segment(&node.name))) {
            return true;
        }
        node.details.as_ref().is_some_and(|d| d.is_constructor)
            && self.graph.parent(id).is_some_and(|class| is(&self.graph.node(class).name))
    }

    /// The name an import of this file renamed to the identifier: an
    /// imported symbol's name followed, on its import's line, by `as` and
    /// the identifier (Python, ECMAScript, Rust, PHP, Kotlin).
    fn aliased_name(&self) -> Option<&'a str> {
        let module = self.graph.file(self.file).module;
        let graph: &'a CodeGraph = self.graph;
        graph.outgoing(module).find_map(|(edge, target)| {
            let line = line_text(self.text, edge.line?)?;
            let original = last_segment(&graph.node(target).name);
            let at = find_word(line, original)?;
            let rest = line[at + original.len()..].trim_start().strip_prefix("as")?;
            let alias = rest.trim_start();
            let renamed = alias.strip_prefix(self.identifier.name.as_str())?;
            let whole = !renamed.chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_');
            (edge.kind == EdgeKind::Imports && rest.starts_with(char::is_whitespace) && whole).then_some(original)
        })
    }

    fn by_name(&self) -> Vec<Candidate> {
        let name = &self.identifier.name;
        let language = self.graph.file(self.file).language;
        let candidate =
            |id, reason, confidence| Candidate { id, found_by: FoundBy::Name, edge: None, reason, confidence };
        let share = |ids: Vec<NodeId>, reason: Reason, confidence: f32| -> Vec<Candidate> {
            if ids.len() > MAX_CANDIDATES {
                return Vec::new();
            }
            let n = ids.len() as f32;
            ids.into_iter().map(|id| candidate(id, reason, confidence / n)).collect()
        };

        let same_file: Vec<NodeId> =
            self.local_definitions().filter(|(_, n)| &n.name == name).map(|(id, _)| id).collect();
        if !same_file.is_empty() {
            return share(same_file, Reason::SameFile, 0.6);
        }

        let module = self.graph.file(self.file).module;
        let mut imported = Vec::new();
        for (edge, target) in self.graph.outgoing(module) {
            if edge.kind != EdgeKind::Imports {
                continue;
            }
            let node = self.graph.node(target);
            if &node.name == name {
                imported.push(target);
            } else if node.kind == SymbolKind::Module && node.file.is_some() {
                imported.extend(
                    self.graph
                        .nodes()
                        .filter(|(id, n)| n.file == node.file && &n.name == name && !self.is_local(*id))
                        .map(|(id, _)| id),
                );
            }
        }
        imported.sort_unstable();
        imported.dedup();
        if !imported.is_empty() {
            return share(imported, Reason::ImportResolved, 0.5);
        }

        let namesakes: Vec<NodeId> = self
            .graph
            .nodes()
            .filter(|(id, n)| {
                &n.name == name
                    && !n.is_external
                    && n.file.is_some()
                    && !matches!(n.kind, SymbolKind::Module | SymbolKind::Package)
                    && same_family(n.language, language)
                    && !self.is_local(*id)
            })
            .map(|(id, _)| id)
            .collect();
        match namesakes.len() {
            1 => vec![candidate(namesakes[0], Reason::UniqueName, 0.4)],
            _ => share(namesakes, Reason::AmbiguousName, 0.3),
        }
    }

    /// Whether a definition is local to a function, and so invisible
    /// outside it.
    fn is_local(&self, id: NodeId) -> bool {
        self.graph.parent(id).is_some_and(|p| self.graph.node(p).kind.is_callable())
    }
}

/// Languages that share names: the families the resolver looks names up in.
fn same_family(a: Language, b: Language) -> bool {
    let family = |l| match l {
        Language::JavaScript | Language::TypeScript | Language::Tsx => Language::JavaScript,
        Language::Java | Language::Kotlin => Language::Java,
        Language::C | Language::Cpp => Language::C,
        other => other,
    };
    family(a) == family(b)
}

/// The last segment of a module's import name (`pkg.calc` → `calc`,
/// `src/utils/math` → `math`).
fn last_segment(name: &str) -> &str {
    name.rsplit(['.', '/', ':', '\\']).find(|s| !s.is_empty()).unwrap_or(name)
}

/// How a reference writes its target: a module by its last segment, a
/// constructor by its class's name where it has no name of its own
/// (`__init__`, `constructor`).
fn written_name<'a>(node: &'a Node, graph: &'a CodeGraph, id: NodeId) -> &'a str {
    if node.kind == SymbolKind::Module {
        return last_segment(&node.name);
    }
    if node.details.as_ref().is_some_and(|d| d.is_constructor)
        && let Some(class) = graph.parent(id)
    {
        return &graph.node(class).name;
    }
    &node.name
}

/// The byte offset of the first occurrence of `word` in `text` as a whole
/// word.
fn find_word(text: &str, word: &str) -> Option<usize> {
    if word.is_empty() {
        return None;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).map(|(at, _)| at).find(|&at| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// The text of a 1-based line.
fn line_text(text: &str, line: u32) -> Option<&str> {
    text.split('\n').nth(line.checked_sub(1)? as usize)
}

/// The line where a definition first writes `name` (its header, for a
/// base class or an overridden method's name), else its first line.
fn first_line_naming(node: &Node, text: &str, name: &str) -> u32 {
    let span = text.get(node.span.start_byte as usize..node.span.end_byte as usize).unwrap_or("");
    match find_word(span, name) {
        Some(at) => node.span.start_line + span[..at].matches('\n').count() as u32,
        None => node.span.start_line,
    }
}

/// Line starts per file, computed once per file that a request touches.
#[derive(Default)]
struct LineIndex {
    starts: HashMap<FileId, Vec<usize>>,
}

impl LineIndex {
    /// The UTF-16 column where `name` is first written, as a whole word, on
    /// `line` of `text`.
    fn column_of(&mut self, file: FileId, text: &str, line: u32, name: &str) -> Option<u32> {
        let starts = self
            .starts
            .entry(file)
            .or_insert_with(|| std::iter::once(0).chain(text.match_indices('\n').map(|(at, _)| at + 1)).collect());
        let start = *starts.get(line.checked_sub(1)? as usize)?;
        let end = starts.get(line as usize).map_or(text.len(), |&next| next);
        let line_text = &text[start..end];
        find_word(line_text, name).map(|at| utf16_len(&line_text[..at]))
    }
}

/// Confidences as the other answers print them: two decimals.
fn round2(x: f32) -> f32 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_only() {
        assert_eq!(find_word("add_all(add)", "add"), Some(8));
        assert_eq!(find_word("padd", "add"), None);
        assert_eq!(find_word("é add", "add"), Some(3));
        assert_eq!(last_segment("pkg.calc"), "calc");
        assert_eq!(last_segment("src/utils/math"), "math");
    }
}
