//! `memref` to LLVM IR. A memref value is its descriptor, as upstream lays it out:
//! `{ptr allocated, ptr aligned, i64 offset, [rank x i64] sizes, [rank x i64] strides}`.
//!
//! - `alloc` calls `malloc` (with `alignment`, it asks for that many bytes more and rounds the
//!   aligned pointer up, as upstream), `alloca` is LLVM's `alloca` with the alignment, and
//!   `dealloc` calls `free` on the allocated pointer.
//! - `load` and `store` address `aligned + offset + sum(index * stride)` elements; a stride or
//!   offset the type knows is a constant, the others come from the descriptor.
//! - `subview` and `reinterpret_cast` build a new descriptor over the same buffer, `cast`
//!   keeps the descriptor, `dim` reads a size, `copy` is a `memcpy` between contiguous memrefs
//!   and a loop nest otherwise.
//! - `global` is an LLVM global holding the elements' bits (`internal` when private, an
//!   external declaration without initial value) and `get_global` a descriptor of it.

use inkwell::module::Linkage;
use inkwell::types::{BasicType, BasicTypeEnum, StructType};
use inkwell::values::{BasicValue, BasicValueEnum, IntValue, PointerValue};
use inkwell::AddressSpace;
use inkwell::IntPredicate;
use nart_dialect_memref::layout::{row_major_strides, strides_and_offset};
use nart_ir::{
    AttrData, Context, DenseArrayData, DenseData, Diagnostic, Op, Type, TypeData, DYNAMIC,
};

use crate::translate::{builder_err, FnTranslator, ModuleTranslator, OpResult};

/// Whether the translator knows `name`, a `memref` op.
pub fn is_known(name: &str) -> bool {
    matches!(
        name,
        "memref.alloc"
            | "memref.alloca"
            | "memref.dealloc"
            | "memref.load"
            | "memref.store"
            | "memref.subview"
            | "memref.reinterpret_cast"
            | "memref.cast"
            | "memref.dim"
            | "memref.copy"
            | "memref.global"
            | "memref.get_global"
            | "memref.view"
    )
}

fn is_contiguous(ir: &Context, t: Type) -> bool {
    match strides_and_offset(ir, t) {
        Some((shape, strides, _)) => strides == row_major_strides(&shape),
        None => false,
    }
}

/// What [`crate::translate::check`] reports about a `memref` op beyond its types.
pub fn check_op(ir: &Context, op: Op) -> Option<Diagnostic> {
    let name = ir.op_name_str(op);
    let memref_types = ir
        .operands(op)
        .iter()
        .chain(ir.results(op))
        .map(|&v| ir.value_type(v))
        .filter(|&t| {
            matches!(
                ir.type_data(t),
                TypeData::MemRef { .. } | TypeData::UnrankedMemRef { .. }
            )
        });
    for t in memref_types {
        if strides_and_offset(ir, t).is_none() {
            return Some(ir.op_error(
                op,
                format!(
                    "cannot be translated to LLVM IR: '{}' is not a ranked memref with a strided layout",
                    nart_ir::printer::type_to_string(ir, t)
                ),
            ));
        }
    }
    if matches!(name, "memref.alloc" | "memref.alloca") {
        let groups = nart_ir::registry::value_groups(ir, op, false)?;
        if groups.get(1).is_some_and(|g| !g.is_empty()) {
            return Some(ir.op_error(
                op,
                "cannot be translated to LLVM IR: layouts with symbols are not supported",
            ));
        }
    }
    None
}

/// The static shape, strides and offset of a memref type (checked to be strided).
fn layout(ir: &Context, t: Type) -> (Vec<i64>, Vec<i64>, i64) {
    strides_and_offset(ir, t).expect("memref layouts are checked before translation")
}

fn elem_type(ir: &Context, t: Type) -> Type {
    match ir.type_data(t) {
        TypeData::MemRef { elem, .. } => *elem,
        _ => t,
    }
}

fn dense_i64(ir: &Context, op: Op, name: &str) -> Vec<i64> {
    match ir.attr(op, name).map(|a| ir.attr_data(a)) {
        Some(AttrData::DenseArray {
            data: DenseArrayData::Int(v),
            ..
        }) => v.clone(),
        _ => Vec::new(),
    }
}

/// The body of a loop nest: called once, at the innermost position, with the indices.
type LoopBody<'b, T, I> = dyn FnMut(&mut T, &[I]) -> Result<(), Diagnostic> + 'b;

/// The parts of a descriptor.
pub(crate) struct Desc<'ll> {
    allocated: BasicValueEnum<'ll>,
    pub(crate) aligned: BasicValueEnum<'ll>,
    offset: IntValue<'ll>,
    pub(crate) sizes: Vec<IntValue<'ll>>,
    pub(crate) strides: Vec<IntValue<'ll>>,
}

impl<'ll> FnTranslator<'_, '_, 'll> {
    pub(crate) fn i64c(&self, v: i64) -> IntValue<'ll> {
        self.m.ll.i64_type().const_int(v as u64, true)
    }

    /// Field `i` of a descriptor (`j` inside the sizes or strides array).
    fn desc_field(
        &self,
        op: Op,
        d: BasicValueEnum<'ll>,
        i: u32,
        j: Option<u32>,
    ) -> Result<BasicValueEnum<'ll>, Diagnostic> {
        let e = builder_err(self.m.ir, op);
        let f = self
            .builder
            .build_extract_value(d.into_struct_value(), i, "")
            .map_err(e)?;
        match j {
            None => Ok(f),
            Some(j) => self
                .builder
                .build_extract_value(f.into_array_value(), j, "")
                .map_err(e),
        }
    }

    /// The offset, sizes and strides of memref value `d` of type `t`: constants where the
    /// type knows them, descriptor fields elsewhere.
    pub(crate) fn desc_of(
        &self,
        op: Op,
        d: BasicValueEnum<'ll>,
        t: Type,
    ) -> Result<Desc<'ll>, Diagnostic> {
        let (shape, strides, offset) = layout(self.m.ir, t);
        let known = |v: i64, i: u32, j: Option<u32>| -> Result<IntValue<'ll>, Diagnostic> {
            if v == DYNAMIC {
                Ok(self.desc_field(op, d, i, j)?.into_int_value())
            } else {
                Ok(self.i64c(v))
            }
        };
        Ok(Desc {
            allocated: self.desc_field(op, d, 0, None)?,
            aligned: self.desc_field(op, d, 1, None)?,
            offset: known(offset, 2, None)?,
            sizes: (0..shape.len())
                .map(|k| known(shape[k], 3, Some(k as u32)))
                .collect::<Result<_, _>>()?,
            strides: (0..strides.len())
                .map(|k| known(strides[k], 4, Some(k as u32)))
                .collect::<Result<_, _>>()?,
        })
    }

    /// A descriptor value of memref type `t` from its parts.
    fn build_desc(
        &self,
        op: Op,
        t: Type,
        d: &Desc<'ll>,
    ) -> Result<BasicValueEnum<'ll>, Diagnostic> {
        let e = builder_err(self.m.ir, op);
        let st: StructType = self.ty(t).into_struct_type();
        let b = &self.builder;
        let mut agg = st.get_undef();
        agg = b
            .build_insert_value(agg, d.allocated, 0, "")
            .map_err(e)?
            .into_struct_value();
        agg = b
            .build_insert_value(agg, d.aligned, 1, "")
            .map_err(e)?
            .into_struct_value();
        agg = b
            .build_insert_value(agg, d.offset, 2, "")
            .map_err(e)?
            .into_struct_value();
        if !d.sizes.is_empty() {
            let at = self.m.ll.i64_type().array_type(d.sizes.len() as u32);
            for (field, vals) in [(3u32, &d.sizes), (4, &d.strides)] {
                let mut arr = at.get_undef();
                for (j, v) in vals.iter().enumerate() {
                    arr = b
                        .build_insert_value(arr, *v, j as u32, "")
                        .map_err(e)?
                        .into_array_value();
                }
                agg = b
                    .build_insert_value(agg, arr, field, "")
                    .map_err(e)?
                    .into_struct_value();
            }
        }
        Ok(agg.into())
    }

    /// `a * b`, or the other operand when one is the constant 1 (index arithmetic reads
    /// better without the identities, before LLVM folds them).
    pub(crate) fn mul(
        &self,
        op: Op,
        a: IntValue<'ll>,
        b: IntValue<'ll>,
    ) -> Result<IntValue<'ll>, Diagnostic> {
        match (
            a.get_zero_extended_constant(),
            b.get_zero_extended_constant(),
        ) {
            (Some(1), _) => Ok(b),
            (_, Some(1)) => Ok(a),
            _ => self
                .builder
                .build_int_mul(a, b, "")
                .map_err(builder_err(self.m.ir, op)),
        }
    }

    /// `a + b`, or the other operand when one is the constant 0.
    pub(crate) fn add(
        &self,
        op: Op,
        a: IntValue<'ll>,
        b: IntValue<'ll>,
    ) -> Result<IntValue<'ll>, Diagnostic> {
        match (
            a.get_zero_extended_constant(),
            b.get_zero_extended_constant(),
        ) {
            (Some(0), _) => Ok(b),
            (_, Some(0)) => Ok(a),
            _ => self
                .builder
                .build_int_add(a, b, "")
                .map_err(builder_err(self.m.ir, op)),
        }
    }

    /// The address of element `indices` of memref `m` (operand `at` of `op`).
    pub(crate) fn element_ptr(
        &self,
        op: Op,
        at: usize,
        indices: &[IntValue<'ll>],
    ) -> Result<PointerValue<'ll>, Diagnostic> {
        let ir = self.m.ir;
        let mv = ir.operand(op, at);
        let t = ir.value_type(mv);
        let d = self.desc_of(op, self.value(op, mv)?, t)?;
        let mut off = d.offset;
        for (i, s) in indices.iter().zip(&d.strides) {
            let p = self.mul(op, *i, *s)?;
            off = self.add(op, off, p)?;
        }
        let et = self.ty(elem_type(ir, t));
        // SAFETY: inkwell marks GEP unsafe because an out-of-bounds index is undefined at run
        // time; the IR's indices are the program's, as upstream's lowering emits them.
        unsafe {
            self.builder
                .build_gep(et, d.aligned.into_pointer_value(), &[off], "")
                .map_err(builder_err(ir, op))
        }
    }

    /// The address of element `idx` of a buffer with descriptor parts `d`.
    fn strided_ptr(
        &self,
        op: Op,
        et: BasicTypeEnum<'ll>,
        d: &Desc<'ll>,
        idx: &[IntValue<'ll>],
    ) -> Result<PointerValue<'ll>, Diagnostic> {
        let mut off = d.offset;
        for (i, s) in idx.iter().zip(&d.strides) {
            let p = self.mul(op, *i, *s)?;
            off = self.add(op, off, p)?;
        }
        // SAFETY: see `element_ptr`.
        unsafe {
            self.builder
                .build_gep(et, d.aligned.into_pointer_value(), &[off], "")
                .map_err(builder_err(self.m.ir, op))
        }
    }

    /// Runs `body` in a nest of loops over `sizes` (outermost first) with the indices.
    fn loop_nest(
        &mut self,
        op: Op,
        sizes: &[IntValue<'ll>],
        body: &mut LoopBody<'_, Self, IntValue<'ll>>,
    ) -> Result<(), Diagnostic> {
        let e = builder_err(self.m.ir, op);
        let mut idx = Vec::new();
        let mut loops = Vec::new();
        for &n in sizes {
            let pre = self.builder.get_insert_block().expect("positioned");
            let header = self.m.ll.insert_basic_block_after(pre, "");
            let inner = self.m.ll.insert_basic_block_after(header, "");
            let exit = self.m.ll.insert_basic_block_after(inner, "");
            self.builder.build_unconditional_branch(header).map_err(e)?;
            self.builder.position_at_end(header);
            let phi = self
                .builder
                .build_phi(self.m.ll.i64_type(), "")
                .map_err(e)?;
            phi.add_incoming(&[(&self.i64c(0) as &dyn BasicValue, pre)]);
            let i = phi.as_basic_value().into_int_value();
            let more = self
                .builder
                .build_int_compare(IntPredicate::SLT, i, n, "")
                .map_err(e)?;
            self.builder
                .build_conditional_branch(more, inner, exit)
                .map_err(e)?;
            self.builder.position_at_end(inner);
            idx.push(i);
            loops.push((header, exit, phi));
        }
        body(self, &idx)?;
        for (header, exit, phi) in loops.into_iter().rev() {
            let i = phi.as_basic_value().into_int_value();
            let next = self.add(op, i, self.i64c(1))?;
            let latch = self.builder.get_insert_block().expect("positioned");
            self.builder.build_unconditional_branch(header).map_err(e)?;
            phi.add_incoming(&[(&next as &dyn BasicValue, latch)]);
            self.builder.position_at_end(exit);
        }
        Ok(())
    }

    fn elem_size(&self, et: BasicTypeEnum<'ll>) -> IntValue<'ll> {
        et.size_of().unwrap_or_else(|| self.i64c(0))
    }

    fn libc_fn(&self, name: &str, ret_ptr: bool) -> inkwell::values::FunctionValue<'ll> {
        let ll = self.m.ll;
        let ptr = ll.ptr_type(AddressSpace::default());
        self.m.module.get_function(name).unwrap_or_else(|| {
            let ty = if ret_ptr {
                ptr.fn_type(&[ll.i64_type().into()], false)
            } else {
                ll.void_type().fn_type(&[ptr.into()], false)
            };
            self.m
                .module
                .add_function(name, ty, Some(Linkage::External))
        })
    }
}

/// Translates one `memref` op.
pub(crate) fn lower<'ll>(fx: &mut FnTranslator<'_, '_, 'll>, op: Op, name: &str) -> OpResult {
    let ir = fx.m.ir;
    let e = builder_err(ir, op);
    let ptr_ty = fx.m.ll.ptr_type(AddressSpace::default());
    let idx =
        |fx: &FnTranslator<'_, '_, 'll>, from: usize| -> Result<Vec<IntValue<'ll>>, Diagnostic> {
            (from..ir.operands(op).len())
                .map(|i| Ok(fx.operand(op, i)?.into_int_value()))
                .collect()
        };
    match name {
        "memref.load" => {
            let indices = idx(fx, 1)?;
            let p = fx.element_ptr(op, 0, &indices)?;
            let et = fx.result_ty(op, 0);
            let v = fx.builder.build_load(et, p, "").map_err(e)?;
            fx.set_result(op, 0, v);
        }
        "memref.store" => {
            let indices = idx(fx, 2)?;
            let p = fx.element_ptr(op, 1, &indices)?;
            let v = fx.operand(op, 0)?;
            fx.builder.build_store(p, v).map_err(e)?;
        }
        "memref.alloc" | "memref.alloca" => {
            let rt = ir.value_type(ir.result(op, 0));
            let (shape, _, _) = layout(ir, rt);
            let mut dynamic = idx(fx, 0)?.into_iter();
            let sizes: Vec<IntValue> = shape
                .iter()
                .map(|&s| {
                    if s == DYNAMIC {
                        dynamic
                            .next()
                            .ok_or_else(|| ir.op_error(op, "has too few dynamic sizes"))
                    } else {
                        Ok(fx.i64c(s))
                    }
                })
                .collect::<Result<_, _>>()?;
            let mut strides = vec![fx.i64c(1); sizes.len()];
            for i in (0..sizes.len().saturating_sub(1)).rev() {
                strides[i] = fx.mul(op, strides[i + 1], sizes[i + 1])?;
            }
            let mut count = fx.i64c(1);
            for s in &sizes {
                count = fx.mul(op, count, *s)?;
            }
            let et = fx.ty(elem_type(ir, rt));
            let align = ir
                .attr(op, "alignment")
                .and_then(|a| ir.attr_int(a))
                .map(|a| a as u64);
            let (allocated, aligned): (BasicValueEnum, BasicValueEnum) = if name == "memref.alloca"
            {
                let p = fx.builder.build_array_alloca(et, count, "").map_err(e)?;
                if let (Some(a), Some(inst)) = (align, p.as_instruction_value()) {
                    let _ = inst.set_alignment(a as u32);
                }
                (p.into(), p.into())
            } else {
                let bytes = fx.mul(op, count, fx.elem_size(et))?;
                let malloc = fx.libc_fn("malloc", true);
                let extra = match align {
                    Some(a) => fx.add(op, bytes, fx.i64c(a as i64))?,
                    None => bytes,
                };
                let call = fx
                    .builder
                    .build_call(malloc, &[extra.into()], "")
                    .map_err(e)?;
                let p = call
                    .try_as_basic_value()
                    .basic()
                    .ok_or_else(|| ir.op_error(op, "internal error: malloc returns nothing"))?;
                match align {
                    None => (p, p),
                    Some(a) => {
                        // aligned = (p + a - 1) & -a
                        let i64t = fx.m.ll.i64_type();
                        let pi = fx
                            .builder
                            .build_ptr_to_int(p.into_pointer_value(), i64t, "")
                            .map_err(e)?;
                        let bumped = fx.add(op, pi, fx.i64c(a as i64 - 1))?;
                        let masked = fx
                            .builder
                            .build_and(bumped, fx.i64c(-(a as i64)), "")
                            .map_err(e)?;
                        let ap = fx.builder.build_int_to_ptr(masked, ptr_ty, "").map_err(e)?;
                        (p, ap.into())
                    }
                }
            };
            let d = Desc {
                allocated,
                aligned,
                offset: fx.i64c(0),
                sizes,
                strides,
            };
            let v = fx.build_desc(op, rt, &d)?;
            fx.set_result(op, 0, v);
        }
        "memref.dealloc" => {
            let d = fx.operand(op, 0)?;
            let p = fx.desc_field(op, d, 0, None)?;
            let free = fx.libc_fn("free", false);
            fx.builder.build_call(free, &[p.into()], "").map_err(e)?;
        }
        "memref.cast" => {
            let v = fx.operand(op, 0)?;
            fx.set_result(op, 0, v);
        }
        "memref.dim" => {
            let src = ir.operand(op, 0);
            let d = fx.desc_of(op, fx.value(op, src)?, ir.value_type(src))?;
            let i = fx.operand(op, 1)?.into_int_value();
            // A constant index picks the size; otherwise a chain of selects over the rank.
            let v = match i.get_zero_extended_constant() {
                Some(k) => *d
                    .sizes
                    .get(k as usize)
                    .ok_or_else(|| ir.op_error(op, "has an index out of the rank"))?,
                None => {
                    let mut acc = fx.m.ll.i64_type().get_poison();
                    for (k, s) in d.sizes.iter().enumerate().rev() {
                        let is_k = fx
                            .builder
                            .build_int_compare(IntPredicate::EQ, i, fx.i64c(k as i64), "")
                            .map_err(e)?;
                        acc = fx
                            .builder
                            .build_select(is_k, *s, acc, "")
                            .map_err(e)?
                            .into_int_value();
                    }
                    acc
                }
            };
            fx.set_result(op, 0, v.into());
        }
        "memref.subview" | "memref.reinterpret_cast" => {
            let groups = nart_ir::registry::value_groups(ir, op, false)
                .filter(|g| g.len() == 4)
                .ok_or_else(|| ir.op_error(op, "has malformed operand segments"))?;
            let operands = |g: usize| -> Result<Vec<IntValue>, Diagnostic> {
                groups[g]
                    .clone()
                    .map(|i| Ok(fx.operand(op, i)?.into_int_value()))
                    .collect()
            };
            let mixed = |stat: Vec<i64>,
                         dynamic: Vec<IntValue<'ll>>|
             -> Result<Vec<IntValue<'ll>>, Diagnostic> {
                let mut it = dynamic.into_iter();
                stat.into_iter()
                    .map(|s| {
                        if s == DYNAMIC {
                            it.next()
                                .ok_or_else(|| ir.op_error(op, "has too few dynamic values"))
                        } else {
                            Ok(fx.i64c(s))
                        }
                    })
                    .collect()
            };
            let offsets = mixed(dense_i64(ir, op, "static_offsets"), operands(1)?)?;
            let sizes = mixed(dense_i64(ir, op, "static_sizes"), operands(2)?)?;
            let strides = mixed(dense_i64(ir, op, "static_strides"), operands(3)?)?;
            let src = ir.operand(op, 0);
            let sd = fx.value(op, src)?;
            let rt = ir.value_type(ir.result(op, 0));
            let d = if name == "memref.reinterpret_cast" {
                Desc {
                    allocated: fx.desc_field(op, sd, 0, None)?,
                    aligned: fx.desc_field(op, sd, 1, None)?,
                    offset: *offsets
                        .first()
                        .ok_or_else(|| ir.op_error(op, "has no offset"))?,
                    sizes,
                    strides,
                }
            } else {
                let s = fx.desc_of(op, sd, ir.value_type(src))?;
                let mut offset = s.offset;
                for (o, st) in offsets.iter().zip(&s.strides) {
                    let p = fx.mul(op, *o, *st)?;
                    offset = fx.add(op, offset, p)?;
                }
                let mut new_sizes = Vec::new();
                let mut new_strides = Vec::new();
                let (rshape, _, _) = layout(ir, rt);
                let static_sizes = dense_i64(ir, op, "static_sizes");
                // A rank-reducing subview drops dimensions of static size 1, from the left,
                // while there are more dimensions left than the result has.
                let mut keep_left = rshape.len();
                for (k, (sz, st)) in sizes.iter().zip(&s.strides).enumerate() {
                    let left = sizes.len() - k;
                    if static_sizes.get(k) == Some(&1) && left > keep_left {
                        continue;
                    }
                    new_sizes.push(*sz);
                    new_strides.push(fx.mul(op, *st, strides[k])?);
                    keep_left = keep_left.saturating_sub(1);
                }
                Desc {
                    allocated: s.allocated,
                    aligned: s.aligned,
                    offset,
                    sizes: new_sizes,
                    strides: new_strides,
                }
            };
            let v = fx.build_desc(op, rt, &d)?;
            fx.set_result(op, 0, v);
        }
        "memref.view" => {
            // The view's first element is `byte_shift` bytes past the source's first element
            // (the source is a 1-D `i8` buffer, so its offset counts bytes too); the view has
            // offset 0 and row-major strides.
            let src = ir.operand(op, 0);
            let sd = fx.value(op, src)?;
            let s = fx.desc_of(op, sd, ir.value_type(src))?;
            let shift = fx.operand(op, 1)?.into_int_value();
            let bytes = fx.add(op, s.offset, shift)?;
            let i8t = fx.m.ll.i8_type();
            // SAFETY (of the GEP): in bounds of the source buffer, as the verifier and the
            // arena planner keep every view inside it.
            let aligned = unsafe {
                fx.builder
                    .build_in_bounds_gep(i8t, s.aligned.into_pointer_value(), &[bytes], "")
            }
            .map_err(e)?;
            let rt = ir.value_type(ir.result(op, 0));
            let (rshape, _, _) = layout(ir, rt);
            let mut dynamic = (2..ir.operands(op).len()).map(|i| fx.operand(op, i));
            let mut sizes = Vec::new();
            for &d in &rshape {
                sizes.push(if d == DYNAMIC {
                    dynamic
                        .next()
                        .ok_or_else(|| ir.op_error(op, "has too few dynamic sizes"))??
                        .into_int_value()
                } else {
                    fx.i64c(d)
                });
            }
            let mut strides = vec![fx.i64c(1); sizes.len()];
            for k in (0..sizes.len().saturating_sub(1)).rev() {
                strides[k] = fx.mul(op, strides[k + 1], sizes[k + 1])?;
            }
            let d = Desc {
                allocated: s.allocated,
                aligned: aligned.into(),
                offset: fx.i64c(0),
                sizes,
                strides,
            };
            let v = fx.build_desc(op, rt, &d)?;
            fx.set_result(op, 0, v);
        }
        "memref.copy" => {
            let (a, b) = (ir.operand(op, 0), ir.operand(op, 1));
            let ad = fx.desc_of(op, fx.value(op, a)?, ir.value_type(a))?;
            let bd = fx.desc_of(op, fx.value(op, b)?, ir.value_type(b))?;
            let et = fx.ty(elem_type(ir, ir.value_type(a)));
            if !is_contiguous(ir, ir.value_type(a)) || !is_contiguous(ir, ir.value_type(b)) {
                // Element by element, in a loop nest over the source's sizes.
                return fx.loop_nest(op, &ad.sizes.clone(), &mut |fx, idx| {
                    let src = fx.strided_ptr(op, et, &ad, idx)?;
                    let dst = fx.strided_ptr(op, et, &bd, idx)?;
                    let v = fx.builder.build_load(et, src, "").map_err(e)?;
                    fx.builder.build_store(dst, v).map_err(e)?;
                    Ok(())
                });
            }
            let mut count = fx.i64c(1);
            for s in &ad.sizes {
                count = fx.mul(op, count, *s)?;
            }
            let bytes = fx.mul(op, count, fx.elem_size(et))?;
            // SAFETY: see `element_ptr`.
            let (src, dst) = unsafe {
                (
                    fx.builder
                        .build_gep(et, ad.aligned.into_pointer_value(), &[ad.offset], "")
                        .map_err(e)?,
                    fx.builder
                        .build_gep(et, bd.aligned.into_pointer_value(), &[bd.offset], "")
                        .map_err(e)?,
                )
            };
            fx.builder.build_memcpy(dst, 1, src, 1, bytes).map_err(e)?;
        }
        "memref.get_global" => {
            let gname = ir
                .attr(op, "name")
                .and_then(|a| ir.attr_flat_symbol(a))
                .ok_or_else(|| ir.op_error(op, "has no global name"))?;
            let g = fx.m.module.get_global(gname).ok_or_else(|| {
                ir.op_error(
                    op,
                    format!("reads '@{gname}', which is not a global of this module"),
                )
            })?;
            let rt = ir.value_type(ir.result(op, 0));
            let (shape, strides, _) = layout(ir, rt);
            let p: BasicValueEnum = g.as_pointer_value().into();
            let d = Desc {
                allocated: p,
                aligned: p,
                offset: fx.i64c(0),
                sizes: shape.iter().map(|&s| fx.i64c(s)).collect(),
                strides: strides.iter().map(|&s| fx.i64c(s)).collect(),
            };
            let v = fx.build_desc(op, rt, &d)?;
            fx.set_result(op, 0, v);
        }
        _ => return Err(ir.op_error(op, "has no translation to LLVM IR")),
    }
    Ok(())
}

/// Declares or defines the LLVM global of a `memref.global`: an array of the elements' bits
/// (integers of the storage width, so every element type is stored exactly as its dense
/// attribute holds it).
pub(crate) fn declare_global(m: &mut ModuleTranslator<'_, '_>, op: Op) -> Result<(), Diagnostic> {
    let ir = m.ir;
    let ll = m.ll;
    let name = ir
        .attr(op, "sym_name")
        .and_then(|a| ir.attr_str(a))
        .ok_or_else(|| ir.op_error(op, "has no name"))?;
    let ty = ir
        .attr(op, "type")
        .and_then(|a| ir.attr_type(a))
        .ok_or_else(|| ir.op_error(op, "has no type"))?;
    let TypeData::MemRef { shape, elem, .. } = ir.type_data(ty) else {
        return Err(ir.op_error(op, "has a type that is not a memref"));
    };
    let n: i64 = shape.iter().product();
    let bits =
        match ir.type_data(*elem) {
            TypeData::Integer { width, .. } => width.div_ceil(8) * 8,
            TypeData::Index => 64,
            TypeData::Float(k) if matches!(k.width(), 16 | 32 | 64) => k.width(),
            _ => return Err(ir.op_error(
                op,
                "cannot be translated to LLVM IR: globals of this element type are not supported",
            )),
        };
    let et = ll
        .custom_width_int_type(std::num::NonZeroU32::new(bits).expect("a positive width"))
        .map_err(|m| ir.op_error(op, m))?;
    let at = et.array_type(n as u32);
    let g = m.module.add_global(at, Some(AddressSpace::default()), name);
    if let Some(a) = ir.attr(op, "alignment").and_then(|a| ir.attr_int(a)) {
        g.set_alignment(a as u32);
    }
    let private = ir
        .attr(op, "sym_visibility")
        .and_then(|a| ir.attr_str(a))
        .is_some_and(|v| v != "public");
    match ir.attr(op, "initial_value").map(|a| ir.attr_data(a)) {
        None => {
            g.set_linkage(Linkage::External);
            return Ok(());
        }
        Some(AttrData::Unit) => g.set_initializer(&at.get_undef()),
        Some(AttrData::DenseElements { data, .. }) => {
            let nb = (bits / 8) as usize;
            let bytes = match data {
                DenseData::Splat(b) => b.repeat(n as usize),
                DenseData::Elements(b) => b.clone(),
                DenseData::Strings { .. } => {
                    return Err(ir.op_error(op, "has string elements"));
                }
            };
            let elems: Vec<IntValue> = bytes
                .chunks(nb.max(1))
                .map(|c| {
                    let v = nart_ir::apint::ApInt::from_le_bytes(bits, c);
                    et.const_int_arbitrary_precision(v.words())
                })
                .collect();
            if elems.len() != n as usize {
                return Err(ir.op_error(op, "has an initial value of the wrong size"));
            }
            g.set_initializer(&et.const_array(&elems).as_basic_value_enum());
        }
        Some(_) => return Err(ir.op_error(
            op,
            "cannot be translated to LLVM IR: the initial value is not a dense elements attribute",
        )),
    }
    g.set_constant(ir.attr(op, "constant").is_some());
    g.set_linkage(if private {
        Linkage::Internal
    } else {
        Linkage::External
    });
    Ok(())
}
