; Rust references. Capture vocabulary: queries/README.md.

; --- Calls -------------------------------------------------------------------

; `f(x)`
(call_expression
  function: (identifier) @call.name
  arguments: (arguments) @call.arguments) @call

; `x.f(y)`, `self.store.save(y)`
(call_expression
  function: (field_expression value: (_) @call.receiver field: (field_identifier) @call.name)
  arguments: (arguments) @call.arguments) @call

; `Circle::new(x)`, `crate::util::area_sum(x)`
(call_expression
  function: (scoped_identifier path: (_) @call.receiver name: (identifier) @call.name)
  arguments: (arguments) @call.arguments) @call

; Turbofish: `parse::<u32>(x)`, `x.collect::<Vec<_>>()`, `Vec::<u8>::new()`
(call_expression
  function: (generic_function function: [
    (identifier) @call.name
    (field_expression value: (_) @call.receiver field: (field_identifier) @call.name)
    (scoped_identifier path: (_) @call.receiver name: (identifier) @call.name)
  ])
  arguments: (arguments) @call.arguments) @call

; Struct expressions instantiate their type: `Scale { factor: 1.5 }`.
(struct_expression
  name: [
    (type_identifier) @call.name
    (scoped_type_identifier path: (_) @call.receiver name: (type_identifier) @call.name)
    (generic_type_with_turbofish type: (type_identifier) @call.name)
  ]
  body: (field_initializer_list) @call.arguments) @new

; --- Imports -----------------------------------------------------------------
; `pub use` re-exports; the patterns come in pairs told apart by `pub`.

; `use a::b::C;`, `use a::b::C as D;`
((use_declaration
  argument: [
    (scoped_identifier path: (_) @import.source name: (identifier) @import.name)
    (use_as_clause path: (scoped_identifier path: (_) @import.source name: (identifier) @import.name) alias: (identifier) @import.alias)
  ]) @import
  (#not-match? @import "^pub"))

((use_declaration
  argument: [
    (scoped_identifier path: (_) @import.source name: (identifier) @import.name)
    (use_as_clause path: (scoped_identifier path: (_) @import.source name: (identifier) @import.name) alias: (identifier) @import.alias)
  ]) @reexport
  (#match? @reexport "^pub"))

; `use a::b::{c, d as e};`: one import per name.
((use_declaration
  argument: (scoped_use_list
    path: (_) @import.source
    list: (use_list [
      (identifier) @import.name
      (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias)
    ]))) @import
  (#not-match? @import "^pub"))

((use_declaration
  argument: (scoped_use_list
    path: (_) @import.source
    list: (use_list [
      (identifier) @import.name
      (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias)
    ]))) @reexport
  (#match? @reexport "^pub"))

; `use a::{b::C}`: one level of nesting, the source is the outer path.
((use_declaration
  argument: (scoped_use_list
    path: (_) @import.source
    list: (use_list (scoped_identifier name: (identifier) @import.name)))) @import
  (#not-match? @import "^pub"))

; `use a::b::*;`
((use_declaration
  argument: (use_wildcard (_) @import.source) @import.wildcard) @import
  (#not-match? @import "^pub"))

((use_declaration
  argument: (use_wildcard (_) @import.source) @import.wildcard) @reexport
  (#match? @reexport "^pub"))

; `use serde;`, `use serde as s;`
(use_declaration argument: (identifier) @import.source) @import
(use_declaration argument: (use_as_clause path: (identifier) @import.source alias: (identifier) @import.alias)) @import

; `extern crate foo;`
(extern_crate_declaration name: (identifier) @import.source) @import

; --- Trait implementations ---------------------------------------------------

(impl_item trait: (_) @impl.trait type: (_) @impl.type) @impl

; --- Uses --------------------------------------------------------------------

(field_expression value: [(self) (identifier)] @use.receiver field: (field_identifier) @use.name) @use

(assignment_expression
  left: (field_expression value: [(self) (identifier)] @use.receiver field: (field_identifier) @use.name)) @write

(compound_assignment_expr
  left: (field_expression value: [(self) (identifier)] @use.receiver field: (field_identifier) @use.name)) @write

; Bare names: resolution keeps those that name a global or an imported symbol.
(identifier) @use

; --- Typed locals --------------------------------------------------------------

; `let x: Foo = ...`
(let_declaration
  pattern: [(identifier) @local.name (mut_pattern (identifier) @local.name)]
  type: [(type_identifier) (scoped_type_identifier) (generic_type) (reference_type)] @local.type) @local

; `let x = Foo::new()`, `let x = Foo { .. }`: the type is named first.
((let_declaration
  pattern: [(identifier) @local.name (mut_pattern (identifier) @local.name)]
  !type
  value: [
    (call_expression function: (scoped_identifier path: (identifier) @local.type))
    (call_expression function: (scoped_identifier path: (generic_type type: (type_identifier) @local.type)))
    (struct_expression name: (type_identifier) @local.type)
  ]) @local
  (#match? @local.type "^[A-Z]"))

; A function parameter typed by a struct: `fn grow(c: &mut Circle)` is in the
; definition's parameters; nothing to add here.
