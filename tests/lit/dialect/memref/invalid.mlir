// RUN: nart-opt %s --split-input-file --verify-diagnostics

// Rules nart checks that upstream reports from its parser or words differently.

func.func @store_into_tensor(%t: tensor<4xf32>, %x: f32, %i: index) {
  // expected-error @+1 {{expected a ranked memref type}}
  memref.store %x, %t[%i] : tensor<4xf32>
  return
}

// -----

// expected-error @+1 {{inferred shape of elements literal ([3]) does not match type ([2])}}
memref.global @g : memref<2xf32> = dense<[1.0, 2.0, 3.0]>

// -----

func.func @subview_dynamic_count(%m: memref<8xf32>, %i: index) {
  // expected-error @+1 {{expected 0 dynamic offset values}}
  %s = "memref.subview"(%m, %i) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: 2>, static_strides = array<i64: 1>}> : (memref<8xf32>, index) -> memref<2xf32, strided<[1]>>
  return
}

// -----

func.func @load_from_tensor(%t: tensor<4xf32>, %i: index) {
  // expected-error @+1 {{'memref.load' op operand #0 must be memref of any type values, but got 'tensor<4xf32>'}}
  %v = "memref.load"(%t, %i) : (tensor<4xf32>, index) -> f32
  return
}

// -----

func.func @collapse_element_type(%m: memref<2x3x4xf32>) {
  // expected-error @+1 {{'memref.collapse_shape' op expected collapsed type to be compatible with 'memref<2x3x4xf32>' but found 'memref<6x4xi32>'}}
  %0 = memref.collapse_shape %m [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xi32>
  return
}

// -----

func.func @collapse_strided_gap(%m: memref<2x4xf32, strided<[8, 1]>>) {
  // expected-error @+1 {{'memref.collapse_shape' op reassociation group dims 0 and 1 are not contiguous in memory (strides 8 and 1, size 4)}}
  %0 = memref.collapse_shape %m [[0, 1]] : memref<2x4xf32, strided<[8, 1]>> into memref<8xf32, strided<[1]>>
  return
}
