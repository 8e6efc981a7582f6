//! Differential test of the canonicalization patterns against upstream MLIR: the
//! `canonicalize.mlir` lit files of the dialects nart shares with upstream are run through
//! upstream `mlir-opt` with their own pipeline, and upstream's output must pass the same CHECK
//! lines nart's output passes (checked with nart's FileCheck), so every rule written after an
//! upstream pattern rewrites exactly as upstream does.
//!
//! Skips cleanly, with a message, when upstream `mlir-opt` is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The files checked: every case in them must behave as upstream's canonicalizer does.
const FILES: &[&str] = &[
    "tests/lit/dialect/arith/canonicalize.mlir",
    "tests/lit/dialect/cf/canonicalize.mlir",
];

fn mlir_opt() -> Option<PathBuf> {
    let p = std::env::var_os("MLIR_OPT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22/bin/mlir-opt"));
    p.exists().then_some(p)
}

/// The `--pass-pipeline='...'` of the file's RUN line.
fn pipeline(text: &str) -> Option<&str> {
    let run = text.lines().find_map(|l| l.split_once("RUN:"))?.1;
    let start = run.find("--pass-pipeline='")? + "--pass-pipeline='".len();
    let len = run[start..].find('\'')?;
    Some(&run[start..start + len])
}

#[test]
fn upstream_canonicalizes_like_the_checks_say() {
    let Some(upstream) = mlir_opt() else {
        assert!(
            std::env::var_os("NART_REQUIRE_LLVM_TOOLS").is_none_or(|v| v != "1"),
            "NART_REQUIRE_LLVM_TOOLS=1 but upstream mlir-opt was not found (install mlir-22-tools)"
        );
        println!("SKIP: upstream mlir-opt not found (set MLIR_OPT or install mlir-22-tools)");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut failures = Vec::new();
    for rel in FILES {
        let path = root.join(rel);
        let text = std::fs::read_to_string(&path).expect("the lit file exists and is UTF-8");
        let pipeline = pipeline(&text).expect("the RUN line names a --pass-pipeline");
        let out = Command::new(&upstream)
            .arg(&path)
            .arg(format!("--pass-pipeline={pipeline}"))
            .arg("--split-input-file")
            .output()
            .expect("upstream mlir-opt starts");
        if !out.status.success() {
            failures.push(format!(
                "{rel}: upstream mlir-opt fails:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
            continue;
        }
        let outcome = nart_filecheck::run(
            &nart_filecheck::Request::default(),
            rel,
            Ok(text.clone().into_bytes()),
            "<upstream mlir-opt output>",
            || Ok(out.stdout.clone()),
            "filecheck",
        );
        if outcome.status != 0 {
            failures.push(format!(
                "{rel}: upstream's output does not pass the checks:\n{}",
                outcome.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
