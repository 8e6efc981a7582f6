// RUN: nart-opt %s --convert-scf-to-cf | filecheck %s

// The CHECK lines pass `mlir-opt --convert-scf-to-cf` (LLVM 22) on this file too.

// CHECK-LABEL: func.func @if_then(
// CHECK-NEXT:   cf.cond_br %arg0, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:  // pred: ^bb0
// CHECK-NEXT:   memref.store %arg2, %arg1[] : memref<f32>
// CHECK-NEXT:   cf.br ^bb2
// CHECK-NEXT: ^bb2:  // 2 preds: ^bb0, ^bb1
// CHECK-NEXT:   return
func.func @if_then(%c: i1, %m: memref<f32>, %x: f32) {
  scf.if %c {
    memref.store %x, %m[] : memref<f32>
  }
  return
}

// CHECK-LABEL: func.func @if_else_results(
// CHECK-NEXT:   cf.cond_br %arg0, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:  // pred: ^bb0
// CHECK-NEXT:   %[[A:.*]] = arith.addf %arg1, %arg2 : f32
// CHECK-NEXT:   cf.br ^bb3(%[[A]] : f32)
// CHECK-NEXT: ^bb2:  // pred: ^bb0
// CHECK-NEXT:   cf.br ^bb3(%arg2 : f32)
// CHECK-NEXT: ^bb3(%[[R:.*]]: f32):  // 2 preds: ^bb1, ^bb2
// CHECK-NEXT:   cf.br ^bb4
// CHECK-NEXT: ^bb4:  // pred: ^bb3
// CHECK-NEXT:   return %[[R]] : f32
func.func @if_else_results(%c: i1, %x: f32, %y: f32) -> f32 {
  %r = scf.if %c -> (f32) {
    %a = arith.addf %x, %y : f32
    scf.yield %a : f32
  } else {
    scf.yield %y : f32
  }
  return %r : f32
}

// CHECK-LABEL: func.func @if_in_for(
// CHECK:      ^bb2:  // pred: ^bb1
// CHECK-NEXT:   cf.cond_br %arg3, ^bb3, ^bb4
// CHECK-NEXT: ^bb3:  // pred: ^bb2
// CHECK-NEXT:   memref.store %arg4, %arg5[%{{.*}}] : memref<?xf32>
// CHECK-NEXT:   cf.br ^bb4
// CHECK-NEXT: ^bb4:  // 2 preds: ^bb2, ^bb3
// CHECK-NEXT:   %{{.*}} = arith.addi
func.func @if_in_for(%lb: index, %ub: index, %step: index, %c: i1, %x: f32, %m: memref<?xf32>) {
  scf.for %i = %lb to %ub step %step {
    scf.if %c {
      memref.store %x, %m[%i] : memref<?xf32>
    }
  }
  return
}
