//! `quant-from-qdq`: ONNX's QDQ operators, as ONNX Runtime's `quantize_static` and PyTorch's
//! exporter write them, lifted into the quant dialect.
//!
//! - `QuantizeLinear(%x, scale, zero_point)` whose every user is a `DequantizeLinear` with the
//!   same parameters becomes `quant.qcast`, and those users `quant.dcast`; a `Clip` with constant
//!   bounds between them (as `quant-to-qdq` writes for a narrowed range) becomes the storage
//!   range of the type (`i8<-127:127>`);
//! - `DequantizeLinear` of an integer initializer (a stored weight or bias) becomes the integers
//!   as a signless constant, `quant.scast` to the quantized type and `quant.dcast`;
//! - scale and zero point must be constants; `axis` picks the dimension of 1-D parameters, and
//!   `block_size` makes them per block (each dimension divided into whole blocks).
//!
//! Parameters ONNX forbids are located errors, all reported at once before anything changes:
//! a scale that is zero, negative or not finite, a zero point whose shape differs from the
//! scale's or whose value lies outside its type, an axis outside the input's rank, a per-axis
//! scale whose length is not the dimension's, a block size that does not match the scale's shape.
//! What has no quant-dialect form stays as it was, and runs with the ONNX kernels: parameters
//! computed at run time, float8 storage, a `QuantizeLinear` whose result is read by anything but
//! matching dequantizations (QOperator models), blocks that do not divide a dimension evenly.

use std::collections::HashMap;

use nart_dialect_quant::types::{default_range, QuantParams as IrParams, UniformQuantizedType};
use nart_ir::{
    Context, Diagnostic, FloatKind, Op, OperationState, Signedness, Type, TypeData, Value,
};

use crate::ir_util;

/// What the lifting did.
#[derive(Clone, Debug, Default)]
pub struct FromQdqReport {
    /// `QuantizeLinear` ops lifted to `quant.qcast`.
    pub quantize: usize,
    /// `DequantizeLinear` ops lifted to `quant.dcast`.
    pub dequantize: usize,
    /// Integer initializers lifted to `quant.scast`.
    pub constants: usize,
    /// `QuantizeLinear` and `DequantizeLinear` ops left as they were.
    pub left: usize,
}

fn is_none(ctx: &Context, v: Value) -> bool {
    matches!(ctx.type_data(ctx.value_type(v)), TypeData::None)
}

fn int_attr(ctx: &Context, op: Op, name: &str) -> Option<i64> {
    ctx.attr(op, name)
        .and_then(|a| ctx.attr_int(a))
        .map(|v| v as i64)
}

/// The quantized type a `QuantizeLinear` or `DequantizeLinear` stands for: `Ok(None)` when it
/// has no quant-dialect form, an error when ONNX forbids its parameters.
pub fn qdq_type(ctx: &Context, op: Op) -> Result<Option<UniformQuantizedType>, Diagnostic> {
    let quantize = ctx.op_name_str(op) == "graph.QuantizeLinear";
    let operands = ctx.operands(op);
    if operands.len() < 2 || ctx.results(op).is_empty() {
        return Ok(None);
    }
    let (qv, fv) = if quantize {
        (ctx.result(op, 0), operands[0])
    } else {
        (operands[0], ctx.result(op, 0))
    };
    let (width, signed) = match ctx.type_data(ctx.element_type(ctx.value_type(qv))) {
        TypeData::Integer { width, signedness } if matches!(width, 2 | 4 | 8 | 16 | 32) => {
            (*width, *signedness != Signedness::Unsigned)
        }
        _ => return Ok(None),
    };
    let expressed = ctx.element_type(ctx.value_type(fv));
    if !matches!(
        ctx.type_data(expressed),
        TypeData::Float(FloatKind::F32 | FloatKind::F16 | FloatKind::BF16)
    ) {
        return Ok(None);
    }
    let Some(scale) = ir_util::constant_tensor(ctx, operands[1]) else {
        return Ok(None);
    };
    let zp = match operands.get(2) {
        Some(&z) if !is_none(ctx, z) => match ir_util::constant_tensor(ctx, z) {
            Some(t) => Some(t),
            None => return Ok(None),
        },
        _ => None,
    };
    // The ONNX node's name where it has one (the location's name), as the importer's messages.
    let node = ir_util::op_name(ctx, op)
        .map(|n| format!("(node '{n}') "))
        .unwrap_or_default();
    let err = |m: String| ctx.op_error(op, format!("{node}{m}"));
    let scales = scale
        .to_f64_vec()
        .map_err(|e| err(format!("has a scale that is not a float tensor: {e}")))?;
    if let Some((k, s)) = scales
        .iter()
        .enumerate()
        .find(|(_, s)| !(s.is_finite() && **s > 0.0))
    {
        return Err(err(format!(
            "has scale {s} (element {k}); a scale must be positive and finite"
        )));
    }
    let (lo, hi) = default_range(width, signed);
    let zero_points = match &zp {
        Some(t) => {
            // One element each is per tensor whatever the shapes (ONNX Runtime's quantizer
            // writes a scalar zero point beside a one-element scale); otherwise the shapes
            // must be the same, as ONNX says.
            if t.shape() != scale.shape() && !(t.len() == 1 && scales.len() == 1) {
                return Err(err(format!(
                    "has a zero point of shape {:?} and a scale of shape {:?}; they must have the same shape",
                    t.shape(),
                    scale.shape()
                )));
            }
            let z = t.to_i64_vec().map_err(|e| {
                err(format!(
                    "has a zero point that is not an integer tensor: {e}"
                ))
            })?;
            if let Some(v) = z.iter().find(|&&v| v < lo || v > hi) {
                return Err(err(format!(
                    "has zero point {v}, outside the range [{lo}, {hi}] of its type"
                )));
            }
            z
        }
        None => vec![0; scales.len()],
    };
    let shape = ctx.shape_of(ctx.value_type(qv)).map(<[i64]>::to_vec);
    let block = int_attr(ctx, op, "block_size").unwrap_or(0);
    if block < 0 {
        return Err(err(format!("has block_size {block}; it must be positive")));
    }
    let srank = scale.shape().len();
    // One scale is per tensor (as ONNX Runtime reads a one-element 1-D scale), unless an explicit
    // `axis` names a dimension of size 1 (a per-axis type of one channel, as nart writes it).
    let one_channel_axis = srank == 1
        && scales.len() == 1
        && ctx.attr(op, "axis").is_some()
        && shape.as_ref().is_some_and(|s| {
            let r = s.len() as i64;
            let a = int_attr(ctx, op, "axis").unwrap_or(1);
            (-r..r).contains(&a) && s[if a < 0 { a + r } else { a } as usize] == 1
        });
    let params = if block == 0 && srank <= 1 && scales.len() == 1 && !one_channel_axis {
        IrParams::PerTensor {
            scale: scales[0].to_bits(),
            zero_point: zero_points[0],
        }
    } else {
        let Some(shape) = shape else {
            return Ok(None);
        };
        let r = shape.len() as i64;
        let a = int_attr(ctx, op, "axis").unwrap_or(1);
        if a < -r || a >= r {
            return Err(err(format!(
                "has axis {a}, outside the range [{}, {}] of its rank-{r} input",
                -r,
                r - 1
            )));
        }
        let axis = if a < 0 { a + r } else { a } as usize;
        if block == 0 {
            if srank != 1 {
                return Err(err(format!(
                    "has a scale of rank {srank}; per-axis parameters are 1-D, and more dimensions need block_size"
                )));
            }
            if shape[axis] >= 0 && shape[axis] != scales.len() as i64 {
                return Err(err(format!(
                    "has {} scales for dimension {axis} of size {}; per-axis parameters need one per index",
                    scales.len(),
                    shape[axis]
                )));
            }
            IrParams::PerAxis {
                axis: axis as u32,
                scales: scales.iter().map(|s| s.to_bits()).collect(),
                zero_points,
            }
        } else {
            if srank != shape.len() {
                return Err(err(format!(
                    "has a scale of rank {srank} for a rank-{r} input; blocked parameters have the input's rank"
                )));
            }
            let mut block_sizes = Vec::new();
            for (d, (&dim, &n)) in shape.iter().zip(scale.shape()).enumerate() {
                if dim < 0 {
                    return Ok(None);
                }
                let b = if d == axis { block } else { 1 };
                let want = (dim + b - 1) / b;
                if n as i64 != want {
                    return Err(err(format!(
                        "has {n} scales along dimension {d} of size {dim}{}; it needs {want}",
                        if d == axis {
                            format!(" in blocks of {block}")
                        } else {
                            String::new()
                        }
                    )));
                }
                if dim % b != 0 {
                    // ONNX allows a last, shorter block; the quant dialect does not.
                    return Ok(None);
                }
                block_sizes.push((d as u32, b));
            }
            IrParams::PerBlock {
                block_sizes,
                shape: scale.shape().iter().map(|&d| d as i64).collect(),
                scales: scales.iter().map(|s| s.to_bits()).collect(),
                zero_points,
            }
        }
    };
    Ok(Some(UniformQuantizedType {
        storage_width: width,
        signed,
        storage_min: lo,
        storage_max: hi,
        expressed,
        params,
    }))
}

/// The constant bounds of a `Clip` on integers, if it has both.
fn clip_bounds(ctx: &Context, op: Op) -> Option<(i64, i64)> {
    if ctx.op_name_str(op) != "graph.Clip" || ctx.operands(op).len() != 3 {
        return None;
    }
    let lo = ir_util::constant_tensor(ctx, ctx.operand(op, 1))?
        .to_i64_vec()
        .ok()?;
    let hi = ir_util::constant_tensor(ctx, ctx.operand(op, 2))?
        .to_i64_vec()
        .ok()?;
    match (lo.as_slice(), hi.as_slice()) {
        ([lo], [hi]) => Some((*lo, *hi)),
        _ => None,
    }
}

/// Lifts the QDQ operators of `root` into the quant dialect (see the module docs); nothing
/// changes when any parameters are invalid, and every invalid op is reported.
pub fn lift_qdq(ctx: &mut Context, root: Op) -> Result<FromQdqReport, Vec<Diagnostic>> {
    let mut types: HashMap<Op, UniformQuantizedType> = HashMap::new();
    let mut errors = Vec::new();
    let mut report = FromQdqReport::default();
    let ops = ctx.collect_ops(root, nart_ir::WalkOrder::PreOrder);
    for &op in &ops {
        if matches!(
            ctx.op_name_str(op),
            "graph.QuantizeLinear" | "graph.DequantizeLinear"
        ) {
            match qdq_type(ctx, op) {
                Ok(Some(q)) => {
                    types.insert(op, q);
                }
                Ok(None) => {}
                Err(d) => errors.push(d),
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // Which dequantizations read the result of which lifted quantization, with its type.
    let mut pairs: HashMap<Op, (Value, Type)> = HashMap::new();
    let mut dead: Vec<Op> = Vec::new();
    for &op in &ops {
        match ctx.op_name_str(op) {
            "graph.QuantizeLinear" => {
                let Some(q) = types.get(&op).cloned() else {
                    report.left += 1;
                    continue;
                };
                let r = ctx.result(op, 0);
                // The value dequantized: the result itself, or a Clip's that narrows its range.
                let mut q = q;
                let mut readers = ctx.uses(r).iter().map(|u| u.op).collect::<Vec<_>>();
                let mut clip = None;
                if let [c] = readers[..] {
                    if let Some((lo, hi)) = clip_bounds(ctx, c) {
                        if ctx.operand(c, 0) == r
                            && lo >= q.storage_min
                            && hi <= q.storage_max
                            && lo <= hi
                        {
                            q.storage_min = lo;
                            q.storage_max = hi;
                            clip = Some(c);
                            readers = ctx.uses(ctx.result(c, 0)).iter().map(|u| u.op).collect();
                        }
                    }
                }
                let matching = !readers.is_empty()
                    && readers.iter().all(|&d| {
                        ctx.op_name_str(d) == "graph.DequantizeLinear"
                            && types.get(&d).is_some_and(|t| {
                                t.params == q.params
                                    && t.storage_width == q.storage_width
                                    && t.signed == q.signed
                                    && t.expressed == q.expressed
                            })
                    });
                if !matching {
                    report.left += 1;
                    continue;
                }
                let x = ctx.operand(op, 0);
                let qelem = ctx.dialect_type(q);
                let qty = ir_util::with_element(ctx, ctx.value_type(r), qelem);
                let loc = ctx.op_loc(op);
                let st = OperationState::new(ctx, "quant.qcast", loc)
                    .operands(&[x])
                    .results(&[qty]);
                let qc = ir_util::insert_before(ctx, op, st);
                let qr = ctx.result(qc, 0);
                for d in readers {
                    pairs.insert(d, (qr, qty));
                }
                dead.push(op);
                dead.extend(clip);
                report.quantize += 1;
            }
            "graph.DequantizeLinear" => {
                let Some(q) = types.get(&op).cloned() else {
                    report.left += 1;
                    continue;
                };
                let x = ctx.operand(op, 0);
                let loc = ctx.op_loc(op);
                let input = if let Some(&(qr, _)) = pairs.get(&op) {
                    qr
                } else if let Some(t) = ir_util::constant_tensor(ctx, x) {
                    let Ok(values) = t.to_i64_vec() else {
                        report.left += 1;
                        continue;
                    };
                    let values: Vec<f64> = values.iter().map(|&v| v as f64).collect();
                    let elem = ctx.int_type(q.storage_width);
                    let cloc = ctx.value_loc(x);
                    let c = ir_util::constant_before(ctx, op, cloc, t.shape(), elem, &values);
                    let qelem = ctx.dialect_type(q);
                    let qty = ir_util::with_element(ctx, ctx.value_type(x), qelem);
                    let s = ir_util::unary_before(ctx, op, "quant.scast", c, qty, loc);
                    report.constants += 1;
                    s
                } else {
                    report.left += 1;
                    continue;
                };
                let r = ctx.result(op, 0);
                let rty = ctx.value_type(r);
                let d = ir_util::unary_before(ctx, op, "quant.dcast", input, rty, loc);
                ctx.replace_all_uses(r, d);
                dead.push(op);
                report.dequantize += 1;
            }
            _ => {}
        }
    }
    // Erase the ONNX ops, users first, then the constants only they read.
    let mut operands = Vec::new();
    for &op in dead.iter().rev() {
        operands.extend(ctx.operands(op).iter().copied());
        ctx.erase_op(op);
    }
    for v in operands {
        if ctx.has_uses(v) {
            continue;
        }
        if let Some(d) = ctx.defining_op(v) {
            if !ctx.is_erased(d)
                && (nart_ir::interfaces::constant_value(ctx, d).is_some()
                    || ctx.op_name_str(d) == "graph.none")
                && ctx.results(d).iter().all(|&r| !ctx.has_uses(r))
            {
                ctx.erase_op(d);
            }
        }
    }
    Ok(report)
}
