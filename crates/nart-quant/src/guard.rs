//! The accuracy guard: the float and the quantized function run side by side on an evaluation
//! set in the reference interpreter, and their outputs and intermediate values are compared.
//!
//! - Per output: SQNR (signal to quantization noise ratio, dB) and cosine similarity of the
//!   quantized output against the float one, over every element of every sample.
//! - With labels: top-1 of both runs on the first output (argmax over its last axis, one row per
//!   label), and the drop in points.
//! - Per layer: for every op that computes on dequantized values (`quant.dcast` results, or
//!   `graph.Cast` back from `f16`/`bf16` for the float-cast schemes) and every op kept in float by
//!   an override, the SQNR and cosine of its output in the quantized run against the op of the
//!   same name in the float run; where the op's output (through an activation fused into it) is
//!   quantized again, the dequantized value is the one compared, as the next op sees it.
//!   Both runs are observed through the interpreter's [`Observer`].
//!
//! [`Limits`] say what must hold (a top-1 drop in points, an SQNR floor in dB); [`check`] lists
//! what does not. [`fallback_plan`] orders the layers for `--auto-fallback`.

use std::collections::HashMap;
use std::path::Path;

use nart_interp::{Interpreter, Observer, Val};
use nart_ir::{Context, FloatKind, Op, Type, TypeData, Value};
use nart_tensor::{DType, Tensor};

use crate::dataset::{self, Sample};
use crate::errors::QuantError;
use crate::ir_util;

fn eval_err(msg: String) -> QuantError {
    QuantError::Eval(msg)
}

// ----- the math -----

/// Running sums for comparing a quantized signal with its float reference.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Compare {
    /// `Σ r²` of the reference.
    pub signal: f64,
    /// `Σ (r - q)²`.
    pub noise: f64,
    /// `Σ r·q`.
    pub dot: f64,
    /// `Σ q²`.
    pub quant: f64,
    /// Elements compared.
    pub count: usize,
    /// Elements where either side was NaN or infinite (they count as noise: SQNR is -inf).
    pub nonfinite: usize,
}

impl Compare {
    /// Adds the elements of `reference` and `quant` (the same length).
    pub fn add(&mut self, reference: &[f64], quant: &[f64]) {
        for (&r, &q) in reference.iter().zip(quant) {
            self.count += 1;
            if !r.is_finite() || !q.is_finite() {
                self.nonfinite += 1;
                continue;
            }
            let d = r - q;
            self.signal += r * r;
            self.noise += d * d;
            self.dot += r * q;
            self.quant += q * q;
        }
    }

    /// `10·log10(Σr² / Σ(r-q)²)`: `+inf` when the two are equal, `-inf` when the reference is
    /// all zero but the quantized signal is not, or when a value is not finite.
    pub fn sqnr_db(&self) -> f64 {
        if self.nonfinite > 0 {
            return f64::NEG_INFINITY;
        }
        if self.noise == 0.0 {
            return f64::INFINITY;
        }
        if self.signal == 0.0 {
            return f64::NEG_INFINITY;
        }
        10.0 * (self.signal / self.noise).log10()
    }

    /// `Σr·q / (|r|·|q|)`: 1 when both are all zero, 0 when exactly one is, NaN-free.
    pub fn cosine(&self) -> f64 {
        if self.nonfinite > 0 {
            return 0.0;
        }
        match (self.signal == 0.0, self.quant == 0.0) {
            (true, true) => 1.0,
            (true, false) | (false, true) => 0.0,
            _ => (self.dot / (self.signal.sqrt() * self.quant.sqrt())).clamp(-1.0, 1.0),
        }
    }
}

/// The SQNR in dB of `quant` against `reference` (see [`Compare::sqnr_db`]).
pub fn sqnr_db(reference: &[f64], quant: &[f64]) -> f64 {
    let mut c = Compare::default();
    c.add(reference, quant);
    c.sqnr_db()
}

/// The cosine similarity of `a` and `b` (see [`Compare::cosine`]).
pub fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let mut c = Compare::default();
    c.add(a, b);
    c.cosine()
}

/// The index of the largest element of each row of `row_len` elements (the first on ties, as
/// NumPy's `argmax`; NaN is never the largest unless the row is all NaN).
pub fn argmax_rows(data: &[f64], row_len: usize) -> Vec<usize> {
    if row_len == 0 {
        return Vec::new();
    }
    data.chunks(row_len)
        .map(|row| {
            let mut best: Option<usize> = None;
            for (i, &x) in row.iter().enumerate() {
                if !x.is_nan() && best.is_none_or(|b| x > row[b]) {
                    best = Some(i);
                }
            }
            best.unwrap_or(0)
        })
        .collect()
}

/// How many predictions equal their label.
pub fn correct(predictions: &[usize], labels: &[i64]) -> usize {
    predictions
        .iter()
        .zip(labels)
        .filter(|(&p, &l)| p as i64 == l)
        .count()
}

// ----- the data -----

/// Class labels for the evaluation set.
#[derive(Clone, Debug)]
pub struct Labels {
    /// The file, for messages.
    pub source: String,
    /// One class index per output row.
    pub classes: Vec<i64>,
}

/// Reads labels from a `.npy` or `.pb` file: integer class indices, shape `[N]` or `[N, 1]`.
pub fn read_labels(path: &Path) -> Result<Labels, QuantError> {
    let source = path.display().to_string();
    let t = dataset::read_tensor(path)
        .map_err(|e| eval_err(format!("labels '{source}': cannot read them: {e}")))?;
    let integer = matches!(
        t.dtype(),
        DType::I8
            | DType::I16
            | DType::I32
            | DType::I64
            | DType::U8
            | DType::U16
            | DType::U32
            | DType::U64
    );
    if !integer {
        return Err(eval_err(format!(
            "labels '{source}': element type is {}, labels must be integer class indices \
             (i64, i32, ...)",
            t.dtype()
        )));
    }
    let shape = t.shape();
    let ok = shape.len() == 1 || (shape.len() == 2 && shape[1] == 1);
    if !ok {
        return Err(eval_err(format!(
            "labels '{source}': shape is {shape:?}, labels must be [N] or [N, 1]"
        )));
    }
    if shape[0] == 0 {
        return Err(eval_err(format!("labels '{source}': there are no labels")));
    }
    let classes = t
        .to_i64_vec()
        .map_err(|e| eval_err(format!("labels '{source}': {e}")))?;
    Ok(Labels { source, classes })
}

/// An evaluation set: samples read and checked as calibration data is, and optional labels.
#[derive(Clone, Debug)]
pub struct EvalSet {
    /// Where the samples come from, for messages and reports.
    pub source: String,
    /// The samples.
    pub samples: Vec<Sample>,
    /// The labels.
    pub labels: Option<Labels>,
}

impl EvalSet {
    /// Reads `data` (a folder of sample folders, a sample folder or one batch file, as
    /// [`dataset::load`]) for a function taking `specs`, and the labels if given.
    pub fn load(
        data: &Path,
        labels: Option<&Path>,
        specs: &[nart_interp::InputSpec],
    ) -> Result<EvalSet, QuantError> {
        let samples = dataset::load(data, specs)
            .map_err(|e| eval_err(format!("bad evaluation data in '{}': {e}", data.display())))?;
        let labels = labels.map(read_labels).transpose()?;
        Ok(EvalSet {
            source: data.display().to_string(),
            samples,
            labels,
        })
    }
}

// ----- the evaluation -----

/// How one output compares.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputStats {
    /// The output's name.
    pub name: String,
    /// SQNR in dB.
    pub sqnr_db: f64,
    /// Cosine similarity.
    pub cosine: f64,
}

/// Whether a layer of the quantized function computes on quantized values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerStatus {
    /// It reads dequantized values.
    Quantized,
    /// An override keeps it in float.
    Float,
}

impl LayerStatus {
    /// `quantized` or `float`.
    pub fn name(self) -> &'static str {
        match self {
            LayerStatus::Quantized => "quantized",
            LayerStatus::Float => "float",
        }
    }
}

/// How one layer compares.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerStats {
    /// The op's name (the ONNX node's).
    pub name: String,
    /// The op type (`Conv`).
    pub op: String,
    /// Quantized, or kept in float.
    pub status: LayerStatus,
    /// What was compared: the op's own output (`output`), or the dequantized output of the
    /// activation fused into it (`after Relu 'relu1'`) or of its output's QDQ pair (`after QDQ`).
    pub measured: String,
    /// The activation fused into it (`relu1`), which goes to float with it.
    pub fused: Option<String>,
    /// SQNR in dB.
    pub sqnr_db: f64,
    /// Cosine similarity.
    pub cosine: f64,
}

/// Top-1 of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Top1 {
    /// Rows whose argmax equals the label.
    pub correct: usize,
    /// Rows.
    pub rows: usize,
}

impl Top1 {
    /// In percent.
    pub fn percent(self) -> f64 {
        if self.rows == 0 {
            0.0
        } else {
            100.0 * self.correct as f64 / self.rows as f64
        }
    }
}

/// The result of one comparison of a quantized function with the float one.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Samples run.
    pub samples: usize,
    /// Output rows (of the first output) over all samples.
    pub rows: usize,
    /// Float top-1 (with labels).
    pub top1_float: Option<Top1>,
    /// Quantized top-1 (with labels).
    pub top1_quant: Option<Top1>,
    /// Per output.
    pub outputs: Vec<OutputStats>,
    /// Per layer, worst SQNR first (empty when per-layer statistics were not asked for).
    pub layers: Vec<LayerStats>,
}

impl Evaluation {
    /// The top-1 drop in points (float minus quantized), with labels.
    pub fn top1_drop(&self) -> Option<f64> {
        Some(self.top1_float?.percent() - self.top1_quant?.percent())
    }

    /// The lowest output SQNR.
    pub fn min_output_sqnr(&self) -> f64 {
        self.outputs
            .iter()
            .map(|o| o.sqnr_db)
            .fold(f64::INFINITY, f64::min)
    }
}

/// What must hold.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    /// The most top-1 points the quantized model may lose (needs labels).
    pub max_drop: Option<f64>,
    /// The least output SQNR in dB, for every output.
    pub min_sqnr_db: Option<f64>,
}

/// What does not hold, one sentence each (empty when everything holds).
pub fn check(e: &Evaluation, limits: &Limits) -> Vec<String> {
    let mut out = Vec::new();
    if let (Some(max), Some(drop)) = (limits.max_drop, e.top1_drop()) {
        if drop > max {
            out.push(format!(
                "top-1 drops {drop:.2} points (float {:.2}%, quantized {:.2}%), more than \
                 --max-drop {max}",
                e.top1_float.map_or(0.0, Top1::percent),
                e.top1_quant.map_or(0.0, Top1::percent)
            ));
        }
    }
    if let Some(min) = limits.min_sqnr_db {
        for o in &e.outputs {
            // NaN never passes.
            if o.sqnr_db.is_nan() || o.sqnr_db < min {
                out.push(format!(
                    "output '{}' has SQNR {} dB, less than --min-sqnr {min}",
                    o.name,
                    fmt_db(o.sqnr_db)
                ));
            }
        }
    }
    out
}

/// A dB figure for people: two decimals, `inf` and `-inf` spelled out.
pub fn fmt_db(x: f64) -> String {
    if x == f64::INFINITY {
        "inf".into()
    } else if x == f64::NEG_INFINITY {
        "-inf".into()
    } else {
        format!("{x:.2}")
    }
}

/// One layer to compare: the value observed in each function.
#[derive(Clone, Debug)]
struct LayerProbe {
    name: String,
    op: String,
    status: LayerStatus,
    measured: String,
    fused: Option<String>,
    float_value: Value,
    quant_value: Value,
}

fn is_quant_op(ctx: &Context, op: Op) -> bool {
    ctx.op_name_str(op).starts_with("quant.")
}

fn defined_by(ctx: &Context, v: Value, name: &str) -> Option<Op> {
    match ctx.value_def(v) {
        nart_ir::ValueDef::OpResult { op, .. } if ctx.op_name_str(op) == name => Some(op),
        _ => None,
    }
}

/// Whether `ty` is a tensor of `f16` or `bf16` (the storage of the float-cast schemes).
fn is_small_float(ctx: &Context, ty: Type) -> bool {
    matches!(
        ctx.type_data(ctx.element_type(ty)),
        TypeData::Float(FloatKind::F16 | FloatKind::BF16)
    )
}

/// Whether `v` is a dequantized value: a `quant.dcast` result, or a `graph.Cast` from `f16` or
/// `bf16` (the float-cast schemes' pairs).
fn is_dequantized(ctx: &Context, v: Value) -> bool {
    if defined_by(ctx, v, "quant.dcast").is_some() {
        return true;
    }
    defined_by(ctx, v, "graph.Cast").is_some_and(|c| {
        !is_small_float(ctx, ctx.value_type(v))
            && ctx
                .operands(c)
                .first()
                .is_some_and(|&x| is_small_float(ctx, ctx.value_type(x)))
    })
}

/// The dequantized result of a `qcast -> dcast` pair (or a `Cast` pair through `f16`/`bf16`)
/// reading `v`, if there is one.
fn qdq_after(ctx: &Context, v: Value) -> Option<Value> {
    ctx.uses(v).iter().find_map(|u| {
        let first = ctx.op_name_str(u.op);
        let cast_pair =
            first == "graph.Cast" && is_small_float(ctx, ctx.value_type(ctx.result(u.op, 0)));
        if first != "quant.qcast" && !cast_pair {
            return None;
        }
        let q = ctx.result(u.op, 0);
        ctx.uses(q)
            .iter()
            .map(|d| ctx.result(d.op, 0))
            .find(|&r| is_dequantized(ctx, r))
    })
}

fn short_type(ctx: &Context, op: Op) -> String {
    let n = ctx.op_name_str(op);
    n.split_once('.').map_or(n, |(_, t)| t).to_string()
}

/// Named ops of `func` by name, for names that name one op. The float-cast schemes give their
/// `graph.Cast` pairs the name of the op they serve, so a name shared by casts and one other op
/// is that op's.
fn ops_by_name(ctx: &Context, func: Op) -> HashMap<String, Op> {
    let mut seen: HashMap<String, Vec<Op>> = HashMap::new();
    for op in ir_util::body_ops(ctx, func) {
        if is_quant_op(ctx, op) || nart_ir::interfaces::constant_value(ctx, op).is_some() {
            continue;
        }
        if let Some(name) = ir_util::op_name(ctx, op) {
            seen.entry(name).or_default().push(op);
        }
    }
    seen.into_iter()
        .filter_map(|(name, ops)| {
            let not_casts: Vec<Op> = ops
                .iter()
                .copied()
                .filter(|&o| ctx.op_name_str(o) != "graph.Cast")
                .collect();
            match (ops.as_slice(), not_casts.as_slice()) {
                ([only], _) | (_, [only]) => Some((name, *only)),
                _ => None,
            }
        })
        .collect()
}

/// The layers to compare: every op of `quant_func` that reads a dequantized value, or is named
/// in `kept_float`, and has a float tensor result and a namesake in `float_func`.
fn probes(ctx: &Context, float_func: Op, quant_func: Op, kept_float: &[String]) -> Vec<LayerProbe> {
    let float_ops = ops_by_name(ctx, float_func);
    let quant_ops = ops_by_name(ctx, quant_func);
    let mut out = Vec::new();
    for op in ir_util::body_ops(ctx, quant_func) {
        let Some(name) = ir_util::op_name(ctx, op) else {
            continue;
        };
        if quant_ops.get(&name) != Some(&op) {
            continue;
        }
        let Some(&fop) = float_ops.get(&name) else {
            continue;
        };
        let reads_dq = ctx.operands(op).iter().any(|&v| is_dequantized(ctx, v));
        let status = if kept_float.contains(&name) {
            LayerStatus::Float
        } else if reads_dq {
            LayerStatus::Quantized
        } else {
            continue;
        };
        let (Some(&qv), Some(&fv)) = (ctx.results(op).first(), ctx.results(fop).first()) else {
            continue;
        };
        if !ir_util::is_float_tensor(ctx, ctx.value_type(qv)) {
            continue;
        }
        // The value as the next op sees it: through a fused activation and the output's QDQ pair.
        let mut probe = LayerProbe {
            name: name.clone(),
            op: short_type(ctx, op),
            status,
            measured: "output".into(),
            fused: None,
            float_value: fv,
            quant_value: qv,
        };
        if let Some(dq) = qdq_after(ctx, qv) {
            probe.measured = "after QDQ".into();
            probe.quant_value = dq;
        } else if let [u] = ctx.uses(qv) {
            let act = u.op;
            let act_name = ir_util::op_name(ctx, act);
            let fused = matches!(
                ctx.op_name_str(act),
                "graph.Relu" | "graph.Clip" | "graph.LeakyRelu"
            );
            if let (true, Some(an)) = (fused, act_name) {
                if let (Some(dq), Some(&fact)) = (
                    qdq_after(ctx, ctx.result(act, 0)),
                    float_ops
                        .get(&an)
                        .filter(|_| quant_ops.get(&an) == Some(&act)),
                ) {
                    probe.measured = format!("after {} '{an}'", short_type(ctx, act));
                    probe.fused = Some(an.clone());
                    probe.quant_value = dq;
                    probe.float_value = ctx.result(fact, 0);
                }
            }
        }
        out.push(probe);
    }
    out
}

/// Keeps the observed values it is told to, by slot.
struct Keep<'a> {
    slots: &'a HashMap<Value, usize>,
    kept: Vec<Option<Vec<f64>>>,
}

impl Observer for Keep<'_> {
    fn observe(&mut self, value: Value, val: &Val) {
        if let (Some(&s), Val::Tensor(t)) = (self.slots.get(&value), val) {
            self.kept[s] = t.to_f64_vec().ok();
        }
    }
}

/// Compares observed values with kept ones, by slot.
struct Against<'a> {
    slots: &'a HashMap<Value, usize>,
    reference: &'a [Option<Vec<f64>>],
    stats: &'a mut [Compare],
}

impl Observer for Against<'_> {
    fn observe(&mut self, value: Value, val: &Val) {
        let (Some(&s), Val::Tensor(t)) = (self.slots.get(&value), val) else {
            return;
        };
        let (Some(r), Ok(q)) = (&self.reference[s], t.to_f64_vec()) else {
            return;
        };
        if r.len() == q.len() {
            self.stats[s].add(r, &q);
        }
    }
}

fn run_err(sample: &Sample, which: &str, e: nart_interp::InterpError) -> QuantError {
    eval_err(format!(
        "the {which} model failed on evaluation {}: {e}",
        sample.name
    ))
}

fn tensors(sample: &Sample, which: &str, outs: Vec<Val>) -> Result<Vec<Tensor>, QuantError> {
    outs.into_iter()
        .enumerate()
        .map(|(i, v)| match v {
            Val::Tensor(t) => Ok(t),
            other => Err(eval_err(format!(
                "the {which} model's output #{i} on evaluation {} is a {}, not a tensor",
                sample.name,
                other.describe()
            ))),
        })
        .collect()
}

/// Runs the float function once over the evaluation set and keeps its outputs, so that each
/// quantized candidate (`--auto-fallback` tries several) runs alone.
pub struct Guard {
    float_func: Op,
    float: Interpreter,
    float_outputs: Vec<Vec<Tensor>>,
    output_names: Vec<String>,
    set: EvalSet,
    top1_float: Option<Top1>,
    rows: usize,
}

fn rows_and_classes(t: &Tensor) -> (usize, usize) {
    let classes = t.shape().last().copied().unwrap_or(1);
    let rows = t.len().checked_div(classes).unwrap_or(0);
    (rows, classes)
}

fn top1_of(outputs: &[Vec<Tensor>], labels: &[i64]) -> Result<Top1, QuantError> {
    let mut preds = Vec::new();
    for outs in outputs {
        let t = &outs[0];
        let (_, classes) = rows_and_classes(t);
        let v = t.to_f64_vec().map_err(|e| eval_err(e.to_string()))?;
        preds.extend(argmax_rows(&v, classes));
    }
    Ok(Top1 {
        correct: correct(&preds, labels),
        rows: preds.len(),
    })
}

impl Guard {
    /// Runs `float_func` over `set` and checks the labels against its first output: one label
    /// per row (every dimension but the last), each a class index.
    pub fn new(ctx: &Context, float_func: Op, set: EvalSet) -> Result<Guard, QuantError> {
        let float = Interpreter::new(ctx, float_func)
            .map_err(|e| eval_err(format!("cannot run the float model: {e}")))?;
        let output_names = float.output_names().to_vec();
        let mut float_outputs = Vec::with_capacity(set.samples.len());
        for s in &set.samples {
            let outs = float
                .run_values(s.inputs.clone())
                .map_err(|e| run_err(s, "float", e))?;
            float_outputs.push(tensors(s, "float", outs)?);
        }
        let first = output_names.first().cloned().unwrap_or_default();
        let mut rows = 0;
        let mut classes = 0;
        for outs in &float_outputs {
            let t = outs
                .first()
                .ok_or_else(|| eval_err("the model has no output".into()))?;
            let (r, c) = rows_and_classes(t);
            rows += r;
            classes = c;
        }
        let mut top1_float = None;
        if let Some(l) = &set.labels {
            if float_outputs.iter().any(|o| o[0].rank() == 0) {
                return Err(eval_err(format!(
                    "labels '{}' are given, but output '{first}' is a scalar: top-1 needs class \
                     scores along the last axis",
                    l.source
                )));
            }
            if l.classes.len() != rows {
                return Err(eval_err(format!(
                    "labels '{}' hold {} labels, but the evaluation set '{}' gives {rows} rows of \
                     output '{first}' ({} samples); give one label per row",
                    l.source,
                    l.classes.len(),
                    set.source,
                    set.samples.len()
                )));
            }
            if let Some((k, c)) = l
                .classes
                .iter()
                .enumerate()
                .find(|(_, &c)| c < 0 || c as usize >= classes)
            {
                return Err(eval_err(format!(
                    "labels '{}': label #{k} is {c}, but output '{first}' has {classes} classes \
                     (0 to {})",
                    l.source,
                    classes.saturating_sub(1)
                )));
            }
            top1_float = Some(top1_of(&float_outputs, &l.classes)?);
        }
        Ok(Guard {
            float_func,
            float,
            float_outputs,
            output_names,
            set,
            top1_float,
            rows,
        })
    }

    /// The evaluation set.
    pub fn set(&self) -> &EvalSet {
        &self.set
    }

    /// Compares `quant_func` with the float function; with `per_layer`, also every layer
    /// (ops named in `kept_float` are listed as kept in float).
    pub fn evaluate(
        &self,
        ctx: &Context,
        quant_func: Op,
        per_layer: bool,
        kept_float: &[String],
    ) -> Result<Evaluation, QuantError> {
        let quant = Interpreter::new(ctx, quant_func)
            .map_err(|e| eval_err(format!("cannot run the quantized model: {e}")))?;
        let probes = if per_layer {
            probes(ctx, self.float_func, quant_func, kept_float)
        } else {
            Vec::new()
        };
        let float_slots: HashMap<Value, usize> = probes
            .iter()
            .enumerate()
            .map(|(i, p)| (p.float_value, i))
            .collect();
        let quant_slots: HashMap<Value, usize> = probes
            .iter()
            .enumerate()
            .map(|(i, p)| (p.quant_value, i))
            .collect();
        let mut layer_stats = vec![Compare::default(); probes.len()];
        let mut out_stats = vec![Compare::default(); self.output_names.len()];
        let mut quant_outputs = Vec::with_capacity(self.set.samples.len());
        for (s, float_outs) in self.set.samples.iter().zip(&self.float_outputs) {
            let outs = if probes.is_empty() {
                quant.run_values(s.inputs.clone())
            } else {
                let mut keep = Keep {
                    slots: &float_slots,
                    kept: vec![None; probes.len()],
                };
                self.float
                    .run_observed(s.inputs.clone(), &mut keep)
                    .map_err(|e| run_err(s, "float", e))?;
                let mut against = Against {
                    slots: &quant_slots,
                    reference: &keep.kept,
                    stats: &mut layer_stats,
                };
                quant.run_observed(s.inputs.clone(), &mut against)
            }
            .map_err(|e| run_err(s, "quantized", e))?;
            let outs = tensors(s, "quantized", outs)?;
            for (k, (f, q)) in float_outs.iter().zip(&outs).enumerate() {
                let (Ok(f), Ok(q)) = (f.to_f64_vec(), q.to_f64_vec()) else {
                    continue;
                };
                if f.len() != q.len() {
                    return Err(eval_err(format!(
                        "output '{}' has {} elements in the float model but {} in the \
                         quantized one on evaluation {}",
                        self.output_names[k],
                        f.len(),
                        q.len(),
                        s.name
                    )));
                }
                out_stats[k].add(&f, &q);
            }
            quant_outputs.push(outs);
        }
        let top1_quant = match &self.set.labels {
            Some(l) => Some(top1_of(&quant_outputs, &l.classes)?),
            None => None,
        };
        let outputs = self
            .output_names
            .iter()
            .zip(&out_stats)
            .map(|(name, c)| OutputStats {
                name: name.clone(),
                sqnr_db: c.sqnr_db(),
                cosine: c.cosine(),
            })
            .collect();
        let mut layers: Vec<LayerStats> = probes
            .into_iter()
            .zip(&layer_stats)
            .filter(|(_, c)| c.count > 0)
            .map(|(p, c)| LayerStats {
                name: p.name,
                op: p.op,
                status: p.status,
                measured: p.measured,
                fused: p.fused,
                sqnr_db: c.sqnr_db(),
                cosine: c.cosine(),
            })
            .collect();
        layers.sort_by(|a, b| {
            a.sqnr_db
                .total_cmp(&b.sqnr_db)
                .then_with(|| a.name.cmp(&b.name))
        });
        Ok(Evaluation {
            samples: self.set.samples.len(),
            rows: self.rows,
            top1_float: self.top1_float,
            top1_quant,
            outputs,
            layers,
        })
    }
}

/// The layers `--auto-fallback` keeps in float, in order: the quantized layers of `e`, worst
/// SQNR first (the order of [`Evaluation::layers`]), each with the activation fused into it
/// (which would otherwise stay quantized on its own).
pub fn fallback_plan(e: &Evaluation) -> Vec<Vec<String>> {
    e.layers
        .iter()
        .filter(|l| l.status == LayerStatus::Quantized)
        .map(|l| {
            std::iter::once(l.name.clone())
                .chain(l.fused.clone())
                .collect()
        })
        .collect()
}

/// One step of `--auto-fallback`: which of the planned layers were kept in float, and what
/// came of it.
#[derive(Clone, Debug, PartialEq)]
pub struct FallbackStep {
    /// The ops kept in float in this step (the first planned groups, flattened).
    pub kept_float: Vec<String>,
    /// The evaluation (outputs and top-1; no per-layer table).
    pub evaluation: Evaluation,
    /// What did not hold.
    pub failures: Vec<String>,
}

/// Searches the smallest prefix of `plan` that, kept in float, makes the limits hold: all of
/// `plan` first (when even that fails, there is no answer), then bisection between the longest
/// prefix known to fail (`0`, the caller's own evaluation) and the shortest known to hold.
/// `try_prefix(k)` quantizes with the first `k` layers in float and evaluates. Deterministic:
/// the same plan and results give the same steps. Returns the steps, in the order tried, and the
/// index of the step that holds (the shortest prefix found), if any.
pub fn bisect_fallback(
    plan: &[Vec<String>],
    limits: &Limits,
    mut try_prefix: impl FnMut(&[String]) -> Result<Evaluation, QuantError>,
) -> Result<(Vec<FallbackStep>, Option<usize>), QuantError> {
    let mut steps = Vec::new();
    let mut step = |k: usize, steps: &mut Vec<FallbackStep>| -> Result<bool, QuantError> {
        let kept = plan[..k].concat();
        let evaluation = try_prefix(&kept)?;
        let failures = check(&evaluation, limits);
        let ok = failures.is_empty();
        steps.push(FallbackStep {
            kept_float: kept,
            evaluation,
            failures,
        });
        Ok(ok)
    };
    if plan.is_empty() || !step(plan.len(), &mut steps)? {
        return Ok((steps, None));
    }
    let (mut lo, mut hi, mut best) = (0, plan.len(), 0);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if step(mid, &mut steps)? {
            hi = mid;
            best = steps.len() - 1;
        } else {
            lo = mid;
        }
    }
    Ok((steps, Some(best)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn sqnr_of_known_noise() {
        // Signal power 4 per element, noise power 0.04: ratio 100, 20 dB.
        let r = [2.0, -2.0, 2.0, -2.0];
        let q = [2.2, -1.8, 1.8, -2.2];
        assert!(close(sqnr_db(&r, &q), 20.0), "{}", sqnr_db(&r, &q));
        // Ratio 10^4: 40 dB.
        let q = [2.02, -2.02, 1.98, -1.98];
        assert!(close(sqnr_db(&r, &q), 40.0), "{}", sqnr_db(&r, &q));
    }

    #[test]
    fn sqnr_edges() {
        assert_eq!(sqnr_db(&[1.0, 2.0], &[1.0, 2.0]), f64::INFINITY);
        assert_eq!(sqnr_db(&[0.0, 0.0], &[0.0, 0.0]), f64::INFINITY);
        assert_eq!(sqnr_db(&[0.0, 0.0], &[0.1, 0.0]), f64::NEG_INFINITY);
        assert_eq!(sqnr_db(&[1.0, 2.0], &[f64::NAN, 2.0]), f64::NEG_INFINITY);
        assert_eq!(fmt_db(f64::INFINITY), "inf");
        assert_eq!(fmt_db(f64::NEG_INFINITY), "-inf");
        assert_eq!(fmt_db(12.3456), "12.35");
    }

    #[test]
    fn sqnr_sums_over_parts() {
        // Accumulating two halves gives the SQNR of the whole, not the mean of the halves.
        let r = [1.0, 1.0, 10.0, 10.0];
        let q = [1.1, 0.9, 10.0, 10.0];
        let mut c = Compare::default();
        c.add(&r[..2], &q[..2]);
        c.add(&r[2..], &q[2..]);
        assert!(close(c.sqnr_db(), sqnr_db(&r, &q)));
        assert!(close(c.sqnr_db(), 10.0 * (202.0f64 / 0.02).log10()));
        assert_eq!(c.count, 4);
    }

    #[test]
    fn cosine_cases() {
        assert!(close(cosine(&[1.0, 0.0], &[0.0, 1.0]), 0.0));
        assert!(close(cosine(&[1.0, 2.0], &[2.0, 4.0]), 1.0));
        assert!(close(cosine(&[1.0, 2.0], &[-1.0, -2.0]), -1.0));
        assert!(close(cosine(&[3.0, 4.0], &[4.0, 3.0]), 24.0 / 25.0));
        assert!(close(cosine(&[0.0, 0.0], &[0.0, 0.0]), 1.0));
        assert!(close(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0));
        assert!(close(cosine(&[f64::NAN], &[1.0]), 0.0));
    }

    #[test]
    fn argmax_and_top1() {
        let scores = [
            0.1,
            0.7,
            0.2, // 1
            0.5,
            0.5,
            0.0, // tie: the first, 0
            f64::NAN,
            -1.0,
            -2.0, // NaN is never the largest: 1
            -3.0,
            -2.0,
            -1.0, // 2
        ];
        let preds = argmax_rows(&scores, 3);
        assert_eq!(preds, vec![1, 0, 1, 2]);
        assert_eq!(correct(&preds, &[1, 1, 1, 2]), 3);
        let t = Top1 {
            correct: 3,
            rows: 4,
        };
        assert!(close(t.percent(), 75.0));
        assert_eq!(argmax_rows(&[f64::NAN, f64::NAN], 2), vec![0]);
    }

    fn eval_with(top1: Option<(usize, usize)>, sqnr: f64) -> Evaluation {
        Evaluation {
            samples: 1,
            rows: 100,
            top1_float: top1.map(|_| Top1 {
                correct: 98,
                rows: 100,
            }),
            top1_quant: top1.map(|(c, r)| Top1 {
                correct: c,
                rows: r,
            }),
            outputs: vec![OutputStats {
                name: "y".into(),
                sqnr_db: sqnr,
                cosine: 1.0,
            }],
            layers: Vec::new(),
        }
    }

    #[test]
    fn limits() {
        let e = eval_with(Some((97, 100)), 30.0);
        assert!(close(e.top1_drop().unwrap(), 1.0));
        let drop = |x| Limits {
            max_drop: Some(x),
            min_sqnr_db: None,
        };
        assert!(check(&e, &drop(1.0)).is_empty());
        let f = check(&e, &drop(0.5));
        assert_eq!(f.len(), 1);
        assert!(f[0].contains("1.00 points"), "{f:?}");
        let floor = |x| Limits {
            max_drop: None,
            min_sqnr_db: Some(x),
        };
        assert!(check(&e, &floor(30.0)).is_empty());
        assert!(check(&e, &floor(30.5))[0].contains("output 'y' has SQNR 30.00 dB"));
        assert_eq!(check(&eval_with(None, f64::NAN), &floor(0.0)).len(), 1);
        // A better quantized model (negative drop) holds any limit.
        assert!(check(&eval_with(Some((99, 100)), 30.0), &drop(0.0)).is_empty());
    }

    #[test]
    fn bisection_finds_the_shortest_prefix() {
        let plan: Vec<Vec<String>> = (0..10).map(|i| vec![format!("l{i}")]).collect();
        let limits = Limits {
            max_drop: None,
            min_sqnr_db: Some(21.0),
        };
        // SQNR grows with the number of layers kept float (10 + 2k dB); 6 are needed.
        let mut tried = Vec::new();
        let (steps, best) = bisect_fallback(&plan, &limits, |kept| {
            tried.push(kept.len());
            Ok(eval_with(None, 10.0 + 2.0 * kept.len() as f64))
        })
        .unwrap();
        assert_eq!(tried, vec![10, 5, 7, 6]);
        let best = best.unwrap();
        assert_eq!(steps[best].kept_float.len(), 6);
        assert_eq!(steps[best].kept_float, plan[..6].concat());
        assert!(steps[1].failures.len() == 1);
        // When even all-float fails, there is no answer.
        let (steps, best) = bisect_fallback(&plan, &limits, |_| Ok(eval_with(None, 5.0))).unwrap();
        assert_eq!((steps.len(), best), (1, None));
    }
}
