//! Normalizations, `Softmax` and its kin, and `RotaryEmbedding`: each keeps its input's shape;
//! batch and layer normalization also return their statistics.

use nart_ir::{TypeData, DYNAMIC};

use super::{f32_elem, norm_axis, one, t, Rules, R};

/// Which ops each rule of this file covers. `scripts/gen_graph_ops.py` reads this table and
/// declares each rule in those ops' `OpDef`s.
pub const RULES: Rules = &[
    (
        "SameShape",
        &[
            "GroupNormalization",
            "Hardmax",
            "InstanceNormalization",
            "LRN",
            "LogSoftmax",
            "LpNormalization",
            "MeanVarianceNormalization",
            "RMSNormalization",
            "RotaryEmbedding",
            "Softmax",
        ],
    ),
    ("BatchNormalization", &["BatchNormalization"]),
    ("LayerNormalization", &["LayerNormalization"]),
];

rules! {
    /// The input's type and shape.
    SameShape = |i| one(i.shaped(0)?);
    /// The input, and the running mean and variance (`[C]`).
    BatchNormalization = |i| {
        let x = i.shaped(0)?;
        let c = x
            .shape
            .as_ref()
            .and_then(|s| s.get(1).copied())
            .unwrap_or(DYNAMIC);
        let stat = t(x.elem.clone(), Some(vec![c]));
        Ok(Some(vec![Some(x), Some(stat.clone()), Some(stat)]))
    };
    /// The input, and the mean and inverse standard deviation: the input's shape with the
    /// normalized axes (from `axis` on) as 1, in `stash_type` (f32 by default).
    LayerNormalization = layer_norm;
}

fn layer_norm(i: &super::In) -> R {
    let x = i.shaped(0)?;
    let stat = match &x.shape {
        Some(s) => {
            let axis = norm_axis(i.int("axis", -1), s.len())?;
            let mut s2 = s.clone();
            for d in s2.iter_mut().skip(axis) {
                *d = 1;
            }
            let elem: TypeData = match i.int("stash_type", 1) {
                1 => f32_elem(),
                _ => x.elem.clone(),
            };
            Some(t(elem, Some(s2)))
        }
        None => None,
    };
    Ok(Some(vec![Some(x), stat.clone(), stat]))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, Case};

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        ("Softmax", &["tensor<2x10xf32>"], "{axis = -1 : i64}", Ok(&["tensor<2x10xf32>"])),
        ("InstanceNormalization", &["tensor<1x3x4x4xf32>", "tensor<3xf32>", "tensor<3xf32>"], "", Ok(&["tensor<1x3x4x4xf32>"])),
        ("BatchNormalization", &["tensor<2x4x8x8xf32>", "tensor<4xf32>", "tensor<4xf32>", "tensor<4xf32>", "tensor<4xf32>"], "", Ok(&["tensor<2x4x8x8xf32>", "tensor<4xf32>", "tensor<4xf32>"])),
        ("BatchNormalization", &["tensor<*xf16>", "tensor<4xf16>", "tensor<4xf16>", "tensor<4xf16>", "tensor<4xf16>"], "", Ok(&["tensor<*xf16>", "tensor<?xf16>", "tensor<?xf16>"])),
        ("LayerNormalization", &["tensor<2x5x8xf16>", "tensor<8xf16>", "none"], "", Ok(&["tensor<2x5x8xf16>", "tensor<2x5x1xf32>", "tensor<2x5x1xf32>"])),
        ("LayerNormalization", &["tensor<2x5x8xf16>", "tensor<5x8xf16>", "none"], "{axis = 1 : i64, stash_type = 10 : i64}", Ok(&["tensor<2x5x8xf16>", "tensor<2x1x1xf16>", "tensor<2x1x1xf16>"])),
        ("LayerNormalization", &["tensor<*xf32>", "tensor<8xf32>", "none"], "", Ok(&["tensor<*xf32>", "?", "?"])),
        ("LayerNormalization", &["tensor<2x8xf32>", "tensor<8xf32>", "none"], "{axis = 2 : i64}", Err("axis 2 is out of range for rank 2")),
    ];

    #[test]
    fn normalization_rules() {
        check(CASES);
    }
}
