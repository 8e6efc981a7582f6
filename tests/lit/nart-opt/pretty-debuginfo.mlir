// mlir-opt's --mlir-pretty-debuginfo prints locations without `loc(...)` and file names
// without quotes; --mlir-disable-threading is accepted (nart runs on one thread).
// RUN: nart-opt %s --allow-unregistered-dialect --mlir-disable-threading --mlir-print-debuginfo --mlir-pretty-debuginfo --mlir-print-local-scope | filecheck %s
// RUN: nart-opt %s --allow-unregistered-dialect --mlir-pretty-debuginfo | filecheck %s --check-prefix=PLAIN

// CHECK:      "foo.a"() : () -> () a.mlir:1:2
// CHECK-NEXT: "foo.b"() : () -> () [unknown]
// CHECK-NEXT: "foo.c"() : () -> () "name"(x.mlir:3:4)
// CHECK-NEXT: "foo.d"() : () -> () f.mlir:1:1
// CHECK-NEXT: {{^}} at g.mlir:2:2
// CHECK-NEXT: "foo.e"() : () -> () "callee" at g.mlir:2:2
// CHECK-NEXT: "foo.f"() : () -> () [a.mlir:1:1, b.mlir:2:2]
// CHECK-NEXT: "foo.g"() : () -> () <"meta">[a.mlir:1:1]
// CHECK-NEXT: "foo.h"() : () -> () r.mlir:1:2 to 3:4
// CHECK-NEXT: "foo.i"() ({
// CHECK-NEXT: ^bb0(%arg0: i32 arg.mlir:5:6):
// CHECK-NEXT:   "foo.j"() {l = x.mlir:7:8} : () -> () {{.*}}pretty-debuginfo.mlir:{{[0-9]+}}:3
// CHECK-NEXT: }) : () -> () {{.*}}pretty-debuginfo.mlir:{{[0-9]+}}:1

// Without --mlir-print-debuginfo ops print no location.
// PLAIN:      "foo.a"() : () -> (){{$}}
// PLAIN:      ^bb0(%arg0: i32):
"foo.a"() : () -> () loc("a.mlir":1:2)
"foo.b"() : () -> () loc(unknown)
"foo.c"() : () -> () loc("name"("x.mlir":3:4))
"foo.d"() : () -> () loc(callsite("f.mlir":1:1 at "g.mlir":2:2))
"foo.e"() : () -> () loc(callsite("callee" at "g.mlir":2:2))
"foo.f"() : () -> () loc(fused["a.mlir":1:1, "b.mlir":2:2])
"foo.g"() : () -> () loc(fused<"meta">["a.mlir":1:1])
"foo.h"() : () -> () loc("r.mlir":1:2 to 3:4)
"foo.i"() ({
^bb0(%a: i32 loc("arg.mlir":5:6)):
  "foo.j"() {l = loc("x.mlir":7:8)} : () -> ()
}) : () -> ()
