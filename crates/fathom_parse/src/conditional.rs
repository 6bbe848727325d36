//! C and C++ under their preprocessor's conditionals, read as ctags reads
//! them. tree-sitter parses `#if`/`#else` as part of the syntax, so a
//! conditional whose branches each open a brace that only one close after
//! `#endif` matches (`#ifdef X  if (a) {  #else  if (b) {  #endif … }`)
//! leaves the rest of the file in error recovery, and whole declarations
//! around it are lost. As ctags does, where a conditional's first branch
//! leaves its braces unbalanced, only that branch is read: the others are
//! blanked, and so are the conditional's directives, so that the branch's
//! braces are read with the code around them. A brace opened under one
//! conditional and closed under another (`#ifndef X` `namespace {` `#endif`
//! … `#ifndef X` `}` `#endif`) is then one block, not two errors. The same
//! holds for a conditional inside a declaration or an expression: one that
//! starts or whose first branch ends where the code before does not end a
//! statement, a block or a label (`template <…>` `#if CPP14` `constexpr`
//! `#endif` `auto get()`, an argument list's `#if` among its `,`).
//! tree-sitter reads a directive only between declarations and statements,
//! and one inside a declaration leaves the rest of its class in error
//! recovery. `#if 0` blocks, which hold no code, are blanked too.
//!
//! Blanking replaces every byte but line ends with a space, so every offset
//! and line of the file is unchanged: spans, chunks and the text shown are
//! the file's own.

/// One open conditional.
struct Group {
    /// Still in its first branch (no `#elif` or `#else` seen yet).
    first: bool,
    /// `{` less `}` in the first branch's kept lines.
    balance: i64,
    /// The lines of the current branch are blanked.
    blank: bool,
    /// Where each of its directives starts.
    directives: Vec<usize>,
    /// It starts, or its first branch ends, inside a declaration or an
    /// expression.
    inside: bool,
}

/// Whether code whose last byte is `last` has ended a statement, a
/// declaration, a block or a label, where a directive may stand.
fn ended(last: Option<u8>) -> bool {
    last.is_none_or(|b| matches!(b, b';' | b'{' | b'}' | b':'))
}

/// `text` with the branches ctags would skip blanked; `None` where none is.
pub(crate) fn one_branch(text: &str) -> Option<String> {
    if !text.contains('#') {
        return None;
    }
    let mut out: Option<Vec<u8>> = None;
    let mut stack: Vec<Group> = Vec::new();
    let mut lexer = Lexer::default();
    let mut continued = false;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let directive = !continued && !lexer.in_comment && line.trim_start().starts_with('#');
        let is_directive_line = directive || continued;
        continued = is_directive_line && line.trim_end_matches(['\n', '\r']).ends_with('\\');
        if directive {
            let rest = line.trim_start()[1..].trim_start();
            let word: String = rest.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
            let condition = rest[word.len()..].trim();
            match word.as_str() {
                "if" | "ifdef" | "ifndef" => {
                    let zero = word == "if"
                        && (condition == "0" || condition.starts_with("0 ") || condition.starts_with("0/"));
                    let inside = !ended(lexer.last);
                    stack.push(Group { first: true, balance: 0, blank: zero, directives: vec![start], inside });
                }
                "elif" | "else" => {
                    // An `#if 0` block's lines were not counted: its
                    // balance is 0, and the branches after it are kept.
                    if let Some(group) = stack.last_mut() {
                        if group.first {
                            group.inside |= !group.blank && !ended(lexer.last);
                        }
                        group.first = false;
                        group.blank = group.balance != 0 || group.inside;
                        group.directives.push(start);
                    }
                }
                "endif" => {
                    let last = lexer.last;
                    let read_alone = stack.pop().filter(|group| {
                        let inside = group.inside || (group.first && !group.blank && !ended(last));
                        group.balance != 0 || inside
                    });
                    if let Some(group) = read_alone {
                        let bytes = out.get_or_insert_with(|| text.as_bytes().to_vec());
                        for from in group.directives.into_iter().chain([start]) {
                            let end = crate::defines::past_directive(text.as_bytes(), from);
                            crate::text::blank_keeping_lines(&mut bytes[from..end]);
                        }
                    }
                }
                _ => {}
            }
            continue;
        }
        if is_directive_line {
            continue;
        }
        if stack.iter().any(|g| g.blank) {
            let bytes = out.get_or_insert_with(|| text.as_bytes().to_vec());
            crate::text::blank_keeping_lines(&mut bytes[start..at]);
            continue;
        }
        let delta = lexer.braces(line);
        for group in stack.iter_mut().rev() {
            if !group.first {
                break;
            }
            group.balance += delta;
        }
    }
    // Only ASCII spaces replaced whole lines' bytes: still UTF-8.
    out.map(|bytes| String::from_utf8(bytes).expect("whole lines blanked"))
}

/// Counts braces outside comments, strings and character literals, line by
/// line, carrying a block comment across lines.
#[derive(Default)]
struct Lexer {
    in_comment: bool,
    /// The last byte of code read, outside comments.
    last: Option<u8>,
}

impl Lexer {
    fn braces(&mut self, line: &str) -> i64 {
        let bytes = line.as_bytes();
        let mut delta = 0;
        let mut i = 0;
        while i < bytes.len() {
            if self.in_comment {
                if bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/') {
                    self.in_comment = false;
                    i += 2;
                } else {
                    i += 1;
                }
                continue;
            }
            match bytes[i] {
                b'/' if bytes.get(i + 1) == Some(&b'/') => break,
                b'/' if bytes.get(i + 1) == Some(&b'*') => {
                    self.in_comment = true;
                    i += 2;
                    continue;
                }
                quote @ (b'"' | b'\'') => {
                    i += 1;
                    while i < bytes.len() && bytes[i] != quote {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                    self.last = Some(quote);
                }
                b'{' => delta += 1,
                b'}' => delta -= 1,
                _ => {}
            }
            if i < bytes.len() && !bytes[i].is_ascii_whitespace() && !matches!(bytes[i], b'"' | b'\'') {
                self.last = Some(bytes[i]);
            }
            i += 1;
        }
        delta
    }
}

#[cfg(test)]
mod tests {
    use super::one_branch;

    #[test]
    fn an_unbalanced_first_branch_blanks_the_others_keeping_every_offset() {
        let text =
            "int f(int a) {\n#ifdef X\n  if (a) {\n#else\n  if (!a) {\n#endif\n    return 1;\n  }\n  return 0;\n}\n";
        let read = one_branch(text).expect("a branch is blanked");
        assert_eq!(read.len(), text.len());
        assert_eq!(read.lines().count(), text.lines().count());
        assert!(read.contains("  if (a) {"));
        assert!(!read.contains("!a"));
        assert!(!read.contains('#'), "{read}");
    }

    #[test]
    fn a_block_opened_under_one_conditional_and_closed_under_another_is_one_block() {
        let text = "namespace a {\n#ifndef CPP17\nnamespace\n{\n#endif\nint x;\n#if !defined(CPP17) \\\n  && 1\n}  // namespace\n#endif\n}\n";
        let read = one_branch(text).expect("the directives are blanked");
        assert_eq!(read.len(), text.len());
        assert_eq!(read.lines().count(), text.lines().count());
        let code: Vec<&str> = read.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        assert_eq!(code, ["namespace a {", "namespace", "{", "int x;", "}  // namespace", "}"]);
    }

    #[test]
    fn a_conditional_inside_a_declaration_is_read_as_its_first_branch() {
        let text = "template <typename T>\n#if defined(CPP14)\n    constexpr\n#endif\n    auto get() const\n    {\n        return f(a,\n#if X\n            b,\n#else\n            c,\n#endif\n            d);\n    }\n";
        let read = one_branch(text).expect("read alone");
        assert_eq!(read.len(), text.len());
        let code: Vec<&str> = read.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        assert_eq!(
            code,
            ["template <typename T>", "constexpr", "auto get() const", "{", "return f(a,", "b,", "d);", "}"]
        );
        // Between declarations, every branch is kept.
        let text = "int a;\n#ifdef X\nint b;\n#else\nint c;\n#endif\n";
        assert_eq!(one_branch(text), None);
        // A first branch that ends inside a declaration is read alone too.
        let text = "int a;\n#ifdef X\nvirtual\n#else\nstatic\n#endif\nint f();\n";
        let code: Vec<String> =
            one_branch(text).unwrap().lines().map(|l| l.trim().to_owned()).filter(|l| !l.is_empty()).collect();
        assert_eq!(code, ["int a;", "virtual", "int f();"]);
    }

    #[test]
    fn balanced_branches_are_all_kept() {
        let text = "#ifdef _WIN32\nstatic int sep(void) { return '\\\\'; }\n#else\nstatic int sep(void) { return '/'; }\n#endif\n";
        assert_eq!(one_branch(text), None);
    }

    #[test]
    fn if_zero_is_blanked_and_its_else_kept() {
        let text = "#if 0\nbroken( {\n#else\nint kept;\n#endif\n";
        let read = one_branch(text).unwrap();
        assert!(!read.contains("broken"));
        assert!(read.contains("int kept;"));
    }

    #[test]
    fn braces_in_comments_strings_and_macros_do_not_count() {
        let text = "#ifdef X\n/* { */ const char *s = \"{\"; char c = '{';\n#define OPEN {\\\n  {\n#else\nint other;\n#endif\n";
        assert_eq!(one_branch(text), None);
    }

    #[test]
    fn nested_conditionals_count_only_their_first_branch_for_the_outer_one() {
        let text = "#if A\n#if B\nvoid f() {\n#else\nvoid g() {\n#endif\n}\n#else\nint x;\n#endif\n";
        // The inner group opens once in its first branch (its else is
        // blanked), and the `}` closes it: the outer group is balanced.
        let read = one_branch(text).unwrap();
        assert!(!read.contains("void g"));
        assert!(read.contains("int x;"));
    }
}
