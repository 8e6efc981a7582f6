//! Canonicalization patterns of the `cf` dialect, each under a one-line algebra comment.
//!
//! `AssertTrue` is a declarative [`Rule`] (see [`nart_ir::rule`]). The branch patterns stay
//! hand-written: they read and rewrite successors and their operand groups, and
//! `BranchToSinglePredBlock` merges blocks, which rules (trees of ops and their operands) do
//! not express.

use nart_ir::rule::{Arg, Native, Rule};
use nart_ir::{
    AttrData, Block, Context, Op, OperationState, PatternRewriter, RewritePattern, Value,
};

use crate::ops::{successor_operands, switch_case_values};

/// The integer value of `v` when a constant-like op defines it (`i1` true is `-1` or `1`).
fn constant_int(ctx: &Context, v: Value) -> Option<i128> {
    match ctx.attr_data(nart_ir::interfaces::constant_of(ctx, v)?) {
        AttrData::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

/// Replaces the terminator `op` with `cf.br ^dest(args)`.
fn replace_with_br(rw: &mut PatternRewriter<'_>, op: Op, dest: Block, args: &[Value]) {
    let loc = rw.op_loc(op);
    let state = OperationState::new(rw.uniq(), "cf.br", loc)
        .operands(args)
        .successors(&[dest]);
    rw.replace_op_with_new(op, state);
}

/// How many branch edges lead to `block` (a `cond_br` to it twice counts twice).
fn num_predecessors(ctx: &Context, block: Block) -> usize {
    let Some(region) = ctx.block_parent_region(block) else {
        return 0;
    };
    ctx.region_blocks(region)
        .iter()
        .filter_map(|&b| ctx.block_last_op(b))
        .map(|t| ctx.successors(t).iter().filter(|&&s| s == block).count())
        .sum()
}

/// `cond_br true, ^a(x), ^b(y) → br ^a(x)`; `cond_br false, ^a(x), ^b(y) → br ^b(y)`.
pub struct CondBranchConstantCondition;

impl RewritePattern for CondBranchConstantCondition {
    fn name(&self) -> &'static str {
        "CondBranchConstantCondition"
    }
    fn root(&self) -> Option<&'static str> {
        Some("cf.cond_br")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let Some(c) = constant_int(rw, rw.operand(op, 0)) else {
            return rw.match_failure("the condition is not a constant");
        };
        let Some(groups) = successor_operands(rw, op) else {
            return rw.match_failure("the successor operands do not match the successors");
        };
        let (dest, args) = if c != 0 { &groups[0] } else { &groups[1] };
        replace_with_br(rw, op, *dest, args);
        true
    }
}

/// `cond_br %c, ^a(x), ^a(x) → br ^a(x)`.
pub struct CondBranchIdenticalSuccessors;

impl RewritePattern for CondBranchIdenticalSuccessors {
    fn name(&self) -> &'static str {
        "CondBranchIdenticalSuccessors"
    }
    fn root(&self) -> Option<&'static str> {
        Some("cf.cond_br")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let Some(groups) = successor_operands(rw, op) else {
            return rw.match_failure("the successor operands do not match the successors");
        };
        if groups[0] != groups[1] {
            return rw.match_failure("the successors or their operands differ");
        }
        let (dest, args) = groups[0].clone();
        replace_with_br(rw, op, dest, &args);
        true
    }
}

/// `^a: ...; br ^b(x)` where `^b(y)` has no other predecessor → `^a: ...; <^b's ops with y := x>`.
pub struct BranchToSinglePredBlock;

impl RewritePattern for BranchToSinglePredBlock {
    fn name(&self) -> &'static str {
        "BranchToSinglePredBlock"
    }
    fn root(&self) -> Option<&'static str> {
        Some("cf.br")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let ctx: &Context = rw;
        let dest = ctx.successors(op)[0];
        let Some(here) = ctx.op_parent_block(op) else {
            return rw.match_failure("the branch is not in a block");
        };
        let region = ctx.block_parent_region(dest);
        let is_entry = region.is_some_and(|r| ctx.region_blocks(r).first() == Some(&dest));
        if dest == here || is_entry {
            return rw.match_failure("the destination is the entry block or the branch's own");
        }
        if num_predecessors(ctx, dest) != 1 {
            return rw.match_failure("the destination has other predecessors");
        }
        let args = ctx.operands(op).to_vec();
        if args.len() != ctx.block_args(dest).len() {
            return rw.match_failure("the branch operands do not match the block arguments");
        }
        rw.inline_block_before(dest, op, &args);
        rw.erase_op(op);
        true
    }
}

/// `switch c, [default: ^d(x), c: ^k(y), ...] → br ^k(y)` (or `br ^d(x)` when no case is `c`).
pub struct SwitchConstantFlag;

impl RewritePattern for SwitchConstantFlag {
    fn name(&self) -> &'static str {
        "SwitchConstantFlag"
    }
    fn root(&self) -> Option<&'static str> {
        Some("cf.switch")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let Some(flag) = constant_int(rw, rw.operand(op, 0)) else {
            return rw.match_failure("the flag is not a constant");
        };
        let (Some(values), Some(groups)) = (switch_case_values(rw, op), successor_operands(rw, op))
        else {
            return rw.match_failure("the case values or operands do not match the successors");
        };
        let hit = values.iter().position(|&v| v == flag).map_or(0, |i| i + 1);
        let (dest, args) = groups[hit].clone();
        replace_with_br(rw, op, dest, &args);
        true
    }
}

/// `switch %f, [default: ^d(x)] → br ^d(x)`.
pub struct SwitchNoCases;

impl RewritePattern for SwitchNoCases {
    fn name(&self) -> &'static str {
        "SwitchNoCases"
    }
    fn root(&self) -> Option<&'static str> {
        Some("cf.switch")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        if rw.successors(op).len() != 1 {
            return rw.match_failure("the switch has cases");
        }
        let Some(groups) = successor_operands(rw, op) else {
            return rw.match_failure("the successor operands do not match the successors");
        };
        let (dest, args) = groups[0].clone();
        replace_with_br(rw, op, dest, &args);
        true
    }
}

/// `nonzero(c)`: the integer (or `i1`) constant `c` is not zero.
fn nonzero(ctx: &Context, args: &[Arg]) -> bool {
    args[0]
        .attr()
        .and_then(|a| ctx.attr_int(a))
        .is_some_and(|v| v != 0)
}

/// The native functions cf's rules call, besides the builtins.
pub static NATIVES: [Native; 1] = [Native::constraint("nonzero", 1, nonzero)];

/// `assert true, "msg" → (nothing)`.
#[allow(non_upper_case_globals)] // Named like the pattern, as op declarations refer to it.
pub static AssertTrue: Rule = nart_ir::rule!(
    "AssertTrue",
    "(cf.assert (constant $c)) => [] if nonzero($c)",
    natives = &NATIVES
);

#[cfg(test)]
mod tests {
    use nart_ir::Type;

    use super::*;
    use crate::ops::tests::setup;
    use crate::{build_br, build_cond_br};
    use nart_test_dialect::TestFunc;

    fn const_i1(s: &mut TestFunc, v: bool) -> Value {
        let i1 = s.ctx.i1_type();
        let attr = s.ctx.int_attr(i1, v as i128);
        let k = nart_dialect_arith::build_constant(&mut s.ctx, attr, i1, s.loc);
        s.ctx.prepend_op(s.entry, k);
        s.ctx.result(k, 0)
    }

    /// Applies `p` to `op` and checks the module still verifies.
    fn apply(s: &mut TestFunc, p: &dyn RewritePattern, op: Op) -> bool {
        let mut rw = PatternRewriter::new(&mut s.ctx);
        let changed = p.match_and_rewrite(&mut rw, op);
        assert_eq!(s.first_error(), None, "the rewrite keeps the IR valid");
        changed
    }

    fn terminator_name(s: &TestFunc) -> String {
        let t = s
            .ctx
            .block_last_op(s.entry)
            .unwrap_or_else(|| unreachable!("entry has a terminator"));
        s.ctx.op_name_str(t).to_string()
    }

    fn cond_br_case(s: &mut TestFunc, c: Value, same: bool) -> (Op, Block, Block) {
        let i32t = s.ctx.i32_type();
        let t = s.return_block(&[i32t]);
        let f = if same { t } else { s.return_block(&[i32t]) };
        let (a, b) = (s.arg(1), s.arg(if same { 1 } else { 2 }));
        let op = build_cond_br(&mut s.ctx, c, (t, &[a]), (f, &[b]), s.loc);
        s.ctx.append_op(s.entry, op);
        (op, t, f)
    }

    /// Every pattern an op lists checks against the registered ops and is rooted on that op.
    #[test]
    fn every_pattern_checks() {
        let mut ctx = Context::new();
        crate::register(&mut ctx);
        for op in crate::dialect().ops {
            for p in op.canonicalize {
                assert_eq!(p.check(&ctx), Ok(()), "{}", p.name());
                assert_eq!(p.root(), Some(op.name), "{}", p.name());
            }
        }
    }

    #[test]
    fn cond_br_on_constant() {
        for v in [true, false] {
            let mut s = setup();
            let c = const_i1(&mut s, v);
            let (op, t, f) = cond_br_case(&mut s, c, false);
            assert!(apply(&mut s, &CondBranchConstantCondition, op));
            let br = s
                .ctx
                .block_last_op(s.entry)
                .unwrap_or_else(|| unreachable!());
            assert_eq!(s.ctx.op_name_str(br), "cf.br");
            assert_eq!(s.ctx.successors(br), &[if v { t } else { f }]);
            let want = s.arg(if v { 1 } else { 2 });
            assert_eq!(s.ctx.operands(br), &[want]);
        }
        let mut s = setup();
        let c = s.arg(0);
        let (op, _, _) = cond_br_case(&mut s, c, false);
        assert!(!apply(&mut s, &CondBranchConstantCondition, op));
    }

    #[test]
    fn cond_br_identical_successors() {
        let mut s = setup();
        let c = s.arg(0);
        let (op, _, _) = cond_br_case(&mut s, c, true);
        assert!(apply(&mut s, &CondBranchIdenticalSuccessors, op));
        assert_eq!(terminator_name(&s), "cf.br");

        let mut s = setup();
        let c = s.arg(0);
        let (op, _, _) = cond_br_case(&mut s, c, false);
        assert!(!apply(&mut s, &CondBranchIdenticalSuccessors, op));
    }

    #[test]
    fn br_merges_single_predecessor_block() {
        let mut s = setup();
        let i32t: Type = s.ctx.i32_type();
        let b = s.return_block(&[i32t]);
        let a = s.arg(1);
        let br = build_br(&mut s.ctx, b, &[a], s.loc);
        s.ctx.append_op(s.entry, br);
        assert!(apply(&mut s, &BranchToSinglePredBlock, br));
        assert_eq!(terminator_name(&s), "test.return");
        let r = s.ctx.region(s.func, 0);
        assert_eq!(s.ctx.region_blocks(r).len(), 1);
    }

    #[test]
    fn br_keeps_block_with_two_predecessors() {
        let mut s = setup();
        let b = s.return_block(&[]);
        let c = s.arg(0);
        let op = build_cond_br(&mut s.ctx, c, (b, &[]), (b, &[]), s.loc);
        s.ctx.append_op(s.entry, op);
        // A second block branching to `b` as well.
        let mid = s.ctx.create_block(&[], s.loc);
        let r = s.ctx.region(s.func, 0);
        s.ctx.append_block(r, mid);
        let br = build_br(&mut s.ctx, b, &[], s.loc);
        s.ctx.append_op(mid, br);
        assert!(!apply(&mut s, &BranchToSinglePredBlock, br));
    }

    #[test]
    fn assert_true_is_erased() {
        let mut s = setup();
        let c = const_i1(&mut s, true);
        let msg = s.ctx.string_attr("m");
        let st = OperationState::new(&mut s.ctx, "cf.assert", s.loc)
            .operands(&[c])
            .prop(&mut s.ctx, "msg", msg);
        let op = s.ctx.create_op(st);
        s.ctx.append_op(s.entry, op);
        s.ret();
        assert!(apply(&mut s, &AssertTrue, op));
        assert!(s.ctx.is_erased(op));

        let mut s = setup();
        let c = const_i1(&mut s, false);
        let msg = s.ctx.string_attr("m");
        let st = OperationState::new(&mut s.ctx, "cf.assert", s.loc)
            .operands(&[c])
            .prop(&mut s.ctx, "msg", msg);
        let op = s.ctx.create_op(st);
        s.ctx.append_op(s.entry, op);
        s.ret();
        assert!(!apply(&mut s, &AssertTrue, op));
    }

    /// `cf.switch %flag : i32, [default: ^d, 1: ^one(%a), 2: ^two]` with `%flag` a constant
    /// (or the function argument when `flag` is `None`); returns the switch and its blocks.
    fn switch_case(s: &mut TestFunc, flag: Option<i128>, cases: bool) -> (Op, [Block; 3]) {
        let i32t = s.ctx.i32_type();
        let d = s.return_block(&[]);
        let one = s.return_block(&[i32t]);
        let two = s.return_block(&[]);
        let flag = match flag {
            Some(v) => {
                let attr = s.ctx.int_attr(i32t, v);
                let k = nart_dialect_arith::build_constant(&mut s.ctx, attr, i32t, s.loc);
                s.ctx.append_op(s.entry, k);
                s.ctx.result(k, 0)
            }
            None => s.arg(1),
        };
        let a = s.arg(2);
        type Parts = (Vec<i32>, Vec<Block>, Vec<Value>, [i64; 3], Vec<i64>);
        let (values, dests, operands, segs, case_segs): Parts = if cases {
            (
                vec![1, 2],
                vec![d, one, two],
                vec![flag, a],
                [1, 0, 1],
                vec![1, 0],
            )
        } else {
            (vec![], vec![d], vec![flag], [1, 0, 0], vec![])
        };
        let seg = crate::segment_sizes(&mut s.ctx, &segs);
        let cseg = crate::segment_sizes(&mut s.ctx, &case_segs);
        let mut st = OperationState::new(&mut s.ctx, "cf.switch", s.loc)
            .operands(&operands)
            .successors(&dests)
            .prop(&mut s.ctx, "operandSegmentSizes", seg)
            .prop(&mut s.ctx, "case_operand_segments", cseg);
        if cases {
            let vt = s.ctx.intern_type(nart_ir::TypeData::Vector {
                shape: vec![values.len() as i64],
                scalable: vec![false],
                elem: i32t,
            });
            let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            let cv = s.ctx.intern_attr(AttrData::DenseElements {
                ty: vt,
                data: nart_ir::DenseData::Elements(bytes),
            });
            st = st.prop(&mut s.ctx, "case_values", cv);
        }
        let op = s.ctx.create_op(st);
        s.ctx.append_op(s.entry, op);
        (op, [d, one, two])
    }

    #[test]
    fn switch_on_constant_flag() {
        // (flag, index of the expected destination among [default, one, two]).
        for (flag, want) in [(1, 1), (2, 2), (7, 0), (-1, 0)] {
            let mut s = setup();
            let (op, blocks) = switch_case(&mut s, Some(flag), true);
            assert!(apply(&mut s, &SwitchConstantFlag, op), "flag {flag}");
            let br = s
                .ctx
                .block_last_op(s.entry)
                .unwrap_or_else(|| unreachable!());
            assert_eq!(s.ctx.op_name_str(br), "cf.br");
            assert_eq!(s.ctx.successors(br), &[blocks[want]], "flag {flag}");
            let n_args = if want == 1 { 1 } else { 0 };
            assert_eq!(s.ctx.operands(br).len(), n_args);
        }
        let mut s = setup();
        let (op, _) = switch_case(&mut s, None, true);
        assert!(!apply(&mut s, &SwitchConstantFlag, op));
    }

    #[test]
    fn switch_without_cases() {
        let mut s = setup();
        let (op, blocks) = switch_case(&mut s, None, false);
        assert!(apply(&mut s, &SwitchNoCases, op));
        let br = s
            .ctx
            .block_last_op(s.entry)
            .unwrap_or_else(|| unreachable!());
        assert_eq!(s.ctx.successors(br), &[blocks[0]]);
        let mut s = setup();
        let (op, _) = switch_case(&mut s, None, true);
        assert!(!apply(&mut s, &SwitchNoCases, op));
    }
}
