//! ONNX in and out: [`import_model`] reads an ONNX `ModelProto` into the `graph` dialect, and
//! [`export_model`] writes a graph-dialect module back as ONNX.
//!
//! An imported model is a `builtin.module` holding `func.func @main_graph`, whose arguments are
//! the graph inputs (initializers are `graph.constant` ops, not arguments; an initializer that a
//! graph input overrides is that argument's `onnx.default` value) and whose body holds
//! one `graph.<OpType>` op per node, normalized to opset 28, each located at
//! `loc("node_name"("model.onnx":0:0))`.
//! Model metadata is kept as `onnx.*` attributes of the module.

#![deny(missing_docs)]

mod checks;
mod containers;
mod contrib;
pub mod errors;
mod export;
mod import;
pub mod tensor;
pub mod upgrade;

pub use errors::TensorError;
pub use export::export_model;
pub use import::{import_file, import_file_with, import_model, import_model_with, ImportOptions};

/// Registers the dialects an imported module uses (`graph` and `func`).
pub fn register_dialects(ctx: &mut nart_ir::Context) {
    if !ctx.registry.has_dialect("graph") {
        nart_dialect_graph::register(ctx);
    }
    if !ctx.registry.has_dialect("func") {
        nart_dialect_func::register(ctx);
    }
}
