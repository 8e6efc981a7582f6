//! `nart quantize --form`: the qnn form (integer ops) by default for IR output, the QDQ form on
//! request, and a bad value rejected before anything runs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn models() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/models")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("nart-qform-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `nart quantize` on digits_cnn with `extra` arguments, writing `out`; returns (exit
/// code, stderr).
fn quantize(out: &Path, extra: &[&str]) -> (i32, String) {
    let model = models().join("digits_cnn/model.onnx");
    let calib = models().join("digits_cnn/calib_inputs.pb");
    let mut args: Vec<&str> = vec![
        "quantize",
        model.to_str().unwrap(),
        "--calib",
        calib.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let res = Command::new(env!("CARGO_BIN_EXE_nart"))
        .args(&args)
        .output()
        .unwrap();
    (
        res.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&res.stderr).into_owned(),
    )
}

#[test]
fn default_form_is_integer_qnn_ops() {
    let d = scratch("default");
    let out = d.join("q.mlir");
    let (code, err) = quantize(&out, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("qnn form: 5 integer ops (2 qnn.conv, 1 qnn.matmul, 2 qnn.max_pool), 0 float compute ops left in QDQ form"),
        "{err}"
    );
    let ir = std::fs::read_to_string(&out).unwrap();
    assert!(ir.contains("qnn.conv") && ir.contains("act<relu>"), "{ir}");
    for float_op in ["graph.Conv", "graph.Gemm", "graph.Relu", "graph.MaxPool"] {
        assert!(!ir.contains(float_op), "{float_op} left in:\n{ir}");
    }
    // The same command writes the same bytes.
    let again = d.join("q2.mlir");
    assert_eq!(quantize(&again, &["--form", "qnn"]).0, 0);
    assert_eq!(ir, std::fs::read_to_string(&again).unwrap());
}

#[test]
fn qdq_form_keeps_float_ops_between_casts() {
    let d = scratch("qdq");
    let out = d.join("q.mlir");
    let (code, err) = quantize(&out, &["--form", "qdq"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("qnn form"), "{err}");
    let ir = std::fs::read_to_string(&out).unwrap();
    assert!(
        ir.contains("graph.Conv") && ir.contains("quant.dcast"),
        "{ir}"
    );
    assert!(!ir.contains("qnn."), "{ir}");
}

#[test]
fn bad_form_is_an_error_and_writes_nothing() {
    let d = scratch("bad");
    let out = d.join("q.mlir");
    let (code, err) = quantize(&out, &["--form", "int8"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("invalid value 'int8' for '--form"), "{err}");
    assert!(!out.exists());
}

/// `nart run --model Q.mlir` runs the integer form that `nart quantize` wrote, with the same
/// inputs as the float model: its logits are close to float's (the guard's SQNR, roughly), and
/// broken IR text is a located error with exit 1.
#[test]
fn nart_run_reads_the_quantized_mlir() {
    let d = scratch("run-mlir");
    let q = d.join("q.mlir");
    assert_eq!(quantize(&q, &[]).0, 0);
    let inputs = models().join("digits_cnn/test_data_set_0");
    let run = |model: &Path, out: &Path| {
        Command::new(env!("CARGO_BIN_EXE_nart"))
            .args(["run", "--model"])
            .arg(model)
            .arg("--inputs")
            .arg(&inputs)
            .arg("--outputs")
            .arg(out)
            .output()
            .unwrap()
    };
    let (fo, qo) = (d.join("float"), d.join("int"));
    let r = run(&models().join("digits_cnn/model.onnx"), &fo);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let r = run(&q, &qo);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let read = |dir: &Path| {
        nart_quant::dataset::read_tensor(&dir.join("output_0.pb"))
            .unwrap()
            .to_f64_vec()
            .unwrap()
    };
    let (f, i) = (read(&fo), read(&qo));
    assert_eq!(f.len(), i.len());
    let signal: f64 = f.iter().map(|x| x * x).sum();
    let noise: f64 = f.iter().zip(&i).map(|(a, b)| (a - b) * (a - b)).sum();
    let sqnr = 10.0 * (signal / noise).log10();
    assert!(sqnr > 25.0 && sqnr.is_finite(), "SQNR {sqnr} dB");

    let bad = d.join("bad.mlir");
    std::fs::write(
        &bad,
        "func.func @f(%x: tensor<2xf32>) {\n  %y = graph.Nope %x\n}\n",
    )
    .unwrap();
    let r = run(&bad, &d.join("bad-out"));
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("bad.mlir:2:"), "{err}");
}
