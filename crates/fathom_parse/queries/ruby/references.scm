; Ruby references. Capture vocabulary: queries/README.md.

; Method calls, with or without a receiver or parentheses (a bare `foo`
; without arguments is an identifier: it is a use).
(call
  receiver: (_)? @call.receiver
  method: [(identifier) (constant)] @call.name
  arguments: (argument_list)? @call.arguments
  (#not-eq? @call.name "new")) @call

; `Product.new(...)`, `Shop::Cart.new(...)`: instantiations of the class.
(call
  receiver: (constant) @call.name
  method: (identifier) @_new
  arguments: (argument_list)? @call.arguments
  (#eq? @_new "new")) @new

(call
  receiver: (scope_resolution scope: (_) @call.receiver name: (constant) @call.name)
  method: (identifier) @_new
  arguments: (argument_list)? @call.arguments
  (#eq? @_new "new")) @new

; `klass.new`: a call on a value whose class is unknown.
(call
  receiver: [(identifier) (instance_variable) (class_variable) (self) (call) (parenthesized_statements)] @call.receiver
  method: (identifier) @call.name
  arguments: (argument_list)? @call.arguments
  (#eq? @call.name "new")) @call

(call
  method: (identifier) @_require
  arguments: (argument_list . (string) @import.source)
  (#match? @_require "^(require|require_relative|load)$")) @import

; `autoload :Cart, "shop/cart"`
(call
  method: (identifier) @_autoload
  arguments: (argument_list . (simple_symbol) . (string) @import.source)
  (#eq? @_autoload "autoload")) @import

; Instance and class variables: their names keep the sigil, like the fields.
[(instance_variable) (class_variable)] @use

(assignment left: [(instance_variable) (class_variable)] @use.name) @write
(operator_assignment left: [(instance_variable) (class_variable)] @use.name) @write

; Bare names where a value is read; a method name after a receiver
; (`items.map`) is no variable. A bare statement (`sum`) may be a call
; without arguments. Resolution keeps those that name a global or a method.
(argument_list (identifier) @use)
(call receiver: (identifier) @use)
(assignment right: (identifier) @use)
(operator_assignment right: (identifier) @use)
(binary (identifier) @use)
(unary (identifier) @use)
(pair value: (identifier) @use)
(interpolation (identifier) @use)
(array (identifier) @use)
(element_reference (identifier) @use)
(conditional (identifier) @use)
(case value: (identifier) @use)
(if condition: (identifier) @use)
(unless condition: (identifier) @use)
(while condition: (identifier) @use)
(until condition: (identifier) @use)
(elsif condition: (identifier) @use)
(if_modifier condition: (identifier) @use)
(unless_modifier condition: (identifier) @use)
(while_modifier condition: (identifier) @use)
(until_modifier condition: (identifier) @use)
(optional_parameter value: (identifier) @use)
(keyword_parameter value: (identifier) @use)
((body_statement (identifier) @use) (#not-match? @use "^(private|protected|public|module_function)$"))
(block_body (identifier) @use)
(then (identifier) @use)
(else (identifier) @use)
(parenthesized_statements (identifier) @use)

; Constants name classes, modules and constants.
(constant) @use

; `product = Product.new(...)`: the class is the local's type.
(assignment
  left: (identifier) @local.name
  right: (call
    receiver: [(constant) (scope_resolution)] @local.type
    method: (identifier) @_new
    (#eq? @_new "new"))) @local
