//! Helpers shared by the unit tests of this crate's kernel modules.

use crate::{numel, Tensor};

/// An f32 tensor of `shape` holding `v`.
pub(crate) fn f(shape: &[usize], v: impl Into<Vec<f32>>) -> Tensor {
    Tensor::from_vec(shape.to_vec(), v.into()).expect("test data fits its shape")
}

/// An f32 tensor of `shape` holding `0, 1, 2, ...` (numpy's `arange(n).reshape(shape)`).
pub(crate) fn ar(shape: &[usize]) -> Tensor {
    f(
        shape,
        (0..numel(shape)).map(|i| i as f32).collect::<Vec<_>>(),
    )
}

/// Asserts that `a` and `b` have the same length and that every `a[i]` is within
/// `tol * (1 + |b[i]|)` of `b[i]` (absolute tolerance near zero, relative beyond one).
pub(crate) fn close(a: &[f32], b: &[f32], tol: f32) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{a:?} vs {b:?}");
    }
}
