//! Stack traces, panics, crash reports and compiler diagnostics in every
//! language Fathom reads, beside Python's tracebacks (read in `issue`).
//!
//! Each trace is a list of frames, numbered from the innermost (where it
//! raised, panicked or crashed) outwards:
//! - Java and Kotlin: `at a.b.C.m(C.java:12)`, each `Caused by:` a trace of
//!   its own (the package spells the folders: `a/b/C.java`);
//! - C#: `at A.B.C.M() in /src/C.cs:line 12`;
//! - Node and browsers: `at f (file:///…/lib/x.js:195:42)`, `at /x/y.js:1:2`,
//!   `f@http://host/x.js:1:2`; `node:internal` frames are the runtime's;
//! - Go: `goroutine 1 [running]:`, then each function's line and its
//!   `\t/path/x.go:12 +0x1f`;
//! - Rust: `panicked at src/x.rs:10:5` (and the older `panicked at 'msg',
//!   src/x.rs:10:5`), and a backtrace's `  3: a::b::f` with its
//!   `at ./src/x.rs:10:5`;
//! - C and C++: gdb's and AddressSanitizer's `#3 0x… in f src/x.c:12:3`
//!   (`at src/x.c:12` for gdb), lldb's `frame #3: … at x.c:12:3`;
//! - Ruby's `from x.rb:12:in 'm'`, PHP's `#0 /x.php(12): f()`.
//!
//! A compiler's diagnostic (`x.cpp:12:5: error: …`, MSVC's `x.cpp(12):
//! error C2065`) and a log line that names its source line (`DEBUG|globset|
//! crates/globset/src/lib.rs:421: built glob set`, Go's `log` with
//! `Lshortfile`) are locations, not frames: [`Kind::Logged`]. Nothing here
//! knows any project: paths are matched against the tree later, so a frame
//! inside a dependency's copy (`node_modules/axios/lib/utils.js`) names the
//! repository's own file when the repository is that dependency, and is
//! passed over otherwise, which leaves the call into it the innermost frame
//! that counts.

use serde::Serialize;

/// What a location is evidence of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A frame of a stack trace: code that ran when it failed.
    Raised,
    /// A diagnostic's or a log line's location: where something was said.
    Logged,
}

/// One location of a trace, as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Located {
    pub path: String,
    pub line: u32,
    pub function: Option<String>,
    pub kind: Kind,
    /// Which trace of the report (0, 1, …), and the frame's place in it from
    /// the innermost; a logged location's trace is 0 and its depth its place
    /// among the report's logged locations.
    pub trace: u32,
    pub depth: u32,
}

/// The traces of a report in every language but Python's.
pub fn read(text: &str) -> Vec<Located> {
    let mut reader = Reader::default();
    let lines: Vec<&str> = text.lines().collect();
    for (at, raw) in lines.iter().enumerate() {
        reader.line(raw, lines.get(at + 1).copied());
    }
    reader.out
}

#[derive(Default)]
struct Reader {
    out: Vec<Located>,
    /// The trace being read, and how many frames it has.
    open: Option<(u32, u32)>,
    traces: u32,
    /// The function a Go or Rust backtrace named on the line before its
    /// location.
    pending: Option<String>,
    /// A frame numbered by the trace itself (`#3`, `  3:`): the number
    /// restarting at 0 starts a new trace.
    numbered: bool,
    logged: u32,
}

impl Reader {
    fn start(&mut self) {
        self.open = Some((self.traces, 0));
        self.traces += 1;
    }

    fn close(&mut self) {
        self.open = None;
        self.pending = None;
    }

    fn frame(&mut self, path: &str, line: u32, function: Option<String>) {
        let Some(path) = clean_path(path) else { return };
        if self.open.is_none() {
            self.start();
        }
        let (trace, depth) = self.open.as_mut().expect("opened above");
        self.out.push(Located { path, line, function, kind: Kind::Raised, trace: *trace, depth: *depth });
        *depth += 1;
    }

    fn logged(&mut self, path: &str, line: u32) {
        let Some(path) = clean_path(path) else { return };
        if self.out.iter().any(|l| l.path == path && l.line == line) {
            return;
        }
        self.out.push(Located { path, line, function: None, kind: Kind::Logged, trace: 0, depth: self.logged });
        self.logged += 1;
    }

    fn line(&mut self, raw: &str, next: Option<&str>) {
        // A quoted reply's `> ` and a log's prefix before a trace are not part of it.
        let line = raw.trim().trim_start_matches('>').trim();
        if line.starts_with("Caused by:") || line.starts_with("goroutine ") && line.ends_with("]:") {
            self.close();
            self.start();
            return;
        }
        if let Some(rest) = line.strip_prefix("at ").or_else(|| line.strip_prefix("from ")) {
            if self.at_frame(rest) {
                return;
            }
            // The runtime's own frames (`at node:internal/…`, `at async
            // Promise.all (index 0)`) keep the trace open.
            if rest.starts_with("node:") || (rest.contains(" (") && rest.ends_with(')') && self.open.is_some()) {
                return;
            }
        }
        // Ruby's innermost frame: `app/models/user.rb:12:in 'save'`.
        if let Some((location, function)) = line.split_once(":in ")
            && let Some((path, number)) = path_line(location)
            && has_source_extension(path)
        {
            let function = function.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'));
            self.frame(path, number, (!function.is_empty()).then(|| function.to_owned()));
            return;
        }
        // Firefox and Safari: `render@http://host/app.js:12:5`.
        if !line.contains(' ')
            && let Some((function, location)) = line.split_once('@')
            && let Some((path, number)) = path_line(location)
            && has_source_extension(path)
        {
            self.frame(location.rsplitn(3, ':').last().unwrap_or(path), number, c_function(function));
            return;
        }
        if let Some((number, rest)) = numbered(line) {
            if number == 0 || !self.numbered {
                self.close();
                self.start();
            }
            self.numbered = true;
            if self.numbered_frame(rest) {
                return;
            }
            // A Rust backtrace's function line: its location follows.
            self.pending = Some(rust_function(rest));
            return;
        }
        if let Some(location) = line.trim_start_matches(['*', ' ']).strip_prefix("frame #") {
            // lldb: `frame #3: 0x… jq`f at x.c:12:3`
            let (number, rest) = location.split_once(':').unwrap_or(("", location));
            if number.trim() == "0" {
                self.close();
                self.start();
            }
            if let Some((function, at)) = rest.rsplit_once(" at ")
                && let Some((path, line)) = path_line(at)
            {
                let function = function.rsplit('`').next().and_then(c_function);
                self.frame(path, line, function);
            }
            return;
        }
        if let Some(panic) = panic_location(line) {
            self.close();
            self.start();
            self.frame(panic.0, panic.1, None);
            self.numbered = false;
            return;
        }
        // Go: a function's line, then its location indented by a tab.
        if raw.starts_with('\t') || raw.starts_with("        ") {
            let location = line.split(" +0x").next().unwrap_or(line);
            if location.contains(".go:")
                && let Some((path, number)) = path_line(location)
            {
                let function = self.pending.take();
                self.frame(path, number, function);
                return;
            }
        }
        if go_function(line) && next.is_some_and(|n| n.trim_start().contains(".go:")) {
            let call = line.strip_prefix("created by ").unwrap_or(line).split(" in goroutine").next().unwrap_or(line);
            let head = call.rfind('(').map_or(call, |at| &call[..at]);
            self.pending = Some(head.rsplit('.').next().unwrap_or("").to_owned());
            return;
        }
        // PHP: `#0 /x.php(12): f()` is numbered; `in /x.php on line 12` too.
        if let Some((before, after)) = line.split_once(" on line ")
            && let Some(path) = before.rsplit(' ').next().filter(|p| p.ends_with(".php"))
            && let Some(number) = leading_number(after)
        {
            self.frame(path, number, None);
            return;
        }
        if let Some((path, number)) = diagnostic(line) {
            self.close();
            self.logged(path, number);
            return;
        }
        // Anything else ends a trace, except blank lines between a Go
        // trace's goroutines and what a paste wraps.
        if !line.is_empty() {
            self.close();
            self.numbered = false;
        }
        for token in
            line.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | '"' | '\'' | '`' | '|'))
        {
            if let Some((path, number)) = path_line(token.trim_end_matches([',', ';', '.', ':']))
                && has_source_extension(path)
            {
                self.logged(path, number);
            }
        }
    }

    /// `at …` and `from …`: Java, C#, Node, Ruby, and a Rust backtrace's
    /// location line.
    fn at_frame(&mut self, rest: &str) -> bool {
        // C#: `A.B.M(int x) in C:\src\C.cs:line 12`
        if let Some((function, location)) = rest.rsplit_once(" in ")
            && let Some((path, number)) = location.rsplit_once(":line ")
            && let Some(number) = leading_number(number)
        {
            let function = function.split('(').next().and_then(|f| f.rsplit('.').next()).map(str::to_owned);
            self.frame(path, number, function);
            return true;
        }
        // Java and Kotlin: `a.b.C.m(C.java:12)`, `a.b.C$D.m(C.kt:3)`
        if let Some((qualified, inside)) = rest.split_once('(')
            && let Some(inside) = inside.strip_suffix(')').or_else(|| inside.split(')').next())
            && let Some((file, number)) = inside.rsplit_once(':')
            && (file.ends_with(".java")
                || file.ends_with(".kt")
                || file.ends_with(".scala")
                || file.ends_with(".groovy"))
            && let Ok(number) = number.trim().parse::<u32>()
        {
            let qualified = qualified.trim().rsplit(' ').next().unwrap_or(qualified);
            let mut parts: Vec<&str> = qualified.split('.').collect();
            let function = parts.pop().map(str::to_owned);
            parts.pop(); // the class, whose file is named in the brackets
            let package: Vec<&str> =
                parts.into_iter().filter(|p| p.chars().next().is_some_and(char::is_lowercase)).collect();
            let path = if package.is_empty() { file.to_owned() } else { format!("{}/{file}", package.join("/")) };
            self.frame(&path, number, function);
            return true;
        }
        // Node and browsers: `f (file:///x.js:1:2)`, `async f (x.js:1:2)`,
        // `/x.js:1:2`; a Rust backtrace: `./src/x.rs:10:5`; Ruby:
        // `x.rb:12:in 'm'`.
        let (function, location) = match rest.rsplit_once(" (") {
            Some((function, location)) => (Some(function), location.trim_end_matches(')')),
            None => (None, rest),
        };
        let (location, ruby) = match location.split_once(":in ") {
            Some((location, function)) => (location, Some(function)),
            None => (location, None),
        };
        let Some((path, number)) = path_line(location) else { return false };
        if !has_source_extension(path) {
            return false;
        }
        let function = function
            .map(|f| f.trim_start_matches("async ").trim_start_matches("new ").trim())
            .filter(|f| !f.contains('<') && !f.is_empty())
            .map(|f| f.rsplit('.').next().unwrap_or(f).to_owned())
            .or_else(|| ruby.map(|f| f.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_')).to_owned()))
            .or_else(|| self.pending.take());
        self.frame(path, number, function);
        true
    }

    /// A frame a trace numbers: gdb's and AddressSanitizer's `0x… in f
    /// src/x.c:12:3`, `f (x=1) at src/x.c:12`; PHP's `/x.php(12): f()`.
    fn numbered_frame(&mut self, rest: &str) -> bool {
        let rest = rest.trim();
        let rest = rest.strip_prefix("0x").map_or(rest, |r| r.trim_start_matches(|c: char| c.is_ascii_hexdigit()));
        let rest = rest.trim_start().strip_prefix("in ").unwrap_or(rest).trim();
        if let Some((function, at)) = rest.rsplit_once(" at ")
            && let Some((path, number)) = path_line(at.trim())
        {
            self.frame(path, number, c_function(function));
            return true;
        }
        if let Some((call, location)) = rest.rsplit_once(' ')
            && let Some((path, number)) = path_line(location.trim_matches(|c| c == '(' || c == ')'))
            && has_source_extension(path)
        {
            self.frame(path, number, c_function(call));
            return true;
        }
        if let Some((path, rest)) = rest.split_once('(')
            && path.ends_with(".php")
            && let Some(number) = leading_number(rest)
        {
            let function = rest.split_once("): ").and_then(|(_, f)| c_function(f));
            self.frame(path, number, function);
            return true;
        }
        false
    }
}

/// `#3 …` (gdb, AddressSanitizer, PHP) or `  3: …` (a Rust backtrace): the
/// number and the rest.
fn numbered(line: &str) -> Option<(u32, &str)> {
    let (digits, rest) = if let Some(rest) = line.strip_prefix('#') {
        let end = rest.find(|c: char| !c.is_ascii_digit())?;
        (&rest[..end], &rest[end..])
    } else {
        let (digits, rest) = line.split_once(": ")?;
        (digits, rest)
    };
    if digits.is_empty() || digits.len() > 4 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let rest = rest.trim_start();
    // `#3 is fixed` is prose, not a frame: a frame has an address, a
    // location or (Rust) a path of names.
    let framed = rest.starts_with("0x")
        || rest.contains(" at ")
        || rest.contains(".php(")
        || rest.contains("::")
        || rest.split_whitespace().last().is_some_and(|w| path_line(w).is_some());
    framed.then(|| (digits.parse().ok(), rest)).and_then(|(n, r)| Some((n?, r)))
}

/// A Rust backtrace's function: `tokio::runtime::context::with_current`
/// → `with_current`; `<T as a::B>::f` → `f`; the hash `::h1a2b…` dropped.
fn rust_function(text: &str) -> String {
    let mut parts: Vec<&str> = text.trim().split("::").collect();
    if parts
        .last()
        .is_some_and(|p| p.len() == 17 && p.starts_with('h') && p[1..].chars().all(|c| c.is_ascii_hexdigit()))
    {
        parts.pop();
    }
    parts
        .last()
        .map(|p| p.trim_end_matches(|c: char| !(c.is_alphanumeric() || c == '_')).to_owned())
        .unwrap_or_default()
}

/// The function of a C frame: `f (x=1)` → `f`, `ns::C::m(int)` → `m`.
fn c_function(text: &str) -> Option<String> {
    let name = text.trim().split('(').next()?.trim();
    let name = name.rsplit("::").next()?.rsplit("->").next()?.rsplit(' ').next()?;
    (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| name.to_owned())
}

/// Go's function line: `main.main()`, `github.com/a/b.(*T).m(0xc0…, …)`,
/// `created by net/http.(*Server).Serve in goroutine 1`.
fn go_function(line: &str) -> bool {
    let line = line.strip_prefix("created by ").unwrap_or(line);
    let head = line.split('(').next().unwrap_or(line);
    !head.is_empty()
        && !head.contains(' ')
        && head.contains('.')
        && (line.ends_with(')') || line.contains(" in goroutine"))
}

/// Rust's panic: `thread 'main' panicked at src/x.rs:10:5:`, or the older
/// `panicked at 'msg', src/x.rs:10:5`.
fn panic_location(line: &str) -> Option<(&str, u32)> {
    let (_, rest) = line.split_once("panicked at ")?;
    let location = rest.rsplit(", ").next().unwrap_or(rest).trim_end_matches(':');
    let location = location.split_whitespace().next()?;
    path_line(location.trim_end_matches(':'))
}

/// A compiler's diagnostic: `x.cpp:12:5: error: …`, `x.c:3: warning: …`,
/// MSVC's `x.cpp(12): error C2065: …`; "In file included from x.h:3," and
/// "required from here" notes too.
fn diagnostic(line: &str) -> Option<(&str, u32)> {
    let line = line.strip_prefix("In file included from ").unwrap_or(line);
    let line = line.strip_prefix("from ").unwrap_or(line);
    for marker in [": error", ": warning", ": note", ": fatal error", ":   required from", ": required from", ": In "] {
        if let Some((location, _)) = line.split_once(marker)
            && let Some((path, number)) = path_line(location).or_else(|| msvc_location(location))
            && has_source_extension(path)
        {
            return Some((path, number));
        }
    }
    if let Some(location) = line.strip_suffix(',').or_else(|| line.strip_suffix(':'))
        && let Some((path, number)) = path_line(location)
        && has_source_extension(path)
        && line.len() < 300
        && !location.contains(' ')
    {
        return Some((path, number));
    }
    None
}

/// `x.cpp(12)` or `x.cpp(12,5)`.
fn msvc_location(text: &str) -> Option<(&str, u32)> {
    let (path, rest) = text.split_once('(')?;
    Some((path, leading_number(rest)?))
}

/// `path:12`, `path:12:5`: the path and the line.
fn path_line(text: &str) -> Option<(&str, u32)> {
    let text = text.trim();
    // From the right: `C:\x.c:12:5` keeps its drive.
    let mut parts: Vec<&str> = text.rsplitn(3, ':').collect();
    parts.reverse();
    let (path, line) = match parts.as_slice() {
        [path, line, column] if column.chars().all(|c| c.is_ascii_digit()) && !column.is_empty() => (*path, *line),
        [a, b, line] if line.chars().all(|c| c.is_ascii_digit()) && !line.is_empty() => {
            // `C:\x.c:12` or `file:///x.js:12`
            (&text[..a.len() + 1 + b.len()], *line)
        }
        [path, line] => (*path, *line),
        _ => return None,
    };
    let line: u32 = line.parse().ok()?;
    (line > 0 && !path.is_empty() && path.contains('.')).then_some((path, line))
}

fn leading_number(text: &str) -> Option<u32> {
    let digits: String = text.trim_start().chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn has_source_extension(path: &str) -> bool {
    crate::hints::is_source_path(path.rsplit(['/', '\\']).next().unwrap_or(path))
}

/// A path as the tree would spell it: a URL's scheme and host, a Windows
/// drive and backslashes, `./` gone; `None` for the runtime's own frames
/// (`node:internal/…`, `<anonymous>`, `native`).
fn clean_path(path: &str) -> Option<String> {
    let path = path.trim().trim_matches(|c| c == '(' || c == ')' || c == '\'' || c == '"');
    if path.starts_with("node:") || path.starts_with('<') || path == "native" || path.contains("(native)") {
        return None;
    }
    let path =
        match path.split_once("://") {
            // `file:///x`, `webpack:///./src/x`, `http://host:8080/x`
            Some((scheme, rest)) if scheme.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') => {
                if scheme == "file" { rest } else { rest.split_once('/').map_or(rest, |(_, p)| p) }
            }
            _ => path,
        };
    let path = path.replace('\\', "/");
    let path = path.get(1..).filter(|_| path.as_bytes().get(1) == Some(&b':') && path.len() > 2).map_or(
        path.as_str(),
        |p| &p[1..], // `C:/src` → `/src`
    );
    let path = path.trim_start_matches("./").trim_start_matches(".../");
    (!path.is_empty() && has_source_extension(path)).then(|| path.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(text: &str) -> Vec<(String, u32, Option<String>, u32, u32)> {
        read(text)
            .into_iter()
            .filter(|l| l.kind == Kind::Raised)
            .map(|l| (l.path, l.line, l.function, l.trace, l.depth))
            .collect()
    }

    fn f(
        path: &str,
        line: u32,
        function: Option<&str>,
        trace: u32,
        depth: u32,
    ) -> (String, u32, Option<String>, u32, u32) {
        (path.to_owned(), line, function.map(str::to_owned), trace, depth)
    }

    #[test]
    fn java_traces_and_their_causes() {
        let text = "com.fasterxml.jackson.core.JsonParseException: Unexpected end
\tat com.fasterxml.jackson.core.json.ReaderBasedJsonParser._reportInvalid(ReaderBasedJsonParser.java:2641)
\tat com.fasterxml.jackson.core.base.ParserBase.parse(ParserBase.java:12)
\t... 3 more
Caused by: java.io.IOException: boom
\tat com.google.cloud.tools.jib.registry.RegistryEndpointCaller$Inner.call(RegistryEndpointCaller.java:40)";
        assert_eq!(
            frames(text),
            [
                f("com/fasterxml/jackson/core/json/ReaderBasedJsonParser.java", 2641, Some("_reportInvalid"), 0, 0),
                f("com/fasterxml/jackson/core/base/ParserBase.java", 12, Some("parse"), 0, 1),
                f("com/google/cloud/tools/jib/registry/RegistryEndpointCaller.java", 40, Some("call"), 1, 0),
            ]
        );
    }

    #[test]
    fn node_traces_with_urls_and_dependencies() {
        let text = "TypeError: Cannot read properties of undefined
    at isFormData (file:///home/u/app/node_modules/axios/lib/utils.js:195:42)
    at Object.<anonymous> (/home/u/app/index.js:3:7)
    at node:internal/main/run_main_module:23:47
    at async Promise.all (index 0)
    at /srv/src/plugin/utc/index.js:10:3";
        assert_eq!(
            frames(text),
            [
                f("/home/u/app/node_modules/axios/lib/utils.js", 195, Some("isFormData"), 0, 0),
                f("/home/u/app/index.js", 3, None, 0, 1),
                f("/srv/src/plugin/utc/index.js", 10, None, 0, 2),
            ]
        );
    }

    #[test]
    fn go_goroutines() {
        let text = "panic: runtime error: index out of range [1] with length 1

goroutine 1 [running]:
github.com/zeromicro/go-zero/core/mapping.(*Unmarshaler).fill(0xc000010000)
\t/home/u/go/pkg/mod/github.com/zeromicro/go-zero@v1.3.0/core/mapping/unmarshaler.go:120 +0x1f
main.main()
\t/home/u/app/main.go:12 +0x25
";
        assert_eq!(
            frames(text),
            [
                f(
                    "/home/u/go/pkg/mod/github.com/zeromicro/go-zero@v1.3.0/core/mapping/unmarshaler.go",
                    120,
                    Some("fill"),
                    0,
                    0
                ),
                f("/home/u/app/main.go", 12, Some("main"), 0, 1),
            ]
        );
    }

    #[test]
    fn rust_panics_and_backtraces_but_not_log_lines() {
        let text = "thread 'main' panicked at tokio/src/runtime/context.rs:42:5:
cannot start a runtime from within a runtime
stack backtrace:
   0: std::panicking::begin_panic
             at /rustc/abc/library/std/src/panicking.rs:616:12
   1: tokio::task::local::LocalSet::run_until::h0123456789abcdef
             at ./tokio/src/task/local.rs:580:9
DEBUG|globset|crates/globset/src/lib.rs:421: built glob set";
        assert_eq!(
            frames(text),
            [
                f("tokio/src/runtime/context.rs", 42, None, 0, 0),
                f("/rustc/abc/library/std/src/panicking.rs", 616, Some("begin_panic"), 1, 0),
                f("tokio/src/task/local.rs", 580, Some("run_until"), 1, 1),
            ]
        );
        let logged: Vec<Located> = read(text).into_iter().filter(|l| l.kind == Kind::Logged).collect();
        assert_eq!(logged.len(), 1);
        assert_eq!((logged[0].path.as_str(), logged[0].line), ("crates/globset/src/lib.rs", 421));
        let old = "thread 'main' panicked at 'advance out of bounds', src/buf/buf_impl.rs:12:9";
        assert_eq!(frames(old), [f("src/buf/buf_impl.rs", 12, None, 0, 0)]);
    }

    #[test]
    fn gdb_asan_and_lldb_frames() {
        let gdb = "#0  0x00007ffff7e4 in jv_free (j=...) at src/jv.c:1805\n#1  0x0000555 in f_tostring (jq=0x1) at src/builtin.c:1172";
        assert_eq!(
            frames(gdb),
            [f("src/jv.c", 1805, Some("jv_free"), 0, 0), f("src/builtin.c", 1172, Some("f_tostring"), 0, 1)]
        );
        let asan = "==1==ERROR: AddressSanitizer: heap-buffer-overflow\n    #0 0x4f5 in jvp_string_append /src/jq/src/jv.c:1123:3\n    #1 0x4f6 in main /src/jq/src/main.c:12:7";
        assert_eq!(
            frames(asan),
            [
                f("/src/jq/src/jv.c", 1123, Some("jvp_string_append"), 0, 0),
                f("/src/jq/src/main.c", 12, Some("main"), 0, 1),
            ]
        );
        let lldb =
            "* frame #0: 0x0000 jq`jv_dump_term(x=1) at jv_print.c:210:7\n  frame #1: 0x0001 jq`main at main.c:5:1";
        assert_eq!(frames(lldb).len(), 2);
        assert!(frames("Fixed by #3 and #12: thanks").is_empty(), "issue numbers are no frames");
    }

    #[test]
    fn compiler_diagnostics_are_locations_not_frames() {
        let text = "In file included from include/nlohmann/json.hpp:45:
include/nlohmann/detail/conversions/from_json.hpp:120:5: error: no matching function
main.cpp(12): error C2065: 'x': undeclared identifier";
        let read = read(text);
        assert!(read.iter().all(|l| l.kind == Kind::Logged), "{read:?}");
        let paths: Vec<&str> = read.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(
            paths,
            ["include/nlohmann/json.hpp", "include/nlohmann/detail/conversions/from_json.hpp", "main.cpp"]
        );
    }

    #[test]
    fn csharp_ruby_and_php() {
        assert_eq!(
            frames("   at Shop.Cart.Add(Item item) in C:\\src\\Shop\\Cart.cs:line 42"),
            [f("/src/Shop/Cart.cs", 42, Some("Add"), 0, 0)]
        );
        assert_eq!(
            frames("app/models/user.rb:12:in `save'\n\tfrom app/controllers/users_controller.rb:7:in `create'"),
            [
                f("app/models/user.rb", 12, Some("save"), 0, 0),
                f("app/controllers/users_controller.rb", 7, Some("create"), 0, 1)
            ]
        );
        assert_eq!(frames("render@http://localhost:8080/js/app.js:12:5"), [f("js/app.js", 12, Some("render"), 0, 0)]);
        assert_eq!(
            frames("#0 /var/www/src/Router.php(88): Router->dispatch()"),
            [f("/var/www/src/Router.php", 88, Some("dispatch"), 0, 0)]
        );
    }
}
