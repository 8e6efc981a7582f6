//! Prints an op in the custom form described by its declarative assembly format.

use crate::asm::FElem;
use crate::registry::{Arity, OpDef, Trait, ValueDef};
use crate::{AttrData, Context, DenseArrayData, Op, Type, Value};

use super::OpAsmPrinter;

/// Splits `n` values into the groups of `defs` (`None` when they do not fit).
fn groups(
    ctx: &Context,
    op: Op,
    defs: &[ValueDef],
    n: usize,
    segments: bool,
) -> Option<Vec<(usize, usize)>> {
    if segments {
        let a = ctx.attr(op, "operandSegmentSizes")?;
        let AttrData::DenseArray {
            data: DenseArrayData::Int(sizes),
            ..
        } = ctx.attr_data(a)
        else {
            return None;
        };
        if sizes.len() != defs.len()
            || sizes.iter().any(|&s| s < 0)
            || sizes.iter().sum::<i64>() as usize != n
        {
            return None;
        }
        let mut out = Vec::new();
        let mut at = 0;
        for &s in sizes {
            out.push((at, s as usize));
            at += s as usize;
        }
        return Some(out);
    }
    let fixed = defs.iter().filter(|d| d.arity == Arity::Single).count();
    let var = defs.len() - fixed;
    if (var == 0 && n != fixed) || n < fixed || var > 1 {
        return None;
    }
    let extra = n - fixed;
    let mut out = Vec::new();
    let mut at = 0;
    for d in defs {
        let len = match d.arity {
            Arity::Single => 1,
            Arity::Optional if extra > 1 => return None,
            _ => extra,
        };
        out.push((at, len));
        at += len;
    }
    Some(out)
}

struct Layout {
    operands: Vec<(usize, usize)>,
    results: Vec<(usize, usize)>,
}

fn layout(ctx: &Context, def: &OpDef, op: Op) -> Option<Layout> {
    let operands = groups(
        ctx,
        op,
        def.operands,
        ctx.operands(op).len(),
        def.has_trait(Trait::AttrSizedOperandSegments),
    )?;
    let results = groups(ctx, op, def.results, ctx.results(op).len(), false)?;
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
        FElem::Operand(i) => {
            let (a, n) = l.operands[*i];
            ctx.operands(op)[a..a + n].to_vec()
        }
        FElem::Result(i) => {
            let (a, n) = l.results[*i];
            ctx.results(op)[a..a + n].to_vec()
        }
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
        FElem::Attr(i) => ctx.attr(op, def.attrs[*i].name).is_some(),
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
        FElem::Result(_) | FElem::Results => {}
        FElem::Attr(i) => {
            let a = &def.attrs[*i];
            if let Some(v) = ctx.attr(op, a.name) {
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
            let unit_anchor = match **anchor {
                FElem::Attr(i) => def.attrs[i].constraint.desc == "unit attribute",
                _ => false,
            };
            for inner in elems {
                if unit_anchor && *inner == **anchor {
                    continue;
                }
                print_elem(p, def, l, inner, op, s, elided);
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
