//! `canonicalize`: applies the folders and canonicalization patterns of every registered op
//! with the greedy driver, until a fixpoint or a bound (MLIR's Canonicalizer).

use nart_ir::{Context, Op, RewritePattern};
use nart_pass::{
    EnumCase, OptionDecl, OptionKind, Pass, PassFailure, PassInfo, PassOptions, PassState,
    StatisticDecl,
};
use nart_rewrite::{
    apply_patterns_greedily, FrozenPatternSet, GreedyConfig, GreedyResult, RegionSimplification,
};

static REGION_SIMPLIFY: [EnumCase; 3] = [
    EnumCase {
        name: "disabled",
        help: "Don't run any control-flow simplification.",
    },
    EnumCase {
        name: "normal",
        help: "Perform simple control-flow simplifications (e.g. dead args elimination).",
    },
    EnumCase {
        name: "aggressive",
        help: "Perform aggressive control-flow simplification (e.g. block merging).",
    },
];

static OPTIONS: [OptionDecl; 7] = [
    OptionDecl {
        name: "top-down",
        help: "Seed the worklist in general top-down order",
        kind: OptionKind::Bool,
        default: "true",
    },
    OptionDecl {
        name: "region-simplify",
        help: "Perform control flow optimizations to the region tree",
        kind: OptionKind::Enum(&REGION_SIMPLIFY),
        default: "normal",
    },
    OptionDecl {
        name: "max-iterations",
        help: "Max. iterations between applying patterns / simplifying regions",
        kind: OptionKind::Int,
        default: "10",
    },
    OptionDecl {
        name: "max-num-rewrites",
        help: "Max. number of pattern rewrites within an iteration",
        kind: OptionKind::Int,
        default: "-1",
    },
    OptionDecl {
        name: "test-convergence",
        help: "Test only: Fail pass on non-convergence to detect cyclic pattern",
        kind: OptionKind::Bool,
        default: "false",
    },
    OptionDecl {
        name: "disable-patterns",
        help: "Labels of patterns that should be filtered out during application",
        kind: OptionKind::StringList,
        default: "",
    },
    OptionDecl {
        name: "enable-patterns",
        help: "Labels of patterns that should be used during application, all other patterns are filtered out",
        kind: OptionKind::StringList,
        default: "",
    },
];

static STATISTICS: [StatisticDecl; 4] = [
    StatisticDecl {
        name: "num-folds",
        desc: "Number of successful folds",
    },
    StatisticDecl {
        name: "num-rewrites",
        desc: "Number of successful pattern applications",
    },
    StatisticDecl {
        name: "num-dce",
        desc: "Number of dead operations erased",
    },
    StatisticDecl {
        name: "num-iterations",
        desc: "Number of sweeps over the IR",
    },
];

/// The declaration of `canonicalize`.
pub static INFO: PassInfo = PassInfo {
    argument: "canonicalize",
    name: "Canonicalizer",
    summary: "Canonicalize operations",
    description: "Applies the folders and canonicalization patterns of every registered op, \
and erases dead pure ops, with a bounded greedy worklist driver, until nothing changes.\n\
Constants produced by folding are deduplicated and hoisted to the entry block of the closest \
isolated-from-above region.",
    anchor: None,
    options: &OPTIONS,
    statistics: &STATISTICS,
};

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

/// The `canonicalize` pass.
#[derive(Clone)]
pub struct CanonicalizePass {
    opts: PassOptions,
}

impl CanonicalizePass {
    /// With default options.
    pub fn new() -> CanonicalizePass {
        CanonicalizePass {
            opts: PassOptions::defaults(&OPTIONS),
        }
    }

    /// The greedy driver configuration the options describe.
    pub fn config(&self) -> GreedyConfig {
        let region_simplification = match self.opts.str("region-simplify") {
            "disabled" => RegionSimplification::Disabled,
            "aggressive" => RegionSimplification::Aggressive,
            _ => RegionSimplification::Normal,
        };
        let max_rewrites = self.opts.int("max-num-rewrites");
        GreedyConfig {
            max_iterations: usize::try_from(self.opts.int("max-iterations")).unwrap_or(usize::MAX),
            max_num_rewrites: usize::try_from(max_rewrites).ok(),
            region_simplification,
            use_top_down_traversal: self.opts.bool("top-down"),
            fold: true,
        }
    }
}

impl Default for CanonicalizePass {
    fn default() -> Self {
        Self::new()
    }
}

impl Pass for CanonicalizePass {
    pass_common!(INFO);

    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let patterns = collect_patterns(
            ctx,
            self.opts.list("enable-patterns"),
            self.opts.list("disable-patterns"),
        );
        let config = self.config();
        let res = apply_patterns_greedily(ctx, op, &patterns, &config);
        state.add_stat("num-folds", res.num_folds as u64);
        state.add_stat("num-rewrites", res.num_pattern_applications() as u64);
        state.add_stat("num-dce", res.num_erased as u64);
        state.add_stat("num-iterations", res.iterations as u64);
        if self.opts.bool("test-convergence") && !res.converged {
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
