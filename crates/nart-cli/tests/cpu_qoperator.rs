//! An ONNX Runtime QOperator model on the code-level `cpu` target: digits_cnn as ONNX Runtime's
//! `quantize_static` wrote it in the QOperator format (QuantizeLinear, QLinearConv,
//! DequantizeLinear around float Relu, MaxPool, Flatten and a float Gemm; `ort_qop.onnx`,
//! committed) compiles with `--targets cpu` entirely into generated code. Up to the Flatten
//! (the graph cut before the Gemm, every op of it exact) its outputs equal, bit for bit, those
//! of the same model compiled for `interp` (the reference kernels); the whole model, whose
//! float Gemm sums in another order, agrees within the float bound. Without a C compiler the
//! test skips, unless `NART_REQUIRE_CC=1`.

mod common;

use std::path::{Path, PathBuf};

use common::{assert_cpu_matches_interp, committed, tmp, DIGITS_BATCH};
use nart_cli::package::{compile, CompileRequest};
use nart_onnx_proto::{type_proto, TypeProto, ValueInfoProto};

fn package(model: &Path, targets: &str) -> (PathBuf, nart_rt::Package) {
    let stem = model.file_stem().unwrap().to_string_lossy();
    let out = tmp("cpu-qop-tests", &format!("{stem}-{targets}.nartpkg"));
    let req = CompileRequest {
        model: model.to_path_buf(),
        targets: vec![targets.into()],
        output: out.clone(),
        dims: vec![format!("N={DIGITS_BATCH}")],
        ..CompileRequest::default()
    };
    let pkg = compile(&req, &nart_cli::partition::registry(), &mut Vec::new())
        .unwrap_or_else(|e| panic!("{} on {targets}: {e:#}", model.display()));
    (out, pkg)
}

/// `ort_qop.onnx` without its last node (the float Gemm), returning the Flatten's output.
fn without_the_gemm() -> PathBuf {
    let bytes = std::fs::read(committed("digits_cnn").join("ort_qop.onnx")).unwrap();
    let mut model = nart_onnx_proto::decode_model(&bytes).expect("an ONNX file");
    let graph = model.graph.as_mut().unwrap();
    let gemm = graph.node.pop().unwrap();
    assert_eq!(gemm.op_type(), "Gemm", "the model ends with its classifier");
    let flat = gemm.input[0].clone();
    graph.output = vec![ValueInfoProto {
        name: Some(flat),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: None,
            })),
            ..TypeProto::default()
        }),
        ..ValueInfoProto::default()
    }];
    let path = tmp("cpu-qop-tests", "ort_qop_features.onnx");
    std::fs::write(&path, nart_onnx_proto::encode_model(&model)).unwrap();
    path
}

/// Compiles `model` for `cpu` (asserting every step is generated code) and for `interp`, runs
/// both on the committed inputs, and checks each output element with `same(got, want)`.
fn compare(model: &Path, same: impl Fn(f32, f32) -> bool) {
    let (cpu_path, cpu_pkg) = package(model, "cpu");
    let (interp_path, _) = package(model, "interp");
    let what = model.display().to_string();
    assert_cpu_matches_interp(&what, &cpu_path, &cpu_pkg, &interp_path, same);
}

#[test]
fn onnx_runtime_qoperator_model_runs_entirely_on_cpu_and_matches_the_interpreter() {
    let cpu = nart_target_cpu::CpuTarget::host();
    if !nart_target::harness::available(
        "onnx_runtime_qoperator_model_runs_entirely_on_cpu_and_matches_the_interpreter",
        "NART_REQUIRE_CC",
        nart_target::Target::availability(&cpu),
    ) {
        return;
    }
    // Quantize, the integer convolutions, dequantize, Relu, MaxPool, Flatten: bit for bit.
    compare(&without_the_gemm(), |a, b| a.to_bits() == b.to_bits());
    // The float Gemm after them sums its products in another order.
    compare(&committed("digits_cnn").join("ort_qop.onnx"), |a, b| {
        (a - b).abs() <= 1e-4 * b.abs().max(1.0)
    });
}
