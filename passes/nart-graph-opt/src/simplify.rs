//! `graph-simplify`: algebraic simplification of graph ops, as rewrite patterns run by the
//! greedy driver.
//!
//! Each pattern sits under a one-line statement of its algebra. Neutral elements go only where
//! broadcasting leaves the result's shape alone (the constant broadcasts into the other
//! operand, and the result has that operand's type); shape-only ops (`Reshape`, `Flatten`,
//! `Squeeze`, `Unsqueeze`, `Expand`) disappear only where the types are fully static and equal,
//! since equal dynamic types say nothing about equal run-time shapes.

use nart_ir::rule::{Arg, Native, Rule};
use nart_ir::{Attr, Context, Op, PatternRewriter, RewritePattern};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::{apply_patterns_greedily, FrozenPatternSet, GreedyConfig, RegionSimplification};
use nart_tensor::DType;

use crate::util;

nart_pass::pass_options! {
    /// The options of `graph-simplify`.
    pub struct SimplifyOptions {
        /// Max. iterations of the greedy driver
        #[name = "max-iterations"]
        pub max_iterations: i64 = 10,
    }
}

nart_pass::declare_pass! {
    /// The `graph-simplify` pass.
    pub struct SimplifyPass {
        argument: "graph-simplify",
        name: "GraphSimplify",
        summary: "Simplify graph ops algebraically (neutral elements, identities, shape-op chains, cast chains)",
        description: "Removes Add/Sub of zero, Mul/Div/Pow by one (only where the constant \
            broadcasts into the other operand without changing the result's shape), Identity, \
            inference Dropout whose mask is unused, Reshape/Flatten/Squeeze/Unsqueeze/Expand to \
            the same static type, chains of them that cancel, Reshape of Reshape, single-input \
            Concat, Slice of the whole range and Pad with all-zero pads; composes \
            Transpose of Transpose (removing identity permutations) and shortens Cast chains \
            whose middle type holds every value of the source type exactly.\n\
            Besides the totals, the statistics name each pattern that fired, with its count.",
        options: SimplifyOptions,
        statistics: [
            "num-rewrites" => "Number of pattern applications",
            "num-iterations" => "Number of sweeps of the greedy driver",
        ],
    }
}

impl Pass for SimplifyPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let config = GreedyConfig {
            max_iterations: usize::try_from(self.opts.max_iterations).unwrap_or(usize::MAX),
            region_simplification: RegionSimplification::Disabled,
            fold: false,
            ..GreedyConfig::default()
        };
        let res = apply_patterns_greedily(ctx, op, &patterns(), &config);
        state.add_stat("num-rewrites", res.num_pattern_applications() as u64);
        state.add_stat("num-iterations", res.iterations as u64);
        // One statistic per pattern that fired, named after it.
        for (name, n) in &res.pattern_applications {
            state.add_stat(name, *n as u64);
        }
        Ok(())
    }
}

/// The patterns of `graph-simplify`.
pub fn patterns() -> FrozenPatternSet {
    FrozenPatternSet::new(PATTERNS.iter().copied(), Vec::new())
}

/// Every pattern of `graph-simplify`, for the pass and for tests.
pub static PATTERNS: &[&(dyn RewritePattern + 'static)] = &[
    &IDENTITY,
    &ADD_ZERO_RHS,
    &ADD_ZERO_LHS,
    &SUB_ZERO,
    &MUL_ONE_RHS,
    &MUL_ONE_LHS,
    &DIV_ONE,
    &POW_ONE,
    &RESHAPE_RESHAPE,
    &CONCAT_SINGLE,
    &DROPOUT,
    &RESHAPE_SAME,
    &FLATTEN_SAME,
    &SQUEEZE_SAME,
    &UNSQUEEZE_SAME,
    &EXPAND_SAME,
    &RESHAPE_CHAIN,
    &FLATTEN_CHAIN,
    &SQUEEZE_CHAIN,
    &UNSQUEEZE_CHAIN,
    &TRANSPOSE_TRANSPOSE,
    &TRANSPOSE_IDENTITY,
    &CAST_CHAIN,
    &SLICE_WHOLE,
    &PAD_ZERO,
];

// ----- natives of the rules -----

static NATIVES: &[Native] = &[
    Native::constraint("all_zero", 1, all_zero),
    Native::constraint("all_one", 1, all_one),
    Native::constraint("fits", 2, fits),
    Native::constraint("no_zero_dims", 1, no_zero_dims),
];

fn const_values(ctx: &Context, a: Attr) -> Option<Vec<f64>> {
    nart_interp::convert::tensor_from_attr(ctx, a)
        .ok()?
        .to_f64_vec()
        .ok()
}

/// `all_zero(c)`: every element of `c` is zero.
fn all_zero(ctx: &Context, args: &[Arg]) -> bool {
    args[0]
        .attr()
        .and_then(|a| const_values(ctx, a))
        .is_some_and(|v| v.iter().all(|&x| x == 0.0))
}

/// `all_one(c)`: every element of `c` is one.
fn all_one(ctx: &Context, args: &[Arg]) -> bool {
    args[0]
        .attr()
        .and_then(|a| const_values(ctx, a))
        .is_some_and(|v| v.iter().all(|&x| x == 1.0))
}

/// `fits(c, x)`: the constant `c` broadcasts into `x`'s shape without changing it (no more
/// dimensions than `x`, each trailing dimension 1 or equal to `x`'s static one).
fn fits(ctx: &Context, args: &[Arg]) -> bool {
    let (Some(c), Some(x)) = (args[0].attr(), args[1].value()) else {
        return false;
    };
    let Some(cty) = ctx.typed_attr_type(c) else {
        return false;
    };
    let (Some(cs), Some(xs)) = (ctx.shape_of(cty), ctx.shape_of(ctx.value_type(x))) else {
        return false;
    };
    cs.len() <= xs.len()
        && cs
            .iter()
            .rev()
            .zip(xs.iter().rev())
            .all(|(&c, &x)| c == 1 || (c == x && x != nart_ir::DYNAMIC))
}

/// `no_zero_dims(s)`: the shape `s` has no 0 (which would copy a dimension of the input).
fn no_zero_dims(ctx: &Context, args: &[Arg]) -> bool {
    args[0]
        .attr()
        .and_then(|a| const_values(ctx, a))
        .is_some_and(|v| v.iter().all(|&x| x != 0.0))
}

macro_rules! graph_rule {
    ($name:literal, $text:literal) => {
        nart_ir::rule!($name, $text, natives = NATIVES)
    };
}

// ----- rules -----

/// `Identity(x) → x`.
pub static IDENTITY: Rule = graph_rule!(
    "GraphIdentity",
    "(graph.Identity:$r $x) => $x if same_type($r, $x)"
);

/// `x + 0 → x`.
pub static ADD_ZERO_RHS: Rule = graph_rule!(
    "AddZeroRhs",
    "(graph.Add:$r $x (constant $c)) => $x if same_type($r, $x), all_zero($c), fits($c, $x)"
);
/// `0 + x → x`.
pub static ADD_ZERO_LHS: Rule = graph_rule!(
    "AddZeroLhs",
    "(graph.Add:$r (constant $c) $x) => $x if same_type($r, $x), all_zero($c), fits($c, $x)"
);
/// `x - 0 → x`.
pub static SUB_ZERO: Rule = graph_rule!(
    "SubZero",
    "(graph.Sub:$r $x (constant $c)) => $x if same_type($r, $x), all_zero($c), fits($c, $x)"
);
/// `x * 1 → x`.
pub static MUL_ONE_RHS: Rule = graph_rule!(
    "MulOneRhs",
    "(graph.Mul:$r $x (constant $c)) => $x if same_type($r, $x), all_one($c), fits($c, $x)"
);
/// `1 * x → x`.
pub static MUL_ONE_LHS: Rule = graph_rule!(
    "MulOneLhs",
    "(graph.Mul:$r (constant $c) $x) => $x if same_type($r, $x), all_one($c), fits($c, $x)"
);
/// `x / 1 → x`.
pub static DIV_ONE: Rule = graph_rule!(
    "DivOne",
    "(graph.Div:$r $x (constant $c)) => $x if same_type($r, $x), all_one($c), fits($c, $x)"
);
/// `x ^ 1 → x`.
pub static POW_ONE: Rule = graph_rule!(
    "PowOne",
    "(graph.Pow:$r $x (constant $c)) => $x if same_type($r, $x), all_one($c), fits($c, $x)"
);
/// `Reshape(Reshape(x, _), s) → Reshape(x, s)` when `s` copies no input dimension.
pub static RESHAPE_RESHAPE: Rule = graph_rule!(
    "ReshapeReshape",
    "(graph.Reshape (graph.Reshape $x _) (constant:$s $c)) => (graph.Reshape $x $s) if no_zero_dims($c)"
);
/// `Concat(x) → x`.
pub static CONCAT_SINGLE: Rule = graph_rule!(
    "ConcatSingle",
    "(graph.Concat:$r $x) => $x if same_type($r, $x)"
);

// ----- hand-written patterns -----

/// A pattern written as a function, rooted on one op name.
pub struct Hand {
    name: &'static str,
    root: &'static str,
    apply: fn(&mut PatternRewriter<'_>, Op) -> bool,
}

impl RewritePattern for Hand {
    fn name(&self) -> &'static str {
        self.name
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        (self.apply)(rw, op)
    }
}

/// `Dropout(x) → x` in inference (no `training_mode`, or a constant false one) when the mask
/// is unused.
pub static DROPOUT: Hand = Hand {
    name: "DropoutInference",
    root: "graph.Dropout",
    apply: dropout,
};

fn dropout(rw: &mut PatternRewriter<'_>, op: Op) -> bool {
    let x = rw.operand(op, 0);
    let y = rw.result(op, 0);
    if rw.results(op)[1..].iter().any(|&m| rw.has_uses(m)) {
        return rw.match_failure("the mask is used");
    }
    if let Some(t) = util::opt_operand(rw, op, 2) {
        match util::const_tensor(rw, t).and_then(|t| t.to_f64_vec().ok()) {
            Some(v) if v.iter().all(|&b| b == 0.0) => {}
            _ => return rw.match_failure("training_mode may be true"),
        }
    }
    if rw.value_type(x) != rw.value_type(y) {
        return rw.match_failure("the output type differs from the input type");
    }
    rw.replace_all_uses_with(y, x);
    rw.erase_op(op);
    true
}

/// Ops that only re-shape their first operand.
const RESHAPE_LIKE: &[&str] = &["Reshape", "Flatten", "Squeeze", "Unsqueeze"];

fn to_same(rw: &mut PatternRewriter<'_>, op: Op) -> bool {
    let x = rw.operand(op, 0);
    let y = rw.result(op, 0);
    if !util::same_static_type(rw, x, y) {
        return rw.match_failure("the result's static type differs from the input's");
    }
    rw.replace_op(op, &[x]);
    true
}

/// `Reshape(x) → x` when the result has `x`'s static type.
pub static RESHAPE_SAME: Hand = Hand {
    name: "ReshapeToSame",
    root: "graph.Reshape",
    apply: to_same,
};
/// `Flatten(x) → x` when the result has `x`'s static type.
pub static FLATTEN_SAME: Hand = Hand {
    name: "FlattenToSame",
    root: "graph.Flatten",
    apply: to_same,
};
/// `Squeeze(x) → x` when the result has `x`'s static type.
pub static SQUEEZE_SAME: Hand = Hand {
    name: "SqueezeToSame",
    root: "graph.Squeeze",
    apply: to_same,
};
/// `Unsqueeze(x) → x` when the result has `x`'s static type.
pub static UNSQUEEZE_SAME: Hand = Hand {
    name: "UnsqueezeToSame",
    root: "graph.Unsqueeze",
    apply: to_same,
};
/// `Expand(x, s) → x` when the result has `x`'s static type.
pub static EXPAND_SAME: Hand = Hand {
    name: "ExpandToSame",
    root: "graph.Expand",
    apply: to_same,
};

/// `f(g(x)) → x` for shape-only `f` and `g` when the result has `x`'s static type (the chain
/// cancels: `Unsqueeze(Squeeze(x))`, `Reshape(Flatten(x))`, ...).
fn chain_cancels(rw: &mut PatternRewriter<'_>, op: Op) -> bool {
    let mid = rw.operand(op, 0);
    let Some(inner) = rw.defining_op(mid) else {
        return rw.match_failure("the input is not an op's result");
    };
    if !RESHAPE_LIKE.iter().any(|n| util::is_op(rw, inner, n)) {
        return rw.match_failure("the input is not made by a shape-only op");
    }
    let x = rw.operand(inner, 0);
    let y = rw.result(op, 0);
    if !util::same_static_type(rw, x, y) {
        return rw.match_failure("the chain does not give back the input's static type");
    }
    rw.replace_op(op, &[x]);
    true
}

/// `Reshape(shape-op(x)) → x` when the chain cancels.
pub static RESHAPE_CHAIN: Hand = Hand {
    name: "ReshapeChainCancels",
    root: "graph.Reshape",
    apply: chain_cancels,
};
/// `Flatten(shape-op(x)) → x` when the chain cancels.
pub static FLATTEN_CHAIN: Hand = Hand {
    name: "FlattenChainCancels",
    root: "graph.Flatten",
    apply: chain_cancels,
};
/// `Squeeze(shape-op(x)) → x` when the chain cancels.
pub static SQUEEZE_CHAIN: Hand = Hand {
    name: "SqueezeChainCancels",
    root: "graph.Squeeze",
    apply: chain_cancels,
};
/// `Unsqueeze(shape-op(x)) → x` when the chain cancels.
pub static UNSQUEEZE_CHAIN: Hand = Hand {
    name: "UnsqueezeChainCancels",
    root: "graph.Unsqueeze",
    apply: chain_cancels,
};

/// The permutation of a Transpose (reversed dimensions when absent), if its input's rank is
/// known.
pub fn transpose_perm(ctx: &Context, op: Op) -> Option<Vec<i64>> {
    if let Some(p) = util::attr_ints(ctx, op, "perm") {
        return Some(p);
    }
    let rank = ctx.shape_of(ctx.value_type(ctx.operand(op, 0)))?.len() as i64;
    Some((0..rank).rev().collect())
}

/// Whether `p` is a permutation of `0..p.len()`.
pub fn is_permutation(p: &[i64]) -> bool {
    let mut seen = vec![false; p.len()];
    p.iter().all(|&i| {
        usize::try_from(i)
            .ok()
            .filter(|&i| i < seen.len() && !seen[i])
            .map(|i| seen[i] = true)
            .is_some()
    })
}

/// `Transpose(Transpose(x, p), q) → Transpose(x, p∘q)`, and `→ x` when `p∘q` is the identity.
pub static TRANSPOSE_TRANSPOSE: Hand = Hand {
    name: "TransposeTranspose",
    root: "graph.Transpose",
    apply: transpose_transpose,
};

fn transpose_transpose(rw: &mut PatternRewriter<'_>, op: Op) -> bool {
    let Some(inner) = util::def_of(rw, rw.operand(op, 0), "Transpose") else {
        return rw.match_failure("the input is not a Transpose");
    };
    let (Some(p), Some(q)) = (transpose_perm(rw, inner), transpose_perm(rw, op)) else {
        return rw.match_failure("a permutation is unknown");
    };
    if p.len() != q.len() || !is_permutation(&p) || !is_permutation(&q) {
        return rw.match_failure("the permutations do not compose");
    }
    // out[i] = mid[q[i]] = x[p[q[i]]].
    let composed: Vec<i64> = q.iter().map(|&i| p[i as usize]).collect();
    let x = rw.operand(inner, 0);
    let y = rw.result(op, 0);
    if composed.iter().enumerate().all(|(i, &d)| i as i64 == d) {
        if rw.value_type(x) != rw.value_type(y) {
            return rw.match_failure("the result's type differs from the input's");
        }
        rw.replace_op(op, &[x]);
        return true;
    }
    let loc = rw.op_loc(op);
    let ty = rw.value_type(y);
    rw.set_insertion_point_before(op);
    let perm = util::i64_array(rw.uniq(), &composed);
    let t = util::build_op(rw, "Transpose", loc, &[x], &[ty], &[("perm", perm)]);
    let v = rw.result(t, 0);
    rw.replace_op(op, &[v]);
    true
}

/// `Transpose(x, identity) → x`.
pub static TRANSPOSE_IDENTITY: Hand = Hand {
    name: "TransposeIdentity",
    root: "graph.Transpose",
    apply: transpose_identity,
};

fn transpose_identity(rw: &mut PatternRewriter<'_>, op: Op) -> bool {
    let Some(p) = transpose_perm(rw, op) else {
        return rw.match_failure("the permutation is unknown");
    };
    let x = rw.operand(op, 0);
    let y = rw.result(op, 0);
    if !p.iter().enumerate().all(|(i, &d)| i as i64 == d) || rw.value_type(x) != rw.value_type(y) {
        return rw.match_failure("the permutation is not the identity");
    }
    rw.replace_op(op, &[x]);
    true
}

/// Whether every value of `from` converts to `mid` and back exactly (so `Cast` to `mid` loses
/// nothing): wider floats hold narrower floats and every integer with fewer significant bits
/// than their mantissa; wider integers of the same or a signed kind hold narrower ones.
pub fn lossless(from: DType, mid: DType) -> bool {
    use DType::*;
    if from == mid {
        return true;
    }
    let float_mantissa = |d: DType| match d {
        F16 => Some(11),
        BF16 => Some(8),
        F32 => Some(24),
        F64 => Some(53),
        _ => None,
    };
    let int_bits = |d: DType| -> Option<(u32, bool)> {
        match d {
            I8 => Some((8, true)),
            I16 => Some((16, true)),
            I32 => Some((32, true)),
            I64 => Some((64, true)),
            U8 => Some((8, false)),
            U16 => Some((16, false)),
            U32 => Some((32, false)),
            U64 => Some((64, false)),
            Bool => Some((1, false)),
            _ => None,
        }
    };
    if matches!(
        (from, mid),
        (F16, F32 | F64) | (BF16, F32 | F64) | (F32, F64)
    ) {
        return true;
    }
    match (int_bits(from), int_bits(mid), float_mantissa(mid)) {
        // bool is 0 or 1, which every integer and float holds.
        (Some(_), _, _) if from == Bool => int_bits(mid).is_some() || float_mantissa(mid).is_some(),
        (Some((fb, fs)), Some((mb, ms)), _) => match (fs, ms) {
            (true, true) | (false, false) => mb >= fb,
            (false, true) => mb > fb,
            (true, false) => false,
        },
        // A float holds every integer whose magnitude fits its mantissa (the sign is apart).
        (Some((fb, fs)), None, Some(mantissa)) => (if fs { fb - 1 } else { fb }) <= mantissa,
        _ => false,
    }
}

/// `Cast(Cast(x, M), T) → Cast(x, T)` (or `x` when `T` is `x`'s type) when `M` holds every value
/// of `x`'s type exactly (f32→f64→f32, i8→i32→i8; never f32→f16→f32).
pub static CAST_CHAIN: Hand = Hand {
    name: "CastChain",
    root: "graph.Cast",
    apply: cast_chain,
};

fn cast_chain(rw: &mut PatternRewriter<'_>, op: Op) -> bool {
    let mid = rw.operand(op, 0);
    let Some(inner) = util::def_of(rw, mid, "Cast") else {
        return rw.match_failure("the input is not a Cast");
    };
    let x = rw.operand(inner, 0);
    let y = rw.result(op, 0);
    let (Some(fd), Some(md)) = (util::dtype_of(rw, x), util::dtype_of(rw, mid)) else {
        return rw.match_failure("an element type is unknown");
    };
    if !lossless(fd, md) {
        return rw.match_failure("the middle type does not hold every value of the input type");
    }
    if rw.value_type(x) == rw.value_type(y) {
        rw.replace_op(op, &[x]);
        return true;
    }
    let Some(to) = rw.attr(op, "to") else {
        return rw.match_failure("the Cast has no 'to'");
    };
    let saturate = rw.attr(op, "saturate");
    let loc = rw.op_loc(op);
    let ty = rw.value_type(y);
    rw.set_insertion_point_before(op);
    let mut props = vec![("to", to)];
    if let Some(s) = saturate {
        props.push(("saturate", s));
    }
    let c = util::build_op(rw, "Cast", loc, &[x], &[ty], &props);
    let v = rw.result(c, 0);
    rw.replace_op(op, &[v]);
    true
}

/// `Slice(x, ...) → x` when the result has `x`'s static type and every step is positive (a
/// positive-step slice of the same size takes every element in order).
pub static SLICE_WHOLE: Hand = Hand {
    name: "SliceWhole",
    root: "graph.Slice",
    apply: slice_whole,
};

fn slice_whole(rw: &mut PatternRewriter<'_>, op: Op) -> bool {
    let x = rw.operand(op, 0);
    let y = rw.result(op, 0);
    if !util::same_static_type(rw, x, y) {
        return rw.match_failure("the result's static type differs from the input's");
    }
    if let Some(steps) = util::opt_operand(rw, op, 4) {
        match util::const_ints(rw, steps) {
            Some(s) if s.iter().all(|&d| d > 0) => {}
            _ => return rw.match_failure("a step may be negative"),
        }
    }
    rw.replace_op(op, &[x]);
    true
}

/// `Pad(x, 0) → x` when every pad is zero.
pub static PAD_ZERO: Hand = Hand {
    name: "PadZero",
    root: "graph.Pad",
    apply: pad_zero,
};

fn pad_zero(rw: &mut PatternRewriter<'_>, op: Op) -> bool {
    let x = rw.operand(op, 0);
    let y = rw.result(op, 0);
    let Some(pads) = util::opt_operand(rw, op, 1).and_then(|p| util::const_ints(rw, p)) else {
        return rw.match_failure("the pads are not constant");
    };
    if pads.iter().any(|&p| p != 0) || rw.value_type(x) != rw.value_type(y) {
        return rw.match_failure("a pad is not zero");
    }
    rw.replace_op(op, &[x]);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which middle types keep every value of the source type: a table, one row per case.
    #[test]
    fn lossless_table() {
        use DType::*;
        for (from, mid, expect) in [
            (F32, F64, true),
            (F16, F32, true),
            (BF16, F32, true),
            (F32, F16, false),
            (F64, F32, false),
            (F32, BF16, false),
            (I8, I32, true),
            (I8, I16, true),
            (U8, I16, true),
            (U8, U16, true),
            (U8, I8, false),
            (I8, U8, false),
            (I32, I8, false),
            (I64, I32, false),
            (U32, I32, false),
            (I16, F32, true),
            (I32, F32, false),
            (I32, F64, true),
            (I64, F64, false),
            (U8, F16, true),
            (I16, F16, false),
            (Bool, I8, true),
            (Bool, F32, true),
            (F32, I64, false),
            (I32, I32, true),
        ] {
            assert_eq!(lossless(from, mid), expect, "{from:?} -> {mid:?}");
        }
    }

    #[test]
    fn permutations() {
        assert!(is_permutation(&[2, 0, 1]));
        assert!(is_permutation(&[]));
        assert!(!is_permutation(&[0, 0, 1]));
        assert!(!is_permutation(&[0, 3, 1]));
        assert!(!is_permutation(&[-1, 0]));
    }

    /// Every pattern's declaration checks against the registered graph ops (rules compile,
    /// name existing ops and operand counts).
    #[test]
    fn patterns_check_against_the_registry() {
        let mut ctx = Context::new();
        nart_dialect_graph::register(&mut ctx);
        for p in PATTERNS {
            p.check(&ctx)
                .unwrap_or_else(|e| panic!("{}: {e}", p.name()));
        }
    }
}
