//! ONNX interop for quantized models: QDQ ONNX in and out.
//!
//! - [`export`]: `quant-to-qdq` writes the quant casts as `QuantizeLinear`/`DequantizeLinear`
//!   with constant parameters, and [`export_onnx`] then writes the module as an ONNX file that
//!   ONNX Runtime and `nart run` both run (`nart quantize -o Q.onnx`);
//! - [`import`]: `quant-from-qdq` lifts the QDQ operators of an imported model (ONNX Runtime's
//!   `quantize_static`, PyTorch's exporter, `nart quantize`) back into the quant dialect, then
//!   reports with `quant-lint` every dequantized value still feeding float compute.
//!
//! The importer itself keeps the ONNX operators as graph ops (what the file says, run by the
//! interpreter with the ONNX kernels, bit-exact with ONNX's reference), so that `nart run` runs
//! any QDQ or QOperator model as ONNX defines it; lifting is a pass a pipeline asks for.
//! The round trip quant IR -> ONNX -> quant IR gives back the same IR, with each scale rounded
//! to its expressed type (ONNX stores `f32` scales; the exact kernels compute with the rounded
//! scale already) and without the narrowed storage range of stored weights (ONNX keeps none).

pub mod export;
pub mod import;

use nart_ir::{Context, Diagnostic, Op, Severity};
use nart_pass::{Pass, PassFailure, PassState};

pub use export::{lower_to_qdq, ToQdqReport};
pub use import::{lift_qdq, FromQdqReport};

/// Lowers the quant casts of `module` to QDQ operators and encodes it as an ONNX file.
pub fn export_onnx(ctx: &mut Context, module: Op) -> Result<Vec<u8>, Vec<Diagnostic>> {
    lower_to_qdq(ctx, module)?;
    nart_ir::verify::verify(ctx, module)?;
    nart_onnx::export_model(ctx, module).map_err(|d| vec![d])
}

/// Rounds every scale of every uniform quantized type in `root` to its expressed type, as ONNX
/// stores them (what an exported and re-imported module holds).
pub fn round_scales_to_expressed(ctx: &mut Context, root: Op) {
    use nart_dialect_quant::types::{QuantParams, UniformQuantizedType};
    let round = |ctx: &Context, q: &UniformQuantizedType| -> UniformQuantizedType {
        let kind = match ctx.type_data(q.expressed) {
            nart_ir::TypeData::Float(k) => Some(*k),
            _ => None,
        };
        let r = |bits: u64| -> u64 {
            let s = f64::from_bits(bits);
            match kind {
                Some(nart_ir::FloatKind::F32) => f64::from(s as f32).to_bits(),
                Some(nart_ir::FloatKind::F16) => {
                    nart_tensor::halfround::f16_from_f64(s).to_f64().to_bits()
                }
                Some(nart_ir::FloatKind::BF16) => {
                    nart_tensor::halfround::bf16_from_f64(s).to_f64().to_bits()
                }
                _ => bits,
            }
        };
        let mut q = q.clone();
        match &mut q.params {
            QuantParams::PerTensor { scale, .. } => *scale = r(*scale),
            QuantParams::PerAxis { scales, .. } | QuantParams::PerBlock { scales, .. } => {
                scales.iter_mut().for_each(|s| *s = r(*s));
            }
        }
        q
    };
    let mut values = Vec::new();
    for op in ctx.collect_ops(root, nart_ir::WalkOrder::PreOrder) {
        values.extend(ctx.results(op).iter().copied());
        for region in ctx.regions(op).to_vec() {
            for b in ctx.region_blocks(region).to_vec() {
                values.extend(ctx.block_args(b).iter().copied());
            }
        }
    }
    for v in values {
        let ty = ctx.value_type(v);
        if let Some(q) = export::uniform_of(ctx, ty) {
            let q = round(ctx, &q);
            let elem = ctx.dialect_type(q);
            let new = crate::ir_util::with_element(ctx, ty, elem);
            ctx.set_value_type(v, new);
        }
    }
}

nart_pass::declare_pass! {
    /// The `quant-to-qdq` pass.
    pub struct ToQdqPass {
        argument: "quant-to-qdq",
        name: "QuantToQdq",
        summary: "Write the quant casts as ONNX QuantizeLinear and DequantizeLinear",
        description: "Rewrites `quant.qcast` into `graph.QuantizeLinear` and `quant.dcast` into \
            `graph.DequantizeLinear` with constant scale and zero point (`axis` for per-axis, \
            `axis` and `block_size` for per-block types), and the integer constant behind a \
            `quant.scast` into the ONNX storage type (`ui8` for `u8`, `i4`/`ui4`), so that the \
            exporter writes QDQ ONNX. A narrowed storage range on an activation adds a `Clip`. \
            Every op that holds a quantized type and has no ONNX form is a located error, and \
            nothing changes.",
        statistics: [
            "num-quantize" => "Number of QuantizeLinear ops written",
            "num-dequantize" => "Number of DequantizeLinear ops written",
            "num-constants" => "Number of integer constants written in their ONNX storage type",
            "num-clips" => "Number of Clip ops written for narrowed storage ranges",
        ],
    }
}

impl Pass for ToQdqPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        crate::register(ctx);
        let r = lower_to_qdq(ctx, op).map_err(failure)?;
        state.add_stat("num-quantize", r.quantize as u64);
        state.add_stat("num-dequantize", r.dequantize as u64);
        state.add_stat("num-constants", r.constants as u64);
        state.add_stat("num-clips", r.clips as u64);
        Ok(())
    }
}

nart_pass::pass_options! {
    /// The options of `quant-from-qdq`.
    pub struct FromQdqOptions {
        /// Report every dequantized value that still feeds float compute (quant-lint)
        #[name = "lint"]
        pub lint: bool = true,
    }
}

nart_pass::declare_pass! {
    /// The `quant-from-qdq` pass.
    pub struct FromQdqPass {
        argument: "quant-from-qdq",
        name: "QuantFromQdq",
        summary: "Lift ONNX QuantizeLinear and DequantizeLinear into the quant dialect",
        description: "Rewrites a `graph.QuantizeLinear` whose users are all \
            `graph.DequantizeLinear` with the same constant parameters into `quant.qcast` and \
            `quant.dcast` (a `Clip` between them narrows the storage range), and a \
            `DequantizeLinear` of an integer constant into a signless constant, `quant.scast` \
            and `quant.dcast`, with `!quant.uniform` types per tensor, per axis or per block. \
            Invalid parameters (a zero or negative scale, zero point and scale of different \
            shapes, an axis outside the rank, a per-axis length that is not the dimension's) \
            are located errors. What has no quant form (run-time parameters, QOperator ops) \
            stays. Then, unless `lint=false`, it warns as `quant-lint` does about every \
            dequantized value that feeds a float compute op, so that no \
            `DequantizeLinear -> float op` chain goes unremarked.",
        options: FromQdqOptions,
        statistics: [
            "num-quantize" => "Number of QuantizeLinear ops lifted",
            "num-dequantize" => "Number of DequantizeLinear ops lifted",
            "num-constants" => "Number of integer initializers lifted to quant.scast",
            "num-left" => "Number of QDQ ops left as ONNX ops",
            "num-float-ops" => "Number of float compute ops reading dequantized values",
        ],
    }
}

impl Pass for FromQdqPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        crate::register(ctx);
        let r = lift_qdq(ctx, op).map_err(failure)?;
        state.add_stat("num-quantize", r.quantize as u64);
        state.add_stat("num-dequantize", r.dequantize as u64);
        state.add_stat("num-constants", r.constants as u64);
        state.add_stat("num-left", r.left as u64);
        if self.opts.lint {
            let lint = crate::lint::lint(ctx, op);
            let n = lint.warnings.len();
            state.add_stat("num-float-ops", n as u64);
            for w in lint.warnings {
                state.emit(w);
            }
            state.emit(Diagnostic::new(
                Severity::Remark,
                ctx.op_loc(op),
                format!(
                    "quant-from-qdq: lifted {} quantize, {} dequantize and {} stored integers ({} left as ONNX ops); {n} float compute op{} read{} dequantized values",
                    r.quantize,
                    r.dequantize,
                    r.constants,
                    r.left,
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "s" } else { "" },
                ),
            ));
        }
        Ok(())
    }
}

fn failure(diags: Vec<Diagnostic>) -> PassFailure {
    PassFailure::with_diagnostics(diags)
}
