//! The `tensor` dialect: making, slicing, padding, reshaping, joining and reading tensors, with
//! upstream MLIR's op names, properties and custom syntax.
//!
//! It holds what the lowering from the graph dialect to `linalg` needs: `tensor.empty` makes
//! the destination of a structured op, `extract_slice`/`insert_slice`/`pad` move boxes of
//! data, `collapse_shape`/`expand_shape` reshape without moving data, `concat` joins, and
//! `cast`/`dim`/`extract` look at shapes and elements.

#![deny(missing_docs)]

pub mod ops;
pub mod syntax;
pub mod util;

use nart_ir::registry::{DialectDef, OpDef};
use nart_ir::Context;

pub use ops::*;

static OPS: [&OpDef; 11] = [
    &EMPTY,
    &CAST,
    &DIM,
    &EXTRACT,
    &EXTRACT_SLICE,
    &INSERT_SLICE,
    &PAD,
    &YIELD,
    &COLLAPSE_SHAPE,
    &EXPAND_SHAPE,
    &CONCAT,
];

/// The declaration of the dialect.
pub fn dialect() -> DialectDef {
    DialectDef {
        name: "tensor",
        summary: "Operations on tensor values.",
        description: "The `tensor` dialect creates and transforms tensors as values: an empty \
tensor of a shape to write into, slices read and written by offsets, sizes and strides, padding, \
reshapes by grouping dimensions, concatenation, casts between static and dynamic shapes, and \
reading one element or one dimension.\n\n\
```mlir\n%e = tensor.empty() : tensor<4x8xf32>\n\
%s = tensor.extract_slice %t[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>\n\
%c = tensor.collapse_shape %s [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>\n```",
        ops: &OPS,
        materialize_constant: None,
        types: &[],
        attrs: &[],
        enums: &[],
    }
}

/// Registers the `tensor` dialect.
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(dialect());
}

/// The reference page of the dialect (`docs/dialects/tensor.md`).
pub fn render_docs() -> String {
    nart_ir::docs::render_dialect_docs(&dialect())
}

#[cfg(test)]
mod tests;
