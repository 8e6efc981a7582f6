//! Every rewrite of this crate, checked by evaluation: for random shapes and random inputs, the
//! function before and after the pass gives the same outputs in the reference interpreter
//! (within float tolerance), and the rewrite really happened (the op it removes is gone, or
//! the op count dropped).
//!
//! Each case is a function template: given a random source it returns MLIR text with random
//! dimensions (and random constants where the rewrite reads them).

use nart_interp::Interpreter;
use nart_ir::{Context, Op, RewritePattern};
use nart_pass::{PassManager, PassRegistry};
use nart_tensor::{DType, Tensor};

/// A small deterministic random source (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// An integer in `lo..=hi`.
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    /// A float in `[lo, hi)`.
    fn float(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (self.next() >> 11) as f64 / (1u64 << 53) as f64 * (hi - lo)
    }
    /// A dense literal of random floats nested as `shape` says.
    fn nested(&mut self, shape: &[i64], lo: f64, hi: f64) -> String {
        match shape {
            [] => format!("{:.4}", self.float(lo, hi)),
            [n] => self.floats(*n, lo, hi),
            [n, rest @ ..] => {
                let v: Vec<String> = (0..*n).map(|_| self.nested(rest, lo, hi)).collect();
                format!("[{}]", v.join(", "))
            }
        }
    }
    /// A dense literal of `n` random floats.
    fn floats(&mut self, n: i64, lo: f64, hi: f64) -> String {
        let v: Vec<String> = (0..n)
            .map(|_| format!("{:.4}", self.float(lo, hi)))
            .collect();
        format!("[{}]", v.join(", "))
    }
}

fn context() -> Context {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    nart_interp::register(&mut ctx);
    ctx
}

fn registry() -> PassRegistry {
    let mut r = PassRegistry::new();
    nart_transforms::register(&mut r);
    nart_graph_opt::register(&mut r);
    nart_graph_fusion::register(&mut r);
    r
}

/// Random inputs for every argument of the function (floats in [-2, 2), integers in [-5, 5]).
fn inputs(interp: &Interpreter, rng: &mut Rng) -> Vec<Tensor> {
    interp
        .inputs()
        .iter()
        .map(|spec| {
            let shape: Vec<usize> = spec
                .shape
                .as_ref()
                .expect("test inputs are ranked")
                .iter()
                .map(|d| d.expect("test inputs are static"))
                .collect();
            let n: usize = shape.iter().product();
            let dtype = spec.dtype.expect("test inputs have an element type");
            let values: Vec<f64> = (0..n)
                .map(|_| match dtype {
                    DType::F16 | DType::BF16 | DType::F32 | DType::F64 => rng.float(-2.0, 2.0),
                    _ => rng.int(-5, 5) as f64,
                })
                .collect();
            Tensor::from_f64(dtype, shape, values).expect("a random input tensor")
        })
        .collect()
}

fn graph_op_names(ctx: &Context, module: Op) -> Vec<String> {
    ctx.nested_ops(module)
        .into_iter()
        .map(|op| ctx.op_name_str(op).to_string())
        .filter(|n| n.starts_with("graph.") && n != "graph.constant" && n != "graph.none")
        .collect()
}

/// Runs `pipeline` on `text` and checks that outputs agree and that `gone` no longer appears
/// (or, when `gone` is empty, that there are fewer graph ops).
fn check(text: &str, pipeline: &str, gone: &str, rng: &mut Rng) {
    let mut ctx = context();
    let module = nart_ir::parser::parse_source(&mut ctx, "case.mlir", text)
        .unwrap_or_else(|e| panic!("{text}\n{e:?}"));
    nart_ir::verify::verify(&ctx, module).unwrap_or_else(|e| panic!("{text}\n{e:?}"));
    let before_ops = graph_op_names(&ctx, module);
    let interp = Interpreter::from_module(&ctx, module, None).expect("plan before");
    let ins = inputs(&interp, rng);
    let expected = interp.run(ins.clone()).expect("run before");
    let mut pm = PassManager::parse(pipeline, &registry()).expect("pipeline");
    pm.run(&mut ctx, module, &mut Vec::new())
        .unwrap_or_else(|e| panic!("{text}\n{e}: {:?}", e.diagnostics()));
    let after_ops = graph_op_names(&ctx, module);
    let printed = nart_ir::printer::print_op(&ctx, module, &Default::default());
    if gone.is_empty() {
        assert!(
            after_ops.len() < before_ops.len(),
            "nothing was rewritten:\n{printed}"
        );
    } else {
        assert!(
            !after_ops.iter().any(|n| n == gone),
            "{gone} is still there:\n{printed}"
        );
    }
    let interp = Interpreter::from_module(&ctx, module, None).expect("plan after");
    let got = interp.run(ins).expect("run after");
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(&expected) {
        assert_eq!(g.shape(), e.shape(), "{printed}");
        assert_eq!(g.dtype(), e.dtype(), "{printed}");
        let (g, e) = (g.to_f64_vec().unwrap(), e.to_f64_vec().unwrap());
        for (a, b) in g.iter().zip(&e) {
            assert!(
                a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
                "{a} != {b}\nbefore:\n{text}\nafter:\n{printed}"
            );
        }
    }
}

/// Runs `case` for several seeds.
fn cases(pipeline: &str, gone: &str, case: impl Fn(&mut Rng) -> String) {
    for seed in 1..=8u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let text = case(&mut rng);
        check(&text, pipeline, gone, &mut rng);
    }
}

const FOLD: &str = "builtin.module(graph-fold-constants)";
const SIMPLIFY: &str = "builtin.module(graph-simplify)";
const BN: &str = "builtin.module(graph-fold-batchnorm)";
const PAD: &str = "builtin.module(graph-fold-pad)";
const TRANSPOSE: &str = "builtin.module(graph-transpose-opt)";

// ----- graph-fold-constants -----

#[test]
fn fold_constant_subgraph() {
    cases(FOLD, "graph.Mul", |r| {
        let n = r.int(1, 6);
        let (a, b) = (r.floats(n, -3.0, 3.0), r.floats(n, -3.0, 3.0));
        format!(
            "func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %a = \"graph.constant\"() <{{value = dense<{a}> : tensor<{n}xf32>}}> : () -> tensor<{n}xf32>
  %b = \"graph.constant\"() <{{value = dense<{b}> : tensor<{n}xf32>}}> : () -> tensor<{n}xf32>
  %m = \"graph.Mul\"(%a, %b) : (tensor<{n}xf32>, tensor<{n}xf32>) -> tensor<{n}xf32>
  %e = \"graph.Exp\"(%m) : (tensor<{n}xf32>) -> tensor<{n}xf32>
  %y = \"graph.Add\"(%x, %e) : (tensor<{n}xf32>, tensor<{n}xf32>) -> tensor<{n}xf32>
  return %y : tensor<{n}xf32>
}}"
        )
    });
}

// ----- graph-simplify -----

/// `x op c → x` for a neutral constant `c` of a random broadcastable shape.
fn neutral(op: &str, value: f64, lhs_const: bool) {
    cases(SIMPLIFY, &format!("graph.{op}"), |r| {
        let (m, n) = (r.int(1, 4), r.int(1, 5));
        let cshape = match r.int(0, 2) {
            0 => format!("{n}"),
            1 => "1x1".to_string(),
            _ => format!("1x{n}"),
        };
        let (lhs, rhs, lt, rt) = if lhs_const {
            (
                "%c",
                "%x",
                format!("tensor<{cshape}xf32>"),
                format!("tensor<{m}x{n}xf32>"),
            )
        } else {
            (
                "%x",
                "%c",
                format!("tensor<{m}x{n}xf32>"),
                format!("tensor<{cshape}xf32>"),
            )
        };
        format!(
            "func.func @f(%x: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %c = \"graph.constant\"() <{{value = dense<{value:.1}> : tensor<{cshape}xf32>}}> : () -> tensor<{cshape}xf32>
  %y = \"graph.{op}\"({lhs}, {rhs}) : ({lt}, {rt}) -> tensor<{m}x{n}xf32>
  return %y : tensor<{m}x{n}xf32>
}}"
        )
    });
}

#[test]
fn add_zero() {
    neutral("Add", 0.0, false);
    neutral("Add", 0.0, true);
}

#[test]
fn sub_zero() {
    neutral("Sub", 0.0, false);
}

#[test]
fn mul_one() {
    neutral("Mul", 1.0, false);
    neutral("Mul", 1.0, true);
}

#[test]
fn div_one() {
    neutral("Div", 1.0, false);
}

#[test]
fn pow_one() {
    neutral("Pow", 1.0, false);
}

#[test]
fn identity_and_dropout() {
    cases(SIMPLIFY, "graph.Dropout", |r| {
        let n = r.int(1, 9);
        format!(
            "func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %i = \"graph.Identity\"(%x) : (tensor<{n}xf32>) -> tensor<{n}xf32>
  %z = \"graph.none\"() : () -> none
  %d:2 = \"graph.Dropout\"(%i, %z, %z) : (tensor<{n}xf32>, none, none) -> (tensor<{n}xf32>, tensor<{n}xi1>)
  return %d#0 : tensor<{n}xf32>
}}"
        )
    });
}

#[test]
fn reshape_reshape() {
    cases(SIMPLIFY, "", |r| {
        let (a, b, c) = (r.int(1, 4), r.int(1, 4), r.int(1, 4));
        format!(
            "func.func @f(%x: tensor<{a}x{b}x{c}xf32>) -> tensor<{c}x{a}x{b}xf32> {{
  %s1 = \"graph.constant\"() <{{value = dense<[{ab}, {c}]> : tensor<2xi64>}}> : () -> tensor<2xi64>
  %s2 = \"graph.constant\"() <{{value = dense<[{c}, {a}, -1]> : tensor<3xi64>}}> : () -> tensor<3xi64>
  %r1 = \"graph.Reshape\"(%x, %s1) : (tensor<{a}x{b}x{c}xf32>, tensor<2xi64>) -> tensor<{ab}x{c}xf32>
  %r2 = \"graph.Reshape\"(%r1, %s2) : (tensor<{ab}x{c}xf32>, tensor<3xi64>) -> tensor<{c}x{a}x{b}xf32>
  return %r2 : tensor<{c}x{a}x{b}xf32>
}}",
            ab = a * b
        )
    });
}

#[test]
fn shape_op_chains_cancel() {
    cases(SIMPLIFY, "graph.Unsqueeze", |r| {
        let (a, b) = (r.int(2, 5), r.int(2, 5));
        format!(
            "func.func @f(%x: tensor<{a}x1x{b}xf32>) -> tensor<{a}x1x{b}xf32> {{
  %ax = \"graph.constant\"() <{{value = dense<1> : tensor<1xi64>}}> : () -> tensor<1xi64>
  %s = \"graph.Squeeze\"(%x, %ax) : (tensor<{a}x1x{b}xf32>, tensor<1xi64>) -> tensor<{a}x{b}xf32>
  %u = \"graph.Unsqueeze\"(%s, %ax) : (tensor<{a}x{b}xf32>, tensor<1xi64>) -> tensor<{a}x1x{b}xf32>
  %f = \"graph.Flatten\"(%u) <{{axis = 0 : i64}}> : (tensor<{a}x1x{b}xf32>) -> tensor<1x{ab}xf32>
  %sh = \"graph.constant\"() <{{value = dense<[{a}, 1, {b}]> : tensor<3xi64>}}> : () -> tensor<3xi64>
  %r = \"graph.Reshape\"(%f, %sh) : (tensor<1x{ab}xf32>, tensor<3xi64>) -> tensor<{a}x1x{b}xf32>
  return %r : tensor<{a}x1x{b}xf32>
}}",
            ab = a * b
        )
    });
}

#[test]
fn transpose_transpose() {
    cases(SIMPLIFY, "", |r| {
        let d = [r.int(1, 4), r.int(1, 4), r.int(1, 4)];
        let p = [[0, 2, 1], [1, 0, 2], [2, 0, 1], [1, 2, 0]][r.int(0, 3) as usize];
        let q = [[0, 2, 1], [1, 0, 2], [2, 0, 1], [1, 2, 0]][r.int(0, 3) as usize];
        let mid: Vec<i64> = p.iter().map(|&i| d[i]).collect();
        let out: Vec<i64> = q.iter().map(|&i| mid[i]).collect();
        let t = |s: &[i64]| format!("tensor<{}x{}x{}xf32>", s[0], s[1], s[2]);
        format!(
            "func.func @f(%x: {x}) -> {o} {{
  %a = \"graph.Transpose\"(%x) <{{perm = array<i64: {p0}, {p1}, {p2}>}}> : ({x}) -> {m}
  %b = \"graph.Transpose\"(%a) <{{perm = array<i64: {q0}, {q1}, {q2}>}}> : ({m}) -> {o}
  return %b : {o}
}}",
            x = t(&d),
            m = t(&mid),
            o = t(&out),
            p0 = p[0],
            p1 = p[1],
            p2 = p[2],
            q0 = q[0],
            q1 = q[1],
            q2 = q[2],
        )
    });
}

#[test]
fn cast_chains() {
    for (from, mid, to) in [
        ("f32", "f64", "f32"),
        ("i8", "i32", "i8"),
        ("i8", "i32", "f32"),
        ("f16", "f32", "f64"),
    ] {
        cases(SIMPLIFY, "", |r| {
            let n = r.int(1, 7);
            format!(
                "func.func @f(%x: tensor<{n}x{from}>) -> tensor<{n}x{to}> {{
  %a = \"graph.Cast\"(%x) <{{to = {m} : i64}}> : (tensor<{n}x{from}>) -> tensor<{n}x{mid}>
  %b = \"graph.Cast\"(%a) <{{to = {t} : i64}}> : (tensor<{n}x{mid}>) -> tensor<{n}x{to}>
  return %b : tensor<{n}x{to}>
}}",
                m = onnx_type(mid),
                t = onnx_type(to),
            )
        });
    }
}

/// ONNX's element type code of an MLIR element type.
fn onnx_type(t: &str) -> i64 {
    match t {
        "f32" => 1,
        "i8" => 3,
        "i32" => 6,
        "f16" => 10,
        "f64" => 11,
        _ => panic!("no ONNX code for {t} in this test"),
    }
}

#[test]
fn expand_concat_slice_pad() {
    cases(SIMPLIFY, "", |r| {
        let (a, b) = (r.int(1, 5), r.int(1, 5));
        format!(
            "func.func @f(%x: tensor<{a}x{b}xf32>) -> tensor<{a}x{b}xf32> {{
  %s = \"graph.constant\"() <{{value = dense<[{a}, {b}]> : tensor<2xi64>}}> : () -> tensor<2xi64>
  %e = \"graph.Expand\"(%x, %s) : (tensor<{a}x{b}xf32>, tensor<2xi64>) -> tensor<{a}x{b}xf32>
  %c = \"graph.Concat\"(%e) <{{axis = 1 : i64}}> : (tensor<{a}x{b}xf32>) -> tensor<{a}x{b}xf32>
  %st = \"graph.constant\"() <{{value = dense<0> : tensor<2xi64>}}> : () -> tensor<2xi64>
  %en = \"graph.constant\"() <{{value = dense<[{a}, 1000]> : tensor<2xi64>}}> : () -> tensor<2xi64>
  %n = \"graph.none\"() : () -> none
  %sl = \"graph.Slice\"(%c, %st, %en, %n, %n) : (tensor<{a}x{b}xf32>, tensor<2xi64>, tensor<2xi64>, none, none) -> tensor<{a}x{b}xf32>
  %p0 = \"graph.constant\"() <{{value = dense<0> : tensor<4xi64>}}> : () -> tensor<4xi64>
  %p = \"graph.Pad\"(%sl, %p0, %n, %n) : (tensor<{a}x{b}xf32>, tensor<4xi64>, none, none) -> tensor<{a}x{b}xf32>
  %r = \"graph.Relu\"(%p) : (tensor<{a}x{b}xf32>) -> tensor<{a}x{b}xf32>
  return %r : tensor<{a}x{b}xf32>
}}"
        )
    });
}

// ----- graph-fold-batchnorm -----

fn bn_params(r: &mut Rng, c: i64) -> String {
    let (g, b, m) = (
        r.floats(c, 0.5, 2.0),
        r.floats(c, -1.0, 1.0),
        r.floats(c, -1.0, 1.0),
    );
    let v = r.floats(c, 0.1, 2.0);
    format!(
        "  %g = \"graph.constant\"() <{{value = dense<{g}> : tensor<{c}xf32>}}> : () -> tensor<{c}xf32>
  %be = \"graph.constant\"() <{{value = dense<{b}> : tensor<{c}xf32>}}> : () -> tensor<{c}xf32>
  %mu = \"graph.constant\"() <{{value = dense<{m}> : tensor<{c}xf32>}}> : () -> tensor<{c}xf32>
  %va = \"graph.constant\"() <{{value = dense<{v}> : tensor<{c}xf32>}}> : () -> tensor<{c}xf32>\n"
    )
}

#[test]
fn batchnorm_into_conv() {
    cases(BN, "graph.BatchNormalization", |r| {
        let (ci, co, h, k) = (r.int(1, 3), r.int(1, 4), r.int(3, 6), r.int(1, 3));
        let o = h - k + 1;
        let w = r.nested(&[co, ci, k, k], -1.0, 1.0);
        let (bias, bty) = if r.int(0, 1) == 1 {
            (
                format!(
                    "\"graph.constant\"() <{{value = dense<{}> : tensor<{co}xf32>}}> : () -> tensor<{co}xf32>",
                    r.floats(co, -1.0, 1.0)
                ),
                format!("tensor<{co}xf32>"),
            )
        } else {
            (
                "\"graph.none\"() : () -> none".to_string(),
                "none".to_string(),
            )
        };
        let params = bn_params(r, co);
        format!(
            "func.func @f(%x: tensor<1x{ci}x{h}x{h}xf32>) -> tensor<1x{co}x{o}x{o}xf32> {{
  %w = \"graph.constant\"() <{{value = dense<{w}> : tensor<{co}x{ci}x{k}x{k}xf32>}}> : () -> tensor<{co}x{ci}x{k}x{k}xf32>
  %bb = {bias}
  %c = \"graph.Conv\"(%x, %w, %bb) : (tensor<1x{ci}x{h}x{h}xf32>, tensor<{co}x{ci}x{k}x{k}xf32>, {bty}) -> tensor<1x{co}x{o}x{o}xf32>
{params}  %y:3 = \"graph.BatchNormalization\"(%c, %g, %be, %mu, %va) : (tensor<1x{co}x{o}x{o}xf32>, tensor<{co}xf32>, tensor<{co}xf32>, tensor<{co}xf32>, tensor<{co}xf32>) -> (tensor<1x{co}x{o}x{o}xf32>, none, none)
  return %y#0 : tensor<1x{co}x{o}x{o}xf32>
}}"
        )
    });
}

#[test]
fn batchnorm_into_gemm() {
    cases(BN, "graph.BatchNormalization", |r| {
        let (m, k, n) = (r.int(1, 4), r.int(1, 5), r.int(1, 4));
        let trans_b = r.int(0, 1);
        let wshape = if trans_b == 1 { [n, k] } else { [k, n] };
        let w = r.nested(&wshape, -1.0, 1.0);
        let c = r.floats(n, -1.0, 1.0);
        let beta = r.float(0.5, 2.0);
        let params = bn_params(r, n);
        format!(
            "func.func @f(%x: tensor<{m}x{k}xf32>) -> tensor<{m}x{n}xf32> {{
  %w = \"graph.constant\"() <{{value = dense<{w}> : tensor<{w0}x{w1}xf32>}}> : () -> tensor<{w0}x{w1}xf32>
  %cc = \"graph.constant\"() <{{value = dense<{c}> : tensor<{n}xf32>}}> : () -> tensor<{n}xf32>
  %g0 = \"graph.Gemm\"(%x, %w, %cc) <{{beta = {beta:.3} : f32, transB = {trans_b} : i64}}> : (tensor<{m}x{k}xf32>, tensor<{w0}x{w1}xf32>, tensor<{n}xf32>) -> tensor<{m}x{n}xf32>
{params}  %y:3 = \"graph.BatchNormalization\"(%g0, %g, %be, %mu, %va) : (tensor<{m}x{n}xf32>, tensor<{n}xf32>, tensor<{n}xf32>, tensor<{n}xf32>, tensor<{n}xf32>) -> (tensor<{m}x{n}xf32>, none, none)
  return %y#0 : tensor<{m}x{n}xf32>
}}",
            w0 = wshape[0],
            w1 = wshape[1],
        )
    });
}

#[test]
fn batchnorm_into_matmul() {
    cases(BN, "graph.BatchNormalization", |r| {
        let (m, k, n) = (r.int(1, 4), r.int(1, 5), r.int(1, 4));
        let w = r.nested(&[k, n], -1.0, 1.0);
        let params = bn_params(r, n);
        format!(
            "func.func @f(%x: tensor<{m}x{k}xf32>) -> tensor<{m}x{n}xf32> {{
  %w = \"graph.constant\"() <{{value = dense<{w}> : tensor<{k}x{n}xf32>}}> : () -> tensor<{k}x{n}xf32>
  %g0 = \"graph.MatMul\"(%x, %w) : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>
{params}  %y:3 = \"graph.BatchNormalization\"(%g0, %g, %be, %mu, %va) : (tensor<{m}x{n}xf32>, tensor<{n}xf32>, tensor<{n}xf32>, tensor<{n}xf32>, tensor<{n}xf32>) -> (tensor<{m}x{n}xf32>, none, none)
  return %y#0 : tensor<{m}x{n}xf32>
}}"
        )
    });
}

// ----- graph-fold-pad -----

/// A Pad of the spatial dimensions by random amounts, then `consumer`.
fn pad_case(consumer: &str, pad_value: &str) {
    cases(PAD, "graph.Pad", |r| {
        let (c, h, w) = (r.int(1, 3), r.int(2, 5), r.int(2, 5));
        let p = [r.int(0, 2), r.int(0, 2), r.int(0, 2), r.int(0, 2)];
        let (hp, wp) = (h + p[0] + p[2], w + p[1] + p[3]);
        let k = r.int(1, 2);
        let (ho, wo) = (hp - k + 1, wp - k + 1);
        let (op, out_c, extra) = match consumer {
            "Conv" => {
                let wt = r.nested(&[2, c, k, k], -1.0, 1.0);
                (
                    format!(
                        "  %wt = \"graph.constant\"() <{{value = dense<{wt}> : tensor<2x{c}x{k}x{k}xf32>}}> : () -> tensor<2x{c}x{k}x{k}xf32>
  %y = \"graph.Conv\"(%xp, %wt, %n) : (tensor<1x{c}x{hp}x{wp}xf32>, tensor<2x{c}x{k}x{k}xf32>, none) -> tensor<1x2x{ho}x{wo}xf32>\n"
                    ),
                    2,
                    "",
                )
            }
            "AveragePool" => (
                format!(
                    "  %y = \"graph.AveragePool\"(%xp) <{{kernel_shape = array<i64: {k}, {k}>}}> : (tensor<1x{c}x{hp}x{wp}xf32>) -> tensor<1x{c}x{ho}x{wo}xf32>\n"
                ),
                c,
                "",
            ),
            _ => (
                format!(
                    "  %y, %i = \"graph.MaxPool\"(%xp) <{{kernel_shape = array<i64: {k}, {k}>}}> : (tensor<1x{c}x{hp}x{wp}xf32>) -> (tensor<1x{c}x{ho}x{wo}xf32>, tensor<1x{c}x{ho}x{wo}xi64>)\n"
                ),
                c,
                "",
            ),
        };
        format!(
            "func.func @f(%x: tensor<1x{c}x{h}x{w}xf32>) -> tensor<1x{out_c}x{ho}x{wo}xf32> {{
  %p = \"graph.constant\"() <{{value = dense<[0, 0, {p0}, {p1}, 0, 0, {p2}, {p3}]> : tensor<8xi64>}}> : () -> tensor<8xi64>
  %v = \"graph.constant\"() <{{value = dense<{pad_value}> : tensor<f32>}}> : () -> tensor<f32>
  %n = \"graph.none\"() : () -> none
  %xp = \"graph.Pad\"(%x, %p, %v, %n) : (tensor<1x{c}x{h}x{w}xf32>, tensor<8xi64>, tensor<f32>, none) -> tensor<1x{c}x{hp}x{wp}xf32>
{op}{extra}  return %y : tensor<1x{out_c}x{ho}x{wo}xf32>
}}",
            p0 = p[0],
            p1 = p[1],
            p2 = p[2],
            p3 = p[3],
        )
    });
}

#[test]
fn pad_into_conv() {
    pad_case("Conv", "0.0");
}

#[test]
fn pad_into_average_pool() {
    pad_case("AveragePool", "0.0");
}

#[test]
fn pad_into_max_pool() {
    pad_case("MaxPool", "0xFF800000");
}

// ----- graph-transpose-opt -----

#[test]
fn transpose_sinks_and_cancels() {
    cases(TRANSPOSE, "graph.Transpose", |r| {
        let (a, b, c) = (r.int(1, 4), r.int(1, 4), r.int(1, 4));
        let k = r.floats(b, -1.0, 1.0);
        let unary = ["Relu", "Sigmoid", "Neg", "Abs", "Tanh"][r.int(0, 4) as usize];
        let binary = ["Add", "Mul", "Sub", "Div"][r.int(0, 3) as usize];
        format!(
            "func.func @f(%x: tensor<{a}x{b}x{c}xf32>, %y: tensor<{a}x{b}x{c}xf32>) -> tensor<{a}x{b}x{c}xf32> {{
  %t = \"graph.Transpose\"(%x) <{{perm = array<i64: 0, 2, 1>}}> : (tensor<{a}x{b}x{c}xf32>) -> tensor<{a}x{c}x{b}xf32>
  %ty = \"graph.Transpose\"(%y) <{{perm = array<i64: 0, 2, 1>}}> : (tensor<{a}x{b}x{c}xf32>) -> tensor<{a}x{c}x{b}xf32>
  %u = \"graph.{unary}\"(%t) : (tensor<{a}x{c}x{b}xf32>) -> tensor<{a}x{c}x{b}xf32>
  %k = \"graph.constant\"() <{{value = dense<{k}> : tensor<{b}xf32>}}> : () -> tensor<{b}xf32>
  %v = \"graph.{binary}\"(%u, %k) : (tensor<{a}x{c}x{b}xf32>, tensor<{b}xf32>) -> tensor<{a}x{c}x{b}xf32>
  %w = \"graph.Add\"(%v, %ty) : (tensor<{a}x{c}x{b}xf32>, tensor<{a}x{c}x{b}xf32>) -> tensor<{a}x{c}x{b}xf32>
  %o = \"graph.Transpose\"(%w) <{{perm = array<i64: 0, 2, 1>}}> : (tensor<{a}x{c}x{b}xf32>) -> tensor<{a}x{b}x{c}xf32>
  return %o : tensor<{a}x{b}x{c}xf32>
}}"
        )
    });
}

// ----- graph-optimize -----

#[test]
fn pipeline_alias_runs_everything() {
    cases(
        "builtin.module(graph-optimize)",
        "graph.BatchNormalization",
        |r| {
            let (c, h) = (r.int(1, 3), r.int(2, 5));
            let w = r.nested(&[c, c, 1, 1], -1.0, 1.0);
            let params = bn_params(r, c);
            format!(
            "func.func @f(%x: tensor<1x{c}x{h}x{h}xf32>) -> tensor<1x{c}x{h}x{h}xf32> {{
  %p = \"graph.constant\"() <{{value = dense<0> : tensor<8xi64>}}> : () -> tensor<8xi64>
  %n = \"graph.none\"() : () -> none
  %xp = \"graph.Pad\"(%x, %p, %n, %n) : (tensor<1x{c}x{h}x{h}xf32>, tensor<8xi64>, none, none) -> tensor<1x{c}x{h}x{h}xf32>
  %w = \"graph.constant\"() <{{value = dense<{w}> : tensor<{c}x{c}x1x1xf32>}}> : () -> tensor<{c}x{c}x1x1xf32>
  %cv = \"graph.Conv\"(%xp, %w, %n) : (tensor<1x{c}x{h}x{h}xf32>, tensor<{c}x{c}x1x1xf32>, none) -> tensor<1x{c}x{h}x{h}xf32>
{params}  %y:3 = \"graph.BatchNormalization\"(%cv, %g, %be, %mu, %va) : (tensor<1x{c}x{h}x{h}xf32>, tensor<{c}xf32>, tensor<{c}xf32>, tensor<{c}xf32>, tensor<{c}xf32>) -> (tensor<1x{c}x{h}x{h}xf32>, none, none)
  %i = \"graph.Identity\"(%y#0) : (tensor<1x{c}x{h}x{h}xf32>) -> tensor<1x{c}x{h}x{h}xf32>
  return %i : tensor<1x{c}x{h}x{h}xf32>
}}"
        )
        },
    );
}

#[test]
fn shape_ops_to_the_same_type() {
    cases(SIMPLIFY, "", |r| {
        let (a, b) = (r.int(1, 5), r.int(1, 5));
        format!(
            "func.func @f(%x: tensor<{a}x{b}xf32>) -> tensor<{a}x{b}xf32> {{
  %s = \"graph.constant\"() <{{value = dense<[{a}, {b}]> : tensor<2xi64>}}> : () -> tensor<2xi64>
  %r = \"graph.Reshape\"(%x, %s) : (tensor<{a}x{b}xf32>, tensor<2xi64>) -> tensor<{a}x{b}xf32>
  %f = \"graph.Flatten\"(%r) <{{axis = 1 : i64}}> : (tensor<{a}x{b}xf32>) -> tensor<{a}x{b}xf32>
  %t = \"graph.Transpose\"(%f) <{{perm = array<i64: 0, 1>}}> : (tensor<{a}x{b}xf32>) -> tensor<{a}x{b}xf32>
  %e = \"graph.Exp\"(%t) : (tensor<{a}x{b}xf32>) -> tensor<{a}x{b}xf32>
  return %e : tensor<{a}x{b}xf32>
}}"
        )
    });
}

/// Every float unary op a Transpose sinks through, and every binary one (comparisons give
/// booleans), each on random shapes.
#[test]
fn transpose_sinks_through_every_elementwise_op() {
    for sink in nart_graph_opt::transpose::SINK_UNARY {
        let op = sink
            .root()
            .expect("sinks have a root")
            .trim_start_matches("graph.");
        let extra = match op {
            "Not" | "Cast" => continue,
            "Clip" => ", %lo, %hi",
            _ => "",
        };
        let extra_ty = if extra.is_empty() {
            ""
        } else {
            ", tensor<f32>, tensor<f32>"
        };
        cases(TRANSPOSE, "graph.Transpose", |r| {
            let (a, b) = (r.int(1, 4), r.int(1, 4));
            format!(
                "func.func @f(%x: tensor<{a}x{b}xf32>) -> tensor<{a}x{b}xf32> {{
  %lo = \"graph.constant\"() <{{value = dense<-0.5> : tensor<f32>}}> : () -> tensor<f32>
  %hi = \"graph.constant\"() <{{value = dense<0.5> : tensor<f32>}}> : () -> tensor<f32>
  %t = \"graph.Transpose\"(%x) <{{perm = array<i64: 1, 0>}}> : (tensor<{a}x{b}xf32>) -> tensor<{b}x{a}xf32>
  %u = \"graph.{op}\"(%t{extra}) : (tensor<{b}x{a}xf32>{extra_ty}) -> tensor<{b}x{a}xf32>
  %o = \"graph.Transpose\"(%u) <{{perm = array<i64: 1, 0>}}> : (tensor<{b}x{a}xf32>) -> tensor<{a}x{b}xf32>
  return %o : tensor<{a}x{b}xf32>
}}"
            )
        });
    }
    for sink in nart_graph_opt::transpose::SINK_BINARY {
        let op = sink
            .root()
            .expect("sinks have a root")
            .trim_start_matches("graph.");
        let (ety, rty) = match op {
            "And" | "Or" | "Xor" => continue,
            "Equal" | "Greater" | "GreaterOrEqual" | "Less" | "LessOrEqual" => ("f32", "i1"),
            _ => ("f32", "f32"),
        };
        cases(TRANSPOSE, "graph.Transpose", |r| {
            let (a, b, c) = (r.int(1, 3), r.int(1, 3), r.int(1, 3));
            let k = r.nested(&[c, 1], 0.5, 1.5);
            format!(
                "func.func @f(%x: tensor<{a}x{b}x{c}x{ety}>, %y: tensor<{a}x{b}x{c}x{ety}>) -> (tensor<{a}x{b}x{c}x{rty}>, tensor<{a}x{b}x{c}x{rty}>) {{
  %tx = \"graph.Transpose\"(%x) <{{perm = array<i64: 0, 2, 1>}}> : (tensor<{a}x{b}x{c}x{ety}>) -> tensor<{a}x{c}x{b}x{ety}>
  %ty = \"graph.Transpose\"(%y) <{{perm = array<i64: 0, 2, 1>}}> : (tensor<{a}x{b}x{c}x{ety}>) -> tensor<{a}x{c}x{b}x{ety}>
  %tz = \"graph.Transpose\"(%y) <{{perm = array<i64: 0, 2, 1>}}> : (tensor<{a}x{b}x{c}x{ety}>) -> tensor<{a}x{c}x{b}x{ety}>
  %k = \"graph.constant\"() <{{value = dense<{k}> : tensor<{c}x1x{ety}>}}> : () -> tensor<{c}x1x{ety}>
  %v = \"graph.{op}\"(%tx, %ty) : (tensor<{a}x{c}x{b}x{ety}>, tensor<{a}x{c}x{b}x{ety}>) -> tensor<{a}x{c}x{b}x{rty}>
  %w = \"graph.{op}\"(%tz, %k) : (tensor<{a}x{c}x{b}x{ety}>, tensor<{c}x1x{ety}>) -> tensor<{a}x{c}x{b}x{rty}>
  %o = \"graph.Transpose\"(%v) <{{perm = array<i64: 0, 2, 1>}}> : (tensor<{a}x{c}x{b}x{rty}>) -> tensor<{a}x{b}x{c}x{rty}>
  %p = \"graph.Transpose\"(%w) <{{perm = array<i64: 0, 2, 1>}}> : (tensor<{a}x{c}x{b}x{rty}>) -> tensor<{a}x{b}x{c}x{rty}>
  return %o, %p : tensor<{a}x{b}x{c}x{rty}>, tensor<{a}x{b}x{c}x{rty}>
}}"
            )
        });
    }
}

#[test]
fn squeeze_without_unit_dims_is_the_input() {
    cases(SIMPLIFY, "graph.Squeeze", |r| {
        let (a, b) = (r.int(2, 5), r.int(2, 5));
        format!(
            "func.func @f(%x: tensor<{a}x{b}xf32>) -> tensor<{a}x{b}xf32> {{
  %n = \"graph.none\"() : () -> none
  %q = \"graph.Squeeze\"(%x, %n) : (tensor<{a}x{b}xf32>, none) -> tensor<{a}x{b}xf32>
  return %q : tensor<{a}x{b}xf32>
}}"
        )
    });
}

// ----- graph-transpose-opt: ops with axes -----

/// `tensor<AxBx...xT>`.
fn tt(shape: &[i64], elem: &str) -> String {
    let mut s = String::from("tensor<");
    for d in shape {
        s.push_str(&format!("{d}x"));
    }
    format!("{s}{elem}>")
}

fn tf(shape: &[i64]) -> String {
    tt(shape, "f32")
}

/// A random permutation of `0..n` that is not the identity (for `n > 1`).
fn random_perm(r: &mut Rng, n: usize) -> Vec<i64> {
    loop {
        let mut p: Vec<i64> = (0..n as i64).collect();
        for i in (1..n).rev() {
            let j = r.int(0, i as i64) as usize;
            p.swap(i, j);
        }
        if n < 2 || p.iter().enumerate().any(|(i, &d)| i as i64 != d) {
            return p;
        }
    }
}

fn inverse(p: &[i64]) -> Vec<i64> {
    let mut q = vec![0; p.len()];
    for (i, &d) in p.iter().enumerate() {
        q[d as usize] = i as i64;
    }
    q
}

fn permute(shape: &[i64], p: &[i64]) -> Vec<i64> {
    p.iter().map(|&d| shape[d as usize]).collect()
}

fn perm_text(p: &[i64]) -> String {
    p.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `%{out} = Transpose(%{inp}, p)` of a value of shape `shape`; returns the line and the
/// result's shape.
fn transpose_line(out: &str, inp: &str, shape: &[i64], p: &[i64]) -> (String, Vec<i64>) {
    let y = permute(shape, p);
    (
        format!(
            "  %{out} = \"graph.Transpose\"(%{inp}) <{{perm = array<i64: {}>}}> : ({}) -> {}\n",
            perm_text(p),
            tf(shape),
            tf(&y)
        ),
        y,
    )
}

/// `p` without the output axes `removed`, renumbered (what remains between `x` and `y` once
/// both lose those axes).
fn drop_axes(p: &[i64], removed: &[usize]) -> Vec<i64> {
    let gone: Vec<i64> = removed.iter().map(|&a| p[a]).collect();
    p.iter()
        .enumerate()
        .filter(|(i, _)| !removed.contains(i))
        .map(|(_, &d)| d - gone.iter().filter(|&&g| g < d).count() as i64)
        .collect()
}

/// A function `x → Transpose(x, p) → body → Transpose back`, whose Transposes must all cancel
/// once they sink: `body(y, shape_y)` returns its lines, its result's name and shape, and the
/// permutation that maps `x`-side axes of the result to its axes (`None`: nothing to undo).
fn sink_case(
    r: &mut Rng,
    rank: usize,
    body: impl Fn(&mut Rng, &[i64], &[i64]) -> (String, String, Vec<i64>, Option<Vec<i64>>),
) -> String {
    let x: Vec<i64> = (0..rank).map(|_| r.int(1, 4)).collect();
    let p = random_perm(r, rank);
    let (mut text, y) = transpose_line("t", "x", &x, &p);
    let (lines, res, res_shape, undo) = body(r, &y, &p);
    text.push_str(&lines);
    let (out, out_shape) = match undo {
        Some(q) if q.iter().enumerate().any(|(i, &d)| i as i64 != d) => {
            let (l, s) = transpose_line("o", &res, &res_shape, &inverse(&q));
            text.push_str(&l);
            ("o".to_string(), s)
        }
        _ => (res, res_shape),
    };
    format!(
        "func.func @f(%x: {}) -> {} {{\n{text}  return %{out} : {}\n}}",
        tf(&x),
        tf(&out_shape),
        tf(&out_shape)
    )
}

#[test]
fn transpose_sinks_through_concat() {
    cases(TRANSPOSE, "graph.Transpose", |r| {
        let rank = r.int(2, 4) as usize;
        let x: Vec<i64> = (0..rank).map(|_| r.int(1, 4)).collect();
        let p = random_perm(r, rank);
        let axis = r.int(0, rank as i64 - 1) as usize;
        let n = r.int(2, 3) as usize;
        let mut text = String::new();
        let mut args = Vec::new();
        let mut names = Vec::new();
        let mut types = Vec::new();
        let mut total = 0;
        for k in 0..n {
            // Each input's concatenated (transposed) axis has its own size.
            let mut xi = x.clone();
            xi[p[axis] as usize] = r.int(1, 3);
            total += xi[p[axis] as usize];
            args.push(format!("%x{k}: {}", tf(&xi)));
            let (l, y) = transpose_line(&format!("t{k}"), &format!("x{k}"), &xi, &p);
            text.push_str(&l);
            names.push(format!("%t{k}"));
            types.push(tf(&y));
        }
        let mut y = permute(&x, &p);
        y[axis] = total;
        let neg = if r.int(0, 1) == 0 {
            axis as i64
        } else {
            axis as i64 - rank as i64
        };
        text.push_str(&format!(
            "  %c = \"graph.Concat\"({}) <{{axis = {neg} : i64}}> : ({}) -> {}\n",
            names.join(", "),
            types.join(", "),
            tf(&y)
        ));
        let (l, out) = transpose_line("o", "c", &y, &inverse(&p));
        text.push_str(&l);
        format!(
            "func.func @f({}) -> {} {{\n{text}  return %o : {}\n}}",
            args.join(", "),
            tf(&out),
            tf(&out)
        )
    });
}

#[test]
fn transpose_sinks_through_reductions() {
    for sink in nart_graph_opt::transpose::SINK_REDUCE {
        let op = sink.root().expect("a root").trim_start_matches("graph.");
        cases(TRANSPOSE, "graph.Transpose", |r| {
            let rank = r.int(2, 4) as usize;
            let keepdims = r.int(0, 1);
            let all_axes = r.int(0, 4) == 0;
            sink_case(r, rank, |r, y, p| {
                let mut axes: Vec<usize> = (0..rank).filter(|_| r.int(0, 1) == 1).collect();
                if axes.is_empty() || all_axes {
                    axes = (0..rank).collect();
                }
                let out: Vec<i64> = (0..rank)
                    .filter_map(|i| match (axes.contains(&i), keepdims) {
                        (true, 1) => Some(1),
                        (true, _) => None,
                        (false, _) => Some(y[i]),
                    })
                    .collect();
                let (axes_line, axes_arg, axes_ty) = if all_axes {
                    (
                        "  %a = \"graph.none\"() : () -> none\n".to_string(),
                        "%a",
                        "none".to_string(),
                    )
                } else {
                    let list: Vec<String> = axes
                        .iter()
                        .map(|&a| {
                            // Negative axes half of the time.
                            if r.int(0, 1) == 0 {
                                a.to_string()
                            } else {
                                (a as i64 - rank as i64).to_string()
                            }
                        })
                        .collect();
                    let n = list.len();
                    (
                        format!(
                            "  %a = \"graph.constant\"() <{{value = dense<[{}]> : tensor<{n}xi64>}}> : () -> tensor<{n}xi64>\n",
                            list.join(", ")
                        ),
                        "%a",
                        format!("tensor<{n}xi64>"),
                    )
                };
                let lines = format!(
                    "{axes_line}  %r = \"graph.{op}\"(%t, {axes_arg}) <{{keepdims = {keepdims} : i64}}> : ({}, {axes_ty}) -> {}\n",
                    tf(y),
                    tf(&out)
                );
                let undo = if keepdims == 1 {
                    p.to_vec()
                } else {
                    drop_axes(p, &axes)
                };
                (lines, "r".into(), out, Some(undo))
            })
        });
    }
}

#[test]
fn transpose_sinks_through_softmax() {
    for sink in nart_graph_opt::transpose::SINK_SOFTMAX {
        let op = sink.root().expect("a root").trim_start_matches("graph.");
        cases(TRANSPOSE, "graph.Transpose", |r| {
            let rank = r.int(2, 4) as usize;
            sink_case(r, rank, |r, y, p| {
                let axis = r.int(-(rank as i64), rank as i64 - 1);
                let lines = format!(
                    "  %s = \"graph.{op}\"(%t) <{{axis = {axis} : i64}}> : ({}) -> {}\n",
                    tf(y),
                    tf(y)
                );
                (lines, "s".into(), y.to_vec(), Some(p.to_vec()))
            })
        });
    }
}

#[test]
fn transpose_sinks_through_squeeze_and_unsqueeze() {
    cases(TRANSPOSE, "graph.Transpose", |r| {
        let rank = r.int(2, 4) as usize;
        // Some dimensions of 1 to squeeze.
        let x: Vec<i64> = (0..rank)
            .map(|_| if r.int(0, 1) == 0 { 1 } else { r.int(2, 4) })
            .collect();
        let p = random_perm(r, rank);
        let (mut text, y) = transpose_line("t", "x", &x, &p);
        let units: Vec<usize> = (0..rank).filter(|&i| y[i] == 1).collect();
        let mut axes: Vec<usize> = units.iter().copied().filter(|_| r.int(0, 2) > 0).collect();
        if axes.is_empty() && !units.is_empty() {
            axes.push(units[0]);
        }
        let (res, res_shape, undo) = if axes.is_empty() {
            // No unit dimension: unsqueeze instead, at random new positions.
            let k = r.int(1, 2) as usize;
            let out_rank = rank + k;
            let mut pos: Vec<usize> = Vec::new();
            while pos.len() < k {
                let a = r.int(0, out_rank as i64 - 1) as usize;
                if !pos.contains(&a) {
                    pos.push(a);
                }
            }
            pos.sort_unstable();
            let mut out = Vec::new();
            let mut it = y.iter();
            for j in 0..out_rank {
                out.push(if pos.contains(&j) {
                    1
                } else {
                    *it.next().unwrap()
                });
            }
            let kept: Vec<i64> = (0..out_rank)
                .filter(|j| !pos.contains(j))
                .map(|j| j as i64)
                .collect();
            let mut q = vec![0; out_rank];
            let mut i = 0;
            for (j, slot) in q.iter_mut().enumerate() {
                if pos.contains(&j) {
                    *slot = j as i64;
                } else {
                    *slot = kept[p[i] as usize];
                    i += 1;
                }
            }
            let list: Vec<String> = pos.iter().map(|a| a.to_string()).collect();
            text.push_str(&format!(
                "  %a = \"graph.constant\"() <{{value = dense<[{}]> : tensor<{k}xi64>}}> : () -> tensor<{k}xi64>\n  %u = \"graph.Unsqueeze\"(%t, %a) : ({}, tensor<{k}xi64>) -> {}\n",
                list.join(", "),
                tf(&y),
                tf(&out)
            ));
            ("u", out, q)
        } else {
            let out: Vec<i64> = (0..rank)
                .filter(|i| !axes.contains(i))
                .map(|i| y[i])
                .collect();
            let n = axes.len();
            let list: Vec<String> = axes.iter().map(|a| a.to_string()).collect();
            text.push_str(&format!(
                "  %a = \"graph.constant\"() <{{value = dense<[{}]> : tensor<{n}xi64>}}> : () -> tensor<{n}xi64>\n  %u = \"graph.Squeeze\"(%t, %a) : ({}, tensor<{n}xi64>) -> {}\n",
                list.join(", "),
                tf(&y),
                tf(&out)
            ));
            ("u", out, drop_axes(&p, &axes))
        };
        let (out, out_shape) = if undo.iter().enumerate().any(|(i, &d)| i as i64 != d) {
            let (l, s) = transpose_line("o", res, &res_shape, &inverse(&undo));
            text.push_str(&l);
            ("o", s)
        } else {
            (res, res_shape)
        };
        format!(
            "func.func @f(%x: {}) -> {} {{\n{text}  return %{out} : {}\n}}",
            tf(&x),
            tf(&out_shape),
            tf(&out_shape)
        )
    });
}

/// A Transpose that moves only dimensions of size 1 becomes a Reshape.
#[test]
fn transpose_of_unit_dims_is_a_reshape() {
    cases(TRANSPOSE, "graph.Transpose", |r| {
        // [n, 1, 1, c] → perm [0, 3, 1, 2] → [n, c, 1, 1], or a random rank-3 variant.
        let (n, c) = (r.int(1, 4), r.int(2, 5));
        let (x, p) = if r.int(0, 1) == 0 {
            (vec![n, 1, 1, c], vec![0, 3, 1, 2])
        } else {
            (vec![1, n, c], vec![1, 0, 2])
        };
        let (text, y) = transpose_line("t", "x", &x, &p);
        format!(
            "func.func @f(%x: {}) -> {} {{\n{text}  %e = \"graph.Exp\"(%t) : ({}) -> {}\n  return %e : {}\n}}",
            tf(&x),
            tf(&y),
            tf(&y),
            tf(&y),
            tf(&y)
        )
    });
}

// ----- graph-layout -----

const TO_NHWC: &str = "builtin.module(graph-layout{layout=nhwc})";

/// A random convolution (odd channel counts, strides, pads, groups) from `inp` of shape
/// `[n, c, h, w]`; returns its lines and result shape.
fn conv_lines(r: &mut Rng, name: &str, inp: &str, s: &[i64], m: i64) -> (String, Vec<i64>) {
    let (n, c, h, w) = (s[0], s[1], s[2], s[3]);
    let k = r.int(1, 3).min(h).min(w);
    let stride = r.int(1, 2);
    let pad = r.int(0, k - 1);
    let group = if c % 2 == 0 && m % 2 == 0 && r.int(0, 1) == 0 {
        2
    } else {
        1
    };
    let oh = (h + 2 * pad - k) / stride + 1;
    let ow = (w + 2 * pad - k) / stride + 1;
    let wshape = [m, c / group, k, k];
    let wv = r.nested(&wshape, -1.0, 1.0);
    let bv = r.floats(m, -1.0, 1.0);
    let y = vec![n, m, oh, ow];
    let lines = format!(
        "  %{name}_w = \"graph.constant\"() <{{value = dense<{wv}> : {wt}}}> : () -> {wt}
  %{name}_b = \"graph.constant\"() <{{value = dense<{bv}> : tensor<{m}xf32>}}> : () -> tensor<{m}xf32>
  %{name} = \"graph.Conv\"(%{inp}, %{name}_w, %{name}_b) <{{group = {group} : i64, pads = array<i64: {pad}, {pad}, {pad}, {pad}>, strides = array<i64: {stride}, {stride}>}}> : ({}, {wt}, tensor<{m}xf32>) -> {}\n",
        tf(s),
        tf(&y),
        wt = tf(&wshape),
    );
    (lines, y)
}

/// Conv → Relu → Conv (+ a residual Add of a third Conv) → GlobalAveragePool: after
/// `graph-layout{layout=nhwc}` no `graph.Conv` is left, only the region's two border
/// Transposes remain, and the values agree; `layout=nchw` afterwards brings every conv back.
#[test]
fn layout_nhwc_keeps_values_and_only_border_transposes() {
    for seed in 1..=8u64 {
        let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let s = vec![r.int(1, 2), r.int(1, 5), r.int(3, 7), r.int(3, 7)];
        let (m1, m2) = (r.int(1, 5), r.int(1, 5));
        let (l1, y1) = conv_lines(&mut r, "c1", "x", &s, m1);
        let relu = format!("  %r1 = \"graph.Relu\"(%c1) : ({t}) -> {t}\n", t = tf(&y1));
        let (l2, y2) = conv_lines(&mut r, "c2", "r1", &y1, m2);
        // A 1x1 stride-1 conv of the same input as c2 when the shapes allow a residual Add.
        let mut text = format!("{l1}{relu}{l2}");
        let mut last = ("c2".to_string(), y2.clone());
        if y2[2] == y1[2] && y2[3] == y1[3] {
            let wv = r.nested(&[m2, m1, 1, 1], -1.0, 1.0);
            text.push_str(&format!(
                "  %c3_w = \"graph.constant\"() <{{value = dense<{wv}> : {wt}}}> : () -> {wt}
  %c3_b = \"graph.none\"() : () -> none
  %c3 = \"graph.Conv\"(%r1, %c3_w, %c3_b) : ({}, {wt}, none) -> {}
  %s = \"graph.Add\"(%c2, %c3) : ({t2}, {t2}) -> {t2}\n",
                tf(&y1),
                tf(&y2),
                wt = tf(&[m2, m1, 1, 1]),
                t2 = tf(&y2)
            ));
            last = ("s".to_string(), y2.clone());
        }
        let g = vec![y2[0], y2[1], 1, 1];
        text.push_str(&format!(
            "  %g = \"graph.GlobalAveragePool\"(%{}) : ({}) -> {}\n",
            last.0,
            tf(&last.1),
            tf(&g)
        ));
        let fun = format!(
            "func.func @f(%x: {}) -> {} {{\n{text}  return %g : {}\n}}",
            tf(&s),
            tf(&g),
            tf(&g)
        );
        check(&fun, TO_NHWC, "graph.Conv", &mut r);
        // The only Transposes left: into the region, and out of it (a Reshape when the
        // result is [n, c, 1, 1] or the input has one channel).
        let mut ctx = context();
        let module = nart_ir::parser::parse_source(&mut ctx, "case.mlir", &fun).unwrap();
        let mut pm = PassManager::parse(TO_NHWC, &registry()).unwrap();
        pm.run(&mut ctx, module, &mut Vec::new()).unwrap();
        let names = graph_op_names(&ctx, module);
        // A border Transpose that moves only size-1 dimensions is a Reshape.
        let transposes = names
            .iter()
            .filter(|n| *n == "graph.Transpose" || *n == "graph.Reshape")
            .count();
        let printed = nart_ir::printer::print_op(&ctx, module, &Default::default());
        assert!(
            (1..=2).contains(&transposes),
            "{transposes} Transposes left:\n{printed}"
        );
        assert!(
            printed.contains("layout = \"nhwc\""),
            "no channels-last conv:\n{printed}"
        );
        // And back.
        check(
            &fun,
            "builtin.module(graph-layout{layout=nhwc},graph-layout{layout=nchw})",
            "graph.Conv",
            &mut r,
        );
    }
}

/// `graph-unfuse` writes a channels-last `fused_conv` back as `Conv` between Transposes.
#[test]
fn unfuse_of_channels_last_conv() {
    cases(
        "builtin.module(graph-layout{layout=nhwc},graph-fuse-activation,graph-unfuse)",
        "graph.fused_conv",
        |r| {
            let s = vec![r.int(1, 2), r.int(1, 5), r.int(3, 6), r.int(3, 6)];
            let m = r.int(1, 5);
            let (l, y) = conv_lines(r, "c", "x", &s, m);
            format!(
                "func.func @f(%x: {}) -> {} {{\n{l}  %r = \"graph.Relu\"(%c) : ({t}) -> {t}\n  return %r : {t}\n}}",
                tf(&s),
                tf(&y),
                t = tf(&y)
            )
        },
    );
}

/// Conv → BatchNorm → Relu → MaxPool or AveragePool (random window, strides, pads,
/// `ceil_mode`, `count_include_pad`) → Conv: after `graph-layout{layout=nhwc}` no
/// channels-first pool or BatchNorm is left, the region has only its two borders, and the
/// values agree; `layout=nchw` afterwards brings the pools back to their ONNX ops.
#[test]
fn layout_nhwc_pools_and_batchnorm() {
    for seed in 1..=8u64 {
        let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let s = vec![r.int(1, 2), r.int(2, 5), r.int(4, 8), r.int(4, 8)];
        let m1 = r.int(2, 5);
        let (l1, y1) = conv_lines(&mut r, "c1", "x", &s, m1);
        let t1 = tf(&y1);
        let bn = bn_params(&mut r, m1);
        let k = r.int(1, 3).min(y1[2]).min(y1[3]);
        let stride = r.int(1, 2);
        let pad = r.int(0, k - 1);
        let ceil = r.int(0, 1);
        let max = r.int(0, 1) == 1;
        let out = |d: i64| {
            let span = d + 2 * pad - k;
            let mut o = if ceil == 1 {
                (span + stride - 1) / stride + 1
            } else {
                span / stride + 1
            };
            if ceil == 1 && (o - 1) * stride >= d + pad {
                o -= 1;
            }
            o
        };
        let yp = vec![y1[0], m1, out(y1[2]), out(y1[3])];
        let attrs = format!(
            "ceil_mode = {ceil} : i64, kernel_shape = array<i64: {k}, {k}>, pads = array<i64: {pad}, {pad}, {pad}, {pad}>, strides = array<i64: {stride}, {stride}>"
        );
        let pool = if max {
            format!(
                "  %p, %pi = \"graph.MaxPool\"(%r1) <{{{attrs}}}> : ({t1}) -> ({}, none)\n",
                tf(&yp)
            )
        } else {
            format!(
                "  %p = \"graph.AveragePool\"(%r1) <{{count_include_pad = {} : i64, {attrs}}}> : ({t1}) -> {}\n",
                r.int(0, 1),
                tf(&yp)
            )
        };
        let m2 = r.int(1, 4);
        let (l2, y2) = conv_lines(&mut r, "c2", "p", &yp, m2);
        let text = format!(
            "{l1}{bn}  %b1, %b1m, %b1v = \"graph.BatchNormalization\"(%c1, %g, %be, %mu, %va) : ({t1}, tensor<{m1}xf32>, tensor<{m1}xf32>, tensor<{m1}xf32>, tensor<{m1}xf32>) -> ({t1}, none, none)
  %r1 = \"graph.Relu\"(%b1) : ({t1}) -> {t1}
{pool}{l2}"
        );
        let fun = format!(
            "func.func @f(%x: {}) -> {} {{\n{text}  return %c2 : {}\n}}",
            tf(&s),
            tf(&y2),
            tf(&y2)
        );
        let base = if max {
            "graph.MaxPool"
        } else {
            "graph.AveragePool"
        };
        check(&fun, TO_NHWC, base, &mut r);
        let mut ctx = context();
        let module = nart_ir::parser::parse_source(&mut ctx, "case.mlir", &fun).unwrap();
        let mut pm = PassManager::parse(TO_NHWC, &registry()).unwrap();
        pm.run(&mut ctx, module, &mut Vec::new()).unwrap();
        let names = graph_op_names(&ctx, module);
        let printed = nart_ir::printer::print_op(&ctx, module, &Default::default());
        let borders = names
            .iter()
            .filter(|n| *n == "graph.Transpose" || *n == "graph.Reshape")
            .count();
        assert_eq!(borders, 2, "{printed}");
        assert!(
            !names.iter().any(|n| n == "graph.BatchNormalization"),
            "{printed}"
        );
        assert!(names.iter().any(|n| n == "graph.pool"), "{printed}");
        // And back: the pool is its ONNX op again, with the same values.
        check(
            &fun,
            "builtin.module(graph-layout{layout=nhwc},graph-layout{layout=nchw})",
            "graph.pool",
            &mut r,
        );
    }
}
