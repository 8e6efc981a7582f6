//! An ONNX Runtime QOperator model on the code-level `cpu` target: digits_cnn as ONNX Runtime's
//! `quantize_static` wrote it in the QOperator format (QuantizeLinear, QLinearConv,
//! DequantizeLinear around float Relu, MaxPool, Flatten and Gemm; `ort_qop.onnx`, committed)
//! compiles with `--targets cpu` entirely into generated code, and its outputs equal, bit for
//! bit, those of the same model compiled for `interp` (the reference kernels). Without a C
//! compiler the test skips, unless `NART_REQUIRE_CC=1`.

mod common;

use common::{committed, read_pb, tmp};
use nart_cli::package::{compile, load_package, read_package_inputs, CompileRequest};
use nart_rt::manifest::Step;
use nart_tensor::Tensor;

/// The batch the model is compiled for (that of digits_cnn's `test_data_set_0`).
const BATCH: usize = 16;

fn package(targets: &str) -> (std::path::PathBuf, nart_rt::Package) {
    let dir = committed("digits_cnn");
    let out = tmp(
        "cpu-qop-tests",
        &format!("digits_cnn-qop-{targets}.nartpkg"),
    );
    let req = CompileRequest {
        model: dir.join("ort_qop.onnx"),
        targets: vec![targets.into()],
        output: out.clone(),
        dims: vec![format!("N={BATCH}")],
        ..CompileRequest::default()
    };
    let pkg = compile(&req, &nart_cli::partition::registry(), &mut Vec::new())
        .unwrap_or_else(|e| panic!("digits_cnn QOperator on {targets}: {e:#}"));
    (out, pkg)
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

#[test]
fn onnx_runtime_qoperator_model_runs_entirely_on_cpu_bit_exact_with_the_interpreter() {
    let cpu = nart_target_cpu::CpuTarget::host();
    if !nart_target::harness::available(
        "onnx_runtime_qoperator_model_runs_entirely_on_cpu_bit_exact_with_the_interpreter",
        "NART_REQUIRE_CC",
        nart_target::Target::availability(&cpu),
    ) {
        return;
    }
    let (cpu_path, cpu_pkg) = package("cpu");
    let steps = &cpu_pkg.manifest().steps;
    assert!(!steps.is_empty());
    for (i, s) in steps.iter().enumerate() {
        assert!(
            matches!(s, Step::Segment(seg) if seg.target == "cpu"),
            "{} is not generated code",
            s.describe(i)
        );
    }
    let (interp_path, _) = package("interp");
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
            let same = gv.iter().zip(&wv).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "sample {k}: cpu {gv:?}, interp {wv:?}");
        }
    }
}
