//! `--targets auto [--goal latency|memory]` ("hidden switching"): nart picks the targets.
//!
//! The candidates are placements the partitioner would make for preference lists built from
//! the targets available here ([`nart_target::Target::availability`]): `interp` alone, each
//! other available target before `interp`, and all of them together (in registration
//! order). A target that wants a quantization scheme is a candidate only with calibration
//! data (`--calib`); the model is then quantized with its scheme. Each candidate is planned
//! (nothing is compiled) and estimated with the targets' own cost models: latency is the sum
//! of [`Target::cost`](nart_target::Target::cost) over the ops (an op without an estimate
//! counts its target's per-op overhead and is reported) plus each segment's overhead; memory
//! is the weights once plus each segment's
//! [`memory_bytes`](nart_target::Target::memory_bytes). The goal picks the smallest (ties:
//! the other measure, then fewer segments); the table of every candidate and the reason are
//! printed and stored in the package's notes.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use anyhow::{anyhow, Result};
use nart_ir::{Context, Op, Trait, TypeData};
use nart_target::{value_bytes, Setup, TargetRegistry};

/// What `--targets auto` optimizes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Goal {
    /// The estimated time of one run.
    #[default]
    Latency,
    /// The estimated bytes held while running.
    Memory,
}

impl Goal {
    /// `latency` or `memory`.
    pub fn name(self) -> &'static str {
        match self {
            Goal::Latency => "latency",
            Goal::Memory => "memory",
        }
    }
}

/// Whether a `--targets` list asks for `auto`; `auto` with other names is an error.
pub fn is_auto(targets: &[String]) -> Result<bool> {
    let auto = targets.iter().any(|t| t.trim() == "auto");
    if auto && targets.len() != 1 {
        return Err(anyhow!(
            "--targets auto picks the targets itself; give it alone, not with {}",
            targets
                .iter()
                .filter(|t| t.trim() != "auto")
                .cloned()
                .collect::<Vec<_>>()
                .join(",")
        ));
    }
    Ok(auto)
}

/// One placement considered.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The preference list (`interp` last).
    pub targets: Vec<String>,
    /// Ops per target.
    pub ops: BTreeMap<String, usize>,
    /// Segments.
    pub segments: usize,
    /// Estimated seconds per run.
    pub seconds: f64,
    /// Estimated bytes (weights once, plus what each segment holds).
    pub bytes: f64,
    /// Ops whose cost could not be estimated.
    pub unknown: usize,
}

/// What `auto` chose, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The chosen preference list.
    pub targets: Vec<String>,
    /// The quantization scheme a chosen target wants, if any.
    pub scheme: Option<String>,
    /// Every candidate, in the order considered.
    pub candidates: Vec<Candidate>,
    /// The table and the reason, as printed.
    pub report: String,
}

fn human_seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.1} us", s * 1e6)
    }
}

fn human_bytes(b: f64) -> String {
    if b >= 1048576.0 {
        format!("{:.2} MiB", b / 1048576.0)
    } else if b >= 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{b} B")
    }
}

/// Sets each dynamic dim of `func`'s arguments to 1 and propagates the shapes through its ops
/// (on scratch IR), so that the cost models, which need static shapes, can estimate one run at
/// batch 1.
fn at_size_one(ctx: &mut Context, func: Op) {
    let Some(&body) = ctx.region_blocks(ctx.region(func, 0)).first() else {
        return;
    };
    for a in ctx.block_args(body).to_vec() {
        if let TypeData::RankedTensor { shape, elem, .. } = ctx.type_data(ctx.value_type(a)).clone()
        {
            if shape.iter().any(|&d| d < 0) {
                let shape = shape.iter().map(|&d| if d < 0 { 1 } else { d }).collect();
                let t = ctx.tensor_type(shape, elem);
                ctx.set_value_type(a, t);
            }
        }
    }
    for op in ctx.block_ops(body).to_vec() {
        let Ok(Some(results)) = nart_dialect_graph::infer::infer(ctx, op) else {
            continue;
        };
        for (r, s) in ctx.results(op).to_vec().into_iter().zip(results) {
            if let Some(s) = s {
                let t = nart_dialect_graph::infer::refine(ctx, ctx.value_type(r), &s);
                ctx.set_value_type(r, t);
            }
        }
    }
}

/// The bytes of the constants the function's ops read, each once.
fn weight_bytes(ctx: &Context, func: Op) -> f64 {
    let mut seen = HashSet::new();
    let mut total = 0.0;
    for op in ctx.collect_ops(func, nart_ir::WalkOrder::PreOrder) {
        if ctx.op_has_trait(op, Trait::ConstantLike) && seen.insert(op) {
            for &r in ctx.results(op) {
                total += value_bytes(ctx, r).unwrap_or(0.0);
            }
        }
    }
    total
}

/// Plans and estimates `targets` on `func`.
fn estimate(
    ctx: &Context,
    func: Op,
    registry: &TargetRegistry,
    targets: &[String],
    weights: f64,
) -> Result<Candidate> {
    let setup = Setup::resolve(registry, targets, &[])?;
    let plan = nart_target::plan(ctx, func, &setup)
        .map_err(|d| anyhow!("cannot plan {}: {}", targets.join(","), d[0].message))?;
    let mut c = Candidate {
        targets: setup
            .preferred
            .iter()
            .map(|t| t.name().to_string())
            .collect(),
        ops: BTreeMap::new(),
        segments: plan.segments.len(),
        seconds: 0.0,
        bytes: weights,
        unknown: 0,
    };
    for p in &plan.ops {
        let t = registry.get(&p.target)?;
        *c.ops.entry(p.target.clone()).or_default() += 1;
        match t.cost(ctx, p.op) {
            Some(cost) => c.seconds += cost.seconds,
            None => {
                c.unknown += 1;
                c.seconds += t.throughput().op_overhead_s;
            }
        }
    }
    for s in &plan.segments {
        let t = registry.get(&s.target)?;
        c.seconds += t.throughput().segment_overhead_s;
        c.bytes += t.memory_bytes(ctx, &s.ops).unwrap_or(0.0);
    }
    Ok(c)
}

/// Chooses the targets for `func` (a graph function of `ctx`) among those of `registry`.
/// `can_quantize` says whether calibration data was given. The function's dynamic dims are
/// set to 1 (the estimates are for one run at batch 1), so `ctx` is scratch IR afterwards.
pub fn decide(
    ctx: &mut Context,
    func: Op,
    registry: &TargetRegistry,
    goal: Goal,
    can_quantize: bool,
) -> Result<Decision> {
    let mut notes = Vec::new();
    let mut usable = Vec::new();
    for t in registry.targets() {
        if t.name() == nart_target::interp::NAME {
            continue;
        }
        if let Err(why) = t.availability() {
            notes.push(format!("{}: unavailable ({why})", t.name()));
            continue;
        }
        if let Some(s) = t.quant_scheme() {
            if !can_quantize {
                notes.push(format!(
                    "{}: not considered, it wants scheme {s} and there is no --calib data",
                    t.name()
                ));
                continue;
            }
        }
        usable.push(t.name().to_string());
    }
    for t in registry.targets() {
        t.prepare(ctx);
    }
    at_size_one(ctx, func);
    let mut lists: Vec<Vec<String>> = vec![Vec::new()];
    lists.extend(usable.iter().map(|t| vec![t.clone()]));
    if usable.len() >= 2 {
        lists.push(usable.clone());
    }
    let weights = weight_bytes(ctx, func);
    let candidates = lists
        .iter()
        .map(|l| estimate(ctx, func, registry, l, weights))
        .collect::<Result<Vec<_>>>()?;
    let key = |c: &Candidate| match goal {
        Goal::Latency => (c.seconds, c.bytes),
        Goal::Memory => (c.bytes, c.seconds),
    };
    let best = (0..candidates.len())
        .min_by(|&a, &b| {
            let (ka, kb) = (key(&candidates[a]), key(&candidates[b]));
            ka.partial_cmp(&kb)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(candidates[a].segments.cmp(&candidates[b].segments))
        })
        .expect("invariant: interp alone is always a candidate");
    let chosen = &candidates[best];
    let scheme = chosen
        .targets
        .iter()
        .filter_map(|n| registry.lookup(n).and_then(|t| t.quant_scheme()))
        .next()
        .map(str::to_string);

    let mut report = format!(
        "--targets auto, goal {} (estimated, dynamic dims at 1):\n",
        goal.name()
    );
    let rows: Vec<[String; 6]> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            [
                c.targets.join(","),
                c.ops
                    .iter()
                    .map(|(t, n)| format!("{t} {n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                c.segments.to_string(),
                format!(
                    "{}{}",
                    human_seconds(c.seconds),
                    if c.unknown > 0 {
                        format!(" ({} ops unestimated)", c.unknown)
                    } else {
                        String::new()
                    }
                ),
                human_bytes(c.bytes),
                if i == best {
                    "chosen".into()
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    report.push_str(&crate::partition::table(
        &[
            "candidate",
            "ops",
            "segments",
            "est. latency",
            "est. memory",
            "",
        ],
        &rows,
    ));
    let runner_up = (0..candidates.len())
        .filter(|&i| i != best)
        .min_by(|&a, &b| {
            key(&candidates[a])
                .partial_cmp(&key(&candidates[b]))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    let measure = |c: &Candidate| match goal {
        Goal::Latency => human_seconds(c.seconds),
        Goal::Memory => human_bytes(c.bytes),
    };
    let _ = write!(
        report,
        "chose {} for {}: estimated {}",
        chosen.targets.join(","),
        goal.name(),
        measure(chosen)
    );
    match runner_up {
        Some(r) => {
            let _ = writeln!(
                report,
                " against {} for {}",
                measure(&candidates[r]),
                candidates[r].targets.join(",")
            );
        }
        None => report.push_str(" (the only candidate)\n"),
    }
    if let Some(s) = &scheme {
        let _ = writeln!(
            report,
            "quantizing with scheme {s}, which a chosen target wants"
        );
    }
    for n in notes {
        let _ = writeln!(report, "  {n}");
    }
    Ok(Decision {
        targets: chosen.targets.clone(),
        scheme,
        candidates,
        report,
    })
}
