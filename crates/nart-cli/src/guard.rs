//! The accuracy guard stage of `nart quantize`, between apply and write.
//!
//! - [`load_eval`] (right after load, before calibration runs): reads and checks the evaluation
//!   data and the labels, so that bad data fails fast, naming the sample and the input;
//! - [`FloatRef::new`] (after calibration, before apply): keeps a copy of the calibrated float
//!   module (BatchNorm folded, so that layers match the quantized ones by name), runs it over
//!   the evaluation set and checks the labels against its output;
//! - [`guard`] (after apply): compares the quantized function with it (top-1, output SQNR and
//!   cosine, per-layer SQNR), applies the limits, and with `--auto-fallback` re-quantizes from
//!   the copy with the worst layers kept in float (`NAME=float` overrides), found by bisection,
//!   until the limits hold. It prints the report, queues the report files for the write stage
//!   when the guard passes, and writes them itself (and not the model) when it fails.
//!
//! The limits: `--max-drop X` is top-1 points (needs `--labels`); `--min-sqnr DB` is a floor on
//! every output's SQNR against float, for data without labels. Both may be given.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _, Result};
use nart_interp::Interpreter;
use nart_ir::{Context, IrMapping, Op};
use nart_quant::apply::{Override, OverrideAction};
use nart_quant::guard::{self, EvalSet, Evaluation, Guard, Limits};
use nart_quant::passes::Mode;
use nart_quant::report::{FallbackReport, Report, ReportMeta};

use crate::quantize::Session;

/// The accuracy guard's flags.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct GuardArgs {
    /// Evaluation data, in the forms --calib takes: the float and the quantized model are
    /// compared on it (output SQNR and cosine, per-layer SQNR; top-1 with --labels).
    #[arg(long, value_name = "DATA")]
    pub eval: Option<PathBuf>,
    /// Class labels for --eval (.npy or .pb): integers, one per row of the first output.
    #[arg(long, value_name = "L.npy")]
    pub labels: Option<PathBuf>,
    /// Refuse the model (exit 1, no model written) when top-1 drops by more than this many
    /// points; needs --labels.
    #[arg(long, value_name = "POINTS")]
    pub max_drop: Option<f64>,
    /// Refuse the model when an output's SQNR against float is below this many dB (the limit
    /// for data without labels).
    #[arg(long, value_name = "DB")]
    pub min_sqnr: Option<f64>,
    /// When a limit fails, keep the worst layers in float (found by bisection) until it holds.
    #[arg(long)]
    pub auto_fallback: bool,
    /// Write the report as JSON to R.json and as HTML to R.html beside it.
    #[arg(long, value_name = "R.json")]
    pub report: Option<PathBuf>,
}

impl GuardArgs {
    /// Checks that the flags make sense together, before anything runs.
    pub fn check(&self) -> Result<()> {
        if self.eval.is_none() {
            for (given, flag) in [
                (self.labels.is_some(), "--labels"),
                (self.max_drop.is_some(), "--max-drop"),
                (self.min_sqnr.is_some(), "--min-sqnr"),
                (self.auto_fallback, "--auto-fallback"),
                (self.report.is_some(), "--report"),
            ] {
                if given {
                    bail!("{flag} needs evaluation data (--eval DATA)");
                }
            }
            return Ok(());
        }
        if let Some(x) = self.max_drop {
            if !(x.is_finite() && x >= 0.0) {
                bail!("--max-drop must be a number of top-1 points, 0 or more (got {x})");
            }
            if self.labels.is_none() {
                bail!(
                    "--max-drop is in top-1 points and needs --labels; without labels, give an \
                     SQNR floor with --min-sqnr DB"
                );
            }
        }
        if let Some(x) = self.min_sqnr {
            if !x.is_finite() {
                bail!("--min-sqnr must be a finite number of dB (got {x})");
            }
        }
        if self.auto_fallback && self.max_drop.is_none() && self.min_sqnr.is_none() {
            bail!("--auto-fallback needs a limit to meet: --max-drop POINTS or --min-sqnr DB");
        }
        if let Some(r) = &self.report {
            if html_path(r) == *r {
                bail!(
                    "--report '{}': the HTML report goes beside it as .html; name the JSON \
                     report R.json",
                    r.display()
                );
            }
        }
        Ok(())
    }

    fn limits(&self) -> Limits {
        Limits {
            max_drop: self.max_drop,
            min_sqnr_db: self.min_sqnr,
        }
    }
}

/// `R.html` beside `R.json`.
pub fn html_path(report: &Path) -> PathBuf {
    report.with_extension("html")
}

/// Reads and checks the evaluation set (with `--eval`), before calibration.
pub fn load_eval(s: &Session) -> Result<Option<EvalSet>> {
    let args = &s.req.guard;
    args.check()?;
    let Some(data) = &args.eval else {
        return Ok(None);
    };
    let interp = Interpreter::new(&s.ctx, s.func)?;
    Ok(Some(EvalSet::load(
        data,
        args.labels.as_deref(),
        interp.inputs(),
    )?))
}

/// The function to quantize in `module`: `main_graph`, or the first.
fn main_func(ctx: &Context, module: Op) -> Option<Op> {
    let funcs = nart_quant::ir_util::functions(ctx, module);
    funcs
        .iter()
        .copied()
        .find(|&f| nart_ir::symbol::symbol_name(ctx, f) == Some("main_graph"))
        .or(funcs.first().copied())
}

/// The calibrated float module, kept aside, and its outputs on the evaluation set.
pub struct FloatRef {
    module: Op,
    guard: Guard,
}

impl FloatRef {
    /// Copies the calibrated float module and runs it over `set`.
    pub fn new(s: &mut Session, set: EvalSet) -> Result<FloatRef> {
        let module = s.ctx.clone_op(s.module, &mut IrMapping::default());
        let func = main_func(&s.ctx, module)
            .ok_or_else(|| anyhow!("the copy of the float model has no function (a nart bug)"))?;
        if s.req.mode == Mode::Static && s.apply.fold_batchnorm {
            // Quantization folds BatchNorm; the reference must too, so that layers match.
            nart_quant::fold_bn::fold_batchnorm(&mut s.ctx, func);
        }
        let guard = Guard::new(&s.ctx, func, set)?;
        Ok(FloatRef { module, guard })
    }
}

/// Re-quantizes from the float copy with `kept` layers in float as well as the user's overrides.
fn requantize(s: &mut Session, float: &FloatRef, user: &[Override], kept: &[String]) -> Result<()> {
    let module = s.ctx.clone_op(float.module, &mut IrMapping::default());
    s.func = main_func(&s.ctx, module)
        .ok_or_else(|| anyhow!("the copy of the float model has no function (a nart bug)"))?;
    s.module = module;
    s.apply.overrides = user.to_vec();
    s.apply.overrides.extend(kept.iter().map(|name| Override {
        pattern: name.clone(),
        action: OverrideAction::Float,
    }));
    s.apply()
}

fn kept_float(s: &Session) -> Vec<String> {
    s.report
        .as_ref()
        .map(|r| r.kept_float.clone())
        .unwrap_or_default()
}

fn evaluate(s: &Session, float: &FloatRef, per_layer: bool) -> Result<Evaluation> {
    Ok(float
        .guard
        .evaluate(&s.ctx, s.func, per_layer, &kept_float(s))?)
}

/// Checks the guard's limits again on the model in the `qnn` form (the guard itself measured
/// the QDQ form, which the integer ops compute exactly but which may round one step apart where
/// a float sum rounds the other way), and says how its outputs compare.
pub fn check_lowered(s: &Session, float: &FloatRef) -> Result<()> {
    let e = evaluate(s, float, false)?;
    let limits = s.req.guard.limits();
    let mut line = format!(
        "accuracy guard, qnn form: lowest output SQNR {} dB",
        guard::fmt_db(e.min_output_sqnr())
    );
    if let (Some(q), Some(d)) = (e.top1_quant, e.top1_drop()) {
        line.push_str(&format!(", top-1 {:.2}% (drop {d:.2} points)", q.percent()));
    }
    eprintln!("{line}");
    let failures = guard::check(&e, &limits);
    if !failures.is_empty() {
        bail!(
            "the accuracy guard refuses the qnn form of the model: {}; '{}' was not written \
             (--form qdq writes the QDQ form the guard accepted)",
            failures.join("; "),
            s.req.output.display()
        );
    }
    Ok(())
}

/// Writes `files`, each through a temporary file renamed into place.
fn write_files(files: &[(PathBuf, String)]) -> Result<()> {
    for (path, text) in files {
        let tmp = path.with_file_name(format!(
            ".{}.nart-tmp-{}",
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            std::process::id()
        ));
        std::fs::write(&tmp, text).with_context(|| format!("cannot write '{}'", path.display()))?;
        std::fs::rename(&tmp, path)
            .with_context(|| format!("cannot write '{}'", path.display()))?;
    }
    Ok(())
}

/// The guard stage: evaluate, check the limits, fall back if asked, report. On failure the
/// report files are written and the error says so; the model is not written.
pub fn guard(s: &mut Session, float: &FloatRef) -> Result<()> {
    let args = s.req.guard.clone();
    let limits = args.limits();
    let initial = evaluate(s, float, true)?;
    let mut failures = guard::check(&initial, &limits);
    let mut evaluation = initial.clone();
    let mut fallback = None;
    if !failures.is_empty() && args.auto_fallback {
        let user = s.apply.overrides.clone();
        let plan = guard::fallback_plan(&initial);
        let (steps, chosen) = guard::bisect_fallback(&plan, &limits, |kept| {
            requantize(s, float, &user, kept)
                .and_then(|()| evaluate(s, float, false))
                .map_err(|e| nart_quant::QuantError::Eval(format!("{e:#}")))
        })?;
        match chosen {
            Some(c) => {
                // The chosen model, again, with its per-layer table.
                requantize(s, float, &user, &steps[c].kept_float)?;
                evaluation = evaluate(s, float, true)?;
                failures = guard::check(&evaluation, &limits);
            }
            None => {
                failures.push(if plan.is_empty() {
                    "--auto-fallback found no quantized layer to keep in float".to_string()
                } else {
                    format!(
                        "--auto-fallback: even with all {} quantized layers kept in float the \
                         limits do not hold",
                        plan.len()
                    )
                });
            }
        }
        fallback = Some(FallbackReport {
            initial,
            plan,
            steps,
            chosen,
        });
    }
    let report = Report {
        meta: ReportMeta {
            model: s.req.model.display().to_string(),
            scheme: s.apply.scheme.name.clone(),
            calibrator: s.calibrator.name(),
            mode: match s.req.mode {
                Mode::Static => "static",
                Mode::Dynamic => "dynamic",
            }
            .to_string(),
            eval: float.guard.set().source.clone(),
            labels: float.guard.set().labels.as_ref().map(|l| l.source.clone()),
        },
        limits,
        evaluation,
        failures,
        fallback,
    };
    let mut files = Vec::new();
    if let Some(r) = &args.report {
        files.push((r.clone(), report.to_json()));
        files.push((html_path(r), report.to_html()));
    }
    crate::commands::open_stdout()
        .and_then(|mut out| {
            out.write_all(report.to_terminal().as_bytes())?;
            out.flush()
        })
        .map_err(|e| anyhow!("cannot write to standard output: {e}"))?;
    if report.passed() {
        s.extra_files.extend(files);
        return Ok(());
    }
    write_files(&files)?;
    let written = match &args.report {
        Some(r) => format!(
            "the report is in '{}' and '{}'",
            r.display(),
            html_path(r).display()
        ),
        None => "no report file was asked for (--report R.json)".to_string(),
    };
    bail!(
        "the accuracy guard refuses the quantized model: {}; {written}; '{}' was not written",
        report.failures.join("; "),
        s.req.output.display()
    )
}
