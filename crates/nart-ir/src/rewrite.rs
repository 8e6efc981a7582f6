//! The rewrite contract: a [`RewritePattern`] changes IR only through a [`PatternRewriter`],
//! which records what was created, erased and modified so that a driver can revisit it.
//! The greedy driver lives in `nart-rewrite`; patterns live here so that op definitions can
//! list their canonicalizations.

use crate::builder::{Builder, InsertPoint};
use crate::{Context, Op, OperationState, Value};

/// A rewrite of one op. Implementations return `true` only when they changed the IR.
pub trait RewritePattern: Sync {
    /// Name, after the left-hand side (`AddIZero`).
    fn name(&self) -> &'static str;
    /// The op name this pattern matches, or `None` for any op.
    fn root(&self) -> Option<&'static str>;
    /// Higher benefits are tried first.
    fn benefit(&self) -> u16 {
        1
    }
    /// Matches `op` and rewrites it.
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool;
}

/// Changes IR on behalf of patterns and remembers what changed.
pub struct PatternRewriter<'c> {
    /// The context being rewritten.
    pub ctx: &'c mut Context,
    builder: Builder,
    /// Ops created since the last [`take_changes`](Self::take_changes).
    pub created: Vec<Op>,
    /// Ops erased.
    pub erased: Vec<Op>,
    /// Ops modified in place or whose operands changed.
    pub modified: Vec<Op>,
}

impl<'c> PatternRewriter<'c> {
    /// A rewriter over `ctx` with a detached insertion point.
    pub fn new(ctx: &'c mut Context) -> Self {
        PatternRewriter {
            ctx,
            builder: Builder {
                ip: InsertPoint::Detached,
            },
            created: Vec::new(),
            erased: Vec::new(),
            modified: Vec::new(),
        }
    }

    /// Sets the insertion point before `op`.
    pub fn set_insertion_point_before(&mut self, op: Op) {
        self.builder.ip = InsertPoint::Before(op);
    }

    /// Sets the insertion point after `op`.
    pub fn set_insertion_point_after(&mut self, op: Op) {
        self.builder.ip = InsertPoint::After(op);
    }

    /// Sets any insertion point.
    pub fn set_insertion_point(&mut self, ip: InsertPoint) {
        self.builder.ip = ip;
    }

    /// Creates an op at the insertion point.
    pub fn create(&mut self, state: OperationState) -> Op {
        let op = self.builder.create(self.ctx, state);
        self.created.push(op);
        op
    }

    /// Inserts an already created, detached op at the insertion point.
    pub fn insert(&mut self, op: Op) {
        self.builder.insert(self.ctx, op);
        self.created.push(op);
    }

    fn note_users(&mut self, v: Value) {
        for u in self.ctx.uses(v).to_vec() {
            self.modified.push(u.op);
        }
    }

    /// Replaces every use of `from` with `to`.
    pub fn replace_all_uses(&mut self, from: Value, to: Value) {
        self.note_users(from);
        self.ctx.replace_all_uses(from, to);
    }

    /// Replaces `op`'s results with `values` and erases it.
    pub fn replace_op(&mut self, op: Op, values: &[Value]) {
        for r in self.ctx.results(op).to_vec() {
            self.note_users(r);
        }
        self.note_operand_defs(op);
        self.ctx.replace_op(op, values);
        self.erased.push(op);
    }

    /// Creates an op from `state` before `op` and replaces `op` with its results.
    pub fn replace_op_with_new(&mut self, op: Op, state: OperationState) -> Op {
        self.set_insertion_point_before(op);
        let new = self.create(state);
        let results = self.ctx.results(new).to_vec();
        self.replace_op(op, &results);
        new
    }

    /// Erases `op`, whose results must be unused.
    pub fn erase_op(&mut self, op: Op) {
        self.note_operand_defs(op);
        self.ctx.erase_op(op);
        self.erased.push(op);
    }

    /// The ops defining `op`'s operands may become dead: let the driver look at them again.
    fn note_operand_defs(&mut self, op: Op) {
        for v in self.ctx.operands(op).to_vec() {
            if let Some(d) = self.ctx.defining_op(v) {
                self.modified.push(d);
            }
        }
    }

    /// Runs `f` to change `op` in place and records the change.
    pub fn modify_in_place(&mut self, op: Op, f: impl FnOnce(&mut Context)) {
        f(self.ctx);
        self.modified.push(op);
    }

    /// Takes the recorded changes: (created, erased, modified).
    pub fn take_changes(&mut self) -> (Vec<Op>, Vec<Op>, Vec<Op>) {
        (
            std::mem::take(&mut self.created),
            std::mem::take(&mut self.erased),
            std::mem::take(&mut self.modified),
        )
    }
}
