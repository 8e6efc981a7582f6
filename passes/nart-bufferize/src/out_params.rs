//! Function results as out-parameters (upstream's `buffer-results-to-out-params`): the caller
//! provides a buffer for each result, and the function writes into it and returns nothing.
//!
//! Where the function returns a buffer it allocated itself, and returns it from its one
//! `func.return` at one position only, the allocation is replaced by the out-parameter, so
//! the op that produced the result wrote straight into the caller's buffer; any other returned
//! buffer (an argument, a global, a view) is copied into the out-parameter before returning.

use nart_ir::{AttrData, Context, Diagnostic, Op, PatternRewriter, Type, TypeData, WalkOrder};

pub(crate) fn function_type(ctx: &Context, func: Op) -> Option<(Vec<Type>, Vec<Type>)> {
    let t = ctx.attr_type(ctx.attr(func, "function_type")?)?;
    match ctx.type_data(t) {
        TypeData::Function { inputs, results } => Some((inputs.clone(), results.clone())),
        _ => None,
    }
}

/// Turns the memref results of `func` into out-parameters (appended after its arguments);
/// returns how many. A declaration, or a function with no memref results, is left alone; a
/// function with a result that is not a memref is an error.
pub fn results_to_out_params(ctx: &mut Context, func: Op) -> Result<usize, Diagnostic> {
    let Some((inputs, results)) = function_type(ctx, func) else {
        return Ok(0);
    };
    let Some(&entry) = ctx.region_blocks(ctx.region(func, 0)).first() else {
        return Ok(0);
    };
    if results.is_empty() {
        return Ok(0);
    }
    if let Some(&t) = results
        .iter()
        .find(|&&t| !matches!(ctx.type_data(t), TypeData::MemRef { .. }))
    {
        return Err(ctx.op_error(
            func,
            format!(
                "result of type {} is not a buffer; bufferize the function first",
                nart_ir::printer::type_to_string(ctx, t)
            ),
        ));
    }
    let returns: Vec<Op> = ctx
        .collect_ops(func, WalkOrder::PreOrder)
        .into_iter()
        .filter(|&op| ctx.op_name_str(op) == "func.return" && ctx.op_parent_op(op) == Some(func))
        .collect();
    let loc = ctx.op_loc(func);
    let outs: Vec<_> = results
        .iter()
        .map(|&t| ctx.add_block_arg(entry, t, loc))
        .collect();
    let single = returns.len() == 1;
    for &ret in &returns {
        let values = ctx.operands(ret).to_vec();
        for (k, &v) in values.iter().enumerate() {
            let own_alloc = ctx.defining_op(v).filter(|&def| {
                ctx.op_name_str(def) == "memref.alloc"
                    && ctx.operands(def).is_empty()
                    && ctx.op_parent_block(def) == Some(entry)
                    && ctx.value_type(v) == results[k]
                    && values.iter().filter(|&&w| w == v).count() == 1
                    && single
            });
            if let Some(def) = own_alloc {
                ctx.replace_all_uses(v, outs[k]);
                ctx.erase_op(def);
            } else {
                let mut rw = PatternRewriter::new(ctx);
                rw.set_insertion_point_before(ret);
                crate::convert::copy(&mut rw, v, outs[k], loc);
            }
        }
        ctx.set_operands(ret, &[]);
    }
    let mut new_inputs = inputs.clone();
    new_inputs.extend_from_slice(&results);
    let fty = ctx.intern_type(TypeData::Function {
        inputs: new_inputs,
        results: Vec::new(),
    });
    let fattr = ctx.type_attr(fty);
    ctx.set_prop(func, "function_type", fattr);
    // Argument attributes grow by one empty dictionary per out-parameter (with the result's
    // attributes, when it had some); result attributes go.
    let res_attrs = ctx.attr(func, "res_attrs");
    if let Some(args) = ctx.attr(func, "arg_attrs") {
        if let AttrData::Array(items) = ctx.attr_data(args).clone() {
            let mut items = items;
            let extra: Vec<_> = match res_attrs.map(|r| ctx.attr_data(r).clone()) {
                Some(AttrData::Array(r)) if r.len() == results.len() => r,
                _ => (0..results.len())
                    .map(|_| ctx.dict_attr(Vec::new()))
                    .collect(),
            };
            items.extend(extra);
            let a = ctx.array_attr(items);
            ctx.set_prop(func, "arg_attrs", a);
        }
    }
    if res_attrs.is_some() {
        ctx.remove_attr(func, "res_attrs");
    }
    Ok(outs.len())
}
