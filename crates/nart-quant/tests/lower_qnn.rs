//! `quant-lower-qnn` on real models: the qnn form (exact integer kernels) run in the interpreter
//! against the QDQ form (float compute between exact casts) it came from.
//!
//! The two differ only where a float sum rounds to the other side of a quantization step than
//! the exact integer one, so the outputs are equal or one step apart on few elements; top-1 on the
//! digits held-out set does not change. Output SQNR against float is printed for both forms. The
//! lowering is deterministic: the same input gives byte-identical IR.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use nart_interp::Interpreter;
use nart_ir::{Context, Op};
use nart_quant::apply::ApplyOptions;
use nart_quant::collect::CalibOptions;
use nart_quant::dataset;
use nart_quant::lower_qnn;
use nart_tensor::Tensor;

fn model_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/models")
        .join(name)
}

fn load(name: &str) -> (Context, Op) {
    let mut ctx = Context::new();
    let module = nart_onnx::import_file(&mut ctx, &model_dir(name).join("model.onnx"))
        .unwrap_or_else(|_| panic!("{name} imports"));
    nart_quant::register(&mut ctx);
    let func = nart_quant::ir_util::functions(&ctx, module)[0];
    (ctx, func)
}

/// The model quantized to the QDQ form with `onnx-qdq`, calibrated on `calib` (min-max).
fn qdq(name: &str, calib: &Path) -> (Context, Op) {
    qdq_with(name, calib, "onnx-qdq")
}

/// The model quantized to the QDQ form with `scheme`, calibrated on `calib` (min-max).
fn qdq_with(name: &str, calib: &Path, scheme: &str) -> (Context, Op) {
    let (mut ctx, func) = load(name);
    let interp = Interpreter::new(&ctx, func).unwrap();
    let samples = dataset::load(calib, interp.inputs()).unwrap();
    nart_quant::collect::calibrate(&mut ctx, func, &samples, &CalibOptions::default()).unwrap();
    let apply = ApplyOptions {
        scheme: nart_quant::scheme::registry().get(scheme).unwrap().clone(),
        overrides: Vec::new(),
        user_params: None,
        fold_batchnorm: true,
    };
    nart_quant::apply::apply_static(&mut ctx, func, &apply).unwrap();
    nart_ir::verify::verify(&ctx, func).unwrap();
    (ctx, func)
}

fn lower(ctx: &mut Context, func: Op) -> lower_qnn::LowerReport {
    let report = lower_qnn::lower(ctx, func, nart_dialect_qnn::attrs::rounding::HALF_EVEN);
    nart_ir::verify::verify(ctx, func).expect("the qnn form verifies");
    report
}

fn op_counts(ctx: &Context, func: Op) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for op in ctx.collect_ops(func, nart_ir::WalkOrder::PreOrder) {
        *m.entry(ctx.op_name_str(op).to_string()).or_insert(0) += 1;
    }
    m
}

fn run(ctx: &Context, func: Op, inputs: Vec<Tensor>) -> Vec<f64> {
    let interp = Interpreter::new(ctx, func).unwrap();
    interp.run(inputs).unwrap().remove(0).to_f64_vec().unwrap()
}

/// The scale of the quantized value the function's first result is dequantized from, if it is.
fn output_scale(ctx: &Context, func: Op) -> Option<f64> {
    let ret = ctx
        .collect_ops(func, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .find(|&op| ctx.op_name_str(op) == "func.return")
        .unwrap();
    let d = ctx.defining_op(ctx.operand(ret, 0))?;
    if ctx.op_name_str(d) != "quant.dcast" {
        return None;
    }
    nart_dialect_quant::types::quantized_element(ctx, ctx.value_type(ctx.operand(d, 0)))?.scale()
}

fn sqnr(got: &[f64], want: &[f64]) -> f64 {
    let noise: f64 = got.iter().zip(want).map(|(a, b)| (a - b) * (a - b)).sum();
    let signal: f64 = want.iter().map(|b| b * b).sum();
    10.0 * (signal / noise).log10()
}

/// How far apart the two outputs are, in quantization steps: (elements that differ, the most
/// steps any differs by).
fn step_diff(a: &[f64], b: &[f64], scale: f64) -> (usize, f64) {
    assert_eq!(a.len(), b.len());
    let steps: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| ((x - y) / scale).abs().round())
        .collect();
    (
        steps.iter().filter(|&&s| s > 0.0).count(),
        steps.iter().copied().fold(0.0, f64::max),
    )
}

fn top1(logits: &[f64], labels: &[i64]) -> f64 {
    let k = logits.len() / labels.len();
    let correct = labels
        .iter()
        .enumerate()
        .filter(|(i, &l)| {
            let row = &logits[i * k..(i + 1) * k];
            (0..k).max_by(|&a, &b| row[a].total_cmp(&row[b])).unwrap() as i64 == l
        })
        .count();
    correct as f64 / labels.len() as f64
}

/// Quantizes `name`, lowers it, and compares float, QDQ and qnn on `inputs`; returns
/// (float, QDQ, qnn) outputs, the lowering report and the output scale.
#[allow(clippy::type_complexity)]
fn compare(
    name: &str,
    scheme: &str,
    calib: &Path,
    inputs: &dyn Fn() -> Vec<Tensor>,
) -> (
    Vec<f64>,
    Vec<f64>,
    Vec<f64>,
    lower_qnn::LowerReport,
    Option<f64>,
) {
    let (fctx, ffunc) = load(name);
    let float = run(&fctx, ffunc, inputs());
    let (qctx, qfunc) = qdq_with(name, calib, scheme);
    let q = run(&qctx, qfunc, inputs());
    let (mut lctx, lfunc) = qdq_with(name, calib, scheme);
    let report = lower(&mut lctx, lfunc);
    let counts = op_counts(&lctx, lfunc);
    let l = run(&lctx, lfunc, inputs());
    let scale = output_scale(&lctx, lfunc);
    let diff = match scale {
        Some(scale) => {
            let (n_diff, max_steps) = step_diff(&q, &l, scale);
            format!(
                "{n_diff} of {} outputs differ, by at most {max_steps} step(s)",
                q.len()
            )
        }
        None => format!(
            "float outputs (the last op stays float), SQNR of qnn vs QDQ {:.2} dB",
            sqnr(&l, &q)
        ),
    };
    eprintln!(
        "{name} {scheme}: lowered {:?}; kept float: {:?}; qnn vs QDQ: {diff}; SQNR vs float: QDQ {:.2} dB, qnn {:.2} dB",
        report.lowered,
        report
            .kept
            .iter()
            .map(|(op, why)| format!("{} ({why})", lctx.op_name_str(*op)))
            .collect::<Vec<_>>(),
        sqnr(&q, &float),
        sqnr(&l, &float)
    );
    eprintln!("{name} {scheme}: ops after lowering: {counts:?}");
    (float, q, l, report, scale)
}

fn heldout(name: &str) -> impl Fn() -> Vec<Tensor> {
    let path = model_dir(name).join("heldout_inputs.pb");
    move || vec![dataset::read_tensor(&path).unwrap()]
}

fn labels(name: &str) -> Vec<i64> {
    dataset::read_tensor(&model_dir(name).join("heldout_labels.pb"))
        .unwrap()
        .to_i64_vec()
        .unwrap()
}

#[test]
fn digits_cnn_qnn_matches_qdq() {
    let name = "digits_cnn";
    let calib = model_dir(name).join("calib_inputs.pb");
    let (float, q, l, report, scale) = compare(name, "onnx-qdq", &calib, &heldout(name));
    let scale = scale.expect("the logits are dequantized");
    // Every conv, the Gemm, the pools and the fused relus are integer ops now.
    assert!(report.kept.is_empty(), "kept float: {:?}", report.kept);
    assert_eq!(report.lowered.get("qnn.conv"), Some(&2));
    assert_eq!(report.lowered.get("qnn.matmul"), Some(&1));
    let (n_diff, max_steps) = step_diff(&q, &l, scale);
    assert!(max_steps <= 1.0, "qnn and QDQ differ by {max_steps} steps");
    assert!(
        n_diff * 100 <= q.len(),
        "{n_diff} of {} outputs differ (more than 1%)",
        q.len()
    );
    let labels = labels(name);
    let (tq, tl, tf) = (top1(&q, &labels), top1(&l, &labels), top1(&float, &labels));
    eprintln!(
        "digits_cnn top-1: float {:.2}%, QDQ {:.2}%, qnn {:.2}%",
        100.0 * tf,
        100.0 * tq,
        100.0 * tl
    );
    assert_eq!(tq, tl, "top-1 changed between the QDQ and qnn forms");
    assert!(sqnr(&l, &float) > 20.0);
}

/// TensorRT's scheme keeps biases float in the QDQ form (s8 symmetric, narrow range); the
/// lowering stores them as i32 at the accumulator's scale, which moves each bias by at most half
/// an accumulator step.
#[test]
fn digits_cnn_tensorrt_qnn_matches_qdq() {
    let name = "digits_cnn";
    let calib = model_dir(name).join("calib_inputs.pb");
    let (float, q, l, report, scale) = compare(name, "tensorrt", &calib, &heldout(name));
    let scale = scale.expect("the logits are dequantized");
    assert!(report.kept.is_empty(), "kept float: {:?}", report.kept);
    assert_eq!(report.lowered.get("qnn.conv"), Some(&2));
    let (n_diff, max_steps) = step_diff(&q, &l, scale);
    assert!(max_steps <= 1.0, "qnn and QDQ differ by {max_steps} steps");
    assert!(
        n_diff * 50 <= q.len(),
        "{n_diff} of {} outputs differ (more than 2%: the rounded biases add to the float sums' rounding)",
        q.len()
    );
    let labels = labels(name);
    let (tq, tl, tf) = (top1(&q, &labels), top1(&l, &labels), top1(&float, &labels));
    eprintln!(
        "digits_cnn tensorrt top-1: float {:.2}%, QDQ {:.2}%, qnn {:.2}%",
        100.0 * tf,
        100.0 * tq,
        100.0 * tl
    );
    assert_eq!(tq, tl, "top-1 changed between the QDQ and qnn forms");
}

#[test]
fn digits_mlp_qnn_matches_qdq() {
    let name = "digits_mlp";
    let calib = model_dir(name).join("calib_inputs.pb");
    let (float, q, l, report, scale) = compare(name, "onnx-qdq", &calib, &heldout(name));
    let scale = scale.expect("the logits are dequantized");
    assert!(report.kept.is_empty(), "kept float: {:?}", report.kept);
    assert!(report.lowered.get("qnn.matmul").copied().unwrap_or(0) >= 2);
    let (n_diff, max_steps) = step_diff(&q, &l, scale);
    assert!(max_steps <= 1.0, "qnn and QDQ differ by {max_steps} steps");
    assert!(
        n_diff * 100 <= q.len(),
        "{n_diff} of {} outputs differ (more than 1%)",
        q.len()
    );
    let labels = labels(name);
    let (tq, tl, tf) = (top1(&q, &labels), top1(&l, &labels), top1(&float, &labels));
    eprintln!(
        "digits_mlp top-1: float {:.2}%, QDQ {:.2}%, qnn {:.2}%",
        100.0 * tf,
        100.0 * tq,
        100.0 * tl
    );
    assert_eq!(tq, tl, "top-1 changed between the QDQ and qnn forms");
    assert!(sqnr(&l, &float) > 20.0);
}

#[test]
fn tiny_transformer_qnn_matches_qdq() {
    let name = "tiny_transformer";
    let data = model_dir(name).join("test_data_set_0");
    let input = data.join("input_0.pb");
    let inputs = move || vec![dataset::read_tensor(&input).unwrap()];
    let (float, q, l, report, scale) = compare(name, "onnx-qdq", &data, &inputs);
    assert_eq!(report.lowered.get("qnn.matmul"), Some(&16));
    // The GELUs' Erf become tables; Softmax and LayerNormalization have no qnn form.
    assert_eq!(report.lowered.get("qnn.lut"), Some(&2));
    assert!(report
        .kept
        .iter()
        .all(|(_, why)| why.contains("LayerNormalization")
            || why.contains("Softmax")
            || why.contains("not quantized")));
    // The output comes out of a float LayerNormalization (the scheme does not cover it), so
    // the two forms are compared as float tensors.
    assert!(scale.is_none());
    let (d, qf, lf) = (sqnr(&l, &q), sqnr(&q, &float), sqnr(&l, &float));
    assert!(d > 30.0, "qnn vs QDQ SQNR {d} dB");
    assert!(
        (qf - lf).abs() < 1.0,
        "SQNR vs float: QDQ {qf} dB, qnn {lf} dB"
    );
}

#[test]
fn lowering_is_deterministic() {
    let name = "digits_cnn";
    let calib = model_dir(name).join("calib_inputs.pb");
    let print = || {
        let (mut ctx, func) = qdq(name, &calib);
        lower(&mut ctx, func);
        nart_ir::printer::print_op(&ctx, func, &Default::default())
    };
    let (a, b) = (print(), print());
    assert!(a.contains("qnn.conv") && !a.contains("graph.Conv"));
    assert_eq!(a, b, "the same input gave different IR");
}

/// ResNet-18 and MobileNetV2 from the zoo cache (`scripts/models/build_zoo.py --cache`, never
/// committed; `NART_MODEL_CACHE` or `~/.cache/nart/models`), run only with `NART_ZOO=1` since the
/// unoptimized interpreter takes minutes on them. Calibrated on their one reference input.
#[test]
fn zoo_models_qnn_matches_qdq() {
    if std::env::var_os("NART_ZOO").is_none() {
        eprintln!("zoo: set NART_ZOO=1 to run ResNet-18 and MobileNetV2 from the zoo cache");
        return;
    }
    let cache = std::env::var_os("NART_MODEL_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/nart/models")
        });
    for name in ["resnet18", "mobilenetv2"] {
        let dir = cache.join(name);
        assert!(
            dir.join("model.onnx").exists(),
            "NART_ZOO=1 but {} is missing (run scripts/models/build_zoo.py --cache)",
            dir.display()
        );
        let t0 = std::time::Instant::now();
        let data = dir.join("test_data_set_0");
        let input = data.join("input_0.pb");
        let inputs = || vec![dataset::read_tensor(&input).unwrap()];
        let load_model = |ctx: &mut Context| {
            let module = nart_onnx::import_file(ctx, &dir.join("model.onnx")).unwrap();
            nart_quant::register(ctx);
            nart_quant::ir_util::functions(ctx, module)[0]
        };
        let mut fctx = Context::new();
        let ffunc = load_model(&mut fctx);
        let float = run(&fctx, ffunc, inputs());
        let quantized = |lowered: bool| {
            let mut ctx = Context::new();
            let func = load_model(&mut ctx);
            let interp = Interpreter::new(&ctx, func).unwrap();
            let samples = dataset::load(&data, interp.inputs()).unwrap();
            nart_quant::collect::calibrate(&mut ctx, func, &samples, &CalibOptions::default())
                .unwrap();
            let apply = ApplyOptions {
                scheme: nart_quant::scheme::registry()
                    .get("onnx-qdq")
                    .unwrap()
                    .clone(),
                overrides: Vec::new(),
                user_params: None,
                fold_batchnorm: true,
            };
            nart_quant::apply::apply_static(&mut ctx, func, &apply).unwrap();
            let report = lowered.then(|| lower(&mut ctx, func));
            let out = run(&ctx, func, inputs());
            let scale = output_scale(&ctx, func);
            (out, report, scale)
        };
        let (q, _, _) = quantized(false);
        let (l, report, scale) = quantized(true);
        let report = report.unwrap();
        let scale = scale.expect("the logits are dequantized");
        let (n_diff, max_steps) = step_diff(&q, &l, scale);
        let top = |v: &[f64]| (0..v.len()).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap();
        eprintln!(
            "{name}: lowered {:?}; {} float compute ops kept; qnn vs QDQ: {n_diff} of {} logits differ, by at most {max_steps} step(s); SQNR vs float: QDQ {:.2} dB, qnn {:.2} dB; top-1 class float/QDQ/qnn {}/{}/{} ({:.0} s)",
            report.lowered,
            report.kept.len(),
            q.len(),
            sqnr(&q, &float),
            sqnr(&l, &float),
            top(&float),
            top(&q),
            top(&l),
            t0.elapsed().as_secs_f64()
        );
        assert!(report.kept.is_empty(), "kept float: {:?}", report.kept);
        // Through 20 to 50 layers a one-step difference in an early layer spreads and can add
        // up: looser bounds than on the small models, and the accuracy of the two forms must
        // agree.
        assert!(max_steps <= 2.0, "qnn and QDQ differ by {max_steps} steps");
        assert!(
            n_diff * 10 <= 3 * q.len(),
            "{n_diff} of {} logits differ",
            q.len()
        );
        assert!((sqnr(&q, &float) - sqnr(&l, &float)).abs() < 0.5);
        assert_eq!(top(&q), top(&l));
    }
}
