//! Matrix products and determinants: MatMul, Gemm, MatMulInteger, QLinearMatMul and Det.
//!
//! f32 and f64 products go through the `matrixmultiply` crate; f16/bf16 compute in f64;
//! integers accumulate exactly in i128 and wrap to the output type.

use crate::layout::{broadcast_index, broadcast_shapes};
use crate::quant::{output_zero_point, qlinear_multiplier, qlinear_output, zero_point_values};
use crate::tensor::{checked_alloc, elem_bytes, numel};
use crate::{DType, KernelError, Result, Tensor};

/// The signature of `matrixmultiply`'s kernels: `m, k, n, alpha, a, rsa, csa, b, rsb, csb, beta,
/// c, rsc, csc`.
pub(crate) type GemmKernel<T> = unsafe fn(
    usize,
    usize,
    usize,
    T,
    *const T,
    isize,
    isize,
    *const T,
    isize,
    isize,
    T,
    *mut T,
    isize,
    isize,
);

/// A float type `matrixmultiply` multiplies: f32 (`sgemm`) or f64 (`dgemm`).
pub(crate) trait MatrixFloat: Copy + std::ops::MulAssign {
    /// One, the `alpha` of every product here.
    const ONE: Self;
    /// Zero, the `beta` that overwrites `c`.
    const ZERO: Self;
    /// The crate's kernel for this type.
    const KERNEL: GemmKernel<Self>;
}

impl MatrixFloat for f32 {
    const ONE: f32 = 1.0;
    const ZERO: f32 = 0.0;
    const KERNEL: GemmKernel<f32> = matrixmultiply::sgemm;
}

impl MatrixFloat for f64 {
    const ONE: f64 = 1.0;
    const ZERO: f64 = 0.0;
    const KERNEL: GemmKernel<f64> = matrixmultiply::dgemm;
}

/// `c = a * b + beta * c` on f32 or f64 matrices given by row and column strides; `c` is
/// row-major `m x n`.
///
/// Panics if a slice is too short for its `m`, `k`, `n` and strides (an internal invariant of the callers).
#[allow(clippy::too_many_arguments)]
pub(crate) fn float_gemm<T: MatrixFloat>(
    m: usize,
    k: usize,
    n: usize,
    a: &[T],
    (rsa, csa): (usize, usize),
    b: &[T],
    (rsb, csb): (usize, usize),
    beta: T,
    c: &mut [T],
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        c[..m * n].iter_mut().for_each(|x| *x *= beta);
        return;
    }
    assert!(a.len() > (m - 1) * rsa + (k - 1) * csa, "gemm: a too short");
    assert!(b.len() > (k - 1) * rsb + (n - 1) * csb, "gemm: b too short");
    assert!(c.len() >= m * n, "gemm: c too short");
    // SAFETY: the asserts above guarantee every strided access stays inside the slices,
    // and `c` is a distinct mutable borrow.
    unsafe {
        T::KERNEL(
            m,
            k,
            n,
            T::ONE,
            a.as_ptr(),
            rsa as isize,
            csa as isize,
            b.as_ptr(),
            rsb as isize,
            csb as isize,
            beta,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

/// Exact integer product `c += a * b` of row-major matrices.
fn igemm(m: usize, k: usize, n: usize, a: &[i128], b: &[i128], c: &mut [i128]) {
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p];
            if x == 0 {
                continue;
            }
            for j in 0..n {
                c[i * n + j] = c[i * n + j].wrapping_add(x.wrapping_mul(b[p * n + j]));
            }
        }
    }
}

/// Shapes of a numpy matmul: (batch shape, m, k, n, output shape).
struct MatMulShape {
    batch: Vec<usize>,
    a_batch: Vec<usize>,
    b_batch: Vec<usize>,
    m: usize,
    k: usize,
    n: usize,
    out: Vec<usize>,
}

fn matmul_shape(op: &'static str, a: &[usize], b: &[usize]) -> Result<MatMulShape> {
    if a.is_empty() || b.is_empty() {
        return Err(KernelError::shape(op, "inputs must have rank >= 1"));
    }
    let a2: Vec<usize> = if a.len() == 1 {
        vec![1, a[0]]
    } else {
        a.to_vec()
    };
    let b2: Vec<usize> = if b.len() == 1 {
        vec![b[0], 1]
    } else {
        b.to_vec()
    };
    let (m, k) = (a2[a2.len() - 2], a2[a2.len() - 1]);
    let (k2, n) = (b2[b2.len() - 2], b2[b2.len() - 1]);
    if k != k2 {
        return Err(KernelError::shape(
            op,
            format!("inner dimensions differ: {a:?} x {b:?}"),
        ));
    }
    let a_batch = a2[..a2.len() - 2].to_vec();
    let b_batch = b2[..b2.len() - 2].to_vec();
    let batch = broadcast_shapes(op, &a_batch, &b_batch)?;
    let mut out = batch.clone();
    if a.len() > 1 {
        out.push(m);
    }
    if b.len() > 1 {
        out.push(n);
    }
    checked_alloc(op, &out, std::mem::size_of::<f64>())?;
    Ok(MatMulShape {
        batch,
        a_batch,
        b_batch,
        m,
        k,
        n,
        out,
    })
}

/// ONNX MatMul with numpy semantics: batched, broadcasting, and the 1-D promotion rules.
pub fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.dtype() != b.dtype() {
        return Err(KernelError::DTypeMismatch {
            op: "MatMul",
            a: a.dtype(),
            b: b.dtype(),
        });
    }
    let s = matmul_shape("MatMul", a.shape(), b.shape())?;
    let (m, k, n) = (s.m, s.k, s.n);
    let ia = broadcast_index(&s.batch, &s.a_batch);
    let ib = broadcast_index(&s.batch, &s.b_batch);
    let nb = numel(&s.batch);
    let dt = a.dtype();
    if let (Some(x), Some(y)) = (a.as_f32(), b.as_f32()) {
        let mut out = vec![0f32; nb * m * n];
        for bi in 0..nb {
            let xa = &x[ia[bi] * m * k..(ia[bi] + 1) * m * k];
            let yb = &y[ib[bi] * k * n..(ib[bi] + 1) * k * n];
            float_gemm(
                m,
                k,
                n,
                xa,
                (k, 1),
                yb,
                (n, 1),
                0.0,
                &mut out[bi * m * n..(bi + 1) * m * n],
            );
        }
        return Tensor::from_vec(s.out, out);
    }
    if dt.is_float() {
        let (x, y) = (a.to_f64_vec()?, b.to_f64_vec()?);
        let mut out = vec![0f64; nb * m * n];
        for bi in 0..nb {
            let xa = &x[ia[bi] * m * k..(ia[bi] + 1) * m * k];
            let yb = &y[ib[bi] * k * n..(ib[bi] + 1) * k * n];
            float_gemm(
                m,
                k,
                n,
                xa,
                (k, 1),
                yb,
                (n, 1),
                0.0,
                &mut out[bi * m * n..(bi + 1) * m * n],
            );
        }
        return Tensor::from_f64(dt, s.out, out);
    }
    if dt.is_int() {
        let (x, y) = (a.to_i128_vec()?, b.to_i128_vec()?);
        let mut out = vec![0i128; nb * m * n];
        for bi in 0..nb {
            let xa = &x[ia[bi] * m * k..(ia[bi] + 1) * m * k];
            let yb = &y[ib[bi] * k * n..(ib[bi] + 1) * k * n];
            igemm(m, k, n, xa, yb, &mut out[bi * m * n..(bi + 1) * m * n]);
        }
        return Tensor::from_i128(dt, s.out, out);
    }
    Err(KernelError::dtype("MatMul", dt))
}

/// Attributes of ONNX Gemm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GemmAttrs {
    /// Scale of `A * B` (default 1).
    pub alpha: f32,
    /// Scale of `C` (default 1).
    pub beta: f32,
    /// Transpose `A` first.
    pub trans_a: bool,
    /// Transpose `B` first.
    pub trans_b: bool,
}

impl Default for GemmAttrs {
    fn default() -> Self {
        GemmAttrs {
            alpha: 1.0,
            beta: 1.0,
            trans_a: false,
            trans_b: false,
        }
    }
}

/// ONNX Gemm: `alpha * A' * B' + beta * C`, with `C` broadcast to (M, N).
pub fn gemm(a: &Tensor, b: &Tensor, c: Option<&Tensor>, attrs: GemmAttrs) -> Result<Tensor> {
    if a.rank() != 2 || b.rank() != 2 {
        return Err(KernelError::shape("Gemm", "A and B must be 2-D"));
    }
    if a.dtype() != b.dtype() {
        return Err(KernelError::DTypeMismatch {
            op: "Gemm",
            a: a.dtype(),
            b: b.dtype(),
        });
    }
    let (ar, ac) = (a.shape()[0], a.shape()[1]);
    let (br, bc) = (b.shape()[0], b.shape()[1]);
    let (m, k, sa) = if attrs.trans_a {
        (ac, ar, (1, ac))
    } else {
        (ar, ac, (ac, 1))
    };
    let (k2, n, sb) = if attrs.trans_b {
        (bc, br, (1, bc))
    } else {
        (br, bc, (bc, 1))
    };
    if k != k2 {
        return Err(KernelError::shape(
            "Gemm",
            format!("inner dimensions differ: {:?} x {:?}", a.shape(), b.shape()),
        ));
    }
    let out_shape = vec![m, n];
    checked_alloc("Gemm", &out_shape, elem_bytes(a.dtype()))?;
    let c_index = match c {
        Some(c) => {
            let bs = broadcast_shapes("Gemm", &out_shape, c.shape())?;
            if bs != out_shape {
                return Err(KernelError::shape(
                    "Gemm",
                    format!("C {:?} does not broadcast to [{m}, {n}]", c.shape()),
                ));
            }
            Some(broadcast_index(&out_shape, c.shape()))
        }
        None => None,
    };
    let dt = a.dtype();
    if dt.is_float() || dt.is_int() {
        let f32_path = dt == DType::F32;
        let mut out: Vec<f64>;
        if f32_path {
            let (x, y) = (a.as_f32().unwrap_or(&[]), b.as_f32().unwrap_or(&[]));
            let mut o = vec![0f32; m * n];
            float_gemm(m, k, n, x, sa, y, sb, 0.0, &mut o);
            out = o.into_iter().map(|v| v as f64).collect();
        } else if dt.is_float() {
            let (x, y) = (a.to_f64_vec()?, b.to_f64_vec()?);
            out = vec![0f64; m * n];
            float_gemm(m, k, n, &x, sa, &y, sb, 0.0, &mut out);
        } else {
            // Integers: exact product, then alpha/beta in f64 as the reference does.
            let (x, y) = (a.to_i128_vec()?, b.to_i128_vec()?);
            let xt: Vec<i128> = (0..m * k)
                .map(|t| x[(t / k) * sa.0 + (t % k) * sa.1])
                .collect();
            let yt: Vec<i128> = (0..k * n)
                .map(|t| y[(t / n) * sb.0 + (t % n) * sb.1])
                .collect();
            let mut o = vec![0i128; m * n];
            igemm(m, k, n, &xt, &yt, &mut o);
            out = o.into_iter().map(|v| v as f64).collect();
        }
        let alpha = attrs.alpha as f64;
        if alpha != 1.0 {
            out.iter_mut().for_each(|v| *v *= alpha);
        }
        if let (Some(c), Some(ci)) = (c, c_index) {
            let cv = c.to_f64_vec()?;
            let beta = attrs.beta as f64;
            for (o, &i) in out.iter_mut().zip(&ci) {
                *o += beta * cv[i];
            }
        }
        if f32_path {
            return Tensor::from_vec(out_shape, out.into_iter().map(|v| v as f32).collect());
        }
        return Tensor::from_f64(dt, out_shape, out);
    }
    Err(KernelError::dtype("Gemm", dt))
}

/// ONNX MatMulInteger: `(A - a_zero_point) * (B - b_zero_point)` accumulated in int32.
///
/// `a_zero_point` is a scalar or one value per row of A; `b_zero_point` a scalar or one per column of B.
pub fn matmul_integer(
    a: &Tensor,
    b: &Tensor,
    a_zp: Option<&Tensor>,
    b_zp: Option<&Tensor>,
) -> Result<Tensor> {
    for t in [a, b] {
        if !matches!(t.dtype(), DType::I8 | DType::U8) {
            return Err(KernelError::dtype("MatMulInteger", t.dtype()));
        }
    }
    let s = matmul_shape("MatMulInteger", a.shape(), b.shape())?;
    let (m, k, n) = (s.m, s.k, s.n);
    let azp = zero_point_values("MatMulInteger", a_zp, m)?;
    let bzp = zero_point_values("MatMulInteger", b_zp, n)?;
    let (x, y) = (a.to_i128_vec()?, b.to_i128_vec()?);
    let ia = broadcast_index(&s.batch, &s.a_batch);
    let ib = broadcast_index(&s.batch, &s.b_batch);
    let nb = numel(&s.batch);
    let mut out = vec![0i128; nb * m * n];
    for bi in 0..nb {
        let xa: Vec<i128> = (0..m * k)
            .map(|t| x[ia[bi] * m * k + t] - azp[t / k])
            .collect();
        let yb: Vec<i128> = (0..k * n)
            .map(|t| y[ib[bi] * k * n + t] - bzp[t % n])
            .collect();
        igemm(m, k, n, &xa, &yb, &mut out[bi * m * n..(bi + 1) * m * n]);
    }
    Tensor::from_i128(DType::I32, s.out, out)
}

/// ONNX QLinearMatMul, bit for bit as ONNX's reference evaluator computes it: the product in
/// wrapping `i32`, times `f32(f32(a_scale · b_scale) / y_scale)` in `f64`, plus the output zero
/// point, rounded half to even and clamped to the output type. `a_scale` may hold one value per
/// row and `b_scale` one per column.
#[allow(clippy::too_many_arguments)]
pub fn qlinear_matmul(
    a: &Tensor,
    a_scale: &Tensor,
    a_zp: &Tensor,
    b: &Tensor,
    b_scale: &Tensor,
    b_zp: &Tensor,
    y_scale: &Tensor,
    y_zp: &Tensor,
) -> Result<Tensor> {
    const OP: &str = "QLinearMatMul";
    let s = matmul_shape(OP, a.shape(), b.shape())?;
    let (m, n) = (s.m, s.n);
    let acc = matmul_integer(a, b, Some(a_zp), Some(b_zp))?;
    let sa = per_axis_scale(OP, a_scale, m)?;
    let sb = per_axis_scale(OP, b_scale, n)?;
    let sy = y_scale.to_f64_vec()?;
    if sy.len() != 1 {
        return Err(KernelError::shape(OP, "y_scale must be a scalar"));
    }
    let (zy, lo, hi) = output_zero_point(OP, y_zp)?;
    let dt = a_scale.dtype();
    let acc = acc.to_i128_vec()?;
    let y: Vec<i128> = acc
        .iter()
        .enumerate()
        .map(|(t, &v)| {
            let j = t % n;
            let i = (t / n) % m;
            qlinear_output(
                v as i32,
                qlinear_multiplier(sa[i], sb[j], sy[0], dt),
                zy,
                lo,
                hi,
            )
        })
        .collect();
    Tensor::from_i128(y_zp.dtype(), s.out, y)
}

/// A scale that is a scalar or has `n` entries, expanded to `n` values.
pub(crate) fn per_axis_scale(op: &'static str, t: &Tensor, n: usize) -> Result<Vec<f64>> {
    let v = t.to_f64_vec()?;
    match v.len() {
        1 => Ok(vec![v[0]; n]),
        l if l == n => Ok(v),
        l => Err(KernelError::shape(
            op,
            format!("scale has {l} entries, expected 1 or {n}"),
        )),
    }
}

/// The determinant of the row-major `m x m` matrix `a`, by Gaussian elimination with partial
/// pivoting (`a` is overwritten).
fn determinant(a: &mut [f64], m: usize) -> f64 {
    let mut d = 1.0;
    for col in 0..m {
        let piv = (col..m)
            .max_by(|&p, &q| a[p * m + col].abs().total_cmp(&a[q * m + col].abs()))
            .unwrap_or(col);
        if a[piv * m + col] == 0.0 {
            return 0.0;
        }
        if piv != col {
            for k in 0..m {
                a.swap(piv * m + k, col * m + k);
            }
            d = -d;
        }
        d *= a[col * m + col];
        for row in col + 1..m {
            let f = a[row * m + col] / a[col * m + col];
            for k in col..m {
                a[row * m + k] -= f * a[col * m + k];
            }
        }
    }
    d
}

/// ONNX Det: the determinants of the square matrices `x [*, M, M]`, computed in f64.
pub fn det(x: &Tensor) -> Result<Tensor> {
    const OP: &str = "Det";
    let s = x.shape();
    let r = s.len();
    if r < 2 || s[r - 1] != s[r - 2] {
        return Err(KernelError::shape(
            OP,
            format!("input must be [*, M, M], got {s:?}"),
        ));
    }
    let m = s[r - 1];
    let shape = s[..r - 2].to_vec();
    let mut v = x.float_values(OP)?;
    let out = if m == 0 {
        vec![1.0; numel(&shape)]
    } else {
        v.chunks_mut(m * m).map(|a| determinant(a, m)).collect()
    };
    Tensor::from_f64(x.dtype(), shape, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::f;

    #[test]
    fn matmul_shapes() {
        let a = f(&[2, 3], [1., 2., 3., 4., 5., 6.]);
        let b = f(&[3, 2], [7., 8., 9., 10., 11., 12.]);
        let c = matmul(&a, &b).unwrap();
        // np.array([[1,2,3],[4,5,6]]) @ np.array([[7,8],[9,10],[11,12]]) = [[58, 64], [139, 154]]
        assert_eq!(c.as_f32().unwrap(), &[58., 64., 139., 154.]);
        let v = f(&[3], [1., 1., 1.]);
        let av = matmul(&a, &v).unwrap();
        assert_eq!(av.shape(), &[2]);
        assert_eq!(av.as_f32().unwrap(), &[6., 15.]);
        let va = matmul(&f(&[2], [1., 1.]), &a).unwrap();
        assert_eq!(va.shape(), &[3]);
        assert_eq!(va.as_f32().unwrap(), &[5., 7., 9.]);
        let dot = matmul(&v, &v).unwrap();
        assert_eq!(dot.shape(), &[] as &[usize]);
        // Batch broadcast: [2,1,2,3] x [3,3,2] -> [2,3,2,2].
        let ba = Tensor::from_vec(vec![2, 1, 2, 3], (0..12).map(|x| x as f32).collect()).unwrap();
        let bb = Tensor::from_vec(vec![3, 3, 2], (0..18).map(|x| x as f32).collect()).unwrap();
        let r = matmul(&ba, &bb).unwrap();
        assert_eq!(r.shape(), &[2, 3, 2, 2]);
        // (np.arange(12).reshape(2,1,2,3) @ np.arange(18).reshape(3,3,2))[1, 2].ravel() = [298, 319, 424, 454]
        assert_eq!(&r.as_f32().unwrap()[20..24], &[298., 319., 424., 454.]);
        assert!(matmul(&a, &a).is_err());
        let i = matmul(
            &Tensor::from_vec(vec![1, 2], vec![3i32, 4]).unwrap(),
            &Tensor::from_vec(vec![2, 1], vec![5i32, 6]).unwrap(),
        );
        assert_eq!(i.unwrap().as_slice::<i32>().unwrap(), &[39]);
        let h = matmul(&a.cast(DType::F16).unwrap(), &b.cast(DType::F16).unwrap()).unwrap();
        assert_eq!(h.dtype(), DType::F16);
        assert_eq!(h.to_f32_vec().unwrap(), vec![58., 64., 139., 154.]);
    }

    #[test]
    fn gemm_attrs() {
        let a = f(&[3, 2], [1., 4., 2., 5., 3., 6.]); // transposed [[1,2,3],[4,5,6]]
        let b = f(&[2, 3], [7., 9., 11., 8., 10., 12.]); // transposed [[7,8],[9,10],[11,12]]
        let c = f(&[2], [1., 2.]);
        let attrs = GemmAttrs {
            alpha: 2.0,
            beta: 0.5,
            trans_a: true,
            trans_b: true,
        };
        let y = gemm(&a, &b, Some(&c), attrs).unwrap();
        // 2 * [[58,64],[139,154]] + 0.5 * [1, 2]
        assert_eq!(y.as_f32().unwrap(), &[116.5, 129., 278.5, 309.]);
        let bad = f(&[3], [1., 2., 3.]);
        assert!(gemm(&a, &b, Some(&bad), attrs).is_err());
        let y = gemm(
            &a,
            &f(&[3, 1], [1., 1., 1.]),
            None,
            GemmAttrs {
                trans_a: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(y.as_f32().unwrap(), &[6., 15.]);
    }

    #[test]
    fn integer_products() {
        let a = Tensor::from_vec(vec![2, 2], vec![11u8, 7, 3, 2]).unwrap();
        let b = Tensor::from_vec(vec![2, 1], vec![1u8, 4]).unwrap();
        let y = matmul_integer(
            &a,
            &b,
            Some(&Tensor::scalar(12u8)),
            Some(&Tensor::scalar(0u8)),
        )
        .unwrap();
        // (a - 12) @ b = [[-1*1 + -5*4], [-9*1 + -10*4]] = [[-21], [-49]]
        assert_eq!(y.as_slice::<i32>().unwrap(), &[-21, -49]);
        assert_eq!(y.dtype(), DType::I32);
        // QLinearMatMul from the ONNX operator doc example (uint8):
        // a=[[208,236,0,238],[3,214,255,29]] a_scale=0.0066 a_zp=113,
        // b=[[152,51,244],[60,26,255],[0,127,246],[127,254,247]] b_scale=0.00705 b_zp=114,
        // y_scale=0.0107 y_zp=118 -> [[168,115,255],[1,66,151]]
        let a = Tensor::from_vec(vec![2, 4], vec![208u8, 236, 0, 238, 3, 214, 255, 29]).unwrap();
        let b = Tensor::from_vec(
            vec![4, 3],
            vec![152u8, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247],
        )
        .unwrap();
        let y = qlinear_matmul(
            &a,
            &Tensor::scalar(0.0066f32),
            &Tensor::scalar(113u8),
            &b,
            &Tensor::scalar(0.00705f32),
            &Tensor::scalar(114u8),
            &Tensor::scalar(0.0107f32),
            &Tensor::scalar(118u8),
        )
        .unwrap();
        assert_eq!(y.as_slice::<u8>().unwrap(), &[168, 115, 255, 1, 66, 151]);
    }

    #[test]
    fn determinants() {
        // [[1, 2], [3, 4]] -> -2; a row swap is needed for [[0, 1], [1, 0]] -> -1.
        let x = f(&[2, 2, 2], [1., 2., 3., 4., 0., 1., 1., 0.]);
        let d = det(&x).unwrap();
        assert_eq!(d.shape(), &[2]);
        let d = d.as_f32().unwrap();
        assert!(
            (d[0] + 2.0).abs() < 1e-6 && (d[1] + 1.0).abs() < 1e-6,
            "{d:?}"
        );
        assert!(det(&f(&[2, 3], [0.; 6])).is_err());
    }
}
