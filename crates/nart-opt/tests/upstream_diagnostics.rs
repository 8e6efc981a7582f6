//! Differential test against upstream MLIR for diagnostics: every lit file named
//! `*-upstream.mlir` under `tests/lit` holds cases of upstream's invalid-IR tests written for
//! nart, and must pass upstream `mlir-opt --verify-diagnostics` with the flags of its RUN line,
//! exactly as it passes `nart-opt` in the lit suite. So the expected errors there are upstream's
//! messages, not only nart's.
//!
//! Skips cleanly, with a message, when upstream `mlir-opt` is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

fn mlir_opt() -> Option<PathBuf> {
    let p = std::env::var_os("MLIR_OPT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22/bin/mlir-opt"));
    p.exists().then_some(p)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with("-upstream.mlir"))
        {
            out.push(p);
        }
    }
}

#[test]
fn upstream_accepts_the_expected_diagnostics() {
    let Some(upstream) = mlir_opt() else {
        assert!(
            std::env::var_os("NART_REQUIRE_LLVM_TOOLS").is_none_or(|v| v != "1"),
            "NART_REQUIRE_LLVM_TOOLS=1 but upstream mlir-opt was not found (install mlir-22-tools)"
        );
        println!("SKIP: upstream mlir-opt not found (set MLIR_OPT or install mlir-22-tools)");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    collect(&root.join("tests/lit"), &mut files);
    assert!(
        !files.is_empty(),
        "no *-upstream.mlir files under tests/lit"
    );
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("test files are UTF-8");
        let rel = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        let runs: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_once("RUN:").map(|(_, r)| r.trim()))
            .collect();
        for run in runs {
            // `nart-opt %s <flags>`: the same flags, spelled alike in both tools.
            let Some(flags) = run.strip_prefix("nart-opt %s") else {
                failures.push(format!(
                    "{rel}: RUN line is not `nart-opt %s <flags>`: {run}"
                ));
                continue;
            };
            assert!(
                !flags.contains('|'),
                "{rel}: a -upstream file runs nart-opt alone: {run}"
            );
            let out = Command::new(&upstream)
                .arg(file)
                .args(flags.split_whitespace())
                .output()
                .unwrap_or_else(|e| panic!("cannot start {}: {e}", upstream.display()));
            if !out.status.success() {
                failures.push(format!(
                    "{rel}: mlir-opt{flags} fails:\n{}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    println!("{} files pass under upstream mlir-opt", files.len());
}
