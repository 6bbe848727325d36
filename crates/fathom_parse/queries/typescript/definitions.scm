; TypeScript and TSX definitions. Capture vocabulary: queries/README.md.

(class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class

(class
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class

(variable_declarator
  name: (identifier) @name
  value: (class !name body: (class_body) @body)) @definition.class

(class_declaration
  (class_heritage (extends_clause value: (_) @base.inherits))) @definition

(abstract_class_declaration
  (class_heritage (extends_clause value: (_) @base.inherits))) @definition

(class
  (class_heritage (extends_clause value: (_) @base.inherits))) @definition

(class_declaration
  (class_heritage (implements_clause (_) @base.implements))) @definition

(abstract_class_declaration
  (class_heritage (implements_clause (_) @base.implements))) @definition

(class
  (class_heritage (implements_clause (_) @base.implements))) @definition

(abstract_class_declaration "abstract" @modifiers) @definition

(class_declaration decorator: (decorator) @decorator) @definition

(abstract_class_declaration decorator: (decorator) @decorator) @definition

(interface_declaration
  name: (type_identifier) @name
  body: (_) @body) @definition.interface

(interface_declaration (extends_type_clause type: (_) @base.inherits)) @definition

(enum_declaration name: (identifier) @name body: (enum_body) @body) @definition.enum

(function_declaration
  name: (identifier) @name
  parameters: (formal_parameters) @parameters
  return_type: (_)? @return_type
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  parameters: (formal_parameters) @parameters
  return_type: (_)? @return_type
  body: (statement_block) @body) @definition.function

; Overload signatures and `declare function`: declarations, linked by
; resolution to the function they declare where the archive holds it.
(function_signature
  name: (identifier) @name
  parameters: (formal_parameters) @parameters
  return_type: (_)? @return_type) @definition.function @declaration

; `declare class Foo {…}`, `declare const VERSION: string;`: ambient.
(ambient_declaration [(class_declaration) (abstract_class_declaration) (enum_declaration)] @definition @declaration)
(ambient_declaration
  [(lexical_declaration (variable_declarator name: (identifier) @name type: (_)? @type) @definition.global @declaration)
   (variable_declaration (variable_declarator name: (identifier) @name type: (_)? @type) @definition.global @declaration)])

(variable_declarator
  name: (identifier) @name
  value: [
    (arrow_function parameters: (formal_parameters)? @parameters return_type: (_)? @return_type body: (_) @body)
    (function_expression parameters: (formal_parameters) @parameters return_type: (_)? @return_type body: (_) @body)
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
  return_type: (_)? @return_type
  body: (statement_block) @body) @definition.method

[(method_signature) (abstract_method_signature)] @definition.method

(method_signature name: (_) @name parameters: (formal_parameters) @parameters return_type: (_)? @return_type) @definition
(abstract_method_signature name: (_) @name parameters: (formal_parameters) @parameters return_type: (_)? @return_type) @definition

(method_definition [(accessibility_modifier) (override_modifier) "static" "async" "get" "set"] @modifiers) @definition
(method_signature [(accessibility_modifier) (override_modifier) "static" "async" "readonly" "get" "set"] @modifiers) @definition
(abstract_method_signature [(accessibility_modifier) (override_modifier) "abstract"] @modifiers) @definition
(public_field_definition [(accessibility_modifier) (override_modifier) "static" "readonly" "abstract" "declare"] @modifiers) @definition

(class_body (decorator) @decorator . (method_definition) @definition)
(class_body (decorator) @decorator . (public_field_definition) @definition)

; Class fields; one whose value is a function is a method (that pattern wins).
(public_field_definition name: (_) @name type: (_)? @type) @definition.field

(public_field_definition
  name: (_) @name
  value: [
    (arrow_function parameters: (formal_parameters)? @parameters return_type: (_)? @return_type body: (_) @body)
    (function_expression parameters: (formal_parameters) @parameters body: (_) @body)
  ]) @definition.method

(property_signature name: (_) @name type: (_)? @type) @definition.field

; `constructor(private readonly currency: Currency)` declares a field.
(required_parameter
  (accessibility_modifier) @modifiers
  pattern: (identifier) @name
  type: (_)? @type) @definition.field

(program (lexical_declaration (variable_declarator name: (identifier) @name type: (_)? @type) @definition.global))
(program (variable_declaration (variable_declarator name: (identifier) @name type: (_)? @type) @definition.global))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name type: (_)? @type) @definition.global)))
