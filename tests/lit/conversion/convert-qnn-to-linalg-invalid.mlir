// RUN: nart-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(convert-qnn-to-linalg)'

// Sub-byte storage is refused with the reason, and the conversion is rolled back: the cast
// that could be lowered stays too.
func.func @sub_byte(%x: tensor<4xf32>, %y: tensor<4x!quant.uniform<i4:f32, 0.5>>) -> (tensor<4x!quant.uniform<i8:f32, 0.1>>, tensor<4x!quant.uniform<i8:f32, 0.25>>) {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1>>
  // expected-error @+2 {{failed to legalize operation 'qnn.requantize' that was explicitly marked illegal}}
  // expected-note @+1 {{pattern 'RequantizeLowering' does not apply: operand #0: i4 storage is not lowered (i8, u8, i16, u16 and i32 are)}}
  %r = qnn.requantize %y : tensor<4x!quant.uniform<i4:f32, 0.5>> to tensor<4x!quant.uniform<i8:f32, 0.25>>
  return %q, %r : tensor<4x!quant.uniform<i8:f32, 0.1>>, tensor<4x!quant.uniform<i8:f32, 0.25>>
}

// -----

// A multiplier of 2^30 or more has no fixed-point form with a right shift.
func.func @huge_multiplier(%x: tensor<4x!quant.uniform<i8:f32, 1.0e+10>>) -> tensor<4x!quant.uniform<i8:f32, 1.0>> {
  // expected-error @+2 {{failed to legalize operation 'qnn.requantize'}}
  // expected-note @+1 {{the requantization multiplier 10000000000 is too large to lower (2^30 or more)}}
  %r = qnn.requantize %x : tensor<4x!quant.uniform<i8:f32, 1.0e+10>> to tensor<4x!quant.uniform<i8:f32, 1.0>>
  return %r : tensor<4x!quant.uniform<i8:f32, 1.0>>
}

// -----

// A dequantization to f16 is not lowered.
func.func @f16_result(%x: tensor<4x!quant.uniform<i8:f16, 0.5>>) -> tensor<4xf16> {
  // expected-error @+2 {{failed to legalize operation 'quant.dcast'}}
  // expected-note @+1 {{only f32 results are lowered}}
  %r = quant.dcast %x : tensor<4x!quant.uniform<i8:f16, 0.5>> to tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

// Per-axis parameters along two different axes would need a multiplier per pair of indices.
func.func @two_axes(%x: tensor<2x2x!quant.uniform<i8:f32:0, {0.5,0.25}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {1.0,2.0}>> {
  // expected-error @+2 {{failed to legalize operation 'qnn.requantize'}}
  // expected-note @+1 {{per-axis parameters along two different axes are not lowered}}
  %r = qnn.requantize %x : tensor<2x2x!quant.uniform<i8:f32:0, {0.5,0.25}>> to tensor<2x2x!quant.uniform<i8:f32:1, {1.0,2.0}>>
  return %r : tensor<2x2x!quant.uniform<i8:f32:1, {1.0,2.0}>>
}
