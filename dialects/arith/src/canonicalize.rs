//! Canonicalization patterns of the `arith` dialect, each under a one-line algebra comment.
//!
//! Identities that need no new op (`x + 0 → x`, `x - x → 0`, `select(c, a, a) → a`, ...) are
//! folders (see [`crate::fold`]); the patterns here create or re-wire ops.

use nart_ir::registry::Trait;
use nart_ir::{Attr, Context, Op, PatternRewriter, RewritePattern, Type, Value};

use crate::consts::{int_width, make, Scalar};
use crate::{constant_state, op_state};

/// The constant attribute behind `v`, if a constant-like op defines it.
pub fn constant_attr(ctx: &Context, v: Value) -> Option<Attr> {
    let d = ctx.defining_op(v)?;
    if !ctx.op_has_trait(d, Trait::ConstantLike) {
        return None;
    }
    ctx.attr(d, "value")
}

fn const_int(ctx: &Context, v: Value) -> Option<i128> {
    crate::consts::int_of(ctx, constant_attr(ctx, v)?)
}

/// The single-operand op of kind `name` defining `v`.
fn def_named(ctx: &Context, v: Value, name: &str) -> Option<Op> {
    ctx.defining_op(v).filter(|&d| ctx.op_name_str(d) == name)
}

/// Creates `name(operands) : result_types` before `op` (with the op's default properties) and
/// replaces `op` with it.
fn replace_with(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    name: &str,
    operands: &[Value],
    results: &[Type],
) {
    let loc = rw.op_loc(op);
    let state = op_state(rw.uniq(), name, operands, results, loc);
    rw.replace_op_with_new(op, state);
}

/// Materializes an integer constant of type `ty` before `op`.
fn new_int_constant(rw: &mut PatternRewriter<'_>, op: Op, ty: Type, v: i128) -> Option<Value> {
    let attr = make(rw.uniq(), ty, Scalar::Int(v))?;
    let loc = rw.op_loc(op);
    let state = constant_state(rw.uniq(), attr, ty, loc);
    rw.set_insertion_point_before(op);
    let c = rw.create(state);
    Some(rw.result(c, 0))
}

/// `op(op(x, c1), c2) → op(x, c1 op c2)` for `addi` and `muli`, wrapping to the width.
pub struct ReassociateConstant {
    op: &'static str,
    name: &'static str,
    combine: fn(i128, i128) -> i128,
}

/// `addi(addi(x, c1), c2) → addi(x, c1 + c2)`.
pub static ADDI_ADDI_CONSTANT: ReassociateConstant = ReassociateConstant {
    op: "arith.addi",
    name: "AddIAddConstant",
    combine: i128::wrapping_add,
};

/// `muli(muli(x, c1), c2) → muli(x, c1 * c2)`.
pub static MULI_MULI_CONSTANT: ReassociateConstant = ReassociateConstant {
    op: "arith.muli",
    name: "MulIMulIConstant",
    combine: i128::wrapping_mul,
};

impl RewritePattern for ReassociateConstant {
    fn name(&self) -> &'static str {
        self.name
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.op)
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let ctx: &Context = rw;
        let (inner_v, c2v) = (ctx.operand(op, 0), ctx.operand(op, 1));
        let Some(c2) = const_int(ctx, c2v) else {
            return false;
        };
        let Some(inner) = def_named(ctx, inner_v, self.op) else {
            return false;
        };
        let (x, c1v) = (ctx.operand(inner, 0), ctx.operand(inner, 1));
        let Some(c1) = const_int(ctx, c1v) else {
            return false;
        };
        let ty = ctx.value_type(ctx.result(op, 0));
        let Some(c) = new_int_constant(rw, op, ty, (self.combine)(c1, c2)) else {
            return false;
        };
        replace_with(rw, op, self.op, &[x, c], &[ty]);
        true
    }
}

/// `subi(addi(x, c1), c2) → addi(x, c1 - c2)`.
pub struct SubIAddIConstant;

/// The one instance.
pub static SUBI_ADDI_CONSTANT: SubIAddIConstant = SubIAddIConstant;

impl RewritePattern for SubIAddIConstant {
    fn name(&self) -> &'static str {
        "SubIRHSAddConstant"
    }
    fn root(&self) -> Option<&'static str> {
        Some("arith.subi")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let ctx: &Context = rw;
        let Some(c2) = const_int(ctx, ctx.operand(op, 1)) else {
            return false;
        };
        let Some(add) = def_named(ctx, ctx.operand(op, 0), "arith.addi") else {
            return false;
        };
        let (x, c1v) = (ctx.operand(add, 0), ctx.operand(add, 1));
        let Some(c1) = const_int(ctx, c1v) else {
            return false;
        };
        let ty = ctx.value_type(ctx.result(op, 0));
        let Some(c) = new_int_constant(rw, op, ty, c1.wrapping_sub(c2)) else {
            return false;
        };
        replace_with(rw, op, "arith.addi", &[x, c], &[ty]);
        true
    }
}

/// `ext(ext(x)) → ext(x)` for `extsi` and `extui` (the same kind twice).
pub struct ExtOfExt(pub &'static str);

/// `extsi(extsi(x)) → extsi(x)`.
pub static EXTSI_OF_EXTSI: ExtOfExt = ExtOfExt("arith.extsi");
/// `extui(extui(x)) → extui(x)`.
pub static EXTUI_OF_EXTUI: ExtOfExt = ExtOfExt("arith.extui");

impl RewritePattern for ExtOfExt {
    fn name(&self) -> &'static str {
        if self.0 == "arith.extsi" {
            "ExtSIOfExtSI"
        } else {
            "ExtUIOfExtUI"
        }
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.0)
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let ctx: &Context = rw;
        let Some(inner) = def_named(ctx, ctx.operand(op, 0), self.0) else {
            return false;
        };
        let x = ctx.operand(inner, 0);
        let ty = ctx.value_type(ctx.result(op, 0));
        replace_with(rw, op, self.0, &[x], &[ty]);
        true
    }
}

/// `trunci(ext(x))`: `ext(x)` when `x` is narrower than the result, `trunci(x)` when wider
/// (equal widths fold to `x`).
pub struct TruncIOfExt;

/// The one instance.
pub static TRUNCI_OF_EXT: TruncIOfExt = TruncIOfExt;

impl RewritePattern for TruncIOfExt {
    fn name(&self) -> &'static str {
        "TruncIExtToExt"
    }
    fn root(&self) -> Option<&'static str> {
        Some("arith.trunci")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let ctx: &Context = rw;
        let Some(ext) = ctx
            .defining_op(ctx.operand(op, 0))
            .filter(|&d| matches!(ctx.op_name_str(d), "arith.extsi" | "arith.extui"))
        else {
            return false;
        };
        let ext_name = if ctx.op_name_str(ext) == "arith.extsi" {
            "arith.extsi"
        } else {
            "arith.extui"
        };
        let x = ctx.operand(ext, 0);
        let ty = ctx.value_type(ctx.result(op, 0));
        let wx = int_width(ctx, ctx.element_type(ctx.value_type(x)));
        let wr = int_width(ctx, ctx.element_type(ty));
        match (wx, wr) {
            (Some(a), Some(b)) if a < b => replace_with(rw, op, ext_name, &[x], &[ty]),
            (Some(a), Some(b)) if a > b => replace_with(rw, op, "arith.trunci", &[x], &[ty]),
            _ => return false,
        }
        true
    }
}

/// `cast(cast(x : A to B) : B to A) → x` for `index_cast` and `index_castui`.
pub struct IndexCastRoundTrip(pub &'static str);

/// `index_cast(index_cast(x)) → x` when the outer result has `x`'s type.
pub static INDEX_CAST_OF_INDEX_CAST: IndexCastRoundTrip = IndexCastRoundTrip("arith.index_cast");
/// `index_castui(index_castui(x)) → x` when the outer result has `x`'s type.
pub static INDEX_CASTUI_OF_INDEX_CASTUI: IndexCastRoundTrip =
    IndexCastRoundTrip("arith.index_castui");

impl RewritePattern for IndexCastRoundTrip {
    fn name(&self) -> &'static str {
        if self.0 == "arith.index_cast" {
            "IndexCastOfIndexCast"
        } else {
            "IndexCastUIOfIndexCastUI"
        }
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.0)
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let ctx: &Context = rw;
        let Some(inner) = def_named(ctx, ctx.operand(op, 0), self.0) else {
            return false;
        };
        let x = ctx.operand(inner, 0);
        if ctx.value_type(x) != ctx.value_type(ctx.result(op, 0)) {
            return false;
        }
        rw.replace_op(op, &[x]);
        true
    }
}

/// `bitcast(bitcast(x)) → bitcast(x)`, or `x` when the types round-trip.
pub struct BitcastOfBitcast;

/// The one instance.
pub static BITCAST_OF_BITCAST: BitcastOfBitcast = BitcastOfBitcast;

impl RewritePattern for BitcastOfBitcast {
    fn name(&self) -> &'static str {
        "BitcastOfBitcast"
    }
    fn root(&self) -> Option<&'static str> {
        Some("arith.bitcast")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let ctx: &Context = rw;
        let Some(inner) = def_named(ctx, ctx.operand(op, 0), "arith.bitcast") else {
            return false;
        };
        let x = ctx.operand(inner, 0);
        let ty = ctx.value_type(ctx.result(op, 0));
        if ctx.value_type(x) == ty {
            rw.replace_op(op, &[x]);
        } else {
            replace_with(rw, op, "arith.bitcast", &[x], &[ty]);
        }
        true
    }
}
