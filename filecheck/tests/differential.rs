//! Differential test: runs every case of `tests/filecheck/cases` through nart's `filecheck` and
//! LLVM's `FileCheck` and requires the same exit status and the same first `error:` message.
//!
//! A case is `NAME.check` (the check file), `NAME.input` (the input) and an optional `NAME.args`
//! (one extra argument per line).
//! When LLVM's FileCheck is not installed the test prints a notice and passes.

use std::path::{Path, PathBuf};
use std::process::Command;

const LLVM_FILECHECK: &str = "/usr/lib/llvm-22/bin/FileCheck";

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/filecheck/cases")
}

/// The first `error: ...` message with locations and program paths stripped.
fn first_error(stderr: &str) -> Option<String> {
    let line = stderr
        .lines()
        .find(|l| l.contains("error:") || l.starts_with("FileCheck: "))?;
    let msg = match line.find("error:") {
        Some(i) => &line[i..],
        None => line.split("Try:").next().unwrap_or(line),
    };
    Some(msg.trim().to_string())
}

fn run(bin: &Path, dir: &Path, name: &str, args: &[String]) -> (i32, String) {
    let out = Command::new(bin)
        .current_dir(dir)
        .arg(format!("{name}.check"))
        .arg("--input-file")
        .arg(format!("{name}.input"))
        .args(args)
        .env_remove("FILECHECK_OPTS")
        .output()
        .expect("spawning a FileCheck binary must work");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn same_exit_status_as_llvm_filecheck() {
    let llvm = Path::new(LLVM_FILECHECK);
    if !llvm.exists() {
        assert!(
            std::env::var_os("NART_REQUIRE_LLVM_TOOLS").is_none_or(|v| v != "1"),
            "NART_REQUIRE_LLVM_TOOLS=1 but {LLVM_FILECHECK} is not installed (install llvm-22-tools)"
        );
        eprintln!("SKIP: {LLVM_FILECHECK} is not installed; the differential corpus was not run");
        return;
    }
    let ours = Path::new(env!("CARGO_BIN_EXE_filecheck"));
    let dir = cases_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("the corpus directory exists")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".check"))
                .map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 150,
        "the corpus has only {} cases",
        names.len()
    );
    let mut failures = Vec::new();
    for name in &names {
        let args: Vec<String> = std::fs::read_to_string(dir.join(format!("{name}.args")))
            .map(|s| {
                s.lines()
                    .filter(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let (ls, lerr) = run(llvm, &dir, name, &args);
        let (os, oerr) = run(ours, &dir, name, &args);
        if oerr.contains("panicked") {
            failures.push(format!("{name}: nart filecheck panicked:\n{oerr}"));
            continue;
        }
        if ls != os {
            failures.push(format!(
                "{name}: exit status llvm={ls} nart={os}\n--- llvm:\n{lerr}--- nart:\n{oerr}"
            ));
            continue;
        }
        if ls != 0 && first_error(&lerr) != first_error(&oerr) {
            failures.push(format!(
                "{name}: error kind differs: llvm={:?} nart={:?}",
                first_error(&lerr),
                first_error(&oerr)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} differential cases agree with LLVM FileCheck",
        names.len()
    );
}
