//! Convolutions: Conv, ConvTranspose, ConvInteger and QLinearConv, N-D; Col2Im, DeformConv
//! and CausalConvWithState in submodules.
//!
//! Regular convolutions run as GEMM, straight on the input for pointwise (1x1, unit stride, unpadded)
//! kernels and through im2col otherwise; f32 ones on x86-64 with FMA unfold straight into packed
//! panels for nart's own tile kernels (module `packed`), with the same sums; depthwise and other
//! thin-group 1-D/2-D convolutions run as a direct stencil (module `direct`).
//! The bias is written into the output before the GEMM accumulates onto it.

mod causal;
mod col2im;
mod deform;
mod direct;
mod packed;

pub use causal::causal_conv_with_state;
pub use col2im::col2im;
pub use deform::deform_conv;
pub(crate) use direct::gather;

use crate::matmul::{float_gemm, per_axis_scale, MatrixFloat};
use crate::quant::{output_zero_point, qlinear_multiplier, qlinear_output, zero_point_values};
use crate::tensor::{checked_numel, numel};
use crate::{DType, KernelError, Result, Tensor};

/// ONNX `auto_pad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AutoPad {
    /// Use the explicit `pads`.
    #[default]
    NotSet,
    /// Pad so that `out = ceil(in / stride)`, extra padding at the end.
    SameUpper,
    /// Pad so that `out = ceil(in / stride)`, extra padding at the beginning.
    SameLower,
    /// No padding.
    Valid,
}

impl AutoPad {
    /// Parses the ONNX attribute string.
    pub fn parse(s: &str) -> Option<AutoPad> {
        Some(match s {
            "NOTSET" | "" => AutoPad::NotSet,
            "SAME_UPPER" => AutoPad::SameUpper,
            "SAME_LOWER" => AutoPad::SameLower,
            "VALID" => AutoPad::Valid,
            _ => return None,
        })
    }
}

/// Attributes of Conv and ConvInteger; empty vectors mean the ONNX defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvAttrs {
    /// Padding mode.
    pub auto_pad: AutoPad,
    /// Dilation per spatial axis (default 1).
    pub dilations: Vec<usize>,
    /// Number of groups (default 1).
    pub group: usize,
    /// Kernel spatial shape (default: from the weights).
    pub kernel_shape: Vec<usize>,
    /// Begin pads then end pads (default 0).
    pub pads: Vec<usize>,
    /// Stride per spatial axis (default 1).
    pub strides: Vec<usize>,
}

impl Default for ConvAttrs {
    fn default() -> Self {
        ConvAttrs {
            auto_pad: AutoPad::NotSet,
            dilations: vec![],
            group: 1,
            kernel_shape: vec![],
            pads: vec![],
            strides: vec![],
        }
    }
}

/// Spatial geometry of a sliding-window operator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Geom {
    pub input: Vec<usize>,
    pub kernel: Vec<usize>,
    pub strides: Vec<usize>,
    pub dilations: Vec<usize>,
    pub pad_begin: Vec<usize>,
    pub pad_end: Vec<usize>,
    pub out: Vec<usize>,
}

fn or_ones(op: &'static str, attr: &'static str, v: &[usize], nd: usize) -> Result<Vec<usize>> {
    if v.is_empty() {
        return Ok(vec![1; nd]);
    }
    if v.len() != nd || v.contains(&0) {
        return Err(KernelError::attr(
            op,
            attr,
            format!("expected {nd} positive values, got {v:?}"),
        ));
    }
    Ok(v.to_vec())
}

/// Computes padding and output size of a window operator (Conv and the pools).
#[allow(clippy::too_many_arguments)]
pub(crate) fn geometry(
    op: &'static str,
    input: &[usize],
    kernel: &[usize],
    strides: &[usize],
    dilations: &[usize],
    pads: &[usize],
    auto_pad: AutoPad,
    ceil_mode: bool,
) -> Result<Geom> {
    let nd = input.len();
    if kernel.len() != nd {
        return Err(KernelError::attr(
            op,
            "kernel_shape",
            format!("expected {nd} values, got {kernel:?}"),
        ));
    }
    let strides = or_ones(op, "strides", strides, nd)?;
    let dilations = or_ones(op, "dilations", dilations, nd)?;
    let pads = if pads.is_empty() {
        vec![0; 2 * nd]
    } else {
        pads.to_vec()
    };
    if pads.len() != 2 * nd {
        return Err(KernelError::attr(
            op,
            "pads",
            format!("expected {} values, got {pads:?}", 2 * nd),
        ));
    }
    let mut g = Geom {
        input: input.to_vec(),
        kernel: kernel.to_vec(),
        strides,
        dilations,
        pad_begin: vec![0; nd],
        pad_end: vec![0; nd],
        out: vec![0; nd],
    };
    for d in 0..nd {
        let ext = (g.kernel[d].max(1) - 1)
            .saturating_mul(g.dilations[d])
            .saturating_add(1);
        let (i, s) = (input[d], g.strides[d]);
        match auto_pad {
            AutoPad::NotSet => {
                g.pad_begin[d] = pads[d];
                g.pad_end[d] = pads[nd + d];
            }
            AutoPad::Valid => {}
            AutoPad::SameUpper | AutoPad::SameLower => {
                let out = i.div_ceil(s);
                let total =
                    ((out.max(1) - 1).saturating_mul(s).saturating_add(ext)).saturating_sub(i);
                let small = total / 2;
                if auto_pad == AutoPad::SameUpper {
                    g.pad_begin[d] = small;
                    g.pad_end[d] = total - small;
                } else {
                    g.pad_begin[d] = total - small;
                    g.pad_end[d] = small;
                }
            }
        }
        let padded = i
            .saturating_add(g.pad_begin[d])
            .saturating_add(g.pad_end[d]);
        if padded < ext {
            return Err(KernelError::shape(
                op,
                format!(
                    "kernel extent {ext} larger than padded input {padded} on spatial axis {d}"
                ),
            ));
        }
        let span = padded - ext;
        let mut out = if ceil_mode {
            span.div_ceil(s) + 1
        } else {
            span / s + 1
        };
        if ceil_mode && (out - 1) * s >= i + g.pad_begin[d] {
            // The last window must start inside the input or the begin padding.
            out -= 1;
        }
        g.out[d] = out;
    }
    checked_numel(op, &g.out)?;
    Ok(g)
}

/// Unfolds output lines `lines` (rows along the last spatial axis) of one group of one image (`cg`
/// channels) into the rows of a `[cg * prod(kernel), ld]` matrix, at columns `col0 ..`.
fn im2col<T: Copy + Default>(
    x: &[T],
    cg: usize,
    g: &Geom,
    col: &mut [T],
    ld: usize,
    col0: usize,
    lines: std::ops::Range<usize>,
) {
    let unfold = Unfold::new(g);
    let mut idx = unfold.scratch();
    let width = lines.len() * g.out[g.out.len() - 1];
    for r in 0..cg * unfold.ksz {
        let at = r * ld + col0;
        unfold.row(x, r, lines.clone(), &mut col[at..at + width], &mut idx);
    }
}

/// The rows of im2col's matrix one at a time: row `r = c * prod(kernel) + k` holds input channel
/// `c` as kernel tap `k` sees it at each output position.
struct Unfold<'g> {
    g: &'g Geom,
    /// Taps per channel (`prod(kernel)`).
    ksz: usize,
    /// Input positions per channel.
    isz: usize,
    in_strides: Vec<usize>,
}

impl<'g> Unfold<'g> {
    fn new(g: &'g Geom) -> Self {
        Unfold {
            g,
            ksz: numel(&g.kernel),
            isz: numel(&g.input),
            in_strides: crate::layout::strides(&g.input),
        }
    }

    /// Index scratch for [`Unfold::row`].
    fn scratch(&self) -> Vec<usize> {
        vec![0; 2 * self.g.input.len()]
    }

    /// Writes row `r` for output lines `lines` into `dst` (`lines.len() * last output extent`
    /// values, line after line); `idx` is [`Unfold::scratch`].
    fn row<T: Copy + Default>(
        &self,
        x: &[T],
        r: usize,
        lines: std::ops::Range<usize>,
        dst: &mut [T],
        idx: &mut [usize],
    ) {
        let g = self.g;
        let nd = g.input.len();
        let last = nd - 1;
        let last_o = g.out[last];
        let (kidx, oidx) = idx.split_at_mut(nd);
        let (c, kk) = (r / self.ksz, r % self.ksz);
        crate::layout::unravel(kk, &g.kernel, kidx);
        let (s, dl, pb, iw) = (
            g.strides[last],
            g.dilations[last],
            g.pad_begin[last] as isize,
            g.input[last] as isize,
        );
        if nd == 2 && s == 1 && g.strides[0] == 1 && last_o == g.input[1] {
            let off = (kidx[1] * dl) as isize - pb;
            self.rows_2d(x, c, kidx[0], off, lines, dst);
            return;
        }
        let line0 = lines.start;
        for line in lines {
            crate::layout::unravel(line, &g.out[..last], &mut oidx[..last]);
            let at = (line - line0) * last_o;
            let dst = &mut dst[at..at + last_o];
            let tap = tap_offset(g, &oidx[..last], kidx, &g.input, &self.in_strides);
            let Some(base) = tap.map(|o| o + c * self.isz) else {
                dst.fill(T::default());
                continue;
            };
            let off = (kidx[last] * dl) as isize - pb;
            if s == 1 && off >= 0 && off + last_o as isize <= iw {
                let start = base + off as usize;
                dst.copy_from_slice(&x[start..start + last_o]);
                continue;
            }
            // Output columns whose input is inside the row: lo..hi.
            let lo = if off >= 0 {
                0
            } else {
                ((-off) as usize).div_ceil(s).min(last_o)
            };
            let hi = if iw - 1 - off < 0 {
                0
            } else {
                (((iw - 1 - off) as usize) / s + 1).min(last_o)
            };
            let hi = hi.max(lo);
            dst[..lo].fill(T::default());
            dst[hi..].fill(T::default());
            if hi > lo {
                // In bounds: lo * s + off >= 0 by the choice of lo.
                let first = (base as isize + (lo * s) as isize + off) as usize;
                if s == 1 {
                    dst[lo..hi].copy_from_slice(&x[first..first + (hi - lo)]);
                } else if s == 2 && first + 2 * (hi - lo) <= x.len() {
                    // Pairs, which vectorize (stride 2 is most strided convolutions).
                    let src = x[first..first + 2 * (hi - lo)].chunks_exact(2);
                    for (v, pair) in dst[lo..hi].iter_mut().zip(src) {
                        *v = pair[0];
                    }
                } else {
                    let src = x[first..].iter().step_by(s);
                    for (v, &from) in dst[lo..hi].iter_mut().zip(src) {
                        *v = from;
                    }
                }
            }
        }
    }
}

impl Unfold<'_> {
    /// [`Unfold::row`] for 2-D geometries with unit strides and as many output as input columns
    /// (the "same" convolutions): the lines of a row are then consecutive input rows, moved by
    /// `off` columns, so all of them are one copy, after which the columns that fell off either
    /// edge of their input row are zeroed. Channel `c`, kernel row `ky`.
    fn rows_2d<T: Copy + Default>(
        &self,
        x: &[T],
        c: usize,
        ky: usize,
        off: isize,
        lines: std::ops::Range<usize>,
        dst: &mut [T],
    ) {
        let g = self.g;
        let (ih, w) = (g.input[0] as isize, g.input[1]);
        let dst = &mut dst[..lines.len() * w];
        // Output row y reads input row y + dy; the rows with one inside the input: y_lo..y_hi.
        let dy = (ky * g.dilations[0]) as isize - g.pad_begin[0] as isize;
        let clamp = |y: isize| y.clamp(lines.start as isize, lines.end as isize) as usize;
        let (y_lo, y_hi) = (clamp(-dy), clamp(ih - dy).max(clamp(-dy)));
        if off.unsigned_abs() >= w || y_lo == y_hi {
            dst.fill(T::default());
            return;
        }
        let (a, b) = ((y_lo - lines.start) * w, (y_hi - lines.start) * w);
        dst[..a].fill(T::default());
        dst[b..].fill(T::default());
        // Position p of `dst[a..b]` reads `x[start + p]`; those before the channel's first value
        // or past its last are edge columns, zeroed below.
        let chan = c * self.isz;
        let start = (chan + (y_lo as isize + dy) as usize * w) as isize + off;
        let skip = (chan as isize - start).max(0) as usize;
        let end = ((b - a) as isize)
            .min((chan + self.isz) as isize - start)
            .max(0) as usize;
        let block = &mut dst[a..b];
        let from = (start + skip as isize) as usize;
        block[skip..end].copy_from_slice(&x[from..from + (end - skip)]);
        block[end..].fill(T::default());
        for line in block.chunks_exact_mut(w) {
            if off < 0 {
                line[..off.unsigned_abs()].fill(T::default());
            } else {
                line[w - off as usize..].fill(T::default());
            }
        }
    }
}

/// Where kernel tap `tap` of window position `pos` falls on a grid of `extent` (row-major
/// `strides`), over the axes `pos` has: `pos * stride + tap * dilation - pad_begin` per axis, as
/// a flat offset, or `None` when it falls outside.
fn tap_offset(
    g: &Geom,
    pos: &[usize],
    tap: &[usize],
    extent: &[usize],
    strides: &[usize],
) -> Option<usize> {
    let mut at = 0;
    for d in 0..pos.len() {
        let i =
            (pos[d] * g.strides[d] + tap[d] * g.dilations[d]) as isize - g.pad_begin[d] as isize;
        if i < 0 || i >= extent[d] as isize {
            return None;
        }
        at += i as usize * strides[d];
    }
    Some(at)
}

/// Scatter-adds a `[cg * prod(kernel), prod(input)]` matrix into an image of spatial size `g.out`
/// (the transposed-convolution counterpart of [`im2col`], and ONNX Col2Im); `g.input` is the
/// source grid.
pub(crate) fn col2im_add<T: Copy + std::ops::AddAssign>(
    col: &[T],
    cg: usize,
    g: &Geom,
    y: &mut [T],
) {
    let nd = g.input.len();
    let ksz = numel(&g.kernel);
    let isz = numel(&g.input);
    let osz = numel(&g.out);
    let out_strides = crate::layout::strides(&g.out);
    let mut kidx = vec![0; nd];
    let mut pidx = vec![0; nd];
    for c in 0..cg {
        for kk in 0..ksz {
            crate::layout::unravel(kk, &g.kernel, &mut kidx);
            let row = (c * ksz + kk) * isz;
            for p in 0..isz {
                crate::layout::unravel(p, &g.input, &mut pidx);
                if let Some(o) = tap_offset(g, &pidx, &kidx, &g.out, &out_strides) {
                    y[c * osz + o] += col[row + p];
                }
            }
        }
    }
}

/// A float element that has a GEMM and a reusable scratch buffer.
trait GemmFloat: direct::DirectFloat + std::ops::AddAssign + MatrixFloat {
    /// `c = a * b`, or `c += a * b` when `accumulate`.
    #[allow(clippy::too_many_arguments)]
    fn gemm(
        m: usize,
        k: usize,
        n: usize,
        a: &[Self],
        sa: (usize, usize),
        b: &[Self],
        sb: (usize, usize),
        accumulate: bool,
        c: &mut [Self],
    ) {
        let beta = if accumulate { Self::ONE } else { Self::ZERO };
        float_gemm(m, k, n, a, sa, b, sb, beta, c)
    }

    /// Runs `f` on a scratch slice of `len` elements (contents unspecified), reused across calls on
    /// the same thread so that im2col does not allocate and fault in fresh pages every time.
    fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [Self]) -> R) -> R;

    /// The instruction set of [`packed`]'s kernels for this type on this CPU, if they run here
    /// (f32 on x86-64 with FMA).
    fn packed_isa() -> Option<packed::Isa> {
        None
    }

    /// `c [m, ld] = w [m, kdim] · im2col(images)` (`+=` when `accumulate`) through [`packed`],
    /// with the same sums as [`GemmFloat::gemm`]; only called with what
    /// [`GemmFloat::packed_isa`] gave.
    #[allow(clippy::too_many_arguments)]
    fn packed_gemm(
        _isa: packed::Isa,
        _g: &Geom,
        _images: &[&[Self]],
        _w: &[Self],
        _m: usize,
        _kdim: usize,
        _accumulate: bool,
        _c: &mut [Self],
    ) {
        unreachable!("packed_gemm without packed_isa");
    }
}

static PACKED_KERNELS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Lets f32 convolutions use the packed tile kernels where the CPU has them (the default), or
/// makes every convolution go through im2col and `matrixmultiply`, for the whole process. The
/// results are the same bits either way; benchmarks use it to compare the two.
pub fn use_packed_kernels(on: bool) {
    PACKED_KERNELS.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Scratch buffers larger than this many elements are released after use.
const SCRATCH_KEEP: usize = 1 << 23;

fn scratch<T: Copy + Default, R>(
    cell: &std::cell::RefCell<Vec<T>>,
    len: usize,
    f: impl FnOnce(&mut [T]) -> R,
) -> R {
    match cell.try_borrow_mut() {
        Ok(mut v) => {
            if v.len() < len {
                v.resize(len, T::default());
            }
            let r = f(&mut v[..len]);
            if v.len() > SCRATCH_KEEP {
                *v = Vec::new();
            }
            r
        }
        // Re-entered on the same thread: use a fresh buffer.
        Err(_) => f(&mut vec![T::default(); len]),
    }
}

thread_local! {
    static SCRATCH_F32: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
    static SCRATCH_F64: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The packed column panels of [`packed`] (the im2col buffer above may be in use by a caller).
    static PANELS: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl GemmFloat for f32 {
    fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [f32]) -> R) -> R {
        SCRATCH_F32.with(|cell| scratch(cell, len, f))
    }

    fn packed_isa() -> Option<packed::Isa> {
        static ISA: std::sync::OnceLock<Option<packed::Isa>> = std::sync::OnceLock::new();
        if !PACKED_KERNELS.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        *ISA.get_or_init(packed::Isa::detect)
    }

    fn packed_gemm(
        isa: packed::Isa,
        g: &Geom,
        images: &[&[f32]],
        w: &[f32],
        m: usize,
        kdim: usize,
        accumulate: bool,
        c: &mut [f32],
    ) {
        let last_o = g.out[g.out.len() - 1];
        let cols = packed::Columns {
            images: images.to_vec(),
            lines: numel(&g.out) / last_o,
            line_len: last_o,
        };
        packed::gemm(isa, g, &cols, w, m, kdim, accumulate, c);
    }
}

impl GemmFloat for f64 {
    fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [f64]) -> R) -> R {
        SCRATCH_F64.with(|cell| scratch(cell, len, f))
    }
}

/// Checked shapes of a convolution: (batch, channels, out channels, spatial geometry).
fn conv_setup(
    op: &'static str,
    x: &[usize],
    w: &[usize],
    attrs: &ConvAttrs,
) -> Result<(usize, usize, usize, Geom)> {
    if x.len() < 3 || w.len() != x.len() {
        return Err(KernelError::shape(
            op,
            format!("X {x:?} and W {w:?} must have the same rank >= 3"),
        ));
    }
    let group = attrs.group;
    let (n, c, m) = (x[0], x[1], w[0]);
    if group == 0 || c % group != 0 || m % group != 0 || w[1] * group != c {
        return Err(KernelError::shape(
            op,
            format!("channels: X has {c}, W {w:?}, group {group}"),
        ));
    }
    let kernel = if attrs.kernel_shape.is_empty() {
        w[2..].to_vec()
    } else {
        attrs.kernel_shape.clone()
    };
    if kernel != w[2..] {
        return Err(KernelError::attr(
            op,
            "kernel_shape",
            format!("{kernel:?} does not match W {w:?}"),
        ));
    }
    let g = geometry(
        op,
        &x[2..],
        &kernel,
        &attrs.strides,
        &attrs.dilations,
        &attrs.pads,
        attrs.auto_pad,
        false,
    )?;
    Ok((n, c, m, g))
}

/// Upper bound on the GEMM width (images times output positions) when batching small images into one GEMM.
const BATCH_COLS: usize = 1024;

/// Which algorithm [`conv_core`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ConvPath {
    /// Per-channel stencil (module `direct`), for depthwise and other thin-group convolutions.
    Direct,
    /// 1x1 kernel, unit stride, no padding: GEMM straight on the input.
    Pointwise,
    /// im2col then GEMM.
    Im2col,
}

fn conv_path(c: usize, group: usize, g: &Geom) -> ConvPath {
    if direct::worthwhile(group, c / group) && direct::Plan::new(g).is_some() {
        ConvPath::Direct
    } else if g.kernel.iter().all(|&k| k == 1)
        && g.strides.iter().all(|&s| s == 1)
        && g.pad_begin.iter().chain(&g.pad_end).all(|&p| p == 0)
    {
        ConvPath::Pointwise
    } else {
        ConvPath::Im2col
    }
}

/// Convolution of `x [n, c, ...]` with `w [m, c / group, ...]` plus an optional per-channel bias.
#[allow(clippy::too_many_arguments)]
fn conv_core<T: GemmFloat>(
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    n: usize,
    c: usize,
    m: usize,
    group: usize,
    g: &Geom,
) -> Vec<T> {
    let path = conv_path(c, group, g);
    conv_core_with(path, T::packed_isa(), x, w, bias, n, c, m, group, g)
}

#[allow(clippy::too_many_arguments)]
fn conv_core_with<T: GemmFloat>(
    path: ConvPath,
    packed: Option<packed::Isa>,
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
    n: usize,
    c: usize,
    m: usize,
    group: usize,
    g: &Geom,
) -> Vec<T> {
    let cg = c / group;
    let mg = m / group;
    let ksz = numel(&g.kernel);
    let isz = numel(&g.input);
    let osz = numel(&g.out);
    let kdim = cg * ksz;
    let mut y = vec![T::default(); n * m * osz];
    if osz == 0 || m == 0 {
        return y;
    }
    if path == ConvPath::Direct {
        if let Some(plan) = direct::Plan::new(g) {
            direct::conv(x, w, &mut y, n, c, m, group, &plan);
            if let Some(bias) = bias {
                add_bias(&mut y, bias, m, osz);
            }
            return y;
        }
    }
    // The bias is written first and the GEMM accumulates onto it.
    if let Some(bias) = bias {
        fill_bias(&mut y, bias, m, osz);
    }
    let acc = bias.is_some();
    // Where the packed kernels run (f32 on x86-64 with FMA), they do pointwise convolutions too:
    // unfolding a 1x1 kernel is the copy that `matrixmultiply` would make when packing.
    let packed = packed.filter(|_| path != ConvPath::Direct);
    // Small images are unfolded side by side so that one GEMM covers several of them.
    let chunk = if group == 1 && n > 1 {
        (BATCH_COLS / osz).clamp(1, n)
    } else {
        1
    };
    if chunk == 1 && path == ConvPath::Pointwise && packed.is_none() {
        for b in 0..n {
            for gi in 0..group {
                let xs = &x[(b * c + gi * cg) * isz..(b * c + (gi + 1) * cg) * isz];
                let ws = &w[gi * mg * kdim..(gi + 1) * mg * kdim];
                let ys = &mut y[(b * m + gi * mg) * osz..(b * m + (gi + 1) * mg) * osz];
                T::gemm(mg, kdim, osz, ws, (kdim, 1), xs, (osz, 1), acc, ys);
            }
        }
        return y;
    }
    let last_o = g.out[g.out.len() - 1];
    let nlines = osz / last_o;
    // The packed kernels unfold into buffers of their own.
    let col_len = if packed.is_some() { 0 } else { kdim * osz };
    if chunk == 1 {
        T::with_scratch(col_len, |col| {
            for b in 0..n {
                for gi in 0..group {
                    let xs = &x[(b * c + gi * cg) * isz..(b * c + (gi + 1) * cg) * isz];
                    let ws = &w[gi * mg * kdim..(gi + 1) * mg * kdim];
                    let ys = &mut y[(b * m + gi * mg) * osz..(b * m + (gi + 1) * mg) * osz];
                    if let Some(isa) = packed {
                        T::packed_gemm(isa, g, &[xs], ws, mg, kdim, acc, ys);
                        continue;
                    }
                    im2col(xs, cg, g, col, osz, 0, 0..nlines);
                    T::gemm(mg, kdim, osz, ws, (kdim, 1), col, (osz, 1), acc, ys);
                }
            }
        });
        return y;
    }
    // group == 1: unfold `chunk` images into [kdim, chunk * osz], one GEMM into [m, chunk * osz],
    // then scatter the rows back to [chunk, m, osz].
    let mut tmp = vec![T::default(); m * chunk * osz];
    T::with_scratch(col_len * chunk, |col| {
        for b0 in (0..n).step_by(chunk) {
            let nb = chunk.min(n - b0);
            let ld = nb * osz;
            let t = &mut tmp[..m * ld];
            for (oc, row) in t.chunks_exact_mut(ld).enumerate() {
                row.fill(bias.map_or(T::default(), |b| b[oc]));
            }
            let images: Vec<&[T]> = (b0..b0 + nb)
                .map(|b| &x[b * c * isz..(b + 1) * c * isz])
                .collect();
            if let Some(isa) = packed {
                T::packed_gemm(isa, g, &images, w, m, kdim, acc, t);
            } else {
                for (bi, xs) in images.iter().enumerate() {
                    im2col(xs, c, g, col, ld, bi * osz, 0..nlines);
                }
                let col = &col[..kdim * ld];
                T::gemm(m, kdim, ld, w, (kdim, 1), col, (ld, 1), acc, t);
            }
            for bi in 0..nb {
                for oc in 0..m {
                    let dst = &mut y[((b0 + bi) * m + oc) * osz..((b0 + bi) * m + oc + 1) * osz];
                    dst.copy_from_slice(&t[oc * ld + bi * osz..oc * ld + (bi + 1) * osz]);
                }
            }
        }
    });
    y
}

fn fill_bias<T: Copy>(y: &mut [T], bias: &[T], m: usize, osz: usize) {
    for (i, chunk) in y.chunks_mut(osz).enumerate() {
        chunk.fill(bias[i % m]);
    }
}

fn add_bias<T: Copy + std::ops::AddAssign>(y: &mut [T], bias: &[T], m: usize, osz: usize) {
    for (i, chunk) in y.chunks_mut(osz).enumerate() {
        let b = bias[i % m];
        chunk.iter_mut().for_each(|v| *v += b);
    }
}

/// ONNX Conv: `X [N, C, D...]`, `W [M, C/group, K...]`, optional `B [M]`.
pub fn conv(x: &Tensor, w: &Tensor, b: Option<&Tensor>, attrs: &ConvAttrs) -> Result<Tensor> {
    const OP: &str = "Conv";
    let (n, c, m, g) = conv_setup(OP, x.shape(), w.shape(), attrs)?;
    if x.dtype() != w.dtype() {
        return Err(KernelError::DTypeMismatch {
            op: OP,
            a: x.dtype(),
            b: w.dtype(),
        });
    }
    if !x.dtype().is_float() {
        return Err(KernelError::dtype(OP, x.dtype()));
    }
    if let Some(b) = b {
        if b.shape() != [m] {
            return Err(KernelError::shape(
                OP,
                format!("bias {:?} must be [{m}]", b.shape()),
            ));
        }
    }
    let mut shape = vec![n, m];
    shape.extend(&g.out);
    if let (Some(xv), Some(wv)) = (x.as_f32(), w.as_f32()) {
        let bias = b.map(Tensor::to_f32_vec).transpose()?;
        let y = conv_core(xv, wv, bias.as_deref(), n, c, m, attrs.group, &g);
        return Tensor::from_vec(shape, y);
    }
    let bias = b.map(Tensor::to_f64_vec).transpose()?;
    let (xv, wv) = (x.to_f64_vec()?, w.to_f64_vec()?);
    let y = conv_core(&xv, &wv, bias.as_deref(), n, c, m, attrs.group, &g);
    Tensor::from_f64(x.dtype(), shape, y)
}

/// Attributes of ConvTranspose; empty vectors mean the ONNX defaults.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ConvTransposeAttrs {
    /// The Conv-like attributes.
    pub conv: ConvAttrs,
    /// Extra size added at the end of each spatial axis (default 0).
    pub output_padding: Vec<usize>,
    /// Requested spatial output shape; when set, pads are derived from it.
    pub output_shape: Vec<usize>,
}

/// ONNX ConvTranspose: `X [N, C, D...]`, `W [C, M/group, K...]`, optional `B [M]`.
pub fn conv_transpose(
    x: &Tensor,
    w: &Tensor,
    b: Option<&Tensor>,
    attrs: &ConvTransposeAttrs,
) -> Result<Tensor> {
    const OP: &str = "ConvTranspose";
    let (xs, ws) = (x.shape(), w.shape());
    if xs.len() < 3 || ws.len() != xs.len() {
        return Err(KernelError::shape(
            OP,
            format!("X {xs:?} and W {ws:?} must have the same rank >= 3"),
        ));
    }
    if x.dtype() != w.dtype() {
        return Err(KernelError::DTypeMismatch {
            op: OP,
            a: x.dtype(),
            b: w.dtype(),
        });
    }
    if !x.dtype().is_float() {
        return Err(KernelError::dtype(OP, x.dtype()));
    }
    let a = &attrs.conv;
    let group = a.group;
    let (n, c) = (xs[0], xs[1]);
    if group == 0 || ws[0] != c || c % group != 0 {
        return Err(KernelError::shape(
            OP,
            format!("channels: X has {c}, W {ws:?}, group {group}"),
        ));
    }
    let mg = ws[1];
    let m = mg * group;
    let nd = xs.len() - 2;
    let kernel = if a.kernel_shape.is_empty() {
        ws[2..].to_vec()
    } else {
        a.kernel_shape.clone()
    };
    if kernel != ws[2..] {
        return Err(KernelError::attr(
            OP,
            "kernel_shape",
            format!("{kernel:?} does not match W {ws:?}"),
        ));
    }
    let strides = or_ones(OP, "strides", &a.strides, nd)?;
    let dilations = or_ones(OP, "dilations", &a.dilations, nd)?;
    let out_pad = if attrs.output_padding.is_empty() {
        vec![0; nd]
    } else {
        attrs.output_padding.clone()
    };
    if out_pad.len() != nd {
        return Err(KernelError::attr(
            OP,
            "output_padding",
            format!("expected {nd} values"),
        ));
    }
    let mut pads = if a.pads.is_empty() {
        vec![0; 2 * nd]
    } else {
        a.pads.clone()
    };
    if pads.len() != 2 * nd {
        return Err(KernelError::attr(
            OP,
            "pads",
            format!("expected {} values", 2 * nd),
        ));
    }
    let input = &xs[2..];
    let want: Option<Vec<usize>> = if !attrs.output_shape.is_empty() {
        let os = &attrs.output_shape;
        // output_shape may include N and C.
        let os = if os.len() == nd + 2 {
            &os[2..]
        } else {
            &os[..]
        };
        if os.len() != nd {
            return Err(KernelError::attr(
                OP,
                "output_shape",
                format!("expected {nd} values"),
            ));
        }
        Some(os.to_vec())
    } else if matches!(a.auto_pad, AutoPad::SameUpper | AutoPad::SameLower) {
        Some((0..nd).map(|d| input[d] * strides[d]).collect())
    } else {
        None
    };
    let mut out = vec![0; nd];
    for d in 0..nd {
        let ext = (kernel[d].max(1) - 1)
            .saturating_mul(dilations[d])
            .saturating_add(1);
        let full = strides[d]
            .saturating_mul(input[d].max(1) - 1)
            .saturating_add(out_pad[d])
            .saturating_add(ext);
        if let Some(want) = &want {
            // Python-style floor division, as in the ONNX reference; a negative end pad adds zeros.
            let total = full as isize - want[d] as isize;
            let half = total.div_euclid(2);
            let (begin, end) = if a.auto_pad == AutoPad::SameUpper {
                (half, total - half)
            } else {
                (total - half, half)
            };
            if begin < 0 {
                return Err(KernelError::attr(
                    OP,
                    "output_shape",
                    format!("{want:?} is too large for the input"),
                ));
            }
            pads[d] = begin as usize;
            pads[nd + d] = end.max(0) as usize;
            out[d] = want[d];
        } else {
            if a.auto_pad == AutoPad::Valid {
                pads[d] = 0;
                pads[nd + d] = 0;
            }
            let p = pads[d] + pads[nd + d];
            if full < p {
                return Err(KernelError::attr(OP, "pads", "pads exceed the output size"));
            }
            out[d] = full - p;
        }
    }
    checked_numel(OP, &out)?;
    let g = Geom {
        input: input.to_vec(),
        kernel,
        strides,
        dilations,
        pad_begin: pads[..nd].to_vec(),
        pad_end: pads[nd..].to_vec(),
        out: out.clone(),
    };
    if let Some(b) = b {
        if b.shape() != [m] {
            return Err(KernelError::shape(
                OP,
                format!("bias {:?} must be [{m}]", b.shape()),
            ));
        }
    }
    let mut shape = vec![n, m];
    shape.extend(&out);
    if let (Some(xv), Some(wv)) = (x.as_f32(), w.as_f32()) {
        let mut y = conv_transpose_core(xv, wv, n, c, m, group, &g);
        if let Some(b) = b {
            add_bias(&mut y, &b.to_f32_vec()?, m, numel(&out));
        }
        return Tensor::from_vec(shape, y);
    }
    let mut y = conv_transpose_core(&x.to_f64_vec()?, &w.to_f64_vec()?, n, c, m, group, &g);
    if let Some(b) = b {
        add_bias(&mut y, &b.to_f64_vec()?, m, numel(&out));
    }
    Tensor::from_f64(x.dtype(), shape, y)
}

fn conv_transpose_core<T: GemmFloat>(
    x: &[T],
    w: &[T],
    n: usize,
    c: usize,
    m: usize,
    group: usize,
    g: &Geom,
) -> Vec<T> {
    let cg = c / group;
    let mg = m / group;
    let ksz = numel(&g.kernel);
    let isz = numel(&g.input);
    let osz = numel(&g.out);
    let rows = mg * ksz;
    let mut y = vec![T::default(); n * m * osz];
    let mut col = vec![T::default(); rows * isz];
    for b in 0..n {
        for gi in 0..group {
            let xs = &x[(b * c + gi * cg) * isz..(b * c + (gi + 1) * cg) * isz];
            // W_g is [cg, mg * ksz]; col = W_g^T * X_g.
            let ws = &w[gi * cg * rows..(gi + 1) * cg * rows];
            T::gemm(rows, cg, isz, ws, (1, rows), xs, (isz, 1), false, &mut col);
            let ys = &mut y[(b * m + gi * mg) * osz..(b * m + (gi + 1) * mg) * osz];
            col2im_add(&col, mg, g, ys);
        }
    }
    y
}

/// ONNX ConvInteger: convolution of `(x - x_zero_point)` and `(w - w_zero_point)` accumulated in int32.
///
/// `w_zero_point` may be a scalar or one value per output channel.
pub fn conv_integer(
    x: &Tensor,
    w: &Tensor,
    x_zp: Option<&Tensor>,
    w_zp: Option<&Tensor>,
    attrs: &ConvAttrs,
) -> Result<Tensor> {
    let acc = integer_conv_acc("ConvInteger", x, w, x_zp, w_zp, attrs)?;
    let (shape, v) = acc;
    Tensor::from_i128(
        DType::I32,
        shape,
        v.into_iter().map(|a| a as i128).collect(),
    )
}

/// Exact integer accumulation shared by ConvInteger and QLinearConv (through f64 GEMM; exact below 2^53).
fn integer_conv_acc(
    op: &'static str,
    x: &Tensor,
    w: &Tensor,
    x_zp: Option<&Tensor>,
    w_zp: Option<&Tensor>,
    attrs: &ConvAttrs,
) -> Result<(Vec<usize>, Vec<f64>)> {
    for t in [x, w] {
        if !matches!(t.dtype(), DType::I8 | DType::U8) {
            return Err(KernelError::dtype(op, t.dtype()));
        }
    }
    let (n, c, m, g) = conv_setup(op, x.shape(), w.shape(), attrs)?;
    let xz = zero_point_values(op, x_zp, 1)?;
    let wz = zero_point_values(op, w_zp, m)?;
    let xv: Vec<f64> = x
        .to_i128_vec()?
        .into_iter()
        .map(|v| (v - xz[0]) as f64)
        .collect();
    let per_m = w.len() / m.max(1);
    let wv: Vec<f64> = w
        .to_i128_vec()?
        .into_iter()
        .enumerate()
        .map(|(i, v)| (v - wz[i / per_m]) as f64)
        .collect();
    let y = conv_core(&xv, &wv, None, n, c, m, attrs.group, &g);
    let mut shape = vec![n, m];
    shape.extend(&g.out);
    Ok((shape, y))
}

/// Quantized inputs of QLinearConv.
#[derive(Clone, Copy, Debug)]
pub struct QLinearConvInputs<'a> {
    /// Quantized input.
    pub x: &'a Tensor,
    /// Input scale (scalar).
    pub x_scale: &'a Tensor,
    /// Input zero point (scalar).
    pub x_zero_point: &'a Tensor,
    /// Quantized weights.
    pub w: &'a Tensor,
    /// Weight scale (scalar or per output channel).
    pub w_scale: &'a Tensor,
    /// Weight zero point (scalar or per output channel).
    pub w_zero_point: &'a Tensor,
    /// Output scale (scalar).
    pub y_scale: &'a Tensor,
    /// Output zero point (scalar); its type is the output type.
    pub y_zero_point: &'a Tensor,
    /// Optional int32 bias quantized with scale `x_scale * w_scale` and zero point 0.
    pub bias: Option<&'a Tensor>,
}

/// ONNX QLinearConv, bit for bit as ONNX's reference evaluator computes it: the accumulator
/// (with the bias) in wrapping `i32`, times `f32(f32(x_scale · w_scale[c]) / y_scale)` in `f64`,
/// plus the output zero point, rounded half to even and clamped to the output type.
pub fn qlinear_conv(q: QLinearConvInputs<'_>, attrs: &ConvAttrs) -> Result<Tensor> {
    const OP: &str = "QLinearConv";
    let (shape, acc) = integer_conv_acc(
        OP,
        q.x,
        q.w,
        Some(q.x_zero_point),
        Some(q.w_zero_point),
        attrs,
    )?;
    let m = shape[1];
    let osz = numel(&shape[2..]);
    let xs = q.x_scale.to_f64_vec()?;
    if xs.len() != 1 {
        return Err(KernelError::shape(OP, "x_scale must be a scalar"));
    }
    let ws = per_axis_scale(OP, q.w_scale, m)?;
    let ys = q.y_scale.to_f64_vec()?;
    if ys.len() != 1 {
        return Err(KernelError::shape(OP, "y_scale must be a scalar"));
    }
    let bias: Vec<i32> = match q.bias {
        Some(b) => {
            if b.len() != m {
                return Err(KernelError::shape(
                    OP,
                    format!("bias must have {m} entries"),
                ));
            }
            b.to_i128_vec()?.into_iter().map(|v| v as i32).collect()
        }
        None => vec![0; m],
    };
    let (zy, lo, hi) = output_zero_point(OP, q.y_zero_point)?;
    let mult: Vec<f32> = ws
        .iter()
        .map(|&w| qlinear_multiplier(xs[0], w, ys[0], DType::F32))
        .collect();
    let y: Vec<i128> = acc
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            let oc = (i / osz.max(1)) % m;
            let acc = (a as i128 as i32).wrapping_add(bias[oc]);
            qlinear_output(acc, mult[oc], zy, lo, hi)
        })
        .collect();
    Tensor::from_i128(q.y_zero_point.dtype(), shape, y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{ar, f};

    #[test]
    fn conv2d_onnx_doc_example() {
        // ONNX Conv doc: x = arange(25).reshape(1,1,5,5), W = ones(1,1,3,3).
        let x = ar(&[1, 1, 5, 5]);
        let w = f(&[1, 1, 3, 3], vec![1.0; 9]);
        let attrs = ConvAttrs {
            pads: vec![1, 1, 1, 1],
            ..Default::default()
        };
        let y = conv(&x, &w, None, &attrs).unwrap();
        assert_eq!(y.shape(), &[1, 1, 5, 5]);
        assert_eq!(
            y.as_f32().unwrap(),
            &[
                12., 21., 27., 33., 24., 33., 54., 63., 72., 51., 63., 99., 108., 117., 81., 93.,
                144., 153., 162., 111., 72., 111., 117., 123., 84.
            ]
        );
        let y = conv(&x, &w, None, &ConvAttrs::default()).unwrap();
        assert_eq!(
            y.as_f32().unwrap(),
            &[54., 63., 72., 99., 108., 117., 144., 153., 162.]
        );
        // conv_with_strides_and_asymmetric_padding: strides 2, pads [1, 0, 1, 0] on a 7x5 input.
        let x = ar(&[1, 1, 7, 5]);
        let attrs = ConvAttrs {
            pads: vec![1, 0, 1, 0],
            strides: vec![2, 2],
            ..Default::default()
        };
        let y = conv(&x, &w, None, &attrs).unwrap();
        assert_eq!(y.shape(), &[1, 1, 4, 2]);
        assert_eq!(
            y.as_f32().unwrap(),
            &[21., 33., 99., 117., 189., 207., 171., 183.]
        );
        let y = conv(
            &x,
            &w,
            None,
            &ConvAttrs {
                auto_pad: AutoPad::SameLower,
                strides: vec![2, 2],
                ..Default::default()
            },
        );
        assert_eq!(y.unwrap().shape(), &[1, 1, 4, 3]);
    }

    #[test]
    fn conv_groups_dilation_bias_1d_3d() {
        // Depthwise 1-D: two channels, kernel [1, 1] with dilation 2, bias [10, 20].
        let x = f(
            &[1, 2, 5],
            vec![1., 2., 3., 4., 5., 10., 20., 30., 40., 50.],
        );
        let w = f(&[2, 1, 2], vec![1., 1., 1., -1.]);
        let b = f(&[2], vec![10., 20.]);
        let attrs = ConvAttrs {
            group: 2,
            dilations: vec![2],
            ..Default::default()
        };
        let y = conv(&x, &w, Some(&b), &attrs).unwrap();
        assert_eq!(y.shape(), &[1, 2, 3]);
        assert_eq!(y.as_f32().unwrap(), &[14., 16., 18., 0., 0., 0.]);
        // 3-D: ones kernel 2x2x2 over arange(27).reshape(1,1,3,3,3) -> sums of 2x2x2 blocks.
        let x = ar(&[1, 1, 3, 3, 3]);
        let w = f(&[1, 1, 2, 2, 2], vec![1.0; 8]);
        let y = conv(&x, &w, None, &ConvAttrs::default()).unwrap();
        // block at origin: 0+1+3+4+9+10+12+13 = 52
        assert_eq!(
            y.as_f32().unwrap(),
            &[52., 60., 76., 84., 124., 132., 148., 156.]
        );
        assert!(conv(
            &x,
            &f(&[1, 2, 2, 2, 2], vec![0.0; 16]),
            None,
            &ConvAttrs::default()
        )
        .is_err());
        // f64 path agrees with f32.
        let y64 = conv(
            &x.cast(DType::F64).unwrap(),
            &w.cast(DType::F64).unwrap(),
            None,
            &ConvAttrs::default(),
        );
        assert_eq!(y64.unwrap().to_f32_vec().unwrap(), y.to_f32_vec().unwrap());
    }

    #[test]
    fn conv_transpose_cases() {
        // ONNX ConvTranspose doc: x = arange(9).reshape(1,1,3,3), W = ones(1,2,3,3) -> [1,2,5,5].
        let x = ar(&[1, 1, 3, 3]);
        let w = f(&[1, 2, 3, 3], vec![1.0; 18]);
        let y = conv_transpose(&x, &w, None, &ConvTransposeAttrs::default()).unwrap();
        assert_eq!(y.shape(), &[1, 2, 5, 5]);
        let first: Vec<f32> = y.as_f32().unwrap()[..25].to_vec();
        assert_eq!(
            first,
            vec![
                0., 1., 3., 3., 2., 3., 8., 15., 12., 7., 9., 21., 36., 27., 15., 9., 20., 33.,
                24., 13., 6., 13., 21., 15., 8.
            ]
        );
        // convtranspose_1d: x = [0, 1, 2], W = ones(1, 2, 3) -> [0, 1, 3, 3, 2] per channel.
        let y = conv_transpose(
            &ar(&[1, 1, 3]),
            &f(&[1, 2, 3], vec![1.0; 6]),
            None,
            &ConvTransposeAttrs::default(),
        );
        assert_eq!(
            y.unwrap().as_f32().unwrap(),
            &[0., 1., 3., 3., 2., 0., 1., 3., 3., 2.]
        );
        // Strides [3, 2], pads [1, 2, 1, 2], output_padding [1, 1]: onnx.reference gives shape (1, 2, 8, 4).
        let attrs = ConvTransposeAttrs {
            conv: ConvAttrs {
                strides: vec![3, 2],
                pads: vec![1, 2, 1, 2],
                ..Default::default()
            },
            output_padding: vec![1, 1],
            ..Default::default()
        };
        let y = conv_transpose(&x, &w, None, &attrs).unwrap();
        assert_eq!(y.shape(), &[1, 2, 8, 4]);
        let attrs = ConvTransposeAttrs {
            conv: ConvAttrs {
                strides: vec![3, 2],
                ..Default::default()
            },
            output_shape: vec![10, 8],
            ..Default::default()
        };
        let y = conv_transpose(&x, &w, None, &attrs).unwrap();
        assert_eq!(y.shape(), &[1, 2, 10, 8]);
        // onnx convtranspose_output_shape row 0: [0, 0, 1, 1, 3, 2, 2, 0]
        assert_eq!(&y.as_f32().unwrap()[..8], &[0., 0., 1., 1., 3., 2., 2., 0.]);
    }

    #[test]
    fn integer_convs() {
        // ONNX ConvInteger doc: x = arange(2, 11) uint8 [1,1,3,3], x_zero_point 1, W ones [1,1,2,2] -> [12,16,24,28].
        let x = Tensor::from_vec(vec![1, 1, 3, 3], (2u8..11).collect()).unwrap();
        let w = Tensor::from_vec(vec![1, 1, 2, 2], vec![1u8; 4]).unwrap();
        let y = conv_integer(
            &x,
            &w,
            Some(&Tensor::scalar(1u8)),
            None,
            &ConvAttrs::default(),
        )
        .unwrap();
        assert_eq!(y.dtype(), DType::I32);
        assert_eq!(y.as_slice::<i32>().unwrap(), &[12, 16, 24, 28]);
        // QLinearConv with unit scales reduces to ConvInteger plus zero point.
        let one = Tensor::scalar(1f32);
        let q = QLinearConvInputs {
            x: &x,
            x_scale: &one,
            x_zero_point: &Tensor::scalar(1u8),
            w: &w,
            w_scale: &Tensor::scalar(0.5f32),
            w_zero_point: &Tensor::scalar(0u8),
            y_scale: &one,
            y_zero_point: &Tensor::scalar(100u8),
            bias: Some(&Tensor::vector(vec![2i32])),
        };
        let y = qlinear_conv(q, &ConvAttrs::default()).unwrap();
        // (acc + 2) * 0.5 + 100 = [107, 109, 113, 115]
        assert_eq!(y.as_slice::<u8>().unwrap(), &[107, 109, 113, 115]);
    }

    /// Deterministic pseudo-random values in [-1, 1).
    /// The geometry of a one-image convolution of `c` channels (one output channel).
    pub(super) fn geometry(
        c: usize,
        input: &[usize],
        kernel: &[usize],
        strides: Vec<usize>,
        dilations: Vec<usize>,
        pads: Vec<usize>,
    ) -> Geom {
        let mut xs = vec![1, c];
        xs.extend(input);
        let mut ws = vec![1, c];
        ws.extend(kernel);
        let attrs = ConvAttrs {
            strides,
            dilations,
            pads,
            ..Default::default()
        };
        conv_setup("Conv", &xs, &ws, &attrs).unwrap().3
    }

    pub(super) fn rand(seed: &mut u64, len: usize) -> Vec<f32> {
        (0..len)
            .map(|_| {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((*seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
            })
            .collect()
    }

    fn close_to(got: &[f32], want: &[f32], what: &str) {
        assert_eq!(got.len(), want.len(), "{what}");
        for (i, (a, b)) in got.iter().zip(want).enumerate() {
            assert!(
                (a - b).abs() <= 1e-5 * (1.0 + b.abs()),
                "{what}: element {i}: {a} vs {b}"
            );
        }
    }

    /// One random convolution case: (n, c, m, group, input, kernel, strides, dilations, pads).
    pub(super) type Case = (
        usize,
        usize,
        usize,
        usize,
        Vec<usize>,
        Vec<usize>,
        Vec<usize>,
        Vec<usize>,
        Vec<usize>,
    );

    fn run_paths(case: &Case, paths: &[ConvPath], seed: &mut u64) {
        let (n, c, m, group, input, kernel, strides, dilations, pads) = case;
        let mut xs = vec![*n, *c];
        xs.extend(input);
        let mut ws = vec![*m, c / group];
        ws.extend(kernel);
        let attrs = ConvAttrs {
            group: *group,
            strides: strides.clone(),
            dilations: dilations.clone(),
            pads: pads.clone(),
            ..Default::default()
        };
        let (n, c, m, g) = conv_setup("Conv", &xs, &ws, &attrs).unwrap();
        let x = rand(seed, numel(&xs));
        let w = rand(seed, numel(&ws));
        let b = rand(seed, m);
        for bias in [None, Some(&b[..])] {
            let want = conv_core_with(ConvPath::Im2col, None, &x, &w, bias, n, c, m, *group, &g);
            for &path in paths {
                let packed = f32::packed_isa();
                let got = conv_core_with(path, packed, &x, &w, bias, n, c, m, *group, &g);
                close_to(&got, &want, &format!("{path:?} on {case:?}"));
                // The f64 instantiation agrees as well.
                let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
                let w64: Vec<f64> = w.iter().map(|&v| v as f64).collect();
                let b64: Vec<f64> = b.iter().map(|&v| v as f64).collect();
                let got64 = conv_core_with(
                    path,
                    None,
                    &x64,
                    &w64,
                    bias.map(|_| &b64[..]),
                    n,
                    c,
                    m,
                    *group,
                    &g,
                );
                let got64: Vec<f32> = got64.iter().map(|&v| v as f32).collect();
                close_to(&got64, &want, &format!("f64 {path:?} on {case:?}"));
            }
        }
    }

    #[test]
    fn direct_path_matches_im2col() {
        let mut seed = 7;
        let cases: Vec<Case> = vec![
            // Depthwise 3x3, same padding, stride 1 and 2 (MobileNet).
            (
                1,
                6,
                6,
                6,
                vec![9, 11],
                vec![3, 3],
                vec![1, 1],
                vec![],
                vec![1, 1, 1, 1],
            ),
            (
                2,
                4,
                4,
                4,
                vec![10, 9],
                vec![3, 3],
                vec![2, 2],
                vec![],
                vec![1, 1, 1, 1],
            ),
            // Asymmetric pads, dilation, stride 3 and unequal strides.
            (
                1,
                3,
                3,
                3,
                vec![13, 12],
                vec![3, 2],
                vec![3, 2],
                vec![2, 3],
                vec![0, 2, 3, 1],
            ),
            (
                1,
                2,
                2,
                2,
                vec![7, 16],
                vec![5, 5],
                vec![1, 3],
                vec![1, 1],
                vec![2, 0, 2, 4],
            ),
            // Channel multiplier 2 and 2 input channels per group.
            (
                1,
                3,
                6,
                3,
                vec![8, 8],
                vec![3, 3],
                vec![2, 1],
                vec![1, 2],
                vec![1, 2, 0, 1],
            ),
            (
                2,
                8,
                4,
                4,
                vec![6, 7],
                vec![3, 3],
                vec![1, 2],
                vec![],
                vec![1, 1, 1, 1],
            ),
            // Kernel wider than the input with padding, 1x1 depthwise, 1-D.
            (
                1,
                2,
                2,
                2,
                vec![3, 2],
                vec![3, 5],
                vec![1, 1],
                vec![],
                vec![1, 2, 1, 2],
            ),
            (
                1,
                4,
                4,
                4,
                vec![5, 5],
                vec![1, 1],
                vec![2, 2],
                vec![],
                vec![],
            ),
            (2, 4, 8, 2, vec![17], vec![4], vec![2], vec![3], vec![5, 2]),
            (1, 3, 3, 3, vec![9], vec![3], vec![3], vec![1], vec![0, 0]),
            (1, 2, 2, 2, vec![2], vec![2], vec![3], vec![1], vec![0, 1]),
            // Rows wide enough for the register-blocked interior.
            (
                1,
                3,
                3,
                3,
                vec![5, 45],
                vec![3, 3],
                vec![1, 1],
                vec![],
                vec![1, 1, 1, 1],
            ),
            (
                1,
                2,
                4,
                2,
                vec![6, 71],
                vec![3, 5],
                vec![2, 2],
                vec![1, 2],
                vec![1, 3, 0, 2],
            ),
            (
                1,
                2,
                2,
                2,
                vec![4, 50],
                vec![1, 7],
                vec![1, 3],
                vec![1, 1],
                vec![0, 3, 0, 3],
            ),
        ];
        for case in &cases {
            run_paths(case, &[ConvPath::Direct], &mut seed);
        }
        // The dispatcher picks the direct path for depthwise 2-D and keeps GEMM for the rest.
        let g = conv_setup(
            "Conv",
            &[1, 4, 5, 5],
            &[4, 1, 3, 3],
            &ConvAttrs {
                group: 4,
                ..Default::default()
            },
        )
        .unwrap()
        .3;
        assert_eq!(conv_path(4, 4, &g), ConvPath::Direct);
        assert_eq!(conv_path(4, 1, &g), ConvPath::Im2col);
        let g3 = conv_setup(
            "Conv",
            &[1, 2, 3, 3, 3],
            &[2, 1, 1, 1, 1],
            &ConvAttrs {
                group: 2,
                ..Default::default()
            },
        )
        .unwrap()
        .3;
        assert_eq!(conv_path(2, 2, &g3), ConvPath::Pointwise);
    }

    #[test]
    fn gemm_paths_match_im2col() {
        let mut seed = 11;
        // Pointwise, per image and batched (small images share one GEMM).
        for case in [
            (1, 5, 7, 1, vec![6, 5], vec![1, 1], vec![], vec![], vec![]),
            (3, 5, 7, 1, vec![4, 4], vec![1, 1], vec![], vec![], vec![]),
            (2, 4, 6, 2, vec![3, 5], vec![1, 1], vec![], vec![], vec![]),
        ] {
            run_paths(&case, &[ConvPath::Pointwise], &mut seed);
        }
        // im2col with several images per GEMM against a per-image reference.
        let case: Case = (
            5,
            3,
            4,
            1,
            vec![6, 7],
            vec![3, 3],
            vec![2, 1],
            vec![],
            vec![1, 0, 2, 1],
        );
        let (n, c, m, group, input, kernel, strides, dilations, pads) = &case;
        let mut xs = vec![*n, *c];
        xs.extend(input);
        let mut ws = vec![*m, *c];
        ws.extend(kernel);
        let attrs = ConvAttrs {
            strides: strides.clone(),
            dilations: dilations.clone(),
            pads: pads.clone(),
            ..Default::default()
        };
        let (_, _, _, g) = conv_setup("Conv", &xs, &ws, &attrs).unwrap();
        let x = rand(&mut seed, numel(&xs));
        let w = rand(&mut seed, numel(&ws));
        let b = rand(&mut seed, *m);
        let osz = numel(&g.out);
        let batched = conv_core(&x, &w, Some(&b), *n, *c, *m, *group, &g);
        let isz = c * numel(input);
        for i in 0..*n {
            let one = conv_core(&x[i * isz..(i + 1) * isz], &w, Some(&b), 1, *c, *m, 1, &g);
            close_to(
                &batched[i * m * osz..(i + 1) * m * osz],
                &one,
                "batched image",
            );
        }
        // And through the public entry point with N-D geometry (3-D falls back to im2col).
        run_paths(
            &(
                2,
                2,
                2,
                2,
                vec![3, 4, 3],
                vec![2, 2, 2],
                vec![1, 2, 1],
                vec![],
                vec![1, 0, 1, 0, 1, 1],
            ),
            &[ConvPath::Im2col],
            &mut seed,
        );
    }

    /// Channels, input, kernel, strides, dilations, pads.
    type UnfoldCase = (
        usize,
        Vec<usize>,
        Vec<usize>,
        Vec<usize>,
        Vec<usize>,
        Vec<usize>,
    );

    /// Every row of the unfolded matrix, for whole images and for runs of lines, is what its
    /// definition says element by element: input `(c, o * stride + k * dilation - pad_begin)`
    /// per axis, zero outside the input. Covers the one-copy path of "same" 2-D convolutions
    /// (asymmetric pads and dilations included) and the line-by-line one.
    #[test]
    fn unfolded_rows_match_their_definition() {
        let mut seed = 3;
        #[rustfmt::skip]
        let cases: Vec<UnfoldCase> = vec![
            (2, vec![5, 6], vec![3, 3], vec![], vec![], vec![1, 1, 1, 1]),
            (2, vec![5, 6], vec![3, 3], vec![], vec![], vec![0, 2, 2, 0]),
            (1, vec![6, 7], vec![3, 3], vec![], vec![2, 2], vec![2, 2, 2, 2]),
            (3, vec![4, 4], vec![5, 5], vec![], vec![], vec![2, 2, 2, 2]),
            (2, vec![3, 8], vec![3, 9], vec![], vec![], vec![1, 4, 1, 4]),
            (2, vec![6, 6], vec![3, 3], vec![2, 1], vec![], vec![1, 1, 1, 1]),
            (2, vec![6, 6], vec![3, 3], vec![1, 2], vec![], vec![1, 1, 1, 1]),
            (1, vec![5, 7], vec![2, 3], vec![], vec![], vec![]),
            (2, vec![9], vec![3], vec![], vec![], vec![1, 1]),
            (1, vec![3, 4, 5], vec![2, 3, 3], vec![1, 1, 1], vec![], vec![1, 1, 1, 0, 1, 1]),
        ];
        for (c, input, kernel, strides, dilations, pads) in cases {
            let g = geometry(c, &input, &kernel, strides, dilations, pads);
            let x = rand(&mut seed, c * numel(&input));
            let unfold = Unfold::new(&g);
            let mut idx = unfold.scratch();
            let nd = input.len();
            let last_o = g.out[nd - 1];
            let nlines = numel(&g.out) / last_o;
            let (mut kidx, mut oidx) = (vec![0; nd], vec![0; nd]);
            for r in 0..c * unfold.ksz {
                let want: Vec<f32> = (0..numel(&g.out))
                    .map(|p| {
                        crate::layout::unravel(r % unfold.ksz, &kernel, &mut kidx);
                        crate::layout::unravel(p, &g.out, &mut oidx);
                        let mut at = (r / unfold.ksz) * numel(&input);
                        for d in 0..nd {
                            let i = (oidx[d] * g.strides[d] + kidx[d] * g.dilations[d]) as isize
                                - g.pad_begin[d] as isize;
                            if i < 0 || i >= input[d] as isize {
                                return 0.0;
                            }
                            at += i as usize * unfold.in_strides[d];
                        }
                        x[at]
                    })
                    .collect();
                for lines in [0..nlines, 0..1, 1..nlines, nlines / 2..nlines] {
                    let mut got = vec![f32::NAN; lines.len() * last_o];
                    unfold.row(&x, r, lines.clone(), &mut got, &mut idx);
                    let expect = &want[lines.start * last_o..lines.end * last_o];
                    assert_eq!(
                        got, expect,
                        "row {r} lines {lines:?} of {input:?} * {kernel:?}, {g:?}"
                    );
                }
            }
        }
    }
}
