//! Packages end to end: `nart compile` on the zoo with `interp` and the test chips, run
//! through `nart-rt` and compared with `nart run` on the ONNX file; determinism; `nart
//! inspect`; and the binary on broken packages and wrong inputs (exit 1, a message, no panic),
//! including a seeded mutation suite.

use std::path::{Path, PathBuf};
use std::process::Command;

use nart_cli::package::{compile, inspect, load_package, read_package_inputs, CompileRequest};
use nart_target::testing::registry_with_test_targets;
use nart_tensor::Tensor;

const ZOO: [&str; 3] = ["digits_cnn", "digits_mlp", "tiny_transformer"];

fn model_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/models")
        .join(name)
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("package-tests");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Compiles zoo model `name` for `targets` (with the test chips registered) into a package.
fn compile_zoo(name: &str, targets: &[&str], place: &[&str]) -> (PathBuf, String) {
    let out = tmp(&format!("{name}-{}.nartpkg", targets.join("+")));
    let req = CompileRequest {
        model: model_dir(name).join("model.onnx"),
        targets: targets.iter().map(|s| s.to_string()).collect(),
        place: place.iter().map(|s| s.to_string()).collect(),
        output: out.clone(),
        ..CompileRequest::default()
    };
    let mut report = Vec::new();
    compile(&req, &registry_with_test_targets(), &mut report)
        .unwrap_or_else(|e| panic!("{name} on {targets:?}: {e:#}"));
    (out, String::from_utf8(report).unwrap())
}

/// The package's outputs on the model's test_data_set_0.
fn run_pkg(pkg: &Path, name: &str) -> Vec<Tensor> {
    let s = load_package(pkg, &nart_rt_std::runtimes_with_test_targets()).unwrap();
    let xs = read_package_inputs(&s, &model_dir(name).join("test_data_set_0")).unwrap();
    s.run(xs).unwrap()
}

/// `nart run`'s outputs (the interpreter on the ONNX file) on test_data_set_0.
fn run_onnx(name: &str) -> Vec<Tensor> {
    let m = nart_cli::commands::load(&model_dir(name).join("model.onnx"), None).unwrap();
    let vals = nart_cli::commands::read_inputs_within(&m, &model_dir(name).join("test_data_set_0"))
        .unwrap();
    m.interp
        .run_values(vals)
        .unwrap()
        .into_iter()
        .map(|v| match v {
            nart_interp::Val::Tensor(t) => t,
            v => panic!("{v:?}"),
        })
        .collect()
}

#[test]
fn float_packages_equal_nart_run_exactly() {
    for name in ZOO {
        let want = run_onnx(name);
        for targets in [&["interp"][..], &["test-f32"]] {
            let (pkg, _) = compile_zoo(name, targets, &[]);
            assert_eq!(run_pkg(&pkg, name), want, "{name} on {targets:?}");
        }
    }
}

#[test]
fn packages_are_deterministic() {
    let (a, _) = compile_zoo(
        "digits_cnn",
        &["test-f32", "test-int8"],
        &["relu2=test-int8"],
    );
    let first = std::fs::read(&a).unwrap();
    let (b, _) = compile_zoo(
        "digits_cnn",
        &["test-f32", "test-int8"],
        &["relu2=test-int8"],
    );
    assert_eq!(first, std::fs::read(&b).unwrap());
}

/// The oracle of a mixed package: the model partitioned exactly as `nart compile` does (with
/// the boundary casts), every segment inlined back into the function, run by the interpreter.
fn run_inlined(name: &str, targets: &[&str], place: &[&str]) -> Vec<Tensor> {
    use nart_ir::{Context, IrMapping};
    let registry = registry_with_test_targets();
    let targets: Vec<String> = targets.iter().map(|s| s.to_string()).collect();
    let overrides: Vec<_> = place
        .iter()
        .map(|p| nart_target::Override::parse(p).unwrap())
        .collect();
    let setup = nart_target::Setup::resolve(&registry, &targets, &overrides).unwrap();
    let mut ctx = Context::new();
    let module = nart_onnx::import_file(&mut ctx, &model_dir(name).join("model.onnx")).unwrap();
    let top = ctx.region_blocks(ctx.region(module, 0))[0];
    let func = ctx.block_ops(top)[0];
    let parts = nart_target::partition_function(&mut ctx, func, &setup).unwrap();
    assert!(parts.casts > 0, "{name}: the partition has int8 boundaries");
    for seg in parts.segment_ops {
        let body = ctx.region_blocks(ctx.region(seg, 0))[0];
        let mut map = IrMapping::default();
        for (&a, &o) in ctx.block_args(body).iter().zip(ctx.operands(seg)) {
            map.values.insert(a, o);
        }
        let ops = ctx.block_ops(body).to_vec();
        let (&yield_op, ops) = ops.split_last().unwrap();
        for &op in ops {
            let new = ctx.clone_op(op, &mut map);
            ctx.insert_op_before(seg, new);
        }
        let yielded: Vec<_> = ctx.operands(yield_op).to_vec();
        for (r, y) in ctx.results(seg).to_vec().into_iter().zip(yielded) {
            let y = map.lookup_value(y);
            ctx.replace_all_uses(r, y);
        }
        ctx.erase_op(seg);
    }
    nart_interp::register(&mut ctx);
    let interp = nart_interp::Interpreter::new(&ctx, func).unwrap();
    let m = nart_cli::commands::load(&model_dir(name).join("model.onnx"), None).unwrap();
    let vals = nart_cli::commands::read_inputs_within(&m, &model_dir(name).join("test_data_set_0"))
        .unwrap();
    interp
        .run_values(vals)
        .unwrap()
        .into_iter()
        .map(|v| match v {
            nart_interp::Val::Tensor(t) => t,
            v => panic!("{v:?}"),
        })
        .collect()
}

/// The largest absolute difference between two lists of f32 tensors of equal shapes.
fn max_diff(a: &[Tensor], b: &[Tensor]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            assert_eq!(x.shape(), y.shape());
            let (x, y) = (x.to_f32_vec().unwrap(), y.to_f32_vec().unwrap());
            x.iter()
                .zip(&y)
                .map(|(p, q)| (p - q).abs())
                .fold(0.0, f32::max)
        })
        .fold(0.0, f32::max)
}

/// Packages with int8 boundaries (the test-int8 chip alone, and mixed with test-f32) equal the
/// interpreter on the same partitioned graph exactly: the runtime's casts are the
/// interpreter's kernels. Against the float model they differ by the quantization error (the
/// chip's fixed scale 1/32 saturates at 127/32), which is printed.
#[test]
fn int8_packages_equal_the_interpreter_on_the_partitioned_graph() {
    for name in ZOO {
        let float = run_onnx(name);
        let moved = if name == "tiny_transformer" {
            "graph.Add=test-int8"
        } else {
            "graph.Relu=test-int8"
        };
        for (targets, place) in [
            (&["test-int8"][..], &[][..]),
            (&["test-f32", "test-int8"], &[moved][..]),
        ] {
            let (pkg, report) = compile_zoo(name, targets, place);
            if !report.contains("test-int8:") || report.contains("(0 casts") {
                continue;
            }
            let got = run_pkg(&pkg, name);
            let want = run_inlined(name, targets, place);
            assert_eq!(got, want, "{name} on {targets:?}\n{report}");
            eprintln!(
                "{name} on {targets:?}: max |package - float model| = {}",
                max_diff(&got, &float)
            );
        }
    }
}

#[test]
fn the_mixed_package_has_casts_and_two_targets() {
    let (pkg, _) = compile_zoo(
        "digits_cnn",
        &["test-f32", "test-int8"],
        &["relu2=test-int8"],
    );
    let p = nart_rt::Package::open(&pkg).unwrap();
    let m = p.manifest();
    let targets: Vec<&str> = m.targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(targets, ["test-f32", "test-int8", "interp"]);
    let kinds: Vec<&str> = m
        .steps
        .iter()
        .map(|s| match s {
            nart_rt::manifest::Step::Segment(_) => "segment",
            nart_rt::manifest::Step::Quantize(_) => "quantize",
            nart_rt::manifest::Step::Dequantize(_) => "dequantize",
        })
        .collect();
    assert!(
        kinds.contains(&"quantize") && kinds.contains(&"dequantize"),
        "{kinds:?}"
    );
}

#[test]
fn inspect_digits_cnn() {
    let (pkg, _) = compile_zoo(
        "digits_cnn",
        &["test-f32", "test-int8"],
        &["relu2=test-int8"],
    );
    let mut out = Vec::new();
    inspect(&pkg, false, &mut out).unwrap();
    insta::assert_snapshot!(String::from_utf8(out).unwrap());
}

#[test]
fn inspect_json_is_the_manifest() {
    let (pkg, _) = compile_zoo("digits_cnn", &["interp"], &[]);
    let mut out = Vec::new();
    inspect(&pkg, true, &mut out).unwrap();
    let m: nart_rt::Manifest = serde_json::from_slice(&out).unwrap();
    assert_eq!(&m, nart_rt::Package::open(&pkg).unwrap().manifest());
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["inputs"][0]["shape"], serde_json::json!(["N", 1, 8, 8]));
    assert_eq!(v["steps"][0]["kind"], "segment");
    assert_eq!(v["steps"][0]["reads"], serde_json::json!(["input"]));
    assert_eq!(v["steps"][0]["writes"], serde_json::json!(["logits"]));
}

// ----- the binary -----

fn nart() -> Command {
    Command::new(env!("CARGO_BIN_EXE_nart"))
}

/// Runs `nart args...`; returns (exit code, stderr), asserting it did not panic.
fn run_bin(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let out = nart().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !err.contains("panicked") && out.status.code().is_some(),
        "{args:?}: {err}"
    );
    (out.status.code().unwrap(), err)
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

/// An interp package of digits_cnn, compiled by the binary.
fn binary_package() -> PathBuf {
    let out = tmp("bin-digits_cnn.nartpkg");
    let model = model_dir("digits_cnn").join("model.onnx");
    let (code, err) = run_bin(&[
        os("compile"),
        model.as_os_str(),
        os("--targets"),
        os("interp"),
        os("-o"),
        out.as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");
    out
}

#[test]
fn binary_compiles_runs_and_benches_a_package() {
    let pkg = binary_package();
    let outs = tmp("bin-outs");
    let data = model_dir("digits_cnn").join("test_data_set_0");
    let (code, err) = run_bin(&[
        os("run"),
        os("--package"),
        pkg.as_os_str(),
        os("--inputs"),
        data.as_os_str(),
        os("--outputs"),
        outs.as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");
    // The same bytes as the interpreter's output file would hold.
    let got = std::fs::read(outs.join("output_0.pb")).unwrap();
    let want = nart_cli::tensor_io::tensor_to_proto(&run_onnx("digits_cnn")[0], "logits");
    assert_eq!(got, prost::Message::encode_to_vec(&want));
    let out = nart()
        .args([os("bench"), os("--package"), pkg.as_os_str()])
        .args(["--dim", "N=2", "--runs", "3", "--threads", "2", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(v["runs"], 6);
    assert!(v["run_ms_p90"].as_f64().unwrap() >= v["run_ms_median"].as_f64().unwrap());
    assert!(v["run_ms_median"].as_f64().unwrap() >= v["run_ms_min"].as_f64().unwrap());
    let (code, err) = run_bin(&[os("bench"), os("--package"), pkg.as_os_str()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("symbolic dimension 'N'") && err.contains("--dim N=SIZE"),
        "{err}"
    );
}

/// `nart bench --package` measures the peak bytes the load and one run hold (the `nart`
/// binary's counting allocator): at least the inputs and results, and more at a larger batch.
#[test]
fn binary_bench_measures_the_peak_memory() {
    let pkg = tmp("bin-peak-digits_cnn.nartpkg");
    let model = model_dir("digits_cnn").join("model.onnx");
    let (code, err) = run_bin(&[
        os("compile"),
        model.as_os_str(),
        os("--targets"),
        os("interp"),
        os("-o"),
        pkg.as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");
    let peak = |n: usize| -> (u64, u64) {
        let out = nart()
            .args([os("bench"), os("--package"), pkg.as_os_str()])
            .args(["--dim", &format!("N={n}"), "--runs", "1", "--json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value =
            serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
        let session = nart_rt::Session::load(
            &nart_rt::Package::open(&pkg).unwrap(),
            &nart_rt_std::runtimes(),
        )
        .unwrap();
        // The f32 inputs and results of the manifest at N = n.
        let io: u64 = session
            .manifest()
            .inputs
            .iter()
            .chain(&session.manifest().outputs)
            .map(|t| {
                t.shape
                    .as_ref()
                    .unwrap()
                    .iter()
                    .map(|d| match d {
                        nart_rt::manifest::Dim::Static(k) => *k,
                        nart_rt::manifest::Dim::Symbol(_) => n as u64,
                    })
                    .product::<u64>()
                    * 4
            })
            .sum();
        (v["peak_bytes"].as_u64().expect("a measured peak"), io)
    };
    let (one, io_one) = peak(1);
    let (many, io_many) = peak(32);
    assert!(
        one >= io_one,
        "peak {one} below the inputs and results {io_one}"
    );
    assert!(
        many >= io_many,
        "peak {many} below the inputs and results {io_many}"
    );
    assert!(
        many > one + (io_many - io_one) / 2,
        "the peak grows with the batch: {one} at N=1, {many} at N=32"
    );
    let (code, text) = {
        let out = nart()
            .args([os("bench"), os("--package"), pkg.as_os_str()])
            .args(["--dim", "N=1", "--runs", "1"])
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    assert_eq!(code, Some(0));
    assert!(
        text.contains("peak memory:") && text.contains("bytes"),
        "{text}"
    );
}

#[test]
fn binary_rejects_broken_packages_and_wrong_inputs() {
    let pkg = binary_package();
    let good = std::fs::read(&pkg).unwrap();
    let outs = tmp("bin-bad-outs");
    let run_with = |bytes: &[u8], data: &Path| {
        let p = tmp("bin-bad.nartpkg");
        std::fs::write(&p, bytes).unwrap();
        run_bin(&[
            os("run"),
            os("--package"),
            p.as_os_str(),
            os("--inputs"),
            data.as_os_str(),
            os("--outputs"),
            outs.as_os_str(),
        ])
    };
    let data = model_dir("digits_cnn").join("test_data_set_0");
    let mut newer = good.clone();
    newer[8..12].copy_from_slice(&7u32.to_le_bytes());
    let (code, err) = run_with(&newer, &data);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("error: package format version 7 is not supported")
            && err.contains("reads format version 1"),
        "{err}"
    );
    let (code, err) = run_with(&good[..good.len() / 2], &data);
    assert_eq!(
        (code, err.starts_with("error: truncated package")),
        (1, true),
        "{err}"
    );
    let mut flipped = good.clone();
    let at = good.len() - 100;
    flipped[at] ^= 4;
    let (code, err) = run_with(&flipped, &data);
    assert_eq!(code, 1);
    assert!(err.contains("checksum of blob #0"), "{err}");
    let (code, err) = run_with(b"hello", &data);
    assert_eq!(code, 1);
    assert!(err.contains("not a nart package"), "{err}");
    // Wrong inputs: another model's (shape), an integer tensor (dtype), two inputs (count).
    let (code, err) = run_with(&good, &model_dir("digits_mlp").join("test_data_set_0"));
    assert_eq!(code, 1);
    assert!(
        err.contains("input #0 'input': expected rank 4 [N, 1, 8, 8], given rank 2"),
        "{err}"
    );
    let dir = tmp("bin-bad-inputs");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let x = Tensor::from_vec(vec![1, 1, 8, 8], vec![0i64; 64]).unwrap();
    let bytes = prost::Message::encode_to_vec(&nart_cli::tensor_io::tensor_to_proto(&x, "input"));
    std::fs::write(dir.join("input_0.pb"), &bytes).unwrap();
    let (code, err) = run_with(&good, &dir);
    assert_eq!(code, 1);
    assert!(
        err.contains("input #0 'input': expected dtype f32, given i64"),
        "{err}"
    );
    std::fs::write(dir.join("input_1.pb"), &bytes).unwrap();
    let (code, err) = run_with(&good, &dir);
    assert_eq!(code, 1);
    assert!(
        err.contains("holds more inputs than the model's 1"),
        "{err}"
    );
    // The binary ships the runtimes of nart's targets only: a test chip's package names what
    // is missing.
    let (chip, _) = compile_zoo("digits_cnn", &["test-f32"], &[]);
    let (code, err) = run_with(&std::fs::read(chip).unwrap(), &data);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "error: cannot load step #0 (segment on 'test-f32'): no runtime for target 'test-f32' (known: interp, onednn, openvino, cpu)\n"
    );
    let (code, err) = run_bin(&[os("inspect"), os("/nonexistent/x.nartpkg")]);
    assert_eq!(code, 1);
    assert!(
        err.contains("cannot read '/nonexistent/x.nartpkg'"),
        "{err}"
    );
}

/// Seeded mutations of a package (flips, random bytes, truncations, insertions) through
/// `nart inspect` and `nart run --package`: exit 0 or 1, never a panic or a signal.
#[test]
fn mutated_packages_give_errors_not_panics() {
    let pkg = binary_package();
    let good = std::fs::read(&pkg).unwrap();
    let data = model_dir("digits_cnn").join("test_data_set_0");
    let outs = tmp("bin-mut-outs");
    let mut seed = 0x0123_4567_89AB_CDEFu64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut ok, mut failed) = (0, 0);
    for case in 0..40 {
        let mut b = good.clone();
        let at = (next() % b.len() as u64) as usize;
        // Half the cases hit the header and manifest, where the structure is.
        let at = if case % 2 == 0 {
            at % 1024.min(b.len())
        } else {
            at
        };
        match next() % 4 {
            0 => b[at] ^= 1 << (next() % 8),
            1 => b[at] = next() as u8,
            2 => b.truncate(at),
            _ => b.insert(at, next() as u8),
        }
        let p = tmp("bin-mut.nartpkg");
        std::fs::write(&p, &b).unwrap();
        for args in [
            vec![os("inspect"), p.as_os_str()],
            vec![
                os("run"),
                os("--package"),
                p.as_os_str(),
                os("--inputs"),
                data.as_os_str(),
                os("--outputs"),
                outs.as_os_str(),
            ],
        ] {
            let (code, err) = run_bin(&args);
            match code {
                0 => ok += 1,
                1 => {
                    assert!(err.starts_with("error: "), "{err}");
                    failed += 1
                }
                c => panic!("exit code {c}: {err}"),
            }
        }
    }
    assert!(
        failed > 60,
        "most mutations are caught ({ok} ran, {failed} failed)"
    );
}

/// `--quant`: the package of the quantized model computes exactly what the interpreter
/// computes on the IR `nart quantize` makes with the same scheme and data.
#[test]
fn quantized_packages_equal_the_quantized_ir() {
    let dir = model_dir("digits_cnn");
    let out = tmp("digits_cnn-q.nartpkg");
    let req = CompileRequest {
        model: dir.join("model.onnx"),
        targets: vec!["interp".into()],
        quant: Some("onnx-qdq".into()),
        calib: Some(dir.join("calib_inputs.pb")),
        output: out.clone(),
        ..CompileRequest::default()
    };
    let pkg = compile(&req, &registry_with_test_targets(), &mut Vec::new()).unwrap();
    assert_eq!(
        pkg.manifest().notes["quantization"],
        "scheme onnx-qdq, static, minmax calibration, qnn form"
    );
    let got = run_pkg(&out, "digits_cnn");
    let mut s = nart_cli::quantize::Session::load(nart_cli::quantize::QuantizeRequest {
        model: dir.join("model.onnx"),
        calib: Some(dir.join("calib_inputs.pb")),
        scheme: "onnx-qdq".into(),
        bits: None,
        calibrator: "minmax".into(),
        mode: nart_quant::passes::Mode::Static,
        overrides: vec![],
        qparams: None,
        export_qparams: None,
        output: PathBuf::new(),
        progress: false,
        form: nart_cli::quantize::Form::Qnn,
        guard: Default::default(),
        calib_batch: None,
    })
    .unwrap();
    s.calibrate().unwrap();
    s.apply().unwrap();
    s.lower().unwrap();
    nart_interp::register(&mut s.ctx);
    let interp = nart_interp::Interpreter::new(&s.ctx, s.func).unwrap();
    let m = nart_cli::commands::load(&dir.join("model.onnx"), None).unwrap();
    let vals = nart_cli::commands::read_inputs_within(&m, &dir.join("test_data_set_0")).unwrap();
    let want: Vec<Tensor> = interp
        .run_values(vals)
        .unwrap()
        .into_iter()
        .map(|v| match v {
            nart_interp::Val::Tensor(t) => t,
            v => panic!("{v:?}"),
        })
        .collect();
    assert_eq!(got, want);
    // And it is a quantized model: close to the float one, but not equal.
    let d = max_diff(&got, &run_onnx("digits_cnn"));
    assert!(d > 0.0 && d < 1.0, "max |quantized - float| = {d}");
    let e = compile(
        &CompileRequest {
            calib: Some(dir.join("calib_inputs.pb")),
            quant: None,
            ..req
        },
        &registry_with_test_targets(),
        &mut Vec::new(),
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "--calib needs --quant SCHEME");
}
