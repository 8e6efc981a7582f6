//! Pooling: MaxPool (with indices), AveragePool, LpPool, GlobalAveragePool, GlobalMaxPool, GlobalLpPool.

use crate::conv::{geometry, AutoPad, Geom};
use crate::layout::{strides, unravel};
use crate::tensor::numel;
use crate::{KernelError, Result, Tensor};

/// Attributes shared by the windowed pools; empty vectors mean the ONNX defaults.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PoolAttrs {
    /// Padding mode.
    pub auto_pad: AutoPad,
    /// Use ceil instead of floor for the output size.
    pub ceil_mode: bool,
    /// Dilation per spatial axis (default 1).
    pub dilations: Vec<usize>,
    /// Window shape (required).
    pub kernel_shape: Vec<usize>,
    /// Begin pads then end pads (default 0).
    pub pads: Vec<usize>,
    /// Stride per spatial axis (default 1).
    pub strides: Vec<usize>,
    /// AveragePool: count padding in the divisor.
    pub count_include_pad: bool,
    /// MaxPool: column-major spatial indices when true.
    pub storage_order_col_major: bool,
    /// LpPool: the norm order (default 2).
    pub p: i64,
}

fn setup(op: &'static str, x: &Tensor, a: &PoolAttrs) -> Result<(usize, usize, Geom)> {
    let s = x.shape();
    if s.len() < 3 {
        return Err(KernelError::shape(
            op,
            format!("input {s:?} must have rank >= 3"),
        ));
    }
    if !(x.dtype().is_float() || (op == "MaxPool" && x.dtype().is_int())) {
        return Err(KernelError::dtype(op, x.dtype()));
    }
    if a.kernel_shape.is_empty() {
        return Err(KernelError::attr(op, "kernel_shape", "is required"));
    }
    let g = geometry(
        op,
        &s[2..],
        &a.kernel_shape,
        &a.strides,
        &a.dilations,
        &a.pads,
        a.auto_pad,
        a.ceil_mode,
    )?;
    Ok((s[0], s[1], g))
}

/// Visits every window: `f(plane, out_pos, inputs)` with the in-bounds input offsets (within the plane)
/// and the number of window positions inside the padded extent.
fn windows(g: &Geom, mut f: impl FnMut(usize, &[usize], usize)) {
    let nd = g.input.len();
    let osz = numel(&g.out);
    let ksz = numel(&g.kernel);
    let ist = strides(&g.input);
    let mut oidx = vec![0; nd];
    let mut kidx = vec![0; nd];
    let mut offs = Vec::with_capacity(ksz);
    for o in 0..osz {
        unravel(o, &g.out, &mut oidx);
        offs.clear();
        let mut padded_count = 0;
        for k in 0..ksz {
            unravel(k, &g.kernel, &mut kidx);
            let mut off = 0;
            let mut inside = true;
            let mut in_padded = true;
            for d in 0..nd {
                let i = (oidx[d] * g.strides[d] + kidx[d] * g.dilations[d]) as isize
                    - g.pad_begin[d] as isize;
                if i < 0 || i >= g.input[d] as isize {
                    inside = false;
                }
                if i >= (g.input[d] + g.pad_end[d]) as isize {
                    in_padded = false;
                }
                if inside {
                    off += i as usize * ist[d];
                }
            }
            if in_padded {
                padded_count += 1;
            }
            if inside {
                offs.push(off);
            }
        }
        f(o, &offs, padded_count);
    }
}

fn out_shape(n: usize, c: usize, g: &Geom) -> Vec<usize> {
    let mut s = vec![n, c];
    s.extend(&g.out);
    s
}

/// ONNX MaxPool; returns the values and the int64 flat indices (including batch and channel offsets).
pub fn max_pool(x: &Tensor, attrs: &PoolAttrs) -> Result<(Tensor, Tensor)> {
    let (n, c, g) = setup("MaxPool", x, attrs)?;
    let isz = numel(&g.input);
    let osz = numel(&g.out);
    let v = x.to_f64_vec()?;
    let mut vals = vec![0f64; n * c * osz];
    let mut idx = vec![0i64; n * c * osz];
    let nd = g.input.len();
    let mut pidx = vec![0; nd];
    for plane in 0..n * c {
        let base = plane * isz;
        windows(&g, |o, offs, _| {
            let mut best = f64::NEG_INFINITY;
            let mut bi = offs.first().copied().unwrap_or(0);
            for &off in offs {
                let a = v[base + off];
                if a > best {
                    best = a;
                    bi = off;
                }
            }
            vals[plane * osz + o] = best;
            let flat = if attrs.storage_order_col_major {
                unravel(bi, &g.input, &mut pidx);
                let mut f = 0;
                for d in (0..nd).rev() {
                    f = f * g.input[d] + pidx[d];
                }
                f
            } else {
                bi
            };
            idx[plane * osz + o] = (base + flat) as i64;
        });
    }
    let shape = out_shape(n, c, &g);
    let y = if x.dtype().is_int() {
        Tensor::from_i128(
            x.dtype(),
            shape.clone(),
            vals.iter().map(|&a| a as i128).collect(),
        )?
    } else {
        Tensor::from_f64(x.dtype(), shape.clone(), vals)?
    };
    Ok((y, Tensor::from_vec(shape, idx)?))
}

/// ONNX AveragePool.
pub fn average_pool(x: &Tensor, attrs: &PoolAttrs) -> Result<Tensor> {
    let (n, c, g) = setup("AveragePool", x, attrs)?;
    let isz = numel(&g.input);
    let osz = numel(&g.out);
    let v = x.to_f64_vec()?;
    let mut out = vec![0f64; n * c * osz];
    for plane in 0..n * c {
        let base = plane * isz;
        windows(&g, |o, offs, padded| {
            let s: f64 = offs.iter().map(|&off| v[base + off]).sum();
            let cnt = if attrs.count_include_pad {
                padded
            } else {
                offs.len()
            };
            out[plane * osz + o] = if cnt == 0 { 0.0 } else { s / cnt as f64 };
        });
    }
    Tensor::from_f64(x.dtype(), out_shape(n, c, &g), out)
}

/// ONNX LpPool.
pub fn lp_pool(x: &Tensor, attrs: &PoolAttrs) -> Result<Tensor> {
    let (n, c, g) = setup("LpPool", x, attrs)?;
    let p = if attrs.p == 0 { 2.0 } else { attrs.p as f64 };
    let isz = numel(&g.input);
    let osz = numel(&g.out);
    let v = x.to_f64_vec()?;
    let mut out = vec![0f64; n * c * osz];
    for plane in 0..n * c {
        let base = plane * isz;
        windows(&g, |o, offs, _| {
            let s: f64 = offs.iter().map(|&off| v[base + off].abs().powf(p)).sum();
            out[plane * osz + o] = s.powf(1.0 / p);
        });
    }
    Tensor::from_f64(x.dtype(), out_shape(n, c, &g), out)
}

fn global(op: &'static str, x: &Tensor, f: impl Fn(&[f64]) -> f64) -> Result<Tensor> {
    let s = x.shape();
    if s.len() < 2 {
        return Err(KernelError::shape(
            op,
            format!("input {s:?} must have rank >= 2"),
        ));
    }
    if !x.dtype().is_float() {
        return Err(KernelError::dtype(op, x.dtype()));
    }
    let plane = numel(&s[2..]);
    let v = x.to_f64_vec()?;
    let out: Vec<f64> = if plane == 0 {
        vec![f(&[]); s[0] * s[1]]
    } else {
        v.chunks(plane).map(&f).collect()
    };
    let mut shape = s[..2].to_vec();
    shape.extend(std::iter::repeat_n(1, s.len() - 2));
    Tensor::from_f64(x.dtype(), shape, out)
}

/// ONNX GlobalAveragePool.
pub fn global_average_pool(x: &Tensor) -> Result<Tensor> {
    global("GlobalAveragePool", x, |c| {
        c.iter().sum::<f64>() / c.len() as f64
    })
}

/// ONNX GlobalMaxPool.
pub fn global_max_pool(x: &Tensor) -> Result<Tensor> {
    global("GlobalMaxPool", x, |c| {
        c.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    })
}

/// ONNX GlobalLpPool.
pub fn global_lp_pool(x: &Tensor, p: i64) -> Result<Tensor> {
    let p = p as f64;
    global("GlobalLpPool", x, |c| {
        c.iter().map(|a| a.abs().powf(p)).sum::<f64>().powf(1.0 / p)
    })
}

/// Attributes of RoiAlign.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoiAlignAttrs {
    /// `half_pixel` (default since opset 16) shifts the ROI by -0.5; false is `output_half_pixel`.
    pub half_pixel: bool,
    /// Max instead of average pooling (with the ONNX reference's per-corner maximum).
    pub max_mode: bool,
    /// Output height (default 1).
    pub output_height: usize,
    /// Output width (default 1).
    pub output_width: usize,
    /// Samples per bin along each axis; 0 picks `ceil(roi size / output size)`.
    pub sampling_ratio: usize,
    /// Scale from ROI coordinates to input coordinates (default 1).
    pub spatial_scale: f32,
}

impl Default for RoiAlignAttrs {
    fn default() -> Self {
        RoiAlignAttrs {
            half_pixel: true,
            max_mode: false,
            output_height: 1,
            output_width: 1,
            sampling_ratio: 0,
            spatial_scale: 1.0,
        }
    }
}

/// ONNX RoiAlign: `x [N, C, H, W]`, `rois [R, 4]` as (x1, y1, x2, y2), `batch_indices [R]` -> `[R, C, oh, ow]`.
pub fn roi_align(
    x: &Tensor,
    rois: &Tensor,
    batch_indices: &Tensor,
    a: &RoiAlignAttrs,
) -> Result<Tensor> {
    const OP: &str = "RoiAlign";
    let s = x.shape();
    if s.len() != 4
        || rois.rank() != 2
        || rois.shape()[1] != 4
        || batch_indices.len() != rois.shape()[0]
    {
        return Err(KernelError::shape(
            OP,
            format!(
                "x {s:?}, rois {:?}, batch_indices {:?}",
                rois.shape(),
                batch_indices.shape()
            ),
        ));
    }
    if !x.dtype().is_float() {
        return Err(KernelError::dtype(OP, x.dtype()));
    }
    let (n, c, h, w) = (s[0], s[1], s[2], s[3]);
    if h == 0 || w == 0 {
        return Err(KernelError::shape(
            OP,
            "input must have a non-empty spatial extent",
        ));
    }
    let (oh, ow) = (a.output_height, a.output_width);
    if oh == 0 || ow == 0 {
        return Err(KernelError::attr(
            OP,
            "output_height",
            "output size must be positive",
        ));
    }
    let v = x.to_f64_vec()?;
    let r = rois.to_f64_vec()?;
    let bi = batch_indices.to_i64_vec()?;
    let nr = rois.shape()[0];
    let mut out = vec![0f64; nr * c * oh * ow];
    let off = if a.half_pixel { 0.5 } else { 0.0 };
    let sc = a.spatial_scale as f64;
    for k in 0..nr {
        let b = bi[k];
        if b < 0 || b as usize >= n {
            return Err(KernelError::IndexOutOfRange {
                op: OP,
                index: b,
                size: n,
            });
        }
        let b = b as usize;
        let (sw, sh) = (r[4 * k] * sc - off, r[4 * k + 1] * sc - off);
        let (ew, eh) = (r[4 * k + 2] * sc - off, r[4 * k + 3] * sc - off);
        let (mut rw, mut rh) = (ew - sw, eh - sh);
        if !a.half_pixel {
            rw = rw.max(1.0);
            rh = rh.max(1.0);
        }
        let (bh, bw) = (rh / oh as f64, rw / ow as f64);
        let gh = if a.sampling_ratio > 0 {
            a.sampling_ratio
        } else {
            (rh / oh as f64).ceil().max(0.0) as usize
        };
        let gw = if a.sampling_ratio > 0 {
            a.sampling_ratio
        } else {
            (rw / ow as f64).ceil().max(0.0) as usize
        };
        let count = (gh * gw).max(1) as f64;
        // Bilinear taps (4 positions and weights) for every sample of every bin.
        let mut taps: Vec<[(usize, f64); 4]> = Vec::with_capacity(oh * ow * gh * gw);
        for ph in 0..oh {
            for pw in 0..ow {
                for iy in 0..gh {
                    let mut y = sh + ph as f64 * bh + (iy as f64 + 0.5) * bh / gh as f64;
                    for ix in 0..gw {
                        let mut xx = sw + pw as f64 * bw + (ix as f64 + 0.5) * bw / gw as f64;
                        let yy0 = y;
                        if y < -1.0 || y > h as f64 || xx < -1.0 || xx > w as f64 {
                            taps.push([(0, 0.0); 4]);
                            continue;
                        }
                        y = y.max(0.0);
                        xx = xx.max(0.0);
                        let (mut yl, mut xl) = (y as usize, xx as usize);
                        let (yh, xh);
                        if yl >= h - 1 {
                            yl = h - 1;
                            yh = yl;
                            y = yl as f64;
                        } else {
                            yh = yl + 1;
                        }
                        if xl >= w - 1 {
                            xl = w - 1;
                            xh = xl;
                            xx = xl as f64;
                        } else {
                            xh = xl + 1;
                        }
                        let (ly, lx) = (y - yl as f64, xx - xl as f64);
                        let (hy, hx) = (1.0 - ly, 1.0 - lx);
                        taps.push([
                            (yl * w + xl, hy * hx),
                            (yl * w + xh, hy * lx),
                            (yh * w + xl, ly * hx),
                            (yh * w + xh, ly * lx),
                        ]);
                        y = yy0;
                    }
                }
            }
        }
        let per_bin = gh * gw;
        for ch in 0..c {
            let plane = &v[(b * c + ch) * h * w..(b * c + ch + 1) * h * w];
            for bin in 0..oh * ow {
                let samples = &taps[bin * per_bin..(bin + 1) * per_bin];
                let val = if a.max_mode {
                    samples
                        .iter()
                        .map(|t| {
                            t.iter()
                                .map(|&(p, wt)| wt * plane[p])
                                .fold(f64::NEG_INFINITY, f64::max)
                        })
                        .fold(None, |m: Option<f64>, q| Some(m.map_or(q, |m| m.max(q))))
                        .unwrap_or(0.0)
                } else {
                    samples
                        .iter()
                        .map(|t| t.iter().map(|&(p, wt)| wt * plane[p]).sum::<f64>())
                        .sum::<f64>()
                        / count
                };
                out[(k * c + ch) * oh * ow + bin] = val;
            }
        }
    }
    Tensor::from_f64(x.dtype(), vec![nr, c, oh, ow], out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ar(shape: &[usize]) -> Tensor {
        Tensor::from_vec(
            shape.to_vec(),
            (0..numel(shape)).map(|i| i as f32).collect(),
        )
        .unwrap()
    }

    #[test]
    fn max_pool_cases() {
        let x = ar(&[1, 1, 4, 4]);
        let a = PoolAttrs {
            kernel_shape: vec![2, 2],
            strides: vec![2, 2],
            ..Default::default()
        };
        let (y, i) = max_pool(&x, &a).unwrap();
        assert_eq!(y.as_f32().unwrap(), &[5., 7., 13., 15.]);
        assert_eq!(i.as_i64().unwrap(), &[5, 7, 13, 15]);
        let a = PoolAttrs {
            storage_order_col_major: true,
            ..a
        };
        let (_, i) = max_pool(&x, &a).unwrap();
        // Column-major: h + w * H -> (1,1)=5, (1,3)=13, (3,1)=7, (3,3)=15
        assert_eq!(i.as_i64().unwrap(), &[5, 13, 7, 15]);
        // ceil_mode on 5x5 with 3x3 stride 2 -> 2x2 (onnx maxpool_2d_ceil style).
        let x = ar(&[1, 1, 5, 5]);
        let a = PoolAttrs {
            kernel_shape: vec![3, 3],
            strides: vec![2, 2],
            ceil_mode: true,
            ..Default::default()
        };
        let (y, _) = max_pool(&x, &a).unwrap();
        assert_eq!(y.shape(), &[1, 1, 2, 2]);
        let x = ar(&[1, 1, 4, 4]);
        let a = PoolAttrs {
            kernel_shape: vec![3, 3],
            strides: vec![2, 2],
            ceil_mode: true,
            ..Default::default()
        };
        let (y, _) = max_pool(&x, &a).unwrap();
        // maxpool_2d_ceil: [[11, 12], [15, 16]] for 1-based input -> [[10, 11], [14, 15]].
        assert_eq!(y.as_f32().unwrap(), &[10., 11., 14., 15.]);
        // Dilations 2 on 4x4 with kernel 2: maxpool_2d_dilations -> [[10, 11], [14, 15]] (0-based).
        let a = PoolAttrs {
            kernel_shape: vec![2, 2],
            dilations: vec![2, 2],
            ..Default::default()
        };
        let (y, _) = max_pool(&x, &a).unwrap();
        assert_eq!(y.as_f32().unwrap(), &[10., 11., 14., 15.]);
        // SAME_UPPER on 5x5 kernel 3 stride 2 -> 3x3.
        let x = ar(&[1, 1, 5, 5]);
        let a = PoolAttrs {
            kernel_shape: vec![3, 3],
            strides: vec![2, 2],
            auto_pad: AutoPad::SameUpper,
            ..Default::default()
        };
        let (y, _) = max_pool(&x, &a).unwrap();
        assert_eq!(
            y.as_f32().unwrap(),
            &[6., 8., 9., 16., 18., 19., 21., 23., 24.]
        );
        assert!(max_pool(&x, &PoolAttrs::default()).is_err());
    }

    #[test]
    fn average_pool_padding() {
        // averagepool_2d_pads: x = arange(1, 26) 5x5, kernel 3, pads 2 -> corner (1+2+6+7)/4 = 4 or /9 with padding.
        let x = Tensor::from_vec(vec![1, 1, 5, 5], (1..=25).map(|i| i as f32).collect()).unwrap();
        let a = PoolAttrs {
            kernel_shape: vec![3, 3],
            pads: vec![2, 2, 2, 2],
            ..Default::default()
        };
        let y = average_pool(&x, &a).unwrap();
        assert_eq!(y.shape(), &[1, 1, 7, 7]);
        assert_eq!(y.as_f32().unwrap()[0], 1.0);
        assert_eq!(y.as_f32().unwrap()[1], 1.5);
        let a = PoolAttrs {
            count_include_pad: true,
            ..a
        };
        let y = average_pool(&x, &a).unwrap();
        // onnx.reference AveragePool(kernel 3, pads 2, count_include_pad=1): first row starts [0.11111111, 0.33333334, 0.6666667]
        let r = y.as_f32().unwrap();
        assert!(
            (r[0] - 0.111_111_11).abs() < 1e-6
                && (r[1] - 0.333_333_34).abs() < 1e-6
                && (r[2] - 0.666_666_7).abs() < 1e-6
        );
        let g = global_average_pool(&ar(&[1, 2, 2, 2])).unwrap();
        assert_eq!(g.shape(), &[1, 2, 1, 1]);
        assert_eq!(g.as_f32().unwrap(), &[1.5, 5.5]);
        assert_eq!(
            global_max_pool(&ar(&[1, 2, 2])).unwrap().as_f32().unwrap(),
            &[1., 3.]
        );
        // onnx.reference RoiAlign on arange(16).reshape(1,1,4,4), roi [0,0,3,3], 2x2 output:
        // sampling_ratio 1 -> [1.25, 2.75, 7.25, 8.75]; max + output_half_pixel -> [3.828125, 4.59375, 7.109375, 7.65625]
        let x = ar(&[1, 1, 4, 4]);
        let rois = Tensor::from_vec(vec![1, 4], vec![0f32, 0., 3., 3.]).unwrap();
        let b = Tensor::vector(vec![0i64]);
        let a = RoiAlignAttrs {
            output_height: 2,
            output_width: 2,
            sampling_ratio: 1,
            ..Default::default()
        };
        assert_eq!(
            roi_align(&x, &rois, &b, &a).unwrap().as_f32().unwrap(),
            &[1.25, 2.75, 7.25, 8.75]
        );
        let a = RoiAlignAttrs {
            output_height: 2,
            output_width: 2,
            half_pixel: false,
            max_mode: true,
            ..Default::default()
        };
        let y = roi_align(&x, &rois, &b, &a).unwrap();
        assert_eq!(y.as_f32().unwrap(), &[3.828125, 4.59375, 7.109375, 7.65625]);
        assert!(roi_align(&x, &rois, &Tensor::vector(vec![1i64]), &a).is_err());
        let lp = lp_pool(
            &ar(&[1, 1, 2]),
            &PoolAttrs {
                kernel_shape: vec![2],
                p: 2,
                ..Default::default()
            },
        );
        assert_eq!(lp.unwrap().as_f32().unwrap(), &[1.0]);
    }
}
