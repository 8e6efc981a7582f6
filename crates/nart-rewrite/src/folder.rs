//! [`OperationFolder`]: folds ops through their [`OpDef::fold`](nart_ir::OpDef) hook and the
//! folds of their traits (`Commutative`, `Idempotent`, `Involution`), and keeps the constants
//! met in the IR unique, as MLIR's greedy driver and `OperationFolder` do.
//!
//! A fold that produces attributes materializes them as constants right before the folded op,
//! through the materializer of the op's dialect; nothing is uniqued or hoisted then.
//! Constants are uniqued and hoisted when the driver meets them at the start of a sweep
//! ([`OperationFolder::insert_known_constant`]): they live at the start of the entry block of
//! the closest enclosing region whose parent op is isolated from above, unregistered (it may be
//! isolated), or the driver's root, one per (dialect, value, type).
//! A constant already at the start of that block, or right after another uniqued constant,
//! stays where it is; any other moves to the very start, so constants met later come first,
//! exactly as upstream orders them.
//! Constants have no operands, so hoisting them never breaks dominance.

use rustc_hash::{FxHashMap, FxHashSet};

use nart_ir::registry::{FoldOutcome, FoldResult, Trait};
use nart_ir::{Attr, Block, Context, Op, Region, Type, Value};

/// The uniquing key of a constant.
type Key = (Region, &'static str, Attr, Type);

/// What a successful fold did.
#[derive(Debug, Default, Clone)]
pub struct FoldChange {
    /// The op was updated in place (it stays).
    pub in_place: bool,
    /// Constants created for the fold.
    pub created: Vec<Op>,
    /// Ops to revisit: users of replaced results and definers of the erased op's operands.
    pub touched: Vec<Op>,
}

/// What [`OperationFolder::insert_known_constant`] did with a constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnownConstant {
    /// The constant is now the unique one of its value in its scope (maybe after a move).
    Kept,
    /// An equal constant existed: the op was replaced by it and erased.
    Replaced(Op),
    /// The op is not a constant the folder can track (it stays as it is).
    Ignored,
}

/// Folds ops and deduplicates constants.
#[derive(Default, Debug)]
pub struct OperationFolder {
    constants: FxHashMap<Key, Op>,
    owned: FxHashSet<Op>,
    root: Option<Op>,
}

impl OperationFolder {
    /// A folder whose constant scopes stop at `root` (constants never leave `root`).
    pub fn new(root: Option<Op>) -> OperationFolder {
        OperationFolder {
            root,
            ..OperationFolder::default()
        }
    }

    /// The constant value of `v`, through its defining op's `ConstantOpInterface`.
    pub fn constant_value(ctx: &Context, v: Value) -> Option<Attr> {
        nart_ir::interfaces::constant_of(ctx, v)
    }

    /// Whether the folder tracks `op` as a uniqued constant.
    pub fn is_folder_constant(&self, op: Op) -> bool {
        self.owned.contains(&op)
    }

    /// Forgets `op` (call before or after erasing it).
    pub fn notify_erased(&mut self, op: Op) {
        if self.owned.remove(&op) {
            self.constants.retain(|_, c| *c != op);
        }
    }

    /// The region where the constants of `block` are kept (MLIR's `getInsertionRegion`).
    fn insertion_region(&self, ctx: &Context, mut block: Block) -> Option<Region> {
        loop {
            let region = ctx.block_parent_region(block)?;
            let Some(parent) = ctx.region_parent_op(region) else {
                return Some(region);
            };
            let isolated = ctx
                .op_def(parent)
                .is_none_or(|d| d.has_trait(Trait::IsolatedFromAbove));
            if isolated || Some(parent) == self.root {
                return Some(region);
            }
            match ctx.op_parent_block(parent) {
                Some(b) => block = b,
                None => return Some(region),
            }
        }
    }

    /// Records a constant met in the IR (MLIR's `OperationFolder::insertKnownConstant`).
    /// If an equal constant already exists in its scope, `op` is replaced by it and erased.
    /// Otherwise `op` becomes the scope's constant of its value, moved to the start of the
    /// scope's entry block unless it is there already or follows another uniqued constant.
    /// A constant that moves to another block, or absorbs another, loses its location
    /// (`loc(unknown)`), as upstream.
    pub fn insert_known_constant(&mut self, ctx: &mut Context, op: Op) -> KnownConstant {
        if ctx.results(op).len() != 1 {
            return KnownConstant::Ignored;
        }
        let Some(block) = ctx.op_parent_block(op) else {
            return KnownConstant::Ignored;
        };
        let unknown = ctx.unknown_loc();
        if self.owned.contains(&op) {
            if ctx.block_first_op(block) != Some(op)
                && !ctx.op_prev(op).is_some_and(|p| self.owned.contains(&p))
            {
                ctx.detach_op(op);
                ctx.prepend_op(block, op);
                ctx.set_op_loc(op, unknown);
            }
            return KnownConstant::Kept;
        }
        let Some(value) = nart_ir::interfaces::constant_value(ctx, op) else {
            return KnownConstant::Ignored;
        };
        let (Some(dialect), Some(region)) = (
            ctx.op_dialect(op).map(|d| d.name),
            self.insertion_region(ctx, block),
        ) else {
            return KnownConstant::Ignored;
        };
        let Some(&entry) = ctx.region_blocks(region).first() else {
            return KnownConstant::Ignored;
        };
        let ty = ctx.value_type(ctx.result(op, 0));
        let key = (region, dialect, value, ty);
        if let Some(&existing) = self.constants.get(&key) {
            if existing != op && !ctx.is_erased(existing) {
                let (from, to) = (ctx.result(op, 0), ctx.result(existing, 0));
                ctx.replace_all_uses(from, to);
                ctx.erase_op(op);
                ctx.set_op_loc(existing, unknown);
                return KnownConstant::Replaced(existing);
            }
        }
        if block != entry {
            ctx.detach_op(op);
            ctx.prepend_op(entry, op);
            ctx.set_op_loc(op, unknown);
        } else if ctx.block_first_op(entry) != Some(op)
            && !ctx.op_prev(op).is_some_and(|p| self.owned.contains(&p))
        {
            ctx.detach_op(op);
            ctx.prepend_op(entry, op);
        }
        self.constants.insert(key, op);
        self.owned.insert(op);
        KnownConstant::Kept
    }

    /// Tries `op`'s folder. Returns what changed, or `None` when nothing did.
    /// `ConstantLike` ops are not folded: that would only rematerialize them.
    pub fn try_fold(&mut self, ctx: &mut Context, op: Op) -> Option<FoldChange> {
        let def = ctx.op_def(op)?;
        let has_trait_fold = def.traits.iter().any(|t| t.fold.is_some());
        if def.has_trait(Trait::ConstantLike) || (def.fold.is_none() && !has_trait_fold) {
            return None;
        }
        let consts: Vec<Option<Attr>> = ctx
            .operands(op)
            .iter()
            .map(|&v| Self::constant_value(ctx, v))
            .collect();
        // As MLIR: the op's own folder first; when it finds nothing or updates the op in
        // place, the folds of its traits (a commutative op moves its constants right).
        let mut outcome = def.fold.map_or(FoldOutcome::None, |f| f(ctx, op, &consts));
        if matches!(outcome, FoldOutcome::None | FoldOutcome::InPlace) {
            for t in def.traits {
                let Some(fold) = t.fold else { continue };
                let consts: Vec<Option<Attr>> = ctx
                    .operands(op)
                    .iter()
                    .map(|&v| Self::constant_value(ctx, v))
                    .collect();
                match fold(ctx, op, &consts) {
                    FoldOutcome::None => {}
                    FoldOutcome::InPlace => outcome = FoldOutcome::InPlace,
                    replace @ FoldOutcome::Replace(_) => {
                        outcome = replace;
                        break;
                    }
                }
            }
        }
        match outcome {
            FoldOutcome::None => None,
            FoldOutcome::InPlace => Some(FoldChange {
                in_place: true,
                touched: vec![op],
                ..FoldChange::default()
            }),
            FoldOutcome::Replace(results) => self.replace_with_fold_results(ctx, op, &results),
        }
    }

    /// Materializes `value: ty` as a constant of `near`'s dialect right before `near`.
    fn materialize_before(ctx: &mut Context, near: Op, value: Attr, ty: Type) -> Option<Op> {
        let materialize = ctx.op_dialect(near)?.materialize_constant?;
        let loc = ctx.op_loc(near);
        let cst = materialize(ctx, value, ty, loc)?;
        if ctx.results(cst).len() != 1 {
            ctx.erase_op(cst);
            return None;
        }
        ctx.insert_op_before(near, cst);
        Some(cst)
    }

    fn replace_with_fold_results(
        &mut self,
        ctx: &mut Context,
        op: Op,
        results: &[FoldResult],
    ) -> Option<FoldChange> {
        let old: Vec<Value> = ctx.results(op).to_vec();
        if results.len() != old.len() {
            return None;
        }
        let mut created = Vec::new();
        let mut values = Vec::with_capacity(results.len());
        for (i, r) in results.iter().enumerate() {
            match *r {
                FoldResult::Value(v) => values.push(v),
                FoldResult::Attr(a) => {
                    let ty = ctx.value_type(old[i]);
                    match Self::materialize_before(ctx, op, a, ty) {
                        Some(c) => {
                            values.push(ctx.result(c, 0));
                            created.push(c);
                        }
                        None => {
                            for c in created {
                                ctx.erase_op(c);
                            }
                            return None;
                        }
                    }
                }
            }
        }
        if values == old {
            return None;
        }
        let mut touched: Vec<Op> = Vec::new();
        for &r in &old {
            touched.extend(ctx.uses(r).iter().map(|u| u.op));
        }
        touched.extend(operand_definers_to_revisit(ctx, op));
        ctx.replace_op(op, &values);
        self.notify_erased(op);
        touched.retain(|&t| t != op);
        Some(FoldChange {
            in_place: false,
            created,
            touched,
        })
    }
}

/// The definers of `op`'s operands worth revisiting once `op` is erased: those whose value
/// has at most one other user, so that it may become dead or simplify (MLIR's
/// `addOperandsToWorklist`).
pub(crate) fn operand_definers_to_revisit(ctx: &Context, op: Op) -> Vec<Op> {
    let mut out = Vec::new();
    for &v in ctx.operands(op) {
        let Some(def) = ctx.defining_op(v) else {
            continue;
        };
        let mut others = ctx.uses(v).iter().map(|u| u.op).filter(|&u| u != op);
        let first = others.next();
        if others.all(|u| Some(u) == first) {
            out.push(def);
        }
    }
    out
}
