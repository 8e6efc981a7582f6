//! Comparisons and `select` of the `arith` dialect.

use super::*;

// ----- comparisons and select -----

/// `arith.cmpi`.
pub static CMPI: OpDef = OpDef {
    parse: Some(syntax::parse_compare),
    print: Some(syntax::print_compare),
    name: "arith.cmpi",
    summary: "integer comparison operation",
    description: "Compares two integers (elementwise for tensors and vectors) with the \
predicate, stored as an `i64`: `eq` (0), `ne` (1), `slt` (2), `sle` (3), `sgt` (4), `sge` (5), \
`ult` (6), `ule` (7), `ugt` (8), `uge` (9).\n\
The result is `i1`, or a tensor/vector of `i1` of the operands' shape.\n\n\
```mlir\n%x = arith.cmpi slt, %a, %b : i32\n%v = arith.cmpi eq, %c, %d : vector<4xi64>\n```",
    operands: INT_OPERANDS,
    results: &[operand("result", c::BOOL_LIKE)],
    attrs: &[AttrDef {
        default: None,
        name: "predicate",
        constraint: CMPI_PREDICATE,
        optional: false,
        doc: "The comparison.",
    }],
    traits: &[Trait::Pure, Trait::Elementwise],
    verify: Some(verify_compare),
    fold: Some(fold::cmpi),
    canonicalize: &[&canon::CMPI_EXTSI, &canon::CMPI_EXTUI],
    assembly_format: Some("$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs)"),
    ..OpDef::DEFAULT
};

/// `arith.cmpf`.
pub static CMPF: OpDef = OpDef {
    parse: Some(syntax::parse_compare),
    print: Some(syntax::print_compare),
    name: "arith.cmpf",
    summary: "floating-point comparison operation",
    description: "Compares two floats with one of 16 predicates, stored as an `i64`: \
`false` (0), `oeq`, `ogt`, `oge`, `olt`, `ole`, `one`, `ord` (7), `ueq` (8), `ugt`, `uge`, \
`ult`, `ule`, `une`, `uno` (14), `true` (15).\n\
Ordered predicates are false when an operand is NaN; unordered ones are true.\n\n\
```mlir\n%r = arith.cmpf oeq, %a, %b : f32\n```",
    operands: FLOAT_OPERANDS,
    results: &[operand("result", c::BOOL_LIKE)],
    attrs: &[
        AttrDef {
            default: None,
            name: "predicate",
            constraint: CMPF_PREDICATE,
            optional: false,
            doc: "The comparison.",
        },
        FASTMATH,
    ],
    traits: &[Trait::Pure, Trait::Elementwise],
    verify: Some(verify_compare),
    fold: Some(fold::cmpf),
    assembly_format: Some(
        "$predicate `,` $lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($lhs)",
    ),
    ..OpDef::DEFAULT
};

/// `arith.select`.
pub static SELECT: OpDef = OpDef {
    parse: Some(syntax::parse_select),
    print: Some(syntax::print_select),
    name: "arith.select",
    summary: "select operation",
    description: "Returns `true_value` when `condition` is true and `false_value` otherwise.\n\
With a tensor or vector condition the choice is made per element.\n\n\
```mlir\n%x = arith.select %cond, %t, %f : i32\n\
%v = arith.select %vcond, %vt, %vf : vector<4xi1>, vector<4xf32>\n```",
    operands: &[
        operand("condition", c::BOOL_LIKE),
        operand("true_value", c::ANY),
        operand("false_value", c::ANY),
    ],
    results: &[operand("result", c::ANY)],
    traits: &[Trait::Pure, Trait::Elementwise],
    verify: Some(verify_select),
    fold: Some(fold::select),
    canonicalize: &[
        &canon::SELECT_NOT_COND,
        &canon::REDUNDANT_SELECT_TRUE,
        &canon::REDUNDANT_SELECT_FALSE,
        &canon::SELECT_I1_TO_NOT,
    ],
    ..OpDef::DEFAULT
};
