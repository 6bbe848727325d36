//! A located file in words: what put it there, and what to open in it.

use fathom_graph::NodeId;
use fathom_model::SymbolKind;
use serde::Serialize;

use super::Localiser;
use super::evidence::{FileEvidence, Named};
use super::rank::Located;
use crate::issue::Place;
use crate::roles::Role;

/// A definition inside a located file and why it is worth opening.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocatedSymbol {
    pub node: NodeId,
    pub why: Vec<String>,
}

/// A located file, explained: what put it there, in words, and the
/// definitions to open in it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Explained {
    pub file: String,
    pub score: f64,
    pub reasons: Vec<String>,
    pub symbols: Vec<LocatedSymbol>,
    pub evidence: FileEvidence,
}

impl Localiser<'_> {
    pub(super) fn explain(&self, text: &str, located: Located) -> Explained {
        let graph = self.sources.graph();
        let e = &located.evidence;
        let mut reasons = Vec::new();
        let mut symbols: Vec<LocatedSymbol> = Vec::new();
        let add = |symbols: &mut Vec<LocatedSymbol>, node: NodeId, why: String| match symbols
            .iter_mut()
            .find(|s| s.node == node)
        {
            Some(s) if !s.why.contains(&why) => s.why.push(why),
            Some(_) => {}
            None => symbols.push(LocatedSymbol { node, why: vec![why] }),
        };
        if let Some(depth) = e.frame_depth {
            reasons.push(match depth {
                0 => "a traceback frame, where it raised".to_owned(),
                1 => "a traceback frame, one call above where it raised".to_owned(),
                d => format!("a traceback frame, {d} calls above where it raised"),
            });
            for (line, function) in &e.frame_lines {
                if let Some(node) = crate::retrieval::frame_symbol(graph, &e.file, *line, function.as_deref()) {
                    add(&mut symbols, node, format!("traceback line {line}"));
                }
            }
        }
        if e.path_named > 0.0 {
            reasons.push("the report names this file".to_owned());
        }
        if e.logged > 0.0 {
            reasons.push("a diagnostic or a log line of the report names a line of it".to_owned());
        }
        if let Some(mention) = e.title_mention.as_ref().filter(|_| e.title_named > 0.0) {
            reasons.push(format!("defines what the title names: `{mention}`"));
        }
        if let Some(name) = e.title_run_name.as_ref().filter(|_| e.title_run >= 0.25) {
            reasons.push(format!("the title's words spell `{name}`"));
        }
        let mut named: Vec<&Named> = e.named.iter().collect();
        named.sort_by(|a, b| b.specificity.total_cmp(&a.specificity));
        if !named.is_empty() {
            let mentions: Vec<String> = named.iter().take(4).map(|n| format!("`{}`", n.mention)).collect();
            let mut unique = mentions.clone();
            unique.dedup();
            reasons.push(format!("defines what the report names: {}", unique.join(", ")));
            for n in named.iter().take(5) {
                let how = if n.imported {
                    "imported in the report"
                } else if n.place == Place::Code {
                    "named in the report's code"
                } else {
                    "named in the report"
                };
                add(&mut symbols, n.node, format!("{how} as `{}`", n.mention));
            }
        }
        if e.module_named > 0.0 {
            reasons.push("the report imports or names this module".to_owned());
        }
        if !e.phrase_texts.is_empty() {
            let quoted: Vec<String> = e.phrase_texts.iter().map(|p| format!("\"{p}\"")).collect();
            reasons.push(format!("holds the report's words as they are: {}", quoted.join(", ")));
        }
        if let Some(rank) = e.word_rank {
            let terms = e.word_chunk.map(|c| self.index.matched_terms(text, c)).unwrap_or_default();
            let shown: Vec<&str> = terms.iter().take(8).map(String::as_str).collect();
            reasons.push(format!("by its words, #{rank}: {}", shown.join(", ")));
            if let Some(chunk) = e.word_chunk {
                add(
                    &mut symbols,
                    self.index.chunks().node(chunk),
                    format!("best match for the words ({})", shown.join(", ")),
                );
            }
        }
        if e.code_rank == Some(1) {
            reasons.push("first by the words of the report's code".to_owned());
        }
        if let Some(rank) = e.dense_rank.or(e.static_rank).filter(|&r| r <= 3) {
            reasons.push(format!("#{rank} by meaning"));
        }
        if e.stem_named > 0.0 || e.stem_coded > 0.0 {
            reasons.push("its name is a word of the report".to_owned());
        }
        if let Some((from, edge)) = e.neighbour_of.filter(|_| e.neighbour > 0.0) {
            reasons.push(format!("one {} edge from `{}`", edge.label(), graph.node(from).qualified_name));
        }
        if let Some(best) = e.follows.first().filter(|_| e.follows.len() == 1) {
            reasons.push(format!("generated from `{best}`: ranked as its companion"));
        } else if !e.follows.is_empty() {
            reasons
                .push(format!("generated from {} files: ranked as a companion of the best of them", e.follows.len()));
        }
        if let Some(why) = e.role_why.as_ref().filter(|_| e.role != Some(Role::Source)) {
            reasons.push(format!("{why}: ranked below the project's own source"));
        }
        symbols.retain(|s| graph.node(s.node).kind != SymbolKind::Module);
        symbols.truncate(5);
        Explained {
            file: located.evidence.file.clone(),
            score: located.score,
            reasons,
            symbols,
            evidence: located.evidence,
        }
    }
}
