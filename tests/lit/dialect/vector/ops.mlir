// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s

// CHECK-LABEL: func.func @transfers
// CHECK-NEXT: %[[R:.*]] = vector.transfer_read %arg0[%arg1, %arg1], %arg2 : memref<8x16xf32>, vector<8xf32>
// CHECK-NEXT: %{{.*}} = vector.transfer_read %arg0[%arg1, %arg1], %arg2 {in_bounds = [true]} : memref<8x16xf32>, vector<8xf32>
// CHECK-NEXT: %{{.*}} = vector.transfer_read %arg0[%arg1, %arg1], %arg2 {permutation_map = {{.*}}} : memref<8x16xf32>, vector<4xf32>
// CHECK-NEXT: %{{.*}} = vector.transfer_read %arg0[%arg1, %arg1], %arg2, %arg3 : memref<8x16xf32>, vector<8xf32>
// CHECK-NEXT: vector.transfer_write %[[R]], %arg0[%arg1, %arg1] {in_bounds = [true]} : vector<8xf32>, memref<8x16xf32>
// CHECK-NEXT: vector.transfer_write %[[R]], %arg0[%arg1, %arg1], %arg3 : vector<8xf32>, memref<8x16xf32>
// CHECK-NEXT: %{{.*}} = vector.transfer_write %[[R]], %arg4[%arg1] : vector<8xf32>, tensor<16xf32>
func.func @transfers(%m: memref<8x16xf32>, %i: index, %pad: f32, %mask: vector<8xi1>, %t: tensor<16xf32>) {
  %r = vector.transfer_read %m[%i, %i], %pad : memref<8x16xf32>, vector<8xf32>
  %r1 = vector.transfer_read %m[%i, %i], %pad {in_bounds = [true]} : memref<8x16xf32>, vector<8xf32>
  %r2 = vector.transfer_read %m[%i, %i], %pad {permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<8x16xf32>, vector<4xf32>
  %r3 = vector.transfer_read %m[%i, %i], %pad, %mask : memref<8x16xf32>, vector<8xf32>
  vector.transfer_write %r, %m[%i, %i] {in_bounds = [true]} : vector<8xf32>, memref<8x16xf32>
  vector.transfer_write %r, %m[%i, %i], %mask : vector<8xf32>, memref<8x16xf32>
  %t2 = vector.transfer_write %r, %t[%i] : vector<8xf32>, tensor<16xf32>
  return
}

// CHECK-LABEL: func.func @loads_and_stores
// CHECK-NEXT: %[[L:.*]] = vector.load %arg0[%arg1, %arg1] : memref<8x16xf32>, vector<8xf32>
// CHECK-NEXT: vector.store %[[L]], %arg0[%arg1, %arg1] : memref<8x16xf32>, vector<8xf32>
// CHECK-NEXT: %{{.*}} = vector.load %arg0[%arg1, %arg1] : memref<8x16xf32>, vector<2x8xf32>
func.func @loads_and_stores(%m: memref<8x16xf32>, %i: index) {
  %l = vector.load %m[%i, %i] : memref<8x16xf32>, vector<8xf32>
  vector.store %l, %m[%i, %i] : memref<8x16xf32>, vector<8xf32>
  %l2 = vector.load %m[%i, %i] : memref<8x16xf32>, vector<2x8xf32>
  return
}

// CHECK-LABEL: func.func @building
// CHECK-NEXT: %{{.*}} = vector.broadcast %arg0 : f32 to vector<4xf32>
// CHECK-NEXT: %{{.*}} = vector.broadcast %arg1 : vector<4xf32> to vector<2x4xf32>
// CHECK-NEXT: %{{.*}} = vector.broadcast %arg3 : vector<1x4xf32> to vector<3x4xf32>
// CHECK-NEXT: %{{.*}} = vector.from_elements %arg0, %arg0, %arg0, %arg0 : vector<4xf32>
// CHECK-NEXT: %{{.*}} = vector.from_elements %arg0, %arg0 : vector<2x1xf32>
// CHECK-NEXT: %{{.*}} = vector.extract %arg2[1, 2] : f32 from vector<4x8xf32>
// CHECK-NEXT: %{{.*}} = vector.extract %arg2[%arg4] : vector<8xf32> from vector<4x8xf32>
// CHECK-NEXT: %{{.*}} = vector.extract %arg2[] : vector<4x8xf32> from vector<4x8xf32>
// CHECK-NEXT: %{{.*}} = vector.insert %arg0, %arg2 [1, %arg4] : f32 into vector<4x8xf32>
// CHECK-NEXT: %{{.*}} = vector.insert %arg5, %arg2 [3] : vector<8xf32> into vector<4x8xf32>
// CHECK-NEXT: %{{.*}} = vector.shuffle %arg1, %arg1 [0, 4, 1, 5] : vector<4xf32>, vector<4xf32>
// CHECK-NEXT: %{{.*}} = vector.shuffle %arg1, %arg1 [7, 0] : vector<4xf32>, vector<4xf32>
func.func @building(%x: f32, %v: vector<4xf32>, %a: vector<4x8xf32>, %u: vector<1x4xf32>, %i: index, %row: vector<8xf32>) {
  %0 = vector.broadcast %x : f32 to vector<4xf32>
  %1 = vector.broadcast %v : vector<4xf32> to vector<2x4xf32>
  %2 = vector.broadcast %u : vector<1x4xf32> to vector<3x4xf32>
  %3 = vector.from_elements %x, %x, %x, %x : vector<4xf32>
  %4 = vector.from_elements %x, %x : vector<2x1xf32>
  %5 = vector.extract %a[1, 2] : f32 from vector<4x8xf32>
  %6 = vector.extract %a[%i] : vector<8xf32> from vector<4x8xf32>
  %7 = vector.extract %a[] : vector<4x8xf32> from vector<4x8xf32>
  %8 = vector.insert %x, %a[1, %i] : f32 into vector<4x8xf32>
  %9 = vector.insert %row, %a [3] : vector<8xf32> into vector<4x8xf32>
  %10 = vector.shuffle %v, %v [0, 4, 1, 5] : vector<4xf32>, vector<4xf32>
  %11 = vector.shuffle %v, %v [7, 0] : vector<4xf32>, vector<4xf32>
  return
}

// CHECK-LABEL: func.func @arithmetic
// CHECK-NEXT: %{{.*}} = vector.fma %arg0, %arg0, %arg0 : vector<4xf32>
// CHECK-NEXT: %{{.*}} = vector.reduction <add>, %arg0 : vector<4xf32> into f32
// CHECK-NEXT: %{{.*}} = vector.reduction <maximumf>, %arg0, %arg3 fastmath<fast> : vector<4xf32> into f32
// CHECK-NEXT: %{{.*}} = vector.reduction <xor>, %arg4 : vector<16xi8> into i8
// CHECK-NEXT: %{{.*}} = vector.outerproduct %arg0, %arg1 : vector<4xf32>, vector<8xf32>
// CHECK-NEXT: %{{.*}} = vector.outerproduct %arg0, %arg1, %arg2 {kind = #vector.kind<add>} : vector<4xf32>, vector<8xf32>
// CHECK-NEXT: %{{.*}} = vector.outerproduct %arg0, %arg1, %arg2 {kind = #vector.kind<maxnumf>} : vector<4xf32>, vector<8xf32>
// CHECK-NEXT: %{{.*}} = vector.outerproduct %arg0, %arg3 : vector<4xf32>, f32
func.func @arithmetic(%v: vector<4xf32>, %w: vector<8xf32>, %acc: vector<4x8xf32>, %x: f32, %b: vector<16xi8>) {
  %0 = vector.fma %v, %v, %v : vector<4xf32>
  %1 = vector.reduction <add>, %v : vector<4xf32> into f32
  %2 = vector.reduction <maximumf>, %v, %x fastmath<fast> : vector<4xf32> into f32
  %3 = vector.reduction <xor>, %b : vector<16xi8> into i8
  %4 = vector.outerproduct %v, %w : vector<4xf32>, vector<8xf32>
  %5 = vector.outerproduct %v, %w, %acc {kind = #vector.kind<add>} : vector<4xf32>, vector<8xf32>
  %6 = vector.outerproduct %v, %w, %acc {kind = #vector.kind<maxnumf>} : vector<4xf32>, vector<8xf32>
  %7 = vector.outerproduct %v, %x : vector<4xf32>, f32
  return
}

// CHECK-LABEL: func.func @contractions
// CHECK-NEXT: %{{.*}} = vector.contract {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %arg0, %arg1, %arg2 : vector<4x8xf32>, vector<8x4xf32> into vector<4x4xf32>
// CHECK-NEXT: %{{.*}} = vector.contract {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["reduction"], kind = #vector.kind<maxnumf>} %arg3, %arg3, %arg4 : vector<8xf32>, vector<8xf32> into f32
func.func @contractions(%a: vector<4x8xf32>, %b: vector<8x4xf32>, %c: vector<4x4xf32>, %v: vector<8xf32>, %x: f32) {
  %0 = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} %a, %b, %c : vector<4x8xf32>, vector<8x4xf32> into vector<4x4xf32>
  %1 = vector.contract {indexing_maps = [affine_map<(k) -> (k)>, affine_map<(k) -> (k)>, affine_map<(k) -> ()>], iterator_types = ["reduction"], kind = #vector.kind<maxnumf>} %v, %v, %x : vector<8xf32>, vector<8xf32> into f32
  return
}
