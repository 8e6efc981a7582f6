//! The ops of the `scf` dialect, each declared once with `#[nart_macros::op]`, with upstream's
//! verifier rules and messages. The syntax of the ops with regions is hand-written
//! ([`crate::syntax`]); the terminators use the declarative format.

use nart_ir::printer::type_to_string;
use nart_ir::registry::{constraints as c, AttrDef, RegionDef, TypeConstraint};
use nart_ir::{Context, Diagnostic, Op, Region, Type, TypeData, Value};
use nart_macros::op;

use crate::canonicalize;
use crate::syntax;

/// `iN` or `index` (upstream's `AnySignlessIntegerOrIndex`): the type of `scf.for`'s bounds.
pub const SIGNLESS_INTEGER_OR_INDEX: TypeConstraint = TypeConstraint {
    buildable: None,
    desc: "signless integer or index",
    check: |ctx, ty| match ctx.type_data(ty) {
        TypeData::Index => true,
        TypeData::Integer { signedness, .. } => *signedness == nart_ir::Signedness::Signless,
        _ => false,
    },
};

/// A region of one block.
const BODY: RegionDef = RegionDef {
    name: "",
    single_block: true,
    may_be_empty: false,
};

/// A region of one block, or none (`scf.if`'s else region).
const OPTIONAL_BODY: RegionDef = RegionDef {
    name: "",
    single_block: true,
    may_be_empty: true,
};

/// A region of any number of blocks (at least one).
const ANY_BODY: RegionDef = RegionDef {
    name: "",
    single_block: false,
    may_be_empty: false,
};

const UNSIGNED_CMP: AttrDef = AttrDef::optional(
    "unsignedCmp",
    c::UNIT_ATTR,
    "Present when the bounds and the induction variable compare as unsigned integers.",
);

const NO_INLINE: AttrDef = AttrDef::optional(
    "no_inline",
    c::UNIT_ATTR,
    "Present when the region must not be inlined into its parent block.",
);

#[op(
    name = "scf.for",
    def = FOR,
    operands(
        lowerBound: SIGNLESS_INTEGER_OR_INDEX,
        upperBound: SIGNLESS_INTEGER_OR_INDEX,
        step: SIGNLESS_INTEGER_OR_INDEX,
        initArgs: variadic(c::ANY),
    ),
    results(results: variadic(c::ANY)),
    attrs(unsignedCmp: optional(UNSIGNED_CMP)),
    regions(region: BODY),
    traits(SingleBlock),
    verify = verify_for,
    canonicalize(canonicalize::ForTrivialTripCount),
    parse = syntax::parse_for,
    print = syntax::print_for,
)]
/// for operation
///
/// Runs its body for an induction variable going from `lowerBound` (included) to `upperBound`
/// (excluded) by `step`, which must be positive. The bounds and the induction variable are
/// `index` or signless integers of one type, compared as signed integers unless `unsigned` is
/// written (the `unsignedCmp` property).
/// Loop-carried values: the body's arguments after the induction variable start as `initArgs`,
/// the body's `scf.yield` gives their next values, and the op's results are their values after
/// the last iteration (the `initArgs` when the loop runs zero times).
/// A body that yields nothing may leave out its `scf.yield`; the parser adds it.
/// Canonicalization removes a loop that runs zero times and inlines one that runs once.
///
/// ```mlir
/// scf.for %i = %lb to %ub step %c1 {
///   memref.store %x, %m[%i] : memref<?xf32>
/// }
/// %sum = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %zero) -> (f32) {
///   %v = memref.load %m[%i] : memref<?xf32>
///   %s = arith.addf %acc, %v : f32
///   scf.yield %s : f32
/// }
/// scf.for unsigned %j = %a to %b step %c : i32 {
/// }
/// ```
pub struct ForOp;

#[op(
    name = "scf.if",
    def = IF,
    operands(condition: c::I1),
    results(results: variadic(c::ANY)),
    regions(thenRegion: BODY, elseRegion: OPTIONAL_BODY),
    traits(SingleBlock),
    verify = verify_if,
    canonicalize(canonicalize::IfConstantCondition),
    parse = syntax::parse_if,
    print = syntax::print_if,
)]
/// if-then-else operation
///
/// Runs `thenRegion` when `condition` is true and `elseRegion` otherwise; the `scf.yield` of
/// the region that ran gives the results. An op with results needs both regions; without
/// results the else region may be absent and the `scf.yield`s may be left out.
/// Canonicalization replaces an `scf.if` on a constant condition with the region it takes.
///
/// ```mlir
/// %x = scf.if %c -> (f32) {
///   scf.yield %a : f32
/// } else {
///   scf.yield %b : f32
/// }
/// scf.if %c {
///   memref.store %a, %m[%i] : memref<?xf32>
/// }
/// ```
pub struct IfOp;

#[op(
    name = "scf.while",
    def = WHILE,
    operands(inits: variadic(c::ANY)),
    results(results: variadic(c::ANY)),
    regions(before: ANY_BODY, after: ANY_BODY),
    verify = verify_while,
    parse = syntax::parse_while,
    print = syntax::print_while,
)]
/// a generic 'while' loop
///
/// The `before` region receives `inits` first, then the values the `after` region yields; it
/// ends in `scf.condition`, whose condition says whether to run `after` (with the condition's
/// other operands) or to leave the loop (with them as the op's results).
///
/// ```mlir
/// %r = scf.while (%x = %init) : (f32) -> f32 {
///   %c = arith.cmpf olt, %x, %limit : f32
///   scf.condition(%c) %x : f32
/// } do {
/// ^bb0(%y: f32):
///   %n = arith.addf %y, %y : f32
///   scf.yield %n : f32
/// }
/// ```
pub struct WhileOp;

#[op(
    name = "scf.condition",
    def = CONDITION,
    operands(condition: c::I1, args: variadic(c::ANY)),
    traits(Pure, Terminator),
    parents("scf.while"),
    format = "`(` $condition `)` attr-dict ($args^ `:` type($args))?",
)]
/// loop continuation condition
///
/// Ends the `before` region of `scf.while`: when `condition` is true the loop runs its `after`
/// region with `args`, otherwise the loop ends and `args` are its results.
///
/// ```mlir
/// scf.condition(%c) %x, %y : f32, i32
/// ```
pub struct ConditionOp;

#[op(
    name = "scf.yield",
    def = YIELD,
    operands(results: variadic(c::ANY)),
    traits(Pure, Terminator, ReturnLike),
    parents("scf.execute_region", "scf.for", "scf.if", "scf.index_switch", "scf.while"),
    format = "attr-dict ($results^ `:` type($results))?",
)]
/// loop yield and termination operation
///
/// Ends a region of `scf.for`, `scf.if`, `scf.while` (its `after` region) or
/// `scf.execute_region`, passing its operands to the parent: the loop-carried values of the
/// next iteration, or the parent's results.
///
/// ```mlir
/// scf.yield %a, %b : f32, i32
/// ```
pub struct YieldOp;

#[op(
    name = "scf.parallel",
    def = PARALLEL,
    operands(
        lowerBound: variadic(c::INDEX),
        upperBound: variadic(c::INDEX),
        step: variadic(c::INDEX),
        initVals: variadic(c::ANY),
    ),
    results(results: variadic(c::ANY)),
    regions(region: BODY),
    traits(SingleBlock, AttrSizedOperandSegments),
    verify = verify_parallel,
    parse = syntax::parse_parallel,
    print = syntax::print_parallel,
)]
/// parallel for operation
///
/// Runs its body once for every point of a multi-dimensional iteration space (one induction
/// variable per dimension, each with its lower bound, upper bound and positive step), in any
/// order or at the same time. The body ends in `scf.reduce`, which combines one value per
/// iteration into each result, starting from `initVals`.
///
/// ```mlir
/// %sum = scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) init (%zero) -> f32 {
///   %v = memref.load %a[%i, %j] : memref<?x?xf32>
///   scf.reduce(%v : f32) {
///   ^bb0(%l: f32, %r: f32):
///     %s = arith.addf %l, %r : f32
///     scf.reduce.return %s : f32
///   }
/// }
/// ```
pub struct ParallelOp;

#[op(
    name = "scf.reduce",
    def = REDUCE,
    operands(operands: variadic(c::ANY)),
    regions(reductions: BODY),
    traits(Terminator, VariadicRegions),
    parents("scf.parallel"),
    verify = verify_reduce,
    parse = syntax::parse_reduce,
    print = syntax::print_reduce,
)]
/// reduce operation for scf.parallel
///
/// Ends the body of `scf.parallel`: each operand is combined into the matching result of the
/// loop by its own region, a commutative and associative function of two values of the
/// operand's type that ends in `scf.reduce.return`. Without operands it has no regions.
///
/// ```mlir
/// scf.reduce(%v : f32) {
/// ^bb0(%l: f32, %r: f32):
///   %s = arith.addf %l, %r : f32
///   scf.reduce.return %s : f32
/// }
/// ```
pub struct ReduceOp;

#[op(
    name = "scf.reduce.return",
    def = REDUCE_RETURN,
    operands(result: c::ANY),
    traits(Pure, Terminator),
    parents("scf.reduce"),
    verify = verify_reduce_return,
    format = "$result attr-dict `:` type($result)",
)]
/// terminator for reduce operation
///
/// Ends a reduction region of `scf.reduce` with the combined value.
///
/// ```mlir
/// scf.reduce.return %s : f32
/// ```
pub struct ReduceReturnOp;

#[op(
    name = "scf.execute_region",
    def = EXECUTE_REGION,
    results(results: variadic(c::ANY)),
    attrs(no_inline: optional(NO_INLINE)),
    regions(region: ANY_BODY),
    verify = verify_execute_region,
    parse = syntax::parse_execute_region,
    print = syntax::print_execute_region,
)]
/// operation that executes its region exactly once
///
/// Runs its region, which may have several blocks, once; the `scf.yield` that ends it gives
/// the results. It lets unstructured control flow sit where one op is expected.
///
/// ```mlir
/// %r = scf.execute_region -> i32 {
///   cf.cond_br %c, ^a, ^b
/// ^a:
///   scf.yield %x : i32
/// ^b:
///   scf.yield %y : i32
/// }
/// ```
pub struct ExecuteRegionOp;

// ----- verifiers -----

/// The terminator of the entry block of `r`, when it has one named `name`.
pub(crate) fn terminator_named(ctx: &Context, r: Region, name: &str) -> Option<Op> {
    let b = *ctx.region_blocks(r).first()?;
    let t = ctx.block_last_op(b)?;
    (ctx.op_name_str(t) == name).then_some(t)
}

fn types(ctx: &Context, vs: &[Value]) -> Vec<Type> {
    vs.iter().map(|&v| ctx.value_type(v)).collect()
}

fn ty(ctx: &Context, t: Type) -> String {
    type_to_string(ctx, t)
}

/// Upstream's check of one control-flow edge of a region-branch op: the values the
/// terminator (or the op, for `from = "parent operands"`) passes must match the inputs of
/// where control goes, in number and type.
fn check_edge(
    ctx: &Context,
    op: Op,
    (from, point): (&str, Option<Op>),
    to: &str,
    operands: &[Type],
    inputs: &[Type],
) -> Result<(), Diagnostic> {
    let at = format!("along control flow edge from {from} to {to}: ");
    let noted = |d: Diagnostic| match point {
        Some(t) => d.with_note(ctx.op_loc(t), "region branch point"),
        None => d,
    };
    if operands.len() != inputs.len() {
        return Err(noted(ctx.op_error(
            op,
            format!(
                "{at}region branch point has {} operands, but region successor needs {} inputs",
                operands.len(),
                inputs.len()
            ),
        )));
    }
    for (i, (&a, &b)) in operands.iter().zip(inputs).enumerate() {
        if a != b {
            return Err(noted(ctx.op_error(
                op,
                format!(
                    "{at}successor operand type #{i} '{}' should match successor input type #{i} '{}'",
                    ty(ctx, a),
                    ty(ctx, b)
                ),
            )));
        }
    }
    Ok(())
}

fn entry_args(ctx: &Context, r: Region) -> Vec<Type> {
    ctx.region_blocks(r)
        .first()
        .map(|&b| types(ctx, ctx.block_args(b)))
        .unwrap_or_default()
}

fn verify_for(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let operands = ctx.operands(op);
    let bound = ctx.value_type(operands[0]);
    if operands[1..3].iter().any(|&v| ctx.value_type(v) != bound) {
        return Err(ctx.op_error(
            op,
            "failed to verify that all of {lowerBound, upperBound, step} have same type",
        ));
    }
    let inits = types(ctx, &operands[3..]);
    let results = types(ctx, ctx.results(op));
    let body = ctx.region(op, 0);
    let args = entry_args(ctx, body);
    let Some((&iv, iter)) = args.split_first() else {
        return Err(ctx.op_error(
            op,
            "expected the body to have the induction variable as its first argument",
        ));
    };
    if iv != bound {
        return Err(ctx.op_error(
            op,
            "expected induction variable to be same type as bounds and step",
        ));
    }
    if inits.len() != iter.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "different number of inits and region iter_args: {} != {}",
                inits.len(),
                iter.len()
            ),
        ));
    }
    let yielded = terminator_named(ctx, body, "scf.yield").map(|y| types(ctx, ctx.operands(y)));
    let yielded = yielded.unwrap_or_default();
    if !yielded.is_empty() && yielded.len() != iter.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "different number of region iter_args and yielded values: {} != {}",
                iter.len(),
                yielded.len()
            ),
        ));
    }
    if results.len() != iter.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "different number of loop results and region iter_args: {} != {}",
                results.len(),
                iter.len()
            ),
        ));
    }
    for (i, (&init, &arg)) in inits.iter().zip(iter).enumerate() {
        if init != arg {
            return Err(ctx.op_error(
                op,
                format!(
                    "{i}-th init and {i}-th region iter_arg have different type: '{}' != '{}'",
                    ty(ctx, init),
                    ty(ctx, arg)
                ),
            ));
        }
        if let Some(&y) = yielded.get(i) {
            if y != arg {
                return Err(ctx.op_error(
                    op,
                    format!(
                        "{i}-th region iter_arg and {i}-th yielded value have different type: '{}' != '{}'",
                        ty(ctx, arg),
                        ty(ctx, y)
                    ),
                ));
            }
        }
    }
    for (i, (&arg, &res)) in iter.iter().zip(&results).enumerate() {
        if arg != res {
            return Err(ctx.op_error(
                op,
                format!(
                    "{i}-th region iter_arg and {i}-th loop result have different type: '{}' != '{}'",
                    ty(ctx, arg),
                    ty(ctx, res)
                ),
            ));
        }
    }
    Ok(())
}

/// The regions of `scf.if` and `scf.execute_region` take no arguments.
fn no_region_arguments(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    for (i, &r) in ctx.regions(op).iter().enumerate() {
        if !entry_args(ctx, r).is_empty() {
            return Err(ctx.op_error(op, format!("region #{i} should have no arguments")));
        }
    }
    Ok(())
}

fn verify_if(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    no_region_arguments(ctx, op)?;
    let results = types(ctx, ctx.results(op));
    let else_region = ctx.region(op, 1);
    if !results.is_empty() && ctx.region_blocks(else_region).is_empty() {
        return Err(ctx.op_error(op, "must have an else block if defining values"));
    }
    for &r in ctx.regions(op) {
        if let Some(y) = terminator_named(ctx, r, "scf.yield") {
            let yielded = types(ctx, ctx.operands(y));
            check_edge(
                ctx,
                op,
                ("Operation scf.yield", Some(y)),
                "parent",
                &yielded,
                &results,
            )?;
        }
    }
    Ok(())
}

/// Adds upstream's note "terminator here" at the last op of `r`'s entry block, if any.
fn with_terminator_note(ctx: &Context, r: Region, d: Diagnostic) -> Diagnostic {
    let last = ctx
        .region_blocks(r)
        .first()
        .and_then(|&b| ctx.block_last_op(b));
    match last {
        Some(t) => d.with_note(ctx.op_loc(t), "terminator here"),
        None => d,
    }
}

fn verify_while(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let before = ctx.region(op, 0);
    let after = ctx.region(op, 1);
    let Some(cond) = terminator_named(ctx, before, "scf.condition") else {
        return Err(with_terminator_note(
            ctx,
            before,
            ctx.op_error(
                op,
                "expects the 'before' region to terminate with 'scf.condition'",
            ),
        ));
    };
    let Some(yield_op) = terminator_named(ctx, after, "scf.yield") else {
        return Err(with_terminator_note(
            ctx,
            after,
            ctx.op_error(
                op,
                "expects the 'after' region to terminate with 'scf.yield'",
            ),
        ));
    };
    let inits = types(ctx, ctx.operands(op));
    let results = types(ctx, ctx.results(op));
    let before_args = entry_args(ctx, before);
    let after_args = entry_args(ctx, after);
    check_edge(
        ctx,
        op,
        ("parent operands", None),
        "Region #0",
        &inits,
        &before_args,
    )?;
    let passed = types(ctx, &ctx.operands(cond)[1..]);
    check_edge(
        ctx,
        op,
        ("Operation scf.condition", Some(cond)),
        "parent",
        &passed,
        &results,
    )?;
    check_edge(
        ctx,
        op,
        ("Operation scf.condition", Some(cond)),
        "Region #1",
        &passed,
        &after_args,
    )?;
    let yielded = types(ctx, ctx.operands(yield_op));
    check_edge(
        ctx,
        op,
        ("Operation scf.yield", Some(yield_op)),
        "Region #0",
        &yielded,
        &before_args,
    )?;
    Ok(())
}

/// Whether `v` is a constant integer (through the constant interface) that is not positive.
fn non_positive_constant(ctx: &Context, v: Value) -> bool {
    nart_ir::interfaces::constant_of(ctx, v)
        .and_then(|a| ctx.attr_int(a))
        .is_some_and(|c| c <= 0)
}

fn verify_parallel(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let p = ParallelOp(op);
    let (lbs, ubs, steps) = (p.lower_bound(ctx), p.upper_bound(ctx), p.step(ctx));
    if steps.is_empty() {
        return Err(ctx.op_error(
            op,
            "needs at least one tuple element for lowerBound, upperBound and step",
        ));
    }
    if lbs.len() != steps.len() || ubs.len() != steps.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "expects as many lower bounds ({}) and upper bounds ({}) as steps ({})",
                lbs.len(),
                ubs.len(),
                steps.len()
            ),
        ));
    }
    if steps.iter().any(|&s| non_positive_constant(ctx, s)) {
        return Err(ctx.op_error(op, "constant step operand must be positive"));
    }
    let body = ctx.region(op, 0);
    let args = entry_args(ctx, body);
    if args.len() != steps.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "expects the same number of induction variables: {} as bound and step values: {}",
                args.len(),
                steps.len()
            ),
        ));
    }
    if args
        .iter()
        .any(|&a| !matches!(ctx.type_data(a), TypeData::Index))
    {
        return Err(ctx.op_error(
            op,
            "expects arguments for the induction variable to be of index type",
        ));
    }
    let Some(reduce) = terminator_named(ctx, body, "scf.reduce") else {
        return Err(ctx.op_error(op, "expects body to terminate with 'scf.reduce'"));
    };
    let results = types(ctx, ctx.results(op));
    let n_red = ctx.regions(reduce).len();
    let n_init = p.init_vals(ctx).len();
    if results.len() != n_red {
        return Err(ctx.op_error(
            op,
            format!(
                "expects number of results: {} to be the same as number of reductions: {n_red}",
                results.len()
            ),
        ));
    }
    if results.len() != n_init {
        return Err(ctx.op_error(
            op,
            format!(
                "expects number of results: {} to be the same as number of initial values: {n_init}",
                results.len()
            ),
        ));
    }
    let reduced = types(ctx, ctx.operands(reduce));
    for (i, (&r, &o)) in results.iter().zip(&reduced).enumerate() {
        if r != o {
            return Err(ctx.op_error(
                reduce,
                format!(
                    "expects type of {i}-th reduction operand: '{}' to be the same as the {i}-th result type: '{}'",
                    ty(ctx, o),
                    ty(ctx, r)
                ),
            ));
        }
    }
    Ok(())
}

fn verify_reduce(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let operands = ctx.operands(op);
    let regions = ctx.regions(op);
    if regions.len() != operands.len() {
        return Err(ctx.op_error(
            op,
            format!(
                "expects number of reduction regions: {} to be the same as number of reduction operands: {}",
                regions.len(),
                operands.len()
            ),
        ));
    }
    for (i, (&v, &r)) in operands.iter().zip(regions).enumerate() {
        let t = ctx.value_type(v);
        let Some(&block) = ctx.region_blocks(r).first() else {
            return Err(ctx.op_error(op, format!("{i}-th reduction has an empty body")));
        };
        if ctx.block_is_empty(block) {
            return Err(ctx.op_error(op, format!("{i}-th reduction has an empty body")));
        }
        let args = ctx.block_args(block);
        if args.len() != 2 || args.iter().any(|&a| ctx.value_type(a) != t) {
            return Err(ctx.op_error(
                op,
                format!(
                    "expected two block arguments with type '{}' in the {i}-th reduction region",
                    ty(ctx, t)
                ),
            ));
        }
        let last = ctx.block_last_op(block);
        if last.is_none_or(|t| ctx.op_name_str(t) != "scf.reduce.return") {
            return Err(ctx.op_error(
                op,
                "reduction bodies must be terminated with an 'scf.reduce.return' op",
            ));
        }
    }
    Ok(())
}

fn verify_reduce_return(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(reduce) = ctx.op_parent_op(op) else {
        return Ok(());
    };
    let Some(block) = ctx.op_parent_block(op) else {
        return Ok(());
    };
    let Some(region) = ctx.block_parent_region(block) else {
        return Ok(());
    };
    let Some(index) = ctx.regions(reduce).iter().position(|&r| r == region) else {
        return Ok(());
    };
    let Some(&expected) = ctx.operands(reduce).get(index) else {
        return Ok(());
    };
    let expected = ctx.value_type(expected);
    if ctx.value_type(ctx.operand(op, 0)) != expected {
        return Err(ctx.op_error(
            op,
            format!(
                "must have type '{}' (the type of the reduction inputs)",
                ty(ctx, expected)
            ),
        ));
    }
    Ok(())
}

fn verify_execute_region(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let r = ctx.region(op, 0);
    if !entry_args(ctx, r).is_empty() {
        return Err(ctx.op_error(op, "region cannot have any arguments"));
    }
    let results = types(ctx, ctx.results(op));
    for &b in ctx.region_blocks(r) {
        if let Some(t) = ctx.block_last_op(b) {
            if ctx.op_name_str(t) == "scf.yield" {
                let yielded = types(ctx, ctx.operands(t));
                check_edge(
                    ctx,
                    op,
                    ("Operation scf.yield", Some(t)),
                    "parent",
                    &yielded,
                    &results,
                )?;
            }
        }
    }
    Ok(())
}
