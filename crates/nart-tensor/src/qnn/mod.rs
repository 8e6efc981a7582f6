//! Exact integer kernels of the `qnn` dialect's ops, and of the `quant` dialect's casts.
//!
//! A quantized tensor is a tensor of its storage integers (`I8`, `U8`, `I16`, `I32`, ...; the
//! sub-byte `I4`, `U4`, `I2` and `U2` are held unpacked, one value per byte) plus its
//! [`QParams`]: scale and zero point per tensor or per index of one axis, and the storage range
//! (`i8<-127:127>` narrows it). The stored `q` stands for `r = S(q − Z)`.
//!
//! # Requantization
//!
//! A real multiplier `M` (`S1·S2/S3` for a product, `S1/S2` for a rescale) becomes a
//! [`FixedMultiplier`]: with `M = f · 2^e` and `f` in `[0.5, 1)` (`frexp`), the 32-bit
//! multiplier is `m = round(f · 2^31)` (ties away from zero; `m = 2^31` becomes `2^30` with
//! `e + 1`), exactly as gemmlowp's and TFLite's `QuantizeMultiplier` compute it. Applying it to
//! an integer `x` (an `i32` accumulator, or a difference `q − Z`) is
//!
//! ```text
//! M ⊗ x = round(x · m / 2^(31 − e))
//! ```
//!
//! with the product `x · m` taken exactly (in `i128`) and rounded once, ties as [`Rounding`]
//! says: `HalfEven` (ONNX), `HalfAway` (gemmlowp's rule; gemmlowp itself rounds twice, in
//! `SaturatingRoundingDoublingHighMul` then `RoundingDivideByPOT`, which can differ from one
//! rounding by one step on rare ties) or `HalfUp` (bit-exact with TFLite's single-rounding
//! `MultiplyByQuantizedMultiplier`: `(x · m + 2^(k−1)) >> k`). The result is
//! `clamp(Z3 + M ⊗ x, lo, hi)`, with `[lo, hi]` the storage range narrowed by the fused
//! activation (its real bounds quantized with the same rounding). Since `m` carries 31
//! significant bits, `M ⊗ x` differs from the exactly rounded `M·x` only where `M·x` lies
//! within about `|M·x|·2^−31` of a tie, and then by one step.
//!
//! # Accumulation
//!
//! Convolutions and matrix products accumulate in `i32` with wrapping arithmetic (as the
//! deployed kernel's accumulator does; with 8-bit operands it cannot wrap below `K = 33025`
//! products), with the zero points taken out through precomputed sums:
//! `acc = Σ q1·q2 − Z2·Σ q1 − Z1·Σ q2 + K·Z1·Z2 + bias`, which is `Σ (q1 − Z1)(q2 − Z2) + bias`.
//! Padded input positions of a convolution hold `Z1`, the stored real zero.

mod matmul;
mod window;

#[cfg(test)]
mod tests;

pub use matmul::matmul;
pub use window::{avg_pool, conv, max_pool, ConvAttrs, PoolAttrs};

use crate::layout::{broadcast_index, broadcast_shapes, strides};
use crate::{DType, KernelError, Result, Tensor};

/// How requantization rounds a value exactly halfway between two integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Rounding {
    /// Ties to even (ONNX).
    #[default]
    HalfEven,
    /// Ties away from zero (gemmlowp, TFLite's reference kernels).
    HalfAway,
    /// Ties toward positive infinity (TFLite's single-rounding kernels).
    HalfUp,
}

impl Rounding {
    /// The mode of a keyword (`half_even`, `half_away`, `half_up`, as the `qnn` dialect
    /// spells it), if it is one.
    pub fn from_name(name: &str) -> Option<Rounding> {
        match name {
            "half_even" => Some(Rounding::HalfEven),
            "half_away" => Some(Rounding::HalfAway),
            "half_up" => Some(Rounding::HalfUp),
            _ => None,
        }
    }
}

/// `round(p / 2^k)` with ties as `mode` says; a negative `k` multiplies by `2^−k`,
/// saturating.
pub fn rounding_shift(p: i128, k: i32, mode: Rounding) -> i128 {
    if k <= 0 {
        let f = 1i128.checked_shl(k.unsigned_abs()).unwrap_or(i128::MAX);
        return p.saturating_mul(f);
    }
    if k >= 127 {
        // |p| < 2^127, so |p / 2^k| < 1/2 unless p is i128::MIN, which no kernel produces.
        return 0;
    }
    let floor = p >> k;
    let rem = p - (floor << k);
    let half = 1i128 << (k - 1);
    let up = match rem.cmp(&half) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => match mode {
            Rounding::HalfUp => true,
            Rounding::HalfAway => p >= 0,
            Rounding::HalfEven => floor & 1 == 1,
        },
    };
    floor + i128::from(up)
}

/// Rounds a float to an integer value with ties as `mode` says.
pub fn round_f64(x: f64, mode: Rounding) -> f64 {
    match mode {
        Rounding::HalfEven => x.round_ties_even(),
        Rounding::HalfAway => x.round(),
        Rounding::HalfUp => {
            let f = x.floor();
            if x - f >= 0.5 {
                f + 1.0
            } else {
                f
            }
        }
    }
}

/// `x = f · 2^e` with `f` in `[0.5, 1)`, for a finite positive `x` (C's `frexp`).
fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Subnormal: scale into the normal range first.
        let (f, e) = frexp(x * 2f64.powi(64));
        return (f, e - 64);
    }
    let f = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (f, exp - 1022)
}

/// A real multiplier as a 32-bit fixed-point multiplier and a shift: `M ≈ m · 2^(shift − 31)`
/// (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedMultiplier {
    /// The multiplier, in `[2^30, 2^31)` (or 0 for `M = 0`).
    pub m: i32,
    /// The exponent `e` of `M = f · 2^e`.
    pub shift: i32,
}

impl FixedMultiplier {
    /// The fixed-point form of `real` (finite, not negative).
    pub fn new(op: &'static str, real: f64) -> Result<FixedMultiplier> {
        if !(real.is_finite() && real >= 0.0) {
            return Err(KernelError::attr(
                op,
                "scale",
                format!("requantization multiplier {real} is not a finite non-negative number"),
            ));
        }
        if real == 0.0 {
            return Ok(FixedMultiplier { m: 0, shift: 0 });
        }
        let (f, mut e) = frexp(real);
        let mut m = (f * 2f64.powi(31)).round() as i64;
        if m == 1 << 31 {
            m /= 2;
            e += 1;
        }
        Ok(FixedMultiplier {
            m: m as i32,
            shift: e,
        })
    }

    /// The right shift applying the multiplier takes: `31 − shift`.
    pub fn right_shift(self) -> i32 {
        31 - self.shift
    }

    /// `round(x · m / 2^(31 − shift))`.
    pub fn apply(self, x: i128, mode: Rounding) -> i128 {
        rounding_shift(
            x.saturating_mul(i128::from(self.m)),
            self.right_shift(),
            mode,
        )
    }

    /// The real number the multiplier stands for.
    pub fn real(self) -> f64 {
        f64::from(self.m) * 2f64.powi(self.shift - 31)
    }
}

/// How a tensor's stored integers map to reals: scales and zero points per tensor or per index
/// of `axis`, and the storage type and range.
#[derive(Clone, Debug, PartialEq)]
pub struct QParams {
    /// The storage element type.
    pub dtype: DType,
    /// The smallest stored value.
    pub min: i64,
    /// The largest stored value.
    pub max: i64,
    /// The storage type's width in bits (a wider `dtype` may hold it: `i3` in `I8`).
    pub bits: u32,
    /// One scale, or one per index of `axis`.
    pub scales: Vec<f64>,
    /// One zero point, or one per index of `axis`.
    pub zero_points: Vec<i64>,
    /// The quantized dimension of a per-axis tensor.
    pub axis: Option<usize>,
    /// The shape of the scale tensor of a per-block tensor (as many dimensions as the tensor;
    /// dimension `d` is cut into `shape[d] / block_shape[d]` long blocks), `None` otherwise.
    /// Only the casts take per-block parameters.
    pub block_shape: Option<Vec<usize>>,
}

impl QParams {
    /// Per-tensor parameters with `dtype`'s full range.
    pub fn per_tensor(dtype: DType, scale: f64, zero_point: i64) -> QParams {
        let (min, max) = full_range(dtype);
        QParams {
            dtype,
            min,
            max,
            bits: dtype.bit_width() as u32,
            scales: vec![scale],
            zero_points: vec![zero_point],
            axis: None,
            block_shape: None,
        }
    }

    /// Per-axis parameters with `dtype`'s full range.
    pub fn per_axis(dtype: DType, axis: usize, scales: Vec<f64>, zero_points: Vec<i64>) -> QParams {
        let (min, max) = full_range(dtype);
        QParams {
            dtype,
            min,
            max,
            bits: dtype.bit_width() as u32,
            scales,
            zero_points,
            axis: Some(axis),
            block_shape: None,
        }
    }

    /// Per-block parameters with `dtype`'s full range: `scales` and `zero_points` in row-major
    /// order of a scale tensor of shape `block_shape`.
    pub fn per_block(
        dtype: DType,
        block_shape: Vec<usize>,
        scales: Vec<f64>,
        zero_points: Vec<i64>,
    ) -> QParams {
        let (min, max) = full_range(dtype);
        QParams {
            dtype,
            min,
            max,
            bits: dtype.bit_width() as u32,
            scales,
            zero_points,
            axis: None,
            block_shape: Some(block_shape),
        }
    }

    /// The same parameters with the storage range `[min, max]`.
    pub fn with_range(mut self, min: i64, max: i64) -> QParams {
        self.min = min;
        self.max = max;
        self
    }

    /// The same parameters for a storage type of `bits` bits held in `dtype` (`i3` in `I8`),
    /// with that type's full range.
    pub fn with_bits(mut self, bits: u32) -> QParams {
        self.bits = bits;
        (self.min, self.max) = if self.dtype.is_signed_int() {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        };
        self
    }

    /// The smallest value of the storage type's full range (`-128` for `i8`, `0` for `u8`),
    /// which a lookup table starts at.
    pub fn first(&self) -> i64 {
        if self.dtype.is_signed_int() {
            -(1i64 << (self.bits - 1))
        } else {
            0
        }
    }

    /// The scale of index `c` of the quantized axis (the one scale per tensor).
    pub fn scale(&self, c: usize) -> f64 {
        self.scales[if self.scales.len() == 1 { 0 } else { c }]
    }

    /// The zero point of index `c` of the quantized axis.
    pub fn zero_point(&self, c: usize) -> i64 {
        self.zero_points[if self.zero_points.len() == 1 { 0 } else { c }]
    }

    fn check(&self, op: &'static str, what: &str, t: &Tensor) -> Result<()> {
        if self.block_shape.is_some() {
            return Err(KernelError::shape(
                op,
                format!("{what} is quantized per block, which only the casts take"),
            ));
        }
        self.check_cast(op, what, t)
    }

    /// [`QParams::check`] for the casts, which also take per-block parameters.
    fn check_cast(&self, op: &'static str, what: &str, t: &Tensor) -> Result<()> {
        if t.dtype() != self.dtype {
            return Err(KernelError::shape(
                op,
                format!(
                    "{what} holds {}, but its quantized type stores {}",
                    t.dtype(),
                    self.dtype
                ),
            ));
        }
        if self.scales.is_empty() || self.scales.len() != self.zero_points.len() {
            return Err(KernelError::shape(
                op,
                format!("{what} needs as many zero points as scales, and at least one"),
            ));
        }
        if let Some(bs) = &self.block_shape {
            let shape = t.shape();
            let fits = bs.len() == shape.len()
                && bs.iter().product::<usize>() == self.scales.len()
                && bs.iter().zip(shape).all(|(&b, &d)| b > 0 && d % b == 0);
            return if fits {
                Ok(())
            } else {
                Err(KernelError::shape(
                    op,
                    format!(
                        "{what} of shape {shape:?} is not cut evenly into a {bs:?} grid of blocks"
                    ),
                ))
            };
        }
        match self.axis {
            None if self.scales.len() != 1 => Err(KernelError::shape(
                op,
                format!("{what} has several scales but no axis"),
            )),
            Some(a) if t.shape().get(a) != Some(&self.scales.len()) => Err(KernelError::shape(
                op,
                format!(
                    "{what} has {} scales for axis {a} of shape {:?}",
                    self.scales.len(),
                    t.shape()
                ),
            )),
            _ => Ok(()),
        }
    }

    fn require_per_tensor(&self, op: &'static str, what: &str) -> Result<(f64, i64)> {
        if self.scales.len() != 1 || self.axis.is_some() {
            return Err(KernelError::shape(
                op,
                format!("{what} must be quantized per tensor"),
            ));
        }
        Ok((self.scales[0], self.zero_points[0]))
    }

    /// The index along the quantized axis of each element of a tensor of `shape` (all 0 per
    /// tensor; per block, the row-major index of the element's block in the scale tensor).
    fn channels(&self, shape: &[usize]) -> Vec<usize> {
        let n: usize = shape.iter().product();
        if let Some(bs) = &self.block_shape {
            let strides_in = strides(shape);
            let strides_blocks = strides(bs);
            return (0..n)
                .map(|i| {
                    (0..shape.len())
                        .map(|d| {
                            let coord = (i / strides_in[d].max(1)) % shape[d];
                            coord / (shape[d] / bs[d]) * strides_blocks[d]
                        })
                        .sum()
                })
                .collect();
        }
        match self.axis {
            None => vec![0; n],
            Some(a) => {
                let inner = strides(shape)[a];
                (0..n).map(|i| (i / inner.max(1)) % shape[a]).collect()
            }
        }
    }
}

/// Checks that a per-block `q` cuts a tensor of `shape` evenly (the quantize cast reads a float
/// tensor, so [`QParams::check_cast`]'s storage check does not apply).
fn check_grid(op: &'static str, q: &QParams, shape: &[usize]) -> Result<()> {
    let bs = q.block_shape.as_deref().unwrap_or_default();
    let fits = bs.len() == shape.len()
        && bs.iter().product::<usize>() == q.scales.len()
        && q.zero_points.len() == q.scales.len()
        && bs.iter().zip(shape).all(|(&b, &d)| b > 0 && d % b == 0);
    if fits {
        Ok(())
    } else {
        Err(KernelError::shape(
            op,
            format!("input of shape {shape:?} is not cut evenly into a {bs:?} grid of blocks"),
        ))
    }
}

/// The full range of an integer storage type.
pub fn full_range(dtype: DType) -> (i64, i64) {
    dtype
        .int_range()
        .map_or((0, 0), |(lo, hi)| (lo as i64, hi as i64))
}

/// An activation fused into a kernel's output.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Activation {
    /// None.
    #[default]
    None,
    /// `max(x, 0)`.
    Relu,
    /// `min(max(x, 0), 6)`.
    Relu6,
    /// `min(max(x, min), max)`.
    Clip {
        /// Lower bound.
        min: f64,
        /// Upper bound.
        max: f64,
    },
}

/// What a kernel writes: the result's parameters, the fused activation and the rounding.
#[derive(Clone, Copy, Debug)]
pub struct Output<'a> {
    /// The result's quantization (per tensor).
    pub q: &'a QParams,
    /// The fused activation.
    pub act: Activation,
    /// How ties round.
    pub rounding: Rounding,
}

impl Output<'_> {
    /// The stored range results are clamped to: the storage range, narrowed by the activation's
    /// real bounds quantized as results are (`Z + round(bound / S)`).
    pub fn range(&self, op: &'static str) -> Result<(f64, i64, i64, i64)> {
        let (s, z) = self.q.require_per_tensor(op, "result")?;
        let (a, b) = match self.act {
            Activation::None => (f64::NEG_INFINITY, f64::INFINITY),
            Activation::Relu => (0.0, f64::INFINITY),
            Activation::Relu6 => (0.0, 6.0),
            Activation::Clip { min, max } => (min, max),
        };
        let quant = |v: f64| round_f64(v / s, self.rounding) + z as f64;
        let (mut lo, mut hi) = (self.q.min, self.q.max);
        if a.is_finite() {
            lo = lo.max(quant(a).clamp(self.q.min as f64, self.q.max as f64) as i64);
        }
        if b.is_finite() {
            hi = hi.min(quant(b).clamp(self.q.min as f64, self.q.max as f64) as i64);
        }
        Ok((s, z, lo, hi.max(lo)))
    }
}

/// The stored values of a tensor as `i128`.
fn values(t: &Tensor) -> Result<Vec<i128>> {
    t.to_i128_vec()
}

/// `qnn.requantize`: `clamp(Zy + (Sx/Sy) ⊗ (q − Zx))`, with per-axis parameters on either side.
pub fn requantize(x: &Tensor, xq: &QParams, yq: &QParams, rounding: Rounding) -> Result<Tensor> {
    const OP: &str = "qnn.requantize";
    xq.check(OP, "input", x)?;
    let shape = x.shape().to_vec();
    let cx = xq.channels(&shape);
    let cy = yq.channels(&shape);
    let (nx, ny) = (xq.scales.len(), yq.scales.len());
    let mut mults = Vec::with_capacity(nx * ny);
    for i in 0..nx {
        for j in 0..ny {
            mults.push(FixedMultiplier::new(OP, xq.scales[i] / yq.scales[j])?);
        }
    }
    let v = values(x)?;
    let out = v
        .iter()
        .enumerate()
        .map(|(i, &q)| {
            let (a, b) = (cx[i], cy[i]);
            let d = q - i128::from(xq.zero_point(a));
            let r = i128::from(yq.zero_point(b)) + mults[a * ny + b].apply(d, rounding);
            r.clamp(i128::from(yq.min), i128::from(yq.max))
        })
        .collect();
    Tensor::from_i128(yq.dtype, shape, out)
}

/// The broadcast shape of two operands and, per result element, their element indices.
fn broadcast2(
    op: &'static str,
    a: &Tensor,
    b: &Tensor,
) -> Result<(Vec<usize>, Vec<usize>, Vec<usize>)> {
    let shape = broadcast_shapes(op, a.shape(), b.shape())?;
    let ia = broadcast_index(&shape, a.shape());
    let ib = broadcast_index(&shape, b.shape());
    Ok((shape, ia, ib))
}

/// `qnn.add`: `clamp(Zy + round(Ma·(qa − Za) + Mb·(qb − Zb)))` with `Ma = Sa/Sy`,
/// `Mb = Sb/Sy`: both fixed-point products are brought to the larger right shift exactly and
/// summed before the one rounding.
pub fn add(a: &Tensor, aq: &QParams, b: &Tensor, bq: &QParams, out: Output<'_>) -> Result<Tensor> {
    const OP: &str = "qnn.add";
    aq.check(OP, "lhs", a)?;
    bq.check(OP, "rhs", b)?;
    let (sa, za) = aq.require_per_tensor(OP, "lhs")?;
    let (sb, zb) = bq.require_per_tensor(OP, "rhs")?;
    let (sy, zy, lo, hi) = out.range(OP)?;
    let ma = FixedMultiplier::new(OP, sa / sy)?;
    let mb = FixedMultiplier::new(OP, sb / sy)?;
    let k = ma.right_shift().max(mb.right_shift());
    let (ea, eb) = (k - ma.right_shift(), k - mb.right_shift());
    if ea > 64 || eb > 64 {
        return Err(KernelError::attr(
            OP,
            "scale",
            "the operands' scales differ by more than a factor of 2^64",
        ));
    }
    let (fa, fb) = (i128::from(ma.m) << ea, i128::from(mb.m) << eb);
    let (shape, ia, ib) = broadcast2(OP, a, b)?;
    let (va, vb) = (values(a)?, values(b)?);
    let y = (0..ia.len())
        .map(|i| {
            let p = (va[ia[i]] - i128::from(za)) * fa + (vb[ib[i]] - i128::from(zb)) * fb;
            (i128::from(zy) + rounding_shift(p, k, out.rounding))
                .clamp(i128::from(lo), i128::from(hi))
        })
        .collect();
    Tensor::from_i128(out.q.dtype, shape, y)
}

/// `qnn.mul`: `clamp(Zy + (Sa·Sb/Sy) ⊗ ((qa − Za)·(qb − Zb)))`.
pub fn mul(a: &Tensor, aq: &QParams, b: &Tensor, bq: &QParams, out: Output<'_>) -> Result<Tensor> {
    const OP: &str = "qnn.mul";
    aq.check(OP, "lhs", a)?;
    bq.check(OP, "rhs", b)?;
    let (sa, za) = aq.require_per_tensor(OP, "lhs")?;
    let (sb, zb) = bq.require_per_tensor(OP, "rhs")?;
    let (sy, zy, lo, hi) = out.range(OP)?;
    let m = FixedMultiplier::new(OP, sa * sb / sy)?;
    let (shape, ia, ib) = broadcast2(OP, a, b)?;
    let (va, vb) = (values(a)?, values(b)?);
    let y = (0..ia.len())
        .map(|i| {
            let p = (va[ia[i]] - i128::from(za)) * (vb[ib[i]] - i128::from(zb));
            (i128::from(zy) + m.apply(p, out.rounding)).clamp(i128::from(lo), i128::from(hi))
        })
        .collect();
    Tensor::from_i128(out.q.dtype, shape, y)
}

/// `qnn.concat`: the inputs joined along `axis`, each requantized to `yq` unless it already has
/// its parameters.
pub fn concat(
    inputs: &[(&Tensor, &QParams)],
    axis: usize,
    yq: &QParams,
    rounding: Rounding,
) -> Result<Tensor> {
    const OP: &str = "qnn.concat";
    let Some((first, _)) = inputs.first() else {
        return Err(KernelError::shape(OP, "needs at least one input"));
    };
    let rank = first.rank();
    if axis >= rank {
        return Err(KernelError::BadAxis {
            op: OP,
            axis: axis as i64,
            rank,
        });
    }
    let mut shape = first.shape().to_vec();
    shape[axis] = 0;
    let mut parts = Vec::with_capacity(inputs.len());
    for (i, &(t, q)) in inputs.iter().enumerate() {
        q.check(OP, "input", t)?;
        let s = t.shape();
        if s.len() != rank || (0..rank).any(|d| d != axis && s[d] != first.shape()[d]) {
            return Err(KernelError::shape(
                OP,
                format!("input #{i} of shape {s:?} does not fit {:?}", first.shape()),
            ));
        }
        shape[axis] += s[axis];
        let same = q.scales == yq.scales
            && q.zero_points == yq.zero_points
            && q.min >= yq.min
            && q.max <= yq.max;
        let v = if same {
            values(t)?
        } else {
            values(&requantize(t, q, yq, rounding)?)?
        };
        parts.push((s[axis], v));
    }
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let mut y = Vec::with_capacity(outer * shape[axis] * inner);
    for o in 0..outer {
        for (len, v) in &parts {
            let chunk = len * inner;
            y.extend_from_slice(&v[o * chunk..(o + 1) * chunk]);
        }
    }
    Tensor::from_i128(yq.dtype, shape, y)
}

/// `qnn.lut`: `y = table[q − first]`, where `first` is the smallest value of the input's
/// storage type.
pub fn lut(x: &Tensor, table: &[i64], first: i64, out: DType) -> Result<Tensor> {
    const OP: &str = "qnn.lut";
    let v = values(x)?;
    let y = v
        .iter()
        .map(|&q| {
            usize::try_from(q - i128::from(first))
                .ok()
                .and_then(|i| table.get(i))
                .map(|&r| i128::from(r))
                .ok_or_else(|| {
                    KernelError::shape(
                        OP,
                        format!("input {q} has no entry in a table of {}", table.len()),
                    )
                })
        })
        .collect::<Result<Vec<i128>>>()?;
    Tensor::from_i128(out, x.shape().to_vec(), y)
}

/// Rounds `v` (a value computed in `f32`) to the float type `dt` computes in.
fn in_type(dt: DType, v: f32) -> f32 {
    match dt {
        DType::F16 => half::f16::from_f32(v).to_f32(),
        DType::BF16 => half::bf16::from_f32(v).to_f32(),
        _ => v,
    }
}

/// `quant.qcast`: `clamp(round_half_even(x / S) + Z)`, the division done in the input's float
/// type (as upstream MLIR lowers it: `divf`, `roundeven`, `fptosi`, `addi`, clamp); a NaN
/// quantizes to the zero point.
pub fn quantize(x: &Tensor, q: &QParams) -> Result<Tensor> {
    const OP: &str = "quant.qcast";
    let dt = x.dtype();
    if !dt.is_float() {
        return Err(KernelError::dtype(OP, dt));
    }
    if q.block_shape.is_some() {
        check_grid(OP, q, x.shape())?;
    }
    let ch = q.channels(x.shape());
    let xs = x.to_f64_vec()?;
    let y = xs
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let (s, z) = (q.scale(ch[i]), q.zero_point(ch[i]));
            let d = if dt == DType::F64 {
                v / s
            } else {
                f64::from(in_type(dt, v as f32 / in_type(dt, s as f32)))
            };
            let r = if d.is_nan() {
                z as f64
            } else {
                d.round_ties_even() + z as f64
            };
            r.clamp(q.min as f64, q.max as f64) as i128
        })
        .collect();
    Tensor::from_i128(q.dtype, x.shape().to_vec(), y)
}

/// `quant.dcast`: `(q − Z) · S` computed in the float type `out` (the stored value and the zero
/// point converted to it, then a subtraction and a multiplication, as upstream lowers it).
pub fn dequantize(x: &Tensor, q: &QParams, out: DType) -> Result<Tensor> {
    const OP: &str = "quant.dcast";
    q.check_cast(OP, "input", x)?;
    if !out.is_float() {
        return Err(KernelError::dtype(OP, out));
    }
    let ch = q.channels(x.shape());
    let v = values(x)?;
    let y = v
        .iter()
        .enumerate()
        .map(|(i, &qv)| {
            let (s, z) = (q.scale(ch[i]), q.zero_point(ch[i]));
            if out == DType::F64 {
                (qv as f64 - z as f64) * s
            } else {
                let d = in_type(out, in_type(out, qv as f32) - in_type(out, z as f32));
                f64::from(in_type(out, d * in_type(out, s as f32)))
            }
        })
        .collect();
    Tensor::from_f64(out, x.shape().to_vec(), y)
}

/// `quant.scast`: the same bits as another integer type (`u8` storage read as `i8` wraps).
pub fn storage_cast(x: &Tensor, to: DType) -> Result<Tensor> {
    if !(x.dtype().is_int() && to.is_int()) {
        return Err(KernelError::dtype("quant.scast", to));
    }
    let v = values(x)?.into_iter().map(|q| to.wrap_int(q)).collect();
    Tensor::from_i128(to, x.shape().to_vec(), v)
}
