//! Folders of the `arith` dialect.
//!
//! Integer folders compute on `i128` values sign-extended from the result width and wrap the
//! result around to that width; `index` folds as 64 bits.
//! Undefined cases (division by zero, signed `MIN / -1`, shifts by the width or more,
//! out-of-range float-to-int conversions) are never folded.
//! Float folders compute in the precision of the type (`f32` arithmetic for `f32`).
//! Every folder works on scalars and on splat dense elements alike.

use crate::attrs::{cmpf, cmpi};
use nart_ir::registry::{FoldOutcome, FoldResult};
use nart_ir::{Attr, Context, FloatKind, Op, Type, Value};

use crate::consts::{float_kind, int_width, make, sext, zext, Scalar};

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

fn int_const(ctx: &Context, a: Option<Attr>) -> Option<i128> {
    crate::consts::int_of(ctx, a?)
}

fn float_const(ctx: &Context, a: Option<Attr>) -> Option<f64> {
    crate::consts::float_of(ctx, a?)
}

/// Folds an integer op whose operands are all constants with `f(values, width)`; the result is
/// wrapped to the result width.
fn fold_ints(
    ctx: &mut Context,
    op: Op,
    cst: &[Option<Attr>],
    f: impl Fn(&[i128], u32) -> Option<i128>,
) -> FoldOutcome {
    let Some(w) = result_width(ctx, op) else {
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
    replace_attr(make(ctx, ty, Scalar::Int(sext(r, w))))
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
    if int_const(ctx, cst[1]) == Some(0) {
        return replace_value(x);
    }
    for (s, other) in [(x, y), (y, x)] {
        if let Some(sub) = def_named(ctx, s, "arith.subi") {
            if ctx.operand(sub, 1) == other {
                return replace_value(ctx.operand(sub, 0));
            }
        }
    }
    fold_ints(ctx, op, cst, |v, _| Some(v[0].wrapping_add(v[1])))
}

/// `subi`: constants; `x - 0 → x`; `x - x → 0`; `(a + b) - b → a`; `(a + b) - a → b`.
pub fn subi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (x, y) = operands2(ctx, op);
    if x == y {
        return int_result(ctx, op, 0);
    }
    if int_const(ctx, cst[1]) == Some(0) {
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
    fold_ints(ctx, op, cst, |v, _| Some(v[0].wrapping_sub(v[1])))
}

/// `muli`: constants; `x * 1 → x`; `x * 0 → 0`.
pub fn muli(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    match int_const(ctx, cst[1]) {
        Some(0) => return replace_attr(cst[1]),
        Some(1) => return replace_value(ctx.operand(op, 0)),
        _ => {}
    }
    fold_ints(ctx, op, cst, |v, _| Some(v[0].wrapping_mul(v[1])))
}

/// `divsi`: constants (not by zero, not `MIN / -1`); `x / 1 → x`.
pub fn divsi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_const(ctx, cst[1]) == Some(1) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, w| {
        let (a, b) = (v[0], v[1]);
        if b == 0 || (b == -1 && a == sext(1 << (w - 1), w)) {
            return None;
        }
        Some(a / b)
    })
}

/// `divui`: constants (not by zero); `x / 1 → x`.
pub fn divui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_const(ctx, cst[1]) == Some(1) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, w| {
        let (a, b) = (zext(v[0], w), zext(v[1], w));
        (b != 0).then(|| a / b)
    })
}

/// Signed division rounding toward positive infinity, or `None` on overflow or zero.
fn ceil_div_signed(a: i128, b: i128, w: u32) -> Option<i128> {
    if b == 0 || (b == -1 && a == sext(1 << (w - 1), w)) {
        return None;
    }
    let q = a / b;
    let r = a % b;
    Some(if r != 0 && ((r > 0) == (b > 0)) {
        q + 1
    } else {
        q
    })
}

/// Signed division rounding toward negative infinity, or `None` on overflow or zero.
fn floor_div_signed(a: i128, b: i128, w: u32) -> Option<i128> {
    if b == 0 || (b == -1 && a == sext(1 << (w - 1), w)) {
        return None;
    }
    let q = a / b;
    let r = a % b;
    Some(if r != 0 && ((r < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

/// `ceildivsi`: constants; `x / 1 → x`.
pub fn ceildivsi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_const(ctx, cst[1]) == Some(1) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, w| ceil_div_signed(v[0], v[1], w))
}

/// `ceildivui`: constants; `x / 1 → x`.
pub fn ceildivui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_const(ctx, cst[1]) == Some(1) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, w| {
        let (a, b) = (zext(v[0], w), zext(v[1], w));
        (b != 0).then(|| a / b + i128::from(a % b != 0))
    })
}

/// `floordivsi`: constants; `x / 1 → x`.
pub fn floordivsi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_const(ctx, cst[1]) == Some(1) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, w| floor_div_signed(v[0], v[1], w))
}

/// `remsi`: constants (not by zero); `x % 1 → 0`.
pub fn remsi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_const(ctx, cst[1]) == Some(1) {
        return int_result(ctx, op, 0);
    }
    fold_ints(ctx, op, cst, |v, _| {
        (v[1] != 0).then(|| v[0].wrapping_rem(v[1]))
    })
}

/// `remui`: constants (not by zero); `x % 1 → 0`.
pub fn remui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_const(ctx, cst[1]) == Some(1) {
        return int_result(ctx, op, 0);
    }
    fold_ints(ctx, op, cst, |v, w| {
        let (a, b) = (zext(v[0], w), zext(v[1], w));
        (b != 0).then(|| a % b)
    })
}

/// `andi`: constants; `x & 0 → 0`; `x & -1 → x`; `x & x → x`.
pub fn andi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (x, y) = operands2(ctx, op);
    if x == y {
        return replace_value(x);
    }
    match int_const(ctx, cst[1]) {
        Some(0) => return replace_attr(cst[1]),
        Some(-1) => return replace_value(x),
        _ => {}
    }
    fold_ints(ctx, op, cst, |v, _| Some(v[0] & v[1]))
}

/// `ori`: constants; `x | 0 → x`; `x | -1 → -1`; `x | x → x`.
pub fn ori(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (x, y) = operands2(ctx, op);
    if x == y {
        return replace_value(x);
    }
    match int_const(ctx, cst[1]) {
        Some(0) => return replace_value(x),
        Some(-1) => return replace_attr(cst[1]),
        _ => {}
    }
    fold_ints(ctx, op, cst, |v, _| Some(v[0] | v[1]))
}

/// `xori`: constants; `x ^ 0 → x`; `x ^ x → 0`.
pub fn xori(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (x, y) = operands2(ctx, op);
    if x == y {
        return int_result(ctx, op, 0);
    }
    if int_const(ctx, cst[1]) == Some(0) {
        return replace_value(x);
    }
    fold_ints(ctx, op, cst, |v, _| Some(v[0] ^ v[1]))
}

/// `shli`: constants (shift below the width); `x << 0 → x`.
pub fn shli(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_const(ctx, cst[1]) == Some(0) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, w| {
        let s = zext(v[1], w);
        (s < w as i128).then(|| zext(v[0], w) << s)
    })
}

/// `shrsi`: constants (shift below the width); `x >> 0 → x`.
pub fn shrsi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_const(ctx, cst[1]) == Some(0) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, w| {
        let s = zext(v[1], w);
        (s < w as i128).then(|| v[0] >> s)
    })
}

/// `shrui`: constants (shift below the width); `x >> 0 → x`.
pub fn shrui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    if int_const(ctx, cst[1]) == Some(0) {
        return replace_value(ctx.operand(op, 0));
    }
    fold_ints(ctx, op, cst, |v, w| {
        let s = zext(v[1], w);
        (s < w as i128).then(|| zext(v[0], w) >> s)
    })
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
    fold_ints(ctx, op, cst, |v, w| {
        let (a, b) = if unsigned {
            (zext(v[0], w), zext(v[1], w))
        } else {
            (v[0], v[1])
        };
        Some(if max { a.max(b) } else { a.min(b) })
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

/// `addui_extended`: constants give the wrapped sum and the unsigned carry.
pub fn addui_extended(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let (Some(w), Some(a), Some(b)) = (
        result_width(ctx, op),
        int_const(ctx, cst[0]),
        int_const(ctx, cst[1]),
    ) else {
        return FoldOutcome::None;
    };
    if w >= 127 {
        return FoldOutcome::None;
    }
    let full = zext(a, w) + zext(b, w);
    let carry = full >> w != 0;
    let sum_ty = ctx.value_type(ctx.result(op, 0));
    let ovf_ty = ctx.value_type(ctx.result(op, 1));
    let (Some(s), Some(o)) = (
        make(ctx, sum_ty, Scalar::Int(sext(full, w))),
        make(ctx, ovf_ty, Scalar::Int(-i128::from(carry))),
    ) else {
        return FoldOutcome::None;
    };
    FoldOutcome::Replace(vec![FoldResult::Attr(s), FoldResult::Attr(o)])
}

fn fold_mul_extended(ctx: &mut Context, op: Op, cst: &[Option<Attr>], signed: bool) -> FoldOutcome {
    let (Some(w), Some(a), Some(b)) = (
        result_width(ctx, op),
        int_const(ctx, cst[0]),
        int_const(ctx, cst[1]),
    ) else {
        return FoldOutcome::None;
    };
    if w > 63 {
        // The double-width product must fit the 128-bit intermediate.
        return FoldOutcome::None;
    }
    let p = if signed {
        a * b
    } else {
        zext(a, w) * zext(b, w)
    };
    let ty = result_type(ctx, op);
    let (Some(lo), Some(hi)) = (
        make(ctx, ty, Scalar::Int(sext(p, w))),
        make(ctx, ty, Scalar::Int(sext(p >> w, w))),
    ) else {
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
    let (ua, ub) = (zext(a, w), zext(b, w));
    Some(match pred {
        cmpi::EQ => a == b,
        cmpi::NE => a != b,
        cmpi::SLT => a < b,
        cmpi::SLE => a <= b,
        cmpi::SGT => a > b,
        cmpi::SGE => a >= b,
        cmpi::ULT => ua < ub,
        cmpi::ULE => ua <= ub,
        cmpi::UGT => ua > ub,
        cmpi::UGE => ua >= ub,
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
    let lhs_ty = ctx.element_type(ctx.value_type(x));
    let (Some(w), Some(a), Some(b)) = (
        int_width(ctx, lhs_ty),
        int_const(ctx, cst[0]),
        int_const(ctx, cst[1]),
    ) else {
        return FoldOutcome::None;
    };
    match cmpi_eval(pred, a, b, w) {
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
    match int_const(ctx, cst[0]) {
        Some(0) => return replace_value(f),
        Some(_) => return replace_value(t),
        None => {}
    }
    let cond = ctx.operand(op, 0);
    if ctx.value_type(cond) == result_type(ctx, op)
        && int_const(ctx, cst[1]) == Some(-1)
        && int_const(ctx, cst[2]) == Some(0)
    {
        return replace_value(cond);
    }
    FoldOutcome::None
}

// ----- casts -----

fn in_width(ctx: &Context, op: Op) -> Option<u32> {
    int_width(ctx, ctx.element_type(ctx.value_type(ctx.operand(op, 0))))
}

/// `extsi`: constants are sign-extended.
pub fn extsi(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    fold_ints(ctx, op, cst, |v, _| Some(v[0]))
}

/// `extui`: constants are zero-extended.
pub fn extui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let Some(wi) = in_width(ctx, op) else {
        return FoldOutcome::None;
    };
    fold_ints(ctx, op, cst, |v, _| Some(zext(v[0], wi)))
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
    fold_ints(ctx, op, cst, |v, _| Some(v[0]))
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
    let (Some(kind), Some(wi), Some(v)) = (
        float_kind(ctx, ctx.element_type(ty)),
        in_width(ctx, op),
        int_const(ctx, cst[0]),
    ) else {
        return FoldOutcome::None;
    };
    let v = if unsigned { zext(v, wi) } else { v };
    let f = if kind == FloatKind::F32 {
        v as f32 as f64
    } else {
        crate::consts::round(v as f64, kind)
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
    int_result(ctx, op, sext(t as i128, w))
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
    fold_ints(ctx, op, cst, |v, _| Some(v[0]))
}

/// `index_castui`: constants are zero-extended or truncated.
pub fn index_castui(ctx: &mut Context, op: Op, cst: &[Option<Attr>]) -> FoldOutcome {
    let Some(wi) = in_width(ctx, op) else {
        return FoldOutcome::None;
    };
    fold_ints(ctx, op, cst, |v, _| Some(zext(v[0], wi)))
}
