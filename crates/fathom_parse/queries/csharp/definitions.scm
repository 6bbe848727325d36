; C# definitions. Capture vocabulary: queries/README.md.

; `namespace A.B { ... }`; a file-scoped `namespace A.B;` is a package reference.
(namespace_declaration name: (_) @name body: (declaration_list) @body) @definition.package

(class_declaration name: (identifier) @name body: (declaration_list) @body) @definition.class
(interface_declaration name: (identifier) @name body: (declaration_list) @body) @definition.interface
(struct_declaration name: (identifier) @name body: (declaration_list) @body) @definition.struct
(enum_declaration name: (identifier) @name body: (enum_member_declaration_list) @body) @definition.enum
; `record Person(string First);` may have no body; `record struct` too.
(record_declaration name: (identifier) @name body: (declaration_list)? @body) @definition.record

; A primary constructor's parameters: `record Person(string First)`, `class C(int x)`.
(class_declaration (parameter_list) @parameters) @definition
(struct_declaration (parameter_list) @parameters) @definition
(record_declaration (parameter_list) @parameters) @definition

; C# cannot tell a base class from an interface by syntax: every entry of the
; base list is `inherits`.
(class_declaration (base_list (_) @base.inherits)) @definition
(interface_declaration (base_list (_) @base.inherits)) @definition
(struct_declaration (base_list (_) @base.inherits)) @definition
(record_declaration (base_list (_) @base.inherits)) @definition
(enum_declaration (base_list (_) @base.inherits)) @definition

; Modifiers and attributes of any declaration.
((_ (modifier) @modifiers) @definition)
((_ (attribute_list (attribute) @decorator)) @definition)

(method_declaration
  returns: (_) @return_type
  name: (identifier) @name
  parameters: (parameter_list) @parameters
  body: [(block) (arrow_expression_clause)]? @body) @definition.method

(constructor_declaration
  name: (identifier) @name
  parameters: (parameter_list) @parameters
  body: [(block) (arrow_expression_clause)]? @body) @definition.constructor

(local_function_statement
  type: (_) @return_type
  name: (identifier) @name
  parameters: (parameter_list) @parameters
  body: [(block) (arrow_expression_clause)]? @body) @definition.function

; Fields: the declaration is the definition for its first declarator; later
; declarators of `int a, b;` are definitions of their own. The closing `;`
; stands in for a body, so the signature is the whole declaration.
(field_declaration
  (variable_declaration type: (_) @type (variable_declarator name: (identifier) @name))
  ";" @body) @definition.field

(event_field_declaration
  (variable_declaration type: (_) @type (variable_declarator name: (identifier) @name))
  ";" @body) @definition.field

(field_declaration
  (modifier)* @modifiers
  (variable_declaration
    type: (_) @type
    (variable_declarator)
    (variable_declarator name: (identifier) @name) @definition.field))

(field_declaration
  (attribute_list (attribute) @decorator)
  (variable_declaration
    (variable_declarator)
    (variable_declarator) @definition))

; Properties are the class's fields; their accessors are part of them.
(property_declaration
  type: (_) @type
  name: (identifier) @name
  accessors: (accessor_list)? @body) @definition.field

(property_declaration
  type: (_) @type
  name: (identifier) @name
  value: (arrow_expression_clause) @body) @definition.field

; `record Person(string First)`: each positional parameter is a property.
(record_declaration
  (parameter_list (parameter type: (_) @type name: (identifier) @name) @definition.field))

(enum_member_declaration name: (identifier) @name) @definition.field
