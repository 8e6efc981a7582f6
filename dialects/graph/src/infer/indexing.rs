//! Ops that pick or place elements by index: gathers and scatters, `NonZero`, `Compress`,
//! `NonMaxSuppression`, `OneHot`, `Trilu` and `ReverseSequence`.

use nart_ir::DYNAMIC;

use super::{i64_elem, norm_axis, one, t, In, Rules, R};

/// Which ops each rule of this file covers. `scripts/gen_graph_ops.py` reads this table and
/// declares each rule in those ops' `OpDef`s.
pub const RULES: Rules = &[
    (
        "LikeData",
        &[
            "ReverseSequence",
            "Scatter",
            "ScatterElements",
            "ScatterND",
            "TensorScatter",
            "Trilu",
        ],
    ),
    ("Gather", &["Gather"]),
    ("GatherElements", &["GatherElements"]),
    ("GatherND", &["GatherND"]),
    ("NonZero", &["NonZero"]),
    ("NonMaxSuppression", &["NonMaxSuppression"]),
    ("Compress", &["Compress"]),
    ("OneHot", &["OneHot"]),
];

rules! {
    /// The data operand's (#0) type and shape: the op rewrites some of its elements.
    LikeData = |i| one(i.shaped(0)?);
    /// `data[:axis] + indices + data[axis + 1:]`.
    Gather = |i| {
        let x = i.shaped(0)?;
        let idx = i.shaped(1)?;
        let shape = match (x.shape, idx.shape) {
            (Some(s), Some(q)) => {
                let axis = norm_axis(i.int("axis", 0), s.len())?;
                let mut out = s[..axis].to_vec();
                out.extend_from_slice(&q);
                out.extend_from_slice(&s[axis + 1..]);
                Some(out)
            }
            _ => None,
        };
        one(t(x.elem, shape))
    };
    /// The indices' shape, of the same rank as the data.
    GatherElements = |i| {
        let x = i.shaped(0)?;
        let idx = i.shaped(1)?;
        if let (Some(s), Some(q)) = (&x.shape, &idx.shape) {
            if s.len() != q.len() {
                return Err(format!(
                    "data and indices must have the same rank: {} and {}",
                    i.type_str(0),
                    i.type_str(1)
                ));
            }
        }
        one(t(x.elem, idx.shape))
    };
    /// `indices[:-1] + data[batch_dims + indices[-1]:]`.
    GatherND = gather_nd;
    /// `[rank, number of non-zeros]` indices.
    NonZero = |i| {
        let x = i.shaped(0)?;
        let r = x.shape.map_or(DYNAMIC, |s| s.len() as i64);
        one(t(i64_elem(), Some(vec![r, DYNAMIC])))
    };
    /// `[selected boxes, 3]` indices.
    NonMaxSuppression = |_| one(t(i64_elem(), Some(vec![DYNAMIC, 3])));
    /// The input with the `axis` dim as long as the selection (data-dependent), or a 1-D
    /// selection of the flattened input.
    Compress = |i| {
        let x = i.shaped(0)?;
        let shape = match (i.ctx.attr(i.op, "axis").is_some(), x.shape) {
            (true, Some(mut s)) => {
                let axis = norm_axis(i.int("axis", 0), s.len())?;
                s[axis] = DYNAMIC;
                Some(s)
            }
            (true, None) => None,
            (false, _) => Some(vec![DYNAMIC]),
        };
        one(t(x.elem, shape))
    };
    /// The indices' shape with the constant `depth` (operand #1) inserted at `axis`, in the
    /// element type of `values` (operand #2).
    OneHot = |i| {
        let idx = i.shaped(0)?;
        let values = i.shaped(2)?;
        let shape = match idx.shape {
            Some(mut s) => {
                let axis = norm_axis(i.int("axis", -1), s.len() + 1)?;
                let depth = i
                    .const_floats(1)
                    .filter(|d| d.len() == 1)
                    .map_or(DYNAMIC, |d| d[0] as i64);
                s.insert(axis, depth);
                Some(s)
            }
            None => None,
        };
        one(t(values.elem, shape))
    };
}

fn gather_nd(i: &In) -> R {
    let x = i.shaped(0)?;
    let idx = i.shaped(1)?;
    let (Some(s), Some(q)) = (x.shape, idx.shape) else {
        return one(t(x.elem, None));
    };
    let b = i.int("batch_dims", 0);
    let Some(&last) = q.last() else {
        return Err(format!(
            "indices must have rank 1 or more, but got {}",
            i.type_str(1)
        ));
    };
    if b < 0 || b as usize >= q.len() || b as usize > s.len() {
        return Err(format!(
            "batch_dims {b} must be less than the rank of indices {} and at most the rank of data {}",
            i.type_str(1),
            i.type_str(0)
        ));
    }
    if last == DYNAMIC {
        return one(t(x.elem, None));
    }
    let from = b as usize + last.max(0) as usize;
    if from > s.len() {
        return Err(format!(
            "indices {} index {last} dims past batch_dims {b}, but data {} has rank {}",
            i.type_str(1),
            i.type_str(0),
            s.len()
        ));
    }
    let mut out = q[..q.len() - 1].to_vec();
    out.extend_from_slice(&s[from..]);
    one(t(x.elem, Some(out)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, Case};

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        ("ScatterElements", &["tensor<3x3xf32>", "tensor<2x3xi64>", "tensor<2x3xf32>"], "", Ok(&["tensor<3x3xf32>"])),
        ("Trilu", &["tensor<4x5xi64>", "none"], "", Ok(&["tensor<4x5xi64>"])),
        ("Gather", &["tensor<2x3x4xf32>", "tensor<5x6xi64>"], "{axis = 1 : i64}", Ok(&["tensor<2x5x6x4xf32>"])),
        ("Gather", &["tensor<5x4xf32>", "tensor<i64>"], "", Ok(&["tensor<4xf32>"])),
        ("Gather", &["tensor<5x4xf32>", "tensor<i64>"], "{axis = 2 : i64}", Err("axis 2 is out of range for rank 2")),
        ("GatherElements", &["tensor<3x3xf32>", "tensor<2x3xi64>"], "", Ok(&["tensor<2x3xf32>"])),
        ("GatherElements", &["tensor<3x3xf32>", "tensor<2xi64>"], "", Err("data and indices must have the same rank: tensor<3x3xf32> and tensor<2xi64>")),
        ("GatherND", &["tensor<2x2xi32>", "tensor<2x2xi64>"], "", Ok(&["tensor<2xi32>"])),
        ("GatherND", &["tensor<2x2xi32>", "tensor<2x1xi64>"], "", Ok(&["tensor<2x2xi32>"])),
        ("GatherND", &["tensor<2x2x2xf32>", "tensor<2x1xi64>"], "{batch_dims = 1 : i64}", Ok(&["tensor<2x2xf32>"])),
        ("GatherND", &["tensor<2x2xi32>", "tensor<2x?xi64>"], "", Ok(&["tensor<*xi32>"])),
        ("GatherND", &["tensor<2x2xi32>", "tensor<2x3xi64>"], "", Err("indices tensor<2x3xi64> index 3 dims past batch_dims 0, but data tensor<2x2xi32> has rank 2")),
        ("NonZero", &["tensor<2x3xf32>"], "", Ok(&["tensor<2x?xi64>"])),
        ("NonMaxSuppression", &["tensor<1x6x4xf32>", "tensor<1x1x6xf32>", "none", "none", "none"], "", Ok(&["tensor<?x3xi64>"])),
        ("Compress", &["tensor<3x2xf32>", "tensor<3xi1>"], "{axis = 0 : i64}", Ok(&["tensor<?x2xf32>"])),
        ("Compress", &["tensor<3x2xf32>", "tensor<3xi1>"], "", Ok(&["tensor<?xf32>"])),
        ("OneHot", &["tensor<2x3xi64>", "dense<10> : tensor<i64>", "tensor<2xf32>"], "", Ok(&["tensor<2x3x10xf32>"])),
        ("OneHot", &["tensor<2x3xi64>", "dense<10.0> : tensor<1xf32>", "tensor<2xi32>"], "{axis = 0 : i64}", Ok(&["tensor<10x2x3xi32>"])),
        ("OneHot", &["tensor<2x3xi64>", "tensor<i64>", "tensor<2xf32>"], "{axis = 1 : i64}", Ok(&["tensor<2x?x3xf32>"])),
    ];

    #[test]
    fn indexing_rules() {
        check(CASES);
    }
}
