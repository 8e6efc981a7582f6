// RUN: nart-opt %s --split-input-file --verify-diagnostics

// clip takes two parameters.
func.func @clip_one_param(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{activation clip takes 2 activation_params, but 1 are given}}
  %0 = "graph.fused_conv"(%x, %w, %none) <{activation = #graph.activation<clip>, activation_params = array<f32: 0.0>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x6x6xf32>
  return
}

// -----

// relu takes none.
func.func @relu_with_param(%a: tensor<2x8xf32>, %b: tensor<8x4xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{activation relu takes 0 activation_params, but 1 are given}}
  %0 = "graph.fused_gemm"(%a, %b, %none) <{activation = #graph.activation<relu>, activation_params = array<f32: 1.0>}> : (tensor<2x8xf32>, tensor<8x4xf32>, none) -> tensor<2x4xf32>
  return
}

// -----

// The activation is required.
func.func @no_activation(%a: tensor<2x8xf32>, %b: tensor<8x4xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{requires attribute 'activation'}}
  %0 = "graph.fused_matmul"(%a, %b, %none) : (tensor<2x8xf32>, tensor<8x4xf32>, none) -> tensor<2x4xf32>
  return
}

// -----

// The base op's inference checks the result type.
func.func @wrong_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #0 has type tensor<1x4x8x8xf32> but inference gives tensor<1x4x6x6xf32>}}
  %0 = "graph.fused_conv"(%x, %w, %none) <{activation = #graph.activation<relu>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  return
}

// -----

// The fused_matmul bias is a scalar or a row of the product's last dimension.
func.func @matmul_bad_bias(%a: tensor<2x8xf32>, %b: tensor<8x4xf32>, %c: tensor<2x4xf32>) {
  // expected-error @+1 {{bias tensor<2x4xf32> must be a scalar or a 1-D tensor the size of the product's last dimension}}
  %0 = "graph.fused_matmul"(%a, %b, %c) <{activation = #graph.activation<tanh>}> : (tensor<2x8xf32>, tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// An unknown activation keyword is a parse error.
func.func @unknown_activation(%a: tensor<2x8xf32>, %b: tensor<8x4xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{expected Activation to be one of: none, relu, leaky_relu, clip, sigmoid, tanh, hard_sigmoid}}
  %0 = "graph.fused_matmul"(%a, %b, %none) <{activation = #graph.activation<gelu>}> : (tensor<2x8xf32>, tensor<8x4xf32>, none) -> tensor<2x4xf32>
  return
}
