//! Graph ops on `f16` and `bf16` tensors, and casts between floats and integers, for
//! `convert-graph-to-linalg`.
//!
//! # 16-bit floats compute in `f32`
//!
//! The reference interpreter computes an op on `f16` or `bf16` tensors in `f64` and rounds
//! each element of its result once to the 16-bit type (`nart_tensor`'s kernels convert the
//! operands with `to_f64_vec` and the result with `from_f64`). The lowering does the same in
//! `f32`: every graph op with a 16-bit float operand or result (but `Cast`, which converts
//! itself, and the ops whose attributes name the element type) is lowered as
//!
//! 1. each 16-bit float operand extended to `f32` (`arith.extf` in a parallel `linalg.generic`;
//!    a small constant becomes an `f32` constant instead, so that lowerings that read constant
//!    operands still see one),
//! 2. the op itself with `f32` in place of the 16-bit type, through the op's own `f32`
//!    lowering,
//! 3. each 16-bit float result rounded back (`arith.truncf`, to nearest even).
//!
//! One rounding per op, as in the interpreter. Where the op is one correctly rounded IEEE
//! operation on its operands (`Add`, `Sub`, `Mul`, `Div`, `Sqrt`, `Reciprocal`) the result is
//! the same as the interpreter's bit for bit: `f32` carries more than twice the 16-bit types'
//! precision plus two bits (24 >= 2 * 11 + 2), so rounding the `f32` result again gives the
//! correctly rounded 16-bit result, which is also what rounding the `f64` result gives. Ops
//! that only move, select or compare values (`Max`, `Min`, `Relu`, `Abs`, `Neg`, reshapes,
//! `Gather`, `Where`, comparisons, `Mod`'s `fmod`, `Floor`, `Ceil`) are exact in any precision.
//! The ops that only move or select elements (reshapes, `Transpose`, `Concat`, `Slice`,
//! `Gather`, `Expand`, `Where`, ...) take 16-bit tensors as they are.
//! Everything else (transcendental functions, sums, products, reductions, softmax,
//! normalizations) differs from the `f64` computation by the `f32` rounding errors before the
//! final rounding, so at most one unit in the last place of the 16-bit type where those errors
//! are far below it. Accumulating in `f32` (not in the 16-bit type) is what keeps a 16-bit
//! matmul, convolution or reduction within that bound of the interpreter, whose sums run in
//! `f64`.
//!
//! `f64` ops need nothing here: the lowerings are written over any float type and compute in
//! `f64` as the interpreter does.
//!
//! # Float to integer casts
//!
//! `Cast` from a float to an integer follows the interpreter (`nart_tensor`'s `Tensor::cast`):
//! truncation toward zero into a 128-bit integer (saturating there, NaN becoming 0), then
//! wrapping to the target width. LLVM's `fptosi` gives poison outside the target's range, so
//! the lowering computes the wrap itself (see [`float_to_int`]).

use nart_ir::{AttrData, DenseData, FloatKind, Location, Op, OperationState, PatternRewriter};
use nart_ir::{Type, TypeData, Value};

use crate::emit::*;

/// The graph ops that do not compute in `f32` when they meet a 16-bit float: `Cast` converts
/// between the types itself, the attributes of the next ones name the result's element type,
/// and the quantization ops keep their own refusal.
const NOT_WIDENED: &[&str] = &[
    "graph.constant",
    "graph.none",
    "graph.Cast",
    "graph.CastLike",
    "graph.ConstantOfShape",
    "graph.EyeLike",
    // The ONNX quantization ops are bit-exact with the interpreter's kernels for f32 scales
    // and values; computing a 16-bit one's in f32 would not be the interpreter's arithmetic.
    "graph.QuantizeLinear",
    "graph.DequantizeLinear",
    "graph.DynamicQuantizeLinear",
    "graph.MatMulInteger",
    "graph.ConvInteger",
    "graph.QLinearMatMul",
    "graph.QLinearConv",
];

/// Graph ops that only move or select elements, whose lowerings are written for any element
/// type: a 16-bit tensor goes through them as it is (no round trip through `f32`, which
/// would be exact but cost two passes over the data).
const MOVES: &[&str] = &[
    "graph.Reshape",
    "graph.Flatten",
    "graph.Squeeze",
    "graph.Unsqueeze",
    "graph.Transpose",
    "graph.Concat",
    "graph.Slice",
    "graph.Split",
    "graph.Gather",
    "graph.GatherElements",
    "graph.Expand",
    "graph.Identity",
    "graph.Where",
    "graph.Shape",
];

/// Constants of at most this many elements are extended at compile time (an `f32` constant);
/// larger ones (weights) stay 16-bit in the code and are extended when it runs.
const CONSTANT_LIMIT: i64 = 4096;

/// Whether `ty` is `f16` or `bf16`.
pub fn is_narrow_float(ctx: &nart_ir::Context, ty: Type) -> bool {
    matches!(
        ctx.type_data(ty),
        TypeData::Float(FloatKind::F16 | FloatKind::BF16)
    )
}

/// `ty` with an element type of `f16` or `bf16` replaced by `f32` (tensors and scalars), or
/// `None` when it has none.
fn widened(rw: &mut PatternRewriter<'_>, ty: Type) -> Option<Type> {
    match rw.type_data(ty).clone() {
        TypeData::RankedTensor { shape, elem, .. } if is_narrow_float(rw, elem) => {
            let f32t = rw.uniq().f32_type();
            Some(rw.uniq().tensor_type(shape, f32t))
        }
        TypeData::Float(FloatKind::F16 | FloatKind::BF16) => Some(rw.uniq().f32_type()),
        _ => None,
    }
}

/// Whether `op` is a graph op that computes in `f32` because an operand or result holds
/// `f16` or `bf16` elements.
pub fn computes_in_f32(ctx: &nart_ir::Context, op: Op) -> bool {
    let name = ctx.op_name_str(op);
    if !name.starts_with("graph.")
        || NOT_WIDENED.contains(&name)
        || MOVES.contains(&name)
        || !ctx.regions(op).is_empty()
    {
        return false;
    }
    ctx.operands(op)
        .iter()
        .chain(ctx.results(op))
        .any(|&v| is_narrow_float(ctx, ctx.element_type(ctx.value_type(v))))
}

/// The elements of a dense `f16` or `bf16` attribute, exactly, when it has at most `limit`.
fn narrow_constant(ctx: &nart_ir::Context, v: Value, limit: i64) -> Option<Vec<f32>> {
    let op = ctx.defining_op(v)?;
    if !matches!(ctx.op_name_str(op), "graph.constant" | "arith.constant") {
        return None;
    }
    let AttrData::DenseElements { ty, data } = ctx.attr_data(ctx.attr(op, "value")?) else {
        return None;
    };
    let n: i64 = ctx.shape_of(*ty)?.iter().product();
    if n > limit {
        return None;
    }
    let decode: fn(u16) -> f32 = match ctx.type_data(ctx.element_type(*ty)) {
        TypeData::Float(FloatKind::F16) => |h| nart_ir::util::f16_bits_to_f64(h) as f32,
        // bf16 is the upper half of an f32.
        TypeData::Float(FloatKind::BF16) => |h| f32::from_bits(u32::from(h) << 16),
        _ => return None,
    };
    let bytes = match data {
        DenseData::Splat(b) => b.repeat(usize::try_from(n).ok()?),
        DenseData::Elements(b) => b.clone(),
        DenseData::Strings { .. } => return None,
    };
    if bytes.len() as i64 != 2 * n {
        return None;
    }
    Some(
        bytes
            .chunks_exact(2)
            .map(|c| decode(u16::from_le_bytes([c[0], c[1]])))
            .collect(),
    )
}

/// `v` (a tensor of `f16` or `bf16`) as `f32`: an `f32` constant for a small constant, an
/// `arith.extf` generic otherwise.
fn extend(rw: &mut PatternRewriter<'_>, v: Value, loc: Location) -> Result<Value, String> {
    let (shape, _) = static_type(rw, v)?;
    if let Some(vals) = narrow_constant(rw, v, CONSTANT_LIMIT) {
        return Ok(const_f32_tensor(rw, &shape, &vals, loc));
    }
    let f32t = rw.uniq().f32_type();
    elementwise(rw, &[v], &shape, f32t, loc, |rw, a| {
        Ok(ar(rw, "arith.extf", &[a[0]], f32t, loc))
    })
}

/// `v` (a tensor of `f32`) rounded to `elem` (`f16` or `bf16`) by an `arith.truncf` generic.
fn round(
    rw: &mut PatternRewriter<'_>,
    v: Value,
    elem: Type,
    loc: Location,
) -> Result<Value, String> {
    let (shape, _) = static_type(rw, v)?;
    elementwise(rw, &[v], &shape, elem, loc, |rw, a| {
        Ok(ar(rw, "arith.truncf", &[a[0]], elem, loc))
    })
}

/// Lowers `op` (for which [`computes_in_f32`] holds) through `lower`, its lowering for `f32`:
/// the 16-bit operands extended, the op restated in `f32` and lowered, its 16-bit results
/// rounded back (see the module documentation).
pub fn lower_in_f32(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    loc: Location,
    lower: impl FnOnce(&mut PatternRewriter<'_>, Op, Location) -> Lowered,
) -> Lowered {
    let mut operands = Vec::new();
    for v in rw.operands(op).to_vec() {
        let ty = rw.value_type(v);
        operands.push(match widened(rw, ty) {
            Some(_) if matches!(rw.type_data(ty), TypeData::RankedTensor { .. }) => {
                extend(rw, v, loc)?
            }
            Some(t) => ar(rw, "arith.extf", &[v], t, loc),
            None => v,
        });
    }
    let results: Vec<Type> = rw.results(op).iter().map(|&r| rw.value_type(r)).collect();
    let mut result_types = Vec::new();
    for &t in &results {
        result_types.push(widened(rw, t).unwrap_or(t));
    }
    let name = rw.op_name_str(op).to_string();
    let mut st = OperationState::new(rw.uniq(), &name, loc)
        .operands(&operands)
        .results(&result_types);
    let props: Vec<(String, nart_ir::Attr)> = rw
        .props(op)
        .iter()
        .map(|p| (rw.str(p.name).to_string(), p.value))
        .collect();
    for (n, a) in props {
        st = st.prop(rw.uniq(), &n, a);
    }
    let attrs: Vec<(String, nart_ir::Attr)> = rw
        .attrs(op)
        .iter()
        .map(|p| (rw.str(p.name).to_string(), p.value))
        .collect();
    for (n, a) in attrs {
        st = st.attr(rw.uniq(), &n, a);
    }
    let wide = rw.create(st);
    // The `f32` op's results stand for the original's while it is lowered, so that a lowering
    // that asks whether an optional result is used gets the original's answer.
    let (orig, new) = (rw.results(op).to_vec(), rw.results(wide).to_vec());
    for (&o, &n) in orig.iter().zip(&new) {
        rw.replace_all_uses_with(o, n);
    }
    let values = lower(rw, wide, loc)?;
    if values.len() != results.len() {
        return Err("the f32 lowering gave another number of results".to_string());
    }
    let mut out = Vec::new();
    for (&v, &t) in values.iter().zip(&results) {
        let elem = rw.element_type(t);
        let narrow = is_narrow_float(rw, elem) && rw.value_type(v) != t;
        out.push(if !narrow {
            v
        } else if matches!(rw.type_data(t), TypeData::RankedTensor { .. }) {
            round(rw, v, elem, loc)?
        } else {
            ar(rw, "arith.truncf", &[v], t, loc)
        });
    }
    rw.replace_op(wide, &out);
    Ok(out)
}

/// `x` (a float scalar) as the signless integer type `to` (wider than `i1`), as the
/// interpreter casts: truncated toward zero into an `i128` (saturating, NaN to 0), then wrapped
/// to `to`'s width.
///
/// In `f64` (exact for every float type the target takes), with `t = trunc(x)`: below `2^63`
/// in magnitude `fptosi` gives `t` as an `i64`; from there on `t`'s unit in the last place is
/// at least `2^11`, so `r = t - 2^64 * floor(t / 2^64)`, a multiple of it below `2^64`, is
/// exact, and `fptoui` takes it to the `i64` word `t mod 2^64`. The `i128` saturation is the
/// all-ones word for `t >= 2^127` (and `+inf`) and zero for `t <= -2^127` (and `-inf`, NaN).
/// `arith.trunci` then wraps to `to`. (The `fptosi` and `fptoui` of the branch not taken give
/// LLVM's poison, which `arith.select` drops.)
pub fn float_to_int(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    to: Type,
    loc: Location,
) -> Result<Value, String> {
    let from = rw.value_type(x);
    let width = signless_width(rw, to).filter(|&w| w > 1 && w <= 64);
    let Some(width) = width else {
        return Err("a float is cast to signless integers of 2 to 64 bits only".to_string());
    };
    let f64t = rw.uniq().float_type(FloatKind::F64);
    let i64t = rw.uniq().int_type(64);
    let x = if from == f64t {
        x
    } else {
        ar(rw, "arith.extf", &[x], f64t, loc)
    };
    let t = math(rw, "math.trunc", x, loc)?;
    let two64 = scalar(rw, 18_446_744_073_709_551_616.0, f64t, loc);
    let q = ar(rw, "arith.divf", &[t, two64], f64t, loc);
    let q = math(rw, "math.floor", q, loc)?;
    let qm = ar(rw, "arith.mulf", &[q, two64], f64t, loc);
    let r = ar(rw, "arith.subf", &[t, qm], f64t, loc);
    let wrapped = ar(rw, "arith.fptoui", &[r], i64t, loc);
    let mag = math(rw, "math.absf", t, loc)?;
    let two63 = scalar(rw, 9_223_372_036_854_775_808.0, f64t, loc);
    let small = cmpf(rw, nart_dialect_arith::attrs::cmpf::OLT, mag, two63, loc);
    let direct = ar(rw, "arith.fptosi", &[t], i64t, loc);
    let low = ar(rw, "arith.select", &[small, direct, wrapped], i64t, loc);
    // Saturated at 2^127 - 1: the low word is all ones; at -2^127, and for NaN: zero.
    let big = scalar(rw, 2f64.powi(127), f64t, loc);
    let ones = scalar(rw, -1.0, i64t, loc);
    let zero = scalar(rw, 0.0, i64t, loc);
    let high = cmpf(rw, nart_dialect_arith::attrs::cmpf::OGE, t, big, loc);
    let nbig = scalar(rw, -(2f64.powi(127)), f64t, loc);
    // Unordered-or-less-or-equal: NaN too.
    let low_or_nan = cmpf(rw, nart_dialect_arith::attrs::cmpf::ULE, t, nbig, loc);
    let v = ar(rw, "arith.select", &[low_or_nan, zero, low], i64t, loc);
    let v = ar(rw, "arith.select", &[high, ones, v], i64t, loc);
    Ok(if width == 64 {
        v
    } else {
        ar(rw, "arith.trunci", &[v], to, loc)
    })
}

/// `x` (a float scalar) as the float type `to`: `arith.extf` to a wider type, `arith.truncf`
/// (to nearest even) to a narrower one, and through `f32` between `f16` and `bf16` (exact
/// from either, then rounded once).
pub fn float_to_float(
    rw: &mut PatternRewriter<'_>,
    x: Value,
    to: Type,
    loc: Location,
) -> Result<Value, String> {
    let from = rw.value_type(x);
    if from == to {
        return Ok(x);
    }
    let (Some(wf), Some(wt)) = (float_width(rw, from), float_width(rw, to)) else {
        return Err(format!(
            "a cast from '{}' to '{}' is not lowered",
            nart_ir::printer::type_to_string(rw, from),
            nart_ir::printer::type_to_string(rw, to)
        ));
    };
    Ok(if wf < wt {
        ar(rw, "arith.extf", &[x], to, loc)
    } else if wf > wt {
        ar(rw, "arith.truncf", &[x], to, loc)
    } else {
        let f32t = rw.uniq().f32_type();
        let w = ar(rw, "arith.extf", &[x], f32t, loc);
        ar(rw, "arith.truncf", &[w], to, loc)
    })
}
