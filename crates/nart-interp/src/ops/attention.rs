//! Attribute mapping for the transformer operators of `nart_tensor::attention`: Attention,
//! LinearAttention and RotaryEmbedding.

use nart_tensor::attention::{
    self, AttentionAttrs, AttentionInputs, LinearAttentionAttrs, LinearAttentionInputs,
    LinearAttentionRule, QkOutputMode, RotaryAttrs,
};
use nart_tensor::{DType, KernelError, Result as KResult, Tensor};

use super::{one, opt, req};
use crate::attrs::Node;

/// An optional count attribute; a negative value counts as absent, as ONNX's `-1` defaults do.
fn opt_count(n: &Node, name: &'static str) -> KResult<Option<usize>> {
    Ok(n.opt_int(name)?.and_then(|v| usize::try_from(v).ok()))
}

pub(super) fn attention_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let mode = n.int_or("qk_matmul_output_mode", 0)?;
    let softmax_precision = match n.opt_int("softmax_precision")? {
        Some(c) if c != 0 => Some(DType::from_onnx_code(c as i32).ok_or_else(|| {
            KernelError::attr(
                n.onnx,
                "softmax_precision",
                format!("unknown type code {c}"),
            )
        })?),
        _ => None,
    };
    let a = AttentionAttrs {
        scale: n.opt_float("scale")?.map(|s| s as f32),
        is_causal: n.int_or("is_causal", 0)? != 0,
        q_num_heads: opt_count(n, "q_num_heads")?,
        kv_num_heads: opt_count(n, "kv_num_heads")?,
        softcap: Some(n.float_or("softcap", 0.0)? as f32).filter(|&c| c > 0.0),
        qk_matmul_output_mode: match mode {
            0 | 1 => QkOutputMode::Scores,
            2 => QkOutputMode::ScoresWithBias,
            3 => QkOutputMode::Probabilities,
            m => {
                return Err(KernelError::attr(
                    n.onnx,
                    "qk_matmul_output_mode",
                    format!("unknown mode {m}"),
                ))
            }
        },
        left_window_size: opt_count(n, "left_window_size")?,
        right_window_size: opt_count(n, "right_window_size")?,
        softmax_precision,
    };
    let inputs = AttentionInputs {
        attn_mask: opt(i, 3),
        past_key: opt(i, 4),
        past_value: opt(i, 5),
        nonpad_kv_seqlen: opt(i, 6),
    };
    let out = attention::attention(req(n, i, 0)?, req(n, i, 1)?, req(n, i, 2)?, inputs, &a)?;
    Ok(vec![
        out.y,
        out.present_key,
        out.present_value,
        out.qk_matmul_output,
    ])
}

pub(super) fn linear_attention(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let rule = n.str_or("update_rule", "gated_delta")?;
    let heads = |name: &'static str| -> KResult<usize> {
        usize::try_from(n.int(name)?)
            .map_err(|_| KernelError::attr(n.onnx, name, "must not be negative"))
    };
    let a = LinearAttentionAttrs {
        q_num_heads: heads("q_num_heads")?,
        kv_num_heads: heads("kv_num_heads")?,
        scale: n.opt_float("scale")?.map(|s| s as f32),
        update_rule: LinearAttentionRule::parse(&rule).ok_or_else(|| {
            KernelError::attr(n.onnx, "update_rule", format!("unknown rule '{rule}'"))
        })?,
    };
    let inputs = LinearAttentionInputs {
        past_state: opt(i, 3),
        decay: opt(i, 4),
        beta: opt(i, 5),
    };
    let (y, state) =
        attention::linear_attention(req(n, i, 0)?, req(n, i, 1)?, req(n, i, 2)?, inputs, &a)?;
    Ok(vec![y, state])
}

pub(super) fn rotary_embedding(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let rot = n.int_or("rotary_embedding_dim", 0)?;
    let a = RotaryAttrs {
        interleaved: n.int_or("interleaved", 0)? != 0,
        rotary_embedding_dim: usize::try_from(rot).map_err(|_| {
            KernelError::attr(n.onnx, "rotary_embedding_dim", "must not be negative")
        })?,
        num_heads: opt_count(n, "num_heads")?.filter(|&h| h > 0),
    };
    one(attention::rotary_embedding(
        req(n, i, 0)?,
        req(n, i, 1)?,
        req(n, i, 2)?,
        opt(i, 3),
        &a,
    )?)
}
