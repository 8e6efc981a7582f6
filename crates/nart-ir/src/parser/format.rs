//! Reads an op in the custom form described by its declarative assembly format.

use super::lexer::Tok;
use super::{OpAsmParser, PResult, Parser, UnresolvedOperand};
use crate::asm::{compiled_format, FElem};
use crate::interfaces::InferTypeOpInterface;
use crate::registry::{Arity, AttrDef, AttrKind, OpDef, Trait};
use crate::{Attr, NamedAttr, OperationState, Region, Type};

#[derive(Default)]
struct St {
    operands: Vec<Option<Vec<UnresolvedOperand>>>,
    all_operands: Option<Vec<UnresolvedOperand>>,
    operand_types: Vec<Option<Vec<Type>>>,
    all_operand_types: Option<Vec<Type>>,
    result_types: Vec<Option<Vec<Type>>>,
    all_result_types: Option<Vec<Type>>,
    regions: Vec<Option<Region>>,
    all_regions: Vec<Region>,
    /// Where the op's name starts.
    name_pos: u32,
}

pub(crate) fn parse_custom(
    p: &mut Parser<'_>,
    def: &'static OpDef,
    _fmt: &str,
    state: &mut OperationState,
    pos: u32,
) -> PResult<()> {
    let compiled = compiled_format(def).expect("the op has an assembly format");
    let elems = match &*compiled {
        Ok(e) => e.clone(),
        Err(msg) => {
            return Err(p.err_at(
                pos,
                format!(
                    "custom op '{}' has an unsupported assembly format: {msg}",
                    def.name
                ),
            ))
        }
    };
    let mut st = St {
        operands: vec![None; def.operands.len()],
        operand_types: vec![None; def.operands.len()],
        result_types: vec![None; def.results.len()],
        regions: vec![None; def.regions.len()],
        name_pos: pos,
        ..St::default()
    };
    let mut ap = OpAsmParser::new(p, def, 0);
    parse_elems(&mut ap, def, &elems, &mut st, state)?;
    finish(&mut ap, def, st, state, pos)
}

fn parse_elems(
    ap: &mut OpAsmParser<'_, '_>,
    def: &'static OpDef,
    elems: &[FElem],
    st: &mut St,
    state: &mut OperationState,
) -> PResult<()> {
    for e in elems {
        parse_elem(ap, def, e, st, state)?;
    }
    Ok(())
}

fn parse_types(ap: &mut OpAsmParser<'_, '_>, arity: Arity) -> PResult<Vec<Type>> {
    Ok(match arity {
        Arity::Single => vec![ap.parse_type()?],
        Arity::Optional => ap.parse_optional_type()?.into_iter().collect(),
        Arity::Variadic => ap.parse_type_list()?,
    })
}

fn assign_types(
    ap: &mut OpAsmParser<'_, '_>,
    def: &OpDef,
    target: &FElem,
    st: &mut St,
) -> PResult<()> {
    match target {
        FElem::Operand(i) => {
            let t = parse_types(ap, def.operands[*i].arity)?;
            st.operand_types[*i] = Some(t);
        }
        FElem::Result(i) => {
            let t = parse_types(ap, def.results[*i].arity)?;
            st.result_types[*i] = Some(t);
        }
        FElem::Operands => st.all_operand_types = Some(ap.parse_type_list()?),
        FElem::Results => st.all_result_types = Some(ap.parse_type_list()?),
        _ => {}
    }
    Ok(())
}

fn parse_elem(
    ap: &mut OpAsmParser<'_, '_>,
    def: &'static OpDef,
    e: &FElem,
    st: &mut St,
    state: &mut OperationState,
) -> PResult<()> {
    match e {
        FElem::Custom { name, .. } => {
            return Err(ap.emit_error(format!(
                "custom directive '{name}' needs the op's hand-written parser"
            )))
        }
        FElem::Lit(s) => {
            if !s.trim().is_empty() && s != "\\n" {
                ap.parse_literal(s.trim())?;
            }
        }
        FElem::Operand(i) => {
            let ops = match def.operands[*i].arity {
                Arity::Single => vec![ap.parse_operand()?],
                Arity::Optional => ap.parse_optional_operand()?.into_iter().collect(),
                Arity::Variadic => ap.parse_operand_list()?,
            };
            st.operands[*i] = Some(ops);
        }
        FElem::Attr(i) => {
            let a = &def.attrs[*i];
            if let Some(value) = parse_attr_elem(ap, a)? {
                // An attribute dictionary written before wins, as upstream's.
                let name = ap.ctx().ident(a.name);
                if !state.props.iter().any(|p| p.name == name) {
                    state.props.push(NamedAttr { name, value });
                }
            }
        }
        FElem::Region(i) => {
            let r = ap.parse_region(&[])?;
            st.regions[*i] = Some(r);
        }
        FElem::Successor(_) => {
            let b = ap.parse_successor()?;
            state.successors.push(b);
        }
        FElem::AttrDict(kw) => {
            if *kw {
                ap.parse_optional_attr_dict_with_keyword(state)?;
            } else {
                ap.parse_optional_attr_dict(state)?;
            }
        }
        FElem::Operands => st.all_operands = Some(ap.parse_operand_list()?),
        FElem::Results | FElem::Result(_) => {}
        FElem::Regions => {
            while ap.p.is(Tok::LBrace) {
                let r = ap.parse_region(&[])?;
                st.all_regions.push(r);
                if !ap.parse_optional_comma() {
                    break;
                }
            }
        }
        FElem::Successors => {
            if ap.p.is(Tok::CaretIdent) {
                loop {
                    let b = ap.parse_successor()?;
                    state.successors.push(b);
                    if !ap.parse_optional_comma() {
                        break;
                    }
                }
            }
        }
        FElem::Type(t) => assign_types(ap, def, t, st)?,
        FElem::FunctionalType(a, b) => {
            let inputs = ap.parse_paren_type_list()?;
            ap.parse_arrow()?;
            let results = ap.parse_function_result_types()?;
            set_type_list(def, a, inputs, st);
            set_type_list(def, b, results, st);
        }
        FElem::Optional { elems, anchor } => {
            // An empty literal only suppresses a space; the group starts at what follows it.
            let lead = elems
                .iter()
                .position(|e| !matches!(e, FElem::Lit(s) if s.trim().is_empty()))
                .unwrap_or(0);
            let elems = &elems[lead..];
            let present = match &elems[0] {
                FElem::Lit(s) => ap.parse_optional_literal(s.trim()),
                FElem::Operand(_) | FElem::Operands => ap.peek_is("%"),
                FElem::Attr(i) => attr_can_start(ap, &def.attrs[*i]),
                FElem::Region(_) | FElem::Regions => ap.peek_is("{"),
                FElem::Successor(_) | FElem::Successors => ap.peek_is("^"),
                FElem::Type(_) => ap.p.can_start_type(),
                FElem::FunctionalType(..) => ap.peek_is("("),
                _ => false,
            };
            if present {
                let rest = if matches!(elems[0], FElem::Lit(_)) {
                    &elems[1..]
                } else {
                    elems
                };
                parse_elems(ap, def, rest, st, state)?;
                if let FElem::Attr(i) = **anchor {
                    let a = &def.attrs[i];
                    if matches!(a.constraint.kind, AttrKind::Unit) {
                        let name = ap.ctx().ident(a.name);
                        let value = ap.ctx().unit_attr();
                        state.props.retain(|p| p.name != name);
                        state.props.push(NamedAttr { name, value });
                    }
                }
            }
        }
    }
    Ok(())
}

/// Whether the text at the parser can start a property of `a`'s kind.
fn attr_can_start(ap: &OpAsmParser<'_, '_>, a: &AttrDef) -> bool {
    match a.constraint.kind {
        AttrKind::IntEnum { def, .. } => def.cases.iter().any(|c| ap.peek_is(c.keyword)),
        AttrKind::Dialect(_) => ap.peek_is("<"),
        AttrKind::Unit => false,
        AttrKind::Any if a.name == "sym_name" => ap.peek_is("@"),
        AttrKind::Any | AttrKind::Typed => ap.p.can_start_attr(),
        AttrKind::Float(_) => ap.peek_is("-") || ap.p.is(super::lexer::Tok::Float),
        AttrKind::DenseIntArray(_) => ap.peek_is("["),
    }
}

/// Reads a property as its constraint's kind spells it (see the printer's `print_attr_elem`);
/// `None` for a unit attribute, which its optional group sets.
fn parse_attr_elem(ap: &mut OpAsmParser<'_, '_>, a: &AttrDef) -> PResult<Option<Attr>> {
    Ok(Some(match a.constraint.kind {
        AttrKind::Unit => return Ok(None),
        AttrKind::IntEnum { def, width } => {
            let v = def.parse_keyword_for(ap, a.name)?;
            let ty = ap.ctx().int_type(width);
            ap.ctx().int_attr(ty, i128::from(v))
        }
        AttrKind::Dialect(d) => {
            let op = ap.op_def().name;
            ap.p.parse_dialect_attr_params(d, Some(op))?
        }
        AttrKind::Any if a.name == "sym_name" => ap.parse_symbol_name_attr()?,
        AttrKind::Any => ap.parse_attribute()?,
        AttrKind::DenseIntArray(width) => {
            ap.parse_lsquare()?;
            let mut items = Vec::new();
            if !ap.parse_optional_literal("]") {
                loop {
                    let v = ap.parse_integer()?;
                    items
                        .push(i64::try_from(v).map_err(|_| ap.emit_error("integer out of range"))?);
                    if !ap.parse_optional_comma() {
                        break;
                    }
                }
                ap.parse_rsquare()?;
            }
            let elem = ap.ctx().int_type(width);
            ap.ctx().intern_attr(crate::AttrData::DenseArray {
                elem,
                data: crate::DenseArrayData::Int(items),
            })
        }
        AttrKind::Float(kind) => {
            let v = ap.parse_float()?;
            let ty = ap.ctx().float_type(kind);
            ap.ctx().float_attr(ty, v)
        }
        AttrKind::Typed => {
            let pos = ap.p.tok.start;
            let v = ap.parse_attribute()?;
            if ap.p.ctx.typed_attr_type(v).is_none() {
                return Err(ap.p.err_at(pos, "invalid kind of attribute specified"));
            }
            v
        }
    }))
}

fn set_type_list(_def: &OpDef, target: &FElem, types: Vec<Type>, st: &mut St) {
    match target {
        FElem::Operand(i) => st.operand_types[*i] = Some(types),
        FElem::Result(i) => st.result_types[*i] = Some(types),
        FElem::Operands => st.all_operand_types = Some(types),
        FElem::Results => st.all_result_types = Some(types),
        _ => {}
    }
}

/// Splits `types` over definitions with the given arities; `None` if ambiguous.
fn split(arities: &[Arity], types: &[Type]) -> Option<Vec<Vec<Type>>> {
    let fixed = arities.iter().filter(|a| **a == Arity::Single).count();
    let var = arities.len() - fixed;
    if var == 0 && types.len() != fixed || var > 1 || types.len() < fixed {
        return None;
    }
    let extra = types.len() - fixed;
    let mut out = Vec::new();
    let mut at = 0;
    for a in arities {
        let n = if *a == Arity::Single { 1 } else { extra };
        out.push(types[at..at + n].to_vec());
        at += n;
    }
    Some(out)
}

fn finish(
    ap: &mut OpAsmParser<'_, '_>,
    def: &'static OpDef,
    st: St,
    state: &mut OperationState,
    pos: u32,
) -> PResult<()> {
    let same_all = def.has_trait(Trait::SameOperandsAndResultType);
    let same_operands = def.has_trait(Trait::SameTypeOperands);
    let res_arities: Vec<Arity> = def.results.iter().map(|r| r.arity).collect();
    let cannot = |ap: &mut OpAsmParser<'_, '_>, what: &str| {
        ap.p.err_at(
            pos,
            format!(
                "custom op '{}': cannot infer the {what} types from its format",
                def.name
            ),
        )
    };
    // Operands, by group.
    let operand_groups: Vec<Vec<UnresolvedOperand>> = match &st.all_operands {
        Some(all) => vec![all.clone()],
        None => st
            .operands
            .iter()
            .map(|o| o.clone().unwrap_or_default())
            .collect(),
    };
    let flat_ops: Vec<UnresolvedOperand> = operand_groups.iter().flatten().copied().collect();
    // Spelled result types.
    let spelled_results: Option<Vec<Type>> = match &st.all_result_types {
        Some(all) => Some(all.clone()),
        None => {
            let mut v = Vec::new();
            let mut complete = true;
            for (i, t) in st.result_types.iter().enumerate() {
                match t {
                    Some(t) => v.extend(t),
                    None if def.results[i].arity == Arity::Single => complete = false,
                    None => {}
                }
            }
            complete.then_some(v)
        }
    };
    // Operand types: spelled per group, or filled from the traits and buildable constraints.
    let operand_types: Vec<Type> = if let Some(all) = &st.all_operand_types {
        all.clone()
    } else if st.all_operands.is_some() {
        match (same_all, spelled_results.as_ref().and_then(|r| r.first())) {
            (true, Some(&t)) => vec![t; flat_ops.len()],
            _ => return Err(cannot(ap, "operand")),
        }
    } else {
        let first_spelled = st.operand_types.iter().flatten().flatten().next().copied();
        let mut v = Vec::with_capacity(flat_ops.len());
        for (i, group) in operand_groups.iter().enumerate() {
            if let Some(t) = &st.operand_types[i] {
                if t.len() != group.len() {
                    return Err(ap.p.err_at(
                        pos,
                        format!("{} operands present, but expected {}", group.len(), t.len()),
                    ));
                }
                v.extend(t);
                continue;
            }
            if group.is_empty() {
                continue;
            }
            let fill = if same_all {
                first_spelled.or_else(|| spelled_results.as_ref().and_then(|r| r.first().copied()))
            } else if same_operands {
                first_spelled
            } else {
                None
            };
            let fill = match (fill, def.operands[i].constraint.buildable) {
                (Some(t), _) => t,
                (None, Some(build)) => build(ap.ctx()),
                (None, None) => return Err(cannot(ap, "operand")),
            };
            v.extend(std::iter::repeat_n(fill, group.len()));
        }
        v
    };
    // Result types inferred from the operands' need valid operand types: as upstream's generated
    // parsers, check the spelled ones against their constraints first, reporting at the op name.
    if spelled_results.is_none() && !def.results.is_empty() {
        for (i, types) in st.operand_types.iter().enumerate() {
            let d = &def.operands[i];
            let bad = types
                .iter()
                .flatten()
                .find(|&&ty| !(d.constraint.check)(ap.p.ctx, ty));
            if let Some(&bad) = bad {
                let got = ap.p.type_str(bad);
                return Err(ap.emit_error_at_pos(
                    super::SourcePos::at(st.name_pos),
                    format!(
                        "'{}' must be {}, but got '{got}'",
                        d.name, d.constraint.desc
                    ),
                ));
            }
        }
    }
    // Result types: spelled, or from the operands, the op's type inference, or a typed
    // property (`arith.constant 1 : i32`).
    let result_types: Vec<Type> = match spelled_results {
        Some(r) => r,
        None if same_all && !operand_types.is_empty() => {
            vec![operand_types[0]; def.results.len()]
        }
        None => {
            let infer = ap.ctx().lookup_ident(def.name).and_then(|id| {
                ap.p.ctx
                    .op_interface_by_name::<dyn InferTypeOpInterface>(id)
            });
            if let Some(infer) = infer {
                let props = state.props.clone();
                match infer.infer_return_types(ap.ctx(), &operand_types, &props) {
                    Ok(t) => t,
                    Err(msg) => {
                        return Err(ap.p.err_at(pos, format!("custom op '{}': {msg}", def.name)))
                    }
                }
            } else {
                let typed = (def.results.len() == 1)
                    .then(|| {
                        def.attrs.iter().find_map(|a| {
                            let p = state
                                .props
                                .iter()
                                .find(|p| ap.p.ctx.str(p.name) == a.name)?;
                            ap.p.ctx.typed_attr_type(p.value)
                        })
                    })
                    .flatten();
                match typed {
                    Some(t) => vec![t],
                    None => return Err(cannot(ap, "result")),
                }
            }
        }
    };
    if st.all_result_types.is_some()
        && split(&res_arities, &result_types).is_none()
        && !def.results.is_empty()
    {
        return Err(ap.p.err_at(
            pos,
            format!("custom op '{}': wrong number of result types", def.name),
        ));
    }
    let mut values = Vec::new();
    ap.resolve_operands(&flat_ops, &operand_types, &mut values)?;
    state.operands.extend(values);
    state.result_types.extend(result_types);
    if def.has_trait(Trait::AttrSizedOperandSegments) && st.all_operands.is_none() {
        let sizes: Vec<i64> = operand_groups.iter().map(|g| g.len() as i64).collect();
        let i32t = ap.ctx().int_type(32);
        let value = ap.ctx().intern_attr(crate::AttrData::DenseArray {
            elem: i32t,
            data: crate::DenseArrayData::Int(sizes),
        });
        let name = ap.ctx().ident("operandSegmentSizes");
        state.props.push(NamedAttr { name, value });
    }
    if !st.all_regions.is_empty() {
        state.regions.extend(st.all_regions);
    } else {
        for r in st.regions {
            let r = match r {
                Some(r) => r,
                None => ap.ctx().create_region(),
            };
            state.regions.push(r);
        }
    }
    Ok(())
}
