//! The passes: `partition` (place and outline every graph function of a module) and
//! `compile-segments` (compile every segment with its target).
//!
//! Both take their targets from a [`TargetRegistry`] built by a function the pass holds
//! ([`TargetRegistry::builtin`] unless a tool says otherwise, as
//! [`crate::testing::register_passes`] does), so a tool decides which targets its passes know.

use nart_dialect_target::{CompiledOp, SegmentOp};
use nart_ir::interfaces::CallableOpInterface;
use nart_ir::{Context, Diagnostic, Op};
use nart_pass::{Pass, PassDecl, PassFailure, PassInfo, PassOptions, PassState, StatisticDecl};

use crate::partition::{partition_function, Override, Reason, Setup};
use crate::TargetRegistry;

nart_pass::pass_options! {
    /// The options of `partition`.
    pub struct PartitionOptions {
        /// Targets in preference order; the last is the fallback, and interp is added last when absent
        #[name = "targets"]
        pub targets: Vec<String> = [],
        /// Placement overrides PATTERN=TARGET, where PATTERN is a glob over op names and op types
        #[name = "place"]
        pub place: Vec<String> = [],
    }
}

/// Builds the registry a pass takes its targets from.
pub type TargetsFn = fn() -> TargetRegistry;

/// The `partition` pass.
#[derive(Clone, Debug)]
pub struct PartitionPass {
    /// The option values.
    pub opts: PartitionOptions,
    targets: TargetsFn,
}

impl Default for PartitionPass {
    fn default() -> Self {
        PartitionPass::new()
    }
}

impl PartitionPass {
    /// The declaration of the pass.
    pub const INFO: &'static PassInfo = &PassInfo {
        argument: "partition",
        name: "Partition",
        summary: "Place every op of the graph functions on a target and outline the segments",
        description: "Places every compute op of each single-block `func.func` on a target: \
            an override from `place` (`conv1=interp`, `graph.Conv=npu`) first, else the first \
            target of `targets` that supports it, then moves small segments to a neighbour's \
            target where the cost model says it is faster. Ops of one target form maximal \
            connected segments whose contraction keeps the graph acyclic; each becomes a \
            `target.segment` holding its ops, with `quant.qcast`/`quant.dcast` inserted where \
            a target wants a boundary value in another precision.\n\
            Every op no target can run is reported at once, with each target's reason; a \
            target an override names that refuses the op is an error, and so is an override \
            that matches no op. Functions that already hold segments are left alone.",
        anchor: Some("builtin.module"),
        options: PartitionOptions::DECLS,
        statistics: &[
            StatisticDecl {
                name: "num-segments",
                desc: "Number of segments outlined",
            },
            StatisticDecl {
                name: "num-fallbacks",
                desc: "Number of ops placed after a preferred target refused them",
            },
            StatisticDecl {
                name: "num-casts",
                desc: "Number of quantize/dequantize casts inserted at boundaries",
            },
        ],
    };

    /// The pass with default options and the builtin targets.
    pub fn new() -> Self {
        PartitionPass::with_targets(TargetRegistry::builtin)
    }

    /// The pass with default options and the targets `targets` builds.
    pub fn with_targets(targets: TargetsFn) -> Self {
        PartitionPass {
            opts: PartitionOptions::default(),
            targets,
        }
    }
}

impl PassDecl for PartitionPass {
    fn info(&self) -> &'static PassInfo {
        Self::INFO
    }
    fn options(&self) -> &dyn PassOptions {
        &self.opts
    }
    fn options_mut(&mut self) -> &mut dyn PassOptions {
        &mut self.opts
    }
    fn clone_boxed(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}

/// The graph functions directly in `module`: ops with a callable body.
fn functions(ctx: &Context, module: Op) -> Vec<Op> {
    ctx.regions(module)
        .iter()
        .flat_map(|&r| ctx.region_blocks(r).iter())
        .flat_map(|&b| ctx.block_ops(b))
        .filter(|&op| {
            ctx.op_interface::<dyn CallableOpInterface>(op)
                .is_some_and(|c| c.callable_region(ctx, op).is_some())
        })
        .collect()
}

/// Whether `func` already holds segments (compiled or not) at its top level.
fn partitioned(ctx: &Context, func: Op) -> bool {
    ctx.regions(func)
        .iter()
        .flat_map(|&r| ctx.region_blocks(r).iter())
        .flat_map(|&b| ctx.block_ops(b))
        .any(|op| ctx.isa::<SegmentOp>(op) || ctx.isa::<CompiledOp>(op))
}

impl Pass for PartitionPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let registry = (self.targets)();
        let overrides = self
            .opts
            .place
            .iter()
            .map(|p| Override::parse(p))
            .collect::<Result<Vec<_>, String>>()
            .map_err(|m| PassFailure::op_error(ctx, op, m))?;
        let setup = Setup::resolve(&registry, &self.opts.targets, &overrides)
            .map_err(|e| PassFailure::op_error(ctx, op, e))?;
        let mut errors: Vec<Diagnostic> = Vec::new();
        let mut hits = vec![0usize; overrides.len()];
        for func in functions(ctx, op) {
            if partitioned(ctx, func) {
                continue;
            }
            match partition_function(ctx, func, &setup) {
                Ok(p) => {
                    for (h, n) in hits.iter_mut().zip(&p.plan.override_hits) {
                        *h += n;
                    }
                    state.add_stat("num-segments", p.segment_ops.len() as u64);
                    state.add_stat("num-casts", p.casts as u64);
                    let fallbacks = p
                        .plan
                        .ops
                        .iter()
                        .filter(|o| matches!(o.reason, Reason::FellBack(_)))
                        .count();
                    state.add_stat("num-fallbacks", fallbacks as u64);
                }
                Err(d) => errors.extend(d),
            }
        }
        if errors.is_empty() {
            for (_, o) in hits.iter().zip(&overrides).filter(|(&h, _)| h == 0) {
                errors.push(ctx.op_error(op, format!("--place {o} matches no op")));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(PassFailure::with_diagnostics(errors))
        }
    }
}

/// The `compile-segments` pass.
#[derive(Clone, Debug)]
pub struct CompileSegmentsPass {
    /// The option values (none).
    pub opts: nart_pass::NoOptions,
    targets: TargetsFn,
}

impl Default for CompileSegmentsPass {
    fn default() -> Self {
        CompileSegmentsPass::new()
    }
}

impl CompileSegmentsPass {
    /// The declaration of the pass.
    pub const INFO: &'static PassInfo = &PassInfo {
        argument: "compile-segments",
        name: "CompileSegments",
        summary: "Compile every target.segment into a target.compiled with its target",
        description: "Compiles each `target.segment` with the target it names and replaces it \
            with a `target.compiled` holding the artifact (bytes, format, SDK version) as \
            properties. A segment whose target is unknown or fails to compile is an error at \
            the segment.",
        anchor: Some("builtin.module"),
        options: nart_pass::NoOptions::DECLS,
        statistics: &[StatisticDecl {
            name: "num-compiled",
            desc: "Number of segments compiled",
        }],
    };

    /// The pass with the builtin targets.
    pub fn new() -> Self {
        CompileSegmentsPass::with_targets(TargetRegistry::builtin)
    }

    /// The pass with the targets `targets` builds.
    pub fn with_targets(targets: TargetsFn) -> Self {
        CompileSegmentsPass {
            opts: nart_pass::NoOptions::default(),
            targets,
        }
    }
}

impl PassDecl for CompileSegmentsPass {
    fn info(&self) -> &'static PassInfo {
        Self::INFO
    }
    fn options(&self) -> &dyn PassOptions {
        &self.opts
    }
    fn options_mut(&mut self) -> &mut dyn PassOptions {
        &mut self.opts
    }
    fn clone_boxed(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}

impl Pass for CompileSegmentsPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let registry = (self.targets)();
        let n = crate::compile::compile_segments(ctx, op, &registry)
            .map_err(PassFailure::with_diagnostics)?;
        state.add_stat("num-compiled", n as u64);
        Ok(())
    }
}

/// Registers `partition` and `compile-segments` with the builtin targets.
pub fn register_passes(registry: &mut nart_pass::PassRegistry) {
    registry.register(|| Box::new(PartitionPass::new()));
    registry.register(|| Box::new(CompileSegmentsPass::new()));
}
