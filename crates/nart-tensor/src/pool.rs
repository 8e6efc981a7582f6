//! Pooling: MaxPool (with indices), MaxUnpool, AveragePool, LpPool, GlobalAveragePool,
//! GlobalMaxPool, GlobalLpPool and RoiAlign.

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

/// The windows of a pooling geometry, computed once and shared by every plane.
struct Windows {
    /// `offs[start[o]..start[o + 1]]` are the in-bounds input offsets (within a plane) of output `o`,
    /// in kernel raster order.
    start: Vec<usize>,
    offs: Vec<usize>,
    /// Number of window positions of output `o` inside the padded extent.
    padded: Vec<usize>,
}

impl Windows {
    fn new(g: &Geom) -> Windows {
        let nd = g.input.len();
        let osz = numel(&g.out);
        let ksz = numel(&g.kernel);
        let ist = strides(&g.input);
        let mut oidx = vec![0; nd];
        let mut kidx = vec![0; nd];
        let mut w = Windows {
            start: Vec::with_capacity(osz + 1),
            offs: Vec::with_capacity(osz * ksz),
            padded: Vec::with_capacity(osz),
        };
        w.start.push(0);
        for o in 0..osz {
            unravel(o, &g.out, &mut oidx);
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
                    w.offs.push(off);
                }
            }
            w.start.push(w.offs.len());
            w.padded.push(padded_count);
        }
        w
    }

    /// Visits every window: `f(out_pos, inputs, padded_count)`.
    fn each(&self, mut f: impl FnMut(usize, &[usize], usize)) {
        for (o, (se, &padded)) in self.start.windows(2).zip(&self.padded).enumerate() {
            f(o, &self.offs[se[0]..se[1]], padded);
        }
    }
}

/// Max of each window of each plane with the offset (within the plane) of the first maximum;
/// an empty window gives negative infinity at offset 0.
fn window_max<T: Copy + PartialOrd>(
    v: &[T],
    neg_inf: T,
    isz: usize,
    osz: usize,
    win: &Windows,
    vals: &mut [T],
    at: &mut [usize],
) {
    for (plane, (pv, pa)) in vals.chunks_mut(osz).zip(at.chunks_mut(osz)).enumerate() {
        let xs = &v[plane * isz..(plane + 1) * isz];
        for (o, (val, a)) in pv.iter_mut().zip(pa.iter_mut()).enumerate() {
            let offs = &win.offs[win.start[o]..win.start[o + 1]];
            let mut best = neg_inf;
            let mut bi = offs.first().copied().unwrap_or(0);
            for &off in offs {
                let x = xs[off];
                if x > best {
                    best = x;
                    bi = off;
                }
            }
            *val = best;
            *a = bi;
        }
    }
}

/// [`window_max`] for 1-D and 2-D geometries, one output row and kernel tap at a time so that the
/// inner loop runs over a whole output row without per-window bookkeeping; same results.
fn window_max_rows<T: Copy + PartialOrd>(
    v: &[T],
    neg_inf: T,
    g: &Geom,
    vals: &mut [T],
    at: &mut [u32],
) {
    let (h, oh, kh, sh, dh, ph) = if g.input.len() == 2 {
        (
            g.input[0],
            g.out[0],
            g.kernel[0],
            g.strides[0],
            g.dilations[0],
            g.pad_begin[0],
        )
    } else {
        (1, 1, 1, 1, 1, 0)
    };
    let l = g.input.len() - 1;
    let (w, ow, kw, sw, dw, pw) = (
        g.input[l],
        g.out[l],
        g.kernel[l],
        g.strides[l],
        g.dilations[l],
        g.pad_begin[l],
    );
    let (isz, osz) = (h * w, oh * ow);
    // Valid output columns lo..hi of each kernel column and the input column of output `lo`.
    let cols: Vec<(usize, usize, usize)> = (0..kw)
        .map(|j| {
            let off = (j * dw) as isize - pw as isize;
            let lo = if off >= 0 {
                0
            } else {
                ((-off) as usize).div_ceil(sw)
            };
            let hi = if (w as isize) - 1 - off < 0 {
                0
            } else {
                ((((w as isize) - 1 - off) as usize) / sw + 1).min(ow)
            };
            let lo = lo.min(hi);
            (lo, hi, (lo as isize * sw as isize + off).max(0) as usize)
        })
        .collect();
    const NONE: u32 = u32::MAX;
    // Strided pools read a copy of the plane split by column phase: phase f of row r holds columns
    // f, f + sw, ... of that row, so every tap reads contiguous memory.
    let plen = w.div_ceil(sw);
    let mut split = if sw > 1 {
        vec![neg_inf; sw * h * plen]
    } else {
        vec![]
    };
    let sw32 = sw as u32;
    for (plane, (pv, pa)) in vals.chunks_mut(osz).zip(at.chunks_mut(osz)).enumerate() {
        let xs = &v[plane * isz..(plane + 1) * isz];
        if sw > 1 {
            for (r, row) in xs.chunks_exact(w).enumerate() {
                for f in 0..sw.min(w) {
                    let dst = &mut split[(f * h + r) * plen..(f * h + r + 1) * plen];
                    let cnt = (w - f).div_ceil(sw);
                    crate::conv::gather(&mut dst[..cnt], &row[f..], sw);
                }
            }
        }
        pv.fill(neg_inf);
        pa.fill(NONE);
        for (r, (best, arg)) in pv.chunks_mut(ow).zip(pa.chunks_mut(ow)).enumerate() {
            for i in 0..kh {
                let ih = (r * sh + i * dh) as isize - ph as isize;
                if ih < 0 || ih >= h as isize {
                    continue;
                }
                let ih = ih as usize;
                let row0 = ih * w;
                for &(lo, hi, first) in &cols {
                    if lo == hi {
                        // A kernel column outside the input for every output (in the padding
                        // at either end): `first` may lie past the row.
                        continue;
                    }
                    let idx0 = (row0 + first) as u32;
                    let src = if sw > 1 {
                        let at = ((first % sw) * h + ih) * plen + first / sw;
                        &split[at..at + (hi - lo)]
                    } else {
                        &xs[row0 + first..row0 + first + (hi - lo)]
                    };
                    for (k, ((b, a), &x)) in best[lo..hi]
                        .iter_mut()
                        .zip(&mut arg[lo..hi])
                        .zip(src)
                        .enumerate()
                    {
                        // The first in-bounds tap, then strictly larger values, win; written
                        // with masks rather than branches, which random data mispredicts.
                        let gt = x > *b;
                        let take = (gt as u32) | ((*a == NONE) as u32);
                        let mask = 0u32.wrapping_sub(take);
                        *b = if gt { x } else { *b };
                        *a = ((idx0 + k as u32 * sw32) & mask) | (*a & !mask);
                    }
                }
            }
        }
        pa.iter_mut()
            .for_each(|a| *a = if *a == NONE { 0 } else { *a });
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
    let shape = out_shape(n, c, &g);
    if n * c * osz == 0 {
        return Ok((
            Tensor::from_f64(x.dtype(), shape.clone(), vec![])?,
            Tensor::from_vec(shape, Vec::<i64>::new())?,
        ));
    }
    let mut at = vec![0usize; n * c * osz];
    let y = if let Some(v) = x.as_f32() {
        // Comparisons in f32 order values exactly as in f64.
        let mut vals = vec![0f32; n * c * osz];
        if g.input.len() <= 2 && isz > 0 && osz > 0 && isz < u32::MAX as usize {
            let mut at32 = vec![0u32; n * c * osz];
            window_max_rows(v, f32::NEG_INFINITY, &g, &mut vals, &mut at32);
            at.iter_mut().zip(&at32).for_each(|(a, &b)| *a = b as usize);
        } else {
            window_max(
                v,
                f32::NEG_INFINITY,
                isz,
                osz,
                &Windows::new(&g),
                &mut vals,
                &mut at,
            );
        }
        Tensor::from_vec(shape.clone(), vals)?
    } else {
        let v = x.to_f64_vec()?;
        let mut vals = vec![0f64; n * c * osz];
        window_max(
            &v,
            f64::NEG_INFINITY,
            isz,
            osz,
            &Windows::new(&g),
            &mut vals,
            &mut at,
        );
        if x.dtype().is_int() {
            Tensor::from_i128(
                x.dtype(),
                shape.clone(),
                vals.iter().map(|&a| a as i128).collect(),
            )?
        } else {
            Tensor::from_f64(x.dtype(), shape.clone(), vals)?
        }
    };
    let nd = g.input.len();
    let mut pidx = vec![0; nd];
    let mut idx = vec![0i64; at.len()];
    for (plane, (dst, src)) in idx.chunks_mut(osz).zip(at.chunks(osz)).enumerate() {
        let base = plane * isz;
        if attrs.storage_order_col_major {
            for (d, &bi) in dst.iter_mut().zip(src) {
                unravel(bi, &g.input, &mut pidx);
                let mut f = 0;
                for a in (0..nd).rev() {
                    f = f * g.input[a] + pidx[a];
                }
                *d = (base + f) as i64;
            }
        } else {
            for (d, &bi) in dst.iter_mut().zip(src) {
                *d = (base + bi) as i64;
            }
        }
    }
    Ok((y, Tensor::from_vec(shape, idx)?))
}

/// ONNX AveragePool.
pub fn average_pool(x: &Tensor, attrs: &PoolAttrs) -> Result<Tensor> {
    let (n, c, g) = setup("AveragePool", x, attrs)?;
    let isz = numel(&g.input);
    let osz = numel(&g.out);
    let win = Windows::new(&g);
    let v = x.to_f64_vec()?;
    let mut out = vec![0f64; n * c * osz];
    for plane in 0..n * c {
        let base = plane * isz;
        win.each(|o, offs, padded| {
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
    let win = Windows::new(&g);
    let v = x.to_f64_vec()?;
    let mut out = vec![0f64; n * c * osz];
    for plane in 0..n * c {
        let base = plane * isz;
        win.each(|o, offs, _| {
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

/// ONNX MaxUnpool: scatters `x [N, C, D...]` into zeros at the flat positions `indices` (as
/// MaxPool returns them) of the unpooled shape that `kernel_shape`, `pads` (begins then ends,
/// default 0) and `strides` (default 1) give; `output_shape` may enlarge that shape at the ends.
pub fn max_unpool(
    x: &Tensor,
    indices: &Tensor,
    kernel_shape: &[usize],
    pads: &[usize],
    strides: &[usize],
    output_shape: Option<&[i64]>,
) -> Result<Tensor> {
    const OP: &str = "MaxUnpool";
    let s = x.shape();
    let r = s.len().saturating_sub(2);
    let pads = if pads.is_empty() {
        vec![0; 2 * r]
    } else {
        pads.to_vec()
    };
    let strides = if strides.is_empty() {
        vec![1; r]
    } else {
        strides.to_vec()
    };
    if s.len() < 3 || kernel_shape.len() != r || pads.len() != 2 * r || strides.len() != r {
        return Err(KernelError::attr(
            OP,
            "kernel_shape",
            "kernel_shape, pads and strides must fit the input rank",
        ));
    }
    if indices.shape() != s {
        return Err(KernelError::shape(
            OP,
            format!(
                "indices {:?} must have the shape of X {s:?}",
                indices.shape()
            ),
        ));
    }
    // Indices address the inferred shape; an explicit output_shape pads that at the ends.
    let mut inferred = s[..2].to_vec();
    for d in 0..r {
        let len = (s[d + 2] as i64 - 1) * strides[d] as i64 + kernel_shape[d] as i64
            - pads[d] as i64
            - pads[d + r] as i64;
        inferred.push(len.max(0) as usize);
    }
    let total = numel(&inferred);
    let idx = indices
        .to_i64_vec()?
        .into_iter()
        .map(|f| {
            usize::try_from(f)
                .ok()
                .filter(|&f| f < total)
                .ok_or(KernelError::IndexOutOfRange {
                    op: OP,
                    index: f,
                    size: total,
                })
        })
        .collect::<Result<Vec<usize>>>()?;
    let (dt, _, mut data) = Tensor::zeros(x.dtype(), vec![total]).into_parts();
    data.scatter(&idx, x.data());
    let y = Tensor::new(dt, inferred.clone(), data)?;
    let Some(shape) = output_shape else {
        return Ok(y);
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
    crate::shape_ops::pad(&y, &p, crate::shape_ops::PadMode::Constant, None, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{ar, f};

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

    /// A kernel column that lies in the end padding for every output (width 2, kernel 3 with
    /// dilation 2 and 3 pads after: taps at 0, 2 and 4) is skipped; the row kernel and the
    /// general one (taken by f64) agree.
    #[test]
    fn max_pool_kernel_columns_wholly_in_the_padding() {
        for stride in [1, 2] {
            let a = PoolAttrs {
                kernel_shape: vec![3],
                dilations: vec![2],
                pads: vec![0, 3],
                strides: vec![stride],
                ..Default::default()
            };
            let x = f(&[1, 2, 2], vec![3., 1., -2., 5.]);
            let (y, i) = max_pool(&x, &a).unwrap();
            let (y64, i64) = max_pool(&x.cast(crate::DType::F64).unwrap(), &a).unwrap();
            // One output per channel, reading the first element only.
            assert_eq!(y.as_f32().unwrap(), &[3., -2.]);
            assert_eq!(i.as_i64().unwrap(), &[0, 2]);
            assert_eq!(y64.to_f64_vec().unwrap(), y.to_f64_vec().unwrap());
            assert_eq!(i.as_i64().unwrap(), i64.as_i64().unwrap());
        }
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

    #[test]
    fn max_pool_row_path_matches_windows() {
        // The f32 row-wise path against the f64 per-window path: same values and indices, including
        // ties (small integers), NaN, -inf, padding-only windows, dilation, strides and ceil mode.
        let mut seed = 3u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let cases: Vec<(Vec<usize>, PoolAttrs)> = vec![
            (
                vec![2, 3, 9, 8],
                PoolAttrs {
                    kernel_shape: vec![3, 3],
                    strides: vec![2, 2],
                    pads: vec![1, 1, 1, 1],
                    ..Default::default()
                },
            ),
            (
                vec![1, 2, 7, 10],
                PoolAttrs {
                    kernel_shape: vec![2, 3],
                    strides: vec![1, 3],
                    dilations: vec![2, 2],
                    pads: vec![0, 2, 3, 1],
                    ceil_mode: true,
                    ..Default::default()
                },
            ),
            (
                vec![1, 1, 2, 2],
                PoolAttrs {
                    kernel_shape: vec![2, 2],
                    pads: vec![3, 3, 3, 3],
                    ..Default::default()
                },
            ),
            (
                vec![2, 2, 11],
                PoolAttrs {
                    kernel_shape: vec![4],
                    strides: vec![3],
                    pads: vec![2, 3],
                    storage_order_col_major: true,
                    ..Default::default()
                },
            ),
        ];
        for (shape, attrs) in cases {
            let v: Vec<f32> = (0..numel(&shape))
                .map(|_| match next() % 10 {
                    0 => f32::NAN,
                    1 => f32::NEG_INFINITY,
                    k => (k % 4) as f32,
                })
                .collect();
            let x = Tensor::from_vec(shape.clone(), v).unwrap();
            let (y, i) = max_pool(&x, &attrs).unwrap();
            let (y64, i64) = max_pool(&x.cast(crate::DType::F64).unwrap(), &attrs).unwrap();
            let a: Vec<u32> = y.as_f32().unwrap().iter().map(|v| v.to_bits()).collect();
            let b: Vec<u32> = y64
                .to_f32_vec()
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect();
            assert_eq!(a, b, "values for {shape:?}");
            assert_eq!(
                i.as_i64().unwrap(),
                i64.as_i64().unwrap(),
                "indices for {shape:?}"
            );
        }
    }

    #[test]
    fn max_pool_empty_shapes() {
        let a = PoolAttrs {
            kernel_shape: vec![1, 1],
            ..Default::default()
        };
        for shape in [vec![0, 2, 4, 4], vec![1, 0, 4, 4]] {
            let x = Tensor::from_vec(shape.clone(), vec![0f32; numel(&shape)]).unwrap();
            let (y, i) = max_pool(&x, &a).unwrap();
            assert_eq!(y.shape(), &shape[..]);
            assert_eq!(i.len(), 0);
        }
        // An empty spatial axis is smaller than the kernel: an error, not a panic.
        let x = Tensor::from_vec(vec![1, 1, 0, 4], Vec::<f32>::new()).unwrap();
        assert!(max_pool(&x, &a).is_err());
    }

    #[test]
    fn max_unpool_inverts_max_pool() {
        let x = f(&[1, 1, 2, 2], [1., 4., 3., 2.]);
        let a = PoolAttrs {
            kernel_shape: vec![2, 2],
            strides: vec![2, 2],
            ..PoolAttrs::default()
        };
        let (y, idx) = max_pool(&x, &a).unwrap();
        let back = max_unpool(&y, &idx, &[2, 2], &[], &[2, 2], None).unwrap();
        assert_eq!(back.as_f32().unwrap(), &[0., 4., 0., 0.]);
        let big = max_unpool(&y, &idx, &[2, 2], &[], &[2, 2], Some(&[1, 1, 3, 2])).unwrap();
        assert_eq!(big.as_f32().unwrap(), &[0., 4., 0., 0., 0., 0.]);
        assert!(max_unpool(&y, &Tensor::vector(vec![9i64]), &[2, 2], &[], &[2, 2], None).is_err());
    }
}
