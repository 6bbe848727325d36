; C++ references. Capture vocabulary: queries/README.md.

; --- Includes and using ------------------------------------------------------

(preproc_include path: (_) @import.source) @import

; `using namespace geo;`
((using_declaration "namespace" @import.wildcard [(identifier) (qualified_identifier)] @import.source) @import)

; `using geo::Shape;`
((using_declaration (qualified_identifier scope: (_) @import.source name: (_) @import.name)) @import
  (#not-match? @import "^using\\s+namespace"))

; --- Calls -------------------------------------------------------------------

(call_expression
  function: (identifier) @call.name
  arguments: (argument_list) @call.arguments) @call

; `shape->area()`, `canvas.add(x)`
(call_expression
  function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name)
  arguments: (argument_list) @call.arguments) @call

; `std::isnan(x)`, `Circle::make()`
(call_expression
  function: (qualified_identifier scope: (_) @call.receiver name: (identifier) @call.name)
  arguments: (argument_list) @call.arguments) @call

; `max<int>(a, b)`, `std::make_unique<Circle>(x)`, `obj.get<T>()`
(call_expression
  function: [
    (template_function name: (identifier) @call.name)
    (qualified_identifier scope: (_) @call.receiver name: (template_function name: (identifier) @call.name))
    (field_expression argument: (_) @call.receiver field: (template_method name: (field_identifier) @call.name))
  ]
  arguments: (argument_list) @call.arguments) @call

; --- Instantiations ------------------------------------------------------------

; `new Circle(1.0)`, `new geo::Circle{}`
(new_expression
  type: [
    (type_identifier) @call.name
    (qualified_identifier scope: (_) @call.receiver name: (type_identifier) @call.name)
    (template_type name: (type_identifier) @call.name)
  ]
  arguments: (_)? @call.arguments) @new

; `Circle c(1.0);`, `geo::Circle c{1.0};`
(declaration
  type: [
    (type_identifier) @call.name
    (qualified_identifier scope: (_) @call.receiver name: (type_identifier) @call.name)
  ]
  declarator: (init_declarator value: [(argument_list) (initializer_list)] @call.arguments)) @new

; `Point{0, 0}`
(compound_literal_expression
  type: [
    (type_identifier) @call.name
    (qualified_identifier scope: (_) @call.receiver name: (type_identifier) @call.name)
  ]
  value: (initializer_list) @call.arguments) @new

; --- Uses ----------------------------------------------------------------------

(field_expression argument: [(this) (identifier)] @use.receiver field: (field_identifier) @use.name) @use

(assignment_expression
  left: (field_expression argument: [(this) (identifier)] @use.receiver field: (field_identifier) @use.name)) @write

(update_expression
  argument: (field_expression argument: [(this) (identifier)] @use.receiver field: (field_identifier) @use.name)) @write

; Bare names: resolution keeps those that name a global or an imported symbol.
(identifier) @use

; --- Typed locals --------------------------------------------------------------

; `Circle c;`, `geo::Circle* p = ...;`, `std::vector<Counter> v(3);`
(compound_statement
  (declaration
    type: [(type_identifier) (qualified_identifier) (template_type)] @local.type
    declarator: [
      (identifier) @local.name
      (pointer_declarator declarator: (identifier) @local.name)
      (reference_declarator (identifier) @local.name)
      (init_declarator declarator: [
        (identifier) @local.name
        (pointer_declarator declarator: (identifier) @local.name)
        (reference_declarator (identifier) @local.name)
      ])
    ]) @local)

; `auto c = Circle(...)`, `auto* p = new Circle(...)`, `auto p = std::make_unique<Circle>(...)`
((declaration
  type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: [(identifier) @local.name (pointer_declarator declarator: (identifier) @local.name)]
    value: [
      (call_expression function: [(identifier) (qualified_identifier name: (identifier))] @local.type)
      (compound_literal_expression type: [(type_identifier) (qualified_identifier)] @local.type)
    ])) @local
  (#match? @local.type "(^|::)[A-Z][A-Za-z0-9_]*$"))

(declaration
  type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: [(identifier) @local.name (pointer_declarator declarator: (identifier) @local.name)]
    value: (new_expression type: [(type_identifier) (qualified_identifier) (template_type)] @local.type))) @local

((declaration
  type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: (identifier) @local.name
    value: (call_expression
      function: (qualified_identifier
        name: (template_function
          name: (identifier) @_make
          arguments: (template_argument_list . (type_descriptor type: (_) @local.type)))))))
  @local
  (#match? @_make "^make_(unique|shared)$"))

; --- Type aliases ------------------------------------------------------------

; `using json = basic_json<>;`, `typedef basic_json<> json;`: receivers of
; the alias are receivers of what it stands for.
(alias_declaration name: (type_identifier) @alias.name type: (type_descriptor) @alias.type) @alias
(type_definition
  type: [(type_identifier) (qualified_identifier) (template_type)] @alias.type
  declarator: (type_identifier) @alias.name) @alias
