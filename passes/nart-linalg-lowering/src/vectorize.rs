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
//!
//! Every element is computed by the same scalar operations in the same order as
//! `convert-linalg-to-loops` computes it (a reduction keeps its `k` order per element), so the
//! results are bit for bit the same. Ops it does not handle (dynamic shapes, reductions other
//! than the matmul's, maps other than projections, bodies with regions, `linalg.index`, or
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
            the reduction. Each element is computed by the op's own body in the order \
            `convert-linalg-to-loops` uses, so results do not change. Ops it does not handle \
            are left for `convert-linalg-to-loops`.",
        options: VectorizeOptions,
        statistics: [
            "num-vectorized" => "Number of parallel structured ops vectorized",
            "num-matmuls" => "Number of matmuls rewritten into micro-kernels",
        ],
    }
}

/// The shape of the rewrite: lanes per vector, and the matmul's block.
#[derive(Clone, Copy, Debug)]
struct Shape {
    vw: i64,
    rows: i64,
    cols: i64,
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

/// The index `e` denotes at loop indices `ivs`: a loop index or a constant.
fn index_of(rw: &mut PatternRewriter<'_>, e: &AffineExpr, ivs: &[Value], loc: Location) -> Value {
    match e {
        AffineExpr::Dim(d) => ivs[*d as usize],
        AffineExpr::Const(c) => index_const(rw, *c, loc),
        _ => unreachable!("maps are checked to be projections before rewriting"),
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

/// How an operand of a parallel op is read: along the vector lanes, or one element for all.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Vector,
    Uniform,
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

/// Rewrites a parallel op (checked by [`parallel_plan`]).
fn rewrite_parallel(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    vw: i64,
    ranges: &[i64],
    plan: &[Option<Access>],
) -> Result<(), String> {
    let s = structured(rw, op).ok_or("not a structured op")?;
    let maps = s.indexing_maps(rw, op)?;
    let n_in = s.num_inputs(rw, op);
    let operands = rw.operands(op).to_vec();
    let block = rw.region_blocks(rw.region(op, 0))[0];
    let used: Vec<bool> = rw
        .block_args(block)
        .iter()
        .map(|&a| rw.has_uses(a))
        .collect();
    let loc = rw.op_loc(op);
    let inner = ranges.len() - 1;
    let n = ranges[inner];
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
                    let idx: Vec<Value> = maps[i]
                        .results
                        .iter()
                        .map(|e| index_of(rw, e, &all, loc))
                        .collect();
                    match acc {
                        Access::Vector => Lanes::Vector(read(rw, v, &idx, vw, in_bounds, loc)),
                        Access::Uniform => Lanes::Uniform(load(rw, v, &idx, loc)),
                    }
                }
            };
            args.push(l);
        }
        let out = clone_lanewise(rw, block, &args, vw, loc);
        for (k, l) in out.into_iter().enumerate() {
            let init = operands[n_in + k];
            let idx: Vec<Value> = maps[n_in + k]
                .results
                .iter()
                .map(|e| index_of(rw, e, &all, loc))
                .collect();
            let v = as_vector(rw, l, vw, loc);
            write(rw, v, init, &idx, in_bounds, loc);
        }
    };
    let mut nest = |rw: &mut PatternRewriter<'_>, ivs: &[Value]| {
        for_range(rw, (0, full, vw), loc, &mut |rw, j| emit(rw, ivs, j, true));
        if full < n {
            let j = index_const(rw, full, loc);
            emit(rw, ivs, j, false);
        }
    };
    outer_loops(rw, &ranges[..inner], &mut Vec::new(), loc, &mut nest);
    Ok(())
}

/// Loops over `ranges` (outermost first), then `inner` with their indices.
fn outer_loops(
    rw: &mut PatternRewriter<'_>,
    ranges: &[i64],
    ivs: &mut Vec<Value>,
    loc: Location,
    inner: &mut dyn FnMut(&mut PatternRewriter<'_>, &[Value]),
) {
    let Some((&r, rest)) = ranges.split_first() else {
        inner(rw, ivs);
        return;
    };
    for_range(rw, (0, r, 1), loc, &mut |rw, iv| {
        ivs.push(iv);
        outer_loops(rw, rest, ivs, loc, inner);
        ivs.pop();
    });
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
    // The columns of a block of `rows` rows at `i`: blocks of `cols` vectors, then single
    // vectors, then one masked vector.
    let columns = |rw: &mut PatternRewriter<'_>, i: Value, rows: i64| {
        let wide = vw * sh.cols;
        let n1 = n - n % wide;
        let n2 = n - n % vw;
        for_range(rw, (0, n1, wide), loc, &mut |rw, j| {
            kernel(rw, i, j, rows, sh.cols, true)
        });
        for_range(rw, (n1, n2, vw), loc, &mut |rw, j| {
            kernel(rw, i, j, rows, 1, true)
        });
        if n2 < n {
            let j = index_const(rw, n2, loc);
            kernel(rw, i, j, rows, 1, false);
        }
    };
    let m1 = m - m % sh.rows;
    for_range(rw, (0, m1, sh.rows), loc, &mut |rw, i| {
        columns(rw, i, sh.rows)
    });
    for_range(rw, (m1, m, 1), loc, &mut |rw, i| columns(rw, i, 1));
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
        if let Ok(mnk) = matmul_plan(rw, op) {
            rewrite_matmul(rw, op, self.shape, mnk);
            rw.erase_op(op);
            return true;
        }
        match parallel_plan(rw, op, self.shape.vw) {
            Ok((ranges, plan)) => match rewrite_parallel(rw, op, self.shape.vw, &ranges, &plan) {
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

/// Whether the pattern would rewrite `op` (what stays illegal for the conversion).
fn vectorizable(ctx: &Context, op: Op, vw: i64) -> bool {
    on_buffers(ctx, op) && (matmul_plan(ctx, op).is_ok() || parallel_plan(ctx, op, vw).is_ok())
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
        let mut target = ConversionTarget::new();
        target.mark_unknown_ops_legal();
        let vw = shape.vw;
        target.add_dynamically_legal_dialect("linalg", move |cx, o| !vectorizable(cx, o, vw));
        let mut patterns = ConversionPatternSet::new();
        patterns.add(Vectorize { shape });
        match apply_partial_conversion(ctx, op, &target, &patterns, None) {
            Ok(_) => {
                state.add_stat("num-matmuls", matmuls as u64);
                state.add_stat("num-vectorized", (candidates.len() - matmuls) as u64);
                Ok(())
            }
            Err(e) => Err(PassFailure::with_diagnostics(e.diagnostics)),
        }
    }
}
