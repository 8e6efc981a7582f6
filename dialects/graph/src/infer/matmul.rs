//! Matrix products: `MatMul` (numpy's batched product), `Gemm`, `Einsum` and `Det`.

use nart_ir::{TypeData, DYNAMIC};

use super::{broadcast, one, t, In, Rules, R};

/// Which ops each rule of this file covers. `scripts/gen_graph_ops.py` reads this table and
/// declares each rule in those ops' `OpDef`s.
pub const RULES: Rules = &[
    ("MatMul", &["MatMul"]),
    ("Gemm", &["Gemm"]),
    ("Einsum", &["Einsum"]),
    ("Det", &["Det"]),
];

rules! {
    /// The batched product `[..., M, K] x [..., K, N] -> [..., M, N]`.
    MatMul = |i| matmul(i, None);
    /// `[M, N]` from `A` and `B` (rank 2, transposed as `transA` and `transB` say), with `C`
    /// broadcastable to it.
    Gemm = gemm;
    /// The output labels' sizes, from the equation and the operands' shapes.
    Einsum = einsum;
    /// The batch dims of `[..., M, M]`.
    Det = |i| {
        let x = i.shaped(0)?;
        let shape = match x.shape {
            Some(s) if s.len() < 2 => {
                return Err(format!(
                    "input must have rank 2 or more, but got {}",
                    i.type_str(0)
                ))
            }
            Some(s) => {
                let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
                if m != DYNAMIC && n != DYNAMIC && m != n {
                    return Err(format!(
                        "input must hold square matrices, but got {}",
                        i.type_str(0)
                    ));
                }
                Some(s[..s.len() - 2].to_vec())
            }
            None => None,
        };
        one(t(x.elem, shape))
    };
}

/// The shape of the matrix product of operands #0 and `b_idx` with shapes `a` and `b` (numpy's
/// `matmul`: rank-1 operands are promoted, batch dims broadcast).
pub(crate) fn matmul_shape(
    a: Option<&[i64]>,
    b: Option<&[i64]>,
    i: &In,
    b_idx: usize,
) -> Result<Option<Vec<i64>>, String> {
    let (Some(a), Some(b)) = (a, b) else {
        return Ok(None);
    };
    if a.is_empty() || b.is_empty() {
        return Err("operands of a matrix product must have rank 1 or more".into());
    }
    let a2: Vec<i64> = if a.len() == 1 {
        vec![1, a[0]]
    } else {
        a.to_vec()
    };
    let b2: Vec<i64> = if b.len() == 1 {
        vec![b[0], 1]
    } else {
        b.to_vec()
    };
    let (m, k1) = (a2[a2.len() - 2], a2[a2.len() - 1]);
    let (k2, n) = (b2[b2.len() - 2], b2[b2.len() - 1]);
    if k1 != DYNAMIC && k2 != DYNAMIC && k1 != k2 {
        return Err(format!(
            "inner dimensions do not match: {} and {}",
            i.type_str(0),
            i.type_str(b_idx)
        ));
    }
    let batch = broadcast(&a2[..a2.len() - 2], &b2[..b2.len() - 2]).ok_or_else(|| {
        format!(
            "batch dimensions are not broadcast-compatible: {} and {}",
            i.type_str(0),
            i.type_str(b_idx)
        )
    })?;
    let mut out = batch;
    if a.len() > 1 {
        out.push(m);
    }
    if b.len() > 1 {
        out.push(n);
    }
    Ok(Some(out))
}

/// `MatMul` of operands #0 and #1, with element type `elem` or theirs (which must agree).
pub(crate) fn matmul(i: &In, elem: Option<TypeData>) -> R {
    let a = i.shaped(0)?;
    let b = i.shaped(1)?;
    if elem.is_none() && a.elem != b.elem {
        return Err(format!(
            "operands have different element types: {} and {}",
            i.type_str(0),
            i.type_str(1)
        ));
    }
    let shape = matmul_shape(a.shape.as_deref(), b.shape.as_deref(), i, 1)?;
    one(t(elem.unwrap_or(a.elem), shape))
}

fn gemm(i: &In) -> R {
    let a = i.shaped(0)?;
    let b = i.shaped(1)?;
    let (Some(sa), Some(sb)) = (&a.shape, &b.shape) else {
        return one(t(a.elem, Some(vec![DYNAMIC, DYNAMIC])));
    };
    if sa.len() != 2 || sb.len() != 2 {
        return Err(format!(
            "operands A and B must have rank 2, but got {} and {}",
            i.type_str(0),
            i.type_str(1)
        ));
    }
    let (m, k1) = if i.int("transA", 0) != 0 {
        (sa[1], sa[0])
    } else {
        (sa[0], sa[1])
    };
    let (k2, n) = if i.int("transB", 0) != 0 {
        (sb[1], sb[0])
    } else {
        (sb[0], sb[1])
    };
    if k1 != DYNAMIC && k2 != DYNAMIC && k1 != k2 {
        return Err(format!(
            "inner dimensions do not match: {} and {}",
            i.type_str(0),
            i.type_str(1)
        ));
    }
    if i.present(2) {
        if let Some(sc) = i.shaped(2)?.shape {
            if broadcast(&[m, n], &sc).is_none_or(|s| s.len() != 2) {
                return Err(format!(
                    "operand C {} is not broadcastable to [{m}, {n}]",
                    i.type_str(2)
                ));
            }
        }
    }
    one(t(a.elem, Some(vec![m, n])))
}

fn einsum(i: &In) -> R {
    let eq: String = i
        .string("equation", "")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let first = i.shaped(0)?;
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (eq.clone(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != i.n() {
        return Err(format!(
            "equation '{eq}' names {} operands but the op has {}",
            terms.len(),
            i.n()
        ));
    }
    if eq.contains("...") {
        return one(t(first.elem, None));
    }
    let mut dims: Vec<(char, i64)> = Vec::new();
    let mut counts: Vec<(char, usize)> = Vec::new();
    for (k, term) in terms.iter().enumerate() {
        let s = i.shaped(k)?;
        let Some(shape) = s.shape else {
            return one(t(first.elem, None));
        };
        if term.chars().count() != shape.len() {
            return Err(format!(
                "term '{term}' of equation '{eq}' does not match operand #{k} of rank {}",
                shape.len()
            ));
        }
        for (c, d) in term.chars().zip(shape) {
            match dims.iter_mut().find(|(x, _)| *x == c) {
                Some((_, e)) => {
                    if *e == DYNAMIC || *e == 1 {
                        *e = d;
                    } else if d != DYNAMIC && d != 1 && d != *e {
                        return Err(format!("label '{c}' has sizes {e} and {d}"));
                    }
                }
                None => dims.push((c, d)),
            }
            match counts.iter_mut().find(|(x, _)| *x == c) {
                Some((_, n)) => *n += 1,
                None => counts.push((c, 1)),
            }
        }
    }
    let out_labels: Vec<char> = match rhs {
        Some(r) => r.chars().collect(),
        None => {
            let mut v: Vec<char> = counts
                .iter()
                .filter(|(_, n)| *n == 1)
                .map(|(c, _)| *c)
                .collect();
            v.sort();
            v
        }
    };
    let mut out = Vec::new();
    for c in out_labels {
        let d = dims
            .iter()
            .find(|(x, _)| *x == c)
            .ok_or_else(|| format!("output label '{c}' does not appear in the inputs"))?;
        out.push(d.1);
    }
    one(t(first.elem, Some(out)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, Case};

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        ("MatMul", &["tensor<2x5x3x4xf32>", "tensor<4x6xf32>"], "", Ok(&["tensor<2x5x3x6xf32>"])),
        ("MatMul", &["tensor<2x5x3x4xf32>", "tensor<4xf32>"], "", Ok(&["tensor<2x5x3xf32>"])),
        ("MatMul", &["tensor<4xf32>", "tensor<4x6xf32>"], "", Ok(&["tensor<6xf32>"])),
        ("MatMul", &["tensor<4xf32>", "tensor<4xf32>"], "", Ok(&["tensor<f32>"])),
        ("MatMul", &["tensor<3x1x2x4xf32>", "tensor<5x4x?xf32>"], "", Ok(&["tensor<3x5x2x?xf32>"])),
        ("MatMul", &["tensor<?x?xf32>", "tensor<*xf32>"], "", Ok(&["tensor<*xf32>"])),
        ("MatMul", &["tensor<3x4xf32>", "tensor<5x4xf32>"], "", Err("inner dimensions do not match: tensor<3x4xf32> and tensor<5x4xf32>")),
        ("MatMul", &["tensor<2x3x4xf32>", "tensor<3x4x5xf32>"], "", Err("batch dimensions are not broadcast-compatible: tensor<2x3x4xf32> and tensor<3x4x5xf32>")),
        ("MatMul", &["tensor<f32>", "tensor<4xf32>"], "", Err("operands of a matrix product must have rank 1 or more")),
        ("MatMul", &["tensor<3x4xf32>", "tensor<4x5xf16>"], "", Err("operands have different element types: tensor<3x4xf32> and tensor<4x5xf16>")),
        ("Gemm", &["tensor<3x4xf32>", "tensor<5x4xf32>", "tensor<5xf32>"], "{transB = 1 : i64}", Ok(&["tensor<3x5xf32>"])),
        ("Gemm", &["tensor<4x3xf32>", "tensor<4x5xf32>", "none"], "{transA = 1 : i64}", Ok(&["tensor<3x5xf32>"])),
        ("Gemm", &["tensor<*xf32>", "tensor<4x5xf32>", "none"], "", Ok(&["tensor<?x?xf32>"])),
        ("Gemm", &["tensor<3x4xf32>", "tensor<4x5xf32>", "tensor<2x5xf32>"], "", Err("operand C tensor<2x5xf32> is not broadcastable to [3, 5]")),
        ("Gemm", &["tensor<3x4x1xf32>", "tensor<4x5xf32>", "none"], "", Err("operands A and B must have rank 2, but got tensor<3x4x1xf32> and tensor<4x5xf32>")),
        ("Gemm", &["tensor<3x4xf32>", "tensor<3x5xf32>", "none"], "", Err("inner dimensions do not match: tensor<3x4xf32> and tensor<3x5xf32>")),
        ("Einsum", &["tensor<2x3xf32>", "tensor<3x5xf32>"], "{equation = \"ij,jk->ik\"}", Ok(&["tensor<2x5xf32>"])),
        ("Einsum", &["tensor<2x3xf32>", "tensor<3x5xf32>"], "{equation = \"ij,jk\"}", Ok(&["tensor<2x5xf32>"])),
        ("Einsum", &["tensor<4x4xf32>"], "{equation = \"ii->\"}", Ok(&["tensor<f32>"])),
        ("Einsum", &["tensor<2x3x4xf32>"], "{equation = \"...ij->...ji\"}", Ok(&["tensor<*xf32>"])),
        ("Einsum", &["tensor<2x3xf32>"], "{equation = \"ij,jk->ik\"}", Err("equation 'ij,jk->ik' names 2 operands but the op has 1")),
        ("Einsum", &["tensor<2x3xf32>", "tensor<4x5xf32>"], "{equation = \"ij,jk->ik\"}", Err("label 'j' has sizes 3 and 4")),
        ("Einsum", &["tensor<2x3xf32>", "tensor<3xf32>"], "{equation = \"ij,jk->ik\"}", Err("term 'jk' of equation 'ij,jk->ik' does not match operand #1 of rank 1")),
        ("Einsum", &["tensor<2x3xf32>"], "{equation = \"ij->iz\"}", Err("output label 'z' does not appear in the inputs")),
        ("Det", &["tensor<2x3x3xf32>"], "", Ok(&["tensor<2xf32>"])),
        ("Det", &["tensor<?x?xf32>"], "", Ok(&["tensor<f32>"])),
        ("Det", &["tensor<2x3xf32>"], "", Err("input must hold square matrices, but got tensor<2x3xf32>")),
    ];

    #[test]
    fn matrix_product_rules() {
        check(CASES);
    }
}
