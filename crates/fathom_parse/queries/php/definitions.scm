; PHP definitions. Capture vocabulary: queries/README.md.

; PHPUnit's `/** @test */` docblock marks a test method. This pattern comes
; first so that its kind is the one kept.
(declaration_list
  (comment) @_doc
  .
  (method_declaration
    name: (name) @name
    parameters: (formal_parameters) @parameters
    return_type: (_)? @return_type
    body: (compound_statement)? @body) @definition.test
  (#match? @_doc "@test\\b"))

(class_declaration
  name: (name) @name
  (base_clause [(name) (qualified_name)] @base.inherits)?
  body: (declaration_list) @body) @definition.class

(class_declaration (class_interface_clause [(name) (qualified_name)] @base.implements)) @definition

(interface_declaration
  name: (name) @name
  (base_clause [(name) (qualified_name)] @base.inherits)?
  body: (declaration_list) @body) @definition.interface

(trait_declaration
  name: (name) @name
  body: (declaration_list) @body) @definition.trait

(enum_declaration
  name: (name) @name
  body: (enum_declaration_list) @body) @definition.enum

(enum_declaration (class_interface_clause [(name) (qualified_name)] @base.implements)) @definition

; `use SomeTrait;` inside a class body: the trait's members are mixed in.
(class_declaration body: (declaration_list (use_declaration [(name) (qualified_name)] @base.implements))) @definition
(trait_declaration body: (declaration_list (use_declaration [(name) (qualified_name)] @base.implements))) @definition
(enum_declaration body: (enum_declaration_list (use_declaration [(name) (qualified_name)] @base.implements))) @definition

(class_declaration [(abstract_modifier) (final_modifier) (readonly_modifier)] @modifiers) @definition

(function_definition
  name: (name) @name
  parameters: (formal_parameters) @parameters
  return_type: (_)? @return_type
  body: (compound_statement) @body) @definition.function

(method_declaration
  name: (name) @name
  parameters: (formal_parameters) @parameters
  return_type: (_)? @return_type
  body: (compound_statement)? @body) @definition.method

(method_declaration
  [(visibility_modifier) (static_modifier) (abstract_modifier) (final_modifier) (readonly_modifier)] @modifiers) @definition

; Attributes: `#[Test]`, `#[Route('/x')]`.
(class_declaration attributes: (attribute_list (attribute_group (attribute) @decorator))) @definition
(interface_declaration attributes: (attribute_list (attribute_group (attribute) @decorator))) @definition
(trait_declaration attributes: (attribute_list (attribute_group (attribute) @decorator))) @definition
(enum_declaration attributes: (attribute_list (attribute_group (attribute) @decorator))) @definition
(function_definition attributes: (attribute_list (attribute_group (attribute) @decorator))) @definition
(method_declaration attributes: (attribute_list (attribute_group (attribute) @decorator))) @definition
(property_declaration attributes: (attribute_list (attribute_group (attribute) @decorator))) @definition

; Properties. A declaration is one field named after its first property, so
; that its span, modifiers and docblock are the declaration's; further
; properties of the same declaration (`public $a, $b;`) are fields of their
; own, spanning their element.
(property_declaration
  type: (_)? @type
  (property_element name: (variable_name (name) @name))) @definition.field

(property_declaration
  type: (_)? @type
  (property_element)
  .
  (property_element name: (variable_name (name) @name)) @definition.field)

(property_declaration
  [(visibility_modifier) (static_modifier) (readonly_modifier) (var_modifier) (final_modifier) (abstract_modifier)] @modifiers) @definition

(property_declaration
  [(visibility_modifier) (static_modifier) (readonly_modifier) (var_modifier) (final_modifier) (abstract_modifier)] @modifiers
  (property_element) @definition)

; Promoted constructor parameters are properties too.
(method_declaration
  name: (name) @_ctor
  parameters: (formal_parameters
    (property_promotion_parameter
      type: (_)? @type
      name: (variable_name (name) @name)) @definition.field)
  (#eq? @_ctor "__construct"))

(property_promotion_parameter [(visibility_modifier) (readonly_modifier)] @modifiers) @definition

; Class constants are fields, and top-level or namespace constants globals.
; Like properties, a declaration is named after its first constant.
(const_declaration (const_element (name) @name)) @definition.global
(const_declaration (const_element) . (const_element (name) @name) @definition.global)
(const_declaration [(visibility_modifier) (final_modifier)] @modifiers) @definition
(const_declaration [(visibility_modifier) (final_modifier)] @modifiers (const_element) @definition)

(enum_case name: (name) @name) @definition.field

; Top-level variables and `define('NAME', ...)`.
(program (expression_statement (assignment_expression left: (variable_name (name) @name)) @definition.global))
(namespace_definition body: (compound_statement (expression_statement (assignment_expression left: (variable_name (name) @name)) @definition.global)))

(function_call_expression
  function: (name) @_define
  arguments: (arguments . (argument (string) @name))
  (#eq? @_define "define")) @definition.global

; A namespace with a body: `namespace App\Util { ... }`. The file-scoped
; `namespace App;` is the file's package (references.scm).
(namespace_definition
  name: (namespace_name) @name
  body: (compound_statement) @body) @definition.package
