//! Import → export round trips: the exported model re-imports to the same IR, and (where
//! `onnxruntime` is installed) ONNX Runtime gives the same outputs for the original and the
//! exported model.

use std::path::PathBuf;
use std::process::Command;

use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::Context;

const MODELS: &[&str] = &[
    "mlp.onnx",
    "cnn.onnx",
    "transformer_ops.onnx",
    "detection.onnx",
    "quant.onnx",
    "old_opset.onnx",
    "control_flow.onnx",
    "function.onnx",
    "typed_fields.onnx",
    "external.onnx",
];

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn export(name: &str) -> Vec<u8> {
    export_path(&data(name))
}

fn export_path(path: &std::path::Path) -> Vec<u8> {
    let name = path.display();
    let mut ctx = Context::new();
    let m = nart_onnx::import_file(&mut ctx, path)
        .unwrap_or_else(|e| panic!("{name} imports: {:?}", e[0].message));
    nart_onnx::export_model(&ctx, m).unwrap_or_else(|e| panic!("{name} exports: {}", e.message))
}

/// Prints the body of `@main_graph` without locations: the part an export must preserve.
fn body(bytes: &[u8]) -> String {
    let mut ctx = Context::new();
    let m = nart_onnx::import_model(&mut ctx, bytes, None)
        .unwrap_or_else(|e| panic!("re-import: {:?}", e[0].message));
    let text = print_op(&ctx, m, &PrintOptions::default());
    text.lines()
        .filter(|l| l.starts_with("    "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn export_then_import_gives_the_same_ops() {
    for name in MODELS {
        let once = export(name);
        let twice = {
            let mut ctx = Context::new();
            let m = nart_onnx::import_model(&mut ctx, &once, None).unwrap();
            nart_onnx::export_model(&ctx, m).unwrap()
        };
        assert_eq!(
            body(&once),
            body(&twice),
            "{name}: export is not a fixed point"
        );
    }
}

#[test]
fn onnx_runtime_agrees_after_import_and_export() {
    let has_ort = Command::new("python3")
        .args(["-c", "import onnxruntime, numpy"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_ort {
        eprintln!("skipping: python3 with onnxruntime is not available");
        return;
    }
    let dir = std::env::temp_dir().join(format!("nart-onnx-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    let mut models: Vec<(String, PathBuf)> =
        MODELS.iter().map(|n| (n.to_string(), data(n))).collect();
    // The repository's model zoo, where present.
    let zoo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/models");
    if let Ok(entries) = std::fs::read_dir(&zoo) {
        let mut zoo_models: Vec<_> = entries
            .flatten()
            .map(|e| e.path().join("model.onnx"))
            .filter(|p| p.exists())
            .collect();
        zoo_models.sort();
        for p in zoo_models {
            let name = format!(
                "zoo_{}.onnx",
                p.parent()
                    .and_then(|d| d.file_name())
                    .unwrap()
                    .to_string_lossy()
            );
            models.push((name, p));
        }
    }
    for (name, path) in &models {
        let out = dir.join(name);
        std::fs::write(&out, export_path(path)).unwrap();
        let res = Command::new("python3")
            .arg(data("compare_ort.py"))
            .arg(path)
            .arg(&out)
            .output()
            .expect("python3 runs");
        if !res.status.success() {
            failures.push(format!(
                "{name}: {}{}",
                String::from_utf8_lossy(&res.stdout),
                String::from_utf8_lossy(&res.stderr)
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
