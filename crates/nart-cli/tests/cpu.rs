//! The code-level `cpu` target end to end: a model compiled with `--targets cpu` (nart's own
//! code, through linalg, buffers, loops and LLVM) into a package, run through `nart-rt` and
//! the `nart` binary, compared with ONNX Runtime's outputs (the model's `test_data_set_0`);
//! `--emit` writes the generated code and `--cross aarch64` builds a package this machine
//! refuses to run. Without a C compiler (to link the code) every test skips, unless
//! `NART_REQUIRE_CC=1`.

use std::process::Command;

mod common;

use common::{committed, max_diff, ort_outputs, read_pb, tmp, zoo_cache};

fn cpu_here(test: &str) -> bool {
    let t = nart_target_cpu::CpuTarget::host();
    nart_target::harness::available(
        test,
        "NART_REQUIRE_CC",
        nart_target::Target::availability(&t),
    )
}

#[test]
fn static_cnn_runs_entirely_in_generated_code_and_matches_onnx_runtime() {
    if cpu_here("static_cnn_runs_entirely_in_generated_code_and_matches_onnx_runtime") {
        common::check_model("cpu", &committed("static_cnn"), "static_cnn", 1.0, 1e-5);
    }
}

/// Compiles the committed model `name` with `--targets cpu` and `dims`, checks that every op
/// went to cpu, in `segments` segments (the partitioner makes one per independent part of the
/// graph), runs the package and compares every output with ONNX Runtime's within `tol` times
/// the largest output (at least 1).
fn check_all_on_cpu(name: &str, dims: &[&str], segments: usize, tol: f32) {
    check_dir_all_on_cpu(&committed(name), name, dims, segments, tol);
}

/// [`check_all_on_cpu`] for the model in `dir`.
fn check_dir_all_on_cpu(
    dir: &std::path::Path,
    name: &str,
    dims: &[&str],
    segments: usize,
    tol: f32,
) {
    use nart_cli::package::{compile, load_package, read_package_inputs, CompileRequest};
    let pkg = tmp("cpu-tests", &format!("{name}-all-cpu.nartpkg"));
    let req = CompileRequest {
        model: dir.join("model.onnx"),
        targets: vec!["cpu".into()],
        output: pkg.clone(),
        dims: dims.iter().map(|d| d.to_string()).collect(),
        ..CompileRequest::default()
    };
    let mut report = Vec::new();
    compile(&req, &nart_cli::partition::registry(), &mut report)
        .unwrap_or_else(|e| panic!("{name}: {e:#}"));
    let report = String::from_utf8(report).unwrap();
    let (on, all) = common::placed_on(&report, "cpu");
    assert!(
        on == all && all > 0,
        "{name}: {on} of {all} ops on cpu\n{report}"
    );
    let s = load_package(&pkg, &nart_rt_std::runtimes()).unwrap();
    assert_eq!(
        s.manifest().segments().count(),
        segments,
        "{name}: segments\n{report}"
    );
    let xs = read_package_inputs(&s, &dir.join("test_data_set_0")).unwrap();
    let got = s.run(xs).unwrap();
    let want = ort_outputs(dir, got.len());
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let (d, m) = max_diff(std::slice::from_ref(g), std::slice::from_ref(w));
        eprintln!("{name}: output #{k}: max |cpu - onnxruntime| = {d:e} (max |y| {m:e})");
        assert!(
            d <= tol * m.max(1.0),
            "{name}: output #{k} differs from ONNX Runtime by {d} (max |y| {m})"
        );
    }
}

#[test]
fn the_transformers_run_entirely_in_generated_code_and_match_onnx_runtime() {
    if cpu_here("the_transformers_run_entirely_in_generated_code_and_match_onnx_runtime") {
        // Gather with run-time token ids, 3-D x 2-D and 4-D x 4-D MatMuls, LayerNormalization
        // (tiny), ReduceMean, Pow, Sqrt and Identity (decomposed).
        check_all_on_cpu("tiny_transformer", &["N=2"], 1, 1e-4);
        check_all_on_cpu("decomposed_transformer", &["N=2"], 1, 1e-4);
    }
}

/// ResNet-18 and MobileNetV2 of the zoo cache (scripts/models/build_zoo.py), compiled whole for
/// the cpu target and run against ONNX Runtime. They take minutes in a debug build, so they run
/// only with `NART_ZOO=1`, like the other targets' zoo tests.
#[test]
fn the_zoo_cnns_run_entirely_in_generated_code_and_match_onnx_runtime() {
    if !cpu_here("the_zoo_cnns_run_entirely_in_generated_code_and_match_onnx_runtime") {
        return;
    }
    if std::env::var_os("NART_ZOO").is_none() {
        eprintln!("zoo: set NART_ZOO=1 to run ResNet-18 and MobileNetV2 from the zoo cache");
        return;
    }
    for name in ["resnet18", "mobilenetv2"] {
        let dir = zoo_cache(name);
        assert!(
            dir.join("model.onnx").exists(),
            "NART_ZOO=1 but {} is missing (run scripts/models/build_zoo.py --cache)",
            dir.display()
        );
        check_dir_all_on_cpu(&dir, name, &["N=1"], 1, 1e-4);
    }
}

#[test]
fn the_op_coverage_model_runs_entirely_in_generated_code_and_matches_onnx_runtime() {
    if cpu_here("the_op_coverage_model_runs_entirely_in_generated_code_and_matches_onnx_runtime") {
        // scripts/models/make_cpu_ops.py: Gather, broadcast and 1-D MatMuls, reductions,
        // ArgMax/ArgMin, Slice (negative step), Split, Pad, Expand, Where, comparisons, logic,
        // Cast and the unary math ops, with thirteen outputs.
        check_all_on_cpu("cpu_ops", &[], 11, 1e-4);
    }
}

#[test]
fn the_binary_compiles_emits_inspects_runs_and_benches() {
    if !cpu_here("the_binary_compiles_emits_inspects_runs_and_benches") {
        return;
    }
    let nart = || Command::new(env!("CARGO_BIN_EXE_nart"));
    let ok = |out: &std::process::Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let dir = committed("static_cnn");
    let pkg = tmp("cpu-tests", "bin-static_cnn.nartpkg");
    for kind in ["llvm", "asm", "obj"] {
        let out = nart()
            .arg("compile")
            .arg(dir.join("model.onnx"))
            .args(["--targets", "cpu", "--emit", kind, "-o"])
            .arg(&pkg)
            .output()
            .unwrap();
        ok(&out);
        let ext = match kind {
            "llvm" => "ll",
            "asm" => "s",
            _ => "o",
        };
        let mut emitted = pkg.clone().into_os_string();
        emitted.push(format!(".0.{ext}"));
        let bytes = std::fs::read(&emitted).unwrap();
        match kind {
            "llvm" => {
                assert!(String::from_utf8_lossy(&bytes).contains("define void @nart_entry(ptr"))
            }
            "asm" => assert!(String::from_utf8_lossy(&bytes).contains("nart_entry:")),
            _ => assert!(bytes.starts_with(b"\x7fELF")),
        }
    }
    let out = nart().arg("inspect").arg(&pkg).output().unwrap();
    ok(&out);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.contains("nart-cpu-abi-3"), "{text}");
    let outputs = tmp("cpu-tests", "bin-static_cnn-out");
    let out = common::run_package(&pkg, &dir, &outputs, &[]);
    ok(&out);
    let bytes = std::fs::read(outputs.join("output_0.pb")).unwrap();
    let got = read_pb(&outputs.join("output_0.pb"));
    let (d, m) = max_diff(&[got], &ort_outputs(&dir, 1));
    assert!(d <= 1e-5 * m.max(1.0), "differs from ONNX Runtime by {d}");
    // The cpu target's thread pool gives the same bytes.
    for threads in ["2", "3"] {
        let more = tmp("cpu-tests", &format!("bin-static_cnn-out-t{threads}"));
        let out = common::run_package(&pkg, &dir, &more, &["--cpu-threads", threads]);
        ok(&out);
        assert_eq!(std::fs::read(more.join("output_0.pb")).unwrap(), bytes);
    }
    let out = nart()
        .args(["bench", "--package"])
        .arg(&pkg)
        .args(["--runs", "3", "--json", "--cpu-threads", "2"])
        .output()
        .unwrap();
    ok(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("run_ms_median"));
}

#[test]
fn a_cross_compiled_package_is_refused_here_with_both_machines_named() {
    if !cpu_here("a_cross_compiled_package_is_refused_here_with_both_machines_named") {
        return;
    }
    let have_cross = Command::new("aarch64-linux-gnu-gcc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_cross {
        assert!(
            std::env::var_os("NART_REQUIRE_AARCH64").is_none(),
            "NART_REQUIRE_AARCH64 is set but aarch64-linux-gnu-gcc is missing"
        );
        return;
    }
    let nart = || Command::new(env!("CARGO_BIN_EXE_nart"));
    let dir = committed("static_cnn");
    let pkg = tmp("cpu-tests", "arm-static_cnn.nartpkg");
    let out = nart()
        .arg("compile")
        .arg(dir.join("model.onnx"))
        .args(["--targets", "cpu", "--cross", "aarch64", "-o"])
        .arg(&pkg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = common::run_package(&pkg, &dir, &tmp("cpu-tests", "arm-out"), &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("aarch64-unknown-linux-gnu") && err.contains(std::env::consts::ARCH),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn ops_the_cpu_target_cannot_lower_fall_back_and_the_whole_matches_onnx_runtime() {
    if !cpu_here("ops_the_cpu_target_cannot_lower_fall_back_and_the_whole_matches_onnx_runtime") {
        return;
    }
    // LpPool is not lowered: the partitioner learns it from the target and places it on
    // interp, with the reason, instead of failing at compile time
    // (scripts/models/make_cpu_ops.py).
    let dir = committed("fallback_mix");
    let pkg = tmp("cpu-tests", "fallback_mix-cpu.nartpkg");
    let nart = || Command::new(env!("CARGO_BIN_EXE_nart"));
    let out = nart()
        .arg("compile")
        .arg(dir.join("model.onnx"))
        .args(["--targets", "cpu", "--dim", "N=2", "-o"])
        .arg(&pkg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = String::from_utf8_lossy(&out.stdout).to_string();
    let (on_cpu, all) = common::placed_on(&report, "cpu");
    assert!(on_cpu > 0 && on_cpu < all, "{report}");
    assert!(
        report.contains("m3 (graph.LpPool): op not supported"),
        "{report}"
    );
    let outputs = tmp("cpu-tests", "fallback_mix-cpu-out");
    let out = common::run_package(&pkg, &dir, &outputs, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = read_pb(&outputs.join("output_0.pb"));
    let (d, m) = max_diff(&[got], &ort_outputs(&dir, 1));
    assert!(d <= 1e-4 * m.max(1.0), "differs from ONNX Runtime by {d}");
}

#[test]
fn cross_and_emit_without_the_cpu_target_are_errors() {
    let nart = || Command::new(env!("CARGO_BIN_EXE_nart"));
    let model = committed("static_cnn").join("model.onnx");
    for flags in [["--cross", "aarch64"], ["--emit", "asm"]] {
        let out = nart()
            .arg("compile")
            .arg(&model)
            .args(["--targets", "interp"])
            .args(flags)
            .arg("-o")
            .arg(tmp("cpu-tests", "no-cpu.nartpkg"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("{} applies to the cpu target", flags[0])),
            "{err}"
        );
    }
}
