// RUN: nart-opt %s --pass-pipeline='builtin.module(partition{targets=test-f32 place=relu1=interp,graph.Add=test-int8})' | filecheck %s
// RUN: nart-opt %s --pass-pipeline='builtin.module(partition{targets=test-f32 place=*=interp,conv1=test-f32})' | filecheck %s --check-prefix=LAST

// Overrides win over the preference order: relu1 by name goes to interp, where it joins the
// Sigmoid, and every Add by type to test-int8, which is not in the list (so its operands are
// quantized on the way in and its result dequantized on the way out).
// CHECK-LABEL: func.func @conv_net
// CHECK-NEXT: %0 = target.segment "test-f32"(%arg0)
// CHECK: "graph.Conv"
// CHECK: %1:2 = target.segment "interp"(%0)
// CHECK: %[[R:.*]] = "graph.Relu"
// CHECK-NEXT: %[[S:.*]] = "graph.Sigmoid"(%[[R]])
// CHECK-NEXT: target.yield %[[R]], %[[S]]
// CHECK: %2 = quant.qcast %1#1
// CHECK-NEXT: %3 = quant.qcast %1#0
// CHECK-NEXT: %4 = target.segment "test-int8"(%2, %3)
// CHECK: "graph.Add"
// CHECK: %5 = quant.dcast %4
// CHECK-NEXT: return %5

// When several overrides match an op, the last one wins: everything on interp but conv1.
// LAST-LABEL: func.func @conv_net
// LAST-NEXT: %0 = target.segment "test-f32"(%arg0)
// LAST: "graph.Conv"
// LAST: %1 = target.segment "interp"(%0)
// LAST: "graph.Relu"
// LAST-NEXT: "graph.Sigmoid"
// LAST-NEXT: "graph.Add"
func.func @conv_net(%x: tensor<1x1x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = "graph.constant"() <{value = dense<5.000000e-01> : tensor<8x1x3x3xf32>}> : () -> tensor<8x1x3x3xf32>
  %b = "graph.constant"() <{value = dense<1.000000e-01> : tensor<8xf32>}> : () -> tensor<8xf32>
  %c = "graph.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x8x8xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32> loc("conv1")
  %r = "graph.Relu"(%c) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("relu1")
  %s = "graph.Sigmoid"(%r) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("sig")
  %a = "graph.Add"(%s, %r) : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("add")
  return %a : tensor<1x8x8x8xf32>
}
