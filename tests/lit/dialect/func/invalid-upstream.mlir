// RUN: nart-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// The rules of upstream's mlir/test/Dialect/Func/invalid.mlir and mlir/test/IR/invalid-func-op.mlir
// that concern func, written for nart. Every case here also passes `mlir-opt --split-input-file
// --verify-diagnostics --allow-unregistered-dialect` (LLVM 22), which
// crates/nart-opt/tests/upstream_diagnostics.rs checks. Differences that remain are in
// ../../KNOWN_BUGS.md.

func.func private @two_results() -> (i8, f16)

func.func @call_swapped_results() {
  // expected-error @+3 {{'func.call' op result type mismatch at index 0}}
  // expected-note @+2 {{op result types: 'f16', 'i8'}}
  // expected-note @+1 {{function result types: 'i8', 'f16'}}
  %0:2 = call @two_results() : () -> (f16, i8)
  return
}

// -----

func.func @missing_return_value() -> f64 {
^entry:
  // expected-error @+1 {{'func.return' op has 0 operands, but enclosing function (@missing_return_value) returns 1}}
  return
}

// -----

func.func @wrong_return_type() -> f64 {
  %0 = "test.make"() : () -> i8
  // expected-error @+1 {{type of return operand 0 ('i8') doesn't match function result type ('f64') in function @wrong_return_type}}
  return %0 : i8
}

// -----

func.func @return_in_foreign_region() {
  "test.loop"() ({
    // expected-error @+1 {{'func.return' op expects parent op 'func.func'}}
    func.return
  }) : () -> ()
  return
}

// -----

// expected-error @+1 {{expected non-function type}}
func.func @variadic_signature(i8, ...)

// -----

func.func @constant_wrong_type() {
  // expected-error @+1 {{'func.constant' op reference to function with mismatched type}}
  %f = constant @constant_wrong_type : (f16) -> ()
  return
}

// -----

func.func @constant_unknown_function() {
  // expected-error @+1 {{'func.constant' op reference to undefined function 'nowhere'}}
  %f = constant @nowhere : () -> i8
  return
}

// -----

func.func @block_label_with_named_args(%x: i8) {
^start(%y: i8):
// expected-error @-1 {{invalid block name in region with named arguments}}
  return
}

// -----

func.func @named_then_unnamed(%x: i8,
                              i16) {
// expected-error @-1 {{expected SSA identifier}}
  return
}

// -----

func.func @unnamed_then_named(i16,
                              %x: i8) { // expected-error {{expected type instead of SSA identifier}}
  return
}

// -----

// expected-error @+1 {{arguments may only have dialect attributes}}
func.func private @plain_arg_attr(f32 {plain = 1 : i8})

// -----

// expected-error @+1 {{results may only have dialect attributes}}
func.func private @plain_result_attr() -> (f32 {plain = 1 : i8})

// -----

// expected-error @+1 {{expected non-empty function body}}
func.func @empty_braces() {}

// -----

// LLVM 22 accepts any terminator in a function (newer upstream wants func.return).
func.func @foreign_terminator(%x: i8) -> i8 {
  "foo.finish"(%x) : (i8) -> ()
}

// -----

func.func @outer() {
  // expected-error @+1 {{expected type instead of SSA identifier}}
  func.func @inner(i8, %x: i16) {
    return
  }
  return
}

// -----

func.func @outer() {
  // expected-error @+1 {{expected SSA identifier}}
  func.func @inner(%x: i16, i8) {
    return
  }
  return
}

// -----

builtin.module {
  // expected-error @+1 {{'func.func' op entry block must have 2 arguments to match function signature}}
  func.func @inner(i8, i16) {
  ^entry:
    return
  }
}

// -----

builtin.module {
  // expected-error @+1 {{'func.func' op type of entry block argument #1('i32') must match the type of the corresponding argument in function signature('i16')}}
  func.func @inner(i8, i16) {
  ^entry(%a: i8, %b: i32):
    return
  }
}

// -----

// expected-error @+1 {{expected ')'}}
func.func @unclosed_results() -> (i8

// -----

// expected-error @+1 {{expected attribute name}}
func.func @unclosed_result_attrs() -> (i8 {)

// -----

// expected-error @+1 {{symbol declaration cannot have public visibility}}
func.func @public_declaration(i8) -> i8

// -----

// expected-error @+1 {{'sym_visibility' is an inferred attribute and should not be specified in the explicit attribute dictionary}}
func.func @visibility_in_dict() attributes {sym_visibility = "nested"}

// -----

// expected-error @+1 {{'sym_name' is an inferred attribute and should not be specified in the explicit attribute dictionary}}
func.func private @name_in_dict() attributes {sym_name = "other"}

// -----

// expected-error @+1 {{'function_type' is an inferred attribute and should not be specified in the explicit attribute dictionary}}
func.func private @type_in_dict() attributes {function_type = () -> ()}

// -----

// expected-error @+1 {{'func.func' op expects argument attribute array to have the same number of elements as the number of function arguments, got 2, but expected 1}}
func.func private @arg_attrs_count(i8) attributes {arg_attrs = [{}, {}]}

// -----

// expected-error @+1 {{'func.func' op expects result attribute array to have the same number of elements as the number of function results, got 1, but expected 0}}
func.func private @res_attrs_count() attributes {res_attrs = [{}]}

// -----

// expected-error @+1 {{'func.func' op arguments may only have dialect attributes}}
func.func private @plain_arg_attr_generic(i8) attributes {arg_attrs = [{plain}]}

// -----

func.func private @dialect_attrs(i8 {my.arg}) -> (i8 {my.res})

// -----

// expected-error @+1 {{'func.func' op entry block must have 1 arguments to match function signature}}
func.func @unnamed_argument_with_body(i8) {
  return
}

// -----

func.func @nested_in_module() {
  builtin.module {
    // expected-error @+1 {{'func.func' op symbol declaration cannot have public visibility}}
    func.func @decl()
  }
  return
}
