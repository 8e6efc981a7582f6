//! Shared by the target tests of the `nart` crate (`onednn.rs`, `openvino.rs`): where the zoo
//! models are, scratch paths, and the check that compiles a model for `TARGET,interp` into a
//! package, runs it through `nart-rt` and compares it with ONNX Runtime's outputs (the model's
//! `test_data_set_0`, which ONNX Runtime wrote); also the value infos of models that tests build
//! (`bench_memory.rs`, `quant_onnx.rs`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use nart_cli::package::{compile, load_package, read_package_inputs, CompileRequest};
use nart_onnx_proto::ValueInfoProto;
use nart_target::TargetRegistry;
use nart_tensor::Tensor;

/// A model folder committed under `tests/models`.
pub fn committed(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/models")
        .join(name)
}

/// A model folder of the zoo cache (`NART_MODEL_CACHE`, default `~/.cache/nart/models`).
pub fn zoo_cache(name: &str) -> PathBuf {
    let base = std::env::var_os("NART_MODEL_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/nart/models")
        });
    base.join(name)
}

/// A scratch path `name` in the folder `group` of cargo's test scratch space.
pub fn tmp(group: &str, name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(group);
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Compiles the model in `dir` for `target,interp` with `registry`; returns the package path
/// and the compile report.
pub fn compile_for(
    target: &str,
    dir: &Path,
    name: &str,
    registry: &TargetRegistry,
) -> (PathBuf, String) {
    let out = tmp(
        &format!("{target}-tests"),
        &format!("{name}-{target}.nartpkg"),
    );
    let req = CompileRequest {
        model: dir.join("model.onnx"),
        targets: vec![target.into(), "interp".into()],
        output: out.clone(),
        ..CompileRequest::default()
    };
    let mut report = Vec::new();
    compile(&req, registry, &mut report).unwrap_or_else(|e| panic!("{name}: {e:#}"));
    (out, String::from_utf8(report).unwrap())
}

/// `nart run --package PKG --inputs DIR/test_data_set_0 --outputs OUTPUTS EXTRA...` through
/// this crate's `nart` binary; what it printed and its exit status, for the caller to check.
pub fn run_package(pkg: &Path, dir: &Path, outputs: &Path, extra: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_nart"))
        .args(["run", "--package"])
        .arg(pkg)
        .arg("--inputs")
        .arg(dir.join("test_data_set_0"))
        .arg("--outputs")
        .arg(outputs)
        .args(extra)
        .output()
        .expect("the nart binary starts")
}

/// ONNX Runtime's outputs for test_data_set_0.
pub fn ort_outputs(dir: &Path, n: usize) -> Vec<Tensor> {
    (0..n)
        .map(|i| read_pb(&dir.join(format!("test_data_set_0/output_{i}.pb"))))
        .collect()
}

/// The largest |a - b| over all elements, and the largest |b|.
pub fn max_diff(a: &[Tensor], b: &[Tensor]) -> (f32, f32) {
    assert_eq!(a.len(), b.len());
    let (mut d, mut m) = (0f32, 0f32);
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.shape(), y.shape());
        for (p, q) in x.to_f32_vec().unwrap().iter().zip(y.to_f32_vec().unwrap()) {
            d = d.max((p - q).abs());
            m = m.max(q.abs());
        }
    }
    (d, m)
}

/// How many ops of the placement table went to `target`, of all.
pub fn placed_on(report: &str, target: &str) -> (usize, usize) {
    let table = report.split("\n\n").next().unwrap();
    let rows: Vec<&str> = table.lines().skip(1).collect();
    let on = rows
        .iter()
        .filter(|l| l.split_whitespace().nth(2) == Some(target))
        .count();
    (on, rows.len())
}

/// Compiles the model in `dir` for `target,interp` (with the binary's registry), checks that at
/// least `min_share` of its ops went to `target`, runs the package and compares it with ONNX
/// Runtime's outputs within `tol` times the largest output (at least 1).
pub fn check_model(target: &str, dir: &Path, name: &str, min_share: f64, tol: f32) {
    let (pkg, report) = compile_for(target, dir, name, &nart_cli::partition::registry());
    let (on, all) = placed_on(&report, target);
    assert!(
        on as f64 >= min_share * all as f64,
        "{name}: only {on} of {all} ops on {target}\n{report}"
    );
    let s = load_package(&pkg, &nart_rt_std::runtimes()).unwrap();
    let xs = read_package_inputs(&s, &dir.join("test_data_set_0")).unwrap();
    let got = s.run(xs).unwrap();
    let want = ort_outputs(dir, got.len());
    let (d, m) = max_diff(&got, &want);
    eprintln!(
        "{name}: {on} of {all} ops on {target}; max |{target} - onnxruntime| = {d:e} (max |y| {m:e})"
    );
    assert!(
        d <= tol * m.max(1.0),
        "{name}: differs from ONNX Runtime by {d} (max |y| {m})"
    );
}

/// Through the `nart` binary: compiles digits_cnn for `target,interp`, checks that `nart
/// inspect` names the SDK `version`, runs the package (`nart run --package`) against ONNX
/// Runtime's outputs, and benches it (`nart bench --package --json` at batch 2).
pub fn binary_round_trip(target: &str, version: &str) {
    let nart = || std::process::Command::new(env!("CARGO_BIN_EXE_nart"));
    let ok = |out: &std::process::Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let group = format!("{target}-tests");
    let dir = committed("digits_cnn");
    let pkg = tmp(&group, "bin-digits_cnn.nartpkg");
    let out = nart()
        .arg("compile")
        .arg(dir.join("model.onnx"))
        .args(["--targets", &format!("{target},interp"), "-o"])
        .arg(&pkg)
        .output()
        .unwrap();
    ok(&out);
    let out = nart().arg("inspect").arg(&pkg).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        text.contains(version),
        "inspect names the SDK version {version}:\n{text}"
    );
    let outputs = tmp(&group, "bin-digits_cnn-out");
    let out = nart()
        .args(["run", "--package"])
        .arg(&pkg)
        .arg("--inputs")
        .arg(dir.join("test_data_set_0"))
        .arg("--outputs")
        .arg(&outputs)
        .output()
        .unwrap();
    ok(&out);
    let got = read_pb(&outputs.join("output_0.pb"));
    let (d, m) = max_diff(&[got], &ort_outputs(&dir, 1));
    assert!(
        d <= 1e-4 * m.max(1.0),
        "nart run --package differs from ONNX Runtime by {d}"
    );
    let out = nart()
        .args(["bench", "--package"])
        .arg(&pkg)
        .args(["--runs", "5", "--json", "--dim", "N=2"])
        .output()
        .unwrap();
    ok(&out);
    let line = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(line.contains("median"), "{line}");
}

/// The tensor in the ONNX `TensorProto` file `path`.
pub fn read_pb(path: &Path) -> Tensor {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let p: nart_onnx_proto::onnx::TensorProto = prost::Message::decode(&bytes[..]).unwrap();
    nart_cli::tensor_io::tensor_from_proto(&p).unwrap()
}

/// The `ValueInfoProto` of an `f32` tensor `name` of static `dims`, for models built in tests.
pub fn float_info(name: &str, dims: &[i64]) -> ValueInfoProto {
    ValueInfoProto::tensor(name, nart_onnx_proto::DataType::Float, dims)
}

/// The batch the digits_cnn tests compile for (that of its `test_data_set_0`).
pub const DIGITS_BATCH: usize = 16;

/// The first `n` batches of [`DIGITS_BATCH`] rows of digits_cnn's committed held-out inputs.
pub fn digits_heldout(n: usize) -> Vec<Tensor> {
    let all = read_pb(&committed("digits_cnn").join("heldout_inputs.pb"));
    let shape = all.shape().to_vec();
    let per: usize = shape[1..].iter().product::<usize>() * DIGITS_BATCH;
    let v = all.to_f32_vec().unwrap();
    let mut one = shape.clone();
    one[0] = DIGITS_BATCH;
    (0..n.min(shape[0] / DIGITS_BATCH))
        .map(|i| Tensor::from_vec(one.clone(), v[i * per..(i + 1) * per].to_vec()).unwrap())
        .collect()
}

/// Checks that the package `cpu` (written to `cpu_path`) is generated code only, then runs it
/// and the package at `interp_path` on digits_cnn's `test_data_set_0` and 8 held-out batches,
/// and checks each output element with `same(got, want)`; `what` names the model in failures.
pub fn assert_cpu_matches_interp(
    what: &str,
    cpu_path: &Path,
    cpu: &nart_rt::Package,
    interp_path: &Path,
    same: impl Fn(f32, f32) -> bool,
) {
    let steps = &cpu.manifest().steps;
    assert!(!steps.is_empty());
    for (i, s) in steps.iter().enumerate() {
        assert!(
            matches!(s, nart_rt::manifest::Step::Segment(seg) if seg.target == "cpu"),
            "{} is not generated code",
            s.describe(i)
        );
    }
    let runtimes = nart_rt_std::runtimes();
    let on_cpu = load_package(cpu_path, &runtimes).unwrap();
    let on_interp = load_package(interp_path, &runtimes).unwrap();
    let mut inputs =
        vec![
            read_package_inputs(&on_cpu, &committed("digits_cnn").join("test_data_set_0")).unwrap(),
        ];
    inputs.extend(digits_heldout(8).into_iter().map(|t| vec![t]));
    for (k, xs) in inputs.into_iter().enumerate() {
        let got = on_cpu.run(xs.clone()).unwrap();
        let want = on_interp.run(xs).unwrap();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.shape(), w.shape(), "sample {k}");
            let (gv, wv) = (g.to_f32_vec().unwrap(), w.to_f32_vec().unwrap());
            let bad = gv.iter().zip(&wv).position(|(&a, &b)| !same(a, b));
            if let Some(i) = bad {
                panic!(
                    "{what} sample {k}: element {i}: cpu {}, interp {}",
                    gv[i], wv[i]
                );
            }
        }
    }
}
