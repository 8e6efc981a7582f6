//! `graph.pool`: `MaxPool` or `AveragePool` in a stated data layout, so that a channels-last
//! region (`graph-layout{layout=nhwc}`) keeps its pools channels-last instead of wrapping each
//! in a Transpose pair.
//!
//! `kind` names the base op (`"max"` or `"average"`), whose attributes it takes unchanged (ONNX
//! names and defaults); `layout` is `"nchw"` (the default: the base op itself) or `"nhwc"`
//! (input `[N, spatial..., C]`, result `[N, spatial..., C]`: the base op on the input moved to
//! channels-first, moved back). Only the pooled values are a result: a `MaxPool` whose indices
//! are used stays a `MaxPool`. Inference and cost are the base op's; the exporter writes the
//! base op between Transposes.

use nart_ir::interfaces::{InferShapedTypeOpInterface, OpCostInterface};
use nart_ir::registry::{AttrConstraint, AttrDef, OpDef, Trait, TypeConstraint, ValueDef};
use nart_ir::{interface_impl, Context, Diagnostic, Op};

use crate::constraints as c;
use crate::fused::ConvLayout;
use crate::infer::{one, InferResult, Rules};

/// Float tensors, as ONNX's `MaxPool` and `AveragePool` take.
const FLOAT_TENSOR: TypeConstraint = TypeConstraint {
    desc: "tensor of float, float16, double, bfloat16 values",
    buildable: None,
    check: |ctx, ty| c::onnx_type_allowed(ctx, ty, &[1, 10, 11, 16], false, false, false),
};

const fn value(name: &'static str) -> ValueDef {
    ValueDef {
        name,
        constraint: FLOAT_TENSOR,
        arity: nart_ir::registry::Arity::Single,
    }
}

const fn attr(name: &'static str, constraint: AttrConstraint, doc: &'static str) -> AttrDef {
    AttrDef::optional(name, constraint, doc)
}

/// `graph.pool`: a max or average pool in a stated layout.
pub static POOL: OpDef = OpDef {
    name: "graph.pool",
    summary: "Max or average pooling in a stated data layout",
    description: "ONNX `MaxPool` (`kind = \"max\"`, the pooled values only) or `AveragePool` \
(`kind = \"average\"`), attributes as the base op's with the same defaults, in the layout \
`layout` states: `\"nchw\"` (the default, the base op's) or `\"nhwc\"` (channels last: `X` and \
`Y` `[N, spatial..., C]`; the values are the base op's on `X` moved to channels-first, moved \
back) or `\"nchw<b>c\"` (channels in blocks of `b`: `X` and `Y` `[N, ceil(C/b), spatial..., b]`). `graph-layout{layout=nhwc}` makes it.\n\n```mlir\n%y = \"graph.pool\"(%x) <{kind = \
\"max\", kernel_shape = array<i64: 3, 3>, layout = \"nhwc\", pads = array<i64: 1, 1, 1, 1>, \
strides = array<i64: 2, 2>}> : (tensor<1x112x112x64xf32>) -> tensor<1x56x56x64xf32>\n```",
    operands: &[value("X")],
    results: &[value("Y")],
    attrs: &[
        AttrDef::required(
            "kind",
            c::STR_ATTR,
            "The base op: `\"max\"` (`MaxPool`) or `\"average\"` (`AveragePool`).",
        ),
        attr(
            "auto_pad",
            c::STR_ATTR,
            "As the base op's (default `\"NOTSET\"`).",
        ),
        attr("ceil_mode", c::I64_ATTR, "As the base op's (default 0)."),
        attr(
            "count_include_pad",
            c::I64_ATTR,
            "As `AveragePool`'s (default 0); only with `kind = \"average\"`.",
        ),
        attr(
            "dilations",
            c::I64_ARRAY_ATTR,
            "As the base op's (default 1 along each axis).",
        ),
        AttrDef::required("kernel_shape", c::I64_ARRAY_ATTR, "As the base op's."),
        attr(
            "layout",
            c::STR_ATTR,
            "`\"nchw\"` (the default): `X` `[N, C, spatial...]`, as the base op. `\"nhwc\"`: \
             channels last, `X` and `Y` `[N, spatial..., C]`. `\"nchw<b>c\"` (e.g. \
             `\"nchw8c\"`): channels in blocks of `b`, `X` and `Y` `[N, ceil(C/b), spatial..., \
             b]`.",
        ),
        attr("pads", c::I64_ARRAY_ATTR, "As the base op's (default 0)."),
        attr(
            "strides",
            c::I64_ARRAY_ATTR,
            "As the base op's (default 1 along each axis).",
        ),
    ],
    traits: &[Trait::Pure],
    interfaces: &[
        interface_impl!(InferShapedTypeOpInterface => LayoutPool),
        interface_impl!(OpCostInterface => crate::cost::Pool),
    ],
    verify: Some(verify_pool),
    ..OpDef::DEFAULT
};

/// The pool ops, for the dialect's op list.
pub static OPS: [&OpDef; 1] = [&POOL];

/// The inference rule of `graph.pool` (read by the `infer` module's tests).
pub const INFER_RULES: Rules = &[("LayoutPool", &["pool"])];

/// The base op `kind` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolKind {
    /// `MaxPool`.
    Max,
    /// `AveragePool`.
    Average,
}

impl PoolKind {
    /// The kind `op` states.
    pub fn of(ctx: &Context, op: Op) -> Result<PoolKind, String> {
        match ctx.attr(op, "kind").map(|a| ctx.attr_str(a)) {
            None => Err("requires attribute 'kind'".into()),
            Some(Some("max")) => Ok(PoolKind::Max),
            Some(Some("average")) => Ok(PoolKind::Average),
            Some(Some(other)) => Err(format!(
                "kind must be \"max\" or \"average\", but got \"{other}\""
            )),
            Some(None) => Err("kind must be a string".into()),
        }
    }

    /// The attribute's keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            PoolKind::Max => "max",
            PoolKind::Average => "average",
        }
    }

    /// The ONNX operator.
    pub fn onnx_name(self) -> &'static str {
        match self {
            PoolKind::Max => "MaxPool",
            PoolKind::Average => "AveragePool",
        }
    }
}

/// Inference of `graph.pool`: the base op's pooled values, in the stated layout.
#[derive(Clone, Copy, Debug)]
pub struct LayoutPool;

impl InferShapedTypeOpInterface for LayoutPool {
    fn infer_shaped_results(&self, ctx: &Context, op: Op) -> InferResult {
        let i = crate::infer::In { ctx, op };
        let r = match ConvLayout::of(ctx, op)? {
            ConvLayout::Nchw => crate::infer::conv_pool::pool_of(&i, i.shaped(0)?)?,
            ConvLayout::Nhwc => crate::infer::conv_pool::pool_channels_last(&i)?,
            ConvLayout::Blocked(b) => crate::infer::conv_pool::pool_blocked(&i, b)?,
        };
        one(r)
    }
}

fn verify_pool(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let kind = PoolKind::of(ctx, op).map_err(|m| ctx.op_error(op, m))?;
    ConvLayout::of(ctx, op).map_err(|m| ctx.op_error(op, m))?;
    if kind == PoolKind::Max && ctx.attr(op, "count_include_pad").is_some() {
        return Err(ctx.op_error(op, "count_include_pad is only for kind \"average\""));
    }
    crate::infer::verify_op(ctx, op)
}
