//! The ops: `target.segment` (ops placed on a target, as a region), `target.yield` (its
//! terminator) and `target.compiled` (a compiled segment, as an artifact).

use nart_ir::registry::{constraints as c, AttrDef, RegionDef};
use nart_ir::{Context, Diagnostic, Op, Type};
use nart_macros::op;

/// The `target` property every segment op has.
const TARGET: AttrDef = AttrDef::required(
    "target",
    c::STRING_ATTR,
    "The name of the target (as registered in the target registry).",
);

const BODY: RegionDef = RegionDef {
    name: "body",
    single_block: true,
    may_be_empty: false,
};

fn type_str(ctx: &Context, ty: Type) -> String {
    nart_ir::printer::type_to_string(ctx, ty)
}

/// A string property that must not be empty.
fn non_empty(ctx: &Context, op: Op, name: &str) -> Result<(), Diagnostic> {
    match ctx.attr(op, name).and_then(|a| ctx.attr_str(a)) {
        Some(s) if !s.is_empty() => Ok(()),
        _ => Err(ctx.op_error(op, format!("requires a non-empty '{name}'"))),
    }
}

fn verify_segment(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    non_empty(ctx, op, "target")?;
    let Some(&block) = ctx.region_blocks(ctx.region(op, 0)).first() else {
        return Ok(());
    };
    let (operands, args) = (ctx.operands(op), ctx.block_args(block));
    if operands.len() != args.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "has {} operands but its body takes {} arguments",
                operands.len(),
                args.len()
            ),
        ));
    }
    for (i, (&v, &a)) in operands.iter().zip(args).enumerate() {
        let (vt, at) = (ctx.value_type(v), ctx.value_type(a));
        if vt != at {
            return Err(ctx.op_error(
                op,
                format!(
                    "body argument #{i} has type {} but operand #{i} has type {}",
                    type_str(ctx, at),
                    type_str(ctx, vt)
                ),
            ));
        }
    }
    let Some(term) = ctx
        .block_last_op(block)
        .filter(|&t| ctx.op_name_str(t) == "target.yield")
    else {
        return Err(ctx.op_error(op, "body must end with 'target.yield'"));
    };
    let (yielded, results) = (ctx.operands(term), ctx.results(op));
    if yielded.len() != results.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "yields {} values but has {} results",
                yielded.len(),
                results.len()
            ),
        ));
    }
    for (i, (&v, &r)) in yielded.iter().zip(results).enumerate() {
        let (vt, rt) = (ctx.value_type(v), ctx.value_type(r));
        if vt != rt {
            return Err(ctx.op_error(
                op,
                format!(
                    "yielded value #{i} has type {} but result #{i} has type {}",
                    type_str(ctx, vt),
                    type_str(ctx, rt)
                ),
            ));
        }
    }
    Ok(())
}

fn verify_compiled(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    non_empty(ctx, op, "target")?;
    non_empty(ctx, op, "format")
}

#[op(
    name = "target.segment",
    def = SEGMENT,
    operands(inputs: variadic(c::ANY)),
    results(outputs: variadic(c::ANY)),
    attrs(target: TARGET),
    regions(body: BODY),
    traits(IsolatedFromAbove, SingleBlock),
    verify = verify_segment,
    format = "$target `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs) $body",
)]
/// Ops placed on one target, before compilation
///
/// The region's single block holds the ops the partitioner placed on `target`, in order; its
/// arguments are the values the ops read from outside (the operands), and its `target.yield`
/// gives the values used outside (the results). The region is isolated from above, so a target
/// compiles it without looking elsewhere; constants the ops use are cloned into it.
/// Where a target wants a value in another precision than the graph has it (int8 next to f32),
/// the boundary holds `quant.qcast`/`quant.dcast` casts and the operand or result has the
/// quantized type.
///
/// ```mlir
/// %0:2 = target.segment "npu"(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
/// ^bb0(%a: tensor<4xf32>):
///   %1 = "graph.Relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
///   %2 = "graph.Neg"(%1) : (tensor<4xf32>) -> tensor<4xf32>
///   target.yield %1, %2 : tensor<4xf32>, tensor<4xf32>
/// }
/// ```
pub struct SegmentOp;

#[op(
    name = "target.yield",
    def = YIELD,
    operands(values: variadic(c::ANY)),
    traits(Pure, Terminator, ReturnLike),
    parents("target.segment"),
    format = "attr-dict ($values^ `:` type($values))?",
)]
/// Ends a segment, giving the values it produces
///
/// Its operands become the results of the enclosing `target.segment`, in order.
///
/// ```mlir
/// target.yield %1, %2 : tensor<4xf32>, tensor<4xf32>
/// ```
pub struct YieldOp;

#[op(
    name = "target.compiled",
    def = COMPILED,
    operands(inputs: variadic(c::ANY)),
    results(outputs: variadic(c::ANY)),
    attrs(
        target: TARGET,
        format: AttrDef::required(
            "format",
            c::STRING_ATTR,
            "What the artifact's bytes are, in the target's words (`mlir-text`, a blob format)."
        ),
        sdk_version: AttrDef::required(
            "sdk_version",
            c::STRING_ATTR,
            "The version of the SDK (or compiler) that produced the artifact."
        ),
        artifact: AttrDef::required(
            "artifact",
            c::STRING_ATTR,
            "The compiled segment, as bytes."
        ),
    ),
    verify = verify_compiled,
    format = "$target `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)",
)]
/// A compiled segment
///
/// Stands where a `target.segment` stood once `target` compiled it: the artifact's bytes, its
/// format and the SDK version that produced it are properties, so the partitioned function
/// stays one module that prints and parses; the runtime of `target` loads the artifact and
/// runs it on the operands.
///
/// ```mlir
/// %0 = target.compiled "interp"(%x) {artifact = "func.func @segment(...) {...}",
///        format = "mlir-text", sdk_version = "nart 0.1.0"} : (tensor<4xf32>) -> tensor<4xf32>
/// ```
pub struct CompiledOp;
