// RUN: nart-opt %s --split-input-file | filecheck %s
// RUN: nart-opt %s --split-input-file --mlir-print-op-generic | nart-opt --split-input-file | filecheck %s

// graph.reorder into blocks (the channels padded to a multiple of the block) and back; a
// blocked fused_conv and graph.pool infer their blocked result shapes.
// CHECK-LABEL: func.func @reorders
// CHECK: %[[B:.*]] = "graph.reorder"(%arg0) <{layout = "nchw8c"}> : (tensor<?x12x5x5xf32>) -> tensor<?x2x5x5x8xf32>
// CHECK: "graph.reorder"(%[[B]]) <{channels = 12 : i64, layout = "nchw"}> : (tensor<?x2x5x5x8xf32>) -> tensor<?x12x5x5xf32>
// CHECK: "graph.fused_conv"(%[[B]], %arg1, %arg2) <{activation = #graph.activation<relu>, group = 1 : i64, layout = "nchw8c", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<?x2x5x5x8xf32>, tensor<3x2x3x3x8x8xf32>, tensor<24xf32>) -> tensor<?x3x3x3x8xf32>
// CHECK: "graph.pool"(%[[B]]) <{kernel_shape = array<i64: 2, 2>, kind = "average", layout = "nchw8c"}> : (tensor<?x2x5x5x8xf32>) -> tensor<?x2x4x4x8xf32>
func.func @reorders(%x: tensor<?x12x5x5xf32>, %w: tensor<3x2x3x3x8x8xf32>, %b: tensor<24xf32>) -> (tensor<?x12x5x5xf32>, tensor<?x3x3x3x8xf32>, tensor<?x2x4x4x8xf32>) {
  %0 = "graph.reorder"(%x) <{layout = "nchw8c"}> : (tensor<?x12x5x5xf32>) -> tensor<?x2x5x5x8xf32>
  %1 = "graph.reorder"(%0) <{layout = "nchw", channels = 12 : i64}> : (tensor<?x2x5x5x8xf32>) -> tensor<?x12x5x5xf32>
  %2 = "graph.fused_conv"(%0, %w, %b) <{activation = #graph.activation<relu>, group = 1 : i64, layout = "nchw8c", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<?x2x5x5x8xf32>, tensor<3x2x3x3x8x8xf32>, tensor<24xf32>) -> tensor<?x3x3x3x8xf32>
  %3 = "graph.pool"(%0) <{kind = "average", kernel_shape = array<i64: 2, 2>, layout = "nchw8c"}> : (tensor<?x2x5x5x8xf32>) -> tensor<?x2x4x4x8xf32>
  return %1, %2, %3 : tensor<?x12x5x5xf32>, tensor<?x3x3x3x8xf32>, tensor<?x2x4x4x8xf32>
}
