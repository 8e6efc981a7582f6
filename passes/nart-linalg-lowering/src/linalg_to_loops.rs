//! `convert-linalg-to-loops`: structured ops on memrefs become `scf.for` nests, one loop per
//! iterator (outermost first), whose innermost body loads every shaped operand at the index
//! its indexing map gives (`memref.load`), runs the op's body with `linalg.index` reading the
//! induction variables, and stores each yielded value into its init (`memref.store`)
//! (upstream's pass of the same name). One implementation serves every structured op: it
//! reads the op only through `StructuredOpInterface`, so named ops need no generalization
//! first.
//!
//! With `parallel=true` the leading iterators that are parallel (up to the first reduction)
//! become one `scf.parallel` instead of `scf.for`s, and the rest stay `scf.for` inside it: each
//! point of the parallel space writes its own elements of the inits (a parallel loop that some
//! init's indexing map does not read as a plain dimension ends the parallel part), and the reductions run
//! inside it in the same order as the sequential nest, so the results do not change. The
//! `cpu` target's pipeline asks for it; the default keeps upstream's sequential form.
//!
//! Index expressions become `arith` index arithmetic (`arith.muli`, `arith.addi`) where
//! upstream would write `affine.apply`, as nart has no affine dialect. Structured ops with a
//! tensor operand are legal here (they need bufferization first) and stay; an op on memrefs
//! that cannot be lowered (a dynamic loop range, a body op with regions, an index expression
//! with `mod` or division) is reported at its location and the conversion rolled back.

use nart_dialect_linalg::attrs::IteratorType;
use nart_dialect_linalg::structured::{is_tensor, static_loop_ranges, structured};
use nart_ir::{AffineExpr, Context, Location, Op, OperationState, PatternRewriter, Value};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::conversion::{
    apply_partial_conversion, ConversionPattern, ConversionPatternSet, ConversionRewriter,
    ConversionTarget, OpAdaptor,
};

use crate::emit::ar;

/// Whether `op` is a structured op on buffers (no tensor operand or result).
fn on_buffers(ctx: &Context, op: Op) -> bool {
    structured(ctx, op).is_some()
        && !ctx
            .operands(op)
            .iter()
            .chain(ctx.results(op))
            .any(|&v| is_tensor(ctx, ctx.value_type(v)))
}

/// `arith.constant n : index`.
fn index_const(rw: &mut PatternRewriter<'_>, n: i64, loc: Location) -> Value {
    let index = rw.uniq().index_type();
    let a = rw.uniq().int_attr(index, i128::from(n));
    let st = nart_dialect_arith::constant_state(rw.uniq(), a, index, loc);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// The value of `e` at the induction variables `ivs`, as index arithmetic.
fn index_value(
    rw: &mut PatternRewriter<'_>,
    e: &AffineExpr,
    ivs: &[Value],
    loc: Location,
) -> Result<Value, String> {
    let index = rw.uniq().index_type();
    Ok(match e {
        AffineExpr::Dim(i) => *ivs
            .get(*i as usize)
            .ok_or("an indexing map reads a loop that does not exist")?,
        AffineExpr::Const(c) => index_const(rw, *c, loc),
        AffineExpr::Add(a, b) => {
            let (x, y) = (index_value(rw, a, ivs, loc)?, index_value(rw, b, ivs, loc)?);
            ar(rw, "arith.addi", &[x, y], index, loc)
        }
        AffineExpr::Mul(a, b) => {
            let (x, y) = (index_value(rw, a, ivs, loc)?, index_value(rw, b, ivs, loc)?);
            ar(rw, "arith.muli", &[x, y], index, loc)
        }
        _ => return Err("indexing maps with symbols, mod or division are not lowered".to_string()),
    })
}

/// The innermost body: loads, the op's body, stores.
fn emit_body(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    ivs: &[Value],
    loc: Location,
) -> Result<(), String> {
    let s = structured(rw, op).ok_or("not a structured op")?;
    let maps = s.indexing_maps(rw, op)?;
    let n_in = s.num_inputs(rw, op);
    let operands = rw.operands(op).to_vec();
    let block = rw.region_blocks(rw.region(op, 0))[0];
    let args = rw.block_args(block).to_vec();
    let mut map = nart_ir::IrMapping::default();
    for (i, (&v, m)) in operands.iter().zip(&maps).enumerate() {
        // An operand the body does not read is not loaded (a `linalg.fill`'s init).
        if !rw.has_uses(args[i]) {
            continue;
        }
        let elem = if rw.shape_of(rw.value_type(v)).is_some() {
            let idx: Vec<Value> = m
                .results
                .iter()
                .map(|e| index_value(rw, e, ivs, loc))
                .collect::<Result<_, _>>()?;
            let mut ops = vec![v];
            ops.extend(idx);
            let ty = rw.element_type(rw.value_type(v));
            let st = OperationState::new(rw.uniq(), "memref.load", loc)
                .operands(&ops)
                .results(&[ty]);
            let l = rw.create(st);
            rw.result(l, 0)
        } else {
            v
        };
        map.values.insert(args[i], elem);
    }
    for bop in rw.block_ops(block) {
        match rw.op_name_str(bop) {
            "linalg.yield" => {
                let yielded: Vec<Value> = rw
                    .operands(bop)
                    .iter()
                    .map(|&v| map.lookup_value(v))
                    .collect();
                for (k, y) in yielded.into_iter().enumerate() {
                    let init = operands[n_in + k];
                    let idx: Vec<Value> = maps[n_in + k]
                        .results
                        .iter()
                        .map(|e| index_value(rw, e, ivs, loc))
                        .collect::<Result<_, _>>()?;
                    let mut ops = vec![y, init];
                    ops.extend(idx);
                    let st = OperationState::new(rw.uniq(), "memref.store", loc).operands(&ops);
                    rw.create(st);
                }
            }
            "linalg.index" => {
                let dim = rw
                    .attr(bop, "dim")
                    .and_then(|a| rw.attr_int(a))
                    .unwrap_or(0);
                let iv = *ivs
                    .get(dim as usize)
                    .ok_or("linalg.index reads a loop that does not exist")?;
                map.values.insert(rw.result(bop, 0), iv);
            }
            _ => {
                if !rw.regions(bop).is_empty() {
                    return Err("body ops with regions are not lowered".to_string());
                }
                let new = rw.clone_op(bop);
                let mapped: Vec<Value> = rw
                    .operands(bop)
                    .iter()
                    .map(|&v| map.lookup_value(v))
                    .collect();
                rw.set_operands(new, &mapped);
                for (&a, &b) in rw
                    .results(bop)
                    .to_vec()
                    .iter()
                    .zip(rw.results(new).to_vec().iter())
                {
                    map.values.insert(a, b);
                }
            }
        }
    }
    Ok(())
}

/// The bounds of the loop nest: the common lower bound and step, and each loop's upper bound;
/// the first `parallel` loops form one `scf.parallel`.
struct Bounds {
    lb: Value,
    step: Value,
    ubs: Vec<Value>,
    parallel: usize,
}

/// Builds the loops `depth..` inside the current insertion point, the body innermost.
fn emit_nest(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    b: &Bounds,
    ivs: &mut Vec<Value>,
    loc: Location,
) -> Result<(), String> {
    let depth = ivs.len();
    if depth == b.ubs.len() {
        return emit_body(rw, op, ivs, loc);
    }
    if depth == 0 && b.parallel > 0 {
        return emit_parallel(rw, op, b, ivs, loc);
    }
    let (lb, ub, step) = (b.lb, b.ubs[depth], b.step);
    let outer = rw.insertion_point();
    let region = rw.create_region();
    let index = rw.uniq().index_type();
    let block = rw.create_block(region, None, &[index], loc);
    ivs.push(rw.block_args(block)[0]);
    emit_nest(rw, op, b, ivs, loc)?;
    let st = OperationState::new(rw.uniq(), "scf.yield", loc);
    rw.create(st);
    rw.set_insertion_point(outer);
    let st = OperationState::new(rw.uniq(), "scf.for", loc)
        .operands(&[lb, ub, step])
        .regions(&[region]);
    rw.create(st);
    Ok(())
}

/// The `scf.parallel` over the first `b.parallel` loops, the rest of the nest in its body.
fn emit_parallel(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    b: &Bounds,
    ivs: &mut Vec<Value>,
    loc: Location,
) -> Result<(), String> {
    let n = b.parallel;
    let lbs = vec![b.lb; n];
    let steps = vec![b.step; n];
    crate::emit::build_parallel(rw, (&lbs, &b.ubs[..n], &steps), loc, &mut |rw, inner| {
        ivs.extend_from_slice(inner);
        emit_nest(rw, op, b, ivs, loc)
    })
}

/// Lowers any structured op on buffers to a loop nest.
struct LinalgOpToLoops {
    /// Whether the leading parallel iterators form an `scf.parallel`.
    parallel: bool,
}

impl ConversionPattern for LinalgOpToLoops {
    fn name(&self) -> &'static str {
        "LinalgOpToLoops"
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
        let Some(s) = structured(rw, op) else {
            return false;
        };
        let (maps, iters) = match (s.indexing_maps(rw, op), s.iterator_types(rw, op)) {
            (Ok(m), Ok(i)) => (m, i),
            (Err(e), _) | (_, Err(e)) => return rw.match_failure(e),
        };
        let ranges = static_loop_ranges(rw, op, &maps, iters.len());
        if ranges.iter().any(|&r| r < 0) {
            return rw.match_failure("a loop range is not static");
        }
        let loc = rw.op_loc(op);
        rw.set_insertion_point_before(op);
        // The bounds are defined once, before the nest, as upstream does.
        let lb = index_const(rw, 0, loc);
        let step = index_const(rw, 1, loc);
        let mut ubs = Vec::new();
        let mut seen: Vec<(i64, Value)> = Vec::new();
        for &r in &ranges {
            let v = match seen.iter().find(|(n, _)| *n == r) {
                Some(&(_, v)) => v,
                None if r == 0 => lb,
                None if r == 1 => step,
                None => {
                    let v = index_const(rw, r, loc);
                    seen.push((r, v));
                    v
                }
            };
            ubs.push(v);
        }
        // A parallel loop whose index some init does not use directly would have iterations
        // write the same element: the parallel part stops before it.
        let n_in = s.num_inputs(rw, op);
        let parallel = if self.parallel {
            iters
                .iter()
                .enumerate()
                .take_while(|&(d, &t)| {
                    t == IteratorType::Parallel
                        && maps[n_in..].iter().all(|m| {
                            m.results
                                .iter()
                                .any(|e| matches!(e, AffineExpr::Dim(k) if *k as usize == d))
                        })
                })
                .count()
        } else {
            0
        };
        let bounds = Bounds {
            lb,
            step,
            ubs,
            parallel,
        };
        match emit_nest(rw, op, &bounds, &mut Vec::new(), loc) {
            Ok(()) => {
                rw.erase_op(op);
                true
            }
            Err(e) => rw.match_failure(e),
        }
    }
}

nart_pass::pass_options! {
    /// The options of `convert-linalg-to-loops`.
    pub struct LinalgToLoopsOptions {
        /// Emit the leading parallel iterators as one scf.parallel (the rest stay scf.for inside it)
        #[name = "parallel"]
        pub parallel: bool = false,
    }
}

nart_pass::declare_pass! {
    /// The `convert-linalg-to-loops` pass.
    pub struct ConvertLinalgToLoopsPass {
        argument: "convert-linalg-to-loops",
        name: "ConvertLinalgToLoops",
        summary: "Convert the operations from the linalg dialect into loops",
        description: "Rewrites every structured op on memrefs (`linalg.generic` and the named \
            ops alike, read through their indexing maps and iterator types) into a nest of \
            `scf.for` loops, one per iterator, whose body loads the operands with \
            `memref.load`, runs the op's body, and stores the yielded values with \
            `memref.store`. Index expressions become `arith` index arithmetic. Ops on tensors \
            are left for bufferization. With `parallel=true`, the leading parallel iterators \
            form one `scf.parallel` around the other loops.",
        options: LinalgToLoopsOptions,
        statistics: [
            "LoweredOps" => "Number of structured ops lowered to loops",
        ],
    }
}

impl Pass for ConvertLinalgToLoopsPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let mut target = ConversionTarget::new();
        target.mark_unknown_ops_legal();
        target.add_dynamically_legal_dialect("linalg", |cx, op| !on_buffers(cx, op));
        let mut patterns = ConversionPatternSet::new();
        patterns.add(LinalgOpToLoops {
            parallel: self.opts.parallel,
        });
        match apply_partial_conversion(ctx, op, &target, &patterns, None) {
            Ok(res) => {
                state.add_stat("LoweredOps", res.num_pattern_applications() as u64);
                Ok(())
            }
            Err(e) => Err(PassFailure::with_diagnostics(e.diagnostics)),
        }
    }
}
