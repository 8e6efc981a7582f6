//! Minimal reference kernels for `quant.qcast`, `quant.dcast` and `quant.scast`, so that the
//! interpreter runs QDQ-form IR (calibration checks, the end-to-end accuracy test).
//!
//! They stand in until the `qnn` work lands its exact kernels; they follow the casts' documented
//! semantics: `qcast` computes `clamp(round_half_even(x / scale) + zero_point, qmin, qmax)`,
//! `dcast` computes `scale * (q - zero_point)`, and `scast` reinterprets storage integers.
//! At run time a quantized value is a tensor of its storage integers, typed by width and
//! signedness (`u8`, `i8`, `i4`, `u16`, `i32`, ...; odd widths live in the next byte type).
//!
//! The parameters come from the quantized type, which the kernels cannot see: each kernel's
//! [`ReferenceKernel::plan_attrs`] reads them from the op's types when the function is planned.

use nart_dialect_quant::types::{QuantParams, UniformQuantizedType};
use nart_interp::attrs::{AttrValue, Node};
use nart_interp::{Kernel, ReferenceKernel};
use nart_ir::{Context, Op};
use nart_tensor::{DType, KernelError, Result as KResult, Tensor};

/// The run-time storage type of quantized values of `width` bits.
pub fn storage_dtype(width: u32, signed: bool) -> DType {
    match (width, signed) {
        (2, true) => DType::I2,
        (2, false) => DType::U2,
        (4, true) => DType::I4,
        (4, false) => DType::U4,
        (w, true) if w <= 8 => DType::I8,
        (w, false) if w <= 8 => DType::U8,
        (w, true) if w <= 16 => DType::I16,
        (w, false) if w <= 16 => DType::U16,
        (_, true) => DType::I32,
        (_, false) => DType::U32,
    }
}

/// The parameters of a quantized type, flattened into node attributes.
fn param_attrs(q: &UniformQuantizedType) -> Vec<(String, AttrValue)> {
    let (axis, block, scale_shape) = match &q.params {
        QuantParams::PerTensor { .. } => (-1, Vec::new(), Vec::new()),
        QuantParams::PerAxis { axis, .. } => (i64::from(*axis), Vec::new(), Vec::new()),
        QuantParams::PerBlock {
            block_sizes, shape, ..
        } => (
            -1,
            block_sizes
                .iter()
                .flat_map(|&(d, b)| [i64::from(d), b])
                .collect(),
            shape.clone(),
        ),
    };
    vec![
        ("q.scales".into(), AttrValue::Floats(q.scales())),
        ("q.zero_points".into(), AttrValue::Ints(q.zero_points())),
        ("q.axis".into(), AttrValue::Int(axis)),
        ("q.blocks".into(), AttrValue::Ints(block)),
        ("q.scale_shape".into(), AttrValue::Ints(scale_shape)),
        (
            "q.storage".into(),
            AttrValue::Ints(vec![
                i64::from(q.storage_width),
                i64::from(q.signed),
                q.storage_min,
                q.storage_max,
            ]),
        ),
    ]
}

/// Which side of a cast holds the quantized type.
#[derive(Clone, Copy)]
enum Side {
    Operand,
    Result,
    Either,
}

struct CastKernel {
    kernel: Kernel,
    side: Side,
}

impl ReferenceKernel for CastKernel {
    fn kernel(&self) -> Kernel {
        self.kernel
    }

    fn plan_attrs(&self, ctx: &Context, op: Op) -> Vec<(String, AttrValue)> {
        let of = |v| nart_dialect_quant::types::quantized_element(ctx, ctx.value_type(v));
        let (input, result) = (ctx.operands(op).first(), ctx.results(op).first());
        let q = match self.side {
            Side::Operand => input.and_then(|&v| of(v)),
            Side::Result => result.and_then(|&v| of(v)),
            Side::Either => input
                .and_then(|&v| of(v))
                .or_else(|| result.and_then(|&v| of(v))),
        };
        let mut attrs = q.map(param_attrs).unwrap_or_default();
        if let Side::Either = self.side {
            let to_storage = input.and_then(|&v| of(v)).is_some();
            attrs.push(("q.to_storage".into(), AttrValue::Int(i64::from(to_storage))));
        }
        attrs
    }
}

/// The parameters a kernel reads from its node.
struct Params {
    scales: Vec<f64>,
    zero_points: Vec<i64>,
    axis: i64,
    blocks: Vec<i64>,
    scale_shape: Vec<i64>,
    width: u32,
    signed: bool,
    qmin: i64,
    qmax: i64,
}

fn invalid(msg: String) -> KernelError {
    KernelError::BadAttribute {
        op: "quant cast",
        attr: "quantized type",
        msg,
    }
}

fn bad(n: &Node, msg: &str) -> KernelError {
    invalid(format!("{} at {}: {msg}", n.op, n.loc))
}

fn params(n: &Node) -> KResult<Params> {
    let ints = |k: &str| match n.get(k) {
        Some(AttrValue::Ints(v)) => Ok(v),
        _ => Err(bad(n, "has no quantized type to read its parameters from")),
    };
    let storage = ints("q.storage")?;
    let scales = match n.get("q.scales") {
        Some(AttrValue::Floats(v)) => v,
        _ => return Err(bad(n, "has no quantized type to read its parameters from")),
    };
    let axis = match n.get("q.axis") {
        Some(AttrValue::Int(a)) => a,
        _ => -1,
    };
    Ok(Params {
        scales,
        zero_points: ints("q.zero_points")?,
        axis,
        blocks: ints("q.blocks")?,
        scale_shape: ints("q.scale_shape")?,
        width: storage[0] as u32,
        signed: storage[1] != 0,
        qmin: storage[2],
        qmax: storage[3],
    })
}

impl Params {
    /// The index of the scale and zero point of each element of a tensor of `shape`.
    fn indices(&self, shape: &[usize]) -> KResult<Vec<usize>> {
        let n: usize = shape.iter().product();
        if self.axis >= 0 {
            let axis = self.axis as usize;
            let dim = *shape
                .get(axis)
                .ok_or_else(|| invalid("quantized axis out of range".into()))?;
            if dim != self.scales.len() {
                return Err(invalid(format!(
                    "{} scales for a dimension of {dim}",
                    self.scales.len()
                )));
            }
            let inner: usize = shape[axis + 1..].iter().product();
            return Ok((0..n).map(|i| (i / inner.max(1)) % dim).collect());
        }
        if self.blocks.is_empty() {
            return Ok(vec![0; n]);
        }
        let mut block = vec![0usize; shape.len()];
        for (d, b) in block.iter_mut().enumerate() {
            *b = self
                .blocks
                .chunks(2)
                .find(|c| c[0] as usize == d)
                .map_or(shape[d], |c| c[1] as usize)
                .max(1);
        }
        let sshape: Vec<usize> = self.scale_shape.iter().map(|&d| d as usize).collect();
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let (mut rem, mut idx, mut stride) = (i, 0usize, 1usize);
            let mut coords = vec![0usize; shape.len()];
            for d in (0..shape.len()).rev() {
                coords[d] = rem % shape[d];
                rem /= shape[d];
            }
            for d in (0..shape.len()).rev() {
                idx += (coords[d] / block[d]) * stride;
                stride *= sshape.get(d).copied().unwrap_or(1);
            }
            out.push(idx);
        }
        Ok(out)
    }
}

fn input<'t>(n: &Node, i: &[Option<&'t Tensor>]) -> KResult<&'t Tensor> {
    i.first()
        .copied()
        .flatten()
        .ok_or_else(|| bad(n, "has no input"))
}

fn qcast(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let x = input(n, i)?;
    let p = params(n)?;
    let idx = p.indices(x.shape())?;
    let q: Vec<f64> = x
        .to_f64_vec()?
        .iter()
        .zip(&idx)
        .map(|(&v, &k)| {
            let q = (v / p.scales[k]).round_ties_even() + p.zero_points[k] as f64;
            q.clamp(p.qmin as f64, p.qmax as f64)
        })
        .collect();
    Ok(vec![Tensor::from_f64(
        storage_dtype(p.width, p.signed),
        x.shape().to_vec(),
        q,
    )?])
}

fn dcast(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let q = input(n, i)?;
    let p = params(n)?;
    let idx = p.indices(q.shape())?;
    let x: Vec<f64> = q
        .to_f64_vec()?
        .iter()
        .zip(&idx)
        .map(|(&v, &k)| p.scales[k] * (v - p.zero_points[k] as f64))
        .collect();
    let dtype = n
        .out_dtypes
        .first()
        .copied()
        .flatten()
        .unwrap_or(DType::F32);
    Ok(vec![Tensor::from_f64(dtype, q.shape().to_vec(), x)?])
}

fn scast(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let t = input(n, i)?;
    let p = params(n)?;
    let to_storage = matches!(n.get("q.to_storage"), Some(AttrValue::Int(1)));
    let modulus = 2f64.powi(p.width as i32);
    let half = modulus / 2.0;
    let v: Vec<f64> = t
        .to_f64_vec()?
        .into_iter()
        .map(|v| match (to_storage, p.signed) {
            // Signless storage reads as signed; an unsigned quantized value wraps into it.
            (true, false) if v >= half => v - modulus,
            (false, false) if v < 0.0 => v + modulus,
            _ => v,
        })
        .collect();
    let dtype = if to_storage {
        storage_dtype(p.width, true)
    } else {
        storage_dtype(p.width, p.signed)
    };
    Ok(vec![Tensor::from_f64(dtype, t.shape().to_vec(), v)?])
}

static QCAST: CastKernel = CastKernel {
    kernel: Kernel::Tensor(qcast),
    side: Side::Result,
};
static DCAST: CastKernel = CastKernel {
    kernel: Kernel::Tensor(dcast),
    side: Side::Operand,
};
static SCAST: CastKernel = CastKernel {
    kernel: Kernel::Tensor(scast),
    side: Side::Either,
};

/// Attaches the kernels to `quant.qcast`, `quant.dcast` and `quant.scast`.
pub fn register(ctx: &mut Context) {
    ctx.attach_interface::<dyn ReferenceKernel>("quant.qcast", &QCAST);
    ctx.attach_interface::<dyn ReferenceKernel>("quant.dcast", &DCAST);
    ctx.attach_interface::<dyn ReferenceKernel>("quant.scast", &SCAST);
}
