// RUN: nart-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg))'

// The refusals of pools_ops.rs: each op keeps falling back (to another target) with the
// reason.

// Average pooling is lowered for f32 only.
func.func @average_pool_f64(%x: tensor<1x1x6xf64>) -> tensor<1x1x3xf64> {
  // expected-error @+2 {{failed to legalize operation 'graph.AveragePool'}}
  // expected-note @+1 {{only f32 average pooling is lowered}}
  %0 = "graph.AveragePool"(%x) <{kernel_shape = array<i64: 2>, strides = array<i64: 2>}> : (tensor<1x1x6xf64>) -> tensor<1x1x3xf64>
  return %0 : tensor<1x1x3xf64>
}

// -----

// Without keepdims, the shapes do not tell which axes a run-time axes operand names.
func.func @reduce_axes_at_run_time_without_keepdims(%x: tensor<3x3xf32>, %a: tensor<1xi64>) -> tensor<3xf32> {
  // expected-error @+2 {{failed to legalize operation 'graph.ReduceMax'}}
  // expected-note @+1 {{the axes are not a constant (and without keepdims the shapes do not tell them)}}
  %0 = "graph.ReduceMax"(%x, %a) <{keepdims = 0 : i64}> : (tensor<3x3xf32>, tensor<1xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Reducing a dimension of size 1 changes a ReduceSumSquare (x * x), so such a dimension is
// ambiguous when the axes are known only at run time.
func.func @reduce_sum_square_axes_at_run_time(%x: tensor<1x4xf32>, %a: tensor<1xi64>) -> tensor<1x1xf32> {
  // expected-error @+2 {{failed to legalize operation 'graph.ReduceSumSquare'}}
  // expected-note @+1 {{whether its dimensions of size 1 are reduced matters to ReduceSumSquare}}
  %0 = "graph.ReduceSumSquare"(%x, %a) <{keepdims = 1 : i64}> : (tensor<1x4xf32>, tensor<1xi64>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// Training-mode BatchNormalization whose input statistics have another type than the input.
func.func @batch_norm_training_mixed_types(%x: tensor<2x3xf32>, %p: tensor<3xf32>, %q: tensor<3xf64>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  // expected-error @+2 {{failed to legalize operation 'graph.BatchNormalization'}}
  // expected-note @+1 {{expected the scale, bias, mean and variance as [3] tensors of the input's type}}
  %y, %m, %v = "graph.BatchNormalization"(%x, %p, %p, %q, %q) <{training_mode = 1 : i64}> : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf64>, tensor<3xf64>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %m, %v : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Window attributes so large that the window arithmetic could overflow are refused.
func.func @max_pool_huge_dilation(%x: tensor<1x1x4xf32>) -> tensor<1x1x4xf32> {
  // expected-error @+2 {{failed to legalize operation 'graph.MaxPool'}}
  // expected-note @+1 {{window attributes or sizes beyond 2^31 are not lowered}}
  %0, %i = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 1>, dilations = array<i64: 4000000000>}> : (tensor<1x1x4xf32>) -> (tensor<1x1x4xf32>, none)
  return %0 : tensor<1x1x4xf32>
}
