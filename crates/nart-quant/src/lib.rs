//! Post-training quantization: schemes as data, calibration, and the passes that turn a float
//! graph into the QDQ form.
//!
//! - [`scheme`]: a [`Scheme`](scheme::Scheme) is data (bits, signedness, symmetric or affine,
//!   per tensor, per channel or per group, power-of-two scales, rounding, which ops it covers);
//!   the [`SchemeRegistry`](scheme::SchemeRegistry) holds the built-in ones (`onnx-qdq`,
//!   `tensorrt`, `snpe`, ...) and any a target crate adds.
//! - [`calib`]: the calibrators (`minmax`, `percentile`, `entropy`, `mse`), pure functions from
//!   a [`Histogram`](calib::Histogram) to a range.
//! - [`dataset`] and [`collect`]: calibration data read and checked, and the driver that runs the
//!   float model in the reference interpreter with an observer, then records each value's range
//!   in the IR (`quant.calibrated`).
//! - [`fold_bn`], [`apply`], [`dynamic`], [`lint`]: BatchNorm folding, the static QDQ form, the
//!   dynamic (run-time activation) form, and the lint that reports dequantized values feeding
//!   float compute.
//! - [`guard`] and [`report`]: the accuracy guard (float and quantized runs compared on an
//!   evaluation set: top-1, output SQNR and cosine, per-layer SQNR, the `--auto-fallback`
//!   search) and its reports (JSON, self-contained HTML, a terminal table).
//! - [`onnx_qdq`]: QDQ ONNX in and out (`quant-to-qdq`, `quant-from-qdq`, [`onnx_qdq::export_onnx`]).
//! - [`lower_qnn`]: `quant-lower-qnn`, which replaces `dcast -> float op -> qcast` chains with
//!   the integer ops of the `qnn` dialect and says why each chain it leaves stayed float.
//! - [`qparams`]: the JSON file of chosen (or user-given) scales and zero points.
//! - [`passes`]: `quant-fold-batchnorm`, `quant-calibrate`, `quant-apply`, `quant-lower-qnn`,
//!   `quant-lint`.

#![deny(missing_docs)]

pub mod apply;
pub mod batch;
pub mod calib;
pub mod collect;
pub mod dataset;
pub mod dynamic;
pub mod errors;
pub mod fold_bn;
pub mod guard;
pub mod ir_util;
pub mod lint;
pub mod lower_qnn;
pub mod onnx_qdq;
pub mod passes;
pub mod qparams;
pub mod report;
pub mod roles;
pub mod scheme;

pub use errors::QuantError;
pub use passes::register_passes;
pub use scheme::{Scheme, SchemeRegistry};

/// Makes a context ready for quantization: registers the graph, quant and qnn dialects if they
/// are not yet, and attaches the reference kernels (`nart_interp::register`: the graph ops, and the
/// exact ones of the quant casts and qnn ops, so that calibration and QDQ-form IR run in the
/// interpreter) and the lint's dequantize interface.
pub fn register(ctx: &mut nart_ir::Context) {
    if !ctx.registry.has_dialect("graph") {
        nart_dialect_graph::register(ctx);
    }
    if !ctx.registry.has_dialect("quant") {
        nart_dialect_quant::register(ctx);
    }
    if !ctx.registry.has_dialect("qnn") {
        nart_dialect_qnn::register(ctx);
    }
    nart_interp::register(ctx);
    lint::register(ctx);
}

#[cfg(test)]
mod tests {
    /// Replaces the text between `<!-- BEGIN {what} -->` and `<!-- END {what} -->` of
    /// `docs/quantization.md` with `generated`, or checks it (`NART_BLESS=1` rewrites).
    fn check_section(what: &str, generated: &str) {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/quantization.md");
        let text = std::fs::read_to_string(&path).expect("docs/quantization.md exists");
        let (begin, end) = (
            format!("<!-- BEGIN {what} -->\n"),
            format!("<!-- END {what} -->"),
        );
        let (Some(b), Some(e)) = (text.find(&begin), text.find(&end)) else {
            panic!("docs/quantization.md lacks the {what} markers");
        };
        if &text[b + begin.len()..e] != generated {
            if std::env::var_os("NART_BLESS").is_some() {
                let new = format!("{}{begin}{generated}{}", &text[..b], &text[e..]);
                std::fs::write(&path, new).expect("docs/quantization.md is writable");
            } else {
                panic!("docs/quantization.md ({what}) is out of date; run with NART_BLESS=1 to regenerate");
            }
        }
    }

    #[test]
    fn docs_in_sync() {
        let table = format!(
            "```\n{}```\n",
            crate::scheme::SchemeRegistry::with_builtins().listing()
        );
        check_section("GENERATED SCHEME TABLE", &table);
        let mut registry = nart_pass::PassRegistry::new();
        crate::register_passes(&mut registry);
        check_section("GENERATED PASS REFERENCE", &registry.markdown_reference());
    }
}
