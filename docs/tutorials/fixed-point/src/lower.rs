//! 6. A conversion: `fx` to `arith`, with `!fx.fixed<W, F>` becoming `iW`.

use nart_dialect_arith as arith;
use nart_dialect_func::conversion::{add_func_legality, add_func_type_conversion_patterns};
use nart_ir::{Context, Op, Value};
use nart_rewrite::conversion::{
    apply_full_conversion, ConversionError, ConversionPattern, ConversionPatternSet,
    ConversionRewriter, ConversionTarget, OpAdaptor, TypeConverter,
};

use crate::{AddOp, ConstantOp, FixedType, MulOp, ROUND};

/// Lowers every `fx` op under `root` to `arith`, and functions to the integer types.
pub fn lower_to_arith(ctx: &mut Context, root: Op) -> Result<(), ConversionError> {
    let mut types = TypeConverter::new();
    types.add_identity_conversion().add_conversion(|u, t| {
        let fx = *u.type_as::<FixedType>(t)?;
        Some(vec![u.int_type(fx.width)])
    });
    let mut target = ConversionTarget::new();
    target.add_legal_dialect("arith").add_illegal_dialect("fx");
    add_func_legality(&mut target);
    let mut patterns = ConversionPatternSet::new();
    patterns.add(LowerConstant).add(LowerAdd).add(LowerMul);
    add_func_type_conversion_patterns(&mut patterns);
    apply_full_conversion(ctx, root, &target, &patterns, Some(&types)).map(|_| ())
}

/// The fixed-point type of `op`'s result.
fn fixed(rw: &ConversionRewriter<'_, '_>, op: Op) -> Option<FixedType> {
    rw.type_as::<FixedType>(rw.value_type(rw.result(op, 0)))
        .copied()
}

/// `fx.constant v : !fx.fixed<W, F>` → `arith.constant round(v * 2^F) : iW`.
struct LowerConstant;

impl ConversionPattern for LowerConstant {
    fn name(&self) -> &'static str {
        "LowerConstant"
    }
    fn root(&self) -> Option<&'static str> {
        Some(ConstantOp::NAME)
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let (Some(fx), Some(v)) = (fixed(rw, op), ConstantOp(op).value(rw)) else {
            return rw.match_failure("not a fixed-point constant");
        };
        let Some(v) = rw.attr_float(v) else {
            return rw.match_failure("the value is not a float");
        };
        let (loc, ty) = (rw.op_loc(op), rw.uniq().int_type(fx.width));
        let raw = (v * 2f64.powi(fx.frac as i32)).round() as i128;
        let value = rw.uniq().int_attr(ty, raw);
        let c = arith::ConstantOp::build(&mut **rw, loc, ty, value);
        let r = c.result(rw);
        rw.replace_op(op, &[r]);
        true
    }
}

/// `fx.add` → `arith.addi`.
struct LowerAdd;

impl ConversionPattern for LowerAdd {
    fn name(&self) -> &'static str {
        "LowerAdd"
    }
    fn root(&self) -> Option<&'static str> {
        Some(AddOp::NAME)
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let loc = rw.op_loc(op);
        let Ok(sum) = arith::AddIOp::build(&mut **rw, loc, a.operand(0), a.operand(1)) else {
            return rw.match_failure("arith.addi could not infer its type");
        };
        let r = sum.result(rw);
        rw.replace_op(op, &[r]);
        true
    }
}

/// `fx.mul a, b : <W, F>` → `trunci((extsi(a) * extsi(b) + round) >> F)`, in `2W` bits.
struct LowerMul;

impl ConversionPattern for LowerMul {
    fn name(&self) -> &'static str {
        "LowerMul"
    }
    fn root(&self) -> Option<&'static str> {
        Some(MulOp::NAME)
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let Some(fx) = fixed(rw, op) else {
            return rw.match_failure("not a fixed-point multiply");
        };
        let nearest = MulOp(op)
            .rounding(rw)
            .and_then(|r| rw.enum_value(r, &ROUND))
            .is_none_or(|v| v == 0);
        let loc = rw.op_loc(op);
        let (narrow, wide) = (
            rw.uniq().int_type(fx.width),
            rw.uniq().int_type(2 * fx.width),
        );
        let widen = |rw: &mut ConversionRewriter<'_, '_>, v: Value| {
            let e = arith::ExtSIOp::build(&mut **rw, loc, wide, v);
            e.out(rw)
        };
        let (x, y) = (widen(rw, a.operand(0)), widen(rw, a.operand(1)));
        let Ok(mut p) = arith::MulIOp::build(&mut **rw, loc, x, y).map(|m| m.result(rw)) else {
            return rw.match_failure("arith.muli could not infer its type");
        };
        if fx.frac > 0 {
            let constant = |rw: &mut ConversionRewriter<'_, '_>, v: i128| {
                let attr = rw.uniq().int_attr(wide, v);
                let c = arith::ConstantOp::build(&mut **rw, loc, wide, attr);
                c.result(rw)
            };
            if nearest {
                let half = constant(rw, 1 << (fx.frac - 1));
                p = match arith::AddIOp::build(&mut **rw, loc, p, half) {
                    Ok(s) => s.result(rw),
                    Err(_) => return false,
                };
            }
            let shift = constant(rw, i128::from(fx.frac));
            p = match arith::ShRSIOp::build(&mut **rw, loc, p, shift) {
                Ok(s) => s.result(rw),
                Err(_) => return false,
            };
        }
        let t = arith::TruncIOp::build(&mut **rw, loc, narrow, p);
        let r = t.out(rw);
        rw.replace_op(op, &[r]);
        true
    }
}
