// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-transpose-opt)' --split-input-file --mlir-pass-statistics 2>&1 | filecheck %s

// A Transpose sinks through Relu and an Add with a constant (permuted), then meets its inverse
// and both vanish.
// CHECK-LABEL: func.func @sink_cancel(%arg0: tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.constant"() <{value = dense<{{\[\[\[}}1.000000e+00], [2.000000e+00]]]> : tensor<1x2x1xf32>}>
// CHECK-NEXT: %[[R:.*]] = "graph.Relu"(%arg0) : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
// CHECK-NEXT: %[[A:.*]] = "graph.Add"(%[[R]], %[[C]]) : (tensor<1x2x3xf32>, tensor<1x2x1xf32>) -> tensor<1x2x3xf32>
// CHECK-NEXT: return %[[A]]
func.func @sink_cancel(%x: tensor<1x2x3xf32>) -> tensor<1x2x3xf32> {
  %t = "graph.Transpose"(%x) <{perm = array<i64: 0, 2, 1>}> : (tensor<1x2x3xf32>) -> tensor<1x3x2xf32>
  %r = "graph.Relu"(%t) : (tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  %c = "graph.constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %a = "graph.Add"(%r, %c) : (tensor<1x3x2xf32>, tensor<2xf32>) -> tensor<1x3x2xf32>
  %u = "graph.Transpose"(%a) <{perm = array<i64: 0, 2, 1>}> : (tensor<1x3x2xf32>) -> tensor<1x2x3xf32>
  return %u : tensor<1x2x3xf32>
}

// -----

// Two operands transposed alike: one Transpose after the Mul.
// CHECK-LABEL: func.func @binary(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: %[[M:.*]] = "graph.Mul"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[T:.*]] = "graph.Transpose"(%[[M]]) <{perm = array<i64: 1, 0>}>
// CHECK-NEXT: return %[[T]]
func.func @binary(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %a = "graph.Transpose"(%x) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %b = "graph.Transpose"(%y) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %m = "graph.Mul"(%a, %b) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %m : tensor<3x2xf32>
}

// -----

// Negative: a Transpose with two users does not move, and a non-constant operand that is not
// transposed blocks the sinking.
// CHECK-LABEL: func.func @blocked
// CHECK: "graph.Transpose"
// CHECK: "graph.Relu"
// CHECK: "graph.Transpose"
// CHECK: "graph.Add"
func.func @blocked(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %a = "graph.Transpose"(%x) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = "graph.Relu"(%a) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %b = "graph.Transpose"(%x) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %s = "graph.Add"(%b, %y) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %r, %a, %s : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// The statistics say what moved and what cancelled (summed over the three functions).
// CHECK: GraphTransposeOpt
// CHECK-DAG: (S) 1 num-composed
// CHECK-DAG: (S) 0 num-identity
// CHECK-DAG: (S) 2 num-sunk-binary
// CHECK-DAG: (S) 1 num-sunk-unary
