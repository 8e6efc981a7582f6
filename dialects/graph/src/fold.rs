//! Folders for constant subgraphs: `Shape` and `Size` of static tensors, `Identity`, the ops
//! that only re-type a constant's bytes (`Reshape`, `Squeeze`, `Unsqueeze`, `Flatten`), `Cast`,
//! `Neg`/`Abs`/`Relu`/`Sqrt`, `Add`/`Sub`/`Mul`/`Div` with same-shape or single-element
//! operands, 1-D `Concat` and `Gather` (shape arithmetic), up to 65536 elements.
//!
//! Folding happens only when the result type is fully static, so the folded constant has
//! exactly the result's type.

use nart_ir::registry::{FoldOutcome, FoldResult};
use nart_ir::{Attr, AttrData, Context, DenseData, Op, TypeData, DYNAMIC};

/// The folder of every foldable generated op.
pub fn fold_op(ctx: &mut Context, op: Op, consts: &[Option<Attr>]) -> FoldOutcome {
    let name = ctx.op_name_str(op).to_string();
    let res_ty = match ctx.results(op).first() {
        Some(&r) => ctx.value_type(r),
        None => return FoldOutcome::None,
    };
    let static_result = matches!(ctx.type_data(res_ty), TypeData::RankedTensor { shape, .. } if !shape.contains(&DYNAMIC));
    match name.as_str() {
        "graph.Identity" => FoldOutcome::Replace(vec![FoldResult::Value(ctx.operand(op, 0))]),
        "graph.Shape" | "graph.Size" if static_result => {
            let x = ctx.value_type(ctx.operand(op, 0));
            let TypeData::RankedTensor { shape, .. } = ctx.type_data(x).clone() else {
                return FoldOutcome::None;
            };
            if shape.contains(&DYNAMIC) {
                return FoldOutcome::None;
            }
            let values: Vec<i64> = if name == "graph.Size" {
                vec![shape.iter().product()]
            } else {
                let r = shape.len() as i64;
                let clamp = |v: i64| if v < 0 { (v + r).max(0) } else { v.min(r) };
                let start = ctx
                    .attr(op, "start")
                    .and_then(|a| ctx.attr_int(a))
                    .map_or(0, |v| clamp(v as i64));
                let end = ctx
                    .attr(op, "end")
                    .and_then(|a| ctx.attr_int(a))
                    .map_or(r, |v| clamp(v as i64));
                shape[start as usize..end.max(start) as usize].to_vec()
            };
            let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            let attr = ctx.intern_attr(AttrData::DenseElements {
                ty: res_ty,
                data: DenseData::Elements(bytes),
            });
            FoldOutcome::Replace(vec![FoldResult::Attr(attr)])
        }
        "graph.Reshape" | "graph.Squeeze" | "graph.Unsqueeze" | "graph.Flatten"
            if static_result =>
        {
            let Some(Some(value)) = consts.first() else {
                return FoldOutcome::None;
            };
            let AttrData::DenseElements { data, .. } = ctx.attr_data(*value).clone() else {
                return FoldOutcome::None;
            };
            if matches!(data, DenseData::Strings { .. }) {
                return FoldOutcome::None;
            }
            let attr = ctx.intern_attr(AttrData::DenseElements { ty: res_ty, data });
            FoldOutcome::Replace(vec![FoldResult::Attr(attr)])
        }
        "graph.Cast" | "graph.Neg" | "graph.Sqrt" | "graph.Relu" | "graph.Abs" if static_result => {
            let Some(Some(a)) = consts.first() else {
                return FoldOutcome::None;
            };
            let Some(x) = Vals::read(ctx, *a) else {
                return FoldOutcome::None;
            };
            let out = match name.as_str() {
                "graph.Cast" => x,
                "graph.Neg" => x.map(|v| -v, |v| v.wrapping_neg()),
                "graph.Abs" => x.map(f64::abs, i64::wrapping_abs),
                "graph.Relu" => x.map(|v| v.max(0.0), |v| v.max(0)),
                _ => x.map(f64::sqrt, |v| v),
            };
            replace_with(ctx, res_ty, &out)
        }
        "graph.Add" | "graph.Sub" | "graph.Mul" | "graph.Div" if static_result => {
            let (Some(Some(a)), Some(Some(b))) = (consts.first(), consts.get(1)) else {
                return FoldOutcome::None;
            };
            let (Some(x), Some(y)) = (Vals::read(ctx, *a), Vals::read(ctx, *b)) else {
                return FoldOutcome::None;
            };
            let n = result_count(ctx, res_ty);
            let Some(out) = binary(&name, &x, &y, n) else {
                return FoldOutcome::None;
            };
            replace_with(ctx, res_ty, &out)
        }
        "graph.Concat" if static_result => {
            let mut all = Vec::new();
            for c in consts {
                let Some(v) = c.and_then(|a| Vals::read(ctx, a)) else {
                    return FoldOutcome::None;
                };
                all.push(v);
            }
            // Only 1-D concatenation (shape arithmetic) is folded.
            let rank1 = matches!(ctx.type_data(res_ty), TypeData::RankedTensor { shape, .. } if shape.len() == 1);
            if !rank1 {
                return FoldOutcome::None;
            }
            let out = all.into_iter().reduce(Vals::concat);
            match out {
                Some(out) => replace_with(ctx, res_ty, &out),
                None => FoldOutcome::None,
            }
        }
        "graph.Gather" if static_result => {
            let (Some(Some(a)), Some(Some(b))) = (consts.first(), consts.get(1)) else {
                return FoldOutcome::None;
            };
            let axis = ctx
                .attr(op, "axis")
                .and_then(|a| ctx.attr_int(a))
                .unwrap_or(0);
            let data_ty = ctx.value_type(ctx.operand(op, 0));
            let rank1 = matches!(ctx.type_data(data_ty), TypeData::RankedTensor { shape, .. } if shape.len() == 1);
            if axis != 0 || !rank1 {
                return FoldOutcome::None;
            }
            let (Some(x), Some(idx)) = (Vals::read(ctx, *a), crate::infer::dense_ints(ctx, *b))
            else {
                return FoldOutcome::None;
            };
            let len = x.len() as i64;
            let mut picked = Vec::new();
            for i in idx {
                let i = if i < 0 { i + len } else { i };
                if i < 0 || i >= len {
                    return FoldOutcome::None;
                }
                picked.push(i as usize);
            }
            replace_with(ctx, res_ty, &x.pick(&picked))
        }
        _ => FoldOutcome::None,
    }
}

/// Constant elements, read as floats or integers by element type.
#[derive(Clone, Debug, PartialEq)]
enum Vals {
    F(Vec<f64>),
    I(Vec<i64>),
}

/// At most this many elements are folded, so folding never blows up a model.
const MAX_FOLD_ELEMENTS: usize = 1 << 16;

impl Vals {
    fn read(ctx: &Context, a: Attr) -> Option<Vals> {
        let AttrData::DenseElements { ty, .. } = ctx.attr_data(a) else {
            return None;
        };
        let TypeData::RankedTensor { elem, .. } = ctx.type_data(*ty) else {
            return None;
        };
        let v = match ctx.type_data(*elem) {
            TypeData::Float(_) => Vals::F(crate::infer::dense_floats(ctx, a)?),
            TypeData::Integer { .. } => Vals::I(crate::infer::dense_ints(ctx, a)?),
            _ => return None,
        };
        (v.len() <= MAX_FOLD_ELEMENTS).then_some(v)
    }

    fn len(&self) -> usize {
        match self {
            Vals::F(v) => v.len(),
            Vals::I(v) => v.len(),
        }
    }

    fn map(self, f: impl Fn(f64) -> f64, g: impl Fn(i64) -> i64) -> Vals {
        match self {
            Vals::F(v) => Vals::F(v.into_iter().map(f).collect()),
            Vals::I(v) => Vals::I(v.into_iter().map(g).collect()),
        }
    }

    fn concat(self, other: Vals) -> Vals {
        match (self, other) {
            (Vals::I(mut a), Vals::I(b)) => {
                a.extend(b);
                Vals::I(a)
            }
            (a, b) => {
                let mut x = a.floats();
                x.extend(b.floats());
                Vals::F(x)
            }
        }
    }

    fn pick(&self, idx: &[usize]) -> Vals {
        match self {
            Vals::F(v) => Vals::F(idx.iter().map(|&i| v[i]).collect()),
            Vals::I(v) => Vals::I(idx.iter().map(|&i| v[i]).collect()),
        }
    }

    fn floats(self) -> Vec<f64> {
        match self {
            Vals::F(v) => v,
            Vals::I(v) => v.into_iter().map(|x| x as f64).collect(),
        }
    }
}

fn result_count(ctx: &Context, ty: nart_ir::Type) -> usize {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, .. } => shape.iter().product::<i64>().max(0) as usize,
        _ => 0,
    }
}

/// Elementwise `name` of two constants, where each is the full result or a single element.
fn binary(name: &str, x: &Vals, y: &Vals, n: usize) -> Option<Vals> {
    let ok = |len: usize| len == n || len == 1;
    if !ok(x.len()) || !ok(y.len()) || n > MAX_FOLD_ELEMENTS {
        return None;
    }
    let at = |len: usize, k: usize| if len == 1 { 0 } else { k };
    Some(match (x, y) {
        (Vals::I(a), Vals::I(b)) => Vals::I(
            (0..n)
                .map(|k| {
                    let (p, q) = (a[at(a.len(), k)], b[at(b.len(), k)]);
                    match name {
                        "graph.Add" => Some(p.wrapping_add(q)),
                        "graph.Sub" => Some(p.wrapping_sub(q)),
                        "graph.Mul" => Some(p.wrapping_mul(q)),
                        _ => p.checked_div(q),
                    }
                })
                .collect::<Option<Vec<_>>>()?,
        ),
        (Vals::F(a), Vals::F(b)) => Vals::F(
            (0..n)
                .map(|k| {
                    let (p, q) = (a[at(a.len(), k)], b[at(b.len(), k)]);
                    match name {
                        "graph.Add" => p + q,
                        "graph.Sub" => p - q,
                        "graph.Mul" => p * q,
                        _ => p / q,
                    }
                })
                .collect(),
        ),
        _ => return None,
    })
}

/// Replaces the op's result by `vals` encoded in the result type's element type.
fn replace_with(ctx: &mut Context, ty: nart_ir::Type, vals: &Vals) -> FoldOutcome {
    let TypeData::RankedTensor { elem, .. } = ctx.type_data(ty).clone() else {
        return FoldOutcome::None;
    };
    if vals.len() != result_count(ctx, ty) {
        return FoldOutcome::None;
    }
    let mut bytes = Vec::new();
    match (ctx.type_data(elem).clone(), vals) {
        (TypeData::Integer { width, .. }, _) => {
            let w = (width as usize).div_ceil(8);
            let ints: Vec<i64> = match vals {
                Vals::I(v) => v.clone(),
                // Float to bool is "not zero", not truncation.
                Vals::F(v) if width == 1 => v.iter().map(|x| i64::from(*x != 0.0)).collect(),
                Vals::F(v) => v.iter().map(|x| *x as i64).collect(),
            };
            for v in ints {
                let v = if width == 1 { i64::from(v != 0) } else { v };
                bytes.extend_from_slice(&v.to_le_bytes()[..w]);
            }
        }
        (TypeData::Float(kind), _) => {
            let fl: Vec<f64> = vals.clone().floats();
            for v in fl {
                match kind {
                    nart_ir::FloatKind::F32 => bytes.extend((v as f32).to_le_bytes()),
                    nart_ir::FloatKind::F64 => bytes.extend(v.to_le_bytes()),
                    nart_ir::FloatKind::F16 => {
                        bytes.extend(nart_ir::util::f64_to_f16_bits(v).to_le_bytes())
                    }
                    _ => return FoldOutcome::None,
                }
            }
        }
        _ => return FoldOutcome::None,
    }
    let attr = ctx.intern_attr(AttrData::DenseElements {
        ty,
        data: DenseData::Elements(bytes),
    });
    FoldOutcome::Replace(vec![FoldResult::Attr(attr)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use nart_ir::OperationState;

    #[test]
    fn shape_of_a_static_tensor_folds_to_a_constant() {
        let mut ctx = Context::new();
        crate::register(&mut ctx);
        let f32 = ctx.f32_type();
        let x_ty = ctx.tensor_type(vec![2, 3, 5], f32);
        let i64t = ctx.i64_type();
        let s_ty = ctx.tensor_type(vec![2], i64t);
        let loc = ctx.unknown_loc();
        let block = ctx.create_block(&[x_ty], loc);
        let x = ctx.block_args(block)[0];
        let start = ctx.i64_attr(1);
        let st = OperationState::new(&mut ctx, "graph.Shape", loc)
            .operands(&[x])
            .results(&[s_ty])
            .prop(&mut ctx, "start", start);
        let op = ctx.create_op(st);
        ctx.append_op(block, op);
        let FoldOutcome::Replace(r) = fold_op(&mut ctx, op, &[None]) else {
            panic!("Shape of a static tensor folds");
        };
        let FoldResult::Attr(a) = r[0] else {
            panic!("folds to an attribute")
        };
        assert_eq!(crate::infer::dense_ints(&ctx, a), Some(vec![3, 5]));
    }

    fn i64_const(ctx: &mut Context, v: &[i64]) -> (nart_ir::Type, Attr) {
        let e = ctx.i64_type();
        let ty = ctx.tensor_type(vec![v.len() as i64], e);
        let a = ctx.intern_attr(AttrData::DenseElements {
            ty,
            data: DenseData::Elements(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        });
        (ty, a)
    }

    /// Folds `graph.<name>` of constants and returns the folded integers.
    fn fold_ints(name: &str, inputs: &[&[i64]], result: &[i64]) -> Option<Vec<i64>> {
        let mut ctx = Context::new();
        crate::register(&mut ctx);
        let loc = ctx.unknown_loc();
        let mut tys = Vec::new();
        let mut consts = Vec::new();
        for v in inputs {
            let (t, a) = i64_const(&mut ctx, v);
            tys.push(t);
            consts.push(Some(a));
        }
        let block = ctx.create_block(&tys, loc);
        let args = ctx.block_args(block).to_vec();
        let (res_ty, _) = i64_const(&mut ctx, result);
        let st = OperationState::new(&mut ctx, &format!("graph.{name}"), loc)
            .operands(&args)
            .results(&[res_ty]);
        let op = ctx.create_op(st);
        ctx.append_op(block, op);
        match fold_op(&mut ctx, op, &consts) {
            FoldOutcome::Replace(r) => match r[0] {
                FoldResult::Attr(a) => crate::infer::dense_ints(&ctx, a),
                FoldResult::Value(_) => None,
            },
            _ => None,
        }
    }

    #[test]
    fn shape_arithmetic_on_constants_folds() {
        assert_eq!(
            fold_ints("Add", &[&[1, 2], &[10]], &[0, 0]),
            Some(vec![11, 12])
        );
        assert_eq!(
            fold_ints("Mul", &[&[3, 4], &[2, 5]], &[0, 0]),
            Some(vec![6, 20])
        );
        assert_eq!(
            fold_ints("Div", &[&[7], &[0]], &[0]),
            None,
            "division by zero is not folded"
        );
        assert_eq!(
            fold_ints("Concat", &[&[1], &[2, 3]], &[0, 0, 0]),
            Some(vec![1, 2, 3])
        );
        assert_eq!(
            fold_ints("Gather", &[&[5, 6, 7], &[-1, 0]], &[0, 0]),
            Some(vec![7, 5])
        );
        assert_eq!(fold_ints("Neg", &[&[4]], &[0]), Some(vec![-4]));
    }
}
