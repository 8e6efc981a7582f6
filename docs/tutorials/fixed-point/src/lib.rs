//! `fx`: fixed-point arithmetic, the dialect built in `docs/tutorials/define-a-dialect.md`.
//!
//! A value of type `!fx.fixed<16, 8>` is a 16-bit two's-complement integer read as
//! `integer / 2^8`. The dialect has a typed type, an enum attribute, three ops with declarative
//! formats, an interface implementation, a canonicalization pattern and a lowering to `arith`.

#![deny(missing_docs)]

use nart_ir::enums::{parse_enum_attr, EnumCase, EnumDef};
use nart_ir::extensible::{AsmPrinter, DialectAttrDef, DialectType, DialectTypeDef};
use nart_ir::interfaces::{ConstantOpInterface, OpCost, OpCostInterface};
use nart_ir::registry::{constraints as c, AttrConstraint, AttrDef, TypeConstraint};
use nart_ir::{Context, DialectDef, Op, OpDef, PatternRewriter, RewritePattern, Uniquer};
use nart_macros::op;

// ----- 1. A type with typed storage -----

/// `!fx.fixed<width, frac>`: `width` bits, of which `frac` are fractional.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct FixedType {
    /// Total bits (2 to 64).
    pub width: u32,
    /// Fractional bits (at most `width`).
    pub frac: u32,
}

/// The declaration of `!fx.fixed`.
pub static FIXED: DialectTypeDef = DialectTypeDef {
    dialect: "fx",
    mnemonic: "fixed",
    summary: "a fixed-point number",
    syntax: "!fx.fixed<width, frac>",
    parse: |p| {
        p.parse_less()?;
        let width = p.parse_integer()?;
        p.parse_comma()?;
        let frac = p.parse_integer()?;
        p.parse_greater()?;
        let (Ok(width), Ok(frac)) = (u32::try_from(width), u32::try_from(frac)) else {
            return Err(p.emit_error("widths must be non-negative"));
        };
        Ok(p.ctx().dialect_type(FixedType { width, frac }))
    },
};

impl DialectType for FixedType {
    fn def(&self) -> &'static DialectTypeDef {
        &FIXED
    }
    fn print(&self, p: &mut AsmPrinter<'_>) {
        p.write_str(&format!("<{}, {}>", self.width, self.frac));
    }
    fn verify(&self, _: &Context) -> Result<(), String> {
        if !(2..=64).contains(&self.width) || self.frac > self.width {
            return Err(format!(
                "invalid fixed-point type <{}, {}>",
                self.width, self.frac
            ));
        }
        Ok(())
    }
}

/// Fixed-point values.
const FIXED_LIKE: TypeConstraint = TypeConstraint::new("fixed-point", |ctx, t| {
    ctx.type_as::<FixedType>(t).is_some()
});

// ----- 2. An enum attribute -----

/// How `fx.mul` rounds away the extra fractional bits.
pub static ROUNDING: EnumDef = EnumDef {
    name: "Rounding",
    summary: "rounding of fx.mul",
    cases: &[
        EnumCase {
            keyword: "nearest",
            value: 0,
        },
        EnumCase {
            keyword: "floor",
            value: 1,
        },
    ],
    bit_separator: None,
};

/// `#fx.round<nearest>`.
pub static ROUND: DialectAttrDef = DialectAttrDef {
    dialect: "fx",
    mnemonic: "round",
    summary: "a rounding mode",
    syntax: "#fx.round<nearest | floor>",
    parse: parse_enum_attr,
    enum_def: Some(&ROUNDING),
};

const ROUND_ATTR: AttrDef = AttrDef {
    default: Some(|u: &mut Uniquer| ROUND.enum_attr(u, 0)),
    ..AttrDef::optional(
        "rounding",
        AttrConstraint::dialect("rounding mode", &ROUND),
        "",
    )
};

// ----- 3. Ops with declarative formats -----

/// a fixed-point constant
///
/// `%c = fx.constant 1.5 as !fx.fixed<16, 8>`
#[op(
    name = "fx.constant",
    def = CONSTANT,
    results(result: FIXED_LIKE),
    attrs(value: AttrDef::required("value", c::F64_ATTR, "The value.")),
    traits(Pure, ConstantLike),
    interfaces(ConstantOpInterface => nart_ir::interfaces::ValueProperty),
    format = "$value `as` type($result) attr-dict",
)]
pub struct ConstantOp;

/// fixed-point addition
///
/// `%s = fx.add %a, %b : !fx.fixed<16, 8>`
#[op(
    name = "fx.add",
    def = ADD,
    operands(lhs: FIXED_LIKE, rhs: FIXED_LIKE),
    results(result: FIXED_LIKE),
    traits(Pure, Commutative, SameOperandsAndResultType),
    format = "$lhs `,` $rhs attr-dict `:` type($result)",
)]
pub struct AddOp;

/// fixed-point multiplication
///
/// `%p = fx.mul %a, %b round<floor> : !fx.fixed<16, 8>` (rounds to nearest by default).
#[op(
    name = "fx.mul",
    def = MUL,
    operands(lhs: FIXED_LIKE, rhs: FIXED_LIKE),
    results(result: FIXED_LIKE),
    attrs(rounding: optional(ROUND_ATTR)),
    traits(Pure, Commutative, SameOperandsAndResultType),
    interfaces(OpCostInterface => MulCost),
    canonicalize(MUL_BY_ONE),
    format = "$lhs `,` $rhs (`round` `` $rounding^)? attr-dict `:` type($result)",
)]
pub struct MulOp;

// ----- 4. An interface implementation -----

/// What a fixed-point multiply costs: one multiply, a shift and a round.
struct MulCost;

impl OpCostInterface for MulCost {
    fn cost(&self, ctx: &Context, op: Op) -> Option<OpCost> {
        let ty = ctx.type_as::<FixedType>(ctx.value_type(ctx.result(op, 0)))?;
        let bytes = 3.0 * f64::from(ty.width.div_ceil(8));
        Some(OpCost { flops: 3.0, bytes })
    }
}

// ----- 5. A pattern -----

/// `fx.mul(x, 1.0) → x`.
pub struct MulByOne;

/// The one instance.
pub static MUL_BY_ONE: MulByOne = MulByOne;

impl RewritePattern for MulByOne {
    fn name(&self) -> &'static str {
        "MulByOne"
    }
    fn root(&self) -> Option<&'static str> {
        Some("fx.mul")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let mul = MulOp(op);
        let (x, one) = (mul.lhs(rw), mul.rhs(rw));
        let is_one = rw
            .defining_op(one)
            .and_then(|d| rw.dyn_cast::<ConstantOp>(d))
            .and_then(|c| c.value(rw))
            .and_then(|v| rw.attr_float(v))
            == Some(1.0);
        if !is_one {
            return rw.match_failure("the right operand is not the constant 1.0");
        }
        rw.replace_op(op, &[x]);
        true
    }
}

// ----- the dialect -----

static OPS: [&OpDef; 3] = [&CONSTANT, &ADD, &MUL];
static TYPES: [&DialectTypeDef; 1] = [&FIXED];
static ATTRS: [&DialectAttrDef; 1] = [&ROUND];
static ENUMS: [&EnumDef; 1] = [&ROUNDING];

/// Registers `fx`.
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(DialectDef {
        summary: "Fixed-point arithmetic (the dialect of the 'define a dialect' tutorial).",
        ops: &OPS,
        types: &TYPES,
        attrs: &ATTRS,
        enums: &ENUMS,
        ..DialectDef::new("fx")
    });
}

pub mod lower;
