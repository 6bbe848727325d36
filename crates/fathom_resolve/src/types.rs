//! Reading written types: the class names a type expression may denote.

/// The class names a written type stands for, nullability and type
/// arguments removed: `Subscriber<T> | null` → [`Subscriber`],
/// `Optional[User]` → [`User`], `User?` → [`User`], `A | B` → [`A`, `B`].
/// Arrays and other containers of a type are not that type: `User[]` → [].
pub(crate) fn class_names(written: &str) -> Vec<String> {
    // Most types written are one bare name, which every rule below keeps as it is.
    if !written.is_empty() && written.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return if is_null(written) { Vec::new() } else { vec![written.to_owned()] };
    }
    parsed_class_names(written)
}

/// [`class_names`], by the rules alone.
fn parsed_class_names(written: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in split_top_level(written.trim(), '|') {
        let mut t = part.trim().trim_start_matches("readonly ").trim_start_matches("const ").trim();
        t = t.trim_end_matches('?').trim_start_matches('?').trim_matches(['&', '*', ' ']);
        t = t.trim_start_matches("mut ").trim();
        if let Some(inner) = t.strip_prefix("Optional[").and_then(|r| r.strip_suffix(']')) {
            out.extend(class_names(inner));
            continue;
        }
        // TypeScript's utility wrappers keep the members of what they wrap.
        let wrapped = ["Partial<", "Readonly<", "Required<", "NonNullable<"]
            .iter()
            .find_map(|w| t.strip_prefix(w).and_then(|r| r.strip_suffix('>')));
        if let Some(inner) = wrapped {
            out.extend(class_names(inner));
            continue;
        }
        if t.ends_with("[]") || t.starts_with('[') || t.starts_with('(') || t.starts_with('{') {
            continue;
        }
        let base = t.split('<').next().unwrap_or(t).split('[').next().unwrap_or(t).trim();
        let name = base.rsplit(['.', ':', '\\']).find(|s| !s.is_empty()).unwrap_or(base);
        if !name.is_empty() && !is_null(name) && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            out.push(name.to_owned());
        }
    }
    out
}

/// A type that says nothing of a receiver's class.
fn is_null(name: &str) -> bool {
    matches!(name, "null" | "undefined" | "None" | "nil" | "void" | "any" | "unknown" | "object" | "Object")
}

/// The written type of the `position`-th parameter of a function type,
/// TypeScript's `this:` pseudo-parameter not counted:
/// `(this: X, a: A<T>, b: B) => void`, 1 → `B`.
pub(crate) fn function_parameter_type(function_type: &str, position: usize) -> Option<String> {
    let text = function_type.trim().trim_start_matches('(');
    let inner = &text[..closing_paren(text)?];
    let parameters: Vec<&str> = split_top_level(inner, ',')
        .into_iter()
        .filter(|p| !p.trim().starts_with("this:") && !p.trim().is_empty())
        .collect();
    let (_, written) = parameters.get(position)?.split_once(':')?;
    Some(written.trim().to_owned())
}

/// The index of the `)` that closes an already-opened parenthesis.
fn closing_paren(text: &str) -> Option<usize> {
    let mut depth = 1i32;
    for (at, c) in text.char_indices() {
        match c {
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' if !(c == '>' && text[..at].ends_with('=')) => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

fn split_top_level(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (at, c) in text.char_indices() {
        match c {
            '<' | '[' | '(' | '{' => depth += 1,
            // The `>` of an arrow (`=>`) closes nothing.
            '>' if text[..at].ends_with('=') => {}
            '>' | ']' | ')' | '}' => depth -= 1,
            c if c == separator && depth == 0 => {
                parts.push(&text[start..at]);
                start = at + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Method names of the language's core types (strings, lists, maps,
/// promises). On a receiver of unknown type, such a call is far likelier to
/// reach the core type than a same-named method of the archive, so it is not
/// guessed by name.
pub(crate) fn is_core_method(name: &str) -> bool {
    let common: &[&str] = &[
        "get",
        "set",
        "put",
        "pop",
        "push",
        "append",
        "add",
        "remove",
        "clear",
        "copy",
        "update",
        "keys",
        "values",
        "items",
        "entries",
        "index",
        "count",
        "sort",
        "reverse",
        "insert",
        "extend",
        "join",
        "split",
        "strip",
        "replace",
        "format",
        "find",
        "map",
        "filter",
        "reduce",
        "forEach",
        "some",
        "every",
        "includes",
        "indexOf",
        "slice",
        "splice",
        "concat",
        "then",
        "catch",
        "finally",
        "toString",
        "equals",
        "hashCode",
        "size",
        "length",
        "contains",
        "isEmpty",
        "close",
        "read",
        "write",
        "open",
        "flush",
        "group",
        "match",
        "search",
        "has",
        "delete",
        "startswith",
        "endswith",
        "lower",
        "upper",
        "encode",
        "decode",
        "trim",
        "charAt",
        "substring",
        "apply",
        "call",
        "bind",
        "next",
        "iter",
        "stream",
        "collect",
        "orElse",
        "orElseThrow",
        "isPresent",
        "of",
        "toArray",
        "to_string",
        "clone",
        "unwrap",
        "expect",
        "as_str",
        "len",
        "iter_mut",
        "into_iter",
        "is_empty",
        "getOrDefault",
        "setdefault",
        "discard",
        "send",
        "emit",
        "log",
        "debug",
        "info",
        "warn",
        "warning",
        "error",
        "exception",
    ];
    common.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_types_name_their_classes() {
        assert_eq!(class_names("Subscriber<T> | null"), ["Subscriber"]);
        assert_eq!(class_names("Optional[User]"), ["User"]);
        assert_eq!(class_names("User?"), ["User"]);
        assert_eq!(class_names("Map<string, A | B>"), ["Map"]);
        assert_eq!(class_names("Observer<T> | Subscriber<T>"), ["Observer", "Subscriber"]);
        assert_eq!(class_names("models.Order"), ["Order"]);
        assert_eq!(class_names("&mut Foo"), ["Foo"]);
        // A bare name is taken as it is, as the rules would.
        for bare in
            ["User", "readonly", "mut", "const", "Optional", "Partial", "null", "None", "Object", "_x9", "naïve", "9"]
        {
            assert_eq!(class_names(bare), parsed_class_names(bare), "{bare:?}");
        }
        assert!(class_names("User[]").is_empty(), "an array of users is not a user");
        assert_eq!(class_names("Partial<Observer<T>>"), ["Observer"]);
        assert!(class_names("undefined").is_empty());
    }

    #[test]
    fn function_types_give_their_parameters_types() {
        let operate = "(liftedSource: Observable<T>, subscriber: Subscriber<R>) => (() => void) | void";
        assert_eq!(function_parameter_type(operate, 0).as_deref(), Some("Observable<T>"));
        assert_eq!(function_parameter_type(operate, 1).as_deref(), Some("Subscriber<R>"));
        assert_eq!(
            function_parameter_type("(this: Observable<T>, subscriber: Subscriber<T>) => TeardownLogic", 0).as_deref(),
            Some("Subscriber<T>")
        );
        assert_eq!(
            function_parameter_type("(a: (x: number) => void, b: Map<string, number>) => void", 1).as_deref(),
            Some("Map<string, number>")
        );
        assert_eq!(function_parameter_type("string", 0), None);
    }
}
