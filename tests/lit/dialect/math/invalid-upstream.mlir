// RUN: nart-opt %s --split-input-file --verify-diagnostics

// Verifier rules of upstream's math ops (LLVM 22), written for nart. Every case here also
// passes `mlir-opt --split-input-file --verify-diagnostics`, which
// crates/nart-opt/tests/upstream_diagnostics.rs checks.

func.func @exp_of_integer(%x: i32) {
  // expected-error @+1 {{'math.exp' op operand #0 must be floating-point-like, but got 'i32'}}
  %0 = "math.exp"(%x) : (i32) -> i32
  return
}

// -----

func.func @absi_of_float(%x: f32) {
  // expected-error @+1 {{'math.absi' op operand #0 must be signless-integer-like, but got 'f32'}}
  %0 = "math.absi"(%x) : (f32) -> f32
  return
}

// -----

func.func @sqrt_result_type(%x: f32) {
  // expected-error @+1 {{'math.sqrt' op requires the same type for all operands and results}}
  %0 = "math.sqrt"(%x) : (f32) -> f64
  return
}

// -----

func.func @fma_types(%x: f32, %y: f64) {
  // expected-error @+1 {{'math.fma' op requires the same type for all operands and results}}
  %0 = "math.fma"(%x, %y, %x) : (f32, f64, f32) -> f32
  return
}

// -----

func.func @fpowi_result(%x: f32, %n: i32) {
  // expected-error @+1 {{'math.fpowi' op failed to verify that all of {lhs, result} have same type}}
  %0 = "math.fpowi"(%x, %n) : (f32, i32) -> f64
  return
}

// -----

func.func @isnan_shape(%x: vector<4xf32>) {
  // expected-error @+1 {{'math.isnan' op failed to verify that result type has i1 element type and same shape as operands}}
  %0 = "math.isnan"(%x) : (vector<4xf32>) -> vector<2xi1>
  return
}
