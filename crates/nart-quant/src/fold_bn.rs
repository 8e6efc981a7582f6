//! BatchNorm folding before quantization: `Conv` followed by an inference
//! `BatchNormalization` becomes one `Conv` with scaled weights and a shifted bias, so that
//! quantization sees the weights that really run.
//!
//! The fold itself is `nart-graph-opt`'s (`graph-fold-batchnorm`, the one implementation,
//! [`nart_graph_opt::fold_batchnorm::fold_into_producer`]), limited here to `Conv` producers;
//! this module adds what quantization needs: the BatchNorm's calibration entry, if any, moves
//! to the convolution, and the constants the fold replaced are erased when nothing else uses
//! them.

use nart_ir::{Context, Op};

use crate::{collect, ir_util, roles};

/// Folds every foldable `Conv` + `BatchNormalization` pair of `func`; returns how many.
pub fn fold_batchnorm(ctx: &mut Context, func: Op) -> usize {
    let mut n = 0;
    for bn in ir_util::body_ops(ctx, func) {
        if ctx.is_erased(bn) || roles::onnx_name(ctx, bn) != Some("BatchNormalization") {
            continue;
        }
        if fold_one(ctx, func, bn) {
            n += 1;
        }
    }
    n
}

fn fold_one(ctx: &mut Context, func: Op, bn: Op) -> bool {
    let y = ctx.result(bn, 0);
    let range = collect::calibrated_range(ctx, y);
    let channels = collect::calibrated_channels(ctx, y);
    let Some(conv) = ctx.defining_op(ctx.operand(bn, 0)) else {
        return false;
    };
    let old: Vec<nart_ir::Value> = ctx.operands(conv)[1..]
        .iter()
        .chain(&ctx.operands(bn)[1..])
        .copied()
        .collect();
    let Ok(out) = nart_graph_opt::fold_batchnorm::fold_into_producer(ctx, bn, &["Conv"]) else {
        return false;
    };
    if let Some(r) = range {
        collect::record(ctx, func, &[(out, r, channels)]);
    }
    // The old weight, bias and BatchNorm constants go when nothing else uses them.
    for v in old {
        if let Some(d) = ctx.defining_op(v) {
            if !ctx.is_erased(d)
                && !ctx.has_uses(v)
                && nart_ir::interfaces::constant_value(ctx, d).is_some()
            {
                ctx.erase_op(d);
            }
        }
    }
    true
}
