//! Tensors of every ONNX element type and reference kernels with ONNX semantics.
//!
//! This crate knows nothing about IR: it holds the [`Tensor`] type, the [`DType`] enum covering every ONNX `TensorProto.DataType`, exact conversions for the small float formats, `raw_data` and `.npy` I/O, and one plain function per ONNX operator, grouped by family.
//! Kernels take tensors and a typed attribute struct and return `Result<Tensor, KernelError>`; they never panic on bad shapes or attribute values.
//! A kernel whose output size comes from its inputs' values (ConstantOfShape, Expand, Tile, Range, broadcasting, ...) checks it before allocating, against [`MAX_ELEMENTS`] and the per-thread byte limit of [`with_max_bytes`], and fails with [`KernelError::TooLarge`].
//!
//! Float kernels compute in f64 for f64 inputs and for the 16-bit and smaller floats, and round the result to the output type once; f32 convolutions and matrix products use f32 GEMM (`matrixmultiply`).
//! Integer kernels compute exactly in i128 and wrap to the output type, as ONNX Cast does.
//!
//! Module map:
//! - [`elementwise`]: broadcasting binary ops, unary math, activations (incl. Swish and SwiGLU), Clip, PRelu,
//!   Where, inference-mode Dropout;
//! - [`matmul`]: MatMul, Gemm, MatMulInteger, QLinearMatMul, Det;
//! - [`conv`]: Conv, ConvTranspose, ConvInteger, QLinearConv (N-D, im2col + GEMM), Col2Im, DeformConv,
//!   CausalConvWithState;
//! - [`pool`]: MaxPool, MaxUnpool, AveragePool, LpPool, the global pools and RoiAlign;
//! - [`norm`]: BatchNormalization (inference and training), LayerNormalization, InstanceNormalization,
//!   GroupNormalization, RMSNormalization, LRN, LpNormalization, MeanVarianceNormalization, Softmax,
//!   LogSoftmax, Hardmax;
//! - [`reduce`]: Reduce*, ArgMax, ArgMin, TopK, CumSum, CumProd;
//! - [`shape_ops`]: Transpose, Reshape, Flatten, Squeeze, Unsqueeze, Expand, Concat, Split, Slice, Tile,
//!   Pad, CenterCropPad, DepthToSpace, SpaceToDepth, Shape, Size, Range, ConstantOfShape, Trilu, OneHot,
//!   EyeLike;
//! - [`index`]: Gather, GatherElements, GatherND, ScatterElements, ScatterND, TensorScatter, Compress,
//!   ReverseSequence, Unique, NonZero, NonMaxSuppression;
//! - [`resize`]: Resize; [`grid_sample`]: GridSample, AffineGrid; [`einsum`]: Einsum;
//! - [`quant`]: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear;
//! - [`qnn`]: the exact integer kernels of the `qnn` dialect's ops (fixed-point requantization,
//!   `i32` accumulation through row and column sums) and of `quant`'s casts;
//! - [`rnn`]: RNN, GRU, LSTM; [`attention`]: Attention, LinearAttention, RotaryEmbedding;
//! - [`loss`]: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss;
//! - [`signal`]: DFT, STFT, HannWindow, HammingWindow, BlackmanWindow;
//! - [`text`]: StringConcat, StringNormalizer, StringSplit, RegexFullMatch, TfIdfVectorizer;
//! - Cast is [`Tensor::cast`] and [`Tensor::cast_with`], BitCast [`Tensor::bit_cast`].
//!
//! ```
//! use nart_tensor::{elementwise, DType, Tensor};
//!
//! let a = Tensor::from_vec(vec![2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
//! let b = Tensor::vector(vec![10.0f32, 20.0]);
//! let c = elementwise::add(&a, &b).unwrap();
//! assert_eq!(c.as_f32().unwrap(), &[11.0, 22.0, 13.0, 24.0]);
//! assert_eq!(c.cast(DType::I8).unwrap().as_slice::<i8>().unwrap(), &[11, 22, 13, 24]);
//! ```

#![deny(missing_docs)]

pub mod blocked;
mod dtype;
mod error;
mod io;
pub mod layout;
pub mod smallfloat;
mod tensor;
#[cfg(test)]
mod test_util;

pub use dtype::{DType, Storage};
pub use error::{human_bytes, KernelError, Result};
pub use tensor::{
    elem_bytes, max_bytes, numel, with_max_bytes, CastOptions, Data, Element, Tensor, MAX_ELEMENTS,
};

pub mod attention;
pub mod conv;
pub mod einsum;
pub mod elementwise;
pub mod grid_sample;
pub mod halfround;
pub mod index;
pub mod loss;
pub mod matmul;
pub mod norm;
pub mod pool;
pub mod qnn;
pub mod quant;
pub mod reduce;
pub mod resize;
pub mod rnn;
pub mod shape_ops;
pub mod signal;
pub mod text;
