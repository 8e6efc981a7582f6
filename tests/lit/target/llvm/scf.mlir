// RUN: nart-translate --mlir-to-llvmir %s | filecheck %s

// scf.for: a header with a phi per induction variable and carried value, a signed
// comparison, the body, and a latch adding the step.
func.func @sum(%n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %a = arith.addf %acc, %x : f32
    scf.yield %a : f32
  }
  return %r : f32
}
// CHECK-LABEL: define float @sum(i64 %0, float %1)
// CHECK-NEXT:    br label %[[HEAD:.*]]
// CHECK:       [[HEAD]]:
// CHECK-NEXT:    %[[I:.*]] = phi i64 [ 0, %2 ], [ %[[NEXT:.*]], %[[BODY:.*]] ]
// CHECK-NEXT:    %[[ACC:.*]] = phi float [ 0.000000e+00, %2 ], [ %[[A:.*]], %[[BODY]] ]
// CHECK-NEXT:    %[[C:.*]] = icmp slt i64 %[[I]], %0
// CHECK-NEXT:    br i1 %[[C]], label %[[BODY]], label %[[EXIT:.*]]
// CHECK:       [[BODY]]:
// CHECK-NEXT:    %[[A]] = fadd float %[[ACC]], %1
// CHECK-NEXT:    %[[NEXT]] = add i64 %[[I]], 1
// CHECK-NEXT:    br label %[[HEAD]]
// CHECK:       [[EXIT]]:
// CHECK-NEXT:    ret float %[[ACC]]

// `unsigned` compares unsigned.
func.func @unsigned_loop(%lb: i32, %ub: i32, %s: i32) {
  scf.for unsigned %i = %lb to %ub step %s : i32 {
  }
  return
}
// CHECK-LABEL: define void @unsigned_loop(i32 %0, i32 %1, i32 %2)
// CHECK:         icmp ult i32 %{{.*}}, %1

// scf.if with results: a phi in the block where the branches meet.
func.func @select_like(%c: i1, %a: i64, %b: i64) -> i64 {
  %r = scf.if %c -> (i64) {
    %s = arith.addi %a, %b : i64
    scf.yield %s : i64
  } else {
    scf.yield %b : i64
  }
  return %r : i64
}
// CHECK-LABEL: define i64 @select_like(i1 %0, i64 %1, i64 %2)
// CHECK-NEXT:    br i1 %0, label %[[THEN:.*]], label %[[ELSE:.*]]
// CHECK:       [[THEN]]:
// CHECK-NEXT:    %[[S:.*]] = add i64 %1, %2
// CHECK-NEXT:    br label %[[MERGE:.*]]
// CHECK:       [[ELSE]]:
// CHECK-NEXT:    br label %[[MERGE]]
// CHECK:       [[MERGE]]:
// CHECK-NEXT:    %[[R:.*]] = phi i64 [ %[[S]], %[[THEN]] ], [ %2, %[[ELSE]] ]
// CHECK-NEXT:    ret i64 %[[R]]

// scf.while: the before block's phis take the inits and the after block's yields; the
// condition's operands flow to the after block and out of the loop.
func.func @halve(%n: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %r = scf.while (%x = %n) : (i32) -> i32 {
    %big = arith.cmpi sgt, %x, %c1 : i32
    scf.condition(%big) %x : i32
  } do {
  ^bb0(%y: i32):
    %h = arith.shrsi %y, %c1 : i32
    scf.yield %h : i32
  }
  return %r : i32
}
// CHECK-LABEL: define i32 @halve(i32 %0)
// CHECK-NEXT:    br label %[[BEFORE:.*]]
// CHECK:       [[BEFORE]]:
// CHECK-NEXT:    %[[X:.*]] = phi i32 [ %0, %1 ], [ %[[H:.*]], %[[AFTER:.*]] ]
// CHECK-NEXT:    %[[BIG:.*]] = icmp sgt i32 %[[X]], 1
// CHECK-NEXT:    br i1 %[[BIG]], label %[[AFTER]], label %[[EXIT:.*]]
// CHECK:       [[AFTER]]:
// CHECK-NEXT:    %[[H]] = ashr i32 %[[X]], 1
// CHECK-NEXT:    br label %[[BEFORE]]
// CHECK:       [[EXIT]]:
// CHECK-NEXT:    ret i32 %[[X]]

// scf.parallel: sequential loops, one per dimension, carrying the reduction, whose region
// is inlined in the innermost body.
func.func @count(%n: index, %m: index) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) init (%zero) -> i64 {
    scf.reduce(%one : i64) {
    ^bb0(%l: i64, %rr: i64):
      %s = arith.addi %l, %rr : i64
      scf.reduce.return %s : i64
    }
  }
  return %r : i64
}
// CHECK-LABEL: define i64 @count(i64 %0, i64 %1)
// CHECK:         %[[I:.*]] = phi i64 [ 0, %2 ], [ %{{.*}}, %{{.*}} ]
// CHECK-NEXT:    %[[ACC:.*]] = phi i64 [ 0, %2 ], [ %[[INNER:.*]], %{{.*}} ]
// CHECK-NEXT:    icmp slt i64 %[[I]], %0
// CHECK:         %[[J:.*]] = phi i64
// CHECK-NEXT:    %[[INNER]] = phi i64 [ %[[ACC]], %{{.*}} ], [ %[[SUM:.*]], %{{.*}} ]
// CHECK-NEXT:    icmp slt i64 %[[J]], %1
// CHECK:         %[[SUM]] = add i64 %[[INNER]], 1
// CHECK:         ret i64 %[[ACC]]
