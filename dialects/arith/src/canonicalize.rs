//! Canonicalization patterns of the `arith` dialect, each under a one-line algebra comment.
//!
//! Identities that need no new op (`x + 0 → x`, `x - x → 0`, `select(c, a, a) → a`, ...) are
//! folders (see [`crate::fold`]); the patterns here create or re-wire ops.
//!
//! Every pattern is a declarative [`Rule`] (see [`nart_ir::rule`] for the syntax), the same
//! rules as upstream's `ArithCanonicalization.td`, with the same overflow and fast-math flags:
//! reassociating constants keeps only the flags both ops carry ([`merge_overflow`]), and the
//! rules upstream builds with no flags build none. The Rust left here is the [`NATIVES`] the
//! rules call (constant arithmetic on attributes, predicates, flags and widths).
//!
//! `TruncIExtToExt` is one pattern made of four rules ([`FirstOf`]): `trunci(ext(x))` becomes
//! `ext(x)` when `x` is narrower than the result (upstream's `TruncIExtSIToExtSI` and
//! `TruncIExtUIToExtUI`) and `trunci(x)` when it is wider (upstream does that in the folder).
//!
//! One upstream pattern is not here: `MulSIExtendedRHSOne` builds a comparison whose `i1` type
//! no capture has, and rules take the types of new ops from captures.
//!

use nart_ir::rule::{Arg, FirstOf, Native, Rule};
use nart_ir::{Attr, AttrData, Context, Type, TypeData, Uniquer, Value};

use crate::attrs::{cmpi, OVERFLOW};
use crate::consts::{int_of, int_width, make, sext, Scalar};

/// The constant attribute behind `v`, if a constant-like op defines it.
pub fn constant_attr(ctx: &Context, v: Value) -> Option<Attr> {
    nart_ir::interfaces::constant_of(ctx, v)
}

// ----- natives -----

/// A scalar integer attribute (upstream's `APIntAttr`, which a splat is not): its value,
/// sign-extended from its width, and its type.
fn scalar_int(u: &Uniquer, a: Arg) -> Option<(i128, Type)> {
    match u.attr_data(a.attr()?) {
        AttrData::Integer { value, ty } => Some((sext(*value, int_width(u, *ty)?), *ty)),
        _ => None,
    }
}

fn int_op(u: &mut Uniquer, args: &[Arg], f: fn(i128, i128) -> i128) -> Option<Attr> {
    let ((a, ty), (b, _)) = (scalar_int(u, args[0])?, scalar_int(u, args[1])?);
    make(u, ty, Scalar::Int(f(a, b)))
}

/// `add_ints(a, b)`: `a + b` of two scalar integer attributes, wrapped to their width.
fn add_ints(u: &mut Uniquer, args: &[Arg]) -> Option<Attr> {
    int_op(u, args, i128::wrapping_add)
}

/// `sub_ints(a, b)`: `a - b`, wrapped.
fn sub_ints(u: &mut Uniquer, args: &[Arg]) -> Option<Attr> {
    int_op(u, args, i128::wrapping_sub)
}

/// `mul_ints(a, b)`: `a * b`, wrapped.
fn mul_ints(u: &mut Uniquer, args: &[Arg]) -> Option<Attr> {
    int_op(u, args, i128::wrapping_mul)
}

/// `merge_overflow(f1, f2)`: the overflow flags both ops carry (the most conservative
/// combination, upstream's `mergeOverflowFlags`).
pub fn merge_overflow(u: &mut Uniquer, args: &[Arg]) -> Option<Attr> {
    let a = u.enum_value(args[0].attr()?, &OVERFLOW)?;
    let b = u.enum_value(args[1].attr()?, &OVERFLOW)?;
    Some(OVERFLOW.enum_attr(u, a & b))
}

/// `invert_predicate(p)`: the `cmpi` predicate that holds exactly when `p` does not.
fn invert_predicate(u: &mut Uniquer, args: &[Arg]) -> Option<Attr> {
    let a = args[0].attr()?;
    let inverse = match u.attr_int(a)? {
        cmpi::EQ => cmpi::NE,
        cmpi::NE => cmpi::EQ,
        cmpi::SLT => cmpi::SGE,
        cmpi::SGE => cmpi::SLT,
        cmpi::SLE => cmpi::SGT,
        cmpi::SGT => cmpi::SLE,
        cmpi::ULT => cmpi::UGE,
        cmpi::UGE => cmpi::ULT,
        cmpi::ULE => cmpi::UGT,
        cmpi::UGT => cmpi::ULE,
        _ => return None,
    };
    let ty = u.typed_attr_type(a)?;
    Some(u.int_attr(ty, inverse))
}

/// `zero_of(v)`: zero of `v`'s type (a splat for a tensor or vector).
fn zero_of(u: &mut Uniquer, args: &[Arg]) -> Option<Attr> {
    let ty = args[0].ty(u)?;
    make(u, ty, Scalar::Int(0))
}

/// `true_attr()`: `true`.
fn true_attr(u: &mut Uniquer, _: &[Arg]) -> Option<Attr> {
    Some(u.bool_attr(true))
}

/// `scalar(c)`: `c` is a scalar integer attribute, not a splat.
fn scalar(ctx: &Context, args: &[Arg]) -> bool {
    scalar_int(ctx, args[0]).is_some()
}

/// `all_ones(c)`: every bit of the integer (or splat) `c` is set (`-1`, `true`).
fn all_ones(ctx: &Context, args: &[Arg]) -> bool {
    args[0].attr().and_then(|a| int_of(ctx, a)) == Some(-1)
}

/// `is_true(c)`: `c` is the scalar `i1` `true`.
fn is_true(ctx: &Context, args: &[Arg]) -> bool {
    args[0].attr().and_then(|a| ctx.attr_bool(a)) == Some(true)
}

/// `is_false(c)`: `c` is the scalar `i1` `false`.
fn is_false(ctx: &Context, args: &[Arg]) -> bool {
    args[0].attr().and_then(|a| ctx.attr_bool(a)) == Some(false)
}

/// `eq_or_ne(p)`: the `cmpi` predicate `p` is `eq` or `ne`.
fn eq_or_ne(ctx: &Context, args: &[Arg]) -> bool {
    let p = args[0].attr().and_then(|a| ctx.attr_int(a));
    matches!(p, Some(cmpi::EQ | cmpi::NE))
}

/// The bit width of an integer or float type or of its elements; 0 for anything else
/// (`index` included), as upstream's `getScalarOrElementWidth`.
fn scalar_width(u: &Uniquer, ty: Type) -> u32 {
    match u.type_data(u.element_type(ty)) {
        TypeData::Integer { width, .. } => *width,
        TypeData::Float(k) => k.width(),
        _ => 0,
    }
}

/// `wider(a, b)`: `a`'s elements are wider than `b`'s, which have a width.
fn wider(ctx: &Context, args: &[Arg]) -> bool {
    let (Some(a), Some(b)) = (args[0].ty(ctx), args[1].ty(ctx)) else {
        return false;
    };
    let (wa, wb) = (scalar_width(ctx, a), scalar_width(ctx, b));
    wa > wb && wb > 0
}

/// `shift_drops_exactly(x, tr, c)`: truncating `x` to `tr`'s type drops exactly the `c` bits a
/// right shift by `c` brings in.
fn shift_drops_exactly(ctx: &Context, args: &[Arg]) -> bool {
    let (Some(x), Some(tr), Some(c)) = (
        args[0].ty(ctx),
        args[1].ty(ctx),
        args[2].attr().and_then(|a| int_of(ctx, a)),
    ) else {
        return false;
    };
    let dropped = i128::from(scalar_width(ctx, x)) - i128::from(scalar_width(ctx, tr));
    dropped == c
}

/// `default_rounding(r)`: the op whose result is `r` has no `roundingmode`.
fn default_rounding(ctx: &Context, args: &[Arg]) -> bool {
    let op = args[0].value().and_then(|v| ctx.defining_op(v));
    op.is_some_and(|op| ctx.attr(op, "roundingmode").is_none())
}

/// The native functions arith's rules call, besides the builtins.
pub static NATIVES: [Native; 15] = [
    Native::attr("add_ints", 2, add_ints),
    Native::attr("sub_ints", 2, sub_ints),
    Native::attr("mul_ints", 2, mul_ints),
    Native::attr("merge_overflow", 2, merge_overflow),
    Native::attr("invert_predicate", 1, invert_predicate),
    Native::attr("zero_of", 1, zero_of),
    Native::attr("true_attr", 0, true_attr),
    Native::constraint("scalar", 1, scalar),
    Native::constraint("all_ones", 1, all_ones),
    Native::constraint("is_true", 1, is_true),
    Native::constraint("is_false", 1, is_false),
    Native::constraint("eq_or_ne", 1, eq_or_ne),
    Native::constraint("wider", 2, wider),
    Native::constraint("shift_drops_exactly", 3, shift_drops_exactly),
    Native::constraint("default_rounding", 1, default_rounding),
];

/// A rule of this dialect: it may call the [`NATIVES`].
macro_rules! arith_rule {
    ($name:literal, $text:literal) => {
        nart_ir::rule!($name, $text, natives = &NATIVES)
    };
}

// ----- addi -----

/// `addi(addi(x, c0), c1) → addi(x, c0 + c1)`.
pub static ADDI_ADDI_CONSTANT: Rule = arith_rule!(
    "AddIAddConstant",
    "(arith.addi (arith.addi $x (constant $c0) {overflowFlags = $f0}) (constant $c1) {overflowFlags = $f1})
     => (arith.addi $x (arith.constant {value = add_ints($c0, $c1)}) {overflowFlags = merge_overflow($f0, $f1)})"
);

/// `addi(subi(x, c0), c1) → addi(x, c1 - c0)`.
pub static ADDI_SUBI_CONSTANT_RHS: Rule = arith_rule!(
    "AddISubConstantRHS",
    "(arith.addi (arith.subi $x (constant $c0) {overflowFlags = $f0}) (constant $c1) {overflowFlags = $f1})
     => (arith.addi $x (arith.constant {value = sub_ints($c1, $c0)}) {overflowFlags = merge_overflow($f0, $f1)})"
);

/// `addi(subi(c0, x), c1) → subi(c0 + c1, x)`.
pub static ADDI_SUBI_CONSTANT_LHS: Rule = arith_rule!(
    "AddISubConstantLHS",
    "(arith.addi (arith.subi (constant $c0) $x {overflowFlags = $f0}) (constant $c1) {overflowFlags = $f1})
     => (arith.subi (arith.constant {value = add_ints($c0, $c1)}) $x {overflowFlags = merge_overflow($f0, $f1)})"
);

/// `addi(x, muli(y, -1)) → subi(x, y)`.
pub static ADDI_MULI_NEGATIVE_ONE_RHS: Rule = arith_rule!(
    "AddIMulNegativeOneRhs",
    "(arith.addi $x (arith.muli $y (constant $c))) => (arith.subi $x $y) if all_ones($c)"
);

/// `addi(muli(x, -1), y) → subi(y, x)`.
pub static ADDI_MULI_NEGATIVE_ONE_LHS: Rule = arith_rule!(
    "AddIMulNegativeOneLhs",
    "(arith.addi (arith.muli $x (constant $c)) $y) => (arith.subi $y $x) if all_ones($c)"
);

// ----- subi -----

/// `subi(addi(x, c0), c1) → addi(x, c0 - c1)`.
pub static SUBI_ADDI_CONSTANT: Rule = arith_rule!(
    "SubIRHSAddConstant",
    "(arith.subi (arith.addi $x (constant $c0)) (constant $c1))
     => (arith.addi $x (arith.constant {value = sub_ints($c0, $c1)}))"
);

/// `subi(c1, addi(x, c0)) → subi(c1 - c0, x)`.
pub static SUBI_LHS_ADDI_CONSTANT: Rule = arith_rule!(
    "SubILHSAddConstant",
    "(arith.subi (constant $c1) (arith.addi $x (constant $c0) {overflowFlags = $f0}) {overflowFlags = $f1})
     => (arith.subi (arith.constant {value = sub_ints($c1, $c0)}) $x {overflowFlags = merge_overflow($f0, $f1)})"
);

/// `subi(subi(x, c0), c1) → subi(x, c0 + c1)`.
pub static SUBI_RHS_SUBI_CONSTANT_RHS: Rule = arith_rule!(
    "SubIRHSSubConstantRHS",
    "(arith.subi (arith.subi $x (constant $c0) {overflowFlags = $f0}) (constant $c1) {overflowFlags = $f1})
     => (arith.subi $x (arith.constant {value = add_ints($c0, $c1)}) {overflowFlags = merge_overflow($f0, $f1)})"
);

/// `subi(subi(c0, x), c1) → subi(c0 - c1, x)`.
pub static SUBI_RHS_SUBI_CONSTANT_LHS: Rule = arith_rule!(
    "SubIRHSSubConstantLHS",
    "(arith.subi (arith.subi (constant $c0) $x {overflowFlags = $f0}) (constant $c1) {overflowFlags = $f1})
     => (arith.subi (arith.constant {value = sub_ints($c0, $c1)}) $x {overflowFlags = merge_overflow($f0, $f1)})"
);

/// `subi(c1, subi(x, c0)) → subi(c0 + c1, x)`.
pub static SUBI_LHS_SUBI_CONSTANT_RHS: Rule = arith_rule!(
    "SubILHSSubConstantRHS",
    "(arith.subi (constant $c1) (arith.subi $x (constant $c0) {overflowFlags = $f0}) {overflowFlags = $f1})
     => (arith.subi (arith.constant {value = add_ints($c0, $c1)}) $x {overflowFlags = merge_overflow($f0, $f1)})"
);

/// `subi(c1, subi(c0, x)) → addi(x, c1 - c0)`.
pub static SUBI_LHS_SUBI_CONSTANT_LHS: Rule = arith_rule!(
    "SubILHSSubConstantLHS",
    "(arith.subi (constant $c1) (arith.subi (constant $c0) $x {overflowFlags = $f0}) {overflowFlags = $f1})
     => (arith.addi $x (arith.constant {value = sub_ints($c1, $c0)}) {overflowFlags = merge_overflow($f0, $f1)})"
);

/// `subi(subi(a, b), a) → subi(0, b)`.
pub static SUBI_SUBI_LHS_RHS_LHS: Rule = arith_rule!(
    "SubISubILHSRHSLHS",
    "(arith.subi (arith.subi $a $b {overflowFlags = $f0}) $a {overflowFlags = $f1})
     => (arith.subi (arith.constant {value = zero_of($b)}) $b {overflowFlags = merge_overflow($f0, $f1)})"
);

// ----- muli -----

/// `muli(muli(x, c0), c1) → muli(x, c0 * c1)`.
pub static MULI_MULI_CONSTANT: Rule = arith_rule!(
    "MulIMulIConstant",
    "(arith.muli (arith.muli $x (constant $c0) {overflowFlags = $f0}) (constant $c1) {overflowFlags = $f1})
     => (arith.muli $x (arith.constant {value = mul_ints($c0, $c1)}) {overflowFlags = merge_overflow($f0, $f1)})"
);

// ----- extended arithmetic -----

/// `addui_extended(x, y) → [addi(x, y), x]` when the overflow bit is unused.
pub static ADDUI_EXTENDED_TO_ADDI: Rule = arith_rule!(
    "AddUIExtendedToAddI",
    "(arith.addui_extended:$r $x $y) => [(arith.addi $x $y), $x] if unused($r#1)"
);

/// `mulsi_extended(x, y) → [muli(x, y), x]` when the high half is unused.
pub static MULSI_EXTENDED_TO_MULI: Rule = arith_rule!(
    "MulSIExtendedToMulI",
    "(arith.mulsi_extended:$r $x $y) => [(arith.muli $x $y), $x] if unused($r#1)"
);

/// `mului_extended(x, y) → [muli(x, y), x]` when the high half is unused.
pub static MULUI_EXTENDED_TO_MULI: Rule = arith_rule!(
    "MulUIExtendedToMulI",
    "(arith.mului_extended:$r $x $y) => [(arith.muli $x $y), $x] if unused($r#1)"
);

// ----- bitwise -----

/// `xori(cmpi(p, a, b), true) → cmpi(!p, a, b)`.
pub static XORI_NOT_CMPI: Rule = arith_rule!(
    "XOrINotCmpI",
    "(arith.xori (arith.cmpi $a $b {predicate = $p}) (constant $t))
     => (arith.cmpi $a $b {predicate = invert_predicate($p)}) if is_true($t)"
);

/// `xori(extui(x), extui(y)) → extui(xori(x, y))`.
pub static XORI_OF_EXTUI: Rule = arith_rule!(
    "XOrIOfExtUI",
    "(arith.xori (arith.extui $x) (arith.extui $y)) => (arith.extui (arith.xori $x $y -> $x))
     if same_type($x, $y)"
);

/// `xori(extsi(x), extsi(y)) → extsi(xori(x, y))`.
pub static XORI_OF_EXTSI: Rule = arith_rule!(
    "XOrIOfExtSI",
    "(arith.xori (arith.extsi $x) (arith.extsi $y)) => (arith.extsi (arith.xori $x $y -> $x))
     if same_type($x, $y)"
);

/// `andi(extui(x), extui(y)) → extui(andi(x, y))`.
pub static ANDI_OF_EXTUI: Rule = arith_rule!(
    "AndOfExtUI",
    "(arith.andi (arith.extui $x) (arith.extui $y)) => (arith.extui (arith.andi $x $y -> $x))
     if same_type($x, $y)"
);

/// `andi(extsi(x), extsi(y)) → extsi(andi(x, y))`.
pub static ANDI_OF_EXTSI: Rule = arith_rule!(
    "AndOfExtSI",
    "(arith.andi (arith.extsi $x) (arith.extsi $y)) => (arith.extsi (arith.andi $x $y -> $x))
     if same_type($x, $y)"
);

/// `ori(extui(x), extui(y)) → extui(ori(x, y))`.
pub static ORI_OF_EXTUI: Rule = arith_rule!(
    "OrOfExtUI",
    "(arith.ori (arith.extui $x) (arith.extui $y)) => (arith.extui (arith.ori $x $y -> $x))
     if same_type($x, $y)"
);

/// `ori(extsi(x), extsi(y)) → extsi(ori(x, y))`.
pub static ORI_OF_EXTSI: Rule = arith_rule!(
    "OrOfExtSI",
    "(arith.ori (arith.extsi $x) (arith.extsi $y)) => (arith.extsi (arith.ori $x $y -> $x))
     if same_type($x, $y)"
);

// ----- cmpi and select -----

/// `cmpi(eq|ne, extsi(a), extsi(b)) → cmpi(eq|ne, a, b)`.
pub static CMPI_EXTSI: Rule = arith_rule!(
    "CmpIExtSI",
    "(arith.cmpi (arith.extsi $a) (arith.extsi $b) {predicate = $p})
     => (arith.cmpi $a $b {predicate = $p}) if same_type($a, $b), eq_or_ne($p)"
);

/// `cmpi(eq|ne, extui(a), extui(b)) → cmpi(eq|ne, a, b)`.
pub static CMPI_EXTUI: Rule = arith_rule!(
    "CmpIExtUI",
    "(arith.cmpi (arith.extui $a) (arith.extui $b) {predicate = $p})
     => (arith.cmpi $a $b {predicate = $p}) if same_type($a, $b), eq_or_ne($p)"
);

/// `select(xori(c, -1), a, b) → select(c, b, a)`.
pub static SELECT_NOT_COND: Rule = arith_rule!(
    "SelectNotCond",
    "(arith.select (arith.xori $c (constant $ones)) $a $b) => (arith.select $c $b $a)
     if scalar($ones), all_ones($ones)"
);

/// `select(c, select(c, a, b), d) → select(c, a, d)`.
pub static REDUNDANT_SELECT_TRUE: Rule = arith_rule!(
    "RedundantSelectTrue",
    "(arith.select $c (arith.select $c $a $b) $d) => (arith.select $c $a $d)"
);

/// `select(c, a, select(c, b, d)) → select(c, a, d)`.
pub static REDUNDANT_SELECT_FALSE: Rule = arith_rule!(
    "RedundantSelectFalse",
    "(arith.select $c $a (arith.select $c $b $d)) => (arith.select $c $a $d)"
);

/// `select(c, false, true) → xori(c, true)`.
pub static SELECT_I1_TO_NOT: Rule = arith_rule!(
    "SelectI1ToNot",
    "(arith.select $c (constant $f) (constant $t))
     => (arith.xori $c (arith.constant {value = true_attr()})) if is_false($f), is_true($t)"
);

// ----- casts -----

/// `extsi(extsi(x)) → extsi(x)`.
pub static EXTSI_OF_EXTSI: Rule = arith_rule!(
    "ExtSIOfExtSI",
    "(arith.extsi (arith.extsi $x)) => (arith.extsi $x)"
);

/// `extui(extui(x)) → extui(x)`.
pub static EXTUI_OF_EXTUI: Rule = arith_rule!(
    "ExtUIOfExtUI",
    "(arith.extui (arith.extui $x)) => (arith.extui $x)"
);

/// `extsi(extui(x)) → extui(x)` (the sign bit of `extui(x)` is zero).
pub static EXTSI_OF_EXTUI: Rule = arith_rule!(
    "ExtSIOfExtUI",
    "(arith.extsi (arith.extui $x)) => (arith.extui $x)"
);

/// `trunci(extsi(x)) → extsi(x)` when `x` is narrower than the result.
pub static TRUNCI_EXTSI_TO_EXTSI: Rule = arith_rule!(
    "TruncIExtSIToExtSI",
    "(arith.trunci:$tr (arith.extsi:$ext $x)) => (arith.extsi $x) if wider($ext, $tr), wider($tr, $x)"
);

/// `trunci(extui(x)) → extui(x)` when `x` is narrower than the result.
pub static TRUNCI_EXTUI_TO_EXTUI: Rule = arith_rule!(
    "TruncIExtUIToExtUI",
    "(arith.trunci:$tr (arith.extui:$ext $x)) => (arith.extui $x) if wider($ext, $tr), wider($tr, $x)"
);

/// `trunci(extsi(x)) → trunci(x)` when `x` is wider than the result.
pub static TRUNCI_EXTSI_TO_TRUNCI: Rule = arith_rule!(
    "TruncIExtSIToTruncI",
    "(arith.trunci:$tr (arith.extsi $x)) => (arith.trunci $x) if wider($x, $tr)"
);

/// `trunci(extui(x)) → trunci(x)` when `x` is wider than the result.
pub static TRUNCI_EXTUI_TO_TRUNCI: Rule = arith_rule!(
    "TruncIExtUIToTruncI",
    "(arith.trunci:$tr (arith.extui $x)) => (arith.trunci $x) if wider($x, $tr)"
);

/// `trunci(ext(x))`: `ext(x)` when `x` is narrower than the result, `trunci(x)` when wider
/// (equal widths fold to `x`).
pub static TRUNCI_OF_EXT: FirstOf = FirstOf::new(
    "TruncIExtToExt",
    &[
        &TRUNCI_EXTSI_TO_EXTSI,
        &TRUNCI_EXTUI_TO_EXTUI,
        &TRUNCI_EXTSI_TO_TRUNCI,
        &TRUNCI_EXTUI_TO_TRUNCI,
    ],
);

/// `trunci(shrsi(x, c)) → trunci(shrui(x, c))` when the truncation drops exactly the `c`
/// shifted-in bits.
pub static TRUNCI_SHRSI_TO_TRUNCI_SHRUI: Rule = arith_rule!(
    "TruncIShrSIToTrunciShrUI",
    "(arith.trunci:$tr (arith.shrsi $x (constant $c)) {overflowFlags = $f})
     => (arith.trunci (arith.shrui $x (arith.constant {value = $c}) -> $x) {overflowFlags = $f})
     if shift_drops_exactly($x, $tr, $c)"
);

/// `truncf(sitofp(x)) → sitofp(x)` with the default rounding.
pub static TRUNCF_SITOFP: Rule = arith_rule!(
    "TruncFSIToFPToSIToFP",
    "(arith.truncf:$tr (arith.sitofp $x)) => (arith.sitofp $x) if default_rounding($tr)"
);

/// `truncf(uitofp(x)) → uitofp(x)` with the default rounding.
pub static TRUNCF_UITOFP: Rule = arith_rule!(
    "TruncFUIToFPToUIToFP",
    "(arith.truncf:$tr (arith.uitofp $x)) => (arith.uitofp $x) if default_rounding($tr)"
);

/// `index_cast(index_cast(x)) → x` when the outer result has `x`'s type.
pub static INDEX_CAST_OF_INDEX_CAST: Rule = arith_rule!(
    "IndexCastOfIndexCast",
    "(arith.index_cast:$r (arith.index_cast $x)) => $x if same_type($r, $x)"
);

/// `index_cast(extsi(x)) → index_cast(x)`.
pub static INDEX_CAST_OF_EXTSI: Rule = arith_rule!(
    "IndexCastOfExtSI",
    "(arith.index_cast (arith.extsi $x)) => (arith.index_cast $x)"
);

/// `index_castui(index_castui(x)) → x` when the outer result has `x`'s type.
pub static INDEX_CASTUI_OF_INDEX_CASTUI: Rule = arith_rule!(
    "IndexCastUIOfIndexCastUI",
    "(arith.index_castui:$r (arith.index_castui $x)) => $x if same_type($r, $x)"
);

/// `index_castui(extui(x)) → index_castui(x)`.
pub static INDEX_CASTUI_OF_EXTUI: Rule = arith_rule!(
    "IndexCastUIOfExtUI",
    "(arith.index_castui (arith.extui $x)) => (arith.index_castui $x)"
);

/// `bitcast(bitcast(x)) → bitcast(x)` (which folds to `x` when the types round-trip).
pub static BITCAST_OF_BITCAST: Rule = arith_rule!(
    "BitcastOfBitcast",
    "(arith.bitcast (arith.bitcast $x)) => (arith.bitcast $x)"
);

// ----- float -----

/// `mulf(negf(x), negf(y)) → mulf(x, y)`, keeping the `mulf`'s fast-math flags.
pub static MULF_OF_NEGF: Rule = arith_rule!(
    "MulFOfNegF",
    "(arith.mulf (arith.negf $x) (arith.negf $y) {fastmath = $f}) => (arith.mulf $x $y {fastmath = $f})
     if same_type($x, $y)"
);

/// `divf(negf(x), negf(y)) → divf(x, y)`, keeping the `divf`'s fast-math flags.
pub static DIVF_OF_NEGF: Rule = arith_rule!(
    "DivFOfNegF",
    "(arith.divf (arith.negf $x) (arith.negf $y) {fastmath = $f}) => (arith.divf $x $y {fastmath = $f})
     if same_type($x, $y)"
);

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> Context {
        let mut ctx = Context::new();
        crate::register(&mut ctx);
        ctx
    }

    /// Every pattern an op lists compiles, names only real ops, operands and attributes, and
    /// is rooted on that op.
    #[test]
    fn every_pattern_checks() {
        let ctx = context();
        let mut n = 0;
        for op in crate::dialect().ops {
            for p in op.canonicalize {
                assert_eq!(p.check(&ctx), Ok(()), "{}", p.name());
                assert_eq!(p.root(), Some(op.name), "{} is rooted on its op", p.name());
                n += 1;
            }
        }
        assert!(n >= 40, "every arith pattern is listed by its op ({n})");
    }

    /// Upstream merges flags by keeping the ones both ops have.
    #[test]
    fn merge_overflow_keeps_common_flags() {
        let mut ctx = context();
        let nsw_nuw = OVERFLOW.enum_attr(&mut ctx, 3);
        let nsw = OVERFLOW.enum_attr(&mut ctx, 1);
        let merged = merge_overflow(&mut ctx, &[Arg::Attr(nsw_nuw), Arg::Attr(nsw)]);
        assert_eq!(merged, Some(nsw));
    }

    #[test]
    fn inverted_predicates_pair_up() {
        let mut ctx = context();
        let i64t = ctx.i64_type();
        for p in 0..10 {
            let a = ctx.int_attr(i64t, p);
            let inv = invert_predicate(&mut ctx, &[Arg::Attr(a)])
                .unwrap_or_else(|| unreachable!("{p} is a predicate"));
            let back = invert_predicate(&mut ctx, &[Arg::Attr(inv)]);
            assert_eq!(back, Some(a));
            assert_ne!(inv, a);
        }
    }
}
