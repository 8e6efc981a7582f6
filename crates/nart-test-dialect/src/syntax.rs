//! The hand-written syntax of `test.func` and `test.cmp` (the ops whose syntax the declarative
//! format cannot express, or which test the parse and print hooks).

use nart_ir::asm::{OpAsmParser, OpAsmPrinter};
use nart_ir::{Attr, Diagnostic, NamedAttr, Op, OperationState};

use crate::ops::{func_signature, PREDICATES};

const VISIBILITIES: [&str; 3] = ["private", "public", "nested"];

fn push_prop(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState, name: &str, value: Attr) {
    let name = p.ctx().ident(name);
    st.props.push(NamedAttr { name, value });
}

/// Parses `test.func [visibility] @name(%a: t, ...) [-> results] [attributes {...}] [{ body }]`.
pub fn parse_func(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> Result<(), Diagnostic> {
    if let Some(i) = VISIBILITIES.iter().position(|v| p.peek_is(v)) {
        p.parse_keyword(VISIBILITIES[i])?;
        let v = p.ctx().string_attr(VISIBILITIES[i]);
        push_prop(p, st, "sym_visibility", v);
    }
    let name = p.parse_symbol_name_attr()?;
    push_prop(p, st, "sym_name", name);
    // A declaration lists types, a definition named arguments.
    let mut args = Vec::new();
    let mut inputs = Vec::new();
    p.parse_lparen()?;
    if !p.parse_optional_rparen() {
        loop {
            if p.peek_is("%") {
                let arg = p.parse_argument(true, false)?;
                inputs.push(arg.ty);
                args.push(arg);
            } else {
                inputs.push(p.parse_type()?);
            }
            if !p.parse_optional_comma() {
                break;
            }
        }
        p.parse_rparen()?;
    }
    if !args.is_empty() && args.len() != inputs.len() {
        return Err(p.emit_error("expected SSA identifier for every argument, or for none"));
    }
    let results = p.parse_optional_arrow_type_list()?;
    p.parse_optional_attr_dict_with_keyword(st)?;
    let fty = p.ctx().function_type(inputs, results);
    let fty = p.ctx().type_attr(fty);
    push_prop(p, st, "function_type", fty);
    let r = match p.parse_optional_region(&args)? {
        Some(r) => r,
        None => p.ctx().create_region(),
    };
    st.regions.push(r);
    Ok(())
}

/// Prints `test.func`.
pub fn print_func(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    if let Some(v) = ctx.attr(op, "sym_visibility").and_then(|a| ctx.attr_str(a)) {
        p.write_str(" ");
        p.print_keyword(v);
    }
    p.write_str(" ");
    p.print_symbol_name(nart_ir::symbol::symbol_name(ctx, op).unwrap_or(""));
    let (inputs, results) = func_signature(ctx, op);
    let body = ctx.region(op, 0);
    p.write_str("(");
    match ctx.region_blocks(body).first() {
        Some(&entry) => {
            for (i, &a) in ctx.block_args(entry).iter().enumerate() {
                if i > 0 {
                    p.write_str(", ");
                }
                p.print_block_arg_decl(a);
            }
        }
        None => p.print_types(&inputs),
    }
    p.write_str(")");
    p.print_arrow_type_list(&results);
    p.print_optional_attr_dict_with_keyword(op, &["sym_name", "sym_visibility", "function_type"]);
    if !ctx.region_blocks(body).is_empty() {
        p.write_str(" ");
        p.print_region(body, false, false);
    }
    Ok(())
}

/// Parses `test.cmp pred, %a, %b [attrs] : type`.
pub fn parse_cmp(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> Result<(), Diagnostic> {
    let pred = p.parse_keyword_of(&PREDICATES)?;
    p.parse_comma()?;
    let lhs = p.parse_operand()?;
    p.parse_comma()?;
    let rhs = p.parse_operand()?;
    p.parse_optional_attr_dict(st)?;
    let ty = p.parse_colon_type()?;
    let i64t = p.ctx().i64_type();
    let value = p.ctx().int_attr(i64t, pred as i128);
    push_prop(p, st, "predicate", value);
    p.resolve_operands_same(&[lhs, rhs], ty, &mut st.operands);
    let i1 = p.ctx().i1_type();
    st.result_types.push(i1);
    Ok(())
}

/// Prints `test.cmp`.
pub fn print_cmp(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let pred = ctx
        .attr(op, "predicate")
        .and_then(|a| ctx.attr_int(a))
        .and_then(|v| usize::try_from(v).ok())
        .and_then(|v| PREDICATES.get(v))
        .copied()
        .unwrap_or("<<BAD PREDICATE>>");
    p.write_str(" ");
    p.print_keyword(pred);
    p.write_str(", ");
    p.print_operands(ctx.operands(op));
    p.print_optional_attr_dict(op, &["predicate"]);
    p.write_str(" : ");
    p.print_type(ctx.value_type(ctx.operand(op, 0)));
    Ok(())
}
