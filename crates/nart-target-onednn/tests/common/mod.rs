//! Shared by the onednn target's tests: whether oneDNN is here (a test skips without it,
//! unless `NART_REQUIRE_ONEDNN=1`), a seeded generator, and a one-function check that runs a
//! function in the interpreter and, partitioned onto `onednn`, in oneDNN.

#![allow(dead_code)]

use nart_interp::Interpreter;
use nart_ir::{Context, Op};
use nart_target::{Setup, Target, TargetRegistry};
use nart_target_onednn::OnednnTarget;
use nart_tensor::Tensor;

/// Whether oneDNN can be loaded; panics when it cannot and `NART_REQUIRE_ONEDNN=1`.
pub fn onednn_here(test: &str) -> bool {
    match nart_onednn_rt::availability() {
        Ok(_) => true,
        Err(e) => {
            if std::env::var("NART_REQUIRE_ONEDNN").as_deref() == Ok("1") {
                panic!("{test}: NART_REQUIRE_ONEDNN=1 but oneDNN is unavailable: {e}");
            }
            eprintln!("{test}: skipped, oneDNN is unavailable: {e}");
            false
        }
    }
}

/// A small seeded generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `lo..=hi`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    /// A float in `[lo, hi)`.
    pub fn float(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.int(0, v.len() as i64 - 1) as usize]
    }
    pub fn tensor(&mut self, dims: &[i64], lo: f32, hi: f32) -> Tensor {
        let n: i64 = dims.iter().product();
        let v = (0..n).map(|_| self.float(lo, hi)).collect();
        Tensor::from_vec(dims.iter().map(|&d| d as usize).collect(), v).unwrap()
    }
}

/// `tensor<2x3xf32>`.
pub fn ty(dims: &[i64]) -> String {
    let mut s = String::from("tensor<");
    for d in dims {
        s.push_str(&format!("{d}x"));
    }
    s.push_str("f32>");
    s
}

/// A `graph.constant` `%name` holding `t` (hex, so that values round-trip exactly).
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

pub fn context() -> Context {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    nart_interp::register(&mut ctx);
    ctx
}

fn main_func(ctx: &Context, module: Op) -> Op {
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

/// What partitioning `text` (one op on its arguments and constants) onto `onednn` gives:
/// `Ok(results)` when every op went to onednn and ran there, `Err(the placement reasons)`
/// otherwise.
pub fn on_onednn(text: &str, inputs: &[Tensor]) -> Result<Vec<Tensor>, String> {
    on_onednn_with_program(text, inputs).map(|(out, _)| out)
}

/// [`on_onednn`], with the op list the segment compiled into.
pub fn on_onednn_with_program(
    text: &str,
    inputs: &[Tensor],
) -> Result<(Vec<Tensor>, nart_onednn_rt::program::Program), String> {
    let mut ctx = context();
    let m = nart_ir::parser::parse_source(&mut ctx, "case.mlir", text).unwrap();
    let func = main_func(&ctx, m);
    let mut registry = TargetRegistry::builtin();
    nart_target_onednn::register(&mut registry);
    let setup = Setup::resolve(&registry, &["onednn".to_string()], &[]).unwrap();
    let parts = nart_target::partition_function(&mut ctx, func, &setup).unwrap();
    let refused: Vec<String> = parts
        .plan
        .ops
        .iter()
        .filter(|p| p.target != "onednn")
        .map(|p| format!("{}: {}", p.op_type, p.reason))
        .collect();
    if !refused.is_empty() {
        return Err(refused.join("; "));
    }
    assert_eq!(parts.segment_ops.len(), 1, "{text}");
    let seg = parts.segment_ops[0];
    // The segment reads function arguments; feed each its input.
    let args = ctx
        .block_args(ctx.region_blocks(ctx.region(func, 0))[0])
        .to_vec();
    let seg_inputs: Vec<Tensor> = ctx
        .operands(seg)
        .iter()
        .map(|v| {
            inputs[args
                .iter()
                .position(|a| a == v)
                .expect("segment reads an argument")]
            .clone()
        })
        .collect();
    let target = OnednnTarget::new();
    let artifact = target
        .compile(&mut ctx, seg)
        .map_err(|d| d.message.clone())?;
    let again = target.compile(&mut ctx, seg).unwrap();
    assert_eq!(artifact, again, "compiling is deterministic");
    let exe = nart_onednn_rt::load(&artifact).map_err(|e| e.to_string())?;
    let out = nart_target::rt::Executable::run(&exe, &seg_inputs).map_err(|e| e.to_string())?;
    // A second run on the same primitives gives the same results.
    let out2 = nart_target::rt::Executable::run(&exe, &seg_inputs).unwrap();
    assert_eq!(out, out2);
    let program = nart_onednn_rt::program::Program::decode(&artifact.bytes).unwrap();
    Ok((out, program))
}

/// Asserts `got` equals `want` within `atol + rtol * |want|` per element.
pub fn assert_close(case: &str, got: &[Tensor], want: &[Tensor], atol: f32, rtol: f32) {
    assert_eq!(got.len(), want.len(), "{case}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.shape(), w.shape(), "{case}");
        let (g, w) = (g.as_f32().unwrap(), w.as_f32().unwrap());
        for (i, (a, b)) in g.iter().zip(w).enumerate() {
            let ok = (a - b).abs() <= atol + rtol * b.abs() || (a.is_nan() && b.is_nan());
            assert!(ok, "{case}\nelement {i}: onednn {a}, interpreter {b}");
        }
    }
}
