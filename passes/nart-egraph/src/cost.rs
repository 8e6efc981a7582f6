//! Cost models for extraction.
//!
//! A [`GraphCost`] prices one op. The pass asks it about real ops: for an e-node it builds a
//! scratch op (detached, with the e-node's name, properties, operand and result types, its
//! operands the arguments of a detached scratch block), asks, and erases both, so a cost model
//! sees exactly what it would see in the IR. Prices are cached per distinct e-node signature.
//!
//! - [`FlopsBytes`], the default: the op's [`OpCostInterface`] (FLOPs plus bytes moved, from
//!   shapes), plus one per op, so that of two equal-work forms the one with fewer ops wins.
//! - [`TargetCost`]: any [`Target`] of the registry, through its `cost` (estimated seconds,
//!   priced here in nanoseconds); the `target=NAME` option picks it. It adapts the trait as it
//!   is, so every target, present or future, prices e-graphs without a line of its own.

use egg::Id;
use nart_ir::interfaces::OpCostInterface;
use nart_ir::{Context, NamedAttr, Op, OperationState, Type};
use nart_target::Target;
use rustc_hash::FxHashMap;

use crate::lang::{GNode, Graph, Kind, Ty};

/// Prices one op for extraction. Lower is better; the unit is the model's own.
pub trait GraphCost {
    /// The price of running `op` once; `None` when the model cannot say (the pass then counts
    /// the bytes its operands and results occupy).
    fn op_cost(&self, ctx: &Context, op: Op) -> Option<f64>;

    /// The unit, for reports (`flops+bytes`, `ns`).
    fn unit(&self) -> &'static str;
}

/// The default model: FLOPs plus bytes moved, from the op's [`OpCostInterface`], plus one.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlopsBytes;

impl GraphCost for FlopsBytes {
    fn op_cost(&self, ctx: &Context, op: Op) -> Option<f64> {
        let c = ctx.op_interface::<dyn OpCostInterface>(op)?.cost(ctx, op)?;
        Some(c.flops + c.bytes + 1.0)
    }

    fn unit(&self) -> &'static str {
        "flops+bytes"
    }
}

/// A target's cost model (estimated seconds), in nanoseconds.
pub struct TargetCost<'a>(pub &'a dyn Target);

impl GraphCost for TargetCost<'_> {
    fn op_cost(&self, ctx: &Context, op: Op) -> Option<f64> {
        self.0.cost(ctx, op).map(|c| c.seconds * 1e9)
    }

    fn unit(&self) -> &'static str {
        "ns"
    }
}

/// The IR type of an e-graph type.
pub fn ir_type(ctx: &mut nart_ir::Uniquer, ty: &Ty) -> Type {
    match &ty.dims {
        Some(d) => ctx.tensor_type(d.clone(), ty.elem),
        None => ty.elem,
    }
}

/// Bytes of a value of type `ty` (the fallback price).
fn bytes(ctx: &Context, ty: &Ty) -> f64 {
    let n = ty.numel().unwrap_or(0) as f64;
    let w = ctx.dense_elem_bytes(ty.elem).unwrap_or(1) as f64;
    n * w
}

/// What a price depends on: op name, properties, operand and result types.
type Signature = (String, Vec<NamedAttr>, Vec<Ty>, Vec<Ty>);

/// Prices e-nodes with a [`GraphCost`], caching by signature.
pub struct Pricer<'m> {
    model: &'m dyn GraphCost,
    cache: FxHashMap<Signature, f64>,
}

impl<'m> Pricer<'m> {
    /// A pricer over `model`.
    pub fn new(model: &'m dyn GraphCost) -> Self {
        Pricer {
            model,
            cache: FxHashMap::default(),
        }
    }

    /// The price of an existing op (for the cost of the input), priced as an e-node with the
    /// same signature would be.
    pub fn op(&mut self, ctx: &mut Context, op: Op) -> f64 {
        let tys = |ctx: &Context, vs: &[nart_ir::Value]| -> Option<Vec<Ty>> {
            vs.iter()
                .map(|&v| crate::translate::model_ty(ctx, ctx.value_type(v)))
                .collect()
        };
        let (Some(ins), Some(outs)) = (tys(ctx, ctx.operands(op)), tys(ctx, ctx.results(op)))
        else {
            return self.model.op_cost(ctx, op).unwrap_or(0.0);
        };
        let name = ctx.op_name_str(op).to_string();
        let props = ctx.props(op).to_vec();
        self.price(ctx, &name, &props, &ins, &outs)
    }

    /// The price of one e-node itself (not its children). Leaves (constants included) and
    /// projections are free.
    pub fn node(&mut self, ctx: &mut Context, g: &Graph, node: &GNode) -> f64 {
        let Kind::Op(name) = node.kind else {
            return 0.0;
        };
        let t = &g.analysis.tables;
        let ins: Vec<Ty> = node
            .children
            .iter()
            .map(|&c| t.types[g[c].data.ty as usize][0].clone())
            .collect();
        let outs = t.types[node.ty as usize].clone();
        let props = t.props[node.props as usize].clone();
        self.price(ctx, name.as_str(), &props, &ins, &outs)
    }

    /// The price of an op of this signature: a scratch op priced by the model (a dynamic dim
    /// counted as 1), cached.
    fn price(
        &mut self,
        ctx: &mut Context,
        name: &str,
        props: &[NamedAttr],
        ins: &[Ty],
        outs: &[Ty],
    ) -> f64 {
        let key = (
            name.to_string(),
            props.to_vec(),
            ins.to_vec(),
            outs.to_vec(),
        );
        if let Some(&c) = self.cache.get(&key) {
            return c;
        }
        let loc = ctx.unknown_loc();
        let operand_tys: Vec<Type> = ins.iter().map(|t| concrete_type(ctx, t)).collect();
        let result_tys: Vec<Type> = outs.iter().map(|t| concrete_type(ctx, t)).collect();
        let block = ctx.create_block(&operand_tys, loc);
        let args = ctx.block_args(block).to_vec();
        let mut state = OperationState::new(ctx, name, loc)
            .operands(&args)
            .results(&result_tys);
        for p in props {
            let pname = ctx.str(p.name).to_string();
            state = state.prop(ctx, &pname, p.value);
        }
        let op = ctx.create_op(state);
        let c = self
            .model
            .op_cost(ctx, op)
            .unwrap_or_else(|| ins.iter().chain(outs).map(|t| bytes(ctx, t)).sum::<f64>());
        ctx.erase_op(op);
        ctx.erase_block(block);
        self.cache.insert(key, c);
        c
    }
}

/// The IR type of an e-graph type with every dynamic dim set to 1 (for pricing).
fn concrete_type(ctx: &mut Context, ty: &Ty) -> Type {
    match &ty.dims {
        Some(d) => {
            let d = d.iter().map(|&x| if x < 0 { 1 } else { x }).collect();
            ctx.tensor_type(d, ty.elem)
        }
        None => ty.elem,
    }
}

/// The e-classes of `g` in id order (canonical ids).
pub fn classes_sorted(g: &Graph) -> Vec<Id> {
    let mut ids: Vec<Id> = g.classes().map(|c| c.id).collect();
    ids.sort();
    ids
}
