//! Elementwise graph ops beyond the arithmetic and activations of `graph_to_linalg`: each is a
//! parallel `linalg.generic` with ONNX multidirectional broadcasting in its maps (see
//! [`crate::emit::elementwise`]) and a scalar body of `arith` and `math` ops.
//!
//! | graph ops | body |
//! |---|---|
//! | `Sqrt`, `Floor`, `Ceil`, `Round`, `Log` | `math.sqrt`, `math.floor`, `math.ceil`, `math.roundeven` (halves to even, as ONNX), `math.log` |
//! | `Reciprocal`, `Neg`, `Abs`, `Sign` | `1 / x`; `arith.negf` or `0 - x`; `math.absf` or `math.absi`; two compares and selects |
//! | `Pow` | `math.powf` (an integer exponent converted first), `x * x` for a constant exponent 2; an integer base: see [`crate::pools_ops`] |
//! | `Gelu`, `HardSigmoid`, `HardSwish` | `x/2 (1 + erf(x/√2))` or the tanh form; `max(0, min(1, αx + β))`; `x` times the latter with α = 1/6, β = 1/2 |
//! | `Cast` among floats, signed and unsigned integers and `i1` | `arith.extf`/`truncf`/`fptosi`/`fptoui`/`sitofp`/`uitofp`/`extsi`/`extui`/`trunci` (a float to an integer narrower than 32 bits through `i64`, wrapping), or a compare with zero for a cast to bool |
//! | `Equal`, `Less`, `LessOrEqual`, `Greater`, `GreaterOrEqual` | `arith.cmpf` (ordered) or `arith.cmpi` (signed or unsigned) into `i1` |
//! | `Where` | `arith.select` |
//! | `Not`, `And`, `Or`, `Xor` | `arith.xori` with true, `arith.andi`, `arith.ori`, `arith.xori` on `i1` |
//! | `Max`, `Min`, `Sum`, `Mean` (variadic) | a chain of `maximumf`/`maxsi`/`maxui`, `minimumf`/`minsi`/`minui`, `addf`/`addi`, then a division for `Mean` |
//! | `Identity` | its operand: no op at all |

use nart_dialect_arith::attrs::{cmpf, cmpi as cmpi_pred};
use nart_ir::{Location, Op, PatternRewriter, Type, Value};

use crate::emit::*;
use crate::graph_to_linalg::{float_attr, operand, result_type, string_attr, unary};

/// An elementwise op of one input of any element type: `body(x, elem)`, `elem` being the
/// result's element type.
fn map_one(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    loc: Location,
    body: impl FnOnce(&mut PatternRewriter<'_>, Value, Type) -> Result<Value, String>,
) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    let x = operand(rw, op, 0)?;
    let v = elementwise(rw, &[x], &shape, elem, loc, |rw, a| body(rw, a[0], elem))?;
    Ok(vec![v])
}

/// Fails unless `ty` is a float or a signless integer (not `i1`).
fn numeric(rw: &nart_ir::Context, ty: Type) -> Result<bool, String> {
    if is_float(rw, ty) {
        return Ok(true);
    }
    match signless_width(rw, ty) {
        Some(w) if w > 1 => Ok(false),
        _ => Err(format!(
            "expected a float or signless integer tensor, got '{}'",
            nart_ir::printer::type_to_string(rw, ty)
        )),
    }
}

pub(crate) fn lower_sqrt(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    unary(rw, op, loc, |rw, x| math(rw, "math.sqrt", x, loc))
}
pub(crate) fn lower_floor(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    unary(rw, op, loc, |rw, x| math(rw, "math.floor", x, loc))
}
pub(crate) fn lower_ceil(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    unary(rw, op, loc, |rw, x| math(rw, "math.ceil", x, loc))
}
/// ONNX `Round` rounds halves to even.
pub(crate) fn lower_round(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    unary(rw, op, loc, |rw, x| math(rw, "math.roundeven", x, loc))
}
pub(crate) fn lower_log(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    unary(rw, op, loc, |rw, x| math(rw, "math.log", x, loc))
}
pub(crate) fn lower_reciprocal(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    unary(rw, op, loc, |rw, x| {
        let ty = rw.value_type(x);
        let one = scalar(rw, 1.0, ty, loc);
        Ok(ar(rw, "arith.divf", &[one, x], ty, loc))
    })
}

pub(crate) fn lower_neg(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    map_one(rw, op, loc, |rw, x, elem| {
        Ok(if numeric(rw, elem)? {
            ar(rw, "arith.negf", &[x], elem, loc)
        } else {
            let z = scalar(rw, 0.0, elem, loc);
            ar(rw, "arith.subi", &[z, x], elem, loc)
        })
    })
}

pub(crate) fn lower_abs(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    map_one(rw, op, loc, |rw, x, elem| {
        if numeric(rw, elem)? {
            math(rw, "math.absf", x, loc)
        } else {
            math(rw, "math.absi", x, loc)
        }
    })
}

/// `Sign`: `x > 0 ? 1 : (x < 0 ? -1 : 0)` (a NaN gives 0).
pub(crate) fn lower_sign(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    map_one(rw, op, loc, |rw, x, elem| {
        let float = numeric(rw, elem)?;
        let (z, one, minus) = (
            scalar(rw, 0.0, elem, loc),
            scalar(rw, 1.0, elem, loc),
            scalar(rw, -1.0, elem, loc),
        );
        let (pos, neg) = if float {
            (
                cmpf(rw, cmpf::OGT, x, z, loc),
                cmpf(rw, cmpf::OLT, x, z, loc),
            )
        } else {
            (
                cmpi(rw, cmpi_pred::SGT, x, z, loc),
                cmpi(rw, cmpi_pred::SLT, x, z, loc),
            )
        };
        let n = ar(rw, "arith.select", &[neg, minus, z], elem, loc);
        Ok(ar(rw, "arith.select", &[pos, one, n], elem, loc))
    })
}

/// `Pow(x, y)` for a float `x`: `math.powf`, with an integer `y` converted to `x`'s type; a
/// constant exponent 2 is `x * x`.
pub(crate) fn lower_pow(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    if !is_float(rw, elem) {
        return crate::pools_ops::lower_int_pow(rw, op, loc);
    }
    let (x, y) = (operand(rw, op, 0)?, operand(rw, op, 1)?);
    if constant_scalar(rw, y) == Some(2.0) {
        let v = elementwise(rw, &[x], &shape, elem, loc, |rw, a| {
            Ok(ar(rw, "arith.mulf", &[a[0], a[0]], elem, loc))
        })?;
        return Ok(vec![v]);
    }
    let (_, ye) = static_type(rw, y)?;
    let y_float = numeric(rw, ye)?;
    let v = elementwise(rw, &[x, y], &shape, elem, loc, |rw, a| {
        let e = if y_float {
            crate::floats::float_to_float(rw, a[1], elem, loc)?
        } else {
            ar(rw, "arith.sitofp", &[a[1]], elem, loc)
        };
        binary_math(rw, "math.powf", a[0], e, loc)
    })?;
    Ok(vec![v])
}

/// A `math` op of two operands of the same type.
pub(crate) fn binary_math(
    rw: &mut PatternRewriter<'_>,
    name: &str,
    x: Value,
    y: Value,
    loc: Location,
) -> Result<Value, String> {
    let known = rw
        .lookup_ident(name)
        .and_then(|id| rw.op_def_by_name(id))
        .is_some();
    if !known {
        return Err(format!(
            "needs '{name}', and the math dialect is not registered"
        ));
    }
    let ty = rw.value_type(x);
    let st = nart_ir::OperationState::new(rw.uniq(), name, loc)
        .operands(&[x, y])
        .results(&[ty]);
    let o = rw.create(st);
    Ok(rw.result(o, 0))
}

/// `Gelu`: `x/2 (1 + erf(x/√2))`, or with `approximate = "tanh"`
/// `x/2 (1 + tanh(√(2/π) (x + 0.044715 x³)))`.
pub(crate) fn lower_gelu(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let tanh = match string_attr(rw, op, "approximate") {
        None | Some("none") => false,
        Some("tanh") => true,
        Some(other) => return Err(format!("unknown approximate = \"{other}\"")),
    };
    unary(rw, op, loc, |rw, x| {
        let ty = rw.value_type(x);
        let inner = if tanh {
            let c = scalar(rw, (2.0 / std::f64::consts::PI).sqrt(), ty, loc);
            let k = scalar(rw, 0.044715, ty, loc);
            let x2 = ar(rw, "arith.mulf", &[x, x], ty, loc);
            let x3 = ar(rw, "arith.mulf", &[x2, x], ty, loc);
            let kx3 = ar(rw, "arith.mulf", &[k, x3], ty, loc);
            let s = ar(rw, "arith.addf", &[x, kx3], ty, loc);
            let t = ar(rw, "arith.mulf", &[c, s], ty, loc);
            math(rw, "math.tanh", t, loc)?
        } else {
            let r = scalar(rw, std::f64::consts::FRAC_1_SQRT_2, ty, loc);
            let t = ar(rw, "arith.mulf", &[x, r], ty, loc);
            math(rw, "math.erf", t, loc)?
        };
        let one = scalar(rw, 1.0, ty, loc);
        let half = scalar(rw, 0.5, ty, loc);
        let p = ar(rw, "arith.addf", &[one, inner], ty, loc);
        let hx = ar(rw, "arith.mulf", &[half, x], ty, loc);
        Ok(ar(rw, "arith.mulf", &[hx, p], ty, loc))
    })
}

/// `max(0, min(1, alpha * x + beta))`.
fn hard_sigmoid(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    alpha: f64,
    beta: f64,
    loc: Location,
) -> Value {
    let ty = rw.value_type(x);
    let a = scalar(rw, alpha, ty, loc);
    let b = scalar(rw, beta, ty, loc);
    let ax = ar(rw, "arith.mulf", &[a, x], ty, loc);
    let y = ar(rw, "arith.addf", &[ax, b], ty, loc);
    let one = scalar(rw, 1.0, ty, loc);
    let zero = scalar(rw, 0.0, ty, loc);
    let m = ar(rw, "arith.minimumf", &[y, one], ty, loc);
    ar(rw, "arith.maximumf", &[m, zero], ty, loc)
}

pub(crate) fn lower_hard_sigmoid(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let alpha = float_attr(rw, op, "alpha", 0.2);
    let beta = float_attr(rw, op, "beta", 0.5);
    unary(rw, op, loc, |rw, x| {
        Ok(hard_sigmoid(rw, x, alpha, beta, loc))
    })
}

pub(crate) fn lower_hard_swish(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    unary(rw, op, loc, |rw, x| {
        let ty = rw.value_type(x);
        let h = hard_sigmoid(rw, x, 1.0 / 6.0, 0.5, loc);
        Ok(ar(rw, "arith.mulf", &[x, h], ty, loc))
    })
}

/// `x` of element type `from` as element type `to` (floats, signless integers, `i1`), the
/// integers of each side read as unsigned where its flag says so.
fn cast_scalar(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    (from, from_u): (Type, bool),
    (to, _to_u): (Type, bool),
    loc: Location,
) -> Result<Value, String> {
    if from == to {
        return Ok(x);
    }
    let u = crate::intq_ops::unsigned_name;
    let (ff, tf) = (float_width(rw, from), float_width(rw, to));
    let (fi, ti) = (signless_width(rw, from), signless_width(rw, to));
    Ok(match (ff, fi, tf, ti) {
        (Some(_), _, Some(_), _) => crate::floats::float_to_float(rw, x, to, loc)?,
        // To bool: any non-zero value (and NaN) is true.
        (Some(_), _, _, Some(1)) => {
            let z = scalar(rw, 0.0, from, loc);
            cmpf(rw, cmpf::UNE, x, z, loc)
        }
        // Wrapped as the interpreter does (`x as i128`, then the width's bits), which is
        // the same bits for an unsigned target; LLVM's direct conversion of an out-of-range
        // value is poison.
        (Some(_), _, _, Some(_)) => crate::floats::float_to_int(rw, x, to, loc)?,
        (_, Some(1), Some(_), _) => ar(rw, "arith.uitofp", &[x], to, loc),
        (_, Some(_), Some(_), _) if from_u => ar(rw, u("arith.sitofp"), &[x], to, loc),
        (_, Some(_), Some(_), _) => ar(rw, "arith.sitofp", &[x], to, loc),
        (_, Some(_), _, Some(1)) => {
            let z = scalar(rw, 0.0, from, loc);
            cmpi(rw, cmpi_pred::NE, x, z, loc)
        }
        (_, Some(1), _, Some(_)) => ar(rw, "arith.extui", &[x], to, loc),
        (_, Some(a), _, Some(b)) if a < b && from_u => ar(rw, "arith.extui", &[x], to, loc),
        (_, Some(a), _, Some(b)) if a < b => ar(rw, "arith.extsi", &[x], to, loc),
        (_, Some(a), _, Some(b)) if a == b => x,
        (_, Some(_), _, Some(_)) => ar(rw, "arith.trunci", &[x], to, loc),
        _ => {
            return Err(format!(
                "a cast from '{}' to '{}' is not lowered",
                nart_ir::printer::type_to_string(rw, from),
                nart_ir::printer::type_to_string(rw, to)
            ))
        }
    })
}

/// `Cast` (and `CastLike`): the result type says the target element type.
pub(crate) fn lower_cast(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (_, from) = static_type(rw, x)?;
    let (_, to) = result_type(rw, op)?;
    if from == to {
        return Ok(vec![x]);
    }
    let (fu, tu) = (
        crate::intq_ops::operand_unsigned(rw, op, 0),
        crate::intq_ops::result_unsigned(rw, op, 0),
    );
    map_one(rw, op, loc, |rw, x, to| {
        cast_scalar(rw, x, (from, fu), (to, tu), loc)
    })
}

/// A comparison into `i1`: `float` (an ordered `cmpf` predicate) or `int` (a signed `cmpi`
/// predicate) by the operands' element type.
fn compare(rw: &mut PatternRewriter<'_>, op: Op, loc: Location, float: i128, int: i128) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    let (a, b) = (operand(rw, op, 0)?, operand(rw, op, 1)?);
    let (_, ty) = static_type(rw, a)?;
    let is_f = is_float(rw, ty);
    if !is_f && signless_width(rw, ty).is_none() {
        return Err("expected float or signless integer operands".to_string());
    }
    let unsigned = crate::intq_ops::operand_unsigned(rw, op, 0);
    let v = elementwise(rw, &[a, b], &shape, elem, loc, |rw, v| {
        Ok(if is_f {
            cmpf(rw, float, v[0], v[1], loc)
        } else {
            crate::intq_ops::cmpi_signed(rw, int, unsigned, v[0], v[1], loc)
        })
    })?;
    Ok(vec![v])
}

pub(crate) fn lower_equal(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    compare(rw, op, loc, cmpf::OEQ, cmpi_pred::EQ)
}
pub(crate) fn lower_less(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    compare(rw, op, loc, cmpf::OLT, cmpi_pred::SLT)
}
pub(crate) fn lower_less_or_equal(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    compare(rw, op, loc, cmpf::OLE, cmpi_pred::SLE)
}
pub(crate) fn lower_greater(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    compare(rw, op, loc, cmpf::OGT, cmpi_pred::SGT)
}
pub(crate) fn lower_greater_or_equal(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    loc: Location,
) -> Lowered {
    compare(rw, op, loc, cmpf::OGE, cmpi_pred::SGE)
}

/// `Where(cond, x, y)`: `arith.select`.
pub(crate) fn lower_where(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    let inputs = rw.operands(op).to_vec();
    if inputs.len() != 3 {
        return Err("expected three operands".to_string());
    }
    let v = elementwise(rw, &inputs, &shape, elem, loc, |rw, a| {
        Ok(ar(rw, "arith.select", &[a[0], a[1], a[2]], elem, loc))
    })?;
    Ok(vec![v])
}

/// `Not`: `x xor true`.
pub(crate) fn lower_not(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    map_one(rw, op, loc, |rw, x, elem| {
        if signless_width(rw, elem) != Some(1) {
            return Err("expected a bool tensor".to_string());
        }
        let t = rw.uniq().bool_attr(true);
        let t = constant_of(rw, t, elem, loc);
        Ok(ar(rw, "arith.xori", &[x, t], elem, loc))
    })
}

/// A binary op of `i1` tensors.
fn logic(rw: &mut PatternRewriter<'_>, op: Op, loc: Location, name: &str) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    if signless_width(rw, elem) != Some(1) {
        return Err("expected bool tensors".to_string());
    }
    let inputs = rw.operands(op).to_vec();
    let v = elementwise(rw, &inputs, &shape, elem, loc, |rw, a| {
        Ok(ar(rw, name, a, elem, loc))
    })?;
    Ok(vec![v])
}

pub(crate) fn lower_and(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    logic(rw, op, loc, "arith.andi")
}
pub(crate) fn lower_or(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    logic(rw, op, loc, "arith.ori")
}
pub(crate) fn lower_xor(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    logic(rw, op, loc, "arith.xori")
}

/// A variadic op folding its (broadcast) inputs with `float` or `int`, then dividing by their
/// number for `Mean`.
fn variadic(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    loc: Location,
    float: &str,
    int: &'static str,
    mean: bool,
) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    let is_f = numeric(rw, elem)?;
    if mean && !is_f {
        return Err("Mean of integers is not lowered".to_string());
    }
    let inputs = rw.operands(op).to_vec();
    if inputs.is_empty() {
        return Err("expected at least one operand".to_string());
    }
    let name = match is_f {
        true => float,
        false if crate::intq_ops::result_unsigned(rw, op, 0) => crate::intq_ops::unsigned_name(int),
        false => int,
    };
    let n = inputs.len();
    let v = elementwise(rw, &inputs, &shape, elem, loc, |rw, a| {
        let mut acc = a[0];
        for &x in &a[1..] {
            acc = ar(rw, name, &[acc, x], elem, loc);
        }
        if mean && n > 1 {
            let c = scalar(rw, n as f64, elem, loc);
            acc = ar(rw, "arith.divf", &[acc, c], elem, loc);
        }
        Ok(acc)
    })?;
    Ok(vec![v])
}

pub(crate) fn lower_max(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    variadic(rw, op, loc, "arith.maximumf", "arith.maxsi", false)
}
pub(crate) fn lower_min(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    variadic(rw, op, loc, "arith.minimumf", "arith.minsi", false)
}
pub(crate) fn lower_sum(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    variadic(rw, op, loc, "arith.addf", "arith.addi", false)
}
pub(crate) fn lower_mean(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    variadic(rw, op, loc, "arith.addf", "arith.addi", true)
}

/// `Identity`: the operand itself.
pub(crate) fn lower_identity(rw: &mut PatternRewriter<'_>, op: Op, _: Location) -> Lowered {
    let x = operand(rw, op, 0)?;
    if rw.value_type(x) != rw.value_type(rw.result(op, 0)) {
        return Err("the result type differs from the operand's".to_string());
    }
    Ok(vec![x])
}
