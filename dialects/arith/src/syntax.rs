//! Custom syntax of the `arith` ops, written as parse and print hooks because the flags
//! (`overflow<nsw>`, `fastmath<fast>`, `exact`, rounding modes), the predicate keywords and the
//! default-valued properties need more than the declarative format offers.
//!
//! Each hook follows the op's upstream `assemblyFormat`. A flag that is not written gets the
//! default upstream stores (`overflowFlags = #arith.overflow<none>`,
//! `fastmath = #arith.fastmath<none>`) from `Context::create_op`, through the defaults the
//! dialect registers, so that nart and `mlir-opt` print the same generic form.

use nart_ir::asm::{OpAsmParser, OpAsmPrinter};
use nart_ir::registry::OpDef;
use nart_ir::{Attr, Context, Diagnostic, NamedAttr, Op, OperationState, Type, TypeData};

use crate::attrs::{
    CMPF_PREDICATE, CMPI_PREDICATE, FASTMATH, FASTMATH_FLAGS, INTEGER_OVERFLOW_FLAGS, OVERFLOW,
    ROUNDING_MODE,
};

type PResult<T> = Result<T, Diagnostic>;

fn push_prop(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState, name: &str, value: Attr) {
    let name = p.ctx().ident(name);
    st.props.retain(|a| a.name != name);
    st.props.push(NamedAttr { name, value });
}

/// Reads `<flag, flag>` after `overflow` or `fastmath` into the enum attribute of `def`.
fn parse_flags(
    p: &mut OpAsmParser<'_, '_>,
    def: &'static nart_ir::extensible::DialectAttrDef,
) -> PResult<Attr> {
    nart_ir::enums::parse_enum_attr(p, def)
}

/// Reads the optional flags an op declares, in upstream order, and stores defaults.
fn parse_op_flags(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let def = p.op_def();
    let declares = |n: &str| def.attrs.iter().any(|a| a.name == n);
    if declares("roundingmode") {
        if let Some(c) = ROUNDING_MODE.cases.iter().find(|c| p.peek_is(c.keyword)) {
            p.parse_keyword(c.keyword)?;
            let i32t = p.ctx().i32_type();
            let a = p.ctx().int_attr(i32t, c.value as i128);
            push_prop(p, st, "roundingmode", a);
        }
    }
    if declares("isExact") && p.parse_optional_keyword("exact") {
        let u = p.ctx().unit_attr();
        push_prop(p, st, "isExact", u);
    }
    if declares("overflowFlags") && p.parse_optional_keyword("overflow") {
        let a = parse_flags(p, &OVERFLOW)?;
        push_prop(p, st, "overflowFlags", a);
    }
    if declares("fastmath") && p.parse_optional_keyword("fastmath") {
        let a = parse_flags(p, &FASTMATH)?;
        push_prop(p, st, "fastmath", a);
    }
    Ok(())
}

/// Prints the flags an op carries, skipping default values.
fn print_op_flags(p: &mut OpAsmPrinter<'_>, op: Op) {
    let ctx = p.ctx();
    if let Some(m) = ctx.attr(op, "roundingmode").and_then(|a| ctx.attr_int(a)) {
        if let Some(kw) = ROUNDING_MODE.keyword(m as u64) {
            p.write_str(" ");
            p.print_keyword(kw);
        }
    }
    if ctx.attr(op, "isExact").is_some() {
        p.write_str(" exact");
    }
    let flags = [
        (
            "overflowFlags",
            "overflow",
            &OVERFLOW,
            &INTEGER_OVERFLOW_FLAGS,
        ),
        ("fastmath", "fastmath", &FASTMATH, &FASTMATH_FLAGS),
    ];
    for (name, kw, def, e) in flags {
        let Some(v) = ctx.attr(op, name).and_then(|a| ctx.enum_value(a, def)) else {
            continue;
        };
        if v != 0 {
            let mut s = format!(" {kw}<");
            e.write_value(&mut s, v);
            s.push('>');
            p.write_str(&s);
        }
    }
}

const FLAG_ATTRS: [&str; 4] = ["roundingmode", "isExact", "overflowFlags", "fastmath"];

fn elided(extra: &[&'static str]) -> Vec<&'static str> {
    FLAG_ATTRS
        .iter()
        .copied()
        .chain(extra.iter().copied())
        .collect()
}

// ----- elementwise ops: `$a, $b <flags> attr-dict : type` -----

/// Parses `%a, %b <flags> {attrs} : type` (any number of operands, one result of that type).
pub fn parse_same_type(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let def: &'static OpDef = p.op_def();
    let mut ops = Vec::new();
    for i in 0..def.operands.len() {
        if i > 0 {
            p.parse_comma()?;
        }
        ops.push(p.parse_operand()?);
    }
    parse_op_flags(p, st)?;
    p.parse_optional_attr_dict(st)?;
    let ty = p.parse_colon_type()?;
    p.resolve_operands_same(&ops, ty, &mut st.operands);
    st.result_types.push(ty);
    Ok(())
}

/// Prints `%a, %b <flags> {attrs} : type`.
pub fn print_same_type(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let operands = p.ctx().operands(op).to_vec();
    p.write_str(" ");
    p.print_operands(&operands);
    print_op_flags(p, op);
    p.print_optional_attr_dict(op, &elided(&[]));
    p.write_str(" : ");
    let ty = p.ctx().value_type(p.ctx().result(op, 0));
    p.print_type(ty);
    Ok(())
}

// ----- casts: `$in <flags> attr-dict : type($in) to type($out)` -----

/// Parses `%in <flags> {attrs} : t1 to t2`.
pub fn parse_cast(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let x = p.parse_operand()?;
    parse_op_flags(p, st)?;
    p.parse_optional_attr_dict(st)?;
    let from = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let to = p.parse_type()?;
    let v = p.resolve_operand(&x, from);
    st.operands.push(v);
    st.result_types.push(to);
    Ok(())
}

/// Prints `%in <flags> {attrs} : t1 to t2`.
pub fn print_cast(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let x = p.ctx().operand(op, 0);
    p.write_str(" ");
    p.print_operand(x);
    print_op_flags(p, op);
    p.print_optional_attr_dict(op, &elided(&[]));
    p.write_str(" : ");
    let from = p.ctx().value_type(x);
    p.print_type(from);
    p.write_str(" to ");
    let to = p.ctx().value_type(p.ctx().result(op, 0));
    p.print_type(to);
    Ok(())
}

// ----- extended arithmetic -----

/// Parses `%a, %b {attrs} : type, i1` (`addui_extended`) or `%a, %b {attrs} : type`
/// (`mulsi_extended`, `mului_extended`).
pub fn parse_extended(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let a = p.parse_operand()?;
    p.parse_comma()?;
    let b = p.parse_operand()?;
    p.parse_optional_attr_dict(st)?;
    let ty = p.parse_colon_type()?;
    let second = if p.op_def().name == "arith.addui_extended" {
        p.parse_comma()?;
        p.parse_type()?
    } else {
        ty
    };
    p.resolve_operands_same(&[a, b], ty, &mut st.operands);
    st.result_types.extend([ty, second]);
    Ok(())
}

/// Prints the extended ops.
pub fn print_extended(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    let results = ctx.results(op).to_vec();
    p.write_str(" ");
    p.print_operands(&operands);
    p.print_optional_attr_dict(op, &[]);
    p.write_str(" : ");
    p.print_type(ctx.value_type(results[0]));
    if ctx.op_name_str(op) == "arith.addui_extended" {
        p.write_str(", ");
        p.print_type(ctx.value_type(results[1]));
    }
    Ok(())
}

// ----- comparisons -----

/// `i1` with the shape of `ty` (a tensor or vector of `i1`, or `i1` itself).
pub fn i1_like(ctx: &mut Context, ty: Type) -> Type {
    let i1 = ctx.i1_type();
    let data = match ctx.type_data(ty).clone() {
        TypeData::RankedTensor {
            shape, encoding, ..
        } => TypeData::RankedTensor {
            shape,
            elem: i1,
            encoding,
        },
        TypeData::UnrankedTensor { .. } => TypeData::UnrankedTensor { elem: i1 },
        TypeData::Vector {
            shape, scalable, ..
        } => TypeData::Vector {
            shape,
            scalable,
            elem: i1,
        },
        _ => return i1,
    };
    ctx.intern_type(data)
}

/// Parses `pred, %a, %b <flags> {attrs} : type` for `cmpi` and `cmpf`.
pub fn parse_compare(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let preds = if p.op_def().name == "arith.cmpi" {
        &CMPI_PREDICATE
    } else {
        &CMPF_PREDICATE
    };
    let pred = preds.parse_keyword_for(p, "predicate")?;
    p.parse_comma()?;
    let a = p.parse_operand()?;
    p.parse_comma()?;
    let b = p.parse_operand()?;
    parse_op_flags(p, st)?;
    p.parse_optional_attr_dict(st)?;
    let ty = p.parse_colon_type()?;
    let i64t = p.ctx().i64_type();
    let pa = p.ctx().int_attr(i64t, pred as i128);
    push_prop(p, st, "predicate", pa);
    p.resolve_operands_same(&[a, b], ty, &mut st.operands);
    let rt = i1_like(p.ctx(), ty);
    st.result_types.push(rt);
    Ok(())
}

/// Prints `pred, %a, %b <flags> {attrs} : type`.
pub fn print_compare(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let preds = if ctx.op_name_str(op) == "arith.cmpi" {
        &CMPI_PREDICATE
    } else {
        &CMPF_PREDICATE
    };
    let pred = ctx
        .attr(op, "predicate")
        .and_then(|a| ctx.attr_int(a))
        .unwrap_or(0);
    p.write_str(" ");
    let mut kw = String::new();
    preds.write_value(&mut kw, pred as u64);
    p.print_keyword(&kw);
    p.write_str(", ");
    let operands = ctx.operands(op).to_vec();
    p.print_operands(&operands);
    print_op_flags(p, op);
    p.print_optional_attr_dict(op, &elided(&["predicate"]));
    p.write_str(" : ");
    p.print_type(ctx.value_type(operands[0]));
    Ok(())
}

// ----- select -----

/// Parses `%c, %t, %f {attrs} : type` or `%c, %t, %f {attrs} : cond_type, type`.
pub fn parse_select(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let c = p.parse_operand()?;
    p.parse_comma()?;
    let t = p.parse_operand()?;
    p.parse_comma()?;
    let f = p.parse_operand()?;
    p.parse_optional_attr_dict(st)?;
    let first = p.parse_colon_type()?;
    let (cond_ty, ty) = if p.parse_optional_comma() {
        (first, p.parse_type()?)
    } else {
        (p.ctx().i1_type(), first)
    };
    let cv = p.resolve_operand(&c, cond_ty);
    st.operands.push(cv);
    p.resolve_operands_same(&[t, f], ty, &mut st.operands);
    st.result_types.push(ty);
    Ok(())
}

/// Prints `select`; the condition type is written only when it is not `i1`.
pub fn print_select(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    p.write_str(" ");
    p.print_operands(&operands);
    p.print_optional_attr_dict(op, &[]);
    p.write_str(" : ");
    let cond_ty = ctx.value_type(operands[0]);
    if ctx.element_type(cond_ty) != cond_ty {
        p.print_type(cond_ty);
        p.write_str(", ");
    }
    p.print_type(ctx.value_type(ctx.result(op, 0)));
    Ok(())
}

// ----- constant -----

/// Parses `{attrs} value` where the value carries its type (`42 : i32`, `true`,
/// `dense<1> : tensor<2xi8>`).
pub fn parse_constant(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(st)?;
    let loc_err = p.emit_error("expected a typed constant attribute");
    let value = p.parse_attribute()?;
    let Some(ty) = p.ctx().typed_attr_type(value) else {
        return Err(loc_err);
    };
    push_prop(p, st, "value", value);
    st.result_types.push(ty);
    Ok(())
}

/// Prints `{attrs} value`.
pub fn print_constant(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    p.print_optional_attr_dict(op, &["value"]);
    if let Some(v) = p.ctx().attr(op, "value") {
        p.write_str(" ");
        p.print_attribute(v);
    }
    Ok(())
}
