//! Quantized `digits_cnn` on `--targets onednn,interp` is one onednn segment: the input's
//! `quant.qcast`, the integer convolutions and max poolings, the flatten between them (a
//! view of the stored integers), the integer matmul and the result's `quant.dcast` all run
//! on the onednn target. The package's results are bit-identical to the interpreter's.

use std::path::{Path, PathBuf};

use nart_cli::package::{compile, load_package, read_package_inputs, CompileRequest};
use nart_rt::manifest::Step;
use nart_target::Target;
use nart_tensor::Tensor;

fn model_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/models/digits_cnn")
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("onednn-int8-segment-tests");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// The quantized package for `targets`, and its segments' targets with their op counts.
fn quantized(targets: &[&str]) -> (PathBuf, Vec<(String, u64)>, String) {
    let out = tmp(&format!("digits_cnn-{}.nartpkg", targets.join("+")));
    let req = CompileRequest {
        model: model_dir().join("model.onnx"),
        targets: targets.iter().map(|t| t.to_string()).collect(),
        quant: Some("onnx-qdq".into()),
        calib: Some(model_dir().join("calib_inputs.pb")),
        output: out.clone(),
        ..CompileRequest::default()
    };
    let mut report = Vec::new();
    let pkg = compile(&req, &nart_cli::partition::registry(), &mut report)
        .unwrap_or_else(|e| panic!("{targets:?}: {e:#}"));
    let segments = pkg
        .manifest()
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Segment(seg) => Some((seg.target.clone(), seg.ops)),
            _ => None,
        })
        .collect();
    (out, segments, String::from_utf8(report).unwrap())
}

fn run(pkg: &Path, inputs: &Path) -> Vec<Tensor> {
    let s = load_package(pkg, &nart_rt_std::runtimes()).unwrap();
    let xs = read_package_inputs(&s, inputs).unwrap();
    s.run(xs).unwrap()
}

#[test]
fn quantized_digits_cnn_is_one_onednn_segment_equal_to_the_interpreter() {
    if let Err(e) = nart_target_onednn::OnednnTarget::new().availability() {
        if std::env::var("NART_REQUIRE_ONEDNN").as_deref() == Ok("1") {
            panic!("NART_REQUIRE_ONEDNN=1 but oneDNN is unavailable: {e}");
        }
        eprintln!("skipped: oneDNN is unavailable: {e}");
        return;
    }
    let (reference, _, _) = quantized(&["interp"]);
    let (mixed, segments, report) = quantized(&["onednn", "interp"]);
    assert_eq!(segments, [("onednn".to_string(), 16)], "{report}");
    for op in [
        "quant.qcast",
        "qnn.conv",
        "qnn.max_pool",
        "graph.Flatten",
        "qnn.matmul",
        "quant.dcast",
    ] {
        let placed: Vec<&str> = report
            .lines()
            .filter(|l| l.split_whitespace().nth(1) == Some(op))
            .collect();
        assert!(
            !placed.is_empty() && placed.iter().all(|l| l.contains(" onednn")),
            "{op} not on onednn:\n{report}"
        );
    }
    let mut checked = 0;
    for inputs in [
        model_dir().join("test_data_set_0"),
        model_dir().join("heldout_inputs.pb"),
    ] {
        if inputs.extension().is_some() {
            // A batch file: one folder holding it as input_0.pb.
            let d = tmp("heldout");
            std::fs::create_dir_all(&d).unwrap();
            std::fs::copy(&inputs, d.join("input_0.pb")).unwrap();
            assert_eq!(run(&mixed, &d), run(&reference, &d), "heldout inputs");
        } else {
            assert_eq!(run(&mixed, &inputs), run(&reference, &inputs), "{inputs:?}");
        }
        checked += 1;
    }
    assert_eq!(checked, 2);
}
