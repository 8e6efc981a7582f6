// Result-name hints and block predecessor comments, as mlir-opt prints them.
// RUN: nart-opt %s | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC
// The generic form numbers values uniquely, from a stack of regions (the last function first).
// RUN: nart-opt %s | nart-opt | filecheck %s

// arith.constant names its result after its value and type; repeated names get `_N`
// suffixes from one counter, and nested regions continue from their parent's counter.
// CHECK-LABEL: func.func @constants
// CHECK-NEXT: %c42_i32 = arith.constant 42 : i32
// CHECK-NEXT: %c42_i32_0 = arith.constant 42 : i32
// CHECK-NEXT: %c-1_i64 = arith.constant -1 : i64
// CHECK-NEXT: %c-1_i8 = arith.constant -1 : i8
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %true = arith.constant true
// CHECK-NEXT: %false = arith.constant false
// CHECK-NEXT: %cst = arith.constant 1.500000e+00 : f32
// CHECK-NEXT: %cst_1 = arith.constant dense<1> : tensor<2xi32>
// CHECK-NEXT: %0 = arith.addi %c42_i32, %c42_i32_0 : i32
// CHECK-NEXT: return %0, %cst : i32, f32
// GENERIC-LABEL: sym_name = "constants"
// GENERIC: %3 = "arith.constant"() <{value = 42 : i32}> : () -> i32
func.func @constants() -> (i32, f32) {
  %a = arith.constant 42 : i32
  %b = arith.constant 42 : i32
  %c = arith.constant -1 : i64
  %h = arith.constant 255 : i8
  %d = arith.constant 0 : index
  %e = arith.constant true
  %e2 = arith.constant false
  %f = arith.constant 1.5 : f32
  %g = arith.constant dense<1> : tensor<2xi32>
  %x = arith.addi %a, %b : i32
  return %x, %f : i32, f32
}

// CHECK-LABEL: func.func @branches(%arg0: i1) -> i32
// CHECK-NEXT: %c1_i32 = arith.constant 1 : i32
// CHECK-NEXT: cf.cond_br %arg0, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:  // pred: ^bb0
// CHECK-NEXT: %c1_i32_0 = arith.constant 1 : i32
// CHECK-NEXT: cf.br ^bb3(%c1_i32_0 : i32)
// CHECK-NEXT: ^bb2:  // pred: ^bb0
// CHECK-NEXT: cf.cond_br %arg0, ^bb3(%c1_i32 : i32), ^bb3(%c1_i32 : i32)
// CHECK-NEXT: ^bb3(%0: i32):  // 4 preds: ^bb1, ^bb2, ^bb2, ^bb4
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: ^bb4:  // no predecessors
// CHECK-NEXT: cf.br ^bb3(%c1_i32 : i32)
// GENERIC-LABEL: sym_name = "branches"
// GENERIC: ^bb1:  // pred: ^bb0
// GENERIC: ^bb3(%2: i32):  // 4 preds: ^bb1, ^bb2, ^bb2, ^bb4
// GENERIC: ^bb4:  // no predecessors
func.func @branches(%t: i1) -> i32 {
  %a = arith.constant 1 : i32
  cf.cond_br %t, ^bb1, ^bb2
^bb1:
  %b = arith.constant 1 : i32
  cf.br ^bb3(%b : i32)
^bb2:
  cf.cond_br %t, ^bb3(%a : i32), ^bb3(%a : i32)
^bb3(%r: i32):
  return %r : i32
^bb4:
  cf.br ^bb3(%a : i32)
}

// A block reached twice from one block lists that block twice, as MLIR does.
// CHECK-LABEL: func.func @same_pred
// CHECK: ^bb1:  // 2 preds: ^bb0, ^bb0
func.func @same_pred(%t: i1) {
  cf.cond_br %t, ^bb1, ^bb1
^bb1:
  return
}
