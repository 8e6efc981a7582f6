//! The `onednn` target end to end: the zoo compiled with `--targets onednn,interp` into
//! packages, run through `nart-rt`, compared with ONNX Runtime's outputs (the models'
//! `test_data_set_0`, which ONNX Runtime wrote); most ops must land on oneDNN. ResNet-18 and
//! MobileNetV2 come from the zoo cache with `NART_ZOO=1`. Without oneDNN every test skips,
//! unless `NART_REQUIRE_ONEDNN=1`.

use std::path::Path;
use std::process::Command;

mod common;

use common::{committed, zoo_cache};

fn onednn_here(test: &str) -> bool {
    nart_target::harness::available(
        test,
        "NART_REQUIRE_ONEDNN",
        nart_onednn_rt::availability().map(|_| ()),
    )
}

fn check_model(dir: &Path, name: &str, min_share: f64, tol: f32) {
    common::check_model("onednn", dir, name, min_share, tol);
}

#[test]
fn digits_cnn_matches_onnx_runtime() {
    if onednn_here("digits_cnn_matches_onnx_runtime") {
        check_model(&committed("digits_cnn"), "digits_cnn", 0.9, 1e-4);
    }
}

/// Its GELUs are recognized before partitioning, so every op but the embedding's `Gather`
/// lands on oneDNN.
#[test]
fn tiny_transformer_matches_onnx_runtime() {
    if onednn_here("tiny_transformer_matches_onnx_runtime") {
        check_model(
            &committed("tiny_transformer"),
            "tiny_transformer",
            0.95,
            1e-4,
        );
    }
}

/// GELUs (erf and tanh forms) and layer normalizations written out as torch exports them
/// are recognized before partitioning: every op lands on oneDNN.
#[test]
fn decomposed_transformer_matches_onnx_runtime() {
    if onednn_here("decomposed_transformer_matches_onnx_runtime") {
        check_model(
            &committed("decomposed_transformer"),
            "decomposed_transformer",
            1.0,
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

    let version = nart_onednn_rt::availability().unwrap();
    common::binary_round_trip("onednn", &version);
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
