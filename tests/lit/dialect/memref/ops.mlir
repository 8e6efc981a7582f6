// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s

// CHECK: memref.global "private" constant @weights : memref<2x2xf32> = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> {alignment = 64 : i64}
// CHECK-NEXT: memref.global @state : memref<4xi8> = uninitialized
// CHECK-NEXT: memref.global "private" @declared : memref<16xf32>
// CHECK-NEXT: memref.global "private" constant @splat : memref<3xi32> = dense<7>
memref.global "private" constant @weights : memref<2x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0]]> {alignment = 64 : i64}
memref.global @state : memref<4xi8> = uninitialized
memref.global "private" @declared : memref<16xf32>
memref.global "private" constant @splat : memref<3xi32> = dense<7>

// CHECK-LABEL: func.func @allocation
// CHECK-NEXT: %[[A:.*]] = memref.alloc() : memref<8x64xf32>
// CHECK-NEXT: %[[B:.*]] = memref.alloc(%arg0) {alignment = 64 : i64} : memref<?x4xf32>
// CHECK-NEXT: %[[C:.*]] = memref.alloca(%arg0, %arg0) : memref<?x?xi8>
// CHECK-NEXT: %{{.*}} = memref.alloc()[%arg0] : memref<4xf32, {{.*}}>
// CHECK-NEXT: memref.dealloc %[[A]] : memref<8x64xf32>
// CHECK-NEXT: memref.dealloc %[[B]] : memref<?x4xf32>
func.func @allocation(%n: index) {
  %a = memref.alloc() : memref<8x64xf32>
  %b = memref.alloc(%n) {alignment = 64 : i64} : memref<?x4xf32>
  %c = memref.alloca(%n, %n) : memref<?x?xi8>
  %d = memref.alloc()[%n] : memref<4xf32, affine_map<(d0)[s0] -> (d0 + s0)>>
  memref.dealloc %a : memref<8x64xf32>
  memref.dealloc %b : memref<?x4xf32>
  return
}

// CHECK-LABEL: func.func @access
// CHECK-NEXT: %[[V:.*]] = memref.load %arg0[%arg1, %arg2] : memref<8x?xf32>
// CHECK-NEXT: memref.store %[[V]], %arg0[%arg2, %arg1] : memref<8x?xf32>
// CHECK-NEXT: %[[S:.*]] = memref.load %arg3[] : memref<i32>
// CHECK-NEXT: memref.store %[[S]], %arg3[] : memref<i32>
// CHECK-NEXT: %{{.*}} = memref.dim %arg0, %arg1 : memref<8x?xf32>
// CHECK-NEXT: %{{.*}} = memref.get_global @weights : memref<2x2xf32>
func.func @access(%m: memref<8x?xf32>, %i: index, %j: index, %s: memref<i32>) {
  %v = memref.load %m[%i, %j] : memref<8x?xf32>
  memref.store %v, %m[%j, %i] : memref<8x?xf32>
  %x = memref.load %s[] : memref<i32>
  memref.store %x, %s[] : memref<i32>
  %d = memref.dim %m, %i : memref<8x?xf32>
  %w = memref.get_global @weights : memref<2x2xf32>
  return
}

// CHECK-LABEL: func.func @casts_and_copies
// CHECK-NEXT: %{{.*}} = memref.cast %arg0 : memref<4x?xf32> to memref<?x?xf32>
// CHECK-NEXT: %{{.*}} = memref.cast %arg0 : memref<4x?xf32> to memref<*xf32>
// CHECK-NEXT: %{{.*}} = memref.cast %arg1 : memref<*xf32> to memref<4x8xf32>
// CHECK-NEXT: %{{.*}} = memref.cast %arg2 : memref<4xf32, strided<[2], offset: 3>> to memref<4xf32, strided<[?], offset: ?>>
// CHECK-NEXT: memref.copy %arg2, %arg3 : memref<4xf32, strided<[2], offset: 3>> to memref<4xf32>
func.func @casts_and_copies(%a: memref<4x?xf32>, %u: memref<*xf32>, %s: memref<4xf32, strided<[2], offset: 3>>, %d: memref<4xf32>) {
  %0 = memref.cast %a : memref<4x?xf32> to memref<?x?xf32>
  %1 = memref.cast %a : memref<4x?xf32> to memref<*xf32>
  %2 = memref.cast %u : memref<*xf32> to memref<4x8xf32>
  %3 = memref.cast %s : memref<4xf32, strided<[2], offset: 3>> to memref<4xf32, strided<[?], offset: ?>>
  memref.copy %s, %d : memref<4xf32, strided<[2], offset: 3>> to memref<4xf32>
  return
}

// CHECK-LABEL: func.func @views
// CHECK-NEXT: %{{.*}} = memref.subview %arg0[%arg1, 4] [2, %arg2] [1, 2] : memref<8x16xf32> to memref<2x?xf32, strided<[16, 2], offset: ?>>
// CHECK-NEXT: %{{.*}} = memref.subview %arg0[3, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: 48>>
// CHECK-NEXT: %{{.*}} = memref.subview %arg0[0, 0] [8, 16] [1, 1] : memref<8x16xf32> to memref<8x16xf32>
// CHECK-NEXT: %{{.*}} = memref.subview %arg3[2, %arg1] [4, 4] [2, 1] : memref<?x?xf32, strided<[?, 1], offset: ?>> to memref<4x4xf32, strided<[?, 1], offset: ?>>
// CHECK-NEXT: %{{.*}} = memref.reinterpret_cast %arg0 to offset: [0], sizes: [128], strides: [1] : memref<8x16xf32> to memref<128xf32>
// CHECK-NEXT: %{{.*}} = memref.reinterpret_cast %arg0 to offset: [%arg1], sizes: [%arg2, 4], strides: [4, 1] : memref<8x16xf32> to memref<?x4xf32, strided<[4, 1], offset: ?>>
func.func @views(%m: memref<8x16xf32>, %i: index, %n: index, %d: memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  %0 = memref.subview %m[%i, 4][2, %n][1, 2] : memref<8x16xf32> to memref<2x?xf32, strided<[16, 2], offset: ?>>
  %1 = memref.subview %m[3, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: 48>>
  %2 = memref.subview %m[0, 0] [8, 16] [1, 1] : memref<8x16xf32> to memref<8x16xf32>
  %3 = memref.subview %d[2, %i] [4, 4] [2, 1] : memref<?x?xf32, strided<[?, 1], offset: ?>> to memref<4x4xf32, strided<[?, 1], offset: ?>>
  %4 = memref.reinterpret_cast %m to offset: [0], sizes: [128], strides: [1] : memref<8x16xf32> to memref<128xf32>
  %5 = memref.reinterpret_cast %m to offset: [%i], sizes: [%n, 4], strides: [4, 1] : memref<8x16xf32> to memref<?x4xf32, strided<[4, 1], offset: ?>>
  return
}

// CHECK-LABEL: func.func @reshapes
// CHECK-NEXT: %[[C:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
// CHECK-NEXT: %{{.*}} = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : memref<2x3x4xf32> into memref<24xf32>
// CHECK-NEXT: %{{.*}} = memref.expand_shape %[[C]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 4] : memref<6x4xf32> into memref<2x3x4xf32>
// CHECK-NEXT: %{{.*}} = memref.expand_shape %arg1 {{\[\[}}0, 1], [2]] output_shape [%arg2, 2, 4] : memref<?x4xf32> into memref<?x2x4xf32>
// CHECK-NEXT: %{{.*}} = memref.expand_shape %arg3 {{\[\[}}0], [1, 2]] output_shape [4, 2, 4] : memref<4x8xf32, strided<[16, 1], offset: 2>> into memref<4x2x4xf32, strided<[16, 4, 1], offset: 2>>
func.func @reshapes(%m: memref<2x3x4xf32>, %d: memref<?x4xf32>, %n: index, %s: memref<4x8xf32, strided<[16, 1], offset: 2>>) {
  %0 = memref.collapse_shape %m [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
  %1 = memref.collapse_shape %m [[0, 1, 2]] : memref<2x3x4xf32> into memref<24xf32>
  %2 = memref.expand_shape %0 [[0, 1], [2]] output_shape [2, 3, 4] : memref<6x4xf32> into memref<2x3x4xf32>
  %3 = memref.expand_shape %d [[0, 1], [2]] output_shape [%n, 2, 4] : memref<?x4xf32> into memref<?x2x4xf32>
  %4 = memref.expand_shape %s [[0], [1, 2]] output_shape [4, 2, 4] : memref<4x8xf32, strided<[16, 1], offset: 2>> into memref<4x2x4xf32, strided<[16, 4, 1], offset: 2>>
  return
}
