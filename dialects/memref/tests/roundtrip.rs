//! Round trips of `tests/lit/dialect/memref/ops.mlir` through nart's parser and printer, in
//! the custom and the generic form, and checks that the generic form holds the properties
//! upstream MLIR prints.

use nart_test_dialect::ir::Register;
use nart_test_dialect::roundtrip::{
    check_generic_round_trip, check_round_trip, generic, parse_print,
};

const DIALECTS: &[Register] = &[
    nart_dialect_func::register,
    nart_dialect_arith::register,
    nart_dialect_memref::register,
];

fn ops_mlir() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/lit/dialect/memref/ops.mlir");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading ops.mlir: {e}"))
}

#[test]
fn custom_form_round_trips() {
    check_round_trip(DIALECTS, &ops_mlir()).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn generic_form_round_trips() {
    check_generic_round_trip(DIALECTS, &ops_mlir()).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn generic_form_matches_upstream() {
    let text = "memref.global \"private\" constant @w : memref<2xf32> = dense<[1.0, 2.0]> {alignment = 64 : i64}\n\
memref.global @u : memref<4xi8> = uninitialized\n\
func.func @f(%n: index, %m: memref<8x16xf32>) {\n\
  %a = memref.alloc(%n) {alignment = 64 : i64} : memref<?x4xf32>\n\
  %s = memref.subview %m[%n, 4] [2, %n] [1, 2] : memref<8x16xf32> to memref<2x?xf32, strided<[16, 2], offset: ?>>\n\
  %r = memref.reinterpret_cast %m to offset: [0], sizes: [128], strides: [1] : memref<8x16xf32> to memref<128xf32>\n\
  %g = memref.get_global @w : memref<2xf32>\n\
  return\n}\n";
    let generic = parse_print(DIALECTS, text, &generic()).unwrap_or_else(|e| panic!("{e}"));
    // Lines as `mlir-opt --mlir-print-op-generic` (LLVM 22) prints them for the same input.
    for want in [
        "\"memref.global\"() <{alignment = 64 : i64, constant, initial_value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>, sym_name = \"w\", sym_visibility = \"private\", type = memref<2xf32>}> : () -> ()",
        "\"memref.global\"() <{initial_value, sym_name = \"u\", type = memref<4xi8>}> : () -> ()",
        "\"memref.alloc\"(%arg0) <{alignment = 64 : i64, operandSegmentSizes = array<i32: 1, 0>}> : (index) -> memref<?x4xf32>",
        "\"memref.subview\"(%arg1, %arg0, %arg0) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>, static_offsets = array<i64: -9223372036854775808, 4>, static_sizes = array<i64: 2, -9223372036854775808>, static_strides = array<i64: 1, 2>}> : (memref<8x16xf32>, index, index) -> memref<2x?xf32, strided<[16, 2], offset: ?>>",
        "\"memref.reinterpret_cast\"(%arg1) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: 128>, static_strides = array<i64: 1>}> : (memref<8x16xf32>) -> memref<128xf32>",
        "\"memref.get_global\"() <{name = @w}> : () -> memref<2xf32>",
    ] {
        assert!(generic.contains(want), "missing {want}\nin\n{generic}");
    }
}

#[test]
fn custom_form_errors() {
    let cases = [
        (
            "memref.global @g : memref<2xf32> = dense<[1.0, 2.0, 3.0]>",
            "inferred shape of elements literal ([3]) does not match type ([2])",
        ),
        (
            "func.func @f(%m: memref<4xf32>, %x: f32, %i: index) {\n  memref.store %x, %m[%i] : tensor<4xf32>\n  return\n}",
            "expected a ranked memref type",
        ),
        (
            "func.func @f(%m: memref<8xf32>) {\n  %s = memref.subview %m[%m] [2] [1] : memref<8xf32> to memref<2xf32, strided<[1], offset: ?>>\n  return\n}",
            "use of value '%m' expects different type than prior uses",
        ),
    ];
    for (text, want) in cases {
        let err = parse_print(DIALECTS, text, &Default::default()).expect_err(text);
        assert!(err.contains(want), "{text}\nwanted {want}\ngot {err}");
    }
}
