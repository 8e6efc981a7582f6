//! Error types of `nart-onnx-proto`.

/// Why bytes could not be read as an ONNX message.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// The bytes are not a valid protobuf encoding of the expected message
    /// (truncated input, a bad wire type, an invalid UTF-8 string, nesting
    /// deeper than the decoder allows, and so on).
    #[error("invalid {what} protobuf: {source}")]
    Protobuf {
        /// The message that was being decoded, such as `ModelProto`.
        what: &'static str,
        /// The decoder's own description of the problem.
        #[source]
        source: prost::DecodeError,
    },
}

/// A `TensorProto.data_type` value that names no known element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown ONNX tensor data type {0}")]
pub struct UnknownDataType(pub i32);
