//! `canonicalize`: applies the folders and canonicalization patterns of every registered op
//! with the greedy driver, until a fixpoint or a bound (MLIR's Canonicalizer).

use nart_ir::{Context, Op, RewritePattern};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::{
    apply_patterns_greedily, FrozenPatternSet, GreedyConfig, GreedyResult, RegionSimplification,
};

nart_pass::option_enum! {
    /// How much control-flow simplification `canonicalize` does (`region-simplify`).
    pub enum RegionSimplify {
        /// Don't run any control-flow simplification.
        Disabled = "disabled",
        /// Perform simple control-flow simplifications (e.g. dead args elimination).
        Normal = "normal",
        /// Perform aggressive control-flow simplification (e.g. block merging).
        Aggressive = "aggressive",
    }
}

nart_pass::pass_options! {
    /// The options of `canonicalize` (MLIR's Canonicalizer options).
    pub struct CanonicalizeOptions {
        /// Seed the worklist in general top-down order
        #[name = "top-down"]
        pub top_down: bool = true,
        /// Perform control flow optimizations to the region tree
        #[name = "region-simplify"]
        pub region_simplify: RegionSimplify = RegionSimplify::Normal,
        /// Max. iterations between applying patterns / simplifying regions
        #[name = "max-iterations"]
        pub max_iterations: i64 = 10,
        /// Max. number of pattern rewrites within an iteration
        #[name = "max-num-rewrites"]
        pub max_num_rewrites: i64 = -1,
        /// Test only: Fail pass on non-convergence to detect cyclic pattern
        #[name = "test-convergence"]
        pub test_convergence: bool = false,
        /// Labels of patterns that should be filtered out during application
        #[name = "disable-patterns"]
        pub disable_patterns: Vec<String> = [],
        /// Labels of patterns that should be used during application, all other patterns are filtered out
        #[name = "enable-patterns"]
        pub enable_patterns: Vec<String> = [],
    }
}

nart_pass::declare_pass! {
    /// The `canonicalize` pass.
    pub struct CanonicalizePass {
        argument: "canonicalize",
        name: "Canonicalizer",
        summary: "Canonicalize operations",
        description: "Applies the folders and canonicalization patterns of every registered op, \
            and erases dead pure ops, with a bounded greedy worklist driver, until nothing \
            changes.\n\
            Constants are deduplicated and hoisted to the start of the entry block of the \
            closest isolated-from-above region, in upstream's order.\n\
            After each sweep regions are simplified: `region-simplify=normal` erases unreachable \
            blocks, dead ops and dead block arguments; `aggressive` also merges identical \
            blocks and drops block arguments that always receive the same value.",
        options: CanonicalizeOptions,
        statistics: [
            "num-folds" => "Number of successful folds",
            "num-rewrites" => "Number of successful pattern applications",
            "num-dce" => "Number of dead operations erased",
            "num-iterations" => "Number of sweeps over the IR",
        ],
    }
}

/// Every canonicalization pattern declared by a registered op, filtered by the
/// `enable`/`disable` lists (empty `enable` means all).
pub fn collect_patterns(ctx: &Context, enable: &[String], disable: &[String]) -> FrozenPatternSet {
    let statics: Vec<&'static dyn RewritePattern> = ctx
        .registry
        .dialects()
        .flat_map(|d| d.ops.iter())
        .flat_map(|op| op.canonicalize.iter().copied())
        .collect();
    FrozenPatternSet::filtered(statics, Vec::new(), |name| {
        (enable.is_empty() || enable.iter().any(|e| e == name))
            && !disable.iter().any(|d| d == name)
    })
}

/// Canonicalizes the regions of `op` with every registered pattern (used by the inliner).
pub fn canonicalize_op(ctx: &mut Context, op: Op, config: &GreedyConfig) -> GreedyResult {
    let patterns = collect_patterns(ctx, &[], &[]);
    apply_patterns_greedily(ctx, op, &patterns, config)
}

impl CanonicalizePass {
    /// The greedy driver configuration the options describe.
    pub fn config(&self) -> GreedyConfig {
        let region_simplification = match self.opts.region_simplify {
            RegionSimplify::Disabled => RegionSimplification::Disabled,
            RegionSimplify::Normal => RegionSimplification::Normal,
            RegionSimplify::Aggressive => RegionSimplification::Aggressive,
        };
        GreedyConfig {
            max_iterations: usize::try_from(self.opts.max_iterations).unwrap_or(usize::MAX),
            max_num_rewrites: usize::try_from(self.opts.max_num_rewrites).ok(),
            region_simplification,
            use_top_down_traversal: self.opts.top_down,
            fold: true,
        }
    }
}

impl Pass for CanonicalizePass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let patterns =
            collect_patterns(ctx, &self.opts.enable_patterns, &self.opts.disable_patterns);
        let config = self.config();
        let res = apply_patterns_greedily(ctx, op, &patterns, &config);
        state.add_stat("num-folds", res.num_folds as u64);
        state.add_stat("num-rewrites", res.num_pattern_applications() as u64);
        state.add_stat("num-dce", res.num_erased as u64);
        state.add_stat("num-iterations", res.iterations as u64);
        if self.opts.test_convergence && !res.converged {
            return Err(PassFailure::op_error(
                ctx,
                op,
                format!("canonicalizer failed to converge: {}", res.stop_reason),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::*;

    #[test]
    fn folds_patterns_and_dce() {
        let mut t = TestIr::new();
        let f = t.func("f", 1, 1, false);
        let b = t.entry(f);
        let x = t.arg(f, 0);
        let c1 = t.constant(b, 1);
        let c2 = t.constant(b, 2);
        let s = t.add(b, c1, c2);
        let z = t.constant(b, 0);
        let y = t.add(b, x, z);
        t.add(b, y, s); // dead
        let r = t.add(b, y, s);
        t.ret(b, &[r]);
        let out = t.run_pipeline("builtin.module(test.func(canonicalize))");
        assert_eq!(
            t.dump(f),
            "test.constant 3\n%0 = test.add %arg0, %c3\ntest.return %0"
        );
        assert!(out.is_empty());
    }

    #[test]
    fn disabled_pattern_is_not_applied() {
        let mut t = TestIr::new();
        let f = t.func("f", 1, 1, false);
        let b = t.entry(f);
        let x = t.arg(f, 0);
        let z = t.constant(b, 0);
        let y = t.add(b, x, z);
        t.ret(b, &[y]);
        t.run_pipeline("builtin.module(test.func(canonicalize{disable-patterns=AddZero}))");
        assert_eq!(
            t.dump(f),
            "test.constant 0\n%0 = test.add %arg0, %c0\ntest.return %0"
        );
        t.run_pipeline("builtin.module(test.func(canonicalize{enable-patterns=AddZero}))");
        assert_eq!(t.dump(f), "test.return %arg0");
    }

    #[test]
    fn statistics_and_options_dump() {
        let mut t = TestIr::new();
        let f = t.func("f", 0, 1, false);
        let b = t.entry(f);
        let c1 = t.constant(b, 1);
        let s = t.add(b, c1, c1);
        t.ret(b, &[s]);
        let mut pm = t.pass_manager("builtin.module(test.func(canonicalize))");
        assert_eq!(
            pm.pipeline.to_pipeline_string(),
            "builtin.module(test.func(canonicalize{max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true}))"
        );
        pm.run(&mut t.ctx, t.module, &mut Vec::new()).unwrap();
        let report = pm.statistics_report();
        assert!(
            report.contains("  Canonicalizer\n    (S) 1 num-folds - Number of successful folds\n"),
            "{report}"
        );
    }
}
