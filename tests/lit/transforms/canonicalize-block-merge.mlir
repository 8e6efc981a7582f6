// RUN: nart-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize{region-simplify=aggressive}))' --split-input-file | filecheck %s
// RUN: nart-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(canonicalize))' --split-input-file | filecheck %s --check-prefix=NORMAL

// Identical blocks merge at the aggressive level only (as in MLIR 22, `normal` does not merge).
// CHECK-LABEL: func.func @same_blocks() {
// CHECK-NEXT: "foo.cond_br"()[^bb1, ^bb1] : () -> ()
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: return
// CHECK-NOT: ^bb2
// NORMAL-LABEL: func.func @same_blocks() {
// NORMAL-NEXT: "foo.cond_br"()[^bb1, ^bb2] : () -> ()
func.func @same_blocks() {
  "foo.cond_br"() [^bb1, ^bb2] : () -> ()
^bb1:
  return
^bb2:
  return
}

// -----

// Blocks whose arguments are used alike merge.
// CHECK-LABEL: func.func @same_arguments() -> i32 {
// CHECK-NEXT: "foo.cond_br"()[^bb1, ^bb1] : () -> ()
// CHECK-NEXT: ^bb1(%[[A:.*]]: i32):
// CHECK-NEXT: return %[[A]] : i32
// CHECK-NOT: ^bb2
func.func @same_arguments() -> i32 {
  "foo.cond_br"() [^bb1, ^bb2] : () -> ()
^bb1(%a: i32):
  return %a : i32
^bb2(%b: i32):
  return %b : i32
}

// -----

// Blocks that differ in a value from outside merge when every predecessor can pass it, the
// value becoming a new argument: here the switch passes each case's value.
// CHECK-LABEL: func.func @switch_values(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: i32) -> i32 {
// CHECK-NEXT: cf.switch %arg0 : i32, [
// CHECK-NEXT: default: ^bb1(%arg1 : i32),
// CHECK-NEXT: 0: ^bb1(%arg2 : i32),
// CHECK-NEXT: 1: ^bb1(%arg3 : i32)
// CHECK-NEXT: ]
// CHECK-NEXT: ^bb1(%[[V:.*]]: i32):
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[V]], %[[V]] : i32
// CHECK-NEXT: return %[[S]] : i32
func.func @switch_values(%flag: i32, %a: i32, %b: i32, %c: i32) -> i32 {
  cf.switch %flag : i32, [
    default: ^bb1,
    0: ^bb2,
    1: ^bb3
  ]
^bb1:
  %x = arith.addi %a, %a : i32
  return %x : i32
^bb2:
  %y = arith.addi %b, %b : i32
  return %y : i32
^bb3:
  %z = arith.addi %c, %c : i32
  return %z : i32
}

// -----

// Values defined in the predecessors become arguments too.
// CHECK-LABEL: func.func @from_predecessors(%arg0: i1, %arg1: i1, %arg2: i1) -> i32 {
// CHECK-NEXT: cf.cond_br %arg0, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: %[[A:.*]] = "foo.a"() : () -> i32
// CHECK-NEXT: cf.cond_br %arg1, ^bb3(%[[A]] : i32), ^bb4
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: %[[B:.*]] = "foo.b"() : () -> i32
// CHECK-NEXT: cf.cond_br %arg2, ^bb3(%[[B]] : i32), ^bb4
// CHECK-NEXT: ^bb3(%[[R:.*]]: i32):
// CHECK-NEXT: return %[[R]] : i32
// CHECK-NEXT: ^bb4:
// CHECK-NEXT: "foo.unreachable"() : () -> ()
func.func @from_predecessors(%c: i1, %c1: i1, %c2: i1) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %a = "foo.a"() : () -> i32
  cf.cond_br %c1, ^bb3, ^bb5
^bb2:
  %b = "foo.b"() : () -> i32
  cf.cond_br %c2, ^bb4, ^bb5
^bb3:
  return %a : i32
^bb4:
  return %b : i32
^bb5:
  "foo.unreachable"() : () -> ()
}

// -----

// No merge when a differing value would need an operand the terminator cannot take (an
// unregistered one), when arguments are used differently, or have different types (those
// arguments, given one value each, are replaced by it).
// CHECK-LABEL: func.func @unknown_terminator(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT: "foo.cond_br"()[^bb1, ^bb2] : () -> ()
// CHECK-LABEL: func.func @argument_uses(%arg0: i32, %arg1: i32) -> (i32, i32) {
// CHECK-NEXT: "foo.cond_br"(%arg1, %arg0)[^bb1, ^bb2] : (i32, i32) -> ()
// CHECK-LABEL: func.func @argument_types(%arg0: i1, %arg1: i32, %arg2: i16) {
// CHECK-NEXT: cf.cond_br %arg0, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: "foo.return"(%arg1) : (i32) -> ()
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: "foo.return"(%arg2) : (i16) -> ()
func.func @unknown_terminator(%a: i32, %b: i32) -> i32 {
  "foo.cond_br"() [^bb1, ^bb2] : () -> ()
^bb1:
  return %a : i32
^bb2:
  return %b : i32
}
func.func @argument_uses(%a: i32, %b: i32) -> (i32, i32) {
  "foo.cond_br"(%b, %a) [^bb1, ^bb2] : (i32, i32) -> ()
^bb1(%x: i32):
  return %a, %x : i32, i32
^bb2(%y: i32):
  return %y, %b : i32, i32
}
func.func @argument_types(%c: i1, %a: i32, %b: i16) {
  cf.cond_br %c, ^bb1(%a : i32), ^bb2(%b : i16)
^bb1(%x: i32):
  "foo.return"(%x) : (i32) -> ()
^bb2(%y: i16):
  "foo.return"(%y) : (i16) -> ()
}

// -----

// No merge when the ops differ, in kind or in number, or when a block holds a region.
// CHECK-LABEL: func.func @different_ops(%arg0: i1) {
// CHECK-NEXT: cf.cond_br %arg0, ^bb1, ^bb2
// CHECK-LABEL: func.func @different_counts(%arg0: i1) {
// CHECK-NEXT: cf.cond_br %arg0, ^bb1, ^bb2
// CHECK-LABEL: func.func @regions(%arg0: i1) {
// CHECK-NEXT: cf.cond_br %arg0, ^bb1, ^bb2
func.func @different_ops(%c: i1) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  "foo.return"() : () -> ()
^bb2:
  return
}
func.func @different_counts(%c: i1) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  "foo.op"() : () -> ()
  return
^bb2:
  return
}
func.func @regions(%c: i1) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  "foo.region"() ({
    "foo.op"() : () -> ()
  }) : () -> ()
  return
^bb2:
  "foo.region"() ({
    "foo.op"() : () -> ()
  }) : () -> ()
  return
}

// -----

// Blocks in a loop merge, the back edge passing the loop-carried value.
// CHECK-LABEL: func.func @loop(%arg0: i1, %arg1: i1) {
// CHECK-NEXT: %[[CARRY:.*]] = "foo.op"() : () -> i1
// CHECK-NEXT: cf.cond_br %arg0, ^bb1(%arg1 : i1), ^bb2
// CHECK-NEXT: ^bb1(%[[C:.*]]: i1):
// CHECK-NEXT: cf.cond_br %[[C]], ^bb1(%[[CARRY]] : i1), ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: return
func.func @loop(%c: i1, %c2: i1) {
  %c3 = "foo.op"() : () -> (i1)
  cf.cond_br %c, ^bb2, ^bb3
^bb1:
  cf.cond_br %c3, ^bb1, ^bb3
^bb2:
  cf.cond_br %c2, ^bb1, ^bb3
^bb3:
  return
}

// -----

// Blocks whose results are used elsewhere do not merge: the merged value would be either.
// CHECK-LABEL: func.func @used_elsewhere(%arg0: i32, %arg1: i32) {
// CHECK: call @print(%[[J:.*]], %[[I:.*]]) : (i32, i32) -> ()
// CHECK-NOT: call @print(%[[J]], %[[J]])
func.func private @print(i32, i32)
func.func @used_elsewhere(%n: i32, %i: i32) {
  %c1 = arith.constant 1 : i32
  %icmp = arith.cmpi slt, %i, %n : i32
  cf.cond_br %icmp, ^bb2, ^bb3
^bb2:
  %ip1 = arith.addi %i, %c1 : i32
  cf.br ^bb4(%ip1 : i32)
^bb7:
  %jp1 = arith.addi %j, %c1 : i32
  cf.br ^bb4(%jp1 : i32)
^bb4(%j: i32):
  %jcmp = arith.cmpi slt, %j, %n : i32
  func.call @print(%j, %ip1) : (i32, i32) -> ()
  cf.cond_br %jcmp, ^bb7, ^bb3
^bb3:
  return
}

// -----

// An argument that every predecessor gives the same value is replaced by that value.
// CHECK-LABEL: func.func @same_value(%arg0: i32, %arg1: i32, %arg2: i1) -> i32 {
// CHECK-NEXT: cf.cond_br %arg2, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: "foo.a"() : () -> ()
// CHECK-NEXT: cf.br ^bb3(%arg1 : i32)
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: "foo.b"() : () -> ()
// CHECK-NEXT: cf.br ^bb3(%arg0 : i32)
// CHECK-NEXT: ^bb3(%[[Y:.*]]: i32):
// CHECK-NEXT: %[[S:.*]] = arith.addi %arg0, %[[Y]] : i32
// CHECK-NEXT: return %[[S]] : i32
// NORMAL-LABEL: func.func @same_value
// NORMAL: ^bb3(%{{.*}}: i32, %{{.*}}: i32):
func.func @same_value(%a: i32, %b: i32, %c: i1) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  "foo.a"() : () -> ()
  cf.br ^bb3(%a, %b : i32, i32)
^bb2:
  "foo.b"() : () -> ()
  cf.br ^bb3(%a, %a : i32, i32)
^bb3(%x: i32, %y: i32):
  %s = arith.addi %x, %y : i32
  return %s : i32
}
