//! Outlining: each segment of a [`Plan`] becomes a `target.segment` holding its ops, with
//! quantize/dequantize casts where the two sides of a boundary want a value in different
//! precisions.
//!
//! Segments are outlined in the plan's (topological) order and each new `target.segment` goes
//! before the function's terminator, so the function body ends as: its constants, then the
//! segments in order, each preceded by the casts of its operands, then the casts of the
//! returned values, then the terminator.
//!
//! A value `v` crossing a boundary is seen by the target on each side in the precision that
//! target's [`Target::io_precision`] gives:
//! - a segment whose target wants `v` quantized yields `quant.qcast v` (the segment's result
//!   has the quantized type), or takes the quantized value as an operand and applies
//!   `quant.dcast` to it inside, first thing, so that the ops inside still see the graph's
//!   float type (the QDQ form a target's compiler fuses);
//! - between two segments, or before the terminator, a `quant.dcast` turns a quantized value
//!   back to float and a `quant.qcast` quantizes a float one, so that each consumer gets what
//!   it wants; one cast per value and precision serves every consumer.
//!
//! Every change goes through a [`PatternRewriter`].

use std::collections::{HashMap, HashSet};

use nart_dialect_quant::{DequantizeCastOp, QuantizeCastOp, UniformQuantizedType};
use nart_dialect_target::{SegmentOp, YieldOp};
use nart_ir::{
    Context, Diagnostic, Location, Op, OperationState, PatternRewriter, Trait, Type, TypeData,
    Uniquer, Value,
};

use super::{body_block, is_free, top_level_def, top_level_op, Plan};
use crate::target::{IoPrecision, Target};

/// What a segment reads and produces, found before anything moves.
struct Boundary {
    /// Values it reads from outside (function arguments and other segments' results), in the
    /// order of first use.
    inputs: Vec<Value>,
    /// The free ops (constants) its ops use.
    consts: Vec<Op>,
    /// Results of its ops used outside it, in op order.
    outputs: Vec<Value>,
}

fn boundary(ctx: &Context, block: nart_ir::Block, ops: &[Op]) -> Boundary {
    let set: HashSet<Op> = ops.iter().copied().collect();
    let mut b = Boundary {
        inputs: Vec::new(),
        consts: Vec::new(),
        outputs: Vec::new(),
    };
    for &op in ops {
        for nested in std::iter::once(op).chain(ctx.nested_ops(op)) {
            for &v in ctx.operands(nested) {
                match top_level_def(ctx, v, block) {
                    None => {
                        if ctx.value_parent_block(v) == Some(block) && !b.inputs.contains(&v) {
                            b.inputs.push(v);
                        }
                    }
                    Some(d) if set.contains(&d) => {}
                    Some(d) if is_free(ctx, d) => {
                        if !b.consts.contains(&d) {
                            b.consts.push(d);
                        }
                    }
                    Some(_) => {
                        if !b.inputs.contains(&v) {
                            b.inputs.push(v);
                        }
                    }
                }
            }
        }
        for &r in ctx.results(op) {
            let outside = ctx
                .uses(r)
                .iter()
                .any(|u| top_level_op(ctx, u.op, block).is_none_or(|t| !set.contains(&t)));
            if outside {
                b.outputs.push(r);
            }
        }
    }
    b
}

/// `ty` with its element type replaced by `elem` (a tensor keeps its shape).
fn with_element(ctx: &mut Uniquer, ty: Type, elem: Type) -> Type {
    match ctx.type_data(ty).clone() {
        TypeData::RankedTensor { shape, .. } => ctx.tensor_type(shape, elem),
        TypeData::UnrankedTensor { .. } => ctx.intern_type(TypeData::UnrankedTensor { elem }),
        _ => elem,
    }
}

/// A value of type `ty` in precision `p`.
fn type_in(ctx: &mut Uniquer, ty: Type, p: &IoPrecision) -> Type {
    match p {
        IoPrecision::AsIs => ty,
        IoPrecision::Quantized(q) => {
            let elem = ctx.dialect_type::<UniformQuantizedType>(q.clone());
            with_element(ctx, ty, elem)
        }
    }
}

/// Creates `name` (a cast) of `input` to `ty` at the insertion point.
fn cast(rw: &mut PatternRewriter<'_>, name: &str, input: Value, ty: Type, loc: Location) -> Value {
    let state = OperationState::new(rw.uniq(), name, loc)
        .operands(&[input])
        .results(&[ty]);
    let op = rw.create(state);
    rw.result(op, 0)
}

/// Casts between segments, one per value and precision.
struct Casts {
    cache: HashMap<(Value, IoPrecision), Value>,
    count: usize,
}

impl Casts {
    /// `host` (the value `orig` as its producer gives it, in precision `have`) in precision
    /// `want`, casting at the rewriter's insertion point when they differ.
    fn convert(
        &mut self,
        rw: &mut PatternRewriter<'_>,
        orig: Value,
        (host, have): (Value, &IoPrecision),
        want: &IoPrecision,
        loc: Location,
    ) -> Value {
        if have == want {
            return host;
        }
        if let Some(&v) = self.cache.get(&(orig, want.clone())) {
            return v;
        }
        let mut v = host;
        if matches!(have, IoPrecision::Quantized(_)) {
            let float = rw.value_type(orig);
            v = cast(rw, DequantizeCastOp::NAME, v, float, loc);
            self.count += 1;
        }
        if matches!(want, IoPrecision::Quantized(_)) {
            let ty = rw.value_type(orig);
            let ty = type_in(rw.uniq(), ty, want);
            v = cast(rw, QuantizeCastOp::NAME, v, ty, loc);
            self.count += 1;
        }
        self.cache.insert((orig, want.clone()), v);
        v
    }
}

/// Outlines every segment of `plan` (computed on the function as it is now) into a
/// `target.segment`; `targets` must hold every target the plan names. Returns the segment ops
/// and the number of casts inserted (between segments and inside them).
pub fn outline(
    ctx: &mut Context,
    plan: &Plan,
    targets: &[&dyn Target],
) -> Result<(Vec<Op>, usize), Diagnostic> {
    for (name, register) in [
        ("target", nart_dialect_target::register as fn(&mut Context)),
        ("quant", nart_dialect_quant::register),
    ] {
        if ctx.registry.dialect(name).is_none() {
            register(ctx);
        }
    }
    let block = body_block(ctx, plan.func)?;
    let term = ctx
        .block_last_op(block)
        .filter(|&t| ctx.op_has_trait(t, Trait::Terminator))
        .ok_or_else(|| ctx.op_error(plan.func, "has a body without a terminator"))?;
    let mut seg_targets = Vec::new();
    for s in &plan.segments {
        let t = targets
            .iter()
            .copied()
            .find(|t| t.name() == s.target)
            .ok_or_else(|| {
                ctx.op_error(
                    plan.func,
                    format!("the plan names unknown target '{}'", s.target),
                )
            })?;
        seg_targets.push(t);
    }
    let boundaries: Vec<Boundary> = plan
        .segments
        .iter()
        .map(|s| boundary(ctx, block, &s.ops))
        .collect();
    let free_used: Vec<Op> = ctx
        .block_ops_iter(block)
        .filter(|&op| op != term && is_free(ctx, op) && !ctx.op_results_unused(op))
        .collect();

    let mut rw = PatternRewriter::new(ctx);
    // Each value produced by an outlined segment: the segment's result and its precision.
    let mut host: HashMap<Value, (Value, IoPrecision)> = HashMap::new();
    let mut casts = Casts {
        cache: HashMap::new(),
        count: 0,
    };
    let mut segment_ops = Vec::new();
    for ((s, b), target) in plan.segments.iter().zip(&boundaries).zip(&seg_targets) {
        let loc = rw.op_loc(s.ops[0]);
        rw.set_insertion_point_before(term);
        // The operands, each in the precision the target wants.
        let mut operands = Vec::new();
        let mut in_precisions = Vec::new();
        for &v in &b.inputs {
            let want = target.io_precision(&rw, v);
            let (hv, have) = host.get(&v).cloned().unwrap_or((v, IoPrecision::AsIs));
            operands.push(casts.convert(&mut rw, v, (hv, &have), &want, loc));
            in_precisions.push(want);
        }
        let out_precisions: Vec<IoPrecision> = b
            .outputs
            .iter()
            .map(|&r| target.io_precision(&rw, r))
            .collect();
        let result_types: Vec<Type> = b
            .outputs
            .iter()
            .zip(&out_precisions)
            .map(|(&r, p)| {
                let ty = rw.value_type(r);
                type_in(rw.uniq(), ty, p)
            })
            .collect();
        let arg_types: Vec<Type> = operands.iter().map(|&v| rw.value_type(v)).collect();
        let region = rw.create_region();
        let name = rw.uniq().string_attr(&s.target);
        let state = OperationState::new(rw.uniq(), SegmentOp::NAME, loc)
            .operands(&operands)
            .results(&result_types)
            .prop(rw.uniq(), "target", name)
            .regions(&[region]);
        rw.set_insertion_point_before(term);
        let seg = rw.create(state);
        let body = rw.create_block(region, None, &arg_types, loc);
        for &op in &s.ops {
            rw.move_op_to_end(op, body);
        }
        // Inside: constants, then casts of quantized arguments back to the graph's types.
        let first = s.ops[0];
        let inside = |rw: &PatternRewriter<'_>, v: Value| -> HashSet<Op> {
            rw.uses(v)
                .iter()
                .filter(|u| u.op != seg && rw.is_ancestor(seg, u.op))
                .map(|u| u.op)
                .collect()
        };
        for &c in &b.consts {
            rw.set_insertion_point_before(first);
            let copy = rw.clone_op(c);
            for (&r, &nr) in rw
                .results(c)
                .to_vec()
                .iter()
                .zip(rw.results(copy).to_vec().iter())
            {
                let users = inside(&rw, r);
                rw.replace_uses_where(r, nr, |u| users.contains(&u));
            }
        }
        let args = rw.block_args(body).to_vec();
        for ((&v, &a), p) in b.inputs.iter().zip(&args).zip(&in_precisions) {
            let inner = match p {
                IoPrecision::AsIs => a,
                IoPrecision::Quantized(_) => {
                    rw.set_insertion_point_before(first);
                    let float = rw.value_type(v);
                    casts.count += 1;
                    cast(&mut rw, DequantizeCastOp::NAME, a, float, loc)
                }
            };
            let users = inside(&rw, v);
            rw.replace_uses_where(v, inner, |u| users.contains(&u));
        }
        // The yield, quantizing what leaves in a quantized precision.
        rw.set_insertion_point_to_end(body);
        let mut yielded = Vec::new();
        for (&r, (p, &ty)) in b
            .outputs
            .iter()
            .zip(out_precisions.iter().zip(&result_types))
        {
            yielded.push(match p {
                IoPrecision::AsIs => r,
                IoPrecision::Quantized(_) => {
                    casts.count += 1;
                    cast(&mut rw, QuantizeCastOp::NAME, r, ty, loc)
                }
            });
        }
        let state = OperationState::new(rw.uniq(), YieldOp::NAME, loc).operands(&yielded);
        rw.create(state);
        for (j, (&r, p)) in b.outputs.iter().zip(out_precisions).enumerate() {
            host.insert(r, (rw.result(seg, j), p));
        }
        segment_ops.push(seg);
    }
    // The terminator gets every value as the graph has it.
    rw.set_insertion_point_before(term);
    let loc = rw.op_loc(term);
    for (k, v) in rw.operands(term).to_vec().into_iter().enumerate() {
        if let Some((hv, have)) = host.get(&v).cloned() {
            let nv = casts.convert(&mut rw, v, (hv, &have), &IoPrecision::AsIs, loc);
            rw.set_operand(term, k, nv);
        }
    }
    // Constants whose every use moved into segments (as copies) go.
    for c in free_used {
        if rw.op_results_unused(c) {
            rw.erase_op(c);
        }
    }
    Ok((segment_ops, casts.count))
}
