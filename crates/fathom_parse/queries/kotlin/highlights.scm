; Highlights for Kotlin. tree-sitter-kotlin-ng ships no highlights query, so
; Fathom keeps this one. Capture names follow tree-sitter's conventions;
; `fathom_parse::highlight` maps them to its classes. With
; tree-sitter-highlight 0.27 the last pattern that matches a node wins, so
; general patterns come first and specific ones after them.

(identifier) @variable

; `true`, `false` and `null` are plain identifiers in this grammar.
((identifier) @constant.builtin
  (#any-of? @constant.builtin "true" "false" "null"))

(this_expression) @variable.builtin
(super_expression) @variable.builtin

; Types

(user_type (identifier) @type)
(type_parameter (identifier) @type)
(class_declaration name: (identifier) @type)
(object_declaration name: (identifier) @type)
(companion_object name: (identifier) @type)
(type_alias type: (identifier) @type)
(enum_entry (identifier) @constant)

; Functions

(function_declaration name: (identifier) @function)
(call_expression (identifier) @function.call)
(navigation_expression (identifier) @property .)
(call_expression
  (navigation_expression (identifier) @function.method.call .))

(parameter (identifier) @variable.parameter)
(class_parameter (identifier) @variable.member)
(variable_declaration (identifier) @variable)

; SCREAMING_CASE names are constants wherever they are written.
((identifier) @constant
  (#match? @constant "^[A-Z][A-Z0-9_]+$"))

(annotation
  "@" @attribute
  [(type (user_type (identifier) @attribute))
   (constructor_invocation (type (user_type (identifier) @attribute)))])

(label) @label

(package_header (qualified_identifier (identifier) @module))
(import (qualified_identifier (identifier) @module))

; Literals

(string_literal) @string
(multiline_string_literal) @string
(character_literal) @character
(escape_sequence) @string.escape
(interpolation ["$" "${" "}"] @punctuation.special)

(number_literal) @number
(float_literal) @number.float

(line_comment) @comment
(block_comment) @comment
(shebang) @keyword.directive

; Keywords

[
  "abstract" "actual" "annotation" "as" "as?" "by" "catch" "class" "companion"
  "const" "constructor" "crossinline" "data" "delegate" "do" "dynamic" "else"
  "enum" "expect" "external" "field" "file" "final" "finally" "for" "fun" "get"
  "if" "import" "in" "infix" "init" "inline" "inner" "interface" "internal" "is"
  "lateinit" "noinline" "object" "open" "operator" "out" "override" "package"
  "param" "private" "property" "protected" "public" "receiver" "return"
  "return@" "sealed" "set" "setparam" "super" "super@" "suspend" "tailrec"
  "this" "this@" "throw" "try" "typealias" "val" "value" "var" "vararg" "when"
  "where" "while" "!in" "!is"
] @keyword

; Operators and punctuation

[
  "!" "!!" "!=" "!==" "%" "%=" "&&" "*" "*=" "+" "++" "+=" "-" "--" "-=" "->"
  ".." "..<" "/" "/=" "<" "<=" "=" "==" "===" ">" ">=" "?:" "||" "::" "?."
] @operator

["(" ")" "[" "]" "{" "}"] @punctuation.bracket
["," "." ":" ";"] @punctuation.delimiter
