//! `graph.reorder`: moves a channels-first tensor into a blocked channel layout (`nchw8c`,
//! `nchw16c`, any `nchw<b>c`) or back. `graph-layout{layout=nchw8c}` puts one at each border of
//! a blocked region; the exporter writes it as the standard ops it stands for (`Pad`, `Reshape`,
//! `Transpose` into the blocked layout; `Transpose`, `Reshape`, `Slice` out of it).
//!
//! Into `nchw<b>c`: `X` `[N, C, spatial...]` becomes `[N, ceil(C/b), spatial..., b]`, channel
//! `c` at block `c / b`, lane `c % b`, the lanes past `C` (the tail) zero. Back to `nchw`:
//! `X` `[N, ceil(C/b), spatial..., b]` becomes `[N, C, spatial...]` with `C = channels`, the
//! tail dropped.

use nart_ir::interfaces::{InferShapedTypeOpInterface, OpCostInterface};
use nart_ir::registry::{AttrDef, OpDef, Trait, TypeConstraint, ValueDef};
use nart_ir::{interface_impl, Context, Diagnostic, Op, DYNAMIC};

use crate::constraints as c;
use crate::fused::ConvLayout;
use crate::infer::{one, InferResult, Rules};

/// Numeric tensors (the tail is filled with zeros).
const TENSOR: TypeConstraint = TypeConstraint {
    desc: "tensor of numeric values",
    buildable: None,
    check: |ctx, ty| {
        c::onnx_type_allowed(
            ctx,
            ty,
            &[1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 16],
            false,
            false,
            false,
        )
    },
};

const fn value(name: &'static str) -> ValueDef {
    ValueDef {
        name,
        constraint: TENSOR,
        arity: nart_ir::registry::Arity::Single,
    }
}

/// `graph.reorder`: into a blocked channel layout or back to channels-first.
pub static REORDER: OpDef = OpDef {
    name: "graph.reorder",
    summary: "Move a tensor into a blocked channel layout (nchw<b>c) or back to nchw",
    description: "With `layout = \"nchw<b>c\"` (e.g. `\"nchw8c\"`), `X` `[N, C, spatial...]` \
becomes `Y` `[N, ceil(C/b), spatial..., b]`: channel `c` at block `c / b`, lane `c % b`, and \
the lanes past `C` zero. With `layout = \"nchw\"`, `X` `[N, ceil(C/b), spatial..., b]` becomes \
`Y` `[N, C, spatial...]`, `C` given by `channels`, the lanes past it dropped. The exporter \
writes it as `Pad`, `Reshape` and `Transpose` (into the blocked layout) or `Transpose`, \
`Reshape` and `Slice` (out of it). `graph-layout{layout=nchw8c}` makes it.\n\n```mlir\n%b = \
\"graph.reorder\"(%x) <{layout = \"nchw8c\"}> : (tensor<1x12x4x4xf32>) -> \
tensor<1x2x4x4x8xf32>\n%y = \"graph.reorder\"(%b) <{channels = 12 : i64, layout = \"nchw\"}> : \
(tensor<1x2x4x4x8xf32>) -> tensor<1x12x4x4xf32>\n```",
    operands: &[value("X")],
    results: &[value("Y")],
    attrs: &[
        AttrDef::required(
            "layout",
            c::STR_ATTR,
            "The result's layout: `\"nchw<b>c\"` (into blocks of `b`) or `\"nchw\"` (back).",
        ),
        AttrDef::optional(
            "channels",
            c::I64_ATTR,
            "With `layout = \"nchw\"` (and only then, where it is required): the channel count \
             `C` of the result, more than `(blocks - 1) * b` and at most `blocks * b`.",
        ),
    ],
    traits: &[Trait::Pure],
    interfaces: &[
        interface_impl!(InferShapedTypeOpInterface => Reorder),
        interface_impl!(OpCostInterface => crate::cost::Elementwise),
    ],
    verify: Some(verify_reorder),
    ..OpDef::DEFAULT
};

/// The reorder ops, for the dialect's op list.
pub static OPS: [&OpDef; 1] = [&REORDER];

/// The inference rule of `graph.reorder` (read by the `infer` module's tests).
pub const INFER_RULES: Rules = &[("Reorder", &["reorder"])];

/// Inference of `graph.reorder`.
#[derive(Clone, Copy, Debug)]
pub struct Reorder;

impl InferShapedTypeOpInterface for Reorder {
    fn infer_shaped_results(&self, ctx: &Context, op: Op) -> InferResult {
        let i = crate::infer::In { ctx, op };
        let x = i.shaped(0)?;
        let layout = ConvLayout::of(ctx, op)?;
        let channels = ctx
            .attr(op, "channels")
            .and_then(|a| ctx.attr_int(a))
            .map(|v| i64::try_from(v).unwrap_or(0));
        match (layout, channels) {
            (ConvLayout::Blocked(_), Some(_)) => {
                return Err("channels is only for layout \"nchw\"".into())
            }
            (ConvLayout::Nchw, None) => {
                return Err("layout \"nchw\" requires attribute 'channels'".into())
            }
            (ConvLayout::Nhwc, _) => return Err("layout must be \"nchw\" or \"nchw<b>c\"".into()),
            _ => {}
        }
        let Some(s) = x.shape.clone() else {
            return one(x);
        };
        match layout {
            ConvLayout::Blocked(b) => {
                if s.len() < 3 {
                    return Err(format!(
                        "input must be [N, C, spatial...] (rank 3 or more), but got {}",
                        i.type_str(0)
                    ));
                }
                one(crate::infer::t(
                    x.elem,
                    Some(crate::infer::conv_pool::blocked_shape(&s, b)),
                ))
            }
            _ => {
                let c = channels.unwrap_or(DYNAMIC);
                let r = s.len();
                if r < 4 {
                    return Err(format!(
                        "input must be blocked, [N, C/b, spatial..., b] (rank 4 or more), but \
                         got {}",
                        i.type_str(0)
                    ));
                }
                let (blocks, b) = (s[1], s[r - 1]);
                if c <= 0 {
                    return Err(format!("channels must be positive, but got {c}"));
                }
                if blocks != DYNAMIC && b != DYNAMIC && (c > blocks * b || c <= (blocks - 1) * b) {
                    return Err(format!(
                        "channels ({c}) must be more than {} and at most {} for {blocks} blocks \
                         of {b}",
                        (blocks - 1) * b,
                        blocks * b
                    ));
                }
                let mut out = vec![s[0], c];
                out.extend(&s[2..r - 1]);
                one(crate::infer::t(x.elem, Some(out)))
            }
        }
    }
}

fn verify_reorder(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    ConvLayout::of(ctx, op).map_err(|m| ctx.op_error(op, m))?;
    crate::infer::verify_op(ctx, op)
}
