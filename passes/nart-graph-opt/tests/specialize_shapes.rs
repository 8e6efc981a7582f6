//! `graph-specialize-shapes` on the models of `tests/models`: after specializing the batch
//! dimension `N` to 1 and running `graph-optimize`, every value in the module has a static
//! type, and the reference interpreter gives the same outputs as the original model on the
//! same N=1 input.

mod common;

use std::path::Path;

use nart_interp::Interpreter;
use nart_ir::{Context, Op, TypeData, WalkOrder, DYNAMIC};
use nart_pass::{PassManager, PassRegistry};
use nart_tensor::Tensor;

use common::context;

/// Seeded inputs (see `common::inputs`), dynamic dimensions 1.
fn inputs(interp: &Interpreter, seed: u64) -> Vec<Tensor> {
    common::inputs(interp, seed, 1)
}

/// The values of `module` (block arguments and op results) whose type is a tensor with a
/// dynamic dimension or no rank, printed.
fn dynamic_values(ctx: &Context, module: Op) -> Vec<String> {
    let mut out = Vec::new();
    let is_dynamic = |ty| match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, .. } => shape.contains(&DYNAMIC),
        TypeData::UnrankedTensor { .. } => true,
        _ => false,
    };
    for op in ctx.collect_ops(module, WalkOrder::PreOrder) {
        for &r in ctx.results(op) {
            if is_dynamic(ctx.value_type(r)) {
                out.push(format!("a result of {}", ctx.op_name_str(op)));
            }
        }
        for &region in ctx.regions(op) {
            for &b in ctx.region_blocks(region) {
                for &a in ctx.block_args(b) {
                    if is_dynamic(ctx.value_type(a)) {
                        out.push(format!("an argument of {}", ctx.op_name_str(op)));
                    }
                }
            }
        }
    }
    out
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
    assert!(
        !dynamic_values(&ctx, module).is_empty(),
        "{name} has a symbolic batch to start with"
    );
    let interp = Interpreter::from_module(&ctx, module, None).expect("plan before");
    let ins = inputs(&interp, 11);
    let want = interp.run(ins.clone()).expect("run before");

    let mut registry = PassRegistry::new();
    nart_transforms::register(&mut registry);
    nart_graph_opt::register(&mut registry);
    nart_graph_fusion::register(&mut registry);
    let mut pm = PassManager::parse(
        "builtin.module(graph-specialize-shapes{dims=N=1},graph-optimize)",
        &registry,
    )
    .unwrap();
    pm.run(&mut ctx, module, &mut Vec::new())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let left = dynamic_values(&ctx, module);
    assert!(left.is_empty(), "{name}: still dynamic: {left:?}");
    let interp = Interpreter::from_module(&ctx, module, None).expect("plan after");
    for spec in interp.inputs() {
        assert!(
            spec.shape.as_ref().unwrap().iter().all(Option::is_some),
            "{name}: the interpreter sees a static input"
        );
    }
    assert_close(&interp.run(ins).expect("run after"), &want, name);
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

/// The same options give the same printed module, run after run.
#[test]
fn deterministic() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/models/digits_cnn/model.onnx");
    let print = || {
        let mut ctx = context();
        let module = nart_onnx::import_file(&mut ctx, &path).expect("the model imports");
        let mut registry = PassRegistry::new();
        nart_graph_opt::register(&mut registry);
        let mut pm = PassManager::parse(
            "builtin.module(graph-specialize-shapes{shapes=input=3x1x8x8})",
            &registry,
        )
        .unwrap();
        pm.run(&mut ctx, module, &mut Vec::new()).unwrap();
        nart_ir::printer::print_op(&ctx, module, &Default::default())
    };
    let first = print();
    assert!(first.contains("tensor<3x1x8x8xf32>"), "{first}");
    assert_eq!(first, print());
}
