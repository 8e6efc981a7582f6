// RUN: nart-opt %s --split-input-file --verify-diagnostics

// The kind is required.
func.func @no_kind(%x: tensor<1x8x8x4xf32>) {
  // expected-error @+1 {{requires attribute 'kind'}}
  %0 = "graph.pool"(%x) <{kernel_shape = array<i64: 2, 2>, layout = "nhwc"}> : (tensor<1x8x8x4xf32>) -> tensor<1x7x7x4xf32>
  return
}

// -----

// Only max and average.
func.func @lp_kind(%x: tensor<1x8x8x4xf32>) {
  // expected-error @+1 {{kind must be "max" or "average", but got "lp"}}
  %0 = "graph.pool"(%x) <{kind = "lp", kernel_shape = array<i64: 2, 2>, layout = "nhwc"}> : (tensor<1x8x8x4xf32>) -> tensor<1x7x7x4xf32>
  return
}

// -----

// Only nchw, nhwc and blocked nchw<b>c with b > 0.
func.func @bad_layout(%x: tensor<1x8x8x4xf32>) {
  // expected-error @+1 {{layout must be "nchw", "nhwc" or "nchw<b>c" (b > 0), but got "nchw0c"}}
  %0 = "graph.pool"(%x) <{kind = "max", kernel_shape = array<i64: 2, 2>, layout = "nchw0c"}> : (tensor<1x8x8x4xf32>) -> tensor<1x7x7x4xf32>
  return
}

// -----

// A blocked pool takes [N, C/b, spatial..., b].
func.func @blocked_input(%x: tensor<1x8x8x4xf32>) {
  // expected-error @+1 {{input must be blocked by 8 ([N, C/8, spatial..., 8]), but got tensor<1x8x8x4xf32>}}
  %0 = "graph.pool"(%x) <{kind = "max", kernel_shape = array<i64: 2, 2>, layout = "nchw8c"}> : (tensor<1x8x8x4xf32>) -> tensor<1x7x7x4xf32>
  return
}

// -----

// count_include_pad belongs to AveragePool.
func.func @max_count_pad(%x: tensor<1x8x8x4xf32>) {
  // expected-error @+1 {{count_include_pad is only for kind "average"}}
  %0 = "graph.pool"(%x) <{kind = "max", count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>, layout = "nhwc"}> : (tensor<1x8x8x4xf32>) -> tensor<1x7x7x4xf32>
  return
}

// -----

// A channels-last result keeps the channels last: pooling the channel axis is wrong.
func.func @wrong_axes(%x: tensor<1x8x8x4xf32>) {
  // expected-error @+1 {{result #0 has type tensor<1x8x7x3xf32> but inference gives tensor<1x7x7x4xf32>}}
  %0 = "graph.pool"(%x) <{kind = "max", kernel_shape = array<i64: 2, 2>, layout = "nhwc"}> : (tensor<1x8x8x4xf32>) -> tensor<1x8x7x3xf32>
  return
}

// -----

// The kernel must match the spatial axes.
func.func @kernel_rank(%x: tensor<1x8x8x4xf32>) {
  // expected-error @+1 {{kernel_shape, strides, dilations and pads must match the 2 spatial dims}}
  %0 = "graph.pool"(%x) <{kind = "average", kernel_shape = array<i64: 2>, layout = "nhwc"}> : (tensor<1x8x8x4xf32>) -> tensor<1x7x7x4xf32>
  return
}
