//! `nart-filecheck`: LLVM FileCheck semantics as a library, plus the `filecheck` and `nart-lit`
//! binaries.
//!
//! The library reproduces LLVM 22's FileCheck: the directives (`CHECK`, `-NEXT`, `-SAME`, `-NOT`,
//! `-DAG`, `-LABEL`, `-EMPTY`, `-COUNT-n`, `COM:`), regex blocks `{{re}}` in POSIX ERE syntax,
//! string and numeric variables, whitespace canonicalization, the diagnostics with carets, and the
//! annotated input dump.
//! [`run`] takes a [`Request`] plus the check file and input and returns the exit status and the
//! text FileCheck would print on stderr.
//!
//! ```
//! use nart_filecheck::{run, Request};
//! let req = Request::default();
//! let out = run(&req, "t.check", Ok(b"CHECK: b\nCHECK-NEXT: c\n".to_vec()), "<stdin>", || Ok(b"a\nb\nc\n".to_vec()), "");
//! assert_eq!(out.status, 0);
//! ```
#![deny(missing_docs)]

pub mod check;
pub mod dump;
pub mod ere;
pub mod errors;
pub mod expr;
pub mod lit;
pub mod pattern;
pub mod search;
pub mod source;

use check::{canonicalize_in_place, Checks, ReadError};
pub use dump::Filter;
use pattern::Context;
use source::{Buffer, SourceSet};

/// When to print the annotated input dump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum DumpInput {
    /// Never.
    Never,
    /// When the check fails (the default).
    #[default]
    Fail,
    /// Always.
    Always,
    /// Print the help text for the dump and stop.
    Help,
}

/// Everything that configures one FileCheck run (the command-line options).
#[derive(Clone, Debug)]
pub struct Request {
    /// `--check-prefix(es)`; empty means `CHECK`.
    pub check_prefixes: Vec<String>,
    /// `--comment-prefixes`; empty means `COM,RUN`.
    pub comment_prefixes: Vec<String>,
    /// `--implicit-check-not` patterns.
    pub implicit_check_not: Vec<String>,
    /// `-D` definitions (`NAME=VALUE` or `#NAME=EXPR`).
    pub defines: Vec<String>,
    /// `--allow-empty`.
    pub allow_empty: bool,
    /// `--allow-unused-prefixes`.
    pub allow_unused_prefixes: bool,
    /// `--match-full-lines`.
    pub match_full_lines: bool,
    /// `--strict-whitespace`.
    pub strict_whitespace: bool,
    /// `--ignore-case`.
    pub ignore_case: bool,
    /// `--enable-var-scope`.
    pub enable_var_scope: bool,
    /// `--allow-deprecated-dag-overlap`.
    pub allow_deprecated_dag_overlap: bool,
    /// `-v`.
    pub verbose: bool,
    /// `-vv`.
    pub verbose_verbose: bool,
    /// `--dump-input`.
    pub dump_input: DumpInput,
    /// `--dump-input-filter`; `None` picks LLVM's default.
    pub dump_filter: Option<Filter>,
    /// `--dump-input-context`.
    pub dump_context: usize,
    /// Set when no check prefix was given.
    pub is_default_check_prefix: bool,
}

impl Default for Request {
    fn default() -> Self {
        Request {
            check_prefixes: Vec::new(),
            comment_prefixes: Vec::new(),
            implicit_check_not: Vec::new(),
            defines: Vec::new(),
            allow_empty: false,
            allow_unused_prefixes: false,
            match_full_lines: false,
            strict_whitespace: false,
            ignore_case: false,
            enable_var_scope: false,
            allow_deprecated_dag_overlap: false,
            verbose: false,
            verbose_verbose: false,
            dump_input: DumpInput::Fail,
            dump_filter: None,
            dump_context: 5,
            is_default_check_prefix: false,
        }
    }
}

/// The result of a run: the exit status and everything printed to stderr.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// 0 when the input matched, 1 when it did not, 2 on bad usage or a bad check file.
    pub status: i32,
    /// The diagnostics.
    pub stderr: String,
}

fn validate_prefixes(
    kind: &str,
    seen: &mut Vec<String>,
    list: &[String],
    out: &mut String,
) -> bool {
    for p in list {
        if p.is_empty() {
            out.push_str(&format!(
                "error: supplied {kind} prefix must not be the empty string\n"
            ));
            return false;
        }
        if !p
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
        {
            out.push_str(&format!(
                "error: supplied {kind} prefix must start with a letter and contain only alphanumeric characters, hyphens, and underscores: '{p}'\n"
            ));
            return false;
        }
        if seen.contains(p) {
            out.push_str(&format!("error: supplied {kind} prefix must be unique among check and comment prefixes: '{p}'\n"));
            return false;
        }
        seen.push(p.clone());
    }
    true
}

/// Runs FileCheck: validates the request, reads the check file, then the input (lazily, as LLVM
/// does, so that check-file errors win), and matches.
/// `cmdline` is echoed in the "is empty" error.
pub fn run(
    req: &Request,
    check_name: &str,
    check: std::io::Result<Vec<u8>>,
    input_name: &str,
    input: impl FnOnce() -> std::io::Result<Vec<u8>>,
    cmdline: &str,
) -> Outcome {
    let mut out = String::new();
    if req.dump_input == DumpInput::Help {
        return Outcome {
            status: 0,
            stderr: dump_help(),
        };
    }
    let mut req = req.clone();
    let mut seen = Vec::new();
    if req.check_prefixes.is_empty() {
        seen.push("CHECK".to_string());
    }
    if req.comment_prefixes.is_empty() {
        seen.extend(["COM".to_string(), "RUN".to_string()]);
    }
    let cp = req.check_prefixes.clone();
    let cm = req.comment_prefixes.clone();
    if !validate_prefixes("check", &mut seen, &cp, &mut out)
        || !validate_prefixes("comment", &mut seen, &cm, &mut out)
    {
        return Outcome {
            status: 2,
            stderr: out,
        };
    }
    if req.check_prefixes.is_empty() {
        req.check_prefixes.push("CHECK".into());
        req.is_default_check_prefix = true;
    }
    if req.comment_prefixes.is_empty() {
        req.comment_prefixes = vec!["COM".into(), "RUN".into()];
    }
    let mut check = match check {
        Ok(c) => c,
        Err(e) => {
            out.push_str(&format!(
                "Could not open check file '{check_name}': {}\n",
                errors::io_message(&e)
            ));
            return Outcome {
                status: 2,
                stderr: out,
            };
        }
    };
    canonicalize_in_place(&mut check, req.strict_whitespace);
    let mut sm = SourceSet::new(Buffer::new(check_name, check));
    let mut ctx = Context::default();
    let checks = match Checks::read(&req, &mut sm, &mut ctx, &mut out) {
        Ok(c) => c,
        Err(ReadError::Invalid) => {
            return Outcome {
                status: 2,
                stderr: out,
            }
        }
        Err(ReadError::Exit1) => {
            return Outcome {
                status: 1,
                stderr: out,
            }
        }
    };
    let mut input = match input() {
        Ok(i) => i,
        Err(e) => {
            out.push_str(&format!(
                "Could not open input file '{input_name}': {}\n",
                errors::io_message(&e)
            ));
            return Outcome {
                status: 2,
                stderr: out,
            };
        }
    };
    if input.is_empty() && !req.allow_empty {
        out.push_str(&format!(
            "FileCheck error: '{input_name}' is empty.\nFileCheck command line: {cmdline}\n"
        ));
        return Outcome {
            status: 2,
            stderr: out,
        };
    }
    canonicalize_in_place(&mut input, req.strict_whitespace);
    sm.input = Buffer::new(input_name, input);
    let mut diags = Vec::new();
    let want = req.dump_input != DumpInput::Never;
    let ok = checks.check_input(
        &req,
        &sm,
        &mut ctx,
        &mut out,
        if want { Some(&mut diags) } else { None },
    );
    let status = if ok { 0 } else { 1 };
    if req.dump_input == DumpInput::Always || (status == 1 && req.dump_input == DumpInput::Fail) {
        out.push_str(&format!(
            "\nInput file: {input_name}\nCheck file: {check_name}\n\n-dump-input=help explains the following input dump.\n\n"
        ));
        let filter = req
            .dump_filter
            .unwrap_or(if req.dump_input == DumpInput::Always {
                Filter::All
            } else {
                Filter::Error
            });
        out.push_str(&dump::render(&sm, &diags, filter, req.dump_context));
    }
    Outcome {
        status,
        stderr: out,
    }
}

fn dump_help() -> String {
    "The following description was requested by -dump-input=help to\n\
     explain the input dump printed by FileCheck.\n\n\
     Input dump annotation format:\n\n\
     \x20 - L:     labels line number L of the input file\n\
     \x20 - T:L    labels the only match result for a pattern of type T from line L of the check file\n\
     \x20 - T:L'N  labels the Nth match result for such a pattern\n\
     \x20 - ^~~    marks good match (reported if -v)\n\
     \x20 - !~~    marks bad match, such as a CHECK-NOT found or a CHECK-NEXT on the wrong line\n\
     \x20 - X~~    marks search range when no match is found\n\
     \x20 - ?      marks fuzzy match when no match is found\n\
     \x20 - ...    indicates elided input lines and annotations\n"
        .to_string()
}
