// RUN: nart-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize))' --split-input-file | filecheck %s
// RUN: nart-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize{region-simplify=disabled}))' --split-input-file | filecheck %s --check-prefix=OFF

// A dead pure op goes.
// CHECK-LABEL: func.func @dead_op(%arg0: f32) {
// CHECK-NEXT: return
func.func @dead_op(%x: f32) {
  %0 = "arith.addf"(%x, %x) : (f32, f32) -> f32
  return
}

// -----

// A block argument nothing uses goes, and so do the operands the branches passed it.
// Without region simplification it stays.
// CHECK-LABEL: func.func @dead_arg(%arg0: f32, %arg1: i1) {
// CHECK-NEXT: cf.cond_br %arg1, ^bb2, ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: "foo.effect"() : () -> ()
// CHECK-NEXT: cf.br ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: "foo.use"() : () -> ()
// OFF-LABEL: func.func @dead_arg(%arg0: f32, %arg1: i1) {
// OFF-NEXT: cf.cond_br %arg1, ^bb2(%arg0 : f32), ^bb1
// OFF: ^bb2(%0: f32):
func.func @dead_arg(%x: f32, %c: i1) {
  cf.cond_br %c, ^bb2(%x : f32), ^bb1
^bb1:
  "foo.effect"() : () -> ()
  cf.br ^bb2(%x : f32)
^bb2(%a: f32):
  "foo.use"() : () -> ()
  return
}

// -----

// An argument that only feeds itself around a loop is dead.
// CHECK-LABEL: func.func @dead_loop_arg(%arg0: f32) {
// CHECK-NEXT: cf.br ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: cf.br ^bb1
func.func @dead_loop_arg(%x: f32) {
  cf.br ^loop(%x : f32)
^loop(%a: f32):
  cf.br ^loop(%a : f32)
}

// -----

// So is a loop-carried value computed by pure ops that nothing else uses.
// CHECK-LABEL: func.func @dead_loop_chain(%arg0: f32) {
// CHECK-NEXT: cf.br ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: cf.br ^bb1
func.func @dead_loop_chain(%x: f32) {
  cf.br ^loop(%x : f32)
^loop(%a: f32):
  %n = arith.negf %a : f32
  cf.br ^loop(%n : f32)
}

// -----

// Both successors of a conditional branch lose their dead argument, and the value passed to
// them goes too.
// CHECK-LABEL: func.func @dead_cond_br_args(%arg0: f32, %arg1: i1) {
// CHECK-NEXT: cf.cond_br %arg1, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: "foo.a"() : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: "foo.b"() : () -> ()
// CHECK-NEXT: return
func.func @dead_cond_br_args(%x: f32, %c: i1) {
  %n = arith.negf %x : f32
  cf.cond_br %c, ^t(%n : f32), ^f(%n : f32)
^t(%a: f32):
  "foo.a"() : () -> ()
  return
^f(%b: f32):
  "foo.b"() : () -> ()
  return
}

// -----

// Dead ops inside the region of an op that stays go, even when they use values from above.
// CHECK-LABEL: func.func @nested(%arg0: f32) {
// CHECK-NEXT: "foo.has_region"() ({
// CHECK-NEXT: "foo.return"() : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: return
func.func @nested(%x: f32) {
  %0 = arith.negf %x : f32
  "foo.has_region"() ({
    %1 = arith.negf %0 : f32
    "foo.return"() : () -> ()
  }) : () -> ()
  return
}

// -----

// Pure ops that feed a return, and ops with effects, stay.
// CHECK-LABEL: func.func @live(%arg0: f32) -> f32 {
// CHECK-NEXT: "foo.print"(%arg0) : (f32) -> ()
// CHECK-NEXT: %[[N:.*]] = arith.negf %arg0 : f32
// CHECK-NEXT: return %[[N]] : f32
func.func @live(%x: f32) -> f32 {
  "foo.print"(%x) : (f32) -> ()
  %0 = arith.negf %x : f32
  return %0 : f32
}

// -----

// Of several arguments, only the used ones stay, in order; an argument that a loop passes
// back to itself stays when the loop body uses it.
// CHECK-LABEL: func.func @some_args(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: i1) {
// CHECK-NEXT: cf.br ^bb1(%arg1 : i32)
// CHECK-NEXT: ^bb1(%[[A:.*]]: i32):
// CHECK-NEXT: "foo.print"(%[[A]]) : (i32) -> ()
// CHECK-NEXT: cf.cond_br %arg3, ^bb1(%[[A]] : i32), ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: return
func.func @some_args(%a: i32, %b: i32, %c: i32, %p: i1) {
  cf.br ^loop(%a, %b, %c : i32, i32, i32)
^loop(%t1: i32, %t2: i32, %t3: i32):
  "foo.print"(%t2) : (i32) -> ()
  cf.cond_br %p, ^loop(%t1, %t2, %t3 : i32, i32, i32), ^exit
^exit:
  return
}

// -----

// An argument that is live through a use after the loop keeps the values that feed it.
// CHECK-LABEL: func.func @live_loop(%arg0: i32, %arg1: i1) -> i32 {
// CHECK-NEXT: cf.br ^bb1(%arg0, %arg0 : i32, i32)
// CHECK-NEXT: ^bb1(%[[A:.*]]: i32, %[[B:.*]]: i32):
// CHECK-NEXT: %[[N:.*]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[B]], %[[B]] : i32
// CHECK-NEXT: cf.cond_br %arg1, ^bb1(%[[N]], %[[M]] : i32, i32), ^bb2(%[[A]] : i32)
func.func @live_loop(%x: i32, %p: i1) -> i32 {
  cf.br ^loop(%x, %x : i32, i32)
^loop(%a: i32, %b: i32):
  %n = arith.addi %a, %b : i32
  %m = arith.muli %b, %b : i32
  cf.cond_br %p, ^loop(%n, %m : i32, i32), ^exit(%a : i32)
^exit(%r: i32):
  return %r : i32
}

// -----

// Entry block arguments belong to the function and stay, used or not.
// CHECK-LABEL: func.func @entry_args(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT: return %arg0 : i32
func.func @entry_args(%x: i32, %unused: i32) -> i32 {
  return %x : i32
}
