//! Quantization: QuantizeLinear, DequantizeLinear (per-tensor, per-axis, blocked) and DynamicQuantizeLinear.

use crate::layout::{norm_axis, strides, unravel};
use crate::smallfloat::{self, round_half_even};
use crate::tensor::Data;
use crate::{DType, KernelError, Result, Tensor};

/// Attributes of QuantizeLinear and DequantizeLinear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuantAttrs {
    /// Axis of per-axis or blocked quantization (default 1).
    pub axis: i64,
    /// Block size along `axis` for blocked quantization; 0 means per-tensor or per-axis.
    pub block_size: usize,
    /// Saturate float8 outputs (default true).
    pub saturate: bool,
    /// Output type when no zero point is given (`None`: uint8 for Quantize, the scale's type for Dequantize).
    pub output_dtype: Option<DType>,
}

impl Default for QuantAttrs {
    fn default() -> Self {
        QuantAttrs {
            axis: 1,
            block_size: 0,
            saturate: true,
            output_dtype: None,
        }
    }
}

/// For each element of `x`, the index of its scale: per-tensor, per-axis or blocked.
fn scale_index(
    op: &'static str,
    x: &[usize],
    scale: &[usize],
    attrs: &QuantAttrs,
) -> Result<Vec<usize>> {
    let n: usize = x.iter().product();
    let ns: usize = scale.iter().product();
    if ns == 1 && attrs.block_size == 0 {
        return Ok(vec![0; n]);
    }
    let axis = norm_axis(op, attrs.axis, x.len())?;
    if attrs.block_size == 0 {
        if scale.len() != 1 || scale[0] != x[axis] {
            return Err(KernelError::shape(
                op,
                format!(
                    "per-axis scale {scale:?} must have {} entries along axis {axis}",
                    x[axis]
                ),
            ));
        }
        let inner: usize = x[axis + 1..].iter().product();
        return Ok((0..n).map(|i| (i / inner) % x[axis]).collect());
    }
    let bs = attrs.block_size;
    let ok = scale.len() == x.len()
        && (0..x.len()).all(|d| {
            if d == axis {
                scale[d] == x[d].div_ceil(bs)
            } else {
                scale[d] == x[d]
            }
        });
    if !ok {
        return Err(KernelError::shape(
            op,
            format!("blocked scale {scale:?} does not fit input {x:?} with block {bs}"),
        ));
    }
    let st = strides(scale);
    let mut idx = vec![0; x.len()];
    Ok((0..n)
        .map(|i| {
            unravel(i, x, &mut idx);
            idx.iter()
                .enumerate()
                .map(|(d, &c)| if d == axis { c / bs } else { c } * st[d])
                .sum()
        })
        .collect())
}

/// ONNX QuantizeLinear: `saturate(round_half_even(x / scale) + zero_point)`, or a float8 cast of `x / scale`.
pub fn quantize_linear(
    x: &Tensor,
    scale: &Tensor,
    zero_point: Option<&Tensor>,
    attrs: QuantAttrs,
) -> Result<Tensor> {
    const OP: &str = "QuantizeLinear";
    let out = match zero_point {
        Some(z) => z.dtype(),
        None => attrs.output_dtype.unwrap_or(DType::U8),
    };
    if !(out.is_int() || out.is_small_float()) {
        return Err(KernelError::dtype(OP, out));
    }
    if let Some(z) = zero_point {
        if z.shape() != scale.shape() {
            return Err(KernelError::shape(OP, "zero point and scale shapes differ"));
        }
    }
    let si = scale_index(OP, x.shape(), scale.shape(), &attrs)?;
    let s = scale.to_f64_vec()?;
    let xs = x.to_f64_vec()?;
    let single = x.dtype() != DType::F64;
    let div = |i: usize| -> f64 {
        let sc = s[si[i]];
        if single {
            (xs[i] as f32 / sc as f32) as f64
        } else {
            xs[i] / sc
        }
    };
    let shape = x.shape().to_vec();
    if out.is_small_float() {
        let zp = match zero_point {
            Some(z) => z.to_f64_vec()?,
            None => vec![0.0; s.len()],
        };
        let codes = (0..xs.len())
            .map(|i| smallfloat::from_f32(out, (div(i) + zp[si[i]]) as f32, attrs.saturate))
            .collect();
        return Tensor::new(out, shape, Data::U8(codes));
    }
    let zp = match zero_point {
        Some(z) => z.to_i128_vec()?,
        None => vec![0; s.len()],
    };
    let Some((lo, hi)) = out.int_range() else {
        return Err(KernelError::dtype(OP, out));
    };
    let v: Vec<i128> = (0..xs.len())
        .map(|i| {
            let q = round_half_even(div(i));
            let q = if q.is_nan() { 0.0 } else { q };
            ((q as i128).saturating_add(zp[si[i]])).clamp(lo, hi)
        })
        .collect();
    Tensor::from_i128(out, shape, v)
}

/// ONNX DequantizeLinear: `(x - zero_point) * scale`, output of the scale's type unless `output_dtype` says otherwise.
pub fn dequantize_linear(
    x: &Tensor,
    scale: &Tensor,
    zero_point: Option<&Tensor>,
    attrs: QuantAttrs,
) -> Result<Tensor> {
    const OP: &str = "DequantizeLinear";
    if !scale.dtype().is_float() {
        return Err(KernelError::dtype(OP, scale.dtype()));
    }
    if let Some(z) = zero_point {
        if z.dtype() != x.dtype() {
            return Err(KernelError::DTypeMismatch {
                op: OP,
                a: x.dtype(),
                b: z.dtype(),
            });
        }
    }
    let si = scale_index(OP, x.shape(), scale.shape(), &attrs)?;
    let s = scale.to_f64_vec()?;
    let xs = x.to_f64_vec()?;
    let zp = match zero_point {
        Some(z) => z.to_f64_vec()?,
        None => vec![0.0; s.len()],
    };
    let out = attrs.output_dtype.unwrap_or(scale.dtype());
    let wide = out == DType::F64;
    let v: Vec<f64> = (0..xs.len())
        .map(|i| {
            let d = xs[i] - zp[si[i]];
            if wide {
                d * s[si[i]]
            } else {
                (d as f32 * s[si[i]] as f32) as f64
            }
        })
        .collect();
    Tensor::from_f64(out, x.shape().to_vec(), v)
}

/// ONNX DynamicQuantizeLinear: returns `(y: uint8, y_scale: f32 scalar, y_zero_point: uint8 scalar)`.
pub fn dynamic_quantize_linear(x: &Tensor) -> Result<(Tensor, Tensor, Tensor)> {
    if !x.dtype().is_float() {
        return Err(KernelError::dtype("DynamicQuantizeLinear", x.dtype()));
    }
    let v = x.to_f32_vec()?;
    let rmin = v.iter().copied().fold(0f32, f32::min);
    let rmax = v.iter().copied().fold(0f32, f32::max);
    let scale = (rmax - rmin) / 255.0;
    let (zp, y): (u8, Vec<u8>) = if scale == 0.0 || !scale.is_finite() {
        (0, vec![0; v.len()])
    } else {
        let zp = round_half_even((0.0 - rmin / scale) as f64).clamp(0.0, 255.0) as u8;
        let y = v
            .iter()
            .map(|&a| (round_half_even((a / scale) as f64) + zp as f64).clamp(0.0, 255.0) as u8)
            .collect();
        (zp, y)
    };
    Ok((
        Tensor::from_vec(x.shape().to_vec(), y)?,
        Tensor::scalar(scale),
        Tensor::scalar(zp),
    ))
}

/// Expands an optional zero point (scalar or `n` entries) into `n` integers.
pub(crate) fn zero_point_values(
    op: &'static str,
    zp: Option<&Tensor>,
    n: usize,
) -> Result<Vec<i128>> {
    let Some(z) = zp else {
        return Ok(vec![0; n]);
    };
    let v = z.to_i128_vec()?;
    match v.len() {
        1 => Ok(vec![v[0]; n]),
        l if l == n => Ok(v),
        l => Err(KernelError::shape(
            op,
            format!("zero point has {l} entries, expected 1 or {n}"),
        )),
    }
}

/// Quantizes real values with a scalar scale and the zero point's type and value, saturating.
pub(crate) fn requantize(
    op: &'static str,
    real: &[f64],
    shape: Vec<usize>,
    y_scale: f64,
    y_zp: &Tensor,
) -> Result<Tensor> {
    let dt = y_zp.dtype();
    let Some((lo, hi)) = dt.int_range() else {
        return Err(KernelError::dtype(op, dt));
    };
    let z = y_zp.to_i128_vec()?;
    if z.len() != 1 {
        return Err(KernelError::shape(op, "y_zero_point must be a scalar"));
    }
    let v = real
        .iter()
        .map(|&r| {
            let q = round_half_even(((r as f32) / (y_scale as f32)) as f64);
            (q as i128).saturating_add(z[0]).clamp(lo, hi)
        })
        .collect();
    Tensor::from_i128(dt, shape, v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantize_per_tensor_and_axis() {
        // onnx QuantizeLinear doc example: x=[0, 2, 3, 1000, -254, -1000], scale=2, zp=128 (uint8)
        // -> [128, 129, 130, 255, 1, 0]  (3/2 = 1.5 rounds to 2)
        let x = Tensor::vector(vec![0f32, 2., 3., 1000., -254., -1000.]);
        let y = quantize_linear(
            &x,
            &Tensor::scalar(2f32),
            Some(&Tensor::scalar(128u8)),
            QuantAttrs::default(),
        )
        .unwrap();
        assert_eq!(y.as_slice::<u8>().unwrap(), &[128, 129, 130, 255, 1, 0]);
        // Per-axis: x shape [1, 2, 2], axis 1, scales [1, 2], zp [0, 1] int8.
        let x = Tensor::from_vec(vec![1, 2, 2], vec![-2.5f32, 2.5, 5.0, -300.0]).unwrap();
        let s = Tensor::vector(vec![1f32, 2.]);
        let z = Tensor::vector(vec![0i8, 1]);
        let y = quantize_linear(&x, &s, Some(&z), QuantAttrs::default()).unwrap();
        // 5 / 2 = 2.5 rounds to 2, plus zero point 1.
        assert_eq!(y.as_slice::<i8>().unwrap(), &[-2, 2, 3, -128]);
        let back = dequantize_linear(&y, &s, Some(&z), QuantAttrs::default()).unwrap();
        assert_eq!(back.as_f32().unwrap(), &[-2., 2., 4., -258.]);
        let bad = Tensor::vector(vec![1f32, 2., 3.]);
        assert!(quantize_linear(&x, &bad, None, QuantAttrs::default()).is_err());
    }

    #[test]
    fn quantize_blocked_int4_and_float8() {
        // x [2, 4], blocks of 2 along axis 1 -> scale [2, 2].
        let x = Tensor::from_vec(vec![2, 4], vec![1f32, 2., 3., 40., -1., -2., 7., 7.]).unwrap();
        let s = Tensor::from_vec(vec![2, 2], vec![1f32, 10., 0.5, 1.]).unwrap();
        let attrs = QuantAttrs {
            axis: 1,
            block_size: 2,
            output_dtype: Some(DType::I4),
            ..Default::default()
        };
        let y = quantize_linear(&x, &s, None, attrs).unwrap();
        assert_eq!(y.dtype(), DType::I4);
        // [1, 2, 0.3->0, 4], [-2, -4, 7, 7]
        assert_eq!(y.as_slice::<i8>().unwrap(), &[1, 2, 0, 4, -2, -4, 7, 7]);
        let d = dequantize_linear(
            &y,
            &s,
            None,
            QuantAttrs {
                output_dtype: None,
                ..attrs
            },
        )
        .unwrap();
        assert_eq!(d.as_f32().unwrap(), &[1., 2., 0., 40., -1., -2., 7., 7.]);
        let a8 = QuantAttrs {
            output_dtype: Some(DType::F8E4M3FN),
            ..Default::default()
        };
        let y = quantize_linear(
            &Tensor::vector(vec![1000f32, 0.3]),
            &Tensor::scalar(1f32),
            None,
            a8,
        )
        .unwrap();
        assert_eq!(y.to_f32_vec().unwrap(), vec![448.0, 0.3125]);
    }

    #[test]
    fn dynamic() {
        // onnx DynamicQuantizeLinear doc example: x=[0, 2, -3, -2.5, 1.34, 0.5]
        // -> y_scale = 0.0196078438, y_zp = 153, y = [153, 255, 0, 26, 221, 179]
        let x = Tensor::vector(vec![0f32, 2., -3., -2.5, 1.34, 0.5]);
        let (y, s, z) = dynamic_quantize_linear(&x).unwrap();
        assert_eq!(y.as_slice::<u8>().unwrap(), &[153, 255, 0, 26, 221, 179]);
        assert!((s.as_f32().unwrap()[0] - 0.019_607_844).abs() < 1e-9);
        assert_eq!(z.as_slice::<u8>().unwrap(), &[153]);
    }
}
