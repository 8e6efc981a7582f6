//! `convert-qnn-to-linalg`: the `quant` casts and the `qnn` integer ops become `linalg.generic`s
//! on the storage integers, computing exactly what `nart_tensor::qnn` (the interpreter's
//! kernels) computes, through the core's dialect conversion with a type converter.
//!
//! # Types
//!
//! A tensor of `!quant.uniform<...>` elements becomes a tensor of its signless storage integers
//! (`i8` for `i8` and `u8`, `i16`, `i32`), as upstream's `getStorageType`; an unsigned storage
//! value is read with `arith.extui`, a signed one with `arith.extsi`. Function signatures
//! change with it. Storage of other widths (`i4`, `i2`, `i3`...), unsigned 32-bit storage and
//! per-block parameters are not lowered: the ops that use them are refused with the reason.
//!
//! # Arithmetic
//!
//! Products accumulate in `i32` with wrapping `arith.muli`/`addi` as `Σ (q1 − Z1)(q2 − Z2)`,
//! which is the kernels' `Σ q1·q2 − Z2·Σ q1 − Z1·Σ q2 + K·Z1·Z2` modulo `2^32`; padded input
//! positions hold `Z1`, so they add nothing, as in the kernels. Requantization multiplies in
//! `i64` by the fixed-point multiplier `m` that `nart_tensor::qnn::FixedMultiplier` computes at
//! compile time and rounds once, `round(x·m / 2^k)`, with the op's tie rule written with
//! shifts and masks. A lowering checks at compile time that `|x·m|` stays below `2^62` for
//! every value the operand types allow (it refuses otherwise), which makes the `i64` result
//! equal to the kernels' `i128` one; a shift of more than 62 bits rounds every such product to
//! 0 and becomes a multiplier of 0.
//!
//! | op | structured form |
//! |---|---|
//! | `quant.qcast` | a parallel generic: `divf` in `f32`, `math.roundeven` in `f64`, `+ Z`, NaN to `Z`, clamp, `fptosi`, `trunci` |
//! | `quant.dcast` | a parallel generic: `sitofp`/`uitofp`, `(q − Z) · S` in `f32` |
//! | `quant.scast` | nothing: the storage is the same |
//! | `qnn.requantize` | a parallel generic, per-axis parameters as constant tensors read along the axis |
//! | `qnn.conv` (2-D) | `tensor.pad` with `Z1`, a grouped generic accumulating in `i32`, a requantizing generic with the bias |
//! | `qnn.matmul` | a generic over the batch (broadcast in the maps), `M`, `N` and `K` in `i32`, a requantizing generic |
//! | `qnn.add`, `qnn.mul` | a parallel generic with broadcasting maps |
//! | `qnn.concat` | a requantizing generic per input whose parameters differ, then `tensor.concat` |
//! | `qnn.max_pool` | `tensor.pad` with the storage's smallest value, a generic of `maxsi`/`maxui` |
//! | `qnn.avg_pool` | `tensor.pad` with `Z`, a window sum in `i32`, requantization by a multiplier per window count |
//! | `qnn.lut` | a generic reducing over the table: the entry whose index matches (one `select` per entry) |

use nart_dialect_linalg::builders::create_generic;
use nart_dialect_linalg::structured::{add, d, identity, map, mul_const};
use nart_dialect_linalg::IteratorType::{self, Parallel as P, Reduction as R};
use nart_dialect_quant::{QuantParams, UniformQuantizedType};
use nart_ir::{
    AffineExpr, AffineMap, AttrData, Context, DenseData, Location, Op, OperationState,
    PatternRewriter, Type, TypeData, Uniquer, Value,
};
use nart_pass::{Pass, PassFailure, PassState};
use nart_rewrite::conversion::{
    apply_partial_conversion, ConversionPattern, ConversionPatternSet, ConversionRewriter,
    ConversionTarget, OpAdaptor, TypeConverter,
};
use nart_tensor::qnn::{Activation, FixedMultiplier, Output, QParams, Rounding};
use nart_tensor::DType;

use crate::emit::{ar, empty, filled, pad, reshape, scalar, static_type, Lowered};

// ----- types -----

/// The storage tensor type of a tensor of a lowered quantized type (`None` for anything else).
fn storage_tensor(u: &mut Uniquer, ty: Type) -> Option<Type> {
    let TypeData::RankedTensor { shape, elem, .. } = u.type_data(ty).clone() else {
        return None;
    };
    let q = u
        .type_data(elem)
        .downcast::<UniformQuantizedType>()?
        .clone();
    lowered_storage(&q).ok()?;
    let s = u.int_type(q.storage_width);
    Some(u.tensor_type(shape, s))
}

/// Why a quantized type is not lowered, if it is not.
fn lowered_storage(q: &UniformQuantizedType) -> Result<DType, String> {
    let dtype = match (q.storage_width, q.signed) {
        (8, true) => DType::I8,
        (8, false) => DType::U8,
        (16, true) => DType::I16,
        (16, false) => DType::U16,
        (32, true) => DType::I32,
        (w, s) => {
            return Err(format!(
                "{}{w} storage is not lowered (i8, u8, i16, u16 and i32 are)",
                if s { "i" } else { "u" }
            ))
        }
    };
    if matches!(q.params, QuantParams::PerBlock { .. }) {
        return Err("per-block quantization is not lowered".to_string());
    }
    Ok(dtype)
}

/// Quantized tensors to their storage tensors, every other type unchanged.
pub fn type_converter() -> TypeConverter {
    let mut types = TypeConverter::new();
    types
        .add_identity_conversion()
        .add_conversion(|u, t| storage_tensor(u, t).map(|s| vec![s]));
    types
}

/// A quantized tensor value as the kernels see it.
struct Q {
    shape: Vec<i64>,
    p: QParams,
    width: u32,
    signed: bool,
    /// The signless storage element type.
    storage: Type,
}

impl Q {
    /// The largest `|q − Z|` over the storage type's full range and every zero point.
    fn bound(&self) -> i128 {
        let (lo, hi) = nart_tensor::qnn::full_range(self.p.dtype);
        self.p
            .zero_points
            .iter()
            .map(|&z| {
                (i128::from(lo) - i128::from(z))
                    .abs()
                    .max((i128::from(hi) - i128::from(z)).abs())
            })
            .max()
            .unwrap_or(0)
    }

    /// The smallest value of the storage type (what a lookup table starts at).
    fn first(&self) -> i64 {
        self.p.first()
    }

    fn per_tensor(&self, what: &str) -> Result<(f64, i64), String> {
        if self.p.axis.is_some() || self.p.scales.len() != 1 {
            return Err(format!("{what} must be quantized per tensor"));
        }
        Ok((self.p.scales[0], self.p.zero_points[0]))
    }
}

fn quant_of(rw: &mut PatternRewriter<'_>, v: Value, what: &str) -> Result<Q, String> {
    let ty = rw.value_type(v);
    let (shape, elem) = static_type(rw, v)?;
    let Some(q) = rw
        .type_data(elem)
        .downcast::<UniformQuantizedType>()
        .cloned()
    else {
        return Err(format!(
            "{what} is not a quantized tensor: '{}'",
            nart_ir::printer::type_to_string(rw, ty)
        ));
    };
    let dtype = lowered_storage(&q).map_err(|e| format!("{what}: {e}"))?;
    let p = match &q.params {
        QuantParams::PerTensor { scale, zero_point } => {
            QParams::per_tensor(dtype, f64::from_bits(*scale), *zero_point)
        }
        QuantParams::PerAxis {
            axis,
            scales,
            zero_points,
        } => QParams::per_axis(
            dtype,
            *axis as usize,
            scales.iter().map(|&s| f64::from_bits(s)).collect(),
            zero_points.clone(),
        ),
        QuantParams::PerBlock { .. } => {
            return Err(format!("{what}: per-block quantization is not lowered"))
        }
    }
    .with_bits(q.storage_width)
    .with_range(q.storage_min, q.storage_max);
    let storage = rw.uniq().int_type(q.storage_width);
    Ok(Q {
        shape,
        width: q.storage_width,
        signed: q.signed,
        p,
        storage,
    })
}

// ----- scalar helpers -----

/// `v` as a two's complement value of `width` bits, read as signed (what a signless integer
/// attribute of that width holds).
fn wrap(v: i64, width: u32) -> i64 {
    if width >= 64 {
        v
    } else {
        let s = 64 - width;
        (v << s) >> s
    }
}

fn int_ty(rw: &mut PatternRewriter<'_>, width: u32) -> Type {
    rw.uniq().int_type(width)
}

/// An exact `arith.constant` of a 64-bit value (`scalar` goes through `f64`).
fn ci64(rw: &mut PatternRewriter<'_>, v: i64, loc: Location) -> Value {
    let ty = int_ty(rw, 64);
    let a = rw.uniq().int_attr(ty, i128::from(v));
    let st = nart_dialect_arith::constant_state(rw.uniq(), a, ty, loc);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// `arith.constant v : f64`/`f32` of the float type `ty`.
fn cf(rw: &mut PatternRewriter<'_>, v: f64, ty: Type, loc: Location) -> Value {
    scalar(rw, v, ty, loc)
}

const CMPI_EQ: i128 = 0;
const CMPI_NE: i128 = 1;
const CMPI_SGT: i128 = 4;
const CMPI_SGE: i128 = 5;
const CMPF_UNO: i128 = 14;

fn cmp(
    rw: &mut PatternRewriter<'_>,
    name: &str,
    pred: i128,
    a: Value,
    b: Value,
    loc: Location,
) -> Value {
    let i1 = rw.uniq().int_type(1);
    let i64t = rw.uniq().int_type(64);
    let p = rw.uniq().int_attr(i64t, pred);
    let st = nart_dialect_arith::op_state(rw.uniq(), name, &[a, b], &[i1], loc).prop(
        rw.uniq(),
        "predicate",
        p,
    );
    let op = rw.create(st);
    rw.result(op, 0)
}

/// A storage value of `q` extended to `width` bits (zero-extended for unsigned storage).
fn widen(rw: &mut PatternRewriter<'_>, v: Value, q: &Q, width: u32, loc: Location) -> Value {
    if q.width == width {
        return v;
    }
    let ty = int_ty(rw, width);
    let name = if q.signed {
        "arith.extsi"
    } else {
        "arith.extui"
    };
    ar(rw, name, &[v], ty, loc)
}

/// `round(p / 2^k)` on `i64` with ties as `mode` says (`k` in `1..=62`).
fn rounding_shift(
    rw: &mut PatternRewriter<'_>,
    p: Value,
    k: Value,
    mode: Rounding,
    loc: Location,
) -> Value {
    let i64t = int_ty(rw, 64);
    let one = ci64(rw, 1, loc);
    let k1 = ar(rw, "arith.subi", &[k, one], i64t, loc);
    let half = ar(rw, "arith.shli", &[one, k1], i64t, loc);
    if mode == Rounding::HalfUp {
        // floor((p + 2^(k-1)) / 2^k): ties go up.
        let s = ar(rw, "arith.addi", &[p, half], i64t, loc);
        return ar(rw, "arith.shrsi", &[s, k], i64t, loc);
    }
    let floor = ar(rw, "arith.shrsi", &[p, k], i64t, loc);
    let full = ar(rw, "arith.shli", &[one, k], i64t, loc);
    let mask = ar(rw, "arith.subi", &[full, one], i64t, loc);
    let rem = ar(rw, "arith.andi", &[p, mask], i64t, loc);
    let gt = cmp(rw, "arith.cmpi", CMPI_SGT, rem, half, loc);
    let eq = cmp(rw, "arith.cmpi", CMPI_EQ, rem, half, loc);
    let zero = ci64(rw, 0, loc);
    let tie_up = match mode {
        Rounding::HalfAway => cmp(rw, "arith.cmpi", CMPI_SGE, p, zero, loc),
        _ => {
            let odd = ar(rw, "arith.andi", &[floor, one], i64t, loc);
            cmp(rw, "arith.cmpi", CMPI_NE, odd, zero, loc)
        }
    };
    let i1 = int_ty(rw, 1);
    let tie = ar(rw, "arith.andi", &[eq, tie_up], i1, loc);
    let up = ar(rw, "arith.ori", &[gt, tie], i1, loc);
    let upi = ar(rw, "arith.extui", &[up], i64t, loc);
    ar(rw, "arith.addi", &[floor, upi], i64t, loc)
}

/// `trunc(clamp(z + r, lo, hi))` into the storage type of `y` (`r` on `i64`).
fn store(
    rw: &mut PatternRewriter<'_>,
    r: Value,
    z: Value,
    lo: i64,
    hi: i64,
    y: &Q,
    loc: Location,
) -> Value {
    let i64t = int_ty(rw, 64);
    let v = ar(rw, "arith.addi", &[r, z], i64t, loc);
    let lo = ci64(rw, lo, loc);
    let hi = ci64(rw, hi, loc);
    let v = ar(rw, "arith.maxsi", &[v, lo], i64t, loc);
    let v = ar(rw, "arith.minsi", &[v, hi], i64t, loc);
    ar(rw, "arith.trunci", &[v], y.storage, loc)
}

/// The multiplier `real` as `(m, k)` with `M ⊗ x = round(x·m / 2^k)` for every `|x| ≤ bound`
/// exactly as the kernels compute it, on `i64` (see the module docs).
fn fixed(op: &'static str, real: f64, bound: i128) -> Result<(i64, i64), String> {
    let f = FixedMultiplier::new(op, real).map_err(|e| e.to_string())?;
    fit(f.m.into(), f.right_shift(), bound, real)
}

fn fit(m: i128, k: i32, bound: i128, real: f64) -> Result<(i64, i64), String> {
    if m == 0 {
        return Ok((0, 1));
    }
    if k < 1 {
        return Err(format!(
            "the requantization multiplier {real} is too large to lower (2^30 or more)"
        ));
    }
    if bound.saturating_mul(m) >= 1 << 62 {
        return Err(format!(
            "the products of the requantization by {real} do not fit 62 bits for every stored value"
        ));
    }
    if k > 62 {
        // |x·m| < 2^62 ≤ 2^(k−1): every product rounds to 0.
        return Ok((0, 1));
    }
    Ok((m as i64, i64::from(k)))
}

// ----- constants and parameters -----

/// `arith.constant dense<vals> : tensor<shape x iW>` (or of `f32` with `float`).
fn const_tensor(
    rw: &mut PatternRewriter<'_>,
    shape: &[i64],
    elem: Type,
    bytes: Vec<u8>,
    loc: Location,
) -> Value {
    let ty = rw.uniq().tensor_type(shape.to_vec(), elem);
    let a = rw.uniq().intern_attr(AttrData::DenseElements {
        ty,
        data: DenseData::Elements(bytes),
    });
    let st = nart_dialect_arith::constant_state(rw.uniq(), a, ty, loc);
    let op = rw.create(st);
    rw.result(op, 0)
}

fn int_bytes(vals: &[i64], width: u32) -> Vec<u8> {
    let n = (width / 8) as usize;
    vals.iter()
        .flat_map(|&v| v.to_le_bytes()[..n].to_vec())
        .collect()
}

/// A scalar operand of a generic's body: one constant, or a constant tensor read through a map.
pub(crate) enum Param {
    /// The same value everywhere.
    Scalar(ParamValue),
    /// A tensor of `shape`, read at `map` of the loops.
    Tensor {
        vals: Vec<ParamValue>,
        shape: Vec<i64>,
        map: AffineMap,
    },
}

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum ParamValue {
    I64(i64),
    F32(f32),
}

impl Param {
    /// `vals` of a tensor of `shape` read at `map`; one constant when they are all equal.
    fn new(vals: Vec<ParamValue>, shape: Vec<i64>, map: AffineMap) -> Param {
        if vals.iter().all(|v| *v == vals[0]) {
            Param::Scalar(vals[0])
        } else {
            Param::Tensor { vals, shape, map }
        }
    }

    pub(crate) fn ints(vals: Vec<i64>, shape: Vec<i64>, map: AffineMap) -> Param {
        Param::new(vals.into_iter().map(ParamValue::I64).collect(), shape, map)
    }

    pub(crate) fn floats(vals: Vec<f32>, shape: Vec<i64>, map: AffineMap) -> Param {
        Param::new(vals.into_iter().map(ParamValue::F32).collect(), shape, map)
    }

    pub(crate) fn int(v: i64) -> Param {
        Param::Scalar(ParamValue::I64(v))
    }
}

/// A `linalg.generic` of `inputs` (each with its map) and `params` into `init` (identity map
/// over the result's dimensions, the first of `iters`): `body` gets the input elements, the
/// parameters (`i64` or `f32` scalars) and the init element.
#[allow(clippy::too_many_arguments)]
pub(crate) fn generic(
    rw: &mut PatternRewriter<'_>,
    inputs: &[(Value, AffineMap)],
    params: &[Param],
    init: Value,
    out_map: AffineMap,
    iters: &[IteratorType],
    loc: Location,
    body: impl FnOnce(&mut PatternRewriter<'_>, &[Value], &[Value], Value) -> Value,
) -> Value {
    let mut values: Vec<Value> = inputs.iter().map(|(v, _)| *v).collect();
    let mut maps: Vec<AffineMap> = inputs.iter().map(|(_, m)| m.clone()).collect();
    let i64t = int_ty(rw, 64);
    let f32t = rw.uniq().f32_type();
    for p in params {
        if let Param::Tensor { vals, shape, map } = p {
            let (elem, bytes) = match vals[0] {
                ParamValue::I64(_) => (
                    i64t,
                    vals.iter()
                        .flat_map(|v| match v {
                            ParamValue::I64(x) => x.to_le_bytes().to_vec(),
                            ParamValue::F32(x) => (*x as i64).to_le_bytes().to_vec(),
                        })
                        .collect(),
                ),
                ParamValue::F32(_) => (
                    f32t,
                    vals.iter()
                        .flat_map(|v| match v {
                            ParamValue::F32(x) => x.to_le_bytes().to_vec(),
                            ParamValue::I64(x) => (*x as f32).to_le_bytes().to_vec(),
                        })
                        .collect(),
                ),
            };
            values.push(const_tensor(rw, shape, elem, bytes, loc));
            maps.push(map.clone());
        }
    }
    maps.push(out_map);
    let n_in = inputs.len();
    let g = create_generic(rw, &values, &[init], maps, iters, loc, |rw, args| {
        let mut next = n_in;
        let mut ps = Vec::with_capacity(params.len());
        for p in params {
            ps.push(match p {
                Param::Scalar(ParamValue::I64(v)) => ci64(rw, *v, loc),
                Param::Scalar(ParamValue::F32(v)) => {
                    let t = rw.uniq().f32_type();
                    cf(rw, f64::from(*v), t, loc)
                }
                Param::Tensor { .. } => {
                    next += 1;
                    args[next - 1]
                }
            });
        }
        let acc = args[args.len() - 1];
        vec![body(rw, &args[..n_in], &ps, acc)]
    });
    rw.result(g, 0)
}

/// A map of `n` loops reading one dimension.
fn dim_map(n: u32, dim: u32) -> AffineMap {
    map(n, vec![d(dim)])
}

// ----- the ops -----

fn rounding_of(ctx: &Context, op: Op) -> Rounding {
    use nart_dialect_qnn::attrs::{enum_prop, rounding, ROUNDING_ATTR};
    match enum_prop(ctx, op, "rounding", &ROUNDING_ATTR, rounding::HALF_EVEN) {
        rounding::HALF_AWAY => Rounding::HalfAway,
        rounding::HALF_UP => Rounding::HalfUp,
        _ => Rounding::HalfEven,
    }
}

fn activation_of(ctx: &Context, op: Op) -> Activation {
    use nart_dialect_qnn::attrs::Activation as A;
    match A::of(ctx, op) {
        A::None => Activation::None,
        A::Relu => Activation::Relu,
        A::Relu6 => Activation::Relu6,
        A::Clip { min, max } => Activation::Clip { min, max },
    }
}

/// The result's zero point and the clamp bounds (storage range narrowed by the activation).
fn out_range(
    op_name: &'static str,
    y: &Q,
    act: Activation,
    rounding: Rounding,
) -> Result<(f64, i64, i64, i64), String> {
    Output {
        q: &y.p,
        act,
        rounding,
    }
    .range(op_name)
    .map_err(|e| e.to_string())
}

fn result_q(rw: &mut PatternRewriter<'_>, op: Op) -> Result<Q, String> {
    let r = rw.result(op, 0);
    quant_of(rw, r, "the result")
}

fn operand_q(rw: &mut PatternRewriter<'_>, op: Op, i: usize) -> Result<Q, String> {
    let v = *rw
        .operands(op)
        .get(i)
        .ok_or_else(|| format!("expected operand #{i}"))?;
    quant_of(rw, v, &format!("operand #{i}"))
}

/// `quant.qcast`: `clamp(round_half_even(x / S) + Z)`, NaN to `Z` (f32 input).
fn lower_qcast(rw: &mut PatternRewriter<'_>, op: Op, ins: &[Value], loc: Location) -> Lowered {
    let y = result_q(rw, op)?;
    let (shape, elem) = static_type(rw, ins[0])?;
    if elem != rw.uniq().f32_type() {
        return Err("only f32 inputs are lowered".to_string());
    }
    let n = shape.len() as u32;
    let (scales, zps, pshape, pmap) = channel_params(&y, &shape, n)?;
    let s = Param::floats(
        scales.iter().map(|&s| s as f32).collect(),
        pshape.clone(),
        pmap.clone(),
    );
    let z = Param::ints(zps, pshape, pmap);
    let init = empty(rw, &shape, y.storage, loc);
    let (lo, hi) = (y.p.min as f64, y.p.max as f64);
    let f64t = rw.uniq().float_type(nart_ir::FloatKind::F64);
    let f32t = rw.uniq().f32_type();
    let i64t = int_ty(rw, 64);
    let v = generic(
        rw,
        &[(ins[0], identity(n))],
        &[s, z],
        init,
        identity(n),
        &vec![P; shape.len()],
        loc,
        |rw, x, p, _| {
            let q = ar(rw, "arith.divf", &[x[0], p[0]], f32t, loc);
            let q = ar(rw, "arith.extf", &[q], f64t, loc);
            let nan = cmp(rw, "arith.cmpf", CMPF_UNO, q, q, loc);
            let r = math_op(rw, "math.roundeven", q, loc);
            let zf = ar(rw, "arith.sitofp", &[p[1]], f64t, loc);
            let t = ar(rw, "arith.addf", &[r, zf], f64t, loc);
            let t = ar(rw, "arith.select", &[nan, zf, t], f64t, loc);
            let lo = cf(rw, lo, f64t, loc);
            let hi = cf(rw, hi, f64t, loc);
            let t = ar(rw, "arith.maximumf", &[t, lo], f64t, loc);
            let t = ar(rw, "arith.minimumf", &[t, hi], f64t, loc);
            let i = ar(rw, "arith.fptosi", &[t], i64t, loc);
            ar(rw, "arith.trunci", &[i], y.storage, loc)
        },
    );
    Ok(vec![v])
}

/// A one-operand `math` op (the dialect is registered wherever this pass runs).
fn math_op(rw: &mut PatternRewriter<'_>, name: &str, x: Value, loc: Location) -> Value {
    let ty = rw.value_type(x);
    let st = OperationState::new(rw.uniq(), name, loc)
        .operands(&[x])
        .results(&[ty]);
    let op = rw.create(st);
    rw.result(op, 0)
}

/// The scales and zero points of `q` for a tensor of `shape`, with the shape and the map (over
/// `n` loops, the tensor's dimensions) of their parameter tensors.
#[allow(clippy::type_complexity)]
fn channel_params(
    q: &Q,
    shape: &[i64],
    n: u32,
) -> Result<(Vec<f64>, Vec<i64>, Vec<i64>, AffineMap), String> {
    match q.p.axis {
        None => Ok((
            q.p.scales.clone(),
            q.p.zero_points.clone(),
            vec![1],
            map(n, vec![AffineExpr::Const(0)]),
        )),
        Some(a) => {
            if shape.get(a) != Some(&(q.p.scales.len() as i64)) {
                return Err(format!(
                    "{} scales do not fit axis {a} of {shape:?}",
                    q.p.scales.len()
                ));
            }
            Ok((
                q.p.scales.clone(),
                q.p.zero_points.clone(),
                vec![shape[a]],
                dim_map(n, a as u32),
            ))
        }
    }
}

/// `quant.dcast`: `(q − Z) · S` in `f32`.
fn lower_dcast(rw: &mut PatternRewriter<'_>, op: Op, ins: &[Value], loc: Location) -> Lowered {
    let x = operand_q(rw, op, 0)?;
    let (shape, elem) = static_type(rw, rw.result(op, 0))?;
    if elem != rw.uniq().f32_type() {
        return Err("only f32 results are lowered".to_string());
    }
    let n = shape.len() as u32;
    let (scales, zps, pshape, pmap) = channel_params(&x, &shape, n)?;
    let s = Param::floats(
        scales.iter().map(|&s| s as f32).collect(),
        pshape.clone(),
        pmap.clone(),
    );
    let z = Param::floats(zps.iter().map(|&z| z as f32).collect(), pshape, pmap);
    let init = empty(rw, &shape, elem, loc);
    let v = generic(
        rw,
        &[(ins[0], identity(n))],
        &[s, z],
        init,
        identity(n),
        &vec![P; shape.len()],
        loc,
        |rw, a, p, _| {
            let w = widen(rw, a[0], &x, 32, loc);
            let name = if x.signed || x.width < 32 {
                "arith.sitofp"
            } else {
                "arith.uitofp"
            };
            let q = ar(rw, name, &[w], elem, loc);
            let dq = ar(rw, "arith.subf", &[q, p[1]], elem, loc);
            ar(rw, "arith.mulf", &[dq, p[0]], elem, loc)
        },
    );
    Ok(vec![v])
}

/// `quant.scast`: the same storage under another type.
fn lower_scast(rw: &mut PatternRewriter<'_>, op: Op, ins: &[Value], _: Location) -> Lowered {
    let (_, from) = static_type(rw, ins[0])?;
    let to_ty = rw.value_type(rw.result(op, 0));
    let to = storage_tensor(rw.uniq(), to_ty).unwrap_or(to_ty);
    let to_elem = rw.element_type(to);
    if rw.type_data(from) != rw.type_data(to_elem) {
        return Err(format!(
            "a storage cast from {} to {} changes the storage width, which is not lowered",
            nart_ir::printer::type_to_string(rw, from),
            nart_ir::printer::type_to_string(rw, to_elem)
        ));
    }
    Ok(vec![ins[0]])
}

/// `x` (storage of `xq`) requantized to `yq`, as `nart_tensor::qnn::requantize`.
fn requantize_value(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    xq: &Q,
    yq: &Q,
    mode: Rounding,
    loc: Location,
) -> Result<Value, String> {
    const OP: &str = "qnn.requantize";
    let shape = xq.shape.clone();
    let n = shape.len() as u32;
    let axis = match (xq.p.axis, yq.p.axis) {
        (None, None) => None,
        (Some(a), None) | (None, Some(a)) => Some(a),
        (Some(a), Some(b)) if a == b => Some(a),
        _ => {
            return Err("per-axis parameters along two different axes are not lowered".to_string())
        }
    };
    let c = axis.map_or(1, |a| shape[a] as usize);
    let bound = xq.bound();
    let (mut zx, mut m, mut k, mut zy) = (vec![], vec![], vec![], vec![]);
    for i in 0..c {
        let (xi, yi) = (
            if xq.p.axis.is_some() { i } else { 0 },
            if yq.p.axis.is_some() { i } else { 0 },
        );
        let (mi, ki) = fixed(OP, xq.p.scale(xi) / yq.p.scale(yi), bound)?;
        zx.push(xq.p.zero_point(xi));
        zy.push(yq.p.zero_point(yi));
        m.push(mi);
        k.push(ki);
    }
    let (pshape, pmap) = match axis {
        Some(a) => (vec![c as i64], dim_map(n, a as u32)),
        None => (vec![1], map(n, vec![AffineExpr::Const(0)])),
    };
    let params = [
        Param::ints(zx, pshape.clone(), pmap.clone()),
        Param::ints(m, pshape.clone(), pmap.clone()),
        Param::ints(k, pshape.clone(), pmap.clone()),
        Param::ints(zy, pshape, pmap),
    ];
    let init = empty(rw, &shape, yq.storage, loc);
    let (lo, hi) = (yq.p.min, yq.p.max);
    let i64t = int_ty(rw, 64);
    Ok(generic(
        rw,
        &[(x, identity(n))],
        &params,
        init,
        identity(n),
        &vec![P; shape.len()],
        loc,
        |rw, a, p, _| {
            let q = widen(rw, a[0], xq, 64, loc);
            let dx = ar(rw, "arith.subi", &[q, p[0]], i64t, loc);
            let prod = ar(rw, "arith.muli", &[dx, p[1]], i64t, loc);
            let r = rounding_shift(rw, prod, p[2], mode, loc);
            store(rw, r, p[3], lo, hi, yq, loc)
        },
    ))
}

fn lower_requantize(rw: &mut PatternRewriter<'_>, op: Op, ins: &[Value], loc: Location) -> Lowered {
    let xq = operand_q(rw, op, 0)?;
    let yq = result_q(rw, op)?;
    let mode = rounding_of(rw, op);
    Ok(vec![requantize_value(rw, ins[0], &xq, &yq, mode, loc)?])
}

/// The requantizing generic of an `i32` accumulator of `shape` (plus the bias read at
/// dimension `cdim`) with one multiplier per index of `cdim`.
#[allow(clippy::too_many_arguments)]
fn requantize_acc(
    rw: &mut PatternRewriter<'_>,
    op_name: &'static str,
    acc: Value,
    bias: Option<Value>,
    reals: &[f64],
    cdim: u32,
    y: &Q,
    zy: i64,
    lo: i64,
    hi: i64,
    mode: Rounding,
    loc: Location,
) -> Result<Value, String> {
    let (shape, _) = static_type(rw, acc)?;
    let n = shape.len() as u32;
    let mut m = Vec::new();
    let mut k = Vec::new();
    for &r in reals {
        let (mi, ki) = fixed(op_name, r, 1 << 31)?;
        m.push(mi);
        k.push(ki);
    }
    let c = reals.len() as i64;
    let params = [
        Param::ints(m, vec![c], dim_map(n, cdim)),
        Param::ints(k, vec![c], dim_map(n, cdim)),
        Param::int(zy),
    ];
    let mut inputs = vec![(acc, identity(n))];
    if let Some(b) = bias {
        inputs.push((b, dim_map(n, cdim)));
    }
    let init = empty(rw, &shape, y.storage, loc);
    let i32t = int_ty(rw, 32);
    let i64t = int_ty(rw, 64);
    let has_bias = bias.is_some();
    Ok(generic(
        rw,
        &inputs,
        &params,
        init,
        identity(n),
        &vec![P; shape.len()],
        loc,
        |rw, a, p, _| {
            let t = if has_bias {
                ar(rw, "arith.addi", &[a[0], a[1]], i32t, loc)
            } else {
                a[0]
            };
            let t = ar(rw, "arith.extsi", &[t], i64t, loc);
            let prod = ar(rw, "arith.muli", &[t, p[0]], i64t, loc);
            let r = rounding_shift(rw, prod, p[1], mode, loc);
            store(rw, r, p[2], lo, hi, y, loc)
        },
    ))
}

/// The optional `i32` bias operand `i` (converted), checked to hold `count` values.
fn bias_operand(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    ins: &[Value],
    i: usize,
    count: i64,
) -> Result<Option<Value>, String> {
    let Some(&b) = ins.get(i) else {
        return Ok(None);
    };
    if matches!(rw.type_data(rw.value_type(b)), TypeData::None) {
        return Ok(None);
    }
    let q = operand_q(rw, op, i)?;
    if q.width != 32 || q.shape != [count] {
        return Err(format!("the bias must be {count} i32 values"));
    }
    Ok(Some(b))
}

/// `qnn.conv` (2-D): see the module docs.
fn lower_conv(rw: &mut PatternRewriter<'_>, op: Op, ins: &[Value], loc: Location) -> Lowered {
    const OP: &str = "qnn.conv";
    let xq = operand_q(rw, op, 0)?;
    let wq = operand_q(rw, op, 1)?;
    let yq = result_q(rw, op)?;
    let (sx, zx) = xq.per_tensor("the input")?;
    if wq.p.axis.is_some_and(|a| a != 0) {
        return Err("the weight must be quantized per tensor or along axis 0".to_string());
    }
    let (xs, ws, ys) = (xq.shape.clone(), wq.shape.clone(), yq.shape.clone());
    if xs.len() != 4 || ws.len() != 4 || ys.len() != 4 {
        return Err("only 2-D convolutions (4-D tensors) are lowered".to_string());
    }
    let ints = |name: &str, dflt: Vec<i64>| -> Vec<i64> {
        rw.attr(op, name)
            .and_then(|a| nart_dialect_qnn::attrs::int_array(rw, a).map(<[i64]>::to_vec))
            .unwrap_or(dflt)
    };
    let strides = ints("strides", vec![1, 1]);
    let dil = ints("dilations", vec![1, 1]);
    let pads = ints("pads", vec![0; 4]);
    if strides.len() != 2 || dil.len() != 2 || pads.len() != 4 {
        return Err("expected two strides and dilations and four pads".to_string());
    }
    let group = rw
        .attr(op, "group")
        .and_then(|a| rw.attr_int(a))
        .map_or(1, |g| g as i64)
        .max(1);
    let (nb, c, m, cg) = (xs[0], xs[1], ws[0], ws[1]);
    if cg * group != c || m % group != 0 || ys[1] != m || ys[0] != nb {
        return Err(format!(
            "input channels {c}, weight {ws:?} and {group} groups do not fit"
        ));
    }
    for i in 0..2 {
        let span = xs[2 + i] + pads[i] + pads[2 + i];
        let eff = dil[i] * (ws[2 + i] - 1) + 1;
        if strides[i] <= 0 || span < eff || (span - eff) / strides[i] + 1 != ys[2 + i] {
            return Err("the result shape does not follow from the window".to_string());
        }
    }
    let act = activation_of(rw, op);
    let mode = rounding_of(rw, op);
    let (sy, zy, lo, hi) = out_range(OP, &yq, act, mode)?;
    let bias = bias_operand(rw, op, ins, 2, m)?;
    let kg = cg * ws[2] * ws[3];
    if i128::from(kg) * xq.bound() * wq.bound() >= 1 << 62 {
        return Err("the accumulation is too long to bound".to_string());
    }
    let xp = pad(
        rw,
        ins[0],
        &[0, 0, pads[0], pads[1]],
        &[0, 0, pads[2], pads[3]],
        wrap(zx, xq.width) as f64,
        loc,
    )?;
    let (hp, wp) = (xs[2] + pads[0] + pads[2], xs[3] + pads[1] + pads[3]);
    let g = group;
    let xg = reshape(rw, xp, &[nb, g, cg, hp, wp], loc)?;
    let wg = reshape(rw, ins[1], &[g, m / g, cg, ws[2], ws[3]], loc)?;
    let i32t = int_ty(rw, 32);
    let acc0 = filled(rw, 0.0, &[nb, g, m / g, ys[2], ys[3]], i32t, loc);
    let win = |o: u32, k: u32, s: i64, dl: i64| add(mul_const(d(o), s), mul_const(d(k), dl));
    let xmap = map(
        8,
        vec![
            d(0),
            d(1),
            d(5),
            win(3, 6, strides[0], dil[0]),
            win(4, 7, strides[1], dil[1]),
        ],
    );
    let wmap = map(8, vec![d(1), d(2), d(5), d(6), d(7)]);
    let omap = map(8, vec![d(0), d(1), d(2), d(3), d(4)]);
    let zw: Vec<i64> = (0..m as usize).map(|oc| wq.p.zero_point(oc)).collect();
    let zw = Param::ints(zw, vec![g, m / g], map(8, vec![d(1), d(2)]));
    let iters = [P, P, P, P, P, R, R, R];
    let acc = generic(
        rw,
        &[(xg, xmap), (wg, wmap)],
        &[Param::int(zx), zw],
        acc0,
        omap,
        &iters,
        loc,
        |rw, a, p, acc| {
            let x = widen(rw, a[0], &xq, 32, loc);
            let w = widen(rw, a[1], &wq, 32, loc);
            let zx = ar(rw, "arith.trunci", &[p[0]], i32t, loc);
            let zw = ar(rw, "arith.trunci", &[p[1]], i32t, loc);
            let dx = ar(rw, "arith.subi", &[x, zx], i32t, loc);
            let dw = ar(rw, "arith.subi", &[w, zw], i32t, loc);
            let prod = ar(rw, "arith.muli", &[dx, dw], i32t, loc);
            ar(rw, "arith.addi", &[acc, prod], i32t, loc)
        },
    );
    let acc = reshape(rw, acc, &ys, loc)?;
    let reals: Vec<f64> = (0..m as usize).map(|oc| sx * wq.p.scale(oc) / sy).collect();
    let y = requantize_acc(rw, OP, acc, bias, &reals, 1, &yq, zy, lo, hi, mode, loc)?;
    Ok(vec![y])
}

/// The map reading an operand's batch dimensions `batch` (aligned right against the result's
/// `out_batch`, size-1 dimensions broadcast) followed by `tail`.
fn batch_map(batch: &[i64], out_batch: &[i64], n: u32, tail: Vec<AffineExpr>) -> AffineMap {
    let off = out_batch.len() - batch.len();
    let mut res: Vec<AffineExpr> = batch
        .iter()
        .enumerate()
        .map(|(j, &s)| {
            if s == 1 && out_batch[j + off] != 1 {
                AffineExpr::Const(0)
            } else {
                d((j + off) as u32)
            }
        })
        .collect();
    res.extend(tail);
    map(n, res)
}

/// `qnn.matmul`: see the module docs.
fn lower_matmul(rw: &mut PatternRewriter<'_>, op: Op, ins: &[Value], loc: Location) -> Lowered {
    const OP: &str = "qnn.matmul";
    let aq = operand_q(rw, op, 0)?;
    let bq = operand_q(rw, op, 1)?;
    let yq = result_q(rw, op)?;
    let (sa, za) = aq.per_tensor("lhs")?;
    let (ash, bsh, ysh) = (aq.shape.clone(), bq.shape.clone(), yq.shape.clone());
    let (ra, rb, ry) = (ash.len(), bsh.len(), ysh.len());
    if ra < 2 || rb < 2 || ry != ra.max(rb) {
        return Err("operands must have rank 2 or more".to_string());
    }
    if bq.p.axis.is_some_and(|a| a != rb - 1) {
        return Err("rhs must be quantized per tensor or per column".to_string());
    }
    let (mm, k, nn) = (ash[ra - 2], ash[ra - 1], bsh[rb - 1]);
    if bsh[rb - 2] != k || ysh[ry - 2] != mm || ysh[ry - 1] != nn {
        return Err(format!("the shapes {ash:?} × {bsh:?} → {ysh:?} do not fit"));
    }
    if i128::from(k) * aq.bound() * bq.bound() >= 1 << 62 {
        return Err("the accumulation is too long to bound".to_string());
    }
    let act = activation_of(rw, op);
    let mode = rounding_of(rw, op);
    let (sy, zy, lo, hi) = out_range(OP, &yq, act, mode)?;
    let bias = bias_operand(rw, op, ins, 2, nn)?;
    let nb = ry - 2;
    let out_batch = &ysh[..nb];
    let n = ry as u32 + 1;
    let (dm, dn, dk) = (nb as u32, nb as u32 + 1, nb as u32 + 2);
    let amap = batch_map(&ash[..ra - 2], out_batch, n, vec![d(dm), d(dk)]);
    let bmap = batch_map(&bsh[..rb - 2], out_batch, n, vec![d(dk), d(dn)]);
    let omap = map(n, (0..ry as u32).map(d).collect());
    let i32t = int_ty(rw, 32);
    let acc0 = filled(rw, 0.0, &ysh, i32t, loc);
    let zb: Vec<i64> = (0..nn as usize).map(|j| bq.p.zero_point(j)).collect();
    let zb = Param::ints(zb, vec![nn], dim_map(n, dn));
    let mut iters = vec![P; ry];
    iters.push(R);
    let acc = generic(
        rw,
        &[(ins[0], amap), (ins[1], bmap)],
        &[Param::int(za), zb],
        acc0,
        omap,
        &iters,
        loc,
        |rw, a, p, acc| {
            let x = widen(rw, a[0], &aq, 32, loc);
            let w = widen(rw, a[1], &bq, 32, loc);
            let za = ar(rw, "arith.trunci", &[p[0]], i32t, loc);
            let zb = ar(rw, "arith.trunci", &[p[1]], i32t, loc);
            let dx = ar(rw, "arith.subi", &[x, za], i32t, loc);
            let dw = ar(rw, "arith.subi", &[w, zb], i32t, loc);
            let prod = ar(rw, "arith.muli", &[dx, dw], i32t, loc);
            ar(rw, "arith.addi", &[acc, prod], i32t, loc)
        },
    );
    let reals: Vec<f64> = (0..nn as usize).map(|j| sa * bq.p.scale(j) / sy).collect();
    let y = requantize_acc(
        rw,
        OP,
        acc,
        bias,
        &reals,
        ry as u32 - 1,
        &yq,
        zy,
        lo,
        hi,
        mode,
        loc,
    )?;
    Ok(vec![y])
}

/// The maps of two broadcasting operands and the result's shape.
fn broadcast_pair(a: &Q, b: &Q, y: &Q) -> Result<(AffineMap, AffineMap), String> {
    let out = &y.shape;
    if a.shape.len() > out.len() || b.shape.len() > out.len() {
        return Err("an operand has a higher rank than the result".to_string());
    }
    Ok((
        crate::emit::broadcast_map(&a.shape, out),
        crate::emit::broadcast_map(&b.shape, out),
    ))
}

/// `qnn.add`: both products brought to one shift, summed, rounded once.
fn lower_add(rw: &mut PatternRewriter<'_>, op: Op, ins: &[Value], loc: Location) -> Lowered {
    const OP: &str = "qnn.add";
    let (aq, bq, yq) = (
        operand_q(rw, op, 0)?,
        operand_q(rw, op, 1)?,
        result_q(rw, op)?,
    );
    let (sa, za) = aq.per_tensor("lhs")?;
    let (sb, zb) = bq.per_tensor("rhs")?;
    let mode = rounding_of(rw, op);
    let (sy, zy, lo, hi) = out_range(OP, &yq, activation_of(rw, op), mode)?;
    let err = |e: nart_tensor::KernelError| e.to_string();
    let ma = FixedMultiplier::new(OP, sa / sy).map_err(err)?;
    let mb = FixedMultiplier::new(OP, sb / sy).map_err(err)?;
    let k = ma.right_shift().max(mb.right_shift());
    let (ea, eb) = (k - ma.right_shift(), k - mb.right_shift());
    if ea > 64 || eb > 64 {
        return Err("the operands' scales differ by more than a factor of 2^64".to_string());
    }
    let fa = i128::from(ma.m) << ea;
    let fb = i128::from(mb.m) << eb;
    let total = aq
        .bound()
        .saturating_mul(fa)
        .saturating_add(bq.bound().saturating_mul(fb));
    let (fa, fb, k) = if fa == 0 && fb == 0 {
        (0, 0, 1)
    } else if k < 1 {
        return Err("the requantization multipliers are too large to lower".to_string());
    } else if total >= 1 << 62 {
        return Err(
            "the sum of the requantized operands does not fit 62 bits for every stored value"
                .to_string(),
        );
    } else if k > 62 {
        (0, 0, 1)
    } else {
        (fa as i64, fb as i64, i64::from(k))
    };
    let (amap, bmap) = broadcast_pair(&aq, &bq, &yq)?;
    let n = yq.shape.len() as u32;
    let init = empty(rw, &yq.shape, yq.storage, loc);
    let params = [
        Param::int(za),
        Param::int(fa),
        Param::int(zb),
        Param::int(fb),
        Param::int(k),
        Param::int(zy),
    ];
    let i64t = int_ty(rw, 64);
    let v = generic(
        rw,
        &[(ins[0], amap), (ins[1], bmap)],
        &params,
        init,
        identity(n),
        &vec![P; n as usize],
        loc,
        |rw, a, p, _| {
            let x = widen(rw, a[0], &aq, 64, loc);
            let y = widen(rw, a[1], &bq, 64, loc);
            let dx = ar(rw, "arith.subi", &[x, p[0]], i64t, loc);
            let dy = ar(rw, "arith.subi", &[y, p[2]], i64t, loc);
            let px = ar(rw, "arith.muli", &[dx, p[1]], i64t, loc);
            let py = ar(rw, "arith.muli", &[dy, p[3]], i64t, loc);
            let s = ar(rw, "arith.addi", &[px, py], i64t, loc);
            let r = rounding_shift(rw, s, p[4], mode, loc);
            store(rw, r, p[5], lo, hi, &yq, loc)
        },
    );
    Ok(vec![v])
}

/// `qnn.mul`: `clamp(Zy + (Sa·Sb/Sy) ⊗ ((qa − Za)·(qb − Zb)))`.
fn lower_mul(rw: &mut PatternRewriter<'_>, op: Op, ins: &[Value], loc: Location) -> Lowered {
    const OP: &str = "qnn.mul";
    let (aq, bq, yq) = (
        operand_q(rw, op, 0)?,
        operand_q(rw, op, 1)?,
        result_q(rw, op)?,
    );
    let (sa, za) = aq.per_tensor("lhs")?;
    let (sb, zb) = bq.per_tensor("rhs")?;
    let mode = rounding_of(rw, op);
    let (sy, zy, lo, hi) = out_range(OP, &yq, activation_of(rw, op), mode)?;
    let (m, k) = fixed(OP, sa * sb / sy, aq.bound() * bq.bound())?;
    let (amap, bmap) = broadcast_pair(&aq, &bq, &yq)?;
    let n = yq.shape.len() as u32;
    let init = empty(rw, &yq.shape, yq.storage, loc);
    let params = [
        Param::int(za),
        Param::int(zb),
        Param::int(m),
        Param::int(k),
        Param::int(zy),
    ];
    let i64t = int_ty(rw, 64);
    let v = generic(
        rw,
        &[(ins[0], amap), (ins[1], bmap)],
        &params,
        init,
        identity(n),
        &vec![P; n as usize],
        loc,
        |rw, a, p, _| {
            let x = widen(rw, a[0], &aq, 64, loc);
            let y = widen(rw, a[1], &bq, 64, loc);
            let dx = ar(rw, "arith.subi", &[x, p[0]], i64t, loc);
            let dy = ar(rw, "arith.subi", &[y, p[1]], i64t, loc);
            let xy = ar(rw, "arith.muli", &[dx, dy], i64t, loc);
            let prod = ar(rw, "arith.muli", &[xy, p[2]], i64t, loc);
            let r = rounding_shift(rw, prod, p[3], mode, loc);
            store(rw, r, p[4], lo, hi, &yq, loc)
        },
    );
    Ok(vec![v])
}

/// `qnn.concat`: inputs with other parameters requantized, then `tensor.concat`.
fn lower_concat(rw: &mut PatternRewriter<'_>, op: Op, ins: &[Value], loc: Location) -> Lowered {
    let yq = result_q(rw, op)?;
    let mode = rounding_of(rw, op);
    let axis = rw
        .attr(op, "axis")
        .and_then(|a| rw.attr_int(a))
        .and_then(|a| usize::try_from(a).ok())
        .filter(|&a| a < yq.shape.len())
        .ok_or("expected an axis within the result's rank")?;
    let mut parts = Vec::with_capacity(ins.len());
    for (i, &v) in ins.iter().enumerate() {
        let q = operand_q(rw, op, i)?;
        let same = q.p.scales == yq.p.scales
            && q.p.zero_points == yq.p.zero_points
            && q.p.min >= yq.p.min
            && q.p.max <= yq.p.max
            && q.width == yq.width
            && q.signed == yq.signed;
        parts.push(if same {
            v
        } else {
            requantize_value(rw, v, &q, &yq, mode, loc)?
        });
    }
    let ty = rw.uniq().tensor_type(yq.shape.clone(), yq.storage);
    let i64t = int_ty(rw, 64);
    let dim = rw.uniq().int_attr(i64t, axis as i128);
    let st = OperationState::new(rw.uniq(), "tensor.concat", loc)
        .operands(&parts)
        .results(&[ty])
        .prop(rw.uniq(), "dim", dim);
    let c = rw.create(st);
    Ok(vec![rw.result(c, 0)])
}

/// The window of a pooling: kernel, strides, pads (four), dilations.
struct Pool {
    kernel: [i64; 2],
    strides: [i64; 2],
    pads: [i64; 4],
    dilations: [i64; 2],
}

fn pool_window(
    rw: &PatternRewriter<'_>,
    op: Op,
    x: &Q,
    y: &Q,
    dilated: bool,
) -> Result<Pool, String> {
    let ints = |name: &str| -> Option<Vec<i64>> {
        rw.attr(op, name)
            .and_then(|a| nart_dialect_qnn::attrs::int_array(rw, a).map(<[i64]>::to_vec))
    };
    let two = |v: Option<Vec<i64>>| -> Result<[i64; 2], String> {
        match v.as_deref() {
            None => Ok([1, 1]),
            Some(&[a, b]) => Ok([a, b]),
            Some(_) => Err("expected a 2-D window".to_string()),
        }
    };
    if x.shape.len() != 4 || y.shape.len() != 4 {
        return Err("only 2-D pooling (4-D tensors) is lowered".to_string());
    }
    let kernel = match ints("kernel_shape").as_deref() {
        Some(&[a, b]) => [a, b],
        _ => return Err("expected a 2-D kernel_shape".to_string()),
    };
    let pads = match ints("pads").as_deref() {
        None => [0; 4],
        Some(&[a, b, c, e]) => [a, b, c, e],
        Some(_) => return Err("expected four pads".to_string()),
    };
    let strides = two(ints("strides"))?;
    let dilations = if dilated {
        two(ints("dilations"))?
    } else {
        [1, 1]
    };
    for i in 0..2 {
        let span = x.shape[2 + i] + pads[i] + pads[2 + i];
        let eff = dilations[i] * (kernel[i] - 1) + 1;
        if strides[i] <= 0
            || kernel[i] <= 0
            || span < eff
            || (span - eff) / strides[i] + 1 != y.shape[2 + i]
        {
            return Err("the result shape does not follow from the window".to_string());
        }
    }
    if x.shape[..2] != y.shape[..2] {
        return Err("the result shape does not follow from the window".to_string());
    }
    Ok(Pool {
        kernel,
        strides,
        pads,
        dilations,
    })
}

/// An empty tensor of the window's shape, read at `(kh, kw)`: it gives the window loops their
/// ranges (as the kernel operand of `linalg.pooling_*` does).
fn window_extent(rw: &mut PatternRewriter<'_>, p: &Pool, loc: Location) -> (Value, AffineMap) {
    let i8t = int_ty(rw, 8);
    (empty(rw, &p.kernel, i8t, loc), map(6, vec![d(4), d(5)]))
}

/// The map of a 2-D window reading the padded input over loops `(n, c, oh, ow, kh, kw)`.
fn window_map(p: &Pool) -> AffineMap {
    let win = |o: u32, k: u32, s: i64, dl: i64| add(mul_const(d(o), s), mul_const(d(k), dl));
    map(
        6,
        vec![
            d(0),
            d(1),
            win(2, 4, p.strides[0], p.dilations[0]),
            win(3, 5, p.strides[1], p.dilations[1]),
        ],
    )
}

/// `qnn.max_pool`: the largest stored value of each window's input positions.
fn lower_max_pool(rw: &mut PatternRewriter<'_>, op: Op, ins: &[Value], loc: Location) -> Lowered {
    let xq = operand_q(rw, op, 0)?;
    let yq = result_q(rw, op)?;
    if xq.width != yq.width || xq.signed != yq.signed {
        return Err("the result must have the input's storage".to_string());
    }
    let p = pool_window(rw, op, &xq, &yq, true)?;
    let low = xq.first();
    let lowf = wrap(low, xq.width) as f64;
    let xp = pad(
        rw,
        ins[0],
        &[0, 0, p.pads[0], p.pads[1]],
        &[0, 0, p.pads[2], p.pads[3]],
        lowf,
        loc,
    )?;
    let init = filled(rw, lowf, &yq.shape, yq.storage, loc);
    let omap = map(6, vec![d(0), d(1), d(2), d(3)]);
    let iters = [P, P, P, P, R, R];
    let name = if xq.signed {
        "arith.maxsi"
    } else {
        "arith.maxui"
    };
    let ty = yq.storage;
    let ext = window_extent(rw, &p, loc);
    let v = generic(
        rw,
        &[(xp, window_map(&p)), ext.clone()],
        &[],
        init,
        omap,
        &iters,
        loc,
        |rw, a, _, acc| ar(rw, name, &[acc, a[0]], ty, loc),
    );
    Ok(vec![v])
}

/// `qnn.avg_pool`: each window's exact sum of `q − Zx`, requantized by `Sx / (Sy·count)`.
fn lower_avg_pool(rw: &mut PatternRewriter<'_>, op: Op, ins: &[Value], loc: Location) -> Lowered {
    const OP: &str = "qnn.avg_pool";
    let xq = operand_q(rw, op, 0)?;
    let yq = result_q(rw, op)?;
    let (sx, zx) = xq.per_tensor("the input")?;
    let mode = rounding_of(rw, op);
    let (sy, zy, lo, hi) = out_range(OP, &yq, Activation::None, mode)?;
    let p = pool_window(rw, op, &xq, &yq, false)?;
    let include_pad = rw.attr(op, "count_include_pad").is_some();
    let nk = p.kernel[0] * p.kernel[1];
    if i128::from(nk) * xq.bound() >= 1 << 31 {
        return Err("the window sums do not fit 32 bits".to_string());
    }
    let (oh, ow) = (yq.shape[2], yq.shape[3]);
    let (mut m, mut k) = (Vec::new(), Vec::new());
    for i in 0..oh {
        for j in 0..ow {
            let mut count = 0;
            for a in 0..p.kernel[0] {
                for b in 0..p.kernel[1] {
                    let h = i * p.strides[0] + a - p.pads[0];
                    let w = j * p.strides[1] + b - p.pads[1];
                    if h >= 0 && h < xq.shape[2] && w >= 0 && w < xq.shape[3] {
                        count += 1;
                    }
                }
            }
            if include_pad {
                count = nk;
            }
            if count == 0 {
                return Err("a window covers only padding".to_string());
            }
            let (mi, ki) = fixed(OP, sx / (sy * count as f64), 1 << 31)?;
            m.push(mi);
            k.push(ki);
        }
    }
    let xp = pad(
        rw,
        ins[0],
        &[0, 0, p.pads[0], p.pads[1]],
        &[0, 0, p.pads[2], p.pads[3]],
        wrap(zx, xq.width) as f64,
        loc,
    )?;
    let i32t = int_ty(rw, 32);
    let acc0 = filled(rw, 0.0, &yq.shape, i32t, loc);
    let omap = map(6, vec![d(0), d(1), d(2), d(3)]);
    let iters = [P, P, P, P, R, R];
    let ext = window_extent(rw, &p, loc);
    let sum = generic(
        rw,
        &[(xp, window_map(&p)), ext.clone()],
        &[Param::int(zx)],
        acc0,
        omap,
        &iters,
        loc,
        |rw, a, p, acc| {
            let x = widen(rw, a[0], &xq, 32, loc);
            let z = ar(rw, "arith.trunci", &[p[0]], i32t, loc);
            let dx = ar(rw, "arith.subi", &[x, z], i32t, loc);
            ar(rw, "arith.addi", &[acc, dx], i32t, loc)
        },
    );
    let pmap = map(4, vec![d(2), d(3)]);
    let params = [
        Param::ints(m, vec![oh, ow], pmap.clone()),
        Param::ints(k, vec![oh, ow], pmap),
        Param::int(zy),
    ];
    let init = empty(rw, &yq.shape, yq.storage, loc);
    let i64t = int_ty(rw, 64);
    let v = generic(
        rw,
        &[(sum, identity(4))],
        &params,
        init,
        identity(4),
        &[P; 4],
        loc,
        |rw, a, p, _| {
            let t = ar(rw, "arith.extsi", &[a[0]], i64t, loc);
            let prod = ar(rw, "arith.muli", &[t, p[0]], i64t, loc);
            let r = rounding_shift(rw, prod, p[1], mode, loc);
            store(rw, r, p[2], lo, hi, &yq, loc)
        },
    );
    Ok(vec![v])
}

/// `qnn.lut`: `y = table[q − first]`, as a reduction over the table picking the entry whose
/// stored input equals `q`.
fn lower_lut(rw: &mut PatternRewriter<'_>, op: Op, ins: &[Value], loc: Location) -> Lowered {
    let xq = operand_q(rw, op, 0)?;
    let yq = result_q(rw, op)?;
    if xq.width > 8 {
        return Err("tables on storage wider than 8 bits are not lowered".to_string());
    }
    let table = rw
        .attr(op, "table")
        .and_then(|a| nart_dialect_qnn::attrs::int_array(rw, a).map(<[i64]>::to_vec))
        .ok_or("expected a 'table'")?;
    let entries = 1i64 << xq.width;
    if table.len() as i64 != entries {
        return Err(format!(
            "the table has {} entries, expected {entries}",
            table.len()
        ));
    }
    let first = xq.first();
    let inputs_of_table: Vec<i64> = (0..entries).map(|t| first + t).collect();
    let n = xq.shape.len() as u32;
    let i32t = int_ty(rw, 32);
    let iota = const_tensor(rw, &[entries], i32t, int_bytes(&inputs_of_table, 32), loc);
    let wrapped: Vec<i64> = table.iter().map(|&v| wrap(v, yq.width)).collect();
    let tab = const_tensor(
        rw,
        &[entries],
        yq.storage,
        int_bytes(&wrapped, yq.width),
        loc,
    );
    let init = filled(rw, 0.0, &yq.shape, yq.storage, loc);
    let xmap = map(n + 1, (0..n).map(d).collect());
    let tmap = dim_map(n + 1, n);
    let mut iters = vec![P; n as usize];
    iters.push(R);
    let ty = yq.storage;
    let v = generic(
        rw,
        &[(ins[0], xmap.clone()), (iota, tmap.clone()), (tab, tmap)],
        &[],
        init,
        xmap,
        &iters,
        loc,
        |rw, a, _, acc| {
            let x = widen(rw, a[0], &xq, 32, loc);
            let hit = cmp(rw, "arith.cmpi", CMPI_EQ, x, a[1], loc);
            ar(rw, "arith.select", &[hit, a[2], acc], ty, loc)
        },
    );
    Ok(vec![v])
}

// ----- the pass -----

/// A lowering of one op kind: the op, its converted operands, its location.
type LowerFn = fn(&mut PatternRewriter<'_>, Op, &[Value], Location) -> Lowered;

struct QLowering {
    name: &'static str,
    root: &'static str,
    lower: LowerFn,
}

impl ConversionPattern for QLowering {
    fn name(&self) -> &'static str {
        self.name
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let Some(ins) = a.single_operands() else {
            return rw.match_failure("an operand converts to several values");
        };
        let loc = rw.op_loc(op);
        rw.set_insertion_point_before(op);
        match (self.lower)(rw, op, &ins, loc) {
            Ok(values) => {
                rw.replace_op(op, &values);
                true
            }
            Err(reason) => rw.match_failure(reason),
        }
    }
}

macro_rules! qlowerings {
    ($($root:literal => $name:literal, $f:path;)*) => {
        /// The patterns of `convert-qnn-to-linalg` (the function signature patterns apart).
        pub fn patterns() -> ConversionPatternSet {
            let mut set = ConversionPatternSet::new();
            $(set.add(QLowering { name: $name, root: $root, lower: $f });)*
            set
        }

        /// The quant and qnn ops `convert-qnn-to-linalg` lowers.
        pub const LOWERED_OPS: &[&str] = &[$($root),*];
    };
}

qlowerings! {
    "quant.qcast" => "QuantizeCastLowering", lower_qcast;
    "quant.dcast" => "DequantizeCastLowering", lower_dcast;
    "quant.scast" => "StorageCastLowering", lower_scast;
    "qnn.requantize" => "RequantizeLowering", lower_requantize;
    "qnn.conv" => "QConvLowering", lower_conv;
    "qnn.matmul" => "QMatMulLowering", lower_matmul;
    "qnn.add" => "QAddLowering", lower_add;
    "qnn.mul" => "QMulLowering", lower_mul;
    "qnn.concat" => "QConcatLowering", lower_concat;
    "qnn.max_pool" => "QMaxPoolLowering", lower_max_pool;
    "qnn.avg_pool" => "QAvgPoolLowering", lower_avg_pool;
    "qnn.lut" => "QLutLowering", lower_lut;
}

nart_pass::declare_pass! {
    /// The `convert-qnn-to-linalg` pass.
    pub struct ConvertQnnToLinalgPass {
        argument: "convert-qnn-to-linalg",
        name: "ConvertQnnToLinalg",
        summary: "Lower quant casts and qnn ops to linalg generics on storage integers",
        description: "Rewrites `quant.qcast`/`dcast`/`scast` and the `qnn` ops (requantize, \
            conv, matmul, add, mul, concat, avg_pool, max_pool, lut) into `linalg.generic`s, \
            `tensor` and `arith` ops on the storage integers (`i8` for `u8` too, read with \
            `extui`), computing bit for bit what the interpreter's exact integer kernels \
            compute: `i32` accumulation, fixed-point multipliers and shifts computed at compile \
            time, the op's rounding, saturation and fused activation. Function signatures \
            change with the types. It is a dialect conversion with every quant and qnn op \
            illegal, and graph ops on quantized tensors too: an op that cannot be lowered \
            (sub-byte or per-block storage, a multiplier out of range) is reported at its \
            location with the reason and the module is left unchanged.",
        statistics: [
            "LoweredOps" => "Number of quant and qnn ops lowered",
        ],
    }
}

impl Pass for ConvertQnnToLinalgPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let lowered = ctx
            .collect_ops(op, nart_ir::WalkOrder::PreOrder)
            .into_iter()
            .filter(|&o| LOWERED_OPS.contains(&ctx.op_name_str(o)))
            .count();
        let types = type_converter();
        let mut target = ConversionTarget::new();
        target
            .add_legal_dialect("linalg")
            .add_legal_dialect("tensor")
            .add_legal_dialect("arith")
            .add_legal_dialect("math")
            .add_illegal_dialect("quant")
            .add_illegal_dialect("qnn")
            .add_dynamically_legal_dialect("graph", |cx, op| cx.are_op_types_legal(op));
        nart_dialect_func::conversion::add_func_legality(&mut target);
        let mut patterns = patterns();
        nart_dialect_func::conversion::add_func_type_conversion_patterns(&mut patterns);
        match apply_partial_conversion(ctx, op, &target, &patterns, Some(&types)) {
            Ok(_) => {
                state.add_stat("LoweredOps", lowered as u64);
                Ok(())
            }
            Err(e) => Err(PassFailure::with_diagnostics(e.diagnostics)),
        }
    }
}
