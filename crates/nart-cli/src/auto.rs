//! `--targets auto [--goal latency|memory]` ("hidden switching"): nart picks the targets.
//!
//! The candidates are placements the partitioner would make for preference lists built from
//! the targets available here ([`nart_target::Target::availability`]): `interp` alone, each
//! other available target before `interp`, and all of them together (in registration
//! order). A target that wants a quantization scheme is a candidate only with calibration
//! data (`--calib`); the model is then quantized with its scheme. Each candidate is planned
//! on its own copy of the function, after its targets' rewrites (as compiling for it would
//! place the ops; nothing is compiled), and estimated with the targets' own cost models: latency is the sum
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
    /// What measuring found, when the candidates were measured ([`measure`]).
    pub measured: Option<Measurement>,
}

/// One candidate, compiled, loaded and run.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Ops per target in the compiled package (the placement of the model as compiled, which
    /// may differ from the plan at dims 1 the estimates use).
    pub ops: BTreeMap<String, usize>,
    /// Segments in the compiled package.
    pub segments: usize,
    /// Seconds per run, as the [`Timer`] reported it (the wall clock: the median).
    pub seconds: f64,
    /// The peak bytes loading the package and running it once held, as
    /// [`Timer::peak_bytes`] measured them ([`crate::memory::measure_peak`]); where nothing
    /// measured them, the package's bytes (its artifacts hold the weights) plus the
    /// activations the targets' memory models plan ([`Candidate::bytes`] less the weights).
    pub bytes: f64,
    /// Whether `bytes` was measured.
    pub bytes_measured: bool,
}

/// A candidate compiled and loaded, ready to be timed.
pub struct Compiled {
    /// The package's bytes.
    pub bytes: usize,
    /// Ops per target.
    pub ops: BTreeMap<String, usize>,
    /// Segments.
    pub segments: usize,
    /// Runs the package once on random inputs of its manifest's shapes.
    pub run: Box<dyn FnMut() -> Result<()>>,
    /// Loads the package into a new session and runs it once (the session is dropped after).
    pub load_and_run: Box<dyn FnMut() -> Result<()>>,
}

/// What a measured `--targets auto` measures each candidate with: `seconds(targets, run)`
/// calls `run` (one run of the package compiled for `targets`, on random inputs of its
/// manifest's shapes) as often as it likes and returns the seconds of one run;
/// `peak_bytes(targets, load_and_run)` returns the peak bytes one load and run held, or
/// `None` where it cannot tell. Tests inject a fake one, so that what is chosen does not
/// depend on the machine's load.
pub trait Timer {
    /// The seconds of one run of the candidate `targets`.
    fn seconds(&mut self, targets: &[String], run: &mut dyn FnMut() -> Result<()>) -> Result<f64>;

    /// The peak bytes loading and running the candidate `targets` once held (`None`: not
    /// measured, and the candidate's memory is its package's bytes plus the estimated
    /// activations).
    fn peak_bytes(
        &mut self,
        _targets: &[String],
        _load_and_run: &mut dyn FnMut() -> Result<()>,
    ) -> Result<Option<f64>> {
        Ok(None)
    }
}

/// The wall clock: one untimed run (it touches every page), then the median of `runs` timed
/// runs.
#[derive(Clone, Copy, Debug)]
pub struct WallClock {
    /// Timed runs per candidate.
    pub runs: usize,
}

impl Timer for WallClock {
    fn seconds(&mut self, _: &[String], run: &mut dyn FnMut() -> Result<()>) -> Result<f64> {
        run()?;
        let mut times = (0..self.runs.max(1))
            .map(|_| {
                let t = std::time::Instant::now();
                run().map(|()| t.elapsed().as_secs_f64())
            })
            .collect::<Result<Vec<f64>>>()?;
        times.sort_by(f64::total_cmp);
        Ok(times[times.len() / 2])
    }

    /// [`crate::memory::measure_peak`] of the load and run: `None` without the counting
    /// allocator (a program other than the `nart` binary).
    fn peak_bytes(
        &mut self,
        _: &[String],
        load_and_run: &mut dyn FnMut() -> Result<()>,
    ) -> Result<Option<f64>> {
        let (r, peak) = crate::memory::measure_peak(load_and_run);
        r?;
        Ok(peak.map(|b| b as f64))
    }
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
    /// The goal.
    pub goal: Goal,
    /// The index of the chosen candidate.
    pub chosen: usize,
    /// The bytes of the model's weights (counted once in every candidate's estimate).
    pub weights: f64,
    /// Why targets were left out.
    pub notes: Vec<String>,
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
        measured: None,
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
    let mut lists: Vec<Vec<String>> = vec![Vec::new()];
    lists.extend(usable.iter().map(|t| vec![t.clone()]));
    if usable.len() >= 2 {
        lists.push(usable.clone());
    }
    let weights = weight_bytes(ctx, func);
    let candidates = lists
        .iter()
        .map(|l| {
            // Each candidate is planned on its own copy of the function, rewritten by its
            // targets first as compiling for it would (`Target::rewrite`: onednn's GELU has no
            // Erf left for interp).
            let copy = ctx.clone_op(func, &mut nart_ir::IrMapping::default());
            Setup::resolve(registry, l, &[])?
                .rewrite(ctx, copy)
                .map_err(|d| anyhow!("cannot rewrite for {}: {}", l.join(","), d[0].message))?;
            at_size_one(ctx, copy);
            estimate(ctx, copy, registry, l, weights)
        })
        .collect::<Result<Vec<_>>>()?;
    let best = pick(&candidates, goal);
    let mut d = Decision {
        targets: candidates[best].targets.clone(),
        scheme: None,
        candidates,
        report: String::new(),
        goal,
        chosen: best,
        weights,
        notes,
    };
    d.finish(registry);
    Ok(d)
}

/// The (time, bytes) of `c`: measured when it was, else estimated.
fn figures(c: &Candidate) -> (f64, f64) {
    match &c.measured {
        Some(m) => (m.seconds, m.bytes),
        None => (c.seconds, c.bytes),
    }
}

/// The segments of `c`: as compiled when it was measured, else as planned.
fn segments(c: &Candidate) -> usize {
    c.measured.as_ref().map_or(c.segments, |m| m.segments)
}

/// The best candidate for `goal`: the smallest measure of the goal, then of the other, then
/// the fewest segments, then the first considered (so equal figures always pick the same).
fn pick(candidates: &[Candidate], goal: Goal) -> usize {
    let key = |c: &Candidate| {
        let (t, b) = figures(c);
        match goal {
            Goal::Latency => (t, b),
            Goal::Memory => (b, t),
        }
    };
    (0..candidates.len())
        .min_by(|&a, &b| {
            let (ka, kb) = (key(&candidates[a]), key(&candidates[b]));
            ka.partial_cmp(&kb)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(segments(&candidates[a]).cmp(&segments(&candidates[b])))
                .then(a.cmp(&b))
        })
        .expect("invariant: interp alone is always a candidate")
}

impl Decision {
    /// Sets the chosen targets, the scheme they want and the report from `candidates` and
    /// `chosen`.
    fn finish(&mut self, registry: &TargetRegistry) {
        let (goal, best, candidates) = (self.goal, self.chosen, &self.candidates);
        let measured = candidates.iter().all(|c| c.measured.is_some());
        let chosen = &candidates[best];
        let scheme = chosen
            .targets
            .iter()
            .filter_map(|n| registry.lookup(n).and_then(|t| t.quant_scheme()))
            .next()
            .map(str::to_string);
        let mut report = if measured {
            format!(
                "--targets auto, goal {} (measured: each candidate compiled and run here, dynamic dims at 1):\n",
                goal.name()
            )
        } else {
            format!(
                "--targets auto, goal {} (estimated, dynamic dims at 1):\n",
                goal.name()
            )
        };
        let rows: Vec<Vec<String>> = candidates
            .iter()
            .enumerate()
            .map(|(i, c)| {
                // Measured, the placement shown is the compiled package's.
                let ops = c.measured.as_ref().map_or(&c.ops, |m| &m.ops);
                let mut row = vec![
                    c.targets.join(","),
                    ops.iter()
                        .map(|(t, n)| format!("{t} {n}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    segments(c).to_string(),
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
                ];
                if let Some(m) = &c.measured {
                    row.push(human_seconds(m.seconds));
                    row.push(human_bytes(m.bytes));
                }
                row.push(if i == best {
                    "chosen".into()
                } else {
                    String::new()
                });
                row
            })
            .collect();
        let mut header = vec![
            "candidate",
            "ops",
            "segments",
            "est. latency",
            "est. memory",
        ];
        if measured {
            let peak = candidates
                .iter()
                .all(|c| c.measured.as_ref().is_some_and(|m| m.bytes_measured));
            header.extend(["latency", if peak { "peak memory" } else { "package+act." }]);
        }
        header.push("");
        report.push_str(&crate::partition::table(&header, &rows));
        let key = |c: &Candidate| {
            let (t, b) = figures(c);
            match goal {
                Goal::Latency => t,
                Goal::Memory => b,
            }
        };
        // The runner-up places the ops differently: a list that compiles to the same placement
        // is no alternative.
        fn placement(c: &Candidate) -> (&BTreeMap<String, usize>, usize) {
            (c.measured.as_ref().map_or(&c.ops, |m| &m.ops), segments(c))
        }
        let runner_up = (0..candidates.len())
            .filter(|&i| i != best && placement(&candidates[i]) != placement(chosen))
            .min_by(|&a, &b| {
                key(&candidates[a])
                    .partial_cmp(&key(&candidates[b]))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
        let measure = |c: &Candidate| match goal {
            Goal::Latency => human_seconds(key(c)),
            Goal::Memory => human_bytes(key(c)),
        };
        let _ = write!(
            report,
            "chose {} for {}: {} {}",
            chosen.targets.join(","),
            goal.name(),
            if measured { "measured" } else { "estimated" },
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
            None if candidates.len() == 1 => report.push_str(" (the only candidate)\n"),
            None => report.push_str(" (every candidate places the ops the same way)\n"),
        }
        if let Some(s) = &scheme {
            let _ = writeln!(
                report,
                "quantizing with scheme {s}, which a chosen target wants"
            );
        }
        for n in &self.notes {
            let _ = writeln!(report, "  {n}");
        }
        self.targets = chosen.targets.clone();
        self.scheme = scheme;
        self.report = report;
    }
}

/// Measures every candidate of `d` and chooses again by what was measured: `run_candidate`
/// compiles and loads the candidate (its preference list and the scheme it wants) and returns
/// the package's bytes and a closure running it once; `timer` times that closure. The report
/// gets the measured columns.
pub fn measure(
    mut d: Decision,
    registry: &TargetRegistry,
    timer: &mut dyn Timer,
    mut run_candidate: impl FnMut(&[String], Option<String>) -> Result<Compiled>,
) -> Result<Decision> {
    for i in 0..d.candidates.len() {
        let (done, rest) = d.candidates.split_at_mut(i);
        let c = &mut rest[0];
        let scheme = c
            .targets
            .iter()
            .filter_map(|n| registry.lookup(n).and_then(|t| t.quant_scheme()))
            .next()
            .map(str::to_string);
        let mut compiled = run_candidate(&c.targets, scheme)
            .map_err(|e| anyhow!("measuring candidate {}: {e}", c.targets.join(",")))?;
        // A placement measured already (the same ops on the same targets in the same
        // segments) is not timed again: the same package would only add the machine's noise.
        let same = done.iter().find_map(|p| {
            p.measured
                .as_ref()
                .filter(|m| m.ops == compiled.ops && m.segments == compiled.segments)
        });
        let failed = |e: anyhow::Error| anyhow!("measuring candidate {}: {e}", c.targets.join(","));
        let (seconds, peak) = match same {
            Some(m) => (m.seconds, m.bytes_measured.then_some(m.bytes)),
            None => (
                timer
                    .seconds(&c.targets, &mut *compiled.run)
                    .map_err(failed)?,
                timer
                    .peak_bytes(&c.targets, &mut *compiled.load_and_run)
                    .map_err(failed)?,
            ),
        };
        c.measured = Some(Measurement {
            ops: compiled.ops,
            segments: compiled.segments,
            seconds,
            bytes: peak.unwrap_or(compiled.bytes as f64 + (c.bytes - d.weights).max(0.0)),
            bytes_measured: peak.is_some(),
        });
    }
    d.chosen = pick(&d.candidates, d.goal);
    d.finish(registry);
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(name: &str, segments: usize, seconds: f64, bytes: f64) -> Candidate {
        Candidate {
            targets: vec![name.to_string()],
            ops: BTreeMap::new(),
            segments,
            seconds: 1.0,
            bytes: 1.0,
            unknown: 0,
            measured: Some(Measurement {
                ops: BTreeMap::new(),
                segments,
                seconds,
                bytes,
                bytes_measured: true,
            }),
        }
    }

    #[test]
    fn ties_go_to_the_other_measure_then_fewer_segments_then_the_first() {
        let c = [
            candidate("a", 2, 1e-3, 100.0),
            candidate("b", 1, 1e-3, 100.0),
            candidate("c", 1, 1e-3, 100.0),
            candidate("d", 3, 1e-3, 90.0),
        ];
        // Latency: all equal; memory decides (d).
        assert_eq!(pick(&c, Goal::Latency), 3);
        // Without d: fewer segments (b and c), then the first (b).
        assert_eq!(pick(&c[..3], Goal::Latency), 1);
        assert_eq!(pick(&c[..3], Goal::Memory), 1);
        // The measurements, not the estimates, decide.
        let mut e = c[..2].to_vec();
        e[0].seconds = 0.0;
        assert_eq!(pick(&e, Goal::Latency), 1);
    }
}
