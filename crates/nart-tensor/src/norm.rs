//! Normalizations and softmax: BatchNormalization (inference and training mode),
//! LayerNormalization, InstanceNormalization, GroupNormalization, RMSNormalization, LRN,
//! LpNormalization, MeanVarianceNormalization, Softmax, LogSoftmax, Hardmax (opset 13+ axis
//! semantics).

use crate::layout::{broadcast_index, broadcast_shapes, norm_axis, outer_axis_inner};
use crate::tensor::numel;
use crate::{KernelError, Result, Tensor};

fn float_check(op: &'static str, x: &Tensor) -> Result<()> {
    if x.dtype().is_float() {
        Ok(())
    } else {
        Err(KernelError::dtype(op, x.dtype()))
    }
}

fn per_channel(op: &'static str, name: &str, t: &Tensor, c: usize) -> Result<Vec<f64>> {
    if t.len() != c {
        return Err(KernelError::shape(
            op,
            format!("{name} has {} entries, expected {c}", t.len()),
        ));
    }
    t.to_f64_vec()
}

/// ONNX BatchNormalization in inference mode: `(x - mean) / sqrt(var + epsilon) * scale + bias` over axis 1.
pub fn batch_norm(
    x: &Tensor,
    scale: &Tensor,
    bias: &Tensor,
    mean: &Tensor,
    var: &Tensor,
    epsilon: f32,
) -> Result<Tensor> {
    const OP: &str = "BatchNormalization";
    float_check(OP, x)?;
    let s = x.shape();
    if s.len() < 2 {
        return Err(KernelError::shape(OP, "input must have rank >= 2"));
    }
    let c = s[1];
    let inner = numel(&s[2..]);
    let (sc, b, m, v) = (
        per_channel(OP, "scale", scale, c)?,
        per_channel(OP, "B", bias, c)?,
        per_channel(OP, "mean", mean, c)?,
        per_channel(OP, "var", var, c)?,
    );
    let eps = epsilon as f64;
    let mul: Vec<f64> = (0..c).map(|i| sc[i] / (v[i] + eps).sqrt()).collect();
    let mut out = x.to_f64_vec()?;
    for (i, a) in out.iter_mut().enumerate() {
        let ch = (i / inner.max(1)) % c;
        *a = (*a - m[ch]) * mul[ch] + b[ch];
    }
    Tensor::from_f64(x.dtype(), s.to_vec(), out)
}

/// Result of [`batch_norm_training`]: the output and the updated running statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchNormTrainingOutput {
    /// Normalized output, with the batch's own mean and variance.
    pub y: Tensor,
    /// `input_mean * momentum + batch_mean * (1 - momentum)`, of `input_mean`'s type.
    pub running_mean: Tensor,
    /// `input_var * momentum + batch_var * (1 - momentum)`, of `input_var`'s type.
    pub running_var: Tensor,
}

/// ONNX BatchNormalization in training mode: normalizes over every axis but 1 with the batch's
/// mean and (biased) variance, and updates the running statistics with `momentum`.
pub fn batch_norm_training(
    x: &Tensor,
    scale: &Tensor,
    bias: &Tensor,
    input_mean: &Tensor,
    input_var: &Tensor,
    epsilon: f32,
    momentum: f32,
) -> Result<BatchNormTrainingOutput> {
    const OP: &str = "BatchNormalization";
    float_check(OP, x)?;
    let s = x.shape();
    if s.len() < 2 {
        return Err(KernelError::shape(OP, "input must have rank >= 2"));
    }
    let (batch, c, inner) = (s[0], s[1], numel(&s[2..]));
    let (sc, b, rmean, rvar) = (
        per_channel(OP, "scale", scale, c)?,
        per_channel(OP, "B", bias, c)?,
        per_channel(OP, "input_mean", input_mean, c)?,
        per_channel(OP, "input_var", input_var, c)?,
    );
    let (eps, momentum) = (epsilon as f64, momentum as f64);
    let xv = x.to_f64_vec()?;
    let count = (batch * inner).max(1) as f64;
    let mut y = vec![0f64; xv.len()];
    let (mut new_mean, mut new_var) = (vec![0f64; c], vec![0f64; c]);
    for ch in 0..c {
        let at = |bi: usize, k: usize| (bi * c + ch) * inner + k;
        let points = || (0..batch).flat_map(|bi| (0..inner).map(move |k| at(bi, k)));
        let mean = points().map(|p| xv[p]).sum::<f64>() / count;
        let var = points().map(|p| (xv[p] - mean).powi(2)).sum::<f64>() / count;
        let inv = 1.0 / (var + eps).sqrt();
        for p in points() {
            y[p] = (xv[p] - mean) * inv * sc[ch] + b[ch];
        }
        new_mean[ch] = rmean[ch] * momentum + mean * (1.0 - momentum);
        new_var[ch] = rvar[ch] * momentum + var * (1.0 - momentum);
    }
    Ok(BatchNormTrainingOutput {
        y: Tensor::from_f64(x.dtype(), s.to_vec(), y)?,
        running_mean: Tensor::from_f64(input_mean.dtype(), vec![c], new_mean)?,
        running_var: Tensor::from_f64(input_var.dtype(), vec![c], new_var)?,
    })
}

/// Normalizes each row of `rows x len` values in place, returning the means and inverse standard deviations.
fn normalize_rows(v: &mut [f64], len: usize, eps: f64) -> (Vec<f64>, Vec<f64>) {
    let mut means = vec![];
    let mut invs = vec![];
    if len == 0 {
        return (means, invs);
    }
    for row in v.chunks_mut(len) {
        let mean = row.iter().sum::<f64>() / len as f64;
        let var = row.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / len as f64;
        let inv = 1.0 / (var + eps).sqrt();
        row.iter_mut().for_each(|a| *a = (*a - mean) * inv);
        means.push(mean);
        invs.push(inv);
    }
    (means, invs)
}

/// Result of [`layer_norm`]: the output and the saved statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerNormOutput {
    /// Normalized output.
    pub y: Tensor,
    /// Mean over the normalized axes (shape of x with those axes set to 1).
    pub mean: Tensor,
    /// 1 / sqrt(var + epsilon), same shape as `mean`.
    pub inv_std_dev: Tensor,
}

/// ONNX LayerNormalization over axes `axis..rank`, with `scale` and optional `bias` broadcast to those axes.
pub fn layer_norm(
    x: &Tensor,
    scale: &Tensor,
    bias: Option<&Tensor>,
    axis: i64,
    epsilon: f32,
) -> Result<LayerNormOutput> {
    const OP: &str = "LayerNormalization";
    float_check(OP, x)?;
    let s = x.shape();
    let ax = norm_axis(OP, axis, s.len())?;
    let norm_shape = &s[ax..];
    let len = numel(norm_shape);
    let mut v = x.to_f64_vec()?;
    let (means, invs) = normalize_rows(&mut v, len, epsilon as f64);
    let sc_idx = unidirectional(OP, norm_shape, scale.shape())?;
    let sc = scale.to_f64_vec()?;
    let bi = match bias {
        Some(b) => Some((unidirectional(OP, norm_shape, b.shape())?, b.to_f64_vec()?)),
        None => None,
    };
    for (i, a) in v.iter_mut().enumerate() {
        let j = i % len.max(1);
        *a *= sc[sc_idx[j]];
        if let Some((bidx, bv)) = &bi {
            *a += bv[bidx[j]];
        }
    }
    let mut stat_shape = s[..ax].to_vec();
    stat_shape.extend(std::iter::repeat_n(1, s.len() - ax));
    Ok(LayerNormOutput {
        y: Tensor::from_f64(x.dtype(), s.to_vec(), v)?,
        mean: Tensor::from_f64(crate::DType::F32, stat_shape.clone(), means)?,
        inv_std_dev: Tensor::from_f64(crate::DType::F32, stat_shape, invs)?,
    })
}

/// Index map for broadcasting `small` to exactly `target`.
fn unidirectional(op: &'static str, target: &[usize], small: &[usize]) -> Result<Vec<usize>> {
    let b = broadcast_shapes(op, target, small)?;
    if b != target {
        return Err(KernelError::shape(
            op,
            format!("{small:?} does not broadcast to {target:?}"),
        ));
    }
    Ok(broadcast_index(target, small))
}

/// ONNX InstanceNormalization: per (batch, channel) over the spatial axes.
pub fn instance_norm(x: &Tensor, scale: &Tensor, bias: &Tensor, epsilon: f32) -> Result<Tensor> {
    const OP: &str = "InstanceNormalization";
    float_check(OP, x)?;
    let s = x.shape();
    if s.len() < 3 {
        return Err(KernelError::shape(OP, "input must have rank >= 3"));
    }
    let c = s[1];
    let (sc, b) = (
        per_channel(OP, "scale", scale, c)?,
        per_channel(OP, "B", bias, c)?,
    );
    let len = numel(&s[2..]);
    let mut v = x.to_f64_vec()?;
    normalize_rows(&mut v, len, epsilon as f64);
    for (i, a) in v.iter_mut().enumerate() {
        let ch = (i / len.max(1)) % c;
        *a = *a * sc[ch] + b[ch];
    }
    Tensor::from_f64(x.dtype(), s.to_vec(), v)
}

/// ONNX GroupNormalization (opset 21: per-channel `scale` and `bias`).
pub fn group_norm(
    x: &Tensor,
    scale: &Tensor,
    bias: &Tensor,
    num_groups: usize,
    epsilon: f32,
) -> Result<Tensor> {
    const OP: &str = "GroupNormalization";
    float_check(OP, x)?;
    let s = x.shape();
    if s.len() < 3 {
        return Err(KernelError::shape(OP, "input must have rank >= 3"));
    }
    let c = s[1];
    if num_groups == 0 || !c.is_multiple_of(num_groups) {
        return Err(KernelError::attr(
            OP,
            "num_groups",
            format!("{num_groups} does not divide {c} channels"),
        ));
    }
    let (sc, b) = (
        per_channel(OP, "scale", scale, c)?,
        per_channel(OP, "bias", bias, c)?,
    );
    let spatial = numel(&s[2..]);
    let len = c / num_groups * spatial;
    let mut v = x.to_f64_vec()?;
    normalize_rows(&mut v, len, epsilon as f64);
    for (i, a) in v.iter_mut().enumerate() {
        let ch = (i / spatial.max(1)) % c;
        *a = *a * sc[ch] + b[ch];
    }
    Tensor::from_f64(x.dtype(), s.to_vec(), v)
}

/// ONNX RMSNormalization (opset 23): `x / sqrt(mean(x^2) + epsilon) * scale` over axes `axis..rank`.
pub fn rms_norm(x: &Tensor, scale: &Tensor, axis: i64, epsilon: f32) -> Result<Tensor> {
    const OP: &str = "RMSNormalization";
    float_check(OP, x)?;
    let s = x.shape();
    let ax = norm_axis(OP, axis, s.len())?;
    let norm_shape = &s[ax..];
    let len = numel(norm_shape);
    let sc_idx = unidirectional(OP, norm_shape, scale.shape())?;
    let sc = scale.to_f64_vec()?;
    let mut v = x.to_f64_vec()?;
    if len > 0 {
        for row in v.chunks_mut(len) {
            let ms = row.iter().map(|a| a * a).sum::<f64>() / len as f64;
            let inv = 1.0 / (ms + epsilon as f64).sqrt();
            row.iter_mut()
                .enumerate()
                .for_each(|(j, a)| *a *= inv * sc[sc_idx[j]]);
        }
    }
    Tensor::from_f64(x.dtype(), s.to_vec(), v)
}

/// ONNX LRN: local response normalization across channels.
pub fn lrn(x: &Tensor, size: usize, alpha: f32, beta: f32, bias: f32) -> Result<Tensor> {
    const OP: &str = "LRN";
    float_check(OP, x)?;
    let s = x.shape();
    if s.len() < 2 || size == 0 {
        return Err(KernelError::shape(
            OP,
            "input must have rank >= 2 and size > 0",
        ));
    }
    let (n, c, inner) = (s[0], s[1], numel(&s[2..]));
    let v = x.to_f64_vec()?;
    let (lo, hi) = ((size - 1) / 2, (size - 1).div_ceil(2));
    let mut out = vec![0f64; v.len()];
    for b in 0..n {
        for ch in 0..c {
            let first = ch.saturating_sub(lo);
            let last = (ch + hi).min(c - 1);
            for i in 0..inner {
                let sq: f64 = (first..=last)
                    .map(|k| v[(b * c + k) * inner + i].powi(2))
                    .sum();
                let p = (b * c + ch) * inner + i;
                out[p] = v[p] / (bias as f64 + alpha as f64 / size as f64 * sq).powf(beta as f64);
            }
        }
    }
    Tensor::from_f64(x.dtype(), s.to_vec(), out)
}

/// ONNX LpNormalization: divides by the L1 or L2 norm along `axis` (zero norms leave zeros).
pub fn lp_norm(x: &Tensor, axis: i64, p: i64) -> Result<Tensor> {
    if p != 1 && p != 2 {
        return Err(KernelError::attr(
            "LpNormalization",
            "p",
            format!("{p} is not 1 or 2"),
        ));
    }
    along_axis("LpNormalization", x, axis, |r| {
        let n = if p == 1 {
            r.iter().map(|a| a.abs()).sum::<f64>()
        } else {
            r.iter().map(|a| a * a).sum::<f64>().sqrt()
        };
        if n != 0.0 {
            r.iter_mut().for_each(|a| *a /= n);
        }
    })
}

/// ONNX MeanVarianceNormalization: `(x - mean) / sqrt(var)` over `axes` (default `[0, 2, 3]`).
pub fn mean_variance_norm(x: &Tensor, axes: &[i64]) -> Result<Tensor> {
    use crate::reduce::{reduce, ReduceAttrs, ReduceOp};
    const OP: &str = "MeanVarianceNormalization";
    float_check(OP, x)?;
    let attrs = ReduceAttrs {
        axes: Some(axes.to_vec()),
        keepdims: true,
        noop_with_empty_axes: false,
    };
    let mean = reduce(ReduceOp::Mean, x, &attrs)?;
    let v = x.to_f64_vec()?;
    let mv = mean.to_f64_vec()?;
    let idx = broadcast_index(x.shape(), mean.shape());
    let sq: Vec<f64> = v
        .iter()
        .zip(&idx)
        .map(|(a, &i)| (a - mv[i]) * (a - mv[i]))
        .collect();
    let var = reduce(
        ReduceOp::Mean,
        &Tensor::from_f64(crate::DType::F64, x.shape().to_vec(), sq)?,
        &attrs,
    )?;
    let vv = var.to_f64_vec()?;
    // The reference adds 1e-9 to the standard deviation.
    let out = v
        .iter()
        .zip(&idx)
        .map(|(a, &i)| (a - mv[i]) / (vv[i].sqrt() + 1e-9))
        .collect();
    Tensor::from_f64(x.dtype(), x.shape().to_vec(), out)
}

fn along_axis(op: &'static str, x: &Tensor, axis: i64, f: impl Fn(&mut [f64])) -> Result<Tensor> {
    float_check(op, x)?;
    let s = x.shape();
    if s.is_empty() {
        return Err(KernelError::shape(op, "input must have rank >= 1"));
    }
    let ax = norm_axis(op, axis, s.len())?;
    let (outer, n, inner) = outer_axis_inner(s, ax);
    let mut v = x.to_f64_vec()?;
    let mut buf = vec![0f64; n];
    for o in 0..outer {
        for i in 0..inner {
            for k in 0..n {
                buf[k] = v[(o * n + k) * inner + i];
            }
            f(&mut buf);
            for k in 0..n {
                v[(o * n + k) * inner + i] = buf[k];
            }
        }
    }
    Tensor::from_f64(x.dtype(), s.to_vec(), v)
}

/// ONNX Softmax along one axis (opset 13+).
pub fn softmax(x: &Tensor, axis: i64) -> Result<Tensor> {
    along_axis("Softmax", x, axis, |r| {
        let m = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut s = 0.0;
        r.iter_mut().for_each(|a| {
            *a = (*a - m).exp();
            s += *a;
        });
        r.iter_mut().for_each(|a| *a /= s);
    })
}

/// ONNX LogSoftmax along one axis (opset 13+).
pub fn log_softmax(x: &Tensor, axis: i64) -> Result<Tensor> {
    along_axis("LogSoftmax", x, axis, |r| {
        let m = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = r.iter().map(|a| (a - m).exp()).sum();
        let l = s.ln();
        r.iter_mut().for_each(|a| *a = *a - m - l);
    })
}

/// ONNX Hardmax along one axis (opset 13+): 1 at the first maximum, 0 elsewhere.
pub fn hardmax(x: &Tensor, axis: i64) -> Result<Tensor> {
    along_axis("Hardmax", x, axis, |r| {
        let mut best = 0;
        for (k, &a) in r.iter().enumerate() {
            if a > r[best] {
                best = k;
            }
        }
        r.iter_mut()
            .enumerate()
            .for_each(|(k, a)| *a = if k == best { 1.0 } else { 0.0 });
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{close, f};

    #[test]
    fn batch_norm_example() {
        // ONNX batchnorm doc: x = [[[[-1, 0, 1]], [[2, 3, 4]]]], s = [1.0, 1.5], bias = [0, 1],
        // mean = [0, 3], var = [1, 1.5] -> [[[[-0.999995, 0, 0.999995]], [[-0.22474074, 1, 2.2247407]]]]
        let x = f(&[1, 2, 1, 3], vec![-1., 0., 1., 2., 3., 4.]);
        let y = batch_norm(
            &x,
            &f(&[2], vec![1., 1.5]),
            &f(&[2], vec![0., 1.]),
            &f(&[2], vec![0., 3.]),
            &f(&[2], vec![1., 1.5]),
            1e-5,
        )
        .unwrap();
        close(
            y.as_f32().unwrap(),
            &[-0.999995, 0., 0.999995, -0.22474074, 1., 2.2247407],
            1e-5,
        );
        assert!(batch_norm(
            &x,
            &f(&[3], vec![1.; 3]),
            &f(&[2], vec![0.; 2]),
            &f(&[2], vec![0.; 2]),
            &f(&[2], vec![1.; 2]),
            1e-5
        )
        .is_err());
    }

    #[test]
    fn layer_instance_group() {
        let x = f(&[2, 3], vec![1., 2., 3., 2., 4., 6.]);
        let out = layer_norm(
            &x,
            &f(&[3], vec![1., 1., 2.]),
            Some(&f(&[1], vec![0.5])),
            -1,
            0.0,
        )
        .unwrap();
        // Row [1,2,3]: mean 2, var 2/3 -> [-1.2247449, 0, 1.2247449] * [1,1,2] + 0.5
        close(
            out.y.as_f32().unwrap(),
            &[-0.7247449, 0.5, 2.9494898, -0.7247449, 0.5, 2.9494898],
            1e-5,
        );
        close(out.mean.as_f32().unwrap(), &[2., 4.], 1e-5);
        assert_eq!(out.mean.shape(), &[2, 1]);
        let x = f(&[1, 2, 2], vec![1., 3., 10., 20.]);
        let y = instance_norm(&x, &f(&[2], vec![1., 2.]), &f(&[2], vec![0., 1.]), 0.0).unwrap();
        close(y.as_f32().unwrap(), &[-1., 1., -1., 3.], 1e-5);
        let x = f(&[1, 4, 1], vec![1., 3., 10., 20.]);
        let y = group_norm(&x, &f(&[4], vec![1.; 4]), &f(&[4], vec![0.; 4]), 2, 0.0).unwrap();
        close(y.as_f32().unwrap(), &[-1., 1., -1., 1.], 1e-5);
        assert!(group_norm(&x, &f(&[4], vec![1.; 4]), &f(&[4], vec![0.; 4]), 3, 0.0).is_err());
        // RMS of [3, 4] is sqrt(12.5): [3, 4] / 3.5355339 * [1, 2] = [0.8485281, 2.2627417]
        let y = rms_norm(&f(&[1, 2], vec![3., 4.]), &f(&[2], vec![1., 2.]), -1, 0.0).unwrap();
        close(y.as_f32().unwrap(), &[0.8485281, 2.2627417], 1e-5);
        // LRN size 3, alpha 3, beta 1, bias 1 on channels [1, 2]: c0: 1 / (1 + (1 + 4)) = 1/6, c1: 2 / 6
        let y = lrn(&f(&[1, 2, 1], vec![1., 2.]), 3, 3.0, 1.0, 1.0).unwrap();
        close(y.as_f32().unwrap(), &[1. / 6., 2. / 6.], 1e-5);
    }

    #[test]
    fn softmax_family() {
        let x = f(&[2, 3], vec![1., 2., 3., 0., 0., 0.]);
        // scipy.special.softmax([1,2,3]) = [0.09003057, 0.24472847, 0.66524096]
        let y = softmax(&x, -1).unwrap();
        close(
            y.as_f32().unwrap(),
            &[
                0.09003057,
                0.24472847,
                0.66524096,
                1. / 3.,
                1. / 3.,
                1. / 3.,
            ],
            1e-5,
        );
        let y = softmax(&x, 0).unwrap();
        // column 0: softmax([1, 0]) = [0.7310586, 0.2689414]
        close(
            &[y.as_f32().unwrap()[0], y.as_f32().unwrap()[3]],
            &[0.7310586, 0.2689414],
            1e-5,
        );
        let y = log_softmax(&x, 1).unwrap();
        close(
            &y.as_f32().unwrap()[..3],
            &[-2.407606, -1.4076059, -0.4076059],
            1e-5,
        );
        let y = lp_norm(&f(&[2, 2], vec![3., 4., 0., 0.]), -1, 2).unwrap();
        close(y.as_f32().unwrap(), &[0.6, 0.8, 0., 0.], 1e-5);
        let y = lp_norm(&f(&[2], vec![1., -3.]), 0, 1).unwrap();
        close(y.as_f32().unwrap(), &[0.25, -0.75], 1e-5);
        let y = mean_variance_norm(&f(&[1, 1, 1, 2], vec![1., 3.]), &[0, 2, 3]).unwrap();
        close(y.as_f32().unwrap(), &[-1., 1.], 1e-5);
        let y = hardmax(&f(&[4], vec![1., 3., 3., 0.]), 0).unwrap();
        assert_eq!(y.as_f32().unwrap(), &[0., 1., 0., 0.]);
        assert!(softmax(&x, 2).is_err());
    }
}
