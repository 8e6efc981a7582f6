//! The ops of the `math` dialect, each declared once with `#[nart_macros::op]` through a family
//! macro per signature (float unary, float binary, integer unary, classification).

use nart_dialect_arith::{CompareResultType, FASTMATH};
use nart_ir::interfaces::InferTypeOpInterface;
use nart_ir::registry::{constraints as c, TypeConstraint};
use nart_ir::{NamedAttr, Type, Uniquer};
use nart_macros::op;

/// A signless integer or `index`, or a vector or tensor of them (upstream's
/// `SignlessIntegerOrIndexLike`).
const INT_LIKE: TypeConstraint = c::SIGNLESS_INTEGER_LIKE;

/// Float unary ops: `%r = math.op %x (fastmath<...>)? : t`.
macro_rules! float_unary {
    ($(#[doc = $doc:tt])* $ty:ident = $name:tt as $def:ident) => {
        #[op(
            name = $name,
            def = $def,
            operands(operand: c::FLOAT_LIKE),
            results(result: c::FLOAT_LIKE),
            attrs(fastmath: optional(FASTMATH)),
            traits(Pure, SameOperandsAndResultType, Elementwise),
            format = "$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)",
        )]
        $(#[doc = $doc])*
        pub struct $ty;
    };
}

/// Float binary ops: `%r = math.op %a, %b (fastmath<...>)? : t`.
macro_rules! float_binary {
    ($(#[doc = $doc:tt])* $ty:ident = $name:tt as $def:ident) => {
        #[op(
            name = $name,
            def = $def,
            operands(lhs: c::FLOAT_LIKE, rhs: c::FLOAT_LIKE),
            results(result: c::FLOAT_LIKE),
            attrs(fastmath: optional(FASTMATH)),
            traits(Pure, SameOperandsAndResultType, Elementwise),
            format = "$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)",
        )]
        $(#[doc = $doc])*
        pub struct $ty;
    };
}

/// Integer unary ops: `%r = math.op %x : t`.
macro_rules! int_unary {
    ($(#[doc = $doc:tt])* $ty:ident = $name:tt as $def:ident) => {
        #[op(
            name = $name,
            def = $def,
            operands(operand: INT_LIKE),
            results(result: INT_LIKE),
            traits(Pure, SameOperandsAndResultType, Elementwise),
            format = "$operand attr-dict `:` type($result)",
        )]
        $(#[doc = $doc])*
        pub struct $ty;
    };
}

/// The result of a classification is `i1` of its operand's shape (a scalar, vector or tensor
/// as the operand).
fn verify_class(ctx: &nart_ir::Context, op: nart_ir::Op) -> Result<(), nart_ir::Diagnostic> {
    let x = ctx.value_type(ctx.operand(op, 0));
    let r = ctx.value_type(ctx.result(op, 0));
    let same_kind = std::mem::discriminant(ctx.type_data(x))
        == std::mem::discriminant(ctx.type_data(r))
        || ctx.shape_of(x).is_none() && ctx.shape_of(r).is_none();
    let i1 = *ctx.type_data(ctx.element_type(r)) == nart_ir::TypeData::int(1);
    if !i1 || !same_kind || ctx.shape_of(x) != ctx.shape_of(r) {
        return Err(ctx.op_error(
            op,
            "failed to verify that result type has i1 element type and same shape as operands",
        ));
    }
    Ok(())
}

/// Float classification: `%b = math.isnan %x : t`, an `i1` of `t`'s shape.
macro_rules! float_class {
    ($(#[doc = $doc:tt])* $ty:ident = $name:tt as $def:ident) => {
        #[op(
            name = $name,
            def = $def,
            operands(operand: c::FLOAT_LIKE),
            results(result: c::BOOL_LIKE),
            attrs(fastmath: optional(FASTMATH)),
            traits(Pure),
            interfaces(InferTypeOpInterface => CompareResultType),
            verify = verify_class,
            format = "$operand attr-dict `:` type($operand)",
        )]
        $(#[doc = $doc])*
        pub struct $ty;
    };
}

float_unary! {
    /// floating point absolute value
    ///
    /// The magnitude of each element, with the sign bit cleared.
    ///
    /// ```mlir
    /// %a = math.absf %b : f64
    /// ```
    AbsFOp = "math.absf" as ABSF
}
float_unary! {
    /// arcus cosine
    ///
    /// The inverse cosine of each element, in radians.
    ///
    /// ```mlir
    /// %a = math.acos %b : f32
    /// ```
    AcosOp = "math.acos" as ACOS
}
float_unary! {
    /// hyperbolic arcus cosine
    ///
    /// The inverse hyperbolic cosine of each element.
    ///
    /// ```mlir
    /// %a = math.acosh %b : f32
    /// ```
    AcoshOp = "math.acosh" as ACOSH
}
float_unary! {
    /// arcus sine
    ///
    /// The inverse sine of each element, in radians.
    ///
    /// ```mlir
    /// %a = math.asin %b : f32
    /// ```
    AsinOp = "math.asin" as ASIN
}
float_unary! {
    /// hyperbolic arcus sine
    ///
    /// The inverse hyperbolic sine of each element.
    ///
    /// ```mlir
    /// %a = math.asinh %b : f32
    /// ```
    AsinhOp = "math.asinh" as ASINH
}
float_unary! {
    /// arcus tangent
    ///
    /// The inverse tangent of each element, in radians.
    ///
    /// ```mlir
    /// %a = math.atan %b : f32
    /// ```
    AtanOp = "math.atan" as ATAN
}
float_unary! {
    /// hyperbolic arcus tangent
    ///
    /// The inverse hyperbolic tangent of each element.
    ///
    /// ```mlir
    /// %a = math.atanh %b : f32
    /// ```
    AtanhOp = "math.atanh" as ATANH
}
float_unary! {
    /// cube root
    ///
    /// The real cube root of each element (negative for a negative input).
    ///
    /// ```mlir
    /// %a = math.cbrt %b : f32
    /// ```
    CbrtOp = "math.cbrt" as CBRT
}
float_unary! {
    /// ceiling
    ///
    /// The smallest integral value not less than each element.
    ///
    /// ```mlir
    /// %a = math.ceil %b : f32
    /// ```
    CeilOp = "math.ceil" as CEIL
}
float_unary! {
    /// cosine
    ///
    /// The cosine of each element, in radians.
    ///
    /// ```mlir
    /// %a = math.cos %b : vector<4xf32>
    /// ```
    CosOp = "math.cos" as COS
}
float_unary! {
    /// hyperbolic cosine
    ///
    /// The hyperbolic cosine of each element.
    ///
    /// ```mlir
    /// %a = math.cosh %b : f32
    /// ```
    CoshOp = "math.cosh" as COSH
}
float_unary! {
    /// error function
    ///
    /// The Gauss error function of each element.
    ///
    /// ```mlir
    /// %a = math.erf %b : f32
    /// ```
    ErfOp = "math.erf" as ERF
}
float_unary! {
    /// complementary error function
    ///
    /// `1 - erf(x)` for each element, computed without cancellation.
    ///
    /// ```mlir
    /// %a = math.erfc %b : f32
    /// ```
    ErfcOp = "math.erfc" as ERFC
}
float_unary! {
    /// base-e exponential
    ///
    /// `e` raised to each element.
    ///
    /// ```mlir
    /// %a = math.exp %b : f32
    /// %v = math.exp %w fastmath<fast> : vector<4xf32>
    /// ```
    ExpOp = "math.exp" as EXP
}
float_unary! {
    /// base-2 exponential
    ///
    /// 2 raised to each element.
    ///
    /// ```mlir
    /// %a = math.exp2 %b : f32
    /// ```
    Exp2Op = "math.exp2" as EXP2
}
float_unary! {
    /// base-e exponential minus one
    ///
    /// `exp(x) - 1` for each element, exact near zero.
    ///
    /// ```mlir
    /// %a = math.expm1 %b : f32
    /// ```
    ExpM1Op = "math.expm1" as EXPM1
}
float_unary! {
    /// floor
    ///
    /// The largest integral value not greater than each element.
    ///
    /// ```mlir
    /// %a = math.floor %b : f32
    /// ```
    FloorOp = "math.floor" as FLOOR
}
float_unary! {
    /// natural logarithm
    ///
    /// The base-e logarithm of each element.
    ///
    /// ```mlir
    /// %a = math.log %b : f32
    /// ```
    LogOp = "math.log" as LOG
}
float_unary! {
    /// base-10 logarithm
    ///
    /// The base-10 logarithm of each element.
    ///
    /// ```mlir
    /// %a = math.log10 %b : f32
    /// ```
    Log10Op = "math.log10" as LOG10
}
float_unary! {
    /// natural logarithm of one plus the value
    ///
    /// `log(1 + x)` for each element, exact near zero.
    ///
    /// ```mlir
    /// %a = math.log1p %b : f32
    /// ```
    Log1pOp = "math.log1p" as LOG1P
}
float_unary! {
    /// base-2 logarithm
    ///
    /// The base-2 logarithm of each element.
    ///
    /// ```mlir
    /// %a = math.log2 %b : f32
    /// ```
    Log2Op = "math.log2" as LOG2
}
float_unary! {
    /// round to nearest, ties away from zero
    ///
    /// Each element rounded to the nearest integral value, halfway cases away from zero
    /// (C's `round`).
    ///
    /// ```mlir
    /// %a = math.round %b : f32
    /// ```
    RoundOp = "math.round" as ROUND
}
float_unary! {
    /// round to nearest, ties to even
    ///
    /// Each element rounded to the nearest integral value, halfway cases to the even one.
    ///
    /// ```mlir
    /// %a = math.roundeven %b : f32
    /// ```
    RoundEvenOp = "math.roundeven" as ROUNDEVEN
}
float_unary! {
    /// reciprocal of the square root
    ///
    /// `1 / sqrt(x)` for each element.
    ///
    /// ```mlir
    /// %a = math.rsqrt %b : f32
    /// ```
    RsqrtOp = "math.rsqrt" as RSQRT
}
float_unary! {
    /// sine
    ///
    /// The sine of each element, in radians.
    ///
    /// ```mlir
    /// %a = math.sin %b : f32
    /// ```
    SinOp = "math.sin" as SIN
}
float_unary! {
    /// hyperbolic sine
    ///
    /// The hyperbolic sine of each element.
    ///
    /// ```mlir
    /// %a = math.sinh %b : f32
    /// ```
    SinhOp = "math.sinh" as SINH
}
float_unary! {
    /// square root
    ///
    /// The non-negative square root of each element; NaN for a negative one.
    ///
    /// ```mlir
    /// %a = math.sqrt %b : f32
    /// ```
    SqrtOp = "math.sqrt" as SQRT
}
float_unary! {
    /// tangent
    ///
    /// The tangent of each element, in radians.
    ///
    /// ```mlir
    /// %a = math.tan %b : f32
    /// ```
    TanOp = "math.tan" as TAN
}
float_unary! {
    /// hyperbolic tangent
    ///
    /// The hyperbolic tangent of each element.
    ///
    /// ```mlir
    /// %a = math.tanh %b : f32
    /// ```
    TanhOp = "math.tanh" as TANH
}
float_unary! {
    /// truncation toward zero
    ///
    /// Each element with its fractional part dropped.
    ///
    /// ```mlir
    /// %a = math.trunc %b : f32
    /// ```
    TruncOp = "math.trunc" as TRUNC
}

float_binary! {
    /// two-argument arcus tangent
    ///
    /// The angle of the point `(rhs, lhs)`, in radians in `[-pi, pi]` (C's `atan2(y, x)` with
    /// `y = lhs`).
    ///
    /// ```mlir
    /// %a = math.atan2 %y, %x : f32
    /// ```
    Atan2Op = "math.atan2" as ATAN2
}
float_binary! {
    /// copy the sign of one float to another
    ///
    /// The magnitude of `lhs` with the sign of `rhs`.
    ///
    /// ```mlir
    /// %a = math.copysign %b, %c : f32
    /// ```
    CopySignOp = "math.copysign" as COPYSIGN
}
float_binary! {
    /// float raised to a float power
    ///
    /// `lhs` raised to `rhs`, elementwise.
    ///
    /// ```mlir
    /// %a = math.powf %b, %c : f32
    /// ```
    PowFOp = "math.powf" as POWF
}

#[op(
    name = "math.fma",
    def = FMA,
    operands(a: c::FLOAT_LIKE, b: c::FLOAT_LIKE, c: c::FLOAT_LIKE),
    results(result: c::FLOAT_LIKE),
    attrs(fastmath: optional(FASTMATH)),
    traits(Pure, SameOperandsAndResultType, Elementwise),
    format = "$a `,` $b `,` $c (`fastmath` `` $fastmath^)? attr-dict `:` type($result)",
)]
/// fused multiply-add
///
/// `a * b + c` for each element, rounded once.
///
/// ```mlir
/// %a = math.fma %x, %y, %z : f32
/// %v = math.fma %p, %q, %r : vector<8xf32>
/// ```
pub struct FmaOp;

/// `math.fpowi`'s result has its float operand's type.
pub struct FirstOperandType;

impl InferTypeOpInterface for FirstOperandType {
    fn infer_return_types(
        &self,
        _: &mut Uniquer,
        operand_types: &[Type],
        _: &[NamedAttr],
    ) -> Result<Vec<Type>, String> {
        let ty = operand_types
            .first()
            .ok_or("math.fpowi needs operands to infer its result type")?;
        Ok(vec![*ty])
    }
}

/// `math.fpowi`'s operands have the same shape, and its result its base's type (upstream's
/// `AllTypesMatch<["lhs", "result"]>`).
fn verify_fpowi(ctx: &nart_ir::Context, op: nart_ir::Op) -> Result<(), nart_ir::Diagnostic> {
    let lhs = ctx.value_type(ctx.operand(op, 0));
    let res = ctx.value_type(ctx.result(op, 0));
    if lhs != res {
        return Err(ctx.op_error(
            op,
            "failed to verify that all of {lhs, result} have same type",
        ));
    }
    Ok(())
}

#[op(
    name = "math.fpowi",
    def = FPOWI,
    operands(lhs: c::FLOAT_LIKE, rhs: INT_LIKE),
    results(result: c::FLOAT_LIKE),
    attrs(fastmath: optional(FASTMATH)),
    traits(Pure, SameOperandsAndResultShape, Elementwise),
    interfaces(InferTypeOpInterface => FirstOperandType),
    verify = verify_fpowi,
    format = "$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($lhs) `,` type($rhs)",
)]
/// float raised to a signed integer power
///
/// `lhs` raised to the integer `rhs`, elementwise; the result has `lhs`'s type.
///
/// ```mlir
/// %a = math.fpowi %b, %n : f32, i32
/// ```
pub struct FPowIOp;

#[op(
    name = "math.ipowi",
    def = IPOWI,
    operands(lhs: INT_LIKE, rhs: INT_LIKE),
    results(result: INT_LIKE),
    traits(Pure, SameOperandsAndResultType, Elementwise),
    format = "$lhs `,` $rhs attr-dict `:` type($result)",
)]
/// signed integer raised to a signed integer power
///
/// `lhs` raised to `rhs`, elementwise, wrapping on overflow; a negative power gives 0 unless
/// the base is 1 or -1.
///
/// ```mlir
/// %a = math.ipowi %b, %c : i32
/// ```
pub struct IPowIOp;

int_unary! {
    /// integer absolute value
    ///
    /// The magnitude of each element read as signed (the minimum value stays itself).
    ///
    /// ```mlir
    /// %a = math.absi %b : i32
    /// ```
    AbsIOp = "math.absi" as ABSI
}
int_unary! {
    /// count of leading zero bits
    ///
    /// The number of zero bits above the highest set bit of each element (the width for 0).
    ///
    /// ```mlir
    /// %a = math.ctlz %b : i32
    /// ```
    CountLeadingZerosOp = "math.ctlz" as CTLZ
}
int_unary! {
    /// count of trailing zero bits
    ///
    /// The number of zero bits below the lowest set bit of each element (the width for 0).
    ///
    /// ```mlir
    /// %a = math.cttz %b : i32
    /// ```
    CountTrailingZerosOp = "math.cttz" as CTTZ
}
int_unary! {
    /// count of set bits
    ///
    /// The number of one bits of each element.
    ///
    /// ```mlir
    /// %a = math.ctpop %b : i32
    /// ```
    CtPopOp = "math.ctpop" as CTPOP
}

float_class! {
    /// whether a float is finite
    ///
    /// True for each element that is neither infinite nor NaN.
    ///
    /// ```mlir
    /// %f = math.isfinite %a : f32
    /// ```
    IsFiniteOp = "math.isfinite" as ISFINITE
}
float_class! {
    /// whether a float is infinite
    ///
    /// True for each element that is positive or negative infinity.
    ///
    /// ```mlir
    /// %f = math.isinf %a : f32
    /// ```
    IsInfOp = "math.isinf" as ISINF
}
float_class! {
    /// whether a float is NaN
    ///
    /// True for each element that is a NaN.
    ///
    /// ```mlir
    /// %f = math.isnan %a : vector<4xf32>
    /// ```
    IsNaNOp = "math.isnan" as ISNAN
}
float_class! {
    /// whether a float is normal
    ///
    /// True for each element that is neither zero, subnormal, infinite nor NaN.
    ///
    /// ```mlir
    /// %f = math.isnormal %a : f32
    /// ```
    IsNormalOp = "math.isnormal" as ISNORMAL
}
