//! `--targets auto`: the choice follows the goal and the targets' cost models, the table and
//! the reason are printed and stored in the package, a target that wants a quantization scheme
//! is used (and the model quantized) only with calibration data, and `auto` with other names is
//! an error.

use std::path::{Path, PathBuf};

use nart_cli::auto::{decide, Goal};
use nart_cli::package::{compile, CompileRequest};
use nart_ir::Context;
use nart_target::testing::FakeTarget;
use nart_target::{TargetRegistry, Throughput};

fn model_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/models")
        .join(name)
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("auto-tests");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

const CNN_OPS: [&str; 5] = ["Conv", "Relu", "MaxPool", "Gemm", "Flatten"];

fn throughput(flops_per_s: f64) -> Throughput {
    Throughput {
        flops_per_s,
        bytes_per_s: flops_per_s,
        ..Throughput::default()
    }
}

/// interp, a fast chip and a slow one, both running every op of digits_cnn.
fn two_chips() -> TargetRegistry {
    let mut r = TargetRegistry::builtin();
    r.register(Box::new(
        FakeTarget::float("slow", &CNN_OPS).with_throughput(throughput(1e6)),
    ));
    r.register(Box::new(
        FakeTarget::float("fast", &CNN_OPS).with_throughput(throughput(1e13)),
    ));
    r
}

fn digits_cnn(ctx: &mut Context) -> nart_ir::Op {
    let module = nart_onnx::import_file(ctx, &model_dir("digits_cnn").join("model.onnx")).unwrap();
    let body = ctx.region_blocks(ctx.region(module, 0))[0];
    ctx.block_ops(body)[0]
}

#[test]
fn latency_picks_the_fastest_placement() {
    let mut ctx = Context::new();
    let func = digits_cnn(&mut ctx);
    let d = decide(&mut ctx, func, &two_chips(), Goal::Latency, false).unwrap();
    assert_eq!(d.targets, ["fast", "interp"], "{}", d.report);
    // interp alone, each chip, both chips.
    let lists: Vec<String> = d.candidates.iter().map(|c| c.targets.join(",")).collect();
    assert_eq!(
        lists,
        ["interp", "slow,interp", "fast,interp", "slow,fast,interp"]
    );
    let secs: Vec<f64> = d.candidates.iter().map(|c| c.seconds).collect();
    // The slow chip's placements fall back to interp (the partitioner's cost step moves its
    // segment there), so only the fast chip beats interp alone.
    assert!(
        secs.iter().enumerate().all(|(i, &s)| i == 2 || secs[2] < s),
        "{secs:?}"
    );
    assert!(
        d.report.contains("chose fast,interp for latency"),
        "{}",
        d.report
    );
    assert_eq!(d.scheme, None);
}

#[test]
fn memory_goal_weighs_what_each_target_holds() {
    let mut ctx = Context::new();
    let func = digits_cnn(&mut ctx);
    let mut r = TargetRegistry::builtin();
    r.register(Box::new(nart_target_onednn::OnednnTarget::new()));
    if r.get("onednn").unwrap().availability().is_err() {
        if std::env::var("NART_REQUIRE_ONEDNN").as_deref() == Ok("1") {
            panic!("NART_REQUIRE_ONEDNN=1 but oneDNN is unavailable");
        }
        eprintln!("skipped: oneDNN is unavailable");
        return;
    }
    // oneDNN keeps a buffer for every value and a reordered copy of the weights: faster,
    // larger. The interpreter frees values after their last use.
    let fast = decide(&mut ctx, func, &r, Goal::Latency, false).unwrap();
    assert_eq!(fast.targets, ["onednn", "interp"], "{}", fast.report);
    let lean = decide(&mut ctx, func, &r, Goal::Memory, false).unwrap();
    assert_eq!(lean.targets, ["interp"], "{}", lean.report);
    let (i, o) = (&lean.candidates[0], &lean.candidates[1]);
    assert!(
        i.bytes < o.bytes && o.seconds < i.seconds,
        "{}",
        lean.report
    );
    assert!(
        lean.report.contains("chose interp for memory"),
        "{}",
        lean.report
    );

    // The package records the decision.
    let out = tmp("digits_cnn-auto-memory.nartpkg");
    let req = CompileRequest {
        model: model_dir("digits_cnn").join("model.onnx"),
        targets: vec!["auto".into()],
        output: out.clone(),
        goal: Goal::Memory,
        ..CompileRequest::default()
    };
    let mut report = Vec::new();
    let pkg = compile(&req, &r, &mut report).unwrap();
    let report = String::from_utf8(report).unwrap();
    assert!(
        report.starts_with("--targets auto, goal memory (estimated, dynamic dims at 1):"),
        "{report}"
    );
    let notes = &pkg.manifest().notes;
    assert!(
        notes["auto"].contains("chose interp for memory"),
        "{notes:?}"
    );
    assert!(pkg.manifest().targets.iter().all(|t| t.name == "interp"));
}

#[test]
fn a_target_that_wants_a_scheme_needs_calibration_data() {
    let mut r = TargetRegistry::builtin();
    r.register(Box::new(
        FakeTarget::int8("npu").with_throughput(throughput(1e13)),
    ));
    let mut ctx = Context::new();
    let func = digits_cnn(&mut ctx);
    let d = decide(&mut ctx, func, &r, Goal::Latency, false).unwrap();
    assert_eq!(d.targets, ["interp"]);
    assert!(
        d.report
            .contains("npu: not considered, it wants scheme pow2 and there is no --calib data"),
        "{}",
        d.report
    );
    // With calibration data the npu is a candidate, wins, and the model is quantized with
    // its scheme.
    let dir = model_dir("digits_cnn");
    let req = CompileRequest {
        model: dir.join("model.onnx"),
        targets: vec!["auto".into()],
        calib: Some(dir.join("calib_inputs.pb")),
        output: tmp("digits_cnn-auto-npu.nartpkg"),
        ..CompileRequest::default()
    };
    let mut report = Vec::new();
    let pkg = compile(&req, &r, &mut report).unwrap();
    let report = String::from_utf8(report).unwrap();
    assert!(report.contains("chose npu,interp for latency"), "{report}");
    assert!(
        report.contains("quantizing with scheme pow2, which a chosen target wants"),
        "{report}"
    );
    let notes = &pkg.manifest().notes;
    assert!(notes["quantization"].contains("scheme pow2"), "{notes:?}");
}

#[test]
fn auto_goes_alone() {
    let req = CompileRequest {
        model: model_dir("digits_cnn").join("model.onnx"),
        targets: vec!["auto".into(), "interp".into()],
        output: tmp("never.nartpkg"),
        ..CompileRequest::default()
    };
    let e = compile(&req, &TargetRegistry::builtin(), &mut Vec::new()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--targets auto picks the targets itself; give it alone, not with interp"
    );
}

/// A timer that runs each candidate once (so that it really compiles, loads and runs) and
/// reports the seconds `table` gives its targets, recording what it was asked.
struct FakeTimer {
    table: Vec<(&'static str, f64)>,
    asked: Vec<String>,
}

impl nart_cli::auto::Timer for FakeTimer {
    fn seconds(
        &mut self,
        targets: &[String],
        run: &mut dyn FnMut() -> anyhow::Result<()>,
    ) -> anyhow::Result<f64> {
        run()?;
        let name = targets.join(",");
        self.asked.push(name.clone());
        Ok(self
            .table
            .iter()
            .find(|(t, _)| *t == name)
            .unwrap_or_else(|| panic!("no time for {name}"))
            .1)
    }
}

fn measured(
    table: Vec<(&'static str, f64)>,
    goal: Goal,
    name: &str,
) -> (String, Vec<String>, nart_rt::Package) {
    let req = CompileRequest {
        model: model_dir("digits_cnn").join("model.onnx"),
        targets: vec!["auto".into()],
        output: tmp(name),
        goal,
        ..CompileRequest::default()
    };
    let mut timer = FakeTimer {
        table,
        asked: Vec::new(),
    };
    let mut report = Vec::new();
    let pkg =
        nart_cli::package::compile_with(&req, &two_chips(), Some(&mut timer), &mut report).unwrap();
    (String::from_utf8(report).unwrap(), timer.asked, pkg)
}

/// Measured, the choice is what the timer measured, against the cost models' estimates (which
/// pick `fast,interp`): every candidate is compiled, loaded and run, in order, and a placement
/// already measured is not timed again.
#[test]
fn measuring_picks_what_was_measured() {
    let (report, asked, pkg) = measured(
        vec![
            ("interp", 3e-3),
            ("slow,interp", 1e-3),
            ("fast,interp", 2e-3),
            ("slow,fast,interp", 4e-3),
        ],
        Goal::Latency,
        "digits_cnn-auto-measured.nartpkg",
    );
    // slow,fast,interp compiles to slow,interp's placement (every op on slow): timed once.
    assert_eq!(asked, ["interp", "slow,interp", "fast,interp"]);
    assert!(
        report.starts_with(
            "--targets auto, goal latency (measured: each candidate compiled and run here, dynamic dims at 1):"
        ),
        "{report}"
    );
    assert!(
        report.contains(
            "chose slow,interp for latency: measured 1.000 ms against 2.000 ms for fast,interp"
        ),
        "{report}"
    );
    let header: Vec<&str> = report
        .lines()
        .nth(1)
        .unwrap()
        .split("  ")
        .filter(|c| !c.is_empty())
        .map(str::trim)
        .collect();
    assert_eq!(
        header,
        [
            "candidate",
            "ops",
            "segments",
            "est. latency",
            "est. memory",
            "latency",
            "package+act."
        ]
    );
    println!("{report}");
    let chosen: Vec<&str> = report.lines().filter(|l| l.ends_with("chosen")).collect();
    assert_eq!(chosen.len(), 1, "{report}");
    // The placement shown is the compiled package's: all 8 ops on the slow chip.
    let cells: Vec<&str> = chosen[0].split_whitespace().collect();
    assert_eq!(cells[..4], ["slow,interp", "slow", "8", "1"], "{report}");
    assert!(pkg.manifest().notes["auto"].contains("measured 1.000 ms"));
}

/// A timer that also measures memory: every candidate takes 1 ms, and its peak bytes are what
/// `peaks` gives its targets (after really loading and running it once).
struct FakeMeter {
    peaks: Vec<(&'static str, f64)>,
    loaded: Vec<String>,
}

impl nart_cli::auto::Timer for FakeMeter {
    fn seconds(
        &mut self,
        _: &[String],
        run: &mut dyn FnMut() -> anyhow::Result<()>,
    ) -> anyhow::Result<f64> {
        run()?;
        Ok(1e-3)
    }

    fn peak_bytes(
        &mut self,
        targets: &[String],
        load_and_run: &mut dyn FnMut() -> anyhow::Result<()>,
    ) -> anyhow::Result<Option<f64>> {
        load_and_run()?;
        let name = targets.join(",");
        self.loaded.push(name.clone());
        Ok(self.peaks.iter().find(|(t, _)| *t == name).map(|p| p.1))
    }
}

/// `--goal memory --measure` chooses by the peak bytes the meter measured, not by the
/// estimates, and says so in the table and the reason.
#[test]
fn measuring_memory_picks_the_smallest_measured_peak() {
    let req = CompileRequest {
        model: model_dir("digits_cnn").join("model.onnx"),
        targets: vec!["auto".into()],
        output: tmp("digits_cnn-auto-memory.nartpkg"),
        goal: Goal::Memory,
        ..CompileRequest::default()
    };
    let mut meter = FakeMeter {
        peaks: vec![
            ("interp", 3_000_000.0),
            ("slow,interp", 5_000_000.0),
            ("fast,interp", 2_000_000.0),
        ],
        loaded: Vec::new(),
    };
    let mut report = Vec::new();
    nart_cli::package::compile_with(&req, &two_chips(), Some(&mut meter), &mut report).unwrap();
    let report = String::from_utf8(report).unwrap();
    // slow,fast,interp compiles to slow,interp's placement: measured once.
    assert_eq!(meter.loaded, ["interp", "slow,interp", "fast,interp"]);
    assert!(
        report.contains(
            "chose fast,interp for memory: measured 1.91 MiB against 2.86 MiB for interp"
        ),
        "{report}"
    );
    let header = report.lines().nth(1).unwrap();
    assert!(header.contains("peak memory"), "{report}");
}

/// Equal measurements choose deterministically: the other measure, then the fewest segments,
/// then the first candidate considered.
#[test]
fn measured_ties_break_the_same_way_every_time() {
    let table = vec![
        ("interp", 1e-3),
        ("slow,interp", 1e-3),
        ("fast,interp", 1e-3),
        ("slow,fast,interp", 1e-3),
    ];
    let (a, _, _) = measured(table.clone(), Goal::Latency, "tie-a.nartpkg");
    let (b, _, _) = measured(table, Goal::Latency, "tie-b.nartpkg");
    let chosen = |r: &str| {
        r.lines()
            .find(|l| l.starts_with("chose "))
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .to_string()
    };
    assert_eq!(chosen(&a), chosen(&b));
}

#[test]
fn measuring_needs_auto() {
    let req = CompileRequest {
        model: model_dir("digits_cnn").join("model.onnx"),
        targets: vec!["interp".into()],
        output: tmp("never-measured.nartpkg"),
        ..CompileRequest::default()
    };
    let mut timer = nart_cli::auto::WallClock { runs: 1 };
    let e = nart_cli::package::compile_with(
        &req,
        &TargetRegistry::builtin(),
        Some(&mut timer),
        &mut Vec::new(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "--measure measures the candidates of --targets auto; give --targets auto"
    );
}
