//! Symbols and symbol tables: ops with a `sym_name` inside an op with the `SymbolTable` trait,
//! referred to by `@name` (nested `@a::@b`) attributes.

use crate::interfaces::CallableOpInterface;
use crate::registry::Trait;
use crate::{Attr, AttrData, Context, Diagnostic, Op};

/// The symbol name of `op` (its `sym_name` string attribute), if any.
pub fn symbol_name(ctx: &Context, op: Op) -> Option<&str> {
    ctx.attr(op, "sym_name").and_then(|a| ctx.attr_str(a))
}

/// Whether `op` is a symbol table (declared, or an unregistered op is never one).
pub fn is_symbol_table(ctx: &Context, op: Op) -> bool {
    ctx.op_has_trait(op, Trait::SymbolTable)
}

/// Finds the symbol `name` directly inside symbol table `table`.
pub fn lookup(ctx: &Context, table: Op, name: &str) -> Option<Op> {
    for &r in ctx.regions(table) {
        for &b in ctx.region_blocks(r) {
            for op in ctx.block_ops_iter(b) {
                if symbol_name(ctx, op) == Some(name) {
                    return Some(op);
                }
            }
        }
    }
    None
}

/// The closest symbol table enclosing `op` (not `op` itself).
pub fn nearest_symbol_table(ctx: &Context, op: Op) -> Option<Op> {
    let mut cur = ctx.op_parent_op(op);
    while let Some(o) = cur {
        if is_symbol_table(ctx, o) {
            return Some(o);
        }
        cur = ctx.op_parent_op(o);
    }
    None
}

/// Resolves a symbol reference attribute (`@a` or `@a::@b`) as seen from `from`: looks in the
/// nearest enclosing symbol tables, innermost first.
pub fn lookup_from(ctx: &Context, from: Op, sym: Attr) -> Option<Op> {
    let AttrData::SymbolRef { root, nested } = ctx.attr_data(sym) else {
        return None;
    };
    let mut table = if is_symbol_table(ctx, from) {
        Some(from)
    } else {
        nearest_symbol_table(ctx, from)
    };
    while let Some(t) = table {
        if let Some(mut found) = lookup(ctx, t, ctx.str(*root)) {
            for n in nested {
                found = lookup(ctx, found, ctx.str(*n))?;
            }
            return Some(found);
        }
        table = nearest_symbol_table(ctx, t);
    }
    None
}

/// Every symbol reference used in `attr`, recursively (through arrays and dictionaries).
pub fn collect_symbol_refs(ctx: &Context, attr: Attr, out: &mut Vec<Attr>) {
    match ctx.attr_data(attr) {
        AttrData::SymbolRef { .. } => out.push(attr),
        AttrData::Array(items) => {
            for &i in items {
                collect_symbol_refs(ctx, i, out);
            }
        }
        AttrData::Dictionary(items) => {
            for i in items {
                collect_symbol_refs(ctx, i.value, out);
            }
        }
        _ => {}
    }
}

/// The symbol references held in the attributes of `op` (not nested ops).
pub fn op_symbol_uses(ctx: &Context, op: Op) -> Vec<Attr> {
    let mut out = Vec::new();
    for a in ctx.props(op).iter().chain(ctx.attrs(op)) {
        if ctx.str(a.name) == "sym_name" {
            continue;
        }
        collect_symbol_refs(ctx, a.value, &mut out);
    }
    out
}

/// Whether the symbol `op` is private (`sym_visibility = "private"`).
pub fn is_private(ctx: &Context, op: Op) -> bool {
    ctx.attr(op, "sym_visibility")
        .and_then(|a| ctx.attr_str(a))
        .is_some_and(|v| v == "private")
}

/// The `Symbol` trait's verifier (MLIR's `SymbolOpInterface` verifier): an op without a
/// `sym_name` is an unnamed optional symbol (an unnamed module) and is not checked; otherwise
/// the visibility is one of the three, a declaration (a callable op without a body) is not
/// public, and a registered parent is a symbol table.
pub fn verify_symbol(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(name) = ctx.attr(op, "sym_name") else {
        return Ok(());
    };
    if ctx.attr_str(name).is_none() {
        return Err(ctx.op_error(op, "requires string attribute 'sym_name'"));
    }
    let visibility = match ctx.attr(op, "sym_visibility") {
        None => "public",
        Some(v) => match ctx.attr_str(v) {
            Some(s @ ("public" | "private" | "nested")) => s,
            Some(_) => {
                return Err(ctx.op_error(
                    op,
                    format!(
                        "visibility expected to be one of [\"public\", \"private\", \"nested\"], \
                         but got {}",
                        crate::printer::attr_to_string(ctx, v)
                    ),
                ))
            }
            None => {
                return Err(ctx.op_error(
                    op,
                    format!(
                        "requires visibility attribute 'sym_visibility' to be a string \
                         attribute, but got {}",
                        crate::printer::attr_to_string(ctx, v)
                    ),
                ))
            }
        },
    };
    let declaration = ctx
        .op_interface::<dyn CallableOpInterface>(op)
        .is_some_and(|c| c.callable_region(ctx, op).is_none());
    if declaration && visibility == "public" {
        return Err(ctx.op_error(op, "symbol declaration cannot have public visibility"));
    }
    if let Some(parent) = ctx.op_parent_op(op) {
        if ctx.op_def(parent).is_some() && !is_symbol_table(ctx, parent) {
            return Err(ctx.op_error(op, "symbol's parent must have the SymbolTable trait"));
        }
    }
    Ok(())
}
