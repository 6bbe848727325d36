; C definitions. Capture vocabulary: queries/README.md.

; --- Types -------------------------------------------------------------------

(struct_specifier name: (_) @name body: (field_declaration_list) @body) @definition.struct
(union_specifier name: (_) @name body: (field_declaration_list) @body) @definition.union
(enum_specifier name: (_) @name body: (enumerator_list) @body) @definition.enum

; `typedef struct { ... } circle_t;`: the anonymous type takes the typedef's name.
(type_definition
  type: (struct_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (union_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @definition.union

(type_definition
  type: (enum_specifier !name body: (enumerator_list) @body)
  declarator: (type_identifier) @name) @definition.enum

; `typedef struct jv_refcnt jv_refcnt;`, `typedef unsigned long ULong;`,
; `typedef void (*handler_f)(void *);`: a name for another type. A typedef of
; an anonymous struct, union or enum is that type, named above.
(type_definition
  type: [(primitive_type) (sized_type_specifier) (type_identifier) (macro_type_specifier)
         (struct_specifier name: (_)) (union_specifier name: (_)) (enum_specifier name: (_))] @type
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (type_identifier) @name))
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.alias

; --- Functions ---------------------------------------------------------------

(function_definition
  type: (_) @return_type
  declarator: [
    (function_declarator declarator: (identifier) @name parameters: (parameter_list) @parameters)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name parameters: (parameter_list) @parameters))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name parameters: (parameter_list) @parameters)))
  ]
  body: (compound_statement) @body) @definition.function

(function_definition [(storage_class_specifier) (type_qualifier)] @modifiers) @definition

; Prototypes: `jv jv_parse(const char *);` declares a function defined
; elsewhere. A symbol, marked as a declaration; resolution links it to its
; definition.
(declaration
  type: (_) @return_type
  declarator: [
    (function_declarator declarator: (identifier) @name parameters: (parameter_list) @parameters)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name parameters: (parameter_list) @parameters))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name parameters: (parameter_list) @parameters)))
  ]) @definition.function @declaration

; Function-like macros: `#define SQUARE(x) ((x) * (x))`.
(preproc_function_def
  name: (identifier) @name
  parameters: (preproc_params) @parameters
  value: (_)? @body) @definition.function

; --- Fields ------------------------------------------------------------------

(field_declaration
  type: (_) @type
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
    ; A function pointer: `double (*area)(const struct shape *self);`
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
  ]) @definition.field

; `int id, flags;`: the names after the first are fields of their own.
(field_declaration
  type: (_) @type
  declarator: (_)
  declarator: (field_identifier) @name @definition.field)

(field_declaration [(storage_class_specifier) (type_qualifier)] @modifiers) @definition

; --- Globals -----------------------------------------------------------------
; Variables declared anywhere; those inside a function are dropped as locals.

(declaration
  type: (_) @type
  declarator: [
    (identifier) @name
    (init_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (identifier) @name)
    (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (array_declarator declarator: (identifier) @name)
    (init_declarator declarator: (array_declarator declarator: (identifier) @name))
  ]) @definition.global

(declaration [(storage_class_specifier) (type_qualifier)] @modifiers) @definition

; `extern int jv_count;` declares a variable defined elsewhere.
((declaration
  (storage_class_specifier) @_extern
  declarator: [(identifier) (pointer_declarator) (array_declarator)]) @definition @declaration
  (#eq? @_extern "extern"))

; Object-like macros are constants: `#define MAX_SHAPES 64` (include guards have no value).
(preproc_def name: (identifier) @name value: (_)) @definition.global
