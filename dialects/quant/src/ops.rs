//! Upstream's casts: `quant.qcast`, `quant.dcast` and `quant.scast`, with upstream's checks and
//! messages.

use nart_ir::registry::{constraints as c, TypeConstraint};
use nart_ir::{Context, Diagnostic, Op, Type, TypeData};
use nart_macros::op;

use crate::types::{AnyQuantizedType, UniformQuantizedType};

fn element(ctx: &Context, ty: Type) -> Type {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { elem, .. } | TypeData::UnrankedTensor { elem } => *elem,
        _ => ty,
    }
}

fn scalar_or_tensor(ctx: &Context, ty: Type) -> bool {
    !matches!(
        ctx.type_data(ty),
        TypeData::Vector { .. } | TypeData::MemRef { .. } | TypeData::UnrankedMemRef { .. }
    )
}

fn is_quantized(ctx: &Context, ty: Type) -> bool {
    ctx.type_as::<UniformQuantizedType>(ty).is_some()
        || ctx.type_as::<AnyQuantizedType>(ty).is_some()
}

/// A quantized scalar, or a tensor of them.
const QUANTIZED_LIKE: TypeConstraint =
    TypeConstraint::new("scalar or tensor of quantized type", |ctx, t| {
        scalar_or_tensor(ctx, t) && is_quantized(ctx, element(ctx, t))
    });

/// A float scalar, or a tensor of them.
const FLOAT_LIKE: TypeConstraint =
    TypeConstraint::new("scalar or tensor of floating-point", |ctx, t| {
        scalar_or_tensor(ctx, t) && c::is_float(ctx, element(ctx, t))
    });

/// A signless integer or quantized scalar, or a tensor of them.
const STORAGE_OR_QUANTIZED: TypeConstraint = TypeConstraint::new(
    "scalar or tensor of signless integer or quantized type",
    |ctx, t| {
        let e = element(ctx, t);
        scalar_or_tensor(ctx, t) && (c::is_signless_int(ctx, e) || is_quantized(ctx, e))
    },
);

/// Whether `a` and `b` are both scalars, or both tensors of the same shape.
fn same_shape(ctx: &Context, a: Type, b: Type) -> bool {
    match (ctx.type_data(a), ctx.type_data(b)) {
        (TypeData::RankedTensor { shape: x, .. }, TypeData::RankedTensor { shape: y, .. }) => {
            x == y
        }
        (TypeData::UnrankedTensor { .. }, TypeData::UnrankedTensor { .. }) => true,
        (TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. }, _)
        | (_, TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. }) => false,
        _ => true,
    }
}

/// The checks every cast shares: matching shapes, then the quantized side's parameters
/// against the tensor's shape.
fn verify_cast(ctx: &Context, op: Op, quantized: Type, other: Type) -> Result<(), Diagnostic> {
    if !same_shape(ctx, quantized, other) {
        return Err(ctx.op_error(
            op,
            "failed to verify that input and result are both scalars or both tensors with \
             matching shape",
        ));
    }
    if let (Some(q), Some(shape)) = (
        ctx.type_as::<UniformQuantizedType>(element(ctx, quantized)),
        ctx.shape_of(quantized),
    ) {
        q.check_shape(shape).map_err(|m| ctx.op_error(op, m))?;
    }
    Ok(())
}

fn verify_float_cast(
    ctx: &Context,
    op: Op,
    quantized: Type,
    float: Type,
) -> Result<(), Diagnostic> {
    verify_cast(ctx, op, quantized, float)?;
    let d = ctx.type_data(element(ctx, quantized));
    let expressed = d
        .downcast::<UniformQuantizedType>()
        .map(|q| q.expressed)
        .or_else(|| d.downcast::<AnyQuantizedType>().map(|q| q.expressed));
    if expressed != Some(element(ctx, float)) {
        return Err(ctx.op_error(
            op,
            "expressed type in quantized type expected to match float type",
        ));
    }
    Ok(())
}

fn verify_qcast(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let (input, result) = (
        ctx.value_type(ctx.operand(op, 0)),
        ctx.value_type(ctx.result(op, 0)),
    );
    verify_float_cast(ctx, op, result, input)
}

fn verify_dcast(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let (input, result) = (
        ctx.value_type(ctx.operand(op, 0)),
        ctx.value_type(ctx.result(op, 0)),
    );
    verify_float_cast(ctx, op, input, result)
}

fn verify_scast(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let (input, result) = (
        ctx.value_type(ctx.operand(op, 0)),
        ctx.value_type(ctx.result(op, 0)),
    );
    let (qi, qr) = (
        is_quantized(ctx, element(ctx, input)),
        is_quantized(ctx, element(ctx, result)),
    );
    if qi == qr {
        return Err(ctx.op_error(
            op,
            "failed to verify that input must be integer and result must be quantized, or \
             vice versa",
        ));
    }
    let (quantized, int) = if qi { (input, result) } else { (result, input) };
    verify_cast(ctx, op, quantized, int)?;
    let storage = ctx
        .type_as::<UniformQuantizedType>(element(ctx, quantized))
        .map(|q| (q.storage_width, q.signed))
        .or_else(|| {
            ctx.type_as::<AnyQuantizedType>(element(ctx, quantized))
                .map(|q| (q.storage_width, q.signed))
        });
    let int_width = match ctx.type_data(element(ctx, int)) {
        TypeData::Integer { width, .. } => Some(*width),
        _ => None,
    };
    if storage.map(|s| s.0) != int_width {
        return Err(ctx.op_error(
            op,
            "storage type in quantized type expected to match integer type",
        ));
    }
    Ok(())
}

#[op(
    name = "quant.qcast",
    def = QCAST,
    operands(input: FLOAT_LIKE),
    results(result: QUANTIZED_LIKE),
    traits(Pure),
    verify = verify_qcast,
    format = "$input attr-dict `:` type($input) `to` type($result)",
)]
/// Quantize cast operation
///
/// Quantizes a float (or a tensor of floats) to the quantized type of the result: `q = clamp(round(r / scale) + zero_point)`, rounding half to even and clamping to the storage range.
///
/// ```mlir
/// %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.0125:-3>>
/// ```
pub struct QuantizeCastOp;

#[op(
    name = "quant.dcast",
    def = DCAST,
    operands(input: QUANTIZED_LIKE),
    results(result: FLOAT_LIKE),
    traits(Pure),
    verify = verify_dcast,
    format = "$input attr-dict `:` type($input) `to` type($result)",
)]
/// Dequantize cast operation
///
/// Turns a quantized value back into the float it stands for: `r = scale * (q - zero_point)`.
///
/// ```mlir
/// %x = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 0.0125:-3>> to tensor<4xf32>
/// ```
pub struct DequantizeCastOp;

#[op(
    name = "quant.scast",
    def = SCAST,
    operands(input: STORAGE_OR_QUANTIZED),
    results(result: STORAGE_OR_QUANTIZED),
    traits(Pure),
    verify = verify_scast,
    format = "$input attr-dict `:` type($input) `to` type($result)",
)]
/// Storage cast operation
///
/// Reinterprets a quantized value as its storage integers, or integers as a quantized value, without changing bits.
///
/// ```mlir
/// %s = quant.scast %q : tensor<4x!quant.uniform<i8:f32, 0.0125:-3>> to tensor<4xi8>
/// ```
pub struct StorageCastOp;
