//! Rewriting nart IR: pattern sets, folding, and a bounded greedy driver.
//!
//! The rewrite contract lives in `nart-ir` ([`RewritePattern`], [`PatternRewriter`]) so that op
//! definitions can list their canonicalization patterns.
//! This crate adds what drives those patterns:
//!
//! - [`FrozenPatternSet`]: patterns indexed by the op name they match, ordered by benefit.
//! - [`OperationFolder`]: runs an op's folder, materializing the constants it produces before
//!   the op, and uniques and hoists the constants the driver meets to the entry block of the
//!   enclosing isolated-from-above region, as MLIR 22's driver and `OperationFolder` do.
//! - [`apply_patterns_greedily`]: MLIR's `applyPatternsGreedily`, always bounded, which reports
//!   why it stopped ([`StopReason`]) and what it did ([`GreedyResult`]), like egg's `Runner`.
//! - [`simplify_regions`]: MLIR's region simplification (unreachable blocks, dead ops and block
//!   arguments, identical blocks, redundant arguments), which the driver runs after each sweep.
//! - [`conversion`]: MLIR's dialect conversion, all or nothing over the rewriter's journal:
//!   a [`ConversionTarget`](conversion::ConversionTarget), a
//!   [`TypeConverter`](conversion::TypeConverter), [`ConversionPattern`](conversion::ConversionPattern)s,
//!   and the partial and full conversion drivers.

#![deny(missing_docs)]

pub mod conversion;
mod driver;
mod folder;
mod pattern_set;
mod regions;
mod side_effects;

#[cfg(test)]
mod testing;

pub use driver::{
    apply_patterns_greedily, GreedyConfig, GreedyResult, RegionSimplification, StopReason,
};
pub use folder::{FoldChange, KnownConstant, OperationFolder};
pub use nart_ir::rewrite::{PatternRewriter, RewritePattern};
pub use pattern_set::FrozenPatternSet;
pub use regions::{erase_unreachable_blocks, simplify_regions, RegionSimplifyResult};
pub use side_effects::{is_op_trivially_dead, is_pure};
