//! The `cf` dialect: unstructured control flow between the blocks of a region (`cf.br`,
//! `cf.cond_br`, `cf.switch`) and runtime assertions (`cf.assert`).
//!
//! Ops, attribute names and semantics follow upstream MLIR's `cf` dialect, so that upstream
//! `mlir-opt` reads the generic form nart prints and the other way round.

#![deny(missing_docs)]

pub mod canonicalize;
pub mod ops;
pub mod syntax;

use nart_ir::registry::{DialectDef, OpDef};
use nart_ir::{Block, Context, Location, Op, OperationState, Value};

pub use ops::{ASSERT, BR, COND_BR, SWITCH};

static OPS: [&OpDef; 4] = [&ASSERT, &BR, &COND_BR, &SWITCH];

/// The declaration of the dialect.
pub fn dialect() -> DialectDef {
    DialectDef {
        name: "cf",
        summary: "Unstructured control flow.",
        description: "The `cf` dialect holds terminators that branch between the blocks of a \
region, passing values to the successor's block arguments, and `cf.assert`.\n\n\
```mlir\nfunc.func @select(%c: i1, %a: i32, %b: i32) -> i32 {\n  \
cf.cond_br %c, ^bb1(%a : i32), ^bb1(%b : i32)\n^bb1(%x: i32):\n  return %x : i32\n}\n```",
        ops: &OPS,
        materialize_constant: None,
        types: &[],
        attrs: &[],
        enums: &[],
    }
}

/// Registers the `cf` dialect.
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(dialect());
}

/// Creates a detached `cf.br ^dest(args)`.
pub fn build_br(ctx: &mut Context, dest: Block, args: &[Value], loc: Location) -> Op {
    let state = OperationState::new(ctx, "cf.br", loc)
        .operands(args)
        .successors(&[dest]);
    ctx.create_op(state)
}

/// Creates a detached `cf.cond_br %cond, ^t(t_args), ^f(f_args)`.
pub fn build_cond_br(
    ctx: &mut Context,
    cond: Value,
    t: (Block, &[Value]),
    f: (Block, &[Value]),
    loc: Location,
) -> Op {
    let mut operands = vec![cond];
    operands.extend_from_slice(t.1);
    operands.extend_from_slice(f.1);
    let segments = segment_sizes(ctx, &[1, t.1.len() as i64, f.1.len() as i64]);
    let state = OperationState::new(ctx, "cf.cond_br", loc)
        .operands(&operands)
        .successors(&[t.0, f.0])
        .prop(ctx, "operandSegmentSizes", segments);
    ctx.create_op(state)
}

/// `array<i32: ...>`, as used by `operandSegmentSizes` and `case_operand_segments`.
pub fn segment_sizes(ctx: &mut Context, sizes: &[i64]) -> nart_ir::Attr {
    let elem = ctx.i32_type();
    ctx.intern_attr(nart_ir::AttrData::DenseArray {
        elem,
        data: nart_ir::DenseArrayData::Int(sizes.to_vec()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_are_up_to_date() {
        let text = nart_ir::docs::render_dialect_docs(&dialect());
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dialects/cf.md");
        if let Err(e) = nart_ir::docs::check_generated_file(&path, &text, "nart-dialect-cf") {
            panic!("{e}");
        }
    }
}
