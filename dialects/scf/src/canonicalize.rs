//! Canonicalization patterns of the `scf` dialect, each under a one-line algebra comment.
//! They move blocks out of regions, which declarative rules do not express, so they are
//! hand-written.

use nart_ir::{AttrData, Context, Op, PatternRewriter, RewritePattern, TypeData, Value};

/// The integer value of `v` when a constant-like op defines it.
fn constant_int(ctx: &Context, v: Value) -> Option<i128> {
    match ctx.attr_data(nart_ir::interfaces::constant_of(ctx, v)?) {
        AttrData::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

/// Moves the ops of the entry block of region `region` of `op` before `op`, with `args` for
/// the block's arguments, and replaces `op`'s results with what its `scf.yield` yields.
/// Returns `false`, changing nothing, when the region is not one block ending in `scf.yield`.
fn inline_region_and_replace(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    region: usize,
    args: &[Value],
) -> bool {
    let r = rw.region(op, region);
    let [block] = rw.region_blocks(r)[..] else {
        return false;
    };
    let Some(y) = rw
        .block_last_op(block)
        .filter(|&t| rw.op_name_str(t) == "scf.yield")
    else {
        return false;
    };
    if rw.block_args(block).len() != args.len() {
        return false;
    }
    let yielded = rw.operands(y).to_vec();
    rw.erase_op(y);
    rw.inline_block_before(block, op, args);
    rw.replace_op(op, &yielded);
    true
}

/// `scf.if true {A} else {B} → A`; `scf.if false {A} else {B} → B`;
/// `scf.if false {A} → ()` (upstream's `RemoveStaticCondition`).
pub struct IfConstantCondition;

impl RewritePattern for IfConstantCondition {
    fn name(&self) -> &'static str {
        "IfConstantCondition"
    }
    fn root(&self) -> Option<&'static str> {
        Some("scf.if")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let Some(c) = constant_int(rw, rw.operand(op, 0)) else {
            return rw.match_failure("the condition is not a constant");
        };
        let taken = if c != 0 { 0 } else { 1 };
        if rw.region_blocks(rw.region(op, taken)).is_empty() {
            if !rw.results(op).is_empty() {
                return rw.match_failure("an if with results has no else region");
            }
            rw.erase_op(op);
            return true;
        }
        inline_region_and_replace(rw, op, taken, &[])
            || rw.match_failure("the taken region is not one block ending in scf.yield")
    }
}

/// `scf.for %i = a to b step s iter_args(x) → x` when the loop runs zero times (`b <= a`,
/// compared as the loop compares, or the same bound value); its body with `%i = a` and the
/// iter_args bound to `x` when it runs exactly once (`a < b <= a + s`) (upstream's
/// `SimplifyTrivialLoops`).
pub struct ForTrivialTripCount;

impl RewritePattern for ForTrivialTripCount {
    fn name(&self) -> &'static str {
        "ForTrivialTripCount"
    }
    fn root(&self) -> Option<&'static str> {
        Some("scf.for")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let operands = rw.operands(op).to_vec();
        let (lb, ub, step, inits) = (operands[0], operands[1], operands[2], &operands[3..]);
        if lb == ub {
            rw.replace_op(op, inits);
            return true;
        }
        let (Some(l), Some(u)) = (constant_int(rw, lb), constant_int(rw, ub)) else {
            return rw.match_failure("the bounds are not constants");
        };
        let width = match rw.type_data(rw.value_type(lb)) {
            TypeData::Integer { width, .. } => *width,
            _ => 64,
        };
        let unsigned = rw.attr(op, "unsignedCmp").is_some();
        let norm = |v: i128| {
            nart_ir::util::normalize_int(
                v,
                width,
                if unsigned {
                    nart_ir::Signedness::Unsigned
                } else {
                    nart_ir::Signedness::Signed
                },
            )
        };
        let (l, u) = (norm(l), norm(u));
        if u <= l {
            rw.replace_op(op, inits);
            return true;
        }
        let Some(s) = constant_int(rw, step).map(norm).filter(|&s| s > 0) else {
            return rw.match_failure("the step is not a positive constant");
        };
        if u - l > s {
            return rw.match_failure("the loop runs more than once");
        }
        let mut args = vec![lb];
        args.extend_from_slice(inits);
        inline_region_and_replace(rw, op, 0, &args)
            || rw.match_failure("the body is not one block ending in scf.yield")
    }
}
