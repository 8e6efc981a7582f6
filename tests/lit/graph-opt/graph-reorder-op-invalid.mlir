// RUN: nart-opt %s --split-input-file --verify-diagnostics

// Back to nchw needs the channel count.
func.func @no_channels(%x: tensor<1x2x4x4x8xf32>) {
  // expected-error @+1 {{layout "nchw" requires attribute 'channels'}}
  %0 = "graph.reorder"(%x) <{layout = "nchw"}> : (tensor<1x2x4x4x8xf32>) -> tensor<1x16x4x4xf32>
  return
}

// -----

// The channels must fill the last block partly at least.
func.func @too_few_channels(%x: tensor<1x2x4x4x8xf32>) {
  // expected-error @+1 {{channels (8) must be more than 8 and at most 16 for 2 blocks of 8}}
  %0 = "graph.reorder"(%x) <{layout = "nchw", channels = 8 : i64}> : (tensor<1x2x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  return
}

// -----

// The result type follows the block size.
func.func @wrong_result(%x: tensor<1x12x4x4xf32>) {
  // expected-error @+1 {{result #0 has type tensor<1x2x4x4x8xf32> but inference gives tensor<1x1x4x4x16xf32>}}
  %0 = "graph.reorder"(%x) <{layout = "nchw16c"}> : (tensor<1x12x4x4xf32>) -> tensor<1x2x4x4x8xf32>
  return
}

// -----

// channels-last is not a reorder target.
func.func @nhwc(%x: tensor<1x12x4x4xf32>) {
  // expected-error @+1 {{layout must be "nchw" or "nchw<b>c"}}
  %0 = "graph.reorder"(%x) <{layout = "nhwc"}> : (tensor<1x12x4x4xf32>) -> tensor<1x4x4x12xf32>
  return
}

// -----

// A blocked convolution's weight is blocked too.
func.func @unblocked_weight(%x: tensor<1x2x4x4x8xf32>, %w: tensor<8x16x3x3xf32>) {
  %n = "graph.none"() : () -> none
  // expected-error @+1 {{weight must be blocked as [M/8, K, k..., bi, 8] (rank 6), but got tensor<8x16x3x3xf32>}}
  %0 = "graph.fused_conv"(%x, %w, %n) <{activation = #graph.activation<none>, layout = "nchw8c"}> : (tensor<1x2x4x4x8xf32>, tensor<8x16x3x3xf32>, none) -> tensor<1x1x2x2x8xf32>
  return
}
