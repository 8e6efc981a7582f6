//! Tests of dialect conversion: a toy source dialect (`toy`, on the dialect types `!toy.int`,
//! `!toy.pair` and `!toy.none`) lowered to a toy target dialect (`low`, on `i32`).

use nart_ir::extensible::{AsmPrinter, DialectType, DialectTypeDef};
use nart_ir::parser::{parse_source, AsmParser};
use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::registry::{constraints as c, Arity, AttrDef, DialectDef, OpDef, RegionDef, ValueDef};
use nart_ir::{Context, Diagnostic, Op, OperationState, PatternRewriter, SourceMgr, Trait, Type};

use super::*;

// ----- the toy dialects -----

/// `!toy.int`: lowers to `i32`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct IntType;

/// `!toy.pair`: lowers to two `i32` (1:N).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct PairType;

/// `!toy.none`: lowers to nothing.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct NoneType;

/// `!toy.weird`: has no conversion.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct WeirdType;

macro_rules! toy_type {
    ($storage:ident, $def:ident, $parse:ident, $mnemonic:literal) => {
        static $def: DialectTypeDef = DialectTypeDef {
            dialect: "toy",
            mnemonic: $mnemonic,
            summary: "a toy type",
            syntax: concat!("!toy.", $mnemonic),
            parse: $parse,
        };
        fn $parse(p: &mut AsmParser<'_, '_>) -> Result<Type, Diagnostic> {
            Ok(p.ctx().dialect_type($storage))
        }
        impl DialectType for $storage {
            fn def(&self) -> &'static DialectTypeDef {
                &$def
            }
            fn print(&self, _: &mut AsmPrinter<'_>) {}
        }
    };
}

toy_type!(IntType, INT, parse_int, "int");
toy_type!(PairType, PAIR, parse_pair, "pair");
toy_type!(NoneType, NONE, parse_none, "none");
toy_type!(WeirdType, WEIRD, parse_weird, "weird");

const ANY: ValueDef = ValueDef {
    name: "values",
    constraint: c::ANY,
    arity: Arity::Variadic,
};

/// An op with any operands and results.
const fn plain(name: &'static str) -> OpDef {
    OpDef {
        name,
        operands: &[ANY],
        results: &[ANY],
        ..OpDef::DEFAULT
    }
}

const FUNC_ATTRS: [AttrDef; 2] = [
    AttrDef::required("function_type", c::FUNCTION_TYPE_ATTR, "The signature."),
    AttrDef::required("sym_name", c::STRING_ATTR, "The name."),
];

/// A function: a region, a signature and a name.
const fn func(name: &'static str) -> OpDef {
    OpDef {
        name,
        attrs: &FUNC_ATTRS,
        regions: &[RegionDef {
            name: "body",
            single_block: false,
            may_be_empty: false,
        }],
        traits: &[Trait::IsolatedFromAbove],
        ..OpDef::DEFAULT
    }
}

/// A terminator with any operands and successors.
const fn terminator(name: &'static str) -> OpDef {
    OpDef {
        name,
        operands: &[ANY],
        num_successors: None,
        traits: &[Trait::Terminator],
        ..OpDef::DEFAULT
    }
}

static TOY_FUNC: OpDef = func("toy.func");
static TOY_ADD: OpDef = plain("toy.add");
static TOY_MUL2: OpDef = plain("toy.mul2");
static TOY_SWAP: OpDef = plain("toy.swap");
static TOY_PRINT: OpDef = plain("toy.print");
static TOY_MYSTERY: OpDef = plain("toy.mystery");
static TOY_RET: OpDef = terminator("toy.ret");
static TOY_BR: OpDef = terminator("toy.br");
static TOY_OPS: [&OpDef; 8] = [
    &TOY_FUNC,
    &TOY_ADD,
    &TOY_MUL2,
    &TOY_SWAP,
    &TOY_PRINT,
    &TOY_MYSTERY,
    &TOY_RET,
    &TOY_BR,
];

static LOW_FUNC: OpDef = func("low.func");
static LOW_ADD: OpDef = plain("low.add");
static LOW_JUNK: OpDef = plain("low.junk");
static LOW_TO_TOY: OpDef = plain("low.to_toy");
static LOW_FROM_TOY: OpDef = plain("low.from_toy");
static LOW_RET: OpDef = terminator("low.ret");
static LOW_BR: OpDef = terminator("low.br");
static LOW_OPS: [&OpDef; 7] = [
    &LOW_FUNC,
    &LOW_ADD,
    &LOW_JUNK,
    &LOW_TO_TOY,
    &LOW_FROM_TOY,
    &LOW_RET,
    &LOW_BR,
];

static TOY_TYPES: [&DialectTypeDef; 4] = [&INT, &PAIR, &NONE, &WEIRD];

/// A context with `toy` and `low`, accepting ops of unregistered dialects (`other.*`).
fn context() -> Context {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    ctx.register_dialect(DialectDef {
        ops: &TOY_OPS,
        types: &TOY_TYPES,
        ..DialectDef::new("toy")
    });
    ctx.register_dialect(DialectDef {
        ops: &LOW_OPS,
        ..DialectDef::new("low")
    });
    ctx
}

fn parse(src: &str) -> (Context, Op) {
    let mut ctx = context();
    let m = parse_source(&mut ctx, "t.mlir", src).expect("test input parses");
    nart_ir::verify::verify(&ctx, m).expect("test input verifies");
    (ctx, m)
}

fn print(ctx: &Context, m: Op) -> String {
    print_op(ctx, m, &PrintOptions::default())
}

/// `!toy.int` to `i32`, `!toy.pair` to two `i32`, `!toy.none` to nothing, `!toy.weird` to
/// nothing at all (no conversion), every other type to itself.
fn converter() -> TypeConverter {
    let mut conv = TypeConverter::new();
    conv.add_conversion(|uniq, ty| {
        let i32t = uniq.i32_type();
        if uniq.type_as::<IntType>(ty).is_some() {
            Some(vec![i32t])
        } else if uniq.type_as::<PairType>(ty).is_some() {
            Some(vec![i32t, i32t])
        } else if uniq.type_as::<NoneType>(ty).is_some() {
            Some(Vec::new())
        } else if uniq.type_as::<WeirdType>(ty).is_some() {
            None
        } else {
            Some(vec![ty])
        }
    });
    conv
}

/// `low` legal, `toy` illegal.
fn lowering_target() -> ConversionTarget {
    let mut target = ConversionTarget::new();
    target.add_legal_dialect("low").add_illegal_dialect("toy");
    target
}

// ----- the patterns -----

/// Creates an op named `name` at the insertion point.
fn create(
    rw: &mut PatternRewriter<'_>,
    name: &str,
    loc: nart_ir::Location,
    operands: &[nart_ir::Value],
    results: &[Type],
) -> Op {
    let st = OperationState::new(rw.uniq(), name, loc)
        .operands(operands)
        .results(results);
    rw.create(st)
}

/// The converted result types of `op`.
fn converted_results(rw: &mut ConversionRewriter<'_, '_>, op: Op) -> Option<Vec<Type>> {
    let tys: Vec<Type> = rw.results(op).iter().map(|&v| rw.value_type(v)).collect();
    let mut out = Vec::new();
    for ty in tys {
        out.extend(rw.convert_type(ty)?);
    }
    Some(out)
}

/// `toy.func` to `low.func`, converting the signature and the block arguments.
struct FuncLowering;

impl ConversionPattern for FuncLowering {
    fn name(&self) -> &'static str {
        "FuncLowering"
    }
    fn root(&self) -> Option<&'static str> {
        Some("toy.func")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let Some(conv) = rw.type_converter() else {
            return rw.match_failure("it needs a type converter");
        };
        let Some(fty) = rw.attr(op, "function_type").and_then(|a| rw.attr_type(a)) else {
            return rw.match_failure("no signature");
        };
        let Some(new_ty) = conv.convert_function_type(rw.uniq(), fty) else {
            return rw.match_failure("the signature has no conversion");
        };
        let name = rw
            .attr(op, "sym_name")
            .expect("a verified toy.func has a name");
        let (loc, old_region) = (rw.op_loc(op), rw.region(op, 0));
        let region = rw.create_region();
        let fattr = rw.uniq().type_attr(new_ty);
        let st = OperationState::new(rw.uniq(), "low.func", loc)
            .prop(rw.uniq(), "function_type", fattr)
            .prop(rw.uniq(), "sym_name", name)
            .regions(&[region]);
        rw.create(st);
        rw.inline_region_before(old_region, region, None);
        if !rw.convert_region_types(region) {
            return rw.match_failure("a block argument has no conversion");
        }
        rw.erase_op(op);
        true
    }
}

/// `toy.add` to `low.add`.
struct AddLowering;

impl ConversionPattern for AddLowering {
    fn name(&self) -> &'static str {
        "AddLowering"
    }
    fn root(&self) -> Option<&'static str> {
        Some("toy.add")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let (Some(ops), Some(tys)) = (a.single_operands(), converted_results(rw, op)) else {
            return rw.match_failure("an operand or result does not convert 1:1");
        };
        let loc = rw.op_loc(op);
        let new = create(rw, "low.add", loc, &ops, &tys);
        let vals = rw.results(new).to_vec();
        rw.replace_op(op, &vals);
        true
    }
}

/// A terminator `from` to `to`, keeping its successors, with the converted operands (1:N).
struct TerminatorLowering(&'static str, &'static str, &'static str);

impl ConversionPattern for TerminatorLowering {
    fn name(&self) -> &'static str {
        self.0
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.1)
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let loc = rw.op_loc(op);
        let succs = rw.successors(op).to_vec();
        let st = OperationState::new(rw.uniq(), self.2, loc)
            .operands(&a.flat_operands())
            .successors(&succs);
        rw.replace_op_with_new(op, st);
        true
    }
}

const RET_LOWERING: TerminatorLowering = TerminatorLowering("RetLowering", "toy.ret", "low.ret");
const BR_LOWERING: TerminatorLowering = TerminatorLowering("BrLowering", "toy.br", "low.br");

/// `toy.swap` on a pair: swaps the two values (1:N).
struct SwapLowering;

impl ConversionPattern for SwapLowering {
    fn name(&self) -> &'static str {
        "SwapLowering"
    }
    fn root(&self) -> Option<&'static str> {
        Some("toy.swap")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let &[x, y] = a.operand_values(0) else {
            return rw.match_failure("the operand is not a pair");
        };
        rw.replace_op_with_multiple(op, &[vec![y, x]]);
        true
    }
}

/// `toy.mul2 x` to `toy.add x, x`, which must be legalized in turn.
struct MulToAdd;

impl ConversionPattern for MulToAdd {
    fn name(&self) -> &'static str {
        "MulToAdd"
    }
    fn root(&self) -> Option<&'static str> {
        Some("toy.mul2")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let (loc, x) = (rw.op_loc(op), rw.operand(op, 0));
        let ty = rw.value_type(rw.result(op, 0));
        let add = create(rw, "toy.add", loc, &[x, x], &[ty]);
        let r = rw.result(add, 0);
        rw.replace_op(op, &[r]);
        true
    }
}

/// Creates ops and changes the op, then gives up.
struct Flaky;

impl ConversionPattern for Flaky {
    fn name(&self) -> &'static str {
        "Flaky"
    }
    fn root(&self) -> Option<&'static str> {
        Some("toy.add")
    }
    fn benefit(&self) -> u16 {
        10
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let loc = rw.op_loc(op);
        let i32t = rw.uniq().i32_type();
        create(rw, "low.junk", loc, &[], &[]);
        create(rw, "low.add", loc, &a.flat_operands(), &[i32t]);
        let unit = rw.uniq().unit_attr();
        rw.set_attr(op, "touched", unit);
        rw.match_failure("it changed its mind")
    }
}

/// Replaces the op with a `toy.mystery`, which nothing converts.
struct ProducesIllegal;

impl ConversionPattern for ProducesIllegal {
    fn name(&self) -> &'static str {
        "ProducesIllegal"
    }
    fn root(&self) -> Option<&'static str> {
        Some("toy.add")
    }
    fn benefit(&self) -> u16 {
        5
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let loc = rw.op_loc(op);
        let ops = rw.operands(op).to_vec();
        let ty = rw.value_type(rw.result(op, 0));
        let m = create(rw, "toy.mystery", loc, &ops, &[ty]);
        let r = rw.result(m, 0);
        rw.replace_op(op, &[r]);
        true
    }
}

fn lowering_patterns() -> ConversionPatternSet {
    let mut set = ConversionPatternSet::new();
    set.add(FuncLowering)
        .add(AddLowering)
        .add(RET_LOWERING)
        .add(BR_LOWERING)
        .add(SwapLowering)
        .add(MulToAdd);
    set
}

/// Runs a conversion that must succeed, checks the IR prints as `expected` and verifies.
fn check_ok(
    src: &str,
    mode: ConversionMode,
    target: &ConversionTarget,
    patterns: &ConversionPatternSet,
    conv: Option<&TypeConverter>,
    expected: &str,
) -> ConversionResult {
    let (mut ctx, m) = parse(src);
    let config = ConversionConfig {
        mode,
        ..ConversionConfig::default()
    };
    let res = apply_conversion(&mut ctx, m, target, patterns, conv, &config)
        .unwrap_or_else(|e| panic!("conversion failed: {:#?}", e.diagnostics));
    assert_eq!(print(&ctx, m).trim(), expected.trim());
    nart_ir::verify::verify(&ctx, m).expect("the converted IR verifies");
    res
}

/// Runs a conversion that must fail, checks the IR prints exactly as before, and returns the
/// rendered diagnostics.
fn check_err(
    src: &str,
    config: &ConversionConfig,
    target: &ConversionTarget,
    patterns: &ConversionPatternSet,
    conv: Option<&TypeConverter>,
) -> String {
    let (mut ctx, m) = parse(src);
    let before = print(&ctx, m);
    let before_debug = print_op(
        &ctx,
        m,
        &PrintOptions {
            debug_info: true,
            generic: true,
            ..PrintOptions::default()
        },
    );
    let err = apply_conversion(&mut ctx, m, target, patterns, conv, config)
        .expect_err("the conversion fails");
    assert_eq!(print(&ctx, m), before, "the IR is as before");
    let after_debug = print_op(
        &ctx,
        m,
        &PrintOptions {
            debug_info: true,
            generic: true,
            ..PrintOptions::default()
        },
    );
    assert_eq!(after_debug, before_debug, "locations are as before too");
    nart_ir::verify::verify(&ctx, m).expect("the rolled-back IR verifies");
    let mut sm = SourceMgr::new();
    sm.add("t.mlir", src);
    err.diagnostics.iter().map(|d| sm.render(&ctx, d)).collect()
}

// ----- successful conversions -----

const FUNC: &str = r#"
"toy.func"() <{function_type = (!toy.int, !toy.int) -> !toy.int, sym_name = "f"}> ({
^bb0(%a: !toy.int, %b: !toy.int):
  %0 = "toy.add"(%a, %b) : (!toy.int, !toy.int) -> !toy.int
  %1 = "toy.mul2"(%0) : (!toy.int) -> !toy.int
  "toy.br"(%1)[^bb1] : (!toy.int) -> ()
^bb1(%c: !toy.int):
  "toy.ret"(%c) : (!toy.int) -> ()
}) : () -> ()
"#;

#[test]
fn full_conversion_of_a_function() {
    let conv = converter();
    let res = check_ok(
        FUNC,
        ConversionMode::Full,
        &lowering_target(),
        &lowering_patterns(),
        Some(&conv),
        r#"
module {
  "low.func"() <{function_type = (i32, i32) -> i32, sym_name = "f"}> ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "low.add"(%arg0, %arg1) : (i32, i32) -> i32
    %1 = "low.add"(%0, %0) : (i32, i32) -> i32
    "low.br"(%1)[^bb1] : (i32) -> ()
  ^bb1(%2: i32):  // pred: ^bb0
    "low.ret"(%2) : (i32) -> ()
  }) : () -> ()
}
"#,
    );
    let apps: Vec<(&str, usize)> = res.pattern_applications.into_iter().collect();
    assert_eq!(
        apps,
        [
            ("FuncLowering", 1),
            ("AddLowering", 2),
            ("MulToAdd", 1),
            ("BrLowering", 1),
            ("RetLowering", 1),
        ]
    );
    assert_eq!(res.num_materializations, 0);
    assert!(res.unlegalized.is_empty());
}

#[test]
fn the_same_input_converts_to_the_same_bytes() {
    let conv = converter();
    let run = || {
        let (mut ctx, m) = parse(FUNC);
        apply_full_conversion(
            &mut ctx,
            m,
            &lowering_target(),
            &lowering_patterns(),
            Some(&conv),
        )
        .expect("the conversion succeeds");
        print_op(
            &ctx,
            m,
            &PrintOptions {
                debug_info: true,
                ..PrintOptions::default()
            },
        )
    };
    assert_eq!(run(), run());
}

/// A legal producer and a legal consumer of `!toy.int` around an illegal op.
const MIXED: &str = r#"
%0 = "other.make"() : () -> !toy.int
%1 = "toy.add"(%0, %0) : (!toy.int, !toy.int) -> !toy.int
"other.use"(%1) : (!toy.int) -> ()
"toy.print"(%1) : (!toy.int) -> ()
"#;

fn mixed_target() -> ConversionTarget {
    let mut target = lowering_target();
    target.add_legal_op("toy.print");
    target
}

#[test]
fn partial_conversion_leaves_legal_and_unknown_ops_with_casts() {
    let conv = converter();
    let res = check_ok(
        MIXED,
        ConversionMode::Partial,
        &mixed_target(),
        &lowering_patterns(),
        Some(&conv),
        r#"
module {
  %0 = "other.make"() : () -> !toy.int
  %1 = unrealized_conversion_cast %0 : !toy.int to i32
  %2 = "low.add"(%1, %1) : (i32, i32) -> i32
  %3 = unrealized_conversion_cast %2 : i32 to !toy.int
  "other.use"(%3) : (!toy.int) -> ()
  "toy.print"(%3) : (!toy.int) -> ()
}
"#,
    );
    assert_eq!(res.num_materializations, 2);
    assert_eq!(
        res.unlegalized.len(),
        2,
        "other.make and other.use are unknown"
    );
}

#[test]
fn full_conversion_fails_on_unknown_ops() {
    let conv = converter();
    let out = check_err(
        MIXED,
        &ConversionConfig {
            mode: ConversionMode::Full,
            ..ConversionConfig::default()
        },
        &mixed_target(),
        &lowering_patterns(),
        Some(&conv),
    );
    assert_eq!(
        out,
        "\
t.mlir:2:6: error: failed to legalize operation 'other.make'
%0 = \"other.make\"() : () -> !toy.int
     ^
t.mlir:2:6: note: no conversion pattern matches 'other.make'
%0 = \"other.make\"() : () -> !toy.int
     ^
t.mlir:4:1: error: failed to legalize operation 'other.use'
\"other.use\"(%1) : (!toy.int) -> ()
^
t.mlir:4:1: note: no conversion pattern matches 'other.use'
\"other.use\"(%1) : (!toy.int) -> ()
^
"
    );
}

#[test]
fn materializations_from_the_type_converter() {
    let mut conv = converter();
    conv.add_source_materialization(|rw, inputs, types, loc| {
        let op = create(rw, "low.to_toy", loc, inputs, types);
        Some(rw.results(op).to_vec())
    });
    conv.add_target_materialization(|rw, inputs, types, loc| {
        let op = create(rw, "low.from_toy", loc, inputs, types);
        Some(rw.results(op).to_vec())
    });
    check_ok(
        MIXED,
        ConversionMode::Partial,
        &mixed_target(),
        &lowering_patterns(),
        Some(&conv),
        r#"
module {
  %0 = "other.make"() : () -> !toy.int
  %1 = "low.from_toy"(%0) : (!toy.int) -> i32
  %2 = "low.add"(%1, %1) : (i32, i32) -> i32
  %3 = "low.to_toy"(%2) : (i32) -> !toy.int
  "other.use"(%3) : (!toy.int) -> ()
  "toy.print"(%3) : (!toy.int) -> ()
}
"#,
    );
}

#[test]
fn a_materialization_that_declines_leaves_the_cast() {
    let mut conv = converter();
    // Builds an op, then declines: what it built is rolled back.
    conv.add_source_materialization(|rw, inputs, types, loc| {
        create(rw, "low.junk", loc, inputs, types);
        None
    });
    check_ok(
        MIXED,
        ConversionMode::Partial,
        &mixed_target(),
        &lowering_patterns(),
        Some(&conv),
        r#"
module {
  %0 = "other.make"() : () -> !toy.int
  %1 = unrealized_conversion_cast %0 : !toy.int to i32
  %2 = "low.add"(%1, %1) : (i32, i32) -> i32
  %3 = unrealized_conversion_cast %2 : i32 to !toy.int
  "other.use"(%3) : (!toy.int) -> ()
  "toy.print"(%3) : (!toy.int) -> ()
}
"#,
    );
}

#[test]
fn block_arguments_and_signatures_with_a_legal_user() {
    let src = r#"
"toy.func"() <{function_type = (!toy.int, !toy.int) -> !toy.int, sym_name = "g"}> ({
^bb0(%a: !toy.int, %b: !toy.int):
  "other.use"(%b, %a) : (!toy.int, !toy.int) -> ()
  "toy.br"(%a)[^bb1] : (!toy.int) -> ()
^bb1(%c: !toy.int):
  "other.use"(%c) : (!toy.int) -> ()
  %0 = "toy.add"(%c, %b) : (!toy.int, !toy.int) -> !toy.int
  "toy.ret"(%0) : (!toy.int) -> ()
}) : () -> ()
"#;
    let conv = converter();
    let res = check_ok(
        src,
        ConversionMode::Partial,
        &lowering_target(),
        &lowering_patterns(),
        Some(&conv),
        r#"
module {
  "low.func"() <{function_type = (i32, i32) -> i32, sym_name = "g"}> ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = builtin.unrealized_conversion_cast %arg0 : i32 to !toy.int
    %1 = builtin.unrealized_conversion_cast %arg1 : i32 to !toy.int
    "other.use"(%1, %0) : (!toy.int, !toy.int) -> ()
    "low.br"(%arg0)[^bb1] : (i32) -> ()
  ^bb1(%2: i32):  // pred: ^bb0
    %3 = builtin.unrealized_conversion_cast %2 : i32 to !toy.int
    "other.use"(%3) : (!toy.int) -> ()
    %4 = "low.add"(%2, %arg1) : (i32, i32) -> i32
    "low.ret"(%4) : (i32) -> ()
  }) : () -> ()
}
"#,
    );
    assert_eq!(res.num_materializations, 3);
}

#[test]
fn one_to_n_and_one_to_none_conversions() {
    let src = r#"
"toy.func"() <{function_type = (!toy.pair, !toy.none) -> (!toy.pair, !toy.none), sym_name = "swap"}> ({
^bb0(%p: !toy.pair, %n: !toy.none):
  %0 = "toy.swap"(%p) : (!toy.pair) -> !toy.pair
  "other.use"(%0) : (!toy.pair) -> ()
  "toy.ret"(%0, %n) : (!toy.pair, !toy.none) -> ()
}) : () -> ()
"#;
    let conv = converter();
    check_ok(
        src,
        ConversionMode::Partial,
        &lowering_target(),
        &lowering_patterns(),
        Some(&conv),
        r#"
module {
  "low.func"() <{function_type = (i32, i32) -> (i32, i32), sym_name = "swap"}> ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = builtin.unrealized_conversion_cast %arg1, %arg0 : i32, i32 to !toy.pair
    "other.use"(%0) : (!toy.pair) -> ()
    "low.ret"(%arg1, %arg0) : (i32, i32) -> ()
  }) : () -> ()
}
"#,
    );
}

#[test]
fn a_one_to_n_operand_reaches_a_one_to_one_pattern_as_its_reason() {
    let src = r#"
%0 = "other.make"() : () -> !toy.pair
%1 = "toy.add"(%0, %0) : (!toy.pair, !toy.pair) -> !toy.pair
"#;
    let conv = converter();
    let out = check_err(
        src,
        &ConversionConfig::default(),
        &lowering_target(),
        &lowering_patterns(),
        Some(&conv),
    );
    assert!(
        out.contains(
            "note: pattern 'AddLowering' does not apply: an operand or result does not convert 1:1"
        ),
        "{out}"
    );
}

#[test]
fn recursive_legalization_of_created_ops() {
    let src = r#"
%0 = "other.make"() : () -> i32
%1 = "toy.mul2"(%0) : (i32) -> i32
"other.use"(%1) : (i32) -> ()
"#;
    let res = check_ok(
        src,
        ConversionMode::Partial,
        &lowering_target(),
        &lowering_patterns(),
        None,
        r#"
module {
  %0 = "other.make"() : () -> i32
  %1 = "low.add"(%0, %0) : (i32, i32) -> i32
  "other.use"(%1) : (i32) -> ()
}
"#,
    );
    assert_eq!(res.pattern_applications["MulToAdd"], 1);
    assert_eq!(res.pattern_applications["AddLowering"], 1);
}

#[test]
fn nesting_is_bounded() {
    let src = r#"
%0 = "other.make"() : () -> i32
%1 = "toy.mul2"(%0) : (i32) -> i32
"#;
    let out = check_err(
        src,
        &ConversionConfig {
            max_depth: 0,
            ..ConversionConfig::default()
        },
        &lowering_target(),
        &lowering_patterns(),
        None,
    );
    assert!(
        out.contains(
            "note: pattern 'MulToAdd' applied, but the 'toy.add' it created failed to legalize: \
             legalizations nest deeper than 0 levels"
        ),
        "{out}"
    );
}

#[test]
fn a_failed_pattern_is_rolled_back_and_the_next_tried() {
    let src = r#"
%0 = "other.make"() : () -> i32
%1 = "toy.add"(%0, %0) : (i32, i32) -> i32
"other.use"(%1) : (i32) -> ()
"#;
    let mut patterns = lowering_patterns();
    patterns.add(Flaky).add(ProducesIllegal);
    let res = check_ok(
        src,
        ConversionMode::Partial,
        &lowering_target(),
        &patterns,
        None,
        r#"
module {
  %0 = "other.make"() : () -> i32
  %1 = "low.add"(%0, %0) : (i32, i32) -> i32
  "other.use"(%1) : (i32) -> ()
}
"#,
    );
    let apps: Vec<_> = res.pattern_applications.keys().copied().collect();
    assert_eq!(apps, ["AddLowering"]);
}

#[test]
fn every_failure_is_reported_and_everything_rolled_back() {
    // Three ops fail around ops that convert: a `toy.mystery` no pattern converts, a function
    // whose signature has no conversion, and a `toy.add` whose operand type has none.
    let src = r#"
"toy.func"() <{function_type = (!toy.int) -> !toy.int, sym_name = "f"}> ({
^bb0(%a: !toy.int):
  %0 = "toy.add"(%a, %a) : (!toy.int, !toy.int) -> !toy.int
  %1 = "toy.mystery"(%0) : (!toy.int) -> !toy.int
  %2 = "toy.add"(%1, %a) : (!toy.int, !toy.int) -> !toy.int
  "toy.ret"(%2) : (!toy.int) -> ()
}) : () -> ()
"toy.func"() <{function_type = (!toy.weird) -> (), sym_name = "g"}> ({
^bb0(%w: !toy.weird):
  %0 = "toy.add"(%w, %w) : (!toy.weird, !toy.weird) -> !toy.weird
  "toy.ret"() : () -> ()
}) : () -> ()
"#;
    let conv = converter();
    let out = check_err(
        src,
        &ConversionConfig::default(),
        &lowering_target(),
        &lowering_patterns(),
        Some(&conv),
    );
    assert_eq!(
        out,
        r#"t.mlir:5:8: error: failed to legalize operation 'toy.mystery' that was explicitly marked illegal
  %1 = "toy.mystery"(%0) : (!toy.int) -> !toy.int
       ^
t.mlir:5:8: note: no conversion pattern matches 'toy.mystery'
  %1 = "toy.mystery"(%0) : (!toy.int) -> !toy.int
       ^
t.mlir:9:1: error: failed to legalize operation 'toy.func' that was explicitly marked illegal
"toy.func"() <{function_type = (!toy.weird) -> (), sym_name = "g"}> ({
^
t.mlir:9:1: note: pattern 'FuncLowering' does not apply: the signature has no conversion
"toy.func"() <{function_type = (!toy.weird) -> (), sym_name = "g"}> ({
^
t.mlir:11:8: error: failed to legalize operation 'toy.add' that was explicitly marked illegal
  %0 = "toy.add"(%w, %w) : (!toy.weird, !toy.weird) -> !toy.weird
       ^
t.mlir:11:8: note: pattern 'AddLowering' does not apply: operand #0 of type '!toy.weird' has no conversion
  %0 = "toy.add"(%w, %w) : (!toy.weird, !toy.weird) -> !toy.weird
       ^
"#
    );
}

#[test]
fn notes_say_why_each_pattern_failed() {
    let src = r#"
%0 = "other.make"() : () -> i32
%1 = "toy.add"(%0, %0) : (i32, i32) -> i32
"#;
    let mut patterns = ConversionPatternSet::new();
    patterns.add(Flaky).add(ProducesIllegal);
    let out = check_err(
        src,
        &ConversionConfig::default(),
        &lowering_target(),
        &patterns,
        None,
    );
    let notes: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_once(": note: ").map(|(_, n)| n))
        .collect();
    assert_eq!(
        notes,
        [
            "pattern 'Flaky' does not apply: it changed its mind",
            "pattern 'ProducesIllegal' applied, but the 'toy.mystery' it created failed to \
             legalize: no conversion pattern matches 'toy.mystery'",
        ]
    );
}

// ----- the target and the type converter -----

#[test]
fn legality_rules_and_their_precedence() {
    let src = r#"
"low.add"() : () -> ()
"toy.add"() : () -> ()
"toy.print"() : () -> ()
"toy.mul2"() {keep} : () -> ()
"toy.mul2"() : () -> ()
"other.make"() : () -> i32
"other.make"() : () -> !toy.int
"low.junk"() : () -> ()
"#;
    let (mut ctx, m) = parse(src);
    let mut target = ConversionTarget::new();
    target
        .add_legal_dialect("low")
        .add_illegal_op("low.junk")
        .add_dynamically_legal_dialect("toy", |cx, _| cx.type_converter().is_none())
        .add_legal_op("toy.print")
        .add_dynamically_legal_op("toy.mul2", |cx, op| cx.attr(op, "keep").is_some())
        .mark_unknown_ops_dynamically_legal(|cx, op| cx.are_op_types_legal(op));
    let conv = converter();
    let mut rw = PatternRewriter::new(&mut ctx);
    let mut cx = LegalityCx::new(&mut rw, Some(&conv));
    let ops = cx.nested_ops(m);
    let got: Vec<Legality> = ops.iter().map(|&op| target.legality(&mut cx, op)).collect();
    use Legality::*;
    assert_eq!(
        got,
        [Legal, Illegal, Legal, Legal, Illegal, Legal, Unknown, Illegal]
    );
}

#[test]
fn type_converter_conversions_and_signatures() {
    let mut ctx = context();
    let mut conv = converter();
    let ty = |ctx: &mut Context, s: &str| {
        nart_ir::parser::parse_type_str(ctx, s).expect("test types parse")
    };
    let (int, pair, none, weird) = (
        ty(&mut ctx, "!toy.int"),
        ty(&mut ctx, "!toy.pair"),
        ty(&mut ctx, "!toy.none"),
        ty(&mut ctx, "!toy.weird"),
    );
    let (i32t, f32t) = (ctx.i32_type(), ctx.f32_type());
    assert_eq!(conv.convert_type(&mut ctx, int), Some(vec![i32t]));
    assert_eq!(conv.convert_type(&mut ctx, pair), Some(vec![i32t, i32t]));
    assert_eq!(conv.convert_type(&mut ctx, none), Some(vec![]));
    assert_eq!(conv.convert_type(&mut ctx, weird), None);
    assert_eq!(conv.convert_single_type(&mut ctx, pair), None);
    assert!(conv.is_legal(&mut ctx, i32t) && !conv.is_legal(&mut ctx, int));
    assert_eq!(
        conv.convert_types(&mut ctx, &[int, none, pair]),
        Some(vec![i32t, i32t, i32t])
    );
    let sig = conv
        .convert_signature(&mut ctx, &[pair, f32t, none])
        .expect("these types convert");
    assert!(sig.is_complete());
    assert_eq!(sig.input_types(0), Some(&[i32t, i32t][..]));
    assert_eq!(sig.converted_types(), [i32t, i32t, f32t]);
    assert_eq!(conv.convert_signature(&mut ctx, &[int, weird]), None);
    let fty = ctx.function_type(vec![int, pair], vec![none]);
    let want = ctx.function_type(vec![i32t, i32t, i32t], vec![]);
    assert_eq!(conv.convert_function_type(&mut ctx, fty), Some(want));
    // The most recent conversion wins.
    conv.add_conversion(move |_, t| (t == int).then(|| vec![f32t]));
    assert_eq!(conv.convert_type(&mut ctx, int), Some(vec![f32t]));
}

// ----- in-place updates, created ops, and uses before definitions -----

/// Marks a `toy.mul2` with `keep`, which the target accepts.
struct MarkKept;

impl ConversionPattern for MarkKept {
    fn name(&self) -> &'static str {
        "MarkKept"
    }
    fn root(&self) -> Option<&'static str> {
        Some("toy.mul2")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let unit = rw.uniq().unit_attr();
        rw.set_attr(op, "keep", unit);
        true
    }
}

/// Marks a `toy.mul2` with `touched`, which changes nothing the target looks at.
struct Touch;

impl ConversionPattern for Touch {
    fn name(&self) -> &'static str {
        "Touch"
    }
    fn root(&self) -> Option<&'static str> {
        Some("toy.mul2")
    }
    fn benefit(&self) -> u16 {
        2
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let unit = rw.uniq().unit_attr();
        rw.set_attr(op, "touched", unit);
        true
    }
}

fn keep_target() -> ConversionTarget {
    let mut target = lowering_target();
    target.add_dynamically_legal_op("toy.mul2", |cx, op| cx.attr(op, "keep").is_some());
    target
}

const MUL2: &str = r#"
%0 = "other.make"() : () -> i32
%1 = "toy.mul2"(%0) : (i32) -> i32
"#;

/// `Touch` updates the op in place and leaves it illegal; legalizing it again, `MarkKept`
/// (not `Touch`, which is being applied) makes it legal, so both stand.
#[test]
fn an_op_updated_in_place_is_legalized_again() {
    let mut patterns = ConversionPatternSet::new();
    patterns.add(Touch).add(MarkKept);
    let res = check_ok(
        MUL2,
        ConversionMode::Full,
        &{
            let mut t = keep_target();
            t.add_legal_op("other.make");
            t
        },
        &patterns,
        None,
        r#"
module {
  %0 = "other.make"() : () -> i32
  %1 = "toy.mul2"(%0) {keep, touched} : (i32) -> i32
}
"#,
    );
    let apps: Vec<_> = res.pattern_applications.keys().copied().collect();
    assert_eq!(apps, ["MarkKept", "Touch"]);
}

#[test]
fn an_update_in_place_that_leaves_the_op_illegal_fails() {
    let mut patterns = ConversionPatternSet::new();
    patterns.add(Touch);
    let out = check_err(
        MUL2,
        &ConversionConfig::default(),
        &keep_target(),
        &patterns,
        None,
    );
    assert!(
        out.contains(
            "note: pattern 'Touch' applied, but the op it updated in place is still not legal: \
             pattern 'Touch' was not tried: it is converting the op that created this one"
        ),
        "{out}"
    );
}

/// `toy.mul2` to an op no rule names.
struct ToOther;

impl ConversionPattern for ToOther {
    fn name(&self) -> &'static str {
        "ToOther"
    }
    fn root(&self) -> Option<&'static str> {
        Some("toy.mul2")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let loc = rw.op_loc(op);
        let ty = rw.value_type(rw.result(op, 0));
        let new = create(rw, "other.double", loc, &a.flat_operands(), &[ty]);
        let r = rw.result(new, 0);
        rw.replace_op(op, &[r]);
        true
    }
}

#[test]
fn created_ops_no_rule_names_are_fine_in_a_partial_conversion_only() {
    let mut patterns = ConversionPatternSet::new();
    patterns.add(ToOther);
    check_ok(
        MUL2,
        ConversionMode::Partial,
        &lowering_target(),
        &patterns,
        None,
        r#"
module {
  %0 = "other.make"() : () -> i32
  %1 = "other.double"(%0) : (i32) -> i32
}
"#,
    );
    let mut target = lowering_target();
    target.add_legal_op("other.make");
    let out = check_err(
        MUL2,
        &ConversionConfig {
            mode: ConversionMode::Full,
            ..ConversionConfig::default()
        },
        &target,
        &patterns,
        None,
    );
    assert!(
        out.contains(
            "note: pattern 'ToOther' applied, but the 'other.double' it created failed to \
             legalize: no conversion pattern matches 'other.double'"
        ),
        "{out}"
    );
}

#[test]
fn casts_there_and_back_fold_away() {
    // The module is a graph region: `%1` is converted before its operand's definition, so it
    // first gets a target cast of `%0`, which becomes a cast of a source cast when `%0`'s
    // definition is converted; the pair folds away.
    let src = r#"
%1 = "toy.add"(%0, %0) : (!toy.int, !toy.int) -> !toy.int
%0 = "toy.add"(%x, %x) : (!toy.int, !toy.int) -> !toy.int
%x = "other.make"() : () -> !toy.int
"other.use"(%1) : (!toy.int) -> ()
"#;
    let conv = converter();
    let res = check_ok(
        src,
        ConversionMode::Partial,
        &lowering_target(),
        &lowering_patterns(),
        Some(&conv),
        r#"
module {
  %0 = "low.add"(%2, %2) : (i32, i32) -> i32
  %1 = unrealized_conversion_cast %0 : i32 to !toy.int
  %2 = "low.add"(%4, %4) : (i32, i32) -> i32
  %3 = "other.make"() : () -> !toy.int
  %4 = unrealized_conversion_cast %3 : !toy.int to i32
  "other.use"(%1) : (!toy.int) -> ()
}
"#,
    );
    assert_eq!(res.num_materializations, 2);
}
