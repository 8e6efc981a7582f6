//! The `scf` dialect: structured control flow. Loops (`scf.for`, `scf.while`,
//! `scf.parallel`), conditionals (`scf.if`) and `scf.execute_region`, whose regions hold
//! their bodies, with the terminators `scf.yield`, `scf.condition`, `scf.reduce` and
//! `scf.reduce.return`.
//!
//! Ops, properties, syntax and verifier messages follow upstream MLIR's `scf` dialect, so that
//! upstream `mlir-opt` reads what nart prints and the other way round. Lowering to `cf` is the
//! `convert-scf-to-cf` pass.

#![deny(missing_docs)]

pub mod canonicalize;
pub mod ops;
pub mod syntax;

use nart_ir::registry::{DialectDef, OpDef};
use nart_ir::{Block, Context, Location, Op, OperationState, Value};

pub use ops::*;

static OPS: [&OpDef; 9] = [
    &CONDITION,
    &EXECUTE_REGION,
    &FOR,
    &IF,
    &PARALLEL,
    &REDUCE,
    &REDUCE_RETURN,
    &WHILE,
    &YIELD,
];

/// The declaration of the dialect.
pub fn dialect() -> DialectDef {
    DialectDef {
        name: "scf",
        summary: "Structured control flow.",
        description: "The `scf` dialect holds loops and conditionals whose bodies are regions, \
so that the structure of a loop nest stays visible to the passes that tile, fuse, vectorize \
or parallelize it; `convert-scf-to-cf` lowers them to blocks and branches.\n\n\
```mlir\n%sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {\n  \
%v = memref.load %m[%i] : memref<?xf32>\n  %s = arith.addf %acc, %v : f32\n  \
scf.yield %s : f32\n}\n```",
        ops: &OPS,
        materialize_constant: None,
        types: &[],
        attrs: &[],
        enums: &[],
    }
}

/// Registers the `scf` dialect.
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(dialect());
}

/// Creates a detached `scf.yield` of `values`.
pub fn build_yield(ctx: &mut Context, values: &[Value], loc: Location) -> Op {
    let st = OperationState::new(ctx, "scf.yield", loc).operands(values);
    ctx.create_op(st)
}

/// Creates a detached `scf.for %iv = lb to ub step step iter_args(inits)`, whose body block
/// has the induction variable (of `lb`'s type) and one argument per init. A loop without
/// inits gets its `scf.yield`; a loop with inits gets none, the caller yields the next values.
/// The body block is [`for_body`].
pub fn build_for(
    ctx: &mut Context,
    lb: Value,
    ub: Value,
    step: Value,
    inits: &[Value],
    loc: Location,
) -> Op {
    let iv_ty = ctx.value_type(lb);
    let types: Vec<_> = inits.iter().map(|&v| ctx.value_type(v)).collect();
    let mut arg_types = vec![iv_ty];
    arg_types.extend_from_slice(&types);
    let body = ctx.create_block(&arg_types, loc);
    let region = ctx.create_region();
    ctx.append_block(region, body);
    if inits.is_empty() {
        let y = build_yield(ctx, &[], loc);
        ctx.append_op(body, y);
    }
    let mut operands = vec![lb, ub, step];
    operands.extend_from_slice(inits);
    let st = OperationState::new(ctx, "scf.for", loc)
        .operands(&operands)
        .results(&types)
        .regions(&[region]);
    ctx.create_op(st)
}

/// The body block of an `scf.for`, `scf.parallel` or the then region of an `scf.if`.
pub fn for_body(ctx: &Context, op: Op) -> Block {
    ctx.region_blocks(ctx.region(op, 0))[0]
}

/// Creates a detached `scf.if %cond -> (results)` with a then block and, when `with_else`,
/// an else block. Without results both blocks get their `scf.yield`; with results the caller
/// yields. The blocks are the entry blocks of regions 0 and 1.
pub fn build_if(
    ctx: &mut Context,
    cond: Value,
    results: &[nart_ir::Type],
    with_else: bool,
    loc: Location,
) -> Op {
    let mut regions = Vec::new();
    for present in [true, with_else] {
        let r = ctx.create_region();
        if present {
            let b = ctx.create_block(&[], loc);
            ctx.append_block(r, b);
            if results.is_empty() {
                let y = build_yield(ctx, &[], loc);
                ctx.append_op(b, y);
            }
        }
        regions.push(r);
    }
    let st = OperationState::new(ctx, "scf.if", loc)
        .operands(&[cond])
        .results(results)
        .regions(&regions);
    ctx.create_op(st)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nart_test_dialect::ir::TestIr;

    /// `@f(%lb: index, %ub: index, %step: index, %x: f32, %c: i1) -> f32` and its entry block.
    fn setup() -> (TestIr, Op, Block) {
        let mut t = TestIr::with_dialects(&[register]);
        let index = t.ctx.index_type();
        let f32t = t.ctx.f32_type();
        let i1 = t.ctx.i1_type();
        let f = t.typed_func("f", &[index, index, index, f32t, i1], &[f32t]);
        let b = t.entry(f);
        (t, f, b)
    }

    #[test]
    fn built_for_and_if_verify() {
        let (mut t, f, b) = setup();
        let (lb, ub, step, x, c) = (
            t.arg(f, 0),
            t.arg(f, 1),
            t.arg(f, 2),
            t.arg(f, 3),
            t.arg(f, 4),
        );
        let plain = build_for(&mut t.ctx, lb, ub, step, &[], t.loc);
        t.ctx.append_op(b, plain);
        let carried = build_for(&mut t.ctx, lb, ub, step, &[x], t.loc);
        t.ctx.append_op(b, carried);
        let body = for_body(&t.ctx, carried);
        let acc = t.ctx.block_args(body)[1];
        let y = build_yield(&mut t.ctx, &[acc], t.loc);
        t.ctx.append_op(body, y);
        let f32t = t.ctx.f32_type();
        let sel = build_if(&mut t.ctx, c, &[f32t], true, t.loc);
        t.ctx.append_op(b, sel);
        let r = t.ctx.result(carried, 0);
        for (i, v) in [(0, r), (1, x)] {
            let blk = t.ctx.region_blocks(t.ctx.region(sel, i))[0];
            let y = build_yield(&mut t.ctx, &[v], t.loc);
            t.ctx.append_op(blk, y);
        }
        let chosen = t.ctx.result(sel, 0);
        t.ret(b, &[chosen]);
        assert_eq!(t.first_error(), None, "{}", t.dump(f));
        // The loop without inits got its terminator; the one with inits yields its argument.
        assert_eq!(t.ctx.block_ops(for_body(&t.ctx, plain)).len(), 1);
        assert_eq!(t.ctx.operands(y), &[acc]);
    }

    #[test]
    fn if_without_else_cannot_define_values() {
        let (mut t, f, b) = setup();
        let (x, c) = (t.arg(f, 3), t.arg(f, 4));
        let f32t = t.ctx.f32_type();
        let sel = build_if(&mut t.ctx, c, &[f32t], false, t.loc);
        t.ctx.append_op(b, sel);
        let then_block = for_body(&t.ctx, sel);
        let y = build_yield(&mut t.ctx, &[x], t.loc);
        t.ctx.append_op(then_block, y);
        let r = t.ctx.result(sel, 0);
        t.ret(b, &[r]);
        assert_eq!(
            t.first_error().as_deref(),
            Some("'scf.if' op must have an else block if defining values")
        );
    }

    #[test]
    fn for_checks_the_yielded_types() {
        let (mut t, f, b) = setup();
        let (lb, x) = (t.arg(f, 0), t.arg(f, 3));
        let op = build_for(&mut t.ctx, lb, lb, lb, &[x], t.loc);
        t.ctx.append_op(b, op);
        let body = for_body(&t.ctx, op);
        let iv = t.ctx.block_args(body)[0];
        let y = build_yield(&mut t.ctx, &[iv], t.loc);
        t.ctx.append_op(body, y);
        let r = t.ctx.result(op, 0);
        t.ret(b, &[r]);
        assert_eq!(
            t.first_error().as_deref(),
            Some("'scf.for' op 0-th region iter_arg and 0-th yielded value have different type: 'f32' != 'index'")
        );
    }

    #[test]
    fn docs_are_up_to_date() {
        let text = nart_ir::docs::render_dialect_docs(&dialect());
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dialects/scf.md");
        if let Err(e) = nart_ir::docs::check_generated_file(&path, &text, "nart-dialect-scf") {
            panic!("{e}");
        }
    }
}
