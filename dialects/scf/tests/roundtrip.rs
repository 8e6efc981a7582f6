//! Round trips of `tests/lit/dialect/scf/ops.mlir` through nart's parser and printer, in the
//! custom and the generic form, and checks that the generic form holds what upstream MLIR's
//! does (implicit terminators made explicit, `unsignedCmp`, `operandSegmentSizes`).

use nart_test_dialect::ir::Register;
use nart_test_dialect::roundtrip::{
    check_generic_round_trip, check_round_trip, generic, parse_print,
};

const DIALECTS: &[Register] = &[
    nart_dialect_func::register,
    nart_dialect_arith::register,
    nart_dialect_cf::register,
    nart_dialect_scf::register,
    nart_dialect_memref::register,
    nart_dialect_math::register,
];

fn ops_mlir() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/lit/dialect/scf/ops.mlir");
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
    let text = "func.func @f(%lb: index, %a: i32, %c: i1, %x: f32) {\n\
  scf.for %i = %lb to %lb step %lb {\n  }\n\
  scf.for unsigned %k = %a to %a step %a : i32 {\n  }\n\
  scf.if %c {\n  }\n\
  scf.parallel (%i) = (%lb) to (%lb) step (%lb) {\n  }\n\
  %r = scf.parallel (%i) = (%lb) to (%lb) step (%lb) init (%x) -> f32 {\n\
    scf.reduce(%x : f32) {\n    ^bb0(%l: f32, %m: f32):\n      scf.reduce.return %l : f32\n    }\n  }\n\
  return\n}\n";
    let generic = parse_print(DIALECTS, text, &generic()).unwrap_or_else(|e| panic!("{e}"));
    // Lines as `mlir-opt --mlir-print-op-generic` (LLVM 22) prints them for the same input.
    for want in [
        "\"scf.for\"(%arg0, %arg0, %arg0) ({",
        "\"scf.yield\"() : () -> ()",
        "\"scf.for\"(%arg1, %arg1, %arg1) <{unsignedCmp}> ({",
        "^bb0(%arg8: i32):",
        "}, {\n    }) : (i1) -> ()",
        "\"scf.parallel\"(%arg0, %arg0, %arg0) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({",
        "\"scf.reduce\"() : () -> ()",
        "<{operandSegmentSizes = array<i32: 1, 1, 1, 1>}>",
        "\"scf.reduce\"(%arg3) ({",
        "\"scf.reduce.return\"(%arg5) : (f32) -> ()",
    ] {
        assert!(generic.contains(want), "missing {want}\nin\n{generic}");
    }
}

#[test]
fn custom_form_errors() {
    let cases = [
        (
            "func.func @f(%lb: index, %x: f32) {\n  scf.for %i = %lb to %lb step %lb iter_args(%a = %x) -> (f32, f32) {\n  }\n  return\n}",
            "expected as many iter_args (1) as result types (2)",
        ),
        (
            "func.func @f(%x: f32) {\n  %r = scf.while (%v = %x) : () -> f32 {\n  } do {\n  }\n  return\n}",
            "expected as many input types as operands (expected 1 got 0)",
        ),
        (
            "func.func @f(%lb: index) {\n  scf.parallel (%i, %j) = (%lb) to (%lb, %lb) step (%lb, %lb) {\n  }\n  return\n}",
            "expected 2 operands, but got 1",
        ),
        (
            "func.func @f(%c: i1) {\n  scf.while : i32 {\n  } do {\n  }\n  return\n}",
            "expected a function type",
        ),
    ];
    for (text, want) in cases {
        let err = parse_print(DIALECTS, text, &Default::default()).expect_err(text);
        assert!(err.contains(want), "{text}\nwanted {want}\ngot {err}");
    }
}
