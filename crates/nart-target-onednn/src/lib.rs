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
use nart_onednn_rt::program::{
    BinaryAlg, Elem, OpDef, OpKind, Operand, PostOp, Program, ValueDef, ValueKind,
};
use nart_onednn_rt::{OnednnRuntime, FORMAT, NAME};
use nart_target::rt::{Artifact, TargetRuntime};
use nart_target::{value_bytes, Level, Refusal, Support, Target, TargetRegistry, Throughput};

pub mod int8;
pub mod lower;
pub mod quant_views;
pub mod transpose;

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
         softmax, batch/layer norm, binary ops, transposes; f32; qnn.conv, qnn.matmul, \
         qnn.max_pool, qnn.avg_pool, qnn.add, qnn.requantize and quant.qcast/dcast in int8, \
         bit-exact with the interpreter"
    }

    fn availability(&self) -> Result<(), String> {
        self.sdk.as_ref().map(|_| ()).map_err(Clone::clone)
    }

    /// Recognizes decomposed GELUs (`x·0.5·(1+erf(x/√2))` and the tanh form) as `Gelu`,
    /// which oneDNN computes in one element-wise step (fused into the matmul before it),
    /// where the decomposed form has an `Erf` that oneDNN 2.6 lacks and that would split the
    /// segment around an `interp` one; decomposed layer normalizations (`ReduceMean`,
    /// `Sub`, `Pow`, ...) as `LayerNormalization`, one primitive instead of seven ops; and
    /// reshapes between integer ops left in QDQ form (`dcast → Flatten → qcast`, one
    /// quantized type) as views of the stored integers ([`quant_views`]).
    fn rewrite(&self, ctx: &mut Context, func: Op) -> usize {
        if self.sdk.is_err() {
            return 0;
        }
        recognize(ctx, func) + quant_views::fold(ctx, func)
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
            if l.inputs.is_empty() {
                continue;
            }
            if l.kind != OpKind::View {
                bytes += value_bytes(ctx, ctx.results(op)[0])?;
            }
            if let OpKind::QConv { q, .. } | OpKind::QMatMul { q } | OpKind::QAvgPool { q, .. } =
                &l.kind
            {
                bytes += q.weights.len() as f64;
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

/// Rewrites each decomposed GELU under `op` (erf or tanh form) into one `graph.Gelu` and each
/// decomposed layer normalization into one `graph.LayerNormalization`, with
/// `nart-graph-fusion`'s patterns (`f32`, constants within a tolerance, intermediate values
/// used once); returns how many.
pub fn recognize(ctx: &mut Context, op: Op) -> usize {
    use nart_graph_fusion::recognize::{GeluErf, GeluTanh, LayerNorm};
    use nart_rewrite::{
        apply_patterns_greedily, FrozenPatternSet, GreedyConfig, RegionSimplification,
    };
    let patterns: Vec<Box<dyn nart_ir::RewritePattern>> =
        vec![Box::new(GeluErf), Box::new(GeluTanh), Box::new(LayerNorm)];
    let set = FrozenPatternSet::filtered(Vec::new(), patterns, |_| true);
    let config = GreedyConfig {
        max_iterations: 10,
        max_num_rewrites: None,
        region_simplification: RegionSimplification::Disabled,
        use_top_down_traversal: true,
        fold: false,
    };
    let res = apply_patterns_greedily(ctx, op, &set, &config);
    res.num_pattern_applications()
}

/// The op list of `segment` (a `target.segment` whose ops this target supports).
pub fn program_of(ctx: &Context, segment: Op) -> Result<Program, Diagnostic> {
    let Some(&body) = ctx.region_blocks(ctx.region(segment, 0)).first() else {
        return Err(ctx.op_error(segment, "has an empty body"));
    };
    let mut p = Program::default();
    let mut ids: HashMap<Value, u32> = HashMap::new();
    for (i, &a) in ctx.block_args(body).iter().enumerate() {
        let (dims, elem) = int8::value_dims(ctx, a, &format!("segment input #{i}"))
            .map_err(|r| ctx.op_error(segment, format!("onednn: {r}")))?;
        ids.insert(a, p.values.len() as u32);
        p.inputs.push(p.values.len() as u32);
        p.values.push(ValueDef {
            dims,
            elem,
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
            elem: Elem::F32,
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
        if is_materialized(ctx, op) || int8::is_constant_cast(ctx, op) {
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
        let (dims, elem) = int8::value_dims(ctx, r, "result #0")
            .map_err(|e| ctx.op_error(op, format!("onednn: {e}")))?;
        let id = p.values.len() as u32;
        p.values.push(ValueDef {
            dims,
            elem,
            kind: ValueKind::Computed,
        });
        ids.insert(r, id);
        p.ops.push(OpDef {
            kind: l.kind,
            inputs,
            outputs: vec![Operand::new(id, l.out_dims)],
            post: Vec::new(),
        });
    }
    for &v in ctx.operands(yield_op) {
        let id = value_id(&mut p, &mut ids, v, yield_op)?;
        p.outputs.push(id);
    }
    fold_batch_norms(&mut p);
    fuse(&mut p);
    transpose::fold_transposes(&mut p);
    p.check()
        .map_err(|e| ctx.op_error(segment, format!("onednn: internal error: {e}")))?;
    Ok(p)
}

/// The data of value `v` if it is a constant.
fn constant_data(p: &Program, v: u32) -> Option<std::sync::Arc<Vec<f32>>> {
    match &p.values[v as usize].kind {
        ValueKind::Constant(d) => Some(d.clone()),
        _ => None,
    }
}

/// The single op reading value `v` (and at which operand), if exactly one does and `v` is not
/// a segment result.
fn single_user(p: &Program, v: u32) -> Option<(usize, usize)> {
    if p.outputs.contains(&v) {
        return None;
    }
    let mut users = p.ops.iter().enumerate().flat_map(|(j, op)| {
        op.inputs
            .iter()
            .enumerate()
            .filter(move |(_, o)| o.value == v)
            .map(move |(i, _)| (j, i))
    });
    let first = users.next()?;
    users.next().is_none().then_some(first)
}

/// Folds an inference batch normalization into the convolution before it, when the
/// convolution's weights (and bias) and the normalization's parameters are constants and
/// nothing else reads the convolution's result: with `f = scale / sqrt(var + eps)` per output
/// channel, `w' = w·f` and `b' = (b − mean)·f + shift`, computed in `f64` (as ONNX Runtime's
/// optimizer does, the result differs from the unfolded one by rounding).
pub fn fold_batch_norms(p: &mut Program) {
    let mut k = 0;
    while k < p.ops.len() {
        let folded = (|| {
            let op = &p.ops[k];
            if !matches!(op.kind, OpKind::Conv { .. }) || !op.post.is_empty() {
                return None;
            }
            let out = &op.outputs[0];
            let (j, 0) = single_user(p, out.value)? else {
                return None;
            };
            let bn = &p.ops[j];
            let OpKind::BatchNorm { epsilon } = bn.kind else {
                return None;
            };
            if bn.inputs[0].dims != out.dims || bn.inputs[0].strides.is_some() {
                return None;
            }
            let w = constant_data(p, op.inputs[1].value)?;
            let bias = match op.inputs.get(2) {
                Some(b) => Some(constant_data(p, b.value)?),
                None => None,
            };
            let params: Vec<_> = bn.inputs[1..]
                .iter()
                .map(|o| constant_data(p, o.value))
                .collect::<Option<_>>()?;
            let channels = params[0].len();
            if channels == 0
                || w.len() % channels != 0
                || params.iter().any(|v| v.len() != channels)
            {
                return None;
            }
            let per = w.len() / channels;
            let f: Vec<f64> = (0..channels)
                .map(|c| {
                    f64::from(params[0][c]) / (f64::from(params[3][c]) + f64::from(epsilon)).sqrt()
                })
                .collect();
            let w2: Vec<f32> = w
                .iter()
                .enumerate()
                .map(|(i, &x)| (f64::from(x) * f[i / per]) as f32)
                .collect();
            let b2: Vec<f32> = (0..channels)
                .map(|c| {
                    let b = bias.as_ref().map_or(0.0, |b| f64::from(b[c]));
                    ((b - f64::from(params[2][c])) * f[c] + f64::from(params[1][c])) as f32
                })
                .collect();
            Some((j, w2, b2, channels))
        })();
        if let Some((j, w2, b2, channels)) = folded {
            let wv = p.values.len() as u32;
            let wdims = p.values[p.ops[k].inputs[1].value as usize].dims.clone();
            p.values.push(ValueDef {
                dims: wdims,
                elem: Elem::F32,
                kind: ValueKind::Constant(std::sync::Arc::new(w2)),
            });
            let bv = p.values.len() as u32;
            p.values.push(ValueDef {
                dims: vec![channels as i64],
                elem: Elem::F32,
                kind: ValueKind::Constant(std::sync::Arc::new(b2)),
            });
            let new_out = p.ops[j].outputs[0].clone();
            let op = &mut p.ops[k];
            op.inputs[1].value = wv;
            op.inputs.truncate(2);
            op.inputs.push(Operand::new(bv, vec![channels as i64]));
            op.outputs[0] = new_out;
            p.ops.remove(j);
        }
        k += 1;
    }
}

/// Whether value `v` is ready before op `k` runs: an input, a constant, or a result of an
/// earlier op.
fn ready_before(p: &Program, v: u32, k: usize) -> bool {
    !matches!(p.values[v as usize].kind, ValueKind::Computed)
        || p.ops[..k]
            .iter()
            .any(|op| op.outputs.iter().any(|o| o.value == v))
}

/// Whether oneDNN 2.6's optimized (brgemm) matmul takes a binary post-op whose operand has
/// `dims` against a result of `out`: a scalar, a row along the last dim, or the full size.
/// Other broadcasts (an attention mask of `[1, 1, s, s]` against `[b, h, s, s]`) make it fall
/// back to its reference matmul, many times slower than a binary op of its own.
fn brgemm_broadcast(dims: &[i64], out: &[i64]) -> bool {
    let r = out.len();
    let ones_before = |n: usize| dims.len() == r && dims[..n].iter().all(|&d| d == 1);
    dims == out
        || dims.iter().all(|&d| d == 1)
        || (r > 0 && ones_before(r - 1) && dims[r - 1] == out[r - 1])
}

/// Fuses into each convolution, matmul and binary op the element-wise ops that alone read its
/// result, and into each convolution and matmul the binary ops with a broadcast operand (a
/// bias) that alone read it: oneDNN's post-ops (`MatMul → Add(bias) → Gelu` becomes one
/// primitive). A binary op fuses when the result is its full-size operand (the first, or
/// either for the ops that commute) and its other operand is ready before the host runs.
/// Full-size binary post-ops (a residual `Add`) fuse into matmuls (whose brgemm kernels take
/// them) but not into convolutions: oneDNN 2.6's optimized convolutions do not take them and
/// fall back to its reference one. Into a matmul, only the broadcasts its brgemm kernels take
/// fuse ([`brgemm_broadcast`]).
pub fn fuse(p: &mut Program) {
    let mut k = 0;
    while k < p.ops.len() {
        let binary_host = matches!(p.ops[k].kind, OpKind::Binary { .. });
        if !binary_host && !matches!(p.ops[k].kind, OpKind::Conv { .. } | OpKind::MatMul) {
            k += 1;
            continue;
        }
        loop {
            let out = p.ops[k].outputs[0].clone();
            let Some((j, i)) = single_user(p, out.value) else {
                break;
            };
            let c = &p.ops[j];
            let as_is = c.inputs[i].dims == out.dims
                && c.inputs[i].strides.is_none()
                && c.outputs[0].dims == out.dims;
            if !as_is || !c.post.is_empty() {
                break;
            }
            let (post, extra) = match &c.kind {
                OpKind::Eltwise { alg, alpha, beta } => (
                    PostOp::Eltwise {
                        alg: *alg,
                        alpha: *alpha,
                        beta: *beta,
                    },
                    None,
                ),
                OpKind::Binary { alg } if !binary_host => {
                    let commutes = !matches!(alg, BinaryAlg::Sub | BinaryAlg::Div);
                    let other = c.inputs[1 - i].clone();
                    let matmul_host = p.ops[k].kind == OpKind::MatMul;
                    if (i == 1 && !commutes)
                        || other.strides.is_some()
                        || (other.dims == out.dims && !matmul_host)
                        || (matmul_host && !brgemm_broadcast(&other.dims, &out.dims))
                        || other.value == out.value
                        || !ready_before(p, other.value, k)
                    {
                        break;
                    }
                    (PostOp::Binary { alg: *alg }, Some(other))
                }
                _ => break,
            };
            let new_out = p.ops[j].outputs[0].clone();
            let op = &mut p.ops[k];
            op.post.push(post);
            op.inputs.extend(extra);
            op.outputs[0] = new_out;
            p.ops.remove(j);
        }
        k += 1;
    }
}
