; Go definitions. Capture vocabulary: queries/README.md.
;
; A lone `type X struct {...}` is one `type_declaration` holding one
; `type_spec`: the declaration is the definition node, so that its leading
; comment is its docstring. In a group, `type ( A ...; B ... )`, each
; `type_spec` is a definition of its own. The same goes for `const` and `var`.

; --- Types: structs, interfaces, other named types -------------------------

((type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (struct_type (field_declaration_list) @body))) @definition.struct
  (#not-match? @definition.struct "^type\\s*\\("))

(type_declaration "("
  (type_spec
    name: (type_identifier) @name
    type: (struct_type (field_declaration_list) @body)) @definition.struct)

((type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (interface_type))) @definition.interface
  (#not-match? @definition.interface "^type\\s*\\("))

(type_declaration "("
  (type_spec
    name: (type_identifier) @name
    type: (interface_type)) @definition.interface)

; `type Celsius float64`, `type HandlerFunc func(...)`: named types that can
; carry methods.
((type_declaration
  (type_spec
    name: (type_identifier) @name
    type: [
      (type_identifier) (qualified_type) (generic_type) (pointer_type) (function_type)
      (map_type) (slice_type) (array_type) (channel_type)
    ] @type)) @definition.class
  (#not-match? @definition.class "^type\\s*\\("))

; Aliases: `type CacheConf = ClusterConf`, and a group's re-exports,
; `type ( Tool = sdkmcp.Tool; ... )`.
((type_declaration
  (type_alias name: (type_identifier) @name type: (_) @type)) @definition.alias
  (#not-match? @definition.alias "^type\\s*\\("))

(type_declaration "("
  (type_alias name: (type_identifier) @name type: (_) @type) @definition.alias)

; Struct embedding is Go's inheritance: `struct { Entity; *pkg.Base }`.
((type_declaration
  (type_spec
    type: (struct_type
      (field_declaration_list
        (field_declaration
          !name
          type: [
            (type_identifier)
            (qualified_type)
            (generic_type)
            (pointer_type [(type_identifier) (qualified_type) (generic_type)])
          ] @base.inherits))))) @definition
  (#not-match? @definition "^type\\s*\\("))

(type_declaration "("
  (type_spec
    type: (struct_type
      (field_declaration_list
        (field_declaration
          !name
          type: [
            (type_identifier)
            (qualified_type)
            (generic_type)
            (pointer_type [(type_identifier) (qualified_type) (generic_type)])
          ] @base.inherits)))) @definition)

; Interface embedding: `interface { io.Reader; Close() error }`.
((type_declaration
  (type_spec
    type: (interface_type
      (type_elem . [(type_identifier) (qualified_type) (generic_type)] @base.inherits .)))) @definition
  (#not-match? @definition "^type\\s*\\("))

(type_declaration "("
  (type_spec
    type: (interface_type
      (type_elem . [(type_identifier) (qualified_type) (generic_type)] @base.inherits .))) @definition)

(type_declaration "("
  (type_spec
    name: (type_identifier) @name
    type: [
      (type_identifier) (qualified_type) (generic_type) (pointer_type) (function_type)
      (map_type) (slice_type) (array_type) (channel_type)
    ] @type) @definition.class)

; --- Members -----------------------------------------------------------------

; Struct fields: one definition per name, `x, y int` included.
(field_declaration
  name: (field_identifier) @name
  type: (_) @type) @definition.field

(field_declaration
  name: (field_identifier)
  name: (field_identifier) @name @definition.field
  type: (_) @type)

; Methods of a named interface (not of an anonymous `interface{ ... }`).
(type_spec
  type: (interface_type
    (method_elem
      name: (field_identifier) @name
      parameters: (parameter_list) @parameters
      result: (_)? @return_type) @definition.method))

; --- Functions and methods ---------------------------------------------------

(function_declaration
  name: (identifier) @name
  parameters: (parameter_list) @parameters
  result: (_)? @return_type
  body: (block)? @body) @definition.function

; `func (s *Server) Start()`: the receiver's type owns the method.
(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @owner))
  name: (field_identifier) @name
  parameters: (parameter_list) @parameters
  result: (_)? @return_type
  body: (block)? @body) @definition.method

; --- Package-level constants and variables ----------------------------------

((source_file
  (const_declaration (const_spec name: (identifier) @name type: (_)? @type)) @definition.global)
  (#not-match? @definition.global "^const\\s*\\("))

(source_file
  (const_declaration "(" (const_spec name: (identifier) @name type: (_)? @type) @definition.global))

(source_file
  (var_declaration (var_spec name: (identifier) @name type: (_)? @type)) @definition.global)

(source_file
  (var_declaration (var_spec_list (var_spec name: (identifier) @name type: (_)? @type) @definition.global)))
