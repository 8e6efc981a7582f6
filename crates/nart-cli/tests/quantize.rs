//! `nart quantize` as a user runs it: the scheme listing, a static and a dynamic run, the
//! parameter file round trip, and every kind of bad calibration data (exit 1, a message naming
//! the sample and the input, and no output file).

use std::path::{Path, PathBuf};
use std::process::Command;

use nart_cli::tensor_io::tensor_to_proto;
use nart_tensor::Tensor;

fn models() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/models")
}

fn cnn() -> PathBuf {
    models().join("digits_cnn/model.onnx")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("nart-quantize-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `nart` and returns (exit code, stdout, stderr).
fn nart(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nart"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Writes `t` as `dir/input_0.pb`.
fn write_input(dir: &Path, t: &Tensor) {
    std::fs::create_dir_all(dir).unwrap();
    let bytes = nart_onnx_proto::encode_tensor(&tensor_to_proto(t, "input"));
    std::fs::write(dir.join("input_0.pb"), bytes).unwrap();
}

fn good_sample(v: f32) -> Tensor {
    Tensor::from_vec(vec![1, 1, 8, 8], vec![v; 64]).unwrap()
}

#[test]
fn list_schemes_names_every_scheme() {
    let (code, out, _) = nart(&["quantize", "--list-schemes"]);
    assert_eq!(code, 0);
    for name in [
        "onnx-qdq",
        "tensorrt",
        "snpe",
        "sigmastar",
        "pow2",
        "arm-lowbit",
        "w4-group",
        "w8a16",
        "w4a8",
        "fp16",
        "bf16",
    ] {
        assert!(
            out.contains(&format!("\n{name} ")),
            "{name} missing:\n{out}"
        );
    }
    assert!(out.contains("u8 affine per-tensor"), "{out}");
    assert!(out.contains("u4 affine per-group(32)"), "{out}");
    assert!(out.contains("s8 sym per-tensor pow2"), "{out}");
}

#[test]
fn static_run_writes_qdq_ir_and_parameters_that_read_back_the_same() {
    let d = scratch("static");
    let (out, params) = (d.join("q.mlir"), d.join("p.json"));
    let calib = models().join("digits_cnn/calib_inputs.pb");
    let (code, _, err) = nart(&[
        "quantize",
        s(&cnn()),
        "--calib",
        s(&calib),
        "--calibrator",
        "entropy",
        "-o",
        s(&out),
        "--export-qparams",
        s(&params),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("calibrated 9 values over 4 samples (entropy)"),
        "{err}"
    );
    assert!(err.contains("2 activations fused"), "{err}");
    let ir = std::fs::read_to_string(&out).unwrap();
    assert!(ir.contains("quant.qcast %arg0 : tensor<?x1x8x8xf32> to tensor<?x1x8x8x!quant.uniform<u8:f32, 3.92156862745098e-03>>"), "{ir}");
    assert!(
        ir.contains("tensor<8xi32> to tensor<8x!quant.uniform<i32:f32:0, {"),
        "{ir}"
    );
    let json = std::fs::read_to_string(&params).unwrap();
    for name in [
        "\"input\"",
        "\"conv1.weight\"",
        "\"conv1.bias\"",
        "\"relu1\"",
        "\"logits\"",
    ] {
        assert!(json.contains(name), "{name}: {json}");
    }
    // The exported parameters given back (without calibration) give the same IR, but for the
    // calibration attributes.
    let out2 = d.join("q2.mlir");
    let (code, _, err) = nart(&[
        "quantize",
        s(&cnn()),
        "--qparams",
        s(&params),
        "-o",
        s(&out2),
    ]);
    assert_eq!(code, 0, "{err}");
    let strip = |t: &str| {
        t.lines()
            .map(|l| match l.find(" {quant.calibrated") {
                Some(i) => {
                    let end = l[i..].find("}").map_or(l.len(), |e| i + e + 1);
                    format!("{}{}", &l[..i], &l[end..])
                }
                None => l.replace(
                    ", quant.calibrated = !quant.calibrated<f32<0.000000e+00:1.000000e+00>>",
                    "",
                ),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (a, b) = (strip(&ir), strip(&std::fs::read_to_string(&out2).unwrap()));
    if let Some((x, y)) = a.lines().zip(b.lines()).find(|(x, y)| x != y) {
        panic!("the IR differs:\n{x}\n{y}");
    }
    assert_eq!(a.lines().count(), b.lines().count());
}

#[test]
fn dynamic_run_needs_no_data() {
    let d = scratch("dynamic");
    let out = d.join("t.mlir");
    let model = models().join("tiny_transformer/model.onnx");
    let (code, _, err) = nart(&["quantize", s(&model), "--mode", "dynamic", "-o", s(&out)]);
    assert_eq!(code, 0, "{err}");
    let ir = std::fs::read_to_string(&out).unwrap();
    assert_eq!(ir.matches("graph.MatMulInteger").count(), 12, "{err}");
    assert!(ir.contains("graph.DynamicQuantizeLinear"));
}

/// Runs a static quantization of digits_cnn on `calib` and checks that it fails with a message
/// holding every one of `want`, and writes neither output.
fn rejects(name: &str, calib: &Path, want: &[&str]) {
    let d = scratch(&format!("bad-{name}"));
    let (out, params) = (d.join("q.mlir"), d.join("p.json"));
    let (code, _, err) = nart(&[
        "quantize",
        s(&cnn()),
        "--calib",
        s(calib),
        "-o",
        s(&out),
        "--export-qparams",
        s(&params),
    ]);
    assert_eq!(code, 1, "{name}: {err}");
    for w in want {
        assert!(err.contains(w), "{name}: want '{w}' in:\n{err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        !out.exists() && !params.exists(),
        "{name}: an output was written"
    );
    let left: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
    assert!(left.is_empty(), "{name}: temporary files left: {left:?}");
}

#[test]
fn bad_calibration_data_is_an_error_naming_sample_and_input_and_writes_nothing() {
    let d = scratch("data");
    // An empty folder.
    let empty = d.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    rejects("empty", &empty, &["is empty", "no sample folders"]);
    // A wrong element type in the second sample.
    let dt = d.join("dtype");
    write_input(&dt.join("s0"), &good_sample(0.5));
    write_input(
        &dt.join("s1"),
        &Tensor::from_vec(vec![1, 1, 8, 8], vec![1i64; 64]).unwrap(),
    );
    rejects(
        "dtype",
        &dt,
        &[
            "sample 's1'",
            "input #0 'input'",
            "element type is i64",
            "takes f32",
        ],
    );
    // A wrong shape.
    let sh = d.join("shape");
    write_input(
        &sh.join("a"),
        &Tensor::from_vec(vec![1, 1, 8, 7], vec![0.5f32; 56]).unwrap(),
    );
    rejects(
        "shape",
        &sh,
        &[
            "sample 'a'",
            "input #0 'input'",
            "shape is [1, 1, 8, 7]",
            "[?, 1, 8, 8]",
        ],
    );
    // NaN and infinity.
    let nan = d.join("nan");
    let mut v = vec![0.5f32; 64];
    v[17] = f32::NAN;
    write_input(
        &nan.join("x"),
        &Tensor::from_vec(vec![1, 1, 8, 8], v).unwrap(),
    );
    rejects(
        "nan",
        &nan,
        &["sample 'x'", "input #0 'input'", "element 17 is NaN"],
    );
    let inf = d.join("inf");
    let mut v = vec![0.5f32; 64];
    v[3] = f32::NEG_INFINITY;
    write_input(
        &inf.join("y"),
        &Tensor::from_vec(vec![1, 1, 8, 8], v).unwrap(),
    );
    rejects(
        "inf",
        &inf,
        &["sample 'y'", "input #0 'input'", "element 3 is infinite"],
    );
    // A sample folder without the input file, and a file that is not a tensor.
    let missing = d.join("missing");
    write_input(&missing.join("ok"), &good_sample(0.1));
    std::fs::create_dir_all(missing.join("nofile")).unwrap();
    rejects(
        "missing",
        &missing,
        &["sample 'nofile'", "input #0 'input'", "neither input_0.pb"],
    );
    let garbage = d.join("garbage");
    std::fs::create_dir_all(garbage.join("g")).unwrap();
    std::fs::write(garbage.join("g/input_0.pb"), b"\xff\xff\xff not a tensor").unwrap();
    rejects(
        "garbage",
        &garbage,
        &["sample 'g'", "input #0 'input'", "cannot read"],
    );
    // A batch file with a NaN names the file and the row's sample.
    let mut v = vec![0.25f32; 40 * 64];
    v[33 * 64 + 5] = f32::NAN;
    let batch = d.join("batch.pb");
    std::fs::write(
        &batch,
        nart_onnx_proto::encode_tensor(&tensor_to_proto(
            &Tensor::from_vec(vec![40, 1, 8, 8], v).unwrap(),
            "input",
        )),
    )
    .unwrap();
    rejects("batch", &batch, &["batch.pb", "input #0 'input'", "NaN"]);
    // A path that does not exist.
    rejects(
        "nowhere",
        &d.join("nowhere"),
        &["neither a file nor a folder"],
    );
}

#[test]
fn bad_requests_are_errors_before_anything_runs() {
    let d = scratch("requests");
    let out = d.join("q.mlir");
    let calib = models().join("digits_cnn/calib_inputs.pb");
    for (args, want) in [
        (vec!["--scheme", "nope"], "unknown scheme 'nope'"),
        (vec!["--calibrator", "kl"], "unknown calibrator 'kl'"),
        (vec!["--bits", "4"], "fixed width of 8 bits"),
        (vec!["--override", "conv1"], "bad override 'conv1'"),
        (
            vec!["--qparams", "/nonexistent/p.json"],
            "cannot read '/nonexistent/p.json'",
        ),
    ] {
        let model = cnn();
        let mut a = vec!["quantize", s(&model), "--calib", s(&calib), "-o", s(&out)];
        a.extend(args.iter().copied());
        let (code, _, err) = nart(&a);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!out.exists());
    }
    let (code, _, err) = nart(&["quantize", s(&cnn()), "-o", s(&out)]);
    assert_eq!(code, 1);
    assert!(err.contains("needs calibration data"), "{err}");
}
