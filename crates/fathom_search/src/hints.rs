//! What a query says about code outright: file locations (`app.py:42`,
//! `File "x.py", line 7`, `(Foo.java:12)`) and identifiers
//! (`getUserById`, `flask.app.Flask.wsgi_app`, `parse_date()`).
//! Stack traces and error messages are made of these.

/// A `path:line` the query names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// As written: a path or a bare file name.
    pub path: String,
    pub line: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    pub locations: Vec<Location>,
    /// Words shaped like code (case changes, underscores, dots, a call's
    /// parentheses), in order of appearance.
    pub identifiers: Vec<String>,
}

const SOURCE_EXTENSIONS: &[&str] = &[
    "py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "java", "kt", "kts", "cs", "go", "rs", "c", "h",
    "cc", "cpp", "cxx", "hpp", "hh", "rb", "php",
];

pub fn analyze(query: &str) -> Hints {
    let mut hints = Hints::default();
    let tokens: Vec<&str> = query
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ',' | '"' | '\'' | '[' | ']' | '<' | '>'))
        .collect();
    for (i, raw) in tokens.iter().enumerate() {
        let token = raw.trim_matches(|c: char| matches!(c, ';' | '`' | '{' | '}'));
        if token.is_empty() {
            continue;
        }
        // `path:line` or `path:line:column`
        if let Some(location) = colon_location(token) {
            hints.locations.push(location);
            continue;
        }
        // Python: File "path", line N
        let mut next = tokens[i + 1..].iter().filter(|t| !t.is_empty());
        if is_source_path(token)
            && next.next() == Some(&"line")
            && let Some(line) = next.next().and_then(|t| t.parse::<u32>().ok())
        {
            hints.locations.push(Location { path: token.to_owned(), line });
            continue;
        }
        let ident = token.trim_end_matches(['.', ':', '!', '?']);
        if looks_like_code(ident) && !hints.identifiers.iter().any(|i| i == ident) {
            hints.identifiers.push(ident.to_owned());
        }
    }
    hints
}

fn colon_location(token: &str) -> Option<Location> {
    let mut parts = token.trim_end_matches([',', '.', ':']).split(':');
    let path = parts.next()?;
    let line: u32 = parts.next()?.parse().ok()?;
    (is_source_path(path) && line > 0).then(|| Location { path: path.to_owned(), line })
}

pub(crate) fn is_source_path(token: &str) -> bool {
    token
        .rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && SOURCE_EXTENSIONS.contains(&ext) && !stem.ends_with('.'))
}

/// `getUserById`, `parse_date`, `MAX_SIZE`, `a.b.C.d`, `Foo`: not `the`,
/// `Hello`, `3.14`.
pub(crate) fn looks_like_code(word: &str) -> bool {
    if word.len() < 3 || !word.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') {
        return false;
    }
    if !word.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '$') {
        return false;
    }
    let inner_upper = word.chars().skip(1).any(char::is_uppercase) && word.chars().any(char::is_lowercase);
    let dotted = word.contains('.') && word.split('.').all(|p| !p.is_empty());
    word.contains('_') || inner_upper || dotted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(path: &str, line: u32) -> Location {
        Location { path: path.into(), line }
    }

    #[test]
    fn python_tracebacks_give_their_frames() {
        let hints = analyze(
            "Traceback (most recent call last):\n  File \"src/flask/app.py\", line 1498, in wsgi_app\n    response = self.full_dispatch_request()\nKeyError: 'user_id'",
        );
        assert_eq!(hints.locations, [loc("src/flask/app.py", 1498)]);
        assert!(hints.identifiers.contains(&"wsgi_app".to_owned()));
        assert!(hints.identifiers.contains(&"self.full_dispatch_request".to_owned()));
        assert!(hints.identifiers.contains(&"KeyError".to_owned()));
    }

    #[test]
    fn java_rust_and_node_locations() {
        let hints =
            analyze("java.lang.NullPointerException at com.example.OrderService.placeOrder(OrderService.java:42)");
        assert_eq!(hints.locations, [loc("OrderService.java", 42)]);
        assert!(hints.identifiers.contains(&"com.example.OrderService.placeOrder".to_owned()));
        assert_eq!(analyze("panicked at src/main.rs:10:5:").locations, [loc("src/main.rs", 10)]);
        assert_eq!(
            analyze("at render (webpack:///src/app.tsx:88:13)").locations.len(),
            0,
            "a URL scheme is not a path"
        );
        assert_eq!(analyze("at render (/srv/app/src/app.tsx:88:13)").locations, [loc("/srv/app/src/app.tsx", 88)]);
    }

    #[test]
    fn prose_has_no_identifiers() {
        let hints = analyze("How does the Session get saved? Version 3.14 only.");
        assert!(hints.identifiers.is_empty(), "{hints:?}");
        assert!(hints.locations.is_empty());
        assert_eq!(analyze("getUserById parse_date MAX_SIZE").identifiers, ["getUserById", "parse_date", "MAX_SIZE"]);
    }
}
