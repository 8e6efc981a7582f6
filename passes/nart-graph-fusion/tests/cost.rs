//! The fused ops' cost is their base op's plus the activation's elementwise work, and fusion
//! lowers the total bytes moved (the intermediate is neither written nor read).

mod common;

use common::{ctx, parse, run};
use nart_ir::interfaces::{OpCost, OpCostInterface};
use nart_ir::{Context, Op, WalkOrder};

/// The summed cost of the graph ops in `module` (constants and `none` excluded).
fn total(c: &Context, module: Op) -> OpCost {
    let mut t = OpCost {
        flops: 0.0,
        bytes: 0.0,
    };
    for op in c.collect_ops(module, WalkOrder::PreOrder) {
        let name = c.op_name_str(op);
        if !name.starts_with("graph.") || name == "graph.constant" || name == "graph.none" {
            continue;
        }
        let cost = c
            .op_interface::<dyn OpCostInterface>(op)
            .and_then(|i| i.cost(c, op))
            .unwrap_or_else(|| panic!("{name} has a cost"));
        t.flops += cost.flops;
        t.bytes += cost.bytes;
    }
    t
}

#[test]
fn fused_cost_is_base_plus_activation() {
    let text = r#"
func.func @f(%x: tensor<1x3x8x8xf32>, %a: tensor<2x8x6xf32>) -> (tensor<1x4x6x6xf32>, tensor<2x8x5xf32>) {
  %w = "graph.constant"() <{value = dense<0.5> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
  %b = "graph.constant"() <{value = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %c = "graph.Conv"(%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %r = "graph.Relu"(%c) : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %k = "graph.constant"() <{value = dense<0.5> : tensor<6x5xf32>}> : () -> tensor<6x5xf32>
  %kb = "graph.constant"() <{value = dense<0.5> : tensor<5xf32>}> : () -> tensor<5xf32>
  %m = "graph.MatMul"(%a, %k) : (tensor<2x8x6xf32>, tensor<6x5xf32>) -> tensor<2x8x5xf32>
  %mb = "graph.Add"(%m, %kb) : (tensor<2x8x5xf32>, tensor<5xf32>) -> tensor<2x8x5xf32>
  %t = "graph.LeakyRelu"(%mb) : (tensor<2x8x5xf32>) -> tensor<2x8x5xf32>
  return %r, %t : tensor<1x4x6x6xf32>, tensor<2x8x5xf32>
}
"#;
    let mut c = ctx();
    let m = parse(&mut c, text);
    let before = total(&c, m);
    run(
        &mut c,
        m,
        "builtin.module(func.func(graph-fuse-activation))",
    );
    let after = total(&c, m);
    // Conv: 2·144·27 + 144 (bias); MatMul: 2·80·6; bias Add: 80; Relu 144; LeakyRelu 80:
    // the same FLOPs before and after.
    let conv = 2.0 * 144.0 * 27.0 + 144.0;
    let matmul = 2.0 * 80.0 * 6.0;
    assert_eq!(before.flops, conv + 144.0 + matmul + 80.0 + 80.0);
    assert_eq!(after.flops, before.flops);
    // The Conv result (144 floats) and the product and its sum (80 floats each) are no
    // longer written and read.
    assert_eq!(before.bytes - after.bytes, 4.0 * (2.0 * 144.0 + 4.0 * 80.0));
}
