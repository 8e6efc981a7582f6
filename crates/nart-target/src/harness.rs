//! A test harness for a target crate's own tests: a single-op (or small) graph function in MLIR
//! text, run in the interpreter and, partitioned onto one target alone, compiled (twice: the
//! bytes must agree), loaded and run (twice: the results must agree). The `onednn` and
//! `openvino` targets' op tests use it; a new target's tests can too.

use nart_interp::Interpreter;
use nart_ir::{Context, Op};
use nart_target_rt::Artifact;
use nart_tensor::Tensor;

use crate::{Setup, Target, TargetRegistry};

/// Whether a target whose library is loaded at run time is here: `availability` is its check;
/// when it fails, the test is skipped (with a line on standard error) unless the environment
/// variable `require` is `1`, in which case this panics.
pub fn available(test: &str, require: &str, availability: Result<(), String>) -> bool {
    match availability {
        Ok(()) => true,
        Err(e) => {
            if std::env::var(require).as_deref() == Ok("1") {
                panic!("{test}: {require}=1 but the target is unavailable: {e}");
            }
            eprintln!("{test}: skipped, the target is unavailable: {e}");
            false
        }
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

/// A `graph.constant` `%name` holding the f32 tensor `t` (hex, so that values round-trip
/// exactly), as one line of a function body.
pub fn constant(name: &str, t: &Tensor) -> String {
    let dims: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
    let hex: String = t
        .as_f32()
        .expect("an f32 tensor")
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .map(|b| format!("{b:02X}"))
        .collect();
    let ty = ty(&dims);
    format!(
        "  %{name} = \"graph.constant\"() <{{value = dense<\"0x{hex}\"> : {ty}}}> : () -> {ty}\n"
    )
}

/// A context with the func and graph dialects and the interpreter's kernels.
pub fn context() -> Context {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    nart_interp::register(&mut ctx);
    ctx
}

/// The first op of `module` (the function of a one-function module).
pub fn main_func(ctx: &Context, module: Op) -> Op {
    let block = ctx.region_blocks(ctx.region(module, 0))[0];
    ctx.block_ops(block)[0]
}

/// The results of `@main` in `text` in the interpreter.
pub fn interpret(text: &str, inputs: &[Tensor]) -> Vec<Tensor> {
    let mut ctx = context();
    let m = nart_ir::parser::parse_source(&mut ctx, "case.mlir", text)
        .unwrap_or_else(|d| panic!("{text}\n{d:?}"));
    nart_ir::verify::verify(&ctx, m).unwrap_or_else(|d| panic!("{text}\n{d:?}"));
    let interp = Interpreter::from_module(&ctx, m, Some("main")).unwrap();
    interp.run(inputs.to_vec()).unwrap()
}

/// Partitions `@main` of `text` onto `target` alone (registered in the builtin registry by
/// `register`). `Err` with the placement reasons when an op went elsewhere; otherwise the one
/// segment (reading the function's arguments) is compiled twice (the artifacts must be equal),
/// loaded with the target's runtime and run twice on `inputs` (the results must be equal), and
/// `Ok` holds the results and the artifact. A compile or load error is an `Err` too.
pub fn on_target(
    target: &dyn Target,
    register: fn(&mut TargetRegistry),
    text: &str,
    inputs: &[Tensor],
) -> Result<(Vec<Tensor>, Artifact), String> {
    let mut ctx = context();
    let m = nart_ir::parser::parse_source(&mut ctx, "case.mlir", text)
        .unwrap_or_else(|d| panic!("{text}\n{d:?}"));
    let func = main_func(&ctx, m);
    let mut registry = TargetRegistry::builtin();
    register(&mut registry);
    let name = target.name().to_string();
    let setup = Setup::resolve(&registry, std::slice::from_ref(&name), &[]).unwrap();
    let parts = crate::partition_function(&mut ctx, func, &setup)
        .unwrap_or_else(|d| panic!("{text}\n{d:?}"));
    let refused: Vec<String> = parts
        .plan
        .ops
        .iter()
        .filter(|p| p.target != name)
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
        .map(|v| inputs[args.iter().position(|a| a == v).expect("reads an argument")].clone())
        .collect();
    let artifact = target
        .compile(&mut ctx, seg)
        .map_err(|d| d.message.clone())?;
    let again = target.compile(&mut ctx, seg).unwrap();
    assert_eq!(artifact, again, "compiling is deterministic");
    let exe = target
        .runtime()
        .load(&artifact)
        .map_err(|e| e.to_string())?;
    let out = exe.run(&seg_inputs).map_err(|e| e.to_string())?;
    assert_eq!(out, exe.run(&seg_inputs).unwrap(), "a second run agrees");
    Ok((out, artifact))
}

/// Asserts that `got` equals `want` within `atol + rtol * |want|` per element (NaN equals NaN),
/// shapes and dtypes equal; `what` names the two sides in the message.
pub fn assert_close(case: &str, what: &str, got: &[Tensor], want: &[Tensor], atol: f32, rtol: f32) {
    assert_eq!(got.len(), want.len(), "{case}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.shape(), w.shape(), "{case}");
        assert_eq!(g.dtype(), w.dtype(), "{case}");
        let (g, w) = (g.to_f32_vec().unwrap(), w.to_f32_vec().unwrap());
        for (i, (a, b)) in g.iter().zip(&w).enumerate() {
            let ok = (a - b).abs() <= atol + rtol * b.abs() || (a.is_nan() && b.is_nan());
            assert!(ok, "{case}\nelement {i}: {what} {a}, interpreter {b}");
        }
    }
}
