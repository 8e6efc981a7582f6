// RUN: nart-opt %s --split-input-file --verify-diagnostics

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @map_count(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{expected the number of indexing_map (1) to be equal to the number of input/output operands (2)}}
  %0 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @map_dims(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{expected indexing_map #0 to have 3 dim(s) to match the number of loops}}
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

func.func @map_rank(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{expected operand rank (2) to match the result rank of indexing_map #1 (1)}}
  %0 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>

func.func @loop_ranges(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{inferred input/output operand #1 has shape's dimension #0 to be 8, but found 4}}
  %0 = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @block_args(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{expected type of bb argument #0 ('i32') to match element or self type of the corresponding operand ('f32')}}
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) {
  ^bb0(%in: i32, %out: f32):
    linalg.yield %out : f32
  } -> tensor<4x8xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @yield_type(%a: tensor<4x8xf32>, %x: i32) {
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    // expected-error @+1 {{type of yield operand 1 ('i32') doesn't match the element type of the enclosing linalg.generic op ('f32')}}
    linalg.yield %x : i32
  } -> tensor<4x8xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @index_dim(%a: tensor<4x8xf32>) {
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    // expected-error @+1 {{expected dim (2) to be lower than the number of loops (2) of the enclosing LinalgOp}}
    %i = linalg.index 2 : index
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @buffer_results(%a: memref<4x8xf32>) {
  // expected-error @+1 {{expected 0 results, one of each tensor init's type, got 1}}
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32>) outs(%a : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  return
}

// -----

func.func @matmul_shapes(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>, %c: tensor<4x16xf32>) {
  // expected-error @+1 {{inferred input/output operand #1 has shape's dimension #0 to be 8, but found 7}}
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<7x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @conv_window(%i: tensor<1x3x8x8xf32>, %w: tensor<5x3x3x3xf32>, %o: tensor<1x5x7x6xf32>) {
  // expected-error @+1 {{inferred input/output operand #0 has shape's dimension #2 to be greater than or equal to 9, but found 8}}
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %w : tensor<1x3x8x8xf32>, tensor<5x3x3x3xf32>) outs(%o : tensor<1x5x7x6xf32>) -> tensor<1x5x7x6xf32>
  return
}

// -----

func.func @transpose_perm(%a: tensor<4x8xf32>, %e: tensor<8x4xf32>) {
  // expected-error @+1 {{permutation is not valid}}
  %0 = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 1]
  return
}

// -----

func.func @transpose_shape(%a: tensor<4x8xf32>, %e: tensor<4x8xf32>) {
  // expected-error @+1 {{inferred input/output operand #1 has shape's dimension #0 to be 8, but found 4}}
  %0 = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) permutation = [1, 0]
  return
}

// -----

func.func @iterator_kind(%a: tensor<4xf32>) {
  // expected-error @+1 {{unknown iterator type 'sideways'}}
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["sideways"]} ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  return
}

// -----

// A named op with the wrong number of operands gets no body, and a diagnostic.
func.func @matmul_operands(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{expected the number of indexing_map (3) to be equal to the number of input/output operands (2)}}
  %0 = linalg.matmul ins(%a : tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @fill_operands(%t: tensor<6xf32>) {
  // expected-error @+1 {{expected the number of indexing_map (2) to be equal to the number of input/output operands (1)}}
  %0 = "linalg.fill"(%t) <{operandSegmentSizes = array<i32: 0, 1>}> ({
  ^bb0(%x: f32):
    linalg.yield %x : f32
  }) : (tensor<6xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @conv_strides(%i: tensor<1x1x4x4xf32>, %w: tensor<1x1x3x3xf32>, %o: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{expected strides to be two positive i64 values}}
  %0 = linalg.conv_2d_nchw_fchw {strides = dense<[0, 1]> : tensor<2xi64>} ins(%i, %w : tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) outs(%o : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return
}

// -----

// Several results need parentheses after the arrow (upstream reads only one type without them).
func.func @two_results_without_parentheses(%a: tensor<4xf32>, %i0: tensor<f32>, %i1: tensor<f32>) {
  // expected-error@+1 {{operation defines 1 results but was provided 2 to bind}}
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%a : tensor<4xf32>) outs(%i0, %i1 : tensor<f32>, tensor<f32>) {
  ^bb0(%x: f32, %o0: f32, %o1: f32):
    linalg.yield %x, %x : f32, f32
  } -> tensor<f32>, tensor<f32>
  return
}
