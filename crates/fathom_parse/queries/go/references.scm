; Go references. Capture vocabulary: queries/README.md.

(package_clause (package_identifier) @package.name) @package

; import "fmt", import st "example.com/shop/store", import . "strings", import _ "embed"
(import_spec !name path: (_) @import.source) @import

(import_spec
  name: (package_identifier) @import.alias
  path: (_) @import.source) @import

(import_spec name: (blank_identifier) path: (_) @import.source) @import

(import_spec
  name: (dot) @import.wildcard
  path: (_) @import.source) @import

; Calls: `f(x)`, `pkg.F(x)`, `s.store.Save(x)`.
(call_expression
  function: (identifier) @call.name
  arguments: (argument_list) @call.arguments) @call

(call_expression
  function: (selector_expression operand: (_) @call.receiver field: (field_identifier) @call.name)
  arguments: (argument_list) @call.arguments) @call

; Composite literals of named types instantiate them: `Item{...}`, `&pkg.Cart{...}`.
(composite_literal
  type: [
    (type_identifier) @call.name
    (qualified_type package: (package_identifier) @call.receiver name: (type_identifier) @call.name)
    (generic_type type: [
      (type_identifier) @call.name
      (qualified_type package: (package_identifier) @call.receiver name: (type_identifier) @call.name)
    ])
  ]
  body: (literal_value) @call.arguments) @new

; Member reads and writes: `s.items`, `c.Items = ...`, `s.size++`.
(selector_expression operand: (identifier) @use.receiver field: (field_identifier) @use.name) @use

(assignment_statement
  left: (expression_list
    (selector_expression operand: (identifier) @use.receiver field: (field_identifier) @use.name))) @write

(inc_statement (selector_expression operand: (identifier) @use.receiver field: (field_identifier) @use.name)) @write
(dec_statement (selector_expression operand: (identifier) @use.receiver field: (field_identifier) @use.name)) @write

; Bare names: resolution keeps those that name a global or an imported symbol.
(identifier) @use

; Typed locals. The receiver of a method: `func (s *Store) ...`.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      name: (identifier) @local.name
      type: [(type_identifier) (qualified_type) (generic_type) (pointer_type)] @local.type))) @local

; `var x Foo`, `var x *pkg.Foo` inside a function.
(statement_list
  (var_declaration
    (var_spec
      name: (identifier) @local.name
      type: [(type_identifier) (qualified_type) (generic_type) (pointer_type)] @local.type)) @local)

; `x := Foo{}`, `x := &pkg.Foo{}`.
(short_var_declaration
  left: (expression_list . (identifier) @local.name .)
  right: (expression_list . [
    (composite_literal type: [(type_identifier) (qualified_type) (generic_type)] @local.type)
    (unary_expression operator: "&" operand: (composite_literal type: [(type_identifier) (qualified_type) (generic_type)] @local.type))
  ] .)) @local
