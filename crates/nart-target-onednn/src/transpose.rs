//! Transposes folded into the matmuls around them.
//!
//! A `Transpose` lowers to a reorder: a primitive that copies its operand, read through
//! permuted strides, into a row-major result. oneDNN's matmul reads its operands and writes
//! its result through any strides, so in attention (`Q·Kᵀ` on heads split by a reshape and a
//! transpose, the context merged back by a transpose and a reshape) the copies can go:
//! [`fold_transposes`] composes a reorder of a reorder into one, lets the matmuls that read a
//! reorder's result read its operand through the reorder's strides instead, and lets a matmul
//! whose result only a reorder reads write the reorder's result directly, through the
//! inverse strides.

use nart_onednn_rt::program::{OpKind, Operand, Program, DYN};

/// Row-major strides of `dims`, when none depends on the dynamic size (only dim 0 may be
/// dynamic).
fn static_row_major(dims: &[i64]) -> Option<Vec<i64>> {
    if dims.iter().skip(1).any(|&d| d == DYN) {
        return None;
    }
    let mut s = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1];
    }
    Some(s)
}

/// For a view of a row-major tensor of `dims` as `seen` through `strides` that permutes the
/// row-major ones, the dim of the tensor each seen dim is (`None` when `strides` is no such
/// permutation).
fn permutation(dims: &[i64], seen: &[i64], strides: &[i64]) -> Option<Vec<usize>> {
    let rm = static_row_major(dims)?;
    if seen.len() != dims.len() || strides.len() != dims.len() {
        return None;
    }
    let mut used = vec![false; dims.len()];
    let mut perm = Vec::with_capacity(seen.len());
    for (&d, &s) in seen.iter().zip(strides) {
        let p = (0..dims.len()).find(|&p| !used[p] && dims[p] == d && (rm[p] == s || d == 1))?;
        used[p] = true;
        perm.push(p);
    }
    Some(perm)
}

/// The ops reading value `v` (and at which operand), if `v` is not a segment result.
fn users(p: &Program, v: u32) -> Option<Vec<(usize, usize)>> {
    if p.outputs.contains(&v) {
        return None;
    }
    Some(
        p.ops
            .iter()
            .enumerate()
            .flat_map(|(j, op)| {
                op.inputs
                    .iter()
                    .enumerate()
                    .filter(move |(_, o)| o.value == v)
                    .map(move |(i, _)| (j, i))
            })
            .collect(),
    )
}

/// The op writing value `v`.
fn producer(p: &Program, v: u32) -> Option<usize> {
    p.ops.iter().position(|op| op.outputs[0].value == v)
}

/// Whether op `k` is a reorder writing its whole result row-major.
fn plain_reorder(p: &Program, k: usize) -> bool {
    let op = &p.ops[k];
    let out = &op.outputs[0];
    op.kind == OpKind::Reorder
        && op.inputs.len() == 1
        && op.post.is_empty()
        && out.strides.is_none()
        && out.dims == p.values[out.value as usize].dims
}

/// Composes reorder `k` with the reorder before it, when that one's result is read by `k`
/// alone: `k` then reads the first one's operand. Returns whether it did.
fn compose(p: &mut Program, k: usize) -> bool {
    if !plain_reorder(p, k) {
        return false;
    }
    let input = p.ops[k].inputs[0].clone();
    let Some(h) = producer(p, input.value) else {
        return false;
    };
    if !plain_reorder(p, h) || users(p, input.value).is_none_or(|u| u.len() != 1) {
        return false;
    }
    let mid_dims = &p.values[input.value as usize].dims;
    let strides = input
        .strides
        .clone()
        .or_else(|| static_row_major(&input.dims));
    let Some(perm) = strides.and_then(|s| permutation(mid_dims, &input.dims, &s)) else {
        return false;
    };
    let first = p.ops[h].inputs[0].clone();
    let Some(first_strides) = first
        .strides
        .clone()
        .or_else(|| static_row_major(&first.dims))
    else {
        return false;
    };
    if first.dims != *mid_dims {
        return false;
    }
    p.ops[k].inputs[0] = Operand {
        value: first.value,
        dims: input.dims,
        strides: Some(perm.iter().map(|&q| first_strides[q]).collect()),
    };
    p.ops.remove(h);
    true
}

/// Lets the matmuls reading reorder `k`'s result read its operand instead, when they are its
/// only readers and see the result whole; removes `k`. Returns whether it did.
fn into_readers(p: &mut Program, k: usize) -> bool {
    if !plain_reorder(p, k) {
        return false;
    }
    let out = p.ops[k].outputs[0].clone();
    let Some(readers) = users(p, out.value) else {
        return false;
    };
    let fits = |&(j, i): &(usize, usize)| {
        let op = &p.ops[j];
        let o = &op.inputs[i];
        op.kind == OpKind::MatMul && i < 2 && o.strides.is_none() && o.dims == out.dims
    };
    if readers.is_empty() || !readers.iter().all(fits) {
        return false;
    }
    let input = p.ops[k].inputs[0].clone();
    for (j, i) in readers {
        p.ops[j].inputs[i] = input.clone();
    }
    p.ops.remove(k);
    true
}

/// Lets the matmul writing the value reorder `k` reads, when `k` alone reads it, write `k`'s
/// result through the inverse strides; removes `k`. Returns whether it did.
fn into_writer(p: &mut Program, k: usize) -> bool {
    if !plain_reorder(p, k) {
        return false;
    }
    let input = p.ops[k].inputs[0].clone();
    let out = p.ops[k].outputs[0].clone();
    let Some(h) = producer(p, input.value) else {
        return false;
    };
    let host = &p.ops[h];
    let written = &host.outputs[0];
    let value_dims = &p.values[input.value as usize].dims;
    // A full-size binary post-op's operand is read in the result's layout; keep to those
    // without one.
    let own = host.own_inputs();
    if host.kind != OpKind::MatMul
        || written.strides.is_some()
        || written.dims != *value_dims
        || host.inputs[own..].iter().any(|o| o.dims == written.dims)
        || users(p, input.value).is_none_or(|u| u.len() != 1)
    {
        return false;
    }
    let Some(strides) = input
        .strides
        .clone()
        .or_else(|| static_row_major(&input.dims))
    else {
        return false;
    };
    let (Some(perm), Some(out_rm)) = (
        permutation(value_dims, &input.dims, &strides),
        static_row_major(&out.dims),
    ) else {
        return false;
    };
    // Seen dim q of the reorder is dim perm[q] of the matmul's result and dim q of the
    // reorder's: the matmul writes its dim perm[q] with the stride of the reorder's dim q.
    let mut inverse = vec![0; perm.len()];
    for (q, &d) in perm.iter().enumerate() {
        inverse[d] = out_rm[q];
    }
    p.ops[h].outputs[0] = Operand {
        value: out.value,
        dims: written.dims.clone(),
        strides: Some(inverse),
    };
    p.ops.remove(k);
    true
}

/// Folds the program's transposes (reorders) into the matmuls around them; see the module
/// documentation. Each rewrite removes a reorder, so this ends.
pub fn fold_transposes(p: &mut Program) {
    let mut k = 0;
    while k < p.ops.len() {
        if compose(p, k) {
            // The reorder moved down one place; look at it again.
            k = k.saturating_sub(1);
            continue;
        }
        if into_readers(p, k) || into_writer(p, k) {
            k = k.saturating_sub(1);
            continue;
        }
        k += 1;
    }
}
