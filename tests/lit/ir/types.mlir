// RUN: nart-opt %s --split-input-file --allow-unregistered-dialect | nart-opt --split-input-file --allow-unregistered-dialect | filecheck %s
// RUN: nart-opt %s --split-input-file --allow-unregistered-dialect --mlir-print-op-generic | nart-opt --split-input-file --allow-unregistered-dialect --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC

// Round trips of every builtin type, printed twice through nart-opt (custom and generic form).

// Integers of any width and signedness, and index.
// CHECK-LABEL: func.func private @integers(i1, i7, i8, i16, i32, i64, i128, si8, si32, ui1, ui16, ui64, index)
// GENERIC-LABEL: "func.func"() <{function_type = (i1, i7, i8, i16, i32, i64, i128, si8, si32, ui1, ui16, ui64, index) -> (), sym_name = "integers", sym_visibility = "private"}> ({
// GENERIC-NEXT: }) : () -> ()
func.func private @integers(i1, i7, i8, i16, i32, i64, i128, si8, si32, ui1, ui16, ui64, index)

// -----

// Floats, including every 8-bit variant, and none.
// CHECK-LABEL: func.func private @floats(f16, bf16, f32, f64, tf32, f80, f128) -> none
// CHECK-LABEL: func.func private @f8(f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3B11FNUZ, f8E4M3, f8E3M4, f8E8M0FNU)
// GENERIC-LABEL: <{function_type = (f16, bf16, f32, f64, tf32, f80, f128) -> none, sym_name = "floats", sym_visibility = "private"}>
// GENERIC-LABEL: <{function_type = (f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3B11FNUZ, f8E4M3, f8E3M4, f8E8M0FNU) -> (), sym_name = "f8", sym_visibility = "private"}>
func.func private @floats(f16, bf16, f32, f64, tf32, f80, f128) -> none
func.func private @f8(f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3B11FNUZ, f8E4M3, f8E3M4, f8E8M0FNU)

// -----

// Function types: results in parentheses only when needed, nested function types.
// CHECK-LABEL: func.func private @functions() -> ((i32) -> i32, () -> (), (i32, f32) -> (i64, f64), ((i32) -> i32) -> ())
// CHECK-LABEL: func.func private @fn_result() -> (() -> (() -> i1))
// GENERIC-LABEL: <{function_type = () -> ((i32) -> i32, () -> (), (i32, f32) -> (i64, f64), ((i32) -> i32) -> ()), sym_name = "functions", sym_visibility = "private"}>
// GENERIC-LABEL: <{function_type = () -> (() -> (() -> i1)), sym_name = "fn_result", sym_visibility = "private"}>
func.func private @functions() -> ((i32) -> i32, () -> (), (i32, f32) -> (i64, f64), ((i32) -> i32) -> ())
func.func private @fn_result() -> (() -> (() -> i1))

// -----

// Tensors: static, dynamic, unranked, rank 0, zero-sized, with an encoding.
// CHECK-LABEL: func.func private @tensors(tensor<4x8xf32>, tensor<?x8xf32>, tensor<?x?x?xi8>, tensor<*xf32>, tensor<f32>, tensor<0xi1>, tensor<4x?xi8, "enc">, tensor<2xf32, #foo.layout<1>>, tensor<2x!foo.elt>, tensor<3xcomplex<f32>>)
// GENERIC-LABEL: <{function_type = (tensor<4x8xf32>, tensor<?x8xf32>, tensor<?x?x?xi8>, tensor<*xf32>, tensor<f32>, tensor<0xi1>, tensor<4x?xi8, "enc">, tensor<2xf32, #foo.layout<1>>, tensor<2x!foo.elt>, tensor<3xcomplex<f32>>) -> (), sym_name = "tensors", sym_visibility = "private"}>
func.func private @tensors(tensor<4x8xf32>, tensor<?x8xf32>, tensor<?x?x?xi8>, tensor<*xf32>, tensor<f32>, tensor<0xi1>, tensor<4x?xi8, "enc">, tensor<2xf32, #foo.layout<1>>, tensor<2x!foo.elt>, tensor<3xcomplex<f32>>)

// -----

// Memrefs: static, dynamic, unranked, memory spaces, affine-map and strided layouts.
// Affine-map layouts print as `#map` aliases; an identity map is dropped, as MLIR drops it.
// CHECK: #map = affine_map<(d0) -> (d0 + 1)>
// CHECK-NEXT: #map1 = affine_map<(d0)[s0] -> (d0 * s0)>
// CHECK-NEXT: module {
// GENERIC: #map = affine_map<(d0) -> (d0 + 1)>
// GENERIC-NEXT: #map1 = affine_map<(d0)[s0] -> (d0 * s0)>
// CHECK-LABEL: func.func private @memrefs(memref<4x8xf32>, memref<?x?xf32>, memref<*xf32>, memref<*xf32, 1>, memref<4xf32, "gpu">)
// GENERIC-LABEL: <{function_type = (memref<4x8xf32>, memref<?x?xf32>, memref<*xf32>, memref<*xf32, 1>, memref<4xf32, "gpu">) -> (), sym_name = "memrefs", sym_visibility = "private"}>
func.func private @memrefs(memref<4x8xf32>, memref<?x?xf32>, memref<*xf32>, memref<*xf32, 1>, memref<4xf32, "gpu">)
// CHECK-LABEL: func.func private @layouts(memref<4xf32, #map>, memref<4xf32, #map1>, memref<4x8xf32, strided<[8, 1], offset: 2>>, memref<4x8xf32, strided<[?, 1], offset: ?>, 3>, memref<4x8xf32, strided<[8, 1]>>, memref<4x4xf32>)
// GENERIC-LABEL: <{function_type = (memref<4xf32, #map>, memref<4xf32, #map1>, memref<4x8xf32, strided<[8, 1], offset: 2>>, memref<4x8xf32, strided<[?, 1], offset: ?>, 3>, memref<4x8xf32, strided<[8, 1]>>, memref<4x4xf32>) -> (), sym_name = "layouts", sym_visibility = "private"}>
func.func private @layouts(memref<4xf32, affine_map<(d0) -> (d0 + 1)>>, memref<4xf32, affine_map<(d0)[s0] -> (d0 * s0)>>, memref<4x8xf32, strided<[8, 1], offset: 2>>, memref<4x8xf32, strided<[?, 1], offset: ?>, 3>, memref<4x8xf32, strided<[8, 1], offset: 0>>, memref<4x4xf32, affine_map<(d0, d1) -> (d0, d1)>>)

// -----

// Vectors: fixed, multi-dimensional, scalable, rank 0.
// CHECK-LABEL: func.func private @vectors(vector<4xf32>, vector<2x3xi8>, vector<[4]xf32>, vector<2x[4]xf32>, vector<[2]x[2]xi1>, vector<f32>, vector<4xindex>)
// GENERIC-LABEL: <{function_type = (vector<4xf32>, vector<2x3xi8>, vector<[4]xf32>, vector<2x[4]xf32>, vector<[2]x[2]xi1>, vector<f32>, vector<4xindex>) -> (), sym_name = "vectors", sym_visibility = "private"}>
func.func private @vectors(vector<4xf32>, vector<2x3xi8>, vector<[4]xf32>, vector<2x[4]xf32>, vector<[2]x[2]xi1>, vector<f32>, vector<4xindex>)

// -----

// Tuples, complex numbers and opaque dialect types.
// CHECK-LABEL: func.func private @misc(tuple<>, tuple<i32, f32>, tuple<i32, tuple<f32, tensor<2xi8>>>, complex<f32>, complex<f64>, complex<i32>)
// CHECK-LABEL: func.func private @opaque(!foo.bar, !foo.bar<"x", 1>, !foo<"abc">, !foo.nested<tensor<4xf32>, [1, 2]>)
// GENERIC-LABEL: <{function_type = (tuple<>, tuple<i32, f32>, tuple<i32, tuple<f32, tensor<2xi8>>>, complex<f32>, complex<f64>, complex<i32>) -> (), sym_name = "misc", sym_visibility = "private"}>
// GENERIC-LABEL: <{function_type = (!foo.bar, !foo.bar<"x", 1>, !foo<"abc">, !foo.nested<tensor<4xf32>, [1, 2]>) -> (), sym_name = "opaque", sym_visibility = "private"}>
func.func private @misc(tuple<>, tuple<i32, f32>, tuple<i32, tuple<f32, tensor<2xi8>>>, complex<f32>, complex<f64>, complex<i32>)
func.func private @opaque(!foo.bar, !foo.bar<"x", 1>, !foo<"abc">, !foo.nested<tensor<4xf32>, [1, 2]>)

// -----

// Type aliases are resolved when parsed; a builtin type prints in full.
// CHECK-NOT: !t =
// CHECK-LABEL: func.func private @aliases(tensor<4xf32>, !foo.bar<"q">) -> tensor<4xf32>
// CHECK-NEXT: %[[V:.*]]:2 = "foo.op"() : () -> (tensor<4xf32>, tuple<tensor<4xf32>, !foo.bar<"q">>)
// GENERIC-LABEL: <{function_type = (tensor<4xf32>, !foo.bar<"q">) -> tensor<4xf32>, sym_name = "aliases", sym_visibility = "private"}>
// GENERIC: "foo.op"() : () -> (tensor<4xf32>, tuple<tensor<4xf32>, !foo.bar<"q">>)
!t = tensor<4xf32>
!u = !foo.bar<"q">
!pair = tuple<!t, !u>
func.func private @aliases(!t, !u) -> !t
%0:2 = "foo.op"() : () -> (!t, !pair)

// -----

// Types in the result list and operands of an unregistered op, with result groups.
// CHECK-LABEL: "foo.def"() : () -> (i1, index, f8E5M2, complex<bf16>, vector<[8]xi8>, memref<?xf32, 2>)
// CHECK-NEXT: "foo.use"(%{{.*}}#0, %{{.*}}#5) : (i1, memref<?xf32, 2>) -> ()
// GENERIC-LABEL: "foo.def"() : () -> (i1, index, f8E5M2, complex<bf16>, vector<[8]xi8>, memref<?xf32, 2>)
%r:6 = "foo.def"() : () -> (i1, index, f8E5M2, complex<bf16>, vector<[8]xi8>, memref<?xf32, 2>)
"foo.use"(%r#0, %r#5) : (i1, memref<?xf32, 2>) -> ()
