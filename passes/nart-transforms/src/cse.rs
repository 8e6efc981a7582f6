//! `cse`: eliminates common subexpressions (MLIR's CSE).
//!
//! Two ops are equivalent when they are pure, have the same name, operands, result types and
//! attributes, and no regions or successors.
//! Equivalent ops are found with a scoped hash table while walking each region's dominator tree
//! in pre-order: an op seen in a block dominates every op of the blocks below it in the tree,
//! so a later equivalent op can use its results instead.
//! A region nested in an op that is not isolated from above sees the outer scope; an isolated
//! (or unregistered) op starts an empty one.
//! Graph regions (no dominance) and unreachable blocks are left alone, but the ops in them are
//! still descended into.
//! Ops found dead on the way are erased too (`num-dce'd`).

use rustc_hash::FxHashMap;

use nart_ir::registry::Trait;
use nart_ir::verify::Dominance;
use nart_ir::{Block, Context, Ident, NamedAttr, Op, Region, Type, Value};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::{is_op_trivially_dead, is_pure};

nart_pass::declare_pass! {
    /// The `cse` pass.
    pub struct CsePass {
        argument: "cse",
        name: "CSE",
        summary: "Eliminate common sub-expressions",
        description: "Replaces a pure op by an equivalent op that dominates it (same name, \
            operands, result types and attributes, no regions), walking the dominator tree of \
            every region with a scoped hash table. Dead pure ops met on the way are erased.",
        statistics: [
            "num-cse'd" => "Number of operations CSE'd",
            "num-dce'd" => "Number of operations DCE'd",
        ],
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    name: Ident,
    operands: Vec<Value>,
    result_types: Vec<Type>,
    props: Vec<NamedAttr>,
    attrs: Vec<NamedAttr>,
}

/// A stack of scopes; a barrier scope hides the scopes below it (isolated regions).
struct ScopedTable {
    scopes: Vec<(FxHashMap<Key, Op>, bool)>,
}

impl ScopedTable {
    fn push(&mut self, barrier: bool) {
        self.scopes.push((FxHashMap::default(), barrier));
    }

    fn pop(&mut self) {
        self.scopes.pop();
    }

    fn lookup(&self, key: &Key) -> Option<Op> {
        for (map, barrier) in self.scopes.iter().rev() {
            if let Some(&op) = map.get(key) {
                return Some(op);
            }
            if *barrier {
                break;
            }
        }
        None
    }

    fn insert(&mut self, key: Key, op: Op) {
        if let Some((map, _)) = self.scopes.last_mut() {
            map.insert(key, op);
        }
    }
}

#[derive(Default)]
struct Counts {
    cse: u64,
    dce: u64,
}

struct Cse<'a> {
    ctx: &'a mut Context,
    table: ScopedTable,
    counts: Counts,
}

impl Cse<'_> {
    fn key(&self, op: Op) -> Key {
        let ctx = &*self.ctx;
        Key {
            name: ctx.op_name(op),
            operands: ctx.operands(op).to_vec(),
            result_types: ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect(),
            props: ctx.props(op).to_vec(),
            attrs: ctx.attrs(op).to_vec(),
        }
    }

    /// Simplifies the regions of `op`.
    fn simplify_regions_of(&mut self, op: Op) {
        let isolated = match self.ctx.op_def(op) {
            Some(d) => d.has_trait(Trait::IsolatedFromAbove),
            None => true,
        };
        let graph = self
            .ctx
            .op_def(op)
            .is_none_or(|d| d.has_trait(Trait::GraphRegion));
        for region in self.ctx.regions(op).to_vec() {
            self.table.push(isolated);
            self.simplify_region(region, graph);
            self.table.pop();
        }
    }

    fn simplify_region(&mut self, region: Region, graph: bool) {
        let blocks = self.ctx.region_blocks(region).to_vec();
        if blocks.is_empty() {
            return;
        }
        if graph {
            // No dominance: only descend into nested regions.
            for b in blocks {
                for op in self.ctx.block_ops(b) {
                    if !self.ctx.is_erased(op) {
                        self.simplify_regions_of(op);
                    }
                }
            }
            return;
        }
        if blocks.len() == 1 {
            self.simplify_block(blocks[0]);
            return;
        }
        let children = dominator_tree(self.ctx, region);
        // Iterative pre-order walk of the dominator tree with one scope per tree node.
        enum Step {
            Enter(Block),
            Exit,
        }
        let mut stack = vec![Step::Enter(blocks[0])];
        while let Some(step) = stack.pop() {
            match step {
                Step::Enter(b) => {
                    self.table.push(false);
                    self.simplify_block(b);
                    stack.push(Step::Exit);
                    if let Some(kids) = children.get(&b) {
                        for &k in kids.iter().rev() {
                            stack.push(Step::Enter(k));
                        }
                    }
                }
                Step::Exit => self.table.pop(),
            }
        }
    }

    fn simplify_block(&mut self, block: Block) {
        for op in self.ctx.block_ops(block) {
            if self.ctx.is_erased(op) {
                continue;
            }
            if is_op_trivially_dead(self.ctx, op) {
                self.ctx.erase_op(op);
                self.counts.dce += 1;
                continue;
            }
            if !self.ctx.regions(op).is_empty() {
                self.simplify_regions_of(op);
                continue;
            }
            if !is_pure(self.ctx, op)
                || self.ctx.results(op).is_empty()
                || !self.ctx.successors(op).is_empty()
            {
                continue;
            }
            let key = self.key(op);
            match self.table.lookup(&key) {
                Some(existing) if !self.ctx.is_erased(existing) => {
                    let new: Vec<Value> = self.ctx.results(existing).to_vec();
                    self.ctx.replace_op(op, &new);
                    self.counts.cse += 1;
                }
                _ => self.table.insert(key, op),
            }
        }
    }
}

/// Children in the dominator tree of the reachable blocks of `region` (entry is the root).
fn dominator_tree(ctx: &Context, region: Region) -> FxHashMap<Block, Vec<Block>> {
    let dom = Dominance::compute(ctx, region);
    let mut children: FxHashMap<Block, Vec<Block>> = FxHashMap::default();
    for &b in ctx.region_blocks(region) {
        if let Some(p) = dom.immediate_dominator(b) {
            children.entry(p).or_default().push(b);
        }
    }
    children
}

/// Runs CSE on the regions of `op`; returns (ops CSE'd, ops DCE'd).
pub fn run_cse(ctx: &mut Context, op: Op) -> (u64, u64) {
    let mut cse = Cse {
        ctx,
        table: ScopedTable { scopes: Vec::new() },
        counts: Counts::default(),
    };
    cse.simplify_regions_of(op);
    (cse.counts.cse, cse.counts.dce)
}

impl Pass for CsePass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let (cse, dce) = run_cse(ctx, op);
        state.add_stat("num-cse'd", cse);
        state.add_stat("num-dce'd", dce);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::*;

    #[test]
    fn dedups_pure_ops_in_a_block() {
        let mut t = TestIr::new();
        let f = t.func("f", 1, 1, false);
        let b = t.entry(f);
        let x = t.arg(f, 0);
        let a = t.add(b, x, x);
        let a2 = t.add(b, x, x);
        let s = t.add(b, a, a2);
        t.ret(b, &[s]);
        let mut pm = t.pass_manager("builtin.module(test.func(cse))");
        pm.run(&mut t.ctx, t.module, &mut Vec::new()).unwrap();
        assert_eq!(
            t.dump(f),
            "%0 = test.add %arg0, %arg0\n%1 = test.add %0, %0\ntest.return %1"
        );
        let report = pm.statistics_report();
        assert!(report.contains("  CSE\n    (S) 1 num-cse'd - Number of operations CSE'd\n    (S) 0 num-dce'd - Number of operations DCE'd\n"), "{report}");
    }

    #[test]
    fn keeps_side_effects_and_distinct_attrs() {
        let mut t = TestIr::new();
        let f = t.func("f", 1, 0, false);
        let b = t.entry(f);
        let x = t.arg(f, 0);
        t.effect(b, &[x]);
        t.effect(b, &[x]);
        let c1 = t.constant(b, 1);
        let c2 = t.constant(b, 2);
        let c1b = t.constant(b, 1);
        t.effect(b, &[c1, c2, c1b]);
        t.ret(b, &[]);
        t.run_pipeline("builtin.module(test.func(cse))");
        assert_eq!(
            t.dump(f),
            "test.effect %arg0\ntest.effect %arg0\ntest.constant 1\ntest.constant 2\ntest.effect %c1, %c2, %c1\ntest.return"
        );
    }

    #[test]
    fn nested_regions_see_outer_scope_but_not_vice_versa() {
        let mut t = TestIr::new();
        let f = t.func("f", 1, 0, false);
        let b = t.entry(f);
        let x = t.arg(f, 0);
        let outer = t.add(b, x, x);
        let inner_b = t.region_op(b);
        let inner = t.add(inner_b, x, x);
        let inner2 = t.add(inner_b, outer, outer);
        t.effect(inner_b, &[inner, inner2]);
        let after = t.add(b, outer, outer);
        t.effect(b, &[outer, after]);
        t.ret(b, &[]);
        t.run_pipeline("builtin.module(test.func(cse))");
        assert_eq!(
            t.dump(f),
            "%0 = test.add %arg0, %arg0\ntest.region {\n  %1 = test.add %0, %0\n  test.effect %0, %1\n}\n%2 = test.add %0, %0\ntest.effect %0, %2\ntest.return"
        );
    }

    #[test]
    fn respects_dominance_across_blocks() {
        // entry: a = x+x; br bb1, bb2    bb1: b = x+x (dominated: CSE'd)
        // bb2: c = x+x (dominated: CSE'd);  bb3 (from bb1, bb2): d = x+x (dominated by entry)
        let mut t = TestIr::new();
        let f = t.func("f", 1, 0, false);
        let entry = t.entry(f);
        let [bb1, bb2, bb3] = [t.block(f), t.block(f), t.block(f)];
        let x = t.arg(f, 0);
        let a = t.add(entry, x, x);
        t.br(entry, &[bb1, bb2]);
        let b1 = t.add(bb1, x, x);
        let only1 = t.add(bb1, a, x);
        t.effect(bb1, &[b1, only1]);
        t.br(bb1, &[bb3]);
        let c = t.add(bb2, a, x); // not dominated by bb1's a+x
        t.effect(bb2, &[c]);
        t.br(bb2, &[bb3]);
        let d = t.add(bb3, a, x); // bb1 does not dominate bb3
        t.effect(bb3, &[d]);
        t.ret(bb3, &[]);
        t.run_pipeline("builtin.module(test.func(cse))");
        assert_eq!(
            t.dump(f),
            "%0 = test.add %arg0, %arg0\ntest.br ^1, ^2\n^1:\n%1 = test.add %0, %arg0\ntest.effect %0, %1\ntest.br ^3\n^2:\n%2 = test.add %0, %arg0\ntest.effect %2\ntest.br ^3\n^3:\n%3 = test.add %0, %arg0\ntest.effect %3\ntest.return"
        );
    }

    #[test]
    fn erases_dead_ops() {
        let mut t = TestIr::new();
        let f = t.func("f", 1, 0, false);
        let b = t.entry(f);
        let x = t.arg(f, 0);
        t.add(b, x, x);
        t.ret(b, &[]);
        t.run_pipeline("builtin.module(test.func(cse))");
        assert_eq!(t.dump(f), "test.return");
    }

    #[test]
    fn large_function() {
        // 10,000 rounds of `a = p+x; b = p+x; p = a+b`: every `b` is CSE'd.
        let mut t = TestIr::new();
        let f = t.func("f", 1, 1, false);
        let b = t.entry(f);
        let x = t.arg(f, 0);
        let mut p = x;
        for _ in 0..10_000 {
            let a1 = t.add(b, p, x);
            let a2 = t.add(b, p, x);
            p = t.add(b, a1, a2);
        }
        t.ret(b, &[p]);
        let mut pm = t.pass_manager("builtin.module(test.func(cse,canonicalize))");
        pm.run(&mut t.ctx, t.module, &mut Vec::new()).unwrap();
        let report = pm.statistics_report();
        assert!(report.contains("(S) 10000 num-cse'd"), "{report}");
        assert_eq!(t.ctx.block_ops(b).len(), 20_001);
    }
}
