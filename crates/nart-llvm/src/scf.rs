//! `scf` to LLVM IR, translated directly into blocks and phis (what `convert-scf-to-cf`
//! followed by the `cf` translation would give, in one step).
//!
//! - `scf.for`: a header block with a phi per induction variable and loop-carried value, the
//!   comparison (signed, or unsigned for `unsignedCmp`), the body, and a latch that adds the
//!   step; the results are the header's phis on exit.
//! - `scf.if`: then and else blocks meeting in a block with a phi per result.
//! - `scf.while`: the `before` block with a phi per argument, ending in the condition's branch;
//!   the `after` block uses the condition's operands, which are also the results.
//! - `scf.parallel` without reductions and not inside another one: a body function run on
//!   the runtime's thread pool ([`crate::parallel`]).
//! - any other `scf.parallel`: a nest of sequential loops, one per dimension, carrying the reductions;
//!   each `scf.reduce` region is inlined to combine the running value with the iteration's.

use inkwell::basic_block::BasicBlock;
use inkwell::values::{BasicValue, BasicValueEnum, InstructionOpcode as Opc, PhiValue};
use inkwell::IntPredicate;
use nart_ir::{Block, Diagnostic, Op};

use crate::translate::{builder_err, FnTranslator, OpResult};

/// Whether the translator knows `name`, an `scf` op.
pub fn is_known(name: &str) -> bool {
    matches!(
        name,
        "scf.for"
            | "scf.if"
            | "scf.while"
            | "scf.yield"
            | "scf.condition"
            | "scf.parallel"
            | "scf.reduce"
            | "scf.reduce.return"
    )
}

impl<'ll> FnTranslator<'_, '_, 'll> {
    fn new_block_after(&self, after: BasicBlock<'ll>) -> BasicBlock<'ll> {
        self.m.ll.insert_basic_block_after(after, "")
    }

    fn current_block(&self) -> BasicBlock<'ll> {
        self.builder
            .get_insert_block()
            .expect("the builder is positioned in a block")
    }

    /// The values of a terminator's operands (none when the region has no terminator).
    fn terminator_values(
        &self,
        term: Option<Op>,
        skip: usize,
    ) -> Result<Vec<BasicValueEnum<'ll>>, Diagnostic> {
        let Some(t) = term else {
            return Ok(Vec::new());
        };
        (skip..self.ir().operands(t).len())
            .map(|i| self.operand(t, i))
            .collect()
    }

    fn phis(
        &self,
        op: Op,
        types: &[BasicValueEnum<'ll>],
    ) -> Result<Vec<PhiValue<'ll>>, Diagnostic> {
        types
            .iter()
            .map(|v| {
                self.builder
                    .build_phi(v.get_type(), "")
                    .map_err(|e| self.builder_error(op, e))
            })
            .collect()
    }

    /// The single block of region `i` of `op`.
    fn single_block(&self, op: Op, i: usize) -> Result<Option<Block>, Diagnostic> {
        let ir = self.ir();
        let Some(&r) = ir.regions(op).get(i) else {
            return Ok(None);
        };
        match ir.region_blocks(r) {
            [] => Ok(None),
            [b] => Ok(Some(*b)),
            _ => Err(ir.op_error(
                op,
                "has a region of several blocks, which is not translated",
            )),
        }
    }
}

/// Translates one `scf` op (terminators are handled by their parents).
pub(crate) fn lower(fx: &mut FnTranslator<'_, '_, '_>, op: Op, name: &str) -> OpResult {
    match name {
        "scf.for" => lower_for(fx, op),
        "scf.if" => lower_if(fx, op),
        "scf.while" => lower_while(fx, op),
        "scf.parallel" => lower_parallel(fx, op),
        _ => Err(fx
            .ir()
            .op_error(op, "cannot be translated outside of the op it terminates")),
    }
}

fn lower_for(fx: &mut FnTranslator<'_, '_, '_>, op: Op) -> OpResult {
    let ir = fx.m.ir;
    let e = builder_err(ir, op);
    let lb = fx.operand(op, 0)?;
    let ub = fx.operand(op, 1)?;
    let step = fx.operand(op, 2)?;
    let inits: Vec<BasicValueEnum> = (3..ir.operands(op).len())
        .map(|i| fx.operand(op, i))
        .collect::<Result<_, _>>()?;
    let unsigned = ir.attr(op, "unsignedCmp").is_some();
    let body_block = fx
        .single_block(op, 0)?
        .ok_or_else(|| ir.op_error(op, "has no body"))?;

    let pre = fx.current_block();
    let header = fx.new_block_after(pre);
    let body = fx.new_block_after(header);
    let exit = fx.new_block_after(body);
    fx.builder.build_unconditional_branch(header).map_err(e)?;

    fx.builder.position_at_end(header);
    let iv = fx.phis(op, &[lb])?.remove(0);
    let iters = fx.phis(op, &inits)?;
    iv.add_incoming(&[(&lb as &dyn BasicValue, pre)]);
    for (p, v) in iters.iter().zip(&inits) {
        p.add_incoming(&[(v as &dyn BasicValue, pre)]);
    }
    let pred = if unsigned {
        IntPredicate::ULT
    } else {
        IntPredicate::SLT
    };
    let cond = fx
        .builder
        .build_int_compare(
            pred,
            iv.as_basic_value().into_int_value(),
            ub.into_int_value(),
            "",
        )
        .map_err(e)?;
    fx.builder
        .build_conditional_branch(cond, body, exit)
        .map_err(e)?;

    fx.builder.position_at_end(body);
    let args = ir.block_args(body_block).to_vec();
    fx.bind(args[0], iv.as_basic_value());
    for (a, p) in args[1..].iter().zip(&iters) {
        fx.bind(*a, p.as_basic_value());
    }
    let term = fx.lower_nested_block(body_block)?;
    let yielded = fx.terminator_values(term, 0)?;
    let next = fx
        .builder
        .build_binop(Opc::Add, iv.as_basic_value(), step, "")
        .map_err(e)?;
    let latch = fx.current_block();
    fx.builder.build_unconditional_branch(header).map_err(e)?;
    iv.add_incoming(&[(&next as &dyn BasicValue, latch)]);
    for (p, v) in iters.iter().zip(&yielded) {
        p.add_incoming(&[(v as &dyn BasicValue, latch)]);
    }

    fx.builder.position_at_end(exit);
    for (i, p) in iters.iter().enumerate() {
        fx.set_result(op, i, p.as_basic_value());
    }
    Ok(())
}

fn lower_if(fx: &mut FnTranslator<'_, '_, '_>, op: Op) -> OpResult {
    let ir = fx.m.ir;
    let e = builder_err(ir, op);
    let cond = fx.operand(op, 0)?.into_int_value();
    let then_block = fx.single_block(op, 0)?;
    let else_block = fx.single_block(op, 1)?;
    let pre = fx.current_block();
    let then_bb = fx.new_block_after(pre);
    let else_bb = else_block.map(|_| fx.new_block_after(then_bb));
    let merge = fx.new_block_after(else_bb.unwrap_or(then_bb));
    fx.builder
        .build_conditional_branch(cond, then_bb, else_bb.unwrap_or(merge))
        .map_err(e)?;

    let mut incoming: Vec<(Vec<BasicValueEnum>, BasicBlock)> = Vec::new();
    for (block, bb) in [(then_block, then_bb)]
        .into_iter()
        .chain(else_block.map(|b| (Some(b), else_bb.expect("made with the else block"))))
    {
        fx.builder.position_at_end(bb);
        let term = match block {
            Some(b) => fx.lower_nested_block(b)?,
            None => None,
        };
        let vals = fx.terminator_values(term, 0)?;
        incoming.push((vals, fx.current_block()));
        fx.builder.build_unconditional_branch(merge).map_err(e)?;
    }

    fx.builder.position_at_end(merge);
    let n = ir.results(op).len();
    for i in 0..n {
        let ty = fx.result_ty(op, i);
        let phi = fx.builder.build_phi(ty, "").map_err(e)?;
        for (vals, bb) in &incoming {
            let v = vals
                .get(i)
                .ok_or_else(|| ir.op_error(op, "has a region that yields too few values"))?;
            phi.add_incoming(&[(v as &dyn BasicValue, *bb)]);
        }
        fx.set_result(op, i, phi.as_basic_value());
    }
    Ok(())
}

fn lower_while(fx: &mut FnTranslator<'_, '_, '_>, op: Op) -> OpResult {
    let ir = fx.m.ir;
    let e = builder_err(ir, op);
    let inits: Vec<BasicValueEnum> = (0..ir.operands(op).len())
        .map(|i| fx.operand(op, i))
        .collect::<Result<_, _>>()?;
    let before_block = fx
        .single_block(op, 0)?
        .ok_or_else(|| ir.op_error(op, "has no before region"))?;
    let after_block = fx
        .single_block(op, 1)?
        .ok_or_else(|| ir.op_error(op, "has no after region"))?;

    let pre = fx.current_block();
    let before = fx.new_block_after(pre);
    let after = fx.new_block_after(before);
    let exit = fx.new_block_after(after);
    fx.builder.build_unconditional_branch(before).map_err(e)?;

    fx.builder.position_at_end(before);
    let phis = fx.phis(op, &inits)?;
    for ((p, v), a) in phis.iter().zip(&inits).zip(ir.block_args(before_block)) {
        p.add_incoming(&[(v as &dyn BasicValue, pre)]);
        fx.bind(*a, p.as_basic_value());
    }
    let cond_op = fx
        .lower_nested_block(before_block)?
        .ok_or_else(|| ir.op_error(op, "has a before region without scf.condition"))?;
    let cond = fx.operand(cond_op, 0)?.into_int_value();
    let passed = fx.terminator_values(Some(cond_op), 1)?;
    fx.builder
        .build_conditional_branch(cond, after, exit)
        .map_err(e)?;

    fx.builder.position_at_end(after);
    for (a, v) in ir.block_args(after_block).iter().zip(&passed) {
        fx.bind(*a, *v);
    }
    let term = fx.lower_nested_block(after_block)?;
    let yielded = fx.terminator_values(term, 0)?;
    let latch = fx.current_block();
    fx.builder.build_unconditional_branch(before).map_err(e)?;
    for (p, v) in phis.iter().zip(&yielded) {
        p.add_incoming(&[(v as &dyn BasicValue, latch)]);
    }

    fx.builder.position_at_end(exit);
    for (i, v) in passed.iter().enumerate() {
        fx.set_result(op, i, *v);
    }
    Ok(())
}

fn lower_parallel(fx: &mut FnTranslator<'_, '_, '_>, op: Op) -> OpResult {
    let ir = fx.m.ir;
    if crate::parallel::is_outlined(ir, op) {
        return crate::parallel::lower(fx, op);
    }
    let groups = nart_ir::registry::value_groups(ir, op, false)
        .ok_or_else(|| ir.op_error(op, "has malformed operand segments"))?;
    let mut vals = Vec::new();
    for g in &groups[..4] {
        let v: Vec<BasicValueEnum> = g
            .clone()
            .map(|i| fx.operand(op, i))
            .collect::<Result<_, _>>()?;
        vals.push(v);
    }
    let [lbs, ubs, steps, inits]: [Vec<BasicValueEnum>; 4] =
        vals.try_into().expect("four operand groups");
    let body_block = fx
        .single_block(op, 0)?
        .ok_or_else(|| ir.op_error(op, "has no body"))?;
    let results = nest(fx, op, body_block, &lbs, &ubs, &steps, inits, 0)?;
    for (i, v) in results.into_iter().enumerate() {
        fx.set_result(op, i, v);
    }
    Ok(())
}

/// The loop of dimension `d` of an `scf.parallel` and, inside it, the others; returns the
/// reductions' values after it.
#[allow(clippy::too_many_arguments)]
fn nest<'ll>(
    fx: &mut FnTranslator<'_, '_, 'll>,
    op: Op,
    body_block: Block,
    lbs: &[BasicValueEnum<'ll>],
    ubs: &[BasicValueEnum<'ll>],
    steps: &[BasicValueEnum<'ll>],
    accs: Vec<BasicValueEnum<'ll>>,
    d: usize,
) -> Result<Vec<BasicValueEnum<'ll>>, Diagnostic> {
    let ir = fx.m.ir;
    let e = builder_err(ir, op);
    if d == lbs.len() {
        // The body, then each reduction region combining the running value with this
        // iteration's.
        let term = fx.lower_nested_block(body_block)?;
        let Some(reduce) = term else {
            return Ok(accs);
        };
        let mut out = Vec::with_capacity(accs.len());
        for (k, acc) in accs.iter().enumerate() {
            let v = fx.operand(reduce, k)?;
            let region = ir.region(reduce, k);
            let [rb] = ir.region_blocks(region) else {
                return Err(ir.op_error(reduce, "has a reduction region that is not one block"));
            };
            let args = ir.block_args(*rb).to_vec();
            fx.bind(args[0], *acc);
            fx.bind(args[1], v);
            let ret = fx
                .lower_nested_block(*rb)?
                .ok_or_else(|| ir.op_error(reduce, "has a region without scf.reduce.return"))?;
            out.push(fx.operand(ret, 0)?);
        }
        return Ok(out);
    }
    let pre = fx.current_block();
    let header = fx.new_block_after(pre);
    let body = fx.new_block_after(header);
    let exit = fx.new_block_after(body);
    fx.builder.build_unconditional_branch(header).map_err(e)?;
    fx.builder.position_at_end(header);
    let iv = fx.phis(op, &lbs[d..=d])?.remove(0);
    let acc_phis = fx.phis(op, &accs)?;
    iv.add_incoming(&[(&lbs[d] as &dyn BasicValue, pre)]);
    for (p, v) in acc_phis.iter().zip(&accs) {
        p.add_incoming(&[(v as &dyn BasicValue, pre)]);
    }
    let cond = fx
        .builder
        .build_int_compare(
            IntPredicate::SLT,
            iv.as_basic_value().into_int_value(),
            ubs[d].into_int_value(),
            "",
        )
        .map_err(e)?;
    fx.builder
        .build_conditional_branch(cond, body, exit)
        .map_err(e)?;
    fx.builder.position_at_end(body);
    fx.bind(ir.block_args(body_block)[d], iv.as_basic_value());
    let inner: Vec<BasicValueEnum> = acc_phis.iter().map(|p| p.as_basic_value()).collect();
    let next_accs = nest(fx, op, body_block, lbs, ubs, steps, inner, d + 1)?;
    let next = fx
        .builder
        .build_binop(Opc::Add, iv.as_basic_value(), steps[d], "")
        .map_err(e)?;
    let latch = fx.current_block();
    fx.builder.build_unconditional_branch(header).map_err(e)?;
    iv.add_incoming(&[(&next as &dyn BasicValue, latch)]);
    for (p, v) in acc_phis.iter().zip(&next_accs) {
        p.add_incoming(&[(v as &dyn BasicValue, latch)]);
    }
    fx.builder.position_at_end(exit);
    Ok(acc_phis.iter().map(|p| p.as_basic_value()).collect())
}
