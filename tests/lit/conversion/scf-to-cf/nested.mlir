// RUN: nart-opt %s --convert-scf-to-cf | filecheck %s

// The CHECK lines pass `mlir-opt --convert-scf-to-cf` (LLVM 22) on this file too.

// A loop whose body holds a conditional with a result: the inner continuation block and the
// latch come out in upstream's order.
// CHECK-LABEL: func.func @relu_sum(
// CHECK:        cf.br ^bb1(%[[C0:.*]], %[[ZERO:.*]] : index, f32)
// CHECK-NEXT: ^bb1(%[[I:.*]]: index, %[[ACC:.*]]: f32):  // 2 preds: ^bb0, ^bb6
// CHECK-NEXT:   %[[C:.*]] = arith.cmpi slt, %[[I]], %arg1 : index
// CHECK-NEXT:   cf.cond_br %[[C]], ^bb2, ^bb7
// CHECK-NEXT: ^bb2:  // pred: ^bb1
// CHECK-NEXT:   %[[V:.*]] = memref.load %arg0[%[[I]]] : memref<?xf32>
// CHECK-NEXT:   %[[POS:.*]] = arith.cmpf ogt, %[[V]], %[[ZERO]] : f32
// CHECK-NEXT:   cf.cond_br %[[POS]], ^bb3, ^bb4
// CHECK-NEXT: ^bb3:  // pred: ^bb2
// CHECK-NEXT:   cf.br ^bb5(%[[V]] : f32)
// CHECK-NEXT: ^bb4:  // pred: ^bb2
// CHECK-NEXT:   cf.br ^bb5(%[[ZERO]] : f32)
// CHECK-NEXT: ^bb5(%[[X:.*]]: f32):  // 2 preds: ^bb3, ^bb4
// CHECK-NEXT:   cf.br ^bb6
// CHECK-NEXT: ^bb6:  // pred: ^bb5
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT:   cf.br ^bb1(%[[NEXT]], %[[S]] : index, f32)
// CHECK-NEXT: ^bb7:  // pred: ^bb1
// CHECK-NEXT:   return %[[ACC]] : f32
func.func @relu_sum(%m: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %m[%i] : memref<?xf32>
    %pos = arith.cmpf ogt, %v, %zero : f32
    %x = scf.if %pos -> (f32) {
      scf.yield %v : f32
    } else {
      scf.yield %zero : f32
    }
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  }
  return %r : f32
}
