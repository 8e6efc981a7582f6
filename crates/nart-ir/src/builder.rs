//! [`Builder`]: creates ops at an insertion point.

use crate::{Block, Context, Op, OperationState};

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
        match self.ip {
            InsertPoint::Detached => {}
            InsertPoint::BlockEnd(b) => ctx.append_op(b, op),
            InsertPoint::BlockStart(b) => {
                ctx.prepend_op(b, op);
                self.ip = InsertPoint::After(op);
            }
            InsertPoint::Before(a) => ctx.insert_op_before(a, op),
            InsertPoint::After(a) => {
                ctx.insert_op_after(a, op);
                self.ip = InsertPoint::After(op);
            }
        }
    }

    /// Creates an op from `state` and inserts it.
    pub fn create(&mut self, ctx: &mut Context, state: OperationState) -> Op {
        let op = ctx.create_op(state);
        self.insert(ctx, op);
        op
    }
}
