// RUN: nart-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(inline)' --split-input-file | filecheck %s

// A call to a single-block function is replaced by its body, then canonicalized.
// CHECK-LABEL: func.func @caller(%arg0: i32) -> i32
// CHECK-NEXT: %[[C:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %[[C]] : i32
// CHECK-NEXT: return %[[A]] : i32
// CHECK-NOT: @add_one
func.func @caller(%x: i32) -> i32 {
  %0 = func.call @add_one(%x) : (i32) -> i32
  return %0 : i32
}
func.func private @add_one(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %0 = arith.addi %x, %c1 : i32
  return %0 : i32
}

// -----

// A recursive function is not inlined into itself.
// CHECK-LABEL: func.func @rec(%arg0: i32) -> i32
// CHECK-NEXT: call @rec(%arg0) : (i32) -> i32
func.func @rec(%x: i32) -> i32 {
  %0 = func.call @rec(%x) : (i32) -> i32
  return %0 : i32
}

// -----

// Calls brought in by inlining are inlined in turn.
// CHECK-LABEL: func.func @outer(%arg0: i32) -> i32
// CHECK-NEXT: %[[M:.*]] = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: return %[[M]] : i32
func.func @outer(%x: i32) -> i32 {
  %0 = func.call @middle(%x) : (i32) -> i32
  return %0 : i32
}
func.func private @middle(%x: i32) -> i32 {
  %0 = func.call @square(%x) : (i32) -> i32
  return %0 : i32
}
func.func private @square(%x: i32) -> i32 {
  %0 = arith.muli %x, %x : i32
  return %0 : i32
}

// -----

// Declarations are not inlined.
// CHECK-LABEL: func.func @external_user
// CHECK-NEXT: call @external() : () -> ()
func.func private @external()
func.func @external_user() {
  func.call @external() : () -> ()
  return
}
