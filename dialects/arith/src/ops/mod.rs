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
    desc: "signless-fixed-width-integer-like",
    check: |ctx, ty| is_signless_int(ctx, elem(ctx, ty)),
};

/// Operands of `index_cast`: integers, `index`, shaped types of them, or memrefs of them.
pub const INDEX_CAST_TYPE: TypeConstraint = TypeConstraint {
    desc: "signless-integer-like or memref of signless-integer",
    check: |ctx, ty| {
        let e = ctx.element_type(ty);
        is_signless_int(ctx, e) || matches!(ctx.type_data(e), TypeData::Index)
    },
};

/// Operands of `bitcast`: integers, floats, shaped types of them, or memrefs of them.
pub const BITCAST_TYPE: TypeConstraint = TypeConstraint {
    desc: "signless-integer-or-float-like or memref of signless-integer or float",
    check: |ctx, ty| {
        let e = ctx.element_type(ty);
        is_signless_int(ctx, e) || matches!(ctx.type_data(e), TypeData::Float(_))
    },
};

fn is_dialect_attr(ctx: &Context, a: nart_ir::Attr, prefix: &str) -> bool {
    matches!(ctx.attr_data(a), AttrData::Dialect { dialect, body, .. }
        if dialect == "arith" && body.starts_with(prefix) && body.ends_with('>'))
}

const OVERFLOW_ATTR: AttrConstraint = AttrConstraint {
    desc: "Integer overflow arith flags",
    check: |ctx, a| is_dialect_attr(ctx, a, "overflow<"),
};

const FASTMATH_ATTR: AttrConstraint = AttrConstraint {
    desc: "Floating point fast math flags",
    check: |ctx, a| is_dialect_attr(ctx, a, "fastmath<"),
};

const ROUNDING_ATTR: AttrConstraint = AttrConstraint {
    desc: "Floating point rounding mode (32-bit signless integer cases 0 to 4)",
    check: |ctx, a| match ctx.attr_data(a) {
        AttrData::Integer { value, ty } => {
            matches!(
                ctx.type_data(*ty),
                TypeData::Integer {
                    width: 32,
                    signedness: Signedness::Signless
                }
            ) && (0..=4).contains(value)
        }
        _ => false,
    },
};

/// `value` of `arith.constant`: a typed attribute, or `true`/`false` (an `i1` in MLIR).
const CONSTANT_VALUE: AttrConstraint = AttrConstraint {
    desc: "TypedAttr instance",
    check: |ctx, a| ctx.typed_attr_type(a).is_some(),
};

const CMPI_PREDICATE: AttrConstraint = AttrConstraint {
    desc: "allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9",
    check: |ctx, a| i64_attr_in(ctx, a, 9),
};

const CMPF_PREDICATE: AttrConstraint = AttrConstraint {
    desc: "allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15",
    check: |ctx, a| i64_attr_in(ctx, a, 15),
};

fn i64_attr_in(ctx: &Context, a: nart_ir::Attr, max: i128) -> bool {
    match ctx.attr_data(a) {
        AttrData::Integer { value, ty } => {
            matches!(
                ctx.type_data(*ty),
                TypeData::Integer {
                    width: 64,
                    signedness: Signedness::Signless
                }
            ) && (0..=max).contains(value)
        }
        _ => false,
    }
}

const fn operand(name: &'static str, constraint: TypeConstraint) -> ValueDef {
    ValueDef {
        name,
        constraint,
        arity: Arity::Single,
    }
}

/// `overflowFlags`; the parser stores `#arith.overflow<none>` when it is not written.
pub const OVERFLOW_FLAGS: AttrDef = AttrDef {
    name: "overflowFlags",
    constraint: OVERFLOW_ATTR,
    optional: true,
    doc: "`nsw` and/or `nuw`; defaults to `#arith.overflow<none>`.",
};

/// `fastmath`; the parser stores `#arith.fastmath<none>` when it is not written.
pub const FASTMATH: AttrDef = AttrDef {
    name: "fastmath",
    constraint: FASTMATH_ATTR,
    optional: true,
    doc: "Fast-math flags; defaults to `#arith.fastmath<none>`.",
};

const OPTIONAL_FASTMATH: AttrDef = AttrDef {
    name: "fastmath",
    constraint: FASTMATH_ATTR,
    optional: true,
    doc: "Fast-math flags.",
};

const IS_EXACT: AttrDef = AttrDef {
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
