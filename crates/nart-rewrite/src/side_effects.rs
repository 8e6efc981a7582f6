//! Which ops may be erased when unused (MLIR's `isOpTriviallyDead` and `wouldOpBeTriviallyDead`).

use nart_ir::registry::Trait;
use nart_ir::{Context, Op};

/// Whether `op` has no side effects: it is registered and declares `Pure` or `ConstantLike`,
/// and every op nested in its regions is pure too.
pub fn is_pure(ctx: &Context, op: Op) -> bool {
    let Some(def) = ctx.op_def(op) else {
        return false;
    };
    if !(def.has_trait(Trait::Pure) || def.has_trait(Trait::ConstantLike)) {
        return false;
    }
    ctx.nested_ops(op).into_iter().all(|inner| {
        ctx.op_def(inner).is_some_and(|d| {
            d.has_trait(Trait::Pure)
                || d.has_trait(Trait::ConstantLike)
                || d.has_trait(Trait::Terminator) && !d.has_trait(Trait::MemoryEffects)
        })
    })
}

/// Whether `op` can be erased: pure, not a terminator, no result used (MLIR's
/// `isOpTriviallyDead`).
pub fn is_op_trivially_dead(ctx: &Context, op: Op) -> bool {
    !ctx.op_has_trait(op, Trait::Terminator) && ctx.op_results_unused(op) && is_pure(ctx, op)
}
