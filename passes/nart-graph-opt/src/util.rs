//! Helpers the passes share: op kinds, constants as tensors and back, static shapes, integer
//! array attributes, and building `graph.constant`s through the rewriter.

use nart_ir::{
    Attr, AttrData, Context, DenseArrayData, DenseData, FloatKind, LocData, Location, Op,
    OperationState, PatternRewriter, Type, TypeData, Uniquer, Value, DYNAMIC,
};
use nart_tensor::{DType, Tensor};

/// Whether `op` is the graph op `graph.<onnx>`.
pub fn is_op(ctx: &Context, op: Op, onnx: &str) -> bool {
    ctx.op_name_str(op)
        .strip_prefix("graph.")
        .is_some_and(|n| n == onnx)
}

/// The op defining `v` if it is `graph.<onnx>`.
pub fn def_of(ctx: &Context, v: Value, onnx: &str) -> Option<Op> {
    ctx.defining_op(v).filter(|&d| is_op(ctx, d, onnx))
}

/// Whether `v` is an absent optional operand (the result of `graph.none`).
pub fn is_none(ctx: &Context, v: Value) -> bool {
    matches!(ctx.type_data(ctx.value_type(v)), TypeData::None)
}

/// The operand `i` of `op`, unless it is absent (missing or `graph.none`).
pub fn opt_operand(ctx: &Context, op: Op, i: usize) -> Option<Value> {
    ctx.operands(op)
        .get(i)
        .copied()
        .filter(|&v| !is_none(ctx, v))
}

/// The constant behind `v` as a tensor, if a constant op defines it.
pub fn const_tensor(ctx: &Context, v: Value) -> Option<Tensor> {
    let attr = nart_ir::interfaces::constant_of(ctx, v)?;
    nart_interp::convert::tensor_from_attr(ctx, attr).ok()
}

/// The shape and the little-endian bytes of `attr`, borrowed, when it is a dense `f32`
/// constant of a static tensor shape stored element by element; `None` for anything else
/// (a splat, a resource, another element type), which [`const_tensor`] reads. For code that
/// rewrites every element of a large weight without decoding it into a [`Tensor`] first.
pub fn f32_elements(u: &Uniquer, attr: Attr) -> Option<(Vec<usize>, &[u8])> {
    let AttrData::DenseElements {
        ty,
        data: DenseData::Elements(bytes),
    } = u.attr_data(attr)
    else {
        return None;
    };
    let TypeData::RankedTensor { shape, elem, .. } = u.type_data(*ty) else {
        return None;
    };
    if !matches!(u.type_data(*elem), TypeData::Float(FloatKind::F32)) {
        return None;
    }
    let shape = shape
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<Vec<usize>>>()?;
    let n = shape.iter().try_fold(4usize, |a, &d| a.checked_mul(d))?;
    (n == bytes.len()).then_some((shape, bytes.as_slice()))
}

/// The constant behind `v` as integers.
pub fn const_ints(ctx: &Context, v: Value) -> Option<Vec<i64>> {
    const_tensor(ctx, v)?.to_i64_vec().ok()
}

/// The static shape of a ranked tensor type with no dynamic dimension.
pub fn static_shape(ctx: &Context, ty: Type) -> Option<Vec<i64>> {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, .. } if !shape.contains(&DYNAMIC) => Some(shape.to_vec()),
        _ => None,
    }
}

/// The static shape of `v`'s type.
pub fn shape_of(ctx: &Context, v: Value) -> Option<Vec<i64>> {
    static_shape(ctx, ctx.value_type(v))
}

/// Whether `a` and `b` have the same type and that type has a fully static shape (so that a
/// value of one can stand for the other whatever the run-time shapes).
pub fn same_static_type(ctx: &Context, a: Value, b: Value) -> bool {
    ctx.value_type(a) == ctx.value_type(b) && shape_of(ctx, a).is_some()
}

/// The element type of `v`'s tensor type as a tensor element type.
pub fn dtype_of(ctx: &Context, v: Value) -> Option<DType> {
    nart_interp::convert::dtype_of_elem(ctx, ctx.element_type(ctx.value_type(v)))
}

/// An integer array attribute (`array<i64: ...>` or an array of integers) as integers.
pub fn attr_ints(ctx: &Context, op: Op, name: &str) -> Option<Vec<i64>> {
    let a = ctx.attr(op, name)?;
    match ctx.attr_data(a) {
        AttrData::DenseArray {
            data: DenseArrayData::Int(v),
            ..
        } => Some(v.clone()),
        AttrData::Array(items) => items
            .iter()
            .map(|&i| ctx.attr_int(i).map(|x| x as i64))
            .collect(),
        _ => None,
    }
}

/// An integer attribute, or `default` when the op does not carry it.
pub fn attr_int(ctx: &Context, op: Op, name: &str, default: i64) -> i64 {
    ctx.attr(op, name)
        .and_then(|a| ctx.attr_int(a))
        .map_or(default, |v| v as i64)
}

/// A float attribute, or `default`.
pub fn attr_float(ctx: &Context, op: Op, name: &str, default: f64) -> f64 {
    ctx.attr(op, name)
        .and_then(|a| ctx.attr_float(a))
        .unwrap_or(default)
}

/// A string attribute, or `default`.
pub fn attr_str<'c>(ctx: &'c Context, op: Op, name: &str, default: &'c str) -> &'c str {
    ctx.attr(op, name)
        .and_then(|a| ctx.attr_str(a))
        .unwrap_or(default)
}

/// An `array<i64: ...>` attribute.
pub fn i64_array(u: &mut Uniquer, values: &[i64]) -> Attr {
    let ty = u.int_type(64);
    u.intern_attr(AttrData::DenseArray {
        elem: ty,
        data: DenseArrayData::Int(values.to_vec()),
    })
}

/// The dense elements attribute of type `ty` holding `t`, when `t` has `ty`'s element type
/// and static shape (whole-byte element types and `bool` only).
pub fn tensor_attr(u: &mut Uniquer, t: &Tensor, ty: Type) -> Option<Attr> {
    let shape = match u.type_data(ty) {
        TypeData::RankedTensor { shape, .. } if !shape.contains(&DYNAMIC) => shape.clone(),
        _ => return None,
    };
    let elem = u.element_type(ty);
    let want = dtype_of_elem_uniq(u, elem)?;
    if want != t.dtype()
        || shape.len() != t.rank()
        || shape.iter().zip(t.shape()).any(|(&a, &b)| a as usize != b)
        || (t.dtype().bit_width() < 8 && t.dtype() != DType::Bool)
        || t.dtype() == DType::String
    {
        return None;
    }
    let bytes = t.to_raw_bytes().ok()?;
    Some(u.intern_attr(AttrData::DenseElements {
        ty,
        data: DenseData::Elements(bytes),
    }))
}

/// `nart_interp::convert::dtype_of_elem` for code that holds only the uniquer.
fn dtype_of_elem_uniq(u: &Uniquer, ty: Type) -> Option<DType> {
    match u.type_data(ty) {
        TypeData::Integer { width, signedness } => {
            let name = match signedness {
                nart_ir::Signedness::Unsigned => format!("ui{width}"),
                _ => format!("i{width}"),
            };
            DType::from_name(&name)
        }
        TypeData::Float(kind) => DType::from_name(kind.keyword()),
        _ => None,
    }
}

/// `ty` (a tensor type) with shape `shape`.
pub fn with_shape(u: &mut Uniquer, ty: Type, shape: &[i64]) -> Type {
    let elem = u.element_type(ty);
    u.tensor_type(shape.to_vec(), elem)
}

/// Creates a `graph.constant` holding `t` with type `ty` at the rewriter's insertion point.
pub fn build_constant(
    rw: &mut PatternRewriter<'_>,
    t: &Tensor,
    ty: Type,
    loc: Location,
) -> Option<Value> {
    let attr = tensor_attr(rw.uniq(), t, ty)?;
    Some(build_constant_attr(rw, attr, ty, loc))
}

/// A `graph.constant` of type `ty` holding `attr` (a dense elements attribute of that type),
/// created at the rewriter's insertion point.
pub fn build_constant_attr(
    rw: &mut PatternRewriter<'_>,
    attr: Attr,
    ty: Type,
    loc: Location,
) -> Value {
    let state = OperationState::new(rw.uniq(), "graph.constant", loc)
        .results(&[ty])
        .prop(rw.uniq(), "value", attr);
    let op = rw.create(state);
    rw.result(op, 0)
}

/// Creates the graph op `graph.<onnx>` with `operands`, result types and properties.
pub fn build_op(
    rw: &mut PatternRewriter<'_>,
    onnx: &str,
    loc: Location,
    operands: &[Value],
    results: &[Type],
    props: &[(&str, Attr)],
) -> Op {
    let mut state = OperationState::new(rw.uniq(), &format!("graph.{onnx}"), loc)
        .operands(operands)
        .results(results);
    for &(name, value) in props {
        state = state.prop(rw.uniq(), name, value);
    }
    rw.create(state)
}

/// The ops nested in `root`, in pre-order, that are graph ops without regions.
pub fn graph_ops(ctx: &Context, root: Op) -> Vec<Op> {
    ctx.nested_ops(root)
        .into_iter()
        .filter(|&op| ctx.op_name_str(op).starts_with("graph.") && ctx.regions(op).is_empty())
        .collect()
}

/// Attaches the interpreter's reference kernels if this context does not have them yet.
pub fn ensure_kernels(ctx: &mut Context) {
    let registered = ctx.lookup_ident("graph.Add").is_some_and(|id| {
        ctx.op_interface_by_name::<dyn nart_interp::ReferenceKernel>(id)
            .is_some()
    });
    if !registered && ctx.registry.has_dialect("graph") {
        nart_interp::register(ctx);
    }
}

/// The first name in a location, if it has one.
pub fn loc_name(u: &Uniquer, loc: Location) -> Option<String> {
    match u.loc_data(loc) {
        LocData::Name { name, .. } => Some(u.str(*name).to_string()),
        LocData::Fused { locs, .. } => locs.iter().find_map(|l| loc_name(u, *l)),
        LocData::CallSite { callee, .. } => loc_name(u, *callee),
        _ => None,
    }
}

/// A location named `<base's name>/<suffix>` (or `suffix`) around `base`, for a value a rewrite
/// derives from an op (the exporter names initializers after it).
pub fn derived_loc(u: &mut Uniquer, base: Location, suffix: &str) -> Location {
    let name = match loc_name(u, base) {
        Some(n) => format!("{n}/{suffix}"),
        None => suffix.to_string(),
    };
    let child = match u.loc_data(base) {
        LocData::Name { child, .. } => *child,
        _ => Some(base),
    };
    let name = u.ident(&name);
    u.loc(LocData::Name { name, child })
}

/// An `i64` attribute.
pub fn i64_attr(u: &mut Uniquer, v: i64) -> Attr {
    let ty = u.int_type(64);
    u.int_attr(ty, v as i128)
}

/// A 1-D `graph.constant` of `i64` values at the rewriter's insertion point.
pub fn i64_constant(rw: &mut PatternRewriter<'_>, values: &[i64], loc: Location) -> Value {
    let elem = rw.uniq().int_type(64);
    let ty = rw.uniq().tensor_type(vec![values.len() as i64], elem);
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let value = rw.uniq().intern_attr(AttrData::DenseElements {
        ty,
        data: DenseData::Elements(bytes),
    });
    let state = OperationState::new(rw.uniq(), "graph.constant", loc)
        .results(&[ty])
        .prop(rw.uniq(), "value", value);
    let op = rw.create(state);
    rw.result(op, 0)
}
