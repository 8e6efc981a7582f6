//! The error type of every kernel.

use crate::DType;
use thiserror::Error;

/// What went wrong when running a kernel or building a tensor.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum KernelError {
    /// Two shapes that must agree do not.
    #[error("{op}: shape mismatch: {msg}")]
    ShapeMismatch {
        /// The operator.
        op: &'static str,
        /// What disagreed.
        msg: String,
    },
    /// Shapes that cannot be broadcast together.
    #[error("{op}: cannot broadcast shapes {a:?} and {b:?}")]
    Broadcast {
        /// The operator.
        op: &'static str,
        /// First shape.
        a: Vec<usize>,
        /// Second shape.
        b: Vec<usize>,
    },
    /// An attribute or a scalar input has a value the operator rejects.
    #[error("{op}: bad attribute '{attr}': {msg}")]
    BadAttribute {
        /// The operator.
        op: &'static str,
        /// The attribute name.
        attr: &'static str,
        /// Why it is rejected.
        msg: String,
    },
    /// The operator does not support this element type.
    #[error("{op}: unsupported element type {dtype}")]
    UnsupportedDType {
        /// The operator.
        op: &'static str,
        /// The element type.
        dtype: DType,
    },
    /// Inputs that must share an element type do not.
    #[error("{op}: element type mismatch: {a} vs {b}")]
    DTypeMismatch {
        /// The operator.
        op: &'static str,
        /// First type.
        a: DType,
        /// Second type.
        b: DType,
    },
    /// An index input is out of range.
    #[error("{op}: index {index} out of range for axis of size {size}")]
    IndexOutOfRange {
        /// The operator.
        op: &'static str,
        /// The index value.
        index: i64,
        /// The size of the indexed axis.
        size: usize,
    },
    /// An axis attribute is out of range.
    #[error("{op}: axis {axis} out of range for rank {rank}")]
    BadAxis {
        /// The operator.
        op: &'static str,
        /// The axis value.
        axis: i64,
        /// The rank of the tensor.
        rank: usize,
    },
    /// Data length does not match the shape.
    #[error("data has {len} elements but shape {shape:?} needs {expected}")]
    DataLength {
        /// Number of elements given.
        len: usize,
        /// Number of elements the shape needs.
        expected: usize,
        /// The shape.
        shape: Vec<usize>,
    },
    /// Integer division or remainder by zero.
    #[error("{op}: integer division by zero")]
    DivisionByZero {
        /// The operator.
        op: &'static str,
    },
    /// A wrong number of inputs.
    #[error("{op}: {msg}")]
    Arity {
        /// The operator.
        op: &'static str,
        /// What was wrong.
        msg: String,
    },
    /// Malformed bytes or file.
    #[error("decode error: {0}")]
    Decode(String),
    /// An I/O failure while reading or writing a file.
    #[error("i/o error: {0}")]
    Io(String),
    /// A tensor the kernel would allocate is larger than the memory limit
    /// ([`crate::with_max_bytes`]).
    #[error(
        "{op}: a tensor of shape {shape:?} needs {}, more than the {} the memory limit allows",
        human_bytes(*bytes),
        human_bytes(*limit)
    )]
    TooLarge {
        /// The operator.
        op: &'static str,
        /// The shape it would allocate.
        shape: Vec<usize>,
        /// The bytes it would need.
        bytes: usize,
        /// The limit in force.
        limit: usize,
    },
}

/// A byte count for people: `123 bytes`, `1.5 KiB`, `8.0 TiB`.
pub fn human_bytes(n: usize) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    // Values that would print as 1024.0 move up a unit.
    while v >= 1023.95 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

impl KernelError {
    /// Shorthand for [`KernelError::ShapeMismatch`].
    pub fn shape(op: &'static str, msg: impl Into<String>) -> Self {
        KernelError::ShapeMismatch {
            op,
            msg: msg.into(),
        }
    }

    /// Shorthand for [`KernelError::BadAttribute`].
    pub fn attr(op: &'static str, attr: &'static str, msg: impl Into<String>) -> Self {
        KernelError::BadAttribute {
            op,
            attr,
            msg: msg.into(),
        }
    }

    /// Shorthand for [`KernelError::UnsupportedDType`].
    pub fn dtype(op: &'static str, dtype: DType) -> Self {
        KernelError::UnsupportedDType { op, dtype }
    }
}

/// Result of a kernel.
pub type Result<T, E = KernelError> = std::result::Result<T, E>;
