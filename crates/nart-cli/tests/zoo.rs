//! End-to-end: the committed models in `tests/models/` run through the interpreter on their
//! `test_data_set_0` and match the committed ONNX Runtime outputs, and `nart run` rejects wrong
//! inputs with a message naming the input.
//!
//! Tolerance: |nart - ort| <= 1e-4 + 1e-4 * |ort| per element (both compute in f32; they differ
//! only in summation order).

use std::path::{Path, PathBuf};
use std::process::Command;

use nart_cli::commands::load;
use nart_cli::tensor_io::{read_inputs, read_outputs};
use nart_interp::Val;

fn models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/models")
}

fn check_model(name: &str) {
    let dir = models_dir().join(name);
    let m = load(&dir.join("model.onnx"), None).unwrap_or_else(|e| panic!("{name}: {e:#}"));
    let data = dir.join("test_data_set_0");
    let inputs = read_inputs(&data, m.interp.inputs()).unwrap();
    let got = m
        .interp
        .run_values(inputs)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let want = read_outputs(&data, m.interp.output_kinds()).unwrap();
    assert_eq!(got.len(), want.len(), "{name}: output count");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let (Val::Tensor(g), Val::Tensor(w)) = (g, w) else {
            panic!("{name}: output #{k} is not a tensor");
        };
        assert_eq!(g.shape(), w.shape(), "{name}: output #{k} shape");
        assert_eq!(g.dtype(), w.dtype(), "{name}: output #{k} dtype");
        let (g, w) = (g.to_f64_vec().unwrap(), w.to_f64_vec().unwrap());
        let mut worst = 0f64;
        for (a, b) in g.iter().zip(&w) {
            let err = (a - b).abs();
            assert!(
                err <= 1e-4 + 1e-4 * b.abs(),
                "{name}: output #{k}: {a} vs {b}"
            );
            worst = worst.max(err);
        }
        eprintln!(
            "{name}: output #{k}: {} elements, max abs error {worst:.3e}",
            g.len()
        );
    }
}

#[test]
fn digits_mlp_matches_onnx_runtime() {
    check_model("digits_mlp");
}

#[test]
fn digits_cnn_matches_onnx_runtime() {
    check_model("digits_cnn");
}

#[test]
fn tiny_transformer_matches_onnx_runtime() {
    check_model("tiny_transformer");
}

fn nart(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nart"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("nart-cli-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn run_writes_outputs_and_rejects_bad_inputs() {
    let dir = models_dir().join("digits_mlp");
    let model = dir.join("model.onnx");
    let model = model.to_str().unwrap();
    let out = scratch("ok");
    let data = dir.join("test_data_set_0");
    let (code, err) = nart(&[
        "run",
        "--model",
        model,
        "--inputs",
        data.to_str().unwrap(),
        "--outputs",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.join("output_0.pb").exists());

    // A dataset: one output folder per sample folder.
    let (code, err) = nart(&[
        "run",
        "--model",
        model,
        "--dataset",
        dir.to_str().unwrap(),
        "--outputs",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.join("test_data_set_0/output_0.pb").exists());

    // No inputs at all.
    let empty = scratch("empty");
    let (code, err) = nart(&[
        "run",
        "--model",
        model,
        "--inputs",
        empty.to_str().unwrap(),
        "--outputs",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("missing input #0 'input'"), "{err}");

    // Wrong dtype (f64 .npy).
    let t = nart_tensor::Tensor::from_vec(vec![1, 64], vec![0f64; 64]).unwrap();
    t.write_npy(empty.join("input_0.npy")).unwrap();
    let (code, err) = nart(&[
        "run",
        "--model",
        model,
        "--inputs",
        empty.to_str().unwrap(),
        "--outputs",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("input #0 'input': expected element type f32, got f64"),
        "{err}"
    );

    // Wrong shape.
    let t = nart_tensor::Tensor::from_vec(vec![1, 63], vec![0f32; 63]).unwrap();
    t.write_npy(empty.join("input_0.npy")).unwrap();
    let (code, err) = nart(&[
        "run",
        "--model",
        model,
        "--inputs",
        empty.to_str().unwrap(),
        "--outputs",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("input #0 'input': expected shape"), "{err}");

    // Too many inputs.
    let t = nart_tensor::Tensor::from_vec(vec![1, 64], vec![0f32; 64]).unwrap();
    t.write_npy(empty.join("input_0.npy")).unwrap();
    t.write_npy(empty.join("input_1.npy")).unwrap();
    let (code, err) = nart(&[
        "run",
        "--model",
        model,
        "--inputs",
        empty.to_str().unwrap(),
        "--outputs",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("more inputs than the model's 1"), "{err}");
}
