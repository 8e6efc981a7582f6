// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-layout{layout=nchw8c})' --split-input-file --mlir-pass-statistics 2>&1 | filecheck %s
// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-layout{layout=nchw16c})' --split-input-file 2>&1 | filecheck %s --check-prefix=B16

// Conv → Relu → fused_conv → residual Add → GlobalAveragePool: one blocked region. The 3 input
// channels are padded to a block of 8 by the reorder in; the weights are blocked at compile time
// ([M/8, C/8, kh, kw, 8, 8]), the bias padded to 8; the global pool is a ReduceMean over the
// blocked spatial axes; only the way in and the way out keep a reorder.
// CHECK-LABEL: func.func @chain
// CHECK-DAG: %[[AX:.*]] = "graph.constant"() <{value = dense<[2, 3]> : tensor<2xi64>}>
// CHECK-DAG: %[[W2:.*]] = "graph.constant"(){{.*}} : () -> tensor<1x1x1x1x8x8xf32>
// CHECK-DAG: %[[B1:.*]] = "graph.constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]> : tensor<8xf32>}>
// CHECK-DAG: %[[W1:.*]] = "graph.constant"(){{.*}} : () -> tensor<1x1x3x3x8x8xf32>
// CHECK: %[[X:.*]] = "graph.reorder"(%arg0) <{layout = "nchw8c"}> : (tensor<1x3x8x8xf32>) -> tensor<1x1x8x8x8xf32>
// CHECK-NEXT: %[[C1:.*]] = "graph.fused_conv"(%[[X]], %[[W1]], %[[B1]]) <{activation = #graph.activation<none>, group = 1 : i64, layout = "nchw8c", pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x8x8x8xf32>, tensor<1x1x3x3x8x8xf32>, tensor<8xf32>) -> tensor<1x1x8x8x8xf32>
// CHECK-NEXT: %[[R1:.*]] = "graph.Relu"(%[[C1]]) : (tensor<1x1x8x8x8xf32>) -> tensor<1x1x8x8x8xf32>
// CHECK: %[[C2:.*]] = "graph.fused_conv"(%[[R1]], %[[W2]], %{{.*}}) <{activation = #graph.activation<relu>, group = 1 : i64, layout = "nchw8c"}> : (tensor<1x1x8x8x8xf32>, tensor<1x1x1x1x8x8xf32>, none) -> tensor<1x1x8x8x8xf32>
// CHECK-NEXT: %[[S:.*]] = "graph.Add"(%[[C2]], %[[R1]]) : (tensor<1x1x8x8x8xf32>, tensor<1x1x8x8x8xf32>) -> tensor<1x1x8x8x8xf32>
// CHECK-NEXT: %[[M:.*]] = "graph.ReduceMean"(%[[S]], %[[AX]]) <{keepdims = 1 : i64}> : (tensor<1x1x8x8x8xf32>, tensor<2xi64>) -> tensor<1x1x1x1x8xf32>
// CHECK-NEXT: %[[O:.*]] = "graph.reorder"(%[[M]]) <{channels = 4 : i64, layout = "nchw"}> : (tensor<1x1x1x1x8xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT: return %[[O]]
// B16-LABEL: func.func @chain
// B16: "graph.reorder"(%arg0) <{layout = "nchw16c"}> : (tensor<1x3x8x8xf32>) -> tensor<1x1x8x8x16xf32>
// B16: "graph.fused_conv"{{.*}}layout = "nchw16c"{{.*}} : (tensor<1x1x8x8x16xf32>, tensor<1x1x3x3x16x16xf32>, tensor<16xf32>) -> tensor<1x1x8x8x16xf32>
// B16: "graph.reorder"({{.*}}) <{channels = 4 : i64, layout = "nchw"}> : (tensor<1x1x1x1x16xf32>) -> tensor<1x4x1x1xf32>
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

// A MaxPool becomes a blocked graph.pool; a BatchNorm a Mul and an Add of blocked per-channel
// constants; Clip with bounds around 0 stays in the region; a dynamic batch stays dynamic.
// CHECK-LABEL: func.func @pool_bn_clip
// CHECK-DAG: %[[T:.*]] = "graph.constant"() <{value = dense<5.000000e-01> : tensor<1x1x1x1x8xf32>}>
// CHECK-DAG: %[[S:.*]] = "graph.constant"() <{value = dense<1.999990e+00> : tensor<1x1x1x1x8xf32>}>
// CHECK: %[[X:.*]] = "graph.reorder"(%arg0) <{layout = "nchw8c"}> : (tensor<?x8x4x4xf32>) -> tensor<?x1x4x4x8xf32>
// CHECK: %[[C:.*]] = "graph.fused_conv"(%[[X]], {{.*}}layout = "nchw8c"{{.*}} -> tensor<?x1x4x4x8xf32>
// CHECK-NEXT: %[[P:.*]] = "graph.pool"(%[[C]]) <{kernel_shape = array<i64: 2, 2>, kind = "max", layout = "nchw8c", strides = array<i64: 2, 2>}> : (tensor<?x1x4x4x8xf32>) -> tensor<?x1x2x2x8xf32>
// CHECK-NEXT: %[[M:.*]] = "graph.Mul"(%[[P]], %[[S]])
// CHECK-NEXT: %[[A:.*]] = "graph.Add"(%[[M]], %[[T]])
// CHECK-NEXT: %[[CL:.*]] = "graph.Clip"(%[[A]], {{.*}}) : (tensor<?x1x2x2x8xf32>, tensor<f32>, tensor<f32>) -> tensor<?x1x2x2x8xf32>
// CHECK-NEXT: %[[O:.*]] = "graph.reorder"(%[[CL]]) <{channels = 8 : i64, layout = "nchw"}> : (tensor<?x1x2x2x8xf32>) -> tensor<?x8x2x2xf32>
// CHECK-NEXT: return %[[O]]
func.func @pool_bn_clip(%x: tensor<?x8x4x4xf32>) -> tensor<?x8x2x2xf32> {
  %w = "graph.constant"() <{value = dense<0.5> : tensor<8x8x1x1xf32>}> : () -> tensor<8x8x1x1xf32>
  %n = "graph.none"() : () -> none
  %c = "graph.Conv"(%x, %w, %n) : (tensor<?x8x4x4xf32>, tensor<8x8x1x1xf32>, none) -> tensor<?x8x4x4xf32>
  %p:2 = "graph.MaxPool"(%c) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<?x8x4x4xf32>) -> (tensor<?x8x2x2xf32>, none)
  %sc = "graph.constant"() <{value = dense<2.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %bi = "graph.constant"() <{value = dense<0.5> : tensor<8xf32>}> : () -> tensor<8xf32>
  %mu = "graph.constant"() <{value = dense<0.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %va = "graph.constant"() <{value = dense<1.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %bn:3 = "graph.BatchNormalization"(%p#0, %sc, %bi, %mu, %va) : (tensor<?x8x2x2xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<?x8x2x2xf32>, none, none)
  %lo = "graph.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %hi = "graph.constant"() <{value = dense<6.0> : tensor<f32>}> : () -> tensor<f32>
  %cl = "graph.Clip"(%bn#0, %lo, %hi) : (tensor<?x8x2x2xf32>, tensor<f32>, tensor<f32>) -> tensor<?x8x2x2xf32>
  return %cl : tensor<?x8x2x2xf32>
}

// -----

// A depthwise convolution of 12 channels is blocked with group = 16 (the padded channels) and
// a [2, 1, 3, 3, 1, 8] weight; a Concat along the channels of two 16-channel blocked values
// stays blocked.
// CHECK-LABEL: func.func @depthwise_concat
// CHECK: %[[X:.*]] = "graph.reorder"(%arg0) <{layout = "nchw8c"}> : (tensor<1x12x4x4xf32>) -> tensor<1x2x4x4x8xf32>
// CHECK: %[[D:.*]] = "graph.fused_conv"(%[[X]], {{.*}}) <{activation = #graph.activation<none>, group = 16 : i64, layout = "nchw8c", pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x2x4x4x8xf32>, tensor<2x1x3x3x1x8xf32>, none) -> tensor<1x2x4x4x8xf32>
// CHECK: %[[A:.*]] = "graph.fused_conv"(%[[D]], {{.*}} : (tensor<1x2x4x4x8xf32>, tensor<2x2x1x1x8x8xf32>, none) -> tensor<1x2x4x4x8xf32>
// CHECK: %[[B:.*]] = "graph.fused_conv"(%[[D]], {{.*}} -> tensor<1x2x4x4x8xf32>
// CHECK-NEXT: %[[C:.*]] = "graph.Concat"(%[[A]], %[[B]]) <{axis = 1 : i64}> : (tensor<1x2x4x4x8xf32>, tensor<1x2x4x4x8xf32>) -> tensor<1x4x4x4x8xf32>
// CHECK-NEXT: %[[O:.*]] = "graph.reorder"(%[[C]]) <{channels = 32 : i64, layout = "nchw"}> : (tensor<1x4x4x4x8xf32>) -> tensor<1x32x4x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @depthwise_concat(%x: tensor<1x12x4x4xf32>) -> tensor<1x32x4x4xf32> {
  %w = "graph.constant"() <{value = dense<1.0> : tensor<12x1x3x3xf32>}> : () -> tensor<12x1x3x3xf32>
  %n = "graph.none"() : () -> none
  %d = "graph.Conv"(%x, %w, %n) <{group = 12 : i64, pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x12x4x4xf32>, tensor<12x1x3x3xf32>, none) -> tensor<1x12x4x4xf32>
  %w2 = "graph.constant"() <{value = dense<1.0> : tensor<16x12x1x1xf32>}> : () -> tensor<16x12x1x1xf32>
  %a = "graph.Conv"(%d, %w2, %n) : (tensor<1x12x4x4xf32>, tensor<16x12x1x1xf32>, none) -> tensor<1x16x4x4xf32>
  %b = "graph.Conv"(%d, %w2, %n) : (tensor<1x12x4x4xf32>, tensor<16x12x1x1xf32>, none) -> tensor<1x16x4x4xf32>
  %cat = "graph.Concat"(%a, %b) <{axis = 1 : i64}> : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x32x4x4xf32>
  return %cat : tensor<1x32x4x4xf32>
}

// -----

// Refusals: a group that does not split along blocks (3 channels per group), a computed weight
// and a sigmoid activation (which does not map 0 to 0) stay as they are; a Sigmoid after a
// blocked convolution reads it through a reorder back.
// CHECK-LABEL: func.func @refusals
// CHECK: %[[G:.*]] = "graph.Conv"(%arg0, %{{.*}}, %{{.*}}) <{group = 2 : i64}>
// CHECK-NEXT: %[[V:.*]] = "graph.Conv"(%arg0, %arg1, %{{.*}})
// CHECK-NEXT: %[[S:.*]] = "graph.fused_conv"(%arg0, {{.*}}) <{activation = #graph.activation<sigmoid>}> : (tensor<1x6x4x4xf32>
// CHECK-NEXT: %[[X:.*]] = "graph.reorder"(%arg0) <{layout = "nchw8c"}>
// CHECK: %[[C:.*]] = "graph.fused_conv"(%[[X]], {{.*}}layout = "nchw8c"
// CHECK-NEXT: %[[O:.*]] = "graph.reorder"(%[[C]]) <{channels = 4 : i64, layout = "nchw"}>
// CHECK-NEXT: %[[E:.*]] = "graph.Sigmoid"(%[[O]]) : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT: %[[A:.*]] = "graph.Add"(%[[G]], %[[E]]) : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT: return %[[A]], %[[V]], %[[S]]
// CHECK: GraphLayout
// CHECK-NEXT: (S) 7 num-converted
// CHECK: (S) 1 num-batchnorms
// CHECK: (S) 8 num-sunk
// CHECK-NEXT: (S) 8 num-reorders
func.func @refusals(%x: tensor<1x6x4x4xf32>, %wx: tensor<4x6x1x1xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %n = "graph.none"() : () -> none
  %wg = "graph.constant"() <{value = dense<1.0> : tensor<4x3x1x1xf32>}> : () -> tensor<4x3x1x1xf32>
  %g = "graph.Conv"(%x, %wg, %n) <{group = 2 : i64}> : (tensor<1x6x4x4xf32>, tensor<4x3x1x1xf32>, none) -> tensor<1x4x4x4xf32>
  %v = "graph.Conv"(%x, %wx, %n) : (tensor<1x6x4x4xf32>, tensor<4x6x1x1xf32>, none) -> tensor<1x4x4x4xf32>
  %w = "graph.constant"() <{value = dense<1.0> : tensor<4x6x1x1xf32>}> : () -> tensor<4x6x1x1xf32>
  %s = "graph.fused_conv"(%x, %w, %n) <{activation = #graph.activation<sigmoid>}> : (tensor<1x6x4x4xf32>, tensor<4x6x1x1xf32>, none) -> tensor<1x4x4x4xf32>
  %c = "graph.Conv"(%x, %w, %n) : (tensor<1x6x4x4xf32>, tensor<4x6x1x1xf32>, none) -> tensor<1x4x4x4xf32>
  %e = "graph.Sigmoid"(%c) : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %sum = "graph.Add"(%g, %e) : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %sum, %v, %s : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}
