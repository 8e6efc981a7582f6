//! `nart-lit`: runs lit-style tests (`nart-lit tests/lit` from the repository root).
//!
//! Usage: `nart-lit [-v] [-j N] [--filter REGEX] [--config lit.toml] [--timeout SECS] [PATH...]`.
//! Exits with 0 when every test passed, 1 when any failed, 2 on usage or configuration errors.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use nart_filecheck::lit::runner::collect;
use nart_filecheck::lit::{run_suite, Config, Options, Outcome, TestResult};

fn usage(msg: &str) -> ExitCode {
    eprintln!("nart-lit: {msg}");
    eprintln!("usage: nart-lit [-v] [-j N] [--filter REGEX] [--config lit.toml] [--timeout SECS] [PATH...]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut args: Vec<String> = Vec::new();
    for a in std::env::args_os().skip(1) {
        match a.into_string() {
            Ok(s) => args.push(s),
            Err(a) => {
                return usage(&format!(
                    "argument is not valid UTF-8: {}",
                    a.to_string_lossy()
                ))
            }
        }
    }
    let mut verbose = false;
    let mut jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    let mut filter = None;
    let mut config = None;
    let mut timeout = 120u64;
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if a.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        let value = |i: &mut usize| -> Option<String> {
            if inline.is_some() {
                return inline.clone();
            }
            let v = args.get(*i).cloned();
            *i += 1;
            v
        };
        match name.as_str() {
            "-v" | "--verbose" => verbose = true,
            "-j" | "--jobs" => match value(&mut i).and_then(|v| v.parse().ok()) {
                Some(n) => jobs = n,
                None => return usage("-j needs a number"),
            },
            "--filter" => match value(&mut i).map(|v| regex::Regex::new(&v)) {
                Some(Ok(r)) => filter = Some(r),
                _ => return usage("--filter needs a valid regex"),
            },
            "--config" => config = value(&mut i).map(PathBuf::from),
            "--timeout" => match value(&mut i).and_then(|v| v.parse().ok()) {
                Some(n) => timeout = n,
                None => return usage("--timeout needs a number of seconds"),
            },
            "-h" | "--help" => {
                println!("usage: nart-lit [-v] [-j N] [--filter REGEX] [--config lit.toml] [--timeout SECS] [PATH...]");
                return ExitCode::SUCCESS;
            }
            _ if a.starts_with('-') => return usage(&format!("unknown option '{a}'")),
            _ => paths.push(PathBuf::from(a)),
        }
    }
    if let Ok(f) = std::env::var("LIT_FILTER") {
        if filter.is_none() {
            filter = regex::Regex::new(&f).ok();
        }
    }
    let start = paths.first().cloned().unwrap_or_else(|| PathBuf::from("."));
    let cfg_path = match config
        .or_else(|| Config::find(&start))
        .or_else(|| Config::find(&PathBuf::from(".")))
    {
        Some(p) => p,
        None => {
            return usage(&format!(
                "no lit.toml found in {} or its parents",
                start.display()
            ))
        }
    };
    let cfg = match Config::load(&cfg_path) {
        Ok(c) => c,
        Err(e) => return usage(&e.to_string()),
    };
    if paths.is_empty() {
        paths = cfg.test_dirs.iter().map(|d| cfg.root.join(d)).collect();
    }
    for p in &paths {
        if !p.exists() {
            return usage(&format!("no such file or directory: {}", p.display()));
        }
    }
    let mut tests = collect(&cfg, &paths);
    if let Some(f) = &filter {
        tests.retain(|t| f.is_match(&t.to_string_lossy()));
    }
    let bin_dir = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(PathBuf::from))
        .unwrap_or_default();
    let opts = Options {
        verbose,
        filter,
        jobs,
        timeout: Duration::from_secs(timeout),
        bin_dir,
    };
    let report = |r: &TestResult| {
        let name = r.path.display();
        let tag = match r.outcome {
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
            Outcome::XFail => "XFAIL",
            Outcome::XPass => "XPASS",
            Outcome::Unsupported => "UNSUPPORTED",
        };
        if matches!(r.outcome, Outcome::Fail | Outcome::XPass) {
            eprintln!("{tag}: {name}\n{}", r.log);
        } else if verbose {
            println!("{tag}: {name}");
        }
    };
    let summary = run_suite(&cfg, &tests, &opts, &report);
    println!("{}", summary.line());
    if summary.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
