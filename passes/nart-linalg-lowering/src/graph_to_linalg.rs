//! `convert-graph-to-linalg`: graph ops on tensors of static shape become structured ops
//! (`linalg` named ops and `linalg.generic`), `tensor` ops and `arith` constants, through the
//! core's dialect conversion.
//!
//! Every graph op is illegal: an op no pattern can lower (an op kind without a lowering, a
//! dynamic shape, an unsupported attribute) is reported at its location with the reason, and
//! the conversion is rolled back, so the function is left as it was. `graph.none` is legal
//! and erased once nothing uses it.
//!
//! | graph ops | structured form |
//! |---|---|
//! | `Add`, `Sub`, `Mul`, `Div` | a parallel `linalg.generic` with ONNX multidirectional broadcasting in its maps |
//! | `Relu`, `LeakyRelu`, `Clip`, `Sigmoid`, `Tanh`, `Exp`, `Erf` | a parallel `linalg.generic` (the last four through `math` ops) |
//! | `MatMul` (any ranks, 1-D operands and broadcast batches), `Gemm`, `graph.fused_matmul`/`fused_gemm` | `linalg.matmul`/`batch_matmul` (batches folded by reshapes) or a `linalg.generic` for broadcast batches, into a `linalg.fill`ed or broadcast bias; `linalg.transpose` for `transA`/`transB` (a constant operand is transposed at compile time instead), a generic for `alpha`, `beta` and the activation |
//! | `Conv`, `graph.fused_conv` (2-D) | `tensor.pad`, then `linalg.conv_2d_nchw_fchw` (group 1), `linalg.depthwise_conv_2d_nchw_chw` (one filter per channel) or a grouped `linalg.generic` over expanded shapes; the bias is the broadcast init |
//! | `MaxPool`, `AveragePool`, `GlobalAveragePool` (2-D) | `tensor.pad`, `linalg.pooling_nchw_max`/`_sum`, a division by the window counts |
//! | pools on other spatial ranks, MaxPool's `Indices`, integer `Pow`, boolean `ReduceMax`/`ReduceMin`, axes from the shapes, training `BatchNormalization` | see [`crate::pools_ops`] |
//! | `Softmax` | max, exp of the difference, sum and division as four generics, two of them reductions |
//! | `Reshape`, `Flatten`, `Squeeze`, `Unsqueeze` | `tensor.collapse_shape`/`expand_shape` |
//! | `Transpose`, `Concat` | `linalg.transpose`, `tensor.concat` |
//! | `BatchNormalization` (inference) | one generic `x * a[c] + b[c]`, with `a` and `b` folded at compile time when the parameters are constants |
//! | `graph.constant` | `arith.constant` |
//! | more elementwise ops (math, `Pow`, `Cast`, comparisons, `Where`, logic, variadic `Max`/`Min`/`Sum`/`Mean`, `Identity`) | see [`crate::pointwise`] |
//! | `Reduce*`, `ArgMax`/`ArgMin`, `LayerNormalization` | see [`crate::reduce`] |
//! | `Gather`, `Expand`, `Slice`, `Split`, `Pad` | see [`crate::indexing`] |
//! | `LogSoftmax`, `Mod`, `Pad` (reflect/edge/wrap), `Resize`, `ConvTranspose` | see [`crate::keya_ops`] |
//! | `GatherElements`, `Shape`, `ConstantOfShape`, `Range`, `Einsum`, `TopK` | see [`crate::keyb_ops`] |
//! | `QuantizeLinear`, `DequantizeLinear`, `DynamicQuantizeLinear`, `MatMulInteger`, `ConvInteger`, `QLinearMatMul`, `QLinearConv` | see [`crate::intq_ops`] |
//! | any of these on `f16` or `bf16` tensors | the op in `f32` between `arith.extf` and `arith.truncf` generics; see [`crate::floats`] |
//!
//! Unsigned integer tensors (`uiN`) become signless ones (`iN`) through the pass's type
//! converter, the function's signature included, and the lowerings pick the unsigned `arith`
//! ops where the sign matters (see [`crate::intq_ops`]).

use nart_dialect_graph::fused::Activation;
use nart_dialect_linalg::builders::{create_generic, create_named};
use nart_dialect_linalg::structured::{add, d, identity, map, mul_const};
use nart_dialect_linalg::IteratorType::{self, Parallel as P, Reduction as R};
use nart_dialect_tensor::util::dense_ints;
use nart_ir::{Attr, Context, Location, Op, OperationState, PatternRewriter, Type, Value};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::conversion::{
    apply_partial_conversion, ConversionPattern, ConversionPatternSet, ConversionRewriter,
    ConversionTarget, OpAdaptor,
};

use crate::emit::*;
use crate::{indexing, intq_ops, keya_ops, keyb_ops, pointwise, pools_ops, reduce};

/// A lowering of one graph op kind: returns the values replacing its results.
type LowerFn = fn(&mut PatternRewriter<'_>, Op, Location) -> Lowered;

/// A conversion pattern made of a root op name and a lowering function.
struct Lowering {
    name: &'static str,
    root: &'static str,
    lower: LowerFn,
}

impl ConversionPattern for Lowering {
    fn name(&self) -> &'static str {
        self.name
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let loc = rw.op_loc(op);
        rw.set_insertion_point_before(op);
        // An op on unsigned integers is lowered as a signless clone (see `intq_ops`), and one
        // on 16-bit floats in f32 (see `floats`).
        let unsigned = intq_ops::has_unsigned(rw, op);
        let target = if unsigned {
            intq_ops::signless_clone(rw, op, a)
        } else {
            op
        };
        let lowered = if crate::floats::computes_in_f32(rw, target) {
            crate::floats::lower_in_f32(rw, target, loc, self.lower)
        } else {
            (self.lower)(rw, target, loc)
        };
        match lowered {
            Ok(values) => {
                if unsigned {
                    rw.erase_op(target);
                }
                rw.replace_op(op, &values);
                true
            }
            Err(reason) => rw.match_failure(reason),
        }
    }
}

// ----- attributes -----

pub(crate) fn int_attr(ctx: &Context, op: Op, name: &str, default: i64) -> i64 {
    ctx.attr(op, name)
        .and_then(|a| ctx.attr_int(a))
        .and_then(|v| i64::try_from(v).ok())
        .unwrap_or(default)
}

/// A float attribute, or `default` rounded to `f32` as ONNX's float attributes are (which
/// the `f64` lowerings see, as the interpreter does).
pub(crate) fn float_attr(ctx: &Context, op: Op, name: &str, default: f64) -> f64 {
    ctx.attr(op, name)
        .and_then(|a| ctx.attr_float(a))
        .unwrap_or(f64::from(default as f32))
}

pub(crate) fn ints_attr(ctx: &Context, op: Op, name: &str) -> Option<Vec<i64>> {
    ctx.attr(op, name).and_then(|a| dense_ints(ctx, a))
}

pub(crate) fn string_attr<'a>(ctx: &'a Context, op: Op, name: &str) -> Option<&'a str> {
    ctx.attr(op, name).and_then(|a| ctx.attr_str(a))
}

pub(crate) fn result_type(ctx: &Context, op: Op) -> Result<(Vec<i64>, Type), String> {
    static_type(ctx, ctx.result(op, 0))
}

pub(crate) fn operand(ctx: &Context, op: Op, i: usize) -> Result<Value, String> {
    ctx.operands(op)
        .get(i)
        .copied()
        .ok_or_else(|| format!("expected operand #{i}"))
}

/// `axis` normalized into `0..rank`.
pub(crate) fn norm_axis(axis: i64, rank: usize) -> Result<usize, String> {
    let a = if axis < 0 { axis + rank as i64 } else { axis };
    usize::try_from(a)
        .ok()
        .filter(|&a| a < rank.max(1))
        .ok_or_else(|| format!("axis {axis} is out of range for rank {rank}"))
}

// ----- scalar bodies -----

const CMPF_OGT: i128 = 2;

/// `activation(x)` as scalar ops of `x`'s type.
fn activation(
    rw: &mut PatternRewriter<'_>,
    act: Activation,
    x: Value,
    loc: Location,
) -> Result<Value, String> {
    let ty = rw.value_type(x);
    Ok(match act {
        Activation::None => x,
        Activation::Relu => {
            let z = scalar(rw, 0.0, ty, loc);
            ar(rw, "arith.maximumf", &[x, z], ty, loc)
        }
        Activation::LeakyRelu { alpha } => leaky_relu(rw, x, f64::from(alpha), loc),
        Activation::Clip { min, max } => {
            let lo = scalar(rw, f64::from(min), ty, loc);
            let hi = scalar(rw, f64::from(max), ty, loc);
            let m = ar(rw, "arith.maximumf", &[x, lo], ty, loc);
            ar(rw, "arith.minimumf", &[m, hi], ty, loc)
        }
        Activation::Sigmoid => sigmoid(rw, x, loc)?,
        Activation::Tanh => math(rw, "math.tanh", x, loc)?,
        Activation::HardSigmoid { alpha, beta } => {
            // max(0, min(1, alpha * x + beta))
            let a = scalar(rw, f64::from(alpha), ty, loc);
            let b = scalar(rw, f64::from(beta), ty, loc);
            let ax = ar(rw, "arith.mulf", &[a, x], ty, loc);
            let y = ar(rw, "arith.addf", &[ax, b], ty, loc);
            let one = scalar(rw, 1.0, ty, loc);
            let zero = scalar(rw, 0.0, ty, loc);
            let m = ar(rw, "arith.minimumf", &[y, one], ty, loc);
            ar(rw, "arith.maximumf", &[m, zero], ty, loc)
        }
    })
}

fn leaky_relu(rw: &mut PatternRewriter<'_>, x: Value, alpha: f64, loc: Location) -> Value {
    let ty = rw.value_type(x);
    let z = scalar(rw, 0.0, ty, loc);
    let a = scalar(rw, alpha, ty, loc);
    let pos = cmpf(rw, CMPF_OGT, x, z, loc);
    let ax = ar(rw, "arith.mulf", &[x, a], ty, loc);
    ar(rw, "arith.select", &[pos, x, ax], ty, loc)
}

/// `1 / (1 + exp(-x))`.
pub(crate) fn sigmoid(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    loc: Location,
) -> Result<Value, String> {
    let ty = rw.value_type(x);
    let n = ar(rw, "arith.negf", &[x], ty, loc);
    let e = math(rw, "math.exp", n, loc)?;
    let one = scalar(rw, 1.0, ty, loc);
    let s = ar(rw, "arith.addf", &[one, e], ty, loc);
    Ok(ar(rw, "arith.divf", &[one, s], ty, loc))
}

// ----- elementwise -----

fn binary(rw: &mut PatternRewriter<'_>, op: Op, loc: Location, float: &str, int: &str) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    let inputs = rw.operands(op).to_vec();
    let name = if is_float(rw, elem) { float } else { int };
    let v = elementwise(rw, &inputs, &shape, elem, loc, |rw, a| {
        Ok(ar(rw, name, a, elem, loc))
    })?;
    Ok(vec![v])
}

fn lower_add(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    binary(rw, op, loc, "arith.addf", "arith.addi")
}
fn lower_sub(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    binary(rw, op, loc, "arith.subf", "arith.subi")
}
fn lower_mul(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    binary(rw, op, loc, "arith.mulf", "arith.muli")
}
fn lower_div(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    if is_float(rw, elem) {
        return binary(rw, op, loc, "arith.divf", "arith.divsi");
    }
    let unsigned = intq_ops::result_unsigned(rw, op, 0);
    let inputs = rw.operands(op).to_vec();
    let v = elementwise(rw, &inputs, &shape, elem, loc, |rw, a| {
        Ok(intq_ops::int_div(rw, a[0], a[1], unsigned, elem, loc))
    })?;
    Ok(vec![v])
}

/// A float elementwise op of one input: `body(x)`.
pub(crate) fn unary(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    loc: Location,
    body: impl FnOnce(&mut PatternRewriter<'_>, Value) -> Result<Value, String>,
) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    if !is_float(rw, elem) {
        return Err("expected a float tensor".to_string());
    }
    let x = operand(rw, op, 0)?;
    let v = elementwise(rw, &[x], &shape, elem, loc, |rw, a| body(rw, a[0]))?;
    Ok(vec![v])
}

fn lower_relu(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    unary(rw, op, loc, |rw, x| {
        activation(rw, Activation::Relu, x, loc)
    })
}
fn lower_leaky_relu(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let alpha = float_attr(rw, op, "alpha", 0.01);
    unary(rw, op, loc, |rw, x| Ok(leaky_relu(rw, x, alpha, loc)))
}
fn lower_sigmoid(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    unary(rw, op, loc, |rw, x| sigmoid(rw, x, loc))
}
fn lower_tanh(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    unary(rw, op, loc, |rw, x| math(rw, "math.tanh", x, loc))
}
fn lower_exp(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    unary(rw, op, loc, |rw, x| math(rw, "math.exp", x, loc))
}
fn lower_erf(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    unary(rw, op, loc, |rw, x| math(rw, "math.erf", x, loc))
}

/// `Clip(x, min?, max?)`: `min(max(x, lo), hi)` with the bounds as rank-0 inputs.
fn lower_clip(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    if !is_float(rw, elem) {
        return intq_ops::int_clip(rw, op, loc);
    }
    let x = operand(rw, op, 0)?;
    let lo = optional_operand(rw, op, 1);
    let hi = optional_operand(rw, op, 2);
    let mut inputs = vec![x];
    inputs.extend(lo);
    inputs.extend(hi);
    let v = elementwise(rw, &inputs, &shape, elem, loc, |rw, a| {
        let mut y = a[0];
        let mut next = 1;
        if lo.is_some() {
            y = ar(rw, "arith.maximumf", &[y, a[next]], elem, loc);
            next += 1;
        }
        if hi.is_some() {
            y = ar(rw, "arith.minimumf", &[y, a[next]], elem, loc);
        }
        Ok(y)
    })?;
    Ok(vec![v])
}

/// `activation` applied to tensor `t` (nothing for `Activation::None`).
fn apply_activation(
    rw: &mut PatternRewriter<'_>,
    t: Value,
    act: Activation,
    loc: Location,
) -> Result<Value, String> {
    if act == Activation::None {
        return Ok(t);
    }
    let (shape, elem) = static_type(rw, t)?;
    elementwise(rw, &[t], &shape, elem, loc, |rw, a| {
        activation(rw, act, a[0], loc)
    })
}

// ----- products -----

/// `a x b` with ONNX (numpy) matmul semantics, accumulated into `init` (of the result's
/// shape): a 1-D `a` is a row and a 1-D `b` a column, the dimension added for it being absent
/// from the result, and the batch dimensions (all but the last two) broadcast. A 2-D product
/// is a `linalg.matmul`; a batched `a` times a 2-D `b` folds the batches into the rows of one
/// `linalg.matmul`; equal batches fold into one `linalg.batch_matmul`; other batches (one
/// side broadcast) become a `linalg.generic` whose maps read index 0 of a broadcast
/// dimension.
fn matmul_into(
    rw: &mut PatternRewriter<'_>,
    a: Value,
    b: Value,
    init: Value,
    loc: Location,
) -> Result<Value, String> {
    let (sa, _) = static_type(rw, a)?;
    let (sb, _) = static_type(rw, b)?;
    let (so, elem) = static_type(rw, init)?;
    if sa.is_empty() || sb.is_empty() {
        return Err("a MatMul operand is a scalar".to_string());
    }
    let (a, sa) = if sa.len() == 1 {
        (reshape(rw, a, &[1, sa[0]], loc)?, vec![1, sa[0]])
    } else {
        (a, sa)
    };
    let (b, sb) = if sb.len() == 1 {
        (reshape(rw, b, &[sb[0], 1], loc)?, vec![sb[0], 1])
    } else {
        (b, sb)
    };
    let (ra, rb) = (sa.len(), sb.len());
    let (m, k, n) = (sa[ra - 2], sa[ra - 1], sb[rb - 1]);
    if sb[rb - 2] != k {
        return Err(format!(
            "the contracted dimensions differ: {k} and {}",
            sb[rb - 2]
        ));
    }
    let (ba, bb) = (&sa[..ra - 2], &sb[..rb - 2]);
    let batch = broadcast_shapes(ba, bb)
        .ok_or_else(|| format!("the batch dimensions {ba:?} and {bb:?} do not broadcast"))?;
    let mut full = batch.clone();
    full.extend([m, n]);
    if full.iter().product::<i64>() != so.iter().product::<i64>() {
        return Err(format!(
            "the result shape {so:?} does not match the product's {full:?}"
        ));
    }
    let p: i64 = batch.iter().product();
    let y = if batch.is_empty() {
        let init = reshape(rw, init, &full, loc)?;
        let op = create_named(rw, "linalg.matmul", &[a, b], &[init], &[], loc);
        rw.result(op, 0)
    } else if bb.is_empty() {
        // [batch.., m, k] x [k, n]: the batches are more rows.
        let a2 = reshape(rw, a, &[p * m, k], loc)?;
        let init2 = reshape(rw, init, &[p * m, n], loc)?;
        let op = create_named(rw, "linalg.matmul", &[a2, b], &[init2], &[], loc);
        rw.result(op, 0)
    } else if ba == bb {
        let a3 = reshape(rw, a, &[p, m, k], loc)?;
        let b3 = reshape(rw, b, &[p, k, n], loc)?;
        let init3 = reshape(rw, init, &[p, m, n], loc)?;
        let op = create_named(rw, "linalg.batch_matmul", &[a3, b3], &[init3], &[], loc);
        rw.result(op, 0)
    } else {
        let init = reshape(rw, init, &full, loc)?;
        broadcast_matmul(rw, a, b, init, &batch, elem, loc)?
    };
    reshape(rw, y, &so, loc)
}

/// The numpy broadcast of two shapes, if they broadcast.
fn broadcast_shapes(x: &[i64], y: &[i64]) -> Option<Vec<i64>> {
    let r = x.len().max(y.len());
    (0..r)
        .map(|i| {
            let dx = if i + x.len() >= r {
                x[i + x.len() - r]
            } else {
                1
            };
            let dy = if i + y.len() >= r {
                y[i + y.len() - r]
            } else {
                1
            };
            match (dx, dy) {
                _ if dx == dy => Some(dx),
                (1, _) => Some(dy),
                (_, 1) => Some(dx),
                _ => None,
            }
        })
        .collect()
}

/// A batched product over loops `(batch.., i, j, k)` whose operand maps read index 0 of the
/// batch dimensions an operand broadcasts.
fn broadcast_matmul(
    rw: &mut PatternRewriter<'_>,
    a: Value,
    b: Value,
    init: Value,
    batch: &[i64],
    elem: Type,
    loc: Location,
) -> Result<Value, String> {
    let (sa, _) = static_type(rw, a)?;
    let (sb, _) = static_type(rw, b)?;
    let nb = batch.len();
    let loops = (nb + 3) as u32;
    let (i, j, kk) = (d(nb as u32), d(nb as u32 + 1), d(nb as u32 + 2));
    let batch_part = |s: &[i64]| -> Vec<nart_ir::AffineExpr> {
        let r = s.len() - 2;
        (0..r)
            .map(|q| {
                let o = q + nb - r;
                if s[q] == 1 && batch[o] != 1 {
                    nart_ir::AffineExpr::Const(0)
                } else {
                    d(o as u32)
                }
            })
            .collect()
    };
    let mut ma = batch_part(&sa);
    ma.extend([i.clone(), kk.clone()]);
    let mut mb = batch_part(&sb);
    mb.extend([kk, j.clone()]);
    let mut mo: Vec<_> = (0..nb as u32).map(d).collect();
    mo.extend([i, j]);
    let mut iters = vec![P; nb + 2];
    iters.push(R);
    let float = is_float(rw, elem);
    let g = create_generic(
        rw,
        &[a, b],
        &[init],
        vec![map(loops, ma), map(loops, mb), map(loops, mo)],
        &iters,
        loc,
        |rw, v| {
            let (mul, addop) = if float {
                ("arith.mulf", "arith.addf")
            } else {
                ("arith.muli", "arith.addi")
            };
            let p = ar(rw, mul, &[v[0], v[1]], elem, loc);
            vec![ar(rw, addop, &[v[2], p], elem, loc)]
        },
    );
    Ok(rw.result(g, 0))
}

/// `x` transposed by `perm` (`linalg.transpose` into a `tensor.empty`).
fn transpose(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    perm: &[i64],
    loc: Location,
) -> Result<Value, String> {
    let (s, elem) = static_type(rw, x)?;
    let out: Vec<i64> = perm.iter().map(|&p| s[p as usize]).collect();
    // A constant (a Gemm's weight with transB) is transposed once, here, not on every run.
    if let Some(vals) = constant_f32(rw, x).filter(|v| v.len() as i64 == s.iter().product::<i64>())
    {
        return Ok(const_f32_tensor(rw, &out, &permuted(&vals, &s, perm), loc));
    }
    let init = empty(rw, &out, elem, loc);
    let p = nart_dialect_tensor::util::dense_i64(rw.uniq(), perm);
    let op = create_named(
        rw,
        "linalg.transpose",
        &[x],
        &[init],
        &[("permutation", p)],
        loc,
    );
    Ok(rw.result(op, 0))
}

/// The row-major elements of a tensor of shape `shape` transposed by `perm` (result dimension
/// `i` is input dimension `perm[i]`).
fn permuted(vals: &[f32], shape: &[i64], perm: &[i64]) -> Vec<f32> {
    let rank = shape.len();
    let mut in_strides = vec![1i64; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        in_strides[i] = in_strides[i + 1] * shape[i + 1];
    }
    let out_shape: Vec<i64> = perm.iter().map(|&p| shape[p as usize]).collect();
    let mut idx = vec![0i64; rank];
    let mut out = Vec::with_capacity(vals.len());
    for _ in 0..vals.len() {
        let at: i64 = idx
            .iter()
            .zip(perm)
            .map(|(&i, &p)| i * in_strides[p as usize])
            .sum();
        out.push(vals[at as usize]);
        for d in (0..rank).rev() {
            idx[d] += 1;
            if idx[d] < out_shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// A tensor of `shape` holding `t` broadcast to it (ONNX broadcasting), or zeros without `t`.
fn broadcast_or_zero(
    rw: &mut PatternRewriter<'_>,
    t: Option<Value>,
    shape: &[i64],
    elem: Type,
    loc: Location,
) -> Result<Value, String> {
    match t {
        Some(t) => elementwise(rw, &[t], shape, elem, loc, |_, a| Ok(a[0])),
        None => Ok(filled(rw, 0.0, shape, elem, loc)),
    }
}

fn lower_matmul(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    let (a, b) = (operand(rw, op, 0)?, operand(rw, op, 1)?);
    let bias = optional_operand(rw, op, 2);
    let init = broadcast_or_zero(rw, bias, &shape, elem, loc)?;
    let y = matmul_into(rw, a, b, init, loc)?;
    let act = activation_of(rw, op)?;
    Ok(vec![apply_activation(rw, y, act, loc)?])
}

/// The activation of a fused op; `None` for the standard ops.
fn activation_of(ctx: &Context, op: Op) -> Result<Activation, String> {
    if ctx.attr(op, "activation").is_some() {
        Activation::of(ctx, op)
    } else {
        Ok(Activation::None)
    }
}

/// `Gemm`: `alpha * A' * B' + beta * C`.
fn lower_gemm(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    let mut a = operand(rw, op, 0)?;
    let mut b = operand(rw, op, 1)?;
    let c = optional_operand(rw, op, 2);
    let (alpha, beta) = (
        float_attr(rw, op, "alpha", 1.0),
        float_attr(rw, op, "beta", 1.0),
    );
    if int_attr(rw, op, "transA", 0) != 0 {
        a = transpose(rw, a, &[1, 0], loc)?;
    }
    if int_attr(rw, op, "transB", 0) != 0 {
        b = transpose(rw, b, &[1, 0], loc)?;
    }
    let c = if beta == 0.0 { None } else { c };
    let y = if alpha == 1.0 && beta == 1.0 {
        let init = broadcast_or_zero(rw, c, &shape, elem, loc)?;
        matmul_into(rw, a, b, init, loc)?
    } else {
        let zero = filled(rw, 0.0, &shape, elem, loc);
        let p = matmul_into(rw, a, b, zero, loc)?;
        let mut inputs = vec![p];
        inputs.extend(c);
        elementwise(rw, &inputs, &shape, elem, loc, |rw, v| {
            let al = scalar(rw, alpha, elem, loc);
            let mut y = ar(rw, "arith.mulf", &[al, v[0]], elem, loc);
            if v.len() > 1 {
                let be = scalar(rw, beta, elem, loc);
                let bc = ar(rw, "arith.mulf", &[be, v[1]], elem, loc);
                y = ar(rw, "arith.addf", &[y, bc], elem, loc);
            }
            Ok(y)
        })?
    };
    let act = activation_of(rw, op)?;
    Ok(vec![apply_activation(rw, y, act, loc)?])
}

// ----- windows -----

/// The 2-D window attributes of a conv or pool: kernel, strides, dilations, pads
/// (`[top, left, bottom, right]`).
#[derive(Clone, Copy)]
pub(crate) struct Window {
    pub(crate) kernel: [i64; 2],
    pub(crate) strides: [i64; 2],
    pub(crate) dilations: [i64; 2],
    pub(crate) pads: [i64; 4],
}

pub(crate) fn window(ctx: &Context, op: Op, kernel: Option<[i64; 2]>) -> Result<Window, String> {
    let same_lower = match string_attr(ctx, op, "auto_pad") {
        None | Some("NOTSET") | Some("VALID") => None,
        Some("SAME_UPPER") => Some(false),
        Some("SAME_LOWER") => Some(true),
        Some(p) => return Err(format!("auto_pad = \"{p}\" is not lowered")),
    };
    let two = |name: &str| -> Result<[i64; 2], String> {
        match ints_attr(ctx, op, name).as_deref() {
            None => Ok([1, 1]),
            Some(&[a, b]) => Ok([a, b]),
            Some(_) => Err(format!("expected two {name}")),
        }
    };
    let kernel = match (ints_attr(ctx, op, "kernel_shape").as_deref(), kernel) {
        (Some(&[a, b]), _) => [a, b],
        (None, Some(k)) => k,
        _ => return Err("expected a 2-D kernel_shape".to_string()),
    };
    let (strides, dilations) = (two("strides")?, two("dilations")?);
    let pads = match (same_lower, ints_attr(ctx, op, "pads").as_deref()) {
        (Some(lower), _) => same_pads(ctx, op, kernel, strides, dilations, lower)?,
        (None, None) => [0; 4],
        (None, Some(&[a, b, c, d])) => [a, b, c, d],
        (None, Some(_)) => return Err("expected four pads".to_string()),
    };
    Ok(Window {
        kernel,
        strides,
        dilations,
        pads,
    })
}

/// The pads `auto_pad = SAME_UPPER` (or `SAME_LOWER` when `lower`) stands for: each spatial
/// output is `ceil(input / stride)`, and the total padding that needs is split in half, the odd
/// element at the end (at the start for `SAME_LOWER`).
fn same_pads(
    ctx: &Context,
    op: Op,
    kernel: [i64; 2],
    strides: [i64; 2],
    dilations: [i64; 2],
    lower: bool,
) -> Result<[i64; 4], String> {
    let x = ctx.operands(op).first().copied().ok_or("no input")?;
    let shape = ctx
        .shape_of(ctx.value_type(x))
        .filter(|s| s.len() == 4 && s[2] >= 0 && s[3] >= 0)
        .ok_or("auto_pad = SAME_* needs a static 4-D input")?;
    let mut pads = [0; 4];
    for i in 0..2 {
        let (n, s) = (shape[2 + i], strides[i].max(1));
        let out = (n + s - 1) / s;
        let total = ((out - 1) * s + (kernel[i] - 1) * dilations[i] + 1 - n).max(0);
        let (small, big) = (total / 2, total - total / 2);
        (pads[i], pads[2 + i]) = if lower { (big, small) } else { (small, big) };
    }
    Ok(pads)
}

fn i64_pair(rw: &mut PatternRewriter<'_>, v: [i64; 2]) -> Attr {
    nart_dialect_linalg::attrs::i64_elements_attr(rw.uniq(), &v)
}

fn lower_conv(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    // A channels-last `fused_conv` (`graph-layout{layout=nhwc}`) is not lowered here yet.
    if nart_dialect_graph::fused::ConvLayout::of(rw, op)
        != Ok(nart_dialect_graph::fused::ConvLayout::Nchw)
    {
        return Err(
            "only channels-first convolutions are lowered (layout = \"nhwc\" is not)".to_string(),
        );
    }
    let (out, elem) = result_type(rw, op)?;
    let x = operand(rw, op, 0)?;
    let w = operand(rw, op, 1)?;
    let bias = optional_operand(rw, op, 2);
    let (sx, _) = static_type(rw, x)?;
    let (sw, _) = static_type(rw, w)?;
    if sx.len() != 4 || sw.len() != 4 {
        return Err("only 2-D convolutions (4-D tensors) are lowered".to_string());
    }
    let win = window(rw, op, Some([sw[2], sw[3]]))?;
    let group = int_attr(rw, op, "group", 1);
    let xp = pad(
        rw,
        x,
        &[0, 0, win.pads[0], win.pads[1]],
        &[0, 0, win.pads[2], win.pads[3]],
        0.0,
        loc,
    )?;
    // The bias is the init: broadcast along N, H and W.
    let init = match bias {
        Some(b) => {
            let e = empty(rw, &out, elem, loc);
            let dims = nart_dialect_tensor::util::dense_i64(rw.uniq(), &[0, 2, 3]);
            let bop = create_named(
                rw,
                "linalg.broadcast",
                &[b],
                &[e],
                &[("dimensions", dims)],
                loc,
            );
            rw.result(bop, 0)
        }
        None => filled(rw, 0.0, &out, elem, loc),
    };
    let strides = i64_pair(rw, win.strides);
    let dilations = i64_pair(rw, win.dilations);
    let props = [("dilations", dilations), ("strides", strides)];
    let (c, f) = (sx[1], sw[0]);
    let y = if group == 1 {
        let cop = create_named(
            rw,
            "linalg.conv_2d_nchw_fchw",
            &[xp, w],
            &[init],
            &props,
            loc,
        );
        rw.result(cop, 0)
    } else if group == c && f == c && sw[1] == 1 {
        let w3 = reshape(rw, w, &[f, sw[2], sw[3]], loc)?;
        let cop = create_named(
            rw,
            "linalg.depthwise_conv_2d_nchw_chw",
            &[xp, w3],
            &[init],
            &props,
            loc,
        );
        rw.result(cop, 0)
    } else {
        grouped_conv(rw, xp, w, init, group, &win, loc)?
    };
    let act = activation_of(rw, op)?;
    Ok(vec![apply_activation(rw, y, act, loc)?])
}

/// A grouped convolution as one `linalg.generic` over `(n, g, fo, oh, ow, c, kh, kw)` on the
/// input, filter and output expanded to expose the group dimension.
fn grouped_conv(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    w: Value,
    init: Value,
    group: i64,
    win: &Window,
    loc: Location,
) -> Result<Value, String> {
    let (sx, _) = static_type(rw, x)?;
    let (sw, _) = static_type(rw, w)?;
    let (so, _) = static_type(rw, init)?;
    if group <= 0 || sx[1] % group != 0 || sw[0] % group != 0 || sw[1] * group != sx[1] {
        return Err(format!("group {group} does not divide the channels"));
    }
    let g = group;
    let xg = reshape(rw, x, &[sx[0], g, sx[1] / g, sx[2], sx[3]], loc)?;
    let wg = reshape(rw, w, &[g, sw[0] / g, sw[1], sw[2], sw[3]], loc)?;
    let og = reshape(rw, init, &[so[0], g, so[1] / g, so[2], so[3]], loc)?;
    let (s, dl) = (win.strides, win.dilations);
    let win_expr = |o: u32, k: u32, s: i64, dl: i64| add(mul_const(d(o), s), mul_const(d(k), dl));
    let maps = vec![
        map(
            8,
            vec![
                d(0),
                d(1),
                d(5),
                win_expr(3, 6, s[0], dl[0]),
                win_expr(4, 7, s[1], dl[1]),
            ],
        ),
        map(8, vec![d(1), d(2), d(5), d(6), d(7)]),
        map(8, vec![d(0), d(1), d(2), d(3), d(4)]),
    ];
    let iters = [P, P, P, P, P, R, R, R];
    let gop = create_generic(rw, &[xg, wg], &[og], maps, &iters, loc, |rw, a| {
        let ty = rw.value_type(a[2]);
        let m = ar(rw, "arith.mulf", &[a[0], a[1]], ty, loc);
        vec![ar(rw, "arith.addf", &[a[2], m], ty, loc)]
    });
    let y = rw.result(gop, 0);
    reshape(rw, y, &so, loc)
}

/// The high padding that makes the last window of each spatial dimension fit (ceil mode, or
/// pads the result shape implies).
fn fit_high_pads(input: &[i64], out: &[i64], win: &Window) -> [i64; 2] {
    let mut high = [win.pads[2], win.pads[3]];
    for i in 0..2 {
        let need = (out[2 + i] - 1) * win.strides[i] + (win.kernel[i] - 1) * win.dilations[i] + 1;
        let have = input[2 + i] + win.pads[i] + high[i];
        if need > have {
            high[i] += need - have;
        }
    }
    high
}

pub(crate) fn lower_max_pool(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (out, elem) = result_type(rw, op)?;
    let x = operand(rw, op, 0)?;
    let (sx, _) = static_type(rw, x)?;
    if sx.len() != 4 || !is_float(rw, elem) {
        return Err("only 2-D float pooling (4-D tensors) is lowered".to_string());
    }
    let win = window(rw, op, None)?;
    let high = fit_high_pads(&sx, &out, &win);
    let xp = pad(
        rw,
        x,
        &[0, 0, win.pads[0], win.pads[1]],
        &[0, 0, high[0], high[1]],
        f64::NEG_INFINITY,
        loc,
    )?;
    let init = filled(rw, f64::NEG_INFINITY, &out, elem, loc);
    let k = empty(rw, &win.kernel, elem, loc);
    let props = [
        ("dilations", i64_pair(rw, win.dilations)),
        ("strides", i64_pair(rw, win.strides)),
    ];
    let p = create_named(
        rw,
        "linalg.pooling_nchw_max",
        &[xp, k],
        &[init],
        &props,
        loc,
    );
    let mut values = vec![rw.result(p, 0)];
    for i in 1..rw.results(op).len() {
        let r = rw.result(op, i);
        values.push(placeholder(rw, r, loc)?);
    }
    Ok(values)
}

/// Sum pooling of `x` (padded with zeros) divided by the number of elements each window
/// counts, which `count(oh, ow)` gives.
fn average(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    out: &[i64],
    elem: Type,
    win: &Window,
    counts: Vec<f32>,
    loc: Location,
) -> Result<Value, String> {
    let xp = pad(
        rw,
        x,
        &[0, 0, win.pads[0], win.pads[1]],
        &[0, 0, win.pads[2], win.pads[3]],
        0.0,
        loc,
    )?;
    let init = filled(rw, 0.0, out, elem, loc);
    let k = empty(rw, &win.kernel, elem, loc);
    let props = [
        ("dilations", i64_pair(rw, win.dilations)),
        ("strides", i64_pair(rw, win.strides)),
    ];
    let p = create_named(
        rw,
        "linalg.pooling_nchw_sum",
        &[xp, k],
        &[init],
        &props,
        loc,
    );
    let sum = rw.result(p, 0);
    let first = counts[0];
    if counts.iter().all(|&c| c == first) {
        return elementwise(rw, &[sum], out, elem, loc, |rw, a| {
            let n = scalar(rw, f64::from(first), elem, loc);
            Ok(ar(rw, "arith.divf", &[a[0], n], elem, loc))
        });
    }
    let c = const_f32_tensor(rw, &[out[2], out[3]], &counts, loc);
    elementwise(rw, &[sum, c], out, elem, loc, |rw, a| {
        Ok(ar(rw, "arith.divf", &[a[0], a[1]], elem, loc))
    })
}

pub(crate) fn lower_average_pool(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (out, elem) = result_type(rw, op)?;
    let x = operand(rw, op, 0)?;
    let (sx, _) = static_type(rw, x)?;
    if sx.len() != 4 || elem != rw.uniq().f32_type() {
        return Err("only 2-D f32 pooling (4-D tensors) is lowered".to_string());
    }
    let win = window(rw, op, None)?;
    let high = fit_high_pads(&sx, &out, &win);
    let include_pad = int_attr(rw, op, "count_include_pad", 0) != 0;
    // Each window counts the positions inside the input, or inside the explicitly padded
    // input with count_include_pad; positions added for ceil mode never count.
    let mut counts = Vec::new();
    for oh in 0..out[2] {
        for ow in 0..out[3] {
            let mut n = 0;
            for kh in 0..win.kernel[0] {
                for kw in 0..win.kernel[1] {
                    let h = oh * win.strides[0] + kh * win.dilations[0] - win.pads[0];
                    let w = ow * win.strides[1] + kw * win.dilations[1] - win.pads[1];
                    let inside = if include_pad {
                        h >= -win.pads[0]
                            && h < sx[2] + win.pads[2]
                            && w >= -win.pads[1]
                            && w < sx[3] + win.pads[3]
                    } else {
                        h >= 0 && h < sx[2] && w >= 0 && w < sx[3]
                    };
                    n += i32::from(inside);
                }
            }
            counts.push(n.max(1) as f32);
        }
    }
    let padded = Window {
        pads: [win.pads[0], win.pads[1], high[0], high[1]],
        ..win
    };
    Ok(vec![average(rw, x, &out, elem, &padded, counts, loc)?])
}

fn lower_global_average_pool(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (out, elem) = result_type(rw, op)?;
    let x = operand(rw, op, 0)?;
    let (sx, _) = static_type(rw, x)?;
    if sx.len() != 4 || elem != rw.uniq().f32_type() {
        return Err("only 2-D f32 pooling (4-D tensors) is lowered".to_string());
    }
    let win = Window {
        kernel: [sx[2], sx[3]],
        strides: [1, 1],
        dilations: [1, 1],
        pads: [0; 4],
    };
    let n = (sx[2] * sx[3]) as f32;
    Ok(vec![average(rw, x, &out, elem, &win, vec![n], loc)?])
}

// ----- softmax -----

/// A reduction of `x` over `axis` into a tensor without that dimension, starting from
/// `init`, combining with `body(acc, element)`.
pub(crate) fn reduce_axis(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    axis: usize,
    init: f64,
    loc: Location,
    body: impl FnOnce(&mut PatternRewriter<'_>, Value, Value) -> Result<Value, String>,
) -> Result<Value, String> {
    let (s, elem) = static_type(rw, x)?;
    let n = s.len() as u32;
    let reduced: Vec<i64> = s
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != axis)
        .map(|(_, &v)| v)
        .collect();
    let acc = filled(rw, init, &reduced, elem, loc);
    let out_map = map(n, (0..n).filter(|&i| i as usize != axis).map(d).collect());
    let iters: Vec<IteratorType> = (0..s.len())
        .map(|i| if i == axis { R } else { P })
        .collect();
    let mut failure = None;
    let g = create_generic(
        rw,
        &[x],
        &[acc],
        vec![identity(n), out_map],
        &iters,
        loc,
        |rw, a| match body(rw, a[1], a[0]) {
            Ok(v) => vec![v],
            Err(e) => {
                failure = Some(e);
                vec![a[1]]
            }
        },
    );
    match failure {
        Some(e) => Err(e),
        None => Ok(rw.result(g, 0)),
    }
}

/// `f(x, r)` elementwise, `r` being a reduction of `x` over `axis` read back along it.
pub(crate) fn with_reduced(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    r: Value,
    axis: usize,
    loc: Location,
    f: impl FnOnce(&mut PatternRewriter<'_>, Value, Value) -> Result<Value, String>,
) -> Result<Value, String> {
    let (s, elem) = static_type(rw, x)?;
    let n = s.len() as u32;
    let r_map = map(n, (0..n).filter(|&i| i as usize != axis).map(d).collect());
    let init = empty(rw, &s, elem, loc);
    let mut failure = None;
    let g = create_generic(
        rw,
        &[x, r],
        &[init],
        vec![identity(n), r_map, identity(n)],
        &vec![P; s.len()],
        loc,
        |rw, a| match f(rw, a[0], a[1]) {
            Ok(v) => vec![v],
            Err(e) => {
                failure = Some(e);
                vec![a[2]]
            }
        },
    );
    match failure {
        Some(e) => Err(e),
        None => Ok(rw.result(g, 0)),
    }
}

/// `Softmax(x, axis)`: `exp(x - max) / sum(exp(x - max))` along `axis`.
fn lower_softmax(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (s, elem) = result_type(rw, op)?;
    if !is_float(rw, elem) {
        return Err("expected a float tensor".to_string());
    }
    let x = operand(rw, op, 0)?;
    let axis = norm_axis(int_attr(rw, op, "axis", -1), s.len())?;
    if s.is_empty() {
        return Err("Softmax of a scalar is not lowered".to_string());
    }
    let m = reduce_axis(rw, x, axis, f64::NEG_INFINITY, loc, |rw, acc, v| {
        Ok(ar(rw, "arith.maximumf", &[acc, v], elem, loc))
    })?;
    let e = with_reduced(rw, x, m, axis, loc, |rw, v, m| {
        let t = ar(rw, "arith.subf", &[v, m], elem, loc);
        math(rw, "math.exp", t, loc)
    })?;
    let sum = reduce_axis(rw, e, axis, 0.0, loc, |rw, acc, v| {
        Ok(ar(rw, "arith.addf", &[acc, v], elem, loc))
    })?;
    let y = with_reduced(rw, e, sum, axis, loc, |rw, v, s| {
        Ok(ar(rw, "arith.divf", &[v, s], elem, loc))
    })?;
    Ok(vec![y])
}

// ----- data movement -----

/// Reshape, Flatten, Squeeze, Unsqueeze: the result type says the shape.
fn lower_reshape(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (s, _) = result_type(rw, op)?;
    let x = operand(rw, op, 0)?;
    Ok(vec![reshape(rw, x, &s, loc)?])
}

fn lower_transpose(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (s, _) = static_type(rw, x)?;
    let perm = ints_attr(rw, op, "perm").unwrap_or_else(|| (0..s.len() as i64).rev().collect());
    Ok(vec![transpose(rw, x, &perm, loc)?])
}

fn lower_concat(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (s, _) = result_type(rw, op)?;
    let ty = rw.value_type(rw.result(op, 0));
    let axis = norm_axis(int_attr(rw, op, "axis", 0), s.len())?;
    let inputs = rw.operands(op).to_vec();
    let i64t = rw.uniq().int_type(64);
    let dim = rw.uniq().int_attr(i64t, axis as i128);
    let st = OperationState::new(rw.uniq(), "tensor.concat", loc)
        .operands(&inputs)
        .results(&[ty])
        .prop(rw.uniq(), "dim", dim);
    let c = rw.create(st);
    Ok(vec![rw.result(c, 0)])
}

/// `BatchNormalization` in inference form: `x * a[c] + b[c]` with `a = scale / sqrt(var +
/// eps)` and `b = B - mean * a`, folded at compile time when the parameters are constants.
fn lower_batch_norm(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    if int_attr(rw, op, "training_mode", 0) != 0 {
        return pools_ops::lower_batch_norm_training(rw, op, loc);
    }
    let (s, elem) = result_type(rw, op)?;
    if s.len() < 2 || elem != rw.uniq().f32_type() {
        return Err("expected an f32 tensor of rank 2 or more".to_string());
    }
    let eps = float_attr(rw, op, "epsilon", 1e-5) as f32;
    let params: Vec<Value> = (1..5)
        .map(|i| operand(rw, op, i))
        .collect::<Result<_, _>>()?;
    let consts: Option<Vec<Vec<f32>>> = params.iter().map(|&v| constant_f32(rw, v)).collect();
    let x = operand(rw, op, 0)?;
    let n = s.len() as u32;
    let channel = map(n, vec![d(1)]);
    let c = s[1];
    let init = empty(rw, &s, elem, loc);
    let maps;
    let inputs;
    if let Some(p) = consts.filter(|p| p.iter().all(|v| v.len() == c as usize)) {
        let a: Vec<f32> = (0..c as usize)
            .map(|i| p[0][i] / (p[3][i] + eps).sqrt())
            .collect();
        let b: Vec<f32> = (0..c as usize).map(|i| p[1][i] - p[2][i] * a[i]).collect();
        let av = const_f32_tensor(rw, &[c], &a, loc);
        let bv = const_f32_tensor(rw, &[c], &b, loc);
        maps = vec![identity(n), channel.clone(), channel, identity(n)];
        inputs = vec![x, av, bv];
        let g = create_generic(
            rw,
            &inputs,
            &[init],
            maps,
            &vec![P; s.len()],
            loc,
            |rw, v| {
                let m = ar(rw, "arith.mulf", &[v[0], v[1]], elem, loc);
                vec![ar(rw, "arith.addf", &[m, v[2]], elem, loc)]
            },
        );
        return with_placeholders(rw, op, rw.result(g, 0), loc);
    }
    // Parameters computed at run time: (x - mean) / sqrt(var + eps) * scale + B.
    maps = vec![
        identity(n),
        channel.clone(),
        channel.clone(),
        channel.clone(),
        channel,
        identity(n),
    ];
    inputs = vec![x, params[0], params[1], params[2], params[3]];
    let mut failure = None;
    let g = create_generic(
        rw,
        &inputs,
        &[init],
        maps,
        &vec![P; s.len()],
        loc,
        |rw, v| {
            let e = scalar(rw, f64::from(eps), elem, loc);
            let ve = ar(rw, "arith.addf", &[v[4], e], elem, loc);
            let sd = match math(rw, "math.sqrt", ve, loc) {
                Ok(s) => s,
                Err(err) => {
                    failure = Some(err);
                    return vec![v[5]];
                }
            };
            let xm = ar(rw, "arith.subf", &[v[0], v[3]], elem, loc);
            let q = ar(rw, "arith.divf", &[xm, sd], elem, loc);
            let sc = ar(rw, "arith.mulf", &[q, v[1]], elem, loc);
            vec![ar(rw, "arith.addf", &[sc, v[2]], elem, loc)]
        },
    );
    if let Some(e) = failure {
        return Err(e);
    }
    with_placeholders(rw, op, rw.result(g, 0), loc)
}

/// `first`, then a placeholder for each further (unused) result of `op`.
pub(crate) fn with_placeholders(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    first: Value,
    loc: Location,
) -> Lowered {
    let mut values = vec![first];
    for i in 1..rw.results(op).len() {
        let r = rw.result(op, i);
        values.push(placeholder(rw, r, loc)?);
    }
    Ok(values)
}

/// A value of `r`'s type for an optional result nothing uses: `graph.none` for `none`, a
/// `tensor.empty` for a tensor.
pub(crate) fn placeholder(
    rw: &mut PatternRewriter<'_>,
    r: Value,
    loc: Location,
) -> Result<Value, String> {
    if rw.has_uses(r) {
        return Err("an optional result that is used is not lowered".to_string());
    }
    let ty = rw.value_type(r);
    if is_none(rw, r) {
        let st = OperationState::new(rw.uniq(), "graph.none", loc).results(&[ty]);
        let n = rw.create(st);
        return Ok(rw.result(n, 0));
    }
    let (s, e) = static_type(rw, r)?;
    Ok(empty(rw, &s, e, loc))
}

/// `graph.constant` becomes `arith.constant` of the same value.
fn lower_constant(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let value = rw.attr(op, "value").ok_or("expected a 'value' attribute")?;
    let ty = rw.value_type(rw.result(op, 0));
    if rw.typed_attr_type(value) != Some(ty) {
        return Err("the value's type differs from the result type".to_string());
    }
    let st = nart_dialect_arith::constant_state(rw.uniq(), value, ty, loc);
    let c = rw.create(st);
    Ok(vec![rw.result(c, 0)])
}

macro_rules! lowerings {
    ($($root:literal => $name:literal, $f:path;)*) => {
        /// The patterns of `convert-graph-to-linalg`.
        pub fn patterns() -> ConversionPatternSet {
            let mut set = ConversionPatternSet::new();
            $(set.add(Lowering { name: $name, root: $root, lower: $f });)*
            set
        }

        /// The graph ops `convert-graph-to-linalg` lowers.
        pub const LOWERED_OPS: &[&str] = &[$($root),*];
    };
}

lowerings! {
    "graph.Add" => "AddLowering", lower_add;
    "graph.Sub" => "SubLowering", lower_sub;
    "graph.Mul" => "MulLowering", lower_mul;
    "graph.Div" => "DivLowering", lower_div;
    "graph.Relu" => "ReluLowering", lower_relu;
    "graph.LeakyRelu" => "LeakyReluLowering", lower_leaky_relu;
    "graph.Clip" => "ClipLowering", lower_clip;
    "graph.Sigmoid" => "SigmoidLowering", lower_sigmoid;
    "graph.Tanh" => "TanhLowering", lower_tanh;
    "graph.Exp" => "ExpLowering", lower_exp;
    "graph.Erf" => "ErfLowering", lower_erf;
    "graph.MatMul" => "MatMulLowering", lower_matmul;
    "graph.fused_matmul" => "FusedMatMulLowering", lower_matmul;
    "graph.Gemm" => "GemmLowering", lower_gemm;
    "graph.fused_gemm" => "FusedGemmLowering", lower_gemm;
    "graph.Conv" => "ConvLowering", lower_conv;
    "graph.fused_conv" => "FusedConvLowering", lower_conv;
    "graph.MaxPool" => "MaxPoolLowering", pools_ops::lower_max_pool;
    "graph.AveragePool" => "AveragePoolLowering", pools_ops::lower_average_pool;
    "graph.GlobalAveragePool" => "GlobalAveragePoolLowering", lower_global_average_pool;
    "graph.Softmax" => "SoftmaxLowering", lower_softmax;
    "graph.LogSoftmax" => "LogSoftmaxLowering", keya_ops::lower_log_softmax;
    "graph.Mod" => "ModLowering", keya_ops::lower_mod;
    "graph.Resize" => "ResizeLowering", keya_ops::lower_resize;
    "graph.ConvTranspose" => "ConvTransposeLowering", keya_ops::lower_conv_transpose;
    "graph.Reshape" => "ReshapeLowering", lower_reshape;
    "graph.Flatten" => "FlattenLowering", lower_reshape;
    "graph.Squeeze" => "SqueezeLowering", lower_reshape;
    "graph.Unsqueeze" => "UnsqueezeLowering", lower_reshape;
    "graph.Transpose" => "TransposeLowering", lower_transpose;
    "graph.Concat" => "ConcatLowering", lower_concat;
    "graph.BatchNormalization" => "BatchNormalizationLowering", lower_batch_norm;
    "graph.constant" => "ConstantLowering", lower_constant;
    "graph.Sqrt" => "SqrtLowering", pointwise::lower_sqrt;
    "graph.Floor" => "FloorLowering", pointwise::lower_floor;
    "graph.Ceil" => "CeilLowering", pointwise::lower_ceil;
    "graph.Round" => "RoundLowering", pointwise::lower_round;
    "graph.Log" => "LogLowering", pointwise::lower_log;
    "graph.Reciprocal" => "ReciprocalLowering", pointwise::lower_reciprocal;
    "graph.Neg" => "NegLowering", pointwise::lower_neg;
    "graph.Abs" => "AbsLowering", pointwise::lower_abs;
    "graph.Sign" => "SignLowering", pointwise::lower_sign;
    "graph.Pow" => "PowLowering", pointwise::lower_pow;
    "graph.Gelu" => "GeluLowering", pointwise::lower_gelu;
    "graph.HardSigmoid" => "HardSigmoidLowering", pointwise::lower_hard_sigmoid;
    "graph.HardSwish" => "HardSwishLowering", pointwise::lower_hard_swish;
    "graph.Cast" => "CastLowering", pointwise::lower_cast;
    "graph.Equal" => "EqualLowering", pointwise::lower_equal;
    "graph.Less" => "LessLowering", pointwise::lower_less;
    "graph.LessOrEqual" => "LessOrEqualLowering", pointwise::lower_less_or_equal;
    "graph.Greater" => "GreaterLowering", pointwise::lower_greater;
    "graph.GreaterOrEqual" => "GreaterOrEqualLowering", pointwise::lower_greater_or_equal;
    "graph.Where" => "WhereLowering", pointwise::lower_where;
    "graph.Not" => "NotLowering", pointwise::lower_not;
    "graph.And" => "AndLowering", pointwise::lower_and;
    "graph.Or" => "OrLowering", pointwise::lower_or;
    "graph.Xor" => "XorLowering", pointwise::lower_xor;
    "graph.Max" => "MaxLowering", pointwise::lower_max;
    "graph.Min" => "MinLowering", pointwise::lower_min;
    "graph.Sum" => "SumLowering", pointwise::lower_sum;
    "graph.Mean" => "MeanLowering", pointwise::lower_mean;
    "graph.Identity" => "IdentityLowering", pointwise::lower_identity;
    "graph.ReduceSum" => "ReduceSumLowering", reduce::lower_reduce_sum;
    "graph.ReduceMean" => "ReduceMeanLowering", reduce::lower_reduce_mean;
    "graph.ReduceMax" => "ReduceMaxLowering", reduce::lower_reduce_max;
    "graph.ReduceMin" => "ReduceMinLowering", reduce::lower_reduce_min;
    "graph.ReduceProd" => "ReduceProdLowering", reduce::lower_reduce_prod;
    "graph.ReduceL1" => "ReduceL1Lowering", reduce::lower_reduce_l1;
    "graph.ReduceL2" => "ReduceL2Lowering", reduce::lower_reduce_l2;
    "graph.ReduceLogSum" => "ReduceLogSumLowering", reduce::lower_reduce_log_sum;
    "graph.ReduceLogSumExp" => "ReduceLogSumExpLowering", reduce::lower_reduce_log_sum_exp;
    "graph.ReduceSumSquare" => "ReduceSumSquareLowering", reduce::lower_reduce_sum_square;
    "graph.ArgMax" => "ArgMaxLowering", reduce::lower_arg_max;
    "graph.ArgMin" => "ArgMinLowering", reduce::lower_arg_min;
    "graph.LayerNormalization" => "LayerNormalizationLowering", reduce::lower_layer_norm;
    "graph.Gather" => "GatherLowering", indexing::lower_gather;
    "graph.Expand" => "ExpandLowering", indexing::lower_expand;
    "graph.Slice" => "SliceLowering", indexing::lower_slice;
    "graph.Split" => "SplitLowering", indexing::lower_split;
    "graph.Pad" => "PadLowering", indexing::lower_pad;
    "graph.GatherElements" => "GatherElementsLowering", keyb_ops::lower_gather_elements;
    "graph.Shape" => "ShapeLowering", keyb_ops::lower_shape;
    "graph.ConstantOfShape" => "ConstantOfShapeLowering", keyb_ops::lower_constant_of_shape;
    "graph.Range" => "RangeLowering", keyb_ops::lower_range;
    "graph.Einsum" => "EinsumLowering", keyb_ops::lower_einsum;
    "graph.TopK" => "TopKLowering", keyb_ops::lower_top_k;
    "graph.QuantizeLinear" => "QuantizeLinearLowering", intq_ops::lower_quantize_linear;
    "graph.DequantizeLinear" => "DequantizeLinearLowering", intq_ops::lower_dequantize_linear;
    "graph.DynamicQuantizeLinear" => "DynamicQuantizeLinearLowering", intq_ops::lower_dynamic_quantize_linear;
    "graph.MatMulInteger" => "MatMulIntegerLowering", intq_ops::lower_matmul_integer;
    "graph.QLinearMatMul" => "QLinearMatMulLowering", intq_ops::lower_qlinear_matmul;
    "graph.ConvInteger" => "ConvIntegerLowering", intq_ops::lower_conv_integer;
    "graph.QLinearConv" => "QLinearConvLowering", intq_ops::lower_qlinear_conv;
}

nart_pass::declare_pass! {
    /// The `convert-graph-to-linalg` pass.
    pub struct ConvertGraphToLinalgPass {
        argument: "convert-graph-to-linalg",
        name: "ConvertGraphToLinalg",
        summary: "Lower graph ops on static shapes to linalg, tensor and arith ops",
        description: "Rewrites the graph ops of a function into structured ops on tensors: \
            elementwise ops (with ONNX broadcasting in the indexing maps), MatMul (with \
            broadcast batches), Gemm, Conv (pads, strides, dilations, groups), pooling (any \
            spatial rank, MaxPool indices), Softmax, \
            reductions, ArgMax/ArgMin, LayerNormalization, reshapes, Transpose, Concat, Gather, \
            Slice, Split, Pad (every mode), Expand, LogSoftmax, Mod, Resize (constant scales \
            or sizes), ConvTranspose (1-3 spatial dimensions), GatherElements, Shape, \
            ConstantOfShape, Range, Einsum, TopK, BatchNormalization (inference and training), \
            the fused graph ops, constants, and ONNX's quantization ops (QuantizeLinear, \
            DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, ConvInteger, QLinearMatMul, \
            QLinearConv, bit for bit as the interpreter). Unsigned integer tensors become \
            signless ones, the function's signature included, with the unsigned arith ops. It \
            is a dialect \
            conversion with every graph op illegal: when an op cannot be lowered, each such op \
            is reported at its location with the reason and the function is left unchanged.",
        statistics: [
            "LoweredOps" => "Number of graph ops lowered",
        ],
    }
}

impl Pass for ConvertGraphToLinalgPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let mut target = ConversionTarget::new();
        target
            .add_legal_dialect("linalg")
            .add_legal_dialect("tensor")
            .add_legal_dialect("arith")
            .add_legal_dialect("math")
            .add_legal_dialect("func")
            .add_illegal_dialect("graph")
            .add_legal_op("graph.none");
        let patterns = patterns();
        let types = intq_ops::type_converter();
        match apply_partial_conversion(ctx, op, &target, &patterns, Some(&types)) {
            Ok(res) => {
                state.add_stat("LoweredOps", res.num_pattern_applications() as u64);
                erase_unused_none(ctx, op);
                intq_ops::signless_signature(ctx, op);
                Ok(())
            }
            Err(e) => Err(PassFailure::with_diagnostics(e.diagnostics)),
        }
    }
}

/// Erases the `graph.none` ops that nothing uses any more.
fn erase_unused_none(ctx: &mut Context, root: Op) {
    let dead: Vec<Op> = ctx
        .nested_ops(root)
        .into_iter()
        .filter(|&o| ctx.op_name_str(o) == "graph.none" && ctx.op_results_unused(o))
        .collect();
    let mut rw = PatternRewriter::new(ctx);
    for o in dead {
        rw.erase_op(o);
    }
}

#[cfg(test)]
mod tests {
    use super::permuted;

    #[test]
    fn constants_are_permuted_as_linalg_transpose_would() {
        // 2x3 -> 3x2.
        let v = [1., 2., 3., 4., 5., 6.];
        assert_eq!(permuted(&v, &[2, 3], &[1, 0]), [1., 4., 2., 5., 3., 6.]);
        // 2x3x4 by (2, 0, 1): out[k][i][j] = in[i][j][k].
        let v: Vec<f32> = (0..24).map(|x| x as f32).collect();
        let out = permuted(&v, &[2, 3, 4], &[2, 0, 1]);
        for k in 0..4 {
            for i in 0..2 {
                for j in 0..3 {
                    assert_eq!(out[k * 6 + i * 3 + j], v[i * 12 + j * 4 + k]);
                }
            }
        }
        // The identity and rank 0 leave the data as it is.
        assert_eq!(permuted(&v, &[2, 3, 4], &[0, 1, 2]), v);
        assert_eq!(permuted(&[7.], &[], &[]), [7.]);
    }
}
