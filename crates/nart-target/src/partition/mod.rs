//! The partitioner: places every op of a graph function on a target, groups the ops into
//! segments, and outlines each segment into a `target.segment` op.
//!
//! # Placement
//!
//! The targets come in preference order (`--targets a,b,c`); the last is the fallback, and
//! `interp` is added as the last one when the list lacks it. Every *compute* op of the
//! function's body is placed; the others (constants and other operand-less pure ops, such as
//! `graph.none`) are not: each segment that uses one gets a copy.
//!
//! 1. **Overrides** ([`Override`], `--place PATTERN=TARGET`) come first: an op whose name (the
//!    name of its location, which the ONNX importer sets to the node's name) or op type
//!    (`graph.Conv`) matches `PATTERN` (a glob: `*` any text, `?` one character) goes to
//!    `TARGET`, whether or not it is in the preference list; when several match, the last one
//!    wins. A target that refuses an op its override names is an error with the reason.
//! 2. **Preference**: any other op goes to the first target of the list that supports it; the
//!    targets before it that refused it are its [`Reason::FellBack`].
//! 3. **Cost**: a segment whose ops a neighbouring segment's target also runs moves there when
//!    the cost model says it is faster, counting what the segment costs besides its ops (the
//!    target's per-segment overhead and moving its boundary tensors to the device); see
//!    [`Target::cost`] and [`Throughput`](crate::Throughput). Each op moves at most once, and
//!    nothing moves where a cost is unknown (a dynamic shape).
//!
//! Every target is asked about every op, so [`Plan::refusals`] lists, per target, *all* the ops
//! it refuses with the reason, and an error reports every op that cannot be placed at once.
//!
//! # Segments and outlining
//!
//! Segments are the maximal connected groups of ops on one target whose contraction keeps the
//! graph acyclic ([`segments`]). [`outline`] then turns each into a `target.segment` through
//! the rewriter, in a topological order of the segments, inserting quantize/dequantize casts
//! where two sides want a value in different precisions ([`Target::io_precision`]).

pub mod outline;
pub mod segments;

use std::collections::{HashMap, HashSet};
use std::fmt;

use nart_ir::{Block, Context, Diagnostic, LocData, Location, Op, Trait, Value, ValueDef};

use crate::registry::{TargetRegistry, UnknownTarget};
use crate::target::{Refusal, Support, Target};

pub use outline::outline;
use segments::{form_segments, Dag};

/// `--place PATTERN=TARGET`: ops whose name or op type match `PATTERN` go to `TARGET`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Override {
    /// A glob over op names and op types (`conv*`, `graph.Conv`).
    pub pattern: String,
    /// The target's name.
    pub target: String,
}

impl Override {
    /// Parses `PATTERN=TARGET`.
    pub fn parse(text: &str) -> Result<Override, String> {
        let Some((pattern, target)) = text.split_once('=') else {
            return Err(format!(
                "bad placement '{text}': expected PATTERN=TARGET, such as 'conv1=interp' or \
                 'graph.Conv=npu'"
            ));
        };
        let (pattern, target) = (pattern.trim(), target.trim());
        if pattern.is_empty() {
            return Err(format!("bad placement '{text}': the pattern is empty"));
        }
        if target.is_empty() || target.contains('=') {
            return Err(format!(
                "bad placement '{text}': expected one target after '='"
            ));
        }
        Ok(Override {
            pattern: pattern.to_string(),
            target: target.to_string(),
        })
    }

    /// Whether the override applies to an op called `name` of type `op_type`.
    pub fn matches(&self, name: Option<&str>, op_type: &str) -> bool {
        name.is_some_and(|n| glob(&self.pattern, n)) || glob(&self.pattern, op_type)
    }
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.pattern, self.target)
    }
}

/// Matches `text` against `pattern`, where `*` stands for any text and `?` for one character.
pub fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // The classic greedy matcher with one backtracking point (the last `*`).
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// What a partition's targets and overrides are, resolved against a registry.
pub struct Setup<'r> {
    /// The targets in preference order; the last is the fallback.
    pub preferred: Vec<&'r dyn Target>,
    /// The overrides, each with the target it names.
    pub overrides: Vec<(Override, &'r dyn Target)>,
}

impl fmt::Debug for Setup<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Setup")
            .field(
                "preferred",
                &self.preferred.iter().map(|t| t.name()).collect::<Vec<_>>(),
            )
            .field(
                "overrides",
                &self.overrides.iter().map(|(o, _)| o).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Why targets and overrides cannot be resolved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// A name no registered target has.
    #[error(transparent)]
    Unknown(#[from] UnknownTarget),
    /// A target named twice in the preference list.
    #[error("target '{0}' is listed twice")]
    Duplicate(String),
}

impl<'r> Setup<'r> {
    /// Looks up `targets` (in preference order) and the targets of `overrides` in `registry`,
    /// adding `interp` as the fallback when the registry has it and the list does not.
    pub fn resolve(
        registry: &'r TargetRegistry,
        targets: &[String],
        overrides: &[Override],
    ) -> Result<Setup<'r>, SetupError> {
        let mut preferred: Vec<&dyn Target> = Vec::new();
        for name in targets {
            let t = registry.get(name.trim())?;
            if preferred.iter().any(|p| p.name() == t.name()) {
                return Err(SetupError::Duplicate(name.clone()));
            }
            preferred.push(t);
        }
        if let Some(fallback) = registry.lookup(crate::interp::NAME) {
            if !preferred.iter().any(|p| p.name() == fallback.name()) {
                preferred.push(fallback);
            }
        }
        let overrides = overrides
            .iter()
            .map(|o| Ok((o.clone(), registry.get(&o.target)?)))
            .collect::<Result<Vec<_>, UnknownTarget>>()?;
        Ok(Setup {
            preferred,
            overrides,
        })
    }

    /// Every target the partition may use: the preferred ones, then those only overrides name.
    pub fn all_targets(&self) -> Vec<&'r dyn Target> {
        let mut all = self.preferred.clone();
        for (_, t) in &self.overrides {
            if !all.iter().any(|a| a.name() == t.name()) {
                all.push(*t);
            }
        }
        all
    }

    /// Registers in `ctx` what every target needs (see [`Target::prepare`]).
    pub fn prepare(&self, ctx: &mut Context) {
        for t in self.all_targets() {
            t.prepare(ctx);
        }
    }

    /// Lets every target rewrite `func` (see [`Target::rewrite`]), then runs the verifier on
    /// it when anything changed; returns how many rewrites were made.
    pub fn rewrite(&self, ctx: &mut Context, func: Op) -> Result<usize, Vec<Diagnostic>> {
        let n: usize = self
            .all_targets()
            .iter()
            .map(|t| t.rewrite(ctx, func))
            .sum();
        if n > 0 {
            nart_ir::verify::verify(ctx, func)?;
        }
        Ok(n)
    }
}

/// Why an op is where it is.
#[derive(Clone, Debug, PartialEq)]
pub enum Reason {
    /// The first target of the preference order runs it.
    Preferred,
    /// The targets before it in the preference order refused it, for these reasons.
    FellBack(Vec<(String, Refusal)>),
    /// An override put it there (its text, `conv1=interp`).
    Override(String),
    /// The cost model moved it from `from`, where its segment was estimated to take `here_s`
    /// seconds, against `there_s` here.
    Cost {
        /// The target it was first placed on.
        from: String,
        /// Estimated seconds of its segment on `from`.
        here_s: f64,
        /// Estimated seconds of its ops on the new target.
        there_s: f64,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Preferred => Ok(()),
            Reason::FellBack(refusals) => {
                for (i, (t, r)) in refusals.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{t}: {r}")?;
                }
                Ok(())
            }
            Reason::Override(text) => write!(f, "--place {text}"),
            Reason::Cost {
                from,
                here_s,
                there_s,
            } => write!(
                f,
                "cost: {} on {from}, {} here",
                seconds_text(*here_s),
                seconds_text(*there_s)
            ),
        }
    }
}

/// Seconds in a readable unit.
pub fn seconds_text(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if s >= 1e-6 {
        format!("{:.3} us", s * 1e6)
    } else {
        format!("{:.1} ns", s * 1e9)
    }
}

/// One placed op.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedOp {
    /// The op.
    pub op: Op,
    /// Its name (the name of its location), if it has one.
    pub name: Option<String>,
    /// Its op type (`graph.Conv`).
    pub op_type: String,
    /// The target it is placed on.
    pub target: String,
    /// Why there.
    pub reason: Reason,
    /// Its segment, an index into [`Plan::segments`].
    pub segment: usize,
}

/// One op a target refused.
#[derive(Clone, Debug, PartialEq)]
pub struct RefusedOp {
    /// The op.
    pub op: Op,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// Its op type.
    pub op_type: String,
    /// Why.
    pub refusal: Refusal,
}

/// Every op one target refused.
#[derive(Clone, Debug, PartialEq)]
pub struct TargetRefusals {
    /// The target.
    pub target: String,
    /// The ops it refused, in block order.
    pub ops: Vec<RefusedOp>,
}

/// A segment: ops on one target.
#[derive(Clone, Debug, PartialEq)]
pub struct SegmentPlan {
    /// The target.
    pub target: String,
    /// Its ops, in block order.
    pub ops: Vec<Op>,
}

/// Where every op of a function goes.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The function.
    pub func: Op,
    /// Every compute op, in block order.
    pub ops: Vec<PlacedOp>,
    /// The segments, in a topological order (each uses only values of earlier ones and of the
    /// function's arguments and constants).
    pub segments: Vec<SegmentPlan>,
    /// For each target the partition may use, every op it refuses.
    pub refusals: Vec<TargetRefusals>,
    /// How many ops each override (in the order given) placed.
    pub override_hits: Vec<usize>,
}

/// The name of an op: the first name in its location (`loc("conv1"(...))`).
pub fn op_label(ctx: &Context, op: Op) -> Option<String> {
    fn name_in(ctx: &Context, loc: Location, depth: u32) -> Option<String> {
        if depth > 64 {
            return None;
        }
        match ctx.loc_data(loc) {
            LocData::Name { name, .. } => Some(ctx.str(*name).to_string()),
            LocData::CallSite { callee, .. } => name_in(ctx, *callee, depth + 1),
            LocData::Fused { locs, .. } => locs.iter().find_map(|&l| name_in(ctx, l, depth + 1)),
            _ => None,
        }
    }
    name_in(ctx, ctx.op_loc(op), 0)
}

/// Whether the partitioner leaves `op` unplaced and copies it into every segment that uses it:
/// an op without operands or regions that has no effects (constants, `graph.none`).
pub fn is_free(ctx: &Context, op: Op) -> bool {
    (ctx.op_has_trait(op, Trait::ConstantLike) || ctx.op_has_trait(op, Trait::Pure))
        && ctx.operands(op).is_empty()
        && ctx.regions(op).is_empty()
}

/// The single block of a graph function's body.
pub fn body_block(ctx: &Context, func: Op) -> Result<Block, Diagnostic> {
    let blocks = ctx
        .regions(func)
        .first()
        .map(|&r| ctx.region_blocks(r))
        .unwrap_or(&[]);
    match blocks {
        [b] => Ok(*b),
        [] => Err(ctx.op_error(func, "has no body to partition")),
        _ => Err(ctx.op_error(
            func,
            format!(
                "has {} blocks; only single-block graph functions can be partitioned",
                blocks.len()
            ),
        )),
    }
}

/// The op directly in `block` that defines `v` or holds the region that does; `None` for an
/// argument of `block` (or a value from outside it).
pub(crate) fn top_level_def(ctx: &Context, v: Value, block: Block) -> Option<Op> {
    let op = match ctx.value_def(v) {
        ValueDef::OpResult { op, .. } => op,
        ValueDef::BlockArg { block: b, .. } => {
            if b == block {
                return None;
            }
            ctx.block_parent_op(b)?
        }
    };
    top_level_op(ctx, op, block)
}

/// The ancestor of `op` (or `op` itself) that sits directly in `block`.
pub(crate) fn top_level_op(ctx: &Context, mut op: Op, block: Block) -> Option<Op> {
    loop {
        if ctx.op_parent_block(op) == Some(block) {
            return Some(op);
        }
        op = ctx.op_parent_op(op)?;
    }
}

/// The compute ops of a function body and the data dependences between them.
pub(crate) struct FuncGraph {
    /// The body.
    pub block: Block,
    /// The compute ops, in block order.
    pub ops: Vec<Op>,
    /// Each compute op's index in `ops`.
    pub index: HashMap<Op, usize>,
    /// Dependences, by index.
    pub dag: Dag,
}

impl FuncGraph {
    pub(crate) fn new(ctx: &Context, func: Op) -> Result<FuncGraph, Diagnostic> {
        let block = body_block(ctx, func)?;
        let mut ops = Vec::new();
        for op in ctx.block_ops_iter(block) {
            if ctx.op_has_trait(op, Trait::Terminator) || is_free(ctx, op) {
                continue;
            }
            ops.push(op);
        }
        let index: HashMap<Op, usize> = ops.iter().enumerate().map(|(i, &o)| (o, i)).collect();
        let mut preds = vec![Vec::new(); ops.len()];
        for (i, &op) in ops.iter().enumerate() {
            for nested in std::iter::once(op).chain(ctx.nested_ops(op)) {
                for &v in ctx.operands(nested) {
                    let Some(def) = top_level_def(ctx, v, block) else {
                        continue;
                    };
                    match index.get(&def) {
                        Some(&j) if j < i && !preds[i].contains(&j) => {
                            preds[i].push(j);
                        }
                        Some(&j) if j > i => {
                            return Err(ctx.op_error(
                                op,
                                "uses a value defined after it; graph functions must be in \
                                 SSA order",
                            ));
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(FuncGraph {
            block,
            ops,
            index,
            dag: Dag { preds },
        })
    }
}

/// Plans the partition of `func` (a `func.func` whose body is one block of graph ops) with
/// `setup`: where each op goes, the segments, and every refusal. Changes nothing.
///
/// Call [`Setup::prepare`] on `ctx` first. Every op that cannot be placed (no target runs it,
/// or its override's target refuses it) is reported, each as a diagnostic at the op.
pub fn plan(ctx: &Context, func: Op, setup: &Setup<'_>) -> Result<Plan, Vec<Diagnostic>> {
    let graph = FuncGraph::new(ctx, func).map_err(|d| vec![d])?;
    let all = setup.all_targets();
    let n_preferred = setup.preferred.len();
    // supports[t][i]: target t (of `all`) on op i; asked of every target for every op.
    let supports: Vec<Vec<Support>> = all
        .iter()
        .map(|t| graph.ops.iter().map(|&op| t.supports(ctx, op)).collect())
        .collect();
    let labels: Vec<Option<String>> = graph.ops.iter().map(|&op| op_label(ctx, op)).collect();
    let types: Vec<String> = graph
        .ops
        .iter()
        .map(|&op| ctx.op_name_str(op).to_string())
        .collect();
    let target_index = |name: &str| all.iter().position(|t| t.name() == name);

    let mut errors = Vec::new();
    let mut colour = vec![0usize; graph.ops.len()];
    let mut reasons = Vec::with_capacity(graph.ops.len());
    let mut fixed = vec![false; graph.ops.len()];
    let mut override_hits = vec![0usize; setup.overrides.len()];
    for (i, &op) in graph.ops.iter().enumerate() {
        let chosen = setup
            .overrides
            .iter()
            .enumerate()
            .rev()
            .find(|(_, (o, _))| o.matches(labels[i].as_deref(), &types[i]));
        if let Some((k, (o, t))) = chosen {
            override_hits[k] += 1;
            let ti = target_index(t.name()).expect("invariant: override targets are in `all`");
            if let Support::Refused(r) = &supports[ti][i] {
                errors.push(ctx.op_error(
                    op,
                    format!(
                        "cannot be placed on '{}' as --place {o} asks: {r}",
                        t.name()
                    ),
                ));
            }
            colour[i] = ti;
            fixed[i] = true;
            reasons.push(Reason::Override(o.to_string()));
            continue;
        }
        match (0..n_preferred).find(|&t| supports[t][i].is_supported()) {
            Some(t) => {
                colour[i] = t;
                let refused: Vec<(String, Refusal)> = (0..t)
                    .filter_map(|k| match &supports[k][i] {
                        Support::Refused(r) => Some((all[k].name().to_string(), r.clone())),
                        Support::Supported => None,
                    })
                    .collect();
                reasons.push(if refused.is_empty() {
                    Reason::Preferred
                } else {
                    Reason::FellBack(refused)
                });
            }
            None => {
                let mut d = ctx.op_error(op, "is supported by none of the targets");
                for (k, t) in all.iter().enumerate().take(n_preferred) {
                    if let Support::Refused(r) = &supports[k][i] {
                        d = d.with_note(ctx.op_loc(op), format!("{}: {r}", t.name()));
                    }
                }
                errors.push(d);
                reasons.push(Reason::Preferred);
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }

    let mut seg = form_segments(&graph.dag, &colour);
    refine_by_cost(
        ctx,
        &graph,
        &all[..n_preferred],
        &supports,
        &mut colour,
        &mut reasons,
        &mut fixed,
        &mut seg,
    );

    let n_segments = seg.iter().map(|&s| s + 1).max().unwrap_or(0);
    let mut segments: Vec<SegmentPlan> = (0..n_segments)
        .map(|_| SegmentPlan {
            target: String::new(),
            ops: Vec::new(),
        })
        .collect();
    for (i, &op) in graph.ops.iter().enumerate() {
        segments[seg[i]].target = all[colour[i]].name().to_string();
        segments[seg[i]].ops.push(op);
    }
    let ops = graph
        .ops
        .iter()
        .enumerate()
        .map(|(i, &op)| PlacedOp {
            op,
            name: labels[i].clone(),
            op_type: types[i].clone(),
            target: all[colour[i]].name().to_string(),
            reason: reasons[i].clone(),
            segment: seg[i],
        })
        .collect();
    let refusals = all
        .iter()
        .enumerate()
        .map(|(k, t)| TargetRefusals {
            target: t.name().to_string(),
            ops: graph
                .ops
                .iter()
                .enumerate()
                .filter_map(|(i, &op)| match &supports[k][i] {
                    Support::Refused(r) => Some(RefusedOp {
                        op,
                        name: labels[i].clone(),
                        op_type: types[i].clone(),
                        refusal: r.clone(),
                    }),
                    Support::Supported => None,
                })
                .collect(),
        })
        .collect();
    Ok(Plan {
        func,
        ops,
        segments,
        refusals,
        override_hits,
    })
}

/// The bytes of a value's tensor type, when its shape is static.
fn static_bytes(ctx: &Context, v: Value) -> Option<f64> {
    let ty = ctx.value_type(v);
    if matches!(ctx.type_data(ty), nart_ir::TypeData::None) {
        return Some(0.0);
    }
    let shape = ctx.shape_of(ty)?;
    let elem = ctx.element_type(ty);
    let bits = match ctx.type_data(elem) {
        nart_ir::TypeData::Integer { width, .. } => f64::from(*width),
        nart_ir::TypeData::Float(k) => f64::from(k.width()),
        nart_ir::TypeData::Index => 64.0,
        _ => return None,
    };
    let mut n = 1.0;
    for &d in shape {
        if d < 0 {
            return None;
        }
        n *= d as f64;
    }
    Some(n * (bits / 8.0).ceil())
}

/// The bytes that cross the boundary of a group of ops (its inputs from other ops or the
/// function's arguments, and its results used elsewhere), when every shape is static.
fn boundary_bytes(ctx: &Context, graph: &FuncGraph, members: &HashSet<usize>) -> Option<f64> {
    let mut seen: HashSet<Value> = HashSet::new();
    let mut total = 0.0;
    for &i in members {
        let op = graph.ops[i];
        for nested in std::iter::once(op).chain(ctx.nested_ops(op)) {
            for &v in ctx.operands(nested) {
                let outside = match top_level_def(ctx, v, graph.block) {
                    None => ctx.value_parent_block(v) == Some(graph.block),
                    Some(d) => graph.index.get(&d).is_some_and(|j| !members.contains(j)),
                };
                if outside && seen.insert(v) {
                    total += static_bytes(ctx, v)?;
                }
            }
        }
        for &r in ctx.results(op) {
            let used_outside = ctx.uses(r).iter().any(|u| {
                top_level_op(ctx, u.op, graph.block)
                    .is_none_or(|t| graph.index.get(&t).is_none_or(|j| !members.contains(j)))
            });
            if used_outside && seen.insert(r) {
                total += static_bytes(ctx, r)?;
            }
        }
    }
    Some(total)
}

/// Moves segments to a neighbouring segment's target when the cost model says that is faster
/// (see the module docs); re-forms the segments after each round of moves.
#[allow(clippy::too_many_arguments)]
fn refine_by_cost(
    ctx: &Context,
    graph: &FuncGraph,
    preferred: &[&dyn Target],
    supports: &[Vec<Support>],
    colour: &mut [usize],
    reasons: &mut [Reason],
    fixed: &mut [bool],
    seg: &mut Vec<usize>,
) {
    let succs = graph.dag.succs();
    let n = graph.ops.len();
    // Each round moves at least one op for good, so there are at most `n` rounds.
    for _ in 0..n.max(1) {
        let n_segments = seg.iter().map(|&s| s + 1).max().unwrap_or(0);
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); n_segments];
        for (i, &s) in seg.iter().enumerate() {
            members[s].push(i);
        }
        let mut moved = false;
        for group in &members {
            if group.iter().any(|&i| fixed[i]) || group.is_empty() {
                continue;
            }
            let here = colour[group[0]];
            if here >= preferred.len() {
                continue;
            }
            let set: HashSet<usize> = group.iter().copied().collect();
            let mut neighbours: Vec<usize> = group
                .iter()
                .flat_map(|&i| graph.dag.preds[i].iter().chain(&succs[i]))
                .filter(|j| !set.contains(j))
                .map(|&j| colour[j])
                .filter(|&c| c != here && c < preferred.len())
                .collect();
            neighbours.sort_unstable();
            neighbours.dedup();
            let cost_on = |t: usize| -> Option<f64> {
                group
                    .iter()
                    .map(|&i| preferred[t].cost(ctx, graph.ops[i]).map(|c| c.seconds))
                    .sum()
            };
            let Some(ops_here) = cost_on(here) else {
                continue;
            };
            let Some(bytes) = boundary_bytes(ctx, graph, &set) else {
                continue;
            };
            let tp = preferred[here].throughput();
            let here_s = ops_here + tp.segment_overhead_s + tp.transfer_seconds(bytes);
            let best = neighbours
                .into_iter()
                .filter(|&u| group.iter().all(|&i| supports[u][i].is_supported()))
                .filter_map(|u| Some((u, cost_on(u)?)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((u, there_s)) = best.filter(|&(_, s)| s < here_s) {
                for &i in group {
                    colour[i] = u;
                    fixed[i] = true;
                    reasons[i] = Reason::Cost {
                        from: preferred[here].name().to_string(),
                        here_s,
                        there_s,
                    };
                }
                moved = true;
            }
        }
        if !moved {
            return;
        }
        *seg = form_segments(&graph.dag, colour);
    }
}

/// What partitioning a function did.
#[derive(Clone, Debug, PartialEq)]
pub struct Partitioned {
    /// The plan it followed.
    pub plan: Plan,
    /// The `target.segment` ops, in the order of [`Plan::segments`].
    pub segment_ops: Vec<Op>,
    /// The quantize/dequantize casts inserted at segment boundaries (between segments and
    /// inside them).
    pub casts: usize,
}

/// Partitions `func`: prepares the context for the targets, lets them rewrite it
/// ([`Setup::rewrite`]), plans, and outlines every segment into a `target.segment`. On error
/// nothing has changed but the targets' rewrites, which compute the same.
pub fn partition_function(
    ctx: &mut Context,
    func: Op,
    setup: &Setup<'_>,
) -> Result<Partitioned, Vec<Diagnostic>> {
    setup.prepare(ctx);
    setup.rewrite(ctx, func)?;
    let plan = plan(ctx, func, setup)?;
    let all = setup.all_targets();
    let (segment_ops, casts) = outline(ctx, &plan, &all).map_err(|d| vec![d])?;
    Ok(Partitioned {
        plan,
        segment_ops,
        casts,
    })
}

#[cfg(test)]
mod tests;
