//! Kernels of the operators added after opset 21: Attention (opsets 23 to 25, with KV cache,
//! grouped heads, boolean and additive masks, causal and sliding-window masking, external-cache
//! lengths, soft cap, softmax precision and every `qk_matmul_output` mode), RMSNormalization,
//! RotaryEmbedding, Swish, SwiGLU, CumProd, BitCast, TensorScatter, LinearAttention and
//! CausalConvWithState.
//!
//! Float kernels compute in f64; where ONNX's reference rounds an intermediate to the input type
//! (Attention's scaled inputs, scores and probabilities), the kernel rounds at the same points, so
//! 16-bit results agree with the reference to the last bit in most cases.

use nart_tensor::attention::{self, RotaryAttrs};
use nart_tensor::layout::norm_axis;
use nart_tensor::{norm, DType, KernelError, Result as KResult, Tensor};

use super::{one, opt, req, TensorKernel};
use crate::attrs::Node;

/// The kernel of an operator newer than opset 21.
pub(super) fn lookup(name: &str) -> Option<TensorKernel> {
    Some(match name {
        "Attention" => attention_kernel,
        "RMSNormalization" => |n, i| {
            one(norm::rms_norm(
                req(n, i, 0)?,
                req(n, i, 1)?,
                n.int_or("axis", -1)?,
                n.float_or("epsilon", 1e-5)? as f32,
            )?)
        },
        "RotaryEmbedding" => |n, i| {
            let heads = n.int_or("num_heads", 0)?;
            let rot = n.int_or("rotary_embedding_dim", 0)?;
            let a = RotaryAttrs {
                interleaved: n.int_or("interleaved", 0)? != 0,
                rotary_embedding_dim: usize::try_from(rot).map_err(|_| {
                    KernelError::attr(n.onnx, "rotary_embedding_dim", "must not be negative")
                })?,
                num_heads: usize::try_from(heads).ok().filter(|&h| h > 0),
            };
            one(attention::rotary_embedding(
                req(n, i, 0)?,
                req(n, i, 1)?,
                req(n, i, 2)?,
                opt(i, 3),
                &a,
            )?)
        },
        "Swish" => swish,
        "SwiGLU" => swiglu,
        "CumProd" => cumprod,
        "BitCast" => bitcast,
        "TensorScatter" => tensor_scatter,
        "LinearAttention" => linear_attention,
        "CausalConvWithState" => causal_conv,
        _ => return None,
    })
}

/// Rounds `x` to the precision of `dt` (identity for f64 and non-float types).
fn rnd(dt: DType, x: f64) -> f64 {
    match dt {
        DType::F32 => x as f32 as f64,
        DType::F16 => half::f16::from_f64(x).to_f64(),
        DType::BF16 => half::bf16::from_f64(x).to_f64(),
        _ => x,
    }
}

fn float_in(op: &'static str, t: &Tensor) -> KResult<Vec<f64>> {
    if !t.dtype().is_float() {
        return Err(KernelError::dtype(op, t.dtype()));
    }
    t.to_f64_vec()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn swish(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let x = req(n, i, 0)?;
    let alpha = n.float_or("alpha", 1.0)?;
    let dt = x.dtype();
    let alpha = rnd(dt, alpha);
    let v: Vec<f64> = float_in("Swish", x)?
        .into_iter()
        .map(|a| rnd(dt, a * rnd(dt, sigmoid(rnd(dt, alpha * a)))))
        .collect();
    one(Tensor::from_f64(dt, x.shape().to_vec(), v)?)
}

fn swiglu(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "SwiGLU";
    let a = req(n, i, 0)?;
    let b = req(n, i, 1)?;
    if a.shape() != b.shape() || a.dtype() != b.dtype() {
        return Err(KernelError::shape(
            OP,
            format!(
                "A and B must have the same shape and type, got {:?} and {:?}",
                a.shape(),
                b.shape()
            ),
        ));
    }
    let dt = a.dtype();
    let alpha = rnd(dt, n.float_or("alpha", 1.0)?);
    let av = float_in(OP, a)?;
    let bv = float_in(OP, b)?;
    let v = av
        .iter()
        .zip(&bv)
        .map(|(&x, &y)| rnd(dt, rnd(dt, x * rnd(dt, sigmoid(rnd(dt, alpha * x)))) * y))
        .collect();
    one(Tensor::from_f64(dt, a.shape().to_vec(), v)?)
}

fn cumprod(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "CumProd";
    let x = req(n, i, 0)?;
    let axis = req(n, i, 1)?
        .to_i64_vec()?
        .first()
        .copied()
        .ok_or_else(|| KernelError::shape(OP, "axis must hold one value"))?;
    let exclusive = n.int_or("exclusive", 0)? != 0;
    let reverse = n.int_or("reverse", 0)? != 0;
    let s = x.shape().to_vec();
    let ax = norm_axis(OP, axis, s.len().max(1))?;
    let len = s.get(ax).copied().unwrap_or(1);
    let inner: usize = s.iter().skip(ax + 1).product();
    let outer: usize = s.iter().take(ax).product();
    // Visits every line along the axis in scan order, calling `f(src, dst_or_none)`.
    let order = |o: usize, k: usize| {
        let j = if reverse { len - 1 - k } else { k };
        o / inner * len * inner + j * inner + o % inner
    };
    if x.dtype().is_float() {
        let v = x.to_f64_vec()?;
        let mut out = vec![0.0; v.len()];
        for o in 0..outer * inner {
            let mut acc = 1.0f64;
            for k in 0..len {
                let idx = order(o, k);
                if exclusive {
                    out[idx] = acc;
                    acc = rnd(x.dtype(), acc * v[idx]);
                } else {
                    acc = rnd(x.dtype(), acc * v[idx]);
                    out[idx] = acc;
                }
            }
        }
        one(Tensor::from_f64(x.dtype(), s, out)?)
    } else if x.dtype().is_int() {
        let v = x.to_i128_vec()?;
        let mut out = vec![0i128; v.len()];
        for o in 0..outer * inner {
            let mut acc = 1i128;
            for k in 0..len {
                let idx = order(o, k);
                if exclusive {
                    out[idx] = acc;
                    acc = x.dtype().wrap_int(acc.wrapping_mul(v[idx]));
                } else {
                    acc = x.dtype().wrap_int(acc.wrapping_mul(v[idx]));
                    out[idx] = acc;
                }
            }
        }
        one(Tensor::from_i128(x.dtype(), s, out)?)
    } else {
        Err(KernelError::dtype(OP, x.dtype()))
    }
}

fn bitcast(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "BitCast";
    let x = req(n, i, 0)?;
    let to = n.int("to")?;
    let dt = DType::from_onnx_code(to as i32)
        .ok_or_else(|| KernelError::attr(OP, "to", format!("unknown type code {to}")))?;
    if dt == DType::String || x.dtype() == DType::String {
        return Err(KernelError::dtype(OP, DType::String));
    }
    if dt.bit_width() != x.dtype().bit_width() {
        return Err(KernelError::attr(
            OP,
            "to",
            format!(
                "{} and {} have different bit widths",
                x.dtype().name(),
                dt.name()
            ),
        ));
    }
    let bytes = x.to_raw_bytes()?;
    one(Tensor::from_raw_bytes(dt, x.shape().to_vec(), &bytes)?)
}

fn tensor_scatter(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "TensorScatter";
    let cache = req(n, i, 0)?;
    let update = req(n, i, 1)?;
    let cs = cache.shape().to_vec();
    let us = update.shape().to_vec();
    if cs.len() != us.len() || cs.is_empty() {
        return Err(KernelError::shape(
            OP,
            "past_cache and update must have the same rank",
        ));
    }
    let ax = norm_axis(OP, n.int_or("axis", -2)?, cs.len())?;
    if ax == 0 {
        return Err(KernelError::attr(OP, "axis", "must not be the batch axis"));
    }
    for d in 0..cs.len() {
        if (d != ax && cs[d] != us[d]) || (d == ax && us[d] > cs[d]) {
            return Err(KernelError::shape(
                OP,
                format!("update {us:?} does not fit past_cache {cs:?}"),
            ));
        }
    }
    let circular = match n.str_or("mode", "linear")?.as_str() {
        "linear" => false,
        "circular" => true,
        m => return Err(KernelError::attr(OP, "mode", format!("unknown mode '{m}'"))),
    };
    let writes = match opt(i, 2) {
        Some(w) => w.to_i64_vec()?,
        None => vec![0; cs[0]],
    };
    let max_len = cs[ax];
    let inner: usize = cs[ax + 1..].iter().product();
    let outer: usize = cs[..ax].iter().product();
    let per_batch = outer / cs[0].max(1);
    let cv = cache.to_f64_vec_or_raw()?;
    let uv = update.to_f64_vec_or_raw()?;
    let mut out = cv.clone();
    for o in 0..outer {
        let b = o / per_batch.max(1);
        let start = writes.get(b).copied().unwrap_or(0);
        for s in 0..us[ax] {
            let mut pos = start + s as i64;
            if circular {
                pos = pos.rem_euclid(max_len as i64);
            }
            if pos < 0 || pos as usize >= max_len {
                return Err(KernelError::shape(
                    OP,
                    format!("write position {pos} is outside the cache of length {max_len}"),
                ));
            }
            let dst = (o * max_len + pos as usize) * inner;
            let src = (o * us[ax] + s) * inner;
            out.copy_range(&uv, src, dst, inner);
        }
    }
    one(out.into_tensor(cache.dtype(), cs)?)
}

/// Element storage for the copy-only kernels: f64 for floats and i128 for integers and booleans
/// (both exact for every type they hold).
#[derive(Clone)]
enum Elems {
    F(Vec<f64>),
    I(Vec<i128>),
}

impl Elems {
    fn copy_range(&mut self, src: &Elems, from: usize, to: usize, len: usize) {
        match (self, src) {
            (Elems::F(d), Elems::F(s)) => d[to..to + len].copy_from_slice(&s[from..from + len]),
            (Elems::I(d), Elems::I(s)) => d[to..to + len].copy_from_slice(&s[from..from + len]),
            _ => {}
        }
    }

    fn into_tensor(self, dt: DType, shape: Vec<usize>) -> KResult<Tensor> {
        match self {
            Elems::F(v) => Tensor::from_f64(dt, shape, v),
            Elems::I(v) => Tensor::from_i128(dt, shape, v),
        }
    }
}

trait ToElems {
    fn to_f64_vec_or_raw(&self) -> KResult<Elems>;
}

impl ToElems for Tensor {
    fn to_f64_vec_or_raw(&self) -> KResult<Elems> {
        if self.dtype().is_float() {
            Ok(Elems::F(self.to_f64_vec()?))
        } else {
            Ok(Elems::I(self.to_i128_vec()?))
        }
    }
}

/// `[b, s, h * d]` (3-D) or `[b, h, s, d]` (4-D) as `[b, h, s, d]` values.
fn to_bhsd(
    op: &'static str,
    t: &Tensor,
    heads: Option<usize>,
    attr: &'static str,
) -> KResult<([usize; 4], Vec<f64>)> {
    let s = t.shape();
    let v = float_in(op, t)?;
    match s.len() {
        4 => Ok(([s[0], s[1], s[2], s[3]], v)),
        3 => {
            let h = heads.filter(|&h| h > 0 && s[2] % h == 0).ok_or_else(|| {
                KernelError::attr(
                    op,
                    attr,
                    "3-D inputs need a head count dividing the hidden size",
                )
            })?;
            let (b, n, d) = (s[0], s[1], s[2] / h);
            let mut out = vec![0.0; v.len()];
            for bi in 0..b {
                for si in 0..n {
                    for hi in 0..h {
                        let src = (bi * n + si) * h * d + hi * d;
                        let dst = ((bi * h + hi) * n + si) * d;
                        out[dst..dst + d].copy_from_slice(&v[src..src + d]);
                    }
                }
            }
            Ok(([b, h, n, d], out))
        }
        _ => Err(KernelError::shape(
            op,
            format!("inputs must be 3-D or 4-D, got {s:?}"),
        )),
    }
}

/// `[b, h, s, d]` values back to `[b, s, h * d]`.
fn from_bhsd(shape: [usize; 4], v: &[f64]) -> Vec<f64> {
    let [b, h, n, d] = shape;
    let mut out = vec![0.0; v.len()];
    for bi in 0..b {
        for hi in 0..h {
            for si in 0..n {
                let src = ((bi * h + hi) * n + si) * d;
                let dst = (bi * n + si) * h * d + hi * d;
                out[dst..dst + d].copy_from_slice(&v[src..src + d]);
            }
        }
    }
    out
}

fn concat_cache(
    op: &'static str,
    past: Option<&Tensor>,
    new: ([usize; 4], Vec<f64>),
) -> KResult<([usize; 4], Vec<f64>)> {
    let Some(past) = past else {
        return Ok(new);
    };
    let ps = past.shape();
    let (ns, nv) = new;
    if ps.len() != 4 || ps[0] != ns[0] || ps[1] != ns[1] || ps[3] != ns[3] {
        return Err(KernelError::shape(
            op,
            format!("past cache {ps:?} does not fit new entries {ns:?}"),
        ));
    }
    let pv = float_in(op, past)?;
    let (p, d) = (ps[2], ns[3]);
    let total = p + ns[2];
    let mut out = Vec::with_capacity(ns[0] * ns[1] * total * d);
    for bh in 0..ns[0] * ns[1] {
        out.extend_from_slice(&pv[bh * p * d..(bh + 1) * p * d]);
        out.extend_from_slice(&nv[bh * ns[2] * d..(bh + 1) * ns[2] * d]);
    }
    Ok(([ns[0], ns[1], total, d], out))
}

fn attention_kernel(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "Attention";
    let q = req(n, i, 0)?;
    let k = req(n, i, 1)?;
    let v = req(n, i, 2)?;
    let mask = opt(i, 3);
    let past_k = opt(i, 4);
    let past_v = opt(i, 5);
    let nonpad = opt(i, 6).map(|t| t.to_i64_vec()).transpose()?;
    if past_k.is_some() != past_v.is_some() {
        return Err(KernelError::shape(
            OP,
            "past_key and past_value must be given together",
        ));
    }
    let dt = q.dtype();
    let qh = n
        .opt_int("q_num_heads")?
        .and_then(|h| usize::try_from(h).ok());
    let kvh = n
        .opt_int("kv_num_heads")?
        .and_then(|h| usize::try_from(h).ok());
    let three_d = q.rank() == 3;
    let (qs, qv) = to_bhsd(OP, q, qh, "q_num_heads")?;
    let (ks, kv) = to_bhsd(OP, k, kvh, "kv_num_heads")?;
    let (vs, vv) = to_bhsd(OP, v, kvh, "kv_num_heads")?;
    if ks[2] != vs[2] || ks[1] != vs[1] || qs[0] != ks[0] || qs[3] != ks[3] {
        return Err(KernelError::shape(
            OP,
            format!("Q {qs:?}, K {ks:?} and V {vs:?} do not fit together"),
        ));
    }
    let past_len = past_k.map_or(0, |p| p.shape().get(2).copied().unwrap_or(0));
    let (ks, kv) = concat_cache(OP, past_k, (ks, kv))?;
    let (vs, vv) = concat_cache(OP, past_v, (vs, vv))?;
    let [b, hq, sq, d] = qs;
    let hk = ks[1];
    let total = ks[2];
    let dv = vs[3];
    if hk == 0 || hq % hk != 0 {
        return Err(KernelError::shape(
            OP,
            format!("{hq} query heads cannot share {hk} key/value heads"),
        ));
    }
    let reps = hq / hk;
    let scale = match n.opt_float("scale")? {
        Some(s) => s as f32 as f64,
        None => 1.0 / (d as f64).sqrt(),
    };
    let sc = rnd(dt, scale.sqrt());
    let softcap = n.float_or("softcap", 0.0)? as f32 as f64;
    let causal = n.int_or("is_causal", 0)? != 0;
    let mode = n.int_or("qk_matmul_output_mode", 0)?;
    let left = n.int_or("left_window_size", -1)?;
    let right = n.int_or("right_window_size", -1)?;
    let sm_dt = match n.opt_int("softmax_precision")? {
        Some(c) if c != 0 => DType::from_onnx_code(c as i32).ok_or_else(|| {
            KernelError::attr(OP, "softmax_precision", format!("unknown type code {c}"))
        })?,
        _ => dt,
    };
    // The mask, right-aligned to [b, hq, sq, total]; a shorter last dimension is padded with
    // disallowed positions.
    let mask_info = match mask {
        None => None,
        Some(m) => {
            let ms = m.shape().to_vec();
            if ms.is_empty() || ms.len() > 4 {
                return Err(KernelError::shape(
                    OP,
                    format!("attn_mask must have rank 1 to 4, got {ms:?}"),
                ));
            }
            let mut m4 = vec![1usize; 4 - ms.len()];
            m4.extend_from_slice(&ms);
            let want = [b, hq, sq, total];
            for a in 0..3 {
                if m4[a] != 1 && m4[a] != want[a] {
                    return Err(KernelError::shape(
                        OP,
                        format!("attn_mask {ms:?} does not broadcast to {want:?}"),
                    ));
                }
            }
            if m4[3] > total {
                return Err(KernelError::shape(
                    OP,
                    format!("attn_mask {ms:?} is longer than the {total} keys"),
                ));
            }
            let vals: Vec<f64> = if m.dtype() == DType::Bool {
                m.to_bool_vec()?
                    .into_iter()
                    .map(|a| if a { 0.0 } else { f64::NEG_INFINITY })
                    .collect()
            } else {
                float_in(OP, m)?
            };
            Some((m4, vals))
        }
    };
    let offset = |bi: usize| -> i64 {
        if past_k.is_some() {
            past_len as i64
        } else if let Some(np) = &nonpad {
            np.get(bi).copied().unwrap_or(total as i64) - sq as i64
        } else {
            0
        }
    };
    let mut y = vec![0.0; b * hq * sq * dv];
    let mut qk_out = vec![0.0; b * hq * sq * total];
    let mut scores = vec![0.0; total];
    let mut bias = vec![0.0; total];
    let qs_scaled: Vec<f64> = qv.iter().map(|&a| rnd(dt, a * sc)).collect();
    let ks_scaled: Vec<f64> = kv.iter().map(|&a| rnd(dt, a * sc)).collect();
    for bi in 0..b {
        let off = offset(bi);
        let valid = nonpad.as_ref().map_or(total as i64, |np| {
            np.get(bi).copied().unwrap_or(total as i64)
        });
        for h in 0..hq {
            let kh = h / reps;
            for qi in 0..sq {
                // Additive bias of this row.
                for (j, bj) in bias.iter_mut().enumerate() {
                    let mut x = 0.0;
                    if let Some((m4, vals)) = &mask_info {
                        if j >= m4[3] {
                            x = f64::NEG_INFINITY;
                        } else {
                            let idx = [bi, h, qi, j];
                            let mut flat = 0;
                            for a in 0..4 {
                                flat = flat * m4[a] + if m4[a] == 1 { 0 } else { idx[a] };
                            }
                            x = vals[flat];
                        }
                    }
                    let p = qi as i64 + off;
                    let jj = j as i64;
                    if causal && jj > p {
                        x = f64::NEG_INFINITY;
                    }
                    if left >= 0 && p - jj > left {
                        x = f64::NEG_INFINITY;
                    }
                    if right >= 0 && jj - p > right {
                        x = f64::NEG_INFINITY;
                    }
                    if jj >= valid {
                        x = f64::NEG_INFINITY;
                    }
                    *bj = rnd(dt, x);
                }
                let qrow = &qs_scaled[((bi * hq + h) * sq + qi) * d..][..d];
                for (j, s) in scores.iter_mut().enumerate() {
                    let krow = &ks_scaled[((bi * hk + kh) * total + j) * d..][..d];
                    let dot: f64 = qrow.iter().zip(krow).map(|(a, c)| a * c).sum();
                    let mut x = rnd(dt, dot);
                    if softcap > 0.0 {
                        x = rnd(dt, rnd(dt, rnd(dt, x / softcap).tanh()) * softcap);
                    }
                    *s = x;
                }
                let out_row = &mut qk_out[((bi * hq + h) * sq + qi) * total..][..total];
                if mode == 0 || mode == 1 {
                    out_row.copy_from_slice(&scores);
                }
                for (s, bj) in scores.iter_mut().zip(&bias) {
                    *s = rnd(sm_dt, rnd(dt, *s + bj));
                }
                if mode == 2 {
                    out_row.copy_from_slice(&scores);
                }
                // Softmax; a row whose bias masks every key is all zeros.
                let all_masked = bias.iter().all(|&x| x == f64::NEG_INFINITY);
                if all_masked {
                    scores.iter_mut().for_each(|s| *s = 0.0);
                } else {
                    let mx = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    let mx = if mx == f64::NEG_INFINITY { 0.0 } else { mx };
                    // numpy sums 16-bit floats in f32, but bfloat16 (ml_dtypes) one rounded
                    // addition at a time.
                    let mut sum = 0.0;
                    for s in scores.iter_mut() {
                        *s = rnd(sm_dt, rnd(sm_dt, *s - mx).exp());
                        sum = match sm_dt {
                            DType::BF16 => rnd(sm_dt, sum + *s),
                            DType::F64 => sum + *s,
                            _ => rnd(DType::F32, sum + *s),
                        };
                    }
                    let sum = rnd(sm_dt, sum);
                    let sum = if sum == 0.0 { 1.0 } else { sum };
                    for s in scores.iter_mut() {
                        *s = rnd(dt, rnd(sm_dt, *s / sum));
                    }
                }
                if mode == 3 {
                    out_row.copy_from_slice(&scores);
                }
                let yrow = &mut y[((bi * hq + h) * sq + qi) * dv..][..dv];
                for (j, &p) in scores.iter().enumerate() {
                    if p == 0.0 {
                        continue;
                    }
                    let vrow = &vv[((bi * hk + kh) * total + j) * dv..][..dv];
                    for (o, &x) in yrow.iter_mut().zip(vrow) {
                        *o += p * x;
                    }
                }
                yrow.iter_mut().for_each(|o| *o = rnd(dt, *o));
            }
        }
    }
    let y = if three_d {
        Tensor::from_f64(dt, vec![b, sq, hq * dv], from_bhsd([b, hq, sq, dv], &y))?
    } else {
        Tensor::from_f64(dt, vec![b, hq, sq, dv], y)?
    };
    Ok(vec![
        y,
        Tensor::from_f64(k.dtype(), ks.to_vec(), kv)?,
        Tensor::from_f64(v.dtype(), vs.to_vec(), vv)?,
        Tensor::from_f64(dt, vec![b, hq, sq, total], qk_out)?,
    ])
}

/// SpaceToDepth in `CRD` order (opset 28): output channel `(c * b + bh) * b + bw`.
pub(super) fn space_to_depth_crd(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "SpaceToDepth";
    let x = req(n, i, 0)?;
    let bs = usize::try_from(n.int("blocksize")?).unwrap_or(0);
    let s = x.shape();
    if s.len() != 4 || bs == 0 || s[2] % bs != 0 || s[3] % bs != 0 {
        return Err(KernelError::shape(
            OP,
            format!("input {s:?} must be 4-D with H and W divisible by blocksize {bs}"),
        ));
    }
    let (b, c, h, w) = (s[0], s[1], s[2], s[3]);
    let (ho, wo) = (h / bs, w / bs);
    let src = x.to_f64_vec_or_raw()?;
    let mut idx = Vec::with_capacity(x.len());
    for bi in 0..b {
        for ci in 0..c {
            for bh in 0..bs {
                for bw in 0..bs {
                    for y in 0..ho {
                        for xx in 0..wo {
                            idx.push(((bi * c + ci) * h + y * bs + bh) * w + xx * bs + bw);
                        }
                    }
                }
            }
        }
    }
    let out = match src {
        Elems::F(v) => Elems::F(idx.iter().map(|&k| v[k]).collect()),
        Elems::I(v) => Elems::I(idx.iter().map(|&k| v[k]).collect()),
    };
    one(out.into_tensor(x.dtype(), vec![b, c * bs * bs, ho, wo])?)
}

fn linear_attention(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "LinearAttention";
    let q = req(n, i, 0)?;
    let k = req(n, i, 1)?;
    let v = req(n, i, 2)?;
    let past = opt(i, 3);
    let decay = opt(i, 4);
    let beta = opt(i, 5);
    let rule = n.str_or("update_rule", "gated_delta")?;
    let (gating, delta) = match rule.as_str() {
        "linear" => (false, false),
        "gated" => (true, false),
        "delta" => (false, true),
        "gated_delta" => (true, true),
        r => {
            return Err(KernelError::attr(
                OP,
                "update_rule",
                format!("unknown rule '{r}'"),
            ))
        }
    };
    if gating != decay.is_some() || delta != beta.is_some() {
        return Err(KernelError::attr(
            OP,
            "update_rule",
            format!("rule '{rule}' does not match the decay and beta inputs given"),
        ));
    }
    let hq = usize::try_from(n.int("q_num_heads")?).unwrap_or(0);
    let hk = usize::try_from(n.int("kv_num_heads")?).unwrap_or(0);
    if hq == 0 || hk == 0 || hq % hk != 0 || q.rank() != 3 || k.rank() != 3 || v.rank() != 3 {
        return Err(KernelError::shape(
            OP,
            "needs rank-3 inputs and q_num_heads a multiple of kv_num_heads",
        ));
    }
    let (qs, qv) = to_bhsd(OP, q, Some(hq), "q_num_heads")?;
    let (ks, kv) = to_bhsd(OP, k, Some(hk), "kv_num_heads")?;
    let (vs, vv) = to_bhsd(OP, v, Some(hk), "kv_num_heads")?;
    let [b, _, t, dk] = qs;
    let dv = vs[3];
    if ks[3] != dk || ks[2] != t || vs[2] != t {
        return Err(KernelError::shape(OP, "query, key and value do not fit"));
    }
    let group = hq / hk;
    // decay: [b, t, hk] (per head) or [b, t, hk * dk] (per key feature).
    let dec = match decay {
        Some(d) => {
            let s = d.shape();
            let per_feature = match s.last() {
                Some(&l) if l == hk => false,
                Some(&l) if l == hk * dk => true,
                _ => {
                    return Err(KernelError::shape(
                        OP,
                        format!("decay {s:?} must end in kv_num_heads or kv_num_heads * d_k"),
                    ))
                }
            };
            Some((per_feature, float_in(OP, d)?))
        }
        None => None,
    };
    let bet = match beta {
        Some(bt) => {
            let last = bt.shape().last().copied().unwrap_or(1);
            Some((last, float_in(OP, bt)?))
        }
        None => None,
    };
    let state_dt = past.map_or(q.dtype(), Tensor::dtype);
    let mut state = match past {
        Some(p) => {
            if p.shape() != [b, hk, dk, dv] {
                return Err(KernelError::shape(
                    OP,
                    format!("past_state {:?} must be {:?}", p.shape(), [b, hk, dk, dv]),
                ));
            }
            float_in(OP, p)?
        }
        None => vec![0.0; b * hk * dk * dv],
    };
    let scale = match n.opt_float("scale")? {
        Some(s) if s != 0.0 => s as f32 as f64,
        _ => 1.0 / (dk as f64).sqrt(),
    };
    let mut out = vec![0.0; b * hq * t * dv];
    let mut vt = vec![0.0; dv];
    for ti in 0..t {
        for bi in 0..b {
            for h in 0..hk {
                let st = &mut state[(bi * hk + h) * dk * dv..][..dk * dv];
                let krow = &kv[((bi * hk + h) * t + ti) * dk..][..dk];
                vt.copy_from_slice(&vv[((bi * hk + h) * t + ti) * dv..][..dv]);
                if let Some((per_feature, dv_)) = &dec {
                    for a in 0..dk {
                        let g = if *per_feature {
                            dv_[(bi * t + ti) * hk * dk + h * dk + a]
                        } else {
                            dv_[(bi * t + ti) * hk + h]
                        };
                        let e = g.exp();
                        st[a * dv..(a + 1) * dv].iter_mut().for_each(|x| *x *= e);
                    }
                }
                if let Some((last, bv)) = &bet {
                    let bval = bv[(bi * t + ti) * last + if *last == 1 { 0 } else { h }];
                    for m in 0..dv {
                        let retrieved: f64 = (0..dk).map(|a| st[a * dv + m] * krow[a]).sum();
                        vt[m] = bval * (vt[m] - retrieved);
                    }
                }
                for a in 0..dk {
                    for m in 0..dv {
                        st[a * dv + m] += krow[a] * vt[m];
                    }
                }
            }
            for h in 0..hq {
                let kh = h / group;
                let st = &state[(bi * hk + kh) * dk * dv..][..dk * dv];
                let qrow = &qv[((bi * hq + h) * t + ti) * dk..][..dk];
                let orow = &mut out[((bi * hq + h) * t + ti) * dv..][..dv];
                for m in 0..dv {
                    let s: f64 = (0..dk).map(|a| qrow[a] * st[a * dv + m]).sum();
                    orow[m] = scale * s;
                }
            }
        }
    }
    Ok(vec![
        Tensor::from_f64(
            q.dtype(),
            vec![b, t, hq * dv],
            from_bhsd([b, hq, t, dv], &out),
        )?,
        Tensor::from_f64(state_dt, vec![b, hk, dk, dv], state)?,
    ])
}

fn causal_conv(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "CausalConvWithState";
    let x = req(n, i, 0)?;
    let w = req(n, i, 1)?;
    let bias = opt(i, 2).map(|t| float_in(OP, t)).transpose()?;
    let past = opt(i, 3);
    let silu = match n.str_or("activation", "none")?.as_str() {
        "none" => false,
        "silu" | "swish" => true,
        a => {
            return Err(KernelError::attr(
                OP,
                "activation",
                format!("unknown activation '{a}'"),
            ))
        }
    };
    let (xs, ws) = (x.shape(), w.shape());
    if xs.len() != 3 || ws.len() != 3 || ws[0] != xs[1] || ws[1] != 1 || ws[2] == 0 {
        return Err(KernelError::shape(
            OP,
            format!("input {xs:?} and weight {ws:?} must be [b, c, l] and [c, 1, k]"),
        ));
    }
    let (b, c, l, kk) = (xs[0], xs[1], xs[2], ws[2]);
    let dt = x.dtype();
    let xv = float_in(OP, x)?;
    let wv = float_in(OP, w)?;
    let pv = match past {
        Some(p) => {
            if p.shape() != [b, c, kk - 1] {
                return Err(KernelError::shape(
                    OP,
                    format!("past_state {:?} must be {:?}", p.shape(), [b, c, kk - 1]),
                ));
            }
            float_in(OP, p)?
        }
        None => vec![0.0; b * c * (kk - 1)],
    };
    let pl = l + kk - 1;
    let mut y = vec![0.0; b * c * l];
    let mut state = vec![0.0; b * c * (kk - 1)];
    let mut padded = vec![0.0; pl];
    for bi in 0..b {
        for ci in 0..c {
            let row = bi * c + ci;
            padded[..kk - 1].copy_from_slice(&pv[row * (kk - 1)..(row + 1) * (kk - 1)]);
            padded[kk - 1..].copy_from_slice(&xv[row * l..(row + 1) * l]);
            let wr = &wv[ci * kk..(ci + 1) * kk];
            for t in 0..l {
                let mut s: f64 = (0..kk).map(|j| padded[t + j] * wr[j]).sum();
                if let Some(bv) = &bias {
                    s += bv.get(ci).copied().unwrap_or(0.0);
                }
                let mut o = rnd(dt, s);
                if silu {
                    o = rnd(dt, rnd(DType::F32, o * rnd(DType::F32, sigmoid(o))));
                }
                y[row * l + t] = o;
            }
            state[row * (kk - 1)..(row + 1) * (kk - 1)].copy_from_slice(&padded[pl - (kk - 1)..]);
        }
    }
    Ok(vec![
        Tensor::from_f64(dt, vec![b, c, l], y)?,
        Tensor::from_f64(dt, vec![b, c, kk - 1], state)?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attrs::AttrValue;

    fn node(op: &'static str, attrs: Vec<(&str, AttrValue)>) -> Node {
        Node::new(
            &format!("graph.{op}"),
            "test".into(),
            attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            nart_dialect_graph::schema(op),
        )
    }

    #[test]
    fn cumprod_exclusive_reverse() {
        let x = Tensor::from_vec(vec![4], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
        let ax = Tensor::scalar(0i64);
        let n = node(
            "CumProd",
            vec![
                ("exclusive", AttrValue::Int(1)),
                ("reverse", AttrValue::Int(1)),
            ],
        );
        let y = cumprod(&n, &[Some(&x), Some(&ax)]).unwrap();
        assert_eq!(y[0].as_f32().unwrap(), &[24.0, 12.0, 4.0, 1.0]);
    }

    #[test]
    fn bitcast_reinterprets_bits() {
        let x = Tensor::from_vec(vec![1], vec![1.0f32]).unwrap();
        let n = node("BitCast", vec![("to", AttrValue::Int(6))]);
        let y = bitcast(&n, &[Some(&x)]).unwrap();
        assert_eq!(y[0].as_slice::<i32>().unwrap(), &[0x3f80_0000]);
    }

    #[test]
    fn attention_with_one_key_returns_its_value() {
        let q = Tensor::from_vec(vec![1, 1, 2, 2], vec![1.0f32, 0.0, 0.0, 1.0]).unwrap();
        let k = Tensor::from_vec(vec![1, 1, 1, 2], vec![0.5f32, 0.5]).unwrap();
        let v = Tensor::from_vec(vec![1, 1, 1, 3], vec![1.0f32, 2.0, 3.0]).unwrap();
        let n = node("Attention", vec![]);
        let out = attention_kernel(&n, &[Some(&q), Some(&k), Some(&v)]).unwrap();
        assert_eq!(out[0].shape(), &[1, 1, 2, 3]);
        assert_eq!(out[0].as_f32().unwrap(), &[1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    }

    #[test]
    fn causal_conv_keeps_the_last_inputs_as_state() {
        let x = Tensor::from_vec(vec![1, 1, 3], vec![1.0f32, 2.0, 3.0]).unwrap();
        let w = Tensor::from_vec(vec![1, 1, 2], vec![1.0f32, 1.0]).unwrap();
        let n = node("CausalConvWithState", vec![]);
        let out = causal_conv(&n, &[Some(&x), Some(&w)]).unwrap();
        assert_eq!(out[0].as_f32().unwrap(), &[1.0, 3.0, 5.0]);
        assert_eq!(out[1].as_f32().unwrap(), &[3.0]);
    }
}
