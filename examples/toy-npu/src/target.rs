//! The compiler side: [`ToyNpu`] says which ops the chip runs (int8 `qnn.conv`, `qnn.add` and
//! `qnn.max_pool`, with no activation or a relu, and the constant weights they read), and
//! compiles a segment by lowering it to `toynpu` ops ([`lower`]) and writing their program.

use nart_ir::{AttrData, Context, Diagnostic, Op, Value};
use nart_target::lowering::{self as lowering, check_quantized, int_attrs, is_weight_cast};
use nart_target::lowering::{keyword, OneToOne};
use nart_target::{Level, Refusal, Support, Target, Throughput};
use nart_target_rt::{Artifact, TargetRuntime};
use nart_tensor::DType;

use crate::program::{Instr, Program, FORMAT, VERSION};
use crate::NAME;

/// The toy NPU, a net-level target.
pub struct ToyNpu;

impl ToyNpu {
    /// Why the chip cannot run `op`, if it cannot.
    fn check(&self, ctx: &Context, op: Op) -> Result<(), Refusal> {
        let name = ctx.op_name_str(op);
        if name == "quant.scast" {
            // A weight comes along when only the chip's ops read it.
            let mut users = ctx.uses(ctx.result(op, 0)).iter();
            if is_weight_cast(ctx, op) && users.all(|u| self.check(ctx, u.op).is_ok()) {
                return Ok(());
            }
            return Err(Refusal::Other("not a weight of a toy-npu op".into()));
        }
        if !matches!(name, "qnn.conv" | "qnn.add" | "qnn.max_pool") {
            return Err(Refusal::UnknownOp);
        }
        // int8 per tensor; a conv's weight and i32 bias may be per channel.
        let conv = |i: Option<usize>| name == "qnn.conv" && matches!(i, Some(1 | 2));
        let bias = |i| conv(i) && i == Some(2);
        let want = |i| ([DType::I8, DType::I32][bias(i) as usize], conv(i));
        check_quantized(ctx, op, want)?;
        let value = keyword(ctx, op, "activation").unwrap_or_else(|| "none".into());
        let name = "activation".into();
        match matches!(value.as_str(), "none" | "relu") {
            true => Ok(()),
            false => Err(Refusal::Attribute { name, value }),
        }
    }
}

/// How [`lower`] turns a segment's ops into `toynpu` ops.
const RULES: OneToOne = OneToOne {
    ops: &[
        ("qnn.conv", "toynpu.conv"),
        ("qnn.add", "toynpu.add"),
        ("qnn.max_pool", "toynpu.max_pool"),
    ],
    keep: &["graph.constant", "quant.scast"],
    props: &[
        "strides",
        "pads",
        "dilations",
        "group",
        "rounding",
        "kernel_shape",
    ],
};

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
        self.check(ctx, op).into()
    }

    fn throughput(&self) -> Throughput {
        let (flops_per_s, bytes_per_s, op_overhead_s) = (1e12, 1e11, 1e-7);
        let t = Throughput::default();
        Throughput {
            flops_per_s,
            bytes_per_s,
            op_overhead_s,
            ..t
        }
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
/// them; `act<relu>` becomes the `relu` unit attribute) and returns them with the values the
/// segment yields, as the `toynpu` ops define them. Constants and `quant.scast`s of constants
/// stay where they are: the program embeds them.
pub fn lower(ctx: &mut Context, segment: Op) -> Result<(Vec<Op>, Vec<Value>), Diagnostic> {
    lowering::lower_one_to_one(ctx, segment, &RULES, |ctx, op, st| {
        if keyword(ctx, op, "activation").as_deref() != Some("relu") {
            return st;
        }
        let unit = ctx.intern_attr(AttrData::Unit);
        st.prop(ctx, "relu", unit)
    })
}

/// Writes the program of the lowered `ops` of `seg`, which yield `yields`: one slot per value
/// (a weight's slot holds its constant), one instruction per op.
fn write(ctx: &Context, seg: Op, ops: &[Op], yields: &[Value]) -> Result<Program, Diagnostic> {
    let (mut s, mut p) = (lowering::QuantSlots::default(), Program::default());
    let fail = |m: String| ctx.op_error(seg, format!("toy-npu: {m}"));
    let body = ctx.region_blocks(ctx.region(seg, 0))[0];
    p.inputs = s.slots(ctx, ctx.block_args(body)).map_err(fail)?;
    for &op in ops {
        let args = s.slots(ctx, ctx.operands(op)).map_err(fail)?;
        let y = s.slot(ctx, ctx.result(op, 0)).map_err(fail)?;
        let ints = int_attrs(ctx, op, RULES.props); // all but the rounding
        let round = keyword(ctx, op, "rounding").unwrap_or_else(|| "half_even".into());
        let (op, relu) = (ctx.op_name_str(op).into(), ctx.attr(op, "relu").is_some());
        p.instrs.push(Instr {
            op,
            args,
            y,
            ints,
            relu,
            round,
        });
    }
    p.outputs = s.slots(ctx, yields).map_err(fail)?;
    (p.quant, p.consts) = (s.quant, s.consts);
    Ok(p)
}
