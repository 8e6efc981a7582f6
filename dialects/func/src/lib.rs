//! The `func` dialect: functions (`func.func`), direct and indirect calls (`func.call`,
//! `func.call_indirect`), function references (`func.constant`) and returns (`func.return`).
//!
//! Ops, attribute names and semantics follow upstream MLIR's `func` dialect, so that upstream
//! `mlir-opt` reads the generic form nart prints and the other way round.

#![deny(missing_docs)]

pub mod conversion;
pub mod ops;
pub mod syntax;

use nart_ir::registry::{DialectDef, OpDef};
use nart_ir::{Block, Context, Location, Op, OperationState, Type, TypeData, Value};

pub use ops::{CALL, CALL_INDIRECT, CONSTANT, FUNC, RETURN};

static OPS: [&OpDef; 5] = [&FUNC, &RETURN, &CALL, &CALL_INDIRECT, &CONSTANT];

/// The declaration of the dialect.
pub fn dialect() -> DialectDef {
    DialectDef {
        name: "func",
        summary: "Functions, calls and returns.",
        description: "The `func` dialect holds the ops that define and call functions.\n\
A `func.func` is a symbol with a `function_type` and a body region whose entry block takes the \
function's arguments; an external declaration has an empty body.\n\
Calls name their callee with a flat symbol reference (`func.call`) or take it as an SSA value \
(`func.call_indirect`).\n\n\
```mlir\nfunc.func @add(%a: i32, %b: i32) -> i32 {\n  %0 = arith.addi %a, %b : i32\n  \
return %0 : i32\n}\n```",
        ops: &OPS,
        materialize_constant: None,
        types: &[],
        attrs: &[],
        enums: &[],
    }
}

/// Registers the `func` dialect.
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(dialect());
    // Upstream's `getAsmResultNames`: a function constant prints as `%f`.
    ctx.register_asm_result_name("func.constant", |_, _| Some("f".to_string()));
}

/// Creates a detached `func.func @name` of type `(inputs) -> results` with an entry block
/// whose arguments match the inputs; returns the op and its entry block.
pub fn build_func(
    ctx: &mut Context,
    name: &str,
    inputs: &[Type],
    results: &[Type],
    loc: Location,
) -> (Op, Block) {
    let fty = ctx.function_type(inputs.to_vec(), results.to_vec());
    let region = ctx.create_region();
    let entry = ctx.create_block(inputs, loc);
    ctx.append_block(region, entry);
    let sym = ctx.string_attr(name);
    let fty = ctx.type_attr(fty);
    let state = OperationState::new(ctx, "func.func", loc)
        .prop(ctx, "sym_name", sym)
        .prop(ctx, "function_type", fty)
        .regions(&[region]);
    (ctx.create_op(state), entry)
}

/// Creates a detached external declaration `func.func private @name(inputs) -> results`.
pub fn build_func_decl(
    ctx: &mut Context,
    name: &str,
    inputs: &[Type],
    results: &[Type],
    loc: Location,
) -> Op {
    let fty = ctx.function_type(inputs.to_vec(), results.to_vec());
    let region = ctx.create_region();
    let sym = ctx.string_attr(name);
    let fty = ctx.type_attr(fty);
    let private = ctx.string_attr("private");
    let state = OperationState::new(ctx, "func.func", loc)
        .prop(ctx, "sym_name", sym)
        .prop(ctx, "function_type", fty)
        .prop(ctx, "sym_visibility", private)
        .regions(&[region]);
    ctx.create_op(state)
}

/// Creates a detached `func.return` of `values`.
pub fn build_return(ctx: &mut Context, values: &[Value], loc: Location) -> Op {
    let state = OperationState::new(ctx, "func.return", loc).operands(values);
    ctx.create_op(state)
}

/// Creates a detached `func.call @callee(args)` with the given result types.
pub fn build_call(
    ctx: &mut Context,
    callee: &str,
    args: &[Value],
    results: &[Type],
    loc: Location,
) -> Op {
    let sym = ctx.flat_symbol_ref(callee);
    let state = OperationState::new(ctx, "func.call", loc)
        .operands(args)
        .results(results)
        .prop(ctx, "callee", sym);
    ctx.create_op(state)
}

/// The argument and result types of a `func.func` (from its `function_type`).
pub fn function_signature(ctx: &Context, func: Op) -> Option<(Vec<Type>, Vec<Type>)> {
    let ty = ctx
        .attr(func, "function_type")
        .and_then(|a| ctx.attr_type(a))?;
    match ctx.type_data(ty) {
        TypeData::Function { inputs, results } => Some((inputs.clone(), results.clone())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_are_up_to_date() {
        let text = nart_ir::docs::render_dialect_docs(&dialect());
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dialects/func.md");
        if let Err(e) = nart_ir::docs::check_generated_file(&path, &text, "nart-dialect-func") {
            panic!("{e}");
        }
    }

    #[test]
    fn builders_make_valid_functions() {
        let mut ctx = Context::new();
        register(&mut ctx);
        let loc = ctx.unknown_loc();
        let module = nart_ir::builtin::create_module(&mut ctx, loc);
        let body = nart_ir::builtin::module_body(&ctx, module);
        let i32t = ctx.i32_type();
        let decl = build_func_decl(&mut ctx, "ext", &[i32t], &[i32t], loc);
        ctx.append_op(body, decl);
        let (f, entry) = build_func(&mut ctx, "f", &[i32t], &[i32t], loc);
        ctx.append_op(body, f);
        let arg = ctx.block_args(entry)[0];
        let call = build_call(&mut ctx, "ext", &[arg], &[i32t], loc);
        ctx.append_op(entry, call);
        let r = ctx.result(call, 0);
        let ret = build_return(&mut ctx, &[r], loc);
        ctx.append_op(entry, ret);
        assert_eq!(nart_ir::verify::verify(&ctx, module), Ok(()));
        assert_eq!(function_signature(&ctx, f), Some((vec![i32t], vec![i32t])));
    }
}
