// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-lower-qnn)' --split-input-file | filecheck %s
// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-lower-qnn,func.func(quant-lint))' --split-input-file --verify-diagnostics

// Hand-written QDQ chains: what lowers, and what stays float with the reason quant-lint gives.

// A dcast straight into a qcast is a requantization; into a qcast of the same type, nothing.
// CHECK-LABEL: func.func @requantize
// CHECK-NEXT: %[[R:.*]] = qnn.requantize %arg0 : tensor<4x!quant.uniform<i8:f32, 1.000000e-01>> to tensor<4x!quant.uniform<u8:f32, 2.000000e-01:128>>
// CHECK-NEXT: return %[[R]], %arg0
// expected-remark @+1 {{quant-lint: 0 float compute ops read dequantized values (0 edges)}}
func.func @requantize(%q: tensor<4x!quant.uniform<i8:f32, 0.1>>) -> (tensor<4x!quant.uniform<u8:f32, 0.2:128>>, tensor<4x!quant.uniform<i8:f32, 0.1>>) {
  %d = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<4xf32>
  %r = quant.qcast %d : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.2:128>>
  %s = quant.qcast %d : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1>>
  return %r, %s : tensor<4x!quant.uniform<u8:f32, 0.2:128>>, tensor<4x!quant.uniform<i8:f32, 0.1>>
}

// -----

// Sigmoid, HardSwish and Gelu between a dcast and a qcast become tables of 2^bits entries:
// sigmoid of a u2 input at scale 1 (inputs 0..3 stand for -2..1 with zero point 2) is
// 0.119, 0.269, 0.5, 0.731, stored at scale 1/4: 0, 1, 2, 3.
// CHECK-LABEL: func.func @tables
// CHECK-NEXT: %[[S:.*]] = qnn.lut %arg0 table [0, 1, 2, 3] : tensor<4x!quant.uniform<u2:f32, 1.000000e+00:2>> to tensor<4x!quant.uniform<u8:f32, 2.500000e-01>>
// CHECK-NEXT: %[[H:.*]] = qnn.lut %arg0 table [-1, -1, 0, 1] : tensor<4x!quant.uniform<u2:f32, 1.000000e+00:2>> to tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK-NEXT: %[[G:.*]] = qnn.lut %arg0 table [0, -2, 0, 8]
// CHECK-NEXT: return %[[S]], %[[H]], %[[G]]
// expected-remark @+1 {{quant-lint: 0 float compute ops read dequantized values (0 edges)}}
func.func @tables(%q: tensor<4x!quant.uniform<u2:f32, 1.0:2>>) -> (tensor<4x!quant.uniform<u8:f32, 0.25>>, tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4x!quant.uniform<i8:f32, 0.1>>) {
  %d = quant.dcast %q : tensor<4x!quant.uniform<u2:f32, 1.0:2>> to tensor<4xf32>
  %s = "graph.Sigmoid"(%d) : (tensor<4xf32>) -> tensor<4xf32>
  %sq = quant.qcast %s : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.25>>
  %h = "graph.HardSwish"(%d) : (tensor<4xf32>) -> tensor<4xf32>
  %hq = quant.qcast %h : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5>>
  %g = "graph.Gelu"(%d) : (tensor<4xf32>) -> tensor<4xf32>
  %gq = quant.qcast %g : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1>>
  return %sq, %hq, %gq : tensor<4x!quant.uniform<u8:f32, 0.25>>, tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4x!quant.uniform<i8:f32, 0.1>>
}

// -----

// Per-block (w4-group) weights stay in the QDQ form, even with quantized activations.
// CHECK-LABEL: func.func @per_block
// CHECK: "graph.MatMul"
// CHECK-NOT: qnn.
// CHECK: return
// expected-remark @+1 {{quant-lint: 1 float compute op reads dequantized values (2 edges)}}
func.func @per_block(%x: tensor<1x4x!quant.uniform<u8:f32, 0.1>>) -> tensor<1x2x!quant.uniform<u8:f32, 0.2>> {
  %xd = quant.dcast %x : tensor<1x4x!quant.uniform<u8:f32, 0.1>> to tensor<1x4xf32>
  %wi = "graph.constant"() <{value = dense<[[1, 2], [3, 4], [5, 6], [7, -8]]> : tensor<4x2xi4>}> : () -> tensor<4x2xi4>
  %ws = quant.scast %wi : tensor<4x2xi4> to tensor<4x2x!quant.uniform<i4:f32:{0:2,1:1}, {{0.1,0.2},{0.3,0.4}}>>
  %w = quant.dcast %ws : tensor<4x2x!quant.uniform<i4:f32:{0:2,1:1}, {{0.1,0.2},{0.3,0.4}}>> to tensor<4x2xf32>
  // expected-warning @+2 {{'graph.MatMul' computes in float on dequantized operands #0 ('argument #0'), #1 ('result #0 of 'graph.constant'')}}
  // expected-remark @+1 {{'graph.MatMul' stays float: operand #1 of the qnn op would be quantized per block (as w4-group weights are); qnn ops take per-tensor or per-channel parameters}}
  %m = "graph.MatMul"(%xd, %w) : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  %mq = quant.qcast %m : tensor<1x2xf32> to tensor<1x2x!quant.uniform<u8:f32, 0.2>>
  return %mq : tensor<1x2x!quant.uniform<u8:f32, 0.2>>
}

// -----

// MaxPool keeps its input's parameters: a qcast to other parameters does not verify as
// qnn.max_pool, so the chain stays (data movement, which the lint does not count). A result the
// float code also reads stays float, and the lint says so.
// CHECK-LABEL: func.func @refused
// CHECK: "graph.MaxPool"
// CHECK: "graph.Add"
// CHECK-NOT: qnn.
// CHECK: return
// expected-remark @+1 {{quant-lint: 1 float compute op reads dequantized values (2 edges)}}
func.func @refused(%x: tensor<1x1x2x2x!quant.uniform<u8:f32, 0.1>>) -> (tensor<1x1x1x1x!quant.uniform<u8:f32, 0.2>>, tensor<1x1x2x2x!quant.uniform<u8:f32, 0.2>>, tensor<1x1x2x2xf32>) {
  %xd = quant.dcast %x : tensor<1x1x2x2x!quant.uniform<u8:f32, 0.1>> to tensor<1x1x2x2xf32>
  %p:2 = "graph.MaxPool"(%xd) <{kernel_shape = array<i64: 2, 2>}> : (tensor<1x1x2x2xf32>) -> (tensor<1x1x1x1xf32>, none)
  %pq = quant.qcast %p#0 : tensor<1x1x1x1xf32> to tensor<1x1x1x1x!quant.uniform<u8:f32, 0.2>>
  // expected-warning @+2 {{'graph.Add' computes in float on dequantized operands #0 ('argument #0'), #1 ('argument #0')}}
  // expected-remark @+1 {{'graph.Add' stays float: its result also has float users, so the op must stay float}}
  %a = "graph.Add"(%xd, %xd) : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %aq = quant.qcast %a : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!quant.uniform<u8:f32, 0.2>>
  return %pq, %aq, %a : tensor<1x1x1x1x!quant.uniform<u8:f32, 0.2>>, tensor<1x1x2x2x!quant.uniform<u8:f32, 0.2>>, tensor<1x1x2x2xf32>
}
