// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-layout{layout=nhwc})' --split-input-file --mlir-pass-statistics 2>&1 | filecheck %s
// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-layout{layout=nhwc},graph-layout{layout=nchw})' --split-input-file 2>&1 | filecheck %s --check-prefix=BACK
// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-layout{layout=nhwc pools=false})' --split-input-file 2>&1 | filecheck %s --check-prefix=NOPOOL

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

// With pools=false a MaxPool has no channels-last form: the region ends before it.
// NOPOOL-LABEL: func.func @pool_border
// NOPOOL: %[[C:.*]] = "graph.fused_conv"{{.*}}layout = "nhwc"
// NOPOOL-NEXT: %[[T:.*]] = "graph.Transpose"(%[[C]]) <{perm = array<i64: 0, 3, 1, 2>}> : (tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32>
// NOPOOL-NEXT: "graph.MaxPool"(%[[T]])
// By default it becomes a channels-last graph.pool, and the region ends after it.
// CHECK-LABEL: func.func @pool_border
// CHECK: %[[C:.*]] = "graph.fused_conv"{{.*}}layout = "nhwc"
// CHECK-NEXT: %[[P:.*]] = "graph.pool"(%[[C]]) <{kernel_shape = array<i64: 2, 2>, kind = "max", layout = "nhwc", strides = array<i64: 2, 2>}> : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT: %[[T:.*]] = "graph.Transpose"(%[[P]]) <{perm = array<i64: 0, 3, 1, 2>}> : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT: return %[[T]]
// BACK-LABEL: func.func @pool_border
// BACK-NOT: "graph.pool"
// BACK: "graph.MaxPool"({{.*}}) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, none)
// BACK-NOT: "graph.pool"
// BACK: return
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

// -----

// A ResNet-like stem, Conv → BatchNorm → Relu → MaxPool → Conv → AveragePool: the BatchNorm
// becomes a Mul and an Add of per-channel constants (permuted to [1, 1, 1, C] as the
// Transposes sink through them), both pools are channels-last, and only the way in and the
// way out are Transposes.
// CHECK-LABEL: func.func @stem
// CHECK: %[[X:.*]] = "graph.Transpose"(%arg0) <{perm = array<i64: 0, 2, 3, 1>}> : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
// CHECK-NEXT: %[[C1:.*]] = "graph.fused_conv"(%[[X]], {{.*}}layout = "nhwc"{{.*}} -> tensor<1x8x8x4xf32>
// CHECK: %[[M:.*]] = "graph.Mul"(%[[C1]], %{{.*}}) : (tensor<1x8x8x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK: %[[A:.*]] = "graph.Add"(%[[M]], %{{.*}}) : (tensor<1x8x8x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT: %[[R:.*]] = "graph.Relu"(%[[A]]) : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT: %[[P:.*]] = "graph.pool"(%[[R]]) <{kernel_shape = array<i64: 3, 3>, kind = "max", layout = "nhwc", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK: %[[C2:.*]] = "graph.fused_conv"(%[[P]], {{.*}}layout = "nhwc"{{.*}} -> tensor<1x4x4x4xf32>
// CHECK-NEXT: %[[Q:.*]] = "graph.pool"(%[[C2]]) <{count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>, kind = "average", layout = "nhwc", strides = array<i64: 2, 2>}> : (tensor<1x4x4x4xf32>) -> tensor<1x2x2x4xf32>
// CHECK-NEXT: %[[O:.*]] = "graph.Transpose"(%[[Q]]) <{perm = array<i64: 0, 3, 1, 2>}> : (tensor<1x2x2x4xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT: return %[[O]]
// NOPOOL-LABEL: func.func @stem
// NOPOOL: "graph.BatchNormalization"
// NOPOOL: "graph.MaxPool"
// NOPOOL: "graph.AveragePool"
// BACK-LABEL: func.func @stem
// BACK-NOT: "graph.pool"
// BACK: "graph.MaxPool"
// BACK: "graph.AveragePool"
// BACK-NOT: "graph.pool"
// BACK: return
func.func @stem(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x2x2xf32> {
  %n = "graph.none"() : () -> none
  %w1 = "graph.constant"() <{value = dense<0.5> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
  %c1 = "graph.Conv"(%x, %w1, %n) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  %sc = "graph.constant"() <{value = dense<[1.0, 2.0, 0.5, 1.5]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %bi = "graph.constant"() <{value = dense<[0.0, 0.1, -0.1, 0.2]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %me = "graph.constant"() <{value = dense<[0.5, 0.0, 1.0, -0.5]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %va = "graph.constant"() <{value = dense<[1.0, 4.0, 0.25, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %bn:3 = "graph.BatchNormalization"(%c1, %sc, %bi, %me, %va) : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x8x8xf32>, none, none)
  %r = "graph.Relu"(%bn#0) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p:2 = "graph.MaxPool"(%r) <{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, none)
  %w2 = "graph.constant"() <{value = dense<0.25> : tensor<4x4x1x1xf32>}> : () -> tensor<4x4x1x1xf32>
  %c2 = "graph.Conv"(%p#0, %w2, %n) : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>, none) -> tensor<1x4x4x4xf32>
  %q = "graph.AveragePool"(%c2) <{count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
  return %q : tensor<1x4x2x2xf32>
}

// -----

// Negative: a MaxPool whose indices are used, and a BatchNorm whose statistics are not
// constants, stay as they are (with Transposes around them).
// CHECK-LABEL: func.func @kept
// CHECK: "graph.MaxPool"
// CHECK: "graph.BatchNormalization"
// CHECK-NOT: "graph.pool"
// CHECK: return
func.func @kept(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %m: tensor<2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>, tensor<1x2x4x4xf32>) {
  %n = "graph.none"() : () -> none
  %c = "graph.Conv"(%x, %w, %n) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %p:2 = "graph.MaxPool"(%c) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  %one = "graph.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %bn:3 = "graph.BatchNormalization"(%c, %one, %one, %m, %one) : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x4x4xf32>, none, none)
  return %p#0, %p#1, %bn#0 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>, tensor<1x2x4x4xf32>
}

// CHECK: GraphLayout
// CHECK-DAG: (S) 7 num-converted
// CHECK-DAG: (S) 1 num-global-pools
// CHECK-DAG: (S) 3 num-pools
// CHECK-DAG: (S) 1 num-batchnorms
// CHECK-DAG: (S) 10 num-transposes
