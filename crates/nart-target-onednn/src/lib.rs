//! The compiler half of nart's `onednn` target: an op-level target on the system's oneDNN.
//!
//! [`OnednnTarget::supports`] runs [`lower::lower`] on an op: the graph ops oneDNN's primitives
//! compute (convolutions, grouped and depthwise included; MatMul and Gemm; pooling; eltwise
//! functions; softmax; batch and layer normalization; binary ops with the second operand
//! broadcast; transposes as reorders; reshapes as views), in `f32` with static shapes, each
//! other op or attribute refused with the reason. [`OnednnTarget::compile`] turns a segment into
//! a [`Program`]: its inputs, its constants as blobs, one oneDNN operation per op, its
//! results; the runtime half (`nart-onednn-rt`) creates the primitives when it loads one.
//!
//! oneDNN is loaded at run time: where it is missing the target is registered all the same,
//! says it is unavailable ([`Target::availability`]) and refuses every op with that reason.

#![deny(missing_docs)]

use std::collections::HashMap;

use nart_ir::{Context, Diagnostic, Op, Trait, Value};
use nart_onednn_rt::program::{OpDef, OpKind, Operand, Program, ValueDef, ValueKind};
use nart_onednn_rt::{OnednnRuntime, FORMAT, NAME};
use nart_target::rt::{Artifact, TargetRuntime};
use nart_target::{value_bytes, Level, Refusal, Support, Target, TargetRegistry, Throughput};

pub mod lower;

/// The `onednn` target.
#[derive(Clone, Debug)]
pub struct OnednnTarget {
    /// The SDK version, or why oneDNN cannot be loaded.
    sdk: Result<String, String>,
}

impl Default for OnednnTarget {
    fn default() -> Self {
        OnednnTarget::new()
    }
}

impl OnednnTarget {
    /// The target, on the oneDNN this process can load (if any).
    pub fn new() -> OnednnTarget {
        OnednnTarget {
            sdk: nart_onednn_rt::availability(),
        }
    }

    /// The target as if oneDNN could not be loaded for `reason` (for tests of the refusal).
    pub fn unavailable(reason: &str) -> OnednnTarget {
        OnednnTarget {
            sdk: Err(reason.to_string()),
        }
    }

    /// The SDK version its artifacts carry (`oneDNN 2.6.3`), or why there is none.
    pub fn sdk_version(&self) -> Result<&str, &str> {
        self.sdk.as_deref().map_err(|e| e.as_str())
    }
}

/// Registers the `onednn` target in `registry`.
pub fn register(registry: &mut TargetRegistry) {
    registry.register(Box::new(OnednnTarget::new()));
}

/// Whether `op` is a constant or another operand-less pure op (`graph.none`), which a segment
/// holds but does not run.
fn is_materialized(ctx: &Context, op: Op) -> bool {
    ctx.op_has_trait(op, Trait::ConstantLike)
        || (ctx.op_has_trait(op, Trait::Pure)
            && ctx.operands(op).is_empty()
            && ctx.regions(op).is_empty())
}

impl Target for OnednnTarget {
    fn name(&self) -> &str {
        NAME
    }

    fn level(&self) -> Level {
        Level::Op
    }

    fn description(&self) -> &str {
        "the system's oneDNN (libdnnl.so.2), op by op: conv, matmul/gemm, pooling, eltwise, \
         softmax, batch/layer norm, binary ops, transposes; f32"
    }

    fn availability(&self) -> Result<(), String> {
        self.sdk.as_ref().map(|_| ()).map_err(Clone::clone)
    }

    fn supports(&self, ctx: &Context, op: Op) -> Support {
        match lower::lower(ctx, op) {
            Err(r) => Support::Refused(r),
            Ok(_) => match &self.sdk {
                Ok(_) => Support::Supported,
                Err(e) => Support::Refused(Refusal::Other(format!("oneDNN is unavailable: {e}"))),
            },
        }
    }

    fn throughput(&self) -> Throughput {
        // oneDNN's JIT kernels vectorize and use every core; each primitive call costs a few
        // microseconds.
        Throughput {
            flops_per_s: 5e10,
            bytes_per_s: 2e10,
            op_overhead_s: 3e-6,
            segment_overhead_s: 5e-6,
            ..Throughput::default()
        }
    }

    /// Every value a segment computes has a buffer for the executable's lifetime (views
    /// share their operand's), and constant conv and matmul weights get a second copy in
    /// the layout the primitive prefers.
    fn memory_bytes(&self, ctx: &Context, ops: &[Op]) -> Option<f64> {
        let mut bytes = 0.0;
        for &op in ops {
            let Ok(l) = lower::lower(ctx, op) else {
                continue;
            };
            if l.kind != OpKind::View {
                bytes += value_bytes(ctx, ctx.results(op)[0])?;
            }
            if matches!(l.kind, OpKind::Conv { .. } | OpKind::MatMul) {
                let w = ctx.operand(op, 1);
                if lower::constant(ctx, w).is_some() {
                    bytes += value_bytes(ctx, w)?;
                }
            }
        }
        Some(bytes)
    }

    fn compile(&self, ctx: &mut Context, segment: Op) -> Result<Artifact, Diagnostic> {
        let sdk = self
            .sdk
            .as_ref()
            .map_err(|e| ctx.op_error(segment, format!("oneDNN is unavailable: {e}")))?;
        let program = program_of(ctx, segment)?;
        Ok(Artifact::new(NAME, FORMAT, sdk.clone(), program.encode()))
    }

    fn runtime(&self) -> Box<dyn TargetRuntime> {
        Box::new(OnednnRuntime)
    }
}

/// The op list of `segment` (a `target.segment` whose ops this target supports).
pub fn program_of(ctx: &Context, segment: Op) -> Result<Program, Diagnostic> {
    let Some(&body) = ctx.region_blocks(ctx.region(segment, 0)).first() else {
        return Err(ctx.op_error(segment, "has an empty body"));
    };
    let mut p = Program::default();
    let mut ids: HashMap<Value, u32> = HashMap::new();
    for (i, &a) in ctx.block_args(body).iter().enumerate() {
        let dims = lower::f32_dims(ctx, a, &format!("segment input #{i}"))
            .map_err(|r| ctx.op_error(segment, format!("onednn: {r}")))?;
        ids.insert(a, p.values.len() as u32);
        p.inputs.push(p.values.len() as u32);
        p.values.push(ValueDef {
            dims,
            kind: ValueKind::Input,
        });
    }
    // A value's id, making a constant's blob on first use.
    let value_id = |p: &mut Program, ids: &mut HashMap<Value, u32>, v: Value, user: Op| {
        if let Some(&id) = ids.get(&v) {
            return Ok(id);
        }
        let t = lower::constant(ctx, v)
            .ok_or_else(|| ctx.op_error(user, "onednn: reads a value it did not define"))?;
        let dims = t.shape().iter().map(|&d| d as i64).collect();
        let data = t
            .to_f32_vec()
            .map_err(|e| ctx.op_error(user, format!("onednn: a constant: {e}")))?;
        let id = p.values.len() as u32;
        p.values.push(ValueDef {
            dims,
            kind: ValueKind::Constant(std::sync::Arc::new(data)),
        });
        ids.insert(v, id);
        Ok(id)
    };
    let ops = ctx.block_ops(body);
    let Some((&yield_op, ops)) = ops.split_last() else {
        return Err(ctx.op_error(segment, "has an empty body"));
    };
    for &op in ops {
        if is_materialized(ctx, op) {
            continue;
        }
        let l = lower::lower(ctx, op)
            .map_err(|r| ctx.op_error(op, format!("onednn does not run this op: {r}")))?;
        let mut inputs = Vec::new();
        for i in &l.inputs {
            let v = ctx.operand(op, i.operand);
            inputs.push(Operand {
                value: value_id(&mut p, &mut ids, v, op)?,
                dims: i.dims.clone(),
                strides: i.strides.clone(),
            });
        }
        let r = ctx.results(op)[0];
        let dims = lower::f32_dims(ctx, r, "result #0")
            .map_err(|e| ctx.op_error(op, format!("onednn: {e}")))?;
        let id = p.values.len() as u32;
        p.values.push(ValueDef {
            dims,
            kind: ValueKind::Computed,
        });
        ids.insert(r, id);
        p.ops.push(OpDef {
            kind: l.kind,
            inputs,
            outputs: vec![Operand::new(id, l.out_dims)],
        });
    }
    for &v in ctx.operands(yield_op) {
        let id = value_id(&mut p, &mut ids, v, yield_op)?;
        p.outputs.push(id);
    }
    p.check()
        .map_err(|e| ctx.op_error(segment, format!("onednn: internal error: {e}")))?;
    Ok(p)
}
