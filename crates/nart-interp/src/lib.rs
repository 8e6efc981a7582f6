//! nart's reference interpreter: runs a graph-dialect function on [`nart_tensor::Tensor`]s.
//!
//! [`Interpreter::new`] plans a `func.func` once: it decodes constants, extracts every op's
//! attributes (falling back to the ONNX schema's defaults), looks up each op's kernel, and works
//! out where each intermediate value dies.
//! [`Interpreter::run`] then checks the inputs (count, element type, shape) and executes the plan,
//! freeing intermediates after their last use.
//! A run is bounded by its [`Limits`]: a memory limit that every op checks before allocating (its
//! results' static shapes, and each tensor a kernel sizes from its inputs), and a limit on loop
//! iterations; going past one is an [`InterpError::Limit`] or a kernel's
//! [`nart_tensor::KernelError::TooLarge`] naming the op.
//! Ops with regions (`graph.If`, `graph.Loop`, `graph.Scan`) run their bodies recursively.
//! [`Interpreter::run_observed`] shows an [`Observer`] every value of a run as it is computed
//! (calibration collects its statistics this way).
//!
//! Numerics follow ONNX: every kernel lives in `nart-tensor`, which computes every element type
//! ONNX has; this crate adds the dispatch table (`ops`, one entry per ONNX operator, mapping its
//! attributes and operands onto `nart-tensor`'s functions), control flow, and sequence and
//! optional values.
//!
//! The interpreter finds an op's kernel through the [`ReferenceKernel`] op interface, which
//! [`register`] attaches to the graph dialect's ops (MLIR's external models): another dialect
//! gives its ops reference semantics by attaching its own implementations.

#![deny(missing_docs)]

pub mod attrs;
pub mod convert;
mod error;
mod interp;
pub mod ops;
mod value;

pub use convert::ValueKind;
pub use error::{InterpError, Result};
pub use interp::{eval_op, node_of, InputSpec, Interpreter, Limits, Observer};
pub use ops::{register, Kernel, ReferenceKernel};
pub use value::Val;
