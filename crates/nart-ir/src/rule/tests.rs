//! Tests of the rule engine on a small test dialect `t`: matching, captures, equality,
//! constraints, native calls, results, locations, failure reasons, and errors in rules.

use super::*;
use crate::printer::{print_op, PrintOptions};
use crate::registry::{constraints as c, Arity, AttrDef, DialectDef, Trait, ValueDef};
use crate::{AttrData, Context};

const fn v(name: &'static str, arity: Arity) -> ValueDef {
    ValueDef {
        name,
        constraint: c::ANY,
        arity,
    }
}

const ONE: &[ValueDef] = &[v("result", Arity::Single)];

static SRC: OpDef = OpDef {
    name: "t.src",
    results: ONE,
    ..OpDef::DEFAULT
};
static ADD: OpDef = OpDef {
    name: "t.add",
    operands: &[v("lhs", Arity::Single), v("rhs", Arity::Single)],
    results: ONE,
    attrs: &[AttrDef::optional("flags", c::ANY_ATTR, "")],
    ..OpDef::DEFAULT
};
static NEG: OpDef = OpDef {
    name: "t.neg",
    operands: &[v("in", Arity::Single)],
    results: ONE,
    ..OpDef::DEFAULT
};
static CAST: OpDef = OpDef {
    name: "t.cast",
    operands: &[v("in", Arity::Single)],
    results: ONE,
    ..OpDef::DEFAULT
};
static CONST: OpDef = OpDef {
    name: "t.const",
    results: ONE,
    attrs: &[AttrDef::required("value", c::TYPED_ATTR, "")],
    traits: &[Trait::ConstantLike],
    interfaces: &[crate::interface_impl!(
        crate::interfaces::ConstantOpInterface => crate::interfaces::ValueProperty
    )],
    ..OpDef::DEFAULT
};
static PAIR: OpDef = OpDef {
    name: "t.pair",
    operands: &[v("a", Arity::Single), v("b", Arity::Single)],
    results: &[v("lo", Arity::Single), v("hi", Arity::Single)],
    ..OpDef::DEFAULT
};
static CHECK: OpDef = OpDef {
    name: "t.check",
    operands: &[v("cond", Arity::Single)],
    ..OpDef::DEFAULT
};
static USE: OpDef = OpDef {
    name: "t.use",
    operands: &[v("values", Arity::Variadic)],
    ..OpDef::DEFAULT
};
static OPS: [&OpDef; 8] = [&SRC, &ADD, &NEG, &CAST, &CONST, &PAIR, &CHECK, &USE];

fn int_of(u: &Uniquer, a: Arg) -> Option<(i128, Type)> {
    match u.attr_data(a.attr()?) {
        AttrData::Integer { value, ty } => Some((*value, *ty)),
        _ => None,
    }
}

fn add_ints(u: &mut Uniquer, args: &[Arg]) -> Option<Attr> {
    let ((a, ty), (b, _)) = (int_of(u, args[0])?, int_of(u, args[1])?);
    Some(u.int_attr(ty, a + b))
}

fn is_zero(ctx: &Context, args: &[Arg]) -> bool {
    int_of(ctx, args[0]).is_some_and(|(v, _)| v == 0)
}

fn nonzero(ctx: &Context, args: &[Arg]) -> bool {
    int_of(ctx, args[0]).is_some_and(|(v, _)| v != 0)
}

fn is_int(ctx: &Context, args: &[Arg]) -> bool {
    args[0]
        .int()
        .is_some_and(|want| int_of(ctx, args[1]).is_some_and(|(v, _)| v == i128::from(want)))
}

fn never(_: &mut Uniquer, _: &[Arg]) -> Option<Attr> {
    None
}

static NATIVES: [Native; 5] = [
    Native::attr("add_ints", 2, add_ints),
    Native::constraint("is_zero", 1, is_zero),
    Native::constraint("nonzero", 1, nonzero),
    Native::constraint("is_int", 2, is_int),
    Native::attr("never", 0, never),
];

fn context() -> Context {
    let mut ctx = Context::new();
    let mut d = DialectDef::new("t");
    d.ops = &OPS;
    ctx.register_dialect(d);
    ctx
}

/// What applying a rule did.
#[derive(Debug)]
struct Outcome {
    module: Op,
    changed: bool,
    failure: Option<String>,
    /// The module afterwards, one op a line, in the generic form.
    ir: String,
}

/// Parses `ir` (ops in the generic form), applies `rule` to the last op named like its root,
/// and prints the module.
fn run_in(ctx: &mut Context, rule: &dyn RewritePattern, ir: &str) -> Outcome {
    let module = crate::parser::parse_source(ctx, "test.mlir", ir)
        .unwrap_or_else(|e| unreachable!("test IR parses: {e:?}"));
    let root_name = rule.root().unwrap_or("");
    let mut root = None;
    ctx.walk(module, crate::WalkOrder::PreOrder, |ctx, op| {
        if ctx.op_name_str(op) == root_name {
            root = Some(op);
        }
    });
    let root = root.unwrap_or_else(|| unreachable!("the IR has a `{root_name}`"));
    let mut rw = PatternRewriter::new(ctx);
    let changed = rule.match_and_rewrite(&mut rw, root);
    let failure = rw.take_match_failure();
    let ir = print_op(ctx, module, &PrintOptions::default());
    Outcome {
        module,
        changed,
        failure,
        ir,
    }
}

fn run(rule: &Rule, ir: &str) -> Outcome {
    run_in(&mut context(), rule, ir)
}

/// The body of the printed module, without the `module {` lines and indentation.
fn body(o: &Outcome) -> String {
    let lines: Vec<&str> = o.ir.lines().map(str::trim).collect();
    lines[1..lines.len() - 1].join("\n")
}

fn applied(rule: &Rule, ir: &str) -> String {
    let o = run(rule, ir);
    assert!(o.changed, "{} applies: {:?}", rule.name(), o.failure);
    body(&o)
}

fn failure(rule: &Rule, ir: &str) -> String {
    let o = run(rule, ir);
    assert!(!o.changed, "{} does not apply", rule.name());
    let mut ctx = context();
    let module = crate::parser::parse_source(&mut ctx, "test.mlir", ir)
        .unwrap_or_else(|e| unreachable!("test IR parses: {e:?}"));
    let before = print_op(&ctx, module, &PrintOptions::default());
    assert_eq!(o.ir, before, "a rule that fails leaves the IR as it was");
    o.failure.unwrap_or_default()
}

static NEG_NEG: Rule = crate::rule!("NegNeg", "(t.neg (t.neg $x)) => $x");

#[test]
fn replaces_with_a_captured_value() {
    let ir = r#"
      %a = "t.src"() : () -> i32
      %0 = "t.neg"(%a) : (i32) -> i32
      %1 = "t.neg"(%0) : (i32) -> i32
      "t.use"(%1) : (i32) -> ()
    "#;
    let out = applied(&NEG_NEG, ir);
    assert!(out.ends_with(r#""t.use"(%0) : (i32) -> ()"#), "{out}");
    assert_eq!(
        failure(
            &NEG_NEG,
            r#"%a = "t.src"() : () -> i32
                             %0 = "t.neg"(%a) : (i32) -> i32"#
        ),
        "operand #0 of `t.neg` is not defined by `t.neg`"
    );
}

static ADD_ADD_CONSTANT: Rule = crate::rule!(
    "AddAddConstant",
    "(t.add (t.add $x (constant $c1)) (constant $c2))
       => (t.add $x (t.const {value = add_ints($c1, $c2)}))",
    natives = &NATIVES,
);

#[test]
fn constant_captures_and_native_attributes() {
    let ir = r#"
      %a = "t.src"() : () -> i32
      %c3 = "t.const"() {value = 3 : i32} : () -> i32
      %c4 = "t.const"() {value = 4 : i32} : () -> i32
      %0 = "t.add"(%a, %c3) : (i32, i32) -> i32
      %1 = "t.add"(%0, %c4) : (i32, i32) -> i32
      "t.use"(%1) : (i32) -> ()
    "#;
    let out = applied(&ADD_ADD_CONSTANT, ir);
    assert!(
        out.contains(r#""t.const"() <{value = 7 : i32}> : () -> i32"#),
        "{out}"
    );
    assert!(
        out.contains(r#""t.add"(%0, %4) : (i32, i32) -> i32"#),
        "{out}"
    );
    assert_eq!(ADD_ADD_CONSTANT.benefit(), 2, "two ops in the source");

    let not_const = r#"
      %a = "t.src"() : () -> i32
      %c3 = "t.const"() {value = 3 : i32} : () -> i32
      %0 = "t.add"(%a, %c3) : (i32, i32) -> i32
      %1 = "t.add"(%0, %a) : (i32, i32) -> i32
    "#;
    assert_eq!(
        failure(&ADD_ADD_CONSTANT, not_const),
        "operand #1 of `t.add` is not a constant"
    );
}

static ADD_SELF: Rule = crate::rule!("AddSelf", "(t.add $x $x) => (t.neg $x)");

#[test]
fn a_capture_used_twice_must_match_the_same_value() {
    let same = r#"
      %a = "t.src"() : () -> i32
      %0 = "t.add"(%a, %a) : (i32, i32) -> i32
    "#;
    assert!(applied(&ADD_SELF, same).contains(r#""t.neg"(%0)"#));
    let different = r#"
      %a = "t.src"() : () -> i32
      %b = "t.src"() : () -> i32
      %0 = "t.add"(%a, %b) : (i32, i32) -> i32
    "#;
    assert_eq!(
        failure(&ADD_SELF, different),
        "`$x` stands for two different values"
    );
}

static ADD_FLAGS: Rule = crate::rule!(
    "AddFlags",
    "(t.add (t.add $x $y {flags = $f}) $z {flags = $f}) => (t.add $x $z {flags = $f})"
);

#[test]
fn attribute_captures_bind_and_compare() {
    let ir = |f1: &str, f2: &str| {
        format!(
            r#"
          %a = "t.src"() : () -> i32
          %0 = "t.add"(%a, %a) {{flags = {f1}}} : (i32, i32) -> i32
          %1 = "t.add"(%0, %a) {{flags = {f2}}} : (i32, i32) -> i32
        "#
        )
    };
    let out = applied(&ADD_FLAGS, &ir("1 : i8", "1 : i8"));
    assert!(out.contains(r#"<{flags = 1 : i8}>"#), "{out}");
    assert_eq!(
        failure(&ADD_FLAGS, &ir("1 : i8", "2 : i8")),
        "`$f` stands for two different attributes"
    );
    let missing = r#"
      %a = "t.src"() : () -> i32
      %0 = "t.add"(%a, %a) : (i32, i32) -> i32
      %1 = "t.add"(%0, %a) {flags = 1 : i8} : (i32, i32) -> i32
    "#;
    assert_eq!(
        failure(&ADD_FLAGS, missing),
        "`t.add` has no attribute `flags`"
    );
}

static ADD_ZERO_ONE_USE: Rule = crate::rule!(
    "AddZeroOneUse",
    "(t.add (t.neg:$n $x) (constant $c)) => $n if is_zero($c), has_one_use($n)",
    natives = &NATIVES,
);

#[test]
fn constraints_must_hold() {
    let ir = |c: i32, extra_use: bool| {
        let use_line = if extra_use {
            r#""t.use"(%0) : (i32) -> ()"#
        } else {
            ""
        };
        format!(
            r#"
          %a = "t.src"() : () -> i32
          %c = "t.const"() {{value = {c} : i32}} : () -> i32
          %0 = "t.neg"(%a) : (i32) -> i32
          %1 = "t.add"(%0, %c) : (i32, i32) -> i32
          {use_line}
        "#
        )
    };
    applied(&ADD_ZERO_ONE_USE, &ir(0, false));
    assert_eq!(
        failure(&ADD_ZERO_ONE_USE, &ir(5, false)),
        "constraint `is_zero($c)` does not hold"
    );
    assert_eq!(
        failure(&ADD_ZERO_ONE_USE, &ir(0, true)),
        "constraint `has_one_use($n)` does not hold"
    );
}

static INT_LITERAL: Rule = crate::rule!(
    "IntLiteral",
    "(t.add $x (constant $c)) => $x if is_int(-1, $c)",
    natives = &NATIVES,
);

#[test]
fn integer_arguments() {
    let ir = |c: i32| {
        format!(
            r#"
          %a = "t.src"() : () -> i32
          %c = "t.const"() {{value = {c} : i32}} : () -> i32
          %1 = "t.add"(%a, %c) : (i32, i32) -> i32
        "#
        )
    };
    applied(&INT_LITERAL, &ir(-1));
    failure(&INT_LITERAL, &ir(1));
}

static NEVER: Rule = crate::rule!(
    "Never",
    "(t.neg $x) => (t.const {value = never()})",
    natives = &NATIVES,
);

#[test]
fn a_native_without_an_attribute_is_a_match_failure() {
    let ir = r#"
      %a = "t.src"() : () -> i32
      %0 = "t.neg"(%a) : (i32) -> i32
    "#;
    assert_eq!(failure(&NEVER, ir), "`never()` gives no attribute");
}

static CAST_CAST: Rule = crate::rule!("CastCast", "(t.cast (t.cast $x)) => $x");
static CAST_CAST_SAME: Rule = crate::rule!(
    "CastCastSame",
    "(t.cast:$r (t.cast $x)) => $x if same_type($r, $x)"
);

#[test]
fn replacements_keep_the_type() {
    let ir = r#"
      %a = "t.src"() : () -> i32
      %0 = "t.cast"(%a) : (i32) -> i64
      %1 = "t.cast"(%0) : (i64) -> i16
      "t.use"(%1) : (i16) -> ()
    "#;
    assert_eq!(
        failure(&CAST_CAST, ir),
        "the replacement has type i32, the root i16"
    );
    assert_eq!(
        failure(&CAST_CAST_SAME, ir),
        "constraint `same_type($r, $x)` does not hold"
    );
    let round_trip = ir.replace("-> i16", "-> i32").replace("(i16)", "(i32)");
    applied(&CAST_CAST, &round_trip);
}

static NEG_OF_CAST: Rule = crate::rule!(
    "NegOfCast",
    "(t.neg (t.cast $x)) => (t.cast (t.neg $x -> $x))"
);

#[test]
fn result_types_default_to_the_root_or_follow_a_capture() {
    let ir = r#"
      %a = "t.src"() : () -> i8
      %0 = "t.cast"(%a) : (i8) -> i32
      %1 = "t.neg"(%0) : (i32) -> i32
    "#;
    let out = applied(&NEG_OF_CAST, ir);
    assert!(out.contains(r#""t.neg"(%0) : (i8) -> i8"#), "{out}");
    assert!(out.contains(r#""t.cast"(%2) : (i8) -> i32"#), "{out}");
}

static PAIR_SWAP: Rule = crate::rule!(
    "PairSwap",
    "(t.pair:$p $a $b) => [$b, (t.neg $a)] if unused($p#1)"
);
static CHECK_TRUE: Rule = crate::rule!(
    "CheckTrue",
    "(t.check (constant $c)) => [] if nonzero($c)",
    natives = &NATIVES,
);

#[test]
fn multiple_results_and_erasure() {
    let ir = |use_hi: &str| {
        format!(
            r#"
          %a = "t.src"() : () -> i32
          %b = "t.src"() : () -> i32
          %lo, %hi = "t.pair"(%a, %b) : (i32, i32) -> (i32, i32)
          "t.use"({use_hi}) : (i32) -> ()
        "#
        )
    };
    let out = applied(&PAIR_SWAP, &ir("%lo"));
    assert!(out.contains(r#""t.use"(%1) : (i32) -> ()"#), "{out}");
    assert_eq!(
        failure(&PAIR_SWAP, &ir("%hi")),
        "constraint `unused($p#1)` does not hold"
    );
    // The unused `hi` may be replaced by a value of another type.
    let wide_hi = r#"
      %a = "t.src"() : () -> i32
      %b = "t.src"() : () -> i32
      %lo, %hi = "t.pair"(%a, %b) : (i32, i32) -> (i32, i64)
      "t.use"(%lo) : (i32) -> ()
    "#;
    applied(&PAIR_SWAP, wide_hi);
    let check = |v: i32| {
        format!(
            r#"
          %c = "t.const"() {{value = {v} : i1}} : () -> i1
          "t.check"(%c) : (i1) -> ()
        "#
        )
    };
    let out = applied(&CHECK_TRUE, &check(1));
    assert!(!out.contains("t.check"), "{out}");
    failure(&CHECK_TRUE, &check(0));
}

#[test]
fn new_ops_get_the_fused_location_of_the_matched_ops() {
    let ir = r#"
      %a = "t.src"() : () -> i32 loc("a.mlir":1:1)
      %c3 = "t.const"() {value = 3 : i32} : () -> i32 loc("a.mlir":2:1)
      %c4 = "t.const"() {value = 4 : i32} : () -> i32 loc("a.mlir":3:1)
      %0 = "t.add"(%a, %c3) : (i32, i32) -> i32 loc("a.mlir":4:1)
      %1 = "t.add"(%0, %c4) : (i32, i32) -> i32 loc("a.mlir":5:1)
      "t.use"(%1) : (i32) -> ()
    "#;
    let mut ctx = context();
    let o = run_in(&mut ctx, &ADD_ADD_CONSTANT, ir);
    assert!(o.changed);
    // The new `t.add` (after the dead inner one, which the driver would erase) is at the fused
    // location of the two matched adds.
    let mut locs = Vec::new();
    ctx.walk(o.module, crate::WalkOrder::PreOrder, |ctx, op| {
        if ctx.op_name_str(op) == "t.add" {
            locs.push(crate::printer::loc_to_string(ctx, ctx.op_loc(op)));
        }
    });
    assert_eq!(
        locs,
        [
            r#"loc("a.mlir":4:1)"#,
            r#"loc(fused["a.mlir":5:1, "a.mlir":4:1])"#
        ],
        "root first, then the nested op"
    );

    let mut u = Uniquer::new();
    let a = u.file_loc("a", 1, 1);
    let unknown = u.unknown_loc();
    assert_eq!(apply::fuse_locs(&mut u, &[a, unknown, a]), a);
    assert_eq!(apply::fuse_locs(&mut u, &[unknown]), unknown);
}

// ----- rules that are wrong -----

fn compile_error(rule: &Rule) -> String {
    match rule.compile() {
        Ok(()) => unreachable!("{} must not compile", rule.name()),
        Err(e) => {
            let text = e.to_string();
            // Drop the `file:line: ` prefix, which depends on where the test is.
            text.split_once(": ")
                .map_or(text.clone(), |(_, rest)| rest.to_string())
        }
    }
}

#[test]
fn unknown_capture_in_the_result() {
    let r = crate::rule!("Bad", "(t.add $x (t.neg $y)) => (t.add $x $z)");
    assert_eq!(
        compile_error(&r),
        "rule `Bad`: unknown capture `$z`: the source binds `$x`, `$y` (rule text 1:36)\n\
         \x20 | (t.add $x (t.neg $y)) => (t.add $x $z)\n\
         \x20 |                                    ^^"
    );
    let o = run(
        &r,
        r#"%a = "t.src"() : () -> i32
           %0 = "t.add"(%a, %a) : (i32, i32) -> i32"#,
    );
    assert!(!o.changed);
    assert_eq!(
        o.failure.as_deref(),
        Some("the rule does not compile: unknown capture `$z`: the source binds `$x`, `$y`")
    );
    assert_eq!(
        r.root(),
        Some("t.add"),
        "the root of a broken rule is still known"
    );
}

#[test]
fn errors_point_at_the_token() {
    let cases = [
        ("(t.add $x $y) => (t.add $x $y", "expected `)`, found the end of the rule"),
        ("(t.add $x $y) => ", "expected a capture or `(op ...)`, found the end of the rule"),
        ("(add $x) => $x", "expected an op name such as `arith.addi`, found `add`"),
        ("(t.add $x $y) => $x if", "expected a native function, found the end of the rule"),
        ("(t.add $x $y) => $x if foo($x)", "unknown native function `foo` (not in the rule's natives nor the builtins)"),
        ("(t.add $x $y) => $x if same_type($x)", "`same_type` takes 2 arguments, the rule gives 1"),
        ("(t.add $x $y) => (t.neg $x {value = same_type($x, $y)})", "`same_type` is a constraint, not an attribute builder"),
        ("(t.add $x (constant $c)) => (t.neg $c)", "`$c` is an attribute, not a value; build a constant from it"),
        ("(t.add $x (constant $c)) => (t.neg $x {value = $x})", "`$x` is a value, not an attribute"),
        ("(t.add:$r $x $y) => $r", "`$r` is the root, which the rewrite replaces; use it only in constraints or after `->`"),
        ("(t.add $x (constant $x)) => $x", "`$x` is an attribute here but a value where it was bound first"),
        ("(t.add $x $y) => $x#1", "`$x#n` needs `$x` to name an op"),
        ("(t.add $x $y) => (constant $x)", "`constant` only matches; build a constant with the dialect's constant op and a `value` attribute"),
        ("(t.add $x $y) => $x $y", "expected `if`, or the end of the rule, found `$y`"),
        ("(t.add $x ?y) => $x", "unexpected character `?`"),
    ];
    for (text, want) in cases {
        let e = syntax::compile("Bad", text, &[], None)
            .err()
            .unwrap_or_else(|| unreachable!("`{text}` must not compile"));
        assert_eq!(e.message, want, "{text}");
    }
}

#[test]
fn check_against_the_registered_ops() {
    let ctx = context();
    let cases = [
        ("(t.addd $x $y) => $x", "unknown op `t.addd`"),
        (
            "(t.add $x) => $x",
            "`t.add` takes 2 operands, the rule matches 1",
        ),
        (
            "(t.neg $x) => (t.add $x)",
            "`t.add` takes 2 operands, the rule gives 1",
        ),
        (
            "(t.add $x $y {flag = $f}) => $x",
            "`t.add` has no attribute `flag` (it declares flags)",
        ),
        (
            "(t.neg $x) => (t.const)",
            "`t.const` needs attribute `value`",
        ),
        (
            "(t.pair $x $y) => $x",
            "`t.pair` has 2 results, the rule replaces 1",
        ),
        (
            "(t.neg $x) => [$x, $x]",
            "`t.neg` has 1 result, the rule replaces 2",
        ),
        (
            "(t.neg $x) => (t.pair $x $x)",
            "`t.pair` has 2 results, the rule gives it 1 type",
        ),
        (
            "(t.check $x) => $x",
            "`t.check` has 0 results, the rule replaces 1",
        ),
    ];
    for (text, want) in cases {
        let r = Rule::new("Bad", text);
        let e = r
            .check(&ctx)
            .err()
            .unwrap_or_else(|| unreachable!("`{text}` must fail the check"));
        assert_eq!(e.message, want, "{text}");
    }
    for good in [
        &NEG_NEG,
        &ADD_ADD_CONSTANT,
        &ADD_SELF,
        &ADD_FLAGS,
        &ADD_ZERO_ONE_USE,
        &INT_LITERAL,
        &NEVER,
        &CAST_CAST,
        &CAST_CAST_SAME,
        &NEG_OF_CAST,
        &PAIR_SWAP,
        &CHECK_TRUE,
    ] {
        assert_eq!(good.check(&ctx), Ok(()), "{}", good.name());
        assert_eq!(RewritePattern::check(good, &ctx), Ok(()));
    }
}

#[test]
fn rule_macro_records_where_the_rule_is() {
    let r = crate::rule!("Here", "(t.neg $x) => $y");
    let e = r.compile().err().unwrap_or_else(|| unreachable!());
    let (file, line) = e.origin.unwrap_or_else(|| unreachable!("rule! records it"));
    assert!(file.ends_with("tests.rs"), "{file}");
    assert_eq!(line, line!() - 4);
    assert!(e
        .to_string()
        .starts_with(&format!("{file}:{line}: rule `Here`")));
    let mut u = Uniquer::new();
    let d = e.to_diagnostic(&mut u);
    assert_eq!(u.loc_file_line_col(d.loc), Some((file, line, 1)));
}

#[test]
fn comments_and_layout_are_free() {
    let r = Rule::new(
        "Layout",
        "// neg(neg(x)) → x\n(t.neg\n   (t.neg $x)) // the inner op\n=> $x",
    );
    assert_eq!(r.check(&context()), Ok(()));
    assert_eq!(r.benefit(), 2);
    assert_eq!(
        Rule::new("B", "(t.neg $x) => $x").with_benefit(3).benefit(),
        3
    );
}

static NEG_ZERO: Rule = crate::rule!(
    "NegZero",
    "(t.neg (constant $c)) => (t.const {value = $c}) if is_zero($c)",
    natives = &NATIVES,
);
static NEG_OR_NEG_ZERO: FirstOf = FirstOf::new("NegFamily", &[&NEG_NEG, &NEG_ZERO]);

#[test]
fn first_of_tries_its_rules_in_order() {
    let neg_neg = r#"
      %a = "t.src"() : () -> i32
      %0 = "t.neg"(%a) : (i32) -> i32
      %1 = "t.neg"(%0) : (i32) -> i32
      "t.use"(%1) : (i32) -> ()
    "#;
    let neg_zero = r#"
      %c = "t.const"() {value = 0 : i32} : () -> i32
      %1 = "t.neg"(%c) : (i32) -> i32
      "t.use"(%1) : (i32) -> ()
    "#;
    let mut ctx = context();
    assert!(run_in(&mut ctx, &NEG_OR_NEG_ZERO, neg_neg).changed);
    assert!(run_in(&mut ctx, &NEG_OR_NEG_ZERO, neg_zero).changed);
    let neither = r#"
      %c = "t.const"() {value = 1 : i32} : () -> i32
      %1 = "t.neg"(%c) : (i32) -> i32
    "#;
    let o = run_in(&mut ctx, &NEG_OR_NEG_ZERO, neither);
    assert!(!o.changed);
    assert_eq!(
        o.failure.as_deref(),
        Some(
            "NegNeg: operand #0 of `t.neg` is not defined by `t.neg`; \
             NegZero: constraint `is_zero($c)` does not hold"
        )
    );
    assert_eq!(NEG_OR_NEG_ZERO.root(), Some("t.neg"));
    assert_eq!(NEG_OR_NEG_ZERO.benefit(), 2);
    assert_eq!(RewritePattern::check(&NEG_OR_NEG_ZERO, &ctx), Ok(()));
    static MIXED: FirstOf = FirstOf::new("Mixed", &[&NEG_NEG, &ADD_SELF]);
    assert_eq!(
        RewritePattern::check(&MIXED, &ctx),
        Err("`Mixed`: rule `AddSelf` is rooted on `t.add`, not `t.neg`".to_string())
    );
}
