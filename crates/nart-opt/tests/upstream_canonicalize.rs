//! Differential test of nart's transformations against upstream MLIR: lit files whose every
//! case behaves as upstream are run through upstream `mlir-opt` with each of their RUN lines,
//! and upstream's output must pass the same CHECK lines (with the same check prefix) that
//! nart's output passes, checked with nart's FileCheck.
//! So every canonicalization pattern, fold, region simplification, constant placement, and the
//! `cse`, `symbol-dce` and `inline` cases listed rewrite exactly as upstream does.
//!
//! Skips cleanly, with a message, when upstream `mlir-opt` is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The files checked: every case in them must behave as upstream does.
const FILES: &[&str] = &[
    "tests/lit/dialect/arith/canonicalize.mlir",
    "tests/lit/dialect/cf/canonicalize.mlir",
    "tests/lit/dialect/scf/canonicalize.mlir",
    "tests/lit/conversion/scf-to-cf/for.mlir",
    "tests/lit/conversion/scf-to-cf/if.mlir",
    "tests/lit/conversion/scf-to-cf/while.mlir",
    "tests/lit/conversion/scf-to-cf/parallel.mlir",
    "tests/lit/conversion/scf-to-cf/execute-region.mlir",
    "tests/lit/conversion/scf-to-cf/nested.mlir",
    "tests/lit/transforms/canonicalize.mlir",
    "tests/lit/transforms/canonicalize-constants.mlir",
    "tests/lit/transforms/canonicalize-dce.mlir",
    "tests/lit/transforms/canonicalize-block-merge.mlir",
    "tests/lit/transforms/cse.mlir",
    "tests/lit/transforms/symbol-dce.mlir",
    "tests/lit/transforms/inline.mlir",
    "tests/lit/nart-opt/verify-diagnostics.mlir",
];

fn mlir_opt() -> Option<PathBuf> {
    let p = std::env::var_os("MLIR_OPT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22/bin/mlir-opt"));
    p.exists().then_some(p)
}

/// Splits a command line into words, as a shell would for the quoting lit files use (single
/// and double quotes, no escapes).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            None => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// One RUN line: the `nart-opt` arguments (with `%s` for the file) and the check prefixes.
struct RunLine {
    args: Vec<String>,
    prefixes: Vec<String>,
}

/// The RUN lines of a lit file of the form `nart-opt %s ARGS | filecheck %s [PREFIX]`.
fn run_lines(text: &str) -> Vec<RunLine> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((_, cmd)) = line.split_once("RUN:") else {
            continue;
        };
        let (opt, check) = cmd
            .split_once(" | ")
            .expect("a RUN line pipes into filecheck");
        let mut args = words(opt);
        assert_eq!(args.first().map(String::as_str), Some("nart-opt"), "{line}");
        args.remove(0);
        let mut prefixes = Vec::new();
        for w in words(check) {
            for key in ["--check-prefix=", "--check-prefixes="] {
                if let Some(p) = w.strip_prefix(key) {
                    prefixes.extend(p.split(',').map(str::to_string));
                }
            }
        }
        out.push(RunLine { args, prefixes });
    }
    out
}

#[test]
fn upstream_passes_the_same_checks() {
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
        let runs = run_lines(&text);
        assert!(!runs.is_empty(), "{rel} has RUN lines");
        for run in runs {
            let args: Vec<String> = run
                .args
                .iter()
                .map(|a| a.replace("%s", &path.to_string_lossy()))
                .collect();
            let out = Command::new(&upstream)
                .args(&args)
                .output()
                .expect("upstream mlir-opt starts");
            let what = format!("{rel} (mlir-opt {})", run.args.join(" "));
            if !out.status.success() {
                failures.push(format!(
                    "{what}: upstream mlir-opt fails:\n{}",
                    String::from_utf8_lossy(&out.stderr)
                ));
                continue;
            }
            let req = nart_filecheck::Request {
                check_prefixes: run.prefixes.clone(),
                ..nart_filecheck::Request::default()
            };
            let outcome = nart_filecheck::run(
                &req,
                rel,
                Ok(text.clone().into_bytes()),
                "<upstream mlir-opt output>",
                || Ok(out.stdout.clone()),
                "filecheck",
            );
            if outcome.status != 0 {
                failures.push(format!(
                    "{what}: upstream's output does not pass the checks:\n{}",
                    outcome.stderr
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn run_lines_are_parsed() {
    let runs = run_lines(
        "// RUN: nart-opt %s --pass-pipeline='builtin.module(inline{default-pipeline= x=1})' | filecheck %s --check-prefix=NESTED\n",
    );
    assert_eq!(runs.len(), 1);
    assert_eq!(
        runs[0].args,
        [
            "%s",
            "--pass-pipeline=builtin.module(inline{default-pipeline= x=1})"
        ]
    );
    assert_eq!(runs[0].prefixes, ["NESTED"]);
}
