//! The custom syntax of `memref.store`, `memref.global`, `memref.subview` and
//! `memref.reinterpret_cast`, as upstream prints and parses them.

use nart_ir::asm::{OpAsmParser, OpAsmPrinter, UnresolvedOperand};
use nart_ir::{Attr, AttrData, Diagnostic, NamedAttr, Op, OperationState, Type, TypeData};

fn add_prop(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState, name: &str, value: Attr) {
    let name = p.ctx().ident(name);
    st.props.push(NamedAttr { name, value });
}

fn index_list(p: &mut OpAsmParser<'_, '_>) -> Result<Vec<UnresolvedOperand>, Diagnostic> {
    p.parse_lsquare()?;
    let mut v = Vec::new();
    if !p.parse_optional_literal("]") {
        loop {
            v.push(p.parse_operand()?);
            if !p.parse_optional_comma() {
                break;
            }
        }
        p.parse_rsquare()?;
    }
    Ok(v)
}

/// `memref.store %v, %m[%i, ...] attr-dict : memref-type`
pub fn parse_store(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> Result<(), Diagnostic> {
    let value = p.parse_operand()?;
    p.parse_comma()?;
    let memref = p.parse_operand()?;
    let indices = index_list(p)?;
    p.parse_optional_attr_dict(st)?;
    p.parse_colon()?;
    let at = p.current_pos();
    let mt = p.parse_type()?;
    let elem = match p.ctx().type_data(mt) {
        TypeData::MemRef { elem, .. } => *elem,
        _ => return Err(p.emit_error_at_pos(at, "expected a ranked memref type")),
    };
    let index = p.ctx().index_type();
    let v = p.resolve_operand(&value, elem);
    let m = p.resolve_operand(&memref, mt);
    st.operands.extend([v, m]);
    p.resolve_operands_same(&indices, index, &mut st.operands);
    Ok(())
}

/// Prints `memref.store` as upstream does.
pub fn print_store(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    if operands.len() < 2 {
        return Err(std::fmt::Error);
    }
    p.write_str(" ");
    p.print_operand(operands[0]);
    p.write_str(", ");
    p.print_operand(operands[1]);
    p.write_str("[");
    p.print_operands(&operands[2..]);
    p.write_str("]");
    p.print_optional_attr_dict(op, &[]);
    p.write_str(" : ");
    p.print_type(ctx.value_type(operands[1]));
    Ok(())
}

/// The tensor type of a memref type's shape and element type (the type of its initial value).
fn tensor_of(p: &mut OpAsmParser<'_, '_>, mt: Type) -> Option<Type> {
    let (shape, elem) = match p.ctx().type_data(mt) {
        TypeData::MemRef { shape, elem, .. } => (shape.clone(), *elem),
        _ => return None,
    };
    Some(p.ctx().tensor_type(shape, elem))
}

const GLOBAL_ELIDED: [&str; 5] = [
    "sym_visibility",
    "constant",
    "sym_name",
    "type",
    "initial_value",
];

/// `memref.global ("visibility")? (constant)? @name : type (= (uninitialized | literal))? attr-dict`
pub fn parse_global(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    if let Some(vis) = p.parse_optional_string()? {
        let a = p.ctx().string_attr(&vis);
        add_prop(p, st, "sym_visibility", a);
    }
    if p.parse_optional_keyword("constant") {
        let unit = p.ctx().unit_attr();
        add_prop(p, st, "constant", unit);
    }
    let name = p.parse_symbol_name()?;
    let name = p.ctx().string_attr(&name);
    add_prop(p, st, "sym_name", name);
    p.parse_colon()?;
    let ty = p.parse_type()?;
    let ty_attr = p.ctx().type_attr(ty);
    add_prop(p, st, "type", ty_attr);
    if p.parse_optional_equal() {
        let init = if p.parse_optional_keyword("uninitialized") {
            p.ctx().unit_attr()
        } else {
            let Some(tensor) = tensor_of(p, ty) else {
                return Err(p.emit_error("memref type required"));
            };
            p.parse_attribute_with_type(tensor)?
        };
        add_prop(p, st, "initial_value", init);
    }
    p.parse_optional_attr_dict(st)
}

/// Prints `memref.global` as upstream does.
pub fn print_global(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    if let Some(vis) = ctx.attr(op, "sym_visibility").and_then(|a| ctx.attr_str(a)) {
        p.write_str(" ");
        p.print_string(vis);
    }
    if ctx.attr(op, "constant").is_some() {
        p.write_str(" constant");
    }
    p.write_str(" ");
    p.print_symbol_name(nart_ir::symbol::symbol_name(ctx, op).unwrap_or(""));
    p.write_str(" : ");
    let Some(ty) = ctx.attr(op, "type").and_then(|a| ctx.attr_type(a)) else {
        return Err(std::fmt::Error);
    };
    p.print_type(ty);
    if let Some(init) = ctx.attr(op, "initial_value") {
        p.write_str(" = ");
        if matches!(ctx.attr_data(init), AttrData::Unit) {
            p.write_str("uninitialized");
        } else {
            let text = nart_ir::printer::attr_to_string(ctx, init);
            let suffix = ctx
                .typed_attr_type(init)
                .map(|t| format!(" : {}", nart_ir::printer::type_to_string(ctx, t)));
            match suffix.as_deref().and_then(|s| text.strip_suffix(s)) {
                Some(bare) => p.write_str(bare),
                None => p.print_attribute(init),
            }
        }
    }
    p.print_optional_attr_dict(op, &GLOBAL_ELIDED);
    Ok(())
}

fn i64_array(p: &mut OpAsmParser<'_, '_>, v: Vec<i64>) -> Attr {
    let elem = p.ctx().i64_type();
    p.ctx().intern_attr(AttrData::DenseArray {
        elem,
        data: nart_ir::DenseArrayData::Int(v),
    })
}

fn i32_array(p: &mut OpAsmParser<'_, '_>, v: Vec<i64>) -> Attr {
    let elem = p.ctx().i32_type();
    p.ctx().intern_attr(AttrData::DenseArray {
        elem,
        data: nart_ir::DenseArrayData::Int(v),
    })
}

/// The three lists of a view op, read; fills the state's static properties, resolves the
/// operands after `source` and sets `operandSegmentSizes`.
fn finish_view(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
    lists: [(Vec<i64>, Vec<UnresolvedOperand>); 3],
) {
    let index = p.ctx().index_type();
    let mut seg = vec![1];
    for (name, (statics, dynamics)) in ["static_offsets", "static_sizes", "static_strides"]
        .into_iter()
        .zip(lists)
    {
        seg.push(dynamics.len() as i64);
        p.resolve_operands_same(&dynamics, index, &mut st.operands);
        let a = i64_array(p, statics);
        add_prop(p, st, name, a);
    }
    let seg = i32_array(p, seg);
    add_prop(p, st, "operandSegmentSizes", seg);
}

const VIEW_ELIDED: [&str; 4] = [
    "static_offsets",
    "static_sizes",
    "static_strides",
    "operandSegmentSizes",
];

/// `memref.subview %src[offsets] [sizes] [strides] attr-dict : type to type`
pub fn parse_subview(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    let src = p.parse_operand()?;
    let offsets = p.parse_dynamic_index_list()?;
    let sizes = p.parse_dynamic_index_list()?;
    let strides = p.parse_dynamic_index_list()?;
    p.parse_optional_attr_dict(st)?;
    let src_ty = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let res_ty = p.parse_type()?;
    let s = p.resolve_operand(&src, src_ty);
    st.operands.push(s);
    finish_view(p, st, [offsets, sizes, strides]);
    st.result_types.push(res_ty);
    Ok(())
}

fn print_view_lists(p: &mut OpAsmPrinter<'_>, op: Op, keywords: [&str; 3], sep: &str) {
    let ctx = p.ctx();
    let seg = crate::ops::static_list(ctx, op, "operandSegmentSizes");
    let operands = ctx.operands(op).to_vec();
    let mut start = 1usize;
    for (k, name) in ["static_offsets", "static_sizes", "static_strides"]
        .into_iter()
        .enumerate()
    {
        let n = seg.get(k + 1).copied().unwrap_or(0) as usize;
        let end = (start + n).min(operands.len());
        let statics = crate::ops::static_list(ctx, op, name);
        if k > 0 {
            p.write_str(sep);
        }
        p.write_str(keywords[k]);
        p.print_dynamic_index_list(&statics, &operands[start.min(end)..end]);
        start = end;
    }
}

/// Prints `memref.subview` as upstream does.
pub fn print_subview(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    p.write_str(" ");
    p.print_operand(ctx.operand(op, 0));
    print_view_lists(p, op, ["", "", ""], " ");
    p.print_optional_attr_dict(op, &VIEW_ELIDED);
    p.write_str(" : ");
    p.print_type(ctx.value_type(ctx.operand(op, 0)));
    p.write_str(" to ");
    p.print_type(ctx.value_type(ctx.result(op, 0)));
    Ok(())
}

/// `memref.reinterpret_cast %src to offset: [o], sizes: [..], strides: [..] attr-dict : t to t`
pub fn parse_reinterpret_cast(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    let src = p.parse_operand()?;
    p.parse_keyword("to")?;
    p.parse_keyword("offset")?;
    p.parse_colon()?;
    let offsets = p.parse_dynamic_index_list()?;
    p.parse_comma()?;
    p.parse_keyword("sizes")?;
    p.parse_colon()?;
    let sizes = p.parse_dynamic_index_list()?;
    p.parse_comma()?;
    p.parse_keyword("strides")?;
    p.parse_colon()?;
    let strides = p.parse_dynamic_index_list()?;
    p.parse_optional_attr_dict(st)?;
    let src_ty = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let res_ty = p.parse_type()?;
    let s = p.resolve_operand(&src, src_ty);
    st.operands.push(s);
    finish_view(p, st, [offsets, sizes, strides]);
    st.result_types.push(res_ty);
    Ok(())
}

/// Prints `memref.reinterpret_cast` as upstream does.
pub fn print_reinterpret_cast(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    p.write_str(" ");
    p.print_operand(ctx.operand(op, 0));
    p.write_str(" to ");
    print_view_lists(p, op, ["offset: ", "sizes: ", "strides: "], ", ");
    p.print_optional_attr_dict(op, &VIEW_ELIDED);
    p.write_str(" : ");
    p.print_type(ctx.value_type(ctx.operand(op, 0)));
    p.write_str(" to ");
    p.print_type(ctx.value_type(ctx.result(op, 0)));
    Ok(())
}

/// `memref.expand_shape %src [[...]] output_shape [sizes] attr-dict : type into type`
pub fn parse_expand_shape(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    let src = p.parse_operand()?;
    let reassociation = p.parse_attribute()?;
    add_prop(p, st, "reassociation", reassociation);
    p.parse_keyword("output_shape")?;
    let (statics, dynamics) = p.parse_dynamic_index_list()?;
    p.parse_optional_attr_dict(st)?;
    let src_ty = p.parse_colon_type()?;
    p.parse_keyword("into")?;
    let res_ty = p.parse_type()?;
    let s = p.resolve_operand(&src, src_ty);
    st.operands.push(s);
    let index = p.ctx().index_type();
    p.resolve_operands_same(&dynamics, index, &mut st.operands);
    let shape = i64_array(p, statics);
    add_prop(p, st, "static_output_shape", shape);
    st.result_types.push(res_ty);
    Ok(())
}

/// Prints `memref.expand_shape` as upstream does.
pub fn print_expand_shape(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    p.write_str(" ");
    p.print_operand(operands[0]);
    p.write_str(" ");
    if let Some(r) = ctx.attr(op, "reassociation") {
        p.print_attribute(r);
    }
    p.write_str(" output_shape ");
    let statics = crate::ops::static_list(ctx, op, "static_output_shape");
    p.print_dynamic_index_list(&statics, &operands[1..]);
    p.print_optional_attr_dict(op, &["reassociation", "static_output_shape"]);
    p.write_str(" : ");
    p.print_type(ctx.value_type(operands[0]));
    p.write_str(" into ");
    p.print_type(ctx.value_type(ctx.result(op, 0)));
    Ok(())
}
