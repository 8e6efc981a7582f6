//! Lowerings into and out of the structured (`linalg`) level, each a pass written with the
//! core's dialect conversion (`nart_rewrite::conversion`):
//!
//! | pass | what it does |
//! |---|---|
//! | `convert-graph-to-linalg` | graph ops on static shapes → `linalg` (named ops and `linalg.generic`), `tensor` and `arith` ops on tensors; unsigned tensors → signless ones, and ONNX's quantization ops bit-exact with the interpreter (the `intq_ops` module) |
//! | `convert-qnn-to-linalg` | `quant` casts and `qnn` integer ops → `linalg.generic`s on the storage integers, bit-exact with the interpreter's kernels |
//! | `linalg-vectorize` | parallel structured ops and matmuls on static memrefs → `scf.for` loops over 1-D `vector` ops (a register-blocked micro-kernel for matmuls) |
//! | `convert-nms-to-loops` | `graph.NonMaxSuppression` returned by the function → `scf` loops on buffers, its result bounded and its row count an extra result (the `nms` module) |
//! | `convert-linalg-to-loops` | structured ops on memrefs → `scf.for` nests with `memref.load`/`memref.store` and the body inlined |

#![deny(missing_docs)]

pub mod emit;
pub mod floats;
pub mod graph_to_linalg;
pub mod indexing;
pub mod intq_ops;
pub mod keya_ops;
pub mod keyb_ops;
pub mod linalg_to_loops;
pub mod nms;
pub mod pointwise;
pub mod pools_ops;
pub mod qnn_to_linalg;
pub mod reduce;
pub mod vectorize;

pub use graph_to_linalg::ConvertGraphToLinalgPass;
pub use linalg_to_loops::ConvertLinalgToLoopsPass;
pub use qnn_to_linalg::ConvertQnnToLinalgPass;
pub use vectorize::LinalgVectorizePass;

/// Registers the passes of this crate.
pub fn register(registry: &mut nart_pass::PassRegistry) {
    registry.register(|| Box::new(ConvertGraphToLinalgPass::new()));
    registry.register(|| Box::new(ConvertLinalgToLoopsPass::new()));
    registry.register(|| Box::new(ConvertQnnToLinalgPass::new()));
    registry.register(|| Box::new(LinalgVectorizePass::default()));
    registry.register(|| Box::new(nms::ConvertNmsToLoopsPass::new()));
}
