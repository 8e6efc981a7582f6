//! Lookup tables for `qnn.lut`: any elementwise function of an input of 8 or fewer bits is one
//! table of `2^bits` stored results, built here from the float function and the two types.
//!
//! Entry `i` is the result for the stored input `q = min + i` (`min` the smallest value of the
//! input's storage type): `clamp(Z2 + round_half_even(f(S1·(q − Z1)) / S2))`, clamped to the
//! result's storage range; a NaN result becomes the zero point.

use nart_dialect_quant::types::default_range;
use nart_dialect_quant::{QuantParams, UniformQuantizedType};
use nart_ir::{Attr, AttrData, DenseArrayData, Uniquer};

fn per_tensor(q: &UniformQuantizedType, what: &str) -> Result<(f64, i64), String> {
    match q.params {
        QuantParams::PerTensor { scale, zero_point } => Ok((f64::from_bits(scale), zero_point)),
        _ => Err(format!("the {what} type must be quantized per tensor")),
    }
}

/// The table of `f` from `input` to `output`, one entry per stored input value.
pub fn table(
    input: &UniformQuantizedType,
    output: &UniformQuantizedType,
    f: impl Fn(f64) -> f64,
) -> Result<Vec<i64>, String> {
    if input.storage_width > 8 {
        return Err(format!(
            "a lookup table needs an input of at most 8 bits, got {}",
            input.storage_width
        ));
    }
    let (s1, z1) = per_tensor(input, "input")?;
    let (s2, z2) = per_tensor(output, "result")?;
    let (lo, _) = default_range(input.storage_width, input.signed);
    let n = 1i64 << input.storage_width;
    Ok((0..n)
        .map(|i| {
            let y = f(s1 * ((lo + i - z1) as f64)) / s2;
            if y.is_nan() {
                return z2.clamp(output.storage_min, output.storage_max);
            }
            let q = y.round_ties_even();
            // Through f64 so that infinities and huge values saturate.
            (q + z2 as f64).clamp(output.storage_min as f64, output.storage_max as f64) as i64
        })
        .collect())
}

/// The `table` property of a `qnn.lut` holding `entries`.
pub fn table_attr(u: &mut Uniquer, entries: &[i64]) -> Attr {
    let elem = u.int_type(32);
    u.intern_attr(AttrData::DenseArray {
        elem,
        data: DenseArrayData::Int(entries.to_vec()),
    })
}

/// The functions quantized networks most often turn into tables.
pub mod functions {
    /// The logistic function `1 / (1 + e^−x)`.
    pub fn sigmoid(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    /// The hyperbolic tangent.
    pub fn tanh(x: f64) -> f64 {
        x.tanh()
    }

    /// `x · relu6(x + 3) / 6` (MobileNetV3's hard swish).
    pub fn hardswish(x: f64) -> f64 {
        x * (x + 3.0).clamp(0.0, 6.0) / 6.0
    }

    /// `x · Φ(x) = x/2 · (1 + erf(x/√2))`, the exact (not tanh-approximated) GELU.
    pub fn gelu(x: f64) -> f64 {
        0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2))
    }

    /// The error function, to about 1e-15: its Taylor series below 2, and the continued
    /// fraction of `erfc` above.
    pub fn erf(x: f64) -> f64 {
        if x.is_nan() {
            return x;
        }
        let a = x.abs();
        let two_over_sqrt_pi = std::f64::consts::FRAC_2_SQRT_PI;
        let r = if a < 2.0 {
            // erf(x) = 2/√π · Σ (−1)^n x^(2n+1) / (n! (2n+1)).
            let (mut term, mut sum, x2) = (a, a, a * a);
            for n in 1..80 {
                term *= -x2 / n as f64;
                let t = term / (2 * n + 1) as f64;
                sum += t;
                if t.abs() < 1e-17 * sum.abs() {
                    break;
                }
            }
            two_over_sqrt_pi * sum
        } else if a < 27.0 {
            // erfc(x) = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))).
            let mut t = a;
            for k in (1..=80).rev() {
                t = a + (k as f64 / 2.0) / t;
            }
            1.0 - (-a * a).exp() / (std::f64::consts::PI.sqrt() * t)
        } else {
            1.0
        };
        r.copysign(x)
    }
}
