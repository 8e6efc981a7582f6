//! `Resize` and the deprecated `Upsample`: each axis scaled by constant scales or set to
//! constant sizes.

use nart_ir::DYNAMIC;

use super::{norm_axis, one, t, In, Rules, R};

/// Which ops each rule of this file covers. `scripts/gen_graph_ops.py` reads this table and
/// declares each rule in those ops' `OpDef`s.
pub const RULES: Rules = &[("Resize", &["Resize"]), ("Upsample", &["Upsample"])];

rules! {
    /// The constant `sizes` (operand #3) under the `stretch` policy, or each axis times the
    /// constant `scales` (operand #2), rounded down.
    Resize = |i| resize(i, false);
    /// Each axis times the constant `scales` (operand #1, or the old `scales` attribute).
    Upsample = |i| resize(i, true);
}

fn resize(i: &In, upsample: bool) -> R {
    let x = i.shaped(0)?;
    let Some(s) = x.shape.clone() else {
        return one(x);
    };
    let dynamic = || one(t(x.elem.clone(), Some(vec![DYNAMIC; s.len()])));
    let (scales_idx, sizes_idx) = if upsample { (1, usize::MAX) } else { (2, 3) };
    if sizes_idx != usize::MAX && i.present(sizes_idx) {
        let Some(sizes) = i.const_ints(sizes_idx) else {
            return dynamic();
        };
        let axes: Vec<usize> = match i.ints("axes") {
            Some(a) => a
                .iter()
                .map(|&a| norm_axis(a, s.len()))
                .collect::<Result<_, _>>()?,
            None => (0..s.len()).collect(),
        };
        if sizes.len() != axes.len() {
            return Err(format!(
                "sizes has {} entries for {} axes",
                sizes.len(),
                axes.len()
            ));
        }
        let policy = i.string("keep_aspect_ratio_policy", "stretch");
        let mut out = s.clone();
        if policy == "stretch" {
            for (k, &a) in axes.iter().enumerate() {
                out[a] = sizes[k];
            }
            return one(t(x.elem, Some(out)));
        }
        return dynamic();
    }
    if i.present(scales_idx) {
        let Some(scales) = i.const_floats(scales_idx) else {
            return dynamic();
        };
        if scales.is_empty() {
            return dynamic();
        }
        let axes: Vec<usize> = match i.ints("axes") {
            Some(a) => a
                .iter()
                .map(|&a| norm_axis(a, s.len()))
                .collect::<Result<_, _>>()?,
            None => (0..s.len()).collect(),
        };
        if scales.len() != axes.len() {
            return Err(format!(
                "scales has {} entries for {} axes",
                scales.len(),
                axes.len()
            ));
        }
        let mut out = s.clone();
        for (k, &a) in axes.iter().enumerate() {
            if out[a] != DYNAMIC {
                out[a] = (out[a] as f64 * scales[k]).floor() as i64;
            }
        }
        return one(t(x.elem, Some(out)));
    }
    if upsample {
        if let Some(sc) = i.floats("scales") {
            let out = s
                .iter()
                .zip(&sc)
                .map(|(&d, &f)| {
                    if d == DYNAMIC {
                        d
                    } else {
                        (d as f64 * f).floor() as i64
                    }
                })
                .collect();
            return one(t(x.elem, Some(out)));
        }
    }
    dynamic()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, Case};

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        ("Resize", &["tensor<1x3x8x8xf32>", "none", "none", "dense<[1, 3, 16, 12]> : tensor<4xi64>"], "", Ok(&["tensor<1x3x16x12xf32>"])),
        ("Resize", &["tensor<1x3x8x8xf32>", "none", "dense<[1.0, 1.0, 2.0, 0.5]> : tensor<4xf32>", "none"], "", Ok(&["tensor<1x3x16x4xf32>"])),
        ("Resize", &["tensor<1x3x8x8xf32>", "none", "dense<[2.0, 3.0]> : tensor<2xf32>", "none"], "{axes = array<i64: 2, 3>}", Ok(&["tensor<1x3x16x24xf32>"])),
        ("Resize", &["tensor<1x3x8x8xf32>", "none", "none", "dense<[16, 16]> : tensor<2xi64>"], "{axes = array<i64: 2, 3>, keep_aspect_ratio_policy = \"not_larger\"}", Ok(&["tensor<?x?x?x?xf32>"])),
        ("Resize", &["tensor<1x3x8x8xf32>", "none", "tensor<4xf32>", "none"], "", Ok(&["tensor<?x?x?x?xf32>"])),
        ("Resize", &["tensor<1x3x8x8xf32>", "none", "none", "dense<[16, 16]> : tensor<2xi64>"], "", Err("sizes has 2 entries for 4 axes")),
        ("Resize", &["tensor<1x3x8x8xf32>", "none", "dense<[2.0]> : tensor<1xf32>", "none"], "", Err("scales has 1 entries for 4 axes")),
        ("Upsample", &["tensor<1x1x2x2xf32>", "dense<[1.0, 1.0, 2.0, 3.0]> : tensor<4xf32>"], "", Ok(&["tensor<1x1x4x6xf32>"])),
    ];

    #[test]
    fn resize_rules() {
        check(CASES);
    }
}
