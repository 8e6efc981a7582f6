// RUN: nart-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg))'

// The refusals of keya_ops.rs: each op keeps falling back (to another target) with the
// reason.

// Scales computed at run time give the result shape only at run time.
func.func @resize_scales_at_run_time(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>) -> tensor<1x1x4x4xf32> {
  %n = "graph.none"() : () -> none
  // expected-error @+2 {{failed to legalize operation 'graph.Resize'}}
  // expected-note @+1 {{the scales are computed at run time; only constant scales are lowered}}
  %0 = "graph.Resize"(%x, %n, %s, %n) <{mode = "linear"}> : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @resize_linear_on_integers(%x: tensor<1x1x2x2xi32>) -> tensor<1x1x4x4xi32> {
  %n = "graph.none"() : () -> none
  %s = "graph.constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  // expected-error @+2 {{failed to legalize operation 'graph.Resize'}}
  // expected-note @+1 {{linear Resize is lowered for f32 only}}
  %0 = "graph.Resize"(%x, %n, %s, %n) <{mode = "linear"}> : (tensor<1x1x2x2xi32>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xi32>
  return %0 : tensor<1x1x4x4xi32>
}

// -----

func.func @pad_reflect_pads_at_run_time(%x: tensor<2x3xf32>, %p: tensor<4xi64>) -> tensor<2x5xf32> {
  %n = "graph.none"() : () -> none
  // expected-error @+2 {{failed to legalize operation 'graph.Pad'}}
  // expected-note @+1 {{the pads are not a constant}}
  %0 = "graph.Pad"(%x, %p, %n, %n) <{mode = "reflect"}> : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @conv_transpose_4d(%x: tensor<1x1x2x2x2x2xf32>, %w: tensor<1x1x1x1x1x1xf32>) -> tensor<1x1x2x2x2x2xf32> {
  %n = "graph.none"() : () -> none
  // expected-error @+2 {{failed to legalize operation 'graph.ConvTranspose'}}
  // expected-note @+1 {{only ConvTranspose with 1 to 3 spatial dimensions is lowered}}
  %0 = "graph.ConvTranspose"(%x, %w, %n) : (tensor<1x1x2x2x2x2xf32>, tensor<1x1x1x1x1x1xf32>, none) -> tensor<1x1x2x2x2x2xf32>
  return %0 : tensor<1x1x2x2x2x2xf32>
}

// -----

func.func @log_softmax_of_a_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{failed to legalize operation 'graph.LogSoftmax'}}
  // expected-note @+1 {{LogSoftmax of a scalar is not lowered}}
  %0 = "graph.LogSoftmax"(%x) <{axis = 0 : i64}> : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// (f16 and bf16 compute in f32, see graph-to-linalg-floats.mlir; f64 is refused.)
func.func @conv_transpose_f64(%x: tensor<1x1x3xf64>, %w: tensor<1x1x2xf64>) -> tensor<1x1x4xf64> {
  %n = "graph.none"() : () -> none
  // expected-error @+2 {{failed to legalize operation 'graph.ConvTranspose'}}
  // expected-note @+1 {{ConvTranspose is lowered for f32 only}}
  %0 = "graph.ConvTranspose"(%x, %w, %n) : (tensor<1x1x3xf64>, tensor<1x1x2xf64>, none) -> tensor<1x1x4xf64>
  return %0 : tensor<1x1x4xf64>
}
