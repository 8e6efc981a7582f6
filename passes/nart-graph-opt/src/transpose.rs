//! `graph-transpose-opt`: sinks `Transpose` through elementwise ops so that inverse pairs meet
//! and cancel.
//!
//! - `u(Transpose(x, p)) → Transpose(u(x), p)` for an elementwise unary `u`.
//! - `b(Transpose(x, p), Transpose(y, p)) → Transpose(b(x, y), p)` for an elementwise binary
//!   `b` (broadcasting commutes with a common permutation of equal-rank operands).
//! - `b(Transpose(x, p), c) → Transpose(b(x, c'), p)` with a constant `c`, where `c'` is `c`
//!   extended to the full rank and permuted by `p`'s inverse (and the mirror case).
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
        summary: "Sink Transpose through elementwise ops and cancel inverse pairs",
        description: "Moves a single-use Transpose below the elementwise unary op or binary op \
            (with a constant operand permuted, or the other operand transposed the same way) \
            that consumes it, then composes Transpose pairs and removes identity permutations.",
        options: nart_pass::NoOptions,
        statistics: [
            "num-sunk-unary" => "Number of Transposes moved below a unary op",
            "num-sunk-binary" => "Number of Transposes moved below a binary op",
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
        let config = GreedyConfig {
            region_simplification: RegionSimplification::Disabled,
            fold: false,
            ..GreedyConfig::default()
        };
        let res = apply_patterns_greedily(ctx, op, &patterns(), &config);
        let count = |names: &[&str]| -> u64 {
            names
                .iter()
                .map(|n| res.pattern_applications.get(n).copied().unwrap_or(0) as u64)
                .sum()
        };
        let unary: Vec<&str> = SINK_UNARY.iter().map(|p| p.name).collect();
        let binary: Vec<&str> = SINK_BINARY.iter().map(|p| p.name).collect();
        state.add_stat("num-sunk-unary", count(&unary));
        state.add_stat("num-sunk-binary", count(&binary));
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
    FrozenPatternSet::new(all, Vec::new())
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
            let c = permuted_constant(rw, b, &p1)?;
            (rw.operand(t1, 0), c, p1, vec![t1])
        }
        (None, Some((t2, p2))) => {
            let c = permuted_constant(rw, a, &p2)?;
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
