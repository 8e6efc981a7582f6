//! Data movement between integer ops, kept in the stored integers.
//!
//! Quantization leaves a reshape between two integer ops in QDQ form: `quant.dcast` to `f32`,
//! the float `Flatten`, `quant.qcast` back with the same parameters (as quantized
//! `digits_cnn`'s `pool2 → flatten → fc` does). Dequantizing `q` to `S·(q − Z)` and
//! quantizing it back with the same `S` and `Z` gives `q` again exactly (`|q − Z| ≤ 255`, far
//! inside `f32`'s exact integers), so the round trip is the identity on the stored integers;
//! [`fold`] rewrites it into `quant.scast`s around the view on the storage type, which the
//! onednn target runs as views of the same bytes (no work), where the float form would split
//! the segment around two `interp` casts.

use nart_ir::{Context, Op, OperationState, Type, TypeData, WalkOrder};

/// The view ops whose first operand is the data and whose other operands (shapes, axes) are
/// not.
const VIEWS: [&str; 5] = [
    "graph.Flatten",
    "graph.Reshape",
    "graph.Squeeze",
    "graph.Unsqueeze",
    "graph.Identity",
];

/// The per-tensor quantized element type of `ty`, if it has one.
fn per_tensor_quantized(ctx: &Context, ty: Type) -> Option<Type> {
    let q = nart_dialect_quant::types::quantized_element(ctx, ty)?;
    q.scale()?;
    Some(ctx.element_type(ty))
}

/// `dcast → view → qcast` chains under `func` whose casts have the same per-tensor quantized
/// type: `(dcast, view, [qcasts])`.
fn chains(ctx: &Context, func: Op) -> Vec<(Op, Op, Vec<Op>)> {
    let mut found = Vec::new();
    for d in ctx.collect_ops(func, WalkOrder::PreOrder) {
        if ctx.op_name_str(d) != "quant.dcast" || ctx.operands(d).len() != 1 {
            continue;
        }
        let Some(qt) = per_tensor_quantized(ctx, ctx.value_type(ctx.operand(d, 0))) else {
            continue;
        };
        let r = ctx.results(d)[0];
        let uses = ctx.uses(r);
        let [u] = uses else {
            continue;
        };
        let v = u.op;
        if u.index != 0 || !VIEWS.contains(&ctx.op_name_str(v)) || ctx.results(v).len() != 1 {
            continue;
        }
        let vr = ctx.results(v)[0];
        if !matches!(
            ctx.type_data(ctx.value_type(vr)),
            TypeData::RankedTensor { .. }
        ) {
            continue;
        }
        let users: Vec<Op> = ctx.uses(vr).iter().map(|u| u.op).collect();
        let all_requantize_alike = !users.is_empty()
            && users.iter().all(|&q| {
                ctx.op_name_str(q) == "quant.qcast"
                    && per_tensor_quantized(ctx, ctx.value_type(ctx.results(q)[0])) == Some(qt)
            });
        if all_requantize_alike {
            let mut qs = users;
            qs.dedup();
            found.push((d, v, qs));
        }
    }
    found
}

/// Rewrites each `quant.dcast → view → quant.qcast` chain under `func` whose casts have the
/// same per-tensor quantized type into `quant.scast → view on the storage integers →
/// quant.scast` (see the module docs); returns how many.
pub fn fold(ctx: &mut Context, func: Op) -> usize {
    let found = chains(ctx, func);
    for (d, v, qs) in &found {
        let x = ctx.operand(*d, 0);
        let xt = ctx.value_type(x);
        let qt = ctx.element_type(xt);
        let storage = nart_dialect_quant::types::quantized_element(ctx, xt)
            .expect("invariant: chains() checked the type")
            .clone()
            .storage_type(ctx);
        let with_elem = |ctx: &mut Context, ty: Type, elem: Type| match ctx.type_data(ty).clone() {
            TypeData::RankedTensor { shape, .. } => ctx.tensor_type(shape, elem),
            _ => ty,
        };
        // x as its stored integers, where the dcast was.
        let st = with_elem(ctx, xt, storage);
        let loc = ctx.op_loc(*d);
        let mut state = OperationState::new(ctx, "quant.scast", loc);
        state.operands.push(x);
        state.result_types.push(st);
        let to_storage = ctx.create_op(state);
        ctx.insert_op_before(*d, to_storage);
        let s = ctx.results(to_storage)[0];
        // The view on the integers.
        ctx.set_operand(*v, 0, s);
        let vr = ctx.results(*v)[0];
        let vt = with_elem(ctx, ctx.value_type(vr), storage);
        ctx.set_value_type(vr, vt);
        ctx.erase_op(*d);
        // Each qcast becomes the view's integers seen as the quantized type again.
        for &q in qs {
            let qr = ctx.results(q)[0];
            let qrt = ctx.value_type(qr);
            debug_assert_eq!(ctx.element_type(qrt), qt);
            let loc = ctx.op_loc(q);
            let mut state = OperationState::new(ctx, "quant.scast", loc);
            state.operands.push(vr);
            state.result_types.push(qrt);
            let back = ctx.create_op(state);
            ctx.insert_op_before(q, back);
            ctx.replace_all_uses(qr, ctx.results(back)[0]);
            ctx.erase_op(q);
        }
    }
    found.len()
}
