; C++ definitions. Capture vocabulary: queries/README.md.
;
; The C++ grammar is large, and a query's compile time grows with how
; precisely its patterns name node kinds: the patterns below use wildcards
; and text predicates where that keeps them as exact.

; --- Access sections ---------------------------------------------------------
; A member takes the nearest `public:`/`protected:`/`private:` above it.

(field_declaration_list
  (access_specifier) @modifiers
  .
  [(field_declaration) (function_definition) (declaration) (template_declaration) (comment)
   (alias_declaration) (using_declaration) (type_definition) (friend_declaration)]*
  .
  [(field_declaration) (function_definition) (declaration)] @definition)

(field_declaration_list
  (access_specifier) @modifiers
  .
  [(field_declaration) (function_definition) (declaration) (template_declaration) (comment)
   (alias_declaration) (using_declaration) (type_definition) (friend_declaration)]*
  .
  (template_declaration [(function_definition) (declaration)] @definition))

; --- Types -------------------------------------------------------------------

(class_specifier name: (_) @name body: (field_declaration_list) @body) @definition.class
(struct_specifier name: (_) @name body: (field_declaration_list) @body) @definition.struct
(union_specifier name: (_) @name body: (field_declaration_list) @body) @definition.union
(enum_specifier name: (_) @name body: (enumerator_list) @body) @definition.enum

; `class Circle : public Shape, private Counted`: every base inherits.
(class_specifier
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @base.inherits)) @definition
(struct_specifier
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @base.inherits)) @definition

(class_specifier (virtual_specifier) @modifiers) @definition
(class_specifier (attribute_declaration) @decorator) @definition
(struct_specifier (attribute_declaration) @decorator) @definition

; --- Namespaces --------------------------------------------------------------

(namespace_definition name: (_) @name body: (declaration_list) @body) @definition.package

; --- Functions ---------------------------------------------------------------
; The return type, body, modifiers and attributes of any function are added
; by the patterns at the end of this section.

; Free functions and methods defined in their class: `double area() const {...}`,
; `~Shape() = default;`, `Shape* make()`, `Shape& get()`.
((function_definition
  declarator: (function_declarator declarator: (_) @name parameters: (_) @parameters)) @definition.function
  (#match? @name "^(~?[A-Za-z_][A-Za-z0-9_]*|operator.*)$")
  (#not-match? @name "^(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)$"))

((function_definition
  declarator: (_ (function_declarator declarator: (_) @name parameters: (_) @parameters))) @definition.function
  (#match? @name "^(~?[A-Za-z_][A-Za-z0-9_]*|operator.*)$"))

; Methods defined outside their class: `double Circle::area() const {...}`,
; `geo::Circle::area`. A method named like its class constructs it.
((function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier scope: (_) @owner name: (_) @name)
    parameters: (_) @parameters)) @definition.method
  (#match? @name "^(~?[A-Za-z_][A-Za-z0-9_]*|operator.*)$")
  (#not-eq? @owner @name))

((function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier name: (qualified_identifier scope: (_) @owner name: (_) @name))
    parameters: (_) @parameters)) @definition.method
  (#match? @name "^(~?[A-Za-z_][A-Za-z0-9_]*|operator.*)$")
  (#not-eq? @owner @name))

; Qualified by namespaces too (`spdlog::sinks::sink::should_log`): a query
; cannot recurse, so each depth is a pattern; the owner is the innermost scope.
((function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: (_) @owner name: (_) @name)))
    parameters: (_) @parameters)) @definition.method
  (#match? @name "^(~?[A-Za-z_][A-Za-z0-9_]*|operator.*)$")
  (#not-eq? @owner @name))

((function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: (_) @owner name: (_) @name))))
    parameters: (_) @parameters)) @definition.method
  (#match? @name "^(~?[A-Za-z_][A-Za-z0-9_]*|operator.*)$")
  (#not-eq? @owner @name))

; Returning a pointer or a reference: `Node *Tree::find(...)`.
((function_definition
  declarator: (_ (function_declarator
    declarator: (qualified_identifier scope: (_) @owner name: (_) @name)
    parameters: (_) @parameters))) @definition.method
  (#match? @name "^([A-Za-z_][A-Za-z0-9_]*|operator.*)$"))

((function_definition
  declarator: (_ (function_declarator
    declarator: (qualified_identifier name: (qualified_identifier scope: (_) @owner name: (_) @name))
    parameters: (_) @parameters))) @definition.method
  (#match? @name "^([A-Za-z_][A-Za-z0-9_]*|operator.*)$"))

((function_definition
  declarator: (_ (function_declarator
    declarator: (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: (_) @owner name: (_) @name)))
    parameters: (_) @parameters))) @definition.method
  (#match? @name "^([A-Za-z_][A-Za-z0-9_]*|operator.*)$"))

((function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier scope: (_) @owner name: (_) @name)
    parameters: (_) @parameters)) @definition.constructor
  (#eq? @owner @name))

((function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier name: (qualified_identifier scope: (_) @owner name: (_) @name))
    parameters: (_) @parameters)) @definition.constructor
  (#eq? @owner @name))

((function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: (_) @owner name: (_) @name)))
    parameters: (_) @parameters)) @definition.constructor
  (#eq? @owner @name))

((function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: (_) @owner name: (_) @name))))
    parameters: (_) @parameters)) @definition.constructor
  (#eq? @owner @name))

; Methods declared in their class: `void scale(double factor);`,
; `virtual double area() const = 0;`. Declarations: resolution links each to
; its definition outside the class, where there is one.
(field_declaration
  type: (_) @return_type
  declarator: (function_declarator declarator: (_) @name parameters: (_) @parameters)) @definition.method @declaration

(field_declaration
  type: (_) @return_type
  declarator: (_ (function_declarator declarator: (_) @name parameters: (_) @parameters))) @definition.method @declaration

; Constructors and destructors declared in their class: `explicit Circle(double r);`.
(field_declaration_list
  (declaration
    declarator: (function_declarator declarator: (_) @name parameters: (_) @parameters)) @definition.method @declaration)

; Member templates declared in their class: `template <class T> void visit(T& v);`.
(field_declaration_list
  (template_declaration
    (declaration
      type: (_) @return_type
      declarator: (function_declarator declarator: (_) @name parameters: (_) @parameters)) @definition.method @declaration))

; Prototypes: `double area(const Shape& s);`, `template <class T> T max(T, T);`.
((declaration
  type: (_) @return_type
  declarator: (function_declarator declarator: (_) @name parameters: (parameter_list) @parameters)) @definition.function @declaration
  (#match? @name "^(~?[A-Za-z_][A-Za-z0-9_]*|operator.*)$"))

((declaration
  type: (_) @return_type
  declarator: (_ (function_declarator declarator: (_) @name parameters: (parameter_list) @parameters))) @definition.function @declaration
  (#match? @name "^(~?[A-Za-z_][A-Za-z0-9_]*|operator.*)$"))

; Conversion operators, named `operator` and the type they convert to:
; `explicit operator bool() const;`, `operator T();` and
; `operator int() const {...}` in their class, `Section::operator bool()
; const {...}` outside it.
(function_definition declarator: (operator_cast) @name) @definition.function
(declaration declarator: (operator_cast) @name) @definition.function @declaration
(function_definition
  declarator: (qualified_identifier scope: (_) @owner name: (operator_cast) @name)) @definition.method

(function_definition type: (_) @return_type) @definition
(function_definition body: (_) @body) @definition

; Modifiers: `static`, `inline`, `virtual`, `explicit`, `constexpr`, and
; after the parameters `const`, `override`, `final`, `noexcept`.
(function_definition [(storage_class_specifier) (type_qualifier) "virtual" (explicit_function_specifier)] @modifiers) @definition
(field_declaration [(storage_class_specifier) (type_qualifier) "virtual"] @modifiers) @definition
(declaration [(storage_class_specifier) (type_qualifier) (explicit_function_specifier)] @modifiers) @definition

(function_definition declarator: (function_declarator [(type_qualifier) (virtual_specifier) (noexcept)] @modifiers)) @definition
(field_declaration declarator: (function_declarator [(type_qualifier) (virtual_specifier) (noexcept)] @modifiers)) @definition

(function_definition (attribute_declaration) @decorator) @definition
(field_declaration (attribute_declaration) @decorator) @definition
(declaration (attribute_declaration) @decorator) @definition

; --- Tests -------------------------------------------------------------------
; GoogleTest: `TEST(Suite, Name) { ... }`, named by the test's own name.

((function_definition
  declarator: (function_declarator
    declarator: (identifier) @_macro
    parameters: (parameter_list (parameter_declaration) . (parameter_declaration type: (_) @name) .))) @definition.test
  (#match? @_macro "^(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)$"))

; --- Fields ------------------------------------------------------------------

(field_declaration
  type: (_) @type
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (reference_declarator (field_identifier) @name)
    (array_declarator declarator: (field_identifier) @name)
  ]) @definition.field

; `int x, y;`: the names after the first are fields of their own.
(field_declaration
  type: (_) @type
  declarator: (_)
  declarator: (field_identifier) @name @definition.field)

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
  ]) @definition.global

; `extern int registry_size;` declares a variable defined elsewhere.
((declaration
  (storage_class_specifier) @_extern
  declarator: [(identifier) (pointer_declarator) (array_declarator)]) @definition @declaration
  (#eq? @_extern "extern"))

; `typedef struct { ... } Point;`: the anonymous type takes the typedef's name.
(type_definition
  type: (struct_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @definition.struct

; `typedef struct jv_refcnt jv_refcnt;`, `typedef unsigned long ULong;`,
; `typedef void (*handler_f)(void *);`: a name for another type. A typedef of
; an anonymous struct, union or enum is that type, named above.
(type_definition
  type: [(primitive_type) (sized_type_specifier) (type_identifier) (qualified_identifier) (template_type) (dependent_type) (decltype)
         (struct_specifier name: (_)) (union_specifier name: (_)) (enum_specifier name: (_))] @type
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (type_identifier) @name))
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.alias

; `using size_type = std::size_t;`, `template <class T> using ptr = T*;`.
(alias_declaration name: (type_identifier) @name type: (_) @type) @definition.alias

; Macros: `#define MAX_SHAPES 64` is a constant, `#define SQUARE(x) ...` a function.
(preproc_def name: (identifier) @name value: (_)) @definition.global

(preproc_function_def
  name: (identifier) @name
  parameters: (preproc_params) @parameters
  value: (_)? @body) @definition.function
