//! Verifiers of the `arith` ops (the checks their declarations cannot express).

use super::*;

// ----- verifiers -----

fn ts(ctx: &Context, t: Type) -> String {
    type_to_string(ctx, t)
}

pub(super) fn verify_constant(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let ty = ctx.value_type(ctx.result(op, 0));
    if let TypeData::Integer { signedness, .. } = ctx.type_data(ty) {
        if *signedness != Signedness::Signless {
            return Err(ctx.op_error(op, "integer return type must be signless"));
        }
    }
    let value = ctx
        .attr(op, "value")
        .expect("the structural verifier checked 'value'");
    if !matches!(
        ctx.attr_data(value),
        AttrData::Integer { .. }
            | AttrData::WideInteger { .. }
            | AttrData::Float { .. }
            | AttrData::DenseElements { .. }
            | AttrData::DenseResource { .. }
    ) {
        return Err(ctx.op_error(op, "value must be an integer, float, or elements attribute"));
    }
    let same = ctx.typed_attr_type(value) == Some(ty);
    if !same {
        return Err(ctx.op_error(
            op,
            "failed to verify that all of {value, result} have same type",
        ));
    }
    Ok(())
}

/// The `i1` type with the shape of `ty`, compared structurally.
fn is_i1_same_shape(ctx: &Context, ty: Type, of: Type) -> bool {
    let i1 = matches!(
        ctx.type_data(ctx.element_type(ty)),
        TypeData::Integer {
            width: 1,
            signedness: Signedness::Signless
        }
    );
    let shape_kind = |t: Type| match ctx.type_data(t) {
        TypeData::RankedTensor { shape, .. } => (1, Some(shape.clone()), None),
        TypeData::UnrankedTensor { .. } => (2, None, None),
        TypeData::Vector {
            shape, scalable, ..
        } => (3, Some(shape.clone()), Some(scalable.clone())),
        _ => (0, None, None),
    };
    i1 && shape_kind(ty) == shape_kind(of)
}

/// The result of `cmpi`/`cmpf` is `i1` of the operands' shape (their equal types are the
/// `SameTypeOperands` trait's check).
pub(super) fn verify_compare(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let lhs = ctx.value_type(ctx.operand(op, 0));
    if !is_i1_same_shape(ctx, ctx.value_type(ctx.result(op, 0)), lhs) {
        return Err(ctx.op_error(
            op,
            "failed to verify that result type has i1 element type and same shape as operands",
        ));
    }
    Ok(())
}

pub(super) fn verify_select(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let (t, f) = (
        ctx.value_type(ctx.operand(op, 1)),
        ctx.value_type(ctx.operand(op, 2)),
    );
    let r = ctx.value_type(ctx.result(op, 0));
    if t != f || t != r {
        return Err(ctx.op_error(
            op,
            "failed to verify that all of {true_value, false_value, result} have same type",
        ));
    }
    let cond = ctx.value_type(ctx.operand(op, 0));
    let scalar_i1 = ctx.element_type(cond) == cond;
    if !scalar_i1 && !is_i1_same_shape(ctx, cond, r) {
        return Err(ctx.op_error(
            op,
            format!(
                "expected condition type to have the same shape as the result type, expected \
                 i1 with the shape of '{}', but got '{}'",
                ts(ctx, r),
                ts(ctx, cond)
            ),
        ));
    }
    Ok(())
}

pub(super) fn verify_addui_extended(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let lhs = ctx.value_type(ctx.operand(op, 0));
    if ctx.value_type(ctx.operand(op, 1)) != lhs || ctx.value_type(ctx.result(op, 0)) != lhs {
        return Err(ctx.op_error(
            op,
            "failed to verify that all of {lhs, rhs, sum} have same type",
        ));
    }
    if !is_i1_same_shape(ctx, ctx.value_type(ctx.result(op, 1)), lhs) {
        return Err(ctx.op_error(
            op,
            "failed to verify that overflow type has i1 element type and same shape as sum",
        ));
    }
    Ok(())
}

fn cast_types(ctx: &Context, op: Op) -> (Type, Type) {
    (
        ctx.value_type(ctx.operand(op, 0)),
        ctx.value_type(ctx.result(op, 0)),
    )
}

fn width_of(ctx: &Context, ty: Type) -> Option<u32> {
    match ctx.type_data(ctx.element_type(ty)) {
        TypeData::Integer { width, .. } => Some(*width),
        TypeData::Float(k) => Some(k.width()),
        _ => None,
    }
}

/// Checks the element width change of a cast: `wider` requires the result to be wider.
/// Like upstream, a width change the wrong way makes the types cast incompatible.
fn check_width_change(ctx: &Context, op: Op, wider: bool) -> Result<(), Diagnostic> {
    let (src, dst) = cast_types(ctx, op);
    let (Some(ws), Some(wd)) = (width_of(ctx, src), width_of(ctx, dst)) else {
        return Ok(());
    };
    let ok = if wider { wd > ws } else { wd < ws };
    if ok {
        return Ok(());
    }
    Err(incompatible(ctx, op))
}

pub(super) fn verify_wider_int(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    check_width_change(ctx, op, true)
}

pub(super) fn verify_narrower_int(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    check_width_change(ctx, op, false)
}

pub(super) fn verify_wider_float(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    check_width_change(ctx, op, true)
}

pub(super) fn verify_narrower_float(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    check_width_change(ctx, op, false)
}

fn incompatible(ctx: &Context, op: Op) -> Diagnostic {
    let (src, dst) = cast_types(ctx, op);
    ctx.op_error(
        op,
        format!(
            "operand type '{}' and result type '{}' are cast incompatible",
            ts(ctx, src),
            ts(ctx, dst)
        ),
    )
}

pub(super) fn verify_bitcast(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let (src, dst) = cast_types(ctx, op);
    if width_of(ctx, src) != width_of(ctx, dst) {
        return Err(incompatible(ctx, op));
    }
    Ok(())
}

pub(super) fn verify_index_cast(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let (src, dst) = cast_types(ctx, op);
    let is_index = |t: Type| matches!(ctx.type_data(ctx.element_type(t)), TypeData::Index);
    if is_index(src) == is_index(dst) {
        return Err(incompatible(ctx, op));
    }
    Ok(())
}
