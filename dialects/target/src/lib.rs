//! The `target` dialect: the ops a partitioned graph is made of.
//!
//! The partitioner (`nart-target`) outlines each group of ops it places on one target into a
//! `target.segment`, whose single-block region holds those ops and ends in `target.yield`;
//! compiling a segment replaces it with a `target.compiled`, which holds the target's artifact
//! as attributes (a compiled network is just another op). Both take the values the segment
//! reads as operands and give the values it produces as results, so a partitioned function is
//! still one function whose top level says which target runs what.
//!
//! ```mlir
//! %0 = target.segment "interp"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
//! ^bb0(%a: tensor<4xf32>):
//!   %1 = "graph.Relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
//!   target.yield %1 : tensor<4xf32>
//! }
//! %2 = target.compiled "interp"(%0) {artifact = "...", format = "mlir-text",
//!        sdk_version = "nart 0.1.0"} : (tensor<4xf32>) -> tensor<4xf32>
//! ```

#![deny(missing_docs)]

pub mod ops;

use nart_ir::{Context, DialectDef, OpDef};

pub use ops::*;

static OPS: [&OpDef; 3] = [&ops::COMPILED, &ops::SEGMENT, &ops::YIELD];

/// The declaration of the dialect.
pub fn dialect() -> DialectDef {
    DialectDef {
        summary: "Segments of a partitioned graph: ops placed on one target, before and after \
compilation.",
        description: "The partitioner outlines the ops it places on one target into a \
`target.segment`, whose single-block region holds them and ends in `target.yield`; compiling \
the segment replaces it with a `target.compiled` that holds the target's artifact. Both take \
the values the segment reads as operands and give the values it produces as results.\n\n\
```mlir\n%0 = target.segment \"interp\"(%x) : (tensor<4xf32>) -> tensor<4xf32> {\n\
^bb0(%a: tensor<4xf32>):\n  %1 = \"graph.Relu\"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n  \
target.yield %1 : tensor<4xf32>\n}\n```",
        ops: &OPS,
        ..DialectDef::new("target")
    }
}

/// Registers the `target` dialect.
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(dialect());
}

/// Renders `docs/dialects/target.md` from the declarations.
pub fn render_docs() -> String {
    nart_ir::docs::render_dialect_docs(&dialect())
}

#[cfg(test)]
mod tests;
