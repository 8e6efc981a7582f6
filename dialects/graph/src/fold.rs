//! Folders for constant subgraphs: `Shape` and `Size` of static tensors, `Identity`, the ops
//! that only re-type a constant's bytes (`Reshape`, `Squeeze`, `Unsqueeze`, `Flatten`), `Cast`,
//! `Neg`/`Abs`/`Relu`/`Sqrt`, `Add`/`Sub`/`Mul`/`Div` with same-shape or single-element
//! operands, 1-D `Concat` and `Gather` (shape arithmetic), up to 65536 elements.
//!
//! Folding happens only when the result type is fully static, so the folded constant has
//! exactly the result's type; `Identity` folds only to an operand of its result's type, and the
//! re-typing folds only when the element count is unchanged.
//! Unsigned integers are folded as unsigned (`u64`), signed and signless ones as `i64`.

use nart_ir::registry::{FoldOutcome, FoldResult};
use nart_ir::{Attr, AttrData, Context, DenseData, Op, Signedness, TypeData, DYNAMIC};

/// The folder of every foldable generated op.
pub fn fold_op(ctx: &mut Context, op: Op, consts: &[Option<Attr>]) -> FoldOutcome {
    let name = ctx.op_name_str(op).to_string();
    let res_ty = match ctx.results(op).first() {
        Some(&r) => ctx.value_type(r),
        None => return FoldOutcome::None,
    };
    let static_result = matches!(ctx.type_data(res_ty), TypeData::RankedTensor { shape, .. } if !shape.contains(&DYNAMIC));
    match name.as_str() {
        // Only to a value of the result's own type: a less precise operand would leave its users
        // (a `func.return` of the declared type) with a type they do not expect.
        "graph.Identity" if ctx.value_type(ctx.operand(op, 0)) == res_ty => {
            FoldOutcome::Replace(vec![FoldResult::Value(ctx.operand(op, 0))])
        }
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
            let AttrData::DenseElements { ty, data } = ctx.attr_data(*value).clone() else {
                return FoldOutcome::None;
            };
            // Re-typing keeps the bytes, so the element counts must agree (a Reshape whose shape
            // operand is not constant is not checked by the verifier).
            if matches!(data, DenseData::Strings { .. })
                || result_count(ctx, ty) != result_count(ctx, res_ty)
            {
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
                "graph.Neg" => x.map(|v| -v, i64::wrapping_neg, u64::wrapping_neg),
                // An unsigned value is its own absolute value and never below zero.
                "graph.Abs" => x.map(f64::abs, i64::wrapping_abs, |v| v),
                "graph.Relu" => x.map(|v| v.max(0.0), |v| v.max(0), |v| v),
                _ => x.map(f64::sqrt, |v| v, |v| v),
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

/// Constant elements, read as floats, signed (or signless) integers or unsigned integers by
/// element type: unsigned values are kept as `u64`, so `ui64` values from 2^63 on are neither
/// negative nor wrapped.
#[derive(Clone, Debug, PartialEq)]
enum Vals {
    F(Vec<f64>),
    I(Vec<i64>),
    U(Vec<u64>),
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
            TypeData::Integer {
                signedness: Signedness::Unsigned,
                ..
            } => Vals::U(crate::infer::dense_uints(ctx, a)?),
            TypeData::Integer { .. } => Vals::I(crate::infer::dense_ints(ctx, a)?),
            _ => return None,
        };
        (v.len() <= MAX_FOLD_ELEMENTS).then_some(v)
    }

    fn len(&self) -> usize {
        match self {
            Vals::F(v) => v.len(),
            Vals::I(v) => v.len(),
            Vals::U(v) => v.len(),
        }
    }

    fn map(self, f: impl Fn(f64) -> f64, g: impl Fn(i64) -> i64, h: impl Fn(u64) -> u64) -> Vals {
        match self {
            Vals::F(v) => Vals::F(v.into_iter().map(f).collect()),
            Vals::I(v) => Vals::I(v.into_iter().map(g).collect()),
            Vals::U(v) => Vals::U(v.into_iter().map(h).collect()),
        }
    }

    fn concat(self, other: Vals) -> Vals {
        match (self, other) {
            (Vals::I(mut a), Vals::I(b)) => {
                a.extend(b);
                Vals::I(a)
            }
            (Vals::U(mut a), Vals::U(b)) => {
                a.extend(b);
                Vals::U(a)
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
            Vals::U(v) => Vals::U(idx.iter().map(|&i| v[i]).collect()),
        }
    }

    fn floats(self) -> Vec<f64> {
        match self {
            Vals::F(v) => v,
            Vals::I(v) => v.into_iter().map(|x| x as f64).collect(),
            Vals::U(v) => v.into_iter().map(|x| x as f64).collect(),
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
        (Vals::U(a), Vals::U(b)) => Vals::U(
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
        (TypeData::Integer { width, signedness }, _) => {
            let w = (width as usize).div_ceil(8);
            let unsigned = signedness == Signedness::Unsigned;
            // Two's complement bit patterns, truncated to the width below.
            let bits: Vec<u64> = match vals {
                Vals::I(v) => v.iter().map(|&x| x as u64).collect(),
                Vals::U(v) => v.clone(),
                // Float to bool is "not zero", not truncation.
                Vals::F(v) if width == 1 => v.iter().map(|x| u64::from(*x != 0.0)).collect(),
                // Float to unsigned converts as unsigned (saturating), so 1e19 stays 1e19.
                Vals::F(v) if unsigned => v.iter().map(|&x| x as u64).collect(),
                Vals::F(v) => v.iter().map(|&x| x as i64 as u64).collect(),
            };
            for v in bits {
                let v = if width == 1 { u64::from(v != 0) } else { v };
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

    /// Folds `graph.<name>` of constants (typed dense attributes in MLIR syntax) to a result of
    /// type `result`, and prints what it folds to.
    fn fold_text(name: &str, inputs: &[&str], attrs: &str, result: &str) -> Option<String> {
        let mut ctx = Context::new();
        crate::register(&mut ctx);
        let loc = ctx.unknown_loc();
        let mut tys = Vec::new();
        let mut consts = Vec::new();
        for text in inputs {
            let a = nart_ir::parser::parse_attr_str(&mut ctx, text).expect("a dense attribute");
            tys.push(ctx.typed_attr_type(a).expect("typed"));
            consts.push(Some(a));
        }
        let block = ctx.create_block(&tys, loc);
        let args = ctx.block_args(block).to_vec();
        let res_ty = nart_ir::parser::parse_type_str(&mut ctx, result).expect("a type");
        let mut st = OperationState::new(&mut ctx, &format!("graph.{name}"), loc)
            .operands(&args)
            .results(&[res_ty]);
        if !attrs.is_empty() {
            let d = nart_ir::parser::parse_attr_str(&mut ctx, attrs).expect("a dictionary");
            let AttrData::Dictionary(entries) = ctx.attr_data(d).clone() else {
                panic!("not a dictionary");
            };
            for e in entries {
                let key = ctx.str(e.name).to_string();
                st = st.prop(&mut ctx, &key, e.value);
            }
        }
        let op = ctx.create_op(st);
        ctx.append_op(block, op);
        match fold_op(&mut ctx, op, &consts) {
            FoldOutcome::Replace(r) => match r[0] {
                FoldResult::Attr(a) => Some(nart_ir::printer::attr_to_string(&ctx, a)),
                FoldResult::Value(_) => Some("the operand".into()),
            },
            _ => None,
        }
    }

    const BIG: &str = "dense<18446744073709551614> : tensor<1xui64>";
    const TWO: &str = "dense<2> : tensor<1xui64>";

    /// Op, constant operands, attributes, result type, what it folds to.
    #[rustfmt::skip]
    const UNSIGNED: &[(&str, &[&str], &str, &str, &str)] = &[
            ("Div", &[BIG, TWO], "", "tensor<1xui64>", "dense<9223372036854775807> : tensor<1xui64>"),
            ("Add", &[BIG, "dense<1> : tensor<1xui64>"], "", "tensor<1xui64>", "dense<18446744073709551615> : tensor<1xui64>"),
            ("Abs", &[BIG], "", "tensor<1xui64>", "dense<18446744073709551614> : tensor<1xui64>"),
            ("Relu", &[BIG], "", "tensor<1xui64>", "dense<18446744073709551614> : tensor<1xui64>"),
            ("Cast", &[BIG], "{to = 1 : i64}", "tensor<1xf32>", "dense<1.8446744e+19> : tensor<1xf32>"),
            ("Cast", &["dense<1.0e19> : tensor<1xf32>"], "{to = 13 : i64}", "tensor<1xui64>", "dense<9999999980506447872> : tensor<1xui64>"),
            ("Cast", &["dense<-1.5> : tensor<1xf32>"], "{to = 7 : i64}", "tensor<1xi64>", "dense<-1> : tensor<1xi64>"),
            ("Cast", &[BIG], "{to = 7 : i64}", "tensor<1xi64>", "dense<-2> : tensor<1xi64>"),
            ("Cast", &[BIG], "{to = 9 : i64}", "tensor<1xi1>", "dense<true> : tensor<1xi1>"),
            ("Concat", &[BIG, TWO], "{axis = 0 : i64}", "tensor<2xui64>", "dense<[18446744073709551614, 2]> : tensor<2xui64>"),
            ("Gather", &["dense<[1, 18446744073709551615]> : tensor<2xui64>", "dense<1> : tensor<1xi64>"], "", "tensor<1xui64>", "dense<18446744073709551615> : tensor<1xui64>"),
        ];

    #[test]
    fn unsigned_values_fold_as_unsigned() {
        for (name, inputs, attrs, result, want) in UNSIGNED {
            assert_eq!(
                fold_text(name, inputs, attrs, result).as_deref(),
                Some(*want),
                "graph.{name}({inputs:?})"
            );
        }
    }

    #[test]
    fn retyping_folds_need_the_same_element_count() {
        let six = "dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>";
        let shape = "dense<[2, 2]> : tensor<2xi64>";
        assert_eq!(
            fold_text("Reshape", &[six, shape], "", "tensor<2x2xf32>"),
            None
        );
        assert!(fold_text(
            "Reshape",
            &[six, "dense<[2, 3]> : tensor<2xi64>"],
            "",
            "tensor<2x3xf32>"
        )
        .is_some());
        assert_eq!(fold_text("Flatten", &[six], "", "tensor<2x2xf32>"), None);
    }

    #[test]
    fn identity_folds_only_to_an_operand_of_its_type() {
        let c = "dense<[1.0, 2.0, 3.0]> : tensor<3xf32>";
        assert_eq!(
            fold_text("Identity", &[c], "", "tensor<3xf32>").as_deref(),
            Some("the operand")
        );
        assert_eq!(fold_text("Identity", &[c], "", "tensor<?xf32>"), None);
    }
}
