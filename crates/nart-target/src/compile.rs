//! Compiling segments: each `target.segment` becomes a `target.compiled` holding the artifact
//! its target produced (the artifact's bytes, format and SDK version are properties).

use nart_dialect_target::{CompiledOp, SegmentOp};
use nart_ir::{AttrData, Context, Diagnostic, Op, OperationState, PatternRewriter, WalkOrder};
use nart_target_rt::Artifact;

use crate::TargetRegistry;

/// The artifact a `target.compiled` holds.
pub fn artifact_of(ctx: &Context, compiled: Op) -> Option<Artifact> {
    let text = |name: &str| ctx.attr(compiled, name).and_then(|a| ctx.attr_str(a));
    let bytes = match ctx.attr_data(ctx.attr(compiled, "artifact")?) {
        AttrData::String { value, .. } => value.clone(),
        _ => return None,
    };
    Some(Artifact::new(
        text("target")?,
        text("format")?,
        text("sdk_version")?,
        bytes,
    ))
}

/// The target a `target.segment` or `target.compiled` names.
pub fn target_of(ctx: &Context, op: Op) -> Option<&str> {
    ctx.attr(op, "target").and_then(|a| ctx.attr_str(a))
}

/// Compiles every `target.segment` nested in `root` with its target from `registry` and
/// replaces it with a `target.compiled`. Returns how many it compiled; reports every segment
/// that fails (an unknown target, a compiler error), leaving those as they were.
pub fn compile_segments(
    ctx: &mut Context,
    root: Op,
    registry: &TargetRegistry,
) -> Result<usize, Vec<Diagnostic>> {
    let segments: Vec<Op> = ctx
        .collect_ops(root, WalkOrder::PreOrder)
        .into_iter()
        .filter(|&op| ctx.dyn_cast::<SegmentOp>(op).is_some())
        .collect();
    let mut errors = Vec::new();
    let mut done = 0;
    for seg in segments {
        let name = target_of(ctx, seg).unwrap_or_default().to_string();
        let target = match registry.get(&name) {
            Ok(t) => t,
            Err(e) => {
                errors.push(ctx.op_error(seg, e));
                continue;
            }
        };
        target.prepare(ctx);
        let artifact = match target.compile(ctx, seg) {
            Ok(a) => a,
            Err(d) => {
                errors.push(d);
                continue;
            }
        };
        let loc = ctx.op_loc(seg);
        let operands = ctx.operands(seg).to_vec();
        let types: Vec<_> = ctx
            .results(seg)
            .iter()
            .map(|&r| ctx.value_type(r))
            .collect();
        let target_attr = ctx.string_attr(&artifact.target);
        let format = ctx.string_attr(&artifact.format);
        let sdk = ctx.string_attr(&artifact.sdk_version);
        let bytes = ctx.intern_attr(AttrData::String {
            value: artifact.bytes,
            ty: None,
        });
        let state = OperationState::new(ctx, CompiledOp::NAME, loc)
            .operands(&operands)
            .results(&types)
            .prop(ctx, "target", target_attr)
            .prop(ctx, "format", format)
            .prop(ctx, "sdk_version", sdk)
            .prop(ctx, "artifact", bytes);
        let mut rw = PatternRewriter::new(ctx);
        rw.replace_op_with_new(seg, state);
        done += 1;
    }
    if errors.is_empty() {
        Ok(done)
    } else {
        Err(errors)
    }
}
