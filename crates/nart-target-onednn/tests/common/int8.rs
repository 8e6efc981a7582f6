//! Shared by the integer tests (`int8.rs`, `int8_pool_add.rs`): a context with the quant
//! dialects, the interpreter's result, and the same function partitioned onto oneDNN alone.

use nart_interp::Interpreter;
use nart_ir::Context;
use nart_onednn_rt::program::Program;
use nart_target::{Setup, Target, TargetRegistry};
use nart_target_onednn::OnednnTarget;
use nart_tensor::Tensor;

pub fn qcontext() -> Context {
    let mut ctx = super::context();
    nart_dialect_quant::register(&mut ctx);
    nart_dialect_qnn::register(&mut ctx);
    ctx
}

pub fn interpret(text: &str, inputs: &[Tensor]) -> Vec<Tensor> {
    let mut ctx = qcontext();
    let m = nart_ir::parser::parse_source(&mut ctx, "case.mlir", text)
        .unwrap_or_else(|d| panic!("{text}\n{d:?}"));
    nart_ir::verify::verify(&ctx, m).unwrap_or_else(|d| panic!("{text}\n{d:?}"));
    let interp = Interpreter::from_module(&ctx, m, Some("main")).unwrap();
    interp.run(inputs.to_vec()).unwrap()
}

/// `@main` of `text` partitioned onto onednn alone: `Err` with the reasons when an op went
/// elsewhere, else the one segment compiled twice (equal bytes), loaded, run twice (equal
/// results), with its op list.
pub fn on_onednn(text: &str, inputs: &[Tensor]) -> Result<(Vec<Tensor>, Program), String> {
    let mut ctx = qcontext();
    let m = nart_ir::parser::parse_source(&mut ctx, "case.mlir", text)
        .unwrap_or_else(|d| panic!("{text}\n{d:?}"));
    let func = nart_target::harness::main_func(&ctx, m);
    let mut registry = TargetRegistry::builtin();
    nart_target_onednn::register(&mut registry);
    let setup = Setup::resolve(&registry, &["onednn".to_string()], &[]).unwrap();
    let parts = nart_target::partition_function(&mut ctx, func, &setup)
        .unwrap_or_else(|d| panic!("{text}\n{d:?}"));
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
    let target = OnednnTarget::new();
    let artifact = target
        .compile(&mut ctx, seg)
        .map_err(|d| d.message.clone())?;
    assert_eq!(
        artifact,
        target.compile(&mut ctx, seg).unwrap(),
        "compiling is deterministic"
    );
    let exe = target
        .runtime()
        .load(&artifact)
        .map_err(|e| e.to_string())?;
    let out = exe.run(inputs).map_err(|e| e.to_string())?;
    assert_eq!(out, exe.run(inputs).unwrap(), "a second run agrees");
    Ok((out, Program::decode(&artifact.bytes).unwrap()))
}

/// `tensor<2x3x!quant.uniform<u8:f32, 0.02:128>>`.
pub fn qty(dims: &[i64], storage: &str, scale: f64, zp: i64) -> String {
    let d: String = dims.iter().map(|d| format!("{d}x")).collect();
    format!("tensor<{d}!quant.uniform<{storage}:f32, {scale:?}:{zp}>>")
}
