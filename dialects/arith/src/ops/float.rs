//! Floating-point arithmetic ops of the `arith` dialect.

use super::*;

// ----- float arithmetic -----

macro_rules! float_binary {
    ($id:ident, $name:literal, $summary:literal, $desc:literal, $traits:expr, $fold:path, [$($canon:path),*]) => {
        #[doc = concat!("`", $name, "`.")]
        pub static $id: OpDef = OpDef {
            name: $name,
            summary: $summary,
            description: concat!(
                $desc,
                "\n\n```mlir\n%a = ",
                $name,
                " %b, %c : f64\n%x = ",
                $name,
                " %y, %z fastmath<fast> : vector<4xf32>\n```"
            ),
            traits: $traits,
            fold: Some($fold),
            canonicalize: &[$(&$canon),*],
            ..FLOAT_BINARY
        };
    };
}

float_binary!(
    ADDF,
    "arith.addf",
    "floating point addition operation",
    "Adds two floats elementwise, rounding to the nearest representable value.",
    COMMUTATIVE,
    fold::addf,
    []
);
float_binary!(
    SUBF,
    "arith.subf",
    "floating point subtraction operation",
    "Subtracts the second float from the first, elementwise.",
    PURE_ELEMENTWISE,
    fold::subf,
    []
);
float_binary!(
    MULF,
    "arith.mulf",
    "floating point multiplication operation",
    "Multiplies two floats elementwise.",
    COMMUTATIVE,
    fold::mulf,
    [canon::MULF_OF_NEGF]
);
float_binary!(
    DIVF,
    "arith.divf",
    "floating point division operation",
    "Divides the first float by the second, elementwise.",
    PURE_ELEMENTWISE,
    fold::divf,
    [canon::DIVF_OF_NEGF]
);
float_binary!(
    REMF,
    "arith.remf",
    "floating point division remainder operation",
    "The remainder of the division rounded toward zero (C's `fmod`).",
    PURE_ELEMENTWISE,
    fold::remf,
    []
);
float_binary!(
    MAXIMUMF,
    "arith.maximumf",
    "floating-point maximum operation",
    "The larger of two floats; a NaN operand gives NaN, and `+0.0` is larger than `-0.0`.",
    COMMUTATIVE,
    fold::maximumf,
    []
);
float_binary!(
    MINIMUMF,
    "arith.minimumf",
    "floating-point minimum operation",
    "The smaller of two floats; a NaN operand gives NaN, and `-0.0` is smaller than `+0.0`.",
    COMMUTATIVE,
    fold::minimumf,
    []
);
float_binary!(
    MAXNUMF,
    "arith.maxnumf",
    "floating-point maximum operation",
    "The larger of two floats; when one operand is NaN, the other is returned.",
    COMMUTATIVE,
    fold::maxnumf,
    []
);
float_binary!(
    MINNUMF,
    "arith.minnumf",
    "floating-point minimum operation",
    "The smaller of two floats; when one operand is NaN, the other is returned.",
    COMMUTATIVE,
    fold::minnumf,
    []
);

/// `arith.negf`.
pub static NEGF: OpDef = OpDef {
    parse: Some(syntax::parse_same_type),
    print: Some(syntax::print_same_type),
    name: "arith.negf",
    summary: "floating point negation",
    description: "Flips the sign bit of a float, elementwise.\n\n\
```mlir\n%a = arith.negf %b : f64\n```",
    operands: &[operand("operand", c::FLOAT_LIKE)],
    results: FLOAT_RESULT,
    attrs: &[FASTMATH],
    traits: PURE_ELEMENTWISE,
    fold: Some(fold::negf),
    assembly_format: Some("$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)"),
    ..OpDef::DEFAULT
};
