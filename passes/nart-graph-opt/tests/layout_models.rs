//! `graph-layout{layout=nhwc}` on whole CNNs: `graph-optimize`, then the layout pass, then
//! `graph-optimize` again (BatchNorm folding and activation fusion need the channels-first
//! `Conv`, so the layout comes after them). The result computes what the original computes
//! (reference interpreter, seeded inputs, within 1e-4), every convolution is channels-last, and
//! the only Transposes left are the region borders. With `pools=false` (the pass before pools
//! had a channels-last form) those are the model input and both sides of each `MaxPool` or
//! `AveragePool`; by default the pools are `graph.pool` with `layout = "nhwc"` and only the
//! model's input and output borders are left. Each test checks both, in the same run, so the
//! counts before and after stand side by side. Where the last border is a `[N, C, 1, 1]`
//! result, it is a Reshape, not a Transpose.
//!
//! The digits CNN is in `tests/models`; ResNet-18 and MobileNetV2 are read from
//! `~/.cache/nart/models` (`scripts/models/build_zoo.py`) and skipped when it is missing.

mod common;

use std::path::{Path, PathBuf};

use nart_interp::Interpreter;
use nart_ir::{Context, Op};
use nart_pass::{PassManager, PassRegistry};
use nart_tensor::{DType, Tensor};

const PIPELINE: &str = "builtin.module(graph-optimize,graph-layout{layout=nhwc},graph-optimize)";
const PIPELINE_NO_POOLS: &str =
    "builtin.module(graph-optimize,graph-layout{layout=nhwc pools=false},graph-optimize)";

use common::context;

/// Seeded inputs (see `common::inputs`), dynamic dimensions 1.
fn inputs(interp: &Interpreter, seed: u64) -> Vec<Tensor> {
    for spec in interp.inputs() {
        assert_eq!(spec.dtype, Some(DType::F32), "the CNNs take f32");
    }
    common::inputs(interp, seed, 1)
}

fn count(ctx: &Context, module: Op, name: &str) -> usize {
    ctx.nested_ops(module)
        .into_iter()
        .filter(|&op| ctx.op_name_str(op) == name)
        .count()
}

/// Runs each of `pipelines` on `path`; checks values and convolutions, and returns, per
/// pipeline, the number of Transposes left and the number of pools without a channels-last
/// form. The model's own outputs are computed once.
fn check(path: &Path, pipelines: &[&str]) -> Vec<(usize, usize)> {
    let mut ctx = context();
    let module = nart_onnx::import_file(&mut ctx, path).expect("the model imports");
    let interp = Interpreter::from_module(&ctx, module, None).expect("plan before");
    let ins = inputs(&interp, 11);
    let want = interp.run(ins.clone()).expect("run before");
    pipelines
        .iter()
        .map(|p| check_one(path, p, &ins, &want))
        .collect()
}

/// One pipeline of [`check`], on a fresh import of `path`.
fn check_one(path: &Path, pipeline: &str, ins: &[Tensor], want: &[Tensor]) -> (usize, usize) {
    let mut ctx = context();
    let module = nart_onnx::import_file(&mut ctx, path).expect("the model imports");

    let mut registry = PassRegistry::new();
    nart_transforms::register(&mut registry);
    nart_graph_opt::register(&mut registry);
    nart_graph_fusion::register(&mut registry);
    let mut pm = PassManager::parse(pipeline, &registry).unwrap();
    pm.run(&mut ctx, module, &mut Vec::new())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let printed = nart_ir::printer::print_op(&ctx, module, &Default::default());

    assert_eq!(count(&ctx, module, "graph.Conv"), 0, "{printed}");
    let convs: Vec<Op> = ctx
        .nested_ops(module)
        .into_iter()
        .filter(|&op| ctx.op_name_str(op) == "graph.fused_conv")
        .collect();
    assert!(!convs.is_empty(), "{printed}");
    for &c in &convs {
        assert_eq!(
            nart_dialect_graph::fused::ConvLayout::of(&ctx, c),
            Ok(nart_dialect_graph::fused::ConvLayout::Nhwc),
            "{printed}"
        );
    }

    let interp = Interpreter::from_module(&ctx, module, None).expect("plan after");
    let got = interp.run(ins.to_vec()).expect("run after");
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.shape(), w.shape());
        let (g, w) = (g.to_f64_vec().unwrap(), w.to_f64_vec().unwrap());
        for (a, b) in g.iter().zip(&w) {
            assert!((a - b).abs() <= 1e-4 * (1.0 + b.abs()), "{a} != {b}");
        }
    }

    // The ONNX export writes standard ops (Conv/FusedConv between Transposes) that compute the
    // same, read back by the importer.
    let bytes = nart_onnx::export_model(&ctx, module).expect("the model exports");
    let mut ctx2 = context();
    let module2 = nart_onnx::import_model(&mut ctx2, &bytes, None).expect("it imports again");
    let interp = Interpreter::from_module(&ctx2, module2, None).expect("plan exported");
    let got = interp.run(ins.to_vec()).expect("run exported");
    for (g, w) in got.iter().zip(want) {
        let (g, w) = (g.to_f64_vec().unwrap(), w.to_f64_vec().unwrap());
        for (a, b) in g.iter().zip(&w) {
            assert!(
                (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
                "exported: {a} != {b}"
            );
        }
    }

    let pools = count(&ctx, module, "graph.MaxPool") + count(&ctx, module, "graph.AveragePool");
    (count(&ctx, module, "graph.Transpose"), pools)
}

fn zoo(name: &str) -> Option<PathBuf> {
    let home = std::env::var_os("HOME")?;
    let p = Path::new(&home)
        .join(".cache/nart/models")
        .join(name)
        .join("model.onnx");
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipped: {} is missing", p.display());
        None
    }
}

#[test]
fn digits_cnn() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/models/digits_cnn/model.onnx");
    // Conv-Relu-MaxPool twice, then Flatten-Gemm. Without channels-last pools: both sides of
    // the first MaxPool, and the way into the second one, after which the model stays
    // channels-first. The input border is a Reshape: the input has one channel.
    // With them: only the way into the Flatten.
    assert_eq!(
        check(&path, &[PIPELINE_NO_POOLS, PIPELINE]),
        [(3, 2), (1, 0)]
    );
}

#[test]
fn resnet18() {
    let Some(path) = zoo("resnet18") else { return };
    // Without channels-last pools: the input border and both sides of the stem's MaxPool; the
    // exit after the global average pool is a Reshape of [1, 1, 1, 512].
    // With them: the input border only.
    assert_eq!(
        check(&path, &[PIPELINE_NO_POOLS, PIPELINE]),
        [(3, 1), (1, 0)]
    );
}

#[test]
fn mobilenetv2() {
    let Some(path) = zoo("mobilenetv2") else {
        return;
    };
    // No pool but the global one: only the input border is a Transpose, either way.
    assert_eq!(
        check(&path, &[PIPELINE_NO_POOLS, PIPELINE]),
        [(1, 0), (1, 0)]
    );
}
