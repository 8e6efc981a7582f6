//! `quant-lower-qnn`: lowers the QDQ form to the integer ops of the `qnn` dialect.
//!
//! In the QDQ form `quant-apply` writes, a quantized op computes in float between casts:
//! `quant.dcast` of quantized inputs (activations from `quant.qcast`, weights from
//! `quant.scast` of integer constants), the float op (with its fused `Relu`/`Clip`), and a
//! `quant.qcast` of its result. Each pattern here is rooted on that `quant.qcast` and replaces the
//! chain with one `qnn` op reading the quantized values directly:
//!
//! | float chain before the `qcast` | `qnn` op |
//! |---|---|
//! | `Conv` (+ `Relu`/`Clip`) | `qnn.conv` (`act<relu>`, `act<relu6>`, `act<clip>`) |
//! | `MatMul`, `Gemm` (`transB` folded into the constant weight) (+ `Relu`/`Clip`) | `qnn.matmul` |
//! | `Add`, `Mul` (+ `Relu`/`Clip`) | `qnn.add`, `qnn.mul` |
//! | `Concat` | `qnn.concat` |
//! | `AveragePool`, `GlobalAveragePool` | `qnn.avg_pool` |
//! | `MaxPool`, `GlobalMaxPool` | `qnn.max_pool` |
//! | `Sigmoid`, `Tanh`, `Erf`, `HardSwish`, `Gelu`, `Relu`, `LeakyRelu`, `Clip` on a dequantized input | `qnn.lut` |
//! | a `dcast` straight into a `qcast` | `qnn.requantize` (or nothing, for equal types) |
//!
//! Requantizing ops round ties as the scheme's `rounding` says (a field of the scheme, not its
//! name); a bias the scheme keeps float is stored as `i32` at the accumulator's scale. A chain
//! that does not fit (per-block weights, per-channel activations, `auto_pad`, `ceil_mode`,
//! a result with other float users, an op `qnn` has no form of) stays in the QDQ form, and
//! [`explain`] says why; `quant-lint` reports it as a remark at the op.
//! Each rewrite is checked by the new op's verifier before it replaces anything, so what the
//! lowering writes always verifies; a rejected rewrite is undone and its message becomes the
//! reason.
//!
//! The lowering is local (each `qcast` is replaced on its own, and its quantized inputs stay), so
//! one walk over the `qcast`s in program order reaches the fixpoint; the same input gives the
//! same IR.

use std::collections::BTreeMap;

use nart_dialect_qnn::attrs::{activation, rounding, ACTIVATION_ATTR, ROUNDING_ATTR};
use nart_dialect_qnn::lut;
use nart_dialect_quant::types::{QuantParams, UniformQuantizedType};
use nart_ir::{Context, FloatKind, Op, OperationState, PatternRewriter, TypeData, Value};
use nart_rewrite::{FrozenPatternSet, RewritePattern};

use crate::ir_util;
use crate::scheme::Rounding;

/// The `qnn` rounding (`#qnn.rounding<...>` value) of a scheme's rounding.
pub fn qnn_rounding(r: Rounding) -> u64 {
    match r {
        Rounding::NearestEven => rounding::HALF_EVEN,
        Rounding::NearestAway => rounding::HALF_AWAY,
        Rounding::HalfUp => rounding::HALF_UP,
    }
}

/// What the lowering did.
#[derive(Clone, Debug, Default)]
pub struct LowerReport {
    /// `qnn` ops created, by op name.
    pub lowered: BTreeMap<&'static str, usize>,
    /// Identity requantizations removed (`dcast` then `qcast` to the same type).
    pub identities: usize,
    /// Float compute ops left in the QDQ form, with the reason (in program order).
    pub kept: Vec<(Op, String)>,
}

impl LowerReport {
    /// All `qnn` ops created.
    pub fn num_lowered(&self) -> usize {
        self.lowered.values().sum()
    }
}

/// A property of the op to build.
#[derive(Clone, Debug)]
enum Prop {
    Ints(Vec<i64>),
    Int(i64),
    Unit,
    Float(f64),
    Act(u64),
    Round(u64),
    Table(Vec<i64>),
}

/// A matched chain and the `qnn` op that replaces it.
#[derive(Clone, Debug)]
struct Plan {
    /// The `qnn` op, or `None` to replace the `qcast` with `operands[0]` (an identity).
    name: Option<&'static str>,
    /// The float op the chain computes (the location of the new op).
    anchor: Op,
    /// The quantized operands.
    operands: Vec<Value>,
    /// Operand 1 is a `quant.scast` of a constant `[N, K]` weight to transpose (Gemm `transB`).
    transpose_rhs: bool,
    /// How requantization rounds ties (a `#qnn.rounding` value).
    round: u64,
    /// Operand 2 is a float constant bias, quantized to `i32` at input scale × weight scale.
    fold_bias: bool,
    props: Vec<(&'static str, Prop)>,
    /// The float ops the new op replaces, users first.
    erase: Vec<Op>,
}

type Match = Result<Plan, String>;

fn name_of(ctx: &Context, op: Op) -> &str {
    ctx.op_name_str(op)
}

fn quantized(ctx: &Context, v: Value) -> Option<&UniformQuantizedType> {
    nart_dialect_quant::types::quantized_element(ctx, ctx.value_type(v))
}

/// Whether `v` is an operand that is present (not a `none` placeholder).
fn present(ctx: &Context, v: Value) -> bool {
    !matches!(ctx.type_data(ctx.value_type(v)), TypeData::None)
}

/// The quantized value a dequantized operand `#i` of `op` reads.
fn dequantized(ctx: &Context, op: Op, i: usize) -> Result<Value, String> {
    let v = ctx.operand(op, i);
    match ctx.defining_op(v).map(|d| (d, name_of(ctx, d))) {
        Some((d, "quant.dcast")) => Ok(ctx.operand(d, 0)),
        Some((_, "graph.DequantizeLinear")) => Err(format!(
            "operand #{i} is dequantized by graph.DequantizeLinear, not quant.dcast (imported QDQ ONNX must become quant casts first)"
        )),
        _ => Err(format!(
            "operand #{i} ('{}') is float, not a dequantized value",
            ir_util::describe_value(ctx, v)
        )),
    }
}

fn int_attr(ctx: &Context, op: Op, name: &str) -> Option<i64> {
    ctx.attr(op, name)
        .and_then(|a| ctx.attr_int(a))
        .map(|v| v as i64)
}

fn float_attr(ctx: &Context, op: Op, name: &str) -> Option<f64> {
    ctx.attr(op, name).and_then(|a| ctx.attr_float(a))
}

fn ints_attr(ctx: &Context, op: Op, name: &str) -> Option<Vec<i64>> {
    ctx.attr(op, name)
        .and_then(|a| nart_dialect_qnn::attrs::int_array(ctx, a))
        .map(<[i64]>::to_vec)
}

/// The scalar constant behind operand `i` of `op`, if any (absent: `Ok(None)`).
fn scalar_operand(ctx: &Context, op: Op, i: usize) -> Result<Option<f64>, String> {
    if i >= ctx.operands(op).len() || !present(ctx, ctx.operand(op, i)) {
        return Ok(None);
    }
    let v = ctx.operand(op, i);
    let not_const = || format!("operand #{i} of '{}' is not a constant", name_of(ctx, op));
    // A constant, or a dequantized integer constant (`dcast(scast(c))`), as the QDQ form
    // computes it: `S(q - Z)`.
    let (v, affine) = match ctx.defining_op(v).map(|d| (d, name_of(ctx, d))) {
        Some((d, "quant.dcast")) => {
            let q = ctx.operand(d, 0);
            let s = ctx
                .defining_op(q)
                .filter(|&s| name_of(ctx, s) == "quant.scast")
                .ok_or_else(not_const)?;
            let t = quantized(ctx, q).ok_or_else(not_const)?;
            let (Some(scale), Some(zp)) = (t.scale(), t.zero_point()) else {
                return Err(not_const());
            };
            (ctx.operand(s, 0), Some((scale, zp)))
        }
        _ => (v, None),
    };
    let t = ir_util::constant_tensor(ctx, v).ok_or_else(not_const)?;
    match t.to_f64_vec().ok().as_deref() {
        Some([x]) => Ok(Some(match affine {
            Some((s, z)) => s * (x - z as f64),
            None => *x,
        })),
        _ => Err(format!(
            "operand #{i} of '{}' is not a scalar constant",
            name_of(ctx, op)
        )),
    }
}

/// Rejects `auto_pad` other than `NOTSET` and `ceil_mode = 1`.
fn check_window(ctx: &Context, op: Op) -> Result<(), String> {
    if let Some(p) = ctx.attr(op, "auto_pad").and_then(|a| ctx.attr_str(a)) {
        if p != "NOTSET" {
            return Err(format!(
                "auto_pad = {p} (qnn ops take explicit pads; run shape inference to make them explicit)"
            ));
        }
    }
    if int_attr(ctx, op, "ceil_mode").unwrap_or(0) != 0 {
        return Err("ceil_mode = 1 has no qnn form".into());
    }
    Ok(())
}

/// The only user of `v`, if it has exactly one.
fn only_user(ctx: &Context, v: Value) -> Option<Op> {
    match ctx.uses(v) {
        [u] => Some(u.op),
        _ => None,
    }
}

/// The ops `qnn` computes on directly, with a fused activation.
const FUSING: [&str; 5] = [
    "graph.Conv",
    "graph.MatMul",
    "graph.Gemm",
    "graph.Add",
    "graph.Mul",
];

/// Ops that become a `qnn.lut` on a dequantized input of at most 8 bits.
const ELEMENTWISE: [&str; 8] = [
    "graph.Sigmoid",
    "graph.Erf",
    "graph.Tanh",
    "graph.HardSwish",
    "graph.Gelu",
    "graph.Relu",
    "graph.LeakyRelu",
    "graph.Clip",
];

/// The fused activation of `act` (`Relu` or `Clip`), with its bounds; `out` is the quantized
/// result type (a missing `Clip` bound is the end of its range).
fn fused_activation(
    ctx: &Context,
    act: Op,
    out: &UniformQuantizedType,
) -> Result<Vec<(&'static str, Prop)>, String> {
    match name_of(ctx, act) {
        "graph.Relu" => Ok(vec![("activation", Prop::Act(activation::RELU))]),
        "graph.Clip" => {
            let lo = scalar_operand(ctx, act, 1)?;
            let hi = scalar_operand(ctx, act, 2)?;
            if lo == Some(0.0) && hi == Some(6.0) {
                return Ok(vec![("activation", Prop::Act(activation::RELU6))]);
            }
            if lo == Some(0.0) && hi.is_none() {
                return Ok(vec![("activation", Prop::Act(activation::RELU))]);
            }
            let (s, z) = (out.scales()[0], out.zero_points()[0]);
            let lo = lo.unwrap_or(s * (out.storage_min - z) as f64);
            let hi = hi.unwrap_or(s * (out.storage_max - z) as f64);
            if lo > hi {
                return Err(format!("Clip bounds {lo} > {hi}"));
            }
            Ok(vec![
                ("activation", Prop::Act(activation::CLIP)),
                ("clip_min", Prop::Float(lo)),
                ("clip_max", Prop::Float(hi)),
            ])
        }
        other => Err(format!(
            "'{other}' does not fuse into qnn ops (they fuse relu, relu6 and clip)"
        )),
    }
}

/// Matches the chain ending in `qcast`; operands quantized per block (`w4-group`) stay in the
/// QDQ form.
fn plan_for(ctx: &Context, qcast: Op, round: u64) -> Match {
    let plan = match_chain(ctx, qcast, round)?;
    // Only weights and biases (operands 1 and 2 of qnn.conv and qnn.matmul) may be per channel.
    let weighted = matches!(plan.name, Some("qnn.conv" | "qnn.matmul"));
    if matches!(plan.name, None | Some("qnn.requantize")) {
        return Ok(plan);
    }
    for (i, &v) in plan.operands.iter().enumerate() {
        match quantized(ctx, v).map(|q| &q.params) {
            Some(QuantParams::PerBlock { .. }) => {
                return Err(format!(
                    "operand #{i} of the qnn op would be quantized per block (as w4-group weights are); qnn ops take per-tensor or per-channel parameters"
                ));
            }
            Some(QuantParams::PerAxis { .. }) if !(weighted && i > 0) => {
                return Err(format!(
                    "operand #{i} of '{}' would be quantized per channel; it takes per-tensor parameters there",
                    plan.name.unwrap_or_default()
                ));
            }
            _ => {}
        }
    }
    if !matches!(out_params(ctx, qcast), Some(QuantParams::PerTensor { .. })) {
        return Err("the result is not quantized per tensor, as qnn results are".into());
    }
    Ok(plan)
}

fn out_params(ctx: &Context, qcast: Op) -> Option<&QuantParams> {
    quantized(ctx, ctx.result(qcast, 0)).map(|q| &q.params)
}

/// Matches the chain ending in `qcast`.
fn match_chain(ctx: &Context, qcast: Op, round: u64) -> Match {
    let x = ctx.operand(qcast, 0);
    let out_ty = ctx.value_type(ctx.result(qcast, 0));
    let Some(out) = quantized(ctx, ctx.result(qcast, 0)).cloned() else {
        return Err("the qcast's result is not a tensor of uniform quantized type".into());
    };
    let Some(p) = ctx.defining_op(x) else {
        return Err("the quantized value is a function argument".into());
    };
    let pname = name_of(ctx, p);
    if pname == "quant.dcast" {
        let src = ctx.operand(p, 0);
        if quantized(ctx, src).is_none() {
            return Err("the dequantized value is not a uniform quantized tensor".into());
        }
        let identity = ctx.value_type(src) == out_ty;
        return Ok(Plan {
            name: (!identity).then_some("qnn.requantize"),
            anchor: p,
            operands: vec![src],
            transpose_rhs: false,
            fold_bias: false,
            round,
            props: round_prop(round),
            erase: vec![p],
        });
    }
    let known = FUSING.contains(&pname)
        || ELEMENTWISE.contains(&pname)
        || matches!(
            pname,
            "graph.Concat"
                | "graph.AveragePool"
                | "graph.GlobalAveragePool"
                | "graph.MaxPool"
                | "graph.GlobalMaxPool"
        );
    if !known {
        return Err(format!("qnn has no integer form of '{pname}'"));
    }
    if only_user(ctx, x) != Some(qcast) || ctx.results(p).len() > 2 {
        return Err(
            "its result has users besides the quant.qcast, which read it in float".to_string(),
        );
    }
    // A fused activation: `C -> Relu/Clip -> qcast`.
    if matches!(pname, "graph.Relu" | "graph.Clip") {
        let inner = ctx.operand(p, 0);
        if let Some(c) = ctx.defining_op(inner) {
            if FUSING.contains(&name_of(ctx, c)) {
                if only_user(ctx, inner) != Some(p) {
                    return Err(format!(
                        "the result of '{}' has users besides the fused '{pname}'",
                        name_of(ctx, c)
                    ));
                }
                let act = fused_activation(ctx, p, &out)?;
                let mut plan = plan_compute(ctx, c, round)?;
                plan.props.extend(act);
                plan.erase.insert(0, p);
                return Ok(plan);
            }
        }
    }
    if pname == "graph.LeakyRelu" {
        if let Some(c) = ctx.defining_op(ctx.operand(p, 0)) {
            if FUSING.contains(&name_of(ctx, c)) {
                return Err(format!(
                    "'graph.LeakyRelu' after '{}' does not fuse into qnn ops (they fuse relu, relu6 and clip)",
                    name_of(ctx, c)
                ));
            }
        }
    }
    if FUSING.contains(&pname) {
        return plan_compute(ctx, p, round);
    }
    if ELEMENTWISE.contains(&pname) {
        return plan_lut(ctx, p, &out);
    }
    match pname {
        "graph.Concat" => plan_concat(ctx, p, round),
        "graph.AveragePool" | "graph.GlobalAveragePool" => plan_pool(ctx, p, round, false),
        "graph.MaxPool" | "graph.GlobalMaxPool" => plan_pool(ctx, p, round, true),
        other => Err(format!("qnn has no integer form of '{other}'")),
    }
}

fn round_prop(round: u64) -> Vec<(&'static str, Prop)> {
    if round == rounding::HALF_EVEN {
        Vec::new()
    } else {
        vec![("rounding", Prop::Round(round))]
    }
}

/// `Conv`, `MatMul`, `Gemm`, `Add`, `Mul`.
fn plan_compute(ctx: &Context, c: Op, round: u64) -> Match {
    let n = ctx.operands(c).len();
    let mut plan = Plan {
        name: None,
        anchor: c,
        operands: Vec::new(),
        transpose_rhs: false,
        fold_bias: false,
        round,
        props: round_prop(round),
        erase: vec![c],
    };
    // The bias: dequantized i32, or a float constant vector that the rewrite quantizes to the
    // accumulator's scale (schemes that keep biases float, as TensorRT adds them after the
    // integer product).
    let bias = |i: usize| -> Result<Option<(Value, bool)>, String> {
        if i >= n || !present(ctx, ctx.operand(c, i)) {
            return Ok(None);
        }
        if let Ok(b) = dequantized(ctx, c, i) {
            return Ok(Some((b, false)));
        }
        let v = ctx.operand(c, i);
        match ir_util::constant_tensor(ctx, v) {
            Some(t) if t.shape().len() == 1 && ir_util::is_float_tensor(ctx, ctx.value_type(v)) => {
                Ok(Some((v, true)))
            }
            _ => Err(format!(
                "the bias (operand #{i}) is neither a dequantized i32 tensor nor a float constant vector"
            )),
        }
    };
    match name_of(ctx, c) {
        "graph.Conv" => {
            check_window(ctx, c)?;
            plan.name = Some("qnn.conv");
            plan.operands = vec![dequantized(ctx, c, 0)?, dequantized(ctx, c, 1)?];
            if let Some((b, fold)) = bias(2)? {
                plan.operands.push(b);
                plan.fold_bias = fold;
            }
            for key in ["strides", "pads", "dilations"] {
                if let Some(v) = ints_attr(ctx, c, key) {
                    plan.props.push((key, Prop::Ints(v)));
                }
            }
            if let Some(g) = int_attr(ctx, c, "group").filter(|&g| g != 1) {
                plan.props.push(("group", Prop::Int(g)));
            }
        }
        "graph.MatMul" => {
            plan.name = Some("qnn.matmul");
            plan.operands = vec![dequantized(ctx, c, 0)?, dequantized(ctx, c, 1)?];
        }
        "graph.Gemm" => {
            if int_attr(ctx, c, "transA").unwrap_or(0) != 0 {
                return Err("Gemm with transA = 1 has no qnn form".into());
            }
            for key in ["alpha", "beta"] {
                if let Some(v) = float_attr(ctx, c, key).filter(|&v| v != 1.0) {
                    return Err(format!("Gemm with {key} = {v} has no qnn form (want 1)"));
                }
            }
            plan.name = Some("qnn.matmul");
            let b = dequantized(ctx, c, 1)?;
            if int_attr(ctx, c, "transB").unwrap_or(0) != 0 {
                let constant = ctx
                    .defining_op(b)
                    .filter(|&d| name_of(ctx, d) == "quant.scast")
                    .is_some_and(|d| ir_util::constant_tensor(ctx, ctx.operand(d, 0)).is_some());
                if !constant {
                    return Err(
                        "Gemm with transB = 1 needs a constant weight to transpose at compile time"
                            .into(),
                    );
                }
                plan.transpose_rhs = true;
            }
            plan.operands = vec![dequantized(ctx, c, 0)?, b];
            if let Some((bv, fold)) = bias(2)? {
                if ctx.shape_of(ctx.value_type(bv)).map(<[i64]>::len) != Some(1) {
                    return Err("Gemm's C must be a vector of N values for qnn.matmul".into());
                }
                plan.operands.push(bv);
                plan.fold_bias = fold;
            }
        }
        "graph.Add" | "graph.Mul" => {
            plan.name = Some(if name_of(ctx, c) == "graph.Add" {
                "qnn.add"
            } else {
                "qnn.mul"
            });
            plan.operands = vec![dequantized(ctx, c, 0)?, dequantized(ctx, c, 1)?];
        }
        other => return Err(format!("qnn has no integer form of '{other}'")),
    }
    Ok(plan)
}

fn plan_concat(ctx: &Context, c: Op, round: u64) -> Match {
    let operands = (0..ctx.operands(c).len())
        .map(|i| dequantized(ctx, c, i))
        .collect::<Result<Vec<_>, _>>()?;
    let rank = ctx
        .shape_of(ctx.value_type(ctx.result(c, 0)))
        .map_or(0, <[i64]>::len) as i64;
    let axis = int_attr(ctx, c, "axis").unwrap_or(0);
    let axis = if axis < 0 { axis + rank } else { axis };
    let mut props = vec![("axis", Prop::Int(axis))];
    props.extend(round_prop(round));
    Ok(Plan {
        name: Some("qnn.concat"),
        anchor: c,
        operands,
        transpose_rhs: false,
        fold_bias: false,
        round,
        props,
        erase: vec![c],
    })
}

fn plan_pool(ctx: &Context, p: Op, round: u64, max: bool) -> Match {
    check_window(ctx, p)?;
    if ctx.results(p).len() > 1 && ctx.has_uses(ctx.result(p, 1)) {
        return Err("MaxPool's indices are used; qnn.max_pool has no indices".into());
    }
    let x = dequantized(ctx, p, 0)?;
    let global = name_of(ctx, p).starts_with("graph.Global");
    let mut props = Vec::new();
    if global {
        let shape = ctx.shape_of(ctx.value_type(x)).unwrap_or(&[]);
        if shape.len() < 3 || shape[2..].iter().any(|&d| d < 0) {
            return Err("a global pool needs static spatial dimensions".into());
        }
        props.push(("kernel_shape", Prop::Ints(shape[2..].to_vec())));
    } else {
        let keys: &[&'static str] = if max {
            &["kernel_shape", "strides", "pads", "dilations"]
        } else {
            &["kernel_shape", "strides", "pads"]
        };
        for &key in keys {
            if let Some(v) = ints_attr(ctx, p, key) {
                props.push((key, Prop::Ints(v)));
            }
        }
        if !max && int_attr(ctx, p, "count_include_pad").unwrap_or(0) != 0 {
            props.push(("count_include_pad", Prop::Unit));
        }
    }
    if !max {
        props.extend(round_prop(round));
    }
    Ok(Plan {
        name: Some(if max { "qnn.max_pool" } else { "qnn.avg_pool" }),
        anchor: p,
        operands: vec![x],
        transpose_rhs: false,
        fold_bias: false,
        round,
        props,
        erase: vec![p],
    })
}

/// The float function of an elementwise op, from its attributes and constant operands.
fn elementwise_fn(ctx: &Context, op: Op) -> Result<Box<dyn Fn(f64) -> f64>, String> {
    use lut::functions as f;
    Ok(match name_of(ctx, op) {
        "graph.Sigmoid" => Box::new(f::sigmoid),
        "graph.Tanh" => Box::new(f::tanh),
        "graph.Erf" => Box::new(f::erf),
        "graph.HardSwish" => Box::new(f::hardswish),
        "graph.Gelu" => match ctx.attr(op, "approximate").and_then(|a| ctx.attr_str(a)) {
            None | Some("none") => Box::new(f::gelu),
            Some(a) => return Err(format!("Gelu with approximate = {a} has no table yet")),
        },
        "graph.Relu" => Box::new(|x: f64| x.max(0.0)),
        "graph.LeakyRelu" => {
            let alpha = float_attr(ctx, op, "alpha").unwrap_or(0.01);
            Box::new(move |x: f64| if x < 0.0 { alpha * x } else { x })
        }
        "graph.Clip" => {
            let lo = scalar_operand(ctx, op, 1)?.unwrap_or(f64::NEG_INFINITY);
            let hi = scalar_operand(ctx, op, 2)?.unwrap_or(f64::INFINITY);
            Box::new(move |x: f64| x.max(lo).min(hi))
        }
        other => return Err(format!("qnn has no table for '{other}'")),
    })
}

/// An elementwise function of a dequantized input: a `qnn.lut`.
fn plan_lut(ctx: &Context, op: Op, out: &UniformQuantizedType) -> Match {
    let x = dequantized(ctx, op, 0)?;
    let input = quantized(ctx, x).ok_or("the input is not a uniform quantized tensor")?;
    let f = elementwise_fn(ctx, op)?;
    let table = lut::table(input, out, f)?;
    Ok(Plan {
        name: Some("qnn.lut"),
        anchor: op,
        operands: vec![x],
        transpose_rhs: false,
        fold_bias: false,
        round: rounding::HALF_EVEN,
        props: vec![("table", Prop::Table(table))],
        erase: vec![op],
    })
}

/// `q` (a `quant.scast` of a constant `[N, K]`) as a new constant `[K, N]` and its `scast`,
/// built at the rewriter's insertion point; per-axis parameters move from axis 0 to axis 1.
fn transposed_weight(rw: &mut PatternRewriter<'_>, q: Value) -> Option<Value> {
    let scast = rw.defining_op(q)?;
    let storage = rw.operand(scast, 0);
    let t = ir_util::constant_tensor(rw, storage)?;
    let data = t.to_f64_vec().ok()?;
    let [n, k] = *t.shape() else { return None };
    let mut qt = quantized(rw, q)?.clone();
    if let QuantParams::PerAxis { axis, .. } = &mut qt.params {
        if *axis != 0 {
            return None;
        }
        *axis = 1;
    }
    let storage_elem = rw.element_type(rw.value_type(storage));
    let loc = rw.value_loc(storage);
    let mut out = vec![0.0; data.len()];
    for r in 0..n {
        for c in 0..k {
            out[c * n + r] = data[r * k + c];
        }
    }
    let attr = ir_util::dense_attr(rw.uniq(), &[k, n], storage_elem, &out);
    let int_ty = rw
        .uniq()
        .tensor_type(vec![k as i64, n as i64], storage_elem);
    let state = OperationState::new(rw.uniq(), "graph.constant", loc)
        .results(&[int_ty])
        .prop(rw.uniq(), "value", attr);
    let c = rw.create(state);
    let cv = rw.result(c, 0);
    let qelem = rw.uniq().dialect_type(qt);
    let q_ty = rw.uniq().tensor_type(vec![k as i64, n as i64], qelem);
    let s = OperationState::new(rw.uniq(), "quant.scast", loc)
        .operands(&[cv])
        .results(&[q_ty]);
    let s = rw.create(s);
    Some(rw.result(s, 0))
}

/// The float constant bias `b` as an `i32` constant and its `scast`, at scale `input scale ×
/// weight scale` per output channel (zero point 0), rounding ties as `round` says.
fn quantized_bias(
    rw: &mut PatternRewriter<'_>,
    input: Value,
    weight: Value,
    b: Value,
    round: u64,
) -> Option<Value> {
    let sx = quantized(rw, input)?.scale()?;
    let w = quantized(rw, weight)?.clone();
    let data = ir_util::constant_tensor(rw, b)?.to_f64_vec().ok()?;
    let ws = w.scales();
    if ws.len() != 1 && ws.len() != data.len() {
        return None;
    }
    let scales: Vec<f64> = (0..data.len())
        .map(|c| sx * if ws.len() == 1 { ws[0] } else { ws[c] })
        .collect();
    let q: Vec<f64> = data
        .iter()
        .zip(&scales)
        .map(|(&x, &s)| {
            let y = x / s;
            let r = match round {
                rounding::HALF_AWAY => y.round(),
                rounding::HALF_UP => (y + 0.5).floor(),
                _ => y.round_ties_even(),
            };
            r.clamp(f64::from(i32::MIN), f64::from(i32::MAX))
        })
        .collect();
    let params = if ws.len() == 1 {
        QuantParams::PerTensor {
            scale: scales[0].to_bits(),
            zero_point: 0,
        }
    } else {
        QuantParams::PerAxis {
            axis: 0,
            scales: scales.iter().map(|s| s.to_bits()).collect(),
            zero_points: vec![0; scales.len()],
        }
    };
    let qt = UniformQuantizedType {
        storage_width: 32,
        signed: true,
        storage_min: i64::from(i32::MIN),
        storage_max: i64::from(i32::MAX),
        expressed: w.expressed,
        params,
    };
    let n = data.len();
    let loc = rw.value_loc(b);
    let i32t = rw.uniq().int_type(32);
    let attr = ir_util::dense_attr(rw.uniq(), &[n], i32t, &q);
    let int_ty = rw.uniq().tensor_type(vec![n as i64], i32t);
    let state = OperationState::new(rw.uniq(), "graph.constant", loc)
        .results(&[int_ty])
        .prop(rw.uniq(), "value", attr);
    let c = rw.create(state);
    let cv = rw.result(c, 0);
    let qelem = rw.uniq().dialect_type(qt);
    let q_ty = rw.uniq().tensor_type(vec![n as i64], qelem);
    let s = OperationState::new(rw.uniq(), "quant.scast", loc)
        .operands(&[cv])
        .results(&[q_ty]);
    let s = rw.create(s);
    Some(rw.result(s, 0))
}

fn make_prop(rw: &mut PatternRewriter<'_>, p: &Prop) -> nart_ir::Attr {
    let u = rw.uniq();
    match p {
        Prop::Ints(v) => {
            let elem = u.int_type(64);
            u.intern_attr(nart_ir::AttrData::DenseArray {
                elem,
                data: nart_ir::DenseArrayData::Int(v.clone()),
            })
        }
        Prop::Int(v) => u.i64_attr(*v),
        Prop::Unit => u.unit_attr(),
        Prop::Float(v) => {
            let f64t = u.float_type(FloatKind::F64);
            u.float_attr(f64t, *v)
        }
        Prop::Act(a) => ACTIVATION_ATTR.enum_attr(u, *a),
        Prop::Round(r) => ROUNDING_ATTR.enum_attr(u, *r),
        Prop::Table(t) => lut::table_attr(u, t),
    }
}

/// Erases the casts and constants behind `v` that nothing uses any more.
fn erase_dead_chain(rw: &mut PatternRewriter<'_>, v: Value) {
    let mut work = vec![v];
    while let Some(v) = work.pop() {
        let Some(d) = rw.defining_op(v) else { continue };
        let removable = matches!(
            name_of(rw, d),
            "quant.dcast" | "quant.scast" | "graph.constant"
        );
        if !removable || rw.results(d).iter().any(|&r| rw.has_uses(r)) {
            continue;
        }
        work.extend(rw.operands(d).iter().copied());
        rw.erase_op(d);
    }
}

/// Builds the plan's op before `qcast`, checks it with its verifier, and replaces the chain;
/// returns the verifier's message when the op does not verify (nothing is changed then).
fn rewrite(rw: &mut PatternRewriter<'_>, qcast: Op, plan: &Plan) -> Result<(), String> {
    let Some(name) = plan.name else {
        let src = plan.operands[0];
        rw.replace_op(qcast, &[src]);
        erase_dead_chain(rw, rw.operand(plan.anchor, 0));
        if !rw.has_uses(rw.result(plan.anchor, 0)) {
            rw.erase_op(plan.anchor);
        }
        return Ok(());
    };
    rw.set_insertion_point_before(qcast);
    let mut operands = plan.operands.clone();
    if plan.transpose_rhs {
        operands[1] = transposed_weight(rw, operands[1])
            .ok_or("the transB weight could not be transposed at compile time")?;
    }
    if plan.fold_bias {
        match quantized_bias(rw, operands[0], operands[1], operands[2], plan.round) {
            Some(b) => operands[2] = b,
            None => {
                if plan.transpose_rhs {
                    erase_dead_chain(rw, operands[1]);
                }
                return Err(
                    "the float bias could not be quantized to the accumulator's scale".into(),
                );
            }
        }
    }
    let out_ty = rw.value_type(rw.result(qcast, 0));
    let loc = rw.op_loc(plan.anchor);
    let props: Vec<(&str, nart_ir::Attr)> = plan
        .props
        .iter()
        .map(|(k, p)| (*k, make_prop(rw, p)))
        .collect();
    let mut state = OperationState::new(rw.uniq(), name, loc)
        .operands(&operands)
        .results(&[out_ty]);
    for (k, a) in props {
        state = state.prop(rw.uniq(), k, a);
    }
    let new = rw.create(state);
    if let Err(diags) = nart_ir::verify::verify(rw, new) {
        rw.erase_op(new);
        if plan.transpose_rhs {
            erase_dead_chain(rw, operands[1]);
        }
        if plan.fold_bias {
            erase_dead_chain(rw, operands[2]);
        }
        let msg = diags
            .first()
            .map_or_else(|| "it does not verify".to_string(), |d| d.message.clone());
        return Err(msg);
    }
    let res = rw.result(new, 0);
    rw.replace_op(qcast, &[res]);
    for &op in &plan.erase {
        if rw.results(op).iter().any(|&r| rw.has_uses(r)) {
            continue;
        }
        let inputs = rw.operands(op).to_vec();
        rw.erase_op(op);
        for v in inputs {
            erase_dead_chain(rw, v);
        }
    }
    Ok(())
}

/// The families of chains, one pattern each, named after the float op they match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Requantize,
    Conv,
    MatMul,
    Elementwise,
    Concat,
    Pool,
    Lut,
}

fn family(ctx: &Context, qcast: Op) -> Option<Family> {
    let p = ctx.defining_op(ctx.operand(qcast, 0))?;
    let mut name = name_of(ctx, p);
    if matches!(name, "graph.Relu" | "graph.Clip") {
        if let Some(c) = ctx.defining_op(ctx.operand(p, 0)) {
            if FUSING.contains(&name_of(ctx, c)) {
                name = name_of(ctx, c);
            }
        }
    }
    Some(match name {
        "quant.dcast" => Family::Requantize,
        "graph.Conv" => Family::Conv,
        "graph.MatMul" | "graph.Gemm" => Family::MatMul,
        "graph.Add" | "graph.Mul" => Family::Elementwise,
        "graph.Concat" => Family::Concat,
        "graph.AveragePool"
        | "graph.GlobalAveragePool"
        | "graph.MaxPool"
        | "graph.GlobalMaxPool" => Family::Pool,
        n if ELEMENTWISE.contains(&n) => Family::Lut,
        _ => return None,
    })
}

/// What a pattern says about a chain of another pattern's family.
const OTHER_FAMILY: &str = "the chain is another pattern's";

/// A pattern rooted on `quant.qcast` that lowers one family of chains.
struct LowerChain {
    name: &'static str,
    family: Family,
    round: u64,
}

impl RewritePattern for LowerChain {
    fn name(&self) -> &'static str {
        self.name
    }

    fn root(&self) -> Option<&'static str> {
        Some("quant.qcast")
    }

    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        if family(rw, op) != Some(self.family) {
            return rw.match_failure(OTHER_FAMILY);
        }
        let plan = match plan_for(rw, op, self.round) {
            Ok(p) => p,
            Err(e) => return rw.match_failure(e),
        };
        match rewrite(rw, op, &plan) {
            Ok(()) => true,
            Err(e) => rw.match_failure(e),
        }
    }
}

/// The patterns, for a scheme rounding ties as `round` (a `#qnn.rounding` value).
pub fn patterns(round: u64) -> FrozenPatternSet {
    let p = |name, family| -> Box<dyn RewritePattern> {
        Box::new(LowerChain {
            name,
            family,
            round,
        })
    };
    FrozenPatternSet::new(
        [],
        vec![
            p("QcastOfDcast", Family::Requantize),
            p("QcastOfConv", Family::Conv),
            p("QcastOfMatMul", Family::MatMul),
            p("QcastOfAddMul", Family::Elementwise),
            p("QcastOfConcat", Family::Concat),
            p("QcastOfPool", Family::Pool),
            p("QcastOfElementwise", Family::Lut),
        ],
    )
}

/// Lowers every chain of `func` that fits, in program order; ties round as `round` says.
pub fn lower(ctx: &mut Context, func: Op, round: u64) -> LowerReport {
    let set = patterns(round);
    let mut report = LowerReport::default();
    let mut verifier_refusals: std::collections::HashMap<Op, String> = Default::default();
    let qcasts: Vec<Op> = ctx
        .collect_ops(func, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .filter(|&op| name_of(ctx, op) == "quant.qcast")
        .collect();
    for q in qcasts {
        if ctx.is_erased(q) {
            continue;
        }
        let plan = plan_for(ctx, q, round).ok();
        let mut done = false;
        let mut refused = None;
        for pat in set.patterns_for(ctx, q) {
            let mut rw = PatternRewriter::new(ctx);
            if pat.match_and_rewrite(&mut rw, q) {
                done = true;
                break;
            }
            if let Some(why) = rw.take_match_failure().filter(|w| w != OTHER_FAMILY) {
                refused = Some(why);
            }
        }
        match (done, &plan) {
            (
                true,
                Some(Plan {
                    name: Some(name), ..
                }),
            ) => {
                *report.lowered.entry(name).or_insert(0) += 1;
            }
            (true, _) => report.identities += 1,
            // The chain matched but its op did not verify: the verifier's message says why.
            (false, Some(p)) => {
                if let Some(why) = refused {
                    verifier_refusals.insert(p.anchor, why);
                }
            }
            (false, None) => {}
        }
    }
    for op in ctx.collect_ops(func, nart_ir::WalkOrder::PreOrder) {
        if crate::lint::is_float_compute(ctx, op) && reads_dequantized(ctx, op) {
            let why = verifier_refusals
                .remove(&op)
                .unwrap_or_else(|| explain(ctx, op, round));
            report.kept.push((op, why));
        }
    }
    report
}

fn reads_dequantized(ctx: &Context, op: Op) -> bool {
    ctx.operands(op).iter().any(|&v| {
        ctx.defining_op(v).is_some_and(|d| {
            ctx.op_interface::<dyn crate::lint::DequantizeOpInterface>(d)
                .is_some()
        })
    })
}

/// Why the float op `op` is not (yet) an integer `qnn` op: the reason the lowering refuses its
/// chain, or the `qnn` op it would become.
pub fn explain(ctx: &Context, op: Op, round: u64) -> String {
    let Some(&r) = ctx.results(op).first() else {
        return "it has no result".into();
    };
    // The qcast that quantizes its result, through a fused activation.
    let mut v = r;
    let mut qcast = None;
    for _ in 0..2 {
        let Some(u) = only_user(ctx, v) else { break };
        if name_of(ctx, u) == "quant.qcast" {
            qcast = Some(u);
            break;
        }
        if matches!(
            name_of(ctx, u),
            "graph.Relu" | "graph.Clip" | "graph.LeakyRelu"
        ) && FUSING.contains(&name_of(ctx, op))
        {
            v = ctx.result(u, 0);
            continue;
        }
        break;
    }
    let Some(qcast) = qcast else {
        for i in 0..ctx.operands(op).len() {
            let d = ctx.defining_op(ctx.operand(op, i));
            if d.is_some_and(|d| name_of(ctx, d) == "graph.DequantizeLinear") {
                if let Err(e) = dequantized(ctx, op, i) {
                    return e;
                }
            }
        }
        let activations_float = ctx.operands(op).iter().any(|&v| {
            ir_util::is_float_tensor(ctx, ctx.value_type(v))
                && ir_util::constant_tensor(ctx, v).is_none()
                && !ctx.defining_op(v).is_some_and(|d| {
                    ctx.op_interface::<dyn crate::lint::DequantizeOpInterface>(d)
                        .is_some()
                })
        });
        if activations_float {
            return "weight-only quantization: its activations are float, so it computes in float on the dequantized weights".into();
        }
        return if ctx
            .uses(r)
            .iter()
            .any(|u| name_of(ctx, u.op) == "quant.qcast")
        {
            "its result also has float users, so the op must stay float".into()
        } else {
            "its result is not quantized (no quant.qcast reads it), so no qnn op can produce it"
                .into()
        };
    };
    match plan_for(ctx, qcast, round) {
        Ok(p) => format!(
            "it lowers to '{}' (run quant-lower-qnn)",
            p.name.unwrap_or("nothing")
        ),
        Err(e) => e,
    }
}

/// Lowers every function of `op`.
pub fn lower_all(ctx: &mut Context, op: Op, round: u64) -> LowerReport {
    let mut total = LowerReport::default();
    for f in ir_util::functions(ctx, op) {
        let r = lower(ctx, f, round);
        for (k, n) in r.lowered {
            *total.lowered.entry(k).or_insert(0) += n;
        }
        total.identities += r.identities;
        total.kept.extend(r.kept);
    }
    total
}
