//! The partitioner on small graph functions: placement by preference, fallback reasons,
//! overrides, every refusal listed, cost moves, segments without cycles, and the boundary
//! casts of an int8 target.

use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::{Context, Op};

use super::*;
use crate::testing::FakeTarget;
use crate::{TargetRegistry, Throughput};

fn parse(text: &str) -> (Context, Op) {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    nart_dialect_quant::register(&mut ctx);
    nart_dialect_target::register(&mut ctx);
    ctx.allow_unregistered = true;
    let m = nart_ir::parser::parse_source(&mut ctx, "t.mlir", text)
        .unwrap_or_else(|d| panic!("{}", d[0].message));
    nart_ir::verify::verify(&ctx, m).unwrap_or_else(|d| panic!("{}", d[0].message));
    let func = functions_of(&ctx, m)[0];
    (ctx, func)
}

fn functions_of(ctx: &Context, module: Op) -> Vec<Op> {
    let block = ctx.region_blocks(ctx.region(module, 0))[0];
    ctx.block_ops(block)
}

fn registry(extra: Vec<Box<dyn Target>>) -> TargetRegistry {
    let mut r = TargetRegistry::builtin();
    for t in extra {
        r.register(t);
    }
    r
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A conv, a relu, a sigmoid (which the int8 chip lacks) and an add of the sigmoid and the
/// relu: the sigmoid sits between the relu and the add, so the add cannot join the conv's
/// segment.
const CONV_NET: &str = r#"
func.func @main(%x: tensor<1x1x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = "graph.constant"() <{value = dense<5.000000e-01> : tensor<8x1x3x3xf32>}> : () -> tensor<8x1x3x3xf32> loc("w")
  %b = "graph.constant"() <{value = dense<1.000000e-01> : tensor<8xf32>}> : () -> tensor<8xf32> loc("b")
  %c = "graph.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x1x8x8xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32> loc("conv1")
  %r = "graph.Relu"(%c) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("relu1")
  %s = "graph.Sigmoid"(%r) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("sig")
  %a = "graph.Add"(%s, %r) : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("add")
  return %a : tensor<1x8x8x8xf32>
}
"#;

fn setup<'r>(r: &'r TargetRegistry, targets: &[&str], place: &[&str]) -> Setup<'r> {
    let overrides: Vec<Override> = place.iter().map(|p| Override::parse(p).unwrap()).collect();
    Setup::resolve(r, &names(targets), &overrides).unwrap()
}

fn placement(p: &Plan) -> Vec<(String, String)> {
    p.ops
        .iter()
        .map(|o| (o.name.clone().unwrap_or_default(), o.target.clone()))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn ops_go_to_the_first_target_that_runs_them() {
    let r = registry(vec![Box::new(FakeTarget::int8("npu"))]);
    let (mut ctx, func) = parse(CONV_NET);
    let s = setup(&r, &["npu"], &[]);
    assert_eq!(
        s.preferred.iter().map(|t| t.name()).collect::<Vec<_>>(),
        ["npu", "interp"],
        "interp is the implicit fallback"
    );
    s.prepare(&mut ctx);
    let p = plan(&ctx, func, &s).unwrap();
    assert_eq!(
        placement(&p),
        pairs(&[
            ("conv1", "npu"),
            ("relu1", "npu"),
            ("sig", "interp"),
            ("add", "npu")
        ])
    );
    assert_eq!(p.ops[0].reason, Reason::Preferred);
    assert_eq!(
        p.ops[2].reason,
        Reason::FellBack(vec![("npu".into(), Refusal::UnknownOp)])
    );
    assert_eq!(p.ops[2].reason.to_string(), "npu: op not supported");
    // conv1+relu1, then sig, then add: add cannot join conv1's segment through sig.
    let segs: Vec<(String, usize)> = p
        .segments
        .iter()
        .map(|s| (s.target.clone(), s.ops.len()))
        .collect();
    assert_eq!(
        segs,
        [("npu".into(), 2), ("interp".into(), 1), ("npu".into(), 1)]
    );
    assert_eq!(p.refusals[0].target, "npu");
    assert_eq!(p.refusals[0].ops.len(), 1);
    assert!(p.refusals[1].ops.is_empty(), "interp runs all four");
}

#[test]
fn int8_boundaries_get_quantize_and_dequantize_casts() {
    let r = registry(vec![Box::new(FakeTarget::int8("npu"))]);
    let (mut ctx, func) = parse(CONV_NET);
    let s = setup(&r, &["npu"], &[]);
    let out = partition_function(&mut ctx, func, &s).unwrap();
    assert_eq!(out.segment_ops.len(), 3);
    let module = ctx.op_parent_op(func).unwrap();
    nart_ir::verify::verify(&ctx, module).unwrap_or_else(|d| {
        panic!(
            "{}\n{}",
            d[0].message,
            print_op(&ctx, module, &PrintOptions::default())
        )
    });
    let text = print_op(&ctx, func, &PrintOptions::default());
    let q = "!quant.uniform<i8:f32, 3.125000e-02>";
    // Top level: x quantized for the chip; relu dequantized for interp; sig quantized for the
    // chip's add; add's result dequantized for the return.
    for want in [
        format!("%0 = quant.qcast %arg0 : tensor<1x1x8x8xf32> to tensor<1x1x8x8x{q}>"),
        format!("%1 = target.segment \"npu\"(%0) : (tensor<1x1x8x8x{q}>) -> tensor<1x8x8x8x{q}>"),
        format!("%2 = quant.dcast %1 : tensor<1x8x8x8x{q}> to tensor<1x8x8x8xf32>"),
        "%3 = target.segment \"interp\"(%2) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>".into(),
        format!("%4 = quant.qcast %3 : tensor<1x8x8x8xf32> to tensor<1x8x8x8x{q}>"),
        format!("%5 = target.segment \"npu\"(%4, %1) : (tensor<1x8x8x8x{q}>, tensor<1x8x8x8x{q}>) -> tensor<1x8x8x8x{q}>"),
        format!("%6 = quant.dcast %5 : tensor<1x8x8x8x{q}> to tensor<1x8x8x8xf32>"),
        "return %6 : tensor<1x8x8x8xf32>".into(),
    ] {
        assert!(text.contains(&want), "missing '{want}' in:\n{text}");
    }
    // Inside the chip's segments: dequantize after entry, quantize before the yield.
    insta::assert_snapshot!("int8_boundaries", text);
    // 4 casts between segments and before the return, 2 + 3 inside the chip's segments.
    assert_eq!(out.casts, 9);
    // The constants moved into the conv's segment as copies; the originals are gone.
    assert_eq!(text.matches("graph.constant").count(), 2, "{text}");
    let top: Vec<&str> = ctx
        .block_ops(body_block(&ctx, func).unwrap())
        .iter()
        .map(|&o| ctx.op_name_str(o))
        .collect();
    assert!(!top.contains(&"graph.constant"), "{top:?}");
}

#[test]
fn overrides_win_and_may_name_any_target() {
    let r = registry(vec![
        Box::new(FakeTarget::int8("npu")),
        Box::new(FakeTarget::float("dsp", &["Sigmoid", "Relu"])),
    ]);
    let (mut ctx, func) = parse(CONV_NET);
    // relu1 by name to interp; every Sigmoid by type to dsp, which is not in the list; the
    // later of two overrides matching conv1 wins.
    let s = setup(
        &r,
        &["npu"],
        &[
            "relu*=interp",
            "graph.Sigmoid=dsp",
            "conv1=interp",
            "conv?=npu",
        ],
    );
    s.prepare(&mut ctx);
    let p = plan(&ctx, func, &s).unwrap();
    assert_eq!(
        placement(&p),
        pairs(&[
            ("conv1", "npu"),
            ("relu1", "interp"),
            ("sig", "dsp"),
            ("add", "npu")
        ])
    );
    assert_eq!(p.ops[1].reason, Reason::Override("relu*=interp".into()));
    assert_eq!(p.ops[0].reason.to_string(), "--place conv?=npu");
    assert_eq!(p.override_hits, [1, 1, 0, 1]);
}

#[test]
fn an_override_the_target_refuses_is_an_error_with_the_reason() {
    let r = registry(vec![Box::new(FakeTarget::int8("npu"))]);
    let (mut ctx, func) = parse(CONV_NET);
    let s = setup(&r, &["npu"], &["sig=npu", "graph.Relu=npu"]);
    s.prepare(&mut ctx);
    let errs = plan(&ctx, func, &s).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert_eq!(
        errs[0].message,
        "'graph.Sigmoid' op cannot be placed on 'npu' as --place sig=npu asks: op not supported"
    );
}

#[test]
fn every_refusal_is_listed_and_every_unplaceable_op_reported_at_once() {
    let text = r#"
func.func @main(%x: tensor<1x2x4x4xf32>, %i: tensor<4xi32>) -> (tensor<1x2x4x4xf32>, tensor<4xi32>, tensor<4xf32>) {
  %w = "graph.constant"() <{value = dense<1.000000e+00> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %none = "graph.none"() : () -> none
  %c = "graph.Conv"(%x, %w, %none) <{group = 2 : i64}> : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x4x4xf32> loc("dw")
  %a = "graph.Add"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32> loc("iadd")
  %u = "t.mystery"(%i) : (tensor<4xi32>) -> tensor<4xf32> loc("m1")
  %v = "t.mystery"(%u) : (tensor<4xf32>) -> tensor<4xf32> loc("m2")
  return %c, %a, %v : tensor<1x2x4x4xf32>, tensor<4xi32>, tensor<4xf32>
}
"#;
    let r = registry(vec![Box::new(FakeTarget::int8("npu"))]);
    let (mut ctx, func) = parse(text);
    let s = setup(&r, &["npu"], &[]);
    s.prepare(&mut ctx);
    let errs = plan(&ctx, func, &s).unwrap_err();
    // Both mystery ops at once, each with every target's reason.
    assert_eq!(errs.len(), 2);
    for e in &errs {
        assert_eq!(
            e.message,
            "'t.mystery' op is supported by none of the targets"
        );
        let notes: Vec<&str> = e.notes.iter().map(|n| n.message.as_str()).collect();
        assert_eq!(notes, ["npu: op not supported", "interp: op not supported"]);
    }
    // Without them, the plan lists each refusal of each target with its kind.
    let text = text
        .replace(
            "  %u = \"t.mystery\"(%i) : (tensor<4xi32>) -> tensor<4xf32> loc(\"m1\")\n  %v = \"t.mystery\"(%u) : (tensor<4xf32>) -> tensor<4xf32> loc(\"m2\")\n",
            "  %v = \"graph.Cast\"(%i) <{to = 1 : i64}> : (tensor<4xi32>) -> tensor<4xf32> loc(\"cast\")\n",
        );
    let (mut ctx, func) = parse(&text);
    s.prepare(&mut ctx);
    let p = plan(&ctx, func, &s).unwrap();
    let npu: Vec<(Option<String>, Refusal)> = p.refusals[0]
        .ops
        .iter()
        .map(|o| (o.name.clone(), o.refusal.clone()))
        .collect();
    assert_eq!(
        npu,
        [
            (
                Some("dw".into()),
                Refusal::Attribute {
                    name: "group".into(),
                    value: "2".into()
                }
            ),
            (
                Some("iadd".into()),
                Refusal::DType {
                    value: "operand #0".into(),
                    dtype: "i32".into()
                }
            ),
            (Some("cast".into()), Refusal::UnknownOp),
        ]
    );
    assert!(p.ops.iter().all(|o| o.target == "interp"));
}

#[test]
fn cost_moves_a_small_segment_to_a_neighbours_target() {
    // relu sits alone on a chip with a 1 ms overhead per segment between two interp ops: the
    // cost model moves it to interp. With no overhead it stays.
    let text = r#"
func.func @main(%x: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %a = "graph.Sigmoid"(%x) : (tensor<1x64xf32>) -> tensor<1x64xf32> loc("s1")
  %b = "graph.Relu"(%a) : (tensor<1x64xf32>) -> tensor<1x64xf32> loc("r")
  %c = "graph.Sigmoid"(%b) : (tensor<1x64xf32>) -> tensor<1x64xf32> loc("s2")
  return %c : tensor<1x64xf32>
}
"#;
    for (overhead, relu_on) in [(1e-3, "interp"), (0.0, "chip")] {
        let chip = FakeTarget::float("chip", &["Relu"]).with_throughput(Throughput {
            segment_overhead_s: overhead,
            ..Throughput::default()
        });
        let r = registry(vec![Box::new(chip)]);
        let (mut ctx, func) = parse(text);
        let s = setup(&r, &["chip"], &[]);
        s.prepare(&mut ctx);
        let p = plan(&ctx, func, &s).unwrap();
        assert_eq!(p.ops[1].target, relu_on, "overhead {overhead}");
        if relu_on == "interp" {
            let Reason::Cost {
                from,
                here_s,
                there_s,
            } = &p.ops[1].reason
            else {
                panic!("{:?}", p.ops[1].reason);
            };
            assert_eq!(from, "chip");
            assert!(here_s > there_s && *here_s >= 1e-3, "{here_s} {there_s}");
            assert_eq!(p.segments.len(), 1);
        } else {
            assert_eq!(p.segments.len(), 3);
        }
    }
}

#[test]
fn bad_placements_and_target_lists() {
    for (text, want) in [
        ("conv1", "bad placement 'conv1': expected PATTERN=TARGET"),
        ("=npu", "bad placement '=npu': the pattern is empty"),
        ("a=", "bad placement 'a=': expected one target after '='"),
        (
            "a=b=c",
            "bad placement 'a=b=c': expected one target after '='",
        ),
    ] {
        let e = Override::parse(text).unwrap_err();
        assert!(e.starts_with(want), "{e}");
    }
    let r = TargetRegistry::builtin();
    let e = Setup::resolve(&r, &names(&["npu"]), &[]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown target 'npu' (known targets: interp)"
    );
    let e = Setup::resolve(&r, &names(&["interp", "interp"]), &[]).unwrap_err();
    assert_eq!(e.to_string(), "target 'interp' is listed twice");
    let o = Override::parse("x=gpu").unwrap();
    let e = Setup::resolve(&r, &[], &[o]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown target 'gpu' (known targets: interp)"
    );
}

#[test]
fn globs() {
    for (p, t, want) in [
        ("conv*", "conv1", true),
        ("conv*", "conv", true),
        ("*", "", true),
        ("c?nv1", "conv1", true),
        ("conv?", "conv12", false),
        ("*.Conv", "graph.Conv", true),
        ("*a*b", "xaxxb", true),
        ("*a*b", "xaxxbc", false),
        ("graph.Conv", "graph.ConvTranspose", false),
    ] {
        assert_eq!(glob(p, t), want, "{p} ~ {t}");
    }
}

#[test]
fn ops_with_regions_move_whole_and_capture_their_uses() {
    // The If's branches read %x from outside: the segment takes %x as an operand.
    let text = r#"
func.func @main(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "graph.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("r")
  %y = "graph.If"(%c) ({
    %n = "graph.Neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "graph.yield"(%n) : (tensor<4xf32>) -> ()
  }, {
    "graph.yield"(%r) : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32> loc("if")
  return %y : tensor<4xf32>
}
"#;
    let r = registry(vec![Box::new(FakeTarget::float("chip", &["Relu"]))]);
    let (mut ctx, func) = parse(text);
    let s = setup(&r, &["chip"], &[]);
    let out = partition_function(&mut ctx, func, &s).unwrap();
    assert_eq!(out.segment_ops.len(), 2);
    let module = ctx.op_parent_op(func).unwrap();
    nart_ir::verify::verify(&ctx, module).unwrap_or_else(|d| {
        panic!(
            "{}\n{}",
            d[0].message,
            print_op(&ctx, module, &PrintOptions::default())
        )
    });
    let text = print_op(&ctx, func, &PrintOptions::default());
    assert!(
        text.contains("target.segment \"interp\"(%arg0, %arg1, %0) : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>"),
        "{text}"
    );
}
