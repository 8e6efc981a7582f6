// RUN: nart-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg))'

// Every op that cannot be lowered is reported at its location, with the reason; the Relu
// that could be lowered is rolled back with the rest.
func.func @unsupported(%a: tensor<2x3xf32>, %d: tensor<?x3xf32>) -> (tensor<2x3xf32>, tensor<?x3xf32>) {
  %0 = "graph.Relu"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-error @+2 {{failed to legalize operation 'graph.Softsign' that was explicitly marked illegal}}
  // expected-note @+1 {{no conversion pattern matches 'graph.Softsign'}}
  %1 = "graph.Softsign"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-error @+2 {{failed to legalize operation 'graph.Relu' that was explicitly marked illegal}}
  // expected-note @+1 {{pattern 'ReluLowering' does not apply: expected a tensor of static shape, got 'tensor<?x3xf32>'}}
  %2 = "graph.Relu"(%d) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %1, %2 : tensor<2x3xf32>, tensor<?x3xf32>
}

// -----

func.func @dynamic_matmul(%a: tensor<?x2x3xf32>, %b: tensor<3x4xf32>) -> tensor<?x2x4xf32> {
  // expected-error @+2 {{failed to legalize operation 'graph.MatMul'}}
  // expected-note @+1 {{expected a tensor of static shape, got 'tensor<?x2x4xf32>'}}
  %0 = "graph.MatMul"(%a, %b) : (tensor<?x2x3xf32>, tensor<3x4xf32>) -> tensor<?x2x4xf32>
  return %0 : tensor<?x2x4xf32>
}

// -----

// auto_pad = SAME_* is worked out from the input's spatial sizes, which must be known (as every
// size the lowering reads).
func.func @auto_pad(%x: tensor<1x1x?x4xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x?x4xf32> {
  %none = "graph.none"() : () -> none
  // expected-error @+2 {{failed to legalize operation 'graph.Conv'}}
  // expected-note @+1 {{expected a tensor of static shape, got 'tensor<1x1x?x4xf32>'}}
  %0 = "graph.Conv"(%x, %w, %none) <{auto_pad = "SAME_UPPER"}> : (tensor<1x1x?x4xf32>, tensor<1x1x3x3xf32>, none) -> tensor<1x1x?x4xf32>
  return %0 : tensor<1x1x?x4xf32>
}

// -----

// MaxPool's Indices are lowered (pools_ops.rs); the running mean of an inference-mode
// BatchNormalization is not.
func.func @used_optional_result(%x: tensor<1x2x4x4xf32>, %p: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{failed to legalize operation 'graph.BatchNormalization'}}
  // expected-note @+1 {{an optional result that is used is not lowered}}
  %y, %m, %v = "graph.BatchNormalization"(%x, %p, %p, %p, %p) : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>)
  return %m : tensor<2xf32>
}

// -----

// A channels-last convolution (graph-layout{layout=nhwc}) has no lowering yet.
func.func @channels_last(%x: tensor<1x4x4x2xf32>, %w: tensor<2x1x1x2xf32>) -> tensor<1x4x4x2xf32> {
  %n = "graph.none"() : () -> none
  // expected-error @+2 {{failed to legalize operation 'graph.fused_conv'}}
  // expected-note @+1 {{only channels-first convolutions are lowered (layout = "nhwc" is not)}}
  %c = "graph.fused_conv"(%x, %w, %n) <{activation = #graph.activation<none>, layout = "nhwc"}> : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, none) -> tensor<1x4x4x2xf32>
  return %c : tensor<1x4x4x2xf32>
}
