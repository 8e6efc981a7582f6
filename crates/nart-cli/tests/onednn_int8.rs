//! Quantized zoo models compiled with `--targets onednn,interp --quant onnx-qdq --calib ...`:
//! the integer convolutions and matmuls run on oneDNN, and the package's results are
//! bit-identical to the same model compiled with `--targets interp`.

use std::path::{Path, PathBuf};

use nart_cli::package::{compile, load_package, read_package_inputs, CompileRequest};
use nart_rt::manifest::Step;
use nart_target::Target;
use nart_tensor::Tensor;

fn model_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/models")
        .join(name)
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("onednn-int8-tests");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Compiles `name` quantized (calibrated on `calib`) for `targets`; the package's path and the
/// segments' targets with their op counts.
fn quantized(name: &str, calib: &Path, targets: &[&str]) -> (PathBuf, Vec<(String, u64)>) {
    let out = tmp(&format!("{name}-q-{}.nartpkg", targets.join("+")));
    let req = CompileRequest {
        model: model_dir(name).join("model.onnx"),
        targets: targets.iter().map(|t| t.to_string()).collect(),
        quant: Some("onnx-qdq".into()),
        calib: Some(calib.to_path_buf()),
        output: out.clone(),
        ..CompileRequest::default()
    };
    let pkg = compile(&req, &nart_cli::partition::registry(), &mut Vec::new())
        .unwrap_or_else(|e| panic!("{name} on {targets:?}: {e:#}"));
    let segments = pkg
        .manifest()
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Segment(seg) => Some((seg.target.clone(), seg.ops)),
            _ => None,
        })
        .collect();
    (out, segments)
}

fn run(pkg: &Path, name: &str) -> Vec<Tensor> {
    let s = load_package(pkg, &nart_rt_std::runtimes()).unwrap();
    let xs = read_package_inputs(&s, &model_dir(name).join("test_data_set_0")).unwrap();
    s.run(xs).unwrap()
}

#[test]
fn quantized_cnns_on_onednn_equal_the_interpreter_bit_for_bit() {
    if let Err(e) = nart_target_onednn::OnednnTarget::new().availability() {
        if std::env::var("NART_REQUIRE_ONEDNN").as_deref() == Ok("1") {
            panic!("NART_REQUIRE_ONEDNN=1 but oneDNN is unavailable: {e}");
        }
        eprintln!("skipped: oneDNN is unavailable: {e}");
        return;
    }
    for (name, calib) in [
        (
            "digits_cnn",
            model_dir("digits_cnn").join("calib_inputs.pb"),
        ),
        (
            "static_cnn",
            model_dir("static_cnn")
                .join("test_data_set_0")
                .join("input_0.pb"),
        ),
    ] {
        let (reference, _) = quantized(name, &calib, &["interp"]);
        let (mixed, segments) = quantized(name, &calib, &["onednn", "interp"]);
        let on_onednn: u64 = segments
            .iter()
            .filter(|(t, _)| t == "onednn")
            .map(|(_, n)| n)
            .sum();
        assert!(on_onednn > 0, "{name}: nothing ran on onednn: {segments:?}");
        let (got, want) = (run(&mixed, name), run(&reference, name));
        assert_eq!(got, want, "{name}: onednn,interp differs from interp");
        eprintln!("{name}: {segments:?}, bit-identical to the interpreter");
    }
}
