//! The pass on the model zoo's small models: the output verifies, computes what the input
//! computes (and what the model's reference output says) on its test data, never costs more,
//! and is byte-identical from run to run.

mod common;

use std::path::{Path, PathBuf};

use nart_egraph::{optimize_function, FlopsBytes, Limits, TargetCost};
use nart_ir::{Context, Op};
use nart_pass::{PassManager, PassRegistry};

fn model_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/models")
        .join(name)
}

fn load(name: &str) -> (Context, Op, Op) {
    let mut ctx = Context::new();
    let module = nart_onnx::import_file(&mut ctx, &model_dir(name).join("model.onnx"))
        .unwrap_or_else(|_| panic!("{name} imports"));
    nart_interp::register(&mut ctx);
    let func = common::first_function(&ctx, module);
    (ctx, module, func)
}

/// Runs `builtin.module(func.func(egraph-optimize{opts}))` and returns the printed module.
fn optimize(name: &str, opts: &str) -> (Context, Op, String) {
    let (mut ctx, module, func) = load(name);
    let mut registry = PassRegistry::new();
    nart_egraph::register(&mut registry);
    let pipeline = format!("builtin.module(func.func(egraph-optimize{{{opts}}}))");
    let mut pm = PassManager::parse(&pipeline, &registry).expect("the pipeline parses");
    pm.run(&mut ctx, module, &mut std::io::sink())
        .unwrap_or_else(|e| panic!("{name}: the pass runs: {e:?}"));
    let text = common::print(&ctx, module);
    (ctx, func, text)
}

fn check_model(name: &str) {
    let dir = model_dir(name).join("test_data_set_0");
    let x = nart_quant::dataset::read_tensor(&dir.join("input_0.pb")).unwrap();
    let reference = nart_quant::dataset::read_tensor(&dir.join("output_0.pb")).unwrap();
    let (ctx0, _, f0) = load(name);
    let before = common::run(&ctx0, f0, std::slice::from_ref(&x));

    let (ctx, func, text) = optimize(name, "");
    let after = common::run(&ctx, func, std::slice::from_ref(&x));
    common::assert_close(&before, &after, &format!("{name}: optimized vs input"));
    common::assert_close(
        &[reference],
        &after[..1],
        &format!("{name}: vs reference output"),
    );

    let (_, _, again) = optimize(name, "");
    assert!(text == again, "{name}: two runs print the same module");
}

#[test]
fn digits_cnn() {
    check_model("digits_cnn");
}

#[test]
fn tiny_transformer() {
    check_model("tiny_transformer");
}

/// The result never costs more than the input, under the default model and a target's.
#[test]
fn never_costs_more() {
    for name in ["digits_cnn", "tiny_transformer"] {
        let (mut ctx, _, func) = load(name);
        let out = optimize_function(&mut ctx, func, &FlopsBytes, Limits::default()).unwrap();
        assert!(out.cost_after <= out.cost_before, "{name}: {out:?}");
        let registry = nart_target::TargetRegistry::builtin();
        let interp = registry.get("interp").unwrap();
        let (mut ctx, _, func) = load(name);
        let out =
            optimize_function(&mut ctx, func, &TargetCost(interp), Limits::default()).unwrap();
        assert!(
            out.cost_after <= out.cost_before,
            "{name} on interp: {out:?}"
        );
    }
}

/// A cost model where launching an op is all that costs, and a Split is a view (free).
struct PerOp;

impl nart_egraph::GraphCost for PerOp {
    fn op_cost(&self, ctx: &Context, op: Op) -> Option<f64> {
        Some(if ctx.op_name_str(op) == "graph.Split" {
            0.0
        } else {
            1.0
        })
    }
    fn unit(&self) -> &'static str {
        "ops"
    }
}

/// The transformer's Q, K and V projections share their input. Under FLOPs and bytes the
/// merge does not pay (the Split moves the outputs once more), so the default keeps them;
/// under a model where launches cost and a Split is a view it does, and the pass writes one MatMul for
/// several, then a Split, computing the same outputs.
#[test]
fn transformer_projections_merge_when_ops_are_expensive() {
    let dir = model_dir("tiny_transformer").join("test_data_set_0");
    let x = nart_quant::dataset::read_tensor(&dir.join("input_0.pb")).unwrap();
    let (ctx0, module0, f0) = load("tiny_transformer");
    let input = common::print(&ctx0, module0);
    let before = common::run(&ctx0, f0, std::slice::from_ref(&x));

    let (mut ctx, module, func) = load("tiny_transformer");
    let out = optimize_function(&mut ctx, func, &PerOp, Limits::default()).unwrap();
    assert!(out.changed);
    assert!(
        out.fired.iter().any(|(n, _)| *n == "merge-matmul"),
        "{:?}",
        out.fired
    );
    nart_ir::verify::verify(&ctx, module).expect("verifies");
    let text = common::print(&ctx, module);
    let count = |t: &str, op: &str| t.matches(&format!("\"{op}\"")).count();
    assert!(
        count(&text, "graph.Split") > 0,
        "a Split was written: {out:?}"
    );
    assert!(
        count(&text, "graph.MatMul") < count(&input, "graph.MatMul"),
        "fewer MatMuls than the input's {}",
        count(&input, "graph.MatMul")
    );
    let after = common::run(&ctx, func, std::slice::from_ref(&x));
    common::assert_close(&before, &after, "merged projections");
}

/// Options: bad limits and an unknown target are located errors, not panics.
#[test]
fn bad_options_fail_cleanly() {
    for opts in [
        "node-limit=0",
        "iter-limit=-1",
        "time-limit-ms=0",
        "target=nope",
    ] {
        let (mut ctx, module, _) = load("digits_cnn");
        let mut registry = PassRegistry::new();
        nart_egraph::register(&mut registry);
        let pipeline = format!("builtin.module(func.func(egraph-optimize{{{opts}}}))");
        let mut pm = PassManager::parse(&pipeline, &registry).expect("the pipeline parses");
        let err = pm.run(&mut ctx, module, &mut std::io::sink());
        assert!(err.is_err(), "{opts} fails");
    }
}
