//! `graph-recognize`: decomposed activations, normalizations and attention, as exporters
//! write them, become the ONNX op that says what they compute.
//!
//! | pattern | before (any operand order of `Add` and `Mul`) | after |
//! |---|---|---|
//! | `GeluErf` | `x · 0.5 · (1 + erf(x / √2))` (`/ 1.4142` or `· 0.7071`) | `Gelu(x)` |
//! | `GeluTanh` | `x · 0.5 · (1 + tanh(√(2/π) · (x + 0.044715 · x³)))` (`x³` as `Pow` or products) | `Gelu(x) {approximate = "tanh"}` |
//! | `LayerNorm` | `d = x − mean(x)`, `d / √(mean(d²) + ε)`, then `· γ`, `+ β` | `LayerNormalization(x, γ, β)` |
//! | `RmsNorm` | `x / √(mean(x²) + ε)` or `x · 1/√(...)`, then `· γ` | `RMSNormalization(x, γ)` |
//! | `Silu` | `x · sigmoid(x)` | `Swish(x)` |
//! | `HardSwish` | `x · hardsigmoid(x)` (α = 1/6, β = 0.5), `x · clip(x + 3, 0, 6) / 6` | `HardSwish(x)` |
//! | `Attention` | `softmax(Q·Kᵀ · s (+ M)) · V`, `Kᵀ` a `Transpose` of the last two axes, `s` by `Mul` or `Div` (or absent) | `Attention(Q, K, V, M) {scale = s}` |
//!
//! Every pattern checks each constant against its expected value within a relative tolerance
//! of 1e-3 (a model stores `0.7071` or `1/1.4142` for `1/√2`), that means reduce over the last
//! axes with `keepdims`, that every intermediate value has a single use (the difference `d`
//! of a LayerNorm two), that the tensors are `f32`, and that the result has the type of the
//! value it replaces. A normalization needs static normalized dims (its parameters are built
//! to their shape); the other dims may be dynamic. Attention takes 4-D `[B, H, S, D]` operands
//! with equal batch and head dims, or 3-D `[B, S, D]` ones as one head
//! (`q_num_heads = kv_num_heads = 1`), and a mask only when it broadcasts the same way in ONNX
//! `Attention`'s 4-D form. A dynamic batch dim counts as equal to a dynamic batch dim: if they
//! differ at run time, where `MatMul` would broadcast a batch of 1, `Attention` reports a shape
//! error rather than computing something else.

use nart_ir::{Context, Op, PatternRewriter, RewritePattern, Value};

use crate::util::{self, def, is, is_f32, near, scalar, single_use};

/// Relative tolerance of the constants the patterns check.
pub const TOLERANCE: f64 = 1e-3;

/// A product: the non-constant factors and the product of the one-element constants.
struct Product {
    factors: Vec<Value>,
    coeff: f64,
}

/// The factors of the product `op` computes: descends into `Mul` operands and `Div` by a
/// one-element constant, through values with a single use; with `expand_pow`, a single-use
/// `Pow(x, n)` for a constant `n` of 2 or 3 counts as `n` factors `x`.
fn product(ctx: &Context, op: Op, expand_pow: bool) -> Option<Product> {
    let mut p = Product {
        factors: Vec::new(),
        coeff: 1.0,
    };
    collect(ctx, op, expand_pow, 0, &mut p)?;
    Some(p)
}

fn collect(ctx: &Context, op: Op, expand_pow: bool, depth: usize, p: &mut Product) -> Option<()> {
    if depth > 4 {
        return None;
    }
    let operands = ctx.operands(op).to_vec();
    let take = |v: Value, p: &mut Product| -> Option<()> {
        if let Some(s) = scalar(ctx, v) {
            p.coeff *= s;
            return Some(());
        }
        if single_use(ctx, v) {
            if let Some(inner) = ctx.defining_op(v) {
                if is(ctx, inner, "Mul") || (is(ctx, inner, "Div") && divisor(ctx, inner)) {
                    return collect(ctx, inner, expand_pow, depth + 1, p);
                }
                if expand_pow && is(ctx, inner, "Pow") {
                    let n = scalar(ctx, ctx.operand(inner, 1));
                    if let Some(n @ (2.0 | 3.0)) = n {
                        for _ in 0..n as usize {
                            p.factors.push(ctx.operand(inner, 0));
                        }
                        return Some(());
                    }
                }
            }
        }
        p.factors.push(v);
        Some(())
    };
    if is(ctx, op, "Mul") {
        let [a, b] = operands[..] else { return None };
        take(a, p)?;
        take(b, p)?;
        Some(())
    } else if is(ctx, op, "Div") && divisor(ctx, op) {
        let s = scalar(ctx, operands[1])?;
        p.coeff /= s;
        take(operands[0], p)
    } else {
        None
    }
}

/// Whether `op` (a `Div`) divides by a nonzero one-element constant.
fn divisor(ctx: &Context, op: Op) -> bool {
    scalar(ctx, ctx.operand(op, 1)).is_some_and(|s| s != 0.0)
}

/// `Add(v, 1)` or `Add(1, v)` with a single-use `v` defined by `graph.<name>`: that op.
fn one_plus(ctx: &Context, v: Value, name: &str) -> Option<Op> {
    let add = def(ctx, v, "Add")?;
    let (one, inner) = util::with_scalar(ctx, add)?;
    if !near(one, 1.0, TOLERANCE) || !single_use(ctx, inner) {
        return None;
    }
    def(ctx, inner, name)
}

/// Replaces `root` by a new `graph.<name>(operands)` of `root`'s result type.
fn replace_with(
    rw: &mut PatternRewriter<'_>,
    root: Op,
    name: &str,
    operands: &[Value],
    props: Vec<(&str, nart_ir::Attr)>,
) {
    let ty = rw.value_type(rw.result(root, 0));
    let loc = rw.op_loc(root);
    rw.set_insertion_point_before(root);
    let op = util::build(rw, name, operands, &[ty], props, loc);
    let v = rw.result(op, 0);
    rw.replace_op(root, &[v]);
}

/// The value `x` of a two-factor product `x · f(x)` (either order) for which `check(f_op, x)`
/// holds, with `f(x)` single-use and defined by `graph.<name>`.
fn self_gated(
    ctx: &Context,
    p: &Product,
    name: &str,
    check: impl Fn(Op, Value) -> bool,
) -> Option<Value> {
    let [a, b] = p.factors[..] else { return None };
    for (x, g) in [(a, b), (b, a)] {
        if let Some(gop) = def(ctx, g, name) {
            if ctx.operand(gop, 0) == x && single_use(ctx, g) && check(gop, x) {
                return Some(x);
            }
        }
    }
    None
}

fn is_product_root(ctx: &Context, op: Op) -> bool {
    is(ctx, op, "Mul") || is(ctx, op, "Div")
}

/// Whether `x` can replace the result of `root`: an `f32` tensor of the same type.
fn same_type(ctx: &Context, x: Value, root: Op) -> bool {
    is_f32(ctx, x) && ctx.value_type(x) == ctx.value_type(ctx.result(root, 0))
}

/// `x · 0.5 · (1 + erf(x / √2))` → `Gelu(x)`.
pub struct GeluErf;

impl RewritePattern for GeluErf {
    fn name(&self) -> &'static str {
        "GeluErf"
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let Some(x) = gelu_input(rw, op, gelu_erf_gate) else {
            return false;
        };
        replace_with(rw, op, "Gelu", &[x], Vec::new());
        true
    }
}

/// `x · 0.5 · (1 + tanh(√(2/π) · (x + 0.044715 · x³)))` → `Gelu(x) {approximate = "tanh"}`.
pub struct GeluTanh;

impl RewritePattern for GeluTanh {
    fn name(&self) -> &'static str {
        "GeluTanh"
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let Some(x) = gelu_input(rw, op, gelu_tanh_gate) else {
            return false;
        };
        let approx = rw.uniq().string_attr("tanh");
        replace_with(rw, op, "Gelu", &[x], vec![("approximate", approx)]);
        true
    }
}

/// The `x` of `root = x · 0.5 · gate` for which `gate(g, x)` holds.
fn gelu_input(ctx: &Context, root: Op, gate: fn(&Context, Value, Value) -> bool) -> Option<Value> {
    if !is_product_root(ctx, root) {
        return None;
    }
    let p = product(ctx, root, false)?;
    if !near(p.coeff, 0.5, TOLERANCE) {
        return None;
    }
    let [a, b] = p.factors[..] else { return None };
    [(a, b), (b, a)]
        .into_iter()
        .find(|&(x, g)| gate(ctx, g, x) && same_type(ctx, x, root))
        .map(|(x, _)| x)
}

/// Whether `g` is `1 + tanh(√(2/π) · (x + 0.044715 · x³))` with single-use intermediates.
fn gelu_tanh_gate(ctx: &Context, g: Value, x: Value) -> bool {
    let inner = || -> Option<bool> {
        if !single_use(ctx, g) {
            return Some(false);
        }
        let tanh = one_plus(ctx, g, "Tanh")?;
        let t = ctx.operand(tanh, 0);
        if !single_use(ctx, t) {
            return Some(false);
        }
        let q = product(ctx, ctx.defining_op(t)?, false)?;
        let [sum] = q.factors[..] else {
            return Some(false);
        };
        if !near(q.coeff, (2.0 / std::f64::consts::PI).sqrt(), TOLERANCE) || !single_use(ctx, sum) {
            return Some(false);
        }
        let add = def(ctx, sum, "Add")?;
        let cube = util::other_operand(ctx, add, x)?;
        if !single_use(ctx, cube) {
            return Some(false);
        }
        let c = product(ctx, ctx.defining_op(cube)?, true)?;
        Some(c.factors == [x, x, x] && near(c.coeff, 0.044715, TOLERANCE))
    };
    inner().unwrap_or(false)
}

/// Whether `g` is `1 + erf(x · 1/√2)` with single-use intermediates.
fn gelu_erf_gate(ctx: &Context, g: Value, x: Value) -> bool {
    if !single_use(ctx, g) {
        return false;
    }
    let Some(erf) = one_plus(ctx, g, "Erf") else {
        return false;
    };
    let s = ctx.operand(erf, 0);
    if !single_use(ctx, s) {
        return false;
    }
    let Some(sop) = ctx.defining_op(s) else {
        return false;
    };
    if !is_product_root(ctx, sop) {
        return false;
    }
    let Some(q) = product(ctx, sop, false) else {
        return false;
    };
    q.factors == [x] && near(q.coeff, std::f64::consts::FRAC_1_SQRT_2, TOLERANCE)
}

/// `x · sigmoid(x)` → `Swish(x)`.
pub struct Silu;

impl RewritePattern for Silu {
    fn name(&self) -> &'static str {
        "Silu"
    }
    fn root(&self) -> Option<&'static str> {
        Some("graph.Mul")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let Some(p) = product(rw, op, false) else {
            return false;
        };
        if p.coeff != 1.0 {
            return false;
        }
        let Some(x) = self_gated(rw, &p, "Sigmoid", |_, _| true) else {
            return false;
        };
        if !same_type(rw, x, op) {
            return false;
        }
        replace_with(rw, op, "Swish", &[x], Vec::new());
        true
    }
}

/// `x · hardsigmoid(x)` (α = 1/6, β = 0.5) or `x · clip(x + 3, 0, 6) / 6` → `HardSwish(x)`.
pub struct HardSwish;

impl RewritePattern for HardSwish {
    fn name(&self) -> &'static str {
        "HardSwish"
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        if !is_product_root(rw, op) {
            return false;
        }
        let Some(p) = product(rw, op, false) else {
            return false;
        };
        let hard_sigmoid = |g: Op, _: Value| {
            let alpha = util::float_attr(rw, g, "alpha").unwrap_or(0.2);
            let beta = util::float_attr(rw, g, "beta").unwrap_or(0.5);
            near(alpha, 1.0 / 6.0, TOLERANCE) && near(beta, 0.5, TOLERANCE)
        };
        let relu6 = |g: Op, x: Value| {
            let bounds = (
                rw.operands(g).get(1).and_then(|v| scalar(rw, *v)),
                rw.operands(g).get(2).and_then(|v| scalar(rw, *v)),
            );
            bounds == (Some(0.0), Some(6.0)) && shift_by_three(rw, rw.operand(g, 0), x)
        };
        let x = if p.coeff == 1.0 {
            self_gated(rw, &p, "HardSigmoid", hard_sigmoid)
        } else if near(p.coeff, 1.0 / 6.0, TOLERANCE) {
            // `Clip(x + 3, 0, 6)`: the clipped value is not `x` itself.
            let [a, b] = p.factors[..] else { return false };
            [(a, b), (b, a)].into_iter().find_map(|(x, g)| {
                let c = def(rw, g, "Clip")?;
                (single_use(rw, g) && relu6(c, x)).then_some(x)
            })
        } else {
            None
        };
        let Some(x) = x else { return false };
        if !same_type(rw, x, op) {
            return false;
        }
        replace_with(rw, op, "HardSwish", &[x], Vec::new());
        true
    }
}

/// Whether `v` is a single-use `x + 3`.
fn shift_by_three(ctx: &Context, v: Value, x: Value) -> bool {
    let Some(add) = def(ctx, v, "Add") else {
        return false;
    };
    single_use(ctx, v)
        && util::other_operand(ctx, add, x)
            .is_some_and(|c| util::scalar_near(ctx, c, 3.0, TOLERANCE))
}

/// The statistics part of a normalization: `sq` (the squared value's producer input `d`),
/// the reduction axes and epsilon.
struct MeanSquare {
    axes: Vec<usize>,
    eps: f64,
}

/// Matches `s = Sqrt(ReduceMean(d², axes) + ε)`, every intermediate single-use, `d²` as
/// `Pow(d, 2)` or `Mul(d, d)`, the mean keeping dims.
fn rms_of(ctx: &Context, s: Value, d: Value) -> Option<MeanSquare> {
    let sqrt = def(ctx, s, "Sqrt")?;
    let a = ctx.operand(sqrt, 0);
    let add = def(ctx, a, "Add")?;
    let (eps, var) = util::with_scalar(ctx, add)?;
    if !(eps > 0.0 && eps.is_finite() && single_use(ctx, a) && single_use(ctx, var)) {
        return None;
    }
    let mean = def(ctx, var, "ReduceMean")?;
    if util::int_attr(ctx, mean, "keepdims").unwrap_or(1) != 1 {
        return None;
    }
    let sq = ctx.operand(mean, 0);
    if !single_use(ctx, sq) {
        return None;
    }
    let sq_op = ctx.defining_op(sq)?;
    let squares_d = if is(ctx, sq_op, "Pow") {
        ctx.operand(sq_op, 0) == d && scalar(ctx, ctx.operand(sq_op, 1)) == Some(2.0)
    } else {
        is(ctx, sq_op, "Mul") && ctx.operands(sq_op) == [d, d]
    };
    if !squares_d {
        return None;
    }
    let rank = util::rank(ctx, d)?;
    let axes = util::reduce_axes(ctx, mean, rank)?;
    util::trailing_axes(&axes, rank).then_some(MeanSquare { axes, eps })
}

/// The affine tail of a normalization whose unscaled result is `n`: a single-use `n · γ`
/// and, with `with_beta`, a single-use `+ β` after it, `γ` and `β` constants. Returns the
/// last op and the constants.
fn affine_tail(
    ctx: &Context,
    n: Value,
    with_beta: bool,
) -> (Option<Op>, Option<Value>, Option<Value>) {
    let Some(mul) = util::only_user(ctx, n).filter(|&u| is(ctx, u, "Mul")) else {
        return (None, None, None);
    };
    let Some(gamma) =
        util::other_operand(ctx, mul, n).filter(|g| util::constant(ctx, *g).is_some())
    else {
        return (None, None, None);
    };
    let scaled = ctx.result(mul, 0);
    if with_beta {
        if let Some(add) = util::only_user(ctx, scaled).filter(|&u| is(ctx, u, "Add")) {
            if let Some(beta) =
                util::other_operand(ctx, add, scaled).filter(|b| util::constant(ctx, *b).is_some())
            {
                return (Some(add), Some(gamma), Some(beta));
            }
        }
    }
    (Some(mul), Some(gamma), None)
}

/// The values of a constant `c` made to the normalized shape `dims`: one value broadcast, or a
/// shape that is `dims` with leading ones (possibly fewer dims).
fn norm_param(ctx: &Context, c: Value, dims: &[i64]) -> Option<Vec<f64>> {
    let k = util::constant(ctx, c)?;
    if !is_f32(ctx, c) {
        return None;
    }
    let numel: i64 = dims.iter().product();
    if k.values.len() == 1 {
        return Some(vec![k.values[0]; numel as usize]);
    }
    let strip = |s: &[i64]| -> Vec<i64> { s.iter().copied().skip_while(|&d| d == 1).collect() };
    let ks: Vec<i64> = k.shape.iter().map(|&d| d as i64).collect();
    (strip(&ks) == strip(dims) && k.values.len() as i64 == numel).then_some(k.values)
}

/// Rewrites a matched normalization: `name(x, γ[, β])` with `axis`, `epsilon`, replacing `last`.
#[allow(clippy::too_many_arguments)]
fn replace_norm(
    rw: &mut PatternRewriter<'_>,
    name: &str,
    x: Value,
    last: Op,
    ms: &MeanSquare,
    gamma: Option<Value>,
    beta: Option<Value>,
    results: usize,
) -> bool {
    if !same_type(rw, x, last) {
        return false;
    }
    let Some(shape) = util::shape(rw, x) else {
        return false;
    };
    let axis = shape.len() - ms.axes.len();
    let dims = shape[axis..].to_vec();
    // The normalized dims must be static (the parameters are built to their shape); the
    // others may be dynamic.
    if dims.contains(&nart_ir::DYNAMIC) {
        return false;
    }
    let udims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    let numel: usize = udims.iter().product();
    let g = match gamma {
        Some(g) => match norm_param(rw, g, &dims) {
            Some(v) => v,
            None => return false,
        },
        None => vec![1.0; numel],
    };
    let b = match beta {
        Some(b) => match norm_param(rw, b, &dims) {
            Some(v) => Some(v),
            None => return false,
        },
        None => None,
    };
    let loc = rw.op_loc(last);
    rw.set_insertion_point_before(last);
    let gv = util::f32_constant(rw, &udims, &g, loc);
    let mut operands = vec![x, gv];
    if name == "LayerNormalization" {
        let bv = match b {
            Some(b) => util::f32_constant(rw, &udims, &b, loc),
            None => util::none_value(rw, loc),
        };
        operands.push(bv);
    }
    let ty = rw.value_type(rw.result(last, 0));
    let none = rw.uniq().none_type();
    let mut types = vec![ty];
    types.resize(results, none);
    let axis_attr = util::i64_attr(rw, axis as i64);
    let eps_attr = util::f32_attr(rw, ms.eps);
    let op = util::build(
        rw,
        name,
        &operands,
        &types,
        vec![("axis", axis_attr), ("epsilon", eps_attr)],
        loc,
    );
    let v = rw.result(op, 0);
    rw.replace_op(last, &[v]);
    true
}

/// `(x − mean(x)) / √(mean((x − mean(x))²) + ε) · γ + β` → `LayerNormalization`.
pub struct LayerNorm;

impl RewritePattern for LayerNorm {
    fn name(&self) -> &'static str {
        "LayerNorm"
    }
    fn root(&self) -> Option<&'static str> {
        Some("graph.Div")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let (d, s) = (rw.operand(op, 0), rw.operand(op, 1));
        let Some(sub) = def(rw, d, "Sub") else {
            return false;
        };
        // `d` feeds this `Div` and the square (`Pow(d, 2)`, or `Mul(d, d)` twice), nothing else.
        let mut others: Vec<Op> = rw
            .uses(d)
            .iter()
            .map(|u| u.op)
            .filter(|&u| u != op)
            .collect();
        others.dedup();
        if others.len() != 1
            || rw.uses(d).iter().filter(|u| u.op == op).count() != 1
            || !single_use(rw, s)
        {
            return false;
        }
        let (x, m) = (rw.operand(sub, 0), rw.operand(sub, 1));
        let Some(mean) = def(rw, m, "ReduceMean") else {
            return false;
        };
        if rw.operand(mean, 0) != x
            || !single_use(rw, m)
            || util::int_attr(rw, mean, "keepdims").unwrap_or(1) != 1
        {
            return false;
        }
        let Some(ms) = rms_of(rw, s, d) else {
            return false;
        };
        let Some(rank) = util::rank(rw, x) else {
            return false;
        };
        if util::reduce_axes(rw, mean, rank).as_deref() != Some(&ms.axes[..]) {
            return false;
        }
        let n = rw.result(op, 0);
        let (last, gamma, beta) = match affine_tail(rw, n, true) {
            (Some(last), g, b) => (last, g, b),
            _ => (op, None, None),
        };
        replace_norm(rw, "LayerNormalization", x, last, &ms, gamma, beta, 3)
    }
}

/// `x / √(mean(x²) + ε) · γ` (or `x · 1/√(...)`) → `RMSNormalization`.
pub struct RmsNorm;

impl RewritePattern for RmsNorm {
    fn name(&self) -> &'static str {
        "RmsNorm"
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let found = if is(rw, op, "Div") {
            let (x, s) = (rw.operand(op, 0), rw.operand(op, 1));
            single_use(rw, s)
                .then(|| rms_of(rw, s, x).map(|ms| (x, ms)))
                .flatten()
        } else if is(rw, op, "Mul") {
            let [a, b] = rw.operands(op) else {
                return false;
            };
            let (a, b) = (*a, *b);
            [(a, b), (b, a)].into_iter().find_map(|(x, r)| {
                let recip = def(rw, r, "Reciprocal")?;
                if !single_use(rw, r) {
                    return None;
                }
                let s = rw.operand(recip, 0);
                if !single_use(rw, s) {
                    return None;
                }
                rms_of(rw, s, x).map(|ms| (x, ms))
            })
        } else {
            None
        };
        let Some((x, ms)) = found else { return false };
        let n = rw.result(op, 0);
        let (last, gamma) = match affine_tail(rw, n, false) {
            (Some(last), g, _) => (last, g),
            _ => (op, None),
        };
        replace_norm(rw, "RMSNormalization", x, last, &ms, gamma, None, 1)
    }
}

/// `softmax(Q·Kᵀ · s (+ M)) · V` → `Attention(Q, K, V, M) {scale = s}`.
pub struct Attention;

impl RewritePattern for Attention {
    fn name(&self) -> &'static str {
        "Attention"
    }
    fn root(&self) -> Option<&'static str> {
        Some("graph.MatMul")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let Some(m) = match_attention(rw, op) else {
            return false;
        };
        let loc = rw.op_loc(op);
        rw.set_insertion_point_before(op);
        let mask = match m.mask {
            Some(v) => v,
            None => util::none_value(rw, loc),
        };
        // No past key and value, no padding lengths.
        let absent = util::none_value(rw, loc);
        let ty = rw.value_type(rw.result(op, 0));
        let none = rw.uniq().none_type();
        let scale = util::f32_attr(rw, m.scale);
        let mut props = vec![("scale", scale)];
        if m.rank == 3 {
            let one = util::i64_attr(rw, 1);
            props.push(("q_num_heads", one));
            props.push(("kv_num_heads", one));
        }
        let att = util::build(
            rw,
            "Attention",
            &[m.q, m.k, m.v, mask, absent, absent, absent],
            &[ty, none, none, none],
            props,
            loc,
        );
        let y = rw.result(att, 0);
        rw.replace_op(op, &[y]);
        true
    }
}

struct AttentionMatch {
    q: Value,
    k: Value,
    v: Value,
    mask: Option<Value>,
    scale: f64,
    rank: usize,
}

fn match_attention(ctx: &Context, root: Op) -> Option<AttentionMatch> {
    let (p, v) = (ctx.operand(root, 0), ctx.operand(root, 1));
    let softmax = def(ctx, p, "Softmax")?;
    let rank = util::rank(ctx, p)?;
    if !(rank == 3 || rank == 4) || !single_use(ctx, p) {
        return None;
    }
    let axis = util::int_attr(ctx, softmax, "axis").unwrap_or(-1);
    if axis != -1 && axis != rank as i64 - 1 {
        return None;
    }
    let mut s = ctx.operand(softmax, 0);
    if !single_use(ctx, s) {
        return None;
    }
    // An additive mask: the `Add` operand that is not the (scaled) scores.
    let mut mask = None;
    if let Some(add) = def(ctx, s, "Add") {
        let [a, b] = ctx.operands(add) else {
            return None;
        };
        let (a, b) = (*a, *b);
        let (scores, m) = if scores_like(ctx, a) { (a, b) } else { (b, a) };
        if !scores_like(ctx, scores) || ctx.value_type(scores) != ctx.value_type(s) {
            return None;
        }
        if !is_f32(ctx, m) || !mask_fits(ctx, m, rank) {
            return None;
        }
        mask = Some(m);
        s = scores;
        if !single_use(ctx, s) {
            return None;
        }
    }
    let mut scale = 1.0;
    let mut r = s;
    if let Some(sop) = ctx.defining_op(s) {
        if is(ctx, sop, "Mul") || is(ctx, sop, "Div") {
            let prod = product(ctx, sop, false)?;
            let [inner] = prod.factors[..] else {
                return None;
            };
            scale = prod.coeff;
            r = inner;
            if !single_use(ctx, r) {
                return None;
            }
        }
    }
    let qk = def(ctx, r, "MatMul")?;
    let (q, kt) = (ctx.operand(qk, 0), ctx.operand(qk, 1));
    let tr = def(ctx, kt, "Transpose")?;
    let want: Vec<i64> = match rank {
        4 => vec![0, 1, 3, 2],
        _ => vec![0, 2, 1],
    };
    if util::ints_attr(ctx, tr, "perm")? != want || !single_use(ctx, kt) {
        return None;
    }
    let k = ctx.operand(tr, 0);
    let (qs, ks, vs) = (
        util::shape(ctx, q)?,
        util::shape(ctx, k)?,
        util::shape(ctx, v)?,
    );
    // Same batch (and head) dims, no broadcasting; K and V share the sequence length. A
    // dynamic dim counts as equal to a dynamic dim at the same place (a batch that differs
    // at run time makes `Attention` fail rather than broadcast).
    let b = rank - 2;
    let ok = qs.len() == rank
        && ks.len() == rank
        && vs.len() == rank
        && qs[..b] == ks[..b]
        && qs[..b] == vs[..b]
        && ks[b] == vs[b]
        && qs[b + 1] == ks[b + 1];
    if !ok || ![q, k, v].iter().all(|x| is_f32(ctx, *x)) || !is_f32(ctx, ctx.result(root, 0)) {
        return None;
    }
    if !(scale.is_finite() && scale > 0.0) {
        return None;
    }
    Some(AttentionMatch {
        q,
        k,
        v,
        mask,
        scale,
        rank,
    })
}

/// Whether `v` is a scores value: `Q·Kᵀ` or it scaled by a constant.
fn scores_like(ctx: &Context, v: Value) -> bool {
    let Some(op) = ctx.defining_op(v) else {
        return false;
    };
    if is(ctx, op, "MatMul") {
        return true;
    }
    if is(ctx, op, "Mul") || is(ctx, op, "Div") {
        return product(ctx, op, false)
            .is_some_and(|p| p.factors.len() == 1 && def(ctx, p.factors[0], "MatMul").is_some());
    }
    false
}

/// Whether a mask of this rank broadcasts against the scores the same way in ONNX
/// `Attention`'s 4-D form: any mask for 4-D scores, at most 2-D for 3-D ones.
fn mask_fits(ctx: &Context, m: Value, rank: usize) -> bool {
    util::rank(ctx, m).is_some_and(|r| r <= if rank == 4 { 4 } else { 2 })
}
