//! Attribute mapping for the shape, indexing and type operators of `nart_tensor::{shape_ops,
//! index}` and Cast, CastLike and BitCast, plus the helpers the control-flow kernels use to
//! split and stack tensors.

use nart_tensor::index::{self, NmsAttrs, ScatterReduction};
use nart_tensor::shape_ops::{self as so, PadMode};
use nart_tensor::{CastOptions, DType, KernelError, Result as KResult, Tensor};

use super::{one, opt, req};
use crate::attrs::Node;

/// Concatenates tensors along `axis`.
pub(crate) fn concat(ts: &[&Tensor], axis: usize) -> KResult<Tensor> {
    so::concat(ts, axis as i64)
}

/// Stacks equally shaped tensors along a new axis.
pub(crate) fn stack(ts: &[&Tensor], axis: usize) -> KResult<Tensor> {
    let parts = ts
        .iter()
        .map(|t| so::unsqueeze(t, &[axis as i64]))
        .collect::<KResult<Vec<_>>>()?;
    let refs: Vec<&Tensor> = parts.iter().collect();
    so::concat(&refs, axis as i64)
}

/// Element `i` along `axis`, with that axis removed.
pub(crate) fn take_axis(t: &Tensor, axis: usize, i: usize) -> KResult<Tensor> {
    let s = so::slice(t, &[i as i64], &[i as i64 + 1], Some(&[axis as i64]), None)?;
    so::squeeze(&s, Some(&[axis as i64]))
}

/// Permutes axes.
pub(crate) fn transpose(t: &Tensor, perm: &[usize]) -> KResult<Tensor> {
    let p: Vec<i64> = perm.iter().map(|&v| v as i64).collect();
    so::transpose(t, Some(&p))
}

fn ints(t: &Tensor) -> KResult<Vec<i64>> {
    t.to_i64_vec()
}

fn opt_ints(ins: &[Option<&Tensor>], i: usize) -> KResult<Option<Vec<i64>>> {
    opt(ins, i).map(ints).transpose()
}

/// Axes from input `i` or, for older forms, the `axes` attribute.
fn axes_of(n: &Node, ins: &[Option<&Tensor>], i: usize) -> KResult<Option<Vec<i64>>> {
    match opt_ints(ins, i)? {
        Some(a) => Ok(Some(a)),
        None => n.opt_ints("axes"),
    }
}

pub(super) fn reshape(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let shape = ints(req(n, i, 1)?)?;
    one(so::reshape(
        req(n, i, 0)?,
        &shape,
        n.int_or("allowzero", 0)? != 0,
    )?)
}

pub(super) fn squeeze(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let axes = axes_of(n, i, 1)?;
    one(so::squeeze(req(n, i, 0)?, axes.as_deref())?)
}

pub(super) fn unsqueeze(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let axes = axes_of(n, i, 1)?.unwrap_or_default();
    one(so::unsqueeze(req(n, i, 0)?, &axes)?)
}

pub(super) fn split(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let sizes = opt_ints(i, 1)?;
    let num = n.opt_int("num_outputs")?.map(|v| v.max(1) as usize);
    // Without sizes or num_outputs, ONNX splits into as many equal parts as there are outputs.
    let num = if sizes.is_none() && num.is_none() {
        Some(n.out_dtypes.len().max(1))
    } else {
        num
    };
    so::split(req(n, i, 0)?, n.int_or("axis", 0)?, sizes.as_deref(), num)
}

pub(super) fn slice(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let starts = ints(req(n, i, 1)?)?;
    let ends = ints(req(n, i, 2)?)?;
    let axes = opt_ints(i, 3)?;
    let steps = opt_ints(i, 4)?;
    one(so::slice(
        req(n, i, 0)?,
        &starts,
        &ends,
        axes.as_deref(),
        steps.as_deref(),
    )?)
}

pub(super) fn pad(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let mode = n.str_or("mode", "constant")?;
    let mode = match mode.as_str() {
        "constant" => PadMode::Constant,
        "reflect" => PadMode::Reflect,
        "edge" => PadMode::Edge,
        "wrap" => PadMode::Wrap,
        _ => {
            return Err(KernelError::attr(
                "Pad",
                "mode",
                format!("unknown mode '{mode}'"),
            ))
        }
    };
    let pads = ints(req(n, i, 1)?)?;
    let axes = opt_ints(i, 3)?;
    one(so::pad(
        req(n, i, 0)?,
        &pads,
        mode,
        opt(i, 2),
        axes.as_deref(),
    )?)
}

fn cast_opts(n: &Node) -> KResult<CastOptions> {
    let mut o = CastOptions {
        saturate: n.int_or("saturate", 1)? != 0,
        ..CastOptions::default()
    };
    o.round_mode = match n.str_or("round_mode", "up")?.as_str() {
        "down" => nart_tensor::smallfloat::E8M0Round::Down,
        "nearest" => nart_tensor::smallfloat::E8M0Round::Nearest,
        _ => o.round_mode,
    };
    Ok(o)
}

pub(super) fn cast(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let to = n
        .dtype("to")?
        .ok_or_else(|| KernelError::attr("Cast", "to", "required attribute is missing"))?;
    one(req(n, i, 0)?.cast_with(to, cast_opts(n)?)?)
}

fn scatter_reduction(n: &Node) -> KResult<ScatterReduction> {
    Ok(match n.str_or("reduction", "none")?.as_str() {
        "none" => ScatterReduction::None,
        "add" => ScatterReduction::Add,
        "mul" => ScatterReduction::Mul,
        "max" => ScatterReduction::Max,
        "min" => ScatterReduction::Min,
        other => {
            return Err(KernelError::attr(
                n.onnx,
                "reduction",
                format!("unknown reduction '{other}'"),
            ))
        }
    })
}

pub(super) fn nms(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let scalar_i = |k: usize| -> KResult<Option<f64>> {
        match opt(i, k) {
            Some(t) if !t.is_empty() => Ok(Some(t.to_f64_vec()?[0])),
            _ => Ok(None),
        }
    };
    let attrs = NmsAttrs {
        center_point_box: n.int_or("center_point_box", 0)? != 0,
        max_output_boxes_per_class: scalar_i(2)?.unwrap_or(0.0) as i64,
        iou_threshold: scalar_i(3)?.unwrap_or(0.0) as f32,
        score_threshold: scalar_i(4)?.map(|v| v as f32),
    };
    one(index::non_max_suppression(
        req(n, i, 0)?,
        req(n, i, 1)?,
        attrs,
    )?)
}

pub(super) fn flatten(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(so::flatten(req(n, i, 0)?, n.int_or("axis", 1)?)?)
}

pub(super) fn expand(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(so::expand(req(n, i, 0)?, &ints(req(n, i, 1)?)?)?)
}

pub(super) fn tile(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(so::tile(req(n, i, 0)?, &ints(req(n, i, 1)?)?)?)
}

pub(super) fn size(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(so::size(req(n, i, 0)?))
}

pub(super) fn range(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(so::range(req(n, i, 0)?, req(n, i, 1)?, req(n, i, 2)?)?)
}

pub(super) fn non_zero(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(index::non_zero(req(n, i, 0)?)?)
}

pub(super) fn concat_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let ts: Vec<&Tensor> = i.iter().flatten().copied().collect();
    one(so::concat(&ts, n.int("axis")?)?)
}

pub(super) fn transpose_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let perm = n.opt_ints("perm")?;
    one(so::transpose(req(n, i, 0)?, perm.as_deref())?)
}

fn blocksize(n: &Node) -> KResult<usize> {
    let b = n.int("blocksize")?;
    usize::try_from(b).map_err(|_| KernelError::attr(n.onnx, "blocksize", "must not be negative"))
}

pub(super) fn depth_to_space(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let crd = n.str_or("mode", "DCR")? == "CRD";
    one(so::depth_to_space(req(n, i, 0)?, blocksize(n)?, crd)?)
}

pub(super) fn space_to_depth(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let crd = n.str_or("mode", "DCR")? == "CRD";
    one(so::space_to_depth(req(n, i, 0)?, blocksize(n)?, crd)?)
}

pub(super) fn shape_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(so::shape_of(
        req(n, i, 0)?,
        n.int_or("start", 0)?,
        n.opt_int("end")?,
    ))
}

pub(super) fn constant_of_shape(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(so::constant_of_shape(
        &ints(req(n, i, 0)?)?,
        n.tensor("value"),
    )?)
}

pub(super) fn trilu(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let k = match opt(i, 1) {
        Some(t) => ints(t)?.first().copied().unwrap_or(0),
        None => 0,
    };
    one(so::trilu(req(n, i, 0)?, k, n.int_or("upper", 1)? != 0)?)
}

pub(super) fn one_hot(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(so::one_hot(
        req(n, i, 0)?,
        req(n, i, 1)?,
        req(n, i, 2)?,
        n.int_or("axis", -1)?,
    )?)
}

pub(super) fn eye_like(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(so::eye_like(
        req(n, i, 0)?,
        n.int_or("k", 0)?,
        n.dtype("dtype")?,
    )?)
}

pub(super) fn center_crop_pad(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let axes = n.opt_ints("axes")?;
    one(so::center_crop_pad(
        req(n, i, 0)?,
        &ints(req(n, i, 1)?)?,
        axes.as_deref(),
    )?)
}

pub(super) fn cast_like(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(req(n, i, 0)?.cast_with(req(n, i, 1)?.dtype(), cast_opts(n)?)?)
}

pub(super) fn bit_cast(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let to = n.int("to")?;
    let dt = DType::from_onnx_code(to as i32)
        .ok_or_else(|| KernelError::attr(n.onnx, "to", format!("unknown type code {to}")))?;
    one(req(n, i, 0)?.bit_cast(dt)?)
}

/// Gather, GatherElements and the deprecated Scatter take `axis` (default 0).
fn axis0(n: &Node) -> KResult<i64> {
    n.int_or("axis", 0)
}

pub(super) fn gather(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(index::gather(req(n, i, 0)?, req(n, i, 1)?, axis0(n)?)?)
}

pub(super) fn gather_elements(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(index::gather_elements(
        req(n, i, 0)?,
        req(n, i, 1)?,
        axis0(n)?,
    )?)
}

pub(super) fn gather_nd(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(index::gather_nd(
        req(n, i, 0)?,
        req(n, i, 1)?,
        n.int_or("batch_dims", 0)?.max(0) as usize,
    )?)
}

pub(super) fn scatter_elements(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(index::scatter_elements(
        req(n, i, 0)?,
        req(n, i, 1)?,
        req(n, i, 2)?,
        axis0(n)?,
        scatter_reduction(n)?,
    )?)
}

/// The deprecated Scatter: ScatterElements without a reduction.
pub(super) fn scatter(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(index::scatter_elements(
        req(n, i, 0)?,
        req(n, i, 1)?,
        req(n, i, 2)?,
        axis0(n)?,
        ScatterReduction::None,
    )?)
}

pub(super) fn scatter_nd(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(index::scatter_nd(
        req(n, i, 0)?,
        req(n, i, 1)?,
        req(n, i, 2)?,
        scatter_reduction(n)?,
    )?)
}

pub(super) fn tensor_scatter(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let circular = match n.str_or("mode", "linear")?.as_str() {
        "linear" => false,
        "circular" => true,
        m => {
            return Err(KernelError::attr(
                n.onnx,
                "mode",
                format!("unknown mode '{m}'"),
            ))
        }
    };
    one(index::tensor_scatter(
        req(n, i, 0)?,
        req(n, i, 1)?,
        opt(i, 2),
        n.int_or("axis", -2)?,
        circular,
    )?)
}

pub(super) fn compress(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(index::compress(
        req(n, i, 0)?,
        req(n, i, 1)?,
        n.opt_int("axis")?,
    )?)
}

pub(super) fn reverse_sequence(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let axis = |name: &'static str, dflt: i64| -> KResult<usize> {
        usize::try_from(n.int_or(name, dflt)?)
            .map_err(|_| KernelError::attr(n.onnx, name, "must not be negative"))
    };
    one(index::reverse_sequence(
        req(n, i, 0)?,
        req(n, i, 1)?,
        axis("batch_axis", 1)?,
        axis("time_axis", 0)?,
    )?)
}

pub(super) fn unique(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let u = index::unique(
        req(n, i, 0)?,
        n.opt_int("axis")?,
        n.int_or("sorted", 1)? != 0,
    )?;
    Ok(vec![u.y, u.indices, u.inverse_indices, u.counts])
}
