//! The `openvino` target end to end: the zoo compiled with `--targets openvino,interp` into
//! packages, run through `nart-rt`, compared with ONNX Runtime's outputs (the models'
//! `test_data_set_0`, which ONNX Runtime wrote); the binary's targets, compile, inspect, run and
//! bench; and a missing library (`NART_OPENVINO_LIB` at a bad path): a clear error, exit 1, no
//! panic. ResNet-18 and MobileNetV2 come from the zoo cache with `NART_ZOO=1`. Without
//! OpenVINO the tests that run it skip, unless `NART_REQUIRE_OPENVINO=1`.

use std::path::{Path, PathBuf};
use std::process::Command;

use nart_target::TargetRegistry;

mod common;

use common::{committed, placed_on, tmp, zoo_cache};

fn openvino_here(test: &str) -> bool {
    nart_target::harness::available(
        test,
        "NART_REQUIRE_OPENVINO",
        nart_openvino_rt::availability().map(|_| ()),
    )
}

fn compile_openvino(dir: &Path, name: &str, registry: &TargetRegistry) -> (PathBuf, String) {
    common::compile_for("openvino", dir, name, registry)
}

fn check_model(dir: &Path, name: &str, tol: f32) {
    common::check_model("openvino", dir, name, 0.9, tol);
}

#[test]
fn committed_models_match_onnx_runtime() {
    if !openvino_here("committed_models_match_onnx_runtime") {
        return;
    }
    for name in ["digits_cnn", "digits_mlp", "tiny_transformer"] {
        check_model(&committed(name), name, 1e-4);
    }
}

#[test]
fn zoo_cnns_match_onnx_runtime() {
    if !openvino_here("zoo_cnns_match_onnx_runtime") {
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
        check_model(&dir, name, 1e-3);
    }
}

fn nart() -> Command {
    Command::new(env!("CARGO_BIN_EXE_nart"))
}

#[test]
fn the_binary_lists_compiles_runs_benches_and_inspects() {
    if !openvino_here("the_binary_lists_compiles_runs_benches_and_inspects") {
        return;
    }
    let out = nart().arg("targets").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success());
    assert!(
        text.lines().any(|l| l.starts_with("openvino  net")),
        "{text}"
    );
    assert!(!text.contains("openvino is unavailable"), "{text}");

    let version = nart_openvino_rt::availability().unwrap();
    common::binary_round_trip("openvino", &version);
}

/// With `NART_OPENVINO_LIB` at a path that does not exist, `nart targets` says why openvino is
/// unavailable and what to install, and a package holding an openvino segment (compiled here
/// by a target that needs no library) fails to load with that reason: exit 1, no panic.
#[test]
fn a_missing_library_is_a_clear_error() {
    let bad = "/nonexistent/libopenvino_c.so.2641";
    let out = nart()
        .arg("targets")
        .env("NART_OPENVINO_LIB", bad)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("openvino is unavailable: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains(bad) && line.contains("pip install openvino"),
        "{line}"
    );

    let mut registry = TargetRegistry::builtin();
    registry.register(Box::new(
        nart_target_openvino::OpenvinoTarget::with_version("2026.4.1-test"),
    ));
    let dir = committed("digits_mlp");
    let (pkg, report) = compile_openvino(&dir, "missing-lib-digits_mlp", &registry);
    assert!(placed_on(&report, "openvino").0 > 0, "{report}");
    let out = nart()
        .args(["run", "--package"])
        .arg(&pkg)
        .arg("--inputs")
        .arg(dir.join("test_data_set_0"))
        .arg("--outputs")
        .arg(tmp("openvino-tests", "missing-lib-out"))
        .env("NART_OPENVINO_LIB", bad)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("the openvino target is unavailable") && err.contains(bad),
        "{err}"
    );
}

/// `nart compile` stores OpenVINO's compiled blob (`nart inspect` says `openvino-blob`), two
/// processes compiling the same model write the same package, and with
/// `NART_OPENVINO_ARTIFACT=onnx` the package holds the ONNX model instead; both run and agree.
#[test]
fn packages_hold_compiled_blobs_the_same_in_every_process() {
    if !openvino_here("packages_hold_compiled_blobs_the_same_in_every_process") {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/models/digits_cnn");
    let compile = |name: &str, onnx: bool| {
        let out = tmp("openvino-tests", name);
        let mut cmd = nart();
        cmd.arg("compile")
            .arg(dir.join("model.onnx"))
            .args(["--targets", "openvino,interp", "-o"])
            .arg(&out)
            .env_remove("NART_OPENVINO_ARTIFACT");
        if onnx {
            cmd.env("NART_OPENVINO_ARTIFACT", "onnx");
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out
    };
    let (a, b) = (
        compile("blob-a.nartpkg", false),
        compile("blob-b.nartpkg", false),
    );
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let onnx = compile("onnx.nartpkg", true);
    let inspect = |p: &Path| {
        let o = nart().arg("inspect").arg(p).output().unwrap();
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    assert!(inspect(&a).contains("openvino-blob"), "{}", inspect(&a));
    assert!(
        !inspect(&onnx).contains("openvino-blob"),
        "{}",
        inspect(&onnx)
    );
    let run = |p: &Path, name: &str| {
        let outs = tmp("openvino-tests", name);
        let o = nart()
            .args(["run", "--package"])
            .arg(p)
            .arg("--inputs")
            .arg(dir.join("test_data_set_0"))
            .arg("--outputs")
            .arg(&outs)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(outs.join("output_0.pb")).unwrap()
    };
    assert_eq!(run(&a, "blob-out"), run(&onnx, "onnx-out"));
}
