//! Reductions: Reduce*, ArgMax/ArgMin, TopK, CumSum and CumProd.

use crate::layout::{norm_axes, norm_axis, outer_axis_inner, strides, unravel};
use crate::tensor::numel;
use crate::{KernelError, Result, Tensor};

/// The ONNX Reduce* family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    /// ReduceSum.
    Sum,
    /// ReduceMean.
    Mean,
    /// ReduceMax.
    Max,
    /// ReduceMin.
    Min,
    /// ReduceProd.
    Prod,
    /// ReduceL1.
    L1,
    /// ReduceL2.
    L2,
    /// ReduceLogSum.
    LogSum,
    /// ReduceLogSumExp.
    LogSumExp,
    /// ReduceSumSquare.
    SumSquare,
}

/// Attributes of the Reduce* operators (the axes come as an input since opset 18).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReduceAttrs {
    /// Axes to reduce; `None` or empty means all (unless `noop_with_empty_axes`).
    pub axes: Option<Vec<i64>>,
    /// Keep reduced axes with size 1 (default true).
    pub keepdims: bool,
    /// With empty axes, return the input unchanged.
    pub noop_with_empty_axes: bool,
}

impl Default for ReduceAttrs {
    fn default() -> Self {
        ReduceAttrs {
            axes: None,
            keepdims: true,
            noop_with_empty_axes: false,
        }
    }
}

/// Which axes are reduced and the output shape.
/// The reduced-axis mask, the shape with reduced axes set to 1, and the output shape.
type Plan = (Vec<bool>, Vec<usize>, Vec<usize>);

fn reduce_plan(op: &'static str, shape: &[usize], attrs: &ReduceAttrs) -> Result<Option<Plan>> {
    let axes = attrs.axes.clone().unwrap_or_default();
    if axes.is_empty() && attrs.noop_with_empty_axes {
        return Ok(None);
    }
    let mut red = vec![axes.is_empty(); shape.len()];
    for a in norm_axes(op, &axes, shape.len())? {
        red[a] = true;
    }
    let kept: Vec<usize> = shape
        .iter()
        .zip(&red)
        .map(|(&d, &r)| if r { 1 } else { d })
        .collect();
    let out: Vec<usize> = if attrs.keepdims {
        kept.clone()
    } else {
        shape
            .iter()
            .zip(&red)
            .filter(|(_, &r)| !r)
            .map(|(&d, _)| d)
            .collect()
    };
    Ok(Some((red, kept, out)))
}

/// For each input element, the flat index of its output element.
fn out_index(shape: &[usize], kept: &[usize]) -> Vec<usize> {
    let kst = strides(kept);
    let n = numel(shape);
    let mut idx = vec![0; shape.len()];
    (0..n)
        .map(|i| {
            unravel(i, shape, &mut idx);
            idx.iter()
                .zip(kept)
                .zip(&kst)
                .map(|((&c, &k), &s)| if k == 1 { 0 } else { c * s })
                .sum()
        })
        .collect()
}

fn op_name(op: ReduceOp) -> &'static str {
    match op {
        ReduceOp::Sum => "ReduceSum",
        ReduceOp::Mean => "ReduceMean",
        ReduceOp::Max => "ReduceMax",
        ReduceOp::Min => "ReduceMin",
        ReduceOp::Prod => "ReduceProd",
        ReduceOp::L1 => "ReduceL1",
        ReduceOp::L2 => "ReduceL2",
        ReduceOp::LogSum => "ReduceLogSum",
        ReduceOp::LogSumExp => "ReduceLogSumExp",
        ReduceOp::SumSquare => "ReduceSumSquare",
    }
}

/// Runs a Reduce* operator. Empty reductions give the identity (0, 1, -inf/+inf or the int extremes).
pub fn reduce(op: ReduceOp, x: &Tensor, attrs: &ReduceAttrs) -> Result<Tensor> {
    let name = op_name(op);
    let dt = x.dtype();
    let Some((_, kept, out)) = reduce_plan(name, x.shape(), attrs)? else {
        return Ok(x.clone());
    };
    let map = out_index(x.shape(), &kept);
    let n_out = numel(&kept);
    let count = x.len().checked_div(n_out).unwrap_or(0);
    let int_exact = dt.is_int()
        && matches!(
            op,
            ReduceOp::Sum
                | ReduceOp::Max
                | ReduceOp::Min
                | ReduceOp::Prod
                | ReduceOp::L1
                | ReduceOp::SumSquare
                | ReduceOp::Mean
        );
    if int_exact {
        let v = x.to_i128_vec()?;
        let (lo, hi) = dt.int_range().unwrap_or((i128::MIN, i128::MAX));
        let init = match op {
            ReduceOp::Max => lo,
            ReduceOp::Min => hi,
            ReduceOp::Prod => 1,
            _ => 0,
        };
        let mut acc = vec![init; n_out];
        for (i, &a) in v.iter().enumerate() {
            let o = &mut acc[map[i]];
            *o = match op {
                ReduceOp::Max => (*o).max(a),
                ReduceOp::Min => (*o).min(a),
                ReduceOp::Prod => o.wrapping_mul(a),
                ReduceOp::L1 => *o + a.abs(),
                ReduceOp::SumSquare => o.wrapping_add(a.wrapping_mul(a)),
                _ => o.wrapping_add(a),
            };
        }
        if op == ReduceOp::Mean && count > 0 {
            acc.iter_mut().for_each(|a| *a /= count as i128);
        }
        return Tensor::from_i128(dt, out, acc);
    }
    if !(dt.is_float() || dt.is_int()) {
        return Err(KernelError::dtype(name, dt));
    }
    let v = x.to_f64_vec()?;
    let mut peak = vec![f64::NEG_INFINITY; n_out];
    if op == ReduceOp::LogSumExp {
        for (i, &a) in v.iter().enumerate() {
            peak[map[i]] = peak[map[i]].max(a);
        }
    }
    let init = match op {
        ReduceOp::Max => f64::NEG_INFINITY,
        ReduceOp::Min => f64::INFINITY,
        ReduceOp::Prod => 1.0,
        _ => 0.0,
    };
    let mut acc = vec![init; n_out];
    for (i, &a) in v.iter().enumerate() {
        let j = map[i];
        let o = &mut acc[j];
        *o = match op {
            ReduceOp::Max => {
                if a.is_nan() || o.is_nan() {
                    f64::NAN
                } else {
                    o.max(a)
                }
            }
            ReduceOp::Min => {
                if a.is_nan() || o.is_nan() {
                    f64::NAN
                } else {
                    o.min(a)
                }
            }
            ReduceOp::Prod => *o * a,
            ReduceOp::L1 => *o + a.abs(),
            ReduceOp::L2 | ReduceOp::SumSquare => *o + a * a,
            ReduceOp::LogSumExp => {
                let p = if peak[j].is_finite() { peak[j] } else { 0.0 };
                *o + (a - p).exp()
            }
            _ => *o + a,
        };
    }
    for (j, o) in acc.iter_mut().enumerate() {
        *o = match op {
            ReduceOp::Mean => *o / count as f64,
            ReduceOp::L2 => o.sqrt(),
            ReduceOp::LogSum => o.ln(),
            ReduceOp::LogSumExp => {
                let p = if peak[j].is_finite() { peak[j] } else { 0.0 };
                o.ln() + p
            }
            _ => *o,
        };
    }
    Tensor::from_f64(dt, out, acc)
}

/// Attributes of ArgMax and ArgMin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgAttrs {
    /// Axis (default 0).
    pub axis: i64,
    /// Keep the reduced axis with size 1 (default true).
    pub keepdims: bool,
    /// Pick the last of equal extremes instead of the first.
    pub select_last_index: bool,
}

impl Default for ArgAttrs {
    fn default() -> Self {
        ArgAttrs {
            axis: 0,
            keepdims: true,
            select_last_index: false,
        }
    }
}

fn arg(op: &'static str, x: &Tensor, a: ArgAttrs, better: fn(f64, f64) -> bool) -> Result<Tensor> {
    let s = x.shape();
    let ax = norm_axis(op, a.axis, s.len())?;
    let (outer, n, inner) = outer_axis_inner(s, ax);
    if n == 0 {
        return Err(KernelError::shape(op, "cannot reduce an empty axis"));
    }
    let v = x.to_f64_vec()?;
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let mut best = 0;
            for k in 1..n {
                let (c, b) = (v[(o * n + k) * inner + i], v[(o * n + best) * inner + i]);
                if better(c, b) || (a.select_last_index && c == b) {
                    best = k;
                }
            }
            out.push(best as i64);
        }
    }
    let mut shape = s.to_vec();
    if a.keepdims {
        shape[ax] = 1;
    } else {
        shape.remove(ax);
    }
    Tensor::from_vec(shape, out)
}

/// ONNX ArgMax (int64 output).
pub fn arg_max(x: &Tensor, attrs: ArgAttrs) -> Result<Tensor> {
    arg("ArgMax", x, attrs, |c, b| c > b)
}

/// ONNX ArgMin (int64 output).
pub fn arg_min(x: &Tensor, attrs: ArgAttrs) -> Result<Tensor> {
    arg("ArgMin", x, attrs, |c, b| c < b)
}

/// Attributes of TopK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopKAttrs {
    /// Axis (default -1).
    pub axis: i64,
    /// Largest (default) or smallest elements.
    pub largest: bool,
    /// Sorted output (default true); unsorted output keeps the same order here.
    pub sorted: bool,
}

impl Default for TopKAttrs {
    fn default() -> Self {
        TopKAttrs {
            axis: -1,
            largest: true,
            sorted: true,
        }
    }
}

/// ONNX TopK: returns (values, int64 indices); equal values keep the lower index first.
pub fn top_k(x: &Tensor, k: i64, attrs: TopKAttrs) -> Result<(Tensor, Tensor)> {
    const OP: &str = "TopK";
    let s = x.shape();
    let ax = norm_axis(OP, attrs.axis, s.len())?;
    let (outer, n, inner) = outer_axis_inner(s, ax);
    if k < 0 || k as usize > n {
        return Err(KernelError::attr(OP, "K", format!("{k} not in 0..={n}")));
    }
    let k = k as usize;
    let v = x.to_f64_vec()?;
    let mut idx_out = vec![0usize; outer * k * inner];
    let mut order: Vec<usize> = (0..n).collect();
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| v[(o * n + j) * inner + i];
            order.iter_mut().enumerate().for_each(|(j, x)| *x = j);
            order.sort_by(|&p, &q| {
                let (a, b) = (at(p), at(q));
                let c = if attrs.largest {
                    b.partial_cmp(&a)
                } else {
                    a.partial_cmp(&b)
                };
                c.unwrap_or(std::cmp::Ordering::Equal).then(p.cmp(&q))
            });
            for (r, &j) in order[..k].iter().enumerate() {
                idx_out[(o * k + r) * inner + i] = (o * n + j) * inner + i;
            }
        }
    }
    let mut shape = s.to_vec();
    shape[ax] = k;
    let values = Tensor::new(x.dtype(), shape.clone(), x.data().take(&idx_out))?;
    let indices: Vec<i64> = idx_out
        .iter()
        .map(|&f| ((f / inner.max(1)) % n.max(1)) as i64)
        .collect();
    Ok((values, Tensor::from_vec(shape, indices)?))
}

/// The running sum or product of CumSum and CumProd.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scan {
    Sum,
    Prod,
}

/// Accumulates `x` along `axis`; an exclusive scan writes the accumulator before adding the
/// element, a reversed one runs from the end. Integers accumulate exactly and wrap to the type;
/// float sums accumulate in f64, float products round to the type after every step.
fn scan(
    op: &'static str,
    kind: Scan,
    x: &Tensor,
    axis: i64,
    exclusive: bool,
    reverse: bool,
) -> Result<Tensor> {
    let dt = x.dtype();
    let s = x.shape();
    let ax = norm_axis(op, axis, s.len())?;
    let (outer, n, inner) = outer_axis_inner(s, ax);
    let order: Vec<usize> = if reverse {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    };
    // Runs `step` along every line, in scan order.
    fn lines<T: Copy>(
        v: &[T],
        (outer, n, inner): (usize, usize, usize),
        order: &[usize],
        exclusive: bool,
        init: T,
        step: impl Fn(T, T) -> T,
    ) -> Vec<T> {
        let mut out = vec![init; v.len()];
        for o in 0..outer {
            for i in 0..inner {
                let mut acc = init;
                for &k in order {
                    let p = (o * n + k) * inner + i;
                    if exclusive {
                        out[p] = acc;
                        acc = step(acc, v[p]);
                    } else {
                        acc = step(acc, v[p]);
                        out[p] = acc;
                    }
                }
            }
        }
        out
    }
    let geom = (outer, n, inner);
    if dt.is_int() {
        let v = x.to_i128_vec()?;
        let out = match kind {
            Scan::Sum => lines(&v, geom, &order, exclusive, 0, i128::wrapping_add),
            Scan::Prod => lines(&v, geom, &order, exclusive, 1, |a, b| {
                dt.wrap_int(a.wrapping_mul(b))
            }),
        };
        return Tensor::from_i128(dt, s.to_vec(), out);
    }
    if !dt.is_float() {
        return Err(KernelError::dtype(op, dt));
    }
    let v = x.to_f64_vec()?;
    let out = match kind {
        Scan::Sum => lines(&v, geom, &order, exclusive, 0.0, |a, b| a + b),
        Scan::Prod => lines(&v, geom, &order, exclusive, 1.0, |a, b| dt.round(a * b)),
    };
    Tensor::from_f64(dt, s.to_vec(), out)
}

/// ONNX CumSum along `axis`, optionally exclusive and/or reversed.
pub fn cumsum(x: &Tensor, axis: i64, exclusive: bool, reverse: bool) -> Result<Tensor> {
    scan("CumSum", Scan::Sum, x, axis, exclusive, reverse)
}

/// ONNX CumProd along `axis`, optionally exclusive and/or reversed.
pub fn cumprod(x: &Tensor, axis: i64, exclusive: bool, reverse: bool) -> Result<Tensor> {
    scan("CumProd", Scan::Prod, x, axis, exclusive, reverse)
}

#[cfg(test)]
#[allow(clippy::excessive_precision, clippy::approx_constant)]
mod tests {
    use super::*;
    use crate::test_util::ar;
    use crate::DType;

    fn axes(a: &[i64], keepdims: bool) -> ReduceAttrs {
        ReduceAttrs {
            axes: Some(a.to_vec()),
            keepdims,
            noop_with_empty_axes: false,
        }
    }

    #[test]
    fn reductions() {
        let x = ar(&[2, 3]);
        let r = reduce(ReduceOp::Sum, &x, &axes(&[1], true)).unwrap();
        assert_eq!(r.shape(), &[2, 1]);
        assert_eq!(r.as_f32().unwrap(), &[3., 12.]);
        let r = reduce(ReduceOp::Mean, &x, &axes(&[0], false)).unwrap();
        assert_eq!(r.shape(), &[3]);
        assert_eq!(r.as_f32().unwrap(), &[1.5, 2.5, 3.5]);
        let r = reduce(ReduceOp::Max, &x, &ReduceAttrs::default()).unwrap();
        assert_eq!(r.shape(), &[1, 1]);
        assert_eq!(r.as_f32().unwrap(), &[5.]);
        let r = reduce(ReduceOp::Prod, &x, &axes(&[-1], false)).unwrap();
        assert_eq!(r.as_f32().unwrap(), &[0., 60.]);
        let r = reduce(ReduceOp::L2, &x, &axes(&[1], false)).unwrap();
        assert!((r.as_f32().unwrap()[0] - 5f32.sqrt()).abs() < 1e-6);
        // np.log(np.sum(np.exp([[0,1,2],[3,4,5]]), axis=1)) = [2.40760596, 5.40760596]
        let r = reduce(ReduceOp::LogSumExp, &x, &axes(&[1], false)).unwrap();
        assert!((r.as_f32().unwrap()[1] - 5.407_606).abs() < 1e-5);
        let r = reduce(ReduceOp::SumSquare, &x, &axes(&[0], false)).unwrap();
        assert_eq!(r.as_f32().unwrap(), &[9., 17., 29.]);
        let r = reduce(ReduceOp::LogSum, &x, &axes(&[1], false)).unwrap();
        assert!((r.as_f32().unwrap()[0] - 3f32.ln()).abs() < 1e-6);
        let r = reduce(
            ReduceOp::L1,
            &Tensor::vector(vec![-2i32, 3]),
            &ReduceAttrs::default(),
        )
        .unwrap();
        assert_eq!(r.as_slice::<i32>().unwrap(), &[5]);
        let noop = ReduceAttrs {
            axes: Some(vec![]),
            noop_with_empty_axes: true,
            keepdims: true,
        };
        assert_eq!(reduce(ReduceOp::Sum, &x, &noop).unwrap(), x);
        // Empty reduction: ReduceMin over a zero-size axis gives +inf, ReduceSum gives 0.
        let e = Tensor::zeros(DType::F32, vec![2, 0]);
        assert_eq!(
            reduce(ReduceOp::Min, &e, &axes(&[1], false))
                .unwrap()
                .as_f32()
                .unwrap(),
            &[f32::INFINITY; 2]
        );
        assert_eq!(
            reduce(ReduceOp::Sum, &e, &axes(&[1], false))
                .unwrap()
                .as_f32()
                .unwrap(),
            &[0.; 2]
        );
        assert!(reduce(ReduceOp::Sum, &x, &axes(&[2], false)).is_err());
    }

    #[test]
    fn arg_and_topk() {
        let x = Tensor::from_vec(vec![2, 3], vec![2f32, 5., 5., 7., 1., 7.]).unwrap();
        let a = arg_max(
            &x,
            ArgAttrs {
                axis: 1,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(a.shape(), &[2, 1]);
        assert_eq!(a.as_i64().unwrap(), &[1, 0]);
        let a = arg_max(
            &x,
            ArgAttrs {
                axis: 1,
                keepdims: false,
                select_last_index: true,
            },
        )
        .unwrap();
        assert_eq!(a.as_i64().unwrap(), &[2, 2]);
        let a = arg_min(&x, ArgAttrs::default()).unwrap();
        assert_eq!(a.as_i64().unwrap(), &[0, 1, 0]);
        let (v, i) = top_k(&x, 2, TopKAttrs::default()).unwrap();
        assert_eq!(v.as_f32().unwrap(), &[5., 5., 7., 7.]);
        assert_eq!(i.as_i64().unwrap(), &[1, 2, 0, 2]);
        let (v, i) = top_k(
            &x,
            1,
            TopKAttrs {
                axis: 0,
                largest: false,
                sorted: true,
            },
        )
        .unwrap();
        assert_eq!(v.as_f32().unwrap(), &[2., 1., 5.]);
        assert_eq!(i.as_i64().unwrap(), &[0, 1, 0]);
        assert!(top_k(&x, 4, TopKAttrs::default()).is_err());
    }

    #[test]
    fn cumsum_modes() {
        let x = Tensor::vector(vec![1f64, 2., 3., 4., 5.]);
        // ONNX CumSum doc examples.
        assert_eq!(
            cumsum(&x, 0, false, false)
                .unwrap()
                .as_slice::<f64>()
                .unwrap(),
            &[1., 3., 6., 10., 15.]
        );
        assert_eq!(
            cumsum(&x, 0, true, false)
                .unwrap()
                .as_slice::<f64>()
                .unwrap(),
            &[0., 1., 3., 6., 10.]
        );
        assert_eq!(
            cumsum(&x, 0, false, true)
                .unwrap()
                .as_slice::<f64>()
                .unwrap(),
            &[15., 14., 12., 9., 5.]
        );
        assert_eq!(
            cumsum(&x, 0, true, true)
                .unwrap()
                .as_slice::<f64>()
                .unwrap(),
            &[14., 12., 9., 5., 0.]
        );
        let i = Tensor::from_vec(vec![2, 2], vec![1i32, 2, 3, 4]).unwrap();
        assert_eq!(
            cumsum(&i, 1, false, false)
                .unwrap()
                .as_slice::<i32>()
                .unwrap(),
            &[1, 3, 3, 7]
        );
    }

    #[test]
    fn cumprod_modes() {
        let x = Tensor::vector(vec![1f32, 2., 3., 4.]);
        let y = cumprod(&x, 0, true, true).unwrap();
        assert_eq!(y.as_f32().unwrap(), &[24., 12., 4., 1.]);
        let y = cumprod(&x, -1, false, false).unwrap();
        assert_eq!(y.as_f32().unwrap(), &[1., 2., 6., 24.]);
        let i = Tensor::vector(vec![100i8, 2]);
        // 200 wraps to -56 in i8.
        let y = cumprod(&i, 0, false, false).unwrap();
        assert_eq!(y.as_slice::<i8>().unwrap(), &[100, -56]);
    }
}
