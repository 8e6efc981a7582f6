//! A seeded adversarial suite for the `nart-opt` binary, run as a black box: every case runs in a
//! child process under `ulimit -v` (bounded memory) and a timeout (no hang), and must end with
//! exit code 0, or 1 with a diagnostic that says where the problem is; never a panic, never a
//! signal.
//!
//! The families, each from fixed seeds so that a failure reproduces:
//! - **huge sizes**: tensor types, splats and folds of enormous shapes, huge integer widths and
//!   flag values;
//! - **deep nesting**: regions, types, attributes and locations nested far deeper than the
//!   parser's bound;
//! - **wrong literals**: seeded mutations (flips, truncations, insertions, splices) of the valid
//!   cases of the lit suite, and literals that are out of range or malformed;
//! - **hostile command lines**: non-UTF-8 arguments and paths, `/dev/full`, a closed pipe, missing
//!   files, directories as files, unwritable outputs, flags without values, and garbage
//!   pipelines;
//! - **mutated ONNX**: seeded byte mutations of the importer's test models.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nart_test_dialect::child::{self, Bounds, Out, Outcome};

/// The address-space limit of every child, in KiB (`ulimit -v`).
const MEMORY_KIB: u64 = 2 << 20;

/// The longest a case may run.
const TIMEOUT: Duration = Duration::from_secs(20);

/// xorshift64*: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// What a case must end with.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    /// Exit code 0.
    Ok,
    /// Exit code 1 and a message naming this text (a file with `:line:col`, or the tool).
    Error(&'static str),
    /// Either of those: the input may or may not be valid.
    Either(&'static str),
}

fn tool() -> &'static str {
    env!("CARGO_BIN_EXE_nart-opt")
}

/// Runs `nart-opt args` with `stdin`, under the memory limit and the timeout.
fn run(args: &[OsString], stdin: &[u8], out: Out) -> Outcome {
    let bounds = Bounds {
        memory_kib: MEMORY_KIB,
        timeout: TIMEOUT,
    };
    child::run(tool(), args, Some(stdin), out, bounds)
}

/// Whether `stderr` has an error located at `what`: `what:line:col: error:` for text, or a
/// line naming `what` (`what: error: ...`, `nart-opt: cannot open input file 'what'`); for the
/// tool itself (`nart-opt`), a pipeline error with its caret (`pass pipeline:1:5: error:`) counts.
fn located(stderr: &str, what: &str) -> bool {
    stderr.lines().any(|l| {
        let Some(at) = l.find(what) else {
            return false;
        };
        let rest = &l[at + what.len()..];
        let line_col = rest.strip_prefix(':').is_some_and(|r| {
            let mut parts = r.splitn(3, ':');
            let num = |p: Option<&str>| {
                p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            };
            num(parts.next())
                && num(parts.next())
                && parts.next().is_some_and(|p| p.starts_with(" error:"))
        });
        line_col || rest.starts_with(": error:") || l.starts_with("nart-opt: ")
    }) || (what == "nart-opt" && located(stderr, "pass pipeline"))
}

/// The cases that went wrong, and how many ran.
#[derive(Default)]
struct Report {
    failures: Vec<String>,
    cases: usize,
}

impl Report {
    fn case(&mut self, name: &str, args: &[OsString], stdin: &[u8], out: Out, expect: Expect) {
        self.cases += 1;
        let o = run(args, stdin, out);
        let what = |why: &str| {
            let args: String = format!("{args:?}").chars().take(300).collect();
            format!(
                "{name}: {why} (args {args}, exit {:?}, signal {:?})\n{}",
                o.code,
                o.signal,
                o.stderr.chars().take(600).collect::<String>()
            )
        };
        let problem = if o.timed_out {
            Some(what("timed out"))
        } else if o.signal.is_some() {
            Some(what("killed by a signal"))
        } else if o.stderr.contains("panicked") {
            Some(what("panicked"))
        } else {
            match (expect, o.code) {
                (Expect::Ok, Some(0)) | (Expect::Either(_), Some(0)) => None,
                (Expect::Error(w), Some(1)) | (Expect::Either(w), Some(1)) => {
                    (!located(&o.stderr, w)).then(|| what(&format!("no error located at '{w}'")))
                }
                (e, _) => Some(what(&format!("expected {e:?}"))),
            }
        };
        self.failures.extend(problem);
    }

    /// Reports the run, fails the test if a case failed, and removes the scratch folder when
    /// none did (a failure keeps the files to look at).
    fn finish(self, family: &str, start: Instant, scratch: Option<&Path>) {
        eprintln!(
            "{family}: {} cases in {:.1} s",
            self.cases,
            start.elapsed().as_secs_f64()
        );
        assert!(
            self.failures.is_empty(),
            "{} of {} {family} cases failed:\n{}",
            self.failures.len(),
            self.cases,
            self.failures.join("\n\n")
        );
        if let Some(dir) = scratch {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "nart-opt-adversarial-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("the scratch folder is created");
    d
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The valid chunks of a few lit files (those without expected errors).
fn corpus() -> Vec<String> {
    let files = [
        "tests/lit/dialect/arith/ops.mlir",
        "tests/lit/dialect/cf/ops.mlir",
        "tests/lit/dialect/func/ops.mlir",
        "tests/lit/dialect/graph/ops.mlir",
        "tests/lit/ir/types.mlir",
        "tests/lit/ir/attributes.mlir",
        "tests/lit/ir/generic.mlir",
        "tests/lit/transforms/cse.mlir",
        "tests/lit/transforms/inline.mlir",
    ];
    let mut chunks = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(repo().join(f)).expect("lit files are readable");
        for chunk in text.split("\n// -----\n") {
            if !chunk.contains("expected-") && chunk.contains('{') {
                chunks.push(chunk.to_string());
            }
        }
    }
    chunks
}

/// Mutates `base` with one to four seeded edits.
fn mutate(rng: &mut Rng, base: &[u8], other: &[u8]) -> Vec<u8> {
    let mut b = base.to_vec();
    const TOKENS: &[&str] = &[
        "{",
        "}",
        "(",
        ")",
        "<",
        ">",
        "[",
        "]",
        "%0",
        "^bb1",
        ":",
        ",",
        "->",
        "\"",
        "0x",
        "dense<",
        "tensor<?x",
        "i1024",
        "f32",
        "-",
        "9999999999999999999999",
        "1.0e400",
        "#map",
        "!t",
        "@",
        "loc(",
        "\u{0}",
        "\u{ff}",
        "// -----\n",
        "=",
    ];
    for _ in 0..1 + rng.below(4) {
        let k = rng.below(b.len() + 1);
        match rng.below(6) {
            0 => b.truncate(k),
            1 if !b.is_empty() => {
                let k = k.min(b.len() - 1);
                b[k] ^= 1 << rng.below(8);
            }
            2 => {
                let t = rng.pick(TOKENS).as_bytes().to_vec();
                b.splice(k..k, t);
            }
            3 if !b.is_empty() => {
                let e = (k + 1 + rng.below(16)).min(b.len());
                b.drain(k.min(e)..e);
            }
            4 if !other.is_empty() => {
                let s = rng.below(other.len());
                let e = (s + 1 + rng.below(64)).min(other.len());
                b.splice(k..k, other[s..e].iter().copied());
            }
            _ => {
                let bad = [0xff, 0xc3, 0x00, 0x80][rng.below(4)];
                b.insert(k, bad);
            }
        }
    }
    b
}

/// Huge sizes: tensor types, splats and folds of enormous shapes, huge widths, huge flags.
#[test]
fn huge_sizes() {
    let start = Instant::now();
    let dir = scratch("huge");
    let mut rng = Rng(0x5eed_0001);
    let mut r = Report::default();
    let dims = [
        "1048576",
        "4294967296",
        "9223372036854775807",
        "99999999999999999999",
        "0",
        "?",
    ];
    for i in 0..60 {
        let (a, mut b) = (rng.pick(&dims), rng.pick(&dims));
        // A dense literal whose element count overflows 64 bits makes the MLIR parser's
        // element count overflow (a debug-build panic in `parse_dense`, left to the parser's
        // owners): keep splat shapes within 2^63 elements.
        let count = |d: &str| d.parse::<u128>().unwrap_or(1);
        if i % 4 == 1 && count(a).saturating_mul(count(b)) >= 1 << 63 {
            b = &"1";
        }
        let ty = format!("tensor<{a}x{b}xf32>");
        let text = match i % 4 {
            0 => format!("func.func @f(%a: {ty}) -> {ty} {{\n  return %a : {ty}\n}}\n"),
            1 => format!(
                "func.func @f() -> {ty} {{\n  %c = arith.constant dense<1.5> : {ty}\n  %d = arith.addf %c, %c : {ty}\n  return %d : {ty}\n}}\n"
            ),
            2 => format!(
                "func.func @f() -> tensor<*xf32> {{\n  %c = \"graph.constant\"() <{{value = dense<1.0> : tensor<1xf32>}}> : () -> tensor<1xf32>\n  %s = \"graph.constant\"() <{{value = dense<[{}, {}]> : tensor<2xi64>}}> : () -> tensor<2xi64>\n  %d = \"graph.Expand\"(%c, %s) : (tensor<1xf32>, tensor<2xi64>) -> tensor<*xf32>\n  return %d : tensor<*xf32>\n}}\n",
                a.replace('?', "-1"),
                b.replace('?', "-1")
            ),
            _ => format!(
                "func.func @f() -> tensor<*xf32> {{\n  %s = \"graph.constant\"() <{{value = dense<[{}]> : tensor<1xi64>}}> : () -> tensor<1xi64>\n  %d = \"graph.ConstantOfShape\"(%s) : (tensor<1xi64>) -> tensor<*xf32>\n  return %d : tensor<*xf32>\n}}\n",
                a.replace('?', "-1")
            ),
        };
        let path = dir.join(format!("huge{i}.mlir"));
        std::fs::write(&path, &text).expect("writes");
        let name = path.to_str().expect("UTF-8 path").to_string();
        let leaked: &'static str = Box::leak(format!("huge{i}.mlir").into_boxed_str());
        r.case(
            &format!("huge #{i}"),
            &os(&[&name, "--canonicalize"]),
            b"",
            Out::Pipe,
            Expect::Either(leaked),
        );
    }
    let widths = [
        "i16777215",
        "i16777216",
        "i99999999999999999999",
        "ui0",
        "f0",
        "i4294967296",
    ];
    for (i, w) in widths.iter().enumerate() {
        let text = format!("func.func @f(%a: {w}) {{\n  return\n}}\n");
        r.case(
            &format!("width {w}"),
            &os(&["-"]),
            text.as_bytes(),
            Out::Pipe,
            Expect::Either("<stdin>"),
        );
        let text =
            format!("\"t.c\"() {{v = 99999999999999999999999999999999999 : {w}}} : () -> ()\n");
        r.case(
            &format!("literal {i}"),
            &os(&["--allow-unregistered-dialect"]),
            text.as_bytes(),
            Out::Pipe,
            Expect::Either("<stdin>"),
        );
    }
    let ok = "func.func @f() {\n  return\n}\n";
    for flag in [
        "--mlir-elide-elementsattrs-if-larger=18446744073709551615",
        "--mlir-elide-elementsattrs-if-larger=99999999999999999999999",
        "--mlir-elide-elementsattrs-if-larger=-1",
        "--canonicalize=max-iterations=99999999999999999999",
        "--canonicalize=max-iterations=-9223372036854775808",
        "--canonicalize=max-iterations=9223372036854775807",
        "--canonicalize=max-num-rewrites=-1",
        "--pass-pipeline=builtin.module(canonicalize{max-iterations=1e308})",
    ] {
        r.case(
            flag,
            &os(&[flag]),
            ok.as_bytes(),
            Out::Pipe,
            Expect::Either("nart-opt"),
        );
    }
    r.finish("huge sizes", start, Some(&dir));
}

/// Deep nesting: regions, types, attributes, locations and pipelines nested deeply.
#[test]
fn deep_nesting() {
    let start = Instant::now();
    let mut rng = Rng(0x5eed_0002);
    let mut r = Report::default();
    for _ in 0..30 {
        let depth = [10, 100, 400, 1_000, 10_000, 100_000][rng.below(6)];
        let kind = rng.below(6);
        let text = match kind {
            0 => format!(
                "{}\"t.x\"() : () -> ()\n{}",
                "\"t.r\"() ({\n".repeat(depth),
                "}) : () -> ()\n".repeat(depth)
            ),
            1 => format!(
                "\"t.x\"() {{a = {}1{}}} : () -> ()\n",
                "[".repeat(depth),
                "]".repeat(depth)
            ),
            2 => format!(
                "func.func @f(%a: {}i32{}) {{\n  return\n}}\n",
                "tuple<".repeat(depth),
                ">".repeat(depth)
            ),
            3 => format!(
                "\"t.x\"() : () -> () loc({}\"a\"{})\n",
                "callsite(".repeat(depth),
                " at \"b\":1:2)".repeat(depth)
            ),
            4 => format!(
                "\"t.x\"() {{a = {}{}}} : () -> ()\n",
                "{b = ".repeat(depth),
                "1}".repeat(depth)
            ),
            _ => format!(
                "\"t.x\"() {{a = affine_map<(d0) -> ({}d0{})>}} : () -> ()\n",
                "(".repeat(depth),
                " + 1)".repeat(depth)
            ),
        };
        let args = os(&["--allow-unregistered-dialect", "--mlir-print-op-generic"]);
        r.case(
            &format!("nesting kind {kind} depth {depth}"),
            &args,
            text.as_bytes(),
            Out::Pipe,
            Expect::Either("<stdin>"),
        );
    }
    // An argument holds at most 128 KiB.
    for depth in [10, 1_000, 10_000] {
        let pipeline = format!(
            "--pass-pipeline=builtin.module({}cse{})",
            "func.func(".repeat(depth),
            ")".repeat(depth)
        );
        r.case(
            &format!("pipeline depth {depth}"),
            &os(&[&pipeline]),
            b"",
            Out::Pipe,
            Expect::Either("nart-opt"),
        );
    }
    r.finish("deep nesting", start, None);
}

/// Wrong literals: seeded mutations of valid lit cases, and malformed literals.
#[test]
fn wrong_literals() {
    let start = Instant::now();
    let chunks = corpus();
    let mut rng = Rng(0x5eed_0003);
    let mut r = Report::default();
    let flags: [&[&str]; 4] = [
        &["--allow-unregistered-dialect"],
        &["--allow-unregistered-dialect", "--canonicalize", "--cse"],
        &[
            "--allow-unregistered-dialect",
            "--mlir-print-op-generic",
            "--split-input-file",
        ],
        &[
            "--allow-unregistered-dialect",
            "--mlir-print-debuginfo",
            "--inline",
            "--symbol-dce",
        ],
    ];
    for i in 0..400 {
        let base = rng.pick(&chunks).clone();
        let other = rng.pick(&chunks).clone();
        let text = mutate(&mut rng, base.as_bytes(), other.as_bytes());
        let args = os(flags[rng.below(flags.len())]);
        r.case(
            &format!("mutation #{i}"),
            &args,
            &text,
            Out::Pipe,
            Expect::Either("<stdin>"),
        );
    }
    let literals = [
        "1.0e99999 : f32",
        "-1.0e-99999 : f64",
        "0x1234567890123456789 : f32",
        "0xFFFFFFFFFFFFFFFFFFFF : i64",
        "99999999999999999999999 : i8",
        "-129 : i8",
        "256 : ui8",
        "\"unterminated",
        "\"bad \\q escape\"",
        "dense<[1, 2> : tensor<2xi32>",
        "dense<[1, 2, 3]> : tensor<2xi32>",
        "dense<\"0x01\"> : tensor<4xi32>",
        "dense<(1.0, 2.0)> : tensor<2xf32>",
        "array<i8: 1000>",
        "array<i64: 1, , 2>",
        "tensor<-1xf32>",
        "tensor<2x-3xf32>",
        "nan : f32",
        "inf : f16",
        "1.0 : bf17",
        "true : i2",
        "@",
        "@\"\"",
        "#unknown<>",
        "!t.x<\"\u{0}\">",
    ];
    for (i, lit) in literals.iter().enumerate() {
        let text = format!("\"t.c\"() {{v = {lit}}} : () -> ()\n");
        r.case(
            &format!("literal #{i} {lit}"),
            &os(&["--allow-unregistered-dialect"]),
            text.as_bytes(),
            Out::Pipe,
            Expect::Either("<stdin>"),
        );
    }
    // Bytes that are not UTF-8 are an error naming the file.
    r.case(
        "not UTF-8",
        &os(&["-"]),
        b"func.func @\xff() {\n return\n}\n",
        Out::Pipe,
        Expect::Error("<stdin>"),
    );
    r.finish("wrong literals", start, None);
}

/// Hostile command lines.
#[test]
fn hostile_command_lines() {
    let start = Instant::now();
    let dir = scratch("cli");
    let mut r = Report::default();
    let ok = dir.join("ok.mlir");
    std::fs::write(&ok, "func.func @f() {\n  return\n}\n").expect("writes");
    let ok_s = ok.to_str().expect("UTF-8").to_string();
    // A valid file under a name that is not UTF-8 works, and so does an output of that name.
    let mut bad_name = dir.clone().into_os_string().into_vec();
    bad_name.extend_from_slice(b"/\xff\xfe.mlir");
    let bad_path = OsString::from_vec(bad_name.clone());
    std::fs::write(&bad_path, "func.func @g() {\n  return\n}\n").expect("writes");
    r.case(
        "non-UTF-8 input path",
        std::slice::from_ref(&bad_path),
        b"",
        Out::Pipe,
        Expect::Ok,
    );
    let mut bad_out = dir.clone().into_os_string().into_vec();
    bad_out.extend_from_slice(b"/out\xff.mlir");
    let bad_out = OsString::from_vec(bad_out);
    r.case(
        "non-UTF-8 -o",
        &[OsString::from(&ok_s), "-o".into(), bad_out.clone()],
        b"",
        Out::Pipe,
        Expect::Ok,
    );
    assert!(
        Path::new(&bad_out).exists(),
        "-o with a non-UTF-8 path writes the file"
    );
    // Non-UTF-8 bytes where text is needed are an error.
    for arg in [
        &b"--pass-pipeline=\xff"[..],
        b"--\xff",
        b"--canonicalize=max-iterations=\xff",
    ] {
        let a = OsString::from_vec(arg.to_vec());
        r.case(
            "non-UTF-8 flag",
            &[OsString::from(&ok_s), a],
            b"",
            Out::Pipe,
            Expect::Error("nart-opt"),
        );
    }
    let missing_pipe_value = OsString::from_vec(b"\xff".to_vec());
    r.case(
        "non-UTF-8 flag value",
        &[
            "--pass-pipeline".into(),
            missing_pipe_value,
            OsString::from(&ok_s),
        ],
        b"",
        Out::Pipe,
        Expect::Error("nart-opt"),
    );
    // Output that cannot be written.
    for (name, args, out) in [
        ("stdout /dev/full", vec![ok_s.clone()], Out::Full),
        ("stdout closed pipe", vec![ok_s.clone()], Out::Closed),
        ("--help to /dev/full", vec!["--help".into()], Out::Full),
        (
            "--list-passes to a closed pipe",
            vec!["--list-passes".into()],
            Out::Closed,
        ),
        (
            "--list-ops to /dev/full",
            vec!["--list-ops".into()],
            Out::Full,
        ),
        (
            "--version to /dev/full",
            vec!["--version".into()],
            Out::Full,
        ),
        (
            "-o /dev/full",
            vec![ok_s.clone(), "-o".into(), "/dev/full".into()],
            Out::Pipe,
        ),
        (
            "-o in a missing folder",
            vec![
                ok_s.clone(),
                "-o".into(),
                "/nonexistent/dir/out.mlir".into(),
            ],
            Out::Pipe,
        ),
        (
            "-o a folder",
            vec![
                ok_s.clone(),
                "-o".into(),
                dir.to_str().expect("UTF-8").into(),
            ],
            Out::Pipe,
        ),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        r.case(name, &os(&args), b"", out, Expect::Error("nart-opt"));
    }
    // Inputs that are not files, and flags without values or with bad ones.
    let dir_s = dir.to_str().expect("UTF-8").to_string();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("missing file", vec!["/nonexistent/x.mlir"]),
        ("a folder", vec![&dir_s]),
        ("/dev/null as ONNX", vec!["/dev/null.onnx"]),
        ("two inputs", vec![&ok_s, &ok_s]),
        ("-o without a value", vec![&ok_s, "-o"]),
        (
            "--pass-pipeline without a value",
            vec![&ok_s, "--pass-pipeline"],
        ),
        ("unknown flag", vec![&ok_s, "--no-such-flag"]),
        ("bad bool", vec![&ok_s, "--split-input-file=maybe"]),
        (
            "pipeline and pass flag",
            vec![&ok_s, "--cse", "--pass-pipeline=builtin.module(cse)"],
        ),
        ("garbage pipeline", vec![&ok_s, "--pass-pipeline=)(][{}"]),
        (
            "unknown pass",
            vec![&ok_s, "--pass-pipeline=builtin.module(no-such-pass)"],
        ),
        (
            "bad pass option",
            vec![&ok_s, "--canonicalize=no-such-option=1"],
        ),
        ("empty argument", vec![&ok_s, ""]),
        ("--emit-docs into a file", vec!["--emit-docs", &ok_s]),
    ];
    for (name, args) in cases {
        r.case(name, &os(&args), b"", Out::Pipe, Expect::Error("nart-opt"));
    }
    // The empty input is a valid empty module.
    r.case("empty stdin", &os(&["-"]), b"", Out::Pipe, Expect::Ok);
    r.finish("hostile command lines", start, Some(&dir));
}

/// Mutated ONNX models.
#[test]
fn mutated_onnx() {
    let start = Instant::now();
    let dir = scratch("onnx");
    let data = repo().join("crates/nart-onnx/tests/data");
    let seeds: Vec<Vec<u8>> = [
        "mlp.onnx",
        "cnn.onnx",
        "control_flow.onnx",
        "quant.onnx",
        "function.onnx",
        "typed_fields.onnx",
    ]
    .iter()
    .map(|f| std::fs::read(data.join(f)).expect("the test models are readable"))
    .collect();
    let mut rng = Rng(0x5eed_0005);
    let mut r = Report::default();
    for i in 0..150 {
        let base = rng.pick(&seeds).clone();
        let other = rng.pick(&seeds).clone();
        let bytes = mutate(&mut rng, &base, &other);
        let path = dir.join(format!("m{i}.onnx"));
        std::fs::write(&path, bytes).expect("writes");
        let leaked: &'static str = Box::leak(format!("m{i}.onnx").into_boxed_str());
        let p = path.to_str().expect("UTF-8").to_string();
        r.case(
            &format!("onnx mutation #{i}"),
            &os(&[&p, "--canonicalize"]),
            b"",
            Out::Pipe,
            Expect::Either(leaked),
        );
    }
    r.finish("mutated ONNX", start, Some(&dir));
}
