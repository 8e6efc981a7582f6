//! A custom opt tool built on `nart_opt::main` (`examples/mini-opt.rs`: the `func` dialect and
//! the `cse` pass) works like `nart-opt`, and knows only what it registered.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The `mini-opt` example, which `cargo test` and `cargo nextest run` build next to the tests.
fn mini_opt() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test binaries live in <target>/<profile>/deps");
    let tool = dir
        .join("examples")
        .join(format!("mini-opt{}", std::env::consts::EXE_SUFFIX));
    assert!(
        tool.exists(),
        "{} is missing: run the tests with `cargo test -p nart-opt` or `cargo nextest run -p nart-opt`, which build the examples",
        tool.display()
    );
    tool
}

/// Runs `mini-opt args` with `stdin`; returns (exit code, stdout, stderr).
fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(mini_opt())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mini-opt starts");
    // The tool may exit before reading its input (a bad flag), closing the pipe: not an error.
    let _ = child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin.as_bytes());
    let out = child.wait_with_output().expect("mini-opt finishes");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const INPUT: &str = "\
func.func private @g()
func.func @f() -> (() -> (), () -> ()) {
  %0 = func.constant @g : () -> ()
  %1 = func.constant @g : () -> ()
  return %0, %1 : () -> (), () -> ()
}
";

#[test]
fn runs_its_pass() {
    let (code, out, err) = run(
        &["--pass-pipeline=builtin.module(func.func(cse))", "-"],
        INPUT,
    );
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "module {\n  func.func private @g()\n  func.func @f() -> (() -> (), () -> ()) {\n    %f = constant @g : () -> ()\n    return %f, %f : () -> (), () -> ()\n  }\n}\n"
    );
    // The pass flag form works too.
    let (code, flag_out, _) = run(&["--cse"], INPUT);
    assert_eq!((code, flag_out), (0, out));
}

#[test]
fn lists_only_what_it_registered() {
    let (code, out, _) = run(&["--list-dialects"], "");
    assert_eq!(code, 0);
    let dialects: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(dialects, ["builtin", "func"], "{out}");

    let (code, out, _) = run(&["--list-passes"], "");
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "Passes:\n  --cse                                                   -   Eliminate common sub-expressions\n"
    );
}

#[test]
fn rejects_what_it_did_not_register() {
    let (code, out, err) = run(&["--canonicalize"], INPUT);
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(
        err,
        "mini-opt: unknown command line argument '--canonicalize'\nTry 'mini-opt --help' for more information.\n"
    );

    let (code, _, err) = run(&["--pass-pipeline=builtin.module(canonicalize)"], INPUT);
    assert_eq!(code, 1);
    assert!(
        err.starts_with(
            "pass pipeline:1:16: error: 'canonicalize' does not refer to a registered pass or pass pipeline\n"
        ),
        "{err}"
    );

    let arith =
        "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  return %0 : i32\n}\n";
    let (code, _, err) = run(&[], arith);
    assert_eq!(code, 1);
    assert!(err.contains("arith.addi"), "{err}");
}

#[test]
fn names_itself() {
    let (code, out, _) = run(&["--version"], "");
    assert_eq!(code, 0);
    assert_eq!(out, format!("mini-opt {}\n", env!("CARGO_PKG_VERSION")));
    let (_, out, _) = run(&["--help"], "");
    assert!(
        out.contains("USAGE: mini-opt [options] <input file"),
        "{out}"
    );
}
