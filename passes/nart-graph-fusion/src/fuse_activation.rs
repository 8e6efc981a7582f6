//! `graph-fuse-activation`: a product (`Conv`, `Gemm`, `MatMul`), its bias `Add` and the
//! activation after it become one `graph.fused_*` op.
//!
//! Patterns, each only where every intermediate value has a single use and every tensor is
//! `f32`:
//!
//! | pattern | before | after |
//! |---|---|---|
//! | `ConvAddBias` | `Add(Conv(x, w, b?), c)`, `c` constant per output channel or one value | `Conv(x, w, b + c)` |
//! | `GemmAddBias` | `Add(Gemm(a, b), c)` without `C`, `c` constant of `N` values, `1×N`, `M×N` or one value | `Gemm(a, b, c)` |
//! | `FuseActivation` | `act(Conv(...))`, `act(fused_conv(...))` without activation (either layout), `act(Gemm(...))`, `act(MatMul(a, b))`, `act(Add(MatMul(a, b), c))` with `c` a constant of `N` values or one value | `fused_conv`, `fused_gemm`, `fused_matmul` with `activation = act` |
//!
//! Activations: `Relu`, `LeakyRelu`, `Sigmoid`, `Tanh`, `HardSigmoid`, and `Clip` with constant
//! bounds (a `Clip` with only a lower bound of 0 is a `Relu`).

use nart_dialect_graph::fused::{Activation, ACTIVATION_ATTR};
use nart_ir::{Context, Op, PatternRewriter, RewritePattern, Value};

use crate::util::{self, constant, def, is, is_f32, is_none, single_use};

/// The activation `op` computes, if it is one the fused ops take.
pub fn activation_of(ctx: &Context, op: Op) -> Option<Activation> {
    let name = ctx.op_name_str(op).strip_prefix("graph.")?;
    let alpha = |dflt: f64| util::float_attr(ctx, op, "alpha").unwrap_or(dflt) as f32;
    Some(match name {
        "Relu" => Activation::Relu,
        "LeakyRelu" => Activation::LeakyRelu { alpha: alpha(0.01) },
        "Sigmoid" => Activation::Sigmoid,
        "Tanh" => Activation::Tanh,
        "HardSigmoid" => Activation::HardSigmoid {
            alpha: alpha(0.2),
            beta: util::float_attr(ctx, op, "beta").unwrap_or(0.5) as f32,
        },
        "Clip" => {
            let bound = |k: usize| -> Option<Option<f64>> {
                match ctx.operands(op).get(k) {
                    None => Some(None),
                    Some(&v) if is_none(ctx, v) => Some(None),
                    Some(&v) => util::scalar(ctx, v).map(Some),
                }
            };
            match (bound(1)?, bound(2)?) {
                (Some(lo), Some(hi)) if lo <= hi => Activation::Clip {
                    min: lo as f32,
                    max: hi as f32,
                },
                (Some(0.0), None) => Activation::Relu,
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// Builds the fused op of `kind` (`conv`, `gemm`, `matmul`) replacing `root`.
fn fuse(
    rw: &mut PatternRewriter<'_>,
    root: Op,
    kind: &str,
    base: Op,
    operands: &[Value],
    act: Activation,
) -> Op {
    let ty = rw.value_type(rw.result(root, 0));
    let loc = rw.op_loc(root);
    let mut props: Vec<(&str, nart_ir::Attr)> = Vec::new();
    // The base op's own attributes, as they are.
    let base_props: Vec<(String, nart_ir::Attr)> = rw
        .props(base)
        .iter()
        .chain(rw.attrs(base))
        .map(|na| (rw.str(na.name).to_string(), na.value))
        .filter(|(n, _)| n != "activation" && n != "activation_params")
        .collect();
    let act_attr = ACTIVATION_ATTR.enum_attr(rw.uniq(), act.kind());
    props.push(("activation", act_attr));
    let params = act.params();
    if !params.is_empty() {
        let p = util::f32_array(rw, &params);
        props.push(("activation_params", p));
    }
    rw.set_insertion_point_before(root);
    let mut st = nart_ir::OperationState::new(rw.uniq(), &format!("graph.fused_{kind}"), loc)
        .operands(operands)
        .results(&[ty]);
    for (n, a) in props {
        st = st.prop(rw.uniq(), n, a);
    }
    for (n, a) in base_props {
        st = st.prop(rw.uniq(), &n, a);
    }
    let op = rw.create(st);
    let v = rw.result(op, 0);
    rw.replace_op(root, &[v]);
    op
}

/// `act(Conv | Gemm | MatMul | Add(MatMul, bias))` → `graph.fused_*`.
pub struct FuseActivation;

impl RewritePattern for FuseActivation {
    fn name(&self) -> &'static str {
        "FuseActivation"
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let Some(act) = activation_of(rw, op) else {
            return false;
        };
        let x = rw.operand(op, 0);
        if !single_use(rw, x) || !is_f32(rw, x) || !is_f32(rw, rw.result(op, 0)) {
            return false;
        }
        let Some(p) = rw.defining_op(x) else {
            return false;
        };
        // A `fused_conv` without activation (as `graph-layout` makes, in either layout) takes
        // the activation too: `act(fused_conv(x, w, b; none)) = fused_conv(x, w, b; act)`.
        let bare_fused_conv =
            is(rw, p, "fused_conv") && matches!(Activation::of(rw, p), Ok(Activation::None));
        if bare_fused_conv {
            let operands = rw.operands(p).to_vec();
            fuse(rw, op, "conv", p, &operands, act);
            return true;
        }
        if is(rw, p, "Conv") || is(rw, p, "Gemm") {
            let kind = if is(rw, p, "Conv") { "conv" } else { "gemm" };
            let operands = rw.operands(p).to_vec();
            fuse(rw, op, kind, p, &operands, act);
            return true;
        }
        if is(rw, p, "MatMul") {
            let operands = rw.operands(p).to_vec();
            let loc = rw.op_loc(p);
            rw.set_insertion_point_before(op);
            let none = util::none_value(rw, loc);
            fuse(rw, op, "matmul", p, &[operands[0], operands[1], none], act);
            return true;
        }
        if is(rw, p, "Add") {
            let [a, b] = rw.operands(p) else {
                return false;
            };
            let (a, b) = (*a, *b);
            for (m, c) in [(a, b), (b, a)] {
                let Some(mm) = def(rw, m, "MatMul") else {
                    continue;
                };
                if !single_use(rw, m) || !matmul_bias_fits(rw, m, c) {
                    continue;
                }
                let operands = rw.operands(mm).to_vec();
                fuse(rw, op, "matmul", mm, &[operands[0], operands[1], c], act);
                return true;
            }
        }
        false
    }
}

/// Whether the constant `c` is a bias `fused_matmul` takes for the product `m`: one value, or
/// `N` values (shape `[N]`, or `[1, ..., 1, N]` no longer than the product's rank, reshaped).
fn matmul_bias_fits(ctx: &Context, m: Value, c: Value) -> bool {
    let Some(k) = constant(ctx, c) else {
        return false;
    };
    if !is_f32(ctx, c) {
        return false;
    }
    let Some(shape) = util::shape(ctx, m) else {
        return false;
    };
    let Some(&n) = shape.last().filter(|&&n| n != nart_ir::DYNAMIC) else {
        return false;
    };
    let n = n as usize;
    if k.shape.len() > shape.len() {
        return false;
    }
    // `[N]` or a scalar only: other shapes would need a reshape of the constant.
    (k.shape.len() == 1 && k.shape[0] == n) || k.shape.is_empty()
}

/// `Add(Conv(x, w, b?), c)` with `c` constant per output channel → `Conv(x, w, b + c)`.
pub struct ConvAddBias;

impl RewritePattern for ConvAddBias {
    fn name(&self) -> &'static str {
        "ConvAddBias"
    }
    fn root(&self) -> Option<&'static str> {
        Some("graph.Add")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let [a, b] = rw.operands(op) else {
            return false;
        };
        let (a, b) = (*a, *b);
        for (y, c) in [(a, b), (b, a)] {
            let Some(conv) = def(rw, y, "Conv") else {
                continue;
            };
            if !single_use(rw, y) || !is_f32(rw, y) || !is_f32(rw, c) {
                continue;
            }
            if rw.value_type(y) != rw.value_type(rw.result(op, 0)) {
                continue;
            }
            let Some(k) = constant(rw, c) else { continue };
            let Some(ys) = util::shape(rw, y) else {
                continue;
            };
            if ys.len() < 2 || ys[1] == nart_ir::DYNAMIC {
                continue;
            }
            let m = ys[1] as usize;
            let Some(per_channel) = per_channel(&k, ys.len(), m) else {
                continue;
            };
            let bias = rw.operand(conv, 2);
            let old: Vec<f64> = if is_none(rw, bias) {
                vec![0.0; m]
            } else {
                match constant(rw, bias) {
                    Some(bk) if bk.values.len() == m => bk.values,
                    _ => continue,
                }
            };
            let sum: Vec<f64> = old
                .iter()
                .zip(&per_channel)
                .map(|(p, q)| (*p as f32 + *q as f32) as f64)
                .collect();
            rw.set_insertion_point_before(conv);
            let loc = rw.value_loc(c);
            let nb = util::f32_constant(rw, &[m], &sum, loc);
            rw.set_operand(conv, 2, nb);
            rw.replace_op(op, &[y]);
            return true;
        }
        false
    }
}

/// The `m` per-channel values of a constant added to an `N × M × ...` tensor of rank `rank`:
/// one value, or a shape that is 1 everywhere but at the channel axis (counted from the end).
fn per_channel(k: &util::Const, rank: usize, m: usize) -> Option<Vec<f64>> {
    if k.values.len() == 1 {
        return Some(vec![k.values[0]; m]);
    }
    if k.shape.len() > rank || k.shape.len() < rank - 1 {
        return None;
    }
    let channel = k.shape.len() - (rank - 1);
    let ok = k
        .shape
        .iter()
        .enumerate()
        .all(|(i, &d)| if i == channel { d == m } else { d == 1 });
    ok.then(|| k.values.clone())
}

/// `Add(Gemm(a, b), c)` without `C` (and `beta` 1) → `Gemm(a, b, c)`.
pub struct GemmAddBias;

impl RewritePattern for GemmAddBias {
    fn name(&self) -> &'static str {
        "GemmAddBias"
    }
    fn root(&self) -> Option<&'static str> {
        Some("graph.Add")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let [a, b] = rw.operands(op) else {
            return false;
        };
        let (a, b) = (*a, *b);
        for (y, c) in [(a, b), (b, a)] {
            let Some(gemm) = def(rw, y, "Gemm") else {
                continue;
            };
            if !single_use(rw, y) || !is_f32(rw, y) || !is_f32(rw, c) {
                continue;
            }
            if rw.value_type(y) != rw.value_type(rw.result(op, 0)) {
                continue;
            }
            let has_c = rw.operands(gemm).get(2).is_some_and(|v| !is_none(rw, *v));
            let beta = util::float_attr(rw, gemm, "beta").unwrap_or(1.0);
            if has_c || beta != 1.0 || constant(rw, c).is_none() {
                continue;
            }
            let Some(ys) = util::shape(rw, y) else {
                continue;
            };
            let Some(cs) = util::static_shape(rw, c) else {
                continue;
            };
            // Unidirectional broadcast to `M × N` (Gemm's rule for C).
            let fits = cs.len() <= 2
                && cs
                    .iter()
                    .rev()
                    .zip(ys.iter().rev())
                    .all(|(&d, &o)| d == o || d == 1);
            if !fits {
                continue;
            }
            let mut operands = rw.operands(gemm).to_vec();
            operands.truncate(2);
            operands.push(c);
            rw.set_operands(gemm, &operands);
            rw.replace_op(op, &[y]);
            return true;
        }
        false
    }
}
