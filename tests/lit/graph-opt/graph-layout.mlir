// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-layout{layout=nhwc})' --split-input-file --mlir-pass-statistics 2>&1 | filecheck %s
// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-layout{layout=nhwc},graph-layout{layout=nchw})' --split-input-file 2>&1 | filecheck %s --check-prefix=BACK

// Conv → Relu → fused_conv → residual Add → GlobalAveragePool: every conv becomes channels-last
// (constant weights permuted at compile time, the activation kept), the global pool a
// ReduceMean over H and W, and of the Transposes only the way in is left; the way out is a
// Reshape of [1, 1, 1, 4].
// CHECK-LABEL: func.func @chain
// CHECK-DAG: %[[W2:.*]] = "graph.constant"() <{value = dense<2.500000e-01> : tensor<4x1x1x4xf32>}>
// CHECK-DAG: %[[W1:.*]] = "graph.constant"() <{value = dense<5.000000e-01> : tensor<4x3x3x3xf32>}>
// CHECK: %[[X:.*]] = "graph.Transpose"(%arg0) <{perm = array<i64: 0, 2, 3, 1>}> : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
// CHECK-NEXT: %[[C1:.*]] = "graph.fused_conv"(%[[X]], %[[W1]], %{{.*}}) <{activation = #graph.activation<none>, layout = "nhwc", pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT: %[[R1:.*]] = "graph.Relu"(%[[C1]]) : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK: %[[C2:.*]] = "graph.fused_conv"(%[[R1]], %[[W2]], %{{.*}}) <{activation = #graph.activation<relu>, layout = "nhwc"}> : (tensor<1x8x8x4xf32>, tensor<4x1x1x4xf32>, none) -> tensor<1x8x8x4xf32>
// CHECK-NEXT: %[[S:.*]] = "graph.Add"(%[[C2]], %[[R1]]) : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT: %[[M:.*]] = "graph.ReduceMean"(%[[S]], %{{.*}}) <{keepdims = 1 : i64}> : (tensor<1x8x8x4xf32>, tensor<2xi64>) -> tensor<1x1x1x4xf32>
// CHECK-NEXT: %[[O:.*]] = "graph.Reshape"(%[[M]], %{{.*}}) : (tensor<1x1x1x4xf32>, tensor<4xi64>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT: return %[[O]]
// BACK-LABEL: func.func @chain
// BACK-NOT: layout = "nhwc"
// BACK: "graph.fused_conv"{{.*}}(tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// BACK-NOT: layout = "nhwc"
// BACK: return
func.func @chain(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x1x1xf32> {
  %w1 = "graph.constant"() <{value = dense<0.5> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
  %b1 = "graph.constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %c1 = "graph.Conv"(%x, %w1, %b1) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r1 = "graph.Relu"(%c1) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %w2 = "graph.constant"() <{value = dense<0.25> : tensor<4x4x1x1xf32>}> : () -> tensor<4x4x1x1xf32>
  %n = "graph.none"() : () -> none
  %c2 = "graph.fused_conv"(%r1, %w2, %n) <{activation = #graph.activation<relu>}> : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>, none) -> tensor<1x4x8x8xf32>
  %s = "graph.Add"(%c2, %r1) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %g = "graph.GlobalAveragePool"(%s) : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  return %g : tensor<1x4x1x1xf32>
}

// -----

// A MaxPool has no channels-last form: the region ends before it.
// CHECK-LABEL: func.func @pool_border
// CHECK: %[[C:.*]] = "graph.fused_conv"{{.*}}layout = "nhwc"
// CHECK-NEXT: %[[T:.*]] = "graph.Transpose"(%[[C]]) <{perm = array<i64: 0, 3, 1, 2>}> : (tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT: "graph.MaxPool"(%[[T]])
func.func @pool_border(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32> {
  %n = "graph.none"() : () -> none
  %c = "graph.Conv"(%x, %w, %n) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %p:2 = "graph.MaxPool"(%c) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, none)
  return %p#0 : tensor<1x2x2x2xf32>
}

// -----

// A dynamic batch converts; a weight that is not a constant gets a Transpose (folded later
// when it is computed from constants).
// CHECK-LABEL: func.func @dynamic
// CHECK: "graph.Transpose"(%arg1) <{perm = array<i64: 0, 2, 3, 1>}> : (tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
// CHECK: "graph.fused_conv"{{.*}}layout = "nhwc"{{.*}}-> tensor<?x6x6x4xf32>
// CHECK: "graph.Transpose"{{.*}}(tensor<?x6x6x4xf32>) -> tensor<?x4x6x6xf32>
func.func @dynamic(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32> {
  %n = "graph.none"() : () -> none
  %c = "graph.Conv"(%x, %w, %n) : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<?x4x6x6xf32>
  return %c : tensor<?x4x6x6xf32>
}

// -----

// Negative: an unranked input stays a Conv.
// CHECK-LABEL: func.func @unranked
// CHECK-NEXT: "graph.none"
// CHECK-NEXT: "graph.Conv"
func.func @unranked(%x: tensor<*xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<*xf32> {
  %n = "graph.none"() : () -> none
  %c = "graph.Conv"(%x, %w, %n) : (tensor<*xf32>, tensor<4x3x3x3xf32>, none) -> tensor<*xf32>
  return %c : tensor<*xf32>
}

// CHECK: GraphLayout
// CHECK-DAG: (S) 4 num-converted
// CHECK-DAG: (S) 1 num-global-pools
// CHECK-DAG: (S) 6 num-transposes
