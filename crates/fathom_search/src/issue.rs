//! Reading a bug report: which of its words are prose and which are code,
//! the frames of its tracebacks, the modules its examples import and the
//! names they use. A report mixes a title and paragraphs with code blocks,
//! tracebacks, dotted API paths, error messages and program output; each
//! says something different about where the fault is, so each is kept apart.

use crate::hints;
pub use crate::traces::Kind;

/// Where a name was written: in code (a fenced or indented block, a
/// traceback, an inline code span) or in prose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    Prose,
    Code,
}

/// A name the report uses, as written (`apply_color_lut`,
/// `pvlib.irradiance.get_total_irradiance`, `Dict.getitem`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Mention {
    pub text: String,
    pub place: Place,
    /// Named by an import statement (`from a.b import c` names `a.b` and
    /// `a.b.c`).
    pub imported: bool,
}

/// One frame of a traceback: the file, the line and the function.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Frame {
    pub path: String,
    pub line: u32,
    pub function: Option<String>,
    /// 0 for the innermost frame of its traceback (where it raised), 1 for
    /// its caller, and so on.
    pub depth: u32,
    /// Which traceback of the report it is in.
    pub trace: u32,
    /// A frame of a trace, or a location a diagnostic or a log line names.
    pub kind: Kind,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Issue {
    /// The words outside code, inline code spans included.
    pub prose: String,
    /// Code blocks and tracebacks, joined.
    pub code: String,
    pub frames: Vec<Frame>,
    /// Each distinct name once, at its strongest place.
    pub mentions: Vec<Mention>,
    /// The lines of source a traceback quotes under its outer frames: evidence
    /// of those frames, not phrases of their own.
    pub quoted: Vec<String>,
}

impl Issue {
    /// Whether a query reads as a report rather than a search: a title
    /// with a line below it (a short report is one too: "Spanish days and
    /// months should be lowercase" and why), a traceback or a code block, or
    /// a long sentence. A question typed into the search box is one line.
    pub fn is_report(query: &str) -> bool {
        query.contains("```")
            || query.contains(TRACEBACK_HEADER)
            || query.lines().filter(|l| !l.trim().is_empty()).count() >= 2
            || query.split_whitespace().count() >= 30
    }

    pub fn read(text: &str) -> Issue {
        let mut issue = Issue::default();
        let mut in_fence = false;
        let mut in_traceback = false;
        // IPython's tracebacks (a notebook's, or `ipython`'s) put blank lines
        // between frames and number the source lines they quote.
        let mut ipython = false;
        // Frames of the current traceback, outermost first.
        let mut traceback: Vec<Frame> = Vec::new();
        // Its quoted source lines, each with the frame it is under.
        let mut under: Vec<(usize, String)> = Vec::new();
        for line in text.lines() {
            let trimmed = line.trim();
            if is_fence(trimmed) {
                in_fence = !in_fence;
                continue;
            }
            // `Traceback (most recent call last):`, or IPython's `TypeError
            // Traceback (most recent call last)`.
            if trimmed.contains(TRACEBACK_HEADER) {
                issue.close_traceback(&mut traceback, &mut under);
                in_traceback = true;
                ipython = !trimmed.starts_with("Traceback");
                issue.push_code(line);
                continue;
            }
            if in_traceback {
                if let Some(frame) = python_frame(trimmed) {
                    ipython |= !trimmed.starts_with("File \"");
                    traceback.push(frame);
                    issue.push_code(line);
                    continue;
                }
                if ipython {
                    if trimmed.is_empty() || trimmed == "..." || is_cell(trimmed) {
                        continue;
                    }
                    if let Some((arrow, number, source)) = numbered_source(trimmed) {
                        issue.push_code(source);
                        // The arrow marks the line that ran (IPython's older
                        // frames give no line of their own); the lines around
                        // it are context, never where it raised.
                        if arrow {
                            if let Some(frame) = traceback.last_mut().filter(|f| f.line == 0) {
                                frame.line = number;
                            }
                            under.push((traceback.len(), source.to_owned()));
                        } else {
                            issue.quoted.push(source.to_owned());
                        }
                        if !source.starts_with('#') {
                            issue.scan_code(source);
                        }
                        continue;
                    }
                }
                // The source line under a frame is indented; the exception
                // line that ends a traceback is not.
                if line.starts_with(char::is_whitespace) && !trimmed.is_empty() {
                    issue.push_code(line);
                    under.push((traceback.len(), trimmed.to_owned()));
                    issue.scan_code(trimmed);
                    continue;
                }
                in_traceback = false;
                issue.close_traceback(&mut traceback, &mut under);
                issue.push_code(line);
                issue.scan_code(trimmed);
                continue;
            }
            // A frame outside a traceback's header (an excerpt).
            if let Some(frame) = python_frame(trimmed) {
                traceback.push(frame);
                issue.push_code(line);
                continue;
            }
            issue.close_traceback(&mut traceback, &mut under);
            let indented = line.starts_with("    ") || line.starts_with('\t');
            if in_fence || indented || trimmed.starts_with(">>>") || trimmed.starts_with("$ ") {
                issue.push_code(line);
                issue.scan_code(trimmed.trim_start_matches(">>>").trim_start_matches("...").trim_start_matches("$ "));
            } else {
                issue.scan_prose(line);
                issue.prose.push_str(line);
                issue.prose.push('\n');
            }
        }
        issue.close_traceback(&mut traceback, &mut under);
        // Other languages' traces, diagnostics and logged locations.
        let python = issue.frames.iter().map(|f| f.trace + 1).max().unwrap_or(0);
        for located in crate::traces::read(text) {
            if issue.frames.iter().any(|f| f.path == located.path && f.line == located.line) {
                continue;
            }
            if let Some(function) = &located.function {
                issue.mention(function, Place::Code, false);
            }
            let trace = if located.kind == Kind::Raised { python + located.trace } else { located.trace };
            issue.frames.push(Frame {
                path: located.path,
                line: located.line,
                function: located.function,
                depth: located.depth,
                trace,
                kind: located.kind,
            });
        }
        issue
    }

    /// A line of the report's code, as it is.
    fn push_code(&mut self, line: &str) {
        self.code.push_str(line);
        self.code.push('\n');
    }

    /// Numbers the frames of a finished traceback from its innermost, and
    /// keeps the source lines quoted under its outer frames apart (the
    /// innermost frame's line is where it raised, often with its message).
    fn close_traceback(&mut self, traceback: &mut Vec<Frame>, under: &mut Vec<(usize, String)>) {
        let n = traceback.len();
        self.quoted.extend(under.drain(..).filter(|(frames, _)| *frames < n).map(|(_, line)| line));
        let trace = self.frames.iter().map(|f| f.trace + 1).max().unwrap_or(0);
        for (i, mut frame) in traceback.drain(..).enumerate() {
            frame.depth = (n - 1 - i) as u32;
            frame.trace = trace;
            if let Some(function) = &frame.function {
                self.mention(function, Place::Code, false);
            }
            self.frames.push(frame);
        }
    }

    fn mention(&mut self, text: &str, place: Place, imported: bool) {
        let text = text.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'));
        if text.len() < 2 || text.starts_with(|c: char| c.is_ascii_digit()) || KEYWORDS.contains(&text) {
            return;
        }
        match self.mentions.iter_mut().find(|m| m.text == text) {
            Some(m) => {
                m.place = m.place.max(place);
                m.imported |= imported;
            }
            None => self.mentions.push(Mention { text: text.to_owned(), place, imported }),
        }
    }

    /// A line of code: its imports and every name in it.
    fn scan_code(&mut self, line: &str) {
        let line = line.split(" #").next().unwrap_or(line);
        if let Some(rest) = line.strip_prefix("from ")
            && let Some((module, names)) = rest.split_once(" import ")
        {
            let module = module.trim();
            self.mention(module, Place::Code, true);
            for name in names.split(',') {
                let name = name
                    .split(" as ")
                    .next()
                    .unwrap_or("")
                    .trim_matches(|c: char| c == '(' || c == ')' || c.is_whitespace());
                if !name.is_empty() && name != "*" {
                    self.mention(&format!("{module}.{name}"), Place::Code, true);
                }
            }
            return;
        }
        if let Some(rest) = line.strip_prefix("import ") {
            for module in rest.split(',') {
                self.mention(module.split(" as ").next().unwrap_or("").trim(), Place::Code, true);
            }
            return;
        }
        for word in dotted_words(line) {
            self.mention(&word, Place::Code, false);
        }
    }

    /// A line of prose: its inline code spans are code, and its code-shaped
    /// words (`get_total_irradiance`, `Dataset.to_json`) are names written
    /// in prose.
    fn scan_prose(&mut self, line: &str) {
        for (i, span) in line.split('`').enumerate() {
            if i % 2 == 1 {
                self.scan_code(span.trim());
            } else {
                for word in dotted_words(span) {
                    if hints::looks_like_code(&word) {
                        self.mention(&word, Place::Prose, false);
                    }
                }
            }
        }
    }
}

/// Words that are syntax, not names, in the languages reports quote most.
const KEYWORDS: &[&str] = &[
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except",
    "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
    "return", "try", "while", "with", "yield", "None", "True", "False", "self", "cls", "print", "function", "const",
    "let", "var", "new", "this", "null", "true", "false", "public", "private", "static", "void", "fn", "pub", "mut",
    "impl", "use", "struct",
];

/// The phrases of a report that code could hold as they are: runs of at
/// least three words, between quotes, brackets and other punctuation, in
/// any line (an error message is one such run, and its variable parts are
/// cut away by their quotes). Each distinct phrase once, in order.
pub fn phrases(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        // An import names modules, which names resolve; as a phrase it finds
        // every file that imports the same.
        if is_import(line) {
            continue;
        }
        for run in line.split(|c: char| !(c.is_alphanumeric() || c == ' ' || c == '_' || c == '-')) {
            let run = run.trim();
            let words = run.split(' ').filter(|w| w.chars().any(char::is_alphanumeric)).count();
            if words >= 3 && run.len() >= 12 && !out.iter().any(|p| p == run) {
                out.push(run.to_owned());
            }
        }
    }
    out
}

/// The names the report's imports bind (`b` and `c` of `from a import b, d
/// as c`; `a` of `import a.b`), in whichever statement of a line they are:
/// a shell's `python -c "import a; print(a.x)"` as well.
pub(crate) fn imported_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for statement in text.lines().flat_map(|l| l.split([';', '"', '`', '\''])) {
        let Some((from, bound)) = import_bound(statement) else { continue };
        for part in bound.split(',') {
            let part = part.trim_matches(|c: char| c == '(' || c == ')' || c.is_whitespace());
            let name = part.rsplit(" as ").next().unwrap_or(part).trim();
            // `import a.b` binds `a`.
            let name = if !from && !part.contains(" as ") { name.split('.').next().unwrap_or(name) } else { name };
            if !name.is_empty() && name != "*" && !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

/// `import a.b`, `from a import b`, `>>> from a import b`.
pub(crate) fn is_import(line: &str) -> bool {
    import_bound(line).is_some()
}

/// Where `line` is an import statement: whether it is a `from` import, and
/// what it binds as written (`b, d as c` of `from a import b, d as c`; `a.b
/// as x, c` of `import a.b as x, c`).
fn import_bound(line: &str) -> Option<(bool, &str)> {
    let dotted = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    let code = line.trim_start_matches(|c: char| c.is_whitespace() || c == '>' || c == '.').trim_end();
    if let Some(rest) = code.strip_prefix("from ") {
        let (module, bound) = rest.split_once(" import ")?;
        return dotted(module).then_some((true, bound));
    }
    let rest = code.strip_prefix("import ")?;
    rest.split(',')
        .all(|part| {
            let words: Vec<&str> = part.split_whitespace().collect();
            matches!(words.as_slice(), [m] if dotted(m))
                || matches!(words.as_slice(), [m, "as", a] if dotted(m) && dotted(a))
        })
        .then_some((false, rest))
}

/// A report without what its tracker's template wrote around it: HTML
/// comments, which a template uses for instructions the rendered report
/// never shows, lines wholly in italics (`_If this is a parsing issue,
/// please include the `sqlfluff parse` output…_`, `_Originally posted by…_`),
/// and listings of installed versions.
/// Such words are the same in every report of a project and name its
/// command line, not the fault. Code blocks are kept as they are.
pub fn without_template(text: &str) -> String {
    let mut uncommented = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        uncommented.push_str(&rest[..start]);
        rest = rest[start..].find("-->").map_or("", |end| &rest[start + end + 3..]);
    }
    uncommented.push_str(rest);
    let lines: Vec<&str> = uncommented.lines().collect();
    let listed = version_listings(&lines);
    let mut out = String::with_capacity(uncommented.len());
    let mut in_fence = false;
    for (at, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if is_fence(trimmed) {
            in_fence = !in_fence;
        } else if listed[at] || (!in_fence && in_italics(trimmed)) {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// What a Python traceback starts with, after IPython's exception name if
/// any (`TypeError   Traceback (most recent call last)`).
const TRACEBACK_HEADER: &str = "Traceback (most recent call last)";

/// A report whose tracebacks carry a tag on every line (pytest's
/// `INTERNALERROR> `, a quoted reply's `> `) with the tag taken off, so that
/// their frames read as frames rather than as paths written out. A tag is
/// what stands before `Traceback (most recent call last)` on its line when
/// the next line starts with it too; it is taken off as long as the lines
/// that follow start with it.
pub fn untagged(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::with_capacity(text.len());
    let mut tag: Option<&str> = None;
    for (at, line) in lines.iter().enumerate() {
        tag = tag.filter(|t| line.starts_with(t));
        if tag.is_none()
            && let Some(start) = line.find(TRACEBACK_HEADER)
        {
            let before = &line[..start];
            let next = lines.get(at + 1).copied().unwrap_or_default();
            if !before.trim().is_empty() && next.starts_with(before) {
                tag = Some(before);
            }
        }
        out.push_str(tag.map_or(*line, |t| &line[t.len()..]));
        out.push('\n');
    }
    out
}

/// How many lines in a row make a listing of installed versions.
const LISTING_LINES: usize = 4;

/// The lines of listings of installed packages and their versions, which
/// trackers ask for (`xr.show_versions()`, `pip list`, `pip freeze`): each
/// line a name and a version (`numpy: 1.19.2`, `attrs   19.3.0`,
/// `pluggy==0.13.1`, `libnetcdf: None`), at least [`LISTING_LINES`] in a row
/// (blank lines between them allowed). They name every library the
/// reporter has installed, none of them the fault.
fn version_listings(lines: &[&str]) -> Vec<bool> {
    let mut listed = vec![false; lines.len()];
    let mut run: Vec<usize> = Vec::new();
    let close = |run: &mut Vec<usize>, listed: &mut Vec<bool>| {
        if run.len() >= LISTING_LINES {
            for &at in run.iter() {
                listed[at] = true;
            }
        }
        run.clear();
    };
    for (at, line) in lines.iter().enumerate() {
        if is_version_line(line) {
            run.push(at);
        } else if !line.trim().is_empty() {
            close(&mut run, &mut listed);
        }
    }
    close(&mut run, &mut listed);
    listed
}

/// `numpy: 1.19.2`, `attrs   19.3.0`, `pluggy==0.13.1`, `- pandas: 1.1.3`,
/// `libnetcdf: None`; not `ds.Rows = 5`, which is code.
fn is_version_line(line: &str) -> bool {
    let line = line.trim().trim_start_matches(['-', '*', '>', ' ']);
    let (name, version) = if let Some((name, version)) = line.split_once("==") {
        (name, version)
    } else if let Some((name, version)) = line.split_once(':') {
        (name, version)
    } else {
        // `attrs   19.3.0`: two words, as `pip list` prints them.
        let mut words = line.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some(name), Some(version), None) => (name, version),
            _ => return false,
        }
    };
    let name = name.trim().trim_matches('`');
    let version = version.trim().trim_matches('`');
    let named = !name.is_empty()
        && name.chars().next().is_some_and(char::is_alphabetic)
        && name.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '[' | ']'));
    // A release: digits and dots first (two numbers at least), whatever
    // follows (`2.14.0-dev0`, `1.3.0+cpu`), or none installed.
    let release = version.split_whitespace().next().is_some_and(|v| {
        let v = v.trim_start_matches('v');
        let numeric: String = v.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
        numeric.split('.').filter(|p| !p.is_empty()).count() >= 2 && numeric.starts_with(|c: char| c.is_ascii_digit())
    }) || version == "None";
    named && release
}

/// A line that opens or closes a fenced code block.
pub(crate) fn is_fence(trimmed: &str) -> bool {
    trimmed.starts_with("```") || trimmed.starts_with("~~~")
}

/// `_a sentence_` or `*a sentence*`, not `__init__`, `**bold**` or
/// `*args, **kwargs*`-like code.
fn in_italics(line: &str) -> bool {
    [('_', "__"), ('*', "**")].into_iter().any(|(mark, double)| {
        line.len() > 2
            && line.starts_with(mark)
            && line.ends_with(mark)
            && !line.starts_with(double)
            && !line.ends_with(double)
            && !line[1..line.len() - 1].contains(mark)
            && line.contains(' ')
    })
}

/// `File "pkg/mod.py", line 12, in func`; IPython's `File
/// ~/pkg/mod.py:12, in Class.func(self, x)`, and its older `~/pkg/mod.py in
/// func(self, x)`, whose line is the arrow's below it (0 until then).
pub(crate) fn python_frame(line: &str) -> Option<Frame> {
    python_frame_plain(line).or_else(|| ipython_frame(line))
}

fn python_frame_plain(line: &str) -> Option<Frame> {
    let rest = line.strip_prefix("File \"")?;
    let (path, rest) = rest.split_once('"')?;
    let rest = rest.trim_start_matches(',').trim_start().strip_prefix("line ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let line = digits.parse().ok()?;
    let function =
        rest.split_once(" in ").map(|(_, f)| f.trim().to_owned()).filter(|f| !f.starts_with('<') && !f.is_empty());
    Some(Frame { path: path.to_owned(), line, function, depth: 0, trace: 0, kind: Kind::Raised })
}

fn ipython_frame(line: &str) -> Option<Frame> {
    // The function, as IPython writes it: `Plot._plot(self, pyplot)`.
    let function = |rest: &str| {
        let name = rest.split('(').next().unwrap_or(rest).trim();
        let name = name.rsplit('.').next().unwrap_or(name);
        (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| name.to_owned())
    };
    if let Some(rest) = line.strip_prefix("File ") {
        let (location, rest) = rest.split_once(", in ")?;
        let (path, number) = location.rsplit_once(':')?;
        let line = number.parse().ok()?;
        return path.ends_with(".py").then(|| Frame {
            path: path.to_owned(),
            line,
            function: function(rest),
            depth: 0,
            trace: 0,
            kind: Kind::Raised,
        });
    }
    let (path, rest) = line.split_once(".py in ")?;
    let path = format!("{path}.py");
    let plain = !path.contains(char::is_whitespace) && (path.contains('/') || path.contains('\\'));
    (plain && rest.contains('(')).then(|| Frame {
        path,
        line: 0,
        function: function(rest),
        depth: 0,
        trace: 0,
        kind: Kind::Raised,
    })
}

/// A header of IPython's for the notebook cell or input that ran:
/// `<ipython-input-3-46dd21e9c95a> in <module>`, `Cell In[1], line 3`,
/// `Input In [4], in <cell line: 2>()`.
fn is_cell(line: &str) -> bool {
    line.starts_with("<ipython-input-") || line.starts_with("Cell In[") || line.starts_with("Input In [")
}

/// A source line as IPython quotes it: `--> 841 plotter._setup(self)` (the
/// line that ran) or `    838 plotter._compute_stats(self)`: whether it
/// is the arrow's, its number and its source.
fn numbered_source(line: &str) -> Option<(bool, u32, &str)> {
    let rest = line.trim_start_matches('-');
    let arrow = rest.len() < line.len();
    let rest = if arrow { rest.strip_prefix('>')?.trim_start() } else { rest };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let number = rest[..digits].parse().ok()?;
    Some((arrow, number, rest[digits..].trim()))
}

/// Words of code, dots kept: `ds.pixel_array.shape`, `L031`, `__init__`.
fn dotted_words(text: &str) -> Vec<String> {
    let text = qualified_as_dotted(text);
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .map(|w| w.trim_matches('.'))
        .filter(|w| !w.is_empty() && !w.contains(".."))
        .map(str::to_owned)
        .collect()
}

/// Qualified names in each language's own syntax written with dots, as
/// names are resolved: `tokio::sync::Mutex` and `ns::C::m` (Rust, C++,
/// PHP), `com.x.Y#m` and `Array#map` (Javadoc, Ruby) between two name
/// characters; `#123` and `a :: b` are left as they are.
fn qualified_as_dotted(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("::") && !text.contains('#') {
        return std::borrow::Cow::Borrowed(text);
    }
    let name = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let before = out.chars().next_back();
        let (separator, len) = if rest.starts_with("::") { (true, 2) } else { (c == '#', 1) };
        if separator && name(before) && name(rest[len..].chars().next()) {
            out.push('.');
            rest = &rest[len..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_names_in_each_languages_syntax_are_read_as_dotted_names() {
        let issue = Issue::read(
            "Deadlock in `tokio::sync::Mutex::lock`\n\nSee com.fasterxml.jackson.core.JsonParser#nextToken and\n`nlohmann::basic_json::parse`, also Array#map (#4512); a :: b.\n",
        );
        let texts: Vec<&str> = issue.mentions.iter().map(|m| m.text.as_str()).collect();
        for name in [
            "tokio.sync.Mutex.lock",
            "com.fasterxml.jackson.core.JsonParser.nextToken",
            "nlohmann.basic_json.parse",
            "Array.map",
        ] {
            assert!(texts.contains(&name), "{name}: {texts:?}");
        }
        assert!(!texts.iter().any(|t| t.contains("4512")), "{texts:?}");
        assert_eq!(qualified_as_dotted("a :: b, #1, x#"), "a :: b, #1, x#");
    }

    #[test]
    fn listings_of_installed_versions_are_template_not_the_report() {
        let report = "Concat drops attributes\n\nSteps:\n```python\nds.Rows = 5\nds.Columns = 6\nds.attrs = {}\nxr.concat([ds, ds], dim='x')\n```\n\nINSTALLED VERSIONS\n------------------\ncommit: None\npython: 3.8.5 (default)\n\nnumpy: 1.19.2\nnetCDF4: 1.5.4\nh5netcdf: None\n- zarr: 2.4.0\n\npip list:\nattrs          19.3.0\npluggy==0.13.1\nmore-itertools 7.0.0\npy             1.8.0\n\nnumpy 1.19 and pandas 1.1 are the ones we use.\n";
        let kept = without_template(report);
        for gone in ["netCDF4", "h5netcdf", "zarr", "pluggy", "more-itertools", "commit: None"] {
            assert!(!kept.contains(gone), "{gone}: {kept}");
        }
        for left in ["ds.Rows = 5", "xr.concat", "INSTALLED VERSIONS", "pip list:", "numpy 1.19 and pandas 1.1"] {
            assert!(kept.contains(left), "{left}: {kept}");
        }
        // Three version lines are a sentence's worth, not a listing.
        let short = "Versions:\n- pvlib: 0.8.0\n- pandas: 1.1.3\n- python: 3.8\n";
        assert_eq!(without_template(short), short);
    }

    const REPORT: &str = "apply_color_lut() incorrect exception when missing RedPaletteColorLUTDescriptor
**Describe the bug**
`AttributeError` when used on a dataset without `RedPaletteColorLookupTableDescriptor `

```python
from pydicom.pixel_data_handlers.util import apply_color_lut
ds = dcmread(\"CT_small.dcm\")
```
```
Traceback (most recent call last):
  File \"<stdin>\", line 1, in <module>
  File \".../pydicom/pixel_data_handlers/util.py\", line 116, in apply_color_lut
    lut_desc = ds.RedPaletteColorLookupTableDescriptor
  File \".../pydicom/dataset.py\", line 768, in __getattr__
    return object.__getattribute__(self, name)
AttributeError: 'FileDataset' object has no attribute 'RedPaletteColorLookupTableDescriptor'
```
";

    #[test]
    fn the_names_imports_bind_wherever_they_are_written() {
        let text = "### `python -c \"from astroid import __pkginfo__; print(__pkginfo__.version)\"` output\n\
                    >>> import numpy.linalg as la, os.path\n\
                    from pydicom.dataset import (Dataset, FileDataset as FD)\n\
                    from the docs import nothing here\n";
        assert_eq!(imported_names(text), ["__pkginfo__", "la", "os", "Dataset", "FD"]);
    }

    #[test]
    fn a_report_is_split_into_prose_code_and_frames() {
        let issue = Issue::read(REPORT);
        assert!(Issue::is_report(REPORT));
        assert!(!Issue::is_report("where is the session saved"));
        assert!(Issue::is_report("Add support for missing VRs\nMissing: OV, SV, UV"), "a title and a line");
        assert!(!Issue::is_report("  how are dates serialized to JSON?\n"), "one line, with its blank");
        let frames: Vec<(&str, u32, Option<&str>, u32)> =
            issue.frames.iter().map(|f| (f.path.as_str(), f.line, f.function.as_deref(), f.depth)).collect();
        assert_eq!(
            frames,
            [
                ("<stdin>", 1, None, 2),
                (".../pydicom/pixel_data_handlers/util.py", 116, Some("apply_color_lut"), 1),
                (".../pydicom/dataset.py", 768, Some("__getattr__"), 0)
            ]
        );
        let find = |t: &str| issue.mentions.iter().find(|m| m.text == t).cloned();
        let imported = find("pydicom.pixel_data_handlers.util.apply_color_lut").unwrap();
        assert!(imported.imported && imported.place == Place::Code);
        assert!(find("pydicom.pixel_data_handlers.util").unwrap().imported);
        assert_eq!(find("apply_color_lut").unwrap().place, Place::Code, "named in a frame and in code");
        assert_eq!(find("RedPaletteColorLookupTableDescriptor").unwrap().place, Place::Code, "an inline span");
        assert_eq!(find("dcmread").unwrap().place, Place::Code);
        assert!(find("Describe").is_none(), "prose words are not names");
        assert!(issue.prose.contains("incorrect exception") && !issue.prose.contains("dcmread"));
        assert!(issue.code.contains("dcmread") && issue.code.contains("object.__getattribute__"));
        assert_eq!(issue.quoted, ["lut_desc = ds.RedPaletteColorLookupTableDescriptor"], "not the line that raised");
    }

    #[test]
    fn ipython_tracebacks_give_their_frames() {
        let report = "Color mapping fails with boolean data\n```python-traceback\n---------------------------------------------------------------------------\nTypeError                                 Traceback (most recent call last)\nCell In[1], line 1\n----> 1 so.Plot([\"a\"], [1], color=[True]).plot()\n\nFile ~/code/seaborn/seaborn/_core/plot.py:841, in Plot._plot(self, pyplot)\n    840 # Process scale spec for semantic variables and coordinates computed by stat\n--> 841 plotter._setup_scales(self, common, layers)\n\n...\n\nFile ~/code/seaborn/seaborn/_core/scales.py:351, in ContinuousBase._setup(self, data, prop, axis)\n    350 a = forward(vmin)\n--> 351 b = forward(vmax) - forward(vmin)\n    353 def normalize(x):\n\nTypeError: numpy boolean subtract, the `-` operator, is not supported\n```\n\nAn older one:\n```\nKeyError                                  Traceback (most recent call last)\n<ipython-input-3-46dd21e9c95a> in <module>\n----> 4 g.map(sns.scatterplot, hue=iris[\"species\"])\n\n~/envs/lib/python3.8/site-packages/seaborn/_core.py in _lookup_single(self, key)\n    143             # Use a value that's in the original data vector\n--> 144             value = self.lookup_table[key]\n\nKeyError: 'setosa'\n```\n";
        let issue = Issue::read(report);
        let frames: Vec<(&str, u32, Option<&str>, u32)> =
            issue.frames.iter().map(|f| (f.path.as_str(), f.line, f.function.as_deref(), f.depth)).collect();
        assert_eq!(
            frames,
            [
                ("~/code/seaborn/seaborn/_core/plot.py", 841, Some("_plot"), 1),
                ("~/code/seaborn/seaborn/_core/scales.py", 351, Some("_setup"), 0),
                ("~/envs/lib/python3.8/site-packages/seaborn/_core.py", 144, Some("_lookup_single"), 0),
            ]
        );
        // The lines around the one that ran are context, not phrases of the
        // report; the innermost frame's arrow line is where it raised.
        assert!(issue.quoted.iter().any(|q| q.starts_with("# Process scale spec")), "{:?}", issue.quoted);
        assert!(issue.quoted.iter().any(|q| q == "plotter._setup_scales(self, common, layers)"));
        assert!(!issue.quoted.iter().any(|q| q.starts_with("b = forward(vmax)")));
        assert!(issue.mentions.iter().any(|m| m.text == "plotter._setup_scales"));
        assert!(issue.code.contains("TypeError: numpy boolean subtract") && !issue.prose.contains("841"));
    }

    #[test]
    fn prose_names_and_other_languages_locations() {
        let issue =
            Issue::read("Calling pvlib.irradiance.get_total_irradiance with model='perez' fails at src/app.ts:12:3");
        let texts: Vec<&str> = issue.mentions.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, ["pvlib.irradiance.get_total_irradiance", "app.ts"], "not `Calling`, `model`, `perez`");
        assert_eq!(issue.mentions[0].place, Place::Prose);
        assert_eq!(issue.frames.len(), 1);
        assert_eq!((issue.frames[0].path.as_str(), issue.frames[0].line), ("src/app.ts", 12));
    }

    #[test]
    fn a_template_is_not_read() {
        let report = "Extra space after a fix\n<!-- Please search the\nexisting issues first -->\n_If this is a parsing issue, please include the `sqlfluff parse` output._\n`__init__` is fine\n```\n_private_\n<!-- a comment in a block goes too -->\n```\n*a note*\n";
        let text = without_template(report);
        assert_eq!(text, "Extra space after a fix\n\n`__init__` is fine\n```\n_private_\n\n```\n");
        assert!(!Issue::read(&text).mentions.iter().any(|m| m.text == "sqlfluff parse" || m.text == "parse"));
        assert_eq!(without_template("a <!-- never closed\nb"), "a \n");
    }

    #[test]
    fn phrases_are_runs_of_words_outside_imports() {
        let text = "from pydicom import Dataset\n>>> import numpy as np\n$ cat q.sql | sqlfluff lint -\nRuntimeError: Dropped elements in sequence matching! 'a' != ';'";
        assert_eq!(phrases(text), ["Dropped elements in sequence matching"]);
        assert!(is_import(">>> from typing import TypeVar") && is_import("    import numpy as np"));
        assert!(is_import("import os, sys") && is_import("from . import utils"));
        assert!(!is_import("the import fails") && !is_import("from the docs, import is slow"));
        assert!(!is_import("import is slow since 2.0"));
    }

    #[test]
    fn a_tagged_traceback_reads_as_a_traceback() {
        let report = "INTERNALERROR when exception in __repr__\n\
INTERNALERROR> Traceback (most recent call last):\n\
INTERNALERROR>   File \"/usr/lib/python3.8/site-packages/_pytest/main.py\", line 191, in wrap_session\n\
INTERNALERROR>     session.exitstatus = doit(config, session) or 0\n\
INTERNALERROR>   File \"/usr/lib/python3.8/site-packages/_pytest/_io/saferepr.py\", line 47, in repr\n\
INTERNALERROR>     s = super().repr(x)\n\
INTERNALERROR> RuntimeError: No active exception to reraise\n\
After it: INTERNALERROR> is only a word.\n";
        let text = untagged(report);
        assert!(text.contains("\nTraceback (most recent call last):\n  File \"/usr/lib"), "{text}");
        assert!(
            text.ends_with("RuntimeError: No active exception to reraise\nAfter it: INTERNALERROR> is only a word.\n")
        );
        let frames = Issue::read(&text).frames;
        let innermost = frames.iter().find(|f| f.depth == 0).expect("frames");
        assert_eq!(innermost.path, "/usr/lib/python3.8/site-packages/_pytest/_io/saferepr.py");
        assert_eq!(innermost.function.as_deref(), Some("repr"));
        let tagged = Issue::read(report).frames;
        assert!(
            !tagged.iter().any(|f| f.function.as_deref() == Some("repr")),
            "tagged, the frames are not read: {tagged:?}"
        );
        // IPython's header has the exception's name before it, and its next
        // line does not start with it: nothing is taken off.
        let notebook = "TypeError                  Traceback (most recent call last)\nCell In[1], line 3\n";
        assert_eq!(untagged(notebook), notebook);
    }
}
