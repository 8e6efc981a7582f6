// RUN: nart-opt %s --split-input-file --verify-diagnostics

// The verifier rules of upstream's mlir/test/Dialect/Vector/invalid.mlir, written for nart.
// Every case here also passes `mlir-opt --split-input-file --verify-diagnostics` (LLVM 22),
// which crates/nart-opt/tests/upstream_diagnostics.rs checks.

func.func @broadcast_rank(%v: vector<2x4xf32>) {
  // expected-error @+1 {{'vector.broadcast' op source rank higher than destination rank}}
  %0 = vector.broadcast %v : vector<2x4xf32> to vector<4xf32>
  return
}

// -----

func.func @broadcast_dim(%v: vector<3xf32>) {
  // expected-error @+1 {{'vector.broadcast' op dimension mismatch (3 vs. 4)}}
  %0 = vector.broadcast %v : vector<3xf32> to vector<2x4xf32>
  return
}

// -----

func.func @load_indices(%m: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{'vector.load' op requires 2 indices}}
  %0 = vector.load %m[%i] : memref<8x16xf32>, vector<8xf32>
  return
}

// -----

func.func @load_element_type(%m: memref<8x16xf32>, %i: index) {
  // expected-error @+1 {{'vector.load' op base and result element types should match}}
  %0 = vector.load %m[%i, %i] : memref<8x16xf32>, vector<8xi32>
  return
}

// -----

func.func @store_indices(%m: memref<8x16xf32>, %i: index, %v: vector<8xf32>) {
  // expected-error @+1 {{'vector.store' op requires 2 indices}}
  vector.store %v, %m[%i] : memref<8x16xf32>, vector<8xf32>
  return
}

// -----

func.func @extract_position(%v: vector<4x8xf32>) {
  // expected-error @+1 {{'vector.extract' op expected position attribute #2 to be a non-negative integer smaller than the corresponding vector dimension or poison (-1)}}
  %0 = vector.extract %v[1, 8] : f32 from vector<4x8xf32>
  return
}

// -----

func.func @extract_too_many(%v: vector<4xf32>) {
  // expected-error @+1 {{'vector.extract' op expected position attribute of rank no greater than vector rank}}
  %0 = vector.extract %v[1, 2] : f32 from vector<4xf32>
  return
}

// -----

func.func @insert_position(%v: vector<4x8xf32>, %x: f32) {
  // expected-error @+1 {{'vector.insert' op expected position attribute #1 to be a non-negative integer smaller than the corresponding dest vector dimension}}
  %0 = vector.insert %x, %v [4, 1] : f32 into vector<4x8xf32>
  return
}

// -----

func.func @reduction_rank(%v: vector<4x4xf32>) {
  // expected-error @+1 {{'vector.reduction' op unsupported reduction rank: 2}}
  %0 = vector.reduction <add>, %v : vector<4x4xf32> into f32
  return
}

// -----

func.func @outerproduct_dims(%a: vector<4xf32>, %b: vector<8xf32>, %acc: vector<4x4xf32>) {
  // expected-error @+1 {{'vector.outerproduct' op expected operand #3 of same type as result type}}
  %0 = "vector.outerproduct"(%a, %b, %acc) <{kind = #vector.kind<add>}> : (vector<4xf32>, vector<8xf32>, vector<4x4xf32>) -> vector<4x8xf32>
  return
}

// -----

func.func @shuffle_index(%v: vector<4xf32>) {
  // expected-error @+1 {{'vector.shuffle' op mask index #2 out of range}}
  %0 = vector.shuffle %v, %v [0, 8] : vector<4xf32>, vector<4xf32>
  return
}

// -----

func.func @shuffle_rank(%v: vector<4xf32>, %w: vector<2x4xf32>) {
  // expected-error @+1 {{'vector.shuffle' op rank mismatch}}
  %0 = vector.shuffle %v, %w [0, 1] : vector<4xf32>, vector<2x4xf32>
  return
}

// -----

func.func @transfer_read_indices(%m: memref<8x16xf32>, %i: index, %pad: f32) {
  // expected-error @+1 {{'vector.transfer_read' op requires 2 indices}}
  %0 = vector.transfer_read %m[%i], %pad : memref<8x16xf32>, vector<8xf32>
  return
}

// -----

func.func @transfer_read_padding(%m: memref<8x16xf32>, %i: index, %pad: i32) {
  // expected-error @+1 {{'vector.transfer_read' op requires formal padding and source of the same elemental type}}
  %0 = "vector.transfer_read"(%m, %i, %i, %pad) <{in_bounds = [false], operandSegmentSizes = array<i32: 1, 2, 1, 0>, permutation_map = affine_map<(d0, d1) -> (d1)>}> : (memref<8x16xf32>, index, index, i32) -> vector<8xf32>
  return
}

// -----

func.func @transfer_read_map_dims(%m: memref<8x16xf32>, %i: index, %pad: f32) {
  // expected-error @+1 {{'vector.transfer_read' op requires a permutation_map with input dims of the same rank as the source type}}
  %0 = vector.transfer_read %m[%i, %i], %pad {permutation_map = affine_map<(d0) -> (d0)>} : memref<8x16xf32>, vector<8xf32>
  return
}

// -----

func.func @transfer_read_map_results(%m: memref<8x16xf32>, %i: index, %pad: f32) {
  // expected-error @+1 {{'vector.transfer_read' op requires a permutation_map with result dims of the same rank as the vector type}}
  %0 = vector.transfer_read %m[%i, %i], %pad {permutation_map = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x16xf32>, vector<8xf32>
  return
}

// -----

func.func @transfer_write_indices(%m: memref<8x16xf32>, %i: index, %v: vector<8xf32>) {
  // expected-error @+1 {{'vector.transfer_write' op requires 2 indices}}
  vector.transfer_write %v, %m[%i] : vector<8xf32>, memref<8x16xf32>
  return
}

// -----

func.func @from_elements_count(%x: f32) {
  // expected-error @+1 {{'vector.from_elements' op failed to verify that shaped type 'dest' matches 'elements' element count and types}}
  %0 = "vector.from_elements"(%x, %x) : (f32, f32) -> vector<4xf32>
  return
}

// -----

func.func @contract_map_count(%a: vector<4x8xf32>, %b: vector<8x4xf32>, %c: vector<4x4xf32>) {
  // expected-error @+1 {{'vector.contract' op expected an indexing map for each vector operand}}
  %0 = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>], iterator_types = ["parallel", "parallel", "reduction"]} %a, %b, %c : vector<4x8xf32>, vector<8x4xf32> into vector<4x4xf32>
  return
}

// -----

func.func @contract_map_inputs(%a: vector<4x8xf32>, %b: vector<8x4xf32>, %c: vector<4x4xf32>) {
  // expected-error @+1 {{'vector.contract' op expected indexing map 2 to have 3 number of inputs}}
  %0 = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} %a, %b, %c : vector<4x8xf32>, vector<8x4xf32> into vector<4x4xf32>
  return
}

// -----

func.func @contract_no_reduction(%a: vector<4x8xf32>, %b: vector<8x4xf32>, %c: vector<4x4xf32>) {
  // expected-error @+1 {{'vector.contract' op expected at least one contracting dimension pair}}
  %0 = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} %a, %b, %c : vector<4x8xf32>, vector<8x4xf32> into vector<4x4xf32>
  return
}

// -----

func.func @contract_acc_shape(%a: vector<4x8xf32>, %b: vector<8x4xf32>, %c: vector<4x5xf32>) {
  // expected-error @+1 {{'vector.contract' op invalid accumulator/result vector shape, expected: 'vector<4x4xf32>'}}
  %0 = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} %a, %b, %c : vector<4x8xf32>, vector<8x4xf32> into vector<4x5xf32>
  return
}
