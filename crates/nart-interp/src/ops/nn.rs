//! Attribute mapping for the neural-network operators: convolutions, matrix products,
//! quantization, pooling, normalization, losses, reductions and scans, Resize, GridSample and
//! AffineGrid, and Einsum, onto the matching `nart_tensor` modules.

use nart_tensor::conv::{self, AutoPad, ConvAttrs, ConvTransposeAttrs, QLinearConvInputs};
use nart_tensor::grid_sample::{self as gs, GridSampleAttrs, GridSampleMode, GridSamplePadding};
use nart_tensor::loss::{self, LossAttrs, LossReduction};
use nart_tensor::matmul::{self, GemmAttrs};
use nart_tensor::pool::{self, PoolAttrs, RoiAlignAttrs};
use nart_tensor::quant::{self, QuantAttrs};
use nart_tensor::reduce::{self, ArgAttrs, ReduceAttrs, ReduceOp, TopKAttrs};
use nart_tensor::resize::{
    self, AspectPolicy, CoordMode, NearestMode, ResizeAttrs, ResizeMode, ResizeTarget,
};
use nart_tensor::{einsum, norm, DType};
use nart_tensor::{KernelError, Result as KResult, Tensor};

use super::{one, opt, req};
use crate::attrs::Node;

/// Attribute `name` as sizes; a negative value is an error.
pub(super) fn usizes(node: &Node, name: &'static str) -> KResult<Vec<usize>> {
    node.ints(name)?
        .into_iter()
        .map(|v| {
            usize::try_from(v)
                .map_err(|_| KernelError::attr(node.onnx, name, format!("negative value {v}")))
        })
        .collect()
}

/// The values of a one-dimensional size input (Col2Im's shapes, AffineGrid's size), negative
/// values clamped to zero.
fn sizes_in(t: &Tensor) -> KResult<Vec<usize>> {
    Ok(t.to_i64_vec()?
        .into_iter()
        .map(|v| v.max(0) as usize)
        .collect())
}

/// The first value of a scalar input (an axis, a count).
pub(super) fn scalar_i64(op: &'static str, t: &Tensor) -> KResult<i64> {
    t.to_i64_vec()?
        .first()
        .copied()
        .ok_or_else(|| KernelError::shape(op, "a scalar input is empty"))
}

/// The Conv-family attributes of `node`.
pub(crate) fn conv_attrs(node: &Node) -> KResult<ConvAttrs> {
    let pad = node.str_or("auto_pad", "NOTSET")?;
    let auto_pad = AutoPad::parse(&pad)
        .ok_or_else(|| KernelError::attr(node.onnx, "auto_pad", format!("unknown mode '{pad}'")))?;
    let group = node.int_or("group", 1)?;
    Ok(ConvAttrs {
        auto_pad,
        dilations: usizes(node, "dilations")?,
        group: usize::try_from(group)
            .ok()
            .filter(|&g| g > 0)
            .ok_or_else(|| {
                KernelError::attr(node.onnx, "group", format!("must be positive, got {group}"))
            })?,
        kernel_shape: usizes(node, "kernel_shape")?,
        pads: usizes(node, "pads")?,
        strides: usizes(node, "strides")?,
    })
}

pub(super) fn conv_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(conv::conv(
        req(n, i, 0)?,
        req(n, i, 1)?,
        opt(i, 2),
        &conv_attrs(n)?,
    )?)
}

pub(super) fn conv_transpose(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let attrs = ConvTransposeAttrs {
        conv: conv_attrs(n)?,
        output_padding: usizes(n, "output_padding")?,
        output_shape: usizes(n, "output_shape")?,
    };
    one(conv::conv_transpose(
        req(n, i, 0)?,
        req(n, i, 1)?,
        opt(i, 2),
        &attrs,
    )?)
}

pub(super) fn conv_integer(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(conv::conv_integer(
        req(n, i, 0)?,
        req(n, i, 1)?,
        opt(i, 2),
        opt(i, 3),
        &conv_attrs(n)?,
    )?)
}

pub(super) fn qlinear_conv(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let q = QLinearConvInputs {
        x: req(n, i, 0)?,
        x_scale: req(n, i, 1)?,
        x_zero_point: req(n, i, 2)?,
        w: req(n, i, 3)?,
        w_scale: req(n, i, 4)?,
        w_zero_point: req(n, i, 5)?,
        y_scale: req(n, i, 6)?,
        y_zero_point: req(n, i, 7)?,
        bias: opt(i, 8),
    };
    one(conv::qlinear_conv(q, &conv_attrs(n)?)?)
}

pub(super) fn deform_conv(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let offset_group = usize::try_from(n.int_or("offset_group", 1)?).unwrap_or(1);
    one(conv::deform_conv(
        req(n, i, 0)?,
        req(n, i, 1)?,
        req(n, i, 2)?,
        opt(i, 3),
        opt(i, 4),
        &conv_attrs(n)?,
        offset_group,
    )?)
}

pub(super) fn col2im(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(conv::col2im(
        req(n, i, 0)?,
        &sizes_in(req(n, i, 1)?)?,
        &sizes_in(req(n, i, 2)?)?,
        &usizes(n, "dilations")?,
        &usizes(n, "pads")?,
        &usizes(n, "strides")?,
    )?)
}

pub(super) fn causal_conv(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let silu = match n.str_or("activation", "none")?.as_str() {
        "none" => false,
        "silu" | "swish" => true,
        a => {
            return Err(KernelError::attr(
                n.onnx,
                "activation",
                format!("unknown activation '{a}'"),
            ))
        }
    };
    let (y, state) =
        conv::causal_conv_with_state(req(n, i, 0)?, req(n, i, 1)?, opt(i, 2), opt(i, 3), silu)?;
    Ok(vec![y, state])
}

pub(super) fn gemm(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let attrs = GemmAttrs {
        alpha: n.float_or("alpha", 1.0)? as f32,
        beta: n.float_or("beta", 1.0)? as f32,
        trans_a: n.int_or("transA", 0)? != 0,
        trans_b: n.int_or("transB", 0)? != 0,
    };
    one(matmul::gemm(
        req(n, i, 0)?,
        req(n, i, 1)?,
        opt(i, 2),
        attrs,
    )?)
}

pub(super) fn matmul_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(matmul::matmul(req(n, i, 0)?, req(n, i, 1)?)?)
}

pub(super) fn det(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(matmul::det(req(n, i, 0)?)?)
}

pub(super) fn matmul_integer(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(matmul::matmul_integer(
        req(n, i, 0)?,
        req(n, i, 1)?,
        opt(i, 2),
        opt(i, 3),
    )?)
}

pub(super) fn qlinear_matmul(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(matmul::qlinear_matmul(
        req(n, i, 0)?,
        req(n, i, 1)?,
        req(n, i, 2)?,
        req(n, i, 3)?,
        req(n, i, 4)?,
        req(n, i, 5)?,
        req(n, i, 6)?,
        req(n, i, 7)?,
    )?)
}

fn quant_attrs(n: &Node) -> KResult<QuantAttrs> {
    Ok(QuantAttrs {
        axis: n.int_or("axis", 1)?,
        block_size: n.int_or("block_size", 0)?.max(0) as usize,
        saturate: n.int_or("saturate", 1)? != 0,
        output_dtype: match n.int_or("output_dtype", 0)? {
            0 => None,
            _ => n.dtype("output_dtype")?,
        },
        precision: match n.int_or("precision", 0)? {
            0 => None,
            _ => n.dtype("precision")?,
        },
    })
}

/// A one-element zero point reshaped to the shape of a one-element scale (ONNX accepts a scalar
/// and a `[1]` tensor interchangeably for per-tensor quantization); `None` when no change is needed.
fn per_tensor_zero_point(scale: &Tensor, zp: Option<&Tensor>) -> KResult<Option<Tensor>> {
    match zp {
        Some(z) if z.len() == 1 && scale.len() == 1 && z.shape() != scale.shape() => {
            Ok(Some(z.reshaped(scale.shape().to_vec())?))
        }
        _ => Ok(None),
    }
}

pub(super) fn quantize_linear(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let zp = per_tensor_zero_point(req(n, i, 1)?, opt(i, 2))?;
    let zp = zp.as_ref().or(opt(i, 2));
    one(quant::quantize_linear(
        req(n, i, 0)?,
        req(n, i, 1)?,
        zp,
        quant_attrs(n)?,
    )?)
}

pub(super) fn dequantize_linear(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let zp = per_tensor_zero_point(req(n, i, 1)?, opt(i, 2))?;
    let zp = zp.as_ref().or(opt(i, 2));
    one(quant::dequantize_linear(
        req(n, i, 0)?,
        req(n, i, 1)?,
        zp,
        quant_attrs(n)?,
    )?)
}

pub(super) fn dynamic_quantize_linear(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let (y, s, z) = quant::dynamic_quantize_linear(req(n, i, 0)?)?;
    Ok(vec![y, s, z])
}

fn pool_attrs(n: &Node) -> KResult<PoolAttrs> {
    let c = conv_attrs(n)?;
    Ok(PoolAttrs {
        auto_pad: c.auto_pad,
        ceil_mode: n.int_or("ceil_mode", 0)? != 0,
        dilations: c.dilations,
        kernel_shape: c.kernel_shape,
        pads: c.pads,
        strides: c.strides,
        count_include_pad: n.int_or("count_include_pad", 0)? != 0,
        storage_order_col_major: n.int_or("storage_order", 0)? != 0,
        p: n.int_or("p", 2)?,
    })
}

pub(super) fn max_pool(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let (y, idx) = pool::max_pool(req(n, i, 0)?, &pool_attrs(n)?)?;
    Ok(vec![y, idx])
}

pub(super) fn average_pool(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(pool::average_pool(req(n, i, 0)?, &pool_attrs(n)?)?)
}

pub(super) fn lp_pool(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(pool::lp_pool(req(n, i, 0)?, &pool_attrs(n)?)?)
}

pub(super) fn global_average_pool(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(pool::global_average_pool(req(n, i, 0)?)?)
}

pub(super) fn global_max_pool(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(pool::global_max_pool(req(n, i, 0)?)?)
}

pub(super) fn global_lp_pool(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(pool::global_lp_pool(req(n, i, 0)?, n.int_or("p", 2)?)?)
}

pub(super) fn max_unpool(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let output_shape = opt(i, 2).map(|t| t.to_i64_vec()).transpose()?;
    one(pool::max_unpool(
        req(n, i, 0)?,
        req(n, i, 1)?,
        &usizes(n, "kernel_shape")?,
        &usizes(n, "pads")?,
        &usizes(n, "strides")?,
        output_shape.as_deref(),
    )?)
}

pub(super) fn roi_align(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let a = RoiAlignAttrs {
        half_pixel: n.str_or("coordinate_transformation_mode", "half_pixel")? == "half_pixel",
        max_mode: n.str_or("mode", "avg")? == "max",
        output_height: n.int_or("output_height", 1)?.max(1) as usize,
        output_width: n.int_or("output_width", 1)?.max(1) as usize,
        sampling_ratio: n.int_or("sampling_ratio", 0)?.max(0) as usize,
        spatial_scale: n.float_or("spatial_scale", 1.0)? as f32,
    };
    one(pool::roi_align(
        req(n, i, 0)?,
        req(n, i, 1)?,
        req(n, i, 2)?,
        &a,
    )?)
}

fn eps(n: &Node) -> KResult<f32> {
    Ok(n.float_or("epsilon", 1e-5)? as f32)
}

/// BatchNormalization, in inference or (`training_mode`) training mode.
pub(super) fn batch_norm(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let (x, scale, bias, mean, var) = (
        req(n, i, 0)?,
        req(n, i, 1)?,
        req(n, i, 2)?,
        req(n, i, 3)?,
        req(n, i, 4)?,
    );
    if n.int_or("training_mode", 0)? == 0 {
        return one(norm::batch_norm(x, scale, bias, mean, var, eps(n)?)?);
    }
    let momentum = n.float_or("momentum", 0.9)? as f32;
    let out = norm::batch_norm_training(x, scale, bias, mean, var, eps(n)?, momentum)?;
    Ok(vec![out.y, out.running_mean, out.running_var])
}

pub(super) fn layer_norm(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let r = norm::layer_norm(
        req(n, i, 0)?,
        req(n, i, 1)?,
        opt(i, 2),
        n.int_or("axis", -1)?,
        eps(n)?,
    )?;
    Ok(vec![r.y, r.mean, r.inv_std_dev])
}

pub(super) fn instance_norm(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(norm::instance_norm(
        req(n, i, 0)?,
        req(n, i, 1)?,
        req(n, i, 2)?,
        eps(n)?,
    )?)
}

pub(super) fn group_norm(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let g = n.int("num_groups")?.max(0) as usize;
    one(norm::group_norm(
        req(n, i, 0)?,
        req(n, i, 1)?,
        req(n, i, 2)?,
        g,
        eps(n)?,
    )?)
}

pub(super) fn rms_norm(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(norm::rms_norm(
        req(n, i, 0)?,
        req(n, i, 1)?,
        n.int_or("axis", -1)?,
        eps(n)?,
    )?)
}

pub(super) fn lrn(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(norm::lrn(
        req(n, i, 0)?,
        n.int("size")?.max(1) as usize,
        n.float_or("alpha", 1e-4)? as f32,
        n.float_or("beta", 0.75)? as f32,
        n.float_or("bias", 1.0)? as f32,
    )?)
}

pub(super) fn lp_norm(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(norm::lp_norm(
        req(n, i, 0)?,
        n.int_or("axis", -1)?,
        n.int_or("p", 2)?,
    )?)
}

pub(super) fn mean_variance_norm(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let axes = n.opt_ints("axes")?.unwrap_or_else(|| vec![0, 2, 3]);
    one(norm::mean_variance_norm(req(n, i, 0)?, &axes)?)
}

/// Softmax, LogSoftmax and Hardmax over `axis` (default -1).
pub(super) fn softmax_like(
    n: &Node,
    i: &[Option<&Tensor>],
    f: fn(&Tensor, i64) -> KResult<Tensor>,
) -> KResult<Vec<Tensor>> {
    one(f(req(n, i, 0)?, n.int_or("axis", -1)?)?)
}

fn loss_attrs(n: &Node) -> KResult<LossAttrs> {
    let reduction = n.str_or("reduction", "mean")?;
    Ok(LossAttrs {
        reduction: LossReduction::parse(&reduction).ok_or_else(|| {
            KernelError::attr(
                n.onnx,
                "reduction",
                format!("unknown reduction '{reduction}'"),
            )
        })?,
        ignore_index: n.opt_int("ignore_index")?,
    })
}

pub(super) fn nll_loss(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(loss::nll_loss(
        req(n, i, 0)?,
        req(n, i, 1)?,
        opt(i, 2),
        loss_attrs(n)?,
    )?)
}

pub(super) fn softmax_ce_loss(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let (loss, logp) =
        loss::softmax_cross_entropy_loss(req(n, i, 0)?, req(n, i, 1)?, opt(i, 2), loss_attrs(n)?)?;
    Ok(vec![loss, logp])
}

/// Reduce* with axes from input 1 or, for older forms, the `axes` attribute.
pub(super) fn reduce_k(n: &Node, i: &[Option<&Tensor>], op: ReduceOp) -> KResult<Vec<Tensor>> {
    let axes = match opt(i, 1) {
        Some(t) => Some(t.to_i64_vec()?),
        None => n.opt_ints("axes")?,
    };
    let attrs = ReduceAttrs {
        axes,
        keepdims: n.int_or("keepdims", 1)? != 0,
        noop_with_empty_axes: n.int_or("noop_with_empty_axes", 0)? != 0,
    };
    one(reduce::reduce(op, req(n, i, 0)?, &attrs)?)
}

/// ReduceMax and ReduceMin, which also take booleans (as Or and And).
pub(super) fn reduce_bool(n: &Node, i: &[Option<&Tensor>], op: ReduceOp) -> KResult<Vec<Tensor>> {
    match req(n, i, 0)? {
        x if x.dtype() == DType::Bool => {
            let bytes = x.cast(DType::U8)?;
            let mut ins = i.to_vec();
            ins[0] = Some(&bytes);
            let out = reduce_k(n, &ins, op)?;
            out.into_iter().map(|t| t.cast(DType::Bool)).collect()
        }
        _ => reduce_k(n, i, op),
    }
}

fn arg_attrs(n: &Node) -> KResult<ArgAttrs> {
    Ok(ArgAttrs {
        axis: n.int_or("axis", 0)?,
        keepdims: n.int_or("keepdims", 1)? != 0,
        select_last_index: n.int_or("select_last_index", 0)? != 0,
    })
}

pub(super) fn arg_max(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(reduce::arg_max(req(n, i, 0)?, arg_attrs(n)?)?)
}

pub(super) fn arg_min(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(reduce::arg_min(req(n, i, 0)?, arg_attrs(n)?)?)
}

pub(super) fn top_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let k = req(n, i, 1)?.to_i64_vec()?.first().copied().unwrap_or(0);
    let attrs = TopKAttrs {
        axis: n.int_or("axis", -1)?,
        largest: n.int_or("largest", 1)? != 0,
        sorted: n.int_or("sorted", 1)? != 0,
    };
    let (v, idx) = reduce::top_k(req(n, i, 0)?, k, attrs)?;
    Ok(vec![v, idx])
}

/// CumSum and CumProd: the axis is input 1.
pub(super) fn cumulative(
    n: &Node,
    i: &[Option<&Tensor>],
    f: fn(&Tensor, i64, bool, bool) -> KResult<Tensor>,
) -> KResult<Vec<Tensor>> {
    one(f(
        req(n, i, 0)?,
        scalar_i64(n.onnx, req(n, i, 1)?)?,
        n.int_or("exclusive", 0)? != 0,
        n.int_or("reverse", 0)? != 0,
    )?)
}

pub(super) fn resize_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let bad = |attr: &'static str, v: &str| {
        KernelError::attr("Resize", attr, format!("unknown value '{v}'"))
    };
    let mode = n.str_or("mode", "nearest")?;
    let coord = n.str_or("coordinate_transformation_mode", "half_pixel")?;
    let nearest = n.str_or("nearest_mode", "round_prefer_floor")?;
    let policy = n.str_or("keep_aspect_ratio_policy", "stretch")?;
    let attrs = ResizeAttrs {
        mode: match mode.as_str() {
            "nearest" => ResizeMode::Nearest,
            "linear" => ResizeMode::Linear,
            "cubic" => ResizeMode::Cubic,
            _ => return Err(bad("mode", &mode)),
        },
        coord: match coord.as_str() {
            "half_pixel" => CoordMode::HalfPixel,
            "half_pixel_symmetric" => CoordMode::HalfPixelSymmetric,
            "pytorch_half_pixel" => CoordMode::PytorchHalfPixel,
            "align_corners" => CoordMode::AlignCorners,
            "asymmetric" => CoordMode::Asymmetric,
            "tf_crop_and_resize" => CoordMode::TfCropAndResize,
            _ => return Err(bad("coordinate_transformation_mode", &coord)),
        },
        nearest_mode: match nearest.as_str() {
            "round_prefer_floor" => NearestMode::RoundPreferFloor,
            "round_prefer_ceil" => NearestMode::RoundPreferCeil,
            "floor" => NearestMode::Floor,
            "ceil" => NearestMode::Ceil,
            _ => return Err(bad("nearest_mode", &nearest)),
        },
        cubic_coeff_a: n.float_or("cubic_coeff_a", -0.75)? as f32,
        exclude_outside: n.int_or("exclude_outside", 0)? != 0,
        extrapolation_value: n.float_or("extrapolation_value", 0.0)? as f32,
        axes: n.opt_ints("axes")?.filter(|a| !a.is_empty()),
        keep_aspect_ratio_policy: match policy.as_str() {
            "stretch" => AspectPolicy::Stretch,
            "not_larger" => AspectPolicy::NotLarger,
            "not_smaller" => AspectPolicy::NotSmaller,
            _ => return Err(bad("keep_aspect_ratio_policy", &policy)),
        },
        antialias: n.int_or("antialias", 0)? != 0,
    };
    let nonempty = |k: usize| opt(i, k).filter(|t| !t.is_empty());
    let roi: Option<Vec<f32>> = nonempty(1).map(|t| t.to_f32_vec()).transpose()?;
    let scales: Option<Vec<f32>> = nonempty(2).map(|t| t.to_f32_vec()).transpose()?;
    let sizes: Option<Vec<i64>> = nonempty(3).map(|t| t.to_i64_vec()).transpose()?;
    let target = match (&scales, &sizes) {
        (_, Some(s)) => ResizeTarget::Sizes(s),
        (Some(s), None) => ResizeTarget::Scales(s),
        (None, None) => {
            return Err(KernelError::Arity {
                op: "Resize",
                msg: "needs scales or sizes".into(),
            })
        }
    };
    one(resize::resize(
        req(n, i, 0)?,
        roi.as_deref(),
        target,
        &attrs,
    )?)
}

pub(super) fn grid_sample(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let mode = n.str_or("mode", "linear")?;
    let padding = n.str_or("padding_mode", "zeros")?;
    let a = GridSampleAttrs {
        mode: match mode.as_str() {
            "nearest" => GridSampleMode::Nearest,
            "bilinear" | "linear" => GridSampleMode::Linear,
            "bicubic" | "cubic" => GridSampleMode::Cubic,
            _ => {
                return Err(KernelError::attr(
                    n.onnx,
                    "mode",
                    format!("unknown mode '{mode}'"),
                ))
            }
        },
        padding_mode: match padding.as_str() {
            "zeros" => GridSamplePadding::Zeros,
            "border" => GridSamplePadding::Border,
            "reflection" => GridSamplePadding::Reflection,
            _ => {
                return Err(KernelError::attr(
                    n.onnx,
                    "padding_mode",
                    format!("unknown mode '{padding}'"),
                ))
            }
        },
        align_corners: n.int_or("align_corners", 0)? != 0,
    };
    one(gs::grid_sample(req(n, i, 0)?, req(n, i, 1)?, &a)?)
}

pub(super) fn affine_grid(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(gs::affine_grid(
        req(n, i, 0)?,
        &sizes_in(req(n, i, 1)?)?,
        n.int_or("align_corners", 0)? != 0,
    )?)
}

pub(super) fn einsum_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let eq = n.str_or("equation", "")?;
    let ts: Vec<&Tensor> = i.iter().flatten().copied().collect();
    one(einsum::einsum(&eq, &ts)?)
}
