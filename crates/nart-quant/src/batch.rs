//! Running several calibration samples in one interpreter run, stacked along the batch axis.
//!
//! Calibration only needs each value's statistics over all samples, and the statistics merge
//! exactly (ranges by min/max, histograms by the power-of-two growth of [`crate::calib`]), so a
//! run over `k` samples stacked along dimension 0 gives the same statistics as `k` runs, provided
//! every value of the batched run holds, row by row, exactly the values the single runs compute.
//! That holds when every op treats each index of dimension 0 on its own and computes each row
//! in the same order as for a batch of one; fewer, larger ops (one GEMM over several images)
//! then save per-op overhead and weight packing.
//!
//! [`plan`] decides it from the IR, before anything runs: function arguments of a dynamic
//! leading dimension are batched; an op whose operands include a batched value must be one of
//! the ONNX ops listed in [`separable`], used in a way that keeps the rows apart (a `Flatten`
//! from axis 1, a `Gemm` without `transA`, a `Concat` not along axis 0, ...), and its results
//! are batched. Any other op reading a batched value (`Shape`, a `Reshape`, a reduction, ...)
//! turns batching off for the function. During a batched run the collector also checks that
//! every batched value has the batch's rows ([`BatchPlan::batched`]); if one does not, the
//! calibration falls back to one sample per run.

use std::collections::HashSet;

use nart_interp::Val;
use nart_ir::{AttrData, Context, DenseArrayData, Op, Trait, TypeData, Value};
use nart_tensor::Tensor;

use crate::dataset::Sample;
use crate::ir_util;
use crate::roles::onnx_name;

/// Which values of a function carry the batch axis when samples are stacked.
#[derive(Clone, Debug, Default)]
pub struct BatchPlan {
    /// The function arguments and op results whose dimension 0 is the batch axis.
    pub batched: HashSet<Value>,
}

/// The batch plan of `func`, or the reason it cannot run samples stacked.
pub fn plan(ctx: &Context, func: Op) -> Result<BatchPlan, String> {
    let mut batched = HashSet::new();
    for (i, v) in ir_util::func_args(ctx, func).into_iter().enumerate() {
        match ir_util::dims(ctx, ctx.value_type(v)) {
            Some(d) if d.first().is_some_and(|d0| d0.is_none()) => {
                batched.insert(v);
            }
            _ => return Err(format!("input #{i} has no dynamic leading dimension")),
        }
    }
    for op in ir_util::body_ops(ctx, func) {
        let reads_batch = ctx.operands(op).iter().any(|v| batched.contains(v));
        // The return hands the batched results back as they are.
        if !reads_batch || ctx.op_has_trait(op, Trait::ReturnLike) {
            continue;
        }
        if !ctx.regions(op).is_empty() {
            return Err(format!("'{}' has regions", ctx.op_name_str(op)));
        }
        if !separable(ctx, op, &batched) {
            return Err(format!(
                "'{}' ({}) may mix the rows of a batch",
                ctx.op_name_str(op),
                ir_util::op_name(ctx, op).unwrap_or_default()
            ));
        }
        for &r in ctx.results(op) {
            if present(ctx, r) {
                batched.insert(r);
            }
        }
    }
    Ok(BatchPlan { batched })
}

/// Whether `v` is an operand that is there (not an absent optional one).
fn present(ctx: &Context, v: Value) -> bool {
    !matches!(ctx.type_data(ctx.value_type(v)), TypeData::None)
}

/// The rank of `v`'s type, if ranked.
fn rank(ctx: &Context, v: Value) -> Option<usize> {
    ctx.shape_of(ctx.value_type(v)).map(<[i64]>::len)
}

/// The static leading dimension of `v` (`None`: dynamic, unranked or rank 0).
fn dim0(ctx: &Context, v: Value) -> Option<i64> {
    ctx.shape_of(ctx.value_type(v))
        .and_then(|s| s.first().copied())
        .filter(|&d| d >= 0)
}

fn int_attr(ctx: &Context, op: Op, name: &str) -> Option<i64> {
    ctx.attr(op, name)
        .and_then(|a| ctx.attr_int(a))
        .and_then(|i| i64::try_from(i).ok())
}

fn ints_attr(ctx: &Context, op: Op, name: &str) -> Option<Vec<i64>> {
    match ctx.attr_data(ctx.attr(op, name)?) {
        AttrData::DenseArray {
            data: DenseArrayData::Int(items),
            ..
        } => Some(items.clone()),
        _ => None,
    }
}

/// `axis` of rank `r` made non-negative.
fn norm_axis(axis: i64, r: usize) -> i64 {
    if axis < 0 {
        axis + r as i64
    } else {
        axis
    }
}

/// Whether `op`, which reads at least one batched value, keeps the rows of a batch apart and
/// computes each as it would alone.
///
/// This is nart-quant's own table about ONNX ops (as [`crate::roles`] is): the ops CNNs are
/// made of, each with the condition under which row `i` of its results depends only on row
/// `i` of its batched operands (and on its other operands as a whole).
pub fn separable(ctx: &Context, op: Op, batched: &HashSet<Value>) -> bool {
    let operands = ctx.operands(op);
    let is_b = |i: usize| operands.get(i).is_some_and(|v| batched.contains(v));
    let only_first_batched = || is_b(0) && (1..operands.len()).all(|i| !is_b(i));
    let results = ctx.results(op);
    // Optional results that are absent (typed `none`) do not count.
    let one_result = || results.iter().skip(1).all(|&r| !present(ctx, r));
    let Some(name) = onnx_name(ctx, op) else {
        return false;
    };
    // Elementwise ops (with numpy broadcasting) pair their operands' elements: a batched operand must
    // have the result's rank (so that its dimension 0 is the result's), and any other operand
    // must not reach dimension 0 (a lower rank, or a leading 1).
    let elementwise = ctx.op_has_trait(op, Trait::Elementwise)
        || matches!(
            name,
            "Add"
                | "Sub"
                | "Mul"
                | "Div"
                | "Pow"
                | "Max"
                | "Min"
                | "Sum"
                | "Mean"
                | "Where"
                | "PRelu"
                | "Relu"
                | "Clip"
                | "LeakyRelu"
                | "HardSigmoid"
                | "HardSwish"
                | "Sigmoid"
                | "Tanh"
                | "Identity"
                | "Cast"
                | "Erf"
                | "Gelu"
                | "Elu"
                | "Selu"
                | "Softplus"
                | "Exp"
                | "Log"
                | "Sqrt"
                | "Neg"
                | "Abs"
                | "Reciprocal"
        );
    if elementwise {
        let Some(r) = results.first().and_then(|&v| rank(ctx, v)) else {
            return false;
        };
        if r == 0 {
            return false;
        }
        return operands.iter().all(|v| {
            if !present(ctx, *v) {
                true
            } else if batched.contains(v) {
                rank(ctx, *v) == Some(r)
            } else {
                rank(ctx, *v).is_some_and(|ro| ro < r || dim0(ctx, *v) == Some(1))
            }
        });
    }
    match name {
        // Convolutions and pooling work image by image. MaxPool's optional indices count
        // across the batch, so only its first result may be present.
        "Conv"
        | "ConvTranspose"
        | "AveragePool"
        | "GlobalAveragePool"
        | "GlobalMaxPool"
        | "LpPool"
        | "GlobalLpPool"
        | "InstanceNormalization"
        | "LRN" => only_first_batched() && one_result(),
        "MaxPool" => only_first_batched() && one_result(),
        // Inference-mode BatchNormalization (one result) uses the given statistics.
        "BatchNormalization" => only_first_batched() && one_result(),
        "Flatten" => {
            let r = rank(ctx, operands[0]).unwrap_or(0);
            let axis = norm_axis(int_attr(ctx, op, "axis").unwrap_or(1), r);
            only_first_batched() && axis >= 1
        }
        // Y = A·B + C with A [N, K] untransposed; C broadcast over rows only.
        "Gemm" => {
            only_first_batched()
                && int_attr(ctx, op, "transA").unwrap_or(0) == 0
                && operands.get(2).is_none_or(|&c| {
                    rank(ctx, c).is_some_and(|r| r <= 1) || dim0(ctx, c) == Some(1)
                })
        }
        // A [N, ..., K] times a matrix: each row of A on its own.
        "MatMul" => {
            only_first_batched()
                && rank(ctx, operands[0]).is_some_and(|r| r >= 2)
                && rank(ctx, operands[1]).is_some_and(|r| r == 2)
        }
        "Concat" => {
            let r = results.first().and_then(|&v| rank(ctx, v)).unwrap_or(0);
            let axis = norm_axis(int_attr(ctx, op, "axis").unwrap_or(0), r);
            (0..operands.len()).all(&is_b) && axis >= 1
        }
        "Transpose" => {
            let perm = ints_attr(ctx, op, "perm");
            only_first_batched() && perm.is_some_and(|p| p.first() == Some(&0))
        }
        "Softmax" | "LogSoftmax" => {
            let r = rank(ctx, operands[0]).unwrap_or(0);
            let axis = norm_axis(int_attr(ctx, op, "axis").unwrap_or(-1), r);
            only_first_batched() && axis >= 1
        }
        _ => false,
    }
}

/// The rows every sample gives each input (the same leading dimension for all inputs of all
/// samples), if they agree.
pub fn rows_per_sample(samples: &[Sample]) -> Option<usize> {
    let mut rows = None;
    for s in samples {
        for v in &s.inputs {
            let Val::Tensor(t) = v else { return None };
            let r = *t.shape().first()?;
            if r == 0 || rows.is_some_and(|x| x != r) {
                return None;
            }
            rows = Some(r);
        }
    }
    rows
}

/// The inputs of one run over `samples` (of equal rows, [`rows_per_sample`]): each input
/// concatenated along dimension 0.
pub fn stack(samples: &[Sample]) -> Option<Vec<Val>> {
    let first = samples.first()?;
    (0..first.inputs.len())
        .map(|i| {
            let ts: Vec<&Tensor> = samples
                .iter()
                .map(|s| match &s.inputs[i] {
                    Val::Tensor(t) => Some(t),
                    _ => None,
                })
                .collect::<Option<_>>()?;
            nart_tensor::shape_ops::concat(&ts, 0).ok().map(Val::Tensor)
        })
        .collect()
}
