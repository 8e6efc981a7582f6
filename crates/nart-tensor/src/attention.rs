//! Transformer operators: Attention (opsets 23 and 24: grouped-query heads, boolean and additive
//! masks, KV cache, causal and sliding-window masking, external-cache lengths, soft cap, softmax
//! precision and every `qk_matmul_output` mode), LinearAttention and RotaryEmbedding.
//!
//! Attention rounds its intermediates to the input type where ONNX's numpy reference does (the
//! scaled inputs, the scores and the probabilities), so 16-bit results agree with the reference
//! to the last bit in most cases.

use crate::{DType, KernelError, Result, Tensor};

/// What Attention's fourth output, `qk_matmul_output`, holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum QkOutputMode {
    /// The scaled (and soft-capped) scores `Q K^T`: ONNX modes 0 and 1, which ONNX's reference
    /// computes alike.
    #[default]
    Scores,
    /// The scores plus the mask bias: ONNX mode 2.
    ScoresWithBias,
    /// The softmax probabilities: ONNX mode 3.
    Probabilities,
}

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
    /// What the `qk_matmul_output` output holds.
    pub qk_matmul_output_mode: QkOutputMode,
    /// Keys more than this many positions before the query are masked (ONNX `-1`: `None`).
    pub left_window_size: Option<usize>,
    /// Keys more than this many positions after the query are masked (ONNX `-1`: `None`).
    pub right_window_size: Option<usize>,
    /// The type the softmax is computed in (default: the input type).
    pub softmax_precision: Option<DType>,
}

/// Optional inputs of Attention.
#[derive(Clone, Copy, Debug, Default)]
pub struct AttentionInputs<'a> {
    /// Boolean (true attends) or additive float mask, right-aligned to `[batch, heads, q, kv]`;
    /// a last dimension shorter than the keys masks the keys beyond it.
    pub attn_mask: Option<&'a Tensor>,
    /// Cached keys `[batch, kv_heads, past, head_size]`.
    pub past_key: Option<&'a Tensor>,
    /// Cached values `[batch, kv_heads, past, v_head_size]`.
    pub past_value: Option<&'a Tensor>,
    /// Valid key count per batch entry `[batch]` (an external KV cache, opset 24).
    pub nonpad_kv_seqlen: Option<&'a Tensor>,
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
    /// `[batch, q_heads, q, past + kv]`, as [`AttentionAttrs::qk_matmul_output_mode`] selects.
    pub qk_matmul_output: Tensor,
}

/// `[b, s, h * d]` (3-D) or `[b, h, s, d]` (4-D) as `[b, h, s, d]` values; `attr` names the
/// head-count attribute a 3-D input needs.
fn to_bhsd(
    op: &'static str,
    t: &Tensor,
    heads: Option<usize>,
    attr: &'static str,
) -> Result<([usize; 4], Vec<f64>)> {
    let s = t.shape();
    let v = t.float_values(op)?;
    match s.len() {
        4 => Ok(([s[0], s[1], s[2], s[3]], v)),
        3 => {
            let h = heads
                .filter(|&h| h > 0 && s[2].is_multiple_of(h))
                .ok_or_else(|| {
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

/// Prepends a cache `[b, h, p, d]` to new entries `[b, h, n, d]` along the sequence axis.
fn concat_cache(
    op: &'static str,
    past: Option<&Tensor>,
    new: ([usize; 4], Vec<f64>),
) -> Result<([usize; 4], Vec<f64>)> {
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
    let pv = past.float_values(op)?;
    let (p, d) = (ps[2], ns[3]);
    let total = p + ns[2];
    let mut out = Vec::with_capacity(ns[0] * ns[1] * total * d);
    for bh in 0..ns[0] * ns[1] {
        out.extend_from_slice(&pv[bh * p * d..(bh + 1) * p * d]);
        out.extend_from_slice(&nv[bh * ns[2] * d..(bh + 1) * ns[2] * d]);
    }
    Ok(([ns[0], ns[1], total, d], out))
}

/// The mask as additive values right-aligned to `[b, hq, sq, total]`: its 4-D shape (leading
/// ones added) and values, a boolean mask turned into 0 and -inf.
fn mask_bias(op: &'static str, m: &Tensor, want: [usize; 4]) -> Result<([usize; 4], Vec<f64>)> {
    let ms = m.shape();
    if ms.is_empty() || ms.len() > 4 {
        return Err(KernelError::shape(
            op,
            format!("attn_mask must have rank 1 to 4, got {ms:?}"),
        ));
    }
    let mut m4 = [1usize; 4];
    m4[4 - ms.len()..].copy_from_slice(ms);
    for a in 0..3 {
        if m4[a] != 1 && m4[a] != want[a] {
            return Err(KernelError::shape(
                op,
                format!("attn_mask {ms:?} does not broadcast to {want:?}"),
            ));
        }
    }
    if m4[3] > want[3] {
        return Err(KernelError::shape(
            op,
            format!("attn_mask {ms:?} is longer than the {} keys", want[3]),
        ));
    }
    let vals = if m.dtype() == DType::Bool {
        m.to_bool_vec()?
            .into_iter()
            .map(|a| if a { 0.0 } else { f64::NEG_INFINITY })
            .collect()
    } else {
        m.float_values(op)?
    };
    Ok((m4, vals))
}

/// ONNX Attention (opsets 23 and 24).
pub fn attention(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    inputs: AttentionInputs<'_>,
    a: &AttentionAttrs,
) -> Result<AttentionOutputs> {
    const OP: &str = "Attention";
    let AttentionInputs {
        attn_mask,
        past_key,
        past_value,
        nonpad_kv_seqlen,
    } = inputs;
    if past_key.is_some() != past_value.is_some() {
        return Err(KernelError::shape(
            OP,
            "past_key and past_value must be given together",
        ));
    }
    let nonpad = nonpad_kv_seqlen.map(|t| t.to_i64_vec()).transpose()?;
    let dt = q.dtype();
    let three_d = q.rank() == 3;
    let (qs, qv) = to_bhsd(OP, q, a.q_num_heads, "q_num_heads")?;
    let (ks, kv) = to_bhsd(OP, k, a.kv_num_heads, "kv_num_heads")?;
    let (vs, vv) = to_bhsd(OP, v, a.kv_num_heads, "kv_num_heads")?;
    if ks[2] != vs[2] || ks[1] != vs[1] || qs[0] != ks[0] || qs[3] != ks[3] || vs[0] != ks[0] {
        return Err(KernelError::shape(
            OP,
            format!("Q {qs:?}, K {ks:?} and V {vs:?} do not fit together"),
        ));
    }
    let past_len = past_key.map_or(0, |p| p.shape().get(2).copied().unwrap_or(0));
    let (ks, kv) = concat_cache(OP, past_key, (ks, kv))?;
    let (vs, vv) = concat_cache(OP, past_value, (vs, vv))?;
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
    if vs[2] != total {
        return Err(KernelError::shape(
            OP,
            format!("present keys {ks:?} and values {vs:?} differ in length"),
        ));
    }
    let reps = hq / hk;
    let scale = match a.scale {
        Some(s) => s as f64,
        None => 1.0 / (d as f64).sqrt(),
    };
    // The reference scales Q and K by sqrt(scale) each, rounding both to the input type.
    let sc = dt.round(scale.sqrt());
    let softcap = a.softcap.map_or(0.0, |c| c as f64);
    let sm_dt = a.softmax_precision.unwrap_or(dt);
    let mask = attn_mask
        .map(|m| mask_bias(OP, m, [b, hq, sq, total]))
        .transpose()?;
    // Position of the first query among the keys.
    let offset = |bi: usize| -> i64 {
        if past_key.is_some() {
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
    let qs_scaled: Vec<f64> = qv.iter().map(|&x| dt.round(x * sc)).collect();
    let ks_scaled: Vec<f64> = kv.iter().map(|&x| dt.round(x * sc)).collect();
    for bi in 0..b {
        let off = offset(bi);
        let valid = nonpad.as_ref().map_or(total as i64, |np| {
            np.get(bi).copied().unwrap_or(total as i64)
        });
        for h in 0..hq {
            let kh = h / reps;
            for qi in 0..sq {
                // The additive bias of this row.
                for (j, bj) in bias.iter_mut().enumerate() {
                    let mut x = 0.0;
                    if let Some((m4, vals)) = &mask {
                        if j >= m4[3] {
                            x = f64::NEG_INFINITY;
                        } else {
                            let idx = [bi, h, qi, j];
                            let mut flat = 0;
                            for ax in 0..4 {
                                flat = flat * m4[ax] + if m4[ax] == 1 { 0 } else { idx[ax] };
                            }
                            x = vals[flat];
                        }
                    }
                    let p = qi as i64 + off;
                    let jj = j as i64;
                    let outside_left = a.left_window_size.is_some_and(|l| p - jj > l as i64);
                    let outside_right = a.right_window_size.is_some_and(|r| jj - p > r as i64);
                    if (a.is_causal && jj > p) || outside_left || outside_right || jj >= valid {
                        x = f64::NEG_INFINITY;
                    }
                    *bj = dt.round(x);
                }
                let qrow = &qs_scaled[((bi * hq + h) * sq + qi) * d..][..d];
                for (j, s) in scores.iter_mut().enumerate() {
                    let krow = &ks_scaled[((bi * hk + kh) * total + j) * d..][..d];
                    let dot: f64 = qrow.iter().zip(krow).map(|(x, y)| x * y).sum();
                    let mut x = dt.round(dot);
                    if softcap > 0.0 {
                        x = dt.round(dt.round(dt.round(x / softcap).tanh()) * softcap);
                    }
                    *s = x;
                }
                let out_row = &mut qk_out[((bi * hq + h) * sq + qi) * total..][..total];
                if a.qk_matmul_output_mode == QkOutputMode::Scores {
                    out_row.copy_from_slice(&scores);
                }
                for (s, bj) in scores.iter_mut().zip(&bias) {
                    *s = sm_dt.round(dt.round(*s + bj));
                }
                if a.qk_matmul_output_mode == QkOutputMode::ScoresWithBias {
                    out_row.copy_from_slice(&scores);
                }
                softmax_row(&mut scores, &bias, dt, sm_dt);
                if a.qk_matmul_output_mode == QkOutputMode::Probabilities {
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
                yrow.iter_mut().for_each(|o| *o = dt.round(*o));
            }
        }
    }
    let y = if three_d {
        Tensor::from_f64(dt, vec![b, sq, hq * dv], from_bhsd([b, hq, sq, dv], &y))?
    } else {
        Tensor::from_f64(dt, vec![b, hq, sq, dv], y)?
    };
    Ok(AttentionOutputs {
        y,
        present_key: Tensor::from_f64(k.dtype(), ks.to_vec(), kv)?,
        present_value: Tensor::from_f64(v.dtype(), vs.to_vec(), vv)?,
        qk_matmul_output: Tensor::from_f64(dt, vec![b, hq, sq, total], qk_out)?,
    })
}

/// Softmax of one row of biased scores in `sm_dt`, rounded back to `dt`; a row whose bias masks
/// every key is all zeros.
fn softmax_row(scores: &mut [f64], bias: &[f64], dt: DType, sm_dt: DType) {
    if bias.iter().all(|&x| x == f64::NEG_INFINITY) {
        scores.iter_mut().for_each(|s| *s = 0.0);
        return;
    }
    let mx = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mx = if mx == f64::NEG_INFINITY { 0.0 } else { mx };
    // numpy sums 16-bit floats in f32, but bfloat16 (ml_dtypes) one rounded addition at a time.
    let mut sum = 0.0;
    for s in scores.iter_mut() {
        *s = sm_dt.round(sm_dt.round(*s - mx).exp());
        sum = match sm_dt {
            DType::BF16 => sm_dt.round(sum + *s),
            DType::F64 => sum + *s,
            _ => DType::F32.round(sum + *s),
        };
    }
    let sum = sm_dt.round(sum);
    let sum = if sum == 0.0 { 1.0 } else { sum };
    for s in scores.iter_mut() {
        *s = dt.round(sm_dt.round(*s / sum));
    }
}

/// How LinearAttention updates its recurrent state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LinearAttentionRule {
    /// `S += k v^T`.
    Linear,
    /// `S = exp(g) S + k v^T`, with the `decay` input `g`.
    Gated,
    /// `S += k (beta (v - S^T k))^T`, with the `beta` input.
    Delta,
    /// The gated decay followed by the delta rule.
    #[default]
    GatedDelta,
}

impl LinearAttentionRule {
    /// The rule called `name` in ONNX's `update_rule` attribute.
    pub fn parse(name: &str) -> Option<LinearAttentionRule> {
        Some(match name {
            "linear" => LinearAttentionRule::Linear,
            "gated" => LinearAttentionRule::Gated,
            "delta" => LinearAttentionRule::Delta,
            "gated_delta" => LinearAttentionRule::GatedDelta,
            _ => return None,
        })
    }

    fn gated(self) -> bool {
        matches!(
            self,
            LinearAttentionRule::Gated | LinearAttentionRule::GatedDelta
        )
    }

    fn delta(self) -> bool {
        matches!(
            self,
            LinearAttentionRule::Delta | LinearAttentionRule::GatedDelta
        )
    }
}

/// Attributes of LinearAttention.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct LinearAttentionAttrs {
    /// Query heads.
    pub q_num_heads: usize,
    /// Key/value heads (dividing `q_num_heads`).
    pub kv_num_heads: usize,
    /// Scale of the output (default `1 / sqrt(head_size)`; zero also means the default).
    pub scale: Option<f32>,
    /// The state update.
    pub update_rule: LinearAttentionRule,
}

/// Optional inputs of LinearAttention.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinearAttentionInputs<'a> {
    /// The state `[batch, kv_heads, d_k, d_v]` before the first step (default zeros).
    pub past_state: Option<&'a Tensor>,
    /// Log decay `[batch, seq, kv_heads]` (per head) or `[batch, seq, kv_heads * d_k]` (per key
    /// feature), for the gated rules.
    pub decay: Option<&'a Tensor>,
    /// Delta-rule strength `[batch, seq, kv_heads]` or `[batch, seq, 1]`, for the delta rules.
    pub beta: Option<&'a Tensor>,
}

/// ONNX LinearAttention: `[batch, seq, heads * size]` query, key and value in; the output
/// `[batch, seq, q_heads * d_v]` and the final state `[batch, kv_heads, d_k, d_v]` out.
pub fn linear_attention(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    inputs: LinearAttentionInputs<'_>,
    a: &LinearAttentionAttrs,
) -> Result<(Tensor, Tensor)> {
    const OP: &str = "LinearAttention";
    let LinearAttentionInputs {
        past_state: past,
        decay,
        beta,
    } = inputs;
    let rule = a.update_rule;
    if rule.gated() != decay.is_some() || rule.delta() != beta.is_some() {
        return Err(KernelError::attr(
            OP,
            "update_rule",
            format!("rule {rule:?} does not match the decay and beta inputs given"),
        ));
    }
    let (hq, hk) = (a.q_num_heads, a.kv_num_heads);
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
    if ks[3] != dk || ks[2] != t || vs[2] != t || ks[0] != b || vs[0] != b {
        return Err(KernelError::shape(OP, "query, key and value do not fit"));
    }
    let group = hq / hk;
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
            let width = if per_feature { hk * dk } else { hk };
            if d.len() != b * t * width {
                return Err(KernelError::shape(
                    OP,
                    format!("decay {s:?} must be [{b}, {t}, {width}]"),
                ));
            }
            Some((per_feature, d.float_values(OP)?))
        }
        None => None,
    };
    let bet = match beta {
        Some(bt) => {
            let last = bt.shape().last().copied().unwrap_or(1);
            if !(last == 1 || last == hk) || bt.len() != b * t * last {
                return Err(KernelError::shape(
                    OP,
                    format!("beta {:?} must be [{b}, {t}, 1 or {hk}]", bt.shape()),
                ));
            }
            Some((last, bt.float_values(OP)?))
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
            p.float_values(OP)?
        }
        None => vec![0.0; b * hk * dk * dv],
    };
    let scale = match a.scale {
        Some(s) if s != 0.0 => s as f64,
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
                if let Some((per_feature, g)) = &dec {
                    for f in 0..dk {
                        let g = if *per_feature {
                            g[(bi * t + ti) * hk * dk + h * dk + f]
                        } else {
                            g[(bi * t + ti) * hk + h]
                        };
                        let e = g.exp();
                        st[f * dv..(f + 1) * dv].iter_mut().for_each(|x| *x *= e);
                    }
                }
                if let Some((last, bv)) = &bet {
                    let bval = bv[(bi * t + ti) * last + if *last == 1 { 0 } else { h }];
                    for m in 0..dv {
                        let retrieved: f64 = (0..dk).map(|f| st[f * dv + m] * krow[f]).sum();
                        vt[m] = bval * (vt[m] - retrieved);
                    }
                }
                for f in 0..dk {
                    for m in 0..dv {
                        st[f * dv + m] += krow[f] * vt[m];
                    }
                }
            }
            for h in 0..hq {
                let kh = h / group;
                let st = &state[(bi * hk + kh) * dk * dv..][..dk * dv];
                let qrow = &qv[((bi * hq + h) * t + ti) * dk..][..dk];
                let orow = &mut out[((bi * hq + h) * t + ti) * dv..][..dv];
                for (m, o) in orow.iter_mut().enumerate() {
                    let s: f64 = (0..dk).map(|f| qrow[f] * st[f * dv + m]).sum();
                    *o = scale * s;
                }
            }
        }
    }
    Ok((
        Tensor::from_f64(
            q.dtype(),
            vec![b, t, hq * dv],
            from_bhsd([b, hq, t, dv], &out),
        )?,
        Tensor::from_f64(state_dt, vec![b, hk, dk, dv], state)?,
    ))
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
            let Some(h) = a.num_heads.filter(|&h| h > 0 && s[2].is_multiple_of(h)) else {
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
    fn attention_with_one_key_returns_its_value() {
        let q = f(&[1, 1, 2, 2], [1.0, 0.0, 0.0, 1.0]);
        let k = f(&[1, 1, 1, 2], [0.5, 0.5]);
        let v = f(&[1, 1, 1, 3], [1.0, 2.0, 3.0]);
        let a = AttentionAttrs {
            qk_matmul_output_mode: QkOutputMode::Probabilities,
            ..Default::default()
        };
        let out = attention(&q, &k, &v, AttentionInputs::default(), &a).unwrap();
        assert_eq!(out.y.shape(), &[1, 1, 2, 3]);
        assert_eq!(out.y.as_f32().unwrap(), &[1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
        assert_eq!(out.qk_matmul_output.as_f32().unwrap(), &[1.0, 1.0]);
    }

    #[test]
    fn attention_windows_and_grouped_heads() {
        // Two query heads share one key/value head; a window of one key to the left and none to
        // the right leaves query 1 with keys 0 and 1, query 0 with key 0.
        let q = f(&[1, 2, 2, 1], [0.0; 4]);
        let k = f(&[1, 1, 2, 1], [0.0; 2]);
        let v = f(&[1, 1, 2, 1], [2.0, 4.0]);
        let a = AttentionAttrs {
            left_window_size: Some(1),
            right_window_size: Some(0),
            ..Default::default()
        };
        let out = attention(&q, &k, &v, AttentionInputs::default(), &a).unwrap();
        close(out.y.as_f32().unwrap(), &[2.0, 3.0, 2.0, 3.0], 1e-6);
        // Only one valid key per batch entry.
        let len = Tensor::vector(vec![1i64]);
        let inputs = AttentionInputs {
            nonpad_kv_seqlen: Some(&len),
            ..Default::default()
        };
        let out = attention(&q, &k, &v, inputs, &AttentionAttrs::default()).unwrap();
        close(out.y.as_f32().unwrap(), &[2.0; 4], 1e-6);
    }

    #[test]
    fn linear_attention_accumulates_state() {
        // One head, d_k = d_v = 1, scale 1: o_t = q_t * sum_{s <= t} k_s v_s.
        let q = f(&[1, 2, 1], [1.0, 1.0]);
        let k = f(&[1, 2, 1], [1.0, 2.0]);
        let v = f(&[1, 2, 1], [3.0, 4.0]);
        let a = LinearAttentionAttrs {
            q_num_heads: 1,
            kv_num_heads: 1,
            scale: Some(1.0),
            update_rule: LinearAttentionRule::Linear,
        };
        let (y, state) =
            linear_attention(&q, &k, &v, LinearAttentionInputs::default(), &a).unwrap();
        close(y.as_f32().unwrap(), &[3.0, 11.0], 1e-6);
        close(state.as_f32().unwrap(), &[11.0], 1e-6);
        // The gated rules need a decay input.
        let gated = LinearAttentionAttrs {
            update_rule: LinearAttentionRule::Gated,
            ..a
        };
        assert!(linear_attention(&q, &k, &v, LinearAttentionInputs::default(), &gated).is_err());
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
