//! Verifiers of the `arith` ops (the checks their declarations cannot express).
//!
//! Upstream checks some of these as ODS predicates (`PredOpTrait`s such as `AllTypesMatch`),
//! which run with the op's invariants, before its native traits (`SameOperandsAndResultShape`,
//! `Elementwise`) and its own verifier; here they are traits the ops list first, so that an
//! op with several problems reports the one upstream reports.

use nart_ir::printer::type_data_to_string;
use nart_ir::Trait;

use super::*;

fn ts(ctx: &Context, t: Type) -> String {
    type_to_string(ctx, t)
}

fn operand_type(ctx: &Context, op: Op, i: usize) -> Type {
    ctx.value_type(ctx.operand(op, i))
}

fn result_type(ctx: &Context, op: Op, i: usize) -> Type {
    ctx.value_type(ctx.result(op, i))
}

/// Upstream's `AllTypesMatch` message over the named values.
fn all_types_match(ctx: &Context, op: Op, names: &str, types: &[Type]) -> Result<(), Diagnostic> {
    if types.windows(2).any(|w| w[0] != w[1]) {
        return Err(ctx.op_error(
            op,
            format!("failed to verify that all of {{{names}}} have same type"),
        ));
    }
    Ok(())
}

// ----- predicate traits -----

/// `AllTypesMatch<["lhs", "rhs", "sum"]>` of `arith.addui_extended`.
pub(super) const SUM_TYPES_MATCH: Trait = Trait {
    verify: Some(|ctx, op| {
        let types = [
            operand_type(ctx, op, 0),
            operand_type(ctx, op, 1),
            result_type(ctx, op, 0),
        ];
        all_types_match(ctx, op, "lhs, rhs, sum", &types)
    }),
    ..Trait::marker(
        "AllTypesMatch<lhs, rhs, sum>",
        "`lhs`, `rhs` and `sum` have one type",
    )
};

/// `AllTypesMatch<["lhs", "rhs", "low", "high"]>` of the extended multiplications.
pub(super) const LOW_HIGH_TYPES_MATCH: Trait = Trait {
    verify: Some(|ctx, op| {
        let types = [
            operand_type(ctx, op, 0),
            operand_type(ctx, op, 1),
            result_type(ctx, op, 0),
            result_type(ctx, op, 1),
        ];
        all_types_match(ctx, op, "lhs, rhs, low, high", &types)
    }),
    ..Trait::marker(
        "AllTypesMatch<lhs, rhs, low, high>",
        "`lhs`, `rhs`, `low` and `high` have one type",
    )
};

/// `AllTypesMatch<["true_value", "false_value", "result"]>` of `arith.select`.
pub(super) const SELECT_TYPES_MATCH: Trait = Trait {
    verify: Some(|ctx, op| {
        let types = [
            operand_type(ctx, op, 1),
            operand_type(ctx, op, 2),
            result_type(ctx, op, 0),
        ];
        all_types_match(ctx, op, "true_value, false_value, result", &types)
    }),
    ..Trait::marker(
        "AllTypesMatch<true_value, false_value, result>",
        "both choices and the result have one type",
    )
};

/// The type with the shape (and tensor encoding) of `of` and the element type `i1`, MLIR's
/// `getI1SameShape`; `i1` is an interned `i1`.
fn i1_same_shape(ctx: &Context, of: Type, i1: Type) -> TypeData {
    match ctx.type_data(of).clone() {
        TypeData::RankedTensor {
            shape, encoding, ..
        } => TypeData::RankedTensor {
            shape,
            elem: i1,
            encoding,
        },
        TypeData::UnrankedTensor { .. } => TypeData::UnrankedTensor { elem: i1 },
        TypeData::Vector {
            shape, scalable, ..
        } => TypeData::Vector {
            shape,
            scalable,
            elem: i1,
        },
        _ => ctx.type_data(i1).clone(),
    }
}

fn is_i1(ctx: &Context, t: Type) -> bool {
    matches!(
        ctx.type_data(t),
        TypeData::Integer {
            width: 1,
            signedness: Signedness::Signless
        }
    )
}

/// The `TypesMatchWith` of comparisons: the result is `i1` with the operands' shape.
pub(super) const COMPARE_RESULT_TYPE: Trait = Trait {
    verify: Some(|ctx, op| {
        let (lhs, res) = (operand_type(ctx, op, 0), result_type(ctx, op, 0));
        let i1 = ctx.element_type(res);
        if !is_i1(ctx, i1) || ctx.type_data(res) != &i1_same_shape(ctx, lhs, i1) {
            return Err(ctx.op_error(
                op,
                "failed to verify that result type has i1 element type and same shape as operands",
            ));
        }
        Ok(())
    }),
    ..Trait::marker(
        "TypesMatchWith<result, i1 of the shape of lhs>",
        "the result is `i1` with the shape of the operands",
    )
};

/// `BooleanConditionOrMatchingShape<"condition", "result">` of `arith.select`: the condition
/// is `i1`, or has the result's dimensions (scalable or not, of any kind: the `Elementwise`
/// trait and the verifier check the rest).
pub(super) const CONDITION_SHAPE: Trait = Trait {
    verify: Some(|ctx, op| {
        let (cond, res) = (operand_type(ctx, op, 0), result_type(ctx, op, 0));
        let dims = |t: Type| match ctx.type_data(t) {
            TypeData::RankedTensor { shape, .. }
            | TypeData::Vector { shape, .. }
            | TypeData::MemRef { shape, .. } => Some(Some(shape)),
            TypeData::UnrankedTensor { .. } | TypeData::UnrankedMemRef { .. } => Some(None),
            _ => None,
        };
        let matching = dims(cond).is_some() && dims(cond) == dims(res);
        if !is_i1(ctx, cond) && !matching {
            return Err(ctx.op_error(
                op,
                "failed to verify that condition is signless i1 or has matching shape",
            ));
        }
        Ok(())
    }),
    ..Trait::marker(
        "BooleanConditionOrMatchingShape<condition, result>",
        "the condition is `i1` or has the result's shape",
    )
};

/// `SameInputOutputTensorDims` of the casts: when the operand or the result is a tensor, both
/// are tensors with equal dimensions (a dynamic dimension only equals a dynamic one). As
/// upstream, an unranked tensor never matches.
pub(super) const SAME_INPUT_OUTPUT_TENSOR_DIMS: Trait = Trait {
    verify: Some(|ctx, op| {
        let dims = |t: Type| match ctx.type_data(t) {
            TypeData::RankedTensor { shape, .. } => Some(shape.as_slice()),
            TypeData::UnrankedTensor { .. } => None,
            _ => Some(&[][..]),
        };
        let (src, dst) = cast_types(ctx, op);
        match (dims(src), dims(dst)) {
            (Some(a), Some(b)) if a == b => Ok(()),
            _ => Err(ctx.op_error(
                op,
                "failed to verify that input and output have the same tensor dimensions",
            )),
        }
    }),
    ..Trait::marker(
        "SameInputOutputTensorDims",
        "tensor operand and result have equal dimensions",
    )
};

// ----- verifiers -----

pub(super) fn verify_constant(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let ty = result_type(ctx, op, 0);
    let value = ctx
        .attr(op, "value")
        .expect("the structural verifier checked 'value'");
    // `AllTypesMatch<["value", "result"]>`, checked with the invariants.
    if ctx.typed_attr_type(value) != Some(ty) {
        return Err(ctx.op_error(
            op,
            "failed to verify that all of {value, result} have same type",
        ));
    }
    if let TypeData::Integer { signedness, .. } = ctx.type_data(ty) {
        if *signedness != Signedness::Signless {
            return Err(ctx.op_error(op, "integer return type must be signless"));
        }
    }
    let splat = match ctx.attr_data(value) {
        AttrData::Integer { .. } | AttrData::WideInteger { .. } | AttrData::Float { .. } => true,
        AttrData::DenseElements { data, .. } => matches!(data, nart_ir::DenseData::Splat(_)),
        AttrData::DenseResource { .. } => false,
        _ => return Err(ctx.op_error(op, "value must be an integer, float, or elements attribute")),
    };
    let scalable =
        matches!(ctx.type_data(ty), TypeData::Vector { scalable, .. } if scalable.contains(&true));
    if scalable && !splat {
        // Upstream's spelling, typo included.
        return Err(ctx.op_error(
            op,
            "intializing scalable vectors with elements attribute is not supported unless \
             it's a vector splat",
        ));
    }
    Ok(())
}

/// `arith.select`'s own check, after the traits: a shaped condition is `i1` of the result's
/// exact shape (scalable dimensions and tensor encoding included).
pub(super) fn verify_select(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let (cond, res) = (operand_type(ctx, op, 0), result_type(ctx, op, 0));
    if is_i1(ctx, cond) {
        return Ok(());
    }
    if !matches!(
        ctx.type_data(res),
        TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. } | TypeData::Vector { .. }
    ) {
        return Err(ctx.op_error(
            op,
            format!(
                "expected condition to be a signless i1, but got '{}'",
                ts(ctx, cond)
            ),
        ));
    }
    let expected = i1_same_shape(ctx, res, ctx.element_type(cond));
    if ctx.type_data(cond) != &expected {
        return Err(ctx.op_error(
            op,
            format!(
                "expected condition type to have the same shape as the result type, expected \
                 '{}', but got '{}'",
                type_data_to_string(ctx, &expected),
                ts(ctx, cond)
            ),
        ));
    }
    Ok(())
}

fn cast_types(ctx: &Context, op: Op) -> (Type, Type) {
    (operand_type(ctx, op, 0), result_type(ctx, op, 0))
}

fn width_of(ctx: &Context, ty: Type) -> Option<u32> {
    match ctx.type_data(ctx.element_type(ty)) {
        TypeData::Integer { width, .. } => Some(*width),
        TypeData::Float(k) => Some(k.width()),
        _ => None,
    }
}

/// The part of every cast's compatibility that does not depend on the element types (upstream's
/// `areValidCastInputsAndOutputs`): ranked tensors of one encoding and compatible shapes.
fn valid_cast(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let (src, dst) = cast_types(ctx, op);
    let encoding = |t: Type| match ctx.type_data(t) {
        TypeData::RankedTensor { encoding, .. } => Some(*encoding),
        _ => None,
    };
    let same_encoding = match (encoding(src), encoding(dst)) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };
    if !same_encoding || !nart_ir::traits::compatible_shape(ctx, src, dst) {
        return Err(incompatible(ctx, op));
    }
    Ok(())
}

/// Checks the element width change of a cast: `wider` requires the result to be wider.
/// Like upstream, a width change the wrong way makes the types cast incompatible.
fn check_width_change(ctx: &Context, op: Op, wider: bool) -> Result<(), Diagnostic> {
    valid_cast(ctx, op)?;
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

/// Casts between integers and floats: their type constraints say the rest.
pub(super) fn verify_int_float_cast(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    valid_cast(ctx, op)
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
    valid_cast(ctx, op)?;
    let (src, dst) = cast_types(ctx, op);
    if width_of(ctx, src) != width_of(ctx, dst) {
        return Err(incompatible(ctx, op));
    }
    Ok(())
}

pub(super) fn verify_index_cast(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    valid_cast(ctx, op)?;
    let (src, dst) = cast_types(ctx, op);
    let is_index = |t: Type| matches!(ctx.type_data(ctx.element_type(t)), TypeData::Index);
    if is_index(src) == is_index(dst) {
        return Err(incompatible(ctx, op));
    }
    Ok(())
}
