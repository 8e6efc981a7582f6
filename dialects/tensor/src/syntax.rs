//! Custom syntax of the tensor ops whose forms the declarative format cannot express: mixed
//! static and dynamic index lists (`[0, %i] [4, 4] [1, 1]`), `low[...] high[...]`,
//! `output_shape [...]`, `dim(N)`, and a result type read off the tensor's element type.

use nart_ir::asm::{OpAsmParser, OpAsmPrinter};
use nart_ir::{
    Attr, AttrData, DenseArrayData, Diagnostic, NamedAttr, Op, OperationState, Uniquer, Value,
};

use crate::util::{dense_i64, dense_prop};

type PResult<T> = Result<T, Diagnostic>;

/// `array<i32: sizes...>`: an `operandSegmentSizes` property.
pub fn segment_sizes(u: &mut Uniquer, sizes: &[usize]) -> Attr {
    let elem = u.int_type(32);
    u.intern_attr(AttrData::DenseArray {
        elem,
        data: DenseArrayData::Int(sizes.iter().map(|&s| s as i64).collect()),
    })
}

fn push_prop(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState, name: &str, value: Attr) {
    let name = p.ctx().ident(name);
    st.props.retain(|a| a.name != name);
    st.props.push(NamedAttr { name, value });
}

/// Parses `%t[%i, %j] attr-dict : type`.
pub fn parse_extract(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let t = p.parse_operand()?;
    p.parse_lsquare()?;
    let idx = p.parse_operand_list()?;
    p.parse_rsquare()?;
    p.parse_optional_attr_dict(st)?;
    let ty = p.parse_colon_type()?;
    let v = p.resolve_operand(&t, ty);
    st.operands.push(v);
    let index = p.ctx().index_type();
    p.resolve_operands_same(&idx, index, &mut st.operands);
    let elem = p.ctx().element_type(ty);
    st.result_types.push(elem);
    Ok(())
}

/// Prints `%t[%i, %j] attr-dict : type`.
pub fn print_extract(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let operands = p.ctx().operands(op).to_vec();
    p.write_str(" ");
    p.print_operand(operands[0]);
    p.write_str("[");
    p.print_operands(&operands[1..]);
    p.write_str("]");
    p.print_optional_attr_dict(op, &[]);
    p.write_str(" : ");
    let ty = p.ctx().value_type(operands[0]);
    p.print_type(ty);
    Ok(())
}

/// Reads the three lists `[offsets] [sizes] [strides]`, stores their static parts, and
/// returns the dynamic operands of each.
fn parse_slice_lists(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> PResult<[Vec<nart_ir::parser::UnresolvedOperand>; 3]> {
    let mut out: [Vec<_>; 3] = Default::default();
    for (i, name) in ["static_offsets", "static_sizes", "static_strides"]
        .iter()
        .enumerate()
    {
        let (s, d) = p.parse_dynamic_index_list()?;
        let a = dense_i64(p.ctx(), &s);
        push_prop(p, st, name, a);
        out[i] = d;
    }
    Ok(out)
}

fn print_slice_lists(p: &mut OpAsmPrinter<'_>, op: Op, first: usize) {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    let mut at = first;
    for name in ["static_offsets", "static_sizes", "static_strides"] {
        let s = dense_prop(ctx, op, name);
        let n = crate::util::count_dynamic(&s);
        let dynamics = operands.get(at..at + n).unwrap_or(&[]).to_vec();
        at += n;
        if name != "static_offsets" {
            p.write_str(" ");
        }
        p.print_dynamic_index_list(&s, &dynamics);
    }
}

const SLICE_PROPS: [&str; 4] = [
    "static_offsets",
    "static_sizes",
    "static_strides",
    "operandSegmentSizes",
];

/// Parses `%src[offsets] [sizes] [strides] attr-dict : type to type`.
pub fn parse_extract_slice(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let src = p.parse_operand()?;
    let lists = parse_slice_lists(p, st)?;
    p.parse_optional_attr_dict(st)?;
    let src_ty = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let res_ty = p.parse_type()?;
    let v = p.resolve_operand(&src, src_ty);
    st.operands.push(v);
    let index = p.ctx().index_type();
    for l in &lists {
        p.resolve_operands_same(l, index, &mut st.operands);
    }
    let seg = segment_sizes(
        p.ctx(),
        &[1, lists[0].len(), lists[1].len(), lists[2].len()],
    );
    push_prop(p, st, "operandSegmentSizes", seg);
    st.result_types.push(res_ty);
    Ok(())
}

/// Prints `%src[offsets] [sizes] [strides] attr-dict : type to type`.
pub fn print_extract_slice(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let src = p.ctx().operand(op, 0);
    p.write_str(" ");
    p.print_operand(src);
    print_slice_lists(p, op, 1);
    p.print_optional_attr_dict(op, &SLICE_PROPS);
    p.write_str(" : ");
    let (a, b) = (
        p.ctx().value_type(src),
        p.ctx().value_type(p.ctx().result(op, 0)),
    );
    p.print_type(a);
    p.write_str(" to ");
    p.print_type(b);
    Ok(())
}

/// Parses `%src into %dest[offsets] [sizes] [strides] attr-dict : type into type`.
pub fn parse_insert_slice(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let src = p.parse_operand()?;
    p.parse_keyword("into")?;
    let dest = p.parse_operand()?;
    let lists = parse_slice_lists(p, st)?;
    p.parse_optional_attr_dict(st)?;
    let src_ty = p.parse_colon_type()?;
    p.parse_keyword("into")?;
    let dest_ty = p.parse_type()?;
    let v = p.resolve_operand(&src, src_ty);
    st.operands.push(v);
    let v = p.resolve_operand(&dest, dest_ty);
    st.operands.push(v);
    let index = p.ctx().index_type();
    for l in &lists {
        p.resolve_operands_same(l, index, &mut st.operands);
    }
    let seg = segment_sizes(
        p.ctx(),
        &[1, 1, lists[0].len(), lists[1].len(), lists[2].len()],
    );
    push_prop(p, st, "operandSegmentSizes", seg);
    st.result_types.push(dest_ty);
    Ok(())
}

/// Prints `%src into %dest[offsets] [sizes] [strides] attr-dict : type into type`.
pub fn print_insert_slice(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let (src, dest) = (p.ctx().operand(op, 0), p.ctx().operand(op, 1));
    p.write_str(" ");
    p.print_operand(src);
    p.write_str(" into ");
    p.print_operand(dest);
    print_slice_lists(p, op, 2);
    p.print_optional_attr_dict(op, &SLICE_PROPS);
    p.write_str(" : ");
    let (a, b) = (p.ctx().value_type(src), p.ctx().value_type(dest));
    p.print_type(a);
    p.write_str(" into ");
    p.print_type(b);
    Ok(())
}

/// Parses `%src [nofold] low[...] high[...] region attr-dict : type to type`.
pub fn parse_pad(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let src = p.parse_operand()?;
    if p.parse_optional_keyword("nofold") {
        let u = p.ctx().unit_attr();
        push_prop(p, st, "nofold", u);
    }
    p.parse_keyword("low")?;
    let (low, low_dyn) = p.parse_dynamic_index_list()?;
    p.parse_keyword("high")?;
    let (high, high_dyn) = p.parse_dynamic_index_list()?;
    let a = dense_i64(p.ctx(), &low);
    push_prop(p, st, "static_low", a);
    let a = dense_i64(p.ctx(), &high);
    push_prop(p, st, "static_high", a);
    let region = p.parse_region(&[])?;
    st.regions.push(region);
    p.parse_optional_attr_dict(st)?;
    let src_ty = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let res_ty = p.parse_type()?;
    let v = p.resolve_operand(&src, src_ty);
    st.operands.push(v);
    let index = p.ctx().index_type();
    p.resolve_operands_same(&low_dyn, index, &mut st.operands);
    p.resolve_operands_same(&high_dyn, index, &mut st.operands);
    let seg = segment_sizes(p.ctx(), &[1, low_dyn.len(), high_dyn.len()]);
    push_prop(p, st, "operandSegmentSizes", seg);
    st.result_types.push(res_ty);
    Ok(())
}

/// Prints `%src [nofold] low[...] high[...] region attr-dict : type to type`.
pub fn print_pad(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    let low = dense_prop(ctx, op, "static_low");
    let high = dense_prop(ctx, op, "static_high");
    let n_low = crate::util::count_dynamic(&low);
    let nofold = ctx.attr(op, "nofold").is_some();
    let region = ctx.region(op, 0);
    let (src_ty, res_ty) = (
        ctx.value_type(operands[0]),
        ctx.value_type(ctx.result(op, 0)),
    );
    p.write_str(" ");
    p.print_operand(operands[0]);
    if nofold {
        p.write_str(" nofold");
    }
    p.write_str(" low");
    p.print_dynamic_index_list(&low, operands.get(1..1 + n_low).unwrap_or(&[]));
    p.write_str(" high");
    p.print_dynamic_index_list(&high, operands.get(1 + n_low..).unwrap_or(&[]));
    p.write_str(" ");
    p.print_region(region, true, true);
    p.print_optional_attr_dict(
        op,
        &["static_low", "static_high", "nofold", "operandSegmentSizes"],
    );
    p.write_str(" : ");
    p.print_type(src_ty);
    p.write_str(" to ");
    p.print_type(res_ty);
    Ok(())
}

/// Parses `%src [[0, 1], [2]] output_shape [...] attr-dict : type into type`.
pub fn parse_expand_shape(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let src = p.parse_operand()?;
    let reassoc = p.parse_attribute()?;
    push_prop(p, st, "reassociation", reassoc);
    p.parse_keyword("output_shape")?;
    let (shape, dynamics) = p.parse_dynamic_index_list()?;
    let a = dense_i64(p.ctx(), &shape);
    push_prop(p, st, "static_output_shape", a);
    p.parse_optional_attr_dict(st)?;
    let src_ty = p.parse_colon_type()?;
    p.parse_keyword("into")?;
    let res_ty = p.parse_type()?;
    let v = p.resolve_operand(&src, src_ty);
    st.operands.push(v);
    let index = p.ctx().index_type();
    p.resolve_operands_same(&dynamics, index, &mut st.operands);
    st.result_types.push(res_ty);
    Ok(())
}

/// Prints `%src [[0, 1], [2]] output_shape [...] attr-dict : type into type`.
pub fn print_expand_shape(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    let shape = dense_prop(ctx, op, "static_output_shape");
    let reassoc = ctx.attr(op, "reassociation");
    let (src_ty, res_ty) = (
        ctx.value_type(operands[0]),
        ctx.value_type(ctx.result(op, 0)),
    );
    p.write_str(" ");
    p.print_operand(operands[0]);
    if let Some(r) = reassoc {
        p.write_str(" ");
        p.print_attribute(r);
    }
    p.write_str(" output_shape ");
    p.print_dynamic_index_list(&shape, &operands[1..]);
    p.print_optional_attr_dict(op, &["reassociation", "static_output_shape"]);
    p.write_str(" : ");
    p.print_type(src_ty);
    p.write_str(" into ");
    p.print_type(res_ty);
    Ok(())
}

/// Parses `dim(N) %a, %b attr-dict : (types) -> type`.
pub fn parse_concat(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    p.parse_keyword("dim")?;
    p.parse_lparen()?;
    let dim = p.parse_integer()?;
    p.parse_rparen()?;
    let i64t = p.ctx().int_type(64);
    let a = p.ctx().int_attr(i64t, dim);
    push_prop(p, st, "dim", a);
    let inputs = p.parse_operand_list()?;
    p.parse_optional_attr_dict(st)?;
    let fty = p.parse_colon_type()?;
    let nart_ir::TypeData::Function {
        inputs: tys,
        results,
    } = p.ctx().type_data(fty).clone()
    else {
        return Err(p.emit_error("expected a function type"));
    };
    p.resolve_operands(&inputs, &tys, &mut st.operands)?;
    st.result_types.extend(results);
    Ok(())
}

/// Prints `dim(N) %a, %b attr-dict : (types) -> type`.
pub fn print_concat(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands: Vec<Value> = ctx.operands(op).to_vec();
    let dim = ctx
        .attr(op, "dim")
        .and_then(|a| ctx.attr_int(a))
        .unwrap_or(0);
    let ins: Vec<_> = operands.iter().map(|&v| ctx.value_type(v)).collect();
    let outs = vec![ctx.value_type(ctx.result(op, 0))];
    p.write_str(&format!(" dim({dim}) "));
    p.print_operands(&operands);
    p.print_optional_attr_dict(op, &["dim"]);
    p.write_str(" : ");
    p.print_functional_type(&ins, &outs);
    Ok(())
}

/// Parses `attr-dict %t, %i : type`.
pub fn parse_dim(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(st)?;
    let t = p.parse_operand()?;
    p.parse_comma()?;
    let i = p.parse_operand()?;
    let ty = p.parse_colon_type()?;
    let v = p.resolve_operand(&t, ty);
    st.operands.push(v);
    let index = p.ctx().index_type();
    let v = p.resolve_operand(&i, index);
    st.operands.push(v);
    st.result_types.push(index);
    Ok(())
}

/// Prints `attr-dict %t, %i : type`.
pub fn print_dim(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let operands = p.ctx().operands(op).to_vec();
    p.print_optional_attr_dict(op, &[]);
    p.write_str(" ");
    p.print_operand(operands[0]);
    p.write_str(", ");
    p.print_operand(operands[1]);
    p.write_str(" : ");
    let ty = p.ctx().value_type(operands[0]);
    p.print_type(ty);
    Ok(())
}
