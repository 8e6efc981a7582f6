//! `qnn.matmul`: batched, broadcasting matrix products on quantized tensors.

use super::{values, FixedMultiplier, Output, QParams};
use crate::layout::{broadcast_index, broadcast_shapes};
use crate::{KernelError, Result, Tensor};

/// `qnn.matmul`: `a` is `... × M × K`, `b` is `... × K × N` (batch dimensions broadcast),
/// `b` quantized per tensor or per column; each result is
/// `clamp(Zy + (Sa·Sb[j]/Sy) ⊗ acc)` with the wrapping `i32`
/// `acc = Σ qa·qb − Zb[j]·Σ qa − Za·Σ qb + K·Za·Zb[j] + bias[j]`.
pub fn matmul(
    a: &Tensor,
    aq: &QParams,
    b: &Tensor,
    bq: &QParams,
    bias: Option<&Tensor>,
    out: Output<'_>,
) -> Result<Tensor> {
    const OP: &str = "qnn.matmul";
    aq.check(OP, "lhs", a)?;
    bq.check(OP, "rhs", b)?;
    let (sa, za) = aq.require_per_tensor(OP, "lhs")?;
    let (ash, bsh) = (a.shape(), b.shape());
    if ash.len() < 2 || bsh.len() < 2 {
        return Err(KernelError::shape(OP, "operands must have rank 2 or more"));
    }
    let (ra, rb) = (ash.len(), bsh.len());
    if bq.axis.is_some_and(|ax| ax != rb - 1) {
        return Err(KernelError::shape(
            OP,
            "rhs must be quantized per tensor or per column",
        ));
    }
    let (m, k, k2, n) = (ash[ra - 2], ash[ra - 1], bsh[rb - 2], bsh[rb - 1]);
    if k != k2 {
        return Err(KernelError::shape(
            OP,
            format!("inner dimensions differ: {ash:?} × {bsh:?}"),
        ));
    }
    let batch = broadcast_shapes(OP, &ash[..ra - 2], &bsh[..rb - 2])?;
    let ia = broadcast_index(&batch, &ash[..ra - 2]);
    let ib = broadcast_index(&batch, &bsh[..rb - 2]);
    let (sy, zy, lo, hi) = out.range(OP)?;
    let av: Vec<i32> = values(a)?.into_iter().map(|v| v as i32).collect();
    let bv: Vec<i32> = values(b)?.into_iter().map(|v| v as i32).collect();
    let cv: Vec<i32> = match bias {
        Some(t) if t.len() == n => values(t)?.into_iter().map(|v| v as i32).collect(),
        Some(t) => {
            return Err(KernelError::shape(
                OP,
                format!("bias has {} values, expected {n}", t.len()),
            ))
        }
        None => vec![0; n],
    };
    let za32 = za as i32;
    let zb: Vec<i32> = (0..n).map(|j| bq.zero_point(j) as i32).collect();
    let mults: Vec<FixedMultiplier> = (0..n)
        .map(|j| FixedMultiplier::new(OP, sa * bq.scale(j) / sy))
        .collect::<Result<_>>()?;
    let nb = ia.len();
    let mut y = Vec::with_capacity(nb * m * n);
    let mut acc = vec![0i32; n];
    let mut bsum = vec![0i32; n];
    for bi in 0..nb {
        let am = &av[ia[bi] * m * k..(ia[bi] + 1) * m * k];
        let bm = &bv[ib[bi] * k * n..(ib[bi] + 1) * k * n];
        // Column sums of b.
        bsum.iter_mut().for_each(|s| *s = 0);
        for row in bm.chunks_exact(n.max(1)) {
            for (s, &v) in bsum.iter_mut().zip(row) {
                *s = s.wrapping_add(v);
            }
        }
        for i in 0..m {
            let arow = &am[i * k..(i + 1) * k];
            let asum = arow.iter().fold(0i32, |s, &v| s.wrapping_add(v));
            acc.iter_mut().for_each(|s| *s = 0);
            for (p, &x) in arow.iter().enumerate() {
                for (s, &v) in acc.iter_mut().zip(&bm[p * n..(p + 1) * n]) {
                    *s = s.wrapping_add(x.wrapping_mul(v));
                }
            }
            for j in 0..n {
                let total = acc[j]
                    .wrapping_sub(zb[j].wrapping_mul(asum))
                    .wrapping_sub(za32.wrapping_mul(bsum[j]))
                    .wrapping_add((k as i32).wrapping_mul(za32).wrapping_mul(zb[j]))
                    .wrapping_add(cv[j]);
                y.push(
                    (i128::from(zy) + mults[j].apply(i128::from(total), out.rounding))
                        .clamp(i128::from(lo), i128::from(hi)),
                );
            }
        }
    }
    let mut shape = batch;
    shape.extend([m, n]);
    Tensor::from_i128(out.q.dtype, shape, y)
}
