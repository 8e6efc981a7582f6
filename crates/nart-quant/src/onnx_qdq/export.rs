//! `quant-to-qdq`: the quant dialect's casts as ONNX's QDQ operators, so that the exporter can
//! write a quantized module as an ONNX file that ONNX Runtime runs.
//!
//! - `quant.qcast %x` becomes `graph.QuantizeLinear(%x, scale, zero_point)`;
//! - `quant.dcast %q` becomes `graph.DequantizeLinear(%q, scale, zero_point)` (no zero point for
//!   `i32` storage, as ONNX wants for biases);
//! - `quant.scast` of an integer constant becomes that constant in the ONNX storage type
//!   (`ui8` for `u8` storage, `i4`/`ui4` for 4-bit storage), which the exporter writes as an
//!   initializer; a storage cast of another value is dropped when the storage types agree;
//! - per-axis parameters set `axis` with 1-D scales and zero points; per-block parameters set
//!   `axis` and `block_size` (opset 21) with scales of the tensor's rank;
//! - a narrowed storage range (`i8<-127:127>`) on a quantized activation adds a `graph.Clip`
//!   after the `QuantizeLinear` (ONNX saturates to the full range of the type); on a stored
//!   weight the integers already lie in the range, and ONNX keeps no record of it.
//!
//! Scales are written in the expressed type (`f32`, `f16` or `bf16`): the exact kernels already
//! compute with the scale rounded to that type, so the meaning does not change.
//! Anything else that holds a quantized type (a `qnn` op, a function argument or result of
//! quantized type, `!quant.any`) has no ONNX form: each is a located error, found before
//! anything changes.

use std::collections::HashMap;

use nart_dialect_quant::types::{QuantParams as IrParams, UniformQuantizedType};
use nart_ir::{
    Context, Diagnostic, Location, Op, OperationState, Signedness, Type, TypeData, Value,
};

use crate::ir_util;

/// What the lowering did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToQdqReport {
    /// `quant.qcast` ops written as `QuantizeLinear`.
    pub quantize: usize,
    /// `quant.dcast` ops written as `DequantizeLinear`.
    pub dequantize: usize,
    /// Integer constants behind `quant.scast` written in their ONNX storage type.
    pub constants: usize,
    /// `Clip` ops added for narrowed storage ranges.
    pub clips: usize,
}

/// The uniform quantized element type of `ty`, if it is one (or a tensor of one).
pub fn uniform_of(ctx: &Context, ty: Type) -> Option<UniformQuantizedType> {
    ctx.type_as::<UniformQuantizedType>(ctx.element_type(ty))
        .cloned()
}

/// Whether `ty` is a quantized type (uniform or `!quant.any`), or a tensor of one.
fn is_quant_elem(ctx: &Context, ty: Type) -> bool {
    let e = ctx.element_type(ty);
    ctx.type_as::<UniformQuantizedType>(e).is_some()
        || ctx
            .type_as::<nart_dialect_quant::types::AnyQuantizedType>(e)
            .is_some()
}

/// The ONNX storage element type of a quantized type: `iN` (signless) for signed storage, `uiN`
/// for unsigned.
pub fn onnx_storage_type(ctx: &mut Context, q: &UniformQuantizedType) -> Type {
    if q.signed {
        ctx.int_type(q.storage_width)
    } else {
        ctx.int_type_signed(q.storage_width, Signedness::Unsigned)
    }
}

/// Why `q` (held by a value of shape `shape`) cannot be written as ONNX parameters, if it
/// cannot.
fn unsupported(ctx: &Context, q: &UniformQuantizedType, quantize: bool) -> Option<String> {
    if !matches!(q.storage_width, 2 | 4 | 8 | 16 | 32) {
        return Some(format!(
            "{}-bit storage has no ONNX type (ONNX stores 2, 4, 8, 16 and 32-bit integers)",
            q.storage_width
        ));
    }
    if q.storage_width == 32 && (quantize || !q.signed) {
        return Some(if quantize {
            "ONNX QuantizeLinear has no 32-bit output; only a stored i32 value (a bias) exports"
                .to_string()
        } else {
            "ONNX has no unsigned 32-bit DequantizeLinear input".to_string()
        });
    }
    if !matches!(
        ctx.type_data(q.expressed),
        TypeData::Float(
            nart_ir::FloatKind::F32 | nart_ir::FloatKind::F16 | nart_ir::FloatKind::BF16
        )
    ) {
        return Some(
            "ONNX scales are f32, f16 or bf16; this type is expressed in another float type".into(),
        );
    }
    if let IrParams::PerBlock { block_sizes, .. } = &q.params {
        if block_sizes.iter().filter(|(_, b)| *b > 1).count() > 1 {
            return Some(
                "ONNX blocked quantization blocks one dimension; this type blocks several".into(),
            );
        }
        if block_sizes.iter().all(|(_, b)| *b <= 1) {
            return Some("ONNX blocked quantization needs a block of more than one element".into());
        }
    }
    let (lo, hi) = nart_dialect_quant::types::default_range(q.storage_width, q.signed);
    if quantize && (q.storage_min, q.storage_max) != (lo, hi) && q.storage_width < 8 {
        return Some(format!(
            "the narrowed range [{}, {}] of {}-bit storage needs a Clip, which ONNX has only for 8 bits and more",
            q.storage_min, q.storage_max, q.storage_width
        ));
    }
    None
}

/// Every op of `root` that the lowering cannot write as ONNX, each with a located error.
pub fn check(ctx: &Context, root: Op) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    for op in ctx.collect_ops(root, nart_ir::WalkOrder::PreOrder) {
        let name = ctx.op_name_str(op);
        match name {
            "quant.qcast" | "quant.dcast" => {
                let (qv, quantize) = if name == "quant.qcast" {
                    (ctx.result(op, 0), true)
                } else {
                    (ctx.operand(op, 0), false)
                };
                let Some(q) = uniform_of(ctx, ctx.value_type(qv)) else {
                    errors.push(ctx.op_error(
                        op,
                        "has a quantized type without scale and zero point (!quant.any); ONNX needs both",
                    ));
                    continue;
                };
                if let Some(why) = unsupported(ctx, &q, quantize) {
                    errors.push(ctx.op_error(op, format!("cannot be written as ONNX: {why}")));
                }
                if ctx.shape_of(ctx.value_type(qv)).is_none()
                    && !matches!(q.params, IrParams::PerTensor { .. })
                {
                    errors.push(ctx.op_error(op, "cannot be written as ONNX: per-axis or per-block parameters need a ranked tensor"));
                }
            }
            "quant.scast" => {
                let (input, result) = (ctx.operand(op, 0), ctx.result(op, 0));
                let to_quant = is_quant_elem(ctx, ctx.value_type(result));
                let qv = if to_quant { result } else { input };
                let Some(q) = uniform_of(ctx, ctx.value_type(qv)) else {
                    errors.push(ctx.op_error(
                        op,
                        "has a quantized type without scale and zero point (!quant.any); ONNX needs both",
                    ));
                    continue;
                };
                if let Some(why) = unsupported(ctx, &q, false) {
                    errors.push(ctx.op_error(op, format!("cannot be written as ONNX: {why}")));
                }
                let is_const = to_quant && ir_util::constant_tensor(ctx, input).is_some();
                if !is_const && !q.signed {
                    errors.push(ctx.op_error(
                        op,
                        "cannot be written as ONNX: a storage cast between signless integers and unsigned storage that is not of a constant changes the ONNX type",
                    ));
                }
            }
            _ => {
                let quantized = ctx
                    .operands(op)
                    .iter()
                    .chain(ctx.results(op))
                    .any(|&v| is_quant_elem(ctx, ctx.value_type(v)));
                if quantized {
                    errors.push(ctx.op_error(
                        op,
                        "has a quantized operand or result and no ONNX equivalent (only quant.qcast, quant.dcast and quant.scast export, as QuantizeLinear and DequantizeLinear)",
                    ));
                }
                for region in ctx.regions(op) {
                    for &b in ctx.region_blocks(*region) {
                        for &a in ctx.block_args(b) {
                            if is_quant_elem(ctx, ctx.value_type(a)) {
                                errors.push(ctx.op_error(
                                    op,
                                    "has a block argument of quantized type, which ONNX cannot hold (quantize inside the graph instead)",
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    errors
}

/// The ONNX parameters of a quantized type: scale and zero-point constants and the attributes.
struct OnnxParams {
    scale: Value,
    zero_point: Value,
    axis: Option<i64>,
    block_size: Option<i64>,
}

struct Lowering {
    /// Parameter constants made so far, per quantized type.
    params: HashMap<UniformQuantizedType, (Value, Value, Option<i64>, Option<i64>)>,
    /// The quantized type each lowered storage value stands for (its own type is the storage
    /// type once its producer is rewritten).
    types: HashMap<Value, UniformQuantizedType>,
    report: ToQdqReport,
}

impl Lowering {
    fn params(
        &mut self,
        ctx: &mut Context,
        func: Op,
        q: &UniformQuantizedType,
        loc: Location,
    ) -> OnnxParams {
        if let Some(&(scale, zero_point, axis, block_size)) = self.params.get(q) {
            return OnnxParams {
                scale,
                zero_point,
                axis,
                block_size,
            };
        }
        let first = ir_util::first_op(ctx, func).expect("a function with casts has a body");
        let (shape, axis, block_size): (Vec<usize>, _, _) = match &q.params {
            IrParams::PerTensor { .. } => (vec![], None, None),
            IrParams::PerAxis { axis, scales, .. } => {
                (vec![scales.len()], Some(i64::from(*axis)), None)
            }
            IrParams::PerBlock {
                block_sizes, shape, ..
            } => {
                let (dim, size) = block_sizes
                    .iter()
                    .find(|(_, b)| *b > 1)
                    .copied()
                    .expect("checked: one blocked dimension");
                (
                    shape.iter().map(|&d| d as usize).collect(),
                    Some(i64::from(dim)),
                    Some(size),
                )
            }
        };
        let scale_loc = ir_util::derived_loc(ctx, loc, "scale");
        let zp_loc = ir_util::derived_loc(ctx, loc, "zero_point");
        let scales = q.scales();
        let scale = ir_util::constant_before(ctx, first, scale_loc, &shape, q.expressed, &scales);
        let zero_point = if q.storage_width == 32 {
            let none = ctx.none_type();
            let st = OperationState::new(ctx, "graph.none", zp_loc).results(&[none]);
            let op = ir_util::insert_before(ctx, first, st);
            ctx.result(op, 0)
        } else {
            let elem = onnx_storage_type(ctx, q);
            let zps: Vec<f64> = q.zero_points().iter().map(|&z| z as f64).collect();
            ir_util::constant_before(ctx, first, zp_loc, &shape, elem, &zps)
        };
        self.params
            .insert(q.clone(), (scale, zero_point, axis, block_size));
        OnnxParams {
            scale,
            zero_point,
            axis,
            block_size,
        }
    }
}

fn set_quant_attrs(ctx: &mut Context, op: Op, p: &OnnxParams) {
    if let Some(a) = p.axis {
        let a = ctx.i64_attr(a);
        ctx.set_prop(op, "axis", a);
    }
    if let Some(b) = p.block_size {
        let b = ctx.i64_attr(b);
        ctx.set_prop(op, "block_size", b);
    }
}

/// Rewrites the quant casts of `root` into ONNX's QDQ operators (see the module docs); nothing
/// changes when any op cannot be written, and every such op is reported.
pub fn lower_to_qdq(ctx: &mut Context, root: Op) -> Result<ToQdqReport, Vec<Diagnostic>> {
    let errors = check(ctx, root);
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut l = Lowering {
        params: HashMap::new(),
        types: HashMap::new(),
        report: ToQdqReport::default(),
    };
    for func in ir_util::functions(ctx, root) {
        l.params.clear();
        for op in ctx.collect_ops(func, nart_ir::WalkOrder::PreOrder) {
            match ctx.op_name_str(op) {
                "quant.qcast" => lower_qcast(ctx, func, op, &mut l),
                "quant.dcast" => lower_dcast(ctx, func, op, &mut l),
                "quant.scast" => lower_scast(ctx, op, &mut l),
                _ => {}
            }
        }
    }
    Ok(l.report)
}

/// `ty` with the ONNX storage type of `q` as its element type.
fn storage_tensor(ctx: &mut Context, ty: Type, q: &UniformQuantizedType) -> Type {
    let elem = onnx_storage_type(ctx, q);
    ir_util::with_element(ctx, ty, elem)
}

fn lower_qcast(ctx: &mut Context, func: Op, op: Op, l: &mut Lowering) {
    let (x, r) = (ctx.operand(op, 0), ctx.result(op, 0));
    let rty = ctx.value_type(r);
    let q = uniform_of(ctx, rty).expect("checked");
    let loc = ctx.op_loc(op);
    let p = l.params(ctx, func, &q, loc);
    let sty = storage_tensor(ctx, rty, &q);
    let st = OperationState::new(ctx, "graph.QuantizeLinear", loc)
        .operands(&[x, p.scale, p.zero_point])
        .results(&[sty]);
    let ql = ir_util::insert_before(ctx, op, st);
    set_quant_attrs(ctx, ql, &p);
    let mut out = ctx.result(ql, 0);
    let (lo, hi) = nart_dialect_quant::types::default_range(q.storage_width, q.signed);
    if (q.storage_min, q.storage_max) != (lo, hi) {
        let elem = onnx_storage_type(ctx, &q);
        let clip_loc = ir_util::derived_loc(ctx, loc, "range");
        let min = ir_util::constant_before(ctx, ql, clip_loc, &[], elem, &[q.storage_min as f64]);
        let max = ir_util::constant_before(ctx, ql, clip_loc, &[], elem, &[q.storage_max as f64]);
        let st = OperationState::new(ctx, "graph.Clip", clip_loc)
            .operands(&[out, min, max])
            .results(&[sty]);
        let clip = ir_util::insert_after(ctx, ql, st);
        out = ctx.result(clip, 0);
        l.report.clips += 1;
    }
    ctx.replace_all_uses(r, out);
    ctx.erase_op(op);
    l.types.insert(out, q);
    l.report.quantize += 1;
}

fn lower_dcast(ctx: &mut Context, func: Op, op: Op, l: &mut Lowering) {
    let (v, r) = (ctx.operand(op, 0), ctx.result(op, 0));
    let q = l
        .types
        .get(&v)
        .cloned()
        .expect("checked: every quantized value comes from a qcast or scast, lowered before");
    let loc = ctx.op_loc(op);
    let p = l.params(ctx, func, &q, loc);
    let rty = ctx.value_type(r);
    let st = OperationState::new(ctx, "graph.DequantizeLinear", loc)
        .operands(&[v, p.scale, p.zero_point])
        .results(&[rty]);
    let dl = ir_util::insert_before(ctx, op, st);
    set_quant_attrs(ctx, dl, &p);
    let out = ctx.result(dl, 0);
    ctx.replace_all_uses(r, out);
    ctx.erase_op(op);
    l.report.dequantize += 1;
}

fn lower_scast(ctx: &mut Context, op: Op, l: &mut Lowering) {
    let (input, r) = (ctx.operand(op, 0), ctx.result(op, 0));
    let rty = ctx.value_type(r);
    if let Some(q) = uniform_of(ctx, rty) {
        // Integers to quantized: the integers, in the ONNX storage type.
        let sty = storage_tensor(ctx, rty, &q);
        let out = match ir_util::constant_tensor(ctx, input) {
            Some(t) => {
                let values = t.to_i64_vec().expect("checked: an integer constant");
                let mask = if q.storage_width >= 64 {
                    -1i64
                } else {
                    (1i64 << q.storage_width) - 1
                };
                let values: Vec<f64> = values
                    .iter()
                    .map(|&v| if q.signed { v } else { v & mask } as f64)
                    .collect();
                let elem = onnx_storage_type(ctx, &q);
                let loc = ctx.value_loc(input);
                let c = ir_util::constant_before(ctx, op, loc, t.shape(), elem, &values);
                l.report.constants += 1;
                c
            }
            None => input,
        };
        if out == input && ctx.value_type(input) != sty {
            ctx.set_value_type(input, sty);
        }
        ctx.replace_all_uses(r, out);
        ctx.erase_op(op);
        l.types.insert(out, q);
        if !ctx.has_uses(input) {
            if let Some(d) = ctx.defining_op(input) {
                if nart_ir::interfaces::constant_value(ctx, d).is_some() {
                    ctx.erase_op(d);
                }
            }
        }
    } else {
        // Quantized to integers: the storage value itself.
        ctx.replace_all_uses(r, input);
        ctx.erase_op(op);
    }
}
