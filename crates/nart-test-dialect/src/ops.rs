//! The ops of the `test` dialect, one per shape of op the core's generic machinery cares about:
//! symbols and symbol tables, functions and calls, terminators and branches, a constant and a
//! folding add, side effects, regions, and the declarative assembly format's directives.

use std::ops::Range;

use nart_ir::interfaces::{BranchOpInterface, CallOpInterface, CallableOpInterface, Callee};
use nart_ir::registry::{
    constraints as c, Arity, AttrConstraint, AttrDef, FoldOutcome, FoldResult, OpDef, RegionDef,
    Trait, ValueDef,
};
use nart_ir::{
    interface_impl, Attr, Context, Diagnostic, Location, Op, OperationState, PatternRewriter,
    Region, RewritePattern, Type, TypeData,
};

use crate::syntax;
use crate::types::FLAGS;

const fn value(name: &'static str, arity: Arity) -> ValueDef {
    ValueDef {
        name,
        constraint: c::ANY,
        arity,
    }
}

const SYM_NAME: AttrDef = AttrDef::required("sym_name", c::SYMBOL_NAME_ATTR, "The symbol's name.");

const SYM_VISIBILITY: AttrDef = AttrDef::optional(
    "sym_visibility",
    c::STRING_ATTR,
    "`private`, `nested` or `public` (the default).",
);

/// `test.module`: a named symbol table, like `builtin.module`.
pub static MODULE: OpDef = OpDef {
    name: "test.module",
    summary: "A nested symbol table",
    description: "```mlir\ntest.module @m {\n  test.func @f() {\n    test.return\n  }\n}\n```",
    attrs: &[SYM_NAME, SYM_VISIBILITY],
    regions: &[RegionDef {
        name: "body",
        single_block: true,
        may_be_empty: false,
    }],
    traits: &[
        Trait::SymbolTable,
        Trait::Symbol,
        Trait::NoTerminator,
        Trait::SingleBlock,
        Trait::GraphRegion,
        Trait::IsolatedFromAbove,
    ],
    assembly_format: Some("$sym_name attr-dict-with-keyword $body"),
    ..OpDef::DEFAULT
};

/// `test.func`: a function (callable, isolated, a symbol); its body may be empty (a
/// declaration).
pub static FUNC: OpDef = OpDef {
    name: "test.func",
    summary: "A function",
    description: "The entry block's argument types must be the inputs of `function_type`.\n\n\
```mlir\ntest.func private @f(%arg0: i32) -> i32 attributes {x} {\n  test.return %arg0 : i32\n}\n```",
    attrs: &[
        SYM_NAME,
        SYM_VISIBILITY,
        AttrDef::required("function_type", c::FUNCTION_TYPE_ATTR, "The signature."),
    ],
    regions: &[RegionDef {
        name: "body",
        single_block: false,
        may_be_empty: true,
    }],
    traits: &[Trait::IsolatedFromAbove, Trait::Symbol],
    verify: Some(verify_func),
    parse: Some(syntax::parse_func),
    print: Some(syntax::print_func),
    interfaces: &[interface_impl!(CallableOpInterface => FuncCallable)],
    ..OpDef::DEFAULT
};

/// `(inputs, results)` of a `test.func`'s `function_type`.
pub fn func_signature(ctx: &Context, f: Op) -> (Vec<Type>, Vec<Type>) {
    let fty = ctx.attr(f, "function_type").and_then(|a| ctx.attr_type(a));
    match fty.map(|t| ctx.type_data(t)) {
        Some(TypeData::Function { inputs, results }) => (inputs.clone(), results.clone()),
        _ => (Vec::new(), Vec::new()),
    }
}

fn verify_func(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(&entry) = ctx.region_blocks(ctx.region(op, 0)).first() else {
        return Ok(());
    };
    let (inputs, _) = func_signature(ctx, op);
    let args: Vec<Type> = ctx
        .block_args(entry)
        .iter()
        .map(|&a| ctx.value_type(a))
        .collect();
    if args != inputs {
        return Err(ctx.op_error(
            op,
            "entry block arguments do not match the inputs of 'function_type'",
        ));
    }
    Ok(())
}

struct FuncCallable;

impl CallableOpInterface for FuncCallable {
    fn callable_region(&self, ctx: &Context, op: Op) -> Option<Region> {
        let r = ctx.region(op, 0);
        (!ctx.region_blocks(r).is_empty()).then_some(r)
    }
    fn argument_types(&self, ctx: &Context, op: Op) -> Vec<Type> {
        func_signature(ctx, op).0
    }
    fn result_types(&self, ctx: &Context, op: Op) -> Vec<Type> {
        func_signature(ctx, op).1
    }
}

/// `test.return`: ends a function's block.
pub static RETURN: OpDef = OpDef {
    name: "test.return",
    summary: "A return-like terminator",
    description: "```mlir\ntest.return %0 : i32\n```",
    operands: &[value("operands", Arity::Variadic)],
    traits: &[Trait::Terminator, Trait::ReturnLike, Trait::Pure],
    assembly_format: Some("attr-dict ($operands^ `:` type($operands))?"),
    ..OpDef::DEFAULT
};

/// `test.call`: calls a function by symbol.
pub static CALL: OpDef = OpDef {
    name: "test.call",
    summary: "A call",
    description: "```mlir\n%0 = test.call @f(%arg0) : (i32) -> i32\n```",
    operands: &[value("args", Arity::Variadic)],
    results: &[value("res", Arity::Variadic)],
    attrs: &[AttrDef::required(
        "callee",
        c::FLAT_SYMBOL_REF_ATTR,
        "The function called.",
    )],
    assembly_format: Some("$callee `(` $args `)` attr-dict `:` functional-type($args, results)"),
    interfaces: &[interface_impl!(CallOpInterface => Call)],
    ..OpDef::DEFAULT
};

struct Call;

impl CallOpInterface for Call {
    fn callee(&self, ctx: &Context, op: Op) -> Option<Callee> {
        ctx.attr(op, "callee").map(Callee::Symbol)
    }
    fn arg_operands(&self, ctx: &Context, op: Op) -> Range<usize> {
        0..ctx.operands(op).len()
    }
}

/// `test.use`: refers to a symbol without calling it.
pub static USE: OpDef = OpDef {
    name: "test.use",
    summary: "A use of a symbol",
    description: "```mlir\ntest.use @m::@f\n```",
    attrs: &[AttrDef::required(
        "ref",
        c::SYMBOL_REF_ATTR,
        "The symbol used.",
    )],
    assembly_format: Some("$ref attr-dict"),
    ..OpDef::DEFAULT
};

/// `test.br`: branches to any number of successors, passing all its operands to each.
pub static BR: OpDef = OpDef {
    name: "test.br",
    summary: "A branch to one or more successors",
    description: "Every successor receives all the operands.\n\n\
```mlir\ntest.br ^bb1(%0 : i32)\ntest.br ^bb1, ^bb2\n```",
    operands: &[value("dest_operands", Arity::Variadic)],
    num_successors: None,
    traits: &[Trait::Terminator],
    assembly_format: Some(
        "successors (`(` $dest_operands^ `:` type($dest_operands) `)`)? attr-dict",
    ),
    interfaces: &[interface_impl!(BranchOpInterface => Br)],
    ..OpDef::DEFAULT
};

struct Br;

impl BranchOpInterface for Br {
    fn successor_operands(&self, ctx: &Context, op: Op, _: usize) -> Option<Range<usize>> {
        Some(0..ctx.operands(op).len())
    }
}

/// `test.constant`: a constant (`ConstantLike`) whose value is typed like its result.
pub static CONSTANT: OpDef = OpDef {
    name: "test.constant",
    summary: "A constant",
    description: "```mlir\n%0 = test.constant 1 : i32\n```",
    results: &[value("result", Arity::Single)],
    attrs: &[AttrDef::required(
        "value",
        c::TYPED_ATTR,
        "The value; its type is the result type.",
    )],
    traits: &[Trait::Pure, Trait::ConstantLike],
    interfaces: &[nart_ir::interface_impl!(
        nart_ir::interfaces::ConstantOpInterface => nart_ir::interfaces::ValueProperty
    )],
    verify: Some(verify_constant),
    assembly_format: Some("attr-dict $value"),
    ..OpDef::DEFAULT
};

fn verify_constant(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let value_ty = ctx.attr(op, "value").and_then(|a| ctx.typed_attr_type(a));
    if value_ty != Some(ctx.value_type(ctx.result(op, 0))) {
        return Err(ctx.op_error(op, "value type does not match the result type"));
    }
    Ok(())
}

/// Builds a detached `test.constant` for an integer `value` (the dialect's constant
/// materializer).
pub fn materialize_constant(ctx: &mut Context, value: Attr, ty: Type, loc: Location) -> Option<Op> {
    ctx.attr_int(value)?;
    let st = OperationState::new(ctx, "test.constant", loc)
        .results(&[ty])
        .prop(ctx, "value", value);
    Some(ctx.create_op(st))
}

/// `test.add`: pure, commutative integer addition; folds two constants, and `x + 0` is
/// canonicalized to `x` by [`AddZero`].
pub static ADD: OpDef = OpDef {
    name: "test.add",
    summary: "Integer addition",
    description: "```mlir\n%2 = test.add %0, %1 : i32\n```",
    operands: &[value("lhs", Arity::Single), value("rhs", Arity::Single)],
    results: &[value("result", Arity::Single)],
    traits: &[
        Trait::Pure,
        Trait::Commutative,
        Trait::SameOperandsAndResultType,
    ],
    fold: Some(fold_add),
    canonicalize: &[&AddZero],
    assembly_format: Some("$lhs `,` $rhs attr-dict `:` type($result)"),
    ..OpDef::DEFAULT
};

/// `c1 + c2 → c`.
fn fold_add(ctx: &mut Context, op: Op, consts: &[Option<Attr>]) -> FoldOutcome {
    let [Some(a), Some(b)] = consts else {
        return FoldOutcome::None;
    };
    let (Some(x), Some(y)) = (ctx.attr_int(*a), ctx.attr_int(*b)) else {
        return FoldOutcome::None;
    };
    let ty = ctx.value_type(ctx.result(op, 0));
    let sum = ctx.int_attr(ty, x + y);
    FoldOutcome::Replace(vec![FoldResult::Attr(sum)])
}

/// The `value` of the `ConstantLike` op defining `v`, if any.
fn constant_value(ctx: &Context, v: nart_ir::Value) -> Option<Attr> {
    let def = ctx.defining_op(v)?;
    if ctx.op_has_trait(def, Trait::ConstantLike) {
        ctx.attr(def, "value")
    } else {
        None
    }
}

/// `x + 0 → x`: the canonicalization pattern of `test.add`.
pub struct AddZero;

impl RewritePattern for AddZero {
    fn name(&self) -> &'static str {
        "AddZero"
    }
    fn root(&self) -> Option<&'static str> {
        Some("test.add")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let rhs = rw.operand(op, 1);
        if constant_value(rw, rhs).and_then(|a| rw.attr_int(a)) != Some(0) {
            return rw.match_failure("the right operand is not the constant 0");
        }
        let lhs = rw.operand(op, 0);
        rw.replace_op(op, &[lhs]);
        true
    }
}

/// The predicates of `test.cmp`, by value.
pub const PREDICATES: [&str; 3] = ["eq", "ne", "slt"];

/// `test.cmp`: a comparison with hand-written syntax (`parse`/`print` hooks) whose predicate is
/// an integer property spelled as a keyword.
pub static CMP: OpDef = OpDef {
    name: "test.cmp",
    summary: "A comparison with hand-written syntax",
    description: "```mlir\n%2 = test.cmp slt, %0, %1 : i32\n```",
    operands: &[value("lhs", Arity::Single), value("rhs", Arity::Single)],
    results: &[value("result", Arity::Single)],
    attrs: &[AttrDef::required(
        "predicate",
        c::INTEGER_ATTR,
        "The index of the predicate in `eq`, `ne`, `slt`.",
    )],
    traits: &[Trait::Pure],
    parse: Some(syntax::parse_cmp),
    print: Some(syntax::print_cmp),
    ..OpDef::DEFAULT
};

/// `test.cast`: any number of values to any number of types; its format has an optional
/// group and a literal keyword.
pub static CAST: OpDef = OpDef {
    name: "test.cast",
    summary: "A cast of any values to any types",
    description:
        "```mlir\n%1:2 = test.cast %0, %0 : i32, i32 to f32, f32\n%2 = test.cast to i8\n```",
    operands: &[value("in", Arity::Variadic)],
    results: &[value("out", Arity::Variadic)],
    traits: &[Trait::Pure],
    assembly_format: Some("($in^ `:` type($in))? `to` type($out) attr-dict"),
    ..OpDef::DEFAULT
};

/// `test.effect`: has side effects, so it is never erased, moved or deduplicated.
pub static EFFECT: OpDef = OpDef {
    name: "test.effect",
    summary: "An op with side effects",
    description: "```mlir\ntest.effect %0 : i32\n```",
    operands: &[value("values", Arity::Variadic)],
    traits: &[Trait::MemoryEffects],
    assembly_format: Some("($values^ `:` type($values))? attr-dict"),
    ..OpDef::DEFAULT
};

/// `test.region`: one single-block region without terminator; not isolated, and with side
/// effects (it is not `Pure`).
pub static REGION: OpDef = OpDef {
    name: "test.region",
    summary: "An op with a region",
    description: "```mlir\ntest.region {\n  test.effect %0 : i32\n}\n```",
    regions: &[RegionDef {
        name: "body",
        single_block: true,
        may_be_empty: false,
    }],
    traits: &[Trait::NoTerminator],
    assembly_format: Some("attr-dict-with-keyword $body"),
    ..OpDef::DEFAULT
};

/// `test.with_flags`: carries a `#test.flags` enum attribute (spelled `flags<...>` in its
/// format) and produces a value of any type (`!test.int<N>`, typically).
pub static WITH_FLAGS: OpDef = OpDef {
    name: "test.with_flags",
    summary: "An op with an enum attribute",
    description: "```mlir\n%0 = test.with_flags flags<a, c> : !test.int<8>\n```",
    results: &[value("result", Arity::Single)],
    attrs: &[AttrDef::required(
        "flags",
        AttrConstraint::dialect("test flags", &FLAGS),
        "Some of `a`, `b`, `c`.",
    )],
    traits: &[Trait::Pure],
    assembly_format: Some("`flags` `` $flags attr-dict `:` type($result)"),
    ..OpDef::DEFAULT
};

/// Every op of the dialect.
pub static OPS: [&OpDef; 13] = [
    &MODULE,
    &FUNC,
    &RETURN,
    &CALL,
    &USE,
    &BR,
    &CONSTANT,
    &ADD,
    &CMP,
    &CAST,
    &EFFECT,
    &REGION,
    &WITH_FLAGS,
];
