//! The interpreter's error type.

use nart_tensor::{DType, KernelError};
use thiserror::Error;

/// What went wrong while planning or running a function.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum InterpError {
    /// The op has no kernel in the interpreter.
    #[error("{loc}: '{op}' is not supported by the interpreter")]
    Unsupported {
        /// The op name (`graph.Conv`).
        op: String,
        /// Where the op is.
        loc: String,
    },
    /// Several ops have no kernel.
    #[error("the interpreter does not support {ops} (first: {first})")]
    UnsupportedOps {
        /// The distinct op names, sorted.
        ops: String,
        /// The first unsupported op and its location.
        first: String,
    },
    /// A kernel failed.
    #[error("{loc}: '{op}' failed: {error}")]
    Kernel {
        /// The op name.
        op: String,
        /// Where the op is.
        loc: String,
        /// The kernel's error.
        error: KernelError,
    },
    /// The op is malformed for the interpreter (bad attribute, missing region, wrong operand count).
    #[error("{loc}: '{op}': {msg}")]
    BadOp {
        /// The op name.
        op: String,
        /// Where the op is.
        loc: String,
        /// What is wrong.
        msg: String,
    },
    /// A run went past one of its [`crate::Limits`] (memory or loop iterations).
    #[error("{loc}: '{op}' {msg}")]
    Limit {
        /// The op name.
        op: String,
        /// Where the op is.
        loc: String,
        /// Which limit, and by how much.
        msg: String,
    },
    /// The function cannot be interpreted (no body, control flow across blocks, unknown types).
    #[error("cannot interpret function: {0}")]
    BadFunction(String),
    /// The caller passed the wrong number of inputs.
    #[error("expected {expected} inputs ({names}), got {got}")]
    InputCount {
        /// Number of inputs the function takes.
        expected: usize,
        /// The names of those inputs.
        names: String,
        /// Number of inputs given.
        got: usize,
    },
    /// A tensor input got a sequence or an empty optional.
    #[error("input #{index} '{name}': expected a tensor, got a {got}")]
    InputKind {
        /// Position of the input.
        index: usize,
        /// Name of the input.
        name: String,
        /// What was given.
        got: String,
    },
    /// An input has the wrong element type.
    #[error("input #{index} '{name}': expected element type {expected}, got {got}")]
    InputDType {
        /// Position of the input.
        index: usize,
        /// Name of the input.
        name: String,
        /// Element type the function declares.
        expected: DType,
        /// Element type given.
        got: DType,
    },
    /// An input has the wrong shape.
    #[error("input #{index} '{name}': expected shape {expected}, got {got:?}")]
    InputShape {
        /// Position of the input.
        index: usize,
        /// Name of the input.
        name: String,
        /// The declared shape, `?` for dynamic dimensions.
        expected: String,
        /// The shape given.
        got: Vec<usize>,
    },
}

/// Shorthand for interpreter results.
pub type Result<T> = std::result::Result<T, InterpError>;
