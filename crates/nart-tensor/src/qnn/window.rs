//! Window kernels: `qnn.conv` (grouped and depthwise, N-D) and the two poolings.

use super::{values, FixedMultiplier, Output, QParams, Rounding};
use crate::layout::unravel;
use crate::{KernelError, Result, Tensor};

/// The window of a convolution: empty vectors mean the defaults (strides and dilations 1,
/// no padding).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConvAttrs {
    /// Stride per spatial dimension.
    pub strides: Vec<usize>,
    /// Padding at the beginning of each spatial dimension, then at the end.
    pub pads: Vec<usize>,
    /// Dilation per spatial dimension.
    pub dilations: Vec<usize>,
    /// Groups (0 is read as 1).
    pub group: usize,
}

/// The window of a pooling.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolAttrs {
    /// Window size per spatial dimension.
    pub kernel: Vec<usize>,
    /// Stride per spatial dimension (empty: 1).
    pub strides: Vec<usize>,
    /// Padding, beginnings then ends (empty: none).
    pub pads: Vec<usize>,
    /// Dilation per spatial dimension (empty: 1; max pooling only).
    pub dilations: Vec<usize>,
    /// Whether padded positions count in an average's divisor.
    pub count_include_pad: bool,
}

/// A resolved window over `sp` spatial dimensions.
struct Window {
    input: Vec<usize>,
    kernel: Vec<usize>,
    out: Vec<usize>,
    strides: Vec<usize>,
    pads: Vec<usize>,
    dilations: Vec<usize>,
}

fn or_default(
    op: &'static str,
    name: &'static str,
    v: &[usize],
    n: usize,
    dflt: usize,
) -> Result<Vec<usize>> {
    match v.len() {
        0 => Ok(vec![dflt; n]),
        l if l == n => Ok(v.to_vec()),
        l => Err(KernelError::attr(
            op,
            name,
            format!("has {l} entries, expected {n}"),
        )),
    }
}

impl Window {
    fn new(
        op: &'static str,
        input: &[usize],
        kernel: &[usize],
        strides: &[usize],
        pads: &[usize],
        dilations: &[usize],
    ) -> Result<Window> {
        let sp = input.len();
        let strides = or_default(op, "strides", strides, sp, 1)?;
        let pads = or_default(op, "pads", pads, 2 * sp, 0)?;
        let dilations = or_default(op, "dilations", dilations, sp, 1)?;
        if strides.contains(&0) || dilations.contains(&0) || kernel.contains(&0) {
            return Err(KernelError::attr(
                op,
                "strides",
                "strides, dilations and windows must be positive",
            ));
        }
        let mut out = Vec::with_capacity(sp);
        for i in 0..sp {
            let span = input[i] + pads[i] + pads[sp + i];
            let eff = dilations[i] * (kernel[i] - 1) + 1;
            if span < eff {
                return Err(KernelError::shape(
                    op,
                    format!("window of {eff} does not fit spatial dimension {i} of size {span}"),
                ));
            }
            out.push((span - eff) / strides[i] + 1);
        }
        Ok(Window {
            input: input.to_vec(),
            kernel: kernel.to_vec(),
            out,
            strides,
            pads,
            dilations,
        })
    }

    /// For each (window position, output position) pair, the flat input offset within one
    /// channel, or `None` for a padded position; indexed `[k * n_out + o]`.
    fn offsets(&self) -> Vec<Option<usize>> {
        let sp = self.input.len();
        let nk: usize = self.kernel.iter().product();
        let no: usize = self.out.iter().product();
        let mut res = Vec::with_capacity(nk * no);
        let (mut kc, mut oc) = (vec![0; sp], vec![0; sp]);
        for k in 0..nk {
            unravel(k, &self.kernel, &mut kc);
            for o in 0..no {
                unravel(o, &self.out, &mut oc);
                let mut flat = 0usize;
                let mut inside = true;
                for d in 0..sp {
                    let pos = (oc[d] * self.strides[d] + kc[d] * self.dilations[d]) as i64
                        - self.pads[d] as i64;
                    if pos < 0 || pos >= self.input[d] as i64 {
                        inside = false;
                        break;
                    }
                    flat = flat * self.input[d] + pos as usize;
                }
                res.push(inside.then_some(flat));
            }
        }
        res
    }
}

/// `qnn.conv`: an N-D grouped convolution in ONNX's layout (`x`: `N × C × D...`, `w`:
/// `M × C/group × K...`), accumulated in wrapping `i32` through the row and column sums of the
/// module docs, plus the optional `i32` bias (`M` values), requantized per output channel with
/// `M_c = Sx·Sw[c]/Sy`.
pub fn conv(
    x: &Tensor,
    xq: &QParams,
    w: &Tensor,
    wq: &QParams,
    bias: Option<&Tensor>,
    attrs: &ConvAttrs,
    out: Output<'_>,
) -> Result<Tensor> {
    const OP: &str = "qnn.conv";
    xq.check(OP, "input", x)?;
    wq.check(OP, "weight", w)?;
    let (sx, zx) = xq.require_per_tensor(OP, "input")?;
    if wq.axis.is_some_and(|a| a != 0) {
        return Err(KernelError::shape(
            OP,
            "weight must be quantized per tensor or along axis 0",
        ));
    }
    let (xs, ws) = (x.shape(), w.shape());
    if xs.len() < 3 || ws.len() != xs.len() {
        return Err(KernelError::shape(
            OP,
            format!(
                "input {xs:?} and weight {ws:?} must be N × C × spatial and M × C/group × window"
            ),
        ));
    }
    let group = attrs.group.max(1);
    let (n, c, m, cg) = (xs[0], xs[1], ws[0], ws[1]);
    if cg * group != c || m % group != 0 {
        return Err(KernelError::shape(
            OP,
            format!("input channels {c}, weight {ws:?} and {group} groups do not fit"),
        ));
    }
    let win = Window::new(
        OP,
        &xs[2..],
        &ws[2..],
        &attrs.strides,
        &attrs.pads,
        &attrs.dilations,
    )?;
    let (sy, zy, lo, hi) = out.range(OP)?;
    let mg = m / group;
    let nk: usize = win.kernel.iter().product();
    let kg = cg * nk;
    let no: usize = win.out.iter().product();
    let plane: usize = win.input.iter().product();
    let offsets = win.offsets();
    let xv: Vec<i32> = values(x)?.into_iter().map(|v| v as i32).collect();
    let wv: Vec<i32> = values(w)?.into_iter().map(|v| v as i32).collect();
    let bv: Vec<i32> = match bias {
        Some(b) if b.len() == m => values(b)?.into_iter().map(|v| v as i32).collect(),
        Some(b) => {
            return Err(KernelError::shape(
                OP,
                format!("bias has {} values, expected {m}", b.len()),
            ))
        }
        None => vec![0; m],
    };
    let zx32 = zx as i32;
    let zw: Vec<i32> = (0..m).map(|oc| wq.zero_point(oc) as i32).collect();
    // The weight sums of each output channel (`a2` of the module docs).
    let wsum: Vec<i32> = (0..m)
        .map(|oc| {
            wv[oc * kg..(oc + 1) * kg]
                .iter()
                .fold(0i32, |s, &v| s.wrapping_add(v))
        })
        .collect();
    let mults: Vec<FixedMultiplier> = (0..m)
        .map(|oc| FixedMultiplier::new(OP, sx * wq.scale(oc) / sy))
        .collect::<Result<_>>()?;
    let mut y = vec![0i128; n * m * no];
    let mut patches = vec![0i32; kg * no];
    let mut psum = vec![0i32; no];
    let mut acc = vec![0i32; no];
    for b in 0..n {
        for g in 0..group {
            // im2col: patches[k][o], padded positions holding the input zero point.
            for ci in 0..cg {
                let base = (b * c + g * cg + ci) * plane;
                for k in 0..nk {
                    let row = &mut patches[(ci * nk + k) * no..(ci * nk + k + 1) * no];
                    for (o, p) in row.iter_mut().enumerate() {
                        *p = offsets[k * no + o].map_or(zx32, |f| xv[base + f]);
                    }
                }
            }
            // The input sums of each output position (`ā1`).
            psum.iter_mut().for_each(|s| *s = 0);
            for row in patches.chunks_exact(no) {
                for (s, &p) in psum.iter_mut().zip(row) {
                    *s = s.wrapping_add(p);
                }
            }
            for oc in g * mg..(g + 1) * mg {
                acc.iter_mut().for_each(|a| *a = 0);
                let wrow = &wv[oc * kg..(oc + 1) * kg];
                for (k, &wk) in wrow.iter().enumerate() {
                    let row = &patches[k * no..(k + 1) * no];
                    for (a, &p) in acc.iter_mut().zip(row) {
                        *a = a.wrapping_add(wk.wrapping_mul(p));
                    }
                }
                let constant = (kg as i32)
                    .wrapping_mul(zx32)
                    .wrapping_mul(zw[oc])
                    .wrapping_sub(zx32.wrapping_mul(wsum[oc]))
                    .wrapping_add(bv[oc]);
                let dst = &mut y[(b * m + oc) * no..(b * m + oc + 1) * no];
                for o in 0..no {
                    let total = acc[o]
                        .wrapping_sub(zw[oc].wrapping_mul(psum[o]))
                        .wrapping_add(constant);
                    dst[o] = (i128::from(zy) + mults[oc].apply(i128::from(total), out.rounding))
                        .clamp(i128::from(lo), i128::from(hi));
                }
            }
        }
    }
    let mut shape = vec![n, m];
    shape.extend(&win.out);
    Tensor::from_i128(out.q.dtype, shape, y)
}

fn pool_window(op: &'static str, x: &Tensor, attrs: &PoolAttrs, dilated: bool) -> Result<Window> {
    let xs = x.shape();
    if xs.len() < 3 || attrs.kernel.len() != xs.len() - 2 {
        return Err(KernelError::shape(
            op,
            format!("input {xs:?} and window {:?} do not fit", attrs.kernel),
        ));
    }
    let dil: &[usize] = if dilated { &attrs.dilations } else { &[] };
    Window::new(
        op,
        &xs[2..],
        &attrs.kernel,
        &attrs.strides,
        &attrs.pads,
        dil,
    )
}

/// `qnn.avg_pool`: each window's exact sum `Σ (q − Zx)` over its input positions, then
/// `clamp(Zy + (Sx / (Sy·n)) ⊗ sum)` with `n` the positions counted (padded ones too with
/// `count_include_pad`; they add nothing to the sum, standing for real zeros).
pub fn avg_pool(
    x: &Tensor,
    xq: &QParams,
    attrs: &PoolAttrs,
    yq: &QParams,
    rounding: Rounding,
) -> Result<Tensor> {
    const OP: &str = "qnn.avg_pool";
    xq.check(OP, "input", x)?;
    let (sx, zx) = xq.require_per_tensor(OP, "input")?;
    let out = Output {
        q: yq,
        act: super::Activation::None,
        rounding,
    };
    let (sy, zy, lo, hi) = out.range(OP)?;
    let win = pool_window(OP, x, attrs, false)?;
    let xs = x.shape();
    let (n, c) = (xs[0], xs[1]);
    let nk: usize = win.kernel.iter().product();
    let no: usize = win.out.iter().product();
    let plane: usize = win.input.iter().product();
    let offsets = win.offsets();
    let xv = values(x)?;
    let mut mults: Vec<Option<FixedMultiplier>> = vec![None; nk + 1];
    let mut y = vec![0i128; n * c * no];
    for nc in 0..n * c {
        let base = nc * plane;
        for o in 0..no {
            let (mut sum, mut count) = (0i128, 0usize);
            for k in 0..nk {
                if let Some(f) = offsets[k * no + o] {
                    sum += xv[base + f] - i128::from(zx);
                    count += 1;
                }
            }
            if attrs.count_include_pad {
                count = nk;
            }
            if count == 0 {
                return Err(KernelError::shape(OP, "a window covers only padding"));
            }
            let mult = match mults[count] {
                Some(m) => m,
                None => {
                    let m = FixedMultiplier::new(OP, sx / (sy * count as f64))?;
                    mults[count] = Some(m);
                    m
                }
            };
            y[nc * no + o] =
                (i128::from(zy) + mult.apply(sum, rounding)).clamp(i128::from(lo), i128::from(hi));
        }
    }
    let mut shape = vec![n, c];
    shape.extend(&win.out);
    Tensor::from_i128(yq.dtype, shape, y)
}

/// `qnn.max_pool`: the largest stored value of each window's input positions (the result has
/// the input's parameters).
pub fn max_pool(x: &Tensor, xq: &QParams, attrs: &PoolAttrs) -> Result<Tensor> {
    const OP: &str = "qnn.max_pool";
    xq.check(OP, "input", x)?;
    let win = pool_window(OP, x, attrs, true)?;
    let xs = x.shape();
    let (n, c) = (xs[0], xs[1]);
    let nk: usize = win.kernel.iter().product();
    let no: usize = win.out.iter().product();
    let plane: usize = win.input.iter().product();
    let offsets = win.offsets();
    let xv = values(x)?;
    let mut y = vec![0i128; n * c * no];
    for nc in 0..n * c {
        let base = nc * plane;
        for o in 0..no {
            let best = (0..nk)
                .filter_map(|k| offsets[k * no + o].map(|f| xv[base + f]))
                .max()
                .ok_or_else(|| KernelError::shape(OP, "a window covers only padding"))?;
            y[nc * no + o] = best;
        }
    }
    let mut shape = vec![n, c];
    shape.extend(&win.out);
    Tensor::from_i128(xq.dtype, shape, y)
}
