//! Calibration with samples stacked along the batch axis (`CalibOptions::batch`) gives the same
//! statistics, bit for bit, as one interpreter run per sample: on digits_cnn (convolutions
//! small enough that several images share one GEMM, max pooling, Flatten, Gemm), for ranges,
//! histograms and per-channel statistics, with full and partial batches; and functions whose
//! ops could mix the rows of a batch run one sample at a time.

use std::path::{Path, PathBuf};

use nart_interp::{Interpreter, Val};
use nart_ir::{Context, Op};
use nart_quant::calib::{Calibrator, Histogram};
use nart_quant::collect::{self, CalibOptions, ValueStats};
use nart_quant::dataset::{self, Sample};
use nart_tensor::Tensor;

fn model_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/models/digits_cnn")
}

fn load() -> (Context, Op) {
    let mut ctx = Context::new();
    let module = nart_onnx::import_file(&mut ctx, &model_dir().join("model.onnx"))
        .unwrap_or_else(|_| panic!("digits_cnn imports"));
    nart_quant::register(&mut ctx);
    let func = nart_quant::ir_util::functions(&ctx, module)[0];
    (ctx, func)
}

/// The first `n` rows of the calibration split, one sample per row.
fn row_samples(n: usize) -> Vec<Sample> {
    let x = dataset::read_tensor(&model_dir().join("calib_inputs.pb")).unwrap();
    let data = x.to_f64_vec().unwrap();
    let row: usize = x.shape()[1..].iter().product();
    let mut shape = x.shape().to_vec();
    shape[0] = 1;
    (0..n)
        .map(|i| Sample {
            name: format!("row {i}"),
            inputs: vec![Val::Tensor(
                Tensor::from_vec(
                    shape.clone(),
                    data[i * row..(i + 1) * row]
                        .iter()
                        .map(|&v| v as f32)
                        .collect::<Vec<f32>>(),
                )
                .unwrap(),
            )],
        })
        .collect()
}

fn same_histogram(a: &Histogram, b: &Histogram, what: &str) {
    assert_eq!(a.min.to_bits(), b.min.to_bits(), "{what}: min");
    assert_eq!(a.max.to_bits(), b.max.to_bits(), "{what}: max");
    assert_eq!(a.amax.to_bits(), b.amax.to_bits(), "{what}: histogram end");
    assert_eq!(a.bins, b.bins, "{what}: bins");
}

fn same_stats(a: &[(nart_ir::Value, ValueStats)], b: &[(nart_ir::Value, ValueStats)]) {
    assert_eq!(a.len(), b.len(), "values with statistics");
    for (k, ((va, sa), (vb, sb))) in a.iter().zip(b).enumerate() {
        assert_eq!(va, vb, "value #{k}");
        same_histogram(&sa.tensor, &sb.tensor, &format!("value #{k}"));
        assert_eq!(sa.channels.len(), sb.channels.len(), "value #{k}: channels");
        for (c, (ha, hb)) in sa.channels.iter().zip(&sb.channels).enumerate() {
            same_histogram(ha, hb, &format!("value #{k} channel {c}"));
        }
    }
}

fn opts(calibrator: Calibrator, batch: usize) -> CalibOptions {
    CalibOptions {
        calibrator,
        per_channel: true,
        batch,
        threads: Some(2),
        // Few bins: the per-channel entropy and MSE searches stay quick in a debug build.
        bins: 64,
        ..CalibOptions::default()
    }
}

#[test]
fn stacked_samples_give_the_same_statistics_as_one_run_each() {
    // 21 rows: with 8 per run on two threads, runs of 8 + 8 and 5 (a partial batch).
    let samples = row_samples(21);
    for calibrator in [Calibrator::MinMax, Calibrator::Entropy] {
        let (mut ctx, func) = load();
        let (one, used) =
            collect::collect_with_batch(&mut ctx, func, &samples, &opts(calibrator, 1)).unwrap();
        assert_eq!(used.batch, 1);
        // The input, two convolutions, two relus, two pools, Flatten and Gemm.
        assert_eq!(one.len(), 9, "values with statistics");
        assert!(
            one.iter()
                .all(|(_, s)| calibrator.needs_histogram() != s.tensor.bins.is_empty()),
            "histograms exactly when the calibrator needs them"
        );
        assert!(
            one.iter().filter(|(_, s)| !s.channels.is_empty()).count() >= 7,
            "per-channel statistics of the rank-4 values"
        );
        for batch in [8, 3, 64] {
            let (stacked, used) =
                collect::collect_with_batch(&mut ctx, func, &samples, &opts(calibrator, batch))
                    .unwrap();
            assert_eq!(
                used.batch,
                batch.min(samples.len()),
                "digits_cnn runs stacked"
            );
            same_stats(&one, &stacked);
        }
    }
}

#[test]
fn stacked_multi_row_samples_give_the_same_statistics() {
    // The loader's samples of 32 rows each, 4 of them: two per run.
    let (mut ctx, func) = load();
    let interp = Interpreter::new(&ctx, func).unwrap();
    let samples = dataset::load(&model_dir().join("calib_inputs.pb"), interp.inputs()).unwrap();
    assert_eq!(samples.len(), 4);
    let (one, _) =
        collect::collect_with_batch(&mut ctx, func, &samples, &opts(Calibrator::Entropy, 1))
            .unwrap();
    let (two, used) =
        collect::collect_with_batch(&mut ctx, func, &samples, &opts(Calibrator::Entropy, 2))
            .unwrap();
    assert_eq!(used.batch, 2);
    same_stats(&one, &two);
}

#[test]
fn recorded_ranges_are_the_same_for_every_calibrator() {
    let samples = row_samples(12);
    for calibrator in [
        Calibrator::MinMax,
        Calibrator::Entropy,
        Calibrator::Percentile(99.9),
        Calibrator::parse("mse").unwrap(),
    ] {
        let mut reports = Vec::new();
        for batch in [1, 8] {
            let (mut ctx, func) = load();
            let r = collect::calibrate(&mut ctx, func, &samples, &opts(calibrator, batch)).unwrap();
            assert_eq!(r.batching.batch, batch);
            let values = collect::calibrated_values(&ctx, func);
            let ranges: Vec<(u64, u64)> = values
                .iter()
                .map(|&v| {
                    let (lo, hi) = collect::calibrated_range(&ctx, v).unwrap();
                    (lo.to_bits(), hi.to_bits())
                })
                .collect();
            let channels: Vec<Vec<(u64, u64)>> = values
                .iter()
                .filter_map(|&v| collect::calibrated_channels(&ctx, v))
                .map(|c| c.iter().map(|(a, b)| (a.to_bits(), b.to_bits())).collect())
                .collect();
            assert!(!channels.is_empty(), "per-channel ranges were recorded");
            reports.push((ranges, channels));
        }
        assert_eq!(reports[0], reports[1], "{}", calibrator.name());
    }
}

/// A function reading `x` through `body` (MLIR lines using `%x`, ending in `%y`).
fn func_of(arg: &str, body: &str, result: &str) -> (Context, Op) {
    let text =
        format!("func.func @f(%x: {arg}) -> {result} {{\n{body}\n  return %y : {result}\n}}\n");
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_quant::register(&mut ctx);
    let module = nart_ir::parser::parse_source(&mut ctx, "batch.mlir", &text).unwrap();
    nart_ir::verify::verify(&ctx, module).unwrap();
    let func = nart_quant::ir_util::functions(&ctx, module)[0];
    (ctx, func)
}

#[test]
fn ops_that_may_mix_rows_turn_batching_off() {
    // Each row on its own: batched.
    let (ctx, func) = func_of(
        "tensor<?x4xf32>",
        r#"  %c = "graph.constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %a = "graph.Add"(%x, %c) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %y = "graph.Relu"(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>"#,
        "tensor<?x4xf32>",
    );
    let plan = nart_quant::batch::plan(&ctx, func).unwrap();
    assert_eq!(plan.batched.len(), 3, "the argument and both results");

    // A softmax over the batch axis mixes rows.
    let (ctx, func) = func_of(
        "tensor<?x4xf32>",
        r#"  %y = "graph.Softmax"(%x) <{axis = 0 : i64}> : (tensor<?x4xf32>) -> tensor<?x4xf32>"#,
        "tensor<?x4xf32>",
    );
    let e = nart_quant::batch::plan(&ctx, func).unwrap_err();
    assert!(e.contains("graph.Softmax"), "{e}");

    // A constant that reaches dimension 0 would pair with rows.
    let (ctx, func) = func_of(
        "tensor<?x2xf32>",
        r#"  %c = "graph.constant"() <{value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %y = "graph.Mul"(%x, %c) : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>"#,
        "tensor<?x2xf32>",
    );
    assert!(nart_quant::batch::plan(&ctx, func).is_err());

    // A static batch dimension: the model takes one row at a time.
    let (ctx, func) = func_of(
        "tensor<1x4xf32>",
        r#"  %y = "graph.Relu"(%x) : (tensor<1x4xf32>) -> tensor<1x4xf32>"#,
        "tensor<1x4xf32>",
    );
    assert!(nart_quant::batch::plan(&ctx, func).is_err());
}

#[test]
fn a_function_that_mixes_rows_calibrates_one_sample_per_run() {
    // A softmax over the batch axis: alone, every sample's output is all ones; stacked, the
    // samples would share one softmax and the recorded range would be wrong.
    let (mut ctx, func) = func_of(
        "tensor<?x3xf32>",
        r#"  %y = "graph.Softmax"(%x) <{axis = 0 : i64}> : (tensor<?x3xf32>) -> tensor<?x3xf32>"#,
        "tensor<?x3xf32>",
    );
    let samples: Vec<Sample> = (0..6)
        .map(|i| Sample {
            name: format!("s{i}"),
            inputs: vec![Val::Tensor(
                Tensor::from_vec(vec![1, 3], vec![i as f32, -(i as f32), 0.5]).unwrap(),
            )],
        })
        .collect();
    let r = collect::calibrate(&mut ctx, func, &samples, &opts(Calibrator::MinMax, 4)).unwrap();
    assert_eq!(r.batching.batch, 1);
    let why = r.batching.why_not.unwrap();
    assert!(why.contains("graph.Softmax"), "{why}");
    let ranges: Vec<(f64, f64)> = r.ranges.iter().map(|(_, r)| *r).collect();
    assert_eq!(ranges, vec![(-5.0, 5.0), (1.0, 1.0)]);
}
