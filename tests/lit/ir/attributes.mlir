// RUN: nart-opt %s --split-input-file --allow-unregistered-dialect | nart-opt --split-input-file --allow-unregistered-dialect | filecheck %s
// RUN: nart-opt %s --split-input-file --allow-unregistered-dialect --mlir-print-op-generic | nart-opt --split-input-file --allow-unregistered-dialect --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC

// Round trips of builtin attributes, printed twice through nart-opt.
// Attribute dictionaries print sorted by name.

// Integers: a missing type is i64, hex literals print in decimal, i1 prints as a bool.
// CHECK-LABEL: "foo.ints"()
// CHECK-SAME: {a = 1 : i32, b = -7 : i8, c = 42 : i64, d = 16 : i64, e = 5 : index, f = 255 : ui8, g = -1 : si4, h = true, i = false, j = true, k = 170141183460469231731687303715884105727 : i128, l = -9223372036854775808 : i64, m = 18446744073709551615 : ui64, n = -128 : si8}
// GENERIC-LABEL: "foo.ints"()
// GENERIC-SAME: {a = 1 : i32, b = -7 : i8, c = 42 : i64, d = 16 : i64, e = 5 : index, f = 255 : ui8, g = -1 : si4, h = true, i = false, j = true, k = 170141183460469231731687303715884105727 : i128, l = -9223372036854775808 : i64, m = 18446744073709551615 : ui64, n = -128 : si8}
"foo.ints"() {a = 1 : i32, b = -7 : i8, c = 42, d = 0x10 : i64, e = 5 : index, f = 0xFF : ui8, g = -1 : si4, h = true, i = false, j = 1 : i1, k = 170141183460469231731687303715884105727 : i128, l = -9223372036854775808 : i64, m = 18446744073709551615 : ui64, n = -128 : si8} : () -> ()

// -----

// Floats: decimal and hexadecimal forms; a missing type is f64; NaN and infinities print in hex.
// CHECK-LABEL: "foo.floats"()
// CHECK-SAME: {a = 1.500000e+00 : f32, b = -0.000000e+00 : f64, c = 1.000000e+10 : f64, d = 0x7FC00000 : f32, e = 0x7F800000 : f32, f = 0xFF800000 : f32, g = 2.500000e+00 : bf16, h = 1.000000e+00 : f16, i = 3.000000e+00 : f64, j = 1.000000e-01 : f64, k = 1.000000e+00 : f64, l = 0x7C00 : f16, m = 0x7FC0 : bf16, n = 0xFFF8000000000000 : f64, o = 1.000000e+00 : f8E4M3FN, p = 5.000000e-01 : tf32}
// GENERIC-LABEL: "foo.floats"()
// GENERIC-SAME: {a = 1.500000e+00 : f32, b = -0.000000e+00 : f64, c = 1.000000e+10 : f64, d = 0x7FC00000 : f32, e = 0x7F800000 : f32, f = 0xFF800000 : f32
"foo.floats"() {a = 1.5 : f32, b = -0.0 : f64, c = 1.0e10 : f64, d = 0x7FC00000 : f32, e = 0x7F800000 : f32, f = 0xFF800000 : f32, g = 2.5 : bf16, h = 1.0 : f16, i = 3.0, j = 0.1 : f64, k = 0x3FF0000000000000 : f64, l = 0x7C00 : f16, m = 0x7FC0 : bf16, n = 0xFFF8000000000000 : f64, o = 1.0 : f8E4M3FN, p = 0.5 : tf32} : () -> ()

// -----

// Strings: printable characters stay, others print as two hex digits.
// CHECK-LABEL: "foo.strings"()
// CHECK-SAME: {a = "hello", b = "tab\09here", c = "quote\22q", d = "nl\0Aline", e = "", f = "back\\slash", g = "\FF\00", h = "unicode \C3\A9"}
// GENERIC-LABEL: "foo.strings"()
// GENERIC-SAME: {a = "hello", b = "tab\09here", c = "quote\22q", d = "nl\0Aline", e = "", f = "back\\slash", g = "\FF\00", h = "unicode \C3\A9"}
"foo.strings"() {a = "hello", b = "tab\there", c = "quote\"q", d = "nl\0Aline", e = "", f = "back\\slash", g = "\FF\00", h = "unicode é"} : () -> ()

// -----

// Unit, arrays, dictionaries, types and symbol references.
// CHECK-LABEL: "foo.misc"()
// CHECK-SAME: {a = [2 : i32, "x", [], [i32], true], d = {x = 1 : i32, y = {z}}, dd = @"quoted name", e = {}, f = {{\[\[\], \[\[\]\], \{\}\]}}, k = {k = [i32, f32, tensor<2xi8>], "quoted key" = 1 : i32}, n = @a::@b::@c, q = [@a, @a::@b, @"x y"::@z], s = @sym, t = i32, t2 = (i32) -> i64, t3 = !foo.bar<"q">, u}
// GENERIC-LABEL: "foo.misc"()
// GENERIC-SAME: {a = [2 : i32, "x", [], [i32], true], d = {x = 1 : i32, y = {z}}, dd = @"quoted name", e = {}, f = {{\[\[\], \[\[\]\], \{\}\]}}, k = {k = [i32, f32, tensor<2xi8>], "quoted key" = 1 : i32}, n = @a::@b::@c, q = [@a, @a::@b, @"x y"::@z], s = @sym, t = i32, t2 = (i32) -> i64, t3 = !foo.bar<"q">, u}
"foo.misc"() {u, a = [2 : i32, "x", [], [i32], true], d = {x = 1 : i32, y = {z = unit}}, e = {}, f = [[], [[]], {}], k = {"quoted key" = 1 : i32, k = [i32, f32, tensor<2xi8>]}, t = i32, t2 = (i32) -> i64, t3 = !foo.bar<"q">, s = @sym, n = @a::@b::@c, q = [@a, @a::@b, @"x y"::@z], dd = @"quoted name"} : () -> ()

// -----

// Dense elements: splats, nested lists, booleans, empty, hex strings (printed as lists when small).
// CHECK-LABEL: "foo.dense"()
// CHECK-SAME: a = dense<1.000000e+00> : tensor<4xf32>
// CHECK-SAME: b = dense<[1, 2, 3]> : tensor<3xi32>
// CHECK-SAME: c = dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi64>
// CHECK-SAME: d = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-SAME: e = dense<true> : tensor<3xi1>
// CHECK-SAME: f = dense<[true, false]> : vector<2xi1>
// CHECK-SAME: g = dense<> : tensor<0xi32>
// CHECK-SAME: h = dense<[1.500000e+00, 2.500000e+00]> : tensor<2xf64>
// CHECK-SAME: i = dense<[-1, 0]> : tensor<2xsi8>
// CHECK-SAME: j = dense<1> : tensor<i32>
// CHECK-SAME: k = dense<[1, 2]> : tensor<2xi32>
// CHECK-SAME: l = dense<1> : vector<4xi8>
// CHECK-SAME: m = dense<["a", "bc"]> : tensor<2x!foo.str>
// GENERIC-LABEL: "foo.dense"()
// GENERIC-SAME: a = dense<1.000000e+00> : tensor<4xf32>, b = dense<[1, 2, 3]> : tensor<3xi32>, c = dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi64>, d = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
"foo.dense"() {a = dense<1.0> : tensor<4xf32>, b = dense<[1, 2, 3]> : tensor<3xi32>, c = dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>, d = dense<"0x0000803F00000040"> : tensor<2xf32>, e = dense<true> : tensor<3xi1>, f = dense<[true, false]> : vector<2xi1>, g = dense<> : tensor<0xi32>, h = dense<[1.5, 2.5]> : tensor<2xf64>, i = dense<[-1, 0]> : tensor<2xsi8>, j = dense<"0x01000000"> : tensor<i32>, k = dense<"0x0100000002000000"> : tensor<2xi32>, l = dense<1> : vector<4xi8>, m = dense<["a", "bc"]> : tensor<2x!foo.str>} : () -> ()

// -----

// Dense elements with more than 100 elements print as a hex string.
// CHECK-LABEL: "foo.big"()
// CHECK-SAME: {big = dense<"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F6061626364"> : tensor<101xi8>}
// GENERIC-LABEL: "foo.big"()
// GENERIC-SAME: {big = dense<"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F6061626364"> : tensor<101xi8>}
"foo.big"() {big = dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100]> : tensor<101xi8>} : () -> ()

// -----

// Dense resources keep their blob in the file's resource section.
// CHECK-LABEL: "foo.resource"() {r = dense_resource<blob1> : tensor<2xi32>} : () -> ()
// CHECK: {-#
// CHECK-NEXT: dialect_resources: {
// CHECK-NEXT: builtin: {
// CHECK-NEXT: blob1: "0x040000000100000002000000"
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: #-}
// GENERIC-LABEL: "foo.resource"() {r = dense_resource<blob1> : tensor<2xi32>} : () -> ()
// GENERIC: blob1: "0x040000000100000002000000"
"foo.resource"() {r = dense_resource<blob1> : tensor<2xi32>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000"
    }
  }
#-}

// -----

// Dense arrays.
// CHECK-LABEL: "foo.arrays"()
// CHECK-SAME: {a = array<i64: 1, 2, 3>, b = array<i32>, c = array<f32: 1.000000e+00, 2.500000e+00>, d = array<i1: true, false>, e = array<i8: -1>, f = array<f64: -0.000000e+00>}
// GENERIC-LABEL: "foo.arrays"()
// GENERIC-SAME: {a = array<i64: 1, 2, 3>, b = array<i32>, c = array<f32: 1.000000e+00, 2.500000e+00>, d = array<i1: true, false>, e = array<i8: -1>, f = array<f64: -0.000000e+00>}
"foo.arrays"() {a = array<i64: 1, 2, 3>, b = array<i32>, c = array<f32: 1.0, 2.5>, d = array<i1: true, false>, e = array<i8: -1>, f = array<f64: -0.0>} : () -> ()

// -----

// Affine maps, integer sets and strided layouts; attribute aliases are resolved when parsed.
// Maps and sets print as `#map`/`#set` aliases numbered in print order, as mlir-opt prints
// them; strided layouts print in place.
// CHECK: #map = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-NEXT: #map1 = affine_map<(d0)[s0] -> (d0 floordiv 2 + s0 mod 3, d0 ceildiv 4)>
// CHECK-NEXT: #map2 = affine_map<() -> (0)>
// CHECK-NEXT: #map3 = affine_map<(d0) -> ()>
// CHECK-NEXT: #map4 = affine_map<(d0, d1)[s0] -> (d0 + d1 * 2 - s0, d1 mod 4, d0 - d1, d0 * 3 - 2)>
// CHECK-NEXT: #set = affine_set<(d0) : (d0 >= 0, d0 - 10 == 0)>
// CHECK-NEXT: module {
// CHECK-LABEL: "foo.maps"()
// CHECK-SAME: {a = #map, b = #map1, c = #map2, d = #map3, e = #map4, f = #set, g = [#map, strided<[4, 1]>], s = strided<[4, 1]>, s2 = strided<[?, ?], offset: ?>, s3 = strided<[]>, s4 = strided<[2], offset: 3>}
// GENERIC: #map = affine_map<(d0, d1) -> (d1, d0)>
// GENERIC-LABEL: "foo.maps"()
// GENERIC-SAME: a = #map,
// GENERIC-SAME: s = strided<[4, 1]>, s2 = strided<[?, ?], offset: ?>, s3 = strided<[]>, s4 = strided<[2], offset: 3>
#transpose = affine_map<(d0, d1) -> (d1, d0)>
#floor = affine_map<(d0)[s0] -> (d0 floordiv 2 + s0 mod 3, d0 ceildiv 4)>
#row = strided<[4, 1]>
#list = [#transpose, #row]
"foo.maps"() {a = #transpose, b = #floor, c = affine_map<() -> (0)>, d = affine_map<(d0) -> ()>, e = affine_map<(d0, d1)[s0] -> (d0 + d1 * 2 - s0, d1 mod 4, d0 - d1, d0 * 3 - 2)>, f = affine_set<(d0) : (d0 >= 0, d0 - 10 == 0)>, g = #list, s = #row, s2 = strided<[?, ?], offset: ?>, s3 = strided<[]>, s4 = strided<[2], offset: 3>} : () -> ()

// -----

// Opaque dialect attributes, properties and attributes on the same op.
// CHECK-LABEL: "foo.opaque"()
// CHECK-SAME: <{p = #foo.prop<"x">}> {o = #foo.bar, q = #foo<"x">, r = #foo.baz<1, [2, 3]>}
// GENERIC-LABEL: "foo.opaque"()
// GENERIC-SAME: <{p = #foo.prop<"x">}> {o = #foo.bar, q = #foo<"x">, r = #foo.baz<1, [2, 3]>}
"foo.opaque"() <{p = #foo.prop<"x">}> {o = #foo.bar, q = #foo<"x">, r = #foo.baz<1, [2, 3]>} : () -> ()

// -----

// Attributes of registered ops in the custom form.
// CHECK-LABEL: func.func @custom() -> (i32, f32, tensor<2xi8>, index)
// CHECK-NEXT: arith.constant -3 : i32
// CHECK-NEXT: arith.constant 0x7F800000 : f32
// CHECK-NEXT: arith.constant dense<[1, 2]> : tensor<2xi8>
// CHECK-NEXT: arith.constant 7 : index
// GENERIC-LABEL: sym_name = "custom"
// GENERIC: "arith.constant"() <{value = -3 : i32}> : () -> i32
// GENERIC: "arith.constant"() <{value = 0x7F800000 : f32}> : () -> f32
// GENERIC: "arith.constant"() <{value = dense<[1, 2]> : tensor<2xi8>}> : () -> tensor<2xi8>
// GENERIC: "arith.constant"() <{value = 7 : index}> : () -> index
func.func @custom() -> (i32, f32, tensor<2xi8>, index) {
  %0 = arith.constant -3 : i32
  %1 = arith.constant 0x7F800000 : f32
  %2 = arith.constant dense<[1, 2]> : tensor<2xi8>
  %3 = arith.constant 7 : index
  return %0, %1, %2, %3 : i32, f32, tensor<2xi8>, index
}
