//! Cross-file resolution: turns each file's raw references (imports, bases,
//! call sites, uses, decorators) into edges of the code graph.
//!
//! Every inferred edge says why it exists and how sure it is:
//! - a receiver whose type is known resolves by that type (`receiver-typed`);
//! - a name bound by an import resolves through it (`import-resolved`);
//! - otherwise the name is looked up in the same file, then the same package,
//!   then the whole archive (`unique-name`);
//! - several candidates are all kept, marked `ambiguous-name`, each with a
//!   confidence that falls with their number. Nothing is picked silently.
//!
//! Targets outside the archive become `is_external` nodes.

mod config;
mod declarations;
mod modules;
mod tables;
mod types;

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashSet, VecDeque};
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use fathom_graph::{Access, CodeGraph, Edge, EdgeKind, FileNodes, NodeId, Reason};
use fathom_model::{BaseKind, CallSite, FileFacts, Language, Local, LocalType, SymbolKind};
use serde::Serialize;

pub use config::{ProjectConfig, is_config_file};
use modules::{Place, locate};
use tables::{Family, Map, Tables};

/// One parsed file, with the nodes its definitions became.
pub struct SourceFile<'a> {
    pub path: &'a str,
    pub language: Language,
    pub facts: &'a FileFacts,
    pub nodes: &'a FileNodes,
}

/// How much of each kind of reference resolved.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Stats {
    pub imports: usize,
    pub imports_internal: usize,
    pub imports_external: usize,
    pub calls: usize,
    /// Calls resolved to exactly one target.
    pub calls_resolved: usize,
    /// Calls resolved to several candidates, all kept.
    pub calls_ambiguous: usize,
    pub calls_external: usize,
    pub calls_unresolved: usize,
}

/// Candidates above this many are too vague to be worth an edge each.
const MAX_CANDIDATES: usize = 8;

/// What a local name stands for in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    Node(NodeId),
    Module(NodeId),
    Package(String),
    External(NodeId),
}

/// A set of candidates and why they were chosen.
struct Found {
    targets: Vec<NodeId>,
    reason: Reason,
    confidence: f32,
}

impl Found {
    fn one(target: NodeId, reason: Reason, confidence: f32) -> Found {
        Found { targets: vec![target], reason, confidence }
    }

    /// By name: one candidate is a `unique-name` guess, several are ambiguous.
    fn by_name(targets: Vec<NodeId>) -> Option<Found> {
        match targets.len() {
            0 => None,
            1 => Some(Found { targets, reason: Reason::UniqueName, confidence: 0.6 }),
            n if n <= MAX_CANDIDATES => {
                Some(Found { targets, reason: Reason::AmbiguousName, confidence: 0.6 / n as f32 })
            }
            _ => None,
        }
    }
}

/// Adds every inferred edge to `graph`.
///
/// Each phase works file by file, each file in a function of its own that
/// is never inlined (`*_in`). V8 moves a wasm function to its optimising
/// tier only between calls, never during one, so a phase inlined into one
/// call over every file ran all of a cold page's first index in baseline
/// code. (Django in Chromium, each page's first index: the resolve stage
/// took 585 ms before, 539 ms after, the means of 4 runs of each taken in
/// turn; a warm page's, 468 and 492 ms, differs by less than its runs do.)
pub fn resolve(graph: &mut CodeGraph, files: &[SourceFile<'_>], config: &ProjectConfig) -> Stats {
    let tables = Tables::build(graph, files);
    let mut resolver = Resolver {
        graph,
        files,
        config,
        tables,
        bindings: Vec::new(),
        ancestry: RefCell::default(),
        exports: RefCell::default(),
        searched: RefCell::default(),
        locals: files.iter().map(|f| locals(f.facts)).collect(),
        nested: files.iter().map(|f| nested(f.facts)).collect(),
        stats: Stats::default(),
    };
    resolver.attach_owned_methods();
    resolver.link_declarations();
    resolver.bind_imports();
    resolver.inheritance();
    resolver.overrides();
    resolver.decorators();
    resolver.calls();
    resolver.uses();
    resolver.stats
}

struct Resolver<'g, 'f> {
    graph: &'g mut CodeGraph,
    files: &'f [SourceFile<'f>],
    config: &'f ProjectConfig,
    tables: Tables,
    /// Per file: local name → what it stands for; `""` keys wildcard imports.
    bindings: Vec<Map<String, Vec<Target>>>,
    /// Each class's supertypes, once asked for ([`Resolver::ancestors`]).
    ancestry: RefCell<FxHashMap<NodeId, Rc<[NodeId]>>>,
    /// What each module exports under a name, once asked for
    /// ([`Resolver::export_of`]): every file that imports `models` from
    /// `django.db` asks the same.
    exports: RefCell<Map<(NodeId, String), Option<Target>>>,
    /// The (module, name) pairs one question of [`Resolver::export_of`] has
    /// already followed: each is followed once, so modules that import each
    /// other many times over cost their imports, not their imports to the
    /// power of the depth (`make fuzz` found a Rust file of 3 KB that did
    /// not finish).
    searched: RefCell<rustc_hash::FxHashSet<(NodeId, String)>>,
    /// Per file: its locals by scope and name.
    locals: Vec<ByScope<'f, &'f Local>>,
    /// Per file: its nested functions and classes by parent and name.
    nested: Vec<ByScope<'f, usize>>,
    stats: Stats,
}

/// A file's things (locals, nested definitions) by scope and name, the
/// first written of each pair: a bare name asks whether it is one of each
/// scope around it, and scanning all of the file's for each name made
/// resolving Django's calls and uses quadratic in its largest test modules.
struct ByScope<'f, T> {
    first: Map<(Option<usize>, &'f str), T>,
}

impl<'f, T: Copy> ByScope<'f, T> {
    /// `things` in the order written, each with its scope (`None`: the
    /// file's top level) and name.
    fn new(things: impl Iterator<Item = (Option<usize>, &'f str, T)>) -> ByScope<'f, T> {
        let mut first = Map::default();
        for (scope, name, thing) in things {
            first.entry((scope, name)).or_insert(thing);
        }
        ByScope { first }
    }

    /// The first written named `name` in `scope`.
    fn get(&self, scope: Option<usize>, name: &str) -> Option<T> {
        self.first.get(&(scope, name)).copied()
    }
}

/// A file's locals ([`Local::scope`]).
fn locals(facts: &FileFacts) -> ByScope<'_, &Local> {
    ByScope::new(facts.locals.iter().map(|l| (l.scope, l.name.as_str(), l)))
}

/// A file's functions and classes defined inside another definition, by
/// their parent's index: what a bare name in that parent calls first.
fn nested(facts: &FileFacts) -> ByScope<'_, usize> {
    let nested = facts
        .definitions
        .iter()
        .enumerate()
        .filter(|(_, d)| d.parent.is_some() && matches!(d.kind, SymbolKind::Function | SymbolKind::Class));
    ByScope::new(nested.map(|(at, d)| (d.parent, d.name.as_str(), at)))
}

impl Resolver<'_, '_> {
    /// Go methods and Rust `impl` items name their type: make them its members.
    fn attach_owned_methods(&mut self) {
        for (index, file) in self.files.iter().enumerate() {
            for (at, definition) in file.facts.definitions.iter().enumerate() {
                let Some(owner) = &definition.owner else { continue };
                let method = file.nodes.definitions[at];
                let parent_is_class =
                    definition.parent.is_some_and(|p| file.facts.definitions[p].kind == SymbolKind::Class);
                if parent_is_class {
                    continue;
                }
                let Some(found) = self.lookup_type(index, owner) else { continue };
                if let [class] = found.targets[..] {
                    let reason = if found.reason == Reason::SameFile { Reason::Syntax } else { found.reason };
                    let confidence = if reason == Reason::Syntax { 1.0 } else { found.confidence };
                    self.graph.add_edge(class, method, Edge::inferred(EdgeKind::HasMethod, confidence, reason, None));
                    self.tables.add_member(class, &definition.name, method);
                }
            }
        }
    }

    fn bind_imports(&mut self) {
        self.bindings = vec![Map::default(); self.files.len()];
        for index in 0..self.files.len() {
            self.bind_imports_in(index);
        }
    }

    /// One file's imports.
    /// Its own function, never inlined: see [`resolve`] on why.
    #[inline(never)]
    fn bind_imports_in(&mut self, index: usize) {
        let file = &self.files[index];
        let module = file.nodes.module;
        let mut seen: HashSet<NodeId> = HashSet::new();
        for import in &file.facts.imports {
            self.stats.imports += 1;
            let line = Some(import.span.start_line);
            // Kotlin writes `import a.b.Shape` as one path: its package is `a.b`.
            let source = match (&import.name, Family::of(file.language)) {
                (Some(name), Family::Jvm) => import.source.strip_suffix(&format!(".{name}")).unwrap_or(&import.source),
                _ => import.source.as_str(),
            };
            let place = locate(&self.tables, self.config, file, source);
            let target = match (&place, &import.name) {
                (Some(place), Some(name)) if !import.wildcard => self.export_of(place, name, 0),
                (Some(Place::Module(m)), None) => Some(Target::Module(*m)),
                (Some(Place::Package(p)), None) => Some(Target::Package(p.clone())),
                _ => None,
            };
            let target = match (target, &place) {
                (Some(target), _) => target,
                (None, Some(Place::Module(m))) if import.name.as_deref() == Some("default") => Target::Module(*m),
                (None, Some(_)) if import.wildcard => match place.clone() {
                    Some(Place::Module(m)) => Target::Module(m),
                    Some(Place::Package(p)) => Target::Package(p),
                    None => unreachable!(),
                },
                (None, _) => Target::External(self.external_import(file.language, source, import.name.as_deref())),
            };
            let edge_target = match &target {
                Target::Node(id) | Target::Module(id) | Target::External(id) => Some(*id),
                Target::Package(_) => None,
            };
            if let Target::External(_) = target {
                self.stats.imports_external += 1;
            } else {
                self.stats.imports_internal += 1;
            }
            if let Some(to) = edge_target.filter(|&to| seen.insert(to) && to != module) {
                let (reason, confidence) = if matches!(target, Target::External(_)) {
                    (Reason::External, 1.0)
                } else {
                    (Reason::ImportResolved, 1.0)
                };
                self.graph.add_edge(module, to, Edge::inferred(EdgeKind::Imports, confidence, reason, line));
            }
            let key = if import.wildcard { String::new() } else { local_name(import, file.language) };
            self.bindings[index].entry(key).or_default().push(target);
        }
    }

    /// What `name` means when imported from `place`: a definition, a
    /// submodule, or whatever the module itself imported under that name
    /// (re-exports through `__init__.py` and `index.ts` barrels).
    fn export_of(&self, place: &Place, name: &str, depth: usize) -> Option<Target> {
        // Only a first question is kept: deeper ones see less of the chain.
        // What a module exports is settled before the first question (only
        // members are added to the tables after they are built, and before
        // imports are bound).
        let &Place::Module(module) = place else { return self.find_export(place, name, depth) };
        if depth > 0 {
            return self.find_export(place, name, depth);
        }
        if let Some(found) = self.exports.borrow().get(&(module, name.to_owned())) {
            return found.clone();
        }
        self.searched.borrow_mut().clear();
        let found = self.find_export(place, name, 0);
        self.exports.borrow_mut().insert((module, name.to_owned()), found.clone());
        found
    }

    fn find_export(&self, place: &Place, name: &str, depth: usize) -> Option<Target> {
        if depth > 8 {
            return None;
        }
        match place {
            Place::Package(package) => {
                let family = self.family_of_package(package)?;
                let members = self.tables.package_members.get(&(family, package.clone()))?;
                members.get(name).and_then(|ids| ids.first()).map(|&id| Target::Node(id))
            }
            Place::Module(module) => {
                if !self.searched.borrow_mut().insert((*module, name.to_owned())) {
                    return None; // followed already in this question, and not found there
                }
                if let Some(&id) =
                    self.tables.top_level.get(module).and_then(|n| n.get(name)).and_then(|ids| ids.last())
                {
                    return Some(Target::Node(id));
                }
                let file_index = *self.tables.file_of_module.get(module)?;
                let file = &self.files[file_index];
                let family = Family::of(file.language);
                let submodule = format!("{}.{name}", self.graph.node(*module).name);
                if let Some([sub]) = self.tables.module_by_name.get(&(family, submodule)).map(Vec::as_slice) {
                    return Some(Target::Module(*sub));
                }
                // Follow the module's own imports of that name, then its wildcard re-exports.
                for import in &file.facts.imports {
                    let binds = !import.wildcard && local_name(import, file.language) == name;
                    if !(binds || (import.wildcard && import.reexport) || (import.wildcard && family == Family::Python))
                    {
                        continue;
                    }
                    let Some(inner) = locate(&self.tables, self.config, file, &import.source) else { continue };
                    let found = match (&import.name, import.wildcard) {
                        (Some(original), false) => self.export_of(&inner, original, depth + 1),
                        (None, false) => match inner {
                            Place::Module(m) => Some(Target::Module(m)),
                            Place::Package(p) => Some(Target::Package(p)),
                        },
                        (_, true) => self.export_of(&inner, name, depth + 1),
                    };
                    if found.is_some() {
                        return found;
                    }
                }
                None
            }
        }
    }

    fn family_of_package(&self, package: &str) -> Option<Family> {
        [Family::Jvm, Family::CSharp, Family::Php, Family::Go]
            .into_iter()
            .find(|&f| self.tables.package_members.contains_key(&(f, package.to_owned())))
    }

    fn external_import(&mut self, language: Language, source: &str, name: Option<&str>) -> NodeId {
        let sep = fathom_graph::separator(language);
        match name {
            Some(name) if name != "default" => {
                let qualified = format!("{}{sep}{name}", source.trim_start_matches("./"));
                let kind = if name.starts_with(char::is_uppercase) { SymbolKind::Class } else { SymbolKind::Function };
                self.graph.external(kind, &qualified, language)
            }
            _ => self.graph.external(SymbolKind::Module, source, language),
        }
    }

    /// The classes a type name may denote from file `index`.
    fn lookup_type(&self, index: usize, written: &str) -> Option<Found> {
        self.lookup_type_within(index, written, 0)
    }

    /// [`Self::lookup_type`], expanding type aliases up to a few levels deep.
    fn lookup_type_within(&self, index: usize, written: &str, depth: usize) -> Option<Found> {
        let is_type = |id: &NodeId| matches!(self.graph.node(*id).kind, SymbolKind::Class | SymbolKind::Annotation);
        let family = Family::of(self.files[index].language);
        let mut found: Option<Found> = None;
        for name in types::class_names(written) {
            let alias = match self.tables.aliases.get(&(family, name.clone())).map(Vec::as_slice) {
                Some([only]) if depth < 4 => Some(only),
                _ => None,
            };
            let more = match alias {
                // An alias names no class of its own: what it stands for does.
                Some(written) => self.lookup_type_within(index, written, depth + 1),
                None => self.lookup(index, &name, &is_type),
            };
            let Some(more) = more else { continue };
            found = Some(match found {
                None => more,
                // `A | B`: either may be the receiver; the weaker reason stands.
                Some(mut all) => {
                    all.targets.extend(more.targets);
                    all.confidence = all.confidence.min(more.confidence);
                    all
                }
            });
        }
        found
    }

    /// Looks a name up from file `index`: imports, the file itself, its
    /// package, wildcard imports, then the archive by name.
    fn lookup(&self, index: usize, name: &str, accept: &dyn Fn(&NodeId) -> bool) -> Option<Found> {
        self.lookup_in_scope(index, name, accept)
            .or_else(|| Found::by_name(self.named_anywhere(Family::of(self.files[index].language), name, accept)))
    }

    /// Every definition in the archive of this family and name that `accept` takes.
    fn named_anywhere(&self, family: Family, name: &str, accept: &dyn Fn(&NodeId) -> bool) -> Vec<NodeId> {
        self.tables.by_name.get(&(family, name.to_owned())).into_iter().flatten().copied().filter(accept).collect()
    }

    /// [`Self::lookup`] short of guessing by name across the archive: what
    /// the file can see (imports, itself, its package, wildcard imports).
    fn lookup_in_scope(&self, index: usize, name: &str, accept: &dyn Fn(&NodeId) -> bool) -> Option<Found> {
        let file = &self.files[index];
        let family = Family::of(file.language);
        for target in self.bindings.get(index).and_then(|b| b.get(name)).into_iter().flatten() {
            match target {
                Target::Node(id) if accept(id) => return Some(Found::one(*id, Reason::ImportResolved, 0.95)),
                Target::External(id) => return Some(Found::one(*id, Reason::External, 0.9)),
                _ => {}
            }
        }
        let local: Vec<NodeId> = self
            .tables
            .top_level
            .get(&file.nodes.module)
            .and_then(|n| n.get(name))
            .into_iter()
            .flatten()
            .copied()
            .filter(|id| accept(id))
            .collect();
        if !local.is_empty() {
            return Some(Found { targets: local, reason: Reason::SameFile, confidence: 0.9 });
        }
        if let Some(package) = &self.tables.package_of_file[index] {
            let members = self.tables.package_members.get(&(family, package.clone()));
            let same: Vec<NodeId> =
                members.and_then(|n| n.get(name)).into_iter().flatten().copied().filter(|id| accept(id)).collect();
            if !same.is_empty() {
                return Some(Found { targets: same, reason: Reason::SamePackage, confidence: 0.85 });
            }
        }
        for target in self.bindings.get(index).and_then(|b| b.get("")).into_iter().flatten() {
            let place = match target {
                Target::Module(m) => Place::Module(*m),
                Target::Package(p) => Place::Package(p.clone()),
                _ => continue,
            };
            if let Some(Target::Node(id)) =
                self.export_of(&place, name, 0).filter(|t| matches!(t, Target::Node(id) if accept(id)))
            {
                return Some(Found::one(id, Reason::ImportResolved, 0.9));
            }
        }
        None
    }

    fn inheritance(&mut self) {
        for index in 0..self.files.len() {
            self.inheritance_in(index);
        }
    }

    /// One file's classes' bases.
    /// Its own function, never inlined: see [`resolve`] on why.
    #[inline(never)]
    fn inheritance_in(&mut self, index: usize) {
        let file = &self.files[index];
        let mut pairs: Vec<(NodeId, BaseKind, String, u32)> = Vec::new();
        for (at, definition) in file.facts.definitions.iter().enumerate() {
            for base in &definition.bases {
                pairs.push((file.nodes.definitions[at], base.kind, base.name.clone(), base.span.start_line));
            }
        }
        for implementation in &file.facts.impls {
            if let Some(found) = self.lookup_type(index, &implementation.type_name) {
                for &class in &found.targets {
                    let base = &implementation.base;
                    pairs.push((class, base.kind, base.name.clone(), base.span.start_line));
                }
            }
        }
        for (class, kind, base, line) in pairs {
            let edge_kind = match kind {
                BaseKind::Inherits => EdgeKind::Inherits,
                BaseKind::Implements => EdgeKind::Implements,
            };
            let found = self.lookup_type(index, &base).filter(|f| !f.targets.contains(&class));
            let found = found.unwrap_or_else(|| {
                let external = self.graph.external(SymbolKind::Class, &base, file.language);
                Found::one(external, Reason::External, 1.0)
            });
            for target in found.targets {
                self.graph.add_edge(
                    class,
                    target,
                    Edge::inferred(edge_kind, found.confidence, found.reason, Some(line)),
                );
            }
        }
    }

    /// `class`'s supertypes, nearest first, each once, at most 64: looked
    /// up once per class, as inheritance is complete before anything asks.
    fn ancestors(&self, class: NodeId) -> Rc<[NodeId]> {
        if let Some(known) = self.ancestry.borrow().get(&class) {
            return known.clone();
        }
        let found: Rc<[NodeId]> = self.find_ancestors(class).into();
        self.ancestry.borrow_mut().insert(class, found.clone());
        found
    }

    fn find_ancestors(&self, class: NodeId) -> Vec<NodeId> {
        let mut seen = HashSet::from([class]);
        let mut queue = VecDeque::from([class]);
        let mut out = Vec::new();
        while let Some(current) = queue.pop_front() {
            for (edge, base) in self.graph.outgoing(current) {
                if matches!(edge.kind, EdgeKind::Inherits | EdgeKind::Implements) && seen.insert(base) && out.len() < 64
                {
                    out.push(base);
                    queue.push_back(base);
                }
            }
        }
        out
    }

    /// Members named `name` of `class` or, failing that, of its nearest supertypes.
    fn member(&self, class: NodeId, name: &str) -> Option<(Vec<NodeId>, bool)> {
        if let Some(found) = self.tables.members.get(&class).and_then(|m| m.get(name)) {
            return Some((found.clone(), false));
        }
        self.ancestors(class)
            .iter()
            .find_map(|base| self.tables.members.get(base).and_then(|m| m.get(name)).cloned())
            .map(|found| (found, true))
    }

    fn overrides(&mut self) {
        // In id order, not the tables' (hashed with random keys): edges are
        // added in the same order by every run, here or in a worker.
        let mut classes: Vec<NodeId> = self.tables.members.keys().copied().collect();
        classes.sort_unstable();
        for class in classes {
            let ancestors = self.ancestors(class);
            let Some(members) = self.tables.members.get(&class) else { continue };
            let mut methods: Vec<NodeId> = members.values().flatten().copied().collect();
            methods.sort_unstable();
            let mut edges = Vec::new();
            for method in methods {
                let node = self.graph.node(method);
                let is_ctor = node.details.as_ref().is_some_and(|d| d.is_constructor);
                if node.kind != SymbolKind::Method || is_ctor {
                    continue;
                }
                let own_arity = arity(self.graph, method);
                let overridden = ancestors.iter().find_map(|&base| {
                    let same: Vec<NodeId> = self
                        .tables
                        .members
                        .get(&base)?
                        .get(&node.name)?
                        .iter()
                        .copied()
                        .filter(|&m| self.graph.node(m).kind == SymbolKind::Method && arity(self.graph, m) == own_arity)
                        .collect();
                    (!same.is_empty()).then_some(same)
                });
                for target in overridden.into_iter().flatten() {
                    edges.push((method, target));
                }
            }
            for (method, target) in edges {
                self.graph.add_edge(method, target, Edge::inferred(EdgeKind::Overrides, 0.95, Reason::Inherited, None));
            }
        }
    }

    fn decorators(&mut self) {
        for index in 0..self.files.len() {
            self.decorators_in(index);
        }
    }

    /// One file's decorators.
    /// Its own function, never inlined: see [`resolve`] on why.
    #[inline(never)]
    fn decorators_in(&mut self, index: usize) {
        let file = &self.files[index];
        for (at, definition) in file.facts.definitions.iter().enumerate() {
            let target = file.nodes.definitions[at];
            for decorator in &definition.decorators {
                let last = decorator.name.rsplit(['.', ':']).next().unwrap_or(&decorator.name);
                let first = decorator.name.split(['.', ':']).next().unwrap_or(&decorator.name);
                let accept = |id: &NodeId| {
                    matches!(
                        self.graph.node(*id).kind,
                        SymbolKind::Annotation | SymbolKind::Function | SymbolKind::Class
                    )
                };
                let resolved = self
                    .lookup(index, last, &accept)
                    .filter(|f| f.reason != Reason::AmbiguousName && f.reason != Reason::UniqueName);
                let found = match resolved {
                    Some(found) if found.reason != Reason::External => found,
                    _ => {
                        // An external decorator: name it through its import where possible.
                        let prefix = self.bindings[index].get(first).and_then(|t| t.first()).and_then(|t| match t {
                            Target::External(id) => Some(self.graph.node(*id).qualified_name.clone()),
                            _ => None,
                        });
                        let qualified = match prefix {
                            Some(prefix) if first == decorator.name => prefix,
                            Some(prefix) => format!("{prefix}{}", &decorator.name[first.len()..]),
                            None => decorator.name.clone(),
                        };
                        let external = self.graph.external(SymbolKind::Annotation, &qualified, file.language);
                        Found::one(external, Reason::External, 1.0)
                    }
                };
                for source in found.targets {
                    let edge = Edge::inferred(
                        EdgeKind::Decorates,
                        found.confidence,
                        found.reason,
                        Some(decorator.span.start_line),
                    );
                    self.graph.add_edge(source, target, edge);
                }
            }
        }
    }

    fn calls(&mut self) {
        for index in 0..self.files.len() {
            self.calls_in(index);
        }
    }

    /// One file's calls.
    /// Its own function, never inlined: see [`resolve`] on why.
    #[inline(never)]
    fn calls_in(&mut self, index: usize) {
        let file = &self.files[index];
        let mut seen: FxHashSet<(NodeId, NodeId, u32)> = FxHashSet::default();
        for call in &file.facts.calls {
            self.stats.calls += 1;
            let caller = call.caller.map_or(file.nodes.module, |c| file.nodes.definitions[c]);
            let Some(found) = self.callee(index, call) else {
                self.stats.calls_unresolved += 1;
                continue;
            };
            match found.reason {
                Reason::External => self.stats.calls_external += 1,
                Reason::AmbiguousName => self.stats.calls_ambiguous += 1,
                _ => self.stats.calls_resolved += 1,
            }
            for target in found.targets {
                if seen.insert((caller, target, call.span.start_line)) {
                    let edge =
                        Edge::inferred(EdgeKind::Calls, found.confidence, found.reason, Some(call.span.start_line));
                    self.graph.add_edge(caller, target, edge);
                }
            }
        }
    }

    /// What a call site calls.
    fn callee(&mut self, index: usize, call: &CallSite) -> Option<Found> {
        let file = &self.files[index];
        let facts = file.facts;
        let name = facts.name(call.name);
        let family = Family::of(file.language);
        let class = self.enclosing_class(index, call.caller);
        // A bare name calls a function or a class; methods are reached
        // through a receiver, or through the implicit `this` above. `new X()`
        // instantiates a class, or a constructor held in a variable
        // (`const EmptyError = createErrorClass(...)`), never an interface.
        let instantiates = call.instantiates;
        let callable = |graph: &CodeGraph, id: &NodeId| {
            let node = graph.node(*id);
            match node.kind {
                SymbolKind::Function => !instantiates,
                SymbolKind::Class => !(instantiates && node.class_kind == Some(fathom_model::ClassKind::Interface)),
                SymbolKind::GlobalVariable => instantiates,
                _ => false,
            }
        };
        let found = match call.receiver.map(|r| normalize_receiver(facts.name(r))) {
            None => {
                let implicit = class
                    .filter(|_| family.implicit_this())
                    .and_then(|c| self.member_call(c, name, call.arguments, 0.9));
                implicit.or_else(|| self.nested_definition(index, call.caller, name)).or_else(|| {
                    let graph = &*self.graph;
                    self.lookup(index, name, &|id| callable(graph, id))
                })
            }
            Some(receiver) => match self.receiver_type(index, call.caller, class, &receiver) {
                Some(Receiver::Class(types, reason, confidence)) => {
                    let mut targets = Vec::new();
                    let mut inherited = false;
                    for class in &types {
                        if let Some((found, from_base)) = self.member(*class, name) {
                            inherited |= from_base;
                            targets.extend(filter_arity(self.graph, found, call.arguments));
                        }
                    }
                    match targets.len() {
                        0 => None,
                        _ => Some(Found {
                            targets,
                            reason: if inherited { Reason::Inherited } else { reason },
                            confidence: if inherited { confidence - 0.05 } else { confidence },
                        }),
                    }
                }
                Some(Receiver::Module(module)) => {
                    self.export_of(&Place::Module(module), name, 0).and_then(|t| match t {
                        Target::Node(id) => Some(Found::one(id, Reason::ImportResolved, 0.95)),
                        _ => None,
                    })
                }
                Some(Receiver::External(qualified)) => {
                    let sep = fathom_graph::separator(file.language);
                    let id =
                        self.graph.external(SymbolKind::Function, &format!("{qualified}{sep}{name}"), file.language);
                    Some(Found::one(id, Reason::External, 0.9))
                }
                // Unknown receiver: a core-library method name is not guessed at.
                None if types::is_core_method(name) => None,
                None => {
                    // Unknown receiver: any method of that name, never silently one of many.
                    let graph = &*self.graph;
                    let candidates =
                        self.named_anywhere(family, name, &|id| graph.node(*id).kind == SymbolKind::Method);
                    let candidates = filter_arity(self.graph, candidates, call.arguments);
                    self.named_receiver(&receiver, &candidates).or_else(|| Found::by_name(candidates))
                }
            },
        }?;
        Some(self.to_constructors(found, call))
    }

    /// A function or class defined inside the caller or one of its enclosing
    /// functions: the innermost such definition shadows everything else.
    fn nested_definition(&self, index: usize, scope: Option<usize>, name: &str) -> Option<Found> {
        let file = &self.files[index];
        let definitions = &file.facts.definitions;
        std::iter::successors(scope, |&i| definitions[i].parent).find_map(|enclosing| {
            let at = self.nested[index].get(Some(enclosing), name)?;
            Some(Found::one(file.nodes.definitions[at], Reason::SameFile, 0.95))
        })
    }

    /// Among same-named methods, those of the class a receiver is named
    /// after: `subscriber.next()` → `Subscriber.next`. Naming is evidence
    /// of type, weaker than a declaration.
    fn named_receiver(&self, receiver: &str, candidates: &[NodeId]) -> Option<Found> {
        let simple = receiver.trim_end_matches(['!', '?']).to_lowercase().replace('_', "");
        if simple.is_empty() || !simple.chars().all(char::is_alphanumeric) {
            return None;
        }
        let targets: Vec<NodeId> = candidates
            .iter()
            .copied()
            .filter(|&m| self.class_of(m).is_some_and(|class| lowercases_to(&self.graph.node(class).name, &simple)))
            .collect();
        (!targets.is_empty()).then_some(Found { targets, reason: Reason::ReceiverNamed, confidence: 0.7 })
    }

    /// The class a method belongs to: the one holding it, written inside it
    /// or attached by its owner (C++'s `Circle::area`, Go's receiver).
    fn class_of(&self, method: NodeId) -> Option<NodeId> {
        let holder = self.graph.incoming(method).find(|(e, _)| e.kind == EdgeKind::HasMethod).map(|(_, c)| c);
        holder.or_else(|| self.graph.parent(method))
    }

    /// A call on a class (`new Foo()`, `Foo()` in Python) reaches its constructors.
    fn to_constructors(&self, found: Found, call: &CallSite) -> Found {
        let mut targets = Vec::new();
        for &target in &found.targets {
            if self.graph.node(target).kind != SymbolKind::Class {
                targets.push(target);
                continue;
            }
            let constructors = self.constructors(target);
            if constructors.is_empty() {
                targets.push(target);
            } else {
                targets.extend(filter_arity(self.graph, constructors, call.arguments));
            }
        }
        Found { targets, ..found }
    }

    /// A member of the caller's own class, called without a receiver.
    fn member_call(&self, class: NodeId, name: &str, arguments: u32, confidence: f32) -> Option<Found> {
        let (found, inherited) = self.member(class, name)?;
        let targets = filter_arity(self.graph, found, arguments);
        let reason = if inherited { Reason::Inherited } else { Reason::ReceiverTyped };
        (!targets.is_empty()).then_some(Found { targets, reason, confidence })
    }

    fn enclosing_class(&self, index: usize, mut at: Option<usize>) -> Option<NodeId> {
        let file = &self.files[index];
        while let Some(i) = at {
            let definition = &file.facts.definitions[i];
            if definition.kind == SymbolKind::Class {
                return Some(file.nodes.definitions[i]);
            }
            if let Some(owner) = &definition.owner {
                return self.lookup_type(index, owner).and_then(|f| f.targets.first().copied());
            }
            at = definition.parent;
        }
        None
    }

    /// The type of a receiver expression, when it can be known.
    fn receiver_type(
        &mut self,
        index: usize,
        scope: Option<usize>,
        class: Option<NodeId>,
        receiver: &str,
    ) -> Option<Receiver> {
        let file = &self.files[index];
        if matches!(receiver, "self" | "this" | "cls" | "me" | "static") {
            return class.map(|c| Receiver::Class(vec![c], Reason::ReceiverTyped, 0.95));
        }
        if matches!(receiver, "super" | "super()" | "parent" | "base") {
            let bases = class.map(|c| self.ancestors(c)).unwrap_or_default();
            return (!bases.is_empty()).then_some(Receiver::Class(bases.to_vec(), Reason::Inherited, 0.9));
        }
        // `self.repo`, `this.repo`: the declared type of a field.
        if let Some(field) =
            receiver.strip_prefix("self.").or_else(|| receiver.strip_prefix("this.")).filter(|f| !f.contains('.'))
        {
            let class = class?;
            let (fields, _) = self.member(class, field)?;
            let type_name = fields.iter().find_map(|&f| self.graph.node(f).details.as_ref()?.type_name.clone())?;
            let found = self.lookup_type(index, &type_name)?;
            return Some(Receiver::Class(found.targets, Reason::ReceiverTyped, 0.9));
        }
        if let Some(callee) = receiver.strip_suffix(')').and_then(|r| r.split_once('(')).map(|(callee, _)| callee) {
            return self.call_result_type(index, callee);
        }
        if receiver.contains(['.', '(', '[', ' ']) {
            // `a.b.c` may name a module (Python's `os.path`).
            let family = Family::of(file.language);
            if let Some([module]) = self.tables.module_by_name.get(&(family, receiver.to_owned())).map(Vec::as_slice) {
                return Some(Receiver::Module(*module));
            }
            return None;
        }
        // A parameter or local whose type is written, or follows from a call.
        if let Some(typed) = self.declared_type(index, scope, receiver).and_then(|t| self.local_type(index, &t)) {
            return Some(typed);
        }
        // A field of the class, named without `this` (Java, C#, C++).
        if let Some(class) = class.filter(|_| Family::of(file.language).implicit_this())
            && let Some((fields, _)) = self.member(class, receiver)
            && let Some(found) = fields
                .iter()
                .find_map(|&f| self.graph.node(f).details.as_ref()?.type_name.clone())
                .and_then(|t| self.lookup_type(index, &t))
        {
            return Some(Receiver::Class(found.targets, Reason::ReceiverTyped, 0.85));
        }
        // An imported module or class, or a class of the same file or package: a static call.
        if let Some(targets) = self.bindings[index].get(receiver) {
            match targets.first() {
                Some(Target::Module(m)) => return Some(Receiver::Module(*m)),
                Some(Target::External(id)) => {
                    return Some(Receiver::External(self.graph.node(*id).qualified_name.clone()));
                }
                Some(Target::Node(id)) if self.graph.node(*id).kind == SymbolKind::Class => {
                    return Some(Receiver::Class(vec![*id], Reason::ImportResolved, 0.95));
                }
                _ => {}
            }
        }
        let found =
            self.lookup_type(index, receiver).filter(|f| matches!(f.reason, Reason::SameFile | Reason::SamePackage))?;
        Some(Receiver::Class(found.targets, found.reason, found.confidence))
    }

    /// The type a call such as `Order("o-1")` or `make_order()` returns: the
    /// class it constructs, or the callee's declared return type.
    fn call_result_type(&self, index: usize, callee: &str) -> Option<Receiver> {
        let callee = callee.trim();
        if callee.is_empty() || callee.contains(['(', ' ']) {
            return None;
        }
        let graph = &*self.graph;
        let is_callable = |id: &NodeId| matches!(graph.node(*id).kind, SymbolKind::Function | SymbolKind::Class);
        // `views.OrderView()`: a member of an imported module; else the last segment.
        let qualified = callee.split_once(['.', ':']).and_then(|(first, _)| {
            let last = callee.rsplit(['.', ':']).next()?;
            match self.bindings[index].get(first)?.first()? {
                Target::Module(m) => match self.export_of(&Place::Module(*m), last, 0)? {
                    Target::Node(id) if is_callable(&id) => Some(Found::one(id, Reason::ImportResolved, 0.95)),
                    _ => None,
                },
                _ => None,
            }
        });
        let last = callee.rsplit(['.', ':']).find(|s| !s.is_empty())?;
        let found = qualified.or_else(|| self.lookup(index, last, &is_callable))?;
        let [target] = found.targets[..] else { return None };
        let node = self.graph.node(target);
        let confidence = found.confidence.min(0.9);
        if node.kind == SymbolKind::Class {
            return Some(Receiver::Class(vec![target], Reason::ReceiverTyped, confidence));
        }
        let returns = node.details.as_ref()?.return_type.clone()?;
        let class_index = self.files.iter().position(|f| f.nodes.module == self.module_of(target))?;
        let typed = self.lookup_type(class_index, returns.trim_matches(['"', '\'']))?;
        (typed.reason != Reason::External).then_some(Receiver::Class(
            typed.targets,
            Reason::ReceiverTyped,
            confidence.min(0.85),
        ))
    }

    /// The module a definition lies in.
    fn module_of(&self, id: NodeId) -> NodeId {
        self.graph.module_of(id).expect("definitions lie in files")
    }

    /// Whether `name` is a parameter or local of `scope` or an enclosing
    /// function: then it hides any global of that name.
    fn is_local(&self, index: usize, scope: Option<usize>, name: &str) -> bool {
        let facts = self.files[index].facts;
        std::iter::successors(scope, |&i| facts.definitions[i].parent).any(|i| {
            facts.definitions[i].parameters.iter().any(|p| p.name.as_deref() == Some(name))
                || self.locals[index].get(Some(i), name).is_some()
        })
    }

    /// Where the type of a parameter of `scope` (or of its enclosing
    /// functions), or of a local there, comes from.
    fn declared_type(&self, index: usize, scope: Option<usize>, name: &str) -> Option<LocalType> {
        let facts = self.files[index].facts;
        let mut at = scope;
        while let Some(i) = at {
            let definition = &facts.definitions[i];
            if let Some(p) = definition.parameters.iter().find(|p| p.name.as_deref() == Some(name)) {
                return p.type_name.clone().map(LocalType::Written);
            }
            if let Some(local) = self.locals[index].get(Some(i), name) {
                return Some(local.type_of.clone());
            }
            at = definition.parent;
        }
        self.locals[index].get(None, name).map(|l| l.type_of.clone())
    }

    /// The classes a local's type denotes.
    fn local_type(&self, index: usize, type_of: &LocalType) -> Option<Receiver> {
        match type_of {
            LocalType::Written(written) => {
                let found = self.lookup_type(index, written).filter(|f| f.reason != Reason::External)?;
                Some(Receiver::Class(found.targets, Reason::ReceiverTyped, 0.9))
            }
            LocalType::CallResult(callee) => self.call_result_type(index, callee),
            LocalType::CallbackParameter { callee, argument, parameter } => {
                // The callee's declared parameter is a function type:
                // `(source: Observable<T>, subscriber: Subscriber<R>) => void`.
                let graph = &*self.graph;
                let found = self.lookup(index, callee, &|id| {
                    matches!(graph.node(*id).kind, SymbolKind::Function | SymbolKind::Class)
                })?;
                let mut target = *found.targets.first()?;
                if self.graph.node(target).kind == SymbolKind::Class {
                    target = self.constructors(target).into_iter().next()?;
                }
                let declared =
                    self.graph.node(target).details.as_ref()?.parameters.get(*argument as usize)?.type_name.clone()?;
                let written = types::function_parameter_type(&declared, *parameter as usize)?;
                let home = self.files.iter().position(|f| f.nodes.module == self.module_of(target))?;
                let typed = self.lookup_type(home, &written).filter(|f| f.reason != Reason::External)?;
                Some(Receiver::Class(typed.targets, Reason::ReceiverTyped, 0.85))
            }
        }
    }

    /// The constructors a class declares (synthesized ones included), in
    /// id order: the members map is hashed with random keys, and its order
    /// would choose a variable's constructor and order the call edges
    /// differently on every run (Django's `SettingsReference(...)`, to
    /// `__new__` and `__init__`), as it once did for overrides.
    fn constructors(&self, class: NodeId) -> Vec<NodeId> {
        let mut constructors: Vec<NodeId> = self
            .tables
            .members
            .get(&class)
            .into_iter()
            .flat_map(|m| m.values().flatten())
            .copied()
            .filter(|&m| self.graph.node(m).details.as_ref().is_some_and(|d| d.is_constructor))
            .collect();
        constructors.sort_unstable();
        constructors
    }

    fn uses(&mut self) {
        for index in 0..self.files.len() {
            self.uses_in(index);
        }
    }

    /// One file's uses.
    /// Its own function, never inlined: see [`resolve`] on why.
    #[inline(never)]
    fn uses_in(&mut self, index: usize) {
        let file = &self.files[index];
        let family = Family::of(file.language);
        let mut edges: Vec<(NodeId, NodeId, Found, u32, Access)> = Vec::new();
        let facts = file.facts;
        for u in &facts.uses {
            let Some(user_index) = u.user else { continue };
            let name = facts.name(u.name);
            let user = file.nodes.definitions[user_index];
            let class = self.enclosing_class(index, u.user);
            let is_state = |graph: &CodeGraph, id: &NodeId| {
                matches!(graph.node(*id).kind, SymbolKind::Field | SymbolKind::GlobalVariable)
            };
            let found = match u.receiver.map(|r| normalize_receiver(facts.name(r))) {
                Some(r) if matches!(r.as_ref(), "self" | "this") => class.and_then(|c| {
                    let (targets, _) = self.member(c, name)?;
                    let targets: Vec<NodeId> = targets.into_iter().filter(|id| is_state(self.graph, id)).collect();
                    (!targets.is_empty()).then_some(Found { targets, reason: Reason::ReceiverTyped, confidence: 0.95 })
                }),
                Some(_) => None,
                None => {
                    let shadowed = self.is_local(index, u.user, name);
                    let member = class.filter(|_| family.implicit_this() && !shadowed).and_then(|c| {
                        let (targets, _) = self.member(c, name)?;
                        let targets: Vec<NodeId> = targets.into_iter().filter(|id| is_state(self.graph, id)).collect();
                        (!targets.is_empty()).then_some(Found {
                            targets,
                            reason: Reason::ReceiverTyped,
                            confidence: 0.85,
                        })
                    });
                    member.or_else(|| {
                        if shadowed {
                            return None;
                        }
                        // A guess by name across the archive is never kept for a use.
                        let graph = &*self.graph;
                        let is_global = |id: &NodeId| graph.node(*id).kind == SymbolKind::GlobalVariable;
                        let found = self.lookup_in_scope(index, name, &is_global)?;
                        matches!(found.reason, Reason::SameFile | Reason::ImportResolved | Reason::SamePackage)
                            .then_some(found)
                    })
                }
            };
            if let Some(found) = found {
                let access = if u.write { Access::Write } else { Access::Read };
                for &target in &found.targets {
                    edges.push((user, target, Found { targets: Vec::new(), ..found }, u.span.start_line, access));
                }
            }
        }
        for (user, target, found, line, access) in edges {
            let mut edge = Edge::inferred(EdgeKind::Uses, found.confidence, found.reason, Some(line));
            edge.access = Some(access);
            self.graph.add_edge(user, target, edge);
        }
    }
}

enum Receiver {
    Class(Vec<NodeId>, Reason, f32),
    Module(NodeId),
    External(String),
}

/// One spelling for receivers across languages: `$this->x` and `@x` become
/// `this.x` and `self.x`; `::` and `->` become `.`; `x!` and `x?.y` lose their marks.
fn normalize_receiver(receiver: &str) -> Cow<'_, str> {
    let r = receiver.trim();
    // Most receivers (`self`, `request.user`) have nothing to respell.
    if !r.contains(['?', '!', '$', '-', ':', '@', '&', '*']) {
        return Cow::Borrowed(r);
    }
    // TypeScript's non-null (`x!`) and optional-chaining (`x?.y`) marks change no type.
    let r = r.replace("?.", ".").trim_end_matches(['?', '!']).replace("!.", ".");
    let r = r.replace("$this->", "this.").replace("->", ".").replace("::", ".");
    let r = match r.strip_prefix('@') {
        Some(ivar) if !ivar.starts_with('@') => format!("self.{ivar}"),
        _ => r,
    };
    Cow::Owned(r.trim_start_matches('$').trim_start_matches('&').trim_start_matches('*').to_owned())
}

/// The local name an import binds.
fn local_name(import: &fathom_model::Import, language: Language) -> String {
    if let Some(local) = import.local_name() {
        return local.to_owned();
    }
    let source = import.source.trim_end_matches(".*");
    match language {
        // `import a.b.c` binds `a`.
        Language::Python => source.split('.').next().unwrap_or(source).to_owned(),
        _ => source.rsplit(['/', '.', ':', '\\']).find(|s| !s.is_empty()).unwrap_or(source).to_owned(),
    }
}

fn arity(graph: &CodeGraph, id: NodeId) -> Option<usize> {
    graph.node(id).details.as_ref().map(|d| d.parameters.len())
}

/// Whether `name.to_lowercase() == lower`, without building the lowercase
/// name when it is ASCII: an unknown receiver's method is looked for among
/// every same-named method, and each one's class name was lowercased.
fn lowercases_to(name: &str, lower: &str) -> bool {
    if name.is_ascii() {
        name.len() == lower.len() && name.bytes().zip(lower.bytes()).all(|(a, b)| a.to_ascii_lowercase() == b)
    } else {
        name.to_lowercase() == lower
    }
}

/// Among same-named candidates, those whose parameter count matches the
/// arguments; all of them if none does (defaults, varargs).
fn filter_arity(graph: &CodeGraph, candidates: Vec<NodeId>, arguments: u32) -> Vec<NodeId> {
    if candidates.len() < 2 {
        return candidates;
    }
    let exact: Vec<NodeId> =
        candidates.iter().copied().filter(|&id| arity(graph, id) == Some(arguments as usize)).collect();
    if exact.is_empty() { candidates } else { exact }
}

#[cfg(test)]
mod tests {
    use super::lowercases_to;

    /// The shortcut answers what lowercasing and comparing does, in any script.
    #[test]
    fn lowercases_to_is_lowercasing_then_comparing() {
        let names = ["Subscriber", "subscriber", "HTTPResponse", "Straße", "ΟΔΟΣ", "Über", "a_b", "", "X"];
        let lowers =
            ["subscriber", "httpresponse", "straße", "οδος", "οδοσ", "über", "a_b", "ab", "", "x", "subscribers"];
        for name in names {
            for lower in lowers {
                assert_eq!(lowercases_to(name, lower), name.to_lowercase() == lower, "{name:?} {lower:?}");
            }
        }
    }
}
