//! `math` to LLVM IR: LLVM's intrinsics where it has one (`llvm.sqrt`, `llvm.exp`, `llvm.fma`,
//! `llvm.ctlz`, ... which the back ends lower to instructions or libm calls), libm calls for
//! the rest (`expm1f`, `log1p`, `erf`, `cbrt`, ..., one call per element for vectors),
//! comparisons for the classifications, and `1 / sqrt(x)` for `rsqrt`.
//! `math.ipowi` is not translated (upstream expands it into a helper function first).

use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, InstructionOpcode as Opc};
use inkwell::FloatPredicate;
use nart_ir::{Context, Diagnostic, Op, TypeData};

use crate::translate::{builder_err, FnTranslator, OpResult};

/// Intrinsic of each op that has one, and how many of the operands it takes.
fn intrinsic_of(name: &str) -> Option<&'static str> {
    Some(match name {
        "math.absf" => "llvm.fabs",
        "math.ceil" => "llvm.ceil",
        "math.floor" => "llvm.floor",
        "math.trunc" => "llvm.trunc",
        "math.round" => "llvm.round",
        "math.roundeven" => "llvm.roundeven",
        "math.sqrt" => "llvm.sqrt",
        "math.sin" => "llvm.sin",
        "math.cos" => "llvm.cos",
        "math.tan" => "llvm.tan",
        "math.asin" => "llvm.asin",
        "math.acos" => "llvm.acos",
        "math.atan" => "llvm.atan",
        "math.sinh" => "llvm.sinh",
        "math.cosh" => "llvm.cosh",
        "math.tanh" => "llvm.tanh",
        "math.exp" => "llvm.exp",
        "math.exp2" => "llvm.exp2",
        "math.log" => "llvm.log",
        "math.log10" => "llvm.log10",
        "math.log2" => "llvm.log2",
        "math.powf" => "llvm.pow",
        "math.copysign" => "llvm.copysign",
        "math.atan2" => "llvm.atan2",
        "math.fma" => "llvm.fma",
        "math.ctpop" => "llvm.ctpop",
        _ => return None,
    })
}

/// The libm function of each op LLVM has no intrinsic for (the `f` suffix is added for f32).
fn libm_of(name: &str) -> Option<&'static str> {
    Some(match name {
        "math.expm1" => "expm1",
        "math.log1p" => "log1p",
        "math.erf" => "erf",
        "math.erfc" => "erfc",
        "math.cbrt" => "cbrt",
        "math.asinh" => "asinh",
        "math.acosh" => "acosh",
        "math.atanh" => "atanh",
        _ => return None,
    })
}

/// Whether the translator knows `name`, a `math` op.
pub fn is_known(name: &str) -> bool {
    intrinsic_of(name).is_some()
        || libm_of(name).is_some()
        || matches!(
            name,
            "math.absi"
                | "math.ctlz"
                | "math.cttz"
                | "math.rsqrt"
                | "math.isnan"
                | "math.isinf"
                | "math.isfinite"
                | "math.isnormal"
                | "math.fpowi"
        )
}

/// What [`crate::translate::check`] reports about a `math` op beyond its types: libm calls
/// exist for `f32` and `f64` only.
pub fn check_op(ir: &Context, op: Op) -> Option<Diagnostic> {
    libm_of(ir.op_name_str(op))?;
    let t = ir.element_type(ir.value_type(ir.result(op, 0)));
    match ir.type_data(t) {
        TypeData::Float(k) if matches!(k.width(), 32 | 64) => None,
        _ => Some(ir.op_error(
            op,
            "cannot be translated to LLVM IR: its libm function exists for f32 and f64 only",
        )),
    }
}

impl<'ll> FnTranslator<'_, '_, 'll> {
    /// A float constant of type `t`, splat for vectors.
    fn float_splat(&self, t: BasicTypeEnum<'ll>, v: f64) -> BasicValueEnum<'ll> {
        match t {
            BasicTypeEnum::VectorType(vt) => {
                let e = vt.get_element_type().into_float_type().const_float(v);
                inkwell::types::VectorType::const_vector(&vec![e; vt.get_size() as usize]).into()
            }
            other => other.into_float_type().const_float(v).into(),
        }
    }

    fn fcmp(
        &self,
        op: Op,
        p: FloatPredicate,
        a: BasicValueEnum<'ll>,
        b: BasicValueEnum<'ll>,
    ) -> Result<BasicValueEnum<'ll>, Diagnostic> {
        let e = builder_err(self.m.ir, op);
        Ok(match a {
            BasicValueEnum::VectorValue(x) => self
                .builder
                .build_float_compare(p, x, b.into_vector_value(), "")
                .map_err(e)?
                .into(),
            other => self
                .builder
                .build_float_compare(p, other.into_float_value(), b.into_float_value(), "")
                .map_err(e)?
                .into(),
        })
    }

    /// Calls the scalar libm function `f` (of `t`'s element type) on each element.
    fn libm_call(
        &self,
        op: Op,
        f: &str,
        x: BasicValueEnum<'ll>,
    ) -> Result<BasicValueEnum<'ll>, Diagnostic> {
        let ir = self.m.ir;
        let e = builder_err(ir, op);
        let t = x.get_type();
        let et = match t {
            BasicTypeEnum::VectorType(v) => v.get_element_type(),
            other => other,
        };
        let ft = et.into_float_type();
        let is_f32 = ft == self.m.ll.f32_type();
        let fname = if is_f32 {
            format!("{f}f")
        } else {
            f.to_string()
        };
        let func = self.m.module.get_function(&fname).unwrap_or_else(|| {
            self.m.module.add_function(
                &fname,
                ft.fn_type(&[ft.into()], false),
                Some(inkwell::module::Linkage::External),
            )
        });
        let call1 = |v: BasicValueEnum<'ll>| -> Result<BasicValueEnum<'ll>, Diagnostic> {
            self.builder
                .build_call(func, &[v.into()], "")
                .map_err(e)?
                .try_as_basic_value()
                .basic()
                .ok_or_else(|| ir.op_error(op, "internal error: a libm call returns nothing"))
        };
        match x {
            BasicValueEnum::VectorValue(v) => {
                let mut acc = v.get_type().get_poison();
                for i in 0..v.get_type().get_size() {
                    let k = self.m.ll.i32_type().const_int(u64::from(i), false);
                    let xi = self.builder.build_extract_element(v, k, "").map_err(e)?;
                    let yi = call1(xi)?;
                    acc = self
                        .builder
                        .build_insert_element(acc, yi, k, "")
                        .map_err(e)?;
                }
                Ok(acc.into())
            }
            other => call1(other),
        }
    }
}

/// Translates one `math` op.
pub(crate) fn lower(fx: &mut FnTranslator<'_, '_, '_>, op: Op, name: &str) -> OpResult {
    let ir = fx.m.ir;
    let e = builder_err(ir, op);
    let n = ir.operands(op).len();
    let args: Vec<BasicValueEnum> = (0..n)
        .map(|i| fx.operand(op, i))
        .collect::<Result<_, _>>()?;
    let x = args[0];
    let t = x.get_type();
    let bool_false = fx.m.ll.bool_type().const_zero().into();
    let v = if let Some(intr) = intrinsic_of(name) {
        fx.intrinsic(op, intr, &[t], &args)?
    } else if let Some(f) = libm_of(name) {
        fx.libm_call(op, f, x)?
    } else {
        match name {
            "math.absi" => fx.intrinsic(op, "llvm.abs", &[t], &[x, bool_false])?,
            "math.ctlz" => fx.intrinsic(op, "llvm.ctlz", &[t], &[x, bool_false])?,
            "math.cttz" => fx.intrinsic(op, "llvm.cttz", &[t], &[x, bool_false])?,
            "math.rsqrt" => {
                let s = fx.intrinsic(op, "llvm.sqrt", &[t], &[x])?;
                let one = fx.float_splat(t, 1.0);
                fx.builder.build_binop(Opc::FDiv, one, s, "").map_err(e)?
            }
            "math.isnan" => fx.fcmp(op, FloatPredicate::UNO, x, x)?,
            "math.isinf" | "math.isfinite" | "math.isnormal" => {
                let a = fx.intrinsic(op, "llvm.fabs", &[t], &[x])?;
                let inf = fx.float_splat(t, f64::INFINITY);
                match name {
                    "math.isinf" => fx.fcmp(op, FloatPredicate::OEQ, a, inf)?,
                    "math.isfinite" => fx.fcmp(op, FloatPredicate::ONE, a, inf)?,
                    _ => {
                        let elem = ir.element_type(ir.value_type(ir.operand(op, 0)));
                        let min_normal = match ir.type_data(elem) {
                            TypeData::Float(k) => match k.width() {
                                16 if *k == nart_ir::FloatKind::F16 => 6.103_515_625e-5,
                                16 => f64::from(f32::MIN_POSITIVE),
                                32 => f64::from(f32::MIN_POSITIVE),
                                _ => f64::MIN_POSITIVE,
                            },
                            _ => f64::MIN_POSITIVE,
                        };
                        let lo = fx.float_splat(t, min_normal);
                        let ge = fx.fcmp(op, FloatPredicate::OGE, a, lo)?;
                        let lt = fx.fcmp(op, FloatPredicate::OLT, a, inf)?;
                        fx.builder.build_binop(Opc::And, ge, lt, "").map_err(e)?
                    }
                }
            }
            "math.fpowi" => {
                // llvm.powi takes an i32 exponent.
                let i32t = fx.m.ll.i32_type();
                let exp = args[1];
                let exp_t: BasicTypeEnum = match exp.get_type() {
                    BasicTypeEnum::VectorType(v) => i32t.vec_type(v.get_size()).into(),
                    _ => i32t.into(),
                };
                let w = match exp.get_type() {
                    BasicTypeEnum::VectorType(v) => {
                        v.get_element_type().into_int_type().get_bit_width()
                    }
                    other => other.into_int_type().get_bit_width(),
                };
                let exp32 = if w == 32 {
                    exp
                } else {
                    let opc = if w > 32 { Opc::Trunc } else { Opc::SExt };
                    fx.builder.build_cast(opc, exp, exp_t, "").map_err(e)?
                };
                fx.intrinsic(op, "llvm.powi", &[t, exp_t], &[x, exp32])?
            }
            _ => return Err(ir.op_error(op, "has no translation to LLVM IR")),
        }
    };
    crate::arith::apply_flags(ir, op, v);
    fx.set_result(op, 0, v);
    Ok(())
}
