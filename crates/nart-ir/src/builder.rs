//! Creating ops at an insertion point: [`Builder`] (an insertion point to use with a context),
//! [`IrBuilder`] (a context and an insertion point), and the [`OpBuilder`] trait that generated
//! op builders (`AddIOp::build(b, loc, lhs, rhs)`) take, implemented by [`IrBuilder`] and by the
//! [`PatternRewriter`](crate::PatternRewriter).

use crate::{Block, Context, Op, OperationState, Uniquer};

/// Where a [`Builder`] puts the ops it creates.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InsertPoint {
    /// Ops stay detached.
    Detached,
    /// At the end of a block.
    BlockEnd(Block),
    /// At the start of a block (successive inserts keep their order).
    BlockStart(Block),
    /// Before an op.
    Before(Op),
    /// After an op (successive inserts keep their order).
    After(Op),
}

/// Inserts detached `op` at `ip`, advancing `ip` so that successive inserts keep their order.
pub(crate) fn insert_at(ctx: &mut Context, ip: &mut InsertPoint, op: Op) {
    match *ip {
        InsertPoint::Detached => {}
        InsertPoint::BlockEnd(b) => ctx.append_op(b, op),
        InsertPoint::BlockStart(b) => {
            ctx.prepend_op(b, op);
            *ip = InsertPoint::After(op);
        }
        InsertPoint::Before(a) => ctx.insert_op_before(a, op),
        InsertPoint::After(a) => {
            ctx.insert_op_after(a, op);
            *ip = InsertPoint::After(op);
        }
    }
}

/// Something that creates ops: what generated op builders take.
pub trait OpBuilder: std::ops::Deref<Target = Context> {
    /// The uniquer, to build types and attributes.
    fn uniq(&mut self) -> &mut Uniquer;
    /// Creates an op from `state` at the builder's insertion point.
    fn create(&mut self, state: OperationState) -> Op;
    /// Creates a detached, empty region for an op about to be created.
    fn new_region(&mut self) -> crate::Region;
}

/// Creates ops and inserts them at its insertion point.
#[derive(Clone, Copy, Debug)]
pub struct Builder {
    /// The insertion point.
    pub ip: InsertPoint,
}

impl Builder {
    /// A builder that appends to `block`.
    pub fn at_end(block: Block) -> Builder {
        Builder {
            ip: InsertPoint::BlockEnd(block),
        }
    }

    /// A builder that inserts before `op`.
    pub fn before(op: Op) -> Builder {
        Builder {
            ip: InsertPoint::Before(op),
        }
    }

    /// A builder that inserts after `op`.
    pub fn after(op: Op) -> Builder {
        Builder {
            ip: InsertPoint::After(op),
        }
    }

    /// A builder that inserts at the start of `block`.
    pub fn at_start(block: Block) -> Builder {
        Builder {
            ip: InsertPoint::BlockStart(block),
        }
    }

    /// Inserts a detached op at the insertion point.
    pub fn insert(&mut self, ctx: &mut Context, op: Op) {
        insert_at(ctx, &mut self.ip, op);
    }

    /// Creates an op from `state` and inserts it.
    pub fn create(&mut self, ctx: &mut Context, state: OperationState) -> Op {
        let op = ctx.create_op(state);
        self.insert(ctx, op);
        op
    }

    /// This builder bound to a context, as an [`OpBuilder`].
    pub fn with(self, ctx: &mut Context) -> IrBuilder<'_> {
        IrBuilder { ctx, ip: self.ip }
    }
}

/// A context and an insertion point: an [`OpBuilder`] for code that owns the IR (importers,
/// passes).
pub struct IrBuilder<'c> {
    ctx: &'c mut Context,
    /// The insertion point.
    pub ip: InsertPoint,
}

impl<'c> IrBuilder<'c> {
    /// A builder over `ctx` inserting at `ip`.
    pub fn new(ctx: &'c mut Context, ip: InsertPoint) -> Self {
        IrBuilder { ctx, ip }
    }

    /// The context, to change IR directly.
    pub fn ctx(&mut self) -> &mut Context {
        self.ctx
    }
}

impl std::ops::Deref for IrBuilder<'_> {
    type Target = Context;
    fn deref(&self) -> &Context {
        self.ctx
    }
}

impl OpBuilder for IrBuilder<'_> {
    fn uniq(&mut self) -> &mut Uniquer {
        self.ctx.uniquer()
    }
    fn create(&mut self, state: OperationState) -> Op {
        let op = self.ctx.create_op(state);
        insert_at(self.ctx, &mut self.ip, op);
        op
    }
    fn new_region(&mut self) -> crate::Region {
        self.ctx.create_region()
    }
}
