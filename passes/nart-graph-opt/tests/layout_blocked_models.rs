//! `graph-layout{layout=nchw8c}` and `{layout=nchw16c}` on whole CNNs: `graph-optimize`, then
//! the layout pass, then `graph-optimize` again, as the channels-last test does. The result
//! computes what the original computes (reference interpreter, seeded inputs, within 1e-4), also
//! after the ONNX export (standard ops only) is imported again; every convolution is blocked, and
//! the `graph.reorder`s left are the region borders, counted and printed (`--nocapture`).
//!
//! The digits CNN is in `tests/models`; ResNet-18 and MobileNetV2 are read from
//! `~/.cache/nart/models` (`scripts/models/build_zoo.py`) and skipped when it is missing.

mod common;

use std::path::{Path, PathBuf};

use nart_interp::Interpreter;
use nart_ir::{Context, Op};
use nart_pass::{PassManager, PassRegistry};
use nart_tensor::Tensor;

use common::context;

fn count(ctx: &Context, module: Op, name: &str) -> usize {
    ctx.nested_ops(module)
        .into_iter()
        .filter(|&op| ctx.op_name_str(op) == name)
        .count()
}

fn close(what: &str, got: &[Tensor], want: &[Tensor]) {
    assert_eq!(got.len(), want.len());
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

/// Converts `path` to each block size of `blocks`, checks the values (before and after the ONNX
/// export) and that every convolution is blocked; returns the reorders left per block size.
fn check(path: &Path, blocks: &[i64]) -> Vec<usize> {
    let mut ctx = context();
    let module = nart_onnx::import_file(&mut ctx, path).expect("the model imports");
    let interp = Interpreter::from_module(&ctx, module, None).expect("plan before");
    let ins = common::inputs(&interp, 11, 1);
    let want = interp.run(ins.clone()).expect("run before");
    blocks
        .iter()
        .map(|&b| {
            let n = check_one(path, b, &ins, &want);
            eprintln!("{}: nchw{b}c leaves {n} reorders", path.display());
            n
        })
        .collect()
}

fn check_one(path: &Path, b: i64, ins: &[Tensor], want: &[Tensor]) -> usize {
    let mut ctx = context();
    let module = nart_onnx::import_file(&mut ctx, path).expect("the model imports");
    let mut registry = PassRegistry::new();
    nart_transforms::register(&mut registry);
    nart_graph_opt::register(&mut registry);
    nart_graph_fusion::register(&mut registry);
    let pipeline =
        format!("builtin.module(graph-optimize,graph-layout{{layout=nchw{b}c}},graph-optimize)");
    let mut pm = PassManager::parse(&pipeline, &registry).unwrap();
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
            Ok(nart_dialect_graph::fused::ConvLayout::Blocked(b)),
            "{printed}"
        );
    }

    let interp = Interpreter::from_module(&ctx, module, None).expect("plan after");
    close(
        "blocked",
        &interp.run(ins.to_vec()).expect("run after"),
        want,
    );

    // The ONNX export writes standard ops only; imported again, they compute the same.
    let bytes = nart_onnx::export_model(&ctx, module).expect("the model exports");
    let mut ctx2 = context();
    let module2 = nart_onnx::import_model(&mut ctx2, &bytes, None).expect("it imports again");
    for op in ctx2.nested_ops(module2) {
        let name = ctx2.op_name_str(op);
        assert!(
            !matches!(name, "graph.reorder" | "graph.pool" | "graph.fused_conv"),
            "the export holds {name}"
        );
    }
    let interp = Interpreter::from_module(&ctx2, module2, None).expect("plan exported");
    close(
        "exported",
        &interp.run(ins.to_vec()).expect("run exported"),
        want,
    );

    count(&ctx, module, "graph.reorder")
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
    // Conv-Relu-MaxPool twice, then Flatten-Gemm: the way in (one channel, padded to a block)
    // and the way into the Flatten.
    assert_eq!(check(&path, &[8, 16]), [2, 2]);
}

#[test]
fn resnet18() {
    let Some(path) = zoo("resnet18") else { return };
    // The way in and the way out after the global average pool.
    assert_eq!(check(&path, &[8, 16]), [2, 2]);
}

#[test]
fn mobilenetv2() {
    let Some(path) = zoo("mobilenetv2") else {
        return;
    };
    assert_eq!(check(&path, &[8, 16]), [2, 2]);
}
