//! nart's core IR, built the way MLIR's is.
//!
//! A [`Context`] owns interned strings, [`Type`]s and [`Attr`]ibutes, every IR object
//! ([`Op`], [`Block`], [`Region`], [`Value`]) and the [`Registry`](registry::Registry) of dialects.
//! Ops are declared once as static [`OpDef`]s; the verifier, the printer and parser of the MLIR
//! text form, and the generated docs all read that declaration.
//!
//! This crate knows no dialect but `builtin`.

#![deny(missing_docs)]

pub mod apint;
pub mod asm;
mod attrs;
pub mod builder;
pub mod builtin;
mod context;
pub mod diag;
pub mod docs;
pub mod enums;
pub mod extensible;
pub mod interfaces;
mod ir;
pub mod parser;
pub mod printer;
pub mod registry;
pub mod rewrite;
pub mod rule;
pub mod symbol;
pub mod traits;
mod types;
mod uniquer;
pub mod util;
pub mod verify;

pub use attrs::{
    AffineExpr, AffineMap, Attr, AttrData, DenseArrayData, DenseData, LocData, Location, NamedAttr,
};
pub use builder::{Builder, InsertPoint, IrBuilder, OpBuilder};
pub use context::{Context, ResourceValue, Resources};
pub use diag::{Diagnostic, Severity, SourceMgr};
pub use ir::{Block, IrMapping, Op, OperationState, Region, Use, Value, ValueDef, WalkOrder};
pub use registry::{DialectDef, OpDef};
pub use rewrite::{PatternRewriter, RewritePattern};
pub use traits::Trait;
pub use types::{FloatKind, Signedness, Type, TypeData, DYNAMIC};
pub use uniquer::{Ident, Uniquer};
