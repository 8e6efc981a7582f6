//! The accuracy guard of `nart quantize` as a user runs it, on the digits CNN and its held-out
//! set: a guard that passes (model and reports written), one that refuses (exit 1, the reports
//! written as evidence, the model not), `--auto-fallback` naming the layers it keeps in float,
//! bad evaluation data and labels (exit 1, a message naming the file, sample and input, nothing
//! written), flags that do not fit together, and snapshots of the JSON report and the terminal
//! table.

use std::path::{Path, PathBuf};
use std::process::Command;

use nart_tensor::Tensor;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const MODEL: &str = "tests/models/digits_cnn/model.onnx";
const CALIB: &str = "tests/models/digits_cnn/calib_inputs.pb";
const HELDOUT: &str = "tests/models/digits_cnn/heldout_inputs.pb";
const LABELS: &str = "tests/models/digits_cnn/heldout_labels.pb";

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("nart-guard-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `nart` in the repository root (so that the paths in reports are the same everywhere)
/// and returns (exit code, stdout, stderr).
fn nart(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nart"))
        .current_dir(root())
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

/// `nart quantize` of the digits CNN calibrated on its calibration set, with `extra` flags.
fn quantize(out: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["quantize", MODEL, "--calib", CALIB, "-o", s(out)];
    args.extend_from_slice(extra);
    nart(&args)
}

fn files_in(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_guard_that_holds_writes_the_model_and_both_reports() {
    let d = scratch("pass");
    let (out, report) = (d.join("q.mlir"), d.join("r.json"));
    let (code, stdout, stderr) = quantize(
        &out,
        &[
            "--eval",
            HELDOUT,
            "--labels",
            LABELS,
            "--max-drop",
            "0.5",
            "--report",
            s(&report),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(files_in(&d), ["q.mlir", "r.html", "r.json"]);
    // The float model's top-1 on the held-out set is the one the model's meta.json records
    // (0.9777, from NumPy and ONNX Runtime): 439 of 449.
    assert!(
        stdout.contains("top-1: float 97.77% (439/449), quantized "),
        "{stdout}"
    );
    assert!(stdout.contains("accuracy guard: passed"), "{stdout}");
    assert!(stderr.contains("and "), "{stderr}");
    let r = json(&report);
    assert_eq!(r["format"], "nart-quant-report");
    assert_eq!(r["passed"], true);
    assert_eq!(r["eval"]["rows"], 449);
    assert_eq!(r["eval"]["samples"], 15);
    assert_eq!(r["top1"]["float"]["correct"], 439);
    let drop = r["top1"]["drop_points"].as_f64().unwrap();
    assert!(drop <= 0.5, "{drop}");
    let sqnr = r["outputs"][0]["sqnr_db"].as_f64().unwrap();
    assert!(sqnr > 25.0, "int8 logits SQNR {sqnr}");
    // Every quantized compute layer is in the table, worst first.
    let layers = r["layers"].as_array().unwrap();
    let names: Vec<&str> = layers.iter().map(|l| l["name"].as_str().unwrap()).collect();
    for n in ["conv1", "conv2", "logits", "pool1", "pool2"] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    let sq: Vec<f64> = layers
        .iter()
        .map(|l| l["sqnr_db"].as_f64().unwrap())
        .collect();
    assert!(sq.windows(2).all(|w| w[0] <= w[1]), "not sorted: {sq:?}");
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<svg") && !html.contains("<script"));
    assert_eq!(html.matches("<rect").count(), layers.len());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_guard_that_fails_writes_the_reports_but_not_the_model() {
    let d = scratch("fail");
    let (out, report) = (d.join("q.mlir"), d.join("r.json"));
    // 2-bit activations and weights lose most of the accuracy.
    let (code, stdout, stderr) = quantize(
        &out,
        &[
            "--scheme",
            "arm-lowbit",
            "--bits",
            "2",
            "--eval",
            HELDOUT,
            "--labels",
            LABELS,
            "--max-drop",
            "1",
            "--report",
            s(&report),
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(!out.exists());
    assert_eq!(files_in(&d), ["r.html", "r.json"]);
    assert!(
        stderr.contains("the accuracy guard refuses the quantized model: top-1 drops"),
        "{stderr}"
    );
    assert!(stderr.contains("more than --max-drop 1"), "{stderr}");
    assert!(
        stderr.contains("r.json") && stderr.contains("was not written"),
        "{stderr}"
    );
    assert!(stdout.contains("accuracy guard: FAILED"), "{stdout}");
    let r = json(&report);
    assert_eq!(r["passed"], false);
    assert!(r["top1"]["drop_points"].as_f64().unwrap() > 1.0);
    assert_eq!(r["failures"].as_array().unwrap().len(), 1);
    // Without labels the SQNR floor is the limit.
    let (code, _, stderr) = quantize(&out, &["--eval", HELDOUT, "--min-sqnr", "60"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("less than --min-sqnr 60"), "{stderr}");
    assert!(stderr.contains("no report file was asked for"), "{stderr}");
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn auto_fallback_keeps_the_worst_layers_in_float_and_names_them() {
    let d = scratch("fallback");
    let (out, report) = (d.join("q.mlir"), d.join("r.json"));
    let (code, stdout, stderr) = quantize(
        &out,
        &[
            "--eval",
            HELDOUT,
            "--min-sqnr",
            "40",
            "--auto-fallback",
            "--report",
            s(&report),
        ],
    );
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    assert!(stdout.contains("auto-fallback: "), "{stdout}");
    let r = json(&report);
    let fb = &r["fallback"];
    // The first step keeps every candidate in float: exactly the float model.
    assert_eq!(fb["steps"][0]["min_output_sqnr_db"], "inf");
    assert_eq!(fb["steps"][0]["passed"], true);
    let kept: Vec<String> = fb["kept_float"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert!(!kept.is_empty());
    assert!(
        stdout.contains(&format!("kept in float: {}", kept.join(", "))),
        "{stdout}"
    );
    // The layers are the worst of the first evaluation, in order (a layer with its fused
    // activation), and the kept model meets the floor.
    let plan: Vec<String> = fb["plan"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| {
            g.as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
        })
        .collect();
    assert_eq!(kept[..], plan[..kept.len()]);
    assert!(kept.len() < plan.len(), "all float: {kept:?}");
    assert!(r["outputs"][0]["sqnr_db"].as_f64().unwrap() >= 40.0);
    assert!(fb["initial_min_output_sqnr_db"].as_f64().unwrap() < 40.0);
    // The written model keeps them in float, and the summary says so.
    assert!(stderr.contains("kept float: "), "{stderr}");
    for k in &kept {
        assert!(stderr.contains(k.as_str()), "{k}: {stderr}");
    }
    let ir = std::fs::read_to_string(&out).unwrap();
    assert!(ir.contains("quant.qcast"), "nothing quantized left");
    // The same command gives the same bytes.
    let first = std::fs::read(&report).unwrap();
    let first_html = std::fs::read(d.join("r.html")).unwrap();
    let (code, stdout2, _) = quantize(
        &out,
        &[
            "--eval",
            HELDOUT,
            "--min-sqnr",
            "40",
            "--auto-fallback",
            "--report",
            s(&report),
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(stdout, stdout2);
    assert_eq!(first, std::fs::read(&report).unwrap());
    assert_eq!(first_html, std::fs::read(d.join("r.html")).unwrap());
    let _ = std::fs::remove_dir_all(&d);
}

fn write_npy(path: &Path, t: &Tensor) {
    std::fs::write(path, t.to_npy_bytes().unwrap()).unwrap();
}

/// The held-out inputs as f32 values.
fn heldout() -> Vec<f32> {
    let t = nart_quant::dataset::read_tensor(&root().join(HELDOUT)).unwrap();
    t.to_f32_vec().unwrap()
}

/// Runs a guarded quantization that must be refused before anything is written, with a message
/// holding every one of `needles`.
fn rejects(what: &str, extra: &[&str], needles: &[&str]) {
    let d = scratch(what);
    let out = d.join("q.mlir");
    let report = d.join("r.json");
    let mut args = extra.to_vec();
    args.extend_from_slice(&["--report", s(&report)]);
    let (code, _, stderr) = quantize(&out, &args);
    assert_eq!(code, 1, "{what}: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{what}: '{n}' not in: {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert!(files_in(&d).is_empty(), "{what}: wrote {:?}", files_in(&d));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_evaluation_data_and_labels_are_refused_before_anything_is_written() {
    let d = scratch("data");
    let x = heldout();
    // 448 labels for 449 rows.
    let labels = nart_quant::dataset::read_tensor(&root().join(LABELS))
        .unwrap()
        .to_i64_vec()
        .unwrap();
    let short = d.join("short.npy");
    write_npy(
        &short,
        &Tensor::from_vec(vec![448], labels[..448].to_vec()).unwrap(),
    );
    rejects(
        "count",
        &["--eval", HELDOUT, "--labels", s(&short), "--max-drop", "1"],
        &[
            "short.npy",
            "hold 448 labels",
            "gives 449 rows of output 'logits'",
        ],
    );
    // Float labels.
    let float_labels = d.join("float.npy");
    write_npy(
        &float_labels,
        &Tensor::from_vec(vec![449], labels.iter().map(|&l| l as f32).collect()).unwrap(),
    );
    rejects(
        "dtype",
        &["--eval", HELDOUT, "--labels", s(&float_labels)],
        &["float.npy", "element type is f32", "integer class indices"],
    );
    // A label past the last class.
    let mut wide = labels.clone();
    wide[7] = 10;
    let wide_path = d.join("wide.npy");
    write_npy(&wide_path, &Tensor::from_vec(vec![449], wide).unwrap());
    rejects(
        "range",
        &["--eval", HELDOUT, "--labels", s(&wide_path)],
        &["label #7 is 10", "10 classes"],
    );
    // A NaN in the evaluation inputs: a batch file, rows split as calibration data is.
    let mut nan = x.clone();
    nan[64 * 40 + 5] = f32::NAN;
    let nan_path = d.join("nan.npy");
    write_npy(
        &nan_path,
        &Tensor::from_vec(vec![449, 1, 8, 8], nan).unwrap(),
    );
    rejects(
        "nan",
        &["--eval", s(&nan_path)],
        &[
            "bad evaluation data",
            "nan.npy",
            "input #0 'input'",
            "element 2565 is NaN (NaN) in row 40",
        ],
    );
    // A sample folder with the wrong element type names the sample and the input.
    let set = d.join("set");
    std::fs::create_dir_all(set.join("s0")).unwrap();
    std::fs::create_dir_all(set.join("s1")).unwrap();
    write_npy(
        &set.join("s0/input_0.npy"),
        &Tensor::from_vec(vec![1, 1, 8, 8], x[..64].to_vec()).unwrap(),
    );
    write_npy(
        &set.join("s1/input_0.npy"),
        &Tensor::from_vec(vec![1, 1, 8, 8], vec![1i64; 64]).unwrap(),
    );
    rejects(
        "type",
        &["--eval", s(&set)],
        &[
            "bad evaluation data",
            "sample 's1'",
            "input #0 'input'",
            "element type is i64",
        ],
    );
    // NaN in a sample folder names the sample.
    let mut nan_sample = x[..64].to_vec();
    nan_sample[9] = f32::NAN;
    write_npy(
        &set.join("s1/input_0.npy"),
        &Tensor::from_vec(vec![1, 1, 8, 8], nan_sample).unwrap(),
    );
    rejects(
        "nan-sample",
        &["--eval", s(&set)],
        &["sample 's1'", "input #0 'input'", "element 9 is NaN"],
    );
    // The wrong shape.
    write_npy(
        &set.join("s1/input_0.npy"),
        &Tensor::from_vec(vec![1, 1, 4, 16], x[..64].to_vec()).unwrap(),
    );
    rejects(
        "shape",
        &["--eval", s(&set)],
        &["sample 's1'", "input #0 'input'", "shape is [1, 1, 4, 16]"],
    );
    // An empty folder, a missing file, unreadable labels.
    let empty = d.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    rejects(
        "empty",
        &["--eval", s(&empty)],
        &["bad evaluation data", "is empty"],
    );
    rejects(
        "missing",
        &["--eval", s(&d.join("nope.npy"))],
        &["bad evaluation data", "nope.npy"],
    );
    let junk = d.join("junk.npy");
    std::fs::write(&junk, b"not a tensor").unwrap();
    rejects(
        "junk",
        &["--eval", HELDOUT, "--labels", s(&junk)],
        &["labels", "junk.npy", "cannot read them"],
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn flags_that_do_not_fit_together_are_refused() {
    rejects(
        "no-eval",
        &["--labels", LABELS],
        &["--labels needs evaluation data (--eval DATA)"],
    );
    rejects(
        "no-eval-fallback",
        &["--auto-fallback"],
        &["--auto-fallback needs evaluation data"],
    );
    rejects(
        "drop-without-labels",
        &["--eval", HELDOUT, "--max-drop", "1"],
        &[
            "--max-drop is in top-1 points and needs --labels",
            "--min-sqnr",
        ],
    );
    rejects(
        "fallback-without-limit",
        &["--eval", HELDOUT, "--auto-fallback"],
        &["--auto-fallback needs a limit"],
    );
    rejects(
        "negative-drop",
        &["--eval", HELDOUT, "--labels", LABELS, "--max-drop=-1"],
        &["--max-drop must be a number of top-1 points, 0 or more"],
    );
    rejects(
        "nan-floor",
        &["--eval", HELDOUT, "--min-sqnr", "NaN"],
        &["--min-sqnr must be a finite number"],
    );
    let d = scratch("html-name");
    let html = d.join("r.html");
    let (code, _, stderr) = quantize(
        &d.join("q.mlir"),
        &["--eval", HELDOUT, "--report", s(&html)],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("name the JSON report R.json"), "{stderr}");
    assert!(files_in(&d).is_empty());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn report_snapshots_on_digits_cnn() {
    let d = scratch("snap");
    let (out, report) = (d.join("q.mlir"), d.join("r.json"));
    let (code, stdout, stderr) = quantize(
        &out,
        &[
            "--eval",
            HELDOUT,
            "--labels",
            LABELS,
            "--max-drop",
            "1.0",
            "--report",
            s(&report),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    insta::assert_snapshot!(
        "digits_cnn_report_json",
        std::fs::read_to_string(&report).unwrap()
    );
    insta::assert_snapshot!("digits_cnn_terminal_table", stdout);
    // docs/quantization.md shows the same table (NART_BLESS=1 rewrites it).
    let docs = root().join("docs/quantization.md");
    let text = std::fs::read_to_string(&docs).unwrap();
    let (begin, end) = (
        "<!-- BEGIN GUARD EXAMPLE -->\n",
        "<!-- END GUARD EXAMPLE -->",
    );
    let (b, e) = (
        text.find(begin).unwrap() + begin.len(),
        text.find(end).unwrap(),
    );
    if text[b..e] != stdout {
        if std::env::var_os("NART_BLESS").is_some() {
            std::fs::write(&docs, format!("{}{stdout}{}", &text[..b], &text[e..])).unwrap();
        } else {
            panic!("docs/quantization.md (GUARD EXAMPLE) is out of date; run with NART_BLESS=1");
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn float_cast_schemes_get_a_per_layer_table_too() {
    // fp16 inserts Cast pairs named after the op they serve; the layers are still found.
    let d = scratch("fp16");
    let (out, report) = (d.join("q.mlir"), d.join("r.json"));
    let (code, _, stderr) = quantize(
        &out,
        &[
            "--scheme",
            "fp16",
            "--eval",
            HELDOUT,
            "--min-sqnr",
            "50",
            "--report",
            s(&report),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let r = json(&report);
    let names: Vec<&str> = r["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    for n in ["conv1", "conv2", "logits"] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    // Half precision keeps far more of the signal than int8 does.
    assert!(r["outputs"][0]["sqnr_db"].as_f64().unwrap() > 50.0);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn auto_fallback_says_when_only_the_float_model_holds() {
    // No bf16 layer reaches 60 dB at the output; only all of them in float does.
    let d = scratch("all-float");
    let out = d.join("q.mlir");
    let (code, stdout, stderr) = quantize(
        &out,
        &[
            "--scheme",
            "bf16",
            "--eval",
            HELDOUT,
            "--min-sqnr",
            "60",
            "--auto-fallback",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("note: only keeping every candidate in float holds"),
        "{stdout}"
    );
    assert!(stderr.contains("0 ops quantized"), "{stderr}");
    let _ = std::fs::remove_dir_all(&d);
}
