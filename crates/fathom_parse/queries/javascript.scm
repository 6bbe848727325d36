; Definitions in JavaScript (also used for .jsx, .mjs, .cjs).
(class_declaration name: (identifier) @name) @definition.class
(class name: (identifier) @name) @definition.class
(variable_declarator name: (identifier) @name value: (class !name)) @definition.class

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(assignment_expression
  left: (member_expression property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (generator_function)]) @definition.function

(method_definition name: (_) @name) @definition.method
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method
