; Kotlin definitions (tree-sitter-kotlin-ng). Capture vocabulary: queries/README.md.
;
; The grammar names few fields: types and parameters are children, so the
; profile's `synthesize` reads parameter types from their text.

; Classes by keyword and modifier: `interface`, `enum class`, `annotation class`.
((class_declaration "class" name: (identifier) @name) @definition.class
  (#not-match? @definition.class "^[^{(]*\\b(enum|annotation)\\s+class\\b"))
(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration
  (modifiers (class_modifier) @_kind)
  name: (identifier) @name
  (#eq? @_kind "enum")) @definition.enum
(class_declaration
  (modifiers (class_modifier) @_kind)
  name: (identifier) @name
  (#eq? @_kind "annotation")) @definition.annotation

(class_declaration [(class_body) (enum_class_body)] @body) @definition

(object_declaration name: (identifier) @name) @definition.object
(object_declaration (class_body) @body) @definition

; `companion object Named`; an unnamed companion is named after its keyword
; here and `Companion` by the profile.
(companion_object name: (identifier) @name) @definition.object
(companion_object !name "companion" @name) @definition.object
(companion_object (class_body) @body) @definition

; `class A : Base(x), Iface`: a supertype called like a constructor is the
; superclass; the others are interfaces.
(class_declaration
  (delegation_specifiers (delegation_specifier (constructor_invocation (_) @base.inherits)))) @definition
(class_declaration
  (delegation_specifiers (delegation_specifier [(user_type) (nullable_type)] @base.implements))) @definition
(object_declaration
  (delegation_specifiers (delegation_specifier (constructor_invocation (_) @base.inherits)))) @definition
(object_declaration
  (delegation_specifiers (delegation_specifier [(user_type) (nullable_type)] @base.implements))) @definition
(companion_object
  (delegation_specifiers (delegation_specifier (constructor_invocation (_) @base.inherits)))) @definition
(companion_object
  (delegation_specifiers (delegation_specifier [(user_type) (nullable_type)] @base.implements))) @definition

; Modifiers and annotations of any declaration.
((_ (modifiers) @modifiers) @definition)
((_ (modifiers (annotation) @decorator)) @definition)

(function_declaration
  name: (identifier) @name
  (function_value_parameters) @parameters
  (function_body)? @body) @definition.function

(function_declaration
  (function_value_parameters)
  .
  [(user_type) (nullable_type) (function_type) (parenthesized_type) (non_nullable_type)] @return_type) @definition

; The primary constructor is named like its class.
(class_declaration
  name: (identifier) @name
  (primary_constructor (class_parameters) @parameters) @definition.constructor)

(class_declaration
  name: (identifier) @name
  (class_body
    (secondary_constructor (function_value_parameters) @parameters (block)? @body) @definition.constructor))

; `class P(val x: Int)`: a `val`/`var` constructor parameter is a property.
(class_parameter
  ["val" "var"]
  (identifier) @name
  [(user_type) (nullable_type) (function_type) (parenthesized_type) (non_nullable_type)]? @type) @definition.field

; Properties: fields in a class or object, globals at the top level, and
; local variables (dropped) in a function.
(property_declaration
  (variable_declaration
    (identifier) @name
    [(user_type) (nullable_type) (function_type) (parenthesized_type) (non_nullable_type)]? @type)) @definition.global

(enum_entry (identifier) @name) @definition.field
