// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(nart-bufferize)' | filecheck %s
// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(nart-bufferize{arena=true})' | filecheck %s --check-prefix=ARENA

// A chain of structured ops: each writes into a fresh buffer (in place, as nothing else reads
// it), the last one straight into the out-parameter; the tensor constant becomes a global.
// CHECK: memref.global "private" constant @__constant_0 : memref<3xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> {alignment = 64 : i64}
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%arg0: memref<2x3xf32>, %arg1: memref<2x3xf32>)
// CHECK-NEXT: %[[C:.*]] = memref.get_global @__constant_0 : memref<3xf32>
// CHECK-NEXT: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
// CHECK-NEXT: linalg.generic {{.*}} ins(%arg0, %[[C]] : memref<2x3xf32>, memref<3xf32>) outs(%[[T]] : memref<2x3xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[T]] : memref<2x3xf32>) outs(%arg1 : memref<2x3xf32>)
// CHECK: return
// CHECK-NOT: memref.copy
// ARENA-LABEL: func.func @chain
// ARENA-SAME: (%arg0: memref<2x3xf32>, %arg1: memref<2x3xf32>, %arg2: memref<24xi8>)
// ARENA: %[[O:.*]] = arith.constant 0 : index
// ARENA-NEXT: %[[V:.*]] = memref.view %arg2[%[[O]]][] : memref<24xi8> to memref<2x3xf32>
// ARENA-NOT: memref.alloc
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @chain(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %b = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %e0 = tensor.empty() : tensor<2x3xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e0 : tensor<2x3xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %e1 = tensor.empty() : tensor<2x3xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<2x3xf32>) outs(%e1 : tensor<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// An init read again later is not written in place: it is copied first. An argument is
// never written: it is copied too (here straight into the out-parameter, which the function
// then updates in place). A returned buffer the function allocated is the out-parameter.
// CHECK-LABEL: func.func @copies
// CHECK-SAME: (%arg0: memref<4xf32>, %arg1: memref<4xf32>, %arg2: memref<4xf32>)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%arg2 : memref<4xf32>)
// CHECK-NEXT: %[[A:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NEXT: memref.copy %arg2, %[[A]] : memref<4xf32> to memref<4xf32>
// CHECK-NEXT: linalg.generic {{.*}} ins(%arg0 : memref<4xf32>) outs(%[[A]] : memref<4xf32>)
// CHECK: memref.copy %arg0, %arg1 : memref<4xf32> to memref<4xf32>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[A]] : memref<4xf32>) outs(%arg1 : memref<4xf32>)
#m = affine_map<(d0) -> (d0)>
func.func @copies(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %1, %f : tensor<4xf32>, tensor<4xf32>
}

// -----

// Pads, reshapes and concatenations.
// CHECK-LABEL: func.func @data_movement
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x1x4x4xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[P]] : memref<1x1x4x4xf32>)
// CHECK-NEXT: %[[W:.*]] = memref.subview %[[P]][0, 0, 1, 1] [1, 1, 2, 2] [1, 1, 1, 1] : memref<1x1x4x4xf32> to memref<1x1x2x2xf32, strided<[16, 16, 4, 1], offset: 5>>
// CHECK-NEXT: memref.copy %arg0, %[[W]]
// CHECK: memref.reinterpret_cast %[[P]] to offset: [0], sizes: [16], strides: [1] : memref<1x1x4x4xf32> to memref<16xf32>
// CHECK: memref.subview %{{.*}}[0] [16] [1] : memref<20xf32> to memref<16xf32, strided<[1]>>
// CHECK: memref.subview %{{.*}}[16] [4] [1] : memref<20xf32> to memref<4xf32, strided<[1], offset: 16>>
func.func @data_movement(%x: tensor<1x1x2x2xf32>, %y: tensor<4xf32>) -> tensor<20xf32> {
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %z = arith.constant 0.0 : f32
    tensor.yield %z : f32
  } : tensor<1x1x2x2xf32> to tensor<1x1x4x4xf32>
  %f = tensor.collapse_shape %p [[0, 1, 2, 3]] : tensor<1x1x4x4xf32> into tensor<16xf32>
  %c = tensor.concat dim(0) %f, %y : (tensor<16xf32>, tensor<4xf32>) -> tensor<20xf32>
  return %c : tensor<20xf32>
}
