//! `vector` to LLVM IR. Only 1-D vectors have an LLVM type (`vector<8xf32>` is `<8 x float>`);
//! ops on n-D vectors are reported by the type check, so the vectorizer emits 1-D vectors.
//!
//! - `load` and `store` move consecutive elements along the memref's innermost dimension:
//!   one vector load or store when that dimension's stride is 1, a gather or scatter of the
//!   strided elements otherwise.
//! - `transfer_read` and `transfer_write` walk the memref dimension their permutation map
//!   names (`(d0, d1) -> (d1)` the innermost, `-> (d0)` a column). Where `in_bounds` does not
//!   rule it out, lanes past the dimension's size are masked off: `llvm.masked.load` reads
//!   `padding` there and `llvm.masked.store` skips them (`llvm.masked.gather` and
//!   `llvm.masked.scatter` for strided dimensions); a `mask` operand is and-ed in. A broadcast
//!   map (`-> (0)`) reads one element and splats it.
//! - `broadcast` splats a scalar (or a one-element vector), `from_elements`, `extract`,
//!   `insert` and `shuffle` are LLVM's element and shuffle instructions, `fma` is `llvm.fma`.
//! - `reduction` is `llvm.vector.reduce.*`; an ordered sum or product (`fadd`, `fmul` with the
//!   accumulator, or `-0.0` and `1.0`, as start) unless `fastmath` allows reassociation.
//! - `outerproduct` of a vector and a scalar is the vector scaled by the scalar, fused into
//!   the accumulator with `llvm.fma` for `add` on floats, combined by `kind` otherwise.
//!
//! `contract` and anything on n-D vectors have no translation.

use inkwell::attributes::AttributeLoc;
use inkwell::types::{BasicTypeEnum, VectorType};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValue, BasicValueEnum, IntValue, PointerValue, VectorValue,
};
use inkwell::values::{CallSiteValue, ValueKind};
use inkwell::IntPredicate;
use nart_dialect_vector::attrs::kind_name;
use nart_ir::{AffineExpr, AttrData, Context, DenseArrayData, Diagnostic, Op, Type, DYNAMIC};

use crate::translate::{builder_err, FnTranslator, OpResult};

/// Whether the translator knows `name`, a `vector` op.
pub fn is_known(name: &str) -> bool {
    matches!(
        name,
        "vector.load"
            | "vector.store"
            | "vector.transfer_read"
            | "vector.transfer_write"
            | "vector.broadcast"
            | "vector.from_elements"
            | "vector.extract"
            | "vector.insert"
            | "vector.shuffle"
            | "vector.fma"
            | "vector.reduction"
            | "vector.outerproduct"
    )
}

/// Which memref dimension a transfer walks: `Some(d)` for a map result `dN`, `None` for a
/// broadcast (the constant 0). `Err` names what is not supported.
fn transfer_dim(ir: &Context, op: Op) -> Result<Option<usize>, &'static str> {
    let map = ir
        .attr(op, "permutation_map")
        .map(|a| ir.attr_data(a))
        .ok_or("the transfer has no permutation map")?;
    let AttrData::AffineMap(m) = map else {
        return Err("the permutation map is not an affine map");
    };
    match m.results.as_slice() {
        [AffineExpr::Dim(d)] => Ok(Some(*d as usize)),
        [AffineExpr::Const(0)] => Ok(None),
        _ => Err("only transfers of 1-D vectors along one memref dimension are supported"),
    }
}

/// The transfer's `in_bounds` for its one vector dimension (`false` when absent).
fn in_bounds(ir: &Context, op: Op) -> bool {
    match ir.attr(op, "in_bounds").map(|a| ir.attr_data(a)) {
        Some(AttrData::Array(v)) => v.first().and_then(|&a| ir.attr_bool(a)).unwrap_or(false),
        _ => false,
    }
}

fn is_float(ir: &Context, t: Type) -> bool {
    matches!(
        ir.type_data(ir.element_type(t)),
        nart_ir::TypeData::Float(_)
    )
}

/// What [`crate::translate::check`] reports about a `vector` op beyond its types.
pub fn check_op(ir: &Context, op: Op) -> Option<Diagnostic> {
    let name = ir.op_name_str(op);
    let refuse =
        |why: &str| Some(ir.op_error(op, format!("cannot be translated to LLVM IR: {why}")));
    match name {
        "vector.transfer_read" | "vector.transfer_write" => match transfer_dim(ir, op) {
            Err(why) => refuse(why),
            Ok(None) if name == "vector.transfer_write" => {
                refuse("a transfer_write cannot broadcast")
            }
            Ok(_) => None,
        },
        "vector.reduction" | "vector.outerproduct" => {
            let kind = ir.attr(op, "kind").and_then(|a| kind_name(ir, a));
            let float = is_float(ir, ir.value_type(ir.operand(op, 0)));
            match (kind, float) {
                (None, _) if name == "vector.outerproduct" => None,
                (Some(k), f) if combine_is_valid(k, f) => None,
                (Some(k), _) => refuse(&format!(
                    "the combining kind '{k}' does not apply to this element type"
                )),
                (None, _) => refuse("the combining kind is missing"),
            }
        }
        _ => None,
    }
}

fn combine_is_valid(kind: &str, float: bool) -> bool {
    match kind {
        "add" | "mul" => true,
        "minnumf" | "maxnumf" | "minimumf" | "maximumf" => float,
        _ => !float,
    }
}

/// A pointer to the first element a load or transfer reads, the element stride of the dimension
/// it walks, and how many elements remain in that dimension.
struct Access<'ll> {
    base: PointerValue<'ll>,
    stride: IntValue<'ll>,
    remaining: Option<IntValue<'ll>>,
}

impl<'ll> FnTranslator<'_, '_, 'll> {
    /// The access of `op` to the memref at operand `mem` with the indices that follow it,
    /// along memref dimension `dim`.
    fn access(
        &self,
        op: Op,
        mem: usize,
        indices: std::ops::Range<usize>,
        dim: Option<usize>,
    ) -> Result<Access<'ll>, Diagnostic> {
        let ir = self.m.ir;
        let idx: Vec<IntValue> = indices
            .map(|i| Ok(self.operand(op, i)?.into_int_value()))
            .collect::<Result<_, Diagnostic>>()?;
        let base = self.element_ptr(op, mem, &idx)?;
        let mv = ir.operand(op, mem);
        let d = self.desc_of(op, self.value(op, mv)?, ir.value_type(mv))?;
        let (stride, remaining) = match dim {
            Some(k) if k < idx.len() => {
                let rem = self
                    .builder
                    .build_int_sub(d.sizes[k], idx[k], "")
                    .map_err(builder_err(ir, op))?;
                (d.strides[k], Some(rem))
            }
            Some(_) => {
                return Err(ir.op_error(op, "walks a dimension the memref does not have"));
            }
            None => (self.i64c(0), None),
        };
        Ok(Access {
            base,
            stride,
            remaining,
        })
    }

    /// `v` in every lane of an `n`-lane vector.
    fn splat(
        &self,
        op: Op,
        v: BasicValueEnum<'ll>,
        n: u32,
    ) -> Result<VectorValue<'ll>, Diagnostic> {
        let e = builder_err(self.m.ir, op);
        let vt = vec_of(v.get_type(), n);
        let poison = vt.get_poison();
        let i32t = self.m.ll.i32_type();
        let one = self
            .builder
            .build_insert_element(poison, v, i32t.const_zero(), "")
            .map_err(e)?;
        let zeros = i32t.vec_type(n).const_zero();
        self.builder
            .build_shuffle_vector(one, poison, zeros, "")
            .map_err(e)
    }

    /// The lanes `i < remaining` of an `n`-lane mask, and-ed with `extra` when given.
    fn lane_mask(
        &self,
        op: Op,
        n: u32,
        remaining: Option<IntValue<'ll>>,
        extra: Option<VectorValue<'ll>>,
    ) -> Result<Option<VectorValue<'ll>>, Diagnostic> {
        let e = builder_err(self.m.ir, op);
        let i64t = self.m.ll.i64_type();
        let bounds = match remaining {
            Some(rem) => {
                let lanes: Vec<IntValue> = (0..n)
                    .map(|i| i64t.const_int(u64::from(i), false))
                    .collect();
                let lanes = VectorType::const_vector(&lanes);
                let rem = self.splat(op, rem.into(), n)?;
                Some(
                    self.builder
                        .build_int_compare(IntPredicate::SLT, lanes, rem, "")
                        .map_err(e)?,
                )
            }
            None => None,
        };
        Ok(match (bounds, extra) {
            (Some(b), Some(x)) => Some(self.builder.build_and(b, x, "").map_err(e)?),
            (b, x) => b.or(x),
        })
    }

    /// The `n` lane addresses `base + i * stride`, as a vector of pointers.
    fn lane_ptrs(
        &self,
        op: Op,
        et: BasicTypeEnum<'ll>,
        a: &Access<'ll>,
        n: u32,
    ) -> Result<VectorValue<'ll>, Diagnostic> {
        let e = builder_err(self.m.ir, op);
        let ptr = self.m.ll.ptr_type(inkwell::AddressSpace::default());
        let mut v = ptr.vec_type(n).get_poison();
        for i in 0..n {
            let off = self.mul(op, self.i64c(i64::from(i)), a.stride)?;
            // SAFETY: see `element_ptr`; masked-off lanes are computed but never accessed.
            let p = unsafe { self.builder.build_gep(et, a.base, &[off], "") }.map_err(e)?;
            v = self
                .builder
                .build_insert_element(
                    v,
                    p,
                    self.m.ll.i32_type().const_int(u64::from(i), false),
                    "",
                )
                .map_err(e)?;
        }
        Ok(v)
    }

    /// Calls an overloaded intrinsic and returns the call (for those that return nothing).
    fn call_intrinsic(
        &self,
        op: Op,
        name: &str,
        overloads: &[BasicTypeEnum<'ll>],
        args: &[BasicValueEnum<'ll>],
    ) -> Result<CallSiteValue<'ll>, Diagnostic> {
        let decl = inkwell::intrinsics::Intrinsic::find(name)
            .and_then(|i| i.get_declaration(&self.m.module, overloads))
            .ok_or_else(|| {
                self.m.ir.op_error(
                    op,
                    format!("internal error: LLVM has no intrinsic '{name}'"),
                )
            })?;
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|&a| a.into()).collect();
        self.builder
            .build_call(decl, &args, "")
            .map_err(|e| self.builder_error(op, e))
    }

    fn call_value(
        &self,
        op: Op,
        call: CallSiteValue<'ll>,
    ) -> Result<BasicValueEnum<'ll>, Diagnostic> {
        match call.try_as_basic_value() {
            ValueKind::Basic(v) => Ok(v),
            ValueKind::Instruction(_) => Err(self
                .m
                .ir
                .op_error(op, "internal error: an intrinsic returned nothing")),
        }
    }

    /// Reads `n` lanes of `vt` through `a`, `pad` where `mask` is off.
    fn read_lanes(
        &self,
        op: Op,
        vt: VectorType<'ll>,
        a: &Access<'ll>,
        mask: Option<VectorValue<'ll>>,
        pad: VectorValue<'ll>,
    ) -> Result<BasicValueEnum<'ll>, Diagnostic> {
        let e = builder_err(self.m.ir, op);
        let n = vt.get_size();
        let et = vt.get_element_type();
        if is_bool(et) {
            // A memref of `i1` holds a byte per element, and a vector of `i1` in memory is
            // packed bits: read bytes and truncate.
            let bytes = self.m.ll.i8_type().vec_type(n);
            let pad = self.builder.build_int_z_extend(pad, bytes, "").map_err(e)?;
            let v = self.read_lanes(op, bytes, a, mask, pad)?;
            return Ok(self
                .builder
                .build_int_truncate(v.into_vector_value(), vt, "")
                .map_err(e)?
                .into());
        }
        let align = elem_align(et);
        let unit = a.stride.get_sign_extended_constant() == Some(1);
        let ptr_ty = self.m.ll.ptr_type(inkwell::AddressSpace::default());
        if unit && mask.is_none() {
            let v = self.builder.build_load(vt, a.base, "").map_err(e)?;
            if let Some(i) = v.as_instruction_value() {
                let _ = i.set_alignment(align);
            }
            return Ok(v);
        }
        let mask = match mask {
            Some(m) => m,
            None => all_true(self.m.ll, n),
        };
        let call = if unit {
            self.call_intrinsic(
                op,
                "llvm.masked.load",
                &[vt.into(), ptr_ty.into()],
                &[a.base.into(), mask.into(), pad.into()],
            )?
        } else {
            let ptrs = self.lane_ptrs(op, et, a, n)?;
            self.call_intrinsic(
                op,
                "llvm.masked.gather",
                &[vt.into(), ptrs.get_type().into()],
                &[ptrs.into(), mask.into(), pad.into()],
            )?
        };
        call.set_alignment_attribute(AttributeLoc::Param(0), align);
        self.call_value(op, call)
    }

    /// Writes the lanes of `v` through `a` where `mask` is on.
    fn write_lanes(
        &self,
        op: Op,
        v: VectorValue<'ll>,
        a: &Access<'ll>,
        mask: Option<VectorValue<'ll>>,
    ) -> OpResult {
        let e = builder_err(self.m.ir, op);
        let vt = v.get_type();
        let n = vt.get_size();
        let et = vt.get_element_type();
        if is_bool(et) {
            // A byte per element, as a scalar `i1` store writes (see `read_lanes`).
            let bytes = self.m.ll.i8_type().vec_type(n);
            let w = self.builder.build_int_z_extend(v, bytes, "").map_err(e)?;
            return self.write_lanes(op, w, a, mask);
        }
        let align = elem_align(et);
        let unit = a.stride.get_sign_extended_constant() == Some(1);
        let ptr_ty = self.m.ll.ptr_type(inkwell::AddressSpace::default());
        if unit && mask.is_none() {
            let st = self.builder.build_store(a.base, v).map_err(e)?;
            let _ = st.set_alignment(align);
            return Ok(());
        }
        let mask = match mask {
            Some(m) => m,
            None => all_true(self.m.ll, n),
        };
        let call = if unit {
            self.call_intrinsic(
                op,
                "llvm.masked.store",
                &[vt.into(), ptr_ty.into()],
                &[v.into(), a.base.into(), mask.into()],
            )?
        } else {
            let ptrs = self.lane_ptrs(op, et, a, n)?;
            self.call_intrinsic(
                op,
                "llvm.masked.scatter",
                &[vt.into(), ptrs.get_type().into()],
                &[v.into(), ptrs.into(), mask.into()],
            )?
        };
        call.set_alignment_attribute(AttributeLoc::Param(1), align);
        Ok(())
    }

    /// `a kind b` for scalars or vectors of the same type.
    fn combine(
        &self,
        op: Op,
        kind: &str,
        a: BasicValueEnum<'ll>,
        b: BasicValueEnum<'ll>,
    ) -> Result<BasicValueEnum<'ll>, Diagnostic> {
        let e = builder_err(self.m.ir, op);
        let float = matches!(scalar_of(a.get_type()), BasicTypeEnum::FloatType(_));
        let bld = &self.builder;
        let v: BasicValueEnum = match (kind, float) {
            ("add", true) => {
                binop(bld, inkwell::values::InstructionOpcode::FAdd, a, b).map_err(e)?
            }
            ("mul", true) => {
                binop(bld, inkwell::values::InstructionOpcode::FMul, a, b).map_err(e)?
            }
            ("add", false) => {
                binop(bld, inkwell::values::InstructionOpcode::Add, a, b).map_err(e)?
            }
            ("mul", false) => {
                binop(bld, inkwell::values::InstructionOpcode::Mul, a, b).map_err(e)?
            }
            ("and", _) => binop(bld, inkwell::values::InstructionOpcode::And, a, b).map_err(e)?,
            ("or", _) => binop(bld, inkwell::values::InstructionOpcode::Or, a, b).map_err(e)?,
            ("xor", _) => binop(bld, inkwell::values::InstructionOpcode::Xor, a, b).map_err(e)?,
            (k, _) => {
                let name = minmax_intrinsic(k).ok_or_else(|| {
                    self.m
                        .ir
                        .op_error(op, format!("has an unknown combining kind '{k}'"))
                })?;
                let c =
                    self.call_intrinsic(op, &format!("llvm.{name}"), &[a.get_type()], &[a, b])?;
                self.call_value(op, c)?
            }
        };
        Ok(v)
    }
}

/// The LLVM name (after `llvm.`) of the two-operand form of a min or max kind.
fn minmax_intrinsic(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "minsi" => "smin",
        "maxsi" => "smax",
        "minui" => "umin",
        "maxui" => "umax",
        "minnumf" => "minnum",
        "maxnumf" => "maxnum",
        "minimumf" => "minimum",
        "maximumf" => "maximum",
        _ => return None,
    })
}

/// The `llvm.vector.reduce.*` suffix of a kind.
fn reduce_intrinsic(kind: &str, float: bool) -> Option<&'static str> {
    Some(match (kind, float) {
        ("add", true) => "fadd",
        ("mul", true) => "fmul",
        ("add", false) => "add",
        ("mul", false) => "mul",
        ("and", _) => "and",
        ("or", _) => "or",
        ("xor", _) => "xor",
        ("minsi", _) => "smin",
        ("maxsi", _) => "smax",
        ("minui", _) => "umin",
        ("maxui", _) => "umax",
        ("minnumf", _) => "fmin",
        ("maxnumf", _) => "fmax",
        ("minimumf", _) => "fminimum",
        ("maximumf", _) => "fmaximum",
        _ => return None,
    })
}

fn binop<'ll>(
    b: &inkwell::builder::Builder<'ll>,
    opc: inkwell::values::InstructionOpcode,
    x: BasicValueEnum<'ll>,
    y: BasicValueEnum<'ll>,
) -> Result<BasicValueEnum<'ll>, inkwell::builder::BuilderError> {
    b.build_binop(opc, x, y, "")
}

fn scalar_of(t: BasicTypeEnum<'_>) -> BasicTypeEnum<'_> {
    match t {
        BasicTypeEnum::VectorType(v) => v.get_element_type(),
        other => other,
    }
}

fn vec_of(t: BasicTypeEnum<'_>, n: u32) -> VectorType<'_> {
    match t {
        BasicTypeEnum::IntType(t) => t.vec_type(n),
        BasicTypeEnum::FloatType(t) => t.vec_type(n),
        BasicTypeEnum::PointerType(t) => t.vec_type(n),
        other => unreachable!("vector elements are integers, floats or pointers, not {other:?}"),
    }
}

/// Whether `t` is `i1`.
fn is_bool(t: BasicTypeEnum<'_>) -> bool {
    matches!(t, BasicTypeEnum::IntType(i) if i.get_bit_width() == 1)
}

fn all_true(ll: &inkwell::context::Context, n: u32) -> VectorValue<'_> {
    let t = ll.bool_type().const_all_ones();
    VectorType::const_vector(&vec![t; n as usize])
}

/// The alignment of one element (what a vector access of consecutive elements may assume).
fn elem_align(et: BasicTypeEnum<'_>) -> u32 {
    let bytes = match et {
        BasicTypeEnum::IntType(t) => t.get_bit_width().div_ceil(8),
        BasicTypeEnum::FloatType(t) => {
            let c = t.get_context();
            if t == c.f16_type() || t == c.bf16_type() {
                2
            } else if t == c.f32_type() {
                4
            } else if t == c.f64_type() {
                8
            } else {
                16
            }
        }
        _ => 8,
    };
    bytes.next_power_of_two().max(1)
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

/// The lane of a 1-D `vector.extract` or `vector.insert`: its one position entry, constant or
/// from the first dynamic operand (at `dynamic_at`); `None` for an empty position.
fn lane<'ll>(
    fx: &FnTranslator<'_, '_, 'll>,
    op: Op,
    dynamic_at: usize,
) -> Result<Option<IntValue<'ll>>, Diagnostic> {
    let pos = dense_i64(fx.m.ir, op, "static_position");
    match pos.as_slice() {
        [] => Ok(None),
        [p] if *p == DYNAMIC => Ok(Some(fx.operand(op, dynamic_at)?.into_int_value())),
        [p] => Ok(Some(fx.i64c(*p))),
        _ => Err(fx.m.ir.op_error(
            op,
            "cannot be translated to LLVM IR: only 1-D vectors are supported",
        )),
    }
}

/// Translates one `vector` op.
pub(crate) fn lower<'ll>(fx: &mut FnTranslator<'_, '_, 'll>, op: Op, name: &str) -> OpResult {
    let ir = fx.m.ir;
    let e = builder_err(ir, op);
    let n_ops = ir.operands(op).len();
    match name {
        "vector.load" => {
            let vt = fx.result_ty(op, 0).into_vector_type();
            let rank = ir
                .shape_of(ir.value_type(ir.operand(op, 0)))
                .map_or(0, <[i64]>::len);
            let dim = rank.checked_sub(1);
            let a = fx.access(op, 0, 1..n_ops, dim)?;
            let a = Access {
                remaining: None,
                ..a
            };
            let v = fx.read_lanes(op, vt, &a, None, vt.get_poison())?;
            fx.set_result(op, 0, v);
        }
        "vector.store" => {
            let v = fx.operand(op, 0)?.into_vector_value();
            let rank = ir
                .shape_of(ir.value_type(ir.operand(op, 1)))
                .map_or(0, <[i64]>::len);
            let a = fx.access(op, 1, 2..n_ops, rank.checked_sub(1))?;
            let a = Access {
                remaining: None,
                ..a
            };
            fx.write_lanes(op, v, &a, None)?;
        }
        "vector.transfer_read" => {
            let groups = nart_ir::registry::value_groups(ir, op, false)
                .ok_or_else(|| ir.op_error(op, "has malformed operand segments"))?;
            let vt = fx.result_ty(op, 0).into_vector_type();
            let n = vt.get_size();
            let dim = transfer_dim(ir, op).map_err(|why| {
                ir.op_error(op, format!("cannot be translated to LLVM IR: {why}"))
            })?;
            let a = fx.access(op, 0, groups[1].clone(), dim)?;
            let pad = fx.operand(op, groups[2].start)?;
            let pad = fx.splat(op, pad, n)?;
            let extra = match groups.get(3).filter(|g| !g.is_empty()) {
                Some(g) => Some(fx.operand(op, g.start)?.into_vector_value()),
                None => None,
            };
            let v = match dim {
                None => {
                    // A broadcast reads the one element (in bounds, as upstream assumes).
                    let x = fx
                        .builder
                        .build_load(vt.get_element_type(), a.base, "")
                        .map_err(e)?;
                    let s = fx.splat(op, x, n)?;
                    match extra {
                        Some(m) => fx.builder.build_select(m, s, pad, "").map_err(e)?,
                        None => s.into(),
                    }
                }
                Some(_) => {
                    let rem = if in_bounds(ir, op) { None } else { a.remaining };
                    let mask = fx.lane_mask(op, n, rem, extra)?;
                    fx.read_lanes(op, vt, &a, mask, pad)?
                }
            };
            fx.set_result(op, 0, v);
        }
        "vector.transfer_write" => {
            let groups = nart_ir::registry::value_groups(ir, op, false)
                .ok_or_else(|| ir.op_error(op, "has malformed operand segments"))?;
            let v = fx.operand(op, 0)?.into_vector_value();
            let n = v.get_type().get_size();
            let dim = transfer_dim(ir, op).map_err(|why| {
                ir.op_error(op, format!("cannot be translated to LLVM IR: {why}"))
            })?;
            let a = fx.access(op, 1, groups[2].clone(), dim)?;
            let extra = match groups.get(3).filter(|g| !g.is_empty()) {
                Some(g) => Some(fx.operand(op, g.start)?.into_vector_value()),
                None => None,
            };
            let rem = if in_bounds(ir, op) { None } else { a.remaining };
            let mask = fx.lane_mask(op, n, rem, extra)?;
            fx.write_lanes(op, v, &a, mask)?;
        }
        "vector.broadcast" => {
            let src = fx.operand(op, 0)?;
            let vt = fx.result_ty(op, 0).into_vector_type();
            let v: BasicValueEnum = match src {
                BasicValueEnum::VectorValue(sv) if sv.get_type() == vt => sv.into(),
                BasicValueEnum::VectorValue(sv) => {
                    // A one-element vector: its element everywhere.
                    let x = fx
                        .builder
                        .build_extract_element(sv, fx.m.ll.i32_type().const_zero(), "")
                        .map_err(e)?;
                    fx.splat(op, x, vt.get_size())?.into()
                }
                x => fx.splat(op, x, vt.get_size())?.into(),
            };
            fx.set_result(op, 0, v);
        }
        "vector.from_elements" => {
            let vt = fx.result_ty(op, 0).into_vector_type();
            let mut v = vt.get_poison();
            for i in 0..n_ops {
                let x = fx.operand(op, i)?;
                v = fx
                    .builder
                    .build_insert_element(v, x, fx.m.ll.i32_type().const_int(i as u64, false), "")
                    .map_err(e)?;
            }
            fx.set_result(op, 0, v.into());
        }
        "vector.extract" => {
            let src = fx.operand(op, 0)?;
            let v = match lane(fx, op, 1)? {
                None => src,
                Some(i) => fx
                    .builder
                    .build_extract_element(src.into_vector_value(), i, "")
                    .map_err(e)?,
            };
            fx.set_result(op, 0, v);
        }
        "vector.insert" => {
            let x = fx.operand(op, 0)?;
            let dest = fx.operand(op, 1)?;
            let v: BasicValueEnum = match lane(fx, op, 2)? {
                None => x,
                Some(i) => fx
                    .builder
                    .build_insert_element(dest.into_vector_value(), x, i, "")
                    .map_err(e)?
                    .into(),
            };
            fx.set_result(op, 0, v);
        }
        "vector.shuffle" => {
            let a = fx.operand(op, 0)?.into_vector_value();
            let b = fx.operand(op, 1)?.into_vector_value();
            let i32t = fx.m.ll.i32_type();
            let mask: Vec<IntValue> = dense_i64(ir, op, "mask")
                .into_iter()
                .map(|m| {
                    if m < 0 {
                        i32t.get_poison()
                    } else {
                        i32t.const_int(m as u64, false)
                    }
                })
                .collect();
            let mask = VectorType::const_vector(&mask);
            let v = if a.get_type() == b.get_type() {
                fx.builder.build_shuffle_vector(a, b, mask, "").map_err(e)?
            } else {
                return Err(ir.op_error(
                    op,
                    "cannot be translated to LLVM IR: shuffles of vectors of different lengths are not supported",
                ));
            };
            fx.set_result(op, 0, v.into());
        }
        "vector.fma" => {
            let args = [fx.operand(op, 0)?, fx.operand(op, 1)?, fx.operand(op, 2)?];
            let c = fx.call_intrinsic(op, "llvm.fma", &[args[0].get_type()], &args)?;
            let v = fx.call_value(op, c)?;
            fx.set_result(op, 0, v);
        }
        "vector.reduction" => {
            let kind = ir
                .attr(op, "kind")
                .and_then(|a| kind_name(ir, a))
                .ok_or_else(|| ir.op_error(op, "has no combining kind"))?;
            let v = fx.operand(op, 0)?;
            let acc = if n_ops > 1 {
                Some(fx.operand(op, 1)?)
            } else {
                None
            };
            let et = scalar_of(v.get_type());
            let float = matches!(et, BasicTypeEnum::FloatType(_));
            let suffix = reduce_intrinsic(kind, float).ok_or_else(|| {
                ir.op_error(
                    op,
                    format!("cannot be translated to LLVM IR: the combining kind '{kind}' does not apply to this element type"),
                )
            })?;
            let name = format!("llvm.vector.reduce.{suffix}");
            let r = if float && matches!(kind, "add" | "mul") {
                // The ordered forms take the accumulator (or the identity) as their start.
                let start = match acc {
                    Some(a) => a,
                    None => {
                        let ft = et.into_float_type();
                        let identity = if kind == "add" { -0.0 } else { 1.0 };
                        ft.const_float(identity).into()
                    }
                };
                let c = fx.call_intrinsic(op, &name, &[v.get_type()], &[start, v])?;
                let r = fx.call_value(op, c)?;
                crate::arith::apply_flags(ir, op, r);
                r
            } else {
                let c = fx.call_intrinsic(op, &name, &[v.get_type()], &[v])?;
                let r = fx.call_value(op, c)?;
                crate::arith::apply_flags(ir, op, r);
                match acc {
                    Some(a) => fx.combine(op, kind, r, a)?,
                    None => r,
                }
            };
            fx.set_result(op, 0, r);
        }
        "vector.outerproduct" => {
            let lhs = fx.operand(op, 0)?;
            let rhs = fx.operand(op, 1)?;
            let n = lhs.get_type().into_vector_type().get_size();
            let rhs = match rhs {
                BasicValueEnum::VectorValue(_) => {
                    return Err(ir.op_error(
                        op,
                        "cannot be translated to LLVM IR: only the vector-times-scalar form is supported (its 2-D result has no LLVM type)",
                    ))
                }
                x => fx.splat(op, x, n)?.into(),
            };
            let kind = ir
                .attr(op, "kind")
                .and_then(|a| kind_name(ir, a))
                .unwrap_or("add");
            let acc = if n_ops > 2 {
                Some(fx.operand(op, 2)?)
            } else {
                None
            };
            let float = matches!(scalar_of(lhs.get_type()), BasicTypeEnum::FloatType(_));
            let v = match (acc, kind, float) {
                (Some(acc), "add", true) => {
                    let c =
                        fx.call_intrinsic(op, "llvm.fma", &[lhs.get_type()], &[lhs, rhs, acc])?;
                    fx.call_value(op, c)?
                }
                (acc, kind, _) => {
                    let p = fx.combine(op, "mul", lhs, rhs)?;
                    match acc {
                        Some(acc) => fx.combine(op, kind, p, acc)?,
                        None => p,
                    }
                }
            };
            fx.set_result(op, 0, v);
        }
        _ => return Err(ir.op_error(op, "has no translation to LLVM IR")),
    }
    Ok(())
}
