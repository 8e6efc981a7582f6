//! The graph ops `convert-graph-to-linalg` lowers beyond the CNN set, compiled by the cpu
//! target (linalg, buffers, loops, LLVM, a shared object) and run, against the reference
//! interpreter on the same seeded inputs: MatMul of every rank combination, LayerNormalization,
//! Gather, the Reduce* family, ArgMax/ArgMin, the elementwise math, Cast, comparisons, Where,
//! logic, Slice, Split, Pad and Expand. Skips without a C compiler (to link the code), unless
//! `NART_REQUIRE_CC=1`.

use nart_target::Target;
use nart_target_cpu::{lowering_context, CpuRuntime, CpuTarget};
use nart_target_rt::TargetRuntime;
use nart_tensor::{DType, Tensor};

fn cpu_here() -> bool {
    let ok = CpuTarget::host().availability().is_ok();
    assert!(
        ok || std::env::var_os("NART_REQUIRE_CC").is_none(),
        "NART_REQUIRE_CC is set but there is no C compiler"
    );
    ok
}

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// In `[-2, 2)`, on a grid of 1/64 so that sums are exact more often.
    fn f32(&mut self) -> f32 {
        (self.next() % 256) as f32 / 64.0 - 2.0
    }
}

/// Seeded inputs for the function's argument types: floats in `[-2, 2)`, integers in
/// `[lo, hi)`, booleans.
fn inputs(ctx: &nart_ir::Context, func: nart_ir::Op, seed: u64, lo: i64, hi: i64) -> Vec<Tensor> {
    let mut rng = Rng(seed);
    let block = ctx.region_blocks(ctx.region(func, 0))[0];
    ctx.block_args(block)
        .iter()
        .map(|&a| {
            let t = ctx.value_type(a);
            let shape: Vec<usize> = ctx
                .shape_of(t)
                .expect("a ranked tensor")
                .iter()
                .map(|&d| d as usize)
                .collect();
            let n: usize = shape.iter().product();
            let elem = nart_ir::printer::type_to_string(ctx, ctx.element_type(t));
            match elem.as_str() {
                "f32" => Tensor::from_vec(shape, (0..n).map(|_| rng.f32()).collect::<Vec<_>>()),
                "i1" => Tensor::from_i128(
                    DType::Bool,
                    shape,
                    (0..n).map(|_| (rng.next() % 2) as i128).collect(),
                ),
                "i32" | "i64" => Tensor::from_i128(
                    DType::from_name(&elem).unwrap(),
                    shape,
                    (0..n)
                        .map(|_| (lo + (rng.next() % (hi - lo) as u64) as i64) as i128)
                        .collect(),
                ),
                other => panic!("no inputs of {other}"),
            }
            .unwrap()
        })
        .collect()
}

/// Compiles `text` (one `func.func @main` of graph ops on static shapes) for the host, runs it
/// and the interpreter on seeded inputs (integers in `[lo, hi)`), and compares the outputs:
/// floats within `tol` (relative to the magnitude, at least 1), others exactly.
fn check_ints(text: &str, seeds: u64, lo: i64, hi: i64, tol: f32) {
    let target = CpuTarget::host();
    let (artifact, _) = target
        .compile_function_text(text, "case")
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let exe = CpuRuntime::new().load(&artifact).unwrap();
    let mut ctx = lowering_context();
    nart_interp::register(&mut ctx);
    let m = nart_ir::parser::parse_source(&mut ctx, "case.mlir", text).unwrap();
    let func = ctx
        .collect_ops(m, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .find(|&op| ctx.op_name_str(op) == "func.func")
        .unwrap();
    let interp = nart_interp::Interpreter::new(&ctx, func).unwrap();
    for seed in 0..seeds {
        let xs = inputs(&ctx, func, seed, lo, hi);
        let want = interp.run(xs.clone()).unwrap();
        let got = exe.run(&xs).unwrap();
        assert_eq!(got.len(), want.len());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g.shape(), w.shape(), "output #{k}\n{text}");
            assert_eq!(g.dtype(), w.dtype(), "output #{k}\n{text}");
            let (gv, wv) = (g.to_f64_vec().unwrap(), w.to_f64_vec().unwrap());
            for (j, (a, b)) in gv.iter().zip(&wv).enumerate() {
                let ok = if g.dtype().is_float() {
                    (a - b).abs() <= f64::from(tol) * b.abs().max(1.0) || (a.is_nan() && b.is_nan())
                } else {
                    a == b
                };
                assert!(
                    ok,
                    "seed {seed}, output #{k}, element {j}: cpu {a}, interpreter {b}\n{text}"
                );
            }
        }
    }
}

fn check(text: &str) {
    check_ints(text, 3, -4, 4, 1e-5);
}

/// `func.func @main(args) -> results` around `body` (which ends in `return`).
fn func(args: &str, results: &str, body: &str) -> String {
    format!("func.func @main({args}) -> ({results}) {{\n{body}\n}}\n")
}

#[test]
fn matmul_of_every_rank_combination() {
    if !cpu_here() {
        return;
    }
    for (a, b, y) in [
        ("2x3x4", "4x5", "2x3x5"),
        ("4", "4x5", "5"),
        ("3x4", "4", "3"),
        ("4", "4", ""),
        ("4", "2x4x5", "2x5"),
        ("2x1x3x4", "5x4x6", "2x5x3x6"),
        ("3x4", "2x4x5", "2x3x5"),
        ("2x3x4x5", "2x3x5x6", "2x3x4x6"),
        ("1x3x4", "2x4x2", "2x3x2"),
    ] {
        let t = |s: &str| {
            if s.is_empty() {
                "tensor<f32>".to_string()
            } else {
                format!("tensor<{s}xf32>")
            }
        };
        let (ta, tb, ty) = (t(a), t(b), t(y));
        check(&func(
            &format!("%a: {ta}, %b: {tb}"),
            &ty,
            &format!("  %0 = \"graph.MatMul\"(%a, %b) : ({ta}, {tb}) -> {ty}\n  return %0 : {ty}"),
        ));
    }
}

#[test]
fn layer_normalization_over_trailing_axes() {
    if !cpu_here() {
        return;
    }
    check(&func(
        "%x: tensor<2x3x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>",
        "tensor<2x3x8xf32>",
        r#"  %0, %m, %r = "graph.LayerNormalization"(%x, %s, %b) <{axis = -1 : i64, epsilon = 1.0e-5 : f32}> : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x3x8xf32>, none, none)
  return %0 : tensor<2x3x8xf32>"#,
    ));
    check(&func(
        "%x: tensor<2x3x4xf32>, %s: tensor<3x4xf32>",
        "tensor<2x3x4xf32>",
        r#"  %n = "graph.none"() : () -> none
  %0, %m, %r = "graph.LayerNormalization"(%x, %s, %n) <{axis = 1 : i64, epsilon = 1.0e-3 : f32}> : (tensor<2x3x4xf32>, tensor<3x4xf32>, none) -> (tensor<2x3x4xf32>, none, none)
  return %0 : tensor<2x3x4xf32>"#,
    ));
}

#[test]
fn gather_with_run_time_and_constant_indices() {
    if !cpu_here() {
        return;
    }
    // Run-time indices in [-5, 5): negative ones wrap.
    let axis0 = func(
        "%d: tensor<5x3xf32>, %i: tensor<2x4xi64>",
        "tensor<2x4x3xf32>",
        r#"  %0 = "graph.Gather"(%d, %i) <{axis = 0 : i64}> : (tensor<5x3xf32>, tensor<2x4xi64>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>"#,
    );
    check_ints(&axis0, 4, -5, 5, 0.0);
    let axis1 = func(
        "%d: tensor<2x5x3xf32>, %i: tensor<3xi32>",
        "tensor<2x3x3xf32>",
        r#"  %0 = "graph.Gather"(%d, %i) <{axis = -2 : i64}> : (tensor<2x5x3xf32>, tensor<3xi32>) -> tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>"#,
    );
    check_ints(&axis1, 4, -5, 5, 0.0);
    check(&func(
        "%d: tensor<4x6xf32>",
        "tensor<4x2xf32>",
        r#"  %i = "graph.constant"() <{value = dense<[5, -6]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "graph.Gather"(%d, %i) <{axis = 1 : i64}> : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>"#,
    ));
}

#[test]
fn gather_clamps_out_of_range_run_time_indices() {
    if !cpu_here() {
        return;
    }
    // Indices 7 and -9 on an axis of 5 read rows 4 and 0 (after wrapping -9 to -4, clamped).
    let text = func(
        "%d: tensor<5x2xf32>, %i: tensor<2xi64>",
        "tensor<2x2xf32>",
        r#"  %0 = "graph.Gather"(%d, %i) <{axis = 0 : i64}> : (tensor<5x2xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>"#,
    );
    let (artifact, _) = CpuTarget::host()
        .compile_function_text(&text, "case")
        .unwrap();
    let exe = CpuRuntime::new().load(&artifact).unwrap();
    let d = Tensor::from_vec(vec![5, 2], (0..10).map(|v| v as f32).collect::<Vec<_>>()).unwrap();
    let i = Tensor::from_vec(vec![2], vec![7i64, -9]).unwrap();
    let y = exe.run(&[d, i]).unwrap();
    assert_eq!(y[0].to_f32_vec().unwrap(), vec![8.0, 9.0, 0.0, 1.0]);
}

#[test]
fn reductions_with_axes_keepdims_and_noop() {
    if !cpu_here() {
        return;
    }
    let ops = [
        "ReduceSum",
        "ReduceMean",
        "ReduceMax",
        "ReduceMin",
        "ReduceProd",
        "ReduceL1",
        "ReduceL2",
        "ReduceSumSquare",
        "ReduceLogSumExp",
    ];
    for op in ops {
        // Axes as a constant input, keepdims = 0.
        check(&func(
            "%x: tensor<2x3x4xf32>",
            "tensor<3xf32>",
            &format!(
                r#"  %a = "graph.constant"() <{{value = dense<[0, -1]> : tensor<2xi64>}}> : () -> tensor<2xi64>
  %0 = "graph.{op}"(%x, %a) <{{keepdims = 0 : i64}}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>"#
            ),
        ));
        // No axes: everything, kept as ones.
        check(&func(
            "%x: tensor<2x3xf32>",
            "tensor<1x1xf32>",
            &format!(
                r#"  %n = "graph.none"() : () -> none
  %0 = "graph.{op}"(%x, %n) : (tensor<2x3xf32>, none) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>"#
            ),
        ));
    }
    // ReduceLogSum of positive values.
    check(&func(
        "%x: tensor<2x3xf32>",
        "tensor<2x1xf32>",
        r#"  %e = "graph.Exp"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = "graph.constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "graph.ReduceLogSum"(%e, %a) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>"#,
    ));
    // noop_with_empty_axes: the input.
    check(&func(
        "%x: tensor<2x3xf32>",
        "tensor<2x3xf32>",
        r#"  %n = "graph.none"() : () -> none
  %0 = "graph.ReduceSum"(%x, %n) <{noop_with_empty_axes = 1 : i64}> : (tensor<2x3xf32>, none) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>"#,
    ));
    // Integers.
    for op in [
        "ReduceSum",
        "ReduceMax",
        "ReduceMin",
        "ReduceProd",
        "ReduceL1",
    ] {
        check(&func(
            "%x: tensor<3x4xi64>",
            "tensor<3xi64>",
            &format!(
                r#"  %a = "graph.constant"() <{{value = dense<1> : tensor<1xi64>}}> : () -> tensor<1xi64>
  %0 = "graph.{op}"(%x, %a) <{{keepdims = 0 : i64}}> : (tensor<3x4xi64>, tensor<1xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>"#
            ),
        ));
    }
}

#[test]
fn arg_max_and_arg_min_with_ties() {
    if !cpu_here() {
        return;
    }
    for op in ["ArgMax", "ArgMin"] {
        for last in [0, 1] {
            // Integers in [-2, 2) tie often.
            check_ints(
                &func(
                    "%x: tensor<3x5xi32>",
                    "tensor<3x1xi64>",
                    &format!(
                        r#"  %0 = "graph.{op}"(%x) <{{axis = 1 : i64, select_last_index = {last} : i64}}> : (tensor<3x5xi32>) -> tensor<3x1xi64>
  return %0 : tensor<3x1xi64>"#
                    ),
                ),
                4,
                -2,
                2,
                0.0,
            );
            check(&func(
                "%x: tensor<4x3x2xf32>",
                "tensor<3x2xi64>",
                &format!(
                    r#"  %0 = "graph.{op}"(%x) <{{axis = 0 : i64, keepdims = 0 : i64, select_last_index = {last} : i64}}> : (tensor<4x3x2xf32>) -> tensor<3x2xi64>
  return %0 : tensor<3x2xi64>"#
                ),
            ));
        }
    }
}

#[test]
fn unary_math_and_pow() {
    if !cpu_here() {
        return;
    }
    for op in [
        "Abs",
        "Neg",
        "Floor",
        "Ceil",
        "Round",
        "Sign",
        "Gelu",
        "HardSigmoid",
        "HardSwish",
    ] {
        check(&func(
            "%x: tensor<3x4xf32>",
            "tensor<3x4xf32>",
            &format!(
                r#"  %0 = "graph.{op}"(%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>"#
            ),
        ));
    }
    for op in ["Sqrt", "Reciprocal", "Log"] {
        check(&func(
            "%x: tensor<3x4xf32>",
            "tensor<3x4xf32>",
            &format!(
                r#"  %a = "graph.Abs"(%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %e = "graph.constant"() <{{value = dense<0.25> : tensor<f32>}}> : () -> tensor<f32>
  %p = "graph.Add"(%a, %e) : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %0 = "graph.{op}"(%p) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>"#
            ),
        ));
    }
    for op in ["Abs", "Neg", "Sign"] {
        check(&func(
            "%x: tensor<7xi64>",
            "tensor<7xi64>",
            &format!(
                r#"  %0 = "graph.{op}"(%x) : (tensor<7xi64>) -> tensor<7xi64>
  return %0 : tensor<7xi64>"#
            ),
        ));
    }
    check(&func(
        "%x: tensor<3x4xf32>, %y: tensor<4xf32>",
        "tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>",
        r#"  %a = "graph.Abs"(%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %0 = "graph.Pow"(%a, %y) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %two = "graph.constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %1 = "graph.Pow"(%x, %two) : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %three = "graph.constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
  %2 = "graph.Pow"(%x, %three) : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>"#,
    ));
    check(&func(
        "%x: tensor<3x4xf32>",
        "tensor<3x4xf32>",
        r#"  %0 = "graph.Gelu"(%x) <{approximate = "tanh"}> : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>"#,
    ));
}

#[test]
fn casts_comparisons_where_and_logic() {
    if !cpu_here() {
        return;
    }
    check(&func(
        "%x: tensor<2x5xf32>",
        "tensor<2x5xi32>, tensor<2x5xi64>, tensor<2x5xf32>, tensor<2x5xi1>, tensor<2x5xf32>",
        r#"  %k = "graph.constant"() <{value = dense<2.5> : tensor<f32>}> : () -> tensor<f32>
  %y = "graph.Mul"(%x, %k) : (tensor<2x5xf32>, tensor<f32>) -> tensor<2x5xf32>
  %0 = "graph.Cast"(%y) <{to = 6 : i64}> : (tensor<2x5xf32>) -> tensor<2x5xi32>
  %1 = "graph.Cast"(%0) <{to = 7 : i64}> : (tensor<2x5xi32>) -> tensor<2x5xi64>
  %2 = "graph.Cast"(%1) <{to = 1 : i64}> : (tensor<2x5xi64>) -> tensor<2x5xf32>
  %3 = "graph.Cast"(%0) <{to = 9 : i64}> : (tensor<2x5xi32>) -> tensor<2x5xi1>
  %4 = "graph.Cast"(%3) <{to = 1 : i64}> : (tensor<2x5xi1>) -> tensor<2x5xf32>
  return %0, %1, %2, %3, %4 : tensor<2x5xi32>, tensor<2x5xi64>, tensor<2x5xf32>, tensor<2x5xi1>, tensor<2x5xf32>"#,
    ));
    for op in ["Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"] {
        for ty in ["f32", "i64"] {
            check(&func(
                &format!("%a: tensor<3x4x{ty}>, %b: tensor<4x{ty}>"),
                "tensor<3x4xi1>",
                &format!(
                    r#"  %0 = "graph.{op}"(%a, %b) : (tensor<3x4x{ty}>, tensor<4x{ty}>) -> tensor<3x4xi1>
  return %0 : tensor<3x4xi1>"#
                ),
            ));
        }
    }
    check(&func(
        "%c: tensor<3x1xi1>, %a: tensor<3x4xf32>, %b: tensor<4xf32>",
        "tensor<3x4xf32>",
        r#"  %0 = "graph.Where"(%c, %a, %b) : (tensor<3x1xi1>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>"#,
    ));
    check(&func(
        "%a: tensor<2x3xi1>, %b: tensor<3xi1>",
        "tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>",
        r#"  %0 = "graph.And"(%a, %b) : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  %1 = "graph.Or"(%a, %b) : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  %2 = "graph.Xor"(%a, %b) : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  %3 = "graph.Not"(%a) : (tensor<2x3xi1>) -> tensor<2x3xi1>
  return %0, %1, %2, %3 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>"#,
    ));
    check(&func(
        "%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xf32>",
        "tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>",
        r#"  %0 = "graph.Max"(%a, %b, %c) : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %1 = "graph.Min"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = "graph.Sum"(%a, %b, %c) : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %3 = "graph.Mean"(%a, %c) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %4 = "graph.Identity"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>"#,
    ));
}

#[test]
fn slices_splits_pads_and_expand() {
    if !cpu_here() {
        return;
    }
    let c = |name: &str, v: &str| {
        format!(
            "  %{name} = \"graph.constant\"() <{{value = dense<{v}> : tensor<{}xi64>}}> : () -> tensor<{}xi64>\n",
            v.split(',').count(),
            v.split(',').count()
        )
    };
    // Negative steps, clamped ends, an axis counted from the end.
    let mut body = String::new();
    body += &c("s", "[-1, 1]");
    body += &c("e", "[-100, 1000]");
    body += &c("a", "[2, -2]");
    body += &c("t", "[-2, 2]");
    body += r#"  %0 = "graph.Slice"(%x, %s, %e, %a, %t) : (tensor<2x5x7xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x2x4xf32>
  return %0 : tensor<2x2x4xf32>"#;
    check(&func("%x: tensor<2x5x7xf32>", "tensor<2x2x4xf32>", &body));
    let mut body = String::new();
    body += &c("sp", "[1, 4, 2]");
    body += r#"  %0:3 = "graph.Split"(%x, %sp) <{axis = 1 : i64}> : (tensor<2x7xf32>, tensor<3xi64>) -> (tensor<2x1xf32>, tensor<2x4xf32>, tensor<2x2xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x1xf32>, tensor<2x4xf32>, tensor<2x2xf32>"#;
    check(&func(
        "%x: tensor<2x7xf32>",
        "tensor<2x1xf32>, tensor<2x4xf32>, tensor<2x2xf32>",
        &body,
    ));
    // Positive and negative pads (a crop), a constant value.
    let mut body = String::new();
    body += &c("p", "[1, -1, 2, 0]");
    body += r#"  %v = "graph.constant"() <{value = dense<1.5> : tensor<f32>}> : () -> tensor<f32>
  %n = "graph.none"() : () -> none
  %0 = "graph.Pad"(%x, %p, %v, %n) : (tensor<3x4xf32>, tensor<4xi64>, tensor<f32>, none) -> tensor<6x3xf32>
  return %0 : tensor<6x3xf32>"#;
    check(&func("%x: tensor<3x4xf32>", "tensor<6x3xf32>", &body));
    let mut body = String::new();
    body += &c("s", "[2, 3, 4]");
    body += r#"  %0 = "graph.Expand"(%x, %s) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>"#;
    check(&func("%x: tensor<3x1xf32>", "tensor<2x3x4xf32>", &body));
}

/// Found by scripts/conformance/cpu_key_ops.py: a reshape of a tensor with no elements
/// recursed without end in the lowering; it is an empty tensor now.
#[test]
fn reshapes_of_empty_tensors() {
    if !cpu_here() {
        return;
    }
    check(&func(
        "%x: tensor<0x3x4xf32>",
        "tensor<3x4x0xf32>",
        r#"  %s = "graph.constant"() <{value = dense<[3, 4, 0]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %0 = "graph.Reshape"(%x, %s) <{allowzero = 1 : i64}> : (tensor<0x3x4xf32>, tensor<3xi64>) -> tensor<3x4x0xf32>
  return %0 : tensor<3x4x0xf32>"#,
    ));
}

/// Found by scripts/conformance/cpu_key_ops.py: the target accepted a LayerNormalization whose
/// Mean the model reads and a MaxPool whose Indices it reads (both lowered since), then failed
/// to lower it; the trial lowering now returns the results the model uses, so such an op (here
/// an inference-mode BatchNormalization whose running mean is read) is refused with the reason
/// and falls back.
#[test]
fn used_optional_results_that_are_not_lowered_are_refused() {
    if !cpu_here() {
        return;
    }
    let mut ctx = lowering_context();
    let text = r#"func.func @main(%x: tensor<1x2x4x4xf32>, %p: tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<2xf32>) {
  %0, %m, %v = "graph.BatchNormalization"(%x, %p, %p, %p, %p) : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>)
  return %0, %m : tensor<1x2x4x4xf32>, tensor<2xf32>
}
"#;
    let m = nart_ir::parser::parse_source(&mut ctx, "case.mlir", text).unwrap();
    let norm = ctx
        .collect_ops(m, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .find(|&op| ctx.op_name_str(op) == "graph.BatchNormalization")
        .unwrap();
    match CpuTarget::host().supports(&ctx, norm) {
        nart_target::Support::Refused(r) => {
            let why = r.to_string();
            assert!(why.contains("optional result"), "{why}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// LayerNormalization's Mean and InvStdDev, when the model reads them.
#[test]
fn layer_normalization_mean_and_inverse_deviation() {
    if !cpu_here() {
        return;
    }
    for (axis, m) in [(-1, "2x3x1"), (1, "2x1x1"), (0, "1x1x1")] {
        check(&func(
            "%x: tensor<2x3x8xf32>, %s: tensor<8xf32>",
            &format!("tensor<2x3x8xf32>, tensor<{m}xf32>, tensor<{m}xf32>"),
            &format!(
                r#"  %n = "graph.none"() : () -> none
  %0, %m, %r = "graph.LayerNormalization"(%x, %s, %n) <{{axis = {axis} : i64, epsilon = 1.0e-5 : f32}}> : (tensor<2x3x8xf32>, tensor<8xf32>, none) -> (tensor<2x3x8xf32>, tensor<{m}xf32>, tensor<{m}xf32>)
  return %0, %m, %r : tensor<2x3x8xf32>, tensor<{m}xf32>, tensor<{m}xf32>"#
            ),
        ));
    }
}
