//! Shape manipulation: ops that move data without computing on it, so that their result's
//! shape is the point (`Reshape`, `Flatten`, `Squeeze`, `Unsqueeze`, `Transpose`, `Concat`,
//! `Split`, `Slice`, `Expand`, `Tile`, `Pad`, `DepthToSpace`, `SpaceToDepth`), and `Shape` and
//! `Size`, which return it.

use nart_ir::DYNAMIC;

use super::{
    broadcast, dadd, div_ceil, dmul, i64_elem, norm_axis, norm_axis_incl, one, prod, reduce_shape,
    t, In, Rules, R,
};

/// Which ops each rule of this file covers. `scripts/gen_graph_ops.py` reads this table and
/// declares each rule in those ops' `OpDef`s.
pub const RULES: Rules = &[
    ("Reshape", &["Reshape"]),
    ("Flatten", &["Flatten"]),
    ("Squeeze", &["Squeeze"]),
    ("Unsqueeze", &["Unsqueeze"]),
    ("Transpose", &["Transpose"]),
    ("Concat", &["Concat"]),
    ("Split", &["Split"]),
    ("Slice", &["Slice"]),
    ("Expand", &["Expand"]),
    ("Tile", &["Tile"]),
    ("Pad", &["Pad"]),
    ("DepthToSpace", &["DepthToSpace"]),
    ("SpaceToDepth", &["SpaceToDepth"]),
    ("Shape", &["Shape"]),
    ("Size", &["Size"]),
];

rules! {
    /// The constant shape operand #1, with `0` copying the input's dim (unless `allowzero`) and
    /// one `-1` inferred from the element count, which must match.
    Reshape = |i| keeps_count(i, reshape(i)?);
    /// `[prod(dims before axis), prod(dims from axis)]`.
    Flatten = |i| keeps_count(i, flatten(i)?);
    /// The input without the size-1 dims the constant operand #1 names (all of them if absent).
    Squeeze = |i| keeps_count(i, squeeze(i)?);
    /// The input with size-1 dims inserted where the constant operand #1 says.
    Unsqueeze = |i| keeps_count(i, unsqueeze(i)?);
    /// The input's dims permuted by `perm` (reversed by default).
    Transpose = |i| {
        let x = i.shaped(0)?;
        let shape = match x.shape {
            Some(s) => {
                let perm = i
                    .ints("perm")
                    .unwrap_or_else(|| (0..s.len() as i64).rev().collect());
                let mut sorted = perm.clone();
                sorted.sort();
                if sorted != (0..s.len() as i64).collect::<Vec<_>>() {
                    return Err(format!(
                        "attribute 'perm' {perm:?} is not a permutation of rank {}",
                        s.len()
                    ));
                }
                Some(perm.iter().map(|&p| s[p as usize]).collect())
            }
            None => None,
        };
        one(t(x.elem, shape))
    };
    /// The operands joined along `axis`; they must agree on every other dim.
    Concat = concat;
    /// One result per piece along `axis`, sized by the `split` operand or evenly.
    Split = split;
    /// Each sliced axis sized from the constant starts, ends, axes and steps.
    Slice = slice;
    /// The input broadcast with the constant shape operand #1.
    Expand = |i| {
        let x = i.shaped(0)?;
        let shape = match (x.shape, i.const_ints(1)) {
            (Some(s), Some(target)) => Some(broadcast(&s, &target).ok_or_else(|| {
                format!(
                    "input {} cannot be expanded to shape {target:?}",
                    i.type_str(0)
                )
            })?),
            (_, Some(target)) => Some(vec![DYNAMIC; target.len()]),
            _ => i
                .shaped(1)
                .ok()
                .and_then(|s| s.shape)
                .and_then(|s| s.first().copied())
                .filter(|&n| n != DYNAMIC)
                .map(|n| vec![DYNAMIC; n as usize]),
        };
        one(t(x.elem, shape))
    };
    /// Each dim times the constant repeat count.
    Tile = |i| {
        let x = i.shaped(0)?;
        let shape = match (x.shape, i.const_ints(1)) {
            (Some(s), Some(r)) if r.len() == s.len() => {
                Some(s.iter().zip(&r).map(|(&d, &k)| dmul(d, k)).collect())
            }
            (Some(s), _) => Some(vec![DYNAMIC; s.len()]),
            _ => None,
        };
        one(t(x.elem, shape))
    };
    /// Each padded axis grown by its begin and end pads (constant operand #1).
    Pad = pad;
    /// `[N, C / b^2, H * b, W * b]`.
    DepthToSpace = |i| depth_space(i, true);
    /// `[N, C * b^2, H / b, W / b]`.
    SpaceToDepth = |i| depth_space(i, false);
    /// `[end - start]` dims of the input's rank, clamped.
    Shape = |i| {
        let x = i.shaped(0)?;
        let len = match x.shape {
            Some(s) => {
                let r = s.len() as i64;
                let clamp = |v: i64| if v < 0 { (v + r).max(0) } else { v.min(r) };
                let start = clamp(i.int("start", 0));
                let end = clamp(i.int("end", r));
                (end - start).max(0)
            }
            None => DYNAMIC,
        };
        one(t(i64_elem(), Some(vec![len])))
    };
    /// A scalar `i64`.
    Size = |_| one(t(i64_elem(), Some(vec![]))) ;
}

/// Checks that a declared static result type has as many elements as a static input: these
/// ops only re-type the data. Inference alone cannot tell when the target shape is not a
/// constant (a `Reshape` by a computed shape), but the folder and the kernels rely on it.
/// This is the one place a rule reads the op's declared result type.
fn keeps_count(i: &In, inferred: Option<super::Results>) -> R {
    let x = i.shaped(0)?;
    let Some(&res) = i.ctx.results(i.op).first() else {
        return Ok(inferred);
    };
    let declared = i.ctx.value_type(res);
    // A declared type that contradicts inference gets the verifier's more precise message.
    let agrees = match inferred
        .as_ref()
        .and_then(|r| r.first())
        .and_then(|r| r.as_ref())
    {
        Some(want) => super::compatible(i.ctx, want, declared),
        None => true,
    };
    if !agrees {
        return Ok(inferred);
    }
    if let (Some(xs), Some(rs)) = (
        x.shape,
        super::shaped_of(i.ctx, declared).and_then(|r| r.shape),
    ) {
        let (n, m) = (prod(&xs), prod(&rs));
        if n != DYNAMIC && m != DYNAMIC && n != m {
            return Err(format!(
                "result type {} has {m} elements, but the input {} has {n}",
                super::fmt_type(i.ctx, declared),
                i.type_str(0)
            ));
        }
    }
    Ok(inferred)
}

fn flatten(i: &In) -> R {
    let x = i.shaped(0)?;
    let shape = match x.shape {
        Some(s) => {
            let axis = norm_axis_incl(i.int("axis", 1), s.len())?;
            Some(vec![prod(&s[..axis]), prod(&s[axis..])])
        }
        None => Some(vec![DYNAMIC, DYNAMIC]),
    };
    one(t(x.elem, shape))
}

fn depth_space(i: &In, d2s: bool) -> R {
    let x = i.shaped(0)?;
    let b = i.int("blocksize", 1);
    if b <= 0 {
        return Err(format!("blocksize must be positive, but got {b}"));
    }
    let shape = x.shape.map(|s| {
        let f = |d: i64, up: bool| {
            if d == DYNAMIC {
                DYNAMIC
            } else if up {
                dmul(d, b)
            } else {
                d / b
            }
        };
        if s.len() == 4 {
            let c = if s[1] == DYNAMIC {
                DYNAMIC
            } else if d2s {
                s[1] / (b * b)
            } else {
                dmul(dmul(s[1], b), b)
            };
            vec![s[0], c, f(s[2], d2s), f(s[3], d2s)]
        } else {
            vec![DYNAMIC; s.len()]
        }
    });
    one(t(x.elem, shape))
}

fn reshape(i: &In) -> R {
    let x = i.shaped(0)?;
    let Some(target) = i.const_ints(1) else {
        let n = i
            .shaped(1)?
            .shape
            .and_then(|s| s.first().copied())
            .filter(|&n| n != DYNAMIC);
        return one(t(x.elem, n.map(|n| vec![DYNAMIC; n as usize])));
    };
    let allowzero = i.int("allowzero", 0) != 0;
    let mut out = Vec::with_capacity(target.len());
    let mut infer_at = None;
    for (k, &d) in target.iter().enumerate() {
        match d {
            -1 => {
                if infer_at.is_some() {
                    return Err(format!("shape {target:?} has more than one -1"));
                }
                infer_at = Some(k);
                out.push(DYNAMIC);
            }
            0 if !allowzero => {
                let src = x.shape.as_ref().and_then(|s| s.get(k).copied());
                match (src, &x.shape) {
                    (Some(v), _) => out.push(v),
                    (None, Some(_)) => {
                        return Err(format!(
                            "shape {target:?} copies dim {k} that the input {} lacks",
                            i.type_str(0)
                        ))
                    }
                    (None, None) => out.push(DYNAMIC),
                }
            }
            d if d < -1 => return Err(format!("shape {target:?} has a negative dim")),
            d => out.push(d),
        }
    }
    if let Some(s) = &x.shape {
        let total = prod(s);
        let known: Vec<i64> = out
            .iter()
            .enumerate()
            .filter(|(k, _)| Some(*k) != infer_at)
            .map(|(_, &d)| d)
            .collect();
        let known_prod = prod(&known);
        if let Some(k) = infer_at {
            if total != DYNAMIC && known_prod != DYNAMIC && known_prod != 0 {
                if total % known_prod != 0 {
                    return Err(format!("cannot reshape {} to {target:?}", i.type_str(0)));
                }
                out[k] = total / known_prod;
            }
        } else if total != DYNAMIC && known_prod != DYNAMIC && total != known_prod {
            return Err(format!(
                "cannot reshape {} ({total} elements) to {target:?} ({known_prod} elements)",
                i.type_str(0)
            ));
        }
    }
    one(t(x.elem, Some(out)))
}

fn axes_of(i: &In, operand: usize) -> Option<Option<Vec<i64>>> {
    if let Some(a) = i.ints("axes") {
        return Some(Some(a));
    }
    if i.present(operand) {
        return i.const_ints(operand).map(Some);
    }
    Some(None)
}

fn squeeze(i: &In) -> R {
    let x = i.shaped(0)?;
    let Some(s) = x.shape.clone() else {
        return one(x);
    };
    let Some(axes) = axes_of(i, 1) else {
        return one(t(x.elem, None));
    };
    let out = match axes {
        None => {
            if s.contains(&DYNAMIC) {
                return one(t(x.elem, None));
            }
            s.iter().copied().filter(|&d| d != 1).collect()
        }
        Some(axes) => {
            let axes: Vec<usize> = axes
                .iter()
                .map(|&a| norm_axis(a, s.len()))
                .collect::<Result<_, _>>()?;
            for &a in &axes {
                if s[a] != 1 && s[a] != DYNAMIC {
                    return Err(format!(
                        "cannot squeeze dim {a} of size {} in {}",
                        s[a],
                        i.type_str(0)
                    ));
                }
            }
            reduce_shape(&s, &axes, false)
        }
    };
    one(t(x.elem, Some(out)))
}

fn unsqueeze(i: &In) -> R {
    let x = i.shaped(0)?;
    let Some(s) = x.shape.clone() else {
        return one(x);
    };
    let axes = match axes_of(i, 1) {
        Some(Some(a)) => a,
        Some(None) => return Err("requires axes".into()),
        None => {
            let n = i.shaped(1)?.shape.and_then(|s| s.first().copied());
            return one(t(
                x.elem,
                n.filter(|&n| n != DYNAMIC)
                    .map(|n| vec![DYNAMIC; s.len() + n as usize]),
            ));
        }
    };
    let r = s.len() + axes.len();
    let mut norm: Vec<usize> = axes
        .iter()
        .map(|&a| norm_axis(a, r))
        .collect::<Result<_, _>>()?;
    norm.sort();
    if norm.windows(2).any(|w| w[0] == w[1]) {
        return Err(format!("axes {axes:?} repeat an axis"));
    }
    let mut out = Vec::with_capacity(r);
    let mut src = s.iter();
    for k in 0..r {
        if norm.contains(&k) {
            out.push(1);
        } else {
            out.push(*src.next().unwrap_or(&DYNAMIC));
        }
    }
    one(t(x.elem, Some(out)))
}

fn concat(i: &In) -> R {
    let first = i.shaped(0)?;
    let mut out: Option<Vec<i64>> = None;
    let mut axis_sum = 0i64;
    for k in 0..i.n() {
        let s = i.shaped(k)?;
        if s.elem != first.elem {
            return Err(format!(
                "operands have different element types: {} and {}",
                i.type_str(0),
                i.type_str(k)
            ));
        }
        let Some(shape) = s.shape else {
            return one(t(first.elem, None));
        };
        let axis = norm_axis(i.int("axis", 0), shape.len())?;
        match &mut out {
            None => {
                axis_sum = shape[axis];
                out = Some(shape);
            }
            Some(o) => {
                if o.len() != shape.len() {
                    return Err(format!(
                        "operands must have the same rank: {} and {}",
                        i.type_str(0),
                        i.type_str(k)
                    ));
                }
                for d in 0..o.len() {
                    if d == axis {
                        continue;
                    }
                    match (o[d], shape[d]) {
                        (a, b) if a == b => {}
                        (DYNAMIC, b) => o[d] = b,
                        (_, DYNAMIC) => {}
                        _ => {
                            return Err(format!(
                                "operands differ outside the concatenation axis: {} and {}",
                                i.type_str(0),
                                i.type_str(k)
                            ))
                        }
                    }
                }
                axis_sum = dadd(axis_sum, shape[axis]);
            }
        }
    }
    let mut out = out.unwrap_or_default();
    if let Ok(axis) = norm_axis(i.int("axis", 0), out.len()) {
        if !out.is_empty() {
            out[axis] = axis_sum;
        }
    }
    one(t(first.elem, Some(out)))
}

fn split(i: &In) -> R {
    let x = i.shaped(0)?;
    let n_out = i.ctx.results(i.op).len();
    let Some(s) = x.shape.clone() else {
        return Ok(Some(vec![Some(x); n_out]));
    };
    let axis = norm_axis(i.int("axis", 0), s.len())?;
    let sizes = if let Some(sp) = i.ints("split") {
        Some(sp)
    } else if i.present(1) {
        i.const_ints(1)
    } else if s[axis] != DYNAMIC && n_out > 0 {
        let n = n_out as i64;
        let chunk = div_ceil(s[axis], n);
        Some(
            (0..n)
                .map(|k| {
                    s[axis]
                        .saturating_sub(k.saturating_mul(chunk))
                        .clamp(0, chunk)
                })
                .collect(),
        )
    } else {
        None
    };
    let mut res = Vec::new();
    for k in 0..n_out {
        let mut o = s.clone();
        o[axis] = match &sizes {
            Some(v) => *v
                .get(k)
                .ok_or_else(|| format!("split sizes {v:?} do not cover {n_out} outputs"))?,
            None => DYNAMIC,
        };
        res.push(Some(t(x.elem.clone(), Some(o))));
    }
    if let Some(v) = &sizes {
        if v.len() != n_out {
            return Err(format!("split sizes {v:?} do not match {n_out} outputs"));
        }
        let total = v.iter().try_fold(0i64, |a, &b| a.checked_add(b));
        if s[axis] != DYNAMIC && total != Some(s[axis]) {
            return Err(format!(
                "split sizes {v:?} do not add up to dim {axis} of {}",
                i.type_str(0)
            ));
        }
    }
    Ok(Some(res))
}

fn slice(i: &In) -> R {
    let x = i.shaped(0)?;
    let Some(s) = x.shape.clone() else {
        return one(x);
    };
    let (Some(starts), Some(ends)) = (i.const_ints(1), i.const_ints(2)) else {
        return one(t(x.elem, Some(vec![DYNAMIC; s.len()])));
    };
    let axes = if i.present(3) {
        match i.const_ints(3) {
            Some(a) => a,
            None => return one(t(x.elem, Some(vec![DYNAMIC; s.len()]))),
        }
    } else {
        (0..starts.len() as i64).collect()
    };
    let steps = if i.present(4) {
        match i.const_ints(4) {
            Some(a) => a,
            None => return one(t(x.elem, Some(vec![DYNAMIC; s.len()]))),
        }
    } else {
        vec![1; starts.len()]
    };
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err("starts, ends, axes and steps must have the same length".into());
    }
    let mut out = s.clone();
    for k in 0..starts.len() {
        let a = norm_axis(axes[k], s.len())?;
        let step = steps[k];
        if step == 0 {
            return Err("slice step must not be zero".into());
        }
        let d = s[a];
        if d == DYNAMIC {
            out[a] = DYNAMIC;
            continue;
        }
        let clampi = |v: i64, lo: i64, hi: i64| v.clamp(lo, hi);
        let norm = |v: i64| if v < 0 { v.saturating_add(d) } else { v };
        let (start, end) = if step > 0 {
            (clampi(norm(starts[k]), 0, d), clampi(norm(ends[k]), 0, d))
        } else {
            (
                clampi(norm(starts[k]), -1, d - 1),
                clampi(norm(ends[k]), -1, d - 1),
            )
        };
        out[a] = if step > 0 {
            div_ceil((end - start).max(0), step)
        } else {
            div_ceil((start - end).max(0), step.checked_neg().unwrap_or(i64::MAX))
        };
    }
    one(t(x.elem, Some(out)))
}

fn pad(i: &In) -> R {
    let x = i.shaped(0)?;
    let Some(s) = x.shape.clone() else {
        return one(x);
    };
    let Some(pads) = i.const_ints(1) else {
        return one(t(x.elem, Some(vec![DYNAMIC; s.len()])));
    };
    let axes: Vec<usize> = if i.present(3) {
        match i.const_ints(3) {
            Some(a) => a
                .iter()
                .map(|&a| norm_axis(a, s.len()))
                .collect::<Result<_, _>>()?,
            None => return one(t(x.elem, Some(vec![DYNAMIC; s.len()]))),
        }
    } else {
        (0..s.len()).collect()
    };
    if pads.len() != 2 * axes.len() {
        return Err(format!(
            "pads has {} entries, but {} padded axes need {} (a begin and an end pad each)",
            pads.len(),
            axes.len(),
            2 * axes.len()
        ));
    }
    let mut out = s.clone();
    for (k, &a) in axes.iter().enumerate() {
        out[a] = dadd(out[a], dadd(pads[k], pads[k + axes.len()]));
    }
    one(t(x.elem, Some(out)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, infer_op, Case};

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        ("Reshape", &["tensor<2x3x4xf32>", "dense<[0, -1]> : tensor<2xi64>"], "", Ok(&["tensor<2x12xf32>"])),
        ("Reshape", &["tensor<2x3x4xf32>", "dense<[4, 0, 2]> : tensor<3xi64>"], "{allowzero = 0 : i64}", Ok(&["tensor<4x3x2xf32>"])),
        ("Reshape", &["tensor<?x3x4xf32>", "dense<[-1, 12]> : tensor<2xi64>"], "", Ok(&["tensor<?x12xf32>"])),
        ("Reshape", &["tensor<2x3xf32>", "tensor<3xi64>"], "", Ok(&["tensor<?x?x?xf32>"])),
        ("Reshape", &["tensor<2x3x4xf32>", "dense<[5, -1]> : tensor<2xi64>"], "", Err("cannot reshape tensor<2x3x4xf32> to [5, -1]")),
        ("Reshape", &["tensor<2x3x4xf32>", "dense<[5, 5]> : tensor<2xi64>"], "", Err("cannot reshape tensor<2x3x4xf32> (24 elements) to [5, 5] (25 elements)")),
        ("Reshape", &["tensor<2x3x4xf32>", "dense<[-1, -1]> : tensor<2xi64>"], "", Err("shape [-1, -1] has more than one -1")),
        ("Reshape", &["tensor<24xf32>", "dense<[0, 0]> : tensor<2xi64>"], "", Err("shape [0, 0] copies dim 1 that the input tensor<24xf32> lacks")),
        ("Reshape", &["tensor<24xf32>", "dense<[-2, 12]> : tensor<2xi64>"], "", Err("shape [-2, 12] has a negative dim")),
        ("Flatten", &["tensor<2x3x4xf32>"], "", Ok(&["tensor<2x12xf32>"])),
        ("Flatten", &["tensor<2x3x4xf32>"], "{axis = 0 : i64}", Ok(&["tensor<1x24xf32>"])),
        ("Flatten", &["tensor<2x?x4xf32>"], "{axis = -1 : i64}", Ok(&["tensor<?x4xf32>"])),
        ("Squeeze", &["tensor<1x3x1xf32>", "none"], "", Ok(&["tensor<3xf32>"])),
        ("Squeeze", &["tensor<1x3x1xf32>", "dense<[-1]> : tensor<1xi64>"], "", Ok(&["tensor<1x3xf32>"])),
        ("Squeeze", &["tensor<1x?xf32>", "none"], "", Ok(&["tensor<*xf32>"])),
        ("Squeeze", &["tensor<2x3xf32>", "dense<0> : tensor<1xi64>"], "", Err("cannot squeeze dim 0 of size 2 in tensor<2x3xf32>")),
        ("Unsqueeze", &["tensor<2x3x4xf32>", "dense<[0, 3]> : tensor<2xi64>"], "", Ok(&["tensor<1x2x3x1x4xf32>"])),
        ("Unsqueeze", &["tensor<3xf32>", "dense<[-1]> : tensor<1xi64>"], "", Ok(&["tensor<3x1xf32>"])),
        ("Unsqueeze", &["tensor<3xf32>", "tensor<2xi64>"], "", Ok(&["tensor<?x?x?xf32>"])),
        ("Unsqueeze", &["tensor<3xf32>", "dense<[0, 0]> : tensor<2xi64>"], "", Err("axes [0, 0] repeat an axis")),
        ("Transpose", &["tensor<2x3x4xf32>"], "{perm = array<i64: 2, 0, 1>}", Ok(&["tensor<4x2x3xf32>"])),
        ("Transpose", &["tensor<2x3x4xf32>"], "", Ok(&["tensor<4x3x2xf32>"])),
        ("Transpose", &["tensor<2x3xf32>"], "{perm = array<i64: 0, 0>}", Err("attribute 'perm' [0, 0] is not a permutation of rank 2")),
        ("Concat", &["tensor<2x3x4xf32>", "tensor<2x3x5xf32>"], "{axis = 2 : i64}", Ok(&["tensor<2x3x9xf32>"])),
        ("Concat", &["tensor<?x3xf32>", "tensor<2x?xf32>"], "{axis = 1 : i64}", Ok(&["tensor<2x?xf32>"])),
        ("Concat", &["tensor<2x3xf32>", "tensor<*xf32>"], "{axis = 0 : i64}", Ok(&["tensor<*xf32>"])),
        ("Concat", &["tensor<2x3xf32>", "tensor<2x4xf32>"], "{axis = 0 : i64}", Err("operands differ outside the concatenation axis: tensor<2x3xf32> and tensor<2x4xf32>")),
        ("Concat", &["tensor<2x3xf32>", "tensor<3xf32>"], "{axis = 0 : i64}", Err("operands must have the same rank: tensor<2x3xf32> and tensor<3xf32>")),
        ("Concat", &["tensor<2xf32>", "tensor<3xi64>"], "{axis = 0 : i64}", Err("operands have different element types: tensor<2xf32> and tensor<3xi64>")),
        ("Split", &["tensor<2x3x4xf32>", "dense<[1, 2]> : tensor<2xi64>"], "{axis = 1 : i64}", Ok(&["tensor<2x1x4xf32>", "tensor<2x2x4xf32>"])),
        ("Split", &["tensor<7xf32>", "none"], "", Ok(&["tensor<3xf32>", "tensor<3xf32>", "tensor<1xf32>"])),
        ("Split", &["tensor<?xf32>", "none"], "", Ok(&["tensor<?xf32>", "tensor<?xf32>"])),
        ("Split", &["tensor<6xf32>", "dense<[1, 2]> : tensor<2xi64>"], "", Err("split sizes [1, 2] do not match 1 outputs")),
        ("Slice", &["tensor<2x3x4xf32>", "dense<[1, 0]> : tensor<2xi64>", "dense<[100, -1]> : tensor<2xi64>", "dense<[1, 2]> : tensor<2xi64>", "none"], "", Ok(&["tensor<2x2x3xf32>"])),
        ("Slice", &["tensor<10xf32>", "dense<-1> : tensor<1xi64>", "dense<-11> : tensor<1xi64>", "none", "dense<-3> : tensor<1xi64>"], "", Ok(&["tensor<4xf32>"])),
        ("Slice", &["tensor<10x3xf32>", "tensor<1xi64>", "dense<5> : tensor<1xi64>", "none", "none"], "", Ok(&["tensor<?x?xf32>"])),
        ("Slice", &["tensor<10xf32>", "dense<0> : tensor<1xi64>", "dense<5> : tensor<1xi64>", "none", "dense<0> : tensor<1xi64>"], "", Err("slice step must not be zero")),
        ("Slice", &["tensor<10xf32>", "dense<0> : tensor<1xi64>", "dense<[5, 6]> : tensor<2xi64>", "none", "none"], "", Err("starts, ends, axes and steps must have the same length")),
        ("Expand", &["tensor<2x3x4xf32>", "dense<[7, 2, 1, 4]> : tensor<4xi64>"], "", Ok(&["tensor<7x2x3x4xf32>"])),
        ("Expand", &["tensor<*xf32>", "dense<[7, 2]> : tensor<2xi64>"], "", Ok(&["tensor<?x?xf32>"])),
        ("Expand", &["tensor<3xf32>", "tensor<2xi64>"], "", Ok(&["tensor<?x?xf32>"])),
        ("Expand", &["tensor<3xf32>", "dense<[2, 4]> : tensor<2xi64>"], "", Err("input tensor<3xf32> cannot be expanded to shape [2, 4]")),
        ("Tile", &["tensor<2x3xf32>", "dense<[3, 1]> : tensor<2xi64>"], "", Ok(&["tensor<6x3xf32>"])),
        ("Tile", &["tensor<2x3xf32>", "tensor<2xi64>"], "", Ok(&["tensor<?x?xf32>"])),
        ("Pad", &["tensor<2x3x4xf32>", "dense<[0, 1, 1, 0, 1, 1]> : tensor<6xi64>", "none", "none"], "", Ok(&["tensor<2x5x6xf32>"])),
        ("Pad", &["tensor<2x3x4xf32>", "dense<[1, 2]> : tensor<2xi64>", "none", "dense<-1> : tensor<1xi64>"], "", Ok(&["tensor<2x3x7xf32>"])),
        ("Pad", &["tensor<2x3xf32>", "tensor<4xi64>", "none", "none"], "", Ok(&["tensor<?x?xf32>"])),
        ("Pad", &["tensor<2x6xf32>", "dense<1> : tensor<2xi64>", "none", "none"], "", Err("pads has 2 entries, but 2 padded axes need 4 (a begin and an end pad each)")),
        ("DepthToSpace", &["tensor<1x8x2x3xf32>"], "{blocksize = 2 : i64}", Ok(&["tensor<1x2x4x6xf32>"])),
        ("SpaceToDepth", &["tensor<1x2x4x6xf32>"], "{blocksize = 2 : i64}", Ok(&["tensor<1x8x2x3xf32>"])),
        ("SpaceToDepth", &["tensor<1x2x4x6xf32>"], "{blocksize = 0 : i64}", Err("blocksize must be positive, but got 0")),
        ("Shape", &["tensor<2x3x4xf32>"], "", Ok(&["tensor<3xi64>"])),
        ("Shape", &["tensor<2x3x4xf32>"], "{end = -1 : i64, start = 1 : i64}", Ok(&["tensor<1xi64>"])),
        ("Shape", &["tensor<*xf32>"], "", Ok(&["tensor<?xi64>"])),
        ("Size", &["tensor<2x3xf32>"], "", Ok(&["tensor<i64>"])),
    ];

    #[test]
    fn shape_manipulation_rules() {
        check(CASES);
    }

    #[test]
    fn split_sizes_must_add_up() {
        assert_eq!(
            infer_op(
                "Split",
                &["tensor<6xf32>", "dense<[1, 2]> : tensor<2xi64>"],
                "",
                2
            ),
            Err("split sizes [1, 2] do not add up to dim 0 of tensor<6xf32>".into())
        );
    }
}
