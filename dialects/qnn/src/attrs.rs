//! The dialect's attributes: the fused activation and the requantization rounding, both enums
//! declared as data, and the typed properties the ops share (windows, group, clip bounds).

use nart_ir::enums::{parse_enum_attr, EnumCase, EnumDef};
use nart_ir::extensible::DialectAttrDef;
use nart_ir::registry::{constraints as c, AttrConstraint, AttrDef, AttrKind};
use nart_ir::{Attr, AttrData, Context, DenseArrayData, Op, Uniquer};

/// The activation fused into an op's output: applied to the real result before it is
/// quantized, which on integers is a clamp of the quantized result.
pub static ACTIVATION: EnumDef = EnumDef {
    name: "Activation",
    summary: "activation fused into the output of a qnn op",
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
            keyword: "relu6",
            value: activation::RELU6,
        },
        EnumCase {
            keyword: "clip",
            value: activation::CLIP,
        },
    ],
    bit_separator: None,
};

/// The values of [`ACTIVATION`]'s cases.
pub mod activation {
    /// No activation.
    pub const NONE: u64 = 0;
    /// `max(x, 0)`.
    pub const RELU: u64 = 1;
    /// `min(max(x, 0), 6)`.
    pub const RELU6: u64 = 2;
    /// `min(max(x, clip_min), clip_max)`, with the bounds in the op's `clip_min` and
    /// `clip_max` properties.
    pub const CLIP: u64 = 3;
}

/// How requantization rounds a value exactly halfway between two integers.
pub static ROUNDING: EnumDef = EnumDef {
    name: "Rounding",
    summary: "rounding of ties when a qnn op requantizes",
    cases: &[
        EnumCase {
            keyword: "half_even",
            value: rounding::HALF_EVEN,
        },
        EnumCase {
            keyword: "half_away",
            value: rounding::HALF_AWAY,
        },
        EnumCase {
            keyword: "half_up",
            value: rounding::HALF_UP,
        },
    ],
    bit_separator: None,
};

/// The values of [`ROUNDING`]'s cases.
pub mod rounding {
    /// Ties to even, as ONNX (`QuantizeLinear`, `QLinearConv`) rounds.
    pub const HALF_EVEN: u64 = 0;
    /// Ties away from zero, as gemmlowp and TFLite's reference kernels round.
    pub const HALF_AWAY: u64 = 1;
    /// Ties toward positive infinity, as TFLite's single-rounding kernels round.
    pub const HALF_UP: u64 = 2;
}

/// `#qnn.activation<relu>`.
pub static ACTIVATION_ATTR: DialectAttrDef = DialectAttrDef {
    dialect: "qnn",
    mnemonic: "activation",
    summary: "an activation fused into a qnn op's output",
    syntax: "#qnn.activation<none | relu | relu6 | clip>",
    parse: parse_enum_attr,
    enum_def: Some(&ACTIVATION),
};

/// `#qnn.rounding<half_even>`.
pub static ROUNDING_ATTR: DialectAttrDef = DialectAttrDef {
    dialect: "qnn",
    mnemonic: "rounding",
    summary: "how requantization rounds ties",
    syntax: "#qnn.rounding<half_even | half_away | half_up>",
    parse: parse_enum_attr,
    enum_def: Some(&ROUNDING),
};

/// The `activation` property (default `none`, which the custom form leaves out).
pub const ACTIVATION_PROP: AttrDef = AttrDef {
    default: Some(|u: &mut Uniquer| ACTIVATION_ATTR.enum_attr(u, activation::NONE)),
    ..AttrDef::optional(
        "activation",
        AttrConstraint::dialect("fused activation", &ACTIVATION_ATTR),
        "The activation applied to the result before it is quantized.",
    )
};

/// The `rounding` property (default `half_even`, which the custom form leaves out).
pub const ROUNDING_PROP: AttrDef = AttrDef {
    default: Some(|u: &mut Uniquer| ROUNDING_ATTR.enum_attr(u, rounding::HALF_EVEN)),
    ..AttrDef::optional(
        "rounding",
        AttrConstraint::dialect("requantization rounding", &ROUNDING_ATTR),
        "How the requantized result rounds ties.",
    )
};

/// A dense `i64` array (MLIR's `DenseI64ArrayAttr`), written `[1, 2]` in a format.
pub const DENSE_I64_ARRAY: AttrConstraint = AttrConstraint {
    kind: AttrKind::DenseIntArray(64),
    desc: "i64 dense array attribute",
    check: |_, _| true,
};

/// A 64-bit signless integer attribute (MLIR's `I64Attr`).
pub const I64_ATTR: AttrConstraint = AttrConstraint {
    kind: AttrKind::Any,
    desc: "64-bit signless integer attribute",
    check: |ctx, a| {
        matches!(ctx.attr_data(a), AttrData::Integer { ty, .. }
            if *ctx.type_data(*ty) == nart_ir::TypeData::int(64))
    },
};

/// The lower clip bound (with `activation = clip`).
pub const CLIP_MIN_PROP: AttrDef = AttrDef::optional(
    "clip_min",
    c::F64_ATTR,
    "The lower bound of a `clip` activation, as a real number.",
);

/// The upper clip bound (with `activation = clip`).
pub const CLIP_MAX_PROP: AttrDef = AttrDef::optional(
    "clip_max",
    c::F64_ATTR,
    "The upper bound of a `clip` activation, as a real number.",
);

/// Window strides (absent: 1 along every spatial dimension).
pub const STRIDES_PROP: AttrDef = AttrDef::optional(
    "strides",
    DENSE_I64_ARRAY,
    "The stride along each spatial dimension (default 1).",
);

/// Window padding (absent: no padding).
pub const PADS_PROP: AttrDef = AttrDef::optional(
    "pads",
    DENSE_I64_ARRAY,
    "Padding at the beginning of each spatial dimension, then at the end (ONNX's order; \
     default 0).",
);

/// Window dilations (absent: 1 along every spatial dimension).
pub const DILATIONS_PROP: AttrDef = AttrDef::optional(
    "dilations",
    DENSE_I64_ARRAY,
    "The dilation along each spatial dimension (default 1).",
);

/// The number of groups of a convolution (absent: 1).
pub const GROUP_PROP: AttrDef = AttrDef::optional(
    "group",
    I64_ATTR,
    "The number of groups input and output channels are split into (default 1; the input \
     channel count for a depthwise convolution).",
);

/// The items of a dense integer array attribute.
pub fn int_array(ctx: &Context, attr: Attr) -> Option<&[i64]> {
    match ctx.attr_data(attr) {
        AttrData::DenseArray {
            data: DenseArrayData::Int(items),
            ..
        } => Some(items),
        _ => None,
    }
}

/// The value of `op`'s enum property `name` of kind `def`, or `dflt` when it is absent.
pub fn enum_prop(
    ctx: &Context,
    op: Op,
    name: &str,
    def: &'static DialectAttrDef,
    dflt: u64,
) -> u64 {
    ctx.attr(op, name)
        .and_then(|a| ctx.enum_value(a, def))
        .unwrap_or(dflt)
}

/// An activation with its bounds, as an op's properties state it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Activation {
    /// No activation.
    None,
    /// `max(x, 0)`.
    Relu,
    /// `min(max(x, 0), 6)`.
    Relu6,
    /// `min(max(x, min), max)`.
    Clip {
        /// The lower bound.
        min: f64,
        /// The upper bound.
        max: f64,
    },
}

impl Activation {
    /// The activation of `op` (its `activation`, `clip_min` and `clip_max` properties); a
    /// `clip` without bounds reads as unbounded (the verifier rejects it).
    pub fn of(ctx: &Context, op: Op) -> Activation {
        match enum_prop(ctx, op, "activation", &ACTIVATION_ATTR, activation::NONE) {
            activation::RELU => Activation::Relu,
            activation::RELU6 => Activation::Relu6,
            activation::CLIP => {
                let bound = |name, dflt| {
                    ctx.attr(op, name)
                        .and_then(|a| ctx.attr_float(a))
                        .unwrap_or(dflt)
                };
                Activation::Clip {
                    min: bound("clip_min", f64::NEG_INFINITY),
                    max: bound("clip_max", f64::INFINITY),
                }
            }
            _ => Activation::None,
        }
    }

    /// The real interval the activation keeps values in.
    pub fn bounds(self) -> (f64, f64) {
        match self {
            Activation::None => (f64::NEG_INFINITY, f64::INFINITY),
            Activation::Relu => (0.0, f64::INFINITY),
            Activation::Relu6 => (0.0, 6.0),
            Activation::Clip { min, max } => (min, max),
        }
    }
}
