//! `graph-optimize` on the models of `tests/models`: the optimized function computes what the
//! original computes (reference interpreter, seeded random inputs), has no more graph ops, and
//! survives the ONNX round trip (exported, imported again, same outputs).
//! `benches/graph/run.sh` compares the same models with ONNX Runtime, onnxslim and ORT's
//! optimizer.

mod common;

use std::path::Path;

use nart_interp::Interpreter;
use nart_ir::{Context, Op};
use nart_pass::{PassManager, PassRegistry};
use nart_tensor::Tensor;

use common::context;

/// Seeded inputs (see `common::inputs`), dynamic dimensions 2.
fn inputs(interp: &Interpreter, seed: u64) -> Vec<Tensor> {
    common::inputs(interp, seed, 2)
}

fn count_graph_ops(ctx: &Context, module: Op) -> usize {
    ctx.nested_ops(module)
        .into_iter()
        .filter(|&op| {
            let n = ctx.op_name_str(op);
            n.starts_with("graph.") && n != "graph.constant" && n != "graph.none"
        })
        .count()
}

fn assert_close(got: &[Tensor], want: &[Tensor], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.shape(), w.shape(), "{what}");
        let (g, w) = (g.to_f64_vec().unwrap(), w.to_f64_vec().unwrap());
        for (a, b) in g.iter().zip(&w) {
            assert!(
                a == b || (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
                "{what}: {a} != {b}"
            );
        }
    }
}

fn check_model(name: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/models")
        .join(name)
        .join("model.onnx");
    let mut ctx = context();
    let module = nart_onnx::import_file(&mut ctx, &path).expect("the model imports");
    let before_ops = count_graph_ops(&ctx, module);
    let interp = Interpreter::from_module(&ctx, module, None).expect("plan before");
    let ins = inputs(&interp, 7);
    let want = interp.run(ins.clone()).expect("run before");

    let mut registry = PassRegistry::new();
    nart_transforms::register(&mut registry);
    nart_graph_opt::register(&mut registry);
    nart_graph_fusion::register(&mut registry);
    let mut pm = PassManager::parse("builtin.module(graph-optimize)", &registry).unwrap();
    pm.run(&mut ctx, module, &mut Vec::new())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let after_ops = count_graph_ops(&ctx, module);
    assert!(
        after_ops <= before_ops,
        "{name}: {before_ops} → {after_ops} ops"
    );
    let interp = Interpreter::from_module(&ctx, module, None).expect("plan after");
    assert_close(&interp.run(ins.clone()).expect("run after"), &want, name);

    // The ONNX round trip keeps what the optimized function computes. A fused op is written as
    // ONNX Runtime's `com.microsoft.FusedConv`/`FusedGemm`, which the importer reads back as the
    // base op and its activation: one op more each.
    let fused = ctx
        .collect_ops(module, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .filter(|&op| ctx.op_name_str(op).starts_with("graph.fused_"))
        .count();
    let bytes = nart_onnx::export_model(&ctx, module).expect("the optimized model exports");
    let mut ctx2 = context();
    let module2 = nart_onnx::import_model(&mut ctx2, &bytes, None).expect("it imports again");
    assert_eq!(count_graph_ops(&ctx2, module2), after_ops + fused, "{name}");
    let interp = Interpreter::from_module(&ctx2, module2, None).expect("plan exported");
    assert_close(&interp.run(ins).expect("run exported"), &want, name);
}

#[test]
fn digits_cnn() {
    check_model("digits_cnn");
}

#[test]
fn digits_mlp() {
    check_model("digits_mlp");
}

#[test]
fn tiny_transformer() {
    check_model("tiny_transformer");
}
