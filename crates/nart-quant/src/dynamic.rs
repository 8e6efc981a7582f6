//! `quant-apply{mode=dynamic}`: ONNX Runtime's `quantize_dynamic`.
//!
//! Weights are quantized once, to 8 bits (per channel when the scheme says so); activations are
//! quantized at run time by `DynamicQuantizeLinear` (u8, affine, per tensor), so no calibration
//! data is needed. Everything stays in graph ops the interpreter already runs:
//!
//! ```text
//! MatMul(x, W)  =>  xq, xs, xz = DynamicQuantizeLinear(x)
//!                   acc = MatMulInteger(xq, Wq, xz, Wz)          (i32)
//!                   y   = Mul(Cast<f32>(acc), Mul(xs, Ws))        (Ws per output column)
//! ```
//!
//! `Gemm` (without `transA`) is handled the same way with `B` transposed at compile time,
//! `alpha` folded into the weight scales and `beta * C` added after; `Conv` uses `ConvInteger`
//! with per-output-channel weight zero points and a `[M, 1, ...]` scale. The usual choice for
//! transformer MatMuls.

use nart_ir::{Context, Op, OperationState, Type, Value};

use crate::apply::{ApplyOptions, ApplyReport, OverrideAction};
use crate::errors::QuantError;
use crate::ir_util;
use crate::qparams::TensorParams;
use crate::roles;
use crate::scheme::{Granularity, IntSpec, TensorSpec};

fn build(
    ctx: &mut Context,
    before: Op,
    name: &str,
    operands: &[Value],
    results: &[Type],
    props: &[(&str, nart_ir::Attr)],
    loc: nart_ir::Location,
) -> Op {
    let mut st = OperationState::new(ctx, name, loc)
        .operands(operands)
        .results(results);
    for (k, v) in props {
        st = st.prop(ctx, k, *v);
    }
    ir_util::insert_before(ctx, before, st)
}

/// The weight spec dynamic mode can use: integer, at most 8 bits, per tensor or per channel.
fn weight_spec(opts: &ApplyOptions) -> Result<IntSpec, QuantError> {
    match opts.scheme.weights {
        TensorSpec::Int(s) if s.bits <= 8 => {
            if let Granularity::PerGroup(_) = s.granularity {
                return Err(QuantError::Scheme(format!(
                    "scheme '{}' quantizes weights per group, which MatMulInteger cannot run; dynamic mode needs per-tensor or per-channel weights",
                    opts.scheme.name
                )));
            }
            Ok(s)
        }
        _ => Err(QuantError::Scheme(format!(
            "scheme '{}' has no integer weights of at most 8 bits, which dynamic mode needs",
            opts.scheme.name
        ))),
    }
}

/// Applies dynamic quantization to `func`.
pub fn apply_dynamic(
    ctx: &mut Context,
    func: Op,
    opts: &ApplyOptions,
) -> Result<ApplyReport, QuantError> {
    let spec = weight_spec(opts)?;
    let mut report = ApplyReport::default();
    report.params.scheme = Some(format!("{} (dynamic)", opts.scheme.name));
    for op in ir_util::body_ops(ctx, func) {
        let Some(onnx) = roles::onnx_name(ctx, op).map(str::to_string) else {
            continue;
        };
        if !matches!(onnx.as_str(), "MatMul" | "Gemm" | "Conv") || !opts.scheme.covers(&onnx) {
            continue;
        }
        let name = ir_util::op_name(ctx, op).unwrap_or_default();
        let keep = opts
            .overrides
            .iter()
            .rev()
            .find(|o| ir_util::glob_match(&o.pattern, &name))
            .is_some_and(|o| o.action == OverrideAction::Float);
        if keep {
            report.kept_float.push(name);
            continue;
        }
        if let Some((wname, p)) = rewrite(ctx, op, &onnx, &spec)? {
            report.quantized_ops += 1;
            report.weights += 1;
            report
                .params
                .tensors
                .insert(wname, TensorParams::from_qparams(&p));
        }
    }
    Ok(report)
}

/// Rewrites one op; `None` when it does not fit (non-constant weight, unknown ranks, ...).
fn rewrite(
    ctx: &mut Context,
    op: Op,
    onnx: &str,
    spec: &IntSpec,
) -> Result<Option<(String, crate::scheme::QParams)>, QuantError> {
    let x = ctx.operand(op, 0);
    let wv = ctx.operand(op, 1);
    if !ir_util::is_float_tensor(ctx, ctx.value_type(x)) {
        return Ok(None);
    }
    let Some(w) = ir_util::constant_tensor(ctx, wv) else {
        return Ok(None);
    };
    let Ok(mut wdata) = w.to_f64_vec() else {
        return Ok(None);
    };
    let mut wshape = w.shape().to_vec();
    let int_attr = |ctx: &Context, k: &str, d: i128| {
        ctx.attr(op, k).and_then(|a| ctx.attr_int(a)).unwrap_or(d)
    };
    let float_attr = |ctx: &Context, k: &str| {
        ctx.attr(op, k)
            .and_then(|a| ctx.attr_float(a))
            .unwrap_or(1.0)
    };
    let (mut alpha, mut beta) = (1.0, 1.0);
    match onnx {
        "MatMul" if wshape.len() == 2 => {}
        "Gemm" if wshape.len() == 2 && int_attr(ctx, "transA", 0) == 0 => {
            if int_attr(ctx, "transB", 0) != 0 {
                let (n, k) = (wshape[0], wshape[1]);
                let mut t = vec![0.0; n * k];
                for i in 0..n {
                    for j in 0..k {
                        t[j * n + i] = wdata[i * k + j];
                    }
                }
                wdata = t;
                wshape = vec![k, n];
            }
            alpha = float_attr(ctx, "alpha");
            beta = float_attr(ctx, "beta");
        }
        "Conv" if wshape.len() >= 3 => {}
        _ => return Ok(None),
    }
    // Bias (Gemm's C, Conv's B): a constant, or nothing.
    let bias = match ctx.operands(op).get(2) {
        Some(&b) if !matches!(ctx.type_data(ctx.value_type(b)), nart_ir::TypeData::None) => {
            match ir_util::constant_tensor(ctx, b)
                .and_then(|t| t.to_f64_vec().ok().map(|v| (t.shape().to_vec(), v)))
            {
                Some(b) => Some(b),
                None => return Ok(None),
            }
        }
        _ => None,
    };
    let conv = onnx == "Conv";
    let channel_axis = if conv { 0 } else { 1 };
    let p = spec.params_for_weight(&wdata, &wshape, channel_axis, 1 - channel_axis.min(1));
    let n_out = wshape[channel_axis];
    let inner: usize = wshape[channel_axis + 1..].iter().product::<usize>().max(1);
    let idx = |i: usize| {
        if p.scales.len() == 1 {
            0
        } else {
            (i / inner) % n_out
        }
    };
    let q: Vec<f64> = wdata
        .iter()
        .enumerate()
        .map(|(i, &x)| p.quantize(idx(i), x, crate::scheme::Rounding::NearestEven) as f64)
        .collect();
    let loc = ctx.op_loc(op);
    let wname = ir_util::value_name(ctx, wv)
        .unwrap_or_else(|| format!("{}.weight", ir_util::op_name(ctx, op).unwrap_or_default()));
    // Constants.
    let i8t = ir_util::int_type(ctx, 8, spec.signed);
    let wq = ir_util::constant_before(ctx, op, ctx.value_loc(wv), &wshape, i8t, &q);
    let zps: Vec<f64> = p.zero_points.iter().map(|&z| z as f64).collect();
    let wz = ir_util::constant_before(ctx, op, loc, &[p.zero_points.len()], i8t, &zps);
    let f32t = ctx.f32_type();
    let mut scale_shape = vec![p.scales.len()];
    if conv && p.scales.len() > 1 {
        scale_shape.extend(std::iter::repeat_n(1, wshape.len() - 2));
    }
    let ws: Vec<f64> = p.scales.iter().map(|s| s * alpha).collect();
    let wsc = ir_util::constant_before(ctx, op, loc, &scale_shape, f32t, &ws);
    // DynamicQuantizeLinear.
    let xty = ctx.value_type(x);
    let u8t = ir_util::int_type(ctx, 8, false);
    let xq_ty = ir_util::with_element(ctx, xty, u8t);
    let scalar_f32 = ctx.tensor_type(vec![], f32t);
    let scalar_u8 = ctx.tensor_type(vec![], u8t);
    let dql = build(
        ctx,
        op,
        "graph.DynamicQuantizeLinear",
        &[x],
        &[xq_ty, scalar_f32, scalar_u8],
        &[],
        loc,
    );
    let (xq, xs, xz) = (ctx.result(dql, 0), ctx.result(dql, 1), ctx.result(dql, 2));
    // The integer op.
    let yty = ctx.value_type(ctx.result(op, 0));
    let i32t = ctx.int_type(32);
    let acc_ty = ir_util::with_element(ctx, yty, i32t);
    let acc = if conv {
        let props: Vec<(String, nart_ir::Attr)> = [
            "auto_pad",
            "dilations",
            "group",
            "kernel_shape",
            "pads",
            "strides",
        ]
        .iter()
        .filter_map(|k| ctx.attr(op, k).map(|a| (k.to_string(), a)))
        .collect();
        let props: Vec<(&str, nart_ir::Attr)> =
            props.iter().map(|(k, a)| (k.as_str(), *a)).collect();
        build(
            ctx,
            op,
            "graph.ConvInteger",
            &[xq, wq, xz, wz],
            &[acc_ty],
            &props,
            loc,
        )
    } else {
        build(
            ctx,
            op,
            "graph.MatMulInteger",
            &[xq, wq, xz, wz],
            &[acc_ty],
            &[],
            loc,
        )
    };
    let acc = ctx.result(acc, 0);
    let to = ctx.i64_attr(1);
    let accf = build(ctx, op, "graph.Cast", &[acc], &[yty], &[("to", to)], loc);
    let accf = ctx.result(accf, 0);
    let sty = ctx.tensor_type(scale_shape.iter().map(|&d| d as i64).collect(), f32t);
    let s = build(ctx, op, "graph.Mul", &[xs, wsc], &[sty], &[], loc);
    let s = ctx.result(s, 0);
    let y = build(ctx, op, "graph.Mul", &[accf, s], &[yty], &[], loc);
    let mut y = ctx.result(y, 0);
    if let Some((bshape, bdata)) = bias {
        let bvals: Vec<f64> = bdata.iter().map(|b| b * beta).collect();
        let bshape = if conv {
            let mut s = vec![bvals.len()];
            s.extend(std::iter::repeat_n(1, wshape.len() - 2));
            s
        } else {
            bshape
        };
        let bc = ir_util::constant_before(ctx, op, loc, &bshape, f32t, &bvals);
        let add = build(ctx, op, "graph.Add", &[y, bc], &[yty], &[], loc);
        y = ctx.result(add, 0);
    }
    let old = ctx.result(op, 0);
    ctx.replace_all_uses(old, y);
    let old_operands = ctx.operands(op).to_vec();
    ctx.erase_op(op);
    for v in old_operands {
        if !ctx.has_uses(v) {
            if let Some(d) = ctx.defining_op(v) {
                if nart_ir::interfaces::constant_value(ctx, d).is_some() {
                    ctx.erase_op(d);
                }
            }
        }
    }
    Ok(Some((wname, p)))
}
