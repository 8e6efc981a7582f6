//! The greedy pattern driver (MLIR's `applyPatternsGreedily`), always bounded.
//!
//! Algorithm, as MLIR 22's driver: each sweep starts by walking every op nested under the root
//! (pre-order for top-down, post-order otherwise); constants met there are uniqued and hoisted
//! (see [`OperationFolder`]), and the other ops seed the worklist, to be processed in pre-order
//! (top-down) or from the last op backwards (bottom-up).
//! An op popped from the worklist is erased if it is trivially dead; otherwise its folder is
//! tried (not on constants), then the patterns rooted on it by decreasing benefit, and the
//! first that succeeds wins.
//! Constants produced by folding are created right before the folded op; the next sweep hoists
//! them.
//! Whatever a change touches (new ops, modified ops, users of replaced values, definers of
//! erased operands) goes back on the worklist.
//! After the worklist, regions are simplified (see [`RegionSimplification`]).
//! One sweep is an iteration; the driver repeats until an iteration changes nothing (a
//! fixpoint) or a bound is reached, and says which.
//!
//! Bounds: `max_iterations` sweeps, `max_num_rewrites` folds and pattern applications in all,
//! and inside one sweep at most `max(1000, 16 * ops)` rewrites, so that a pattern which keeps
//! rewriting the same op ends the sweep instead of looping forever.

use indexmap::IndexMap;
use rustc_hash::FxHashSet;

use nart_ir::registry::Trait;
use nart_ir::{Context, Op, PatternRewriter, WalkOrder};

use crate::folder::{operand_definers_to_revisit, KnownConstant, OperationFolder};
use crate::pattern_set::FrozenPatternSet;
use crate::regions::simplify_regions;
use crate::side_effects::is_op_trivially_dead;

/// How much control-flow simplification runs after each sweep (MLIR's
/// `GreedySimplifyRegionLevel`; see [`simplify_regions`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum RegionSimplification {
    /// None.
    Disabled,
    /// Erase unreachable blocks, dead ops and dead block arguments.
    #[default]
    Normal,
    /// Also merge identical blocks and drop the block arguments every predecessor gives the
    /// same value.
    Aggressive,
}

impl RegionSimplification {
    /// The spelling used by canonicalize's `region-simplify` option.
    pub fn as_str(self) -> &'static str {
        match self {
            RegionSimplification::Disabled => "disabled",
            RegionSimplification::Normal => "normal",
            RegionSimplification::Aggressive => "aggressive",
        }
    }
}

/// Configuration of [`apply_patterns_greedily`] (MLIR's `GreedyRewriteConfig`).
#[derive(Clone, Debug)]
pub struct GreedyConfig {
    /// Maximum number of sweeps over the worklist (default 10).
    pub max_iterations: usize,
    /// Maximum number of folds and pattern applications in all (default unlimited).
    pub max_num_rewrites: Option<usize>,
    /// Region simplification after each sweep.
    pub region_simplification: RegionSimplification,
    /// Seed the worklist in pre-order (parents first) instead of post-order.
    pub use_top_down_traversal: bool,
    /// Try ops' folders.
    pub fold: bool,
}

impl Default for GreedyConfig {
    fn default() -> Self {
        GreedyConfig {
            max_iterations: 10,
            max_num_rewrites: None,
            region_simplification: RegionSimplification::Normal,
            use_top_down_traversal: false,
            fold: true,
        }
    }
}

/// Why the driver stopped.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StopReason {
    /// A sweep changed nothing.
    Fixpoint,
    /// `max_iterations` sweeps were done and the last one still changed the IR.
    IterationLimit(usize),
    /// `max_num_rewrites` rewrites were done.
    RewriteLimit(usize),
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::Fixpoint => write!(f, "reached a fixpoint"),
            StopReason::IterationLimit(n) => {
                write!(f, "stopped after {n} iterations (max-iterations)")
            }
            StopReason::RewriteLimit(n) => {
                write!(f, "stopped after {n} rewrites (max-num-rewrites)")
            }
        }
    }
}

/// What [`apply_patterns_greedily`] did.
#[derive(Clone, Debug)]
pub struct GreedyResult {
    /// Whether a fixpoint was reached.
    pub converged: bool,
    /// Why it stopped.
    pub stop_reason: StopReason,
    /// Whether the IR changed at all.
    pub changed: bool,
    /// Sweeps done.
    pub iterations: usize,
    /// Successful folds (including duplicate constants merged).
    pub num_folds: usize,
    /// Ops erased because they were dead.
    pub num_erased: usize,
    /// Unreachable blocks erased.
    pub num_blocks_erased: usize,
    /// Successful applications per pattern name, in first-application order.
    pub pattern_applications: IndexMap<&'static str, usize>,
}

impl GreedyResult {
    /// Total pattern applications.
    pub fn num_pattern_applications(&self) -> usize {
        self.pattern_applications.values().sum()
    }
}

struct Worklist {
    list: Vec<Op>,
    set: FxHashSet<Op>,
}

impl Worklist {
    fn push(&mut self, op: Op) {
        if self.set.insert(op) {
            self.list.push(op);
        }
    }

    fn pop(&mut self) -> Option<Op> {
        let op = self.list.pop()?;
        self.set.remove(&op);
        Some(op)
    }
}

/// Applies `patterns` and folders to every op nested under `root` (not `root` itself) until a
/// fixpoint or a bound; see the module documentation.
pub fn apply_patterns_greedily(
    ctx: &mut Context,
    root: Op,
    patterns: &FrozenPatternSet,
    config: &GreedyConfig,
) -> GreedyResult {
    let mut res = GreedyResult {
        converged: false,
        stop_reason: StopReason::IterationLimit(config.max_iterations),
        changed: false,
        iterations: 0,
        num_folds: 0,
        num_erased: 0,
        num_blocks_erased: 0,
        pattern_applications: IndexMap::new(),
    };
    let mut num_rewrites = 0usize;
    if config.max_iterations == 0 {
        return res;
    }
    while res.iterations < config.max_iterations {
        res.iterations += 1;
        // A fresh folder each sweep, as upstream: constants are uniqued and hoisted as the
        // walk meets them.
        let mut folder = OperationFolder::new(Some(root));
        let order = if config.use_top_down_traversal {
            WalkOrder::PreOrder
        } else {
            WalkOrder::PostOrder
        };
        let mut seed = Vec::new();
        for op in ctx.collect_ops(root, order) {
            if op == root || ctx.is_erased(op) {
                continue;
            }
            if ctx.op_has_trait(op, Trait::ConstantLike) {
                if let KnownConstant::Replaced(_) = folder.insert_known_constant(ctx, op) {
                    res.num_folds += 1;
                    continue;
                }
            }
            seed.push(op);
        }
        // The worklist pops from the back: top-down processes the ops in pre-order, bottom-up
        // from the last op of the post-order backwards.
        if config.use_top_down_traversal {
            seed.reverse();
        }
        let sweep_budget = 1000usize.max(16 * seed.len());
        let mut wl = Worklist {
            set: seed.iter().copied().collect(),
            list: seed,
        };
        let mut changed = false;
        let mut sweep_rewrites = 0usize;
        while let Some(op) = wl.pop() {
            if config.max_num_rewrites.is_some_and(|m| num_rewrites >= m) {
                res.stop_reason = StopReason::RewriteLimit(num_rewrites);
                res.changed |= changed;
                return res;
            }
            if sweep_rewrites >= sweep_budget {
                // Stop the sweep; the next iteration starts afresh (and counts toward the bound).
                changed = true;
                break;
            }
            if ctx.is_erased(op) || op == root || !ctx.is_ancestor(root, op) {
                continue;
            }
            // 1. Dead code.
            if is_op_trivially_dead(ctx, op) {
                for d in operand_definers_to_revisit(ctx, op) {
                    wl.push(d);
                }
                for n in ctx.collect_ops(op, WalkOrder::PreOrder) {
                    folder.notify_erased(n);
                }
                ctx.erase_op(op);
                res.num_erased += 1;
                changed = true;
                continue;
            }
            // 2. Folding.
            if config.fold {
                if let Some(fc) = folder.try_fold(ctx, op) {
                    for o in fc.created.into_iter().chain(fc.touched) {
                        wl.push(o);
                    }
                    if fc.in_place {
                        wl.push(op);
                    }
                    res.num_folds += 1;
                    num_rewrites += 1;
                    sweep_rewrites += 1;
                    changed = true;
                    continue;
                }
            }
            // 3. Patterns.
            for pat in patterns.patterns_for(ctx, op) {
                let mut rw = PatternRewriter::new(ctx);
                rw.set_insertion_point_before(op);
                if !pat.match_and_rewrite(&mut rw, op) {
                    continue;
                }
                let (created, erased, modified) = rw.take_changes();
                for e in &erased {
                    folder.notify_erased(*e);
                }
                for o in created.into_iter().chain(modified) {
                    wl.push(o);
                }
                *res.pattern_applications.entry(pat.name()).or_insert(0) += 1;
                num_rewrites += 1;
                sweep_rewrites += 1;
                changed = true;
                break;
            }
        }
        if config.region_simplification != RegionSimplification::Disabled {
            let merge = config.region_simplification == RegionSimplification::Aggressive;
            let simplified = simplify_regions(ctx, root, merge);
            if simplified.changed() {
                res.num_blocks_erased += simplified.blocks_erased;
                res.num_erased += simplified.ops_erased;
                changed = true;
            }
        }
        res.changed |= changed;
        if !changed {
            res.converged = true;
            res.stop_reason = StopReason::Fixpoint;
            return res;
        }
    }
    res.stop_reason = StopReason::IterationLimit(res.iterations);
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Forever, Tag};
    use nart_ir::{Block, RewritePattern};
    use nart_test_dialect::{AddZero, TestIr};

    /// A module holding `test.func @f(%arg0: i32)`, `@f` and its entry block.
    fn func_ir() -> (TestIr, Op, Block) {
        let mut t = TestIr::new();
        let f = t.func("f", 1, 0, false);
        let b = t.entry(f);
        (t, f, b)
    }

    fn run(ctx: &mut Context, f: Op, pats: &FrozenPatternSet) -> GreedyResult {
        apply_patterns_greedily(ctx, f, pats, &GreedyConfig::default())
    }

    #[test]
    fn folds_constants_and_dedups() {
        let (mut t, f, b) = func_ir();
        // c1 = 1; c2 = 2; s = c1 + c2; d = c1 + c2; r = s + d
        let c1 = t.constant(b, 1);
        let c2 = t.constant(b, 2);
        let s = t.add(b, c1, c2);
        let d = t.add(b, c1, c2);
        let r = t.add(b, s, d);
        t.ret(b, &[r]);
        let res = run(&mut t.ctx, f, &FrozenPatternSet::default());
        assert!(res.converged);
        assert_eq!(res.stop_reason, StopReason::Fixpoint);
        assert_eq!(t.dump(f), "test.constant 6\ntest.return %c6");
        assert!(res.num_folds >= 3, "{res:?}");
    }

    #[test]
    fn erases_dead_pure_ops_but_not_effects() {
        let (mut t, f, b) = func_ir();
        let c1 = t.constant(b, 1);
        let x = t.arg(f, 0);
        t.add(b, x, c1);
        t.effect(b, &[x]);
        t.ret(b, &[]);
        let res = run(&mut t.ctx, f, &FrozenPatternSet::default());
        assert_eq!(t.dump(f), "test.effect %arg0\ntest.return");
        assert_eq!(res.num_erased, 2);
    }

    #[test]
    fn add_zero_pattern_then_fold() {
        let (mut t, f, b) = func_ir();
        let x = t.arg(f, 0);
        let z = t.constant(b, 0);
        let a = t.add(b, x, z);
        t.ret(b, &[a]);
        let statics: [&'static dyn RewritePattern; 1] = [&AddZero];
        let pats = FrozenPatternSet::new(statics, Vec::new());
        let res = run(&mut t.ctx, f, &pats);
        assert!(res.converged);
        assert_eq!(res.pattern_applications.get("AddZero"), Some(&1));
        assert_eq!(t.dump(f), "test.return %arg0");
    }

    #[test]
    fn looping_pattern_hits_iteration_bound() {
        let (mut t, f, b) = func_ir();
        let x = t.arg(f, 0);
        t.effect(b, &[x]);
        t.ret(b, &[]);
        let pats = FrozenPatternSet::new([], vec![Box::new(Forever) as Box<dyn RewritePattern>]);
        let cfg = GreedyConfig {
            max_iterations: 3,
            ..GreedyConfig::default()
        };
        let res = apply_patterns_greedily(&mut t.ctx, f, &pats, &cfg);
        assert!(!res.converged);
        assert_eq!(res.stop_reason, StopReason::IterationLimit(3));
        assert!(res.pattern_applications["Forever"] >= 3);
    }

    #[test]
    fn rewrite_bound() {
        let (mut t, f, b) = func_ir();
        let x = t.arg(f, 0);
        t.effect(b, &[x]);
        t.ret(b, &[]);
        let pats = FrozenPatternSet::new([], vec![Box::new(Forever) as Box<dyn RewritePattern>]);
        let cfg = GreedyConfig {
            max_num_rewrites: Some(5),
            ..GreedyConfig::default()
        };
        let res = apply_patterns_greedily(&mut t.ctx, f, &pats, &cfg);
        assert_eq!(res.stop_reason, StopReason::RewriteLimit(5));
        assert_eq!(res.pattern_applications["Forever"], 5);
    }

    #[test]
    fn constants_hoisted_out_of_nested_regions() {
        let (mut t, f, b) = func_ir();
        let x = t.arg(f, 0);
        let inner = t.region_op(b);
        let c = t.constant(inner, 7);
        t.effect(inner, &[c]);
        t.effect(inner, &[x]);
        t.ret(b, &[]);
        run(&mut t.ctx, f, &FrozenPatternSet::default());
        assert_eq!(
            t.dump(f),
            "test.constant 7\ntest.region {\n  test.effect %c7\n  test.effect %arg0\n}\ntest.return"
        );
    }

    #[test]
    fn benefit_orders_patterns() {
        let (mut t, f, b) = func_ir();
        let x = t.arg(f, 0);
        t.effect(b, &[x]);
        t.ret(b, &[]);
        let pats = FrozenPatternSet::new(
            [],
            vec![
                Box::new(Tag("low", 1)) as Box<dyn RewritePattern>,
                Box::new(Tag("high", 5)),
            ],
        );
        let res = run(&mut t.ctx, f, &pats);
        assert!(res.converged);
        let effect_op = t.ctx.block_first_op(b).unwrap();
        assert_eq!(
            t.ctx.attr(effect_op, "tag").and_then(|a| t.ctx.attr_str(a)),
            Some("high")
        );
        assert!(!res.pattern_applications.contains_key("low"));
    }

    #[test]
    fn unreachable_blocks_erased() {
        let (mut t, f, b) = func_ir();
        let region = t.ctx.region(f, 0);
        let dead = t.ctx.create_block(&[], t.loc);
        t.ctx.append_block(region, dead);
        let x = t.arg(f, 0);
        t.effect(dead, &[x]);
        t.ret(dead, &[]);
        t.ret(b, &[]);
        let res = run(&mut t.ctx, f, &FrozenPatternSet::default());
        assert_eq!(res.num_blocks_erased, 1);
        assert_eq!(t.ctx.region_blocks(region).len(), 1);
        let cfg = GreedyConfig {
            region_simplification: RegionSimplification::Disabled,
            ..GreedyConfig::default()
        };
        let dead = t.ctx.create_block(&[], t.loc);
        t.ctx.append_block(region, dead);
        t.ret(dead, &[]);
        apply_patterns_greedily(&mut t.ctx, f, &FrozenPatternSet::default(), &cfg);
        assert_eq!(t.ctx.region_blocks(region).len(), 2);
    }
}
