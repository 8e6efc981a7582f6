//! Lowerings of `GatherElements`, `Shape`, `ConstantOfShape`, `Range`, `Einsum` and `TopK`.
//!
//! | graph ops | structured form |
//! |---|---|
//! | `GatherElements` | a parallel `linalg.generic` over the indices reading the data with `tensor.extract`, the index on `axis` and the loop indices elsewhere; indices wrapped and clamped as for `Gather` |
//! | `Shape` (with `start`/`end`) | an `arith.constant` of the input's static shape |
//! | `ConstantOfShape` | a `linalg.fill` of the `value` attribute (f32 0 by default) |
//! | `Range` | constant `start`, `limit` and `delta` (a run-time one is refused: the length would be only the result type's promise): a parallel `linalg.generic` computing `start + i * delta` (f32 in f64, rounded once, like the interpreter) |
//! | `Einsum` | one `linalg.generic`: a parallel loop per output label, a reduction loop per summed label, the operands' maps naming their labels (a repeated label reads a diagonal; a broadcast size-1 dimension reads index 0) |
//! | `TopK` | a generic ranking each element along `axis` against all others (a reduction counting the elements that come before it), then a generic picking, for each rank below `K`, the element of that rank and its index |
//!
//! `GatherElements` follows `Gather`: a constant index outside `[-n, n)` is refused at compile
//! time with the index and the axis size; an index computed at run time is wrapped once and
//! then clamped into `[0, n)`, so no read leaves the data (ONNX leaves such indices
//! undefined).
//!
//! `TopK`'s `K` must be a constant (a run-time `K` could break the static result type and
//! give silently wrong results). Its order is total: larger values first for `largest = 1` (smaller first for
//! `largest = 0`), equal values by lower index first, as ONNX says; a NaN counts as larger than
//! every number and equal to another NaN. Results are always sorted (`sorted = 0` leaves the
//! order unspecified). Ranking costs `n * n` comparisons per slice of `n` elements.

use nart_dialect_arith::attrs::{cmpf as cmpf_pred, cmpi as cmpi_pred};
use nart_dialect_linalg::structured::{d, identity, map};
use nart_dialect_linalg::IteratorType::{Parallel as P, Reduction as R};
use nart_ir::{
    AffineExpr, AttrData, DenseData, Location, Op, OperationState, PatternRewriter, Value,
};

use crate::emit::*;
use crate::graph_to_linalg::{int_attr, norm_axis, operand, result_type, string_attr};

/// An integer index `i` of type `ielem` into an axis of size `dim`: a negative index wrapped
/// once, then clamped into `[0, dim)`, as an `index`.
fn clamp_index(rw: &mut PatternRewriter<'_>, i: Value, dim: i64, loc: Location) -> Value {
    let ielem = rw.value_type(i);
    let zero = scalar(rw, 0.0, ielem, loc);
    let n = scalar(rw, dim as f64, ielem, loc);
    let top = scalar(rw, (dim - 1) as f64, ielem, loc);
    let neg = cmpi(rw, cmpi_pred::SLT, i, zero, loc);
    let wrapped = ar(rw, "arith.addi", &[i, n], ielem, loc);
    let j = ar(rw, "arith.select", &[neg, wrapped, i], ielem, loc);
    let j = ar(rw, "arith.maxsi", &[j, zero], ielem, loc);
    let j = ar(rw, "arith.minsi", &[j, top], ielem, loc);
    let index = rw.uniq().index_type();
    ar(rw, "arith.index_cast", &[j], index, loc)
}

/// `tensor.extract t[coords]`.
fn extract(
    rw: &mut PatternRewriter<'_>,
    t: Value,
    coords: &[Value],
    loc: Location,
) -> Result<Value, String> {
    let (_, elem) = static_type(rw, t)?;
    let mut operands = vec![t];
    operands.extend_from_slice(coords);
    let st = OperationState::new(rw.uniq(), "tensor.extract", loc)
        .operands(&operands)
        .results(&[elem]);
    let e = rw.create(st);
    Ok(rw.result(e, 0))
}

/// `GatherElements(data, indices)` along `axis`: `out[i] = data[i with i[axis] = indices[i]]`.
pub(crate) fn lower_gather_elements(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    loc: Location,
) -> Lowered {
    let data = operand(rw, op, 0)?;
    let idx = operand(rw, op, 1)?;
    let (sd, elem) = static_type(rw, data)?;
    let (si, ielem) = static_type(rw, idx)?;
    let (out, _) = result_type(rw, op)?;
    if sd.is_empty() {
        return Err("GatherElements from a scalar is not defined".to_string());
    }
    if si.len() != sd.len() {
        return Err(format!(
            "the indices have rank {} and the data rank {}",
            si.len(),
            sd.len()
        ));
    }
    if out != si {
        return Err(format!(
            "the result shape {out:?} is not the indices' shape {si:?}"
        ));
    }
    let axis = norm_axis(int_attr(rw, op, "axis", 0), sd.len())?;
    if let Some(k) = (0..sd.len()).find(|&k| k != axis && si[k] > sd[k]) {
        return Err(format!(
            "the indices' dimension {k} ({}) is larger than the data's ({})",
            si[k], sd[k]
        ));
    }
    let dim = sd[axis];
    if signless_width(rw, ielem).is_none_or(|w| w < 2) {
        return Err("expected integer indices".to_string());
    }
    if dim == 0 && si.iter().product::<i64>() > 0 {
        return Err("GatherElements along an empty axis".to_string());
    }
    if let Some(vals) = constant_ints(rw, idx) {
        if let Some(bad) = vals.iter().find(|&&v| v < -dim || v >= dim) {
            return Err(format!(
                "index {bad} is out of range for axis {axis} of size {dim}"
            ));
        }
    }
    let r = out.len() as u32;
    let init = empty(rw, &out, elem, loc);
    let y = try_generic(
        rw,
        &[idx],
        &[init],
        vec![identity(r), identity(r)],
        &vec![P; out.len()],
        loc,
        |rw, v| {
            let j = clamp_index(rw, v[0], dim, loc);
            let coords: Vec<Value> = (0..sd.len())
                .map(|k| {
                    if k == axis {
                        j
                    } else {
                        linalg_index(rw, k, loc)
                    }
                })
                .collect();
            Ok(vec![extract(rw, data, &coords, loc)?])
        },
    )?;
    Ok(vec![y[0]])
}

/// `arith.constant dense<vals> : tensor<N x i64>`.
fn const_i64_tensor(rw: &mut PatternRewriter<'_>, vals: &[i64], loc: Location) -> Value {
    let i64t = rw.uniq().int_type(64);
    let ty = rw.uniq().tensor_type(vec![vals.len() as i64], i64t);
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let a = rw.uniq().intern_attr(AttrData::DenseElements {
        ty,
        data: DenseData::Elements(bytes),
    });
    constant_of(rw, a, ty, loc)
}

/// `Shape(x)` of a static `x`, between `start` and `end`: a constant.
pub(crate) fn lower_shape(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (sx, _) = static_type(rw, x)?;
    let (out, oelem) = result_type(rw, op)?;
    if signless_width(rw, oelem) != Some(64) {
        return Err("expected an i64 result".to_string());
    }
    let r = sx.len() as i64;
    let bound = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
    let start = bound(int_attr(rw, op, "start", 0));
    let end = bound(int_attr(rw, op, "end", r));
    let dims: &[i64] = if start < end { &sx[start..end] } else { &[] };
    if out != [dims.len() as i64] {
        return Err(format!("the result shape {out:?} is not [{}]", dims.len()));
    }
    let dims = dims.to_vec();
    Ok(vec![const_i64_tensor(rw, &dims, loc)])
}

/// `ConstantOfShape(shape)` with a static result type: the `value` attribute's one element
/// filling it (f32 0 by default).
pub(crate) fn lower_constant_of_shape(
    rw: &mut PatternRewriter<'_>,
    op: Op,
    loc: Location,
) -> Lowered {
    let r = rw.result(op, 0);
    let (out, elem) = static_type(rw, r).map_err(|e| {
        format!("{e}: the shape operand must be a constant (or the dimensions fixed with --dim)")
    })?;
    let v = match rw.attr(op, "value") {
        None => 0.0,
        Some(a) => {
            let ty = rw
                .typed_attr_type(a)
                .ok_or("expected a tensor 'value' attribute")?;
            if rw.element_type(ty) != elem {
                return Err("the value's element type differs from the result's".to_string());
            }
            let v = if is_float(rw, elem) {
                dense_f32(rw, a)
                    .ok_or("only f32 float values are lowered")?
                    .iter()
                    .map(|&f| f64::from(f))
                    .collect::<Vec<_>>()
            } else if signless_width(rw, elem).is_some() {
                nart_dialect_graph::infer::dense_ints(rw, a)
                    .ok_or("expected an integer value")?
                    .iter()
                    .map(|&i| i as f64)
                    .collect()
            } else {
                return Err("expected a float or signless integer value".to_string());
            };
            if v.len() != 1 {
                return Err(format!("expected a value of one element, got {}", v.len()));
            }
            v[0]
        }
    };
    if !is_float(rw, elem) && signless_width(rw, elem).is_none() {
        return Err("expected a float or signless integer result".to_string());
    }
    if is_float(rw, elem) && float_width(rw, elem) != Some(32) {
        return Err("only f32 float results are lowered".to_string());
    }
    // Integers up to 64 bits pass through f64 exactly only up to 2^53.
    if !is_float(rw, elem) && v.abs() > 9.007_199_254_740_992e15 {
        return Err(format!("the value {v} is too large to lower exactly"));
    }
    Ok(vec![filled(rw, v, &out, elem, loc)])
}

/// `Range(start, limit, delta)` with a static result length: `start + i * delta`, computed
/// from the run-time scalars.
pub(crate) fn lower_range(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let r = rw.result(op, 0);
    let (out, elem) = static_type(rw, r).map_err(|e| {
        format!("{e}: the length is known only when start, limit and delta are constants")
    })?;
    let float = is_float(rw, elem);
    if float && !matches!(float_width(rw, elem), Some(32 | 64)) {
        return Err("only f32, f64, i32 and i64 ranges are lowered".to_string());
    }
    if !float && !matches!(signless_width(rw, elem), Some(32 | 64)) {
        return Err("only f32, f64, i32 and i64 ranges are lowered".to_string());
    }
    let (start, limit, delta) = (
        operand(rw, op, 0)?,
        operand(rw, op, 1)?,
        operand(rw, op, 2)?,
    );
    for v in [start, limit, delta] {
        let (s, e) = static_type(rw, v)?;
        if s.iter().product::<i64>() != 1 || s.len() > 1 {
            return Err("start, limit and delta must be scalars".to_string());
        }
        if e != elem {
            return Err("start, limit and delta differ from the result's type".to_string());
        }
    }
    // The length must be known: with a run-time operand the static result type is only the
    // model's promise, and values that break it would give a silently wrong range.
    let (Some(a), Some(b), Some(c)) = (
        constant_scalar(rw, start),
        constant_scalar(rw, limit),
        constant_scalar(rw, delta),
    ) else {
        return Err(
            "start, limit or delta is computed at run time, so the length is not known".to_string(),
        );
    };
    {
        if c == 0.0 {
            return Err("delta is 0".to_string());
        }
        let n = ((b - a) / c).ceil().max(0.0) as i64;
        if out[0] != n {
            return Err(format!(
                "the result length {} is not the range's {n}",
                out[0]
            ));
        }
    }
    let n = out.len() as u32;
    let mut maps = Vec::new();
    for v in [start, delta] {
        let (s, _) = static_type(rw, v)?;
        maps.push(map(n, s.iter().map(|_| AffineExpr::Const(0)).collect()));
    }
    maps.push(identity(n));
    let init = empty(rw, &out, elem, loc);
    let y = try_generic(rw, &[start, delta], &[init], maps, &[P], loc, |rw, a| {
        let i = linalg_index(rw, 0, loc);
        let i64t = rw.uniq().int_type(64);
        let i = ar(rw, "arith.index_cast", &[i], i64t, loc);
        if float {
            // In f64 and rounded once, as the interpreter does.
            let f64t = rw.uniq().float_type(nart_ir::FloatKind::F64);
            let wide = elem == f64t;
            let (s, dl) = if wide {
                (a[0], a[1])
            } else {
                (
                    ar(rw, "arith.extf", &[a[0]], f64t, loc),
                    ar(rw, "arith.extf", &[a[1]], f64t, loc),
                )
            };
            let fi = ar(rw, "arith.sitofp", &[i], f64t, loc);
            let p = ar(rw, "arith.mulf", &[fi, dl], f64t, loc);
            let v = ar(rw, "arith.addf", &[s, p], f64t, loc);
            Ok(vec![if wide {
                v
            } else {
                ar(rw, "arith.truncf", &[v], elem, loc)
            }])
        } else {
            let i = if signless_width(rw, elem) == Some(64) {
                i
            } else {
                ar(rw, "arith.trunci", &[i], elem, loc)
            };
            let p = ar(rw, "arith.muli", &[i, a[1]], elem, loc);
            Ok(vec![ar(rw, "arith.addi", &[a[0], p], elem, loc)])
        }
    })?;
    Ok(vec![y[0]])
}

/// The labels of one einsum term, `...` expanded into `ell` synthetic labels right-aligned in
/// `max_ell` (synthetic label `k` is `'\u{E000}' + k`, so they sort before nothing ASCII).
fn term_labels(term: &str, ell: usize, max_ell: usize) -> Result<Vec<char>, String> {
    let mut out = Vec::new();
    let mut rest = term;
    while let Some(c) = rest.chars().next() {
        if let Some(r) = rest.strip_prefix("...") {
            for k in max_ell - ell..max_ell {
                out.push(char::from_u32(0xE000 + k as u32).ok_or("too many dimensions")?);
            }
            rest = r;
        } else if c.is_ascii_alphabetic() {
            out.push(c);
            rest = &rest[1..];
        } else {
            return Err(format!("unexpected character {c:?} in the equation"));
        }
    }
    Ok(out)
}

/// A parsed einsum: each operand's labels, the output labels, the summed labels, and each
/// label's size.
struct Equation {
    inputs: Vec<Vec<char>>,
    output: Vec<char>,
    summed: Vec<char>,
    sizes: Vec<(char, i64)>,
}

impl Equation {
    fn size(&self, l: char) -> i64 {
        self.sizes.iter().find(|s| s.0 == l).map_or(1, |s| s.1)
    }
}

/// Parses `equation` for operands of `shapes`: explicit or implicit output, `...`, size-1
/// broadcasting.
fn parse_equation(equation: &str, shapes: &[Vec<i64>]) -> Result<Equation, String> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != shapes.len() {
        return Err(format!(
            "the equation has {} terms for {} operands",
            terms.len(),
            shapes.len()
        ));
    }
    let mut ells = Vec::new();
    for (t, s) in terms.iter().zip(shapes) {
        let letters = t.chars().filter(|c| c.is_ascii_alphabetic()).count();
        let has_ell = t.contains("...");
        if (!has_ell && letters != s.len()) || letters > s.len() {
            return Err(format!("term {t:?} does not match rank {}", s.len()));
        }
        ells.push(if has_ell { s.len() - letters } else { 0 });
    }
    let max_ell = ells.iter().copied().max().unwrap_or(0);
    let inputs: Vec<Vec<char>> = terms
        .iter()
        .zip(&ells)
        .map(|(t, &e)| term_labels(t, e, max_ell))
        .collect::<Result<_, _>>()?;
    let mut sizes: Vec<(char, i64)> = Vec::new();
    for (ls, s) in inputs.iter().zip(shapes) {
        for (&l, &n) in ls.iter().zip(s) {
            match sizes.iter_mut().find(|x| x.0 == l) {
                Some(x) => {
                    if x.1 != n && x.1 != 1 && n != 1 {
                        return Err(format!("label {l:?} has sizes {} and {n}", x.1));
                    }
                    if n != 1 {
                        x.1 = n;
                    }
                }
                None => sizes.push((l, n)),
            }
        }
    }
    let output: Vec<char> = match rhs {
        Some(r) => {
            let v = term_labels(r, max_ell, max_ell)?;
            if let Some(l) = v.iter().find(|l| !sizes.iter().any(|s| s.0 == **l)) {
                return Err(format!("output label {l:?} is not in the inputs"));
            }
            if let Some((k, l)) = v.iter().enumerate().find(|(k, l)| v[..*k].contains(l)) {
                return Err(format!("output label {l:?} repeats at position {k}"));
            }
            v
        }
        None => {
            let mut v: Vec<char> = sizes
                .iter()
                .map(|s| s.0)
                .filter(|&c| c as u32 >= 0xE000)
                .collect();
            v.sort_unstable();
            let mut once: Vec<char> = sizes
                .iter()
                .map(|s| s.0)
                .filter(|&c| {
                    (c as u32) < 0xE000 && inputs.iter().flatten().filter(|&&x| x == c).count() == 1
                })
                .collect();
            once.sort_unstable();
            v.extend(once);
            v
        }
    };
    let summed = sizes
        .iter()
        .map(|s| s.0)
        .filter(|l| !output.contains(l))
        .collect();
    Ok(Equation {
        inputs,
        output,
        summed,
        sizes,
    })
}

/// `Einsum(inputs...)`: one `linalg.generic`, loops over the output labels (parallel) then the
/// summed labels (reduction).
pub(crate) fn lower_einsum(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let equation = string_attr(rw, op, "equation")
        .ok_or("expected an 'equation' attribute")?
        .to_string();
    let inputs = rw.operands(op).to_vec();
    if inputs.is_empty() {
        return Err("Einsum needs at least one operand".to_string());
    }
    let (out, elem) = result_type(rw, op)?;
    let float = is_float(rw, elem);
    if float && !matches!(float_width(rw, elem), Some(32 | 64)) {
        return Err("only f32 and f64 float operands are lowered".to_string());
    }
    if !float && signless_width(rw, elem).is_none_or(|w| w < 2) {
        return Err("expected float or integer operands".to_string());
    }
    let mut shapes = Vec::new();
    for &v in &inputs {
        let (s, e) = static_type(rw, v)?;
        if e != elem {
            return Err("the operands' element types differ from the result's".to_string());
        }
        shapes.push(s);
    }
    let eq = parse_equation(&equation, &shapes)?;
    let want: Vec<i64> = eq.output.iter().map(|&l| eq.size(l)).collect();
    if want != out {
        return Err(format!(
            "the result shape {out:?} is not the equation's {want:?}"
        ));
    }
    let loops: Vec<char> = eq.output.iter().chain(&eq.summed).copied().collect();
    let n = loops.len() as u32;
    let pos = |l: char| loops.iter().position(|&x| x == l).unwrap_or(0) as u32;
    let mut maps = Vec::new();
    for (ls, s) in eq.inputs.iter().zip(&shapes) {
        let exprs = ls
            .iter()
            .zip(s)
            .map(|(&l, &size)| {
                if size == 1 && eq.size(l) != 1 {
                    AffineExpr::Const(0)
                } else {
                    d(pos(l))
                }
            })
            .collect();
        maps.push(map(n, exprs));
    }
    maps.push(map(n, (0..eq.output.len() as u32).map(d).collect()));
    let mut iters = vec![P; eq.output.len()];
    iters.extend(vec![R; eq.summed.len()]);
    let init = filled(rw, 0.0, &out, elem, loc);
    let k = inputs.len();
    let (mul, add) = if float {
        ("arith.mulf", "arith.addf")
    } else {
        ("arith.muli", "arith.addi")
    };
    let y = try_generic(rw, &inputs, &[init], maps, &iters, loc, |rw, a| {
        let mut p = a[0];
        for &x in &a[1..k] {
            p = ar(rw, mul, &[p, x], elem, loc);
        }
        Ok(vec![ar(rw, add, &[a[k], p], elem, loc)])
    })?;
    Ok(vec![y[0]])
}

/// `a` before `b` in `TopK`'s order of values (ties not included): larger first when
/// `largest`, with a NaN larger than every number.
fn before(
    rw: &mut PatternRewriter<'_>,
    a: Value,
    b: Value,
    largest: bool,
    (float, unsigned): (bool, bool),
    loc: Location,
) -> Value {
    let (hi, lo) = if largest { (a, b) } else { (b, a) };
    if !float {
        let p = if unsigned {
            cmpi_pred::UGT
        } else {
            cmpi_pred::SGT
        };
        return cmpi(rw, p, hi, lo, loc);
    }
    let i1 = rw.uniq().int_type(1);
    let gt = cmpf(rw, cmpf_pred::OGT, hi, lo, loc);
    let hi_nan = cmpf(rw, cmpf_pred::UNO, hi, hi, loc);
    let lo_num = cmpf(rw, cmpf_pred::ORD, lo, lo, loc);
    let nan_over_num = ar(rw, "arith.andi", &[hi_nan, lo_num], i1, loc);
    ar(rw, "arith.ori", &[gt, nan_over_num], i1, loc)
}

/// `a` and `b` tie in `TopK`'s order: equal, or both NaN.
fn tie(rw: &mut PatternRewriter<'_>, a: Value, b: Value, float: bool, loc: Location) -> Value {
    if !float {
        return cmpi(rw, cmpi_pred::EQ, a, b, loc);
    }
    let i1 = rw.uniq().int_type(1);
    let eq = cmpf(rw, cmpf_pred::OEQ, a, b, loc);
    let a_nan = cmpf(rw, cmpf_pred::UNO, a, a, loc);
    let b_nan = cmpf(rw, cmpf_pred::UNO, b, b, loc);
    let nans = ar(rw, "arith.andi", &[a_nan, b_nan], i1, loc);
    ar(rw, "arith.ori", &[eq, nans], i1, loc)
}

/// `TopK(x, K)` along `axis`: values and `i64` indices, sorted.
pub(crate) fn lower_top_k(rw: &mut PatternRewriter<'_>, op: Op, loc: Location) -> Lowered {
    let x = operand(rw, op, 0)?;
    let (sx, elem) = static_type(rw, x)?;
    let float = is_float(rw, elem);
    if float && float_width(rw, elem) != Some(32) {
        return Err("only f32, i32 and i64 inputs are lowered".to_string());
    }
    if !float && !matches!(signless_width(rw, elem), Some(8 | 16 | 32 | 64)) {
        return Err("only f32, i32 and i64 inputs are lowered".to_string());
    }
    if sx.is_empty() {
        return Err("TopK of a scalar is not defined".to_string());
    }
    let axis = norm_axis(int_attr(rw, op, "axis", -1), sx.len())?;
    let kv = operand(rw, op, 1)?;
    // K must be a constant: with a K computed at run time the static result type is only the
    // model's promise, and a K that breaks it would give silently wrong results.
    let r0 = rw.result(op, 0);
    let k = match constant_ints(rw, kv) {
        Some(v) if v.len() == 1 => v[0],
        Some(_) => return Err("K must have one element".to_string()),
        None => return Err("K is computed at run time".to_string()),
    };
    let n = sx[axis];
    if k < 0 || k > n {
        return Err(format!(
            "K = {k} is out of range for axis {axis} of size {n}"
        ));
    }
    let largest = int_attr(rw, op, "largest", 1) != 0;
    let unsigned = crate::intq_ops::operand_unsigned(rw, op, 0);
    let mut out = sx.clone();
    out[axis] = k;
    let r1 = rw.result(op, 1);
    let (s0, e0) = static_type(rw, r0)?;
    let (s1, e1) = static_type(rw, r1)?;
    if s0 != out || s1 != out || e0 != elem || signless_width(rw, e1) != Some(64) {
        return Err(format!(
            "the results are not the values and i64 indices of shape {out:?}"
        ));
    }
    let i64t = e1;
    let rank = sx.len();
    let m = rank as u32 + 1;
    // Loops (x's dimensions..., j): the rank of x[i] counts the x[.., j, ..] before it.
    let mine = map(m, (0..rank as u32).map(d).collect());
    let other = map(
        m,
        (0..rank as u32)
            .map(|q| {
                if q as usize == axis {
                    d(rank as u32)
                } else {
                    d(q)
                }
            })
            .collect(),
    );
    let zero = rw.uniq().int_attr(i64t, 0);
    let ranks0 = filled_with(rw, zero, &sx, i64t, loc);
    let mut iters = vec![P; rank];
    iters.push(R);
    let ranks = try_generic(
        rw,
        &[x, x],
        &[ranks0],
        vec![mine.clone(), other.clone(), mine.clone()],
        &iters,
        loc,
        |rw, a| {
            let i = linalg_index(rw, axis, loc);
            let j = linalg_index(rw, rank, loc);
            let b = before(rw, a[1], a[0], largest, (float, unsigned), loc);
            let t = tie(rw, a[1], a[0], float, loc);
            let lower = cmpi(rw, cmpi_pred::ULT, j, i, loc);
            let i1 = rw.uniq().int_type(1);
            let tb = ar(rw, "arith.andi", &[t, lower], i1, loc);
            let counts = ar(rw, "arith.ori", &[b, tb], i1, loc);
            let one = ar(rw, "arith.extui", &[counts], i64t, loc);
            Ok(vec![ar(rw, "arith.addi", &[a[2], one], i64t, loc)])
        },
    )?[0];
    // Loops (the result's dimensions..., j): the element of rank out[axis] and its index.
    let v0 = filled(rw, 0.0, &out, elem, loc);
    let i0 = filled_with(rw, zero, &out, i64t, loc);
    let ys = try_generic(
        rw,
        &[ranks, x],
        &[v0, i0],
        vec![other.clone(), other, mine.clone(), mine],
        &iters,
        loc,
        |rw, a| {
            let want = linalg_index(rw, axis, loc);
            let want = ar(rw, "arith.index_cast", &[want], i64t, loc);
            let j = linalg_index(rw, rank, loc);
            let j = ar(rw, "arith.index_cast", &[j], i64t, loc);
            let hit = cmpi(rw, cmpi_pred::EQ, a[0], want, loc);
            let v = ar(rw, "arith.select", &[hit, a[1], a[2]], elem, loc);
            let at = ar(rw, "arith.select", &[hit, j, a[3]], i64t, loc);
            Ok(vec![v, at])
        },
    )?;
    Ok(ys)
}
