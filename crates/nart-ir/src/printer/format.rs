//! Prints an op in the custom form described by its declarative assembly format.

use crate::asm::FElem;
use crate::registry::{AttrDef, AttrKind, OpDef, Trait};
use crate::{Context, Op, Type, Value};

use super::OpAsmPrinter;

struct Layout {
    operands: Vec<std::ops::Range<usize>>,
    results: Vec<std::ops::Range<usize>>,
}

fn layout(ctx: &Context, def: &OpDef, op: Op) -> Option<Layout> {
    let operands = crate::registry::value_groups(ctx, op, false)?;
    let results = crate::registry::value_groups(ctx, op, true)?;
    if ctx.regions(op).len() != def.regions.len() {
        return None;
    }
    Some(Layout { operands, results })
}

/// Whether `op` has the structure its format needs (otherwise it prints generically).
pub(crate) fn applicable(ctx: &Context, def: &OpDef, elems: &[FElem], op: Op) -> bool {
    let Some(l) = layout(ctx, def, op) else {
        return false;
    };
    // Types that the format does not spell must be recoverable when parsing back.
    if def.has_trait(Trait::SameOperandsAndResultType) {
        let mut tys = ctx
            .operands(op)
            .iter()
            .chain(ctx.results(op))
            .map(|&v| ctx.value_type(v));
        if let Some(first) = tys.next() {
            if tys.any(|t| t != first) {
                return false;
            }
        }
    }
    let _ = (elems, l);
    true
}

struct Spacing {
    emit_space: bool,
    last_punct: bool,
}

fn space_before(lit: &str, last_punct: bool) -> bool {
    if lit.len() != 1 && lit != "->" {
        return true;
    }
    let c = lit.as_bytes()[0];
    if last_punct {
        return !b">)}],".contains(&c);
    }
    !b"<>(){}[],".contains(&c)
}

pub(crate) fn print(p: &mut OpAsmPrinter<'_>, def: &'static OpDef, elems: &[FElem], op: Op) {
    let Some(l) = layout(p.ctx, def, op) else {
        return;
    };
    let mut s = Spacing {
        emit_space: true,
        last_punct: false,
    };
    let elided: Vec<&str> = used_attrs(def, elems);
    print_elems(p, def, &l, elems, op, &mut s, &elided);
}

fn used_attrs(def: &'static OpDef, elems: &[FElem]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for e in elems {
        match e {
            FElem::Attr(i) => out.push(def.attrs[*i].name),
            FElem::Optional { elems, anchor } => {
                out.extend(used_attrs(def, elems));
                if let FElem::Attr(i) = **anchor {
                    out.push(def.attrs[i].name);
                }
            }
            _ => {}
        }
    }
    out
}

fn group_values(p: &OpAsmPrinter<'_>, l: &Layout, e: &FElem, op: Op) -> Vec<Value> {
    let ctx = p.ctx;
    match e {
        FElem::Operand(i) => ctx.operands(op)[l.operands[*i].clone()].to_vec(),
        FElem::Result(i) => ctx.results(op)[l.results[*i].clone()].to_vec(),
        FElem::Operands => ctx.operands(op).to_vec(),
        FElem::Results => ctx.results(op).to_vec(),
        _ => Vec::new(),
    }
}

fn present(p: &OpAsmPrinter<'_>, def: &OpDef, l: &Layout, e: &FElem, op: Op) -> bool {
    let ctx = p.ctx;
    match e {
        FElem::Operand(_) | FElem::Result(_) | FElem::Operands | FElem::Results => {
            !group_values(p, l, e, op).is_empty()
        }
        FElem::Attr(i) => {
            // A default-valued property holding its default counts as absent (MLIR prints
            // `overflow<nsw>` but nothing for `#arith.overflow<none>`).
            let a = &def.attrs[*i];
            match ctx.attr(op, a.name) {
                None => false,
                Some(v) => {
                    a.default.is_none()
                        || ctx
                            .lookup_ident(a.name)
                            .and_then(|n| ctx.default_prop(ctx.op_name(op), n))
                            != Some(v)
                }
            }
        }
        FElem::Region(i) => ctx
            .regions(op)
            .get(*i)
            .is_some_and(|&r| !ctx.region_blocks(r).is_empty()),
        FElem::Regions => ctx
            .regions(op)
            .iter()
            .any(|&r| !ctx.region_blocks(r).is_empty()),
        FElem::Successor(_) | FElem::Successors => !ctx.successors(op).is_empty(),
        FElem::Type(t) => present(p, def, l, t, op),
        FElem::FunctionalType(..) | FElem::AttrDict(_) | FElem::Lit(_) => true,
        FElem::Optional { anchor, .. } => present(p, def, l, anchor, op),
        // Formats with custom directives belong to ops with hooks; the engine never runs them.
        FElem::Custom { .. } => false,
    }
}

fn sp(p: &mut OpAsmPrinter<'_>, s: &mut Spacing) {
    if s.emit_space {
        p.out.push(' ');
    }
    s.emit_space = true;
    s.last_punct = false;
}

fn print_elems(
    p: &mut OpAsmPrinter<'_>,
    def: &'static OpDef,
    l: &Layout,
    elems: &[FElem],
    op: Op,
    s: &mut Spacing,
    elided: &[&str],
) {
    for e in elems {
        print_elem(p, def, l, e, op, s, elided);
    }
}

fn print_elem(
    p: &mut OpAsmPrinter<'_>,
    def: &'static OpDef,
    l: &Layout,
    e: &FElem,
    op: Op,
    s: &mut Spacing,
    elided: &[&str],
) {
    let ctx = p.ctx;
    match e {
        FElem::Lit(lit) => {
            if lit.is_empty() {
                s.emit_space = false;
                return;
            }
            if lit == " " || lit == "\\n" {
                p.out.push(' ');
                s.emit_space = false;
                return;
            }
            if s.emit_space && space_before(lit, s.last_punct) {
                p.out.push(' ');
            }
            p.out.push_str(lit);
            let c = lit.as_bytes()[0];
            s.emit_space = lit.len() != 1 || !b"<({[".contains(&c);
            s.last_punct = !(c == b'_' || c.is_ascii_alphabetic());
        }
        FElem::Operand(_) | FElem::Operands => {
            let vs = group_values(p, l, e, op);
            sp(p, s);
            p.print_operands(&vs);
        }
        FElem::Result(_) | FElem::Results | FElem::Custom { .. } => {}
        FElem::Attr(i) => {
            let a = &def.attrs[*i];
            if let Some(v) = ctx.attr(op, a.name) {
                print_attr_elem(p, s, a, v);
            }
        }
        FElem::Region(i) => {
            if let Some(&r) = ctx.regions(op).get(*i) {
                sp(p, s);
                p.print_region(r, true, false);
            }
        }
        FElem::Regions => {
            sp(p, s);
            for (i, &r) in ctx.regions(op).iter().enumerate() {
                if i > 0 {
                    p.out.push_str(", ");
                }
                p.print_region(r, true, false);
            }
        }
        FElem::Successor(i) => {
            if let Some(&b) = ctx.successors(op).get(*i) {
                sp(p, s);
                p.print_successor(b);
            }
        }
        FElem::Successors => {
            sp(p, s);
            for (i, &b) in ctx.successors(op).iter().enumerate() {
                if i > 0 {
                    p.out.push_str(", ");
                }
                p.print_successor(b);
            }
        }
        FElem::AttrDict(kw) => {
            let mut el: Vec<&str> = elided.to_vec();
            el.push("operandSegmentSizes");
            // A default-valued property holding its default is left out, as MLIR's generated
            // printers do (`math.isnan %x : f32`, not `{fastmath = #arith.fastmath<none>}`).
            for (i, a) in def.attrs.iter().enumerate() {
                if a.default.is_some() && !present(p, def, l, &FElem::Attr(i), op) {
                    el.push(a.name);
                }
            }
            if *kw {
                p.print_optional_attr_dict_with_keyword(op, &el);
            } else {
                p.print_optional_attr_dict(op, &el);
            }
            s.emit_space = true;
            s.last_punct = false;
        }
        FElem::Type(t) => {
            let vs = group_values(p, l, t, op);
            sp(p, s);
            let tys: Vec<Type> = vs.iter().map(|&v| ctx.value_type(v)).collect();
            p.print_types(&tys);
        }
        FElem::FunctionalType(a, b) => {
            sp(p, s);
            let ins: Vec<Type> = group_values(p, l, a, op)
                .iter()
                .map(|&v| ctx.value_type(v))
                .collect();
            let outs: Vec<Type> = group_values(p, l, b, op)
                .iter()
                .map(|&v| ctx.value_type(v))
                .collect();
            p.print_functional_type(&ins, &outs);
        }
        FElem::Optional { elems, anchor } => {
            if !present(p, def, l, anchor, op) {
                return;
            }
            for inner in elems {
                print_elem(p, def, l, inner, op, s, elided);
            }
        }
    }
}

/// Prints a property as its constraint's kind says: an enum keyword, a dialect attribute
/// without its `#dialect.mnemonic` prefix, nothing for `unit`, `@name` for `sym_name`, and
/// the attribute itself otherwise.
fn print_attr_elem(p: &mut OpAsmPrinter<'_>, s: &mut Spacing, a: &AttrDef, v: crate::Attr) {
    let ctx = p.ctx;
    match a.constraint.kind {
        AttrKind::Unit => {}
        AttrKind::IntEnum { def, .. } => {
            sp(p, s);
            match ctx.attr_int(v).and_then(|x| u64::try_from(x).ok()) {
                Some(x) if def.is_valid(x) => def.write_value(&mut p.out, x),
                _ => p.print_attribute(v),
            }
        }
        AttrKind::Dialect(d) => {
            sp(p, s);
            match ctx.attr_data(v) {
                crate::AttrData::Dialect(b)
                    if b.get().def().dialect == d.dialect
                        && b.get().def().mnemonic == d.mnemonic =>
                {
                    let mut text = String::new();
                    b.get().print(&mut crate::extensible::AsmPrinter::new(
                        ctx, &mut text, None,
                    ));
                    p.out.push_str(&text);
                }
                _ => p.print_attribute(v),
            }
        }
        AttrKind::Float(_) => {
            sp(p, s);
            p.print_attribute_without_type(v);
        }
        AttrKind::DenseIntArray(_) => {
            sp(p, s);
            match ctx.attr_data(v) {
                crate::AttrData::DenseArray {
                    data: crate::DenseArrayData::Int(items),
                    ..
                } => {
                    let items: Vec<String> = items.iter().map(i64::to_string).collect();
                    p.out.push('[');
                    p.out.push_str(&items.join(", "));
                    p.out.push(']');
                }
                _ => p.print_attribute(v),
            }
        }
        AttrKind::Any | AttrKind::Typed => {
            sp(p, s);
            if a.name == "sym_name" {
                match ctx.attr_str(v) {
                    Some(name) => p.print_symbol_name(name),
                    None => p.print_attribute(v),
                }
            } else {
                p.print_attribute(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spacing_follows_mlir() {
        assert!(space_before(":", false));
        assert!(!space_before(",", false));
        assert!(!space_before("(", false));
        assert!(space_before("(", true));
        assert!(!space_before(")", true));
        assert!(space_before("to", true));
    }
}
