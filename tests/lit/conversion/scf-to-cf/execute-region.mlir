// RUN: nart-opt %s --convert-scf-to-cf | filecheck %s

// The CHECK lines pass `mlir-opt --convert-scf-to-cf` (LLVM 22) on this file too.

// CHECK-LABEL: func.func @execute_region(
// CHECK-NEXT:   cf.br ^bb1
// CHECK-NEXT: ^bb1:  // pred: ^bb0
// CHECK-NEXT:   cf.cond_br %arg0, ^bb2, ^bb3
// CHECK-NEXT: ^bb2:  // pred: ^bb1
// CHECK-NEXT:   cf.br ^bb4(%arg1 : i32)
// CHECK-NEXT: ^bb3:  // pred: ^bb1
// CHECK-NEXT:   cf.br ^bb4(%arg2 : i32)
// CHECK-NEXT: ^bb4(%[[R:.*]]: i32):  // 2 preds: ^bb2, ^bb3
// CHECK-NEXT:   return %[[R]] : i32
func.func @execute_region(%c: i1, %a: i32, %b: i32) -> i32 {
  %r = scf.execute_region -> i32 {
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    scf.yield %a : i32
  ^bb2:
    scf.yield %b : i32
  }
  return %r : i32
}
