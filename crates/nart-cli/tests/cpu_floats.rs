//! 16-bit float models on the code-level `cpu` target, as a user gets them: digits_cnn converted
//! by `nart quantize --scheme fp16` (or `bf16`) into an ONNX file whose convolutions, pooling
//! and Gemm run on 16-bit tensors (Cast pairs around them, weights stored in 16 bits),
//! compiled with `nart compile --targets cpu`, run entirely in generated code with `nart run
//! --package`, and compared with the interpreter running the same file (`nart run --model`).
//! Without a C compiler (to link the code) the test skips, unless `NART_REQUIRE_CC=1`.

use std::path::Path;
use std::process::Command;

mod common;

use common::{committed, max_diff, placed_on, read_pb, tmp};

fn nart(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nart"))
        .args(args)
        .output()
        .expect("the nart binary starts");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// The ONNX element type codes of the file's initializers.
fn initializer_types(path: &Path) -> Vec<i32> {
    let model = nart_onnx_proto::decode_model(&std::fs::read(path).unwrap()).unwrap();
    model
        .graph
        .unwrap()
        .initializer
        .iter()
        .map(|t| t.data_type())
        .collect()
}

#[test]
fn a_16_bit_float_cnn_runs_entirely_in_generated_code_and_matches_the_interpreter() {
    let t = nart_target_cpu::CpuTarget::host();
    if !nart_target::harness::available(
        "a_16_bit_float_cnn_runs_entirely_in_generated_code_and_matches_the_interpreter",
        "NART_REQUIRE_CC",
        nart_target::Target::availability(&t),
    ) {
        return;
    }
    let dir = committed("digits_cnn");
    let inputs = dir.join("test_data_set_0");
    // ONNX's element type codes: FLOAT16 and BFLOAT16.
    for (scheme, code) in [("fp16", 10), ("bf16", 16)] {
        let model = tmp("cpu-floats", &format!("digits_cnn-{scheme}.onnx"));
        let (rc, _, err) = nart(&[
            "quantize",
            s(&dir.join("model.onnx")),
            "-o",
            s(&model),
            "--calib",
            s(&dir.join("calib_inputs.pb")),
            "--scheme",
            scheme,
        ]);
        assert_eq!(rc, 0, "{scheme}: quantize: {err}");
        assert!(
            initializer_types(&model).contains(&code),
            "{scheme}: no weight stored as ONNX type {code}"
        );

        let pkg = tmp("cpu-floats", &format!("digits_cnn-{scheme}.nartpkg"));
        let (rc, report, err) = nart(&[
            "compile",
            s(&model),
            "--targets",
            "cpu",
            "--dim",
            "N=16",
            "-o",
            s(&pkg),
        ]);
        assert_eq!(rc, 0, "{scheme}: compile: {err}");
        let (on, all) = placed_on(&report, "cpu");
        assert!(
            on == all && all > 0,
            "{scheme}: {on} of {all} ops on cpu\n{report}"
        );

        let got_dir = tmp("cpu-floats", &format!("{scheme}-cpu.out"));
        let want_dir = tmp("cpu-floats", &format!("{scheme}-interp.out"));
        let (rc, _, err) = nart(&[
            "run",
            "--package",
            s(&pkg),
            "--inputs",
            s(&inputs),
            "--outputs",
            s(&got_dir),
        ]);
        assert_eq!(rc, 0, "{scheme}: run --package: {err}");
        let (rc, _, err) = nart(&[
            "run",
            "--model",
            s(&model),
            "--inputs",
            s(&inputs),
            "--outputs",
            s(&want_dir),
        ]);
        assert_eq!(rc, 0, "{scheme}: run --model: {err}");
        let got = read_pb(&got_dir.join("output_0.pb"));
        let want = read_pb(&want_dir.join("output_0.pb"));
        assert_eq!(got.dtype(), want.dtype(), "{scheme}");
        let (d, m) = max_diff(&[got], &[want]);
        eprintln!("digits_cnn {scheme}: max |cpu - interpreter| = {d:e} (max |y| {m:e})");
        // Each op rounds to the 16-bit type once on both sides, the code from f32 and the
        // interpreter from f64, so results may be a unit in the last place apart per op
        // (2^-11 of f16, 2^-8 of bf16, relative), through eight ops.
        let ulp = if code == 10 {
            2f32.powi(-11)
        } else {
            2f32.powi(-8)
        };
        assert!(
            d <= 8.0 * ulp * m.max(1.0),
            "{scheme}: the code differs from the interpreter by {d} (max |y| {m})"
        );
    }
}
