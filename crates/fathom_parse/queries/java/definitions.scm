; Java definitions. Capture vocabulary: queries/README.md.

; Types. Annotations live in `modifiers`, inside the declaration, so the span
; covers them and Javadoc is the comment just above.
(class_declaration name: (identifier) @name body: (class_body) @body) @definition.class
(interface_declaration name: (identifier) @name body: (interface_body) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (enum_body) @body) @definition.enum
(record_declaration name: (identifier) @name body: (class_body) @body) @definition.record
(annotation_type_declaration name: (identifier) @name body: (annotation_type_body) @body) @definition.annotation

(class_declaration superclass: (superclass (_) @base.inherits)) @definition
(class_declaration interfaces: (super_interfaces (type_list (_) @base.implements))) @definition
(enum_declaration interfaces: (super_interfaces (type_list (_) @base.implements))) @definition
(record_declaration interfaces: (super_interfaces (type_list (_) @base.implements))) @definition
(interface_declaration (extends_interfaces (type_list (_) @base.inherits))) @definition

; Modifiers and annotations of every declaration kind.
((_ (modifiers) @modifiers) @definition)

((_ (modifiers [(marker_annotation) (annotation)] @decorator)) @definition)

; Methods: abstract and interface methods have no body.
(method_declaration
  type: (_) @return_type
  name: (identifier) @name
  parameters: (formal_parameters) @parameters
  body: (block)? @body) @definition.method

(constructor_declaration
  name: (identifier) @name
  parameters: (formal_parameters) @parameters
  body: (constructor_body) @body) @definition.constructor

; `record P(int x) { P { ... } }`
(compact_constructor_declaration name: (identifier) @name body: (block) @body) @definition.constructor

; Fields: the declaration is the definition for its first declarator; later
; declarators of `int a, b;` are definitions of their own. The closing `;`
; stands in for a body, so the signature is the whole declaration.
(field_declaration
  type: (_) @type
  declarator: (variable_declarator name: (identifier) @name)
  ";" @body) @definition.field

(field_declaration
  (modifiers)? @modifiers
  type: (_) @type
  declarator: (_)
  declarator: (variable_declarator name: (identifier) @name) @definition.field)

(field_declaration
  (modifiers [(marker_annotation) (annotation)] @decorator)
  declarator: (_)
  declarator: (variable_declarator) @definition)

; Interface constants.
(constant_declaration
  type: (_) @type
  declarator: (variable_declarator name: (identifier) @name)
  ";" @body) @definition.field

; Record components are the record's fields.
(record_declaration
  parameters: (formal_parameters
    (formal_parameter type: (_) @type name: (identifier) @name) @definition.field))

(enum_constant name: (identifier) @name) @definition.field
