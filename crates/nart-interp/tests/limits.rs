//! The bounds of a run (`Limits`): kernels that size tensors from their inputs' values, ops whose
//! static results do not fit, loops that never end or collect too much, and the memory-in-use
//! probe; each failure names the op and its location.

use nart_interp::{InterpError, Interpreter, Limits};
use nart_ir::Context;
use nart_tensor::{KernelError, Tensor};

const MIB: usize = 1 << 20;

/// Parses `text` (one function) and plans it with `limits`.
fn plan(text: &str, limits: Limits) -> Interpreter {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    nart_interp::register(&mut ctx);
    let m = nart_ir::parser::parse_source(&mut ctx, "t.mlir", text).expect("the test IR parses");
    nart_ir::verify::verify(&ctx, m).expect("the test IR verifies");
    let mut interp = Interpreter::from_module(&ctx, m, None).expect("plans");
    interp.set_limits(limits);
    interp
}

fn memory(max_memory: usize) -> Limits {
    Limits {
        max_memory,
        ..Limits::default()
    }
}

const CONSTANT_OF_SHAPE: &str = r#"
func.func @f(%s: tensor<1xi64>) -> tensor<?xf32> {
  %0 = "graph.ConstantOfShape"(%s) : (tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"#;

#[test]
fn a_kernel_checks_a_size_from_its_inputs_before_allocating() {
    let interp = plan(CONSTANT_OF_SHAPE, memory(MIB));
    let err = interp
        .run(vec![Tensor::vector(vec![1i64 << 30])])
        .expect_err("12 GiB is over the limit");
    let InterpError::Kernel { op, loc, error } = &err else {
        panic!("expected a kernel error, got {err:?}");
    };
    assert_eq!(
        (op.as_str(), loc.as_str()),
        ("graph.ConstantOfShape", "t.mlir:3:8")
    );
    assert!(matches!(error, KernelError::TooLarge { .. }), "{error:?}");
    assert!(
        err.to_string()
            .contains("needs 12.0 GiB, more than the 1.0 MiB the memory limit allows"),
        "{err}"
    );
    // Under the limit it runs; without a limit only absurd shapes fail.
    let out = interp.run(vec![Tensor::vector(vec![1000i64])]).unwrap();
    assert_eq!(out[0].shape(), &[1000]);
    let unlimited = plan(CONSTANT_OF_SHAPE, Limits::default());
    let err = unlimited
        .run(vec![Tensor::vector(vec![1i64 << 41])])
        .expect_err("2^41 elements is past MAX_ELEMENTS");
    assert!(err.to_string().contains("is too large"), "{err}");
}

#[test]
fn static_results_are_checked_before_the_op_runs() {
    let text = r#"
func.func @f() -> tensor<268435456xf32> {
  %s = "graph.constant"() <{value = dense<268435456> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "graph.ConstantOfShape"(%s) : (tensor<1xi64>) -> tensor<268435456xf32>
  return %0 : tensor<268435456xf32>
}
"#;
    let err = plan(text, memory(MIB))
        .run(vec![])
        .expect_err("1 GiB result");
    assert_eq!(
        err.to_string(),
        "t.mlir:4:8: 'graph.ConstantOfShape' needs 1.0 GiB for its results but the memory limit is 1.0 MiB"
    );
}

/// A Loop with no trip count whose condition stays true.
const ENDLESS: &str = r#"
func.func @f(%x: tensor<1xf32>) -> tensor<1xf32> {
  %none = "graph.none"() : () -> none
  %c = "graph.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %0 = "graph.Loop"(%none, %c, %x) ({
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<1xf32>):
    "graph.yield"(%ci, %v) : (tensor<i1>, tensor<1xf32>) -> ()
  }) : (none, tensor<i1>, tensor<1xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
"#;

#[test]
fn loops_stop_at_the_iteration_limit() {
    let limits = Limits {
        max_iterations: 1000,
        ..Limits::default()
    };
    let err = plan(ENDLESS, limits)
        .run(vec![Tensor::vector(vec![1f32])])
        .expect_err("the loop never ends");
    assert_eq!(
        err.to_string(),
        "t.mlir:5:8: 'graph.Loop' ran past the limit of 1000 loop iterations in one run"
    );
}

#[test]
fn loop_scan_outputs_count_against_the_memory_limit() {
    let text = r#"
func.func @f(%x: tensor<65536xf32>) -> tensor<?x65536xf32> {
  %m = "graph.constant"() <{value = dense<1000000> : tensor<i64>}> : () -> tensor<i64>
  %none = "graph.none"() : () -> none
  %0 = "graph.Loop"(%m, %none) ({
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>):
    "graph.yield"(%ci, %x) : (tensor<i1>, tensor<65536xf32>) -> ()
  }) : (tensor<i64>, none) -> tensor<?x65536xf32>
  return %0 : tensor<?x65536xf32>
}
"#;
    let err = plan(text, memory(MIB))
        .run(vec![Tensor::vector(vec![0f32; 65536])])
        .expect_err("a million 256 KiB scan outputs");
    assert_eq!(
        err.to_string(),
        "t.mlir:5:8: 'graph.Loop' collects 1.2 MiB of loop outputs but the memory limit is 1.0 MiB"
    );
}

/// A probe whose first reading (the run's start) is 0 and whose later readings are 100 bytes
/// short of the limit.
fn nearly_full() -> usize {
    static READINGS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    if READINGS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) == 0 {
        0
    } else {
        MIB - 100
    }
}

#[test]
fn the_memory_in_use_leaves_less_for_each_op() {
    let limits = Limits {
        max_memory: MIB,
        memory_in_use: Some(nearly_full),
        ..Limits::default()
    };
    let err = plan(CONSTANT_OF_SHAPE, limits)
        .run(vec![Tensor::vector(vec![1000i64])])
        .expect_err("only 100 bytes are left");
    assert!(
        err.to_string()
            .contains("needs 11.7 KiB, more than the 100 bytes the memory limit allows"),
        "{err}"
    );
}
