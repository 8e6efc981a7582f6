//! ONNX Resize: nearest (all rounding modes), linear and cubic, every coordinate transformation mode,
//! from scales or sizes, optional axes and aspect-ratio policy.
//!
//! Interpolation is separable, so the kernel resizes one axis at a time; the neighbours of a
//! coordinate are clamped to the edge, as the ONNX reference pads with edge values.

use crate::layout::norm_axes;
use crate::tensor::{checked_alloc, elem_bytes, numel};
use crate::{KernelError, Result, Tensor};

/// Interpolation mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ResizeMode {
    /// Nearest neighbour.
    #[default]
    Nearest,
    /// (Bi/tri)linear.
    Linear,
    /// Cubic convolution with `cubic_coeff_a`.
    Cubic,
}

/// How an output coordinate maps back to the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CoordMode {
    /// `(x + 0.5) / scale - 0.5`.
    #[default]
    HalfPixel,
    /// Half pixel, centred on the real output extent.
    HalfPixelSymmetric,
    /// Half pixel, but 0 when the output length is 1.
    PytorchHalfPixel,
    /// `x * (in - 1) / (out - 1)`.
    AlignCorners,
    /// `x / scale`.
    Asymmetric,
    /// Crop to `roi` then resize; outside points take `extrapolation_value`.
    TfCropAndResize,
}

/// Rounding of nearest mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NearestMode {
    /// Round, halves down.
    #[default]
    RoundPreferFloor,
    /// Round, halves up.
    RoundPreferCeil,
    /// Floor.
    Floor,
    /// Ceil.
    Ceil,
}

/// How sizes are adjusted to keep the aspect ratio (opset 18).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AspectPolicy {
    /// Use sizes as given.
    #[default]
    Stretch,
    /// Largest size that fits inside the given sizes.
    NotLarger,
    /// Smallest size that covers the given sizes.
    NotSmaller,
}

/// Attributes of Resize.
#[derive(Clone, Debug, PartialEq)]
pub struct ResizeAttrs {
    /// Interpolation mode.
    pub mode: ResizeMode,
    /// Coordinate transformation mode.
    pub coord: CoordMode,
    /// Nearest rounding.
    pub nearest_mode: NearestMode,
    /// Cubic coefficient (default -0.75).
    pub cubic_coeff_a: f32,
    /// Zero the weights of neighbours outside the input and renormalize.
    pub exclude_outside: bool,
    /// Value for points outside the input with tf_crop_and_resize.
    pub extrapolation_value: f32,
    /// Axes that `scales`, `sizes` and `roi` refer to (default all).
    pub axes: Option<Vec<i64>>,
    /// Aspect ratio policy for `sizes`.
    pub keep_aspect_ratio_policy: AspectPolicy,
    /// Widen the linear/cubic filter when downsampling (opset 18 `antialias`).
    pub antialias: bool,
}

impl Default for ResizeAttrs {
    fn default() -> Self {
        ResizeAttrs {
            mode: ResizeMode::Nearest,
            coord: CoordMode::HalfPixel,
            nearest_mode: NearestMode::RoundPreferFloor,
            cubic_coeff_a: -0.75,
            exclude_outside: false,
            extrapolation_value: 0.0,
            axes: None,
            keep_aspect_ratio_policy: AspectPolicy::Stretch,
            antialias: false,
        }
    }
}

/// Output size given as scales or as sizes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ResizeTarget<'a> {
    /// One scale per axis.
    Scales(&'a [f32]),
    /// One size per axis.
    Sizes(&'a [i64]),
}

/// Taps (index, weight) for one output coordinate, or `None` to extrapolate.
type Taps = Option<Vec<(usize, f64)>>;

/// The cubic convolution kernel at distance `x`.
fn cubic_kernel(x: f64, a: f64) -> f64 {
    let x = x.abs();
    if x <= 1.0 {
        ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    } else if x < 2.0 {
        ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
    } else {
        0.0
    }
}

/// Antialiased taps for downsampling by `scale < 1`: the kernel stretched by `1 / scale`, normalized.
fn antialias_coeffs(ratio: f64, scale: f64, cubic: Option<f64>) -> Vec<f64> {
    let support = if cubic.is_some() { 2.0 } else { 1.0 };
    let start = (-support / scale).floor() as i64 + 1;
    let end = 2 - start;
    let c: Vec<f64> = (start..end)
        .map(|k| {
            let t = (k as f64 - ratio) * scale;
            match cubic {
                Some(a) => cubic_kernel(t, a),
                None => (1.0 - t.abs()).clamp(0.0, 1.0),
            }
        })
        .collect();
    let s: f64 = c.iter().sum();
    c.into_iter().map(|v| v / s).collect()
}

/// The cubic convolution weights of the four taps `-1, 0, 1, 2` around a point at fraction `r`
/// past tap 0 (Resize and GridSample).
pub(crate) fn cubic_coeffs(r: f64, a: f64) -> [f64; 4] {
    let s = 1.0 - r;
    [
        ((a * (r + 1.0) - 5.0 * a) * (r + 1.0) + 8.0 * a) * (r + 1.0) - 4.0 * a,
        ((a + 2.0) * r - (a + 3.0)) * r * r + 1.0,
        ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0,
        ((a * (s + 1.0) - 5.0 * a) * (s + 1.0) + 8.0 * a) * (s + 1.0) - 4.0 * a,
    ]
}

#[allow(clippy::too_many_arguments)]
fn axis_taps(
    a: &ResizeAttrs,
    len_in: usize,
    len_out: usize,
    scale: f64,
    roi: (f64, f64),
) -> Vec<Taps> {
    let li = len_in as f64;
    // The reference uses the real-valued output length `scale * len_in` in these formulas.
    let lo = scale * li;
    (0..len_out)
        .map(|x| {
            let xf = x as f64;
            let orig = match a.coord {
                CoordMode::HalfPixel => (xf + 0.5) / scale - 0.5,
                CoordMode::HalfPixelSymmetric => {
                    let adjustment = len_out as f64 / lo;
                    let center = li / 2.0;
                    let offset = center * (1.0 - adjustment);
                    offset + (xf + 0.5) / scale - 0.5
                }
                CoordMode::PytorchHalfPixel => {
                    if lo != 1.0 {
                        (xf + 0.5) / scale - 0.5
                    } else {
                        0.0
                    }
                }
                CoordMode::AlignCorners => {
                    if lo == 1.0 {
                        0.0
                    } else {
                        xf * (li - 1.0) / (lo - 1.0)
                    }
                }
                CoordMode::Asymmetric => xf / scale,
                CoordMode::TfCropAndResize => {
                    let (s, e) = roi;
                    if lo != 1.0 {
                        s * (li - 1.0) + xf * (e - s) * (li - 1.0) / (lo - 1.0)
                    } else {
                        0.5 * (s + e) * (li - 1.0)
                    }
                }
            };
            if a.coord == CoordMode::TfCropAndResize && (orig < 0.0 || orig > li - 1.0) {
                return None;
            }
            let clamp = |i: i64| i.clamp(0, len_in as i64 - 1) as usize;
            match a.mode {
                ResizeMode::Nearest => {
                    let fl = orig.floor();
                    let frac = orig - fl;
                    let r = match a.nearest_mode {
                        NearestMode::RoundPreferFloor => {
                            if frac > 0.5 {
                                fl + 1.0
                            } else {
                                fl
                            }
                        }
                        NearestMode::RoundPreferCeil => {
                            if frac >= 0.5 {
                                fl + 1.0
                            } else {
                                fl
                            }
                        }
                        NearestMode::Floor => fl,
                        NearestMode::Ceil => orig.ceil(),
                    };
                    Some(vec![(clamp(r as i64), 1.0)])
                }
                ResizeMode::Linear | ResizeMode::Cubic => {
                    let fl = orig.floor() as i64;
                    let ratio = if orig.fract() == 0.0 {
                        1.0
                    } else {
                        orig - fl as f64
                    };
                    // With ratio 1 the taps are shifted one to the left, as in the reference.
                    let (first, coeffs): (i64, Vec<f64>) = if a.antialias && scale < 1.0 {
                        let cubic = (a.mode == ResizeMode::Cubic).then_some(a.cubic_coeff_a as f64);
                        let c = antialias_coeffs(ratio, scale, cubic);
                        let half = c.len() as i64 / 2;
                        (
                            if ratio == 1.0 {
                                fl - half
                            } else {
                                fl - half + 1
                            },
                            c,
                        )
                    } else if a.mode == ResizeMode::Linear {
                        let base = if ratio == 1.0 { fl - 1 } else { fl };
                        (base, vec![1.0 - ratio, ratio])
                    } else {
                        let base = if ratio == 1.0 { fl - 2 } else { fl - 1 };
                        (base, cubic_coeffs(ratio, a.cubic_coeff_a as f64).to_vec())
                    };
                    let mut taps: Vec<(i64, f64)> = coeffs
                        .iter()
                        .enumerate()
                        .map(|(k, &c)| (first + k as i64, c))
                        .collect();
                    if a.exclude_outside {
                        taps.iter_mut().for_each(|t| {
                            if t.0 < 0 || t.0 >= len_in as i64 {
                                t.1 = 0.0;
                            }
                        });
                        let s: f64 = taps.iter().map(|t| t.1).sum();
                        if s != 0.0 {
                            taps.iter_mut().for_each(|t| t.1 /= s);
                        }
                    }
                    Some(taps.into_iter().map(|(i, c)| (clamp(i), c)).collect())
                }
            }
        })
        .collect()
}

/// ONNX Resize on any floating-point (or integer, rounded back) tensor.
pub fn resize(
    x: &Tensor,
    roi: Option<&[f32]>,
    target: ResizeTarget<'_>,
    attrs: &ResizeAttrs,
) -> Result<Tensor> {
    const OP: &str = "Resize";
    let r = x.rank();
    let axes: Vec<usize> = match &attrs.axes {
        Some(a) => norm_axes(OP, a, r)?,
        None => (0..r).collect(),
    };
    let s = x.shape();
    let mut scales = vec![1f64; r];
    let mut out: Vec<usize> = s.to_vec();
    match target {
        ResizeTarget::Scales(sc) => {
            if sc.len() != axes.len() || sc.iter().any(|&v| v.is_nan() || v <= 0.0) {
                return Err(KernelError::attr(
                    OP,
                    "scales",
                    format!("{sc:?} for {} axes", axes.len()),
                ));
            }
            for (k, &a) in axes.iter().enumerate() {
                scales[a] = sc[k] as f64;
                out[a] = (s[a] as f64 * sc[k] as f64).floor() as usize;
            }
        }
        ResizeTarget::Sizes(sz) => {
            if sz.len() != axes.len() || sz.iter().any(|&v| v < 0) {
                return Err(KernelError::attr(
                    OP,
                    "sizes",
                    format!("{sz:?} for {} axes", axes.len()),
                ));
            }
            let ratios: Vec<f64> = axes
                .iter()
                .zip(sz)
                .map(|(&a, &v)| v as f64 / s[a] as f64)
                .collect();
            let pick = match attrs.keep_aspect_ratio_policy {
                AspectPolicy::Stretch => None,
                AspectPolicy::NotLarger => {
                    Some(ratios.iter().copied().fold(f64::INFINITY, f64::min))
                }
                AspectPolicy::NotSmaller => {
                    Some(ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max))
                }
            };
            for (k, &a) in axes.iter().enumerate() {
                match pick {
                    None => {
                        scales[a] = ratios[k];
                        out[a] = sz[k] as usize;
                    }
                    Some(p) => {
                        scales[a] = p;
                        out[a] = (s[a] as f64 * p + 0.5).floor() as usize;
                    }
                }
            }
        }
    }
    checked_alloc(OP, &out, elem_bytes(x.dtype()) + std::mem::size_of::<f64>())?;
    let mut roi_full = vec![(0f64, 1f64); r];
    if let Some(roi) = roi.filter(|v| !v.is_empty()) {
        if roi.len() != 2 * axes.len() {
            return Err(KernelError::attr(
                OP,
                "roi",
                format!("expected {} values", 2 * axes.len()),
            ));
        }
        for (k, &a) in axes.iter().enumerate() {
            roi_full[a] = (roi[k] as f64, roi[axes.len() + k] as f64);
        }
    }
    if !(x.dtype().is_float() || x.dtype().is_int()) {
        return Err(KernelError::dtype(OP, x.dtype()));
    }
    let mut cur = x.to_f64_vec()?;
    let mut shape = s.to_vec();
    for a in 0..r {
        if out[a] == shape[a] && scales[a] == 1.0 && attrs.coord != CoordMode::TfCropAndResize {
            continue;
        }
        if shape[a] == 0 {
            return Err(KernelError::shape(OP, "cannot resize an empty axis"));
        }
        let taps = axis_taps(attrs, shape[a], out[a], scales[a], roi_full[a]);
        let outer = numel(&shape[..a]);
        let inner = numel(&shape[a + 1..]);
        let (li, lo) = (shape[a], out[a]);
        let mut next = vec![0f64; outer * lo * inner];
        for o in 0..outer {
            for (j, t) in taps.iter().enumerate() {
                for i in 0..inner {
                    next[(o * lo + j) * inner + i] = match t {
                        None => attrs.extrapolation_value as f64,
                        Some(t) => t
                            .iter()
                            .map(|&(k, w)| w * cur[(o * li + k) * inner + i])
                            .sum(),
                    };
                }
            }
        }
        cur = next;
        shape[a] = lo;
    }
    if x.dtype().is_int() {
        let v = cur
            .into_iter()
            .map(|a| crate::smallfloat::round_half_even(a) as i128)
            .collect();
        let (lo, hi) = x.dtype().int_range().unwrap_or((i128::MIN, i128::MAX));
        let v: Vec<i128> = Vec::into_iter(v).map(|a: i128| a.clamp(lo, hi)).collect();
        return Tensor::from_i128(x.dtype(), shape, v);
    }
    Tensor::from_f64(x.dtype(), shape, cur)
}

#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::test_util::close;

    fn grid() -> Tensor {
        Tensor::from_vec(vec![1, 1, 4, 4], (1..=16).map(|v| v as f32).collect()).unwrap()
    }

    #[test]
    fn nearest_modes() {
        // resize_upsample_scales_nearest: [[1,2],[3,4]] scales [1,1,2,3] -> rows [1,1,1,2,2,2]
        let x = Tensor::from_vec(vec![1, 1, 2, 2], vec![1f32, 2., 3., 4.]).unwrap();
        let y = resize(
            &x,
            None,
            ResizeTarget::Scales(&[1., 1., 2., 3.]),
            &ResizeAttrs::default(),
        )
        .unwrap();
        assert_eq!(y.shape(), &[1, 1, 4, 6]);
        assert_eq!(&y.as_f32().unwrap()[..6], &[1., 1., 1., 2., 2., 2.]);
        // resize_downsample_scales_nearest: [[1,2,3,4],[5,6,7,8]] scales 0.6 -> [[1, 3]]
        let x = Tensor::from_vec(vec![1, 1, 2, 4], (1..=8).map(|v| v as f32).collect()).unwrap();
        let y = resize(
            &x,
            None,
            ResizeTarget::Scales(&[1., 1., 0.6, 0.6]),
            &ResizeAttrs::default(),
        )
        .unwrap();
        assert_eq!(y.as_f32().unwrap(), &[1., 3.]);
        // resize_upsample_sizes_nearest_ceil_half_pixel (sizes 8x8 from 4x4), first row:
        // [1, 2, 2, 3, 3, 4, 4, 4]
        let a = ResizeAttrs {
            nearest_mode: NearestMode::Ceil,
            ..Default::default()
        };
        let y = resize(&grid(), None, ResizeTarget::Sizes(&[1, 1, 8, 8]), &a).unwrap();
        assert_eq!(&y.as_f32().unwrap()[..8], &[1., 2., 2., 3., 3., 4., 4., 4.]);
        // ..._floor_align_corners first row: [1, 1, 1, 2, 2, 3, 3, 4]
        let a = ResizeAttrs {
            nearest_mode: NearestMode::Floor,
            coord: CoordMode::AlignCorners,
            ..Default::default()
        };
        let y = resize(&grid(), None, ResizeTarget::Sizes(&[1, 1, 8, 8]), &a).unwrap();
        assert_eq!(&y.as_f32().unwrap()[..8], &[1., 1., 1., 2., 2., 3., 3., 4.]);
        // ..._round_prefer_ceil_asymmetric first row: [1, 2, 2, 3, 3, 4, 4, 4]
        let a = ResizeAttrs {
            nearest_mode: NearestMode::RoundPreferCeil,
            coord: CoordMode::Asymmetric,
            ..Default::default()
        };
        let y = resize(&grid(), None, ResizeTarget::Sizes(&[1, 1, 8, 8]), &a).unwrap();
        assert_eq!(&y.as_f32().unwrap()[..8], &[1., 2., 2., 3., 3., 4., 4., 4.]);
    }

    #[test]
    fn linear_and_cubic() {
        // resize_upsample_scales_linear: [[1,2],[3,4]] x2 half_pixel -> first row [1, 1.25, 1.75, 2]
        let x = Tensor::from_vec(vec![1, 1, 2, 2], vec![1f32, 2., 3., 4.]).unwrap();
        let a = ResizeAttrs {
            mode: ResizeMode::Linear,
            ..Default::default()
        };
        let y = resize(&x, None, ResizeTarget::Scales(&[1., 1., 2., 2.]), &a).unwrap();
        close(
            &y.as_f32().unwrap()[..8],
            &[1., 1.25, 1.75, 2., 1.5, 1.75, 2.25, 2.5],
            1e-4,
        );
        // ..._align_corners -> first row [1, 1.3333333, 1.6666667, 2]
        let a = ResizeAttrs {
            mode: ResizeMode::Linear,
            coord: CoordMode::AlignCorners,
            ..Default::default()
        };
        let y = resize(&x, None, ResizeTarget::Scales(&[1., 1., 2., 2.]), &a).unwrap();
        close(
            &y.as_f32().unwrap()[..4],
            &[1., 1.333_333_3, 1.666_666_7, 2.],
            1e-4,
        );
        // resize_downsample_scales_linear: [[1..4],[5..8]] scale 0.6 -> [[2.6666665, 4.3333335]]
        let x = Tensor::from_vec(vec![1, 1, 2, 4], (1..=8).map(|v| v as f32).collect()).unwrap();
        let a = ResizeAttrs {
            mode: ResizeMode::Linear,
            ..Default::default()
        };
        let y = resize(&x, None, ResizeTarget::Scales(&[1., 1., 0.6, 0.6]), &a).unwrap();
        close(y.as_f32().unwrap(), &[2.666_666_5, 4.333_333_5], 1e-4);
        // resize_upsample_scales_cubic (4x4 grid, x2, half_pixel): first row
        // [0.47265625, 0.76953125, 1.24609375, 1.875, 2.28125, 2.91015625, 3.38671875, 3.68359375]
        let a = ResizeAttrs {
            mode: ResizeMode::Cubic,
            ..Default::default()
        };
        let y = resize(&grid(), None, ResizeTarget::Scales(&[1., 1., 2., 2.]), &a).unwrap();
        close(
            &y.as_f32().unwrap()[..8],
            &[
                0.47265625, 0.76953125, 1.24609375, 1.875, 2.28125, 2.91015625, 3.38671875,
                3.68359375,
            ],
            1e-4,
        );
        // ..._cubic_A_n0p5_exclude_outside: first row starts [0.55882353, 0.81494204, 1.35698249]
        let a = ResizeAttrs {
            mode: ResizeMode::Cubic,
            cubic_coeff_a: -0.5,
            exclude_outside: true,
            ..Default::default()
        };
        let y = resize(&grid(), None, ResizeTarget::Scales(&[1., 1., 2., 2.]), &a).unwrap();
        close(
            &y.as_f32().unwrap()[..3],
            &[0.55882353, 0.81494204, 1.35698249],
            1e-4,
        );
    }

    #[test]
    fn antialias_downsample() {
        // onnx.reference Resize(antialias=1, scales [1,1,1,0.5]) on (arange(8) ** 2).reshape(1,1,1,8):
        // linear -> [0.875, 7, 21, 41.125], cubic -> [0.20703125, 5.986328125, 20.232421875, 42.58984375]
        let x =
            Tensor::from_vec(vec![1, 1, 1, 8], (0..8).map(|v| (v * v) as f32).collect()).unwrap();
        for (mode, want) in [
            (ResizeMode::Linear, [0.875, 7.0, 21.0, 41.125]),
            (
                ResizeMode::Cubic,
                [0.20703125, 5.986328125, 20.232421875, 42.58984375],
            ),
        ] {
            let a = ResizeAttrs {
                mode,
                antialias: true,
                ..Default::default()
            };
            let y = resize(&x, None, ResizeTarget::Scales(&[1., 1., 1., 0.5]), &a).unwrap();
            close(y.as_f32().unwrap(), &want, 1e-4);
        }
    }

    #[test]
    fn crop_and_resize_and_axes() {
        // resize_tf_crop_and_resize_extrapolation_value: roi [0,0,0.4,0.6,1,1,1.2,1.7], sizes 3x3, extrapolation 10
        // -> [[7.6, 10, 10], [12.4, 10, 10], [10, 10, 10]]
        let a = ResizeAttrs {
            mode: ResizeMode::Linear,
            coord: CoordMode::TfCropAndResize,
            extrapolation_value: 10.0,
            ..Default::default()
        };
        let roi = [0., 0., 0.4, 0.6, 1., 1., 1.2, 1.7];
        let y = resize(&grid(), Some(&roi), ResizeTarget::Sizes(&[1, 1, 3, 3]), &a).unwrap();
        close(
            y.as_f32().unwrap(),
            &[7.6, 10., 10., 12.4, 10., 10., 10., 10., 10.],
            1e-4,
        );
        // Axes [2, 3] with not_larger policy: sizes [7, 8] on 4x4 -> 7x7.
        let a = ResizeAttrs {
            axes: Some(vec![2, 3]),
            keep_aspect_ratio_policy: AspectPolicy::NotLarger,
            ..Default::default()
        };
        let y = resize(&grid(), None, ResizeTarget::Sizes(&[7, 8]), &a).unwrap();
        assert_eq!(y.shape(), &[1, 1, 7, 7]);
        assert!(resize(
            &grid(),
            None,
            ResizeTarget::Scales(&[2.0]),
            &ResizeAttrs::default()
        )
        .is_err());
    }
}
