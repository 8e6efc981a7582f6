//! `nart quantize`: an ONNX model and calibration data in, quantized IR out.
//!
//! The command is a sequence of stages over one [`Session`], each a function, so that later
//! stages slot in between without changing the others:
//!
//! 1. [`Session::load`]: import the model, check the request (scheme, calibrator, overrides,
//!    parameter file) before anything runs;
//! 2. [`Session::calibrate`] (static mode): read and check the calibration data, run the float
//!    model over it with a progress bar, record ranges in the IR;
//! 3. [`Session::apply`]: BatchNorm folding and the QDQ form (static), or the dynamic form;
//! 4. the accuracy guard ([`crate::guard`], with `--eval`): float vs quantized on held-out data,
//!    the limits, `--auto-fallback`, the reports, all on the QDQ form;
//! 5. [`Session::lower`]: in the `qnn` form (see [`Form`]), `quant-lower-qnn` turns the QDQ
//!    chains into integer `qnn` ops; with `--eval`, the guard's limits are checked again on
//!    the outputs of that form ([`crate::guard::check_lowered`]);
//! 6. [`Session::write`]: the IR (QDQ ONNX when the output ends in `.onnx`) and the exported parameters, written only when every stage
//!    succeeded, each through a temporary file renamed into place.
//!
//! Any error stops the command before anything is written.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _, Result};
use nart_interp::Interpreter;
use nart_ir::{Context, Op};
use nart_quant::apply::{ApplyOptions, ApplyReport, Override};
use nart_quant::calib::Calibrator;
use nart_quant::collect::{CalibOptions, CalibReport};
use nart_quant::passes::Mode;
use nart_quant::qparams::QParamsFile;
use nart_quant::scheme::Granularity;

/// The form `nart quantize` writes a static model in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Form {
    /// `qnn` for IR output, QDQ for an `.onnx` output (the interchange form ONNX Runtime runs).
    #[default]
    Auto,
    /// The QDQ form: float ops between `quant.qcast`/`quant.dcast`.
    Qdq,
    /// Integer `qnn` ops where they fit (what a deployed integer kernel runs); the rest stays QDQ.
    Qnn,
}

impl Form {
    /// The form for an output path: `Auto` becomes `Qdq` for `.onnx`, `Qnn` otherwise.
    pub fn resolve(self, output: &Path) -> Form {
        match self {
            Form::Auto if output.extension().is_some_and(|e| e == "onnx") => Form::Qdq,
            Form::Auto => Form::Qnn,
            f => f,
        }
    }
}

/// What the user asked for.
#[derive(Clone, Debug)]
pub struct QuantizeRequest {
    /// The ONNX model.
    pub model: PathBuf,
    /// Calibration data (static mode).
    pub calib: Option<PathBuf>,
    /// The scheme name.
    pub scheme: String,
    /// Bits for variable-width schemes.
    pub bits: Option<u32>,
    /// The calibrator (`minmax`, `percentile[:P]`, `entropy`, `mse`).
    pub calibrator: String,
    /// Static or dynamic.
    pub mode: Mode,
    /// Per-layer overrides (`PATTERN=float`, `PATTERN=bits:N`, `PATTERN=scheme:NAME`).
    pub overrides: Vec<String>,
    /// User-given parameters.
    pub qparams: Option<PathBuf>,
    /// Where to export the chosen parameters.
    pub export_qparams: Option<PathBuf>,
    /// Where to write the quantized IR.
    pub output: PathBuf,
    /// Show a progress bar (hidden anyway when stderr is not a terminal).
    pub progress: bool,
    /// The accuracy guard's flags.
    pub guard: crate::guard::GuardArgs,
    /// The form of a statically quantized model.
    pub form: Form,
    /// Calibration samples stacked into one interpreter run (`None`: the default,
    /// `nart_quant::collect::DEFAULT_BATCH`; 1: one sample per run).
    pub calib_batch: Option<usize>,
}

/// The state the stages share.
pub struct Session {
    /// The request.
    pub req: QuantizeRequest,
    /// The IR context.
    pub ctx: Context,
    /// The imported module.
    pub module: Op,
    /// The function quantized.
    pub func: Op,
    /// The quantization options, checked.
    pub apply: ApplyOptions,
    /// The calibrator, checked.
    pub calibrator: Calibrator,
    /// What calibration did (static mode).
    pub calib: Option<CalibReport>,
    /// What quantization did.
    pub report: Option<ApplyReport>,
    /// More files for the write stage (the guard's reports).
    pub extra_files: Vec<(PathBuf, String)>,
    /// What the lowering to `qnn` ops did (the `qnn` form).
    pub lowering: Option<nart_quant::lower_qnn::LowerReport>,
}

fn render(ctx: &Context, diags: &[nart_ir::Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| {
            format!(
                "{}: {}",
                nart_interp::convert::loc_to_string(ctx, d.loc),
                d.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Session {
    /// Imports the model and checks the request.
    pub fn load(req: QuantizeRequest) -> Result<Session> {
        let schemes = nart_quant::scheme::registry();
        let mut scheme = schemes.get(&req.scheme)?.clone();
        if let Some(b) = req.bits {
            scheme = scheme.with_bits(b)?;
        }
        let calibrator = Calibrator::parse(&req.calibrator)?;
        let overrides = req
            .overrides
            .iter()
            .map(|o| Override::parse(o, &schemes))
            .collect::<Result<Vec<_>, _>>()?;
        let user_params = req.qparams.as_deref().map(QParamsFile::read).transpose()?;
        if req.mode == Mode::Static && req.calib.is_none() && user_params.is_none() {
            bail!("static quantization needs calibration data (--calib DIR) or a parameter file (--qparams P.json); --mode dynamic needs neither");
        }
        let mut ctx = Context::new();
        let module = nart_onnx::import_file(&mut ctx, &req.model).map_err(|d| {
            anyhow!(
                "cannot import '{}':\n{}",
                req.model.display(),
                render(&ctx, &d)
            )
        })?;
        nart_quant::register(&mut ctx);
        let funcs = nart_quant::ir_util::functions(&ctx, module);
        let func = funcs
            .iter()
            .copied()
            .find(|&f| nart_ir::symbol::symbol_name(&ctx, f) == Some("main_graph"))
            .or(funcs.first().copied())
            .ok_or_else(|| anyhow!("'{}' has no graph to quantize", req.model.display()))?;
        Ok(Session {
            req,
            ctx,
            module,
            func,
            apply: ApplyOptions {
                scheme,
                overrides,
                user_params,
                fold_batchnorm: true,
            },
            calibrator,
            calib: None,
            report: None,
            extra_files: Vec::new(),
            lowering: None,
        })
    }

    /// Calibrates (static mode with calibration data; otherwise nothing).
    pub fn calibrate(&mut self) -> Result<()> {
        if self.req.mode != Mode::Static {
            return Ok(());
        }
        let Some(dir) = self.req.calib.clone() else {
            return Ok(());
        };
        // BatchNorm folds first, so that the folded convolution's output is what is measured.
        nart_quant::fold_bn::fold_batchnorm(&mut self.ctx, self.func);
        // The inputs' declarations only: collect::calibrate plans the interpreter (and
        // decodes the weights) once.
        let inputs = Interpreter::input_specs(&self.ctx, self.func)?;
        let samples = nart_quant::dataset::load(&dir, &inputs)
            .with_context(|| format!("bad calibration data in '{}'", dir.display()))?;
        let act = self.apply.scheme.activations.int().copied();
        let opts = CalibOptions {
            calibrator: self.calibrator,
            bits: act.map_or(8, |a| a.bits),
            per_channel: act.is_some_and(|a| a.granularity == Granularity::PerChannel)
                || self.apply.overrides.iter().any(|o| matches!(&o.action, nart_quant::apply::OverrideAction::Scheme(s) if s.activations.int().is_some_and(|a| a.granularity == Granularity::PerChannel))),
            progress: self.req.progress,
            batch: self
                .req
                .calib_batch
                .unwrap_or(nart_quant::collect::DEFAULT_BATCH)
                .max(1),
            ..CalibOptions::default()
        };
        let report = nart_quant::collect::calibrate(&mut self.ctx, self.func, &samples, &opts)?;
        self.calib = Some(report);
        Ok(())
    }

    /// Quantizes.
    pub fn apply(&mut self) -> Result<()> {
        let r =
            nart_quant::passes::apply_all(&mut self.ctx, self.module, &self.apply, self.req.mode)
                .map_err(|(_, e)| anyhow!(e))?;
        nart_ir::verify::verify(&self.ctx, self.module).map_err(|d| {
            anyhow!(
                "the quantized IR does not verify (a nart bug):\n{}",
                render(&self.ctx, &d)
            )
        })?;
        self.report = Some(r);
        Ok(())
    }

    /// In the `qnn` form, lowers the QDQ form to integer `qnn` ops (after the accuracy guard,
    /// which compares layers in the QDQ form and re-quantizes from it).
    pub fn lower(&mut self) -> Result<()> {
        if self.req.mode == Mode::Static && self.req.form.resolve(&self.req.output) == Form::Qnn {
            let round = nart_quant::lower_qnn::qnn_rounding(self.apply.scheme.rounding);
            let l = nart_quant::lower_qnn::lower_all(&mut self.ctx, self.module, round);
            nart_ir::verify::verify(&self.ctx, self.module).map_err(|d| {
                anyhow!(
                    "the qnn form does not verify (a nart bug):\n{}",
                    render(&self.ctx, &d)
                )
            })?;
            self.lowering = Some(l);
        }
        Ok(())
    }

    /// Writes the IR (or QDQ ONNX when the output ends in `.onnx`) and, if asked, the
    /// parameters.
    pub fn write(&mut self) -> Result<()> {
        let model = if is_onnx(&self.req.output) {
            self.onnx_bytes()?
        } else {
            nart_ir::printer::print_op(&self.ctx, self.module, &Default::default()).into_bytes()
        };
        let mut files = vec![(self.req.output.clone(), model)];
        if let (Some(p), Some(r)) = (&self.req.export_qparams, &self.report) {
            files.push((p.clone(), r.params.to_json().into_bytes()));
        }
        files.extend(
            self.extra_files
                .iter()
                .map(|(p, t)| (p.clone(), t.clone().into_bytes())),
        );
        // Everything goes to temporary files first, then is renamed into place.
        let mut tmps = Vec::new();
        for (path, text) in &files {
            let tmp = tmp_path(path);
            std::fs::write(&tmp, text)
                .with_context(|| format!("cannot write '{}'", path.display()))?;
            tmps.push((tmp, path));
        }
        for (tmp, path) in tmps {
            std::fs::rename(&tmp, path)
                .with_context(|| format!("cannot write '{}'", path.display()))?;
        }
        Ok(())
    }

    /// One line per fact, for the terminal.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        if let Some(c) = &self.calib {
            out.push_str(&format!(
                "calibrated {} values over {} samples ({}); {} per interpreter run{}\n",
                c.values,
                c.samples,
                self.calibrator.name(),
                c.batching.batch,
                c.batching
                    .why_not
                    .as_ref()
                    .map_or(String::new(), |w| format!(" ({w})"))
            ));
        }
        if let Some(r) = &self.report {
            out.push_str(&format!(
                "{} ({}): {} ops quantized, {} activations, {} weights, {} biases to i32, {} activations fused, {} BatchNorms folded",
                self.apply.scheme.name,
                match self.req.mode {
                    Mode::Static => "static",
                    Mode::Dynamic => "dynamic",
                },
                r.quantized_ops,
                r.activations,
                r.weights,
                r.biases,
                r.fused_activations,
                r.folded_batchnorms
            ));
            if !r.kept_float.is_empty() {
                out.push_str(&format!("; kept float: {}", r.kept_float.join(", ")));
            }
            out.push('\n');
        }
        if let Some(l) = &self.lowering {
            out.push_str(&format!(
                "qnn form: {} integer ops ({}), {} float compute ops left in QDQ form (quant-lint says why)\n",
                l.num_lowered(),
                l.lowered
                    .iter()
                    .map(|(k, n)| format!("{n} {k}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                l.kept.len()
            ));
        }
        out.push_str(&format!("wrote {}", self.req.output.display()));
        if let Some(p) = &self.req.export_qparams {
            out.push_str(&format!(" and {}", p.display()));
        }
        for (p, _) in &self.extra_files {
            out.push_str(&format!(" and {}", p.display()));
        }
        out.push('\n');
        out
    }
}

/// Whether `path` names an ONNX file (`.onnx`, any case).
fn is_onnx(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("onnx"))
}

impl Session {
    /// The quantized module as QDQ ONNX (`nart_quant::onnx_qdq::export_onnx` on a clone, so
    /// that the session keeps its quant IR).
    fn onnx_bytes(&mut self) -> Result<Vec<u8>> {
        let copy = self
            .ctx
            .clone_op(self.module, &mut nart_ir::IrMapping::default());
        let res = nart_quant::onnx_qdq::export_onnx(&mut self.ctx, copy);
        let res = res.map_err(|d| {
            anyhow!(
                "cannot write '{}' as ONNX:\n{}",
                self.req.output.display(),
                render(&self.ctx, &d)
            )
        });
        self.ctx.erase_op(copy);
        res
    }
}

fn tmp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.nart-tmp-{}", std::process::id()))
}

/// Keeps each GEMM of the reference interpreter on its calling thread (`matrixmultiply`'s
/// `MATMUL_NUM_THREADS=1`) unless the user set it: calibration already runs one sample per
/// core, and GEMM threads on top of that cost CPU time in handing work over (on MobileNetV2,
/// 64 samples, 2 cores: 3.1 s of CPU with them, 2.4 s without; docs/quantization.md). The
/// results do not change: each output element is summed in the same order either way.
/// The `nart` binary calls it first thing for `nart quantize`, before the process starts any
/// thread (setting the environment is not safe once other threads may read it, so the library
/// entry [`quantize`] leaves it alone).
pub fn single_threaded_gemm() {
    if std::env::var_os("MATMUL_NUM_THREADS").is_none() {
        std::env::set_var("MATMUL_NUM_THREADS", "1");
    }
}

/// `nart quantize`: load, calibrate, apply, guard (with `--eval`), lower, write.
pub fn quantize(req: QuantizeRequest) -> Result<()> {
    let mut s = Session::load(req)?;
    let eval = crate::guard::load_eval(&s)?;
    s.calibrate()?;
    let float = eval
        .map(|set| crate::guard::FloatRef::new(&mut s, set))
        .transpose()?;
    s.apply()?;
    if let Some(float) = &float {
        crate::guard::guard(&mut s, float)?;
    }
    s.lower()?;
    if let (Some(float), Some(_)) = (&float, &s.lowering) {
        crate::guard::check_lowered(&s, float)?;
    }
    s.write()?;
    eprint!("{}", s.summary());
    Ok(())
}

/// `nart quantize --list-schemes`.
pub fn list_schemes() -> String {
    nart_quant::scheme::registry().listing()
}
