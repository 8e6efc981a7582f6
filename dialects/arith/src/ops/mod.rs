//! The ops of the `arith` dialect, each declared once with `#[nart_macros::op]`, one family per
//! file (`int`, `float`, `compare`, `cast`); this file holds the shared constraints and
//! properties, the family macros and the constant.
//!
//! A family macro passes the keys its ops share (operands, results, properties, traits, format)
//! before the op's own keys, which replace them (the way `..BASE` works in a struct literal).

use nart_ir::interfaces::ConstantOpInterface;
use nart_ir::printer::type_to_string;
use nart_ir::registry::{constraints as c, AttrDef, TypeConstraint};
use nart_ir::{AttrData, Context, Diagnostic, Op, Signedness, Type, TypeData};
use nart_macros::op;

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

// ----- properties -----

/// `overflowFlags`, `#arith.overflow<none>` unless set.
pub const OVERFLOW_FLAGS: AttrDef = AttrDef {
    default: Some(overflow_none),
    ..AttrDef::optional("overflowFlags", OVERFLOW_ATTR, "`nsw` and/or `nuw`.")
};

/// `fastmath`, `#arith.fastmath<none>` unless set.
pub const FASTMATH: AttrDef = AttrDef {
    default: Some(fastmath_none),
    ..AttrDef::optional("fastmath", FASTMATH_ATTR, "Fast-math flags.")
};

/// `fastmath` of the float casts, which upstream leaves absent unless set.
const OPTIONAL_FASTMATH: AttrDef = AttrDef::optional("fastmath", FASTMATH_ATTR, "Fast-math flags.");

const IS_EXACT: AttrDef = AttrDef::optional(
    "isExact",
    c::UNIT_ATTR,
    "Present when the result is poison unless the operation is exact.",
);

const CMPI_PREDICATE_DEF: AttrDef =
    AttrDef::required("predicate", CMPI_PREDICATE, "The comparison.");
const CMPF_PREDICATE_DEF: AttrDef =
    AttrDef::required("predicate", CMPF_PREDICATE, "The comparison.");
const ROUNDING_MODE_DEF: AttrDef =
    AttrDef::optional("roundingmode", ROUNDING_ATTR, "The rounding mode.");

// ----- families -----

/// Integer binary ops: `%r = arith.op %a, %b : t`.
macro_rules! int_binary {
    ($(#[doc = $doc:tt])* pub struct $ty:ident = $name:tt as $def:ident { $($extra:tt)* }) => {
        #[op(
            name = $name,
            def = $def,
            operands(lhs: c::SIGNLESS_INTEGER_LIKE, rhs: c::SIGNLESS_INTEGER_LIKE),
            results(result: c::SIGNLESS_INTEGER_LIKE),
            traits(Pure, SameOperandsAndResultType, Elementwise),
            format = "$lhs `,` $rhs attr-dict `:` type($result)",
            $($extra)*
        )]
        $(#[doc = $doc])*
        pub struct $ty;
    };
}

/// Integer binary ops with `overflowFlags`: `arith.addi %a, %b overflow<nsw> : t`.
macro_rules! int_binary_overflow {
    ($(#[doc = $doc:tt])* pub struct $ty:ident = $name:tt as $def:ident { $($extra:tt)* }) => {
        int_binary! {
            $(#[doc = $doc])*
            pub struct $ty = $name as $def {
                attrs(overflowFlags: optional(OVERFLOW_FLAGS)),
                format = "$lhs `,` $rhs (`overflow` `` $overflowFlags^)? attr-dict `:` type($result)",
                $($extra)*
            }
        }
    };
}

/// Integer binary ops with an `exact` flag (divisions and right shifts).
macro_rules! int_binary_exact {
    ($(#[doc = $doc:tt])* pub struct $ty:ident = $name:tt as $def:ident { $($extra:tt)* }) => {
        int_binary! {
            $(#[doc = $doc])*
            pub struct $ty = $name as $def {
                attrs(isExact: optional(IS_EXACT)),
                format = "$lhs `,` $rhs (`exact` $isExact^)? attr-dict `:` type($result)",
                $($extra)*
            }
        }
    };
}

/// Extended multiplications: two results of the operands' type.
macro_rules! int_extended {
    ($(#[doc = $doc:tt])* pub struct $ty:ident = $name:tt as $def:ident { $($extra:tt)* }) => {
        int_binary! {
            $(#[doc = $doc])*
            pub struct $ty = $name as $def {
                results(low: c::SIGNLESS_INTEGER_LIKE, high: c::SIGNLESS_INTEGER_LIKE),
                format = "$lhs `,` $rhs attr-dict `:` type($lhs)",
                $($extra)*
            }
        }
    };
}

/// Float binary ops with `fastmath`.
macro_rules! float_binary {
    ($(#[doc = $doc:tt])* pub struct $ty:ident = $name:tt as $def:ident { $($extra:tt)* }) => {
        #[op(
            name = $name,
            def = $def,
            operands(lhs: c::FLOAT_LIKE, rhs: c::FLOAT_LIKE),
            results(result: c::FLOAT_LIKE),
            attrs(fastmath: optional(FASTMATH)),
            traits(Pure, SameOperandsAndResultType, Elementwise),
            format = "$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)",
            $($extra)*
        )]
        $(#[doc = $doc])*
        pub struct $ty;
    };
}

/// Float unary ops with `fastmath`.
macro_rules! float_unary {
    ($(#[doc = $doc:tt])* pub struct $ty:ident = $name:tt as $def:ident { $($extra:tt)* }) => {
        #[op(
            name = $name,
            def = $def,
            operands(operand: c::FLOAT_LIKE),
            results(result: c::FLOAT_LIKE),
            attrs(fastmath: optional(FASTMATH)),
            traits(Pure, SameOperandsAndResultType, Elementwise),
            format = "$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)",
            $($extra)*
        )]
        $(#[doc = $doc])*
        pub struct $ty;
    };
}

/// Comparisons: a predicate keyword, two operands of one type, an `i1`-like result of their
/// shape (inferred).
macro_rules! compare_op {
    ($(#[doc = $doc:tt])* pub struct $ty:ident = $name:tt as $def:ident { $($extra:tt)* }) => {
        #[op(
            name = $name,
            def = $def,
            results(result: c::BOOL_LIKE),
            traits(Pure, verify::COMPARE_RESULT_TYPE, SameTypeOperands, Elementwise),
            interfaces(InferTypeOpInterface => CompareResultType),
            $($extra)*
        )]
        $(#[doc = $doc])*
        pub struct $ty;
    };
}

/// Casts: `arith.op %x : a to b`.
macro_rules! cast_op {
    ($(#[doc = $doc:tt])* pub struct $ty:ident = $name:tt as $def:ident { $($extra:tt)* }) => {
        #[op(
            name = $name,
            def = $def,
            traits(
                Pure,
                verify::SAME_INPUT_OUTPUT_TENSOR_DIMS,
                SameOperandsAndResultShape,
                Elementwise,
            ),
            verify = verify_int_float_cast,
            format = "$in attr-dict `:` type($in) `to` type($out)",
            $($extra)*
        )]
        $(#[doc = $doc])*
        pub struct $ty;
    };
}

/// Integer-to-integer casts.
macro_rules! int_cast {
    ($(#[doc = $doc:tt])* pub struct $ty:ident = $name:tt as $def:ident { $($extra:tt)* }) => {
        cast_op! {
            $(#[doc = $doc])*
            pub struct $ty = $name as $def {
                operands(in: SIGNLESS_FIXED_WIDTH_INTEGER_LIKE),
                results(out: SIGNLESS_FIXED_WIDTH_INTEGER_LIKE),
                $($extra)*
            }
        }
    };
}

/// Float-to-float casts.
macro_rules! float_cast {
    ($(#[doc = $doc:tt])* pub struct $ty:ident = $name:tt as $def:ident { $($extra:tt)* }) => {
        cast_op! {
            $(#[doc = $doc])*
            pub struct $ty = $name as $def {
                operands(in: c::FLOAT_LIKE),
                results(out: c::FLOAT_LIKE),
                $($extra)*
            }
        }
    };
}

pub(crate) use {
    cast_op, compare_op, float_binary, float_cast, float_unary, int_binary, int_binary_exact,
    int_binary_overflow, int_cast, int_extended,
};

// ----- constant -----

#[op(
    name = "arith.constant",
    def = CONSTANT,
    results(result: c::ANY),
    attrs(value: AttrDef::required("value", c::TYPED_ATTR, "The constant.")),
    traits(Pure, ConstantLike),
    interfaces(ConstantOpInterface => nart_ir::interfaces::ValueProperty),
    verify = verify_constant,
    fold = fold::constant,
    format = "attr-dict $value",
)]
/// integer or floating point constant
///
/// Produces the SSA value given by its `value` attribute, whose type is the result type.
/// The value is an integer, a float, or a dense elements attribute for tensors and vectors.
///
/// ```mlir
/// %c42 = arith.constant 42 : i32
/// %pi = arith.constant 3.14159 : f32
/// %v = arith.constant dense<[1, 2]> : vector<2xi64>
/// ```
pub struct ConstantOp;
