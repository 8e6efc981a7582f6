//! The `vector` dialect: operations on vectors of the builtin `vector` type (the SIMD level of
//! the loop lowering): memory transfers (`transfer_read`, `transfer_write`, `load`, `store`),
//! building and taking apart vectors (`broadcast`, `from_elements`, `extract`, `insert`,
//! `shuffle`), and arithmetic that has no elementwise `arith` form (`fma`, `reduction`,
//! `outerproduct`, `contract`).
//!
//! Ops, properties, syntax and verifier messages follow upstream MLIR's `vector` dialect, so
//! that upstream `mlir-opt` reads what nart prints and the other way round.

#![deny(missing_docs)]

pub mod attrs;
pub mod ops;
pub mod syntax;

use nart_ir::registry::{DialectDef, OpDef};
use nart_ir::Context;

pub use ops::*;

static OPS: [&OpDef; 13] = [
    &BROADCAST,
    &CONTRACT,
    &EXTRACT,
    &FMA,
    &FROM_ELEMENTS,
    &INSERT,
    &LOAD,
    &OUTERPRODUCT,
    &REDUCTION,
    &SHUFFLE,
    &STORE,
    &TRANSFER_READ,
    &TRANSFER_WRITE,
];

/// The declaration of the dialect.
pub fn dialect() -> DialectDef {
    DialectDef {
        name: "vector",
        summary: "Operations on SIMD-sized vectors.",
        description: "The `vector` dialect holds the ops between loops over buffers and the \
target's SIMD instructions: transfers between memory and vectors, building and taking apart \
vectors, and fused or reducing arithmetic. Elementwise arithmetic on vectors is `arith` and \
`math` on vector types.\n\n\
```mlir\n%a = vector.load %m[%i, %j] : memref<8x16xf32>, vector<8xf32>\n\
%b = vector.broadcast %x : f32 to vector<8xf32>\n%c = vector.fma %a, %b, %acc : vector<8xf32>\n\
%s = vector.reduction <add>, %c : vector<8xf32> into f32\n```",
        ops: &OPS,
        materialize_constant: None,
        types: &[],
        attrs: &attrs::ATTRS,
        enums: &attrs::ENUMS,
    }
}

/// Registers the `vector` dialect (register `arith` too, for `vector.reduction`'s `fastmath`).
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(dialect());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_are_up_to_date() {
        let text = nart_ir::docs::render_dialect_docs(&dialect());
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dialects/vector.md");
        if let Err(e) = nart_ir::docs::check_generated_file(&path, &text, "nart-dialect-vector") {
            panic!("{e}");
        }
    }
}
