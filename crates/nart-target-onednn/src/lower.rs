//! One graph op as one oneDNN operation: [`lower`] says which operation, with which
//! attributes, reading which operands through which dims and strides, or why oneDNN does not
//! run the op (a [`Refusal`] naming the attribute, operand or shape). `supports` and `compile`
//! both use it, so the target never accepts an op it then cannot compile.

use nart_interp::attrs::{AttrValue, Node};
use nart_interp::convert::tensor_from_attr;
use nart_ir::printer::type_to_string;
use nart_ir::{Context, Op, Trait, TypeData, Value};
use nart_onednn_rt::program::{BinaryAlg, Eltwise, OpKind, PoolAlg, DYN, MAX_RANK};
use nart_target::Refusal;
use nart_tensor::Tensor;

/// How the lowered operation reads one of the op's operands.
#[derive(Clone, Debug, PartialEq)]
pub struct In {
    /// The operand's index.
    pub operand: usize,
    /// The dims it is seen with.
    pub dims: Vec<i64>,
    /// The strides it is seen with, if not row-major.
    pub strides: Option<Vec<i64>>,
}

/// A graph op as one oneDNN operation writing the op's result #0.
#[derive(Clone, Debug, PartialEq)]
pub struct Lowered {
    /// The operation.
    pub kind: OpKind,
    /// What it reads.
    pub inputs: Vec<In>,
    /// The dims it writes result #0 with.
    pub out_dims: Vec<i64>,
}

/// Whether `v` is an absent optional operand (`graph.none`).
pub fn is_none(ctx: &Context, v: Value) -> bool {
    matches!(ctx.type_data(ctx.value_type(v)), TypeData::None)
}

/// The value of `v` when a constant op defines it.
pub fn constant(ctx: &Context, v: Value) -> Option<Tensor> {
    let op = ctx.defining_op(v)?;
    if !ctx.op_has_trait(op, Trait::ConstantLike) {
        return None;
    }
    tensor_from_attr(ctx, ctx.attr(op, "value")?).ok()
}

/// The static dims of `v` if it is an `f32` tensor of static shape, else why not.
pub fn f32_dims(ctx: &Context, v: Value, what: &str) -> Result<Vec<i64>, Refusal> {
    let ty = ctx.value_type(v);
    let elem = ctx.element_type(ty);
    let is_tensor = matches!(ctx.type_data(ty), TypeData::RankedTensor { .. });
    if !matches!(
        ctx.type_data(elem),
        TypeData::Float(nart_ir::FloatKind::F32)
    ) || !matches!(
        ctx.type_data(ty),
        TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. }
    ) {
        return Err(Refusal::DType {
            value: what.to_string(),
            dtype: type_to_string(ctx, elem),
        });
    }
    let shape = ctx.shape_of(ty).filter(|_| is_tensor);
    match shape {
        Some(s) if s.iter().all(|&d| d != 0) && s.len() <= MAX_RANK => {
            Ok(s.iter().map(|&d| if d < 0 { DYN } else { d }).collect())
        }
        _ => Err(Refusal::Shape {
            value: what.to_string(),
            shape: type_to_string(ctx, ty),
        }),
    }
}

/// A size as a monomial in the dynamic size: its power and its static factor.
fn monomial(dims: &[i64]) -> (usize, i64) {
    let p = dims.iter().filter(|&&d| d == DYN).count();
    (p, dims.iter().filter(|&&d| d != DYN).product())
}

/// Refuses `dims` of operand `what` when any of `at` is dynamic.
fn static_at(dims: &[i64], at: std::ops::Range<usize>, what: &str) -> Result<(), Refusal> {
    if dims[at.clone()].contains(&DYN) {
        return Err(Refusal::Shape {
            value: what.to_string(),
            shape: format!("{} (dynamic where oneDNN needs a static size)", show(dims)),
        });
    }
    Ok(())
}

/// `[?, 3, 4]`.
pub fn show(dims: &[i64]) -> String {
    let items: Vec<String> = dims
        .iter()
        .map(|&d| if d == DYN { "?".into() } else { d.to_string() })
        .collect();
    format!("[{}]", items.join(", "))
}

/// Row-major strides of `dims`, when none depends on the dynamic size.
fn static_strides(dims: &[i64], what: &str) -> Result<Vec<i64>, Refusal> {
    static_at(dims, 1.min(dims.len())..dims.len(), what)?;
    Ok(row_major(dims))
}

/// One dim of a broadcast: equal sizes, or a static 1 against anything; a dynamic size
/// against a static one other than 1 is refused (the dynamic one would have to be 1).
fn broadcast_dim(p: i64, q: i64) -> Option<i64> {
    if p == q {
        Some(p)
    } else if p == 1 {
        Some(q)
    } else if q == 1 {
        Some(p)
    } else {
        None
    }
}

/// The op's attributes with the ONNX schema's defaults.
fn node(ctx: &Context, op: Op) -> Node {
    let name = ctx.op_name_str(op);
    let attrs = ctx
        .props(op)
        .iter()
        .chain(ctx.attrs(op))
        .map(|na| {
            (
                ctx.str(na.name).to_string(),
                AttrValue::from_ir(ctx, na.value),
            )
        })
        .collect();
    Node::new(
        name,
        String::new(),
        attrs,
        nart_dialect_graph::schema::schema_of_op(name),
    )
}

fn attr(name: &str, value: impl ToString) -> Refusal {
    Refusal::Attribute {
        name: name.to_string(),
        value: value.to_string(),
    }
}

fn bad_attr(name: &str) -> Refusal {
    Refusal::Other(format!("attribute {name} is malformed"))
}

fn ints(n: &Node, name: &'static str, len: usize, dflt: i64) -> Result<Vec<i64>, Refusal> {
    let v = n.opt_ints(name).map_err(|_| bad_attr(name))?;
    match v {
        None => Ok(vec![dflt; len]),
        Some(v) if v.is_empty() => Ok(vec![dflt; len]),
        Some(v) if v.len() == len => Ok(v),
        Some(v) => Err(attr(name, format!("{v:?}"))),
    }
}

fn row_major(dims: &[i64]) -> Vec<i64> {
    let mut s = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1];
    }
    s
}

/// Operand `operand` seen with `dims`, row-major.
pub(crate) fn input(operand: usize, dims: Vec<i64>) -> In {
    In {
        operand,
        dims,
        strides: None,
    }
}

/// `dims` with leading ones up to rank `r`.
fn pad_rank(dims: &[i64], r: usize) -> Vec<i64> {
    let mut v = vec![1; r.saturating_sub(dims.len())];
    v.extend_from_slice(dims);
    v
}

/// Refuses results past the first that something uses (MaxPool's indices, BatchNorm's
/// running statistics, LayerNorm's mean and inverse deviation).
fn only_first_result(ctx: &Context, op: Op) -> Result<(), Refusal> {
    for (i, &r) in ctx.results(op).iter().enumerate().skip(1) {
        if ctx.has_uses(r) {
            return Err(Refusal::Other(format!(
                "result #{i} is used; oneDNN computes result #0 only"
            )));
        }
    }
    Ok(())
}

fn auto_pad_pads(n: &Node, len: usize) -> Result<(Vec<i64>, Vec<i64>), Refusal> {
    let auto = n
        .str_or("auto_pad", "NOTSET")
        .map_err(|_| bad_attr("auto_pad"))?;
    match auto.as_str() {
        "NOTSET" => {
            let pads = ints(n, "pads", 2 * len, 0)?;
            if pads.iter().any(|&p| p < 0) {
                return Err(attr("pads", format!("{pads:?}")));
            }
            Ok((pads[..len].to_vec(), pads[len..].to_vec()))
        }
        "VALID" => Ok((vec![0; len], vec![0; len])),
        other => Err(attr("auto_pad", other)),
    }
}

/// The lowering of `op`, or why oneDNN does not run it.
pub fn lower(ctx: &Context, op: Op) -> Result<Lowered, Refusal> {
    let name = ctx.op_name_str(op);
    if matches!(name, "qnn.conv" | "qnn.matmul") {
        return crate::int8::lower(ctx, op);
    }
    if matches!(name, "qnn.max_pool" | "qnn.avg_pool") {
        return crate::int8::lower_pool(ctx, op);
    }
    if name == "qnn.add" {
        return crate::int8::lower_add(ctx, op);
    }
    if name == "qnn.requantize" {
        return crate::int8::lower_requantize(ctx, op);
    }
    if matches!(name, "quant.qcast" | "quant.dcast") {
        return crate::int8::lower_cast(ctx, op);
    }
    if name == "quant.scast" && !crate::int8::is_constant_cast(ctx, op) {
        return crate::int8::lower_storage_cast(ctx, op);
    }
    if crate::int8::is_constant_cast(ctx, op) {
        // Held by its integer users; nothing runs.
        return Ok(Lowered {
            kind: OpKind::View,
            inputs: Vec::new(),
            out_dims: Vec::new(),
        });
    }
    let Some(kind) = name.strip_prefix("graph.") else {
        return Err(Refusal::UnknownOp);
    };
    let operands = ctx.operands(op);
    let results = ctx.results(op);
    if results.is_empty() || !ctx.regions(op).is_empty() {
        return Err(Refusal::UnknownOp);
    }
    let n = node(ctx, op);
    let dims_of = |i: usize| -> Result<Vec<i64>, Refusal> {
        let v = *operands.get(i).ok_or(Refusal::UnknownOp)?;
        f32_dims(ctx, v, &format!("operand #{i}"))
    };
    let present = |i: usize| operands.get(i).is_some_and(|&v| !is_none(ctx, v));
    let eltwise = |alg: Eltwise, alpha: f64, beta: f64| -> Result<Lowered, Refusal> {
        let x = dims_of(0)?;
        Ok(Lowered {
            kind: OpKind::Eltwise {
                alg,
                alpha: alpha as f32,
                beta: beta as f32,
            },
            inputs: vec![input(0, x.clone())],
            out_dims: x,
        })
    };
    let lowered = match kind {
        "Relu" => eltwise(Eltwise::Relu, 0.0, 0.0)?,
        "LeakyRelu" => {
            let a = n.float_or("alpha", 0.01).map_err(|_| bad_attr("alpha"))?;
            eltwise(Eltwise::Relu, a, 0.0)?
        }
        "Sigmoid" => eltwise(Eltwise::Logistic, 0.0, 0.0)?,
        "Tanh" => eltwise(Eltwise::Tanh, 0.0, 0.0)?,
        "Elu" => {
            let a = n.float_or("alpha", 1.0).map_err(|_| bad_attr("alpha"))?;
            eltwise(Eltwise::Elu, a, 0.0)?
        }
        "Exp" => eltwise(Eltwise::Exp, 0.0, 0.0)?,
        "Log" => eltwise(Eltwise::Log, 0.0, 0.0)?,
        "Sqrt" => eltwise(Eltwise::Sqrt, 0.0, 0.0)?,
        "Abs" => eltwise(Eltwise::Abs, 0.0, 0.0)?,
        "Neg" => eltwise(Eltwise::Linear, -1.0, 0.0)?,
        "HardSwish" => eltwise(Eltwise::HardSwish, 0.0, 0.0)?,
        "Mish" => eltwise(Eltwise::Mish, 0.0, 0.0)?,
        "Gelu" => {
            let approx = n
                .str_or("approximate", "none")
                .map_err(|_| bad_attr("approximate"))?;
            match approx.as_str() {
                "none" => eltwise(Eltwise::GeluErf, 0.0, 0.0)?,
                "tanh" => eltwise(Eltwise::GeluTanh, 0.0, 0.0)?,
                other => return Err(attr("approximate", other)),
            }
        }
        "Clip" => {
            // Opset 11 on: bounds are optional operands; before, attributes.
            let bound = |i: usize, a: &'static str, dflt: f64| -> Result<f64, Refusal> {
                if present(i) {
                    let t = constant(ctx, operands[i]).ok_or_else(|| {
                        Refusal::Other(format!("operand #{i} (a bound) is not a constant"))
                    })?;
                    let v = t.to_f64_vec().map_err(|_| bad_attr(a))?;
                    if v.len() != 1 {
                        return Err(Refusal::Other(format!("operand #{i} is not a scalar")));
                    }
                    Ok(v[0])
                } else {
                    n.float_or(a, dflt).map_err(|_| bad_attr(a))
                }
            };
            let lo = bound(1, "min", f64::from(f32::MIN))?;
            let hi = bound(2, "max", f64::from(f32::MAX))?;
            eltwise(Eltwise::Clip, lo, hi)?
        }
        "Identity" => view(ctx, op)?,
        "Dropout" => {
            only_first_result(ctx, op)?;
            if present(2) {
                let training = constant(ctx, operands[2])
                    .and_then(|t| t.to_bool_vec().ok())
                    .map(|v| v.iter().any(|&b| b));
                if training != Some(false) {
                    return Err(Refusal::Other(
                        "operand #2 (training_mode) is not the constant false".into(),
                    ));
                }
            }
            view(ctx, op)?
        }
        "Reshape" | "Flatten" | "Squeeze" | "Unsqueeze" => view(ctx, op)?,
        "Transpose" => {
            let x = dims_of(0)?;
            let r = x.len();
            let perm = match n.opt_ints("perm").map_err(|_| bad_attr("perm"))? {
                Some(p) if !p.is_empty() => p,
                _ => (0..r as i64).rev().collect(),
            };
            let mut seen = vec![false; r];
            for &p in &perm {
                if p < 0 || p as usize >= r || std::mem::replace(&mut seen[p as usize], true) {
                    return Err(attr("perm", format!("{perm:?}")));
                }
            }
            if perm.len() != r {
                return Err(attr("perm", format!("{perm:?}")));
            }
            let s = static_strides(&x, "operand #0")?;
            let dims: Vec<i64> = perm.iter().map(|&p| x[p as usize]).collect();
            let strides: Vec<i64> = perm.iter().map(|&p| s[p as usize]).collect();
            Lowered {
                kind: OpKind::Reorder,
                inputs: vec![In {
                    operand: 0,
                    dims: dims.clone(),
                    strides: Some(strides),
                }],
                out_dims: dims,
            }
        }
        "Softmax" | "LogSoftmax" => {
            let x = dims_of(0)?;
            let r = x.len() as i64;
            let axis = n.int_or("axis", -1).map_err(|_| bad_attr("axis"))?;
            let norm = if axis < 0 { axis + r } else { axis };
            if norm != r - 1 || r == 0 {
                // Opsets before 13 flatten at the axis, 13 on reduce along it; only the last
                // axis means the same in both.
                return Err(Refusal::Other(format!(
                    "softmax along axis {axis} of a rank-{r} tensor (only the last axis)"
                )));
            }
            static_at(&x, x.len() - 1..x.len(), "operand #0")?;
            Lowered {
                kind: OpKind::Softmax {
                    axis: (r - 1) as i32,
                    log: kind == "LogSoftmax",
                },
                inputs: vec![input(0, x.clone())],
                out_dims: x,
            }
        }
        "Add" | "Sub" | "Mul" | "Div" | "Max" | "Min" => {
            if operands.len() != 2 {
                return Err(Refusal::Other(format!(
                    "{} operands (oneDNN's binary takes 2)",
                    operands.len()
                )));
            }
            let (a, b) = (dims_of(0)?, dims_of(1)?);
            let y = f32_dims(ctx, results[0], "result #0")?;
            let r = y.len().max(1);
            let (y, a, b) = (pad_rank(&y, r), pad_rank(&a, r), pad_rank(&b, r));
            let alg = match kind {
                "Add" => BinaryAlg::Add,
                "Sub" => BinaryAlg::Sub,
                "Mul" => BinaryAlg::Mul,
                "Div" => BinaryAlg::Div,
                "Max" => BinaryAlg::Max,
                _ => BinaryAlg::Min,
            };
            for ((&p, &q), &o) in a.iter().zip(&b).zip(&y) {
                if broadcast_dim(p, q) != Some(o) {
                    return Err(Refusal::Shape {
                        value: "operand #1".into(),
                        shape: format!("{} and {} broadcast to {}", show(&a), show(&b), show(&y)),
                    });
                }
            }
            let commutes = !matches!(alg, BinaryAlg::Sub | BinaryAlg::Div);
            let inputs = if a == y {
                vec![input(0, a), input(1, b)]
            } else if b == y && commutes {
                vec![input(1, b), input(0, a)]
            } else {
                return Err(Refusal::Shape {
                    value: "operand #0".into(),
                    shape: format!(
                        "{} broadcast to {} (oneDNN broadcasts the second operand only)",
                        show(&a),
                        show(&y)
                    ),
                });
            };
            Lowered {
                kind: OpKind::Binary { alg },
                inputs,
                out_dims: y,
            }
        }
        "Conv" => {
            let x = dims_of(0)?;
            let w = dims_of(1)?;
            if !(3..=5).contains(&x.len()) || w.len() != x.len() {
                return Err(Refusal::Shape {
                    value: "operand #0".into(),
                    shape: format!("rank {}", x.len()),
                });
            }
            let sp = x.len() - 2;
            static_at(&x, 1..x.len(), "operand #0")?;
            static_at(&w, 0..w.len(), "operand #1")?;
            let groups = n.int_or("group", 1).map_err(|_| bad_attr("group"))?;
            if groups < 1 || x[1] % groups != 0 || w[0] % groups != 0 {
                return Err(attr("group", groups));
            }
            let strides = ints(&n, "strides", sp, 1)?;
            let dilations = ints(&n, "dilations", sp, 1)?;
            if strides.iter().chain(&dilations).any(|&s| s < 1) {
                return Err(attr("strides", format!("{strides:?}")));
            }
            let (pads_begin, pads_end) = auto_pad_pads(&n, sp)?;
            let mut inputs = vec![input(0, x)];
            let w_dims = if groups > 1 {
                let mut d = vec![groups, w[0] / groups];
                d.extend_from_slice(&w[1..]);
                d
            } else {
                w
            };
            inputs.push(input(1, w_dims));
            if present(2) {
                let b = dims_of(2)?;
                static_at(&b, 0..b.len(), "operand #2")?;
                inputs.push(input(2, b));
            }
            Lowered {
                kind: OpKind::Conv {
                    groups,
                    strides,
                    dilations,
                    pads_begin,
                    pads_end,
                },
                inputs,
                out_dims: f32_dims(ctx, results[0], "result #0")?,
            }
        }
        "MatMul" => {
            let (a, b) = (dims_of(0)?, dims_of(1)?);
            let y = f32_dims(ctx, results[0], "result #0")?;
            let a2 = if a.len() == 1 { vec![1, a[0]] } else { a };
            let b2 = if b.len() == 1 { vec![b[0], 1] } else { b };
            let r = a2.len().max(b2.len());
            let (a2, b2) = (pad_rank(&a2, r), pad_rank(&b2, r));
            static_at(&a2, r - 1..r, "operand #0")?;
            static_at(&b2, r - 2..r, "operand #1")?;
            let mut out = Vec::new();
            for (&p, &q) in a2[..r - 2].iter().zip(&b2[..r - 2]) {
                out.push(broadcast_dim(p, q).ok_or_else(|| Refusal::Shape {
                    value: "operand #1".into(),
                    shape: format!("{} against {}", show(&b2), show(&a2)),
                })?);
            }
            out.extend([a2[r - 2], b2[r - 1]]);
            if monomial(&out) != monomial(&y) {
                return Err(Refusal::Shape {
                    value: "result #0".into(),
                    shape: show(&y),
                });
            }
            Lowered {
                kind: OpKind::MatMul,
                inputs: vec![input(0, a2), input(1, b2)],
                out_dims: out,
            }
        }
        "Gemm" => {
            let (a, b) = (dims_of(0)?, dims_of(1)?);
            if a.len() != 2 || b.len() != 2 {
                return Err(Refusal::Shape {
                    value: "operand #0".into(),
                    shape: format!("{a:?} x {b:?}"),
                });
            }
            static_at(&a, 1..2, "operand #0")?;
            static_at(&b, 0..2, "operand #1")?;
            let alpha = n.float_or("alpha", 1.0).map_err(|_| bad_attr("alpha"))?;
            let beta = n.float_or("beta", 1.0).map_err(|_| bad_attr("beta"))?;
            if alpha != 1.0 {
                return Err(attr("alpha", alpha));
            }
            let ta = n.int_or("transA", 0).map_err(|_| bad_attr("transA"))? != 0;
            let tb = n.int_or("transB", 0).map_err(|_| bad_attr("transB"))? != 0;
            if ta && a[0] == DYN {
                return Err(Refusal::Shape {
                    value: "operand #0".into(),
                    shape: format!("{} transposed (a dynamic stride)", show(&a)),
                });
            }
            let side = |operand: usize, d: &[i64], t: bool| In {
                operand,
                dims: if t { vec![d[1], d[0]] } else { d.to_vec() },
                strides: t.then(|| vec![1, d[1]]),
            };
            let (ia, ib) = (side(0, &a, ta), side(1, &b, tb));
            let (m, nn) = (ia.dims[0], ib.dims[1]);
            let mut inputs = vec![ia, ib];
            if present(2) {
                if beta != 1.0 {
                    return Err(attr("beta", beta));
                }
                let c = pad_rank(&dims_of(2)?, 2);
                if c.len() != 2
                    || c.contains(&DYN)
                    || !(c[0] == 1 || c[0] == m)
                    || !(c[1] == 1 || c[1] == nn)
                {
                    return Err(Refusal::Shape {
                        value: "operand #2".into(),
                        shape: format!("{c:?}"),
                    });
                }
                inputs.push(input(2, c));
            }
            Lowered {
                kind: OpKind::MatMul,
                inputs,
                out_dims: vec![m, nn],
            }
        }
        "MaxPool" | "AveragePool" | "GlobalAveragePool" | "GlobalMaxPool" => {
            only_first_result(ctx, op)?;
            let x = dims_of(0)?;
            let y = f32_dims(ctx, results[0], "result #0")?;
            if !(3..=5).contains(&x.len()) || y.len() != x.len() {
                return Err(Refusal::Shape {
                    value: "operand #0".into(),
                    shape: format!("rank {}", x.len()),
                });
            }
            let sp = x.len() - 2;
            static_at(&x, 1..x.len(), "operand #0")?;
            let (alg, kernel, strides, dilations, pads_begin, mut pads_end) =
                if kind.starts_with("Global") {
                    let alg = if kind == "GlobalMaxPool" {
                        PoolAlg::Max
                    } else {
                        PoolAlg::AvgExcludePad
                    };
                    (
                        alg,
                        x[2..].to_vec(),
                        vec![1; sp],
                        vec![1; sp],
                        vec![0; sp],
                        vec![0; sp],
                    )
                } else {
                    let kernel = ints(&n, "kernel_shape", sp, 0)?;
                    if kernel.iter().any(|&k| k < 1) {
                        return Err(attr("kernel_shape", format!("{kernel:?}")));
                    }
                    let strides = ints(&n, "strides", sp, 1)?;
                    let dilations = ints(&n, "dilations", sp, 1)?;
                    if strides.iter().chain(&dilations).any(|&s| s < 1) {
                        return Err(attr("strides", format!("{strides:?}")));
                    }
                    let (pb, pe) = auto_pad_pads(&n, sp)?;
                    let alg = if kind == "MaxPool" {
                        PoolAlg::Max
                    } else if n.int_or("count_include_pad", 0).unwrap_or(0) != 0 {
                        PoolAlg::AvgIncludePad
                    } else {
                        PoolAlg::AvgExcludePad
                    };
                    (alg, kernel, strides, dilations, pb, pe)
                };
            // ceil_mode: the output's extra window reads past the padding; oneDNN sees it as
            // more padding at the end, which the window ignores except when padding counts.
            for i in 0..sp {
                let reach = (kernel[i] - 1) * dilations[i] + 1;
                let need = (y[2 + i] - 1) * strides[i] + reach - x[2 + i] - pads_begin[i];
                if need > pads_end[i] {
                    if alg == PoolAlg::AvgIncludePad {
                        return Err(Refusal::Other(
                            "ceil_mode with count_include_pad (the extra window's divisor differs)"
                                .into(),
                        ));
                    }
                    pads_end[i] = need;
                }
                if pads_begin[i] >= reach || pads_end[i] >= reach {
                    return Err(attr("pads", format!("{:?}", [pads_begin[i], pads_end[i]])));
                }
            }
            Lowered {
                kind: OpKind::Pool {
                    alg,
                    kernel,
                    strides,
                    dilations,
                    pads_begin,
                    pads_end,
                },
                inputs: vec![input(0, x)],
                out_dims: y,
            }
        }
        "BatchNormalization" => {
            only_first_result(ctx, op)?;
            if n.int_or("training_mode", 0).unwrap_or(1) != 0 {
                return Err(attr("training_mode", 1));
            }
            let x = dims_of(0)?;
            if x.len() < 2 {
                return Err(Refusal::Shape {
                    value: "operand #0".into(),
                    shape: format!("rank {}", x.len()),
                });
            }
            static_at(&x, 1..2, "operand #0")?;
            let eps = n
                .float_or("epsilon", 1e-5)
                .map_err(|_| bad_attr("epsilon"))?;
            let mut inputs = vec![input(0, x.clone())];
            for i in 1..5 {
                let d = dims_of(i)?;
                if d != [x[1]] {
                    return Err(Refusal::Shape {
                        value: format!("operand #{i}"),
                        shape: format!("{d:?}"),
                    });
                }
                inputs.push(input(i, d));
            }
            Lowered {
                kind: OpKind::BatchNorm {
                    epsilon: eps as f32,
                },
                inputs,
                out_dims: x,
            }
        }
        "LayerNormalization" => {
            only_first_result(ctx, op)?;
            let x = dims_of(0)?;
            let r = x.len() as i64;
            let axis = n.int_or("axis", -1).map_err(|_| bad_attr("axis"))?;
            if (if axis < 0 { axis + r } else { axis }) != r - 1 || r < 2 {
                return Err(Refusal::Other(format!(
                    "normalizes from axis {axis} of a rank-{r} tensor (oneDNN: the last axis only)"
                )));
            }
            let eps = n
                .float_or("epsilon", 1e-5)
                .map_err(|_| bad_attr("epsilon"))?;
            static_at(&x, x.len() - 1..x.len(), "operand #0")?;
            let c = x[x.len() - 1];
            let mut inputs = vec![input(0, x.clone())];
            for i in 1..3 {
                if i == 2 && !present(2) {
                    break;
                }
                let d = dims_of(i)?;
                if d.iter().product::<i64>() != c || d.last() != Some(&c) {
                    return Err(Refusal::Shape {
                        value: format!("operand #{i}"),
                        shape: format!("{d:?}"),
                    });
                }
                inputs.push(input(i, vec![c]));
            }
            Lowered {
                kind: OpKind::LayerNorm {
                    epsilon: eps as f32,
                },
                inputs,
                out_dims: x,
            }
        }
        _ => return Err(Refusal::UnknownOp),
    };
    // The result must be an f32 tensor (or, for a view, 8-bit integers) whose size is what
    // the operation writes; with a dynamic dim, the same power of the one dynamic size.
    let y = if lowered.kind == OpKind::View {
        crate::int8::value_dims(ctx, results[0], "result #0")?.0
    } else {
        f32_dims(ctx, results[0], "result #0")?
    };
    if monomial(&y) != monomial(&lowered.out_dims)
        || (lowered.out_dims.len() == y.len()
            && lowered
                .out_dims
                .iter()
                .zip(&y)
                .any(|(&o, &r)| (o == DYN) != (r == DYN) || (o != DYN && o != r)))
    {
        return Err(Refusal::Shape {
            value: "result #0".into(),
            shape: format!(
                "{} where the operation gives {}",
                show(&y),
                show(&lowered.out_dims)
            ),
        });
    }
    Ok(lowered)
}

/// Result #0 is operand #0's memory with the result's dims.
/// A view of operand #0's memory with result #0's dims: `f32`, or 8-bit integers (quantized
/// or stored) of one size.
fn view(ctx: &Context, op: Op) -> Result<Lowered, Refusal> {
    let v = *ctx.operands(op).first().ok_or(Refusal::UnknownOp)?;
    let (x, ex) = crate::int8::value_dims(ctx, v, "operand #0")?;
    let (y, ey) = crate::int8::value_dims(ctx, ctx.results(op)[0], "result #0")?;
    if ex.size() != ey.size() || ex.is_int8() != ey.is_int8() {
        return Err(Refusal::DType {
            value: "result #0".into(),
            dtype: format!("{} from {}", ey.name(), ex.name()),
        });
    }
    let (px, py) = (monomial(&x), monomial(&y));
    if px != py || px.0 > 1 {
        return Err(Refusal::Shape {
            value: "result #0".into(),
            shape: format!(
                "{} from {} (sizes must agree for every dynamic size)",
                show(&y),
                show(&x)
            ),
        });
    }
    Ok(Lowered {
        kind: OpKind::View,
        inputs: vec![input(0, x)],
        out_dims: y,
    })
}
