//! A Rust view of `TensorProto.DataType` with names and storage widths.
//!
//! ONNX stores element types as plain `int32` fields (`TensorProto.data_type`,
//! `TypeProto.Tensor.elem_type`), so a reader has to map numbers to meaning.
//! [`DataType`] does that once, with the ONNX spelling of each name, the
//! storage width in bits, and a few classification helpers.

use crate::errors::UnknownDataType;
use crate::onnx::tensor_proto;

macro_rules! data_types {
    ($($(#[$doc:meta])* $variant:ident = $value:literal, $name:literal, $bits:literal;)*) => {
        /// An ONNX tensor element type.
        ///
        /// The discriminants are the values of `TensorProto.DataType`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(i32)]
        pub enum DataType {
            $($(#[$doc])* $variant = $value,)*
        }

        impl DataType {
            /// Every element type, in ascending code order.
            pub const ALL: &'static [DataType] = &[$(DataType::$variant,)*];

            /// Looks up the element type with the given `data_type` code.
            pub fn from_code(code: i32) -> Result<Self, UnknownDataType> {
                match code {
                    $($value => Ok(DataType::$variant),)*
                    _ => Err(UnknownDataType(code)),
                }
            }

            /// The ONNX spelling, such as `FLOAT` or `FLOAT8E4M3FN`.
            pub fn name(self) -> &'static str {
                match self {
                    $(DataType::$variant => $name,)*
                }
            }

            /// Looks up an element type by its ONNX spelling.
            ///
            /// The match is exact (upper case), as in the schema.
            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    $($name => Some(DataType::$variant),)*
                    _ => None,
                }
            }

            /// The storage size of one element in bits, as packed in
            /// `raw_data`; `None` for `UNDEFINED` and `STRING`, which have
            /// no fixed size.
            pub fn bit_width(self) -> Option<u32> {
                match self {
                    $(DataType::$variant => if $bits == 0 { None } else { Some($bits) },)*
                }
            }
        }
    };
}

data_types! {
    /// No type; not valid in a well-formed tensor.
    Undefined = 0, "UNDEFINED", 0;
    /// IEEE 754 binary32.
    Float = 1, "FLOAT", 32;
    /// Unsigned 8-bit integer.
    Uint8 = 2, "UINT8", 8;
    /// Signed 8-bit integer.
    Int8 = 3, "INT8", 8;
    /// Unsigned 16-bit integer.
    Uint16 = 4, "UINT16", 16;
    /// Signed 16-bit integer.
    Int16 = 5, "INT16", 16;
    /// Signed 32-bit integer.
    Int32 = 6, "INT32", 32;
    /// Signed 64-bit integer.
    Int64 = 7, "INT64", 64;
    /// Byte string.
    String = 8, "STRING", 0;
    /// Boolean, one byte per element.
    Bool = 9, "BOOL", 8;
    /// IEEE 754 binary16.
    Float16 = 10, "FLOAT16", 16;
    /// IEEE 754 binary64.
    Double = 11, "DOUBLE", 64;
    /// Unsigned 32-bit integer.
    Uint32 = 12, "UINT32", 32;
    /// Unsigned 64-bit integer.
    Uint64 = 13, "UINT64", 64;
    /// Complex number of two binary32 values.
    Complex64 = 14, "COMPLEX64", 64;
    /// Complex number of two binary64 values.
    Complex128 = 15, "COMPLEX128", 128;
    /// Brain float: the upper half of a binary32.
    Bfloat16 = 16, "BFLOAT16", 16;
    /// 8-bit float, E4M3, finite (NaN, no infinity).
    Float8E4M3FN = 17, "FLOAT8E4M3FN", 8;
    /// 8-bit float, E4M3, finite, no negative zero.
    Float8E4M3FNUZ = 18, "FLOAT8E4M3FNUZ", 8;
    /// 8-bit float, E5M2, IEEE-like.
    Float8E5M2 = 19, "FLOAT8E5M2", 8;
    /// 8-bit float, E5M2, finite, no negative zero.
    Float8E5M2FNUZ = 20, "FLOAT8E5M2FNUZ", 8;
    /// Unsigned 4-bit integer.
    Uint4 = 21, "UINT4", 4;
    /// Signed 4-bit integer.
    Int4 = 22, "INT4", 4;
    /// 4-bit float, E2M1.
    Float4E2M1 = 23, "FLOAT4E2M1", 4;
    /// 8-bit exponent-only float, E8M0.
    Float8E8M0 = 24, "FLOAT8E8M0", 8;
    /// Unsigned 2-bit integer.
    Uint2 = 25, "UINT2", 2;
    /// Signed 2-bit integer.
    Int2 = 26, "INT2", 2;
    /// 6-bit float, E2M3.
    Float6E2M3 = 27, "FLOAT6E2M3", 6;
    /// 6-bit float, E3M2.
    Float6E3M2 = 28, "FLOAT6E3M2", 6;
}

impl DataType {
    /// The `data_type` code stored in the protobuf.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// Whether this is a real floating-point type (including the 4-, 6- and
    /// 8-bit formats; not the complex types).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            DataType::Float
                | DataType::Float16
                | DataType::Double
                | DataType::Bfloat16
                | DataType::Float8E4M3FN
                | DataType::Float8E4M3FNUZ
                | DataType::Float8E5M2
                | DataType::Float8E5M2FNUZ
                | DataType::Float4E2M1
                | DataType::Float8E8M0
                | DataType::Float6E2M3
                | DataType::Float6E3M2
        )
    }

    /// Whether this is an integer type (signed or not; not `BOOL`).
    pub fn is_integer(self) -> bool {
        self.is_signed_integer() || self.is_unsigned_integer()
    }

    /// Whether this is a signed two's-complement integer type.
    pub fn is_signed_integer(self) -> bool {
        matches!(
            self,
            DataType::Int2
                | DataType::Int4
                | DataType::Int8
                | DataType::Int16
                | DataType::Int32
                | DataType::Int64
        )
    }

    /// Whether this is an unsigned integer type.
    pub fn is_unsigned_integer(self) -> bool {
        matches!(
            self,
            DataType::Uint2
                | DataType::Uint4
                | DataType::Uint8
                | DataType::Uint16
                | DataType::Uint32
                | DataType::Uint64
        )
    }

    /// Whether elements are narrower than a byte and packed several per byte
    /// in `raw_data`.
    pub fn is_sub_byte(self) -> bool {
        matches!(self.bit_width(), Some(bits) if bits < 8)
    }

    /// The number of bytes `raw_data` must hold for `n_elems` elements,
    /// rounding packed sub-byte data up to whole bytes; `None` for types
    /// without a fixed size or when the size overflows `u64`.
    pub fn raw_byte_len(self, n_elems: u64) -> Option<u64> {
        let bits = u64::from(self.bit_width()?);
        Some(n_elems.checked_mul(bits)?.div_ceil(8))
    }
}

impl std::fmt::Display for DataType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl TryFrom<i32> for DataType {
    type Error = UnknownDataType;

    fn try_from(code: i32) -> Result<Self, Self::Error> {
        DataType::from_code(code)
    }
}

impl From<DataType> for i32 {
    fn from(ty: DataType) -> i32 {
        ty.code()
    }
}

impl From<tensor_proto::DataType> for DataType {
    fn from(ty: tensor_proto::DataType) -> Self {
        // Both enums are generated from the same list of codes; the tests
        // check that every generated value maps.
        DataType::from_code(ty as i32)
            .expect("invariant: DataType covers every code of the generated tensor_proto::DataType")
    }
}

impl crate::onnx::TensorProto {
    /// The element type of this tensor, or the unknown code.
    pub fn elem_type(&self) -> Result<DataType, UnknownDataType> {
        DataType::from_code(self.data_type.unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_match_generated_enum() {
        for &ty in DataType::ALL {
            assert_eq!(DataType::from_code(ty.code()), Ok(ty));
            assert_eq!(DataType::from_name(ty.name()), Some(ty));
            let generated = tensor_proto::DataType::try_from(ty.code())
                .expect("generated enum knows every code");
            assert_eq!(generated.as_str_name(), ty.name());
            assert_eq!(DataType::from(generated), ty);
        }
        // The list is dense from 0 to the largest code.
        assert_eq!(DataType::ALL.len(), 29);
        for (idx, ty) in DataType::ALL.iter().enumerate() {
            assert_eq!(ty.code() as usize, idx);
        }
    }

    #[test]
    fn unknown_codes_are_errors() {
        assert_eq!(DataType::from_code(29), Err(UnknownDataType(29)));
        assert_eq!(DataType::from_code(-1), Err(UnknownDataType(-1)));
        assert_eq!(DataType::from_name("float"), None);
        assert_eq!(
            UnknownDataType(99).to_string(),
            "unknown ONNX tensor data type 99"
        );
    }

    #[test]
    fn widths_and_classes() {
        assert_eq!(DataType::Float.bit_width(), Some(32));
        assert_eq!(DataType::String.bit_width(), None);
        assert_eq!(DataType::Int4.raw_byte_len(5), Some(3));
        assert_eq!(DataType::Int2.raw_byte_len(5), Some(2));
        assert_eq!(DataType::Float6E2M3.raw_byte_len(4), Some(3));
        assert_eq!(DataType::Complex64.raw_byte_len(2), Some(16));
        assert_eq!(DataType::Double.raw_byte_len(u64::MAX), None);
        assert!(DataType::Float8E5M2.is_float());
        assert!(!DataType::Complex64.is_float());
        assert!(DataType::Uint4.is_sub_byte() && DataType::Uint4.is_unsigned_integer());
        assert!(DataType::Int2.is_signed_integer() && DataType::Int2.is_integer());
        assert!(!DataType::Bool.is_integer());
        assert_eq!(DataType::Bfloat16.to_string(), "BFLOAT16");
    }
}
