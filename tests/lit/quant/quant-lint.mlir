// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(quant-lint))' --split-input-file --verify-diagnostics

// Every float compute op reading a dequantized value gets a warning at its location naming the
// operands and a remark saying why it is not an integer qnn op; data movement (Reshape) and the
// quant casts do not count; a remark gives the count.

// expected-remark @+1 {{quant-lint: 2 float compute ops read dequantized values (3 edges)}}
func.func @mixed(%x: tensor<2x2xf32>) -> tensor<4xf32> {
  %s = "graph.constant"() <{value = dense<4> : tensor<1xi64>}> : () -> tensor<1xi64>
  %q = quant.qcast %x : tensor<2x2xf32> to tensor<2x2x!quant.uniform<u8:f32, 0.5>>
  %d = quant.dcast %q : tensor<2x2x!quant.uniform<u8:f32, 0.5>> to tensor<2x2xf32>
  %wi = "graph.constant"() <{value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>}> : () -> tensor<2x2xi8>
  %ws = quant.scast %wi : tensor<2x2xi8> to tensor<2x2x!quant.uniform<i8:f32, 0.25>>
  %w = quant.dcast %ws : tensor<2x2x!quant.uniform<i8:f32, 0.25>> to tensor<2x2xf32>
  // expected-remark @+2 {{'graph.MatMul' stays float: its result is not quantized (no quant.qcast reads it), so no qnn op can produce it}}
  // expected-warning @+1 {{'graph.MatMul' computes in float on dequantized operands #0 ('argument #0'), #1 ('result #0 of 'graph.constant'')}}
  %m = "graph.MatMul"(%d, %w) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // expected-remark @+2 {{'graph.Sigmoid' stays float: its result is not quantized (no quant.qcast reads it), so no qnn op can produce it}}
  // expected-warning @+1 {{'graph.Sigmoid' computes in float on dequantized operand #0 ('argument #0')}}
  %g = "graph.Sigmoid"(%d) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %a = "graph.Add"(%m, %g) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = "graph.Reshape"(%d, %s) : (tensor<2x2xf32>, tensor<1xi64>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A dequantize of an imported QDQ model (graph.DequantizeLinear) counts too.
// expected-remark @+1 {{quant-lint: 1 float compute op reads dequantized values (1 edge)}}
func.func @onnx_qdq(%x: tensor<4xui8>) -> tensor<4xf32> {
  %s = "graph.constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %z = "graph.constant"() <{value = dense<3> : tensor<ui8>}> : () -> tensor<ui8>
  %d = "graph.DequantizeLinear"(%x, %s, %z) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  // expected-remark @+2 {{'graph.Relu' stays float: operand #0 is dequantized by graph.DequantizeLinear, not quant.dcast (imported QDQ ONNX must become quant casts first)}}
  // expected-warning @+1 {{'graph.Relu' computes in float on dequantized operand #0 ('argument #0')}}
  %r = "graph.Relu"(%d) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Nothing to report in a float function: only the summary.
// expected-remark @+1 {{quant-lint: 0 float compute ops read dequantized values (0 edges)}}
func.func @float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "graph.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
