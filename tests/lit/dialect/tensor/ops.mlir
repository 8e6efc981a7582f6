// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s

// CHECK-LABEL: func.func @create_and_read
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT: %[[D:.*]] = tensor.empty(%arg1) : tensor<4x?xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.cast %[[D]] : tensor<4x?xf32> to tensor<4x8xf32>
// CHECK-NEXT: %[[N:.*]] = tensor.dim %[[D]], %arg1 : tensor<4x?xf32>
// CHECK-NEXT: %{{.*}} = tensor.extract %arg0[%arg1, %[[N]]] : tensor<4x8xf32>
func.func @create_and_read(%t: tensor<4x8xf32>, %i: index) -> f32 {
  %e = tensor.empty() : tensor<4x8xf32>
  %d = tensor.empty(%i) : tensor<4x?xf32>
  %c = tensor.cast %d : tensor<4x?xf32> to tensor<4x8xf32>
  %n = tensor.dim %d, %i : tensor<4x?xf32>
  %x = tensor.extract %t[%i, %n] : tensor<4x8xf32>
  return %x : f32
}

// CHECK-LABEL: func.func @slices
// CHECK-NEXT: %[[S:.*]] = tensor.extract_slice %arg0[0, 2] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.extract_slice %arg0[%arg1, 0] [1, 8] [1, 1] : tensor<8x8xf32> to tensor<8xf32>
// CHECK-NEXT: %[[T:.*]] = tensor.extract_slice %arg0[0, 0] [4, 4] [2, 2] : tensor<8x8xf32> to tensor<4x4xf32>
// CHECK-NEXT: %{{.*}} = tensor.insert_slice %[[S]] into %arg0[%arg1, 4] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>
func.func @slices(%t: tensor<8x8xf32>, %i: index) -> tensor<8x8xf32> {
  %s = tensor.extract_slice %t[0, 2] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  %r = tensor.extract_slice %t[%i, 0] [1, 8] [1, 1] : tensor<8x8xf32> to tensor<8xf32>
  %u = tensor.extract_slice %t[0, 0] [4, 4] [2, 2] : tensor<8x8xf32> to tensor<4x4xf32>
  %w = tensor.insert_slice %s into %t[%i, 4] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>
  return %w : tensor<8x8xf32>
}

// CHECK-LABEL: func.func @pad
// CHECK: %{{.*}} = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 2, %arg1, 0] {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:   tensor.yield %{{.*}} : f32
// CHECK-NEXT: } : tensor<1x4x4x3xf32> to tensor<1x7x?x3xf32>
func.func @pad(%t: tensor<1x4x4x3xf32>, %h: index) -> tensor<1x7x?x3xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %t low[0, 1, 1, 0] high[0, 2, %h, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x4x3xf32> to tensor<1x7x?x3xf32>
  return %p : tensor<1x7x?x3xf32>
}

// CHECK-LABEL: func.func @reshapes
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK-NEXT: %{{.*}} = tensor.expand_shape %[[C]] {{\[\[}}0, 1], [2]] output_shape [3, 2, 4] : tensor<6x4xf32> into tensor<3x2x4xf32>
// CHECK-NEXT: %{{.*}} = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
func.func @reshapes(%t: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %e = tensor.expand_shape %c [[0, 1], [2]] output_shape [3, 2, 4] : tensor<6x4xf32> into tensor<3x2x4xf32>
  %f = tensor.collapse_shape %t [[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
  return %e : tensor<3x2x4xf32>
}

// To and from rank 0: no groups, every other dimension a unit.
// CHECK-LABEL: func.func @reshapes_rank0
// CHECK-NEXT: %{{.*}} = tensor.collapse_shape %arg0 [] : tensor<1x1xf32> into tensor<f32>
// CHECK-NEXT: %{{.*}} = tensor.expand_shape %arg1 [] output_shape [1, 1, 1] : tensor<f32> into tensor<1x1x1xf32>
func.func @reshapes_rank0(%t: tensor<1x1xf32>, %s: tensor<f32>) -> tensor<1x1x1xf32> {
  %c = tensor.collapse_shape %t [] : tensor<1x1xf32> into tensor<f32>
  %e = tensor.expand_shape %s [] output_shape [1, 1, 1] : tensor<f32> into tensor<1x1x1xf32>
  return %e : tensor<1x1x1xf32>
}

// CHECK-LABEL: func.func @concat
// CHECK-NEXT: %{{.*}} = tensor.concat dim(1) %arg0, %arg1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %c = tensor.concat dim(1) %a, %b : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %c : tensor<2x8xf32>
}
