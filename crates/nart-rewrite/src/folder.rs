//! [`OperationFolder`]: folds ops through their [`OpDef::fold`](nart_ir::OpDef) hook and the
//! folds of their traits (`Commutative`, `Idempotent`, `Involution`), and keeps the constants it
//! produces unique.
//!
//! Constants live at the start of the entry block of the closest enclosing region whose parent
//! op is isolated from above (or is the driver's root), one per (dialect, value, type), as in
//! MLIR's `OperationFolder`.
//! Constants have no operands, so hoisting them there never breaks dominance.

use rustc_hash::FxHashMap;

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

/// Folds ops and deduplicates constants.
#[derive(Default, Debug)]
pub struct OperationFolder {
    constants: FxHashMap<Key, Op>,
    keys: FxHashMap<Op, Key>,
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
        self.keys.contains_key(&op)
    }

    /// Forgets `op` (call before or after erasing it).
    pub fn notify_erased(&mut self, op: Op) {
        if let Some(key) = self.keys.remove(&op) {
            if self.constants.get(&key) == Some(&op) {
                self.constants.remove(&key);
            }
        }
    }

    /// The region where constants used by `op` are kept.
    fn scope_of(&self, ctx: &Context, op: Op) -> Option<Region> {
        let mut cur = op;
        loop {
            let block = ctx.op_parent_block(cur)?;
            let region = ctx.block_parent_region(block)?;
            let Some(parent) = ctx.region_parent_op(region) else {
                return Some(region);
            };
            if Some(parent) == self.root || ctx.op_has_trait(parent, Trait::IsolatedFromAbove) {
                return Some(region);
            }
            cur = parent;
        }
    }

    fn entry_block(ctx: &Context, region: Region) -> Option<Block> {
        ctx.region_blocks(region).first().copied()
    }

    /// Records a `ConstantLike` op met in the IR. If an equal constant already exists in its
    /// scope, `op` is replaced by it and erased, and the existing op is returned.
    /// Otherwise `op` is moved to the entry block of its scope if it is elsewhere.
    pub fn insert_known_constant(&mut self, ctx: &mut Context, op: Op) -> Option<Op> {
        if self.keys.contains_key(&op) || ctx.results(op).len() != 1 {
            return None;
        }
        let value = nart_ir::interfaces::constant_value(ctx, op)?;
        let dialect = ctx.op_dialect(op)?.name;
        let ty = ctx.value_type(ctx.result(op, 0));
        let scope = self.scope_of(ctx, op)?;
        let entry = Self::entry_block(ctx, scope)?;
        let key = (scope, dialect, value, ty);
        if let Some(&existing) = self.constants.get(&key) {
            if existing != op && !ctx.is_erased(existing) {
                // `existing` sits in the entry block; make sure it comes before `op` there.
                if ctx.op_parent_block(op) == Some(entry) && comes_before(ctx, op, existing) {
                    ctx.move_op_before(existing, op);
                }
                let from = ctx.result(op, 0);
                let to = ctx.result(existing, 0);
                ctx.replace_all_uses(from, to);
                ctx.erase_op(op);
                return Some(existing);
            }
        }
        if ctx.op_parent_block(op) != Some(entry) {
            ctx.detach_op(op);
            ctx.prepend_op(entry, op);
        }
        self.constants.insert(key, op);
        self.keys.insert(op, key);
        None
    }

    /// The value of a constant `value: ty` in the scope of `near`, created through the
    /// materializer of `near`'s dialect when none exists yet. `None` when the dialect cannot
    /// materialize it. The second element is the op created, if any.
    pub fn get_or_create_constant(
        &mut self,
        ctx: &mut Context,
        near: Op,
        value: Attr,
        ty: Type,
    ) -> Option<(Value, Option<Op>)> {
        let dialect = ctx.op_dialect(near)?;
        let (dialect_name, materialize) = (dialect.name, dialect.materialize_constant?);
        let scope = self.scope_of(ctx, near)?;
        let entry = Self::entry_block(ctx, scope)?;
        let key = (scope, dialect_name, value, ty);
        if let Some(&existing) = self.constants.get(&key) {
            if !ctx.is_erased(existing) {
                return Some((ctx.result(existing, 0), None));
            }
        }
        let loc = ctx.op_loc(near);
        let cst = materialize(ctx, value, ty, loc)?;
        if ctx.results(cst).len() != 1 {
            ctx.erase_op(cst);
            return None;
        }
        ctx.prepend_op(entry, cst);
        self.constants.insert(key, cst);
        self.keys.insert(cst, key);
        Some((ctx.result(cst, 0), Some(cst)))
    }

    /// Tries `op`'s folder. Returns what changed, or `None` when nothing did.
    /// `ConstantLike` ops are not folded (see [`insert_known_constant`](Self::insert_known_constant)).
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
                    match self.get_or_create_constant(ctx, op, a, ty) {
                        Some((v, made)) => {
                            created.extend(made);
                            values.push(v);
                        }
                        None => {
                            for c in created {
                                self.notify_erased(c);
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
        for &v in ctx.operands(op) {
            touched.extend(ctx.defining_op(v));
        }
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

/// Whether `a` comes before `b` in their (common) block.
fn comes_before(ctx: &Context, a: Op, b: Op) -> bool {
    let mut cur = ctx.op_next(a);
    while let Some(o) = cur {
        if o == b {
            return true;
        }
        cur = ctx.op_next(o);
    }
    false
}
