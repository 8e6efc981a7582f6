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
