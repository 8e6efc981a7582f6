//! Typed errors of the ONNX importer's building blocks; the importer turns them into
//! diagnostics that name the node, op type and attribute concerned.

use thiserror::Error;

/// Why a `TensorProto` could not be read.
#[derive(Debug, Error, PartialEq)]
pub enum TensorError {
    /// `data_type` is not a known ONNX element type.
    #[error("unknown element type code {0}")]
    UnknownType(i32),
    /// A dimension is negative.
    #[error("negative dimension {0}")]
    NegativeDim(i64),
    /// The element count overflows.
    #[error("the tensor is too large")]
    TooLarge,
    /// The data has the wrong number of elements or bytes.
    #[error("the tensor holds {got} data entries but its shape needs {want}")]
    Length {
        /// What the data holds.
        got: usize,
        /// What the shape needs.
        want: usize,
    },
    /// External data could not be read.
    #[error("external data: {0}")]
    External(String),
}
