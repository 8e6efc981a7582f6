//! BatchNorm folding: `Conv` followed by an inference `BatchNormalization` becomes one `Conv`
//! with scaled weights and a shifted bias, so that quantization sees the weights that really
//! run.
//!
//! With `s = scale / sqrt(var + epsilon)` per output channel `m`:
//! `W'[m] = W[m] * s[m]` and `b'[m] = (b[m] - mean[m]) * s[m] + B[m]` (`b = 0` without a bias).
//! The fold applies when the convolution's only user is the BatchNorm's input, every parameter
//! is a constant, and the BatchNorm is in inference mode; the BatchNorm's calibration entry, if
//! any, moves to the convolution.

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
    let training = ctx
        .attr(bn, "training_mode")
        .and_then(|a| ctx.attr_int(a))
        .unwrap_or(0);
    if training != 0 || ctx.operands(bn).len() != 5 {
        return false;
    }
    if ctx.results(bn)[1..].iter().any(|&r| ctx.has_uses(r)) {
        return false;
    }
    let x = ctx.operand(bn, 0);
    let Some(conv) = ctx.defining_op(x) else {
        return false;
    };
    if roles::onnx_name(ctx, conv) != Some("Conv") || ctx.uses(x).len() != 1 {
        return false;
    }
    let params: Vec<_> = (1..5)
        .map(|i| {
            ir_util::constant_tensor(ctx, ctx.operand(bn, i)).and_then(|t| t.to_f64_vec().ok())
        })
        .collect();
    let [Some(gamma), Some(beta), Some(mean), Some(var)] =
        <[_; 4]>::try_from(params).ok().unwrap_or_default()
    else {
        return false;
    };
    let w_val = ctx.operand(conv, 1);
    let Some(w) = ir_util::constant_tensor(ctx, w_val) else {
        return false;
    };
    let m = w.shape().first().copied().unwrap_or(0);
    if [&gamma, &beta, &mean, &var].iter().any(|p| p.len() != m) {
        return false;
    }
    let old: Vec<nart_ir::Value> = ctx.operands(conv)[1..]
        .iter()
        .chain(&ctx.operands(bn)[1..])
        .copied()
        .collect();
    let bias = match ctx.operands(conv).get(2) {
        Some(&b) if !matches!(ctx.type_data(ctx.value_type(b)), nart_ir::TypeData::None) => {
            match ir_util::constant_tensor(ctx, b).and_then(|t| t.to_f64_vec().ok()) {
                Some(v) if v.len() == m => v,
                _ => return false,
            }
        }
        _ => vec![0.0; m],
    };
    let eps = ctx
        .attr(bn, "epsilon")
        .and_then(|a| ctx.attr_float(a))
        .unwrap_or(1e-5);
    let Ok(wv) = w.to_f64_vec() else {
        return false;
    };
    let per = wv.len() / m.max(1);
    let s: Vec<f64> = (0..m).map(|c| gamma[c] / (var[c] + eps).sqrt()).collect();
    let new_w: Vec<f64> = wv
        .iter()
        .enumerate()
        .map(|(i, &x)| x * s[i / per])
        .collect();
    let new_b: Vec<f64> = (0..m)
        .map(|c| (bias[c] - mean[c]) * s[c] + beta[c])
        .collect();
    let elem = ctx.element_type(ctx.value_type(w_val));
    let wloc = ctx.value_loc(w_val);
    let wc = ir_util::constant_before(ctx, conv, wloc, w.shape(), elem, &new_w);
    let bloc = ir_util::derived_loc(ctx, ctx.op_loc(bn), "folded_bias");
    let bc = ir_util::constant_before(ctx, conv, bloc, &[m], elem, &new_b);
    let xin = ctx.operand(conv, 0);
    ctx.set_operands(conv, &[xin, wc, bc]);
    let y = ctx.result(bn, 0);
    let conv_out = ctx.result(conv, 0);
    collect::transfer(ctx, func, y, conv_out);
    ctx.replace_all_uses(y, conv_out);
    ctx.erase_op(bn);
    // The old weight, bias and BatchNorm constants go when nothing else uses them.
    for v in old {
        if let Some(d) = ctx.defining_op(v) {
            if !ctx.has_uses(v) && nart_ir::interfaces::constant_value(ctx, d).is_some() {
                ctx.erase_op(d);
            }
        }
    }
    true
}
