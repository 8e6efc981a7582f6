//! What the integration tests share: running a partitioned function the way a runtime would.

use std::collections::HashMap;

use nart_dialect_target::{CompiledOp, SegmentOp};
use nart_ir::{Context, Op, Value};
use nart_target::compile::{artifact_of, target_of};
use nart_target::TargetRegistry;
use nart_tensor::Tensor;

/// Runs a partitioned function the way a runtime would: every segment compiled by its target
/// (or every compiled segment's artifact) loaded by its runtime, constants decoded, values handed from segment to segment.
pub fn run_partitioned(
    ctx: &mut Context,
    func: Op,
    registry: &TargetRegistry,
    inputs: &[Tensor],
) -> Vec<Tensor> {
    let runtimes = registry.runtimes();
    let block = ctx.region_blocks(ctx.region(func, 0))[0];
    let mut env: HashMap<Value, Tensor> = ctx
        .block_args(block)
        .iter()
        .copied()
        .zip(inputs.iter().cloned())
        .collect();
    for op in ctx.block_ops(block) {
        if ctx.isa::<SegmentOp>(op) || ctx.isa::<CompiledOp>(op) {
            let artifact = match artifact_of(ctx, op) {
                Some(a) => a,
                None => {
                    let target = registry.get(target_of(ctx, op).unwrap()).unwrap();
                    target.compile(ctx, op).unwrap()
                }
            };
            let exe = runtimes.load(&artifact).unwrap();
            let ins: Vec<Tensor> = ctx.operands(op).iter().map(|v| env[v].clone()).collect();
            let outs = exe.run(&ins).unwrap();
            for (&r, t) in ctx.results(op).to_vec().iter().zip(outs) {
                env.insert(r, t);
            }
        } else if let Some(value) = ctx
            .attr(op, "value")
            .filter(|_| ctx.operands(op).is_empty())
        {
            let t = nart_interp::convert::tensor_from_attr(ctx, value).unwrap();
            env.insert(ctx.result(op, 0), t);
        } else {
            assert_eq!(
                ctx.op_name_str(op),
                "func.return",
                "unexpected top-level op"
            );
            return ctx.operands(op).iter().map(|v| env[v].clone()).collect();
        }
    }
    panic!("no terminator");
}
