; Python references. Capture vocabulary: queries/README.md.

(call
  function: (identifier) @call.name
  arguments: (argument_list) @call.arguments) @call

(call
  function: (attribute object: (_) @call.receiver attribute: (identifier) @call.name)
  arguments: (argument_list) @call.arguments) @call

(import_statement name: (dotted_name) @import.source) @import

(import_statement
  name: (aliased_import name: (dotted_name) @import.source alias: (identifier) @import.alias)) @import

(import_from_statement
  module_name: (_) @import.source
  name: (dotted_name) @import.name) @import

(import_from_statement
  module_name: (_) @import.source
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import

(import_from_statement
  module_name: (_) @import.source
  (wildcard_import) @import.wildcard) @import

(attribute object: (identifier) @use.receiver attribute: (identifier) @use.name) @use

(assignment
  left: (attribute object: (identifier) @use.receiver attribute: (identifier) @use.name)) @write

(augmented_assignment
  left: (attribute object: (identifier) @use.receiver attribute: (identifier) @use.name)) @write

; Bare names: resolution keeps those that name a global or an imported symbol.
(identifier) @use

; `calc = Calculator()`: the type is the callee, if it proves to be a class.
(assignment
  left: (identifier) @local.name
  right: (call function: [(identifier) (attribute)] @local.type)) @local

(assignment
  left: (identifier) @local.name
  type: (type) @local.type) @local
