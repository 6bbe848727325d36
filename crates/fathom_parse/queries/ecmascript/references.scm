; References shared by JavaScript and TypeScript (both grammars name these nodes alike).
; Capture vocabulary: queries/README.md.

(call_expression
  function: (identifier) @call.name
  arguments: (arguments) @call.arguments) @call

; `this.#helper()` calls a private method: its name keeps the `#`, as its definition's does.
(call_expression
  function: (member_expression object: (_) @call.receiver property: [(property_identifier) (private_property_identifier)] @call.name)
  arguments: (arguments) @call.arguments) @call

(new_expression
  constructor: (identifier) @call.name
  arguments: (arguments)? @call.arguments) @new

(new_expression
  constructor: (member_expression object: (_) @call.receiver property: (property_identifier) @call.name)
  arguments: (arguments)? @call.arguments) @new

; import {a, b as c} from './x'
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string) @import.source) @import

; import X from './x' binds the default export.
(import_statement
  (import_clause (identifier) @import.default)
  source: (string) @import.source) @import

; import * as ns from './x'
(import_statement
  (import_clause (namespace_import (identifier) @import.alias))
  source: (string) @import.source) @import

; Every import statement imports its module, `import './side-effect'` included.
(import_statement source: (string) @import.source) @import

; export {a, b as c} from './x'
(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))
  source: (string) @import.source) @reexport

; export * from './x'
(export_statement "*" @import.wildcard source: (string) @import.source) @reexport

; const x = require('./x'), const {a, b} = require('./x')
(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.source))
  (#eq? @_require "require")) @import

(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
  value: (call_expression function: (identifier) @_require arguments: (arguments . (string) @import.source))
  (#eq? @_require "require")) @import

(member_expression object: (this) @use.receiver property: (_) @use.name) @use

(assignment_expression
  left: (member_expression object: (this) @use.receiver property: (_) @use.name)) @write

(augmented_assignment_expression
  left: (member_expression object: (this) @use.receiver property: (_) @use.name)) @write

(identifier) @use

(variable_declarator
  name: (identifier) @local.name
  value: (new_expression constructor: [(identifier) (member_expression)] @local.type)) @local

; `const sub = createSubscriber(...)`: typed by what the function returns.
(variable_declarator
  name: (identifier) @local.name
  value: (call_expression function: (identifier) @local.type)) @local

; A function passed as an argument: its untyped parameters take the types the
; callee declares for them (`operate((source, subscriber) => ...)`).
(call_expression
  function: (identifier) @callback.function
  arguments: (arguments [(arrow_function) (function_expression)] @callback.arrow)) @callback

(new_expression
  constructor: (identifier) @callback.function
  arguments: (arguments [(arrow_function) (function_expression)] @callback.arrow)) @callback
