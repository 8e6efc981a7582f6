//! `nart bench --package --json` reports the peak memory of a load and a run as the larger of
//! the counting allocator's peak and the resident set's rise, so that what oneDNN allocates
//! itself counts: for an onednn package of 4 MiB of weights the peak is above the weights'
//! size, and both measures are reported.

mod common;
use common::float_info;

use std::path::{Path, PathBuf};
use std::process::Command;

use nart_cli::tensor_io::tensor_to_proto;
use nart_onnx_proto::{GraphProto, ModelProto, NodeProto, OperatorSetIdProto};
use nart_target::Target;
use nart_tensor::Tensor;

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-memory-tests");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// `y = relu(x @ w)` with `w` a `[k, k]` `f32` initializer of varied values.
fn matmul_model(k: usize) -> Vec<u8> {
    let w: Vec<f32> = (0..k * k)
        .map(|i| ((i * 7919) % 1000) as f32 * 1e-3 - 0.5)
        .collect();
    let w = Tensor::from_vec(vec![k, k], w).unwrap();
    let node = |op: &str, inputs: &[&str], output: &str| NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.into()],
        name: Some(format!("{op}0")),
        op_type: Some(op.into()),
        ..Default::default()
    };
    let model = ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        graph: Some(GraphProto {
            name: Some("g".into()),
            node: vec![node("MatMul", &["x", "w"], "h"), node("Relu", &["h"], "y")],
            initializer: vec![tensor_to_proto(&w, "w")],
            input: vec![float_info("x", &[4, k as i64])],
            output: vec![float_info("y", &[4, k as i64])],
            ..Default::default()
        }),
        ..Default::default()
    };
    nart_onnx_proto::encode_model(&model)
}

fn nart(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_nart"))
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "nart {args:?}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn an_onednn_package_peaks_above_its_weights() {
    if let Err(e) = nart_target_onednn::OnednnTarget::new().availability() {
        if std::env::var("NART_REQUIRE_ONEDNN").as_deref() == Ok("1") {
            panic!("NART_REQUIRE_ONEDNN=1 but oneDNN is unavailable: {e}");
        }
        eprintln!("skipped: oneDNN is unavailable: {e}");
        return;
    }
    const K: usize = 1024;
    let weights = (K * K * 4) as u64;
    let model = tmp("matmul.onnx");
    std::fs::write(&model, matmul_model(K)).unwrap();
    let pkg = tmp("matmul-onednn.nartpkg");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let report = nart(&["compile", &s(&model), "--targets", "onednn", "-o", &s(&pkg)]);
    assert!(report.contains("onednn"), "{report}");
    let line = nart(&["bench", "--package", &s(&pkg), "--runs", "2", "--json"]);
    let v: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    let peak = v["peak_bytes"].as_u64().expect("a measured peak");
    assert!(
        peak > weights,
        "peak {peak} not above the weights' {weights} bytes: {line}"
    );
    // The `nart` binary counts its allocations; on Linux the resident set is measured too,
    // and the peak is the larger.
    let heap = v["peak_heap_bytes"]
        .as_u64()
        .expect("the counting allocator's peak");
    assert!(peak >= heap, "{line}");
    if Path::new("/proc/self/clear_refs").exists() {
        let resident = v["peak_resident_bytes"]
            .as_u64()
            .expect("the resident peak");
        assert!(peak >= resident, "{line}");
        assert!(
            resident > weights,
            "resident {resident} for {weights} bytes of weights: {line}"
        );
    }
    let text = nart(&["bench", "--package", &s(&pkg), "--runs", "1"]);
    assert!(
        text.contains("allocator") && text.contains("resident set"),
        "{text}"
    );
}
