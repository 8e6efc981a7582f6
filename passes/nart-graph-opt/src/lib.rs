//! nart's graph-level rewrite passes, one per file, and the `graph-optimize` pipeline alias
//! that runs the default set.
//!
//! | pass | what it does |
//! |---|---|
//! | `graph-fold-constants` | evaluates ops whose operands are all constants with the interpreter's kernels |
//! | `graph-simplify` | neutral elements, identities, shape-op and cast chains, no-op Slice/Pad/Concat |
//! | `graph-fold-batchnorm` | inference BatchNormalization into a preceding Conv, Gemm or MatMul |
//! | `graph-fold-pad` | a constant-zero Pad into Conv or AveragePool pads (and `-inf` Pad into MaxPool) |
//! | `graph-transpose-opt` | sinks Transpose through elementwise ops and cancels inverse pairs |
//! | `graph-cost` | reports op count, FLOPs and bytes moved as statistics (changes nothing) |
//!
//! The passes have no anchor: they rewrite the graph ops nested in the op they run on, so
//! `builtin.module(graph-optimize)` and `builtin.module(func.func(graph-optimize))` both work.
//! [`GRAPH_OPTIMIZE`] is the one list of the passes `graph-optimize` runs.

#![deny(missing_docs)]

pub mod cost;
pub mod fold_batchnorm;
pub mod fold_constants;
pub mod fold_pad;
pub mod simplify;
pub mod transpose;
pub mod util;

pub use cost::CostReportPass;
pub use fold_batchnorm::FoldBatchNormPass;
pub use fold_constants::FoldConstantsPass;
pub use fold_pad::FoldPadPass;
pub use simplify::SimplifyPass;
pub use transpose::TransposeOptPass;

/// The passes of the `graph-optimize` pipeline, in order. Add a pass here to have
/// `graph-optimize` run it (it must be registered wherever the alias is used).
pub const GRAPH_OPTIMIZE: &[&str] = &[
    "graph-fold-constants",
    "graph-simplify",
    "graph-fold-batchnorm",
    "graph-fold-pad",
    "graph-transpose-opt",
    "graph-simplify",
    "graph-fold-constants",
    "canonicalize",
    "cse",
];

/// Registers every pass of this crate and the `graph-optimize` pipeline alias.
pub fn register(registry: &mut nart_pass::PassRegistry) {
    registry.register(|| Box::new(FoldConstantsPass::new()));
    registry.register(|| Box::new(SimplifyPass::new()));
    registry.register(|| Box::new(FoldBatchNormPass::new()));
    registry.register(|| Box::new(FoldPadPass::new()));
    registry.register(|| Box::new(TransposeOptPass::new()));
    registry.register(|| Box::new(CostReportPass::new()));
    registry.register_pipeline(
        "graph-optimize",
        "Run the default graph-level optimizations (fold constants, simplify, fold BatchNorm and Pad, sink transposes, canonicalize, cse)",
        GRAPH_OPTIMIZE.join(","),
    );
}
