//! The `#[op]` attribute on a toy dialect: the generated definition, accessors, builders and
//! format, end to end through the parser and printer.

use nart_ir::interfaces::InferTypeOpInterface;
use nart_ir::registry::{constraints as c, AttrDef, TypedOp};
use nart_ir::{Context, DialectDef, InsertPoint, IrBuilder, OpBuilder, OpDef, Type, Uniquer};
use nart_macros::op;

/// adds two integers
///
/// The sum wraps around.
#[op(
    name = "toy.add",
    def = ADD,
    operands(lhs: c::SIGNLESS_INTEGER_LIKE, rhs: c::SIGNLESS_INTEGER_LIKE),
    results(result: c::SIGNLESS_INTEGER_LIKE),
    attrs(tag: optional(AttrDef::optional("tag", c::STRING_ATTR, "A label."))),
    traits(Pure, Commutative, SameOperandsAndResultType),
    format = "$lhs `,` $rhs attr-dict `:` type($result)",
)]
pub struct AddOp;

/// concatenates values
#[op(
    name = "toy.concat",
    def = CONCAT,
    operands(first: c::ANY, rest: variadic(c::ANY)),
    results(result: c::ANY),
    attrs(axis: AttrDef::required("axis", c::INTEGER_ATTR, "The axis.")),
    format = "$first `,` $rest attr-dict `:` type($first) `,` type($rest) `->` type($result)",
)]
pub struct ConcatOp;

struct IsZeroInfer;
impl InferTypeOpInterface for IsZeroInfer {
    fn infer_return_types(
        &self,
        u: &mut Uniquer,
        _: &[Type],
        _: &[nart_ir::NamedAttr],
    ) -> Result<Vec<Type>, String> {
        Ok(vec![u.i1_type()])
    }
}

/// tests an integer for zero
#[op(
    name = "toy.is_zero",
    def = IS_ZERO,
    operands(input: c::SIGNLESS_INTEGER_LIKE),
    results(result: c::BOOL_LIKE),
    interfaces(InferTypeOpInterface => IsZeroInfer),
    format = "$input attr-dict `:` type($input)",
)]
pub struct IsZeroOp;

static OPS: [&OpDef; 3] = [&ADD, &CONCAT, &IS_ZERO];

fn ctx() -> Context {
    let mut ctx = Context::new();
    ctx.register_dialect(DialectDef {
        ops: &OPS,
        ..DialectDef::new("toy")
    });
    ctx.allow_unregistered = true;
    ctx
}

#[test]
fn definition_comes_from_the_declaration() {
    assert_eq!(AddOp::NAME, "toy.add");
    assert_eq!(ADD.summary, "adds two integers");
    assert_eq!(ADD.description, "The sum wraps around.");
    assert_eq!(ADD.operands.len(), 2);
    assert!(ADD.attrs[0].optional);
    assert_eq!(<ConcatOp as TypedOp>::def().name, "toy.concat");
}

#[test]
fn builders_accessors_and_format_round_trip() {
    let mut ctx = ctx();
    let loc = ctx.unknown_loc();
    let i32t = ctx.i32_type();
    let block = ctx.create_block(&[i32t, i32t], loc);
    let (a, b) = (ctx.block_args(block)[0], ctx.block_args(block)[1]);
    let mut bld = IrBuilder::new(&mut ctx, InsertPoint::BlockEnd(block));
    let add = AddOp::build(&mut bld, loc, a, b).expect("types are inferred");
    let r = add.result(&bld);
    let axis = bld.uniq().i64_attr(0);
    let cat = ConcatOp::build(&mut bld, loc, i32t, a, &[b, r], axis);
    let z = IsZeroOp::build(&mut bld, loc, r).expect("inference succeeds");
    assert_eq!(add.lhs(&bld), a);
    assert_eq!(cat.rest(&bld), &[b, r]);
    assert_eq!(cat.axis(&bld), Some(axis));
    let i1 = bld.uniq().i1_type();
    assert_eq!(bld.value_type(z.result(&bld)), i1);
    assert_eq!(bld.dyn_cast::<AddOp>(add.op()), Some(add));
    assert_eq!(bld.dyn_cast::<ConcatOp>(add.op()), None);
}

#[test]
fn generated_formats_print_and_parse() {
    let text = "%0:2 = \"test.source\"() : () -> (i32, i32)
%1 = toy.add %0#0, %0#1 {tag = \"t\"} : i32
%2 = toy.concat %0#0, %0#1, %1 {axis = 1 : i64} : i32, i32, i32 -> i32
%3 = toy.is_zero %1 : i32
";
    let mut ctx = ctx();
    let m = nart_ir::parser::parse_source(&mut ctx, "in.mlir", text).expect("parses");
    nart_ir::verify::verify(&ctx, m).expect("verifies");
    let printed = nart_ir::printer::print_op(&ctx, m, &Default::default());
    let want = "module {
  %0:2 = \"test.source\"() : () -> (i32, i32)
  %1 = toy.add %0#0, %0#1 {tag = \"t\"} : i32
  %2 = toy.concat %0#0, %0#1, %1 {axis = 1 : i64} : i32, i32, i32 -> i32
  %3 = toy.is_zero %1 : i32
}
";
    assert_eq!(printed, want);
}
