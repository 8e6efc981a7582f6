// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(canonicalize))' --split-input-file | filecheck %s

// Identity(x) → x
// CHECK-LABEL: func.func @identity(%arg0: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: return %arg0 : tensor<2xf32>
func.func @identity(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "graph.Identity"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Identity(s) → s for a sequence too.
// CHECK-LABEL: func.func @identity_sequence(%arg0: !graph.seq<tensor<2xf32>>) -> !graph.seq<tensor<2xf32>>
// CHECK-NEXT: return %arg0 : !graph.seq<tensor<2xf32>>
func.func @identity_sequence(%s: !graph.seq<tensor<2xf32>>) -> !graph.seq<tensor<2xf32>> {
  %0 = "graph.Identity"(%s) : (!graph.seq<tensor<2xf32>>) -> !graph.seq<tensor<2xf32>>
  return %0 : !graph.seq<tensor<2xf32>>
}

// -----

// Identity(x: ?) : 3 stays: folding to x would give its users a less precise type.
// CHECK-LABEL: func.func @identity_refines_type(%arg0: tensor<?xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[I:.*]] = "graph.Identity"(%arg0) : (tensor<?xf32>) -> tensor<3xf32>
// CHECK-NEXT: return %[[I]] : tensor<3xf32>
func.func @identity_refines_type(%x: tensor<?xf32>) -> tensor<3xf32> {
  %0 = "graph.Identity"(%x) : (tensor<?xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Shape(x: 2x3x5) → [2, 3, 5]
// CHECK-LABEL: func.func @shape(%arg0: tensor<2x3x5xf32>) -> tensor<3xi64>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[2, 3, 5]> : tensor<3xi64>}> : () -> tensor<3xi64>
// CHECK-NEXT: return %[[C]] : tensor<3xi64>
func.func @shape(%x: tensor<2x3x5xf32>) -> tensor<3xi64> {
  %0 = "graph.Shape"(%x) : (tensor<2x3x5xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Shape(x: 2x3x5){start = -2} → [3, 5] (a negative start counts from the back)
// CHECK-LABEL: func.func @shape_start(%arg0: tensor<2x3x5xf32>) -> tensor<2xi64>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[3, 5]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: return %[[C]] : tensor<2xi64>
func.func @shape_start(%x: tensor<2x3x5xf32>) -> tensor<2xi64> {
  %0 = "graph.Shape"(%x) <{start = -2 : i64}> : (tensor<2x3x5xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Shape(x: 2x3x5){start = 1, end = -1} → [3]
// CHECK-LABEL: func.func @shape_start_end(%arg0: tensor<2x3x5xf32>) -> tensor<1xi64>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
// CHECK-NEXT: return %[[C]] : tensor<1xi64>
func.func @shape_start_end(%x: tensor<2x3x5xf32>) -> tensor<1xi64> {
  %0 = "graph.Shape"(%x) <{end = -1 : i64, start = 1 : i64}> : (tensor<2x3x5xf32>) -> tensor<1xi64>
  return %0 : tensor<1xi64>
}

// -----

// Size(x: 2x3x5) → 30
// CHECK-LABEL: func.func @size(%arg0: tensor<2x3x5xf32>) -> tensor<i64>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<30> : tensor<i64>}> : () -> tensor<i64>
// CHECK-NEXT: return %[[C]] : tensor<i64>
func.func @size(%x: tensor<2x3x5xf32>) -> tensor<i64> {
  %0 = "graph.Size"(%x) : (tensor<2x3x5xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// Not folded: the Shape and Size of a tensor with a dynamic dim are not known.
// CHECK-LABEL: func.func @shape_size_dynamic(%arg0: tensor<?x3xf32>) -> (tensor<2xi64>, tensor<i64>)
// CHECK-NEXT: %[[S:.*]] = "graph.Shape"(%arg0) : (tensor<?x3xf32>) -> tensor<2xi64>
// CHECK-NEXT: %[[N:.*]] = "graph.Size"(%arg0) : (tensor<?x3xf32>) -> tensor<i64>
// CHECK-NEXT: return %[[S]], %[[N]] : tensor<2xi64>, tensor<i64>
func.func @shape_size_dynamic(%x: tensor<?x3xf32>) -> (tensor<2xi64>, tensor<i64>) {
  %0 = "graph.Shape"(%x) : (tensor<?x3xf32>) -> tensor<2xi64>
  %1 = "graph.Size"(%x) : (tensor<?x3xf32>) -> tensor<i64>
  return %0, %1 : tensor<2xi64>, tensor<i64>
}

// -----

// Reshape(c, [3, 2]) → c re-typed to 3x2
// CHECK-LABEL: func.func @reshape() -> tensor<3x2xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>}> : () -> tensor<3x2xf32>
// CHECK-NEXT: return %[[C]] : tensor<3x2xf32>
func.func @reshape() -> tensor<3x2xf32> {
  %c = "graph.constant"() <{value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %shape = "graph.constant"() <{value = dense<[3, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.Reshape"(%c, %shape) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Squeeze(c: 1x3x1) → c re-typed to 3
// CHECK-LABEL: func.func @squeeze() -> tensor<3xi32>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[1, 2, 3]> : tensor<3xi32>}> : () -> tensor<3xi32>
// CHECK-NEXT: return %[[C]] : tensor<3xi32>
func.func @squeeze() -> tensor<3xi32> {
  %none = "graph.none"() : () -> none
  %c = "graph.constant"() <{value = dense<[[[1], [2], [3]]]> : tensor<1x3x1xi32>}> : () -> tensor<1x3x1xi32>
  %0 = "graph.Squeeze"(%c, %none) : (tensor<1x3x1xi32>, none) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// Unsqueeze(c: 3, [0]) → c re-typed to 1x3
// CHECK-LABEL: func.func @unsqueeze() -> tensor<1x3xi64>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<{{\[\[}}1, 2, 3]]> : tensor<1x3xi64>}> : () -> tensor<1x3xi64>
// CHECK-NEXT: return %[[C]] : tensor<1x3xi64>
func.func @unsqueeze() -> tensor<1x3xi64> {
  %c = "graph.constant"() <{value = dense<[1, 2, 3]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %axes = "graph.constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "graph.Unsqueeze"(%c, %axes) : (tensor<3xi64>, tensor<1xi64>) -> tensor<1x3xi64>
  return %0 : tensor<1x3xi64>
}

// -----

// Flatten(c: 2x2x2){axis = 1} → c re-typed to 2x4 (a splat stays a splat)
// CHECK-LABEL: func.func @flatten() -> tensor<2x4xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<5.000000e-01> : tensor<2x4xf32>}> : () -> tensor<2x4xf32>
// CHECK-NEXT: return %[[C]] : tensor<2x4xf32>
func.func @flatten() -> tensor<2x4xf32> {
  %c = "graph.constant"() <{value = dense<0.5> : tensor<2x2x2xf32>}> : () -> tensor<2x2x2xf32>
  %0 = "graph.Flatten"(%c) <{axis = 1 : i64}> : (tensor<2x2x2xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Not folded: string constants are not re-typed.
// CHECK-LABEL: func.func @reshape_strings() -> tensor<2x1x!graph.string>
// CHECK: %[[R:.*]] = "graph.Reshape"
// CHECK-NEXT: return %[[R]] : tensor<2x1x!graph.string>
func.func @reshape_strings() -> tensor<2x1x!graph.string> {
  %c = "graph.constant"() <{value = dense<["a", "b"]> : tensor<2x!graph.string>}> : () -> tensor<2x!graph.string>
  %shape = "graph.constant"() <{value = dense<[2, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.Reshape"(%c, %shape) : (tensor<2x!graph.string>, tensor<2xi64>) -> tensor<2x1x!graph.string>
  return %0 : tensor<2x1x!graph.string>
}

// -----

// Cast(c){to = int64} → c rounded toward zero: [2.7, -2.7, 0.5] → [2, -2, 0]
// CHECK-LABEL: func.func @cast_float_to_int() -> tensor<3xi64>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[2, -2, 0]> : tensor<3xi64>}> : () -> tensor<3xi64>
// CHECK-NEXT: return %[[C]] : tensor<3xi64>
func.func @cast_float_to_int() -> tensor<3xi64> {
  %c = "graph.constant"() <{value = dense<[2.7, -2.7, 0.5]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %0 = "graph.Cast"(%c) <{to = 7 : i64}> : (tensor<3xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Cast(c){to = float} → c as floats: [1, -2, 3] → [1.0, -2.0, 3.0]
// CHECK-LABEL: func.func @cast_int_to_float() -> tensor<3xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[1.000000e+00, -2.000000e+00, 3.000000e+00]> : tensor<3xf32>}> : () -> tensor<3xf32>
// CHECK-NEXT: return %[[C]] : tensor<3xf32>
func.func @cast_int_to_float() -> tensor<3xf32> {
  %c = "graph.constant"() <{value = dense<[1, -2, 3]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %0 = "graph.Cast"(%c) <{to = 1 : i64}> : (tensor<3xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Cast(c){to = bool} → c != 0: [0.5, -2.0, 0.0] → [true, true, false] (not truncation)
// CHECK-LABEL: func.func @cast_float_to_bool() -> tensor<3xi1>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[true, true, false]> : tensor<3xi1>}> : () -> tensor<3xi1>
// CHECK-NEXT: return %[[C]] : tensor<3xi1>
func.func @cast_float_to_bool() -> tensor<3xi1> {
  %c = "graph.constant"() <{value = dense<[0.5, -2.0, 0.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %0 = "graph.Cast"(%c) <{to = 9 : i64}> : (tensor<3xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// Cast(c){to = float16} → c rounded to f16: 0.1 → 0.099975586
// CHECK-LABEL: func.func @cast_to_f16() -> tensor<2xf16>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[9.997559e-02, 1.500000e+00]> : tensor<2xf16>}> : () -> tensor<2xf16>
// CHECK-NEXT: return %[[C]] : tensor<2xf16>
func.func @cast_to_f16() -> tensor<2xf16> {
  %c = "graph.constant"() <{value = dense<[0.1, 1.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %0 = "graph.Cast"(%c) <{to = 10 : i64}> : (tensor<2xf32>) -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

// Not folded: the folder does not encode bfloat16.
// CHECK-LABEL: func.func @cast_to_bf16() -> tensor<2xbf16>
// CHECK: %[[R:.*]] = "graph.Cast"
// CHECK-NEXT: return %[[R]] : tensor<2xbf16>
func.func @cast_to_bf16() -> tensor<2xbf16> {
  %c = "graph.constant"() <{value = dense<[0.1, 1.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %0 = "graph.Cast"(%c) <{to = 16 : i64}> : (tensor<2xf32>) -> tensor<2xbf16>
  return %0 : tensor<2xbf16>
}

// -----

// Neg(c) → -c
// CHECK-LABEL: func.func @neg() -> tensor<3xi64>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[-1, 2, -3]> : tensor<3xi64>}> : () -> tensor<3xi64>
// CHECK-NEXT: return %[[C]] : tensor<3xi64>
func.func @neg() -> tensor<3xi64> {
  %c = "graph.constant"() <{value = dense<[1, -2, 3]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %0 = "graph.Neg"(%c) : (tensor<3xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Neg(c) wraps around in the element type: -(-128) is -128 in int8.
// CHECK-LABEL: func.func @neg_wraps() -> tensor<2xi8>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[-128, -127]> : tensor<2xi8>}> : () -> tensor<2xi8>
// CHECK-NEXT: return %[[C]] : tensor<2xi8>
func.func @neg_wraps() -> tensor<2xi8> {
  %c = "graph.constant"() <{value = dense<[-128, 127]> : tensor<2xi8>}> : () -> tensor<2xi8>
  %0 = "graph.Neg"(%c) : (tensor<2xi8>) -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

// Abs(c) → |c|
// CHECK-LABEL: func.func @abs() -> tensor<3xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[4.000000e+00, 9.000000e+00, 2.500000e-01]> : tensor<3xf32>}> : () -> tensor<3xf32>
// CHECK-NEXT: return %[[C]] : tensor<3xf32>
func.func @abs() -> tensor<3xf32> {
  %c = "graph.constant"() <{value = dense<[4.0, -9.0, 0.25]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %0 = "graph.Abs"(%c) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Relu(c) → max(c, 0)
// CHECK-LABEL: func.func @relu() -> tensor<3xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[4.000000e+00, 0.000000e+00, 2.500000e-01]> : tensor<3xf32>}> : () -> tensor<3xf32>
// CHECK-NEXT: return %[[C]] : tensor<3xf32>
func.func @relu() -> tensor<3xf32> {
  %c = "graph.constant"() <{value = dense<[4.0, -9.0, 0.25]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %0 = "graph.Relu"(%c) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Sqrt(c) → √c
// CHECK-LABEL: func.func @sqrt() -> tensor<3xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[2.000000e+00, 3.000000e+00, 5.000000e-01]> : tensor<3xf32>}> : () -> tensor<3xf32>
// CHECK-NEXT: return %[[C]] : tensor<3xf32>
func.func @sqrt() -> tensor<3xf32> {
  %c = "graph.constant"() <{value = dense<[4.0, 9.0, 0.25]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %0 = "graph.Sqrt"(%c) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Add(a, b) → a + b elementwise, for operands of the result's shape
// CHECK-LABEL: func.func @add() -> tensor<2xi64>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[11, 22]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: return %[[C]] : tensor<2xi64>
func.func @add() -> tensor<2xi64> {
  %a = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %b = "graph.constant"() <{value = dense<[10, 20]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.Add"(%a, %b) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Sub(s, c) → s - c with a single-element operand broadcast: 2 - [7, -7] → [-5, 9]
// CHECK-LABEL: func.func @sub_scalar() -> tensor<2xi64>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[-5, 9]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: return %[[C]] : tensor<2xi64>
func.func @sub_scalar() -> tensor<2xi64> {
  %s = "graph.constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %c = "graph.constant"() <{value = dense<[7, -7]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.Sub"(%s, %c) : (tensor<i64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Mul(a, b) → a * b: [1.5, -2] * [2, 3] → [3, -6]
// CHECK-LABEL: func.func @mul() -> tensor<2xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[3.000000e+00, -6.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
// CHECK-NEXT: return %[[C]] : tensor<2xf32>
func.func @mul() -> tensor<2xf32> {
  %a = "graph.constant"() <{value = dense<[1.5, -2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %b = "graph.constant"() <{value = dense<[2.0, 3.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %0 = "graph.Mul"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Div(a, b) on integers rounds toward zero: [7, -7] / 2 → [3, -3]
// CHECK-LABEL: func.func @div_int() -> tensor<2xi32>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[3, -3]> : tensor<2xi32>}> : () -> tensor<2xi32>
// CHECK-NEXT: return %[[C]] : tensor<2xi32>
func.func @div_int() -> tensor<2xi32> {
  %a = "graph.constant"() <{value = dense<[7, -7]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %b = "graph.constant"() <{value = dense<2> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = "graph.Div"(%a, %b) : (tensor<2xi32>, tensor<1xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// Div(a, 0.0) on floats follows IEEE: [1, -1] / 0 → [+inf, -inf]
// CHECK-LABEL: func.func @div_float_by_zero() -> tensor<2xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[0x7F800000, 0xFF800000]> : tensor<2xf32>}> : () -> tensor<2xf32>
// CHECK-NEXT: return %[[C]] : tensor<2xf32>
func.func @div_float_by_zero() -> tensor<2xf32> {
  %a = "graph.constant"() <{value = dense<[1.0, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %z = "graph.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %0 = "graph.Div"(%a, %z) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Not folded: integer division by zero.
// CHECK-LABEL: func.func @div_int_by_zero() -> tensor<2xi64>
// CHECK: %[[R:.*]] = "graph.Div"
// CHECK-NEXT: return %[[R]] : tensor<2xi64>
func.func @div_int_by_zero() -> tensor<2xi64> {
  %a = "graph.constant"() <{value = dense<[7, -7]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %b = "graph.constant"() <{value = dense<[1, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.Div"(%a, %b) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Not folded: operands that broadcast other than as a single element (2x1 + 1x2).
// CHECK-LABEL: func.func @add_broadcast() -> tensor<2x2xi64>
// CHECK: %[[R:.*]] = "graph.Add"
// CHECK-NEXT: return %[[R]] : tensor<2x2xi64>
func.func @add_broadcast() -> tensor<2x2xi64> {
  %a = "graph.constant"() <{value = dense<[[1], [2]]> : tensor<2x1xi64>}> : () -> tensor<2x1xi64>
  %b = "graph.constant"() <{value = dense<[[10, 20]]> : tensor<1x2xi64>}> : () -> tensor<1x2xi64>
  %0 = "graph.Add"(%a, %b) : (tensor<2x1xi64>, tensor<1x2xi64>) -> tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

// Not folded: a result type with a dynamic dim (the folded constant needs a static type).
// CHECK-LABEL: func.func @add_dynamic_result() -> tensor<?xi64>
// CHECK: %[[R:.*]] = "graph.Add"
// CHECK-NEXT: return %[[R]] : tensor<?xi64>
func.func @add_dynamic_result() -> tensor<?xi64> {
  %a = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.Add"(%a, %a) : (tensor<2xi64>, tensor<2xi64>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

// Not folded: an operand that is not a constant.
// CHECK-LABEL: func.func @add_not_constant(%arg0: tensor<2xi64>) -> tensor<2xi64>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"
// CHECK-NEXT: %[[R:.*]] = "graph.Add"(%arg0, %[[C]])
// CHECK-NEXT: return %[[R]] : tensor<2xi64>
func.func @add_not_constant(%x: tensor<2xi64>) -> tensor<2xi64> {
  %a = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.Add"(%x, %a) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Not folded: more than 65536 elements.
// CHECK-LABEL: func.func @neg_too_large() -> tensor<65537xi64>
// CHECK: %[[R:.*]] = "graph.Neg"
// CHECK-NEXT: return %[[R]] : tensor<65537xi64>
func.func @neg_too_large() -> tensor<65537xi64> {
  %c = "graph.constant"() <{value = dense<1> : tensor<65537xi64>}> : () -> tensor<65537xi64>
  %0 = "graph.Neg"(%c) : (tensor<65537xi64>) -> tensor<65537xi64>
  return %0 : tensor<65537xi64>
}

// -----

// 65536 elements still fold.
// CHECK-LABEL: func.func @neg_largest() -> tensor<65536xi64>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<-1> : tensor<65536xi64>}> : () -> tensor<65536xi64>
// CHECK-NEXT: return %[[C]] : tensor<65536xi64>
func.func @neg_largest() -> tensor<65536xi64> {
  %c = "graph.constant"() <{value = dense<1> : tensor<65536xi64>}> : () -> tensor<65536xi64>
  %0 = "graph.Neg"(%c) : (tensor<65536xi64>) -> tensor<65536xi64>
  return %0 : tensor<65536xi64>
}

// -----

// Concat([1], [2, 3]) → [1, 2, 3]
// CHECK-LABEL: func.func @concat() -> tensor<3xi64>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[1, 2, 3]> : tensor<3xi64>}> : () -> tensor<3xi64>
// CHECK-NEXT: return %[[C]] : tensor<3xi64>
func.func @concat() -> tensor<3xi64> {
  %a = "graph.constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %b = "graph.constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.Concat"(%a, %b) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Not folded: Concat of rank 2 or more (only 1-D shape arithmetic folds).
// CHECK-LABEL: func.func @concat_2d() -> tensor<4x2xi64>
// CHECK: %[[R:.*]] = "graph.Concat"
// CHECK-NEXT: return %[[R]] : tensor<4x2xi64>
func.func @concat_2d() -> tensor<4x2xi64> {
  %m = "graph.constant"() <{value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>}> : () -> tensor<2x2xi64>
  %0 = "graph.Concat"(%m, %m) <{axis = 0 : i64}> : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<4x2xi64>
  return %0 : tensor<4x2xi64>
}

// -----

// Gather([5, 6, 7], [-1, 0]) → [7, 5] (negative indices count from the back)
// CHECK-LABEL: func.func @gather() -> tensor<2xi64>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[7, 5]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: return %[[C]] : tensor<2xi64>
func.func @gather() -> tensor<2xi64> {
  %d = "graph.constant"() <{value = dense<[5, 6, 7]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %i = "graph.constant"() <{value = dense<[-1, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.Gather"(%d, %i) <{axis = 0 : i64}> : (tensor<3xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Gather([5, 6, 7], 1) → 6, a scalar index gives a scalar
// CHECK-LABEL: func.func @gather_scalar() -> tensor<i64>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<6> : tensor<i64>}> : () -> tensor<i64>
// CHECK-NEXT: return %[[C]] : tensor<i64>
func.func @gather_scalar() -> tensor<i64> {
  %d = "graph.constant"() <{value = dense<[5, 6, 7]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %i = "graph.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %0 = "graph.Gather"(%d, %i) : (tensor<3xi64>, tensor<i32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// Not folded: an index out of range.
// CHECK-LABEL: func.func @gather_out_of_range() -> tensor<1xi64>
// CHECK: %[[R:.*]] = "graph.Gather"
// CHECK-NEXT: return %[[R]] : tensor<1xi64>
func.func @gather_out_of_range() -> tensor<1xi64> {
  %d = "graph.constant"() <{value = dense<[5, 6, 7]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %i = "graph.constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "graph.Gather"(%d, %i) : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %0 : tensor<1xi64>
}

// -----

// The ONNX shape-arithmetic idiom Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1]))
// folds to Reshape(x, [2, -1]).
// CHECK-LABEL: func.func @shape_arithmetic(%arg0: tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK-NEXT: %[[S:.*]] = "graph.constant"() <{value = dense<[2, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: %[[R:.*]] = "graph.Reshape"(%arg0, %[[S]]) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x12xf32>
func.func @shape_arithmetic(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %shape = "graph.Shape"(%x) : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %zero = "graph.constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %d0 = "graph.Gather"(%shape, %zero) <{axis = 0 : i64}> : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %axes = "graph.constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %u = "graph.Unsqueeze"(%d0, %axes) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %rest = "graph.constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %target = "graph.Concat"(%u, %rest) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %0 = "graph.Reshape"(%x, %target) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

// Unused pure ops go; ops without Pure (random generators, subgraph ops) stay.
// CHECK-LABEL: func.func @dead_ops(%arg0: tensor<2xf32>, %arg1: tensor<i1>) -> tensor<2xf32>
// CHECK-NEXT: %{{.*}} = "graph.RandomNormalLike"(%arg0)
// CHECK-NEXT: %{{.*}} = "graph.If"(%arg1)
// CHECK-NOT: graph.Relu
// CHECK-NOT: graph.none
// CHECK: return %arg0 : tensor<2xf32>
func.func @dead_ops(%x: tensor<2xf32>, %c: tensor<i1>) -> tensor<2xf32> {
  %none = "graph.none"() : () -> none
  %0 = "graph.Relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "graph.RandomNormalLike"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "graph.If"(%c) ({
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }, {
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  return %x : tensor<2xf32>
}

// -----

// Equal constants merge into one.
// CHECK-LABEL: func.func @merge_constants() -> (tensor<2xi64>, tensor<2xi64>)
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: return %[[C]], %[[C]] : tensor<2xi64>, tensor<2xi64>
func.func @merge_constants() -> (tensor<2xi64>, tensor<2xi64>) {
  %a = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %b = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  return %a, %b : tensor<2xi64>, tensor<2xi64>
}

// -----

// Folding reaches into subgraphs; the constants it makes are hoisted to the function's entry.
// CHECK-LABEL: func.func @fold_in_subgraph(%arg0: tensor<i1>, %arg1: tensor<2x3xf32>) -> tensor<2xi64>
// CHECK-DAG: %[[S:.*]] = "graph.constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-DAG: %[[N:.*]] = "graph.constant"() <{value = dense<[-2, -3]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK: %[[R:.*]] = "graph.If"(%arg0) ({
// CHECK-NEXT: "graph.yield"(%[[S]]) : (tensor<2xi64>) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: "graph.yield"(%[[N]]) : (tensor<2xi64>) -> ()
// CHECK-NEXT: }) : (tensor<i1>) -> tensor<2xi64>
// CHECK-NEXT: return %[[R]] : tensor<2xi64>
func.func @fold_in_subgraph(%c: tensor<i1>, %x: tensor<2x3xf32>) -> tensor<2xi64> {
  %0 = "graph.If"(%c) ({
    %s = "graph.Shape"(%x) : (tensor<2x3xf32>) -> tensor<2xi64>
    "graph.yield"(%s) : (tensor<2xi64>) -> ()
  }, {
    %s = "graph.Shape"(%x) : (tensor<2x3xf32>) -> tensor<2xi64>
    %n = "graph.Neg"(%s) : (tensor<2xi64>) -> tensor<2xi64>
    "graph.yield"(%n) : (tensor<2xi64>) -> ()
  }) : (tensor<i1>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Reshape(c: 6 elements, s) → c re-typed to 2x3, even with a computed shape: the element count
// is the same (the verifier rejects a declared result of another count).
// CHECK-LABEL: func.func @reshape_computed_shape(%arg0: tensor<2xi64>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
// CHECK-NEXT: return %[[C]] : tensor<2x3xf32>
func.func @reshape_computed_shape(%s: tensor<2xi64>) -> tensor<2x3xf32> {
  %c = "graph.constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %0 = "graph.Reshape"(%c, %s) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// ui64 values from 2^63 on fold as unsigned: (2^64 - 2) / 2 = 2^63 - 1, Abs keeps the value,
// Cast to f32 gives 1.8e19, and Cast of f32 1e19 to ui64 gives 1e19 (rounded to f32).
// CHECK-LABEL: func.func @ui64_folds()
// CHECK-DAG: "graph.constant"() <{value = dense<9223372036854775807> : tensor<1xui64>}>
// CHECK-DAG: "graph.constant"() <{value = dense<18446744073709551614> : tensor<1xui64>}>
// CHECK-DAG: "graph.constant"() <{value = dense<1.8446744e+19> : tensor<1xf32>}>
// CHECK-DAG: "graph.constant"() <{value = dense<9999999980506447872> : tensor<1xui64>}>
// CHECK-NOT: graph.Div
// CHECK-NOT: graph.Abs
// CHECK-NOT: graph.Cast
func.func @ui64_folds() -> (tensor<1xui64>, tensor<1xui64>, tensor<1xf32>, tensor<1xui64>) {
  %a = "graph.constant"() <{value = dense<18446744073709551614> : tensor<1xui64>}> : () -> tensor<1xui64>
  %two = "graph.constant"() <{value = dense<2> : tensor<1xui64>}> : () -> tensor<1xui64>
  %f = "graph.constant"() <{value = dense<1.0e19> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = "graph.Div"(%a, %two) : (tensor<1xui64>, tensor<1xui64>) -> tensor<1xui64>
  %1 = "graph.Abs"(%a) : (tensor<1xui64>) -> tensor<1xui64>
  %2 = "graph.Cast"(%a) <{to = 1 : i64}> : (tensor<1xui64>) -> tensor<1xf32>
  %3 = "graph.Cast"(%f) <{to = 13 : i64}> : (tensor<1xf32>) -> tensor<1xui64>
  return %0, %1, %2, %3 : tensor<1xui64>, tensor<1xui64>, tensor<1xf32>, tensor<1xui64>
}
