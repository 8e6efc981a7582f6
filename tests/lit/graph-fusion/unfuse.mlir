// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(graph-unfuse))' | filecheck %s

// Each fused op becomes its base op, the bias Add and the activation op again.
// CHECK-LABEL: func.func @unfuse
// CHECK-DAG: %[[LO:.*]] = "graph.constant"() <{value = dense<0.000000e+00> : tensor<f32>}>
// CHECK-DAG: %[[HI:.*]] = "graph.constant"() <{value = dense<6.000000e+00> : tensor<f32>}>
// CHECK: %[[C:.*]] = "graph.Conv"(%arg0, %{{.*}}, %{{.*}}) <{pads = array<i64: 1, 1, 1, 1>}>
// CHECK: "graph.Clip"(%[[C]], %[[LO]], %[[HI]])
// CHECK: %[[M:.*]] = "graph.MatMul"(%arg1, %{{.*}})
// CHECK: %[[A:.*]] = "graph.Add"(%[[M]], %{{.*}})
// CHECK: "graph.HardSigmoid"(%[[A]]) <{alpha = 3.000000e-01 : f32, beta = 4.000000e-01 : f32}>
// CHECK-NOT: fused
func.func @unfuse(%x: tensor<1x3x8x8xf32>, %m: tensor<2x5x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<2x5x4xf32>) {
  %w = "graph.constant"() <{value = dense<0.5> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
  %b = "graph.constant"() <{value = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "graph.fused_conv"(%x, %w, %b) <{activation = #graph.activation<clip>, activation_params = array<f32: 0.0, 6.0>, pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %k = "graph.constant"() <{value = dense<0.5> : tensor<8x4xf32>}> : () -> tensor<8x4xf32>
  %kb = "graph.constant"() <{value = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %1 = "graph.fused_matmul"(%m, %k, %kb) <{activation = #graph.activation<hard_sigmoid>, activation_params = array<f32: 0.3, 0.4>}> : (tensor<2x5x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<2x5x4xf32>
  return %0, %1 : tensor<1x4x8x8xf32>, tensor<2x5x4xf32>
}

// A graph.pool becomes its base op: a channels-first one directly, a channels-last one between
// Transposes; a blocked one is left to the exporter.
// CHECK-LABEL: func.func @unfuse_pool
// CHECK: %[[M:.*]]:2 = "graph.MaxPool"(%arg0) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, none)
// CHECK: %[[T:.*]] = "graph.Transpose"(%arg1) <{perm = array<i64: 0, 3, 1, 2>}> : (tensor<1x8x8x3xf32>) -> tensor<1x3x8x8xf32>
// CHECK-NEXT: %[[A:.*]] = "graph.AveragePool"(%[[T]]) <{kernel_shape = array<i64: 2, 2>}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
// CHECK-NEXT: %[[B:.*]] = "graph.Transpose"(%[[A]]) <{perm = array<i64: 0, 2, 3, 1>}> : (tensor<1x3x7x7xf32>) -> tensor<1x7x7x3xf32>
// CHECK: "graph.pool"(%arg2) <{kernel_shape = array<i64: 2, 2>, kind = "max", layout = "nchw8c"}>
// CHECK: return %[[M]]#0, %[[B]]
func.func @unfuse_pool(%x: tensor<1x3x8x8xf32>, %y: tensor<1x8x8x3xf32>, %z: tensor<1x1x8x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x7x7x3xf32>, tensor<1x1x7x7x8xf32>) {
  %0 = "graph.pool"(%x) <{kind = "max", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  %1 = "graph.pool"(%y) <{kind = "average", kernel_shape = array<i64: 2, 2>, layout = "nhwc"}> : (tensor<1x8x8x3xf32>) -> tensor<1x7x7x3xf32>
  %2 = "graph.pool"(%z) <{kind = "max", kernel_shape = array<i64: 2, 2>, layout = "nchw8c"}> : (tensor<1x1x8x8x8xf32>) -> tensor<1x1x7x7x8xf32>
  return %0, %1, %2 : tensor<1x3x4x4xf32>, tensor<1x7x7x3xf32>, tensor<1x1x7x7x8xf32>
}
