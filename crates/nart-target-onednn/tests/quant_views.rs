//! The onednn target's rewrite of `quant.dcast → view → quant.qcast` with one quantized type
//! into `quant.scast`s around the view on the stored integers: the function computes the
//! same (the interpreter, bit for bit), partitions into one onednn segment, and chains whose
//! casts differ, or whose float value has another reader, are left alone.

mod common;

use common::Rng;
use nart_interp::Interpreter;
use nart_ir::printer::PrintOptions;
use nart_ir::Context;
use nart_onednn_rt::program::Program;
use nart_target::{Setup, Target, TargetRegistry};
use nart_target_onednn::OnednnTarget;
use nart_tensor::Tensor;

fn qcontext() -> Context {
    let mut ctx = common::context();
    nart_dialect_quant::register(&mut ctx);
    nart_dialect_qnn::register(&mut ctx);
    ctx
}

fn parse(ctx: &mut Context, text: &str) -> (nart_ir::Op, nart_ir::Op) {
    let m = nart_ir::parser::parse_source(ctx, "case.mlir", text)
        .unwrap_or_else(|d| panic!("{text}\n{d:?}"));
    (m, nart_target::harness::main_func(ctx, m))
}

fn run(ctx: &Context, m: nart_ir::Op, inputs: &[Tensor]) -> Vec<Tensor> {
    nart_ir::verify::verify(ctx, m).unwrap_or_else(|d| panic!("{d:?}"));
    let interp = Interpreter::from_module(ctx, m, Some("main")).unwrap();
    interp.run(inputs.to_vec()).unwrap()
}

/// `text` partitioned onto onednn (its rewrite included): every op there, in one segment,
/// compiled, loaded and run; its results and op list.
fn on_onednn(text: &str, inputs: &[Tensor]) -> (Vec<Tensor>, Program) {
    let mut ctx = qcontext();
    let (_, func) = parse(&mut ctx, text);
    let mut registry = TargetRegistry::builtin();
    nart_target_onednn::register(&mut registry);
    let setup = Setup::resolve(&registry, &["onednn".to_string()], &[]).unwrap();
    let parts = nart_target::partition_function(&mut ctx, func, &setup)
        .unwrap_or_else(|d| panic!("{text}\n{d:?}"));
    let elsewhere: Vec<String> = parts
        .plan
        .ops
        .iter()
        .filter(|p| p.target != "onednn")
        .map(|p| format!("{}: {}", p.op_type, p.reason))
        .collect();
    assert!(elsewhere.is_empty(), "{elsewhere:?}");
    assert_eq!(parts.segment_ops.len(), 1);
    let target = OnednnTarget::new();
    let artifact = target.compile(&mut ctx, parts.segment_ops[0]).unwrap();
    let exe = target.runtime().load(&artifact).unwrap();
    let out = exe.run(inputs).unwrap();
    (out, Program::decode(&artifact.bytes).unwrap())
}

fn print(ctx: &Context, op: nart_ir::Op) -> String {
    let mut out = Vec::new();
    nart_ir::printer::print_op_to(ctx, op, &PrintOptions::default(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

const Q: &str = "!quant.uniform<u8:f32, 0.0342:7>";

/// A max pooling, a reshape of its result in QDQ form (the qcast to `q3`), a max pooling of
/// the reshaped rows; with `extra_reader`, the float value is also returned through a Relu.
fn chain(q3: &str, extra_reader: bool) -> String {
    let x = format!("tensor<2x4x2x2x{Q}>");
    let (r16, r8) = (
        format!("tensor<2x1x16x{q3}>"),
        format!("tensor<2x1x8x{q3}>"),
    );
    let f = "tensor<2x4x2x2xf32>";
    let (extra, ret, rty) = if extra_reader {
        (
            format!("  %e = \"graph.Relu\"(%d) : ({f}) -> {f}\n"),
            format!("%r, %e : {r8}, {f}"),
            format!("({r8}, {f})"),
        )
    } else {
        (String::new(), format!("%r : {r8}"), r8.clone())
    };
    format!(
        "func.func @main(%x: {x}) -> {rty} {{\n  %p = qnn.max_pool %x kernel [1, 1] : {x} to \
         {x}\n  %s = \"graph.constant\"() <{{value = dense<[2, 1, 16]> : tensor<3xi64>}}> : () \
         -> tensor<3xi64>\n  %d = quant.dcast %p : {x} to {f}\n{extra}  %g = \"graph.Reshape\"(%d, \
         %s) : ({f}, tensor<3xi64>) -> tensor<2x1x16xf32>\n  %q = quant.qcast %g : \
         tensor<2x1x16xf32> to {r16}\n  %r = qnn.max_pool %q kernel [2] strides [2] : {r16} to \
         {r8}\n  return {ret}\n}}\n"
    )
}

#[test]
fn a_reshape_between_integer_ops_becomes_a_view_of_the_integers() {
    let text = chain(Q, false);
    let mut rng = Rng::new(61);
    let x: Vec<u8> = (0..32).map(|_| rng.int(0, 255) as u8).collect();
    let x = vec![Tensor::from_vec(vec![2, 4, 2, 2], x).unwrap()];
    let mut ctx = qcontext();
    let (m, func) = parse(&mut ctx, &text);
    let want = run(&ctx, m, &x);
    assert_eq!(nart_target_onednn::quant_views::fold(&mut ctx, func), 1);
    let ir = print(&ctx, m);
    let got = run(&ctx, m, &x);
    assert_eq!(got, want, "{ir}");
    assert!(
        !ir.contains("quant.dcast") && !ir.contains("quant.qcast"),
        "{ir}"
    );
    assert_eq!(ir.matches("quant.scast").count(), 2, "{ir}");
    assert!(ir.contains("tensor<2x1x16xi8>"), "{ir}");
    // Nothing left to fold.
    assert_eq!(nart_target_onednn::quant_views::fold(&mut ctx, func), 0);
    // On onednn, the whole function is one segment, bit-identical.
    if common::onednn_here("a_reshape_between_integer_ops_becomes_a_view_of_the_integers") {
        let (out, program) = on_onednn(&text, &x);
        assert_eq!(out, want);
        let kinds: Vec<&str> = program.ops.iter().map(|o| o.kind.name()).collect();
        assert_eq!(kinds, ["pooling", "view", "view", "view", "pooling"]);
    }
}

#[test]
fn chains_with_other_types_or_readers_are_left_alone() {
    for (q3, extra) in [
        // The qcast quantizes with another scale: a requantization, not a view.
        ("!quant.uniform<u8:f32, 0.05:7>", false),
        // The float value has another reader.
        (Q, true),
    ] {
        let text = chain(q3, extra);
        let mut ctx = qcontext();
        let (m, func) = parse(&mut ctx, &text);
        nart_ir::verify::verify(&ctx, m).unwrap_or_else(|d| panic!("{text}\n{d:?}"));
        assert_eq!(
            nart_target_onednn::quant_views::fold(&mut ctx, func),
            0,
            "{text}"
        );
    }
}
