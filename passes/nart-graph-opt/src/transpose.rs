//! `graph-transpose-opt`: sinks `Transpose` through elementwise ops so that inverse pairs meet
//! and cancel.
//!
//! - `u(Transpose(x, p)) → Transpose(u(x), p)` for an elementwise unary `u`.
//! - `b(Transpose(x, p), Transpose(y, p)) → Transpose(b(x, y), p)` for an elementwise binary
//!   `b` (broadcasting commutes with a common permutation of equal-rank operands).
//! - `b(Transpose(x, p), c) → Transpose(b(x, c'), p)` with a constant `c`, where `c'` is `c`
//!   extended to the full rank and permuted by `p`'s inverse (and the mirror case).
//! - `b(Transpose(x, p), v) → Transpose(b(x, Transpose(v, p⁻¹)), p)` when `v` already feeds a
//!   `Transpose(v, p⁻¹)` (which CSE merges with the new one).
//! - `Concat`, the reductions, `Softmax`/`LogSoftmax`/`Hardmax`, `Squeeze` and `Unsqueeze`
//!   take the Transpose below them with their axes remapped through `p` (each rule's algebra is
//!   stated at [`AxisKind`]'s cases).
//! - `Transpose(x, p) → Reshape(x, shape(y))` when `p` moves only size-1 dimensions.
//! - then `Transpose(Transpose(x, p), q)` composes and identity permutations vanish
//!   (`graph-simplify`'s patterns).
//!
//! A transpose moves only when it has no other user, so nothing is duplicated; the
//! statistics count what moved and what cancelled.

use nart_ir::{Context, Op, PatternRewriter, RewritePattern, Value};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::{apply_patterns_greedily, FrozenPatternSet, GreedyConfig, RegionSimplification};

use crate::simplify::{is_permutation, transpose_perm, TRANSPOSE_IDENTITY, TRANSPOSE_TRANSPOSE};
use crate::util;

nart_pass::declare_pass! {
    /// The `graph-transpose-opt` pass.
    pub struct TransposeOptPass {
        argument: "graph-transpose-opt",
        name: "GraphTransposeOpt",
        summary: "Sink Transpose through elementwise and axis ops and cancel inverse pairs",
        description: "Moves a single-use Transpose below the elementwise unary op or binary op \
            (with a constant operand permuted, or the other operand transposed the same way) \
            that consumes it, and below Concat (every input transposed alike), reductions \
            (`keepdims` either way), Softmax/LogSoftmax/Hardmax, Squeeze and Unsqueeze with \
            their axes remapped; turns a Transpose that moves only size-1 dimensions into a \
            Reshape; then composes Transpose pairs and removes identity permutations.",
        options: nart_pass::NoOptions,
        statistics: [
            "num-sunk-unary" => "Number of Transposes moved below a unary op",
            "num-sunk-binary" => "Number of Transposes moved below a binary op",
            "num-sunk-axis" => "Number of Transposes moved below Concat, a reduction, Softmax, Squeeze or Unsqueeze (axes remapped)",
            "num-to-reshape" => "Number of Transposes of size-1 dimensions only, replaced by a Reshape",
            "num-composed" => "Number of Transpose pairs composed into one (or cancelled)",
            "num-identity" => "Number of identity Transposes removed",
        ],
    }
}

impl Pass for TransposeOptPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let counts = sink_and_cancel(ctx, op);
        let count = |names: &[&str]| -> u64 {
            names
                .iter()
                .map(|n| counts.get(n).copied().unwrap_or(0) as u64)
                .sum()
        };
        let unary: Vec<&str> = SINK_UNARY.iter().map(|p| p.name).collect();
        let binary: Vec<&str> = SINK_BINARY.iter().map(|p| p.name).collect();
        let axis: Vec<&str> = axis_sinks().map(|p| p.name).collect();
        state.add_stat("num-sunk-unary", count(&unary));
        state.add_stat("num-sunk-binary", count(&binary));
        state.add_stat("num-sunk-axis", count(&axis));
        state.add_stat("num-to-reshape", count(&["TransposeUnitDimsToReshape"]));
        state.add_stat("num-composed", count(&["TransposeTranspose"]));
        state.add_stat("num-identity", count(&["TransposeIdentity"]));
        Ok(())
    }
}

/// The patterns of `graph-transpose-opt`.
pub fn patterns() -> FrozenPatternSet {
    let mut all: Vec<&'static dyn RewritePattern> = vec![&TRANSPOSE_TRANSPOSE, &TRANSPOSE_IDENTITY];
    all.extend(SINK_UNARY.iter().map(|p| p as &'static dyn RewritePattern));
    all.extend(SINK_BINARY.iter().map(|p| p as &'static dyn RewritePattern));
    all.extend(axis_sinks().map(|p| p as &'static dyn RewritePattern));
    FrozenPatternSet::new(all, Vec::new())
}

/// The second phase, once nothing sinks any more: [`TRANSPOSE_UNIT_DIMS`]. (In the same run
/// as the sinking it would turn a Transpose into a Reshape before its inverse arrives.)
pub fn reshape_patterns() -> FrozenPatternSet {
    let all: Vec<&'static dyn RewritePattern> = vec![&TRANSPOSE_UNIT_DIMS];
    FrozenPatternSet::new(all, Vec::new())
}

/// Runs both phases on `op`: the sinking and cancelling [`patterns`], then
/// [`reshape_patterns`]; returns how often each pattern applied.
pub fn sink_and_cancel(
    ctx: &mut Context,
    op: Op,
) -> std::collections::BTreeMap<&'static str, usize> {
    let config = GreedyConfig {
        region_simplification: RegionSimplification::Disabled,
        fold: false,
        ..GreedyConfig::default()
    };
    let mut counts = std::collections::BTreeMap::new();
    for set in [patterns(), reshape_patterns()] {
        let res = apply_patterns_greedily(ctx, op, &set, &config);
        for (name, n) in res.pattern_applications {
            *counts.entry(name).or_insert(0) += n;
        }
    }
    counts
}

/// Sinks a Transpose below one elementwise op.
pub struct Sink {
    name: &'static str,
    root: &'static str,
    binary: bool,
}

macro_rules! sinks {
    ($binary:expr; $($onnx:literal),* $(,)?) => {
        &[$(Sink {
            name: concat!("SinkTransposeThrough", $onnx),
            root: concat!("graph.", $onnx),
            binary: $binary,
        }),*]
    };
}

/// The elementwise unary ops a Transpose sinks through (extra operands must be scalars).
pub static SINK_UNARY: &[Sink] = sinks!(false;
    "Abs", "Ceil", "Cast", "Clip", "Cos", "Elu", "Erf", "Exp", "Floor", "HardSigmoid",
    "HardSwish", "Identity", "LeakyRelu", "Log", "Neg", "Not", "Reciprocal", "Relu", "Round",
    "Selu", "Sigmoid", "Sign", "Sin", "Softplus", "Softsign", "Sqrt", "Tan", "Tanh",
);

/// The elementwise binary ops (multidirectional broadcasting) a Transpose sinks through.
pub static SINK_BINARY: &[Sink] = sinks!(true;
    "Add", "And", "Div", "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "Mul",
    "Or", "Pow", "Sub", "Xor",
);

impl RewritePattern for Sink {
    fn name(&self) -> &'static str {
        self.name
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let r = if self.binary {
            sink_binary(rw, op)
        } else {
            sink_unary(rw, op)
        };
        match r {
            Ok(()) => true,
            Err(why) => rw.match_failure(why),
        }
    }
}

/// The single-use Transpose defining `v`, with its permutation.
fn single_transpose(ctx: &Context, v: Value) -> Option<(Op, Vec<i64>)> {
    let t = util::def_of(ctx, v, "Transpose")?;
    if ctx.uses(v).len() != 1 {
        return None;
    }
    let p = transpose_perm(ctx, t)?;
    is_permutation(&p).then_some((t, p))
}

/// `shape` with its dimensions moved back by `p`'s inverse: the shape whose transpose by `p`
/// is `shape`.
fn untranspose_shape(shape: &[i64], p: &[i64]) -> Vec<i64> {
    let mut out = vec![0; shape.len()];
    for (i, &d) in p.iter().enumerate() {
        out[d as usize] = shape[i];
    }
    out
}

fn inverse(p: &[i64]) -> Vec<i64> {
    let mut inv = vec![0; p.len()];
    for (i, &d) in p.iter().enumerate() {
        inv[d as usize] = i as i64;
    }
    inv
}

/// Replaces `op` (whose operands are already rewritten to untransposed values) by
/// `Transpose(op', p)`: `op` keeps its place and gets the untransposed result type.
fn retype_and_transpose(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    p: &[i64],
) -> Result<(), &'static str> {
    let y = rw.result(op, 0);
    let ty = rw.value_type(y);
    let shape = rw.shape_of(ty).ok_or("the result is unranked")?.to_vec();
    if shape.len() != p.len() {
        return Err("the result's rank differs from the permutation's");
    }
    let inner_ty = util::with_shape(rw.uniq(), ty, &untranspose_shape(&shape, p));
    rw.set_value_type(y, inner_ty);
    rw.set_insertion_point_after(op);
    let loc = rw.op_loc(op);
    let perm = util::i64_array(rw.uniq(), p);
    let t = util::build_op(rw, "Transpose", loc, &[y], &[ty], &[("perm", perm)]);
    let out = rw.result(t, 0);
    rw.replace_uses_where(y, out, |user| user != t);
    Ok(())
}

/// Checks that `op`'s one result has rank `p.len()` (before anything changes).
fn result_rank_is(ctx: &Context, op: Op, p: &[i64]) -> Result<(), &'static str> {
    match ctx.shape_of(ctx.value_type(ctx.result(op, 0))) {
        Some(s) if s.len() == p.len() => Ok(()),
        _ => Err("the result's rank is not the permutation's"),
    }
}

fn sink_unary(rw: &mut PatternRewriter<'_>, op: Op) -> Result<(), &'static str> {
    if rw.results(op).len() != 1 {
        return Err("the op has several results");
    }
    let (t, p) =
        single_transpose(rw, rw.operand(op, 0)).ok_or("the input is not a single-use Transpose")?;
    result_rank_is(rw, op, &p)?;
    // Extra operands (Clip's bounds) must not depend on the layout.
    for &v in &rw.operands(op)[1..] {
        if !util::is_none(rw, v) && rw.shape_of(rw.value_type(v)).is_none_or(|s| !s.is_empty()) {
            return Err("an extra operand is not a scalar");
        }
    }
    let x = rw.operand(t, 0);
    rw.set_operand(op, 0, x);
    retype_and_transpose(rw, op, &p)?;
    rw.erase_op(t);
    Ok(())
}

fn sink_binary(rw: &mut PatternRewriter<'_>, op: Op) -> Result<(), &'static str> {
    if rw.operands(op).len() != 2 || rw.results(op).len() != 1 {
        return Err("the op is not binary");
    }
    let (a, b) = (rw.operand(op, 0), rw.operand(op, 1));
    let ta = single_transpose(rw, a);
    let tb = single_transpose(rw, b);
    let (new_a, new_b, p, erase) = match (ta, tb) {
        (Some((t1, p1)), Some((t2, p2))) => {
            if p1 != p2 {
                return Err("the operands are transposed differently");
            }
            (rw.operand(t1, 0), rw.operand(t2, 0), p1, vec![t1, t2])
        }
        (Some((t1, p1)), None) => {
            let c = match permuted_constant(rw, b, &p1) {
                Ok(c) => c,
                Err(why) => transposed_like_a_sibling(rw, b, &p1, op).ok_or(why)?,
            };
            (rw.operand(t1, 0), c, p1, vec![t1])
        }
        (None, Some((t2, p2))) => {
            let c = match permuted_constant(rw, a, &p2) {
                Ok(c) => c,
                Err(why) => transposed_like_a_sibling(rw, a, &p2, op).ok_or(why)?,
            };
            (c, rw.operand(t2, 0), p2, vec![t2])
        }
        (None, None) => return Err("no operand is a single-use Transpose"),
    };
    result_rank_is(rw, op, &p)?;
    rw.set_operands(op, &[new_a, new_b]);
    retype_and_transpose(rw, op, &p)?;
    for t in erase {
        rw.erase_op(t);
    }
    Ok(())
}

/// `b(Transpose(x, p), v) → Transpose(b(x, Transpose(v, p⁻¹)), p)` when `v` (of `p`'s rank)
/// already has a user `Transpose(v, p⁻¹)`: the new Transpose of `v` is a copy of that one,
/// which CSE merges, so nothing is added (a residual `Add` whose skip input already feeds a
/// converted op). Builds the copy before `op` and returns it.
fn transposed_like_a_sibling(
    rw: &mut PatternRewriter<'_>,
    v: Value,
    p: &[i64],
    op: Op,
) -> Option<Value> {
    let inv = inverse(p);
    let rank_of = |v: Value| rw.shape_of(rw.value_type(v)).map(<[i64]>::len);
    if rank_of(v) != Some(p.len()) || rank_of(rw.result(op, 0)) != Some(p.len()) {
        return None;
    }
    let sibling = rw.uses(v).iter().map(|u| u.op).find(|&u| {
        u != op
            && util::is_op(rw, u, "Transpose")
            && transpose_perm(rw, u).is_some_and(|q| q == inv)
    })?;
    let ty = rw.value_type(rw.result(sibling, 0));
    let loc = rw.op_loc(sibling);
    rw.set_insertion_point_before(op);
    let perm = util::i64_array(rw.uniq(), &inv);
    let t = util::build_op(rw, "Transpose", loc, &[v], &[ty], &[("perm", perm)]);
    Some(rw.result(t, 0))
}

/// A new constant `c'` with `Transpose(c', p)` equal to the constant `v` extended to `p`'s rank.
fn permuted_constant(
    rw: &mut PatternRewriter<'_>,
    v: Value,
    p: &[i64],
) -> Result<Value, &'static str> {
    let c = util::const_tensor(rw, v)
        .ok_or("the other operand is neither a Transpose nor a constant")?;
    if c.rank() > p.len() {
        return Err("the constant has a higher rank than the Transpose");
    }
    let mut full = vec![1usize; p.len() - c.rank()];
    full.extend_from_slice(c.shape());
    let extended = c.reshaped(full).map_err(|_| "cannot extend the constant")?;
    let inv = inverse(p);
    let moved = nart_tensor::shape_ops::transpose(&extended, Some(&inv))
        .map_err(|_| "cannot permute the constant")?;
    let shape: Vec<i64> = moved.shape().iter().map(|&d| d as i64).collect();
    let vty = rw.value_type(v);
    let ty = util::with_shape(rw.uniq(), vty, &shape);
    let op = rw.defining_op(v).ok_or("the constant has no op")?;
    rw.set_insertion_point_before(op);
    let loc = rw.op_loc(op);
    util::build_constant(rw, &moved, ty, loc).ok_or("cannot build the permuted constant")
}

// ----- Sinking through ops with an axis: Concat, reductions, Softmax, Squeeze, Unsqueeze -----
//
// Notation: `y = Transpose(x, p)` has `y.shape[i] = x.shape[p[i]]`, so an axis `a` of `y` is
// the axis `p[a]` of `x`.

/// A rule that moves a Transpose below an op that names axes of its input.
pub struct SinkAxis {
    name: &'static str,
    root: &'static str,
    kind: AxisKind,
}

/// How an op's axes move with the Transpose.
#[derive(Clone, Copy, Debug)]
pub enum AxisKind {
    /// `Concat(Transpose(x₁, p), …, Transpose(xₙ, p), axis=a) → Transpose(Concat(x₁, …, xₙ, axis=p[a]), p)`.
    Concat,
    /// `R(Transpose(x, p), axes=A, keepdims=1) → Transpose(R(x, axes=p[A]), p)`; with
    /// `keepdims=0`, `→ Transpose(R(x, axes=p[A], keepdims=0), q)`, `q` being `p` without the
    /// reduced axes, renumbered (no Transpose when `q` is the identity).
    Reduce,
    /// `S(Transpose(x, p), axis=a) → Transpose(S(x, axis=p[a]), p)` for Softmax, LogSoftmax and
    /// Hardmax (opset 13: one axis, every other dimension independent).
    Softmax,
    /// `Squeeze(Transpose(x, p), A) → Transpose(Squeeze(x, p[A]), q)`, `q` as for a reduction
    /// without `keepdims`.
    Squeeze,
    /// `Unsqueeze(Transpose(x, p), U) → Transpose(Unsqueeze(x, U), p')` with `p'[j] = j` on the
    /// new unit axes `U` and, on the others, `p` moved to the positions `Unsqueeze` gives `x`'s axes.
    Unsqueeze,
}

macro_rules! axis_sinks {
    ($kind:expr; $($onnx:literal),* $(,)?) => {
        &[$(SinkAxis {
            name: concat!("SinkTransposeThrough", $onnx),
            root: concat!("graph.", $onnx),
            kind: $kind,
        }),*]
    };
}

/// Concat, whose inputs must all be single-use Transposes with one permutation.
pub static SINK_CONCAT: &[SinkAxis] = axis_sinks!(AxisKind::Concat; "Concat");

/// The reductions (constant `axes` operand, `keepdims` either way).
pub static SINK_REDUCE: &[SinkAxis] = axis_sinks!(AxisKind::Reduce;
    "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
    "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare",
);

/// Softmax and its relatives, with one `axis` (opset 13 semantics).
pub static SINK_SOFTMAX: &[SinkAxis] =
    axis_sinks!(AxisKind::Softmax; "Softmax", "LogSoftmax", "Hardmax");

/// Squeeze and Unsqueeze with constant `axes`.
pub static SINK_SQUEEZE: &[SinkAxis] = &[
    SinkAxis {
        name: "SinkTransposeThroughSqueeze",
        root: "graph.Squeeze",
        kind: AxisKind::Squeeze,
    },
    SinkAxis {
        name: "SinkTransposeThroughUnsqueeze",
        root: "graph.Unsqueeze",
        kind: AxisKind::Unsqueeze,
    },
];

/// Every axis-remapping rule.
pub fn axis_sinks() -> impl Iterator<Item = &'static SinkAxis> {
    SINK_CONCAT
        .iter()
        .chain(SINK_REDUCE)
        .chain(SINK_SOFTMAX)
        .chain(SINK_SQUEEZE)
}

impl RewritePattern for SinkAxis {
    fn name(&self) -> &'static str {
        self.name
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        if rw.results(op).len() != 1 {
            return rw.match_failure("the op has several results");
        }
        let r = match self.kind {
            AxisKind::Concat => sink_concat(rw, op),
            AxisKind::Reduce => sink_reduce(rw, op),
            AxisKind::Softmax => sink_softmax(rw, op),
            AxisKind::Squeeze => sink_squeeze(rw, op),
            AxisKind::Unsqueeze => sink_unsqueeze(rw, op),
        };
        match r {
            Ok(()) => true,
            Err(why) => rw.match_failure(why),
        }
    }
}

/// `axis` normalized to `0..rank`.
fn norm_axis(axis: i64, rank: usize) -> Result<usize, &'static str> {
    let a = if axis < 0 { axis + rank as i64 } else { axis };
    usize::try_from(a)
        .ok()
        .filter(|&a| a < rank)
        .ok_or("the axis is out of range")
}

/// The constant axes of operand `i` of `op`, normalized to `0..rank`, sorted and deduplicated;
/// `None` when the operand is absent.
fn const_axes(
    ctx: &Context,
    op: Op,
    i: usize,
    rank: usize,
) -> Result<Option<Vec<usize>>, &'static str> {
    let Some(v) = util::opt_operand(ctx, op, i) else {
        return Ok(None);
    };
    let raw = util::const_ints(ctx, v).ok_or("the axes are not constant")?;
    let mut axes = raw
        .iter()
        .map(|&a| norm_axis(a, rank))
        .collect::<Result<Vec<_>, _>>()?;
    axes.sort_unstable();
    axes.dedup();
    Ok(Some(axes))
}

/// `p` without the output axes `removed`, renumbered over the input axes that remain: the
/// permutation between `x` and `y` once both lose those axes.
fn drop_axes(p: &[i64], removed: &[usize]) -> Vec<i64> {
    let gone: Vec<i64> = removed.iter().map(|&a| p[a]).collect();
    p.iter()
        .enumerate()
        .filter(|(i, _)| !removed.contains(i))
        .map(|(_, &d)| gone.iter().filter(|&&g| g < d).fold(d, |acc, _| acc - 1))
        .collect()
}

/// The rank of `op`'s first result, if ranked.
fn ranked_result(ctx: &Context, op: Op) -> Option<usize> {
    ctx.shape_of(ctx.value_type(ctx.result(op, 0)))
        .map(<[i64]>::len)
}

fn is_identity(p: &[i64]) -> bool {
    p.iter().enumerate().all(|(i, &d)| i as i64 == d)
}

/// Points operand 0 of `op` at `x` and keeps `op`'s result type when `q` is the identity, or
/// retypes it and puts `Transpose(·, q)` after it.
fn finish_dropping(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    x: Value,
    q: &[i64],
) -> Result<(), &'static str> {
    rw.set_operand(op, 0, x);
    if is_identity(q) {
        return Ok(());
    }
    retype_and_transpose(rw, op, q)
}

fn sink_concat(rw: &mut PatternRewriter<'_>, op: Op) -> Result<(), &'static str> {
    let operands = rw.operands(op).to_vec();
    let mut inner = Vec::with_capacity(operands.len());
    let mut erase = Vec::with_capacity(operands.len());
    let mut perm: Option<Vec<i64>> = None;
    for &v in &operands {
        let (t, p) = single_transpose(rw, v).ok_or("an input is not a single-use Transpose")?;
        if perm.as_ref().is_some_and(|q| *q != p) {
            return Err("the inputs are transposed differently");
        }
        perm = Some(p);
        inner.push(rw.operand(t, 0));
        erase.push(t);
    }
    let p = perm.ok_or("the Concat has no inputs")?;
    result_rank_is(rw, op, &p)?;
    let axis = norm_axis(util::attr_int(rw, op, "axis", 0), p.len())?;
    let new_axis = util::i64_attr(rw.uniq(), p[axis]);
    rw.set_operands(op, &inner);
    rw.set_prop(op, "axis", new_axis);
    retype_and_transpose(rw, op, &p)?;
    for t in erase {
        rw.erase_op(t);
    }
    Ok(())
}

fn sink_reduce(rw: &mut PatternRewriter<'_>, op: Op) -> Result<(), &'static str> {
    let (t, p) =
        single_transpose(rw, rw.operand(op, 0)).ok_or("the input is not a single-use Transpose")?;
    let rank = p.len();
    let keepdims = util::attr_int(rw, op, "keepdims", 1) != 0;
    let noop_when_empty = util::attr_int(rw, op, "noop_with_empty_axes", 0) != 0;
    let axes = match const_axes(rw, op, 1, rank)? {
        Some(a) if !a.is_empty() => Some(a),
        _ if noop_when_empty => return Err("the reduction is the identity"),
        _ => None,
    };
    let reduced: Vec<usize> = axes.clone().unwrap_or_else(|| (0..rank).collect());
    let want_rank = if keepdims { rank } else { rank - reduced.len() };
    if ranked_result(rw, op) != Some(want_rank) {
        return Err("the result's rank is not the expected one");
    }
    let x = rw.operand(t, 0);
    if let Some(a) = &axes {
        let mut moved: Vec<i64> = a.iter().map(|&i| p[i]).collect();
        moved.sort_unstable();
        rw.set_insertion_point_before(op);
        let loc = rw.op_loc(op);
        let c = util::i64_constant(rw, &moved, loc);
        rw.set_operand(op, 1, c);
    }
    if keepdims {
        rw.set_operand(op, 0, x);
        retype_and_transpose(rw, op, &p)?;
    } else {
        finish_dropping(rw, op, x, &drop_axes(&p, &reduced))?;
    }
    rw.erase_op(t);
    Ok(())
}

fn sink_softmax(rw: &mut PatternRewriter<'_>, op: Op) -> Result<(), &'static str> {
    let (t, p) =
        single_transpose(rw, rw.operand(op, 0)).ok_or("the input is not a single-use Transpose")?;
    result_rank_is(rw, op, &p)?;
    let axis = norm_axis(util::attr_int(rw, op, "axis", -1), p.len())?;
    let new_axis = util::i64_attr(rw.uniq(), p[axis]);
    let x = rw.operand(t, 0);
    rw.set_operand(op, 0, x);
    rw.set_prop(op, "axis", new_axis);
    retype_and_transpose(rw, op, &p)?;
    rw.erase_op(t);
    Ok(())
}

fn sink_squeeze(rw: &mut PatternRewriter<'_>, op: Op) -> Result<(), &'static str> {
    let (t, p) =
        single_transpose(rw, rw.operand(op, 0)).ok_or("the input is not a single-use Transpose")?;
    let y_shape = util::shape_of(rw, rw.operand(op, 0)).ok_or("the input is not static")?;
    let axes = match const_axes(rw, op, 1, p.len())? {
        Some(a) if !a.is_empty() => a,
        // No axes: every unit dimension goes.
        _ => (0..p.len()).filter(|&i| y_shape[i] == 1).collect(),
    };
    if axes.iter().any(|&a| y_shape[a] != 1) {
        return Err("a squeezed dimension is not 1");
    }
    if ranked_result(rw, op) != Some(p.len() - axes.len()) {
        return Err("the result's rank is not the expected one");
    }
    let mut moved: Vec<i64> = axes.iter().map(|&i| p[i]).collect();
    moved.sort_unstable();
    rw.set_insertion_point_before(op);
    let loc = rw.op_loc(op);
    let c = util::i64_constant(rw, &moved, loc);
    if rw.operands(op).len() > 1 {
        rw.set_operand(op, 1, c);
    } else {
        let x0 = rw.operand(op, 0);
        rw.set_operands(op, &[x0, c]);
    }
    let x = rw.operand(t, 0);
    finish_dropping(rw, op, x, &drop_axes(&p, &axes))?;
    rw.erase_op(t);
    Ok(())
}

fn sink_unsqueeze(rw: &mut PatternRewriter<'_>, op: Op) -> Result<(), &'static str> {
    let (t, p) =
        single_transpose(rw, rw.operand(op, 0)).ok_or("the input is not a single-use Transpose")?;
    let out_rank = p.len()
        + match util::opt_operand(rw, op, 1).and_then(|v| util::const_ints(rw, v)) {
            Some(a) => a.len(),
            None => return Err("the axes are not constant"),
        };
    let units = const_axes(rw, op, 1, out_rank)?.ok_or("the axes are not constant")?;
    if units.len() + p.len() != out_rank {
        return Err("the axes repeat");
    }
    // The positions of `x`'s axes in `Unsqueeze(x, U)`, in order.
    let kept: Vec<i64> = (0..out_rank)
        .filter(|j| !units.contains(j))
        .map(|j| j as i64)
        .collect();
    let mut q = vec![0i64; out_rank];
    let mut i = 0;
    for (j, slot) in q.iter_mut().enumerate() {
        if units.contains(&j) {
            *slot = j as i64;
        } else {
            *slot = kept[p[i] as usize];
            i += 1;
        }
    }
    result_rank_is(rw, op, &q)?;
    let x = rw.operand(t, 0);
    rw.set_operand(op, 0, x);
    retype_and_transpose(rw, op, &q)?;
    rw.erase_op(t);
    Ok(())
}

/// `Transpose(x, p) → Reshape(x, shape(y))` when `p` moves only dimensions of size 1 (the
/// other dimensions keep their order, so the elements keep theirs), and no user could take the
/// Transpose further down (nor compose it with its input): a Transpose left at a region's
/// border that is a mere Reshape.
pub static TRANSPOSE_UNIT_DIMS: TransposeUnitDims = TransposeUnitDims;

/// See [`TRANSPOSE_UNIT_DIMS`].
pub struct TransposeUnitDims;

impl RewritePattern for TransposeUnitDims {
    fn name(&self) -> &'static str {
        "TransposeUnitDimsToReshape"
    }
    fn root(&self) -> Option<&'static str> {
        Some("graph.Transpose")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let x = rw.operand(op, 0);
        let ranked = rw.shape_of(rw.value_type(x)).map(<[i64]>::to_vec);
        let (Some(p), Some(shape)) = (transpose_perm(rw, op), ranked) else {
            return rw.match_failure("the permutation or the rank is unknown");
        };
        // One dynamic dimension at most: the Reshape's target says `-1` for it. A dynamic
        // dimension counts as larger than 1 (if it is 1 at run time, the order of the others
        // is kept all the same).
        if shape.iter().filter(|&&d| d == nart_ir::DYNAMIC).count() > 1 {
            return rw.match_failure("more than one dynamic dimension");
        }
        if !is_permutation(&p) || p.len() != shape.len() || is_identity(&p) {
            return rw.match_failure("not a permutation, or the identity");
        }
        if shape.contains(&0) {
            return rw.match_failure("an empty dimension");
        }
        // A last resort: a Transpose that can still compose or sink stays one, so that it
        // can meet its inverse.
        if util::def_of(rw, x, "Transpose").is_some() {
            return rw.match_failure("the input is a Transpose");
        }
        let y = rw.result(op, 0);
        let sinkable = |name: &str| {
            name == "graph.Transpose"
                || SINK_UNARY.iter().any(|s| s.root == name)
                || SINK_BINARY.iter().any(|s| s.root == name)
                || axis_sinks().any(|s| s.root == name)
        };
        if rw.uses(y).iter().any(|u| sinkable(rw.op_name_str(u.op))) {
            return rw.match_failure("a user could take the Transpose");
        }
        let order: Vec<i64> = p
            .iter()
            .copied()
            .filter(|&d| shape[d as usize] != 1)
            .collect();
        if order.windows(2).any(|w| w[0] > w[1]) {
            return rw.match_failure("dimensions larger than 1 change their order");
        }
        let ty = rw.value_type(y);
        let out: Vec<i64> = p
            .iter()
            .map(|&d| match shape[d as usize] {
                nart_ir::DYNAMIC => -1,
                s => s,
            })
            .collect();
        rw.set_insertion_point_before(op);
        let loc = rw.op_loc(op);
        let target = util::i64_constant(rw, &out, loc);
        let r = util::build_op(rw, "Reshape", loc, &[x, target], &[ty], &[]);
        let v = rw.result(r, 0);
        rw.replace_op(op, &[v]);
        true
    }
}
