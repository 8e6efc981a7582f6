//! `graph-fold-constants`: evaluates every graph op whose operands are all constants with the
//! interpreter's reference kernel and replaces it by a `graph.constant`.
//!
//! The walk is in program order, so a folded result is a constant by the time its users are
//! reached and a whole constant subgraph collapses in one sweep. An op is folded only when it
//! is `Pure` (random ops such as `RandomNormal` are not), has no regions, has a tensor kernel,
//! and every result has a fully static type that the computed tensor matches exactly; results
//! above `max-elements` elements stay computed at run time, since folding them would trade a
//! small graph for a large file. A kernel that fails leaves the op as it is: the error will
//! show at run time, where it belongs.

use nart_ir::{Context, Op, PatternRewriter, Trait};
use nart_pass::{Pass, PassFailure, PassState};
use nart_tensor::Tensor;

use crate::util;

nart_pass::pass_options! {
    /// The options of `graph-fold-constants`.
    pub struct FoldConstantsOptions {
        /// Largest number of elements of a folded result; larger results are left to run time
        #[name = "max-elements"]
        pub max_elements: i64 = 1 << 20,
    }
}

nart_pass::declare_pass! {
    /// The `graph-fold-constants` pass.
    pub struct FoldConstantsPass {
        argument: "graph-fold-constants",
        name: "GraphFoldConstants",
        summary: "Evaluate graph ops whose operands are all constants with their reference kernels",
        description: "Walks the graph ops in program order; every pure op without regions whose \
            operands are all constants (or absent) and that has a reference kernel is evaluated \
            with the interpreter's kernel and replaced by a `graph.constant`, so whole constant \
            subgraphs collapse.\n\
            Random ops, ops with side effects, results with a dynamic type and results larger \
            than `max-elements` are left alone; so are ops whose kernel fails.\n\
            Constants left without users are erased.",
        options: FoldConstantsOptions,
        statistics: [
            "num-folded" => "Number of ops replaced by constants",
            "num-erased" => "Number of constants erased because nothing used them",
        ],
    }
}

impl Pass for FoldConstantsPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        util::ensure_kernels(ctx);
        let limit = usize::try_from(self.opts.max_elements).unwrap_or(0);
        let (folded, erased) = fold_constants(ctx, op, limit);
        state.add_stat("num-folded", folded as u64);
        state.add_stat("num-erased", erased as u64);
        Ok(())
    }
}

/// Folds every foldable op nested in `root`; returns how many ops were folded and how many
/// dead constants were erased.
pub fn fold_constants(ctx: &mut Context, root: Op, max_elements: usize) -> (usize, usize) {
    let mut folded = 0;
    for op in util::graph_ops(ctx, root) {
        if ctx.is_erased(op) {
            continue;
        }
        let Some(values) = evaluate(ctx, op, max_elements) else {
            continue;
        };
        let mut rw = PatternRewriter::new(ctx);
        rw.set_insertion_point_before(op);
        let loc = rw.op_loc(op);
        let results = rw.results(op).to_vec();
        let mut new_values = Vec::new();
        for (r, t) in results.iter().zip(&values) {
            let ty = rw.value_type(*r);
            match util::build_constant(&mut rw, t, ty, loc) {
                Some(v) => new_values.push(v),
                None => break,
            }
        }
        if new_values.len() != results.len() {
            // Undo the constants already built; `evaluate` checked the types, so this is
            // only reached for element types a dense attribute cannot hold.
            for v in new_values {
                if let Some(d) = rw.defining_op(v) {
                    rw.erase_op(d);
                }
            }
            continue;
        }
        rw.replace_op(op, &new_values);
        folded += 1;
    }
    // The constants that fed folded ops (and folded results nobody reads) are dead now.
    let mut erased = 0;
    loop {
        let mut changed = false;
        for op in ctx.nested_ops(root) {
            if ctx.is_erased(op)
                || !matches!(ctx.op_name_str(op), "graph.constant" | "graph.none")
                || !ctx.op_results_unused(op)
            {
                continue;
            }
            PatternRewriter::new(ctx).erase_op(op);
            erased += 1;
            changed = true;
        }
        if !changed {
            break;
        }
    }
    (folded, erased)
}

/// The results of `op` computed by its kernel, when `op` may be folded.
fn evaluate(ctx: &Context, op: Op, max_elements: usize) -> Option<Vec<Tensor>> {
    let name = ctx.op_name_str(op);
    if name == "graph.constant" || name == "graph.none" || !ctx.op_has_trait(op, Trait::Pure) {
        return None;
    }
    if ctx.results(op).is_empty() {
        return None;
    }
    // Every result must have a static type small enough to become a constant.
    for &r in ctx.results(op) {
        let shape = util::shape_of(ctx, r)?;
        let n: i64 = shape.iter().product();
        if usize::try_from(n).ok()? > max_elements {
            return None;
        }
    }
    let mut inputs: Vec<Option<Tensor>> = Vec::new();
    for &v in ctx.operands(op) {
        if util::is_none(ctx, v) {
            inputs.push(None);
            continue;
        }
        inputs.push(Some(util::const_tensor(ctx, v)?));
    }
    let refs: Vec<Option<&Tensor>> = inputs.iter().map(Option::as_ref).collect();
    let values = nart_tensor::with_max_bytes(max_elements.saturating_mul(16).max(1 << 26), || {
        nart_interp::eval_op(ctx, op, &refs)
    })?
    .ok()?;
    if values.len() != ctx.results(op).len() {
        return None;
    }
    for (t, &r) in values.iter().zip(ctx.results(op)) {
        if util::dtype_of(ctx, r) != Some(t.dtype()) {
            return None;
        }
        let shape = util::shape_of(ctx, r)?;
        if shape.len() != t.rank() || shape.iter().zip(t.shape()).any(|(&a, &b)| a as usize != b) {
            return None;
        }
    }
    Some(values)
}
