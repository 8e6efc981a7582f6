//! Correctly rounded conversions from `f64` to the 16-bit floats.
//!
//! The `half` crate's `f16::from_f64` rounds through `f32` on machines with F16C, and its
//! `bf16::from_f64` drops the low bits of the mantissa before rounding, so a value just above a
//! halfway point between two 16-bit floats can round down (double rounding). IEEE, NumPy and
//! ONNX Runtime round once. These functions round `x` to `f32` *to odd* first (truncate toward
//! zero, then set the last bit when anything was dropped), which keeps enough information for
//! the second rounding, to nearest even, to give the once-rounded result: `f32` carries at least
//! two more bits than either 16-bit type, in the normal and in the subnormal range.

use half::{bf16, f16};

/// `x` rounded to `f32` to odd (NaN and infinities as they are).
fn f32_round_to_odd(x: f64) -> f32 {
    let f = x as f32;
    if !f.is_finite() || f64::from(f) == x {
        return f;
    }
    // `f` is the nearest `f32`; step toward zero when it lies beyond `x`, so the bits are the
    // truncation, then mark the dropped part with an odd last bit.
    let bits = f.to_bits();
    let truncated = if f64::from(f).abs() > x.abs() {
        bits - 1
    } else {
        bits
    };
    f32::from_bits(truncated | 1)
}

/// `x` rounded once to the nearest `f16`, ties to even.
pub fn f16_from_f64(x: f64) -> f16 {
    f16::from_f32(f32_round_to_odd(x))
}

/// `x` rounded once to the nearest `bf16`, ties to even.
pub fn bf16_from_f64(x: f64) -> bf16 {
    bf16::from_f32(f32_round_to_odd(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_just_past_a_tie_round_away_from_it() {
        // bf16 has 8 significant bits: 1 + 2^-8 is halfway between 1 and 1 + 2^-7.
        let above = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
        assert_eq!(bf16_from_f64(above).to_f64(), 1.0 + 2f64.powi(-7));
        assert_eq!(bf16_from_f64(1.0 + 2f64.powi(-8)).to_f64(), 1.0);
        let below = 1.0 + 2f64.powi(-8) - 2f64.powi(-40);
        assert_eq!(bf16_from_f64(below).to_f64(), 1.0);
        // f16 has 11: 1 + 2^-11 is halfway between 1 and 1 + 2^-10.
        let above = 1.0 + 2f64.powi(-11) + 2f64.powi(-30);
        assert_eq!(f16_from_f64(above).to_f64(), 1.0 + 2f64.powi(-10));
        assert_eq!(f16_from_f64(-above).to_f64(), -(1.0 + 2f64.powi(-10)));
        assert_eq!(f16_from_f64(1.0 + 2f64.powi(-11)).to_f64(), 1.0);
        // Subnormal f16 (spacing 2^-24): just above half of the smallest rounds up to it.
        assert_eq!(
            f16_from_f64(2f64.powi(-25) + 2f64.powi(-60)).to_f64(),
            2f64.powi(-24)
        );
        assert_eq!(f16_from_f64(2f64.powi(-25)).to_f64(), 0.0);
    }

    #[test]
    fn specials_and_exact_values_pass_through() {
        assert!(f16_from_f64(f64::NAN).is_nan());
        assert!(bf16_from_f64(f64::NAN).is_nan());
        assert_eq!(f16_from_f64(f64::INFINITY), f16::INFINITY);
        assert_eq!(bf16_from_f64(f64::NEG_INFINITY), bf16::NEG_INFINITY);
        assert_eq!(f16_from_f64(1e10), f16::INFINITY);
        assert_eq!(f16_from_f64(65504.0), f16::MAX);
        assert_eq!(bf16_from_f64(1e300), bf16::INFINITY);
        assert!(f16_from_f64(-1e-300).is_sign_negative());
        assert_eq!(f16_from_f64(-1e-300).to_f64(), 0.0);
        assert_eq!(bf16_from_f64(0.15625).to_f64(), 0.15625);
    }

    #[test]
    fn agrees_with_a_wide_reference_on_random_values() {
        // Reference: round the exact f64 to the 16-bit grid by comparing both neighbours.
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let x =
                f64::from_bits((s & 0x800f_ffff_ffff_ffff) | (1023u64 + (s >> 52) % 20 - 10) << 52);
            let h = f16_from_f64(x);
            let lo = f16::from_bits(h.to_bits().wrapping_sub(1)).to_f64();
            let hi = f16::from_bits(h.to_bits().wrapping_add(1)).to_f64();
            let d = (h.to_f64() - x).abs();
            assert!(d <= (lo - x).abs() && d <= (hi - x).abs(), "{x}: {h}");
            let b = bf16_from_f64(x);
            let lo = bf16::from_bits(b.to_bits().wrapping_sub(1)).to_f64();
            let hi = bf16::from_bits(b.to_bits().wrapping_add(1)).to_f64();
            let d = (b.to_f64() - x).abs();
            assert!(d <= (lo - x).abs() && d <= (hi - x).abs(), "{x}: {b}");
        }
    }
}
