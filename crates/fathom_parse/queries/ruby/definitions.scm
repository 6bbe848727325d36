; Ruby definitions. Capture vocabulary: queries/README.md.
;
; Classes, modules and methods capture no `@body`: a comment before the first
; statement would end up in the signature. The signature is the first line.

(class
  name: [(constant) (scope_resolution)] @name
  superclass: (superclass (_) @base.inherits)?) @definition.class

(module name: [(constant) (scope_resolution)] @name) @definition.module

; Mixins: `include Comparable`, `extend Forwardable`, `prepend Logging`.
(class
  body: (body_statement
    (call
      method: (identifier) @_mixin
      arguments: (argument_list [(constant) (scope_resolution)] @base.implements))
    (#match? @_mixin "^(include|extend|prepend)$"))) @definition

(module
  body: (body_statement
    (call
      method: (identifier) @_mixin
      arguments: (argument_list [(constant) (scope_resolution)] @base.implements))
    (#match? @_mixin "^(include|extend|prepend)$"))) @definition

(method
  name: (_) @name
  parameters: (method_parameters)? @parameters) @definition.method

; `def self.count`: a class method.
(singleton_method
  object: (_) @modifiers
  name: (_) @name
  parameters: (method_parameters)? @parameters) @definition.method

; Methods inside `class << self` are class methods too.
(singleton_class
  value: (self) @modifiers
  body: (body_statement (method) @definition))

; `private` / `protected` / `public` on their own line apply to the methods
; after them; the last one before a method wins (see the profile).
(body_statement
  (identifier) @modifiers
  (method) @definition
  (#match? @modifiers "^(private|protected|public)$"))

; `private def helper ... end`
(call
  method: (identifier) @modifiers
  arguments: (argument_list (method) @definition)
  (#match? @modifiers "^(private|protected|public)$"))

; Constants: globals at the top level, fields of a class or module.
(assignment left: (constant) @name) @definition.global

; Instance and class variables, wherever in the class they are assigned.
(assignment left: [(instance_variable) (class_variable)] @name) @definition.field

; `@order = Order.new(...)`: the field's type is evident.
(assignment
  left: [(instance_variable) (class_variable)]
  right: (call receiver: [(constant) (scope_resolution)] @type method: (identifier) @_new)
  (#eq? @_new "new")) @definition

(operator_assignment left: [(instance_variable) (class_variable)] @name) @definition.field

; RSpec, minitest/spec and ActiveSupport examples: `it "adds" do ... end`.
(call
  !receiver
  method: (identifier) @_fn
  arguments: (argument_list . (string) @name)
  block: [(do_block) (block)] @body
  (#match? @_fn "^(it|specify|example|scenario|test)$")) @definition.test
