//! Control flow (If, Loop, Scan), Identity, optionals and sequences.

use std::sync::Arc;

use nart_tensor::{DType, KernelError, Result as KResult, Tensor};

use super::shape::{concat, stack, take_axis, transpose};
use crate::attrs::Node;
use crate::error::Result;
use crate::interp::{region, run_block, step_error, Env, Step};
use crate::value::Val;

fn to_val(v: Option<Arc<Val>>) -> Val {
    match v {
        Some(v) => Arc::try_unwrap(v).unwrap_or_else(|a| (*a).clone()),
        None => Val::Empty,
    }
}

fn tensor_in<'a>(step: &Step, v: &'a Option<Arc<Val>>, what: &str) -> Result<&'a Tensor> {
    match v.as_deref() {
        Some(Val::Tensor(t)) => Ok(t),
        _ => Err(step_error(step, format!("{what} must be a tensor"))),
    }
}

fn scalar_bool(step: &Step, t: &Tensor, what: &str) -> Result<bool> {
    match t.to_bool_vec() {
        Ok(v) if v.len() == 1 => Ok(v[0]),
        _ => Err(step_error(step, format!("{what} must be a single boolean"))),
    }
}

pub(super) fn run_if(step: &Step, env: &mut Env, ins: Vec<Option<Arc<Val>>>) -> Result<Vec<Val>> {
    let cond = ins.first().cloned().flatten();
    let cond = tensor_in(step, &cond, "the condition")?;
    let branch = if scalar_bool(step, cond, "the condition")? {
        "then_branch"
    } else {
        "else_branch"
    };
    let outs = run_block(region(step, branch)?, env, Vec::new())?;
    Ok(outs.into_iter().map(to_val).collect())
}

pub(super) fn run_loop(step: &Step, env: &mut Env, ins: Vec<Option<Arc<Val>>>) -> Result<Vec<Val>> {
    let body = region(step, "body")?;
    let max_trip = match ins.first().cloned().flatten() {
        Some(v) => {
            let v = Some(v);
            let t = tensor_in(step, &v, "M")?;
            let v = t
                .to_i64_vec()
                .map_err(|e| step_error(step, e.to_string()))?;
            Some(*v.first().ok_or_else(|| step_error(step, "M is empty"))?)
        }
        None => None,
    };
    let mut cond = match ins.get(1).cloned().flatten() {
        Some(v) => {
            let v = Some(v);
            let t = tensor_in(step, &v, "cond")?;
            Some(scalar_bool(step, t, "cond")?)
        }
        None => None,
    };
    let mut carried: Vec<Arc<Val>> = ins[2.min(ins.len())..]
        .iter()
        .map(|v| v.clone().unwrap_or_else(|| Arc::new(Val::Empty)))
        .collect();
    let n_carried = carried.len();
    let n_scan = step.outputs.len().saturating_sub(n_carried);
    let mut scans: Vec<Vec<Tensor>> = vec![Vec::new(); n_scan];
    let mut scan_bytes = 0usize;
    let mut i: i64 = 0;
    loop {
        if max_trip.is_some_and(|m| i >= m) || cond == Some(false) {
            break;
        }
        env.count_iteration(step)?;
        let mut args = vec![
            Arc::new(Val::Tensor(Tensor::scalar(i))),
            Arc::new(Val::Tensor(Tensor::scalar(cond.unwrap_or(true)))),
        ];
        args.extend(carried.iter().cloned());
        let outs = run_block(body, env, args)?;
        if outs.len() != 1 + n_carried + n_scan {
            return Err(step_error(
                step,
                format!(
                    "the body yields {} values, expected {}",
                    outs.len(),
                    1 + n_carried + n_scan
                ),
            ));
        }
        let mut outs = outs.into_iter();
        let c = outs.next().flatten();
        let c = tensor_in(step, &c, "the body's condition")?;
        cond = Some(scalar_bool(step, c, "the body's condition")?);
        carried = outs
            .by_ref()
            .take(n_carried)
            .map(|v| v.unwrap_or_else(|| Arc::new(Val::Empty)))
            .collect();
        for (k, v) in outs.enumerate() {
            let t = tensor_in(step, &v, "a scan output")?;
            scan_bytes = scan_bytes.saturating_add(t.nbytes());
            env.check_collected(step, scan_bytes)?;
            scans[k].push(t.clone());
        }
        i += 1;
        if max_trip.is_none() && cond.is_none() {
            return Err(step_error(
                step,
                "a loop with neither M nor cond never ends",
            ));
        }
    }
    let mut res: Vec<Val> = carried.into_iter().map(|v| to_val(Some(v))).collect();
    for (k, s) in scans.into_iter().enumerate() {
        let t = if s.is_empty() {
            let dt = step
                .node
                .out_dtypes
                .get(n_carried + k)
                .copied()
                .flatten()
                .unwrap_or(DType::F32);
            Tensor::zeros(dt, vec![0])
        } else {
            let refs: Vec<&Tensor> = s.iter().collect();
            stack(&refs, 0).map_err(|e| step_error(step, e.to_string()))?
        };
        res.push(Val::Tensor(t));
    }
    Ok(res)
}

pub(super) fn run_scan(step: &Step, env: &mut Env, ins: Vec<Option<Arc<Val>>>) -> Result<Vec<Val>> {
    let node = &step.node;
    let body = region(step, "body")?;
    let err = |e: KernelError| step_error(step, e.to_string());
    let n_scan_in = node.int("num_scan_inputs").map_err(err)? as usize;
    if n_scan_in > ins.len() {
        return Err(step_error(
            step,
            "num_scan_inputs exceeds the number of inputs",
        ));
    }
    let n_state = ins.len() - n_scan_in;
    let n_scan_out = step.outputs.len().saturating_sub(n_state);
    let in_axes = node.ints("scan_input_axes").map_err(err)?;
    let in_dirs = node.ints("scan_input_directions").map_err(err)?;
    let out_axes = node.ints("scan_output_axes").map_err(err)?;
    let out_dirs = node.ints("scan_output_directions").map_err(err)?;
    let mut state: Vec<Arc<Val>> = ins[..n_state]
        .iter()
        .map(|v| v.clone().unwrap_or_else(|| Arc::new(Val::Empty)))
        .collect();
    let mut scan_ins = Vec::new();
    for (k, v) in ins[n_state..].iter().enumerate() {
        let t = tensor_in(step, v, "a scan input")?;
        let axis = norm(in_axes.get(k).copied().unwrap_or(0), t.rank()).map_err(err)?;
        scan_ins.push((t.clone(), axis, in_dirs.get(k).copied().unwrap_or(0) != 0));
    }
    let len = match scan_ins.first() {
        Some((t, axis, _)) => t.shape()[*axis],
        None => 0,
    };
    let mut outs_acc: Vec<Vec<Tensor>> = vec![Vec::new(); n_scan_out];
    let mut scan_bytes = 0usize;
    for it in 0..len {
        env.count_iteration(step)?;
        let mut args = state.clone();
        for (t, axis, rev) in &scan_ins {
            let idx = if *rev { len - 1 - it } else { it };
            args.push(Arc::new(Val::Tensor(
                take_axis(t, *axis, idx).map_err(err)?,
            )));
        }
        let outs = run_block(body, env, args)?;
        let mut outs = outs.into_iter();
        state = outs
            .by_ref()
            .take(n_state)
            .map(|v| v.unwrap_or_else(|| Arc::new(Val::Empty)))
            .collect();
        for (k, v) in outs.enumerate() {
            let t = tensor_in(step, &v, "a scan output")?;
            scan_bytes = scan_bytes.saturating_add(t.nbytes());
            env.check_collected(step, scan_bytes)?;
            outs_acc[k].push(t.clone());
        }
    }
    let mut res: Vec<Val> = state.into_iter().map(|v| to_val(Some(v))).collect();
    for (k, mut parts) in outs_acc.into_iter().enumerate() {
        if out_dirs.get(k).copied().unwrap_or(0) != 0 {
            parts.reverse();
        }
        let refs: Vec<&Tensor> = parts.iter().collect();
        let stacked = stack(&refs, 0).map_err(err)?;
        let rank = stacked.rank();
        let axis = norm(out_axes.get(k).copied().unwrap_or(0), rank).map_err(err)?;
        let t = if axis == 0 {
            stacked
        } else {
            let mut perm: Vec<usize> = (1..rank).collect();
            perm.insert(axis, 0);
            transpose(&stacked, &perm).map_err(err)?
        };
        res.push(Val::Tensor(t));
    }
    Ok(res)
}

pub(super) fn run_sequence_map(
    step: &Step,
    env: &mut Env,
    ins: Vec<Option<Arc<Val>>>,
) -> Result<Vec<Val>> {
    let body = region(step, "body")?;
    let len = match ins.first().and_then(|v| v.as_deref()) {
        Some(Val::Seq(s)) => s.len(),
        _ => return Err(step_error(step, "input #0 must be a sequence")),
    };
    let n_out = step.outputs.len();
    let mut outs: Vec<Vec<Tensor>> = vec![Vec::new(); n_out];
    for k in 0..len {
        env.count_iteration(step)?;
        let mut args = Vec::with_capacity(ins.len());
        for (j, v) in ins.iter().enumerate() {
            let arg = match v.as_deref() {
                Some(Val::Seq(s)) => {
                    let t = s.get(k).ok_or_else(|| {
                        step_error(
                            step,
                            format!("sequence input #{j} is shorter than input #0"),
                        )
                    })?;
                    Val::Tensor(t.clone())
                }
                Some(other) => other.clone(),
                None => Val::Empty,
            };
            args.push(Arc::new(arg));
        }
        let res = run_block(body, env, args)?;
        for (j, v) in res.into_iter().enumerate().take(n_out) {
            outs[j].push(tensor_in(step, &v, "a body output")?.clone());
        }
    }
    Ok(outs.into_iter().map(Val::Seq).collect())
}

fn norm(axis: i64, rank: usize) -> KResult<usize> {
    nart_tensor::layout::norm_axis("Scan", axis, rank)
}

fn first_tensor<'a>(node: &Node, ins: &[Option<&'a Val>], i: usize) -> KResult<&'a Tensor> {
    match ins.get(i).copied().flatten() {
        Some(Val::Tensor(t)) => Ok(t),
        _ => Err(KernelError::Arity {
            op: node.onnx,
            msg: format!("input #{i} must be a tensor"),
        }),
    }
}

fn seq_in<'a>(node: &Node, ins: &[Option<&'a Val>], i: usize) -> KResult<&'a [Tensor]> {
    match ins.get(i).copied().flatten() {
        Some(Val::Seq(s)) => Ok(s),
        _ => Err(KernelError::Arity {
            op: node.onnx,
            msg: format!("input #{i} must be a sequence"),
        }),
    }
}

fn seq_pos(
    node: &Node,
    ins: &[Option<&Val>],
    i: usize,
    len: usize,
    insert: bool,
) -> KResult<Option<usize>> {
    let Some(Val::Tensor(t)) = ins.get(i).copied().flatten() else {
        return Ok(None);
    };
    let p = *t.to_i64_vec()?.first().unwrap_or(&0);
    let bound = if insert { len as i64 } else { len as i64 - 1 };
    let p = if p < 0 { p + len as i64 } else { p };
    if p < 0 || p > bound {
        return Err(KernelError::IndexOutOfRange {
            op: node.onnx,
            index: p,
            size: len,
        });
    }
    Ok(Some(p as usize))
}

pub(super) fn identity(n: &Node, i: &[Option<&Val>]) -> KResult<Vec<Val>> {
    Ok(vec![i.first().copied().flatten().cloned().ok_or_else(
        || KernelError::Arity {
            op: n.onnx,
            msg: "input #0 is required".into(),
        },
    )?])
}

pub(super) fn optional(_: &Node, i: &[Option<&Val>]) -> KResult<Vec<Val>> {
    Ok(vec![i
        .first()
        .copied()
        .flatten()
        .cloned()
        .unwrap_or(Val::Empty)])
}

pub(super) fn optional_has_element(_: &Node, i: &[Option<&Val>]) -> KResult<Vec<Val>> {
    let has = matches!(
        i.first().copied().flatten(),
        Some(Val::Tensor(_) | Val::Seq(_))
    );
    Ok(vec![Val::Tensor(Tensor::scalar(has))])
}

pub(super) fn optional_get_element(n: &Node, i: &[Option<&Val>]) -> KResult<Vec<Val>> {
    match i.first().copied().flatten() {
        Some(v @ (Val::Tensor(_) | Val::Seq(_))) => Ok(vec![v.clone()]),
        _ => Err(KernelError::Arity {
            op: n.onnx,
            msg: "the optional is empty".into(),
        }),
    }
}

pub(super) fn sequence_empty(_: &Node, _: &[Option<&Val>]) -> KResult<Vec<Val>> {
    Ok(vec![Val::Seq(Vec::new())])
}

pub(super) fn sequence_construct(n: &Node, i: &[Option<&Val>]) -> KResult<Vec<Val>> {
    let mut v = Vec::new();
    for k in 0..i.len() {
        v.push(first_tensor(n, i, k)?.clone());
    }
    Ok(vec![Val::Seq(v)])
}

pub(super) fn sequence_length(n: &Node, i: &[Option<&Val>]) -> KResult<Vec<Val>> {
    Ok(vec![Val::Tensor(Tensor::scalar(
        seq_in(n, i, 0)?.len() as i64
    ))])
}

pub(super) fn sequence_at(n: &Node, i: &[Option<&Val>]) -> KResult<Vec<Val>> {
    let s = seq_in(n, i, 0)?;
    let p = seq_pos(n, i, 1, s.len(), false)?.unwrap_or(0);
    Ok(vec![Val::Tensor(s[p].clone())])
}

pub(super) fn sequence_insert(n: &Node, i: &[Option<&Val>]) -> KResult<Vec<Val>> {
    let mut s = seq_in(n, i, 0)?.to_vec();
    let t = first_tensor(n, i, 1)?.clone();
    let p = seq_pos(n, i, 2, s.len(), true)?.unwrap_or(s.len());
    s.insert(p, t);
    Ok(vec![Val::Seq(s)])
}

pub(super) fn sequence_erase(n: &Node, i: &[Option<&Val>]) -> KResult<Vec<Val>> {
    let mut s = seq_in(n, i, 0)?.to_vec();
    if s.is_empty() {
        return Err(KernelError::Arity {
            op: n.onnx,
            msg: "the sequence is empty".into(),
        });
    }
    let p = seq_pos(n, i, 1, s.len(), false)?.unwrap_or(s.len() - 1);
    s.remove(p);
    Ok(vec![Val::Seq(s)])
}

pub(super) fn split_to_sequence(n: &Node, i: &[Option<&Val>]) -> KResult<Vec<Val>> {
    let x = first_tensor(n, i, 0)?;
    let axis = n.int_or("axis", 0)?;
    let keepdims = n.int_or("keepdims", 1)? != 0;
    let ax = nart_tensor::layout::norm_axis(n.onnx, axis, x.rank())?;
    let len = x.shape()[ax] as i64;
    let split = match i.get(1).copied().flatten() {
        Some(Val::Tensor(t)) => Some((t.rank(), t.to_i64_vec()?)),
        _ => None,
    };
    let has_split = split.is_some();
    let sizes: Vec<i64> = match split {
        None => vec![1; len as usize],
        Some((0, v)) => {
            let c = v.first().copied().unwrap_or(1).max(1);
            (0..len)
                .step_by(c as usize)
                .map(|s| c.min(len - s))
                .collect()
        }
        Some((_, v)) => v,
    };
    let parts = nart_tensor::shape_ops::split(x, axis, Some(&sizes), None)?;
    let parts = if !has_split && !keepdims {
        parts
            .iter()
            .map(|p| nart_tensor::shape_ops::squeeze(p, Some(&[ax as i64])))
            .collect::<KResult<Vec<_>>>()?
    } else {
        parts
    };
    Ok(vec![Val::Seq(parts)])
}

pub(super) fn concat_from_sequence(n: &Node, i: &[Option<&Val>]) -> KResult<Vec<Val>> {
    let s = seq_in(n, i, 0)?;
    let axis = n.int("axis")?;
    let new_axis = n.int_or("new_axis", 0)? != 0;
    let refs: Vec<&Tensor> = s.iter().collect();
    let rank = refs.first().map_or(0, |t| t.rank()) + new_axis as usize;
    let axis = nart_tensor::layout::norm_axis(n.onnx, axis, rank.max(1))?;
    let t = if new_axis {
        stack(&refs, axis)?
    } else {
        concat(&refs, axis)?
    };
    Ok(vec![Val::Tensor(t)])
}
