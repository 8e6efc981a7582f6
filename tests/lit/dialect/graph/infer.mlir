// RUN: nart-opt %s --split-input-file --verify-diagnostics

// Shape and type inference. nart has no inference pass: the verifier compares every declared
// result type with what inference gives (a dynamic dim matches any size). Each case declares a
// result of the wrong rank, so the diagnostic shows exactly what inference computes, dynamic
// dims included.

// Numpy broadcasting: [?, 3] with [2, 1, 3] is [2, ?, 3] (a dynamic dim against 1 stays dynamic).
func.func @broadcast_dynamic(%a: tensor<?x3xf32>, %b: tensor<2x1x3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<2x?x3xf32>}}
  %0 = "graph.Add"(%a, %b) : (tensor<?x3xf32>, tensor<2x1x3xf32>) -> tensor<f32>
  return
}

// -----

// A dynamic dim against n > 1 is n: it can only be 1 or n.
func.func @broadcast_dynamic_n(%c: tensor<?xf32>, %d: tensor<4xf32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<4xf32>}}
  %0 = "graph.Mul"(%c, %d) : (tensor<?xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

// Comparisons broadcast and give bool.
func.func @comparison(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<i1> but inference gives tensor<2x3xi1>}}
  %0 = "graph.Less"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<i1>
  return
}

// -----

// Where broadcasts its three operands and takes the element type of X.
func.func @where(%c: tensor<2x1xi1>, %x: tensor<3xi64>, %y: tensor<1xi64>) {
  // expected-error @+1 {{result #0 has type tensor<i64> but inference gives tensor<2x3xi64>}}
  %0 = "graph.Where"(%c, %x, %y) : (tensor<2x1xi1>, tensor<3xi64>, tensor<1xi64>) -> tensor<i64>
  return
}

// -----

// MatMul of two vectors is a scalar (a 1-D operand's added dim is removed again).
func.func @matmul_vectors(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{result #0 has type tensor<1xf32> but inference gives tensor<f32>}}
  %0 = "graph.MatMul"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<1xf32>
  return
}

// -----

// MatMul broadcasts batch dims: [3, 1] with [5] is [3, 5].
func.func @matmul_batch(%a: tensor<3x1x2x4xf32>, %b: tensor<5x4x6xf32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<3x5x2x6xf32>}}
  %0 = "graph.MatMul"(%a, %b) : (tensor<3x1x2x4xf32>, tensor<5x4x6xf32>) -> tensor<f32>
  return
}

// -----

// Gemm with transA: A is [K, M].
func.func @gemm_trans_a(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<3x5xf32>}}
  %0 = "graph.Gemm"(%a, %b, %none) <{transA = 1 : i64}> : (tensor<4x3xf32>, tensor<4x5xf32>, none) -> tensor<f32>
  return
}

// -----

// Conv: out = floor((in + pads - dilation * (k - 1) - 1) / stride) + 1, dynamic where the input is.
func.func @conv_dynamic(%x: tensor<?x3x?x10xf32>, %w: tensor<8x3x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<?x8x?x4xf32>}}
  %0 = "graph.Conv"(%x, %w, %none) <{strides = array<i64: 2, 2>}> : (tensor<?x3x?x10xf32>, tensor<8x3x3x3xf32>, none) -> tensor<f32>
  return
}

// -----

// auto_pad = VALID: out = ceil((in - k + 1) / stride) = ceil(8 / 2).
func.func @conv_valid(%x: tensor<1x3x10x10xf32>, %w: tensor<8x3x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<1x8x4x4xf32>}}
  %0 = "graph.Conv"(%x, %w, %none) <{auto_pad = "VALID", strides = array<i64: 2, 2>}> : (tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>, none) -> tensor<f32>
  return
}

// -----

// auto_pad = SAME_*: out = ceil(in / stride) = ceil(10 / 3).
func.func @conv_same_lower(%x: tensor<1x3x10x10xf32>, %w: tensor<8x3x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<1x8x4x4xf32>}}
  %0 = "graph.Conv"(%x, %w, %none) <{auto_pad = "SAME_LOWER", strides = array<i64: 3, 3>}> : (tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>, none) -> tensor<f32>
  return
}

// -----

// 1-D grouped, dilated Conv: (20 + 2 - 9) / 1 + 1 = 14 with a dilated kernel of 9; C_out = M.
func.func @conv1d_dilated(%x: tensor<2x4x20xf32>, %w: tensor<6x2x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<2x6x14xf32>}}
  %0 = "graph.Conv"(%x, %w, %none) <{dilations = array<i64: 4>, group = 2 : i64, pads = array<i64: 1, 1>}> : (tensor<2x4x20xf32>, tensor<6x2x3xf32>, none) -> tensor<f32>
  return
}

// -----

// ConvTranspose: out = stride * (in - 1) + output_padding + k - pads = 2 * 4 + 1 + 3; C_out = W[1] * group.
func.func @conv_transpose_output_padding(%x: tensor<1x3x5x5xf32>, %w: tensor<3x4x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<1x4x12x12xf32>}}
  %0 = "graph.ConvTranspose"(%x, %w, %none) <{output_padding = array<i64: 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x3x5x5xf32>, tensor<3x4x3x3xf32>, none) -> tensor<f32>
  return
}

// -----

// ConvTranspose with output_shape takes the spatial dims from it; C_out = 2 * 3.
func.func @conv_transpose_output_shape(%x: tensor<1x3x5x5xf32>, %w: tensor<3x2x3x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<1x6x11x12xf32>}}
  %0 = "graph.ConvTranspose"(%x, %w, %none) <{group = 3 : i64, output_shape = array<i64: 11, 12>, strides = array<i64: 2, 2>}> : (tensor<1x3x5x5xf32>, tensor<3x2x3x3xf32>, none) -> tensor<f32>
  return
}

// -----

// MaxPool rounds down by default: (6 - 3) / 2 + 1 = 2.
func.func @max_pool_floor(%x: tensor<1x1x6x6xf32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<1x1x2x2xf32>}}
  %0:2 = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>}> : (tensor<1x1x6x6xf32>) -> (tensor<f32>, none)
  return
}

// -----

// ceil_mode rounds up: ceil((6 - 3) / 2) + 1 = 3.
func.func @max_pool_ceil(%x: tensor<1x1x6x6xf32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<1x1x3x3xf32>}}
  %0:2 = "graph.MaxPool"(%x) <{ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>}> : (tensor<1x1x6x6xf32>) -> (tensor<f32>, none)
  return
}

// -----

// MaxPool's Indices are int64 of the output's shape.
func.func @max_pool_indices(%x: tensor<1x1x6x6xf32>) {
  // expected-error @+1 {{result #1 has type tensor<i64> but inference gives tensor<1x1x3x3xi64>}}
  %0:2 = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x1x6x6xf32>) -> (tensor<1x1x3x3xf32>, tensor<i64>)
  return
}

// -----

// Global pools keep N and C and make every spatial dim 1.
func.func @global_pool_1d(%x: tensor<2x5x7xf32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<2x5x1xf32>}}
  %0 = "graph.GlobalMaxPool"(%x) : (tensor<2x5x7xf32>) -> tensor<f32>
  return
}

// -----

// Reductions over axes that are not constant keep the rank (keepdims) with unknown dims.
func.func @reduce_unknown_axes(%x: tensor<2x3x4xf32>, %axes: tensor<2xi64>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<?x?x?xf32>}}
  %0 = "graph.ReduceSum"(%x, %axes) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

// Reductions take negative axes; keepdims = 0 drops them.
func.func @reduce_negative_axes(%x: tensor<2x3x4xf32>) {
  %axes = "graph.constant"() <{value = dense<[-1, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<3xf32>}}
  %0 = "graph.ReduceProd"(%x, %axes) <{keepdims = 0 : i64}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

// ArgMax defaults to axis 0 with keepdims, and gives int64.
func.func @argmax_default(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{result #0 has type tensor<i64> but inference gives tensor<1x3x4xi64>}}
  %0 = "graph.ArgMax"(%x) : (tensor<2x3x4xf32>) -> tensor<i64>
  return
}

// -----

// Reshape to a shape that is not constant: only the rank (the shape's length) is known.
func.func @reshape_unknown_shape(%x: tensor<2x3x4xf32>, %s: tensor<3xi64>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<?x?x?xf32>}}
  %0 = "graph.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<f32>
  return
}

// -----

// Reshape's -1 stays dynamic when the input's element count is.
func.func @reshape_dynamic_input(%x: tensor<?x4xf32>) {
  %s = "graph.constant"() <{value = dense<[-1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<?x2xf32>}}
  %0 = "graph.Reshape"(%x, %s) : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

// With allowzero, a 0 in the shape is a zero dim, not a copy.
func.func @reshape_allowzero(%x: tensor<0x3xf32>) {
  %s = "graph.constant"() <{value = dense<[3, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<3x0xf32>}}
  %0 = "graph.Reshape"(%x, %s) <{allowzero = 1 : i64}> : (tensor<0x3xf32>, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

// Flatten with axis 0 gives [1, all].
func.func @flatten_axis0(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<1x24xf32>}}
  %0 = "graph.Flatten"(%x) <{axis = 0 : i64}> : (tensor<2x3x4xf32>) -> tensor<f32>
  return
}

// -----

// Flatten of a dynamic dim: [?, 3 * 4].
func.func @flatten_dynamic(%x: tensor<?x3x4xf32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<?x12xf32>}}
  %0 = "graph.Flatten"(%x) : (tensor<?x3x4xf32>) -> tensor<f32>
  return
}

// -----

// Unsqueeze's negative axes count from the back of the output.
func.func @unsqueeze_negative(%x: tensor<2x3xf32>) {
  %axes = "graph.constant"() <{value = dense<[-1, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<1x2x3x1xf32>}}
  %0 = "graph.Unsqueeze"(%x, %axes) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

// Unsqueeze with axes that are not constant: only the rank (2 + 2) is known.
func.func @unsqueeze_unknown_axes(%x: tensor<2x3xf32>, %axes: tensor<2xi64>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<?x?x?x?xf32>}}
  %0 = "graph.Unsqueeze"(%x, %axes) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

// Concat: a dynamic dim outside the axis takes the other operand's size; 3 + ? along the axis is ?.
func.func @concat_dynamic(%a: tensor<?x3xf32>, %b: tensor<2x?xf32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<2x?xf32>}}
  %0 = "graph.Concat"(%a, %b) <{axis = -1 : i64}> : (tensor<?x3xf32>, tensor<2x?xf32>) -> tensor<f32>
  return
}

// -----

// Split into num_outputs: chunks of ceil(7 / 3), the last one smaller.
func.func @split_uneven(%x: tensor<7x2xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #2 has type tensor<f32> but inference gives tensor<1x2xf32>}}
  %0:3 = "graph.Split"(%x, %none) <{num_outputs = 3 : i64}> : (tensor<7x2xf32>, none) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<f32>)
  return
}

// -----

// Slice with a negative step: start -1 is 9, end -100 clamps to -1, ceil(10 / 3) = 4.
func.func @slice_negative_step(%x: tensor<10x4xf32>) {
  %none = "graph.none"() : () -> none
  %starts = "graph.constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %ends = "graph.constant"() <{value = dense<-100> : tensor<1xi64>}> : () -> tensor<1xi64>
  %steps = "graph.constant"() <{value = dense<-3> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<4x4xf32>}}
  %0 = "graph.Slice"(%x, %starts, %ends, %none, %steps) : (tensor<10x4xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<f32>
  return
}

// -----

// Slice with starts that are not constant: every dim is unknown.
func.func @slice_unknown_starts(%x: tensor<10x4xf32>, %starts: tensor<1xi64>) {
  %none = "graph.none"() : () -> none
  %ends = "graph.constant"() <{value = dense<5> : tensor<1xi64>}> : () -> tensor<1xi64>
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<?x?xf32>}}
  %0 = "graph.Slice"(%x, %starts, %ends, %none, %none) : (tensor<10x4xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<f32>
  return
}

// -----

// Gather with a scalar index removes the axis.
func.func @gather_scalar_index(%x: tensor<2x3x4xf32>, %i: tensor<i64>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<2x4xf32>}}
  %0 = "graph.Gather"(%x, %i) <{axis = 1 : i64}> : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<f32>
  return
}

// -----

// GatherElements has the shape of its indices.
func.func @gather_elements(%x: tensor<2x3xf32>, %i: tensor<2x5xi32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<2x5xf32>}}
  %0 = "graph.GatherElements"(%x, %i) <{axis = 1 : i64}> : (tensor<2x3xf32>, tensor<2x5xi32>) -> tensor<f32>
  return
}

// -----

// Expand broadcasts the input with the target: [2, 1, 3] with [4, 1] is [2, 4, 3].
func.func @expand_lower_rank_target(%x: tensor<2x1x3xf32>) {
  %shape = "graph.constant"() <{value = dense<[4, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<2x4x3xf32>}}
  %0 = "graph.Expand"(%x, %shape) : (tensor<2x1x3xf32>, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

// Expand to a shape that is not constant: its length gives the rank.
func.func @expand_unknown_target(%x: tensor<3xf32>, %shape: tensor<2xi64>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<?x?xf32>}}
  %0 = "graph.Expand"(%x, %shape) : (tensor<3xf32>, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

// Tile with repeats that are not constant keeps the rank.
func.func @tile_unknown_repeats(%x: tensor<2x3xf32>, %r: tensor<2xi64>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<?x?xf32>}}
  %0 = "graph.Tile"(%x, %r) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

// Pad on axes [0, -1]: 2 + 1 + 2 and 4 + 0 - 1 (a negative pad crops).
func.func @pad_axes(%x: tensor<2x3x4xf32>) {
  %none = "graph.none"() : () -> none
  %pads = "graph.constant"() <{value = dense<[1, 0, 2, -1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %axes = "graph.constant"() <{value = dense<[0, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<5x3x3xf32>}}
  %0 = "graph.Pad"(%x, %pads, %none, %axes) : (tensor<2x3x4xf32>, tensor<4xi64>, none, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

// Resize with sizes on some axes.
func.func @resize_sizes_axes(%x: tensor<1x3x8x8xf32>) {
  %none = "graph.none"() : () -> none
  %sizes = "graph.constant"() <{value = dense<[4, 6]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<1x3x4x6xf32>}}
  %0 = "graph.Resize"(%x, %none, %none, %sizes) <{axes = array<i64: 2, 3>}> : (tensor<1x3x8x8xf32>, none, none, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

// Resize's sizes with a keep_aspect_ratio_policy other than stretch are not inferred.
func.func @resize_keep_aspect_ratio(%x: tensor<1x3x8x8xf32>) {
  %none = "graph.none"() : () -> none
  %sizes = "graph.constant"() <{value = dense<[4, 6]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<?x?x?x?xf32>}}
  %0 = "graph.Resize"(%x, %none, %none, %sizes) <{axes = array<i64: 2, 3>, keep_aspect_ratio_policy = "not_larger"}> : (tensor<1x3x8x8xf32>, none, none, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

// Resize with scales rounds down: 5 * 1.5 = 7.5 and 5 * 0.5 = 2.5.
func.func @resize_scales_floor(%x: tensor<1x3x5x5xf32>) {
  %none = "graph.none"() : () -> none
  %scales = "graph.constant"() <{value = dense<[1.0, 1.0, 1.5, 0.5]> : tensor<4xf32>}> : () -> tensor<4xf32>
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<1x3x7x2xf32>}}
  %0 = "graph.Resize"(%x, %none, %scales, %none) : (tensor<1x3x5x5xf32>, none, tensor<4xf32>, none) -> tensor<f32>
  return
}

// -----

// Shape of a tensor with dynamic dims still has a static length.
func.func @shape_dynamic(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<i64> but inference gives tensor<2xi64>}}
  %0 = "graph.Shape"(%x) : (tensor<?x3xf32>) -> tensor<i64>
  return
}

// -----

// Shape with start after end is empty.
func.func @shape_empty_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{result #0 has type tensor<i64> but inference gives tensor<0xi64>}}
  %0 = "graph.Shape"(%x) <{end = 1 : i64, start = 2 : i64}> : (tensor<2x3x4xf32>) -> tensor<i64>
  return
}

// -----

// ConstantOfShape without a value is f32; a shape that is not constant gives the rank.
func.func @constant_of_shape_default(%s: tensor<3xi64>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<?x?x?xf32>}}
  %0 = "graph.ConstantOfShape"(%s) : (tensor<3xi64>) -> tensor<f32>
  return
}

// -----

// Range has ceil((limit - start) / delta) elements: ceil(1 / 0.3) = 4.
func.func @range_float() {
  %start = "graph.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %limit = "graph.constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %delta = "graph.constant"() <{value = dense<0.3> : tensor<f32>}> : () -> tensor<f32>
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<4xf32>}}
  %0 = "graph.Range"(%start, %limit, %delta) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

// Range with limit below start is empty.
func.func @range_empty() {
  %start = "graph.constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
  %limit = "graph.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %delta = "graph.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  // expected-error @+1 {{result #0 has type tensor<i32> but inference gives tensor<0xi32>}}
  %0 = "graph.Range"(%start, %limit, %delta) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
  return
}

// -----

// Range with a start that is not constant has an unknown length.
func.func @range_unknown(%start: tensor<i32>) {
  %limit = "graph.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  // expected-error @+1 {{result #0 has type tensor<i32> but inference gives tensor<?xi32>}}
  %0 = "graph.Range"(%start, %limit, %limit) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
  return
}

// -----

// TopK with K not constant: the axis is unknown, in Values and in Indices.
func.func @topk_unknown_k(%x: tensor<2x5xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{result #1 has type tensor<i64> but inference gives tensor<2x?xi64>}}
  %0:2 = "graph.TopK"(%x, %k) : (tensor<2x5xf32>, tensor<1xi64>) -> (tensor<2x?xf32>, tensor<i64>)
  return
}

// -----

// NonZero is [rank, number of non-zeros].
func.func @non_zero(%x: tensor<2x3x4xi32>) {
  // expected-error @+1 {{result #0 has type tensor<i64> but inference gives tensor<3x?xi64>}}
  %0 = "graph.NonZero"(%x) : (tensor<2x3x4xi32>) -> tensor<i64>
  return
}

// -----

// NonMaxSuppression gives [?, 3] indices.
func.func @non_max_suppression(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #0 has type tensor<i64> but inference gives tensor<?x3xi64>}}
  %0 = "graph.NonMaxSuppression"(%b, %s, %none, %none, %none) : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, none, none, none) -> tensor<i64>
  return
}

// -----

// QuantizeLinear gives the zero point's element type.
func.func @quantize_zero_point_type(%x: tensor<2x3xf32>, %s: tensor<f32>, %zp: tensor<i8>) {
  // expected-error @+1 {{result #0 has type tensor<i8> but inference gives tensor<2x3xi8>}}
  %0 = "graph.QuantizeLinear"(%x, %s, %zp) : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<i8>
  return
}

// -----

// QuantizeLinear without a zero point gives uint8.
func.func @quantize_default_type(%x: tensor<2x3xf32>, %s: tensor<f32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #0 has type tensor<ui8> but inference gives tensor<2x3xui8>}}
  %0 = "graph.QuantizeLinear"(%x, %s, %none) : (tensor<2x3xf32>, tensor<f32>, none) -> tensor<ui8>
  return
}

// -----

// DequantizeLinear gives the scale's element type.
func.func @dequantize_scale_type(%x: tensor<2x3xi8>, %s: tensor<f16>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #0 has type tensor<f16> but inference gives tensor<2x3xf16>}}
  %0 = "graph.DequantizeLinear"(%x, %s, %none) : (tensor<2x3xi8>, tensor<f16>, none) -> tensor<f16>
  return
}

// -----

// DequantizeLinear gives the element type output_dtype names (10 is float16) when it is set.
func.func @dequantize_output_dtype(%x: tensor<4xui8>, %s: tensor<f32>, %zp: tensor<ui8>) {
  // expected-error @+1 {{result #0 has type tensor<f16> but inference gives tensor<4xf16>}}
  %0 = "graph.DequantizeLinear"(%x, %s, %zp) <{output_dtype = 10 : i64}> : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<f16>
  return
}

// -----

// QLinearMatMul gives y_zero_point's element type.
func.func @qlinear_matmul(%a: tensor<2x3xi8>, %s: tensor<f32>, %za: tensor<i8>, %b: tensor<3x4xi8>, %zy: tensor<i8>) {
  // expected-error @+1 {{result #0 has type tensor<i8> but inference gives tensor<2x4xi8>}}
  %0 = "graph.QLinearMatMul"(%a, %s, %za, %b, %s, %za, %s, %zy) : (tensor<2x3xi8>, tensor<f32>, tensor<i8>, tensor<3x4xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<i8>
  return
}

// -----

// MatMulInteger accumulates in int32.
func.func @matmul_integer(%a: tensor<2x3xi8>, %b: tensor<3x4xi8>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #0 has type tensor<i32> but inference gives tensor<2x4xi32>}}
  %0 = "graph.MatMulInteger"(%a, %b, %none, %none) : (tensor<2x3xi8>, tensor<3x4xi8>, none, none) -> tensor<i32>
  return
}

// -----

// Einsum without '->' outputs the labels seen once, in alphabetical order.
func.func @einsum_implicit(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<2x5xf32>}}
  %0 = "graph.Einsum"(%a, %b) <{equation = "ij,jk"}> : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<f32>
  return
}

// -----

// An Einsum label of size 1 broadcasts against the same label's other size.
func.func @einsum_broadcast_label(%a: tensor<2x1xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<3x2xf32>}}
  %0 = "graph.Einsum"(%a, %b) <{equation = "ij,ij->ji"}> : (tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<f32>
  return
}

// -----

// DepthToSpace: [N, C / b^2, H * b, W * b].
func.func @depth_to_space(%x: tensor<1x12x4x5xf32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<1x3x8x10xf32>}}
  %0 = "graph.DepthToSpace"(%x) <{blocksize = 2 : i64}> : (tensor<1x12x4x5xf32>) -> tensor<f32>
  return
}

// -----

// SpaceToDepth: [N, C * b^2, H / b, W / b].
func.func @space_to_depth(%x: tensor<1x3x4x6xf32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<1x12x2x3xf32>}}
  %0 = "graph.SpaceToDepth"(%x) <{blocksize = 2 : i64}> : (tensor<1x3x4x6xf32>) -> tensor<f32>
  return
}

// -----

// LayerNormalization's Mean is float (stash_type 1) even for f16 input, reduced from axis -1 on.
func.func @layer_norm_stash_type(%x: tensor<2x5xf16>, %s: tensor<5xf16>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #1 has type tensor<f32> but inference gives tensor<2x1xf32>}}
  %0:3 = "graph.LayerNormalization"(%x, %s, %none) : (tensor<2x5xf16>, tensor<5xf16>, none) -> (tensor<2x5xf16>, tensor<f32>, none)
  return
}

// -----

// BatchNormalization in training mode gives running statistics of shape [C].
func.func @batch_norm_training(%x: tensor<2x4x3xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{result #1 has type tensor<f32> but inference gives tensor<4xf32>}}
  %0:3 = "graph.BatchNormalization"(%x, %c, %c, %c, %c) <{training_mode = 1 : i64}> : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<f32>, none)
  return
}

// -----

// Dropout's mask is bool, of the input's shape.
func.func @dropout_mask(%x: tensor<2x3xf32>) {
  %none = "graph.none"() : () -> none
  // expected-error @+1 {{result #1 has type tensor<i1> but inference gives tensor<2x3xi1>}}
  %0:2 = "graph.Dropout"(%x, %none, %none) : (tensor<2x3xf32>, none, none) -> (tensor<2x3xf32>, tensor<i1>)
  return
}

// -----

// CastLike takes the element type of its second operand.
func.func @cast_like(%x: tensor<2x3xf32>, %t: tensor<i32>) {
  // expected-error @+1 {{result #0 has type tensor<i32> but inference gives tensor<2x3xi32>}}
  %0 = "graph.CastLike"(%x, %t) : (tensor<2x3xf32>, tensor<i32>) -> tensor<i32>
  return
}

// -----

// EyeLike's dtype names the element type (7 is int64).
func.func @eye_like_dtype(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<i64> but inference gives tensor<2x3xi64>}}
  %0 = "graph.EyeLike"(%x) <{dtype = 7 : i64}> : (tensor<2x3xf32>) -> tensor<i64>
  return
}

// -----

// IsNaN gives bool.
func.func @is_nan(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<i1> but inference gives tensor<2x3xi1>}}
  %0 = "graph.IsNaN"(%x) : (tensor<2x3xf32>) -> tensor<i1>
  return
}

// -----

// If's result has the dims both branches share: [2, 3] and [2, 4] give [2, ?].
func.func @if_joins_branches(%c: tensor<i1>, %a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{result #0 has type tensor<f32> but inference gives tensor<2x?xf32>}}
  %0 = "graph.If"(%c) ({
    "graph.yield"(%a) : (tensor<2x3xf32>) -> ()
  }, {
    "graph.yield"(%b) : (tensor<2x4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<f32>
  return
}

// -----

// Loop's scan outputs get a leading iteration dim: a per-iteration [2] stacks to [?, 2].
func.func @loop_scan_output(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{result #1 has type tensor<2xf32> but inference gives tensor<?x2xf32>}}
  %0:2 = "graph.Loop"(%m, %c, %x) ({
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<2xf32>):
    "graph.yield"(%ci, %v, %v) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

// Scan's outputs stack along the scan axis, as long as the scan input: 5 steps of [2].
func.func @scan_output(%s: tensor<2xf32>, %x: tensor<5x2xf32>) {
  // expected-error @+1 {{result #1 has type tensor<2xf32> but inference gives tensor<5x2xf32>}}
  %0:2 = "graph.Scan"(%s, %x) <{num_scan_inputs = 1 : i64}> ({
  ^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>):
    "graph.yield"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }) : (tensor<2xf32>, tensor<5x2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return
}
