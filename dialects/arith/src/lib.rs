//! The `arith` dialect: integer and floating-point arithmetic, comparisons, `select` and casts
//! on scalars and, elementwise, on tensors and vectors of them.
//!
//! Ops, attribute names and semantics follow upstream MLIR's `arith` dialect, so that upstream
//! `mlir-opt` reads the generic form nart prints and the other way round.
//! Folders are in [`fold`], canonicalization patterns in [`canonicalize`], and constants for
//! folding are built by [`materialize_constant`].

#![deny(missing_docs)]

pub mod attrs;
pub mod canonicalize;
pub mod consts;
pub mod fold;
pub mod ops;
pub mod syntax;

use nart_ir::registry::{DialectDef, OpDef};
use nart_ir::{Attr, AttrData, Context, Location, Op, OperationState, Type, Uniquer, Value};

pub use ops::*;

static OPS: [&OpDef; 49] = [
    &CONSTANT,
    &ADDI,
    &SUBI,
    &MULI,
    &DIVSI,
    &DIVUI,
    &CEILDIVSI,
    &CEILDIVUI,
    &FLOORDIVSI,
    &REMSI,
    &REMUI,
    &ANDI,
    &ORI,
    &XORI,
    &SHLI,
    &SHRSI,
    &SHRUI,
    &MAXSI,
    &MAXUI,
    &MINSI,
    &MINUI,
    &ADDUI_EXTENDED,
    &MULSI_EXTENDED,
    &MULUI_EXTENDED,
    &ADDF,
    &SUBF,
    &MULF,
    &DIVF,
    &REMF,
    &NEGF,
    &MAXIMUMF,
    &MINIMUMF,
    &MAXNUMF,
    &MINNUMF,
    &CMPI,
    &CMPF,
    &SELECT,
    &EXTSI,
    &EXTUI,
    &TRUNCI,
    &EXTF,
    &TRUNCF,
    &SITOFP,
    &UITOFP,
    &FPTOSI,
    &FPTOUI,
    &BITCAST,
    &INDEX_CAST,
    &INDEX_CASTUI,
];

/// The declaration of the dialect.
pub fn dialect() -> DialectDef {
    DialectDef {
        name: "arith",
        summary: "Basic integer and floating-point arithmetic.",
        description: "The `arith` dialect holds the arithmetic of signless integers (`iN` and \
`index`) and floats: binary operations, comparisons, `select`, constants and casts.\n\
Every op also applies elementwise to tensors and vectors of its scalar types.\n\
Integer ops read their operands as signed or unsigned as their name says; the integer types \
themselves carry no sign.\n\n\
```mlir\n%c1 = arith.constant 1 : i32\n%0 = arith.addi %arg0, %c1 : i32\n\
%1 = arith.cmpi slt, %0, %arg1 : i32\n%2 = arith.select %1, %0, %arg1 : i32\n```",
        ops: &OPS,
        materialize_constant: Some(materialize_constant),
        types: &[],
        attrs: &attrs::ATTRS,
        enums: &attrs::ENUMS,
    }
}

/// Registers the `arith` dialect.
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(dialect());
    ctx.register_asm_result_name("arith.constant", constant_result_name);
}

/// The printer's name for an `arith.constant` result, as upstream's `getAsmResultNames`:
/// `%true`/`%false` for `i1`, `%c42_i32` for integers (`%c-1_i64`), `%c0` for `index`,
/// `%cst` for everything else.
pub fn constant_result_name(ctx: &Context, op: Op) -> Option<String> {
    let value = ctx.attr(op, "value")?;
    // Upstream prints the value as a signed number of the type's width.
    let Some(v) = ctx.attr_apint(value) else {
        return Some("cst".to_string());
    };
    let result_ty = ctx.value_type(ctx.result(op, 0));
    match ctx.type_data(result_ty) {
        nart_ir::TypeData::Integer { width: 1, .. } => {
            Some(if v.is_zero() { "false" } else { "true" }.to_string())
        }
        nart_ir::TypeData::Integer { .. } => {
            let ty_text = nart_ir::printer::type_to_string(ctx, result_ty);
            Some(format!("c{}_{ty_text}", v.to_decimal(true)))
        }
        _ => Some(format!("c{}", v.to_decimal(true))),
    }
}

pub use attrs::{fastmath_none, overflow_none};

/// An [`OperationState`] for arith op `name`; its default properties come with `create_op`.
pub fn op_state(
    ctx: &mut Uniquer,
    name: &str,
    operands: &[Value],
    results: &[Type],
    loc: Location,
) -> OperationState {
    // Default-valued properties are added by `Context::create_op` (see `register`).
    OperationState::new(ctx, name, loc)
        .operands(operands)
        .results(results)
}

/// Creates a detached arith op `name(operands) : results` with its default properties.
pub fn build(
    ctx: &mut Context,
    name: &str,
    operands: &[Value],
    results: &[Type],
    loc: Location,
) -> Op {
    let state = op_state(ctx, name, operands, results, loc);
    ctx.create_op(state)
}

/// The state of an `arith.constant` holding `value` of type `ty`.
pub fn constant_state(ctx: &mut Uniquer, value: Attr, ty: Type, loc: Location) -> OperationState {
    OperationState::new(ctx, "arith.constant", loc)
        .results(&[ty])
        .prop(ctx, "value", value)
}

/// Creates a detached `arith.constant` holding `value` of type `ty`.
pub fn build_constant(ctx: &mut Context, value: Attr, ty: Type, loc: Location) -> Op {
    let state = constant_state(ctx, value, ty, loc);
    ctx.create_op(state)
}

/// Builds the `arith.constant` for a folded value: integer, float or dense elements attributes
/// whose type is `ty`; anything else is not this dialect's to materialize.
pub fn materialize_constant(ctx: &mut Context, value: Attr, ty: Type, loc: Location) -> Option<Op> {
    let ok = matches!(
        ctx.attr_data(value),
        AttrData::Integer { .. }
            | AttrData::WideInteger { .. }
            | AttrData::Float { .. }
            | AttrData::DenseElements { .. }
    ) && ctx.typed_attr_type(value) == Some(ty);
    ok.then(|| build_constant(ctx, value, ty, loc))
}

#[cfg(test)]
mod tests;
