//! `nart_target::lowering`, the helpers of a target that compiles segments itself: attributes
//! as plain values, one-to-one lowering of a segment, the checks of quantized operands, and
//! value slots with embedded weights. (`examples/toy-npu` uses them end to end.)

use nart_ir::{Context, Op};
use nart_target::harness::{context, main_func};
use nart_target::lowering::{
    check_quantized, int_attrs, is_weight_cast, keyword, lower_one_to_one, weight_of, OneToOne,
    QuantSlots,
};
use nart_target::rt::wire::IntTensorRecord;
use nart_target::testing::FakeTarget;
use nart_target::{Refusal, Setup, TargetRegistry};
use nart_tensor::{DType, Tensor};

const FLOAT: &str = r#"func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "graph.constant"() <{value = dense<1.0> : tensor<2x2x1x1xf32>}> : () -> tensor<2x2x1x1xf32>
  %c = "graph.Conv"(%x, %w) <{group = 1 : i64, pads = array<i64: 0, 0, 0, 0>}> : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = "graph.Relu"(%c) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}
"#;

/// The one segment of `FLOAT` on a chip running Conv and Relu.
fn segment(ctx: &mut Context) -> Op {
    let m = nart_ir::parser::parse_source(ctx, "f.mlir", FLOAT).unwrap();
    let func = main_func(ctx, m);
    let mut r = TargetRegistry::builtin();
    r.register(Box::new(FakeTarget::float("chip", &["Conv", "Relu"])));
    let setup = Setup::resolve(&r, &["chip".into()], &[]).unwrap();
    let parts = nart_target::partition_function(ctx, func, &setup).unwrap();
    assert_eq!(parts.segment_ops.len(), 1);
    parts.segment_ops[0]
}

fn ops_named(ctx: &Context, seg: Op, name: &str) -> Vec<Op> {
    let body = ctx.region_blocks(ctx.region(seg, 0))[0];
    let ops = ctx.block_ops(body).to_vec();
    ops.into_iter()
        .filter(|&o| ctx.op_name_str(o) == name)
        .collect()
}

#[test]
fn attributes_as_plain_values() {
    let mut ctx = context();
    let seg = segment(&mut ctx);
    let conv = ops_named(&ctx, seg, "graph.Conv")[0];
    let ints = int_attrs(&ctx, conv, &["pads", "group", "strides"]);
    assert_eq!(ints.len(), 2, "{ints:?}");
    assert_eq!(ints["pads"], [0, 0, 0, 0]);
    assert_eq!(ints["group"], [1]);
    assert_eq!(keyword(&ctx, conv, "auto_pad"), None);
}

#[test]
fn a_segment_lowers_one_to_one() {
    let mut ctx = context();
    let seg = segment(&mut ctx);
    let before = nart_ir::printer::print_op(&ctx, seg, &Default::default());
    let rules = OneToOne {
        ops: &[
            ("graph.Conv", "graph.Conv"),
            ("graph.Relu", "graph.Sigmoid"),
        ],
        keep: &["graph.constant"],
        props: &["pads", "group"],
    };
    let mut seen = Vec::new();
    let (ops, yields) = lower_one_to_one(&mut ctx, seg, &rules, |ctx, op, st| {
        seen.push(ctx.op_name_str(op).to_string());
        st
    })
    .unwrap();
    assert_eq!(seen, ["graph.Conv", "graph.Relu"]);
    let names: Vec<&str> = ops.iter().map(|&o| ctx.op_name_str(o)).collect();
    assert_eq!(names, ["graph.Conv", "graph.Sigmoid"]);
    // The new ops read each other, the props came along, the yield is the last result.
    assert_eq!(ctx.operand(ops[1], 0), ctx.result(ops[0], 0));
    assert_eq!(int_attrs(&ctx, ops[0], &["pads", "group"]).len(), 2);
    assert_eq!(yields, [ctx.result(ops[1], 0)]);
    ops.iter().rev().for_each(|&o| ctx.erase_op(o));
    assert_eq!(
        nart_ir::printer::print_op(&ctx, seg, &Default::default()),
        before
    );

    // An op the rules neither lower nor keep is an error at it.
    let partial = OneToOne {
        ops: &[("graph.Conv", "graph.Conv")],
        ..rules
    };
    let e = lower_one_to_one(&mut ctx, seg, &partial, |_, _, st| st).unwrap_err();
    assert_eq!(
        e.message,
        "'graph.Relu' op cannot be lowered: no rule lowers or keeps it"
    );
    assert_eq!(
        nart_ir::printer::print_op(&ctx, seg, &Default::default()),
        before
    );
}

const QUANT: &str = r#"func.func @main(%x: tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>, %y: tensor<4xf32>) -> (tensor<4x!quant.uniform<i8:f32, 2.500000e-01>>, tensor<4xf32>) {
  %w = "graph.constant"() <{value = dense<[1, -2, 3, 4]> : tensor<4xi8>}> : () -> tensor<4xi8>
  %q = quant.scast %w : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 2.500000e-01>>
  return %q, %y : tensor<4x!quant.uniform<i8:f32, 2.500000e-01>>, tensor<4xf32>
}
"#;

#[test]
fn quantized_values_and_weights() {
    let mut ctx = context();
    nart_dialect_quant::register(&mut ctx);
    let m = nart_ir::parser::parse_source(&mut ctx, "q.mlir", QUANT).unwrap();
    let func = main_func(&ctx, m);
    let body = ctx.region_blocks(ctx.region(func, 0))[0];
    let (args, ops) = (ctx.block_args(body).to_vec(), ctx.block_ops(body).to_vec());
    let (constant, cast) = (ops[0], ops[1]);
    assert!(is_weight_cast(&ctx, cast) && !is_weight_cast(&ctx, constant));

    // The cast's operand holds plain i8: refused for its element type; its result passes.
    let e = check_quantized(&ctx, cast, |_| (DType::I8, false)).unwrap_err();
    assert_eq!(
        e,
        Refusal::DType {
            value: "operand #0".into(),
            dtype: "i8".into()
        }
    );

    let w = ctx.result(cast, 0);
    let want = Tensor::from_i128(DType::I8, vec![4], vec![1, -2, 3, 4]).unwrap();
    assert_eq!(weight_of(&ctx, w).unwrap().unwrap(), want);
    assert!(weight_of(&ctx, args[0]).is_none());
    let mut s = QuantSlots::default();
    assert_eq!(s.slots(&ctx, &[args[0], w, args[0]]).unwrap(), [0, 1, 0]);
    assert_eq!(s.quant.len(), 2);
    assert_eq!(
        (s.quant[0].scales.clone(), s.quant[1].scales.clone()),
        (vec![0.5], vec![0.25])
    );
    assert_eq!(s.consts, [(1, IntTensorRecord::of(&want).unwrap())]);
    let e = s.slot(&ctx, args[1]).unwrap_err();
    assert_eq!(e, "a value of type tensor<4xf32> is not quantized");
}
