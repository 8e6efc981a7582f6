//! The compiler side: [`ToyNpu`] says which ops the chip runs (int8 `qnn.conv`, `qnn.add` and
//! `qnn.max_pool`, with no activation or a relu, and the constant weights they read), and
//! compiles a segment by lowering it to `toynpu` ops ([`lower`]) and serializing those.

use std::collections::HashMap;

use nart_interp::attrs::AttrValue;
use nart_interp::convert::{quant_params, tensor_from_attr};
use nart_ir::printer::type_to_string;
use nart_ir::{AttrData, Context, Diagnostic, Op, OperationState, Value};
use nart_target::{Level, Refusal, Support, Target, Throughput};
use nart_target_rt::{Artifact, TargetRuntime};
use nart_tensor::DType;

use crate::program::{Const, Instr, Program, Quant, FORMAT, VERSION};
use crate::NAME;

/// The toy NPU, a net-level target.
pub struct ToyNpu;

fn value(ctx: &Context, op: Op, name: &str) -> Option<AttrValue> {
    ctx.attr(op, name).map(|a| AttrValue::from_ir(ctx, a))
}

fn text(ctx: &Context, op: Op, name: &str) -> Option<String> {
    match value(ctx, op, name)? {
        AttrValue::Str(s) => Some(s),
        other => Some(format!("{other:?}")),
    }
}

fn sizes(ctx: &Context, op: Op, name: &str) -> Vec<usize> {
    match value(ctx, op, name) {
        Some(AttrValue::Ints(v)) => v.iter().map(|&x| x.max(0) as usize).collect(),
        _ => Vec::new(),
    }
}

fn is_const(ctx: &Context, v: Value) -> bool {
    ctx.defining_op(v)
        .is_some_and(|d| ctx.op_name_str(d) == "graph.constant")
}

impl Target for ToyNpu {
    fn name(&self) -> &str {
        NAME
    }

    fn level(&self) -> Level {
        Level::Net
    }

    fn description(&self) -> &str {
        "example chip: int8 conv, add, relu, max pooling (examples/toy-npu, a simulator)"
    }

    fn quant_scheme(&self) -> Option<&str> {
        Some("pow2")
    }

    fn prepare(&self, ctx: &mut Context) {
        let conv = ctx.ident("toynpu.conv");
        if ctx.op_def_by_name(conv).is_none() {
            crate::register(ctx);
        }
    }

    fn supports(&self, ctx: &Context, op: Op) -> Support {
        let name = ctx.op_name_str(op);
        if name == "quant.scast" {
            // A weight's cast comes along when every user of the weight is an op the chip runs.
            let mut users = ctx.uses(ctx.result(op, 0)).iter();
            let ours = users.all(|u| self.supports(ctx, u.op).is_supported());
            return match is_const(ctx, ctx.operand(op, 0)) && ours {
                true => Support::Supported,
                false => Support::Refused(Refusal::Other("not a weight of a toy-npu op".into())),
            };
        }
        if !matches!(name, "qnn.conv" | "qnn.add" | "qnn.max_pool") {
            return Support::Refused(Refusal::UnknownOp);
        }
        let operands = ctx.operands(op).iter().enumerate();
        let values = operands.map(|(k, &v)| (k, format!("operand #{k}"), v));
        let results = ctx
            .results(op)
            .iter()
            .map(|&v| (9, "result #0".to_string(), v));
        for (k, what, v) in values.chain(results) {
            let ty = ctx.value_type(v);
            let dtype = type_to_string(ctx, ctx.element_type(ty));
            let (bias, weight) = (name == "qnn.conv" && k == 2, name == "qnn.conv" && k == 1);
            let want = if bias { DType::I32 } else { DType::I8 };
            let Some(q) = quant_params(ctx, ty).filter(|q| q.dtype == want && q.bits <= 32) else {
                return Support::Refused(Refusal::DType { value: what, dtype });
            };
            if q.block_shape.is_some() || (q.axis.is_some() && !bias && !weight) {
                let why = format!("{what} is quantized per axis or block ({dtype}); toy-npu takes per-tensor activations");
                return Support::Refused(Refusal::Other(why));
            }
        }
        match text(ctx, op, "activation").as_deref() {
            None | Some("none") | Some("relu") => Support::Supported,
            Some(a) => Support::Refused(Refusal::Attribute {
                name: "activation".into(),
                value: a.into(),
            }),
        }
    }

    fn throughput(&self) -> Throughput {
        Throughput {
            flops_per_s: 1e12,
            bytes_per_s: 1e11,
            op_overhead_s: 1e-7,
            ..Default::default()
        }
    }

    fn compile(&self, ctx: &mut Context, segment: Op) -> Result<Artifact, Diagnostic> {
        self.prepare(ctx);
        let (ops, yields) = lower(ctx, segment)?;
        let program = serialize(ctx, segment, &ops, &yields);
        for &op in ops.iter().rev() {
            ctx.erase_op(op);
        }
        Ok(Artifact::new(
            NAME,
            FORMAT,
            format!("toynpu {VERSION}"),
            program?.to_bytes(),
        ))
    }

    fn runtime(&self) -> Box<dyn TargetRuntime> {
        Box::new(crate::sim::Simulator)
    }
}

/// Lowers the `qnn` ops of `segment` to detached `toynpu` ops (in order; the caller erases
/// them) and returns them with the values the segment yields, as the `toynpu` ops define them.
/// Constants and `quant.scast`s of constants stay where they are: the program embeds them.
pub fn lower(ctx: &mut Context, segment: Op) -> Result<(Vec<Op>, Vec<Value>), Diagnostic> {
    let body = ctx.region_blocks(ctx.region(segment, 0))[0];
    let (mut out, mut map) = (Vec::new(), HashMap::<Value, Value>::new());
    for op in ctx.block_ops(body).to_vec() {
        let (to, names): (&str, &[&str]) = match ctx.op_name_str(op) {
            "qnn.conv" => (
                "toynpu.conv",
                &["strides", "pads", "dilations", "group", "rounding"],
            ),
            "qnn.add" => ("toynpu.add", &["rounding"]),
            "qnn.max_pool" => (
                "toynpu.max_pool",
                &["kernel_shape", "strides", "pads", "dilations"],
            ),
            "graph.constant" | "quant.scast" => continue,
            "target.yield" => {
                let ys = ctx
                    .operands(op)
                    .iter()
                    .map(|v| *map.get(v).unwrap_or(v))
                    .collect();
                return Ok((out, ys));
            }
            other => {
                let e = ctx.op_error(op, format!("toy-npu cannot lower '{other}'"));
                out.iter().rev().for_each(|&o| ctx.erase_op(o));
                return Err(e);
            }
        };
        let loc = ctx.op_loc(op);
        let operands: Vec<Value> = ctx
            .operands(op)
            .iter()
            .map(|v| *map.get(v).unwrap_or(v))
            .collect();
        let types: Vec<_> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
        let mut st = OperationState::new(ctx, to, loc)
            .operands(&operands)
            .results(&types);
        for &n in names {
            if let Some(a) = ctx.attr(op, n) {
                st = st.prop(ctx, n, a);
            }
        }
        if text(ctx, op, "activation").as_deref() == Some("relu") {
            let unit = ctx.intern_attr(AttrData::Unit);
            st = st.prop(ctx, "relu", unit);
        }
        let new = ctx.create_op(st);
        map.insert(ctx.result(op, 0), ctx.result(new, 0));
        out.push(new);
    }
    Err(ctx.op_error(segment, "the segment has no target.yield"))
}

/// Value slots of a program being written.
struct Slots<'a> {
    ctx: &'a Context,
    segment: Op,
    p: Program,
    of: HashMap<Value, usize>,
}

impl Slots<'_> {
    fn get(&mut self, v: Value) -> Result<usize, Diagnostic> {
        if let Some(&s) = self.of.get(&v) {
            return Ok(s);
        }
        let (ctx, fail) = (self.ctx, |m: &str| self.ctx.op_error(self.segment, m));
        let ty = ctx.value_type(v);
        let q = quant_params(ctx, ty).ok_or_else(|| fail("a value is not quantized"))?;
        let (s, dtype) = (self.p.quant.len(), q.dtype.name().to_string());
        let (min, max, bits, axis) = (q.min, q.max, q.bits, q.axis);
        let (scales, zero_points) = (q.scales, q.zero_points);
        let quant = Quant {
            dtype: dtype.clone(),
            min,
            max,
            bits,
            scales,
            zero_points,
            axis,
        };
        self.p.quant.push(quant);
        self.of.insert(v, s);
        if let Some(d) = ctx
            .defining_op(v)
            .filter(|&d| ctx.op_name_str(d) == "quant.scast")
        {
            let c = ctx.defining_op(ctx.operand(d, 0));
            let a = c
                .and_then(|c| ctx.attr(c, "value"))
                .ok_or_else(|| fail("a quant.scast of a non-constant"))?;
            let t = tensor_from_attr(ctx, a).map_err(|e| fail(&e))?;
            let values = t.to_i128_vec().map_err(|e| fail(&e.to_string()))?;
            let values = values.into_iter().map(|x| x as i64).collect();
            self.p.consts.push(Const {
                slot: s,
                dtype,
                shape: t.shape().to_vec(),
                values,
            });
        }
        Ok(s)
    }
}

/// Writes the program of the lowered `ops` of `segment`, which yield `yields`.
fn serialize(
    ctx: &Context,
    segment: Op,
    ops: &[Op],
    yields: &[Value],
) -> Result<Program, Diagnostic> {
    let mut s = Slots {
        ctx,
        segment,
        p: Program::default(),
        of: HashMap::new(),
    };
    let body = ctx.region_blocks(ctx.region(segment, 0))[0];
    for &a in ctx.block_args(body) {
        let slot = s.get(a)?;
        s.p.inputs.push(slot);
    }
    for &op in ops {
        let (x, relu) = (ctx.operands(op), ctx.attr(op, "relu").is_some());
        let round = text(ctx, op, "rounding").unwrap_or_else(|| "half_even".into());
        let y = s.get(ctx.result(op, 0))?;
        let (strides, pads, dilations) = (
            sizes(ctx, op, "strides"),
            sizes(ctx, op, "pads"),
            sizes(ctx, op, "dilations"),
        );
        let ins = match ctx.op_name_str(op) {
            "toynpu.conv" => {
                let (w, b) = (s.get(x[1])?, x.get(2).map(|&b| s.get(b)).transpose()?);
                let group = match value(ctx, op, "group") {
                    Some(AttrValue::Int(g)) => g.max(1) as usize,
                    _ => 1,
                };
                Instr::Conv {
                    x: s.get(x[0])?,
                    w,
                    b,
                    y,
                    strides,
                    pads,
                    dilations,
                    group,
                    relu,
                    round,
                }
            }
            "toynpu.add" => Instr::Add {
                a: s.get(x[0])?,
                b: s.get(x[1])?,
                y,
                relu,
                round,
            },
            _ => {
                let kernel = sizes(ctx, op, "kernel_shape");
                Instr::MaxPool {
                    x: s.get(x[0])?,
                    y,
                    kernel,
                    strides,
                    pads,
                    dilations,
                }
            }
        };
        s.p.instrs.push(ins);
    }
    for &v in yields {
        let slot = s.get(v)?;
        s.p.outputs.push(slot);
    }
    Ok(s.p)
}
