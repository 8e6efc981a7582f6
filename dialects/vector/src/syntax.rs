//! The custom syntax of the `vector` ops the declarative format cannot express, as upstream
//! prints and parses them.

use nart_dialect_arith::attrs::FASTMATH as FASTMATH_ATTR;
use nart_ir::asm::{OpAsmParser, OpAsmPrinter, UnresolvedOperand};
use nart_ir::enums::parse_enum_attr;
use nart_ir::{
    AffineExpr, AffineMap, Attr, AttrData, DenseArrayData, Diagnostic, NamedAttr, Op,
    OperationState, Type, TypeData,
};

use crate::attrs::{COMBINING_KIND, KIND};
use crate::ops::outerproduct_result;

fn add_prop(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState, name: &str, value: Attr) {
    let name = p.ctx().ident(name);
    st.props.retain(|a| a.name != name);
    st.props.push(NamedAttr { name, value });
}

fn has_prop(p: &mut OpAsmParser<'_, '_>, st: &OperationState, name: &str) -> bool {
    let name = p.ctx().ident(name);
    st.props.iter().chain(&st.attrs).any(|a| a.name == name)
}

fn i32_array(p: &mut OpAsmParser<'_, '_>, v: &[i64]) -> Attr {
    let elem = p.ctx().i32_type();
    p.ctx().intern_attr(AttrData::DenseArray {
        elem,
        data: DenseArrayData::Int(v.to_vec()),
    })
}

fn vector_of(p: &mut OpAsmParser<'_, '_>, shape: Vec<i64>, elem: Type) -> Type {
    let scalable = vec![false; shape.len()];
    p.ctx().intern_type(TypeData::Vector {
        shape,
        scalable,
        elem,
    })
}

fn shaped_parts(p: &mut OpAsmParser<'_, '_>, t: Type) -> Option<(Vec<i64>, Type)> {
    match p.ctx().type_data(t) {
        TypeData::Vector { shape, elem, .. }
        | TypeData::MemRef { shape, elem, .. }
        | TypeData::RankedTensor { shape, elem, .. } => Some((shape.clone(), *elem)),
        _ => None,
    }
}

/// `%v = vector.from_elements %a, %b, ... attr-dict : vector-type`
pub fn parse_from_elements(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    let elems = p.parse_operand_list()?;
    p.parse_optional_attr_dict(st)?;
    p.parse_colon()?;
    let at = p.current_pos();
    let vt = p.parse_type()?;
    let Some((_, elem)) =
        shaped_parts(p, vt).filter(|_| matches!(p.ctx().type_data(vt), TypeData::Vector { .. }))
    else {
        return Err(p.emit_error_at_pos(at, "expected a vector type"));
    };
    p.resolve_operands_same(&elems, elem, &mut st.operands);
    st.result_types.push(vt);
    Ok(())
}

/// Prints `vector.from_elements` as upstream does.
pub fn print_from_elements(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    p.write_str(" ");
    p.print_operands(ctx.operands(op));
    p.print_optional_attr_dict(op, &[]);
    p.write_str(" : ");
    p.print_type(ctx.value_type(ctx.result(op, 0)));
    Ok(())
}

fn print_position(p: &mut OpAsmPrinter<'_>, op: Op, dynamic: &[nart_ir::Value]) {
    let ctx = p.ctx();
    let statics = match ctx.attr(op, "static_position").map(|a| ctx.attr_data(a)) {
        Some(AttrData::DenseArray {
            data: DenseArrayData::Int(v),
            ..
        }) => v.clone(),
        _ => Vec::new(),
    };
    p.print_dynamic_index_list(&statics, dynamic);
}

fn position_prop(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState, statics: Vec<i64>) {
    let elem = p.ctx().i64_type();
    let a = p.ctx().intern_attr(AttrData::DenseArray {
        elem,
        data: DenseArrayData::Int(statics),
    });
    add_prop(p, st, "static_position", a);
}

/// `%x = vector.extract %v[pos] attr-dict : result-type from vector-type`
pub fn parse_extract(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    let src = p.parse_operand()?;
    let (statics, dynamics) = p.parse_dynamic_index_list()?;
    p.parse_optional_attr_dict(st)?;
    let res = p.parse_colon_type()?;
    p.parse_keyword("from")?;
    let vt = p.parse_type()?;
    let s = p.resolve_operand(&src, vt);
    st.operands.push(s);
    let index = p.ctx().index_type();
    p.resolve_operands_same(&dynamics, index, &mut st.operands);
    position_prop(p, st, statics);
    st.result_types.push(res);
    Ok(())
}

/// Prints `vector.extract` as upstream does.
pub fn print_extract(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    p.write_str(" ");
    p.print_operand(operands[0]);
    print_position(p, op, &operands[1..]);
    p.print_optional_attr_dict(op, &["static_position"]);
    p.write_str(" : ");
    p.print_type(ctx.value_type(ctx.result(op, 0)));
    p.write_str(" from ");
    p.print_type(ctx.value_type(operands[0]));
    Ok(())
}

/// `%r = vector.insert %x, %v [pos] attr-dict : value-type into vector-type`
pub fn parse_insert(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    let value = p.parse_operand()?;
    p.parse_comma()?;
    let dest = p.parse_operand()?;
    let (statics, dynamics) = p.parse_dynamic_index_list()?;
    p.parse_optional_attr_dict(st)?;
    let vt = p.parse_colon_type()?;
    p.parse_keyword("into")?;
    let dt = p.parse_type()?;
    let v = p.resolve_operand(&value, vt);
    let d = p.resolve_operand(&dest, dt);
    st.operands.extend([v, d]);
    let index = p.ctx().index_type();
    p.resolve_operands_same(&dynamics, index, &mut st.operands);
    position_prop(p, st, statics);
    st.result_types.push(dt);
    Ok(())
}

/// Prints `vector.insert` as upstream does (with a space before the position).
pub fn print_insert(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    p.write_str(" ");
    p.print_operand(operands[0]);
    p.write_str(", ");
    p.print_operand(operands[1]);
    p.write_str(" ");
    print_position(p, op, &operands[2..]);
    p.print_optional_attr_dict(op, &["static_position"]);
    p.write_str(" : ");
    p.print_type(ctx.value_type(operands[0]));
    p.write_str(" into ");
    p.print_type(ctx.value_type(operands[1]));
    Ok(())
}

fn print_kind(p: &mut OpAsmPrinter<'_>, a: Attr) {
    let v = p.ctx().enum_value(a, &KIND).unwrap_or(0);
    let mut s = String::new();
    COMBINING_KIND.write_value(&mut s, v);
    p.write_str("<");
    p.write_str(&s);
    p.write_str(">");
}

/// `%s = vector.reduction <kind>, %v (, %acc)? (fastmath<flags>)? attr-dict : vector-type into type`
pub fn parse_reduction(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    let kind = parse_enum_attr(p, &KIND)?;
    add_prop(p, st, "kind", kind);
    p.parse_comma()?;
    let v = p.parse_operand()?;
    let acc = if p.parse_optional_comma() {
        Some(p.parse_operand()?)
    } else {
        None
    };
    if p.parse_optional_keyword("fastmath") {
        let fm = parse_enum_attr(p, &FASTMATH_ATTR)?;
        add_prop(p, st, "fastmath", fm);
    }
    p.parse_optional_attr_dict(st)?;
    let vt = p.parse_colon_type()?;
    p.parse_keyword("into")?;
    let dt = p.parse_type()?;
    let vv = p.resolve_operand(&v, vt);
    st.operands.push(vv);
    if let Some(acc) = acc {
        let a = p.resolve_operand(&acc, dt);
        st.operands.push(a);
    }
    st.result_types.push(dt);
    Ok(())
}

/// Prints `vector.reduction` as upstream does.
pub fn print_reduction(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    p.write_str(" ");
    if let Some(k) = ctx.attr(op, "kind") {
        print_kind(p, k);
    }
    p.write_str(", ");
    p.print_operands(&operands);
    if let Some(fm) = ctx.attr(op, "fastmath") {
        let v = ctx.enum_value(fm, &FASTMATH_ATTR).unwrap_or(0);
        if v != 0 {
            let mut s = String::new();
            if let Some(e) = FASTMATH_ATTR.enum_def {
                e.write_value(&mut s, v);
            }
            p.write_str(" fastmath<");
            p.write_str(&s);
            p.write_str(">");
        }
    }
    p.print_optional_attr_dict(op, &["kind", "fastmath"]);
    p.write_str(" : ");
    p.print_type(ctx.value_type(operands[0]));
    p.write_str(" into ");
    p.print_type(ctx.value_type(ctx.result(op, 0)));
    Ok(())
}

/// `%r = vector.outerproduct %a, %b (, %acc)? attr-dict : lhs-type, rhs-type`
pub fn parse_outerproduct(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    let lhs = p.parse_operand()?;
    p.parse_comma()?;
    let rhs = p.parse_operand()?;
    let acc = if p.parse_optional_comma() {
        Some(p.parse_operand()?)
    } else {
        None
    };
    p.parse_optional_attr_dict(st)?;
    p.parse_colon()?;
    let at = p.current_pos();
    let lt = p.parse_type()?;
    p.parse_comma()?;
    let rt = p.parse_type()?;
    let Some(res) = outerproduct_result(p.ctx(), lt, rt) else {
        return Err(p.emit_error_at_pos(at, "expected a 1-d vector type for the first operand"));
    };
    let l = p.resolve_operand(&lhs, lt);
    let r = p.resolve_operand(&rhs, rt);
    st.operands.extend([l, r]);
    if let Some(acc) = acc {
        let a = p.resolve_operand(&acc, res);
        st.operands.push(a);
    }
    if !has_prop(p, st, "kind") {
        let add = crate::attrs::kind_add(p.ctx());
        add_prop(p, st, "kind", add);
    }
    st.result_types.push(res);
    Ok(())
}

/// Prints `vector.outerproduct` as upstream does: the attributes (the combining kind too)
/// only when there is an accumulator.
pub fn print_outerproduct(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    p.write_str(" ");
    p.print_operands(&operands);
    if operands.len() > 2 {
        p.print_optional_attr_dict(op, &[]);
    }
    p.write_str(" : ");
    p.print_type(ctx.value_type(operands[0]));
    p.write_str(", ");
    p.print_type(ctx.value_type(operands[1]));
    Ok(())
}

/// The minor identity map `(d0, ..., d{n-1}) -> (d{n-k}, ..., d{n-1})`.
fn minor_identity(dims: usize, results: usize) -> AffineMap {
    AffineMap {
        num_dims: dims as u32,
        num_symbols: 0,
        results: (dims.saturating_sub(results)..dims)
            .map(|d| AffineExpr::Dim(d as u32))
            .collect(),
    }
}

/// The mask type of a transfer: `i1` over the vector dimensions that read a source dimension,
/// in source-dimension order (upstream's `inferTransferOpMaskType`).
fn mask_type(p: &mut OpAsmParser<'_, '_>, vt: Type, map: &AffineMap) -> Option<Type> {
    let (shape, _) = shaped_parts(p, vt)?;
    let mut dims: Vec<(u32, i64)> = map
        .results
        .iter()
        .zip(&shape)
        .filter_map(|(e, &s)| match e {
            AffineExpr::Dim(d) => Some((*d, s)),
            _ => None,
        })
        .collect();
    dims.sort_by_key(|&(d, _)| d);
    let i1 = p.ctx().i1_type();
    Some(vector_of(p, dims.into_iter().map(|(_, s)| s).collect(), i1))
}

/// Fills in the defaults of a transfer's properties: the minor identity map and all-false
/// `in_bounds`. Returns the map.
fn transfer_defaults(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
    source: Type,
    vector: Type,
) -> AffineMap {
    let src_rank = shaped_parts(p, source).map_or(0, |(s, _)| s.len());
    let vec_rank = shaped_parts(p, vector).map_or(0, |(s, _)| s.len());
    let name = p.ctx().ident("permutation_map");
    let given = st
        .props
        .iter()
        .chain(&st.attrs)
        .find(|a| a.name == name)
        .and_then(|a| match p.ctx().attr_data(a.value) {
            AttrData::AffineMap(m) => Some(m.clone()),
            _ => None,
        });
    let map = match given {
        Some(m) => m,
        None => {
            let m = minor_identity(src_rank, vec_rank);
            let a = p.ctx().intern_attr(AttrData::AffineMap(m.clone()));
            add_prop(p, st, "permutation_map", a);
            m
        }
    };
    if !has_prop(p, st, "in_bounds") {
        let f = p.ctx().bool_attr(false);
        let a = p.ctx().array_attr(vec![f; map.results.len()]);
        add_prop(p, st, "in_bounds", a);
    }
    map
}

fn print_transfer_attrs(p: &mut OpAsmPrinter<'_>, op: Op, source: Type) {
    let ctx = p.ctx();
    let mut elided = vec!["operandSegmentSizes"];
    let src_rank = ctx.shape_of(source).map_or(0, <[i64]>::len);
    if let Some(AttrData::AffineMap(m)) = ctx.attr(op, "permutation_map").map(|a| ctx.attr_data(a))
    {
        if *m == minor_identity(src_rank, m.results.len()) {
            elided.push("permutation_map");
        }
    }
    let all_false = match ctx.attr(op, "in_bounds").map(|a| ctx.attr_data(a)) {
        Some(AttrData::Array(v)) => v.iter().all(|&b| ctx.attr_bool(b) == Some(false)),
        _ => true,
    };
    if all_false {
        elided.push("in_bounds");
    }
    p.print_optional_attr_dict(op, &elided);
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

/// `%v = vector.transfer_read %src[indices], %pad (, %mask)? attr-dict : source-type, vector-type`
pub fn parse_transfer_read(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    let src = p.parse_operand()?;
    let indices = index_list(p)?;
    p.parse_comma()?;
    let pad = p.parse_operand()?;
    let mask = if p.parse_optional_comma() {
        Some(p.parse_operand()?)
    } else {
        None
    };
    p.parse_optional_attr_dict(st)?;
    p.parse_colon()?;
    let at = p.current_pos();
    let source = p.parse_type()?;
    p.parse_comma()?;
    let vector = p.parse_type()?;
    let Some((_, elem)) = shaped_parts(p, source) else {
        return Err(p.emit_error_at_pos(at, "requires memref or ranked tensor type"));
    };
    let map = transfer_defaults(p, st, source, vector);
    let s = p.resolve_operand(&src, source);
    st.operands.push(s);
    let index = p.ctx().index_type();
    p.resolve_operands_same(&indices, index, &mut st.operands);
    let pv = p.resolve_operand(&pad, elem);
    st.operands.push(pv);
    if let Some(m) = mask {
        let Some(mt) = mask_type(p, vector, &map) else {
            return Err(p.emit_error_at_pos(at, "expected a vector type"));
        };
        let mv = p.resolve_operand(&m, mt);
        st.operands.push(mv);
    }
    let seg = i32_array(p, &[1, indices.len() as i64, 1, mask.is_some() as i64]);
    add_prop(p, st, "operandSegmentSizes", seg);
    st.result_types.push(vector);
    Ok(())
}

/// Prints `vector.transfer_read` as upstream does.
pub fn print_transfer_read(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let t = crate::TransferReadOp(op);
    let source = ctx.value_type(t.base(ctx));
    p.write_str(" ");
    p.print_operand(t.base(ctx));
    p.write_str("[");
    p.print_operands(t.indices(ctx));
    p.write_str("], ");
    p.print_operand(t.padding(ctx));
    if let Some(m) = t.mask(ctx) {
        p.write_str(", ");
        p.print_operand(m);
    }
    print_transfer_attrs(p, op, source);
    p.write_str(" : ");
    p.print_type(source);
    p.write_str(", ");
    p.print_type(ctx.value_type(ctx.result(op, 0)));
    Ok(())
}

/// `(%t =)? vector.transfer_write %v, %dst[indices] (, %mask)? attr-dict : vector-type, dest-type`
pub fn parse_transfer_write(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    let value = p.parse_operand()?;
    p.parse_comma()?;
    let dst = p.parse_operand()?;
    let indices = index_list(p)?;
    let mask = if p.parse_optional_comma() {
        Some(p.parse_operand()?)
    } else {
        None
    };
    p.parse_optional_attr_dict(st)?;
    p.parse_colon()?;
    let at = p.current_pos();
    let vector = p.parse_type()?;
    p.parse_comma()?;
    let dest = p.parse_type()?;
    if shaped_parts(p, dest).is_none() {
        return Err(p.emit_error_at_pos(at, "requires memref or ranked tensor type"));
    }
    let map = transfer_defaults(p, st, dest, vector);
    let v = p.resolve_operand(&value, vector);
    let d = p.resolve_operand(&dst, dest);
    st.operands.extend([v, d]);
    let index = p.ctx().index_type();
    p.resolve_operands_same(&indices, index, &mut st.operands);
    if let Some(m) = mask {
        let Some(mt) = mask_type(p, vector, &map) else {
            return Err(p.emit_error_at_pos(at, "expected a vector type"));
        };
        let mv = p.resolve_operand(&m, mt);
        st.operands.push(mv);
    }
    let seg = i32_array(p, &[1, 1, indices.len() as i64, mask.is_some() as i64]);
    add_prop(p, st, "operandSegmentSizes", seg);
    if matches!(p.ctx().type_data(dest), TypeData::RankedTensor { .. }) {
        st.result_types.push(dest);
    }
    Ok(())
}

/// Prints `vector.transfer_write` as upstream does.
pub fn print_transfer_write(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let t = crate::TransferWriteOp(op);
    let dest = ctx.value_type(t.base(ctx));
    p.write_str(" ");
    p.print_operand(t.value_to_store(ctx));
    p.write_str(", ");
    p.print_operand(t.base(ctx));
    p.write_str("[");
    p.print_operands(t.indices(ctx));
    p.write_str("]");
    if let Some(m) = t.mask(ctx) {
        p.write_str(", ");
        p.print_operand(m);
    }
    print_transfer_attrs(p, op, dest);
    p.write_str(" : ");
    p.print_type(ctx.value_type(t.value_to_store(ctx)));
    p.write_str(", ");
    p.print_type(dest);
    Ok(())
}

const CONTRACT_TRAIT_ATTRS: [&str; 3] = ["indexing_maps", "iterator_types", "kind"];

/// `%r = vector.contract {indexing_maps = [...], iterator_types = ["parallel", ...], kind = ...}
/// %lhs, %rhs, %acc (, %lhs_mask, %rhs_mask)? attr-dict : lhs-type, rhs-type into acc-type`
pub fn parse_contract(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    let at = p.current_pos();
    p.parse_optional_attr_dict(st)?;
    // The iterator types are written as strings; the property holds enum attributes.
    let name = p.ctx().ident("iterator_types");
    let written = st.props.iter().find(|a| a.name == name).map(|a| a.value);
    if let Some(list) = written {
        let items = match p.ctx().attr_data(list) {
            AttrData::Array(v) => v.clone(),
            _ => return Err(p.emit_error_at_pos(at, "expected an array of iterator types")),
        };
        let mut converted = Vec::with_capacity(items.len());
        for item in items {
            let kw = p.ctx().attr_str(item).map(str::to_string);
            let value = match kw.as_deref() {
                Some("parallel") => 0,
                Some("reduction") => 1,
                _ => {
                    return Err(p.emit_error_at_pos(
                        at,
                        "expected iterator types to be \"parallel\" or \"reduction\"",
                    ))
                }
            };
            converted.push(crate::attrs::ITERATOR_TYPE.enum_attr(p.ctx(), value));
        }
        let a = p.ctx().array_attr(converted);
        add_prop(p, st, "iterator_types", a);
    }
    if !has_prop(p, st, "kind") {
        let add = crate::attrs::kind_add(p.ctx());
        add_prop(p, st, "kind", add);
    }
    let mut operands = vec![p.parse_operand()?];
    for _ in 0..2 {
        p.parse_comma()?;
        operands.push(p.parse_operand()?);
    }
    let mut masks = Vec::new();
    while p.parse_optional_comma() {
        masks.push(p.parse_operand()?);
    }
    p.parse_optional_attr_dict(st)?;
    let lt = p.parse_colon_type()?;
    p.parse_comma()?;
    let rt = p.parse_type()?;
    p.parse_keyword("into")?;
    let rest = p.parse_type()?;
    p.resolve_operands(&operands, &[lt, rt, rest], &mut st.operands)?;
    if !masks.is_empty() {
        let mut mask_types = Vec::new();
        for t in [lt, rt] {
            let shape = shaped_parts(p, t).map_or(Vec::new(), |(s, _)| s);
            let i1 = p.ctx().i1_type();
            mask_types.push(vector_of(p, shape, i1));
        }
        p.resolve_operands(&masks, &mask_types, &mut st.operands)?;
    }
    st.result_types.push(rest);
    Ok(())
}

/// Prints `vector.contract` as upstream does: the trait attributes first, iterator types as
/// strings.
pub fn print_contract(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    p.write_str(" {");
    let mut first = true;
    for name in CONTRACT_TRAIT_ATTRS {
        let Some(a) = ctx.attr(op, name) else {
            continue;
        };
        if !first {
            p.write_str(", ");
        }
        first = false;
        p.write_str(name);
        p.write_str(" = ");
        if name == "iterator_types" {
            let items = match ctx.attr_data(a) {
                AttrData::Array(v) => v.clone(),
                _ => Vec::new(),
            };
            p.write_str("[");
            for (i, &t) in items.iter().enumerate() {
                if i > 0 {
                    p.write_str(", ");
                }
                let kw = ctx
                    .enum_value(t, &crate::attrs::ITERATOR_TYPE)
                    .and_then(|v| crate::attrs::ITERATOR_TYPE_ENUM.keyword(v))
                    .unwrap_or("parallel");
                p.print_string(kw);
            }
            p.write_str("]");
        } else {
            p.print_attribute(a);
        }
    }
    p.write_str("} ");
    p.print_operands(ctx.operands(op));
    p.print_optional_attr_dict(op, &CONTRACT_TRAIT_ATTRS);
    let operands = ctx.operands(op);
    p.write_str(" : ");
    p.print_type(ctx.value_type(operands[0]));
    p.write_str(", ");
    p.print_type(ctx.value_type(operands[1]));
    p.write_str(" into ");
    p.print_type(ctx.value_type(ctx.result(op, 0)));
    Ok(())
}
