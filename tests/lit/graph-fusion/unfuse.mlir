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
