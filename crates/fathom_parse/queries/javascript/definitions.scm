; JavaScript definitions (.js, .jsx, .mjs, .cjs). Capture vocabulary: queries/README.md.

(class_declaration
  name: (identifier) @name
  (class_heritage (_) @base.inherits)?
  body: (class_body) @body) @definition.class

(class
  name: (identifier) @name
  (class_heritage (_) @base.inherits)?
  body: (class_body) @body) @definition.class

(variable_declarator
  name: (identifier) @name
  value: (class !name (class_heritage (_) @base.inherits)? body: (class_body) @body)) @definition.class

(function_declaration
  name: (identifier) @name
  parameters: (formal_parameters) @parameters
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  parameters: (formal_parameters) @parameters
  body: (statement_block) @body) @definition.function

(variable_declarator
  name: (identifier) @name
  value: [
    (arrow_function parameters: (formal_parameters)? @parameters body: (_) @body)
    (function_expression parameters: (formal_parameters) @parameters body: (_) @body)
    (generator_function parameters: (formal_parameters) @parameters body: (_) @body)
  ]) @definition.function

(assignment_expression
  left: (member_expression property: (property_identifier) @name)
  right: [
    (arrow_function parameters: (formal_parameters)? @parameters body: (_) @body)
    (function_expression parameters: (formal_parameters) @parameters body: (_) @body)
  ]) @definition.function

(method_definition
  name: (_) @name
  parameters: (formal_parameters) @parameters
  body: (statement_block) @body) @definition.method

(method_definition ["static" "async" "get" "set" "*"] @modifiers) @definition

(field_definition
  property: (_) @name
  value: [
    (arrow_function parameters: (formal_parameters)? @parameters body: (_) @body)
    (function_expression parameters: (formal_parameters) @parameters body: (_) @body)
  ]) @definition.method

; Every class field; one whose value is a function is a method (that pattern wins).
(field_definition property: (_) @name) @definition.field

(class_declaration decorator: (decorator) @decorator) @definition
(method_definition decorator: (decorator) @decorator) @definition
(field_definition decorator: (decorator) @decorator) @definition

; Top-level variables; one bound to a function is a function (that pattern wins).
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.global))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.global))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @definition.global)))
