//! Bufferization: from tensors at the structured level to buffers (memrefs), then one arena
//! per function for the intermediate buffers, with offsets planned at compile time.
//!
//! `nart-bufferize` runs on a module, in three steps:
//! 1. [`convert`]: a dialect conversion (tensor types to memref types, with
//!    `bufferization.to_tensor`/`to_buffer` as the materializations) in destination-passing
//!    style: each structured op writes its result into its init's buffer, in place where
//!    [`convert::analyze`] proved nothing else reads that buffer, into a copy otherwise;
//!    tensor constants become private constant `memref.global`s; reshapes become
//!    `memref.reinterpret_cast`s; pads, slices and concatenations become copies into subviews.
//!    Every op it cannot convert is reported at its location, and the IR is left as it was.
//!    Then each `bufferization.to_buffer` of a `bufferization.to_tensor` of the same buffer
//!    type is that buffer (upstream's folder of `to_buffer`), which lets a lowering write
//!    loops on buffers inside a tensor function (`convert-nms-to-loops` does).
//! 2. [`out_params`]: a function's results become arguments the caller provides (upstream's
//!    `buffer-results-to-out-params`); a returned buffer the function allocated is replaced
//!    by the out-parameter itself, so the last op writes straight into the caller's memory.
//! 3. [`arena`]: with `arena=true`, every remaining allocation of static size becomes a
//!    `memref.view` into one scratch buffer, the function's last argument, at an offset
//!    planned from the buffers' lifetimes (greedy by size), so that a compiled model
//!    allocates nothing while it runs.

#![deny(missing_docs)]

pub mod arena;
pub mod convert;
pub mod out_params;

use std::collections::HashSet;
use std::sync::Arc;

use nart_ir::{Context, Op, WalkOrder};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::conversion::{apply_full_conversion, ConversionPatternSet, ConversionTarget};

/// Registers the pass.
pub fn register(registry: &mut nart_pass::PassRegistry) {
    registry.register(|| Box::new(BufferizePass::default()));
}

nart_pass::pass_options! {
    /// The options of `nart-bufferize`.
    pub struct BufferizeOptions {
        /// Place every static intermediate buffer in one scratch buffer passed as the last argument
        #[name = "arena"]
        pub arena: bool = false,
    }
}

nart_pass::declare_pass! {
    /// The `nart-bufferize` pass.
    pub struct BufferizePass {
        argument: "nart-bufferize",
        name: "NartBufferize",
        summary: "Turn tensors into buffers, results into out-parameters, and (with arena) intermediate buffers into views of one planned scratch buffer",
        description: "Converts every function of the module from tensors to memrefs in \
            destination-passing style: structured ops write into their init's buffer, in place \
            when nothing else reads it and into a copy otherwise; tensor constants become \
            private constant `memref.global`s; `tensor.empty` becomes `memref.alloc`; reshapes \
            become `memref.reinterpret_cast`; pads, slices and concatenations become copies \
            into subviews. Function results then become out-parameters. With `arena=true`, \
            every static `memref.alloc` becomes a `memref.view` of one scratch argument at an \
            offset planned from the buffers' lifetimes. Ops it cannot convert are reported, \
            each at its location, and the module is left unchanged.",
        options: BufferizeOptions,
        statistics: [
            "num-in-place" => "Number of ops writing into their init's buffer without a copy",
            "num-globals" => "Number of tensor constants turned into globals",
            "num-out-params" => "Number of function results turned into out-parameters",
            "num-arena-buffers" => "Number of buffers placed in the arena",
            "arena-bytes" => "Bytes of the largest arena",
        ],
    }
}

/// Whether `op` still has a tensor operand or result.
fn has_tensors(ctx: &Context, op: Op) -> bool {
    ctx.operands(op)
        .iter()
        .chain(ctx.results(op))
        .any(|&v| nart_dialect_linalg::structured::is_tensor(ctx, ctx.value_type(v)))
}

/// Runs step 1 (see the crate docs) on `module`.
pub fn bufferize(ctx: &mut Context, module: Op) -> Result<Arc<convert::Plan>, PassFailure> {
    let taken: HashSet<String> = ctx
        .collect_ops(module, WalkOrder::PreOrder)
        .into_iter()
        .filter_map(|op| {
            let a = ctx.attr(op, "sym_name")?;
            ctx.attr_str(a).map(str::to_string)
        })
        .collect();
    let plan = Arc::new(convert::analyze(ctx, module, &taken));
    let types = convert::type_converter();
    let mut target = ConversionTarget::new();
    target
        .add_legal_dialect("memref")
        .add_legal_dialect("bufferization")
        .add_illegal_dialect("tensor")
        .add_dynamically_legal_dialect("linalg", |cx, op| !has_tensors(cx, op))
        .mark_unknown_ops_dynamically_legal(|cx, op| cx.are_op_types_legal(op));
    nart_dialect_func::conversion::add_func_legality(&mut target);
    let mut patterns = ConversionPatternSet::new();
    patterns
        .add(convert::EmptyToAlloc)
        .add_boxed(Box::new(convert::StructuredOnBuffers {
            plan: plan.clone(),
        }))
        .add_boxed(Box::new(convert::ConstantToGlobal {
            plan: plan.clone(),
            module,
        }))
        .add(convert::ReshapeToCast)
        .add(convert::PadToCopy)
        .add(convert::ExtractSliceToCopy)
        .add_boxed(Box::new(convert::InsertSliceToCopy { plan: plan.clone() }))
        .add(convert::ConcatToCopies)
        .add(convert::ExtractToLoad);
    nart_dialect_func::conversion::add_func_type_conversion_patterns(&mut patterns);
    apply_full_conversion(ctx, module, &target, &patterns, Some(&types))
        .map_err(|e| PassFailure::with_diagnostics(e.diagnostics))?;
    convert::fold_cast_pairs(ctx, module);
    Ok(plan)
}

impl Pass for BufferizePass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let plan = bufferize(ctx, op)?;
        state.add_stat("num-in-place", plan.in_place.len() as u64);
        state.add_stat("num-globals", plan.globals.len() as u64);
        let funcs: Vec<Op> = ctx
            .collect_ops(op, WalkOrder::PreOrder)
            .into_iter()
            .filter(|&f| ctx.op_name_str(f) == "func.func")
            .collect();
        for &f in &funcs {
            let n = out_params::results_to_out_params(ctx, f)
                .map_err(|d| PassFailure::with_diagnostics(vec![d]))?;
            state.add_stat("num-out-params", n as u64);
        }
        if self.opts.arena {
            let mut largest = 0u64;
            for &f in &funcs {
                let (n, bytes) = arena::place_in_arena(ctx, f)
                    .map_err(|d| PassFailure::with_diagnostics(vec![d]))?;
                state.add_stat("num-arena-buffers", n as u64);
                largest = largest.max(bytes);
            }
            state.add_stat("arena-bytes", largest);
        }
        Ok(())
    }
}
