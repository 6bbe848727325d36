; Test cases shared by JavaScript and TypeScript definitions (both grammars name these nodes alike).
; Capture vocabulary: queries/README.md.

; Jest, Mocha and Vitest: `it('adds', () => ...)`, `test(...)`; `describe` groups them.
(call_expression
  function: (identifier) @_fn
  arguments: (arguments . [(string) (template_string)] @name . [(arrow_function) (function_expression)] @body)
  (#match? @_fn "^(it|test)$")) @definition.test

(call_expression
  function: (member_expression object: (identifier) @_fn property: (property_identifier) @_variant)
  arguments: (arguments . [(string) (template_string)] @name . [(arrow_function) (function_expression)] @body)
  (#match? @_fn "^(it|test)$")
  (#match? @_variant "^(only|skip|each|concurrent)$")) @definition.test
