//! The `memref` dialect: buffers of a `memref` type, their allocation (`alloc`, `alloca`,
//! `dealloc`, `global`), element access (`load`, `store`), copies, and views of the same
//! memory with other shapes and strides (`cast`, `subview`, `reinterpret_cast`,
//! `collapse_shape`, `expand_shape`, `view`).
//!
//! Ops, properties, syntax and verifier messages follow upstream MLIR's `memref` dialect, so
//! that upstream `mlir-opt` reads what nart prints and the other way round. [`layout`] computes
//! the strides and offset a memref type stands for.

#![deny(missing_docs)]

pub mod layout;
pub mod ops;
pub mod syntax;
pub mod view;

use nart_ir::registry::{DialectDef, OpDef};
use nart_ir::{Context, Op};

pub use ops::*;
pub use view::{ViewOp, VIEW};

static OPS: [&OpDef; 15] = [
    &ALLOC,
    &ALLOCA,
    &CAST,
    &COLLAPSE_SHAPE,
    &COPY,
    &DEALLOC,
    &DIM,
    &EXPAND_SHAPE,
    &GET_GLOBAL,
    &GLOBAL,
    &LOAD,
    &REINTERPRET_CAST,
    &STORE,
    &SUBVIEW,
    &VIEW,
];

/// The declaration of the dialect.
pub fn dialect() -> DialectDef {
    DialectDef {
        name: "memref",
        summary: "Buffers and views of them.",
        description: "The `memref` dialect allocates buffers of the builtin `memref` type, reads \
and writes their elements, and makes views of the same memory with other sizes, strides and \
offsets. Constant data (a model's weights) lives in `memref.global`s.\n\n\
```mlir\nmemref.global \"private\" constant @w : memref<2xf32> = dense<[1.0, 2.0]>\n\
%w = memref.get_global @w : memref<2xf32>\n%a = memref.alloc(%n) : memref<?xf32>\n\
%v = memref.load %w[%i] : memref<2xf32>\nmemref.store %v, %a[%i] : memref<?xf32>\n\
memref.dealloc %a : memref<?xf32>\n```",
        ops: &OPS,
        materialize_constant: None,
        types: &[],
        attrs: &[],
        enums: &[],
    }
}

/// Registers the `memref` dialect, with upstream's names for the results of its ops
/// (`%alloc`, `%subview`, ...).
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(dialect());
    ctx.register_asm_result_name("memref.alloc", |_, _| Some("alloc".into()));
    ctx.register_asm_result_name("memref.alloca", |_, _| Some("alloca".into()));
    ctx.register_asm_result_name("memref.cast", |_, _| Some("cast".into()));
    ctx.register_asm_result_name("memref.dim", |_, _| Some("dim".into()));
    ctx.register_asm_result_name("memref.subview", |_, _| Some("subview".into()));
    ctx.register_asm_result_name("memref.reinterpret_cast", reinterpret_cast_name);
    ctx.register_asm_result_name("memref.collapse_shape", |_, _| {
        Some("collapse_shape".into())
    });
    ctx.register_asm_result_name("memref.expand_shape", |_, _| Some("expand_shape".into()));
}

fn reinterpret_cast_name(_: &Context, _: Op) -> Option<String> {
    Some("reinterpret_cast".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_are_up_to_date() {
        let text = nart_ir::docs::render_dialect_docs(&dialect());
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dialects/memref.md");
        if let Err(e) = nart_ir::docs::check_generated_file(&path, &text, "nart-dialect-memref") {
            panic!("{e}");
        }
    }
}
