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
//! - `MaxPool(x)` (indices unused) and `AveragePool(x)` `→ Transpose(pool_nhwc(Transpose(x, l)),
//!   f)`, where `pool_nhwc` is `graph.pool` with `kind = "max"|"average"` and
//!   `layout = "nhwc"` (the base op's attributes kept).
//! - `BatchNormalization(x, scale, B, mean, var)` in inference mode with constant parameters
//!   `→ Add(Mul(x, s), t)` with `s = scale / sqrt(var + epsilon)` and `t = B - mean * s` as
//!   `[C, 1, ...]` constants: elementwise ops with constant operands, which the Transposes
//!   sink through (the constants permuted), so the BatchNorm is channels-last too.
//! - with `layout=nchw`, `fused_conv_nhwc(x, w, b) → Transpose(fused_conv(Transpose(x, f),
//!   Transpose(w, f), b), l)` and `pool_nhwc(x) → Transpose(MaxPool|AveragePool(Transpose(x,
//!   f)), l)`.
//!
//! Elementwise ops, `Add` of two converted branches, Concat, reductions and Softmax need no
//! variant: `graph-transpose-opt`'s rules (run here after the conversion) move the Transposes
//! through them, and pairs of inverse Transposes between two converted ops cancel, so only the
//! region's borders keep one. Like convolutions, pools and BatchNorms are converted wherever
//! they are, so a pool outside any convolution region gets its own Transpose pair (the same
//! values; a region of its own). With `pools=false` the pools and BatchNorms are left as they are
//! (a Transpose pair stays around each, as before they had a channels-last form). `Resize`,
//! `LRN` and `InstanceNormalization` are not converted: a Transpose pair stays around them.
//!
//! The blocked layouts (`layout=nchw8c`, `nchw16c`) are [`crate::blocked`]'s.

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
        /// Channels in blocks of 8, `[N, C/8, H, W, 8]`, with `graph.reorder` at the borders
        /// (see [`crate::blocked`]).
        Nchw8c = "nchw8c",
        /// Channels in blocks of 16, `[N, C/16, H, W, 16]`.
        Nchw16c = "nchw16c",
    }
}

impl Layout {
    /// The block size of a blocked layout (`nchw8c` → 8).
    pub fn block(self) -> Option<i64> {
        match self {
            Layout::Nchw8c => Some(8),
            Layout::Nchw16c => Some(16),
            Layout::Nhwc | Layout::Nchw => None,
        }
    }
}

nart_pass::pass_options! {
    /// The options of `graph-layout`.
    pub struct LayoutOptions {
        /// The layout to convert convolutions to (nhwc, nchw, nchw8c or nchw16c)
        #[name = "layout"]
        pub layout: Layout = Layout::Nhwc,
        /// With layout=nhwc, also make MaxPool/AveragePool and BatchNormalization channels-last
        #[name = "pools"]
        pub pools: bool = true,
    }
}

nart_pass::declare_pass! {
    /// The `graph-layout` pass.
    pub struct LayoutPass {
        argument: "graph-layout",
        name: "GraphLayout",
        summary: "Convert convolutions, pools and BatchNorms to channels-last (or back) with Transposes only at region borders",
        description: "With `layout=nhwc`, every `Conv` and channels-first `graph.fused_conv` \
            with ranked operands becomes a `graph.fused_conv` with `layout = \"nhwc\"` \
            between two Transposes (a constant weight is permuted at once), and \
            `GlobalAveragePool`/`GlobalMaxPool` become the equivalent `ReduceMean`/`ReduceMax` \
            over the spatial axes; unless `pools=false`, `MaxPool`/`AveragePool` become \
            `graph.pool` with `layout = \"nhwc\"` between two Transposes and an inference \
            `BatchNormalization` with constant parameters becomes a `Mul` and an `Add` of \
            per-channel constants; with `layout=nchw`, channels-last convolutions and pools \
            go back.\n\
            Then `graph-transpose-opt`'s rules sink the Transposes and cancel inverse pairs, so \
            that only the borders of each converted region keep one.\n\
            With `layout=nchw8c` or `nchw16c`, convolutions with constant weights become \
            blocked `graph.fused_conv`s (`[N, C/b, H, W, b]`, weights blocked at compile \
            time) between `graph.reorder`s, and the pools, global pools, zero-preserving \
            elementwise ops, BatchNorms and channel Concats next to them join the blocked \
            region; inverse reorder pairs cancel, so that only the region's borders keep one.\n\
            A target that wants a layout says so (`Target::preferred_layout`); `nart compile` \
            then runs this conversion on each of its segments.",
        options: LayoutOptions,
        statistics: [
            "num-converted" => "Number of convolutions converted",
            "num-global-pools" => "Number of global pools turned into reductions",
            "num-pools" => "Number of MaxPool/AveragePool ops converted",
            "num-batchnorms" => "Number of BatchNormalization ops turned into a Mul and an Add",
            "num-transposes" => "Number of Transposes left after the conversion and sinking",
            "num-sunk" => "Number of ops moved into a blocked region (blocked layouts)",
            "num-reorders" => "Number of graph.reorder ops left (blocked layouts)",
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
        let n = convert(ctx, op, self.opts.layout, self.opts.pools);
        state.add_stat("num-converted", n.convs);
        state.add_stat("num-global-pools", n.global_pools);
        state.add_stat("num-pools", n.pools);
        state.add_stat("num-batchnorms", n.batchnorms);
        state.add_stat("num-transposes", n.transposes);
        state.add_stat("num-sunk", n.sunk);
        state.add_stat("num-reorders", n.reorders);
        Ok(())
    }
}

/// What [`convert`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Converted {
    /// Convolutions converted.
    pub convs: u64,
    /// Global pools turned into reductions.
    pub global_pools: u64,
    /// `MaxPool`/`AveragePool` ops converted.
    pub pools: u64,
    /// BatchNorms turned into a `Mul` and an `Add`.
    pub batchnorms: u64,
    /// Transposes left under `root` afterwards.
    pub transposes: u64,
    /// Ops moved into a blocked region (blocked layouts only).
    pub sunk: u64,
    /// `graph.reorder` ops left under `root` afterwards (blocked layouts only).
    pub reorders: u64,
}

/// What `graph-layout{layout=... pools=...}` does, on the ops nested in `root` (a module, a
/// function, or a `target.segment`, whose operands and results keep their types).
pub fn convert(ctx: &mut Context, root: Op, layout: Layout, pools: bool) -> Converted {
    if let Some(b) = layout.block() {
        let n = crate::blocked::convert(ctx, root, b);
        return Converted {
            convs: n.convs,
            batchnorms: n.batchnorms,
            sunk: n.sunk,
            reorders: n.reorders,
            ..Converted::default()
        };
    }
    let config = GreedyConfig {
        region_simplification: RegionSimplification::Disabled,
        fold: false,
        ..GreedyConfig::default()
    };
    let all: Vec<&'static dyn RewritePattern> = match layout {
        Layout::Nhwc if pools => vec![&TO_NHWC, &GLOBAL_POOL, &POOL_TO_NHWC, &BATCHNORM],
        Layout::Nhwc => vec![&TO_NHWC, &GLOBAL_POOL],
        Layout::Nchw | Layout::Nchw8c | Layout::Nchw16c => vec![&TO_NCHW, &POOL_TO_NCHW],
    };
    let set = FrozenPatternSet::new(all, Vec::new());
    let res = apply_patterns_greedily(ctx, root, &set, &config);
    let count = |n: &str| res.pattern_applications.get(n).copied().unwrap_or(0) as u64;
    let mut n = Converted {
        convs: count("ConvertConvLayout"),
        global_pools: count("GlobalPoolToReduce"),
        pools: count("ConvertPoolLayout"),
        batchnorms: count("BatchNormToScaleShift"),
        ..Converted::default()
    };
    crate::transpose::sink_and_cancel(ctx, root);
    n.transposes = util::graph_ops(ctx, root)
        .into_iter()
        .filter(|&o| util::is_op(ctx, o, "Transpose"))
        .count() as u64;
    n
}

/// Converts the body of `segment` (a `target.segment` whose target asks for `layout`) with
/// [`convert`] (pools and BatchNorms included), then runs the verifier on it: what the compile
/// flow does before the target compiles the segment.
pub fn convert_segment(
    ctx: &mut Context,
    segment: Op,
    layout: Layout,
) -> Result<Converted, Vec<nart_ir::Diagnostic>> {
    let n = convert(ctx, segment, layout, true);
    nart_ir::verify::verify(ctx, segment)?;
    Ok(n)
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

static TO_NHWC: ConvertLayout = ConvertLayout {
    name: "ConvertConvLayout",
    to: ConvLayout::Nhwc,
    convert: convert_conv,
};
static TO_NCHW: ConvertLayout = ConvertLayout {
    name: "ConvertConvLayout",
    to: ConvLayout::Nchw,
    convert: convert_conv,
};

/// An op converted to the layout `to` by `convert` (a `Conv`/`fused_conv`, or a pool).
struct ConvertLayout {
    name: &'static str,
    to: ConvLayout,
    convert: fn(&mut PatternRewriter<'_>, Op, ConvLayout) -> Result<(), &'static str>,
}

impl RewritePattern for ConvertLayout {
    fn name(&self) -> &'static str {
        self.name
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        match (self.convert)(rw, op, self.to) {
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
    if from.block().is_some() {
        return Err("a blocked convolution");
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
        ConvLayout::Nchw | ConvLayout::Blocked(_) => {
            (to_channels_first(rank), to_channels_last(rank))
        }
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
        let l = rw.uniq().string_attr(&to.keyword());
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

/// `MaxPool`/`AveragePool` to a channels-last `graph.pool`, or a channels-last `graph.pool`
/// back to its base op, between Transposes.
static POOL_TO_NHWC: ConvertLayout = ConvertLayout {
    name: "ConvertPoolLayout",
    to: ConvLayout::Nhwc,
    convert: convert_pool,
};
static POOL_TO_NCHW: ConvertLayout = ConvertLayout {
    name: "ConvertPoolLayout",
    to: ConvLayout::Nchw,
    convert: convert_pool,
};

fn convert_pool(rw: &mut PatternRewriter<'_>, op: Op, to: ConvLayout) -> Result<(), &'static str> {
    use nart_dialect_graph::pool::PoolKind;
    let kind = match to {
        ConvLayout::Nhwc if util::is_op(rw, op, "MaxPool") => PoolKind::Max,
        ConvLayout::Nhwc if util::is_op(rw, op, "AveragePool") => PoolKind::Average,
        ConvLayout::Nchw if rw.op_name_str(op) == "graph.pool" => {
            if ConvLayout::of(rw, op) != Ok(ConvLayout::Nhwc) {
                return Err("not a channels-last pool");
            }
            PoolKind::of(rw, op).map_err(|_| "the kind attribute is invalid")?
        }
        _ => return Err("not a pool to convert"),
    };
    if rw.results(op)[1..].iter().any(|&r| rw.has_uses(r)) {
        return Err("the MaxPool's indices are used");
    }
    if util::attr_int(rw, op, "storage_order", 0) != 0 {
        return Err("storage_order is set");
    }
    let x = rw.operand(op, 0);
    let y = rw.result(op, 0);
    let ranked = |v: Value| rw.shape_of(rw.value_type(v)).map(<[i64]>::to_vec);
    let (Some(sx), Some(sy)) = (ranked(x), ranked(y)) else {
        return Err("the input or the result is unranked");
    };
    let rank = sx.len();
    if rank < 3 || sy.len() != rank {
        return Err("input and result must have one rank, 3 or more");
    }
    let (inward, outward) = match to {
        ConvLayout::Nhwc => (to_channels_last(rank), to_channels_first(rank)),
        ConvLayout::Nchw | ConvLayout::Blocked(_) => {
            (to_channels_first(rank), to_channels_last(rank))
        }
    };
    let loc = rw.op_loc(op);
    rw.set_insertion_point_before(op);
    let x_ty = rw.value_type(x);
    let x_new_ty = util::with_shape(rw.uniq(), x_ty, &permuted(&sx, &inward));
    let perm = util::i64_array(rw.uniq(), &inward);
    let xt = util::build_op(rw, "Transpose", loc, &[x], &[x_new_ty], &[("perm", perm)]);
    let x_new = rw.result(xt, 0);
    let y_ty = rw.value_type(y);
    let y_new_ty = util::with_shape(rw.uniq(), y_ty, &permuted(&sy, &inward));
    let mut props: Vec<(String, nart_ir::Attr)> = rw
        .props(op)
        .iter()
        .chain(rw.attrs(op))
        .map(|na| (rw.str(na.name).to_string(), na.value))
        .filter(|(n, _)| !matches!(n.as_str(), "layout" | "kind" | "storage_order"))
        .collect();
    let pooled = match to {
        ConvLayout::Nhwc => {
            let k = rw.uniq().string_attr(kind.keyword());
            props.push(("kind".into(), k));
            let l = rw.uniq().string_attr(&to.keyword());
            props.push(("layout".into(), l));
            let refs: Vec<(&str, nart_ir::Attr)> =
                props.iter().map(|(n, a)| (n.as_str(), *a)).collect();
            util::build_op(rw, "pool", loc, &[x_new], &[y_new_ty], &refs)
        }
        ConvLayout::Nchw | ConvLayout::Blocked(_) => {
            let mut results = vec![y_new_ty];
            if kind == PoolKind::Max {
                results.push(rw.uniq().none_type());
            }
            let refs: Vec<(&str, nart_ir::Attr)> =
                props.iter().map(|(n, a)| (n.as_str(), *a)).collect();
            util::build_op(rw, kind.onnx_name(), loc, &[x_new], &results, &refs)
        }
    };
    let y_new = rw.result(pooled, 0);
    let perm = util::i64_array(rw.uniq(), &outward);
    let back = util::build_op(rw, "Transpose", loc, &[y_new], &[y_ty], &[("perm", perm)]);
    let out = rw.result(back, 0);
    // The other results (a MaxPool's indices) have no uses (checked above).
    let mut repl = vec![out];
    repl.resize(rw.results(op).len(), out);
    rw.replace_op(op, &repl);
    Ok(())
}

/// An inference `BatchNormalization` with constant parameters `→ Add(Mul(x, s), t)`, `s` and
/// `t` (see [`crate::fold_batchnorm`]) shaped `[C, 1, ...]` to broadcast along the channel axis.
pub(crate) static BATCHNORM: BatchNormToScaleShift = BatchNormToScaleShift;

pub(crate) struct BatchNormToScaleShift;

impl RewritePattern for BatchNormToScaleShift {
    fn name(&self) -> &'static str {
        "BatchNormToScaleShift"
    }
    fn root(&self) -> Option<&'static str> {
        Some("graph.BatchNormalization")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        match batchnorm_to_scale_shift(rw, op) {
            Ok(()) => true,
            Err(why) => rw.match_failure(why),
        }
    }
}

fn batchnorm_to_scale_shift(rw: &mut PatternRewriter<'_>, bn: Op) -> Result<(), &'static str> {
    let (s, t) = crate::fold_batchnorm::bn_factors(rw, bn)?;
    let x = rw.operand(bn, 0);
    let y = rw.result(bn, 0);
    let ty = rw.value_type(y);
    if rw.value_type(x) != ty {
        return Err("the BatchNorm changes the type");
    }
    let dtype = util::dtype_of(rw, x)
        .filter(|&d| crate::fold_batchnorm::float_dtype(d))
        .ok_or("the input is not a float tensor")?;
    let sx = rw.shape_of(ty).ok_or("the input is unranked")?.to_vec();
    if sx.len() < 2 {
        return Err("the input has no channel axis");
    }
    let c = s.len();
    if sx[1] >= 0 && sx[1] as usize != c {
        return Err("the channel count differs from the parameters'");
    }
    let mut shape = vec![c];
    shape.resize(sx.len() - 1, 1);
    let loc = rw.op_loc(bn);
    let elem = rw.element_type(ty);
    rw.set_insertion_point_before(bn);
    let mut consts = Vec::new();
    for (values, what) in [(s, "scale"), (t, "shift")] {
        let tensor = nart_tensor::Tensor::from_f64(dtype, shape.clone(), values)
            .map_err(|_| "cannot build a tensor")?;
        let cty = rw
            .uniq()
            .tensor_type(shape.iter().map(|&d| d as i64).collect(), elem);
        let cloc = util::derived_loc(rw.uniq(), loc, what);
        consts.push(util::build_constant(rw, &tensor, cty, cloc).ok_or("cannot build a constant")?);
    }
    let mul = util::build_op(rw, "Mul", loc, &[x, consts[0]], &[ty], &[]);
    let scaled = rw.result(mul, 0);
    let add = util::build_op(rw, "Add", loc, &[scaled, consts[1]], &[ty], &[]);
    let out = rw.result(add, 0);
    let mut repl = vec![out];
    repl.resize(rw.results(bn).len(), out);
    rw.replace_op(bn, &repl);
    Ok(())
}
