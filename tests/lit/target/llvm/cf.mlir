// RUN: nart-translate --mlir-to-llvmir %s | filecheck %s

// The message of the cf.assert below is a global.
// CHECK:       @assert_msg = private unnamed_addr constant [23 x i8] c"a must not be negative\00"

// Block arguments become phis; blocks are emitted in the order of the region.
func.func @loop(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  cf.br ^head(%c0, %c0 : i64, i64)
^head(%i: i64, %acc: i64):
  %done = arith.cmpi sge, %i, %n : i64
  cf.cond_br %done, ^exit, ^body
^body:
  %a = arith.addi %acc, %i : i64
  %j = arith.addi %i, %c1 : i64
  cf.br ^head(%j, %a : i64, i64)
^exit:
  return %acc : i64
}
// CHECK-LABEL: define i64 @loop(i64 %0)
// CHECK-NEXT:    br label %[[HEAD:.*]]
// CHECK:       [[HEAD]]:
// CHECK-NEXT:    %[[I:.*]] = phi i64 [ 0, %1 ], [ %[[J:.*]], %[[BODY:.*]] ]
// CHECK-NEXT:    %[[ACC:.*]] = phi i64 [ 0, %1 ], [ %[[A:.*]], %[[BODY]] ]
// CHECK-NEXT:    %[[DONE:.*]] = icmp sge i64 %[[I]], %0
// CHECK-NEXT:    br i1 %[[DONE]], label %[[EXIT:.*]], label %[[BODY]]
// CHECK:       [[BODY]]:
// CHECK-NEXT:    %[[A]] = add i64 %[[ACC]], %[[I]]
// CHECK-NEXT:    %[[J]] = add i64 %[[I]], 1
// CHECK-NEXT:    br label %[[HEAD]]
// CHECK:       [[EXIT]]:
// CHECK-NEXT:    ret i64 %[[ACC]]

// Both edges of a cond_br to one block with different arguments: the second edge goes
// through a block of its own, since a phi takes one value per predecessor.
func.func @same_dest(%c: i1, %a: i32, %b: i32) -> i32 {
  cf.cond_br %c, ^join(%a : i32), ^join(%b : i32)
^join(%x: i32):
  return %x : i32
}
// CHECK-LABEL: define i32 @same_dest(i1 %0, i32 %1, i32 %2)
// CHECK-NEXT:    br i1 %0, label %[[JOIN:.*]], label %[[EDGE:.*]]
// CHECK:       [[EDGE]]:
// CHECK-NEXT:    br label %[[JOIN]]
// CHECK:       [[JOIN]]:
// CHECK-NEXT:    %[[X:.*]] = phi i32 [ %1, %3 ], [ %2, %[[EDGE]] ]
// CHECK-NEXT:    ret i32 %[[X]]

// cf.switch is LLVM's switch; the first successor is the default.
func.func @switch(%flag: i32, %a: f32, %b: f32) -> f32 {
  cf.switch %flag : i32, [
    default: ^bb1(%a : f32),
    42: ^bb1(%b : f32),
    -7: ^bb2
  ]
^bb1(%x: f32):
  return %x : f32
^bb2:
  %s = arith.addf %a, %b : f32
  return %s : f32
}
// CHECK-LABEL: define float @switch(i32 %0, float %1, float %2)
// CHECK-NEXT:    switch i32 %0, label %[[BB1:.*]] [
// CHECK-NEXT:      i32 42, label %[[EDGE:.*]]
// CHECK-NEXT:      i32 -7, label %[[BB2:.*]]
// CHECK-NEXT:    ]
// CHECK:       [[BB1]]:
// CHECK-NEXT:    %[[X:.*]] = phi float [ %1, %3 ], [ %2, %[[EDGE]] ]
// CHECK-NEXT:    ret float %[[X]]
// CHECK:       [[BB2]]:
// CHECK-NEXT:    %[[S:.*]] = fadd float %1, %2
// CHECK-NEXT:    ret float %[[S]]

// cf.assert prints its message and aborts when the condition is false.
func.func @assert(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %ok = arith.cmpi sge, %a, %c0 : i32
  cf.assert %ok, "a must not be negative"
  return %a : i32
}
// CHECK-LABEL: define i32 @assert(i32 %0)
// CHECK-NEXT:    %[[OK:.*]] = icmp sge i32 %0, 0
// CHECK-NEXT:    br i1 %[[OK]], label %[[CONT:.*]], label %[[FAIL:.*]]
// CHECK:       [[FAIL]]:
// CHECK-NEXT:    call i32 @puts(ptr @assert_msg)
// CHECK-NEXT:    call void @abort()
// CHECK-NEXT:    unreachable
// CHECK:       [[CONT]]:
// CHECK-NEXT:    ret i32 %0

// A block no branch reaches holds only `unreachable`.
func.func @dead(%a: i32) -> i32 {
  return %a : i32
^dead:
  %x = arith.addi %a, %a : i32
  return %x : i32
}
// CHECK-LABEL: define i32 @dead(i32 %0)
// CHECK-NEXT:    ret i32 %0
// CHECK:       {{^[0-9]+}}:
// CHECK-NEXT:    unreachable
