//! Reference kernels of the `qnn` dialect's ops and of `quant`'s casts: they map an op's
//! properties and its operand and result types' quantization (`Node::in_quant`,
//! `Node::out_quant`) onto `nart_tensor::qnn`.
//!
//! They are attached here, not by the qnn crate, because the [`ReferenceKernel`] interface
//! belongs to this crate (tier 4), which the dialect crates (tier 3) may not depend on; this
//! crate depends on the quant and qnn dialects instead, as MLIR's external models do.
//!
//! [`ReferenceKernel`]: super::ReferenceKernel

use nart_tensor::qnn::{self, Activation, ConvAttrs, Output, PoolAttrs, QParams, Rounding};
use nart_tensor::{KernelError, Result as KResult, Tensor};

use super::nn::usizes;
use super::{one, opt, req, Kernel};
use crate::attrs::Node;

use Kernel::Tensor as T;

/// The kernel of every qnn op and quant cast, by full op name.
pub(crate) static QNN_KERNELS: &[(&str, Kernel)] = &[
    ("qnn.add", T(add)),
    ("qnn.avg_pool", T(avg_pool)),
    ("qnn.concat", T(concat)),
    ("qnn.conv", T(conv)),
    ("qnn.lut", T(lut)),
    ("qnn.matmul", T(matmul)),
    ("qnn.max_pool", T(max_pool)),
    ("qnn.mul", T(mul)),
    ("qnn.requantize", T(requantize)),
    ("quant.dcast", T(dcast)),
    ("quant.qcast", T(qcast)),
    ("quant.scast", T(scast)),
];

fn quant<'n>(
    op: &'static str,
    q: &'n [Option<QParams>],
    i: usize,
    what: &str,
) -> KResult<&'n QParams> {
    q.get(i).and_then(Option::as_ref).ok_or_else(|| {
        KernelError::shape(
            op,
            format!("{what} #{i} has no per-tensor or per-axis quantized type"),
        )
    })
}

fn qin<'n>(op: &'static str, n: &'n Node, i: usize) -> KResult<&'n QParams> {
    quant(op, &n.in_quant, i, "operand")
}

fn qout<'n>(op: &'static str, n: &'n Node) -> KResult<&'n QParams> {
    quant(op, &n.out_quant, 0, "result")
}

fn rounding(op: &'static str, n: &Node) -> KResult<Rounding> {
    match n.str_or("rounding", "half_even")?.as_str() {
        "half_even" => Ok(Rounding::HalfEven),
        "half_away" => Ok(Rounding::HalfAway),
        "half_up" => Ok(Rounding::HalfUp),
        other => Err(KernelError::attr(
            op,
            "rounding",
            format!("unknown rounding '{other}'"),
        )),
    }
}

fn activation(op: &'static str, n: &Node) -> KResult<Activation> {
    match n.str_or("activation", "none")?.as_str() {
        "none" => Ok(Activation::None),
        "relu" => Ok(Activation::Relu),
        "relu6" => Ok(Activation::Relu6),
        "clip" => Ok(Activation::Clip {
            min: n.float_or("clip_min", f64::NEG_INFINITY)?,
            max: n.float_or("clip_max", f64::INFINITY)?,
        }),
        other => Err(KernelError::attr(
            op,
            "activation",
            format!("unknown activation '{other}'"),
        )),
    }
}

fn output<'n>(op: &'static str, n: &'n Node) -> KResult<Output<'n>> {
    Ok(Output {
        q: qout(op, n)?,
        act: activation(op, n)?,
        rounding: rounding(op, n)?,
    })
}

fn sizes(n: &Node, name: &'static str) -> KResult<Vec<usize>> {
    if n.has(name) {
        usizes(n, name)
    } else {
        Ok(Vec::new())
    }
}

fn requantize(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "qnn.requantize";
    one(qnn::requantize(
        req(n, i, 0)?,
        qin(OP, n, 0)?,
        qout(OP, n)?,
        rounding(OP, n)?,
    )?)
}

fn conv(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "qnn.conv";
    let attrs = ConvAttrs {
        strides: sizes(n, "strides")?,
        pads: sizes(n, "pads")?,
        dilations: sizes(n, "dilations")?,
        group: usize::try_from(n.int_or("group", 1)?).unwrap_or(0),
    };
    let (x, w) = (req(n, i, 0)?, req(n, i, 1)?);
    one(qnn::conv(
        x,
        qin(OP, n, 0)?,
        w,
        qin(OP, n, 1)?,
        opt(i, 2),
        &attrs,
        output(OP, n)?,
    )?)
}

fn matmul(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "qnn.matmul";
    let (a, b) = (req(n, i, 0)?, req(n, i, 1)?);
    one(qnn::matmul(
        a,
        qin(OP, n, 0)?,
        b,
        qin(OP, n, 1)?,
        opt(i, 2),
        output(OP, n)?,
    )?)
}

fn add(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "qnn.add";
    let (a, b) = (req(n, i, 0)?, req(n, i, 1)?);
    one(qnn::add(
        a,
        qin(OP, n, 0)?,
        b,
        qin(OP, n, 1)?,
        output(OP, n)?,
    )?)
}

fn mul(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "qnn.mul";
    let (a, b) = (req(n, i, 0)?, req(n, i, 1)?);
    one(qnn::mul(
        a,
        qin(OP, n, 0)?,
        b,
        qin(OP, n, 1)?,
        output(OP, n)?,
    )?)
}

fn concat(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "qnn.concat";
    let mut inputs = Vec::with_capacity(i.len());
    for k in 0..i.len() {
        inputs.push((req(n, i, k)?, qin(OP, n, k)?));
    }
    let axis = usize::try_from(n.int("axis")?)
        .map_err(|_| KernelError::attr(OP, "axis", "must not be negative"))?;
    one(qnn::concat(&inputs, axis, qout(OP, n)?, rounding(OP, n)?)?)
}

fn pool_attrs(n: &Node) -> KResult<PoolAttrs> {
    Ok(PoolAttrs {
        kernel: usizes(n, "kernel_shape")?,
        strides: sizes(n, "strides")?,
        pads: sizes(n, "pads")?,
        dilations: sizes(n, "dilations")?,
        count_include_pad: n.has("count_include_pad"),
    })
}

fn avg_pool(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "qnn.avg_pool";
    let x = req(n, i, 0)?;
    one(qnn::avg_pool(
        x,
        qin(OP, n, 0)?,
        &pool_attrs(n)?,
        qout(OP, n)?,
        rounding(OP, n)?,
    )?)
}

fn max_pool(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "qnn.max_pool";
    one(qnn::max_pool(
        req(n, i, 0)?,
        qin(OP, n, 0)?,
        &pool_attrs(n)?,
    )?)
}

fn lut(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "qnn.lut";
    let table = n.ints("table")?;
    let xq = qin(OP, n, 0)?;
    one(qnn::lut(
        req(n, i, 0)?,
        &table,
        xq.first(),
        qout(OP, n)?.dtype,
    )?)
}

fn qcast(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(qnn::quantize(req(n, i, 0)?, qout("quant.qcast", n)?)?)
}

fn dcast(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "quant.dcast";
    let to = n
        .out_dtypes
        .first()
        .copied()
        .flatten()
        .ok_or_else(|| KernelError::shape(OP, "the result's float type is unknown"))?;
    one(qnn::dequantize(req(n, i, 0)?, qin(OP, n, 0)?, to)?)
}

fn scast(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "quant.scast";
    let to = n
        .out_dtypes
        .first()
        .copied()
        .flatten()
        .ok_or_else(|| KernelError::shape(OP, "the result's element type is unknown"))?;
    one(qnn::storage_cast(req(n, i, 0)?, to)?)
}
