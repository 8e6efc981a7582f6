//! Convolutions, matrix products, quantization, pooling, normalization, reductions, Resize and
//! Einsum, dispatched to the matching `nart_tensor` modules.

use nart_tensor::conv::{self, AutoPad, ConvAttrs, ConvTransposeAttrs, QLinearConvInputs};
use nart_tensor::matmul::{self, GemmAttrs};
use nart_tensor::pool::{self, PoolAttrs};
use nart_tensor::quant::{self, QuantAttrs};
use nart_tensor::reduce::{self, ArgAttrs, ReduceAttrs, ReduceOp, TopKAttrs};
use nart_tensor::resize::{
    self, AspectPolicy, CoordMode, NearestMode, ResizeAttrs, ResizeMode, ResizeTarget,
};
use nart_tensor::{einsum, norm};
use nart_tensor::{KernelError, Result as KResult, Tensor};

use super::{one, opt, req, TensorKernel};
use crate::attrs::Node;

fn usizes(node: &Node, name: &'static str) -> KResult<Vec<usize>> {
    node.ints(name)?
        .into_iter()
        .map(|v| {
            usize::try_from(v)
                .map_err(|_| KernelError::attr(node.onnx, name, format!("negative value {v}")))
        })
        .collect()
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

fn conv_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(conv::conv(
        req(n, i, 0)?,
        req(n, i, 1)?,
        opt(i, 2),
        &conv_attrs(n)?,
    )?)
}

fn conv_transpose_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
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

fn conv_integer_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(conv::conv_integer(
        req(n, i, 0)?,
        req(n, i, 1)?,
        opt(i, 2),
        opt(i, 3),
        &conv_attrs(n)?,
    )?)
}

fn qlinear_conv_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
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

fn gemm_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
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

fn quant_attrs(n: &Node) -> KResult<QuantAttrs> {
    Ok(QuantAttrs {
        axis: n.int_or("axis", 1)?,
        block_size: n.int_or("block_size", 0)?.max(0) as usize,
        saturate: n.int_or("saturate", 1)? != 0,
        output_dtype: match n.int_or("output_dtype", 0)? {
            0 => None,
            _ => n.dtype("output_dtype")?,
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

fn reduce_bool(n: &Node, i: &[Option<&Tensor>], op: ReduceOp) -> KResult<Vec<Tensor>> {
    // Max and Min of booleans are Or and And: reduce them as 0/1 bytes.
    match req(n, i, 0)? {
        x if x.dtype() == nart_tensor::DType::Bool => {
            let bytes = x.cast(nart_tensor::DType::U8)?;
            let mut ins = i.to_vec();
            ins[0] = Some(&bytes);
            let out = reduce_k(n, &ins, op)?;
            out.into_iter()
                .map(|t| t.cast(nart_tensor::DType::Bool))
                .collect()
        }
        _ => reduce_k(n, i, op),
    }
}

/// The kernel of a convolution, matrix-product or quantization operator.
pub(super) fn lookup(name: &str) -> Option<TensorKernel> {
    Some(match name {
        "Conv" => conv_k,
        "ConvTranspose" => conv_transpose_k,
        "ConvInteger" => conv_integer_k,
        "QLinearConv" => qlinear_conv_k,
        "Gemm" => gemm_k,
        "MatMul" => |n, i| one(matmul::matmul(req(n, i, 0)?, req(n, i, 1)?)?),
        "MatMulInteger" => |n, i| {
            one(matmul::matmul_integer(
                req(n, i, 0)?,
                req(n, i, 1)?,
                opt(i, 2),
                opt(i, 3),
            )?)
        },
        "QLinearMatMul" => |n, i| {
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
        },
        "QuantizeLinear" => |n, i| {
            let zp = per_tensor_zero_point(req(n, i, 1)?, opt(i, 2))?;
            let zp = zp.as_ref().or(opt(i, 2));
            one(quant::quantize_linear(
                req(n, i, 0)?,
                req(n, i, 1)?,
                zp,
                quant_attrs(n)?,
            )?)
        },
        "DequantizeLinear" => |n, i| {
            let zp = per_tensor_zero_point(req(n, i, 1)?, opt(i, 2))?;
            let zp = zp.as_ref().or(opt(i, 2));
            one(quant::dequantize_linear(
                req(n, i, 0)?,
                req(n, i, 1)?,
                zp,
                quant_attrs(n)?,
            )?)
        },
        "DynamicQuantizeLinear" => |n, i| {
            let (y, s, z) = quant::dynamic_quantize_linear(req(n, i, 0)?)?;
            Ok(vec![y, s, z])
        },
        _ => return None,
    })
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

fn reduce_k(n: &Node, i: &[Option<&Tensor>], op: ReduceOp) -> KResult<Vec<Tensor>> {
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

fn arg_attrs(n: &Node) -> KResult<ArgAttrs> {
    Ok(ArgAttrs {
        axis: n.int_or("axis", 0)?,
        keepdims: n.int_or("keepdims", 1)? != 0,
        select_last_index: n.int_or("select_last_index", 0)? != 0,
    })
}

fn resize_k(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
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

fn eps(n: &Node) -> KResult<f32> {
    Ok(n.float_or("epsilon", 1e-5)? as f32)
}

/// The kernel of a pooling, normalization, reduction, resize or einsum operator.
pub(super) fn lookup_more(name: &str) -> Option<TensorKernel> {
    Some(match name {
        "MaxPool" => |n, i| {
            let (y, idx) = pool::max_pool(req(n, i, 0)?, &pool_attrs(n)?)?;
            Ok(vec![y, idx])
        },
        "AveragePool" => |n, i| one(pool::average_pool(req(n, i, 0)?, &pool_attrs(n)?)?),
        "LpPool" => |n, i| one(pool::lp_pool(req(n, i, 0)?, &pool_attrs(n)?)?),
        "GlobalAveragePool" => |n, i| one(pool::global_average_pool(req(n, i, 0)?)?),
        "GlobalMaxPool" => |n, i| one(pool::global_max_pool(req(n, i, 0)?)?),
        "GlobalLpPool" => |n, i| one(pool::global_lp_pool(req(n, i, 0)?, n.int_or("p", 2)?)?),
        "BatchNormalization" => |n, i| {
            one(norm::batch_norm(
                req(n, i, 0)?,
                req(n, i, 1)?,
                req(n, i, 2)?,
                req(n, i, 3)?,
                req(n, i, 4)?,
                eps(n)?,
            )?)
        },
        "LayerNormalization" => |n, i| {
            let r = norm::layer_norm(
                req(n, i, 0)?,
                req(n, i, 1)?,
                opt(i, 2),
                n.int_or("axis", -1)?,
                eps(n)?,
            )?;
            Ok(vec![r.y, r.mean, r.inv_std_dev])
        },
        "InstanceNormalization" => |n, i| {
            one(norm::instance_norm(
                req(n, i, 0)?,
                req(n, i, 1)?,
                req(n, i, 2)?,
                eps(n)?,
            )?)
        },
        "GroupNormalization" => |n, i| {
            let g = n.int("num_groups")?.max(0) as usize;
            one(norm::group_norm(
                req(n, i, 0)?,
                req(n, i, 1)?,
                req(n, i, 2)?,
                g,
                eps(n)?,
            )?)
        },
        "Softmax" => |n, i| one(norm::softmax(req(n, i, 0)?, n.int_or("axis", -1)?)?),
        "LogSoftmax" => |n, i| one(norm::log_softmax(req(n, i, 0)?, n.int_or("axis", -1)?)?),
        "Hardmax" => |n, i| one(norm::hardmax(req(n, i, 0)?, n.int_or("axis", -1)?)?),
        "ReduceSum" => |n, i| reduce_k(n, i, ReduceOp::Sum),
        "ReduceMean" => |n, i| reduce_k(n, i, ReduceOp::Mean),
        "ReduceMax" => |n, i| reduce_bool(n, i, ReduceOp::Max),
        "ReduceMin" => |n, i| reduce_bool(n, i, ReduceOp::Min),
        "ReduceProd" => |n, i| reduce_k(n, i, ReduceOp::Prod),
        "ReduceL1" => |n, i| reduce_k(n, i, ReduceOp::L1),
        "ReduceL2" => |n, i| reduce_k(n, i, ReduceOp::L2),
        "ReduceLogSum" => |n, i| reduce_k(n, i, ReduceOp::LogSum),
        "ReduceLogSumExp" => |n, i| reduce_k(n, i, ReduceOp::LogSumExp),
        "ReduceSumSquare" => |n, i| reduce_k(n, i, ReduceOp::SumSquare),
        "ArgMax" => |n, i| one(reduce::arg_max(req(n, i, 0)?, arg_attrs(n)?)?),
        "ArgMin" => |n, i| one(reduce::arg_min(req(n, i, 0)?, arg_attrs(n)?)?),
        "TopK" => |n, i| {
            let k = req(n, i, 1)?.to_i64_vec()?.first().copied().unwrap_or(0);
            let attrs = TopKAttrs {
                axis: n.int_or("axis", -1)?,
                largest: n.int_or("largest", 1)? != 0,
                sorted: n.int_or("sorted", 1)? != 0,
            };
            let (v, idx) = reduce::top_k(req(n, i, 0)?, k, attrs)?;
            Ok(vec![v, idx])
        },
        "CumSum" => |n, i| {
            let axis = req(n, i, 1)?.to_i64_vec()?.first().copied().unwrap_or(0);
            one(reduce::cumsum(
                req(n, i, 0)?,
                axis,
                n.int_or("exclusive", 0)? != 0,
                n.int_or("reverse", 0)? != 0,
            )?)
        },
        "Resize" => resize_k,
        "Einsum" => |n, i| {
            let eq = n.str_or("equation", "")?;
            let ts: Vec<&Tensor> = i.iter().flatten().copied().collect();
            one(einsum::einsum(&eq, &ts)?)
        },
        _ => return None,
    })
}
