//! The attributes and enums of the `arith` dialect, declared as data (upstream's
//! `ArithBase.td`): the integer overflow flags and fast-math flags as dialect enum attributes
//! (`#arith.overflow<nsw, nuw>`, `#arith.fastmath<nnan,ninf>`), and the comparison predicates
//! and rounding modes as enums stored in integer properties (`predicate = 2 : i64`), which the
//! assembly format spells as keywords (`arith.cmpi slt, ...`).

use nart_ir::enums::{parse_enum_attr, EnumCase, EnumDef};
use nart_ir::extensible::DialectAttrDef;
use nart_ir::registry::AttrConstraint;
use nart_ir::{Attr, Uniquer};

const fn case(keyword: &'static str, value: u64) -> EnumCase {
    EnumCase { keyword, value }
}

/// `IntegerOverflowFlags`: `nsw` (1) and `nuw` (2).
pub static INTEGER_OVERFLOW_FLAGS: EnumDef = EnumDef {
    name: "::mlir::arith::IntegerOverflowFlags",
    summary: "Integer overflow arith flags",
    cases: &[case("none", 0), case("nsw", 1), case("nuw", 2)],
    bit_separator: Some(", "),
};

/// `FastMathFlags`: the LLVM fast-math flags; `fast` is all of them.
pub static FASTMATH_FLAGS: EnumDef = EnumDef {
    name: "::mlir::arith::FastMathFlags",
    summary: "Floating point fast math flags",
    cases: &[
        case("none", 0),
        case("reassoc", 1),
        case("nnan", 2),
        case("ninf", 4),
        case("nsz", 8),
        case("arcp", 16),
        case("contract", 32),
        case("afn", 64),
        case("fast", 127),
    ],
    bit_separator: Some(","),
};

/// `CmpIPredicate`, stored as an `i64`.
pub static CMPI_PREDICATE: EnumDef = EnumDef {
    name: "::mlir::arith::CmpIPredicate",
    summary: "allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9",
    cases: &[
        case("eq", 0),
        case("ne", 1),
        case("slt", 2),
        case("sle", 3),
        case("sgt", 4),
        case("sge", 5),
        case("ult", 6),
        case("ule", 7),
        case("ugt", 8),
        case("uge", 9),
    ],
    bit_separator: None,
};

/// `CmpFPredicate`, stored as an `i64`.
pub static CMPF_PREDICATE: EnumDef = EnumDef {
    name: "::mlir::arith::CmpFPredicate",
    summary: "allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15",
    cases: &[
        case("false", 0),
        case("oeq", 1),
        case("ogt", 2),
        case("oge", 3),
        case("olt", 4),
        case("ole", 5),
        case("one", 6),
        case("ord", 7),
        case("ueq", 8),
        case("ugt", 9),
        case("uge", 10),
        case("ult", 11),
        case("ule", 12),
        case("une", 13),
        case("uno", 14),
        case("true", 15),
    ],
    bit_separator: None,
};

/// `RoundingMode` of `truncf`, stored as an `i32`.
pub static ROUNDING_MODE: EnumDef = EnumDef {
    name: "::mlir::arith::RoundingMode",
    summary: "Floating point rounding mode",
    cases: &[
        case("to_nearest_even", 0),
        case("downward", 1),
        case("upward", 2),
        case("toward_zero", 3),
        case("to_nearest_away", 4),
    ],
    bit_separator: None,
};

/// `#arith.overflow<...>`.
pub static OVERFLOW: DialectAttrDef = DialectAttrDef {
    dialect: "arith",
    mnemonic: "overflow",
    summary: "Integer overflow arith flags",
    syntax: "#arith.overflow<none | nsw, nuw>",
    parse: parse_enum_attr,
    enum_def: Some(&INTEGER_OVERFLOW_FLAGS),
};

/// `#arith.fastmath<...>`.
pub static FASTMATH: DialectAttrDef = DialectAttrDef {
    dialect: "arith",
    mnemonic: "fastmath",
    summary: "Floating point fast math flags",
    syntax: "#arith.fastmath<none | fast | reassoc,nnan,ninf,nsz,arcp,contract,afn>",
    parse: parse_enum_attr,
    enum_def: Some(&FASTMATH_FLAGS),
};

/// Every attribute of the dialect.
pub static ATTRS: [&DialectAttrDef; 2] = [&OVERFLOW, &FASTMATH];

/// Every enum of the dialect.
pub static ENUMS: [&EnumDef; 5] = [
    &INTEGER_OVERFLOW_FLAGS,
    &FASTMATH_FLAGS,
    &CMPI_PREDICATE,
    &CMPF_PREDICATE,
    &ROUNDING_MODE,
];

/// The constraint of `overflowFlags`.
pub const OVERFLOW_ATTR: AttrConstraint =
    AttrConstraint::dialect("Integer overflow arith flags", &OVERFLOW);

/// The constraint of `fastmath`.
pub const FASTMATH_ATTR: AttrConstraint =
    AttrConstraint::dialect("Floating point fast math flags", &FASTMATH);

/// The constraint of `cmpi`'s predicate.
pub const CMPI_PREDICATE_ATTR: AttrConstraint = AttrConstraint::int_enum(
    "allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9",
    &CMPI_PREDICATE,
    64,
);

/// The constraint of `cmpf`'s predicate.
pub const CMPF_PREDICATE_ATTR: AttrConstraint = AttrConstraint::int_enum(
    "allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15",
    &CMPF_PREDICATE,
    64,
);

/// The constraint of `truncf`'s rounding mode.
pub const ROUNDING_ATTR: AttrConstraint = AttrConstraint::int_enum(
    "Floating point rounding mode (32-bit signless integer cases 0 to 4)",
    &ROUNDING_MODE,
    32,
);

/// `#arith.overflow<none>`, the default of `overflowFlags`.
pub fn overflow_none(u: &mut Uniquer) -> Attr {
    OVERFLOW.enum_attr(u, 0)
}

/// `#arith.fastmath<none>`, the default of `fastmath`.
pub fn fastmath_none(u: &mut Uniquer) -> Attr {
    FASTMATH.enum_attr(u, 0)
}

/// Named integer comparison predicates (the values stored in `cmpi`'s `predicate`).
#[allow(missing_docs)]
pub mod cmpi {
    pub const EQ: i128 = 0;
    pub const NE: i128 = 1;
    pub const SLT: i128 = 2;
    pub const SLE: i128 = 3;
    pub const SGT: i128 = 4;
    pub const SGE: i128 = 5;
    pub const ULT: i128 = 6;
    pub const ULE: i128 = 7;
    pub const UGT: i128 = 8;
    pub const UGE: i128 = 9;
}

/// Named float comparison predicates (the values stored in `cmpf`'s `predicate`).
#[allow(missing_docs)]
pub mod cmpf {
    pub const FALSE: i128 = 0;
    pub const OEQ: i128 = 1;
    pub const OGT: i128 = 2;
    pub const OGE: i128 = 3;
    pub const OLT: i128 = 4;
    pub const OLE: i128 = 5;
    pub const ONE: i128 = 6;
    pub const ORD: i128 = 7;
    pub const UEQ: i128 = 8;
    pub const UGT: i128 = 9;
    pub const UGE: i128 = 10;
    pub const ULT: i128 = 11;
    pub const ULE: i128 = 12;
    pub const UNE: i128 = 13;
    pub const UNO: i128 = 14;
    pub const TRUE: i128 = 15;
}
