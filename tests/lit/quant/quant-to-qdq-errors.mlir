// RUN: nart-opt %s --pass-pipeline='builtin.module(quant-to-qdq)' --split-input-file --verify-diagnostics

// What ONNX cannot hold is an error at the op that holds it, every one at once, and nothing
// changes: a function result of quantized type, a 32-bit QuantizeLinear, a quantized type
// without parameters.
func.func @unexpressible(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{'quant.qcast' op cannot be written as ONNX: ONNX QuantizeLinear has no 32-bit output; only a stored i32 value (a bias) exports}}
  %w = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i32:f32, 0.5>>
  // expected-error @+1 {{'quant.qcast' op has a quantized type without scale and zero point (!quant.any); ONNX needs both}}
  %a = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.any<i8:f32>>
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5>>
  // expected-error @+1 {{'func.return' op has a quantized operand or result and no ONNX equivalent (only quant.qcast, quant.dcast and quant.scast export, as QuantizeLinear and DequantizeLinear)}}
  return %q : tensor<4x!quant.uniform<i8:f32, 0.5>>
}

// -----

// A function argument of quantized type: ONNX graph inputs are plain tensors.
// expected-error @+1 {{'func.func' op has a block argument of quantized type, which ONNX cannot hold (quantize inside the graph instead)}}
func.func @quantized_input(%q: tensor<4x!quant.uniform<u8:f32, 0.5>>) -> tensor<4xf32> {
  %d = quant.dcast %q : tensor<4x!quant.uniform<u8:f32, 0.5>> to tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// A narrowed range of 4-bit storage would need a Clip on int4, which ONNX does not have.
func.func @narrow_int4(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'quant.qcast' op cannot be written as ONNX: the narrowed range [-7, 7] of 4-bit storage needs a Clip, which ONNX has only for 8 bits and more}}
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i4<-7:7>:f32, 0.5>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<i4<-7:7>:f32, 0.5>> to tensor<4xf32>
  return %d : tensor<4xf32>
}
