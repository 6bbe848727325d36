; Rust definitions. Capture vocabulary: queries/README.md.

; --- Visibility: `pub` and its scope (`crate`, `super`, `self`, `in path`) ---
; The keywords are captured one by one, so that `pub(crate)` gives the
; modifiers `pub` and `crate`.

(function_item (visibility_modifier "pub" @modifiers [(crate) (super) (self) "in"]? @modifiers)) @definition
(function_signature_item (visibility_modifier "pub" @modifiers [(crate) (super) (self) "in"]? @modifiers)) @definition
(struct_item (visibility_modifier "pub" @modifiers [(crate) (super) (self) "in"]? @modifiers)) @definition
(enum_item (visibility_modifier "pub" @modifiers [(crate) (super) (self) "in"]? @modifiers)) @definition
(union_item (visibility_modifier "pub" @modifiers [(crate) (super) (self) "in"]? @modifiers)) @definition
(trait_item (visibility_modifier "pub" @modifiers [(crate) (super) (self) "in"]? @modifiers)) @definition
(mod_item (visibility_modifier "pub" @modifiers [(crate) (super) (self) "in"]? @modifiers)) @definition
(const_item (visibility_modifier "pub" @modifiers [(crate) (super) (self) "in"]? @modifiers)) @definition
(static_item (visibility_modifier "pub" @modifiers [(crate) (super) (self) "in"]? @modifiers)) @definition
(field_declaration (visibility_modifier "pub" @modifiers [(crate) (super) (self) "in"]? @modifiers)) @definition

; Trait items are as visible as their trait.
(trait_item
  (visibility_modifier "pub" @modifiers [(crate) (super) (self) "in"]? @modifiers)
  body: (declaration_list [(function_item) (function_signature_item) (const_item)] @definition))

; --- Types -------------------------------------------------------------------

(struct_item
  name: (type_identifier) @name
  body: (_)? @body) @definition.struct

(enum_item
  name: (type_identifier) @name
  body: (enum_variant_list) @body) @definition.enum

(union_item
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.union

(trait_item
  name: (type_identifier) @name
  body: (declaration_list) @body) @definition.trait

; `trait Shape: Debug + Send`: supertraits.
(trait_item
  bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @base.inherits)) @definition

; --- Fields ------------------------------------------------------------------

; Struct and union fields (not the fields of an enum's struct-like variant).
(struct_item
  body: (field_declaration_list
    (field_declaration name: (field_identifier) @name type: (_) @type) @definition.field))

(union_item
  body: (field_declaration_list
    (field_declaration name: (field_identifier) @name type: (_) @type) @definition.field))

; --- Functions and methods ---------------------------------------------------

(function_item
  (function_modifiers)? @modifiers
  name: (identifier) @name
  parameters: (parameters) @parameters
  return_type: (_)? @return_type
  body: (block) @body) @definition.function

; Trait methods without a default body.
(function_signature_item
  (function_modifiers)? @modifiers
  name: (identifier) @name
  parameters: (parameters) @parameters
  return_type: (_)? @return_type) @definition.method

; `impl Type { fn ... }` and `impl Trait for Type { fn ... }`: methods of Type.
(impl_item
  type: (_) @owner
  body: (declaration_list (function_item) @definition))

; --- Decorators: the attributes in front of an item -----------------------
; `#[derive(Debug)]` gives `derive(Debug)`; `#[ignore = "slow"]` gives `ignore`.

((attribute_item [(attribute !value) @decorator (attribute . (_) @decorator value: (_))])
  .
  [(function_item) (function_signature_item) (struct_item) (enum_item) (union_item) (trait_item) (mod_item) (const_item) (static_item)] @definition)

((attribute_item [(attribute !value) @decorator (attribute . (_) @decorator value: (_))])
  .
  (attribute_item)
  .
  [(function_item) (struct_item) (enum_item) (union_item) (trait_item) (mod_item)] @definition)

((attribute_item [(attribute !value) @decorator (attribute . (_) @decorator value: (_))])
  .
  (attribute_item)
  .
  (attribute_item)
  .
  [(function_item) (struct_item) (enum_item) (union_item) (trait_item) (mod_item)] @definition)

(field_declaration_list
  (attribute_item [(attribute !value) @decorator (attribute . (_) @decorator value: (_))])
  .
  (field_declaration) @definition)

; --- Modules, constants and statics -----------------------------------------

; `mod tests { ... }` is a namespace with a body.
(mod_item
  name: (identifier) @name
  body: (declaration_list) @body) @definition.package

(source_file
  [(const_item "const" @modifiers name: (identifier) @name type: (_) @type)
   (static_item "static" @modifiers (mutable_specifier)? @modifiers name: (identifier) @name type: (_) @type)] @definition.global)

(mod_item
  body: (declaration_list
    [(const_item "const" @modifiers name: (identifier) @name type: (_) @type)
     (static_item "static" @modifiers (mutable_specifier)? @modifiers name: (identifier) @name type: (_) @type)] @definition.global))

; Associated constants of a trait are its fields.
(trait_item
  body: (declaration_list
    (const_item "const" @modifiers name: (identifier) @name type: (_) @type) @definition.global))
