//! Differential test against upstream MLIR: for every valid `.mlir` file under `tests/`, the
//! generic form nart prints must be accepted by upstream `mlir-opt --allow-unregistered-dialect`,
//! and nart must read upstream's `--mlir-print-op-generic` output of it back into an identical
//! module (compared through nart's own generic printing).
//!
//! A file is valid when none of its RUN lines expects failure (`not`) or checks diagnostics
//! (`--verify-diagnostics`). Skips cleanly, with a message, when upstream `mlir-opt` is missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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
        } else if p.extension().is_some_and(|e| e == "mlir") {
            out.push(p);
        }
    }
}

/// Runs `cmd` with `input` on stdin; returns stdout, or the failure text.
fn run(cmd: &mut Command, input: &str) -> Result<String, String> {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    let mut stdin = child.stdin.take().expect("stdin was piped");
    let data = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(data.as_bytes());
    });
    let out = child
        .wait_with_output()
        .map_err(|e| format!("{cmd:?}: {e}"))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn nart_and_upstream_agree_on_the_generic_form() {
    let Some(upstream) = mlir_opt() else {
        assert!(
            std::env::var_os("NART_REQUIRE_LLVM_TOOLS").is_none_or(|v| v != "1"),
            "NART_REQUIRE_LLVM_TOOLS=1 but upstream mlir-opt was not found (install mlir-22-tools)"
        );
        println!("SKIP: upstream mlir-opt not found (set MLIR_OPT or install mlir-22-tools)");
        return;
    };
    let nart = env!("CARGO_BIN_EXE_nart-opt");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    collect(&root.join("tests"), &mut files);
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("test files are UTF-8");
        let run_lines: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_once("RUN:").map(|(_, r)| r.trim()))
            .collect();
        if run_lines.is_empty()
            || run_lines
                .iter()
                .any(|r| r.starts_with("not ") || r.contains("--verify-diagnostics"))
        {
            continue;
        }
        let rel = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        // Every step reads the previous text and prints the generic form.
        let generic = |tool: &Path, input: &str| {
            run(
                Command::new(tool).args([
                    "-",
                    "--split-input-file",
                    "--allow-unregistered-dialect",
                    "--mlir-print-op-generic",
                ]),
                input,
            )
        };
        let nart = Path::new(nart);
        // Step 1: nart's generic form of the original.
        let ours = match generic(nart, &text) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{rel}: nart-opt rejects it:\n{e}"));
                continue;
            }
        };
        // Step 2: upstream reads it and prints its own generic form.
        let theirs = match generic(&upstream, &ours) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!(
                    "{rel}: upstream mlir-opt rejects nart's generic form:\n{e}\n--- nart printed ---\n{ours}"
                ));
                continue;
            }
        };
        // Step 3: nart reads upstream's output back; it must print the same module.
        let back = match generic(nart, &theirs) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!(
                    "{rel}: nart-opt rejects upstream's generic form:\n{e}\n--- upstream printed ---\n{theirs}"
                ));
                continue;
            }
        };
        if back != ours {
            failures.push(format!(
                "{rel}: the module changed through upstream\n--- nart ---\n{ours}\n--- nart(upstream(nart)) ---\n{back}"
            ));
            continue;
        }
        checked += 1;
    }
    println!(
        "upstream round trip: {checked} files agree, {} differ",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} files failed the upstream round trip:\n\n{}",
        failures.len(),
        checked + failures.len(),
        failures.join("\n\n")
    );
    assert!(checked > 0, "no valid .mlir file was found under tests/");
}
