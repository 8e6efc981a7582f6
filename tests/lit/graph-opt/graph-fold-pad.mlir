// RUN: nart-opt %s --pass-pipeline='builtin.module(graph-fold-pad)' --split-input-file | filecheck %s

// A zero Pad of H and W goes into the Conv's pads.
// CHECK-LABEL: func.func @conv
// CHECK-NOT: "graph.Pad"
// CHECK: "graph.Conv"(%arg0, %{{.*}}, %{{.*}}) <{pads = array<i64: 2, 1, 2, 1>}>
func.func @conv(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x6x4xf32> {
  %p = "graph.constant"() <{value = dense<[0, 0, 1, 0, 0, 0, 1, 0]> : tensor<8xi64>}> : () -> tensor<8xi64>
  %n = "graph.none"() : () -> none
  %xp = "graph.Pad"(%x, %p, %n, %n) : (tensor<1x1x4x4xf32>, tensor<8xi64>, none, none) -> tensor<1x1x6x4xf32>
  %w = "graph.constant"() <{value = dense<1.0> : tensor<1x1x3x3xf32>}> : () -> tensor<1x1x3x3xf32>
  %c = "graph.Conv"(%xp, %w, %n) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x6x4xf32>, tensor<1x1x3x3xf32>, none) -> tensor<1x1x6x4xf32>
  return %c : tensor<1x1x6x4xf32>
}

// -----

// AveragePool without pads of its own: the padding is folded and counted.
// CHECK-LABEL: func.func @avgpool
// CHECK-NOT: "graph.Pad"
// CHECK: "graph.AveragePool"(%arg0) <{count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}>
func.func @avgpool(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x5x5xf32> {
  %p = "graph.constant"() <{value = dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>}> : () -> tensor<8xi64>
  %n = "graph.none"() : () -> none
  %xp = "graph.Pad"(%x, %p, %n, %n) : (tensor<1x1x4x4xf32>, tensor<8xi64>, none, none) -> tensor<1x1x6x6xf32>
  %c = "graph.AveragePool"(%xp) <{kernel_shape = array<i64: 2, 2>}> : (tensor<1x1x6x6xf32>) -> tensor<1x1x5x5xf32>
  return %c : tensor<1x1x5x5xf32>
}

// -----

// Negative: an AveragePool that pads without counting the padding.
// CHECK-LABEL: func.func @avgpool_exclusive
// CHECK: "graph.Pad"
func.func @avgpool_exclusive(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x7x7xf32> {
  %p = "graph.constant"() <{value = dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>}> : () -> tensor<8xi64>
  %n = "graph.none"() : () -> none
  %xp = "graph.Pad"(%x, %p, %n, %n) : (tensor<1x1x4x4xf32>, tensor<8xi64>, none, none) -> tensor<1x1x6x6xf32>
  %c = "graph.AveragePool"(%xp) <{kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x6x6xf32>) -> tensor<1x1x7x7xf32>
  return %c : tensor<1x1x7x7xf32>
}

// -----

// MaxPool takes a -inf Pad, not a zero one.
// CHECK-LABEL: func.func @maxpool
// CHECK: %[[P:.*]] = "graph.Pad"
// CHECK: "graph.MaxPool"(%arg0) <{kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}>
// CHECK: "graph.MaxPool"(%[[P]]) <{kernel_shape = array<i64: 2, 2>}>
func.func @maxpool(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x5x5xf32>, tensor<1x1x5x5xf32>) {
  %p = "graph.constant"() <{value = dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>}> : () -> tensor<8xi64>
  %ninf = "graph.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
  %zero = "graph.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %n = "graph.none"() : () -> none
  %a = "graph.Pad"(%x, %p, %ninf, %n) : (tensor<1x1x4x4xf32>, tensor<8xi64>, tensor<f32>, none) -> tensor<1x1x6x6xf32>
  %b = "graph.Pad"(%x, %p, %zero, %n) : (tensor<1x1x4x4xf32>, tensor<8xi64>, tensor<f32>, none) -> tensor<1x1x6x6xf32>
  %ma, %ia = "graph.MaxPool"(%a) <{kernel_shape = array<i64: 2, 2>}> : (tensor<1x1x6x6xf32>) -> (tensor<1x1x5x5xf32>, tensor<1x1x5x5xi64>)
  %mb, %ib = "graph.MaxPool"(%b) <{kernel_shape = array<i64: 2, 2>}> : (tensor<1x1x6x6xf32>) -> (tensor<1x1x5x5xf32>, tensor<1x1x5x5xi64>)
  return %ma, %mb : tensor<1x1x5x5xf32>, tensor<1x1x5x5xf32>
}

// -----

// Negative: a Pad of the channel dimension, and a reflect Pad, stay.
// CHECK-LABEL: func.func @conv_negative
// CHECK-COUNT-2: "graph.Pad"
func.func @conv_negative(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) {
  %pc = "graph.constant"() <{value = dense<[0, 1, 0, 0, 0, 0, 0, 0]> : tensor<8xi64>}> : () -> tensor<8xi64>
  %ph = "graph.constant"() <{value = dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>}> : () -> tensor<8xi64>
  %n = "graph.none"() : () -> none
  %a = "graph.Pad"(%x, %pc, %n, %n) : (tensor<1x1x4x4xf32>, tensor<8xi64>, none, none) -> tensor<1x2x4x4xf32>
  %b = "graph.Pad"(%x, %ph, %n, %n) <{mode = "reflect"}> : (tensor<1x1x4x4xf32>, tensor<8xi64>, none, none) -> tensor<1x1x6x6xf32>
  %w2 = "graph.constant"() <{value = dense<1.0> : tensor<1x2x1x1xf32>}> : () -> tensor<1x2x1x1xf32>
  %w3 = "graph.constant"() <{value = dense<1.0> : tensor<1x1x3x3xf32>}> : () -> tensor<1x1x3x3xf32>
  %ca = "graph.Conv"(%a, %w2, %n) : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>, none) -> tensor<1x1x4x4xf32>
  %cb = "graph.Conv"(%b, %w3, %n) : (tensor<1x1x6x6xf32>, tensor<1x1x3x3xf32>, none) -> tensor<1x1x4x4xf32>
  return %ca, %cb : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
}
