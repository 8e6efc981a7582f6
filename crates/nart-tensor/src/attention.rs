//! Transformer operators of opset 23: Attention (with grouped-query heads, masks, KV cache, causal masking,
//! softcap) and RotaryEmbedding.

use crate::layout::{broadcast_index, broadcast_shapes};
use crate::{KernelError, Result, Tensor};

/// Attributes of Attention.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct AttentionAttrs {
    /// Scale of `Q K^T` (default `1 / sqrt(head_size)`).
    pub scale: Option<f32>,
    /// Mask keys after the query position (aligned to the end of the past cache).
    pub is_causal: bool,
    /// Query heads, required for 3-D inputs.
    pub q_num_heads: Option<usize>,
    /// Key/value heads, required for 3-D inputs.
    pub kv_num_heads: Option<usize>,
    /// Soft cap `c * tanh(x / c)` of the scores when positive.
    pub softcap: Option<f32>,
}

/// Optional inputs of Attention.
#[derive(Clone, Copy, Debug, Default)]
pub struct AttentionInputs<'a> {
    /// Boolean (true attends) or additive float mask, broadcast to `[batch, heads, q, kv]`.
    pub attn_mask: Option<&'a Tensor>,
    /// Cached keys `[batch, kv_heads, past, head_size]`.
    pub past_key: Option<&'a Tensor>,
    /// Cached values `[batch, kv_heads, past, v_head_size]`.
    pub past_value: Option<&'a Tensor>,
}

/// Outputs of Attention.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionOutputs {
    /// The attended values, shaped like Q (with the value head size).
    pub y: Tensor,
    /// Past and new keys, `[batch, kv_heads, past + kv, head_size]`.
    pub present_key: Tensor,
    /// Past and new values, `[batch, kv_heads, past + kv, v_head_size]`.
    pub present_value: Tensor,
}

/// Views a 3-D `[batch, seq, heads * size]` or 4-D `[batch, heads, seq, size]` tensor as 4-D values.
fn heads4(op: &'static str, t: &Tensor, heads: Option<usize>) -> Result<([usize; 4], Vec<f64>)> {
    let s = t.shape();
    match s.len() {
        4 => Ok(([s[0], s[1], s[2], s[3]], t.to_f64_vec()?)),
        3 => {
            let Some(h) = heads.filter(|&h| h > 0 && s[2] % h == 0) else {
                return Err(KernelError::attr(
                    op,
                    "q_num_heads",
                    "3-D inputs need head counts dividing the hidden size",
                ));
            };
            let (b, n, d) = (s[0], s[1], s[2] / h);
            let v = t.to_f64_vec()?;
            let mut out = vec![0f64; v.len()];
            for bi in 0..b {
                for si in 0..n {
                    for hi in 0..h {
                        for di in 0..d {
                            out[((bi * h + hi) * n + si) * d + di] =
                                v[(bi * n + si) * h * d + hi * d + di];
                        }
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

/// Concatenates a cache `[b, h, p, d]` and new entries `[b, h, n, d]` along the sequence axis.
fn concat_seq(
    past: Option<([usize; 4], Vec<f64>)>,
    new: ([usize; 4], Vec<f64>),
) -> Result<([usize; 4], Vec<f64>)> {
    let Some((ps, pv)) = past else {
        return Ok(new);
    };
    let (ns, nv) = new;
    if ps[0] != ns[0] || ps[1] != ns[1] || ps[3] != ns[3] {
        return Err(KernelError::shape(
            "Attention",
            format!("past {ps:?} does not fit new {ns:?}"),
        ));
    }
    let total = ps[2] + ns[2];
    let d = ns[3];
    let mut out = Vec::with_capacity(ns[0] * ns[1] * total * d);
    for bh in 0..ns[0] * ns[1] {
        out.extend_from_slice(&pv[bh * ps[2] * d..(bh + 1) * ps[2] * d]);
        out.extend_from_slice(&nv[bh * ns[2] * d..(bh + 1) * ns[2] * d]);
    }
    Ok(([ns[0], ns[1], total, d], out))
}

/// ONNX Attention (opset 23) without `nonpad_kv_seqlen`, sliding windows or the `qk_matmul_output` output.
pub fn attention(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    inputs: AttentionInputs<'_>,
    a: &AttentionAttrs,
) -> Result<AttentionOutputs> {
    const OP: &str = "Attention";
    if !q.dtype().is_float() {
        return Err(KernelError::dtype(OP, q.dtype()));
    }
    if q.rank() != k.rank() || q.rank() != v.rank() {
        return Err(KernelError::shape(OP, "Q, K and V must have the same rank"));
    }
    let three_d = q.rank() == 3;
    let (qs, qv) = heads4(OP, q, a.q_num_heads)?;
    let kn = heads4(OP, k, a.kv_num_heads)?;
    let vn = heads4(OP, v, a.kv_num_heads)?;
    let past_k = inputs.past_key.map(|t| heads4(OP, t, None)).transpose()?;
    let past_v = inputs.past_value.map(|t| heads4(OP, t, None)).transpose()?;
    if past_k.is_some() != past_v.is_some() {
        return Err(KernelError::shape(
            OP,
            "past_key and past_value must come together",
        ));
    }
    let past_len = past_k.as_ref().map_or(0, |p| p.0[2]);
    let (ks, kv) = concat_seq(past_k, kn)?;
    let (vs, vv) = concat_seq(past_v, vn)?;
    let [b, hq, sq, d] = qs;
    let hkv = ks[1];
    let skv = ks[2];
    let dv = vs[3];
    if ks[0] != b
        || vs[0] != b
        || ks[3] != d
        || vs[1] != hkv
        || vs[2] != skv
        || hkv == 0
        || hq % hkv != 0
    {
        return Err(KernelError::shape(
            OP,
            format!("Q {qs:?}, K {ks:?}, V {vs:?} do not fit"),
        ));
    }
    // Additive bias [b, hq, sq, skv] from the mask.
    let target = [b, hq, sq, skv];
    let bias: Option<(Vec<usize>, Vec<f64>)> = match inputs.attn_mask {
        None => None,
        Some(m) => {
            let ms = m.shape();
            if ms.is_empty() || ms[ms.len() - 1] > skv {
                return Err(KernelError::shape(
                    OP,
                    format!("mask {ms:?} does not fit {skv} keys"),
                ));
            }
            let add: Vec<f64> = if m.dtype() == crate::DType::Bool {
                m.to_bool_vec()?
                    .into_iter()
                    .map(|t| if t { 0.0 } else { f64::NEG_INFINITY })
                    .collect()
            } else {
                m.to_f64_vec()?
            };
            // Pad the last axis up to the key length with masked entries.
            let last = ms[ms.len() - 1];
            let rows = add.len().checked_div(last).unwrap_or(0);
            let mut padded = Vec::with_capacity(rows * skv);
            for r in 0..rows {
                padded.extend_from_slice(&add[r * last..(r + 1) * last]);
                padded.extend(std::iter::repeat_n(f64::NEG_INFINITY, skv - last));
            }
            let mut pshape = ms.to_vec();
            let n = pshape.len();
            pshape[n - 1] = skv;
            if broadcast_shapes(OP, &target, &pshape)? != target {
                return Err(KernelError::shape(
                    OP,
                    format!("mask {ms:?} does not broadcast to {target:?}"),
                ));
            }
            Some((broadcast_index(&target, &pshape), padded))
        }
    };
    let scale = a.scale.map_or(1.0 / (d as f64).sqrt(), |s| s as f64);
    let group = hq / hkv;
    let mut y = vec![0f64; b * hq * sq * dv];
    let mut scores = vec![0f64; skv];
    for bi in 0..b {
        for h in 0..hq {
            let kh = h / group;
            for i in 0..sq {
                let qrow = &qv[((bi * hq + h) * sq + i) * d..((bi * hq + h) * sq + i + 1) * d];
                let mut all_masked = true;
                for (j, sc) in scores.iter_mut().enumerate() {
                    let krow =
                        &kv[((bi * hkv + kh) * skv + j) * d..((bi * hkv + kh) * skv + j + 1) * d];
                    let mut s: f64 = qrow.iter().zip(krow).map(|(x, y)| x * y).sum::<f64>() * scale;
                    if let Some(c) = a.softcap.filter(|&c| c > 0.0) {
                        s = c as f64 * (s / c as f64).tanh();
                    }
                    let mut bias_v = 0.0;
                    if let Some((idx, vals)) = &bias {
                        bias_v += vals[idx[((bi * hq + h) * sq + i) * skv + j]];
                    }
                    if a.is_causal && j > i + past_len {
                        bias_v = f64::NEG_INFINITY;
                    }
                    if bias_v != f64::NEG_INFINITY {
                        all_masked = false;
                    }
                    *sc = s + bias_v;
                }
                let out = &mut y[((bi * hq + h) * sq + i) * dv..((bi * hq + h) * sq + i + 1) * dv];
                if all_masked {
                    continue;
                }
                let m = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let mut total = 0.0;
                scores.iter_mut().for_each(|s| {
                    *s = (*s - m).exp();
                    total += *s;
                });
                for (j, &p) in scores.iter().enumerate() {
                    let w = p / total;
                    let vrow =
                        &vv[((bi * hkv + kh) * skv + j) * dv..((bi * hkv + kh) * skv + j + 1) * dv];
                    out.iter_mut().zip(vrow).for_each(|(o, x)| *o += w * x);
                }
            }
        }
    }
    let dt = q.dtype();
    let y = if three_d {
        let mut t = vec![0f64; y.len()];
        for bi in 0..b {
            for h in 0..hq {
                for i in 0..sq {
                    for c in 0..dv {
                        t[(bi * sq + i) * hq * dv + h * dv + c] =
                            y[((bi * hq + h) * sq + i) * dv + c];
                    }
                }
            }
        }
        Tensor::from_f64(dt, vec![b, sq, hq * dv], t)?
    } else {
        Tensor::from_f64(dt, vec![b, hq, sq, dv], y)?
    };
    Ok(AttentionOutputs {
        y,
        present_key: Tensor::from_f64(k.dtype(), ks.to_vec(), kv)?,
        present_value: Tensor::from_f64(v.dtype(), vs.to_vec(), vv)?,
    })
}

/// Attributes of RotaryEmbedding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RotaryAttrs {
    /// Rotate interleaved pairs `(x0, x1), (x2, x3), ...` instead of the two halves.
    pub interleaved: bool,
    /// Rotate only the first `rotary_embedding_dim` features (0: all).
    pub rotary_embedding_dim: usize,
    /// Heads, required for 3-D input.
    pub num_heads: Option<usize>,
}

/// ONNX RotaryEmbedding (opset 23).
///
/// `x` is `[batch, heads, seq, head]` or `[batch, seq, heads * head]`; the caches are
/// `[max_pos, rot / 2]` with `position_ids [batch, seq]`, or `[batch, seq, rot / 2]` without.
pub fn rotary_embedding(
    x: &Tensor,
    cos: &Tensor,
    sin: &Tensor,
    position_ids: Option<&Tensor>,
    a: &RotaryAttrs,
) -> Result<Tensor> {
    const OP: &str = "RotaryEmbedding";
    if !x.dtype().is_float() {
        return Err(KernelError::dtype(OP, x.dtype()));
    }
    let s = x.shape();
    // Element offset of (b, seq position, head, feature) in x.
    let (b, n, h, d, four_d) = match s.len() {
        4 => (s[0], s[2], s[1], s[3], true),
        3 => {
            let Some(h) = a.num_heads.filter(|&h| h > 0 && s[2] % h == 0) else {
                return Err(KernelError::attr(
                    OP,
                    "num_heads",
                    "3-D input needs num_heads dividing the hidden size",
                ));
            };
            (s[0], s[1], h, s[2] / h, false)
        }
        _ => {
            return Err(KernelError::shape(
                OP,
                format!("input must be 3-D or 4-D, got {s:?}"),
            ))
        }
    };
    let rot = if a.rotary_embedding_dim == 0 {
        d
    } else {
        a.rotary_embedding_dim
    };
    if rot > d || rot % 2 != 0 {
        return Err(KernelError::attr(
            OP,
            "rotary_embedding_dim",
            format!("{rot} must be even and at most {d}"),
        ));
    }
    let half = rot / 2;
    let (cv, sv) = (cos.to_f64_vec()?, sin.to_f64_vec()?);
    if cos.shape() != sin.shape() || cos.shape().last() != Some(&half) {
        return Err(KernelError::shape(
            OP,
            format!(
                "caches {:?} / {:?} must end in {half}",
                cos.shape(),
                sin.shape()
            ),
        ));
    }
    // Row of the caches for (b, position).
    let rows: Vec<usize> = match position_ids {
        Some(p) => {
            let ids = p.to_i64_vec()?;
            let max = cos.shape()[0];
            if ids.len() != b * n {
                return Err(KernelError::shape(OP, "position_ids must be [batch, seq]"));
            }
            ids.iter()
                .map(|&i| {
                    if i < 0 || i as usize >= max {
                        Err(KernelError::IndexOutOfRange {
                            op: OP,
                            index: i,
                            size: max,
                        })
                    } else {
                        Ok(i as usize)
                    }
                })
                .collect::<Result<_>>()?
        }
        None => {
            if cos.shape() != [b, n, half] {
                return Err(KernelError::shape(
                    OP,
                    format!("caches must be [{b}, {n}, {half}] without position_ids"),
                ));
            }
            (0..b * n).collect()
        }
    };
    let xv = x.to_f64_vec()?;
    let mut out = xv.clone();
    let at = |bi: usize, si: usize, hi: usize| -> usize {
        if four_d {
            ((bi * h + hi) * n + si) * d
        } else {
            ((bi * n + si) * h + hi) * d
        }
    };
    for bi in 0..b {
        for si in 0..n {
            let row = rows[bi * n + si];
            for hi in 0..h {
                let base = at(bi, si, hi);
                for j in 0..half {
                    let (p, q) = if a.interleaved {
                        (2 * j, 2 * j + 1)
                    } else {
                        (j, j + half)
                    };
                    let (x1, x2) = (xv[base + p], xv[base + q]);
                    let (c, sn) = (cv[row * half + j], sv[row * half + j]);
                    out[base + p] = c * x1 - sn * x2;
                    out[base + q] = sn * x1 + c * x2;
                }
            }
        }
    }
    Tensor::from_f64(x.dtype(), s.to_vec(), out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{close, f};

    #[test]
    fn attention_basics() {
        // One head, two queries, two keys; equal scores average the values.
        let q = f(&[1, 1, 2, 2], vec![0., 0., 1., 0.]);
        let k = f(&[1, 1, 2, 2], vec![1., 0., 0., 0.]);
        let v = f(&[1, 1, 2, 1], vec![2., 4.]);
        let out = attention(
            &q,
            &k,
            &v,
            AttentionInputs::default(),
            &AttentionAttrs {
                scale: Some(1.0),
                ..Default::default()
            },
        )
        .unwrap();
        // Query 0 sees scores [0, 0] -> 3; query 1 sees [1, 0] -> (2e + 4) / (e + 1).
        let e = std::f32::consts::E;
        close(
            out.y.as_f32().unwrap(),
            &[3.0, (2.0 * e + 4.0) / (e + 1.0)],
            1e-5,
        );
        // Causal: query 0 only sees key 0.
        let causal = AttentionAttrs {
            scale: Some(1.0),
            is_causal: true,
            ..Default::default()
        };
        let out = attention(&q, &k, &v, AttentionInputs::default(), &causal).unwrap();
        close(&out.y.as_f32().unwrap()[..1], &[2.0], 1e-5);
        // A boolean mask hiding every key gives zeros.
        let mask = Tensor::from_vec(vec![2, 2], vec![false; 4]).unwrap();
        let inputs = AttentionInputs {
            attn_mask: Some(&mask),
            ..Default::default()
        };
        let out = attention(&q, &k, &v, inputs, &AttentionAttrs::default()).unwrap();
        close(out.y.as_f32().unwrap(), &[0.0, 0.0], 1e-5);
        // A KV cache is prepended to the present key.
        let pk = f(&[1, 1, 1, 2], vec![9., 9.]);
        let pv = f(&[1, 1, 1, 1], vec![7.]);
        let inputs = AttentionInputs {
            past_key: Some(&pk),
            past_value: Some(&pv),
            ..Default::default()
        };
        let out = attention(&q, &k, &v, inputs, &AttentionAttrs::default()).unwrap();
        assert_eq!(out.present_key.shape(), &[1, 1, 3, 2]);
        assert_eq!(out.present_value.as_f32().unwrap(), &[7., 2., 4.]);
        assert!(attention(
            &q,
            &f(&[1, 1, 2, 3], vec![0.; 6]),
            &v,
            AttentionInputs::default(),
            &AttentionAttrs::default()
        )
        .is_err());
    }

    #[test]
    fn rotary() {
        // Rotate [1, 0, 0, 1] (halves (1,0) and (0,1)) by 90 degrees: cos 0, sin 1.
        let x = f(&[1, 1, 1, 4], vec![1., 0., 0., 1.]);
        let c = f(&[1, 2], vec![0., 0.]);
        let s = f(&[1, 2], vec![1., 1.]);
        let pos = Tensor::from_vec(vec![1, 1], vec![0i64]).unwrap();
        let y = rotary_embedding(&x, &c, &s, Some(&pos), &RotaryAttrs::default()).unwrap();
        // real = c*x1 - s*x2 = [0, -1]; imag = s*x1 + c*x2 = [1, 0]
        close(y.as_f32().unwrap(), &[0., -1., 1., 0.], 1e-5);
        let y = rotary_embedding(
            &x,
            &c,
            &s,
            Some(&pos),
            &RotaryAttrs {
                interleaved: true,
                ..Default::default()
            },
        )
        .unwrap();
        // pairs (1,0) -> (0,1) and (0,1) -> (-1,0)
        close(y.as_f32().unwrap(), &[0., 1., -1., 0.], 1e-5);
        assert!(rotary_embedding(
            &x,
            &c,
            &s,
            Some(&Tensor::from_vec(vec![1, 1], vec![5i64]).unwrap()),
            &RotaryAttrs::default()
        )
        .is_err());
    }
}
