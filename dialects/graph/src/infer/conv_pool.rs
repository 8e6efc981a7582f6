//! Convolutions and pooling: output sizes from kernel, strides, dilations, pads and
//! `auto_pad`, as ONNX's shape inference computes them.

use nart_ir::{TypeData, DYNAMIC};

use super::{dadd, div_ceil, div_floor, dmul, i64_elem, one, t, In, Rules, Shaped, R};

/// Which ops each rule of this file covers. `scripts/gen_graph_ops.py` reads this table and
/// declares each rule in those ops' `OpDef`s.
pub const RULES: Rules = &[
    ("Conv", &["Conv", "DeformConv"]),
    ("ConvTranspose", &["ConvTranspose"]),
    ("MaxPool", &["MaxPool"]),
    ("Pool", &["AveragePool", "LpPool"]),
    (
        "GlobalPool",
        &["GlobalAveragePool", "GlobalLpPool", "GlobalMaxPool"],
    ),
    ("MaxRoiPool", &["MaxRoiPool"]),
    ("RoiAlign", &["RoiAlign"]),
];

rules! {
    /// `[N, C_out, spatial...]` from input #0 and weight #1 (`[C_out, C_in / group, k...]`).
    Conv = |i| conv(i, 0, 1, None);
    /// `[N, C_out, spatial...]` with `C_out = weight[1] * group` and each spatial dim
    /// `stride * (d - 1) + output_padding + (k - 1) * dilation + 1 - pads`, or `output_shape`.
    ConvTranspose = conv_transpose;
    /// The pooled values and their indices (`i64`).
    MaxPool = |i| {
        let r = pool(i)?;
        let idx = r.shape.clone();
        Ok(Some(vec![Some(r), Some(t(i64_elem(), idx))]))
    };
    /// The pooled values.
    Pool = |i| one(pool(i)?);
    /// `[N, C, 1, 1, ...]`.
    GlobalPool = |i| {
        let x = i.shaped(0)?;
        let shape = x.shape.map(|s| {
            s.iter()
                .enumerate()
                .map(|(k, &d)| if k < 2 { d } else { 1 })
                .collect()
        });
        one(t(x.elem, shape))
    };
    /// `[num_rois, C, pooled_h, pooled_w]` from the rois' count and `pooled_shape`.
    MaxRoiPool = |i| {
        let x = i.shaped(0)?;
        let rois = i.shaped(1)?;
        let pooled = i
            .ints("pooled_shape")
            .ok_or("requires attribute 'pooled_shape'")?;
        if pooled.len() != 2 {
            return Err(format!(
                "pooled_shape must have 2 entries, but has {}",
                pooled.len()
            ));
        }
        let n = rois.shape.as_ref().and_then(|s| s.first().copied()).unwrap_or(DYNAMIC);
        let c = x.shape.as_ref().and_then(|s| s.get(1).copied()).unwrap_or(DYNAMIC);
        one(t(x.elem, Some(vec![n, c, pooled[0], pooled[1]])))
    };
    /// `[num_rois, C, output_height, output_width]`.
    RoiAlign = |i| {
        let x = i.shaped(0)?;
        let rois = i.shaped(1)?;
        let n = rois.shape.as_ref().and_then(|s| s.first().copied()).unwrap_or(DYNAMIC);
        let c = x.shape.as_ref().and_then(|s| s.get(1).copied()).unwrap_or(DYNAMIC);
        let (h, w) = (i.int("output_height", 1), i.int("output_width", 1));
        one(t(x.elem, Some(vec![n, c, h, w])))
    };
}

/// The window attributes of a convolution or pooling op.
pub(crate) struct Window {
    kernel: Vec<i64>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    pads: Vec<i64>,
    auto_pad: String,
    ceil: bool,
}

/// Reads and checks the window attributes for `spatial` dims and the given kernel.
pub(crate) fn window(i: &In, spatial: usize, kernel: Vec<i64>) -> Result<Window, String> {
    let strides = i.ints("strides").unwrap_or_else(|| vec![1; spatial]);
    let dilations = i.ints("dilations").unwrap_or_else(|| vec![1; spatial]);
    let pads = i.ints("pads").unwrap_or_else(|| vec![0; 2 * spatial]);
    if kernel.len() != spatial
        || strides.len() != spatial
        || dilations.len() != spatial
        || pads.len() != 2 * spatial
    {
        return Err(format!(
            "kernel_shape, strides, dilations and pads must match the {spatial} spatial dims"
        ));
    }
    if strides.iter().chain(&dilations).any(|&v| v <= 0) {
        return Err("strides and dilations must be positive".into());
    }
    Ok(Window {
        kernel,
        strides,
        dilations,
        pads,
        auto_pad: i.string("auto_pad", "NOTSET"),
        ceil: i.int("ceil_mode", 0) != 0,
    })
}

/// The output size of each spatial dim.
pub(crate) fn window_out(w: &Window, input: &[i64]) -> Vec<i64> {
    input
        .iter()
        .enumerate()
        .map(|(k, &d)| {
            if d == DYNAMIC || w.kernel[k] == DYNAMIC {
                return DYNAMIC;
            }
            let s = w.strides[k];
            let ek = dadd(dmul(dadd(w.kernel[k], -1), w.dilations[k]), 1);
            if ek == DYNAMIC {
                return DYNAMIC;
            }
            // VALID is the explicit form with no padding (ceil_mode still applies, as in ONNX's
            // shape inference and ONNX Runtime).
            let valid = w.auto_pad == "VALID";
            let (begin, end) = if valid {
                (0, 0)
            } else {
                (w.pads[k], w.pads[k + input.len()])
            };
            let span = dadd(dadd(dadd(d, begin), end), -ek);
            if span == DYNAMIC {
                return DYNAMIC;
            }
            match w.auto_pad.as_str() {
                "SAME_UPPER" | "SAME_LOWER" => div_ceil(d, s),
                _ => {
                    let mut o = (if w.ceil {
                        div_ceil(span, s)
                    } else {
                        div_floor(span, s)
                    })
                    .saturating_add(1);
                    // The last window must start inside the input or its left padding.
                    if w.ceil && dmul(o - 1, s) >= dadd(d, begin) {
                        o -= 1;
                    }
                    o.max(0)
                }
            }
        })
        .collect()
}

/// A convolution of operand `x_idx` by weight `w_idx`, with element type `elem` or the input's.
pub(crate) fn conv(i: &In, x_idx: usize, w_idx: usize, elem: Option<TypeData>) -> R {
    let x = i.shaped(x_idx)?;
    let w = i.shaped(w_idx)?;
    conv_of(i, x, w, (i.type_str(x_idx), i.type_str(w_idx)), elem)
}

/// `[N, spatial..., C_out]` from a channels-last input #0 (`[N, spatial..., C_in]`) and weight
/// #1 (`[C_out, k..., C_in / group]`): [`conv`] on the shapes moved to channels-first, and its
/// result moved back (`graph.fused_conv` with `layout = "nhwc"`).
pub(crate) fn conv_channels_last(i: &In) -> R {
    let to_first = |mut s: Shaped| {
        if let Some(d) = s.shape.as_mut().filter(|d| d.len() >= 2) {
            let c = d.remove(d.len() - 1);
            d.insert(1, c);
        }
        s
    };
    let x = to_first(i.shaped(0)?);
    let w = to_first(i.shaped(1)?);
    let res = conv_of(i, x, w, (i.type_str(0), i.type_str(1)), None)?;
    Ok(res.map(|rs| {
        rs.into_iter()
            .map(|r| {
                r.map(|mut s| {
                    if let Some(d) = s.shape.as_mut().filter(|d| d.len() >= 2) {
                        let c = d.remove(1);
                        d.push(c);
                    }
                    s
                })
            })
            .collect()
    }))
}

/// [`conv`] on given input and weight shapes (`names` are the operand types for messages).
fn conv_of(i: &In, x: Shaped, w: Shaped, names: (String, String), elem: Option<TypeData>) -> R {
    let elem = elem.unwrap_or(x.elem.clone());
    let (Some(sx), Some(sw)) = (&x.shape, &w.shape) else {
        let r = x.shape.as_ref().map(|s| vec![DYNAMIC; s.len()]);
        return one(t(elem, r));
    };
    if sx.len() < 3 || sx.len() != sw.len() {
        return Err(format!(
            "input and weight must have the same rank (3 or more): {} and {}",
            names.0, names.1
        ));
    }
    let group = i.int("group", 1);
    if group <= 0 {
        return Err(format!("group must be positive, but got {group}"));
    }
    if sx[1] != DYNAMIC && sw[1] != DYNAMIC && sx[1] != sw[1] * group {
        return Err(format!(
            "input channels ({}) must equal weight channels ({}) times group ({group})",
            sx[1], sw[1]
        ));
    }
    let spatial = sx.len() - 2;
    let kernel = i.ints("kernel_shape").unwrap_or_else(|| sw[2..].to_vec());
    let win = window(i, spatial, kernel)?;
    let mut out = vec![sx[0], sw[0]];
    out.extend(window_out(&win, &sx[2..]));
    one(t(elem, Some(out)))
}

fn conv_transpose(i: &In) -> R {
    let x = i.shaped(0)?;
    let w = i.shaped(1)?;
    let (Some(sx), Some(sw)) = (&x.shape, &w.shape) else {
        return one(t(
            x.elem.clone(),
            x.shape.as_ref().map(|s| vec![DYNAMIC; s.len()]),
        ));
    };
    if sx.len() < 3 || sx.len() != sw.len() {
        return Err(format!(
            "input and weight must have the same rank (3 or more): {} and {}",
            i.type_str(0),
            i.type_str(1)
        ));
    }
    let spatial = sx.len() - 2;
    let group = i.int("group", 1);
    let c_out = dmul(sw[1], group);
    let mut out = vec![sx[0], c_out];
    if let Some(os) = i.ints("output_shape") {
        if os.len() != spatial {
            return Err("output_shape must have one entry per spatial dim".into());
        }
        out.extend(os);
        return one(t(x.elem, Some(out)));
    }
    let kernel = i.ints("kernel_shape").unwrap_or_else(|| sw[2..].to_vec());
    let win = window(i, spatial, kernel)?;
    let opad = i.ints("output_padding").unwrap_or_else(|| vec![0; spatial]);
    for k in 0..spatial {
        let d = sx[k + 2];
        if d == DYNAMIC || win.kernel[k] == DYNAMIC {
            out.push(DYNAMIC);
            continue;
        }
        let s = win.strides[k];
        let o = match win.auto_pad.as_str() {
            "SAME_UPPER" | "SAME_LOWER" => dmul(d, s),
            _ => {
                let ek = dadd(dmul(dadd(win.kernel[k], -1), win.dilations[k]), 1);
                let mut o = dadd(dmul(s, d - 1), opad.get(k).copied().unwrap_or(0));
                o = dadd(o, ek);
                o = dadd(o, win.pads[k].checked_neg().unwrap_or(DYNAMIC));
                dadd(o, win.pads[k + spatial].checked_neg().unwrap_or(DYNAMIC))
            }
        };
        out.push(o);
    }
    one(t(x.elem, Some(out)))
}

/// `[N, C, spatial...]` from a blocked shape `[N, C/b, spatial..., b]` (`C` padded to a
/// multiple of `b`).
pub(crate) fn unblocked_shape(s: &[i64]) -> Vec<i64> {
    let mut d = vec![s[0], dmul(s[1], s[s.len() - 1])];
    d.extend(&s[2..s.len() - 1]);
    d
}

/// `[N, ceil(C/b), spatial..., b]` from a channels-first shape `[N, C, spatial...]`.
pub(crate) fn blocked_shape(s: &[i64], b: i64) -> Vec<i64> {
    let c = if s[1] == DYNAMIC {
        DYNAMIC
    } else {
        div_ceil(s[1], b)
    };
    let mut d = vec![s[0], c];
    d.extend(&s[2..]);
    d.push(b);
    d
}

/// Checks that operand `idx` is blocked by `b` (`[N, C/b, spatial..., b]`, rank 4 or more) and
/// returns its shape, or `None` when it is unranked.
fn blocked_operand(i: &In, idx: usize, b: i64, what: &str) -> Result<Option<Vec<i64>>, String> {
    let x = i.shaped(idx)?;
    let Some(s) = x.shape else { return Ok(None) };
    if s.len() < 4 || s[s.len() - 1] != b {
        return Err(format!(
            "{what} must be blocked by {b} ([N, C/{b}, spatial..., {b}]), but got {}",
            i.type_str(idx)
        ));
    }
    Ok(Some(s))
}

/// `[N, M/b, spatial..., b]` from a blocked input #0 `[N, C/b, spatial..., b]` and a blocked
/// weight #1 `[M/b, K, k..., bi, b]` (`graph.fused_conv` with `layout = "nchw{b}c"`): [`conv`]
/// on the unblocked shapes (`[N, C, spatial...]` and `[M, K * bi, k...]`), blocked again.
pub(crate) fn conv_blocked(i: &In, b: i64) -> R {
    let x = i.shaped(0)?;
    let Some(sx) = blocked_operand(i, 0, b, "input")? else {
        return one(t(x.elem, None));
    };
    let Some(sw) = i.shaped(1)?.shape else {
        return one(t(x.elem, Some(vec![DYNAMIC; sx.len()])));
    };
    let r = sx.len();
    if sw.len() != r + 1 || sw[r] != b {
        return Err(format!(
            "weight must be blocked as [M/{b}, K, k..., bi, {b}] (rank {}), but got {}",
            r + 1,
            i.type_str(1)
        ));
    }
    let mut w = vec![dmul(sw[0], b), dmul(sw[1], sw[r - 1])];
    w.extend(&sw[2..r - 1]);
    let xu = t(x.elem.clone(), Some(unblocked_shape(&sx)));
    let wu = t(x.elem.clone(), Some(w));
    let res = conv_of(i, xu, wu, (i.type_str(0), i.type_str(1)), None)?;
    Ok(res.map(|rs| {
        rs.into_iter()
            .map(|r| {
                r.map(|mut s| {
                    s.shape = s.shape.map(|d| blocked_shape(&d, b));
                    s
                })
            })
            .collect()
    }))
}

/// `[N, C/b, spatial..., b]` from a blocked input of that form (`graph.pool` with
/// `layout = "nchw{b}c"`): [`pool_of`] on the unblocked shape, blocked again.
pub(crate) fn pool_blocked(i: &In, b: i64) -> Result<Shaped, String> {
    let x = i.shaped(0)?;
    let Some(sx) = blocked_operand(i, 0, b, "input")? else {
        return Ok(x);
    };
    let mut r = pool_of(i, t(x.elem, Some(unblocked_shape(&sx))))?;
    r.shape = r.shape.map(|d| blocked_shape(&d, b));
    Ok(r)
}

fn pool(i: &In) -> Result<Shaped, String> {
    pool_of(i, i.shaped(0)?)
}

/// `[N, spatial..., C]` from a channels-last input `[N, spatial..., C]` (`graph.pool` with
/// `layout = "nhwc"`): [`pool`] on the shape moved to channels-first, its result moved back.
pub(crate) fn pool_channels_last(i: &In) -> Result<Shaped, String> {
    let mut x = i.shaped(0)?;
    if let Some(d) = x.shape.as_mut().filter(|d| d.len() >= 2) {
        let c = d.remove(d.len() - 1);
        d.insert(1, c);
    }
    let mut r = pool_of(i, x)?;
    if let Some(d) = r.shape.as_mut().filter(|d| d.len() >= 2) {
        let c = d.remove(1);
        d.push(c);
    }
    Ok(r)
}

/// The pooled shape of a channels-first input `x` (operand #0's element type and shape, or
/// those shapes moved to channels-first).
pub(crate) fn pool_of(i: &In, x: Shaped) -> Result<Shaped, String> {
    let Some(sx) = &x.shape else {
        return Ok(x);
    };
    if sx.len() < 3 {
        return Err(format!(
            "input must have rank 3 or more, but got {}",
            i.type_str(0)
        ));
    }
    let kernel = i
        .ints("kernel_shape")
        .ok_or("requires attribute 'kernel_shape'")?;
    let win = window(i, sx.len() - 2, kernel)?;
    let mut out = vec![sx[0], sx[1]];
    out.extend(window_out(&win, &sx[2..]));
    Ok(t(x.elem, Some(out)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, Case};

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        // ResNet's stem: 7x7, stride 2, pads 3.
        ("Conv", &["tensor<1x3x224x224xf32>", "tensor<64x3x7x7xf32>", "none"], "{pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>}", Ok(&["tensor<1x64x112x112xf32>"])),
        ("Conv", &["tensor<?x3x32x32xf32>", "tensor<8x3x3x3xf32>", "tensor<8xf32>"], "{auto_pad = \"SAME_UPPER\", strides = array<i64: 2, 2>}", Ok(&["tensor<?x8x16x16xf32>"])),
        ("Conv", &["tensor<1x3x10x10xf32>", "tensor<4x3x3x3xf32>", "none"], "{auto_pad = \"VALID\"}", Ok(&["tensor<1x4x8x8xf32>"])),
        ("Conv", &["tensor<1x4x9x9xf32>", "tensor<4x1x3x3xf32>", "none"], "{dilations = array<i64: 2, 2>, group = 4 : i64}", Ok(&["tensor<1x4x5x5xf32>"])),
        ("Conv", &["tensor<*xf32>", "tensor<4x3x3x3xf32>", "none"], "", Ok(&["tensor<*xf32>"])),
        ("Conv", &["tensor<1x3x224x224xf32>", "tensor<8x4x3x3xf32>", "none"], "", Err("input channels (3) must equal weight channels (4) times group (1)")),
        ("Conv", &["tensor<1x3x8xf32>", "tensor<4x3x3x3xf32>", "none"], "", Err("input and weight must have the same rank (3 or more): tensor<1x3x8xf32> and tensor<4x3x3x3xf32>")),
        ("Conv", &["tensor<1x3x8x8xf32>", "tensor<4x3x3x3xf32>", "none"], "{strides = array<i64: 1>}", Err("kernel_shape, strides, dilations and pads must match the 2 spatial dims")),
        ("Conv", &["tensor<1x3x8x8xf32>", "tensor<4x3x3x3xf32>", "none"], "{strides = array<i64: 0, 1>}", Err("strides and dilations must be positive")),
        ("Conv", &["tensor<1x3x8x8xf32>", "tensor<4x3x3x3xf32>", "none"], "{group = 0 : i64}", Err("group must be positive, but got 0")),
        ("DeformConv", &["tensor<1x1x3x3xf32>", "tensor<1x1x2x2xf32>", "tensor<1x8x2x2xf32>", "none", "none"], "", Ok(&["tensor<1x1x2x2xf32>"])),
        ("ConvTranspose", &["tensor<1x3x10x10xf32>", "tensor<3x8x4x4xf32>", "none"], "{pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}", Ok(&["tensor<1x8x20x20xf32>"])),
        ("ConvTranspose", &["tensor<1x3x3xf32>", "tensor<3x2x3xf32>", "none"], "{group = 1 : i64, output_padding = array<i64: 1>, strides = array<i64: 2>}", Ok(&["tensor<1x2x8xf32>"])),
        ("ConvTranspose", &["tensor<1x3x3x3xf32>", "tensor<3x2x3x3xf32>", "none"], "{output_shape = array<i64: 10, 8>}", Ok(&["tensor<1x2x10x8xf32>"])),
        ("ConvTranspose", &["tensor<1x3x3x3xf32>", "tensor<3x2x3x3xf32>", "none"], "{auto_pad = \"SAME_UPPER\", strides = array<i64: 2, 2>}", Ok(&["tensor<1x2x6x6xf32>"])),
        ("MaxPool", &["tensor<1x64x112x112xf32>"], "{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}", Ok(&["tensor<1x64x56x56xf32>", "tensor<1x64x56x56xi64>"])),
        ("MaxPool", &["tensor<1x1x6x6xf32>"], "{ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}", Ok(&["tensor<1x1x3x3xf32>", "tensor<1x1x3x3xi64>"])),
        ("MaxPool", &["tensor<1x1x5x5xf32>"], "{ceil_mode = 1 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}", Ok(&["tensor<1x1x3x3xf32>", "tensor<1x1x3x3xi64>"])),
        // VALID with ceil_mode: no padding, the last partial window kept (ONNX's shape
        // inference and ONNX Runtime agree; the interpreter computes the same geometry).
        ("MaxPool", &["tensor<1x1x7xf32>"], "{auto_pad = \"VALID\", ceil_mode = 1 : i64, kernel_shape = array<i64: 2>, strides = array<i64: 2>}", Ok(&["tensor<1x1x4xf32>", "tensor<1x1x4xi64>"])),
        ("MaxPool", &["tensor<1x1x7xf32>"], "{auto_pad = \"VALID\", kernel_shape = array<i64: 2>, strides = array<i64: 2>}", Ok(&["tensor<1x1x3xf32>", "tensor<1x1x3xi64>"])),
        ("MaxPool", &["tensor<1x1x5xf32>"], "", Err("requires attribute 'kernel_shape'")),
        ("MaxPool", &["tensor<5x5xf32>"], "{kernel_shape = array<i64: 2>}", Err("input must have rank 3 or more, but got tensor<5x5xf32>")),
        ("AveragePool", &["tensor<1x3x7x7xf32>"], "{auto_pad = \"SAME_UPPER\", kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>}", Ok(&["tensor<1x3x4x4xf32>"])),
        ("LpPool", &["tensor<1x3x?x8xf32>"], "{kernel_shape = array<i64: 2, 2>}", Ok(&["tensor<1x3x?x7xf32>"])),
        ("GlobalAveragePool", &["tensor<1x64x7x7xf32>"], "", Ok(&["tensor<1x64x1x1xf32>"])),
        ("GlobalMaxPool", &["tensor<2x3x5xf16>"], "", Ok(&["tensor<2x3x1xf16>"])),
        ("MaxRoiPool", &["tensor<1x3x32x32xf32>", "tensor<5x5xf32>"], "{pooled_shape = array<i64: 2, 3>}", Ok(&["tensor<5x3x2x3xf32>"])),
        ("RoiAlign", &["tensor<1x3x32x32xf32>", "tensor<?x4xf32>", "tensor<?xi64>"], "{output_height = 5 : i64}", Ok(&["tensor<?x3x5x1xf32>"])),
    ];

    #[test]
    fn convolution_and_pooling_rules() {
        check(CASES);
    }
}
