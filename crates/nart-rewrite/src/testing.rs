//! A test-only dialect (`test.*`) and helpers to build and print small IR for the unit tests.

use nart_ir::registry::{
    constraints as c, Arity, AttrDef, DialectDef, FoldOutcome, FoldResult, OpDef, RegionDef, Trait,
    ValueDef,
};
use nart_ir::{
    Attr, Block, Context, Location, Op, OperationState, PatternRewriter, RewritePattern, Type,
    Value,
};

const ANY_VARIADIC: ValueDef = ValueDef {
    name: "args",
    constraint: c::ANY,
    arity: Arity::Variadic,
};

/// `test.func`: an isolated function-like op with one region.
pub static FUNC: OpDef = OpDef {
    name: "test.func",
    regions: &[RegionDef {
        name: "body",
        single_block: false,
        may_be_empty: false,
    }],
    traits: &[Trait::IsolatedFromAbove],
    ..OpDef::DEFAULT
};

/// `test.constant`: `value` attribute.
pub static CONSTANT: OpDef = OpDef {
    name: "test.constant",
    results: &[ValueDef {
        name: "result",
        constraint: c::ANY,
        arity: Arity::Single,
    }],
    attrs: &[AttrDef {
        default: None,
        name: "value",
        constraint: c::INTEGER_ATTR,
        optional: false,
        doc: "",
    }],
    traits: &[Trait::Pure, Trait::ConstantLike],
    ..OpDef::DEFAULT
};

fn fold_add(ctx: &mut Context, op: Op, consts: &[Option<Attr>]) -> FoldOutcome {
    match consts {
        [Some(a), Some(b)] => {
            let (Some(x), Some(y)) = (ctx.attr_int(*a), ctx.attr_int(*b)) else {
                return FoldOutcome::None;
            };
            let ty = ctx.value_type(ctx.result(op, 0));
            let sum = ctx.int_attr(ty, x + y);
            FoldOutcome::Replace(vec![FoldResult::Attr(sum)])
        }
        _ => FoldOutcome::None,
    }
}

/// `test.add`: pure, folds two constants.
pub static ADD: OpDef = OpDef {
    name: "test.add",
    operands: &[ANY_VARIADIC],
    results: &[ANY_VARIADIC],
    traits: &[Trait::Pure, Trait::Commutative],
    fold: Some(fold_add),
    ..OpDef::DEFAULT
};

/// `test.effect`: has side effects, never erased.
pub static EFFECT: OpDef = OpDef {
    name: "test.effect",
    operands: &[ANY_VARIADIC],
    traits: &[Trait::MemoryEffects],
    ..OpDef::DEFAULT
};

/// `test.return`: terminator.
pub static RETURN: OpDef = OpDef {
    name: "test.return",
    operands: &[ANY_VARIADIC],
    traits: &[Trait::Terminator, Trait::ReturnLike, Trait::Pure],
    ..OpDef::DEFAULT
};

/// `test.region`: one region, no terminator needed, side-effecting.
pub static REGION: OpDef = OpDef {
    name: "test.region",
    regions: &[RegionDef {
        name: "body",
        single_block: true,
        may_be_empty: false,
    }],
    traits: &[Trait::NoTerminator],
    ..OpDef::DEFAULT
};

static OPS: [&OpDef; 6] = [&FUNC, &CONSTANT, &ADD, &EFFECT, &RETURN, &REGION];

fn materialize(ctx: &mut Context, value: Attr, ty: Type, loc: Location) -> Option<Op> {
    ctx.attr_int(value)?;
    let st = OperationState::new(ctx, "test.constant", loc)
        .results(&[ty])
        .prop(ctx, "value", value);
    Some(ctx.create_op(st))
}

/// A context with the test dialect, a detached `test.func` with one `i32` argument, and its
/// entry block.
pub fn func_ctx() -> (Context, Op, Block) {
    let mut ctx = Context::new();
    ctx.register_dialect(DialectDef {
        name: "test",
        summary: "",
        description: "",
        ops: &OPS,
        materialize_constant: Some(materialize),
        types: &[],
        attrs: &[],
        enums: &[],
    });
    let i32t = ctx.i32_type();
    let loc = ctx.unknown_loc();
    let region = ctx.create_region();
    let b = ctx.create_block(&[i32t], loc);
    ctx.append_block(region, b);
    let st = OperationState::new(&mut ctx, "test.func", loc).regions(&[region]);
    let f = ctx.create_op(st);
    (ctx, f, b)
}

/// The first argument of `b`.
pub fn arg(ctx: &Context, b: Block) -> Value {
    ctx.block_args(b)[0]
}

fn build(ctx: &mut Context, b: Block, st: OperationState) -> Op {
    let op = ctx.create_op(st);
    ctx.append_op(b, op);
    op
}

/// Appends `test.constant v : i32`.
pub fn constant(ctx: &mut Context, b: Block, v: i128) -> Value {
    let ty = ctx.i32_type();
    let a = ctx.int_attr(ty, v);
    let loc = ctx.unknown_loc();
    let st = OperationState::new(ctx, "test.constant", loc)
        .results(&[ty])
        .prop(ctx, "value", a);
    let op = build(ctx, b, st);
    ctx.result(op, 0)
}

/// Appends `test.add x, y : i32`.
pub fn add(ctx: &mut Context, b: Block, x: Value, y: Value) -> Value {
    let ty = ctx.i32_type();
    let loc = ctx.unknown_loc();
    let st = OperationState::new(ctx, "test.add", loc)
        .operands(&[x, y])
        .results(&[ty]);
    let op = build(ctx, b, st);
    ctx.result(op, 0)
}

/// Appends `test.effect x`.
pub fn effect(ctx: &mut Context, b: Block, x: Value) -> Op {
    let loc = ctx.unknown_loc();
    let st = OperationState::new(ctx, "test.effect", loc).operands(&[x]);
    build(ctx, b, st)
}

/// Appends `test.return vals`.
pub fn ret(ctx: &mut Context, b: Block, vals: &[Value]) -> Op {
    let loc = ctx.unknown_loc();
    let st = OperationState::new(ctx, "test.return", loc).operands(vals);
    build(ctx, b, st)
}

/// Appends a `test.region` and returns its block.
pub fn nested(ctx: &mut Context, b: Block) -> Block {
    let loc = ctx.unknown_loc();
    let region = ctx.create_region();
    let inner = ctx.create_block(&[], loc);
    ctx.append_block(region, inner);
    let st = OperationState::new(ctx, "test.region", loc).regions(&[region]);
    build(ctx, b, st);
    inner
}

/// A compact dump of the ops inside `f`: names, constant values, nested regions in braces.
pub fn dump(ctx: &Context, f: Op) -> String {
    let mut lines = Vec::new();
    for &r in ctx.regions(f) {
        for &b in ctx.region_blocks(r) {
            dump_block(ctx, b, 0, &mut lines);
        }
    }
    lines.join("\n")
}

fn dump_block(ctx: &Context, b: Block, depth: usize, lines: &mut Vec<String>) {
    for op in ctx.block_ops_iter(b) {
        let pad = "  ".repeat(depth);
        let mut line = format!("{pad}{}", ctx.op_name_str(op));
        if let Some(v) = ctx.attr(op, "value").and_then(|a| ctx.attr_int(a)) {
            line.push_str(&format!(" {v}"));
        }
        if ctx.regions(op).is_empty() {
            lines.push(line);
            continue;
        }
        line.push_str(" {");
        lines.push(line);
        for &r in ctx.regions(op) {
            for &ib in ctx.region_blocks(r) {
                dump_block(ctx, ib, depth + 1, lines);
            }
        }
        lines.push(format!("{pad}}}"));
    }
}

/// `x + 0 -> x`.
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
        let is_zero =
            crate::OperationFolder::constant_value(rw, rhs).and_then(|a| rw.attr_int(a)) == Some(0);
        if !is_zero {
            return rw.match_failure("the right operand is not the constant 0");
        }
        let lhs = rw.operand(op, 0);
        rw.replace_op(op, &[lhs]);
        true
    }
}

/// Rewrites every `test.effect` forever (bumps a counter attribute).
pub struct Forever;

impl RewritePattern for Forever {
    fn name(&self) -> &'static str {
        "Forever"
    }
    fn root(&self) -> Option<&'static str> {
        Some("test.effect")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let n = rw
            .attr(op, "count")
            .and_then(|a| rw.attr_int(a))
            .unwrap_or(0);
        let a = rw.uniq().i64_attr(n as i64 + 1);
        rw.set_attr(op, "count", a);
        true
    }
}

/// Tags an untagged `test.effect` with its name, at a given benefit.
pub struct Tag(pub &'static str, pub u16);

impl RewritePattern for Tag {
    fn name(&self) -> &'static str {
        self.0
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn benefit(&self) -> u16 {
        self.1
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        if rw.op_name_str(op) != "test.effect" || rw.attr(op, "tag").is_some() {
            return false;
        }
        let a = rw.uniq().string_attr(self.0);
        rw.set_attr(op, "tag", a);
        true
    }
}
