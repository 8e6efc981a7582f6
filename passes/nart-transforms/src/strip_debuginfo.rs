//! `strip-debuginfo`: replaces the location of every op with `loc(unknown)`.
//!
//! Block argument locations are not stripped yet: `nart-ir` has no setter for them.

use nart_ir::{Context, Op, WalkOrder};
use nart_pass::{Pass, PassFailure, PassState};

nart_pass::declare_pass! {
    /// The `strip-debuginfo` pass.
    pub struct StripDebugInfoPass {
        argument: "strip-debuginfo",
        name: "StripDebugInfo",
        summary: "Strip debug info from all operations",
        description: "Sets the location of the op the pass runs on and of every op nested in it \
            to `loc(unknown)`.",
    }
}

impl Pass for StripDebugInfoPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        _state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let unknown = ctx.unknown_loc();
        for o in ctx.collect_ops(op, WalkOrder::PreOrder) {
            ctx.set_op_loc(o, unknown);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::*;

    #[test]
    fn strips_every_op_location() {
        let mut t = TestIr::new();
        let f = t.func("f", 0, 0, false);
        let b = t.entry(f);
        let loc = t.ctx.file_loc("x.mlir", 3, 4);
        let r = t.ret(b, &[]);
        t.ctx.set_op_loc(r, loc);
        t.ctx.set_op_loc(f, loc);
        t.run_pipeline("builtin.module(strip-debuginfo)");
        let unknown = t.ctx.unknown_loc();
        for op in t.ctx.collect_ops(t.module, nart_ir::WalkOrder::PreOrder) {
            assert_eq!(t.ctx.op_loc(op), unknown);
        }
    }
}
