// RUN: nart-opt %s --split-input-file | filecheck %s

// The fused ops print and parse back, with the activation enum and its parameters.
// CHECK-LABEL: func.func @fused
// CHECK: "graph.fused_conv"(%arg0, %{{.*}}, %{{.*}}) <{activation = #graph.activation<clip>, activation_params = array<f32: 0.000000e+00, 6.000000e+00>, pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK: "graph.fused_gemm"(%arg1, %{{.*}}, %{{.*}}) <{activation = #graph.activation<relu>, transB = 1 : i64}> : (tensor<2x8xf32>, tensor<4x8xf32>, none) -> tensor<2x4xf32>
// CHECK: "graph.fused_matmul"(%arg2, %{{.*}}, %{{.*}}) <{activation = #graph.activation<leaky_relu>, activation_params = array<f32: 1.000000e-01>}> : (tensor<2x5x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<2x5x4xf32>
func.func @fused(%x: tensor<1x3x8x8xf32>, %a: tensor<2x8xf32>, %m: tensor<2x5x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<2x4xf32>, tensor<2x5x4xf32>) {
  %none = "graph.none"() : () -> none
  %w = "graph.constant"() <{value = dense<0.5> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
  %b = "graph.constant"() <{value = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "graph.fused_conv"(%x, %w, %b) <{activation = #graph.activation<clip>, activation_params = array<f32: 0.0, 6.0>, pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %g = "graph.constant"() <{value = dense<0.5> : tensor<4x8xf32>}> : () -> tensor<4x8xf32>
  %1 = "graph.fused_gemm"(%a, %g, %none) <{activation = #graph.activation<relu>, transB = 1 : i64}> : (tensor<2x8xf32>, tensor<4x8xf32>, none) -> tensor<2x4xf32>
  %k = "graph.constant"() <{value = dense<0.5> : tensor<8x4xf32>}> : () -> tensor<8x4xf32>
  %kb = "graph.constant"() <{value = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %2 = "graph.fused_matmul"(%m, %k, %kb) <{activation = #graph.activation<leaky_relu>, activation_params = array<f32: 0.1>}> : (tensor<2x5x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<2x5x4xf32>
  return %0, %1, %2 : tensor<1x4x8x8xf32>, tensor<2x4xf32>, tensor<2x5x4xf32>
}
