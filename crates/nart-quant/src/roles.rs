//! What each graph op is to quantization: an op computing on a weight, an op computing on
//! activations only, data movement that keeps its input's parameters, or an activation
//! function that fuses into the op before it.
//!
//! This is nart-quant's own table about ONNX ops (like a scheme's list of covered ops), keyed by
//! ONNX name; ops it does not list are left in float.

use nart_ir::{Context, Op};

/// The role of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Computes on a constant weight (operand `weight`) with an optional bias (operand `bias`).
    Weighted {
        /// The weight operand.
        weight: usize,
        /// The bias operand.
        bias: Option<usize>,
    },
    /// Computes on activations: every float input and output is quantized.
    Activation,
    /// Moves or selects data without arithmetic: the output keeps the input's parameters.
    PassThrough,
    /// An activation function that the op before it absorbs (`Conv` + `Relu`): the pair's
    /// output is quantized once, after the activation.
    Fusable,
}

/// The role of the ONNX op `onnx`, if quantization handles it.
pub fn role_of(onnx: &str) -> Option<Role> {
    Some(match onnx {
        "Conv" | "ConvTranspose" | "Gemm" => Role::Weighted {
            weight: 1,
            bias: Some(2),
        },
        "MatMul" => Role::Weighted {
            weight: 1,
            bias: None,
        },
        "Add" | "Mul" | "Sub" | "AveragePool" | "GlobalAveragePool" | "Concat" | "Softmax"
        | "Sigmoid" | "Tanh" => Role::Activation,
        "MaxPool" | "GlobalMaxPool" | "Flatten" | "Reshape" | "Squeeze" | "Unsqueeze"
        | "Transpose" | "Identity" => Role::PassThrough,
        "Relu" | "Clip" | "LeakyRelu" => Role::Fusable,
        _ => return None,
    })
}

/// The ONNX name of a graph op (`graph.Conv` → `Conv`), or `None` for other dialects.
pub fn onnx_name(ctx: &Context, op: Op) -> Option<&str> {
    ctx.op_name_str(op).strip_prefix("graph.")
}

/// The role of `op`.
pub fn role(ctx: &Context, op: Op) -> Option<Role> {
    role_of(onnx_name(ctx, op)?)
}

/// The output-channel axis and the reduction axis of the weight of a weighted op, for a weight
/// of rank `rank`: `Conv` `[M, C, k...]` (0, 1), `ConvTranspose` `[C, M, k...]` (1, 0),
/// `Gemm` `[K, N]` (1, 0) or with `transB` `[N, K]` (0, 1), `MatMul` `[..., K, N]`
/// (last, second to last).
pub fn weight_axes(ctx: &Context, op: Op, rank: usize) -> (usize, usize) {
    match onnx_name(ctx, op) {
        Some("Conv") => (0, 1),
        Some("ConvTranspose") => (1, 0),
        Some("Gemm") => {
            let trans_b = ctx
                .attr(op, "transB")
                .and_then(|a| ctx.attr_int(a))
                .unwrap_or(0);
            if trans_b != 0 {
                (0, 1)
            } else {
                (1, 0)
            }
        }
        _ => (rank.saturating_sub(1), rank.saturating_sub(2)),
    }
}
