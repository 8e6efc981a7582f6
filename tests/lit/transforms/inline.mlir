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

// A recursive function is inlined neither into itself nor into its callers.
// CHECK-LABEL: func.func @rec(%arg0: i32) -> i32
// CHECK-NEXT: %[[R:.*]] = call @rec(%arg0) : (i32) -> i32
// CHECK-NEXT: return %[[R]] : i32
// CHECK-LABEL: func.func @rec_user(%arg0: i32) -> i32
// CHECK-NEXT: %[[R:.*]] = call @rec(%arg0) : (i32) -> i32
// CHECK-NEXT: return %[[R]] : i32
func.func @rec(%x: i32) -> i32 {
  %0 = func.call @rec(%x) : (i32) -> i32
  return %0 : i32
}
func.func @rec_user(%x: i32) -> i32 {
  %0 = func.call @rec(%x) : (i32) -> i32
  return %0 : i32
}

// -----

// Mutually recursive functions are not inlined into each other, so neither comes to call
// itself; a third function gets one through the cycle, up to the call back to the first.
// CHECK-LABEL: func.func @ping(%arg0: i32) -> i32
// CHECK-NEXT: %[[R:.*]] = call @pong(%arg0) : (i32) -> i32
// CHECK-NEXT: return %[[R]] : i32
// CHECK-LABEL: func.func @pong(%arg0: i32) -> i32
// CHECK-NEXT: %[[R:.*]] = call @ping(%arg0) : (i32) -> i32
// CHECK-NEXT: return %[[R]] : i32
// CHECK-LABEL: func.func @ping_user(%arg0: i32) -> i32
// CHECK-NEXT: %[[R:.*]] = call @ping(%arg0) : (i32) -> i32
// CHECK-NEXT: return %[[R]] : i32
func.func @ping(%x: i32) -> i32 {
  %0 = func.call @pong(%x) : (i32) -> i32
  return %0 : i32
}
func.func @pong(%x: i32) -> i32 {
  %0 = func.call @ping(%x) : (i32) -> i32
  return %0 : i32
}
func.func @ping_user(%x: i32) -> i32 {
  %0 = func.call @ping(%x) : (i32) -> i32
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
