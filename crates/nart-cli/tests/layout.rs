//! A target that asks for a layout (`Target::preferred_layout`): `nart compile` converts each
//! of its segments with `graph-layout` before the target compiles it, so the segment's
//! artifact holds channels-last convolutions and pools with Transposes at its borders only,
//! and the whole package computes what the interpreter computes on the ONNX file. A target
//! that asks for nothing gets its segment as the graph has it.

use std::path::{Path, PathBuf};

use nart_cli::package::{compile, load_package, read_package_inputs, CompileRequest};
use nart_target::testing::{registry_with_test_targets, FakeTarget};
use nart_target::{Layout, Target, TargetRegistry};
use nart_tensor::Tensor;

/// The graph ops of the test chips: what the CNNs hold.
const OPS: &[&str] = &[
    "Conv",
    "Relu",
    "Add",
    "MaxPool",
    "BatchNormalization",
    "GlobalAveragePool",
    "Clip",
];

fn nhwc_chip() -> FakeTarget {
    FakeTarget::float("test-nhwc", OPS).with_layout(Layout::Nhwc)
}

fn nchw8c_chip() -> FakeTarget {
    FakeTarget::float("test-nchw8c", OPS).with_layout(Layout::Nchw8c)
}

fn registry() -> TargetRegistry {
    let mut r = registry_with_test_targets();
    r.register(Box::new(nhwc_chip()));
    r.register(Box::new(nchw8c_chip()));
    r.register(Box::new(FakeTarget::float("test-asis", OPS)));
    r
}

fn runtimes() -> nart_rt::RuntimeRegistry {
    let mut r = nart_rt_std::runtimes_with_test_targets();
    r.register(nhwc_chip().runtime());
    r.register(nchw8c_chip().runtime());
    r.register(FakeTarget::float("test-asis", OPS).runtime());
    r
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("layout-tests");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Compiles `model` for `targets` (then `interp`), runs the package on `inputs`, and returns
/// the outputs and every artifact's text.
fn compile_and_run(model: &Path, target: &str, inputs: &Path) -> (Vec<Tensor>, Vec<String>) {
    let out = tmp(&format!(
        "{}-{target}.nartpkg",
        model
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
    ));
    let req = CompileRequest {
        model: model.to_path_buf(),
        targets: vec![target.to_string(), "interp".to_string()],
        output: out.clone(),
        ..CompileRequest::default()
    };
    let mut report = Vec::new();
    let pkg = compile(&req, &registry(), &mut report)
        .unwrap_or_else(|e| panic!("{} on {target}: {e:#}", model.display()));
    let texts = (0..pkg.manifest().blobs.len())
        .map(|i| String::from_utf8_lossy(pkg.blob(i)).into_owned())
        .collect();
    let s = load_package(&out, &runtimes()).unwrap();
    let xs = read_package_inputs(&s, inputs).unwrap();
    (s.run(xs).unwrap(), texts)
}

/// `nart run`'s outputs (the interpreter on the ONNX file).
fn run_onnx(model: &Path, inputs: &Path) -> Vec<Tensor> {
    let m = nart_cli::commands::load(model, None).unwrap();
    let vals = nart_cli::commands::read_inputs_within(&m, inputs).unwrap();
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

fn assert_close(got: &[Tensor], want: &[Tensor], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.shape(), w.shape(), "{what}");
        let (g, w) = (g.to_f64_vec().unwrap(), w.to_f64_vec().unwrap());
        for (a, b) in g.iter().zip(&w) {
            assert!(
                (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
                "{what}: {a} != {b}"
            );
        }
    }
}

fn count(text: &str, pat: &str) -> usize {
    text.matches(pat).count()
}

/// Checks one model: the nhwc chip's package equals `nart run`, and its artifacts are
/// channels-last with `borders` Transposes in all; with `asis`, also that the chip that asks
/// for nothing gets no Transpose and no channels-last op.
fn check(model: &Path, inputs: &Path, borders: usize, asis: bool) {
    let want = run_onnx(model, inputs);

    let (got, texts) = compile_and_run(model, "test-nhwc", inputs);
    assert_close(&got, &want, "test-nhwc");
    let nhwc: String = texts.concat();
    assert!(
        count(&nhwc, "\"graph.fused_conv\"") > 0,
        "the nhwc chip's segment has channels-last convolutions:\n{nhwc}"
    );
    assert_eq!(
        count(&nhwc, "\"graph.Conv\""),
        0,
        "every convolution is converted:\n{nhwc}"
    );
    assert_eq!(
        count(&nhwc, "\"graph.Transpose\""),
        borders,
        "Transposes only at the segment borders:\n{nhwc}"
    );

    if !asis {
        return;
    }
    let (got, texts) = compile_and_run(model, "test-asis", inputs);
    assert_close(&got, &want, "test-asis");
    let asis: String = texts.concat();
    assert!(count(&asis, "\"graph.Conv\"") > 0, "{asis}");
    assert_eq!(count(&asis, "\"graph.Transpose\""), 0, "{asis}");
    assert_eq!(count(&asis, "layout = \"nhwc\""), 0, "{asis}");
}

#[test]
fn digits_cnn_on_a_chip_that_asks_for_nhwc() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/models/digits_cnn");
    // One segment, Conv-Relu-MaxPool twice: the input border is a Reshape (one channel), the
    // way out a Transpose.
    check(
        &dir.join("model.onnx"),
        &dir.join("test_data_set_0"),
        1,
        true,
    );
}

#[test]
fn resnet18_on_a_chip_that_asks_for_nhwc() {
    let Some(home) = std::env::var_os("HOME") else {
        return;
    };
    let dir = Path::new(&home).join(".cache/nart/models/resnet18");
    if !dir.join("model.onnx").exists() || !dir.join("test_data_set_0").exists() {
        eprintln!("skipped: {} is missing", dir.display());
        return;
    }
    // BatchNorms unfused: they become channels-last Mul/Add. The segment ends at the global
    // pool, whose [1, 1, 1, 512] result leaves through a Reshape: the way in is the only
    // Transpose.
    check(
        &dir.join("model.onnx"),
        &dir.join("test_data_set_0"),
        1,
        false,
    );
}

/// Checks one model on the chip that asks for `nchw8c`: its package equals `nart run`, every
/// convolution is blocked, and `borders` `graph.reorder`s are left in all.
fn check_blocked(model: &Path, inputs: &Path, borders: usize) {
    let want = run_onnx(model, inputs);
    let (got, texts) = compile_and_run(model, "test-nchw8c", inputs);
    assert_close(&got, &want, "test-nchw8c");
    let text: String = texts.concat();
    assert!(
        count(&text, "layout = \"nchw8c\"") > 0,
        "the chip's segment has blocked convolutions:\n{text}"
    );
    assert_eq!(count(&text, "\"graph.Conv\""), 0, "{text}");
    assert_eq!(count(&text, "\"graph.Transpose\""), 0, "{text}");
    assert_eq!(
        count(&text, "\"graph.reorder\""),
        borders,
        "reorders only at the segment borders:\n{text}"
    );
}

#[test]
fn digits_cnn_on_a_chip_that_asks_for_nchw8c() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/models/digits_cnn");
    // The way in (one channel, padded to a block of 8) and the way out before the Flatten.
    check_blocked(&dir.join("model.onnx"), &dir.join("test_data_set_0"), 2);
}

#[test]
fn resnet18_on_a_chip_that_asks_for_nchw8c() {
    let Some(home) = std::env::var_os("HOME") else {
        return;
    };
    let dir = Path::new(&home).join(".cache/nart/models/resnet18");
    if !dir.join("model.onnx").exists() || !dir.join("test_data_set_0").exists() {
        eprintln!("skipped: {} is missing", dir.display());
        return;
    }
    // The way in and the way out after the global pool.
    check_blocked(&dir.join("model.onnx"), &dir.join("test_data_set_0"), 2);
}
