//! nart's graph-level rewrite passes, one per file, and the `graph-optimize` pipeline alias
//! that runs the default set.
//!
//! | pass | what it does |
//! |---|---|
//! | `graph-fold-constants` | evaluates ops whose operands are all constants with the interpreter's kernels |
//! | `graph-simplify` | neutral elements, identities, shape-op and cast chains, no-op Slice/Pad/Concat |
//! | `graph-fold-batchnorm` | inference BatchNormalization into a preceding Conv, Gemm or MatMul |
//! | `graph-fold-pad` | a constant-zero Pad into Conv or AveragePool pads (and `-inf` Pad into MaxPool) |
//! | `graph-transpose-opt` | sinks Transpose through elementwise ops, Concat, reductions, Softmax, Squeeze/Unsqueeze and cancels inverse pairs |
//! | `graph-layout` | converts convolutions to channels-last (`graph.fused_conv` with `layout = "nhwc"`) or back, Transposes at the region borders; or to blocked channels (`layout=nchw8c|nchw16c`), `graph.reorder` at the borders |
//! | `graph-specialize-shapes` | gives symbolic input dims fixed sizes (`dims`, `shapes`) and re-infers the types |
//! | `graph-cost` | reports op count, FLOPs and bytes moved as statistics (changes nothing) |
//!
//! The passes have no anchor: they rewrite the graph ops nested in the op they run on, so
//! `builtin.module(graph-optimize)` and `builtin.module(func.func(graph-optimize))` both work.
//! [`GRAPH_OPTIMIZE`] is the one list of the passes `graph-optimize` runs.

#![deny(missing_docs)]

pub mod blocked;
pub mod cost;
pub mod fold_batchnorm;
pub mod fold_constants;
pub mod fold_pad;
pub mod layout;
pub mod simplify;
pub mod specialize_shapes;
pub mod transpose;
pub mod util;

pub use cost::CostReportPass;
pub use fold_batchnorm::FoldBatchNormPass;
pub use fold_constants::FoldConstantsPass;
pub use fold_pad::FoldPadPass;
pub use layout::LayoutPass;
pub use simplify::SimplifyPass;
pub use specialize_shapes::SpecializeShapesPass;
pub use transpose::TransposeOptPass;

/// The passes of the `graph-optimize` pipeline, in order. Add a pass here to have
/// `graph-optimize` run it (it must be registered wherever the alias is used).
///
/// `graph-recognize` and `graph-fuse-activation` come from `nart-graph-fusion`: recognition runs
/// before `graph-simplify` (which composes the attention pattern's `Kᵀ` with the head
/// transpose) and again after it (for patterns an `Identity` or `Dropout` hid), before transpose
/// sinking (which would merge the attention pattern's `Kᵀ` into the head
/// transpose) and before fusion (which could fuse a SiLU's `Sigmoid` or a HardSwish's `Clip`
/// into a product first); fusion runs after BatchNorm folding, so `Conv + BN + Relu` fuses.
pub const GRAPH_OPTIMIZE: &[&str] = &[
    "graph-fold-constants",
    "graph-recognize",
    "graph-simplify",
    "graph-recognize",
    "graph-fold-batchnorm",
    "graph-fold-pad",
    "graph-transpose-opt",
    "graph-simplify",
    "graph-fold-constants",
    "graph-fuse-activation",
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
    registry.register(|| Box::new(LayoutPass::new()));
    registry.register(|| Box::new(SpecializeShapesPass::new()));
    registry.register_pipeline(
        "graph-optimize",
        "Run the default graph-level optimizations (fold constants, simplify, recognize GELU/norms/attention, fold BatchNorm and Pad, sink transposes, fuse activations, canonicalize, cse)",
        GRAPH_OPTIMIZE.join(","),
    );
}

#[cfg(test)]
mod tests {
    /// `docs/graph-optimization.md` holds the reference generated from the pass declarations
    /// between two markers; `NART_BLESS=1` rewrites it.
    #[test]
    fn docs_reference_in_sync() {
        const BEGIN: &str = "<!-- BEGIN GENERATED PASS REFERENCE -->\n";
        const END: &str = "<!-- END GENERATED PASS REFERENCE -->";
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../docs/graph-optimization.md");
        let text = std::fs::read_to_string(&path).expect("docs/graph-optimization.md exists");
        let mut registry = nart_pass::PassRegistry::new();
        super::register(&mut registry);
        let generated = registry.markdown_reference();
        let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
            panic!("docs/graph-optimization.md lacks the generated-reference markers");
        };
        let current = &text[b + BEGIN.len()..e];
        if current != generated {
            if std::env::var_os("NART_BLESS").is_some() {
                let new = format!("{}{BEGIN}{generated}{}", &text[..b], &text[e..]);
                std::fs::write(&path, new).expect("docs/graph-optimization.md is writable");
            } else {
                panic!("docs/graph-optimization.md is out of date; run with NART_BLESS=1 to regenerate");
            }
        }
    }

    /// `graph-optimize` is listed as a pipeline and names only passes registered with it
    /// (besides `canonicalize` and `cse`, which `nart-transforms` registers).
    #[test]
    fn pipeline_alias_is_listed_and_resolves() {
        let mut registry = nart_pass::PassRegistry::new();
        super::register(&mut registry);
        nart_graph_fusion::register(&mut registry);
        let text = registry.list_passes();
        let at = text.find("Pass Pipelines:\n").expect("a pipelines section");
        assert!(text[at..].contains("  --graph-optimize "), "{text}");
        for p in super::GRAPH_OPTIMIZE {
            assert!(
                registry.contains(p) || ["canonicalize", "cse"].contains(p),
                "{p} is not registered"
            );
        }
    }
}
