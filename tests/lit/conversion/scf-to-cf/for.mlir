// RUN: nart-opt %s --convert-scf-to-cf | filecheck %s
// RUN: nart-opt %s --pass-pipeline="builtin.module(func.func(convert-scf-to-cf))" | filecheck %s

// The CHECK lines pass `mlir-opt --convert-scf-to-cf` (LLVM 22) on this file too.

// CHECK-LABEL: func.func @simple_for(
// CHECK-NEXT:   cf.br ^bb1(%arg0 : index)
// CHECK-NEXT: ^bb1(%[[IV:.*]]: index):  // 2 preds: ^bb0, ^bb2
// CHECK-NEXT:   %[[C:.*]] = arith.cmpi slt, %[[IV]], %arg1 : index
// CHECK-NEXT:   cf.cond_br %[[C]], ^bb2, ^bb3
// CHECK-NEXT: ^bb2:  // pred: ^bb1
// CHECK-NEXT:   %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[IV]], %arg2 : index
// CHECK-NEXT:   cf.br ^bb1(%[[NEXT]] : index)
// CHECK-NEXT: ^bb3:  // pred: ^bb1
// CHECK-NEXT:   return
func.func @simple_for(%lb: index, %ub: index, %step: index) {
  scf.for %i = %lb to %ub step %step {
    %c1 = arith.constant 1 : index
  }
  return
}

// CHECK-LABEL: func.func @for_iter_args(
// CHECK-NEXT:   cf.br ^bb1(%arg0, %arg3 : index, f32)
// CHECK-NEXT: ^bb1(%[[IV:.*]]: index, %[[ACC:.*]]: f32):  // 2 preds: ^bb0, ^bb2
// CHECK-NEXT:   %[[C:.*]] = arith.cmpi slt, %[[IV]], %arg1 : index
// CHECK-NEXT:   cf.cond_br %[[C]], ^bb2, ^bb3
// CHECK-NEXT: ^bb2:  // pred: ^bb1
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[ACC]], %[[ACC]] : f32
// CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[IV]], %arg2 : index
// CHECK-NEXT:   cf.br ^bb1(%[[NEXT]], %[[S]] : index, f32)
// CHECK-NEXT: ^bb3:  // pred: ^bb1
// CHECK-NEXT:   return %[[ACC]] : f32
func.func @for_iter_args(%lb: index, %ub: index, %step: index, %x: f32) -> f32 {
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %x) -> (f32) {
    %s = arith.addf %acc, %acc : f32
    scf.yield %s : f32
  }
  return %r : f32
}

// CHECK-LABEL: func.func @unsigned_for(
// CHECK-NEXT:   cf.br ^bb1(%arg0 : i32)
// CHECK-NEXT: ^bb1(%[[IV:.*]]: i32):  // 2 preds: ^bb0, ^bb2
// CHECK-NEXT:   %[[C:.*]] = arith.cmpi ult, %[[IV]], %arg1 : i32
// CHECK-NEXT:   cf.cond_br %[[C]], ^bb2, ^bb3
// CHECK-NEXT: ^bb2:  // pred: ^bb1
// CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[IV]], %arg2 : i32
// CHECK-NEXT:   cf.br ^bb1(%[[NEXT]] : i32)
// CHECK-NEXT: ^bb3:  // pred: ^bb1
// CHECK-NEXT:   return
func.func @unsigned_for(%lb: i32, %ub: i32, %step: i32) {
  scf.for unsigned %i = %lb to %ub step %step : i32 {
  }
  return
}

// CHECK-LABEL: func.func @nested(
// CHECK-NEXT:   cf.br ^bb1(%arg0 : index)
// CHECK-NEXT: ^bb1(%[[I:.*]]: index):  // 2 preds: ^bb0, ^bb5
// CHECK-NEXT:   %[[C1:.*]] = arith.cmpi slt, %[[I]], %arg1 : index
// CHECK-NEXT:   cf.cond_br %[[C1]], ^bb2, ^bb6
// CHECK-NEXT: ^bb2:  // pred: ^bb1
// CHECK-NEXT:   cf.br ^bb3(%arg0 : index)
// CHECK-NEXT: ^bb3(%[[J:.*]]: index):  // 2 preds: ^bb2, ^bb4
// CHECK-NEXT:   %[[C2:.*]] = arith.cmpi slt, %[[J]], %arg1 : index
// CHECK-NEXT:   cf.cond_br %[[C2]], ^bb4, ^bb5
// CHECK-NEXT: ^bb4:  // pred: ^bb3
// CHECK-NEXT:   memref.store %arg4, %arg3[%[[I]], %[[J]]] : memref<?x?xf32>
// CHECK-NEXT:   %[[NJ:.*]] = arith.addi %[[J]], %arg2 : index
// CHECK-NEXT:   cf.br ^bb3(%[[NJ]] : index)
// CHECK-NEXT: ^bb5:  // pred: ^bb3
// CHECK-NEXT:   %[[NI:.*]] = arith.addi %[[I]], %arg2 : index
// CHECK-NEXT:   cf.br ^bb1(%[[NI]] : index)
// CHECK-NEXT: ^bb6:  // pred: ^bb1
// CHECK-NEXT:   return
func.func @nested(%lb: index, %ub: index, %step: index, %m: memref<?x?xf32>, %x: f32) {
  scf.for %i = %lb to %ub step %step {
    scf.for %j = %lb to %ub step %step {
      memref.store %x, %m[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
