//! Differential test of the matching fast paths (literal search of substituted patterns, literal
//! prefilters, shared compiled regexes, in-place canonicalization) against LLVM's FileCheck.
//!
//! Each case runs both tools with `-v --dump-input=always`, so every match position, every
//! `CHECK-NOT` search range and every captured variable is printed, and requires the same exit
//! status and byte-identical stderr.
//! When LLVM's FileCheck is not installed the test prints a notice and passes (unless
//! `NART_REQUIRE_LLVM_TOOLS=1`).

use std::path::Path;
use std::process::Command;

const LLVM_FILECHECK: &str = "/usr/lib/llvm-22/bin/FileCheck";

/// A case: name, check file, input, extra arguments.
type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
);

const CASES: &[Case] = &[
    (
        "not_with_substitution_absent",
        "CHECK-LABEL: func @f(\nCHECK-SAME: %[[A:[a-z0-9]+]]:\nCHECK-NOT: divsi %[[A]]\nCHECK: return\nCHECK-LABEL: func @g(\nCHECK-NOT: divsi %[[A]]\nCHECK: return\n",
        "func @f(%arg0: i32) {\n  %0 = arith.divsi %arg1, %arg1\n  return\n}\nfunc @g(%arg0: i32) {\n  return\n}\n",
        &[],
    ),
    (
        "not_with_substitution_present",
        "CHECK-LABEL: func @f(\nCHECK-SAME: %[[A:[a-z0-9]+]]:\nCHECK-NOT: divsi %[[A]]\nCHECK: return\n",
        "func @f(%arg0: i32) {\n  %0 = arith.divsi %arg0, %arg1\n  return\n}\n",
        &[],
    ),
    (
        "numeric_substitution",
        "CHECK: v[[#N:]] =\nCHECK: use v[[#N+1]]\nCHECK-NOT: v[[#N+2]]\nCHECK: end [[#@LINE]] [[@LINE-1]]\n",
        "v41 = a\nuse v4 use v42\nx v44\nend 4 3\n",
        &[],
    ),
    (
        "numeric_substitution_wrong_line",
        "CHECK: v[[#N:]] =\nCHECK-NEXT: use v[[#N+1]]\n",
        "v41 = a\nb\nuse v42\n",
        &[],
    ),
    (
        "defines_with_metacharacters",
        "CHECK: x [[V]] y\nCHECK-NOT: [[V]]z\nCHECK: {{^}}[[V]]{{$}}\n",
        "x a.b*[c]{d}$ y a.b*[c]{d}$q\nab\na.b*[c]{d}$\n",
        &["-DV=a.b*[c]{d}$"],
    ),
    (
        "empty_value",
        "CHECK: q[[E]]r\nCHECK: [[E]]\nCHECK-NEXT: s\n",
        "a qr b\ns\n",
        &["-DE="],
    ),
    (
        "overlapping_occurrences",
        "CHECK: a[[V]]\nCHECK: aa[[E]]a\nCHECK-NOT: [[V]]b\n",
        "aaab\naaaa\n",
        &["-DV=ab", "-DE="],
    ),
    (
        "ignore_case",
        "CHECK: CALL [[F]](\nCHECK-NOT: {{^}}RET [[F]]\nCHECK: ret [[F]]\n",
        "x call Foo(1)\n  Ret fOO\nret FOO\n",
        &["--ignore-case", "-DF=foo"],
    ),
    (
        "ignore_case_mismatch",
        "CHECK: call [[F]](\nCHECK: Bar{{[0-9]}}\n",
        "call FOO(1)\nbaz1\n",
        &["--ignore-case", "-DF=foo"],
    ),
    (
        "strict_whitespace",
        "CHECK: a  [[V]]\nCHECK-NOT: {{^}} b\nCHECK: \tc{{.}}\n",
        "a  x a\tx\n b\n\tcd\n",
        &["--strict-whitespace", "-DV=x"],
    ),
    (
        "canonical_whitespace",
        "CHECK: a [[V]]\t\tq\nCHECK-NOT: {{^}} b\nCHECK:  c{{.}}\n",
        "a \t x  \t q\r\n\t\t b\r\n \tcd\r\n",
        &["-DV=x"],
    ),
    (
        "match_full_lines",
        "CHECK: x [[V]]\nCHECK-NOT: [[V]]\nCHECK: z\n",
        "a x y\n  x y  \ny\nz\n",
        &["--match-full-lines", "-DV=y"],
    ),
    (
        "match_full_lines_fail",
        "CHECK: x [[V]]\n",
        "a x y\nx yz\n",
        &["--match-full-lines", "-DV=y"],
    ),
    (
        "anchors_with_prefilter",
        "CHECK-LABEL: f:\nCHECK-NOT: {{^}}  call\nCHECK: {{^}}ret{{$}}\nCHECK-LABEL: g:\nCHECK-NOT: {{^}}  call\nCHECK: ret\n",
        "f:\n  x call\n  ret\nret\ng:\n  call\n  ret\n",
        &[],
    ),
    (
        "regex_blocks_with_prefilter",
        "CHECK: a{{.*}}arg0\nCHECK-NOT: call {{a|b}}[[V]]\nCHECK: call {{a|b}}[[V]]\nCHECK: x [[W:[a-z]+]] y\nCHECK: [[W]]!\n",
        "a b\narg0 a c arg0\ncall carg0\ncall barg0\nx ab z\nx cd y\nab! cd!\n",
        &["-DV=arg0"],
    ),
    (
        "backreferences",
        "CHECK: [[X:a+]] [[X]]!\nCHECK: {{(b)\\1}}é\nCHECK-NOT: [[Y:c]][[Y]]\nCHECK: end\n",
        "aa a aa\naa a a!\nbbé\ncd end\n",
        &[],
    ),
    (
        "dag_with_substitutions",
        "CHECK: def [[V:[a-z]+]]\nCHECK-DAG: use [[V]]\nCHECK-DAG: use [[V]]\nCHECK-NOT: kill [[V]]\nCHECK: end\n",
        "def x\nuse x\nuse y\nuse x\nend\n",
        &[],
    ),
    (
        "repeated_not_patterns",
        "CHECK-LABEL: f1\nCHECK-NOT: {{div|rem}}si\nCHECK: ret\nCHECK-LABEL: f2\nCHECK-NOT: {{div|rem}}si\nCHECK: ret\nCHECK-LABEL: f3\nCHECK-NOT: {{div|rem}}si\nCHECK: ret\n",
        "f1\n addi\n ret\nf2\n muli\n ret\nf3\n remsi\n ret\n",
        &[],
    ),
    (
        "implicit_check_not",
        "CHECK: a\nCHECK: b\n",
        "a\nwarning: x\nb\n",
        &["--implicit-check-not={{warn|err}}ing", "--implicit-check-not=fatal"],
    ),
    (
        "non_ascii_text",
        "CHECK: é [[V]]\nCHECK-NOT: ü{{.}}\nCHECK: [[W:.]]ß\nCHECK: ende\n",
        "x é ñ\nü\nßß\nende\n",
        &["-DV=ñ"],
    ),
    (
        "non_ascii_failure",
        "CHECK: é [[V]]\nCHECK-NOT: ü{{.}}\nCHECK: ende\n",
        "x é ñ\nüa\nende\n",
        &["-DV=ñ"],
    ),
    (
        "escaped_values",
        "CHECK: x [[V]]\n",
        "x y\n",
        &["-DV=a\u{1}\"b\tc\\ü"],
    ),
    (
        "undefined_variable_in_not",
        "CHECK-NOT: x [[U]]\nCHECK: a\n",
        "a\n",
        &[],
    ),
    (
        "count_with_substitution",
        "CHECK-COUNT-2: op [[V]]\nCHECK-NOT: op [[V]]\n",
        "op x\nop y op x\nop x\n",
        &["-DV=x"],
    ),
];

fn run(bin: &Path, dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(bin)
        .current_dir(dir)
        .args([
            "case.check",
            "--input-file",
            "case.input",
            "-v",
            "--dump-input=always",
        ])
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
fn fast_paths_print_what_llvm_prints() {
    let llvm = Path::new(LLVM_FILECHECK);
    if !llvm.exists() {
        assert!(
            std::env::var_os("NART_REQUIRE_LLVM_TOOLS").is_none_or(|v| v != "1"),
            "NART_REQUIRE_LLVM_TOOLS=1 but {LLVM_FILECHECK} is not installed (install llvm-22-tools)"
        );
        eprintln!("SKIP: {LLVM_FILECHECK} is not installed; the fast-path cases were not run");
        return;
    }
    let ours = Path::new(env!("CARGO_BIN_EXE_filecheck"));
    let root = std::env::temp_dir().join(format!("nart-filecheck-fast-{}", std::process::id()));
    let mut failures = Vec::new();
    for (name, check, input, args) in CASES {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).expect("the temporary directory is writable");
        std::fs::write(dir.join("case.check"), check).expect("writing the check file");
        std::fs::write(dir.join("case.input"), input).expect("writing the input");
        let (ls, lerr) = run(llvm, &dir, args);
        let (os, oerr) = run(ours, &dir, args);
        if (ls, &lerr) != (os, &oerr) {
            failures.push(format!(
                "{name}: exit status llvm={ls} nart={os}\n--- llvm:\n{lerr}--- nart:\n{oerr}"
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

/// A command-line argument that is not UTF-8 is an error with exit 2, not a panic.
#[test]
#[cfg(unix)]
fn non_utf8_arguments_are_an_error() {
    use std::os::unix::ffi::OsStrExt;
    let arg = std::ffi::OsStr::from_bytes(b"-DV=\xc3");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_filecheck"))
        .arg(arg)
        .arg("x.txt")
        .output()
        .expect("filecheck runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not valid UTF-8"));
}
