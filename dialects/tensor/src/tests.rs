//! The tensor ops round-trip in both forms, and the reference page is up to date.

use nart_test_dialect::roundtrip::{check_generic_round_trip, check_round_trip, parse};

const DIALECTS: &[fn(&mut nart_ir::Context)] = &[
    nart_dialect_func::register,
    nart_dialect_arith::register,
    crate::register,
];

const TEXT: &str = r#"func.func @f(%t: tensor<8x8xf32>, %i: index, %z: f32) -> tensor<2x8x8xf32> {
  %e = tensor.empty(%i) : tensor<?x8xf32>
  %c = tensor.cast %e : tensor<?x8xf32> to tensor<8x8xf32>
  %n = tensor.dim %e, %i : tensor<?x8xf32>
  %x = tensor.extract %t[%i, %n] : tensor<8x8xf32>
  %s = tensor.extract_slice %t[%i, 1] [4, 4] [1, 2] : tensor<8x8xf32> to tensor<4x4xf32>
  %w = tensor.insert_slice %s into %c[0, %i] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>
  %p = tensor.pad %s nofold low[1, %i] high[3, 0] {
  ^bb0(%a: index, %b: index):
    tensor.yield %z : f32
  } : tensor<4x4xf32> to tensor<8x?xf32>
  %f = tensor.collapse_shape %w [[0, 1]] : tensor<8x8xf32> into tensor<64xf32>
  %g = tensor.expand_shape %f [[0, 1, 2]] output_shape [1, 8, 8] : tensor<64xf32> into tensor<1x8x8xf32>
  %h = tensor.concat dim(0) %g, %g : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<2x8x8xf32>
  return %h : tensor<2x8x8xf32>
}
"#;

#[test]
fn ops_round_trip_in_both_forms() {
    let custom = check_round_trip(DIALECTS, TEXT).unwrap_or_else(|e| panic!("{e}"));
    for want in [
        "tensor.extract_slice %arg0[%arg1, 1] [4, 4] [1, 2] : tensor<8x8xf32> to tensor<4x4xf32>",
        "tensor.insert_slice %4 into %1[0, %arg1] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>",
        "tensor.pad %4 nofold low[1, %arg1] high[3, 0] {",
        "tensor.expand_shape %7 [[0, 1, 2]] output_shape [1, 8, 8] : tensor<64xf32> into tensor<1x8x8xf32>",
        "tensor.concat dim(0) %8, %8 : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<2x8x8xf32>",
    ] {
        assert!(custom.contains(want), "missing {want}\nin\n{custom}");
    }
    let generic = check_generic_round_trip(DIALECTS, TEXT).unwrap_or_else(|e| panic!("{e}"));
    for want in [
        "\"tensor.extract_slice\"(%arg0, %arg1) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 1>, static_sizes = array<i64: 4, 4>, static_strides = array<i64: 1, 2>}>",
        "\"tensor.pad\"(%4, %arg1) <{nofold, operandSegmentSizes = array<i32: 1, 1, 0>, static_high = array<i64: 3, 0>, static_low = array<i64: 1, -9223372036854775808>}>",
        "\"tensor.concat\"(%8, %8) <{dim = 0 : i64}>",
    ] {
        assert!(generic.contains(want), "missing {want}\nin\n{generic}");
    }
}

#[test]
fn malformed_lists_are_parse_errors() {
    for (text, want) in [
        (
            "func.func @f(%t: tensor<8xf32>) {\n  %s = tensor.extract_slice %t[0 [4] [1] : tensor<8xf32> to tensor<4xf32>\n  return\n}\n",
            "expected ']'",
        ),
        (
            "func.func @f(%t: tensor<8xf32>) {\n  %s = tensor.concat dim(x) %t : (tensor<8xf32>) -> tensor<8xf32>\n  return\n}\n",
            "expected integer value",
        ),
    ] {
        let err = parse(DIALECTS, text).err().unwrap_or_else(|| panic!("{text} parsed"));
        assert!(err.contains(want), "want '{want}' in {err}");
    }
}

/// `docs/dialects/tensor.md` is generated; `NART_BLESS=1` rewrites it.
#[test]
fn docs_are_up_to_date() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dialects/tensor.md");
    if let Err(e) =
        nart_ir::docs::check_generated_file(&path, &crate::render_docs(), "nart-dialect-tensor")
    {
        panic!("{e}");
    }
}
