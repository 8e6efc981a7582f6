//! Round trips of `tests/lit/dialect/math/ops.mlir` through nart's parser and printer, in the
//! custom and the generic form, and checks the default `fastmath` property upstream prints.

use nart_test_dialect::ir::Register;
use nart_test_dialect::roundtrip::{
    check_generic_round_trip, check_round_trip, generic, parse_print,
};

const DIALECTS: &[Register] = &[
    nart_dialect_func::register,
    nart_dialect_arith::register,
    nart_dialect_math::register,
];

fn ops_mlir() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/lit/dialect/math/ops.mlir");
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
    let text = "func.func @f(%x: f32, %i: i32, %v: vector<4xf32>) {\n\
  %0 = math.fpowi %x, %i : f32, i32\n\
  %1 = math.isnan %v : vector<4xf32>\n\
  %2 = math.absi %i : i32\n\
  %3 = math.fma %x, %x, %x fastmath<fast> : f32\n\
  return\n}\n";
    let generic = parse_print(DIALECTS, text, &generic()).unwrap_or_else(|e| panic!("{e}"));
    // Lines as `mlir-opt --mlir-print-op-generic` (LLVM 22) prints them for the same input.
    for want in [
        "\"math.fpowi\"(%arg0, %arg1) <{fastmath = #arith.fastmath<none>}> : (f32, i32) -> f32",
        "\"math.isnan\"(%arg2) <{fastmath = #arith.fastmath<none>}> : (vector<4xf32>) -> vector<4xi1>",
        "\"math.absi\"(%arg1) : (i32) -> i32",
        "\"math.fma\"(%arg0, %arg0, %arg0) <{fastmath = #arith.fastmath<fast>}> : (f32, f32, f32) -> f32",
    ] {
        assert!(generic.contains(want), "missing {want}\nin\n{generic}");
    }
}
