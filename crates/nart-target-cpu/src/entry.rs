//! The entry of `nart-cpu-rt`'s calling convention: `void nart_entry(void **args)`, which
//! unpacks `args` (one pointer per input and output to its memref descriptor, then the raw
//! scratch pointer, then the runtime interface pointer) and calls the C-interface wrapper of
//! the lowered function with the scratch buffer as a `memref<Nxi8>` descriptor. When the code
//! has parallel loops, the entry first stores the interface pointer (null: run on the calling
//! thread) in the module's `nart_llvm::RUNTIME_GLOBAL`, with a relaxed atomic store, so that
//! calls from several threads with the same interface do not race.

use nart_llvm::inkwell::context::Context as LlContext;
use nart_llvm::inkwell::module::{Linkage, Module};
use nart_llvm::inkwell::values::BasicMetadataValueEnum;
use nart_llvm::inkwell::{AddressSpace, AtomicOrdering};

use crate::Lowered;

pub(crate) fn add_entry<'ll>(
    ll: &'ll LlContext,
    module: &Module<'ll>,
    func: &str,
    entry: &str,
    lowered: &Lowered,
) -> Result<(), String> {
    let ciface = format!("{}{func}", nart_llvm::CIFACE_PREFIX);
    let callee = module
        .get_function(&ciface)
        .ok_or_else(|| format!("the generated code has no '{ciface}'"))?;
    let ptr = ll.ptr_type(AddressSpace::default());
    let i64t = ll.i64_type();
    let fty = ll.void_type().fn_type(&[ptr.into()], false);
    let f = module.add_function(entry, fty, Some(Linkage::External));
    let b = ll.create_builder();
    let bb = ll.append_basic_block(f, "");
    b.position_at_end(bb);
    let err = |e: nart_llvm::inkwell::builder::BuilderError| format!("building the entry: {e}");
    let args = f
        .get_nth_param(0)
        .ok_or("the entry has no parameter")?
        .into_pointer_value();
    let n = lowered.inputs.len() + lowered.outputs.len();
    let mut call_args: Vec<BasicMetadataValueEnum> = Vec::with_capacity(n + 1);
    for i in 0..=n {
        // SAFETY (of the GEP): `args` has n + 1 slots by the convention.
        let slot =
            unsafe { b.build_in_bounds_gep(ptr, args, &[i64t.const_int(i as u64, false)], "") }
                .map_err(err)?;
        let p = b.build_load(ptr, slot, "").map_err(err)?;
        if i < n {
            call_args.push(p.into());
        } else {
            // The scratch pointer becomes a descriptor {p, p, 0, [N], [1]} on the stack.
            let arr = i64t.array_type(1);
            let desc_ty = ll.struct_type(
                &[ptr.into(), ptr.into(), i64t.into(), arr.into(), arr.into()],
                false,
            );
            let d = b.build_alloca(desc_ty, "scratch").map_err(err)?;
            let size = i64t.const_array(&[i64t.const_int(lowered.scratch_bytes, false)]);
            let one = i64t.const_array(&[i64t.const_int(1, false)]);
            let mut agg = desc_ty.get_undef();
            for (k, v) in [p, p, i64t.const_zero().into(), size.into(), one.into()]
                .into_iter()
                .enumerate()
            {
                agg = b
                    .build_insert_value(agg, v, k as u32, "")
                    .map_err(err)?
                    .into_struct_value();
            }
            b.build_store(d, agg).map_err(err)?;
            call_args.push(d.into());
        }
    }
    if let Some(g) = module.get_global(nart_llvm::RUNTIME_GLOBAL) {
        // SAFETY (of the GEP): `args` has n + 2 slots by the convention.
        let slot =
            unsafe { b.build_in_bounds_gep(ptr, args, &[i64t.const_int(n as u64 + 1, false)], "") }
                .map_err(err)?;
        let iface = b.build_load(ptr, slot, "runtime").map_err(err)?;
        let store = b.build_store(g.as_pointer_value(), iface).map_err(err)?;
        store
            .set_alignment(8)
            .and_then(|()| store.set_atomic_ordering(AtomicOrdering::Monotonic))
            .map_err(|e| format!("building the entry: {e}"))?;
        g.set_linkage(Linkage::Internal);
    }
    if callee.count_params() as usize != call_args.len() {
        return Err(format!(
            "'{ciface}' takes {} arguments, the convention passes {}",
            callee.count_params(),
            call_args.len()
        ));
    }
    b.build_call(callee, &call_args, "").map_err(err)?;
    b.build_return(None).map_err(err)?;
    // Only the entry is exported: every other function is internal to the shared object, so
    // that a symbol of the program that loads it (a C driver's `main`) cannot interpose on
    // the generated code's calls, and LLVM may inline the wrappers into the entry.
    let mut next = module.get_first_function();
    while let Some(g) = next {
        next = g.get_next_function();
        if g != f && g.count_basic_blocks() > 0 {
            g.set_linkage(Linkage::Internal);
        }
    }
    Ok(())
}
