//! Small numeric helpers shared by attributes, folders and the parser.

use crate::types::{FloatKind, Signedness};

/// Truncates `value` to `width` bits and extends it back: sign-extended for signless and signed
/// integers, zero-extended for unsigned ones. Widths of 128 bits or more are kept as is.
pub fn normalize_int(value: i128, width: u32, signedness: Signedness) -> i128 {
    if width == 0 || width >= 128 {
        return value;
    }
    let mask: u128 = (1u128 << width) - 1;
    let bits = (value as u128) & mask;
    match signedness {
        Signedness::Unsigned => bits as i128,
        Signedness::Signless | Signedness::Signed => {
            let sign = 1u128 << (width - 1);
            if bits & sign != 0 {
                (bits | !mask) as i128
            } else {
                bits as i128
            }
        }
    }
}

/// Rounds `value` to the nearest value representable in `kind` (round to nearest even), for the
/// formats where that is cheap to do exactly: `f16`, `bf16`, `f32`; other formats are kept as
/// `f64`.
pub fn round_to_float_kind(value: f64, kind: FloatKind) -> f64 {
    match kind {
        FloatKind::F32 | FloatKind::TF32 => value as f32 as f64,
        FloatKind::F16 => f16_bits_to_f64(f64_to_f16_bits(value)),
        FloatKind::BF16 => bf16_bits_to_f64(f64_to_bf16_bits(value)),
        _ => value,
    }
}

/// `f64` to IEEE half bits, rounding to nearest even.
pub fn f64_to_f16_bits(value: f64) -> u16 {
    // Go through f32 first: double rounding f64->f32->f16 can differ from direct rounding only
    // in rare halfway cases; handle exactly by working on the f64 bits.
    let bits = value.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let man = bits & 0x000f_ffff_ffff_ffff;
    if exp == 0x7ff {
        return if man == 0 {
            sign | 0x7c00
        } else {
            sign | 0x7e00 | ((man >> 42) as u16 & 0x1ff)
        };
    }
    let e = exp - 1023 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    // Full significand with implicit bit (53 bits).
    let full = if exp == 0 { man } else { man | (1u64 << 52) };
    let (shift, e_out) = if e <= 0 {
        // Subnormal half: value = full * 2^(exp-1075); half subnormal unit is 2^-24.
        (42 + (1 - e) as u32, 0u16)
    } else {
        (42u32, e as u16)
    };
    if shift >= 64 {
        return sign;
    }
    let kept = full >> shift;
    let rem = full & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    let mut m = kept;
    if rem > half || (rem == half && (kept & 1) == 1) {
        m += 1;
    }
    let out = if e_out == 0 {
        // m may have rounded up into the normal range; that is encoded naturally.
        m as u16
    } else {
        // m includes the implicit bit at position 10.
        let mut ee = e_out as u32;
        let mut mm = m;
        if mm >= (1 << 11) {
            mm >>= 1;
            ee += 1;
        }
        if ee >= 0x1f {
            return sign | 0x7c00;
        }
        ((ee as u16) << 10) | (mm as u16 & 0x3ff)
    };
    sign | out
}

/// IEEE half bits to `f64`.
pub fn f16_bits_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as f64;
    if exp == 0 {
        sign * man * 2f64.powi(-24)
    } else if exp == 0x1f {
        if man == 0.0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        }
    } else {
        sign * (1.0 + man / 1024.0) * 2f64.powi(exp - 15)
    }
}

/// `f64` to bfloat16 bits, rounding to nearest even (through `f32`).
pub fn f64_to_bf16_bits(value: f64) -> u16 {
    let f = value as f32;
    let bits = f.to_bits();
    if f.is_nan() {
        return ((bits >> 16) as u16) | 0x40;
    }
    let lsb = (bits >> 16) & 1;
    let rounded = bits.wrapping_add(0x7fff + lsb);
    (rounded >> 16) as u16
}

/// bfloat16 bits to `f64`.
pub fn bf16_bits_to_f64(h: u16) -> f64 {
    f32::from_bits((h as u32) << 16) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_int_wraps_and_extends() {
        assert_eq!(normalize_int(255, 8, Signedness::Signless), -1);
        assert_eq!(normalize_int(-1, 8, Signedness::Unsigned), 255);
        assert_eq!(normalize_int(256, 8, Signedness::Signless), 0);
        assert_eq!(normalize_int(1, 1, Signedness::Signless), -1);
        assert_eq!(normalize_int(5, 64, Signedness::Signless), 5);
    }

    #[test]
    fn f16_round_trip() {
        for v in [0.0, 1.0, -2.5, 65504.0, 6.1e-5, 5.96e-8, 0.1] {
            let r = f16_bits_to_f64(f64_to_f16_bits(v));
            assert!((r - v).abs() <= v.abs() * 1e-3 + 6e-8, "{v} -> {r}");
        }
        assert_eq!(f64_to_f16_bits(1.0), 0x3c00);
        assert_eq!(f64_to_f16_bits(70000.0), 0x7c00);
        assert_eq!(f64_to_bf16_bits(1.0), 0x3f80);
    }
}
