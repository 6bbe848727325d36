//! Evidence lanes: what a report says about each file, gathered apart
//! and unranked ([`crate::locate::rank`] weighs it).

use std::collections::HashMap;

use fathom_graph::{CodeGraph, EdgeKind, NodeId};
use fathom_model::SymbolKind;
use serde::Serialize;

use super::Localiser;
use crate::issue::{Issue, Place};
use crate::retrieval::{Lane, Meaning};
use crate::roles::Role;
use crate::{MatchKind, NameIndex};

/// How many chunks the word lane reads.
const WORD_DEPTH: usize = 400;
/// A phrase found in more files than this is a common one.
const MAX_PHRASE_FILES: usize = 5;

/// Pairs of the report's words, next to each other, that together spell a
/// file's stem the report does not write as one word: "man page" for
/// `manpage.py`, "index entries" for `indexentries.py`. Each part is a word
/// of three letters or more; only a space or a hyphen may stand between
/// them. Once each, lower case, in order.
fn spelled_stems(text: &str, is_stem: impl Fn(&str) -> bool) -> Vec<String> {
    let written: std::collections::HashSet<String> =
        text.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase).collect();
    let joinable = |w: &str| w.len() >= 3 && w.chars().all(char::is_alphabetic);
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        // A word joins the one before it when one space or hyphen parts them.
        let mut previous: Option<&str> = None;
        let mut rest = line;
        while let Some(start) = rest.find(char::is_alphanumeric) {
            let gap = &rest[..start];
            let after = &rest[start..];
            let end = after.find(|c: char| !c.is_alphanumeric()).unwrap_or(after.len());
            let word = &after[..end];
            if let Some(first) = previous.filter(|p| matches!(gap, " " | "-") && joinable(p) && joinable(word)) {
                let joined = format!("{first}{word}").to_lowercase();
                if !written.contains(&joined) && is_stem(&joined) && !out.contains(&joined) {
                    out.push(joined);
                }
            }
            previous = Some(word);
            rest = &after[end..];
        }
    }
    out
}

/// A definition the report names, as found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Named {
    pub node: NodeId,
    /// The mention as the report wrote it.
    pub mention: String,
    /// 1 / how many definitions answer to the mention.
    pub specificity: f64,
    pub place: Place,
    pub imported: bool,
}

/// Everything known about one file.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FileEvidence {
    pub file: String,
    pub role: Option<Role>,
    /// Why the file has its role, where it is not plain source.
    pub role_why: Option<String>,
    /// The files it is generated from (an amalgamation's, a declaration
    /// file's): it is ranked as their companion, right below the best of
    /// them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub follows: Vec<String>,
    /// 1-based rank of the file by its best chunk's BM25 score.
    pub word_rank: Option<u32>,
    /// Its best chunk's score over the best file's.
    pub word_score: f64,
    /// How much of the lane the file holds: the sum of its chunks' scores
    /// (each over the lane's best) among the lane's first chunks, over 3.
    pub word_mass: f64,
    /// The matched terms of its best chunk.
    pub word_chunk: Option<usize>,
    /// Definitions in the file that the report names.
    pub named: Vec<Named>,
    /// The file's module is named (imported, or a prefix of a dotted name).
    pub module_named: f64,
    /// The report's title names one of the file's definitions in code
    /// (`PersonName3`, `` `from_iso_datetime` ``): the best such name's
    /// specificity.
    pub title_named: f64,
    pub title_mention: Option<String>,
    /// Words of the title, in a row, spell part of a definition's name
    /// ("ambiguous VR element", `correct_ambiguous_vr_element`): the share
    /// of the name they spell over how many files hold such a definition;
    /// the best such definition's name.
    pub title_run: f64,
    pub title_run_name: Option<String>,
    /// The report names the file's path or its name (`a/b.py`, `b.py`):
    /// 1 / how many files answer to it.
    pub path_named: f64,
    /// A word of the report is the file's stem (`filewriter`), and a
    /// code-shaped one (`L031`, `brain_typing`).
    pub stem_named: f64,
    pub stem_coded: f64,
    /// Phrases of the report found in the file as they are, each counted
    /// 1 / how many files hold it.
    pub phrases: f64,
    /// The longest of those phrases (at most three).
    pub phrase_texts: Vec<String>,
    /// The file's rank and relative score by the words of the report's
    /// code alone, and of its prose alone.
    pub code_rank: Option<u32>,
    pub code_score: f64,
    pub prose_rank: Option<u32>,
    pub prose_score: f64,
    /// The file's rank and relative similarity by the report's MiniLM
    /// embedding, and by its static one.
    pub dense_rank: Option<u32>,
    pub dense_score: f64,
    pub static_rank: Option<u32>,
    pub static_score: f64,
    /// Frames of a traceback in the file, as the lowest depth.
    pub frame_depth: Option<u32>,
    /// The lines its frames name, each with the frame's function.
    pub frame_lines: Vec<(u32, Option<String>)>,
    /// A compiler's diagnostic or a log line names a line of the file: 1
    /// for the first such location of the report, 1/2 for the second, …
    pub logged: f64,
    /// The best share reached through an edge from a named definition.
    pub neighbour: f64,
    pub neighbour_of: Option<(NodeId, EdgeKind)>,
}

/// A report's title: its first line, where that is prose with more below.
fn report_title(text: &str) -> Option<&str> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    match (lines.next(), lines.next()) {
        (Some(title), Some(_)) if !crate::issue::is_fence(title) && crate::issue::python_frame(title).is_none() => {
            Some(title)
        }
        _ => None,
    }
}

/// The names of a graph, by exact text, for resolving mentions.
struct Resolver<'g> {
    graph: &'g CodeGraph,
    names: &'g NameIndex,
}

impl Resolver<'_> {
    /// The definitions that answer to `text` exactly: a dotted path by the
    /// suffix of qualified names, dropping leading segments (a variable, an
    /// alias) until something answers; a plain name by name. Externals and
    /// packages are left out.
    fn resolve(&self, text: &str) -> Vec<NodeId> {
        let text = text.strip_prefix("self.").or_else(|| text.strip_prefix("cls.")).unwrap_or(text);
        let segments: Vec<&str> = text.split('.').collect();
        for from in 0..segments.len() {
            let candidate = segments[from..].join(".");
            if candidate.len() < 2 {
                continue;
            }
            // A declaration names its definition: the prototype's header
            // is not where the code a report is about lives.
            let mut hits: Vec<NodeId> = self
                .names
                .search(self.graph, &candidate, 64)
                .into_iter()
                .filter(|h| h.match_kind == MatchKind::Exact)
                .map(|h| self.graph.declared(h.node).unwrap_or(h.node))
                .filter(|&n| {
                    let node = self.graph.node(n);
                    !node.is_external && node.kind != SymbolKind::Package && node.file.is_some()
                })
                .collect();
            let mut seen = std::collections::HashSet::new();
            hits.retain(|&n| seen.insert(n));
            if !hits.is_empty() {
                // A plain name must agree in case where some do.
                let same_case: Vec<NodeId> =
                    hits.iter().copied().filter(|&n| self.graph.node(n).qualified_name.ends_with(&candidate)).collect();
                return if same_case.is_empty() { hits } else { same_case };
            }
        }
        // A name the reporter's version had with a number (`PersonName3`,
        // since renamed `PersonName`).
        let stripped = text.trim_end_matches(|c: char| c.is_ascii_digit());
        if stripped.len() < text.len() && stripped.len() >= 4 && !stripped.ends_with(['.', '_']) {
            return self.resolve(stripped);
        }
        Vec::new()
    }
}

/// What locating found: every file with evidence, unranked.
pub struct Evidence {
    pub issue: Issue,
    pub files: Vec<FileEvidence>,
}

/// A lane's file: its best chunk, that chunk's score over the lane's best,
/// and the file's mass (the sum of its chunks' relative scores).
struct LaneFile<'g> {
    path: &'g str,
    chunk: usize,
    relative: f64,
    mass: f64,
}

impl Localiser<'_> {
    /// A lane's ranked chunks grouped into files, in the order of each
    /// file's best chunk.
    fn by_file<'g>(&self, graph: &'g CodeGraph, ranked: Vec<(u32, f32)>) -> Vec<LaneFile<'g>> {
        let best = ranked.first().map_or(1.0, |&(_, score)| f64::from(score.max(f32::EPSILON)));
        let mut files: Vec<LaneFile<'g>> = Vec::new();
        let mut at: HashMap<&'g str, usize> = HashMap::new();
        for (chunk, score) in ranked {
            let Some(path) = graph.path_of(self.index.chunks().node(chunk as usize)) else { continue };
            let relative = f64::from(score) / best;
            match at.get(path) {
                Some(&i) => files[i].mass += relative,
                None => {
                    at.insert(path, files.len());
                    files.push(LaneFile { path, chunk: chunk as usize, relative, mass: relative });
                }
            }
        }
        files
    }

    /// The evidence about every file a report points at, with the dense
    /// lane already chosen.
    pub(crate) fn gather(&self, text: &str, lane: Option<&Lane<'_>>) -> Evidence {
        let (graph, sources) = (self.sources.graph(), self.sources);
        let text = &crate::issue::without_template(&crate::issue::untagged(text));
        let issue = Issue::read(text);
        let mut files: HashMap<&str, FileEvidence> = HashMap::new();
        fn entry<'a, 'p>(files: &'a mut HashMap<&'p str, FileEvidence>, path: &'p str) -> &'a mut FileEvidence {
            files.entry(path).or_insert_with(|| FileEvidence { file: path.to_owned(), ..FileEvidence::default() })
        }

        // Stems: `pydicom/filewriter.py` and `filewriter.py` name a file; so,
        // more loosely, does the bare word `filewriter`, or `L031`, or the
        // name written as two words (`man page` for `manpage.py`).
        let mut stems: HashMap<String, Vec<&str>> = HashMap::new();
        for f in graph.files() {
            let name = f.path.rsplit('/').next().unwrap_or(&f.path);
            let stem = name.split('.').next().unwrap_or(name).to_lowercase();
            if stem.len() >= 3 && stem != "__init__" {
                stems.entry(stem).or_default().push(&f.path);
            }
        }
        let spelled = spelled_stems(text, |joined| stems.contains_key(joined));

        // Words, and meaning where the chunks are embedded. A stem spelled
        // as two words is searched as the one word the code writes.
        let words = if spelled.is_empty() { text.to_owned() } else { format!("{text}\n\n{}", spelled.join(" ")) };
        for (rank, f) in self.by_file(graph, self.index.lexical().search(&words, WORD_DEPTH)).into_iter().enumerate() {
            let file = entry(&mut files, f.path);
            (file.word_rank, file.word_score, file.word_chunk) = (Some(rank as u32 + 1), f.relative, Some(f.chunk));
            file.word_mass = f.mass / 3.0;
        }
        if let Some(lane) = lane {
            let minilm = matches!(lane.meaning(), Meaning::Minilm | Meaning::MinilmCandidates);
            for (rank, f) in self.by_file(graph, lane.search(WORD_DEPTH)).into_iter().enumerate() {
                let file = entry(&mut files, f.path);
                let (lane_rank, lane_score) = if minilm {
                    (&mut file.dense_rank, &mut file.dense_score)
                } else {
                    (&mut file.static_rank, &mut file.static_score)
                };
                (*lane_rank, *lane_score) = (Some(rank as u32 + 1), f.relative);
            }
        }

        // Names; those in the title (written as code: `PersonName3`, a span
        // in backticks) say what the report is about, where the names its
        // example calls are often only the way in.
        let title = report_title(text);
        let titled: Vec<String> =
            title.map(|t| Issue::read(t).mentions.into_iter().map(|m| m.text).collect()).unwrap_or_default();
        let resolver = Resolver { graph, names: self.index.names() };
        for mention in &issue.mentions {
            let nodes = resolver.resolve(&mention.text);
            if nodes.is_empty() {
                continue;
            }
            let specificity = 1.0 / nodes.len() as f64;
            let in_title = titled.contains(&mention.text);
            for node in nodes {
                let Some(path) = graph.path_of(node) else { continue };
                let file = entry(&mut files, path);
                if in_title && specificity > file.title_named {
                    file.title_named = specificity;
                    file.title_mention = Some(mention.text.clone());
                }
                if graph.node(node).kind == SymbolKind::Module {
                    file.module_named = file.module_named.max(specificity);
                } else if !file.named.iter().any(|n| n.node == node) {
                    file.named.push(Named {
                        node,
                        mention: mention.text.clone(),
                        specificity,
                        place: mention.place,
                        imported: mention.imported,
                    });
                }
            }
        }

        // The title's words, in a row, spelling a definition's name: a
        // report says in words what the code says in identifiers.
        if let Some(title) = title {
            let terms = crate::tokens::Terms::default();
            // Definitions share most of their names' parts: each is stemmed
            // once a report.
            let mut stemmed: HashMap<String, String> = HashMap::new();
            let mut stem = |part: &str| match stemmed.get(part) {
                Some(s) => s.clone(),
                None => stemmed.entry(part.to_owned()).or_insert_with(|| terms.stem(part)).clone(),
            };
            let mut parts = |t: &str| -> Vec<String> {
                let mut parts = crate::tokens::stemmed_parts(t, &mut stem);
                parts.retain(|p| p.len() >= 2);
                parts
            };
            let title = parts(title);
            // Each run of two words or more, with the definitions it spells
            // the most of: (file, share of the name, name).
            // In order, so that ties name the same definition every time.
            let mut runs: std::collections::BTreeMap<&[String], Vec<(&str, f64, &str)>> =
                std::collections::BTreeMap::new();
            for (_, node) in graph.nodes() {
                if node.is_external || matches!(node.kind, SymbolKind::Module | SymbolKind::Package) {
                    continue;
                }
                let Some(file) = node.file else { continue };
                let name = parts(&node.name);
                if name.len() < 2 {
                    continue;
                }
                let mut best: &[String] = &[];
                for i in 0..title.len() {
                    for j in 0..name.len() {
                        let run = title[i..].iter().zip(&name[j..]).take_while(|(a, b)| a == b).count();
                        if run > best.len() {
                            best = &title[i..i + run];
                        }
                    }
                }
                if best.len() >= 2 {
                    let share = best.len() as f64 / name.len() as f64;
                    runs.entry(best).or_default().push((graph.file(file).path.as_str(), share, node.name.as_str()));
                }
            }
            for holders in runs.values() {
                // Tests are named for what they test: they spell the same.
                let spread = holders
                    .iter()
                    .filter(|h| self.index.roles().of(h.0).role != Role::Test)
                    .map(|h| h.0)
                    .collect::<std::collections::HashSet<_>>()
                    .len()
                    .max(1) as f64;
                for &(path, share, name) in holders {
                    let file = entry(&mut files, path);
                    if share / spread > file.title_run {
                        file.title_run = share / spread;
                        file.title_run_name = Some(name.to_owned());
                    }
                }
            }
        }

        // Paths and the stems above.
        let mut seen = std::collections::HashSet::new();
        // A traceback's frames name their files as frames, by depth, below;
        // an import names a module, which only the module resolved counts
        // (`from typing import TypeVar` is not about `astroid/typing.py`).
        let unframed: String = text
            .lines()
            .filter(|l| crate::issue::python_frame(l.trim()).is_none() && !crate::issue::is_import(l))
            .flat_map(|l| [l, "\n"])
            .collect();
        // Names an import binds, wherever it is written (`python -c "from
        // astroid import __pkginfo__; print(__pkginfo__.version)"`), are
        // that import's, not stems.
        let bound = crate::issue::imported_names(text);
        let mut coded_stems: Vec<(&str, f64)> = Vec::new();
        for token in
            unframed.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '(' | ')' | ',' | '[' | ']'))
        {
            // A link to a file names it too: `…/blob/<commit>/pkg/mod.py#L46`.
            let token = token.split(['#', '?']).next().unwrap_or(token);
            let token = token.trim_matches(|c: char| matches!(c, '.' | ':' | ';' | '!' | '?'));
            if token.len() < 3 || !seen.insert(token) {
                continue;
            }
            if crate::hints::is_source_path(token) {
                let wanted = token.trim_start_matches("./").trim_start_matches(".../");
                let found: Vec<&str> = graph
                    .files()
                    .iter()
                    .filter(|f| crate::retrieval::path_matches(&f.path, wanted))
                    .map(|f| f.path.as_str())
                    .collect();
                for path in &found {
                    let file = entry(&mut files, path);
                    file.path_named = file.path_named.max(1.0 / found.len() as f64);
                }
                continue;
            }
            for word in token.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                if bound.iter().any(|b| b == word) {
                    continue;
                }
                let lower = word.to_lowercase();
                let Some(paths) = stems.get(&lower) else { continue };
                let coded = crate::hints::looks_like_code(word) || word.chars().any(|c| c.is_ascii_digit());
                let specificity = 1.0 / paths.len() as f64;
                for path in paths {
                    if coded {
                        coded_stems.push((path, specificity));
                    } else {
                        let file = entry(&mut files, path);
                        file.stem_named = file.stem_named.max(specificity);
                    }
                }
            }
        }
        for joined in &spelled {
            let paths = &stems[joined];
            for path in paths {
                let file = entry(&mut files, path);
                file.stem_named = file.stem_named.max(1.0 / paths.len() as f64);
            }
        }
        // A report that lists many code-shaped file names (a linter's whole
        // output, `L001` to `L049`) names none of them in particular: past
        // three files, they share three files' worth.
        let named_files = coded_stems.iter().map(|(p, _)| *p).collect::<std::collections::HashSet<_>>().len();
        let share = (3.0 / named_files as f64).min(1.0);
        for (path, specificity) in coded_stems {
            let file = entry(&mut files, path);
            file.stem_coded = file.stem_coded.max(specificity * share);
        }

        // Phrases found as they are: error messages above all.
        let mut phrases = crate::issue::phrases(text);
        phrases.retain(|p| !issue.quoted.iter().any(|line| line.contains(p.as_str())));
        if !phrases.is_empty() {
            let automaton = aho_corasick::AhoCorasick::new(&phrases).expect("phrases are short literals");
            let mut holders: Vec<Vec<usize>> = vec![Vec::new(); phrases.len()];
            for at in 0..graph.files().len() {
                for found in automaton.find_overlapping_iter(sources.file_text(at)) {
                    let list = &mut holders[found.pattern().as_usize()];
                    if list.last() != Some(&at) {
                        list.push(at);
                    }
                }
            }
            for (index, list) in
                holders.iter().enumerate().filter(|(_, l)| !l.is_empty() && l.len() <= MAX_PHRASE_FILES)
            {
                let specificity = 1.0 / list.len() as f64;
                for &at in list {
                    let file = entry(&mut files, &graph.files()[at].path);
                    file.phrases += specificity;
                    file.phrase_texts.push(phrases[index].clone());
                }
            }
        }

        // The code and the prose apart, by their words.
        for (part, words) in [(0, &issue.code), (1, &issue.prose)] {
            if words.trim().is_empty() {
                continue;
            }
            for (rank, f) in self.by_file(graph, self.index.lexical().search(words, WORD_DEPTH)).into_iter().enumerate()
            {
                let file = entry(&mut files, f.path);
                let found = (Some(rank as u32 + 1), f.relative);
                if part == 0 {
                    (file.code_rank, file.code_score) = found;
                } else {
                    (file.prose_rank, file.prose_score) = found;
                }
            }
        }

        // Frames, each trace's from its innermost: a frame's depth counts
        // only the frames above it that lie in the repository, so that the
        // call into a dependency (or the runtime) is where it raised.
        let mut frames: Vec<&crate::issue::Frame> = issue.frames.iter().collect();
        frames.sort_by_key(|f| (f.trace, f.depth));
        let mut resolved_in: HashMap<u32, u32> = HashMap::new();
        for frame in frames {
            let wanted = frame.path.replace('\\', "/");
            let wanted = wanted.trim_start_matches("./").trim_start_matches(".../");
            let Some(found) = crate::retrieval::file_named(graph, wanted) else { continue };
            let file = entry(&mut files, &found.path);
            if frame.kind == crate::issue::Kind::Logged {
                // Said there, not raised there: the earlier, the surer.
                file.logged = file.logged.max(1.0 / f64::from(frame.depth + 1));
                continue;
            }
            let depth = resolved_in.entry(frame.trace).or_default();
            file.frame_lines.push((frame.line, frame.function.clone()));
            file.frame_depth = Some(file.frame_depth.map_or(*depth, |d| d.min(*depth)));
            *depth += 1;
        }

        // One hop from named definitions.
        let mut named: Vec<(NodeId, f64)> =
            files.values().flat_map(|f| f.named.iter().map(|n| (n.node, n.specificity))).collect();
        // In order, so that ties name the same edge every time.
        named.sort_unstable_by_key(|&(node, _)| node);
        for (node, specificity) in named {
            let edges = graph.outgoing(node).chain(graph.incoming(node));
            for (edge, neighbour) in edges {
                if !matches!(edge.kind, EdgeKind::Calls | EdgeKind::Inherits | EdgeKind::Imports) {
                    continue;
                }
                let n = graph.node(neighbour);
                if n.is_external || n.kind == SymbolKind::Package {
                    continue;
                }
                let Some(path) = graph.path_of(neighbour) else { continue };
                if graph.path_of(node) == Some(path) {
                    continue;
                }
                let share = specificity * f64::from(edge.confidence);
                let file = entry(&mut files, path);
                if share > file.neighbour {
                    file.neighbour = share;
                    file.neighbour_of = Some((node, edge.kind));
                }
            }
        }

        let mut files: Vec<FileEvidence> = files.into_values().collect();
        for file in &mut files {
            let judged = self.index.roles().of(&file.file);
            file.role = Some(judged.role);
            file.role_why = judged.why.clone();
            file.follows = self.index.roles().sources_of(&file.file).to_vec();
            file.phrase_texts.sort_by_key(|p| std::cmp::Reverse(p.len()));
            file.phrase_texts.truncate(3);
        }
        files.sort_by(|a, b| a.file.cmp(&b.file));
        Evidence { issue, files }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_files_stem_written_as_two_words_is_found() {
        let stems = ["manpage", "indexentries", "dataset"];
        let is_stem = |w: &str| stems.contains(&w);
        let text = "Man page sections are wrong\nThe index entries (and the man-page) break; a data\nset, a data. Set, Data\u{2014}set.";
        assert_eq!(spelled_stems(text, is_stem), ["manpage", "indexentries"]);
        // Written as one word already: the word lane has it.
        assert!(spelled_stems("The manpage builder: man page output", is_stem).is_empty());
        // Short parts and numbers are not joined.
        assert!(spelled_stems("the py test, L0 31", |_| true).is_empty());
    }
}
