//! Graph-level fusion for nart: three passes over graph-dialect functions.
//!
//! | pass | what it does |
//! |---|---|
//! | `graph-fuse-activation` | `Conv`/`Gemm`/`MatMul` (+ a constant bias `Add`) + `Relu`/`LeakyRelu`/`Clip`/`Sigmoid`/`Tanh`/`HardSigmoid` → `graph.fused_conv`/`fused_gemm`/`fused_matmul` |
//! | `graph-recognize` | decomposed GELU (erf and tanh forms), LayerNorm, RMSNorm, SiLU, HardSwish and scaled-dot-product attention → `Gelu`, `LayerNormalization`, `RMSNormalization`, `Swish`, `HardSwish`, `Attention` |
//! | `graph-unfuse` | `graph.fused_*` → the standard ops again |
//!
//! Each pass is a set of [`RewritePattern`](nart_ir::RewritePattern)s run by the bounded
//! greedy driver without folding; its statistics count each pattern's applications
//! (`GeluErf`, `LayerNorm`, ...). Every pattern checks its constants within a tolerance, the
//! axes, the element type (`f32`) and that the intermediate values it removes have no other
//! use, so a rewrite never changes what the function computes beyond float rounding (the
//! property tests run both sides in the interpreter).
//!
//! Order in a pipeline: `graph-recognize` before `graph-fuse-activation` (a GELU or HardSwish
//! must be recognized before its `Clip` or `Sigmoid` could fuse into a product), and both after
//! constant folding and before CSE.

#![deny(missing_docs)]

pub mod fuse_activation;
pub mod passes;
pub mod recognize;
pub mod unfuse;
pub mod util;

pub use passes::{FuseActivationPass, RecognizePass, UnfusePass};

/// Registers the passes of this crate.
pub fn register(registry: &mut nart_pass::PassRegistry) {
    registry.register(|| Box::new(FuseActivationPass::new()));
    registry.register(|| Box::new(RecognizePass::new()));
    registry.register(|| Box::new(UnfusePass::new()));
}
