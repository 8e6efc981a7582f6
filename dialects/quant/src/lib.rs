//! The `quant` dialect: quantized types and the casts between quantized, storage and float
//! values, in upstream MLIR's spelling, so that upstream `mlir-opt` reads nart's quantized IR.
//!
//! A value of a quantized type `!quant.uniform<i8:f32, 0.0125:-3>` is stored as `i8` and stands
//! for the real number `0.0125 * (q - (-3))` (MLIR's `r = S(q - Z)`).
//! [`types`] has the types: uniform per tensor, per axis (`!quant.uniform<i8:f32:1, {0.1, 0.2}>`)
//! and per block of a tensor (`!quant.uniform<i4:f32:{1:32}, {{...}}>`, MLIR's sub-channel form,
//! for grouped 4-bit weights), with storage ranges (`i8<-127:127>`) and sub-byte storage (`i4`,
//! `u4`, `i2`); and `!quant.any`, `!quant.calibrated` for a value whose parameters are not chosen
//! yet.
//! [`ops`] has upstream's casts: `quant.qcast` (float to quantized), `quant.dcast` (quantized to
//! float) and `quant.scast` (quantized to its storage integers and back).

#![deny(missing_docs)]

pub mod ops;
pub mod types;

use nart_ir::{Context, DialectDef, OpDef};

pub use ops::*;
pub use types::{AnyQuantizedType, CalibratedQuantizedType, QuantParams, UniformQuantizedType};

static OPS: [&OpDef; 3] = [&ops::DCAST, &ops::QCAST, &ops::SCAST];

/// The declaration of the dialect.
pub fn dialect() -> DialectDef {
    DialectDef {
        summary: "Quantized types and casts between quantized, storage and float values.",
        description: "A value of a quantized type is an integer (the storage type) standing for \
a real number of the expressed type: `r = scale * (q - zero_point)`.\n\
Types follow upstream MLIR's quant dialect, so upstream `mlir-opt` reads nart's quantized IR.\n\n\
```mlir\n%q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.0125:-3>>\n\
%s = quant.scast %q : tensor<4x!quant.uniform<i8:f32, 0.0125:-3>> to tensor<4xi8>\n```",
        ops: &OPS,
        types: &types::TYPES,
        ..DialectDef::new("quant")
    }
}

/// Registers the `quant` dialect.
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(dialect());
}

/// Renders `docs/dialects/quant.md` from the declarations.
pub fn render_docs() -> String {
    nart_ir::docs::render_dialect_docs(&dialect())
}

#[cfg(test)]
mod tests;
