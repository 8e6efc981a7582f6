//! Dialect conversion (MLIR's `DialectConversion`): rewrite the ops a [`ConversionTarget`]
//! calls illegal with [`ConversionPattern`]s, changing types with a [`TypeConverter`], all or
//! nothing.
//!
//! # Using it
//!
//! A conversion is a target (which ops may remain), a set of patterns (how to rewrite the ops
//! that may not) and optionally a type converter (how types change). A pattern receives the op
//! and an [`OpAdaptor`] holding its operands already converted, and rewrites through a
//! [`ConversionRewriter`], the journaled [`PatternRewriter`](nart_ir::PatternRewriter) plus
//! type-aware replacement:
//!
//! ```
//! use nart_ir::{Op, OperationState};
//! use nart_rewrite::conversion::{
//!     apply_full_conversion, ConversionPattern, ConversionPatternSet, ConversionRewriter,
//!     ConversionTarget, OpAdaptor,
//! };
//!
//! /// `old.neg x` becomes `new.neg x`.
//! struct NegLowering;
//!
//! impl ConversionPattern for NegLowering {
//!     fn name(&self) -> &'static str {
//!         "NegLowering"
//!     }
//!     fn root(&self) -> Option<&'static str> {
//!         Some("old.neg")
//!     }
//!     fn match_and_rewrite(&self, rw: &mut ConversionRewriter<'_, '_>, op: Op, a: &OpAdaptor) -> bool {
//!         let (loc, ty) = (rw.op_loc(op), rw.value_type(rw.result(op, 0)));
//!         let st = OperationState::new(rw.uniq(), "new.neg", loc)
//!             .operands(&[a.operand(0)])
//!             .results(&[ty]);
//!         rw.replace_op_with_new(op, st);
//!         true
//!     }
//! }
//!
//! let mut ctx = nart_ir::Context::new();
//! ctx.allow_unregistered = true;
//! let src = r#"
//! %0 = "new.arg"() : () -> i32
//! %1 = "old.neg"(%0) : (i32) -> i32
//! "new.use"(%1) : (i32) -> ()
//! "#;
//! let module = nart_ir::parser::parse_source(&mut ctx, "in.mlir", src).unwrap();
//! let mut target = ConversionTarget::new();
//! target.add_legal_dialect("new");
//! let mut patterns = ConversionPatternSet::new();
//! patterns.add(NegLowering);
//! let res = apply_full_conversion(&mut ctx, module, &target, &patterns, None).unwrap();
//! assert_eq!(res.pattern_applications["NegLowering"], 1);
//! let text = nart_ir::printer::print_op(&ctx, module, &Default::default());
//! assert!(text.contains(r#""new.neg"(%0) : (i32) -> i32"#));
//! ```
//!
//! # The algorithm
//!
//! The driver turns the rewriter's journal on, records a checkpoint, and walks the ops nested
//! under the root (not the root itself) in pre-order, as collected when it starts, skipping the
//! ones that are no longer in the IR (erased, or nested in an op that was). For each op it
//! *legalizes*:
//!
//! 1. A cast the driver made is left alone. An op the target calls legal is done.
//! 2. Otherwise the patterns rooted on the op's name and the op-agnostic ones are tried by
//!    decreasing benefit, then in the order they were added. Each attempt starts at a
//!    checkpoint: the driver builds the adaptor, sets the insertion point before the op, and
//!    calls the pattern. A pattern that returns `false` is rolled back (whatever it created or
//!    changed on the way), its reason noted, and the next one tried.
//! 3. A pattern that applied must leave legal IR: every op it created, and every op nested in
//!    those that the walk does not know (a clone's body), is legalized recursively one level
//!    deeper; so is the op itself when the pattern updated it in place instead of replacing it.
//!    When one of those fails, the pattern is rolled back and the next tried. A pattern is not
//!    tried on what it created while it is being applied, and legalizations nest at most
//!    [`ConversionConfig::max_depth`] deep, so recursion always ends.
//! 4. When no pattern does, the op has failed, unless it need not be converted: in a partial
//!    conversion only ops the target marks illegal must be, in a full one every op not legal.
//!    The walk goes on, so that every failure is found.
//!
//! After the walk, every op under the root is checked once more (a pattern may have made an op
//! illegal after the walk passed it). If any op failed, the driver rolls back to its first
//! checkpoint, so the IR is what it was, handle for handle and byte for byte when printed, and
//! returns a [`ConversionError`] with one diagnostic per failed op, at its location, in IR
//! order, each with a note per pattern tried. Otherwise it cleans up the casts (below) and
//! commits, which turns the erased ops into tombstones.
//!
//! # What is journaled
//!
//! Everything: patterns change the IR only through the rewriter, the driver's casts and block
//! signature changes go through it too, and so do the type converter's materializations (they
//! receive the rewriter). The driver's own bookkeeping (which ops are its casts, a cache of
//! target casts) is not undone; it is read only for ops still in the IR, and a rollback turns
//! the casts it undoes into tombstones.
//!
//! # Values and materializations
//!
//! Conversion changes the IR in place as it goes: a replaced op's results are replaced at once.
//! Where a new value has another type than the one it replaces, old and new meet through a
//! `builtin.unrealized_conversion_cast` the driver makes:
//!
//! - A **source** cast turns converted values back into the original type, so that a user not
//!   converted yet (or never converted, being legal) keeps seeing the type it expects. It is
//!   inserted by [`ConversionRewriter::replace_op`] before the replaced op when a result that
//!   is still used gets a value of another type (or several values, 1:N), and by
//!   [`ConversionRewriter::apply_signature_conversion`] at the start of a block whose arguments
//!   changed type.
//! - A **target** cast turns a value of the original type into the converted types, when an op
//!   being converted has an operand that was not converted (defined by a legal op, or by an op
//!   not converted yet). The adaptor creates it right after the value's definition (at the
//!   start of the block for an argument) and reuses it for later users.
//!
//! The adaptor looks through source casts: an operand defined by one stands for the cast's
//! inputs (through chains of them), when those have the converted types. Without a type
//! converter the adaptor gives the inputs of source casts, and other operands as they are.
//!
//! At the end, the casts nothing uses are erased, and a cast of a cast back to the original
//! types is folded away, repeatedly. The casts left are the places where an unconverted user
//! still needs an old type, or a converted op uses a value an unconverted op makes: when the
//! type converter has materializations of that direction, each left cast is replaced by what
//! they build; otherwise it stays an unrealized cast for a later pass. Casts are exempt from
//! legality.
//!
//! # Determinism
//!
//! The walk, the pattern order, cast creation and cleanup follow IR order and insertion order;
//! hash maps are only looked up, never iterated. The same input gives the same output, byte for
//! byte, and the same diagnostics in the same order.
//!
//! # Not done
//!
//! Ops are not folded before patterns are tried (MLIR tries the folder first); conversion
//! patterns and rewrite patterns are separate traits; an op's regions are not marked
//! "recursively legal"; and a pattern may not be applied to the ops it created (MLIR's
//! `hasBoundedRewriteRecursion`).

mod driver;
mod pattern;
mod rewriter;
mod target;
mod type_converter;

#[cfg(test)]
mod tests;

pub use driver::{
    apply_conversion, apply_full_conversion, apply_partial_conversion, ConversionConfig,
    ConversionError, ConversionMode, ConversionResult,
};
pub use pattern::{ConversionPattern, ConversionPatternSet, OpAdaptor};
pub use rewriter::ConversionRewriter;
pub use target::{ConversionTarget, Legality, LegalityCx, LegalityFn};
pub use type_converter::{ConversionFn, MaterializationFn, SignatureConversion, TypeConverter};
