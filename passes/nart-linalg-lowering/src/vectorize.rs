//! `linalg-vectorize`: structured ops on memrefs of static shapes become `scf.for` loops over
//! 1-D `vector` ops, the innermost dimension of the output as the vector dimension.
//!
//! - A parallel op (every iterator `parallel`, e.g. the elementwise `linalg.generic`s of
//!   activations, bias adds and casts) loops over the outer dimensions; the innermost one goes
//!   `vector-width` elements at a time with `vector.transfer_read`/`transfer_write` (full
//!   vectors `in_bounds`, the last partial one masked). An operand whose map does not read the
//!   innermost loop is loaded once per vector and broadcast; the body is cloned with vector
//!   types wherever a value depends on the vector lanes.
//! - A matmul (`linalg.matmul`, or any structured op with its iterators and indexing maps)
//!   becomes a register-blocked micro-kernel: a block of `rows` rows by
//!   `cols` vectors of `C` is kept in `scf.for` iteration arguments across `k`, each step
//!   broadcasting one element of `A` per row and combining it with the vectors of row `k` of
//!   `B` through the op's own body (`arith.mulf` and `arith.addf`). Leftover columns use
//!   single vectors, then one masked vector; leftover rows use one-row blocks.
//! - Any other op with reduction loops (convolutions, poolings, batched matmuls, reductions over
//!   outer axes) whose outputs' innermost index is a parallel loop `p`, and whose inputs read
//!   `p` contiguously in their innermost index or not at all, keeps one accumulator vector per
//!   output in `scf.for` iteration arguments across its reduction loops (in their order). A
//!   parallel loop of the outputs that no vector read depends on (a convolution's output
//!   channel) is blocked by `rows`, so each vector read serves `rows` accumulators.
//!
//! Every element is computed by the same scalar operations in the same order as
//! `convert-linalg-to-loops` computes it (a reduction keeps its `k` order per element), so the
//! results are bit for bit the same. Ops it does not handle (dynamic shapes, strided or
//! transposed reads of the vector loop, indices that are not linear, bodies with regions, `linalg.index`, or
//! integer division, which the padding lanes of a masked vector could trap on) stay as they
//! are for `convert-linalg-to-loops`.

use nart_dialect_linalg::attrs::IteratorType;
use nart_dialect_linalg::structured::{is_tensor, static_loop_ranges, structured};
use nart_ir::{
    AffineExpr, AffineMap, AttrData, Block, Context, DenseArrayData, Location, Op, OperationState,
    PatternRewriter, Type, TypeData, Value,
};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::conversion::{
    apply_partial_conversion, ConversionPattern, ConversionPatternSet, ConversionRewriter,
    ConversionTarget, OpAdaptor,
};

nart_pass::pass_options! {
    /// The options of `linalg-vectorize`.
    pub struct VectorizeOptions {
        /// Lanes of a vector (16 for f32 on AVX-512, 8 on AVX2, 4 on SSE and NEON)
        #[name = "vector-width"]
        pub vector_width: i64 = 8,
        /// Rows of the matmul micro-kernel's accumulator block
        #[name = "rows"]
        pub rows: i64 = 4,
        /// Vectors per row of the matmul micro-kernel's accumulator block
        #[name = "cols"]
        pub cols: i64 = 2,
        /// Emit the loops around the vector code of each op as one scf.parallel
        #[name = "parallel"]
        pub parallel: bool = false,
    }
}

nart_pass::declare_pass! {
    /// The `linalg-vectorize` pass.
    pub struct LinalgVectorizePass {
        argument: "linalg-vectorize",
        name: "LinalgVectorize",
        summary: "Rewrite parallel structured ops and matmuls on static memrefs into loops over 1-D vector ops",
        description: "Rewrites structured ops on memrefs of static shapes into `scf.for` loops \
            over 1-D `vector` ops along the output's innermost dimension: parallel ops \
            (elementwise generics) with `vector.transfer_read`/`transfer_write`, masked for the \
            last partial vector, and `linalg.matmul` as a register-blocked micro-kernel whose \
            `rows` x `cols` accumulator vectors stay in `scf.for` iteration arguments across \
            the reduction; other ops with reduction loops (convolutions, poolings, \
            reductions) keep accumulator vectors along the outputs' innermost dimension across \
            their reduction loops, blocked by `rows` along a loop the vector reads do not \
            depend on. Each element is computed by the op's own body in the order \
            `convert-linalg-to-loops` uses, so results do not change. Ops it does not handle \
            are left for `convert-linalg-to-loops`.",
        options: VectorizeOptions,
        statistics: [
            "num-vectorized" => "Number of parallel structured ops vectorized",
            "num-matmuls" => "Number of matmuls rewritten into micro-kernels",
            "num-reductions" => "Number of ops with reduction loops (convolutions, poolings, reductions) vectorized along their outputs' innermost dimension",
        ],
    }
}

/// The shape of the rewrite: lanes per vector, and the matmul's block.
#[derive(Clone, Copy, Debug)]
struct Shape {
    vw: i64,
    rows: i64,
    cols: i64,
    /// Whether the loops around the vector code form one `scf.parallel`.
    par: bool,
}

/// A value of the vectorized body: the same in every lane (a scalar), or one per lane.
#[derive(Clone, Copy, Debug)]
enum Lanes {
    Uniform(Value),
    Vector(Value),
}

fn static_memref(ctx: &Context, v: Value) -> Option<(Vec<i64>, Type)> {
    match ctx.type_data(ctx.value_type(v)) {
        TypeData::MemRef { shape, elem, .. } if shape.iter().all(|&d| d >= 0) => {
            Some((shape.clone(), *elem))
        }
        _ => None,
    }
}

fn on_buffers(ctx: &Context, op: Op) -> bool {
    structured(ctx, op).is_some()
        && !ctx
            .operands(op)
            .iter()
            .chain(ctx.results(op))
            .any(|&v| is_tensor(ctx, ctx.value_type(v)))
}

/// Whether the body can be cloned lane-wise: `arith` and `math` ops without regions, no
/// `linalg.index`, no integer division or remainder (a masked vector's padding lanes hold 0).
fn body_is_lanewise(ctx: &Context, block: Block) -> Result<(), String> {
    for op in ctx.block_ops_iter(block) {
        let name = ctx.op_name_str(op);
        if name == "linalg.yield" {
            continue;
        }
        if !(name.starts_with("arith.") || name.starts_with("math.")) {
            return Err(format!("the body has '{name}'"));
        }
        if !ctx.regions(op).is_empty() {
            return Err("a body op has regions".into());
        }
        if matches!(
            name,
            "arith.divsi"
                | "arith.divui"
                | "arith.remsi"
                | "arith.remui"
                | "arith.ceildivsi"
                | "arith.ceildivui"
                | "arith.floordivsi"
        ) {
            return Err(format!("'{name}' could trap on padding lanes"));
        }
    }
    Ok(())
}

fn vector_type(rw: &mut PatternRewriter<'_>, elem: Type, n: i64) -> Type {
    rw.uniq().intern_type(TypeData::Vector {
        shape: vec![n],
        scalable: vec![false],
        elem,
    })
}

fn index_const(rw: &mut PatternRewriter<'_>, n: i64, loc: Location) -> Value {
    let index = rw.uniq().index_type();
    let a = rw.uniq().int_attr(index, i128::from(n));
    let st = nart_dialect_arith::constant_state(rw.uniq(), a, index, loc);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// The zero of a scalar type (the padding of masked reads).
fn zero(rw: &mut PatternRewriter<'_>, ty: Type, loc: Location) -> Value {
    let a = if matches!(rw.type_data(ty), TypeData::Float(_)) {
        rw.uniq().float_attr(ty, 0.0)
    } else {
        rw.uniq().int_attr(ty, 0)
    };
    let st = nart_dialect_arith::constant_state(rw.uniq(), a, ty, loc);
    let op = rw.create(st);
    rw.result(op, 0)
}

fn addi(rw: &mut PatternRewriter<'_>, a: Value, b: Value, loc: Location) -> Value {
    let index = rw.uniq().index_type();
    crate::emit::ar(rw, "arith.addi", &[a, b], index, loc)
}

/// The index `e` denotes at loop indices `ivs`: a loop index, a constant, or a sum of
/// products by constants of those (what [`coefficient`] accepts).
fn index_of(rw: &mut PatternRewriter<'_>, e: &AffineExpr, ivs: &[Value], loc: Location) -> Value {
    match e {
        AffineExpr::Dim(d) => ivs[*d as usize],
        AffineExpr::Const(c) => index_const(rw, *c, loc),
        AffineExpr::Add(a, b) => {
            let (x, y) = (index_of(rw, a, ivs, loc), index_of(rw, b, ivs, loc));
            addi(rw, x, y, loc)
        }
        AffineExpr::Mul(a, b) => {
            let (x, y) = (index_of(rw, a, ivs, loc), index_of(rw, b, ivs, loc));
            let index = rw.uniq().index_type();
            crate::emit::ar(rw, "arith.muli", &[x, y], index, loc)
        }
        _ => unreachable!("maps are checked to be linear before rewriting"),
    }
}

/// The coefficient of loop `d` in `e` when `e` is linear in the loops (sums, and products with
/// a constant factor); `None` for anything else (symbols, `mod`, divisions).
fn coefficient(e: &AffineExpr, d: u32) -> Option<i64> {
    match e {
        AffineExpr::Dim(x) => Some(i64::from(*x == d)),
        AffineExpr::Const(_) => Some(0),
        AffineExpr::Add(a, b) => Some(coefficient(a, d)? + coefficient(b, d)?),
        AffineExpr::Mul(a, b) => match (a.as_ref(), b.as_ref()) {
            (AffineExpr::Const(k), x) | (x, AffineExpr::Const(k)) => Some(k * coefficient(x, d)?),
            _ => None,
        },
        _ => None,
    }
}

fn load(rw: &mut PatternRewriter<'_>, mem: Value, idx: &[Value], loc: Location) -> Value {
    let elem = rw.element_type(rw.value_type(mem));
    let mut ops = vec![mem];
    ops.extend_from_slice(idx);
    let st = OperationState::new(rw.uniq(), "memref.load", loc)
        .operands(&ops)
        .results(&[elem]);
    let op = rw.create(st);
    rw.result(op, 0)
}

fn i32_array(rw: &mut PatternRewriter<'_>, v: &[i64]) -> nart_ir::Attr {
    let elem = rw.uniq().i32_type();
    rw.uniq().intern_attr(AttrData::DenseArray {
        elem,
        data: DenseArrayData::Int(v.to_vec()),
    })
}

/// The permutation map and `in_bounds` of a transfer along the innermost memref dimension.
fn transfer_props(
    rw: &mut PatternRewriter<'_>,
    rank: usize,
    in_bounds: bool,
) -> (nart_ir::Attr, nart_ir::Attr) {
    let map = rw.uniq().intern_attr(AttrData::AffineMap(AffineMap {
        num_dims: rank as u32,
        num_symbols: 0,
        results: vec![AffineExpr::Dim(rank as u32 - 1)],
    }));
    let b = rw.uniq().bool_attr(in_bounds);
    let ib = rw.uniq().array_attr(vec![b]);
    (map, ib)
}

/// `vector.transfer_read %mem[idx], 0` of `n` lanes along the innermost dimension.
fn read(
    rw: &mut PatternRewriter<'_>,
    mem: Value,
    idx: &[Value],
    n: i64,
    in_bounds: bool,
    loc: Location,
) -> Value {
    let elem = rw.element_type(rw.value_type(mem));
    let vt = vector_type(rw, elem, n);
    let pad = zero(rw, elem, loc);
    let (map, ib) = transfer_props(rw, idx.len(), in_bounds);
    let seg = i32_array(rw, &[1, idx.len() as i64, 1, 0]);
    let mut ops = vec![mem];
    ops.extend_from_slice(idx);
    ops.push(pad);
    let st = OperationState::new(rw.uniq(), "vector.transfer_read", loc)
        .operands(&ops)
        .results(&[vt])
        .prop(rw.uniq(), "in_bounds", ib)
        .prop(rw.uniq(), "operandSegmentSizes", seg)
        .prop(rw.uniq(), "permutation_map", map);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// `n` lanes of `mem` from `idx` on, `k` elements apart along the innermost dimension: a
/// `memref.subview` at `idx` of `lanes` elements with stride `k` there (the elements the
/// vector may touch), read by [`read`]. `mem` has strides (checked by the plan).
fn read_strided(
    rw: &mut PatternRewriter<'_>,
    mem: Value,
    idx: &[Value],
    (k, lanes): (i64, i64),
    n: i64,
    in_bounds: bool,
    loc: Location,
) -> Value {
    use nart_dialect_memref::layout::{strided_type, strides_and_offset};
    let ty = rw.value_type(mem);
    let (shape, mut strides, _) = strides_and_offset(rw, ty).unwrap_or_default();
    let elem = rw.element_type(ty);
    let last = shape.len() - 1;
    let mut sizes = shape.clone();
    sizes[last] = lanes;
    strides[last] *= k;
    let view_ty = strided_type(
        rw.uniq(),
        sizes.clone(),
        elem,
        strides,
        nart_ir::DYNAMIC,
        None,
    );
    let mut offsets = vec![0; shape.len()];
    offsets[last] = nart_ir::DYNAMIC;
    let mut steps = vec![1; shape.len()];
    steps[last] = k;
    let seg = i32_array(rw, &[1, 1, 0, 0]);
    let (o, s, t) = (
        nart_dialect_tensor::util::dense_i64(rw.uniq(), &offsets),
        nart_dialect_tensor::util::dense_i64(rw.uniq(), &sizes),
        nart_dialect_tensor::util::dense_i64(rw.uniq(), &steps),
    );
    let st = OperationState::new(rw.uniq(), "memref.subview", loc)
        .operands(&[mem, idx[last]])
        .results(&[view_ty])
        .prop(rw.uniq(), "operandSegmentSizes", seg)
        .prop(rw.uniq(), "static_offsets", o)
        .prop(rw.uniq(), "static_sizes", s)
        .prop(rw.uniq(), "static_strides", t);
    let op = rw.create(st);
    let view = rw.result(op, 0);
    let mut at = idx[..last].to_vec();
    at.push(index_const(rw, 0, loc));
    read(rw, view, &at, n, in_bounds, loc)
}

/// `vector.transfer_write %v, %mem[idx]` along the innermost dimension.
fn write(
    rw: &mut PatternRewriter<'_>,
    v: Value,
    mem: Value,
    idx: &[Value],
    in_bounds: bool,
    loc: Location,
) {
    let (map, ib) = transfer_props(rw, idx.len(), in_bounds);
    let seg = i32_array(rw, &[1, 1, idx.len() as i64, 0]);
    let mut ops = vec![v, mem];
    ops.extend_from_slice(idx);
    let st = OperationState::new(rw.uniq(), "vector.transfer_write", loc)
        .operands(&ops)
        .prop(rw.uniq(), "in_bounds", ib)
        .prop(rw.uniq(), "operandSegmentSizes", seg)
        .prop(rw.uniq(), "permutation_map", map);
    rw.create(st);
}

/// The value as a vector of `n` lanes (uniform values are broadcast).
fn as_vector(rw: &mut PatternRewriter<'_>, l: Lanes, n: i64, loc: Location) -> Value {
    match l {
        Lanes::Vector(v) => v,
        Lanes::Uniform(s) => {
            let t = rw.value_type(s);
            let vt = vector_type(rw, t, n);
            let st = OperationState::new(rw.uniq(), "vector.broadcast", loc)
                .operands(&[s])
                .results(&[vt]);
            let op = rw.create(st);
            rw.result(op, 0)
        }
    }
}

/// Clones the body of a structured op at the insertion point with `args` for its block
/// arguments: an op whose operands are all uniform stays scalar, the others become the same op
/// on `n`-lane vectors. Returns what the body yields.
fn clone_lanewise(
    rw: &mut PatternRewriter<'_>,
    block: Block,
    args: &[Lanes],
    n: i64,
    loc: Location,
) -> Vec<Lanes> {
    let mut map: std::collections::HashMap<Value, Lanes> = std::collections::HashMap::new();
    for (&a, &l) in rw.block_args(block).to_vec().iter().zip(args) {
        map.insert(a, l);
    }
    let lookup = |map: &std::collections::HashMap<Value, Lanes>, v: Value| {
        map.get(&v).copied().unwrap_or(Lanes::Uniform(v))
    };
    for bop in rw.block_ops(block) {
        let operands: Vec<Lanes> = rw.operands(bop).iter().map(|&v| lookup(&map, v)).collect();
        if rw.op_name_str(bop) == "linalg.yield" {
            return operands;
        }
        let results = rw.results(bop).to_vec();
        if operands.iter().all(|l| matches!(l, Lanes::Uniform(_))) {
            let new = rw.clone_op(bop);
            let vals: Vec<Value> = operands
                .iter()
                .map(|l| match l {
                    Lanes::Uniform(v) | Lanes::Vector(v) => *v,
                })
                .collect();
            rw.set_operands(new, &vals);
            for (i, &r) in results.iter().enumerate() {
                let nr = rw.result(new, i);
                map.insert(r, Lanes::Uniform(nr));
            }
        } else {
            let vals: Vec<Value> = operands.iter().map(|&l| as_vector(rw, l, n, loc)).collect();
            let types: Vec<Type> = results
                .iter()
                .map(|&r| {
                    let t = rw.value_type(r);
                    vector_type(rw, t, n)
                })
                .collect();
            let name = rw.op_name_str(bop).to_string();
            let bloc = rw.op_loc(bop);
            let mut st = OperationState::new(rw.uniq(), &name, bloc)
                .operands(&vals)
                .results(&types);
            st.props = rw.props(bop).to_vec();
            st.attrs = rw.attrs(bop).to_vec();
            let new = rw.create(st);
            for (i, &r) in results.iter().enumerate() {
                let nr = rw.result(new, i);
                map.insert(r, Lanes::Vector(nr));
            }
        }
    }
    Vec::new()
}

/// A loop body: given the induction variable and the iteration arguments, it builds the
/// body's ops and returns what to yield.
type LoopBody<'b> = dyn FnMut(&mut PatternRewriter<'_>, Value, &[Value]) -> Vec<Value> + 'b;

/// Builds `scf.for %iv = lb to ub step step iter_args(inits)` at the insertion point, its body
/// from `body` (given the induction variable and the iteration arguments, returning what to
/// yield), and returns the loop's results.
fn build_for(
    rw: &mut PatternRewriter<'_>,
    (lb, ub, step): (Value, Value, Value),
    inits: &[Value],
    loc: Location,
    body: &mut LoopBody<'_>,
) -> Vec<Value> {
    let outer = rw.insertion_point();
    let region = rw.create_region();
    let index = rw.uniq().index_type();
    let mut arg_types = vec![index];
    arg_types.extend(inits.iter().map(|&v| rw.value_type(v)));
    let block = rw.create_block(region, None, &arg_types, loc);
    let args = rw.block_args(block).to_vec();
    let yielded = body(rw, args[0], &args[1..]);
    let st = OperationState::new(rw.uniq(), "scf.yield", loc).operands(&yielded);
    rw.create(st);
    rw.set_insertion_point(outer);
    let mut ops = vec![lb, ub, step];
    ops.extend_from_slice(inits);
    let types: Vec<Type> = inits.iter().map(|&v| rw.value_type(v)).collect();
    let st = OperationState::new(rw.uniq(), "scf.for", loc)
        .operands(&ops)
        .results(&types)
        .regions(&[region]);
    let op = rw.create(st);
    rw.results(op).to_vec()
}

/// A loop from `from` to `to` (constants) by `step`, skipped when empty.
fn for_range(
    rw: &mut PatternRewriter<'_>,
    (from, to, step): (i64, i64, i64),
    loc: Location,
    body: &mut dyn FnMut(&mut PatternRewriter<'_>, Value),
) {
    if to <= from {
        return;
    }
    let lb = index_const(rw, from, loc);
    let ub = index_const(rw, to, loc);
    let st = index_const(rw, step, loc);
    build_for(rw, (lb, ub, st), &[], loc, &mut |rw, iv, _| {
        body(rw, iv);
        Vec::new()
    });
}

/// Loops over `bounds` (each `(from, to, step)`, outermost first), skipped when one is empty:
/// one `scf.parallel` over all of them when `par`, else nested `scf.for`s. `body` gets the
/// indices.
fn nest(
    rw: &mut PatternRewriter<'_>,
    bounds: &[(i64, i64, i64)],
    par: bool,
    loc: Location,
    body: &mut dyn FnMut(&mut PatternRewriter<'_>, &[Value]),
) {
    if bounds.iter().any(|&(from, to, _)| to <= from) {
        return;
    }
    if !par || bounds.is_empty() {
        return nested_for(rw, bounds, &mut Vec::new(), loc, body);
    }
    let mut consts = |k: usize| -> Vec<Value> {
        bounds
            .iter()
            .map(|b| index_const(rw, [b.0, b.1, b.2][k], loc))
            .collect()
    };
    let (lbs, ubs, steps) = (consts(0), consts(1), consts(2));
    let built = crate::emit::build_parallel(rw, (&lbs, &ubs, &steps), loc, &mut |rw, ivs| {
        body(rw, ivs);
        Ok(())
    });
    debug_assert!(built.is_ok(), "the body cannot fail");
}

/// [`nest`] as nested `scf.for`s.
fn nested_for(
    rw: &mut PatternRewriter<'_>,
    bounds: &[(i64, i64, i64)],
    ivs: &mut Vec<Value>,
    loc: Location,
    body: &mut dyn FnMut(&mut PatternRewriter<'_>, &[Value]),
) {
    let Some((&b, rest)) = bounds.split_first() else {
        return body(rw, ivs);
    };
    for_range(rw, b, loc, &mut |rw, iv| {
        ivs.push(iv);
        nested_for(rw, rest, ivs, loc, body);
        ivs.pop();
    });
}

/// How an operand of a parallel op is read: along the vector lanes, or one element for all.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Vector,
    Uniform,
    /// Along the vector lanes `k` elements apart (a strided convolution's input), read through
    /// a strided view.
    Strided(i64),
}

impl Access {
    fn per_lane(self) -> bool {
        matches!(self, Access::Vector | Access::Strided(_))
    }
}

/// Why a parallel op cannot be vectorized, or how each shaped operand is read.
fn parallel_plan(
    ctx: &Context,
    op: Op,
    vw: i64,
) -> Result<(Vec<i64>, Vec<Option<Access>>), String> {
    let s = structured(ctx, op).ok_or("not a structured op")?;
    let maps = s.indexing_maps(ctx, op)?;
    let iters = s.iterator_types(ctx, op)?;
    if iters.is_empty() || iters.iter().any(|i| *i != IteratorType::Parallel) {
        return Err("not every iterator is parallel".into());
    }
    let ranges = static_loop_ranges(ctx, op, &maps, iters.len());
    if ranges.iter().any(|&r| r < 0) {
        return Err("a loop range is not static".into());
    }
    let inner = iters.len() as u32 - 1;
    if ranges[inner as usize] < 2.min(vw) {
        return Err("the innermost loop is too short to vectorize".into());
    }
    let n_in = s.num_inputs(ctx, op);
    let block = ctx.region_blocks(ctx.region(op, 0))[0];
    body_is_lanewise(ctx, block)?;
    let mut plan = Vec::new();
    for (i, (&v, m)) in ctx.operands(op).iter().zip(&maps).enumerate() {
        if ctx.shape_of(ctx.value_type(v)).is_none() {
            if i >= n_in {
                return Err("an init is not shaped".into());
            }
            plan.push(None);
            continue;
        }
        static_memref(ctx, v).ok_or("an operand is not a static memref")?;
        if m.results
            .iter()
            .any(|e| !matches!(e, AffineExpr::Dim(_) | AffineExpr::Const(_)))
        {
            return Err("an indexing map is not a projection".into());
        }
        let pos = m.results.iter().position(|e| *e == AffineExpr::Dim(inner));
        let access = match pos {
            Some(p) if p + 1 == m.results.len() => Access::Vector,
            None if i < n_in => Access::Uniform,
            _ => return Err("an operand walks the innermost loop along an outer dimension".into()),
        };
        plan.push(Some(access));
    }
    Ok((ranges, plan))
}

/// What the rewrites read of a structured op: its maps, the number of inputs, its operands,
/// its body, which body arguments the body uses, and its location.
struct Parts {
    maps: Vec<AffineMap>,
    n_in: usize,
    operands: Vec<Value>,
    block: Block,
    used: Vec<bool>,
    loc: Location,
}

fn parts(rw: &PatternRewriter<'_>, op: Op) -> Result<Parts, String> {
    let s = structured(rw, op).ok_or("not a structured op")?;
    let block = rw.region_blocks(rw.region(op, 0))[0];
    Ok(Parts {
        maps: s.indexing_maps(rw, op)?,
        n_in: s.num_inputs(rw, op),
        operands: rw.operands(op).to_vec(),
        block,
        used: rw
            .block_args(block)
            .iter()
            .map(|&a| rw.has_uses(a))
            .collect(),
        loc: rw.op_loc(op),
    })
}

/// The indices `map` gives at loop indices `ivs`.
fn indices_of(
    rw: &mut PatternRewriter<'_>,
    map: &AffineMap,
    ivs: &[Value],
    loc: Location,
) -> Vec<Value> {
    map.results
        .iter()
        .map(|e| index_of(rw, e, ivs, loc))
        .collect()
}

/// Rewrites a parallel op (checked by [`parallel_plan`]).
fn rewrite_parallel(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    sh: Shape,
    ranges: &[i64],
    plan: &[Option<Access>],
) -> Result<(), String> {
    let Parts {
        maps,
        n_in,
        operands,
        block,
        used,
        loc,
    } = parts(rw, op)?;
    let inner = ranges.len() - 1;
    let n = ranges[inner];
    let vw = sh.vw;
    let full = n - n % vw;
    // One vector at innermost index `j`, the outer indices in `ivs`.
    let emit = |rw: &mut PatternRewriter<'_>, ivs: &[Value], j: Value, in_bounds: bool| {
        let mut all = ivs.to_vec();
        all.push(j);
        let mut args = Vec::new();
        for (i, &v) in operands.iter().enumerate() {
            let l = match plan[i] {
                _ if !used[i] => Lanes::Uniform(v),
                None => Lanes::Uniform(v),
                Some(acc) => {
                    let idx = indices_of(rw, &maps[i], &all, loc);
                    match acc {
                        Access::Uniform => Lanes::Uniform(load(rw, v, &idx, loc)),
                        // parallel_plan reads every other operand contiguously.
                        Access::Vector | Access::Strided(_) => {
                            Lanes::Vector(read(rw, v, &idx, vw, in_bounds, loc))
                        }
                    }
                }
            };
            args.push(l);
        }
        let out = clone_lanewise(rw, block, &args, vw, loc);
        for (k, l) in out.into_iter().enumerate() {
            let init = operands[n_in + k];
            let idx = indices_of(rw, &maps[n_in + k], &all, loc);
            let v = as_vector(rw, l, vw, loc);
            write(rw, v, init, &idx, in_bounds, loc);
        }
    };
    let mut vectors = |rw: &mut PatternRewriter<'_>, ivs: &[Value]| {
        for_range(rw, (0, full, vw), loc, &mut |rw, j| emit(rw, ivs, j, true));
        if full < n {
            let j = index_const(rw, full, loc);
            emit(rw, ivs, j, false);
        }
    };
    let bounds: Vec<(i64, i64, i64)> = ranges[..inner].iter().map(|&r| (0, r, 1)).collect();
    nest(rw, &bounds, sh.par, loc, &mut vectors);
    Ok(())
}

/// How a structured op with reductions is vectorized (see [`reduction_plan`]).
struct ReducePlan {
    ranges: Vec<i64>,
    iters: Vec<IteratorType>,
    /// The vector loop: the parallel loop of the outputs' innermost dimension.
    p: usize,
    /// The loop whose `rows` consecutive values share each vector read (a parallel loop of the
    /// outputs that no vector-read operand depends on), if any.
    q: Option<usize>,
    access: Vec<Option<Access>>,
}

/// Whether an op with reduction loops (a convolution, a pooling, a batched matmul, a
/// reduction over outer axes) can be vectorized along its outputs' innermost dimension `p`:
/// every output's last index is loop `p` itself, over the whole innermost dimension, no other
/// index of an output uses `p`; every input reads `p` with coefficient 1 in its last index only
/// (one contiguous vector per reduction step) or not at all (one element, broadcast); every
/// index is linear in the loops. Each element then takes its reduction steps in the order of
/// the loop nest, in registers, as `convert-linalg-to-loops` would take them in memory.
fn reduction_plan(ctx: &Context, op: Op, vw: i64) -> Result<ReducePlan, String> {
    let s = structured(ctx, op).ok_or("not a structured op")?;
    let maps = s.indexing_maps(ctx, op)?;
    let iters = s.iterator_types(ctx, op)?;
    if !iters.contains(&IteratorType::Reduction) {
        return Err("no reduction loop".into());
    }
    if iters
        .iter()
        .any(|i| !matches!(i, IteratorType::Parallel | IteratorType::Reduction))
    {
        return Err("an iterator is neither parallel nor a reduction".into());
    }
    let ranges = static_loop_ranges(ctx, op, &maps, iters.len());
    if ranges.iter().any(|&r| r < 0) {
        return Err("a loop range is not static".into());
    }
    let n_in = s.num_inputs(ctx, op);
    let operands = ctx.operands(op);
    if operands.len() <= n_in {
        return Err("no output".into());
    }
    let block = ctx.region_blocks(ctx.region(op, 0))[0];
    body_is_lanewise(ctx, block)?;
    let Some(AffineExpr::Dim(p)) = maps[n_in].results.last() else {
        return Err("the output's innermost index is not a loop".into());
    };
    let p = *p as usize;
    if iters[p] != IteratorType::Parallel {
        return Err("the output's innermost loop is not parallel".into());
    }
    if ranges[p] < 2.min(vw) {
        return Err("the output's innermost loop is too short to vectorize".into());
    }
    let mut access = Vec::new();
    for (i, (&v, m)) in operands.iter().zip(&maps).enumerate() {
        if ctx.shape_of(ctx.value_type(v)).is_none() {
            if i >= n_in {
                return Err("an init is not shaped".into());
            }
            access.push(None);
            continue;
        }
        let (shape, _) = static_memref(ctx, v).ok_or("an operand is not a static memref")?;
        let coefs = m
            .results
            .iter()
            .map(|e| coefficient(e, p as u32))
            .collect::<Option<Vec<i64>>>()
            .ok_or("an index is not linear in the loops")?;
        for e in &m.results {
            for d in 0..iters.len() as u32 {
                coefficient(e, d).ok_or("an index is not linear in the loops")?;
            }
        }
        let last = coefs.len().checked_sub(1).ok_or("a rank-0 operand")?;
        if i >= n_in {
            if m.results[last] != AffineExpr::Dim(p as u32)
                || shape[last] != ranges[p]
                || coefs[..last].iter().any(|&c| c != 0)
                || m.results.iter().any(|e| {
                    (0..iters.len() as u32).any(|d| {
                        iters[d as usize] == IteratorType::Reduction && coefficient(e, d) != Some(0)
                    })
                })
            {
                return Err("an output is not indexed by the vector loop alone innermost".into());
            }
            access.push(Some(Access::Vector));
        } else if coefs.iter().all(|&c| c == 0) {
            access.push(Some(Access::Uniform));
        } else if coefs[last] == 1 && coefs[..last].iter().all(|&c| c == 0) {
            access.push(Some(Access::Vector));
        } else if coefs[last] > 1
            && coefs[..last].iter().all(|&c| c == 0)
            && nart_dialect_memref::layout::strides_and_offset(ctx, ctx.value_type(v)).is_some()
        {
            access.push(Some(Access::Strided(coefs[last])));
        } else {
            return Err(
                "an input walks the vector loop backwards or along an outer dimension".into(),
            );
        }
    }
    // The row loop: a parallel loop of the first output that no vector read depends on; the
    // longest such loop.
    let q = maps[n_in]
        .results
        .iter()
        .filter_map(|e| match e {
            AffineExpr::Dim(d) if *d as usize != p => Some(*d as usize),
            _ => None,
        })
        .filter(|&d| ranges[d] >= 2 && iters[d] == IteratorType::Parallel)
        .filter(|&d| {
            maps.iter().zip(&access).take(n_in).all(|(m, a)| {
                !a.is_some_and(Access::per_lane)
                    || m.results
                        .iter()
                        .all(|e| coefficient(e, d as u32) == Some(0))
            })
        })
        .max_by_key(|&d| (ranges[d], std::cmp::Reverse(d)));
    Ok(ReducePlan {
        ranges,
        iters,
        p,
        q,
        access,
    })
}

/// Rewrites an op with reductions (checked by [`reduction_plan`]): loops over the other
/// parallel loops, the vector loop, then per block of `rows` values of the row loop one
/// accumulator vector per row and output, carried through the reduction loops.
fn rewrite_reduction(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    sh: Shape,
    plan: &ReducePlan,
) -> Result<(), String> {
    let Parts {
        maps,
        n_in,
        operands,
        block,
        used,
        loc,
    } = parts(rw, op)?;
    let vw = sh.vw;
    let n = plan.ranges[plan.p];
    let full = n - n % vw;
    let reductions: Vec<usize> = (0..plan.ranges.len())
        .filter(|&d| plan.iters[d] == IteratorType::Reduction)
        .collect();
    let outer: Vec<usize> = (0..plan.ranges.len())
        .filter(|&d| plan.iters[d] == IteratorType::Parallel && d != plan.p)
        .collect();
    let zero_idx = index_const(rw, 0, loc);
    // Indices of every loop at row `r` of the block; reduction loops filled in later.
    let row_ivs = |rw: &mut PatternRewriter<'_>, ivs: &[Value], r: i64| -> Vec<Value> {
        let mut all = ivs.to_vec();
        if let (Some(q), true) = (plan.q, r > 0) {
            let c = index_const(rw, r, loc);
            all[q] = addi(rw, ivs[q], c, loc);
        }
        all
    };
    let kernel = |rw: &mut PatternRewriter<'_>, ivs: &[Value], rows: i64, in_bounds: bool| {
        let rows_ivs: Vec<Vec<Value>> = (0..rows).map(|r| row_ivs(rw, ivs, r)).collect();
        let mut inits = Vec::new();
        for all in &rows_ivs {
            for k in n_in..operands.len() {
                let idx = indices_of(rw, &maps[k], all, loc);
                inits.push(read(rw, operands[k], &idx, vw, in_bounds, loc));
            }
        }
        let n_out = operands.len() - n_in;
        let accs = reduction_loops(
            rw,
            &reductions,
            &plan.ranges,
            &inits,
            &mut rows_ivs.clone(),
            loc,
            &mut |rw, rows_ivs, accs| {
                let mut next = Vec::new();
                // No vector read depends on the row loop: read each once for all rows.
                let mut vectors: Vec<Option<Value>> = vec![None; n_in];
                for (r, all) in rows_ivs.iter().enumerate() {
                    let mut args = Vec::new();
                    for (i, &v) in operands.iter().enumerate() {
                        let l = if i >= n_in {
                            Lanes::Vector(accs[r * n_out + i - n_in])
                        } else {
                            match plan.access[i] {
                                _ if !used[i] => Lanes::Uniform(v),
                                None => Lanes::Uniform(v),
                                Some(acc) => {
                                    let idx = indices_of(rw, &maps[i], all, loc);
                                    match (acc, vectors[i]) {
                                        (Access::Uniform, _) => {
                                            Lanes::Uniform(load(rw, v, &idx, loc))
                                        }
                                        (_, Some(x)) => Lanes::Vector(x),
                                        (Access::Vector, None) => {
                                            let x = read(rw, v, &idx, vw, in_bounds, loc);
                                            vectors[i] = Some(x);
                                            Lanes::Vector(x)
                                        }
                                        (Access::Strided(k), None) => {
                                            let lanes = if in_bounds { vw } else { n - full };
                                            let x = read_strided(
                                                rw,
                                                v,
                                                &idx,
                                                (k, lanes),
                                                vw,
                                                in_bounds,
                                                loc,
                                            );
                                            vectors[i] = Some(x);
                                            Lanes::Vector(x)
                                        }
                                    }
                                }
                            }
                        };
                        args.push(l);
                    }
                    let out = clone_lanewise(rw, block, &args, vw, loc);
                    next.extend(out.into_iter().map(|l| as_vector(rw, l, vw, loc)));
                }
                next
            },
        );
        for (r, all) in rows_ivs.iter().enumerate() {
            for k in n_in..operands.len() {
                let idx = indices_of(rw, &maps[k], all, loc);
                write(
                    rw,
                    accs[r * n_out + k - n_in],
                    operands[k],
                    &idx,
                    in_bounds,
                    loc,
                );
            }
        }
    };
    // The vector loop, full vectors then a masked one, inside the other parallel loops.
    let inner = |rw: &mut PatternRewriter<'_>, ivs: &[Value], rows: i64| {
        let mut ivs = ivs.to_vec();
        for_range(rw, (0, full, vw), loc, &mut |rw, j| {
            ivs[plan.p] = j;
            kernel(rw, &ivs, rows, true);
        });
        if full < n {
            ivs[plan.p] = index_const(rw, full, loc);
            kernel(rw, &ivs, rows, false);
        }
    };
    // The other parallel loops: the row loop by whole blocks of `rows`, then the rows left.
    let segments = match plan.q {
        Some(q) if sh.rows > 1 => {
            let r = plan.ranges[q];
            let q1 = r - r % sh.rows;
            vec![(q, 0, q1, sh.rows), (q, q1, r, 1)]
        }
        _ => vec![(usize::MAX, 0, 0, 1)],
    };
    for (q, from, to, rows) in segments {
        let bounds: Vec<(i64, i64, i64)> = outer
            .iter()
            .map(|&d| {
                if d == q {
                    (from, to, rows)
                } else {
                    (0, plan.ranges[d], 1)
                }
            })
            .collect();
        nest(rw, &bounds, sh.par, loc, &mut |rw, outer_ivs| {
            let mut ivs = vec![zero_idx; plan.ranges.len()];
            for (&d, &iv) in outer.iter().zip(outer_ivs) {
                ivs[d] = iv;
            }
            inner(rw, &ivs, rows)
        });
    }
    Ok(())
}

/// The reduction loops `dims` (outermost first) around `body`, which gets every row's indices
/// and the accumulators and returns the next accumulators; returns the final ones.
fn reduction_loops(
    rw: &mut PatternRewriter<'_>,
    dims: &[usize],
    ranges: &[i64],
    accs: &[Value],
    rows_ivs: &mut Vec<Vec<Value>>,
    loc: Location,
    body: &mut RowsBody<'_>,
) -> Vec<Value> {
    let Some((&d, rest)) = dims.split_first() else {
        return body(rw, rows_ivs, accs);
    };
    let lb = index_const(rw, 0, loc);
    let ub = index_const(rw, ranges[d], loc);
    let one = index_const(rw, 1, loc);
    build_for(rw, (lb, ub, one), accs, loc, &mut |rw, iv, accs| {
        for all in rows_ivs.iter_mut() {
            all[d] = iv;
        }
        reduction_loops(rw, rest, ranges, accs, rows_ivs, loc, body)
    })
}

/// Whether `op` is a matmul (`linalg.matmul`, or any structured op with its iterators and
/// maps) on static memrefs of one element type whose body can be cloned lane-wise; its
/// `(M, N, K)`.
fn matmul_plan(ctx: &Context, op: Op) -> Result<(i64, i64, i64), String> {
    let s = structured(ctx, op).ok_or("not a structured op")?;
    let matmul_iters = [
        IteratorType::Parallel,
        IteratorType::Parallel,
        IteratorType::Reduction,
    ];
    if s.num_inputs(ctx, op) != 2
        || s.iterator_types(ctx, op)? != matmul_iters
        || s.indexing_maps(ctx, op)? != nart_dialect_linalg::named::default_matmul_maps()
    {
        return Err("not a matmul: (m, n, k) with A(m, k), B(k, n), C(m, n)".into());
    }
    let ops = ctx.operands(op);
    if ops.len() != 3 {
        return Err("a matmul has three operands".into());
    }
    let (a, ta) = static_memref(ctx, ops[0]).ok_or("A is not a static memref")?;
    let (b, tb) = static_memref(ctx, ops[1]).ok_or("B is not a static memref")?;
    let (c, tc) = static_memref(ctx, ops[2]).ok_or("C is not a static memref")?;
    if ta != tc || tb != tc {
        return Err("the operands' element types differ".into());
    }
    let block = ctx.region_blocks(ctx.region(op, 0))[0];
    body_is_lanewise(ctx, block)?;
    Ok((c[0], c[1], a[1].min(b[0])))
}

/// Rewrites a matmul (checked by [`matmul_plan`]) into micro-kernels.
fn rewrite_matmul(rw: &mut PatternRewriter<'_>, op: Op, sh: Shape, (m, n, k): (i64, i64, i64)) {
    let ops = rw.operands(op).to_vec();
    let (a, b, c) = (ops[0], ops[1], ops[2]);
    let block = rw.region_blocks(rw.region(op, 0))[0];
    let loc = rw.op_loc(op);
    let vw = sh.vw;
    // One block of `rows` x `cols` vectors at (i, j).
    let kernel = |rw: &mut PatternRewriter<'_>,
                  i: Value,
                  j: Value,
                  rows: i64,
                  cols: i64,
                  in_bounds: bool| {
        let row_idx: Vec<Value> = (0..rows)
            .map(|r| {
                if r == 0 {
                    i
                } else {
                    let cr = index_const(rw, r, loc);
                    addi(rw, i, cr, loc)
                }
            })
            .collect();
        let col_idx: Vec<Value> = (0..cols)
            .map(|q| {
                if q == 0 {
                    j
                } else {
                    let cq = index_const(rw, q * vw, loc);
                    addi(rw, j, cq, loc)
                }
            })
            .collect();
        let mut inits = Vec::new();
        for &ir in &row_idx {
            for &jq in &col_idx {
                inits.push(read(rw, c, &[ir, jq], vw, in_bounds, loc));
            }
        }
        let lb = index_const(rw, 0, loc);
        let ub = index_const(rw, k, loc);
        let one = index_const(rw, 1, loc);
        let out = build_for(rw, (lb, ub, one), &inits, loc, &mut |rw, kk, accs| {
            let bv: Vec<Value> = col_idx
                .iter()
                .map(|&jq| read(rw, b, &[kk, jq], vw, in_bounds, loc))
                .collect();
            let mut next = Vec::new();
            for (r, &ir) in row_idx.iter().enumerate() {
                let x = load(rw, a, &[ir, kk], loc);
                for (q, &bq) in bv.iter().enumerate() {
                    let acc = accs[r * cols as usize + q];
                    let y = clone_lanewise(
                        rw,
                        block,
                        &[Lanes::Uniform(x), Lanes::Vector(bq), Lanes::Vector(acc)],
                        vw,
                        loc,
                    );
                    next.push(as_vector(rw, y[0], vw, loc));
                }
            }
            next
        });
        for (r, &ir) in row_idx.iter().enumerate() {
            for (q, &jq) in col_idx.iter().enumerate() {
                write(rw, out[r * cols as usize + q], c, &[ir, jq], in_bounds, loc);
            }
        }
    };
    // Blocks of `rows` rows, then single rows; in each, blocks of `cols` vectors, then single
    // vectors, then one masked vector.
    let wide = vw * sh.cols;
    let (n1, n2) = (n - n % wide, n - n % vw);
    let m1 = m - m % sh.rows;
    for (from, to, rows) in [(0, m1, sh.rows), (m1, m, 1)] {
        let r = (from, to, rows);
        nest(rw, &[r, (0, n1, wide)], sh.par, loc, &mut |rw, ij| {
            kernel(rw, ij[0], ij[1], rows, sh.cols, true)
        });
        nest(rw, &[r, (n1, n2, vw)], sh.par, loc, &mut |rw, ij| {
            kernel(rw, ij[0], ij[1], rows, 1, true)
        });
        if n2 < n {
            nest(rw, &[r], sh.par, loc, &mut |rw, i| {
                let j = index_const(rw, n2, loc);
                kernel(rw, i[0], j, rows, 1, false)
            });
        }
    }
}

/// Rewrites vectorizable structured ops on buffers.
struct Vectorize {
    shape: Shape,
}

impl ConversionPattern for Vectorize {
    fn name(&self) -> &'static str {
        "LinalgVectorize"
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        if !on_buffers(rw, op) {
            return rw.match_failure("not a structured op on buffers");
        }
        rw.set_insertion_point_before(op);
        let shape = Shape {
            vw: lanes(rw, op, self.shape.vw),
            ..self.shape
        };
        if let Ok(mnk) = matmul_plan(rw, op) {
            rewrite_matmul(rw, op, shape, mnk);
            rw.erase_op(op);
            return true;
        }
        if let Ok(plan) = reduction_plan(rw, op, shape.vw) {
            return match rewrite_reduction(rw, op, shape, &plan) {
                Ok(()) => {
                    rw.erase_op(op);
                    true
                }
                Err(e) => rw.match_failure(e),
            };
        }
        match parallel_plan(rw, op, shape.vw) {
            Ok((ranges, plan)) => match rewrite_parallel(rw, op, shape, &ranges, &plan) {
                Ok(()) => {
                    rw.erase_op(op);
                    true
                }
                Err(e) => rw.match_failure(e),
            },
            Err(e) => rw.match_failure(e),
        }
    }
}

/// The lanes of `op`'s vectors: `vector-width` counts 32-bit lanes (what fills the machine's
/// registers), so an op on `f64` buffers takes half as many, at least one, for vectors as wide
/// in bits. (Integer ops keep `vector-width` lanes whatever their width.)
fn lanes(ctx: &Context, op: Op, vw: i64) -> i64 {
    let f64_buffers = ctx.operands(op).iter().any(|&v| {
        static_memref(ctx, v)
            .is_some_and(|(_, e)| ctx.type_data(e) == &TypeData::Float(nart_ir::FloatKind::F64))
    });
    if f64_buffers {
        (vw / 2).max(1)
    } else {
        vw
    }
}

/// Whether the pattern would rewrite `op` (what stays illegal for the conversion).
fn vectorizable(ctx: &Context, op: Op, vw: i64) -> bool {
    let vw = lanes(ctx, op, vw);
    on_buffers(ctx, op)
        && (matmul_plan(ctx, op).is_ok()
            || reduction_plan(ctx, op, vw).is_ok()
            || parallel_plan(ctx, op, vw).is_ok())
}

impl Pass for LinalgVectorizePass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let o = &self.opts;
        if o.vector_width < 1 || o.rows < 1 || o.cols < 1 {
            return Err(PassFailure::with_diagnostics(vec![ctx.op_error(
                op,
                "linalg-vectorize: vector-width, rows and cols must be at least 1",
            )]));
        }
        let shape = Shape {
            vw: o.vector_width,
            rows: o.rows,
            cols: o.cols,
            par: o.parallel,
        };
        let candidates: Vec<Op> = ctx
            .collect_ops(op, nart_ir::WalkOrder::PreOrder)
            .into_iter()
            .filter(|&o| vectorizable(ctx, o, shape.vw))
            .collect();
        let matmuls = candidates
            .iter()
            .filter(|&&o| matmul_plan(ctx, o).is_ok())
            .count();
        let reductions = candidates
            .iter()
            .filter(|&&o| matmul_plan(ctx, o).is_err() && reduction_plan(ctx, o, shape.vw).is_ok())
            .count();
        let mut target = ConversionTarget::new();
        target.mark_unknown_ops_legal();
        let vw = shape.vw;
        target.add_dynamically_legal_dialect("linalg", move |cx, o| !vectorizable(cx, o, vw));
        let mut patterns = ConversionPatternSet::new();
        patterns.add(Vectorize { shape });
        match apply_partial_conversion(ctx, op, &target, &patterns, None) {
            Ok(_) => {
                state.add_stat("num-matmuls", matmuls as u64);
                state.add_stat("num-reductions", reductions as u64);
                state.add_stat(
                    "num-vectorized",
                    (candidates.len() - matmuls - reductions) as u64,
                );
                Ok(())
            }
            Err(e) => Err(PassFailure::with_diagnostics(e.diagnostics)),
        }
    }
}

/// The body of the nested row loops: the rows' induction variables and the accumulators in,
/// the new accumulators out.
type RowsBody<'a> = dyn FnMut(&mut PatternRewriter<'_>, &[Vec<Value>], &[Value]) -> Vec<Value> + 'a;
