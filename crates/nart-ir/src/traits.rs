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
//! - `SameOperandsAndResultType`, `SameOperandsAndResultShape`,
//!   `SameOperandsAndResultElementType`, `SameTypeOperands` and `Elementwise` verify what they
//!   say, with MLIR's rules: shapes are *compatible* when dynamic dimensions and unranked
//!   tensors could be equal, and fixed and scalable vectors never are;
//! - `Symbol` checks the name, the visibility and the parent of a symbol.
//!
//! Behaviour that needs methods (what a call calls, which operands a branch forwards) is an
//! interface, not a trait: see [`crate::interfaces`].

use crate::registry::{FoldOutcome, FoldResult};
use crate::{Attr, Context, Diagnostic, Op, Type, TypeData, DYNAMIC};

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
    /// The op defines a symbol (its `sym_name` property, see [`crate::symbol`]): the visibility
    /// is `public`, `private` or `nested`, a declaration (a callable without a body) is not
    /// public, and the parent, when registered, is a symbol table.
    pub const Symbol: Trait = Trait {
        verify: Some(crate::symbol::verify_symbol),
        ..Trait::marker("Symbol", "defines a symbol")
    };
    /// Blocks of the regions need no terminator.
    pub const NoTerminator: Trait =
        Trait::marker("NoTerminator", "blocks of the regions need no terminator");
    /// Any number of regions, each checked against the last declared one (upstream's
    /// `VariadicRegion`: `scf.reduce` has one per reduced value).
    pub const VariadicRegions: Trait = Trait::marker(
        "VariadicRegions",
        "any number of regions, each like the last declared one",
    );
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
    /// Elementwise: maps scalars to scalars, extended over shaped types; when any operand is a
    /// vector or tensor, every result is one, and all of them have one kind and compatible
    /// shapes. An op that infers its result shapes (`InferShapedTypeOpInterface`, the graph
    /// dialect's) is left to its inference check, which says more.
    pub const Elementwise: Trait = Trait {
        verify: Some(verify_elementwise),
        ..Trait::marker(
            "Elementwise",
            "maps scalars to scalars, elementwise over shapes",
        )
    };
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

/// MLIR's `verifyAtLeastNOperands(op, 1)` and `verifyAtLeastNResults(op, 1)`, which the
/// `Same*` traits check first.
fn at_least_one(ctx: &Context, op: Op, results: bool) -> Result<(), Diagnostic> {
    let n = ctx.operands(op).len();
    if n == 0 {
        return Err(ctx.op_error(op, format!("expected 1 or more operands, but found {n}")));
    }
    if results && ctx.results(op).is_empty() {
        return Err(ctx.op_error(op, "expected 1 or more results"));
    }
    Ok(())
}

fn types_of(ctx: &Context, op: Op) -> Vec<Type> {
    ctx.operands(op)
        .iter()
        .chain(ctx.results(op))
        .map(|&v| ctx.value_type(v))
        .collect()
}

/// The dimensions of a ranked shaped type; `Some(None)` for an unranked one, `None` for a type
/// that is not shaped.
fn dims(ctx: &Context, ty: Type) -> Option<Option<&[i64]>> {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, .. }
        | TypeData::MemRef { shape, .. }
        | TypeData::Vector { shape, .. } => Some(Some(shape)),
        TypeData::UnrankedTensor { .. } | TypeData::UnrankedMemRef { .. } => Some(None),
        _ => None,
    }
}

/// Whether the shapes of `a` and `b` may be equal (MLIR's `verifyCompatibleShape`): both are
/// scalars, or both shaped with one unranked or equal ranks whose static dimensions agree.
/// Scalable dimensions are not compared (the n-ary [`compatible_shapes`] does).
pub fn compatible_shape(ctx: &Context, a: Type, b: Type) -> bool {
    match (dims(ctx, a), dims(ctx, b)) {
        (None, None) => true,
        (Some(Some(x)), Some(Some(y))) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(&p, &q)| p == DYNAMIC || q == DYNAMIC || p == q)
        }
        (Some(_), Some(_)) => true,
        _ => false,
    }
}

/// Whether the shapes of all `types` may be equal (MLIR's `verifyCompatibleShapes`): all
/// scalars, or all shaped with no mix of scalable and other types, and the ranked ones of one
/// rank whose static dimensions agree.
pub fn compatible_shapes(ctx: &Context, types: &[Type]) -> bool {
    let shaped: Vec<_> = types.iter().map(|&t| dims(ctx, t)).collect();
    if shaped.iter().all(Option::is_none) {
        return true;
    }
    if shaped.iter().any(Option::is_none) {
        return false;
    }
    let is_scalable = |t: Type| matches!(ctx.type_data(t), TypeData::Vector { scalable, .. } if scalable.iter().any(|&s| s));
    let n_scalable = types.iter().filter(|&&t| is_scalable(t)).count();
    if n_scalable != 0 && n_scalable != types.len() {
        return false;
    }
    let ranked: Vec<&[i64]> = shaped.into_iter().flatten().flatten().collect();
    let Some(first) = ranked.first() else {
        return true;
    };
    if ranked.iter().any(|r| r.len() != first.len()) {
        return false;
    }
    (0..first.len()).all(|i| {
        let mut fixed = ranked.iter().map(|r| r[i]).filter(|&d| d != DYNAMIC);
        let first = fixed.next();
        fixed.all(|d| Some(d) == first)
    })
}

fn encoding(ctx: &Context, ty: Type) -> Option<Attr> {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { encoding, .. } => *encoding,
        _ => None,
    }
}

/// MLIR's rule: one element type, compatible shapes, and the first result's tensor encoding
/// (when it has one) on every other operand and result.
fn verify_same_type(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    at_least_one(ctx, op, true)?;
    let ty = ctx.value_type(ctx.result(op, 0));
    let elem = ctx.element_type(ty);
    let enc = encoding(ctx, ty);
    let others = ctx.results(op)[1..].iter().chain(ctx.operands(op));
    for &v in others {
        let t = ctx.value_type(v);
        if ctx.element_type(t) != elem || !compatible_shape(ctx, t, ty) {
            return Err(ctx.op_error(op, "requires the same type for all operands and results"));
        }
        if enc.is_some() && encoding(ctx, t) != enc {
            return Err(ctx.op_error(
                op,
                "requires the same encoding for all operands and results",
            ));
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
    at_least_one(ctx, op, true)?;
    if !compatible_shapes(ctx, &types_of(ctx, op)) {
        return Err(ctx.op_error(op, "requires the same shape for all operands and results"));
    }
    Ok(())
}

fn verify_same_element_type(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    at_least_one(ctx, op, true)?;
    let elem = ctx.element_type(ctx.value_type(ctx.result(op, 0)));
    let all = ctx.results(op).iter().chain(ctx.operands(op));
    for &v in all {
        if ctx.element_type(ctx.value_type(v)) != elem {
            return Err(ctx.op_error(
                op,
                "requires the same element type for all operands and results",
            ));
        }
    }
    Ok(())
}

/// MLIR's `verifyElementwise`: with no vector or tensor operand or result there is nothing to
/// check; otherwise both sides have some, every result is one, and all are of one kind (ranked
/// and unranked tensors are different kinds) with compatible shapes.
fn verify_elementwise(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    if ctx
        .op_interface::<dyn crate::interfaces::InferShapedTypeOpInterface>(op)
        .is_some()
    {
        return Ok(());
    }
    let kind = |t: Type| match ctx.type_data(t) {
        TypeData::Vector { .. } => Some(0),
        TypeData::RankedTensor { .. } => Some(1),
        TypeData::UnrankedTensor { .. } => Some(2),
        _ => None,
    };
    let mappable = |vals: &[crate::Value]| -> Vec<Type> {
        vals.iter()
            .map(|&v| ctx.value_type(v))
            .filter(|&t| kind(t).is_some())
            .collect()
    };
    let operands = mappable(ctx.operands(op));
    let results = mappable(ctx.results(op));
    if operands.is_empty() && results.is_empty() {
        return Ok(());
    }
    if operands.is_empty() {
        return Err(ctx.op_error(
            op,
            "if a result is non-scalar, then at least one operand must be non-scalar",
        ));
    }
    if results.is_empty() {
        return Err(ctx.op_error(
            op,
            "if an operand is non-scalar, then there must be at least one non-scalar result",
        ));
    }
    if results.len() != ctx.results(op).len() {
        return Err(ctx.op_error(
            op,
            "if an operand is non-scalar, then all results must be non-scalar",
        ));
    }
    let all: Vec<Type> = operands.into_iter().chain(results).collect();
    let first = kind(all[0]);
    if all.iter().any(|&t| kind(t) != first) || !compatible_shapes(ctx, &all) {
        return Err(ctx.op_error(
            op,
            "all non-scalar operands/results must have the same shape and base type",
        ));
    }
    Ok(())
}
