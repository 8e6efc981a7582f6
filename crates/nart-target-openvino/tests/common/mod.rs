//! Shared by the openvino target's tests: whether OpenVINO is here (a test skips without it,
//! unless `NART_REQUIRE_OPENVINO=1`), a seeded generator of tensors, and a check that runs a
//! function in the interpreter and, partitioned onto `openvino`, compiled, loaded and run
//! twice in OpenVINO.

#![allow(dead_code)]

use nart_interp::Interpreter;
use nart_ir::{Context, Op};
use nart_target::{Setup, Target, TargetRegistry};
use nart_target_openvino::OpenvinoTarget;
use nart_tensor::Tensor;

/// Whether OpenVINO can be loaded; panics when it cannot and `NART_REQUIRE_OPENVINO=1`.
pub fn openvino_here(test: &str) -> bool {
    match nart_openvino_rt::availability() {
        Ok(_) => true,
        Err(e) => {
            if std::env::var("NART_REQUIRE_OPENVINO").as_deref() == Ok("1") {
                panic!("{test}: NART_REQUIRE_OPENVINO=1 but OpenVINO is unavailable: {e}");
            }
            eprintln!("{test}: skipped, OpenVINO is unavailable: {e}");
            false
        }
    }
}

/// A seeded generator (fastrand's wyrand).
pub struct Rng(fastrand::Rng);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(fastrand::Rng::with_seed(seed))
    }
    /// A number in `lo..=hi`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        self.0.i64(lo..=hi)
    }
    /// A float in `[lo, hi)`.
    pub fn float(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.0.f32()
    }
    pub fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.0.usize(..v.len())]
    }
    /// A tensor of `dims` with elements in `[lo, hi)`.
    pub fn tensor(&mut self, dims: &[i64], lo: f32, hi: f32) -> Tensor {
        let n: i64 = dims.iter().product();
        let v = (0..n).map(|_| self.float(lo, hi)).collect();
        Tensor::from_vec(dims.iter().map(|&d| d as usize).collect(), v).unwrap()
    }
    /// Dims of rank `lo..=hi`, each in `1..=6`.
    pub fn dims(&mut self, lo: i64, hi: i64) -> Vec<i64> {
        let r = self.int(lo, hi);
        (0..r).map(|_| self.int(1, 6)).collect()
    }
}

/// `tensor<2x3xf32>` (`?` for a negative dim).
pub fn ty(dims: &[i64]) -> String {
    let mut s = String::from("tensor<");
    for &d in dims {
        if d < 0 {
            s.push_str("?x");
        } else {
            s.push_str(&format!("{d}x"));
        }
    }
    s.push_str("f32>");
    s
}

/// `array<i64: 1, 2>`.
pub fn arr(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("array<i64: {}>", items.join(", "))
}

/// A `graph.constant` `%name` holding the f32 tensor `t`, in hex (exact).
pub fn constant(name: &str, t: &Tensor) -> String {
    let dims: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
    let hex: String = t
        .as_f32()
        .unwrap()
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .map(|b| format!("{b:02X}"))
        .collect();
    let ty = ty(&dims);
    format!(
        "  %{name} = \"graph.constant\"() <{{value = dense<\"0x{hex}\"> : {ty}}}> : () -> {ty}\n"
    )
}

/// A `graph.constant` `%name` holding the i64 vector `v`.
pub fn i64_constant(name: &str, v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    let t = format!("tensor<{}xi64>", v.len());
    format!(
        "  %{name} = \"graph.constant\"() <{{value = dense<[{}]> : {t}}}> : () -> {t}\n",
        items.join(", ")
    )
}

pub fn context() -> Context {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    nart_interp::register(&mut ctx);
    ctx
}

pub fn main_func(ctx: &Context, module: Op) -> Op {
    let block = ctx.region_blocks(ctx.region(module, 0))[0];
    ctx.block_ops(block)[0]
}

/// The function's results in the interpreter.
pub fn interpret(text: &str, inputs: &[Tensor]) -> Vec<Tensor> {
    let mut ctx = context();
    let m = nart_ir::parser::parse_source(&mut ctx, "case.mlir", text)
        .unwrap_or_else(|d| panic!("{text}\n{d:?}"));
    nart_ir::verify::verify(&ctx, m).unwrap_or_else(|d| panic!("{text}\n{d:?}"));
    let interp = Interpreter::from_module(&ctx, m, Some("main")).unwrap();
    interp.run(inputs.to_vec()).unwrap()
}

/// Partitions `text` onto `openvino` alone; every op must go there, as one segment reading
/// the function's arguments in order. Compiles it (twice: the bytes must agree), loads it and
/// runs it twice on `inputs` (the runs must agree); returns the results.
pub fn on_openvino(text: &str, inputs: &[Tensor]) -> Vec<Tensor> {
    let mut ctx = context();
    let m = nart_ir::parser::parse_source(&mut ctx, "case.mlir", text)
        .unwrap_or_else(|d| panic!("{text}\n{d:?}"));
    let func = main_func(&ctx, m);
    let mut registry = TargetRegistry::builtin();
    nart_target_openvino::register(&mut registry);
    let setup = Setup::resolve(&registry, &["openvino".to_string()], &[]).unwrap();
    let parts = nart_target::partition_function(&mut ctx, func, &setup)
        .unwrap_or_else(|d| panic!("{text}\n{d:?}"));
    let refused: Vec<String> = parts
        .plan
        .ops
        .iter()
        .filter(|p| p.target != "openvino")
        .map(|p| format!("{}: {}", p.op_type, p.reason))
        .collect();
    assert!(
        refused.is_empty(),
        "not all on openvino: {refused:?}\n{text}"
    );
    assert_eq!(parts.segment_ops.len(), 1, "{text}");
    let seg = parts.segment_ops[0];
    let args = ctx
        .block_args(ctx.region_blocks(ctx.region(func, 0))[0])
        .to_vec();
    let seg_inputs: Vec<Tensor> = ctx
        .operands(seg)
        .iter()
        .map(|v| inputs[args.iter().position(|a| a == v).expect("reads an argument")].clone())
        .collect();
    let target = OpenvinoTarget::new();
    let artifact = target
        .compile(&mut ctx, seg)
        .unwrap_or_else(|d| panic!("{text}\n{d:?}"));
    let again = target.compile(&mut ctx, seg).unwrap();
    assert_eq!(artifact, again, "compiling is deterministic");
    assert_eq!(artifact.format, "onnx");
    assert!(
        artifact.sdk_version.starts_with("OpenVINO 20"),
        "{}",
        artifact.sdk_version
    );
    let exe = nart_openvino_rt::load(&artifact).unwrap_or_else(|e| panic!("{text}\n{e}"));
    let run = |xs: &[Tensor]| nart_target::rt::Executable::run(&exe, xs);
    let out = run(&seg_inputs).unwrap_or_else(|e| panic!("{text}\n{e}"));
    assert_eq!(out, run(&seg_inputs).unwrap(), "a second run agrees");
    out
}

/// Runs `text` both ways and compares within `atol + rtol * |want|` per element.
pub fn check(case: &str, text: &str, inputs: &[Tensor], atol: f32, rtol: f32) {
    let want = interpret(text, inputs);
    let got = on_openvino(text, inputs);
    assert_eq!(got.len(), want.len(), "{case}\n{text}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.shape(), w.shape(), "{case}\n{text}");
        assert_eq!(g.dtype(), w.dtype(), "{case}\n{text}");
        let (g, w) = (g.to_f32_vec().unwrap(), w.to_f32_vec().unwrap());
        for (i, (a, b)) in g.iter().zip(&w).enumerate() {
            let ok = (a - b).abs() <= atol + rtol * b.abs() || (a.is_nan() && b.is_nan());
            assert!(
                ok,
                "{case}\n{text}\nelement {i}: openvino {a}, interpreter {b}"
            );
        }
    }
}
