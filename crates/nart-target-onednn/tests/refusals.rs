//! What the onednn target refuses, and why: one function holding an op for each kind of
//! refusal (an unknown op, a dtype, a dynamic shape, an attribute, a broadcast oneDNN cannot
//! do, a used second result...), every reason checked; the partitioner lists them all at once;
//! and an unavailable oneDNN refuses even the ops it would run, saying why. None of this needs
//! oneDNN.

mod common;

use nart_ir::Context;
use nart_target::{Refusal, Setup, Support, Target, TargetRegistry};
use nart_target_onednn::lower::lower;
use nart_target_onednn::OnednnTarget;

const TEXT: &str = r#"
func.func @main(%x: tensor<1x4x8x8xf32>, %d: tensor<2x3xf64>, %dyn: tensor<1x4x?x8xf32>, %m: tensor<2x3xf32>, %r: tensor<3xf32>, %i: tensor<2x3xi64>) -> (tensor<1x4x8x8xf32>, tensor<2x3xf64>, tensor<1x4x?x6xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<1x4x8x8xf32>) {
  %none = "graph.none"() : () -> none
  %w = "graph.constant"() <{value = dense<1.0> : tensor<4x4x3x3xf32>}> : () -> tensor<4x4x3x3xf32>
  %conv = "graph.Conv"(%x, %w, %none) <{auto_pad = "SAME_UPPER"}> : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  %relu64 = "graph.Relu"(%d) : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %relu_dyn = "graph.Conv"(%dyn, %w, %none) : (tensor<1x4x?x8xf32>, tensor<4x4x3x3xf32>, none) -> tensor<1x4x?x6xf32>
  %cos = "graph.Cos"(%m) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %sm = "graph.Softmax"(%m) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = "graph.constant"() <{value = dense<1.0> : tensor<3x3xf32>}> : () -> tensor<3x3xf32>
  %g = "graph.Gemm"(%m, %b, %none) <{alpha = 5.000000e-01 : f32}> : (tensor<2x3xf32>, tensor<3x3xf32>, none) -> tensor<2x3xf32>
  %sub = "graph.Sub"(%r, %m) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %ln:3 = "graph.LayerNormalization"(%m, %r, %none) <{axis = 0 : i64}> : (tensor<2x3xf32>, tensor<3xf32>, none) -> (tensor<2x3xf32>, none, none)
  %one = "graph.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %bn:3 = "graph.BatchNormalization"(%x, %one, %one, %one, %one) <{training_mode = 1 : i64}> : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x8x8xf32>, none, none)
  %mp, %idx = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
  %mx = "graph.Max"(%m, %m, %m) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %ai = "graph.Add"(%i, %i) : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  %ok = "graph.Relu"(%x) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %conv, %relu64, %relu_dyn, %cos, %sm, %g, %sub, %ln#0, %bn#0, %mp, %idx, %mx, %ai, %ok : tensor<1x4x8x8xf32>, tensor<2x3xf64>, tensor<1x4x?x6xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<1x4x8x8xf32>
}
"#;

fn parse(ctx: &mut Context) -> nart_ir::Op {
    let m = nart_ir::parser::parse_source(ctx, "refusals.mlir", TEXT).unwrap();
    nart_ir::verify::verify(ctx, m).unwrap();
    let block = ctx.region_blocks(ctx.region(m, 0))[0];
    ctx.block_ops(block)[0]
}

fn attr(name: &str, value: &str) -> Refusal {
    Refusal::Attribute {
        name: name.into(),
        value: value.into(),
    }
}

#[test]
fn every_refusal_has_its_reason() {
    let mut ctx = common::context();
    let func = parse(&mut ctx);
    let body = ctx.region_blocks(ctx.region(func, 0))[0];
    let got: Vec<(String, Result<(), Refusal>)> = ctx
        .block_ops(body)
        .iter()
        .filter(|&&op| {
            let n = ctx.op_name_str(op);
            n != "graph.constant" && n != "graph.none" && n != "func.return"
        })
        .map(|&op| (ctx.op_name_str(op).to_string(), lower(&ctx, op).map(|_| ())))
        .collect();
    let want: Vec<(&str, Result<(), Refusal>)> = vec![
        ("graph.Conv", Err(attr("auto_pad", "SAME_UPPER"))),
        (
            "graph.Relu",
            Err(Refusal::DType {
                value: "operand #0".into(),
                dtype: "f64".into(),
            }),
        ),
        (
            "graph.Conv",
            Err(Refusal::Shape {
                value: "operand #0".into(),
                shape: "[1, 4, ?, 8] (dynamic where oneDNN needs a static size)".into(),
            }),
        ),
        ("graph.Cos", Err(Refusal::UnknownOp)),
        (
            "graph.Softmax",
            Err(Refusal::Other(
                "softmax along axis 0 of a rank-2 tensor (only the last axis)".into(),
            )),
        ),
        ("graph.Gemm", Err(attr("alpha", "0.5"))),
        (
            "graph.Sub",
            Err(Refusal::Shape {
                value: "operand #0".into(),
                shape: "[1, 3] broadcast to [2, 3] (oneDNN broadcasts the second operand only)"
                    .into(),
            }),
        ),
        (
            "graph.LayerNormalization",
            Err(Refusal::Other(
                "normalizes from axis 0 of a rank-2 tensor (oneDNN: the last axis only)".into(),
            )),
        ),
        ("graph.BatchNormalization", Err(attr("training_mode", "1"))),
        (
            "graph.MaxPool",
            Err(Refusal::Other(
                "result #1 is used; oneDNN computes result #0 only".into(),
            )),
        ),
        (
            "graph.Max",
            Err(Refusal::Other(
                "3 operands (oneDNN's binary takes 2)".into(),
            )),
        ),
        (
            "graph.Add",
            Err(Refusal::DType {
                value: "operand #0".into(),
                dtype: "i64".into(),
            }),
        ),
        ("graph.Relu", Ok(())),
    ];
    let got: Vec<(&str, Result<(), Refusal>)> =
        got.iter().map(|(n, r)| (n.as_str(), r.clone())).collect();
    assert_eq!(got, want);
}

#[test]
fn the_partitioner_lists_every_refusal_at_once() {
    let mut ctx = common::context();
    let func = parse(&mut ctx);
    let mut registry = TargetRegistry::builtin();
    registry.register(Box::new(OnednnTarget::unavailable("test: no library")));
    let setup = Setup::resolve(&registry, &["onednn".to_string()], &[]).unwrap();
    let plan = nart_target::plan(&ctx, func, &setup).unwrap();
    let onednn = plan
        .refusals
        .iter()
        .find(|r| r.target == "onednn")
        .expect("onednn's refusals are listed");
    // Every op is refused: twelve for their own reasons, the supported Relu because the
    // library is missing.
    assert_eq!(onednn.ops.len(), 13, "{:?}", onednn.ops);
    let last = onednn.ops.last().unwrap();
    assert_eq!(
        last.refusal.to_string(),
        "oneDNN is unavailable: test: no library"
    );
    assert!(plan.ops.iter().all(|p| p.target == "interp"));
}

#[test]
fn int8_ops_without_constant_symmetric_weights_are_refused_with_the_reason() {
    let text = r#"
func.func @main(%x: tensor<1x3x8x8x!quant.uniform<u8:f32, 0.02:128>>, %w: tensor<4x3x3x3x!quant.uniform<i8:f32, 0.01>>, %a: tensor<2x4x!quant.uniform<i8:f32, 0.1>>, %b: tensor<4x3x!quant.uniform<i8:f32, 0.2:1>>) -> (tensor<1x4x8x8x!quant.uniform<u8:f32, 0.05:0>>, tensor<2x3x!quant.uniform<i8:f32, 0.5>>) {
  %y = qnn.conv %x, %w pads [1, 1, 1, 1] : (tensor<1x3x8x8x!quant.uniform<u8:f32, 0.02:128>>, tensor<4x3x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x4x8x8x!quant.uniform<u8:f32, 0.05:0>>
  %z = qnn.matmul %a, %b : (tensor<2x4x!quant.uniform<i8:f32, 0.1>>, tensor<4x3x!quant.uniform<i8:f32, 0.2:1>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5>>
  return %y, %z : tensor<1x4x8x8x!quant.uniform<u8:f32, 0.05:0>>, tensor<2x3x!quant.uniform<i8:f32, 0.5>>
}
"#;
    let mut ctx = common::context();
    nart_dialect_quant::register(&mut ctx);
    nart_dialect_qnn::register(&mut ctx);
    let m = nart_ir::parser::parse_source(&mut ctx, "int8.mlir", text).unwrap();
    nart_ir::verify::verify(&ctx, m).unwrap();
    let block = ctx.region_blocks(ctx.region(m, 0))[0];
    let func = ctx.block_ops(block)[0];
    let body = ctx.region_blocks(ctx.region(func, 0))[0];
    // The exact int8 path needs constant weights with zero point 0 (tests/int8.rs runs it).
    let want = [
        "the weight is not a constant",
        "the weights have a zero point other than 0",
    ];
    for (&op, want) in ctx.block_ops(body)[..2].iter().zip(want) {
        assert_eq!(
            lower(&ctx, op),
            Err(Refusal::Other(want.into())),
            "{}",
            ctx.op_name_str(op)
        );
    }
}

#[test]
fn an_unavailable_target_says_why() {
    let t = OnednnTarget::unavailable("cannot load libdnnl.so.2");
    assert_eq!(
        t.availability(),
        Err("cannot load libdnnl.so.2".to_string())
    );
    let mut ctx = common::context();
    let func = parse(&mut ctx);
    let body = ctx.region_blocks(ctx.region(func, 0))[0];
    let ops = ctx.block_ops(body).to_vec();
    let relu = ops[ops.len() - 2];
    assert_eq!(ctx.op_name_str(relu), "graph.Relu");
    assert_eq!(
        t.supports(&ctx, relu),
        Support::Refused(Refusal::Other(
            "oneDNN is unavailable: cannot load libdnnl.so.2".into()
        ))
    );
}
