//! QDQ ONNX out of `nart quantize` and into `nart run`, as a user runs them:
//! - `nart quantize ... -o Q.onnx` writes an ONNX file (QuantizeLinear/DequantizeLinear, no quant
//!   ops) for static, dynamic and float-cast schemes, and `nart run` runs it;
//! - ONNX Runtime runs the exported file and agrees with `nart run` within one quantization step
//!   on few elements (`scripts/quant/check_ort_qdq.py`; skips without python3 + onnx +
//!   onnxruntime, fails instead under `NART_REQUIRE_PYTHON_ORACLES=1`);
//! - a QDQ model with invalid parameters is an error naming the node, exit 1, never a panic.

mod common;
use common::float_info;

use std::path::{Path, PathBuf};
use std::process::Command;

use nart_cli::tensor_io::tensor_to_proto;
use nart_onnx_proto::{AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto};
use nart_tensor::Tensor;

fn cnn_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/models/digits_cnn")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("nart-qonnx-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `nart` and returns (exit code, stdout, stderr).
fn nart(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nart"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The op types of an ONNX file's graph, in order.
fn op_types(path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap();
    let model = nart_onnx_proto::decode_model(&bytes).expect("an ONNX file");
    model
        .graph
        .unwrap()
        .node
        .iter()
        .map(|n| n.op_type().to_string())
        .collect()
}

/// `nart quantize` digits_cnn with `extra` arguments into `dir/name`; returns its path.
fn quantize(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let model = cnn_dir().join("model.onnx");
    let calib = cnn_dir().join("calib_inputs.pb");
    let mut args = vec!["quantize", s(&model), "-o", s(&out)];
    if !extra.contains(&"dynamic") {
        args.extend(["--calib", s(&calib)]);
    }
    args.extend(extra);
    let (code, _, err) = nart(&args);
    assert_eq!(code, 0, "{args:?}: {err}");
    assert!(err.contains(&format!("wrote {}", out.display())), "{err}");
    out
}

#[test]
fn quantize_writes_onnx_that_nart_run_runs() {
    let dir = scratch("write");
    for (name, extra, want) in [
        (
            "static.onnx",
            &["--scheme", "onnx-qdq"][..],
            "QuantizeLinear",
        ),
        ("tensorrt.onnx", &["--scheme", "tensorrt"][..], "Clip"),
        ("w4.onnx", &["--scheme", "w4-group"][..], "DequantizeLinear"),
        (
            "dynamic.onnx",
            &["--mode", "dynamic"][..],
            "DynamicQuantizeLinear",
        ),
        ("fp16.onnx", &["--scheme", "fp16"][..], "Cast"),
    ] {
        let q = quantize(&dir, name, extra);
        // The lowest opset that holds QDQ with int4 and block_size, whatever the quantized ops
        // carry besides their ONNX attributes (quant.calibrated).
        let model = nart_onnx_proto::decode_model(&std::fs::read(&q).unwrap()).unwrap();
        let default = model.opset_import.iter().find(|o| o.domain().is_empty());
        assert_eq!(default.and_then(|o| o.version), Some(21), "{name}");
        let ops = op_types(&q);
        assert!(ops.iter().any(|o| o == want), "{name}: {ops:?}");
        let out = dir.join(format!("{name}.out"));
        let (code, _, err) = nart(&[
            "run",
            "--model",
            s(&q),
            "--inputs",
            s(&cnn_dir().join("test_data_set_0")),
            "--outputs",
            s(&out),
        ]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.join("output_0.pb").exists(), "{name}");
    }
    // The .mlir output is still IR.
    let ir = quantize(&dir, "q.mlir", &[]);
    let text = std::fs::read_to_string(ir).unwrap();
    assert!(text.contains("quant.qcast"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn python_has_onnxruntime() -> bool {
    Command::new("python3")
        .args(["-c", "import onnx, onnxruntime, numpy"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn onnxruntime_runs_exported_qdq_and_agrees_with_nart_run() {
    if !python_has_onnxruntime() {
        assert!(
            std::env::var_os("NART_REQUIRE_PYTHON_ORACLES").is_none_or(|v| v != "1"),
            "NART_REQUIRE_PYTHON_ORACLES=1 but python3 cannot import onnx and onnxruntime \
             (pip install -r scripts/requirements.txt)"
        );
        println!("SKIP: python3 with onnx and onnxruntime not found");
        return;
    }
    let dir = scratch("ort");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/quant/check_ort_qdq.py");
    let mut models = Vec::new();
    for scheme in [
        "onnx-qdq",
        "tensorrt",
        "arm-lowbit",
        "w4-group",
        "sigmastar",
    ] {
        models.push(quantize(
            &dir,
            &format!("{scheme}.onnx"),
            &["--scheme", scheme],
        ));
    }
    // And the models ONNX Runtime quantized itself: QDQ, and QOperator (QLinearConv, run by
    // nart's exact integer kernel).
    let heldout = cnn_dir().join("heldout_inputs.pb");
    let mut models: Vec<(PathBuf, PathBuf)> =
        models.into_iter().map(|m| (m, heldout.clone())).collect();
    models.push((cnn_dir().join("ort_qdq.onnx"), heldout.clone()));
    models.push((cnn_dir().join("ort_qop.onnx"), heldout.clone()));
    // ONNX Runtime's QOperator model with its com.microsoft contrib ops (QLinearAdd, QLinearMul,
    // QLinearSigmoid, QLinearLeakyRelu, QLinearConcat, QLinearAveragePool,
    // QLinearGlobalAveragePool, QGemm), which the importer expands into QDQ nodes.
    let contrib = cnn_dir().join("../qop_contrib");
    models.push((contrib.join("ort_qop.onnx"), contrib.join("input_0.pb")));
    for (m, input) in models {
        let out = Command::new("python3")
            .arg(&script)
            .args(["--nart", env!("CARGO_BIN_EXE_nart"), "--model"])
            .arg(&m)
            .arg("--input")
            .arg(&input)
            .output()
            .expect("python3 runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        println!("{}:\n{stdout}", m.display());
        assert!(
            out.status.success() && stdout.contains("OK"),
            "{}: onnxruntime and nart run disagree:\n{stdout}\n{stderr}",
            m.display()
        );
        assert!(
            stdout.contains("onnxruntime (optimizations off): output 0:"),
            "{stdout}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `y = x @ DequantizeLinear(w, scale, zero_point)` with `w` an int8 2x3 initializer.
fn qdq_model(scale: Tensor, zero_point: Tensor, axis: Option<i64>) -> Vec<u8> {
    let w = Tensor::from_vec(vec![2, 3], vec![1i8, 2, 3, 4, 5, 6]).unwrap();
    let mut dq = NodeProto {
        input: vec!["w".into(), "w_scale".into(), "w_zero_point".into()],
        output: vec!["wf".into()],
        name: Some("dq_w".into()),
        op_type: Some("DequantizeLinear".into()),
        ..Default::default()
    };
    if let Some(a) = axis {
        dq.attribute.push(AttributeProto {
            name: Some("axis".into()),
            r#type: Some(2),
            i: Some(a),
            ..Default::default()
        });
    }
    let mm = NodeProto {
        input: vec!["x".into(), "wf".into()],
        output: vec!["y".into()],
        name: Some("mm".into()),
        op_type: Some("MatMul".into()),
        ..Default::default()
    };
    let model = ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(21),
        }],
        graph: Some(GraphProto {
            name: Some("g".into()),
            node: vec![dq, mm],
            initializer: vec![
                tensor_to_proto(&w, "w"),
                tensor_to_proto(&scale, "w_scale"),
                tensor_to_proto(&zero_point, "w_zero_point"),
            ],
            input: vec![float_info("x", &[1, 2])],
            output: vec![float_info("y", &[1, 3])],
            ..Default::default()
        }),
        ..Default::default()
    };
    nart_onnx_proto::encode_model(&model)
}

#[test]
fn bad_qdq_parameters_are_errors_naming_the_node() {
    let dir = scratch("bad");
    let inputs = dir.join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    let x = Tensor::from_vec(vec![1, 2], vec![1f32, 1.0]).unwrap();
    std::fs::write(
        inputs.join("input_0.pb"),
        nart_onnx_proto::encode_tensor(&tensor_to_proto(&x, "x")),
    )
    .unwrap();
    let s3 = || Tensor::from_vec(vec![3], vec![0.1f32, 0.2, 0.3]).unwrap();
    let cases = [
        (
            "zp_shape",
            qdq_model(
                s3(),
                Tensor::from_vec(vec![2], vec![0i8, 0]).unwrap(),
                Some(1),
            ),
            "zero point and scale shapes differ",
        ),
        (
            "axis",
            qdq_model(
                s3(),
                Tensor::from_vec(vec![3], vec![0i8, 0, 0]).unwrap(),
                Some(5),
            ),
            "axis 5 out of range for rank 2",
        ),
        (
            "per_axis_length",
            qdq_model(
                s3(),
                Tensor::from_vec(vec![3], vec![0i8, 0, 0]).unwrap(),
                Some(0),
            ),
            "DequantizeLinear",
        ),
    ];
    for (name, bytes, want) in cases {
        let model = dir.join(format!("{name}.onnx"));
        std::fs::write(&model, bytes).unwrap();
        let out = dir.join(format!("{name}.out"));
        let (code, _, err) = nart(&[
            "run",
            "--model",
            s(&model),
            "--inputs",
            s(&inputs),
            "--outputs",
            s(&out),
        ]);
        assert_eq!(code, 1, "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        assert!(err.contains("dq_w") && err.contains(want), "{name}: {err}");
        assert!(!out.join("output_0.pb").exists(), "{name}");
    }
    // The same model with valid parameters runs.
    let good = dir.join("good.onnx");
    std::fs::write(
        &good,
        qdq_model(
            s3(),
            Tensor::from_vec(vec![3], vec![0i8, 0, 0]).unwrap(),
            Some(1),
        ),
    )
    .unwrap();
    let (code, _, err) = nart(&[
        "run",
        "--model",
        s(&good),
        "--inputs",
        s(&inputs),
        "--outputs",
        s(&dir.join("good.out")),
    ]);
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
