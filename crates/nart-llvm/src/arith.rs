//! `arith` to LLVM IR: one instruction or intrinsic per op where LLVM has one, with the op's
//! `overflow<nsw, nuw>`, `exact` and `fastmath<...>` flags carried over; the rounding
//! divisions and the extended operations are expanded as upstream's `arith-expand` does.
//! Every op applies to scalars and to 1-D vectors alike.

use inkwell::builder::{Builder, BuilderError};
use inkwell::types::{BasicTypeEnum, IntType};
use inkwell::values::{BasicValue, BasicValueEnum, InstructionOpcode as Opc, IntValue};
use inkwell::{FloatPredicate, IntPredicate};
use nart_dialect_arith::attrs::{cmpf, cmpi, FASTMATH, OVERFLOW};
use nart_ir::{AttrData, Context, DenseData, Diagnostic, Op, TypeData};

use crate::translate::{FnTranslator, OpResult};

/// Whether the translator knows `name`, an `arith` op.
pub fn is_known(name: &str) -> bool {
    name.strip_prefix("arith.").is_some_and(|m| {
        matches!(
            m,
            "constant"
                | "addi"
                | "subi"
                | "muli"
                | "divsi"
                | "divui"
                | "ceildivsi"
                | "ceildivui"
                | "floordivsi"
                | "remsi"
                | "remui"
                | "andi"
                | "ori"
                | "xori"
                | "shli"
                | "shrsi"
                | "shrui"
                | "maxsi"
                | "maxui"
                | "minsi"
                | "minui"
                | "addui_extended"
                | "mulsi_extended"
                | "mului_extended"
                | "addf"
                | "subf"
                | "mulf"
                | "divf"
                | "remf"
                | "negf"
                | "maximumf"
                | "minimumf"
                | "maxnumf"
                | "minnumf"
                | "cmpi"
                | "cmpf"
                | "select"
                | "extsi"
                | "extui"
                | "trunci"
                | "extf"
                | "truncf"
                | "sitofp"
                | "uitofp"
                | "fptosi"
                | "fptoui"
                | "bitcast"
                | "index_cast"
                | "index_castui"
        )
    })
}

/// What [`crate::translate::check`] reports about an `arith` op beyond its types: attributes
/// the translation cannot honour.
pub fn check_op(ir: &Context, op: Op) -> Option<Diagnostic> {
    let name = ir.op_name_str(op);
    if name == "arith.truncf" && ir.attr(op, "roundingmode").is_some() {
        return Some(ir.op_error(
            op,
            "cannot be translated to LLVM IR: only the default rounding mode is supported",
        ));
    }
    if name == "arith.constant" {
        let value = ir.attr(op, "value")?;
        if !matches!(
            ir.attr_data(value),
            AttrData::Integer { .. }
                | AttrData::WideInteger { .. }
                | AttrData::Float { .. }
                | AttrData::DenseElements {
                    data: DenseData::Splat(_) | DenseData::Elements(_),
                    ..
                }
        ) {
            return Some(ir.op_error(
                op,
                "cannot be translated to LLVM IR: its value is not an integer, float or dense attribute",
            ));
        }
    }
    None
}

/// An integer constant of type `ty` from a sign-extended `i128`.
pub fn const_int_i128(ty: IntType<'_>, v: i128) -> IntValue<'_> {
    let words = [v as u64, (v >> 64) as u64];
    if ty.get_bit_width() <= 64 {
        ty.const_int(words[0], false)
    } else {
        // Sign-extend past 128 bits.
        let n = ty.get_bit_width().div_ceil(64) as usize;
        let fill = if v < 0 { u64::MAX } else { 0 };
        let all: Vec<u64> = (0..n)
            .map(|i| words.get(i).copied().unwrap_or(fill))
            .collect();
        ty.const_int_arbitrary_precision(&all)
    }
}

fn fastmath_flags(ir: &Context, op: Op) -> Option<inkwell::values::FastMathFlags> {
    use inkwell::values::FastMathFlags as F;
    let bits = ir.enum_value(ir.attr(op, "fastmath")?, &FASTMATH)?;
    let table = [
        (1, F::AllowReassoc),
        (2, F::NoNaNs),
        (4, F::NoInfs),
        (8, F::NoSignedZeros),
        (16, F::AllowReciprocal),
        (32, F::AllowContract),
        (64, F::ApproxFunc),
    ];
    Some(
        table
            .iter()
            .filter(|(b, _)| bits & b != 0)
            .fold(F::empty(), |acc, (_, f)| acc | *f),
    )
}

/// Sets the op's flags on the instruction that computes `v` (a constant that LLVM folded
/// has none to set).
pub(crate) fn apply_flags(ir: &Context, op: Op, v: BasicValueEnum<'_>) {
    let Some(inst) = v.as_instruction_value() else {
        return;
    };
    if let Some(bits) = ir
        .attr(op, "overflowFlags")
        .and_then(|a| ir.enum_value(a, &OVERFLOW))
    {
        if bits & 1 != 0 {
            let _ = inst.set_no_signed_wrap_flag(true);
        }
        if bits & 2 != 0 {
            let _ = inst.set_no_unsigned_wrap_flag(true);
        }
    }
    if ir.attr(op, "isExact").is_some() {
        let _ = inst.set_exact_flag(true);
    }
    if let Some(f) = fastmath_flags(ir, op) {
        if inst.can_use_fast_math_flags() {
            let _ = inst.set_fast_math_flags(f);
        }
    }
}

/// The element type of a scalar or vector LLVM type.
fn scalar_of(t: BasicTypeEnum<'_>) -> BasicTypeEnum<'_> {
    match t {
        BasicTypeEnum::VectorType(v) => v.get_element_type(),
        other => other,
    }
}

fn int_width(t: BasicTypeEnum<'_>) -> u32 {
    scalar_of(t).into_int_type().get_bit_width()
}

fn float_width(ir_t: &TypeData) -> u32 {
    match ir_t {
        TypeData::Float(k) => k.width(),
        _ => 0,
    }
}

/// A splat of the scalar constant `c` to the shape of `like` (or `c` itself for scalars).
fn splat_int<'ll>(t: BasicTypeEnum<'ll>, v: i128) -> BasicValueEnum<'ll> {
    match t {
        BasicTypeEnum::VectorType(vt) => {
            let e = const_int_i128(vt.get_element_type().into_int_type(), v);
            let elems = vec![e; vt.get_size() as usize];
            inkwell::types::VectorType::const_vector(&elems).into()
        }
        other => const_int_i128(other.into_int_type(), v).into(),
    }
}

fn int_pred(p: i128) -> Option<IntPredicate> {
    Some(match p {
        cmpi::EQ => IntPredicate::EQ,
        cmpi::NE => IntPredicate::NE,
        cmpi::SLT => IntPredicate::SLT,
        cmpi::SLE => IntPredicate::SLE,
        cmpi::SGT => IntPredicate::SGT,
        cmpi::SGE => IntPredicate::SGE,
        cmpi::ULT => IntPredicate::ULT,
        cmpi::ULE => IntPredicate::ULE,
        cmpi::UGT => IntPredicate::UGT,
        cmpi::UGE => IntPredicate::UGE,
        _ => return None,
    })
}

fn float_pred(p: i128) -> Option<FloatPredicate> {
    Some(match p {
        cmpf::FALSE => FloatPredicate::PredicateFalse,
        cmpf::OEQ => FloatPredicate::OEQ,
        cmpf::OGT => FloatPredicate::OGT,
        cmpf::OGE => FloatPredicate::OGE,
        cmpf::OLT => FloatPredicate::OLT,
        cmpf::OLE => FloatPredicate::OLE,
        cmpf::ONE => FloatPredicate::ONE,
        cmpf::ORD => FloatPredicate::ORD,
        cmpf::UEQ => FloatPredicate::UEQ,
        cmpf::UGT => FloatPredicate::UGT,
        cmpf::UGE => FloatPredicate::UGE,
        cmpf::ULT => FloatPredicate::ULT,
        cmpf::ULE => FloatPredicate::ULE,
        cmpf::UNE => FloatPredicate::UNE,
        cmpf::UNO => FloatPredicate::UNO,
        cmpf::TRUE => FloatPredicate::PredicateTrue,
        _ => return None,
    })
}

/// `icmp p, a, b` on scalars or vectors alike.
pub(crate) fn build_icmp<'ll>(
    builder: &Builder<'ll>,
    p: IntPredicate,
    a: BasicValueEnum<'ll>,
    b: BasicValueEnum<'ll>,
) -> Result<BasicValueEnum<'ll>, BuilderError> {
    Ok(match a {
        BasicValueEnum::VectorValue(v) => builder
            .build_int_compare(p, v, b.into_vector_value(), "")?
            .into(),
        other => builder
            .build_int_compare(p, other.into_int_value(), b.into_int_value(), "")?
            .into(),
    })
}

/// `fcmp p, a, b` on scalars or vectors alike.
pub(crate) fn build_fcmp<'ll>(
    builder: &Builder<'ll>,
    p: FloatPredicate,
    a: BasicValueEnum<'ll>,
    b: BasicValueEnum<'ll>,
) -> Result<BasicValueEnum<'ll>, BuilderError> {
    Ok(match a {
        BasicValueEnum::VectorValue(v) => builder
            .build_float_compare(p, v, b.into_vector_value(), "")?
            .into(),
        other => builder
            .build_float_compare(p, other.into_float_value(), b.into_float_value(), "")?
            .into(),
    })
}

/// `select c, a, b` with a scalar or vector condition.
pub(crate) fn build_select<'ll>(
    builder: &Builder<'ll>,
    c: BasicValueEnum<'ll>,
    a: BasicValueEnum<'ll>,
    b: BasicValueEnum<'ll>,
) -> Result<BasicValueEnum<'ll>, BuilderError> {
    match c {
        BasicValueEnum::VectorValue(v) => builder.build_select(v, a, b, ""),
        other => builder.build_select(other.into_int_value(), a, b, ""),
    }
}

impl<'ll> FnTranslator<'_, '_, 'll> {
    fn binop(
        &self,
        opc: Opc,
        a: BasicValueEnum<'ll>,
        b: BasicValueEnum<'ll>,
    ) -> Result<BasicValueEnum<'ll>, BuilderError> {
        self.builder.build_binop(opc, a, b, "")
    }

    fn icmp(
        &self,
        p: IntPredicate,
        a: BasicValueEnum<'ll>,
        b: BasicValueEnum<'ll>,
    ) -> Result<BasicValueEnum<'ll>, BuilderError> {
        build_icmp(&self.builder, p, a, b)
    }

    fn select(
        &self,
        c: BasicValueEnum<'ll>,
        a: BasicValueEnum<'ll>,
        b: BasicValueEnum<'ll>,
    ) -> Result<BasicValueEnum<'ll>, BuilderError> {
        build_select(&self.builder, c, a, b)
    }

    /// An integer constant of the op's result type from its `value` attribute.
    fn constant(&self, op: Op) -> Result<BasicValueEnum<'ll>, Diagnostic> {
        let ir = self.ir();
        let t = self.result_ty(op, 0);
        let bad = || ir.op_error(op, "has a value with no LLVM IR equivalent");
        let attr = ir.attr(op, "value").ok_or_else(bad)?;
        match ir.attr_data(attr) {
            AttrData::Integer { .. } | AttrData::WideInteger { .. } => {
                let v = nart_dialect_arith::consts::apint_of(ir, attr).ok_or_else(bad)?;
                Ok(t.into_int_type()
                    .const_int_arbitrary_precision(v.words())
                    .into())
            }
            AttrData::Float { bits, .. } => Ok(t
                .into_float_type()
                .const_float(f64::from_bits(*bits))
                .into()),
            AttrData::DenseElements { ty, data } => {
                let n = ir.dense_elem_bytes(*ty).ok_or_else(bad)?;
                let BasicTypeEnum::VectorType(vt) = t else {
                    return Err(bad());
                };
                let count = vt.get_size() as usize;
                let bytes: Vec<u8> = match data {
                    DenseData::Splat(b) => b.repeat(count),
                    DenseData::Elements(b) => b.clone(),
                    DenseData::Strings { .. } => return Err(bad()),
                };
                if bytes.len() != n * count {
                    return Err(bad());
                }
                let et = vt.get_element_type();
                let elem_ir = ir.element_type(*ty);
                // Elements as integers of their storage width, then reinterpreted as floats.
                let (int_t, is_float) = match et {
                    BasicTypeEnum::IntType(it) => (it, false),
                    BasicTypeEnum::FloatType(_) => {
                        let w = float_width(ir.type_data(elem_ir));
                        let w = std::num::NonZeroU32::new(w).ok_or_else(bad)?;
                        (self.m.ll.custom_width_int_type(w).map_err(|_| bad())?, true)
                    }
                    _ => return Err(bad()),
                };
                let elems: Vec<IntValue> = bytes
                    .chunks(n)
                    .map(|c| {
                        let v = nart_ir::apint::ApInt::from_le_bytes(int_t.get_bit_width(), c);
                        int_t.const_int_arbitrary_precision(v.words())
                    })
                    .collect();
                let iv = inkwell::types::VectorType::const_vector(&elems);
                if is_float {
                    self.builder
                        .build_bit_cast(iv, vt, "")
                        .map_err(|e| self.builder_error(op, e))
                } else {
                    Ok(iv.into())
                }
            }
            _ => Err(bad()),
        }
    }
}

/// Translates one `arith` op.
pub(crate) fn lower(fx: &mut FnTranslator<'_, '_, '_>, op: Op, name: &str) -> OpResult {
    let ir = fx.m.ir;
    let e = |e: BuilderError| fx.builder_error(op, e);
    let m = &name["arith.".len()..];
    if m == "constant" {
        let v = fx.constant(op)?;
        fx.set_result(op, 0, v);
        return Ok(());
    }
    let a = fx.operand(op, 0)?;
    let simple_bin = |opc| -> Result<BasicValueEnum, Diagnostic> {
        let b = fx.operand(op, 1)?;
        let v = fx.binop(opc, a, b).map_err(e)?;
        apply_flags(ir, op, v);
        Ok(v)
    };
    let v: BasicValueEnum = match m {
        "addi" => simple_bin(Opc::Add)?,
        "subi" => simple_bin(Opc::Sub)?,
        "muli" => simple_bin(Opc::Mul)?,
        "divsi" => simple_bin(Opc::SDiv)?,
        "divui" => simple_bin(Opc::UDiv)?,
        "remsi" => {
            // Upstream defines `MIN % -1` as 0 (only division by zero is undefined), where
            // LLVM's `srem` is undefined (and traps on x86): divide by 1 instead of -1.
            let b = fx.operand(op, 1)?;
            let t = b.get_type();
            let is_m1 = fx.icmp(IntPredicate::EQ, b, splat_int(t, -1)).map_err(e)?;
            let safe_b = fx.select(is_m1, splat_int(t, 1), b).map_err(e)?;
            fx.binop(Opc::SRem, a, safe_b).map_err(e)?
        }
        "remui" => simple_bin(Opc::URem)?,
        "andi" => simple_bin(Opc::And)?,
        "ori" => simple_bin(Opc::Or)?,
        "xori" => simple_bin(Opc::Xor)?,
        "shli" => simple_bin(Opc::Shl)?,
        "shrsi" => simple_bin(Opc::AShr)?,
        "shrui" => simple_bin(Opc::LShr)?,
        "addf" => simple_bin(Opc::FAdd)?,
        "subf" => simple_bin(Opc::FSub)?,
        "mulf" => simple_bin(Opc::FMul)?,
        "divf" => simple_bin(Opc::FDiv)?,
        "remf" => simple_bin(Opc::FRem)?,
        "negf" => {
            let v: BasicValueEnum = match a {
                BasicValueEnum::VectorValue(x) => {
                    fx.builder.build_float_neg(x, "").map_err(e)?.into()
                }
                other => fx
                    .builder
                    .build_float_neg(other.into_float_value(), "")
                    .map_err(e)?
                    .into(),
            };
            apply_flags(ir, op, v);
            v
        }
        "maxsi" | "maxui" | "minsi" | "minui" | "maximumf" | "minimumf" | "maxnumf" | "minnumf" => {
            let intr = match m {
                "maxsi" => "llvm.smax",
                "maxui" => "llvm.umax",
                "minsi" => "llvm.smin",
                "minui" => "llvm.umin",
                "maximumf" => "llvm.maximum",
                "minimumf" => "llvm.minimum",
                "maxnumf" => "llvm.maxnum",
                _ => "llvm.minnum",
            };
            let b = fx.operand(op, 1)?;
            let v = fx.intrinsic(op, intr, &[a.get_type()], &[a, b])?;
            apply_flags(ir, op, v);
            v
        }
        "ceildivsi" | "floordivsi" => {
            // q = a / b, r = a % b; ceil adds one when r != 0 and r, b have the same sign,
            // floor subtracts one when they differ.
            let b = fx.operand(op, 1)?;
            let t = a.get_type();
            let q = fx.binop(Opc::SDiv, a, b).map_err(e)?;
            let r = fx.binop(Opc::SRem, a, b).map_err(e)?;
            let zero = splat_int(t, 0);
            let one = splat_int(t, 1);
            let r_nz = fx.icmp(IntPredicate::NE, r, zero).map_err(e)?;
            let r_neg = fx.icmp(IntPredicate::SLT, r, zero).map_err(e)?;
            let b_neg = fx.icmp(IntPredicate::SLT, b, zero).map_err(e)?;
            let (pred, step) = if m == "ceildivsi" {
                (IntPredicate::EQ, Opc::Add)
            } else {
                (IntPredicate::NE, Opc::Sub)
            };
            let signs = fx.icmp(pred, r_neg, b_neg).map_err(e)?;
            let adjust = fx.binop(Opc::And, r_nz, signs).map_err(e)?;
            let stepped = fx.binop(step, q, one).map_err(e)?;
            fx.select(adjust, stepped, q).map_err(e)?
        }
        "ceildivui" => {
            let b = fx.operand(op, 1)?;
            let t = a.get_type();
            let q = fx.binop(Opc::UDiv, a, b).map_err(e)?;
            let r = fx.binop(Opc::URem, a, b).map_err(e)?;
            let r_nz = fx.icmp(IntPredicate::NE, r, splat_int(t, 0)).map_err(e)?;
            let up = fx.builder.build_cast(Opc::ZExt, r_nz, t, "").map_err(e)?;
            fx.binop(Opc::Add, q, up).map_err(e)?
        }
        "addui_extended" => {
            let b = fx.operand(op, 1)?;
            let sum = fx.binop(Opc::Add, a, b).map_err(e)?;
            let carry = fx.icmp(IntPredicate::ULT, sum, a).map_err(e)?;
            fx.set_result(op, 1, carry);
            sum
        }
        "mulsi_extended" | "mului_extended" => {
            // Multiply at twice the width; the low and high halves are the results.
            let b = fx.operand(op, 1)?;
            let t = a.get_type();
            let w = int_width(t);
            let wide_elem = fx.m.ll.custom_width_int_type(
                std::num::NonZeroU32::new(2 * w).expect("a width is positive"),
            );
            let wide_elem = wide_elem.map_err(|m| ir.op_error(op, m))?;
            let wide: BasicTypeEnum = match t {
                BasicTypeEnum::VectorType(v) => wide_elem.vec_type(v.get_size()).into(),
                _ => wide_elem.into(),
            };
            let ext = if m == "mulsi_extended" {
                Opc::SExt
            } else {
                Opc::ZExt
            };
            let aw = fx.builder.build_cast(ext, a, wide, "").map_err(e)?;
            let bw = fx.builder.build_cast(ext, b, wide, "").map_err(e)?;
            let p = fx.binop(Opc::Mul, aw, bw).map_err(e)?;
            let lo = fx.builder.build_cast(Opc::Trunc, p, t, "").map_err(e)?;
            let sh = fx
                .binop(Opc::LShr, p, splat_int(wide, i128::from(w)))
                .map_err(e)?;
            let hi = fx.builder.build_cast(Opc::Trunc, sh, t, "").map_err(e)?;
            fx.set_result(op, 1, hi);
            lo
        }
        "cmpi" => {
            let b = fx.operand(op, 1)?;
            let p = ir
                .attr(op, "predicate")
                .and_then(|p| ir.attr_int(p))
                .and_then(int_pred)
                .ok_or_else(|| ir.op_error(op, "has an invalid predicate"))?;
            fx.icmp(p, a, b).map_err(e)?
        }
        "cmpf" => {
            let b = fx.operand(op, 1)?;
            let p = ir
                .attr(op, "predicate")
                .and_then(|p| ir.attr_int(p))
                .and_then(float_pred)
                .ok_or_else(|| ir.op_error(op, "has an invalid predicate"))?;
            let v: BasicValueEnum = match a {
                BasicValueEnum::VectorValue(x) => fx
                    .builder
                    .build_float_compare(p, x, b.into_vector_value(), "")
                    .map_err(e)?
                    .into(),
                other => fx
                    .builder
                    .build_float_compare(p, other.into_float_value(), b.into_float_value(), "")
                    .map_err(e)?
                    .into(),
            };
            apply_flags(ir, op, v);
            v
        }
        "select" => {
            let t = fx.operand(op, 1)?;
            let f = fx.operand(op, 2)?;
            fx.select(a, t, f).map_err(e)?
        }
        "extsi" | "extui" | "trunci" | "extf" | "truncf" | "sitofp" | "uitofp" | "fptosi"
        | "fptoui" | "bitcast" => {
            let opc = match m {
                "extsi" => Opc::SExt,
                "extui" => Opc::ZExt,
                "trunci" => Opc::Trunc,
                "extf" => Opc::FPExt,
                "truncf" => Opc::FPTrunc,
                "sitofp" => Opc::SIToFP,
                "uitofp" => Opc::UIToFP,
                "fptosi" => Opc::FPToSI,
                "fptoui" => Opc::FPToUI,
                _ => Opc::BitCast,
            };
            let to = fx.result_ty(op, 0);
            match crate::narrow::convert(fx.m.ll, &fx.builder, m, a, to).map_err(e)? {
                Some(v) => v,
                None => {
                    let v = fx.builder.build_cast(opc, a, to, "").map_err(e)?;
                    apply_flags(ir, op, v);
                    v
                }
            }
        }
        "index_cast" | "index_castui" => {
            let to = fx.result_ty(op, 0);
            let (wa, wt) = (int_width(a.get_type()), int_width(to));
            if wa == wt {
                a
            } else if wa > wt {
                fx.builder.build_cast(Opc::Trunc, a, to, "").map_err(e)?
            } else {
                let opc = if m == "index_cast" {
                    Opc::SExt
                } else {
                    Opc::ZExt
                };
                fx.builder.build_cast(opc, a, to, "").map_err(e)?
            }
        }
        _ => return Err(ir.op_error(op, "has no translation to LLVM IR")),
    };
    fx.set_result(op, 0, v);
    Ok(())
}
