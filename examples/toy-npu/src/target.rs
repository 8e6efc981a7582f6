//! The compiler side: [`ToyNpu`] says which ops the chip runs (int8 `qnn.conv`, `qnn.add` and
//! `qnn.max_pool`, with no activation or a relu, and the constant weights they read), and
//! compiles a segment by lowering it to `toynpu` ops ([`lower`]) and writing their program.

use std::collections::HashMap;

use nart_interp::attrs::AttrValue;
use nart_interp::convert::{quant_params, tensor_from_attr};
use nart_ir::printer::type_to_string;
use nart_ir::{AttrData, Context, Diagnostic, Op, OperationState, Value};
use nart_target::{Level, Refusal, Support, Target, Throughput};
use nart_target_rt::{Artifact, TargetRuntime};
use nart_tensor::DType;

use crate::program::{Instr, Program, FORMAT, VERSION};
use crate::NAME;

/// The toy NPU, a net-level target.
pub struct ToyNpu;

/// An attribute of `op` as the interpreter reads it (enums as their keywords).
fn attr(ctx: &Context, op: Op, name: &str) -> Option<AttrValue> {
    ctx.attr(op, name).map(|a| AttrValue::from_ir(ctx, a))
}

fn text(ctx: &Context, op: Op, name: &str) -> Option<String> {
    attr(ctx, op, name).map(|v| match v {
        AttrValue::Str(s) => s,
        other => format!("{other:?}"),
    })
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
            // A weight's cast comes along when it is a constant that only the chip's ops read.
            let weight = ctx
                .defining_op(ctx.operand(op, 0))
                .is_some_and(|d| ctx.op_name_str(d) == "graph.constant");
            let mut users = ctx.uses(ctx.result(op, 0)).iter();
            return match weight && users.all(|u| self.supports(ctx, u.op).is_supported()) {
                true => Support::Supported,
                false => Support::Refused(Refusal::Other("not a weight of a toy-npu op".into())),
            };
        }
        if !matches!(name, "qnn.conv" | "qnn.add" | "qnn.max_pool") {
            return Support::Refused(Refusal::UnknownOp);
        }
        let results = ctx.results(op).iter().map(|&v| (9, v));
        for (k, v) in ctx.operands(op).iter().copied().enumerate().chain(results) {
            let what = if k == 9 {
                "result #0".into()
            } else {
                format!("operand #{k}")
            };
            let ty = ctx.value_type(v);
            let dtype = type_to_string(ctx, ctx.element_type(ty));
            let conv = |i| name == "qnn.conv" && k == i;
            let want = if conv(2) { DType::I32 } else { DType::I8 };
            let Some(q) = quant_params(ctx, ty).filter(|q| q.dtype == want) else {
                return Support::Refused(Refusal::DType { value: what, dtype });
            };
            if q.block_shape.is_some() || (q.axis.is_some() && !conv(1) && !conv(2)) {
                let why = format!("{what} ({dtype}) is not quantized per tensor");
                return Support::Refused(Refusal::Other(why));
            }
        }
        match text(ctx, op, "activation").as_deref() {
            None | Some("none") | Some("relu") => Support::Supported,
            Some(a) => {
                let (name, value) = ("activation".into(), a.into());
                Support::Refused(Refusal::Attribute { name, value })
            }
        }
    }

    fn throughput(&self) -> Throughput {
        let (flops_per_s, bytes_per_s, op_overhead_s) = (1e12, 1e11, 1e-7);
        let fast = Throughput {
            flops_per_s,
            bytes_per_s,
            op_overhead_s,
            ..Default::default()
        };
        fast
    }

    fn compile(&self, ctx: &mut Context, segment: Op) -> Result<Artifact, Diagnostic> {
        self.prepare(ctx);
        let (ops, yields) = lower(ctx, segment)?;
        let program = write(ctx, segment, &ops, &yields);
        ops.iter().rev().for_each(|&op| ctx.erase_op(op));
        let version = format!("toynpu {VERSION}");
        Ok(Artifact::new(NAME, FORMAT, version, program?.to_bytes()))
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
        let operands: Vec<Value> = ctx
            .operands(op)
            .iter()
            .map(|v| *map.get(v).unwrap_or(v))
            .collect();
        let to = match ctx.op_name_str(op) {
            "qnn.conv" => "toynpu.conv",
            "qnn.add" => "toynpu.add",
            "qnn.max_pool" => "toynpu.max_pool",
            "graph.constant" | "quant.scast" => continue,
            "target.yield" => return Ok((out, operands)),
            other => {
                let e = ctx.op_error(op, format!("toy-npu cannot lower '{other}'"));
                out.iter().rev().for_each(|&o| ctx.erase_op(o));
                return Err(e);
            }
        };
        let (loc, ty) = (ctx.op_loc(op), ctx.value_type(ctx.result(op, 0)));
        let mut st = OperationState::new(ctx, to, loc)
            .operands(&operands)
            .results(&[ty]);
        for n in [
            "strides",
            "pads",
            "dilations",
            "group",
            "rounding",
            "kernel_shape",
        ] {
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

/// Writes the program of the lowered `ops` of `seg`, which yield `yields`: one slot per value
/// (a weight's slot holds its constant), one instruction per op.
fn write(ctx: &Context, seg: Op, ops: &[Op], yields: &[Value]) -> Result<Program, Diagnostic> {
    let (mut p, mut of) = (Program::default(), HashMap::new());
    let fail = |m: String| ctx.op_error(seg, format!("toy-npu: {m}"));
    let mut slot = |p: &mut Program, v: Value| -> Result<usize, Diagnostic> {
        if let Some(&s) = of.get(&v) {
            return Ok(s);
        }
        let q = quant_params(ctx, ctx.value_type(v)).ok_or_else(|| fail("not quantized".into()))?;
        let (s, dtype) = (p.quant.len(), q.dtype.name().to_string());
        p.quant.push((
            dtype.clone(),
            q.min,
            q.max,
            q.bits,
            q.scales,
            q.zero_points,
            q.axis,
        ));
        of.insert(v, s);
        let cast = ctx
            .defining_op(v)
            .filter(|&d| ctx.op_name_str(d) == "quant.scast");
        if let Some(c) = cast.and_then(|d| ctx.defining_op(ctx.operand(d, 0))) {
            let a = ctx
                .attr(c, "value")
                .ok_or_else(|| fail("a cast of a non-constant".into()))?;
            let t = tensor_from_attr(ctx, a).map_err(fail)?;
            let v = t.to_i128_vec().map_err(|e| fail(e.to_string()))?;
            let v = v.into_iter().map(|x| x as i64).collect();
            p.consts.push((s, dtype, t.shape().to_vec(), v));
        }
        Ok(s)
    };
    let body = ctx.region_blocks(ctx.region(seg, 0))[0];
    p.inputs = ctx
        .block_args(body)
        .iter()
        .map(|&a| slot(&mut p, a))
        .collect::<Result<_, _>>()?;
    for &op in ops {
        let args = ctx
            .operands(op)
            .iter()
            .map(|&v| slot(&mut p, v))
            .collect::<Result<_, _>>()?;
        let y = slot(&mut p, ctx.result(op, 0))?;
        let mut ints = std::collections::BTreeMap::new();
        for n in ["strides", "pads", "dilations", "group", "kernel_shape"] {
            let v = match attr(ctx, op, n) {
                Some(AttrValue::Ints(v)) => v,
                Some(AttrValue::Int(x)) => vec![x],
                _ => continue,
            };
            ints.insert(
                n.to_string(),
                v.into_iter().map(|x| x.max(0) as usize).collect(),
            );
        }
        let (name, relu) = (
            ctx.op_name_str(op).to_string(),
            ctx.attr(op, "relu").is_some(),
        );
        let round = text(ctx, op, "rounding").unwrap_or_else(|| "half_even".into());
        p.instrs.push(Instr {
            op: name,
            args,
            y,
            ints,
            relu,
            round,
        });
    }
    p.outputs = yields
        .iter()
        .map(|&v| slot(&mut p, v))
        .collect::<Result<_, _>>()?;
    Ok(p)
}
