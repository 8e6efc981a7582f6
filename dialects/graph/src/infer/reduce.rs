//! Reductions along axes (`Reduce*`, `ArgMax`/`ArgMin`), `TopK`, and the running
//! reductions `CumSum`/`CumProd`, which keep the input's shape.

use nart_ir::DYNAMIC;

use super::{i64_elem, norm_axis, one, reduce_shape, t, In, Rules, R};

/// Which ops each rule of this file covers. `scripts/gen_graph_ops.py` reads this table and
/// declares each rule in those ops' `OpDef`s.
pub const RULES: Rules = &[
    (
        "Reduce",
        &[
            "ReduceL1",
            "ReduceL2",
            "ReduceLogSum",
            "ReduceLogSumExp",
            "ReduceMax",
            "ReduceMean",
            "ReduceMin",
            "ReduceProd",
            "ReduceSum",
            "ReduceSumSquare",
        ],
    ),
    ("ArgReduce", &["ArgMax", "ArgMin"]),
    ("TopK", &["TopK"]),
    ("Cumulative", &["CumProd", "CumSum"]),
];

rules! {
    /// The input without the reduced axes (or with them as 1 under `keepdims`); the axes come
    /// from the `axes` attribute or the constant operand #1, and none means all unless
    /// `noop_with_empty_axes`.
    Reduce = reduce;
    /// The `i64` index of the extreme along `axis`.
    ArgReduce = |i| {
        let x = i.shaped(0)?;
        let shape = match x.shape {
            Some(s) => {
                let axis = norm_axis(i.int("axis", 0), s.len())?;
                Some(reduce_shape(&s, &[axis], i.int("keepdims", 1) != 0))
            }
            None => None,
        };
        one(t(i64_elem(), shape))
    };
    /// The `k` largest (or smallest) values along `axis` and their `i64` indices; `k` is the
    /// constant operand #1.
    TopK = |i| {
        let x = i.shaped(0)?;
        let shape = match x.shape {
            Some(mut s) => {
                let axis = norm_axis(i.int("axis", -1), s.len())?;
                s[axis] = i
                    .const_ints(1)
                    .and_then(|k| k.first().copied())
                    .unwrap_or(DYNAMIC);
                Some(s)
            }
            None => None,
        };
        Ok(Some(vec![
            Some(t(x.elem, shape.clone())),
            Some(t(i64_elem(), shape)),
        ]))
    };
    /// The input's type and shape.
    Cumulative = |i| one(i.shaped(0)?);
}

fn reduce(i: &In) -> R {
    let x = i.shaped(0)?;
    let keep = i.int("keepdims", 1) != 0;
    let Some(s) = x.shape.clone() else {
        return one(x);
    };
    let axes = if let Some(a) = i.ints("axes") {
        Some(a)
    } else if i.present(1) {
        i.const_ints(1)
    } else {
        Some(vec![])
    };
    let Some(axes) = axes else {
        let shape = if keep {
            Some(vec![DYNAMIC; s.len()])
        } else {
            None
        };
        return one(t(x.elem, shape));
    };
    let axes: Vec<usize> = if axes.is_empty() {
        if i.int("noop_with_empty_axes", 0) != 0 {
            return one(x);
        }
        (0..s.len()).collect()
    } else {
        axes.iter()
            .map(|&a| norm_axis(a, s.len()))
            .collect::<Result<_, _>>()?
    };
    one(t(x.elem, Some(reduce_shape(&s, &axes, keep))))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, Case};

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        ("ReduceSum", &["tensor<2x3x4xf32>", "dense<-1> : tensor<1xi64>"], "", Ok(&["tensor<2x3x1xf32>"])),
        ("ReduceMean", &["tensor<2x3x4xf32>", "dense<[0, 2]> : tensor<2xi64>"], "{keepdims = 0 : i64}", Ok(&["tensor<3xf32>"])),
        ("ReduceMax", &["tensor<2x3x4xf32>", "none"], "{keepdims = 0 : i64}", Ok(&["tensor<f32>"])),
        ("ReduceMax", &["tensor<2x3x4xf32>", "none"], "", Ok(&["tensor<1x1x1xf32>"])),
        ("ReduceL2", &["tensor<2x3xf32>", "none"], "{noop_with_empty_axes = 1 : i64}", Ok(&["tensor<2x3xf32>"])),
        ("ReduceProd", &["tensor<2x3xf32>", "tensor<1xi64>"], "", Ok(&["tensor<?x?xf32>"])),
        ("ReduceProd", &["tensor<2x3xf32>", "tensor<1xi64>"], "{keepdims = 0 : i64}", Ok(&["tensor<*xf32>"])),
        ("ReduceMin", &["tensor<*xf32>", "none"], "", Ok(&["tensor<*xf32>"])),
        ("ReduceSumSquare", &["tensor<2x3xf32>", "dense<2> : tensor<1xi64>"], "", Err("axis 2 is out of range for rank 2")),
        ("ArgMax", &["tensor<2x3x4xf32>"], "{axis = 1 : i64}", Ok(&["tensor<2x1x4xi64>"])),
        ("ArgMin", &["tensor<2x3x4xf32>"], "{axis = -1 : i64, keepdims = 0 : i64}", Ok(&["tensor<2x3xi64>"])),
        ("TopK", &["tensor<2x3x4xf32>", "dense<2> : tensor<1xi64>"], "", Ok(&["tensor<2x3x2xf32>", "tensor<2x3x2xi64>"])),
        ("TopK", &["tensor<5x4xf32>", "tensor<1xi64>"], "{axis = 0 : i64}", Ok(&["tensor<?x4xf32>", "tensor<?x4xi64>"])),
        ("CumSum", &["tensor<2x3xi32>", "tensor<i64>"], "", Ok(&["tensor<2x3xi32>"])),
    ];

    #[test]
    fn reduction_rules() {
        check(CASES);
    }
}
