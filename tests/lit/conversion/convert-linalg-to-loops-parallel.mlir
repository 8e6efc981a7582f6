// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-linalg-to-loops{parallel=true}))' | filecheck %s

// With parallel=true the leading parallel iterators form one scf.parallel (which the cpu
// target runs on threads); the reduction loop stays a sequential scf.for inside it, so each
// element is summed in the same order as without the option.
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%[[C0]], %[[C0]]) to (%[[C4]], %[[C16]]) step (%[[C1]], %[[C1]]) {
// CHECK-NEXT: scf.for %[[K:.*]] = %[[C0]] to %[[C8]] step %[[C1]] {
// CHECK-NEXT: %[[A:.*]] = memref.load %arg0[%[[I]], %[[K]]] : memref<4x8xf32>
// CHECK-NEXT: %[[B:.*]] = memref.load %arg1[%[[K]], %[[J]]] : memref<8x16xf32>
// CHECK-NEXT: %[[C:.*]] = memref.load %arg2[%[[I]], %[[J]]] : memref<4x16xf32>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[C]], %[[M]] : f32
// CHECK-NEXT: memref.store %[[S]], %arg2[%[[I]], %[[J]]] : memref<4x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NOT: linalg.
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// An op whose first iterator is a reduction keeps the sequential nest.
// CHECK-LABEL: func.func @column_sums
// CHECK-NOT: scf.parallel
// CHECK: scf.for %[[R:.*]] =
// CHECK-NEXT: scf.for %[[C:.*]] =
// CHECK: memref.store
func.func @column_sums(%a: memref<8x16xf32>, %s: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%a : memref<8x16xf32>) outs(%s : memref<16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %acc, %x : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// An elementwise op is one scf.parallel over all of its dimensions.
// CHECK-LABEL: func.func @relu
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]], %[[K:.*]]) = ({{.*}}) to ({{.*}}) step ({{.*}}) {
// CHECK-NEXT: memref.load %arg0[%[[I]], %[[J]], %[[K]]]
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: memref.store
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NOT: scf.for
func.func @relu(%a: memref<2x3x5xf32>, %b: memref<2x3x5xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : memref<2x3x5xf32>) outs(%b : memref<2x3x5xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %z : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// A "parallel" iterator that the init does not index would have iterations write the same
// element: the loops stay sequential from it on.
// CHECK-LABEL: func.func @last_row_wins
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK-NEXT: scf.for
func.func @last_row_wins(%a: memref<8x16xf32>, %s: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<8x16xf32>) outs(%s : memref<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}
