// RUN: nart-opt %s --split-input-file --verify-diagnostics

// Operand and result counts come from the ONNX schema: a one-input op takes one operand.
func.func @relu_two_operands(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{requires a single operand}}
  %0 = "graph.Relu"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Absent optional inputs are graph.none operands, never dropped: Conv always has 3 operands.
func.func @conv_dropped_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected 3 operands, but found 2}}
  %0 = "graph.Conv"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// graph.none takes no operands.
func.func @none_with_operand(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{requires zero operands}}
  %0 = "graph.none"(%x) : (tensor<2x3xf32>) -> none
  return
}

// -----

// A one-output op has one result.
func.func @relu_two_results(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{requires one result}}
  %0:2 = "graph.Relu"(%x) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return
}

// -----

// Absent optional outputs are results of type none, never dropped.
func.func @batchnorm_dropped_outputs(%x: tensor<2x4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{expected 3 results, but found 1}}
  %0 = "graph.BatchNormalization"(%x, %c, %c, %c, %c) : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// A variadic input with at least one value (Concat's inputs) may not be empty.
func.func @concat_no_operands() {
  // expected-error @+1 {{operand #0 is required}}
  %0 = "graph.Concat"() <{axis = 0 : i64}> : () -> tensor<2xf32>
  return
}

// -----

// Operand element types follow the schema's type constraint.
func.func @sigmoid_integer(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{operand #0 must be tensor of float, float16, double, bfloat16 values, but got 'tensor<2x3xi32>'}}
  %0 = "graph.Sigmoid"(%x) : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return
}

// -----

// none is accepted only where the ONNX input is optional.
func.func @add_none_operand(%x: tensor<2x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{operand #1 must be tensor of float, uint8, int8, uint16, int16, int32, int64, float16, double, uint32, uint64, bfloat16 values, but got 'none'}}
  %0 = "graph.Add"(%x, %none) : (tensor<2x3xf32>, none) -> tensor<2x3xf32>
  return
}

// -----

// Operands are tensors, not vectors.
func.func @relu_vector(%x: vector<2x3xf32>) {
  // expected-error @+1 {{operand #0 must be tensor of float, int8, int16, int32, int64, float16, double, bfloat16 values, but got 'vector<2x3xf32>'}}
  %0 = "graph.Relu"(%x) : (vector<2x3xf32>) -> vector<2x3xf32>
  return
}

// -----

// A sequence input takes a !graph.seq value.
func.func @sequence_length_of_tensor(%x: tensor<2xf32>) {
  // expected-error @+1 {{operand #0 must be sequence, but got 'tensor<2xf32>'}}
  %0 = "graph.SequenceLength"(%x) : (tensor<2xf32>) -> tensor<i64>
  return
}

// -----

// Result element types follow the schema too: Shape gives int64.
func.func @shape_i32(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 must be tensor of int64 values, but got 'tensor<2xi32>'}}
  %0 = "graph.Shape"(%x) : (tensor<2x3xf32>) -> tensor<2xi32>
  return
}

// -----

// Comparisons give bool.
func.func @equal_float_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 must be tensor of bool values, but got 'tensor<2x3xf32>'}}
  %0 = "graph.Equal"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Optional gives a !graph.opt value.
func.func @optional_tensor_result(%x: tensor<2xf32>) {
  // expected-error @+1 {{result #0 must be optional, but got 'tensor<2xf32>'}}
  %0 = "graph.Optional"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// graph.none is of type none.
func.func @none_tensor_result() {
  // expected-error @+1 {{result #0 must be none type, but got 'tensor<f32>'}}
  %0 = "graph.none"() : () -> tensor<f32>
  return
}

// -----

// A required ONNX attribute must be present.
func.func @concat_no_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{requires attribute 'axis'}}
  %0 = "graph.Concat"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

// Required attributes of region ops too: Scan's num_scan_inputs.
func.func @scan_no_num_scan_inputs(%x: tensor<2xf32>) {
  // expected-error @+1 {{requires attribute 'num_scan_inputs'}}
  %0 = "graph.Scan"(%x) ({
  ^bb0(%a: tensor<2xf32>):
    "graph.yield"(%a) : (tensor<2xf32>) -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Pools have no kernel to infer from: kernel_shape is required.
func.func @average_pool_no_kernel(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{requires attribute 'kernel_shape'}}
  %0 = "graph.AveragePool"(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

// ONNX INT is an i64 integer attribute.
func.func @int_attr_i32(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = "graph.Concat"(%x, %x) <{axis = 0 : i32}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

// ONNX FLOAT is an f32 float attribute.
func.func @float_attr_f64(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'alpha' failed to satisfy constraint: 32-bit float attribute}}
  %0 = "graph.LeakyRelu"(%x) <{alpha = 0.1 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// ONNX INTS is array<i64: ...>, not an array attribute.
func.func @ints_attr_array(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'perm' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "graph.Transpose"(%x) <{perm = [1, 0]}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// ONNX INTS is array<i64: ...>, not array<i32: ...>.
func.func @ints_attr_i32(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'perm' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "graph.Transpose"(%x) <{perm = array<i32: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// ONNX FLOATS is array<f32: ...>.
func.func @floats_attr_f64(%x: tensor<7x2x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{attribute 'activation_alpha' failed to satisfy constraint: f32 dense array attribute}}
  %0:3 = "graph.LSTM"(%x, %w, %r, %none, %none, %none, %none, %none) <{activation_alpha = array<f64: 1.0>}> : (tensor<7x2x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, none, none, none, none, none) -> (none, none, none)
  return
}

// -----

// ONNX STRING is a string attribute.
func.func @string_attr_int(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{attribute 'auto_pad' failed to satisfy constraint: string attribute}}
  %0 = "graph.Conv"(%x, %w, %none) <{auto_pad = 1 : i64}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x6x6xf32>
  return
}

// -----

// ONNX STRINGS is an array of strings only.
func.func @strings_attr_mixed(%x: tensor<3x!graph.string>) {
  // expected-error @+1 {{attribute 'stopwords' failed to satisfy constraint: string array attribute}}
  %0 = "graph.StringNormalizer"(%x) <{stopwords = ["a", 1]}> : (tensor<3x!graph.string>) -> tensor<3x!graph.string>
  return
}

// -----

// ONNX TYPE_PROTO is a type attribute.
func.func @type_attr_string() {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{attribute 'type' failed to satisfy constraint: type attribute}}
  %0 = "graph.Optional"(%none) <{type = "tensor"}> : (none) -> !graph.opt<tensor<2xf32>>
  return
}

// -----

// ONNX TENSOR is a dense elements attribute, not a scalar.
func.func @tensor_attr_scalar(%x: tensor<2xi64>) {
  // expected-error @+1 {{attribute 'value' failed to satisfy constraint: elements attribute}}
  %0 = "graph.ConstantOfShape"(%x) <{value = 1.0 : f32}> : (tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

// graph.constant needs its value.
func.func @constant_no_value() {
  // expected-error @+1 {{requires attribute 'value'}}
  %0 = "graph.constant"() : () -> tensor<2xf32>
  return
}

// -----

// graph.constant's result has the type of its value.
func.func @constant_type_mismatch() {
  // expected-error @+1 {{result type tensor<3xi64> does not match the type of the 'value' attribute}}
  %0 = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<3xi64>
  return
}

// -----

// graph.constant's value is an elements attribute.
func.func @constant_scalar_value() {
  // expected-error @+1 {{attribute 'value' failed to satisfy constraint: elements attribute}}
  %0 = "graph.constant"() <{value = 1 : i64}> : () -> tensor<i64>
  return
}

// -----

// Each GRAPH attribute is one region: If has else_branch and then_branch.
func.func @if_one_region(%c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{expected 2 regions}}
  %0 = "graph.If"(%c) ({
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  return
}

// -----

// Loop has its body region.
func.func @loop_no_region(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{requires one region}}
  %0 = "graph.Loop"(%m, %c, %x) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// A required subgraph is not empty.
func.func @loop_empty_body(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{region #0 ('body') failed to verify constraint: region with at least 1 blocks}}
  %0 = "graph.Loop"(%m, %c, %x) ({
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// A subgraph is a single block.
func.func @if_two_blocks(%c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{expects region #0 to have 0 or 1 blocks}}
  %0 = "graph.If"(%c) ({
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  ^bb1:
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }, {
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  return
}

// -----

// graph.yield is a terminator: it ends its block.
func.func @yield_not_last(%c: tensor<i1>, %x: tensor<2xf32>) {
  %0 = "graph.If"(%c) ({
    // expected-error @+1 {{must be the last operation in the parent block}}
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
    %1 = "graph.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  }, {
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  return
}

// -----

// A subgraph ends with graph.yield.
func.func @branch_without_yield(%c: tensor<i1>, %x: tensor<2xf32>) {
  %0 = "graph.If"(%c) ({
    // expected-error @+1 {{block with no terminator}}
    %1 = "graph.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  }, {
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  return
}

// -----

// [2, 3] and [4] do not broadcast.
func.func @add_not_broadcastable(%x: tensor<2x3xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{operands are not broadcast-compatible: tensor<2x3xf32> and tensor<4xf32>}}
  %0 = "graph.Add"(%x, %y) : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Elementwise operands share their element type (the schema's T).
func.func @add_mixed_elements(%x: tensor<2x3xf32>, %y: tensor<2x3xf64>) {
  // expected-error @+1 {{operands have different element types: tensor<2x3xf32> and tensor<2x3xf64>}}
  %0 = "graph.Add"(%x, %y) : (tensor<2x3xf32>, tensor<2x3xf64>) -> tensor<2x3xf32>
  return
}

// -----

// Where broadcasts its three operands together.
func.func @where_not_broadcastable(%c: tensor<2xi1>, %x: tensor<2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{operands are not broadcast-compatible: tensor<2xi1> and tensor<2xf32> and tensor<3xf32>}}
  %0 = "graph.Where"(%c, %x, %y) : (tensor<2xi1>, tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return
}

// -----

// Variadic elementwise ops (Sum, Max, Min, Mean) broadcast all their operands.
func.func @sum_not_broadcastable(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %z: tensor<4xf32>) {
  // expected-error @+1 {{operands are not broadcast-compatible: tensor<2x3xf32> and tensor<3xf32> and tensor<4xf32>}}
  %0 = "graph.Sum"(%x, %y, %z) : (tensor<2x3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

// A declared result shape must agree with inference: [2, 3] + [3] is [2, 3].
func.func @add_wrong_result_shape(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3x3xf32> but inference gives tensor<2x3xf32>}}
  %0 = "graph.Add"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

// A declared result element type must agree with inference.
func.func @relu_wrong_result_element(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2x3xf64> but inference gives tensor<2x3xf32>}}
  %0 = "graph.Relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf64>
  return
}

// -----

// A declared result rank must agree with inference.
func.func @relu_wrong_result_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<6xf32> but inference gives tensor<2x3xf32>}}
  %0 = "graph.Relu"(%x) : (tensor<2x3xf32>) -> tensor<6xf32>
  return
}

// -----

// Cast's result element type is the one 'to' names (6 is int32).
func.func @cast_wrong_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2x3xi64> but inference gives tensor<2x3xi32>}}
  %0 = "graph.Cast"(%x) <{to = 6 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xi64>
  return
}

// -----

// A declared output size must agree with the convolution's: pads of 1 keep 8x8.
func.func @conv_wrong_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #0 has type tensor<1x4x6x6xf32> but inference gives tensor<1x4x8x8xf32>}}
  %0 = "graph.Conv"(%x, %w, %none) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x6x6xf32>
  return
}

// -----

// MatMul needs operands of rank 1 or more.
func.func @matmul_scalar(%x: tensor<f32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{operands of a matrix product must have rank 1 or more}}
  %0 = "graph.MatMul"(%x, %y) : (tensor<f32>, tensor<3xf32>) -> tensor<f32>
  return
}

// -----

// [2, 3] x [4, 5]: 3 != 4.
func.func @matmul_inner_mismatch(%x: tensor<2x3xf32>, %y: tensor<4x5xf32>) {
  // expected-error @+1 {{inner dimensions do not match: tensor<2x3xf32> and tensor<4x5xf32>}}
  %0 = "graph.MatMul"(%x, %y) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Batch dims broadcast: 2 and 3 do not.
func.func @matmul_batch_mismatch(%x: tensor<2x2x3xf32>, %y: tensor<3x3x5xf32>) {
  // expected-error @+1 {{batch dimensions are not broadcast-compatible: tensor<2x2x3xf32> and tensor<3x3x5xf32>}}
  %0 = "graph.MatMul"(%x, %y) : (tensor<2x2x3xf32>, tensor<3x3x5xf32>) -> tensor<2x2x5xf32>
  return
}

// -----

// MatMul's operands share their element type.
func.func @matmul_mixed_elements(%x: tensor<2x3xf32>, %y: tensor<3x5xf64>) {
  // expected-error @+1 {{operands have different element types: tensor<2x3xf32> and tensor<3x5xf64>}}
  %0 = "graph.MatMul"(%x, %y) : (tensor<2x3xf32>, tensor<3x5xf64>) -> tensor<2x5xf32>
  return
}

// -----

// Gemm is on matrices.
func.func @gemm_rank3(%x: tensor<2x3x4xf32>, %y: tensor<4x5xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{operands A and B must have rank 2, but got tensor<2x3x4xf32> and tensor<4x5xf32>}}
  %0 = "graph.Gemm"(%x, %y, %none) : (tensor<2x3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  return
}

// -----

// Without transB, [3, 4] x [5, 4] does not multiply.
func.func @gemm_inner_mismatch(%x: tensor<3x4xf32>, %y: tensor<5x4xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{inner dimensions do not match: tensor<3x4xf32> and tensor<5x4xf32>}}
  %0 = "graph.Gemm"(%x, %y, %none) : (tensor<3x4xf32>, tensor<5x4xf32>, none) -> tensor<3x5xf32>
  return
}

// -----

// Gemm's C broadcasts to [M, N].
func.func @gemm_bad_bias(%x: tensor<3x4xf32>, %y: tensor<4x5xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{operand C tensor<4xf32> is not broadcastable to [3, 5]}}
  %0 = "graph.Gemm"(%x, %y, %c) : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<4xf32>) -> tensor<3x5xf32>
  return
}

// -----

// Conv's input and weight have the same rank.
func.func @conv_rank_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{input and weight must have the same rank (3 or more): tensor<1x3x8x8xf32> and tensor<4x3x3xf32>}}
  %0 = "graph.Conv"(%x, %w, %none) : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>, none) -> tensor<1x4x6x6xf32>
  return
}

// -----

// group is positive.
func.func @conv_group_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{group must be positive, but got 0}}
  %0 = "graph.Conv"(%x, %w, %none) <{group = 0 : i64}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x6x6xf32>
  return
}

// -----

// C_in = C_w * group: 3 != 2 * 1.
func.func @conv_channel_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{input channels (3) must equal weight channels (2) times group (1)}}
  %0 = "graph.Conv"(%x, %w, %none) : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>, none) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Window attributes have one entry per spatial dim (pads two).
func.func @conv_strides_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{kernel_shape, strides, dilations and pads must match the 2 spatial dims}}
  %0 = "graph.Conv"(%x, %w, %none) <{strides = array<i64: 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Strides and dilations are positive.
func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{strides and dilations must be positive}}
  %0 = "graph.Conv"(%x, %w, %none) <{strides = array<i64: 0, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x6x6xf32>
  return
}

// -----

// ConvTranspose's output_shape has one entry per spatial dim.
func.func @conv_transpose_output_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<3x4x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{output_shape must have one entry per spatial dim}}
  %0 = "graph.ConvTranspose"(%x, %w, %none) <{output_shape = array<i64: 16>}> : (tensor<1x3x8x8xf32>, tensor<3x4x3x3xf32>, none) -> tensor<1x4x16x16xf32>
  return
}

// -----

// Pools take [N, C, spatial...].
func.func @max_pool_rank2(%x: tensor<3x8xf32>) {
  // expected-error @+1 {{input must have rank 3 or more, but got tensor<3x8xf32>}}
  %0:2 = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 2>}> : (tensor<3x8xf32>) -> (tensor<3x4xf32>, none)
  return
}

// -----

// Axes are in [-rank, rank): reduction axes from a constant operand.
func.func @reduce_axis_out_of_range(%x: tensor<2x3xf32>) {
  %axes = "graph.constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = "graph.ReduceSum"(%x, %axes) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x3xf32>
  return
}

// -----

// Axes are in [-rank, rank): ArgMax's axis attribute.
func.func @argmax_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis -3 is out of range for rank 2}}
  %0 = "graph.ArgMax"(%x) <{axis = -3 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xi64>
  return
}

// -----

// Flatten's axis is in [-rank, rank].
func.func @flatten_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 3 is out of range for rank 2}}
  %0 = "graph.Flatten"(%x) <{axis = 3 : i64}> : (tensor<2x3xf32>) -> tensor<6x1xf32>
  return
}

// -----

// Axes are in [-rank, rank): Gather.
func.func @gather_axis_out_of_range(%x: tensor<2x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = "graph.Gather"(%x, %i) <{axis = 2 : i64}> : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

// Axes are in [-rank, rank): Concat.
func.func @concat_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = "graph.Concat"(%x, %x) <{axis = 2 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Axes are in [-rank, rank): LayerNormalization.
func.func @layer_norm_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0:3 = "graph.LayerNormalization"(%x, %x, %x) <{axis = 2 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, none, none)
  return
}

// -----

// Axes are in [-rank, rank): TopK.
func.func @topk_axis_out_of_range(%x: tensor<2x3xf32>) {
  %k = "graph.constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0:2 = "graph.TopK"(%x, %k) <{axis = 2 : i64}> : (tensor<2x3xf32>, tensor<1xi64>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  return
}

// -----

// Axes are in [-rank, rank): Slice's axes operand.
func.func @slice_axis_out_of_range(%x: tensor<2x6xf32>) {
  %none = "graph.none"() : () -> none
  %zero = "graph.constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %axes = "graph.constant"() <{value = dense<5> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{axis 5 is out of range for rank 2}}
  %0 = "graph.Slice"(%x, %zero, %zero, %axes, %none) : (tensor<2x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<?x?xf32>
  return
}

// -----

// Cast's 'to' is an ONNX TensorProto.DataType code.
func.func @cast_unknown_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'to' holds unknown ONNX type code 99}}
  %0 = "graph.Cast"(%x) <{to = 99 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// BitCast's 'to' is an ONNX type code.
func.func @bitcast_unknown_type(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{attribute 'to' holds unknown ONNX type code 99}}
  %0 = "graph.BitCast"(%x) <{to = 99 : i64}> : (tensor<2x3xi32>) -> tensor<2x3xf32>
  return
}

// -----

// EyeLike's dtype is an ONNX type code (0: the input's).
func.func @eye_like_unknown_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'dtype' holds unknown ONNX type code 99}}
  %0 = "graph.EyeLike"(%x) <{dtype = 99 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// QuantizeLinear's output_dtype is an ONNX type code.
func.func @quantize_unknown_type(%x: tensor<2xf32>, %s: tensor<f32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{unknown output_dtype 99}}
  %0 = "graph.QuantizeLinear"(%x, %s, %none) <{output_dtype = 99 : i64}> : (tensor<2xf32>, tensor<f32>, none) -> tensor<2xi8>
  return
}

// -----

// perm is a permutation of the input's dims.
func.func @transpose_not_a_permutation(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'perm' [0, 0] is not a permutation of rank 2}}
  %0 = "graph.Transpose"(%x) <{perm = array<i64: 0, 0>}> : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

// GatherElements' indices have the data's rank.
func.func @gather_elements_rank(%x: tensor<2x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{data and indices must have the same rank: tensor<2x3xf32> and tensor<2xi64>}}
  %0 = "graph.GatherElements"(%x, %i) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

// Expand broadcasts the input to the shape: [3] does not go to [2, 4].
func.func @expand_not_broadcastable(%x: tensor<3xf32>) {
  %shape = "graph.constant"() <{value = dense<[2, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{input tensor<3xf32> cannot be expanded to shape [2, 4]}}
  %0 = "graph.Expand"(%x, %shape) : (tensor<3xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return
}

// -----

// Range's delta is not zero.
func.func @range_zero_delta() {
  %start = "graph.constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %limit = "graph.constant"() <{value = dense<10> : tensor<i64>}> : () -> tensor<i64>
  %delta = "graph.constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  // expected-error @+1 {{delta must not be zero}}
  %0 = "graph.Range"(%start, %limit, %delta) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return
}

// -----

// blocksize is positive.
func.func @depth_to_space_zero_block(%x: tensor<1x8x2x2xf32>) {
  // expected-error @+1 {{blocksize must be positive, but got 0}}
  %0 = "graph.DepthToSpace"(%x) <{blocksize = 0 : i64}> : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

// Reshape infers at most one dim (-1).
func.func @reshape_two_inferred_dims(%x: tensor<2x3xf32>) {
  %shape = "graph.constant"() <{value = dense<[-1, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{shape [-1, -1] has more than one -1}}
  %0 = "graph.Reshape"(%x, %shape) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

// A 0 in Reshape's shape copies the input's dim, which must exist.
func.func @reshape_copies_missing_dim(%x: tensor<2x3xf32>) {
  %shape = "graph.constant"() <{value = dense<[0, 0, 0]> : tensor<3xi64>}> : () -> tensor<3xi64>
  // expected-error @+1 {{shape [0, 0, 0] copies dim 2 that the input tensor<2x3xf32> lacks}}
  %0 = "graph.Reshape"(%x, %shape) : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  return
}

// -----

// Reshape's dims are >= -1.
func.func @reshape_negative_dim(%x: tensor<2x3xf32>) {
  %shape = "graph.constant"() <{value = dense<[-2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{shape [-2, 3] has a negative dim}}
  %0 = "graph.Reshape"(%x, %shape) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

// The inferred dim divides the element count: 6 / 4 is not whole.
func.func @reshape_indivisible(%x: tensor<2x3xf32>) {
  %shape = "graph.constant"() <{value = dense<[4, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{cannot reshape tensor<2x3xf32> to [4, -1]}}
  %0 = "graph.Reshape"(%x, %shape) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

// Reshape keeps the element count: 6 != 5.
func.func @reshape_element_count(%x: tensor<2x3xf32>) {
  %shape = "graph.constant"() <{value = dense<5> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{cannot reshape tensor<2x3xf32> (6 elements) to [5] (5 elements)}}
  %0 = "graph.Reshape"(%x, %shape) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<5xf32>
  return
}

// -----

// Squeeze removes only dims of size 1.
func.func @squeeze_non_unit_dim(%x: tensor<2x1xf32>) {
  %axes = "graph.constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{cannot squeeze dim 0 of size 2 in tensor<2x1xf32>}}
  %0 = "graph.Squeeze"(%x, %axes) : (tensor<2x1xf32>, tensor<1xi64>) -> tensor<1xf32>
  return
}

// -----

// Unsqueeze's axes are distinct.
func.func @unsqueeze_repeated_axis(%x: tensor<2x1xf32>) {
  %axes = "graph.constant"() <{value = dense<0> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{axes [0, 0] repeat an axis}}
  %0 = "graph.Unsqueeze"(%x, %axes) : (tensor<2x1xf32>, tensor<2xi64>) -> tensor<1x1x2x1xf32>
  return
}

// -----

// Concat's operands share their element type.
func.func @concat_mixed_elements(%x: tensor<2x3xf32>, %y: tensor<2x3xi64>) {
  // expected-error @+1 {{operands have different element types: tensor<2x3xf32> and tensor<2x3xi64>}}
  %0 = "graph.Concat"(%x, %y) <{axis = 0 : i64}> : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<4x3xf32>
  return
}

// -----

// Concat's operands share their rank.
func.func @concat_rank_mismatch(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{operands must have the same rank: tensor<2x3xf32> and tensor<3xf32>}}
  %0 = "graph.Concat"(%x, %y) <{axis = 0 : i64}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return
}

// -----

// Concat's operands agree outside the axis.
func.func @concat_dim_mismatch(%x: tensor<2x3xf32>, %y: tensor<2x4xf32>) {
  // expected-error @+1 {{operands differ outside the concatenation axis: tensor<2x3xf32> and tensor<2x4xf32>}}
  %0 = "graph.Concat"(%x, %y) <{axis = 0 : i64}> : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

// Split has one size per output: 2 sizes for 3 outputs.
func.func @split_too_few_sizes(%x: tensor<2x6xf32>) {
  %sizes = "graph.constant"() <{value = dense<3> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{split sizes [3, 3] do not cover 3 outputs}}
  %0:3 = "graph.Split"(%x, %sizes) <{axis = 1 : i64}> : (tensor<2x6xf32>, tensor<2xi64>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  return
}

// -----

// Split has one size per output: 3 sizes for 2 outputs.
func.func @split_too_many_sizes(%x: tensor<2x6xf32>) {
  %sizes = "graph.constant"() <{value = dense<2> : tensor<3xi64>}> : () -> tensor<3xi64>
  // expected-error @+1 {{split sizes [2, 2, 2] do not match 2 outputs}}
  %0:2 = "graph.Split"(%x, %sizes) <{axis = 1 : i64}> : (tensor<2x6xf32>, tensor<3xi64>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  return
}

// -----

// Split's sizes add up to the split dim: 2 + 3 != 6.
func.func @split_sizes_sum(%x: tensor<2x6xf32>) {
  %sizes = "graph.constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{split sizes [2, 3] do not add up to dim 1 of tensor<2x6xf32>}}
  %0:2 = "graph.Split"(%x, %sizes) <{axis = 1 : i64}> : (tensor<2x6xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x3xf32>)
  return
}

// -----

// Slice's starts, ends, axes and steps have one entry each per sliced axis.
func.func @slice_lengths(%x: tensor<2x6xf32>) {
  %none = "graph.none"() : () -> none
  %starts = "graph.constant"() <{value = dense<[0, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %ends = "graph.constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{starts, ends, axes and steps must have the same length}}
  %0 = "graph.Slice"(%x, %starts, %ends, %none, %none) : (tensor<2x6xf32>, tensor<2xi64>, tensor<1xi64>, none, none) -> tensor<?x?xf32>
  return
}

// -----

// Slice's steps are not zero.
func.func @slice_zero_step(%x: tensor<2x6xf32>) {
  %none = "graph.none"() : () -> none
  %zero = "graph.constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{slice step must not be zero}}
  %0 = "graph.Slice"(%x, %zero, %zero, %none, %zero) : (tensor<2x6xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<?x?xf32>
  return
}

// -----

// Pad has a begin and an end pad per padded axis: 2 axes need 4 entries.
func.func @pad_entries(%x: tensor<2x6xf32>) {
  %none = "graph.none"() : () -> none
  %pads = "graph.constant"() <{value = dense<1> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{pads has 2 entries, but 2 padded axes need 4 (a begin and an end pad each)}}
  %0 = "graph.Pad"(%x, %pads, %none, %none) : (tensor<2x6xf32>, tensor<2xi64>, none, none) -> tensor<?x?xf32>
  return
}

// -----

// Negative pads crop, but not below zero: 6 - 4 - 4 < 0.
func.func @pad_negative_result(%x: tensor<2x6xf32>) {
  %none = "graph.none"() : () -> none
  %pads = "graph.constant"() <{value = dense<[0, -4, 0, -4]> : tensor<4xi64>}> : () -> tensor<4xi64>
  // expected-error @+1 {{result #0 would have a negative dimension: tensor<2x-2xf32>}}
  %0 = "graph.Pad"(%x, %pads, %none, %none) : (tensor<2x6xf32>, tensor<4xi64>, none, none) -> tensor<?x?xf32>
  return
}

// -----

// Resize's sizes have one entry per axis (all axes without 'axes').
func.func @resize_sizes_length(%x: tensor<1x3x8x8xf32>) {
  %none = "graph.none"() : () -> none
  %sizes = "graph.constant"() <{value = dense<16> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{sizes has 2 entries for 4 axes}}
  %0 = "graph.Resize"(%x, %none, %none, %sizes) : (tensor<1x3x8x8xf32>, none, none, tensor<2xi64>) -> tensor<1x3x16x16xf32>
  return
}

// -----

// Resize's scales have one entry per axis.
func.func @resize_scales_length(%x: tensor<1x3x8x8xf32>) {
  %none = "graph.none"() : () -> none
  %scales = "graph.constant"() <{value = dense<2.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  // expected-error @+1 {{scales has 2 entries for 4 axes}}
  %0 = "graph.Resize"(%x, %none, %scales, %none) : (tensor<1x3x8x8xf32>, none, tensor<2xf32>, none) -> tensor<1x3x16x16xf32>
  return
}

// -----

// An Einsum equation names one term per operand.
func.func @einsum_term_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{equation 'ij,jk->ik' names 2 operands but the op has 1}}
  %0 = "graph.Einsum"(%x) <{equation = "ij,jk->ik"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// An Einsum term has one label per dim of its operand.
func.func @einsum_term_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{term 'ijk' of equation 'ijk->i' does not match operand #0 of rank 2}}
  %0 = "graph.Einsum"(%x) <{equation = "ijk->i"}> : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// An Einsum label has one size: j is 3 and 4.
func.func @einsum_label_sizes(%x: tensor<2x3xf32>, %y: tensor<4x5xf32>) {
  // expected-error @+1 {{label 'j' has sizes 3 and 4}}
  %0 = "graph.Einsum"(%x, %y) <{equation = "ij,jk->ik"}> : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Einsum's output labels come from the inputs.
func.func @einsum_unknown_output_label(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{output label 'z' does not appear in the inputs}}
  %0 = "graph.Einsum"(%x) <{equation = "ij->iz"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Reshape keeps the element count: a constant shape of 4 elements for 6.
func.func @reshape_count_constant_shape(%x: tensor<6xf32>) {
  %shape = "graph.constant"() <{value = dense<[2, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{cannot reshape tensor<6xf32> (6 elements) to [2, 2] (4 elements)}}
  %0 = "graph.Reshape"(%x, %shape) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  return
}

// -----

// Reshape keeps the element count even when the shape is computed: the declared result says 4.
func.func @reshape_count_declared(%x: tensor<6xf32>, %shape: tensor<2xi64>) {
  // expected-error @+1 {{result type tensor<2x2xf32> has 4 elements, but the input tensor<6xf32> has 6}}
  %0 = "graph.Reshape"(%x, %shape) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  return
}

// -----

// Squeeze only re-types too.
func.func @squeeze_count_declared(%x: tensor<1x6xf32>, %axes: tensor<1xi64>) {
  // expected-error @+1 {{result type tensor<5xf32> has 5 elements, but the input tensor<1x6xf32> has 6}}
  %0 = "graph.Squeeze"(%x, %axes) : (tensor<1x6xf32>, tensor<1xi64>) -> tensor<5xf32>
  return
}

// -----

// If's branches yield one value per result (ONNX: both branches have the op's N outputs).
func.func @if_yield_count(%c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{else_branch yields 2 values, but the op has 1 result}}
  %0 = "graph.If"(%c) ({
    "graph.yield"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }, {
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  return
}

// -----

// If's branches agree on each result's element type (shapes may differ).
func.func @if_yield_types(%c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{then_branch and else_branch yield different types for result #0: tensor<i1> and tensor<2xf32>}}
  %0 = "graph.If"(%c) ({
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }, {
    "graph.yield"(%c) : (tensor<i1>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  return
}

// -----

// If's result agrees with what the branches yield.
func.func @if_result_type(%c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but inference gives tensor<2xf32>}}
  %0 = "graph.If"(%c) ({
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }, {
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<3xf32>
  return
}

// -----

// Loop's body takes the iteration number, the condition and each loop-carried value.
func.func @loop_body_arguments(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{expects the body to have 3 arguments (the iteration number, the condition and 1 loop-carried value), but it has 1}}
  %0 = "graph.Loop"(%m, %c, %x) ({
  ^bb0(%i: tensor<i64>):
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Loop's iteration number is an int64 tensor.
func.func @loop_iteration_type(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{expects body argument #0 (the iteration number) to be a tensor of i64, but got tensor<i32>}}
  %0 = "graph.Loop"(%m, %c, %x) ({
  ^bb0(%i: tensor<i32>, %ci: tensor<i1>, %v: tensor<2xf32>):
    "graph.yield"(%ci, %v) : (tensor<i1>, tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// A loop-carried body argument has its operand's element type.
func.func @loop_carried_type(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{body argument #2 has type tensor<2xi32>, which does not match operand #2 of type tensor<2xf32>}}
  %0 = "graph.Loop"(%m, %c, %x) ({
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<2xi32>):
    "graph.yield"(%ci, %x) : (tensor<i1>, tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Loop's body yields the condition, then one value per result.
func.func @loop_yield_count(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{expects the body to yield 2 values (the condition and one per result), but it yields 1}}
  %0 = "graph.Loop"(%m, %c, %x) ({
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<2xf32>):
    "graph.yield"(%v) : (tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// num_scan_inputs counts operands: there is only one.
func.func @scan_num_inputs(%x: tensor<2xf32>) {
  // expected-error @+1 {{expects num_scan_inputs (3) to be at most the number of operands (1)}}
  %0 = "graph.Scan"(%x) <{num_scan_inputs = 3 : i64}> ({
  ^bb0(%a: tensor<2xf32>):
    "graph.yield"(%a) : (tensor<2xf32>) -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Scan's body takes one argument per operand (states, then scan input elements).
func.func @scan_body_arguments(%s: tensor<2xf32>, %x: tensor<5x2xf32>) {
  // expected-error @+1 {{expects the body to have 2 arguments (one per operand), but it has 1}}
  %0 = "graph.Scan"(%s, %x) <{num_scan_inputs = 1 : i64}> ({
  ^bb0(%a: tensor<2xf32>):
    "graph.yield"(%a) : (tensor<2xf32>) -> ()
  }) : (tensor<2xf32>, tensor<5x2xf32>) -> tensor<2xf32>
  return
}

// -----

// Scan's body yields one value per result.
func.func @scan_yield_count(%s: tensor<2xf32>, %x: tensor<5x2xf32>) {
  // expected-error @+1 {{expects the body to yield 1 value (one per result), but it yields 2}}
  %0 = "graph.Scan"(%s, %x) <{num_scan_inputs = 1 : i64}> ({
  ^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>):
    "graph.yield"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }) : (tensor<2xf32>, tensor<5x2xf32>) -> tensor<2xf32>
  return
}

// -----

// graph.yield ends subgraphs only; a function ends in func.return.
func.func @yield_in_func(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'graph.yield' op expects parent op to be one of 'graph.If, graph.Loop, graph.Scan, graph.SequenceMap'}}
  "graph.yield"(%x) : (tensor<2xf32>) -> ()
}
