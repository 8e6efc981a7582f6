//! Helpers the integration tests share: a context with the graph dialect, the interpreter
//! and this crate's passes; running a pipeline; evaluating a module; a seeded generator.

#![allow(dead_code)]

use nart_interp::Interpreter;
use nart_ir::{Context, Op};
use nart_tensor::Tensor;

/// A context with `func`, `graph` and the interpreter's kernels.
pub fn ctx() -> Context {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    nart_interp::register(&mut ctx);
    ctx
}

/// Parses and verifies `text`.
pub fn parse(ctx: &mut Context, text: &str) -> Op {
    let m = nart_ir::parser::parse_source(ctx, "t.mlir", text)
        .unwrap_or_else(|d| panic!("{}\n{text}", d[0].message));
    nart_ir::verify::verify(ctx, m).unwrap_or_else(|d| panic!("{}\n{text}", d[0].message));
    m
}

/// Runs `pipeline` (anchored on `builtin.module`) with this crate's passes, verifying after
/// each; returns the statistics report.
pub fn run(ctx: &mut Context, module: Op, pipeline: &str) -> String {
    let mut registry = nart_pass::PassRegistry::new();
    nart_graph_fusion::register(&mut registry);
    let mut pm = nart_pass::PassManager::parse(pipeline, &registry).expect("pipeline parses");
    let mut out = Vec::new();
    pm.run(ctx, module, &mut out)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)));
    nart_ir::verify::verify(ctx, module).unwrap_or_else(|d| panic!("{}", d[0].message));
    pm.statistics_report()
}

/// Runs the module's (first) function on `inputs`.
pub fn eval(ctx: &Context, module: Op, inputs: &[Tensor]) -> Vec<Tensor> {
    let interp = Interpreter::from_module(ctx, module, None).expect("the function plans");
    interp.run(inputs.to_vec()).expect("the function runs")
}

/// How many ops named `name` the module holds.
pub fn count(ctx: &Context, module: Op, name: &str) -> usize {
    ctx.collect_ops(module, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .filter(|&op| ctx.op_name_str(op) == name)
        .count()
}

/// The largest difference between `a` and `b` relative to `atol + rtol·|b|` (≤ 1 is close).
pub fn max_err(a: &Tensor, b: &Tensor, atol: f64, rtol: f64) -> f64 {
    assert_eq!(a.shape(), b.shape(), "shapes differ");
    let (a, b) = (a.to_f64_vec().unwrap(), b.to_f64_vec().unwrap());
    a.iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs() / (atol + rtol * y.abs()))
        .fold(0.0, f64::max)
}

/// SplitMix64: a seeded generator for shapes, constants and inputs.
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A size in `lo..=hi`.
    pub fn size(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }
    /// A float in `[lo, hi)`.
    pub fn float(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
    /// A tensor of `shape` with values in `[lo, hi)`.
    pub fn tensor(&mut self, shape: &[usize], lo: f64, hi: f64) -> Tensor {
        let n: usize = shape.iter().product();
        let v: Vec<f32> = (0..n).map(|_| self.float(lo, hi) as f32).collect();
        Tensor::from_vec(shape.to_vec(), v).unwrap()
    }
    /// Values in `[lo, hi)` for a tensor of `shape`, written as a nested MLIR dense literal.
    pub fn dense(&mut self, shape: &[usize], lo: f64, hi: f64) -> String {
        match shape.split_first() {
            None => lit(self.float(lo, hi)),
            Some((&n, rest)) => {
                let v: Vec<String> = (0..n).map(|_| self.dense(rest, lo, hi)).collect();
                format!("[{}]", v.join(", "))
            }
        }
    }
}

/// A float as an MLIR literal (always with a point and an exponent).
pub fn lit(v: f64) -> String {
    format!("{:.9e}", v as f32)
}

/// `tensor<AxBxf32>` for `shape`.
pub fn ty(shape: &[usize]) -> String {
    let mut s = String::from("tensor<");
    for d in shape {
        s.push_str(&format!("{d}x"));
    }
    s.push_str("f32>");
    s
}

/// Reads a float or int64 `TensorProto` file (`raw_data` or the typed field).
pub fn read_pb(path: &std::path::Path) -> Tensor {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let t = nart_onnx_proto::decode_tensor(&bytes).expect("a TensorProto");
    let shape: Vec<usize> = t.dims.iter().map(|&d| d as usize).collect();
    match t.data_type {
        Some(1) => {
            let v: Vec<f32> = match &t.raw_data {
                Some(raw) => raw
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                    .collect(),
                None => t.float_data.clone(),
            };
            Tensor::from_vec(shape, v).unwrap()
        }
        Some(7) => {
            let v: Vec<i64> = match &t.raw_data {
                Some(raw) => raw
                    .chunks_exact(8)
                    .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                    .collect(),
                None => t.int64_data.clone(),
            };
            Tensor::from_vec(shape, v).unwrap()
        }
        other => panic!(
            "{}: element type {other:?} is not float or int64",
            path.display()
        ),
    }
}

/// Whether python3 can import onnx, onnxruntime and numpy; panics when it cannot and
/// `NART_REQUIRE_PYTHON_ORACLES=1` says it must.
pub fn python_has_onnxruntime() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import onnx, onnxruntime, numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok && std::env::var("NART_REQUIRE_PYTHON_ORACLES").as_deref() == Ok("1") {
        panic!("NART_REQUIRE_PYTHON_ORACLES=1 but python3 cannot import onnx and onnxruntime");
    }
    ok
}

/// Runs `script` with python3 and `args`; panics with its output when it fails.
pub fn python(script: &str, args: &[&str]) -> String {
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "python failed:\n{text}");
    text
}
