//! Casts of the `arith` dialect.

use super::*;

// ----- casts -----

/// `arith.extsi`.
pub static EXTSI: OpDef = OpDef {
    name: "arith.extsi",
    summary: "integer sign extension operation",
    description: "Widens an integer, copying the sign bit into the new high bits.\n\n\
```mlir\n%2 = arith.extsi %1 : i3 to i6\n```",
    operands: INT_IN,
    results: INT_OUT,
    verify: Some(verify_wider_int),
    fold: Some(fold::extsi),
    canonicalize: &[&canon::EXTSI_OF_EXTSI, &canon::EXTSI_OF_EXTUI],
    ..CAST
};

/// `arith.extui`.
pub static EXTUI: OpDef = OpDef {
    name: "arith.extui",
    summary: "integer zero extension operation",
    description: "Widens an integer, filling the new high bits with zeros.\n\n\
```mlir\n%2 = arith.extui %1 : i3 to i6\n```",
    operands: INT_IN,
    results: INT_OUT,
    verify: Some(verify_wider_int),
    fold: Some(fold::extui),
    canonicalize: &[&canon::EXTUI_OF_EXTUI],
    ..CAST
};

/// `arith.trunci`.
pub static TRUNCI: OpDef = OpDef {
    name: "arith.trunci",
    summary: "integer truncation operation",
    description: "Narrows an integer, dropping its high bits.\n\n\
```mlir\n%2 = arith.trunci %1 : i5 to i3\n%3 = arith.trunci %a overflow<nsw> : i32 to i16\n```",
    operands: INT_IN,
    results: INT_OUT,
    attrs: &[OVERFLOW_FLAGS],
    verify: Some(verify_narrower_int),
    fold: Some(fold::trunci),
    canonicalize: &[&canon::TRUNCI_OF_EXT, &canon::TRUNCI_SHRSI_TO_TRUNCI_SHRUI],
    assembly_format: Some(
        "$in (`overflow` `` $overflowFlags^)? attr-dict `:` type($in) `to` type($out)",
    ),
    ..CAST
};

/// `arith.extf`.
pub static EXTF: OpDef = OpDef {
    name: "arith.extf",
    summary: "cast from floating-point to wider floating-point",
    description: "Widens a float exactly.\n\n```mlir\n%1 = arith.extf %0 : f32 to f64\n```",
    operands: FLOAT_IN,
    results: FLOAT_OUT,
    attrs: &[OPTIONAL_FASTMATH],
    verify: Some(verify_wider_float),
    fold: Some(fold::extf),
    assembly_format: Some(
        "$in (`fastmath` `` $fastmath^)? attr-dict `:` type($in) `to` type($out)",
    ),
    ..CAST
};

/// `arith.truncf`.
pub static TRUNCF: OpDef = OpDef {
    name: "arith.truncf",
    summary: "cast from floating-point to narrower floating-point",
    description: "Narrows a float, rounding with `roundingmode` (to nearest even when absent).\n\n\
```mlir\n%1 = arith.truncf %0 : f64 to f32\n```",
    operands: FLOAT_IN,
    results: FLOAT_OUT,
    attrs: &[
        AttrDef {
            default: None,
            name: "roundingmode",
            constraint: ROUNDING_ATTR,
            optional: true,
            doc: "The rounding mode.",
        },
        OPTIONAL_FASTMATH,
    ],
    verify: Some(verify_narrower_float),
    fold: Some(fold::truncf),
    canonicalize: &[&canon::TRUNCF_SITOFP, &canon::TRUNCF_UITOFP],
    assembly_format: Some(
        "$in ($roundingmode^)? (`fastmath` `` $fastmath^)? attr-dict `:` type($in) `to` type($out)",
    ),
    ..CAST
};

/// `arith.sitofp`.
pub static SITOFP: OpDef = OpDef {
    name: "arith.sitofp",
    summary: "cast from integer type to floating-point",
    description: "Converts a signed integer to the nearest float.\n\n\
```mlir\n%f = arith.sitofp %i : i32 to f32\n```",
    operands: INT_IN,
    results: FLOAT_OUT,
    fold: Some(fold::sitofp),
    ..CAST
};

/// `arith.uitofp`.
pub static UITOFP: OpDef = OpDef {
    name: "arith.uitofp",
    summary: "cast from unsigned integer type to floating-point",
    description: "Converts an unsigned integer to the nearest float.\n\n\
```mlir\n%f = arith.uitofp %i : i32 to f32\n```",
    operands: INT_IN,
    results: FLOAT_OUT,
    fold: Some(fold::uitofp),
    ..CAST
};

/// `arith.fptosi`.
pub static FPTOSI: OpDef = OpDef {
    name: "arith.fptosi",
    summary: "cast from floating-point type to integer type",
    description: "Converts a float to a signed integer, rounding toward zero; out-of-range \
values give poison and are never folded.\n\n```mlir\n%i = arith.fptosi %f : f32 to i32\n```",
    operands: FLOAT_IN,
    results: INT_OUT,
    fold: Some(fold::fptosi),
    ..CAST
};

/// `arith.fptoui`.
pub static FPTOUI: OpDef = OpDef {
    name: "arith.fptoui",
    summary: "cast from floating-point type to integer type",
    description: "Converts a float to an unsigned integer, rounding toward zero; out-of-range \
values give poison and are never folded.\n\n```mlir\n%i = arith.fptoui %f : f32 to i32\n```",
    operands: FLOAT_IN,
    results: INT_OUT,
    fold: Some(fold::fptoui),
    ..CAST
};

/// `arith.bitcast`.
pub static BITCAST: OpDef = OpDef {
    name: "arith.bitcast",
    summary: "bitcast between values of equal bit width",
    description: "Reinterprets the bits of an integer or float as another integer or float type \
of the same width.\n\n```mlir\n%i = arith.bitcast %f : f32 to i32\n```",
    operands: &[operand("in", BITCAST_TYPE)],
    results: &[operand("out", BITCAST_TYPE)],
    verify: Some(verify_bitcast),
    fold: Some(fold::bitcast),
    canonicalize: &[&canon::BITCAST_OF_BITCAST],
    ..CAST
};

/// `arith.index_cast`.
pub static INDEX_CAST: OpDef = OpDef {
    name: "arith.index_cast",
    summary: "cast between index and integer types",
    description: "Converts between `index` and an integer type, sign-extending when widening and \
truncating when narrowing.\n\n```mlir\n%i = arith.index_cast %x : i32 to index\n```",
    operands: &[operand("in", INDEX_CAST_TYPE)],
    results: &[operand("out", INDEX_CAST_TYPE)],
    verify: Some(verify_index_cast),
    fold: Some(fold::index_cast),
    canonicalize: &[
        &canon::INDEX_CAST_OF_INDEX_CAST,
        &canon::INDEX_CAST_OF_EXTSI,
    ],
    ..CAST
};

/// `arith.index_castui`.
pub static INDEX_CASTUI: OpDef = OpDef {
    name: "arith.index_castui",
    summary: "unsigned cast between index and integer types",
    description: "Converts between `index` and an integer type, zero-extending when widening and \
truncating when narrowing.\n\n```mlir\n%i = arith.index_castui %x : i32 to index\n```",
    operands: &[operand("in", INDEX_CAST_TYPE)],
    results: &[operand("out", INDEX_CAST_TYPE)],
    verify: Some(verify_index_cast),
    fold: Some(fold::index_castui),
    canonicalize: &[
        &canon::INDEX_CASTUI_OF_INDEX_CASTUI,
        &canon::INDEX_CASTUI_OF_EXTUI,
    ],
    ..CAST
};
