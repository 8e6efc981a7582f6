//! Unsigned and narrow integers in `convert-graph-to-linalg`, and ONNX's quantization operators
//! lowered bit for bit as the interpreter's kernels compute them (`nart_tensor::quant`,
//! `nart_tensor::conv::{conv_integer, qlinear_conv}`, `nart_tensor::matmul::{matmul_integer,
//! qlinear_matmul}`).
//!
//! # Unsigned integers
//!
//! ONNX's unsigned tensors are `tensor<...xuiN>` in the graph dialect, but upstream's `arith`
//! takes signless integers only. The pass's type converter ([`type_converter`]) maps them to
//! `tensor<...xiN>`; a graph op with an unsigned operand or result is lowered as a clone of it on
//! the converted operands and types, the clone carrying [`UNSIGNED`] (one boolean per operand,
//! then per result) so that the lowerings whose semantics depend on the sign ([`operand_unsigned`],
//! [`result_unsigned`]) pick the unsigned ops: `divui`, `remui`, `cmpi ult/ule/ugt/uge`,
//! `maxui`/`minui`, `extui`, `uitofp`, `fptoui`. Once the function is converted, its signature
//! and entry block take the signless types ([`signless_signature`]); the cpu target's ABI header
//! still names the unsigned types, which it reads before lowering.
//!
//! # Quantization operators
//!
//! Scales and zero points are per tensor, or per axis (a 1-D tensor along `axis`, a row or a
//! column of a product, an output channel of a convolution); constants are read at compile time
//! and become parameters of the generics, tensors known only at run time are read through maps.
//! Every arithmetic step is in the type the kernel uses.
//!
//! | graph op | structured form |
//! |---|---|
//! | `QuantizeLinear` (f32 `x`, 8- and 16-bit outputs) | a parallel generic: `divf` in `f32`, `math.roundeven` in `f64`, NaN to 0, `+ Z`, clamp, `fptosi`, `trunci` |
//! | `DequantizeLinear` (8-, 16- and 32-bit inputs, f32 scales) | a parallel generic: `sitofp`/`uitofp` to `f32`, `− Z` in `f32` (in `f64` for a 32-bit zero point), `· S` |
//! | `DynamicQuantizeLinear` | a reduction to the minimum and maximum (with 0, NaN ignored), a rank-0 generic for the scale and zero point, a parallel generic quantizing |
//! | `MatMulInteger` | a generic over the batch (broadcast in the maps), `M`, `N` and `K`: `Σ (a − Za[m])(b − Zb[n])` in wrapping `i32` |
//! | `ConvInteger` (2-D) | `tensor.pad` with `Zx`, a grouped generic `Σ (x − Zx)(w − Zw[oc])` in wrapping `i32` |
//! | `QLinearMatMul`, `QLinearConv` (2-D) | the product above (with the bias for the conv), then a generic: `acc · M + Zy` in `f64`, clamp, `math.roundeven`, the multiplier `M` computed at compile time by `nart_tensor::quant::qlinear_multiplier` when the scales are constants, else in the body with the same `f32` operations |
//!
//! Blocked quantization, float8 and sub-byte types, scales of another type than `f32`, and a
//! convolution's input zero point known only at run time with padding are refused with the
//! reason, so the op falls back to another target.

use nart_dialect_arith::attrs::{cmpf as cmpf_pred, cmpi as cmpi_pred};
use nart_dialect_linalg::builders::create_generic;
use nart_dialect_linalg::structured::{add, d, identity, map, mul_const};
use nart_dialect_linalg::IteratorType::{Parallel as P, Reduction as R};
use nart_ir::{
    AffineExpr, AffineMap, Attr, AttrData, Context, FloatKind, Location, Op, OperationState,
    PatternRewriter, Signedness, Type, TypeData, Uniquer, Value,
};
use nart_rewrite::conversion::{ConversionRewriter, OpAdaptor, TypeConverter};
use nart_tensor::DType;

use crate::emit::*;
use crate::graph_to_linalg::{int_attr, operand, result_type, window};
use crate::qnn_to_linalg::{generic, Param};

// ----- unsigned integers -----

/// The discardable attribute of a signless clone: for each operand, then each result, whether
/// the original's elements are unsigned.
pub const UNSIGNED: &str = "nart.unsigned";

/// The width of `ty`'s elements when they are unsigned integers (`ty` a tensor or a scalar).
fn unsigned_width(ctx: &Uniquer, ty: Type) -> Option<u32> {
    let elem = match ctx.type_data(ty) {
        TypeData::RankedTensor { elem, .. } | TypeData::UnrankedTensor { elem } => *elem,
        _ => ty,
    };
    match ctx.type_data(elem) {
        TypeData::Integer {
            width,
            signedness: Signedness::Unsigned,
        } => Some(*width),
        _ => None,
    }
}

/// `ty` with signless elements, when its elements are unsigned integers.
fn signless(u: &mut Uniquer, ty: Type) -> Option<Type> {
    let w = unsigned_width(u, ty)?;
    let i = u.int_type(w);
    match u.type_data(ty).clone() {
        TypeData::RankedTensor { shape, .. } => Some(u.tensor_type(shape, i)),
        TypeData::Integer { .. } => Some(i),
        _ => None,
    }
}

/// Unsigned integer tensors to signless ones, every other type unchanged.
pub fn type_converter() -> TypeConverter {
    let mut types = TypeConverter::new();
    types
        .add_identity_conversion()
        .add_conversion(|u, t| signless(u, t).map(|s| vec![s]));
    types
}

/// Whether `op` has an operand or a result of unsigned integers.
pub(crate) fn has_unsigned(ctx: &Context, op: Op) -> bool {
    ctx.operands(op)
        .iter()
        .chain(ctx.results(op))
        .any(|&v| unsigned_width(ctx, ctx.value_type(v)).is_some())
}

fn marker(ctx: &Context, op: Op, index: usize) -> Option<bool> {
    let a = ctx.attr(op, UNSIGNED)?;
    match ctx.attr_data(a) {
        AttrData::Array(items) => items.get(index).and_then(|&b| ctx.attr_bool(b)),
        _ => None,
    }
}

/// Whether operand `i` of `op` (or of the op a signless clone stands for) holds unsigned
/// integers.
pub fn operand_unsigned(ctx: &Context, op: Op, i: usize) -> bool {
    marker(ctx, op, i).unwrap_or_else(|| {
        ctx.operands(op)
            .get(i)
            .is_some_and(|&v| unsigned_width(ctx, ctx.value_type(v)).is_some())
    })
}

/// Whether result `i` of `op` (or of the op a signless clone stands for) holds unsigned
/// integers.
pub fn result_unsigned(ctx: &Context, op: Op, i: usize) -> bool {
    marker(ctx, op, ctx.operands(op).len() + i).unwrap_or_else(|| {
        ctx.results(op)
            .get(i)
            .is_some_and(|&v| unsigned_width(ctx, ctx.value_type(v)).is_some())
    })
}

/// A dense elements attribute of unsigned elements retyped to signless ones (the bytes are the
/// same); any other attribute as it is.
fn signless_attr(u: &mut Uniquer, a: Attr) -> Attr {
    if let AttrData::DenseElements { ty, data } = u.attr_data(a).clone() {
        if let Some(t) = signless(u, ty) {
            return u.intern_attr(AttrData::DenseElements { ty: t, data });
        }
    }
    a
}

/// A clone of `op` on its converted operands with signless result types, marked with
/// [`UNSIGNED`], for a lowering to replace `op` with; the caller erases it afterwards.
pub(crate) fn signless_clone(rw: &mut ConversionRewriter<'_, '_>, op: Op, a: &OpAdaptor) -> Op {
    let operands = a.flat_operands();
    let mut flags: Vec<Attr> = Vec::new();
    for &v in rw
        .operands(op)
        .to_vec()
        .iter()
        .chain(rw.results(op).to_vec().iter())
    {
        let u = unsigned_width(rw, rw.value_type(v)).is_some();
        flags.push(rw.uniq().bool_attr(u));
    }
    let results: Vec<Type> = rw
        .results(op)
        .to_vec()
        .into_iter()
        .map(|r| {
            let t = rw.value_type(r);
            signless(rw.uniq(), t).unwrap_or(t)
        })
        .collect();
    let name = rw.op_name_str(op).to_string();
    let loc = rw.op_loc(op);
    let props: Vec<(String, Attr)> = rw
        .props(op)
        .iter()
        .map(|p| (rw.str(p.name).to_string(), p.value))
        .collect();
    let attrs: Vec<(String, Attr)> = rw
        .attrs(op)
        .iter()
        .map(|p| (rw.str(p.name).to_string(), p.value))
        .collect();
    let mut st = OperationState::new(rw.uniq(), &name, loc)
        .operands(&operands)
        .results(&results);
    for (n, v) in props {
        let v = signless_attr(rw.uniq(), v);
        st = st.prop(rw.uniq(), &n, v);
    }
    for (n, v) in attrs {
        st = st.attr(rw.uniq(), &n, v);
    }
    let m = rw.uniq().array_attr(flags);
    st = st.attr(rw.uniq(), UNSIGNED, m);
    rw.create(st)
}

/// After a successful conversion of the function `func`: its unsigned arguments and results
/// take the signless types, and the casts between the two are folded away.
pub(crate) fn signless_signature(ctx: &mut Context, func: Op) {
    if ctx.op_name_str(func) != "func.func" {
        return;
    }
    let Some(fty) = ctx
        .attr(func, "function_type")
        .and_then(|a| ctx.attr_type(a))
    else {
        return;
    };
    let TypeData::Function { inputs, results } = ctx.type_data(fty).clone() else {
        return;
    };
    let conv = |ctx: &mut Context, ts: &[Type]| -> Vec<Type> {
        ts.iter().map(|&t| signless(ctx, t).unwrap_or(t)).collect()
    };
    let (ins, outs) = (conv(ctx, &inputs), conv(ctx, &results));
    if ins == inputs && outs == results {
        return;
    }
    let Some(&entry) = ctx
        .regions(func)
        .first()
        .and_then(|&r| ctx.region_blocks(r).first())
    else {
        return;
    };
    let args = ctx.block_args(entry).to_vec();
    let mut rw = PatternRewriter::new(ctx);
    for (arg, &t) in args.iter().zip(&ins) {
        rw.set_value_type(*arg, t);
    }
    let new_ty = rw.uniq().function_type(ins, outs);
    let a = rw.uniq().type_attr(new_ty);
    rw.set_prop(func, "function_type", a);
    // The casts between an argument and its converted users now cast a type to itself, and the
    // returned values are cast back to the unsigned types the signature no longer has.
    let nested = rw.nested_ops(func);
    for o in nested.iter().copied() {
        if rw.op_name_str(o) == "func.return" && rw.op_parent_op(o) == Some(func) {
            for (i, v) in rw.operands(o).to_vec().into_iter().enumerate() {
                let Some(c) = rw.defining_op(v) else { continue };
                if rw.op_name_str(c) == "builtin.unrealized_conversion_cast"
                    && rw.operands(c).len() == 1
                {
                    let input = rw.operands(c)[0];
                    let vt = rw.value_type(v);
                    if Some(rw.value_type(input)) == signless(rw.uniq(), vt) {
                        rw.set_operand(o, i, input);
                    }
                }
            }
        }
    }
    for o in nested {
        if rw.op_name_str(o) != "builtin.unrealized_conversion_cast"
            || rw.operands(o).len() != 1
            || rw.results(o).len() != 1
        {
            continue;
        }
        let (input, out) = (rw.operands(o)[0], rw.result(o, 0));
        if rw.value_type(input) == rw.value_type(out) {
            rw.replace_all_uses_with(out, input);
        }
        if !rw.has_uses(out) {
            rw.erase_op(o);
        }
    }
}

/// The unsigned `cmpi` predicate for a signed one (others unchanged).
pub(crate) fn unsigned_pred(p: i128) -> i128 {
    match p {
        cmpi_pred::SLT => cmpi_pred::ULT,
        cmpi_pred::SLE => cmpi_pred::ULE,
        cmpi_pred::SGT => cmpi_pred::UGT,
        cmpi_pred::SGE => cmpi_pred::UGE,
        p => p,
    }
}

/// `cmpi` with `pred` made unsigned when `unsigned`.
pub(crate) fn cmpi_signed(
    rw: &mut PatternRewriter<'_>,
    pred: i128,
    unsigned: bool,
    a: Value,
    b: Value,
    loc: Location,
) -> Value {
    let p = if unsigned { unsigned_pred(pred) } else { pred };
    cmpi(rw, p, a, b, loc)
}

/// The unsigned form of a signed integer op name (`arith.maxsi` → `arith.maxui`).
pub(crate) fn unsigned_name(name: &'static str) -> &'static str {
    match name {
        "arith.maxsi" => "arith.maxui",
        "arith.minsi" => "arith.minui",
        "arith.divsi" => "arith.divui",
        "arith.remsi" => "arith.remui",
        "arith.extsi" => "arith.extui",
        "arith.sitofp" => "arith.uitofp",
        "arith.fptosi" => "arith.fptoui",
        n => n,
    }
}

/// The smallest (`low`) or largest value of a signless integer type read as unsigned (`0`, or
/// all ones).
pub(crate) fn unsigned_extreme(rw: &mut PatternRewriter<'_>, ty: Type, low: bool) -> Option<Attr> {
    signless_width(rw, ty)?;
    Some(rw.uniq().int_attr(ty, if low { 0 } else { -1 }))
}

/// `a / b` on integers: a divisor of 0 is replaced by 1, so the code never traps (the
/// interpreter reports a division by zero instead), as `Mod` does. A signed division by −1 is
/// the wrapping negation `0 − a` (the smallest value divided by −1 traps in hardware; the
/// interpreter's `wrapping_div` gives the smallest value back, as `0 − a` does).
pub(crate) fn int_div(
    rw: &mut PatternRewriter<'_>,
    a: Value,
    b: Value,
    unsigned: bool,
    ty: Type,
    loc: Location,
) -> Value {
    let zero = scalar(rw, 0.0, ty, loc);
    let one = scalar(rw, 1.0, ty, loc);
    let is_zero = cmpi(rw, cmpi_pred::EQ, b, zero, loc);
    if unsigned {
        let safe = ar(rw, "arith.select", &[is_zero, one, b], ty, loc);
        return ar(rw, "arith.divui", &[a, safe], ty, loc);
    }
    let minus_one = scalar(rw, -1.0, ty, loc);
    let is_minus_one = cmpi(rw, cmpi_pred::EQ, b, minus_one, loc);
    let i1 = rw.value_type(is_zero);
    let trapping = ar(rw, "arith.ori", &[is_zero, is_minus_one], i1, loc);
    let safe = ar(rw, "arith.select", &[trapping, one, b], ty, loc);
    let quotient = ar(rw, "arith.divsi", &[a, safe], ty, loc);
    let negated = ar(rw, "arith.subi", &[zero, a], ty, loc);
    ar(
        rw,
        "arith.select",
        &[is_minus_one, negated, quotient],
        ty,
        loc,
    )
}

/// `Clip` of integers: `min(max(x, lo), hi)` with the bounds as rank-0 inputs.
pub(crate) fn int_clip(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (shape, elem) = result_type(rw, op)?;
    if signless_width(rw, elem).is_none_or(|w| w < 8) {
        return Err("expected a float or integer tensor".to_string());
    }
    let u = result_unsigned(rw, op, 0);
    let x = operand(rw, op, 0)?;
    let lo = optional_operand(rw, op, 1);
    let hi = optional_operand(rw, op, 2);
    let mut inputs = vec![x];
    inputs.extend(lo);
    inputs.extend(hi);
    let (max, min) = if u {
        ("arith.maxui", "arith.minui")
    } else {
        ("arith.maxsi", "arith.minsi")
    };
    let v = elementwise(rw, &inputs, &shape, elem, loc, |rw, a| {
        let mut y = a[0];
        let mut next = 1;
        if lo.is_some() {
            y = ar(rw, max, &[y, a[next]], elem, loc);
            next += 1;
        }
        if hi.is_some() {
            y = ar(rw, min, &[y, a[next]], elem, loc);
        }
        Ok(y)
    })?;
    Ok(vec![v])
}

// ----- quantization: parameters -----

/// The element type and width of a signless integer tensor value.
fn int_elem(rw: &PatternRewriter<'_>, v: Value) -> Result<(Type, u32), String> {
    let (_, e) = static_type(rw, v)?;
    match signless_width(rw, e) {
        Some(w) if w >= 8 => Ok((e, w)),
        _ => Err("expected an integer tensor".to_string()),
    }
}

/// The range of a `width`-bit integer.
fn int_range(width: u32, unsigned: bool) -> (i64, i64) {
    if unsigned {
        (0, ((1u64 << width) - 1) as i64)
    } else {
        let h = 1i64 << (width - 1);
        (-h, h - 1)
    }
}

/// The integers of the constant operand `i` (a zero point), read unsigned when the original's
/// are; `None` when the operand is absent.
fn const_zero_points(
    rw: &PatternRewriter<'_>,
    op: Op,
    i: usize,
) -> Result<Option<Vec<i64>>, String> {
    let Some(v) = optional_operand(rw, op, i) else {
        return Ok(None);
    };
    let mut vals = constant_ints(rw, v)
        .ok_or_else(|| format!("operand #{i} (a zero point) must be a constant to be lowered"))?;
    if operand_unsigned(rw, op, i) {
        let (_, w) = int_elem(rw, v)?;
        if w < 64 {
            let mask = (1i64 << w) - 1;
            vals.iter_mut().for_each(|x| *x &= mask);
        }
    }
    Ok(Some(vals))
}

/// `v` as a two's complement value of `width` bits read as signed (what a signless integer
/// attribute of that width holds).
fn wrap(v: i64, width: u32) -> i64 {
    if width >= 64 {
        v
    } else {
        let s = 64 - width;
        (v << s) >> s
    }
}

/// A scalar operand of a generic's body: a compile-time parameter, or an element of a tensor
/// computed at run time, read through a map of the loops.
enum Src {
    /// Known at compile time.
    Param(Param),
    /// A run-time tensor and its map.
    Input(Value, AffineMap),
}

/// [`generic`] with scalar sources that are parameters or run-time inputs: `body` gets the
/// elements of `inputs`, then one value per source (in order), then the accumulator.
#[allow(clippy::too_many_arguments)]
fn generic_src(
    rw: &mut PatternRewriter<'_>,
    inputs: &[(Value, AffineMap)],
    srcs: Vec<Src>,
    init: Value,
    out_map: AffineMap,
    iters: &[nart_dialect_linalg::IteratorType],
    loc: Location,
    body: impl FnOnce(&mut PatternRewriter<'_>, &[Value], &[Value], Value) -> Value,
) -> Value {
    let mut all = inputs.to_vec();
    let mut params = Vec::new();
    // For each source: `Ok(i)` the i-th parameter, `Err(j)` the j-th input.
    let mut order = Vec::new();
    for src in srcs {
        match src {
            Src::Param(p) => {
                order.push(Ok(params.len()));
                params.push(p);
            }
            Src::Input(v, m) => {
                order.push(Err(all.len()));
                all.push((v, m));
            }
        }
    }
    let n_in = inputs.len();
    generic(
        rw,
        &all,
        &params,
        init,
        out_map,
        iters,
        loc,
        |rw, x, p, acc| {
            let vals: Vec<Value> = order
                .iter()
                .map(|o| match *o {
                    Ok(i) => p[i],
                    Err(j) => x[j],
                })
                .collect();
            body(rw, &x[..n_in], &vals, acc)
        },
    )
}

/// How the scale and zero point of a QuantizeLinear or DequantizeLinear of a tensor of
/// `shape` are read: the number of values, the shape and map of a parameter tensor, and the
/// map reading the operand itself (its rank-0, `[1]` or `[n]` shape).
fn linear_layout(
    rw: &PatternRewriter<'_>,
    op: Op,
    shape: &[i64],
) -> Result<(usize, Vec<i64>, AffineMap, AffineMap), String> {
    if int_attr(rw, op, "block_size", 0) != 0 {
        return Err("blocked quantization is not lowered".to_string());
    }
    let (ss, se) = static_type(rw, operand(rw, op, 1)?)?;
    if float_width(rw, se) != Some(32) || !is_float(rw, se) {
        return Err("operand #1 (a scale) must be f32 to be lowered".to_string());
    }
    if let Some(z) = optional_operand(rw, op, 2) {
        if static_type(rw, z)?.0 != ss {
            return Err("the zero point and the scale differ in shape".to_string());
        }
    }
    let loops = shape.len() as u32;
    let n: i64 = ss.iter().product();
    if n == 1 {
        let read = map(loops, vec![AffineExpr::Const(0); ss.len()]);
        return Ok((1, vec![1], map(loops, vec![AffineExpr::Const(0)]), read));
    }
    let axis = crate::graph_to_linalg::norm_axis(int_attr(rw, op, "axis", 1), shape.len())?;
    if ss.len() != 1 || shape[axis] != n {
        return Err(format!(
            "a per-axis scale of shape {ss:?} does not fit axis {axis} of {shape:?}"
        ));
    }
    let m = map(loops, vec![d(axis as u32)]);
    Ok((n as usize, vec![n], m.clone(), m))
}

/// The scale of a QuantizeLinear or DequantizeLinear as an `f32` source.
fn scale_src(rw: &PatternRewriter<'_>, op: Op, shape: &[i64]) -> Result<Src, String> {
    let (n, pshape, pmap, read) = linear_layout(rw, op, shape)?;
    let v = operand(rw, op, 1)?;
    Ok(match constant_f32(rw, v) {
        Some(vals) if vals.len() == n => Src::Param(Param::floats(vals, pshape, pmap)),
        _ => Src::Input(v, read),
    })
}

/// The zero point of a QuantizeLinear or DequantizeLinear: a parameter of its values (`i64`),
/// or a run-time storage tensor (its width and signedness); `None` without one.
fn zero_point_src(rw: &PatternRewriter<'_>, op: Op, shape: &[i64]) -> Result<Option<Zp>, String> {
    let (n, pshape, pmap, read) = linear_layout(rw, op, shape)?;
    let Some(v) = optional_operand(rw, op, 2) else {
        return Ok(None);
    };
    if constant_ints(rw, v).is_some() {
        let vals = const_zero_points(rw, op, 2)?.unwrap_or_default();
        if vals.len() != n {
            return Err("the zero point and the scale differ in size".to_string());
        }
        return Ok(Some(Zp {
            src: Src::Param(Param::ints(vals, pshape, pmap)),
            store: None,
        }));
    }
    let (_, w) = int_elem(rw, v)?;
    Ok(Some(Zp {
        src: Src::Input(v, read),
        store: Some((w, operand_unsigned(rw, op, 2))),
    }))
}

/// A zero point of the body as `i64`: a parameter already is, a run-time one is extended.
fn zero_point_i64(
    rw: &mut PatternRewriter<'_>,
    z: Value,
    storage: Option<(u32, bool)>,
    loc: Location,
) -> Value {
    match storage {
        Some((w, u)) if w < 64 => {
            let i64t = rw.uniq().int_type(64);
            let ext = if u { "arith.extui" } else { "arith.extsi" };
            ar(rw, ext, &[z], i64t, loc)
        }
        _ => z,
    }
}

/// `clamp(round_half_even(q) + z, lo, hi)` of an `f64` `q` into the signless integer type `ty`,
/// NaN giving `z`, as `nart_tensor::quant::quantize_linear` computes it.
#[allow(clippy::too_many_arguments)]
fn saturate_round(
    rw: &mut PatternRewriter<'_>,
    q: Value,
    z: Value,
    lo: i64,
    hi: i64,
    ty: Type,
    loc: Location,
) -> Result<Value, String> {
    let f64t = rw.uniq().float_type(FloatKind::F64);
    let i64t = rw.uniq().int_type(64);
    let nan = cmpf(rw, cmpf_pred::UNO, q, q, loc);
    let r = math(rw, "math.roundeven", q, loc)?;
    let t = ar(rw, "arith.addf", &[r, z], f64t, loc);
    let t = ar(rw, "arith.select", &[nan, z, t], f64t, loc);
    let lo = scalar(rw, lo as f64, f64t, loc);
    let hi = scalar(rw, hi as f64, f64t, loc);
    let t = ar(rw, "arith.maximumf", &[t, lo], f64t, loc);
    let t = ar(rw, "arith.minimumf", &[t, hi], f64t, loc);
    let i = ar(rw, "arith.fptosi", &[t], i64t, loc);
    Ok(if signless_width(rw, ty) == Some(64) {
        i
    } else {
        ar(rw, "arith.trunci", &[i], ty, loc)
    })
}

/// The integer output type of a quantizing op: its element type, and whether it is unsigned.
fn quantized_result(
    rw: &PatternRewriter<'_>,
    op: Op,
    i: usize,
) -> Result<(Type, u32, bool), String> {
    let r = rw.result(op, i);
    let (_, e) = static_type(rw, r)?;
    match signless_width(rw, e) {
        Some(w @ (8 | 16)) => Ok((e, w, result_unsigned(rw, op, i))),
        _ => Err(format!(
            "{} to {} is not lowered (8- and 16-bit integers are)",
            rw.op_name_str(op).trim_start_matches("graph."),
            nart_ir::printer::type_to_string(rw, e)
        )),
    }
}

/// `QuantizeLinear`: see the module docs.
pub(crate) fn lower_quantize_linear(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    loc: Location,
) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (shape, xe) = static_type(rw, x)?;
    if float_width(rw, xe) != Some(32) || !is_float(rw, xe) {
        return Err("only f32 inputs are lowered".to_string());
    }
    if !matches!(int_attr(rw, op, "precision", 0), 0 | 1) {
        return Err("a division in another precision than f32 is not lowered".to_string());
    }
    let (ty, w, u) = quantized_result(rw, op, 0)?;
    let sc = scale_src(rw, op, &shape)?;
    let (zp, zstore) = zero_point_src(rw, op, &shape)?
        .map_or((Src::Param(Param::int(0)), None), |z| (z.src, z.store));
    let (lo, hi) = int_range(w, u);
    let init = empty(rw, &shape, ty, loc);
    let n = shape.len() as u32;
    let f32t = rw.uniq().f32_type();
    let f64t = rw.uniq().float_type(FloatKind::F64);
    let mut failed = None;
    let v = generic_src(
        rw,
        &[(x, identity(n))],
        vec![sc, zp],
        init,
        identity(n),
        &vec![P; shape.len()],
        loc,
        |rw, a, p, _| {
            let q = ar(rw, "arith.divf", &[a[0], p[0]], f32t, loc);
            let q = ar(rw, "arith.extf", &[q], f64t, loc);
            let z = zero_point_i64(rw, p[1], zstore, loc);
            let zf = ar(rw, "arith.sitofp", &[z], f64t, loc);
            match saturate_round(rw, q, zf, lo, hi, ty, loc) {
                Ok(v) => v,
                Err(e) => {
                    failed = Some(e);
                    q
                }
            }
        },
    );
    match failed {
        Some(e) => Err(e),
        None => Ok(vec![v]),
    }
}

/// `DequantizeLinear`: see the module docs.
pub(crate) fn lower_dequantize_linear(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    loc: Location,
) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (shape, _) = static_type(rw, x)?;
    let (_, xw) = int_elem(rw, x)?;
    if !matches!(xw, 8 | 16 | 32) {
        return Err("only 8-, 16- and 32-bit inputs are lowered".to_string());
    }
    let u = operand_unsigned(rw, op, 0);
    let (_, elem) = result_type(rw, op)?;
    if float_width(rw, elem) != Some(32) || !is_float(rw, elem) {
        return Err("only f32 results are lowered".to_string());
    }
    let sc = scale_src(rw, op, &shape)?;
    let zp = zero_point_src(rw, op, &shape)?;
    // A 32-bit zero point makes NumPy subtract in f64 (see the kernel).
    let wide = zp.is_some() && xw >= 32;
    let (zp, zstore) = zp.map_or((Src::Param(Param::int(0)), None), |z| (z.src, z.store));
    let init = empty(rw, &shape, elem, loc);
    let n = shape.len() as u32;
    let f64t = rw.uniq().float_type(FloatKind::F64);
    let v = generic_src(
        rw,
        &[(x, identity(n))],
        vec![sc, zp],
        init,
        identity(n),
        &vec![P; shape.len()],
        loc,
        |rw, a, p, _| {
            let to_f = if u { "arith.uitofp" } else { "arith.sitofp" };
            let xf = ar(rw, to_f, &[a[0]], elem, loc);
            // The zero point as a signed i64, exactly representable in f64 (and in f32 below
            // 32 bits).
            let z = zero_point_i64(rw, p[1], zstore, loc);
            if wide {
                let x64 = ar(rw, "arith.extf", &[xf], f64t, loc);
                let z64 = ar(rw, "arith.sitofp", &[z], f64t, loc);
                let s64 = ar(rw, "arith.extf", &[p[0]], f64t, loc);
                let dq = ar(rw, "arith.subf", &[x64, z64], f64t, loc);
                let y = ar(rw, "arith.mulf", &[dq, s64], f64t, loc);
                ar(rw, "arith.truncf", &[y], elem, loc)
            } else {
                let zf = ar(rw, "arith.sitofp", &[z], elem, loc);
                let dq = ar(rw, "arith.subf", &[xf, zf], elem, loc);
                ar(rw, "arith.mulf", &[dq, p[0]], elem, loc)
            }
        },
    );
    Ok(vec![v])
}

/// `DynamicQuantizeLinear`: see the module docs.
pub(crate) fn lower_dynamic_quantize_linear(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    loc: Location,
) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (shape, xe) = static_type(rw, x)?;
    if float_width(rw, xe) != Some(32) || !is_float(rw, xe) {
        return Err("only f32 inputs are lowered".to_string());
    }
    if rw.results(op).len() != 3 {
        return Err("expected three results".to_string());
    }
    let (qt, w, _) = quantized_result(rw, op, 0)?;
    if w != 8 {
        return Err("expected a ui8 result".to_string());
    }
    let f32t = xe;
    let f64t = rw.uniq().float_type(FloatKind::F64);
    let i1 = rw.uniq().int_type(1);
    let n = shape.len() as u32;
    // The minimum and maximum of the elements and 0 (a NaN ignored, as `f32::min` does), each
    // one reduction (upstream's linalg prints several results differently).
    let extremum = |rw: &mut PatternRewriter<'_>, name: &'static str| {
        let init = filled(rw, 0.0, &[], f32t, loc);
        let g = create_generic(
            rw,
            &[x],
            &[init],
            vec![identity(n), map(n, vec![])],
            &vec![R; shape.len()],
            loc,
            |rw, a| vec![ar(rw, name, &[a[1], a[0]], f32t, loc)],
        );
        rw.result(g, 0)
    };
    let rmin = extremum(rw, "arith.minnumf");
    let rmax = extremum(rw, "arith.maxnumf");
    // The scale, then the zero point (0 when the scale is 0 or not finite).
    let s0 = empty(rw, &[], f32t, loc);
    let g = create_generic(
        rw,
        &[rmin, rmax],
        &[s0],
        vec![map(0, vec![]); 3],
        &[],
        loc,
        |rw, a| {
            let diff = ar(rw, "arith.subf", &[a[1], a[0]], f32t, loc);
            let c255 = scalar(rw, 255.0, f32t, loc);
            vec![ar(rw, "arith.divf", &[diff, c255], f32t, loc)]
        },
    );
    let scale = rw.result(g, 0);
    let z0 = empty(rw, &[], qt, loc);
    let zp = try_generic(
        rw,
        &[rmin, scale],
        &[z0],
        vec![map(0, vec![]); 3],
        &[],
        loc,
        |rw, a| {
            let q = ar(rw, "arith.divf", &[a[0], a[1]], f32t, loc);
            let zero = scalar(rw, 0.0, f32t, loc);
            let q = ar(rw, "arith.subf", &[zero, q], f32t, loc);
            let q = ar(rw, "arith.extf", &[q], f64t, loc);
            let z0 = scalar(rw, 0.0, f64t, loc);
            let zp = saturate_round(rw, q, z0, 0, 255, qt, loc)?;
            let ok = valid_scale(rw, a[1], i1, loc);
            let qzero = scalar(rw, 0.0, qt, loc);
            Ok(vec![ar(rw, "arith.select", &[ok, zp, qzero], qt, loc)])
        },
    )?[0];
    let init = empty(rw, &shape, qt, loc);
    let y = try_generic(
        rw,
        &[x, scale, zp],
        &[init],
        vec![identity(n), map(n, vec![]), map(n, vec![]), identity(n)],
        &vec![P; shape.len()],
        loc,
        |rw, a| {
            let q = ar(rw, "arith.divf", &[a[0], a[1]], f32t, loc);
            let q = ar(rw, "arith.extf", &[q], f64t, loc);
            let i32t = rw.uniq().int_type(32);
            let zi = ar(rw, "arith.extui", &[a[2]], i32t, loc);
            let zf = ar(rw, "arith.uitofp", &[zi], f64t, loc);
            // `(round(q) + z).clamp(0, 255) as u8`: NaN becomes 0, not the zero point.
            let r = math(rw, "math.roundeven", q, loc)?;
            let t = ar(rw, "arith.addf", &[r, zf], f64t, loc);
            let z = scalar(rw, 0.0, f64t, loc);
            let v = saturate_round(rw, t, z, 0, 255, qt, loc)?;
            let ok = valid_scale(rw, a[1], i1, loc);
            let qzero = scalar(rw, 0.0, qt, loc);
            Ok(vec![ar(rw, "arith.select", &[ok, v, qzero], qt, loc)])
        },
    )?;
    Ok(vec![y[0], scale, zp])
}

/// `s != 0 && s` finite, for a scale that is not negative.
fn valid_scale(rw: &mut PatternRewriter<'_>, s: Value, i1: Type, loc: Location) -> Value {
    let ty = rw.value_type(s);
    let zero = scalar(rw, 0.0, ty, loc);
    let inf = scalar(rw, f64::INFINITY, ty, loc);
    let pos = cmpf(rw, cmpf_pred::OGT, s, zero, loc);
    let fin = cmpf(rw, cmpf_pred::OLT, s, inf, loc);
    ar(rw, "arith.andi", &[pos, fin], i1, loc)
}

// ----- integer products -----

/// An `i8`/`ui8` operand of an integer product: its value, shape and signedness.
struct IntIn {
    v: Value,
    shape: Vec<i64>,
    unsigned: bool,
}

fn int_input(rw: &PatternRewriter<'_>, op: Op, i: usize) -> Result<IntIn, String> {
    let v = operand(rw, op, i)?;
    let (shape, _) = static_type(rw, v)?;
    let (_, w) = int_elem(rw, v)?;
    if w != 8 {
        return Err(format!("operand #{i} must hold 8-bit integers"));
    }
    Ok(IntIn {
        v,
        shape,
        unsigned: operand_unsigned(rw, op, i),
    })
}

/// A zero point of a product or of a QLinear output: the source, and for a run-time one the
/// width and signedness of its storage.
struct Zp {
    src: Src,
    store: Option<(u32, bool)>,
}

/// The zero point operand `i` of `op`: absent (0), one value, or `n` values read at loop `dim`
/// of `loops` loops.
fn zero_point_of(
    rw: &PatternRewriter<'_>,
    op: Op,
    i: usize,
    n: i64,
    loops: u32,
    dim: u32,
) -> Result<Zp, String> {
    let Some(v) = optional_operand(rw, op, i) else {
        return Ok(Zp {
            src: Src::Param(Param::int(0)),
            store: None,
        });
    };
    let name = rw.op_name_str(op).trim_start_matches("graph.").to_string();
    if let Some(vals) = constant_ints(rw, v) {
        let vals = const_zero_points(rw, op, i)?.unwrap_or(vals);
        let vals = expand(&name, &format!("operand #{i}"), Some(vals), n)?;
        return Ok(Zp {
            src: Src::Param(Param::ints(vals, vec![n], map(loops, vec![d(dim)]))),
            store: None,
        });
    }
    let (shape, _) = static_type(rw, v)?;
    let (_, w) = int_elem(rw, v)?;
    let count: i64 = shape.iter().product();
    let read = if count == 1 {
        map(loops, vec![AffineExpr::Const(0); shape.len()])
    } else if shape == [n] {
        map(loops, vec![d(dim)])
    } else {
        return Err(format!(
            "{name}: operand #{i} has shape {shape:?}, expected 1 or {n} values"
        ));
    };
    Ok(Zp {
        src: Src::Input(v, read),
        store: Some((w, operand_unsigned(rw, op, i))),
    })
}

/// The `f32` scale operand `i` of `op`: one value, or `n` values read at loop `dim` of `loops`
/// loops; `Ok(values)` when it is a constant.
fn scale_of(
    rw: &PatternRewriter<'_>,
    op: Op,
    i: usize,
    n: i64,
    loops: u32,
    dim: u32,
) -> Result<(Src, Option<Vec<f32>>), String> {
    let v = operand(rw, op, i)?;
    let (shape, e) = static_type(rw, v)?;
    if float_width(rw, e) != Some(32) || !is_float(rw, e) {
        return Err(format!("operand #{i} (a scale) must be f32 to be lowered"));
    }
    let count: i64 = shape.iter().product();
    if count != 1 && count != n {
        return Err(format!(
            "operand #{i} has {count} scales, expected 1 or {n}"
        ));
    }
    if let Some(vals) = constant_f32(rw, v) {
        let vals = if count == 1 {
            vec![vals[0]; n as usize]
        } else {
            vals
        };
        let src = Src::Param(Param::floats(
            vals.clone(),
            vec![n],
            map(loops, vec![d(dim)]),
        ));
        return Ok((src, Some(vals)));
    }
    let read = if count == 1 {
        map(loops, vec![AffineExpr::Const(0); shape.len()])
    } else {
        map(loops, vec![d(dim)])
    };
    Ok((Src::Input(v, read), None))
}

/// `x` (an 8-bit storage value) minus the `i64` zero point `z`, in `i32`.
fn centered(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    unsigned: bool,
    z: Value,
    loc: Location,
) -> Value {
    let i32t = rw.uniq().int_type(32);
    let ext = if unsigned {
        "arith.extui"
    } else {
        "arith.extsi"
    };
    let xw = ar(rw, ext, &[x], i32t, loc);
    let zw = ar(rw, "arith.trunci", &[z], i32t, loc);
    ar(rw, "arith.subi", &[xw, zw], i32t, loc)
}

/// Zero points of one value (`n == 1`) or `n` values, expanded to `n`.
fn expand(op: &str, what: &str, z: Option<Vec<i64>>, n: i64) -> Result<Vec<i64>, String> {
    let z = z.unwrap_or_else(|| vec![0]);
    match z.len() {
        1 => Ok(vec![z[0]; n as usize]),
        l if l as i64 == n => Ok(z),
        l => Err(format!("{op}: {what} has {l} values, expected 1 or {n}")),
    }
}

/// The loops of a product into a result of rank `ro`: the batch dimensions, `m`, `n`, `k`.
fn product_loops(ro: usize) -> u32 {
    (ro + 1) as u32
}

/// `Σ_k (a[.., m, k] − Za[m]) · (b[.., k, n] − Zb[n])` in wrapping `i32`, into a tensor of the
/// result shape `out` (batch dimensions broadcast); the zero points are read over the loops
/// of [`product_loops`].
fn int_matmul(
    rw: &mut PatternRewriter<'_>,
    a: &IntIn,
    b: &IntIn,
    (za, zb): (Zp, Zp),
    out: &[i64],
    loc: Location,
) -> Result<Value, String> {
    let (ra, rb, ro) = (a.shape.len(), b.shape.len(), out.len());
    if ra < 2 || rb < 2 {
        return Err("1-D operands are not lowered".to_string());
    }
    let (m, k, n) = (a.shape[ra - 2], a.shape[ra - 1], b.shape[rb - 1]);
    if b.shape[rb - 2] != k || ro < 2 || out[ro - 2] != m || out[ro - 1] != n {
        return Err(format!(
            "the shapes {:?} x {:?} -> {out:?} do not multiply",
            a.shape, b.shape
        ));
    }
    let nb = ro - 2;
    let loops = product_loops(ro);
    let (i, j, kk) = (d(nb as u32), d(nb as u32 + 1), d(nb as u32 + 2));
    let batch = |s: &[i64]| -> Result<Vec<AffineExpr>, String> {
        let r = s.len() - 2;
        if r > nb {
            return Err("an operand has more batch dimensions than the result".to_string());
        }
        (0..r)
            .map(|q| {
                let o = q + nb - r;
                match s[q] {
                    1 if out[o] != 1 => Ok(AffineExpr::Const(0)),
                    x if x == out[o] => Ok(d(o as u32)),
                    _ => Err("the batch dimensions do not broadcast".to_string()),
                }
            })
            .collect()
    };
    let mut ma = batch(&a.shape)?;
    ma.extend([i.clone(), kk.clone()]);
    let mut mb = batch(&b.shape)?;
    mb.extend([kk, j.clone()]);
    let mut mo: Vec<_> = (0..nb as u32).map(d).collect();
    mo.extend([i, j]);
    let i32t = rw.uniq().int_type(32);
    let init = filled(rw, 0.0, out, i32t, loc);
    let mut iters = vec![P; nb + 2];
    iters.push(R);
    let (au, bu) = (a.unsigned, b.unsigned);
    let (sa, sb) = (za.store, zb.store);
    Ok(generic_src(
        rw,
        &[(a.v, map(loops, ma)), (b.v, map(loops, mb))],
        vec![za.src, zb.src],
        init,
        map(loops, mo),
        &iters,
        loc,
        |rw, x, p, acc| {
            let za = zero_point_i64(rw, p[0], sa, loc);
            let zb = zero_point_i64(rw, p[1], sb, loc);
            let xa = centered(rw, x[0], au, za, loc);
            let xb = centered(rw, x[1], bu, zb, loc);
            let prod = ar(rw, "arith.muli", &[xa, xb], i32t, loc);
            ar(rw, "arith.addi", &[acc, prod], i32t, loc)
        },
    ))
}

/// The zero points of a product's operands `ia` and `ib` (per row of `a`, per column of `b`).
fn product_zero_points(
    rw: &PatternRewriter<'_>,
    op: Op,
    (ia, ib): (usize, usize),
    a: &IntIn,
    b: &IntIn,
    out: &[i64],
) -> Result<(Zp, Zp), String> {
    let (ra, rb, ro) = (a.shape.len(), b.shape.len(), out.len());
    if ra < 2 || rb < 2 || ro < 2 {
        return Err("1-D operands are not lowered".to_string());
    }
    let loops = product_loops(ro);
    let nb = (ro - 2) as u32;
    let za = zero_point_of(rw, op, ia, a.shape[ra - 2], loops, nb)?;
    let zb = zero_point_of(rw, op, ib, b.shape[rb - 1], loops, nb + 1)?;
    Ok((za, zb))
}

/// `MatMulInteger`: see the module docs.
pub(crate) fn lower_matmul_integer(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (out, elem) = result_type(rw, op)?;
    if signless_width(rw, elem) != Some(32) {
        return Err("expected an i32 result".to_string());
    }
    let (a, b) = (int_input(rw, op, 0)?, int_input(rw, op, 1)?);
    let zps = product_zero_points(rw, op, (2, 3), &a, &b, &out)?;
    Ok(vec![int_matmul(rw, &a, &b, zps, &out, loc)?])
}

/// The requantization multiplier of a QLinear op: computed at compile time by
/// `nart_tensor::quant::qlinear_multiplier` when the three scales are constants, else in the
/// body with the same `f32` operations (`f32(f32(sa · sb) / sy)`).
enum Mult {
    Const(Param),
    RunTime([Src; 3]),
}

/// The requantizing generic of QLinearMatMul and QLinearConv over `acc` (plus `bias` read at
/// `bias_map`): `acc · M + Zy` in `f64`, clamped to the output type, rounded half to even, as
/// `nart_tensor::quant::qlinear_output`.
#[allow(clippy::too_many_arguments)]
fn qlinear_requantize(
    rw: &mut PatternRewriter<'_>,
    acc: Value,
    bias: Option<(Value, AffineMap)>,
    mult: Mult,
    zy: Zp,
    out_ty: Type,
    range: (i64, i64),
    loc: Location,
) -> Result<Value, String> {
    let (shape, _) = static_type(rw, acc)?;
    let n = shape.len() as u32;
    let init = empty(rw, &shape, out_ty, loc);
    let mut inputs = vec![(acc, identity(n))];
    let has_bias = bias.is_some();
    inputs.extend(bias);
    let f32t = rw.uniq().f32_type();
    let f64t = rw.uniq().float_type(FloatKind::F64);
    let i32t = rw.uniq().int_type(32);
    let i64t = rw.uniq().int_type(64);
    let (mut srcs, run_time) = match mult {
        Mult::Const(p) => (vec![Src::Param(p)], false),
        Mult::RunTime(s) => (s.into_iter().collect(), true),
    };
    srcs.push(zy.src);
    let zstore = zy.store;
    let mut failed = None;
    let v = generic_src(
        rw,
        &inputs,
        srcs,
        init,
        identity(n),
        &vec![P; shape.len()],
        loc,
        |rw, x, p, _| {
            let acc = if has_bias {
                ar(rw, "arith.addi", &[x[0], x[1]], i32t, loc)
            } else {
                x[0]
            };
            let (m, zi) = if run_time {
                let ab = ar(rw, "arith.mulf", &[p[0], p[1]], f32t, loc);
                (ar(rw, "arith.divf", &[ab, p[2]], f32t, loc), p[3])
            } else {
                (p[0], p[1])
            };
            let a = ar(rw, "arith.sitofp", &[acc], f64t, loc);
            let m = ar(rw, "arith.extf", &[m], f64t, loc);
            let zi = zero_point_i64(rw, zi, zstore, loc);
            let z = ar(rw, "arith.sitofp", &[zi], f64t, loc);
            let r = ar(rw, "arith.mulf", &[a, m], f64t, loc);
            let r = ar(rw, "arith.addf", &[r, z], f64t, loc);
            let lo = scalar(rw, range.0 as f64, f64t, loc);
            let hi = scalar(rw, range.1 as f64, f64t, loc);
            let r = ar(rw, "arith.maximumf", &[r, lo], f64t, loc);
            let r = ar(rw, "arith.minimumf", &[r, hi], f64t, loc);
            let r = match math(rw, "math.roundeven", r, loc) {
                Ok(r) => r,
                Err(e) => {
                    failed = Some(e);
                    r
                }
            };
            // `NaN as i128` is 0.
            let nan = cmpf(rw, cmpf_pred::UNO, r, r, loc);
            let zero = scalar(rw, 0.0, f64t, loc);
            let r = ar(rw, "arith.select", &[nan, zero, r], f64t, loc);
            let i = ar(rw, "arith.fptosi", &[r], i64t, loc);
            ar(rw, "arith.trunci", &[i], out_ty, loc)
        },
    );
    match failed {
        Some(e) => Err(e),
        None => Ok(v),
    }
}

/// The output of a QLinear op: its zero point (operand `i`, one value, over `loops` loops),
/// its type's range, its type.
fn qlinear_out(
    rw: &PatternRewriter<'_>,
    op: Op,
    i: usize,
    loops: u32,
) -> Result<(Zp, (i64, i64), Type), String> {
    let (ty, w, u) = quantized_result(rw, op, 0)?;
    if w != 8 {
        return Err("only 8-bit outputs are lowered".to_string());
    }
    if optional_operand(rw, op, i).is_none() {
        return Err("expected y_zero_point".to_string());
    }
    if operand_unsigned(rw, op, i) != u {
        return Err("y_zero_point's type differs from the result's".to_string());
    }
    let z = zero_point_of(rw, op, i, 1, loops, 0)?;
    Ok((z, int_range(w, u), ty))
}

/// The multiplier of a QLinear op whose scales `(a, b, y)` are read over `loops` loops, `a` per
/// index of loop `da` (`na` values) and `b` per index of loop `db` (`nb` values).
#[allow(clippy::too_many_arguments)]
fn qlinear_mult(
    rw: &PatternRewriter<'_>,
    op: Op,
    (ia, ib, iy): (usize, usize, usize),
    (na, da): (i64, u32),
    (nb, db): (i64, u32),
    loops: u32,
) -> Result<Mult, String> {
    let (sa, ca) = scale_of(rw, op, ia, na, loops, da)?;
    let (sb, cb) = scale_of(rw, op, ib, nb, loops, db)?;
    let (sy, cy) = scale_of(rw, op, iy, 1, loops, 0)?;
    if let (Some(a), Some(b), Some(y)) = (ca, cb, cy) {
        // The table over the two indices (a single value when they agree everywhere).
        let mut table = Vec::with_capacity((na * nb) as usize);
        for &x in &a {
            for &w in &b {
                table.push(nart_tensor::quant::qlinear_multiplier(
                    f64::from(x),
                    f64::from(w),
                    f64::from(y[0]),
                    DType::F32,
                ));
            }
        }
        let (shape, m) = if da == db {
            // One index (QLinearConv: the input's scale is a single value).
            let t: Vec<f32> = (0..nb as usize).map(|k| table[k]).collect();
            return Ok(Mult::Const(Param::floats(
                t,
                vec![nb],
                map(loops, vec![d(db)]),
            )));
        } else {
            (vec![na, nb], map(loops, vec![d(da), d(db)]))
        };
        return Ok(Mult::Const(Param::floats(table, shape, m)));
    }
    Ok(Mult::RunTime([sa, sb, sy]))
}

/// `QLinearMatMul`: see the module docs.
pub(crate) fn lower_qlinear_matmul(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (out, _) = result_type(rw, op)?;
    let (a, b) = (int_input(rw, op, 0)?, int_input(rw, op, 3)?);
    let (ra, rb, r) = (a.shape.len(), b.shape.len(), out.len());
    if ra < 2 || rb < 2 || r < 2 {
        return Err("1-D operands are not lowered".to_string());
    }
    let (m, n) = (a.shape[ra - 2], b.shape[rb - 1]);
    let zps = product_zero_points(rw, op, (2, 5), &a, &b, &out)?;
    let r = r as u32;
    let mult = qlinear_mult(rw, op, (1, 4, 6), (m, r - 2), (n, r - 1), r)?;
    let (zy, range, ty) = qlinear_out(rw, op, 7, r)?;
    let acc = int_matmul(rw, &a, &b, zps, &out, loc)?;
    Ok(vec![qlinear_requantize(
        rw, acc, None, mult, zy, ty, range, loc,
    )?])
}

/// `Σ (x − Zx)(w − Zw[oc])` of a 2-D grouped convolution in wrapping `i32`: `x` padded with
/// `Zx` (so padding adds nothing), one generic over `(n, g, fo, oh, ow, c, kh, kw)`.
fn int_conv(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    x: &IntIn,
    w: &IntIn,
    (ix, iw): (usize, usize),
    out: &[i64],
    loc: Location,
) -> Result<Value, String> {
    let (sx, sw) = (&x.shape, &w.shape);
    if sx.len() != 4 || sw.len() != 4 || out.len() != 4 {
        return Err("only 2-D convolutions (4-D tensors) are lowered".to_string());
    }
    let win = window(rw, op, Some([sw[2], sw[3]]))?;
    let g = int_attr(rw, op, "group", 1);
    if g <= 0 || sx[1] % g != 0 || sw[0] % g != 0 || sw[1] * g != sx[1] {
        return Err(format!("group {g} does not divide the channels"));
    }
    for i in 0..2 {
        let span = sx[2 + i] + win.pads[i] + win.pads[2 + i];
        let eff = win.dilations[i] * (win.kernel[i] - 1) + 1;
        if win.strides[i] <= 0 || span < eff || (span - eff) / win.strides[i] + 1 != out[2 + i] {
            return Err("the result shape does not follow from the window".to_string());
        }
    }
    if out[0] != sx[0] || out[1] != sw[0] {
        return Err("the result shape does not follow from the operands".to_string());
    }
    let name = rw.op_name_str(op).trim_start_matches("graph.").to_string();
    // Loops (n, g, fo, oh, ow, c, kh, kw): `Zw` per output channel is read at (g, fo).
    let zx = zero_point_of(rw, op, ix, 1, 8, 0)?;
    let zw = match zero_point_of(rw, op, iw, sw[0], 8, 1)? {
        Zp {
            src: Src::Param(_), ..
        } => {
            let v = const_zero_points(rw, op, iw)?;
            let vals = expand(&name, "w_zero_point", v, sw[0])?;
            Zp {
                src: Src::Param(Param::ints(
                    vals,
                    vec![g, sw[0] / g],
                    map(8, vec![d(1), d(2)]),
                )),
                store: None,
            }
        }
        Zp {
            src: Src::Input(v, _),
            store,
        } => {
            let (zs, _) = static_type(rw, v)?;
            let read = if zs.iter().product::<i64>() == 1 {
                map(8, vec![AffineExpr::Const(0); zs.len()])
            } else {
                // One zero point per output channel `g * F/g + fo`.
                map(8, vec![add(mul_const(d(1), sw[0] / g), d(2))])
            };
            Zp {
                src: Src::Input(v, read),
                store,
            }
        }
    };
    let padded = win.pads.iter().any(|&p| p != 0);
    let pad_value = match &zx.src {
        Src::Param(Param::Scalar(crate::qnn_to_linalg::ParamValue::I64(z))) => *z,
        Src::Param(_) => 0,
        Src::Input(..) if padded => {
            return Err(format!(
                "{name}: a run-time input zero point with padding is not lowered"
            ))
        }
        Src::Input(..) => 0,
    };
    let xp = if padded {
        pad(
            rw,
            x.v,
            &[0, 0, win.pads[0], win.pads[1]],
            &[0, 0, win.pads[2], win.pads[3]],
            wrap(pad_value, 8) as f64,
            loc,
        )?
    } else {
        x.v
    };
    let (spx, _) = static_type(rw, xp)?;
    let xg = reshape(rw, xp, &[spx[0], g, spx[1] / g, spx[2], spx[3]], loc)?;
    let wg = reshape(rw, w.v, &[g, sw[0] / g, sw[1], sw[2], sw[3]], loc)?;
    let i32t = rw.uniq().int_type(32);
    let og_shape = [out[0], g, out[1] / g, out[2], out[3]];
    let init = filled(rw, 0.0, &og_shape, i32t, loc);
    let (s, dl) = (win.strides, win.dilations);
    let at = |o: u32, k: u32, s: i64, dl: i64| add(mul_const(d(o), s), mul_const(d(k), dl));
    let mx = map(
        8,
        vec![
            d(0),
            d(1),
            d(5),
            at(3, 6, s[0], dl[0]),
            at(4, 7, s[1], dl[1]),
        ],
    );
    let mw = map(8, vec![d(1), d(2), d(5), d(6), d(7)]);
    let mo = map(8, vec![d(0), d(1), d(2), d(3), d(4)]);
    let (xu, wu) = (x.unsigned, w.unsigned);
    let (sxs, sws) = (zx.store, zw.store);
    let y = generic_src(
        rw,
        &[(xg, mx), (wg, mw)],
        vec![zx.src, zw.src],
        init,
        mo,
        &[P, P, P, P, P, R, R, R],
        loc,
        |rw, a, p, acc| {
            let zx = zero_point_i64(rw, p[0], sxs, loc);
            let zw = zero_point_i64(rw, p[1], sws, loc);
            let xa = centered(rw, a[0], xu, zx, loc);
            let wa = centered(rw, a[1], wu, zw, loc);
            let prod = ar(rw, "arith.muli", &[xa, wa], i32t, loc);
            ar(rw, "arith.addi", &[acc, prod], i32t, loc)
        },
    );
    reshape(rw, y, out, loc)
}

/// `ConvInteger`: see the module docs.
pub(crate) fn lower_conv_integer(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (out, elem) = result_type(rw, op)?;
    if signless_width(rw, elem) != Some(32) {
        return Err("expected an i32 result".to_string());
    }
    let (x, w) = (int_input(rw, op, 0)?, int_input(rw, op, 1)?);
    Ok(vec![int_conv(rw, op, &x, &w, (2, 3), &out, loc)?])
}

/// `QLinearConv`: see the module docs.
pub(crate) fn lower_qlinear_conv(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let (out, _) = result_type(rw, op)?;
    let (x, w) = (int_input(rw, op, 0)?, int_input(rw, op, 3)?);
    let m = w.shape.first().copied().unwrap_or(0);
    // Requantization loops (n, m, oh, ow): the weight scale per output channel (loop 1).
    let mult = qlinear_mult(rw, op, (1, 4, 6), (1, 1), (m, 1), 4)?;
    let (zy, range, ty) = qlinear_out(rw, op, 7, 4)?;
    let bias = match optional_operand(rw, op, 8) {
        Some(b) => {
            let (sb, be) = static_type(rw, b)?;
            if sb != [m] || signless_width(rw, be) != Some(32) {
                return Err(format!("the bias must be a tensor<{m}xi32>"));
            }
            Some((b, map(4, vec![d(1)])))
        }
        None => None,
    };
    let acc = int_conv(rw, op, &x, &w, (2, 5), &out, loc)?;
    Ok(vec![qlinear_requantize(
        rw, acc, bias, mult, zy, ty, range, loc,
    )?])
}
