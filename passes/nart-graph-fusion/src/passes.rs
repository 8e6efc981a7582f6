//! The pass declarations: `graph-fuse-activation`, `graph-recognize` and `graph-unfuse`.

use nart_ir::{Context, Op, RewritePattern};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::{apply_patterns_greedily, FrozenPatternSet, GreedyConfig, RegionSimplification};

use crate::{fuse_activation as fa, recognize as rc, unfuse};

nart_pass::pass_options! {
    /// The options every pass of this crate takes.
    pub struct PatternOptions {
        /// Names of patterns not to apply
        #[name = "disable-patterns"]
        pub disable_patterns: Vec<String> = [],
        /// Max. iterations of the greedy driver
        #[name = "max-iterations"]
        pub max_iterations: i64 = 10,
    }
}

/// Runs `patterns` (less the disabled ones) over `op` and counts each pattern's applications
/// in the statistic of its name.
fn run_patterns(
    ctx: &mut Context,
    op: Op,
    patterns: Vec<Box<dyn RewritePattern>>,
    opts: &PatternOptions,
    state: &mut PassState<'_>,
) -> Result<(), PassFailure> {
    let names: Vec<&'static str> = patterns.iter().map(|p| p.name()).collect();
    for d in &opts.disable_patterns {
        if !names.contains(&d.as_str()) {
            return Err(PassFailure::op_error(
                ctx,
                op,
                format!(
                    "disable-patterns names '{d}', which is not a pattern of this pass (patterns: {})",
                    names.join(", ")
                ),
            ));
        }
    }
    let set = FrozenPatternSet::filtered(Vec::new(), patterns, |n| {
        !opts.disable_patterns.iter().any(|d| d == n)
    });
    let config = GreedyConfig {
        max_iterations: usize::try_from(opts.max_iterations).unwrap_or(usize::MAX),
        max_num_rewrites: None,
        region_simplification: RegionSimplification::Disabled,
        use_top_down_traversal: true,
        fold: false,
    };
    let res = apply_patterns_greedily(ctx, op, &set, &config);
    for name in names {
        state.add_stat(
            name,
            res.pattern_applications.get(name).copied().unwrap_or(0) as u64,
        );
    }
    Ok(())
}

nart_pass::declare_pass! {
    /// The `graph-fuse-activation` pass.
    pub struct FuseActivationPass {
        argument: "graph-fuse-activation",
        name: "GraphFuseActivation",
        summary: "Fuse Conv/Gemm/MatMul, a constant bias Add and an activation into graph.fused_* ops",
        description: "Folds an `Add` of a per-channel constant after a `Conv` into its bias \
            (`ConvAddBias`) and of a constant row after a `Gemm` without `C` into `C` \
            (`GemmAddBias`); then turns `Relu`, `LeakyRelu`, `Clip` (constant bounds), \
            `Sigmoid`, `Tanh` and `HardSigmoid` of a `Conv`, `Gemm`, `MatMul` or `MatMul` + \
            constant bias `Add` into `graph.fused_conv`, `graph.fused_gemm` or \
            `graph.fused_matmul` with that activation (`FuseActivation`). Only `f32` tensors, \
            and only where each intermediate value has a single use.",
        options: PatternOptions,
        statistics: [
            "ConvAddBias" => "Number of Add ops folded into a Conv bias",
            "GemmAddBias" => "Number of Add ops folded into a Gemm C",
            "FuseActivation" => "Number of activations fused into a product",
        ],
    }
}

impl Pass for FuseActivationPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let patterns: Vec<Box<dyn RewritePattern>> = vec![
            Box::new(fa::ConvAddBias),
            Box::new(fa::GemmAddBias),
            Box::new(fa::FuseActivation),
        ];
        run_patterns(ctx, op, patterns, &self.opts, state)
    }
}

nart_pass::declare_pass! {
    /// The `graph-recognize` pass.
    pub struct RecognizePass {
        argument: "graph-recognize",
        name: "GraphRecognize",
        summary: "Recognize decomposed GELU, LayerNorm, RMSNorm, SiLU, HardSwish and attention",
        description: "Turns the decomposed forms exporters write into the ONNX op that says \
            what they compute: `x*0.5*(1+erf(x/sqrt2))` into `Gelu` (`GeluErf`), the tanh \
            approximation into `Gelu {approximate=\"tanh\"}` (`GeluTanh`), \
            `ReduceMean`/`Sub`/`Pow`/`ReduceMean`/`Add`/`Sqrt`/`Div` (+ `Mul` gamma, `Add` beta) \
            into `LayerNormalization` (`LayerNorm`), the RMS form into `RMSNormalization` \
            (`RmsNorm`), `x*Sigmoid(x)` into `Swish` (`Silu`), `x*HardSigmoid(x)` and \
            `x*Clip(x+3,0,6)/6` into `HardSwish` (`HardSwish`), and \
            `Softmax(Q*K^T*scale (+mask))*V` on 4-D or 3-D tensors into `Attention` \
            (`Attention`). Constants are checked within a relative tolerance of 1e-3, \
            reductions must be over the last axes with keepdims, and every intermediate \
            value must have no other use.",
        options: PatternOptions,
        statistics: [
            "GeluErf" => "Number of erf-form GELUs recognized",
            "GeluTanh" => "Number of tanh-form GELUs recognized",
            "LayerNorm" => "Number of LayerNorms recognized",
            "RmsNorm" => "Number of RMSNorms recognized",
            "Silu" => "Number of SiLUs recognized",
            "HardSwish" => "Number of HardSwishes recognized",
            "Attention" => "Number of scaled-dot-product attentions recognized",
        ],
    }
}

impl Pass for RecognizePass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let patterns: Vec<Box<dyn RewritePattern>> = vec![
            Box::new(rc::GeluErf),
            Box::new(rc::GeluTanh),
            Box::new(rc::LayerNorm),
            Box::new(rc::RmsNorm),
            Box::new(rc::Silu),
            Box::new(rc::HardSwish),
            Box::new(rc::Attention),
        ];
        run_patterns(ctx, op, patterns, &self.opts, state)
    }
}

nart_pass::declare_pass! {
    /// The `graph-unfuse` pass.
    pub struct UnfusePass {
        argument: "graph-unfuse",
        name: "GraphUnfuse",
        summary: "Decompose graph.fused_* ops into standard ONNX ops",
        description: "Rewrites every `graph.fused_conv`, `graph.fused_gemm` and \
            `graph.fused_matmul` into its base op (`Conv`, `Gemm`, `MatMul`), the \
            `fused_matmul` bias `Add`, and the activation op (`Relu`, `LeakyRelu`, `Clip` with \
            constant bounds, `Sigmoid`, `Tanh`, `HardSigmoid`), and every channels-first or \
            channels-last `graph.pool` into its `MaxPool`/`AveragePool` (between Transposes \
            when channels-last), so that the exported model uses standard operators only. \
            Blocked ops (`layout = \"nchw<b>c\"`) are left to the exporter.",
        options: PatternOptions,
        statistics: [
            "Unfuse" => "Number of fused ops decomposed",
            "UnfusePool" => "Number of graph.pool ops turned back into their base op",
        ],
    }
}

impl Pass for UnfusePass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let patterns: Vec<Box<dyn nart_ir::RewritePattern>> =
            vec![Box::new(unfuse::Unfuse), Box::new(unfuse::UnfusePool)];
        run_patterns(ctx, op, patterns, &self.opts, state)
    }
}
