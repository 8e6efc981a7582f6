// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-simplify)' --split-input-file | filecheck %s

// x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1, x ^ 1 → x (the constants broadcast into x).
// CHECK-LABEL: func.func @neutral(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: "graph.Add"
// CHECK-NOT: "graph.Sub"
// CHECK-NOT: "graph.Mul"
// CHECK-NOT: "graph.Div"
// CHECK-NOT: "graph.Pow"
// CHECK: return %arg0
func.func @neutral(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %z = "graph.constant"() <{value = dense<0.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %o = "graph.constant"() <{value = dense<1.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %a = "graph.Add"(%x, %z) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %b = "graph.Add"(%z, %a) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = "graph.Sub"(%b, %z) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %d = "graph.Mul"(%c, %o) : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
  %e = "graph.Mul"(%o, %d) : (tensor<1x1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %f = "graph.Div"(%e, %o) : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
  %g = "graph.Pow"(%f, %o) : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Negative: adding zeros of a larger shape broadcasts x, so the Add stays.
// CHECK-LABEL: func.func @neutral_broadcasts
// CHECK: "graph.Add"
func.func @neutral_broadcasts(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %z = "graph.constant"() <{value = dense<0.0> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %a = "graph.Add"(%x, %z) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a : tensor<2x3xf32>
}

// -----

// Negative: x has a dynamic dimension the constant's 3 could broadcast; x - 1 and 0 - x are
// not neutral.
// CHECK-LABEL: func.func @neutral_negative
// CHECK: "graph.Add"
// CHECK: "graph.Sub"
// CHECK: "graph.Sub"
func.func @neutral_negative(%x: tensor<?xf32>, %y: tensor<3xf32>) -> (tensor<?xf32>, tensor<3xf32>, tensor<3xf32>) {
  %z = "graph.constant"() <{value = dense<0.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %o = "graph.constant"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %a = "graph.Add"(%x, %z) : (tensor<?xf32>, tensor<3xf32>) -> tensor<?xf32>
  %b = "graph.Sub"(%y, %o) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %c = "graph.Sub"(%z, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %a, %b, %c : tensor<?xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Identity and inference Dropout (mask unused) vanish.
// CHECK-LABEL: func.func @identity_dropout(%arg0: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %arg0
func.func @identity_dropout(%x: tensor<4xf32>) -> tensor<4xf32> {
  %i = "graph.Identity"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %n = "graph.none"() : () -> none
  %d:2 = "graph.Dropout"(%i, %n, %n) : (tensor<4xf32>, none, none) -> (tensor<4xf32>, tensor<4xi1>)
  return %d#0 : tensor<4xf32>
}

// -----

// Negative: a Dropout whose mask is used stays.
// CHECK-LABEL: func.func @dropout_mask
// CHECK: "graph.Dropout"
func.func @dropout_mask(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>) {
  %n = "graph.none"() : () -> none
  %d:2 = "graph.Dropout"(%x, %n, %n) : (tensor<4xf32>, none, none) -> (tensor<4xf32>, tensor<4xi1>)
  return %d#0, %d#1 : tensor<4xf32>, tensor<4xi1>
}

// -----

// Reshape(Reshape(x)) → Reshape(x); Flatten to the same shape → x.
// CHECK-LABEL: func.func @reshapes(%arg0: tensor<2x3x4xf32>, %arg1: tensor<6x4xf32>) -> (tensor<4x6xf32>, tensor<6x4xf32>)
// CHECK: %[[S:.*]] = "graph.constant"() <{value = dense<[4, 6]> : tensor<2xi64>}>
// CHECK: %[[R:.*]] = "graph.Reshape"(%arg0, %[[S]])
// CHECK-NEXT: return %[[R]], %arg1
func.func @reshapes(%x: tensor<2x3x4xf32>, %y: tensor<6x4xf32>) -> (tensor<4x6xf32>, tensor<6x4xf32>) {
  %s1 = "graph.constant"() <{value = dense<[6, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %s2 = "graph.constant"() <{value = dense<[4, 6]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %a = "graph.Reshape"(%x, %s1) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %b = "graph.Reshape"(%a, %s2) : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  %f = "graph.Flatten"(%y) <{axis = 1 : i64}> : (tensor<6x4xf32>) -> tensor<6x4xf32>
  return %b, %f : tensor<4x6xf32>, tensor<6x4xf32>
}

// -----

// Negative: the outer Reshape copies a dimension (0) of the inner one's result.
// CHECK-LABEL: func.func @reshape_zero
// CHECK: "graph.Reshape"
// CHECK: "graph.Reshape"
func.func @reshape_zero(%x: tensor<2x12xf32>) -> tensor<6x2x2xf32> {
  %s1 = "graph.constant"() <{value = dense<[6, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %s2 = "graph.constant"() <{value = dense<[0, 2, 2]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %a = "graph.Reshape"(%x, %s1) : (tensor<2x12xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %b = "graph.Reshape"(%a, %s2) : (tensor<6x4xf32>, tensor<3xi64>) -> tensor<6x2x2xf32>
  return %b : tensor<6x2x2xf32>
}

// -----

// Unsqueeze(Squeeze(x)) → x when the chain gives x's static type back.
// CHECK-LABEL: func.func @squeeze_chain(%arg0: tensor<1x5xf32>) -> tensor<1x5xf32>
// CHECK-NEXT: return %arg0
func.func @squeeze_chain(%x: tensor<1x5xf32>) -> tensor<1x5xf32> {
  %ax = "graph.constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %s = "graph.Squeeze"(%x, %ax) : (tensor<1x5xf32>, tensor<1xi64>) -> tensor<5xf32>
  %u = "graph.Unsqueeze"(%s, %ax) : (tensor<5xf32>, tensor<1xi64>) -> tensor<1x5xf32>
  return %u : tensor<1x5xf32>
}

// -----

// Negative: Unsqueeze on another axis does not cancel.
// CHECK-LABEL: func.func @squeeze_chain_other_axis
// CHECK: "graph.Squeeze"
// CHECK: "graph.Unsqueeze"
func.func @squeeze_chain_other_axis(%x: tensor<1x5xf32>) -> tensor<5x1xf32> {
  %a0 = "graph.constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %a1 = "graph.constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %s = "graph.Squeeze"(%x, %a0) : (tensor<1x5xf32>, tensor<1xi64>) -> tensor<5xf32>
  %u = "graph.Unsqueeze"(%s, %a1) : (tensor<5xf32>, tensor<1xi64>) -> tensor<5x1xf32>
  return %u : tensor<5x1xf32>
}

// -----

// Transpose(Transpose(x)) composes; an inverse pair cancels.
// CHECK-LABEL: func.func @transposes(%arg0: tensor<2x3x4xf32>) -> (tensor<4x3x2xf32>, tensor<2x3x4xf32>)
// CHECK: %[[T:.*]] = "graph.Transpose"(%arg0) <{perm = array<i64: 2, 1, 0>}>
// CHECK-NEXT: return %[[T]], %arg0
func.func @transposes(%x: tensor<2x3x4xf32>) -> (tensor<4x3x2xf32>, tensor<2x3x4xf32>) {
  %a = "graph.Transpose"(%x) <{perm = array<i64: 1, 0, 2>}> : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %b = "graph.Transpose"(%a) <{perm = array<i64: 2, 0, 1>}> : (tensor<3x2x4xf32>) -> tensor<4x3x2xf32>
  %c = "graph.Transpose"(%x) <{perm = array<i64: 0, 2, 1>}> : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %d = "graph.Transpose"(%c) <{perm = array<i64: 0, 2, 1>}> : (tensor<2x4x3xf32>) -> tensor<2x3x4xf32>
  return %b, %d : tensor<4x3x2xf32>, tensor<2x3x4xf32>
}

// -----

// An identity Transpose vanishes.
// CHECK-LABEL: func.func @transpose_identity(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %arg0
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = "graph.Transpose"(%x) <{perm = array<i64: 0, 1>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a : tensor<2x3xf32>
}

// -----

// Cast chains through a lossless middle type: f32→f64→f32 and i8→i32→i8 vanish, i8→i32→f32
// becomes i8→f32.
// CHECK-LABEL: func.func @casts(%arg0: tensor<3xf32>, %arg1: tensor<3xi8>) -> (tensor<3xf32>, tensor<3xi8>, tensor<3xf32>)
// CHECK-NEXT: %[[C:.*]] = "graph.Cast"(%arg1) <{to = 1 : i64}> : (tensor<3xi8>) -> tensor<3xf32>
// CHECK-NEXT: return %arg0, %arg1, %[[C]]
func.func @casts(%x: tensor<3xf32>, %y: tensor<3xi8>) -> (tensor<3xf32>, tensor<3xi8>, tensor<3xf32>) {
  %a = "graph.Cast"(%x) <{to = 11 : i64}> : (tensor<3xf32>) -> tensor<3xf64>
  %b = "graph.Cast"(%a) <{to = 1 : i64}> : (tensor<3xf64>) -> tensor<3xf32>
  %c = "graph.Cast"(%y) <{to = 6 : i64}> : (tensor<3xi8>) -> tensor<3xi32>
  %d = "graph.Cast"(%c) <{to = 3 : i64}> : (tensor<3xi32>) -> tensor<3xi8>
  %e = "graph.Cast"(%y) <{to = 6 : i64}> : (tensor<3xi8>) -> tensor<3xi32>
  %f = "graph.Cast"(%e) <{to = 1 : i64}> : (tensor<3xi32>) -> tensor<3xf32>
  return %b, %d, %f : tensor<3xf32>, tensor<3xi8>, tensor<3xf32>
}

// -----

// Negative: f32→f16→f32 rounds, and i32→i8→i32 wraps; both chains stay.
// CHECK-LABEL: func.func @lossy_casts
// CHECK-COUNT-4: "graph.Cast"
func.func @lossy_casts(%x: tensor<3xf32>, %y: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %a = "graph.Cast"(%x) <{to = 10 : i64}> : (tensor<3xf32>) -> tensor<3xf16>
  %b = "graph.Cast"(%a) <{to = 1 : i64}> : (tensor<3xf16>) -> tensor<3xf32>
  %c = "graph.Cast"(%y) <{to = 3 : i64}> : (tensor<3xi32>) -> tensor<3xi8>
  %d = "graph.Cast"(%c) <{to = 6 : i64}> : (tensor<3xi8>) -> tensor<3xi32>
  return %b, %d : tensor<3xf32>, tensor<3xi32>
}

// -----

// Expand to the same shape, single-input Concat, Slice of everything and zero Pad vanish.
// CHECK-LABEL: func.func @noops(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %arg0
func.func @noops(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = "graph.constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %e = "graph.Expand"(%x, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %c = "graph.Concat"(%e) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %st = "graph.constant"() <{value = dense<0> : tensor<2xi64>}> : () -> tensor<2xi64>
  %en = "graph.constant"() <{value = dense<[100, 100]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %n = "graph.none"() : () -> none
  %sl = "graph.Slice"(%c, %st, %en, %n, %n) : (tensor<2x3xf32>, tensor<2xi64>, tensor<2xi64>, none, none) -> tensor<2x3xf32>
  %p0 = "graph.constant"() <{value = dense<0> : tensor<4xi64>}> : () -> tensor<4xi64>
  %p = "graph.Pad"(%sl, %p0, %n, %n) : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<2x3xf32>
  return %p : tensor<2x3xf32>
}

// -----

// Negative: a Slice with step -1 reverses; it stays.
// CHECK-LABEL: func.func @slice_reverse
// CHECK: "graph.Slice"
func.func @slice_reverse(%x: tensor<3xf32>) -> tensor<3xf32> {
  %st = "graph.constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %en = "graph.constant"() <{value = dense<-100> : tensor<1xi64>}> : () -> tensor<1xi64>
  %ax = "graph.constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %sp = "graph.constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %sl = "graph.Slice"(%x, %st, %en, %ax, %sp) : (tensor<3xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xf32>
  return %sl : tensor<3xf32>
}

