//! The `math` dialect: elementwise math functions (exponentials, logarithms, trigonometry,
//! rounding, `fma`, powers, bit counts, float classification) on scalars and, elementwise, on
//! vectors and tensors of them.
//!
//! Ops, attribute names and syntax follow upstream MLIR's `math` dialect, so that upstream
//! `mlir-opt` reads what nart prints and the other way round. Float ops carry upstream's
//! `fastmath` property, an `#arith.fastmath<...>` attribute (`none` unless set).

#![deny(missing_docs)]

pub mod ops;

use nart_ir::registry::{DialectDef, OpDef};
use nart_ir::Context;

pub use ops::*;

static OPS: [&OpDef; 44] = [
    &ABSF, &ABSI, &ACOS, &ACOSH, &ASIN, &ASINH, &ATAN, &ATAN2, &ATANH, &CBRT, &CEIL, &COPYSIGN,
    &COS, &COSH, &CTLZ, &CTPOP, &CTTZ, &ERF, &ERFC, &EXP, &EXP2, &EXPM1, &FLOOR, &FMA, &FPOWI,
    &IPOWI, &ISFINITE, &ISINF, &ISNAN, &ISNORMAL, &LOG, &LOG10, &LOG1P, &LOG2, &POWF, &ROUND,
    &ROUNDEVEN, &RSQRT, &SIN, &SINH, &SQRT, &TAN, &TANH, &TRUNC,
];

/// The declaration of the dialect.
pub fn dialect() -> DialectDef {
    DialectDef {
        name: "math",
        summary: "Elementwise math functions.",
        description: "The `math` dialect holds the functions of a C math library and a few \
integer bit operations, applied to a scalar or elementwise to a vector or tensor.\n\
Float ops take upstream's `fastmath` flags (`#arith.fastmath<...>`), so they need the `arith` \
dialect registered too.\n\n\
```mlir\n%0 = math.exp %x : f32\n%1 = math.fma %a, %b, %c fastmath<contract> : vector<8xf32>\n\
%2 = math.isnan %x : f32\n```",
        ops: &OPS,
        materialize_constant: None,
        types: &[],
        attrs: &[],
        enums: &[],
    }
}

/// Registers the `math` dialect (register `arith` too, for the `fastmath` attribute).
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(dialect());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_are_up_to_date() {
        let text = nart_ir::docs::render_dialect_docs(&dialect());
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dialects/math.md");
        if let Err(e) = nart_ir::docs::check_generated_file(&path, &text, "nart-dialect-math") {
            panic!("{e}");
        }
    }
}
