; C references. Capture vocabulary: queries/README.md.

; `#include "shape.h"`, `#include <stdio.h>`
(preproc_include path: (_) @import.source) @import

; `f(x)`
(call_expression
  function: (identifier) @call.name
  arguments: (argument_list) @call.arguments) @call

; Calls through function pointers: `s->ops->area(s)`, `ops.reset(x)`.
(call_expression
  function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call.name)
  arguments: (argument_list) @call.arguments) @call

; Member reads and writes: `c->radius`, `c->radius = 0`, `counter->value++`.
(field_expression argument: (identifier) @use.receiver field: (field_identifier) @use.name) @use

(assignment_expression
  left: (field_expression argument: (identifier) @use.receiver field: (field_identifier) @use.name)) @write

(update_expression
  argument: (field_expression argument: (identifier) @use.receiver field: (field_identifier) @use.name)) @write

; Bare names: resolution keeps those that name a global or an imported symbol.
(identifier) @use

; Typed locals: `circle_t *c = ...;`, `struct counter counter;`.
(compound_statement
  (declaration
    type: [(type_identifier) @local.type (struct_specifier name: (type_identifier) @local.type) (union_specifier name: (type_identifier) @local.type)]
    declarator: [
      (identifier) @local.name
      (pointer_declarator declarator: (identifier) @local.name)
      (init_declarator declarator: [(identifier) @local.name (pointer_declarator declarator: (identifier) @local.name)])
    ]) @local)
