// RUN: nart-opt %s --split-input-file --verify-diagnostics

// The verifier rules of upstream's mlir/test/Dialect/MemRef/invalid.mlir, written for nart.
// Every case here also passes `mlir-opt --split-input-file --verify-diagnostics` (LLVM 22),
// which crates/nart-opt/tests/upstream_diagnostics.rs checks.

func.func @alloc_dynamic_count(%n: index) {
  // expected-error @+1 {{'memref.alloc' op incorrect number of dynamic sizes, has 1, expected 0}}
  %a = memref.alloc(%n) : memref<4x4xf32>
  return
}

// -----

func.func @alloca_dynamic_count() {
  // expected-error @+1 {{'memref.alloca' op incorrect number of dynamic sizes, has 0, expected 1}}
  %a = memref.alloca() : memref<?xf32>
  return
}

// -----

func.func @alloc_symbol_count() {
  // expected-error @+1 {{'memref.alloc' op symbol operand count does not equal memref symbol count: expected 1, got 0}}
  %a = memref.alloc() : memref<4xf32, affine_map<(d0)[s0] -> (d0 + s0)>>
  return
}

// -----

func.func @alloc_negative_alignment() {
  // expected-error @+1 {{'memref.alloc' op attribute 'alignment' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive and whose value is a power of two > 0}}
  %a = "memref.alloc"() <{alignment = 48 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4xf32>
  return
}

// -----

func.func @load_index_count(%m: memref<4x4xf32>, %i: index) {
  // expected-error @+1 {{'memref.load' op incorrect number of indices for load, expected 2 but got 1}}
  %v = memref.load %m[%i] : memref<4x4xf32>
  return
}

// -----

func.func @load_result_type(%m: memref<4xf32>, %i: index) {
  // expected-error @+1 {{'memref.load' op failed to verify that result type matches element type of 'memref'}}
  %v = "memref.load"(%m, %i) : (memref<4xf32>, index) -> i32
  return
}

// -----

func.func @store_value_type(%m: memref<4xf32>, %i: index, %x: i32) {
  // expected-error @+1 {{'memref.store' op failed to verify that type of 'value' matches element type of 'memref'}}
  "memref.store"(%x, %m, %i) : (i32, memref<4xf32>, index) -> ()
  return
}

// -----

func.func @store_index_count(%m: memref<4x4xf32>, %i: index, %x: f32) {
  // expected-error @+1 {{'memref.store' op store index operand count not equal to memref rank}}
  memref.store %x, %m[%i] : memref<4x4xf32>
  return
}

// -----

func.func @cast_element_type(%m: memref<4xf32>) {
  // expected-error @+1 {{'memref.cast' op operand type 'memref<4xf32>' and result type 'memref<4xi32>' are cast incompatible}}
  %c = memref.cast %m : memref<4xf32> to memref<4xi32>
  return
}

// -----

func.func @cast_sizes(%m: memref<4xf32>) {
  // expected-error @+1 {{'memref.cast' op operand type 'memref<4xf32>' and result type 'memref<8xf32>' are cast incompatible}}
  %c = memref.cast %m : memref<4xf32> to memref<8xf32>
  return
}

// -----

func.func @cast_unranked_to_unranked(%m: memref<*xf32>) {
  // expected-error @+1 {{'memref.cast' op operand type 'memref<*xf32>' and result type 'memref<*xf32>' are cast incompatible}}
  %c = memref.cast %m : memref<*xf32> to memref<*xf32>
  return
}

// -----

func.func @copy_element_type(%a: memref<4xf32>, %b: memref<4xi32>) {
  // expected-error @+1 {{'memref.copy' op requires the same element type for all operands}}
  memref.copy %a, %b : memref<4xf32> to memref<4xi32>
  return
}

// -----

func.func @copy_shape(%a: memref<4xf32>, %b: memref<8xf32>) {
  // expected-error @+1 {{'memref.copy' op requires the same shape for all operands}}
  memref.copy %a, %b : memref<4xf32> to memref<8xf32>
  return
}

// -----

// expected-error @+1 {{'memref.global' op type should be static shaped memref, but got 'memref<?xf32>'}}
"memref.global"() <{sym_name = "dynamic", type = memref<?xf32>}> : () -> ()

// -----

// expected-error @+1 {{'memref.global' op initial value element expected to be of type 'f32', but was of type 'i32'}}
"memref.global"() <{sym_name = "elem", type = memref<2xf32>, initial_value = dense<1> : tensor<2xi32>}> : () -> ()

// -----

// expected-error @+1 {{'memref.global' op initial value shape expected to be 2 but was 3}}
"memref.global"() <{sym_name = "shape", type = memref<2xf32>, initial_value = dense<1.0> : tensor<3xf32>}> : () -> ()

// -----

// expected-error @+1 {{'memref.global' op initial value should be a unit or elements attribute, but got "text"}}
"memref.global"() <{sym_name = "text", type = memref<2xf32>, initial_value = "text"}> : () -> ()

// -----

// expected-error @+1 {{'memref.global' op attribute 'alignment' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive and whose value is a power of two > 0}}
"memref.global"() <{sym_name = "misaligned", type = memref<2xf32>, initial_value, alignment = 3 : i64}> : () -> ()

// -----

func.func @get_global_missing() {
  // expected-error @+1 {{'memref.get_global' op 'missing' does not reference a valid global memref}}
  %g = memref.get_global @missing : memref<2xf32>
  return
}

// -----

memref.global @g : memref<2xf32> = uninitialized

func.func @get_global_type() {
  // expected-error @+1 {{'memref.get_global' op result type 'memref<4xf32>' does not match type 'memref<2xf32>' of the global memref @g}}
  %g = memref.get_global @g : memref<4xf32>
  return
}

// -----

func.func @subview_layout(%m: memref<8x16xf32>) {
  // expected-error @+1 {{expected result type to be 'memref<2x4xf32, strided<[16, 1], offset: 20>>' or a rank-reduced version. (mismatch of result layout), but got 'memref<2x4xf32, strided<[16, 1]>>'}}
  %s = memref.subview %m[1, 4] [2, 4] [1, 1] : memref<8x16xf32> to memref<2x4xf32, strided<[16, 1]>>
  return
}

// -----

func.func @subview_sizes(%m: memref<8x16xf32>) {
  // expected-error @+1 {{expected result type to be 'memref<2x4xf32, strided<[16, 1], offset: 20>>' or a rank-reduced version. (mismatch of result sizes), but got 'memref<2x5xf32, strided<[16, 1], offset: 20>>'}}
  %s = memref.subview %m[1, 4] [2, 4] [1, 1] : memref<8x16xf32> to memref<2x5xf32, strided<[16, 1], offset: 20>>
  return
}

// -----

func.func @subview_strides(%m: memref<8x16xf32>) {
  // expected-error @+1 {{expected result type to be 'memref<2x4xf32, strided<[32, 2], offset: 20>>' or a rank-reduced version. (mismatch of result layout), but got 'memref<2x4xf32, strided<[16, 1], offset: 20>>'}}
  %s = memref.subview %m[1, 4] [2, 4] [2, 2] : memref<8x16xf32> to memref<2x4xf32, strided<[16, 1], offset: 20>>
  return
}

// -----

func.func @subview_element_type(%m: memref<8x16xf32>) {
  // expected-error @+1 {{expected result element type to be 'f32', but got 'memref<2x4xi32, strided<[16, 1], offset: 20>>'}}
  %s = memref.subview %m[1, 4] [2, 4] [1, 1] : memref<8x16xf32> to memref<2x4xi32, strided<[16, 1], offset: 20>>
  return
}

// -----

func.func @subview_out_of_bounds(%m: memref<8x16xf32>) {
  // expected-error @+1 {{slice along dimension 1 runs out-of-bounds: 18 >= 16}}
  %s = memref.subview %m[1, 4] [2, 8] [1, 2] : memref<8x16xf32> to memref<2x8xf32, strided<[16, 2], offset: 20>>
  return
}

// -----

func.func @subview_offset_count(%m: memref<8x16xf32>) {
  // expected-error @+1 {{expected mixed offsets rank to match mixed sizes rank (1 vs 2) so the rank of the result type is well-formed.}}
  %s = memref.subview %m[1] [2, 4] [1, 1] : memref<8x16xf32> to memref<2x4xf32, strided<[16, 1], offset: 16>>
  return
}

// -----

func.func @reinterpret_cast_size(%m: memref<8x16xf32>) {
  // expected-error @+1 {{expected result type with size = 128 instead of 64 in dim = 0}}
  %r = memref.reinterpret_cast %m to offset: [0], sizes: [128], strides: [1] : memref<8x16xf32> to memref<64xf32>
  return
}

// -----

func.func @reinterpret_cast_offset(%m: memref<8x16xf32>) {
  // expected-error @+1 {{expected result type with offset = 4 instead of 0}}
  %r = memref.reinterpret_cast %m to offset: [4], sizes: [16], strides: [1] : memref<8x16xf32> to memref<16xf32>
  return
}

// -----

func.func @reinterpret_cast_stride(%m: memref<8x16xf32>) {
  // expected-error @+1 {{expected result type with stride = 2 instead of 1 in dim = 0}}
  %r = memref.reinterpret_cast %m to offset: [0], sizes: [16], strides: [2] : memref<8x16xf32> to memref<16xf32>
  return
}

// -----

func.func @reinterpret_cast_element(%m: memref<8x16xf32>) {
  // expected-error @+1 {{different element types specified for source type 'memref<8x16xf32>' and result memref type 'memref<16xi32>'}}
  %r = memref.reinterpret_cast %m to offset: [0], sizes: [16], strides: [1] : memref<8x16xf32> to memref<16xi32>
  return
}

// -----

func.func @collapse_group_count(%m: memref<2x3x4xf32>) {
  // expected-error @+1 {{'memref.collapse_shape' op invalid number of reassociation groups: found 1, expected 2}}
  %0 = memref.collapse_shape %m [[0, 1]] : memref<2x3x4xf32> into memref<6x4xf32>
  return
}

// -----

func.func @collapse_not_contiguous(%m: memref<2x3x4xf32>) {
  // expected-error @+1 {{'memref.collapse_shape' op reassociation indices must be contiguous}}
  %0 = memref.collapse_shape %m [[0, 2], [1]] : memref<2x3x4xf32> into memref<8x3xf32>
  return
}

// -----

func.func @collapse_size(%m: memref<2x3x4xf32>) {
  // expected-error @+1 {{'memref.collapse_shape' op collapsed dim size (5) must equal reassociation group size (6)}}
  %0 = memref.collapse_shape %m [[0, 1], [2]] : memref<2x3x4xf32> into memref<5x4xf32>
  return
}

// -----

func.func @expand_size(%m: memref<6x4xf32>) {
  // expected-error @+1 {{'memref.expand_shape' op collapsed dim size (6) must equal reassociation group size (8)}}
  %0 = memref.expand_shape %m [[0, 1], [2]] output_shape [2, 4, 4] : memref<6x4xf32> into memref<2x4x4xf32>
  return
}
