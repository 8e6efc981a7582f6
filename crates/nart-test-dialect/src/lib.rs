//! The `test` dialect: ops for testing the core of nart, and the helpers nart's own tests share
//! (MLIR's `test/lib/Dialect/Test`).
//!
//! Not for users. Only tests use this crate (as a dev-dependency; no crate may list it under
//! `[dependencies]`), it is never published, and its ops change whenever a test needs a new
//! shape of op. A pass or dialect under test should not care what the ops mean, only what they
//! declare: traits, interfaces, regions, successors, a folder, a pattern.
//!
//! - [`ops`]: `test.module` (a symbol table), `test.func` (callable, with hand-written syntax),
//!   `test.return`, `test.call` (a call), `test.use` (a symbol use), `test.br` (a branch to any
//!   number of blocks), `test.constant` (constant-like, materialized by the dialect), `test.add`
//!   (folds constants; the `AddZero` pattern), `test.cmp` (parse and print hooks), `test.cast`
//!   (variadic operands and results), `test.effect` (side effects), `test.region` (a nested
//!   region) and `test.with_flags` (an enum attribute).
//! - [`types`]: `!test.int<N>`, a dialect type with typed storage, and `#test.flags<...>`, a
//!   bit-enum attribute.
//! - [`ir`]: [`TestIr`] and [`TestFunc`], which build small modules of the dialect, and
//!   [`dump`](ir::dump), a compact text of a function body for assertions.
//! - [`child`]: one case of a hostile-input suite, a binary run under a memory limit and a
//!   timeout.
//! - [`roundtrip`]: parse, verify and print, checking that the custom form is a fixpoint and
//!   that the generic form parses back to the same IR.
//!
//! ```
//! use nart_test_dialect::TestIr;
//!
//! let mut t = TestIr::new();
//! let f = t.func("f", 1, 1, false);
//! let b = t.entry(f);
//! let x = t.arg(f, 0);
//! let zero = t.constant(b, 0);
//! let sum = t.add(b, x, zero);
//! t.ret(b, &[sum]);
//! assert_eq!(t.first_error(), None);
//! assert_eq!(t.dump(f), "test.constant 0\n%0 = test.add %arg0, %c0\ntest.return %0");
//! ```

#![deny(missing_docs)]

pub mod child;
pub mod ir;
pub mod ops;
pub mod roundtrip;
mod syntax;
pub mod types;

use nart_ir::registry::DialectDef;
use nart_ir::Context;

pub use ir::{TestFunc, TestIr};
pub use ops::AddZero;

/// The declaration of the dialect.
pub fn dialect() -> DialectDef {
    DialectDef {
        name: "test",
        summary: "Ops for testing the core; not for users.",
        description: "Each op has the shape of op some generic code cares about (a symbol \
table, a callable, a call, a branch, a constant, a folding op, an op with side effects or a \
region) and little meaning beyond it.",
        ops: &ops::OPS,
        materialize_constant: Some(ops::materialize_constant),
        types: &types::TYPES,
        attrs: &types::ATTRS,
        enums: &types::ENUMS,
    }
}

/// Registers the `test` dialect.
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(dialect());
}

#[cfg(test)]
mod tests;
