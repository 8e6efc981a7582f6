//! Runs `nart-lit` on its own small suite (`tests/lit-selftest`), which needs only `filecheck`,
//! `not`, `echo` and `cat`, so the runner is tested without `nart-opt`.

use std::path::Path;
use std::process::Command;

fn nart_lit(args: &[&str]) -> (i32, String, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lit-selftest");
    let out = Command::new(env!("CARGO_BIN_EXE_nart-lit"))
        .current_dir(&dir)
        .args(args)
        .output()
        .expect("nart-lit runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn passing_suite_passes() {
    let (code, out, err) = nart_lit(&["-v"]);
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("PASS: "), "{out}");
    assert!(out.contains("XFAIL: "), "{out}");
    assert!(out.contains("UNSUPPORTED: "), "{out}");
    assert!(
        out.trim_end().ends_with("6 passed, 0 failed, 2 skipped"),
        "{out}"
    );
}

#[test]
fn failures_are_reported_with_commands_and_output() {
    let (code, out, err) = nart_lit(&["expected-fail"]);
    assert_eq!(code, 1, "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.trim_end().ends_with("0 passed, 4 failed"), "{out}");
    assert!(
        err.contains("FAIL: ") && err.contains("mismatch.test"),
        "{err}"
    );
    assert!(err.contains("XPASS: "), "{err}");
    assert!(err.contains("RUN: at line 1: echo actual |"), "{err}");
    assert!(
        err.contains("error: CHECK: expected string not found in input"),
        "{err}"
    );
    assert!(err.contains("error: command 2 failed"), "{err}");
}

#[test]
fn filter_and_paths_select_tests() {
    let (code, out, _) = nart_lit(&["--filter", "echo", "pass"]);
    assert_eq!(code, 0);
    assert!(out.trim_end().ends_with("1 passed, 0 failed"), "{out}");
    let (code, out, _) = nart_lit(&["pass/not.test", "pass/echo.test"]);
    assert_eq!(code, 0);
    assert!(out.trim_end().ends_with("2 passed, 0 failed"), "{out}");
}
