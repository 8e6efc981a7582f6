//! Attribute mapping for the elementwise operators of `nart_tensor::elementwise`.

use nart_tensor::elementwise::{self as ew, BinaryOp, UnaryOp};
use nart_tensor::{KernelError, Result as KResult, Tensor};

use super::{one, opt, req};
use crate::attrs::Node;

/// A binary operator on inputs 0 and 1.
pub(super) fn bin(node: &Node, ins: &[Option<&Tensor>], op: BinaryOp) -> KResult<Vec<Tensor>> {
    one(ew::binary(op, req(node, ins, 0)?, req(node, ins, 1)?)?)
}

/// A unary operator on input 0.
pub(super) fn un(node: &Node, ins: &[Option<&Tensor>], op: UnaryOp) -> KResult<Vec<Tensor>> {
    one(ew::unary(op, req(node, ins, 0)?)?)
}

/// Max, Min, Sum and Mean over the inputs given.
pub(super) fn variadic(
    ins: &[Option<&Tensor>],
    f: fn(&[&Tensor]) -> KResult<Tensor>,
) -> KResult<Vec<Tensor>> {
    let present: Vec<&Tensor> = ins.iter().flatten().copied().collect();
    one(f(&present)?)
}

fn f32_attr(node: &Node, name: &'static str, dflt: f64) -> KResult<f32> {
    Ok(node.float_or(name, dflt)? as f32)
}

pub(super) fn modulo(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let fmod = n.int_or("fmod", 0)? != 0;
    bin(n, i, BinaryOp::Mod { fmod })
}

pub(super) fn bit_shift(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let dir = n.str_or("direction", "")?;
    let op = match dir.as_str() {
        "LEFT" => BinaryOp::ShiftLeft,
        "RIGHT" => BinaryOp::ShiftRight,
        _ => {
            return Err(KernelError::attr(
                "BitShift",
                "direction",
                format!("'{dir}' is not LEFT or RIGHT"),
            ))
        }
    };
    bin(n, i, op)
}

pub(super) fn leaky_relu(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let alpha = f32_attr(n, "alpha", 0.01)?;
    un(n, i, UnaryOp::LeakyRelu { alpha })
}

pub(super) fn elu(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let alpha = f32_attr(n, "alpha", 1.0)?;
    un(n, i, UnaryOp::Elu { alpha })
}

pub(super) fn selu(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let alpha = f32_attr(n, "alpha", 1.673_263_192_176_818_8)?;
    let gamma = f32_attr(n, "gamma", 1.050_701_022_148_132_3)?;
    un(n, i, UnaryOp::Selu { alpha, gamma })
}

pub(super) fn celu(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let alpha = f32_attr(n, "alpha", 1.0)?;
    un(n, i, UnaryOp::Celu { alpha })
}

pub(super) fn hard_sigmoid(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let alpha = f32_attr(n, "alpha", 0.2)?;
    let beta = f32_attr(n, "beta", 0.5)?;
    un(n, i, UnaryOp::HardSigmoid { alpha, beta })
}

pub(super) fn gelu(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let tanh = n.str_or("approximate", "none")? == "tanh";
    un(n, i, UnaryOp::Gelu { tanh })
}

pub(super) fn thresholded_relu(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let alpha = f32_attr(n, "alpha", 1.0)?;
    un(n, i, UnaryOp::ThresholdedRelu { alpha })
}

pub(super) fn shrink(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let bias = f32_attr(n, "bias", 0.0)?;
    let lambd = f32_attr(n, "lambd", 0.5)?;
    un(n, i, UnaryOp::Shrink { bias, lambd })
}

pub(super) fn swish(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let alpha = f32_attr(n, "alpha", 1.0)?;
    un(n, i, UnaryOp::Swish { alpha })
}

pub(super) fn swiglu(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let alpha = f32_attr(n, "alpha", 1.0)?;
    one(ew::swiglu(req(n, i, 0)?, req(n, i, 1)?, alpha)?)
}

pub(super) fn is_nan(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(ew::is_nan(req(n, i, 0)?)?)
}

pub(super) fn prelu(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(ew::prelu(req(n, i, 0)?, req(n, i, 1)?)?)
}

pub(super) fn where_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(ew::where_(req(n, i, 0)?, req(n, i, 1)?, req(n, i, 2)?)?)
}

pub(super) fn is_inf(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let neg = n.int_or("detect_negative", 1)? != 0;
    let pos = n.int_or("detect_positive", 1)? != 0;
    one(ew::is_inf(req(n, i, 0)?, neg, pos)?)
}

pub(super) fn clip(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let x = req(n, i, 0)?;
    // Opset 6 form: bounds as attributes.
    if n.has("min") || n.has("max") {
        let bound = |name| -> KResult<Option<Tensor>> {
            n.opt_float(name)?
                .map(|v| Tensor::from_f64(x.dtype(), vec![], vec![v]))
                .transpose()
        };
        let (lo, hi) = (bound("min")?, bound("max")?);
        return one(ew::clip(x, lo.as_ref(), hi.as_ref())?);
    }
    one(ew::clip(x, opt(i, 1), opt(i, 2))?)
}

/// Dropout: input 1 is the ratio (default 0.5), input 2 the training mode (default false).
pub(super) fn dropout(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let ratio = match opt(i, 1) {
        Some(r) => r.to_f64_vec()?.first().copied().unwrap_or(0.5),
        None => 0.5,
    };
    let training = match opt(i, 2) {
        Some(t) => t.to_bool_vec()?.first().copied().unwrap_or(false),
        None => false,
    };
    let (y, mask) = ew::dropout(req(n, i, 0)?, ratio, training)?;
    Ok(vec![y, mask])
}
