// RUN: nart-opt %s --convert-scf-to-cf | filecheck %s

// The CHECK lines pass `mlir-opt --convert-scf-to-cf` (LLVM 22) on this file too.

// CHECK-LABEL: func.func @while_loop(
// CHECK-NEXT:   cf.br ^bb1(%arg0 : i32)
// CHECK-NEXT: ^bb1(%[[X:.*]]: i32):  // 2 preds: ^bb0, ^bb2
// CHECK-NEXT:   %[[C:.*]] = arith.cmpi slt, %[[X]], %arg1 : i32
// CHECK-NEXT:   cf.cond_br %[[C]], ^bb2(%[[X]] : i32), ^bb3
// CHECK-NEXT: ^bb2(%[[Y:.*]]: i32):  // pred: ^bb1
// CHECK-NEXT:   %[[N:.*]] = arith.addi %[[Y]], %[[Y]] : i32
// CHECK-NEXT:   cf.br ^bb1(%[[N]] : i32)
// CHECK-NEXT: ^bb3:  // pred: ^bb1
// CHECK-NEXT:   return %[[X]] : i32
func.func @while_loop(%init: i32, %limit: i32) -> i32 {
  %r = scf.while (%x = %init) : (i32) -> i32 {
    %c = arith.cmpi slt, %x, %limit : i32
    scf.condition(%c) %x : i32
  } do {
  ^bb0(%y: i32):
    %n = arith.addi %y, %y : i32
    scf.yield %n : i32
  }
  return %r : i32
}

// An `after` region that only forwards its arguments: a do-while loop.
// CHECK-LABEL: func.func @do_while(
// CHECK-NEXT:   cf.br ^bb1(%arg0 : i32)
// CHECK-NEXT: ^bb1(%[[X:.*]]: i32):  // 2 preds: ^bb0, ^bb1
// CHECK-NEXT:   %[[N:.*]] = arith.addi %[[X]], %[[X]] : i32
// CHECK-NEXT:   %[[C:.*]] = arith.cmpi slt, %[[N]], %arg1 : i32
// CHECK-NEXT:   cf.cond_br %[[C]], ^bb1(%[[N]] : i32), ^bb2
// CHECK-NEXT: ^bb2:  // pred: ^bb1
// CHECK-NEXT:   return %[[N]] : i32
func.func @do_while(%init: i32, %limit: i32) -> i32 {
  %r = scf.while (%x = %init) : (i32) -> i32 {
    %n = arith.addi %x, %x : i32
    %c = arith.cmpi slt, %n, %limit : i32
    scf.condition(%c) %n : i32
  } do {
  ^bb0(%y: i32):
    scf.yield %y : i32
  }
  return %r : i32
}
