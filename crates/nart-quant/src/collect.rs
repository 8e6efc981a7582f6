//! The calibration driver: runs the float function over a calibration set in the reference
//! interpreter, with an [`Observer`] that sees every intermediate tensor, and records the range
//! the calibrator picks for each float value in the IR.
//!
//! Statistics take one pass over the data for every calibrator: the histogram calibrators'
//! magnitude histograms have an upper end that is a power of two and doubles, merging pairs of
//! bins, whenever a larger value comes ([`Histogram::observe`]), which is exact; at the end the
//! bins above the largest value are dropped ([`Histogram::finish`]). The histograms have twice
//! the bins asked for, so that more than that many cover the data.
//! With `per_channel`, each value of rank 2 or more also gets statistics per index of
//! dimension 1 (what per-channel activation schemes need).
//!
//! The result lives in the IR, so that it travels with the module through files and pipelines:
//! - an op gets `quant.calibrated = [!quant.calibrated<f32<lo:hi>>, ...]`, one entry per
//!   result (`unit` for results that were not calibrated), and with `per_channel`
//!   `quant.calibrated_channels = [array<f64: lo0, hi0, lo1, hi1, ...>, ...]`;
//! - a function argument gets the same keys in its argument attributes.

use std::collections::{HashMap, HashSet};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nart_dialect_quant::CalibratedQuantizedType;
use nart_interp::{Interpreter, Observer, Val};
use nart_ir::{AttrData, Context, DenseArrayData, NamedAttr, Op, Value, ValueDef};

use crate::batch::BatchPlan;
use crate::calib::{levels_for, Calibrator, Histogram, DEFAULT_BINS};
use crate::dataset::Sample;
use crate::errors::QuantError;
use crate::ir_util;

/// Samples per interpreter run by default: one. Stacking 8 gave the same statistics but no
/// gain on ResNet-18 and cost MobileNetV2 a third more CPU time in page faults of the larger
/// tensors (docs/quantization.md); `nart quantize --calib-batch N` asks for it.
pub const DEFAULT_BATCH: usize = 1;

/// The attribute holding a value's calibrated range.
pub const CALIBRATED: &str = "quant.calibrated";
/// The attribute holding a value's calibrated ranges per channel of dimension 1.
pub const CALIBRATED_CHANNELS: &str = "quant.calibrated_channels";

/// How to calibrate.
#[derive(Clone, Debug)]
pub struct CalibOptions {
    /// The calibrator.
    pub calibrator: Calibrator,
    /// The activation bits the ranges are for (the entropy and MSE calibrators depend on it).
    pub bits: u32,
    /// Also collect ranges per channel of dimension 1.
    pub per_channel: bool,
    /// Histogram bins.
    pub bins: usize,
    /// Show a progress bar on a terminal (hidden when stderr is not one).
    pub progress: bool,
    /// Threads that run samples at once (`None`: one per core).
    pub threads: Option<usize>,
    /// Samples stacked along the batch axis into one interpreter run, where the function
    /// allows it ([`crate::batch`]); 1 runs one sample at a time. The statistics are the same.
    pub batch: usize,
}

impl Default for CalibOptions {
    fn default() -> Self {
        CalibOptions {
            calibrator: Calibrator::MinMax,
            bits: 8,
            per_channel: false,
            bins: DEFAULT_BINS,
            progress: false,
            threads: None,
            batch: DEFAULT_BATCH,
        }
    }
}

/// The statistics of one value.
#[derive(Clone, Debug)]
pub struct ValueStats {
    /// Of the whole tensor.
    pub tensor: Histogram,
    /// Per index of dimension 1 (with `per_channel`).
    pub channels: Vec<Histogram>,
}

/// What calibration found.
#[derive(Clone, Debug, Default)]
pub struct CalibReport {
    /// Samples run.
    pub samples: usize,
    /// Values calibrated.
    pub values: usize,
    /// Per value: its name and chosen range, in IR order.
    pub ranges: Vec<(String, (f64, f64))>,
    /// Samples stacked into one interpreter run, and why not more.
    pub batching: Batching,
}

struct Collector<'a> {
    per_channel: bool,
    /// Histogram bins (0: ranges only).
    bins: usize,
    wanted: &'a HashMap<Value, usize>,
    stats: Vec<Option<ValueStats>>,
    /// In a batched run: the values that must have `rows` rows, and whether one had not.
    check: Option<(&'a HashSet<Value>, usize)>,
    mismatch: bool,
}

impl Observer for Collector<'_> {
    fn observe(&mut self, value: Value, val: &Val) {
        if let Some((batched, rows)) = self.check {
            if batched.contains(&value) {
                let ok = matches!(val, Val::Tensor(t) if t.shape().first() == Some(&rows));
                if !ok {
                    self.mismatch = true;
                }
            }
        }
        let Some(&slot) = self.wanted.get(&value) else {
            return;
        };
        let Val::Tensor(t) = val else {
            return;
        };
        let bins = self.bins;
        let s = self.stats[slot].get_or_insert_with(|| ValueStats {
            tensor: Histogram::empty(bins),
            channels: Vec::new(),
        });
        let per_channel = self.per_channel && t.shape().len() >= 2;
        // f32 tensors (nearly all) are read in place; others through a copy in f64.
        if let Some(data) = t.as_f32() {
            observe_into(s, data, t.shape(), per_channel);
        } else if let Ok(data) = t.to_f64_vec() {
            observe_into(s, &data, t.shape(), per_channel);
        }
    }
}

/// Adds one tensor of `shape` holding `data` (row-major) to `s`: the whole, and with
/// `per_channel` each index of dimension 1.
fn observe_into<T: Copy + Into<f64>>(
    s: &mut ValueStats,
    data: &[T],
    shape: &[usize],
    per_channel: bool,
) {
    s.tensor.observe(data);
    if per_channel {
        let c = shape[1];
        if s.channels.len() != c {
            s.channels = vec![Histogram::empty(s.tensor.bins.len()); c];
        }
        // Row-major: runs of `inner` values belong to one channel, channels cycling.
        let inner: usize = shape[2..].iter().product::<usize>().max(1);
        for (k, run) in data.chunks(inner).enumerate() {
            s.channels[k % c].observe(run);
        }
    }
}

/// The float values of `func` worth calibrating: its float tensor arguments and the float
/// tensor results of its non-constant ops.
pub fn calibrated_values(ctx: &Context, func: Op) -> Vec<Value> {
    let mut out: Vec<Value> = ir_util::func_args(ctx, func)
        .into_iter()
        .filter(|&v| ir_util::is_float_tensor(ctx, ctx.value_type(v)))
        .collect();
    for op in ir_util::body_ops(ctx, func) {
        if nart_ir::interfaces::constant_value(ctx, op).is_some() {
            continue;
        }
        for &r in ctx.results(op) {
            if ir_util::is_float_tensor(ctx, ctx.value_type(r)) {
                out.push(r);
            }
        }
    }
    out
}

fn progress_bar(show: bool, len: usize, what: &str) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} samples ({eta})")
    {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(what.to_string());
    pb
}

/// Runs `func` over `samples` and returns the statistics of each calibrated value.
pub fn collect(
    ctx: &mut Context,
    func: Op,
    samples: &[Sample],
    opts: &CalibOptions,
) -> Result<Vec<(Value, ValueStats)>, QuantError> {
    collect_with_batch(ctx, func, samples, opts).map(|(stats, _)| stats)
}

/// [`collect`], also saying how many samples ran stacked in one interpreter run.
pub fn collect_with_batch(
    ctx: &mut Context,
    func: Op,
    samples: &[Sample],
    opts: &CalibOptions,
) -> Result<(Vec<(Value, ValueStats)>, Batching), QuantError> {
    crate::register(ctx);
    let interp = Interpreter::new(ctx, func).map_err(|e| QuantError::Run {
        sample: "planning".into(),
        error: Box::new(e),
    })?;
    let values = calibrated_values(ctx, func);
    let wanted: HashMap<Value, usize> = values.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    // Twice the bins asked for: a histogram grown to a power of two holds the data in more
    // than half of its bins, so after `finish` more than `opts.bins` bins, each at most
    // `max|x| / opts.bins` wide, cover it (as fine as `opts.bins` bins over exactly
    // `[0, max|x|]`; with only `opts.bins` the entropy search saw half the resolution and
    // picked other thresholds).
    let bins = if opts.calibrator.needs_histogram() {
        2 * opts.bins
    } else {
        0
    };
    let run = Runs {
        interp: &interp,
        samples,
        opts,
        bins,
        wanted: &wanted,
    };
    // Stacked samples where the function keeps the rows of a batch apart (crate::batch);
    // should a batched run fail or show a value without the batch's rows, everything runs
    // again one sample at a time, which also names a failing sample.
    let batch = opts.batch.min(samples.len());
    let rows = crate::batch::rows_per_sample(samples).unwrap_or(0);
    let plan = if batch <= 1 {
        Err(String::new())
    } else if rows == 0 {
        Err("the samples' inputs differ in rows".to_string())
    } else {
        crate::batch::plan(ctx, func)
    };
    let batched = match plan {
        Ok(p) => run
            .all(Some((&p, batch, rows)))
            .map_err(|_| "a batched run failed or lost the batch's rows".to_string()),
        Err(e) => Err(e),
    };
    let (parts, used, why) = match batched {
        Ok(parts) => (parts, batch, None),
        Err(why) => (run.all(None)?, 1, Some(why).filter(|w| !w.is_empty())),
    };
    let mut stats = merge_stats(values.len(), parts);
    for s in stats.iter_mut().flatten() {
        s.tensor.finish();
        for h in &mut s.channels {
            h.finish();
        }
    }
    let stats = values
        .into_iter()
        .zip(stats)
        .filter_map(|(v, s)| s.map(|s| (v, s)))
        .collect();
    Ok((
        stats,
        Batching {
            batch: used,
            why_not: why,
        },
    ))
}

/// How many samples ran stacked in one interpreter run, and why not more.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Batching {
    /// Samples per run (1: one at a time).
    pub batch: usize,
    /// Why samples ran one at a time although more per run were asked for.
    pub why_not: Option<String>,
}

/// What the calibration runs share.
struct Runs<'a> {
    interp: &'a Interpreter,
    samples: &'a [Sample],
    opts: &'a CalibOptions,
    bins: usize,
    wanted: &'a HashMap<Value, usize>,
}

/// Why a batched run gave no statistics.
enum BatchFail {
    /// A run failed (the sample-by-sample runs name the sample).
    Run(QuantError),
    /// A batched value came out without the batch's rows.
    Rows,
}

impl Runs<'_> {
    /// Runs every sample, `batch = (plan, samples per run, rows per sample)` at a time when
    /// given, and returns each thread's statistics.
    ///
    /// Samples run on as many threads as the machine has cores (at most one per run), each
    /// with its own statistics, merged afterwards: ranges by min and max, histograms by
    /// growing both to the wider upper end and adding counts. Both are exact and independent
    /// of the order the samples ran in, so the result is the same on any number of threads.
    fn all(
        &self,
        batch: Option<(&BatchPlan, usize, usize)>,
    ) -> Result<Vec<Vec<Option<ValueStats>>>, QuantError> {
        let samples = self.samples;
        let per_run = batch.map_or(1, |(_, b, _)| b);
        let runs = samples.len().div_ceil(per_run);
        let threads = self
            .opts
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .clamp(1, runs.max(1));
        // Whole runs per thread, so that every batch but the last is full.
        let chunk = (runs.div_ceil(threads) * per_run).max(1);
        let what = format!("calibrating ({})", self.opts.calibrator.name());
        let pb = progress_bar(self.opts.progress, samples.len(), &what);
        let results: Vec<Result<Vec<Option<ValueStats>>, BatchFail>> =
            std::thread::scope(|scope| {
                let handles: Vec<_> = samples
                    .chunks(chunk)
                    .map(|part| {
                        let pb = &pb;
                        scope.spawn(move || self.part(part, batch, pb))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            });
        pb.finish_and_clear();
        // The first failing sample in dataset order is the one reported.
        let mut parts = Vec::with_capacity(results.len());
        for r in results {
            match r {
                Ok(p) => parts.push(p),
                Err(BatchFail::Run(e)) => return Err(e),
                Err(BatchFail::Rows) => {
                    return Err(QuantError::Data(
                        "a batched value lost the batch's rows".into(),
                    ))
                }
            }
        }
        Ok(parts)
    }

    /// Runs the samples of one thread.
    fn part(
        &self,
        part: &[Sample],
        batch: Option<(&BatchPlan, usize, usize)>,
        pb: &ProgressBar,
    ) -> Result<Vec<Option<ValueStats>>, BatchFail> {
        let mut col = Collector {
            per_channel: self.opts.per_channel,
            bins: self.bins,
            wanted: self.wanted,
            stats: vec![None; self.wanted.len()],
            check: None,
            mismatch: false,
        };
        let per_run = batch.map_or(1, |(_, b, _)| b);
        for group in part.chunks(per_run) {
            let inputs = match batch {
                Some((plan, _, rows)) => {
                    col.check = Some((&plan.batched, group.len() * rows));
                    crate::batch::stack(group).ok_or(BatchFail::Rows)?
                }
                None => group[0].inputs.clone(),
            };
            self.interp.run_observed(inputs, &mut col).map_err(|e| {
                BatchFail::Run(QuantError::Run {
                    sample: group[0].name.clone(),
                    error: Box::new(e),
                })
            })?;
            if col.mismatch {
                return Err(BatchFail::Rows);
            }
            pb.inc(group.len() as u64);
        }
        Ok(col.stats)
    }
}

/// Merges the statistics of `n` values that threads collected.
fn merge_stats(n: usize, parts: Vec<Vec<Option<ValueStats>>>) -> Vec<Option<ValueStats>> {
    let mut out: Vec<Option<ValueStats>> = vec![None; n];
    for part in parts {
        for (o, p) in out.iter_mut().zip(part) {
            let Some(p) = p else { continue };
            match o {
                None => *o = Some(p),
                Some(o) => {
                    o.tensor.merge(&p.tensor);
                    if o.channels.len() == p.channels.len() {
                        for (a, b) in o.channels.iter_mut().zip(&p.channels) {
                            a.merge(b);
                        }
                    } else if o.channels.is_empty() {
                        o.channels = p.channels;
                    }
                }
            }
        }
    }
    out
}

fn calibrated_attr(ctx: &mut Context, v: Value, (lo, hi): (f64, f64)) -> nart_ir::Attr {
    let expressed = ctx.element_type(ctx.value_type(v));
    let ty = ctx.dialect_type(CalibratedQuantizedType {
        expressed,
        min: lo.to_bits(),
        max: hi.to_bits(),
    });
    ctx.type_attr(ty)
}

fn channels_attr(ctx: &mut Context, ranges: &[(f64, f64)]) -> nart_ir::Attr {
    let f64t = ctx.float_type(nart_ir::FloatKind::F64);
    let bits = ranges
        .iter()
        .flat_map(|&(lo, hi)| [lo.to_bits(), hi.to_bits()])
        .collect();
    ctx.intern_attr(AttrData::DenseArray {
        elem: f64t,
        data: DenseArrayData::Float(bits),
    })
}

/// Sets `key` in the argument attributes of argument `index` of `func`.
fn set_arg_attr(ctx: &mut Context, func: Op, index: usize, key: &str, value: nart_ir::Attr) {
    let n_args = ir_util::func_args(ctx, func).len();
    let mut dicts: Vec<nart_ir::Attr> = match ctx
        .attr(func, "arg_attrs")
        .map(|a| ctx.attr_data(a).clone())
    {
        Some(AttrData::Array(items)) if items.len() == n_args => items,
        _ => {
            let empty = ctx.dict_attr(Vec::new());
            vec![empty; n_args]
        }
    };
    let mut entries = match ctx.attr_data(dicts[index]).clone() {
        AttrData::Dictionary(e) => e,
        _ => Vec::new(),
    };
    let name = ctx.ident(key);
    entries.retain(|e| e.name != name);
    entries.push(NamedAttr { name, value });
    dicts[index] = ctx.dict_attr(entries);
    let arr = ctx.array_attr(dicts);
    let is_prop = ctx
        .props(func)
        .iter()
        .any(|p| ctx.str(p.name) == "arg_attrs");
    if is_prop {
        ctx.set_prop(func, "arg_attrs", arr);
    } else {
        ctx.set_attr(func, "arg_attrs", arr);
    }
}

/// A value, its range, and optionally its ranges per channel of dimension 1.
pub type Recorded = (Value, (f64, f64), Option<Vec<(f64, f64)>>);

/// Records ranges in the IR (see the module documentation): `ranges` per value, and optionally
/// per-channel ranges.
pub fn record(ctx: &mut Context, func: Op, ranges: &[Recorded]) {
    let mut by_op: HashMap<Op, Vec<(u32, nart_ir::Attr, Option<nart_ir::Attr>)>> = HashMap::new();
    for (v, range, channels) in ranges {
        let attr = calibrated_attr(ctx, *v, *range);
        let ch = channels.as_ref().map(|c| channels_attr(ctx, c));
        match ctx.value_def(*v) {
            ValueDef::BlockArg { index, .. } => {
                set_arg_attr(ctx, func, index as usize, CALIBRATED, attr);
                if let Some(ch) = ch {
                    set_arg_attr(ctx, func, index as usize, CALIBRATED_CHANNELS, ch);
                }
            }
            ValueDef::OpResult { op, index } => {
                by_op.entry(op).or_default().push((index, attr, ch));
            }
        }
    }
    let mut ops: Vec<_> = by_op.into_iter().collect();
    ops.sort_by_key(|(op, _)| op.index());
    for (op, entries) in ops {
        let n = ctx.results(op).len();
        let unit = ctx.unit_attr();
        let mut items = vec![unit; n];
        let mut chans = vec![unit; n];
        let mut any_ch = false;
        for (i, a, c) in entries {
            items[i as usize] = a;
            if let Some(c) = c {
                chans[i as usize] = c;
                any_ch = true;
            }
        }
        let arr = ctx.array_attr(items);
        ctx.set_attr(op, CALIBRATED, arr);
        if any_ch {
            let arr = ctx.array_attr(chans);
            ctx.set_attr(op, CALIBRATED_CHANNELS, arr);
        }
    }
}

/// The attribute `key` recorded for value `v` (its entry for an op result).
fn recorded(ctx: &Context, v: Value, key: &str) -> Option<nart_ir::Attr> {
    match ctx.value_def(v) {
        ValueDef::BlockArg { block, index } => {
            let func = ctx.block_parent_op(block)?;
            let AttrData::Array(items) = ctx.attr_data(ctx.attr(func, "arg_attrs")?) else {
                return None;
            };
            let AttrData::Dictionary(entries) = ctx.attr_data(*items.get(index as usize)?) else {
                return None;
            };
            entries
                .iter()
                .find(|e| ctx.str(e.name) == key)
                .map(|e| e.value)
        }
        ValueDef::OpResult { op, index } => {
            let AttrData::Array(items) = ctx.attr_data(ctx.attr(op, key)?) else {
                return None;
            };
            items.get(index as usize).copied()
        }
    }
}

/// The calibrated range of `v`, if calibration recorded one.
pub fn calibrated_range(ctx: &Context, v: Value) -> Option<(f64, f64)> {
    let ty = ctx.attr_type(recorded(ctx, v, CALIBRATED)?)?;
    let c = ctx.type_as::<CalibratedQuantizedType>(ty)?;
    Some((f64::from_bits(c.min), f64::from_bits(c.max)))
}

/// The calibrated ranges per channel of dimension 1 of `v`, if recorded.
pub fn calibrated_channels(ctx: &Context, v: Value) -> Option<Vec<(f64, f64)>> {
    match ctx.attr_data(recorded(ctx, v, CALIBRATED_CHANNELS)?) {
        AttrData::DenseArray {
            data: DenseArrayData::Float(bits),
            ..
        } => Some(
            bits.chunks(2)
                .filter(|c| c.len() == 2)
                .map(|c| (f64::from_bits(c[0]), f64::from_bits(c[1])))
                .collect(),
        ),
        _ => None,
    }
}

/// Moves the calibration entry of `from` to `to` (a rewrite that replaces the op computing a
/// calibrated value, such as BatchNorm folding, keeps its statistics).
pub fn transfer(ctx: &mut Context, func: Op, from: Value, to: Value) {
    let range = calibrated_range(ctx, from);
    let channels = calibrated_channels(ctx, from);
    if let Some(r) = range {
        record(ctx, func, &[(to, r, channels)]);
    }
}

/// Calibrates `func` over `samples`: collects statistics, picks each value's range with the
/// calibrator and records the ranges in the IR.
pub fn calibrate(
    ctx: &mut Context,
    func: Op,
    samples: &[Sample],
    opts: &CalibOptions,
) -> Result<CalibReport, QuantError> {
    if samples.is_empty() {
        return Err(QuantError::Data(
            "the calibration set has no samples".into(),
        ));
    }
    let (stats, batching) = collect_with_batch(ctx, func, samples, opts)?;
    let mut ranges = Vec::with_capacity(stats.len());
    let mut report = CalibReport {
        samples: samples.len(),
        values: stats.len(),
        ranges: Vec::new(),
        batching,
    };
    let pick = |h: &Histogram| {
        let h = if h.min > h.max {
            Histogram::new(0.0, 0.0, 0)
        } else {
            h.clone()
        };
        opts.calibrator.range(&h, levels_for(opts.bits, &h))
    };
    // The threshold searches (entropy's is quadratic in the bins) run on every core, each
    // value on its own; the results come back in value order.
    type Picked = ((f64, f64), Option<Vec<(f64, f64)>>);
    let threads = opts
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, stats.len().max(1));
    let chunk = stats.len().div_ceil(threads).max(1);
    let picked: Vec<Picked> = std::thread::scope(|scope| {
        let handles: Vec<_> = stats
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(_, s)| {
                            let ch = (!s.channels.is_empty())
                                .then(|| s.channels.iter().map(pick).collect());
                            (pick(&s.tensor), ch)
                        })
                        .collect::<Vec<Picked>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    for ((v, _), (r, ch)) in stats.iter().zip(picked) {
        report.ranges.push((ir_util::describe_value(ctx, *v), r));
        ranges.push((*v, r, ch));
    }
    record(ctx, func, &ranges);
    Ok(report)
}
