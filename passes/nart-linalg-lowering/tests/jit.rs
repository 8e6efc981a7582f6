//! End to end on the CPU: structured ops on memrefs, lowered by `convert-linalg-to-loops`,
//! translated to LLVM IR by `nart-llvm` and run in its JIT, give what the reference
//! interpreter gives for the matching graph op on the same inputs.

mod common;

use common::{desc, Desc};
use nart_interp::Interpreter;
use nart_ir::{Context, Op};
use nart_tensor::Tensor;

fn context() -> Context {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_cf::register(&mut ctx);
    nart_dialect_arith::register(&mut ctx);
    nart_dialect_math::register(&mut ctx);
    nart_dialect_scf::register(&mut ctx);
    nart_dialect_memref::register(&mut ctx);
    nart_dialect_tensor::register(&mut ctx);
    nart_dialect_linalg::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    nart_interp::register(&mut ctx);
    ctx
}

fn parse(ctx: &mut Context, text: &str) -> Op {
    let m = nart_ir::parser::parse_source(ctx, "t.mlir", text)
        .unwrap_or_else(|d| panic!("{}\n{text}", d[0].message));
    nart_ir::verify::verify(ctx, m).unwrap_or_else(|d| panic!("{}\n{text}", d[0].message));
    m
}

fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) % 2048) as f32 / 1024.0 - 1.0
        })
        .collect()
}

/// The interpreter's outputs of `graph` on `inputs` (with their shapes).
fn reference(graph: &str, inputs: &[(Vec<usize>, Vec<f32>)]) -> Vec<Vec<f64>> {
    let mut ctx = context();
    let m = parse(&mut ctx, graph);
    let tensors = inputs
        .iter()
        .map(|(s, d)| Tensor::from_vec(s.clone(), d.clone()).expect("tensor"))
        .collect();
    Interpreter::from_module(&ctx, m, None)
        .expect("the function plans")
        .run(tensors)
        .expect("the interpreter runs")
        .iter()
        .map(|t| t.to_f64_vec().expect("f64"))
        .collect()
}

/// `buffers` lowered to loops and compiled.
fn compile(buffers: &str) -> nart_llvm::Jit {
    let mut ctx = context();
    let m = parse(&mut ctx, buffers);
    let mut registry = nart_pass::PassRegistry::new();
    nart_linalg_lowering::register(&mut registry);
    let mut pm = nart_pass::PassManager::parse(
        "builtin.module(func.func(convert-linalg-to-loops))",
        &registry,
    )
    .expect("pipeline parses");
    let mut out = Vec::new();
    pm.run(&mut ctx, m, &mut out)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)));
    nart_llvm::jit_module(&ctx, m).expect("the loops compile")
}

fn addr(jit: &nart_llvm::Jit, name: &str) -> u64 {
    jit.lookup(&format!("{}{name}", nart_llvm::CIFACE_PREFIX))
        .expect("the C interface is there")
}

fn assert_close(got: &[f32], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: size");
    for (j, (&x, &y)) in got.iter().zip(want).enumerate() {
        assert!(
            (f64::from(x) - y).abs() <= 1e-5 + 1e-5 * y.abs(),
            "{what}: element {j}: JIT {x}, interpreter {y}"
        );
    }
}

#[test]
fn matmul_runs_as_the_interpreter_computes() {
    let jit = compile(
        r#"func.func @mm(%a: memref<7x5xf32>, %b: memref<5x6xf32>, %c: memref<7x6xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<7x6xf32>)
  linalg.matmul ins(%a, %b : memref<7x5xf32>, memref<5x6xf32>) outs(%c : memref<7x6xf32>)
  return
}"#,
    );
    // SAFETY: the C interface of @mm, three rank-2 descriptors.
    let f: extern "C" fn(*mut Desc<2>, *mut Desc<2>, *mut Desc<2>) =
        unsafe { std::mem::transmute(addr(&jit, "mm")) };
    for seed in 0..3 {
        let (mut a, mut b) = (data(35, seed), data(30, seed + 10));
        let want = reference(
            r#"func.func @f(%a: tensor<7x5xf32>, %b: tensor<5x6xf32>) -> tensor<7x6xf32> {
  %0 = "graph.MatMul"(%a, %b) : (tensor<7x5xf32>, tensor<5x6xf32>) -> tensor<7x6xf32>
  return %0 : tensor<7x6xf32>
}"#,
            &[(vec![7, 5], a.clone()), (vec![5, 6], b.clone())],
        );
        let mut c = vec![f32::NAN; 42];
        f(
            &mut desc(&mut a, [7, 5]),
            &mut desc(&mut b, [5, 6]),
            &mut desc(&mut c, [7, 6]),
        );
        assert_close(&c, &want[0], "matmul");
    }
}

#[test]
fn strided_dilated_conv_runs_as_the_interpreter_computes() {
    let jit = compile(
        r#"func.func @conv(%x: memref<1x3x9x8xf32>, %w: memref<4x3x3x2xf32>, %o: memref<1x4x4x6xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%o : memref<1x4x4x6xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %w : memref<1x3x9x8xf32>, memref<4x3x3x2xf32>) outs(%o : memref<1x4x4x6xf32>)
  return
}"#,
    );
    // SAFETY: the C interface of @conv, three rank-4 descriptors.
    let f: extern "C" fn(*mut Desc<4>, *mut Desc<4>, *mut Desc<4>) =
        unsafe { std::mem::transmute(addr(&jit, "conv")) };
    for seed in 0..2 {
        let (mut x, mut w) = (data(216, seed), data(72, seed + 5));
        let want = reference(
            r#"func.func @f(%x: tensor<1x3x9x8xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<1x4x4x6xf32> {
  %none = "graph.none"() : () -> none
  %0 = "graph.Conv"(%x, %w, %none) <{strides = array<i64: 2, 1>, dilations = array<i64: 1, 2>}> : (tensor<1x3x9x8xf32>, tensor<4x3x3x2xf32>, none) -> tensor<1x4x4x6xf32>
  return %0 : tensor<1x4x4x6xf32>
}"#,
            &[(vec![1, 3, 9, 8], x.clone()), (vec![4, 3, 3, 2], w.clone())],
        );
        let mut o = vec![f32::NAN; 96];
        f(
            &mut desc(&mut x, [1, 3, 9, 8]),
            &mut desc(&mut w, [4, 3, 3, 2]),
            &mut desc(&mut o, [1, 4, 4, 6]),
        );
        assert_close(&o, &want[0], "conv");
    }
}

#[test]
fn max_pooling_runs_as_the_interpreter_computes() {
    let jit = compile(
        r#"func.func @pool(%x: memref<1x2x5x5xf32>, %o: memref<1x2x2x2xf32>, %k: memref<3x3xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%o : memref<1x2x2x2xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %k : memref<1x2x5x5xf32>, memref<3x3xf32>) outs(%o : memref<1x2x2x2xf32>)
  return
}"#,
    );
    // SAFETY: the C interface of @pool: two rank-4 descriptors and a rank-2 one.
    let f: extern "C" fn(*mut Desc<4>, *mut Desc<4>, *mut Desc<2>) =
        unsafe { std::mem::transmute(addr(&jit, "pool")) };
    let mut x = data(50, 3);
    let want = reference(
        r#"func.func @f(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x2x2xf32> {
  %0, %1 = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>}> : (tensor<1x2x5x5xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  return %0 : tensor<1x2x2x2xf32>
}"#,
        &[(vec![1, 2, 5, 5], x.clone())],
    );
    let mut o = vec![f32::NAN; 8];
    let mut k = vec![0f32; 9];
    f(
        &mut desc(&mut x, [1, 2, 5, 5]),
        &mut desc(&mut o, [1, 2, 2, 2]),
        &mut desc(&mut k, [3, 3]),
    );
    assert_close(&o, &want[0], "max pool");
}
