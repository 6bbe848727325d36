; Definitions in Python. Each match captures the definition node as
; @definition.<kind> and its name as @name. Nesting comes from the tree.
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
