// Affine maps and integer sets print as `#map`/`#set` aliases, as mlir-opt prints them;
// `--mlir-print-local-scope` prints them in place.
// RUN: nart-opt %s --allow-unregistered-dialect | filecheck %s
// RUN: nart-opt %s --allow-unregistered-dialect | nart-opt --allow-unregistered-dialect | filecheck %s
// RUN: nart-opt %s --allow-unregistered-dialect --mlir-print-local-scope | filecheck %s --check-prefix=LOCAL

// CHECK: #map = affine_map<(d0) -> (d0 + 2)>
// CHECK-NEXT: #map1 = affine_map<(d0) -> (d0 + 1)>
// CHECK-NEXT: #map2 = affine_map<(d0, d1) -> (-d0, -(d0 + d1), d0 - d1 * 2)>
// CHECK-NEXT: #map3 = affine_map<(d0) -> (d0 + 4)>
// CHECK-NEXT: module {
// Properties of unregistered ops print in place; a generic op's regions come first.
// CHECK-NEXT: "foo.outer"() <{p = affine_map<(d0) -> (d0 + 3)>}> ({
// CHECK-NEXT: "foo.inner"() {m = #map} : () -> ()
// CHECK-NEXT: }) {m = #map1, n = #map2} : () -> ()
// CHECK-NEXT: func.func @f(%arg0: memref<4xf32, #map3>, %arg1: memref<4xf32>)
// LOCAL-NOT: #map
// LOCAL: "foo.inner"() {m = affine_map<(d0) -> (d0 + 2)>} : () -> ()
// LOCAL: func.func @f(%arg0: memref<4xf32, affine_map<(d0) -> (d0 + 4)>>, %arg1: memref<4xf32>)
"foo.outer"() <{p = affine_map<(d0) -> (d0 + 3)>}> ({
  "foo.inner"() {m = affine_map<(d0) -> (d0 + 2)>} : () -> ()
}) {m = affine_map<(d0) -> (d0 + 1)>, n = affine_map<(d0, d1) -> (-d0, -(d0 + d1), d0 - d1 * 2)>} : () -> ()
func.func @f(%a: memref<4xf32, affine_map<(d0) -> (d0 + 4)>>, %b: memref<4xf32, affine_map<(d0) -> (d0)>>) {
  return
}
