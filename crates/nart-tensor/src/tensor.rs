//! The tensor type: an element type, a shape and compactly stored data.

use crate::smallfloat::{self, E8M0Round};
use crate::{DType, KernelError, Result, Storage};
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

/// Element storage, one vector variant per [`Storage`] kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// f32 elements.
    F32(Vec<f32>),
    /// f64 elements.
    F64(Vec<f64>),
    /// f16 elements.
    F16(Vec<f16>),
    /// bf16 elements.
    BF16(Vec<bf16>),
    /// i8 elements; also int4 and int2, one value per byte.
    I8(Vec<i8>),
    /// i16 elements.
    I16(Vec<i16>),
    /// i32 elements.
    I32(Vec<i32>),
    /// i64 elements.
    I64(Vec<i64>),
    /// u8 elements; also uint4/uint2 one value per byte, and the raw codes of the small floats.
    U8(Vec<u8>),
    /// u16 elements.
    U16(Vec<u16>),
    /// u32 elements.
    U32(Vec<u32>),
    /// u64 elements.
    U64(Vec<u64>),
    /// bool elements.
    Bool(Vec<bool>),
    /// String elements.
    Str(Vec<String>),
    /// complex64 elements.
    C64(Vec<Complex32>),
    /// complex128 elements.
    C128(Vec<Complex64>),
}

/// Applies `$body` to the vector inside any [`Data`] variant and rewraps the result in the same variant.
macro_rules! map_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            Data::F32($v) => Data::F32($body),
            Data::F64($v) => Data::F64($body),
            Data::F16($v) => Data::F16($body),
            Data::BF16($v) => Data::BF16($body),
            Data::I8($v) => Data::I8($body),
            Data::I16($v) => Data::I16($body),
            Data::I32($v) => Data::I32($body),
            Data::I64($v) => Data::I64($body),
            Data::U8($v) => Data::U8($body),
            Data::U16($v) => Data::U16($body),
            Data::U32($v) => Data::U32($body),
            Data::U64($v) => Data::U64($body),
            Data::Bool($v) => Data::Bool($body),
            Data::Str($v) => Data::Str($body),
            Data::C64($v) => Data::C64($body),
            Data::C128($v) => Data::C128($body),
        }
    };
}

/// Applies `$body` to the vector inside any [`Data`] variant, returning its value.
macro_rules! with_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            Data::F32($v) => $body,
            Data::F64($v) => $body,
            Data::F16($v) => $body,
            Data::BF16($v) => $body,
            Data::I8($v) => $body,
            Data::I16($v) => $body,
            Data::I32($v) => $body,
            Data::I64($v) => $body,
            Data::U8($v) => $body,
            Data::U16($v) => $body,
            Data::U32($v) => $body,
            Data::U64($v) => $body,
            Data::Bool($v) => $body,
            Data::Str($v) => $body,
            Data::C64($v) => $body,
            Data::C128($v) => $body,
        }
    };
}

impl Data {
    /// Number of elements.
    pub fn len(&self) -> usize {
        with_data!(self, v => v.len())
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The storage kind of this variant.
    pub fn storage(&self) -> Storage {
        match self {
            Data::F32(_) => Storage::F32,
            Data::F64(_) => Storage::F64,
            Data::F16(_) => Storage::F16,
            Data::BF16(_) => Storage::BF16,
            Data::I8(_) => Storage::I8,
            Data::I16(_) => Storage::I16,
            Data::I32(_) => Storage::I32,
            Data::I64(_) => Storage::I64,
            Data::U8(_) => Storage::U8,
            Data::U16(_) => Storage::U16,
            Data::U32(_) => Storage::U32,
            Data::U64(_) => Storage::U64,
            Data::Bool(_) => Storage::Bool,
            Data::Str(_) => Storage::Str,
            Data::C64(_) => Storage::C64,
            Data::C128(_) => Storage::C128,
        }
    }

    /// A new vector made of the elements at `idx`; every index must be in range.
    #[allow(clippy::clone_on_copy)]
    pub(crate) fn take(&self, idx: &[usize]) -> Data {
        map_data!(self, v => idx.iter().map(|&i| v[i].clone()).collect())
    }

    /// Elements at `idx`, where `None` picks `fill` (a one-element data of the same variant).
    #[allow(clippy::clone_on_copy)]
    pub(crate) fn take_or(&self, idx: &[Option<usize>], fill: &Data) -> Data {
        macro_rules! arm {
            ($v:ident, $f:ident) => {
                idx.iter()
                    .map(|i| match i {
                        Some(i) => $v[*i].clone(),
                        None => $f[0].clone(),
                    })
                    .collect()
            };
        }
        match (self, fill) {
            (Data::F32(v), Data::F32(f)) => Data::F32(arm!(v, f)),
            (Data::F64(v), Data::F64(f)) => Data::F64(arm!(v, f)),
            (Data::F16(v), Data::F16(f)) => Data::F16(arm!(v, f)),
            (Data::BF16(v), Data::BF16(f)) => Data::BF16(arm!(v, f)),
            (Data::I8(v), Data::I8(f)) => Data::I8(arm!(v, f)),
            (Data::I16(v), Data::I16(f)) => Data::I16(arm!(v, f)),
            (Data::I32(v), Data::I32(f)) => Data::I32(arm!(v, f)),
            (Data::I64(v), Data::I64(f)) => Data::I64(arm!(v, f)),
            (Data::U8(v), Data::U8(f)) => Data::U8(arm!(v, f)),
            (Data::U16(v), Data::U16(f)) => Data::U16(arm!(v, f)),
            (Data::U32(v), Data::U32(f)) => Data::U32(arm!(v, f)),
            (Data::U64(v), Data::U64(f)) => Data::U64(arm!(v, f)),
            (Data::Bool(v), Data::Bool(f)) => Data::Bool(arm!(v, f)),
            (Data::Str(v), Data::Str(f)) => Data::Str(arm!(v, f)),
            (Data::C64(v), Data::C64(f)) => Data::C64(arm!(v, f)),
            (Data::C128(v), Data::C128(f)) => Data::C128(arm!(v, f)),
            _ => unreachable!("take_or: fill has the same variant by construction"),
        }
    }

    /// Writes `src[k]` at `self[idx[k]]` for every k; variants must match.
    #[allow(clippy::clone_on_copy)]
    pub(crate) fn scatter(&mut self, idx: &[usize], src: &Data) {
        macro_rules! arm {
            ($d:ident, $s:ident) => {
                for (k, &i) in idx.iter().enumerate() {
                    $d[i] = $s[k].clone();
                }
            };
        }
        match (self, src) {
            (Data::F32(d), Data::F32(s)) => arm!(d, s),
            (Data::F64(d), Data::F64(s)) => arm!(d, s),
            (Data::F16(d), Data::F16(s)) => arm!(d, s),
            (Data::BF16(d), Data::BF16(s)) => arm!(d, s),
            (Data::I8(d), Data::I8(s)) => arm!(d, s),
            (Data::I16(d), Data::I16(s)) => arm!(d, s),
            (Data::I32(d), Data::I32(s)) => arm!(d, s),
            (Data::I64(d), Data::I64(s)) => arm!(d, s),
            (Data::U8(d), Data::U8(s)) => arm!(d, s),
            (Data::U16(d), Data::U16(s)) => arm!(d, s),
            (Data::U32(d), Data::U32(s)) => arm!(d, s),
            (Data::U64(d), Data::U64(s)) => arm!(d, s),
            (Data::Bool(d), Data::Bool(s)) => arm!(d, s),
            (Data::Str(d), Data::Str(s)) => arm!(d, s),
            (Data::C64(d), Data::C64(s)) => arm!(d, s),
            (Data::C128(d), Data::C128(s)) => arm!(d, s),
            _ => unreachable!("scatter: caller checked that dtypes match"),
        }
    }

    /// Concatenates data of the same variant.
    pub(crate) fn concat(parts: &[&Data]) -> Data {
        let first = parts[0];
        let mut out = first.take(&[]);
        for p in parts {
            out.append(p);
        }
        out
    }

    fn append(&mut self, other: &Data) {
        macro_rules! arm {
            ($d:ident, $s:ident) => {
                $d.extend_from_slice($s)
            };
        }
        match (self, other) {
            (Data::F32(d), Data::F32(s)) => arm!(d, s),
            (Data::F64(d), Data::F64(s)) => arm!(d, s),
            (Data::F16(d), Data::F16(s)) => arm!(d, s),
            (Data::BF16(d), Data::BF16(s)) => arm!(d, s),
            (Data::I8(d), Data::I8(s)) => arm!(d, s),
            (Data::I16(d), Data::I16(s)) => arm!(d, s),
            (Data::I32(d), Data::I32(s)) => arm!(d, s),
            (Data::I64(d), Data::I64(s)) => arm!(d, s),
            (Data::U8(d), Data::U8(s)) => arm!(d, s),
            (Data::U16(d), Data::U16(s)) => arm!(d, s),
            (Data::U32(d), Data::U32(s)) => arm!(d, s),
            (Data::U64(d), Data::U64(s)) => arm!(d, s),
            (Data::Bool(d), Data::Bool(s)) => arm!(d, s),
            (Data::Str(d), Data::Str(s)) => arm!(d, s),
            (Data::C64(d), Data::C64(s)) => arm!(d, s),
            (Data::C128(d), Data::C128(s)) => arm!(d, s),
            _ => unreachable!("append: caller checked that dtypes match"),
        }
    }
}

/// A Rust element type that maps to one [`Data`] variant and a default [`DType`].
pub trait Element: Clone + Sized {
    /// The dtype a `Vec<Self>` gets by default.
    const DTYPE: DType;
    /// Wraps a vector.
    fn wrap(v: Vec<Self>) -> Data;
    /// Borrows the vector if `data` holds this element type.
    fn unwrap(data: &Data) -> Option<&[Self]>;
}

macro_rules! element {
    ($t:ty, $var:ident, $dt:expr) => {
        impl Element for $t {
            const DTYPE: DType = $dt;
            fn wrap(v: Vec<Self>) -> Data {
                Data::$var(v)
            }
            fn unwrap(data: &Data) -> Option<&[Self]> {
                match data {
                    Data::$var(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

element!(f32, F32, DType::F32);
element!(f64, F64, DType::F64);
element!(f16, F16, DType::F16);
element!(bf16, BF16, DType::BF16);
element!(i8, I8, DType::I8);
element!(i16, I16, DType::I16);
element!(i32, I32, DType::I32);
element!(i64, I64, DType::I64);
element!(u8, U8, DType::U8);
element!(u16, U16, DType::U16);
element!(u32, U32, DType::U32);
element!(u64, U64, DType::U64);
element!(bool, Bool, DType::Bool);
element!(String, Str, DType::String);
element!(Complex32, C64, DType::Complex64);
element!(Complex64, C128, DType::Complex128);

/// Options of [`Tensor::cast_with`], mirroring the ONNX Cast attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CastOptions {
    /// Clamp out-of-range values for float8 targets (ONNX `saturate`, default true).
    pub saturate: bool,
    /// Rounding for float8e8m0 targets (ONNX `round_mode`, default up).
    pub round_mode: E8M0Round,
}

impl Default for CastOptions {
    fn default() -> Self {
        CastOptions {
            saturate: true,
            round_mode: E8M0Round::Up,
        }
    }
}

/// A dense, row-major tensor.
///
/// Invariants: `data`'s variant is `dtype.storage()`, its length is the product of `shape`,
/// and values of int4/uint4/int2/uint2 lie in their type's range.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    dtype: DType,
    shape: Vec<usize>,
    data: Data,
}

/// Number of elements of a shape (1 for a scalar), saturating at `usize::MAX`.
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().fold(1usize, |a, &d| a.saturating_mul(d))
}

/// Largest element count a kernel will allocate for a computed shape.
pub const MAX_ELEMENTS: usize = 1 << 40;

/// The element count of a shape a kernel is about to allocate, or an error when it is absurdly large.
pub(crate) fn checked_numel(op: &'static str, shape: &[usize]) -> Result<usize> {
    let n = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    match n {
        Some(n) if n <= MAX_ELEMENTS => Ok(n),
        _ => Err(KernelError::shape(
            op,
            format!("output shape {shape:?} is too large"),
        )),
    }
}

thread_local! {
    /// The byte limit of [`with_max_bytes`] on this thread.
    static MAX_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
}

/// Runs `f` with a limit of `max` bytes on each tensor that the kernels it calls on this thread
/// allocate for a shape computed from their inputs (ConstantOfShape, Expand, Tile, Range, OneHot,
/// Pad, Resize, broadcasting, matrix products, convolutions and pools, decoding), and returns
/// what `f` returns. A kernel that would need more fails with [`KernelError::TooLarge`] before
/// allocating. The previous limit comes back afterwards, even when `f` panics.
///
/// Without a call the limit is `usize::MAX`, and only [`MAX_ELEMENTS`] bounds a shape.
pub fn with_max_bytes<R>(max: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            MAX_BYTES.with(|m| m.set(self.0));
        }
    }
    let _restore = Restore(MAX_BYTES.with(|m| m.replace(max)));
    f()
}

/// The limit [`with_max_bytes`] set on this thread (`usize::MAX` when none is set).
pub fn max_bytes() -> usize {
    MAX_BYTES.with(|m| m.get())
}

/// Bytes of one element of `dtype` in memory (a `String`'s header for strings, without its text).
pub fn elem_bytes(dtype: DType) -> usize {
    match dtype.storage() {
        Storage::I8 | Storage::U8 | Storage::Bool => 1,
        Storage::F16 | Storage::BF16 | Storage::I16 | Storage::U16 => 2,
        Storage::F32 | Storage::I32 | Storage::U32 => 4,
        Storage::F64 | Storage::I64 | Storage::U64 | Storage::C64 => 8,
        Storage::C128 => 16,
        Storage::Str => std::mem::size_of::<String>(),
    }
}

/// Bytes of one entry of the index maps kernels build (`Vec<usize>`).
pub(crate) const INDEX_BYTES: usize = std::mem::size_of::<usize>();

/// The element count of a shape a kernel is about to allocate at `per_elem` bytes an element
/// (the output's element and any index map the kernel builds), or an error when it is larger than
/// [`MAX_ELEMENTS`] or the memory limit of [`with_max_bytes`].
pub(crate) fn checked_alloc(op: &'static str, shape: &[usize], per_elem: usize) -> Result<usize> {
    let n = checked_numel(op, shape)?;
    let bytes = n.saturating_mul(per_elem);
    let limit = max_bytes();
    if bytes > limit {
        return Err(KernelError::TooLarge {
            op,
            shape: shape.to_vec(),
            bytes,
            limit,
        });
    }
    Ok(n)
}

impl Tensor {
    /// Builds a tensor, checking that the data variant fits `dtype` and the length fits `shape`.
    pub fn new(dtype: DType, shape: Vec<usize>, data: Data) -> Result<Tensor> {
        if data.storage() != dtype.storage() {
            return Err(KernelError::Decode(format!(
                "data stored as {:?} cannot hold {dtype}",
                data.storage()
            )));
        }
        let expected = numel(&shape);
        if data.len() != expected {
            return Err(KernelError::DataLength {
                len: data.len(),
                expected,
                shape,
            });
        }
        if let Some((lo, hi)) = dtype.int_range() {
            if dtype.bit_width() < 8 {
                let ok = match &data {
                    Data::I8(v) => v.iter().all(|&x| (lo..=hi).contains(&(x as i128))),
                    Data::U8(v) => v.iter().all(|&x| (lo..=hi).contains(&(x as i128))),
                    _ => true,
                };
                if !ok {
                    return Err(KernelError::Decode(format!(
                        "value out of range for {dtype}"
                    )));
                }
            }
        }
        Ok(Tensor { dtype, shape, data })
    }

    /// Builds a tensor whose invariants the caller has established.
    pub(crate) fn raw(dtype: DType, shape: Vec<usize>, data: Data) -> Tensor {
        debug_assert_eq!(data.storage(), dtype.storage());
        debug_assert_eq!(data.len(), numel(&shape));
        Tensor { dtype, shape, data }
    }

    /// Builds a tensor of the element's default dtype.
    pub fn from_vec<T: Element>(shape: Vec<usize>, v: Vec<T>) -> Result<Tensor> {
        Tensor::new(T::DTYPE, shape, T::wrap(v))
    }

    /// A rank-0 tensor.
    pub fn scalar<T: Element>(v: T) -> Tensor {
        Tensor::raw(T::DTYPE, vec![], T::wrap(vec![v]))
    }

    /// A 1-D tensor.
    pub fn vector<T: Element>(v: Vec<T>) -> Tensor {
        let n = v.len();
        Tensor::raw(T::DTYPE, vec![n], T::wrap(v))
    }

    /// A tensor of the given dtype filled with zeros (false, empty strings, code 0 for the small floats).
    pub fn zeros(dtype: DType, shape: Vec<usize>) -> Tensor {
        let n = numel(&shape);
        let data = match dtype.storage() {
            Storage::F32 => Data::F32(vec![0.0; n]),
            Storage::F64 => Data::F64(vec![0.0; n]),
            Storage::F16 => Data::F16(vec![f16::ZERO; n]),
            Storage::BF16 => Data::BF16(vec![bf16::ZERO; n]),
            Storage::I8 => Data::I8(vec![0; n]),
            Storage::I16 => Data::I16(vec![0; n]),
            Storage::I32 => Data::I32(vec![0; n]),
            Storage::I64 => Data::I64(vec![0; n]),
            // Code 0 is zero for every small float except float8e8m0, which has no zero and gets 2^-127.
            Storage::U8 => Data::U8(vec![0; n]),
            Storage::U16 => Data::U16(vec![0; n]),
            Storage::U32 => Data::U32(vec![0; n]),
            Storage::U64 => Data::U64(vec![0; n]),
            Storage::Bool => Data::Bool(vec![false; n]),
            Storage::Str => Data::Str(vec![String::new(); n]),
            Storage::C64 => Data::C64(vec![Complex32::new(0.0, 0.0); n]),
            Storage::C128 => Data::C128(vec![Complex64::new(0.0, 0.0); n]),
        };
        Tensor::raw(dtype, shape, data)
    }

    /// Builds a tensor of any numeric dtype from f64 values, rounding as Cast does (saturating for small floats).
    pub fn from_f64(dtype: DType, shape: Vec<usize>, v: Vec<f64>) -> Result<Tensor> {
        let expected = numel(&shape);
        if v.len() != expected {
            return Err(KernelError::DataLength {
                len: v.len(),
                expected,
                shape,
            });
        }
        let data = f64_to_data(dtype, &v, CastOptions::default())?;
        Ok(Tensor::raw(dtype, shape, data))
    }

    /// Builds a tensor of any numeric dtype from integers, wrapping into the integer type's range.
    pub fn from_i128(dtype: DType, shape: Vec<usize>, v: Vec<i128>) -> Result<Tensor> {
        let expected = numel(&shape);
        if v.len() != expected {
            return Err(KernelError::DataLength {
                len: v.len(),
                expected,
                shape,
            });
        }
        let data = i128_to_data(dtype, &v)?;
        Ok(Tensor::raw(dtype, shape, data))
    }

    /// The bytes the elements take in memory (with the text of strings).
    pub fn nbytes(&self) -> usize {
        let text = match &self.data {
            Data::Str(v) => v.iter().map(String::len).sum(),
            _ => 0,
        };
        self.len().saturating_mul(elem_bytes(self.dtype)) + text
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The rank.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The stored data.
    pub fn data(&self) -> &Data {
        &self.data
    }

    /// Splits the tensor into dtype, shape and data.
    pub fn into_parts(self) -> (DType, Vec<usize>, Data) {
        (self.dtype, self.shape, self.data)
    }

    /// Borrows the elements as `T` when the storage matches.
    pub fn as_slice<T: Element>(&self) -> Option<&[T]> {
        T::unwrap(&self.data)
    }

    /// Borrows f32 elements.
    pub fn as_f32(&self) -> Option<&[f32]> {
        self.as_slice()
    }

    /// Borrows i64 elements.
    pub fn as_i64(&self) -> Option<&[i64]> {
        self.as_slice()
    }

    /// The same data under a new shape with the same element count.
    pub fn reshaped(&self, shape: Vec<usize>) -> Result<Tensor> {
        if numel(&shape) != self.len() {
            return Err(KernelError::shape(
                "Reshape",
                format!("cannot view {:?} as {:?}", self.shape, shape),
            ));
        }
        Ok(Tensor::raw(self.dtype, shape, self.data.clone()))
    }

    /// Consumes the tensor and gives it a new shape with the same element count.
    pub fn into_shape(self, shape: Vec<usize>) -> Result<Tensor> {
        if numel(&shape) != self.len() {
            return Err(KernelError::shape(
                "Reshape",
                format!("cannot view {:?} as {:?}", self.shape, shape),
            ));
        }
        Ok(Tensor::raw(self.dtype, shape, self.data))
    }

    /// The elements as f64 (ints, bool, every float type, numeric strings); complex is rejected.
    pub fn to_f64_vec(&self) -> Result<Vec<f64>> {
        Ok(match &self.data {
            Data::F32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::F64(v) => v.clone(),
            Data::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
            Data::BF16(v) => v.iter().map(|x| x.to_f64()).collect(),
            Data::I8(v) => v.iter().map(|&x| x as f64).collect(),
            Data::I16(v) => v.iter().map(|&x| x as f64).collect(),
            Data::I32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::I64(v) => v.iter().map(|&x| x as f64).collect(),
            Data::U8(v) if self.dtype.is_small_float() => v
                .iter()
                .map(|&x| smallfloat::to_f32(self.dtype, x) as f64)
                .collect(),
            Data::U8(v) => v.iter().map(|&x| x as f64).collect(),
            Data::U16(v) => v.iter().map(|&x| x as f64).collect(),
            Data::U32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::U64(v) => v.iter().map(|&x| x as f64).collect(),
            Data::Bool(v) => v.iter().map(|&x| x as u8 as f64).collect(),
            Data::Str(v) => v.iter().map(|s| parse_float(s)).collect::<Result<_>>()?,
            Data::C64(_) | Data::C128(_) => {
                return Err(KernelError::dtype("to_f64", self.dtype));
            }
        })
    }

    /// The elements of a float tensor as f64; any other type is an error naming `op`.
    pub(crate) fn float_values(&self, op: &'static str) -> Result<Vec<f64>> {
        if !self.dtype.is_float() {
            return Err(KernelError::dtype(op, self.dtype));
        }
        self.to_f64_vec()
    }

    /// The elements as f32 (see [`Tensor::to_f64_vec`]).
    pub fn to_f32_vec(&self) -> Result<Vec<f32>> {
        if let Data::F32(v) = &self.data {
            return Ok(v.clone());
        }
        Ok(self.to_f64_vec()?.into_iter().map(|x| x as f32).collect())
    }

    /// The elements as integers: ints and bool exactly, floats truncated toward zero.
    pub fn to_i128_vec(&self) -> Result<Vec<i128>> {
        Ok(match &self.data {
            Data::I8(v) => v.iter().map(|&x| x as i128).collect(),
            Data::I16(v) => v.iter().map(|&x| x as i128).collect(),
            Data::I32(v) => v.iter().map(|&x| x as i128).collect(),
            Data::I64(v) => v.iter().map(|&x| x as i128).collect(),
            Data::U8(v) if !self.dtype.is_small_float() => v.iter().map(|&x| x as i128).collect(),
            Data::U16(v) => v.iter().map(|&x| x as i128).collect(),
            Data::U32(v) => v.iter().map(|&x| x as i128).collect(),
            Data::U64(v) => v.iter().map(|&x| x as i128).collect(),
            Data::Bool(v) => v.iter().map(|&x| x as i128).collect(),
            Data::Str(v) => v
                .iter()
                .map(|s| match s.trim().parse::<i128>() {
                    Ok(i) => Ok(i),
                    Err(_) => parse_float(s).map(|f| f as i128),
                })
                .collect::<Result<_>>()?,
            _ => self.to_f64_vec()?.into_iter().map(|x| x as i128).collect(),
        })
    }

    /// The elements as i64 (see [`Tensor::to_i128_vec`]), for index and shape inputs.
    pub fn to_i64_vec(&self) -> Result<Vec<i64>> {
        if let Data::I64(v) = &self.data {
            return Ok(v.clone());
        }
        Ok(self.to_i128_vec()?.into_iter().map(|x| x as i64).collect())
    }

    /// The elements as bool (nonzero is true).
    pub fn to_bool_vec(&self) -> Result<Vec<bool>> {
        Ok(match &self.data {
            Data::Bool(v) => v.clone(),
            Data::C64(v) => v.iter().map(|c| c.re != 0.0 || c.im != 0.0).collect(),
            Data::C128(v) => v.iter().map(|c| c.re != 0.0 || c.im != 0.0).collect(),
            _ if self.dtype.is_int() => self.to_i128_vec()?.into_iter().map(|x| x != 0).collect(),
            _ => self.to_f64_vec()?.into_iter().map(|x| x != 0.0).collect(),
        })
    }

    /// The elements as complex128.
    pub fn to_c128_vec(&self) -> Result<Vec<Complex64>> {
        Ok(match &self.data {
            Data::C64(v) => v
                .iter()
                .map(|c| Complex64::new(c.re as f64, c.im as f64))
                .collect(),
            Data::C128(v) => v.clone(),
            _ => self
                .to_f64_vec()?
                .into_iter()
                .map(|x| Complex64::new(x, 0.0))
                .collect(),
        })
    }

    /// The element values as strings, as Cast to string writes them.
    pub fn to_string_vec(&self) -> Vec<String> {
        match &self.data {
            Data::Str(v) => v.clone(),
            Data::Bool(v) => v
                .iter()
                .map(|&b| if b { "True" } else { "False" }.to_string())
                .collect(),
            Data::F32(v) => v
                .iter()
                .map(|&x| fmt_float(x as f64, 7, x.to_string()))
                .collect(),
            Data::F64(v) => v.iter().map(|&x| fmt_float(x, 16, x.to_string())).collect(),
            Data::F16(v) => v
                .iter()
                .map(|x| {
                    fmt_float(
                        x.to_f64(),
                        4,
                        shortest(x.to_f64(), |t| crate::halfround::f16_from_f64(t) == *x),
                    )
                })
                .collect(),
            Data::BF16(v) => v
                .iter()
                .map(|x| {
                    fmt_float(
                        x.to_f64(),
                        3,
                        shortest(x.to_f64(), |t| crate::halfround::bf16_from_f64(t) == *x),
                    )
                })
                .collect(),
            Data::C64(v) => v.iter().map(|c| c.to_string()).collect(),
            Data::C128(v) => v.iter().map(|c| c.to_string()).collect(),
            _ if self.dtype.is_int() => match self.to_i128_vec() {
                Ok(v) => v.iter().map(|x| x.to_string()).collect(),
                Err(_) => vec![],
            },
            _ => match self.to_f32_vec() {
                Ok(v) => v
                    .iter()
                    .map(|&x| fmt_float(x as f64, 7, x.to_string()))
                    .collect(),
                Err(_) => vec![],
            },
        }
    }

    /// ONNX Cast with default attributes (saturate = true, round_mode = up).
    pub fn cast(&self, to: DType) -> Result<Tensor> {
        self.cast_with(to, CastOptions::default())
    }

    /// ONNX Cast.
    pub fn cast_with(&self, to: DType, opts: CastOptions) -> Result<Tensor> {
        if to == self.dtype {
            return Ok(self.clone());
        }
        let from = self.dtype;
        let data = match to.storage() {
            Storage::Str => Data::Str(self.to_string_vec()),
            Storage::Bool => Data::Bool(self.to_bool_vec()?),
            Storage::C64 => Data::C64(
                self.to_c128_vec()?
                    .iter()
                    .map(|c| Complex32::new(c.re as f32, c.im as f32))
                    .collect(),
            ),
            Storage::C128 => Data::C128(self.to_c128_vec()?),
            _ if from.is_complex() => {
                let re: Vec<f64> = self.to_c128_vec()?.iter().map(|c| c.re).collect();
                f64_to_data(to, &re, opts)?
            }
            _ if from.is_int() || from == DType::Bool => i128_to_data(to, &self.to_i128_vec()?)?,
            _ if to.is_int() && from == DType::String => i128_to_data(to, &self.to_i128_vec()?)?,
            _ => f64_to_data(to, &self.to_f64_vec()?, opts)?,
        };
        Ok(Tensor::raw(to, self.shape.clone(), data))
    }
}

/// The shortest decimal digits of `x` that `same` accepts as the original value.
fn shortest(x: f64, same: impl Fn(f64) -> bool) -> String {
    for p in 0..17 {
        let s = format!("{:.*e}", p, x);
        if s.parse::<f64>().is_ok_and(&same) {
            return s.parse::<f64>().map(|v| v.to_string()).unwrap_or(s);
        }
    }
    x.to_string()
}

/// Formats a float as numpy's `astype(str)` does: positional when `1e-4 <= |x| < 10^digits`, else
/// scientific with a signed two-digit exponent; `shortest` holds the shortest round-trip digits.
fn fmt_float(x: f64, digits: i32, shortest: String) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let ax = x.abs();
    if ax == 0.0 || (ax >= 1e-4 && ax < 10f64.powi(digits)) {
        return if shortest.contains('.') {
            shortest
        } else {
            format!("{shortest}.0")
        };
    }
    // Reformat the shortest digits in scientific notation.
    let v: f64 = shortest.parse().unwrap_or(x);
    let sci = format!("{v:e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    let sign = if e < 0 { '-' } else { '+' };
    format!("{mant}e{sign}{:02}", e.abs())
}

fn parse_float(s: &str) -> Result<f64> {
    let t = s.trim();
    let l = t.to_ascii_lowercase();
    match l.as_str() {
        "inf" | "+inf" | "infinity" | "+infinity" => return Ok(f64::INFINITY),
        "-inf" | "-infinity" => return Ok(f64::NEG_INFINITY),
        "nan" | "+nan" | "-nan" => return Ok(f64::NAN),
        _ => {}
    }
    t.parse::<f64>()
        .map_err(|_| KernelError::Decode(format!("cannot parse {s:?} as a number")))
}

fn float_to_int(dtype: DType, x: f64) -> i128 {
    dtype.wrap_int(x as i128)
}

/// Converts f64 values into storage for `dtype`.
pub(crate) fn f64_to_data(dtype: DType, v: &[f64], opts: CastOptions) -> Result<Data> {
    Ok(match dtype {
        DType::F32 => Data::F32(v.iter().map(|&x| x as f32).collect()),
        DType::F64 => Data::F64(v.to_vec()),
        DType::F16 => Data::F16(
            v.iter()
                .map(|&x| crate::halfround::f16_from_f64(x))
                .collect(),
        ),
        DType::BF16 => Data::BF16(
            v.iter()
                .map(|&x| crate::halfround::bf16_from_f64(x))
                .collect(),
        ),
        DType::Bool => Data::Bool(v.iter().map(|&x| x != 0.0).collect()),
        DType::String => Data::Str(v.iter().map(|&x| fmt_float(x, 16, x.to_string())).collect()),
        DType::Complex64 => Data::C64(v.iter().map(|&x| Complex32::new(x as f32, 0.0)).collect()),
        DType::Complex128 => Data::C128(v.iter().map(|&x| Complex64::new(x, 0.0)).collect()),
        d if d.is_small_float() => Data::U8(
            v.iter()
                .map(|&x| smallfloat::from_f32_mode(d, x as f32, opts.saturate, opts.round_mode))
                .collect(),
        ),
        d => {
            let ints: Vec<i128> = v.iter().map(|&x| float_to_int(d, x)).collect();
            i128_to_data(d, &ints)?
        }
    })
}

/// Converts integers into storage for `dtype`, wrapping integer targets.
pub(crate) fn i128_to_data(dtype: DType, v: &[i128]) -> Result<Data> {
    let w = |x: i128| dtype.wrap_int(x);
    Ok(match dtype {
        DType::I8 | DType::I4 | DType::I2 => Data::I8(v.iter().map(|&x| w(x) as i8).collect()),
        DType::I16 => Data::I16(v.iter().map(|&x| w(x) as i16).collect()),
        DType::I32 => Data::I32(v.iter().map(|&x| w(x) as i32).collect()),
        DType::I64 => Data::I64(v.iter().map(|&x| w(x) as i64).collect()),
        DType::U8 | DType::U4 | DType::U2 => Data::U8(v.iter().map(|&x| w(x) as u8).collect()),
        DType::U16 => Data::U16(v.iter().map(|&x| w(x) as u16).collect()),
        DType::U32 => Data::U32(v.iter().map(|&x| w(x) as u32).collect()),
        DType::U64 => Data::U64(v.iter().map(|&x| w(x) as u64).collect()),
        DType::F32 => Data::F32(v.iter().map(|&x| x as f32).collect()),
        DType::Bool => Data::Bool(v.iter().map(|&x| x != 0).collect()),
        DType::String => Data::Str(v.iter().map(|x| x.to_string()).collect()),
        d => {
            let f: Vec<f64> = v.iter().map(|&x| x as f64).collect();
            f64_to_data(d, &f, CastOptions::default())?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn construct_and_check() {
        let t = Tensor::from_vec(vec![2, 2], vec![1f32, 2., 3., 4.]).unwrap();
        assert_eq!(t.shape(), &[2, 2]);
        assert_eq!(t.as_f32().unwrap()[3], 4.0);
        assert!(Tensor::from_vec(vec![3], vec![1f32]).is_err());
        assert!(Tensor::new(DType::I4, vec![1], Data::I8(vec![9])).is_err());
        assert!(Tensor::new(DType::F32, vec![1], Data::I8(vec![1])).is_err());
    }

    #[test]
    fn cast_rules() {
        // np.array([200], np.int16).astype(np.int8) == -56
        let t = Tensor::vector(vec![200i16, -1]);
        assert_eq!(
            t.cast(DType::I8).unwrap().as_slice::<i8>().unwrap(),
            &[-56, -1]
        );
        assert_eq!(
            t.cast(DType::U8).unwrap().as_slice::<u8>().unwrap(),
            &[200, 255]
        );
        let f = Tensor::vector(vec![1.7f32, -2.5, 0.0, f32::NAN]);
        assert_eq!(
            f.cast(DType::I32).unwrap().as_slice::<i32>().unwrap(),
            &[1, -2, 0, 0]
        );
        assert_eq!(
            f.cast(DType::Bool).unwrap().as_slice::<bool>().unwrap(),
            &[true, true, false, true]
        );
        let s = Tensor::vector(vec![
            "3.5".to_string(),
            "-INF".into(),
            "1e2".into(),
            "NaN".into(),
        ]);
        let g = s.cast(DType::F32).unwrap().to_f32_vec().unwrap();
        assert_eq!(&g[..3], &[3.5, f32::NEG_INFINITY, 100.0]);
        assert!(g[3].is_nan());
        let back = Tensor::vector(vec![1.5f32, 0.1])
            .cast(DType::String)
            .unwrap();
        assert_eq!(
            back.as_slice::<String>().unwrap(),
            &["1.5".to_string(), "0.1".into()]
        );
        let f8 = Tensor::vector(vec![1000f32]);
        let sat = f8.cast(DType::F8E4M3FN).unwrap();
        assert_eq!(sat.to_f32_vec().unwrap(), vec![448.0]);
        let opts = CastOptions {
            saturate: false,
            ..Default::default()
        };
        let ns = f8.cast_with(DType::F8E4M3FN, opts).unwrap();
        assert!(ns.to_f32_vec().unwrap()[0].is_nan());
        let h = Tensor::vector(vec![1.0f32 / 3.0]).cast(DType::F16).unwrap();
        assert_eq!(h.as_slice::<f16>().unwrap()[0], f16::from_f32(1.0 / 3.0));
        let i4 = Tensor::vector(vec![9i32, -9]).cast(DType::I4).unwrap();
        assert_eq!(i4.as_slice::<i8>().unwrap(), &[-7, 7]);
    }
}
