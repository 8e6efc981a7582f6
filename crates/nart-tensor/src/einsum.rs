//! ONNX Einsum: any equation, with implicit or explicit output, repeated labels (diagonals) and broadcast `...`.

use crate::layout::{strides, unravel};
use crate::tensor::{checked_alloc, numel};
use crate::{KernelError, Result, Tensor};

const OP: &str = "Einsum";

fn bad(msg: impl Into<String>) -> KernelError {
    KernelError::attr(OP, "equation", msg)
}

/// Splits a term into labels, expanding `...` into `ell` synthetic labels aligned to the right of `max_ell`.
fn expand_term(term: &str, ell: usize, max_ell: usize) -> Result<Vec<char>> {
    let mut out = vec![];
    let mut rest = term;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("...") {
            for k in max_ell - ell..max_ell {
                out.push(char::from_u32(0xE000 + k as u32).unwrap_or('\u{E000}'));
            }
            rest = r;
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        if !c.is_ascii_alphabetic() {
            return Err(bad(format!("unexpected character {c:?}")));
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Ok(out)
}

/// ONNX Einsum.
pub fn einsum(equation: &str, inputs: &[&Tensor]) -> Result<Tensor> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != inputs.len() {
        return Err(bad(format!(
            "{} terms for {} inputs",
            terms.len(),
            inputs.len()
        )));
    }
    let Some(first) = inputs.first() else {
        return Err(KernelError::Arity {
            op: OP,
            msg: "needs at least one input".into(),
        });
    };
    let dt = first.dtype();
    if inputs.iter().any(|t| t.dtype() != dt) {
        return Err(KernelError::DTypeMismatch {
            op: OP,
            a: dt,
            b: inputs
                .iter()
                .map(|t| t.dtype())
                .find(|&d| d != dt)
                .unwrap_or(dt),
        });
    }
    let mut ells = vec![];
    for (t, x) in terms.iter().zip(inputs) {
        let letters = t.chars().filter(|c| c.is_ascii_alphabetic()).count();
        let has_ell = t.contains("...");
        if (!has_ell && letters != x.rank()) || letters > x.rank() {
            return Err(bad(format!("term {t:?} does not match rank {}", x.rank())));
        }
        ells.push(if has_ell { x.rank() - letters } else { 0 });
    }
    let max_ell = ells.iter().copied().max().unwrap_or(0);
    let labels: Vec<Vec<char>> = terms
        .iter()
        .zip(&ells)
        .map(|(t, &e)| expand_term(t, e, max_ell))
        .collect::<Result<_>>()?;
    // Label sizes, allowing size-1 broadcast.
    let mut all: Vec<char> = vec![];
    let mut size: Vec<usize> = vec![];
    for (ls, x) in labels.iter().zip(inputs) {
        for (&l, &d) in ls.iter().zip(x.shape()) {
            match all.iter().position(|&a| a == l) {
                Some(p) => {
                    if size[p] != d && size[p] != 1 && d != 1 {
                        return Err(KernelError::shape(
                            OP,
                            format!("label {l:?} has sizes {} and {d}", size[p]),
                        ));
                    }
                    if d != 1 {
                        size[p] = d;
                    }
                }
                None => {
                    all.push(l);
                    size.push(d);
                }
            }
        }
    }
    let out_labels: Vec<char> = match rhs {
        Some(r) => {
            let v = expand_term(r, max_ell, max_ell)?;
            if let Some(&l) = v.iter().find(|l| !all.contains(l)) {
                return Err(bad(format!("output label {l:?} not in the inputs")));
            }
            v
        }
        None => {
            let mut v: Vec<char> = all
                .iter()
                .copied()
                .filter(|&c| c as u32 >= 0xE000)
                .collect();
            v.sort();
            let mut once: Vec<char> = all
                .iter()
                .copied()
                .filter(|&c| {
                    (c as u32) < 0xE000 && labels.iter().flatten().filter(|&&x| x == c).count() == 1
                })
                .collect();
            once.sort();
            v.extend(once);
            v
        }
    };
    let sum_labels: Vec<char> = all
        .iter()
        .copied()
        .filter(|l| !out_labels.contains(l))
        .collect();
    let sz = |l: char| size[all.iter().position(|&a| a == l).unwrap_or(0)];
    let out_shape: Vec<usize> = out_labels.iter().map(|&l| sz(l)).collect();
    let sum_shape: Vec<usize> = sum_labels.iter().map(|&l| sz(l)).collect();
    // Per input: stride of each output label and each summed label (0 when absent or broadcast).
    let stride_for = |ls: &[char], x: &Tensor, targets: &[char]| -> Vec<usize> {
        let st = strides(x.shape());
        targets
            .iter()
            .map(|t| {
                ls.iter()
                    .enumerate()
                    .filter(|(_, &l)| l == *t)
                    .map(|(i, _)| if x.shape()[i] == 1 { 0 } else { st[i] })
                    .sum()
            })
            .collect()
    };
    let out_st: Vec<Vec<usize>> = labels
        .iter()
        .zip(inputs)
        .map(|(ls, x)| stride_for(ls, x, &out_labels))
        .collect();
    let sum_st: Vec<Vec<usize>> = labels
        .iter()
        .zip(inputs)
        .map(|(ls, x)| stride_for(ls, x, &sum_labels))
        .collect();
    let n_out = checked_alloc("Einsum", &out_shape, std::mem::size_of::<f64>())?;
    let n_sum = numel(&sum_shape);
    let mut oi = vec![0; out_shape.len()];
    let mut si = vec![0; sum_shape.len()];
    let sum_offsets: Vec<Vec<usize>> = (0..n_sum)
        .map(|s| {
            unravel(s, &sum_shape, &mut si);
            sum_st
                .iter()
                .map(|st| si.iter().zip(st).map(|(a, b)| a * b).sum())
                .collect()
        })
        .collect();
    if dt.is_int() {
        let vals: Vec<Vec<i128>> = inputs
            .iter()
            .map(|t| t.to_i128_vec())
            .collect::<Result<_>>()?;
        let mut out = vec![0i128; n_out];
        for (o, res) in out.iter_mut().enumerate() {
            unravel(o, &out_shape, &mut oi);
            let base: Vec<usize> = out_st
                .iter()
                .map(|st| oi.iter().zip(st).map(|(a, b)| a * b).sum())
                .collect();
            for so in &sum_offsets {
                let mut p = 1i128;
                for (k, v) in vals.iter().enumerate() {
                    p = p.wrapping_mul(v[base[k] + so[k]]);
                }
                *res = res.wrapping_add(p);
            }
        }
        return Tensor::from_i128(dt, out_shape, out);
    }
    if !dt.is_float() {
        return Err(KernelError::dtype(OP, dt));
    }
    let vals: Vec<Vec<f64>> = inputs
        .iter()
        .map(|t| t.to_f64_vec())
        .collect::<Result<_>>()?;
    let mut out = vec![0f64; n_out];
    for (o, res) in out.iter_mut().enumerate() {
        unravel(o, &out_shape, &mut oi);
        let base: Vec<usize> = out_st
            .iter()
            .map(|st| oi.iter().zip(st).map(|(a, b)| a * b).sum())
            .collect();
        for so in &sum_offsets {
            let mut p = 1f64;
            for (k, v) in vals.iter().enumerate() {
                p *= v[base[k] + so[k]];
            }
            *res += p;
        }
    }
    Tensor::from_f64(dt, out_shape, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::ar;

    #[test]
    fn equations() {
        let a = ar(&[2, 3]);
        let b = ar(&[3, 2]);
        // np.einsum("ij,jk->ik", arange(6).reshape(2,3), arange(6).reshape(3,2)) = [[10, 13], [28, 40]]
        assert_eq!(
            einsum("ij,jk->ik", &[&a, &b]).unwrap().as_f32().unwrap(),
            &[10., 13., 28., 40.]
        );
        assert_eq!(
            einsum("ij,jk", &[&a, &b]).unwrap().as_f32().unwrap(),
            &[10., 13., 28., 40.]
        );
        let t = einsum("ij->ji", &[&a]).unwrap();
        assert_eq!(t.shape(), &[3, 2]);
        assert_eq!(t.as_f32().unwrap(), &[0., 3., 1., 4., 2., 5.]);
        assert_eq!(
            einsum("ii->i", &[&ar(&[3, 3])]).unwrap().as_f32().unwrap(),
            &[0., 4., 8.]
        );
        assert_eq!(
            einsum("ii", &[&ar(&[3, 3])]).unwrap().as_f32().unwrap(),
            &[12.]
        );
        assert_eq!(einsum("ij->", &[&a]).unwrap().as_f32().unwrap(), &[15.]);
        // Batched with ellipsis: np.einsum("...ij,...jk->...ik", arange(12).reshape(2,2,3), arange(6).reshape(3,2))
        let x = ar(&[2, 2, 3]);
        let y = einsum("...ij,...jk->...ik", &[&x, &b]).unwrap();
        assert_eq!(y.shape(), &[2, 2, 2]);
        assert_eq!(
            y.as_f32().unwrap(),
            &[10., 13., 28., 40., 46., 67., 64., 94.]
        );
        // Outer product "i,j->ij".
        let o = einsum("i,j->ij", &[&ar(&[2]), &ar(&[3])]).unwrap();
        assert_eq!(o.as_f32().unwrap(), &[0., 0., 0., 0., 1., 2.]);
        assert!(einsum("ij,jk->ik", &[&a, &a]).is_err());
        assert!(einsum("ij->k", &[&a]).is_err());
    }
}
