//! Quantization: QuantizeLinear, DequantizeLinear (per-tensor, per-axis, blocked) and DynamicQuantizeLinear.
//!
//! QuantizeLinear and DequantizeLinear compute bit for bit what ONNX's reference evaluator
//! (`onnx.reference`, NumPy) computes: each arithmetic step in the float type NumPy's type
//! promotion gives it (`scripts/quant/check_reference.py` compares them on random cases).

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
    /// The float type QuantizeLinear divides in (opset 23's `precision`; `None`: the inputs'
    /// promoted type).
    pub precision: Option<DType>,
}

impl Default for QuantAttrs {
    fn default() -> Self {
        QuantAttrs {
            axis: 1,
            block_size: 0,
            saturate: true,
            output_dtype: None,
            precision: None,
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
    let dt = division_type(x.dtype(), scale.dtype(), attrs.precision);
    let div = |i: usize| -> f64 { divide_in(dt, xs[i], s[si[i]]) };
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

/// The float type NumPy divides `x / scale` in: `precision` when given, else the promotion of
/// the two (an integer `x` with any float is `f64`; two equal 16-bit floats stay 16-bit).
fn division_type(x: DType, s: DType, precision: Option<DType>) -> DType {
    if let Some(p) = precision {
        return p;
    }
    match (x, s) {
        (x, _) if x.is_int() => DType::F64,
        (DType::F64, _) | (_, DType::F64) => DType::F64,
        (a, b) if a == b && matches!(a, DType::F16 | DType::BF16) => a,
        _ => DType::F32,
    }
}

/// Rounds an `f32` result to the 16-bit float type `dt` computes in (exact emulation of a 16-bit
/// operation: `f32` carries more than twice their precision).
fn to_half(dt: DType, v: f32) -> f32 {
    match dt {
        DType::F16 => half::f16::from_f32(v).to_f32(),
        DType::BF16 => half::bf16::from_f32(v).to_f32(),
        _ => v,
    }
}

/// `a / b` computed in the float type `dt`, each operand first converted to it.
fn divide_in(dt: DType, a: f64, b: f64) -> f64 {
    match dt {
        DType::F64 => a / b,
        DType::F16 | DType::BF16 => {
            let (a, b) = (to_half(dt, a as f32), to_half(dt, b as f32));
            f64::from(to_half(dt, a / b))
        }
        _ => f64::from(a as f32 / b as f32),
    }
}

/// ONNX DequantizeLinear: `(x - zero_point) * scale`, output of the scale's type unless `output_dtype` says otherwise.
///
/// As the reference evaluator: `x` becomes `f32`; subtracting a 32-bit integer zero point
/// promotes to `f64`, a narrower one stays `f32`; the product is `f64` if either side is, else
/// `f32`; the result is rounded to the output type once.
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
        if z.shape() != scale.shape() {
            return Err(KernelError::shape(OP, "zero point and scale shapes differ"));
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
    let wide_diff = zero_point.is_some_and(|z| z.dtype().is_int() && z.dtype().bit_width() >= 32);
    let wide_mul = wide_diff || scale.dtype() == DType::F64;
    let v: Vec<f64> = (0..xs.len())
        .map(|i| {
            let xf = xs[i] as f32;
            let d = if wide_diff {
                f64::from(xf) - zp[si[i]]
            } else {
                f64::from(xf - zp[si[i]] as f32)
            };
            if wide_mul {
                d * s[si[i]]
            } else {
                f64::from(d as f32 * s[si[i]] as f32)
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

/// The requantized output of QLinearConv and QLinearMatMul as the reference evaluator computes
/// it: the wrapping `i32` accumulator times the `f32` multiplier, in `f64`, plus the zero
/// point, rounded half to even and clamped to `[lo, hi]`.
pub(crate) fn qlinear_output(acc: i32, mult: f32, zp: i128, lo: i128, hi: i128) -> i128 {
    let r = f64::from(acc) * f64::from(mult) + zp as f64;
    round_half_even(r.clamp(lo as f64, hi as f64)) as i128
}

/// The multiplier `scale_a * scale_b / scale_y`, computed in the scales' float type `dt` as the
/// reference does (`f32`, or a 16-bit float emulated through `f32`).
pub fn qlinear_multiplier(sa: f64, sb: f64, sy: f64, dt: DType) -> f32 {
    let (a, b, y) = (
        to_half(dt, sa as f32),
        to_half(dt, sb as f32),
        to_half(dt, sy as f32),
    );
    to_half(dt, to_half(dt, a * b) / y)
}

/// The scalar zero point of a QLinear op's output, and its type's range.
pub(crate) fn output_zero_point(op: &'static str, y_zp: &Tensor) -> Result<(i128, i128, i128)> {
    let Some((lo, hi)) = y_zp.dtype().int_range() else {
        return Err(KernelError::dtype(op, y_zp.dtype()));
    };
    let z = y_zp.to_i128_vec()?;
    if z.len() != 1 {
        return Err(KernelError::shape(op, "y_zero_point must be a scalar"));
    }
    Ok((z[0], lo, hi))
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
        // A zero point of another shape than the scale is an error, not an index past its end.
        let z3 = Tensor::vector(vec![0i8, 1, 2]);
        let err = dequantize_linear(&y, &s, Some(&z3), QuantAttrs::default()).unwrap_err();
        assert!(
            err.to_string()
                .contains("zero point and scale shapes differ"),
            "{err}"
        );
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
    fn arithmetic_in_the_reference_evaluators_types() {
        // float16 divides in float16: 3002 / 3 = 1000.67 is 1000.5 there, a tie to even.
        let x = Tensor::vector(vec![half::f16::from_f32(3002.0)]);
        let s = Tensor::scalar(half::f16::from_f32(3.0));
        let y = quantize_linear(&x, &s, Some(&Tensor::scalar(0i16)), QuantAttrs::default());
        assert_eq!(y.unwrap().as_slice::<i16>().unwrap(), &[1000]);
        // With precision float, the same division gives 1000.67, which rounds to 1001.
        let attrs = QuantAttrs {
            precision: Some(DType::F32),
            ..Default::default()
        };
        let y = quantize_linear(&x, &s, Some(&Tensor::scalar(0i16)), attrs).unwrap();
        assert_eq!(y.as_slice::<i16>().unwrap(), &[1001]);
        // An int32 input becomes float32 first (2^24 + 1 → 2^24), then the int32 zero point is
        // subtracted in float64.
        let x = Tensor::vector(vec![16_777_217i32]);
        let y = dequantize_linear(
            &x,
            &Tensor::scalar(1f32),
            Some(&Tensor::scalar(1i32)),
            QuantAttrs::default(),
        )
        .unwrap();
        assert_eq!(y.as_f32().unwrap(), &[16_777_215.0]);
        // The QLinear output multiplier is f32(f32(sa · sb) / sy), applied in f64: 0.1 · 0.05 /
        // 0.01 is 0.50000006 in f32, so an accumulator of 5 gives 2.5000003 → 3, where exact
        // arithmetic has the tie 2.5 → 2.
        let m = qlinear_multiplier(0.1, 0.05, 0.01, DType::F32);
        assert_eq!(m, 0.500_000_06);
        assert_eq!(qlinear_output(5, m, 0, -128, 127), 3);
        assert_eq!(qlinear_output(1000, m, 0, -128, 127), 127);
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
