//! What the patterns share: reading graph ops and constants, and building graph ops,
//! constants and attributes with a [`PatternRewriter`].

use nart_ir::{
    Attr, AttrData, Context, DenseArrayData, DenseData, FloatKind, Location, Op, OperationState,
    PatternRewriter, Type, TypeData, Value,
};

/// The op defining `v` if it is `graph.<name>`.
pub fn def(ctx: &Context, v: Value, name: &str) -> Option<Op> {
    let op = ctx.defining_op(v)?;
    is(ctx, op, name).then_some(op)
}

/// Whether `op` is `graph.<name>`.
pub fn is(ctx: &Context, op: Op, name: &str) -> bool {
    ctx.op_name_str(op)
        .strip_prefix("graph.")
        .is_some_and(|n| n == name)
}

/// Whether `v` has exactly one use.
pub fn single_use(ctx: &Context, v: Value) -> bool {
    ctx.uses(v).len() == 1
}

/// Whether `v` has exactly `n` uses.
pub fn uses_exactly(ctx: &Context, v: Value, n: usize) -> bool {
    ctx.uses(v).len() == n
}

/// The only user of `v`, if it has exactly one use.
pub fn only_user(ctx: &Context, v: Value) -> Option<Op> {
    match ctx.uses(v) {
        [u] => Some(u.op),
        _ => None,
    }
}

/// Whether `v` is the `none` of an absent optional operand.
pub fn is_none(ctx: &Context, v: Value) -> bool {
    matches!(ctx.type_data(ctx.value_type(v)), TypeData::None)
}

/// Whether `v` is a ranked tensor of `f32`.
pub fn is_f32(ctx: &Context, v: Value) -> bool {
    match ctx.type_data(ctx.value_type(v)) {
        TypeData::RankedTensor { elem, .. } => {
            matches!(ctx.type_data(*elem), TypeData::Float(FloatKind::F32))
        }
        _ => false,
    }
}

/// The static shape of `v` (`None` if unranked or any dim is dynamic).
pub fn static_shape(ctx: &Context, v: Value) -> Option<Vec<i64>> {
    let s = ctx.shape_of(ctx.value_type(v))?;
    (!s.contains(&nart_ir::DYNAMIC)).then(|| s.to_vec())
}

/// The shape of `v` with [`nart_ir::DYNAMIC`] for unknown dims (`None` if unranked).
pub fn shape(ctx: &Context, v: Value) -> Option<Vec<i64>> {
    ctx.shape_of(ctx.value_type(v)).map(<[i64]>::to_vec)
}

/// The rank of `v`, if ranked.
pub fn rank(ctx: &Context, v: Value) -> Option<usize> {
    ctx.shape_of(ctx.value_type(v)).map(<[i64]>::len)
}

/// A constant operand: its shape and its values as `f64`.
#[derive(Clone, Debug)]
pub struct Const {
    /// The shape.
    pub shape: Vec<usize>,
    /// The values, row-major.
    pub values: Vec<f64>,
}

impl Const {
    /// The value if the constant holds exactly one element.
    pub fn scalar(&self) -> Option<f64> {
        (self.values.len() == 1).then(|| self.values[0])
    }
}

/// The constant behind `v`, if a constant op defines it and its elements are numbers.
pub fn constant(ctx: &Context, v: Value) -> Option<Const> {
    let attr = nart_ir::interfaces::constant_of(ctx, v)?;
    let t = nart_interp::convert::tensor_from_attr(ctx, attr).ok()?;
    Some(Const {
        shape: t.shape().to_vec(),
        values: t.to_f64_vec().ok()?,
    })
}

/// The single value of the one-element constant behind `v`.
pub fn scalar(ctx: &Context, v: Value) -> Option<f64> {
    constant(ctx, v)?.scalar()
}

/// Whether `a` is within `rel` (relative) of `b`.
pub fn near(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-30)
}

/// Whether the one-element constant behind `v` is within `rel` of `want`.
pub fn scalar_near(ctx: &Context, v: Value, want: f64, rel: f64) -> bool {
    scalar(ctx, v).is_some_and(|s| near(s, want, rel))
}

/// For a binary `op` (`Mul`, `Add`), the operand that is not `x`, if the other one is `x`.
pub fn other_operand(ctx: &Context, op: Op, x: Value) -> Option<Value> {
    let ops = ctx.operands(op);
    match ops {
        [a, b] if *a == x => Some(*b),
        [a, b] if *b == x => Some(*a),
        _ => None,
    }
}

/// For a binary `op`, the pair (constant operand's value, the other operand), the constant
/// being a one-element constant; either order.
pub fn with_scalar(ctx: &Context, op: Op) -> Option<(f64, Value)> {
    let [a, b] = ctx.operands(op) else {
        return None;
    };
    if let Some(s) = scalar(ctx, *b) {
        return Some((s, *a));
    }
    scalar(ctx, *a).map(|s| (s, *b))
}

/// The `i64` attribute `name` of `op`.
pub fn int_attr(ctx: &Context, op: Op, name: &str) -> Option<i64> {
    ctx.attr(op, name)
        .and_then(|a| ctx.attr_int(a))
        .map(|v| v as i64)
}

/// The float attribute `name` of `op`.
pub fn float_attr(ctx: &Context, op: Op, name: &str) -> Option<f64> {
    ctx.attr(op, name).and_then(|a| ctx.attr_float(a))
}

/// The `array<i64>` attribute `name` of `op`.
pub fn ints_attr(ctx: &Context, op: Op, name: &str) -> Option<Vec<i64>> {
    match ctx.attr_data(ctx.attr(op, name)?) {
        AttrData::DenseArray {
            data: DenseArrayData::Int(v),
            ..
        } => Some(v.clone()),
        _ => None,
    }
}

/// The `f32` type.
pub fn f32_type(rw: &mut PatternRewriter<'_>) -> Type {
    rw.uniq().float_type(FloatKind::F32)
}

/// An `f32` attribute.
pub fn f32_attr(rw: &mut PatternRewriter<'_>, v: f64) -> Attr {
    let ty = f32_type(rw);
    rw.uniq().float_attr(ty, v as f32 as f64)
}

/// An `i64` attribute.
pub fn i64_attr(rw: &mut PatternRewriter<'_>, v: i64) -> Attr {
    let ty = rw.uniq().int_type(64);
    rw.uniq().int_attr(ty, v as i128)
}

/// An `array<i64: ...>` attribute.
pub fn i64_array(rw: &mut PatternRewriter<'_>, v: &[i64]) -> Attr {
    let elem = rw.uniq().int_type(64);
    rw.uniq().intern_attr(AttrData::DenseArray {
        elem,
        data: DenseArrayData::Int(v.to_vec()),
    })
}

/// An `array<f32: ...>` attribute.
pub fn f32_array(rw: &mut PatternRewriter<'_>, v: &[f32]) -> Attr {
    let elem = f32_type(rw);
    rw.uniq().intern_attr(AttrData::DenseArray {
        elem,
        data: DenseArrayData::Float(v.iter().map(|x| (*x as f64).to_bits()).collect()),
    })
}

/// A `graph.constant` of `f32` values with `shape`, at the insertion point.
pub fn f32_constant(
    rw: &mut PatternRewriter<'_>,
    shape: &[usize],
    values: &[f64],
    loc: Location,
) -> Value {
    let elem = f32_type(rw);
    let ty = rw
        .uniq()
        .tensor_type(shape.iter().map(|&d| d as i64).collect(), elem);
    let bytes: Vec<u8> = values
        .iter()
        .flat_map(|v| (*v as f32).to_le_bytes())
        .collect();
    let value = rw.uniq().intern_attr(AttrData::DenseElements {
        ty,
        data: DenseData::Elements(bytes),
    });
    let st = OperationState::new(rw.uniq(), "graph.constant", loc)
        .results(&[ty])
        .prop(rw.uniq(), "value", value);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// A `graph.constant` of `i64` values with `shape`, at the insertion point.
pub fn i64_constant(
    rw: &mut PatternRewriter<'_>,
    shape: &[usize],
    values: &[i64],
    loc: Location,
) -> Value {
    let elem = rw.uniq().int_type(64);
    let ty = rw
        .uniq()
        .tensor_type(shape.iter().map(|&d| d as i64).collect(), elem);
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let value = rw.uniq().intern_attr(AttrData::DenseElements {
        ty,
        data: DenseData::Elements(bytes),
    });
    let st = OperationState::new(rw.uniq(), "graph.constant", loc)
        .results(&[ty])
        .prop(rw.uniq(), "value", value);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// The value of a `graph.none`, at the insertion point.
pub fn none_value(rw: &mut PatternRewriter<'_>, loc: Location) -> Value {
    let ty = rw.uniq().none_type();
    let st = OperationState::new(rw.uniq(), "graph.none", loc).results(&[ty]);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// Builds `graph.<name>` at the insertion point with `operands`, `results` and `props`.
pub fn build(
    rw: &mut PatternRewriter<'_>,
    name: &str,
    operands: &[Value],
    results: &[Type],
    props: Vec<(&str, Attr)>,
    loc: Location,
) -> Op {
    let mut st = OperationState::new(rw.uniq(), &format!("graph.{name}"), loc)
        .operands(operands)
        .results(results);
    for (n, a) in props {
        st = st.prop(rw.uniq(), n, a);
    }
    rw.create(st)
}

/// The axes a reduction `op` reduces over, normalized to `0..rank` and sorted: from its
/// `axes` input (opset 18 on) or its `axes` attribute (before); `None` when they are not
/// constant, or empty (which means all axes, or none with `noop_with_empty_axes`).
pub fn reduce_axes(ctx: &Context, op: Op, rank: usize) -> Option<Vec<usize>> {
    let raw: Vec<i64> = match ctx.operands(op).get(1) {
        Some(&a) if !is_none(ctx, a) => {
            constant(ctx, a)?.values.iter().map(|v| *v as i64).collect()
        }
        _ => ints_attr(ctx, op, "axes")?,
    };
    if raw.is_empty() {
        return None;
    }
    let mut axes: Vec<usize> = raw
        .iter()
        .map(|&a| {
            let a = if a < 0 { a + rank as i64 } else { a };
            usize::try_from(a).ok().filter(|&a| a < rank)
        })
        .collect::<Option<_>>()?;
    axes.sort_unstable();
    axes.dedup();
    Some(axes)
}

/// Whether `axes` are the last `axes.len()` dims of a tensor of rank `rank`.
pub fn trailing_axes(axes: &[usize], rank: usize) -> bool {
    !axes.is_empty()
        && axes
            .iter()
            .enumerate()
            .all(|(k, &a)| a == rank - axes.len() + k)
}
