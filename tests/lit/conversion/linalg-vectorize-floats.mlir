// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(linalg-vectorize{vector-width=8}))' | filecheck %s

// vector-width counts 32-bit lanes: an op on f64 buffers takes half as many, so its vectors
// are as wide in bits; a 16-bit op computed in f32 (an extf generic) keeps the full count.

// CHECK-LABEL: func.func @exp_f64
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: vector.transfer_read %arg0[%[[I]]], %{{.*}} {in_bounds = [true]} : memref<24xf64>, vector<4xf64>
// CHECK: math.exp %{{.*}} : vector<4xf64>
// CHECK: vector.transfer_write %{{.*}}, %arg1[%[[I]]] {in_bounds = [true]} : vector<4xf64>, memref<24xf64>
#map = affine_map<(d0) -> (d0)>
func.func @exp_f64(%x: memref<24xf64>, %y: memref<24xf64>) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : memref<24xf64>) outs(%y : memref<24xf64>) {
  ^bb0(%a: f64, %b: f64):
    %e = math.exp %a : f64
    linalg.yield %e : f64
  }
  return
}

// -----

// CHECK-LABEL: func.func @extend_f16
// CHECK: vector.transfer_read %arg0[%{{.*}}], %{{.*}} {in_bounds = [true]} : memref<24xf16>, vector<8xf16>
// CHECK: arith.extf %{{.*}} : vector<8xf16> to vector<8xf32>
// CHECK: vector.transfer_write %{{.*}}, %arg1[%{{.*}}] {in_bounds = [true]} : vector<8xf32>, memref<24xf32>
#map = affine_map<(d0) -> (d0)>
func.func @extend_f16(%x: memref<24xf16>, %y: memref<24xf32>) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : memref<24xf16>) outs(%y : memref<24xf32>) {
  ^bb0(%a: f16, %b: f32):
    %e = arith.extf %a : f16 to f32
    linalg.yield %e : f32
  }
  return
}
