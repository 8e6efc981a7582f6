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

use common::{committed, read_pb, tmp};
use nart_cli::package::{compile, load_package, read_package_inputs, CompileRequest};
use nart_onnx_proto::{type_proto, TypeProto, ValueInfoProto};
use nart_rt::manifest::Step;
use nart_tensor::Tensor;

/// The batch the model is compiled for (that of digits_cnn's `test_data_set_0`).
const BATCH: usize = 16;

fn package(model: &Path, targets: &str) -> (PathBuf, nart_rt::Package) {
    let stem = model.file_stem().unwrap().to_string_lossy();
    let out = tmp("cpu-qop-tests", &format!("{stem}-{targets}.nartpkg"));
    let req = CompileRequest {
        model: model.to_path_buf(),
        targets: vec![targets.into()],
        output: out.clone(),
        dims: vec![format!("N={BATCH}")],
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

/// The first `n` batches of the committed held-out inputs.
fn heldout(n: usize) -> Vec<Tensor> {
    let all = read_pb(&committed("digits_cnn").join("heldout_inputs.pb"));
    let shape = all.shape().to_vec();
    let per: usize = shape[1..].iter().product::<usize>() * BATCH;
    let v = all.to_f32_vec().unwrap();
    let mut one = shape.clone();
    one[0] = BATCH;
    (0..n.min(shape[0] / BATCH))
        .map(|i| Tensor::from_vec(one.clone(), v[i * per..(i + 1) * per].to_vec()).unwrap())
        .collect()
}

/// Compiles `model` for `cpu` (asserting every step is generated code) and for `interp`, runs
/// both on the committed inputs, and checks each output element with `same(got, want)`.
fn compare(model: &Path, same: impl Fn(f32, f32) -> bool) {
    let (cpu_path, cpu_pkg) = package(model, "cpu");
    let steps = &cpu_pkg.manifest().steps;
    assert!(!steps.is_empty());
    for (i, s) in steps.iter().enumerate() {
        assert!(
            matches!(s, Step::Segment(seg) if seg.target == "cpu"),
            "{} is not generated code",
            s.describe(i)
        );
    }
    let (interp_path, _) = package(model, "interp");
    let runtimes = nart_rt_std::runtimes();
    let on_cpu = load_package(&cpu_path, &runtimes).unwrap();
    let on_interp = load_package(&interp_path, &runtimes).unwrap();
    let mut inputs =
        vec![
            read_package_inputs(&on_cpu, &committed("digits_cnn").join("test_data_set_0")).unwrap(),
        ];
    inputs.extend(heldout(8).into_iter().map(|t| vec![t]));
    for (k, xs) in inputs.into_iter().enumerate() {
        let got = on_cpu.run(xs.clone()).unwrap();
        let want = on_interp.run(xs).unwrap();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.shape(), w.shape(), "sample {k}");
            let (gv, wv) = (g.to_f32_vec().unwrap(), w.to_f32_vec().unwrap());
            let bad = gv.iter().zip(&wv).position(|(&a, &b)| !same(a, b));
            if let Some(i) = bad {
                panic!(
                    "{} sample {k}: element {i}: cpu {}, interp {}",
                    model.display(),
                    gv[i],
                    wv[i]
                );
            }
        }
    }
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
