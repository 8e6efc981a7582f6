// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(cse))' --split-input-file | filecheck %s

// Two identical pure ops: the second is replaced by the first.
// CHECK-LABEL: func.func @simple(%arg0: i32) -> i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: %[[B:.*]] = arith.muli %[[A]], %[[A]] : i32
// CHECK-NEXT: return %[[B]] : i32
func.func @simple(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32
  %1 = arith.addi %x, %x : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}

// -----

// Equal constants are merged; different ones are kept.
// CHECK-LABEL: func.func @constants() -> (i32, i32, i32)
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: return %[[C1]], %[[C2]], %[[C1]] : i32, i32, i32
func.func @constants() -> (i32, i32, i32) {
  %0 = arith.constant 1 : i32
  %1 = arith.constant 2 : i32
  %2 = arith.constant 1 : i32
  return %0, %1, %2 : i32, i32, i32
}

// -----

// Different attributes or types are not equivalent.
// CHECK-LABEL: func.func @different(%arg0: i32, %arg1: i64)
// CHECK-NEXT: arith.cmpi eq, %arg0, %arg0 : i32
// CHECK-NEXT: arith.cmpi ne, %arg0, %arg0 : i32
// CHECK-NEXT: arith.addi %arg1, %arg1 : i64
// CHECK-NEXT: arith.addi %arg0, %arg0 : i32
func.func @different(%x: i32, %y: i64) -> (i1, i1, i64, i32) {
  %0 = arith.cmpi eq, %x, %x : i32
  %1 = arith.cmpi ne, %x, %x : i32
  %2 = arith.addi %y, %y : i64
  %3 = arith.addi %x, %x : i32
  return %0, %1, %2, %3 : i1, i1, i64, i32
}

// -----

// An op in a dominating block is reused; an op in a sibling block is not.
// CHECK-LABEL: func.func @dominance(%arg0: i32, %arg1: i1) -> i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: cf.cond_br %arg1, ^bb1, ^bb2
// CHECK: ^bb1:
// CHECK-NEXT: %[[B:.*]] = arith.muli %[[A]], %arg0 : i32
// CHECK-NEXT: cf.br ^bb3(%[[B]] : i32)
// CHECK: ^bb2:
// CHECK-NEXT: %[[C:.*]] = arith.muli %[[A]], %arg0 : i32
// CHECK-NEXT: cf.br ^bb3(%[[C]] : i32)
// CHECK: ^bb3(%[[R:.*]]: i32):
// CHECK-NEXT: %[[D:.*]] = arith.muli %[[A]], %arg0 : i32
// CHECK-NEXT: %[[E:.*]] = arith.addi %[[D]], %[[R]] : i32
func.func @dominance(%x: i32, %c: i1) -> i32 {
  %0 = arith.addi %x, %x : i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %1 = arith.addi %x, %x : i32
  %2 = arith.muli %1, %x : i32
  cf.br ^bb3(%2 : i32)
^bb2:
  %3 = arith.muli %0, %x : i32
  cf.br ^bb3(%3 : i32)
^bb3(%r: i32):
  %4 = arith.muli %0, %x : i32
  %5 = arith.addi %4, %r : i32
  return %5 : i32
}

// -----

// Side-effecting ops are never merged.
// CHECK-LABEL: func.func @effects
// CHECK-NEXT: call @effect() : () -> i32
// CHECK-NEXT: call @effect() : () -> i32
func.func private @effect() -> i32
func.func @effects() -> (i32, i32) {
  %0 = func.call @effect() : () -> i32
  %1 = func.call @effect() : () -> i32
  return %0, %1 : i32, i32
}

// -----

// Dead pure ops are erased.
// CHECK-LABEL: func.func @dead(%arg0: i32)
// CHECK-NEXT: return
func.func @dead(%x: i32) {
  %0 = arith.addi %x, %x : i32
  return
}
