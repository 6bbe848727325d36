//! Declarations and the definitions they declare (`DECLARES`).
//!
//! A C or C++ prototype, a member declared in its class, an `extern`
//! variable, a TypeScript overload signature or `.d.ts` declaration is a
//! symbol of its own ([`fathom_model::Definition::declaration`]): a reader
//! types its name, and a header is often the only place a library's API is
//! written whole. Here each is linked to the one definition it declares,
//! where the archive holds one:
//! - a member declared in its class, to a member of that class of the same
//!   name that is no declaration (C++'s `Circle::area` defined outside,
//!   attached to `Circle` by its owner);
//! - a member of a declared class (a `.d.ts` class), to the same-named
//!   member of the class that class declares;
//! - otherwise, to a definition of the same name and kind at a file's top
//!   level or in a namespace, in the same language family: not one another
//!   file keeps to itself (`static`).
//!
//! Between several, the same namespace decides first, then the file beside
//! the declaration (the same stem: `jv.h` and `jv.c`, `index.d.ts` and
//! `index.ts`), then the longest common folder, then the same number of
//! parameters; a tie links none, so overloads declared and defined alike
//! stay apart rather than being linked wrongly.
//!
//! A linked declaration then stands aside in the lookup tables: its
//! definition takes its place under its name, in its module and class, so
//! imports, calls and uses resolve to the definition, and the declaration
//! is one `DECLARES` edge away.

use fathom_graph::{Edge, EdgeKind, NodeId, Reason};
use fathom_model::{Definition, SymbolKind};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::tables::{Family, Map};
use crate::{Resolver, SourceFile};

/// A definition a declaration may declare.
struct Candidate<'f> {
    id: NodeId,
    file: usize,
    path: &'f str,
    definition: &'f Definition,
    /// The names of the namespaces around it, outermost first.
    namespace: Vec<&'f str>,
}

impl Resolver<'_, '_> {
    /// Links every declaration to its definition and lets the definition
    /// stand in for it in the tables. Runs after owned methods are attached
    /// (a C++ method defined outside its class is then its class's member)
    /// and before imports are bound.
    pub(crate) fn link_declarations(&mut self) {
        let files = self.files;
        let declared: FxHashSet<NodeId> = files
            .iter()
            .flat_map(|f| f.facts.definitions.iter().zip(&f.nodes.definitions))
            .filter(|(d, _)| d.declaration)
            .map(|(_, &id)| id)
            .collect();
        if declared.is_empty() {
            return;
        }
        let candidates = top_level_candidates(files, &declared);
        let mut stand_in: FxHashMap<NodeId, NodeId> = FxHashMap::default();
        for (index, file) in files.iter().enumerate() {
            let family = Family::of(file.language);
            for (at, definition) in file.facts.definitions.iter().enumerate() {
                if !definition.declaration {
                    continue;
                }
                let id = file.nodes.definitions[at];
                let parent = definition.parent.map(|p| (&file.facts.definitions[p], file.nodes.definitions[p]));
                let found = match parent {
                    Some((class, class_id)) if class.kind == SymbolKind::Class => {
                        let class_id = stand_in.get(&class_id).copied().unwrap_or(class_id);
                        self.member_definition(class_id, definition, &declared)
                    }
                    Some((outer, _)) if outer.kind != SymbolKind::Package => None,
                    _ => {
                        let named = candidates.get(&(family, definition.name.as_str()));
                        best(file, index, definition, &namespace_of(file, at), named.map_or(&[][..], |c| c))
                    }
                };
                if let Some((target, confidence)) = found {
                    self.graph.add_edge(
                        id,
                        target,
                        Edge::inferred(EdgeKind::Declares, confidence, Reason::Declared, None),
                    );
                    stand_in.insert(id, target);
                }
            }
        }
        self.tables.stand_in(&stand_in);
    }

    /// The member of `class` that a member declaration declares.
    fn member_definition(
        &self,
        class: NodeId,
        declaration: &Definition,
        declared: &FxHashSet<NodeId>,
    ) -> Option<(NodeId, f32)> {
        let members = self.tables.members.get(&class)?.get(&declaration.name)?;
        let defined: Vec<NodeId> = members
            .iter()
            .copied()
            .filter(|id| !declared.contains(id) && self.graph.node(*id).kind == declaration.kind)
            .collect();
        match defined[..] {
            [] => None,
            [one] => Some((one, 1.0)),
            _ => {
                let arity = declaration.parameters.len();
                let same: Vec<NodeId> = defined
                    .into_iter()
                    .filter(|&id| self.graph.node(id).details.as_ref().is_some_and(|d| d.parameters.len() == arity))
                    .collect();
                (same.len() == 1).then(|| (same[0], 0.8))
            }
        }
    }
}

/// The definitions, at a file's top level or in a namespace, whose names
/// some declaration has: by family and name.
fn top_level_candidates<'f>(
    files: &'f [SourceFile<'f>],
    declared: &FxHashSet<NodeId>,
) -> Map<(Family, &'f str), Vec<Candidate<'f>>> {
    let wanted: FxHashSet<(Family, &str)> = files
        .iter()
        .flat_map(|f| {
            f.facts.definitions.iter().filter(|d| d.declaration).map(|d| (Family::of(f.language), d.name.as_str()))
        })
        .collect();
    let mut out: Map<(Family, &str), Vec<Candidate<'_>>> = Map::default();
    for (index, file) in files.iter().enumerate() {
        let family = Family::of(file.language);
        for (at, definition) in file.facts.definitions.iter().enumerate() {
            let id = file.nodes.definitions[at];
            let key = (family, definition.name.as_str());
            if declared.contains(&id) || !wanted.contains(&key) {
                continue;
            }
            let in_namespace = definition.parent.is_none_or(|p| file.facts.definitions[p].kind == SymbolKind::Package);
            if in_namespace {
                out.entry(key).or_default().push(Candidate {
                    id,
                    file: index,
                    path: file.path,
                    definition,
                    namespace: namespace_of(file, at),
                });
            }
        }
    }
    out
}

/// The names of the namespaces around definition `at`, outermost first.
fn namespace_of<'f>(file: &SourceFile<'f>, at: usize) -> Vec<&'f str> {
    let definitions = &file.facts.definitions;
    let mut names: Vec<&str> = std::iter::successors(definitions[at].parent, |&p| definitions[p].parent)
        .filter(|&p| definitions[p].kind == SymbolKind::Package)
        .map(|p| definitions[p].name.as_str())
        .collect();
    names.reverse();
    names
}

/// The candidate a top-level declaration declares, and how sure that is.
fn best(
    file: &SourceFile<'_>,
    index: usize,
    declaration: &Definition,
    namespace: &[&str],
    candidates: &[Candidate<'_>],
) -> Option<(NodeId, f32)> {
    let own_stem = stem(file.path);
    let folder = folder_of(file.path);
    let eligible = candidates.iter().filter(|c| {
        c.definition.kind == declaration.kind
            && c.definition.class_kind == declaration.class_kind
            && (c.file == index || !c.definition.modifiers.iter().any(|m| m == "static"))
    });
    let scored: Vec<(NodeId, (bool, bool, usize, bool))> = eligible
        .map(|c| {
            let score = (
                c.namespace == namespace,
                stem(c.path) == own_stem,
                common_folders(folder, folder_of(c.path)),
                c.definition.parameters.len() == declaration.parameters.len(),
            );
            (c.id, score)
        })
        .collect();
    let top = scored.iter().map(|(_, s)| *s).max()?;
    let mut at_top = scored.iter().filter(|(_, s)| *s == top);
    let (id, _) = at_top.next()?;
    if at_top.next().is_some() {
        return None;
    }
    Some((*id, if scored.len() == 1 { 0.95 } else { 0.8 }))
}

/// A file name without its folder and every extension: `src/jv.h` → `jv`,
/// `types/index.d.ts` → `index`.
fn stem(path: &str) -> &str {
    let name = path.rsplit_once('/').map_or(path, |(_, n)| n);
    name.split_once('.').map_or(name, |(s, _)| s)
}

fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(f, _)| f)
}

/// How many leading folders two folders share.
fn common_folders(a: &str, b: &str) -> usize {
    a.split('/').zip(b.split('/')).take_while(|(x, y)| x == y && !x.is_empty()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stem_drops_the_folder_and_every_extension() {
        assert_eq!(stem("src/jv.h"), "jv");
        assert_eq!(stem("dist/types/internal/Observable.d.ts"), "Observable");
        assert_eq!(stem("Makefile"), "Makefile");
    }

    #[test]
    fn common_folders_count_from_the_root() {
        assert_eq!(common_folders("src/util", "src/util"), 2);
        assert_eq!(common_folders("include/nlohmann", "src"), 0);
        assert_eq!(common_folders("", ""), 0);
    }
}
