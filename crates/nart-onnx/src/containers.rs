//! Result types of the ops that make or take sequences and optionals (`SequenceConstruct`,
//! `SequenceInsert`, `Optional`, `Identity` on a sequence, ...), which tensor inference does
//! not cover.
//!
//! Sequences are `!graph.seq<T>` and optionals `!graph.opt<T>`, the graph dialect's typed
//! [`SeqType`] and [`OptType`].

use nart_dialect_graph::constraints::{elem_type, elem_type_data};
use nart_dialect_graph::types::{opt_elem, opt_type, seq_elem, seq_type};
use nart_ir::{AttrData, Context, Type, TypeData, Value, DYNAMIC};

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
            seq_type(ctx, t)
        }
        "SequenceConstruct" => {
            let mut t = ty(ctx, 0)?;
            for k in 1..operands.len() {
                let u = ty(ctx, k)?;
                t = join(ctx, t, u);
            }
            seq_type(ctx, t)
        }
        "SequenceInsert" => {
            let s = ty(ctx, 0)?;
            let inner = seq_elem(ctx, s)?;
            let x = ty(ctx, 1)?;
            let t = join(ctx, inner, x);
            seq_type(ctx, t)
        }
        "SequenceErase" => ty(ctx, 0)?,
        "SequenceAt" => {
            let s = ty(ctx, 0)?;
            seq_elem(ctx, s)?
        }
        "SequenceLength" => {
            let e = ctx.i64_type();
            ctx.tensor_type(vec![], e)
        }
        "SplitToSequence" => {
            let e = tensor_elem(ctx, ty(ctx, 0)?)?;
            let t = unranked(ctx, e);
            seq_type(ctx, t)
        }
        "ConcatFromSequence" => {
            let s = ty(ctx, 0)?;
            let inner = seq_elem(ctx, s)?;
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
            opt_type(ctx, inner)
        }
        "OptionalHasElement" => {
            let e = ctx.intern_type(elem_type_data(9)?);
            ctx.tensor_type(vec![], e)
        }
        "OptionalGetElement" => {
            let t = ty(ctx, 0)?;
            opt_elem(ctx, t).unwrap_or(t)
        }
        _ => return None,
    };
    Some(vec![one; n_results.max(1)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use nart_dialect_graph::types::{OptType, SeqType};

    #[test]
    fn container_types_are_typed_and_print_as_graph_types() {
        let mut ctx = Context::new();
        nart_dialect_graph::register(&mut ctx);
        let f = ctx.f32_type();
        let t = ctx.tensor_type(vec![2, DYNAMIC], f);
        let s = seq_type(&mut ctx, t);
        let o = opt_type(&mut ctx, s);
        let text = nart_ir::printer::type_to_string(&ctx, o);
        assert_eq!(text, "!graph.opt<!graph.seq<tensor<2x?xf32>>>");
        assert_eq!(ctx.type_as::<OptType>(o), Some(&OptType { elem: s }));
        assert_eq!(ctx.type_as::<SeqType>(s), Some(&SeqType { elem: t }));
        let parsed = nart_ir::parser::parse_type_str(&mut ctx, &text).expect("parses back");
        assert_eq!(parsed, o);
    }

    #[test]
    fn joins_differing_shapes() {
        let mut ctx = Context::new();
        let f = ctx.f32_type();
        let a = ctx.tensor_type(vec![2, 3], f);
        let b = ctx.tensor_type(vec![2, 4], f);
        let j = join(&mut ctx, a, b);
        assert_eq!(nart_ir::printer::type_to_string(&ctx, j), "tensor<2x?xf32>");
    }
}
