//! Control flow: `If`, `Loop` and `Scan`, whose results come from their subgraph regions.
//!
//! The rules also check each region's signature against the op, with ONNX's rules (the
//! operator specs of `If`, `Loop` and `Scan`):
//!
//! - `If`: both branches yield one value per result, and the two branches agree on each
//!   result's element type (shapes may differ; the result gets the dims they share).
//! - `Loop`: operands `(M, cond, v_initial...)`, N of them loop-carried; the body takes
//!   `(iteration_num: i64, cond: i1, v...)`, N + 2 arguments, and yields `(cond, v..., scan...)`,
//!   one more value than the op has results; the first N results are the final loop-carried
//!   values and the rest the scan outputs, with a leading iteration dim.
//! - `Scan`: operands `(state..., scan_inputs...)` with `num_scan_inputs` M of them scanned; the
//!   body takes one argument per operand and yields one value per result, the states first.
//!
//! Types are compared by element type only for body arguments: a loop-carried value may change
//! shape from one iteration to the next, and an importer types a subgraph input without a type
//! as best it can.

use nart_ir::{Type, TypeData, DYNAMIC};

use super::{fmt_type, join_shapes, norm_axis, shaped_of, t, In, Results, Rules, Shaped, R};

/// Which ops each rule of this file covers. `scripts/gen_graph_ops.py` reads this table and
/// declares each rule in those ops' `OpDef`s.
pub const RULES: Rules = &[];

rules! {
    /// Per result, what both branches yield.
    If = if_rule;
    /// The final loop-carried values and the scan outputs.
    Loop = loop_rule;
    /// The final states and the scan outputs.
    Scan = scan_rule;
}

/// `n` and the noun, in the plural unless `n` is 1.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The index of region `name` of the op.
fn region(i: &In, name: &str) -> Option<usize> {
    i.ctx
        .op_def(i.op)?
        .regions
        .iter()
        .position(|r| r.name == name)
}

/// The tensor element type of `ty`, if it is a tensor.
fn tensor_elem(i: &In, ty: Type) -> Option<TypeData> {
    shaped_of(i.ctx, ty).map(|s| s.elem)
}

/// The most precise type both `a` and `b` have, when both are tensors of one element type.
fn join(i: &In, a: Type, b: Type) -> Option<Shaped> {
    let (a, b) = (shaped_of(i.ctx, a)?, shaped_of(i.ctx, b)?);
    (a.elem == b.elem).then(|| t(a.elem, join_shapes(a.shape.as_deref(), b.shape.as_deref())))
}

fn if_rule(i: &In) -> R {
    let n = i.n_results();
    let mut branches = Vec::new();
    for name in ["then_branch", "else_branch"] {
        let Some(ys) = region(i, name).and_then(|r| i.yields(r)) else {
            continue;
        };
        if ys.len() != n {
            return Err(format!(
                "{name} yields {}, but the op has {}",
                count(ys.len(), "value"),
                count(n, "result")
            ));
        }
        branches.push(ys);
    }
    let mut res: Results = vec![None; n];
    if let [a, b] = branches.as_slice() {
        for k in 0..n {
            let (ea, eb) = (tensor_elem(i, a[k]), tensor_elem(i, b[k]));
            let differ = match (&ea, &eb) {
                (Some(x), Some(y)) => x != y,
                (None, None) => false,
                _ => true,
            };
            if differ {
                return Err(format!(
                    "then_branch and else_branch yield different types for result #{k}: {} and {}",
                    fmt_type(i.ctx, a[k]),
                    fmt_type(i.ctx, b[k])
                ));
            }
            res[k] = join(i, a[k], b[k]);
        }
    } else if let [a] = branches.as_slice() {
        for k in 0..n {
            res[k] = shaped_of(i.ctx, a[k]);
        }
    }
    Ok(Some(res))
}

fn loop_rule(i: &In) -> R {
    let n_carried = i.n().saturating_sub(2);
    let n_res = i.n_results();
    if n_res < n_carried {
        return Err(format!(
            "expects at least {} (one per loop-carried value), but has {n_res}",
            count(n_carried, "result")
        ));
    }
    let Some(args) = i.region_args(0) else {
        return Ok(None);
    };
    if args.len() != n_carried + 2 {
        return Err(format!(
            "expects the body to have {} (the iteration number, the condition and {}), but it \
             has {}",
            count(n_carried + 2, "argument"),
            count(n_carried, "loop-carried value"),
            args.len()
        ));
    }
    let scalar_of =
        |k: usize, what: &str, elem: TypeData, spelled: &str| match tensor_elem(i, args[k]) {
            Some(e) if e != elem => Err(format!(
                "expects body argument #{k} ({what}) to be a tensor of {spelled}, but got {}",
                fmt_type(i.ctx, args[k])
            )),
            _ => Ok(()),
        };
    scalar_of(0, "the iteration number", TypeData::int(64), "i64")?;
    scalar_of(1, "the condition", TypeData::int(1), "i1")?;
    for k in 0..n_carried {
        let (arg, init) = (args[k + 2], i.ctx.value_type(i.ctx.operand(i.op, k + 2)));
        if let (Some(a), Some(b)) = (tensor_elem(i, arg), tensor_elem(i, init)) {
            if a != b {
                return Err(format!(
                    "body argument #{} has type {}, which does not match operand #{} of type {}",
                    k + 2,
                    fmt_type(i.ctx, arg),
                    k + 2,
                    fmt_type(i.ctx, init)
                ));
            }
        }
    }
    let Some(ys) = i.yields(0) else {
        return Ok(None);
    };
    if ys.len() != n_res + 1 {
        return Err(format!(
            "expects the body to yield {} (the condition and one per result), but it yields {}",
            count(n_res + 1, "value"),
            ys.len()
        ));
    }
    let mut res: Results = Vec::with_capacity(n_res);
    for k in 0..n_res {
        let y = ys[k + 1];
        if k < n_carried {
            let init = i.ctx.value_type(i.ctx.operand(i.op, k + 2));
            if let (Some(a), Some(b)) = (tensor_elem(i, y), tensor_elem(i, init)) {
                if a != b {
                    return Err(format!(
                        "body yields {} for loop-carried operand #{} of type {}",
                        fmt_type(i.ctx, y),
                        k + 2,
                        fmt_type(i.ctx, init)
                    ));
                }
            }
            res.push(join(i, y, init));
        } else {
            res.push(shaped_of(i.ctx, y).map(|s| {
                let shape = s.shape.map(|mut d| {
                    d.insert(0, DYNAMIC);
                    d
                });
                t(s.elem, shape)
            }));
        }
    }
    Ok(Some(res))
}

fn scan_rule(i: &In) -> R {
    let Some(attr) = i.ctx.attr(i.op, "num_scan_inputs") else {
        return Ok(None);
    };
    let m = i.ctx.attr_int(attr).unwrap_or(0) as i64;
    let n_ops = i.n();
    if m < 1 {
        return Err(format!("num_scan_inputs must be positive, but got {m}"));
    }
    if m as usize > n_ops {
        return Err(format!(
            "expects num_scan_inputs ({m}) to be at most the number of operands ({n_ops})"
        ));
    }
    let m = m as usize;
    let n_state = n_ops - m;
    let n_res = i.n_results();
    if n_res < n_state {
        return Err(format!(
            "expects at least {} (one per state variable), but has {n_res}",
            count(n_state, "result")
        ));
    }
    let Some(args) = i.region_args(0) else {
        return Ok(None);
    };
    if args.len() != n_ops {
        return Err(format!(
            "expects the body to have {} (one per operand), but it has {}",
            count(n_ops, "argument"),
            args.len()
        ));
    }
    let Some(ys) = i.yields(0) else {
        return Ok(None);
    };
    if ys.len() != n_res {
        return Err(format!(
            "expects the body to yield {} (one per result), but it yields {}",
            count(n_res, "value"),
            ys.len()
        ));
    }
    // The scan length: the first scan input's dim along its scan axis.
    let first = shaped_of(i.ctx, i.ctx.value_type(i.ctx.operand(i.op, n_state)));
    let in_axis = i.ints("scan_input_axes").and_then(|a| a.first().copied());
    let length = match first.and_then(|s| s.shape) {
        Some(s) => norm_axis(in_axis.unwrap_or(0), s.len()).map_or(DYNAMIC, |a| s[a]),
        None => DYNAMIC,
    };
    let out_axes = i.ints("scan_output_axes");
    let mut res: Results = Vec::with_capacity(n_res);
    for (k, &y) in ys.iter().enumerate() {
        if k < n_state {
            let init = i.ctx.value_type(i.ctx.operand(i.op, k));
            res.push(join(i, y, init));
            continue;
        }
        let axis = out_axes
            .as_ref()
            .and_then(|a| a.get(k - n_state).copied())
            .unwrap_or(0);
        res.push(shaped_of(i.ctx, y).map(|s| {
            let shape = s.shape.and_then(|mut d| {
                let a = norm_axis(axis, d.len() + 1).ok()?;
                d.insert(a, length);
                Some(d)
            });
            t(s.elem, shape)
        }));
    }
    Ok(Some(res))
}
