//! The custom syntax of the `scf` ops with regions, as upstream prints and parses them.
//!
//! `scf.for`, `scf.if` and `scf.parallel` have an implicit terminator: a body that yields
//! nothing may leave out its `scf.yield` (`scf.reduce` for `scf.parallel`), the parser adds it
//! back, and the printer leaves it out where upstream does.

use nart_ir::asm::{Argument, Delimiter, OpAsmParser, OpAsmPrinter, UnresolvedOperand};
use nart_ir::{Block, Diagnostic, Op, OperationState, Region, Type, TypeData, Value};

/// Adds `terminator` (an op with no operands) to the end of the entry block of `r` when the
/// block has no terminator, creating the block when the region has none (upstream's
/// `ensureTerminator`).
pub(crate) fn ensure_terminator(p: &mut OpAsmParser<'_, '_>, r: Region, terminator: &str) {
    let loc = p.current_location();
    let ctx = p.ctx();
    let block = match ctx.region_blocks(r).first() {
        Some(&b) => b,
        None => {
            let b = ctx.create_block(&[], loc);
            ctx.append_block(r, b);
            b
        }
    };
    let has_terminator = ctx.block_last_op(block).is_some_and(|t| {
        ctx.op_def(t)
            .is_some_and(|d| d.has_trait(nart_ir::Trait::Terminator))
    });
    if !has_terminator {
        let st = OperationState::new(ctx, terminator, loc);
        let t = ctx.create_op(st);
        ctx.append_op(block, t);
    }
}

/// Reads `(%a = %x, %b = %y)`: the region arguments and the values they start from.
fn parse_assignment_list(
    p: &mut OpAsmParser<'_, '_>,
) -> Result<(Vec<Argument>, Vec<UnresolvedOperand>), Diagnostic> {
    let mut args = Vec::new();
    let mut values = Vec::new();
    p.parse_lparen()?;
    if p.parse_optional_rparen() {
        return Ok((args, values));
    }
    loop {
        args.push(p.parse_argument(false, false)?);
        p.parse_equal()?;
        values.push(p.parse_operand()?);
        if !p.parse_optional_comma() {
            break;
        }
    }
    p.parse_rparen()?;
    Ok((args, values))
}

/// Writes ` prefix(%a = %x, ...)` when there are values (upstream's `printInitializationList`).
fn print_assignment_list(p: &mut OpAsmPrinter<'_>, args: &[Value], values: &[Value], prefix: &str) {
    if values.is_empty() {
        return;
    }
    p.write_str(prefix);
    p.write_str("(");
    for (i, (&a, &v)) in args.iter().zip(values).enumerate() {
        if i > 0 {
            p.write_str(", ");
        }
        p.print_operand(a);
        p.write_str(" = ");
        p.print_operand(v);
    }
    p.write_str(")");
}

fn add_prop(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
    name: &str,
    value: nart_ir::Attr,
) {
    let name = p.ctx().ident(name);
    st.props.push(nart_ir::NamedAttr { name, value });
}

fn with_types(mut args: Vec<Argument>, types: &[Type]) -> Vec<Argument> {
    for (a, &t) in args.iter_mut().zip(types) {
        a.ty = t;
    }
    args
}

fn entry_block(p: &OpAsmPrinter<'_>, r: Region) -> Option<Block> {
    p.ctx().region_blocks(r).first().copied()
}

/// `scf.for (unsigned)? %iv = %lb to %ub step %s (iter_args(%a = %x) -> (types))? (: type)? {...}`
pub fn parse_for(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> Result<(), Diagnostic> {
    let unsigned = p.parse_optional_keyword("unsigned");
    let iv = p.parse_argument(false, false)?;
    p.parse_equal()?;
    let lb = p.parse_operand()?;
    p.parse_keyword("to")?;
    let ub = p.parse_operand()?;
    p.parse_keyword("step")?;
    let step = p.parse_operand()?;
    let (mut args, mut inits) = (Vec::new(), Vec::new());
    if p.parse_optional_keyword("iter_args") {
        (args, inits) = parse_assignment_list(p)?;
        p.parse_arrow()?;
        st.result_types = p.parse_function_result_types()?;
    }
    let iv_ty = if p.parse_optional_colon() {
        p.parse_type()?
    } else {
        p.ctx().index_type()
    };
    if args.len() != st.result_types.len() {
        return Err(p.emit_error(format!(
            "expected as many iter_args ({}) as result types ({})",
            args.len(),
            st.result_types.len()
        )));
    }
    let mut region_args = vec![Argument { ty: iv_ty, ..iv }];
    region_args.extend(with_types(args, &st.result_types));
    p.resolve_operands_same(&[lb, ub, step], iv_ty, &mut st.operands);
    let result_types = st.result_types.clone();
    p.resolve_operands(&inits, &result_types, &mut st.operands)?;
    let body = p.parse_region(&region_args)?;
    ensure_terminator(p, body, "scf.yield");
    st.regions.push(body);
    p.parse_optional_attr_dict(st)?;
    if unsigned {
        let unit = p.ctx().unit_attr();
        add_prop(p, st, "unsignedCmp", unit);
    }
    Ok(())
}

/// Prints `scf.for` as upstream does.
pub fn print_for(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    let body = ctx.region(op, 0);
    let Some(block) = entry_block(p, body) else {
        return Err(std::fmt::Error);
    };
    let args = ctx.block_args(block).to_vec();
    let Some((&iv, iter)) = args.split_first() else {
        return Err(std::fmt::Error);
    };
    p.write_str(" ");
    if ctx.attr(op, "unsignedCmp").is_some() {
        p.write_str("unsigned ");
    }
    p.print_operand(iv);
    p.write_str(" = ");
    p.print_operand(operands[0]);
    p.write_str(" to ");
    p.print_operand(operands[1]);
    p.write_str(" step ");
    p.print_operand(operands[2]);
    let inits = &operands[3..];
    print_assignment_list(p, iter, inits, " iter_args");
    if !inits.is_empty() {
        p.write_str(" -> (");
        let results: Vec<Type> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
        p.print_types(&results);
        p.write_str(")");
    }
    let iv_ty = ctx.value_type(iv);
    if !matches!(ctx.type_data(iv_ty), TypeData::Index) {
        p.write_str(" : ");
        p.print_type(iv_ty);
    }
    p.write_str(" ");
    p.print_region_with(body, false, false, !inits.is_empty());
    p.print_optional_attr_dict(op, &["unsignedCmp"]);
    Ok(())
}

/// `scf.if %c (-> (types))? {...} (else {...})?`
pub fn parse_if(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> Result<(), Diagnostic> {
    let cond = p.parse_operand()?;
    let i1 = p.ctx().i1_type();
    let c = p.resolve_operand(&cond, i1);
    st.operands.push(c);
    st.result_types = p.parse_optional_arrow_type_list()?;
    let then_region = p.parse_region(&[])?;
    ensure_terminator(p, then_region, "scf.yield");
    st.regions.push(then_region);
    let else_region = if p.parse_optional_keyword("else") {
        let r = p.parse_region(&[])?;
        ensure_terminator(p, r, "scf.yield");
        r
    } else {
        p.ctx().create_region()
    };
    st.regions.push(else_region);
    p.parse_optional_attr_dict(st)
}

/// Prints `scf.if` as upstream does.
pub fn print_if(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let results: Vec<Type> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
    p.write_str(" ");
    p.print_operand(ctx.operand(op, 0));
    if !results.is_empty() {
        p.write_str(" -> (");
        p.print_types(&results);
        p.write_str(")");
    }
    let terminators = !results.is_empty();
    p.write_str(" ");
    p.print_region_with(ctx.region(op, 0), false, false, terminators);
    let else_region = ctx.region(op, 1);
    if !ctx.region_blocks(else_region).is_empty() {
        p.write_str(" else ");
        p.print_region_with(else_region, false, false, terminators);
    }
    p.print_optional_attr_dict(op, &[]);
    Ok(())
}

/// `scf.while ((%a = %x, ...))? : (types) -> types {...} do {...}`
pub fn parse_while(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> Result<(), Diagnostic> {
    let (mut args, mut inits) = (Vec::new(), Vec::new());
    if p.peek_is("(") {
        (args, inits) = parse_assignment_list(p)?;
    }
    p.parse_colon()?;
    let fty = p.parse_type()?;
    let TypeData::Function { inputs, results } = p.ctx().type_data(fty).clone() else {
        return Err(p.emit_error("expected a function type"));
    };
    if inputs.len() != inits.len() {
        return Err(p.emit_error(format!(
            "expected as many input types as operands (expected {} got {})",
            inits.len(),
            inputs.len()
        )));
    }
    st.result_types = results;
    p.resolve_operands(&inits, &inputs, &mut st.operands)?;
    let before = p.parse_region(&with_types(args, &inputs))?;
    st.regions.push(before);
    p.parse_keyword("do")?;
    let after = p.parse_region(&[])?;
    st.regions.push(after);
    p.parse_optional_attr_dict_with_keyword(st)
}

/// Prints `scf.while` as upstream does.
pub fn print_while(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let inits = ctx.operands(op).to_vec();
    let before = ctx.region(op, 0);
    let before_args = entry_block(p, before)
        .map(|b| ctx.block_args(b).to_vec())
        .unwrap_or_default();
    if before_args.len() == inits.len() {
        print_assignment_list(p, &before_args, &inits, " ");
    } else {
        return Err(std::fmt::Error);
    }
    p.write_str(" : ");
    let inputs: Vec<Type> = inits.iter().map(|&v| ctx.value_type(v)).collect();
    let results: Vec<Type> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
    p.print_functional_type(&inputs, &results);
    p.write_str(" ");
    p.print_region(before, false, false);
    p.write_str(" do ");
    p.print_region(ctx.region(op, 1), true, false);
    p.print_optional_attr_dict_with_keyword(op, &[]);
    Ok(())
}

/// `scf.parallel (%i, ...) = (lbs) to (ubs) step (steps) (init (values))? (-> types)? {...}`
pub fn parse_parallel(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    let ivs = p.parse_argument_list(Delimiter::Paren, false, false)?;
    let index = p.ctx().index_type();
    let mut bounds = Vec::new();
    for kw in ["=", "to", "step"] {
        if kw == "=" {
            p.parse_equal()?;
        } else {
            p.parse_keyword(kw)?;
        }
        let at = p.current_pos();
        let list = p.parse_operand_list_delimited(Delimiter::Paren)?;
        if list.len() != ivs.len() {
            return Err(p.emit_error_at_pos(
                at,
                format!("expected {} operands, but got {}", ivs.len(), list.len()),
            ));
        }
        p.resolve_operands_same(&list, index, &mut st.operands);
        bounds.push(list.len() as i64);
    }
    let mut inits = Vec::new();
    if p.parse_optional_keyword("init") {
        inits = p.parse_operand_list_delimited(Delimiter::Paren)?;
    }
    st.result_types = p.parse_optional_arrow_type_list()?;
    let body = p.parse_region(&with_types(ivs, &vec![index; bounds[0] as usize]))?;
    ensure_terminator(p, body, "scf.reduce");
    st.regions.push(body);
    let seg = segment_sizes(
        p.ctx(),
        &[bounds[0], bounds[1], bounds[2], inits.len() as i64],
    );
    add_prop(p, st, "operandSegmentSizes", seg);
    p.parse_optional_attr_dict(st)?;
    let result_types = st.result_types.clone();
    p.resolve_operands(&inits, &result_types, &mut st.operands)?;
    Ok(())
}

/// `array<i32: ...>` for `operandSegmentSizes`.
pub(crate) fn segment_sizes(ctx: &mut nart_ir::Context, sizes: &[i64]) -> nart_ir::Attr {
    let elem = ctx.i32_type();
    ctx.intern_attr(nart_ir::AttrData::DenseArray {
        elem,
        data: nart_ir::DenseArrayData::Int(sizes.to_vec()),
    })
}

/// Prints `scf.parallel` as upstream does.
pub fn print_parallel(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let par = crate::ParallelOp(op);
    let body = ctx.region(op, 0);
    let ivs = entry_block(p, body)
        .map(|b| ctx.block_args(b).to_vec())
        .unwrap_or_default();
    p.write_str(" (");
    p.print_operands(&ivs);
    p.write_str(") = (");
    p.print_operands(par.lower_bound(ctx));
    p.write_str(") to (");
    p.print_operands(par.upper_bound(ctx));
    p.write_str(") step (");
    p.print_operands(par.step(ctx));
    p.write_str(")");
    let inits = par.init_vals(ctx);
    if !inits.is_empty() {
        p.write_str(" init (");
        p.print_operands(inits);
        p.write_str(")");
    }
    let results: Vec<Type> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
    p.print_arrow_type_list(&results);
    p.write_str(" ");
    p.print_region(body, false, false);
    p.print_optional_attr_dict(op, &["operandSegmentSizes"]);
    Ok(())
}

/// `scf.reduce ((%v, ... : types))? ({...}, ...)?`
pub fn parse_reduce(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    if p.parse_optional_lparen() {
        let values = p.parse_operand_list()?;
        p.parse_colon()?;
        let types = p.parse_type_list()?;
        p.parse_rparen()?;
        p.resolve_operands(&values, &types, &mut st.operands)?;
    }
    if let Some(r) = p.parse_optional_region(&[])? {
        st.regions.push(r);
        while p.parse_optional_comma() {
            let r = p.parse_region(&[])?;
            st.regions.push(r);
        }
    }
    p.parse_optional_attr_dict(st)
}

/// Prints `scf.reduce` as upstream's declarative format does.
pub fn print_reduce(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let operands = ctx.operands(op).to_vec();
    if !operands.is_empty() {
        p.write_str("(");
        p.print_operands(&operands);
        p.write_str(" : ");
        p.print_value_types(&operands);
        p.write_str(")");
    }
    for (i, &r) in ctx.regions(op).iter().enumerate() {
        p.write_str(if i == 0 { " " } else { ", " });
        p.print_region(r, true, false);
    }
    p.print_optional_attr_dict(op, &[]);
    Ok(())
}

/// `scf.execute_region (-> types)? (no_inline)? {...}`
pub fn parse_execute_region(
    p: &mut OpAsmParser<'_, '_>,
    st: &mut OperationState,
) -> Result<(), Diagnostic> {
    st.result_types = p.parse_optional_arrow_type_list()?;
    if p.parse_optional_keyword("no_inline") {
        let unit = p.ctx().unit_attr();
        add_prop(p, st, "no_inline", unit);
    }
    let r = p.parse_region(&[])?;
    st.regions.push(r);
    p.parse_optional_attr_dict(st)
}

/// Prints `scf.execute_region` as upstream does.
pub fn print_execute_region(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let results: Vec<Type> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
    p.print_arrow_type_list(&results);
    p.write_str(" ");
    if ctx.attr(op, "no_inline").is_some() {
        p.write_str("no_inline ");
    }
    p.print_region(ctx.region(op, 0), false, false);
    p.print_optional_attr_dict(op, &["no_inline"]);
    Ok(())
}
