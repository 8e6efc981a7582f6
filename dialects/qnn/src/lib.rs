//! The `qnn` dialect: integer compute ops on tensors of `quant`'s uniform quantized types,
//! as the integer kernels of a deployed network run them.
//!
//! A value of type `tensor<...x!quant.uniform<i8:f32, S:Z>>` holds stored integers `q` standing
//! for `r = S(q − Z)` (see the `quant` dialect).
//! The ops compute on the stored integers: products accumulate in `i32`, and results are
//! requantized by a 32-bit fixed-point multiplier and a shift, rounding ties as the op's
//! `rounding` says, then clamped to the result's storage range and the fused activation's.
//! Their exact semantics are those of the reference kernels in `nart_tensor::qnn`, which the
//! interpreter runs.
//!
//! - [`ops`]: `qnn.requantize`, `qnn.conv`, `qnn.matmul`, `qnn.add`, `qnn.mul`, `qnn.concat`,
//!   `qnn.avg_pool`, `qnn.max_pool` and `qnn.lut`;
//! - [`attrs`]: the fused activation (`#qnn.activation<relu>`) and the rounding
//!   (`#qnn.rounding<half_away>`), enums declared as data;
//! - [`verify`]: the rules the ops keep (ranks, channels, groups, per-axis axes and scale counts,
//!   bias scales, storage widths, shapes);
//! - [`lut`]: builds a `qnn.lut` table from a float function.
//!
//! The dialect is `qnn`, not `quant`, so that upstream `mlir-opt --allow-unregistered-dialect`
//! still reads nart's quantized IR: the `quant` namespace is upstream's, and only its types and
//! casts live there.

#![deny(missing_docs)]

pub mod attrs;
pub mod lut;
pub mod ops;
pub mod verify;

use nart_ir::extensible::DialectAttrDef;
use nart_ir::{Context, DialectDef, OpDef};

pub use attrs::{Activation, ACTIVATION, ROUNDING};
pub use ops::*;

static OPS: [&OpDef; 9] = [
    &ops::ADD,
    &ops::AVG_POOL,
    &ops::CONCAT,
    &ops::CONV,
    &ops::LUT,
    &ops::MATMUL,
    &ops::MAX_POOL,
    &ops::MUL,
    &ops::REQUANTIZE,
];

static ATTRS: [&DialectAttrDef; 2] = [&attrs::ACTIVATION_ATTR, &attrs::ROUNDING_ATTR];

static ENUMS: [&nart_ir::enums::EnumDef; 2] = [&attrs::ACTIVATION, &attrs::ROUNDING];

/// The declaration of the dialect.
pub fn dialect() -> DialectDef {
    DialectDef {
        summary: "Integer compute on quantized tensors: convolution, matrix product, \
elementwise, concatenation, pooling, lookup tables and requantization.",
        description: "Operands and results are tensors of `!quant.uniform` types: stored \
integers `q` standing for `r = S(q - Z)`.\n\
Products accumulate in `i32`; a result is requantized by a 32-bit fixed-point multiplier `m` \
and a shift: for the real multiplier `M = S1·S2/S3 = f · 2^e` (`f` in `[0.5, 1)`), \
`m = round(f · 2^31)` and the result is `clamp(Z3 + round(acc · m / 2^(31 − e)))`, the \
product taken exactly and rounded once, ties as the op's `rounding` says (`half_even` as \
ONNX, `half_away` as gemmlowp, `half_up` as TFLite's single-rounding kernels), then clamped to \
the result's storage range and the fused activation's range.\n\
Weights may be quantized per output channel (`!quant.uniform<i8:f32:0, {...}>`); a bias is \
`i32` with scale `S1·S2` and zero point 0.\n\n\
```mlir\n%y = qnn.conv %x, %w, %b pads [1, 1, 1, 1] act<relu> : (tensor<1x3x8x8x!quant.uniform<u8:f32, 0.02:128>>, \
tensor<4x3x3x3x!quant.uniform<i8:f32, 0.01>>, tensor<4x!quant.uniform<i32:f32, 2.0e-4>>) \
-> tensor<1x4x8x8x!quant.uniform<u8:f32, 0.05>>\n```",
        ops: &OPS,
        attrs: &ATTRS,
        enums: &ENUMS,
        ..DialectDef::new("qnn")
    }
}

/// Registers the `qnn` dialect (and the `quant` dialect its types come from, if it is not
/// registered yet).
pub fn register(ctx: &mut Context) {
    if !ctx.registry.has_dialect("quant") {
        nart_dialect_quant::register(ctx);
    }
    ctx.register_dialect(dialect());
}

/// Renders `docs/dialects/qnn.md` from the declarations.
pub fn render_docs() -> String {
    nart_ir::docs::render_dialect_docs(&dialect())
}

#[cfg(test)]
mod tests;
