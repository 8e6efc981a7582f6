//! Elementwise operators, dispatched to `nart_tensor::elementwise`.

use nart_tensor::elementwise::{self as ew, BinaryOp, UnaryOp};
use nart_tensor::{KernelError, Result as KResult, Tensor};

use super::{one, opt, req, TensorKernel};
use crate::attrs::Node;

fn bin(node: &Node, ins: &[Option<&Tensor>], op: BinaryOp) -> KResult<Vec<Tensor>> {
    one(ew::binary(op, req(node, ins, 0)?, req(node, ins, 1)?)?)
}

fn un(node: &Node, ins: &[Option<&Tensor>], op: UnaryOp) -> KResult<Vec<Tensor>> {
    one(ew::unary(op, req(node, ins, 0)?)?)
}

fn present<'a>(ins: &[Option<&'a Tensor>]) -> Vec<&'a Tensor> {
    ins.iter().flatten().copied().collect()
}

macro_rules! binary_kernels {
    ($($name:literal => $op:expr),* $(,)?) => {
        fn binary_lookup(name: &str) -> Option<TensorKernel> {
            Some(match name {
                $($name => |n, i| bin(n, i, $op),)*
                _ => return None,
            })
        }
    };
}

macro_rules! unary_kernels {
    ($($name:literal => $op:expr),* $(,)?) => {
        fn unary_lookup(name: &str) -> Option<TensorKernel> {
            Some(match name {
                $($name => |n, i| un(n, i, $op),)*
                _ => return None,
            })
        }
    };
}

binary_kernels! {
    "Add" => BinaryOp::Add,
    "Sub" => BinaryOp::Sub,
    "Mul" => BinaryOp::Mul,
    "Div" => BinaryOp::Div,
    "Pow" => BinaryOp::Pow,
    "And" => BinaryOp::And,
    "Or" => BinaryOp::Or,
    "Xor" => BinaryOp::Xor,
    "BitwiseAnd" => BinaryOp::BitwiseAnd,
    "BitwiseOr" => BinaryOp::BitwiseOr,
    "BitwiseXor" => BinaryOp::BitwiseXor,
    "Equal" => BinaryOp::Equal,
    "Less" => BinaryOp::Less,
    "LessOrEqual" => BinaryOp::LessOrEqual,
    "Greater" => BinaryOp::Greater,
    "GreaterOrEqual" => BinaryOp::GreaterOrEqual,
}

unary_kernels! {
    "Abs" => UnaryOp::Abs,
    "Neg" => UnaryOp::Neg,
    "Sqrt" => UnaryOp::Sqrt,
    "Exp" => UnaryOp::Exp,
    "Log" => UnaryOp::Log,
    "Reciprocal" => UnaryOp::Reciprocal,
    "Floor" => UnaryOp::Floor,
    "Ceil" => UnaryOp::Ceil,
    "Round" => UnaryOp::Round,
    "Sign" => UnaryOp::Sign,
    "Sin" => UnaryOp::Sin,
    "Cos" => UnaryOp::Cos,
    "Tan" => UnaryOp::Tan,
    "Asin" => UnaryOp::Asin,
    "Acos" => UnaryOp::Acos,
    "Atan" => UnaryOp::Atan,
    "Sinh" => UnaryOp::Sinh,
    "Cosh" => UnaryOp::Cosh,
    "Asinh" => UnaryOp::Asinh,
    "Acosh" => UnaryOp::Acosh,
    "Atanh" => UnaryOp::Atanh,
    "Erf" => UnaryOp::Erf,
    "Not" => UnaryOp::Not,
    "BitwiseNot" => UnaryOp::BitwiseNot,
    "Relu" => UnaryOp::Relu,
    "Sigmoid" => UnaryOp::Sigmoid,
    "HardSwish" => UnaryOp::HardSwish,
    "Softplus" => UnaryOp::Softplus,
    "Softsign" => UnaryOp::Softsign,
    "Tanh" => UnaryOp::Tanh,
    "Mish" => UnaryOp::Mish,
}

fn f32_attr(node: &Node, name: &'static str, dflt: f64) -> KResult<f32> {
    Ok(node.float_or(name, dflt)? as f32)
}

/// The kernel of an elementwise operator.
pub(super) fn lookup(name: &str) -> Option<TensorKernel> {
    if let Some(k) = binary_lookup(name).or_else(|| unary_lookup(name)) {
        return Some(k);
    }
    Some(match name {
        "Mod" => |n, i| {
            let fmod = n.int_or("fmod", 0)? != 0;
            bin(n, i, BinaryOp::Mod { fmod })
        },
        "BitShift" => |n, i| {
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
        },
        "Max" => |_, i| one(ew::max(&present(i))?),
        "Min" => |_, i| one(ew::min(&present(i))?),
        "Sum" => |_, i| one(ew::sum(&present(i))?),
        "Mean" => |_, i| one(ew::mean(&present(i))?),
        "LeakyRelu" => |n, i| {
            let alpha = f32_attr(n, "alpha", 0.01)?;
            un(n, i, UnaryOp::LeakyRelu { alpha })
        },
        "Elu" => |n, i| {
            let alpha = f32_attr(n, "alpha", 1.0)?;
            un(n, i, UnaryOp::Elu { alpha })
        },
        "Selu" => |n, i| {
            let alpha = f32_attr(n, "alpha", 1.673_263_192_176_818_8)?;
            let gamma = f32_attr(n, "gamma", 1.050_701_022_148_132_3)?;
            un(n, i, UnaryOp::Selu { alpha, gamma })
        },
        "Celu" => |n, i| {
            let alpha = f32_attr(n, "alpha", 1.0)?;
            un(n, i, UnaryOp::Celu { alpha })
        },
        "HardSigmoid" => |n, i| {
            let alpha = f32_attr(n, "alpha", 0.2)?;
            let beta = f32_attr(n, "beta", 0.5)?;
            un(n, i, UnaryOp::HardSigmoid { alpha, beta })
        },
        "Gelu" => |n, i| {
            let tanh = n.str_or("approximate", "none")? == "tanh";
            un(n, i, UnaryOp::Gelu { tanh })
        },
        "ThresholdedRelu" => |n, i| {
            let alpha = f32_attr(n, "alpha", 1.0)?;
            un(n, i, UnaryOp::ThresholdedRelu { alpha })
        },
        "Shrink" => |n, i| {
            let bias = f32_attr(n, "bias", 0.0)?;
            let lambd = f32_attr(n, "lambd", 0.5)?;
            un(n, i, UnaryOp::Shrink { bias, lambd })
        },
        "IsNaN" => |n, i| one(ew::is_nan(req(n, i, 0)?)?),
        "IsInf" => |n, i| {
            let neg = n.int_or("detect_negative", 1)? != 0;
            let pos = n.int_or("detect_positive", 1)? != 0;
            one(ew::is_inf(req(n, i, 0)?, neg, pos)?)
        },
        "PRelu" => |n, i| one(ew::prelu(req(n, i, 0)?, req(n, i, 1)?)?),
        "Clip" => |n, i| {
            let x = req(n, i, 0)?;
            // Opset 6 form: bounds as attributes.
            if n.has("min") || n.has("max") {
                let lo = n
                    .opt_float("min")?
                    .map(|v| Tensor::from_f64(x.dtype(), vec![], vec![v]));
                let hi = n
                    .opt_float("max")?
                    .map(|v| Tensor::from_f64(x.dtype(), vec![], vec![v]));
                let lo = lo.transpose()?;
                let hi = hi.transpose()?;
                return one(ew::clip(x, lo.as_ref(), hi.as_ref())?);
            }
            one(ew::clip(x, opt(i, 1), opt(i, 2))?)
        },
        "Where" => |n, i| one(ew::where_(req(n, i, 0)?, req(n, i, 1)?, req(n, i, 2)?)?),
        _ => return None,
    })
}
