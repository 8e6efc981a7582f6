//! `quant-apply` in static mode: turns float graph ops into the QDQ form.
//!
//! For each op the scheme covers (after per-layer overrides), with BatchNorm folded first:
//! - each float activation it reads or writes gets a `quant.qcast` / `quant.dcast` pair right
//!   after the value is computed, with parameters the scheme chooses from the calibrated range
//!   (or a user's entry in the parameter file); every use of the value then reads the
//!   dequantized value, so a float op left behind shows up in `quant-lint`;
//! - an activation function right after it (`Relu`, `Clip`, `LeakyRelu`, its only user) is
//!   fused: the pair's output is quantized once, after the activation;
//! - data movement (`MaxPool`, `Reshape`, `Flatten`, ...) keeps its input's parameters;
//! - a constant weight becomes integer storage: `graph.constant` of `iN`, `quant.scast` to the
//!   quantized type (per channel or per group as the scheme says), `quant.dcast` to float;
//! - a constant bias becomes `i32` with scale `input scale * weight scale` and zero point 0
//!   (schemes with `i32` biases), so that it adds to the integer accumulator;
//! - float-cast schemes (`fp16`, `bf16`) insert `graph.Cast` pairs and store weights in the
//!   smaller format instead.
//!
//! The `qnn` lowering later fuses `dcast -> op -> qcast` into integer ops.

use std::collections::HashMap;

use nart_dialect_quant::types::{QuantParams as IrParams, UniformQuantizedType};
use nart_ir::{Context, FloatKind, Op, OperationState, Type, Value, ValueDef};

use crate::collect;
use crate::errors::QuantError;
use crate::ir_util;
use crate::qparams::{QParamsFile, TensorParams};
use crate::roles::{self, Role};
use crate::scheme::{
    BiasSpec, FloatFormat, Granularity, IntSpec, QParams, Scheme, SchemeRegistry, TensorSpec,
};

/// What a per-layer override does.
#[derive(Clone, Debug, PartialEq)]
pub enum OverrideAction {
    /// Keep the matching ops in float.
    Float,
    /// Use this many bits for activations and weights.
    Bits(u32),
    /// Use another scheme.
    Scheme(Box<Scheme>),
}

/// A per-layer override: ops whose name matches `pattern` (a glob) get `action`.
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    /// The glob over op names (`conv1`, `layers.*.attn.*`).
    pub pattern: String,
    /// What to do.
    pub action: OverrideAction,
}

impl Override {
    /// Parses `PATTERN=float`, `PATTERN=bits:N` or `PATTERN=scheme:NAME`.
    pub fn parse(text: &str, schemes: &SchemeRegistry) -> Result<Override, QuantError> {
        let err = |m: &str| {
            QuantError::Override(format!(
                "bad override '{text}': {m} (want PATTERN=float, PATTERN=bits:N or PATTERN=scheme:NAME)"
            ))
        };
        let (pattern, what) = text.split_once('=').ok_or_else(|| err("no '='"))?;
        if pattern.is_empty() {
            return Err(err("empty pattern"));
        }
        let action = if what == "float" {
            OverrideAction::Float
        } else if let Some(b) = what.strip_prefix("bits:") {
            match b.parse::<u32>() {
                Ok(b) if (2..=16).contains(&b) => OverrideAction::Bits(b),
                _ => return Err(err("bits must be 2 to 16")),
            }
        } else if let Some(s) = what.strip_prefix("scheme:") {
            OverrideAction::Scheme(Box::new(schemes.get(s)?.clone()))
        } else {
            return Err(err("unknown action"));
        };
        Ok(Override {
            pattern: pattern.to_string(),
            action,
        })
    }
}

/// Options of the static QDQ transformation.
#[derive(Clone, Debug)]
pub struct ApplyOptions {
    /// The scheme.
    pub scheme: Scheme,
    /// Per-layer overrides; the last that matches an op wins.
    pub overrides: Vec<Override>,
    /// User-given parameters by tensor name.
    pub user_params: Option<QParamsFile>,
    /// Fold BatchNorm into convolutions first.
    pub fold_batchnorm: bool,
}

/// What the transformation did.
#[derive(Clone, Debug, Default)]
pub struct ApplyReport {
    /// BatchNorms folded.
    pub folded_batchnorms: usize,
    /// Ops quantized (covered by their scheme).
    pub quantized_ops: usize,
    /// Activations fused into the op before them.
    pub fused_activations: usize,
    /// Ops kept in float by an override.
    pub kept_float: Vec<String>,
    /// Activation values given a QDQ pair (or a cast pair).
    pub activations: usize,
    /// Weights quantized.
    pub weights: usize,
    /// Biases quantized to i32.
    pub biases: usize,
    /// The chosen parameters, by tensor name.
    pub params: QParamsFile,
}

/// The scheme for `op` after overrides, or `None` when an override keeps it float.
fn scheme_for<'s>(
    ctx: &Context,
    op: Op,
    opts: &'s ApplyOptions,
) -> Result<Option<std::borrow::Cow<'s, Scheme>>, QuantError> {
    let name = ir_util::op_name(ctx, op).unwrap_or_default();
    let hit = opts
        .overrides
        .iter()
        .rev()
        .find(|o| ir_util::glob_match(&o.pattern, &name));
    Ok(match hit.map(|o| &o.action) {
        None => Some(std::borrow::Cow::Borrowed(&opts.scheme)),
        Some(OverrideAction::Float) => None,
        Some(OverrideAction::Scheme(s)) => Some(std::borrow::Cow::Owned((**s).clone())),
        Some(OverrideAction::Bits(b)) => {
            let mut s = opts.scheme.clone();
            for spec in [&mut s.activations, &mut s.weights] {
                if let TensorSpec::Int(i) = spec {
                    i.bits = *b;
                }
            }
            Some(std::borrow::Cow::Owned(s))
        }
    })
}

/// How an activation value is to be represented.
#[derive(Clone, Debug)]
enum ActPlan {
    Int(IntSpec),
    /// Cast to a smaller float format and back (subnormals are not flushed at run time).
    Cast(FloatFormat),
    /// Share the parameters of another value (data movement), or choose with the spec when
    /// they do not fit (per-channel parameters through a reshape).
    Like(Value, IntSpec),
}

struct Planner<'a> {
    opts: &'a ApplyOptions,
    acts: Vec<(Value, ActPlan)>,
    act_index: HashMap<Value, usize>,
}

impl Planner<'_> {
    fn want(&mut self, v: Value, plan: ActPlan) {
        if !self.act_index.contains_key(&v) {
            self.act_index.insert(v, self.acts.len());
            self.acts.push((v, plan));
        }
    }
}

fn act_plan(spec: &TensorSpec) -> Option<ActPlan> {
    match spec {
        TensorSpec::Float => None,
        TensorSpec::Int(i) => Some(ActPlan::Int(*i)),
        TensorSpec::Cast { format, .. } => Some(ActPlan::Cast(*format)),
    }
}

fn is_const(ctx: &Context, v: Value) -> bool {
    nart_ir::interfaces::constant_of(ctx, v).is_some()
}

fn float_operand(ctx: &Context, v: Value) -> bool {
    ir_util::is_float_tensor(ctx, ctx.value_type(v))
}

/// The quantized element type for parameters `p`, expressed in `expressed`.
pub fn quantized_type(
    ctx: &mut Context,
    p: &QParams,
    expressed: Type,
    shape: Option<&[usize]>,
) -> Type {
    let width = storage_width(p.bits);
    let params = match (p.axis, p.block) {
        (_, Some((dim, size))) => {
            let scale_shape: Vec<i64> = shape
                .map(|s| {
                    s.iter()
                        .enumerate()
                        .map(|(d, &n)| {
                            if d as u32 == dim {
                                (n / size as usize) as i64
                            } else {
                                n as i64
                            }
                        })
                        .collect()
                })
                .unwrap_or_default();
            // Every dimension is listed: a dimension without a block would count as one block.
            let rank = shape.map_or(0, <[usize]>::len) as u32;
            IrParams::PerBlock {
                block_sizes: (0..rank.max(dim + 1))
                    .map(|d| (d, if d == dim { i64::from(size) } else { 1 }))
                    .collect(),
                shape: scale_shape,
                scales: p.scales.iter().map(|s| s.to_bits()).collect(),
                zero_points: p.zero_points.clone(),
            }
        }
        (Some(axis), None) => IrParams::PerAxis {
            axis,
            scales: p.scales.iter().map(|s| s.to_bits()).collect(),
            zero_points: p.zero_points.clone(),
        },
        (None, None) => IrParams::PerTensor {
            scale: p.scales[0].to_bits(),
            zero_point: p.zero_points[0],
        },
    };
    ctx.dialect_type(UniformQuantizedType {
        storage_width: width,
        signed: p.signed,
        storage_min: p.qmin,
        storage_max: p.qmax,
        expressed,
        params,
    })
}

/// The storage width for `bits` logical bits: 2, 4, 8, 16 or 32 as they are; other widths live
/// in the next byte type with a narrowed range.
pub fn storage_width(bits: u32) -> u32 {
    match bits {
        2 | 4 | 8 | 16 | 32 => bits,
        b if b < 8 => 8,
        b if b < 16 => 16,
        _ => 32,
    }
}

/// Inserts `qcast`/`dcast` after `v`'s definition and makes every other use read the
/// dequantized value; returns the dequantized value.
fn insert_qdq(ctx: &mut Context, func: Op, v: Value, qty: Type) -> Value {
    let fty = ctx.value_type(v);
    let loc = ctx.value_loc(v);
    let (q, anchor_after) = match ctx.value_def(v) {
        ValueDef::OpResult { op, .. } => {
            let q = ir_util::unary_after(ctx, op, "quant.qcast", v, qty, loc);
            (q, ctx.defining_op(q).expect("qcast was just built"))
        }
        ValueDef::BlockArg { .. } => {
            let first = ir_util::first_op(ctx, func).expect("a function with arguments has a body");
            let q = ir_util::unary_before(ctx, first, "quant.qcast", v, qty, loc);
            (q, ctx.defining_op(q).expect("qcast was just built"))
        }
    };
    let d = ir_util::unary_after(ctx, anchor_after, "quant.dcast", q, fty, loc);
    ctx.replace_uses_where(v, d, |user| user != anchor_after);
    d
}

/// Inserts `graph.Cast` to `format` and back after `v`; every other use reads the result.
fn insert_cast_pair(ctx: &mut Context, func: Op, v: Value, format: FloatFormat) {
    let fty = ctx.value_type(v);
    let elem = ctx.float_type(match format {
        FloatFormat::F16 => FloatKind::F16,
        FloatFormat::BF16 => FloatKind::BF16,
    });
    let small = ir_util::with_element(ctx, fty, elem);
    let loc = ctx.value_loc(v);
    let code = ctx.i64_attr(onnx_code(format));
    let f32_code = ctx.i64_attr(1);
    let down = OperationState::new(ctx, "graph.Cast", loc)
        .operands(&[v])
        .results(&[small])
        .prop(ctx, "to", code);
    let down = match ctx.value_def(v) {
        ValueDef::OpResult { op, .. } => ir_util::insert_after(ctx, op, down),
        ValueDef::BlockArg { .. } => {
            let first = ir_util::first_op(ctx, func).expect("a function with arguments has a body");
            ir_util::insert_before(ctx, first, down)
        }
    };
    let mid = ctx.result(down, 0);
    let up = OperationState::new(ctx, "graph.Cast", loc)
        .operands(&[mid])
        .results(&[fty])
        .prop(ctx, "to", f32_code);
    let up = ir_util::insert_after(ctx, down, up);
    let out = ctx.result(up, 0);
    ctx.replace_uses_where(v, out, |user| user != down);
}

fn onnx_code(f: FloatFormat) -> i64 {
    match f {
        FloatFormat::F16 => 10,
        FloatFormat::BF16 => 16,
    }
}

/// Rounds to the float format, flushing subnormals to zero when asked.
fn to_format(x: f64, format: FloatFormat, subnormals: bool) -> f64 {
    let (v, min_normal) = match format {
        FloatFormat::F16 => (
            nart_tensor::halfround::f16_from_f64(x).to_f64(),
            6.103515625e-5,
        ),
        FloatFormat::BF16 => (
            nart_tensor::halfround::bf16_from_f64(x).to_f64(),
            f64::from(f32::MIN_POSITIVE),
        ),
    };
    if !subnormals && v != 0.0 && v.abs() < min_normal {
        0.0
    } else {
        v
    }
}

/// Replaces operand `idx` of `op` (a constant) by its quantized form; returns the parameters.
fn quantize_weight(
    ctx: &mut Context,
    op: Op,
    idx: usize,
    spec: &IntSpec,
    scheme: &Scheme,
    user: Option<&QParamsFile>,
) -> Result<Option<(String, QParams)>, QuantError> {
    let v = ctx.operand(op, idx);
    let Some((shape, data)) = ir_util::constant_f64(ctx, v) else {
        return Ok(None);
    };
    let (channel, reduce) = roles::weight_axes(ctx, op, shape.len());
    let mut spec = *spec;
    let is_weight =
        matches!(roles::role(ctx, op), Some(Role::Weighted { weight, .. }) if weight == idx);
    if !is_weight && spec.granularity != Granularity::PerTensor {
        // Constant operands other than the weight (an Add's constant, even as operand 1) are
        // per tensor, as the integer ops that read them want.
        spec.granularity = Granularity::PerTensor;
    }
    if shape.len() < 2 && spec.granularity != Granularity::PerTensor {
        spec.granularity = Granularity::PerTensor;
    }
    let mut p = spec.params_for_weight(&data, &shape, channel, reduce);
    let name = ir_util::value_name(ctx, v).unwrap_or_else(|| {
        format!(
            "{}.operand{idx}",
            ir_util::op_name(ctx, op).unwrap_or_default()
        )
    });
    if let Some(entry) = user.and_then(|u| u.tensors.get(&name)) {
        p = entry.to_qparams(&name, &p, Some(&shape))?;
    }
    replace_with_storage(ctx, op, idx, &data, &shape, &p, scheme.rounding);
    Ok(Some((name, p)))
}

/// The stored integers of `data`, a row-major tensor of `shape`, each element quantized with
/// its own parameter set (the block's, the channel's, or the one per-tensor set), as the
/// little-endian bytes of a dense attribute of `width`-bit integers.
fn storage_bytes(
    data: &[f64],
    shape: &[usize],
    p: &QParams,
    rounding: crate::scheme::Rounding,
    width: u32,
) -> Vec<u8> {
    match width.div_ceil(8) {
        1 => store::<1>(data, shape, p, rounding),
        2 => store::<2>(data, shape, p, rounding),
        4 => store::<4>(data, shape, p, rounding),
        _ => store::<8>(data, shape, p, rounding),
    }
}

/// Elements below which a weight is quantized on the calling thread only.
const PARALLEL_MIN: usize = 1 << 19;

/// [`storage_bytes`] for `N` bytes per element: the low `N` bytes of each stored integer. A
/// large weight is cut into one piece per core, each of whole runs of elements that share a
/// parameter set, quantized on its own thread; every element is computed as on one thread.
fn store<const N: usize>(
    data: &[f64],
    shape: &[usize],
    p: &QParams,
    rounding: crate::scheme::Rounding,
) -> Vec<u8> {
    let threads = if data.len() >= PARALLEL_MIN {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        1
    };
    store_on::<N>(data, shape, p, rounding, threads)
}

/// [`store`] on `threads` threads.
fn store_on<const N: usize>(
    data: &[f64],
    shape: &[usize],
    p: &QParams,
    rounding: crate::scheme::Rounding,
    threads: usize,
) -> Vec<u8> {
    let mut out = vec![0u8; data.len() * N];
    if threads <= 1 || data.is_empty() {
        store_piece::<N>(data, 0, &mut out, shape, p, rounding);
        return out;
    }
    let align = match (p.axis, p.block) {
        (_, Some(_)) => shape[1],
        (Some(axis), None) => shape[axis as usize + 1..].iter().product(),
        (None, None) => 1,
    }
    .max(1);
    let piece = data.len().div_ceil(threads).div_ceil(align) * align;
    std::thread::scope(|scope| {
        for (k, (xs, dst)) in data
            .chunks(piece)
            .zip(out.chunks_mut(piece * N))
            .enumerate()
        {
            scope.spawn(move || store_piece::<N>(xs, k * piece, dst, shape, p, rounding));
        }
    });
    out
}

/// [`store`] of the elements `start..start + data.len()` of the weight into `out`; `start`
/// begins a run of elements that share a parameter set.
fn store_piece<const N: usize>(
    data: &[f64],
    start: usize,
    out: &mut [u8],
    shape: &[usize],
    p: &QParams,
    rounding: crate::scheme::Rounding,
) {
    let put = |dst: &mut [u8], k: usize, x: f64| {
        dst.copy_from_slice(&p.quantize(k, x, rounding).to_le_bytes()[..N]);
    };
    match (p.axis, p.block) {
        (_, Some((dim, size))) => {
            // Rank-2 blocks: the only case params_for_weight makes.
            let (dim, size) = (dim as usize, size as usize);
            let width = shape[1];
            let cols = if dim == 1 { width / size } else { width };
            for (j, (&x, dst)) in data.iter().zip(out.chunks_exact_mut(N)).enumerate() {
                let i = start + j;
                let (r, c) = (i / width, i % width);
                let k = if dim == 0 {
                    (r / size) * cols + c
                } else {
                    r * cols + c / size
                };
                put(dst, k, x);
            }
        }
        (Some(axis), None) => {
            // Runs of `inner` values share a channel, the channels cycling.
            let c = shape[axis as usize];
            let inner: usize = shape[axis as usize + 1..].iter().product::<usize>().max(1);
            let first = start / inner;
            for (run, (xs, dst)) in data
                .chunks(inner)
                .zip(out.chunks_mut(inner * N))
                .enumerate()
            {
                let k = (first + run) % c;
                for (&x, d) in xs.iter().zip(dst.chunks_exact_mut(N)) {
                    put(d, k, x);
                }
            }
        }
        _ => {
            for (&x, dst) in data.iter().zip(out.chunks_exact_mut(N)) {
                put(dst, 0, x);
            }
        }
    }
}

fn replace_with_storage(
    ctx: &mut Context,
    op: Op,
    idx: usize,
    data: &[f64],
    shape: &[usize],
    p: &QParams,
    rounding: crate::scheme::Rounding,
) {
    let v = ctx.operand(op, idx);
    let loc = ctx.value_loc(v);
    let expressed = ctx.element_type(ctx.value_type(v));
    let width = storage_width(p.bits);
    let bytes = storage_bytes(data, shape, p, rounding, width);
    let storage_elem = ctx.int_type(width);
    let storage = ir_util::constant_bytes_before(ctx, op, loc, shape, storage_elem, bytes);
    let qelem = quantized_type(ctx, p, expressed, Some(shape));
    let qty = ctx.tensor_type(shape.iter().map(|&d| d as i64).collect(), qelem);
    let fty = ctx.value_type(v);
    let s = ir_util::unary_before(ctx, op, "quant.scast", storage, qty, loc);
    let d = ir_util::unary_before(ctx, op, "quant.dcast", s, fty, loc);
    ctx.set_operand(op, idx, d);
    erase_if_dead(ctx, v);
}

fn erase_if_dead(ctx: &mut Context, v: Value) {
    if ctx.has_uses(v) {
        return;
    }
    if let Some(d) = ctx.defining_op(v) {
        if nart_ir::interfaces::constant_value(ctx, d).is_some() {
            ctx.erase_op(d);
        }
    }
}

/// Casts a constant operand to a float format and back (float-cast schemes).
fn cast_weight(
    ctx: &mut Context,
    op: Op,
    idx: usize,
    format: FloatFormat,
    subnormals: bool,
) -> bool {
    let v = ctx.operand(op, idx);
    let Some(t) = ir_util::constant_tensor(ctx, v) else {
        return false;
    };
    let Ok(data) = t.to_f64_vec() else {
        return false;
    };
    let small: Vec<f64> = data
        .iter()
        .map(|&x| to_format(x, format, subnormals))
        .collect();
    let elem = ctx.float_type(match format {
        FloatFormat::F16 => FloatKind::F16,
        FloatFormat::BF16 => FloatKind::BF16,
    });
    let loc = ctx.value_loc(v);
    let c = ir_util::constant_before(ctx, op, loc, t.shape(), elem, &small);
    let fty = ctx.value_type(v);
    let code = ctx.i64_attr(1);
    let up = OperationState::new(ctx, "graph.Cast", loc)
        .operands(&[c])
        .results(&[fty])
        .prop(ctx, "to", code);
    let up = ir_util::insert_before(ctx, op, up);
    let out = ctx.result(up, 0);
    ctx.set_operand(op, idx, out);
    erase_if_dead(ctx, v);
    true
}

/// The activation parameters of `v` for `spec`, from the user's file or the calibrated range.
fn activation_params(
    ctx: &Context,
    v: Value,
    spec: &IntSpec,
    user: Option<&QParamsFile>,
) -> Result<(String, QParams), QuantError> {
    let name = ir_util::describe_value(ctx, v);
    let shape: Option<Vec<usize>> = ir_util::dims(ctx, ctx.value_type(v))
        .map(|d| d.into_iter().map(|d| d.unwrap_or(0)).collect());
    let computed = if spec.granularity == Granularity::PerChannel {
        collect::calibrated_channels(ctx, v).map(|ranges| spec.params_for_ranges(&ranges, Some(1)))
    } else {
        collect::calibrated_range(ctx, v).map(|r| spec.params_for_ranges(&[r], None))
    };
    let entry = user.and_then(|u| u.tensors.get(&name));
    match (computed, entry) {
        (Some(p), None) => Ok((name, p)),
        (base, Some(e)) => {
            let dflt = base.unwrap_or_else(|| spec.params_for_ranges(&[(0.0, 0.0)], None));
            let p = e.to_qparams(&name, &dflt, shape.as_deref())?;
            Ok((name, p))
        }
        (None, None) => Err(QuantError::Ir(format!(
            "value '{name}' has no calibrated {}range: run quant-calibrate{} first, or give its parameters in a qparams file",
            if spec.granularity == Granularity::PerChannel { "per-channel " } else { "" },
            if spec.granularity == Granularity::PerChannel { "{per-channel=true}" } else { "" }
        ))),
    }
}

/// Applies the static QDQ transformation to `func`.
pub fn apply_static(
    ctx: &mut Context,
    func: Op,
    opts: &ApplyOptions,
) -> Result<ApplyReport, QuantError> {
    let mut report = ApplyReport::default();
    report.params.scheme = Some(opts.scheme.name.clone());
    if opts.fold_batchnorm {
        report.folded_batchnorms = crate::fold_bn::fold_batchnorm(ctx, func);
    }
    let mut planner = Planner {
        opts,
        acts: Vec::new(),
        act_index: HashMap::new(),
    };
    // Ops to quantize, with their scheme, in order.
    let mut covered: Vec<(Op, Role, Scheme)> = Vec::new();
    let mut fused_into: HashMap<Op, Op> = HashMap::new();
    let ops = ir_util::body_ops(ctx, func);
    for &op in &ops {
        let Some(role) = roles::role(ctx, op) else {
            continue;
        };
        let onnx = roles::onnx_name(ctx, op).unwrap_or_default().to_string();
        match scheme_for(ctx, op, planner.opts)? {
            None => {
                if let Some(n) = ir_util::op_name(ctx, op) {
                    report.kept_float.push(n);
                }
            }
            Some(s) if s.covers(&onnx) => covered.push((op, role, s.into_owned())),
            Some(_) => {}
        }
    }
    let covered_set: HashMap<Op, usize> =
        covered.iter().enumerate().map(|(i, c)| (c.0, i)).collect();
    // Fusion: a Weighted or Activation op whose only user is a covered activation function.
    for (op, role, _) in &covered {
        if !matches!(role, Role::Weighted { .. } | Role::Activation) {
            continue;
        }
        let r = ctx.result(*op, 0);
        let uses = ctx.uses(r);
        if uses.len() == 1 {
            let user = uses[0].op;
            if roles::role(ctx, user) == Some(Role::Fusable)
                && covered_set.contains_key(&user)
                && ctx.operand(user, 0) == r
            {
                fused_into.insert(*op, user);
            }
        }
    }
    let fused_users: HashMap<Op, Op> = fused_into.iter().map(|(a, b)| (*b, *a)).collect();
    report.fused_activations = fused_into.len();
    for (op, role, scheme) in &covered {
        let (op, role) = (*op, *role);
        report.quantized_ops += 1;
        let Some(plan) = act_plan(&scheme.activations) else {
            continue;
        };
        let operands = ctx.operands(op).to_vec();
        let weight_ops: Vec<usize> = match role {
            Role::Weighted { weight, bias } => [Some(weight), bias].into_iter().flatten().collect(),
            _ => Vec::new(),
        };
        // Inputs.
        if !fused_users.contains_key(&op) {
            for (i, &v) in operands.iter().enumerate() {
                if !float_operand(ctx, v) || is_const(ctx, v) {
                    continue;
                }
                if weight_ops.contains(&i) && i != 1 {
                    continue;
                }
                if role == Role::PassThrough && i != 0 {
                    continue;
                }
                planner.want(v, plan.clone());
            }
        }
        // Outputs.
        if fused_into.contains_key(&op) {
            continue;
        }
        let out = ctx.result(op, 0);
        if !float_operand(ctx, out) {
            continue;
        }
        let out_plan = match (role, &plan) {
            (Role::PassThrough, ActPlan::Int(spec)) => ActPlan::Like(operands[0], *spec),
            _ => plan.clone(),
        };
        planner.want(out, out_plan);
    }
    // Choose activation parameters, in order (a pass-through value follows its source).
    let user = opts.user_params.as_ref();
    let mut chosen: HashMap<Value, QParams> = HashMap::new();
    let acts = std::mem::take(&mut planner.acts);
    for (v, plan) in &acts {
        match plan {
            ActPlan::Int(spec) => {
                let (name, p) = activation_params(ctx, *v, spec, user)?;
                report
                    .params
                    .tensors
                    .insert(name, TensorParams::from_qparams(&p));
                chosen.insert(*v, p);
            }
            ActPlan::Like(src, spec) => {
                let fits = |p: &QParams| match p.axis {
                    None => true,
                    Some(a) => {
                        ir_util::dims(ctx, ctx.value_type(*v))
                            .and_then(|d| d.get(a as usize).copied().flatten())
                            == Some(p.scales.len())
                    }
                };
                let shared = chosen.get(src).filter(|p| fits(p)).cloned();
                if shared.is_none() {
                    let (name, p) = activation_params(ctx, *v, spec, user)?;
                    report
                        .params
                        .tensors
                        .insert(name, TensorParams::from_qparams(&p));
                    chosen.insert(*v, p);
                }
                if let Some(p) = shared {
                    let name = ir_util::describe_value(ctx, *v);
                    let p = match user.and_then(|u| u.tensors.get(&name)) {
                        Some(e) => e.to_qparams(&name, &p, None)?,
                        None => p,
                    };
                    report
                        .params
                        .tensors
                        .insert(name, TensorParams::from_qparams(&p));
                    chosen.insert(*v, p);
                }
            }
            ActPlan::Cast(..) => {}
        }
    }
    // Weights and biases (before activations are rewired, so operands are the originals).
    for (op, role, scheme) in &covered {
        let (op, role) = (*op, *role);
        match &scheme.weights {
            TensorSpec::Int(wspec) => {
                let weight_idx = match role {
                    Role::Weighted { weight, .. } => Some(weight),
                    _ => None,
                };
                let mut wparams = None;
                for i in 0..ctx.operands(op).len() {
                    let v = ctx.operand(op, i);
                    if !float_operand(ctx, v) || !is_const(ctx, v) {
                        continue;
                    }
                    if let Role::Weighted { bias: Some(b), .. } = role {
                        if i == b {
                            continue;
                        }
                    }
                    // Data movement and a fused activation's bounds (`Clip`'s min and max)
                    // stay exact.
                    if matches!(role, Role::PassThrough | Role::Fusable) {
                        continue;
                    }
                    if let Some((name, p)) = quantize_weight(ctx, op, i, wspec, scheme, user)? {
                        report.weights += 1;
                        report
                            .params
                            .tensors
                            .insert(name, TensorParams::from_qparams(&p));
                        if Some(i) == weight_idx {
                            wparams = Some(p);
                        }
                    }
                }
                // The bias: i32 at input scale times weight scale.
                if let (Role::Weighted { bias: Some(b), .. }, BiasSpec::Int32, Some(wp)) =
                    (role, scheme.bias, &wparams)
                {
                    let input = ctx.operand(op, 0);
                    let Some(ip) = chosen.get(&input) else {
                        continue;
                    };
                    if ip.scales.len() != 1 || ctx.operands(op).len() <= b {
                        continue;
                    }
                    let bv = ctx.operand(op, b);
                    let Some(bt) = ir_util::constant_tensor(ctx, bv) else {
                        continue;
                    };
                    let Ok(bdata) = bt.to_f64_vec() else { continue };
                    if bt.shape().len() != 1 {
                        continue;
                    }
                    let n = bdata.len();
                    let scales: Vec<f64> = if wp.scales.len() == 1 {
                        vec![ip.scales[0] * wp.scales[0]]
                    } else if wp.scales.len() == n && wp.block.is_none() {
                        wp.scales.iter().map(|s| s * ip.scales[0]).collect()
                    } else {
                        continue;
                    };
                    let bp = QParams {
                        bits: 32,
                        signed: true,
                        qmin: i64::from(i32::MIN),
                        qmax: i64::from(i32::MAX),
                        zero_points: vec![0; scales.len()],
                        axis: (scales.len() > 1).then_some(0),
                        scales,
                        block: None,
                    };
                    let name = ir_util::describe_value(ctx, bv);
                    replace_with_storage(ctx, op, b, &bdata, &[n], &bp, scheme.rounding);
                    report.biases += 1;
                    report
                        .params
                        .tensors
                        .insert(name, TensorParams::from_qparams(&bp));
                }
            }
            TensorSpec::Cast { format, subnormals } => {
                for i in 0..ctx.operands(op).len() {
                    let v = ctx.operand(op, i);
                    if float_operand(ctx, v)
                        && is_const(ctx, v)
                        && role != Role::PassThrough
                        && cast_weight(ctx, op, i, *format, *subnormals)
                    {
                        report.weights += 1;
                    }
                }
            }
            TensorSpec::Float => {}
        }
    }
    // Activations.
    for (v, plan) in &acts {
        match plan {
            ActPlan::Int(_) | ActPlan::Like(..) => {
                let Some(p) = chosen.get(v) else { continue };
                let fty = ctx.value_type(*v);
                let expressed = ctx.element_type(fty);
                let shape: Option<Vec<usize>> = ir_util::dims(ctx, fty)
                    .map(|d| d.into_iter().map(|d| d.unwrap_or(0)).collect());
                let qelem = quantized_type(ctx, p, expressed, shape.as_deref());
                let qty = ir_util::with_element(ctx, fty, qelem);
                insert_qdq(ctx, func, *v, qty);
                report.activations += 1;
            }
            ActPlan::Cast(format) => {
                insert_cast_pair(ctx, func, *v, *format);
                report.activations += 1;
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::storage_bytes;
    use crate::scheme::{QParams, Rounding};

    /// The parameter set of each element of a row-major `shape`, from its multi-index.
    fn set_of(i: usize, shape: &[usize], p: &QParams) -> usize {
        let mut idx = vec![0; shape.len()];
        let mut rest = i;
        for d in (0..shape.len()).rev() {
            idx[d] = rest % shape[d];
            rest /= shape[d];
        }
        match (p.axis, p.block) {
            (_, Some((dim, size))) => {
                let mut blocks = shape.to_vec();
                blocks[dim as usize] /= size as usize;
                idx[dim as usize] /= size as usize;
                idx[0] * blocks[1] + idx[1]
            }
            (Some(axis), None) => idx[axis as usize],
            (None, None) => 0,
        }
    }

    fn params(bits: u32, signed: bool, n: usize, axis: Option<u32>) -> QParams {
        let (qmin, qmax) = if signed {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        };
        QParams {
            bits,
            signed,
            qmin,
            qmax,
            scales: (0..n).map(|k| 0.01 * (k + 1) as f64 + 0.003).collect(),
            zero_points: (0..n)
                .map(|k| if signed { 0 } else { k as i64 % 7 })
                .collect(),
            axis,
            block: None,
        }
    }

    /// Pieces on several threads give the bytes of one thread, whatever the cut.
    #[test]
    fn storage_bytes_on_threads_match_one_thread() {
        let data: Vec<f64> = (0..60 * 7 * 5)
            .map(|i| ((i * 7919 % 1000) as f64 - 500.0) * 0.01)
            .collect();
        let shape = [60usize, 7, 5];
        let mut cases = vec![(shape.to_vec(), params(8, true, 1, None))];
        for axis in 0..3u32 {
            cases.push((
                shape.to_vec(),
                params(8, true, shape[axis as usize], Some(axis)),
            ));
        }
        let mut p = params(4, false, 60 * 7, None);
        p.block = Some((1, 5));
        cases.push((vec![60, 35], p));
        for (shape, p) in cases {
            let one = super::store_on::<1>(&data, &shape, &p, Rounding::NearestEven, 1);
            for threads in [2, 3, 7, 64] {
                let many = super::store_on::<1>(&data, &shape, &p, Rounding::NearestEven, threads);
                assert_eq!(one, many, "{shape:?} {p:?} on {threads} threads");
            }
        }
    }

    /// Every element against the parameter set its multi-index picks, for per-tensor,
    /// per-channel (each axis) and per-block parameters, at 4, 8, 16 and 32 bits.
    #[test]
    fn storage_bytes_quantize_each_element_with_its_set() {
        let shape = [4usize, 6, 3];
        let n: usize = shape.iter().product();
        let data: Vec<f64> = [f64::NAN, f64::INFINITY, -1e300, 0.5, -0.0]
            .into_iter()
            .chain((0..n).map(|i| ((i * 37 % 101) as f64 - 50.0) * 0.0137))
            .take(n)
            .collect();
        let mut cases = Vec::new();
        for (bits, signed) in [(4, true), (8, false), (8, true), (16, true), (32, true)] {
            cases.push((shape.to_vec(), params(bits, signed, 1, None)));
            for axis in 0..3u32 {
                cases.push((
                    shape.to_vec(),
                    params(bits, signed, shape[axis as usize], Some(axis)),
                ));
            }
            for (dim, size) in [(0u32, 2u32), (1, 3)] {
                let blocks = if dim == 0 { (12 / 2) * 6 } else { 12 * 2 };
                let mut p = params(bits, signed, blocks, None);
                p.block = Some((dim, size));
                cases.push((vec![12, 6], p));
            }
        }
        for (shape, p) in cases {
            for rounding in [
                Rounding::NearestEven,
                Rounding::NearestAway,
                Rounding::HalfUp,
            ] {
                let width = super::storage_width(p.bits);
                let got = storage_bytes(&data, &shape, &p, rounding, width);
                let nb = width.div_ceil(8) as usize;
                let want: Vec<u8> = data
                    .iter()
                    .enumerate()
                    .flat_map(|(i, &x)| {
                        let q = p.quantize(set_of(i, &shape, &p), x, rounding);
                        q.to_le_bytes()[..nb].to_vec()
                    })
                    .collect();
                assert_eq!(got, want, "{shape:?} {p:?} {rounding:?}");
            }
        }
    }
}
