//! Element types: every ONNX `TensorProto.DataType`, with codes, MLIR names and sizes.

use std::fmt;

/// An ONNX tensor element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    BF16,
    /// Signed 8-bit integer.
    I8,
    /// Signed 16-bit integer.
    I16,
    /// Signed 32-bit integer.
    I32,
    /// Signed 64-bit integer.
    I64,
    /// Unsigned 8-bit integer.
    U8,
    /// Unsigned 16-bit integer.
    U16,
    /// Unsigned 32-bit integer.
    U32,
    /// Unsigned 64-bit integer.
    U64,
    /// Boolean.
    Bool,
    /// UTF-8 string.
    String,
    /// Complex number of two f32.
    Complex64,
    /// Complex number of two f64.
    Complex128,
    /// 8-bit float, 4 exponent bits, 3 mantissa bits, finite and NaN only.
    F8E4M3FN,
    /// 8-bit float, 4 exponent bits, 3 mantissa bits, no negative zero.
    F8E4M3FNUZ,
    /// 8-bit float, 5 exponent bits, 2 mantissa bits, IEEE-like.
    F8E5M2,
    /// 8-bit float, 5 exponent bits, 2 mantissa bits, no negative zero.
    F8E5M2FNUZ,
    /// 8-bit power of two (exponent only), used by MX scales.
    F8E8M0,
    /// 4-bit float, 2 exponent bits, 1 mantissa bit.
    F4E2M1,
    /// 6-bit float, 2 exponent bits, 3 mantissa bits.
    F6E2M3,
    /// 6-bit float, 3 exponent bits, 2 mantissa bits.
    F6E3M2,
    /// Signed 4-bit integer.
    I4,
    /// Unsigned 4-bit integer.
    U4,
    /// Signed 2-bit integer.
    I2,
    /// Unsigned 2-bit integer.
    U2,
}

/// How a dtype's elements are held in memory by [`crate::Tensor`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// `Vec<f32>`.
    F32,
    /// `Vec<f64>`.
    F64,
    /// `Vec<half::f16>`.
    F16,
    /// `Vec<half::bf16>`.
    BF16,
    /// `Vec<i8>`, also int4 and int2 unpacked one per byte.
    I8,
    /// `Vec<i16>`.
    I16,
    /// `Vec<i32>`.
    I32,
    /// `Vec<i64>`.
    I64,
    /// `Vec<u8>`, also uint4/uint2 unpacked and the raw codes of the small floats.
    U8,
    /// `Vec<u16>`.
    U16,
    /// `Vec<u32>`.
    U32,
    /// `Vec<u64>`.
    U64,
    /// `Vec<bool>`.
    Bool,
    /// `Vec<String>`.
    Str,
    /// `Vec<Complex<f32>>`.
    C64,
    /// `Vec<Complex<f64>>`.
    C128,
}

impl DType {
    /// Every dtype, in ONNX code order.
    pub const ALL: [DType; 28] = [
        DType::F32,
        DType::U8,
        DType::I8,
        DType::U16,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::String,
        DType::Bool,
        DType::F16,
        DType::F64,
        DType::U32,
        DType::U64,
        DType::Complex64,
        DType::Complex128,
        DType::BF16,
        DType::F8E4M3FN,
        DType::F8E4M3FNUZ,
        DType::F8E5M2,
        DType::F8E5M2FNUZ,
        DType::U4,
        DType::I4,
        DType::F4E2M1,
        DType::F8E8M0,
        DType::U2,
        DType::I2,
        DType::F6E2M3,
        DType::F6E3M2,
    ];

    /// The ONNX `TensorProto.DataType` number.
    pub fn onnx_code(self) -> i32 {
        match self {
            DType::F32 => 1,
            DType::U8 => 2,
            DType::I8 => 3,
            DType::U16 => 4,
            DType::I16 => 5,
            DType::I32 => 6,
            DType::I64 => 7,
            DType::String => 8,
            DType::Bool => 9,
            DType::F16 => 10,
            DType::F64 => 11,
            DType::U32 => 12,
            DType::U64 => 13,
            DType::Complex64 => 14,
            DType::Complex128 => 15,
            DType::BF16 => 16,
            DType::F8E4M3FN => 17,
            DType::F8E4M3FNUZ => 18,
            DType::F8E5M2 => 19,
            DType::F8E5M2FNUZ => 20,
            DType::U4 => 21,
            DType::I4 => 22,
            DType::F4E2M1 => 23,
            DType::F8E8M0 => 24,
            DType::U2 => 25,
            DType::I2 => 26,
            DType::F6E2M3 => 27,
            DType::F6E3M2 => 28,
        }
    }

    /// The dtype of an ONNX `TensorProto.DataType` number, `None` for 0 (UNDEFINED) and unknown codes.
    pub fn from_onnx_code(code: i32) -> Option<DType> {
        DType::ALL.iter().copied().find(|d| d.onnx_code() == code)
    }

    /// The MLIR spelling of the element type (`f32`, `ui8`, `i1`, `f8E4M3FN`, `complex<f32>`, ...).
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "ui8",
            DType::U16 => "ui16",
            DType::U32 => "ui32",
            DType::U64 => "ui64",
            DType::Bool => "i1",
            DType::String => "!onnx.string",
            DType::Complex64 => "complex<f32>",
            DType::Complex128 => "complex<f64>",
            DType::F8E4M3FN => "f8E4M3FN",
            DType::F8E4M3FNUZ => "f8E4M3FNUZ",
            DType::F8E5M2 => "f8E5M2",
            DType::F8E5M2FNUZ => "f8E5M2FNUZ",
            DType::F8E8M0 => "f8E8M0FNU",
            DType::F4E2M1 => "f4E2M1FN",
            DType::F6E2M3 => "f6E2M3FN",
            DType::F6E3M2 => "f6E3M2FN",
            DType::I4 => "i4",
            DType::U4 => "ui4",
            DType::I2 => "i2",
            DType::U2 => "ui2",
        }
    }

    /// Parses an MLIR element type spelling, the inverse of [`DType::name`].
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.iter().copied().find(|d| d.name() == name)
    }

    /// Size of one element in bits as ONNX packs it (4 for int4, 2 for int2, 0 for string).
    pub fn bit_width(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 8,
            DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ => 8,
            DType::F8E8M0 => 8,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 16,
            DType::I32 | DType::U32 | DType::F32 => 32,
            DType::I64 | DType::U64 | DType::F64 | DType::Complex64 => 64,
            DType::Complex128 => 128,
            DType::I4 | DType::U4 | DType::F4E2M1 => 4,
            DType::F6E2M3 | DType::F6E3M2 => 6,
            DType::I2 | DType::U2 => 2,
            DType::String => 0,
        }
    }

    /// Size of one element in bytes in ONNX `raw_data` for byte-aligned types, `None` for sub-byte types and strings.
    pub fn byte_size(self) -> Option<usize> {
        let bits = self.bit_width();
        (bits >= 8 && bits.is_multiple_of(8)).then_some(bits / 8)
    }

    /// How [`crate::Tensor`] stores elements of this type.
    pub fn storage(self) -> Storage {
        match self {
            DType::F32 => Storage::F32,
            DType::F64 => Storage::F64,
            DType::F16 => Storage::F16,
            DType::BF16 => Storage::BF16,
            DType::I8 | DType::I4 | DType::I2 => Storage::I8,
            DType::I16 => Storage::I16,
            DType::I32 => Storage::I32,
            DType::I64 => Storage::I64,
            DType::U8 | DType::U4 | DType::U2 => Storage::U8,
            DType::F8E4M3FN
            | DType::F8E4M3FNUZ
            | DType::F8E5M2
            | DType::F8E5M2FNUZ
            | DType::F8E8M0
            | DType::F4E2M1
            | DType::F6E2M3
            | DType::F6E3M2 => Storage::U8,
            DType::U16 => Storage::U16,
            DType::U32 => Storage::U32,
            DType::U64 => Storage::U64,
            DType::Bool => Storage::Bool,
            DType::String => Storage::Str,
            DType::Complex64 => Storage::C64,
            DType::Complex128 => Storage::C128,
        }
    }

    /// True for real floating-point types, including the 8-, 6- and 4-bit floats.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            DType::F32
                | DType::F64
                | DType::F16
                | DType::BF16
                | DType::F8E4M3FN
                | DType::F8E4M3FNUZ
                | DType::F8E5M2
                | DType::F8E5M2FNUZ
                | DType::F8E8M0
                | DType::F4E2M1
                | DType::F6E2M3
                | DType::F6E3M2
        )
    }

    /// Rounds `x` to the precision of this type when it is f32, f16 or bf16 (identity otherwise).
    ///
    /// Kernels that follow ONNX's numpy reference step by step use it to round an intermediate
    /// where numpy would.
    pub(crate) fn round(self, x: f64) -> f64 {
        match self {
            DType::F32 => x as f32 as f64,
            DType::F16 => crate::halfround::f16_from_f64(x).to_f64(),
            DType::BF16 => crate::halfround::bf16_from_f64(x).to_f64(),
            _ => x,
        }
    }

    /// True for the small floats stored as raw codes (8-, 6- and 4-bit).
    pub fn is_small_float(self) -> bool {
        self.is_float() && self.bit_width() <= 8
    }

    /// True for signed and unsigned integers of every width (not bool).
    pub fn is_int(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }

    /// True for signed integers.
    pub fn is_signed_int(self) -> bool {
        matches!(
            self,
            DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::I4 | DType::I2
        )
    }

    /// True for unsigned integers.
    pub fn is_unsigned_int(self) -> bool {
        matches!(
            self,
            DType::U8 | DType::U16 | DType::U32 | DType::U64 | DType::U4 | DType::U2
        )
    }

    /// True for complex types.
    pub fn is_complex(self) -> bool {
        matches!(self, DType::Complex64 | DType::Complex128)
    }

    /// The inclusive value range of an integer type, `None` for other types.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            DType::I8 => (i8::MIN as i128, i8::MAX as i128),
            DType::I16 => (i16::MIN as i128, i16::MAX as i128),
            DType::I32 => (i32::MIN as i128, i32::MAX as i128),
            DType::I64 => (i64::MIN as i128, i64::MAX as i128),
            DType::U8 => (0, u8::MAX as i128),
            DType::U16 => (0, u16::MAX as i128),
            DType::U32 => (0, u32::MAX as i128),
            DType::U64 => (0, u64::MAX as i128),
            DType::I4 => (-8, 7),
            DType::U4 => (0, 15),
            DType::I2 => (-2, 1),
            DType::U2 => (0, 3),
            _ => return None,
        })
    }

    /// Wraps an integer into this integer type's range (two's complement truncation).
    pub fn wrap_int(self, v: i128) -> i128 {
        let bits = self.bit_width() as u32;
        if !self.is_int() || bits >= 128 {
            return v;
        }
        let m = 1i128 << bits;
        let mut r = v.rem_euclid(m);
        if self.is_signed_int() && r >= m / 2 {
            r -= m;
        }
        r
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_onnx_code(d.onnx_code()), Some(d));
            assert_eq!(DType::from_name(d.name()), Some(d));
        }
        assert_eq!(DType::from_onnx_code(0), None);
        assert_eq!(DType::F32.onnx_code(), 1);
        assert_eq!(DType::F8E8M0.onnx_code(), 24);
        assert_eq!(DType::Bool.name(), "i1");
        assert_eq!(DType::U8.name(), "ui8");
    }

    #[test]
    fn sizes_and_wrap() {
        assert_eq!(DType::F16.byte_size(), Some(2));
        assert_eq!(DType::I4.byte_size(), None);
        assert_eq!(DType::I8.wrap_int(200), -56);
        assert_eq!(DType::U4.wrap_int(-1), 15);
        assert_eq!(DType::I4.wrap_int(8), -8);
        assert_eq!(DType::U64.wrap_int(-1), u64::MAX as i128);
    }
}
