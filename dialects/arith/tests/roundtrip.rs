//! Round trips of `tests/lit/dialect/arith/ops.mlir` through nart's parser and printer, in the
//! custom and the generic form, and checks that the generic form carries the same default
//! properties upstream MLIR prints.

use nart_ir::printer::PrintOptions;
use nart_test_dialect::ir::Register;
use nart_test_dialect::roundtrip::{
    check_generic_round_trip, check_round_trip, generic, parse_print,
};

const DIALECTS: &[Register] = &[nart_dialect_func::register, nart_dialect_arith::register];

fn ops_mlir() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/lit/dialect/arith/ops.mlir");
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
    // Lines as `mlir-opt --mlir-print-op-generic` (LLVM 22) prints them for the same input.
    let text = "func.func @f(%a: i32, %b: i32, %x: f32, %v: vector<4xi32>, %c: i1) {\n\
  %0 = arith.addi %a, %b : i32\n\
  %1 = arith.addi %a, %b overflow<nuw, nsw> : i32\n\
  %2 = arith.negf %x : f32\n\
  %3 = arith.addf %x, %x fastmath<ninf,nnan> : f32\n\
  %4 = arith.cmpi slt, %a, %b : i32\n\
  %5 = arith.cmpf olt, %x, %x : f32\n\
  %6 = arith.trunci %a : i32 to i8\n\
  %7 = arith.divsi %a, %b exact : i32\n\
  %8 = arith.constant true\n\
  %9 = arith.cmpi eq, %v, %v : vector<4xi32>\n\
  %10 = arith.select %c, %a, %b : i32\n\
  %11 = arith.addf %x, %x fastmath<fast> : f32\n\
  return\n}\n";
    let generic = parse_print(DIALECTS, text, &generic()).unwrap_or_else(|e| panic!("{e}"));
    for want in [
        "\"arith.addi\"(%arg0, %arg1) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32",
        "\"arith.addi\"(%arg0, %arg1) <{overflowFlags = #arith.overflow<nsw, nuw>}> : (i32, i32) -> i32",
        "\"arith.negf\"(%arg2) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32",
        "\"arith.addf\"(%arg2, %arg2) <{fastmath = #arith.fastmath<nnan,ninf>}> : (f32, f32) -> f32",
        "\"arith.cmpi\"(%arg0, %arg1) <{predicate = 2 : i64}> : (i32, i32) -> i1",
        "\"arith.cmpf\"(%arg2, %arg2) <{fastmath = #arith.fastmath<none>, predicate = 4 : i64}> : (f32, f32) -> i1",
        "\"arith.trunci\"(%arg0) <{overflowFlags = #arith.overflow<none>}> : (i32) -> i8",
        "\"arith.divsi\"(%arg0, %arg1) <{isExact}> : (i32, i32) -> i32",
        "\"arith.constant\"() <{value = true}> : () -> i1",
        "\"arith.cmpi\"(%arg3, %arg3) <{predicate = 0 : i64}> : (vector<4xi32>, vector<4xi32>) -> vector<4xi1>",
        "\"arith.select\"(%arg4, %arg0, %arg1) : (i1, i32, i32) -> i32",
        "\"arith.addf\"(%arg2, %arg2) <{fastmath = #arith.fastmath<fast>}> : (f32, f32) -> f32",
    ] {
        assert!(generic.contains(want), "missing {want}\nin\n{generic}");
    }
}

#[test]
fn custom_form_errors() {
    let cases = [
        (
            "%0 = arith.addi %a, %a overflow<nsw, bogus> : i32",
            "expected ::mlir::arith::IntegerOverflowFlags to be one of: none, nsw, nuw",
        ),
        (
            "%0 = arith.addf %x, %x fastmath<slow> : f32",
            "expected ::mlir::arith::FastMathFlags to be one of: none, reassoc, nnan",
        ),
        (
            "%0 = arith.cmpi lt, %a, %a : i32",
            "expected string or keyword containing one of the following enum values for \
             attribute 'predicate' [eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge]",
        ),
        ("%0 = arith.extsi %a : i32 i64", ""),
        (
            "%0 = arith.constant unit",
            "invalid kind of attribute specified",
        ),
    ];
    for (line, want) in cases {
        let text = format!("func.func @f(%a: i32, %x: f32) {{\n  {line}\n  return\n}}\n");
        let err = parse_print(DIALECTS, &text, &PrintOptions::default()).expect_err(line);
        assert!(
            err.starts_with("parse:") && err.contains(want),
            "{line}: {err}"
        );
    }
}

#[test]
fn flags_are_canonicalized_like_upstream() {
    // Upstream prints flags in a fixed order and `fast` for all fast-math flags.
    let text = "func.func @f(%a: i32, %x: f32) {\n\
  %0 = arith.addi %a, %a overflow<nuw, nsw> : i32\n\
  %1 = arith.mulf %x, %x fastmath<afn,reassoc> : f32\n\
  %2 = arith.mulf %x, %x fastmath<reassoc,nnan,ninf,nsz,arcp,contract,afn> : f32\n\
  %3 = arith.addi %a, %a overflow<none> : i32\n\
  return\n}\n";
    let custom =
        parse_print(DIALECTS, text, &PrintOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    for want in [
        "arith.addi %arg0, %arg0 overflow<nsw, nuw> : i32",
        "arith.mulf %arg1, %arg1 fastmath<reassoc,afn> : f32",
        "arith.mulf %arg1, %arg1 fastmath<fast> : f32",
        "%3 = arith.addi %arg0, %arg0 : i32",
    ] {
        assert!(custom.contains(want), "missing {want}\nin\n{custom}");
    }
}
