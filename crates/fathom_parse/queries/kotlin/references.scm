; Kotlin references (tree-sitter-kotlin-ng). Capture vocabulary: queries/README.md.

(package_header (qualified_identifier) @package.name) @package

; `import a.b.C` and `import a.b.C as D`: the grammar keeps the path in one
; node, so the source is the whole path and the name its last segment.
((import
  (qualified_identifier (identifier) @import.name .) @import.source
  .
  (identifier)? @import.alias) @import
  (#not-match? @import "\\*"))

; `import a.b.*`
(import (qualified_identifier) @import.source "*" @import.wildcard) @import

; Calls; Kotlin has no `new`, so `User(...)` is a call like any other.
(call_expression
  (identifier) @call.name
  [(value_arguments) (annotated_lambda)] @call.arguments) @call

(call_expression
  (navigation_expression (_) @call.receiver . (identifier) @call.name .)
  [(value_arguments) (annotated_lambda)] @call.arguments) @call

(navigation_expression (this_expression) @use.receiver (identifier) @use.name) @use

(assignment left: (navigation_expression (this_expression) @use.receiver (identifier) @use.name)) @write

(unary_expression
  argument: (navigation_expression (this_expression) @use.receiver (identifier) @use.name)
  operator: ["++" "--"]) @write

; `Color.RED`, `Limits.MAX`: a member read through a name.
((navigation_expression (identifier) @use.receiver . (identifier) @use.name .) @use
  (#match? @use.receiver "^[A-Z]"))

; Bare names where they are values (the grammar has no fields to tell a
; member name from a variable).
(value_argument (identifier) @use)
(navigation_expression . (identifier) @use)
(binary_expression [left: (identifier) @use right: (identifier) @use])
(assignment right: (identifier) @use)
(property_declaration (identifier) @use)
(return_expression (identifier) @use)
(interpolation (identifier) @use)

; `val u: User = ...`, `val u = User(...)`, `for (u: User in users)`, `catch (e: E)`.
(block
  (property_declaration
    (variable_declaration (identifier) @local.name [(user_type) (nullable_type)] @local.type)) @local)

(block
  (property_declaration
    (variable_declaration (identifier) @local.name .)
    (call_expression . (identifier) @local.type)
    (#match? @local.type "^[A-Z]")) @local)

(catch_block (identifier) @local.name [(user_type) (nullable_type)] @local.type) @local
