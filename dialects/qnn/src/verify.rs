//! The verifiers: every rule a qnn op's operands, result and properties must keep, each with
//! its own message (`tests/lit/dialect/qnn/invalid.mlir` has one case per rule).
//!
//! Shapes are checked where both sides are static; a dynamic dimension matches anything.

use nart_dialect_quant::{QuantParams, UniformQuantizedType};
use nart_ir::{Context, Diagnostic, Op, Value, DYNAMIC};

use crate::attrs::{activation, enum_prop, int_array, ACTIVATION_ATTR};

type VResult = Result<(), Diagnostic>;

/// The relative tolerance of `bias scale = input scale × weight scale`.
pub const BIAS_SCALE_TOLERANCE: f64 = 1e-6;

/// A ranked tensor of a uniform quantized type: its shape and element type.
#[derive(Clone, Copy)]
pub(crate) struct QTensor<'a> {
    pub(crate) shape: &'a [i64],
    pub(crate) q: &'a UniformQuantizedType,
}

impl QTensor<'_> {
    fn rank(&self) -> usize {
        self.shape.len()
    }
}

/// The quantized tensor type of `v` (operand constraints have already checked it is one).
pub(crate) fn qtensor(ctx: &Context, v: Value) -> Option<QTensor<'_>> {
    let ty = ctx.value_type(v);
    let shape = ctx.shape_of(ty)?;
    let q = ctx.type_as::<UniformQuantizedType>(ctx.element_type(ty))?;
    Some(QTensor { shape, q })
}

fn err(ctx: &Context, op: Op, msg: impl std::fmt::Display) -> Diagnostic {
    ctx.op_error(op, msg)
}

fn known(d: i64) -> Option<i64> {
    (d != DYNAMIC).then_some(d)
}

fn dims_match(a: i64, b: i64) -> bool {
    a == DYNAMIC || b == DYNAMIC || a == b
}

fn shape_text(shape: &[i64]) -> String {
    let dims: Vec<String> = shape
        .iter()
        .map(|&d| known(d).map_or("?".into(), |d| d.to_string()))
        .collect();
    format!("[{}]", dims.join(", "))
}

/// The operand or result `v` as a quantized tensor, or the constraint's message.
fn get<'c>(ctx: &'c Context, op: Op, v: Value, what: &str) -> Result<QTensor<'c>, Diagnostic> {
    qtensor(ctx, v).ok_or_else(|| {
        err(
            ctx,
            op,
            format!("{what} must be a ranked tensor of uniform quantized type"),
        )
    })
}

/// How a value may be quantized: per tensor, or also along one axis.
fn check_params(ctx: &Context, op: Op, what: &str, t: QTensor<'_>, axis: Option<usize>) -> VResult {
    match (&t.q.params, axis) {
        (QuantParams::PerTensor { .. }, _) => Ok(()),
        (QuantParams::PerAxis { axis: a, .. }, Some(want)) if *a as usize == want => {
            t.q.check_shape(t.shape)
                .map_err(|m| err(ctx, op, format!("{what}: {m}")))
        }
        (QuantParams::PerAxis { axis: a, .. }, Some(want)) => Err(err(
            ctx,
            op,
            format!("{what} must be quantized per tensor or along axis {want}, not axis {a}"),
        )),
        (QuantParams::PerAxis { .. }, None) => {
            Err(err(ctx, op, format!("{what} must be quantized per tensor")))
        }
        (QuantParams::PerBlock { .. }, _) => Err(err(
            ctx,
            op,
            format!("{what} is quantized per block, which qnn ops do not support"),
        )),
    }
}

/// Per tensor or along its own axis (for `qnn.requantize`, whose multiplier may vary with any
/// one axis of either side).
fn check_any_axis(ctx: &Context, op: Op, what: &str, t: QTensor<'_>) -> VResult {
    let axis = match &t.q.params {
        QuantParams::PerAxis { axis, .. } => Some(*axis as usize),
        _ => None,
    };
    check_params(ctx, op, what, t, axis)
}

fn check_width(ctx: &Context, op: Op, what: &str, t: QTensor<'_>, max: u32) -> VResult {
    if t.q.storage_width > max {
        return Err(err(
            ctx,
            op,
            format!(
                "{what} storage must be at most {max} bits wide, got {}",
                t.q.storage_width
            ),
        ));
    }
    Ok(())
}

fn check_expressed(ctx: &Context, op: Op, items: &[(&str, QTensor<'_>)]) -> VResult {
    let Some((first, t0)) = items.first() else {
        return Ok(());
    };
    for (what, t) in &items[1..] {
        if t.q.expressed != t0.q.expressed {
            let name = |t: QTensor<'_>| nart_ir::printer::type_to_string(ctx, t.q.expressed);
            return Err(err(
                ctx,
                op,
                format!(
                    "expressed types must match: {first} expresses {}, {what} expresses {}",
                    name(*t0),
                    name(*t)
                ),
            ));
        }
    }
    Ok(())
}

/// The fused activation's bounds are present exactly for `clip`, and ordered.
fn check_activation(ctx: &Context, op: Op) -> VResult {
    let act = enum_prop(ctx, op, "activation", &ACTIVATION_ATTR, activation::NONE);
    let bound = |name| ctx.attr(op, name).and_then(|a| ctx.attr_float(a));
    let (lo, hi) = (bound("clip_min"), bound("clip_max"));
    if act != activation::CLIP {
        if lo.is_some() || hi.is_some() {
            return Err(err(
                ctx,
                op,
                "clip_min and clip_max are only allowed with activation clip",
            ));
        }
        return Ok(());
    }
    match (lo, hi) {
        (Some(lo), Some(hi)) if lo <= hi => Ok(()),
        (Some(lo), Some(hi)) => Err(err(
            ctx,
            op,
            format!("clip_min {lo} must not be greater than clip_max {hi}"),
        )),
        _ => Err(err(
            ctx,
            op,
            "activation clip needs both clip_min and clip_max",
        )),
    }
}

/// The scale of index `i` of a per-tensor or per-axis type.
fn scale_at(q: &UniformQuantizedType, i: usize) -> f64 {
    let s = q.scales();
    if s.len() == 1 {
        s[0]
    } else {
        s[i]
    }
}

/// The bias of a convolution or matmul: `[channels]` of `i32` storage, zero point 0, quantized
/// per tensor or along axis 0, with scale `input scale × weight scale` per channel.
fn check_bias(
    ctx: &Context,
    op: Op,
    b: QTensor<'_>,
    channels: i64,
    input: QTensor<'_>,
    weight: QTensor<'_>,
) -> VResult {
    if b.rank() != 1 || !dims_match(b.shape[0], channels) {
        return Err(err(
            ctx,
            op,
            format!(
                "bias must have shape [{}], got {}",
                known(channels).map_or("?".into(), |c| c.to_string()),
                shape_text(b.shape)
            ),
        ));
    }
    if b.q.storage_width != 32 || !b.q.signed {
        return Err(err(
            ctx,
            op,
            format!(
                "bias storage must be i32, got {}{}",
                if b.q.signed { "i" } else { "u" },
                b.q.storage_width
            ),
        ));
    }
    check_params(ctx, op, "bias", b, Some(0))?;
    if b.q.zero_points().iter().any(|&z| z != 0) {
        return Err(err(ctx, op, "bias zero point must be 0"));
    }
    let sx = scale_at(input.q, 0);
    let n = weight.q.scales().len().max(b.q.scales().len());
    for c in 0..n {
        let want = sx * scale_at(weight.q, c);
        let got = scale_at(b.q, c);
        if (got - want).abs() > BIAS_SCALE_TOLERANCE * want.abs() {
            return Err(err(
                ctx,
                op,
                format!(
                    "bias scale {got:.6e} of channel {c} must be input scale × weight scale = \
                     {want:.6e} (relative tolerance {BIAS_SCALE_TOLERANCE:e})"
                ),
            ));
        }
    }
    Ok(())
}

/// A window property: `n` entries, each at least `min`; `dflt` when absent.
fn window(
    ctx: &Context,
    op: Op,
    name: &str,
    n: usize,
    min: i64,
    dflt: i64,
) -> Result<Vec<i64>, Diagnostic> {
    let Some(a) = ctx.attr(op, name) else {
        return Ok(vec![dflt; n]);
    };
    let v = int_array(ctx, a).unwrap_or_default().to_vec();
    if v.len() != n {
        return Err(err(
            ctx,
            op,
            format!("{name} must have {n} entries, got {}", v.len()),
        ));
    }
    if let Some(bad) = v.iter().find(|&&x| x < min) {
        return Err(err(
            ctx,
            op,
            format!(
                "{name} must be {}, got {bad}",
                if min == 0 { "non-negative" } else { "positive" }
            ),
        ));
    }
    Ok(v)
}

/// Window strides, pads and dilations, resolved to their defaults.
struct WindowProps {
    strides: Vec<i64>,
    pads: Vec<i64>,
    dilations: Vec<i64>,
}

/// The spatial rules every window op shares: the result's spatial dimensions are
/// `(in + pad_begin + pad_end − dilation·(k − 1) − 1) / stride + 1`.
fn check_spatial(
    ctx: &Context,
    op: Op,
    input: &[i64],
    kernel: &[i64],
    result: &[i64],
    w: &WindowProps,
) -> VResult {
    let (strides, pads, dilations) = (&w.strides, &w.pads, &w.dilations);
    let sp = kernel.len();
    for i in 0..sp {
        let (Some(d), Some(k)) = (known(input[2 + i]), known(kernel[i])) else {
            continue;
        };
        let span = d + pads[i] + pads[sp + i];
        let eff = dilations[i] * (k - 1) + 1;
        if span < eff {
            return Err(err(
                ctx,
                op,
                format!(
                    "window of {eff} does not fit spatial dimension {i} of size {span} (padded)"
                ),
            ));
        }
        let out = (span - eff) / strides[i] + 1;
        if !dims_match(result[2 + i], out) {
            return Err(err(
                ctx,
                op,
                format!(
                    "result spatial dimension {i} must be {out}, got {}",
                    result[2 + i]
                ),
            ));
        }
    }
    Ok(())
}

fn check_rank_at_least(ctx: &Context, op: Op, what: &str, t: QTensor<'_>, min: usize) -> VResult {
    if t.rank() < min {
        return Err(err(
            ctx,
            op,
            format!("{what} must have rank {min} or more, got {}", t.rank()),
        ));
    }
    Ok(())
}

fn check_same_rank(ctx: &Context, op: Op, what: &str, t: QTensor<'_>, rank: usize) -> VResult {
    if t.rank() != rank {
        return Err(err(
            ctx,
            op,
            format!("{what} must have rank {rank}, got {}", t.rank()),
        ));
    }
    Ok(())
}

/// NumPy broadcasting of two shapes; `None` when they do not broadcast.
pub(crate) fn broadcast(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for (i, o) in out.iter_mut().enumerate() {
        let x = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let y = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        *o = match (x, y) {
            (1, y) => y,
            (x, 1) => x,
            (DYNAMIC, y) | (y, DYNAMIC) => y,
            (x, y) if x == y => x,
            _ => return None,
        };
    }
    Some(out)
}

fn check_result_shape(ctx: &Context, op: Op, want: &[i64], got: &[i64]) -> VResult {
    if want.len() != got.len() || want.iter().zip(got).any(|(&a, &b)| !dims_match(a, b)) {
        return Err(err(
            ctx,
            op,
            format!(
                "result shape must be {}, got {}",
                shape_text(want),
                shape_text(got)
            ),
        ));
    }
    Ok(())
}

pub(crate) fn requantize(ctx: &Context, op: Op) -> VResult {
    let x = get(ctx, op, ctx.operand(op, 0), "input")?;
    let y = get(ctx, op, ctx.result(op, 0), "result")?;
    check_result_shape(ctx, op, x.shape, y.shape)?;
    check_any_axis(ctx, op, "input", x)?;
    check_any_axis(ctx, op, "result", y)?;
    check_expressed(ctx, op, &[("input", x), ("result", y)])
}

pub(crate) fn conv(ctx: &Context, op: Op) -> VResult {
    let c = crate::ConvOp(op);
    let x = get(ctx, op, c.input(ctx), "input")?;
    let w = get(ctx, op, c.weight(ctx), "weight")?;
    let y = get(ctx, op, c.result(ctx), "result")?;
    check_rank_at_least(ctx, op, "input", x, 3)?;
    let r = x.rank();
    check_same_rank(ctx, op, "weight", w, r)?;
    check_same_rank(ctx, op, "result", y, r)?;
    let sp = r - 2;
    let strides = window(ctx, op, "strides", sp, 1, 1)?;
    let pads = window(ctx, op, "pads", 2 * sp, 0, 0)?;
    let dilations = window(ctx, op, "dilations", sp, 1, 1)?;
    let group = match ctx.attr(op, "group").and_then(|a| ctx.attr_int(a)) {
        Some(g) if g < 1 => return Err(err(ctx, op, format!("group must be positive, got {g}"))),
        Some(g) => g as i64,
        None => 1,
    };
    let (ch, m, wc) = (x.shape[1], w.shape[0], w.shape[1]);
    if let (Some(ch), Some(wc)) = (known(ch), known(wc)) {
        if wc * group != ch {
            return Err(err(
                ctx,
                op,
                format!(
                    "input has {ch} channels, but the weight has {wc} per group × {group} \
                     groups"
                ),
            ));
        }
    }
    if let Some(m) = known(m) {
        if m % group != 0 {
            return Err(err(
                ctx,
                op,
                format!("{group} groups do not divide the weight's {m} output channels"),
            ));
        }
    }
    if !dims_match(y.shape[0], x.shape[0]) || !dims_match(y.shape[1], m) {
        return Err(err(
            ctx,
            op,
            format!(
                "result must be {} × {} (batch × weight output channels) × ..., got {}",
                x.shape[0],
                m,
                shape_text(y.shape)
            ),
        ));
    }
    let props = WindowProps {
        strides,
        pads,
        dilations,
    };
    check_spatial(ctx, op, x.shape, &w.shape[2..], y.shape, &props)?;
    check_params(ctx, op, "input", x, None)?;
    check_params(ctx, op, "weight", w, Some(0))?;
    check_params(ctx, op, "result", y, None)?;
    check_width(ctx, op, "input", x, 16)?;
    check_width(ctx, op, "weight", w, 16)?;
    let mut items = vec![("input", x), ("weight", w), ("result", y)];
    if let Some(b) = c.bias(ctx) {
        let b = get(ctx, op, b, "bias")?;
        check_bias(ctx, op, b, m, x, w)?;
        items.push(("bias", b));
    }
    check_expressed(ctx, op, &items)?;
    check_activation(ctx, op)
}

pub(crate) fn matmul(ctx: &Context, op: Op) -> VResult {
    let mm = crate::MatMulOp(op);
    let a = get(ctx, op, mm.lhs(ctx), "lhs")?;
    let b = get(ctx, op, mm.rhs(ctx), "rhs")?;
    let y = get(ctx, op, mm.result(ctx), "result")?;
    check_rank_at_least(ctx, op, "lhs", a, 2)?;
    check_rank_at_least(ctx, op, "rhs", b, 2)?;
    let (ra, rb) = (a.rank(), b.rank());
    let (m, k, k2, n) = (
        a.shape[ra - 2],
        a.shape[ra - 1],
        b.shape[rb - 2],
        b.shape[rb - 1],
    );
    if !dims_match(k, k2) {
        return Err(err(
            ctx,
            op,
            format!("lhs has {k} columns, but rhs has {k2} rows"),
        ));
    }
    let Some(mut want) = broadcast(&a.shape[..ra - 2], &b.shape[..rb - 2]) else {
        return Err(err(
            ctx,
            op,
            format!(
                "batch dimensions {} and {} do not broadcast",
                shape_text(&a.shape[..ra - 2]),
                shape_text(&b.shape[..rb - 2])
            ),
        ));
    };
    want.extend([m, n]);
    check_result_shape(ctx, op, &want, y.shape)?;
    check_params(ctx, op, "lhs", a, None)?;
    check_params(ctx, op, "rhs", b, Some(rb - 1))?;
    check_params(ctx, op, "result", y, None)?;
    check_width(ctx, op, "lhs", a, 16)?;
    check_width(ctx, op, "rhs", b, 16)?;
    let mut items = vec![("lhs", a), ("rhs", b), ("result", y)];
    if let Some(bias) = mm.bias(ctx) {
        let bias = get(ctx, op, bias, "bias")?;
        check_bias(ctx, op, bias, n, a, b)?;
        items.push(("bias", bias));
    }
    check_expressed(ctx, op, &items)?;
    check_activation(ctx, op)
}

fn binary(ctx: &Context, op: Op) -> VResult {
    let a = get(ctx, op, ctx.operand(op, 0), "lhs")?;
    let b = get(ctx, op, ctx.operand(op, 1), "rhs")?;
    let y = get(ctx, op, ctx.result(op, 0), "result")?;
    let Some(want) = broadcast(a.shape, b.shape) else {
        return Err(err(
            ctx,
            op,
            format!(
                "operand shapes {} and {} do not broadcast",
                shape_text(a.shape),
                shape_text(b.shape)
            ),
        ));
    };
    check_result_shape(ctx, op, &want, y.shape)?;
    check_params(ctx, op, "lhs", a, None)?;
    check_params(ctx, op, "rhs", b, None)?;
    check_params(ctx, op, "result", y, None)?;
    check_width(ctx, op, "lhs", a, 16)?;
    check_width(ctx, op, "rhs", b, 16)?;
    check_expressed(ctx, op, &[("lhs", a), ("rhs", b), ("result", y)])?;
    check_activation(ctx, op)
}

pub(crate) fn add(ctx: &Context, op: Op) -> VResult {
    binary(ctx, op)
}

pub(crate) fn mul(ctx: &Context, op: Op) -> VResult {
    binary(ctx, op)
}

pub(crate) fn concat(ctx: &Context, op: Op) -> VResult {
    let c = crate::ConcatOp(op);
    let y = get(ctx, op, c.result(ctx), "result")?;
    let inputs = c.inputs(ctx);
    if inputs.is_empty() {
        return Err(err(ctx, op, "needs at least one input"));
    }
    let r = y.rank();
    let axis = c.axis(ctx).and_then(|a| ctx.attr_int(a)).unwrap_or(0);
    if axis < 0 || axis >= r as i128 {
        return Err(err(
            ctx,
            op,
            format!("axis {axis} is out of range for rank {r}"),
        ));
    }
    let axis = axis as usize;
    let mut items = vec![("result", y)];
    let mut sum = Some(0i64);
    let names: Vec<String> = (0..inputs.len()).map(|i| format!("input #{i}")).collect();
    for (i, &v) in inputs.iter().enumerate() {
        let t = get(ctx, op, v, &names[i])?;
        check_same_rank(ctx, op, &names[i], t, r)?;
        for d in 0..r {
            if d != axis && !dims_match(t.shape[d], y.shape[d]) {
                return Err(err(
                    ctx,
                    op,
                    format!(
                        "input #{i} has {} in dimension {d}, but the result has {}",
                        t.shape[d], y.shape[d]
                    ),
                ));
            }
        }
        sum = sum.zip(known(t.shape[axis])).map(|(s, d)| s + d);
        check_params(ctx, op, &names[i], t, None)?;
        items.push((&names[i], t));
    }
    if let Some(sum) = sum {
        if !dims_match(y.shape[axis], sum) {
            return Err(err(
                ctx,
                op,
                format!(
                    "result has {} along axis {axis}, but the inputs have {sum} together",
                    y.shape[axis]
                ),
            ));
        }
    }
    check_params(ctx, op, "result", y, None)?;
    check_expressed(ctx, op, &items)
}

/// The rules both pooling ops share; returns the input and result.
fn pool<'c>(
    ctx: &'c Context,
    op: Op,
    dilated: bool,
) -> Result<(QTensor<'c>, QTensor<'c>), Diagnostic> {
    let x = get(ctx, op, ctx.operand(op, 0), "input")?;
    let y = get(ctx, op, ctx.result(op, 0), "result")?;
    check_rank_at_least(ctx, op, "input", x, 3)?;
    let r = x.rank();
    check_same_rank(ctx, op, "result", y, r)?;
    let sp = r - 2;
    let kernel = window(ctx, op, "kernel_shape", sp, 1, 1)?;
    let strides = window(ctx, op, "strides", sp, 1, 1)?;
    let pads = window(ctx, op, "pads", 2 * sp, 0, 0)?;
    let dilations = if dilated {
        window(ctx, op, "dilations", sp, 1, 1)?
    } else {
        vec![1; sp]
    };
    for (i, (&k, &p)) in kernel.iter().zip(&pads).enumerate() {
        if p >= k || pads[sp + i] >= k {
            return Err(err(
                ctx,
                op,
                format!(
                    "pads must be smaller than the window, got {p} and {} for window {k}",
                    pads[sp + i]
                ),
            ));
        }
    }
    if !dims_match(y.shape[0], x.shape[0]) || !dims_match(y.shape[1], x.shape[1]) {
        return Err(err(
            ctx,
            op,
            format!(
                "result must keep the input's batch and channels {}, got {}",
                shape_text(&x.shape[..2]),
                shape_text(&y.shape[..2])
            ),
        ));
    }
    let props = WindowProps {
        strides,
        pads,
        dilations,
    };
    check_spatial(ctx, op, x.shape, &kernel, y.shape, &props)?;
    check_params(ctx, op, "input", x, None)?;
    check_params(ctx, op, "result", y, None)?;
    check_width(ctx, op, "input", x, 16)?;
    check_expressed(ctx, op, &[("input", x), ("result", y)])?;
    Ok((x, y))
}

pub(crate) fn avg_pool(ctx: &Context, op: Op) -> VResult {
    pool(ctx, op, false).map(|_| ())
}

pub(crate) fn max_pool(ctx: &Context, op: Op) -> VResult {
    let (x, y) = pool(ctx, op, true)?;
    if x.q != y.q {
        return Err(err(
            ctx,
            op,
            "result element type must equal the input element type",
        ));
    }
    Ok(())
}

pub(crate) fn lut(ctx: &Context, op: Op) -> VResult {
    let l = crate::LutOp(op);
    let x = get(ctx, op, l.input(ctx), "input")?;
    let y = get(ctx, op, l.result(ctx), "result")?;
    check_result_shape(ctx, op, x.shape, y.shape)?;
    check_params(ctx, op, "input", x, None)?;
    check_params(ctx, op, "result", y, None)?;
    check_width(ctx, op, "input", x, 8)?;
    check_width(ctx, op, "result", y, 16)?;
    let table = l
        .table(ctx)
        .and_then(|a| int_array(ctx, a))
        .unwrap_or_default();
    let n = 1usize << x.q.storage_width;
    if table.len() != n {
        return Err(err(
            ctx,
            op,
            format!(
                "table must have 2^{} = {n} entries, got {}",
                x.q.storage_width,
                table.len()
            ),
        ));
    }
    let (lo, hi) = (y.q.storage_min, y.q.storage_max);
    if let Some((i, v)) = table.iter().enumerate().find(|(_, &v)| v < lo || v > hi) {
        return Err(err(
            ctx,
            op,
            format!("table entry #{i} ({v}) is outside the result's storage range [{lo}, {hi}]"),
        ));
    }
    Ok(())
}
