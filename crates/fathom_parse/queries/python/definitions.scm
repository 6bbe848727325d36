; Python definitions. Capture vocabulary: queries/README.md.

(class_definition
  name: (identifier) @name
  body: (block) @body) @definition.class

(class_definition
  superclasses: (argument_list [(identifier) (attribute) (subscript)] @base.inherits)) @definition

(function_definition
  name: (identifier) @name
  parameters: (parameters) @parameters
  return_type: (_)? @return_type
  body: (block) @body) @definition.function

(function_definition "async" @modifiers) @definition

(decorated_definition
  (decorator) @decorator
  definition: (_) @definition)

; Class attributes: `x = 0`, `x: int = 0`, `x: int`.
(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name type: (_)? @type) @definition.field)))

; Instance attributes, wherever in the class they are assigned.
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @name)
  type: (_)? @type
  (#eq? @_self "self")) @definition.field

(module
  (expression_statement
    (assignment left: (identifier) @name type: (_)? @type) @definition.global))
