//! `qnn.conv`, `qnn.matmul`, `qnn.max_pool`, `qnn.avg_pool`, `qnn.add`, `qnn.requantize`,
//! `quant.qcast` and `quant.dcast` on the onednn target, with results bit-identical to the
//! interpreter's (`nart_tensor::qnn`); the pools are at [`lower_pool`], the addition at
//! [`lower_add`], the requantization at [`lower_requantize`], the casts at [`lower_cast`].
//! Below: how the convolutions and matmuls stay exact.
//!
//! oneDNN computes only the exact `s32` sums `Σ x·w` of the 8-bit input and the constant `s8`
//! weights; the zero points, the bias and the requantization (the same fixed-point
//! multipliers, rounding and clamps the reference kernels compute, taken from
//! `nart_tensor::qnn`) are the runtime's ([`nart_onednn_rt::int8`]). What is refused, with the
//! reason: non-constant weights or bias; weights with a zero point other than 0 or of another
//! storage than `i8`; inputs and results other than per-tensor `u8`/`i8`; weights whose sums
//! could pass `2^24` (oneDNN's int8 kernels finish in `f32`) or, on a CPU without VNNI, inputs
//! other than `u8` and weights outside `[-64, 64]` (16-bit saturation); see
//! [`nart_onednn_rt::int8::exactness`].

use std::sync::Arc;

use nart_interp::attrs::Node;
use nart_interp::convert::quant_params;
use nart_ir::printer::type_to_string;
use nart_ir::{Context, Op, TypeData, Value};
use nart_onednn_rt::program::{AddQuant, Elem, OpKind, PoolAlg, Requant, DYN, MAX_RANK};
use nart_target::Refusal;
use nart_tensor::qnn::{Activation, FixedMultiplier, Output, QParams, Rounding};
use nart_tensor::{DType, Tensor};

use crate::lower::{constant, input, show, Lowered};

/// The dims and element type of `v` when it is an `f32` tensor, a per-tensor `u8`/`i8`
/// quantized one or a tensor of 8-bit integers (the stored integers of a quantized one, as
/// `quant.scast` gives them: `ui8` is `u8`, `i8` and `si8` are `i8`), of static shape but for
/// the dynamic size; else why not.
pub fn value_dims(ctx: &Context, v: Value, what: &str) -> Result<(Vec<i64>, Elem), Refusal> {
    let ty = ctx.value_type(v);
    let elem = match quant_params(ctx, ty) {
        None => match ctx.type_data(ctx.element_type(ty)) {
            TypeData::Integer {
                width: 8,
                signedness,
            } => {
                if *signedness == nart_ir::Signedness::Unsigned {
                    Elem::U8
                } else {
                    Elem::S8
                }
            }
            _ => return crate::lower::f32_dims(ctx, v, what).map(|d| (d, Elem::F32)),
        },
        Some(q) => match q.dtype {
            DType::U8 if q.axis.is_none() && q.block_shape.is_none() => Elem::U8,
            DType::I8 if q.axis.is_none() && q.block_shape.is_none() => Elem::S8,
            _ => {
                return Err(Refusal::DType {
                    value: what.to_string(),
                    dtype: type_to_string(ctx, ctx.element_type(ty)),
                })
            }
        },
    };
    let shape = match ctx.type_data(ty) {
        TypeData::RankedTensor { .. } => ctx.shape_of(ty),
        _ => None,
    };
    match shape {
        Some(s) if s.iter().all(|&d| d != 0) && s.len() <= MAX_RANK => Ok((
            s.iter().map(|&d| if d < 0 { DYN } else { d }).collect(),
            elem,
        )),
        _ => Err(Refusal::Shape {
            value: what.to_string(),
            shape: type_to_string(ctx, ty),
        }),
    }
}

/// The integer constant behind `v`: a constant, or a `quant.scast` of one (how quantization
/// gives weights and biases their quantized types).
pub fn int_constant(ctx: &Context, v: Value) -> Option<Tensor> {
    match ctx.defining_op(v) {
        Some(d) if ctx.op_name_str(d) == "quant.scast" => constant(ctx, ctx.operand(d, 0)),
        _ => constant(ctx, v),
    }
}

/// A `quant.scast` of a computed 8-bit value (to its stored integers or back, as
/// [`crate::quant_views`] makes them): the same bytes seen with another type, a view; or why
/// not.
pub fn lower_storage_cast(ctx: &Context, op: Op) -> Result<Lowered, Refusal> {
    let (operands, results) = (ctx.operands(op), ctx.results(op));
    if operands.len() != 1 || results.len() != 1 {
        return Err(Refusal::UnknownOp);
    }
    if constant(ctx, operands[0]).is_some() {
        return Err(other(
            "a cast of a constant that is not the weights or bias of an integer op onednn runs",
        ));
    }
    let (x, ex) = value_dims(ctx, operands[0], "operand #0")?;
    let (y, ey) = value_dims(ctx, results[0], "result #0")?;
    if !ex.is_int8() || !ey.is_int8() || x != y {
        return Err(other("not a cast between 8-bit integers of one shape"));
    }
    Ok(Lowered {
        kind: OpKind::View,
        inputs: vec![input(0, x)],
        out_dims: y,
    })
}

/// Whether `op` is a `quant.scast` of a constant read only as the weights or bias of integer
/// ops oneDNN runs: it computes nothing there (the integer op holds the data), so the target
/// takes it with its users and the segment skips it.
pub fn is_constant_cast(ctx: &Context, op: Op) -> bool {
    if ctx.op_name_str(op) != "quant.scast" || ctx.operands(op).len() != 1 {
        return false;
    }
    if constant(ctx, ctx.operand(op, 0)).is_none() {
        return false;
    }
    let r = ctx.results(op)[0];
    ctx.has_uses(r)
        && ctx.uses(r).iter().all(|u| {
            u.index > 0
                && matches!(ctx.op_name_str(u.op), "qnn.conv" | "qnn.matmul")
                && lower(ctx, u.op).is_ok()
        })
}

fn other(m: impl Into<String>) -> Refusal {
    Refusal::Other(m.into())
}

fn qparams(ctx: &Context, v: Value, what: &str) -> Result<QParams, Refusal> {
    quant_params(ctx, ctx.value_type(v))
        .ok_or_else(|| other(format!("{what} has no uniform quantized type")))
}

/// The op's properties as the interpreter reads them.
fn node(ctx: &Context, op: Op) -> Node {
    let attrs = ctx
        .props(op)
        .iter()
        .chain(ctx.attrs(op))
        .map(|na| {
            (
                ctx.str(na.name).to_string(),
                nart_interp::attrs::AttrValue::from_ir(ctx, na.value),
            )
        })
        .collect();
    Node::new(ctx.op_name_str(op), String::new(), attrs, None)
}

fn bad(name: &str) -> Refusal {
    other(format!("attribute {name} is malformed"))
}

/// The result's clamp and rounding, as `nart_interp`'s qnn kernels read them.
fn output_of(n: &Node) -> Result<(Activation, Rounding), Refusal> {
    let rounding = n
        .str_or("rounding", "half_even")
        .map_err(|_| bad("rounding"))?;
    let rounding = Rounding::from_name(&rounding).ok_or_else(|| bad("rounding"))?;
    let act = match n
        .str_or("activation", "none")
        .map_err(|_| bad("activation"))?
        .as_str()
    {
        "none" => Activation::None,
        "relu" => Activation::Relu,
        "relu6" => Activation::Relu6,
        "clip" => Activation::Clip {
            min: n
                .float_or("clip_min", f64::NEG_INFINITY)
                .map_err(|_| bad("clip_min"))?,
            max: n
                .float_or("clip_max", f64::INFINITY)
                .map_err(|_| bad("clip_max"))?,
        },
        other => return Err(bad(other)),
    };
    Ok((act, rounding))
}

/// The constant `i8` weights of operand `i`, with their parameters (zero points 0).
fn weights(ctx: &Context, op: Op, i: usize) -> Result<(Tensor, QParams, Vec<i8>), Refusal> {
    let v = ctx.operand(op, i);
    let q = qparams(ctx, v, "the weight")?;
    if q.dtype != DType::I8 || q.block_shape.is_some() {
        return Err(other(format!(
            "weights stored as {} (oneDNN takes i8 weights per tensor or per channel)",
            q.dtype
        )));
    }
    if q.zero_points.iter().any(|&z| z != 0) {
        return Err(other("the weights have a zero point other than 0"));
    }
    let t = int_constant(ctx, v).ok_or_else(|| other("the weight is not a constant"))?;
    let w = t
        .to_i128_vec()
        .map_err(|e| other(format!("the weight: {e}")))?
        .into_iter()
        .map(|x| x as i8)
        .collect();
    Ok((t, q, w))
}

/// The constant `i32` bias (operand 2) of `channels` values, or zeros.
fn bias(ctx: &Context, op: Op, channels: usize) -> Result<Vec<i32>, Refusal> {
    let Some(&v) = ctx.operands(op).get(2) else {
        return Ok(vec![0; channels]);
    };
    let t = int_constant(ctx, v).ok_or_else(|| other("the bias is not a constant"))?;
    let b: Vec<i32> = t
        .to_i128_vec()
        .map_err(|e| other(format!("the bias: {e}")))?
        .into_iter()
        .map(|x| x as i32)
        .collect();
    if b.len() != channels {
        return Err(other(format!(
            "the bias has {} values for {channels} channels",
            b.len()
        )));
    }
    Ok(b)
}

/// The requantization of an op with input `xq`, weights `wq` over `channels`, result `yq`.
#[allow(clippy::too_many_arguments)]
fn requant(
    op_name: &'static str,
    n: &Node,
    xq: &QParams,
    wq: &QParams,
    yq: &QParams,
    w: Vec<i8>,
    weight_dims: Vec<i64>,
    bias: Vec<i32>,
) -> Result<Requant, Refusal> {
    let (act, rounding) = output_of(n)?;
    if yq.axis.is_some() || yq.scales.len() != 1 {
        return Err(other("the result is not quantized per tensor"));
    }
    let (sy, zy, lo, hi) = Output {
        q: yq,
        act,
        rounding,
    }
    .range(op_name)
    .map_err(|e| other(e.to_string()))?;
    let sx = xq.scales[0];
    let multipliers = (0..bias.len())
        .map(|c| {
            FixedMultiplier::new(op_name, sx * wq.scale(c) / sy)
                .map(|m| (m.m, m.shift))
                .map_err(|e| other(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let to_i32 = |v: i64, what: &str| {
        i32::try_from(v).map_err(|_| other(format!("{what} {v} does not fit i32")))
    };
    Ok(Requant {
        weights: Arc::new(w),
        weight_dims,
        bias,
        src_zero_point: to_i32(xq.zero_points[0], "the input's zero point")?,
        multipliers,
        zero_point: to_i32(zy, "the result's zero point")?,
        lo: to_i32(lo, "the clamp")?,
        hi: to_i32(hi, "the clamp")?,
        rounding,
    })
}

/// Whether oneDNN's sums of `q` are exact on this machine's oneDNN.
fn exact_here(q: &Requant, src: Elem, columns: bool) -> Result<(), Refusal> {
    let vnni = nart_onednn_rt::ffi::api().is_ok_and(|a| a.has_vnni());
    nart_onednn_rt::int8::exactness(q, src, columns, vnni)
        .map_err(|e| other(format!("int8 on oneDNN would not be exact: {e}")))
}

/// `qnn.conv` or `qnn.matmul` as an integer op, or why not.
pub fn lower(ctx: &Context, op: Op) -> Result<Lowered, Refusal> {
    let name = ctx.op_name_str(op);
    let operands = ctx.operands(op);
    let results = ctx.results(op);
    if results.len() != 1 || !(2..=3).contains(&operands.len()) {
        return Err(Refusal::UnknownOp);
    }
    let n = node(ctx, op);
    let (x, src) = value_dims(ctx, operands[0], "operand #0")?;
    let (y, out) = value_dims(ctx, results[0], "result #0")?;
    if !src.is_int8() || !out.is_int8() {
        return Err(other("the input and the result must be u8 or i8"));
    }
    let xq = qparams(ctx, operands[0], "the input")?;
    let yq = qparams(ctx, results[0], "the result")?;
    let (wt, wq, w) = weights(ctx, op, 1)?;
    let ws: Vec<i64> = wt.shape().iter().map(|&d| d as i64).collect();
    if name == "qnn.conv" {
        let sp = x.len().saturating_sub(2);
        if !(3..=5).contains(&x.len()) || ws.len() != x.len() || y.len() != x.len() {
            return Err(Refusal::Shape {
                value: "operand #0".into(),
                shape: show(&x),
            });
        }
        if x[1..].contains(&DYN) || y[1..].contains(&DYN) {
            return Err(Refusal::Shape {
                value: "operand #0".into(),
                shape: format!("{} (dynamic where oneDNN needs a static size)", show(&x)),
            });
        }
        if wq.axis.is_some_and(|a| a != 0) {
            return Err(other(
                "the weights are quantized along an axis other than 0",
            ));
        }
        let ints = |name: &'static str, len: usize, dflt: i64| -> Result<Vec<i64>, Refusal> {
            match n.opt_ints(name).map_err(|_| bad(name))? {
                None => Ok(vec![dflt; len]),
                Some(v) if v.is_empty() => Ok(vec![dflt; len]),
                Some(v) if v.len() == len && v.iter().all(|&s| s >= 0) => Ok(v),
                Some(v) => Err(Refusal::Attribute {
                    name: name.into(),
                    value: format!("{v:?}"),
                }),
            }
        };
        let strides = ints("strides", sp, 1)?;
        let dilations = ints("dilations", sp, 1)?;
        let pads = ints("pads", 2 * sp, 0)?;
        if strides.iter().chain(&dilations).any(|&s| s < 1) {
            return Err(Refusal::Attribute {
                name: "strides".into(),
                value: format!("{strides:?}"),
            });
        }
        let groups = n.int_or("group", 1).map_err(|_| bad("group"))?;
        let (m, cg) = (ws[0], ws[1]);
        if groups < 1 || m % groups != 0 || cg * groups != x[1] || y[1] != m {
            return Err(Refusal::Attribute {
                name: "group".into(),
                value: groups.to_string(),
            });
        }
        let weight_dims = if groups > 1 {
            let mut d = vec![groups, m / groups];
            d.extend_from_slice(&ws[1..]);
            d
        } else {
            ws.clone()
        };
        let q = requant(
            "qnn.conv",
            &n,
            &xq,
            &wq,
            &yq,
            w,
            weight_dims,
            bias(ctx, op, m as usize)?,
        )?;
        exact_here(&q, src, false)?;
        return Ok(Lowered {
            kind: OpKind::QConv {
                groups,
                strides,
                dilations,
                pads_begin: pads[..sp].to_vec(),
                pads_end: pads[sp..].to_vec(),
                q,
            },
            inputs: vec![input(0, x)],
            out_dims: y,
        });
    }
    // qnn.matmul: `[..., M, K] × [K, N]`, the leading dims of the input seen as rows.
    let ws: Vec<i64> = {
        let lead = ws.len().saturating_sub(2);
        if ws.len() < 2 || ws[..lead].iter().any(|&d| d != 1) {
            return Err(Refusal::Shape {
                value: "operand #1".into(),
                shape: format!("{} (oneDNN: one [K, N] weight matrix)", show(&ws)),
            });
        }
        ws[lead..].to_vec()
    };
    if wq.axis.is_some_and(|a| a + 1 != wt.rank()) {
        return Err(other(
            "the weights are quantized along an axis other than the columns",
        ));
    }
    let (k, cols) = (ws[0], ws[1]);
    if x.len() < 2 || x[x.len() - 1] != k || y.len() != x.len() || y[y.len() - 1] != cols {
        return Err(Refusal::Shape {
            value: "operand #0".into(),
            shape: format!("{} × {} into {}", show(&x), show(&ws), show(&y)),
        });
    }
    let lead = &x[..x.len() - 1];
    let rows = if lead.contains(&DYN) {
        if lead.iter().filter(|&&d| d != 1).count() != 1 {
            return Err(Refusal::Shape {
                value: "operand #0".into(),
                shape: format!("{} (a dynamic size among other rows)", show(&x)),
            });
        }
        DYN
    } else {
        lead.iter().product()
    };
    let q = requant(
        "qnn.matmul",
        &n,
        &xq,
        &wq,
        &yq,
        w,
        ws,
        bias(ctx, op, cols as usize)?,
    )?;
    exact_here(&q, src, true)?;
    Ok(Lowered {
        kind: OpKind::QMatMul { q },
        inputs: vec![input(0, vec![rows, k])],
        out_dims: vec![rows, cols],
    })
}

/// `qnn.max_pool` as oneDNN's max pooling on the 8-bit values themselves (the largest stored
/// value is the largest real one, and oneDNN's max pooling leaves padded positions out, as
/// the interpreter does), and `qnn.avg_pool` as [`OpKind::QAvgPool`]: oneDNN's exact window
/// sums, requantized by the runtime with the multiplier of each window's position count; or
/// why not.
pub fn lower_pool(ctx: &Context, op: Op) -> Result<Lowered, Refusal> {
    let name = ctx.op_name_str(op);
    let (operands, results) = (ctx.operands(op), ctx.results(op));
    if results.len() != 1 || operands.len() != 1 {
        return Err(Refusal::UnknownOp);
    }
    let n = node(ctx, op);
    let (x, src) = value_dims(ctx, operands[0], "operand #0")?;
    let (y, out) = value_dims(ctx, results[0], "result #0")?;
    if !src.is_int8() || !out.is_int8() {
        return Err(other("the input and the result must be u8 or i8"));
    }
    if !(3..=5).contains(&x.len()) || y.len() != x.len() {
        return Err(Refusal::Shape {
            value: "operand #0".into(),
            shape: show(&x),
        });
    }
    if x[1..].contains(&DYN) || y[1..].contains(&DYN) {
        return Err(Refusal::Shape {
            value: "operand #0".into(),
            shape: format!("{} (dynamic where oneDNN needs a static size)", show(&x)),
        });
    }
    let sp = x.len() - 2;
    let ints = |attr: &'static str, len: usize, dflt: i64| -> Result<Vec<i64>, Refusal> {
        match n.opt_ints(attr).map_err(|_| bad(attr))? {
            None => Ok(vec![dflt; len]),
            Some(v) if v.is_empty() => Ok(vec![dflt; len]),
            Some(v) if v.len() == len && v.iter().all(|&s| s >= 0) => Ok(v),
            Some(v) => Err(Refusal::Attribute {
                name: attr.into(),
                value: format!("{v:?}"),
            }),
        }
    };
    let kernel = ints("kernel_shape", sp, 0)?;
    let strides = ints("strides", sp, 1)?;
    let dilations = ints("dilations", sp, 1)?;
    let pads = ints("pads", 2 * sp, 0)?;
    if kernel
        .iter()
        .chain(&strides)
        .chain(&dilations)
        .any(|&s| s < 1)
    {
        return Err(Refusal::Attribute {
            name: "kernel_shape".into(),
            value: format!("{kernel:?} (strides {strides:?}, dilations {dilations:?})"),
        });
    }
    let (pads_begin, pads_end) = (pads[..sp].to_vec(), pads[sp..].to_vec());
    for i in 0..sp {
        let reach = (kernel[i] - 1) * dilations[i] + 1;
        let span = x[2 + i] + pads_begin[i] + pads_end[i];
        // oneDNN needs every window to touch the input, and the result to have the size
        // the window gives (the verifier's rule).
        if pads_begin[i] >= reach || pads_end[i] >= reach || span < reach {
            return Err(Refusal::Attribute {
                name: "pads".into(),
                value: format!("{pads:?}"),
            });
        }
        if y[2 + i] != (span - reach) / strides[i] + 1 {
            return Err(Refusal::Shape {
                value: "result #0".into(),
                shape: format!("{} (the window gives another size)", show(&y)),
            });
        }
    }
    if y[..2] != x[..2] {
        return Err(Refusal::Shape {
            value: "result #0".into(),
            shape: show(&y),
        });
    }
    let inputs = vec![input(0, x.clone())];
    if name == "qnn.max_pool" {
        if src != out {
            return Err(other("the result's storage type differs from the input's"));
        }
        return Ok(Lowered {
            kind: OpKind::Pool {
                alg: PoolAlg::Max,
                kernel,
                strides,
                dilations,
                pads_begin,
                pads_end,
            },
            inputs,
            out_dims: y,
        });
    }
    // qnn.avg_pool.
    let xq = qparams(ctx, operands[0], "the input")?;
    let yq = qparams(ctx, results[0], "the result")?;
    let rounding = n
        .str_or("rounding", "half_even")
        .map_err(|_| bad("rounding"))?;
    let rounding = Rounding::from_name(&rounding).ok_or_else(|| bad("rounding"))?;
    let (sy, zy, lo, hi) = Output {
        q: &yq,
        act: Activation::None,
        rounding,
    }
    .range("qnn.avg_pool")
    .map_err(|e| other(e.to_string()))?;
    let sx = xq.scales[0];
    let windows: i64 = kernel.iter().product();
    let multipliers = (1..=windows)
        .map(|count| {
            FixedMultiplier::new("qnn.avg_pool", sx / (sy * count as f64))
                .map(|m| (m.m, m.shift))
                .map_err(|e| other(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let channels = x[1];
    let to_i32 = |v: i64, what: &str| {
        i32::try_from(v).map_err(|_| other(format!("{what} {v} does not fit i32")))
    };
    let mut weight_dims = vec![channels, 1, 1];
    weight_dims.extend_from_slice(&kernel);
    let q = Requant {
        weights: Arc::new(vec![1; (channels * windows) as usize]),
        weight_dims,
        bias: vec![0; channels as usize],
        src_zero_point: to_i32(xq.zero_points[0], "the input's zero point")?,
        multipliers,
        zero_point: to_i32(zy, "the result's zero point")?,
        lo: to_i32(lo, "the clamp")?,
        hi: to_i32(hi, "the clamp")?,
        rounding,
    };
    exact_here(&q, src, false)?;
    Ok(Lowered {
        kind: OpKind::QAvgPool {
            strides,
            pads_begin,
            pads_end,
            count_include_pad: n.has("count_include_pad"),
            q,
        },
        inputs,
        out_dims: y,
    })
}

/// `qnn.add` of two operands of the result's shape as [`OpKind::QAdd`], which the runtime
/// computes with the exact rule between oneDNN's primitives (oneDNN's int8 binary ops scale
/// by `f32` factors and round once in `f32`, where the rule sums two 31-bit fixed-point
/// products exactly, so oneDNN's result would differ by one step on some values); or why not.
pub fn lower_add(ctx: &Context, op: Op) -> Result<Lowered, Refusal> {
    let (operands, results) = (ctx.operands(op), ctx.results(op));
    if results.len() != 1 || operands.len() != 2 {
        return Err(Refusal::UnknownOp);
    }
    let n = node(ctx, op);
    let (a, ea) = value_dims(ctx, operands[0], "operand #0")?;
    let (b, eb) = value_dims(ctx, operands[1], "operand #1")?;
    let (y, ey) = value_dims(ctx, results[0], "result #0")?;
    if !ea.is_int8() || !eb.is_int8() || !ey.is_int8() {
        return Err(other("the operands and the result must be u8 or i8"));
    }
    if a != y || b != y {
        return Err(Refusal::Shape {
            value: "operand #1".into(),
            shape: format!(
                "{} + {} into {} (onednn adds integers of the result's shape only, without \
                 broadcasting)",
                show(&a),
                show(&b),
                show(&y)
            ),
        });
    }
    let (aq, bq) = (
        qparams(ctx, operands[0], "operand #0")?,
        qparams(ctx, operands[1], "operand #1")?,
    );
    let yq = qparams(ctx, results[0], "the result")?;
    if [&aq, &bq, &yq]
        .iter()
        .any(|q| q.axis.is_some() || q.scales.len() != 1)
    {
        return Err(other(
            "an operand or the result is not quantized per tensor",
        ));
    }
    let (act, rounding) = output_of(&n)?;
    let (sy, zy, lo, hi) = Output {
        q: &yq,
        act,
        rounding,
    }
    .range("qnn.add")
    .map_err(|e| other(e.to_string()))?;
    let mult = |s: f64| {
        FixedMultiplier::new("qnn.add", s / sy)
            .map(|m| (m.m, m.shift))
            .map_err(|e| other(e.to_string()))
    };
    let to_i32 = |v: i64, what: &str| {
        i32::try_from(v).map_err(|_| other(format!("{what} {v} does not fit i32")))
    };
    let q = AddQuant {
        zero_points: [
            to_i32(aq.zero_points[0], "operand #0's zero point")?,
            to_i32(bq.zero_points[0], "operand #1's zero point")?,
        ],
        multipliers: [mult(aq.scales[0])?, mult(bq.scales[0])?],
        zero_point: to_i32(zy, "the result's zero point")?,
        lo: to_i32(lo, "the clamp")?,
        hi: to_i32(hi, "the clamp")?,
        rounding,
    };
    if q.common_shift().is_none() {
        return Err(other(
            "the operands' scales differ by more than a factor of 2^64",
        ));
    }
    Ok(Lowered {
        kind: OpKind::QAdd { q },
        inputs: vec![input(0, a), input(1, b)],
        out_dims: y,
    })
}

/// `quant.qcast` (`f32` to per-tensor `u8`/`i8`) or `quant.dcast` (back) as
/// [`OpKind::Quantize`] / [`OpKind::Dequantize`], which the runtime computes as the
/// interpreter does (oneDNN's reorders quantize by multiplying with `1/S`, which rounds
/// differently from the division); or why not. A `quant.dcast` runs here only when the
/// function returns its result directly: one that float ops read stays on interp, with
/// them.
pub fn lower_cast(ctx: &Context, op: Op) -> Result<Lowered, Refusal> {
    let (operands, results) = (ctx.operands(op), ctx.results(op));
    if operands.len() != 1 || results.len() != 1 {
        return Err(Refusal::UnknownOp);
    }
    let (x, ex) = value_dims(ctx, operands[0], "operand #0")?;
    let (y, ey) = value_dims(ctx, results[0], "result #0")?;
    let quantize = ctx.op_name_str(op) == "quant.qcast";
    let (float, int, qv) = if quantize {
        (ex, ey, results[0])
    } else {
        (ey, ex, operands[0])
    };
    if float != Elem::F32 || !int.is_int8() || x != y {
        return Err(other(
            "not a cast between f32 and 8-bit integers of one shape",
        ));
    }
    if !quantize
        && ctx
            .uses(results[0])
            .iter()
            .any(|u| !matches!(ctx.op_name_str(u.op), "func.return" | "target.yield"))
    {
        // Taking it would draw the float ops after it onto oneDNN's f32 kernels, which are
        // close to the interpreter's but not bit-identical; a quantized network's output
        // stays exact where it is the function's result (a segment's, once outlined).
        return Err(other(
            "a dequantization that other ops read (only one the function returns runs here)",
        ));
    }
    let q = qparams(ctx, qv, "the quantized value")?;
    if q.axis.is_some() || q.scales.len() != 1 {
        return Err(other("the quantized value is not quantized per tensor"));
    }
    let scale = q.scales[0] as f32;
    let zero_point =
        i32::try_from(q.zero_points[0]).map_err(|_| other("the zero point does not fit i32"))?;
    if !(scale.is_finite() && scale > 0.0) {
        return Err(other(format!(
            "the scale {} is not a positive f32",
            q.scales[0]
        )));
    }
    let kind = if quantize {
        let clamp = |v: i64| i32::try_from(v).map_err(|_| other("the storage range"));
        OpKind::Quantize {
            scale,
            zero_point,
            lo: clamp(q.min)?,
            hi: clamp(q.max)?,
        }
    } else {
        OpKind::Dequantize { scale, zero_point }
    };
    Ok(Lowered {
        kind,
        inputs: vec![input(0, x)],
        out_dims: y,
    })
}

/// `qnn.requantize` of a per-tensor `u8`/`i8` value into a per-tensor `u8`/`i8` result as
/// [`OpKind::QRequantize`], which the runtime computes with the fixed-point multiplier
/// `Sx/Sy` as the interpreter does (oneDNN's reorders rescale in `f32`); or why not.
pub fn lower_requantize(ctx: &Context, op: Op) -> Result<Lowered, Refusal> {
    let (operands, results) = (ctx.operands(op), ctx.results(op));
    if operands.len() != 1 || results.len() != 1 {
        return Err(Refusal::UnknownOp);
    }
    let n = node(ctx, op);
    let (x, ex) = value_dims(ctx, operands[0], "operand #0")?;
    let (y, ey) = value_dims(ctx, results[0], "result #0")?;
    if !ex.is_int8() || !ey.is_int8() || x != y {
        return Err(other(
            "not a requantization between 8-bit values of one shape",
        ));
    }
    let (xq, yq) = (
        qparams(ctx, operands[0], "the input")?,
        qparams(ctx, results[0], "the result")?,
    );
    if [&xq, &yq]
        .iter()
        .any(|q| q.axis.is_some() || q.scales.len() != 1)
    {
        return Err(other("the input or the result is not quantized per tensor"));
    }
    let rounding = n
        .str_or("rounding", "half_even")
        .map_err(|_| bad("rounding"))?;
    let rounding = Rounding::from_name(&rounding).ok_or_else(|| bad("rounding"))?;
    let m = FixedMultiplier::new("qnn.requantize", xq.scales[0] / yq.scales[0])
        .map_err(|e| other(e.to_string()))?;
    let to_i32 = |v: i64, what: &str| {
        i32::try_from(v).map_err(|_| other(format!("{what} {v} does not fit i32")))
    };
    Ok(Lowered {
        kind: OpKind::QRequantize {
            src_zero_point: to_i32(xq.zero_points[0], "the input's zero point")?,
            multiplier: (m.m, m.shift),
            zero_point: to_i32(yq.zero_points[0], "the result's zero point")?,
            lo: to_i32(yq.min, "the storage range")?,
            hi: to_i32(yq.max, "the storage range")?,
            rounding,
        },
        inputs: vec![input(0, x)],
        out_dims: y,
    })
}
