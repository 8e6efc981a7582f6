// RUN: nart-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error @+1 {{entry block must have 1 arguments to match function signature}}
"func.func"() <{sym_name = "entry_count", function_type = (i32) -> ()}> ({
^bb0(%a: i32, %b: i32):
  "func.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{symbol declaration cannot have public visibility}}
func.func @public_decl()

// -----

func.func @return_count(%a: i32) -> i32 {
  // expected-error @+1 {{has 0 operands, but enclosing function (@return_count) returns 1}}
  return
}

// -----

func.func @return_type(%a: i32) -> i64 {
  // expected-error @+1 {{type of return operand 0 ('i32') doesn't match function result type ('i64') in function @return_type}}
  return %a : i32
}

// -----

func.func @return_parent(%a: i1) {
  "test.region"() ({
    // expected-error @+1 {{expects parent op 'func.func'}}
    "func.return"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @unknown_callee() {
  // expected-error @+1 {{'nope' does not reference a valid function}}
  func.call @nope() : () -> ()
  return
}

// -----

func.func private @callee(i32) -> i32

func.func @operand_count() {
  // expected-error @+1 {{incorrect number of operands for callee}}
  %0 = func.call @callee() : () -> i32
  return
}

// -----

func.func private @callee(i32) -> i32

func.func @operand_type(%a: f32) {
  // expected-error @+1 {{operand type mismatch: expected operand type 'i32', but provided 'f32' for operand number 0}}
  %0 = func.call @callee(%a) : (f32) -> i32
  return
}

// -----

func.func private @callee(i32) -> i32

func.func @result_count(%a: i32) {
  // expected-error @+1 {{incorrect number of results for callee}}
  func.call @callee(%a) : (i32) -> ()
  return
}

// -----

func.func private @callee(i32) -> i32

func.func @result_type(%a: i32) {
  // expected-error @+3 {{result type mismatch at index 0}}
  // expected-note @+2 {{op result types: 'f32'}}
  // expected-note @+1 {{function result types: 'i32'}}
  %0 = func.call @callee(%a) : (i32) -> f32
  return
}

// -----

func.func @undefined_constant() {
  // expected-error @+1 {{reference to undefined function 'nope'}}
  %f = func.constant @nope : () -> ()
  return
}

// -----

func.func private @callee(i32) -> i32

func.func @constant_type() {
  // expected-error @+1 {{reference to function with mismatched type}}
  %f = func.constant @callee : () -> ()
  return
}

// -----

// expected-error @+1 {{expects argument attribute array to have the same number of elements as the number of function arguments, got 2, but expected 1}}
"func.func"() <{sym_name = "arg_attrs", function_type = (i32) -> (), arg_attrs = [{}, {}]}> ({
^bb0(%a: i32):
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @indirect_args(%f: (i32) -> i32, %a: f32) {
  // expected-error @+1 {{failed to verify that callee input types match argument types}}
  %0 = "func.call_indirect"(%f, %a) : ((i32) -> i32, f32) -> i32
  return
}

// -----

func.func @indirect_results(%f: (i32) -> i32, %a: i32) {
  // expected-error @+1 {{failed to verify that callee result types match result types}}
  %0 = "func.call_indirect"(%f, %a) : ((i32) -> i32, i32) -> f32
  return
}
