//! Which ops may be erased when unused, and region simplification (unreachable blocks).

use nart_ir::registry::Trait;
use nart_ir::{Block, Context, Op, Region};
use rustc_hash::FxHashSet;

/// Whether `op` has no side effects: it is registered and declares `Pure` or `ConstantLike`,
/// and every op nested in its regions is pure too.
pub fn is_pure(ctx: &Context, op: Op) -> bool {
    let Some(def) = ctx.op_def(op) else {
        return false;
    };
    if !(def.has_trait(Trait::Pure) || def.has_trait(Trait::ConstantLike)) {
        return false;
    }
    ctx.nested_ops(op).into_iter().all(|inner| {
        ctx.op_def(inner).is_some_and(|d| {
            d.has_trait(Trait::Pure)
                || d.has_trait(Trait::ConstantLike)
                || d.has_trait(Trait::Terminator) && !d.has_trait(Trait::MemoryEffects)
        })
    })
}

/// Whether `op` can be erased: pure, not a terminator, no result used (MLIR's
/// `isOpTriviallyDead`).
pub fn is_op_trivially_dead(ctx: &Context, op: Op) -> bool {
    !ctx.op_has_trait(op, Trait::Terminator) && ctx.op_results_unused(op) && is_pure(ctx, op)
}

/// The blocks of `region` reachable from its entry block through terminator successors.
fn reachable_blocks(ctx: &Context, region: Region) -> FxHashSet<Block> {
    let mut seen = FxHashSet::default();
    let Some(&entry) = ctx.region_blocks(region).first() else {
        return seen;
    };
    let mut stack = vec![entry];
    seen.insert(entry);
    while let Some(b) = stack.pop() {
        if let Some(term) = ctx.block_last_op(b) {
            for &s in ctx.successors(term) {
                if seen.insert(s) {
                    stack.push(s);
                }
            }
        }
    }
    seen
}

/// Erases the blocks unreachable from the entry block in every region nested under `root`
/// (not in graph regions). Returns the number of blocks erased.
///
/// A block whose values are still used by a reachable block is kept: that IR is invalid
/// already, and erasing it would leave dangling uses.
pub fn simplify_regions(ctx: &mut Context, root: Op) -> usize {
    let mut erased = 0;
    for op in ctx.collect_ops(root, nart_ir::WalkOrder::PreOrder) {
        if ctx.is_erased(op) || ctx.op_has_trait(op, Trait::GraphRegion) {
            continue;
        }
        for region in ctx.regions(op).to_vec() {
            if ctx.region_blocks(region).len() < 2 {
                continue;
            }
            let live = reachable_blocks(ctx, region);
            let dead: Vec<Block> = ctx
                .region_blocks(region)
                .iter()
                .copied()
                .filter(|b| !live.contains(b))
                .collect();
            if dead.is_empty() {
                continue;
            }
            let dead_set: FxHashSet<Block> = dead.iter().copied().collect();
            let used_outside = dead.iter().any(|&b| {
                let mut vals: Vec<nart_ir::Value> = ctx.block_args(b).to_vec();
                for inner in ctx.block_ops_iter(b) {
                    for n in ctx.collect_ops(inner, nart_ir::WalkOrder::PreOrder) {
                        vals.extend_from_slice(ctx.results(n));
                    }
                }
                vals.iter().any(|&v| {
                    ctx.uses(v).iter().any(|u| {
                        !block_of_op_in(ctx, u.op, region).is_some_and(|ub| dead_set.contains(&ub))
                    })
                })
            });
            // Successor references from dead blocks to each other vanish with them.
            let targeted_by_live = live.iter().any(|&b| {
                ctx.block_last_op(b)
                    .is_some_and(|t| ctx.successors(t).iter().any(|s| dead_set.contains(s)))
            });
            if used_outside || targeted_by_live {
                continue;
            }
            for b in dead {
                ctx.erase_block(b);
                erased += 1;
            }
        }
    }
    erased
}

/// The block of `region` that holds `op` (directly or through nested ops).
fn block_of_op_in(ctx: &Context, mut op: Op, region: Region) -> Option<Block> {
    loop {
        let b = ctx.op_parent_block(op)?;
        if ctx.block_parent_region(b) == Some(region) {
            return Some(b);
        }
        op = ctx.block_parent_op(b)?;
    }
}
