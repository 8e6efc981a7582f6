//! The named structured ops as data: for each, how its indexing maps and iterator types follow
//! from its operands and attributes, and the body it computes (a Rust function that fills the
//! op's block). The parser and the builders call the body function, so a named op always
//! carries its body region, as upstream's do; `linalg-generalize-named-ops` copies maps,
//! iterator types and body into a `linalg.generic`.

use nart_ir::{
    AffineExpr, AffineMap, Block, Context, Location, Op, OpBuilder, OperationState, Type, TypeData,
    Value,
};

use crate::attrs::{i64_elements, IteratorType};
use crate::structured::{add, d, identity, map, mul_const, shape, StructuredOpInterface};
use nart_dialect_tensor::util::dense_prop;

use IteratorType::{Parallel as P, Reduction as R};

/// Maps of a named op.
pub type MapsFn = fn(&Context, Op) -> Result<Vec<AffineMap>, String>;
/// Iterator types of a named op.
pub type ItersFn = fn(&Context, Op) -> Result<Vec<IteratorType>, String>;
/// Number of inputs of a named op.
pub type InputsFn = fn(&Context, Op) -> usize;
/// Fills the body block (whose arguments exist, and at whose end the builder inserts) of a
/// named op and ends it with `linalg.yield`.
pub type BodyFn = fn(&mut dyn OpBuilder, Block, Location);

/// A named op's structure.
pub struct Named {
    /// Its maps.
    pub maps: MapsFn,
    /// Its iterator types.
    pub iters: ItersFn,
    /// How many of its operands are inputs.
    pub inputs: InputsFn,
}

impl StructuredOpInterface for Named {
    fn num_inputs(&self, ctx: &Context, op: Op) -> usize {
        (self.inputs)(ctx, op)
    }
    fn indexing_maps(&self, ctx: &Context, op: Op) -> Result<Vec<AffineMap>, String> {
        (self.maps)(ctx, op)
    }
    fn iterator_types(&self, ctx: &Context, op: Op) -> Result<Vec<IteratorType>, String> {
        (self.iters)(ctx, op)
    }
}

/// The inputs of an op sized by `operandSegmentSizes` (its first segment).
pub fn segment_inputs(ctx: &Context, op: Op) -> usize {
    let seg = dense_prop(ctx, op, "operandSegmentSizes");
    seg.first().map_or(0, |&n| n as usize)
}

/// One input.
pub fn one_input(_: &Context, _: Op) -> usize {
    1
}

/// All operands but the last.
pub fn all_but_last(ctx: &Context, op: Op) -> usize {
    ctx.operands(op).len().saturating_sub(1)
}

/// Half of the operands (`linalg.reduce`: as many inits as inputs).
pub fn half(ctx: &Context, op: Op) -> usize {
    ctx.operands(op).len() / 2
}

fn rank_of(ctx: &Context, v: Value) -> u32 {
    shape(ctx, ctx.value_type(v)).map_or(0, |s| s.len() as u32)
}

fn last_rank(ctx: &Context, op: Op) -> Result<u32, String> {
    let v = *ctx.operands(op).last().ok_or("expected an init operand")?;
    Ok(rank_of(ctx, v))
}

/// `linalg.fill`: `() ` for the scalar, the identity for the init.
pub fn fill_maps(ctx: &Context, op: Op) -> Result<Vec<AffineMap>, String> {
    let n = last_rank(ctx, op)?;
    Ok(vec![map(n, vec![]), identity(n)])
}

/// Every loop parallel, one per dimension of the last operand.
pub fn all_parallel(ctx: &Context, op: Op) -> Result<Vec<IteratorType>, String> {
    Ok(vec![P; last_rank(ctx, op)? as usize])
}

/// Identity maps for every operand (`copy`, `map`).
pub fn identity_maps(ctx: &Context, op: Op) -> Result<Vec<AffineMap>, String> {
    let n = last_rank(ctx, op)?;
    Ok(vec![identity(n); ctx.operands(op).len()])
}

/// `linalg.matmul`: `(m, n, k)`; `A(m, k) B(k, n) C(m, n)`, or the maps the op holds.
pub fn matmul_maps(ctx: &Context, op: Op) -> Result<Vec<AffineMap>, String> {
    if let Some(m) = ctx
        .attr(op, "indexing_maps")
        .and_then(|a| crate::structured::maps_of(ctx, a))
    {
        return Ok(m);
    }
    Ok(default_matmul_maps())
}

/// The maps of a plain `linalg.matmul`.
pub fn default_matmul_maps() -> Vec<AffineMap> {
    vec![
        map(3, vec![d(0), d(2)]),
        map(3, vec![d(2), d(1)]),
        map(3, vec![d(0), d(1)]),
    ]
}

/// `(m, n, k)`: parallel, parallel, reduction.
pub fn matmul_iters(_: &Context, _: Op) -> Result<Vec<IteratorType>, String> {
    Ok(vec![P, P, R])
}

/// `linalg.batch_matmul`: `(b, m, n, k)`; `A(b, m, k) B(b, k, n) C(b, m, n)`.
pub fn batch_matmul_maps(ctx: &Context, op: Op) -> Result<Vec<AffineMap>, String> {
    if let Some(m) = ctx
        .attr(op, "indexing_maps")
        .and_then(|a| crate::structured::maps_of(ctx, a))
    {
        return Ok(m);
    }
    Ok(default_batch_matmul_maps())
}

/// The maps of a plain `linalg.batch_matmul`.
pub fn default_batch_matmul_maps() -> Vec<AffineMap> {
    vec![
        map(4, vec![d(0), d(1), d(3)]),
        map(4, vec![d(0), d(3), d(2)]),
        map(4, vec![d(0), d(1), d(2)]),
    ]
}

/// `(b, m, n, k)`.
pub fn batch_matmul_iters(_: &Context, _: Op) -> Result<Vec<IteratorType>, String> {
    Ok(vec![P, P, P, R])
}

/// Strides and dilations of a convolution or pooling op (1 when absent).
fn window(ctx: &Context, op: Op) -> Result<([i64; 2], [i64; 2]), String> {
    window_of(ctx, |name| ctx.attr(op, name))
}

/// Strides and dilations from the attributes `attr` gives by name.
fn window_of(
    ctx: &Context,
    attr: impl Fn(&str) -> Option<nart_ir::Attr>,
) -> Result<([i64; 2], [i64; 2]), String> {
    let get = |name: &str| -> Result<[i64; 2], String> {
        match attr(name) {
            None => Ok([1, 1]),
            Some(a) => match i64_elements(ctx, a).as_deref() {
                Some(&[a, b]) if a > 0 && b > 0 => Ok([a, b]),
                _ => Err(format!("expected {name} to be two positive i64 values")),
            },
        }
    };
    Ok((get("strides")?, get("dilations")?))
}

/// `o * stride + k * dilation`.
fn win(o: u32, k: u32, s: i64, dl: i64) -> AffineExpr {
    add(mul_const(d(o), s), mul_const(d(k), dl))
}

/// The name of the discardable attribute in which upstream memoizes the indexing maps of the
/// convolution and pooling ops; nart sets it where upstream would, so both print the same
/// generic form.
pub const MEMOIZED_MAPS: &str = "linalg.memoized_indexing_maps";

/// The maps upstream memoizes for window op `name` with these attributes, or `None` for an op
/// that memoizes none.
pub fn memoized_maps(
    ctx: &Context,
    name: &str,
    attr: impl Fn(&str) -> Option<nart_ir::Attr>,
) -> Option<Vec<AffineMap>> {
    let (s, dl) = window_of(ctx, attr).ok()?;
    Some(match name {
        "linalg.conv_2d_nchw_fchw" => conv_maps_of(s, dl),
        "linalg.depthwise_conv_2d_nchw_chw" => depthwise_maps_of(s, dl),
        "linalg.pooling_nchw_max" | "linalg.pooling_nchw_sum" => pooling_maps_of(s, dl),
        _ => return None,
    })
}

/// `linalg.conv_2d_nchw_fchw`: `(n, f, oh, ow, c, kh, kw)`.
pub fn conv_maps(ctx: &Context, op: Op) -> Result<Vec<AffineMap>, String> {
    let (s, dl) = window(ctx, op)?;
    Ok(conv_maps_of(s, dl))
}

fn conv_maps_of(s: [i64; 2], dl: [i64; 2]) -> Vec<AffineMap> {
    vec![
        map(
            7,
            vec![d(0), d(4), win(2, 5, s[0], dl[0]), win(3, 6, s[1], dl[1])],
        ),
        map(7, vec![d(1), d(4), d(5), d(6)]),
        map(7, vec![d(0), d(1), d(2), d(3)]),
    ]
}

/// Four parallel loops, then three reductions.
pub fn conv_iters(_: &Context, _: Op) -> Result<Vec<IteratorType>, String> {
    Ok(vec![P, P, P, P, R, R, R])
}

/// `linalg.depthwise_conv_2d_nchw_chw`: `(n, oh, ow, c, kh, kw)`.
pub fn depthwise_maps(ctx: &Context, op: Op) -> Result<Vec<AffineMap>, String> {
    let (s, dl) = window(ctx, op)?;
    Ok(depthwise_maps_of(s, dl))
}

fn depthwise_maps_of(s: [i64; 2], dl: [i64; 2]) -> Vec<AffineMap> {
    vec![
        map(
            6,
            vec![d(0), d(3), win(1, 4, s[0], dl[0]), win(2, 5, s[1], dl[1])],
        ),
        map(6, vec![d(3), d(4), d(5)]),
        map(6, vec![d(0), d(3), d(1), d(2)]),
    ]
}

/// Four parallel loops, then two reductions.
pub fn window_iters(_: &Context, _: Op) -> Result<Vec<IteratorType>, String> {
    Ok(vec![P, P, P, P, R, R])
}

/// `linalg.pooling_nchw_*`: `(n, c, oh, ow, kh, kw)`; the second input only gives the window.
pub fn pooling_maps(ctx: &Context, op: Op) -> Result<Vec<AffineMap>, String> {
    let (s, dl) = window(ctx, op)?;
    Ok(pooling_maps_of(s, dl))
}

fn pooling_maps_of(s: [i64; 2], dl: [i64; 2]) -> Vec<AffineMap> {
    vec![
        map(
            6,
            vec![d(0), d(1), win(2, 4, s[0], dl[0]), win(3, 5, s[1], dl[1])],
        ),
        map(6, vec![d(4), d(5)]),
        map(6, vec![d(0), d(1), d(2), d(3)]),
    ]
}

/// `linalg.transpose`: the init is indexed by the loops; input dimension `permutation[i]` by
/// loop `i`.
pub fn transpose_maps(ctx: &Context, op: Op) -> Result<Vec<AffineMap>, String> {
    let perm = dense_prop(ctx, op, "permutation");
    let n = perm.len() as u32;
    let mut input = vec![AffineExpr::Const(0); perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        let slot = input
            .get_mut(usize::try_from(p).map_err(|_| "permutation is not valid")?)
            .ok_or("permutation is not valid")?;
        *slot = d(i as u32);
    }
    let mut seen = perm.clone();
    seen.sort_unstable();
    if seen != (0..n as i64).collect::<Vec<_>>() {
        return Err("permutation is not valid".to_string());
    }
    Ok(vec![map(n, input), identity(n)])
}

/// `linalg.broadcast`: the input is indexed by the loops not listed in `dimensions`.
pub fn broadcast_maps(ctx: &Context, op: Op) -> Result<Vec<AffineMap>, String> {
    let dims = dense_prop(ctx, op, "dimensions");
    let n = last_rank(ctx, op)?;
    let input = (0..n)
        .filter(|&i| !dims.contains(&(i as i64)))
        .map(d)
        .collect();
    Ok(vec![map(n, input), identity(n)])
}

/// `linalg.reduce`: loops over the input; inits indexed by the loops not in `dimensions`.
pub fn reduce_maps(ctx: &Context, op: Op) -> Result<Vec<AffineMap>, String> {
    let dims = dense_prop(ctx, op, "dimensions");
    let n_in = half(ctx, op);
    let first = *ctx.operands(op).first().ok_or("expected an input")?;
    let n = rank_of(ctx, first);
    let init = map(
        n,
        (0..n)
            .filter(|&i| !dims.contains(&(i as i64)))
            .map(d)
            .collect(),
    );
    let mut maps = vec![identity(n); n_in];
    maps.extend(std::iter::repeat_n(init, ctx.operands(op).len() - n_in));
    Ok(maps)
}

/// `linalg.reduce`: the loops in `dimensions` reduce.
pub fn reduce_iters(ctx: &Context, op: Op) -> Result<Vec<IteratorType>, String> {
    let dims = dense_prop(ctx, op, "dimensions");
    let first = *ctx.operands(op).first().ok_or("expected an input")?;
    let n = rank_of(ctx, first);
    Ok((0..n)
        .map(|i| if dims.contains(&(i as i64)) { R } else { P })
        .collect())
}

// ----- bodies -----

fn is_float(ctx: &Context, t: Type) -> bool {
    matches!(ctx.type_data(t), TypeData::Float(_))
}

fn arith(b: &mut dyn OpBuilder, name: &str, operands: &[Value], ty: Type, loc: Location) -> Value {
    let st = nart_dialect_arith::op_state(b.uniq(), name, operands, &[ty], loc);
    let op = b.create(st);
    b.result(op, 0)
}

/// Converts `v` to `ty` as upstream's `cast_signed` does: float widening or narrowing,
/// signed integer extension or truncation, signed integer to float.
pub fn cast_to(b: &mut dyn OpBuilder, v: Value, ty: Type, loc: Location) -> Value {
    let from = b.value_type(v);
    if from == ty {
        return v;
    }
    let width = |ctx: &Context, t: Type| match ctx.type_data(t) {
        TypeData::Integer { width, .. } => *width,
        TypeData::Float(k) => k.width(),
        _ => 64,
    };
    let (wf, wt) = (width(b, from), width(b, ty));
    let name = match (is_float(b, from), is_float(b, ty)) {
        (true, true) if wf < wt => "arith.extf",
        (true, true) => "arith.truncf",
        (false, true) => "arith.sitofp",
        (true, false) => "arith.fptosi",
        (false, false) if wf < wt => "arith.extsi",
        (false, false) => "arith.trunci",
    };
    arith(b, name, &[v], ty, loc)
}

/// Ends the block being filled with `linalg.yield values`.
pub fn yield_values(b: &mut dyn OpBuilder, values: &[Value], loc: Location) {
    let st = OperationState::new(b.uniq(), "linalg.yield", loc).operands(values);
    b.create(st);
}

fn args(ctx: &Context, block: Block) -> Vec<Value> {
    ctx.block_args(block).to_vec()
}

/// `yield in` (cast to the init's type): `fill`, `copy`, `transpose`, `broadcast`.
pub fn body_copy(b: &mut dyn OpBuilder, block: Block, loc: Location) {
    let a = args(b, block);
    // A wrong number of operands leaves the body empty, for the verifier to report.
    if a.len() != 2 {
        return;
    }
    let out_ty = b.value_type(a[a.len() - 1]);
    let v = cast_to(b, a[0], out_ty, loc);
    yield_values(b, &[v], loc);
}

/// `out + a * b` (cast to the init's type): matmuls and convolutions.
pub fn body_mul_add(b: &mut dyn OpBuilder, block: Block, loc: Location) {
    let a = args(b, block);
    if a.len() != 3 {
        return;
    }
    let out_ty = b.value_type(a[2]);
    let x = cast_to(b, a[0], out_ty, loc);
    let y = cast_to(b, a[1], out_ty, loc);
    let f = is_float(b, out_ty);
    let m = arith(
        b,
        if f { "arith.mulf" } else { "arith.muli" },
        &[x, y],
        out_ty,
        loc,
    );
    let s = arith(
        b,
        if f { "arith.addf" } else { "arith.addi" },
        &[a[2], m],
        out_ty,
        loc,
    );
    yield_values(b, &[s], loc);
}

/// `max(out, in)`: max pooling.
pub fn body_max(b: &mut dyn OpBuilder, block: Block, loc: Location) {
    let a = args(b, block);
    if a.len() != 3 {
        return;
    }
    let out_ty = b.value_type(a[2]);
    let x = cast_to(b, a[0], out_ty, loc);
    let name = if is_float(b, out_ty) {
        "arith.maximumf"
    } else {
        "arith.maxsi"
    };
    let m = arith(b, name, &[a[2], x], out_ty, loc);
    yield_values(b, &[m], loc);
}

/// `out + in`: sum pooling.
pub fn body_sum(b: &mut dyn OpBuilder, block: Block, loc: Location) {
    let a = args(b, block);
    if a.len() != 3 {
        return;
    }
    let out_ty = b.value_type(a[2]);
    let x = cast_to(b, a[0], out_ty, loc);
    let name = if is_float(b, out_ty) {
        "arith.addf"
    } else {
        "arith.addi"
    };
    let m = arith(b, name, &[a[2], x], out_ty, loc);
    yield_values(b, &[m], loc);
}
