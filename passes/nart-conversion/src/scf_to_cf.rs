//! `convert-scf-to-cf`: lowers the structured control flow of `scf` (`for`, `if`, `while`,
//! `parallel`, `execute_region`) to blocks and `cf` branches, as upstream's
//! `SCFToControlFlow` does, with the same block layout so the output reads the same.
//!
//! - `scf.for`: the block holding the loop is split at it; the body's entry block becomes the
//!   condition block (its arguments, the induction variable and the loop-carried values, are
//!   the loop's state), which compares the induction variable with the upper bound (`slt`, or
//!   `ult` for `unsigned`) and branches to the rest of the body or out of the loop; the body's
//!   last block adds the step and branches back with the yielded values.
//! - `scf.if`: a conditional branch to the inlined then and else blocks, which branch to a
//!   continuation block whose arguments are the results.
//! - `scf.while`: the `before` region is inlined and its `scf.condition` becomes a conditional
//!   branch into `after` or out of the loop; `after`'s `scf.yield` branches back. A loop whose
//!   `after` region only forwards its arguments is a do-while and keeps the `before` region
//!   alone.
//! - `scf.parallel`: a nest of `scf.for` loops (lowered in turn), the reductions applied in
//!   the innermost body in order.
//! - `scf.execute_region`: its blocks inlined, each `scf.yield` a branch to the continuation.
//!
//! With `keep-parallel=true`, an `scf.parallel` without reductions that no other
//! `scf.parallel` encloses stays, with every `scf` op inside it: `nart-llvm` translates it
//! to a body function that the runtime's thread pool runs on slices of the iteration space.
//!
//! Each is a [`ConversionPattern`]; [`populate_patterns`] adds them to a set.

use nart_ir::builder::InsertPoint;
use nart_ir::{AttrData, Block, DenseArrayData, Location, Op, OperationState, Type, Value};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::conversion::{
    apply_partial_conversion, ConversionPattern, ConversionPatternSet, ConversionRewriter,
    ConversionTarget, OpAdaptor,
};

/// The ops the conversion removes.
pub const ILLEGAL_OPS: [&str; 5] = [
    "scf.for",
    "scf.if",
    "scf.while",
    "scf.parallel",
    "scf.execute_region",
];

/// Adds the `scf` to `cf` lowering patterns to `set`.
pub fn populate_patterns(set: &mut ConversionPatternSet) {
    set.add(ForLowering)
        .add(IfLowering)
        .add(WhileLowering)
        .add(DoWhileLowering)
        .add(ParallelLowering)
        .add(ExecuteRegionLowering);
}

nart_pass::pass_options! {
    /// The options of `convert-scf-to-cf`.
    pub struct ScfToCfOptions {
        /// Keep scf.parallel loops without reductions, and the scf ops inside them, for nart-llvm to run on threads
        #[name = "keep-parallel"]
        pub keep_parallel: bool = false,
    }
}

/// Whether `op` is an `scf.parallel` without reductions, or inside one: what
/// `keep-parallel=true` leaves.
pub fn in_kept_parallel(ctx: &nart_ir::Context, op: Op) -> bool {
    let mut cur = Some(op);
    while let Some(o) = cur {
        if ctx.op_name_str(o) == "scf.parallel" && ctx.results(o).is_empty() {
            return true;
        }
        cur = ctx.op_parent_op(o);
    }
    false
}

nart_pass::declare_pass! {
    /// The `convert-scf-to-cf` pass.
    pub struct ConvertScfToCfPass {
        argument: "convert-scf-to-cf",
        name: "SCFToControlFlowPass",
        summary: "Convert SCF dialect to ControlFlow dialect, replacing structured control flow with a CFG",
        description: "Lowers `scf.for`, `scf.if`, `scf.while`, `scf.parallel` and \
            `scf.execute_region` to blocks, `cf.br` and `cf.cond_br` (with `arith.addi` and \
            `arith.cmpi` for the loop counters), with the core's partial dialect conversion: \
            every other op is legal, and an `scf` op the patterns cannot lower (a malformed \
            region) is reported at its location, leaving the IR unchanged. With \
            `keep-parallel=true`, `scf.parallel` loops without reductions stay, with the \
            `scf` ops inside them, for the LLVM translation to run on the thread pool.",
        options: ScfToCfOptions,
    }
}

impl Pass for ConvertScfToCfPass {
    fn run(
        &mut self,
        ctx: &mut nart_ir::Context,
        op: Op,
        _: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let mut target = ConversionTarget::new();
        for name in ILLEGAL_OPS {
            if self.opts.keep_parallel {
                target.add_dynamically_legal_op(name, |cx, op| in_kept_parallel(cx, op));
            } else {
                target.add_illegal_op(name);
            }
        }
        target.mark_unknown_ops_legal();
        let mut patterns = ConversionPatternSet::new();
        populate_patterns(&mut patterns);
        apply_partial_conversion(ctx, op, &target, &patterns, None)
            .map(|_| ())
            .map_err(|e| PassFailure::with_diagnostics(e.diagnostics))
    }
}

// ----- building the target ops -----

fn i32_array(rw: &mut ConversionRewriter<'_, '_>, v: &[i64]) -> nart_ir::Attr {
    let elem = rw.uniq().i32_type();
    rw.uniq().intern_attr(AttrData::DenseArray {
        elem,
        data: DenseArrayData::Int(v.to_vec()),
    })
}

fn br(rw: &mut ConversionRewriter<'_, '_>, dest: Block, args: &[Value], loc: Location) -> Op {
    let st = OperationState::new(rw.uniq(), "cf.br", loc)
        .operands(args)
        .successors(&[dest]);
    rw.create(st)
}

fn cond_br_state(
    rw: &mut ConversionRewriter<'_, '_>,
    cond: Value,
    (t, t_args): (Block, &[Value]),
    (f, f_args): (Block, &[Value]),
    loc: Location,
) -> OperationState {
    let mut operands = vec![cond];
    operands.extend_from_slice(t_args);
    operands.extend_from_slice(f_args);
    let seg = i32_array(rw, &[1, t_args.len() as i64, f_args.len() as i64]);
    OperationState::new(rw.uniq(), "cf.cond_br", loc)
        .operands(&operands)
        .successors(&[t, f])
        .prop(rw.uniq(), "operandSegmentSizes", seg)
}

/// The block and the position the driver set for the op being converted (right before it).
fn split_at_op(rw: &mut ConversionRewriter<'_, '_>, op: Op) -> Option<(Block, Block)> {
    let block = rw.op_parent_block(op)?;
    let rest = rw.split_block(block, op);
    Some((block, rest))
}

fn entry_block(rw: &ConversionRewriter<'_, '_>, op: Op, region: usize) -> Option<Block> {
    rw.region_blocks(rw.region(op, region)).first().copied()
}

fn last_block(rw: &ConversionRewriter<'_, '_>, op: Op, region: usize) -> Option<Block> {
    rw.region_blocks(rw.region(op, region)).last().copied()
}

/// The terminator of `b` when it is named `name`.
fn terminator(rw: &ConversionRewriter<'_, '_>, b: Block, name: &str) -> Option<Op> {
    rw.block_last_op(b).filter(|&t| rw.op_name_str(t) == name)
}

/// The region holding `block`.
fn region_of(rw: &ConversionRewriter<'_, '_>, block: Block) -> Option<nart_ir::Region> {
    rw.block_parent_region(block)
}

// ----- scf.for -----

/// Lowers `scf.for` to a condition block and a back edge.
pub struct ForLowering;

impl ConversionPattern for ForLowering {
    fn name(&self) -> &'static str {
        "ForLowering"
    }
    fn root(&self) -> Option<&'static str> {
        Some("scf.for")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let loc = rw.op_loc(op);
        let (Some(cond_block), Some(last)) = (entry_block(rw, op, 0), last_block(rw, op, 0)) else {
            return false;
        };
        let Some(yield_op) = terminator(rw, last, "scf.yield") else {
            return false;
        };
        let Some(&iv) = rw.block_args(cond_block).first() else {
            return false;
        };
        let operands = rw.operands(op).to_vec();
        let (lb, ub, step, inits) = (
            operands[0],
            operands[1],
            operands[2],
            operands[3..].to_vec(),
        );
        let unsigned = rw.attr(op, "unsignedCmp").is_some();
        let Some((init_block, end_block)) = split_at_op(rw, op) else {
            return false;
        };
        let Some(parent_region) = region_of(rw, init_block) else {
            return false;
        };
        // The body's entry block is the condition block; its ops move to the first body block.
        let first_op = rw.block_first_op(cond_block);
        let first_body = match first_op {
            Some(first) => rw.split_block(cond_block, first),
            None => return false,
        };
        let last = if last == cond_block { first_body } else { last };
        let body_region = rw.region(op, 0);
        rw.inline_region_before(body_region, parent_region, Some(end_block));
        // Step and branch back, with the yielded values.
        rw.set_insertion_point_to_end(last);
        let iv_ty = rw.value_type(iv);
        let add = OperationState::new(rw.uniq(), "arith.addi", loc)
            .operands(&[iv, step])
            .results(&[iv_ty]);
        let add = rw.create(add);
        let stepped = rw.result(add, 0);
        let mut carried = vec![stepped];
        carried.extend_from_slice(rw.operands(yield_op));
        br(rw, cond_block, &carried, loc);
        rw.erase_op(yield_op);
        // Enter the loop from the block before it.
        rw.set_insertion_point_to_end(init_block);
        let mut entry = vec![lb];
        entry.extend_from_slice(&inits);
        br(rw, cond_block, &entry, loc);
        // The condition.
        rw.set_insertion_point_to_end(cond_block);
        let i64t = rw.uniq().i64_type();
        let i1 = rw.uniq().i1_type();
        let pred = rw.uniq().int_attr(i64t, if unsigned { 6 } else { 2 });
        let cmp = OperationState::new(rw.uniq(), "arith.cmpi", loc)
            .operands(&[iv, ub])
            .results(&[i1])
            .prop(rw.uniq(), "predicate", pred);
        let cmp = rw.create(cmp);
        let c = rw.result(cmp, 0);
        let st = cond_br_state(rw, c, (first_body, &[]), (end_block, &[]), loc);
        rw.create(st);
        let results = rw.block_args(cond_block)[1..].to_vec();
        rw.replace_op(op, &results);
        true
    }
}

// ----- scf.if -----

/// Lowers `scf.if` to a conditional branch and a continuation block.
pub struct IfLowering;

impl ConversionPattern for IfLowering {
    fn name(&self) -> &'static str {
        "IfLowering"
    }
    fn root(&self) -> Option<&'static str> {
        Some("scf.if")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let loc = rw.op_loc(op);
        let cond = rw.operand(op, 0);
        let result_types: Vec<Type> = rw.results(op).iter().map(|&r| rw.value_type(r)).collect();
        let (Some(then_first), Some(then_last)) = (entry_block(rw, op, 0), last_block(rw, op, 0))
        else {
            return false;
        };
        let Some(then_yield) = terminator(rw, then_last, "scf.yield") else {
            return false;
        };
        let else_blocks = match (entry_block(rw, op, 1), last_block(rw, op, 1)) {
            (Some(first), Some(last)) => match terminator(rw, last, "scf.yield") {
                Some(y) => Some((first, last, y)),
                None => return false,
            },
            _ => None,
        };
        let Some((cond_block, rest)) = split_at_op(rw, op) else {
            return false;
        };
        let Some(parent_region) = region_of(rw, cond_block) else {
            return false;
        };
        let continue_block = if result_types.is_empty() {
            rest
        } else {
            let b = rw.create_block(parent_region, Some(rest), &result_types, loc);
            br(rw, rest, &[], loc);
            b
        };
        // The then blocks branch to the continuation with what they yield.
        rw.set_insertion_point_to_end(then_last);
        let vals = rw.operands(then_yield).to_vec();
        br(rw, continue_block, &vals, loc);
        rw.erase_op(then_yield);
        let then_region = rw.region(op, 0);
        rw.inline_region_before(then_region, parent_region, Some(continue_block));
        // So do the else blocks, placed after them.
        let mut else_block = continue_block;
        if let Some((first, last, y)) = else_blocks {
            else_block = first;
            rw.set_insertion_point_to_end(last);
            let vals = rw.operands(y).to_vec();
            br(rw, continue_block, &vals, loc);
            rw.erase_op(y);
            let else_region = rw.region(op, 1);
            rw.inline_region_before(else_region, parent_region, Some(continue_block));
        }
        rw.set_insertion_point_to_end(cond_block);
        let st = cond_br_state(rw, cond, (then_first, &[]), (else_block, &[]), loc);
        rw.create(st);
        let results = rw.block_args(continue_block).to_vec();
        rw.replace_op(op, &results);
        true
    }
}

// ----- scf.while -----

/// The parts of an `scf.while` both lowerings need: the `before` region's first and last
/// blocks and its `scf.condition`.
fn while_before(rw: &ConversionRewriter<'_, '_>, op: Op) -> Option<(Block, Block, Op)> {
    let first = entry_block(rw, op, 0)?;
    let last = last_block(rw, op, 0)?;
    let cond = terminator(rw, last, "scf.condition")?;
    Some((first, last, cond))
}

/// Replaces the `scf.condition` ending the `before` region with a conditional branch to `then`
/// (with the condition's values) or to `exit`, and returns those values.
fn lower_condition(
    rw: &mut ConversionRewriter<'_, '_>,
    cond_op: Op,
    then: Block,
    exit: Block,
    loc: Location,
) -> Vec<Value> {
    let operands = rw.operands(cond_op).to_vec();
    let args = operands[1..].to_vec();
    rw.set_insertion_point_before(cond_op);
    let st = cond_br_state(rw, operands[0], (then, &args), (exit, &[]), loc);
    rw.create(st);
    rw.erase_op(cond_op);
    args
}

/// Lowers `scf.while` to its two regions linked by branches.
pub struct WhileLowering;

impl ConversionPattern for WhileLowering {
    fn name(&self) -> &'static str {
        "WhileLowering"
    }
    fn root(&self) -> Option<&'static str> {
        Some("scf.while")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let loc = rw.op_loc(op);
        let Some((before, _, cond_op)) = while_before(rw, op) else {
            return false;
        };
        let (Some(after), Some(after_last)) = (entry_block(rw, op, 1), last_block(rw, op, 1))
        else {
            return false;
        };
        let Some(yield_op) = terminator(rw, after_last, "scf.yield") else {
            return false;
        };
        let inits = rw.operands(op).to_vec();
        let Some((current, continuation)) = split_at_op(rw, op) else {
            return false;
        };
        let Some(parent_region) = region_of(rw, current) else {
            return false;
        };
        let (before_region, after_region) = (rw.region(op, 0), rw.region(op, 1));
        rw.inline_region_before(after_region, parent_region, Some(continuation));
        rw.inline_region_before(before_region, parent_region, Some(after));
        rw.set_insertion_point_to_end(current);
        br(rw, before, &inits, loc);
        let args = lower_condition(rw, cond_op, after, continuation, loc);
        rw.set_insertion_point_before(yield_op);
        let vals = rw.operands(yield_op).to_vec();
        br(rw, before, &vals, loc);
        rw.erase_op(yield_op);
        rw.replace_op(op, &args);
        true
    }
}

/// Lowers an `scf.while` whose `after` region only forwards its arguments back (a do-while
/// loop): the `before` region branches to itself.
pub struct DoWhileLowering;

impl ConversionPattern for DoWhileLowering {
    fn name(&self) -> &'static str {
        "DoWhileLowering"
    }
    fn root(&self) -> Option<&'static str> {
        Some("scf.while")
    }
    fn benefit(&self) -> u16 {
        2
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let loc = rw.op_loc(op);
        let after_region = rw.region(op, 1);
        let [after] = rw.region_blocks(after_region) else {
            return false;
        };
        let after = *after;
        let forwards = match rw.block_ops(after)[..] {
            [y] => rw.op_name_str(y) == "scf.yield" && rw.operands(y) == rw.block_args(after),
            _ => false,
        };
        if !forwards {
            return false;
        }
        let Some((before, _, cond_op)) = while_before(rw, op) else {
            return false;
        };
        let inits = rw.operands(op).to_vec();
        let Some((current, continuation)) = split_at_op(rw, op) else {
            return false;
        };
        let Some(parent_region) = region_of(rw, current) else {
            return false;
        };
        let before_region = rw.region(op, 0);
        rw.inline_region_before(before_region, parent_region, Some(continuation));
        rw.set_insertion_point_to_end(current);
        br(rw, before, &inits, loc);
        let args = lower_condition(rw, cond_op, before, continuation, loc);
        rw.replace_op(op, &args);
        true
    }
}

// ----- scf.parallel -----

/// Lowers `scf.parallel` to a nest of `scf.for` loops carrying the reduced values.
pub struct ParallelLowering;

impl ConversionPattern for ParallelLowering {
    fn name(&self) -> &'static str {
        "ParallelLowering"
    }
    fn root(&self) -> Option<&'static str> {
        Some("scf.parallel")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let loc = rw.op_loc(op);
        let Some(body) = entry_block(rw, op, 0) else {
            return false;
        };
        let Some(reduce) = terminator(rw, body, "scf.reduce") else {
            return false;
        };
        let seg = match rw.attr(op, "operandSegmentSizes").map(|a| rw.attr_data(a)) {
            Some(AttrData::DenseArray {
                data: DenseArrayData::Int(v),
                ..
            }) if v.len() == 4 => v.iter().map(|&n| n as usize).collect::<Vec<_>>(),
            _ => return false,
        };
        let operands = rw.operands(op).to_vec();
        let n = seg[0];
        if seg[1] != n || seg[2] != n || operands.len() != 3 * n + seg[3] {
            return false;
        }
        let (lbs, ubs, steps) = (&operands[..n], &operands[n..2 * n], &operands[2 * n..3 * n]);
        let mut iter_args = operands[3 * n..].to_vec();
        let n_results = rw.results(op).len();
        if rw.regions(reduce).len() != n_results {
            return false;
        }
        let mut ivs = Vec::with_capacity(n);
        let mut loop_results = iter_args.clone();
        for d in 0..n {
            let types: Vec<Type> = iter_args.iter().map(|&v| rw.value_type(v)).collect();
            let iv_ty = rw.value_type(lbs[d]);
            let mut arg_types = vec![iv_ty];
            arg_types.extend_from_slice(&types);
            let region = rw.create_region();
            let mut ops = vec![lbs[d], ubs[d], steps[d]];
            ops.extend_from_slice(&iter_args);
            let st = OperationState::new(rw.uniq(), "scf.for", loc)
                .operands(&ops)
                .results(&types)
                .regions(&[region]);
            // Create the loop where the insertion point is, then its body.
            let ip = rw.insertion_point();
            let for_op = rw.create(st);
            let for_body = rw.create_block(region, None, &arg_types, loc);
            if types.is_empty() {
                let y = OperationState::new(rw.uniq(), "scf.yield", loc);
                rw.create(y);
            }
            rw.set_insertion_point(ip);
            let args = rw.block_args(for_body).to_vec();
            ivs.push(args[0]);
            iter_args = args[1..].to_vec();
            let results = rw.results(for_op).to_vec();
            if d == 0 {
                loop_results = results;
            } else if !results.is_empty() {
                rw.set_insertion_point_after(for_op);
                let y = OperationState::new(rw.uniq(), "scf.yield", loc).operands(&results);
                rw.create(y);
            }
            rw.set_insertion_point(InsertPoint::BlockStart(for_body));
        }
        // The reductions, in order, combine each value into the loop-carried one.
        let inner = match rw.insertion_point() {
            InsertPoint::BlockStart(b) => b,
            _ => return false,
        };
        let reduce_operands = rw.operands(reduce).to_vec();
        let mut yielded = Vec::with_capacity(n_results);
        for i in 0..n_results {
            let r = rw.regions(reduce)[i];
            let Some(&rb) = rw.region_blocks(r).first() else {
                return false;
            };
            let Some(ret) = terminator(rw, rb, "scf.reduce.return") else {
                return false;
            };
            yielded.push(rw.operand(ret, 0));
            rw.erase_op(ret);
            rw.inline_block_before(rb, reduce, &[iter_args[i], reduce_operands[i]]);
        }
        rw.erase_op(reduce);
        // The body, without its terminator, goes into the innermost loop.
        match rw.block_last_op(inner) {
            Some(t) => rw.inline_block_before(body, t, &ivs),
            None => rw.merge_blocks(body, inner, &ivs),
        }
        if !yielded.is_empty() {
            rw.set_insertion_point_to_end(inner);
            let y = OperationState::new(rw.uniq(), "scf.yield", loc).operands(&yielded);
            rw.create(y);
        }
        rw.replace_op(op, &loop_results);
        true
    }
}

// ----- scf.execute_region -----

/// Inlines the blocks of `scf.execute_region`, its `scf.yield`s branching to the continuation.
pub struct ExecuteRegionLowering;

impl ConversionPattern for ExecuteRegionLowering {
    fn name(&self) -> &'static str {
        "ExecuteRegionLowering"
    }
    fn root(&self) -> Option<&'static str> {
        Some("scf.execute_region")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let loc = rw.op_loc(op);
        let Some(first) = entry_block(rw, op, 0) else {
            return false;
        };
        let region = rw.region(op, 0);
        let blocks = rw.region_blocks(region).to_vec();
        let result_types: Vec<Type> = rw.results(op).iter().map(|&r| rw.value_type(r)).collect();
        let Some((cond_block, rest)) = split_at_op(rw, op) else {
            return false;
        };
        let Some(parent_region) = region_of(rw, cond_block) else {
            return false;
        };
        rw.set_insertion_point_to_end(cond_block);
        br(rw, first, &[], loc);
        for b in blocks {
            if let Some(y) = terminator(rw, b, "scf.yield") {
                rw.set_insertion_point_before(y);
                let vals = rw.operands(y).to_vec();
                br(rw, rest, &vals, loc);
                rw.erase_op(y);
            }
        }
        rw.inline_region_before(region, parent_region, Some(rest));
        let mut results = Vec::with_capacity(result_types.len());
        for ty in result_types {
            let v = rw.add_block_arg(rest, ty, loc);
            results.push(v);
        }
        rw.replace_op(op, &results);
        true
    }
}
