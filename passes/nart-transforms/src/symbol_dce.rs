//! `symbol-dce`: erases the symbols nothing live refers to (MLIR's SymbolDCE).
//!
//! A symbol is an op with the `Symbol` trait and a `sym_name`; it is public (no
//! `sym_visibility`, or `"public"`), `"nested"` or `"private"`.
//! Liveness is computed per symbol table, starting from the one the pass runs on.
//! In a table, every op that is not a symbol is live, and so is every symbol that cannot be
//! discarded: a public one, and a `nested` one when the table is visible from above.
//! The table the pass runs on is hidden from above unless it is a non-private symbol nested in
//! another op (so `builtin.module(builtin.module(symbol-dce))` keeps the `nested` symbols of a
//! public module), and a nested table is hidden when its parent table is, when it is not a
//! symbol, or when it is private.
//! A live op makes live the symbols referred to by its attributes and those of the ops nested
//! in it (not inside nested symbol tables), resolved in the symbol table that holds the op
//! (references to unknown symbols are ignored).
//! A live symbol table computes the liveness of its own symbols in turn; a live op that is not
//! a symbol table makes live the ops with regions directly inside it, so that the symbol tables
//! nested there are reached.
//! Finally every symbol found dead is erased, in every symbol table under the root.
//! An unregistered op with one region may be a symbol table whose symbols nart cannot see:
//! collecting uses across one is an error, as upstream.

use rustc_hash::FxHashSet;

use nart_ir::registry::Trait;
use nart_ir::symbol::{is_symbol_table, lookup, op_symbol_uses, symbol_name};
use nart_ir::{Attr, AttrData, Context, Diagnostic, Op, WalkOrder};
use nart_pass::{Pass, PassFailure, PassState};

nart_pass::declare_pass! {
    /// The `symbol-dce` pass.
    pub struct SymbolDcePass {
        argument: "symbol-dce",
        name: "SymbolDCE",
        summary: "Eliminate dead symbols",
        description: "Erases the symbols that no live op refers to, directly or through other \
            live symbols, in the symbol table the pass runs on and in every symbol table nested \
            in it: private symbols, and `nested` ones in tables hidden from above (the top-level \
            table, private tables, and tables that are not symbols).",
        statistics: ["num-dce'd" => "Number of symbols erased"],
    }
}

/// The visibility of a symbol (`sym_visibility`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Visibility {
    Public,
    Nested,
    Private,
}

fn visibility(ctx: &Context, op: Op) -> Visibility {
    match ctx.attr(op, "sym_visibility").and_then(|a| ctx.attr_str(a)) {
        Some("private") => Visibility::Private,
        Some("nested") => Visibility::Nested,
        _ => Visibility::Public,
    }
}

/// Whether `op` is a symbol: it declares `Symbol` and has a name (an unnamed module is not).
fn is_symbol(ctx: &Context, op: Op) -> bool {
    ctx.op_has_trait(op, Trait::Symbol) && symbol_name(ctx, op).is_some()
}

/// Whether `op` may be a symbol table nart knows nothing about: an op of an unknown dialect
/// with one region (MLIR's `isPotentiallyUnknownSymbolTable`).
fn is_potentially_unknown_table(ctx: &Context, op: Op) -> bool {
    ctx.regions(op).len() == 1 && ctx.op_dialect(op).is_none()
}

/// The symbol references held by `from` and the ops nested in it, not entering nested symbol
/// tables (MLIR's `SymbolTable::getSymbolUses`). `Err` names an op that may be an unknown
/// symbol table.
fn symbol_uses(ctx: &Context, from: Op, out: &mut Vec<Attr>) -> Result<(), Op> {
    if is_potentially_unknown_table(ctx, from) {
        return Err(from);
    }
    out.extend(op_symbol_uses(ctx, from));
    if is_symbol_table(ctx, from) {
        return Ok(());
    }
    for &r in ctx.regions(from) {
        for &b in ctx.region_blocks(r) {
            for op in ctx.block_ops_iter(b) {
                symbol_uses(ctx, op, out)?;
            }
        }
    }
    Ok(())
}

/// The symbols a reference names, looked up in `table` only (`@a::@b` gives `@a` and `@b`);
/// `None` when some part does not resolve.
fn resolve_in(ctx: &Context, table: Op, sym: Attr) -> Option<Vec<Op>> {
    let AttrData::SymbolRef { root, nested } = ctx.attr_data(sym) else {
        return None;
    };
    let mut found = vec![lookup(ctx, table, ctx.str(*root))?];
    for (i, n) in nested.iter().enumerate() {
        let scope = *found.last()?;
        if !is_symbol_table(ctx, scope) {
            return None;
        }
        let next = lookup(ctx, scope, ctx.str(*n))?;
        if i + 1 < nested.len() && !is_symbol_table(ctx, next) {
            return None;
        }
        found.push(next);
    }
    Some(found)
}

/// The ops directly inside `op`'s regions.
fn children(ctx: &Context, op: Op) -> Vec<Op> {
    let mut out = Vec::new();
    for &r in ctx.regions(op) {
        for &b in ctx.region_blocks(r) {
            out.extend(ctx.block_ops_iter(b));
        }
    }
    out
}

/// Marks live the symbols of `table` that are used or cannot be discarded, and recursively
/// those of the symbol tables reached (MLIR's `SymbolDCE::computeLiveness`).
fn compute_liveness(
    ctx: &Context,
    table: Op,
    hidden: bool,
    live: &mut FxHashSet<Op>,
) -> Result<(), Diagnostic> {
    let mut worklist = Vec::new();
    for op in children(ctx, table) {
        if !is_symbol(ctx, op) {
            worklist.push(op);
            continue;
        }
        let vis = visibility(ctx, op);
        let discardable = (hidden || vis == Visibility::Private) && vis != Visibility::Public;
        if !discardable && live.insert(op) {
            worklist.push(op);
        }
    }
    while let Some(op) = worklist.pop() {
        if is_symbol_table(ctx, op) {
            let inner_hidden =
                hidden || !is_symbol(ctx, op) || visibility(ctx, op) == Visibility::Private;
            compute_liveness(ctx, op, inner_hidden, live)?;
        } else {
            worklist.extend(
                children(ctx, op)
                    .into_iter()
                    .filter(|&c| !ctx.regions(c).is_empty()),
            );
        }
        // Ops reached through a region that is not a symbol table have had their uses
        // collected with the op that holds them.
        let Some(parent) = ctx.op_parent_op(op).filter(|&p| is_symbol_table(ctx, p)) else {
            continue;
        };
        let mut uses = Vec::new();
        if symbol_uses(ctx, op, &mut uses).is_err() {
            return Err(Diagnostic::error(
                ctx.op_loc(op),
                "operation contains potentially unknown symbol table, meaning that we can't \
                 reliable compute symbol uses",
            ));
        }
        for sym in uses {
            for found in resolve_in(ctx, parent, sym).unwrap_or_default() {
                if live.insert(found) {
                    worklist.push(found);
                }
            }
        }
    }
    Ok(())
}

/// Erases dead symbols under the symbol table `root`; returns how many were erased.
pub fn symbol_dce(ctx: &mut Context, root: Op) -> Result<usize, Diagnostic> {
    let hidden = match ctx.op_parent_op(root) {
        Some(_) if is_symbol(ctx, root) => visibility(ctx, root) == Visibility::Private,
        _ => true,
    };
    let mut live = FxHashSet::default();
    compute_liveness(ctx, root, hidden, &mut live)?;
    let tables: Vec<Op> = ctx
        .collect_ops(root, WalkOrder::PostOrder)
        .into_iter()
        .filter(|&t| is_symbol_table(ctx, t))
        .collect();
    let mut erased = 0;
    for table in tables {
        if ctx.is_erased(table) {
            continue;
        }
        for d in children(ctx, table) {
            if !is_symbol(ctx, d) || live.contains(&d) {
                continue;
            }
            // A symbol whose results are still used elsewhere is kept (there should be none).
            let used_outside = ctx
                .collect_ops(d, WalkOrder::PreOrder)
                .into_iter()
                .any(|n| {
                    ctx.results(n)
                        .iter()
                        .any(|&r| ctx.uses(r).iter().any(|u| !ctx.is_ancestor(d, u.op)))
                });
            if !used_outside {
                ctx.erase_op(d);
                erased += 1;
            }
        }
    }
    Ok(erased)
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
        let n = symbol_dce(ctx, op).map_err(PassFailure::new)?;
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
