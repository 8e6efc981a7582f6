//! Fused ops: `graph.fused_conv`, `graph.fused_gemm` and `graph.fused_matmul`, an ONNX
//! product followed by an elementwise activation, as graph-level fusion passes produce them.
//!
//! Each takes its base op's operands and attributes unchanged (ONNX names and defaults), plus
//! `activation` (`#graph.activation<...>`, an enum declared as data) and, for the activations
//! that have them, `activation_params` (`array<f32: ...>`): `leaky_relu` takes `[alpha]`,
//! `clip` `[min, max]`, `hard_sigmoid` `[alpha, beta]`; the others take none.
//! The result is `act(base(operands))`, computed in the base op's element type.
//!
//! `graph.fused_matmul` also takes an optional bias (1-D, the size of the product's last
//! dimension, or a scalar) added before the activation, which is what `MatMul` + `Add` of a
//! constant vector fuses to; the bias of `fused_conv` and the `C` of `fused_gemm` are their
//! base op's own.
//! Inference is the base op's, the cost the base op's plus the activation's elementwise work.
//! The names and parameters follow ONNX Runtime's `com.microsoft` `FusedConv` and `FusedGemm`,
//! which is how the exporter writes them.

use nart_ir::enums::{parse_enum_attr, EnumCase, EnumDef};
use nart_ir::extensible::DialectAttrDef;
use nart_ir::interfaces::{InferShapedTypeOpInterface, OpCost, OpCostInterface};
use nart_ir::registry::{AttrConstraint, AttrDef, OpDef, Trait, TypeConstraint, ValueDef};
use nart_ir::{
    interface_impl, AttrData, Context, DenseArrayData, Diagnostic, Op, TypeData, DYNAMIC,
};

use crate::constraints as c;
use crate::infer::{InferResult, Rules};

/// The activation a fused op applies to its product.
pub static ACTIVATION: EnumDef = EnumDef {
    name: "Activation",
    summary: "activation applied to the result of a fused graph op",
    cases: &[
        EnumCase {
            keyword: "none",
            value: activation::NONE,
        },
        EnumCase {
            keyword: "relu",
            value: activation::RELU,
        },
        EnumCase {
            keyword: "leaky_relu",
            value: activation::LEAKY_RELU,
        },
        EnumCase {
            keyword: "clip",
            value: activation::CLIP,
        },
        EnumCase {
            keyword: "sigmoid",
            value: activation::SIGMOID,
        },
        EnumCase {
            keyword: "tanh",
            value: activation::TANH,
        },
        EnumCase {
            keyword: "hard_sigmoid",
            value: activation::HARD_SIGMOID,
        },
    ],
    bit_separator: None,
};

/// The values of [`ACTIVATION`]'s cases.
pub mod activation {
    /// The identity.
    pub const NONE: u64 = 0;
    /// `max(x, 0)`.
    pub const RELU: u64 = 1;
    /// `x` for `x >= 0`, else `alpha * x`; params `[alpha]`.
    pub const LEAKY_RELU: u64 = 2;
    /// `min(max(x, min), max)`; params `[min, max]`.
    pub const CLIP: u64 = 3;
    /// `1 / (1 + exp(-x))`.
    pub const SIGMOID: u64 = 4;
    /// `tanh(x)`.
    pub const TANH: u64 = 5;
    /// `max(0, min(1, alpha * x + beta))`; params `[alpha, beta]`.
    pub const HARD_SIGMOID: u64 = 6;
}

/// `#graph.activation<relu>`.
pub static ACTIVATION_ATTR: DialectAttrDef = DialectAttrDef {
    dialect: "graph",
    mnemonic: "activation",
    summary: "the activation of a fused graph op",
    syntax: "#graph.activation<none | relu | leaky_relu | clip | sigmoid | tanh | hard_sigmoid>",
    parse: parse_enum_attr,
    enum_def: Some(&ACTIVATION),
};

/// An activation with its parameters, as a fused op states it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Activation {
    /// The identity.
    None,
    /// `max(x, 0)`.
    Relu,
    /// `alpha * x` below zero.
    LeakyRelu {
        /// The slope below zero.
        alpha: f32,
    },
    /// `min(max(x, min), max)`.
    Clip {
        /// The lower bound.
        min: f32,
        /// The upper bound.
        max: f32,
    },
    /// The logistic function.
    Sigmoid,
    /// The hyperbolic tangent.
    Tanh,
    /// `max(0, min(1, alpha * x + beta))`.
    HardSigmoid {
        /// The slope.
        alpha: f32,
        /// The offset.
        beta: f32,
    },
}

impl Activation {
    /// The enum value of this activation.
    pub fn kind(self) -> u64 {
        match self {
            Activation::None => activation::NONE,
            Activation::Relu => activation::RELU,
            Activation::LeakyRelu { .. } => activation::LEAKY_RELU,
            Activation::Clip { .. } => activation::CLIP,
            Activation::Sigmoid => activation::SIGMOID,
            Activation::Tanh => activation::TANH,
            Activation::HardSigmoid { .. } => activation::HARD_SIGMOID,
        }
    }

    /// The `activation_params` of this activation (empty for those without parameters).
    pub fn params(self) -> Vec<f32> {
        match self {
            Activation::LeakyRelu { alpha } => vec![alpha],
            Activation::Clip { min, max } => vec![min, max],
            Activation::HardSigmoid { alpha, beta } => vec![alpha, beta],
            _ => Vec::new(),
        }
    }

    /// Builds the activation from its enum value and parameters; a message when the number of
    /// parameters is wrong or the value is not a case.
    pub fn from_parts(kind: u64, params: &[f32]) -> Result<Activation, String> {
        let want = match kind {
            activation::LEAKY_RELU => 1,
            activation::CLIP | activation::HARD_SIGMOID => 2,
            k if ACTIVATION.is_valid(k) => 0,
            k => return Err(format!("activation value {k} is not a case")),
        };
        if params.len() != want {
            return Err(format!(
                "activation {} takes {want} activation_params, but {} are given",
                ACTIVATION.keyword(kind).unwrap_or("?"),
                params.len()
            ));
        }
        Ok(match kind {
            activation::RELU => Activation::Relu,
            activation::LEAKY_RELU => Activation::LeakyRelu { alpha: params[0] },
            activation::CLIP => Activation::Clip {
                min: params[0],
                max: params[1],
            },
            activation::SIGMOID => Activation::Sigmoid,
            activation::TANH => Activation::Tanh,
            activation::HARD_SIGMOID => Activation::HardSigmoid {
                alpha: params[0],
                beta: params[1],
            },
            _ => Activation::None,
        })
    }

    /// The activation `op` states (its `activation` and `activation_params`).
    pub fn of(ctx: &Context, op: Op) -> Result<Activation, String> {
        let Some(a) = ctx.attr(op, "activation") else {
            return Err("requires attribute 'activation'".into());
        };
        let Some(kind) = ctx.enum_value(a, &ACTIVATION_ATTR) else {
            return Err("attribute 'activation' is not a #graph.activation".into());
        };
        let params: Vec<f32> = match ctx.attr(op, "activation_params").map(|p| ctx.attr_data(p)) {
            None => Vec::new(),
            Some(AttrData::DenseArray {
                data: DenseArrayData::Float(v),
                ..
            }) => v.iter().map(|b| f64::from_bits(*b) as f32).collect(),
            Some(_) => return Err("attribute 'activation_params' is not an array<f32>".into()),
        };
        Activation::from_parts(kind, &params)
    }

    /// The ONNX operator of the activation (`Relu`, `LeakyRelu`, ...), `None` for the identity.
    pub fn onnx_name(self) -> Option<&'static str> {
        Some(match self {
            Activation::None => return None,
            Activation::Relu => "Relu",
            Activation::LeakyRelu { .. } => "LeakyRelu",
            Activation::Clip { .. } => "Clip",
            Activation::Sigmoid => "Sigmoid",
            Activation::Tanh => "Tanh",
            Activation::HardSigmoid { .. } => "HardSigmoid",
        })
    }

    /// Applies the activation to one value, as the ONNX operator defines it.
    pub fn apply(self, x: f32) -> f32 {
        match self {
            Activation::None => x,
            Activation::Relu => x.max(0.0),
            Activation::LeakyRelu { alpha } => {
                if x >= 0.0 {
                    x
                } else {
                    alpha * x
                }
            }
            Activation::Clip { min, max } => x.max(min).min(max),
            Activation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            Activation::Tanh => x.tanh(),
            Activation::HardSigmoid { alpha, beta } => (alpha * x + beta).clamp(0.0, 1.0),
        }
    }

    /// The operations per result element the activation costs, as the default cost model
    /// counts the activation op alone (one per element, `Clip` with both bounds two), so that
    /// fusing never changes the FLOPs, only the bytes moved.
    fn flops(self) -> f64 {
        match self {
            Activation::None => 0.0,
            Activation::Clip { .. } => 2.0,
            _ => 1.0,
        }
    }
}

const ACTIVATION_PROP: AttrDef = AttrDef::required(
    "activation",
    AttrConstraint::dialect("fused activation", &ACTIVATION_ATTR),
    "The activation applied to the product (`#graph.activation<relu>`).",
);

const ACTIVATION_PARAMS_PROP: AttrDef = AttrDef::optional(
    "activation_params",
    c::F32_ARRAY_ATTR,
    "The activation's parameters: `[alpha]` for `leaky_relu`, `[min, max]` for `clip`, \
     `[alpha, beta]` for `hard_sigmoid`, absent for the others.",
);

/// Float tensors, as ONNX's `Conv`, `Gemm` and `MatMul` take (and `none` for an absent bias).
const FLOAT_TENSOR: TypeConstraint = TypeConstraint {
    desc: "tensor of float, float16, double, bfloat16 values",
    buildable: None,
    check: |ctx, ty| c::onnx_type_allowed(ctx, ty, &[1, 10, 11, 16], false, false, false),
};
const FLOAT_TENSOR_OR_NONE: TypeConstraint = TypeConstraint {
    desc: "tensor of float, float16, double, bfloat16 values or none",
    buildable: None,
    check: |ctx, ty| c::onnx_type_allowed(ctx, ty, &[1, 10, 11, 16], false, false, true),
};

const fn value(name: &'static str, constraint: TypeConstraint) -> ValueDef {
    ValueDef {
        name,
        constraint,
        arity: nart_ir::registry::Arity::Single,
    }
}

const fn attr(name: &'static str, constraint: AttrConstraint, doc: &'static str) -> AttrDef {
    AttrDef::optional(name, constraint, doc)
}

/// `graph.fused_conv`: `Conv` then an activation.
pub static FUSED_CONV: OpDef = OpDef {
    name: "graph.fused_conv",
    summary: "Convolution followed by an activation",
    description: "ONNX `Conv` (operands `X`, `W` and the optional `B`, attributes as `Conv`'s, \
with the same defaults) whose result goes through `activation`; ONNX Runtime's \
`com.microsoft.FusedConv`.\n\n```mlir\n%y = \"graph.fused_conv\"(%x, %w, %b) <{activation = \
#graph.activation<clip>, activation_params = array<f32: 0.0, 6.0>, pads = array<i64: 1, 1, 1, 1>}> \
: (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>\n```",
    operands: &[
        value("X", FLOAT_TENSOR),
        value("W", FLOAT_TENSOR),
        value("B", FLOAT_TENSOR_OR_NONE),
    ],
    results: &[value("Y", FLOAT_TENSOR)],
    attrs: &[
        ACTIVATION_PROP,
        ACTIVATION_PARAMS_PROP,
        attr(
            "auto_pad",
            c::STR_ATTR,
            "As `Conv`'s (default `\"NOTSET\"`).",
        ),
        attr(
            "dilations",
            c::I64_ARRAY_ATTR,
            "As `Conv`'s (default 1 along each axis).",
        ),
        attr("group", c::I64_ATTR, "As `Conv`'s (default 1)."),
        attr(
            "kernel_shape",
            c::I64_ARRAY_ATTR,
            "As `Conv`'s (default: from `W`).",
        ),
        attr(
            "layout",
            c::STR_ATTR,
            "`\"nchw\"` (the default): `Conv`'s layout, `X` `[N, C, spatial...]`, `W` \
             `[M, C/group, k...]`, `Y` `[N, M, spatial...]`. `\"nhwc\"`: channels last, `X` \
             `[N, spatial..., C]`, `W` `[M, k..., C/group]`, `Y` `[N, spatial..., M]`; the \
             values are those of `Conv` on the operands moved to channels-first, moved back. \
             `\"nchw<b>c\"` (e.g. `\"nchw8c\"`): channels in blocks of `b`, `X` \
             `[N, ceil(C/b), spatial..., b]`, `W` `[ceil(M/b), K, k..., bi, b]` (see \
             `ConvLayout::Blocked`), `B` the `ceil(M/b) * b` padded output channels, `Y` \
             `[N, ceil(M/b), spatial..., b]`; `group` counts the padded channels.",
        ),
        attr("pads", c::I64_ARRAY_ATTR, "As `Conv`'s (default 0)."),
        attr(
            "strides",
            c::I64_ARRAY_ATTR,
            "As `Conv`'s (default 1 along each axis).",
        ),
    ],
    traits: &[Trait::Pure],
    interfaces: &[
        interface_impl!(InferShapedTypeOpInterface => FusedConv),
        interface_impl!(OpCostInterface => FusedConv),
    ],
    verify: Some(verify_fused),
    ..OpDef::DEFAULT
};

/// `graph.fused_gemm`: `Gemm` then an activation.
pub static FUSED_GEMM: OpDef = OpDef {
    name: "graph.fused_gemm",
    summary: "General matrix product followed by an activation",
    description: "ONNX `Gemm` (`alpha * A' * B' + beta * C`, operands and attributes as \
`Gemm`'s, with the same defaults) whose result goes through `activation`; ONNX Runtime's \
`com.microsoft.FusedGemm`.\n\n```mlir\n%y = \"graph.fused_gemm\"(%a, %b, %c) <{activation = \
#graph.activation<relu>, transB = 1 : i64}> : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) \
-> tensor<2x4xf32>\n```",
    operands: &[
        value("A", FLOAT_TENSOR),
        value("B", FLOAT_TENSOR),
        value("C", FLOAT_TENSOR_OR_NONE),
    ],
    results: &[value("Y", FLOAT_TENSOR)],
    attrs: &[
        ACTIVATION_PROP,
        ACTIVATION_PARAMS_PROP,
        attr("alpha", c::F32_ATTR, "As `Gemm`'s (default 1.0)."),
        attr("beta", c::F32_ATTR, "As `Gemm`'s (default 1.0)."),
        attr("transA", c::I64_ATTR, "As `Gemm`'s (default 0)."),
        attr("transB", c::I64_ATTR, "As `Gemm`'s (default 0)."),
    ],
    traits: &[Trait::Pure],
    interfaces: &[
        interface_impl!(InferShapedTypeOpInterface => FusedGemm),
        interface_impl!(OpCostInterface => FusedGemm),
    ],
    verify: Some(verify_fused),
    ..OpDef::DEFAULT
};

/// `graph.fused_matmul`: `MatMul`, an optional bias, then an activation.
pub static FUSED_MATMUL: OpDef = OpDef {
    name: "graph.fused_matmul",
    summary: "Matrix product plus a bias, followed by an activation",
    description: "ONNX `MatMul` of `A` and `B` (NumPy's batched product), plus `bias` (a \
scalar or a 1-D tensor the size of the product's last dimension, or `none`), through \
`activation`.\n\n```mlir\n%y = \"graph.fused_matmul\"(%a, %b, %bias) <{activation = \
#graph.activation<tanh>}> : (tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> \
tensor<2x16x4xf32>\n```",
    operands: &[
        value("A", FLOAT_TENSOR),
        value("B", FLOAT_TENSOR),
        value("bias", FLOAT_TENSOR_OR_NONE),
    ],
    results: &[value("Y", FLOAT_TENSOR)],
    attrs: &[ACTIVATION_PROP, ACTIVATION_PARAMS_PROP],
    traits: &[Trait::Pure],
    interfaces: &[
        interface_impl!(InferShapedTypeOpInterface => FusedMatMul),
        interface_impl!(OpCostInterface => FusedMatMul),
    ],
    verify: Some(verify_fused),
    ..OpDef::DEFAULT
};

/// The fused ops, for the dialect's op list.
pub static OPS: [&OpDef; 3] = [&FUSED_CONV, &FUSED_GEMM, &FUSED_MATMUL];

/// The inference rule of each fused op (the `infer` module's tests read this table as they
/// read each family's `RULES`).
pub const INFER_RULES: Rules = &[
    ("FusedConv", &["fused_conv"]),
    ("FusedGemm", &["fused_gemm"]),
    ("FusedMatMul", &["fused_matmul"]),
];

/// Inference, cost and bias check of `graph.fused_conv` (those of `Conv`).
#[derive(Clone, Copy, Debug)]
pub struct FusedConv;
/// Inference and cost of `graph.fused_gemm` (those of `Gemm`).
#[derive(Clone, Copy, Debug)]
pub struct FusedGemm;
/// Inference and cost of `graph.fused_matmul` (those of `MatMul`, and the bias's shape).
#[derive(Clone, Copy, Debug)]
pub struct FusedMatMul;

/// The data layout of a `graph.fused_conv` or `graph.pool` (its `layout` attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvLayout {
    /// Channels first, as ONNX `Conv`: `[N, C, spatial...]`, weights `[M, C/group, k...]`.
    Nchw,
    /// Channels last: `[N, spatial..., C]`, weights `[M, k..., C/group]`.
    Nhwc,
    /// Channels in blocks of `b` (`"nchw{b}c"`, e.g. `nchw8c`): `[N, ceil(C/b), spatial..., b]`,
    /// channel `c` at block `c / b`, lane `c % b`, the lanes past `C` zero. Weights
    /// `[ceil(M/b), K, k..., bi, b]` (oneDNN's `OIhw8i8o` for `bi = b`): output channel `o`
    /// and input channel `i` of a group at `[o / b, i / bi, k..., i % bi, o % b]`, where
    /// `bi = b` (`K = ceil(C/group / b)`) or, for a depthwise convolution, `bi = 1` (`K = 1`).
    Blocked(i64),
}

impl ConvLayout {
    /// The layout `op` states (`nchw` when it has no `layout` attribute).
    pub fn of(ctx: &Context, op: Op) -> Result<ConvLayout, String> {
        let Some(a) = ctx.attr(op, "layout") else {
            return Ok(ConvLayout::Nchw);
        };
        let s = ctx.attr_str(a).ok_or("layout must be a string")?;
        ConvLayout::parse(s).ok_or_else(|| {
            format!("layout must be \"nchw\", \"nhwc\" or \"nchw<b>c\" (b > 0), but got \"{s}\"")
        })
    }

    /// The layout a keyword names: `nchw`, `nhwc`, or `nchw{b}c` with `b > 0`.
    pub fn parse(s: &str) -> Option<ConvLayout> {
        match s {
            "nchw" => Some(ConvLayout::Nchw),
            "nhwc" => Some(ConvLayout::Nhwc),
            _ => {
                let digits = s.strip_prefix("nchw")?.strip_suffix('c')?;
                if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                let b: i64 = digits.parse().ok()?;
                (b > 0 && digits == b.to_string()).then_some(ConvLayout::Blocked(b))
            }
        }
    }

    /// The attribute's keyword.
    pub fn keyword(self) -> String {
        match self {
            ConvLayout::Nchw => "nchw".into(),
            ConvLayout::Nhwc => "nhwc".into(),
            ConvLayout::Blocked(b) => format!("nchw{b}c"),
        }
    }

    /// The block size of a blocked layout.
    pub fn block(self) -> Option<i64> {
        match self {
            ConvLayout::Blocked(b) => Some(b),
            _ => None,
        }
    }
}

impl InferShapedTypeOpInterface for FusedConv {
    fn infer_shaped_results(&self, ctx: &Context, op: Op) -> InferResult {
        match ConvLayout::of(ctx, op)? {
            ConvLayout::Nchw => crate::infer::conv_pool::Conv.infer_shaped_results(ctx, op),
            ConvLayout::Nhwc => {
                crate::infer::conv_pool::conv_channels_last(&crate::infer::In { ctx, op })
            }
            ConvLayout::Blocked(b) => {
                let i = crate::infer::In { ctx, op };
                let res = crate::infer::conv_pool::conv_blocked(&i, b)?;
                // The bias holds one value per padded output channel.
                if let (Some(&bias), Some(Some(Some(y)))) = (
                    ctx.operands(op).get(2),
                    res.as_ref().map(|r| r.first().cloned()),
                ) {
                    if let (TypeData::RankedTensor { shape, .. }, Some(sy)) =
                        (ctx.type_data(ctx.value_type(bias)), &y.shape)
                    {
                        let m = crate::infer::dmul(sy[1], sy[sy.len() - 1]);
                        if shape.len() != 1
                            || (m != DYNAMIC && shape[0] != DYNAMIC && shape[0] != m)
                        {
                            return Err(format!(
                                "bias must be a 1-D tensor of the {m} padded output channels, but got {}",
                                crate::infer::fmt_type(ctx, ctx.value_type(bias))
                            ));
                        }
                    }
                }
                Ok(res)
            }
        }
    }
}

impl InferShapedTypeOpInterface for FusedGemm {
    fn infer_shaped_results(&self, ctx: &Context, op: Op) -> InferResult {
        crate::infer::matmul::Gemm.infer_shaped_results(ctx, op)
    }
}

impl InferShapedTypeOpInterface for FusedMatMul {
    fn infer_shaped_results(&self, ctx: &Context, op: Op) -> InferResult {
        let res = crate::infer::matmul::MatMul.infer_shaped_results(ctx, op)?;
        let Some(&bias) = ctx.operands(op).get(2) else {
            return Ok(res);
        };
        let bias_shape = match ctx.type_data(ctx.value_type(bias)) {
            TypeData::RankedTensor { shape, .. } => shape.clone(),
            _ => return Ok(res),
        };
        let last = res
            .as_ref()
            .and_then(|r| r.first().cloned().flatten())
            .and_then(|s| s.shape)
            .and_then(|s| s.last().copied());
        let ok = match bias_shape.as_slice() {
            [] => true,
            [n] => match last {
                Some(l) => *n == l || *n == nart_ir::DYNAMIC || l == nart_ir::DYNAMIC,
                None => true,
            },
            _ => false,
        };
        if !ok {
            return Err(format!(
                "bias {} must be a scalar or a 1-D tensor the size of the product's last \
                 dimension",
                crate::infer::fmt_type(ctx, ctx.value_type(bias))
            ));
        }
        Ok(res)
    }
}

/// The base cost plus the activation's elementwise operations (and one per element for a
/// `fused_matmul` bias).
fn fused_cost(ctx: &Context, op: Op, base: &dyn OpCostInterface, bias: bool) -> Option<OpCost> {
    let mut cost = base.cost(ctx, op)?;
    let act = Activation::of(ctx, op).ok()?;
    let numel: f64 = ctx
        .shape_of(ctx.value_type(ctx.result(op, 0)))?
        .iter()
        .map(|&d| d as f64)
        .product();
    let has_bias = bias
        && ctx
            .operands(op)
            .get(2)
            .is_some_and(|v| !matches!(ctx.type_data(ctx.value_type(*v)), TypeData::None));
    cost.flops += numel * (act.flops() + if has_bias { 1.0 } else { 0.0 });
    Some(cost)
}

impl OpCostInterface for FusedConv {
    fn cost(&self, ctx: &Context, op: Op) -> Option<OpCost> {
        fused_cost(ctx, op, &crate::cost::Conv, false)
    }
}

impl OpCostInterface for FusedGemm {
    fn cost(&self, ctx: &Context, op: Op) -> Option<OpCost> {
        fused_cost(ctx, op, &crate::cost::Gemm, false)
    }
}

impl OpCostInterface for FusedMatMul {
    fn cost(&self, ctx: &Context, op: Op) -> Option<OpCost> {
        fused_cost(ctx, op, &crate::cost::MatMul, true)
    }
}

/// The verifier of every fused op: the activation and its parameters, then the base op's
/// inference against the declared result type.
fn verify_fused(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    if let Err(msg) = Activation::of(ctx, op) {
        return Err(ctx.op_error(op, msg));
    }
    if let Err(msg) = ConvLayout::of(ctx, op) {
        return Err(ctx.op_error(op, msg));
    }
    crate::infer::verify_op(ctx, op)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_checked_per_activation() {
        assert_eq!(
            Activation::from_parts(activation::CLIP, &[0.0, 6.0]),
            Ok(Activation::Clip { min: 0.0, max: 6.0 })
        );
        assert_eq!(
            Activation::from_parts(activation::CLIP, &[0.0]).unwrap_err(),
            "activation clip takes 2 activation_params, but 1 are given"
        );
        assert_eq!(
            Activation::from_parts(activation::RELU, &[1.0]).unwrap_err(),
            "activation relu takes 0 activation_params, but 1 are given"
        );
        assert!(Activation::from_parts(99, &[]).is_err());
        for kind in 0..7 {
            let n = match kind {
                activation::LEAKY_RELU => 1,
                activation::CLIP | activation::HARD_SIGMOID => 2,
                _ => 0,
            };
            let act = Activation::from_parts(kind, &vec![0.5; n]).expect("valid");
            assert_eq!(act.kind(), kind);
            assert_eq!(act.params().len(), n);
        }
    }

    #[test]
    fn apply_matches_the_onnx_definitions() {
        assert_eq!(Activation::Relu.apply(-2.0), 0.0);
        assert_eq!(Activation::LeakyRelu { alpha: 0.1 }.apply(-2.0), -0.2);
        assert_eq!(Activation::Clip { min: 0.0, max: 6.0 }.apply(7.0), 6.0);
        assert_eq!(
            Activation::HardSigmoid {
                alpha: 0.2,
                beta: 0.5
            }
            .apply(1.0),
            0.7
        );
        assert!((Activation::Sigmoid.apply(0.0) - 0.5).abs() < 1e-7);
        assert_eq!(Activation::None.apply(-3.0), -3.0);
    }
}
