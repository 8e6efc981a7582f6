// RUN: nart-opt %s --convert-scf-to-cf | filecheck %s

// The CHECK lines pass `mlir-opt --convert-scf-to-cf` (LLVM 22) on this file too.

// A two-dimensional sum: two nested loops carrying the partial sum, the reduction applied in
// the inner body.
// CHECK-LABEL: func.func @parallel(
// CHECK-NEXT:   cf.br ^bb1(%arg0, %arg4 : index, f32)
// CHECK-NEXT: ^bb1(%[[I:.*]]: index, %[[OUTER:.*]]: f32):  // 2 preds: ^bb0, ^bb5
// CHECK-NEXT:   %[[C1:.*]] = arith.cmpi slt, %[[I]], %arg1 : index
// CHECK-NEXT:   cf.cond_br %[[C1]], ^bb2, ^bb6
// CHECK-NEXT: ^bb2:  // pred: ^bb1
// CHECK-NEXT:   cf.br ^bb3(%arg0, %[[OUTER]] : index, f32)
// CHECK-NEXT: ^bb3(%[[J:.*]]: index, %[[INNER:.*]]: f32):  // 2 preds: ^bb2, ^bb4
// CHECK-NEXT:   %[[C2:.*]] = arith.cmpi slt, %[[J]], %arg1 : index
// CHECK-NEXT:   cf.cond_br %[[C2]], ^bb4, ^bb5
// CHECK-NEXT: ^bb4:  // pred: ^bb3
// CHECK-NEXT:   %[[V:.*]] = memref.load %arg3[%[[I]], %[[J]]] : memref<?x?xf32>
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[INNER]], %[[V]] : f32
// CHECK-NEXT:   %[[NJ:.*]] = arith.addi %[[J]], %arg2 : index
// CHECK-NEXT:   cf.br ^bb3(%[[NJ]], %[[S]] : index, f32)
// CHECK-NEXT: ^bb5:  // pred: ^bb3
// CHECK-NEXT:   %[[NI:.*]] = arith.addi %[[I]], %arg2 : index
// CHECK-NEXT:   cf.br ^bb1(%[[NI]], %[[INNER]] : index, f32)
// CHECK-NEXT: ^bb6:  // pred: ^bb1
// CHECK-NEXT:   return %[[OUTER]] : f32
func.func @parallel(%lb: index, %ub: index, %st: index, %m: memref<?x?xf32>, %zero: f32) -> f32 {
  %s = scf.parallel (%i, %j) = (%lb, %lb) to (%ub, %ub) step (%st, %st) init (%zero) -> f32 {
    %v = memref.load %m[%i, %j] : memref<?x?xf32>
    scf.reduce(%v : f32) {
    ^bb0(%l: f32, %r: f32):
      %a = arith.addf %l, %r : f32
      scf.reduce.return %a : f32
    }
  }
  return %s : f32
}

// CHECK-LABEL: func.func @parallel_no_results(
// CHECK-NEXT:   cf.br ^bb1(%arg0 : index)
// CHECK-NEXT: ^bb1(%[[I:.*]]: index):  // 2 preds: ^bb0, ^bb2
// CHECK-NEXT:   %[[C:.*]] = arith.cmpi slt, %[[I]], %arg1 : index
// CHECK-NEXT:   cf.cond_br %[[C]], ^bb2, ^bb3
// CHECK-NEXT: ^bb2:  // pred: ^bb1
// CHECK-NEXT:   memref.store %arg4, %arg3[%[[I]]] : memref<?xf32>
// CHECK-NEXT:   %[[N:.*]] = arith.addi %[[I]], %arg2 : index
// CHECK-NEXT:   cf.br ^bb1(%[[N]] : index)
// CHECK-NEXT: ^bb3:  // pred: ^bb1
// CHECK-NEXT:   return
func.func @parallel_no_results(%lb: index, %ub: index, %st: index, %m: memref<?xf32>, %x: f32) {
  scf.parallel (%i) = (%lb) to (%ub) step (%st) {
    memref.store %x, %m[%i] : memref<?xf32>
  }
  return
}
