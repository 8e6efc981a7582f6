//! Op traits (MLIR's `OpTrait`s): properties an op declares about itself, some of which do
//! generic work for every op that declares them.
//!
//! A trait is data: a name, a summary for the docs, and optionally a verifier and a folder that
//! apply to every op declaring it.
//! The set is open: a dialect declares its own traits as `const`s of [`Trait`] next to its ops,
//! and generic code asks `def.has_trait(MY_TRAIT)`.
//! The core traits below are spelled like MLIR's (`Trait::Pure`, `Trait::Commutative`) so that a
//! declaration reads like ODS.
//!
//! Traits that do generic work:
//! - `Commutative` folds `op(c, x)` to `op(x, c)` in place (constants move right), as MLIR's
//!   `foldCommutative` does, so dialects need no per-op "commute constant" pattern;
//! - `Idempotent` folds `op(x, x) → x` and `op(op(x)) → op(x)`;
//! - `Involution` folds `op(op(x)) → x`;
//! - `SameOperandsAndResultType`, `SameOperandsAndResultShape` and
//!   `SameOperandsAndResultElementType` verify what they say.
//!
//! Behaviour that needs methods (what a call calls, which operands a branch forwards) is an
//! interface, not a trait: see [`crate::interfaces`].

use crate::registry::{FoldOutcome, FoldResult};
use crate::{Attr, Context, Diagnostic, Op};

/// Verifies one op against a trait.
pub type TraitVerifyFn = fn(&Context, Op) -> Result<(), Diagnostic>;

/// A fold every op declaring the trait gets (after the op's own folder found nothing).
pub type TraitFoldFn = fn(&mut Context, Op, &[Option<Attr>]) -> FoldOutcome;

/// A property an op declares about itself. Two traits are the same when their names are.
#[derive(Clone, Copy)]
pub struct Trait {
    /// Name, as in MLIR (`Pure`, `Commutative`).
    pub name: &'static str,
    /// One line for the docs.
    pub summary: &'static str,
    /// Checks every op that declares the trait (after the op's structural checks).
    pub verify: Option<TraitVerifyFn>,
    /// Folds every op that declares the trait.
    pub fold: Option<TraitFoldFn>,
}

impl PartialEq for Trait {
    fn eq(&self, other: &Trait) -> bool {
        self.name == other.name
    }
}

impl Eq for Trait {}

impl std::hash::Hash for Trait {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl std::fmt::Debug for Trait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl Trait {
    /// A marker trait: a name and a summary, no generic work.
    pub const fn marker(name: &'static str, summary: &'static str) -> Trait {
        Trait {
            name,
            summary,
            verify: None,
            fold: None,
        }
    }
}

/// The core traits, spelled as MLIR spells them.
#[allow(non_upper_case_globals)]
impl Trait {
    /// No side effects: can be removed when unused, deduplicated by CSE, hoisted.
    pub const Pure: Trait = Trait::marker("Pure", "no side effects");
    /// Operand order does not matter (`a op b == b op a`); constants fold to the right.
    pub const Commutative: Trait = Trait {
        fold: Some(fold_commutative),
        ..Trait::marker(
            "Commutative",
            "operand order does not matter; constants are moved to the right",
        )
    };
    /// `op(op(x)) == op(x)` and `op(x, x) == x`.
    pub const Idempotent: Trait = Trait {
        fold: Some(fold_idempotent),
        ..Trait::marker("Idempotent", "`op(op(x)) == op(x)`, `op(x, x) == x`")
    };
    /// `op(op(x)) == x`.
    pub const Involution: Trait = Trait {
        fold: Some(fold_involution),
        ..Trait::marker("Involution", "`op(op(x)) == x`")
    };
    /// Ends a block.
    pub const Terminator: Trait = Trait::marker("Terminator", "ends a block");
    /// Returns control to the parent op (like `func.return`).
    pub const ReturnLike: Trait =
        Trait::marker("ReturnLike", "returns control and values to the parent op");
    /// Regions cannot see values defined above the op.
    pub const IsolatedFromAbove: Trait = Trait::marker(
        "IsolatedFromAbove",
        "regions cannot use values defined above the op",
    );
    /// All operands and results have one type.
    pub const SameOperandsAndResultType: Trait = Trait {
        verify: Some(verify_same_type),
        ..Trait::marker(
            "SameOperandsAndResultType",
            "all operands and results have one type",
        )
    };
    /// All operands have one type (results may differ).
    pub const SameTypeOperands: Trait = Trait {
        verify: Some(verify_same_type_operands),
        ..Trait::marker("SameTypeOperands", "all operands have one type")
    };
    /// All operands and results have one shape (element types may differ).
    pub const SameOperandsAndResultShape: Trait = Trait {
        verify: Some(verify_same_shape),
        ..Trait::marker(
            "SameOperandsAndResultShape",
            "all operands and results have one shape",
        )
    };
    /// All operands and results share the element type.
    pub const SameOperandsAndResultElementType: Trait = Trait {
        verify: Some(verify_same_element_type),
        ..Trait::marker(
            "SameOperandsAndResultElementType",
            "all operands and results have one element type",
        )
    };
    /// The regions hold a symbol table.
    pub const SymbolTable: Trait = Trait::marker("SymbolTable", "the region is a symbol table");
    /// The op defines a symbol (its `sym_name` property, see [`crate::symbol`]).
    pub const Symbol: Trait = Trait::marker("Symbol", "defines a symbol");
    /// Blocks of the regions need no terminator.
    pub const NoTerminator: Trait =
        Trait::marker("NoTerminator", "blocks of the regions need no terminator");
    /// Every region has at most one block.
    pub const SingleBlock: Trait = Trait::marker("SingleBlock", "regions have at most one block");
    /// Regions are graph regions: no dominance, forward references allowed.
    pub const GraphRegion: Trait = Trait::marker(
        "GraphRegion",
        "regions are graph regions (no dominance order)",
    );
    /// Produces a constant; folding it yields its `value` attribute.
    pub const ConstantLike: Trait = Trait {
        verify: Some(verify_constant_like),
        ..Trait::marker(
            "ConstantLike",
            "produces a constant, read through ConstantOpInterface",
        )
    };
    /// The op's operands are split into groups by an `operandSegmentSizes` property.
    pub const AttrSizedOperandSegments: Trait = Trait::marker(
        "AttrSizedOperandSegments",
        "operand groups are sized by `operandSegmentSizes`",
    );
    /// Reads or writes memory (not pure).
    pub const MemoryEffects: Trait = Trait::marker("MemoryEffects", "reads or writes memory");
    /// Elementwise: maps scalars to scalars, extended over shaped types.
    pub const Elementwise: Trait = Trait::marker(
        "Elementwise",
        "maps scalars to scalars, elementwise over shapes",
    );
}

fn is_constant(c: Option<&Option<Attr>>) -> bool {
    c.is_some_and(|c| c.is_some())
}

/// `op(c, x) → op(x, c)`: a constant first operand moves behind the non-constant ones (MLIR's
/// `foldCommutative`, for any number of operands).
fn fold_commutative(ctx: &mut Context, op: Op, consts: &[Option<Attr>]) -> FoldOutcome {
    let operands = ctx.operands(op).to_vec();
    if operands.len() < 2 {
        return FoldOutcome::None;
    }
    // Already sorted when no constant comes before a non-constant.
    let first_non_const = (0..operands.len()).find(|&i| !is_constant(consts.get(i)));
    let Some(first_non_const) = first_non_const else {
        return FoldOutcome::None;
    };
    if !(0..first_non_const).any(|i| is_constant(consts.get(i))) {
        return FoldOutcome::None;
    }
    let (mut non_const, mut constant) = (Vec::new(), Vec::new());
    for (i, &v) in operands.iter().enumerate() {
        if is_constant(consts.get(i)) {
            constant.push(v);
        } else {
            non_const.push(v);
        }
    }
    non_const.extend(constant);
    ctx.set_operands(op, &non_const);
    FoldOutcome::InPlace
}

/// `op(x, x) → x` for a binary op, `op(op(x)) → op(x)` for a unary one.
fn fold_idempotent(ctx: &mut Context, op: Op, _: &[Option<Attr>]) -> FoldOutcome {
    let operands = ctx.operands(op);
    if ctx.results(op).len() != 1 {
        return FoldOutcome::None;
    }
    match *operands {
        [a, b] if a == b => FoldOutcome::Replace(vec![FoldResult::Value(a)]),
        [x] => match ctx.defining_op(x) {
            Some(d) if ctx.op_name(d) == ctx.op_name(op) && ctx.props(d) == ctx.props(op) => {
                FoldOutcome::Replace(vec![FoldResult::Value(x)])
            }
            _ => FoldOutcome::None,
        },
        _ => FoldOutcome::None,
    }
}

/// `op(op(x)) → x` for a unary op.
fn fold_involution(ctx: &mut Context, op: Op, _: &[Option<Attr>]) -> FoldOutcome {
    let [x] = *ctx.operands(op) else {
        return FoldOutcome::None;
    };
    match ctx.defining_op(x) {
        Some(d)
            if ctx.op_name(d) == ctx.op_name(op)
                && ctx.props(d) == ctx.props(op)
                && ctx.operands(d).len() == 1 =>
        {
            FoldOutcome::Replace(vec![FoldResult::Value(ctx.operand(d, 0))])
        }
        _ => FoldOutcome::None,
    }
}

fn verify_constant_like(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    if ctx
        .op_interface::<dyn crate::interfaces::ConstantOpInterface>(op)
        .is_none()
    {
        return Err(ctx.op_error(
            op,
            "is ConstantLike but implements no ConstantOpInterface (invalid op declaration)",
        ));
    }
    Ok(())
}

fn verify_same_type(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let mut tys = ctx
        .operands(op)
        .iter()
        .chain(ctx.results(op))
        .map(|&v| ctx.value_type(v));
    if let Some(first) = tys.next() {
        if tys.any(|t| t != first) {
            return Err(ctx.op_error(op, "requires the same type for all operands and results"));
        }
    }
    Ok(())
}

fn verify_same_type_operands(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let mut tys = ctx.operands(op).iter().map(|&v| ctx.value_type(v));
    if let Some(first) = tys.next() {
        if tys.any(|t| t != first) {
            return Err(ctx.op_error(op, "requires all operands to have the same type"));
        }
    }
    Ok(())
}

fn verify_same_shape(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let shapes: Vec<_> = ctx
        .operands(op)
        .iter()
        .chain(ctx.results(op))
        .map(|&v| ctx.shape_of(ctx.value_type(v)))
        .collect();
    if shapes.windows(2).any(|w| w[0] != w[1]) {
        return Err(ctx.op_error(op, "requires the same shape for all operands and results"));
    }
    Ok(())
}

fn verify_same_element_type(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let elems: Vec<_> = ctx
        .operands(op)
        .iter()
        .chain(ctx.results(op))
        .map(|&v| ctx.element_type(ctx.value_type(v)))
        .collect();
    if elems.windows(2).any(|w| w[0] != w[1]) {
        return Err(ctx.op_error(
            op,
            "requires the same element type for all operands and results",
        ));
    }
    Ok(())
}
