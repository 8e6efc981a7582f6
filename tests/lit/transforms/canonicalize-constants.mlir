// RUN: nart-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize))' --split-input-file | filecheck %s
// RUN: nart-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize{top-down=false}))' --split-input-file | filecheck %s
// RUN: nart-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize))' --split-input-file --mlir-print-debuginfo --mlir-print-local-scope | filecheck %s --check-prefix=LOC

// Constants live at the start of the entry block. Leading constants keep their order; a
// constant met after another op moves to the very start, and so does each constant a fold
// creates (on the next sweep), so the later ones come first.
// CHECK-LABEL: func.func @order(%arg0: i32, %arg1: i1) -> (i32, i32, i32, i32)
// CHECK-NEXT: %[[C17:.*]] = arith.constant 17 : i32
// CHECK-NEXT: %[[C14:.*]] = arith.constant 14 : i32
// CHECK-NEXT: %[[C11:.*]] = arith.constant 11 : i32
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[C9:.*]] = arith.constant 9 : i32
// CHECK-NEXT: %[[C20:.*]] = arith.constant 20 : i32
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %[[C1]] : i32
// CHECK-NEXT: %[[B:.*]] = arith.addi %arg0, %[[C4]] : i32
// CHECK-NEXT: cf.cond_br %arg1, ^bb1, ^bb2
// CHECK: ^bb1:
// CHECK-NEXT: %[[U:.*]] = arith.addi %arg0, %[[C14]] : i32
// CHECK-NEXT: return %[[C11]], %[[U]], %[[C9]], %[[A]] : i32, i32, i32, i32
// CHECK: ^bb2:
// CHECK-NEXT: return %[[C17]], %[[C20]], %[[C9]], %[[B]] : i32, i32, i32, i32
func.func @order(%x: i32, %c: i1) -> (i32, i32, i32, i32) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %a = arith.addi %x, %c1 : i32
  %c3 = arith.constant 3 : i32
  %s = arith.addi %c1, %c2 : i32
  %m = arith.muli %c3, %c3 : i32
  %b = arith.addi %a, %s : i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %c10 = arith.constant 10 : i32
  %t = arith.addi %c10, %c1 : i32
  %u = arith.addi %b, %c10 : i32
  return %t, %u, %m, %a : i32, i32, i32, i32
^bb2:
  %c20 = arith.constant 20 : i32
  %v = arith.subi %c20, %c3 : i32
  return %v, %c20, %m, %b : i32, i32, i32, i32
}

// -----

// Equal constants merge into the first one met, wherever they are; a fold that gives the
// value of an existing constant reuses it.
// CHECK-LABEL: func.func @dedup(%arg0: i32, %arg1: i1) -> (i32, i32, i32)
// CHECK-NEXT: %[[C5:.*]] = arith.constant 5 : i32
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %[[C2]] : i32
// CHECK-NEXT: cf.cond_br %arg1, ^bb1, ^bb2
// CHECK: ^bb1:
// CHECK-NEXT: return %[[C5]], %[[C2]], %[[A]] : i32, i32, i32
// CHECK: ^bb2:
// CHECK-NEXT: return %[[C2]], %[[C5]], %[[A]] : i32, i32, i32
func.func @dedup(%x: i32, %c: i1) -> (i32, i32, i32) {
  %c2 = arith.constant 2 : i32
  %a = arith.addi %x, %c2 : i32
  %c3 = arith.constant 3 : i32
  %s = arith.addi %c2, %c3 : i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %c2b = arith.constant 2 : i32
  return %s, %c2b, %a : i32, i32, i32
^bb2:
  %c5 = arith.constant 5 : i32
  return %c2, %c5, %a : i32, i32, i32
}

// -----

// A region of an unregistered op may be isolated from above, so its constants stay in it;
// constants of the function after that op move to the start of the function.
// CHECK-LABEL: func.func @nested(%arg0: i32) -> i32
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[R:.*]] = "foo.region"() ({
// CHECK-NEXT: %[[C11:.*]] = arith.constant 11 : i32
// CHECK-NEXT: %[[Z:.*]] = arith.addi %arg0, %[[C11]] : i32
// CHECK-NEXT: "foo.yield"(%[[Z]]) : (i32) -> ()
// CHECK-NEXT: }) : () -> i32
// CHECK-NEXT: %[[W:.*]] = arith.muli %[[R]], %[[C4]] : i32
// CHECK-NEXT: return %[[W]] : i32
func.func @nested(%x: i32) -> i32 {
  %r = "foo.region"() ({
    %c5 = arith.constant 5 : i32
    %c6 = arith.constant 6 : i32
    %y = arith.addi %c5, %c6 : i32
    %z = arith.addi %x, %y : i32
    "foo.yield"(%z) : (i32) -> ()
  }) : () -> i32
  %c4 = arith.constant 4 : i32
  %w = arith.muli %r, %c4 : i32
  return %w : i32
}

// -----

// Constants equal to one outside an unregistered op's region are not merged with it, and a
// value the region uses from above stays as it is.
// CHECK-LABEL: func.func @scopes(%arg0: i32) -> (i32, i32)
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[R:.*]] = "foo.region"() ({
// CHECK-NEXT: %[[C3B:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %arg0, %[[C3B]] : i32
// CHECK-NEXT: %[[T:.*]] = arith.muli %[[S]], %[[C3]] : i32
// CHECK-NEXT: "foo.yield"(%[[T]]) : (i32) -> ()
// CHECK-NEXT: }) : () -> i32
// CHECK-NEXT: return %[[R]], %[[C3]] : i32, i32
func.func @scopes(%x: i32) -> (i32, i32) {
  %c3 = arith.constant 3 : i32
  %r = "foo.region"() ({
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %k = arith.addi %c1, %c2 : i32
    %s = arith.addi %x, %k : i32
    %t = arith.muli %s, %c3 : i32
    "foo.yield"(%t) : (i32) -> ()
  }) : () -> i32
  return %r, %c3 : i32, i32
}

// -----

// A constant that absorbs an equal one, or moves from another block, loses its location; one
// that moves within its block keeps it.
// LOC-LABEL: func.func @locations
// LOC-NEXT: arith.constant 3 : i32 loc("folded")
// LOC-NEXT: arith.constant 5 : i32 loc(unknown)
// LOC-NEXT: arith.constant 1 : i32 loc(unknown)
// LOC-NEXT: arith.addi
// LOC-NEXT: arith.muli
// LOC-NEXT: return
func.func @locations(%x: i32) -> (i32, i32, i32) {
  %c1 = arith.constant 1 : i32 loc("kept")
  %a = arith.addi %x, %c1 : i32
  %c2 = arith.constant 2 : i32 loc("moved")
  %c1b = arith.constant 1 : i32 loc("merged")
  %s = arith.addi %c2, %c1b : i32 loc("folded")
  cf.br ^bb1
^bb1:
  %c5 = arith.constant 5 : i32 loc("other_block")
  %m = arith.muli %a, %c5 : i32
  return %s, %a, %m : i32, i32, i32
}
