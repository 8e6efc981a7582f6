// RUN: nart-opt %s --split-input-file --verify-diagnostics

func.func @addi_types(%a: i32, %b: i8) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "arith.addi"(%a, %b) : (i32, i8) -> i32
  return
}

// -----

func.func @addi_float(%a: f32) {
  // expected-error @+1 {{operand #0 must be signless-integer-like, but got 'f32'}}
  %0 = arith.addi %a, %a : f32
  return
}

// -----

func.func @addf_int(%a: i32) {
  // expected-error @+1 {{operand #0 must be floating-point-like, but got 'i32'}}
  %0 = arith.addf %a, %a : i32
  return
}

// -----

func.func @extsi_narrower(%a: i32) {
  // expected-error @+1 {{operand type 'i32' and result type 'i8' are cast incompatible}}
  %0 = arith.extsi %a : i32 to i8
  return
}

// -----

func.func @extui_same(%a: i32) {
  // expected-error @+1 {{operand type 'i32' and result type 'i32' are cast incompatible}}
  %0 = arith.extui %a : i32 to i32
  return
}

// -----

func.func @trunci_wider(%a: i8) {
  // expected-error @+1 {{operand type 'i8' and result type 'i32' are cast incompatible}}
  %0 = arith.trunci %a : i8 to i32
  return
}

// -----

func.func @extf_narrower(%a: f32) {
  // expected-error @+1 {{operand type 'f32' and result type 'f16' are cast incompatible}}
  %0 = arith.extf %a : f32 to f16
  return
}

// -----

func.func @truncf_wider(%a: f16) {
  // expected-error @+1 {{operand type 'f16' and result type 'f64' are cast incompatible}}
  %0 = arith.truncf %a : f16 to f64
  return
}

// -----

func.func @extsi_index(%a: index) {
  // expected-error @+1 {{operand #0 must be signless-fixed-width-integer-like, but got 'index'}}
  %0 = arith.extsi %a : index to i64
  return
}

// -----

func.func @extsi_shape(%a: i8) {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %0 = "arith.extsi"(%a) : (i8) -> vector<4xi32>
  return
}

// -----

func.func @bitcast_width(%a: f32) {
  // expected-error @+1 {{operand type 'f32' and result type 'i8' are cast incompatible}}
  %0 = arith.bitcast %a : f32 to i8
  return
}

// -----

func.func @index_cast_no_index(%a: i32) {
  // expected-error @+1 {{operand type 'i32' and result type 'i8' are cast incompatible}}
  %0 = arith.index_cast %a : i32 to i8
  return
}

// -----

func.func @cmpi_predicate(%a: i32) {
  // expected-error @+1 {{attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}
  %0 = "arith.cmpi"(%a, %a) {predicate = 12 : i64} : (i32, i32) -> i1
  return
}

// -----

func.func @cmpf_predicate(%a: f32) {
  // expected-error @+1 {{attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}}
  %0 = "arith.cmpf"(%a, %a) {predicate = 16 : i64} : (f32, f32) -> i1
  return
}

// -----

func.func @cmpi_result(%a: i32) {
  // expected-error @+1 {{result #0 must be bool-like, but got 'i8'}}
  %0 = "arith.cmpi"(%a, %a) <{predicate = 0 : i64}> : (i32, i32) -> i8
  return
}

// -----

func.func @cmpi_shape(%a: tensor<4xi32>) {
  // expected-error @+1 {{failed to verify that result type has i1 element type and same shape as operands}}
  %0 = "arith.cmpi"(%a, %a) <{predicate = 0 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> i1
  return
}

// -----

func.func @cmpi_operands(%a: i32, %b: i8) {
  // expected-error @+1 {{requires all operands to have the same type}}
  %0 = "arith.cmpi"(%a, %b) <{predicate = 0 : i64}> : (i32, i8) -> i1
  return
}

// -----

func.func @select_types(%c: i1, %a: i32, %b: i8) {
  // expected-error @+1 {{failed to verify that all of {true_value, false_value, result} have same type}}
  %0 = "arith.select"(%c, %a, %b) : (i1, i32, i8) -> i32
  return
}

// -----

func.func @select_condition(%c: vector<4xi32>, %a: vector<4xi32>) {
  // expected-error @+1 {{operand #0 must be bool-like, but got 'vector<4xi32>'}}
  %0 = "arith.select"(%c, %a, %a) : (vector<4xi32>, vector<4xi32>, vector<4xi32>) -> vector<4xi32>
  return
}

// -----

func.func @addui_extended_overflow(%a: i32) {
  // expected-error @+1 {{result #1 must be bool-like, but got 'i32'}}
  %0, %1 = "arith.addui_extended"(%a, %a) : (i32, i32) -> (i32, i32)
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() <{value = 1 : i64}> : () -> i32
  return
}

// -----

func.func @constant_signed() {
  // expected-error @+1 {{integer return type must be signless}}
  %0 = "arith.constant"() <{value = 1 : si8}> : () -> si8
  return
}

// -----

// mlir-opt (LLVM 22) crashes on this one; nart reports the condition.
func.func @select_vector_condition_scalar_values(%c: vector<4xi1>, %a: i8) {
  // expected-error @+1 {{'arith.select' op failed to verify that condition is signless i1 or has matching shape}}
  %0 = "arith.select"(%c, %a, %a) : (vector<4xi1>, i8, i8) -> i8
  return
}
