//! Exact conversions between f32 and the 8-, 6- and 4-bit float codes of ONNX.
//!
//! Rounding is to nearest, ties to even.
//! With `saturate` (the ONNX default) infinities and out-of-range values clamp to the largest finite value;
//! without it they become NaN, or infinity for E5M2, as in the ONNX Cast table.

use crate::DType;

/// Layout of a small float format.
#[derive(Clone, Copy, Debug)]
struct Format {
    exp_bits: u32,
    man_bits: u32,
    bias: i32,
    /// Largest finite value.
    max: f64,
    /// IEEE-like: all-ones exponent means infinity or NaN.
    ieee: bool,
    /// No negative zero; 0x80 is NaN.
    fnuz: bool,
    /// E4M3FN: only the all-ones code (per sign) is NaN.
    fn_nan: bool,
}

fn format(dtype: DType) -> Option<Format> {
    let f = |exp_bits, man_bits, bias, max, ieee, fnuz, fn_nan| Format {
        exp_bits,
        man_bits,
        bias,
        max,
        ieee,
        fnuz,
        fn_nan,
    };
    Some(match dtype {
        DType::F8E4M3FN => f(4, 3, 7, 448.0, false, false, true),
        DType::F8E4M3FNUZ => f(4, 3, 8, 240.0, false, true, false),
        DType::F8E5M2 => f(5, 2, 15, 57344.0, true, false, false),
        DType::F8E5M2FNUZ => f(5, 2, 16, 57344.0, false, true, false),
        DType::F4E2M1 => f(2, 1, 1, 6.0, false, false, false),
        DType::F6E2M3 => f(2, 3, 1, 7.5, false, false, false),
        DType::F6E3M2 => f(3, 2, 3, 28.0, false, false, false),
        _ => return None,
    })
}

impl Format {
    fn total_bits(&self) -> u32 {
        1 + self.exp_bits + self.man_bits
    }

    fn sign_bit(&self) -> u8 {
        1u8 << (self.exp_bits + self.man_bits)
    }

    fn has_nan(&self) -> bool {
        self.ieee || self.fnuz || self.fn_nan
    }

    fn nan_code(&self, negative: bool) -> u8 {
        if self.fnuz {
            0x80
        } else {
            let mag = (1u8 << (self.exp_bits + self.man_bits)) - 1;
            if negative {
                mag | self.sign_bit()
            } else {
                mag
            }
        }
    }

    fn decode(&self, code: u8) -> f32 {
        let mask = ((1u16 << self.total_bits()) - 1) as u8;
        let code = code & mask;
        if self.fnuz && code == 0x80 {
            return f32::NAN;
        }
        let neg = code & self.sign_bit() != 0;
        let exp = ((code >> self.man_bits) as u32) & ((1 << self.exp_bits) - 1);
        let man = (code as u32) & ((1 << self.man_bits) - 1);
        let exp_all_ones = exp == (1 << self.exp_bits) - 1;
        if self.ieee && exp_all_ones {
            let v = if man == 0 { f32::INFINITY } else { f32::NAN };
            return if neg { -v } else { v };
        }
        if self.fn_nan && exp_all_ones && man == (1 << self.man_bits) - 1 {
            return if neg { -f32::NAN } else { f32::NAN };
        }
        let v = if exp == 0 {
            man as f64 * 2f64.powi(1 - self.bias - self.man_bits as i32)
        } else {
            (1.0 + man as f64 / (1u32 << self.man_bits) as f64) * 2f64.powi(exp as i32 - self.bias)
        };
        let v = v as f32;
        if neg {
            -v
        } else {
            v
        }
    }

    fn encode(&self, x: f32, saturate: bool) -> u8 {
        let neg = x.is_sign_negative();
        if x.is_nan() {
            if self.has_nan() {
                return self.nan_code(neg && !self.fnuz);
            }
            // Formats without NaN follow ml_dtypes: NaN becomes negative zero.
            return self.sign_bit();
        }
        let sign = if neg { self.sign_bit() } else { 0 };
        let ax = (x as f64).abs();
        let overflow = |this: &Format| -> u8 {
            if saturate || !this.has_nan() {
                sign | this.encode_exact(this.max)
            } else if this.ieee {
                sign | (((1u8 << this.exp_bits) - 1) << this.man_bits)
            } else {
                this.nan_code(neg)
            }
        };
        if ax.is_infinite() {
            return overflow(self);
        }
        if ax == 0.0 {
            return if self.fnuz { 0 } else { sign };
        }
        let emin = 1 - self.bias;
        let e = ax.log2().floor() as i32;
        // Correct possible off-by-one from log2 rounding.
        let e = if 2f64.powi(e) > ax {
            e - 1
        } else if 2f64.powi(e + 1) <= ax {
            e + 1
        } else {
            e
        };
        let quantum = 2f64.powi(e.max(emin) - self.man_bits as i32);
        let q = ax / quantum;
        let r = round_half_even(q);
        let v = r * quantum;
        if v == 0.0 {
            return if self.fnuz { 0 } else { sign };
        }
        if v > self.max {
            return overflow(self);
        }
        sign | self.encode_exact(v)
    }

    /// Encodes a positive value that is exactly representable.
    fn encode_exact(&self, v: f64) -> u8 {
        let emin = 1 - self.bias;
        let e = v.log2().floor() as i32;
        if e < emin {
            let m = v / 2f64.powi(emin - self.man_bits as i32);
            m as u8
        } else {
            let m = v / 2f64.powi(e - self.man_bits as i32) - (1u32 << self.man_bits) as f64;
            (((e + self.bias) as u8) << self.man_bits) | m as u8
        }
    }
}

/// Rounds to the nearest integer, ties to even: `x.round_ties_even()` without the call to
/// libm's `rint` that it compiles to on an x86-64 baseline without SSE4.1. Adding and
/// subtracting `1.5 · 2^52` rounds to the nearest integer, ties to even, in the default
/// rounding mode, for `|x| < 2^51`; larger magnitudes (and NaN) are already integers or pass
/// through. Quantizing (a model's weights, QuantizeLinear) rounds every element.
#[inline]
pub fn round_half_even(x: f64) -> f64 {
    const SHIFT: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52
    if x.abs() < 2_251_799_813_685_248.0 {
        // 2^51: the sum stays in [2^52, 2^53), where the spacing of f64 is 1; `copysign`
        // keeps the sign of a result of zero (-0.3 rounds to -0).
        ((x + SHIFT) - SHIFT).copysign(x)
    } else {
        x.round_ties_even()
    }
}

/// Rounding mode for conversions to float8e8m0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum E8M0Round {
    /// Round up to the next power of two (ONNX default).
    #[default]
    Up,
    /// Truncate to the power of two below.
    Down,
    /// Round to nearest.
    Nearest,
}

fn e8m0_encode(x: f32, saturate: bool, mode: E8M0Round) -> u8 {
    let bits = x.to_bits();
    let mut exp = ((bits >> 23) & 0xFF) as u16;
    if exp == 0xFF {
        return 0xFF;
    }
    let frac = bits & 0x7F_FFFF;
    let round_up = match mode {
        E8M0Round::Down => false,
        E8M0Round::Up => frac != 0,
        E8M0Round::Nearest => {
            let g = bits & 0x40_0000 != 0;
            let r = bits & 0x20_0000 != 0;
            let s = bits & 0x1F_FFFF != 0;
            g && (r || s || exp > 0)
        }
    };
    if round_up && !(saturate && exp == 0xFE) {
        exp += 1;
    }
    exp as u8
}

fn e8m0_decode(code: u8) -> f32 {
    if code == 0xFF {
        f32::NAN
    } else {
        2f64.powi(code as i32 - 127) as f32
    }
}

/// Decodes a small-float code of `dtype` to f32 (exact). Returns NaN for a dtype that is not a small float.
pub fn to_f32(dtype: DType, code: u8) -> f32 {
    if dtype == DType::F8E8M0 {
        return e8m0_decode(code);
    }
    match format(dtype) {
        Some(f) => f.decode(code),
        None => f32::NAN,
    }
}

/// Encodes `x` as a small-float code of `dtype` with ONNX Cast rules. Returns 0 for a dtype that is not a small float.
pub fn from_f32(dtype: DType, x: f32, saturate: bool) -> u8 {
    from_f32_mode(dtype, x, saturate, E8M0Round::Up)
}

/// Like [`from_f32`], with an explicit rounding mode for float8e8m0.
pub fn from_f32_mode(dtype: DType, x: f32, saturate: bool, mode: E8M0Round) -> u8 {
    if dtype == DType::F8E8M0 {
        return e8m0_encode(x, saturate, mode);
    }
    match format(dtype) {
        Some(f) => f.encode(x, saturate),
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_half_even_matches_std_everywhere() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            0.49999999999999994,
            -0.3,
            127.5,
            -128.5,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ];
        let edge = 2_251_799_813_685_248.0f64; // 2^51
        for d in [-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5] {
            xs.push(edge + d);
            xs.push(-edge - d);
            xs.push(2.0 * edge + d);
        }
        // Deterministic pseudo-random magnitudes over many scales.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mant = (state >> 11) as f64 / (1u64 << 53) as f64;
            let exp = ((state >> 3) % 60) as i32 - 10;
            let x = (mant - 0.5) * 2f64.powi(exp);
            xs.push(x);
            xs.push(x.trunc() + 0.5);
        }
        for x in xs {
            let (got, want) = (round_half_even(x), x.round_ties_even());
            assert_eq!(got.to_bits(), want.to_bits(), "round_half_even({x:e})");
        }
        assert!(round_half_even(f64::NAN).is_nan());
    }

    #[test]
    fn decode_known_codes() {
        // ml_dtypes: np.array([...], np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
        assert_eq!(to_f32(DType::F8E4M3FN, 78), 7.0);
        assert_eq!(to_f32(DType::F8E4M3FN, 0x7E), 448.0);
        assert!(to_f32(DType::F8E4M3FN, 0x7F).is_nan());
        assert_eq!(to_f32(DType::F8E4M3FN, 1), 2f32.powi(-9));
        assert_eq!(to_f32(DType::F8E5M2, 124), f32::INFINITY);
        assert_eq!(to_f32(DType::F8E5M2, 0x7B), 57344.0);
        assert!(to_f32(DType::F8E4M3FNUZ, 0x80).is_nan());
        assert_eq!(to_f32(DType::F8E4M3FNUZ, 0x7F), 240.0);
        assert_eq!(to_f32(DType::F4E2M1, 7), 6.0);
        assert_eq!(to_f32(DType::F4E2M1, 1), 0.5);
        assert_eq!(to_f32(DType::F6E2M3, 31), 7.5);
        assert_eq!(to_f32(DType::F6E3M2, 31), 28.0);
        assert_eq!(to_f32(DType::F8E8M0, 127), 1.0);
    }

    #[test]
    fn encode_matches_ml_dtypes() {
        // x = [nan, inf, -inf, 7, 100, -0.0, 0.25, 0.26, 5, 1e-9] cast with ml_dtypes (non-saturating astype).
        let x = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            7.0,
            100.0,
            -0.0,
            0.25,
            0.26,
            5.0,
            1e-9,
        ];
        let cases: [(DType, [u8; 10]); 7] = [
            (DType::F4E2M1, [8, 7, 15, 7, 7, 8, 0, 1, 6, 0]),
            (DType::F6E2M3, [32, 31, 63, 30, 31, 32, 2, 2, 26, 0]),
            (DType::F6E3M2, [32, 31, 63, 23, 31, 32, 4, 4, 21, 0]),
            (
                DType::F8E4M3FN,
                [127, 127, 255, 78, 108, 128, 40, 40, 74, 0],
            ),
            (DType::F8E5M2, [126, 124, 252, 71, 86, 128, 52, 52, 69, 0]),
            (
                DType::F8E4M3FNUZ,
                [128, 128, 128, 86, 116, 0, 48, 48, 82, 0],
            ),
            (DType::F8E5M2FNUZ, [128, 128, 128, 75, 90, 0, 56, 56, 73, 0]),
        ];
        for (dt, want) in cases {
            let got: Vec<u8> = x.iter().map(|&v| from_f32(dt, v, false)).collect();
            // ml_dtypes writes +NaN as 0x7E for E5M2, both are NaN codes.
            if dt == DType::F8E5M2 {
                assert!(to_f32(dt, got[0]).is_nan());
                assert_eq!(&got[1..], &want[1..], "{dt}");
            } else {
                assert_eq!(got, want, "{dt}");
            }
        }
    }

    #[test]
    fn saturation_and_ties() {
        assert_eq!(from_f32(DType::F8E4M3FN, 1e6, true), 0x7E);
        assert_eq!(from_f32(DType::F8E4M3FN, -1e6, true), 0xFE);
        assert_eq!(from_f32(DType::F8E4M3FN, f32::INFINITY, true), 0x7E);
        assert_eq!(from_f32(DType::F8E5M2, f32::INFINITY, true), 0x7B);
        assert_eq!(from_f32(DType::F8E5M2, 1e6, false), 0x7C);
        // 464 is the midpoint between 448 and 480; ties to even keeps 448.
        assert_eq!(from_f32(DType::F8E4M3FN, 464.0, false), 0x7E);
        assert_eq!(from_f32(DType::F8E4M3FN, 465.0, false), 0x7F);
        // 1.0625 lies halfway between 1.0 (even) and 1.125.
        assert_eq!(
            to_f32(DType::F8E4M3FN, from_f32(DType::F8E4M3FN, 1.0625, true)),
            1.0
        );
        assert_eq!(
            to_f32(DType::F8E4M3FN, from_f32(DType::F8E4M3FN, 1.1875, true)),
            1.25
        );
        // Every code round-trips.
        for dt in [
            DType::F8E4M3FN,
            DType::F8E4M3FNUZ,
            DType::F8E5M2,
            DType::F8E5M2FNUZ,
        ] {
            for c in 0..=255u8 {
                let v = to_f32(dt, c);
                if v.is_finite()
                    && !(v == 0.0 && c != 0 && dt != DType::F8E4M3FN && dt != DType::F8E5M2)
                {
                    assert_eq!(from_f32(dt, v, true), c, "{dt} code {c}");
                }
            }
        }
    }

    #[test]
    fn e8m0_modes() {
        // onnx.numpy_helper.to_float8e8m0(np.array([3.0, 4.0, 0.0]), round_mode=...)
        assert_eq!(from_f32_mode(DType::F8E8M0, 3.0, true, E8M0Round::Up), 129);
        assert_eq!(
            from_f32_mode(DType::F8E8M0, 3.0, true, E8M0Round::Down),
            128
        );
        assert_eq!(
            from_f32_mode(DType::F8E8M0, 3.0, true, E8M0Round::Nearest),
            129
        );
        assert_eq!(from_f32_mode(DType::F8E8M0, 4.0, true, E8M0Round::Up), 129);
        assert_eq!(
            from_f32_mode(DType::F8E8M0, f32::NAN, true, E8M0Round::Up),
            255
        );
    }
}
