; C# references. Capture vocabulary: queries/README.md.

(file_scoped_namespace_declaration name: (_) @package.name) @package

; `using A.B;` brings every type of the namespace into scope, like a wildcard.
(using_directive
  !name
  [(identifier) (qualified_name)] @import.source) @import @import.wildcard

; `using Json = Newtonsoft.Json;`
(using_directive
  name: (identifier) @import.alias
  [(identifier) (qualified_name) (generic_name)] @import.source) @import

(invocation_expression
  function: [(identifier) @call.name (generic_name (identifier) @call.name)]
  arguments: (argument_list) @call.arguments) @call

(invocation_expression
  function: (member_access_expression
    expression: _ @call.receiver
    name: [(identifier) @call.name (generic_name (identifier) @call.name)])
  arguments: (argument_list) @call.arguments) @call

; `obj?.Call()`
(invocation_expression
  function: (conditional_access_expression
    condition: (_) @call.receiver
    (member_binding_expression name: [(identifier) @call.name (generic_name (identifier) @call.name)]))
  arguments: (argument_list) @call.arguments) @call

(object_creation_expression
  type: [
    (identifier) @call.name
    (generic_name (identifier) @call.name)
    (qualified_name qualifier: (_) @call.receiver name: [(identifier) @call.name (generic_name (identifier) @call.name)])
  ]
  arguments: (argument_list)? @call.arguments) @new

; `Foo x = new();`: the type is the declared one.
(variable_declaration
  type: [(identifier) @call.name (generic_name (identifier) @call.name)]
  (variable_declarator (implicit_object_creation_expression (argument_list) @call.arguments) @new))

(member_access_expression expression: ["this" "base"] @use.receiver name: (identifier) @use.name) @use

(assignment_expression
  left: (member_access_expression expression: ["this" "base"] @use.receiver name: (identifier) @use.name)) @write

(postfix_unary_expression
  (member_access_expression expression: ["this" "base"] @use.receiver name: (identifier) @use.name)
  ["++" "--"]) @write

(identifier) @use

; `Foo x = ...;`, `var x = new Foo();`, `foreach (Foo x in xs)`, `catch (E e)`.
(local_declaration_statement
  (variable_declaration
    type: [(identifier) (generic_name) (qualified_name)] @local.type
    (variable_declarator name: (identifier) @local.name))) @local

(local_declaration_statement
  (variable_declaration
    type: (implicit_type)
    (variable_declarator
      name: (identifier) @local.name
      (object_creation_expression type: (_) @local.type)))) @local

(using_statement
  (variable_declaration
    type: [(identifier) (generic_name) (qualified_name)] @local.type
    (variable_declarator name: (identifier) @local.name))) @local

(foreach_statement
  type: [(identifier) (generic_name) (qualified_name)] @local.type
  left: (identifier) @local.name) @local

(catch_declaration
  type: (_) @local.type
  name: (identifier) @local.name) @local
