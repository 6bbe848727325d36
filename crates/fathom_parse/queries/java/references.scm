; Java references. Capture vocabulary: queries/README.md.

(package_declaration [(scoped_identifier) (identifier)] @package.name) @package

; import a.b.C;  import static a.b.C.m;
(import_declaration
  (scoped_identifier scope: (_) @import.source name: (identifier) @import.name) .) @import

; import a.b.*;  import static a.b.C.*;
(import_declaration
  [(scoped_identifier) (identifier)] @import.source
  (asterisk) @import.wildcard) @import

(method_invocation
  !object
  name: (identifier) @call.name
  arguments: (argument_list) @call.arguments) @call

(method_invocation
  object: (_) @call.receiver
  name: (identifier) @call.name
  arguments: (argument_list) @call.arguments) @call

(object_creation_expression
  type: [
    (type_identifier) @call.name
    (generic_type [(type_identifier) @call.name
                   (scoped_type_identifier (_) @call.receiver (type_identifier) @call.name .)])
    (scoped_type_identifier (_) @call.receiver (type_identifier) @call.name .)
  ]
  arguments: (argument_list) @call.arguments) @new

(field_access object: [(this) (super)] @use.receiver field: (identifier) @use.name) @use

(assignment_expression
  left: (field_access object: [(this) (super)] @use.receiver field: (identifier) @use.name)) @write

(update_expression
  (field_access object: [(this) (super)] @use.receiver field: (identifier) @use.name)) @write

; `Color.RED`, `Limits.MAX`: a static member read through its type.
(field_access object: (identifier) @use.receiver field: (identifier) @use.name) @use

(identifier) @use

; `User u = ...`, `List<User> users = ...`, `for (User u : users)`, `catch (E e)`.
(local_variable_declaration
  type: [(type_identifier) (generic_type) (scoped_type_identifier)] @local.type
  declarator: (variable_declarator name: (identifier) @local.name)
  (#not-eq? @local.type "var")) @local

; `var u = new User()`
(local_variable_declaration
  type: (type_identifier) @_var
  declarator: (variable_declarator
    name: (identifier) @local.name
    value: (object_creation_expression type: (_) @local.type))
  (#eq? @_var "var")) @local

(enhanced_for_statement
  type: [(type_identifier) (generic_type) (scoped_type_identifier)] @local.type
  name: (identifier) @local.name
  (#not-eq? @local.type "var")) @local

(catch_formal_parameter
  (catch_type . (_) @local.type .)
  name: (identifier) @local.name) @local
