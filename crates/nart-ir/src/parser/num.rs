//! Conversions between float values (held as `f64`) and the bit patterns of every builtin float
//! format, used by hex float literals, dense hex blobs and the printer.

use crate::types::FloatKind;
use crate::util::{bf16_bits_to_f64, f16_bits_to_f64, f64_to_bf16_bits, f64_to_f16_bits};

/// How a small format spells NaN and infinity.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Special {
    /// IEEE: all-ones exponent means inf (mantissa 0) or NaN.
    Ieee,
    /// `FN`: no infinity; all-ones exponent and mantissa is NaN.
    Fn,
    /// `FNUZ`: no infinity, no negative zero; `0x80` is NaN.
    Fnuz,
    /// No infinity and no NaN.
    None,
}

struct Fmt {
    exp: u32,
    man: u32,
    bias: i32,
    special: Special,
}

fn fmt_of(kind: FloatKind) -> Option<Fmt> {
    let f = |exp, man, bias, special| {
        Some(Fmt {
            exp,
            man,
            bias,
            special,
        })
    };
    match kind {
        FloatKind::F4E2M1FN => f(2, 1, 1, Special::None),
        FloatKind::F6E2M3FN => f(2, 3, 1, Special::None),
        FloatKind::F6E3M2FN => f(3, 2, 3, Special::None),
        FloatKind::F8E5M2 => f(5, 2, 15, Special::Ieee),
        FloatKind::F8E4M3 => f(4, 3, 7, Special::Ieee),
        FloatKind::F8E4M3FN => f(4, 3, 7, Special::Fn),
        FloatKind::F8E5M2FNUZ => f(5, 2, 16, Special::Fnuz),
        FloatKind::F8E4M3FNUZ => f(4, 3, 8, Special::Fnuz),
        FloatKind::F8E4M3B11FNUZ => f(4, 3, 11, Special::Fnuz),
        FloatKind::F8E3M4 => f(3, 4, 3, Special::Ieee),
        FloatKind::TF32 => f(8, 10, 127, Special::Ieee),
        FloatKind::F128 => f(15, 112, 16383, Special::Ieee),
        _ => None,
    }
}

/// The bit pattern of `value` in format `kind` (rounded to nearest even).
pub(crate) fn float_to_bits(kind: FloatKind, value: f64) -> u128 {
    match kind {
        FloatKind::F64 => value.to_bits() as u128,
        FloatKind::F32 => (value as f32).to_bits() as u128,
        FloatKind::F16 => f64_to_f16_bits(value) as u128,
        FloatKind::BF16 => f64_to_bf16_bits(value) as u128,
        FloatKind::F8E8M0FNU => {
            if value.is_nan() || value <= 0.0 {
                return 0xFF;
            }
            let e = value.log2().round() as i32 + 127;
            e.clamp(0, 254) as u128
        }
        FloatKind::F80 => f80_from_f64(value),
        _ => match fmt_of(kind) {
            Some(f) => encode(&f, value),
            None => value.to_bits() as u128,
        },
    }
}

/// The value of bit pattern `bits` in format `kind`.
pub(crate) fn bits_to_float(kind: FloatKind, bits: u128) -> f64 {
    match kind {
        FloatKind::F64 => f64::from_bits(bits as u64),
        FloatKind::F32 => f32::from_bits(bits as u32) as f64,
        FloatKind::F16 => f16_bits_to_f64(bits as u16),
        FloatKind::BF16 => bf16_bits_to_f64(bits as u16),
        FloatKind::F8E8M0FNU => {
            if bits & 0xFF == 0xFF {
                f64::NAN
            } else {
                2f64.powi((bits & 0xFF) as i32 - 127)
            }
        }
        FloatKind::F80 => f80_to_f64(bits),
        _ => match fmt_of(kind) {
            Some(f) => decode(&f, bits),
            None => f64::from_bits(bits as u64),
        },
    }
}

/// Storage size in bytes of one element of `kind` in dense data.
pub(crate) fn float_storage_bytes(kind: FloatKind) -> usize {
    match kind {
        FloatKind::F80 => 16,
        k => k.width().div_ceil(8) as usize,
    }
}

fn decode(f: &Fmt, bits: u128) -> f64 {
    let total = 1 + f.exp + f.man;
    let bits = if total >= 128 {
        bits
    } else {
        bits & ((1u128 << total) - 1)
    };
    let sign = (bits >> (f.exp + f.man)) & 1 == 1;
    let e = ((bits >> f.man) & ((1u128 << f.exp) - 1)) as i32;
    let m = bits & ((1u128 << f.man) - 1);
    let e_max = (1i32 << f.exp) - 1;
    match f.special {
        Special::Ieee if e == e_max => {
            return if m == 0 {
                if sign {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            } else {
                f64::NAN
            }
        }
        Special::Fn if e == e_max && m == (1u128 << f.man) - 1 => return f64::NAN,
        Special::Fnuz if sign && e == 0 && m == 0 => return f64::NAN,
        _ => {}
    }
    let mf = m as f64 / 2f64.powi(f.man as i32);
    let v = if e == 0 {
        mf * 2f64.powi(1 - f.bias)
    } else {
        (1.0 + mf) * 2f64.powi(e - f.bias)
    };
    if sign {
        -v
    } else {
        v
    }
}

fn encode(f: &Fmt, value: f64) -> u128 {
    let sign_bit = 1u128 << (f.exp + f.man);
    let e_all = (1u128 << f.exp) - 1;
    let m_all = (1u128 << f.man) - 1;
    let nan = match f.special {
        Special::Ieee => (e_all << f.man) | (1u128 << (f.man.max(1) - 1)),
        Special::Fn => (e_all << f.man) | m_all,
        Special::Fnuz => sign_bit,
        Special::None => (e_all << f.man) | m_all,
    };
    if value.is_nan() {
        return nan;
    }
    let neg = value.is_sign_negative();
    let sign = if neg { sign_bit } else { 0 };
    let a = value.abs();
    // Largest finite encoding.
    let (max_e, max_m) = match f.special {
        Special::Ieee => (e_all - 1, m_all),
        Special::Fn => (e_all, m_all - 1),
        _ => (e_all, m_all),
    };
    let overflow = |s: u128| match f.special {
        Special::Ieee => s | (e_all << f.man),
        Special::Fn | Special::Fnuz => nan,
        Special::None => s | (max_e << f.man) | max_m,
    };
    if a.is_infinite() {
        return overflow(sign);
    }
    if a == 0.0 {
        return if f.special == Special::Fnuz { 0 } else { sign };
    }
    // a = mant * 2^exp2 exactly, mant a 53-bit integer.
    let b = a.to_bits();
    let (mant, exp2) = {
        let e = ((b >> 52) & 0x7ff) as i32;
        let m = b & ((1u64 << 52) - 1);
        if e == 0 {
            (m, -1074)
        } else {
            (m | (1u64 << 52), e - 1075)
        }
    };
    // Unbiased exponent of a, clamped to the subnormal range of the target.
    let lead = 63 - mant.leading_zeros() as i32 + exp2;
    let e_unb = lead.max(1 - f.bias);
    let q = e_unb - f.man as i32; // quantum exponent
    let shift = q - exp2;
    let mut sig: u128 = if shift <= 0 {
        (mant as u128) << (-shift).min(100)
    } else if shift >= 120 {
        0
    } else {
        let s = shift as u32;
        let kept = (mant as u128) >> s;
        let rem = (mant as u128) & ((1u128 << s) - 1);
        let half = 1u128 << (s - 1);
        if rem > half || (rem == half && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    let mut e_field = if sig >= (1u128 << f.man) {
        (e_unb + f.bias) as i128
    } else {
        0
    };
    if sig >= (1u128 << (f.man + 1)) {
        sig >>= 1;
        e_field += 1;
    }
    if e_field > max_e as i128 {
        return overflow(sign);
    }
    let m = sig & m_all;
    if e_field == max_e as i128 && m > max_m {
        return overflow(sign);
    }
    if e_field == 0 && sig == 0 && f.special == Special::Fnuz {
        // Underflow to zero: FNUZ has no negative zero.
        return 0;
    }
    sign | ((e_field as u128) << f.man) | m
}

fn f80_to_f64(bits: u128) -> f64 {
    let sign = (bits >> 79) & 1 == 1;
    let e = ((bits >> 64) & 0x7fff) as i32;
    let m = bits as u64;
    let v = if e == 0x7fff {
        if m << 1 == 0 {
            f64::INFINITY
        } else {
            f64::NAN
        }
    } else if e == 0 {
        m as f64 * 2f64.powi(-16382 - 63)
    } else {
        m as f64 * 2f64.powi(e - 16383 - 63)
    };
    if sign {
        -v
    } else {
        v
    }
}

fn f80_from_f64(value: f64) -> u128 {
    let sign = if value.is_sign_negative() {
        1u128 << 79
    } else {
        0
    };
    if value.is_nan() {
        return (0x7fffu128 << 64) | 0xC000_0000_0000_0000;
    }
    if value.is_infinite() {
        return sign | (0x7fffu128 << 64) | 0x8000_0000_0000_0000;
    }
    if value == 0.0 {
        return sign;
    }
    let b = value.abs().to_bits();
    let e = ((b >> 52) & 0x7ff) as i32;
    let m = b & ((1u64 << 52) - 1);
    let (mant, exp2) = if e == 0 {
        (m, -1074)
    } else {
        (m | (1u64 << 52), e - 1075)
    };
    let lz = mant.leading_zeros();
    let mant = mant << lz;
    let exp = exp2 - lz as i32 + 63 + 16383;
    sign | ((exp as u128) << 64) | mant as u128
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_formats_round_trip() {
        for kind in FloatKind::ALL {
            if kind == FloatKind::F8E8M0FNU {
                continue;
            }
            for v in [0.0, 1.0, -1.5, 0.5, 2.0] {
                let bits = float_to_bits(kind, v);
                assert_eq!(bits_to_float(kind, bits), v, "{kind:?} {v}");
            }
        }
        assert_eq!(float_to_bits(FloatKind::F8E4M3FN, 448.0), 0x7E);
        assert!(bits_to_float(FloatKind::F8E4M3FN, 0x7F).is_nan());
        assert_eq!(float_to_bits(FloatKind::F8E5M2, f64::INFINITY), 0x7C);
        assert!(bits_to_float(FloatKind::F8E4M3FNUZ, 0x80).is_nan());
        assert_eq!(float_to_bits(FloatKind::F32, 1.0), 0x3F80_0000);
    }
}
