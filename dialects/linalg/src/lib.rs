//! The `linalg` dialect: structured ops over tensors and memrefs, with upstream MLIR's names,
//! properties and custom syntax.
//!
//! A structured op is a perfect loop nest described as data: one indexing map per operand
//! (from the loops to the operand's indices), one iterator type per loop (`parallel` or
//! `reduction`), and a body computing the init (`outs`) elements from the input (`ins`)
//! elements. `linalg.generic` states all of it; the named ops (`linalg.matmul`,
//! `linalg.conv_2d_nchw_fchw`, `linalg.transpose`, ...) imply it from their kind and
//! attributes ([`named`]). Both answer through [`structured::StructuredOpInterface`], which
//! the verifier, [`transforms::generalize`] (`linalg-generalize-named-ops`) and the lowerings
//! use. This is the level where tiling, fusion and packing decisions are to be made.

#![deny(missing_docs)]

pub mod attrs;
pub mod builders;
pub mod named;
pub mod ops;
pub mod structured;
pub mod syntax;
pub mod transforms;

use nart_ir::registry::{DialectDef, OpDef};
use nart_ir::{Context, Op};

pub use attrs::IteratorType;
pub use ops::*;
pub use transforms::generalize::GeneralizeNamedOpsPass;

static OPS: [&OpDef; 15] = [
    &GENERIC,
    &YIELD,
    &INDEX,
    &FILL,
    &MATMUL,
    &BATCH_MATMUL,
    &CONV_2D_NCHW_FCHW,
    &DEPTHWISE_CONV_2D_NCHW_CHW,
    &POOLING_NCHW_MAX,
    &POOLING_NCHW_SUM,
    &COPY,
    &TRANSPOSE,
    &BROADCAST,
    &MAP,
    &REDUCE,
];

/// The declaration of the dialect.
pub fn dialect() -> DialectDef {
    DialectDef {
        name: "linalg",
        summary: "Structured operations on tensors and buffers.",
        description: "The `linalg` dialect holds structured ops: each is a loop nest given as \
data, with one affine indexing map per operand, one iterator type (`parallel` or `reduction`) \
per loop, and a body that computes an init element from input elements. `linalg.generic` \
spells everything out; named ops such as `linalg.matmul` or `linalg.conv_2d_nchw_fchw` imply \
it, and `linalg-generalize-named-ops` turns them into `linalg.generic`. On tensors an op \
returns the updated inits; on memrefs it writes them in place.\n\n\
```mlir\n%0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) \
outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>\n```",
        ops: &OPS,
        materialize_constant: None,
        types: &[],
        attrs: &attrs::ATTRS,
        enums: &attrs::ENUMS,
    }
}

/// Registers the `linalg` dialect (and the dialects its named ops' bodies use).
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(dialect());
    for name in [
        "linalg.transpose",
        "linalg.broadcast",
        "linalg.map",
        "linalg.reduce",
    ] {
        ctx.register_asm_result_name(name, result_name);
    }
}

/// Upstream's result names: `%transposed`, `%broadcasted`, `%mapped`, `%reduced`.
fn result_name(ctx: &Context, op: Op) -> Option<String> {
    Some(
        match ctx.op_name_str(op) {
            "linalg.transpose" => "transposed",
            "linalg.broadcast" => "broadcasted",
            "linalg.map" => "mapped",
            _ => "reduced",
        }
        .to_string(),
    )
}

/// Registers the passes of the dialect.
pub fn register_passes(registry: &mut nart_pass::PassRegistry) {
    registry.register(|| Box::new(GeneralizeNamedOpsPass::new()));
}

/// The reference page of the dialect (`docs/dialects/linalg.md`).
pub fn render_docs() -> String {
    nart_ir::docs::render_dialect_docs(&dialect())
}

#[cfg(test)]
mod tests;
