; TypeScript-only references, after queries/ecmascript/references.scm.
; Capture vocabulary: queries/README.md.

(variable_declarator
  name: (identifier) @local.name
  type: (type_annotation (_) @local.type)) @local

; Typed parameters, anonymous functions' included: `new Observable((s: Subscriber<T>) => ...)`
; types `s` within the enclosing definition.
(required_parameter pattern: (identifier) @local.name type: (type_annotation (_) @local.type)) @local
(optional_parameter pattern: (identifier) @local.name type: (type_annotation (_) @local.type)) @local

; import x = require('./x')
(import_statement
  (import_require_clause (identifier) @import.alias source: (string) @import.source)) @import

; `type PartialObserver<T> = NextObserver<T> | ErrorObserver<T>`: receivers of
; the alias are receivers of what it stands for.
(type_alias_declaration name: (type_identifier) @alias.name value: (_) @alias.type) @alias
