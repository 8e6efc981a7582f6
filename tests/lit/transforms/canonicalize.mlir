// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(canonicalize))' --split-input-file | filecheck %s

// Constants fold, equal constants merge, dead ops go.
// CHECK-LABEL: func.func @fold_chain() -> i32
// CHECK-NEXT: %[[C:.*]] = arith.constant 12 : i32
// CHECK-NEXT: return %[[C]] : i32
func.func @fold_chain() -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %0 = arith.addi %c1, %c2 : i32
  %1 = arith.addi %0, %c3 : i32
  %2 = arith.addi %1, %1 : i32
  %3 = arith.muli %2, %2 : i32
  %4 = arith.subi %2, %c2 : i32
  return %2 : i32
}

// -----

// Constants created by folding are hoisted to the entry block and shared.
// CHECK-LABEL: func.func @hoist(%arg0: i32, %arg1: i1) -> i32
// CHECK-NEXT: %[[C:.*]] = arith.constant 5 : i32
// CHECK-NEXT: cf.cond_br %arg1, ^bb1, ^bb2
// CHECK: ^bb1:
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %[[C]] : i32
// CHECK-NEXT: return %[[A]] : i32
// CHECK: ^bb2:
// CHECK-NEXT: return %[[C]] : i32
func.func @hoist(%x: i32, %c: i1) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %0 = arith.addi %c2, %c3 : i32
  %1 = arith.addi %x, %0 : i32
  return %1 : i32
^bb2:
  %c5 = arith.constant 5 : i32
  return %c5 : i32
}

// -----

// Unreachable blocks are erased.
// CHECK-LABEL: func.func @unreachable(%arg0: i32) -> i32
// CHECK-NEXT: return %arg0 : i32
// CHECK-NOT: ^bb
func.func @unreachable(%x: i32) -> i32 {
  return %x : i32
^bb1:
  %0 = arith.addi %x, %x : i32
  return %0 : i32
}

// -----

// Side effects stay.
// CHECK-LABEL: func.func @keep_calls
// CHECK-NEXT: call @effect() : () -> i32
// CHECK-NEXT: return
func.func private @effect() -> i32
func.func @keep_calls() {
  %0 = func.call @effect() : () -> i32
  return
}
