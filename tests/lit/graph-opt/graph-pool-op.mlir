// RUN: nart-opt %s --split-input-file | filecheck %s

// graph.pool prints and parses back; the result shape follows the layout: channels last
// pools the middle axes, channels first (the default) the last ones.
// CHECK-LABEL: func.func @pools
// CHECK: "graph.pool"(%arg0) <{kernel_shape = array<i64: 3, 3>, kind = "max", layout = "nhwc", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32>
// CHECK: "graph.pool"(%arg1) <{count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>, kind = "average"}> : (tensor<1x16x8x8xf32>) -> tensor<1x16x7x7xf32>
// CHECK: "graph.pool"(%arg2) <{ceil_mode = 1 : i64, kernel_shape = array<i64: 2>, kind = "max", layout = "nhwc", strides = array<i64: 2>}> : (tensor<?x5x3xf32>) -> tensor<?x3x3xf32>
func.func @pools(%a: tensor<1x8x8x16xf32>, %b: tensor<1x16x8x8xf32>, %c: tensor<?x5x3xf32>) -> (tensor<1x4x4x16xf32>, tensor<1x16x7x7xf32>, tensor<?x3x3xf32>) {
  %0 = "graph.pool"(%a) <{kind = "max", layout = "nhwc", kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32>
  %1 = "graph.pool"(%b) <{kind = "average", count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>}> : (tensor<1x16x8x8xf32>) -> tensor<1x16x7x7xf32>
  %2 = "graph.pool"(%c) <{kind = "max", layout = "nhwc", ceil_mode = 1 : i64, kernel_shape = array<i64: 2>, strides = array<i64: 2>}> : (tensor<?x5x3xf32>) -> tensor<?x3x3xf32>
  return %0, %1, %2 : tensor<1x4x4x16xf32>, tensor<1x16x7x7xf32>, tensor<?x3x3xf32>
}
