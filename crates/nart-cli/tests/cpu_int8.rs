//! An int8 model on the code-level `cpu` target: digits_cnn quantized with `--quant onnx-qdq`
//! (calibrated on its committed data) compiles entirely into generated code (the quant casts
//! and the qnn ops included), and its outputs equal, bit for bit, those of the same quantized
//! model compiled for `interp` (the exact integer reference kernels). Without a C compiler the
//! test skips, unless `NART_REQUIRE_CC=1`.

mod common;

use common::{assert_cpu_matches_interp, committed, tmp, DIGITS_BATCH};
use nart_cli::package::{compile, CompileRequest};

fn package(targets: &str) -> (std::path::PathBuf, nart_rt::Package) {
    let dir = committed("digits_cnn");
    let out = tmp(
        "cpu-int8-tests",
        &format!("digits_cnn-int8-{targets}.nartpkg"),
    );
    let req = CompileRequest {
        model: dir.join("model.onnx"),
        targets: vec![targets.into()],
        quant: Some("onnx-qdq".into()),
        calib: Some(dir.join("calib_inputs.pb")),
        output: out.clone(),
        dims: vec![format!("N={DIGITS_BATCH}")],
        ..CompileRequest::default()
    };
    let pkg = compile(&req, &nart_cli::partition::registry(), &mut Vec::new())
        .unwrap_or_else(|e| panic!("digits_cnn int8 on {targets}: {e:#}"));
    (out, pkg)
}

#[test]
fn quantized_digits_cnn_runs_entirely_on_cpu_bit_exact_with_the_interpreter() {
    let cpu = nart_target_cpu::CpuTarget::host();
    if !nart_target::harness::available(
        "quantized_digits_cnn_runs_entirely_on_cpu_bit_exact_with_the_interpreter",
        "NART_REQUIRE_CC",
        nart_target::Target::availability(&cpu),
    ) {
        return;
    }
    let (cpu_path, cpu_pkg) = package("cpu");
    let (interp_path, _) = package("interp");
    assert_cpu_matches_interp(
        "digits_cnn int8",
        &cpu_path,
        &cpu_pkg,
        &interp_path,
        |a, b| a.to_bits() == b.to_bits(),
    );
}
