// RUN: nart-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg))'

// A scale of another type than f32 is refused, so the op falls back to another target.
func.func @quantize_f16_scale(%x: tensor<4xf32>) -> tensor<4xui8> {
  %s = "graph.constant"() <{value = dense<5.0e-01> : tensor<f16>}> : () -> tensor<f16>
  %z = "graph.constant"() <{value = dense<3> : tensor<ui8>}> : () -> tensor<ui8>
  // expected-error @+2 {{failed to legalize operation 'graph.QuantizeLinear'}}
  // expected-note @+1 {{operand #1 (a scale) must be f32 to be lowered}}
  %0 = "graph.QuantizeLinear"(%x, %s, %z) : (tensor<4xf32>, tensor<f16>, tensor<ui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @quantize_blocked(%x: tensor<2x4xf32>) -> tensor<2x4xi8> {
  %s = "graph.constant"() <{value = dense<0.5> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %z = "graph.constant"() <{value = dense<0> : tensor<2x2xi8>}> : () -> tensor<2x2xi8>
  // expected-error @+2 {{failed to legalize operation 'graph.QuantizeLinear'}}
  // expected-note @+1 {{blocked quantization is not lowered}}
  %0 = "graph.QuantizeLinear"(%x, %s, %z) <{axis = 1 : i64, block_size = 2 : i64}> : (tensor<2x4xf32>, tensor<2x2xf32>, tensor<2x2xi8>) -> tensor<2x4xi8>
  return %0 : tensor<2x4xi8>
}

// -----

func.func @quantize_to_int4(%x: tensor<4xf32>) -> tensor<4xi4> {
  %s = "graph.constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %z = "graph.constant"() <{value = dense<1> : tensor<i4>}> : () -> tensor<i4>
  // expected-error @+2 {{failed to legalize operation 'graph.QuantizeLinear'}}
  // expected-note @+1 {{QuantizeLinear to i4 is not lowered (8- and 16-bit integers are)}}
  %0 = "graph.QuantizeLinear"(%x, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<i4>) -> tensor<4xi4>
  return %0 : tensor<4xi4>
}

// -----

// The padding of an integer convolution holds the input's zero point, which must then be known
// at compile time.
func.func @conv_integer_padded_zero_point_at_run_time(%x: tensor<1x1x4x4xui8>, %zx: tensor<ui8>) -> tensor<1x1x4x4xi32> {
  %w = "graph.constant"() <{value = dense<1> : tensor<1x1x3x3xui8>}> : () -> tensor<1x1x3x3xui8>
  %n = "graph.none"() : () -> none
  // expected-error @+2 {{failed to legalize operation 'graph.ConvInteger'}}
  // expected-note @+1 {{ConvInteger: a run-time input zero point with padding is not lowered}}
  %0 = "graph.ConvInteger"(%x, %w, %zx, %n) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x4x4xui8>, tensor<1x1x3x3xui8>, tensor<ui8>, none) -> tensor<1x1x4x4xi32>
  return %0 : tensor<1x1x4x4xi32>
}

// -----

func.func @conv_integer_1d(%x: tensor<1x1x5xui8>, %w: tensor<1x1x3xui8>) -> tensor<1x1x3xi32> {
  %n = "graph.none"() : () -> none
  // expected-error @+2 {{failed to legalize operation 'graph.ConvInteger'}}
  // expected-note @+1 {{only 2-D convolutions (4-D tensors) are lowered}}
  %0 = "graph.ConvInteger"(%x, %w, %n, %n) : (tensor<1x1x5xui8>, tensor<1x1x3xui8>, none, none) -> tensor<1x1x3xi32>
  return %0 : tensor<1x1x3xi32>
}

// -----

// The sum of absolute values of unsigned integers is not lowered (math.absi reads signed).
func.func @reduce_l1_unsigned(%x: tensor<4xui32>) -> tensor<1xui32> {
  %n = "graph.none"() : () -> none
  // expected-error @+2 {{failed to legalize operation 'graph.ReduceL1'}}
  // expected-note @+1 {{ReduceL1 of unsigned integers is not lowered}}
  %0 = "graph.ReduceL1"(%x, %n) : (tensor<4xui32>, none) -> tensor<1xui32>
  return %0 : tensor<1xui32>
}
