// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-fold-batchnorm)' --split-input-file | filecheck %s

// Conv + BN: weights scaled per output channel (s = [2, 0.5]), bias = b * s + B - mean * s.
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[W:.*]] = "graph.constant"() <{value = dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}5.000000e-01]]]]> : tensor<2x1x1x1xf32>}>
// CHECK-DAG: %[[B:.*]] = "graph.constant"() <{value = dense<[3.000000e+00, 1.000000e+00]> : tensor<2xf32>}>
// CHECK: %[[C:.*]] = "graph.Conv"(%arg0, %[[W]], %[[B]])
// CHECK-NOT: BatchNormalization
// CHECK: return %[[C]]
func.func @conv(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "graph.constant"() <{value = dense<1.0> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %b = "graph.constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %c = "graph.Conv"(%x, %w, %b) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %g = "graph.constant"() <{value = dense<[2.0, 1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %be = "graph.constant"() <{value = dense<[1.0, 1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %m = "graph.constant"() <{value = dense<[0.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %v = "graph.constant"() <{value = dense<[1.0, 4.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y:3 = "graph.BatchNormalization"(%c, %g, %be, %m, %v) <{epsilon = 0.0 : f32}> : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x4x4xf32>, none, none)
  return %y#0 : tensor<1x2x4x4xf32>
}

// -----

// Gemm with transB: rows of B scaled, a new C, beta set to 1.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[G:.*]] = "graph.Gemm"(%arg0, %{{.*}}, %{{.*}}) <{beta = 1.000000e+00 : f32, transB = 1 : i64}>
// CHECK-NOT: BatchNormalization
// CHECK: return %[[G]]
func.func @gemm(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = "graph.constant"() <{value = dense<1.0> : tensor<2x4xf32>}> : () -> tensor<2x4xf32>
  %b = "graph.constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %c = "graph.Gemm"(%x, %w, %b) <{beta = 0.5 : f32, transB = 1 : i64}> : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %g = "graph.constant"() <{value = dense<[2.0, 1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %be = "graph.constant"() <{value = dense<[1.0, 1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %m = "graph.constant"() <{value = dense<[0.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %v = "graph.constant"() <{value = dense<[1.0, 4.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y:3 = "graph.BatchNormalization"(%c, %g, %be, %m, %v) : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<3x2xf32>, none, none)
  return %y#0 : tensor<3x2xf32>
}

// -----

// MatMul with a constant weight: columns scaled, then an Add of the shift.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[M:.*]] = "graph.MatMul"(%arg0, %{{.*}})
// CHECK-NEXT: %[[A:.*]] = "graph.Add"(%[[M]], %{{.*}})
// CHECK-NEXT: return %[[A]]
func.func @matmul(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = "graph.constant"() <{value = dense<1.0> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %c = "graph.MatMul"(%x, %w) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %g = "graph.constant"() <{value = dense<[2.0, 1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %be = "graph.constant"() <{value = dense<[1.0, 1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %m = "graph.constant"() <{value = dense<[0.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %v = "graph.constant"() <{value = dense<[1.0, 4.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y:3 = "graph.BatchNormalization"(%c, %g, %be, %m, %v) : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<3x2xf32>, none, none)
  return %y#0 : tensor<3x2xf32>
}

// -----

// Negative: the scale is not a constant.
// CHECK-LABEL: func.func @scale_not_constant
// CHECK: "graph.BatchNormalization"
func.func @scale_not_constant(%x: tensor<1x1x4x4xf32>, %g: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %w = "graph.constant"() <{value = dense<1.0> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %n = "graph.none"() : () -> none
  %c = "graph.Conv"(%x, %w, %n) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %be = "graph.constant"() <{value = dense<[1.0, 1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y:3 = "graph.BatchNormalization"(%c, %g, %be, %be, %be) : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x4x4xf32>, none, none)
  return %y#0 : tensor<1x2x4x4xf32>
}

// -----

// Negative: the Conv's result has another user.
// CHECK-LABEL: func.func @conv_other_user
// CHECK: "graph.BatchNormalization"
func.func @conv_other_user(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = "graph.constant"() <{value = dense<1.0> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %n = "graph.none"() : () -> none
  %c = "graph.Conv"(%x, %w, %n) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %be = "graph.constant"() <{value = dense<[1.0, 1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y:3 = "graph.BatchNormalization"(%c, %be, %be, %be, %be) : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x4x4xf32>, none, none)
  return %y#0, %c : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
