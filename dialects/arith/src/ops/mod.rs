//! The ops of the `arith` dialect, each declared once, one family per file (`int`, `float`,
//! `compare`, `cast`); this file holds the shared constraints, family bases and the constant.
//!
//! Ops of one family share a base definition (operands, results, attributes, traits, syntax)
//! and override the name, the docs and the hooks.

use nart_ir::printer::type_to_string;
use nart_ir::registry::{
    constraints as c, Arity, AttrConstraint, AttrDef, OpDef, Trait, TypeConstraint, ValueDef,
};
use nart_ir::{AttrData, Context, Diagnostic, Op, Signedness, Type, TypeData};

use crate::canonicalize as canon;
use crate::fold;
use crate::syntax;

mod cast;
mod compare;
mod float;
mod int;
mod verify;

pub use cast::*;
pub use compare::*;
pub use float::*;
pub use int::*;
use verify::*;

// ----- constraints -----

fn elem(ctx: &Context, ty: Type) -> Type {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { .. }
        | TypeData::UnrankedTensor { .. }
        | TypeData::Vector { .. } => ctx.element_type(ty),
        _ => ty,
    }
}

fn is_signless_int(ctx: &Context, ty: Type) -> bool {
    matches!(
        ctx.type_data(ty),
        TypeData::Integer {
            signedness: Signedness::Signless,
            ..
        }
    )
}

/// `iN`, or a tensor/vector of `iN` (no `index`).
pub const SIGNLESS_FIXED_WIDTH_INTEGER_LIKE: TypeConstraint = TypeConstraint {
    buildable: None,
    desc: "signless-fixed-width-integer-like",
    check: |ctx, ty| is_signless_int(ctx, elem(ctx, ty)),
};

/// Operands of `index_cast`: integers, `index`, shaped types of them, or memrefs of them.
pub const INDEX_CAST_TYPE: TypeConstraint = TypeConstraint {
    buildable: None,
    desc: "signless-integer-like or memref of signless-integer",
    check: |ctx, ty| {
        let e = ctx.element_type(ty);
        is_signless_int(ctx, e) || matches!(ctx.type_data(e), TypeData::Index)
    },
};

/// Operands of `bitcast`: integers, floats, shaped types of them, or memrefs of them.
pub const BITCAST_TYPE: TypeConstraint = TypeConstraint {
    buildable: None,
    desc: "signless-integer-or-float-like or memref of signless-integer or float",
    check: |ctx, ty| {
        let e = ctx.element_type(ty);
        is_signless_int(ctx, e) || matches!(ctx.type_data(e), TypeData::Float(_))
    },
};

use crate::attrs::{
    fastmath_none, overflow_none, CMPF_PREDICATE_ATTR as CMPF_PREDICATE,
    CMPI_PREDICATE_ATTR as CMPI_PREDICATE, FASTMATH_ATTR, OVERFLOW_ATTR, ROUNDING_ATTR,
};

/// `value` of `arith.constant`: a typed attribute, or `true`/`false` (an `i1` in MLIR).
const CONSTANT_VALUE: AttrConstraint = AttrConstraint {
    kind: nart_ir::registry::AttrKind::Any,
    desc: "TypedAttr instance",
    check: |ctx, a| ctx.typed_attr_type(a).is_some(),
};

const fn operand(name: &'static str, constraint: TypeConstraint) -> ValueDef {
    ValueDef {
        name,
        constraint,
        arity: Arity::Single,
    }
}

/// `overflowFlags`, `#arith.overflow<none>` unless set.
pub const OVERFLOW_FLAGS: AttrDef = AttrDef {
    default: Some(overflow_none),
    name: "overflowFlags",
    constraint: OVERFLOW_ATTR,
    optional: true,
    doc: "`nsw` and/or `nuw`.",
};

/// `fastmath`, `#arith.fastmath<none>` unless set.
pub const FASTMATH: AttrDef = AttrDef {
    default: Some(fastmath_none),
    name: "fastmath",
    constraint: FASTMATH_ATTR,
    optional: true,
    doc: "Fast-math flags.",
};

const OPTIONAL_FASTMATH: AttrDef = AttrDef {
    default: None,
    name: "fastmath",
    constraint: FASTMATH_ATTR,
    optional: true,
    doc: "Fast-math flags.",
};

const IS_EXACT: AttrDef = AttrDef {
    default: None,
    name: "isExact",
    constraint: c::UNIT_ATTR,
    optional: true,
    doc: "Present when the result is poison unless the operation is exact.",
};

// ----- family bases -----

const INT_OPERANDS: &[ValueDef] = &[
    operand("lhs", c::SIGNLESS_INTEGER_LIKE),
    operand("rhs", c::SIGNLESS_INTEGER_LIKE),
];
const INT_RESULT: &[ValueDef] = &[operand("result", c::SIGNLESS_INTEGER_LIKE)];
const FLOAT_OPERANDS: &[ValueDef] = &[operand("lhs", c::FLOAT_LIKE), operand("rhs", c::FLOAT_LIKE)];
const FLOAT_RESULT: &[ValueDef] = &[operand("result", c::FLOAT_LIKE)];

const PURE_ELEMENTWISE: &[Trait] = &[
    Trait::Pure,
    Trait::SameOperandsAndResultType,
    Trait::Elementwise,
];
const COMMUTATIVE: &[Trait] = &[
    Trait::Pure,
    Trait::Commutative,
    Trait::SameOperandsAndResultType,
    Trait::Elementwise,
];
const COMMUTATIVE_IDEMPOTENT: &[Trait] = &[
    Trait::Pure,
    Trait::Commutative,
    Trait::Idempotent,
    Trait::SameOperandsAndResultType,
    Trait::Elementwise,
];
const CAST_TRAITS: &[Trait] = &[
    Trait::Pure,
    Trait::SameOperandsAndResultShape,
    Trait::Elementwise,
];

/// Integer binary ops with `overflowFlags`.
const INT_BINARY_OVERFLOW: OpDef = OpDef {
    parse: Some(syntax::parse_same_type),
    print: Some(syntax::print_same_type),
    operands: INT_OPERANDS,
    results: INT_RESULT,
    attrs: &[OVERFLOW_FLAGS],
    traits: PURE_ELEMENTWISE,
    assembly_format: Some(
        "$lhs `,` $rhs (`overflow` `` $overflowFlags^)? attr-dict `:` type($result)",
    ),
    ..OpDef::DEFAULT
};

/// Integer binary ops with an `exact` flag (divisions and right shifts).
const INT_BINARY_EXACT: OpDef = OpDef {
    parse: Some(syntax::parse_same_type),
    print: Some(syntax::print_same_type),
    operands: INT_OPERANDS,
    results: INT_RESULT,
    attrs: &[IS_EXACT],
    traits: &[Trait::SameOperandsAndResultType, Trait::Elementwise],
    assembly_format: Some("$lhs `,` $rhs (`exact` $isExact^)? attr-dict `:` type($result)"),
    ..OpDef::DEFAULT
};

/// Other integer binary ops.
const INT_BINARY: OpDef = OpDef {
    parse: Some(syntax::parse_same_type),
    print: Some(syntax::print_same_type),
    operands: INT_OPERANDS,
    results: INT_RESULT,
    traits: PURE_ELEMENTWISE,
    assembly_format: Some("$lhs `,` $rhs attr-dict `:` type($result)"),
    ..OpDef::DEFAULT
};

/// Float binary ops.
const FLOAT_BINARY: OpDef = OpDef {
    parse: Some(syntax::parse_same_type),
    print: Some(syntax::print_same_type),
    operands: FLOAT_OPERANDS,
    results: FLOAT_RESULT,
    attrs: &[FASTMATH],
    traits: PURE_ELEMENTWISE,
    assembly_format: Some("$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)"),
    ..OpDef::DEFAULT
};

/// Casts.
const CAST: OpDef = OpDef {
    parse: Some(syntax::parse_cast),
    print: Some(syntax::print_cast),
    traits: CAST_TRAITS,
    assembly_format: Some("$in attr-dict `:` type($in) `to` type($out)"),
    ..OpDef::DEFAULT
};

const INT_IN: &[ValueDef] = &[operand("in", SIGNLESS_FIXED_WIDTH_INTEGER_LIKE)];
const INT_OUT: &[ValueDef] = &[operand("out", SIGNLESS_FIXED_WIDTH_INTEGER_LIKE)];
const FLOAT_IN: &[ValueDef] = &[operand("in", c::FLOAT_LIKE)];
const FLOAT_OUT: &[ValueDef] = &[operand("out", c::FLOAT_LIKE)];

// ----- constant -----

/// `arith.constant`.
pub static CONSTANT: OpDef = OpDef {
    parse: Some(syntax::parse_constant),
    print: Some(syntax::print_constant),
    name: "arith.constant",
    summary: "integer or floating point constant",
    description: "Produces the SSA value given by its `value` attribute, whose type is the \
result type.\n\
The value is an integer, a float, or a dense elements attribute for tensors and vectors.\n\n\
```mlir\n%c42 = arith.constant 42 : i32\n%pi = arith.constant 3.14159 : f32\n\
%v = arith.constant dense<[1, 2]> : vector<2xi64>\n```",
    results: &[operand("result", c::ANY)],
    attrs: &[AttrDef {
        default: None,
        name: "value",
        constraint: CONSTANT_VALUE,
        optional: false,
        doc: "The constant.",
    }],
    traits: &[Trait::Pure, Trait::ConstantLike],
    verify: Some(verify_constant),
    fold: Some(fold::constant),
    assembly_format: Some("attr-dict $value"),
    ..OpDef::DEFAULT
};
