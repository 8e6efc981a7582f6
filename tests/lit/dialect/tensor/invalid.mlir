// RUN: nart-opt %s --split-input-file --verify-diagnostics

func.func @empty_sizes(%i: index) {
  // expected-error @+1 {{incorrect number of dynamic sizes, has 1, expected 0}}
  %0 = tensor.empty(%i) : tensor<4x8xf32>
  return
}

// -----

func.func @cast_incompatible(%t: tensor<4xf32>) {
  // expected-error @+1 {{operand type 'tensor<4xf32>' and result type 'tensor<5xf32>' are cast incompatible}}
  %0 = tensor.cast %t : tensor<4xf32> to tensor<5xf32>
  return
}

// -----

func.func @slice_out_of_bounds(%t: tensor<8x8xf32>) {
  // expected-error @+1 {{slice along dimension 1 runs out-of-bounds: offset 6, size 4, stride 1, dimension 8}}
  %0 = tensor.extract_slice %t[0, 6] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  return
}

// -----

func.func @slice_result_shape(%t: tensor<8x8xf32>) {
  // expected-error @+1 {{expected result type to be '4x4' or a rank-reduced version (size mismatch)}}
  %0 = tensor.extract_slice %t[0, 0] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x3xf32>
  return
}

// -----

func.func @pad_shape(%t: tensor<4x4xf32>, %z: f32) {
  // expected-error @+1 {{specified type 'tensor<6x6xf32>' does not match the inferred type 'tensor<6x7xf32>'}}
  %0 = tensor.pad %t low[1, 1] high[1, 2] {
  ^bb0(%a: index, %b: index):
    tensor.yield %z : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  return
}

// -----

func.func @collapse_sizes(%t: tensor<2x3x4xf32>) {
  // expected-error @+1 {{expected collapsed dimension 0 to be 6, but got 5}}
  %0 = tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<5x4xf32>
  return
}

// -----

func.func @collapse_rank0(%t: tensor<1x2xf32>) {
  // expected-error @+1 {{expected every expanded dimension to be 1 when the collapsed rank is 0}}
  %0 = tensor.collapse_shape %t [] : tensor<1x2xf32> into tensor<f32>
  return
}

// -----

func.func @collapse_order(%t: tensor<2x3x4xf32>) {
  // expected-error @+1 {{expected reassociation map #0 to be valid and contiguous}}
  %0 = tensor.collapse_shape %t [[1, 0], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  return
}

// -----

func.func @expand_output_shape(%t: tensor<6x4xf32>) {
  // expected-error @+1 {{invalid output shape provided at pos 0}}
  %0 = tensor.expand_shape %t [[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<3x2x4xf32>
  return
}

// -----

func.func @concat_sizes(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) {
  // expected-error @+1 {{result type 'tensor<2x9xf32>' does not match inferred shape along dimension 1 (8)}}
  %0 = tensor.concat dim(1) %a, %b : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x9xf32>
  return
}

// -----

func.func @extract_indices(%t: tensor<4x8xf32>, %i: index) {
  // expected-error @+1 {{incorrect number of indices for extract_element}}
  %0 = tensor.extract %t[%i] : tensor<4x8xf32>
  return
}
