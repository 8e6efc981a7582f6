//! `graph-layout{layout=nhwc|nchw}`: moves convolutions to channels-last (or back) with
//! Transposes at their edges, and lets `graph-transpose-opt`'s rules cancel the inner pairs.
//!
//! ONNX ops are channels-first by definition, so a channels-last convolution is nart's own op:
//! `graph.fused_conv` with `layout = "nhwc"` (input `[N, spatial..., C]`, weight
//! `[M, k..., C/group]`, result `[N, spatial..., M]`; the interpreter runs it, the exporter
//! writes it as `Conv`/`FusedConv` between Transposes). The rewrites, with
//! `l = [0, 2, ..., r-1, 1]` (channels-first to channels-last) and `f = [0, r-1, 1, ..., r-2]`
//! its inverse:
//!
//! - `Conv(x, w, b) → Transpose(fused_conv_nhwc(Transpose(x, l), w', b), f)`, where
//!   `w' = Transpose(w, l)` is computed now when `w` is a constant (else left to
//!   `graph-fold-constants`); the same for a channels-first `fused_conv`, keeping its activation.
//! - `GlobalAveragePool(x) → ReduceMean(x, axes=[2..r], keepdims=1)` and `GlobalMaxPool(x) →
//!   ReduceMax(x, ...)`: the same values, in ops whose axes the Transposes sink through.
//! - with `layout=nchw`, `fused_conv_nhwc(x, w, b) → Transpose(fused_conv(Transpose(x, f),
//!   Transpose(w, f), b), l)`.
//!
//! Elementwise ops, `Add` of two converted branches, Concat, reductions and Softmax need no
//! variant: `graph-transpose-opt`'s rules (run here after the conversion) move the Transposes
//! through them, and pairs of inverse Transposes between two converted ops cancel, so only the
//! region's borders keep one. Pools other than the global ones (`MaxPool`, `AveragePool`),
//! `BatchNormalization` and `Resize` are not converted: a Transpose pair stays around them.

use nart_dialect_graph::fused::{activation, ConvLayout, ACTIVATION_ATTR};
use nart_ir::{Context, Op, PatternRewriter, RewritePattern, Value};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::{apply_patterns_greedily, FrozenPatternSet, GreedyConfig, RegionSimplification};

use crate::util;

nart_pass::option_enum! {
    /// The layout `graph-layout` converts to.
    pub enum Layout {
        /// Channels last: convolutions become `graph.fused_conv` with `layout = "nhwc"`.
        Nhwc = "nhwc",
        /// Channels first (ONNX's): channels-last convolutions go back.
        Nchw = "nchw",
    }
}

nart_pass::pass_options! {
    /// The options of `graph-layout`.
    pub struct LayoutOptions {
        /// The layout to convert convolutions to (nhwc or nchw)
        #[name = "layout"]
        pub layout: Layout = Layout::Nhwc,
    }
}

nart_pass::declare_pass! {
    /// The `graph-layout` pass.
    pub struct LayoutPass {
        argument: "graph-layout",
        name: "GraphLayout",
        summary: "Convert convolutions to channels-last (or back) with Transposes only at region borders",
        description: "With `layout=nhwc`, every `Conv` and channels-first `graph.fused_conv` \
            with ranked operands becomes a `graph.fused_conv` with `layout = \"nhwc\"` \
            between two Transposes (a constant weight is permuted at once), and \
            `GlobalAveragePool`/`GlobalMaxPool` become the equivalent `ReduceMean`/`ReduceMax` \
            over the spatial axes; with `layout=nchw`, channels-last convolutions go back.\n\
            Then `graph-transpose-opt`'s rules sink the Transposes and cancel inverse pairs, so \
            that only the borders of each converted region keep one.\n\
            No target states a preferred layout yet: the layout is this option.",
        options: LayoutOptions,
        statistics: [
            "num-converted" => "Number of convolutions converted",
            "num-global-pools" => "Number of global pools turned into reductions",
            "num-transposes" => "Number of Transposes left after the conversion and sinking",
        ],
    }
}

impl Pass for LayoutPass {
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
        let to = match self.opts.layout {
            Layout::Nhwc => ConvLayout::Nhwc,
            Layout::Nchw => ConvLayout::Nchw,
        };
        let all: Vec<&'static dyn RewritePattern> = match to {
            ConvLayout::Nhwc => vec![&TO_NHWC, &GLOBAL_POOL],
            ConvLayout::Nchw => vec![&TO_NCHW],
        };
        let set = FrozenPatternSet::new(all, Vec::new());
        let res = apply_patterns_greedily(ctx, op, &set, &config);
        let count = |n: &str| res.pattern_applications.get(n).copied().unwrap_or(0) as u64;
        state.add_stat("num-converted", count("ConvertConvLayout"));
        state.add_stat("num-global-pools", count("GlobalPoolToReduce"));
        crate::transpose::sink_and_cancel(ctx, op);
        let left = util::graph_ops(ctx, op)
            .into_iter()
            .filter(|&o| util::is_op(ctx, o, "Transpose"))
            .count();
        state.add_stat("num-transposes", left as u64);
        Ok(())
    }
}

/// `[0, 2, ..., r-1, 1]`: the permutation that takes channels-first to channels-last.
pub fn to_channels_last(rank: usize) -> Vec<i64> {
    let r = rank as i64;
    let mut p = vec![0];
    p.extend(2..r);
    p.push(1);
    p
}

/// `[0, r-1, 1, ..., r-2]`: channels-last to channels-first.
pub fn to_channels_first(rank: usize) -> Vec<i64> {
    let r = rank as i64;
    let mut p = vec![0, r - 1];
    p.extend(1..r - 1);
    p
}

/// `shape` permuted by `p` (the shape of `Transpose(x, p)`).
fn permuted(shape: &[i64], p: &[i64]) -> Vec<i64> {
    p.iter().map(|&d| shape[d as usize]).collect()
}

static TO_NHWC: ConvertConv = ConvertConv {
    to: ConvLayout::Nhwc,
};
static TO_NCHW: ConvertConv = ConvertConv {
    to: ConvLayout::Nchw,
};

/// `Conv`/`fused_conv` to the layout `to`.
struct ConvertConv {
    to: ConvLayout,
}

impl RewritePattern for ConvertConv {
    fn name(&self) -> &'static str {
        "ConvertConvLayout"
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        match convert_conv(rw, op, self.to) {
            Ok(()) => true,
            Err(why) => rw.match_failure(why),
        }
    }
}

fn convert_conv(rw: &mut PatternRewriter<'_>, op: Op, to: ConvLayout) -> Result<(), &'static str> {
    let from = if util::is_op(rw, op, "Conv") {
        ConvLayout::Nchw
    } else if util::is_op(rw, op, "fused_conv") {
        ConvLayout::of(rw, op).map_err(|_| "the layout attribute is invalid")?
    } else {
        return Err("not a convolution");
    };
    if from == to {
        return Err("already in that layout");
    }
    let operands = rw.operands(op).to_vec();
    let (x, w) = (operands[0], operands[1]);
    let y = rw.result(op, 0);
    // Ranked is enough (a dynamic batch is common): the Transposes permute `?` like any size.
    let ranked = |v: Value| rw.shape_of(rw.value_type(v)).map(<[i64]>::to_vec);
    let (Some(sx), Some(sw), Some(sy)) = (ranked(x), ranked(w), ranked(y)) else {
        return Err("an operand or the result is unranked");
    };
    let rank = sx.len();
    if rank < 3 || sw.len() != rank || sy.len() != rank {
        return Err("input, weight and result must have one rank, 3 or more");
    }
    // `inward` takes the operands to the new layout; `outward` takes the result back.
    let (inward, outward) = match to {
        ConvLayout::Nhwc => (to_channels_last(rank), to_channels_first(rank)),
        ConvLayout::Nchw => (to_channels_first(rank), to_channels_last(rank)),
    };
    let loc = rw.op_loc(op);
    rw.set_insertion_point_before(op);
    let x_ty = rw.value_type(x);
    let x_new_ty = util::with_shape(rw.uniq(), x_ty, &permuted(&sx, &inward));
    let perm = util::i64_array(rw.uniq(), &inward);
    let xt = util::build_op(rw, "Transpose", loc, &[x], &[x_new_ty], &[("perm", perm)]);
    let x_new = rw.result(xt, 0);
    let w_new = permute_weight(rw, w, &sw, &inward, loc);
    let b = match operands.get(2) {
        Some(&b) => b,
        None => {
            let ty = rw.uniq().none_type();
            let st = nart_ir::OperationState::new(rw.uniq(), "graph.none", loc).results(&[ty]);
            let n = rw.create(st);
            rw.result(n, 0)
        }
    };
    let y_ty = rw.value_type(y);
    let y_new_ty = util::with_shape(rw.uniq(), y_ty, &permuted(&sy, &inward));
    let mut props: Vec<(String, nart_ir::Attr)> = rw
        .props(op)
        .iter()
        .chain(rw.attrs(op))
        .map(|na| (rw.str(na.name).to_string(), na.value))
        .filter(|(n, _)| n != "layout")
        .collect();
    if !props.iter().any(|(n, _)| n == "activation") {
        let none = ACTIVATION_ATTR.enum_attr(rw.uniq(), activation::NONE);
        props.push(("activation".into(), none));
    }
    if to == ConvLayout::Nhwc {
        let l = rw.uniq().string_attr(to.keyword());
        props.push(("layout".into(), l));
    }
    let prop_refs: Vec<(&str, nart_ir::Attr)> =
        props.iter().map(|(n, a)| (n.as_str(), *a)).collect();
    let conv = util::build_op(
        rw,
        "fused_conv",
        loc,
        &[x_new, w_new, b],
        &[y_new_ty],
        &prop_refs,
    );
    let y_new = rw.result(conv, 0);
    let perm = util::i64_array(rw.uniq(), &outward);
    let back = util::build_op(rw, "Transpose", loc, &[y_new], &[y_ty], &[("perm", perm)]);
    let out = rw.result(back, 0);
    rw.replace_op(op, &[out]);
    Ok(())
}

/// The weight `w` (shape `sw`) permuted by `p`: a new constant when `w` is one (permuted at
/// compile time), else a Transpose.
fn permute_weight(
    rw: &mut PatternRewriter<'_>,
    w: Value,
    sw: &[i64],
    p: &[i64],
    loc: nart_ir::Location,
) -> Value {
    let ty = rw.value_type(w);
    let new_ty = util::with_shape(rw.uniq(), ty, &permuted(sw, p));
    if let Some(t) = util::const_tensor(rw, w) {
        if let Ok(moved) = nart_tensor::shape_ops::transpose(&t, Some(p)) {
            let wloc = util::derived_loc(rw.uniq(), loc, "weight_nhwc");
            if let Some(c) = util::build_constant(rw, &moved, new_ty, wloc) {
                return c;
            }
        }
    }
    let perm = util::i64_array(rw.uniq(), p);
    let t = util::build_op(rw, "Transpose", loc, &[w], &[new_ty], &[("perm", perm)]);
    rw.result(t, 0)
}

/// `GlobalAveragePool(x) → ReduceMean(x, axes=[2..r], keepdims=1)`, `GlobalMaxPool(x) →
/// ReduceMax(x, axes=[2..r], keepdims=1)`.
static GLOBAL_POOL: GlobalPoolToReduce = GlobalPoolToReduce;

struct GlobalPoolToReduce;

impl RewritePattern for GlobalPoolToReduce {
    fn name(&self) -> &'static str {
        "GlobalPoolToReduce"
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let reduce = if util::is_op(rw, op, "GlobalAveragePool") {
            "ReduceMean"
        } else if util::is_op(rw, op, "GlobalMaxPool") {
            "ReduceMax"
        } else {
            return false;
        };
        let x = rw.operand(op, 0);
        let Some(rank) = rw.shape_of(rw.value_type(x)).map(<[i64]>::len) else {
            return rw.match_failure("the input is unranked");
        };
        if rank < 3 {
            return rw.match_failure("the input has no spatial axes");
        }
        let ty = rw.value_type(rw.result(op, 0));
        let loc = rw.op_loc(op);
        rw.set_insertion_point_before(op);
        let axes: Vec<i64> = (2..rank as i64).collect();
        let axes = util::i64_constant(rw, &axes, loc);
        let keep = util::i64_attr(rw.uniq(), 1);
        let r = util::build_op(rw, reduce, loc, &[x, axes], &[ty], &[("keepdims", keep)]);
        let v = rw.result(r, 0);
        rw.replace_op(op, &[v]);
        true
    }
}
