//! The `onednn` target end to end: the zoo compiled with `--targets onednn,interp` into
//! packages, run through `nart-rt`, compared with ONNX Runtime's outputs (the models'
//! `test_data_set_0`, which ONNX Runtime wrote); most ops must land on oneDNN. ResNet-18 and
//! MobileNetV2 come from the zoo cache with `NART_ZOO=1`. Without oneDNN every test skips,
//! unless `NART_REQUIRE_ONEDNN=1`.

use std::path::{Path, PathBuf};
use std::process::Command;

use nart_cli::package::{compile, load_package, read_package_inputs, CompileRequest};
use nart_tensor::Tensor;

fn onednn_here(test: &str) -> bool {
    match nart_onednn_rt::availability() {
        Ok(_) => true,
        Err(e) => {
            if std::env::var("NART_REQUIRE_ONEDNN").as_deref() == Ok("1") {
                panic!("{test}: NART_REQUIRE_ONEDNN=1 but oneDNN is unavailable: {e}");
            }
            eprintln!("{test}: skipped, oneDNN is unavailable: {e}");
            false
        }
    }
}

fn committed(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/models")
        .join(name)
}

fn zoo_cache(name: &str) -> PathBuf {
    let base = std::env::var_os("NART_MODEL_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/nart/models")
        });
    base.join(name)
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("onednn-tests");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Compiles the model in `dir` for onednn,interp; returns the package and the report.
fn compile_onednn(dir: &Path, name: &str) -> (PathBuf, String) {
    let out = tmp(&format!("{name}-onednn.nartpkg"));
    let req = CompileRequest {
        model: dir.join("model.onnx"),
        targets: vec!["onednn".into(), "interp".into()],
        output: out.clone(),
        ..CompileRequest::default()
    };
    let mut report = Vec::new();
    compile(&req, &nart_cli::partition::registry(), &mut report)
        .unwrap_or_else(|e| panic!("{name}: {e:#}"));
    (out, String::from_utf8(report).unwrap())
}

/// ONNX Runtime's outputs for test_data_set_0.
fn ort_outputs(dir: &Path, n: usize) -> Vec<Tensor> {
    (0..n)
        .map(|i| {
            let bytes = std::fs::read(dir.join(format!("test_data_set_0/output_{i}.pb"))).unwrap();
            let p: nart_onnx_proto::onnx::TensorProto = prost::Message::decode(&bytes[..]).unwrap();
            nart_cli::tensor_io::tensor_from_proto(&p).unwrap()
        })
        .collect()
}

/// The largest |a - b| over all elements, and the largest |b|.
fn max_diff(a: &[Tensor], b: &[Tensor]) -> (f32, f32) {
    let mut d: f32 = 0.0;
    let mut m: f32 = 0.0;
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.shape(), y.shape());
        for (p, q) in x.to_f32_vec().unwrap().iter().zip(y.to_f32_vec().unwrap()) {
            d = d.max((p - q).abs());
            m = m.max(q.abs());
        }
    }
    (d, m)
}

/// How many ops of the placement table went to `target`.
fn placed_on(report: &str, target: &str) -> (usize, usize) {
    let table = report.split("\n\n").next().unwrap();
    let rows: Vec<&str> = table.lines().skip(1).collect();
    let on = rows
        .iter()
        .filter(|l| l.split_whitespace().nth(2) == Some(target))
        .count();
    (on, rows.len())
}

fn check_model(dir: &Path, name: &str, min_share: f64, tol: f32) {
    let (pkg, report) = compile_onednn(dir, name);
    let (on, all) = placed_on(&report, "onednn");
    assert!(
        on as f64 >= min_share * all as f64,
        "{name}: only {on} of {all} ops on onednn\n{report}"
    );
    let s = load_package(&pkg, &nart_rt_std::runtimes()).unwrap();
    let xs = read_package_inputs(&s, &dir.join("test_data_set_0")).unwrap();
    let got = s.run(xs).unwrap();
    let want = ort_outputs(dir, got.len());
    let (d, m) = max_diff(&got, &want);
    eprintln!(
        "{name}: {on} of {all} ops on onednn; max |onednn - onnxruntime| = {d:e} (max |y| {m:e})"
    );
    assert!(
        d <= tol * m.max(1.0),
        "{name}: differs from ONNX Runtime by {d} (max |y| {m})"
    );
}

#[test]
fn digits_cnn_matches_onnx_runtime() {
    if onednn_here("digits_cnn_matches_onnx_runtime") {
        check_model(&committed("digits_cnn"), "digits_cnn", 0.9, 1e-4);
    }
}

#[test]
fn tiny_transformer_matches_onnx_runtime() {
    if onednn_here("tiny_transformer_matches_onnx_runtime") {
        check_model(
            &committed("tiny_transformer"),
            "tiny_transformer",
            0.5,
            1e-4,
        );
    }
}

#[test]
fn zoo_cnns_match_onnx_runtime() {
    if !onednn_here("zoo_cnns_match_onnx_runtime") {
        return;
    }
    if std::env::var_os("NART_ZOO").is_none() {
        eprintln!("zoo: set NART_ZOO=1 to run ResNet-18 and MobileNetV2 from the zoo cache");
        return;
    }
    for name in ["resnet18", "mobilenetv2"] {
        let dir = zoo_cache(name);
        assert!(
            dir.join("model.onnx").exists(),
            "NART_ZOO=1 but {} is missing (run scripts/models/build_zoo.py --cache)",
            dir.display()
        );
        check_model(&dir, name, 0.9, 1e-3);
    }
}

#[test]
fn the_binary_lists_compiles_runs_benches_and_inspects() {
    if !onednn_here("the_binary_lists_compiles_runs_benches_and_inspects") {
        return;
    }
    let nart = || Command::new(env!("CARGO_BIN_EXE_nart"));
    let out = nart().arg("targets").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success());
    assert!(text.lines().any(|l| l.starts_with("onednn  ")), "{text}");
    assert!(!text.contains("unavailable"), "{text}");

    let dir = committed("digits_cnn");
    let pkg = tmp("bin-digits_cnn.nartpkg");
    let out = nart()
        .args(["compile"])
        .arg(dir.join("model.onnx"))
        .args(["--targets", "onednn,interp", "-o"])
        .arg(&pkg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = nart().arg("inspect").arg(&pkg).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let version = nart_onednn_rt::availability().unwrap();
    assert!(
        text.contains(&version),
        "inspect names the SDK version {version}:\n{text}"
    );
    let outputs = tmp("bin-digits_cnn-out");
    let out = nart()
        .args(["run", "--package"])
        .arg(&pkg)
        .arg("--inputs")
        .arg(dir.join("test_data_set_0"))
        .arg("--outputs")
        .arg(&outputs)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(outputs.join("output_0.pb")).unwrap();
    let p: nart_onnx_proto::onnx::TensorProto = prost::Message::decode(&bytes[..]).unwrap();
    let got = nart_cli::tensor_io::tensor_from_proto(&p).unwrap();
    let (d, m) = max_diff(&[got], &ort_outputs(&dir, 1));
    assert!(
        d <= 1e-4 * m.max(1.0),
        "nart run --package differs from ONNX Runtime by {d}"
    );
    let out = nart()
        .args(["bench", "--package"])
        .arg(&pkg)
        .args(["--runs", "5", "--json", "--dim", "N=2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(line.contains("median"), "{line}");
}

/// Without oneDNN the target stays listed, and `nart targets` says why it is unavailable.
#[test]
fn an_unavailable_onednn_is_listed_with_the_reason() {
    let mut r = nart_target::TargetRegistry::builtin();
    r.register(Box::new(nart_target_onednn::OnednnTarget::unavailable(
        "cannot load oneDNN (libdnnl.so.2: cannot open shared object file)",
    )));
    let table = nart_cli::partition::targets_table(&r);
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[2].starts_with("onednn  op  "), "{table}");
    assert_eq!(
        lines.last(),
        Some(&"onednn is unavailable: cannot load oneDNN (libdnnl.so.2: cannot open shared object file)")
    );
}
