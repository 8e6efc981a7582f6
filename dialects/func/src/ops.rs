//! The ops of the `func` dialect, each declared once, with their verifiers.

use std::ops::Range;

use nart_ir::asm::{DefaultDialect, OpAsmOpInterface};
use nart_ir::interfaces::{CallOpInterface, CallableOpInterface, Callee, ConstantOpInterface};
use nart_ir::printer::type_to_string;
use nart_ir::registry::{constraints as c, Arity, AttrDef, OpDef, RegionDef, Trait, ValueDef};
use nart_ir::{interface_impl, Attr, AttrData, Context, Diagnostic, Op, Region, Type, TypeData};
use nart_macros::op;

const ARG_ATTRS: AttrDef = AttrDef {
    default: None,
    name: "arg_attrs",
    constraint: c::DICT_ARRAY_ATTR,
    optional: true,
    doc: "Per-argument attribute dictionaries.",
};
const RES_ATTRS: AttrDef = AttrDef {
    default: None,
    name: "res_attrs",
    constraint: c::DICT_ARRAY_ATTR,
    optional: true,
    doc: "Per-result attribute dictionaries.",
};
const NO_INLINE: AttrDef = AttrDef {
    default: None,
    name: "no_inline",
    constraint: c::UNIT_ATTR,
    optional: true,
    doc: "Present when the function (or call) must not be inlined.",
};

/// `func.func`: a function with a name, a type and a body (empty for a declaration).
pub static FUNC: OpDef = OpDef {
    name: "func.func",
    summary: "An operation with a name containing a single `SSACFG` region",
    description:
        "Defines a function: a symbol named by `sym_name` whose type is `function_type`.\n\
The body region is a control-flow graph of blocks; the entry block's arguments are the function's \
arguments and must match the inputs of `function_type`.\n\
A function with an empty body is an external declaration, which must not be public.\n\
The body cannot use values defined outside it.\n\n\
```mlir\nfunc.func private @ext(i64) -> i64\n\n\
func.func @twice(%arg0: i64 {my.attr}) -> i64 attributes {inline_hint} {\n  \
%0 = arith.addi %arg0, %arg0 : i64\n  return %0 : i64\n}\n```",
    attrs: &[
        AttrDef {
            default: None,
            name: "sym_name",
            constraint: c::SYMBOL_NAME_ATTR,
            optional: false,
            doc: "The function's name.",
        },
        AttrDef {
            default: None,
            name: "function_type",
            constraint: c::FUNCTION_TYPE_ATTR,
            optional: false,
            doc: "The function's type.",
        },
        AttrDef {
            default: None,
            name: "sym_visibility",
            constraint: c::STRING_ATTR,
            optional: true,
            doc: "`public`, `private` or `nested`; absent means public.",
        },
        ARG_ATTRS,
        RES_ATTRS,
        NO_INLINE,
    ],
    regions: &[RegionDef {
        name: "body",
        single_block: false,
        may_be_empty: true,
    }],
    traits: &[Trait::IsolatedFromAbove, Trait::Symbol],
    interfaces: &[
        interface_impl!(CallableOpInterface => FuncCallable),
        interface_impl!(OpAsmOpInterface => DefaultDialect("func")),
    ],
    verify: Some(verify_func),
    parse: Some(crate::syntax::parse_func),
    print: Some(crate::syntax::print_func),
    ..OpDef::DEFAULT
};

#[op(
    name = "func.return",
    def = RETURN,
    operands(operands: variadic(c::ANY)),
    traits(Pure, Terminator, ReturnLike),
    parents("func.func"),
    verify = verify_return,
    format = "attr-dict ($operands^ `:` type($operands))?",
)]
/// Function return operation
///
/// Ends a block of a `func.func` body and returns control to the caller.
/// Its operands become the call's results; their number and types match the function's results.
///
/// ```mlir
/// func.func @f(%a: i32, %b: f32) -> (i32, f32) {
///   return %a, %b : i32, f32
/// }
/// ```
pub struct ReturnOp;

#[op(
    name = "func.call",
    def = CALL,
    operands(operands: variadic(c::ANY)),
    results(results: variadic(c::ANY)),
    attrs(
        callee: AttrDef::required("callee", c::FLAT_SYMBOL_REF_ATTR, "The function called."),
        arg_attrs: optional(ARG_ATTRS),
        res_attrs: optional(RES_ATTRS),
        no_inline: optional(NO_INLINE),
    ),
    traits(MemoryEffects),
    interfaces(CallOpInterface => DirectCall),
    verify = verify_call,
    format = "$callee `(` $operands `)` attr-dict `:` functional-type($operands, results)",
)]
/// Call operation
///
/// Calls the function named by the flat symbol reference `callee`, which must be visible from the call.
/// The operand and result types must match the callee's type.
///
/// ```mlir
/// %2 = func.call @my_add(%0, %1) : (f32, f32) -> f32
/// ```
pub struct CallOp;

/// `func.call_indirect`: a call through a function value.
pub static CALL_INDIRECT: OpDef = OpDef {
    name: "func.call_indirect",
    summary: "Indirect call operation",
    description: "Calls the function held in the SSA value `callee` with the remaining operands.\n\
The operand and result types must match the callee's function type.\n\n\
```mlir\n%f = func.constant @my_add : (f32, f32) -> f32\n\
%r = func.call_indirect %f(%0, %1) : (f32, f32) -> f32\n```",
    operands: &[
        ValueDef {
            name: "callee",
            constraint: FUNCTION_TYPE,
            arity: Arity::Single,
        },
        ValueDef {
            name: "callee_operands",
            constraint: c::ANY,
            arity: Arity::Variadic,
        },
    ],
    results: &[ValueDef {
        name: "results",
        constraint: c::ANY,
        arity: Arity::Variadic,
    }],
    attrs: &[ARG_ATTRS, RES_ATTRS],
    traits: &[Trait::MemoryEffects],
    interfaces: &[interface_impl!(CallOpInterface => IndirectCall)],
    verify: Some(verify_call_indirect),
    parse: Some(crate::syntax::parse_call_indirect),
    print: Some(crate::syntax::print_call_indirect),
    assembly_format: Some("$callee `(` $callee_operands `)` attr-dict `:` type($callee)"),
    ..OpDef::DEFAULT
};

#[op(
    name = "func.constant",
    def = CONSTANT,
    results(result: c::ANY),
    attrs(value: AttrDef::required(
        "value",
        c::FLAT_SYMBOL_REF_ATTR,
        "The function referred to."
    )),
    traits(Pure, ConstantLike),
    interfaces(ConstantOpInterface => nart_ir::interfaces::ValueProperty),
    verify = verify_constant,
    format = "attr-dict $value `:` type(results)",
)]
/// Constant
///
/// Produces a value of function type that refers to the function named by `value`.
/// The result type must be the function's type.
///
/// ```mlir
/// %f = func.constant @my_add : (f32, f32) -> f32
/// ```
pub struct ConstantOp;

/// `func.func` as a callable: its body, and the inputs and results of `function_type`.
struct FuncCallable;

impl CallableOpInterface for FuncCallable {
    fn callable_region(&self, ctx: &Context, op: Op) -> Option<Region> {
        let r = *ctx.regions(op).first()?;
        (!ctx.region_blocks(r).is_empty()).then_some(r)
    }
    fn argument_types(&self, ctx: &Context, op: Op) -> Vec<Type> {
        function_type(ctx, op).map_or_else(Vec::new, |(i, _)| i)
    }
    fn result_types(&self, ctx: &Context, op: Op) -> Vec<Type> {
        function_type(ctx, op).map_or_else(Vec::new, |(_, r)| r)
    }
}

/// The inputs and results of a `func.func`'s `function_type`.
fn function_type(ctx: &Context, op: Op) -> Option<(Vec<Type>, Vec<Type>)> {
    let t = ctx.attr_type(ctx.attr(op, "function_type")?)?;
    match ctx.type_data(t) {
        TypeData::Function { inputs, results } => Some((inputs.clone(), results.clone())),
        _ => None,
    }
}

/// `func.call`: calls the symbol `callee` with every operand.
struct DirectCall;

impl CallOpInterface for DirectCall {
    fn callee(&self, ctx: &Context, op: Op) -> Option<Callee> {
        ctx.attr(op, "callee").map(Callee::Symbol)
    }
    fn arg_operands(&self, ctx: &Context, op: Op) -> Range<usize> {
        0..ctx.operands(op).len()
    }
}

/// `func.call_indirect`: calls operand 0 with the others.
struct IndirectCall;

impl CallOpInterface for IndirectCall {
    fn callee(&self, ctx: &Context, op: Op) -> Option<Callee> {
        ctx.operands(op).first().map(|&v| Callee::Value(v))
    }
    fn arg_operands(&self, ctx: &Context, op: Op) -> Range<usize> {
        1..ctx.operands(op).len()
    }
}

const FUNCTION_TYPE: nart_ir::registry::TypeConstraint = nart_ir::registry::TypeConstraint {
    buildable: None,
    desc: "function type",
    check: |ctx, ty| matches!(ctx.type_data(ty), TypeData::Function { .. }),
};

fn ty(ctx: &Context, t: Type) -> String {
    type_to_string(ctx, t)
}

fn signature_of(ctx: &Context, t: Type) -> Option<(&[Type], &[Type])> {
    match ctx.type_data(t) {
        TypeData::Function { inputs, results } => Some((inputs, results)),
        _ => None,
    }
}

fn func_signature(ctx: &Context, func: Op) -> Option<(&[Type], &[Type])> {
    let t = ctx
        .attr(func, "function_type")
        .and_then(|a| ctx.attr_type(a))?;
    signature_of(ctx, t)
}

/// The entries of `arg_attrs` or `res_attrs`, one dictionary per argument or result.
fn dict_array<'a>(ctx: &'a Context, op: Op, name: &str) -> Option<&'a [Attr]> {
    match ctx.attr_data(ctx.attr(op, name)?) {
        AttrData::Array(items) => Some(items),
        _ => None,
    }
}

/// Upstream's `FunctionOpInterface` checks of `arg_attrs` (`what` = "argument") or
/// `res_attrs` ("result"): one dictionary per value, holding only dialect attributes (their
/// names have a dot).
fn verify_value_attrs(
    ctx: &Context,
    op: Op,
    name: &str,
    what: &str,
    expected: usize,
) -> Result<(), Diagnostic> {
    let Some(items) = dict_array(ctx, op, name) else {
        return Ok(());
    };
    if items.len() != expected {
        return Err(ctx.op_error(
            op,
            format!(
                "expects {what} attribute array to have the same number of elements as the \
                 number of function {what}s, got {}, but expected {expected}",
                items.len()
            ),
        ));
    }
    for &d in items {
        let AttrData::Dictionary(entries) = ctx.attr_data(d) else {
            continue;
        };
        if entries.iter().any(|e| !ctx.str(e.name).contains('.')) {
            return Err(ctx.op_error(op, format!("{what}s may only have dialect attributes")));
        }
    }
    Ok(())
}

/// The checks of upstream's `FunctionOpInterface` (the `Symbol` trait checks the name and
/// the visibility).
fn verify_func(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some((inputs, results)) = func_signature(ctx, op) else {
        return Err(ctx.op_error(op, "requires a 'function_type' attribute of function type"));
    };
    verify_value_attrs(ctx, op, "arg_attrs", "argument", inputs.len())?;
    verify_value_attrs(ctx, op, "res_attrs", "result", results.len())?;
    let body = ctx.region(op, 0);
    let Some(&entry) = ctx.region_blocks(body).first() else {
        return Ok(());
    };
    let args = ctx.block_args(entry);
    if args.len() != inputs.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "entry block must have {} arguments to match function signature",
                inputs.len()
            ),
        ));
    }
    for (i, (&a, &expected)) in args.iter().zip(inputs).enumerate() {
        let got = ctx.value_type(a);
        if got != expected {
            return Err(ctx.op_error(
                op,
                format!(
                    "type of entry block argument #{i}('{}') must match the type of the \
                     corresponding argument in function signature('{}')",
                    ty(ctx, got),
                    ty(ctx, expected)
                ),
            ));
        }
    }
    Ok(())
}

fn verify_return(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(func) = ctx.op_parent_op(op) else {
        return Ok(());
    };
    let Some((_, results)) = func_signature(ctx, func) else {
        return Ok(());
    };
    let name = nart_ir::symbol::symbol_name(ctx, func).unwrap_or("");
    let operands = ctx.operands(op);
    if operands.len() != results.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "has {} operands, but enclosing function (@{name}) returns {}",
                operands.len(),
                results.len()
            ),
        ));
    }
    for (i, (&v, &expected)) in operands.iter().zip(results).enumerate() {
        let got = ctx.value_type(v);
        if got != expected {
            // Upstream reports this one without the op prefix.
            return Err(Diagnostic::error(
                ctx.op_loc(op),
                format!(
                    "type of return operand {i} ('{}') doesn't match function result type ('{}') \
                     in function @{name}",
                    ty(ctx, got),
                    ty(ctx, expected)
                ),
            ));
        }
    }
    Ok(())
}

/// Checks that `operands` and `results` of a call fit the callee's `inputs` and `outputs`.
fn check_call_types(
    ctx: &Context,
    op: Op,
    operands: &[nart_ir::Value],
    inputs: &[Type],
    outputs: &[Type],
) -> Result<(), Diagnostic> {
    if operands.len() != inputs.len() {
        return Err(ctx.op_error(op, "incorrect number of operands for callee"));
    }
    for (i, (&v, &expected)) in operands.iter().zip(inputs).enumerate() {
        let got = ctx.value_type(v);
        if got != expected {
            return Err(ctx.op_error(
                op,
                format!(
                    "operand type mismatch: expected operand type '{}', but provided '{}' for \
                     operand number {i}",
                    ty(ctx, expected),
                    ty(ctx, got)
                ),
            ));
        }
    }
    let results = ctx.results(op);
    if results.len() != outputs.len() {
        return Err(ctx.op_error(op, "incorrect number of results for callee"));
    }
    for (i, (&v, &expected)) in results.iter().zip(outputs).enumerate() {
        if ctx.value_type(v) != expected {
            let list = |types: &mut dyn Iterator<Item = Type>| {
                types
                    .map(|t| format!("'{}'", ty(ctx, t)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let got = list(&mut results.iter().map(|&r| ctx.value_type(r)));
            let want = list(&mut outputs.iter().copied());
            let loc = ctx.op_loc(op);
            return Err(ctx
                .op_error(op, format!("result type mismatch at index {i}"))
                .with_note(loc, format!("      op result types: {got}"))
                .with_note(loc, format!("function result types: {want}")));
        }
    }
    Ok(())
}

fn lookup_callee(ctx: &Context, op: Op, attr_name: &str) -> Result<Op, Diagnostic> {
    let Some(sym) = ctx.attr(op, attr_name) else {
        return Err(ctx.op_error(op, format!("requires attribute '{attr_name}'")));
    };
    let name = ctx.attr_flat_symbol(sym).unwrap_or("").to_string();
    match nart_ir::symbol::lookup_from(ctx, op, sym) {
        Some(f) if ctx.op_name_str(f) == "func.func" => Ok(f),
        _ => Err(ctx.op_error(op, format!("'{name}' does not reference a valid function"))),
    }
}

fn verify_call(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let callee = lookup_callee(ctx, op, "callee")?;
    let Some((inputs, outputs)) = func_signature(ctx, callee) else {
        return Ok(());
    };
    check_call_types(ctx, op, ctx.operands(op), inputs, outputs)
}

fn verify_call_indirect(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let callee_ty = ctx.value_type(ctx.operand(op, 0));
    let Some((inputs, outputs)) = signature_of(ctx, callee_ty) else {
        return Ok(());
    };
    let args: Vec<Type> = ctx.operands(op)[1..]
        .iter()
        .map(|&v| ctx.value_type(v))
        .collect();
    if args != inputs {
        return Err(ctx.op_error(
            op,
            "failed to verify that callee input types match argument types",
        ));
    }
    let results: Vec<Type> = ctx.results(op).iter().map(|&v| ctx.value_type(v)).collect();
    if results != outputs {
        return Err(ctx.op_error(
            op,
            "failed to verify that callee result types match result types",
        ));
    }
    Ok(())
}

fn verify_constant(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let sym = ctx
        .attr(op, "value")
        .expect("the structural verifier checked 'value'");
    let name = ctx.attr_flat_symbol(sym).unwrap_or("").to_string();
    let Some(f) =
        nart_ir::symbol::lookup_from(ctx, op, sym).filter(|&f| ctx.op_name_str(f) == "func.func")
    else {
        return Err(ctx.op_error(op, format!("reference to undefined function '{name}'")));
    };
    let fty = ctx.attr(f, "function_type").and_then(|a| ctx.attr_type(a));
    if fty != Some(ctx.value_type(ctx.result(op, 0))) {
        return Err(ctx.op_error(op, "reference to function with mismatched type"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use nart_ir::{Block, Location, OperationState, Value};

    use super::*;
    use crate::{build_call, build_func, build_func_decl, build_return};

    struct Setup {
        ctx: Context,
        module: Op,
        body: Block,
        loc: Location,
    }

    fn setup() -> Setup {
        let mut ctx = Context::new();
        crate::register(&mut ctx);
        let loc = ctx.unknown_loc();
        let module = nart_ir::builtin::create_module(&mut ctx, loc);
        let body = nart_ir::builtin::module_body(&ctx, module);
        Setup {
            ctx,
            module,
            body,
            loc,
        }
    }

    /// Verifies and returns the first error message, or `None` when the module is valid.
    fn first_error(s: &Setup) -> Option<String> {
        nart_ir::verify::verify(&s.ctx, s.module)
            .err()
            .map(|e| e[0].message.clone())
    }

    fn add_func(s: &mut Setup, name: &str, inputs: &[Type], results: &[Type]) -> (Op, Block) {
        let (f, entry) = build_func(&mut s.ctx, name, inputs, results, s.loc);
        s.ctx.append_op(s.body, f);
        (f, entry)
    }

    fn ret(s: &mut Setup, block: Block, values: &[Value]) {
        let r = build_return(&mut s.ctx, values, s.loc);
        s.ctx.append_op(block, r);
    }

    #[test]
    fn valid_function_verifies() {
        let mut s = setup();
        let i32t = s.ctx.i32_type();
        let (_, entry) = add_func(&mut s, "f", &[i32t], &[i32t]);
        let a = s.ctx.block_args(entry)[0];
        ret(&mut s, entry, &[a]);
        assert_eq!(first_error(&s), None);
    }

    #[test]
    fn entry_block_arguments_must_match() {
        let mut s = setup();
        let i32t = s.ctx.i32_type();
        let (_, entry) = add_func(&mut s, "f", &[i32t], &[]);
        let loc = s.loc;
        s.ctx.add_block_arg(entry, i32t, loc);
        ret(&mut s, entry, &[]);
        assert_eq!(
            first_error(&s).as_deref(),
            Some("'func.func' op entry block must have 1 arguments to match function signature")
        );

        let mut s = setup();
        let i32t = s.ctx.i32_type();
        let f32t = s.ctx.f32_type();
        let (f, _) = add_func(&mut s, "g", &[i32t], &[]);
        let region = s.ctx.region(f, 0);
        let old = s.ctx.region_blocks(region)[0];
        s.ctx.erase_block(old);
        let b = s.ctx.create_block(&[f32t], loc);
        s.ctx.append_block(region, b);
        ret(&mut s, b, &[]);
        let msg = first_error(&s).unwrap_or_default();
        assert!(msg.contains("type of entry block argument #0"), "{msg}");
    }

    #[test]
    fn public_declaration_is_rejected() {
        let mut s = setup();
        let decl = build_func_decl(&mut s.ctx, "ext", &[], &[], s.loc);
        s.ctx.append_op(s.body, decl);
        assert_eq!(first_error(&s), None);
        s.ctx.remove_attr(decl, "sym_visibility");
        assert_eq!(
            first_error(&s).as_deref(),
            Some("'func.func' op symbol declaration cannot have public visibility")
        );
    }

    #[test]
    fn arg_attrs_length_must_match() {
        let mut s = setup();
        let i32t = s.ctx.i32_type();
        let (f, entry) = add_func(&mut s, "f", &[i32t], &[]);
        ret(&mut s, entry, &[]);
        let empty = s.ctx.dict_attr(vec![]);
        let arr = s.ctx.array_attr(vec![empty, empty]);
        s.ctx.set_prop(f, "arg_attrs", arr);
        let msg = first_error(&s).unwrap_or_default();
        assert!(msg.contains("got 2, but expected 1"), "{msg}");
        s.ctx.remove_attr(f, "arg_attrs");
        s.ctx.set_prop(f, "res_attrs", arr);
        let msg = first_error(&s).unwrap_or_default();
        assert!(msg.contains("got 2, but expected 0"), "{msg}");
    }

    #[test]
    fn return_must_match_results() {
        let mut s = setup();
        let i32t = s.ctx.i32_type();
        let (_, entry) = add_func(&mut s, "f", &[i32t], &[i32t]);
        ret(&mut s, entry, &[]);
        assert_eq!(
            first_error(&s).as_deref(),
            Some("'func.return' op has 0 operands, but enclosing function (@f) returns 1")
        );

        let mut s = setup();
        let i32t = s.ctx.i32_type();
        let i64t = s.ctx.i64_type();
        let (_, entry) = add_func(&mut s, "f", &[i32t], &[i64t]);
        let a = s.ctx.block_args(entry)[0];
        ret(&mut s, entry, &[a]);
        let msg = first_error(&s).unwrap_or_default();
        assert!(msg.starts_with("type of return operand 0"), "{msg}");
    }

    #[test]
    fn return_needs_func_parent() {
        let mut s = setup();
        let r = build_return(&mut s.ctx, &[], s.loc);
        s.ctx.append_op(s.body, r);
        assert_eq!(
            first_error(&s).as_deref(),
            Some("'func.return' op expects parent op 'func.func'")
        );
    }

    #[test]
    fn call_checks_callee() {
        // Unknown callee.
        let mut s = setup();
        let i32t = s.ctx.i32_type();
        let (_, entry) = add_func(&mut s, "f", &[i32t], &[]);
        let a = s.ctx.block_args(entry)[0];
        let call = build_call(&mut s.ctx, "nope", &[a], &[], s.loc);
        s.ctx.append_op(entry, call);
        ret(&mut s, entry, &[]);
        assert_eq!(
            first_error(&s).as_deref(),
            Some("'func.call' op 'nope' does not reference a valid function")
        );

        // Wrong operand count, operand type, result count, result type.
        let cases: [(&[Type], &[Type], &str); 4] = [
            (&[], &[i32t], "incorrect number of operands for callee"),
            (
                &[i32t, i32t],
                &[i32t],
                "incorrect number of operands for callee",
            ),
            (&[i32t], &[], "incorrect number of results for callee"),
            (
                &[i32t],
                &[i32t, i32t],
                "incorrect number of results for callee",
            ),
        ];
        for (args, results, want) in cases {
            // Every context interns `i32` first here, so the handle is the same in each.
            let mut s = setup();
            assert_eq!(s.ctx.i32_type(), i32t);
            let decl = build_func_decl(&mut s.ctx, "ext", &[i32t], &[i32t], s.loc);
            s.ctx.append_op(s.body, decl);
            let (_, entry) = add_func(&mut s, "f", &[i32t], &[]);
            let a = s.ctx.block_args(entry)[0];
            let operands: Vec<Value> = args.iter().map(|_| a).collect();
            let call = build_call(&mut s.ctx, "ext", &operands, results, s.loc);
            s.ctx.append_op(entry, call);
            ret(&mut s, entry, &[]);
            assert_eq!(first_error(&s), Some(format!("'func.call' op {want}")));
        }

        let mut s = setup();
        let i32t = s.ctx.i32_type();
        let f32t = s.ctx.f32_type();
        let decl = build_func_decl(&mut s.ctx, "ext", &[i32t], &[i32t], s.loc);
        s.ctx.append_op(s.body, decl);
        let (_, entry) = add_func(&mut s, "f", &[f32t], &[]);
        let a = s.ctx.block_args(entry)[0];
        let call = build_call(&mut s.ctx, "ext", &[a], &[f32t], s.loc);
        s.ctx.append_op(entry, call);
        ret(&mut s, entry, &[]);
        let msg = first_error(&s).unwrap_or_default();
        assert!(msg.contains("operand type mismatch"), "{msg}");
    }

    #[test]
    fn call_result_type_mismatch() {
        let mut s = setup();
        let i32t = s.ctx.i32_type();
        let f32t = s.ctx.f32_type();
        let decl = build_func_decl(&mut s.ctx, "ext", &[], &[i32t], s.loc);
        s.ctx.append_op(s.body, decl);
        let (_, entry) = add_func(&mut s, "f", &[], &[]);
        let call = build_call(&mut s.ctx, "ext", &[], &[f32t], s.loc);
        s.ctx.append_op(entry, call);
        ret(&mut s, entry, &[]);
        let msg = first_error(&s).unwrap_or_default();
        assert!(msg.contains("result type mismatch at index 0"), "{msg}");
    }

    #[test]
    fn constant_and_call_indirect() {
        let mut s = setup();
        let i32t = s.ctx.i32_type();
        let decl = build_func_decl(&mut s.ctx, "ext", &[i32t], &[i32t], s.loc);
        s.ctx.append_op(s.body, decl);
        let (_, entry) = add_func(&mut s, "f", &[i32t], &[i32t]);
        let a = s.ctx.block_args(entry)[0];
        let fty = s.ctx.function_type(vec![i32t], vec![i32t]);
        let sym = s.ctx.flat_symbol_ref("ext");
        let st = OperationState::new(&mut s.ctx, "func.constant", s.loc)
            .results(&[fty])
            .prop(&mut s.ctx, "value", sym);
        let k = s.ctx.create_op(st);
        s.ctx.append_op(entry, k);
        let fv = s.ctx.result(k, 0);
        let st = OperationState::new(&mut s.ctx, "func.call_indirect", s.loc)
            .operands(&[fv, a])
            .results(&[i32t]);
        let call = s.ctx.create_op(st);
        s.ctx.append_op(entry, call);
        let r = s.ctx.result(call, 0);
        ret(&mut s, entry, &[r]);
        assert_eq!(first_error(&s), None);

        // A mismatched result type on the indirect call.
        let i64t = s.ctx.i64_type();
        let res = s.ctx.result(call, 0);
        s.ctx.set_value_type(res, i64t);
        let msg = first_error(&s).unwrap_or_default();
        assert_eq!(
            msg,
            "'func.call_indirect' op failed to verify that callee result types match result types"
        );
        s.ctx.set_value_type(res, i32t);

        // A constant of the wrong type, then of an unknown function.
        s.ctx.set_value_type(fv, i32t);
        let msg = first_error(&s).unwrap_or_default();
        assert_eq!(
            msg,
            "'func.constant' op reference to function with mismatched type"
        );
        let other = s.ctx.function_type(vec![], vec![]);
        s.ctx.set_value_type(fv, other);
        let msg = first_error(&s).unwrap_or_default();
        assert_eq!(
            msg,
            "'func.constant' op reference to function with mismatched type"
        );
        s.ctx.set_value_type(fv, fty);
        let nope = s.ctx.flat_symbol_ref("nope");
        s.ctx.set_prop(k, "value", nope);
        assert_eq!(
            first_error(&s).as_deref(),
            Some("'func.constant' op reference to undefined function 'nope'")
        );
    }
}
