// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(partition{targets=test-f32})' | filecheck %s --check-prefix=F32
// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(partition{targets=test-int8})' | filecheck %s --check-prefix=INT8
// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(partition)' | filecheck %s --check-prefix=INTERP

// The test chips run Conv, Relu and Add (test-f32 also MaxPool and Gemm); Sigmoid falls back
// to interp. Sigmoid sits between the Relu and the Add, so the Add cannot join the Conv's
// segment: that would make the segments depend on each other both ways.

// F32-LABEL: func.func @conv_net
// F32-NEXT: %0 = target.segment "test-f32"(%arg0) : (tensor<1x1x8x8xf32>) -> tensor<1x8x8x8xf32> {
// F32-NEXT: ^bb0(%arg1: tensor<1x1x8x8xf32>):
// F32-NEXT: %3 = "graph.constant"() <{value = dense<5.000000e-01> : tensor<8x1x3x3xf32>}>
// F32-NEXT: %4 = "graph.constant"() <{value = dense<1.000000e-01> : tensor<8xf32>}>
// F32-NEXT: %5 = "graph.Conv"(%arg1, %3, %4)
// F32-NEXT: %6 = "graph.Relu"(%5)
// F32-NEXT: target.yield %6 : tensor<1x8x8x8xf32>
// F32-NEXT: }
// F32-NEXT: %1 = target.segment "interp"(%0) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
// F32-NEXT: ^bb0(%arg1: tensor<1x8x8x8xf32>):
// F32-NEXT: %3 = "graph.Sigmoid"(%arg1)
// F32-NEXT: target.yield %3 : tensor<1x8x8x8xf32>
// F32-NEXT: }
// F32-NEXT: %2 = target.segment "test-f32"(%1, %0) : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
// F32-NEXT: ^bb0(%arg1: tensor<1x8x8x8xf32>, %arg2: tensor<1x8x8x8xf32>):
// F32-NEXT: %3 = "graph.Add"(%arg1, %arg2)
// F32-NEXT: target.yield %3 : tensor<1x8x8x8xf32>
// F32-NEXT: }
// F32-NEXT: return %2 : tensor<1x8x8x8xf32>

// At the int8 chip's boundaries the values are quantized: qcast where a float value enters,
// dcast where a quantized one leaves, and the QDQ form inside the chip's segments.
// INT8-LABEL: func.func @conv_net
// INT8-NEXT: %0 = quant.qcast %arg0 : tensor<1x1x8x8xf32> to tensor<1x1x8x8x!quant.uniform<i8:f32, 3.125000e-02>>
// INT8-NEXT: %1 = target.segment "test-int8"(%0)
// INT8-NEXT: ^bb0(%arg1: tensor<1x1x8x8x!quant.uniform<i8:f32, 3.125000e-02>>):
// INT8: quant.dcast %arg1
// INT8: "graph.Conv"
// INT8-NEXT: %[[R:.*]] = "graph.Relu"
// INT8-NEXT: %[[Q:.*]] = quant.qcast %[[R]]
// INT8-NEXT: target.yield %[[Q]]
// INT8: %2 = quant.dcast %1
// INT8-NEXT: %3 = target.segment "interp"(%2)
// INT8: %4 = quant.qcast %3
// INT8-NEXT: %5 = target.segment "test-int8"(%4, %1)
// INT8: %6 = quant.dcast %5
// INT8-NEXT: return %6

// With no list, everything is on interp, in one segment.
// INTERP-LABEL: func.func @conv_net
// INTERP-NEXT: %0 = target.segment "interp"(%arg0)
// INTERP-NOT: target.segment
// INTERP: return %0
func.func @conv_net(%x: tensor<1x1x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = "graph.constant"() <{value = dense<5.000000e-01> : tensor<8x1x3x3xf32>}> : () -> tensor<8x1x3x3xf32>
  %b = "graph.constant"() <{value = dense<1.000000e-01> : tensor<8xf32>}> : () -> tensor<8xf32>
  %c = "graph.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x8x8xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32> loc("conv1")
  %r = "graph.Relu"(%c) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("relu1")
  %s = "graph.Sigmoid"(%r) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("sig")
  %a = "graph.Add"(%s, %r) : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("add")
  return %a : tensor<1x8x8x8xf32>
}

// -----

// Two independent branches on the chip, joined on interp: each branch is its own segment
// (they are not connected), and a value used by two segments is one operand of each.
// F32-LABEL: func.func @branches
// F32-NEXT: %0 = target.segment "test-f32"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// F32: "graph.Relu"
// F32: %1 = target.segment "test-f32"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// F32: "graph.Add"(%arg1, %arg1)
// F32: %2 = target.segment "interp"(%0, %1)
// F32: "graph.Mul"
// F32: return %2
func.func @branches(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "graph.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %a = "graph.Add"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = "graph.Mul"(%r, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// A function that already holds segments is left alone.
// F32-LABEL: func.func @done
// F32-NEXT: %0 = target.segment "interp"(%arg0)
// F32-NEXT: ^bb0(%arg1: tensor<4xf32>):
// F32-NEXT: %1 = "graph.Relu"(%arg1)
func.func @done(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = target.segment "interp"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %r = "graph.Relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    target.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
