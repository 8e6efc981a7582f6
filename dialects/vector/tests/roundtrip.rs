//! Round trips of `tests/lit/dialect/vector/ops.mlir` through nart's parser and printer, in
//! the custom and the generic form, and checks that the generic form holds the properties
//! upstream MLIR prints (the default permutation map and `in_bounds` of transfers made
//! explicit, positions with `kDynamic`).

use nart_test_dialect::ir::Register;
use nart_test_dialect::roundtrip::{
    check_generic_round_trip, check_round_trip, generic, parse_print,
};

const DIALECTS: &[Register] = &[
    nart_dialect_func::register,
    nart_dialect_arith::register,
    nart_dialect_memref::register,
    nart_dialect_vector::register,
];

fn ops_mlir() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/lit/dialect/vector/ops.mlir");
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
    let text = "func.func @f(%m: memref<8x16xf32>, %i: index, %x: f32, %v: vector<4xf32>, %a: vector<4x8xf32>) {\n\
  %r = vector.transfer_read %m[%i, %i], %x {in_bounds = [true]} : memref<8x16xf32>, vector<8xf32>\n\
  %r2 = vector.transfer_read %m[%i, %i], %x {permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<8x16xf32>, vector<4xf32>\n\
  %e = vector.extract %a[%i] : vector<8xf32> from vector<4x8xf32>\n\
  %red = vector.reduction <add>, %v : vector<4xf32> into f32\n\
  %o = vector.outerproduct %v, %r : vector<4xf32>, vector<8xf32>\n\
  %s = vector.shuffle %v, %v [0, 4, 1, 5] : vector<4xf32>, vector<4xf32>\n\
  return\n}\n";
    let generic = parse_print(DIALECTS, text, &generic()).unwrap_or_else(|e| panic!("{e}"));
    // Lines as `mlir-opt --mlir-print-op-generic` (LLVM 22) prints them for the same input.
    for want in [
        "#map = affine_map<(d0, d1) -> (d1)>",
        "#map1 = affine_map<(d0, d1) -> (d0)>",
        "<{in_bounds = [true], operandSegmentSizes = array<i32: 1, 2, 1, 0>, permutation_map = #map}> : (memref<8x16xf32>, index, index, f32) -> vector<8xf32>",
        "<{in_bounds = [false], operandSegmentSizes = array<i32: 1, 2, 1, 0>, permutation_map = #map1}> : (memref<8x16xf32>, index, index, f32) -> vector<4xf32>",
        "\"vector.extract\"(%arg4, %arg1) <{static_position = array<i64: -9223372036854775808>}> : (vector<4x8xf32>, index) -> vector<8xf32>",
        "\"vector.reduction\"(%arg3) <{fastmath = #arith.fastmath<none>, kind = #vector.kind<add>}> : (vector<4xf32>) -> f32",
        "\"vector.outerproduct\"(%arg3, %0) <{kind = #vector.kind<add>}> : (vector<4xf32>, vector<8xf32>) -> vector<4x8xf32>",
        "\"vector.shuffle\"(%arg3, %arg3) <{mask = array<i64: 0, 4, 1, 5>}> : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>",
    ] {
        assert!(generic.contains(want), "missing {want}\nin\n{generic}");
    }
}

#[test]
fn custom_form_errors() {
    let cases = [
        (
            "func.func @f(%x: f32) {\n  %v = vector.from_elements %x : f32\n  return\n}",
            "expected a vector type",
        ),
        (
            "func.func @f(%v: vector<4xf32>) {\n  %s = vector.reduction <plus>, %v : vector<4xf32> into f32\n  return\n}",
            "expected ::mlir::vector::CombiningKind to be one of",
        ),
        (
            "func.func @f(%v: vector<4xf32>, %x: f32) {\n  %r = vector.transfer_read %x[], %x : f32, vector<4xf32>\n  return\n}",
            "requires memref or ranked tensor type",
        ),
    ];
    for (text, want) in cases {
        let err = parse_print(DIALECTS, text, &Default::default()).expect_err(text);
        assert!(err.contains(want), "{text}\nwanted {want}\ngot {err}");
    }
}
