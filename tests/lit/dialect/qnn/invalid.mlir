// RUN: nart-opt %s --split-input-file --verify-diagnostics

// One case per rule of the qnn verifiers (dialects/qnn/src/verify.rs).

// Operands are ranked tensors of uniform quantized types.
func.func @case0(%a: tensor<4xf32>, %b: tensor<4x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{'qnn.add' op operand #0 must be ranked tensor of uniform quantized type, but got 'tensor<4xf32>'}}
  %0 = qnn.add %a, %b : (tensor<4xf32>, tensor<4x!quant.uniform<i8:f32, 0.1>>) -> tensor<4x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// Window properties are i64 arrays.
func.func @case1(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{'qnn.conv' op attribute 'strides' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "qnn.conv"(%x, %w) <{strides = array<i32: 1, 1>}> : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// A convolution's input has a batch, channels and at least one spatial dimension.
func.func @case2(%x: tensor<4x8x!quant.uniform<u8:f32, 0.02>>, %w: tensor<6x4x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{input must have rank 3 or more, got 2}}
  %0 = qnn.conv %x, %w : (tensor<4x8x!quant.uniform<u8:f32, 0.02>>, tensor<6x4x!quant.uniform<i8:f32, 0.01>>) -> tensor<6x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// The weight has the input's rank.
func.func @case3(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{weight must have rank 4, got 3}}
  %0 = qnn.conv %x, %w : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// Strides: one per spatial dimension.
func.func @case4(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{strides must have 2 entries, got 1}}
  %0 = qnn.conv %x, %w strides [1] : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// Strides are positive.
func.func @case5(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{strides must be positive, got 0}}
  %0 = qnn.conv %x, %w strides [1, 0] : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// Pads: a beginning and an end per spatial dimension, none negative.
func.func @case6(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{pads must be non-negative, got -1}}
  %0 = qnn.conv %x, %w pads [1, 1, -1, 1] : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// Dilations are positive.
func.func @case7(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{dilations must be positive, got 0}}
  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] dilations [0, 1] : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// The group count is positive.
func.func @case8(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{group must be positive, got 0}}
  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] {group = 0 : i64} : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// Input channels are the weight's channels per group times the groups.
func.func @case9(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{input has 4 channels, but the weight has 4 per group × 2 groups}}
  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] {group = 2 : i64} : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// The groups divide the output channels.
func.func @case10(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x1x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{4 groups do not divide the weight's 6 output channels}}
  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] {group = 4 : i64} : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x1x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// The result has the input's batch and the weight's output channels.
func.func @case11(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{result must be 1 × 6 (batch × weight output channels) × ..., got [1, 4, 8, 8]}}
  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x4x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// The window fits the padded input.
func.func @case12(%x: tensor<1x4x2x2x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{window of 3 does not fit spatial dimension 0 of size 2 (padded)}}
  %0 = qnn.conv %x, %w : (tensor<1x4x2x2x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x1x1x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// Spatial result sizes follow from the window, strides, pads and dilations.
func.func @case13(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{result spatial dimension 0 must be 6, got 8}}
  %0 = qnn.conv %x, %w : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// Activations are quantized per tensor.
func.func @case14(%x: tensor<1x4x8x8x!quant.uniform<u8:f32:1, {0.1, 0.1, 0.1, 0.1}>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{input must be quantized per tensor}}
  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] : (tensor<1x4x8x8x!quant.uniform<u8:f32:1, {0.1, 0.1, 0.1, 0.1}>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// Weights are quantized per tensor or per output channel (axis 0).
func.func @case15(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32:1, {0.1, 0.1, 0.1, 0.1}>>) {
  // expected-error @+1 {{weight must be quantized per tensor or along axis 0, not axis 1}}
  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32:1, {0.1, 0.1, 0.1, 0.1}>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// A per-axis type has one scale per index of its axis.
func.func @case16(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32:0, {0.1, 0.1, 0.1}>>) {
  // expected-error @+1 {{weight: quantized dimension size does not match number of scales}}
  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32:0, {0.1, 0.1, 0.1}>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// Per-block quantization is not supported.
func.func @case17(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i4:f32:{1:2}, {{0.1, 0.1}, {0.1, 0.1}, {0.1, 0.1}, {0.1, 0.1}, {0.1, 0.1}, {0.1, 0.1}}>>) {
  // expected-error @+1 {{weight is quantized per block, which qnn ops do not support}}
  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i4:f32:{1:2}, {{0.1, 0.1}, {0.1, 0.1}, {0.1, 0.1}, {0.1, 0.1}, {0.1, 0.1}, {0.1, 0.1}}>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// Inputs and weights are stored in at most 16 bits.
func.func @case18(%x: tensor<1x4x8x8x!quant.uniform<i32:f32, 0.02>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{input storage must be at most 16 bits wide, got 32}}
  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] : (tensor<1x4x8x8x!quant.uniform<i32:f32, 0.02>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// Every operand expresses the same float type.
func.func @case19(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f16, 0.01>>) {
  // expected-error @+1 {{expressed types must match: input expresses f32, weight expresses f16}}
  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f16, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// The bias has one value per output channel.
func.func @case20(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>, %b: tensor<4x!quant.uniform<i32:f32, 2.0e-4>>) {
  // expected-error @+1 {{bias must have shape [6], got [4]}}
  %0 = qnn.conv %x, %w, %b pads [1, 1, 1, 1] : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>, tensor<4x!quant.uniform<i32:f32, 2.0e-4>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// The bias is stored as i32.
func.func @case21(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>, %b: tensor<6x!quant.uniform<i16:f32, 2.0e-4>>) {
  // expected-error @+1 {{bias storage must be i32, got i16}}
  %0 = qnn.conv %x, %w, %b pads [1, 1, 1, 1] : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>, tensor<6x!quant.uniform<i16:f32, 2.0e-4>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// The bias has zero point 0.
func.func @case22(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>, %b: tensor<6x!quant.uniform<i32:f32, 2.0e-4:3>>) {
  // expected-error @+1 {{bias zero point must be 0}}
  %0 = qnn.conv %x, %w, %b pads [1, 1, 1, 1] : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>, tensor<6x!quant.uniform<i32:f32, 2.0e-4:3>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// The bias scale is the input scale times the weight scale, channel by channel.
func.func @case23(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32:0, {0.01, 0.02, 0.01, 0.01, 0.01, 0.01}>>, %b: tensor<6x!quant.uniform<i32:f32, 2.0e-4>>) {
  // expected-error @+1 {{bias scale 2.000000e-4 of channel 1 must be input scale × weight scale = 4.000000e-4 (relative tolerance 1e-6)}}
  %0 = qnn.conv %x, %w, %b pads [1, 1, 1, 1] : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32:0, {0.01, 0.02, 0.01, 0.01, 0.01, 0.01}>>, tensor<6x!quant.uniform<i32:f32, 2.0e-4>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// A clip activation has both bounds.
func.func @case24(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{activation clip needs both clip_min and clip_max}}
  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] act<clip> : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// Clip bounds are ordered.
func.func @case25(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{clip_min 2 must not be greater than clip_max 1}}
  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] act<clip> bounds(2.0, 1.0) : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// Other activations have no bounds.
func.func @case26(%x: tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) {
  // expected-error @+1 {{clip_min and clip_max are only allowed with activation clip}}
  %0 = qnn.conv %x, %w pads [1, 1, 1, 1] act<relu6> bounds(0.0, 1.0) : (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<6x4x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x6x8x8x!quant.uniform<u8:f32, 0.05>>
  return
}

// -----

// Matmul operands are matrices or batches of them.
func.func @case27(%a: tensor<4x!quant.uniform<i8:f32, 0.1>>, %b: tensor<4x3x!quant.uniform<i8:f32, 0.2>>) {
  // expected-error @+1 {{lhs must have rank 2 or more, got 1}}
  %0 = qnn.matmul %a, %b : (tensor<4x!quant.uniform<i8:f32, 0.1>>, tensor<4x3x!quant.uniform<i8:f32, 0.2>>) -> tensor<3x!quant.uniform<i8:f32, 0.5>>
  return
}

// -----

// The inner dimensions agree.
func.func @case28(%a: tensor<5x4x!quant.uniform<i8:f32, 0.1>>, %b: tensor<3x3x!quant.uniform<i8:f32, 0.2>>) {
  // expected-error @+1 {{lhs has 4 columns, but rhs has 3 rows}}
  %0 = qnn.matmul %a, %b : (tensor<5x4x!quant.uniform<i8:f32, 0.1>>, tensor<3x3x!quant.uniform<i8:f32, 0.2>>) -> tensor<5x3x!quant.uniform<i8:f32, 0.5>>
  return
}

// -----

// Batch dimensions broadcast.
func.func @case29(%a: tensor<2x5x4x!quant.uniform<i8:f32, 0.1>>, %b: tensor<3x4x3x!quant.uniform<i8:f32, 0.2>>) {
  // expected-error @+1 {{batch dimensions [2] and [3] do not broadcast}}
  %0 = qnn.matmul %a, %b : (tensor<2x5x4x!quant.uniform<i8:f32, 0.1>>, tensor<3x4x3x!quant.uniform<i8:f32, 0.2>>) -> tensor<2x5x3x!quant.uniform<i8:f32, 0.5>>
  return
}

// -----

// The result is the broadcast batch by rows by columns.
func.func @case30(%a: tensor<2x5x4x!quant.uniform<i8:f32, 0.1>>, %b: tensor<4x3x!quant.uniform<i8:f32, 0.2>>) {
  // expected-error @+1 {{result shape must be [2, 5, 3], got [2, 5, 4]}}
  %0 = qnn.matmul %a, %b : (tensor<2x5x4x!quant.uniform<i8:f32, 0.1>>, tensor<4x3x!quant.uniform<i8:f32, 0.2>>) -> tensor<2x5x4x!quant.uniform<i8:f32, 0.5>>
  return
}

// -----

// The right-hand side is quantized per tensor or per column (its last axis).
func.func @case31(%a: tensor<5x4x!quant.uniform<i8:f32, 0.1>>, %b: tensor<4x3x!quant.uniform<i8:f32:0, {0.2, 0.2, 0.2, 0.2}>>) {
  // expected-error @+1 {{rhs must be quantized per tensor or along axis 1, not axis 0}}
  %0 = qnn.matmul %a, %b : (tensor<5x4x!quant.uniform<i8:f32, 0.1>>, tensor<4x3x!quant.uniform<i8:f32:0, {0.2, 0.2, 0.2, 0.2}>>) -> tensor<5x3x!quant.uniform<i8:f32, 0.5>>
  return
}

// -----

// A matmul bias has one value per column, with scale lhs scale times rhs scale.
func.func @case32(%a: tensor<5x4x!quant.uniform<i8:f32, 0.1>>, %b: tensor<4x3x!quant.uniform<i8:f32, 0.2>>, %c: tensor<3x!quant.uniform<i32:f32, 0.03>>) {
  // expected-error @+1 {{bias scale 3.000000e-2 of channel 0 must be input scale × weight scale = 2.000000e-2 (relative tolerance 1e-6)}}
  %0 = qnn.matmul %a, %b, %c : (tensor<5x4x!quant.uniform<i8:f32, 0.1>>, tensor<4x3x!quant.uniform<i8:f32, 0.2>>, tensor<3x!quant.uniform<i32:f32, 0.03>>) -> tensor<5x3x!quant.uniform<i8:f32, 0.5>>
  return
}

// -----

// Elementwise operands broadcast.
func.func @case33(%a: tensor<2x3x!quant.uniform<i8:f32, 0.1>>, %b: tensor<4x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{operand shapes [2, 3] and [4] do not broadcast}}
  %0 = qnn.add %a, %b : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<4x!quant.uniform<i8:f32, 0.1>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// The result has the broadcast shape.
func.func @case34(%a: tensor<2x3x!quant.uniform<i8:f32, 0.1>>, %b: tensor<3x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{result shape must be [2, 3], got [3]}}
  %0 = qnn.mul %a, %b : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<3x!quant.uniform<i8:f32, 0.1>>) -> tensor<3x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// Elementwise ops take per-tensor types only.
func.func @case35(%a: tensor<2x3x!quant.uniform<i8:f32, 0.1>>, %b: tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>>) {
  // expected-error @+1 {{rhs must be quantized per tensor}}
  %0 = qnn.mul %a, %b : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.3}>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// A concatenation has inputs.
func.func @case36() {
  // expected-error @+1 {{needs at least one input}}
  %0 = "qnn.concat"() <{axis = 0 : i64}> : () -> tensor<0x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// The axis is a dimension of the result.
func.func @case37(%a: tensor<2x3x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = qnn.concat %a, %a {axis = 2 : i64} : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<2x3x!quant.uniform<i8:f32, 0.1>>) -> tensor<4x3x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// Every input has the result's rank.
func.func @case38(%a: tensor<2x3x!quant.uniform<i8:f32, 0.1>>, %b: tensor<3x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{input #1 must have rank 2, got 1}}
  %0 = qnn.concat %a, %b {axis = 0 : i64} : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<3x!quant.uniform<i8:f32, 0.1>>) -> tensor<3x3x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// Inputs agree with the result off the axis.
func.func @case39(%a: tensor<2x3x!quant.uniform<i8:f32, 0.1>>, %b: tensor<1x4x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{input #1 has 4 in dimension 1, but the result has 3}}
  %0 = qnn.concat %a, %b {axis = 0 : i64} : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<1x4x!quant.uniform<i8:f32, 0.1>>) -> tensor<3x3x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// Along the axis, the result is as long as the inputs together.
func.func @case40(%a: tensor<2x3x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{result has 5 along axis 0, but the inputs have 4 together}}
  %0 = qnn.concat %a, %a {axis = 0 : i64} : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<2x3x!quant.uniform<i8:f32, 0.1>>) -> tensor<5x3x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// The axis is required.
func.func @case41(%a: tensor<2x3x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{'qnn.concat' op requires attribute 'axis'}}
  %0 = qnn.concat %a, %a : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<2x3x!quant.uniform<i8:f32, 0.1>>) -> tensor<4x3x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// A pooling window has one size per spatial dimension.
func.func @case42(%x: tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>>) {
  // expected-error @+1 {{kernel_shape must have 2 entries, got 1}}
  %0 = qnn.avg_pool %x kernel [2] : tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>> to tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>>
  return
}

// -----

// Padding is smaller than the window.
func.func @case43(%x: tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>>) {
  // expected-error @+1 {{pads must be smaller than the window, got 2 and 0 for window 2}}
  %0 = qnn.avg_pool %x kernel [2, 2] pads [2, 0, 0, 0] : tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>> to tensor<1x2x6x4x!quant.uniform<u8:f32, 0.1:3>>
  return
}

// -----

// Pooling keeps the batch and the channels.
func.func @case44(%x: tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>>) {
  // expected-error @+1 {{result must keep the input's batch and channels [1, 2], got [1, 3]}}
  %0 = qnn.max_pool %x kernel [1, 1] : tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>> to tensor<1x3x5x5x!quant.uniform<u8:f32, 0.1:3>>
  return
}

// -----

// Max pooling keeps the element type.
func.func @case45(%x: tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>>) {
  // expected-error @+1 {{result element type must equal the input element type}}
  %0 = qnn.max_pool %x kernel [1, 1] : tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>> to tensor<1x2x5x5x!quant.uniform<u8:f32, 0.2:3>>
  return
}

// -----

// The result's spatial sizes follow from the window.
func.func @case46(%x: tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>>) {
  // expected-error @+1 {{result spatial dimension 0 must be 2, got 3}}
  %0 = qnn.avg_pool %x kernel [2, 2] strides [2, 2] : tensor<1x2x5x5x!quant.uniform<u8:f32, 0.1:3>> to tensor<1x2x3x3x!quant.uniform<u8:f32, 0.1:3>>
  return
}

// -----

// Lookup tables take inputs of at most 8 bits.
func.func @case47(%x: tensor<4x!quant.uniform<i16:f32, 0.1>>) {
  // expected-error @+1 {{input storage must be at most 8 bits wide, got 16}}
  %0 = qnn.lut %x table [0] : tensor<4x!quant.uniform<i16:f32, 0.1>> to tensor<4x!quant.uniform<i8:f32, 0.1>>
  return
}

// -----

// A table has one entry per stored input value.
func.func @case48(%x: tensor<4x!quant.uniform<u2:f32, 0.1>>) {
  // expected-error @+1 {{table must have 2^2 = 4 entries, got 3}}
  %0 = qnn.lut %x table [0, 1, 2] : tensor<4x!quant.uniform<u2:f32, 0.1>> to tensor<4x!quant.uniform<u8:f32, 0.1>>
  return
}

// -----

// Table entries are stored results.
func.func @case49(%x: tensor<4x!quant.uniform<u2:f32, 0.1>>) {
  // expected-error @+1 {{table entry #1 (300) is outside the result's storage range [0, 255]}}
  %0 = qnn.lut %x table [0, 300, 2, 3] : tensor<4x!quant.uniform<u2:f32, 0.1>> to tensor<4x!quant.uniform<u8:f32, 0.1>>
  return
}

// -----

// A table keeps the shape.
func.func @case50(%x: tensor<4x!quant.uniform<u2:f32, 0.1>>) {
  // expected-error @+1 {{result shape must be [4], got [5]}}
  %0 = qnn.lut %x table [0, 1, 2, 3] : tensor<4x!quant.uniform<u2:f32, 0.1>> to tensor<5x!quant.uniform<u8:f32, 0.1>>
  return
}

// -----

// Table results are stored in at most 16 bits.
func.func @case51(%x: tensor<4x!quant.uniform<u2:f32, 0.1>>) {
  // expected-error @+1 {{result storage must be at most 16 bits wide, got 32}}
  %0 = qnn.lut %x table [0, 1, 2, 3] : tensor<4x!quant.uniform<u2:f32, 0.1>> to tensor<4x!quant.uniform<i32:f32, 0.1>>
  return
}

// -----

// Requantization keeps the shape.
func.func @case52(%x: tensor<4x!quant.uniform<i32:f32, 1.0e-4>>) {
  // expected-error @+1 {{result shape must be [4], got [2, 2]}}
  %0 = qnn.requantize %x : tensor<4x!quant.uniform<i32:f32, 1.0e-4>> to tensor<2x2x!quant.uniform<i8:f32, 0.05>>
  return
}

// -----

// Requantization keeps the expressed type.
func.func @case53(%x: tensor<4x!quant.uniform<i32:f32, 1.0e-4>>) {
  // expected-error @+1 {{expressed types must match: input expresses f32, result expresses f16}}
  %0 = qnn.requantize %x : tensor<4x!quant.uniform<i32:f32, 1.0e-4>> to tensor<4x!quant.uniform<i8:f16, 0.05>>
  return
}

// -----

// A per-axis result of requantization has a scale per index of its axis.
func.func @case54(%x: tensor<2x3x!quant.uniform<i8:f32, 0.1>>) {
  // expected-error @+1 {{result: quantized dimension size does not match number of scales}}
  %0 = qnn.requantize %x : tensor<2x3x!quant.uniform<i8:f32, 0.1>> to tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2}>>
  return
}
