//! The conversion from tensors to buffers: every ranked tensor of static shape becomes a
//! memref of the identity layout, and each op on tensors becomes its form on buffers.
//!
//! Destination-passing style decides where results live: a structured op writes its result
//! into the buffer of its init (`outs`) operand. That buffer may be overwritten only when
//! nothing else reads the init afterwards; [`analyze`] decides it before the conversion, once
//! per op, from the tensor program (an init written in place is one that has no other use and
//! comes from an op that made a fresh buffer: `tensor.empty`, or a structured op that wrote in
//! place itself). Any other init is copied into a new buffer first, so function arguments
//! (which the caller owns) and constants (globals) are never written.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use nart_dialect_linalg::structured::structured;
use nart_dialect_tensor::syntax::segment_sizes;
use nart_dialect_tensor::util::dense_i64;
use nart_ir::{
    AttrData, Context, DenseArrayData, Location, Op, OperationState, PatternRewriter, Type,
    TypeData, Uniquer, Value, ValueDef, WalkOrder,
};
use nart_rewrite::conversion::{ConversionPattern, ConversionRewriter, OpAdaptor, TypeConverter};

/// The memref type standing for the ranked tensor type `ty` of static shape: the same shape
/// and element type, the identity layout.
pub fn buffer_type(u: &mut Uniquer, ty: Type) -> Option<Type> {
    match u.type_data(ty).clone() {
        TypeData::RankedTensor { shape, elem, .. } if shape.iter().all(|&d| d >= 0) => {
            Some(u.intern_type(TypeData::MemRef {
                shape,
                elem,
                layout: None,
                memory_space: None,
            }))
        }
        _ => None,
    }
}

/// Tensors to buffers, everything else unchanged; `bufferization.to_tensor` and
/// `bufferization.to_buffer` where a converted value meets an unconverted use.
pub fn type_converter() -> TypeConverter {
    let mut types = TypeConverter::new();
    types
        .add_identity_conversion()
        .add_conversion(|u, t| match u.type_data(t) {
            TypeData::RankedTensor { .. } => buffer_type(u, t).map(|m| vec![m]),
            _ => None,
        })
        .add_source_materialization(|rw, inputs, types, loc| {
            cast(rw, "bufferization.to_tensor", inputs, types, loc)
        })
        .add_target_materialization(|rw, inputs, types, loc| {
            cast(rw, "bufferization.to_buffer", inputs, types, loc)
        });
    types
}

fn cast(
    rw: &mut PatternRewriter<'_>,
    name: &str,
    inputs: &[Value],
    types: &[Type],
    loc: Location,
) -> Option<Vec<Value>> {
    let ([x], [t]) = (inputs, types) else {
        return None;
    };
    let st = OperationState::new(rw.uniq(), name, loc)
        .operands(&[*x])
        .results(&[*t]);
    let op = rw.create(st);
    Some(vec![rw.result(op, 0)])
}

/// What [`analyze`] decided for a function.
#[derive(Debug, Default)]
pub struct Plan {
    /// The structured ops (and `tensor.insert_slice`s) that write into their init's buffer
    /// without copying it first.
    pub in_place: HashSet<Op>,
    /// The symbol of the global each tensor constant becomes.
    pub globals: HashMap<Op, String>,
}

/// Whether `v` is a fresh buffer nothing else reads: the result of `tensor.empty`, or of an
/// op that wrote in place into such a buffer, used once.
fn writable(ctx: &Context, plan: &Plan, v: Value) -> bool {
    if ctx.uses(v).len() != 1 {
        return false;
    }
    ctx.defining_op(v)
        .is_some_and(|def| ctx.op_name_str(def) == "tensor.empty" || plan.in_place.contains(&def))
}

/// Decides, for the ops under `root` in program order, which write in place, and names the
/// globals of tensor constants (`__constant_<k>` after any names `root`'s module already
/// holds, in program order, so the output is deterministic).
pub fn analyze(ctx: &Context, root: Op, taken: &HashSet<String>) -> Plan {
    let mut plan = Plan::default();
    let mut k = 0usize;
    for op in ctx.collect_ops(root, WalkOrder::PreOrder) {
        let name = ctx.op_name_str(op);
        if name == "arith.constant" && ctx.results(op).len() == 1 {
            let ty = ctx.value_type(ctx.result(op, 0));
            if matches!(ctx.type_data(ty), TypeData::RankedTensor { .. }) {
                let mut sym = format!("__constant_{k}");
                while taken.contains(&sym) {
                    k += 1;
                    sym = format!("__constant_{k}");
                }
                k += 1;
                plan.globals.insert(op, sym);
            }
            continue;
        }
        let init = if name == "tensor.insert_slice" {
            Some(ctx.operand(op, 1))
        } else if let Some(s) = structured(ctx, op) {
            if ctx.results(op).is_empty() {
                None
            } else {
                let n_in = s.num_inputs(ctx, op);
                // Every init must be writable for the op to run in place.
                let inits = &ctx.operands(op)[n_in..];
                if !inits.is_empty() && inits.iter().all(|&v| writable(ctx, &plan, v)) {
                    plan.in_place.insert(op);
                }
                None
            }
        } else {
            None
        };
        if let Some(dest) = init {
            if writable(ctx, &plan, dest) {
                plan.in_place.insert(op);
            }
        }
    }
    plan
}

/// `memref.alloc() {alignment = 64} : ty`.
pub fn alloc(rw: &mut PatternRewriter<'_>, ty: Type, loc: Location) -> Value {
    let seg = segment_sizes(rw.uniq(), &[0, 0]);
    let i64t = rw.uniq().int_type(64);
    let align = rw.uniq().int_attr(i64t, 64);
    let st = OperationState::new(rw.uniq(), "memref.alloc", loc)
        .results(&[ty])
        .prop(rw.uniq(), "operandSegmentSizes", seg)
        .prop(rw.uniq(), "alignment", align);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// `memref.copy from, to`.
pub fn copy(rw: &mut PatternRewriter<'_>, from: Value, to: Value, loc: Location) {
    let st = OperationState::new(rw.uniq(), "memref.copy", loc).operands(&[from, to]);
    rw.create(st);
}

fn static_shape(ctx: &Context, ty: Type) -> Option<(Vec<i64>, Type)> {
    match ctx.type_data(ty) {
        TypeData::MemRef { shape, elem, .. } | TypeData::RankedTensor { shape, elem, .. }
            if shape.iter().all(|&d| d >= 0) =>
        {
            Some((shape.clone(), *elem))
        }
        _ => None,
    }
}

/// `memref.subview src[offsets][sizes][strides]` with static values (no rank reduction).
pub fn subview(
    rw: &mut PatternRewriter<'_>,
    src: Value,
    offsets: &[i64],
    sizes: &[i64],
    strides: &[i64],
    loc: Location,
) -> Option<Value> {
    let src_ty = rw.value_type(src);
    let (_, src_strides, src_offset) = nart_dialect_memref::layout::strides_and_offset(rw, src_ty)?;
    let (_, elem) = static_shape(rw, src_ty)?;
    let offset = offsets
        .iter()
        .zip(&src_strides)
        .fold(src_offset, |acc, (&o, &s)| acc + o * s);
    let strides_out: Vec<i64> = strides
        .iter()
        .zip(&src_strides)
        .map(|(&a, &b)| a * b)
        .collect();
    let ty = nart_dialect_memref::layout::strided_type(
        rw.uniq(),
        sizes.to_vec(),
        elem,
        strides_out,
        offset,
        None,
    );
    let seg = segment_sizes(rw.uniq(), &[1, 0, 0, 0]);
    let (o, s, t) = (
        dense_i64(rw.uniq(), offsets),
        dense_i64(rw.uniq(), sizes),
        dense_i64(rw.uniq(), strides),
    );
    let st = OperationState::new(rw.uniq(), "memref.subview", loc)
        .operands(&[src])
        .results(&[ty])
        .prop(rw.uniq(), "operandSegmentSizes", seg)
        .prop(rw.uniq(), "static_offsets", o)
        .prop(rw.uniq(), "static_sizes", s)
        .prop(rw.uniq(), "static_strides", t);
    let op = rw.create(st);
    Some(rw.result(op, 0))
}

/// `memref.reinterpret_cast src` to `ty` (an identity-layout memref of static shape), for a
/// contiguous source: a reshape that moves no data.
fn reshape(rw: &mut PatternRewriter<'_>, src: Value, ty: Type, loc: Location) -> Option<Value> {
    let (shape, _) = static_shape(rw, ty)?;
    let strides = nart_dialect_memref::layout::row_major_strides(&shape);
    let seg = segment_sizes(rw.uniq(), &[1, 0, 0, 0]);
    let (o, s, t) = (
        dense_i64(rw.uniq(), &[0]),
        dense_i64(rw.uniq(), &shape),
        dense_i64(rw.uniq(), &strides),
    );
    let st = OperationState::new(rw.uniq(), "memref.reinterpret_cast", loc)
        .operands(&[src])
        .results(&[ty])
        .prop(rw.uniq(), "operandSegmentSizes", seg)
        .prop(rw.uniq(), "static_offsets", o)
        .prop(rw.uniq(), "static_sizes", s)
        .prop(rw.uniq(), "static_strides", t);
    let op = rw.create(st);
    Some(rw.result(op, 0))
}

fn dense_prop(ctx: &Context, op: Op, name: &str) -> Option<Vec<i64>> {
    match ctx.attr_data(ctx.attr(op, name)?) {
        AttrData::DenseArray {
            data: DenseArrayData::Int(v),
            ..
        } => Some(v.clone()),
        _ => None,
    }
}

fn result_buffer_type(rw: &mut ConversionRewriter<'_, '_>, op: Op, k: usize) -> Option<Type> {
    let t = rw.value_type(rw.result(op, k));
    buffer_type(rw.uniq(), t)
}

/// `tensor.empty` → `memref.alloc`.
pub struct EmptyToAlloc;

impl ConversionPattern for EmptyToAlloc {
    fn name(&self) -> &'static str {
        "EmptyToAlloc"
    }
    fn root(&self) -> Option<&'static str> {
        Some("tensor.empty")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let Some(ty) = result_buffer_type(rw, op, 0) else {
            return rw.match_failure("the tensor has a dynamic shape");
        };
        let loc = rw.op_loc(op);
        let m = alloc(rw, ty, loc);
        rw.replace_op(op, &[m]);
        true
    }
}

/// A structured op on tensors → the same op on buffers, writing into its inits' buffers
/// (copied first unless the op was planned in place); its results are those buffers.
pub struct StructuredOnBuffers {
    /// The in-place decisions.
    pub plan: Arc<Plan>,
}

impl ConversionPattern for StructuredOnBuffers {
    fn name(&self) -> &'static str {
        "StructuredOnBuffers"
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let Some(s) = structured(rw, op) else {
            return rw.match_failure("not a structured op");
        };
        if rw.results(op).is_empty() {
            return rw.match_failure("already on buffers");
        }
        let Some(operands) = a.single_operands() else {
            return rw.match_failure("an operand converted to several values");
        };
        let n_in = s.num_inputs(rw, op);
        let loc = rw.op_loc(op);
        let mut inits = Vec::new();
        for &v in &operands[n_in..] {
            let ty = rw.value_type(v);
            if !matches!(rw.type_data(ty), TypeData::MemRef { .. }) {
                return rw.match_failure("an init is not a buffer");
            }
            if self.plan.in_place.contains(&op) {
                inits.push(v);
            } else {
                let fresh = alloc(rw, ty, loc);
                copy(rw, v, fresh, loc);
                inits.push(fresh);
            }
        }
        let name = rw.op_name_str(op).to_string();
        let mut st = OperationState::new(rw.uniq(), &name, loc);
        let mut all = operands[..n_in].to_vec();
        all.extend_from_slice(&inits);
        st.operands = all;
        st.props = rw.props(op).to_vec();
        st.attrs = rw.attrs(op).to_vec();
        let old_regions: Vec<_> = rw.regions(op).to_vec();
        let mut regions = Vec::new();
        for _ in &old_regions {
            regions.push(rw.create_region());
        }
        st.regions = regions.clone();
        for (&from, &to) in old_regions.iter().zip(&regions) {
            rw.inline_region_before(from, to, None);
        }
        rw.create(st);
        rw.replace_op(op, &inits);
        true
    }
}

/// `arith.constant dense<...> : tensor<...>` → a private constant `memref.global` at the top
/// of the module and `memref.get_global`.
pub struct ConstantToGlobal {
    /// The global names.
    pub plan: Arc<Plan>,
    /// The module the globals go into.
    pub module: Op,
}

impl ConversionPattern for ConstantToGlobal {
    fn name(&self) -> &'static str {
        "ConstantToGlobal"
    }
    fn root(&self) -> Option<&'static str> {
        Some("arith.constant")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let Some(sym) = self.plan.globals.get(&op) else {
            return rw.match_failure("not a tensor constant");
        };
        let Some(ty) = result_buffer_type(rw, op, 0) else {
            return rw.match_failure("the tensor has a dynamic shape");
        };
        let Some(value) = rw.attr(op, "value") else {
            return rw.match_failure("the constant has no value");
        };
        let loc = rw.op_loc(op);
        let ip = rw.insertion_point();
        let Some(&body) = rw.region_blocks(rw.region(self.module, 0)).first() else {
            return rw.match_failure("the module has no body");
        };
        // After the globals already there, so that they stay in program order.
        let first_other = rw
            .block_ops(body)
            .iter()
            .copied()
            .find(|&o| rw.op_name_str(o) != "memref.global");
        match first_other {
            Some(first) => rw.set_insertion_point_before(first),
            None => rw.set_insertion_point_to_end(body),
        }
        let (name, vis, tattr, unit, i64t) = (
            rw.uniq().string_attr(sym),
            rw.uniq().string_attr("private"),
            rw.uniq().type_attr(ty),
            rw.uniq().unit_attr(),
            rw.uniq().int_type(64),
        );
        let align = rw.uniq().int_attr(i64t, 64);
        let st = OperationState::new(rw.uniq(), "memref.global", loc)
            .prop(rw.uniq(), "sym_name", name)
            .prop(rw.uniq(), "sym_visibility", vis)
            .prop(rw.uniq(), "type", tattr)
            .prop(rw.uniq(), "initial_value", value)
            .prop(rw.uniq(), "constant", unit)
            .prop(rw.uniq(), "alignment", align);
        rw.create(st);
        rw.set_insertion_point(ip);
        let sref = rw.uniq().flat_symbol_ref(sym);
        let st = OperationState::new(rw.uniq(), "memref.get_global", loc)
            .results(&[ty])
            .prop(rw.uniq(), "name", sref);
        let g = rw.create(st);
        let r = rw.result(g, 0);
        rw.replace_op(op, &[r]);
        true
    }
}

/// `tensor.collapse_shape` and `tensor.expand_shape` → `memref.reinterpret_cast` of the
/// source buffer (always contiguous here), moving no data.
pub struct ReshapeToCast;

impl ConversionPattern for ReshapeToCast {
    fn name(&self) -> &'static str {
        "ReshapeToCast"
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let name = rw.op_name_str(op);
        if name != "tensor.collapse_shape" && name != "tensor.expand_shape" && name != "tensor.cast"
        {
            return rw.match_failure("not a reshape");
        }
        let Some(ty) = result_buffer_type(rw, op, 0) else {
            return rw.match_failure("the result has a dynamic shape");
        };
        let loc = rw.op_loc(op);
        match reshape(rw, a.operand(0), ty, loc) {
            Some(v) => {
                rw.replace_op(op, &[v]);
                true
            }
            None => rw.match_failure("the source is not a static buffer"),
        }
    }
}

/// `tensor.pad` → a new buffer filled with the padding value, and the source copied into the
/// window where it goes.
pub struct PadToCopy;

impl ConversionPattern for PadToCopy {
    fn name(&self) -> &'static str {
        "PadToCopy"
    }
    fn root(&self) -> Option<&'static str> {
        Some("tensor.pad")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let (Some(ty), Some(low)) = (
            result_buffer_type(rw, op, 0),
            dense_prop(rw, op, "static_low"),
        ) else {
            return rw.match_failure("the result has a dynamic shape");
        };
        if rw.operands(op).len() != 1 || low.iter().any(|&l| l < 0) {
            return rw.match_failure("dynamic padding");
        }
        let src = a.operand(0);
        let Some((src_shape, _)) = static_shape(rw, rw.value_type(src)) else {
            return rw.match_failure("the source has a dynamic shape");
        };
        // The padding value: what the region yields, a value from outside or a constant
        // computed inside (cloned out).
        let Some(&block) = rw.region_blocks(rw.region(op, 0)).first() else {
            return rw.match_failure("the pad has no body");
        };
        let Some(&yield_op) = rw.block_ops(block).last() else {
            return rw.match_failure("the pad has an empty body");
        };
        let loc = rw.op_loc(op);
        let yielded = rw.operand(yield_op, 0);
        let pad_value = match rw.value_def(yielded) {
            ValueDef::OpResult { op: def, index: k } if rw.op_parent_block(def) == Some(block) => {
                if !rw.operands(def).is_empty() {
                    return rw.match_failure("the padding value is computed from the indices");
                }
                let c = rw.clone_op(def);
                rw.result(c, k as usize)
            }
            ValueDef::BlockArg { .. } => {
                return rw.match_failure("the padding value is computed from the indices")
            }
            _ => yielded,
        };
        let out = alloc(rw, ty, loc);
        nart_dialect_linalg::builders::create_named(
            rw,
            "linalg.fill",
            &[pad_value],
            &[out],
            &[],
            loc,
        );
        let ones = vec![1; src_shape.len()];
        let Some(window) = subview(rw, out, &low, &src_shape, &ones, loc) else {
            return rw.match_failure("the window could not be built");
        };
        copy(rw, src, window, loc);
        rw.replace_op(op, &[out]);
        true
    }
}

/// `tensor.extract_slice` → a copy of the subview into a new buffer.
pub struct ExtractSliceToCopy;

impl ConversionPattern for ExtractSliceToCopy {
    fn name(&self) -> &'static str {
        "ExtractSliceToCopy"
    }
    fn root(&self) -> Option<&'static str> {
        Some("tensor.extract_slice")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let (Some(ty), Some(o), Some(s), Some(t)) = (
            result_buffer_type(rw, op, 0),
            dense_prop(rw, op, "static_offsets"),
            dense_prop(rw, op, "static_sizes"),
            dense_prop(rw, op, "static_strides"),
        ) else {
            return rw.match_failure("dynamic slice");
        };
        if rw.operands(op).len() != 1 || o.iter().chain(&s).chain(&t).any(|&x| x < 0) {
            return rw.match_failure("dynamic slice");
        }
        let Some((res_shape, _)) = static_shape(rw, ty) else {
            return rw.match_failure("dynamic slice");
        };
        if res_shape != s {
            return rw.match_failure("rank-reducing slices are not bufferized yet");
        }
        let loc = rw.op_loc(op);
        let Some(view) = subview(rw, a.operand(0), &o, &s, &t, loc) else {
            return rw.match_failure("the source is not a strided buffer");
        };
        let out = alloc(rw, ty, loc);
        copy(rw, view, out, loc);
        rw.replace_op(op, &[out]);
        true
    }
}

/// `tensor.insert_slice src into dest` → `src` copied into a subview of dest's buffer
/// (itself copied first unless planned in place).
pub struct InsertSliceToCopy {
    /// The in-place decisions.
    pub plan: Arc<Plan>,
}

impl ConversionPattern for InsertSliceToCopy {
    fn name(&self) -> &'static str {
        "InsertSliceToCopy"
    }
    fn root(&self) -> Option<&'static str> {
        Some("tensor.insert_slice")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let (Some(o), Some(s), Some(t)) = (
            dense_prop(rw, op, "static_offsets"),
            dense_prop(rw, op, "static_sizes"),
            dense_prop(rw, op, "static_strides"),
        ) else {
            return rw.match_failure("dynamic slice");
        };
        if rw.operands(op).len() != 2 || o.iter().chain(&s).chain(&t).any(|&x| x < 0) {
            return rw.match_failure("dynamic slice");
        }
        let (src, dest) = (a.operand(0), a.operand(1));
        let Some((src_shape, _)) = static_shape(rw, rw.value_type(src)) else {
            return rw.match_failure("dynamic source");
        };
        if src_shape != s {
            return rw.match_failure("rank-expanding inserts are not bufferized yet");
        }
        let loc = rw.op_loc(op);
        let dest = if self.plan.in_place.contains(&op) {
            dest
        } else {
            let ty = rw.value_type(dest);
            let fresh = alloc(rw, ty, loc);
            copy(rw, dest, fresh, loc);
            fresh
        };
        let Some(view) = subview(rw, dest, &o, &s, &t, loc) else {
            return rw.match_failure("the destination is not a strided buffer");
        };
        copy(rw, src, view, loc);
        rw.replace_op(op, &[dest]);
        true
    }
}

/// `tensor.concat` → a new buffer and each input copied into its window.
pub struct ConcatToCopies;

impl ConversionPattern for ConcatToCopies {
    fn name(&self) -> &'static str {
        "ConcatToCopies"
    }
    fn root(&self) -> Option<&'static str> {
        Some("tensor.concat")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let Some(ty) = result_buffer_type(rw, op, 0) else {
            return rw.match_failure("the result has a dynamic shape");
        };
        let Some(dim) = rw.attr(op, "dim").and_then(|d| rw.attr_int(d)) else {
            return rw.match_failure("no dim");
        };
        let Some(inputs) = a.single_operands() else {
            return rw.match_failure("an operand converted to several values");
        };
        let loc = rw.op_loc(op);
        let out = alloc(rw, ty, loc);
        let mut at = 0i64;
        for x in inputs {
            let Some((shape, _)) = static_shape(rw, rw.value_type(x)) else {
                return rw.match_failure("an input has a dynamic shape");
            };
            let mut offsets = vec![0; shape.len()];
            let Some(slot) = offsets.get_mut(dim as usize) else {
                return rw.match_failure("dim out of range");
            };
            *slot = at;
            at += shape[dim as usize];
            let ones = vec![1; shape.len()];
            let Some(window) = subview(rw, out, &offsets, &shape, &ones, loc) else {
                return rw.match_failure("the window could not be built");
            };
            copy(rw, x, window, loc);
        }
        rw.replace_op(op, &[out]);
        true
    }
}

/// `tensor.extract t[i..]` → `memref.load` of t's buffer at the same indices (a structured
/// op's body reading an element at a computed index, as a lowered `Gather` does).
pub struct ExtractToLoad;

impl ConversionPattern for ExtractToLoad {
    fn name(&self) -> &'static str {
        "ExtractToLoad"
    }
    fn root(&self) -> Option<&'static str> {
        Some("tensor.extract")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let Some(operands) = a.single_operands() else {
            return rw.match_failure("an operand converted to several values");
        };
        let Some(&src) = operands.first() else {
            return rw.match_failure("no tensor to read");
        };
        if !matches!(rw.type_data(rw.value_type(src)), TypeData::MemRef { .. }) {
            return rw.match_failure("the tensor is not a buffer");
        }
        let ty = rw.value_type(rw.result(op, 0));
        let loc = rw.op_loc(op);
        let st = OperationState::new(rw.uniq(), "memref.load", loc)
            .operands(&operands)
            .results(&[ty]);
        let l = rw.create(st);
        let v = rw.result(l, 0);
        rw.replace_op(op, &[v]);
        true
    }
}

/// Replaces each `bufferization.to_buffer(bufferization.to_tensor(m))` whose result has
/// `m`'s type by `m`, then erases the casts nothing uses any more.
pub fn fold_cast_pairs(ctx: &mut Context, root: nart_ir::Op) {
    let ops = ctx.collect_ops(root, nart_ir::WalkOrder::PreOrder);
    for &op in &ops {
        if ctx.op_name_str(op) != "bufferization.to_buffer" {
            continue;
        }
        let Some(def) = ctx.defining_op(ctx.operands(op)[0]) else {
            continue;
        };
        if ctx.op_name_str(def) != "bufferization.to_tensor" {
            continue;
        }
        let m = ctx.operands(def)[0];
        let r = ctx.results(op)[0];
        if ctx.value_type(m) == ctx.value_type(r) {
            ctx.replace_all_uses(r, m);
        }
    }
    // Users before producers, so that a cast freed by erasing its user goes too.
    for &op in ops.iter().rev() {
        let name = ctx.op_name_str(op);
        if (name == "bufferization.to_buffer" || name == "bufferization.to_tensor")
            && ctx.op_results_unused(op)
        {
            ctx.erase_op(op);
        }
    }
}
