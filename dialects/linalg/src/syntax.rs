//! Custom syntax of the linalg ops, as upstream prints them:
//!
//! - `linalg.generic {indexing_maps = [...], iterator_types = ["parallel"]} ins(%a : T)
//!   outs(%b : T) [attrs {...}] { body } [-> T]`, iterator types spelled as strings;
//! - named ops: `linalg.matmul [{attrs}] ins(%a, %b : A, B) outs(%c : C) [-> C]`, with the
//!   body built from the op's body function;
//! - `linalg.transpose ... permutation = [1, 0]`, `linalg.broadcast ... dimensions = [2]`,
//!   `linalg.map ins(...) outs(...) (%a: f32, %init: f32) { body }`, `linalg.reduce ...
//!   dimensions = [1] (%in: f32, %init: f32) { body }`, whose results are the tensor inits'
//!   types; the short form of the body (`linalg.map { arith.addf } ins(...) outs(...)`) is
//!   read too, and written in the long form;
//! - `linalg.index 0 : index`.

use nart_ir::asm::{Delimiter, OpAsmParser, OpAsmPrinter};
use nart_ir::parser::UnresolvedOperand;
use nart_ir::{Attr, AttrData, Diagnostic, NamedAttr, Op, OperationState, Type, TypeData, Value};

use crate::attrs::{iterator_type_attr, iterator_type_of, IteratorType};
use crate::structured::is_tensor;
use nart_dialect_tensor::syntax::segment_sizes;
use nart_dialect_tensor::util::{dense_i64, dense_prop};

type PResult<T> = Result<T, Diagnostic>;

fn push_prop(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState, name: &str, value: Attr) {
    let name = p.ctx().ident(name);
    st.props.retain(|a| a.name != name);
    st.props.push(NamedAttr { name, value });
}

/// Reads `kw(%a, %b : A, B)` when `kw` is next; resolves the operands into `st`, returns
/// their types.
fn parse_operand_group(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
    kw: &str,
) -> PResult<Vec<Type>> {
    if !p.parse_optional_keyword(kw) {
        return Ok(Vec::new());
    }
    p.parse_lparen()?;
    let operands: Vec<UnresolvedOperand> = p.parse_operand_list()?;
    let mut types = Vec::new();
    if !operands.is_empty() {
        p.parse_colon()?;
        types = p.parse_type_list()?;
    }
    p.parse_rparen()?;
    p.resolve_operands(&operands, &types, &mut st.operands)?;
    Ok(types)
}

fn print_operand_group(p: &mut OpAsmPrinter<'_>, kw: &str, values: &[Value]) {
    if values.is_empty() {
        return;
    }
    let types: Vec<Type> = values.iter().map(|&v| p.ctx().value_type(v)).collect();
    p.write_str(&format!(" {kw}("));
    p.print_operands(values);
    p.write_str(" : ");
    p.print_types(&types);
    p.write_str(")");
}

/// Reads `name = [1, 0]` into a dense `i64` array property.
fn parse_int_list_prop(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
    name: &str,
) -> PResult<()> {
    p.parse_keyword(name)?;
    p.parse_equal()?;
    p.parse_lsquare()?;
    let mut vals = Vec::new();
    if !p.peek_is("]") {
        loop {
            let v = p.parse_integer()?;
            vals.push(i64::try_from(v).map_err(|_| p.emit_error("integer out of range"))?);
            if !p.parse_optional_comma() {
                break;
            }
        }
    }
    p.parse_rsquare()?;
    let a = dense_i64(p.ctx(), &vals);
    push_prop(p, st, name, a);
    Ok(())
}

fn print_int_list_prop(p: &mut OpAsmPrinter<'_>, op: Op, name: &str) {
    let v = dense_prop(p.ctx(), op, name);
    let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    p.write_str(&format!(" {name} = [{}]", s.join(", ")));
}

/// The ops whose results are the tensor inits' types, not written after `->`.
fn infers_results(name: &str) -> bool {
    matches!(
        name,
        "linalg.transpose" | "linalg.broadcast" | "linalg.map" | "linalg.reduce"
    )
}

/// The ops that size their operand groups with `operandSegmentSizes`.
fn has_segments(p_def: &nart_ir::OpDef) -> bool {
    p_def.has_trait(nart_ir::Trait::AttrSizedOperandSegments)
}

/// Parses a named structured op.
pub fn parse_named(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let def = p.op_def();
    let name = def.name;
    let written_body = matches!(name, "linalg.map" | "linalg.reduce");
    // The short form `{ arith.addf }`: the body applies that op to the elements.
    let mut short_op = None;
    if written_body && p.peek_is("{") {
        p.parse_literal("{")?;
        let pos = p.current_pos();
        let op_name = p.parse_keyword_any()?;
        let known = p
            .ctx()
            .lookup_ident(&op_name)
            .and_then(|id| p.ctx().op_def_by_name(id))
            .is_some();
        if !known {
            return Err(p.emit_error_at_pos(
                pos,
                format!("unknown operation '{op_name}' in the short form of the body"),
            ));
        }
        p.parse_literal("}")?;
        short_op = Some(op_name);
    }
    if !written_body {
        p.parse_optional_attr_dict(st)?;
    }
    let ins = parse_operand_group(p, st, "ins")?;
    let outs = parse_operand_group(p, st, "outs")?;
    match name {
        "linalg.transpose" => parse_int_list_prop(p, st, "permutation")?,
        "linalg.broadcast" | "linalg.reduce" => parse_int_list_prop(p, st, "dimensions")?,
        _ => {}
    }
    let region = if let Some(op_name) = short_op {
        let elem: Vec<Type> = ins
            .iter()
            .chain(&outs)
            .map(|&t| p.ctx().element_type(t))
            .collect();
        let loc = p.current_location();
        let ctx = p.ctx();
        let region = ctx.create_region();
        let block = ctx.create_block(&elem, loc);
        ctx.append_block(region, block);
        let args = ctx.block_args(block).to_vec();
        // `linalg.map` applies the op to the inputs; `linalg.reduce` to the accumulator and
        // the input, as upstream's short form does.
        let (operands, ty) = match (name, args.as_slice()) {
            ("linalg.reduce", [x, acc]) => (vec![*acc, *x], ctx.value_type(*acc)),
            ("linalg.map", [ins @ .., init]) => (ins.to_vec(), ctx.value_type(*init)),
            _ => (
                Vec::new(),
                elem.last().copied().unwrap_or_else(|| ctx.none_type()),
            ),
        };
        if !operands.is_empty() {
            let st = OperationState::new(ctx, &op_name, loc)
                .operands(&operands)
                .results(&[ty]);
            let op = ctx.create_op(st);
            ctx.append_op(block, op);
            let r = ctx.result(op, 0);
            let mut b = nart_ir::IrBuilder::new(ctx, nart_ir::InsertPoint::BlockEnd(block));
            crate::named::yield_values(&mut b, &[r], loc);
        }
        region
    } else if written_body {
        let args = p.parse_argument_list(Delimiter::Paren, true, false)?;
        p.parse_region(&args)?
    } else {
        let elem: Vec<Type> = ins
            .iter()
            .chain(&outs)
            .map(|&t| p.ctx().element_type(t))
            .collect();
        let loc = p.current_location();
        let ctx = p.ctx();
        let region = ctx.create_region();
        let block = ctx.create_block(&elem, loc);
        ctx.append_block(region, block);
        if let Some(body) = crate::ops::body_fn(name) {
            let mut b = nart_ir::IrBuilder::new(ctx, nart_ir::InsertPoint::BlockEnd(block));
            body(&mut b, block, loc);
        }
        region
    };
    st.regions.push(region);
    if infers_results(name) {
        p.parse_optional_attr_dict(st)?;
        let results: Vec<Type> = outs
            .iter()
            .copied()
            .filter(|&t| is_tensor(p.ctx(), t))
            .collect();
        st.result_types.extend(results);
    } else if p.parse_optional_arrow() {
        // `-> t` or `-> (t1, t2)`, as upstream's `parseOptionalArrowTypeList`.
        let tys = p.parse_function_result_types()?;
        st.result_types.extend(tys);
    }
    let props = st.props.clone();
    let ctx: &nart_ir::Context = p.ctx();
    let memo = crate::named::memoized_maps(ctx, name, |n| {
        props.iter().find(|a| ctx.str(a.name) == n).map(|a| a.value)
    });
    if let Some(maps) = memo {
        let items: Vec<Attr> = maps
            .into_iter()
            .map(|m| p.ctx().intern_attr(AttrData::AffineMap(m)))
            .collect();
        let a = p.ctx().array_attr(items);
        let id = p.ctx().ident(crate::named::MEMOIZED_MAPS);
        st.attrs.retain(|x| x.name != id);
        st.attrs.push(NamedAttr { name: id, value: a });
    }
    if has_segments(def) {
        let seg = segment_sizes(p.ctx(), &[ins.len(), outs.len()]);
        push_prop(p, st, "operandSegmentSizes", seg);
    }
    match name {
        "linalg.matmul" | "linalg.batch_matmul" => {
            let maps = if name == "linalg.matmul" {
                crate::named::default_matmul_maps()
            } else {
                crate::named::default_batch_matmul_maps()
            };
            let items: Vec<Attr> = maps
                .into_iter()
                .map(|m| p.ctx().intern_attr(AttrData::AffineMap(m)))
                .collect();
            let a = p.ctx().array_attr(items);
            if !st
                .props
                .iter()
                .any(|n| p.ctx().str(n.name) == "indexing_maps")
            {
                push_prop(p, st, "indexing_maps", a);
            }
        }
        _ => {}
    }
    Ok(())
}

/// Prints a named structured op.
pub fn print_named(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let name = ctx.op_name_str(op);
    let s = crate::structured::structured(ctx, op);
    let operands = ctx.operands(op).to_vec();
    let n_in = s.map_or(0, |s| s.num_inputs(ctx, op)).min(operands.len());
    let mut elided = vec![
        "operandSegmentSizes",
        "permutation",
        "dimensions",
        crate::named::MEMOIZED_MAPS,
    ];
    // `indexing_maps` of a matmul is elided when it holds the default maps.
    let default_maps = match name {
        "linalg.matmul" => Some(crate::named::default_matmul_maps()),
        "linalg.batch_matmul" => Some(crate::named::default_batch_matmul_maps()),
        _ => None,
    };
    if let Some(want) = default_maps {
        let has = ctx
            .attr(op, "indexing_maps")
            .and_then(|a| crate::structured::maps_of(ctx, a));
        if has.is_none_or(|m| m == want) {
            elided.push("indexing_maps");
        }
    }
    let infers = infers_results(name);
    if !infers {
        p.print_optional_attr_dict(op, &elided);
    }
    print_operand_group(p, "ins", &operands[..n_in]);
    print_operand_group(p, "outs", &operands[n_in..]);
    match name {
        "linalg.transpose" => print_int_list_prop(p, op, "permutation"),
        "linalg.broadcast" | "linalg.reduce" => print_int_list_prop(p, op, "dimensions"),
        _ => {}
    }
    if infers {
        p.print_optional_attr_dict(op, &elided);
    }
    if matches!(name, "linalg.map" | "linalg.reduce") {
        let region = ctx.region(op, 0);
        if let Some(&block) = ctx.region_blocks(region).first() {
            p.write_str(" (");
            for (i, &a) in ctx.block_args(block).iter().enumerate() {
                if i > 0 {
                    p.write_str(", ");
                }
                p.print_block_arg_decl(a);
            }
            p.write_str(") ");
            p.print_region(region, false, false);
        }
    }
    if !infers {
        let tys: Vec<Type> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
        p.print_arrow_type_list(&tys);
    }
    Ok(())
}

/// Parses `linalg.generic {dict} ins(...) outs(...) [attrs {...}] region [-> types]`.
pub fn parse_generic(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let dict_pos = p.current_pos();
    p.parse_optional_attr_dict(st)?;
    // `iterator_types` is written as strings; the property holds enum attributes.
    let it_name = p.ctx().ident("iterator_types");
    for list in [&mut st.props, &mut st.attrs] {
        for a in list.iter_mut().filter(|a| a.name == it_name) {
            let items = match p.ctx().attr_data(a.value) {
                AttrData::Array(items) => items.clone(),
                _ => {
                    return Err(
                        p.emit_error_at_pos(dict_pos, "expected iterator_types to be an array")
                    )
                }
            };
            let mut out = Vec::new();
            for i in items {
                let kind = match p.ctx().attr_data(i).clone() {
                    AttrData::String { value, .. } => {
                        let s = String::from_utf8_lossy(&value).into_owned();
                        IteratorType::from_keyword(&s).ok_or_else(|| {
                            p.emit_error_at_pos(dict_pos, format!("unknown iterator type '{s}'"))
                        })?
                    }
                    _ => iterator_type_of(p.ctx(), i).ok_or_else(|| {
                        p.emit_error_at_pos(dict_pos, "expected iterator types as strings")
                    })?,
                };
                out.push(iterator_type_attr(p.ctx(), kind));
            }
            a.value = p.ctx().array_attr(out);
        }
    }
    // Inherent attributes written in the dictionary are properties.
    let inherent = ["indexing_maps", "iterator_types", "doc", "library_call"];
    let moved: Vec<NamedAttr> = st
        .attrs
        .iter()
        .copied()
        .filter(|a| inherent.contains(&p.ctx().str(a.name)))
        .collect();
    st.attrs
        .retain(|a| !inherent.contains(&p.ctx().str(a.name)));
    for a in moved {
        st.props.retain(|b| b.name != a.name);
        st.props.push(a);
    }
    let ins = parse_operand_group(p, st, "ins")?;
    let outs = parse_operand_group(p, st, "outs")?;
    if p.parse_optional_keyword("attrs") {
        p.parse_equal()?;
        p.parse_optional_attr_dict(st)?;
    }
    let region = p.parse_region(&[])?;
    st.regions.push(region);
    if p.parse_optional_arrow() {
        // `-> t` or `-> (t1, t2)`, as upstream's `parseOptionalArrowTypeList`.
        let tys = p.parse_function_result_types()?;
        st.result_types.extend(tys);
    }
    let seg = segment_sizes(p.ctx(), &[ins.len(), outs.len()]);
    push_prop(p, st, "operandSegmentSizes", seg);
    Ok(())
}

/// Prints `linalg.generic {dict} ins(...) outs(...) [attrs = {...}] region [-> types]`.
pub fn print_generic(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    let n_in = crate::named::segment_inputs(ctx, op).min(operands.len());
    // Upstream spells the iterator types as strings here.
    p.write_str(" {");
    let mut first = true;
    for name in ["doc", "indexing_maps", "iterator_types", "library_call"] {
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
            let kinds = crate::structured::iterators_of(ctx, a).unwrap_or_default();
            let s: Vec<String> = kinds
                .iter()
                .map(|k| format!("\"{}\"", k.keyword()))
                .collect();
            p.write_str(&format!("[{}]", s.join(", ")));
        } else {
            p.print_attribute(a);
        }
    }
    p.write_str("}");
    print_operand_group(p, "ins", &operands[..n_in]);
    print_operand_group(p, "outs", &operands[n_in..]);
    let others: Vec<NamedAttr> = ctx.attrs(op).to_vec();
    if !others.is_empty() {
        p.write_str(" attrs = ");
        p.print_attr_dict_entries(&others, &[]);
    }
    p.write_str(" ");
    p.print_region(ctx.region(op, 0), true, true);
    // ` -> t` or ` -> (t1, t2)`, as upstream's `printOptionalArrowTypeList`.
    let tys: Vec<Type> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
    p.print_arrow_type_list(&tys);
    Ok(())
}

/// Parses `linalg.index 0 attr-dict : index`.
pub fn parse_index(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let dim = p.parse_integer()?;
    let i64t = p.ctx().int_type(64);
    let a = p.ctx().int_attr(i64t, dim);
    push_prop(p, st, "dim", a);
    p.parse_optional_attr_dict(st)?;
    let ty = p.parse_colon_type()?;
    if !matches!(p.ctx().type_data(ty), TypeData::Index) {
        return Err(p.emit_error("expected index"));
    }
    st.result_types.push(ty);
    Ok(())
}

/// Prints `linalg.index 0 attr-dict : index`.
pub fn print_index(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let dim = ctx
        .attr(op, "dim")
        .and_then(|a| ctx.attr_int(a))
        .unwrap_or(0);
    p.write_str(&format!(" {dim}"));
    p.print_optional_attr_dict(op, &["dim"]);
    p.write_str(" : index");
    Ok(())
}
