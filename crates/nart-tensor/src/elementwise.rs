//! Elementwise operators: numpy-broadcasting binary ops, unary math, activations (Swish and
//! SwiGLU included), Where, Clip and inference-mode Dropout.

use crate::layout::{broadcast_all, broadcast_index, broadcast_shapes};
use crate::smallfloat::round_half_even;
use crate::tensor::Data;
use crate::{DType, KernelError, Result, Tensor};

/// A binary elementwise operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b`; integers truncate toward zero.
    Div,
    /// `a ^ b`, output of `a`'s type.
    Pow,
    /// Remainder; `fmod` takes the sign of the dividend (C fmod), otherwise of the divisor (Python).
    Mod {
        /// ONNX `fmod` attribute.
        fmod: bool,
    },
    /// Elementwise maximum (NaN propagates).
    Max,
    /// Elementwise minimum (NaN propagates).
    Min,
    /// Logical and of bools.
    And,
    /// Logical or of bools.
    Or,
    /// Logical xor of bools.
    Xor,
    /// BitShift with direction LEFT.
    ShiftLeft,
    /// BitShift with direction RIGHT.
    ShiftRight,
    /// BitwiseAnd.
    BitwiseAnd,
    /// BitwiseOr.
    BitwiseOr,
    /// BitwiseXor.
    BitwiseXor,
    /// `a == b` to bool.
    Equal,
    /// `a < b` to bool.
    Less,
    /// `a <= b` to bool.
    LessOrEqual,
    /// `a > b` to bool.
    Greater,
    /// `a >= b` to bool.
    GreaterOrEqual,
}

impl BinaryOp {
    fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "Add",
            BinaryOp::Sub => "Sub",
            BinaryOp::Mul => "Mul",
            BinaryOp::Div => "Div",
            BinaryOp::Pow => "Pow",
            BinaryOp::Mod { .. } => "Mod",
            BinaryOp::Max => "Max",
            BinaryOp::Min => "Min",
            BinaryOp::And => "And",
            BinaryOp::Or => "Or",
            BinaryOp::Xor => "Xor",
            BinaryOp::ShiftLeft | BinaryOp::ShiftRight => "BitShift",
            BinaryOp::BitwiseAnd => "BitwiseAnd",
            BinaryOp::BitwiseOr => "BitwiseOr",
            BinaryOp::BitwiseXor => "BitwiseXor",
            BinaryOp::Equal => "Equal",
            BinaryOp::Less => "Less",
            BinaryOp::LessOrEqual => "LessOrEqual",
            BinaryOp::Greater => "Greater",
            BinaryOp::GreaterOrEqual => "GreaterOrEqual",
        }
    }

    fn is_compare(self) -> bool {
        matches!(
            self,
            BinaryOp::Equal
                | BinaryOp::Less
                | BinaryOp::LessOrEqual
                | BinaryOp::Greater
                | BinaryOp::GreaterOrEqual
        )
    }
}

fn cmp_result<T: PartialOrd>(op: BinaryOp, a: T, b: T) -> bool {
    match op {
        BinaryOp::Equal => a == b,
        BinaryOp::Less => a < b,
        BinaryOp::LessOrEqual => a <= b,
        BinaryOp::Greater => a > b,
        _ => a >= b,
    }
}

fn float_binary(op: BinaryOp, a: f64, b: f64) -> f64 {
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        BinaryOp::Pow => a.powf(b),
        BinaryOp::Mod { fmod: true } => a % b,
        BinaryOp::Mod { fmod: false } => {
            let r = a % b;
            if r != 0.0 && (r < 0.0) != (b < 0.0) {
                r + b
            } else {
                r
            }
        }
        BinaryOp::Max => {
            if a.is_nan() || b.is_nan() {
                f64::NAN
            } else {
                a.max(b)
            }
        }
        BinaryOp::Min => {
            if a.is_nan() || b.is_nan() {
                f64::NAN
            } else {
                a.min(b)
            }
        }
        _ => f64::NAN,
    }
}

fn int_binary(op: BinaryOp, dtype: DType, a: i128, b: i128) -> Result<i128> {
    let bits = dtype.bit_width() as i128;
    Ok(match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::Div => {
            if b == 0 {
                return Err(KernelError::DivisionByZero { op: "Div" });
            }
            a.wrapping_div(b)
        }
        BinaryOp::Mod { fmod } => {
            if b == 0 {
                return Err(KernelError::DivisionByZero { op: "Mod" });
            }
            let r = a % b;
            if !fmod && r != 0 && ((r < 0) != (b < 0)) {
                r + b
            } else {
                r
            }
        }
        BinaryOp::Pow => {
            if b < 0 {
                // numpy raises for negative integer powers; follow the float result truncated.
                (a as f64).powf(b as f64) as i128
            } else {
                let mut r: i128 = 1;
                let mut base = a;
                let mut e = b;
                while e > 0 {
                    if e & 1 == 1 {
                        r = dtype.wrap_int(r.wrapping_mul(base));
                    }
                    base = dtype.wrap_int(base.wrapping_mul(base));
                    e >>= 1;
                }
                r
            }
        }
        BinaryOp::Max => a.max(b),
        BinaryOp::Min => a.min(b),
        BinaryOp::BitwiseAnd => a & b,
        BinaryOp::BitwiseOr => a | b,
        BinaryOp::BitwiseXor => a ^ b,
        BinaryOp::ShiftLeft => {
            if b < 0 || b >= bits {
                0
            } else {
                a << b
            }
        }
        BinaryOp::ShiftRight => {
            if b < 0 || b >= bits {
                if a < 0 {
                    -1
                } else {
                    0
                }
            } else {
                a >> b
            }
        }
        _ => return Err(KernelError::dtype(op.name(), dtype)),
    })
}

/// Runs a binary elementwise operator with numpy broadcasting.
pub fn binary(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let name = op.name();
    let (da, db) = (a.dtype(), b.dtype());
    if da != db && op != BinaryOp::Pow {
        return Err(KernelError::DTypeMismatch {
            op: name,
            a: da,
            b: db,
        });
    }
    let shape = broadcast_shapes(name, a.shape(), b.shape())?;
    let bool_out = op.is_compare();
    match op {
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
            let (Data::Bool(x), Data::Bool(y)) = (a.data(), b.data()) else {
                return Err(KernelError::dtype(name, da));
            };
            let ia = broadcast_index(&shape, a.shape());
            let ib = broadcast_index(&shape, b.shape());
            let v = ia
                .iter()
                .zip(&ib)
                .map(|(&i, &j)| match op {
                    BinaryOp::And => x[i] && y[j],
                    BinaryOp::Or => x[i] || y[j],
                    _ => x[i] ^ y[j],
                })
                .collect();
            return Tensor::new(DType::Bool, shape, Data::Bool(v));
        }
        BinaryOp::ShiftLeft
        | BinaryOp::ShiftRight
        | BinaryOp::BitwiseAnd
        | BinaryOp::BitwiseOr
        | BinaryOp::BitwiseXor
            if !da.is_int() =>
        {
            return Err(KernelError::dtype(name, da));
        }
        _ => {}
    }
    if let (Data::F32(x), Data::F32(y), false) = (a.data(), b.data(), bool_out) {
        if a.shape() == b.shape() {
            // Same shapes: elementwise without index vectors (the arithmetic of the general
            // path below).
            let v = x
                .iter()
                .zip(y)
                .map(|(&p, &q)| float_binary(op, p as f64, q as f64) as f32)
                .collect();
            return Tensor::new(DType::F32, shape, Data::F32(v));
        }
    }
    let ia = broadcast_index(&shape, a.shape());
    let ib = broadcast_index(&shape, b.shape());
    if bool_out {
        let v: Vec<bool> = match (a.data(), b.data()) {
            (Data::Str(x), Data::Str(y)) => ia
                .iter()
                .zip(&ib)
                .map(|(&i, &j)| cmp_result(op, &x[i], &y[j]))
                .collect(),
            (Data::Bool(x), Data::Bool(y)) => ia
                .iter()
                .zip(&ib)
                .map(|(&i, &j)| cmp_result(op, x[i], y[j]))
                .collect(),
            _ if da.is_int() => {
                let (x, y) = (a.to_i128_vec()?, b.to_i128_vec()?);
                ia.iter()
                    .zip(&ib)
                    .map(|(&i, &j)| cmp_result(op, x[i], y[j]))
                    .collect()
            }
            _ if da.is_float() => {
                let (x, y) = (a.to_f64_vec()?, b.to_f64_vec()?);
                ia.iter()
                    .zip(&ib)
                    .map(|(&i, &j)| cmp_result(op, x[i], y[j]))
                    .collect()
            }
            _ => return Err(KernelError::dtype(name, da)),
        };
        return Tensor::new(DType::Bool, shape, Data::Bool(v));
    }
    if da.is_float() {
        if let (Data::F32(x), Data::F32(y)) = (a.data(), b.data()) {
            // Fast path; f32 add/sub/mul/div computed in f64 and rounded once equal the f32 result.
            let v = ia
                .iter()
                .zip(&ib)
                .map(|(&i, &j)| float_binary(op, x[i] as f64, y[j] as f64) as f32)
                .collect();
            return Tensor::new(DType::F32, shape, Data::F32(v));
        }
        let (x, y) = (a.to_f64_vec()?, b.to_f64_vec()?);
        let v = ia
            .iter()
            .zip(&ib)
            .map(|(&i, &j)| float_binary(op, x[i], y[j]))
            .collect();
        return Tensor::from_f64(da, shape, v);
    }
    if da.is_int() {
        if op == BinaryOp::Pow && db.is_float() {
            let (x, y) = (a.to_f64_vec()?, b.to_f64_vec()?);
            let v: Vec<i128> = ia
                .iter()
                .zip(&ib)
                .map(|(&i, &j)| x[i].powf(y[j]) as i128)
                .collect();
            return Tensor::from_i128(da, shape, v);
        }
        let (x, y) = (a.to_i128_vec()?, b.to_i128_vec()?);
        let v = ia
            .iter()
            .zip(&ib)
            .map(|(&i, &j)| int_binary(op, da, x[i], y[j]))
            .collect::<Result<Vec<_>>>()?;
        return Tensor::from_i128(da, shape, v);
    }
    if da.is_complex()
        && matches!(
            op,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
        )
    {
        let (x, y) = (a.to_c128_vec()?, b.to_c128_vec()?);
        let v: Vec<_> = ia
            .iter()
            .zip(&ib)
            .map(|(&i, &j)| match op {
                BinaryOp::Add => x[i] + y[j],
                BinaryOp::Sub => x[i] - y[j],
                BinaryOp::Mul => x[i] * y[j],
                _ => x[i] / y[j],
            })
            .collect();
        return Tensor::new(DType::Complex128, shape, Data::C128(v))?.cast(da);
    }
    Err(KernelError::dtype(name, da))
}

/// ONNX Add.
pub fn add(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(BinaryOp::Add, a, b)
}

/// ONNX Sub.
pub fn sub(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(BinaryOp::Sub, a, b)
}

/// ONNX Mul.
pub fn mul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(BinaryOp::Mul, a, b)
}

/// ONNX Div.
pub fn div(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(BinaryOp::Div, a, b)
}

fn variadic(op: &'static str, bop: BinaryOp, xs: &[&Tensor]) -> Result<Tensor> {
    let Some((first, rest)) = xs.split_first() else {
        return Err(KernelError::Arity {
            op,
            msg: "needs at least one input".into(),
        });
    };
    let mut acc = (*first).clone();
    for x in rest {
        acc = binary(bop, &acc, x).map_err(|e| match e {
            KernelError::Broadcast { a, b, .. } => KernelError::Broadcast { op, a, b },
            e => e,
        })?;
    }
    if xs.len() == 1 {
        // A single input still broadcasts to itself.
        return Ok(acc);
    }
    Ok(acc)
}

/// ONNX Max with any number of inputs.
pub fn max(xs: &[&Tensor]) -> Result<Tensor> {
    variadic("Max", BinaryOp::Max, xs)
}

/// ONNX Min with any number of inputs.
pub fn min(xs: &[&Tensor]) -> Result<Tensor> {
    variadic("Min", BinaryOp::Min, xs)
}

/// ONNX Sum with any number of inputs.
pub fn sum(xs: &[&Tensor]) -> Result<Tensor> {
    variadic("Sum", BinaryOp::Add, xs)
}

/// ONNX Mean with any number of inputs (float types).
pub fn mean(xs: &[&Tensor]) -> Result<Tensor> {
    let shapes: Vec<&[usize]> = xs.iter().map(|t| t.shape()).collect();
    broadcast_all("Mean", &shapes)?;
    let s = sum(xs)?;
    if !s.dtype().is_float() {
        return Err(KernelError::dtype("Mean", s.dtype()));
    }
    let n = xs.len() as f64;
    let v = s.to_f64_vec()?.into_iter().map(|x| x / n).collect();
    Tensor::from_f64(s.dtype(), s.shape().to_vec(), v)
}

/// A unary elementwise operator, with its attributes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UnaryOp {
    /// |x|.
    Abs,
    /// -x.
    Neg,
    /// Square root.
    Sqrt,
    /// e^x.
    Exp,
    /// Natural log.
    Log,
    /// 1/x.
    Reciprocal,
    /// Round down.
    Floor,
    /// Round up.
    Ceil,
    /// Round half to even.
    Round,
    /// -1, 0 or 1.
    Sign,
    /// Sine.
    Sin,
    /// Cosine.
    Cos,
    /// Tangent.
    Tan,
    /// Arcsine.
    Asin,
    /// Arccosine.
    Acos,
    /// Arctangent.
    Atan,
    /// Hyperbolic sine.
    Sinh,
    /// Hyperbolic cosine.
    Cosh,
    /// Inverse hyperbolic sine.
    Asinh,
    /// Inverse hyperbolic cosine.
    Acosh,
    /// Inverse hyperbolic tangent.
    Atanh,
    /// Error function.
    Erf,
    /// Logical not (bool).
    Not,
    /// Bitwise not (integers).
    BitwiseNot,
    /// max(x, 0).
    Relu,
    /// x if x >= 0 else alpha * x.
    LeakyRelu {
        /// Slope for negative inputs (default 0.01).
        alpha: f32,
    },
    /// x if x > 0 else alpha * (e^x - 1).
    Elu {
        /// Default 1.0.
        alpha: f32,
    },
    /// gamma * (x if x > 0 else alpha * (e^x - 1)).
    Selu {
        /// Default 1.67326319217681884765625.
        alpha: f32,
        /// Default 1.05070102214813232421875.
        gamma: f32,
    },
    /// max(0, x) + min(0, alpha * (e^(x/alpha) - 1)).
    Celu {
        /// Default 1.0.
        alpha: f32,
    },
    /// 1 / (1 + e^-x).
    Sigmoid,
    /// max(0, min(1, alpha * x + beta)).
    HardSigmoid {
        /// Default 0.2.
        alpha: f32,
        /// Default 0.5.
        beta: f32,
    },
    /// x * HardSigmoid(x) with alpha 1/6 and beta 0.5.
    HardSwish,
    /// ln(e^x + 1).
    Softplus,
    /// x / (1 + |x|).
    Softsign,
    /// Hyperbolic tangent.
    Tanh,
    /// Gaussian error linear unit; `tanh` selects the tanh approximation.
    Gelu {
        /// ONNX `approximate = "tanh"`.
        tanh: bool,
    },
    /// x * tanh(softplus(x)).
    Mish,
    /// x * sigmoid(alpha * x) (opset 24 Swish), rounded to the input type after every step as
    /// ONNX's numpy reference does (as in [`swiglu`]).
    Swish {
        /// Default 1.0.
        alpha: f32,
    },
    /// x if x > alpha else 0.
    ThresholdedRelu {
        /// Default 1.0.
        alpha: f32,
    },
    /// x - bias if x > lambd, x + bias if x < -lambd, else 0.
    Shrink {
        /// Default 0.0.
        bias: f32,
        /// Default 0.5.
        lambd: f32,
    },
}

impl UnaryOp {
    fn name(self) -> &'static str {
        match self {
            UnaryOp::Abs => "Abs",
            UnaryOp::Neg => "Neg",
            UnaryOp::Sqrt => "Sqrt",
            UnaryOp::Exp => "Exp",
            UnaryOp::Log => "Log",
            UnaryOp::Reciprocal => "Reciprocal",
            UnaryOp::Floor => "Floor",
            UnaryOp::Ceil => "Ceil",
            UnaryOp::Round => "Round",
            UnaryOp::Sign => "Sign",
            UnaryOp::Sin => "Sin",
            UnaryOp::Cos => "Cos",
            UnaryOp::Tan => "Tan",
            UnaryOp::Asin => "Asin",
            UnaryOp::Acos => "Acos",
            UnaryOp::Atan => "Atan",
            UnaryOp::Sinh => "Sinh",
            UnaryOp::Cosh => "Cosh",
            UnaryOp::Asinh => "Asinh",
            UnaryOp::Acosh => "Acosh",
            UnaryOp::Atanh => "Atanh",
            UnaryOp::Erf => "Erf",
            UnaryOp::Not => "Not",
            UnaryOp::BitwiseNot => "BitwiseNot",
            UnaryOp::Relu => "Relu",
            UnaryOp::LeakyRelu { .. } => "LeakyRelu",
            UnaryOp::Elu { .. } => "Elu",
            UnaryOp::Selu { .. } => "Selu",
            UnaryOp::Celu { .. } => "Celu",
            UnaryOp::Sigmoid => "Sigmoid",
            UnaryOp::HardSigmoid { .. } => "HardSigmoid",
            UnaryOp::HardSwish => "HardSwish",
            UnaryOp::Softplus => "Softplus",
            UnaryOp::Softsign => "Softsign",
            UnaryOp::Tanh => "Tanh",
            UnaryOp::Gelu { .. } => "Gelu",
            UnaryOp::Mish => "Mish",
            UnaryOp::Swish { .. } => "Swish",
            UnaryOp::ThresholdedRelu { .. } => "ThresholdedRelu",
            UnaryOp::Shrink { .. } => "Shrink",
        }
    }
}

/// The error function, accurate to about 1e-15.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    let ax = x.abs();
    let r = if ax < 2.5 {
        // Maclaurin series: 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)).
        let x2 = ax * ax;
        let mut term = ax;
        let mut sum = ax;
        let mut n = 0.0;
        loop {
            n += 1.0;
            term *= -x2 / n;
            let t = term / (2.0 * n + 1.0);
            sum += t;
            if t.abs() <= 1e-17 * sum.abs() || n > 200.0 {
                break;
            }
        }
        sum * std::f64::consts::FRAC_2_SQRT_PI
    } else if ax > 6.0 {
        1.0
    } else {
        // erfc by continued fraction, evaluated backwards.
        let mut f = 0.0;
        for k in (1..=60).rev() {
            f = (k as f64 / 2.0) / (ax + f);
        }
        1.0 - (-ax * ax).exp() / std::f64::consts::PI.sqrt() / (ax + f)
    };
    if x < 0.0 {
        -r
    } else {
        r
    }
}

fn softplus(x: f64) -> f64 {
    if x > 30.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

fn float_unary(op: UnaryOp, x: f64) -> f64 {
    match op {
        UnaryOp::Abs => x.abs(),
        UnaryOp::Neg => -x,
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Reciprocal => 1.0 / x,
        UnaryOp::Floor => x.floor(),
        UnaryOp::Ceil => x.ceil(),
        UnaryOp::Round => round_half_even(x),
        UnaryOp::Sign => {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else if x.is_nan() {
                f64::NAN
            } else {
                0.0
            }
        }
        UnaryOp::Sin => x.sin(),
        UnaryOp::Cos => x.cos(),
        UnaryOp::Tan => x.tan(),
        UnaryOp::Asin => x.asin(),
        UnaryOp::Acos => x.acos(),
        UnaryOp::Atan => x.atan(),
        UnaryOp::Sinh => x.sinh(),
        UnaryOp::Cosh => x.cosh(),
        UnaryOp::Asinh => x.asinh(),
        UnaryOp::Acosh => x.acosh(),
        UnaryOp::Atanh => x.atanh(),
        UnaryOp::Erf => erf(x),
        UnaryOp::Relu => {
            if x > 0.0 || x.is_nan() {
                x
            } else {
                0.0
            }
        }
        UnaryOp::LeakyRelu { alpha } => {
            if x >= 0.0 {
                x
            } else {
                alpha as f64 * x
            }
        }
        UnaryOp::Elu { alpha } => {
            if x > 0.0 {
                x
            } else {
                alpha as f64 * x.exp_m1()
            }
        }
        UnaryOp::Selu { alpha, gamma } => {
            let g = gamma as f64;
            if x > 0.0 {
                g * x
            } else {
                g * alpha as f64 * x.exp_m1()
            }
        }
        UnaryOp::Celu { alpha } => {
            let a = alpha as f64;
            x.max(0.0) + (a * (x / a).exp_m1()).min(0.0)
        }
        UnaryOp::Sigmoid => {
            if x >= 0.0 {
                1.0 / (1.0 + (-x).exp())
            } else {
                let e = x.exp();
                e / (1.0 + e)
            }
        }
        UnaryOp::HardSigmoid { alpha, beta } => (alpha as f64 * x + beta as f64).clamp(0.0, 1.0),
        UnaryOp::HardSwish => x * (x / 6.0 + 0.5).clamp(0.0, 1.0),
        UnaryOp::Softplus => softplus(x),
        UnaryOp::Softsign => x / (1.0 + x.abs()),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Gelu { tanh: false } => 0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2)),
        UnaryOp::Gelu { tanh: true } => {
            let k = (2.0 / std::f64::consts::PI).sqrt();
            0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh())
        }
        UnaryOp::Mish => x * softplus(x).tanh(),
        UnaryOp::Swish { alpha } => swish(DType::F64, alpha as f64, x),
        UnaryOp::ThresholdedRelu { alpha } => {
            if x > alpha as f64 {
                x
            } else {
                0.0
            }
        }
        UnaryOp::Shrink { bias, lambd } => {
            let (b, l) = (bias as f64, lambd as f64);
            if x < -l {
                x + b
            } else if x > l {
                x - b
            } else {
                0.0
            }
        }
        UnaryOp::Not | UnaryOp::BitwiseNot => f64::NAN,
    }
}

/// `x * sigmoid(alpha * x)` with `alpha`, the product `alpha * x`, the sigmoid and the result
/// each rounded to `dt`, as numpy computes Swish in the input type.
///
/// The one Swish of this crate: [`UnaryOp::Swish`], [`swiglu`] and the fused SiLU of
/// [`crate::conv::causal_conv_with_state`] all use it.
pub(crate) fn swish(dt: DType, alpha: f64, x: f64) -> f64 {
    let ax = dt.round(dt.round(alpha) * x);
    dt.round(x * dt.round(float_unary(UnaryOp::Sigmoid, ax)))
}

/// Runs a unary elementwise operator.
pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    let dt = x.dtype();
    let shape = x.shape().to_vec();
    match op {
        UnaryOp::Swish { alpha } if dt.is_float() => {
            let v = x
                .to_f64_vec()?
                .into_iter()
                .map(|a| swish(dt, alpha as f64, a))
                .collect();
            return Tensor::from_f64(dt, shape, v);
        }
        UnaryOp::Not => {
            let Data::Bool(v) = x.data() else {
                return Err(KernelError::dtype("Not", dt));
            };
            return Tensor::new(
                DType::Bool,
                shape,
                Data::Bool(v.iter().map(|b| !b).collect()),
            );
        }
        UnaryOp::BitwiseNot => {
            if !dt.is_int() {
                return Err(KernelError::dtype("BitwiseNot", dt));
            }
            let v = x.to_i128_vec()?.into_iter().map(|a| !a).collect();
            return Tensor::from_i128(dt, shape, v);
        }
        _ => {}
    }
    if dt.is_float() {
        if let Data::F32(v) = x.data() {
            // ReLU follows nearly every convolution: its own loop, which vectorizes, rather
            // than the per-element dispatch below (the same values: f32 -> f64 is exact).
            let out = if matches!(op, UnaryOp::Relu) {
                v.iter()
                    .map(|&a| if a > 0.0 || a.is_nan() { a } else { 0.0 })
                    .collect()
            } else {
                v.iter()
                    .map(|&a| float_unary(op, a as f64) as f32)
                    .collect()
            };
            return Tensor::new(dt, shape, Data::F32(out));
        }
        let v = x
            .to_f64_vec()?
            .into_iter()
            .map(|a| float_unary(op, a))
            .collect();
        return Tensor::from_f64(dt, shape, v);
    }
    if dt.is_int() {
        let v = x.to_i128_vec()?;
        let out: Vec<i128> = match op {
            UnaryOp::Abs => v.into_iter().map(|a| a.abs()).collect(),
            UnaryOp::Neg => v.into_iter().map(|a| -a).collect(),
            UnaryOp::Sign => v.into_iter().map(|a| a.signum()).collect(),
            UnaryOp::Relu => v.into_iter().map(|a| a.max(0)).collect(),
            UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round => v,
            _ => return Err(KernelError::dtype(op.name(), dt)),
        };
        return Tensor::from_i128(dt, shape, out);
    }
    Err(KernelError::dtype(op.name(), dt))
}

/// ONNX SwiGLU: `Swish_alpha(a) * b` for `a` and `b` of one shape and float type, rounded to
/// that type after every step.
pub fn swiglu(a: &Tensor, b: &Tensor, alpha: f32) -> Result<Tensor> {
    const OP: &str = "SwiGLU";
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
    let (av, bv) = (a.float_values(OP)?, b.float_values(OP)?);
    let v = av
        .iter()
        .zip(&bv)
        .map(|(&x, &y)| dt.round(swish(dt, alpha as f64, x) * y))
        .collect();
    Tensor::from_f64(dt, a.shape().to_vec(), v)
}

/// ONNX Dropout without randomness: the input unchanged and an all-true mask.
///
/// Training mode with a non-zero `ratio` would drop elements at random, which a reference
/// interpreter cannot reproduce; it is an error.
pub fn dropout(x: &Tensor, ratio: f64, training_mode: bool) -> Result<(Tensor, Tensor)> {
    if training_mode && ratio != 0.0 {
        return Err(KernelError::attr(
            "Dropout",
            "training_mode",
            "random dropout in training mode is not supported",
        ));
    }
    let mask = Tensor::new(
        DType::Bool,
        x.shape().to_vec(),
        Data::Bool(vec![true; x.len()]),
    )?;
    Ok((x.clone(), mask))
}

/// ONNX IsNaN.
pub fn is_nan(x: &Tensor) -> Result<Tensor> {
    if !x.dtype().is_float() {
        return Err(KernelError::dtype("IsNaN", x.dtype()));
    }
    let v = x.to_f64_vec()?.into_iter().map(f64::is_nan).collect();
    Tensor::new(DType::Bool, x.shape().to_vec(), Data::Bool(v))
}

/// ONNX IsInf with `detect_negative` and `detect_positive`.
pub fn is_inf(x: &Tensor, detect_negative: bool, detect_positive: bool) -> Result<Tensor> {
    if !x.dtype().is_float() {
        return Err(KernelError::dtype("IsInf", x.dtype()));
    }
    let v = x
        .to_f64_vec()?
        .into_iter()
        .map(|a| a.is_infinite() && ((a > 0.0 && detect_positive) || (a < 0.0 && detect_negative)))
        .collect();
    Tensor::new(DType::Bool, x.shape().to_vec(), Data::Bool(v))
}

/// ONNX PRelu: `x` if `x >= 0` else `slope * x`, with `slope` broadcast to `x`.
pub fn prelu(x: &Tensor, slope: &Tensor) -> Result<Tensor> {
    let shape = broadcast_shapes("PRelu", x.shape(), slope.shape())?;
    let ix = broadcast_index(&shape, x.shape());
    let is = broadcast_index(&shape, slope.shape());
    if x.dtype().is_int() {
        let (a, s) = (x.to_i128_vec()?, slope.to_i128_vec()?);
        let v = ix
            .iter()
            .zip(&is)
            .map(|(&i, &j)| {
                if a[i] >= 0 {
                    a[i]
                } else {
                    a[i].wrapping_mul(s[j])
                }
            })
            .collect();
        return Tensor::from_i128(x.dtype(), shape, v);
    }
    let (a, s) = (x.to_f64_vec()?, slope.to_f64_vec()?);
    let v = ix
        .iter()
        .zip(&is)
        .map(|(&i, &j)| if a[i] >= 0.0 { a[i] } else { a[i] * s[j] })
        .collect();
    Tensor::from_f64(x.dtype(), shape, v)
}

/// ONNX Clip with optional scalar `min` and `max` inputs.
pub fn clip(x: &Tensor, min: Option<&Tensor>, max: Option<&Tensor>) -> Result<Tensor> {
    for t in [min, max].into_iter().flatten() {
        if t.len() != 1 {
            return Err(KernelError::shape("Clip", "min and max must be scalars"));
        }
    }
    if x.dtype().is_int() {
        let lo = min.map(|t| t.to_i128_vec()).transpose()?.map(|v| v[0]);
        let hi = max.map(|t| t.to_i128_vec()).transpose()?.map(|v| v[0]);
        let v = x
            .to_i128_vec()?
            .into_iter()
            .map(|mut a| {
                if let Some(l) = lo {
                    a = a.max(l);
                }
                if let Some(h) = hi {
                    a = a.min(h);
                }
                a
            })
            .collect();
        return Tensor::from_i128(x.dtype(), x.shape().to_vec(), v);
    }
    if !x.dtype().is_float() {
        return Err(KernelError::dtype("Clip", x.dtype()));
    }
    let lo = min.map(|t| t.to_f64_vec()).transpose()?.map(|v| v[0]);
    let hi = max.map(|t| t.to_f64_vec()).transpose()?.map(|v| v[0]);
    let clip1 = |mut a: f64| {
        if let Some(l) = lo {
            if a < l {
                a = l;
            }
        }
        if let Some(h) = hi {
            if a > h {
                a = h;
            }
        }
        a
    };
    // f32 (nearly every model) element by element, without f64 copies of the whole tensor;
    // the same arithmetic and rounding as the general path below.
    if let Data::F32(v) = x.data() {
        let out = v.iter().map(|&a| clip1(a as f64) as f32).collect();
        return Tensor::new(x.dtype(), x.shape().to_vec(), Data::F32(out));
    }
    let v = x.to_f64_vec()?.into_iter().map(clip1).collect();
    Tensor::from_f64(x.dtype(), x.shape().to_vec(), v)
}

/// ONNX Where: `x` where `cond` is true, else `y`, all broadcast together.
pub fn where_(cond: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let Data::Bool(c) = cond.data() else {
        return Err(KernelError::dtype("Where", cond.dtype()));
    };
    if x.dtype() != y.dtype() {
        return Err(KernelError::DTypeMismatch {
            op: "Where",
            a: x.dtype(),
            b: y.dtype(),
        });
    }
    let shape = broadcast_all("Where", &[cond.shape(), x.shape(), y.shape()])?;
    let ic = broadcast_index(&shape, cond.shape());
    let ix = broadcast_index(&shape, x.shape());
    let iy = broadcast_index(&shape, y.shape());
    // Gather from the concatenation of x and y.
    let both = Data::concat(&[x.data(), y.data()]);
    let off = x.len();
    let idx: Vec<usize> = (0..ic.len())
        .map(|k| if c[ic[k]] { ix[k] } else { off + iy[k] })
        .collect();
    Tensor::new(x.dtype(), shape, both.take(&idx))
}

#[cfg(test)]
#[allow(clippy::excessive_precision, clippy::approx_constant)]
mod tests {
    use super::*;
    use crate::test_util::{close, f};

    #[test]
    fn broadcast_arith() {
        let a = f(&[2, 3], [1., 2., 3., 4., 5., 6.]);
        let b = f(&[3], [10., 20., 30.]);
        assert_eq!(
            add(&a, &b).unwrap().as_f32().unwrap(),
            &[11., 22., 33., 14., 25., 36.]
        );
        assert_eq!(sub(&a, &b).unwrap().shape(), &[2, 3]);
        let c = f(&[2, 1], [2., 4.]);
        assert_eq!(
            div(&a, &c).unwrap().as_f32().unwrap(),
            &[0.5, 1., 1.5, 1., 1.25, 1.5]
        );
        assert!(add(&a, &f(&[2], [1., 2.])).is_err());
        assert!(add(&a, &Tensor::vector(vec![1i32])).is_err());
    }

    #[test]
    fn integer_semantics() {
        let a = Tensor::vector(vec![-7i32, 7, -7, 7]);
        let b = Tensor::vector(vec![2i32, -2, -2, 2]);
        // Div truncates toward zero: onnx.reference Div -> [-3, -3, 3, 3]
        assert_eq!(
            div(&a, &b).unwrap().as_slice::<i32>().unwrap(),
            &[-3, -3, 3, 3]
        );
        // np.mod(a, b) -> [1, -1, -1, 1]; np.fmod(a, b) -> [-1, 1, -1, 1]
        let m = binary(BinaryOp::Mod { fmod: false }, &a, &b).unwrap();
        assert_eq!(m.as_slice::<i32>().unwrap(), &[1, -1, -1, 1]);
        let m = binary(BinaryOp::Mod { fmod: true }, &a, &b).unwrap();
        assert_eq!(m.as_slice::<i32>().unwrap(), &[-1, 1, -1, 1]);
        let z = Tensor::vector(vec![0i32, 0, 0, 0]);
        assert!(matches!(
            div(&a, &z),
            Err(KernelError::DivisionByZero { .. })
        ));
        let x = Tensor::vector(vec![100u8, 200]);
        assert_eq!(add(&x, &x).unwrap().as_slice::<u8>().unwrap(), &[200, 144]);
        let s = binary(
            BinaryOp::ShiftLeft,
            &Tensor::vector(vec![16u8, 1]),
            &Tensor::vector(vec![4u8, 9]),
        )
        .unwrap();
        assert_eq!(s.as_slice::<u8>().unwrap(), &[0, 0]);
        let s = binary(
            BinaryOp::ShiftRight,
            &Tensor::vector(vec![16u8, 255]),
            &Tensor::vector(vec![2u8, 4]),
        )
        .unwrap();
        assert_eq!(s.as_slice::<u8>().unwrap(), &[4, 15]);
        let p = binary(
            BinaryOp::Pow,
            &Tensor::vector(vec![3i64, 2]),
            &Tensor::vector(vec![2.0f32, 0.5]),
        )
        .unwrap();
        assert_eq!(p.as_i64().unwrap(), &[9, 1]);
    }

    #[test]
    fn float_mod_and_compare() {
        let a = f(&[3], [-4.5, 4.5, 5.0]);
        let b = f(&[3], [2.0, -2.0, 3.0]);
        // np.fmod -> [-0.5, 0.5, 2.0]; np.mod -> [1.5, -1.5, 2.0]
        assert_eq!(
            binary(BinaryOp::Mod { fmod: true }, &a, &b)
                .unwrap()
                .as_f32()
                .unwrap(),
            &[-0.5, 0.5, 2.0]
        );
        assert_eq!(
            binary(BinaryOp::Mod { fmod: false }, &a, &b)
                .unwrap()
                .as_f32()
                .unwrap(),
            &[1.5, -1.5, 2.0]
        );
        let l = binary(BinaryOp::Less, &a, &b).unwrap();
        assert_eq!(l.as_slice::<bool>().unwrap(), &[true, false, false]);
        let e = binary(
            BinaryOp::Equal,
            &Tensor::vector(vec!["a".to_string()]),
            &Tensor::vector(vec!["a".to_string()]),
        );
        assert_eq!(e.unwrap().as_slice::<bool>().unwrap(), &[true]);
        let m = max(&[&a, &b, &f(&[1], [f32::NAN])]).unwrap();
        assert!(m.as_f32().unwrap().iter().all(|x| x.is_nan()));
        let mn = mean(&[&a, &b]).unwrap();
        assert_eq!(mn.as_f32().unwrap(), &[-1.25, 1.25, 4.0]);
        let t = Tensor::vector(vec![true, false]);
        let u = Tensor::vector(vec![true, true]);
        assert_eq!(
            binary(BinaryOp::Xor, &t, &u)
                .unwrap()
                .as_slice::<bool>()
                .unwrap(),
            &[false, true]
        );
    }

    #[test]
    fn unary_math() {
        let x = f(&[6], [-2.5, -0.5, 0.5, 1.5, 2.5, 3.7]);
        // np.round (half to even) -> [-2, -0, 0, 2, 2, 4]
        assert_eq!(
            unary(UnaryOp::Round, &x).unwrap().as_f32().unwrap(),
            &[-2., -0., 0., 2., 2., 4.]
        );
        // scipy.special.erf([0.5, 1.0, 3.0]) = [0.5204998778130465, 0.8427007929497149, 0.9999779095030014]
        for (a, e) in [
            (0.5, 0.5204998778130465),
            (1.0, 0.8427007929497149),
            (3.0, 0.9999779095030014),
        ] {
            assert!((erf(a) - e).abs() < 1e-14, "{a}");
            assert!((erf(-a) + e).abs() < 1e-14);
        }
        let h = Tensor::vector(vec![half::f16::from_f32(4.0)]);
        let r = unary(UnaryOp::Sqrt, &h).unwrap();
        assert_eq!(r.dtype(), DType::F16);
        assert_eq!(r.to_f32_vec().unwrap(), vec![2.0]);
        assert_eq!(
            unary(UnaryOp::Abs, &Tensor::vector(vec![-3i8]))
                .unwrap()
                .as_slice::<i8>()
                .unwrap(),
            &[3]
        );
        assert!(unary(UnaryOp::Exp, &Tensor::vector(vec![1i32])).is_err());
        let nan = is_nan(&f(&[2], [f32::NAN, 1.0])).unwrap();
        assert_eq!(nan.as_slice::<bool>().unwrap(), &[true, false]);
        let inf = is_inf(
            &f(&[3], [f32::INFINITY, f32::NEG_INFINITY, 1.0]),
            false,
            true,
        )
        .unwrap();
        assert_eq!(inf.as_slice::<bool>().unwrap(), &[true, false, false]);
    }

    #[test]
    fn activations() {
        let x = f(&[4], [-2.0, -0.5, 0.0, 1.0]);
        let run = |op| unary(op, &x).unwrap().to_f32_vec().unwrap();
        assert_eq!(run(UnaryOp::Relu), vec![0., 0., 0., 1.]);
        close(
            &run(UnaryOp::LeakyRelu { alpha: 0.1 }),
            &[-0.2, -0.05, 0.0, 1.0],
            1e-7,
        );
        // 1/(1+np.exp(-x)) -> [0.11920292, 0.37754067, 0.5, 0.7310586]
        close(
            &run(UnaryOp::Sigmoid),
            &[0.11920292, 0.37754067, 0.5, 0.7310586],
            1e-6,
        );
        // Gelu: 0.5*x*(1+erf(x/sqrt(2))) -> [-0.04550026, -0.15426877, 0, 0.8413447]
        close(
            &run(UnaryOp::Gelu { tanh: false }),
            &[-0.04550026, -0.15426877, 0.0, 0.8413447],
            1e-6,
        );
        // tanh approximation -> [-0.04540231, -0.15428599, 0, 0.8411920]
        close(
            &run(UnaryOp::Gelu { tanh: true }),
            &[-0.04540231, -0.15428599, 0.0, 0.841192],
            1e-6,
        );
        // x*np.tanh(np.log1p(np.exp(x))) -> [-0.25250148, -0.22074377, 0, 0.86509839]
        close(
            &run(UnaryOp::Mish),
            &[-0.25250148, -0.22074377, 0.0, 0.86509839],
            1e-6,
        );
        // x / (1 + np.exp(-x)) -> [-0.23840584, -0.18877033, 0, 0.73105858]
        let swish = run(UnaryOp::Swish { alpha: 1.0 });
        close(&swish, &[-0.23840584, -0.18877033, 0.0, 0.73105858], 1e-6);
        close(
            &run(UnaryOp::HardSwish),
            &[-0.33333334, -0.20833333, 0.0, 0.6666667],
            1e-6,
        );
        // Selu defaults: [-1.5201665, -0.6917582, 0, 1.050701]
        let selu = UnaryOp::Selu {
            alpha: 1.673_263_2,
            gamma: 1.050_701,
        };
        close(&run(selu), &[-1.5201665, -0.6917582, 0.0, 1.050701], 1e-6);
        close(
            &run(UnaryOp::Elu { alpha: 1.0 }),
            &[-0.86466473, -0.39346933, 0.0, 1.0],
            1e-6,
        );
        close(
            &run(UnaryOp::Celu { alpha: 2.0 }),
            &[-1.2642411, -0.44239843, 0.0, 1.0],
            1e-6,
        );
        close(
            &run(UnaryOp::Softplus),
            &[0.12692805, 0.47407699, 0.69314718, 1.3132616],
            1e-6,
        );
        close(
            &run(UnaryOp::Softsign),
            &[-0.6666667, -0.33333334, 0.0, 0.5],
            1e-6,
        );
        close(
            &run(UnaryOp::HardSigmoid {
                alpha: 0.2,
                beta: 0.5,
            }),
            &[0.1, 0.4, 0.5, 0.7],
            1e-6,
        );
        assert_eq!(
            run(UnaryOp::ThresholdedRelu { alpha: 0.5 }),
            vec![0., 0., 0., 1.]
        );
        assert_eq!(
            run(UnaryOp::Shrink {
                bias: 0.5,
                lambd: 0.5
            }),
            vec![-1.5, 0., 0., 0.5]
        );
        let p = prelu(&f(&[2, 2], [-1., 2., -3., 4.]), &f(&[2, 1], [0.5, 0.25])).unwrap();
        assert_eq!(p.as_f32().unwrap(), &[-0.5, 2., -0.75, 4.]);
        let c = clip(&x, Some(&Tensor::scalar(-1.0f32)), None).unwrap();
        assert_eq!(c.as_f32().unwrap(), &[-1., -0.5, 0., 1.]);
    }

    #[test]
    fn clip_f32_matches_the_f64_path() {
        // The f32 path against the same values as f64 (the general path), rounded back.
        let vals = [
            -3.5f32,
            -1.0,
            -0.25,
            0.0,
            0.75,
            2.0,
            7.0,
            f32::NAN,
            f32::INFINITY,
        ];
        let x32 = Tensor::from_vec(vec![vals.len()], vals.to_vec()).unwrap();
        let x64 = Tensor::from_vec(vec![vals.len()], vals.map(f64::from).to_vec()).unwrap();
        let bound = |v: f32| Tensor::scalar(v);
        for (lo, hi) in [
            (Some(-1.0), Some(2.0)),
            (Some(-1.0), None),
            (None, Some(0.5)),
            (None, None),
        ] {
            let (l32, h32) = (lo.map(bound), hi.map(bound));
            let got = clip(&x32, l32.as_ref(), h32.as_ref()).unwrap();
            let (l64, h64) = (
                lo.map(|v| Tensor::scalar(v as f64)),
                hi.map(|v| Tensor::scalar(v as f64)),
            );
            let want = clip(&x64, l64.as_ref(), h64.as_ref()).unwrap();
            let want: Vec<u32> = want
                .to_f64_vec()
                .unwrap()
                .iter()
                .map(|&v| (v as f32).to_bits())
                .collect();
            let got: Vec<u32> = got.as_f32().unwrap().iter().map(|v| v.to_bits()).collect();
            assert_eq!(got, want, "clip to {lo:?}..{hi:?}");
        }
        let c = clip(&x32, Some(&bound(-1.0)), Some(&bound(2.0))).unwrap();
        assert_eq!(
            &c.as_f32().unwrap()[..7],
            &[-1., -1., -0.25, 0., 0.75, 2., 2.]
        );
        assert!(c.as_f32().unwrap()[7].is_nan(), "NaN stays NaN");
    }

    #[test]
    fn where_broadcasts() {
        let c = Tensor::from_vec(vec![2, 1], vec![true, false]).unwrap();
        let x = f(&[2], [1., 2.]);
        let y = f(&[], [9.]);
        let w = where_(&c, &x, &y).unwrap();
        assert_eq!(w.shape(), &[2, 2]);
        assert_eq!(w.as_f32().unwrap(), &[1., 2., 9., 9.]);
    }
}
