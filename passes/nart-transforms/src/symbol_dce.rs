//! `symbol-dce`: erases the symbols nothing live refers to (MLIR's SymbolDCE).
//!
//! Liveness starts from the op the pass runs on, which must be a symbol table: its public
//! symbols and its non-symbol ops are live.
//! A live op makes live every symbol its attributes refer to (resolved from the op outwards
//! through the enclosing symbol tables, `@a::@b` making both `@a` and `@b` live), and every op
//! nested in it, except the symbols of a nested symbol table: as at the top, those are live when
//! public or referred to (so a private nested module that is referred to at all keeps its public
//! symbols, as upstream MLIR does).
//! Finally every symbol of a live symbol table that is not live is erased.

use rustc_hash::FxHashSet;

use nart_ir::symbol::{is_symbol_table, lookup, nearest_symbol_table, op_symbol_uses, symbol_name};
use nart_ir::{AttrData, Context, Op};
use nart_pass::{Pass, PassFailure, PassState};

nart_pass::declare_pass! {
    /// The `symbol-dce` pass.
    pub struct SymbolDcePass {
        argument: "symbol-dce",
        name: "SymbolDCE",
        summary: "Eliminate dead symbols",
        description: "Erases the private symbols (`sym_visibility = \"private\"`, or \
            `\"nested\"`) that no live op refers to, directly or through other live symbols, in \
            the symbol table the pass runs on and in every symbol table nested in it.",
        statistics: ["num-dce'd" => "Number of symbols erased"],
    }
}

/// Whether the symbol `op` is visible outside its table (no visibility, or `"public"`).
fn is_public(ctx: &Context, op: Op) -> bool {
    match ctx.attr(op, "sym_visibility").and_then(|a| ctx.attr_str(a)) {
        None | Some("public") => true,
        Some(_) => false,
    }
}

struct Liveness<'a> {
    ctx: &'a Context,
    live: FxHashSet<Op>,
    tables: Vec<Op>,
    worklist: Vec<Op>,
}

impl Liveness<'_> {
    fn mark(&mut self, op: Op) {
        if self.live.insert(op) {
            self.worklist.push(op);
        }
    }

    /// Marks what a symbol table makes live by itself: its public symbols and non-symbol ops.
    fn seed_table(&mut self, table: Op) {
        self.tables.push(table);
        let ctx = self.ctx;
        for &r in ctx.regions(table) {
            for &b in ctx.region_blocks(r) {
                for child in ctx.block_ops_iter(b) {
                    match symbol_name(ctx, child) {
                        Some(_) if !is_public(ctx, child) => {}
                        _ => self.mark(child),
                    }
                }
            }
        }
    }

    /// Marks the symbols `op`'s attributes refer to.
    fn mark_uses(&mut self, op: Op) {
        let ctx = self.ctx;
        for sym in op_symbol_uses(ctx, op) {
            let AttrData::SymbolRef { root, nested } = ctx.attr_data(sym) else {
                continue;
            };
            let mut table = if is_symbol_table(ctx, op) {
                Some(op)
            } else {
                nearest_symbol_table(ctx, op)
            };
            while let Some(t) = table {
                if let Some(mut found) = lookup(ctx, t, ctx.str(*root)) {
                    self.mark(found);
                    for n in nested {
                        match lookup(ctx, found, ctx.str(*n)) {
                            Some(inner) => {
                                self.mark(inner);
                                found = inner;
                            }
                            None => break,
                        }
                    }
                    break;
                }
                table = nearest_symbol_table(ctx, t);
            }
        }
    }

    /// Processes a live op: its uses, and what is nested in it.
    fn visit(&mut self, op: Op) {
        self.mark_uses(op);
        let ctx = self.ctx;
        if is_symbol_table(ctx, op) {
            self.seed_table(op);
            return;
        }
        for &r in ctx.regions(op) {
            for &b in ctx.region_blocks(r) {
                for child in ctx.block_ops_iter(b) {
                    self.mark(child);
                }
            }
        }
    }
}

/// Erases dead symbols under the symbol table `root`; returns how many were erased.
pub fn symbol_dce(ctx: &mut Context, root: Op) -> usize {
    let (live, tables) = {
        let mut l = Liveness {
            ctx,
            live: FxHashSet::default(),
            tables: Vec::new(),
            worklist: Vec::new(),
        };
        l.mark_uses(root);
        l.seed_table(root);
        while let Some(op) = l.worklist.pop() {
            l.visit(op);
        }
        (l.live, l.tables)
    };
    let mut erased = 0;
    for table in tables {
        if ctx.is_erased(table) {
            continue;
        }
        let mut dead = Vec::new();
        for &r in ctx.regions(table) {
            for &b in ctx.region_blocks(r) {
                for child in ctx.block_ops_iter(b) {
                    if symbol_name(ctx, child).is_some() && !live.contains(&child) {
                        dead.push(child);
                    }
                }
            }
        }
        for d in dead {
            if ctx.is_erased(d) {
                continue;
            }
            // A symbol whose results are still used elsewhere is kept (there should be none).
            let used_outside = ctx
                .collect_ops(d, nart_ir::WalkOrder::PreOrder)
                .into_iter()
                .any(|n| {
                    ctx.results(n)
                        .iter()
                        .any(|&r| ctx.uses(r).iter().any(|u| !ctx.is_ancestor(d, u.op)))
                });
            if used_outside {
                continue;
            }
            ctx.erase_op(d);
            erased += 1;
        }
    }
    erased
}

impl Pass for SymbolDcePass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        if !is_symbol_table(ctx, op) {
            return Err(PassFailure::op_error(
                ctx,
                op,
                "was scheduled to run under SymbolDCE, but does not define a symbol table",
            ));
        }
        let n = symbol_dce(ctx, op);
        state.add_stat("num-dce'd", n as u64);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::*;

    #[test]
    fn erases_unreferenced_private_symbols_transitively() {
        let mut t = TestIr::new();
        let main = t.func("main", 0, 0, false);
        let live = t.func("live", 0, 0, true);
        let via = t.func("via", 0, 0, true);
        let dead = t.func("dead", 0, 0, true);
        let dead2 = t.func("dead2", 0, 0, true);
        t.func("pub", 0, 0, false);
        for (f, callee) in [
            (main, "live"),
            (live, "via"),
            (dead, "dead2"),
            (dead2, "dead"),
        ] {
            let b = t.entry(f);
            t.call(b, callee, &[], 0);
        }
        for f in [main, live, via, dead, dead2] {
            let b = t.entry(f);
            t.ret(b, &[]);
        }
        t.ret_all_empty();
        t.run_pipeline("builtin.module(symbol-dce)");
        assert_eq!(t.symbols(), ["main", "live", "via", "pub"]);
    }

    #[test]
    fn non_symbol_ops_keep_symbols_alive() {
        let mut t = TestIr::new();
        t.func("a", 0, 0, true);
        t.func("b", 0, 0, true);
        t.ret_all_empty();
        t.use_symbol("b");
        t.run_pipeline("builtin.module(symbol-dce)");
        assert_eq!(t.symbols(), ["b"]);
    }

    #[test]
    fn nested_tables() {
        let mut t = TestIr::new();
        // A public nested module: its public symbols live, its unreferenced private ones die.
        let m1 = t.nested_module("m1", false);
        t.func_in(m1, "keep", false);
        t.func_in(m1, "drop", true);
        // A private nested module referenced as @m2::@used: live, so its public symbols stay
        // (as in MLIR) and its private unreferenced ones go.
        let m2 = t.nested_module("m2", true);
        t.func_in(m2, "used", false);
        t.func_in(m2, "public", false);
        t.func_in(m2, "unused", true);
        // A private nested module nobody refers to.
        let m3 = t.nested_module("m3", true);
        t.func_in(m3, "x", false);
        t.ret_all_empty();
        t.use_nested_symbol("m2", "used");
        t.run_pipeline("builtin.module(symbol-dce)");
        assert_eq!(t.symbols(), ["m1", "m2"]);
        assert_eq!(t.symbols_in(m1), ["keep"]);
        assert_eq!(t.symbols_in(m2), ["used", "public"]);
    }

    #[test]
    fn requires_symbol_table() {
        let mut t = TestIr::new();
        t.func("f", 0, 0, false);
        t.ret_all_empty();
        let err = t
            .try_pipeline("builtin.module(test.func(symbol-dce))")
            .unwrap_err();
        assert_eq!(
            err.diagnostics()[0].message,
            "'test.func' op was scheduled to run under SymbolDCE, but does not define a symbol table"
        );
    }
}
