//! Spatial transformers: GridSample (nearest, linear and cubic; zeros, border and reflection
//! padding; any number of spatial axes) and AffineGrid (2-D and 3-D).
//!
//! Both compute in f64 and round once to the input type; cubic sampling uses Resize's cubic
//! convolution weights with `a = -0.75`.

use crate::layout::unravel;
use crate::resize::cubic_coeffs;
use crate::smallfloat::round_half_even;
use crate::{KernelError, Result, Tensor};

/// How GridSample interpolates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GridSampleMode {
    /// The nearest pixel (ties to even).
    Nearest,
    /// Linear along every spatial axis (bilinear, trilinear).
    #[default]
    Linear,
    /// Cubic convolution along every spatial axis.
    Cubic,
}

/// Where GridSample reads outside the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GridSamplePadding {
    /// Zeros.
    #[default]
    Zeros,
    /// The nearest border pixel.
    Border,
    /// The input mirrored at its borders.
    Reflection,
}

/// Attributes of GridSample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct GridSampleAttrs {
    /// The interpolation.
    pub mode: GridSampleMode,
    /// Reads outside the input.
    pub padding_mode: GridSamplePadding,
    /// Grid values -1 and 1 address the centers of the corner pixels (else their outer edges).
    pub align_corners: bool,
}

/// Reflects `x` into `[lo, hi]` as often as needed.
fn reflect(x: f64, lo: f64, hi: f64) -> f64 {
    let rng = hi - lo;
    if rng <= 0.0 {
        return lo;
    }
    let (dx, from_lo) = if x < lo {
        (lo - x, true)
    } else if x > hi {
        (x - hi, false)
    } else {
        return x;
    };
    let n = (dx / rng).floor();
    let r = dx - n * rng;
    // An even number of whole reflections leaves x on the side it left from.
    if (n as i64 % 2 == 0) == from_lo {
        lo + r
    } else {
        hi - r
    }
}

/// ONNX GridSample: samples `x [N, C, D1, ..., Dr]` at `grid [N, O1, ..., Or, r]`, whose last
/// axis holds normalized coordinates in `[-1, 1]`, innermost spatial axis first (x, y, z).
pub fn grid_sample(x: &Tensor, grid: &Tensor, a: &GridSampleAttrs) -> Result<Tensor> {
    const OP: &str = "GridSample";
    let xs = x.shape();
    let r = xs.len().saturating_sub(2);
    let gs = grid.shape();
    if r == 0 || gs.len() != r + 2 || gs[0] != xs[0] || gs[r + 1] != r {
        return Err(KernelError::shape(
            OP,
            format!("grid {gs:?} does not fit input {xs:?}"),
        ));
    }
    let (nb, c) = (xs[0], xs[1]);
    let dims = &xs[2..];
    let out_sp: Vec<usize> = gs[1..=r].to_vec();
    let n_out: usize = out_sp.iter().product();
    let in_sp: usize = dims.iter().product();
    let xv = x.float_values(OP)?;
    let gv = grid.to_f64_vec()?;
    let bounds: Vec<(f64, f64)> = dims
        .iter()
        .map(|&d| {
            if a.align_corners {
                (0.0, d as f64 - 1.0)
            } else {
                (-0.5, d as f64 - 0.5)
            }
        })
        .collect();
    // The input value at integer position `idx`, padded.
    let fetch = |plane: &[f64], idx: &[i64]| -> f64 {
        let mut flat = 0usize;
        for (k, &ix) in idx.iter().enumerate() {
            let d = dims[k] as i64;
            let ix = match a.padding_mode {
                GridSamplePadding::Border => ix.clamp(0, d - 1),
                GridSamplePadding::Reflection => {
                    (reflect(ix as f64, bounds[k].0, bounds[k].1) as i64).clamp(0, d - 1)
                }
                GridSamplePadding::Zeros => {
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
    let mut out = vec![0f64; nb * c * n_out];
    let mut taps: Vec<Vec<(i64, f64)>> = vec![Vec::new(); r];
    let mut which = vec![0usize; r];
    let mut idx = vec![0i64; r];
    for b in 0..nb {
        for p in 0..n_out {
            let g = &gv[(b * n_out + p) * r..(b * n_out + p + 1) * r];
            // Grid coordinates run (x, y, z): innermost spatial axis first.
            for (k, taps) in taps.iter_mut().enumerate() {
                let v = g[r - 1 - k];
                let len = dims[k] as f64;
                let mut xk = if a.align_corners {
                    (v + 1.0) / 2.0 * (len - 1.0)
                } else {
                    ((v + 1.0) * len - 1.0) / 2.0
                };
                match a.padding_mode {
                    GridSamplePadding::Border => xk = xk.clamp(0.0, len - 1.0),
                    GridSamplePadding::Reflection => xk = reflect(xk, bounds[k].0, bounds[k].1),
                    GridSamplePadding::Zeros => {}
                }
                taps.clear();
                let f = xk.floor();
                match a.mode {
                    GridSampleMode::Nearest => taps.push((round_half_even(xk) as i64, 1.0)),
                    GridSampleMode::Linear => {
                        taps.extend([(f as i64, 1.0 - (xk - f)), (f as i64 + 1, xk - f)])
                    }
                    GridSampleMode::Cubic => {
                        let w = cubic_coeffs(xk - f, -0.75);
                        taps.extend((0..4).map(|m| (f as i64 - 1 + m as i64, w[m])));
                    }
                }
            }
            for ch in 0..c {
                let plane = &xv[(b * c + ch) * in_sp..(b * c + ch + 1) * in_sp];
                let mut acc = 0.0;
                which.iter_mut().for_each(|w| *w = 0);
                // Visit every combination of one tap per axis.
                'taps: loop {
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
                            continue 'taps;
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
    Tensor::from_f64(x.dtype(), shape, out)
}

/// ONNX AffineGrid: the sampling grid `[N, (D,) H, W, r]` of the affine maps `theta [N, r, r + 1]`
/// (r = 2 or 3) over an output of `size = [N, C, (D,) H, W]`.
pub fn affine_grid(theta: &Tensor, size: &[usize], align_corners: bool) -> Result<Tensor> {
    const OP: &str = "AffineGrid";
    let r = size.len().saturating_sub(2);
    let ts = theta.shape();
    if !(r == 2 || r == 3) || ts != [size[0], r, r + 1] {
        return Err(KernelError::shape(
            OP,
            format!("theta {ts:?} does not fit size {size:?}"),
        ));
    }
    let th = theta.float_values(OP)?;
    let coord = |k: usize, len: usize| -> f64 {
        if align_corners {
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
            unravel(p, sp, &mut pos);
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
    Tensor::from_f64(theta.dtype(), shape, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{ar, close, f};

    #[test]
    fn reflect_folds_both_ways() {
        assert_eq!(reflect(-0.5, 0.0, 2.0), 0.5);
        assert_eq!(reflect(2.5, 0.0, 2.0), 1.5);
        assert_eq!(reflect(4.5, 0.0, 2.0), 0.5);
        assert_eq!(reflect(-2.5, 0.0, 2.0), 1.5);
        assert_eq!(reflect(1.0, 0.0, 2.0), 1.0);
    }

    #[test]
    fn identity_grid_reproduces_the_input() {
        // AffineGrid of the identity map, sampled back: every mode returns the input.
        let x = ar(&[1, 1, 2, 3]);
        let theta = f(&[1, 2, 3], [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
        let grid = affine_grid(&theta, &[1, 1, 2, 3], false).unwrap();
        assert_eq!(grid.shape(), &[1, 2, 3, 2]);
        for mode in [
            GridSampleMode::Nearest,
            GridSampleMode::Linear,
            GridSampleMode::Cubic,
        ] {
            let a = GridSampleAttrs {
                mode,
                padding_mode: GridSamplePadding::Border,
                align_corners: false,
            };
            let y = grid_sample(&x, &grid, &a).unwrap();
            close(y.as_f32().unwrap(), x.as_f32().unwrap(), 1e-5);
        }
    }
}
