//! One case of a hostile-input suite: a binary run as a child process under a memory limit
//! (`ulimit -v`) and a timeout, with its standard output sent where the case says.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Where the child's standard output goes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Out {
    /// A pipe the test reads.
    Pipe,
    /// `/dev/full`: every write fails.
    Full,
    /// A pipe whose reading end is closed before the child writes.
    Closed,
}

/// How a child ended.
#[derive(Debug)]
pub struct Outcome {
    /// Its exit code, when it exited.
    pub code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// What it wrote to standard output (with [`Out::Pipe`]; empty otherwise).
    pub stdout: Vec<u8>,
    /// What it wrote to standard error.
    pub stderr: String,
    /// Whether it ran past the timeout (and was killed).
    pub timed_out: bool,
}

/// The bounds of one run.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// The child's address-space limit in KiB (`ulimit -v`).
    pub memory_kib: u64,
    /// How long it may run before it is killed.
    pub timeout: Duration,
}

/// Runs `tool args` within `bounds`, feeding it `stdin` (none: `/dev/null`), with its standard
/// output sent to `out`.
pub fn run(
    tool: &str,
    args: &[OsString],
    stdin: Option<&[u8]>,
    out: Out,
    bounds: Bounds,
) -> Outcome {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "ulimit -v {}; exec \"$0\" \"$@\"",
            bounds.memory_kib
        ))
        .arg(tool)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped())
        .env("RUST_BACKTRACE", "0");
    match out {
        Out::Pipe => cmd.stdout(Stdio::piped()),
        // A pipe whose reading end is closed before the child starts: every write gets EPIPE.
        // (Closing it after the spawn would race with a child whose output fits the pipe.)
        Out::Closed => {
            let (reader, writer) = std::io::pipe().expect("a pipe opens");
            drop(reader);
            cmd.stdout(writer)
        }
        Out::Full => cmd.stdout(std::fs::File::create("/dev/full").expect("/dev/full opens")),
    };
    let mut child = cmd.spawn().expect("sh starts");
    let stdout = child.stdout.take().map(|mut so| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = so.read_to_end(&mut v);
            v
        })
    });
    let mut se = child.stderr.take().expect("stderr is piped");
    let stderr = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = se.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    if let (Some(mut si), Some(bytes)) = (child.stdin.take(), stdin) {
        let bytes = bytes.to_vec();
        std::thread::spawn(move || {
            let _ = si.write_all(&bytes);
        });
    }
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().expect("waits") {
            break s;
        }
        if start.elapsed() > bounds.timeout {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("waits");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    Outcome {
        code: status.code(),
        signal: status.signal(),
        stdout: stdout
            .map(|r| r.join().unwrap_or_default())
            .unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        timed_out,
    }
}
