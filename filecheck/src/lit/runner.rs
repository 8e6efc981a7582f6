//! Finding tests, running them in parallel, and reporting results.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::config::Config;
use super::{features, script};

/// Runner options (the command line of `nart-lit`).
#[derive(Clone, Debug)]
pub struct Options {
    /// Print every test's result, not only failures.
    pub verbose: bool,
    /// Only run tests whose path matches this regex.
    pub filter: Option<regex::Regex>,
    /// Worker threads.
    pub jobs: usize,
    /// Per-test timeout.
    pub timeout: Duration,
    /// Where the build's binaries are (usually the directory of `nart-lit`).
    pub bin_dir: PathBuf,
}

/// What happened to one test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// All RUN lines succeeded.
    Pass,
    /// A RUN line failed.
    Fail,
    /// Failed as `XFAIL` said it would.
    XFail,
    /// Passed although `XFAIL` said it would fail.
    XPass,
    /// Skipped by `REQUIRES`/`UNSUPPORTED`.
    Unsupported,
}

/// One test's result with what to print for it.
#[derive(Clone, Debug)]
pub struct TestResult {
    /// The test file.
    pub path: PathBuf,
    /// The outcome.
    pub outcome: Outcome,
    /// The commands and their output (for failures).
    pub log: String,
}

/// Totals for the closing line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Passed (including expected failures).
    pub passed: usize,
    /// Failed (including unexpected passes).
    pub failed: usize,
    /// Skipped.
    pub skipped: usize,
}

impl Summary {
    /// `N passed, N failed` plus `, N skipped` where any were skipped.
    pub fn line(&self) -> String {
        let mut s = format!("{} passed, {} failed", self.passed, self.failed);
        if self.skipped > 0 {
            s.push_str(&format!(", {} skipped", self.skipped));
        }
        s
    }
}

/// Collects the tests under `paths` (files are taken as they are).
pub fn collect(cfg: &Config, paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_file() {
            out.push(p.clone());
        } else {
            walk(cfg, p, &mut out);
        }
    }
    out.sort();
    out.dedup();
    out
}

fn walk(cfg: &Config, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.')
            || name == "Inputs"
            || cfg.excludes.contains(&name)
            || name == "lit.toml"
            || name.starts_with("lit.")
        {
            continue;
        }
        if p.is_dir() {
            walk(cfg, &p, out);
        } else if cfg.suffixes.iter().any(|s| name.ends_with(s.as_str())) {
            out.push(p);
        }
    }
}

/// Runs `tests` with `jobs` threads; calls `report` as each result arrives.
pub fn run_suite(
    cfg: &Config,
    tests: &[PathBuf],
    opts: &Options,
    report: &(dyn Fn(&TestResult) + Sync),
) -> Summary {
    let next = AtomicUsize::new(0);
    let summary = Mutex::new(Summary::default());
    let tmp_root = std::env::temp_dir().join(format!("nart-lit-{}", std::process::id()));
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(t) = tests.get(i) else { break };
                let r = run_test(cfg, t, opts, &tmp_root, i);
                {
                    let mut sm = summary.lock().unwrap_or_else(|e| e.into_inner());
                    match r.outcome {
                        Outcome::Pass | Outcome::XFail => sm.passed += 1,
                        Outcome::Fail | Outcome::XPass => sm.failed += 1,
                        Outcome::Unsupported => sm.skipped += 1,
                    }
                }
                report(&r);
            });
        }
    });
    let _ = std::fs::remove_dir_all(&tmp_root);
    summary.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// The bash preamble: pipefail, and lit's `not` (`not --crash` expects a crash). A Rust panic
/// (exit status 101) counts as a crash, like a signal, so `not nart-opt` never hides one.
const PREAMBLE: &str = r#"set -o pipefail
not() {
  local crash=0
  if [ "$1" = "--crash" ]; then crash=1; shift; fi
  "$@"
  local rc=$?
  if [ $crash = 1 ]; then { [ $rc -ge 128 ] || [ $rc -eq 101 ]; } && return 0; return 1; fi
  { [ $rc -ge 128 ] || [ $rc -eq 101 ]; } && return 1
  [ $rc -eq 0 ] && return 1
  return 0
}
"#;

fn tool_table(cfg: &Config, bin_dir: &Path) -> Vec<(String, String)> {
    let mut v = Vec::new();
    let exe = |name: &str| {
        let p = bin_dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
        p.is_file().then(|| p.display().to_string())
    };
    for t in &cfg.tools {
        if let Some(p) = exe(t) {
            v.push((t.clone(), p));
        }
    }
    for (alias, target) in &cfg.aliases {
        if let Some(p) = exe(target) {
            v.push((alias.clone(), p));
        }
    }
    // Longest names first, so that `nart-opt` wins over a tool called `nart`.
    v.sort_by_key(|t| std::cmp::Reverse(t.0.len()));
    v
}

fn run_test(cfg: &Config, path: &Path, opts: &Options, tmp_root: &Path, idx: usize) -> TestResult {
    let mut res = TestResult {
        path: path.to_path_buf(),
        outcome: Outcome::Fail,
        log: String::new(),
    };
    let text = match std::fs::read(path) {
        Ok(t) => String::from_utf8_lossy(&t).into_owned(),
        Err(e) => {
            res.log = format!("cannot read the test: {e}\n");
            return res;
        }
    };
    let d = match script::parse(&text) {
        Ok(d) => d,
        Err(e) => {
            res.log = format!("malformed test: {e}\n");
            return res;
        }
    };
    let any = |list: &[String]| -> Result<bool, String> {
        for e in list {
            if features::eval(e, &cfg.features)? {
                return Ok(true);
            }
        }
        Ok(false)
    };
    let all = |list: &[String]| -> Result<bool, String> {
        for e in list {
            if !features::eval(e, &cfg.features)? {
                return Ok(false);
            }
        }
        Ok(true)
    };
    match (all(&d.requires), any(&d.unsupported)) {
        (Ok(true), Ok(false)) => {}
        (Ok(_), Ok(_)) => {
            res.outcome = Outcome::Unsupported;
            return res;
        }
        (Err(e), _) | (_, Err(e)) => {
            res.log = format!("bad feature expression: {e}\n");
            return res;
        }
    }
    let xfail = match any(&d.xfail) {
        Ok(x) => x,
        Err(e) => {
            res.log = format!("bad XFAIL expression: {e}\n");
            return res;
        }
    };
    if d.run.is_empty() {
        res.log = "test has no 'RUN:' line\n".into();
        return res;
    }
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let dir = abs.parent().map(Path::to_path_buf).unwrap_or_default();
    let stem = abs
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tdir = tmp_root.join(format!("{idx}"));
    let _ = std::fs::create_dir_all(&tdir);
    let tmp = tdir.join(format!("{stem}.tmp"));
    let mut subs: Vec<(String, String)> = cfg.substitutions.clone();
    subs.extend([
        ("%s".into(), abs.display().to_string()),
        ("%S".into(), dir.display().to_string()),
        ("%p".into(), dir.display().to_string()),
        ("%t".into(), tmp.display().to_string()),
        ("%T".into(), tdir.display().to_string()),
    ]);
    let tools = tool_table(cfg, &opts.bin_dir);
    let cmds: Vec<String> = d
        .run
        .iter()
        .map(|c| script::substitute_tools(&script::substitute(c, &subs), &tools))
        .collect();
    let mut body = String::from(PREAMBLE);
    for (i, c) in cmds.iter().enumerate() {
        body.push_str(&format!("{{ {c}\n}} || {{ __rc=$?; echo \"error: command {} failed with exit status $__rc\" >&2; exit $__rc; }}\n", i + 1));
    }
    let path_var = match std::env::var_os("PATH") {
        Some(p) => {
            let mut v = vec![opts.bin_dir.clone()];
            v.extend(std::env::split_paths(&p));
            std::env::join_paths(v).unwrap_or(p)
        }
        None => opts.bin_dir.clone().into_os_string(),
    };
    let (status, output) = match exec(&body, &dir, &path_var, opts.timeout) {
        Ok(x) => x,
        Err(e) => (None, format!("cannot run bash: {e}\n")),
    };
    let ok = status == Some(0);
    res.outcome = match (ok, xfail) {
        (true, false) => Outcome::Pass,
        (false, false) => Outcome::Fail,
        (false, true) => Outcome::XFail,
        (true, true) => Outcome::XPass,
    };
    let mut log = String::new();
    for (i, c) in cmds.iter().enumerate() {
        log.push_str(&format!("RUN: at line {}: {c}\n", i + 1));
    }
    match status {
        Some(s) => log.push_str(&format!("exit status: {s}\n")),
        None => log.push_str(&format!("timed out after {:?}\n", opts.timeout)),
    }
    log.push_str("--- output ---\n");
    log.push_str(&output);
    res.log = log;
    let _ = std::fs::remove_dir_all(&tdir);
    res
}

fn exec(
    script: &str,
    dir: &Path,
    path_var: &std::ffi::OsStr,
    timeout: Duration,
) -> std::io::Result<(Option<i32>, String)> {
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path_var)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let t_out = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(o) = out.as_mut() {
            let _ = o.read_to_end(&mut s);
        }
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(e) = err.as_mut() {
            let _ = e.read_to_end(&mut s);
        }
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break st.code().or(Some(128));
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let o = t_out.join().unwrap_or_default();
    let e = t_err.join().unwrap_or_default();
    let mut s = String::from_utf8_lossy(&o).into_owned();
    s.push_str(&String::from_utf8_lossy(&e));
    Ok((status, s))
}
