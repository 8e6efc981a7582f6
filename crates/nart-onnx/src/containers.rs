//! Result types of the ops that make or take sequences and optionals (`SequenceConstruct`,
//! `SequenceInsert`, `Optional`, `Identity` on a sequence, ...), which tensor inference does
//! not cover.
//!
//! Sequences are `!graph.seq<T>` and optionals `!graph.opt<T>`, with `T` written as MLIR text;
//! [`inner_type`] reads `T` back.

use nart_dialect_graph::constraints::{elem_type, elem_type_data};
use nart_dialect_graph::infer;
use nart_ir::{AttrData, Context, Type, TypeData, Value, DYNAMIC};

/// `!graph.<kind><inner>` (kind is `seq` or `opt`).
pub fn wrap(ctx: &mut Context, kind: &str, inner: Type) -> Type {
    let body = format!("{kind}<{}>", infer::fmt_type(ctx, inner));
    ctx.intern_type(TypeData::Dialect {
        dialect: "graph".into(),
        body,
        pretty: true,
    })
}

/// The element type spelled `text` (`f32`, `ui8`, `!graph.string`, ...).
fn parse_elem(ctx: &mut Context, text: &str) -> Option<Type> {
    for code in 1..=26 {
        let Some(t) = elem_type(ctx, code) else {
            continue;
        };
        if infer::fmt_type(ctx, t) == text {
            return Some(t);
        }
    }
    None
}

/// Reads back a type printed by `infer::fmt_type`: tensors, sequences and optionals.
pub fn parse_type(ctx: &mut Context, text: &str) -> Option<Type> {
    if let Some(rest) = text.strip_prefix("!graph.") {
        for kind in ["seq", "opt"] {
            if let Some(inner) = rest
                .strip_prefix(kind)
                .and_then(|r| r.strip_prefix('<'))
                .and_then(|r| r.strip_suffix('>'))
            {
                let t = parse_type(ctx, inner)?;
                return Some(wrap(ctx, kind, t));
            }
        }
        return None;
    }
    let body = text.strip_prefix("tensor<")?.strip_suffix('>')?;
    if let Some(e) = body.strip_prefix("*x") {
        let elem = parse_elem(ctx, e)?;
        return Some(ctx.intern_type(TypeData::UnrankedTensor { elem }));
    }
    let mut parts: Vec<&str> = body.split('x').collect();
    let e = parts.pop()?;
    let elem = parse_elem(ctx, e)?;
    let mut dims = Vec::new();
    for p in parts {
        dims.push(if p == "?" { DYNAMIC } else { p.parse().ok()? });
    }
    Some(ctx.tensor_type(dims, elem))
}

/// The `T` of `!graph.seq<T>` or `!graph.opt<T>`.
pub fn inner_type(ctx: &mut Context, ty: Type) -> Option<(String, Type)> {
    let TypeData::Dialect { dialect, body, .. } = ctx.type_data(ty).clone() else {
        return None;
    };
    if dialect != "graph" {
        return None;
    }
    for kind in ["seq", "opt"] {
        if let Some(inner) = body
            .strip_prefix(kind)
            .and_then(|r| r.strip_prefix('<'))
            .and_then(|r| r.strip_suffix('>'))
        {
            let t = parse_type(ctx, inner)?;
            return Some((kind.to_string(), t));
        }
    }
    None
}

/// The element type of a tensor type.
fn tensor_elem(ctx: &Context, ty: Type) -> Option<Type> {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { elem, .. } | TypeData::UnrankedTensor { elem } => Some(*elem),
        _ => None,
    }
}

fn unranked(ctx: &mut Context, elem: Type) -> Type {
    ctx.intern_type(TypeData::UnrankedTensor { elem })
}

/// The most precise tensor type both `a` and `b` have.
fn join(ctx: &mut Context, a: Type, b: Type) -> Type {
    if a == b {
        return a;
    }
    match (ctx.type_data(a).clone(), ctx.type_data(b).clone()) {
        (
            TypeData::RankedTensor {
                shape: sa,
                elem: ea,
                ..
            },
            TypeData::RankedTensor {
                shape: sb,
                elem: eb,
                ..
            },
        ) if ea == eb && sa.len() == sb.len() => {
            let dims = sa
                .iter()
                .zip(&sb)
                .map(|(&x, &y)| if x == y { x } else { DYNAMIC })
                .collect();
            ctx.tensor_type(dims, ea)
        }
        _ => match tensor_elem(ctx, a) {
            Some(e) => unranked(ctx, e),
            None => a,
        },
    }
}

/// Result types of a sequence or optional op, or `None` for other ops.
pub fn result_types(
    ctx: &mut Context,
    onnx: &str,
    operands: &[Value],
    props: &[(&str, nart_ir::Attr)],
    n_results: usize,
) -> Option<Vec<Type>> {
    let ty = |ctx: &Context, k: usize| operands.get(k).map(|v| ctx.value_type(*v));
    let int_prop = |ctx: &Context, name: &str| {
        props
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, a)| match ctx.attr_data(*a) {
                AttrData::Integer { value, .. } => i64::try_from(*value).ok(),
                _ => None,
            })
    };
    let present = |ctx: &Context, k: usize| {
        ty(ctx, k).is_some_and(|t| !matches!(ctx.type_data(t), TypeData::None))
    };
    let one = match onnx {
        "Identity" => {
            let t = ty(ctx, 0)?;
            if tensor_elem(ctx, t).is_some() {
                return None;
            }
            t
        }
        "SequenceEmpty" => {
            let code = int_prop(ctx, "dtype").unwrap_or(1) as i32;
            let e = elem_type(ctx, code)?;
            let t = unranked(ctx, e);
            wrap(ctx, "seq", t)
        }
        "SequenceConstruct" => {
            let mut t = ty(ctx, 0)?;
            for k in 1..operands.len() {
                let u = ty(ctx, k)?;
                t = join(ctx, t, u);
            }
            wrap(ctx, "seq", t)
        }
        "SequenceInsert" => {
            let s = ty(ctx, 0)?;
            let (_, inner) = inner_type(ctx, s)?;
            let x = ty(ctx, 1)?;
            let t = join(ctx, inner, x);
            wrap(ctx, "seq", t)
        }
        "SequenceErase" => ty(ctx, 0)?,
        "SequenceAt" => {
            let s = ty(ctx, 0)?;
            inner_type(ctx, s)?.1
        }
        "SequenceLength" => {
            let e = ctx.i64_type();
            ctx.tensor_type(vec![], e)
        }
        "SplitToSequence" => {
            let e = tensor_elem(ctx, ty(ctx, 0)?)?;
            let t = unranked(ctx, e);
            wrap(ctx, "seq", t)
        }
        "ConcatFromSequence" => {
            let s = ty(ctx, 0)?;
            let (_, inner) = inner_type(ctx, s)?;
            let e = tensor_elem(ctx, inner)?;
            unranked(ctx, e)
        }
        "Optional" => {
            let inner = if present(ctx, 0) {
                ty(ctx, 0)?
            } else {
                let a = props.iter().find(|(n, _)| *n == "type")?.1;
                match ctx.attr_data(a) {
                    AttrData::Type(t) => *t,
                    _ => return None,
                }
            };
            wrap(ctx, "opt", inner)
        }
        "OptionalHasElement" => {
            let e = ctx.intern_type(elem_type_data(9)?);
            ctx.tensor_type(vec![], e)
        }
        "OptionalGetElement" => {
            let t = ty(ctx, 0)?;
            match inner_type(ctx, t) {
                Some((k, inner)) if k == "opt" => inner,
                _ => t,
            }
        }
        _ => return None,
    };
    Some(vec![one; n_results.max(1)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_types_round_trip_through_text() {
        let mut ctx = Context::new();
        let f = ctx.f32_type();
        let t = ctx.tensor_type(vec![2, DYNAMIC], f);
        let s = wrap(&mut ctx, "seq", t);
        let o = wrap(&mut ctx, "opt", s);
        let text = infer::fmt_type(&ctx, o);
        assert_eq!(text, "!graph.opt<!graph.seq<tensor<2x?xf32>>>");
        assert_eq!(parse_type(&mut ctx, &text), Some(o));
        assert_eq!(inner_type(&mut ctx, o), Some(("opt".to_string(), s)));
        assert_eq!(inner_type(&mut ctx, s), Some(("seq".to_string(), t)));
    }

    #[test]
    fn joins_differing_shapes() {
        let mut ctx = Context::new();
        let f = ctx.f32_type();
        let a = ctx.tensor_type(vec![2, 3], f);
        let b = ctx.tensor_type(vec![2, 4], f);
        let j = join(&mut ctx, a, b);
        assert_eq!(infer::fmt_type(&ctx, j), "tensor<2x?xf32>");
    }
}
