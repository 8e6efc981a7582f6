//! `nart compile --dim/--shape`: the package of a model compiled for `N=1` records static
//! shapes (`nart inspect`), runs with `nart run --package` on an N=1 input and gives the
//! bytes the interpreter gives on the unspecialized model; a wrong name is a located error
//! with exit code 1.

use std::path::{Path, PathBuf};
use std::process::Command;

use nart_tensor::Tensor;

fn model_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/models")
        .join(name)
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("specialize-tests");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Runs `nart args...`; returns (exit code, stdout, stderr), asserting it did not panic.
fn nart(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nart"))
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !err.contains("panicked") && out.status.code().is_some(),
        "{args:?}: {err}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code().unwrap(), stdout, err)
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

/// The first sample of the model's `test_data_set_0` (a batch of 16), as a folder holding an
/// N=1 `input_0.pb`; and the interpreter's outputs for it on the unspecialized model.
fn first_sample(name: &str) -> (PathBuf, Vec<Tensor>) {
    let model = model_dir(name).join("model.onnx");
    let m = nart_cli::commands::load(&model, None).unwrap();
    let batch =
        nart_cli::commands::read_inputs_within(&m, &model_dir(name).join("test_data_set_0"))
            .unwrap();
    let nart_interp::Val::Tensor(t) = &batch[0] else {
        panic!("a tensor input")
    };
    let mut shape = t.shape().to_vec();
    let per: usize = shape[1..].iter().product();
    shape[0] = 1;
    let values = t.to_f32_vec().unwrap()[..per].to_vec();
    let one = Tensor::from_vec(shape, values).unwrap();
    let dir = tmp(&format!("{name}-n1"));
    std::fs::create_dir_all(&dir).unwrap();
    let proto = nart_cli::tensor_io::tensor_to_proto(&one, "input");
    std::fs::write(
        dir.join("input_0.pb"),
        prost::Message::encode_to_vec(&proto),
    )
    .unwrap();
    let want = m
        .interp
        .run_values(vec![nart_interp::Val::Tensor(one)])
        .unwrap()
        .into_iter()
        .map(|v| match v {
            nart_interp::Val::Tensor(t) => t,
            v => panic!("{v:?}"),
        })
        .collect();
    (dir, want)
}

fn check(name: &str, flag: &str, value: &str) {
    let model = model_dir(name).join("model.onnx");
    let pkg = tmp(&format!("{name}{flag}.nartpkg"));
    let (code, _, err) = nart(&[
        os("compile"),
        model.as_os_str(),
        os("--targets"),
        os("interp"),
        os(flag),
        os(value),
        os("-o"),
        pkg.as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");

    // The manifest records static shapes: no symbolic `N` left.
    let (code, text, err) = nart(&[os("inspect"), os("--json"), pkg.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for io in ["inputs", "outputs"] {
        for t in v[io].as_array().unwrap() {
            let shape = t["shape"].as_array().unwrap_or_else(|| panic!("{t}"));
            assert!(
                shape.iter().all(serde_json::Value::is_u64),
                "{name}: {io} has a symbolic dim: {t}"
            );
            assert_eq!(shape[0], 1, "{name}: {t}");
        }
    }
    let (code, text, err) = nart(&[os("inspect"), pkg.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("[1, ") && !text.contains("[N, "), "{text}");

    let (inputs, want) = first_sample(name);
    let outs = tmp(&format!("{name}{flag}-outs"));
    let (code, _, err) = nart(&[
        os("run"),
        os("--package"),
        pkg.as_os_str(),
        os("--inputs"),
        inputs.as_os_str(),
        os("--outputs"),
        outs.as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");
    let got = std::fs::read(outs.join("output_0.pb")).unwrap();
    let want = nart_cli::tensor_io::tensor_to_proto(&want[0], "logits");
    assert_eq!(got, prost::Message::encode_to_vec(&want), "{name}");
}

#[test]
fn digits_mlp_with_dim() {
    check("digits_mlp", "--dim", "N=1");
}

#[test]
fn digits_cnn_with_dim() {
    check("digits_cnn", "--dim", "N=1");
}

#[test]
fn digits_cnn_with_shape() {
    check("digits_cnn", "--shape", "input=1x1x8x8");
}

#[test]
fn wrong_names_are_located_errors() {
    let model = model_dir("digits_cnn").join("model.onnx");
    let pkg = tmp("never.nartpkg");
    for (flag, value, want) in [
        (
            "--dim",
            "batch=1",
            "no input has a dimension named 'batch' (the named dimensions are N)",
        ),
        (
            "--shape",
            "image=1x1x8x8",
            "no input is named 'image' or has that index",
        ),
        (
            "--shape",
            "input=1x1x8",
            "shape '1x1x8' has rank 3, but input 'input' (argument #0) has rank 4",
        ),
        (
            "--shape",
            "input=1x3x8x8",
            "gives dimension #1 of input 'input' (argument #0) the size 3, but it is 1",
        ),
        (
            "--dim",
            "N=one",
            "the size 'one' is not a non-negative integer",
        ),
    ] {
        let (code, _, err) = nart(&[
            os("compile"),
            model.as_os_str(),
            os("--targets"),
            os("interp"),
            os(flag),
            os(value),
            os("-o"),
            pkg.as_os_str(),
        ]);
        assert_eq!(code, 1, "{flag} {value}: {err}");
        assert!(err.contains(want), "{flag} {value}: {err}");
        // Located: the graph's location in the model file, then the message.
        assert!(
            err.contains("\"digits_cnn\" (")
                && err.contains("model.onnx:0:0): error: 'func.func' op"),
            "{err}"
        );
        assert!(!pkg.exists());
    }
}
