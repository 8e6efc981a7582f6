//! Region simplification (MLIR's `simplifyRegions`, from `RegionUtils.cpp`), run by the greedy
//! driver after each sweep.
//!
//! At the `normal` level:
//! - blocks unreachable from their region's entry are erased;
//! - dead code is erased by an optimistic liveness analysis over each region tree: ops that
//!   would be trivially dead and whose results only feed dead ops, and arguments of non-entry
//!   blocks that only feed dead ops or the same argument around a loop; the branch operands
//!   passed to a dead argument go with it.
//!
//! At the `aggressive` level, also:
//! - identical blocks (same ops, same successors, operands that differ only in values defined
//!   outside the block) are merged, the differing operands becoming new block arguments that
//!   the predecessors pass;
//! - a block argument that receives the same value from every predecessor is replaced by that
//!   value.
//!
//! Branch operands are changed through [`BranchOpInterface::set_successor_operands`]; a
//! terminator that cannot change them keeps every argument of its successors live, and blocks
//! it branches to are not merged when that would need new operands.

use indexmap::IndexMap;
use rustc_hash::{FxHashMap, FxHashSet};

use nart_ir::interfaces::BranchOpInterface;
use nart_ir::registry::Trait;
use nart_ir::{Block, Context, Op, Region, Value, ValueDef, WalkOrder};

use crate::side_effects::is_pure;

/// What [`simplify_regions`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegionSimplifyResult {
    /// Unreachable blocks erased.
    pub blocks_erased: usize,
    /// Ops erased as dead.
    pub ops_erased: usize,
    /// Block arguments erased (dead, or always given the same value).
    pub args_erased: usize,
    /// Blocks merged into an identical one.
    pub blocks_merged: usize,
}

impl RegionSimplifyResult {
    /// Whether anything changed.
    pub fn changed(&self) -> bool {
        *self != RegionSimplifyResult::default()
    }
}

/// Simplifies the regions of `root` and of every op nested in it; `merge_blocks` adds the
/// `aggressive` steps (see the module documentation).
pub fn simplify_regions(ctx: &mut Context, root: Op, merge_blocks: bool) -> RegionSimplifyResult {
    let mut res = RegionSimplifyResult {
        blocks_erased: erase_unreachable_blocks(ctx, root),
        ..RegionSimplifyResult::default()
    };
    let (ops, args) = run_region_dce(ctx, root);
    res.ops_erased = ops;
    res.args_erased = args;
    if merge_blocks {
        res.blocks_merged = merge_identical_blocks(ctx, root);
        res.args_erased += drop_redundant_arguments(ctx, root);
    }
    res
}

/// Every region of `root` and of the ops nested in it, outer ones first.
fn all_regions(ctx: &Context, root: Op) -> Vec<Region> {
    ctx.collect_ops(root, WalkOrder::PreOrder)
        .into_iter()
        .flat_map(|op| ctx.regions(op).to_vec())
        .collect()
}

/// The successors of `block`'s terminator.
fn successors(ctx: &Context, block: Block) -> Vec<Block> {
    ctx.block_last_op(block)
        .map(|t| ctx.successors(t).to_vec())
        .unwrap_or_default()
}

/// The branches to `block`: each terminator of its region and the successor index, once per
/// successor slot naming `block`.
fn predecessors(ctx: &Context, block: Block) -> Vec<(Op, usize)> {
    let Some(region) = ctx.block_parent_region(block) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &b in ctx.region_blocks(region) {
        if let Some(t) = ctx.block_last_op(b) {
            for (i, &s) in ctx.successors(t).iter().enumerate() {
                if s == block {
                    out.push((t, i));
                }
            }
        }
    }
    out
}

/// The blocks of `region` reachable from its entry, in post-order of the control-flow graph.
fn post_order(ctx: &Context, region: Region) -> Vec<Block> {
    let Some(&entry) = ctx.region_blocks(region).first() else {
        return Vec::new();
    };
    let mut seen = FxHashSet::default();
    let mut out = Vec::new();
    let mut stack = vec![(entry, 0usize)];
    seen.insert(entry);
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        let succs = successors(ctx, b);
        if let Some(&s) = succs.get(*next) {
            *next += 1;
            if seen.insert(s) {
                stack.push((s, 0));
            }
        } else {
            out.push(b);
            stack.pop();
        }
    }
    out
}

/// The operands `term` passes to successor `index`, if it is a branch that says so.
fn successor_operands(ctx: &Context, term: Op, index: usize) -> Option<Vec<Value>> {
    let branch = ctx.op_interface::<dyn BranchOpInterface>(term)?;
    let range = branch.successor_operands(ctx, term, index)?;
    ctx.operands(term).get(range).map(<[Value]>::to_vec)
}

/// Replaces the operands `term` passes to successor `index`; false when it cannot.
fn set_successor_operands(ctx: &mut Context, term: Op, index: usize, values: &[Value]) -> bool {
    match ctx.op_interface::<dyn BranchOpInterface>(term) {
        Some(branch) => branch.set_successor_operands(ctx, term, index, values),
        None => false,
    }
}

/// Whether `term` is a branch whose successor operands region simplification can change
/// (tried by setting them to what they are).
fn can_update_successor_operands(ctx: &mut Context, term: Op) -> bool {
    (0..ctx.successors(term).len()).all(|i| match successor_operands(ctx, term, i) {
        Some(vals) => set_successor_operands(ctx, term, i, &vals),
        None => false,
    })
}

// ----- unreachable blocks -----

/// Erases the blocks unreachable from the entry block in every region nested under `root`
/// (not in graph regions). Returns the number of blocks erased.
///
/// A block whose values are still used by a reachable block is kept: that IR is invalid
/// already, and erasing it would leave dangling uses.
pub fn erase_unreachable_blocks(ctx: &mut Context, root: Op) -> usize {
    let mut erased = 0;
    for op in ctx.collect_ops(root, WalkOrder::PreOrder) {
        if ctx.is_erased(op) || ctx.op_has_trait(op, Trait::GraphRegion) {
            continue;
        }
        for region in ctx.regions(op).to_vec() {
            if ctx.region_blocks(region).len() < 2 {
                continue;
            }
            let live: FxHashSet<Block> = post_order(ctx, region).into_iter().collect();
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
                let mut vals: Vec<Value> = ctx.block_args(b).to_vec();
                for inner in ctx.block_ops_iter(b) {
                    for n in ctx.collect_ops(inner, WalkOrder::PreOrder) {
                        vals.extend_from_slice(ctx.results(n));
                    }
                }
                vals.iter().any(|&v| {
                    ctx.uses(v).iter().any(|u| {
                        !block_of_op_in(ctx, u.op, region).is_some_and(|ub| dead_set.contains(&ub))
                    })
                })
            });
            if used_outside {
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

// ----- dead code -----

/// The values and ops proven live so far (MLIR's `LiveMap`): everything is dead until proven
/// live, so that dead cycles go too.
#[derive(Default)]
struct LiveMap {
    ops: FxHashSet<Op>,
    args: FxHashSet<Value>,
    /// Terminators whose successor operands cannot change: their successors' arguments are
    /// all live.
    fixed: FxHashSet<Op>,
    changed: bool,
}

impl LiveMap {
    fn op_live(&self, op: Op) -> bool {
        self.ops.contains(&op)
    }

    fn set_op_live(&mut self, op: Op) {
        self.changed |= self.ops.insert(op);
    }

    fn set_value_live(&mut self, ctx: &Context, v: Value) {
        match ctx.value_def(v) {
            ValueDef::OpResult { op, .. } => self.set_op_live(op),
            ValueDef::BlockArg { .. } => self.changed |= self.args.insert(v),
        }
    }

    /// The successor block argument that operand `index` of the terminator `term` feeds.
    fn successor_arg(&self, ctx: &Context, term: Op, index: usize) -> Option<Value> {
        let branch = ctx.op_interface::<dyn BranchOpInterface>(term)?;
        for (s, &block) in ctx.successors(term).iter().enumerate() {
            let range = branch.successor_operands(ctx, term, s)?;
            if range.contains(&index) {
                return ctx.block_args(block).get(index - range.start).copied();
            }
        }
        None
    }

    /// A use by a terminator that forwards the value to a dead block argument does not keep
    /// it live (the operand goes with the argument).
    fn use_known_dead(&self, ctx: &Context, user: Op, index: usize) -> bool {
        if !ctx.op_has_trait(user, Trait::Terminator) || self.fixed.contains(&user) {
            return false;
        }
        self.successor_arg(ctx, user, index)
            .is_some_and(|arg| !self.args.contains(&arg))
    }

    fn process_value(&mut self, ctx: &Context, v: Value) {
        let live = ctx
            .uses(v)
            .iter()
            .any(|u| !self.use_known_dead(ctx, u.op, u.index as usize) && self.op_live(u.op));
        if live {
            self.set_value_live(ctx, v);
        }
    }

    fn propagate_terminator(&mut self, ctx: &Context, term: Op) {
        self.set_op_live(term);
        if self.fixed.contains(&term) {
            for &s in ctx.successors(term) {
                for &a in ctx.block_args(s) {
                    self.changed |= self.args.insert(a);
                }
            }
        }
    }

    fn propagate_op(&mut self, ctx: &Context, op: Op) {
        for &r in ctx.regions(op) {
            self.propagate_region(ctx, r);
        }
        if ctx.op_has_trait(op, Trait::Terminator) {
            self.propagate_terminator(ctx, op);
            return;
        }
        if self.op_live(op) {
            return;
        }
        if !is_pure(ctx, op) {
            self.set_op_live(op);
            return;
        }
        for &r in ctx.results(op) {
            self.process_value(ctx, r);
        }
    }

    fn propagate_region(&mut self, ctx: &Context, region: Region) {
        let entry = ctx.region_blocks(region).first().copied();
        for block in post_order(ctx, region) {
            let ops: Vec<Op> = ctx.block_ops_iter(block).collect();
            for &op in ops.iter().rev() {
                self.propagate_op(ctx, op);
            }
            // Entry block arguments belong to the region's op: they stay.
            if Some(block) == entry {
                continue;
            }
            for &a in ctx.block_args(block) {
                if !self.args.contains(&a) {
                    self.process_value(ctx, a);
                }
            }
        }
    }
}

/// Erases the dead ops and block arguments of the regions under `root` (MLIR's
/// `runRegionDCE`). Returns the numbers of ops and of arguments erased.
fn run_region_dce(ctx: &mut Context, root: Op) -> (usize, usize) {
    let regions = ctx.regions(root).to_vec();
    let mut live = LiveMap::default();
    for op in ctx.collect_ops(root, WalkOrder::PreOrder) {
        if op != root && !ctx.successors(op).is_empty() && !can_update_successor_operands(ctx, op) {
            live.fixed.insert(op);
        }
    }
    loop {
        live.changed = false;
        for &r in &regions {
            live.propagate_region(ctx, r);
        }
        if !live.changed {
            break;
        }
    }
    // The branch operands of dead arguments go first, then the dead ops, then the arguments.
    let mut dead_ops = Vec::new();
    let mut dead_args: Vec<(Block, usize)> = Vec::new();
    let mut stack = regions;
    while let Some(region) = stack.pop() {
        let entry = ctx.region_blocks(region).first().copied();
        let multi_block = ctx.region_blocks(region).len() > 1;
        for block in post_order(ctx, region) {
            if multi_block {
                if let Some(term) = ctx.block_last_op(block) {
                    erase_dead_successor_operands(ctx, &live, term);
                }
            }
            for op in ctx.block_ops_iter(block) {
                if live.op_live(op) {
                    stack.extend(ctx.regions(op).iter().copied());
                } else {
                    dead_ops.push(op);
                }
            }
            if Some(block) != entry {
                for (i, &a) in ctx.block_args(block).iter().enumerate() {
                    if !live.args.contains(&a) {
                        dead_args.push((block, i));
                    }
                }
            }
        }
    }
    let dead_ops = keep_used_by_survivors(ctx, dead_ops);
    for &op in &dead_ops {
        ctx.drop_all_uses(op);
    }
    for &op in &dead_ops {
        ctx.erase_op(op);
    }
    // Erase from the last argument of each block down, so the indices stay right; an argument
    // still used (only in IR the analysis did not see, such as a kept unreachable block) stays.
    dead_args.sort_by_key(|&(b, i)| (b.index(), std::cmp::Reverse(i)));
    let mut n_args = 0;
    for &(b, i) in &dead_args {
        if !ctx.has_uses(ctx.block_args(b)[i]) {
            ctx.erase_block_arg(b, i);
            n_args += 1;
        }
    }
    (dead_ops.len(), n_args)
}

/// The dead ops that can be erased: in valid IR all of them, but an op used by an op that
/// stays (one the analysis did not see) stays too, and so do the dead ops it uses.
fn keep_used_by_survivors(ctx: &Context, dead: Vec<Op>) -> Vec<Op> {
    let mut dead_set: FxHashSet<Op> = dead.iter().copied().collect();
    let top_dead = |set: &FxHashSet<Op>, mut op: Op| loop {
        if set.contains(&op) {
            return true;
        }
        match ctx.op_parent_op(op) {
            Some(p) => op = p,
            None => return false,
        }
    };
    loop {
        let keep: Vec<Op> = dead_set
            .iter()
            .copied()
            .filter(|&op| {
                ctx.collect_ops(op, WalkOrder::PreOrder)
                    .into_iter()
                    .any(|n| {
                        ctx.results(n)
                            .iter()
                            .any(|&r| ctx.uses(r).iter().any(|u| !top_dead(&dead_set, u.op)))
                    })
            })
            .collect();
        if keep.is_empty() {
            break;
        }
        for op in keep {
            dead_set.remove(&op);
        }
    }
    dead.into_iter()
        .filter(|op| dead_set.contains(op))
        .collect()
}

/// Drops the operands `term` passes to dead arguments of its successors.
fn erase_dead_successor_operands(ctx: &mut Context, live: &LiveMap, term: Op) {
    if live.fixed.contains(&term) {
        return;
    }
    for s in (0..ctx.successors(term).len()).rev() {
        let block = ctx.successors(term)[s];
        let Some(vals) = successor_operands(ctx, term, s) else {
            continue;
        };
        let args = ctx.block_args(block).to_vec();
        let kept: Vec<Value> = vals
            .iter()
            .zip(&args)
            .filter(|(_, a)| live.args.contains(a))
            .map(|(&v, _)| v)
            .collect();
        if kept.len() != vals.len() {
            set_successor_operands(ctx, term, s, &kept);
        }
    }
}

// ----- block merging -----

/// What identifies an op up to its operand values and location (MLIR's
/// `OperationEquivalence::isEquivalentTo` with values ignored).
fn ops_equivalent(ctx: &Context, a: Op, b: Op) -> bool {
    let types = |op: Op| -> Vec<nart_ir::Type> {
        ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect()
    };
    ctx.op_name(a) == ctx.op_name(b)
        && ctx.attrs(a) == ctx.attrs(b)
        && ctx.props(a) == ctx.props(b)
        && ctx.regions(a).len() == ctx.regions(b).len()
        && ctx.successors(a).len() == ctx.successors(b).len()
        && ctx.operands(a).len() == ctx.operands(b).len()
        && types(a) == types(b)
}

/// The position of each value defined in a block: arguments by number, then results in order
/// (MLIR's `BlockEquivalenceData`).
struct BlockData {
    block: Block,
    order: FxHashMap<Value, usize>,
}

impl BlockData {
    fn new(ctx: &Context, block: Block) -> BlockData {
        let mut order = FxHashMap::default();
        for (i, &a) in ctx.block_args(block).iter().enumerate() {
            order.insert(a, i);
        }
        let mut next = ctx.block_args(block).len();
        for op in ctx.block_ops_iter(block) {
            for &r in ctx.results(op) {
                order.insert(r, next);
                next += 1;
            }
        }
        BlockData { block, order }
    }
}

/// A leader block and the blocks found identical to it (MLIR's `BlockMergeCluster`).
struct Cluster {
    leader: BlockData,
    blocks: Vec<Block>,
    /// (op index, operand index) of the operands that differ and become arguments.
    operands_to_merge: std::collections::BTreeSet<(usize, usize)>,
}

/// Whether any op of `block` uses a result defined in it from another block.
fn used_outside(ctx: &Context, op: Op, block: Block) -> bool {
    ctx.results(op).iter().any(|&r| {
        ctx.uses(r)
            .iter()
            .any(|u| ctx.op_parent_block(u.op) != Some(block))
    })
}

impl Cluster {
    /// Adds `data`'s block if it is identical to the leader.
    fn try_add(&mut self, ctx: &Context, data: &BlockData) -> bool {
        let (lb, rb) = (self.leader.block, data.block);
        let arg_types = |b: Block| -> Vec<nart_ir::Type> {
            ctx.block_args(b)
                .iter()
                .map(|&a| ctx.value_type(a))
                .collect()
        };
        if arg_types(lb) != arg_types(rb) {
            return false;
        }
        let lops: Vec<Op> = ctx.block_ops_iter(lb).collect();
        let rops: Vec<Op> = ctx.block_ops_iter(rb).collect();
        if lops.len() != rops.len() {
            return false;
        }
        let mut mismatched = Vec::new();
        for (i, (&l, &r)) in lops.iter().zip(&rops).enumerate() {
            if !ops_equivalent(ctx, l, r) {
                return false;
            }
            for (j, (&lv, &rv)) in ctx.operands(l).iter().zip(ctx.operands(r)).enumerate() {
                if lv == rv {
                    continue;
                }
                if ctx.value_type(lv) != ctx.value_type(rv) {
                    return false;
                }
                let l_in = ctx.value_parent_block(lv) == Some(lb);
                let r_in = ctx.value_parent_block(rv) == Some(rb);
                if l_in != r_in {
                    return false;
                }
                if !l_in {
                    // A value defined by a predecessor's terminator cannot be passed by it.
                    if !valid_successor_arg(ctx, lb, lv) || !valid_successor_arg(ctx, rb, rv) {
                        return false;
                    }
                    mismatched.push((i, j));
                    continue;
                }
                if self.leader.order.get(&lv) != data.order.get(&rv) {
                    return false;
                }
            }
            if used_outside(ctx, l, lb) || used_outside(ctx, r, rb) {
                return false;
            }
        }
        self.operands_to_merge.extend(mismatched);
        self.blocks.push(rb);
        true
    }

    /// Merges the cluster's blocks into the leader. Returns the number of blocks merged.
    fn merge(&self, ctx: &mut Context) -> usize {
        if self.blocks.is_empty() {
            return 0;
        }
        let leader = self.leader.block;
        if !self.operands_to_merge.is_empty() {
            let preds: Vec<(Op, usize)> = std::iter::once(leader)
                .chain(self.blocks.iter().copied())
                .flat_map(|b| predecessors(ctx, b))
                .collect();
            let all_updatable = preds
                .iter()
                .all(|&(t, _)| can_update_successor_operands(ctx, t));
            if !all_updatable {
                return 0;
            }
            let members: Vec<Block> = std::iter::once(leader)
                .chain(self.blocks.iter().copied())
                .collect();
            let ops: Vec<Vec<Op>> = members
                .iter()
                .map(|&b| ctx.block_ops_iter(b).collect())
                .collect();
            let n_old = ctx.block_args(leader).len();
            let mut new_args: Vec<Vec<Value>> = vec![Vec::new(); members.len()];
            for &(op_i, operand_i) in &self.operands_to_merge {
                for (m, list) in new_args.iter_mut().enumerate() {
                    list.push(ctx.operand(ops[m][op_i], operand_i));
                }
                let v = new_args[0]
                    .last()
                    .copied()
                    .expect("a value was just pushed");
                let (ty, loc) = (ctx.value_type(v), ctx.value_loc(v));
                let arg = ctx.add_block_arg(leader, ty, loc);
                ctx.set_operand(ops[0][op_i], operand_i, arg);
            }
            let new_args = prune_redundant_arguments(ctx, new_args, n_old, leader);
            for (m, &b) in members.iter().enumerate() {
                for (term, s) in predecessors(ctx, b) {
                    let mut vals = successor_operands(ctx, term, s).unwrap_or_default();
                    vals.extend_from_slice(&new_args[m]);
                    set_successor_operands(ctx, term, s, &vals);
                }
            }
        }
        for &b in &self.blocks {
            for (term, s) in predecessors(ctx, b) {
                ctx.set_successor(term, s, leader);
            }
            ctx.erase_block(b);
        }
        self.blocks.len()
    }
}

/// Whether `v`, defined outside `block`, can be passed to `block` by its predecessors: it is
/// not the result of the terminator of one of them.
fn valid_successor_arg(ctx: &Context, block: Block, v: Value) -> bool {
    let Some(def) = ctx.defining_op(v) else {
        return true;
    };
    let Some(def_block) = ctx.op_parent_block(def) else {
        return true;
    };
    if ctx.block_last_op(def_block) != Some(def) {
        return true;
    }
    !predecessors(ctx, block)
        .iter()
        .any(|&(t, _)| ctx.op_parent_block(t) == Some(def_block))
}

/// Drops the new arguments that repeat an earlier one in every list (MLIR's
/// `pruneRedundantArguments`), rewiring the leader's uses, and returns the pruned lists.
fn prune_redundant_arguments(
    ctx: &mut Context,
    new_args: Vec<Vec<Value>>,
    n_old: usize,
    leader: Block,
) -> Vec<Vec<Value>> {
    let Some(first) = new_args.first() else {
        return new_args;
    };
    let n = first.len();
    let mut first_index: FxHashMap<Value, usize> = FxHashMap::default();
    for (j, &v) in first.iter().enumerate() {
        first_index.entry(v).or_insert(j);
    }
    let mut replacement: FxHashMap<usize, usize> = FxHashMap::default();
    for (j, v) in first.iter().enumerate() {
        let k = first_index[v];
        if k != j && new_args[1..].iter().all(|list| list[k] == list[j]) {
            replacement.insert(j, k);
        }
    }
    let pruned: Vec<Vec<Value>> = new_args
        .iter()
        .map(|list| {
            (0..n)
                .filter(|j| !replacement.contains_key(j))
                .map(|j| list[j])
                .collect()
        })
        .collect();
    let mut to_erase: Vec<usize> = replacement.keys().map(|&j| n_old + j).collect();
    for (&j, &k) in &replacement {
        let (old, new) = (
            ctx.block_args(leader)[n_old + j],
            ctx.block_args(leader)[n_old + k],
        );
        ctx.replace_all_uses(old, new);
    }
    to_erase.sort_unstable();
    for i in to_erase.into_iter().rev() {
        ctx.erase_block_arg(leader, i);
    }
    pruned
}

/// Merges identical blocks in one region; returns the number of blocks merged.
fn merge_identical_blocks_in(ctx: &mut Context, region: Region) -> usize {
    let blocks = ctx.region_blocks(region).to_vec();
    if blocks.len() < 2 {
        return 0;
    }
    // Blocks (not the entry) grouped by their successors; only those can be identical.
    let mut groups: IndexMap<Vec<Block>, Vec<Block>> = IndexMap::new();
    for &b in &blocks[1..] {
        groups.entry(successors(ctx, b)).or_default().push(b);
    }
    let mut merged = 0;
    for group in groups.into_values() {
        if group.len() < 2 {
            continue;
        }
        let mut clusters: Vec<Cluster> = Vec::new();
        for b in group {
            let has_region = ctx.block_ops_iter(b).any(|op| {
                ctx.regions(op)
                    .iter()
                    .any(|&r| !ctx.region_blocks(r).is_empty())
            });
            let arg_used_outside = ctx.block_args(b).iter().any(|&a| {
                ctx.uses(a)
                    .iter()
                    .any(|u| ctx.op_parent_block(u.op) != Some(b))
            });
            if has_region || arg_used_outside {
                continue;
            }
            let data = BlockData::new(ctx, b);
            if !clusters.iter_mut().any(|c| c.try_add(ctx, &data)) {
                clusters.push(Cluster {
                    leader: data,
                    blocks: Vec::new(),
                    operands_to_merge: Default::default(),
                });
            }
        }
        for c in &clusters {
            merged += c.merge(ctx);
        }
    }
    merged
}

/// Merges identical blocks in the regions under `root`, until no more merge (MLIR's
/// `mergeIdenticalBlocks`). Returns the number of blocks merged.
fn merge_identical_blocks(ctx: &mut Context, root: Op) -> usize {
    let mut worklist: indexmap::IndexSet<Region> = ctx.regions(root).iter().copied().collect();
    let mut merged = 0;
    while let Some(region) = worklist.pop() {
        let n = merge_identical_blocks_in(ctx, region);
        if n > 0 {
            merged += n;
            worklist.insert(region);
        }
        for &b in ctx.region_blocks(region) {
            for op in ctx.block_ops_iter(b) {
                worklist.extend(ctx.regions(op).iter().copied());
            }
        }
    }
    merged
}

// ----- redundant arguments -----

/// Replaces each argument that every predecessor passes the same value by that value, and
/// drops it (MLIR's `dropRedundantArguments`). Returns the number of arguments dropped.
fn drop_redundant_arguments(ctx: &mut Context, root: Op) -> usize {
    let mut dropped = 0;
    for region in all_regions(ctx, root) {
        for block in ctx.region_blocks(region).to_vec() {
            dropped += drop_redundant_arguments_of(ctx, block);
        }
    }
    dropped
}

fn drop_redundant_arguments_of(ctx: &mut Context, block: Block) -> usize {
    let preds = predecessors(ctx, block);
    if preds.is_empty()
        || !preds
            .iter()
            .all(|&(t, _)| can_update_successor_operands(ctx, t))
    {
        return 0;
    }
    let forwarded: Vec<Vec<Value>> = preds
        .iter()
        .filter_map(|&(t, s)| successor_operands(ctx, t, s))
        .collect();
    let args = ctx.block_args(block).to_vec();
    if forwarded.len() != preds.len() || forwarded.iter().any(|f| f.len() != args.len()) {
        return 0;
    }
    let mut to_erase = Vec::new();
    for (i, &arg) in args.iter().enumerate() {
        let common = forwarded[0][i];
        if common != arg && forwarded.iter().all(|f| f[i] == common) {
            ctx.replace_all_uses(arg, common);
            to_erase.push(i);
        }
    }
    for &i in to_erase.iter().rev() {
        ctx.erase_block_arg(block, i);
        for &(t, s) in &preds {
            let mut vals = successor_operands(ctx, t, s).unwrap_or_default();
            if i < vals.len() {
                vals.remove(i);
                set_successor_operands(ctx, t, s, &vals);
            }
        }
    }
    to_erase.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nart_test_dialect::TestIr;

    /// A module holding `test.func @f(%arg0: i32)`, `@f` and its entry block.
    fn func_ir() -> (TestIr, Op, Block) {
        let mut t = TestIr::new();
        let f = t.func("f", 1, 0, false);
        let b = t.entry(f);
        (t, f, b)
    }

    #[test]
    fn dead_ops_in_every_block_go() {
        let (mut t, f, b) = func_ir();
        let next = t.block(f);
        let x = t.arg(f, 0);
        t.add(b, x, x);
        t.br(b, &[next]);
        let y = t.add(next, x, x);
        t.add(next, y, y);
        t.ret(next, &[]);
        let res = simplify_regions(&mut t.ctx, f, false);
        assert_eq!(res.ops_erased, 3, "{res:?}");
        assert_eq!(t.dump(f), "test.br ^1\n^1:\ntest.return");
    }

    #[test]
    fn arguments_of_a_branch_that_cannot_change_stay() {
        // `test.br` passes all its operands to every successor: it cannot drop one.
        let (mut t, f, b) = func_ir();
        let next = t.block(f);
        let i32t = t.ctx.i32_type();
        let loc = t.loc;
        t.ctx.add_block_arg(next, i32t, loc);
        let x = t.arg(f, 0);
        let br = t.br(b, &[next]);
        t.ctx.set_operands(br, &[x]);
        t.ret(next, &[]);
        let res = simplify_regions(&mut t.ctx, f, true);
        assert_eq!(res.args_erased, 0, "{res:?}");
        assert_eq!(t.ctx.block_args(next).len(), 1);
    }

    #[test]
    fn identical_blocks_merge_only_when_asked() {
        let (mut t, f, b) = func_ir();
        let (b1, b2) = (t.block(f), t.block(f));
        let br = t.br(b, &[b1, b2]);
        t.ret(b1, &[]);
        t.ret(b2, &[]);
        assert!(!simplify_regions(&mut t.ctx, f, false).changed());
        let res = simplify_regions(&mut t.ctx, f, true);
        assert_eq!(res.blocks_merged, 1, "{res:?}");
        assert_eq!(t.ctx.successors(br), &[b1, b1]);
        assert!(t.ctx.is_block_erased(b2));
    }

    #[test]
    fn unreachable_blocks_go_first() {
        let (mut t, f, b) = func_ir();
        let dead = t.block(f);
        let x = t.arg(f, 0);
        t.ret(b, &[]);
        t.effect(dead, &[x]);
        t.ret(dead, &[]);
        let res = simplify_regions(&mut t.ctx, f, false);
        assert_eq!(res.blocks_erased, 1, "{res:?}");
        assert_eq!(t.dump(f), "test.return");
    }
}
