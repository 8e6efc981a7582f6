//! Folders of the `arith` dialect.
//!
//! Integer folders compute on [`ApInt`]s of the operands' width (`index` folds as 64 bits), as
//! upstream computes on `APInt`s, so unsigned operations are unsigned at every width, `i128`
//! and wider included; results wrap around to the result width. Integers wider than
//! [`MAX_FOLD_WIDTH`] bits are not folded, so that hostile input (`muli` of two `i16777215`
//! constants) cannot make the schoolbook arithmetic run for hours.
//! Undefined cases (division by zero, signed `MIN / -1`, shifts by the width or more,
//! out-of-range float-to-int conversions) are never folded.
//! Float folders compute in the precision of the type (`f32` arithmetic for `f32`).
//! Every folder works on scalars and on splat dense elements alike.

use std::cmp::Ordering;

use crate::attrs::{cmpf, cmpi};
use nart_ir::apint::ApInt;
use nart_ir::registry::{FoldOutcome, FoldResult};
use nart_ir::{Attr, Context, FloatKind, Op, Type, Value};

use crate::consts::{apint_of, float_kind, int_width, make, make_int, sext, Scalar};

/// The widest integers the folders compute on.
pub const MAX_FOLD_WIDTH: u32 = 4096;

fn replace_attr(a: Option<Attr>) -> FoldOutcome {
    match a {
        Some(a) => FoldOutcome::Replace(vec![FoldResult::Attr(a)]),
        None => FoldOutcome::None,
    }
}

fn replace_value(v: Value) -> FoldOutcome {
    FoldOutcome::Replace(vec![FoldResult::Value(v)])
}

fn result_type(ctx: &Context, op: Op) -> Type {
    ctx.value_type(ctx.result(op, 0))
}

/// The element width of the op's result (integers; `index` is 64).
fn result_width(ctx: &Context, op: Op) -> Option<u32> {
    int_width(ctx, ctx.element_type(result_type(ctx, op)))
}

/// The integer value of a constant operand, within the widths folders compute on.
fn int_const(ctx: &Context, a: Option<Attr>) -> Option<ApInt> {
    apint_of(ctx, a?).filter(|v| v.width() <= MAX_FOLD_WIDTH)
}

/// Whether a constant operand is the integer `k` (sign-extended to its width).
fn int_is(ctx: &Context, a: Option<Attr>, k: i128) -> bool {
    int_const(ctx, a).is_some_and(|v| v == ApInt::from_i128(v.width(), k))
}

fn float_const(ctx: &Context, a: Option<Attr>) -> Option<f64> {
    crate::consts::float_of(ctx, a?)
}

/// Folds an integer op whose operands are all constants with `f(values, result width)`; the
/// result is truncated or zero-extended to the result width.
fn fold_ints(
    ctx: &mut Context,
    op: Op,
    cst: &[Option<Attr>],
    f: impl Fn(&[ApInt], u32) -> Option<ApInt>,
) -> FoldOutcome {
    let Some(w) = result_width(ctx, op).filter(|&w| w <= MAX_FOLD_WIDTH) else {
        return FoldOutcome::None;
    };
    let Some(vals) = cst
        .iter()
        .map(|&a| int_const(ctx, a))
        .collect::<Option<Vec<_>>>()
    else {
        return FoldOutcome::None;
    };
    let Some(r) = f(&vals, w) else {
        return FoldOutcome::None;
    };
    let ty = result_type(ctx, op);
    replace_attr(make_int(ctx, ty, &r))
}

/// A constant of the result type holding `v`.
fn int_result(ctx: &mut Context, op: Op, v: i128) -> FoldOutcome {
    let ty = result_type(ctx, op);
    replace_attr(make(ctx, ty, Scalar::Int(v)))
}

fn operands2(ctx: &Context, op: Op) -> (Value, Value) {
    (ctx.operand(op, 0), ctx.operand(op, 1))
}

/// Whether `v` is defined by an op named `name`; returns that op.
fn def_named(ctx: &Context, v: Value, name: &str) -> Option<Op> {
    ctx.defining_op(v).filter(|&d| ctx.op_name_str(d) == name)
}

// ----- constant -----

/// `arith.constant` folds to its value.
pub fn constant(ctx: &mut Context, op: Op, _cst: &[Option<Attr>]) -> FoldOutcome {
    replace_attr(ctx.attr(op, "value"))
}

// ----- integer arithmetic -----

/// `addi`: constants; `x + 0 → x`; `(a - b) + b → a`; `b + (a - b) → a`.
pub fn addi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (x, y) = operands2(ctx, op);
    if int_is(ctx, cst[1], 0) {
        return replace_value(x);
    }
    for (s, other) in [(x, y), (y, x)] {
        if let Some(sub) = def_named(ctx, s, "arith.subi") {
            if ctx.operand(sub, 1) == other {
                return replace_value(ctx.operand(sub, 0));
            }
        }
    }
    fold_ints(ctx, op, cst, |v, _| Some(v[0].add(&v[1])))
}

/// `subi`: constants; `x - 0 → x`; `x - x → 0`; `(a + b) - b → a`; `(a + b) - a → b`.
pub fn subi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (x, y) = operands2(ctx, op);
    if x == y {
        return int_result(ctx, op, 0);
    }
    if int_is(ctx, cst[1], 0) {
        return replace_value(x);
    }
    if let Some(add) = def_named(ctx, x, "arith.addi") {
        let (a, b) = operands2(ctx, add);
        if b == y {
            return replace_value(a);
        }
        if a == y {
            return replace_value(b);
        }
    }
    fold_ints(ctx, op, cst, |v, _| Some(v[0].sub(&v[1])))
}

/// `muli`: constants; `x * 1 → x`; `x * 0 → 0`.
pub fn muli(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_is(ctx, cst[1], 0) {
        return replace_attr(cst[1]);
    }
    if int_is(ctx, cst[1], 1) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, _| Some(v[0].mul(&v[1])))
}

/// Whether `a / b` overflows as a signed division (`MIN / -1`).
fn signed_div_overflows(a: &ApInt, b: &ApInt) -> bool {
    *a == ApInt::signed_min(a.width()) && *b == ApInt::from_i128(b.width(), -1)
}

/// `divsi`: constants (not by zero, not `MIN / -1`); `x / 1 → x`.
pub fn divsi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_is(ctx, cst[1], 1) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, _| {
        if signed_div_overflows(&v[0], &v[1]) {
            return None;
        }
        v[0].sdivrem(&v[1]).map(|(q, _)| q)
    })
}

/// `divui`: constants (not by zero); `x / 1 → x`.
pub fn divui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_is(ctx, cst[1], 1) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, _| v[0].udivrem(&v[1]).map(|(q, _)| q))
}

/// Signed division rounding toward positive infinity (`up`) or negative infinity, or `None` on
/// division by zero or overflow. Rounding up, upstream negates its operands and gives up when
/// that overflows: nothing but `0` divided by `MIN`, or `MIN` divided, folds.
fn round_div_signed(a: &ApInt, b: &ApInt, up: bool) -> Option<ApInt> {
    if signed_div_overflows(a, b) {
        return None;
    }
    if up && !a.is_zero() {
        let min = ApInt::signed_min(a.width());
        if *a == min || *b == min {
            return None;
        }
    }
    let (q, r) = a.sdivrem(b)?;
    if r.is_zero() {
        return Some(q);
    }
    let one = ApInt::from_i128(q.width(), 1);
    let same_sign = r.is_negative() == b.is_negative();
    Some(match (up, same_sign) {
        (true, true) => q.add(&one),
        (false, false) => q.sub(&one),
        _ => q,
    })
}

/// `ceildivsi`: constants; `x / 1 → x`.
pub fn ceildivsi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_is(ctx, cst[1], 1) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, _| round_div_signed(&v[0], &v[1], true))
}

/// `ceildivui`: constants; `x / 1 → x`.
pub fn ceildivui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_is(ctx, cst[1], 1) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, _| {
        let (q, r) = v[0].udivrem(&v[1])?;
        let up = ApInt::from_i128(q.width(), i128::from(!r.is_zero()));
        Some(q.add(&up))
    })
}

/// `floordivsi`: constants; `x / 1 → x`.
pub fn floordivsi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_is(ctx, cst[1], 1) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, _| round_div_signed(&v[0], &v[1], false))
}

/// `remsi`: constants (not by zero); `x % 1 → 0`.
pub fn remsi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_is(ctx, cst[1], 1) {
        return int_result(ctx, op, 0);
    }
    fold_ints(ctx, op, cst, |v, _| v[0].sdivrem(&v[1]).map(|(_, r)| r))
}

/// `remui`: constants (not by zero); `x % 1 → 0`.
pub fn remui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_is(ctx, cst[1], 1) {
        return int_result(ctx, op, 0);
    }
    fold_ints(ctx, op, cst, |v, _| v[0].udivrem(&v[1]).map(|(_, r)| r))
}

/// `andi`: constants; `x & 0 → 0`; `x & -1 → x`; `x & x → x`.
pub fn andi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (x, y) = operands2(ctx, op);
    if x == y {
        return replace_value(x);
    }
    if int_is(ctx, cst[1], 0) {
        return replace_attr(cst[1]);
    }
    if int_is(ctx, cst[1], -1) {
        return replace_value(x);
    }
    fold_ints(ctx, op, cst, |v, _| Some(v[0].and(&v[1])))
}

/// `ori`: constants; `x | 0 → x`; `x | -1 → -1`; `x | x → x`.
pub fn ori(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (x, y) = operands2(ctx, op);
    if x == y {
        return replace_value(x);
    }
    if int_is(ctx, cst[1], 0) {
        return replace_value(x);
    }
    if int_is(ctx, cst[1], -1) {
        return replace_attr(cst[1]);
    }
    fold_ints(ctx, op, cst, |v, _| Some(v[0].or(&v[1])))
}

/// `xori`: constants; `x ^ 0 → x`; `x ^ x → 0`.
pub fn xori(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (x, y) = operands2(ctx, op);
    if x == y {
        return int_result(ctx, op, 0);
    }
    if int_is(ctx, cst[1], 0) {
        return replace_value(x);
    }
    fold_ints(ctx, op, cst, |v, _| Some(v[0].xor(&v[1])))
}

/// The shift amount of a shift's constant right operand, read as unsigned.
fn shift_amount(v: &ApInt) -> Option<u64> {
    v.to_u128().and_then(|s| u64::try_from(s).ok())
}

/// `shli`: constants (shift below the width); `x << 0 → x`.
pub fn shli(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_is(ctx, cst[1], 0) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, _| v[0].shl(shift_amount(&v[1])?))
}

/// `shrsi`: constants (shift below the width); `x >> 0 → x`.
pub fn shrsi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_is(ctx, cst[1], 0) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, _| v[0].ashr(shift_amount(&v[1])?))
}

/// `shrui`: constants (shift below the width); `x >> 0 → x`.
pub fn shrui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_is(ctx, cst[1], 0) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, _| v[0].lshr(shift_amount(&v[1])?))
}

fn fold_minmax(
    ctx: &mut Context,
    op: Op,
    cst: &[Option<Attr>],
    unsigned: bool,
    max: bool,
) -> FoldOutcome {
    let (x, y) = operands2(ctx, op);
    if x == y {
        return replace_value(x);
    }
    fold_ints(ctx, op, cst, |v, _| {
        let ord = if unsigned {
            v[0].ucmp(&v[1])
        } else {
            v[0].scmp(&v[1])
        };
        let first = (ord == Ordering::Greater) == max || ord == Ordering::Equal;
        Some(if first { v[0].clone() } else { v[1].clone() })
    })
}

/// `maxsi`: constants; `max(x, x) → x`.
pub fn maxsi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    fold_minmax(ctx, op, cst, false, true)
}

/// `maxui`: constants; `max(x, x) → x`.
pub fn maxui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    fold_minmax(ctx, op, cst, true, true)
}

/// `minsi`: constants; `min(x, x) → x`.
pub fn minsi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    fold_minmax(ctx, op, cst, false, false)
}

/// `minui`: constants; `min(x, x) → x`.
pub fn minui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    fold_minmax(ctx, op, cst, true, false)
}

/// The constant operands of a two-operand op with multiple results, within the folding width.
fn two_consts(ctx: &Context, cst: &[Option<Attr>]) -> Option<(ApInt, ApInt)> {
    Some((int_const(ctx, cst[0])?, int_const(ctx, cst[1])?))
}

/// `addui_extended`: constants give the wrapped sum and the unsigned carry.
pub fn addui_extended(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let Some((a, b)) = two_consts(ctx, cst) else {
        return FoldOutcome::None;
    };
    let (sum, carry) = a.overflowing_add(&b);
    let sum_ty = ctx.value_type(ctx.result(op, 0));
    let ovf_ty = ctx.value_type(ctx.result(op, 1));
    let (Some(s), Some(o)) = (
        make_int(ctx, sum_ty, &sum),
        make(ctx, ovf_ty, Scalar::Int(-i128::from(carry))),
    ) else {
        return FoldOutcome::None;
    };
    FoldOutcome::Replace(vec![FoldResult::Attr(s), FoldResult::Attr(o)])
}

fn fold_mul_extended(ctx: &mut Context, op: Op, cst: &[Option<Attr>], signed: bool) -> FoldOutcome {
    let Some((a, b)) = two_consts(ctx, cst) else {
        return FoldOutcome::None;
    };
    // The double-width product, then its halves.
    let w = a.width();
    let ext = |v: &ApInt| if signed { v.sext(2 * w) } else { v.zext(2 * w) };
    let p = ext(&a).mul(&ext(&b));
    let lo = p.zext(w);
    let Some(hi) = p.lshr(u64::from(w)).map(|h| h.zext(w)) else {
        return FoldOutcome::None;
    };
    let ty = result_type(ctx, op);
    let (Some(lo), Some(hi)) = (make_int(ctx, ty, &lo), make_int(ctx, ty, &hi)) else {
        return FoldOutcome::None;
    };
    FoldOutcome::Replace(vec![FoldResult::Attr(lo), FoldResult::Attr(hi)])
}

/// `mulsi_extended`: constants give the low and high halves of the signed product.
pub fn mulsi_extended(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    fold_mul_extended(ctx, op, cst, true)
}

/// `mului_extended`: constants give the low and high halves of the unsigned product.
pub fn mului_extended(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    fold_mul_extended(ctx, op, cst, false)
}

// ----- float arithmetic -----

/// Folds a float op on constants, computing in `f32` for `f32` and in `f64` (then rounding to
/// the format) otherwise.
fn fold_floats(
    ctx: &mut Context,
    op: Op,
    cst: &[Option<Attr>],
    f32op: impl Fn(&[f32]) -> f32,
    f64op: impl Fn(&[f64]) -> f64,
) -> FoldOutcome {
    let ty = result_type(ctx, op);
    let Some(kind) = float_kind(ctx, ctx.element_type(ty)) else {
        return FoldOutcome::None;
    };
    let Some(vals) = cst
        .iter()
        .map(|&a| float_const(ctx, a))
        .collect::<Option<Vec<_>>>()
    else {
        return FoldOutcome::None;
    };
    let r = if kind == FloatKind::F32 {
        let v: Vec<f32> = vals.iter().map(|&x| x as f32).collect();
        f32op(&v) as f64
    } else {
        crate::consts::round(f64op(&vals), kind)
    };
    replace_attr(make(ctx, ty, Scalar::Float(r)))
}

fn float_is(ctx: &Context, a: Option<Attr>, v: f64) -> bool {
    float_const(ctx, a).is_some_and(|x| x == v && x.is_sign_negative() == v.is_sign_negative())
}

/// `addf`: constants; `x + -0.0 → x`.
pub fn addf(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if float_is(ctx, cst[1], -0.0) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_floats(ctx, op, cst, |v| v[0] + v[1], |v| v[0] + v[1])
}

/// `subf`: constants; `x - +0.0 → x`.
pub fn subf(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if float_is(ctx, cst[1], 0.0) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_floats(ctx, op, cst, |v| v[0] - v[1], |v| v[0] - v[1])
}

/// Whether `op`'s `fastmath` flags include every flag of `flags`.
fn has_fastmath(ctx: &Context, op: Op, flags: u64) -> bool {
    ctx.attr(op, "fastmath")
        .and_then(|a| ctx.enum_value(a, &crate::attrs::FASTMATH))
        .is_some_and(|v| v & flags == flags)
}

/// `mulf`: constants; `x * 1.0 → x`; `x * ±0.0 → ±0.0` (the zero operand) under
/// `fastmath<nnan,nsz>`, as upstream.
pub fn mulf(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    const NNAN: u64 = 2;
    const NSZ: u64 = 8;
    if float_is(ctx, cst[1], 1.0) {
        return replace_value(ctx.operand(op, 0));
    }
    if has_fastmath(ctx, op, NNAN | NSZ) && float_const(ctx, cst[1]) == Some(0.0) {
        return replace_value(ctx.operand(op, 1));
    }
    fold_floats(ctx, op, cst, |v| v[0] * v[1], |v| v[0] * v[1])
}

/// `divf`: constants; `x / 1.0 → x`.
pub fn divf(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if float_is(ctx, cst[1], 1.0) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_floats(ctx, op, cst, |v| v[0] / v[1], |v| v[0] / v[1])
}

/// `remf`: constants (`fmod`).
pub fn remf(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    fold_floats(ctx, op, cst, |v| v[0] % v[1], |v| v[0] % v[1])
}

/// IEEE 754-2019 `maximum`: NaN propagates, `+0.0 > -0.0`.
fn maximum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    if a == b {
        return if a.is_sign_negative() { b } else { a };
    }
    a.max(b)
}

/// IEEE 754-2019 `minimum`: NaN propagates, `-0.0 < +0.0`.
fn minimum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    if a == b {
        return if a.is_sign_negative() { a } else { b };
    }
    a.min(b)
}

/// `maximumf`: constants; `maximumf(x, x) → x`.
pub fn maximumf(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (x, y) = operands2(ctx, op);
    if x == y {
        return replace_value(x);
    }
    fold_floats(
        ctx,
        op,
        cst,
        |v| maximum(v[0] as f64, v[1] as f64) as f32,
        |v| maximum(v[0], v[1]),
    )
}

/// `minimumf`: constants; `minimumf(x, x) → x`.
pub fn minimumf(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (x, y) = operands2(ctx, op);
    if x == y {
        return replace_value(x);
    }
    fold_floats(
        ctx,
        op,
        cst,
        |v| minimum(v[0] as f64, v[1] as f64) as f32,
        |v| minimum(v[0], v[1]),
    )
}

/// `maxnumf`: constants (a NaN operand gives the other one); `maxnumf(x, x) → x`.
pub fn maxnumf(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (x, y) = operands2(ctx, op);
    if x == y {
        return replace_value(x);
    }
    fold_floats(ctx, op, cst, |v| v[0].max(v[1]), |v| v[0].max(v[1]))
}

/// `minnumf`: constants (a NaN operand gives the other one); `minnumf(x, x) → x`.
pub fn minnumf(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (x, y) = operands2(ctx, op);
    if x == y {
        return replace_value(x);
    }
    fold_floats(ctx, op, cst, |v| v[0].min(v[1]), |v| v[0].min(v[1]))
}

/// `negf`: constants; `negf(negf(x)) → x`.
pub fn negf(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if let Some(inner) = def_named(ctx, ctx.operand(op, 0), "arith.negf") {
        return replace_value(ctx.operand(inner, 0));
    }
    fold_floats(ctx, op, cst, |v| -v[0], |v| -v[0])
}

// ----- comparisons and select -----

/// Evaluates an integer predicate (0 = `eq` ... 9 = `uge`) on values of width `w`.
pub fn cmpi_eval(pred: i128, a: i128, b: i128, w: u32) -> Option<bool> {
    cmpi_eval_apint(pred, &ApInt::from_i128(w, a), &ApInt::from_i128(w, b))
}

/// Evaluates an integer predicate on two values of the same width.
pub fn cmpi_eval_apint(pred: i128, a: &ApInt, b: &ApInt) -> Option<bool> {
    let (s, u) = (a.scmp(b), a.ucmp(b));
    Some(match pred {
        cmpi::EQ => a == b,
        cmpi::NE => a != b,
        cmpi::SLT => s == Ordering::Less,
        cmpi::SLE => s != Ordering::Greater,
        cmpi::SGT => s == Ordering::Greater,
        cmpi::SGE => s != Ordering::Less,
        cmpi::ULT => u == Ordering::Less,
        cmpi::ULE => u != Ordering::Greater,
        cmpi::UGT => u == Ordering::Greater,
        cmpi::UGE => u != Ordering::Less,
        _ => return None,
    })
}

/// Evaluates a float predicate (0 = `false` ... 15 = `true`).
pub fn cmpf_eval(pred: i128, a: f64, b: f64) -> Option<bool> {
    let unordered = a.is_nan() || b.is_nan();
    let ordered = |r: bool| !unordered && r;
    let unord = |r: bool| unordered || r;
    Some(match pred {
        cmpf::FALSE => false,
        cmpf::OEQ => ordered(a == b),
        cmpf::OGT => ordered(a > b),
        cmpf::OGE => ordered(a >= b),
        cmpf::OLT => ordered(a < b),
        cmpf::OLE => ordered(a <= b),
        cmpf::ONE => ordered(a != b),
        cmpf::ORD => !unordered,
        cmpf::UEQ => unord(a == b),
        cmpf::UGT => unord(a > b),
        cmpf::UGE => unord(a >= b),
        cmpf::ULT => unord(a < b),
        cmpf::ULE => unord(a <= b),
        cmpf::UNE => unord(a != b),
        cmpf::UNO => unordered,
        cmpf::TRUE => true,
        _ => return None,
    })
}

fn bool_result(ctx: &mut Context, op: Op, b: bool) -> FoldOutcome {
    int_result(ctx, op, -i128::from(b))
}

/// `cmpi`: constants; `x pred x` is known for every predicate.
pub fn cmpi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let Some(pred) = ctx.attr(op, "predicate").and_then(|a| ctx.attr_int(a)) else {
        return FoldOutcome::None;
    };
    let (x, y) = operands2(ctx, op);
    if x == y {
        // eq, sle, sge, ule, uge hold; ne, slt, sgt, ult, ugt do not.
        return bool_result(
            ctx,
            op,
            matches!(
                pred,
                cmpi::EQ | cmpi::SLE | cmpi::SGE | cmpi::ULE | cmpi::UGE
            ),
        );
    }
    let Some((a, b)) = two_consts(ctx, cst) else {
        return FoldOutcome::None;
    };
    match cmpi_eval_apint(pred, &a, &b) {
        Some(r) => bool_result(ctx, op, r),
        None => FoldOutcome::None,
    }
}

/// `cmpf`: constants; `false` and `true` predicates.
pub fn cmpf(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let Some(pred) = ctx.attr(op, "predicate").and_then(|a| ctx.attr_int(a)) else {
        return FoldOutcome::None;
    };
    if pred == cmpf::FALSE || pred == cmpf::TRUE {
        return bool_result(ctx, op, pred == cmpf::TRUE);
    }
    let (Some(a), Some(b)) = (float_const(ctx, cst[0]), float_const(ctx, cst[1])) else {
        return FoldOutcome::None;
    };
    match cmpf_eval(pred, a, b) {
        Some(r) => bool_result(ctx, op, r),
        None => FoldOutcome::None,
    }
}

/// `select`: `select(true, a, b) → a`; `select(false, a, b) → b`; `select(c, a, a) → a`;
/// `select(c, true, false) → c` for `i1`.
pub fn select(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (t, f) = (ctx.operand(op, 1), ctx.operand(op, 2));
    if t == f {
        return replace_value(t);
    }
    if let Some(c) = int_const(ctx, cst[0]) {
        return replace_value(if c.is_zero() { f } else { t });
    }
    let cond = ctx.operand(op, 0);
    if ctx.value_type(cond) == result_type(ctx, op)
        && int_is(ctx, cst[1], -1)
        && int_is(ctx, cst[2], 0)
    {
        return replace_value(cond);
    }
    FoldOutcome::None
}

// ----- casts -----

/// `extsi`: constants are sign-extended.
pub fn extsi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    fold_ints(ctx, op, cst, |v, w| Some(v[0].sext(w)))
}

/// `extui`: constants are zero-extended.
pub fn extui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    fold_ints(ctx, op, cst, |v, w| Some(v[0].zext(w)))
}

/// `trunci`: constants keep their low bits; `trunci(extsi(x))`/`trunci(extui(x))` to `x`'s type
/// give `x`.
pub fn trunci(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let src = ctx.operand(op, 0);
    if let Some(ext) = ctx
        .defining_op(src)
        .filter(|&d| matches!(ctx.op_name_str(d), "arith.extsi" | "arith.extui"))
    {
        let x = ctx.operand(ext, 0);
        if ctx.value_type(x) == result_type(ctx, op) {
            return replace_value(x);
        }
    }
    fold_ints(ctx, op, cst, |v, w| Some(v[0].zext(w)))
}

/// `extf`: constants are exact in the wider format.
pub fn extf(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    fold_floats(ctx, op, cst, |v| v[0], |v| v[0])
}

/// `truncf`: constants are rounded to nearest even (only without an explicit rounding mode).
pub fn truncf(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if ctx.attr(op, "roundingmode").is_some() {
        return FoldOutcome::None;
    }
    fold_floats(ctx, op, cst, |v| v[0], |v| v[0])
}

fn int_to_float(ctx: &mut Context, op: Op, cst: &[Option<Attr>], unsigned: bool) -> FoldOutcome {
    let ty = result_type(ctx, op);
    let (Some(kind), Some(v)) = (
        float_kind(ctx, ctx.element_type(ty)),
        int_const(ctx, cst[0]),
    ) else {
        return FoldOutcome::None;
    };
    let f = if kind == FloatKind::F32 {
        v.to_float(!unsigned, true)
    } else {
        crate::consts::round(v.to_float(!unsigned, false), kind)
    };
    replace_attr(make(ctx, ty, Scalar::Float(f)))
}

/// `sitofp`: constants.
pub fn sitofp(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    int_to_float(ctx, op, cst, false)
}

/// `uitofp`: constants.
pub fn uitofp(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    int_to_float(ctx, op, cst, true)
}

fn float_to_int(ctx: &mut Context, op: Op, cst: &[Option<Attr>], unsigned: bool) -> FoldOutcome {
    let (Some(w), Some(f)) = (result_width(ctx, op), float_const(ctx, cst[0])) else {
        return FoldOutcome::None;
    };
    if !f.is_finite() || w > 64 {
        return FoldOutcome::None;
    }
    let t = f.trunc();
    let (lo, hi) = if unsigned {
        (0f64, 2f64.powi(w as i32) - 1.0)
    } else {
        (-(2f64.powi(w as i32 - 1)), 2f64.powi(w as i32 - 1) - 1.0)
    };
    if t < lo || t > hi {
        return FoldOutcome::None;
    }
    let ty = result_type(ctx, op);
    replace_attr(make_int(ctx, ty, &ApInt::from_i128(w, t as i128)))
}

/// `fptosi`: in-range constants, rounded toward zero.
pub fn fptosi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    float_to_int(ctx, op, cst, false)
}

/// `fptoui`: in-range constants, rounded toward zero.
pub fn fptoui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    float_to_int(ctx, op, cst, true)
}

/// `bitcast`: constants are reinterpreted; `bitcast(x : T to T) → x`.
pub fn bitcast(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let src = ctx.operand(op, 0);
    let ty = result_type(ctx, op);
    if ctx.value_type(src) == ty {
        return replace_value(src);
    }
    let Some(a) = cst[0] else {
        return FoldOutcome::None;
    };
    let Some(v) = crate::consts::scalar_value(ctx, a) else {
        return FoldOutcome::None;
    };
    let out_elem = ctx.element_type(ty);
    let in_elem = ctx.element_type(ctx.value_type(src));
    let bits: u64 = match (v, float_kind(ctx, in_elem)) {
        (Scalar::Int(i), _) => i as u64,
        (Scalar::Float(f), Some(FloatKind::F32)) => (f as f32).to_bits() as u64,
        (Scalar::Float(f), Some(FloatKind::F64)) => f.to_bits(),
        (Scalar::Float(f), Some(FloatKind::F16)) => nart_ir::util::f64_to_f16_bits(f) as u64,
        (Scalar::Float(f), Some(FloatKind::BF16)) => nart_ir::util::f64_to_bf16_bits(f) as u64,
        _ => return FoldOutcome::None,
    };
    let out = if let Some(w) = int_width(ctx, out_elem) {
        Scalar::Int(sext(bits as i128, w))
    } else {
        match float_kind(ctx, out_elem) {
            Some(FloatKind::F32) => Scalar::Float(f32::from_bits(bits as u32) as f64),
            Some(FloatKind::F64) => Scalar::Float(f64::from_bits(bits)),
            Some(FloatKind::F16) => Scalar::Float(nart_ir::util::f16_bits_to_f64(bits as u16)),
            Some(FloatKind::BF16) => Scalar::Float(nart_ir::util::bf16_bits_to_f64(bits as u16)),
            _ => return FoldOutcome::None,
        }
    };
    replace_attr(make(ctx, ty, out))
}

/// `index_cast`: constants are sign-extended or truncated.
pub fn index_cast(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    fold_ints(ctx, op, cst, |v, w| Some(v[0].sext(w)))
}

/// `index_castui`: constants are zero-extended or truncated.
pub fn index_castui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    fold_ints(ctx, op, cst, |v, w| Some(v[0].zext(w)))
}
