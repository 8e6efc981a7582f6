//! `graph-layout{layout=nchw8c|nchw16c}`: a region of channels-first (`[N, C, H, W]`)
//! activations becomes blocked, `[N, ceil(C/b), H, W, b]`, with a `graph.reorder` at each border.
//!
//! The rewrites, for a block size `b` (`in(x)` is `graph.reorder` into `nchw<b>c`, `out(y, C)`
//! the one back to `nchw` with `C` channels):
//!
//! - `Conv(x, w, bias)` (or a channels-first `fused_conv`) with a constant weight (and bias)
//!   `→ out(fused_conv_blocked(in(x), w', bias'), M)`: `w'` is the weight blocked at compile
//!   time (`[ceil(M/b), K, k..., bi, b]`, see `ConvLayout::Blocked`), `bias'` padded with zeros.
//!   `group = 1` keeps `group = 1` (`bi = b`); a depthwise convolution (`group = C = M`) gets
//!   `group = ceil(C/b) * b` (`bi = 1`); any other group is converted only when every group's
//!   input and output channels are multiples of `b`. The activation must map 0 to 0.
//! - `in(out(y, C)) → y`: the pair cancels (the tail of `y` is zero, see below).
//! - `f(out(y, C)) → out(f(y), C)` for `Relu`, `LeakyRelu`, `Tanh`, `Abs`, `Neg` and `Clip` with
//!   constant bounds around 0; `g(out(a, C), out(b, C)) → out(g(a, b), C)` and
//!   `g(out(a, C), k) → out(g(a, k'), C)` for `Add`, `Sub`, `Mul`, `Max` and `Min`, `k` a
//!   constant that broadcasts along the channels (`k'` is `k` blocked, its tail zero);
//!   `MaxPool`/`AveragePool` → `graph.pool` with `layout = "nchw<b>c"`; `GlobalAveragePool` and
//!   `GlobalMaxPool` → `ReduceMean`/`ReduceMax` over the blocked spatial axes; `Concat` along the
//!   channels when every input's `C` is a multiple of `b`. An inference `BatchNormalization` is
//!   first a `Mul` and an `Add` of per-channel constants (as with `layout=nhwc`).
//!
//! Anything else reads the channels-first value through an `out` reorder, so a region ends
//! wherever an op has no blocked form.
//!
//! # The zero tail
//!
//! Every blocked value keeps the lanes past its `C` at zero: `in` writes zeros there; a blocked
//! convolution's padded output channels have zero weights and a zero bias, and its activation
//! maps 0 to 0 (checked); the unary ops are those that map 0 to 0 (`Clip` only with bounds
//! around 0); the binary ops give 0 on two zeros, and a constant operand is blocked with a zero
//! tail; pools and reductions of zeros are zero; a channel `Concat` has no tail. This is what
//! lets `in(out(y))` cancel to `y`, and it keeps non-finite values out of the tail: the padded
//! input channels of a convolution have zero weights, and `0 * inf` would be NaN.

use nart_dialect_graph::fused::{activation, Activation, ConvLayout, ACTIVATION_ATTR};
use nart_ir::{Attr, Context, Location, Op, PatternRewriter, RewritePattern, Type, Value, DYNAMIC};
use nart_rewrite::{apply_patterns_greedily, FrozenPatternSet, GreedyConfig, RegionSimplification};
use nart_tensor::{blocked, Tensor};

use crate::util;

/// What [`convert`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConvertedBlocked {
    /// Convolutions made blocked.
    pub convs: u64,
    /// Other ops moved into a blocked region (pools, elementwise ops, reductions, Concats).
    pub sunk: u64,
    /// Reorder pairs cancelled.
    pub cancelled: u64,
    /// BatchNorms turned into a `Mul` and an `Add`.
    pub batchnorms: u64,
    /// `graph.reorder` ops left under `root`.
    pub reorders: u64,
}

/// Makes the channels-first regions nested in `root` blocked by `b` (see the module docs).
pub fn convert(ctx: &mut Context, root: Op, b: i64) -> ConvertedBlocked {
    let config = GreedyConfig {
        region_simplification: RegionSimplification::Disabled,
        fold: false,
        ..GreedyConfig::default()
    };
    let rule = |name: &'static str, f: RuleFn| -> Box<dyn RewritePattern> {
        Box::new(BlockedRule { name, b, f })
    };
    let owned = vec![
        rule("ConvToBlocked", conv_to_blocked),
        rule("CancelReorders", cancel),
        rule("SinkUnary", sink_unary),
        rule("SinkBinary", sink_binary),
        rule("SinkPool", sink_pool),
        rule("SinkGlobalPool", sink_global_pool),
        rule("SinkConcat", sink_concat),
    ];
    let statics: Vec<&'static dyn RewritePattern> = vec![&crate::layout::BATCHNORM];
    let set = FrozenPatternSet::new(statics, owned);
    let res = apply_patterns_greedily(ctx, root, &set, &config);
    let count = |n: &str| res.pattern_applications.get(n).copied().unwrap_or(0) as u64;
    let reorders = util::graph_ops(ctx, root)
        .into_iter()
        .filter(|&o| util::is_op(ctx, o, "reorder"))
        .count() as u64;
    ConvertedBlocked {
        convs: count("ConvToBlocked"),
        sunk: [
            "SinkUnary",
            "SinkBinary",
            "SinkPool",
            "SinkGlobalPool",
            "SinkConcat",
        ]
        .into_iter()
        .map(count)
        .sum(),
        cancelled: count("CancelReorders"),
        batchnorms: count("BatchNormToScaleShift"),
        reorders,
    }
}

type RuleFn = fn(&mut PatternRewriter<'_>, Op, i64) -> Result<(), &'static str>;

/// One rewrite of the module docs, for block size `b`.
struct BlockedRule {
    name: &'static str,
    b: i64,
    f: RuleFn,
}

impl RewritePattern for BlockedRule {
    fn name(&self) -> &'static str {
        self.name
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        match (self.f)(rw, op, self.b) {
            Ok(()) => true,
            Err(why) => rw.match_failure(why),
        }
    }
}

/// The layout keyword of block size `b`.
fn keyword(b: i64) -> String {
    ConvLayout::Blocked(b).keyword()
}

/// `[N, ceil(C/b), spatial..., b]`.
fn blocked_shape(s: &[i64], b: i64) -> Vec<i64> {
    let mut d = vec![s[0], (s[1] + b - 1) / b];
    d.extend(&s[2..]);
    d.push(b);
    d
}

/// A channels-first shape the blocked form can hold: rank 3 or more, only `N` dynamic.
fn nchw_shape(rw: &PatternRewriter<'_>, v: Value) -> Option<Vec<i64>> {
    let s = rw.shape_of(rw.value_type(v))?.to_vec();
    (s.len() >= 3 && s[1..].iter().all(|&d| d != DYNAMIC && d >= 0)).then_some(s)
}

/// `graph.reorder` of `x` into blocks of `b`.
fn reorder_in(rw: &mut PatternRewriter<'_>, x: Value, sx: &[i64], b: i64, loc: Location) -> Value {
    let ty = rw.value_type(x);
    let bty = util::with_shape(rw.uniq(), ty, &blocked_shape(sx, b));
    let l = rw.uniq().string_attr(&keyword(b));
    let r = util::build_op(rw, "reorder", loc, &[x], &[bty], &[("layout", l)]);
    rw.result(r, 0)
}

/// `graph.reorder` of the blocked `y` back to `nchw` with type `ty` (`C` = its channels).
fn reorder_out(rw: &mut PatternRewriter<'_>, y: Value, ty: Type, c: i64, loc: Location) -> Value {
    let l = rw.uniq().string_attr("nchw");
    let ch = util::i64_attr(rw.uniq(), c);
    let r = util::build_op(
        rw,
        "reorder",
        loc,
        &[y],
        &[ty],
        &[("layout", l), ("channels", ch)],
    );
    rw.result(r, 0)
}

/// `(y, C)` when `v` is `out(y, C)` with `y` blocked by `b`.
fn blocked_source(rw: &PatternRewriter<'_>, v: Value, b: i64) -> Option<(Value, i64)> {
    let d = util::def_of(rw, v, "reorder")?;
    if util::attr_str(rw, d, "layout", "") != "nchw" {
        return None;
    }
    let y = rw.operand(d, 0);
    let sy = rw.shape_of(rw.value_type(y))?;
    (sy.last() == Some(&b)).then(|| (y, util::attr_int(rw, d, "channels", -1)))
}

/// The op's properties and attributes but `skip`, as owned pairs.
fn props_but(rw: &PatternRewriter<'_>, op: Op, skip: &[&str]) -> Vec<(String, Attr)> {
    rw.props(op)
        .iter()
        .chain(rw.attrs(op))
        .map(|na| (rw.str(na.name).to_string(), na.value))
        .filter(|(n, _)| !skip.contains(&n.as_str()))
        .collect()
}

fn refs(props: &[(String, Attr)]) -> Vec<(&str, Attr)> {
    props.iter().map(|(n, a)| (n.as_str(), *a)).collect()
}

/// A constant of `t`'s shape and `like`'s element type.
fn constant(rw: &mut PatternRewriter<'_>, t: &Tensor, like: Type, loc: Location) -> Option<Value> {
    let shape: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
    let ty = util::with_shape(rw.uniq(), like, &shape);
    util::build_constant(rw, t, ty, loc)
}

/// Replaces `op` (whose result #0 has type `ty` and `C` channels) by `out(y, C)`; its other
/// results must be unused.
fn replace_with_out(rw: &mut PatternRewriter<'_>, op: Op, y: Value, c: i64, loc: Location) {
    let ty = rw.value_type(rw.result(op, 0));
    let out = reorder_out(rw, y, ty, c, loc);
    let mut repl = vec![out];
    repl.resize(rw.results(op).len(), out);
    rw.replace_op(op, &repl);
}

fn conv_to_blocked(rw: &mut PatternRewriter<'_>, op: Op, b: i64) -> Result<(), &'static str> {
    let act = if util::is_op(rw, op, "Conv") {
        Activation::None
    } else if util::is_op(rw, op, "fused_conv") {
        if ConvLayout::of(rw, op) != Ok(ConvLayout::Nchw) {
            return Err("not a channels-first convolution");
        }
        Activation::of(rw, op).map_err(|_| "the activation is invalid")?
    } else {
        return Err("not a convolution");
    };
    if act.apply(0.0) != 0.0 {
        return Err("the activation does not map 0 to 0");
    }
    if util::attr_str(rw, op, "auto_pad", "NOTSET") != "NOTSET" {
        return Err("auto_pad is set");
    }
    let operands = rw.operands(op).to_vec();
    let (x, w, y) = (operands[0], operands[1], rw.result(op, 0));
    let (Some(sx), Some(sy)) = (nchw_shape(rw, x), nchw_shape(rw, y)) else {
        return Err("the input or the result is not [N, C, spatial...] with static C and spatial");
    };
    let wt = util::const_tensor(rw, w).ok_or("the weight is not a constant")?;
    let sw = wt.shape().to_vec();
    if sw.len() != sx.len() {
        return Err("the weight's rank differs from the input's");
    }
    let bias = match operands.get(2) {
        Some(&v) if !util::is_none(rw, v) => {
            Some(util::const_tensor(rw, v).ok_or("the bias is not a constant")?)
        }
        _ => None,
    };
    let (c, m, cg) = (sx[1], sy[1], sw[1] as i64);
    let g = util::attr_int(rw, op, "group", 1);
    let blocks = |n: i64| (n + b - 1) / b;
    // (input block of the weight, group of the blocked convolution).
    let (bi, group) = if g == 1 {
        (b, 1)
    } else if cg == 1 && g == c && m == c {
        (1, blocks(c) * b)
    } else if cg % b == 0 && (m / g) % b == 0 && m % g == 0 {
        (b, g)
    } else {
        return Err("the groups do not split along blocks");
    };
    let (bu, biu) = (b as usize, bi as usize);
    let wb = blocked::block_weight(&wt, bu, biu).map_err(|_| "cannot block the weight")?;
    let loc = rw.op_loc(op);
    rw.set_insertion_point_before(op);
    let xb = reorder_in(rw, x, &sx, b, loc);
    let w_ty = rw.value_type(w);
    let wloc = util::derived_loc(rw.uniq(), loc, &format!("weight_{}", keyword(b)));
    let wv = constant(rw, &wb, w_ty, wloc).ok_or("cannot build the blocked weight")?;
    let bv = match bias {
        Some(t) => {
            let mut v = t.to_f64_vec().map_err(|_| "the bias is not numeric")?;
            v.resize((blocks(m) * b) as usize, 0.0);
            let n = v.len();
            let padded = Tensor::from_f64(t.dtype(), vec![n], v).map_err(|_| "bad bias")?;
            let bty = rw.value_type(operands[2]);
            let bloc = util::derived_loc(rw.uniq(), loc, &format!("bias_{}", keyword(b)));
            constant(rw, &padded, bty, bloc).ok_or("cannot build the padded bias")?
        }
        None => {
            let ty = rw.uniq().none_type();
            let st = nart_ir::OperationState::new(rw.uniq(), "graph.none", loc).results(&[ty]);
            let n = rw.create(st);
            rw.result(n, 0)
        }
    };
    let y_ty = rw.value_type(y);
    let yb_ty = util::with_shape(rw.uniq(), y_ty, &blocked_shape(&sy, b));
    let mut props = props_but(rw, op, &["layout", "group", "auto_pad"]);
    if !props.iter().any(|(n, _)| n == "activation") {
        let none = ACTIVATION_ATTR.enum_attr(rw.uniq(), activation::NONE);
        props.push(("activation".into(), none));
    }
    let l = rw.uniq().string_attr(&keyword(b));
    props.push(("layout".into(), l));
    let gr = util::i64_attr(rw.uniq(), group);
    props.push(("group".into(), gr));
    let conv = util::build_op(
        rw,
        "fused_conv",
        loc,
        &[xb, wv, bv],
        &[yb_ty],
        &refs(&props),
    );
    let yb = rw.result(conv, 0);
    replace_with_out(rw, op, yb, m, loc);
    Ok(())
}

fn cancel(rw: &mut PatternRewriter<'_>, op: Op, b: i64) -> Result<(), &'static str> {
    if !util::is_op(rw, op, "reorder") || util::attr_str(rw, op, "layout", "") != keyword(b) {
        return Err("not a reorder into this layout");
    }
    let (y, c) = blocked_source(rw, rw.operand(op, 0), b).ok_or("not a reorder pair")?;
    let r = rw.result(op, 0);
    if rw.value_type(y) != rw.value_type(r)
        || nchw_shape(rw, rw.operand(op, 0)).map(|s| s[1]) != Some(c)
    {
        return Err("the pair changes the type");
    }
    rw.replace_op(op, &[y]);
    Ok(())
}

/// Whether the unary `op` maps 0 to 0 (and its other operands are fine in a blocked region).
fn zero_preserving_unary(rw: &PatternRewriter<'_>, op: Op) -> bool {
    const PLAIN: [&str; 5] = ["Relu", "LeakyRelu", "Tanh", "Abs", "Neg"];
    if PLAIN.iter().any(|n| util::is_op(rw, op, n)) {
        return rw.operands(op).len() == 1;
    }
    if !util::is_op(rw, op, "Clip") {
        return false;
    }
    let bound = |i: usize| match util::opt_operand(rw, op, i) {
        None => Some(None),
        Some(v) => util::const_tensor(rw, v)
            .filter(|t| t.len() == 1)
            .and_then(|t| t.to_f64_vec().ok())
            .map(|v| Some(v[0])),
    };
    match (bound(1), bound(2)) {
        (Some(lo), Some(hi)) => lo.is_none_or(|l| l <= 0.0) && hi.is_none_or(|h| h >= 0.0),
        _ => false,
    }
}

fn sink_unary(rw: &mut PatternRewriter<'_>, op: Op, b: i64) -> Result<(), &'static str> {
    if !zero_preserving_unary(rw, op) {
        return Err("not a unary op that maps 0 to 0");
    }
    let (y, c) = blocked_source(rw, rw.operand(op, 0), b).ok_or("the input is not blocked")?;
    let loc = rw.op_loc(op);
    rw.set_insertion_point_before(op);
    let mut operands = rw.operands(op).to_vec();
    operands[0] = y;
    let ty = rw.value_type(y);
    let props = props_but(rw, op, &[]);
    let name = rw.op_name_str(op).trim_start_matches("graph.").to_string();
    let n = util::build_op(rw, &name, loc, &operands, &[ty], &refs(&props));
    let v = rw.result(n, 0);
    replace_with_out(rw, op, v, c, loc);
    Ok(())
}

fn sink_binary(rw: &mut PatternRewriter<'_>, op: Op, b: i64) -> Result<(), &'static str> {
    const OPS: [&str; 5] = ["Add", "Sub", "Mul", "Max", "Min"];
    let Some(name) = OPS.into_iter().find(|n| util::is_op(rw, op, n)) else {
        return Err("not a binary op that keeps zeros");
    };
    let operands = rw.operands(op).to_vec();
    if operands.len() != 2 {
        return Err("not two operands");
    }
    let r = rw.result(op, 0);
    let sr = nchw_shape(rw, r).ok_or("the result is not [N, C, spatial...]")?;
    let src: Vec<Option<(Value, i64)>> =
        operands.iter().map(|&v| blocked_source(rw, v, b)).collect();
    let loc = rw.op_loc(op);
    let new_operands = match (src[0], src[1]) {
        (Some((a, ca)), Some((bb, cb))) => {
            if ca != cb || rw.value_type(a) != rw.value_type(bb) {
                return Err("the blocked operands differ in type");
            }
            if rw.value_type(operands[0]) != rw.value_type(r) {
                return Err("the op broadcasts");
            }
            rw.set_insertion_point_before(op);
            vec![a, bb]
        }
        (Some((a, _)), None) | (None, Some((a, _))) => {
            let (k_idx, x_idx) = if src[0].is_some() { (1, 0) } else { (0, 1) };
            if rw.value_type(operands[x_idx]) != rw.value_type(r) {
                return Err("the op broadcasts the blocked operand");
            }
            let k = util::const_tensor(rw, operands[k_idx])
                .ok_or("the other operand is not a constant")?;
            let kb = per_channel(&k, &sr, b)
                .ok_or("the constant does not broadcast along the channels")?;
            rw.set_insertion_point_before(op);
            let kty = rw.value_type(operands[k_idx]);
            let kloc = util::derived_loc(rw.uniq(), loc, &keyword(b));
            let kv = constant(rw, &kb, kty, kloc).ok_or("cannot build the blocked constant")?;
            let mut v = vec![a, a];
            v[k_idx] = kv;
            v
        }
        (None, None) => return Err("no operand is blocked"),
    };
    let ty = rw.value_type(new_operands[if src[0].is_some() { 0 } else { 1 }]);
    let n = util::build_op(rw, name, loc, &new_operands, &[ty], &[]);
    let v = rw.result(n, 0);
    replace_with_out(rw, op, v, sr[1], loc);
    Ok(())
}

/// The constant `k` blocked as `[1, ceil(C/b), 1..., b]` (tail zero), when it broadcasts to
/// `shape` (`[N, C, spatial...]`) along the channels only: `[C or 1, 1...]` right-aligned.
fn per_channel(k: &Tensor, shape: &[i64], b: i64) -> Option<Tensor> {
    let r = shape.len();
    let sk = k.shape();
    if sk.len() > r {
        return None;
    }
    let mut full = vec![1usize; r - sk.len()];
    full.extend(sk);
    if full[0] != 1 || full[2..].iter().any(|&d| d != 1) {
        return None;
    }
    let c = shape[1] as usize;
    let vals = k.to_f64_vec().ok()?;
    let per: Vec<f64> = match full[1] {
        1 => vec![vals[0]; c],
        n if n == c => vals,
        _ => return None,
    };
    let mut s = vec![1, c];
    s.resize(r, 1);
    let t = Tensor::from_f64(k.dtype(), s, per).ok()?;
    blocked::to_blocked(&t, b as usize).ok()
}

fn sink_pool(rw: &mut PatternRewriter<'_>, op: Op, b: i64) -> Result<(), &'static str> {
    let kind = if util::is_op(rw, op, "MaxPool") {
        "max"
    } else if util::is_op(rw, op, "AveragePool") {
        "average"
    } else if util::is_op(rw, op, "pool") && ConvLayout::of(rw, op) == Ok(ConvLayout::Nchw) {
        if util::attr_str(rw, op, "kind", "") == "max" {
            "max"
        } else {
            "average"
        }
    } else {
        return Err("not a channels-first pool");
    };
    if rw.results(op)[1..].iter().any(|&r| rw.has_uses(r)) {
        return Err("the MaxPool's indices are used");
    }
    if util::attr_int(rw, op, "storage_order", 0) != 0 {
        return Err("storage_order is set");
    }
    let (y, c) = blocked_source(rw, rw.operand(op, 0), b).ok_or("the input is not blocked")?;
    let r = rw.result(op, 0);
    let sr = nchw_shape(rw, r).ok_or("the result is not [N, C, spatial...]")?;
    let loc = rw.op_loc(op);
    rw.set_insertion_point_before(op);
    let mut props = props_but(rw, op, &["layout", "kind", "storage_order"]);
    let k = rw.uniq().string_attr(kind);
    props.push(("kind".into(), k));
    let l = rw.uniq().string_attr(&keyword(b));
    props.push(("layout".into(), l));
    let r_ty = rw.value_type(r);
    let ty = util::with_shape(rw.uniq(), r_ty, &blocked_shape(&sr, b));
    let n = util::build_op(rw, "pool", loc, &[y], &[ty], &refs(&props));
    let v = rw.result(n, 0);
    replace_with_out(rw, op, v, c, loc);
    Ok(())
}

fn sink_global_pool(rw: &mut PatternRewriter<'_>, op: Op, b: i64) -> Result<(), &'static str> {
    let reduce = if util::is_op(rw, op, "GlobalAveragePool") {
        "ReduceMean"
    } else if util::is_op(rw, op, "GlobalMaxPool") {
        "ReduceMax"
    } else {
        return Err("not a global pool");
    };
    let (y, c) = blocked_source(rw, rw.operand(op, 0), b).ok_or("the input is not blocked")?;
    let r = rw.result(op, 0);
    let sr = nchw_shape(rw, r).ok_or("the result is not [N, C, 1...]")?;
    let loc = rw.op_loc(op);
    rw.set_insertion_point_before(op);
    // The blocked spatial axes: 2 .. rank - 1 of [N, C/b, spatial..., b].
    let axes: Vec<i64> = (2..sr.len() as i64).collect();
    let axes = util::i64_constant(rw, &axes, loc);
    let keep = util::i64_attr(rw.uniq(), 1);
    let r_ty = rw.value_type(r);
    let ty = util::with_shape(rw.uniq(), r_ty, &blocked_shape(&sr, b));
    let n = util::build_op(rw, reduce, loc, &[y, axes], &[ty], &[("keepdims", keep)]);
    let v = rw.result(n, 0);
    replace_with_out(rw, op, v, c, loc);
    Ok(())
}

fn sink_concat(rw: &mut PatternRewriter<'_>, op: Op, b: i64) -> Result<(), &'static str> {
    if !util::is_op(rw, op, "Concat") {
        return Err("not a Concat");
    }
    let r = rw.result(op, 0);
    let sr = nchw_shape(rw, r).ok_or("the result is not [N, C, spatial...]")?;
    let axis = util::attr_int(rw, op, "axis", 0);
    if axis != 1 && axis != 1 - sr.len() as i64 {
        return Err("not along the channels");
    }
    let mut ins = Vec::new();
    for v in rw.operands(op).to_vec() {
        let (y, c) = blocked_source(rw, v, b).ok_or("an input is not blocked")?;
        if c % b != 0 {
            return Err("an input's channels are not a multiple of the block");
        }
        ins.push(y);
    }
    let loc = rw.op_loc(op);
    rw.set_insertion_point_before(op);
    let r_ty = rw.value_type(r);
    let ty = util::with_shape(rw.uniq(), r_ty, &blocked_shape(&sr, b));
    let one = util::i64_attr(rw.uniq(), 1);
    let n = util::build_op(rw, "Concat", loc, &ins, &[ty], &[("axis", one)]);
    let v = rw.result(n, 0);
    replace_with_out(rw, op, v, sr[1], loc);
    Ok(())
}
