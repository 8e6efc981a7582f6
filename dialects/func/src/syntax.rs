//! Custom syntax of `func.func` and `func.call_indirect`, which the declarative format cannot
//! express: a function signature with named arguments, per-argument and per-result attribute
//! dictionaries, visibility and a body; an indirect call whose result types come from the
//! callee's function type.

use nart_ir::asm::{Argument, OpAsmParser, OpAsmPrinter};
use nart_ir::{Attr, AttrData, Diagnostic, NamedAttr, Op, OperationState, Type, TypeData};

type PResult<T> = Result<T, Diagnostic>;

const VISIBILITIES: [&str; 3] = ["private", "public", "nested"];

/// The properties the signature spells, which the attribute dictionary may not repeat.
const INFERRED: [&str; 3] = ["sym_visibility", "sym_name", "function_type"];

fn push_prop(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState, name: &str, value: Attr) {
    let name = p.ctx().ident(name);
    st.props.retain(|a| a.name != name);
    st.props.push(NamedAttr { name, value });
}

/// One entry of a signature: a type, its attribute dictionary, and the SSA name when written.
struct SigEntry {
    ty: Type,
    attrs: Option<Attr>,
    arg: Option<Argument>,
}

/// Reads `type {attrs}`; with `allow_loc`, also a trailing `loc(...)` (which is dropped, as
/// upstream drops it for an unnamed argument).
fn parse_type_entry(p: &mut OpAsmParser<'_, '_>, allow_loc: bool) -> PResult<SigEntry> {
    let ty = p.parse_type()?;
    let attrs = if p.peek_is("{") {
        let entries = p.parse_attr_dict_entries()?;
        Some(p.ctx().dict_attr(entries))
    } else {
        None
    };
    if allow_loc && p.peek_is("loc") {
        p.parse_location()?;
    }
    Ok(SigEntry {
        ty,
        attrs,
        arg: None,
    })
}

/// Reads the argument list `(%a: t {attrs} loc(...), ...)` or `(t {attrs}, ...)`: every
/// argument is named, or none is (upstream's `parseFunctionArgumentList`).
fn parse_arg_list(p: &mut OpAsmParser<'_, '_>) -> PResult<Vec<SigEntry>> {
    p.parse_lparen()?;
    let mut out: Vec<SigEntry> = Vec::new();
    if p.parse_optional_rparen() {
        return Ok(out);
    }
    loop {
        let prev_named = out.last().map(|e| e.arg.is_some());
        if p.peek_is("%") {
            if prev_named == Some(false) {
                return Err(p.emit_error("expected type instead of SSA identifier"));
            }
            let arg = p.parse_argument(true, true)?;
            out.push(SigEntry {
                ty: arg.ty,
                attrs: arg.attrs,
                arg: Some(arg),
            });
        } else {
            if prev_named == Some(true) {
                return Err(p.emit_error("expected SSA identifier"));
            }
            out.push(parse_type_entry(p, true)?);
        }
        if !p.parse_optional_comma() {
            break;
        }
    }
    p.parse_rparen()?;
    Ok(out)
}

/// Reads the result list `(t {attrs}, ...)`.
fn parse_result_list(p: &mut OpAsmParser<'_, '_>) -> PResult<Vec<SigEntry>> {
    p.parse_lparen()?;
    let mut out = Vec::new();
    if p.parse_optional_rparen() {
        return Ok(out);
    }
    loop {
        out.push(parse_type_entry(p, false)?);
        if !p.parse_optional_comma() {
            break;
        }
    }
    p.parse_rparen()?;
    Ok(out)
}

/// `[{...}, {}, ...]` when any entry has attributes.
fn attr_array(p: &mut OpAsmParser<'_, '_>, entries: &[SigEntry]) -> Option<Attr> {
    if entries
        .iter()
        .all(|e| e.attrs.is_none_or(|a| is_empty_dict(p, a)))
    {
        return None;
    }
    let empty = p.ctx().dict_attr(Vec::new());
    let items = entries.iter().map(|e| e.attrs.unwrap_or(empty)).collect();
    Some(p.ctx().array_attr(items))
}

fn is_empty_dict(p: &mut OpAsmParser<'_, '_>, a: Attr) -> bool {
    matches!(p.ctx().attr_data(a), AttrData::Dictionary(d) if d.is_empty())
}

/// Parses `func.func [visibility] @name(args) [-> results] [attributes {...}] [{ body }]`.
pub fn parse_func(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    if let Some(i) = VISIBILITIES.iter().position(|v| p.peek_is(v)) {
        p.parse_keyword(VISIBILITIES[i])?;
        let v = p.ctx().string_attr(VISIBILITIES[i]);
        push_prop(p, st, "sym_visibility", v);
    }
    let name = p.parse_symbol_name_attr()?;
    push_prop(p, st, "sym_name", name);
    let args = parse_arg_list(p)?;
    let results = if p.parse_optional_arrow() {
        if p.peek_is("(") {
            parse_result_list(p)?
        } else {
            // A single result without parentheses takes no attributes: a `{` here opens the body.
            let ty = p.parse_type()?;
            vec![SigEntry {
                ty,
                attrs: None,
                arg: None,
            }]
        }
    } else {
        Vec::new()
    };
    // The attributes the signature spells may not be written in the dictionary as well.
    let dict_pos = p.current_pos();
    let mut dict = st.clone();
    dict.props.clear();
    dict.attrs.clear();
    p.parse_optional_attr_dict_with_keyword(&mut dict)?;
    for name in INFERRED {
        let id = p.ctx().ident(name);
        if dict.props.iter().chain(&dict.attrs).any(|a| a.name == id) {
            return Err(p.emit_error_at_pos(
                dict_pos,
                format!(
                    "'{name}' is an inferred attribute and should not be specified in the \
                     explicit attribute dictionary"
                ),
            ));
        }
    }
    st.props.extend(dict.props);
    st.attrs.extend(dict.attrs);
    let body_pos = p.current_pos();
    let inputs: Vec<Type> = args.iter().map(|a| a.ty).collect();
    let outputs: Vec<Type> = results.iter().map(|r| r.ty).collect();
    let fty = p.ctx().function_type(inputs, outputs);
    let fty = p.ctx().type_attr(fty);
    push_prop(p, st, "function_type", fty);
    if let Some(a) = attr_array(p, &args) {
        push_prop(p, st, "arg_attrs", a);
    }
    if let Some(a) = attr_array(p, &results) {
        push_prop(p, st, "res_attrs", a);
    }
    // Named arguments become the entry block's; with unnamed ones (or none) the body writes
    // its entry block, arguments included, as `^bb0(%a: f32):`. The body is optional, and
    // names without a body are dropped, as upstream does.
    // An empty body `{}` of a function with arguments is an entry block without them (which
    // the verifier rejects); of one without arguments, an error here.
    let n_args = args.len();
    let region_args: Vec<Argument> = args.into_iter().filter_map(|a| a.arg).collect();
    let region = match p.parse_optional_region(&region_args)? {
        Some(r) => {
            if p.ctx().region_blocks(r).is_empty() {
                if n_args == 0 {
                    return Err(p.emit_error_at_pos(body_pos, "expected non-empty function body"));
                }
                let loc = p.current_location();
                let entry = p.ctx().create_block(&[], loc);
                p.ctx().append_block(r, entry);
            }
            r
        }
        None => p.ctx().create_region(),
    };
    st.regions.push(region);
    Ok(())
}

fn dict_entries(p: &OpAsmPrinter<'_>, array: Option<Attr>, i: usize) -> Vec<NamedAttr> {
    let ctx = p.ctx();
    let Some(AttrData::Array(items)) = array.map(|a| ctx.attr_data(a)) else {
        return Vec::new();
    };
    match items.get(i).map(|&d| ctx.attr_data(d)) {
        Some(AttrData::Dictionary(entries)) => entries.clone(),
        _ => Vec::new(),
    }
}

/// Prints `func.func [visibility] @name(args) [-> results] [attributes {...}] [{ body }]`.
pub fn print_func(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let (inputs, outputs) = crate::function_signature(ctx, op).unwrap_or_default();
    let vis = ctx.attr(op, "sym_visibility").and_then(|a| ctx.attr_str(a));
    if let Some(v) = vis {
        p.write_str(" ");
        p.print_keyword(v);
    }
    p.write_str(" ");
    p.print_symbol_name(nart_ir::symbol::symbol_name(ctx, op).unwrap_or(""));
    let arg_attrs = ctx.attr(op, "arg_attrs");
    let res_attrs = ctx.attr(op, "res_attrs");
    let body = ctx.region(op, 0);
    let entry = ctx.region_blocks(body).first().copied();
    p.write_str("(");
    for (i, &ty) in inputs.iter().enumerate() {
        if i > 0 {
            p.write_str(", ");
        }
        match entry.and_then(|b| ctx.block_args(b).get(i).copied()) {
            Some(a) => p.print_block_arg_decl(a),
            None => p.print_type(ty),
        }
        let attrs = dict_entries(p, arg_attrs, i);
        if !attrs.is_empty() {
            p.print_attr_dict_entries(&attrs, &[]);
        }
    }
    p.write_str(")");
    if !outputs.is_empty() {
        p.write_str(" -> ");
        let any_attrs = (0..outputs.len()).any(|i| !dict_entries(p, res_attrs, i).is_empty());
        let parens = outputs.len() > 1
            || any_attrs
            || matches!(ctx.type_data(outputs[0]), TypeData::Function { .. });
        if parens {
            p.write_str("(");
        }
        for (i, &ty) in outputs.iter().enumerate() {
            if i > 0 {
                p.write_str(", ");
            }
            p.print_type(ty);
            let attrs = dict_entries(p, res_attrs, i);
            if !attrs.is_empty() {
                p.print_attr_dict_entries(&attrs, &[]);
            }
        }
        if parens {
            p.write_str(")");
        }
    }
    p.print_optional_attr_dict_with_keyword(
        op,
        &[
            "sym_name",
            "function_type",
            "sym_visibility",
            "arg_attrs",
            "res_attrs",
        ],
    );
    if entry.is_some() {
        p.write_str(" ");
        p.print_region(body, false, false);
    }
    Ok(())
}

/// Parses `func.call_indirect %callee(%args) {attrs} : (inputs) -> results`.
pub fn parse_call_indirect(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let callee = p.parse_operand()?;
    p.parse_lparen()?;
    let args = if p.parse_optional_rparen() {
        Vec::new()
    } else {
        let a = p.parse_operand_list()?;
        p.parse_rparen()?;
        a
    };
    p.parse_optional_attr_dict(st)?;
    let fty = p.parse_colon_type()?;
    let TypeData::Function { inputs, results } = p.ctx().type_data(fty).clone() else {
        return Err(p.emit_error("expected a function type for the callee"));
    };
    let cv = p.resolve_operand(&callee, fty);
    st.operands.push(cv);
    p.resolve_operands(&args, &inputs, &mut st.operands)?;
    st.result_types.extend(results);
    Ok(())
}

/// Prints `func.call_indirect %callee(%args) {attrs} : (inputs) -> results`.
pub fn print_call_indirect(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    p.write_str(" ");
    p.print_operand(operands[0]);
    p.write_str("(");
    p.print_operands(&operands[1..]);
    p.write_str(")");
    p.print_optional_attr_dict(op, &[]);
    p.write_str(" : ");
    p.print_type(ctx.value_type(operands[0]));
    Ok(())
}

#[cfg(test)]
mod tests {
    use nart_ir::printer::PrintOptions;
    use nart_test_dialect::ir::Register;
    use nart_test_dialect::roundtrip::{
        check_generic_round_trip, check_round_trip, generic, parse_print,
    };

    const DIALECTS: &[Register] = &[crate::register];

    const TEXT: &str = "func.func private @decl(i32 {test.arg}, f32) -> (i64 {test.res})\n\
func.func nested @empty() {\n  return\n}\n\
func.func @calls(%a: i32, %b: f32) -> i64 attributes {test.fn} {\n  \
%0 = func.call @decl(%a, %b) : (i32, f32) -> i64\n  \
%f = func.constant @decl : (i32, f32) -> i64\n  \
%1 = func.call_indirect %f(%a, %b) : (i32, f32) -> i64\n  \
func.call @empty() : () -> ()\n  return %1 : i64\n}\n";

    #[test]
    fn round_trips_in_both_forms() {
        let custom =
            parse_print(DIALECTS, TEXT, &PrintOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        // As `mlir-opt` (LLVM 22) prints the same module, up to value names.
        for want in [
            "func.func private @decl(i32 {test.arg}, f32) -> (i64 {test.res})",
            "func.func nested @empty() {",
            "func.func @calls(%arg0: i32, %arg1: f32) -> i64 attributes {test.fn} {",
            "%0 = call @decl(%arg0, %arg1) : (i32, f32) -> i64",
            "%1 = call_indirect %f(%arg0, %arg1) : (i32, f32) -> i64",
            "call @empty() : () -> ()",
        ] {
            assert!(custom.contains(want), "missing {want}\nin\n{custom}");
        }
        assert_eq!(check_round_trip(DIALECTS, &custom), Ok(custom.clone()));
        let generic = parse_print(DIALECTS, TEXT, &generic()).unwrap_or_else(|e| panic!("{e}"));
        assert!(generic.contains(
            "\"func.func\"() <{arg_attrs = [{test.arg}, {}], function_type = (i32, f32) -> i64, \
             res_attrs = [{test.res}], sym_name = \"decl\", sym_visibility = \"private\"}> ({\n  }) : () -> ()"
        ), "{generic}");
        assert_eq!(check_generic_round_trip(DIALECTS, TEXT), Ok(generic));
    }

    #[test]
    fn signature_errors() {
        for (text, want) in [
            (
                "func.func @f(%a: i32, f32) {\n  return\n}\n",
                "input.mlir:1:23: error: custom op 'func.func' expected SSA identifier",
            ),
            (
                "func.func @f(i32, %a: f32) {\n  return\n}\n",
                "input.mlir:1:19: error: custom op 'func.func' expected type instead of SSA identifier",
            ),
            (
                "func.func @f() attributes {sym_name = \"g\"}\n",
                "'sym_name' is an inferred attribute",
            ),
            (
                "func.func @f() {}\n",
                "custom op 'func.func' expected non-empty function body",
            ),
            // Unnamed arguments with a body: the verifier finds the entry block wrong.
            (
                "func.func @f(i32) {\n  return\n}\n",
                "entry block must have 1 arguments to match function signature",
            ),
        ] {
            let err = parse_print(DIALECTS, text, &PrintOptions::default()).expect_err(text);
            assert!(
                (err.starts_with("parse:") || err.starts_with("verify:")) && err.contains(want),
                "{text}: {err}"
            );
        }
    }

    #[test]
    fn unnamed_arguments_take_an_explicit_entry_block() {
        let text =
            "func.func @f(f32, i32) -> f32 {\n^bb0(%a: f32, %b: i32):\n  return %a : f32\n}\n\
func.func private @decl(%x: i32 {test.arg})\n";
        let out =
            parse_print(DIALECTS, text, &PrintOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            out.contains("func.func @f(%arg0: f32, %arg1: i32) -> f32 {\n    return %arg0 : f32"),
            "{out}"
        );
        assert!(
            out.contains("func.func private @decl(i32 {test.arg})"),
            "{out}"
        );
    }
}
