//! `memref.view`: a buffer of another shape and element type inside a 1-D buffer of bytes, at
//! a byte offset; how one arena holds many buffers.

use nart_ir::printer::type_to_string;
use nart_ir::registry::TypeConstraint;
use nart_ir::{Context, Diagnostic, Op, TypeData, DYNAMIC};
use nart_macros::op;

use crate::ops::{INDEX, MEMREF};

/// A 1-D memref of `i8`.
const BYTES: TypeConstraint = TypeConstraint::new(
    "1D memref of 8-bit signless integer values",
    |ctx, t| match ctx.type_data(t) {
        TypeData::MemRef { shape, elem, .. } => {
            shape.len() == 1
                && matches!(
                    ctx.type_data(*elem),
                    TypeData::Integer {
                        width: 8,
                        signedness: nart_ir::Signedness::Signless
                    }
                )
        }
        _ => false,
    },
);

fn verify_view(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let src = ctx.value_type(ctx.operand(op, 0));
    let res = ctx.value_type(ctx.result(op, 0));
    let err = |msg: String| Err(Diagnostic::error(ctx.op_loc(op), msg));
    let (
        TypeData::MemRef {
            layout: sl,
            memory_space: ss,
            ..
        },
        TypeData::MemRef {
            shape,
            layout: rl,
            memory_space: rs,
            ..
        },
    ) = (ctx.type_data(src), ctx.type_data(res))
    else {
        return Ok(());
    };
    if sl.is_some() {
        return err(format!(
            "unsupported map for base memref type '{}'",
            type_to_string(ctx, src)
        ));
    }
    if rl.is_some() {
        return err(format!(
            "unsupported map for result memref type '{}'",
            type_to_string(ctx, res)
        ));
    }
    if ss != rs {
        return err(format!(
            "different memory spaces specified for base memref type '{}' and view memref type '{}'",
            type_to_string(ctx, src),
            type_to_string(ctx, res)
        ));
    }
    let dynamic = shape.iter().filter(|&&d| d == DYNAMIC).count();
    let given = ctx.operands(op).len() - 2;
    if dynamic != given {
        return Err(ctx.op_error(
            op,
            format!("incorrect number of dynamic sizes, has {given}, expected {dynamic}"),
        ));
    }
    Ok(())
}

#[op(
    name = "memref.view",
    def = VIEW,
    operands(source: BYTES, byte_shift: INDEX, sizes: variadic(INDEX)),
    results(result: MEMREF),
    traits(Pure),
    verify = verify_view,
    format = "$source `[` $byte_shift `]` `` `[` $sizes `]` attr-dict `:` type($source) `to` type($result)",
)]
/// memref view operation
///
/// A buffer of the result's type (identity layout) whose first element is `byte_shift` bytes
/// into the 1-D byte buffer `source`, with one `index` operand per dynamic dimension. One
/// arena of bytes holds many buffers of different shapes and element types this way.
///
/// ```mlir
/// %v = memref.view %arena[%offset][] : memref<2048xi8> to memref<64x4xf32>
/// ```
pub struct ViewOp;
