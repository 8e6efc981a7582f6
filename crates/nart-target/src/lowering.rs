//! Helpers for a target that compiles a segment itself, as a net-level chip's compiler does:
//! reading an op's attributes as plain values, lowering the ops of a segment one to one to the
//! ops of the chip's dialect, and numbering the values of the lowered segment into the slots
//! of a program, with the constants behind weight casts.
//!
//! `examples/toy-npu` uses them (docs/tutorials/new-chip.md).

use std::collections::{BTreeMap, HashMap};

use nart_interp::attrs::AttrValue;
use nart_interp::convert::{quant_params, tensor_from_attr};
use nart_ir::printer::type_to_string;
use nart_ir::{Context, Diagnostic, Op, OperationState, TypeData, Value};
use nart_target_rt::wire::{IntTensorRecord, QuantRecord};
use nart_tensor::{DType, Tensor};

use crate::Refusal;

/// The attribute `name` of `op` as the interpreter reads it.
pub fn attr(ctx: &Context, op: Op, name: &str) -> Option<AttrValue> {
    ctx.attr(op, name).map(|a| AttrValue::from_ir(ctx, a))
}

/// The attribute `name` of `op` as text: a string or an enum's keyword (`relu`, `half_up`).
pub fn keyword(ctx: &Context, op: Op, name: &str) -> Option<String> {
    attr(ctx, op, name).map(|v| match v {
        AttrValue::Str(s) => s,
        other => format!("{other:?}"),
    })
}

/// The integer attributes `names` of `op` that it has (an integer as a list of one).
pub fn int_attrs(ctx: &Context, op: Op, names: &[&str]) -> BTreeMap<String, Vec<i64>> {
    let mut out = BTreeMap::new();
    for &n in names {
        match attr(ctx, op, n) {
            Some(AttrValue::Ints(v)) => out.insert(n.to_string(), v),
            Some(AttrValue::Int(x)) => out.insert(n.to_string(), vec![x]),
            _ => None,
        };
    }
    out
}

/// Whether `op` is a `quant.scast` of a `graph.constant`: a quantized weight, which a chip
/// takes into its segment (and embeds) instead of receiving it at run time.
pub fn is_weight_cast(ctx: &Context, op: Op) -> bool {
    ctx.op_name_str(op) == "quant.scast"
        && ctx
            .defining_op(ctx.operand(op, 0))
            .is_some_and(|d| ctx.op_name_str(d) == "graph.constant")
}

/// Checks that every operand (`Some(index)`) and result (`None`) of `op` is a tensor quantized
/// with the storage type `want` gives it, per tensor unless `want` allows per axis too. The
/// refusal names the first that is not: its element type, or that it is not per tensor. An
/// absent optional operand passes.
pub fn check_quantized(
    ctx: &Context,
    op: Op,
    want: impl Fn(Option<usize>) -> (DType, bool),
) -> Result<(), Refusal> {
    let operands = ctx.operands(op).iter().enumerate();
    let results = ctx.results(op).iter().enumerate();
    let values = operands
        .map(|(i, &v)| (Some(i), i, v))
        .chain(results.map(|(j, &v)| (None, j, v)));
    for (i, j, v) in values {
        let ty = ctx.value_type(v);
        if matches!(ctx.type_data(ty), TypeData::None) {
            continue;
        }
        let value = match i {
            Some(_) => format!("operand #{j}"),
            None => format!("result #{j}"),
        };
        let dtype = type_to_string(ctx, ctx.element_type(ty));
        let (storage, per_axis) = want(i);
        let Some(q) = quant_params(ctx, ty).filter(|q| q.dtype == storage) else {
            return Err(Refusal::DType { value, dtype });
        };
        if q.block_shape.is_some() || (q.axis.is_some() && !per_axis) {
            return Err(Refusal::Other(format!(
                "{value} ({dtype}) is not quantized per tensor"
            )));
        }
    }
    Ok(())
}

/// How [`lower_one_to_one`] lowers a segment.
#[derive(Clone, Copy, Debug)]
pub struct OneToOne<'a> {
    /// (op, chip op) pairs: each op of the first name becomes one op of the second.
    pub ops: &'a [(&'a str, &'a str)],
    /// Ops left where they are (constants and weight casts, which the program embeds).
    pub keep: &'a [&'a str],
    /// The attributes copied, when present, onto the chip's op as properties.
    pub props: &'a [&'a str],
}

/// Lowers the ops of `segment` (a `target.segment`) to detached ops of the chip, one for each
/// op `rules.ops` names, in order: operands remapped to the new results, the one result's type
/// kept, `rules.props` copied, then `extra(ctx, old op, state)` adds what else the chip wants.
/// Returns the new ops (the caller erases them) and the values the segment yields, as the new
/// ops define them. An op neither lowered nor kept is an error at it (the ops made so far are
/// erased).
pub fn lower_one_to_one(
    ctx: &mut Context,
    segment: Op,
    rules: &OneToOne,
    mut extra: impl FnMut(&mut Context, Op, OperationState) -> OperationState,
) -> Result<(Vec<Op>, Vec<Value>), Diagnostic> {
    let body = ctx.region_blocks(ctx.region(segment, 0))[0];
    let (mut out, mut map) = (Vec::new(), HashMap::<Value, Value>::new());
    for op in ctx.block_ops(body).to_vec() {
        let operands: Vec<Value> = ctx
            .operands(op)
            .iter()
            .map(|v| *map.get(v).unwrap_or(v))
            .collect();
        let name = ctx.op_name_str(op).to_string();
        if name == "target.yield" {
            return Ok((out, operands));
        }
        if rules.keep.contains(&name.as_str()) {
            continue;
        }
        let Some(&(_, to)) = rules.ops.iter().find(|(from, _)| *from == name) else {
            let e = ctx.op_error(op, "cannot be lowered: no rule lowers or keeps it");
            out.iter().rev().for_each(|&o| ctx.erase_op(o));
            return Err(e);
        };
        let (loc, ty) = (ctx.op_loc(op), ctx.value_type(ctx.result(op, 0)));
        let mut st = OperationState::new(ctx, to, loc)
            .operands(&operands)
            .results(&[ty]);
        for &n in rules.props {
            if let Some(a) = ctx.attr(op, n) {
                st = st.prop(ctx, n, a);
            }
        }
        let st = extra(ctx, op, st);
        let new = ctx.create_op(st);
        map.insert(ctx.result(op, 0), ctx.result(new, 0));
        out.push(new);
    }
    out.iter().rev().for_each(|&o| ctx.erase_op(o));
    Err(ctx.op_error(segment, "the segment has no target.yield"))
}

/// The value slots of a quantized program: each value gets a slot once, in the order first
/// asked, with its quantization ([`QuantRecord`]); a value a weight cast defines also gets the
/// constant's stored integers ([`IntTensorRecord`]), which the program embeds.
#[derive(Clone, Debug, Default)]
pub struct QuantSlots {
    of: HashMap<Value, usize>,
    /// The quantization of each slot.
    pub quant: Vec<QuantRecord>,
    /// The embedded constants: (slot, stored integers).
    pub consts: Vec<(usize, IntTensorRecord)>,
}

impl QuantSlots {
    /// The slots of `values`; an error names a value that is not a quantized tensor or a
    /// constant that cannot be read.
    pub fn slots(&mut self, ctx: &Context, values: &[Value]) -> Result<Vec<usize>, String> {
        values.iter().map(|&v| self.slot(ctx, v)).collect()
    }

    /// The slot of `v`.
    pub fn slot(&mut self, ctx: &Context, v: Value) -> Result<usize, String> {
        if let Some(&s) = self.of.get(&v) {
            return Ok(s);
        }
        let ty = ctx.value_type(v);
        let q = quant_params(ctx, ty).ok_or_else(|| {
            format!(
                "a value of type {} is not quantized",
                type_to_string(ctx, ty)
            )
        })?;
        let s = self.quant.len();
        if let Some(t) = weight_of(ctx, v) {
            self.consts.push((s, IntTensorRecord::of(&t?)?));
        }
        self.quant.push(QuantRecord::of(&q));
        self.of.insert(v, s);
        Ok(s)
    }
}

/// The constant behind `v` when a weight cast ([`is_weight_cast`]) defines it: the stored
/// integers of the `graph.constant`; an error when the constant cannot be read.
pub fn weight_of(ctx: &Context, v: Value) -> Option<Result<Tensor, String>> {
    let cast = ctx.defining_op(v).filter(|&d| is_weight_cast(ctx, d))?;
    let c = ctx.defining_op(ctx.operand(cast, 0))?;
    Some(
        ctx.attr(c, "value")
            .ok_or_else(|| "a graph.constant without a value".to_string())
            .and_then(|a| tensor_from_attr(ctx, a)),
    )
}
