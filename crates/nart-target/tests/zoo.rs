//! The committed models through the targets: each model as one `interp` segment, split between
//! the test chip and `interp`, and compiled into `target.compiled` ops, computes exactly what
//! the interpreter computes on the original function; compiled modules print and parse back.

mod common;

use std::path::Path;

use common::run_partitioned;
use nart_interp::Interpreter;
use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::{Context, Op};
use nart_target::compile::compile_segments;
use nart_target::partition::partition_function;
use nart_target::testing::registry_with_test_targets;
use nart_target::{Setup, TargetRegistry};
use nart_tensor::{DType, Tensor};

fn import(name: &str) -> (Context, Op, Op) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/models")
        .join(name)
        .join("model.onnx");
    let mut ctx = Context::new();
    let module =
        nart_onnx::import_file(&mut ctx, &path).unwrap_or_else(|d| panic!("{}", d[0].message));
    nart_interp::register(&mut ctx);
    let block = ctx.region_blocks(ctx.region(module, 0))[0];
    let func = ctx.block_ops(block)[0];
    (ctx, module, func)
}

/// Deterministic inputs of the declared types, with dynamic dimensions of 2.
fn inputs(interp: &Interpreter) -> Vec<Tensor> {
    interp
        .inputs()
        .iter()
        .map(|spec| {
            let shape: Vec<usize> = spec
                .shape
                .as_ref()
                .unwrap()
                .iter()
                .map(|d| d.unwrap_or(2))
                .collect();
            let n: usize = shape.iter().product();
            match spec.dtype.unwrap() {
                DType::F32 => Tensor::from_vec(
                    shape,
                    (0..n).map(|k| ((k * 37 % 101) as f32) / 101.0).collect(),
                )
                .unwrap(),
                DType::I64 => {
                    Tensor::from_vec(shape, (0..n).map(|k| (k * 7 % 100) as i64).collect()).unwrap()
                }
                other => panic!("no input of {other}"),
            }
        })
        .collect()
}

fn check(name: &str, registry: &TargetRegistry, targets: &[&str], min_segments: usize) {
    let (mut ctx, module, func) = import(name);
    let interp = Interpreter::new(&ctx, func).unwrap();
    let ins = inputs(&interp);
    let want = interp.run(ins.clone()).unwrap();
    let names: Vec<String> = targets.iter().map(|s| s.to_string()).collect();
    let setup = Setup::resolve(registry, &names, &[]).unwrap();
    let out = partition_function(&mut ctx, func, &setup).unwrap();
    nart_ir::verify::verify(&ctx, module).unwrap_or_else(|d| panic!("{name}: {}", d[0].message));
    assert!(
        out.segment_ops.len() >= min_segments,
        "{name}: {} segments",
        out.segment_ops.len()
    );
    let got = run_partitioned(&mut ctx, func, registry, &ins);
    assert_eq!(got, want, "{name} on {targets:?}");

    // Compiled: every segment becomes a target.compiled whose artifact runs the same.
    let n = compile_segments(&mut ctx, module, registry).unwrap();
    assert_eq!(n, out.segment_ops.len());
    nart_ir::verify::verify(&ctx, module).unwrap();
    let got = run_partitioned(&mut ctx, func, registry, &ins);
    assert_eq!(got, want, "{name} compiled on {targets:?}");
    // The artifacts (MLIR text with quotes and newlines) survive printing and parsing.
    let text = print_op(&ctx, module, &PrintOptions::default());
    let mut again = Context::new();
    for r in [
        nart_dialect_func::register as fn(&mut Context),
        nart_dialect_graph::register,
        nart_dialect_quant::register,
        nart_dialect_target::register,
    ] {
        r(&mut again);
    }
    let m2 = nart_ir::parser::parse_source(&mut again, "compiled.mlir", &text)
        .unwrap_or_else(|d| panic!("{}", d[0].message));
    assert_eq!(print_op(&again, m2, &PrintOptions::default()), text);
}

#[test]
fn zoo_models_as_one_interp_segment() {
    let r = TargetRegistry::builtin();
    for name in ["digits_mlp", "digits_cnn", "tiny_transformer"] {
        check(name, &r, &[], 1);
    }
}

#[test]
fn zoo_models_split_between_the_test_chip_and_interp() {
    let r = registry_with_test_targets();
    // digits_cnn: Conv, Relu, MaxPool on the chip; Flatten on interp; Gemm on the chip.
    check("digits_cnn", &r, &["test-f32"], 3);
    // The transformer's Adds go to the chip, the rest to interp: many segments.
    check("tiny_transformer", &r, &["test-f32"], 5);
}
