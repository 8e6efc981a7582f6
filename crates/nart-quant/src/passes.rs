//! The passes: `quant-fold-batchnorm`, `quant-calibrate`, `quant-apply`, `quant-lower-qnn` and
//! `quant-lint`.
//!
//! Each runs on every `func.func` of the op it is given (a module or a function), so that both
//! `--pass-pipeline='builtin.module(quant-apply)'` and a nested `func.func(...)` work.

use std::path::Path;

use nart_ir::{Context, Diagnostic, Op, Severity};
use nart_pass::{Pass, PassFailure, PassState};

use crate::apply::{ApplyOptions, Override};
use crate::calib::Calibrator;
use crate::collect::CalibOptions;
use crate::errors::QuantError;
use crate::ir_util;
use crate::qparams::QParamsFile;

fn fail(ctx: &Context, op: Op, e: QuantError) -> PassFailure {
    PassFailure::new(Diagnostic::error(ctx.op_loc(op), e.to_string()))
}

nart_pass::declare_pass! {
    /// The `quant-fold-batchnorm` pass.
    pub struct FoldBatchNormPass {
        argument: "quant-fold-batchnorm",
        name: "QuantFoldBatchNorm",
        summary: "Fold inference BatchNormalization into the convolution before it",
        description: "Rewrites `Conv` followed by an inference `BatchNormalization` with constant \
            parameters into one `Conv` with scaled weights and a shifted bias \
            (`W' = W * s`, `b' = (b - mean) * s + B`, `s = scale / sqrt(var + epsilon)`), \
            moving the BatchNorm's calibration entry to the convolution.",
        statistics: ["num-folded" => "Number of BatchNormalization ops folded"],
    }
}

impl Pass for FoldBatchNormPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        for f in ir_util::functions(ctx, op) {
            let n = crate::fold_bn::fold_batchnorm(ctx, f);
            state.add_stat("num-folded", n as u64);
        }
        Ok(())
    }
}

nart_pass::pass_options! {
    /// The options of `quant-calibrate`.
    pub struct CalibrateOptions {
        /// Calibration data: a folder of sample folders, a folder with input_N.pb, or one batch file
        #[name = "data"]
        pub data: String = "",
        /// minmax, percentile[:P], entropy or mse
        #[name = "calibrator"]
        pub calibrator: String = "minmax",
        /// Activation bits the ranges are chosen for
        #[name = "bits"]
        pub bits: i64 = 8,
        /// Also record ranges per channel of dimension 1
        #[name = "per-channel"]
        pub per_channel: bool = false,
        /// Show a progress bar when stderr is a terminal
        #[name = "progress"]
        pub progress: bool = false,
    }
}

nart_pass::declare_pass! {
    /// The `quant-calibrate` pass.
    pub struct CalibratePass {
        argument: "quant-calibrate",
        name: "QuantCalibrate",
        summary: "Run the float model over calibration data and record each value's range",
        description: "Runs each function in the reference interpreter over the calibration set \
            (`data`), observing every intermediate tensor, and records the range the calibrator \
            picks for each float value as `quant.calibrated = [!quant.calibrated<f32<lo:hi>>]` \
            on its op (in the argument attributes for function arguments). Calibrators: \
            `minmax`, `percentile[:P]`, `entropy` (KL divergence over a 2048-bin histogram, as \
            TensorRT) and `mse`. Bad data (wrong shapes or types, an empty folder, NaN or Inf) is \
            an error naming the sample and the input.",
        options: CalibrateOptions,
        statistics: [
            "num-samples" => "Number of calibration samples run",
            "num-values" => "Number of values calibrated",
        ],
    }
}

impl CalibratePass {
    /// The library options these pass options stand for.
    pub fn calib_options(&self) -> Result<CalibOptions, QuantError> {
        let bits = u32::try_from(self.opts.bits)
            .ok()
            .filter(|b| (2..=16).contains(b))
            .ok_or_else(|| {
                QuantError::Calibrator(format!("bits must be 2 to 16, not {}", self.opts.bits))
            })?;
        Ok(CalibOptions {
            calibrator: Calibrator::parse(&self.opts.calibrator)?,
            bits,
            per_channel: self.opts.per_channel,
            progress: self.opts.progress,
            ..CalibOptions::default()
        })
    }
}

impl Pass for CalibratePass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let opts = self.calib_options().map_err(|e| fail(ctx, op, e))?;
        if self.opts.data.is_empty() {
            return Err(fail(
                ctx,
                op,
                QuantError::Data("quant-calibrate needs data=PATH".into()),
            ));
        }
        for f in ir_util::functions(ctx, op) {
            crate::register(ctx);
            let inputs = nart_interp::Interpreter::input_specs(ctx, f)
                .map_err(|e| fail(ctx, f, QuantError::Ir(e.to_string())))?;
            let samples = crate::dataset::load(Path::new(&self.opts.data), &inputs)
                .map_err(|e| fail(ctx, f, e))?;
            let report =
                crate::collect::calibrate(ctx, f, &samples, &opts).map_err(|e| fail(ctx, f, e))?;
            state.add_stat("num-samples", report.samples as u64);
            state.add_stat("num-values", report.values as u64);
        }
        Ok(())
    }
}

nart_pass::option_enum! {
    /// How `quant-apply` quantizes.
    pub enum Mode {
        /// Calibrated activations: the QDQ form.
        Static = "static",
        /// Weights only, activations quantized at run time.
        Dynamic = "dynamic",
    }
}

nart_pass::pass_options! {
    /// The options of `quant-apply`.
    pub struct ApplyPassOptions {
        /// The scheme (see nart quantize --list-schemes)
        #[name = "scheme"]
        pub scheme: String = "onnx-qdq",
        /// Bits for schemes of variable width (arm-lowbit); 0 keeps the scheme's default
        #[name = "bits"]
        pub bits: i64 = 0,
        /// static (QDQ form from calibrated ranges) or dynamic (run-time activation quantization)
        #[name = "mode"]
        pub mode: Mode = Mode::Static,
        /// Per-layer overrides: PATTERN=float, PATTERN=bits:N or PATTERN=scheme:NAME
        #[name = "overrides"]
        pub overrides: Vec<String> = [],
        /// A JSON file of scales and zero points that replace the chosen ones
        #[name = "qparams"]
        pub qparams: String = "",
        /// Write the chosen scales and zero points to this JSON file
        #[name = "export-qparams"]
        pub export_qparams: String = "",
        /// Fold BatchNormalization into convolutions first
        #[name = "fold-batchnorm"]
        pub fold_batchnorm: bool = true,
    }
}

nart_pass::declare_pass! {
    /// The `quant-apply` pass.
    pub struct ApplyPass {
        argument: "quant-apply",
        name: "QuantApply",
        summary: "Quantize float graph ops into the QDQ form with a scheme",
        description: "Static mode: folds BatchNorm, then puts `quant.qcast`/`quant.dcast` pairs \
            with the scheme's parameters (from the calibrated ranges) on every activation the \
            covered ops read or write, fuses activation functions into the op before them, \
            stores weights as integer constants (`graph.constant` of `iN`, `quant.scast`, \
            `quant.dcast`, per channel or per group) and biases as `i32` at input scale times \
            weight scale. Dynamic mode: `MatMul`, `Gemm` and `Conv` with constant weights become \
            `DynamicQuantizeLinear` + `MatMulInteger`/`ConvInteger` with 8-bit weights, as ONNX \
            Runtime's `quantize_dynamic`.",
        options: ApplyPassOptions,
        statistics: [
            "num-ops" => "Number of ops quantized",
            "num-activations" => "Number of activation values given a QDQ pair",
            "num-weights" => "Number of weights quantized",
            "num-biases" => "Number of biases quantized to i32",
            "num-fused" => "Number of activation functions fused",
            "num-folded" => "Number of BatchNormalization ops folded",
        ],
    }
}

impl ApplyPass {
    /// The library options these pass options stand for.
    pub fn apply_options(&self) -> Result<ApplyOptions, QuantError> {
        let schemes = crate::scheme::registry();
        let mut scheme = schemes.get(&self.opts.scheme)?.clone();
        if self.opts.bits != 0 {
            let bits = u32::try_from(self.opts.bits).map_err(|_| {
                QuantError::Scheme(format!("bits must be positive, not {}", self.opts.bits))
            })?;
            scheme = scheme.with_bits(bits)?;
        }
        let overrides = self
            .opts
            .overrides
            .iter()
            .map(|o| Override::parse(o, &schemes))
            .collect::<Result<Vec<_>, _>>()?;
        let user_params = if self.opts.qparams.is_empty() {
            None
        } else {
            Some(QParamsFile::read(Path::new(&self.opts.qparams))?)
        };
        Ok(ApplyOptions {
            scheme,
            overrides,
            user_params,
            fold_batchnorm: self.opts.fold_batchnorm,
        })
    }
}

/// Runs `quant-apply` on every function of `op`, merging the parameter files.
pub fn apply_all(
    ctx: &mut Context,
    op: Op,
    opts: &ApplyOptions,
    mode: Mode,
) -> Result<crate::apply::ApplyReport, (Op, QuantError)> {
    let mut total = crate::apply::ApplyReport::default();
    for f in ir_util::functions(ctx, op) {
        let r = match mode {
            Mode::Static => crate::apply::apply_static(ctx, f, opts),
            Mode::Dynamic => crate::dynamic::apply_dynamic(ctx, f, opts),
        }
        .map_err(|e| (f, e))?;
        total.folded_batchnorms += r.folded_batchnorms;
        total.quantized_ops += r.quantized_ops;
        total.fused_activations += r.fused_activations;
        total.kept_float.extend(r.kept_float);
        total.activations += r.activations;
        total.weights += r.weights;
        total.biases += r.biases;
        total.params.scheme = r.params.scheme.clone();
        total.params.tensors.extend(r.params.tensors);
    }
    Ok(total)
}

impl Pass for ApplyPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let opts = self.apply_options().map_err(|e| fail(ctx, op, e))?;
        let r = apply_all(ctx, op, &opts, self.opts.mode).map_err(|(f, e)| fail(ctx, f, e))?;
        state.add_stat("num-ops", r.quantized_ops as u64);
        state.add_stat("num-activations", r.activations as u64);
        state.add_stat("num-weights", r.weights as u64);
        state.add_stat("num-biases", r.biases as u64);
        state.add_stat("num-fused", r.fused_activations as u64);
        state.add_stat("num-folded", r.folded_batchnorms as u64);
        if !self.opts.export_qparams.is_empty() {
            r.params
                .write(Path::new(&self.opts.export_qparams))
                .map_err(|e| fail(ctx, op, e))?;
        }
        Ok(())
    }
}

nart_pass::pass_options! {
    /// The options of `quant-lower-qnn`.
    pub struct LowerQnnOptions {
        /// The scheme whose rounding the integer ops use (see nart quantize --list-schemes)
        #[name = "scheme"]
        pub scheme: String = "onnx-qdq",
    }
}

nart_pass::declare_pass! {
    /// The `quant-lower-qnn` pass.
    pub struct LowerQnnPass {
        argument: "quant-lower-qnn",
        name: "QuantLowerQnn",
        summary: "Replace QDQ chains (dcast -> float op -> qcast) with integer qnn ops",
        description: "Rewrites each `quant.qcast` of a float op whose operands are all \
            `quant.dcast`s of quantized values into one `qnn` op on the quantized values: \
            `Conv` to `qnn.conv`, `MatMul` and `Gemm` (`transB` folded into the constant weight) \
            to `qnn.matmul`, `Add`/`Mul` to `qnn.add`/`qnn.mul`, each with a following \
            `Relu`/`Clip` fused (`relu`, `relu6`, `clip`); `Concat`, `AveragePool`, `MaxPool` \
            (and their global forms) to `qnn.concat`, `qnn.avg_pool`, `qnn.max_pool`; \
            `Sigmoid`, `Tanh`, `Erf`, `HardSwish`, `Gelu`, `Relu`, `LeakyRelu` and `Clip` on an \
            input of at most 8 bits to a `qnn.lut`; a `dcast` straight into a `qcast` to \
            `qnn.requantize`. Ties round as the scheme's `rounding` field says; a float bias \
            becomes `i32` at input scale × weight scale. Chains that do \
            not fit (per-block weights, per-channel activations, `auto_pad`, `ceil_mode`, ops without a \
            qnn form) stay in the QDQ form; `quant-lint` then says why, op by op.",
        options: LowerQnnOptions,
        statistics: [
            "num-lowered" => "Number of qnn ops created",
            "num-identities" => "Number of identity requantizations removed",
            "num-kept-float" => "Number of float compute ops left reading dequantized values",
        ],
    }
}

impl Pass for LowerQnnPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let scheme = crate::scheme::registry()
            .get(&self.opts.scheme)
            .map_err(|e| fail(ctx, op, e))?
            .clone();
        crate::lint::register(ctx);
        let round = crate::lower_qnn::qnn_rounding(scheme.rounding);
        let r = crate::lower_qnn::lower_all(ctx, op, round);
        state.add_stat("num-lowered", r.num_lowered() as u64);
        state.add_stat("num-identities", r.identities as u64);
        state.add_stat("num-kept-float", r.kept.len() as u64);
        Ok(())
    }
}

nart_pass::declare_pass! {
    /// The `quant-lint` pass.
    pub struct LintPass {
        argument: "quant-lint",
        name: "QuantLint",
        summary: "Warn about every dequantized value that feeds a float compute op",
        description: "Reports, as a warning at the op's location, every op that computes in float \
            (it has a cost model, is not data movement, and has a float result) on the output of \
            a dequantize (`quant.dcast` or `graph.DequantizeLinear`), naming the operands, with a \
            remark at the op saying why it is not an integer `qnn` op (what `quant-lower-qnn` \
            refused, or the op it would become); then a remark with the count. It changes \
            nothing.",
        statistics: [
            "num-float-ops" => "Number of float compute ops reading dequantized values",
            "num-edges" => "Number of dequantize-to-compute edges",
        ],
    }
}

impl Pass for LintPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        crate::lint::register(ctx);
        let report = crate::lint::lint(ctx, op);
        let n = report.warnings.len();
        state.add_stat("num-float-ops", n as u64);
        state.add_stat("num-edges", report.edges as u64);
        for (w, why) in report.warnings.into_iter().zip(report.reasons) {
            state.emit(w);
            state.emit(why);
        }
        state.emit(Diagnostic::new(
            Severity::Remark,
            ctx.op_loc(op),
            format!(
                "quant-lint: {n} float compute op{} read{} dequantized values ({} edge{})",
                if n == 1 { "" } else { "s" },
                if n == 1 { "s" } else { "" },
                report.edges,
                if report.edges == 1 { "" } else { "s" }
            ),
        ));
        Ok(())
    }
}

/// Registers the passes.
pub fn register_passes(registry: &mut nart_pass::PassRegistry) {
    registry.register(|| Box::new(FoldBatchNormPass::new()));
    registry.register(|| Box::new(CalibratePass::new()));
    registry.register(|| Box::new(ApplyPass::new()));
    registry.register(|| Box::new(LowerQnnPass::new()));
    registry.register(|| Box::new(LintPass::new()));
    registry.register(|| Box::new(crate::onnx_qdq::ToQdqPass::new()));
    registry.register(|| Box::new(crate::onnx_qdq::FromQdqPass::new()));
}
