// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-transpose-opt)' --split-input-file --mlir-pass-statistics 2>&1 | filecheck %s

// Concat of two inputs transposed alike: the axis is remapped (-1 of NHWC is 1 of NCHW) and
// the Transpose after it cancels with the one that follows.
// CHECK-LABEL: func.func @concat
// CHECK-NEXT: %[[C:.*]] = "graph.Concat"(%arg0, %arg1) <{axis = 1 : i64}> : (tensor<1x2x3x4xf32>, tensor<1x5x3x4xf32>) -> tensor<1x7x3x4xf32>
// CHECK-NEXT: return %[[C]]
func.func @concat(%x: tensor<1x2x3x4xf32>, %y: tensor<1x5x3x4xf32>) -> tensor<1x7x3x4xf32> {
  %a = "graph.Transpose"(%x) <{perm = array<i64: 0, 2, 3, 1>}> : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %b = "graph.Transpose"(%y) <{perm = array<i64: 0, 2, 3, 1>}> : (tensor<1x5x3x4xf32>) -> tensor<1x3x4x5xf32>
  %c = "graph.Concat"(%a, %b) <{axis = -1 : i64}> : (tensor<1x3x4x2xf32>, tensor<1x3x4x5xf32>) -> tensor<1x3x4x7xf32>
  %o = "graph.Transpose"(%c) <{perm = array<i64: 0, 3, 1, 2>}> : (tensor<1x3x4x7xf32>) -> tensor<1x7x3x4xf32>
  return %o : tensor<1x7x3x4xf32>
}

// -----

// ReduceMean over axis 2 of Transpose(x, [2, 0, 1]) is over axis 1 of x; keepdims keeps the
// permutation, which cancels.
// CHECK-LABEL: func.func @reduce_keepdims
// CHECK-NEXT: %[[A:.*]] = "graph.constant"() <{value = dense<1> : tensor<1xi64>}>
// CHECK-NEXT: %[[R:.*]] = "graph.ReduceMean"(%arg0, %[[A]]) <{keepdims = 1 : i64}> : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %t = "graph.Transpose"(%x) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %a = "graph.constant"() <{value = dense<[2]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %r = "graph.ReduceMean"(%t, %a) <{keepdims = 1 : i64}> : (tensor<4x2x3xf32>, tensor<1xi64>) -> tensor<4x2x1xf32>
  %o = "graph.Transpose"(%r) <{perm = array<i64: 1, 2, 0>}> : (tensor<4x2x1xf32>) -> tensor<2x1x4xf32>
  return %o : tensor<2x1x4xf32>
}

// -----

// Without keepdims the permutation loses the reduced axis: [2, 0, 1] without axis 2 is [1, 0].
// CHECK-LABEL: func.func @reduce_drop
// CHECK: %[[R:.*]] = "graph.ReduceSum"(%arg0, %{{.*}}) <{keepdims = 0 : i64}> : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[T:.*]] = "graph.Transpose"(%[[R]]) <{perm = array<i64: 1, 0>}> : (tensor<2x4xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @reduce_drop(%x: tensor<2x3x4xf32>) -> tensor<4x2xf32> {
  %t = "graph.Transpose"(%x) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %a = "graph.constant"() <{value = dense<[-1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %r = "graph.ReduceSum"(%t, %a) <{keepdims = 0 : i64}> : (tensor<4x2x3xf32>, tensor<1xi64>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

// Softmax over the last axis of Transpose(x, [2, 0, 1]) is over axis 1 of x.
// CHECK-LABEL: func.func @softmax
// CHECK-NEXT: %[[S:.*]] = "graph.Softmax"(%arg0) <{axis = 1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[T:.*]] = "graph.Transpose"(%[[S]]) <{perm = array<i64: 2, 0, 1>}>
// CHECK-NEXT: return %[[T]]
func.func @softmax(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %t = "graph.Transpose"(%x) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %s = "graph.Softmax"(%t) <{axis = -1 : i64}> : (tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  return %s : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze
// CHECK: %[[S:.*]] = "graph.Squeeze"(%arg0, %{{.*}}) : (tensor<2x1x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[T:.*]] = "graph.Transpose"(%[[S]]) <{perm = array<i64: 1, 0>}> : (tensor<2x4xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @squeeze(%x: tensor<2x1x4xf32>) -> tensor<4x2xf32> {
  %t = "graph.Transpose"(%x) <{perm = array<i64: 2, 1, 0>}> : (tensor<2x1x4xf32>) -> tensor<4x1x2xf32>
  %a = "graph.constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %s = "graph.Squeeze"(%t, %a) : (tensor<4x1x2xf32>, tensor<1xi64>) -> tensor<4x2xf32>
  return %s : tensor<4x2xf32>
}

// -----

// Unsqueeze at 1 keeps its axes; the permutation fixes the new axis and moves the others.
// CHECK-LABEL: func.func @unsqueeze
// CHECK: %[[U:.*]] = "graph.Unsqueeze"(%arg0, %{{.*}}) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1x3xf32>
// CHECK-NEXT: %[[T:.*]] = "graph.Transpose"(%[[U]]) <{perm = array<i64: 2, 1, 0>}> : (tensor<2x1x3xf32>) -> tensor<3x1x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @unsqueeze(%x: tensor<2x3xf32>) -> tensor<3x1x2xf32> {
  %t = "graph.Transpose"(%x) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %a = "graph.constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %u = "graph.Unsqueeze"(%t, %a) : (tensor<3x2xf32>, tensor<1xi64>) -> tensor<3x1x2xf32>
  return %u : tensor<3x1x2xf32>
}

// -----

// A Transpose of size-1 dimensions only, left at the border, is a Reshape.
// CHECK-LABEL: func.func @unit_dims
// CHECK-NEXT: %[[S:.*]] = "graph.constant"() <{value = dense<[2, 8, 1, 1]> : tensor<4xi64>}>
// CHECK-NEXT: %[[R:.*]] = "graph.Reshape"(%arg0, %[[S]]) : (tensor<2x1x1x8xf32>, tensor<4xi64>) -> tensor<2x8x1x1xf32>
// CHECK-NEXT: "graph.Flatten"(%[[R]])
func.func @unit_dims(%x: tensor<2x1x1x8xf32>) -> tensor<2x8xf32> {
  %t = "graph.Transpose"(%x) <{perm = array<i64: 0, 3, 1, 2>}> : (tensor<2x1x1x8xf32>) -> tensor<2x8x1x1xf32>
  %f = "graph.Flatten"(%t) : (tensor<2x8x1x1xf32>) -> tensor<2x8xf32>
  return %f : tensor<2x8xf32>
}

// -----

// Negative: a Concat input that is not transposed (and has no transposed user) blocks it.
// CHECK-LABEL: func.func @blocked
// CHECK-NEXT: "graph.Transpose"
// CHECK-NEXT: "graph.Concat"
func.func @blocked(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>) -> tensor<6x2xf32> {
  %t = "graph.Transpose"(%x) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %c = "graph.Concat"(%t, %y) <{axis = 0 : i64}> : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<6x2xf32>
  return %c : tensor<6x2xf32>
}

// CHECK: GraphTransposeOpt
// CHECK-DAG: (S) 6 num-sunk-axis
// CHECK-DAG: (S) 1 num-to-reshape
// CHECK-DAG: (S) 2 num-composed
