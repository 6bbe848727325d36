; PHP references. Capture vocabulary: queries/README.md.

; Functions: `format_money(...)`, `Support\format_money(...)`.
(function_call_expression
  function: (name) @call.name
  arguments: (arguments) @call.arguments) @call

(function_call_expression
  function: (qualified_name prefix: (namespace_name) @call.receiver (name) @call.name)
  arguments: (arguments) @call.arguments) @call

(function_call_expression
  function: (qualified_name !prefix (name) @call.name)
  arguments: (arguments) @call.arguments) @call

; `$x->m()` and `$x?->m()`: a plain variable receiver is named without its
; `$`, like parameters and locals; others are kept as written.
(member_call_expression
  object: (variable_name (name) @call.receiver)
  name: (name) @call.name
  arguments: (arguments) @call.arguments) @call

(member_call_expression
  object: (_) @call.receiver
  name: (name) @call.name
  arguments: (arguments) @call.arguments
  (#not-match? @call.receiver "^[$][A-Za-z_0-9]+$")) @call

(nullsafe_member_call_expression
  object: (variable_name (name) @call.receiver)
  name: (name) @call.name
  arguments: (arguments) @call.arguments) @call

(nullsafe_member_call_expression
  object: (_) @call.receiver
  name: (name) @call.name
  arguments: (arguments) @call.arguments
  (#not-match? @call.receiver "^[$][A-Za-z_0-9]+$")) @call

; `Foo::bar()`, `parent::__construct()`, `self::x()`.
(scoped_call_expression
  scope: (_) @call.receiver
  name: (name) @call.name
  arguments: (arguments) @call.arguments) @call

; `new Foo(...)`, `new \Foo\Bar(...)`, `new self(...)`.
(object_creation_expression
  (name) @call.name
  (arguments)? @call.arguments) @new

(object_creation_expression
  (qualified_name prefix: (namespace_name) @call.receiver (name) @call.name)
  (arguments)? @call.arguments) @new

(object_creation_expression
  (qualified_name !prefix (name) @call.name)
  (arguments)? @call.arguments) @new

; `use A\B\C;`, `use A\B\C as D;`, `use function A\b;`
(namespace_use_declaration
  (namespace_use_clause
    (qualified_name prefix: (namespace_name) @import.source (name) @import.name)
    alias: (name)? @import.alias)) @import

; `use Foo;`: a name from the global namespace.
(namespace_use_declaration
  (namespace_use_clause
    .
    (name) @import.source @import.name
    alias: (name)? @import.alias)
  !body) @import

; `use A\B\{C, D as E};`
(namespace_use_declaration
  (namespace_name) @import.source
  body: (namespace_use_group
    (namespace_use_clause
      [(name) (qualified_name)] @import.name
      alias: (name)? @import.alias))) @import

; `require 'x.php'`, `include_once __DIR__ . '/x.php'`: the path literal.
(require_expression (string) @import.source) @import
(require_once_expression (string) @import.source) @import
(include_expression (string) @import.source) @import
(include_once_expression (string) @import.source) @import
(require_expression (binary_expression right: (string) @import.source)) @import
(require_once_expression (binary_expression right: (string) @import.source)) @import
(include_expression (binary_expression right: (string) @import.source)) @import
(include_once_expression (binary_expression right: (string) @import.source)) @import

; File-scoped `namespace App\Model;`.
(namespace_definition name: (namespace_name) @package.name !body) @package

; `$this->x`, `self::$x`, `static::$x`.
(member_access_expression object: (variable_name (name) @use.receiver) name: (name) @use.name) @use
(nullsafe_member_access_expression object: (variable_name (name) @use.receiver) name: (name) @use.name) @use
(scoped_property_access_expression scope: (_) @use.receiver name: (variable_name (name) @use.name)) @use
(class_constant_access_expression (_) @use.receiver (name) @use.name .) @use

(assignment_expression
  left: [
    (member_access_expression object: (variable_name (name) @use.receiver) name: (name) @use.name)
    (subscript_expression (member_access_expression object: (variable_name (name) @use.receiver) name: (name) @use.name))
    (scoped_property_access_expression scope: (_) @use.receiver name: (variable_name (name) @use.name))
  ]) @write

(augmented_assignment_expression
  left: [
    (member_access_expression object: (variable_name (name) @use.receiver) name: (name) @use.name)
    (subscript_expression (member_access_expression object: (variable_name (name) @use.receiver) name: (name) @use.name))
    (scoped_property_access_expression scope: (_) @use.receiver name: (variable_name (name) @use.name))
  ]) @write

(update_expression
  argument: [
    (member_access_expression object: (variable_name (name) @use.receiver) name: (name) @use.name)
    (scoped_property_access_expression scope: (_) @use.receiver name: (variable_name (name) @use.name))
  ]) @write

; Bare constant and class names (`CURRENCY`, `Tier`) and globals (`$registry`).
(argument (name) @use)
(binary_expression (name) @use)
(simple_parameter default_value: (name) @use)
((variable_name (name) @use) (#not-eq? @use "this"))

; `$invoice = new Invoice(...)`: the class is the local's type.
(assignment_expression
  left: (variable_name (name) @local.name)
  right: (object_creation_expression [(name) (qualified_name)] @local.type)) @local
