//! Integer arithmetic ops of the `arith` dialect.

use super::*;

// ----- integer arithmetic -----

/// `arith.addi`.
pub static ADDI: OpDef = OpDef {
    name: "arith.addi",
    summary: "integer addition operation",
    description: "Adds two integers (or tensors/vectors of them) elementwise; the sum wraps \
around modulo 2^n.\n\
With `nsw` or `nuw` the result is poison when signed or unsigned overflow happens.\n\n\
```mlir\n%a = arith.addi %b, %c : i64\n%x = arith.addi %y, %z overflow<nsw, nuw> : i32\n```",
    traits: COMMUTATIVE,
    fold: Some(fold::addi),
    canonicalize: &[
        &canon::ADDI_ADDI_CONSTANT,
        &canon::ADDI_SUBI_CONSTANT_RHS,
        &canon::ADDI_SUBI_CONSTANT_LHS,
        &canon::ADDI_MULI_NEGATIVE_ONE_RHS,
        &canon::ADDI_MULI_NEGATIVE_ONE_LHS,
    ],
    ..INT_BINARY_OVERFLOW
};

/// `arith.subi`.
pub static SUBI: OpDef = OpDef {
    name: "arith.subi",
    summary: "integer subtraction operation",
    description: "Subtracts the second integer from the first, elementwise, wrapping around \
modulo 2^n.\n\n```mlir\n%a = arith.subi %b, %c : i64\n```",
    fold: Some(fold::subi),
    canonicalize: &[
        &canon::SUBI_ADDI_CONSTANT,
        &canon::SUBI_LHS_ADDI_CONSTANT,
        &canon::SUBI_RHS_SUBI_CONSTANT_RHS,
        &canon::SUBI_RHS_SUBI_CONSTANT_LHS,
        &canon::SUBI_LHS_SUBI_CONSTANT_RHS,
        &canon::SUBI_LHS_SUBI_CONSTANT_LHS,
        &canon::SUBI_SUBI_LHS_RHS_LHS,
    ],
    ..INT_BINARY_OVERFLOW
};

/// `arith.muli`.
pub static MULI: OpDef = OpDef {
    name: "arith.muli",
    summary: "integer multiplication operation",
    description: "Multiplies two integers elementwise, keeping the low n bits of the product.\n\n\
```mlir\n%a = arith.muli %b, %c : i64\n```",
    traits: COMMUTATIVE,
    fold: Some(fold::muli),
    canonicalize: &[&canon::MULI_MULI_CONSTANT],
    ..INT_BINARY_OVERFLOW
};

/// `arith.divsi`.
pub static DIVSI: OpDef = OpDef {
    name: "arith.divsi",
    summary: "signed integer division operation",
    description: "Divides signed integers, rounding toward zero.\n\
Division by zero and `MIN / -1` are undefined behaviour and are never folded.\n\n\
```mlir\n%a = arith.divsi %b, %c : i64\n```",
    fold: Some(fold::divsi),
    ..INT_BINARY_EXACT
};

/// `arith.divui`.
pub static DIVUI: OpDef = OpDef {
    name: "arith.divui",
    summary: "unsigned integer division operation",
    description: "Divides integers read as unsigned, rounding toward zero.\n\
Division by zero is undefined behaviour and is never folded.\n\n\
```mlir\n%a = arith.divui %b, %c : i64\n```",
    fold: Some(fold::divui),
    ..INT_BINARY_EXACT
};

/// `arith.ceildivsi`.
pub static CEILDIVSI: OpDef = OpDef {
    name: "arith.ceildivsi",
    summary: "signed ceil integer division operation",
    description: "Divides signed integers, rounding toward positive infinity.\n\n\
```mlir\n%a = arith.ceildivsi %b, %c : i64\n```",
    traits: &[Trait::SameOperandsAndResultType, Trait::Elementwise],
    fold: Some(fold::ceildivsi),
    ..INT_BINARY
};

/// `arith.ceildivui`.
pub static CEILDIVUI: OpDef = OpDef {
    name: "arith.ceildivui",
    summary: "unsigned ceil integer division operation",
    description: "Divides integers read as unsigned, rounding toward positive infinity.\n\n\
```mlir\n%a = arith.ceildivui %b, %c : i64\n```",
    traits: &[Trait::SameOperandsAndResultType, Trait::Elementwise],
    fold: Some(fold::ceildivui),
    ..INT_BINARY
};

/// `arith.floordivsi`.
pub static FLOORDIVSI: OpDef = OpDef {
    name: "arith.floordivsi",
    summary: "signed floor integer division operation",
    description: "Divides signed integers, rounding toward negative infinity.\n\n\
```mlir\n%a = arith.floordivsi %b, %c : i64\n```",
    fold: Some(fold::floordivsi),
    ..INT_BINARY
};

/// `arith.remsi`.
pub static REMSI: OpDef = OpDef {
    name: "arith.remsi",
    summary: "signed integer division remainder operation",
    description: "The remainder of the signed division rounding toward zero; it has the sign \
of the dividend.\n\n```mlir\n%a = arith.remsi %b, %c : i64\n```",
    fold: Some(fold::remsi),
    ..INT_BINARY
};

/// `arith.remui`.
pub static REMUI: OpDef = OpDef {
    name: "arith.remui",
    summary: "unsigned integer division remainder operation",
    description: "The remainder of the unsigned division.\n\n\
```mlir\n%a = arith.remui %b, %c : i64\n```",
    fold: Some(fold::remui),
    ..INT_BINARY
};

/// `arith.andi`.
pub static ANDI: OpDef = OpDef {
    name: "arith.andi",
    summary: "integer binary and",
    description: "Bitwise and.\n\n```mlir\n%a = arith.andi %b, %c : i64\n```",
    traits: COMMUTATIVE_IDEMPOTENT,
    fold: Some(fold::andi),
    canonicalize: &[&canon::ANDI_OF_EXTUI, &canon::ANDI_OF_EXTSI],
    ..INT_BINARY
};

/// `arith.ori`.
pub static ORI: OpDef = OpDef {
    name: "arith.ori",
    summary: "integer binary or",
    description: "Bitwise or.\n\n```mlir\n%a = arith.ori %b, %c : i64\n```",
    traits: COMMUTATIVE_IDEMPOTENT,
    fold: Some(fold::ori),
    canonicalize: &[&canon::ORI_OF_EXTUI, &canon::ORI_OF_EXTSI],
    ..INT_BINARY
};

/// `arith.xori`.
pub static XORI: OpDef = OpDef {
    name: "arith.xori",
    summary: "integer binary xor",
    description: "Bitwise exclusive or.\n\n```mlir\n%a = arith.xori %b, %c : i64\n```",
    traits: COMMUTATIVE,
    fold: Some(fold::xori),
    canonicalize: &[
        &canon::XORI_NOT_CMPI,
        &canon::XORI_OF_EXTUI,
        &canon::XORI_OF_EXTSI,
    ],
    ..INT_BINARY
};

/// `arith.shli`.
pub static SHLI: OpDef = OpDef {
    name: "arith.shli",
    summary: "integer left-shift",
    description: "Shifts the first operand left by the second, filling with zeros.\n\
A shift by the bit width or more gives poison and is never folded.\n\n\
```mlir\n%a = arith.shli %b, %c : i64\n```",
    fold: Some(fold::shli),
    ..INT_BINARY_OVERFLOW
};

/// `arith.shrsi`.
pub static SHRSI: OpDef = OpDef {
    name: "arith.shrsi",
    summary: "signed integer right-shift",
    description: "Shifts right, filling with copies of the sign bit.\n\n\
```mlir\n%a = arith.shrsi %b, %c : i64\n```",
    traits: PURE_ELEMENTWISE,
    fold: Some(fold::shrsi),
    ..INT_BINARY_EXACT
};

/// `arith.shrui`.
pub static SHRUI: OpDef = OpDef {
    name: "arith.shrui",
    summary: "unsigned integer right-shift",
    description: "Shifts right, filling with zeros.\n\n```mlir\n%a = arith.shrui %b, %c : i64\n```",
    traits: PURE_ELEMENTWISE,
    fold: Some(fold::shrui),
    ..INT_BINARY_EXACT
};

macro_rules! minmax_int {
    ($id:ident, $name:literal, $summary:literal, $fold:path $(,)?) => {
        #[doc = concat!("`", $name, "`.")]
        pub static $id: OpDef = OpDef {
            name: $name,
            summary: $summary,
            description: concat!(
                "The ",
                $summary,
                " of two integers, elementwise.\n\n```mlir\n%a = ",
                $name,
                " %b, %c : i64\n```"
            ),
            traits: COMMUTATIVE,
            fold: Some($fold),
            ..INT_BINARY
        };
    };
}

minmax_int!(MAXSI, "arith.maxsi", "signed integer maximum", fold::maxsi,);
minmax_int!(
    MAXUI,
    "arith.maxui",
    "unsigned integer maximum",
    fold::maxui,
);
minmax_int!(MINSI, "arith.minsi", "signed integer minimum", fold::minsi,);
minmax_int!(
    MINUI,
    "arith.minui",
    "unsigned integer minimum",
    fold::minui,
);

/// `arith.addui_extended`.
pub static ADDUI_EXTENDED: OpDef = OpDef {
    parse: Some(syntax::parse_extended),
    print: Some(syntax::print_extended),
    name: "arith.addui_extended",
    summary: "extended unsigned integer addition operation returning sum and overflow bit",
    description: "Adds two integers and returns the wrapped sum and an `i1` that is true when \
the unsigned addition overflowed.\n\n\
```mlir\n%sum, %overflow = arith.addui_extended %a, %b : i64, i1\n```",
    operands: INT_OPERANDS,
    results: &[
        operand("sum", c::SIGNLESS_INTEGER_LIKE),
        operand("overflow", c::BOOL_LIKE),
    ],
    traits: &[Trait::Pure, Trait::Commutative, Trait::Elementwise],
    verify: Some(verify_addui_extended),
    fold: Some(fold::addui_extended),
    canonicalize: &[&canon::ADDUI_EXTENDED_TO_ADDI],
    assembly_format: Some("$lhs `,` $rhs attr-dict `:` type($sum) `,` type($overflow)"),
    ..OpDef::DEFAULT
};

/// `arith.mulsi_extended`.
pub static MULSI_EXTENDED: OpDef = OpDef {
    parse: Some(syntax::parse_extended),
    print: Some(syntax::print_extended),
    name: "arith.mulsi_extended",
    summary: "extended signed integer multiplication operation",
    description: "Multiplies two signed integers and returns the low and high halves of the \
double-width product.\n\n\
```mlir\n%low, %high = arith.mulsi_extended %a, %b : i32\n```",
    operands: INT_OPERANDS,
    results: &[
        operand("low", c::SIGNLESS_INTEGER_LIKE),
        operand("high", c::SIGNLESS_INTEGER_LIKE),
    ],
    traits: &[
        Trait::Pure,
        Trait::Commutative,
        Trait::SameOperandsAndResultType,
        Trait::Elementwise,
    ],
    fold: Some(fold::mulsi_extended),
    canonicalize: &[&canon::MULSI_EXTENDED_TO_MULI],
    assembly_format: Some("$lhs `,` $rhs attr-dict `:` type($lhs)"),
    ..OpDef::DEFAULT
};

/// `arith.mului_extended`.
pub static MULUI_EXTENDED: OpDef = OpDef {
    name: "arith.mului_extended",
    summary: "extended unsigned integer multiplication operation",
    description: "Multiplies two unsigned integers and returns the low and high halves of the \
double-width product.\n\n\
```mlir\n%low, %high = arith.mului_extended %a, %b : i32\n```",
    fold: Some(fold::mului_extended),
    canonicalize: &[&canon::MULUI_EXTENDED_TO_MULI],
    ..MULSI_EXTENDED
};
