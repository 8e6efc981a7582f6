//! `graph-specialize-shapes`: gives symbolic input dimensions fixed sizes and re-infers every
//! type that depends on them, so that a model with a symbolic batch (`tensor<?x784xf32>`) can
//! be compiled for `N=1`.
//!
//! The sizes come from two options:
//! - `dims`: `NAME=SIZE` for each symbolic dimension named in an argument's `graph.dim_names`
//!   (the ONNX `dim_param`s, which the importer records); every argument dimension with that
//!   name gets the size.
//! - `shapes`: `INPUT=D0xD1x...` for an argument given by its index or its `onnx.name`, for
//!   inputs whose dimensions have no names; `?` keeps a dimension symbolic. The shape fixes
//!   the rank of an unranked argument.
//!
//! Then, per function:
//! 1. The argument types become the specialized ones, and a specialized dimension loses its
//!    name in `graph.dim_names` (the entry goes when no name is left), as the importer would
//!    have written it for a static input.
//! 2. Every op nested in the body is re-inferred in program order with the graph dialect's
//!    inference ([`nart_dialect_graph::infer::infer`]); each result keeps what it knew and gains
//!    what inference now knows ([`nart_dialect_graph::infer::refine`]).
//! 3. The function's result types take the static dims of the returned values (their
//!    `graph.dim_names` are updated the same way), and `function_type` is rewritten.
//!
//! Everything that contradicts is an error at its location: a name or input that no argument
//! has, a size that disagrees with a static dimension, a shape of the wrong rank, and an op
//! whose inferred result contradicts its existing static type. The walk is in program order
//! and the options are applied in the order given, so the output is deterministic.

use nart_dialect_graph::infer;
use nart_ir::{
    Attr, AttrData, Context, Diagnostic, NamedAttr, Op, Type, TypeData, WalkOrder, DYNAMIC,
};
use nart_pass::{Pass, PassFailure, PassState};

nart_pass::pass_options! {
    /// The options of `graph-specialize-shapes`.
    pub struct SpecializeShapesOptions {
        /// Sizes of named symbolic dimensions, as graph.dim_names records them (N=1,seq=128)
        #[name = "dims"]
        pub dims: Vec<String> = [],
        /// Shapes of inputs given by argument index or onnx.name (x=1x3x224x224; ? keeps a dim symbolic)
        #[name = "shapes"]
        pub shapes: Vec<String> = [],
    }
}

nart_pass::declare_pass! {
    /// The `graph-specialize-shapes` pass.
    pub struct SpecializeShapesPass {
        argument: "graph-specialize-shapes",
        name: "GraphSpecializeShapes",
        summary: "Give symbolic input dimensions fixed sizes and re-infer the types that depend on them",
        description: "For every `func.func` nested in the op: the arguments' dimensions named in \
            `dims` (by their `graph.dim_names`) and the inputs listed in `shapes` (by argument \
            index or `onnx.name`) become static, and a specialized dimension loses its name. \
            Every op of the body is then re-inferred in program order with the graph dialect's \
            inference, each result type keeping its static dims and gaining the inferred ones; \
            the function's result types and `function_type` follow.\n\
            Errors, at their location: a dimension name or input that no argument has, a size \
            that contradicts a static dimension, a shape of the wrong rank, and an op whose \
            inferred type contradicts its existing static type.",
        options: SpecializeShapesOptions,
        statistics: [
            "num-args" => "Number of function arguments specialized",
            "num-refined" => "Number of op results whose type became more static",
        ],
    }
}

impl SpecializeShapesPass {
    /// The pass with `dims` and `shapes` set, as `nart compile --dim/--shape` runs it.
    pub fn with(dims: Vec<String>, shapes: Vec<String>) -> SpecializeShapesPass {
        let mut pass = SpecializeShapesPass::new();
        pass.opts.dims = dims;
        pass.opts.shapes = shapes;
        pass
    }
}

impl Pass for SpecializeShapesPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let funcs: Vec<Op> = ctx
            .collect_ops(op, WalkOrder::PreOrder)
            .into_iter()
            .filter(|&f| ctx.op_name_str(f) == "func.func")
            .collect();
        // Errors about the options themselves are reported at the one function when there is
        // one (the usual model), else at the op the pass runs on.
        let anchor = if funcs.len() == 1 { funcs[0] } else { op };
        let spec = Spec::parse(&self.opts).map_err(|m| {
            PassFailure::op_error(ctx, anchor, format!("graph-specialize-shapes: {m}"))
        })?;
        let mut used = Used {
            dims: vec![false; spec.dims.len()],
            shapes: vec![false; spec.shapes.len()],
            known_names: Vec::new(),
        };
        for &f in &funcs {
            let counts = specialize_function(ctx, f, &spec, &mut used).map_err(PassFailure::new)?;
            state.add_stat("num-args", counts.0);
            state.add_stat("num-refined", counts.1);
        }
        let mut errors = Vec::new();
        for ((name, _), used_dim) in spec.dims.iter().zip(&used.dims) {
            if !used_dim {
                let known = if used.known_names.is_empty() {
                    "no input has named dimensions".to_string()
                } else {
                    format!("the named dimensions are {}", used.known_names.join(", "))
                };
                errors.push(ctx.op_error(
                    anchor,
                    format!("no input has a dimension named '{name}' ({known})"),
                ));
            }
        }
        for ((key, _), used_shape) in spec.shapes.iter().zip(&used.shapes) {
            if !used_shape {
                errors.push(ctx.op_error(
                    anchor,
                    format!("no input is named '{key}' or has that index"),
                ));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(PassFailure::with_diagnostics(errors))
        }
    }
}

/// The parsed options: sizes by dimension name, shapes by input (`None` keeps a dim symbolic).
#[derive(Debug, Default)]
struct Spec {
    dims: Vec<(String, i64)>,
    shapes: Vec<(String, Vec<Option<i64>>)>,
}

/// Which options matched some argument, and the dimension names seen (for the message about
/// an unknown name).
struct Used {
    dims: Vec<bool>,
    shapes: Vec<bool>,
    known_names: Vec<String>,
}

/// A size: a non-negative integer.
fn parse_size(text: &str) -> Option<i64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<i64>().ok()
}

impl Spec {
    fn parse(opts: &SpecializeShapesOptions) -> Result<Spec, String> {
        let mut spec = Spec::default();
        for item in &opts.dims {
            let (name, size) = item
                .split_once('=')
                .ok_or_else(|| format!("'{item}' in dims is not NAME=SIZE"))?;
            if name.is_empty() {
                return Err(format!("'{item}' in dims has no dimension name"));
            }
            let size = parse_size(size).ok_or_else(|| {
                format!("'{item}' in dims: the size '{size}' is not a non-negative integer")
            })?;
            match spec.dims.iter().find(|(n, _)| n == name) {
                Some((_, s)) if *s != size => {
                    return Err(format!("dims gives '{name}' two sizes, {s} and {size}"))
                }
                Some(_) => {}
                None => spec.dims.push((name.to_string(), size)),
            }
        }
        for item in &opts.shapes {
            let (key, shape) = item
                .split_once('=')
                .ok_or_else(|| format!("'{item}' in shapes is not INPUT=D0xD1x..."))?;
            if key.is_empty() || shape.is_empty() {
                return Err(format!("'{item}' in shapes is not INPUT=D0xD1x..."));
            }
            let dims = shape
                .split('x')
                .map(|d| match d {
                    "?" => Ok(None),
                    _ => parse_size(d)
                        .map(Some)
                        .ok_or_else(|| format!("'{item}' in shapes: '{d}' is not a size or '?'")),
                })
                .collect::<Result<Vec<_>, String>>()?;
            if spec.shapes.iter().any(|(k, _)| k == key) {
                return Err(format!("shapes names input '{key}' twice"));
            }
            spec.shapes.push((key.to_string(), dims));
        }
        Ok(spec)
    }
}

/// The entries of a `func.func`'s `arg_attrs` or `res_attrs`, one dictionary's entries per
/// argument or result (empty where there is none).
fn io_attrs(ctx: &Context, func: Op, key: &str, n: usize) -> Vec<Vec<NamedAttr>> {
    let mut out = vec![Vec::new(); n];
    if let Some(AttrData::Array(items)) = ctx.attr(func, key).map(|a| ctx.attr_data(a)) {
        for (slot, &item) in out.iter_mut().zip(items) {
            if let AttrData::Dictionary(entries) = ctx.attr_data(item) {
                *slot = entries.clone();
            }
        }
    }
    out
}

fn entry<'a>(ctx: &Context, entries: &'a [NamedAttr], key: &str) -> Option<&'a NamedAttr> {
    entries.iter().find(|e| ctx.str(e.name) == key)
}

/// The `graph.dim_names` of one argument or result, padded with empty names to `rank`.
fn dim_names(ctx: &Context, entries: &[NamedAttr], rank: usize) -> Vec<String> {
    let mut names: Vec<String> =
        match entry(ctx, entries, "graph.dim_names").map(|e| ctx.attr_data(e.value)) {
            Some(AttrData::Array(v)) => v
                .iter()
                .map(|&a| ctx.attr_str(a).unwrap_or_default().to_string())
                .collect(),
            _ => Vec::new(),
        };
    names.resize(rank.max(names.len()), String::new());
    names
}

/// `entries` with `graph.dim_names` set to `names` (removed when no name is left).
fn with_dim_names(ctx: &mut Context, entries: &[NamedAttr], names: &[String]) -> Attr {
    let mut out: Vec<NamedAttr> = entries
        .iter()
        .filter(|e| ctx.str(e.name) != "graph.dim_names")
        .copied()
        .collect();
    if names.iter().any(|n| !n.is_empty()) {
        let items: Vec<Attr> = names.iter().map(|n| ctx.string_attr(n)).collect();
        let value = ctx.array_attr(items);
        let name = ctx.ident("graph.dim_names");
        out.push(NamedAttr { name, value });
    }
    ctx.dict_attr(out)
}

/// The shape and element type of a tensor type (`None` shape for an unranked tensor).
fn tensor_parts(ctx: &Context, ty: Type) -> Option<(Option<Vec<i64>>, Type)> {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, elem, .. } => Some((Some(shape.clone()), *elem)),
        TypeData::UnrankedTensor { elem } => Some((None, *elem)),
        _ => None,
    }
}

fn fmt_dims(dims: &[Option<i64>]) -> String {
    dims.iter()
        .map(|d| d.map_or("?".to_string(), |n| n.to_string()))
        .collect::<Vec<_>>()
        .join("x")
}

/// Specializes the arguments of one argument: returns its new type and dimension names, or
/// `None` when nothing applies to it.
fn specialize_arg(
    ctx: &mut Context,
    func: Op,
    index: usize,
    ty: Type,
    entries: &[NamedAttr],
    spec: &Spec,
    used: &mut Used,
) -> Result<Option<(Type, Vec<String>)>, Diagnostic> {
    let Some((shape, elem)) = tensor_parts(ctx, ty) else {
        return Ok(None);
    };
    let onnx_name = entry(ctx, entries, "onnx.name")
        .and_then(|e| ctx.attr_str(e.value))
        .map(str::to_string);
    let what = match &onnx_name {
        Some(n) => format!("input '{n}' (argument #{index})"),
        None => format!("argument #{index}"),
    };
    let mut names = dim_names(ctx, entries, shape.as_ref().map_or(0, Vec::len));
    for n in &names {
        if !n.is_empty() && !used.known_names.contains(n) {
            used.known_names.push(n.clone());
        }
    }
    let mut shape = shape;
    let mut changed = false;
    // Named dims first.
    if let Some(shape) = shape.as_mut() {
        for (k, (name, dim)) in names.iter_mut().zip(shape.iter_mut()).enumerate() {
            let Some(at) = spec.dims.iter().position(|(n, _)| n == name) else {
                continue;
            };
            used.dims[at] = true;
            let size = spec.dims[at].1;
            if *dim != DYNAMIC && *dim != size {
                return Err(ctx.op_error(
                    func,
                    format!("dims gives '{name}' the size {size}, but dimension #{k} of {what} is {dim}"),
                ));
            }
            *dim = size;
            name.clear();
            changed = true;
        }
    }
    // Then whole shapes.
    let key_index = index.to_string();
    if let Some(at) = spec
        .shapes
        .iter()
        .position(|(k, _)| *k == key_index || Some(k) == onnx_name.as_ref())
    {
        used.shapes[at] = true;
        let want = &spec.shapes[at].1;
        let current = shape.get_or_insert_with(|| vec![DYNAMIC; want.len()]);
        if current.len() != want.len() {
            return Err(ctx.op_error(
                func,
                format!(
                    "shape '{}' has rank {}, but {what} has rank {}",
                    fmt_dims(want),
                    want.len(),
                    current.len()
                ),
            ));
        }
        names.resize(want.len(), String::new());
        for (k, &w) in want.iter().enumerate() {
            let Some(size) = w else { continue };
            if current[k] != DYNAMIC && current[k] != size {
                return Err(ctx.op_error(
                    func,
                    format!(
                        "shape '{}' gives dimension #{k} of {what} the size {size}, but it is {}",
                        fmt_dims(want),
                        current[k]
                    ),
                ));
            }
            current[k] = size;
            names[k].clear();
        }
        changed = true;
    }
    if !changed {
        return Ok(None);
    }
    let shape = shape.expect("a shape was given or the type was ranked");
    Ok(Some((ctx.tensor_type(shape, elem), names)))
}

/// Merges a function result type with the type of the value it returns: the static dims of
/// either win (the two were compatible before specialization, and inference kept them so).
fn merge_result(ctx: &mut Context, declared: Type, returned: Type) -> Option<Type> {
    let (a, elem) = tensor_parts(ctx, declared)?;
    let (b, _) = tensor_parts(ctx, returned)?;
    let shape = match (a, b) {
        (Some(a), Some(b)) if a.len() == b.len() => a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| if x == DYNAMIC { y } else { x })
            .collect(),
        (Some(a), _) => a,
        (None, Some(b)) => b,
        (None, None) => return None,
    };
    Some(ctx.tensor_type(shape, elem))
}

/// Specializes one function; returns the number of arguments specialized and of op results
/// refined.
fn specialize_function(
    ctx: &mut Context,
    func: Op,
    spec: &Spec,
    used: &mut Used,
) -> Result<(u64, u64), Diagnostic> {
    let Some(fty) = ctx
        .attr(func, "function_type")
        .and_then(|a| ctx.attr_type(a))
    else {
        return Ok((0, 0));
    };
    let TypeData::Function { inputs, results } = ctx.type_data(fty).clone() else {
        return Ok((0, 0));
    };
    let Some(&body) = ctx.region_blocks(ctx.region(func, 0)).first() else {
        // A declaration: nothing to specialize.
        return Ok((0, 0));
    };
    let args = ctx.block_args(body).to_vec();
    let mut arg_attrs = io_attrs(ctx, func, "arg_attrs", inputs.len());
    let mut new_inputs = inputs.clone();
    let mut num_args = 0;
    for (i, &ty) in inputs.iter().enumerate() {
        let Some((new_ty, names)) = specialize_arg(ctx, func, i, ty, &arg_attrs[i], spec, used)?
        else {
            continue;
        };
        num_args += 1;
        new_inputs[i] = new_ty;
        if let Some(&a) = args.get(i) {
            ctx.set_value_type(a, new_ty);
        }
        let dict = with_dim_names(ctx, &arg_attrs[i], &names);
        if let AttrData::Dictionary(e) = ctx.attr_data(dict) {
            arg_attrs[i] = e.clone();
        }
    }
    if num_args == 0 {
        return Ok((0, 0));
    }
    let mut refined = 0;
    for op in ctx.collect_ops(func, WalkOrder::PreOrder) {
        if op == func {
            continue;
        }
        let inferred = match infer::infer(ctx, op) {
            Ok(Some(r)) => r,
            Ok(None) => continue,
            Err(msg) => {
                return Err(ctx.op_error(op, format!("{msg} (after specializing the input shapes)")))
            }
        };
        let results = ctx.results(op).to_vec();
        for (k, (want, &res)) in inferred.iter().zip(&results).enumerate() {
            let Some(want) = want else { continue };
            let ty = ctx.value_type(res);
            if !infer::compatible(ctx, want, ty) {
                return Err(ctx.op_error(
                    op,
                    format!(
                        "result #{k} has type {} but inference gives {} after specializing the input shapes",
                        infer::fmt_type(ctx, ty),
                        infer::fmt_shaped(ctx, want)
                    ),
                ));
            }
            let new_ty = infer::refine(ctx, ty, want);
            if new_ty != ty {
                ctx.set_value_type(res, new_ty);
                refined += 1;
            }
        }
    }
    // The results follow the returned values.
    let mut new_results = results.clone();
    let mut res_attrs = io_attrs(ctx, func, "res_attrs", results.len());
    let mut res_changed = false;
    let ret = ctx.block_ops(body).last().copied();
    if let Some(ret) = ret.filter(|&r| ctx.op_name_str(r) == "func.return") {
        let returned: Vec<Type> = ctx
            .operands(ret)
            .iter()
            .map(|&v| ctx.value_type(v))
            .collect();
        for (i, (&declared, &got)) in results.iter().zip(&returned).enumerate() {
            let Some(merged) = merge_result(ctx, declared, got) else {
                continue;
            };
            if merged == declared {
                continue;
            }
            new_results[i] = merged;
            res_changed = true;
            let shape = ctx
                .shape_of(merged)
                .map(<[i64]>::to_vec)
                .unwrap_or_default();
            let mut names = dim_names(ctx, &res_attrs[i], shape.len());
            for (k, name) in names.iter_mut().enumerate() {
                if shape.get(k).is_some_and(|&d| d != DYNAMIC) {
                    name.clear();
                }
            }
            let dict = with_dim_names(ctx, &res_attrs[i], &names);
            if let AttrData::Dictionary(e) = ctx.attr_data(dict) {
                res_attrs[i] = e.clone();
            }
        }
    }
    let new_fty = ctx.function_type(new_inputs, new_results);
    let new_fty = ctx.type_attr(new_fty);
    ctx.set_prop(func, "function_type", new_fty);
    if ctx.attr(func, "arg_attrs").is_some() {
        let items: Vec<Attr> = arg_attrs.iter().map(|e| ctx.dict_attr(e.clone())).collect();
        let a = ctx.array_attr(items);
        ctx.set_prop(func, "arg_attrs", a);
    }
    if res_changed && ctx.attr(func, "res_attrs").is_some() {
        let items: Vec<Attr> = res_attrs.iter().map(|e| ctx.dict_attr(e.clone())).collect();
        let a = ctx.array_attr(items);
        ctx.set_prop(func, "res_attrs", a);
    }
    Ok((num_args, refined))
}
