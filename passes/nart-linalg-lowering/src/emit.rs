//! Small builders the lowerings share: every op is created through the rewriter at its
//! insertion point, with the location of the op being lowered.

use nart_dialect_linalg::builders::{create_generic, create_named};
use nart_dialect_linalg::structured::{d, map};
use nart_dialect_linalg::IteratorType;
use nart_ir::{
    AffineExpr, AffineMap, Attr, AttrData, Context, DenseData, FloatKind, Location, OperationState,
    PatternRewriter, Type, TypeData, Value,
};

/// What a lowering returns: the values replacing the op's results, or why it cannot.
pub type Lowered = Result<Vec<Value>, String>;

/// The static shape and element type of a ranked tensor value.
pub fn static_type(ctx: &Context, v: Value) -> Result<(Vec<i64>, Type), String> {
    let ty = ctx.value_type(v);
    match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, elem, .. } if shape.iter().all(|&s| s >= 0) => {
            Ok((shape.clone(), *elem))
        }
        _ => Err(format!(
            "expected a tensor of static shape, got '{}'",
            nart_ir::printer::type_to_string(ctx, ty)
        )),
    }
}

/// Whether `ty` is a float type.
pub fn is_float(ctx: &Context, ty: Type) -> bool {
    matches!(ctx.type_data(ty), TypeData::Float(_))
}

/// Whether value `v` is absent: the result of `graph.none`.
pub fn is_none(ctx: &Context, v: Value) -> bool {
    matches!(ctx.type_data(ctx.value_type(v)), TypeData::None)
}

/// The optional operand `i` of `op`: `None` when missing or `graph.none`.
pub fn optional_operand(ctx: &Context, op: nart_ir::Op, i: usize) -> Option<Value> {
    ctx.operands(op)
        .get(i)
        .copied()
        .filter(|&v| !is_none(ctx, v))
}

/// `tensor.empty() : tensor<shape x elem>`.
pub fn empty(rw: &mut PatternRewriter<'_>, shape: &[i64], elem: Type, loc: Location) -> Value {
    let ty = rw.uniq().tensor_type(shape.to_vec(), elem);
    let st = OperationState::new(rw.uniq(), "tensor.empty", loc).results(&[ty]);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// The scalar attribute `v` of type `ty` (float or integer).
pub fn scalar_attr(rw: &mut PatternRewriter<'_>, v: f64, ty: Type) -> Attr {
    if is_float(rw, ty) {
        rw.uniq().float_attr(ty, v)
    } else {
        rw.uniq().int_attr(ty, v as i128)
    }
}

/// `arith.constant v : ty` for a scalar type.
pub fn scalar(rw: &mut PatternRewriter<'_>, v: f64, ty: Type, loc: Location) -> Value {
    let a = scalar_attr(rw, v, ty);
    let st = nart_dialect_arith::constant_state(rw.uniq(), a, ty, loc);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// An arith op `name(operands) : ty`.
pub fn ar(
    rw: &mut PatternRewriter<'_>,
    name: &str,
    operands: &[Value],
    ty: Type,
    loc: Location,
) -> Value {
    let st = nart_dialect_arith::op_state(rw.uniq(), name, operands, &[ty], loc);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// `arith.cmpf <predicate>, a, b`, with upstream's predicate numbers (`ogt` is 2).
pub fn cmpf(
    rw: &mut PatternRewriter<'_>,
    predicate: i128,
    a: Value,
    b: Value,
    loc: Location,
) -> Value {
    let i1 = rw.uniq().int_type(1);
    let i64t = rw.uniq().int_type(64);
    let p = rw.uniq().int_attr(i64t, predicate);
    let st = nart_dialect_arith::op_state(rw.uniq(), "arith.cmpf", &[a, b], &[i1], loc).prop(
        rw.uniq(),
        "predicate",
        p,
    );
    let op = rw.create(st);
    rw.result(op, 0)
}

/// A `math` op `name(x)` of `x`'s type; fails when the `math` dialect is not registered.
pub fn math(
    rw: &mut PatternRewriter<'_>,
    name: &str,
    x: Value,
    loc: Location,
) -> Result<Value, String> {
    let known = rw
        .lookup_ident(name)
        .and_then(|id| rw.op_def_by_name(id))
        .is_some();
    if !known {
        return Err(format!(
            "needs '{name}', and the math dialect is not registered"
        ));
    }
    let ty = rw.value_type(x);
    let st = OperationState::new(rw.uniq(), name, loc)
        .operands(&[x])
        .results(&[ty]);
    let op = rw.create(st);
    Ok(rw.result(op, 0))
}

/// The map reading an operand of shape `input` inside a loop nest over `out`, with ONNX
/// multidirectional broadcasting: trailing dimensions align, and a dimension of size 1 that
/// the output does not have reads index 0.
pub fn broadcast_map(input: &[i64], out: &[i64]) -> AffineMap {
    let (r, n) = (input.len(), out.len());
    let results = (0..r)
        .map(|j| {
            let o = j + n - r;
            if input[j] == 1 && out[o] != 1 {
                AffineExpr::Const(0)
            } else {
                d(o as u32)
            }
        })
        .collect();
    map(n as u32, results)
}

/// A parallel `linalg.generic` computing a tensor of `shape` x `elem` from `inputs`
/// (broadcast to `shape`): `body` gets the input elements and returns the output element.
pub fn elementwise(
    rw: &mut PatternRewriter<'_>,
    inputs: &[Value],
    shape: &[i64],
    elem: Type,
    loc: Location,
    body: impl FnOnce(&mut PatternRewriter<'_>, &[Value]) -> Result<Value, String>,
) -> Result<Value, String> {
    let mut maps = Vec::new();
    for &v in inputs {
        let (s, _) = static_type(rw, v)?;
        if s.len() > shape.len() {
            return Err("an input has a higher rank than the result".to_string());
        }
        maps.push(broadcast_map(&s, shape));
    }
    maps.push(nart_dialect_linalg::structured::identity(shape.len() as u32));
    let init = empty(rw, shape, elem, loc);
    let n_in = inputs.len();
    let mut failure = None;
    let op = create_generic(
        rw,
        inputs,
        &[init],
        maps,
        &vec![IteratorType::Parallel; shape.len()],
        loc,
        |rw, args| match body(rw, &args[..n_in]) {
            Ok(v) => vec![v],
            Err(e) => {
                failure = Some(e);
                vec![args[n_in]]
            }
        },
    );
    match failure {
        Some(e) => Err(e),
        None => Ok(rw.result(op, 0)),
    }
}

/// A tensor of `shape` x `elem` filled with `v` (`linalg.fill` of a `tensor.empty`).
pub fn filled(
    rw: &mut PatternRewriter<'_>,
    v: f64,
    shape: &[i64],
    elem: Type,
    loc: Location,
) -> Value {
    let c = scalar(rw, v, elem, loc);
    let init = empty(rw, shape, elem, loc);
    let op = create_named(rw, "linalg.fill", &[c], &[init], &[], loc);
    rw.result(op, 0)
}

/// The `f32` elements of a dense elements attribute of element type `f32`.
pub fn dense_f32(ctx: &Context, a: Attr) -> Option<Vec<f32>> {
    let AttrData::DenseElements { ty, data } = ctx.attr_data(a) else {
        return None;
    };
    if ctx.type_data(ctx.element_type(*ty)) != &TypeData::Float(FloatKind::F32) {
        return None;
    }
    let n: i64 = ctx.shape_of(*ty)?.iter().product();
    let bytes = match data {
        DenseData::Splat(b) => b.repeat(usize::try_from(n).ok()?),
        DenseData::Elements(b) => b.clone(),
        DenseData::Strings { .. } => return None,
    };
    Some(
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// The `f32` elements of `v` when a constant op (`graph.constant`, `arith.constant`) defines
/// it.
pub fn constant_f32(ctx: &Context, v: Value) -> Option<Vec<f32>> {
    let op = ctx.defining_op(v)?;
    if !matches!(ctx.op_name_str(op), "graph.constant" | "arith.constant") {
        return None;
    }
    dense_f32(ctx, ctx.attr(op, "value")?)
}

/// `arith.constant dense<vals> : tensor<shape x f32>`.
pub fn const_f32_tensor(
    rw: &mut PatternRewriter<'_>,
    shape: &[i64],
    vals: &[f32],
    loc: Location,
) -> Value {
    let f32t = rw.uniq().f32_type();
    let ty = rw.uniq().tensor_type(shape.to_vec(), f32t);
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let a = rw.uniq().intern_attr(AttrData::DenseElements {
        ty,
        data: DenseData::Elements(bytes),
    });
    let st = nart_dialect_arith::constant_state(rw.uniq(), a, ty, loc);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// A `linalg.generic` whose `body` may fail: its results, or the body's reason (the op is
/// then left for the conversion to roll back).
pub fn try_generic(
    rw: &mut PatternRewriter<'_>,
    inputs: &[Value],
    inits: &[Value],
    maps: Vec<AffineMap>,
    iters: &[IteratorType],
    loc: Location,
    body: impl FnOnce(&mut PatternRewriter<'_>, &[Value]) -> Result<Vec<Value>, String>,
) -> Result<Vec<Value>, String> {
    let n_in = inputs.len();
    let mut failure = None;
    let op = create_generic(rw, inputs, inits, maps, iters, loc, |rw, args| {
        match body(rw, args) {
            Ok(v) => v,
            Err(e) => {
                failure = Some(e);
                args[n_in..].to_vec()
            }
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(rw.results(op).to_vec()),
    }
}

/// `linalg.index dim : index` (inside a structured op's body).
pub fn linalg_index(rw: &mut PatternRewriter<'_>, dim: usize, loc: Location) -> Value {
    let index = rw.uniq().index_type();
    let i64t = rw.uniq().int_type(64);
    let a = rw.uniq().int_attr(i64t, dim as i128);
    let st = OperationState::new(rw.uniq(), "linalg.index", loc)
        .results(&[index])
        .prop(rw.uniq(), "dim", a);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// `arith.cmpi <predicate>, a, b`, with upstream's predicate numbers
/// (`nart_dialect_arith::attrs::cmpi`).
pub fn cmpi(
    rw: &mut PatternRewriter<'_>,
    predicate: i128,
    a: Value,
    b: Value,
    loc: Location,
) -> Value {
    let i1 = rw.uniq().int_type(1);
    let i64t = rw.uniq().int_type(64);
    let p = rw.uniq().int_attr(i64t, predicate);
    let st = nart_dialect_arith::op_state(rw.uniq(), "arith.cmpi", &[a, b], &[i1], loc).prop(
        rw.uniq(),
        "predicate",
        p,
    );
    let op = rw.create(st);
    rw.result(op, 0)
}

/// `arith.constant attr : ty`.
pub fn constant_of(rw: &mut PatternRewriter<'_>, attr: Attr, ty: Type, loc: Location) -> Value {
    let st = nart_dialect_arith::constant_state(rw.uniq(), attr, ty, loc);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// A tensor of `shape` x `elem` filled with the scalar attribute `attr`.
pub fn filled_with(
    rw: &mut PatternRewriter<'_>,
    attr: Attr,
    shape: &[i64],
    elem: Type,
    loc: Location,
) -> Value {
    let c = constant_of(rw, attr, elem, loc);
    let init = empty(rw, shape, elem, loc);
    let op = create_named(rw, "linalg.fill", &[c], &[init], &[], loc);
    rw.result(op, 0)
}

/// The width of a signless integer type (`i1` included), if `ty` is one.
pub fn signless_width(ctx: &Context, ty: Type) -> Option<u32> {
    match ctx.type_data(ty) {
        TypeData::Integer {
            width,
            signedness: nart_ir::Signedness::Signless,
        } => Some(*width),
        _ => None,
    }
}

/// The width of a float type among `f16`, `bf16`, `f32` and `f64`.
pub fn float_width(ctx: &Context, ty: Type) -> Option<u32> {
    match ctx.type_data(ty) {
        TypeData::Float(FloatKind::F16 | FloatKind::BF16) => Some(16),
        TypeData::Float(FloatKind::F32) => Some(32),
        TypeData::Float(FloatKind::F64) => Some(64),
        _ => None,
    }
}

/// The smallest (`low`) or largest value of `ty` as an attribute: `-inf`/`+inf` for floats,
/// the signed extremes for signless integers.
pub fn extreme(rw: &mut PatternRewriter<'_>, ty: Type, low: bool) -> Option<Attr> {
    if is_float(rw, ty) {
        let v = if low {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        return Some(rw.uniq().float_attr(ty, v));
    }
    let w = signless_width(rw, ty)?;
    let half = 1i128 << (w - 1);
    Some(rw.uniq().int_attr(ty, if low { -half } else { half - 1 }))
}

/// The integer elements of `v` when a constant op (`graph.constant`, `arith.constant`) of an
/// integer element type defines it.
pub fn constant_ints(ctx: &Context, v: Value) -> Option<Vec<i64>> {
    let op = ctx.defining_op(v)?;
    if !matches!(ctx.op_name_str(op), "graph.constant" | "arith.constant") {
        return None;
    }
    nart_dialect_graph::infer::dense_ints(ctx, ctx.attr(op, "value")?)
}

/// The one value of a constant of a single element, integer, `f32` or `f64`, as `f64`.
pub fn constant_scalar(ctx: &Context, v: Value) -> Option<f64> {
    if let Some(f) = constant_f32(ctx, v) {
        return (f.len() == 1).then(|| f64::from(f[0]));
    }
    if ctx.type_data(ctx.element_type(ctx.value_type(v))) == &TypeData::Float(FloatKind::F64) {
        let op = ctx.defining_op(v)?;
        if !matches!(ctx.op_name_str(op), "graph.constant" | "arith.constant") {
            return None;
        }
        let f = nart_dialect_graph::infer::dense_floats(ctx, ctx.attr(op, "value")?)?;
        return (f.len() == 1).then(|| f[0]);
    }
    let i = constant_ints(ctx, v)?;
    (i.len() == 1).then(|| i[0] as f64)
}

/// `[[0, 1, ...]]`-style reassociation attribute.
fn reassociation(rw: &mut PatternRewriter<'_>, groups: &[Vec<i64>]) -> Attr {
    let i64t = rw.uniq().int_type(64);
    let items: Vec<Attr> = groups
        .iter()
        .map(|g| {
            let v: Vec<Attr> = g
                .iter()
                .map(|&i| rw.uniq().int_attr(i64t, i128::from(i)))
                .collect();
            rw.uniq().array_attr(v)
        })
        .collect();
    rw.uniq().array_attr(items)
}

/// Groups the dimensions of `big` into consecutive runs whose products are the dimensions of
/// `small`, if it can (unit dimensions join the group before them).
fn group_dims(big: &[i64], small: &[i64]) -> Option<Vec<Vec<i64>>> {
    if small.is_empty() {
        return big.iter().all(|&d| d == 1).then(Vec::new);
    }
    let mut groups: Vec<Vec<i64>> = Vec::new();
    let mut i = 0;
    for &s in small {
        let mut g = Vec::new();
        let mut prod = 1;
        while i < big.len() && (g.is_empty() || prod < s) {
            prod *= big[i];
            g.push(i as i64);
            i += 1;
        }
        if prod != s {
            return None;
        }
        // Unit dimensions after a group join it, unless the next group is a unit dimension.
        let k = groups.len() + 1;
        if small.get(k) != Some(&1) {
            while i < big.len() && big[i] == 1 && big.len() - i > small.len() - k {
                g.push(i as i64);
                i += 1;
            }
        }
        groups.push(g);
    }
    // Trailing unit dimensions join the last group.
    while i < big.len() && big[i] == 1 {
        groups.last_mut()?.push(i as i64);
        i += 1;
    }
    (i == big.len()).then_some(groups)
}

/// `x` reshaped to `shape` (same element count): one `tensor.collapse_shape` or
/// `tensor.expand_shape` when the dimensions group, else a collapse to 1-D then an expand.
pub fn reshape(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    shape: &[i64],
    loc: Location,
) -> Result<Value, String> {
    let (from, elem) = static_type(rw, x)?;
    if from.iter().product::<i64>() != shape.iter().product::<i64>() {
        return Err("the reshape changes the number of elements".to_string());
    }
    if from == shape {
        return Ok(x);
    }
    if shape.contains(&0) {
        // No elements: nothing to move (and no reassociation groups a zero dimension).
        return Ok(empty(rw, shape, elem, loc));
    }
    if from.is_empty() {
        // A scalar into ones: a copy through a broadcasting generic (an expand of a rank-0
        // tensor has no reassociation).
        return elementwise(rw, &[x], shape, elem, loc, |_, a| Ok(a[0]));
    }
    if shape.is_empty() {
        // Ones into a scalar: a generic reducing the unit dimensions (a collapse into a
        // rank-0 tensor has no reassociation either).
        let n = from.len() as u32;
        let init = empty(rw, &[], elem, loc);
        let r = try_generic(
            rw,
            &[x],
            &[init],
            vec![nart_dialect_linalg::structured::identity(n), map(n, vec![])],
            &vec![IteratorType::Reduction; from.len()],
            loc,
            |_, a| Ok(vec![a[0]]),
        )?;
        return Ok(r[0]);
    }
    let out_ty = rw.uniq().tensor_type(shape.to_vec(), elem);
    if shape.len() <= from.len() {
        if let Some(groups) = group_dims(&from, shape) {
            let r = reassociation(rw, &groups);
            let st = OperationState::new(rw.uniq(), "tensor.collapse_shape", loc)
                .operands(&[x])
                .results(&[out_ty])
                .prop(rw.uniq(), "reassociation", r);
            let op = rw.create(st);
            return Ok(rw.result(op, 0));
        }
    }
    if shape.len() >= from.len() {
        if let Some(groups) = group_dims(shape, &from) {
            let r = reassociation(rw, &groups);
            let out = nart_dialect_tensor::util::dense_i64(rw.uniq(), shape);
            let st = OperationState::new(rw.uniq(), "tensor.expand_shape", loc)
                .operands(&[x])
                .results(&[out_ty])
                .prop(rw.uniq(), "reassociation", r)
                .prop(rw.uniq(), "static_output_shape", out);
            let op = rw.create(st);
            return Ok(rw.result(op, 0));
        }
    }
    let n = from.iter().product::<i64>();
    let flat = reshape(rw, x, &[n], loc)?;
    reshape(rw, flat, shape, loc)
}

/// `x` padded by `low`/`high` per dimension with the constant `value` (`tensor.pad`).
pub fn pad(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    low: &[i64],
    high: &[i64],
    value: f64,
    loc: Location,
) -> Result<Value, String> {
    if low.iter().chain(high).all(|&p| p == 0) {
        return Ok(x);
    }
    if low.iter().chain(high).any(|&p| p < 0) {
        return Err("negative padding is not supported".to_string());
    }
    let (shape, elem) = static_type(rw, x)?;
    let out: Vec<i64> = (0..shape.len())
        .map(|i| shape[i] + low[i] + high[i])
        .collect();
    let out_ty = rw.uniq().tensor_type(out, elem);
    let ip = rw.insertion_point();
    let region = rw.create_region();
    let index = rw.uniq().index_type();
    rw.create_block(region, None, &vec![index; shape.len()], loc);
    let c = scalar(rw, value, elem, loc);
    let st = OperationState::new(rw.uniq(), "tensor.yield", loc).operands(&[c]);
    rw.create(st);
    rw.set_insertion_point(ip);
    let lo = nart_dialect_tensor::util::dense_i64(rw.uniq(), low);
    let hi = nart_dialect_tensor::util::dense_i64(rw.uniq(), high);
    let seg = nart_dialect_tensor::syntax::segment_sizes(rw.uniq(), &[1, 0, 0]);
    let st = OperationState::new(rw.uniq(), "tensor.pad", loc)
        .operands(&[x])
        .results(&[out_ty])
        .prop(rw.uniq(), "static_low", lo)
        .prop(rw.uniq(), "static_high", hi)
        .prop(rw.uniq(), "operandSegmentSizes", seg)
        .regions(&[region]);
    let op = rw.create(st);
    Ok(rw.result(op, 0))
}

/// The body [`build_parallel`] builds from the loop's induction variables.
pub type ParallelBody<'a> =
    dyn FnMut(&mut PatternRewriter<'_>, &[Value]) -> Result<(), String> + 'a;

/// `scf.parallel (ivs) = (lbs) to (ubs) step (steps)` without reductions at the insertion point,
/// its body built by `body` from the induction variables (the `scf.reduce` terminator is added
/// after it); the insertion point is left after the loop.
pub fn build_parallel(
    rw: &mut PatternRewriter<'_>,
    (lbs, ubs, steps): (&[Value], &[Value], &[Value]),
    loc: Location,
    body: &mut ParallelBody<'_>,
) -> Result<(), String> {
    let n = lbs.len();
    let outer = rw.insertion_point();
    let region = rw.create_region();
    let index = rw.uniq().index_type();
    let block = rw.create_block(region, None, &vec![index; n], loc);
    let ivs = rw.block_args(block).to_vec();
    body(rw, &ivs)?;
    let st = OperationState::new(rw.uniq(), "scf.reduce", loc);
    rw.create(st);
    rw.set_insertion_point(outer);
    let i32t = rw.uniq().i32_type();
    let seg = rw.uniq().intern_attr(nart_ir::AttrData::DenseArray {
        elem: i32t,
        data: nart_ir::DenseArrayData::Int(vec![n as i64, ubs.len() as i64, steps.len() as i64, 0]),
    });
    let operands: Vec<Value> = lbs.iter().chain(ubs).chain(steps).copied().collect();
    let st = OperationState::new(rw.uniq(), "scf.parallel", loc)
        .operands(&operands)
        .regions(&[region])
        .prop(rw.uniq(), "operandSegmentSizes", seg);
    rw.create(st);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::group_dims;

    #[test]
    fn dimensions_group_into_runs_with_unit_dimensions_joining_the_run_before() {
        let g = |big: &[i64], small: &[i64]| group_dims(big, small);
        assert_eq!(
            g(&[2, 3, 4, 5], &[2, 60]),
            Some(vec![vec![0], vec![1, 2, 3]])
        );
        assert_eq!(
            g(&[3, 1, 3, 3], &[3, 3, 3]),
            Some(vec![vec![0, 1], vec![2], vec![3]])
        );
        assert_eq!(g(&[1, 2, 60], &[2, 60]), Some(vec![vec![0, 1], vec![2]]));
        assert_eq!(
            g(&[2, 1, 3], &[2, 1, 3]),
            Some(vec![vec![0], vec![1], vec![2]])
        );
        assert_eq!(g(&[4, 1], &[4]), Some(vec![vec![0, 1]]));
        assert_eq!(g(&[1, 1], &[]), Some(vec![]));
        assert_eq!(g(&[2, 60], &[8, 15]), None);
        assert_eq!(g(&[6, 4], &[4, 6]), None);
    }
}
