//! Kernels `nart-tensor` does not have (yet): losses, training-mode BatchNormalization, Dropout
//! without randomness, Det, CenterCropPad, the window functions, string operators, GridSample,
//! Unique, MaxUnpool, Col2Im, DFT, STFT, AffineGrid, TfIdfVectorizer, DeformConv, RegexFullMatch
//! and the deprecated Scatter; plus attribute reading for LpNormalization, LRN, Compress,
//! ReverseSequence, MeanVarianceNormalization and RoiAlign, whose kernels are `nart-tensor`'s.
//! They compute in f64 and round once to the output type, like `nart-tensor`'s float kernels;
//! each belongs in `nart-tensor` and should move there.

use nart_tensor::index::{self, ScatterReduction};
use nart_tensor::layout::{broadcast_all, broadcast_index, norm_axis, outer_axis_inner};
use nart_tensor::shape_ops as so;
use nart_tensor::{DType, Data, KernelError, Result as KResult, Tensor};

use super::{one, opt, req, TensorKernel};
use crate::attrs::Node;

fn float_in(op: &'static str, t: &Tensor) -> KResult<Vec<f64>> {
    if !t.dtype().is_float() {
        return Err(KernelError::dtype(op, t.dtype()));
    }
    t.to_f64_vec()
}

fn dropout(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let x = req(n, i, 0)?;
    let ratio = match opt(i, 1) {
        Some(r) => r.to_f64_vec()?.first().copied().unwrap_or(0.5),
        None => 0.5,
    };
    let training = match opt(i, 2) {
        Some(t) => t.to_bool_vec()?.first().copied().unwrap_or(false),
        None => false,
    };
    if training && ratio != 0.0 {
        return Err(KernelError::attr(
            "Dropout",
            "training_mode",
            "random dropout in training mode is not supported",
        ));
    }
    let mask = Tensor::new(
        DType::Bool,
        x.shape().to_vec(),
        Data::Bool(vec![true; x.len()]),
    )?;
    Ok(vec![x.clone(), mask])
}

fn batch_norm_training(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "BatchNormalization";
    let x = req(n, i, 0)?;
    let s = x.shape();
    if s.len() < 2 {
        return Err(KernelError::shape(OP, "input must have rank 2 or more"));
    }
    let (c, inner) = (s[1], s[2..].iter().product::<usize>());
    let batch = s[0];
    let xv = float_in(OP, x)?;
    let scale = req(n, i, 1)?.to_f64_vec()?;
    let bias = req(n, i, 2)?.to_f64_vec()?;
    let rmean = req(n, i, 3)?.to_f64_vec()?;
    let rvar = req(n, i, 4)?.to_f64_vec()?;
    if [scale.len(), bias.len(), rmean.len(), rvar.len()]
        .iter()
        .any(|&l| l != c)
    {
        return Err(KernelError::shape(
            OP,
            format!("per-channel inputs must have {c} elements"),
        ));
    }
    let eps = n.float_or("epsilon", 1e-5)?;
    let momentum = n.float_or("momentum", 0.9)?;
    let count = (batch * inner).max(1) as f64;
    let mut y = vec![0f64; xv.len()];
    let (mut new_mean, mut new_var) = (vec![0f64; c], vec![0f64; c]);
    for ch in 0..c {
        let idx = |b: usize, k: usize| (b * c + ch) * inner + k;
        let mean = (0..batch)
            .flat_map(|b| (0..inner).map(move |k| (b, k)))
            .map(|(b, k)| xv[idx(b, k)])
            .sum::<f64>()
            / count;
        let var = (0..batch)
            .flat_map(|b| (0..inner).map(move |k| (b, k)))
            .map(|(b, k)| (xv[idx(b, k)] - mean).powi(2))
            .sum::<f64>()
            / count;
        let inv = 1.0 / (var + eps).sqrt();
        for b in 0..batch {
            for k in 0..inner {
                y[idx(b, k)] = (xv[idx(b, k)] - mean) * inv * scale[ch] + bias[ch];
            }
        }
        new_mean[ch] = rmean[ch] * momentum + mean * (1.0 - momentum);
        new_var[ch] = rvar[ch] * momentum + var * (1.0 - momentum);
    }
    let mdt = req(n, i, 3)?.dtype();
    Ok(vec![
        Tensor::from_f64(x.dtype(), s.to_vec(), y)?,
        Tensor::from_f64(mdt, vec![c], new_mean)?,
        Tensor::from_f64(req(n, i, 4)?.dtype(), vec![c], new_var)?,
    ])
}

/// Negative log-likelihood over `input [N, C, d...]` with `target [N, d...]`.
fn nll(
    op: &'static str,
    input: &[f64],
    in_shape: &[usize],
    target: &Tensor,
    weight: Option<&[f64]>,
    reduction: &str,
    ignore: Option<i64>,
) -> KResult<(Vec<usize>, Vec<f64>)> {
    if in_shape.len() < 2 {
        return Err(KernelError::shape(op, "input must have rank 2 or more"));
    }
    let (nb, c) = (in_shape[0], in_shape[1]);
    let inner: usize = in_shape[2..].iter().product();
    let mut tshape = vec![nb];
    tshape.extend_from_slice(&in_shape[2..]);
    if target.shape() != tshape.as_slice() {
        return Err(KernelError::shape(
            op,
            format!(
                "target shape {:?} does not fit input {in_shape:?}",
                target.shape()
            ),
        ));
    }
    let t = target.to_i64_vec()?;
    let mut loss = vec![0f64; nb * inner];
    let mut wsum = 0f64;
    for b in 0..nb {
        for k in 0..inner {
            let cls = t[b * inner + k];
            if Some(cls) == ignore {
                continue;
            }
            if cls < 0 || cls as usize >= c {
                return Err(KernelError::IndexOutOfRange {
                    op,
                    index: cls,
                    size: c,
                });
            }
            let w = weight.map_or(1.0, |w| w[cls as usize]);
            loss[b * inner + k] = -input[(b * c + cls as usize) * inner + k] * w;
            wsum += w;
        }
    }
    Ok(match reduction {
        "none" => (tshape, loss),
        "sum" => (vec![], vec![loss.iter().sum()]),
        "mean" => (vec![], vec![loss.iter().sum::<f64>() / wsum]),
        other => {
            return Err(KernelError::attr(
                op,
                "reduction",
                format!("unknown reduction '{other}'"),
            ))
        }
    })
}

fn nll_loss(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "NegativeLogLikelihoodLoss";
    let x = req(n, i, 0)?;
    let w = opt(i, 2).map(|w| w.to_f64_vec()).transpose()?;
    let (shape, v) = nll(
        OP,
        &float_in(OP, x)?,
        x.shape(),
        req(n, i, 1)?,
        w.as_deref(),
        &n.str_or("reduction", "mean")?,
        n.opt_int("ignore_index")?,
    )?;
    one(Tensor::from_f64(x.dtype(), shape, v)?)
}

fn softmax_ce_loss(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "SoftmaxCrossEntropyLoss";
    let x = req(n, i, 0)?;
    let logp = nart_tensor::norm::log_softmax(&x.cast(DType::F64)?, 1)?;
    let w = opt(i, 2).map(|w| w.to_f64_vec()).transpose()?;
    let (shape, v) = nll(
        OP,
        &logp.to_f64_vec()?,
        x.shape(),
        req(n, i, 1)?,
        w.as_deref(),
        &n.str_or("reduction", "mean")?,
        n.opt_int("ignore_index")?,
    )?;
    Ok(vec![
        Tensor::from_f64(x.dtype(), shape, v)?,
        logp.cast(x.dtype())?,
    ])
}

fn lp_normalization(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(nart_tensor::norm::lp_norm(
        req(n, i, 0)?,
        n.int_or("axis", -1)?,
        n.int_or("p", 2)?,
    )?)
}

fn lrn(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(nart_tensor::norm::lrn(
        req(n, i, 0)?,
        n.int("size")?.max(1) as usize,
        n.float_or("alpha", 1e-4)? as f32,
        n.float_or("beta", 0.75)? as f32,
        n.float_or("bias", 1.0)? as f32,
    )?)
}

fn det(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "Det";
    let x = req(n, i, 0)?;
    let s = x.shape();
    let r = s.len();
    if r < 2 || s[r - 1] != s[r - 2] {
        return Err(KernelError::shape(
            OP,
            format!("input must be [*, M, M], got {s:?}"),
        ));
    }
    let m = s[r - 1];
    let v = float_in(OP, x)?;
    let out: Vec<f64> = v
        .chunks(m * m)
        .map(|a| {
            let mut a = a.to_vec();
            let mut d = 1.0;
            for col in 0..m {
                let piv = (col..m)
                    .max_by(|&p, &q| a[p * m + col].abs().total_cmp(&a[q * m + col].abs()))
                    .unwrap_or(col);
                if a[piv * m + col] == 0.0 {
                    return 0.0;
                }
                if piv != col {
                    for k in 0..m {
                        a.swap(piv * m + k, col * m + k);
                    }
                    d = -d;
                }
                d *= a[col * m + col];
                for row in col + 1..m {
                    let f = a[row * m + col] / a[col * m + col];
                    for k in col..m {
                        a[row * m + k] -= f * a[col * m + k];
                    }
                }
            }
            d
        })
        .collect();
    let shape = s[..r - 2].to_vec();
    let out = if m == 0 {
        vec![1.0; shape.iter().product()]
    } else {
        out
    };
    one(Tensor::from_f64(x.dtype(), shape, out)?)
}

fn compress(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    one(index::compress(
        req(n, i, 0)?,
        req(n, i, 1)?,
        n.opt_int("axis")?,
    )?)
}

fn reverse_sequence(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let axis = |name: &'static str, dflt: i64| -> KResult<usize> {
        usize::try_from(n.int_or(name, dflt)?)
            .map_err(|_| KernelError::attr("ReverseSequence", name, "must not be negative"))
    };
    one(index::reverse_sequence(
        req(n, i, 0)?,
        req(n, i, 1)?,
        axis("batch_axis", 1)?,
        axis("time_axis", 0)?,
    )?)
}

fn center_crop_pad(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let x = req(n, i, 0)?;
    let target = req(n, i, 1)?.to_i64_vec()?;
    let axes: Vec<i64> = n
        .opt_ints("axes")?
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| (0..x.rank() as i64).collect());
    if axes.len() != target.len() {
        return Err(KernelError::shape(
            "CenterCropPad",
            "shape and axes differ in length",
        ));
    }
    let mut cur = x.clone();
    for (&a, &t) in axes.iter().zip(&target) {
        let ax = norm_axis("CenterCropPad", a, x.rank())?;
        let d = cur.shape()[ax] as i64;
        if d > t {
            let start = (d - t) / 2;
            cur = so::slice(&cur, &[start], &[start + t], Some(&[ax as i64]), None)?;
        } else if d < t {
            let before = (t - d) / 2;
            let mut pads = vec![0i64; 2 * cur.rank()];
            pads[ax] = before;
            pads[ax + cur.rank()] = t - d - before;
            cur = so::pad(&cur, &pads, so::PadMode::Constant, None, None)?;
        }
    }
    one(cur)
}

fn window(n: &Node, i: &[Option<&Tensor>], f: fn(f64, f64) -> f64) -> KResult<Vec<Tensor>> {
    let size = req(n, i, 0)?
        .to_i64_vec()?
        .first()
        .copied()
        .unwrap_or(0)
        .max(0) as usize;
    let periodic = n.int_or("periodic", 1)? != 0;
    let dt = n.dtype("output_datatype")?.unwrap_or(DType::F32);
    let denom = if periodic {
        size as f64
    } else {
        size as f64 - 1.0
    };
    let v = (0..size).map(|k| f(k as f64, denom)).collect();
    one(Tensor::from_f64(dt, vec![size], v)?)
}

fn strings_of<'a>(op: &'static str, t: &'a Tensor) -> KResult<&'a [String]> {
    match t.data() {
        Data::Str(v) => Ok(v),
        _ => Err(KernelError::dtype(op, t.dtype())),
    }
}

fn string_concat(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let (a, b) = (req(n, i, 0)?, req(n, i, 1)?);
    let (av, bv) = (
        strings_of("StringConcat", a)?,
        strings_of("StringConcat", b)?,
    );
    let shape = broadcast_all("StringConcat", &[a.shape(), b.shape()])?;
    let (ia, ib) = (
        broadcast_index(&shape, a.shape()),
        broadcast_index(&shape, b.shape()),
    );
    let v = ia
        .iter()
        .zip(&ib)
        .map(|(&x, &y)| format!("{}{}", av[x], bv[y]))
        .collect();
    one(Tensor::new(DType::String, shape, Data::Str(v))?)
}

fn string_normalizer(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let x = req(n, i, 0)?;
    let v = strings_of("StringNormalizer", x)?;
    let action = n.str_or("case_change_action", "NONE")?;
    let sensitive = n.int_or("is_case_sensitive", 0)? != 0;
    let stop = n.strings("stopwords")?;
    let is_stop = |w: &str| {
        stop.iter().any(|s| {
            if sensitive {
                s == w
            } else {
                s.to_lowercase() == w.to_lowercase()
            }
        })
    };
    let kept: Vec<String> = v
        .iter()
        .filter(|w| !is_stop(w))
        .map(|w| match action.as_str() {
            "LOWER" => w.to_lowercase(),
            "UPPER" => w.to_uppercase(),
            _ => w.clone(),
        })
        .collect();
    let shape = match x.shape() {
        [_] => vec![kept.len().max(1)],
        [1, _] => vec![1, kept.len().max(1)],
        s => {
            return Err(KernelError::shape(
                "StringNormalizer",
                format!("input must be [C] or [1, C], got {s:?}"),
            ))
        }
    };
    let kept = if kept.is_empty() {
        vec![String::new()]
    } else {
        kept
    };
    one(Tensor::new(DType::String, shape, Data::Str(kept))?)
}

fn string_split(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let x = req(n, i, 0)?;
    let v = strings_of("StringSplit", x)?;
    let delim = n.str_or("delimiter", "")?;
    let maxsplit = n.opt_int("maxsplit")?;
    let parts: Vec<Vec<String>> = v
        .iter()
        .map(|s| {
            let limit = maxsplit.map_or(usize::MAX, |m| m.max(0) as usize + 1);
            if delim.is_empty() {
                let mut out: Vec<String> = Vec::new();
                let mut rest = s.trim_start();
                while !rest.is_empty() {
                    if out.len() + 1 == limit {
                        out.push(rest.to_string());
                        break;
                    }
                    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                    out.push(rest[..end].to_string());
                    rest = rest[end..].trim_start();
                }
                out
            } else {
                s.splitn(limit, delim.as_str())
                    .map(str::to_string)
                    .collect()
            }
        })
        .collect();
    let width = parts.iter().map(Vec::len).max().unwrap_or(0);
    let mut y = Vec::with_capacity(v.len() * width);
    for p in &parts {
        y.extend(p.iter().cloned());
        y.extend(std::iter::repeat_n(String::new(), width - p.len()));
    }
    let mut shape = x.shape().to_vec();
    shape.push(width);
    let counts = Tensor::from_vec(
        x.shape().to_vec(),
        parts.iter().map(|p| p.len() as i64).collect(),
    )?;
    Ok(vec![
        Tensor::new(DType::String, shape, Data::Str(y))?,
        counts,
    ])
}

/// A sort key for one element, numeric or string.
#[derive(Clone, PartialEq, PartialOrd)]
enum Key {
    Num(f64),
    Str(String),
}

fn keys_of(t: &Tensor) -> KResult<Vec<Key>> {
    Ok(match t.data() {
        Data::Str(v) => v.iter().cloned().map(Key::Str).collect(),
        _ => t.to_f64_vec()?.into_iter().map(Key::Num).collect(),
    })
}

fn unique(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let x = req(n, i, 0)?;
    let sorted = n.int_or("sorted", 1)? != 0;
    let axis = n.opt_int("axis")?;
    let (src, ax) = match axis {
        Some(a) => (x.clone(), norm_axis("Unique", a, x.rank())?),
        None => (x.reshaped(vec![x.len()])?, 0),
    };
    let (outer, len, inner) = outer_axis_inner(src.shape(), ax);
    let keys = keys_of(&src)?;
    let slice_key = |j: usize| -> Vec<Key> {
        (0..outer)
            .flat_map(|o| (0..inner).map(move |k| (o * len + j) * inner + k))
            .map(|f| keys[f].clone())
            .collect()
    };
    let all: Vec<Vec<Key>> = (0..len).map(slice_key).collect();
    // Distinct slices in order of first occurrence.
    let mut first: Vec<usize> = Vec::new();
    let mut inverse = vec![0usize; len];
    let mut counts: Vec<i64> = Vec::new();
    for j in 0..len {
        match first.iter().position(|&f| all[f] == all[j]) {
            Some(u) => {
                inverse[j] = u;
                counts[u] += 1;
            }
            None => {
                inverse[j] = first.len();
                first.push(j);
                counts.push(1);
            }
        }
    }
    let mut order: Vec<usize> = (0..first.len()).collect();
    if sorted {
        order.sort_by(|&a, &b| {
            all[first[a]]
                .partial_cmp(&all[first[b]])
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    }
    let mut rank = vec![0usize; order.len()];
    for (r, &u) in order.iter().enumerate() {
        rank[u] = r;
    }
    let idx: Vec<i64> = order.iter().map(|&u| first[u] as i64).collect();
    let y = index::gather(&src, &Tensor::vector(idx.clone()), ax as i64)?;
    let inv: Vec<i64> = inverse.iter().map(|&u| rank[u] as i64).collect();
    let cnt: Vec<i64> = order.iter().map(|&u| counts[u]).collect();
    Ok(vec![
        y,
        Tensor::vector(idx),
        Tensor::vector(inv),
        Tensor::vector(cnt),
    ])
}

fn max_unpool(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "MaxUnpool";
    let x = req(n, i, 0)?;
    let ind = req(n, i, 1)?.to_i64_vec()?;
    let s = x.shape();
    let k = n.ints("kernel_shape")?;
    let r = s.len().saturating_sub(2);
    let pads = n
        .opt_ints("pads")?
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| vec![0; 2 * r]);
    let strides = n
        .opt_ints("strides")?
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| vec![1; r]);
    if s.len() < 3 || k.len() != r || pads.len() != 2 * r || strides.len() != r {
        return Err(KernelError::attr(
            OP,
            "kernel_shape",
            "kernel_shape, pads and strides must fit the input rank",
        ));
    }
    // Indices address the inferred shape; an explicit output_shape pads that at the ends.
    let mut inferred = s[..2].to_vec();
    for d in 0..r {
        inferred.push(
            ((s[d + 2] as i64 - 1) * strides[d] + k[d] - pads[d] - pads[d + r]).max(0) as usize,
        );
    }
    let total: usize = inferred.iter().product();
    let xv = x.to_f64_vec()?;
    let mut y = vec![0f64; total];
    for (v, &f) in xv.iter().zip(&ind) {
        let f =
            usize::try_from(f)
                .ok()
                .filter(|&f| f < total)
                .ok_or(KernelError::IndexOutOfRange {
                    op: OP,
                    index: f,
                    size: total,
                })?;
        y[f] = *v;
    }
    let y = Tensor::from_f64(x.dtype(), inferred.clone(), y)?;
    let Some(shape) = opt(i, 2).map(|t| t.to_i64_vec()).transpose()? else {
        return one(y);
    };
    if shape.len() != inferred.len() || shape.iter().zip(&inferred).any(|(&o, &d)| o < d as i64) {
        return Err(KernelError::shape(
            OP,
            format!("output_shape {shape:?} is smaller than {inferred:?}"),
        ));
    }
    let mut p = vec![0i64; 2 * shape.len()];
    for d in 0..shape.len() {
        p[shape.len() + d] = shape[d] - inferred[d] as i64;
    }
    one(so::pad(&y, &p, so::PadMode::Constant, None, None)?)
}

fn col2im(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "Col2Im";
    let x = req(n, i, 0)?;
    let img: Vec<usize> = req(n, i, 1)?
        .to_i64_vec()?
        .into_iter()
        .map(|v| v.max(0) as usize)
        .collect();
    let blk: Vec<usize> = req(n, i, 2)?
        .to_i64_vec()?
        .into_iter()
        .map(|v| v.max(0) as usize)
        .collect();
    let r = img.len();
    let get = |name: &'static str, d: i64, len: usize| -> KResult<Vec<i64>> {
        Ok(n.opt_ints(name)?
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| vec![d; len]))
    };
    let (dil, pads, strides) = (
        get("dilations", 1, r)?,
        get("pads", 0, 2 * r)?,
        get("strides", 1, r)?,
    );
    let s = x.shape();
    let kprod: usize = blk.iter().product();
    if s.len() != 3 || blk.len() != r || kprod == 0 || s[1] % kprod != 0 {
        return Err(KernelError::shape(
            OP,
            format!("input {s:?} does not fit block {blk:?}"),
        ));
    }
    let (nb, c, l) = (s[0], s[1] / kprod, s[2]);
    let counts: Vec<usize> = (0..r)
        .map(|d| {
            let eff = img[d] as i64 + pads[d] + pads[d + r] - dil[d] * (blk[d] as i64 - 1) - 1;
            (eff / strides[d] + 1).max(0) as usize
        })
        .collect();
    if counts.iter().product::<usize>() != l {
        return Err(KernelError::shape(
            OP,
            format!("{l} blocks do not tile image {img:?}"),
        ));
    }
    let xv = x.to_f64_vec()?;
    let isz: usize = img.iter().product();
    let mut y = vec![0f64; nb * c * isz];
    let (mut kp, mut bp) = (vec![0usize; r], vec![0usize; r]);
    for b in 0..nb {
        for ch in 0..c {
            for k in 0..kprod {
                nart_tensor::layout::unravel(k, &blk, &mut kp);
                for p in 0..l {
                    nart_tensor::layout::unravel(p, &counts, &mut bp);
                    let mut flat = 0usize;
                    let mut inside = true;
                    for d in 0..r {
                        let pos = (bp[d] as i64) * strides[d] + (kp[d] as i64) * dil[d] - pads[d];
                        if pos < 0 || pos >= img[d] as i64 {
                            inside = false;
                            break;
                        }
                        flat = flat * img[d] + pos as usize;
                    }
                    if inside {
                        y[(b * c + ch) * isz + flat] +=
                            xv[(b * c * kprod + ch * kprod + k) * l + p];
                    }
                }
            }
        }
    }
    let mut shape = vec![nb, c];
    shape.extend(img);
    one(Tensor::from_f64(x.dtype(), shape, y)?)
}

fn dft(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "DFT";
    let x = req(n, i, 0)?;
    let s = x.shape().to_vec();
    let r = s.len();
    if r < 2 || !(s[r - 1] == 1 || s[r - 1] == 2) {
        return Err(KernelError::shape(
            OP,
            format!("input must end in a dimension of 1 or 2, got {s:?}"),
        ));
    }
    let axis = match opt(i, 2) {
        Some(t) => t.to_i64_vec()?.first().copied().unwrap_or(-2),
        None => n.int_or("axis", -2)?,
    };
    // A negative axis counts from the end of the full shape, real/imaginary axis included.
    let ax = norm_axis(OP, if axis < 0 { axis + r as i64 } else { axis }, r - 1)?;
    let inverse = n.int_or("inverse", 0)? != 0;
    let onesided = n.int_or("onesided", 0)? != 0;
    let len = s[ax];
    let nfft = match opt(i, 1) {
        Some(t) if !t.is_empty() => t.to_i64_vec()?[0].max(0) as usize,
        _ if inverse && onesided => 2 * len.saturating_sub(1),
        _ => len,
    };
    if inverse && onesided {
        return irfft(x, ax, nfft);
    }
    let out_len = if onesided { nfft / 2 + 1 } else { nfft };
    let xv = x.to_f64_vec()?;
    let complex_in = s[r - 1] == 2;
    let (outer, _, inner) = outer_axis_inner(&s[..r - 1], ax);
    let mut y = vec![0f64; outer * out_len * inner * 2];
    let sign = if inverse { 1.0 } else { -1.0 };
    for o in 0..outer {
        for k in 0..inner {
            for f in 0..out_len {
                let (mut re, mut im) = (0.0, 0.0);
                for t in 0..nfft.min(len) {
                    let base = ((o * len + t) * inner + k) * s[r - 1];
                    let (xr, xi) = (xv[base], if complex_in { xv[base + 1] } else { 0.0 });
                    let ang = sign * 2.0 * std::f64::consts::PI * (f * t) as f64 / nfft as f64;
                    re += xr * ang.cos() - xi * ang.sin();
                    im += xr * ang.sin() + xi * ang.cos();
                }
                if inverse {
                    re /= nfft as f64;
                    im /= nfft as f64;
                }
                let at = ((o * out_len + f) * inner + k) * 2;
                y[at] = re;
                y[at + 1] = im;
            }
        }
    }
    let mut shape = s.clone();
    shape[ax] = out_len;
    shape[r - 1] = 2;
    one(Tensor::from_f64(x.dtype(), shape, y)?)
}

/// The inverse of a one-sided DFT: Hermitian-symmetric spectrum in, `nfft` real values out.
fn irfft(x: &Tensor, ax: usize, nfft: usize) -> KResult<Vec<Tensor>> {
    let s = x.shape().to_vec();
    let r = s.len();
    let len = s[ax];
    let xv = x.to_f64_vec()?;
    let complex_in = s[r - 1] == 2;
    let (outer, _, inner) = outer_axis_inner(&s[..r - 1], ax);
    let mut y = vec![0f64; outer * nfft * inner];
    let half = nfft / 2;
    for o in 0..outer {
        for k in 0..inner {
            for t in 0..nfft {
                let mut acc = 0.0;
                for f in 0..=half.min(len.saturating_sub(1)) {
                    let base = ((o * len + f) * inner + k) * s[r - 1];
                    let xr = xv[base];
                    let xi = if complex_in { xv[base + 1] } else { 0.0 };
                    let ang = 2.0 * std::f64::consts::PI * (f * t) as f64 / nfft as f64;
                    let edge = f == 0 || (nfft % 2 == 0 && f == half);
                    acc += if edge {
                        xr * ang.cos()
                    } else {
                        2.0 * (xr * ang.cos() - xi * ang.sin())
                    };
                }
                y[(o * nfft + t) * inner + k] = acc / nfft as f64;
            }
        }
    }
    let mut shape = s;
    shape[ax] = nfft;
    shape[r - 1] = 1;
    one(Tensor::from_f64(x.dtype(), shape, y)?)
}

fn affine_grid(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "AffineGrid";
    let theta = req(n, i, 0)?;
    let size: Vec<usize> = req(n, i, 1)?
        .to_i64_vec()?
        .into_iter()
        .map(|v| v.max(0) as usize)
        .collect();
    let align = n.int_or("align_corners", 0)? != 0;
    let r = size.len().saturating_sub(2);
    let ts = theta.shape();
    if !(r == 2 || r == 3) || ts != [size[0], r, r + 1] {
        return Err(KernelError::shape(
            OP,
            format!("theta {ts:?} does not fit size {size:?}"),
        ));
    }
    let th = float_in(OP, theta)?;
    let coord = |k: usize, len: usize| -> f64 {
        if align {
            if len <= 1 {
                0.0
            } else {
                -1.0 + 2.0 * k as f64 / (len - 1) as f64
            }
        } else {
            (2 * k + 1) as f64 / len as f64 - 1.0
        }
    };
    // Spatial sizes outermost first (D, H, W); grid points are (x, y[, z]).
    let sp = &size[2..];
    let npts: usize = sp.iter().product();
    let mut out = Vec::with_capacity(size[0] * npts * r);
    let mut pos = vec![0usize; r];
    for b in 0..size[0] {
        let t = &th[b * r * (r + 1)..(b + 1) * r * (r + 1)];
        for p in 0..npts {
            nart_tensor::layout::unravel(p, sp, &mut pos);
            let base: Vec<f64> = (0..r)
                .map(|k| coord(pos[r - 1 - k], sp[r - 1 - k]))
                .collect();
            for row in 0..r {
                let v: f64 = (0..r).map(|k| t[row * (r + 1) + k] * base[k]).sum::<f64>()
                    + t[row * (r + 1) + r];
                out.push(v);
            }
        }
    }
    let mut shape = vec![size[0]];
    shape.extend_from_slice(sp);
    shape.push(r);
    one(Tensor::from_f64(theta.dtype(), shape, out)?)
}

fn roi_align(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let a = nart_tensor::pool::RoiAlignAttrs {
        half_pixel: n.str_or("coordinate_transformation_mode", "half_pixel")? == "half_pixel",
        max_mode: n.str_or("mode", "avg")? == "max",
        output_height: n.int_or("output_height", 1)?.max(1) as usize,
        output_width: n.int_or("output_width", 1)?.max(1) as usize,
        sampling_ratio: n.int_or("sampling_ratio", 0)?.max(0) as usize,
        spatial_scale: n.float_or("spatial_scale", 1.0)? as f32,
    };
    one(nart_tensor::pool::roi_align(
        req(n, i, 0)?,
        req(n, i, 1)?,
        req(n, i, 2)?,
        &a,
    )?)
}

fn tfidf_vectorizer(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "TfIdfVectorizer";
    let x = req(n, i, 0)?;
    let items: Vec<String> = match x.data() {
        Data::Str(v) => v.clone(),
        _ => x.to_i64_vec()?.into_iter().map(|v| v.to_string()).collect(),
    };
    let pool: Vec<String> = match n.opt_ints("pool_int64s")? {
        Some(v) if !v.is_empty() => v.into_iter().map(|v| v.to_string()).collect(),
        _ => n.strings("pool_strings")?,
    };
    let counts = n.ints("ngram_counts")?;
    let indexes = n.ints("ngram_indexes")?;
    let weights = n.opt_floats("weights")?.unwrap_or_default();
    let (min_n, max_n) = (
        n.int("min_gram_length")?.max(1) as usize,
        n.int("max_gram_length")?.max(1) as usize,
    );
    let max_skip = n.int_or("max_skip_count", 0)?.max(0) as usize;
    let mode = n.str_or("mode", "TF")?;
    // Map every pool n-gram to its output column.
    let mut table: std::collections::HashMap<Vec<String>, usize> = std::collections::HashMap::new();
    let mut gram_id = 0usize;
    for (k, &start) in counts.iter().enumerate() {
        let len = k + 1;
        let end = counts.get(k + 1).map_or(pool.len(), |&e| e.max(0) as usize);
        let mut at = start.max(0) as usize;
        while at + len <= end {
            let col = *indexes
                .get(gram_id)
                .ok_or_else(|| KernelError::attr(OP, "ngram_indexes", "too few entries"))?;
            table.insert(pool[at..at + len].to_vec(), col.max(0) as usize);
            gram_id += 1;
            at += len;
        }
    }
    let width = indexes.iter().copied().max().map_or(0, |m| m.max(-1) + 1) as usize;
    let (rows, cols) = match x.shape() {
        [c] => (1, *c),
        [r, c] => (*r, *c),
        s => {
            return Err(KernelError::shape(
                OP,
                format!("input must be 1-D or 2-D, got {s:?}"),
            ))
        }
    };
    let mut out = vec![0f64; rows * width];
    for r in 0..rows {
        let row = &items[r * cols..(r + 1) * cols];
        let y = &mut out[r * width..(r + 1) * width];
        for len in min_n..=max_n {
            let skips = if len == 1 { 0 } else { max_skip };
            for skip in 0..=skips {
                let step = skip + 1;
                for start in 0..cols {
                    let last = start + (len - 1) * step;
                    if last >= cols {
                        break;
                    }
                    let gram: Vec<String> =
                        (0..len).map(|k| row[start + k * step].clone()).collect();
                    if let Some(&col) = table.get(&gram) {
                        y[col] += 1.0;
                    }
                }
            }
        }
        for (col, v) in y.iter_mut().enumerate() {
            let w = weights.get(col).copied().unwrap_or(1.0);
            *v = match mode.as_str() {
                "TF" => *v,
                "IDF" => {
                    if *v > 0.0 {
                        w
                    } else {
                        0.0
                    }
                }
                "TFIDF" => *v * w,
                other => {
                    return Err(KernelError::attr(
                        OP,
                        "mode",
                        format!("unknown mode '{other}'"),
                    ))
                }
            };
        }
    }
    let shape = if x.rank() == 1 {
        vec![width]
    } else {
        vec![rows, width]
    };
    one(Tensor::from_f64(DType::F32, shape, out)?)
}

fn deform_conv(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "DeformConv";
    let x = req(n, i, 0)?;
    let w = req(n, i, 1)?;
    let off = req(n, i, 2)?;
    let (xs, ws, os) = (x.shape(), w.shape(), off.shape());
    if xs.len() != 4 || ws.len() != 4 || os.len() != 4 {
        return Err(KernelError::shape(
            OP,
            "only 2-D deformable convolution is supported",
        ));
    }
    let (nb, ic, ih, iw) = (xs[0], xs[1], xs[2], xs[3]);
    let (oc, icg, kh, kw) = (ws[0], ws[1], ws[2], ws[3]);
    let (oh, ow) = (os[2], os[3]);
    let group = n.int_or("group", 1)?.max(1) as usize;
    let og = n.int_or("offset_group", 1)?.max(1) as usize;
    let get = |name: &'static str, d: i64, len: usize| -> KResult<Vec<i64>> {
        Ok(n.opt_ints(name)?
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| vec![d; len]))
    };
    let (dil, pads, st) = (
        get("dilations", 1, 2)?,
        get("pads", 0, 4)?,
        get("strides", 1, 2)?,
    );
    if ic != icg * group
        || oc % group != 0
        || ic % og != 0
        || os[1] != og * kh * kw * 2
        || os[0] != nb
    {
        return Err(KernelError::shape(
            OP,
            format!("X {xs:?}, W {ws:?} and offset {os:?} do not fit"),
        ));
    }
    let (xv, wv, ov) = (float_in(OP, x)?, w.to_f64_vec()?, off.to_f64_vec()?);
    let mv = opt(i, 4).map(|m| m.to_f64_vec()).transpose()?;
    let bv = opt(i, 3).map(|b| b.to_f64_vec()).transpose()?;
    let (ocg, icog) = (oc / group, ic / og);
    let sample = |plane: &[f64], h: f64, w: f64| -> f64 {
        let (h0, w0) = (h.floor(), w.floor());
        let mut acc = 0.0;
        for (dh, wh) in [(0.0, 1.0 - (h - h0)), (1.0, h - h0)] {
            for (dw, ww) in [(0.0, 1.0 - (w - w0)), (1.0, w - w0)] {
                let (y, x) = (h0 + dh, w0 + dw);
                if y >= 0.0 && x >= 0.0 && (y as usize) < ih && (x as usize) < iw {
                    acc += wh * ww * plane[y as usize * iw + x as usize];
                }
            }
        }
        acc
    };
    let mut out = vec![0f64; nb * oc * oh * ow];
    for b in 0..nb {
        for o in 0..oc {
            let g = o / ocg;
            for y in 0..oh {
                for xx in 0..ow {
                    let mut acc = bv.as_ref().map_or(0.0, |bv| bv[o]);
                    for c in g * icg..(g + 1) * icg {
                        let ogi = c / icog;
                        let plane = &xv[(b * ic + c) * ih * iw..(b * ic + c + 1) * ih * iw];
                        for a in 0..kh {
                            for k in 0..kw {
                                let kk = (ogi * kh + a) * kw + k;
                                let at = |ch: usize| ((b * os[1] + ch) * oh + y) * ow + xx;
                                let (dh, dw) = (ov[at(kk * 2)], ov[at(kk * 2 + 1)]);
                                let h =
                                    (y as i64 * st[0] - pads[0] + a as i64 * dil[0]) as f64 + dh;
                                let wc =
                                    (xx as i64 * st[1] - pads[1] + k as i64 * dil[1]) as f64 + dw;
                                let m = mv.as_ref().map_or(1.0, |m| {
                                    m[((b * og * kh * kw + kk) * oh + y) * ow + xx]
                                });
                                acc += wv[((o * icg + (c - g * icg)) * kh + a) * kw + k]
                                    * m
                                    * sample(plane, h, wc);
                            }
                        }
                    }
                    out[((b * oc + o) * oh + y) * ow + xx] = acc;
                }
            }
        }
    }
    one(Tensor::from_f64(x.dtype(), vec![nb, oc, oh, ow], out)?)
}

fn stft(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "STFT";
    let x = req(n, i, 0)?;
    let s = x.shape();
    if s.len() != 3 || !(s[2] == 1 || s[2] == 2) {
        return Err(KernelError::shape(
            OP,
            format!("signal must be [batch, length, 1 or 2], got {s:?}"),
        ));
    }
    let step = req(n, i, 1)?
        .to_i64_vec()?
        .first()
        .copied()
        .unwrap_or(1)
        .max(1) as usize;
    let window = opt(i, 2).map(|w| w.to_f64_vec()).transpose()?;
    let flen = match opt(i, 3) {
        Some(t) if !t.is_empty() => t.to_i64_vec()?[0].max(1) as usize,
        _ => window
            .as_ref()
            .map(Vec::len)
            .ok_or_else(|| KernelError::Arity {
                op: OP,
                msg: "needs a window or a frame_length".into(),
            })?,
    };
    let onesided = n.int_or("onesided", 1)? != 0;
    let (batch, len, comp) = (s[0], s[1], s[2]);
    if flen > len {
        return Err(KernelError::shape(
            OP,
            "frame_length exceeds the signal length",
        ));
    }
    let frames = 1 + (len - flen) / step;
    let bins = if onesided { flen / 2 + 1 } else { flen };
    let xv = float_in(OP, x)?;
    let mut out = vec![0f64; batch * frames * bins * 2];
    for b in 0..batch {
        for f in 0..frames {
            for k in 0..bins {
                let (mut re, mut im) = (0.0, 0.0);
                for t in 0..flen {
                    let at = (b * len + f * step + t) * comp;
                    let wt = window.as_ref().map_or(1.0, |w| w[t]);
                    let (xr, xi) = (xv[at] * wt, if comp == 2 { xv[at + 1] * wt } else { 0.0 });
                    let ang = -2.0 * std::f64::consts::PI * (k * t) as f64 / flen as f64;
                    re += xr * ang.cos() - xi * ang.sin();
                    im += xr * ang.sin() + xi * ang.cos();
                }
                let at = ((b * frames + f) * bins + k) * 2;
                out[at] = re;
                out[at + 1] = im;
            }
        }
    }
    one(Tensor::from_f64(
        x.dtype(),
        vec![batch, frames, bins, 2],
        out,
    )?)
}

fn regex_full_match(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let x = req(n, i, 0)?;
    let v = strings_of("RegexFullMatch", x)?;
    let pattern = n.str_or("pattern", "")?;
    let re = regex::Regex::new(&format!("^(?:{pattern})$"))
        .map_err(|e| KernelError::attr("RegexFullMatch", "pattern", e.to_string()))?;
    let m = v.iter().map(|s| re.is_match(s)).collect();
    one(Tensor::new(DType::Bool, x.shape().to_vec(), Data::Bool(m))?)
}

/// The kernel of an operator implemented here.
pub(super) fn lookup(name: &str) -> Option<TensorKernel> {
    use std::f64::consts::PI;
    Some(match name {
        "Dropout" => dropout,
        "BatchNormalization" => batch_norm_training,
        "NegativeLogLikelihoodLoss" => nll_loss,
        "SoftmaxCrossEntropyLoss" => softmax_ce_loss,
        "LpNormalization" => lp_normalization,
        "LRN" => lrn,
        "Det" => det,
        "Compress" => compress,
        "ReverseSequence" => reverse_sequence,
        "CenterCropPad" => center_crop_pad,
        "HannWindow" => |n, i| window(n, i, |k, d| 0.5 - 0.5 * (2.0 * PI * k / d).cos()),
        "HammingWindow" => |n, i| {
            window(n, i, |k, d| {
                25.0 / 46.0 - 21.0 / 46.0 * (2.0 * PI * k / d).cos()
            })
        },
        "BlackmanWindow" => |n, i| {
            window(n, i, |k, d| {
                0.42 - 0.5 * (2.0 * PI * k / d).cos() + 0.08 * (4.0 * PI * k / d).cos()
            })
        },
        "StringConcat" => string_concat,
        "StringNormalizer" => string_normalizer,
        "StringSplit" => string_split,
        "GridSample" => grid_sample,
        "MeanVarianceNormalization" => mean_variance_normalization,
        "Unique" => unique,
        "MaxUnpool" => max_unpool,
        "Col2Im" => col2im,
        "DFT" => dft,
        "AffineGrid" => affine_grid,
        "RoiAlign" => roi_align,
        "TfIdfVectorizer" => tfidf_vectorizer,
        "DeformConv" => deform_conv,
        "STFT" => stft,
        "RegexFullMatch" => regex_full_match,
        "Scatter" => |n, i| {
            one(index::scatter_elements(
                req(n, i, 0)?,
                req(n, i, 1)?,
                req(n, i, 2)?,
                n.int_or("axis", 0)?,
                ScatterReduction::None,
            )?)
        },
        _ => return None,
    })
}

fn gs_reflect(x: f64, lo: f64, hi: f64) -> f64 {
    let rng = hi - lo;
    if rng <= 0.0 {
        return lo;
    }
    if x < lo {
        let dx = lo - x;
        let n = (dx / rng).floor();
        let r = dx - n * rng;
        if n as i64 % 2 == 0 {
            lo + r
        } else {
            hi - r
        }
    } else if x > hi {
        let dx = x - hi;
        let n = (dx / rng).floor();
        let r = dx - n * rng;
        if n as i64 % 2 == 0 {
            hi - r
        } else {
            lo + r
        }
    } else {
        x
    }
}

fn grid_sample(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    const OP: &str = "GridSample";
    let x = req(n, i, 0)?;
    let grid = req(n, i, 1)?;
    let xs = x.shape();
    let r = xs.len().saturating_sub(2);
    let gs = grid.shape();
    if r == 0 || gs.len() != r + 2 || gs[0] != xs[0] || gs[r + 1] != r {
        return Err(KernelError::shape(
            OP,
            format!("grid {gs:?} does not fit input {xs:?}"),
        ));
    }
    let mode = n.str_or("mode", "linear")?;
    let mode = match mode.as_str() {
        "bilinear" | "linear" => 1,
        "nearest" => 0,
        "bicubic" | "cubic" => 2,
        _ => {
            return Err(KernelError::attr(
                OP,
                "mode",
                format!("unknown mode '{mode}'"),
            ))
        }
    };
    let padding = n.str_or("padding_mode", "zeros")?;
    let align = n.int_or("align_corners", 0)? != 0;
    let (nb, c) = (xs[0], xs[1]);
    let dims = &xs[2..];
    let out_sp: Vec<usize> = gs[1..=r].to_vec();
    let n_out: usize = out_sp.iter().product();
    let in_sp: usize = dims.iter().product();
    let xv = float_in(OP, x)?;
    let gv = grid.to_f64_vec()?;
    let bounds: Vec<(f64, f64)> = dims
        .iter()
        .map(|&d| {
            if align {
                (0.0, d as f64 - 1.0)
            } else {
                (-0.5, d as f64 - 0.5)
            }
        })
        .collect();
    let fetch = |plane: &[f64], idx: &[i64]| -> f64 {
        let mut flat = 0usize;
        for (k, &ix) in idx.iter().enumerate() {
            let d = dims[k] as i64;
            let ix = match padding.as_str() {
                "border" => ix.clamp(0, d - 1),
                "reflection" => {
                    let v = gs_reflect(ix as f64, bounds[k].0, bounds[k].1) as i64;
                    v.clamp(0, d - 1)
                }
                _ => {
                    if ix < 0 || ix >= d {
                        return 0.0;
                    }
                    ix
                }
            };
            flat = flat * dims[k] + ix as usize;
        }
        plane[flat]
    };
    let cubic = |t: f64| -> [f64; 4] {
        let a = -0.75;
        let w = |x: f64| {
            let x = x.abs();
            if x <= 1.0 {
                ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
            } else if x < 2.0 {
                ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
            } else {
                0.0
            }
        };
        [w(t + 1.0), w(t), w(1.0 - t), w(2.0 - t)]
    };
    let mut out = vec![0f64; nb * c * n_out];
    for b in 0..nb {
        for p in 0..n_out {
            let g = &gv[(b * n_out + p) * r..(b * n_out + p + 1) * r];
            // Grid coordinates run (x, y, z): innermost spatial axis first.
            let mut taps: Vec<Vec<(i64, f64)>> = Vec::with_capacity(r);
            for k in 0..r {
                let v = g[r - 1 - k];
                let len = dims[k] as f64;
                let mut xk = if align {
                    (v + 1.0) / 2.0 * (len - 1.0)
                } else {
                    ((v + 1.0) * len - 1.0) / 2.0
                };
                match padding.as_str() {
                    "border" => xk = xk.clamp(0.0, len - 1.0),
                    "reflection" => xk = gs_reflect(xk, bounds[k].0, bounds[k].1),
                    _ => {}
                }
                taps.push(match mode {
                    0 => vec![(nart_tensor::smallfloat::round_half_even(xk) as i64, 1.0)],
                    1 => {
                        let f = xk.floor();
                        vec![(f as i64, 1.0 - (xk - f)), (f as i64 + 1, xk - f)]
                    }
                    _ => {
                        let f = xk.floor();
                        let w = cubic(xk - f);
                        (0..4).map(|m| (f as i64 - 1 + m as i64, w[m])).collect()
                    }
                });
            }
            for ch in 0..c {
                let plane = &xv[(b * c + ch) * in_sp..(b * c + ch + 1) * in_sp];
                let mut acc = 0.0;
                let mut which = vec![0usize; r];
                let mut idx = vec![0i64; r];
                'outer: loop {
                    let mut w = 1.0;
                    for k in 0..r {
                        let (ix, wk) = taps[k][which[k]];
                        idx[k] = ix;
                        w *= wk;
                    }
                    if w != 0.0 {
                        acc += w * fetch(plane, &idx);
                    }
                    for k in (0..r).rev() {
                        which[k] += 1;
                        if which[k] < taps[k].len() {
                            continue 'outer;
                        }
                        which[k] = 0;
                    }
                    break;
                }
                out[(b * c + ch) * n_out + p] = acc;
            }
        }
    }
    let mut shape = vec![nb, c];
    shape.extend(out_sp);
    one(Tensor::from_f64(x.dtype(), shape, out)?)
}

fn mean_variance_normalization(n: &Node, i: &[Option<&Tensor>]) -> KResult<Vec<Tensor>> {
    let axes = n.opt_ints("axes")?.unwrap_or_else(|| vec![0, 2, 3]);
    one(nart_tensor::norm::mean_variance_norm(req(n, i, 0)?, &axes)?)
}
