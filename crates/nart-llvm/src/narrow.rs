//! Conversions into `bfloat`, and from `double` into `half`, written out in integer operations.
//!
//! LLVM lowers `fptrunc` to `bfloat` (from `float` or `double`) and `fptrunc double to half`
//! on x86-64 into calls to compiler-rt's `__truncsfbf2`, `__truncdfbf2` and `__truncdfhf2`,
//! which the system's libgcc may not have (GCC 12's has none of the `bf2` ones): the shared
//! object would load and then stop the process at the first call. So the translation computes
//! them itself, for scalars and vectors alike, with the semantics of upstream's `arith.truncf`
//! without a rounding mode (to nearest, ties to even):
//!
//! - `float` to `bfloat`: the upper half of the word after adding `0x7fff` plus the lowest kept
//!   bit (which carries into the exponent exactly when the result rounds up to the next
//!   binade or to infinity); a NaN keeps its upper half with the quiet bit set.
//! - `double` to `float` first, rounded to odd (the `fptrunc` result, moved one unit toward
//!   the `double` when it was inexact and even), then as above: rounding to odd with at least
//!   two more bits than the target makes the second rounding the correct one.
//! - `double` to `half`: rounded to odd into `float`, then LLVM's `fptrunc float to half`
//!   (an instruction with F16C or on AArch64).
//! - `sitofp`/`uitofp` to `bfloat`: into `double`, then as above.

use inkwell::builder::{Builder, BuilderError};
use inkwell::context::Context as LlContext;
use inkwell::types::{BasicType, BasicTypeEnum};
use inkwell::values::{BasicValueEnum, InstructionOpcode as Opc};
use inkwell::{FloatPredicate, IntPredicate};

/// `op` (`truncf`, `sitofp` or `uitofp`) of `a` into `to`, when it is one of the conversions
/// this module writes out; `None` leaves it to LLVM.
pub(crate) fn convert<'ll>(
    ll: &'ll LlContext,
    b: &Builder<'ll>,
    op: &str,
    a: BasicValueEnum<'ll>,
    to: BasicTypeEnum<'ll>,
) -> Result<Option<BasicValueEnum<'ll>>, BuilderError> {
    let lanes = match to {
        BasicTypeEnum::VectorType(v) => Some(v.get_size()),
        _ => None,
    };
    let elem = |t: BasicTypeEnum<'ll>| match t {
        BasicTypeEnum::VectorType(v) => v.get_element_type(),
        other => other,
    };
    let (from, to_e) = (elem(a.get_type()), elem(to));
    let (half, bfloat, float, double) = (
        ll.f16_type().as_basic_type_enum(),
        ll.bf16_type().as_basic_type_enum(),
        ll.f32_type().as_basic_type_enum(),
        ll.f64_type().as_basic_type_enum(),
    );
    let n = Narrow { ll, b, lanes };
    Ok(Some(match op {
        "truncf" if to_e == bfloat && from == float => n.float_to_bfloat(a)?,
        "truncf" if to_e == bfloat && from == double => {
            let f = n.double_to_float_odd(a)?;
            n.float_to_bfloat(f)?
        }
        "truncf" if to_e == half && from == double => {
            let f = n.double_to_float_odd(a)?;
            b.build_cast(Opc::FPTrunc, f, to, "")?
        }
        "sitofp" | "uitofp" if to_e == bfloat => {
            let opc = if op == "sitofp" {
                Opc::SIToFP
            } else {
                Opc::UIToFP
            };
            let d = b.build_cast(opc, a, n.ty(double), "")?;
            let f = n.double_to_float_odd(d)?;
            n.float_to_bfloat(f)?
        }
        _ => return Ok(None),
    }))
}

/// Builds scalar or vector (`lanes`) code.
struct Narrow<'a, 'll> {
    ll: &'ll LlContext,
    b: &'a Builder<'ll>,
    lanes: Option<u32>,
}

impl<'ll> Narrow<'_, 'll> {
    /// `t`, or a vector of it.
    fn ty(&self, t: BasicTypeEnum<'ll>) -> BasicTypeEnum<'ll> {
        match (self.lanes, t) {
            (Some(n), BasicTypeEnum::IntType(i)) => i.vec_type(n).into(),
            (Some(n), BasicTypeEnum::FloatType(f)) => f.vec_type(n).into(),
            _ => t,
        }
    }

    /// The `i32` `v`, splat for vectors.
    fn int(&self, v: u64) -> BasicValueEnum<'ll> {
        let c = self.ll.i32_type().const_int(v, false);
        match self.lanes {
            Some(n) => inkwell::types::VectorType::const_vector(&vec![c; n as usize]).into(),
            None => c.into(),
        }
    }

    fn bin(
        &self,
        op: Opc,
        x: BasicValueEnum<'ll>,
        y: BasicValueEnum<'ll>,
    ) -> Result<BasicValueEnum<'ll>, BuilderError> {
        self.b.build_binop(op, x, y, "")
    }

    fn fcmp(
        &self,
        p: FloatPredicate,
        x: BasicValueEnum<'ll>,
        y: BasicValueEnum<'ll>,
    ) -> Result<BasicValueEnum<'ll>, BuilderError> {
        crate::arith::build_fcmp(self.b, p, x, y)
    }

    fn icmp(
        &self,
        p: IntPredicate,
        x: BasicValueEnum<'ll>,
        y: BasicValueEnum<'ll>,
    ) -> Result<BasicValueEnum<'ll>, BuilderError> {
        crate::arith::build_icmp(self.b, p, x, y)
    }

    fn select(
        &self,
        c: BasicValueEnum<'ll>,
        x: BasicValueEnum<'ll>,
        y: BasicValueEnum<'ll>,
    ) -> Result<BasicValueEnum<'ll>, BuilderError> {
        crate::arith::build_select(self.b, c, x, y)
    }

    /// `x` (`float`) rounded to `bfloat`, to nearest even.
    fn float_to_bfloat(&self, x: BasicValueEnum<'ll>) -> Result<BasicValueEnum<'ll>, BuilderError> {
        let i32t = self.ty(self.ll.i32_type().into());
        let bits = self.b.build_cast(Opc::BitCast, x, i32t, "")?;
        let hi = self.bin(Opc::LShr, bits, self.int(16))?;
        let lsb = self.bin(Opc::And, hi, self.int(1))?;
        let bias = self.bin(Opc::Add, lsb, self.int(0x7fff))?;
        let sum = self.bin(Opc::Add, bits, bias)?;
        let rounded = self.bin(Opc::LShr, sum, self.int(16))?;
        let quiet = self.bin(Opc::Or, hi, self.int(0x40))?;
        let nan = self.fcmp(FloatPredicate::UNO, x, x)?;
        let word = self.select(nan, quiet, rounded)?;
        let i16t = self.ty(self.ll.i16_type().into());
        let half_word = self.b.build_cast(Opc::Trunc, word, i16t, "")?;
        self.b.build_cast(
            Opc::BitCast,
            half_word,
            self.ty(self.ll.bf16_type().into()),
            "",
        )
    }

    /// `x` (`double`) rounded to `float`, to odd: exact values stay, an inexact one takes
    /// the neighbour of `x` whose last bit is 1.
    fn double_to_float_odd(
        &self,
        x: BasicValueEnum<'ll>,
    ) -> Result<BasicValueEnum<'ll>, BuilderError> {
        let float = self.ty(self.ll.f32_type().into());
        let double = self.ty(self.ll.f64_type().into());
        let y = self.b.build_cast(Opc::FPTrunc, x, float, "")?;
        let back = self.b.build_cast(Opc::FPExt, y, double, "")?;
        let i32t = self.ty(self.ll.i32_type().into());
        let bits = self.b.build_cast(Opc::BitCast, y, i32t, "")?;
        // Inexact (NaN compares unequal too, and stays NaN whatever its last bit).
        let inexact = self.fcmp(FloatPredicate::UNE, back, x)?;
        let lsb = self.bin(Opc::And, bits, self.int(1))?;
        let even = self.icmp(IntPredicate::EQ, lsb, self.int(0))?;
        let fix = self.bin(Opc::And, inexact, even)?;
        // Toward x: the magnitude grows when the result is below x and positive, or above x
        // and negative.
        let below = self.fcmp(FloatPredicate::OLT, back, x)?;
        let negative = self.icmp(IntPredicate::SLT, bits, self.int(0))?;
        let grow = self.bin(Opc::Xor, below, negative)?;
        let step = self.select(grow, self.int(1), self.int(u64::from(u32::MAX)))?;
        let moved = self.bin(Opc::Add, bits, step)?;
        let odd = self.select(fix, moved, bits)?;
        self.b.build_cast(Opc::BitCast, odd, float, "")
    }
}
