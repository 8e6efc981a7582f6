//! The rewrite contract: a [`RewritePattern`] changes IR only through a [`PatternRewriter`],
//! which owns every mutation, so a driver always knows what changed and can undo it.
//!
//! A pattern receives `&mut PatternRewriter`, which dereferences to `&Context` for reading and
//! offers the mutations: creating and inserting ops, replacing and erasing them, updating an op
//! in place (operands, properties, attributes, successors), moving ops, and the block surgery
//! MLIR's `RewriterBase` has (create, erase, move, split, merge and inline blocks, inline regions,
//! add, insert and erase block arguments).
//! Types and attributes are built through [`PatternRewriter::uniq`], which can intern but not
//! touch the IR.
//! A pattern that does not apply says why with [`PatternRewriter::match_failure`].
//!
//! # The journal
//!
//! A driver that may have to take changes back (dialect conversion) turns on the journal with
//! [`PatternRewriter::with_journal`]. Every mutation then records how to undo it; erased ops and
//! blocks are only detached until [`PatternRewriter::commit`], so that
//! [`PatternRewriter::rollback`] to a [`Checkpoint`] can put them back. Without the journal (the
//! greedy driver) erasure is immediate.
//!
//! Invariants of the journal:
//!
//! - Rolling back to a checkpoint restores the IR exactly: the same ops, blocks and values (the
//!   same handles) in the same places with the same operands, attributes, types and locations,
//!   so the IR prints byte for byte as it did at the checkpoint. Only the order of entries in
//!   use-lists may differ; the printer does not look at it.
//! - An erased op or block that waits for the commit is detached and no longer uses any value
//!   (its operands, and those of every op nested in it, are dropped and remembered), so the
//!   use-lists describe the live IR at every point and a driver may ask `has_uses`.
//!   Such an op is not tombstoned yet: [`Context::is_erased`] is false until the commit.
//! - Ops created since a checkpoint are tombstoned when it is rolled back, so a stale handle to
//!   one answers `is_erased`.
//! - The changes reported by [`PatternRewriter::take_changes`] are cut back to the checkpoint
//!   too.
//!
//! The greedy driver lives in `nart-rewrite`; patterns live here so that op definitions can list
//! their canonicalizations.

use crate::builder::{InsertPoint, OpBuilder};
use crate::{
    Attr, Block, Context, Location, NamedAttr, Op, OperationState, Region, Type, Uniquer, Use,
    Value, WalkOrder,
};

/// A rewrite of one op. Implementations return `true` only when they changed the IR; a pattern
/// that changes nothing returns `false`, ideally through
/// [`PatternRewriter::match_failure`] with the reason.
pub trait RewritePattern: Sync {
    /// Name, after the left-hand side (`AddIAddConstant`).
    fn name(&self) -> &'static str;
    /// The op name this pattern matches, or `None` for any op.
    fn root(&self) -> Option<&'static str>;
    /// Higher benefits are tried first.
    fn benefit(&self) -> u16 {
        1
    }
    /// Matches `op` and rewrites it.
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool;
    /// Checks the pattern's own declaration against the ops registered in `ctx`, saying what is
    /// wrong; dialects call it on each of their patterns in a unit test. Declarative
    /// [rules](crate::rule::Rule) check their text; a hand-written pattern has nothing to check.
    fn check(&self, _ctx: &Context) -> Result<(), String> {
        Ok(())
    }
}

/// A position in the journal to roll back to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Checkpoint {
    journal: usize,
    created: usize,
    erased: usize,
    modified: usize,
}

/// The operands of an op (and of the ops nested in it) dropped while it waits for the commit.
type DroppedOperands = Vec<(Op, Vec<Value>)>;

/// One undoable change.
#[derive(Debug)]
enum Action {
    /// An op was created and inserted: undo erases it.
    Created(Op),
    /// A detached op was inserted: undo detaches it.
    Inserted(Op),
    /// An op moved from (block, next): undo moves it back.
    Moved {
        op: Op,
        block: Option<Block>,
        next: Option<Op>,
    },
    /// The operands of an op were replaced.
    Operands { op: Op, old: Vec<Value> },
    /// The properties of an op were replaced.
    Props { op: Op, old: Vec<NamedAttr> },
    /// The discardable attributes of an op were replaced.
    Attrs { op: Op, old: Vec<NamedAttr> },
    /// A successor of an op was replaced.
    Successor { op: Op, index: usize, old: Block },
    /// The location of an op was replaced.
    Loc { op: Op, old: Location },
    /// Uses of `from` were redirected: undo points them back.
    Uses { from: Value, uses: Vec<Use> },
    /// An op was erased: it is detached and uses nothing until commit.
    Erased {
        op: Op,
        block: Option<Block>,
        next: Option<Op>,
        operands: DroppedOperands,
    },
    /// A block was created (and maybe inserted).
    BlockCreated(Block),
    /// A block was erased: detached, its ops using nothing, until commit.
    BlockErased {
        block: Block,
        region: Option<Region>,
        index: usize,
        operands: DroppedOperands,
    },
    /// A block moved from position `index` of `region` (or from nowhere).
    BlockMoved {
        block: Block,
        region: Option<Region>,
        index: usize,
    },
    /// A block argument was added at the end.
    ArgAdded { block: Block },
    /// A block argument was inserted at `index`.
    ArgInserted { block: Block, index: usize },
    /// A block argument (without uses) was removed.
    ArgErased {
        block: Block,
        index: usize,
        value: Value,
    },
    /// The type of a value changed.
    ValueType { value: Value, old: Type },
}

/// Changes IR on behalf of patterns and remembers what changed.
pub struct PatternRewriter<'c> {
    ctx: &'c mut Context,
    ip: InsertPoint,
    created: Vec<Op>,
    erased: Vec<Op>,
    modified: Vec<Op>,
    journal: Option<Vec<Action>>,
    match_failure: Option<String>,
}

impl std::ops::Deref for PatternRewriter<'_> {
    type Target = Context;
    fn deref(&self) -> &Context {
        self.ctx
    }
}

impl OpBuilder for PatternRewriter<'_> {
    fn uniq(&mut self) -> &mut Uniquer {
        self.ctx.uniquer()
    }
    fn create(&mut self, state: OperationState) -> Op {
        PatternRewriter::create(self, state)
    }
    fn new_region(&mut self) -> Region {
        self.ctx.create_region()
    }
}

impl<'c> PatternRewriter<'c> {
    /// A rewriter over `ctx` with a detached insertion point and no journal.
    pub fn new(ctx: &'c mut Context) -> Self {
        PatternRewriter {
            ctx,
            ip: InsertPoint::Detached,
            created: Vec::new(),
            erased: Vec::new(),
            modified: Vec::new(),
            journal: None,
            match_failure: None,
        }
    }

    /// Turns the journal on (see the module docs).
    pub fn with_journal(mut self) -> Self {
        self.journal = Some(Vec::new());
        self
    }

    /// The uniquer, to build types and attributes.
    pub fn uniq(&mut self) -> &mut Uniquer {
        self.ctx.uniquer()
    }

    // ----- driver side -----

    /// Takes the recorded changes since the last call: (created, erased, modified).
    pub fn take_changes(&mut self) -> (Vec<Op>, Vec<Op>, Vec<Op>) {
        (
            std::mem::take(&mut self.created),
            std::mem::take(&mut self.erased),
            std::mem::take(&mut self.modified),
        )
    }

    /// Takes the reason the last pattern gave for not applying.
    pub fn take_match_failure(&mut self) -> Option<String> {
        self.match_failure.take()
    }

    /// Whether the journal is on.
    pub fn has_journal(&self) -> bool {
        self.journal.is_some()
    }

    /// The current position of the journal and of the recorded changes.
    pub fn checkpoint(&self) -> Checkpoint {
        debug_assert!(self.journal.is_some(), "checkpoint needs the journal on");
        Checkpoint {
            journal: self.journal.as_ref().map_or(0, Vec::len),
            created: self.created.len(),
            erased: self.erased.len(),
            modified: self.modified.len(),
        }
    }

    /// Undoes every change made since `cp`, newest first, and forgets the changes recorded
    /// for [`take_changes`](Self::take_changes) since then (when they were not taken yet).
    /// `cp` must come from [`checkpoint`](Self::checkpoint) on this rewriter, with no
    /// [`commit`](Self::commit) since.
    pub fn rollback(&mut self, cp: Checkpoint) {
        let Some(journal) = self.journal.as_mut() else {
            debug_assert!(false, "rollback needs the journal on");
            return;
        };
        debug_assert!(
            cp.journal <= journal.len(),
            "a checkpoint from before a commit"
        );
        let undo: Vec<Action> = journal.drain(cp.journal.min(journal.len())..).collect();
        for a in undo.into_iter().rev() {
            self.undo(a);
        }
        self.created.truncate(cp.created);
        self.erased.truncate(cp.erased);
        self.modified.truncate(cp.modified);
    }

    /// Makes the journaled changes final: pending erasures happen now (the ops and blocks
    /// become tombstones) and the journal empties. Earlier checkpoints are invalid afterwards.
    pub fn commit(&mut self) {
        let Some(journal) = self.journal.as_mut() else {
            return;
        };
        let actions = std::mem::take(journal);
        let mut ops = Vec::new();
        let mut blocks = Vec::new();
        for a in actions {
            match a {
                Action::Erased { op, .. } => ops.push(op),
                Action::BlockErased { block, .. } => blocks.push(block),
                _ => {}
            }
        }
        // Pending erasures use nothing already; dropping again only guards the invariant.
        for &op in &ops {
            self.ctx.drop_all_uses(op);
        }
        for op in ops.into_iter().rev() {
            if !self.ctx.is_erased(op) {
                self.ctx.erase_op(op);
            }
        }
        for b in blocks.into_iter().rev() {
            if !self.ctx.is_block_erased(b) {
                self.ctx.erase_block(b);
            }
        }
    }

    /// Drops the uses made by `op` and every op nested in it, returning them to restore.
    fn drop_uses_rec(&mut self, op: Op, out: &mut DroppedOperands) {
        for o in self.ctx.collect_ops(op, WalkOrder::PreOrder) {
            let vals = self.ctx.operands(o).to_vec();
            if !vals.is_empty() {
                self.ctx.set_operands(o, &[]);
                out.push((o, vals));
            }
        }
    }

    fn restore_operands(&mut self, operands: DroppedOperands) {
        for (o, vals) in operands.into_iter().rev() {
            self.ctx.set_operands(o, &vals);
        }
    }

    fn record(&mut self, a: Action) {
        if let Some(j) = self.journal.as_mut() {
            j.push(a);
        }
    }

    fn position(&self, op: Op) -> (Option<Block>, Option<Op>) {
        (self.ctx.op_parent_block(op), self.ctx.op_next(op))
    }

    fn put_back(&mut self, op: Op, block: Option<Block>, next: Option<Op>) {
        self.ctx.detach_op(op);
        match (block, next) {
            (_, Some(n)) => self.ctx.insert_op_before(n, op),
            (Some(b), None) => self.ctx.append_op(b, op),
            (None, None) => {}
        }
    }

    fn undo(&mut self, a: Action) {
        match a {
            Action::Created(op) => {
                if !self.ctx.is_erased(op) {
                    self.ctx.erase_op(op);
                }
            }
            Action::Inserted(op) => self.ctx.detach_op(op),
            Action::Moved { op, block, next } => self.put_back(op, block, next),
            Action::Erased {
                op,
                block,
                next,
                operands,
            } => {
                self.put_back(op, block, next);
                self.restore_operands(operands);
            }
            Action::Operands { op, old } => self.ctx.set_operands(op, &old),
            Action::Props { op, old } => self.ctx.set_all_props(op, old),
            Action::Attrs { op, old } => self.ctx.set_all_attrs(op, old),
            Action::Successor { op, index, old } => self.ctx.set_successor(op, index, old),
            Action::Loc { op, old } => self.ctx.set_op_loc(op, old),
            Action::Uses { from, uses } => {
                for u in uses {
                    self.ctx.set_operand(u.op, u.index as usize, from);
                }
            }
            Action::BlockCreated(b) => {
                self.ctx.detach_block(b);
                self.ctx.mark_block_erased(b);
            }
            Action::BlockErased {
                block,
                region,
                index,
                operands,
            } => {
                if let Some(r) = region {
                    self.ctx.insert_block(r, index, block);
                }
                self.restore_operands(operands);
            }
            Action::BlockMoved {
                block,
                region,
                index,
            } => {
                self.ctx.detach_block(block);
                if let Some(r) = region {
                    self.ctx.insert_block(r, index, block);
                }
            }
            Action::ArgAdded { block } => {
                let n = self.ctx.block_args(block).len();
                self.ctx.erase_block_arg(block, n - 1);
            }
            Action::ArgInserted { block, index } => self.ctx.erase_block_arg(block, index),
            Action::ArgErased {
                block,
                index,
                value,
            } => self.ctx.reinsert_block_arg(block, index, value),
            Action::ValueType { value, old } => self.ctx.set_value_type(value, old),
        }
    }

    // ----- match failures -----

    /// Records why a pattern does not apply and returns `false`, for
    /// `return rw.match_failure("operand is not a constant")`.
    pub fn match_failure(&mut self, reason: impl Into<String>) -> bool {
        self.match_failure = Some(reason.into());
        false
    }

    // ----- insertion point -----

    /// The insertion point.
    pub fn insertion_point(&self) -> InsertPoint {
        self.ip
    }

    /// Sets the insertion point before `op`.
    pub fn set_insertion_point_before(&mut self, op: Op) {
        self.ip = InsertPoint::Before(op);
    }

    /// Sets the insertion point after `op`.
    pub fn set_insertion_point_after(&mut self, op: Op) {
        self.ip = InsertPoint::After(op);
    }

    /// Sets the insertion point to the end of `block`.
    pub fn set_insertion_point_to_end(&mut self, block: Block) {
        self.ip = InsertPoint::BlockEnd(block);
    }

    /// Sets the insertion point to the start of `block`.
    pub fn set_insertion_point_to_start(&mut self, block: Block) {
        self.ip = InsertPoint::BlockStart(block);
    }

    /// Sets any insertion point.
    pub fn set_insertion_point(&mut self, ip: InsertPoint) {
        self.ip = ip;
    }

    // ----- creating ops -----

    /// Creates an op at the insertion point.
    pub fn create(&mut self, state: OperationState) -> Op {
        let op = self.ctx.create_op(state);
        crate::builder::insert_at(self.ctx, &mut self.ip, op);
        self.created.push(op);
        self.record(Action::Created(op));
        op
    }

    /// Inserts an already created, detached op at the insertion point.
    pub fn insert(&mut self, op: Op) {
        crate::builder::insert_at(self.ctx, &mut self.ip, op);
        self.created.push(op);
        self.record(Action::Inserted(op));
    }

    /// Clones `op` (with its regions) and inserts the clone at the insertion point.
    pub fn clone_op(&mut self, op: Op) -> Op {
        let mut map = crate::IrMapping::default();
        let new = self.ctx.clone_op(op, &mut map);
        crate::builder::insert_at(self.ctx, &mut self.ip, new);
        self.created.push(new);
        self.record(Action::Created(new));
        new
    }

    // ----- replacing and erasing -----

    fn note_users(&mut self, v: Value) {
        for u in self.ctx.uses(v) {
            self.modified.push(u.op);
        }
    }

    /// Replaces every use of `from` with `to`.
    pub fn replace_all_uses_with(&mut self, from: Value, to: Value) {
        self.replace_uses_where(from, to, |_| true);
    }

    /// Replaces the uses of `from` by users for which `pred(user)` holds.
    pub fn replace_uses_where(&mut self, from: Value, to: Value, mut pred: impl FnMut(Op) -> bool) {
        if from == to {
            return;
        }
        let moved: Vec<Use> = self
            .ctx
            .uses(from)
            .iter()
            .copied()
            .filter(|u| pred(u.op))
            .collect();
        if moved.is_empty() {
            return;
        }
        self.modified.extend(moved.iter().map(|u| u.op));
        for u in &moved {
            self.ctx.set_operand(u.op, u.index as usize, to);
        }
        self.record(Action::Uses { from, uses: moved });
    }

    /// Replaces `op`'s results with `values` (one per result) and erases it.
    pub fn replace_op(&mut self, op: Op, values: &[Value]) {
        let results = self.ctx.results(op).to_vec();
        debug_assert_eq!(
            results.len(),
            values.len(),
            "replace_op needs one value per result"
        );
        for (r, &v) in results.iter().zip(values) {
            self.replace_all_uses_with(*r, v);
        }
        self.erase_op(op);
    }

    /// Creates an op from `state` before `op` and replaces `op` with its results.
    pub fn replace_op_with_new(&mut self, op: Op, state: OperationState) -> Op {
        self.set_insertion_point_before(op);
        let new = self.create(state);
        let results = self.ctx.results(new).to_vec();
        self.replace_op(op, &results);
        new
    }

    /// Erases `op` and everything nested in it; its results must be unused (outside `op`).
    /// With the journal on, the op is detached and drops the uses it makes until the commit.
    pub fn erase_op(&mut self, op: Op) {
        debug_assert!(
            self.ctx.results(op).iter().all(|&r| self
                .ctx
                .uses(r)
                .iter()
                .all(|u| self.ctx.is_ancestor(op, u.op))),
            "invariant: the results of an erased op are unused"
        );
        self.note_operand_defs(op);
        self.erased.push(op);
        if self.journal.is_some() {
            let (block, next) = self.position(op);
            self.ctx.detach_op(op);
            let mut operands = Vec::new();
            self.drop_uses_rec(op, &mut operands);
            self.record(Action::Erased {
                op,
                block,
                next,
                operands,
            });
        } else {
            self.ctx.erase_op(op);
        }
    }

    /// The ops defining `op`'s operands may become dead: let the driver look at them again.
    fn note_operand_defs(&mut self, op: Op) {
        for &v in self.ctx.operands(op) {
            if let Some(d) = self.ctx.defining_op(v) {
                self.modified.push(d);
            }
        }
    }

    // ----- updating an op in place -----

    /// Replaces every operand of `op`.
    pub fn set_operands(&mut self, op: Op, values: &[Value]) {
        let old = self.ctx.operands(op).to_vec();
        self.note_operand_defs(op);
        self.ctx.set_operands(op, values);
        self.modified.push(op);
        self.record(Action::Operands { op, old });
    }

    /// Replaces operand `index` of `op`.
    pub fn set_operand(&mut self, op: Op, index: usize, value: Value) {
        let mut values = self.ctx.operands(op).to_vec();
        values[index] = value;
        self.set_operands(op, &values);
    }

    /// Sets (or adds) the property `name` of `op`.
    pub fn set_prop(&mut self, op: Op, name: &str, value: Attr) {
        let old = self.ctx.props(op).to_vec();
        self.ctx.set_prop(op, name, value);
        self.modified.push(op);
        self.record(Action::Props { op, old });
    }

    /// Sets (or adds) the discardable attribute `name` of `op`.
    pub fn set_attr(&mut self, op: Op, name: &str, value: Attr) {
        let old = self.ctx.attrs(op).to_vec();
        self.ctx.set_attr(op, name, value);
        self.modified.push(op);
        self.record(Action::Attrs { op, old });
    }

    /// Removes the attribute or property `name` of `op`, returning it.
    pub fn remove_attr(&mut self, op: Op, name: &str) -> Option<Attr> {
        let (props, attrs) = (self.ctx.props(op).to_vec(), self.ctx.attrs(op).to_vec());
        let removed = self.ctx.remove_attr(op, name);
        if removed.is_some() {
            self.modified.push(op);
            self.record(Action::Props { op, old: props });
            self.record(Action::Attrs { op, old: attrs });
        }
        removed
    }

    /// Replaces successor `index` of `op`.
    pub fn set_successor(&mut self, op: Op, index: usize, block: Block) {
        let old = self.ctx.successors(op)[index];
        self.ctx.set_successor(op, index, block);
        self.modified.push(op);
        self.record(Action::Successor { op, index, old });
    }

    /// Sets the location of `op`.
    pub fn set_loc(&mut self, op: Op, loc: Location) {
        let old = self.ctx.op_loc(op);
        self.ctx.set_op_loc(op, loc);
        self.modified.push(op);
        self.record(Action::Loc { op, old });
    }

    /// Changes the type of `value` (a result or block argument), for type conversion.
    pub fn set_value_type(&mut self, value: Value, ty: Type) {
        let old = self.ctx.value_type(value);
        self.ctx.set_value_type(value, ty);
        self.note_users(value);
        if let Some(d) = self.ctx.defining_op(value) {
            self.modified.push(d);
        }
        self.record(Action::ValueType { value, old });
    }

    // ----- moving ops -----

    fn move_op(&mut self, op: Op, place: impl FnOnce(&mut Context)) {
        let (block, next) = self.position(op);
        self.ctx.detach_op(op);
        place(self.ctx);
        self.modified.push(op);
        self.record(Action::Moved { op, block, next });
    }

    /// Moves `op` to just before `anchor`.
    pub fn move_op_before(&mut self, op: Op, anchor: Op) {
        self.move_op(op, |ctx| ctx.insert_op_before(anchor, op));
    }

    /// Moves `op` to just after `anchor`.
    pub fn move_op_after(&mut self, op: Op, anchor: Op) {
        self.move_op(op, |ctx| ctx.insert_op_after(anchor, op));
    }

    /// Moves `op` to the end of `block`.
    pub fn move_op_to_end(&mut self, op: Op, block: Block) {
        self.move_op(op, |ctx| ctx.append_op(block, op));
    }

    // ----- blocks -----

    /// Creates a detached, empty region to hand to an op being created (in its
    /// [`OperationState`]); it becomes part of the IR, and of the journal, with that op.
    pub fn create_region(&mut self) -> Region {
        self.ctx.create_region()
    }

    /// Creates a block with arguments of `arg_types` and inserts it into `region` before
    /// `before` (at the end when `None`). The insertion point moves to its end.
    pub fn create_block(
        &mut self,
        region: Region,
        before: Option<Block>,
        arg_types: &[Type],
        loc: Location,
    ) -> Block {
        let b = self.ctx.create_block(arg_types, loc);
        let index =
            before.and_then(|x| self.ctx.region_blocks(region).iter().position(|&y| y == x));
        debug_assert!(
            before.is_none() || index.is_some(),
            "the block to insert before is in the region"
        );
        match index {
            Some(i) => self.ctx.insert_block(region, i, b),
            None => self.ctx.append_block(region, b),
        }
        self.record(Action::BlockCreated(b));
        self.ip = InsertPoint::BlockEnd(b);
        b
    }

    fn block_index(&self, b: Block) -> Option<usize> {
        let r = self.ctx.block_parent_region(b)?;
        self.ctx.region_blocks(r).iter().position(|&x| x == b)
    }

    /// Erases `block` and its ops; its arguments and results must be unused outside it.
    /// With the journal on, the block is detached and its ops drop their uses until the commit.
    pub fn erase_block(&mut self, block: Block) {
        for op in self.ctx.block_ops(block) {
            self.erased.push(op);
            self.note_operand_defs(op);
        }
        if self.journal.is_some() {
            let region = self.ctx.block_parent_region(block);
            let index = self.block_index(block).unwrap_or(0);
            self.ctx.detach_block(block);
            let mut operands = Vec::new();
            for op in self.ctx.block_ops(block) {
                self.drop_uses_rec(op, &mut operands);
            }
            self.record(Action::BlockErased {
                block,
                region,
                index,
                operands,
            });
        } else {
            self.ctx.erase_block(block);
        }
    }

    /// Moves every block of `region` into `dest` before `before` (at the end when `None`),
    /// in order, leaving `region` empty (MLIR's `inlineRegionBefore`).
    pub fn inline_region_before(&mut self, region: Region, dest: Region, before: Option<Block>) {
        let blocks = self.ctx.region_blocks(region).to_vec();
        for b in blocks {
            self.move_block_before(b, dest, before);
        }
    }

    /// Moves `block` (with its ops) into `dest` before `before` (at the end when `None`).
    pub fn move_block_before(&mut self, block: Block, dest: Region, before: Option<Block>) {
        let region = self.ctx.block_parent_region(block);
        let index = self.block_index(block).unwrap_or(0);
        self.ctx.detach_block(block);
        let at = before.and_then(|x| self.ctx.region_blocks(dest).iter().position(|&y| y == x));
        debug_assert!(
            before.is_none() || at.is_some(),
            "the block to move before is in the destination region"
        );
        match at {
            Some(i) => self.ctx.insert_block(dest, i, block),
            None => self.ctx.append_block(dest, block),
        }
        for op in self.ctx.block_ops(block) {
            self.modified.push(op);
        }
        self.record(Action::BlockMoved {
            block,
            region,
            index,
        });
    }

    /// Appends an argument of type `ty` to `block`.
    pub fn add_block_arg(&mut self, block: Block, ty: Type, loc: Location) -> Value {
        let v = self.ctx.add_block_arg(block, ty, loc);
        self.record(Action::ArgAdded { block });
        v
    }

    /// Inserts an argument of type `ty` at position `index` of `block`.
    pub fn insert_block_arg(
        &mut self,
        block: Block,
        index: usize,
        ty: Type,
        loc: Location,
    ) -> Value {
        let v = self.ctx.insert_block_arg(block, index, ty, loc);
        self.record(Action::ArgInserted { block, index });
        v
    }

    /// Removes argument `index` of `block`, which must be unused.
    pub fn erase_block_arg(&mut self, block: Block, index: usize) {
        let value = self.ctx.block_args(block)[index];
        self.ctx.erase_block_arg(block, index);
        self.record(Action::ArgErased {
            block,
            index,
            value,
        });
    }

    /// Moves the ops of `source` before `anchor`, replacing uses of `source`'s arguments with
    /// `args`, then erases `source` (MLIR's `inlineBlockBefore`).
    pub fn inline_block_before(&mut self, source: Block, anchor: Op, args: &[Value]) {
        self.replace_block_args(source, args);
        for op in self.ctx.block_ops(source) {
            self.move_op_before(op, anchor);
        }
        self.erase_block(source);
    }

    /// Moves the ops of `source` to the end of `dest`, replacing uses of `source`'s arguments
    /// with `args`, then erases `source` (MLIR's `mergeBlocks`).
    pub fn merge_blocks(&mut self, source: Block, dest: Block, args: &[Value]) {
        self.replace_block_args(source, args);
        for op in self.ctx.block_ops(source) {
            self.move_op_to_end(op, dest);
        }
        self.erase_block(source);
    }

    fn replace_block_args(&mut self, block: Block, args: &[Value]) {
        let params = self.ctx.block_args(block).to_vec();
        debug_assert_eq!(params.len(), args.len(), "one value per block argument");
        for (p, &a) in params.into_iter().zip(args) {
            self.replace_all_uses_with(p, a);
        }
    }

    /// Splits `block` before `op`: `op` and the ops after it move to a new block, inserted
    /// right after `block`, which is returned (MLIR's `splitBlock`). The insertion point does
    /// not change.
    pub fn split_block(&mut self, block: Block, op: Op) -> Block {
        let ip = self.ip;
        let region = self
            .ctx
            .block_parent_region(block)
            .expect("invariant: a block being split is in a region");
        let after = self
            .block_index(block)
            .and_then(|i| self.ctx.region_blocks(region).get(i + 1).copied());
        let loc = self.ctx.op_loc(op);
        let new = self.create_block(region, after, &[], loc);
        let mut cur = Some(op);
        while let Some(o) = cur {
            cur = self.ctx.op_next(o);
            self.move_op_to_end(o, new);
        }
        self.ip = ip;
        new
    }
}

#[cfg(test)]
mod tests;
