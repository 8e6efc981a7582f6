// RUN: nart-opt %s --split-input-file --allow-unregistered-dialect --mlir-print-debuginfo | nart-opt --split-input-file --allow-unregistered-dialect --mlir-print-debuginfo | filecheck %s
// RUN: nart-opt %s --split-input-file --allow-unregistered-dialect --mlir-print-debuginfo --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: nart-opt %s --split-input-file --allow-unregistered-dialect | filecheck %s --check-prefix=NODEBUG

// Location attributes round trip with --mlir-print-debuginfo and are hidden without it.
// NODEBUG-NOT: loc(

// Every kind of location, and a location alias.
// CHECK-LABEL: "foo.a"() : () -> () loc("file.mlir":10:8)
// CHECK-NEXT: "foo.b"() : () -> () loc("name")
// CHECK-NEXT: "foo.c"() : () -> () loc("name"("inner.mlir":1:2))
// CHECK-NEXT: "foo.d"() : () -> () loc(fused["a.mlir":1:1, "b.mlir":2:2])
// CHECK-NEXT: "foo.e"() : () -> () loc(fused<"tag">["a.mlir":1:1])
// CHECK-NEXT: "foo.f"() : () -> () loc(callsite("callee.mlir":5:6 at "caller.mlir":7:8))
// CHECK-NEXT: "foo.g"() : () -> () loc(unknown)
// CHECK-NEXT: "foo.h"() : () -> () loc("alias.mlir":3:4)
// CHECK-NEXT: "foo.i"() : () -> () loc("file.mlir":10:8 to 12:3)
// CHECK-NEXT: "foo.j"() : () -> () loc(callsite("name"("x.mlir":1:1) at fused["y.mlir":2:2, "z.mlir":3:3]))
// GENERIC-LABEL: "foo.a"() : () -> () loc("file.mlir":10:8)
// GENERIC-NEXT: "foo.b"() : () -> () loc("name")
// GENERIC-NEXT: "foo.c"() : () -> () loc("name"("inner.mlir":1:2))
// GENERIC-NEXT: "foo.d"() : () -> () loc(fused["a.mlir":1:1, "b.mlir":2:2])
// GENERIC-NEXT: "foo.e"() : () -> () loc(fused<"tag">["a.mlir":1:1])
// GENERIC-NEXT: "foo.f"() : () -> () loc(callsite("callee.mlir":5:6 at "caller.mlir":7:8))
// GENERIC-NEXT: "foo.g"() : () -> () loc(unknown)
// GENERIC-NEXT: "foo.h"() : () -> () loc("alias.mlir":3:4)
// GENERIC-NEXT: "foo.i"() : () -> () loc("file.mlir":10:8 to 12:3)
#loc = loc("alias.mlir":3:4)
"foo.a"() : () -> () loc("file.mlir":10:8)
"foo.b"() : () -> () loc("name")
"foo.c"() : () -> () loc("name"("inner.mlir":1:2))
"foo.d"() : () -> () loc(fused["a.mlir":1:1, "b.mlir":2:2])
"foo.e"() : () -> () loc(fused<"tag">["a.mlir":1:1])
"foo.f"() : () -> () loc(callsite("callee.mlir":5:6 at "caller.mlir":7:8))
"foo.g"() : () -> () loc(unknown)
"foo.h"() : () -> () loc(#loc)
"foo.i"() : () -> () loc("file.mlir":10:8 to 12:3)
"foo.j"() : () -> () loc(callsite("name"("x.mlir":1:1) at fused["y.mlir":2:2, "z.mlir":3:3]))

// -----

// An op without a location gets its position in the input file; block arguments carry locations too.
// CHECK-LABEL: func.func @implicit(
// CHECK-SAME: %arg0: i32 loc("arg.mlir":1:1), %arg1: i32 loc({{.*}}locations.mlir":[[@LINE+4]]:50)) -> i32 {
// CHECK-NEXT: %[[V:.*]] = arith.addi %arg0, %arg1 : i32 loc({{.*}}locations.mlir":[[@LINE+6]]:{{[0-9]+}})
// CHECK-NEXT: return %[[V]] : i32 loc("ret.mlir":2:2)
// CHECK-NEXT: } loc("fn.mlir":3:3)
func.func @implicit(%a: i32 loc("arg.mlir":1:1), %b: i32) -> i32 {
  // The next op has no explicit location.
  // CHECK-NOT: loc(unknown)
  %0 = arith.addi %a, %b : i32
  return %0 : i32 loc("ret.mlir":2:2)
} loc("fn.mlir":3:3)
