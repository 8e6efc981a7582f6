// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-from-qdq{lint=false})' --split-input-file | filecheck %s
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(quant-from-qdq))' --split-input-file --verify-diagnostics

// ONNX Runtime's QDQ form: a QuantizeLinear whose users are DequantizeLinear ops with the same
// parameters becomes a qcast/dcast pair (one dcast per user), an int8 initializer behind a
// DequantizeLinear becomes stored integers; the scale and zero-point constants go when nothing
// else reads them. The lint warns about the float Conv on dequantized values.
// CHECK-LABEL: func.func @ort_qdq
// CHECK-NEXT: %[[N:.*]] = "graph.none"
// CHECK-NEXT: %[[Q:.*]] = quant.qcast %arg0 : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!quant.uniform<u8:f32, 2.500000e-01:128>>
// CHECK-NEXT: %[[X:.*]] = quant.dcast %[[Q]] : tensor<1x2x2x2x!quant.uniform<u8:f32, 2.500000e-01:128>> to tensor<1x2x2x2xf32>
// CHECK-NEXT: %[[WI:.*]] = "graph.constant"() <{value = dense<{{.*}}> : tensor<1x2x1x1xi8>}>
// CHECK-NEXT: %[[WS:.*]] = quant.scast %[[WI]] : tensor<1x2x1x1xi8> to tensor<1x2x1x1x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK-NEXT: %[[W:.*]] = quant.dcast %[[WS]]
// CHECK-NEXT: %[[C:.*]] = "graph.Conv"(%[[X]], %[[W]], %[[N]])
// CHECK-NEXT: %[[X2:.*]] = quant.dcast %[[Q]]
// CHECK-NEXT: %[[A:.*]] = "graph.Add"(%[[C]], %[[X2]])
// CHECK-NEXT: return %[[A]]
// expected-remark @+1 {{quant-from-qdq: lifted 1 quantize, 3 dequantize and 1 stored integers (0 left as ONNX ops); 2 float compute ops read dequantized values}}
func.func @ort_qdq(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %s = "graph.constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
  %z = "graph.constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %ws = "graph.constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %wz = "graph.constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
  %w = "graph.constant"() <{value = dense<[[[[3]], [[-4]]]]> : tensor<1x2x1x1xi8>}> : () -> tensor<1x2x1x1xi8>
  %n = "graph.none"() : () -> none
  %q = "graph.QuantizeLinear"(%x, %s, %z) : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xui8>
  %d = "graph.DequantizeLinear"(%q, %s, %z) : (tensor<1x2x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xf32>
  %wd = "graph.DequantizeLinear"(%w, %ws, %wz) : (tensor<1x2x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x1x1xf32>
  // expected-warning @+1 {{'graph.Conv' computes in float on dequantized operands #0 ('argument #0'), #1 ('result #0 of 'graph.constant'')}}
  %c = "graph.Conv"(%d, %wd, %n) <{kernel_shape = array<i64: 1, 1>}> : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>, none) -> tensor<1x1x2x2xf32>
  %d2 = "graph.DequantizeLinear"(%q, %s, %z) : (tensor<1x2x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xf32>
  // expected-warning @+1 {{'graph.Add' computes in float on dequantized operand #1 ('argument #0')}}
  %a = "graph.Add"(%c, %d2) : (tensor<1x1x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %a : tensor<1x2x2x2xf32>
}

// -----

// What has no quant form stays: a QuantizeLinear read by an op other than a matching
// DequantizeLinear (a QOperator consumer), a DequantizeLinear whose scale is computed at run time.
// CHECK-LABEL: func.func @left
// CHECK: "graph.QuantizeLinear"
// CHECK: "graph.DequantizeLinear"
// CHECK: "graph.DequantizeLinear"
// CHECK-NOT: quant.
// expected-remark @+1 {{quant-from-qdq: lifted 0 quantize, 0 dequantize and 0 stored integers (3 left as ONNX ops); 0 float compute ops read dequantized values}}
func.func @left(%x: tensor<4xf32>, %rs: tensor<f32>) -> (tensor<4xui8>, tensor<4xf32>, tensor<4xf32>) {
  %s = "graph.constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
  %z = "graph.constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %q = "graph.QuantizeLinear"(%x, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  %d = "graph.DequantizeLinear"(%q, %s, %z) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  %r = "graph.DequantizeLinear"(%q, %rs, %z) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  return %q, %d, %r : tensor<4xui8>, tensor<4xf32>, tensor<4xf32>
}
