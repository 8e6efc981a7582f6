//! The linalg ops round-trip in both forms, every named op answers the structured interface
//! with upstream's maps and iterator types, and the reference page is up to date.

use nart_ir::printer::PrintOptions;
use nart_test_dialect::roundtrip::{
    check_generic_round_trip, check_round_trip, parse, parse_print,
};

use crate::structured::structured;
use crate::IteratorType::{Parallel as P, Reduction as R};

const DIALECTS: &[fn(&mut nart_ir::Context)] = &[
    nart_dialect_func::register,
    nart_dialect_arith::register,
    nart_dialect_tensor::register,
    crate::register,
];

const TEXT: &str = r#"func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>, %r: tensor<4xf32>) -> tensor<4x16xf32> {
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %s = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%r : tensor<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %t = arith.addf %x, %acc : f32
      linalg.yield %t : f32
    }
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%m : tensor<4x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 1 : index
    linalg.yield %o : f32
  } -> tensor<4x16xf32>
  return %g : tensor<4x16xf32>
}
"#;

#[test]
fn ops_round_trip_in_both_forms() {
    let custom = check_round_trip(DIALECTS, TEXT).unwrap_or_else(|e| panic!("{e}"));
    for want in [
        "%0 = linalg.fill ins(%cst : f32) outs(%arg2 : tensor<4x16xf32>) -> tensor<4x16xf32>",
        "linalg.matmul ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%0 : tensor<4x16xf32>) -> tensor<4x16xf32>",
        "%reduced = linalg.reduce ins(%arg0 : tensor<4x8xf32>) outs(%arg3 : tensor<4xf32>) dimensions = [1] (%arg4: f32, %arg5: f32) {",
        "linalg.generic {indexing_maps = [#map], iterator_types = [\"parallel\", \"parallel\"]} outs(%1 : tensor<4x16xf32>) {",
        "linalg.index 1 : index",
    ] {
        assert!(custom.contains(want), "missing {want}\nin\n{custom}");
    }
    let generic = check_generic_round_trip(DIALECTS, TEXT).unwrap_or_else(|e| panic!("{e}"));
    for want in [
        // The matmul's body is built from its kind, as upstream builds it.
        "\"linalg.matmul\"(%arg0, %arg1, %1) <{indexing_maps = [#map, #map1, #map2], operandSegmentSizes = array<i32: 2, 1>}> ({",
        "\"arith.mulf\"",
        "iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 0, 1>",
    ] {
        assert!(generic.contains(want), "missing {want}\nin\n{generic}");
    }
}

/// The maps and iterator types each named op implies, as `mlir-opt-22
/// --linalg-generalize-named-ops` prints them.
#[test]
fn named_ops_answer_the_structured_interface() {
    let text = r#"func.func @f(%i: tensor<1x3x9x9xf32>, %w: tensor<5x3x3x2xf32>, %o: tensor<1x5x4x7xf32>, %dw: tensor<3x3x3xf32>, %od: tensor<1x3x7x7xf32>, %k: tensor<3x3xf32>, %a: tensor<2x3x4xf32>, %e: tensor<3x4x2xf32>, %big: tensor<2x5x3x4xf32>) {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%i, %w : tensor<1x3x9x9xf32>, tensor<5x3x3x2xf32>) outs(%o : tensor<1x5x4x7xf32>) -> tensor<1x5x4x7xf32>
  %1 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %dw : tensor<1x3x9x9xf32>, tensor<3x3x3xf32>) outs(%od : tensor<1x3x7x7xf32>) -> tensor<1x3x7x7xf32>
  %2 = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %k : tensor<1x3x9x9xf32>, tensor<3x3xf32>) outs(%od : tensor<1x3x7x7xf32>) -> tensor<1x3x7x7xf32>
  %3 = linalg.transpose ins(%a : tensor<2x3x4xf32>) outs(%e : tensor<3x4x2xf32>) permutation = [1, 2, 0]
  %4 = linalg.broadcast ins(%a : tensor<2x3x4xf32>) outs(%big : tensor<2x5x3x4xf32>) dimensions = [1]
  return
}
"#;
    let (mut ctx, module) = parse(DIALECTS, text).unwrap_or_else(|e| panic!("{e}"));
    let ops: Vec<_> = ctx
        .nested_ops(module)
        .into_iter()
        .filter(|&op| structured(&ctx, op).is_some())
        .collect();
    let mut show = |op| {
        let s = structured(&ctx, op).expect("structured");
        let maps = s.indexing_maps(&ctx, op).expect("maps");
        let iters = s.iterator_types(&ctx, op).expect("iterators");
        let maps: Vec<String> = maps
            .into_iter()
            .map(|m| {
                let a = ctx.intern_attr(nart_ir::AttrData::AffineMap(m));
                nart_ir::printer::attr_to_string(&ctx, a)
            })
            .collect();
        (maps, iters)
    };
    let (maps, iters) = show(ops[0]);
    assert_eq!(iters, vec![P, P, P, P, R, R, R]);
    assert_eq!(
        maps[0],
        "affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 + d6 * 2)>"
    );
    let (maps, iters) = show(ops[1]);
    assert_eq!(iters, vec![P, P, P, P, R, R]);
    assert_eq!(
        maps[1],
        "affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4, d5)>"
    );
    let (maps, _) = show(ops[2]);
    assert_eq!(maps[1], "affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>");
    let (maps, iters) = show(ops[3]);
    assert_eq!(iters, vec![P, P, P]);
    assert_eq!(maps[0], "affine_map<(d0, d1, d2) -> (d2, d0, d1)>");
    let (maps, _) = show(ops[4]);
    assert_eq!(maps[0], "affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>");
}

#[test]
fn short_form_bodies_are_read() {
    let text = "func.func @f(%a: tensor<4x2xf32>, %r: tensor<4xf32>) {\n  %0 = linalg.map { arith.addf } ins(%a, %a : tensor<4x2xf32>, tensor<4x2xf32>) outs(%a : tensor<4x2xf32>)\n  %1 = linalg.reduce { arith.maximumf } ins(%a : tensor<4x2xf32>) outs(%r : tensor<4xf32>) dimensions = [1]\n  return\n}\n";
    let out =
        parse_print(DIALECTS, text, &PrintOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(out.contains("(%arg2: f32, %arg3: f32, %arg4: f32) {\n      %0 = arith.addf %arg2, %arg3 : f32\n      linalg.yield %0 : f32"), "{out}");
    assert!(out.contains("(%arg2: f32, %arg3: f32) {\n      %0 = arith.maximumf %arg3, %arg2 : f32\n      linalg.yield %0 : f32"), "{out}");
    let bad = "func.func @f(%a: tensor<4xf32>) {\n  %0 = linalg.map { no.such } ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>)\n  return\n}\n";
    let err = parse_print(DIALECTS, bad, &PrintOptions::default()).expect_err("unknown op");
    assert!(
        err.contains("unknown operation 'no.such' in the short form of the body"),
        "{err}"
    );
}

/// `docs/dialects/linalg.md` is generated; `NART_BLESS=1` rewrites it.
#[test]
fn docs_are_up_to_date() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dialects/linalg.md");
    if let Err(e) =
        nart_ir::docs::check_generated_file(&path, &crate::render_docs(), "nart-dialect-linalg")
    {
        panic!("{e}");
    }
}
