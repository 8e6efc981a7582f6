//! Custom syntax of the `arith` ops whose syntax the declarative assembly format cannot express:
//! `select` (the condition type is written only when it is not `i1`, upstream's custom form)
//! and `addui_extended` (the operand types are the first result's, MLIR's `AllTypesMatch`).
//! Every other op prints and parses through its declared format.

use nart_ir::asm::{OpAsmParser, OpAsmPrinter};
use nart_ir::{Diagnostic, Op, OperationState, Type, TypeData, Uniquer};

type PResult<T> = Result<T, Diagnostic>;

// ----- addui_extended -----

/// Parses `%a, %b {attrs} : type, i1`.
pub fn parse_addui_extended(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let a = p.parse_operand()?;
    p.parse_comma()?;
    let b = p.parse_operand()?;
    p.parse_optional_attr_dict(st)?;
    let ty = p.parse_colon_type()?;
    p.parse_comma()?;
    let overflow = p.parse_type()?;
    p.resolve_operands_same(&[a, b], ty, &mut st.operands);
    st.result_types.extend([ty, overflow]);
    Ok(())
}

/// Prints `%a, %b {attrs} : type, i1`.
pub fn print_addui_extended(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    let results = ctx.results(op).to_vec();
    p.write_str(" ");
    p.print_operands(&operands);
    p.print_optional_attr_dict(op, &[]);
    p.write_str(" : ");
    p.print_type(ctx.value_type(results[0]));
    p.write_str(", ");
    p.print_type(ctx.value_type(results[1]));
    Ok(())
}

// ----- comparisons -----

/// `i1` with the shape of `ty` (a tensor or vector of `i1`, or `i1` itself).
pub fn i1_like(ctx: &mut Uniquer, ty: Type) -> Type {
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
