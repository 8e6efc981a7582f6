//! The ops: integer compute on tensors of `!quant.uniform` types.
//!
//! Every op reads its operands as `r = S(q - Z)` and writes `q = clamp(Z + round(r / S))`,
//! with `S` and `Z` from the operand and result types; the rules each op's verifier checks are in
//! [`crate::verify`].

use nart_ir::registry::{AttrDef, TypeConstraint};
use nart_ir::TypeData;
use nart_macros::op;

use crate::attrs::{
    ACTIVATION_PROP, CLIP_MAX_PROP, CLIP_MIN_PROP, DENSE_I64_ARRAY, DILATIONS_PROP, GROUP_PROP,
    I64_ATTR, PADS_PROP, ROUNDING_PROP, STRIDES_PROP,
};
use crate::verify;
use nart_dialect_quant::UniformQuantizedType;

/// A ranked tensor of `!quant.uniform` elements.
pub const QUANTIZED_TENSOR: TypeConstraint = TypeConstraint::new(
    "ranked tensor of uniform quantized type",
    |ctx, t| match ctx.type_data(t) {
        TypeData::RankedTensor { elem, .. } => ctx.type_as::<UniformQuantizedType>(*elem).is_some(),
        _ => false,
    },
);

const KERNEL_SHAPE_PROP: AttrDef = AttrDef::required(
    "kernel_shape",
    DENSE_I64_ARRAY,
    "The window size along each spatial dimension.",
);

const AXIS_PROP: AttrDef = AttrDef::required(
    "axis",
    I64_ATTR,
    "The dimension the inputs are joined along.",
);

const COUNT_INCLUDE_PAD_PROP: AttrDef = AttrDef::optional(
    "count_include_pad",
    nart_ir::registry::constraints::UNIT_ATTR,
    "Whether padded positions count in the divisor (as ONNX's `count_include_pad = 1`).",
);

const TABLE_PROP: AttrDef = AttrDef::required(
    "table",
    nart_ir::registry::constraints::DENSE_I32_ARRAY_ATTR,
    "The stored result for each stored input, from the smallest input of the storage type \
     (`-128` for `i8`, `0` for `u8`) to the largest.",
);

#[op(
    name = "qnn.requantize",
    def = REQUANTIZE,
    operands(input: QUANTIZED_TENSOR),
    results(result: QUANTIZED_TENSOR),
    attrs(rounding: optional(ROUNDING_PROP)),
    traits(Pure),
    verify = verify::requantize,
    format = "$input (`round` `` $rounding^)? attr-dict `:` type($input) `to` type($result)",
)]
/// change the scale and zero point of a quantized tensor
///
/// `q2 = clamp(Z2 + round(M · (q1 − Z1)))` with `M = S1 / S2` applied as a 32-bit fixed-point multiplier and a shift, rounding ties as `rounding` says, and clamping to the result's storage range.
/// Per-axis types on either side give one multiplier per index of their axis; the storage may change too (`i32` accumulators to `i8`, `u8` to `i8`).
///
/// ```mlir
/// %y = qnn.requantize %x round<half_away> : tensor<4x!quant.uniform<i32:f32, 1.0e-4>> to tensor<4x!quant.uniform<i8:f32, 0.05:-3>>
/// ```
pub struct RequantizeOp;

#[op(
    name = "qnn.conv",
    def = CONV,
    operands(input: QUANTIZED_TENSOR, weight: QUANTIZED_TENSOR, bias: optional(QUANTIZED_TENSOR)),
    results(result: QUANTIZED_TENSOR),
    attrs(
        strides: optional(STRIDES_PROP),
        pads: optional(PADS_PROP),
        dilations: optional(DILATIONS_PROP),
        group: optional(GROUP_PROP),
        activation: optional(ACTIVATION_PROP),
        clip_min: optional(CLIP_MIN_PROP),
        clip_max: optional(CLIP_MAX_PROP),
        rounding: optional(ROUNDING_PROP),
    ),
    traits(Pure),
    verify = verify::conv,
    format = "$input `,` $weight (`,` $bias^)? (`strides` $strides^)? (`pads` $pads^)? \
        (`dilations` $dilations^)? (`act` `` $activation^)? \
        (`bounds` `(` $clip_min^ `,` $clip_max `)`)? (`round` `` $rounding^)? attr-dict \
        `:` functional-type(operands, results)",
)]
/// quantized convolution, grouped or depthwise
///
/// An N-D convolution in ONNX's layout: `input` is `N × C × D1 × ...`, `weight` is `M × C/group × K1 × ...`, the result `N × M × O1 × ...`.
/// Products accumulate in `i32` (wrapping, as the deployed kernel's accumulator does), with the zero points taken out through precomputed sums: `acc = Σ q1·q2 − Z2·Σ q1 − Z1·Σ q2 + K·Z1·Z2 + bias`, where padded input positions hold `Z1` (the real zero).
/// The result is `clamp(Z3 + round(M · acc))` with `M = S1·S2/S3` per output channel (the weight may be quantized per tensor or along axis 0), clamped further by the fused activation.
/// The optional bias is an `i32` tensor of `M` values with zero point 0 and scale `S1·S2` (per channel for per-axis weights).
/// `group` equal to `C` is a depthwise convolution.
///
/// ```mlir
/// %y = qnn.conv %x, %w, %b pads [1, 1, 1, 1] act<relu> : (tensor<1x3x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<4x3x3x3x!quant.uniform<i8:f32:0, {0.01,0.02,0.01,0.03}>>, tensor<4x!quant.uniform<i32:f32:0, {2.0e-4,4.0e-4,2.0e-4,6.0e-4}>>) -> tensor<1x4x8x8x!quant.uniform<u8:f32, 0.05:0>>
/// ```
pub struct ConvOp;

#[op(
    name = "qnn.matmul",
    def = MATMUL,
    operands(lhs: QUANTIZED_TENSOR, rhs: QUANTIZED_TENSOR, bias: optional(QUANTIZED_TENSOR)),
    results(result: QUANTIZED_TENSOR),
    attrs(
        activation: optional(ACTIVATION_PROP),
        clip_min: optional(CLIP_MIN_PROP),
        clip_max: optional(CLIP_MAX_PROP),
        rounding: optional(ROUNDING_PROP),
    ),
    traits(Pure),
    verify = verify::matmul,
    format = "$lhs `,` $rhs (`,` $bias^)? (`act` `` $activation^)? \
        (`bounds` `(` $clip_min^ `,` $clip_max `)`)? (`round` `` $rounding^)? attr-dict \
        `:` functional-type(operands, results)",
)]
/// quantized batched matrix product
///
/// `lhs` is `... × M × K`, `rhs` is `... × K × N`, and their batch dimensions broadcast as NumPy's `matmul` does.
/// Each result element is `clamp(Z3 + round(M · acc))` with the `i32` accumulator `acc = Σ q1·q2 − Z2·Σ q1 − Z1·Σ q2 + K·Z1·Z2 + bias` and `M = S1·S2/S3`; `rhs` may be quantized per tensor or per column (along its last axis), and the optional `i32` bias has `N` values with scale `S1·S2`.
///
/// ```mlir
/// %y = qnn.matmul %a, %b : (tensor<2x4x!quant.uniform<i8:f32, 0.1>>, tensor<4x3x!quant.uniform<i8:f32, 0.2:1>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5>>
/// ```
pub struct MatMulOp;

#[op(
    name = "qnn.add",
    def = ADD,
    operands(lhs: QUANTIZED_TENSOR, rhs: QUANTIZED_TENSOR),
    results(result: QUANTIZED_TENSOR),
    attrs(
        activation: optional(ACTIVATION_PROP),
        clip_min: optional(CLIP_MIN_PROP),
        clip_max: optional(CLIP_MAX_PROP),
        rounding: optional(ROUNDING_PROP),
    ),
    traits(Pure),
    verify = verify::add,
    format = "$lhs `,` $rhs (`act` `` $activation^)? \
        (`bounds` `(` $clip_min^ `,` $clip_max `)`)? (`round` `` $rounding^)? attr-dict \
        `:` functional-type(operands, results)",
)]
/// quantized addition, broadcasting
///
/// `q3 = clamp(Z3 + round(M1·(q1 − Z1) + M2·(q2 − Z2)))` with `M1 = S1/S3` and `M2 = S2/S3`, each a 32-bit fixed-point multiplier, summed exactly at a common shift and rounded once.
/// Shapes broadcast as NumPy's do; every type is quantized per tensor.
///
/// ```mlir
/// %y = qnn.add %a, %b : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<3x!quant.uniform<i8:f32, 0.2:4>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.25:-1>>
/// ```
pub struct AddOp;

#[op(
    name = "qnn.mul",
    def = MUL,
    operands(lhs: QUANTIZED_TENSOR, rhs: QUANTIZED_TENSOR),
    results(result: QUANTIZED_TENSOR),
    attrs(
        activation: optional(ACTIVATION_PROP),
        clip_min: optional(CLIP_MIN_PROP),
        clip_max: optional(CLIP_MAX_PROP),
        rounding: optional(ROUNDING_PROP),
    ),
    traits(Pure),
    verify = verify::mul,
    format = "$lhs `,` $rhs (`act` `` $activation^)? \
        (`bounds` `(` $clip_min^ `,` $clip_max `)`)? (`round` `` $rounding^)? attr-dict \
        `:` functional-type(operands, results)",
)]
/// quantized elementwise product, broadcasting
///
/// `q3 = clamp(Z3 + round(M · (q1 − Z1)·(q2 − Z2)))` with `M = S1·S2/S3` as a 32-bit fixed-point multiplier; shapes broadcast as NumPy's do, and every type is quantized per tensor.
///
/// ```mlir
/// %y = qnn.mul %a, %b round<half_up> : (tensor<4x!quant.uniform<u8:f32, 0.1:128>>, tensor<4x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<4x!quant.uniform<u8:f32, 0.05:128>>
/// ```
pub struct MulOp;

#[op(
    name = "qnn.concat",
    def = CONCAT,
    operands(inputs: variadic(QUANTIZED_TENSOR)),
    results(result: QUANTIZED_TENSOR),
    attrs(axis: AXIS_PROP, rounding: optional(ROUNDING_PROP)),
    traits(Pure),
    verify = verify::concat,
    format = "$inputs (`round` `` $rounding^)? attr-dict `:` functional-type($inputs, $result)",
)]
/// quantized concatenation
///
/// Joins the inputs along `axis`; an input whose scale or zero point differs from the result's is requantized to it (`q = clamp(Z + round(S_in/S · (q_in − Z_in)))`), an input of the result's type is copied.
///
/// ```mlir
/// %y = qnn.concat %a, %b {axis = 1 : i64} : (tensor<1x2x!quant.uniform<i8:f32, 0.1>>, tensor<1x3x!quant.uniform<i8:f32, 0.2>>) -> tensor<1x5x!quant.uniform<i8:f32, 0.2>>
/// ```
pub struct ConcatOp;

#[op(
    name = "qnn.avg_pool",
    def = AVG_POOL,
    operands(input: QUANTIZED_TENSOR),
    results(result: QUANTIZED_TENSOR),
    attrs(
        kernel_shape: KERNEL_SHAPE_PROP,
        strides: optional(STRIDES_PROP),
        pads: optional(PADS_PROP),
        count_include_pad: optional(COUNT_INCLUDE_PAD_PROP),
        rounding: optional(ROUNDING_PROP),
    ),
    traits(Pure),
    verify = verify::avg_pool,
    format = "$input `kernel` $kernel_shape (`strides` $strides^)? (`pads` $pads^)? \
        (`count_include_pad` $count_include_pad^)? (`round` `` $rounding^)? attr-dict \
        `:` type($input) `to` type($result)",
)]
/// quantized average pooling
///
/// Each window's sum `Σ (q1 − Z1)` (exact, in `i64`) becomes `clamp(Z2 + round(M · sum))` with `M = S1 / (S2 · n)`, where `n` is the number of input positions in the window (padded ones count with `count_include_pad`), so that averaging and requantization round once.
///
/// ```mlir
/// %y = qnn.avg_pool %x kernel [2, 2] strides [2, 2] : tensor<1x1x4x4x!quant.uniform<i8:f32, 0.1>> to tensor<1x1x2x2x!quant.uniform<i8:f32, 0.1>>
/// ```
pub struct AvgPoolOp;

#[op(
    name = "qnn.max_pool",
    def = MAX_POOL,
    operands(input: QUANTIZED_TENSOR),
    results(result: QUANTIZED_TENSOR),
    attrs(
        kernel_shape: KERNEL_SHAPE_PROP,
        strides: optional(STRIDES_PROP),
        pads: optional(PADS_PROP),
        dilations: optional(DILATIONS_PROP),
    ),
    traits(Pure),
    verify = verify::max_pool,
    format = "$input `kernel` $kernel_shape (`strides` $strides^)? (`pads` $pads^)? \
        (`dilations` $dilations^)? attr-dict `:` type($input) `to` type($result)",
)]
/// quantized max pooling
///
/// The largest stored value of each window (padded positions are left out); the result has the input's element type, since the largest real value is the largest stored one.
///
/// ```mlir
/// %y = qnn.max_pool %x kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] : tensor<1x8x9x9x!quant.uniform<u8:f32, 0.1:3>> to tensor<1x8x5x5x!quant.uniform<u8:f32, 0.1:3>>
/// ```
pub struct MaxPoolOp;

#[op(
    name = "qnn.lut",
    def = LUT,
    operands(input: QUANTIZED_TENSOR),
    results(result: QUANTIZED_TENSOR),
    attrs(table: TABLE_PROP),
    traits(Pure),
    verify = verify::lut,
    format = "$input `table` $table attr-dict `:` type($input) `to` type($result)",
)]
/// table lookup on 8-or-fewer-bit values
///
/// `q2 = table[q1 − min]`, where `min` is the smallest value of the input's storage type: the table has `2^bits` entries, each a stored result.
/// [`crate::lut::table`] builds it from a float function (sigmoid, tanh, hardswish, gelu) and the two types, so that any elementwise function of an 8-bit input is exact.
///
/// ```mlir
/// %y = qnn.lut %x table [0, 0, 1, 3] : tensor<4x!quant.uniform<u2:f32, 1.0>> to tensor<4x!quant.uniform<u8:f32, 0.5>>
/// ```
pub struct LutOp;
