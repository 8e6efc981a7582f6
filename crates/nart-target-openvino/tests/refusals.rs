//! What the openvino target refuses, and why: an op outside its list, an element type
//! (`f64`, `f16`), a quantized type, an unranked tensor, a used optional result, a quantized
//! op; the partitioner lists them all at once; an unavailable OpenVINO refuses even the ops it
//! would run, saying why, and compiling for it is an error, not a panic. None of this needs
//! OpenVINO.

mod common;

use nart_ir::{Context, Op};
use nart_target::{Refusal, Setup, Support, Target, TargetRegistry};
use nart_target_openvino::{op_support, OpenvinoTarget};

const TEXT: &str = r#"
func.func @main(%x: tensor<1x4x8x8xf32>, %d: tensor<2x3xf64>, %h: tensor<2x3xf16>, %u: tensor<*xf32>, %m: tensor<2x3xf32>, %i: tensor<2x3xi64>) -> (tensor<1x4x4x4xf32>, tensor<2x3xf64>, tensor<2x3xf16>, tensor<*xf32>, tensor<1x4x4x4xi64>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<1x4x8x8xf32>, tensor<2x3xf32>) {
  %mp, %idx = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
  %r64 = "graph.Relu"(%d) : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %r16 = "graph.Relu"(%h) : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %ru = "graph.Relu"(%u) : (tensor<*xf32>) -> tensor<*xf32>
  %hm = "graph.Hardmax"(%m) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %ai = "graph.Add"(%i, %i) : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  %ok = "graph.Relu"(%x) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %dyn = "graph.Relu"(%m) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %mp, %r64, %r16, %ru, %idx, %hm, %ai, %ok, %dyn : tensor<1x4x4x4xf32>, tensor<2x3xf64>, tensor<2x3xf16>, tensor<*xf32>, tensor<1x4x4x4xi64>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<1x4x8x8xf32>, tensor<2x3xf32>
}
"#;

fn parse(ctx: &mut Context) -> Op {
    let m = nart_ir::parser::parse_source(ctx, "refusals.mlir", TEXT).unwrap();
    nart_ir::verify::verify(ctx, m).unwrap();
    common::main_func(ctx, m)
}

fn graph_ops(ctx: &Context, func: Op) -> Vec<Op> {
    let body = ctx.region_blocks(ctx.region(func, 0))[0];
    ctx.block_ops(body)
        .iter()
        .copied()
        .filter(|&op| ctx.op_name_str(op).starts_with("graph."))
        .collect()
}

#[test]
fn every_refusal_has_its_reason() {
    let mut ctx = common::context();
    let func = parse(&mut ctx);
    let got: Vec<Result<(), Refusal>> = graph_ops(&ctx, func)
        .iter()
        .map(|&op| op_support(&ctx, op))
        .collect();
    let dtype = |value: &str, dtype: &str| {
        Err(Refusal::DType {
            value: value.into(),
            dtype: dtype.into(),
        })
    };
    let want: Vec<Result<(), Refusal>> = vec![
        Err(Refusal::Other(
            "MaxPool's result #1 is used (only its first result is offered)".into(),
        )),
        dtype("operand #0", "f64"),
        dtype("operand #0", "f16"),
        Err(Refusal::Shape {
            value: "operand #0".into(),
            shape: "tensor<*xf32> (unranked)".into(),
        }),
        Err(Refusal::UnknownOp),
        Ok(()),
        Ok(()),
        Ok(()),
    ];
    assert_eq!(got, want);
}

#[test]
fn quantized_ops_and_types_are_refused() {
    let mut ctx = common::context();
    nart_dialect_quant::register(&mut ctx);
    nart_dialect_qnn::register(&mut ctx);
    let text = r#"
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = "quant.qcast"(%x) : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
  %r = "graph.Relu"(%q) : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
  %y = "quant.dcast"(%r) : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
"#;
    let m = nart_ir::parser::parse_source(&mut ctx, "quant.mlir", text).unwrap();
    let func = common::main_func(&ctx, m);
    let body = ctx.region_blocks(ctx.region(func, 0))[0];
    let ops = ctx.block_ops(body).to_vec();
    let quant = Refusal::Other(
        "quantized ops are not offered: the openvino target runs f32 segments".into(),
    );
    assert_eq!(op_support(&ctx, ops[0]), Err(quant.clone()));
    assert_eq!(
        op_support(&ctx, ops[1]),
        Err(Refusal::DType {
            value: "operand #0".into(),
            dtype: "!quant.uniform<i8:f32, 5.000000e-01>".into(),
        })
    );
    assert_eq!(op_support(&ctx, ops[2]), Err(quant));
}

#[test]
fn the_partitioner_lists_every_refusal_at_once() {
    let mut ctx = common::context();
    let func = parse(&mut ctx);
    let mut registry = TargetRegistry::builtin();
    registry.register(Box::new(OpenvinoTarget::unavailable("not installed here")));
    let target = registry.get("openvino").unwrap();
    // Unavailable: the ops it would run are refused with the reason.
    let ops = graph_ops(&ctx, func);
    assert_eq!(
        target.supports(&ctx, ops[7]),
        Support::Refused(Refusal::Other(
            "OpenVINO is unavailable: not installed here".into()
        ))
    );
    // And the ops it would not run keep their own reason.
    assert_eq!(
        target.supports(&ctx, ops[4]),
        Support::Refused(Refusal::UnknownOp)
    );
    assert_eq!(target.availability(), Err("not installed here".to_string()));
    let setup = Setup::resolve(&registry, &["openvino".into(), "interp".into()], &[]).unwrap();
    let parts = nart_target::partition_function(&mut ctx, func, &setup).unwrap();
    let reasons: Vec<String> = parts
        .plan
        .ops
        .iter()
        .map(|p| p.reason.to_string())
        .collect();
    assert_eq!(parts.plan.ops.len(), 8, "{reasons:?}");
    assert!(
        parts.plan.ops.iter().all(|p| p.target == "interp"),
        "{reasons:?}"
    );
    for needle in [
        "f64",
        "f16",
        "unranked",
        "op not supported",
        "result #1",
        "OpenVINO is unavailable",
    ] {
        assert!(
            reasons.iter().any(|r| r.contains(needle)),
            "{needle} missing from {reasons:?}"
        );
    }
}

/// The compiler half needs no library: a segment compiles to the same ONNX bytes every time;
/// compiling for an unavailable OpenVINO is an error naming why, not a panic.
#[test]
fn compiling_is_deterministic_and_needs_no_library() {
    let mut ctx = common::context();
    let func = parse(&mut ctx);
    let mut registry = TargetRegistry::builtin();
    registry.register(Box::new(OpenvinoTarget::with_version("2026.4.1-test")));
    let setup = Setup::resolve(&registry, &["openvino".into(), "interp".into()], &[]).unwrap();
    let parts = nart_target::partition_function(&mut ctx, func, &setup).unwrap();
    let on: Vec<&str> = parts.plan.ops.iter().map(|p| p.target.as_str()).collect();
    assert_eq!(
        on,
        ["interp", "interp", "interp", "interp", "interp", "openvino", "openvino", "openvino"]
    );
    let target = OpenvinoTarget::with_version("2026.4.1-test");
    for &seg in &parts.segment_ops {
        if nart_target::compile::target_of(&ctx, seg) != Some("openvino") {
            continue;
        }
        let a = target.compile(&mut ctx, seg).unwrap();
        let b = target.compile(&mut ctx, seg).unwrap();
        assert_eq!(a, b);
        assert_eq!(
            (a.format.as_str(), a.sdk_version.as_str()),
            ("onnx", "OpenVINO 2026.4.1-test")
        );
        // The bytes are an ONNX model: a protobuf whose graph names the segment's ops.
        let text = String::from_utf8_lossy(&a.bytes);
        assert!(text.contains("Relu") || text.contains("Add"), "{text}");
        let d = OpenvinoTarget::unavailable("gone")
            .compile(&mut ctx, seg)
            .unwrap_err();
        assert_eq!(
            d.message,
            "'target.segment' op OpenVINO is unavailable: gone"
        );
    }
}
