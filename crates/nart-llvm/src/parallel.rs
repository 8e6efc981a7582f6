//! `scf.parallel` on threads: the body of an outermost `scf.parallel` without reductions
//! becomes a function of its own, which the runtime's thread pool runs on slices of the
//! iteration space.
//!
//! # The outlined body
//!
//! `void BODY(void *captures, int64_t begin, int64_t end)` runs the iterations `begin..end` of
//! the loop's iteration space linearized in row-major order (the last dimension fastest).
//! `captures` points to a struct of every value the body reads from outside the loop (its
//! bounds included; values that are LLVM constants are not captured but used directly). It
//! delinearizes `begin` once per row of the last dimension and runs that row as an ordinary
//! loop, which LLVM can vectorize as it would the sequential nest.
//!
//! # The runtime interface
//!
//! The module holds a pointer-sized global [`RUNTIME_GLOBAL`], null unless the code's caller
//! stores a pointer to a runtime interface in it (`nart-cpu-rt`'s entry does, from its
//! arguments). The interface is a C struct:
//!
//! ```c
//! struct nart_runtime_interface {
//!     uint64_t version; /* RUNTIME_INTERFACE_VERSION */
//!     void *ctx;
//!     void (*parallel_for)(void *ctx, void (*body)(void *, int64_t, int64_t),
//!                          void *captures, int64_t n, int64_t grain);
//! };
//! ```
//!
//! `parallel_for` must call `body` on disjoint slices `[begin, end)` that cover `[0, n)`, each
//! of at least `grain` iterations where it can, and return once all have finished. The loop
//! calls the body itself, on the whole space, when the global is null or when the space has
//! fewer than two grains: the grain is [`GRAIN_WORK`] divided by an estimate of the body's
//! cost per iteration (its ops, times the trip counts of constant-bound inner loops), so a
//! slice does enough work to pay for a thread's wake-up.
//!
//! The global is read and written with relaxed atomic accesses, so that several threads may
//! run the code at once with the same interface. An `scf.parallel` inside another one, or with
//! reductions, runs sequentially ([`crate::scf`]).

use std::collections::HashSet;

use inkwell::module::Linkage;
use inkwell::types::{BasicType, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValue, BasicValueEnum, IntValue};
use inkwell::{AddressSpace, AtomicOrdering, IntPredicate};
use nart_ir::{Context, Diagnostic, Op, Value, WalkOrder};

use crate::translate::{builder_err, FnTranslator, OpResult};

/// The name of the global through which the generated code finds the runtime interface.
pub const RUNTIME_GLOBAL: &str = "nart_parallel_runtime";
/// The version of the runtime interface's layout, its first field.
pub const RUNTIME_INTERFACE_VERSION: u64 = 1;
/// The estimated work (in IR ops) a slice handed to a thread should at least do.
pub const GRAIN_WORK: u64 = 32 * 1024;

/// Whether `op`, an `scf.parallel`, is outlined: it has no reductions and no `scf.parallel`
/// encloses it.
pub(crate) fn is_outlined(ir: &Context, op: Op) -> bool {
    if !ir.results(op).is_empty() {
        return false;
    }
    let mut cur = ir.op_parent_op(op);
    while let Some(p) = cur {
        if ir.op_name_str(p) == "scf.parallel" {
            return false;
        }
        cur = ir.op_parent_op(p);
    }
    true
}

/// The integer value of `v` when an `arith.constant` defines it.
fn constant_int(ir: &Context, v: Value) -> Option<i128> {
    let d = ir.defining_op(v)?;
    if ir.op_name_str(d) != "arith.constant" {
        return None;
    }
    ir.attr_int(ir.attr(d, "value")?)
}

/// The estimated cost, in ops, of running the blocks of `op`'s regions once; a loop counts its
/// body times its trip count (16 when the bounds are not constants).
pub(crate) fn region_cost(ir: &Context, op: Op) -> u64 {
    let mut total = 0u64;
    for &r in ir.regions(op) {
        for &b in ir.region_blocks(r) {
            for o in ir.block_ops_iter(b) {
                let inner = if ir.regions(o).is_empty() {
                    0
                } else {
                    region_cost(ir, o)
                };
                let trips = if ir.op_name_str(o) == "scf.for" {
                    let ops = ir.operands(o);
                    match (
                        constant_int(ir, ops[0]),
                        constant_int(ir, ops[1]),
                        constant_int(ir, ops[2]),
                    ) {
                        (Some(lb), Some(ub), Some(s)) if s > 0 => {
                            u64::try_from((ub - lb).max(0) / s).unwrap_or(u64::MAX)
                        }
                        _ => 16,
                    }
                } else {
                    1
                };
                total = total
                    .saturating_add(1)
                    .saturating_add(inner.saturating_mul(trips));
            }
        }
    }
    total
}

/// The grain of a loop whose body costs `cost` ops per iteration.
pub(crate) fn grain(cost: u64) -> u64 {
    (GRAIN_WORK / cost.max(1)).max(1)
}

/// The values `op`'s body (and `op` itself) reads that are defined outside of `op`, in the
/// order of their first use.
fn captured(ir: &Context, op: Op) -> Vec<Value> {
    let nested: Vec<Op> = ir.collect_ops(op, WalkOrder::PreOrder);
    let mut inside: HashSet<Value> = HashSet::new();
    for &o in &nested {
        if o != op {
            inside.extend(ir.results(o).iter().copied());
        }
        for &r in ir.regions(o) {
            for &b in ir.region_blocks(r) {
                inside.extend(ir.block_args(b).iter().copied());
            }
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for &o in &nested {
        for &v in ir.operands(o) {
            if !inside.contains(&v) && seen.insert(v) {
                out.push(v);
            }
        }
    }
    out
}

fn is_constant(v: BasicValueEnum<'_>) -> bool {
    match v {
        BasicValueEnum::IntValue(i) => i.is_const(),
        BasicValueEnum::FloatValue(f) => f.is_const(),
        BasicValueEnum::VectorValue(x) => x.is_const(),
        _ => false,
    }
}

/// The trip count of each dimension, `max(0, ceil((ub - lb) / step))`, at the builder.
fn trip_counts<'ll>(
    fx: &FnTranslator<'_, '_, 'll>,
    op: Op,
    n: usize,
) -> Result<Vec<IntValue<'ll>>, Diagnostic> {
    let e = builder_err(fx.m.ir, op);
    let b = &fx.builder;
    let mut out = Vec::with_capacity(n);
    for d in 0..n {
        let lb = fx.operand(op, d)?.into_int_value();
        let ub = fx.operand(op, n + d)?.into_int_value();
        let step = fx.operand(op, 2 * n + d)?.into_int_value();
        let one = step.get_type().const_int(1, false);
        let span = b.build_int_sub(ub, lb, "").map_err(e)?;
        let up = b.build_int_add(span, step, "").map_err(e)?;
        let up = b.build_int_sub(up, one, "").map_err(e)?;
        let q = b.build_int_signed_div(up, step, "").map_err(e)?;
        let empty = b
            .build_int_compare(IntPredicate::SLE, ub, lb, "")
            .map_err(e)?;
        let zero = step.get_type().const_zero();
        let c = b.build_select(empty, zero, q, "").map_err(e)?;
        out.push(c.into_int_value());
    }
    Ok(out)
}

/// Translates an outlined `scf.parallel` (see the module documentation).
pub(crate) fn lower(fx: &mut FnTranslator<'_, '_, '_>, op: Op) -> OpResult {
    let ir = fx.m.ir;
    let ll = fx.m.ll;
    let e = builder_err(ir, op);
    let n = ir
        .region_blocks(ir.region(op, 0))
        .first()
        .map(|&b| ir.block_args(b).len())
        .ok_or_else(|| ir.op_error(op, "has no body"))?;
    if ir.operands(op).len() != 3 * n {
        return Err(ir.op_error(op, "has malformed operand segments"));
    }
    let body_block = ir.region_blocks(ir.region(op, 0))[0];

    // What the body reads from outside: constants are used as they are, the rest is packed.
    let mut consts = Vec::new();
    let mut packed = Vec::new();
    for v in captured(ir, op) {
        let lv = fx.value(op, v)?;
        if is_constant(lv) {
            consts.push((v, lv));
        } else {
            packed.push((v, lv));
        }
    }
    let field_types: Vec<BasicTypeEnum> = packed.iter().map(|(_, lv)| lv.get_type()).collect();
    let cap_ty = ll.struct_type(&field_types, false);

    // The body function, next to its parent.
    let here = fx
        .builder
        .get_insert_block()
        .expect("the builder is positioned in a block");
    let parent = here.get_parent().expect("a block belongs to a function");
    let parent_name = parent.get_name().to_string_lossy().into_owned();
    let module = &fx.m.module;
    let name = (0..)
        .map(|k| format!("{parent_name}.parallel{k}"))
        .find(|n| module.get_function(n).is_none())
        .expect("some name is free");
    let ptr = ll.ptr_type(AddressSpace::default());
    let i64t = ll.i64_type();
    let body_ty = ll
        .void_type()
        .fn_type(&[ptr.into(), i64t.into(), i64t.into()], false);
    let body_fn = module.add_function(&name, body_ty, Some(Linkage::Internal));
    {
        let mut bx = FnTranslator::outlined(&mut *fx.m, ll.create_builder());
        let entry = ll.append_basic_block(body_fn, "");
        bx.builder.position_at_end(entry);
        let p = body_fn.get_nth_param(0).expect("three parameters");
        let begin = body_fn
            .get_nth_param(1)
            .expect("three parameters")
            .into_int_value();
        let end = body_fn
            .get_nth_param(2)
            .expect("three parameters")
            .into_int_value();
        let caps = bx
            .builder
            .build_load(cap_ty, p.into_pointer_value(), "captures")
            .map_err(e)?
            .into_struct_value();
        for (k, (v, _)) in packed.iter().enumerate() {
            let f = bx
                .builder
                .build_extract_value(caps, k as u32, "")
                .map_err(e)?;
            bx.bind(*v, f);
        }
        for (v, lv) in &consts {
            bx.bind(*v, *lv);
        }
        let counts = trip_counts(&bx, op, n)?;
        let b = &bx.builder;
        let outer_hdr = ll.append_basic_block(body_fn, "rows");
        let outer_body = ll.append_basic_block(body_fn, "row");
        let inner_hdr = ll.append_basic_block(body_fn, "cols");
        let inner_body = ll.append_basic_block(body_fn, "col");
        b.build_unconditional_branch(outer_hdr).map_err(e)?;

        // for (k = begin; k < end; k += run)
        b.position_at_end(outer_hdr);
        let k = b.build_phi(i64t, "k").map_err(e)?;
        k.add_incoming(&[(&begin as &dyn BasicValue, entry)]);
        let kv = k.as_basic_value().into_int_value();
        let more = b
            .build_int_compare(IntPredicate::ULT, kv, end, "")
            .map_err(e)?;
        let exit = ll.append_basic_block(body_fn, "done");
        b.build_conditional_branch(more, outer_body, exit)
            .map_err(e)?;

        // The position of k in the space; the rest of its row runs as one loop.
        b.position_at_end(outer_body);
        let mut idx = vec![i64t.const_zero(); n];
        let mut rem = kv;
        for d in (0..n).rev() {
            if d == 0 {
                idx[0] = rem;
            } else {
                idx[d] = b.build_int_unsigned_rem(rem, counts[d], "").map_err(e)?;
                rem = b.build_int_unsigned_div(rem, counts[d], "").map_err(e)?;
            }
        }
        let last = n - 1;
        let left = b.build_int_sub(end, kv, "").map_err(e)?;
        let row_left = b.build_int_sub(counts[last], idx[last], "").map_err(e)?;
        let shorter = b
            .build_int_compare(IntPredicate::ULT, left, row_left, "")
            .map_err(e)?;
        let run = b
            .build_select(shorter, left, row_left, "run")
            .map_err(e)?
            .into_int_value();
        let stop = b.build_int_add(idx[last], run, "").map_err(e)?;
        let mut ivs = Vec::with_capacity(n);
        for (d, &at) in idx[..last].iter().enumerate() {
            let lb = bx.operand(op, d)?.into_int_value();
            let step = bx.operand(op, 2 * n + d)?.into_int_value();
            let b = &bx.builder;
            let off = b.build_int_mul(at, step, "").map_err(e)?;
            ivs.push(b.build_int_add(lb, off, "").map_err(e)?);
        }
        let b = &bx.builder;
        b.build_unconditional_branch(inner_hdr).map_err(e)?;

        // for (j = idx[last]; j < stop; j++)
        b.position_at_end(inner_hdr);
        let j = b.build_phi(i64t, "j").map_err(e)?;
        j.add_incoming(&[(&idx[last] as &dyn BasicValue, outer_body)]);
        let jv = j.as_basic_value().into_int_value();
        let go = b
            .build_int_compare(IntPredicate::ULT, jv, stop, "")
            .map_err(e)?;
        let row_done = ll.append_basic_block(body_fn, "row_done");
        b.build_conditional_branch(go, inner_body, row_done)
            .map_err(e)?;
        b.position_at_end(inner_body);
        let lb = bx.operand(op, last)?.into_int_value();
        let step = bx.operand(op, 2 * n + last)?.into_int_value();
        let off = bx.builder.build_int_mul(jv, step, "").map_err(e)?;
        ivs.push(bx.builder.build_int_add(lb, off, "").map_err(e)?);
        for (a, iv) in ir.block_args(body_block).iter().zip(&ivs) {
            bx.bind(*a, iv.as_basic_value_enum());
        }
        // The terminator, `scf.reduce` without operands, does nothing.
        bx.lower_nested_block(body_block)?;
        let b = &bx.builder;
        let j_next = b
            .build_int_add(jv, i64t.const_int(1, false), "")
            .map_err(e)?;
        let latch = b.get_insert_block().expect("positioned");
        b.build_unconditional_branch(inner_hdr).map_err(e)?;
        j.add_incoming(&[(&j_next as &dyn BasicValue, latch)]);

        b.position_at_end(row_done);
        let k_next = b.build_int_add(kv, run, "").map_err(e)?;
        b.build_unconditional_branch(outer_hdr).map_err(e)?;
        k.add_incoming(&[(&k_next as &dyn BasicValue, row_done)]);

        b.position_at_end(exit);
        b.build_return(None).map_err(e)?;
    }

    // At the loop: pack the captures (in a slot of the function's entry block), then call the
    // runtime or the body.
    let slot = {
        let entry = parent
            .get_first_basic_block()
            .expect("the function has a block");
        let eb = ll.create_builder();
        match entry.get_first_instruction() {
            Some(i) => eb.position_before(&i),
            None => eb.position_at_end(entry),
        }
        eb.build_alloca(cap_ty, "captures").map_err(e)?
    };
    let b = &fx.builder;
    let mut agg = cap_ty.get_undef();
    for (k, (_, lv)) in packed.iter().enumerate() {
        agg = b
            .build_insert_value(agg, *lv, k as u32, "")
            .map_err(e)?
            .into_struct_value();
    }
    b.build_store(slot, agg).map_err(e)?;
    let counts = trip_counts(fx, op, n)?;
    let b = &fx.builder;
    let mut total = counts[0];
    for c in &counts[1..] {
        total = b.build_int_mul(total, *c, "").map_err(e)?;
    }
    let g = grain(region_cost(ir, op));
    let global = runtime_global(fx);
    let b = &fx.builder;
    let rt = b.build_load(ptr, global, "runtime").map_err(e)?;
    let load = rt.as_instruction_value().expect("a load is an instruction");
    load.set_alignment(8)
        .and_then(|()| load.set_atomic_ordering(AtomicOrdering::Monotonic))
        .map_err(|m| ir.op_error(op, format!("internal error: {m}")))?;
    let rt = rt.into_pointer_value();
    let no_rt = b.build_is_null(rt, "").map_err(e)?;
    let small = b
        .build_int_compare(
            IntPredicate::ULT,
            total,
            i64t.const_int(g.saturating_mul(2), false),
            "",
        )
        .map_err(e)?;
    let inline = b.build_or(no_rt, small, "").map_err(e)?;
    let dispatch_bb = ll.insert_basic_block_after(here, "dispatch");
    let inline_bb = ll.insert_basic_block_after(dispatch_bb, "inline");
    let cont = ll.insert_basic_block_after(inline_bb, "");
    b.build_conditional_branch(inline, inline_bb, dispatch_bb)
        .map_err(e)?;

    b.position_at_end(dispatch_bb);
    let iface_ty = ll.struct_type(&[i64t.into(), ptr.into(), ptr.into()], false);
    let ctx_slot = b.build_struct_gep(iface_ty, rt, 1, "").map_err(e)?;
    let rctx = b.build_load(ptr, ctx_slot, "").map_err(e)?;
    let fn_slot = b.build_struct_gep(iface_ty, rt, 2, "").map_err(e)?;
    let pf = b
        .build_load(ptr, fn_slot, "")
        .map_err(e)?
        .into_pointer_value();
    let pf_ty = ll.void_type().fn_type(
        &[ptr.into(), ptr.into(), ptr.into(), i64t.into(), i64t.into()],
        false,
    );
    let args: [BasicMetadataValueEnum; 5] = [
        rctx.into(),
        body_fn.as_global_value().as_pointer_value().into(),
        slot.into(),
        total.into(),
        i64t.const_int(g, false).into(),
    ];
    b.build_indirect_call(pf_ty, pf, &args, "").map_err(e)?;
    b.build_unconditional_branch(cont).map_err(e)?;

    b.position_at_end(inline_bb);
    b.build_call(
        body_fn,
        &[slot.into(), i64t.const_zero().into(), total.into()],
        "",
    )
    .map_err(e)?;
    b.build_unconditional_branch(cont).map_err(e)?;
    b.position_at_end(cont);
    Ok(())
}

/// The address of [`RUNTIME_GLOBAL`], declared (null) on first use.
fn runtime_global<'ll>(fx: &FnTranslator<'_, '_, 'll>) -> inkwell::values::PointerValue<'ll> {
    let module = &fx.m.module;
    if let Some(g) = module.get_global(RUNTIME_GLOBAL) {
        return g.as_pointer_value();
    }
    let ptr = fx.m.ll.ptr_type(AddressSpace::default());
    let g = module.add_global(ptr.as_basic_type_enum(), None, RUNTIME_GLOBAL);
    g.set_initializer(&ptr.const_null());
    g.set_alignment(8);
    g.set_linkage(Linkage::External);
    g.as_pointer_value()
}
