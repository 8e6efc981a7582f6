//! Kernels of the graph dialect's fused ops (`graph.fused_conv`, `graph.fused_gemm`,
//! `graph.fused_matmul`): the base op's kernel, the `fused_matmul` bias, then the activation,
//! each step the same `nart_tensor` function the unfused ops run, so a fused op computes
//! exactly what its unfused sequence does. Also `graph.pool` (a `MaxPool` or `AveragePool` in
//! a stated layout), which, like a channels-last `fused_conv`, runs its base op's kernel on the
//! input moved to channels-first (or unblocked, for a blocked layout `nchw<b>c`), and
//! `graph.reorder` (into a blocked layout and back).

use nart_dialect_graph::fused::{Activation, ConvLayout, ACTIVATION};
use nart_tensor::blocked;
use nart_tensor::elementwise::{self as ew, BinaryOp, UnaryOp};
use nart_tensor::{KernelError, Result as KResult, Tensor};

use super::{nn, opt, Kernel};
use crate::attrs::Node;

use Kernel::Tensor as T;

/// The kernel of every fused op, by full op name.
pub(crate) static FUSED_KERNELS: &[(&str, Kernel)] = &[
    ("graph.fused_conv", T(fused_conv)),
    ("graph.fused_gemm", T(fused_gemm)),
    ("graph.fused_matmul", T(fused_matmul)),
    ("graph.pool", T(layout_pool)),
    ("graph.reorder", T(reorder)),
];

/// The activation `n` states (`activation` as its keyword, `activation_params`).
fn activation(op: &'static str, n: &Node) -> KResult<Activation> {
    let kw = n.str_or("activation", "")?;
    let kind = ACTIVATION
        .case(&kw)
        .ok_or_else(|| KernelError::attr(op, "activation", format!("unknown activation '{kw}'")))?
        .value;
    let params: Vec<f32> = n
        .opt_floats("activation_params")?
        .unwrap_or_default()
        .into_iter()
        .map(|v| v as f32)
        .collect();
    Activation::from_parts(kind, &params).map_err(|m| KernelError::attr(op, "activation_params", m))
}

/// Applies `act` to `y`, as the ONNX activation operator would.
pub(crate) fn apply(y: Tensor, act: Activation) -> KResult<Tensor> {
    let scalar = |v: f32| Tensor::from_f64(y.dtype(), vec![], vec![v as f64]);
    Ok(match act {
        Activation::None => y,
        Activation::Relu => ew::unary(UnaryOp::Relu, &y)?,
        Activation::LeakyRelu { alpha } => ew::unary(UnaryOp::LeakyRelu { alpha }, &y)?,
        Activation::Clip { min, max } => ew::clip(&y, Some(&scalar(min)?), Some(&scalar(max)?))?,
        Activation::Sigmoid => ew::unary(UnaryOp::Sigmoid, &y)?,
        Activation::Tanh => ew::unary(UnaryOp::Tanh, &y)?,
        Activation::HardSigmoid { alpha, beta } => {
            ew::unary(UnaryOp::HardSigmoid { alpha, beta }, &y)?
        }
    })
}

fn single(op: &'static str, mut out: Vec<Tensor>) -> KResult<Tensor> {
    match out.len() {
        1 => Ok(out.remove(0)),
        k => Err(KernelError::Arity {
            op,
            msg: format!("the base kernel gave {k} results"),
        }),
    }
}

/// `fused_conv`; with `layout = "nhwc"` the input and weight are moved to channels-first,
/// convolved as `Conv` does, and the result moved back to channels-last (the reference
/// semantics of the channels-last variant, not a fast kernel).
fn fused_conv(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "fused_conv";
    let act = activation(OP, n)?;
    let layout = n.str_or("layout", "nchw")?;
    let y = match layout.as_str() {
        "nchw" => single(OP, nn::conv_k(n, i)?)?,
        "nhwc" => {
            let (Some(x), Some(w)) = (opt(i, 0), opt(i, 1)) else {
                return Err(KernelError::Arity {
                    op: OP,
                    msg: "X and W are required".into(),
                });
            };
            let rank = x.rank() as i64;
            if rank < 3 || w.rank() as i64 != rank {
                return Err(KernelError::attr(
                    OP,
                    "layout",
                    "nhwc needs an input and a weight of the same rank, 3 or more",
                ));
            }
            // [0, r-1, 1, ..., r-2]: channels-last to channels-first; and its inverse.
            let mut first: Vec<i64> = vec![0, rank - 1];
            first.extend(1..rank - 1);
            let mut last: Vec<i64> = vec![0];
            last.extend(2..rank);
            last.push(1);
            let xc = nart_tensor::shape_ops::transpose(x, Some(&first))?;
            let wc = nart_tensor::shape_ops::transpose(w, Some(&first))?;
            let mut ins: Vec<Option<&Tensor>> = vec![Some(&xc), Some(&wc)];
            ins.extend(i.iter().skip(2).copied());
            let yc = single(OP, nn::conv_k(n, &ins)?)?;
            nart_tensor::shape_ops::transpose(&yc, Some(&last))?
        }
        other if block_of(other).is_some() => {
            let b = block_of(other).unwrap_or(1);
            let (Some(x), Some(w)) = (opt(i, 0), opt(i, 1)) else {
                return Err(KernelError::Arity {
                    op: OP,
                    msg: "X and W are required".into(),
                });
            };
            check_blocked(OP, x, b)?;
            // Unblocked (padded channels kept), convolved as `Conv`, blocked again: the
            // reference semantics of the blocked variant.
            let xc = blocked::from_blocked(x, x.shape()[1] * b)?;
            let wc = blocked::unblock_weight(w)?;
            let mut ins: Vec<Option<&Tensor>> = vec![Some(&xc), Some(&wc)];
            ins.extend(i.iter().skip(2).copied());
            let yc = single(OP, nn::conv_k(n, &ins)?)?;
            blocked::to_blocked(&yc, b)?
        }
        other => {
            return Err(KernelError::attr(
                OP,
                "layout",
                format!("unknown layout '{other}'"),
            ))
        }
    };
    Ok(vec![apply(y, act)?])
}

fn fused_gemm(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "fused_gemm";
    let act = activation(OP, n)?;
    let y = single(OP, nn::gemm(n, i)?)?;
    Ok(vec![apply(y, act)?])
}

fn fused_matmul(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "fused_matmul";
    let act = activation(OP, n)?;
    let mut y = single(OP, nn::matmul_k(n, i)?)?;
    if let Some(bias) = opt(i, 2) {
        y = ew::binary(BinaryOp::Add, &y, bias)?;
    }
    Ok(vec![apply(y, act)?])
}

/// `graph.pool`: `MaxPool` (values only) or `AveragePool` as `kind` says; with
/// `layout = "nhwc"` the input is moved to channels-first, pooled, and the result moved back.
fn layout_pool(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "pool";
    let kind = n.str_or("kind", "")?;
    let max = match kind.as_str() {
        "max" => true,
        "average" => false,
        other => {
            return Err(KernelError::attr(
                OP,
                "kind",
                format!("unknown pool kind '{other}'"),
            ))
        }
    };
    let layout = n.str_or("layout", "nchw")?;
    let y = match layout.as_str() {
        "nchw" => base_pool(max, n, i)?.into_iter().next(),
        "nhwc" => {
            let Some(x) = opt(i, 0) else {
                return Err(KernelError::Arity {
                    op: OP,
                    msg: "X is required".into(),
                });
            };
            let rank = x.rank() as i64;
            if rank < 3 {
                return Err(KernelError::attr(
                    OP,
                    "layout",
                    "nhwc needs an input of rank 3 or more",
                ));
            }
            let mut first: Vec<i64> = vec![0, rank - 1];
            first.extend(1..rank - 1);
            let mut last: Vec<i64> = vec![0];
            last.extend(2..rank);
            last.push(1);
            let xc = nart_tensor::shape_ops::transpose(x, Some(&first))?;
            match base_pool(max, n, &[Some(&xc)])?.into_iter().next() {
                Some(yc) => Some(nart_tensor::shape_ops::transpose(&yc, Some(&last))?),
                None => None,
            }
        }
        other if block_of(other).is_some() => {
            let b = block_of(other).unwrap_or(1);
            let Some(x) = opt(i, 0) else {
                return Err(KernelError::Arity {
                    op: OP,
                    msg: "X is required".into(),
                });
            };
            check_blocked(OP, x, b)?;
            let xc = blocked::from_blocked(x, x.shape()[1] * b)?;
            match base_pool(max, n, &[Some(&xc)])?.into_iter().next() {
                Some(yc) => Some(blocked::to_blocked(&yc, b)?),
                None => None,
            }
        }
        other => {
            return Err(KernelError::attr(
                OP,
                "layout",
                format!("unknown layout '{other}'"),
            ))
        }
    };
    let y = y.ok_or_else(|| KernelError::Arity {
        op: OP,
        msg: "the base kernel gave no result".into(),
    })?;
    Ok(vec![y])
}

/// The block size of a layout keyword `nchw<b>c`.
fn block_of(layout: &str) -> Option<usize> {
    match ConvLayout::parse(layout)? {
        ConvLayout::Blocked(b) => usize::try_from(b).ok(),
        _ => None,
    }
}

/// Checks that `x` is blocked by `b` (`[N, C/b, spatial..., b]`).
fn check_blocked(op: &'static str, x: &Tensor, b: usize) -> KResult<()> {
    let s = x.shape();
    if s.len() < 4 || s[s.len() - 1] != b {
        return Err(KernelError::attr(
            op,
            "layout",
            format!("the input {s:?} is not blocked by {b} ([N, C/{b}, spatial..., {b}])"),
        ));
    }
    Ok(())
}

/// `graph.reorder`: into the blocked layout `layout` names, or back to `nchw` with `channels`
/// channels.
fn reorder(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "reorder";
    let Some(x) = opt(i, 0) else {
        return Err(KernelError::Arity {
            op: OP,
            msg: "X is required".into(),
        });
    };
    let layout = n.str_or("layout", "")?;
    let y = if layout == "nchw" {
        let c = n.int("channels")?;
        let c = usize::try_from(c)
            .map_err(|_| KernelError::attr(OP, "channels", format!("{c} is negative")))?;
        blocked::from_blocked(x, c)?
    } else if let Some(b) = block_of(&layout) {
        blocked::to_blocked(x, b)?
    } else {
        return Err(KernelError::attr(
            OP,
            "layout",
            format!("unknown layout '{layout}'"),
        ));
    };
    Ok(vec![y])
}

/// `MaxPool`'s kernel (`max`) or `AveragePool`'s.
fn base_pool(max: bool, n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    if max {
        nn::max_pool(n, i)
    } else {
        nn::average_pool(n, i)
    }
}
