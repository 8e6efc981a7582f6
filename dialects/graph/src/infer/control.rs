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
pub const RULES: Rules = &[("If", &["If"]), ("Loop", &["Loop"]), ("Scan", &["Scan"])];

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

#[cfg(test)]
mod tests {
    use super::super::testing::infer_in_source;

    /// A function-like holder whose block arguments the tests' ops use.
    fn holder(args: &str, body: &str) -> String {
        format!("\"test.holder\"() ({{\n^bb0({args}):\n{body}\n}}) : () -> ()\n")
    }

    fn check(name: &str, args: &str, body: &str, want: Result<&[&str], &str>) {
        let got = infer_in_source(name, &holder(args, body));
        match (&got, want) {
            (Ok(g), Ok(w)) => assert_eq!(g, w, "{body}"),
            (Err(g), Err(w)) => assert_eq!(g, w, "{body}"),
            _ => panic!("{body}\nwant {want:?}\ngot {got:?}"),
        }
    }

    #[test]
    fn if_results_join_the_branches() {
        let args = "%c: tensor<i1>, %a: tensor<2x3xf32>, %b: tensor<2x4xf32>, %s: tensor<i64>";
        check(
            "If",
            args,
            r#"%0 = "graph.If"(%c) ({
  "graph.yield"(%a) : (tensor<2x3xf32>) -> ()
}, {
  "graph.yield"(%b) : (tensor<2x4xf32>) -> ()
}) : (tensor<i1>) -> tensor<2x?xf32>"#,
            Ok(&["tensor<2x?xf32>"]),
        );
        check(
            "If",
            args,
            r#"%0 = "graph.If"(%c) ({
  "graph.yield"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
}, {
  "graph.yield"(%b) : (tensor<2x4xf32>) -> ()
}) : (tensor<i1>) -> tensor<2x?xf32>"#,
            Err("else_branch yields 2 values, but the op has 1 result"),
        );
        check(
            "If",
            args,
            r#"%0 = "graph.If"(%c) ({
  "graph.yield"(%a) : (tensor<2x3xf32>) -> ()
}, {
  "graph.yield"(%s) : (tensor<i64>) -> ()
}) : (tensor<i1>) -> tensor<2x3xf32>"#,
            Err("then_branch and else_branch yield different types for result #0: tensor<i64> and tensor<2x3xf32>"),
        );
    }

    #[test]
    fn loop_bodies_match_the_operands() {
        let args = "%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>";
        check(
            "Loop",
            args,
            r#"%0:2 = "graph.Loop"(%m, %c, %x) ({
^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<?xf32>):
  "graph.yield"(%ci, %v, %i) : (tensor<i1>, tensor<?xf32>, tensor<i64>) -> ()
}) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<?xi64>)"#,
            Ok(&["tensor<?xf32>", "tensor<?xi64>"]),
        );
        check(
            "Loop",
            args,
            r#"%0 = "graph.Loop"(%m, %c, %x) ({
^bb0(%i: tensor<i64>):
  "graph.yield"(%x) : (tensor<2xf32>) -> ()
}) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>"#,
            Err("expects the body to have 3 arguments (the iteration number, the condition and 1 loop-carried value), but it has 1"),
        );
        check(
            "Loop",
            args,
            r#"%0 = "graph.Loop"(%m, %c, %x) ({
^bb0(%i: tensor<i32>, %ci: tensor<i1>, %v: tensor<2xf32>):
  "graph.yield"(%ci, %v) : (tensor<i1>, tensor<2xf32>) -> ()
}) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>"#,
            Err("expects body argument #0 (the iteration number) to be a tensor of i64, but got tensor<i32>"),
        );
        check(
            "Loop",
            args,
            r#"%0 = "graph.Loop"(%m, %c, %x) ({
^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<2xi32>):
  "graph.yield"(%ci, %x) : (tensor<i1>, tensor<2xf32>) -> ()
}) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>"#,
            Err("body argument #2 has type tensor<2xi32>, which does not match operand #2 of type tensor<2xf32>"),
        );
        check(
            "Loop",
            args,
            r#"%0 = "graph.Loop"(%m, %c, %x) ({
^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<2xf32>):
  "graph.yield"(%v) : (tensor<2xf32>) -> ()
}) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>"#,
            Err("expects the body to yield 2 values (the condition and one per result), but it yields 1"),
        );
        check(
            "Loop",
            args,
            r#"%0 = "graph.Loop"(%m, %c, %x) ({
^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<2xf32>):
  "graph.yield"(%ci, %i) : (tensor<i1>, tensor<i64>) -> ()
}) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>"#,
            Err("body yields tensor<i64> for loop-carried operand #2 of type tensor<2xf32>"),
        );
    }

    #[test]
    fn scan_bodies_match_the_operands() {
        let args = "%s: tensor<2xf32>, %x: tensor<5x2xf32>";
        check(
            "Scan",
            args,
            r#"%0:2 = "graph.Scan"(%s, %x) <{num_scan_inputs = 1 : i64}> ({
^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>):
  "graph.yield"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> ()
}) : (tensor<2xf32>, tensor<5x2xf32>) -> (tensor<2xf32>, tensor<5x2xf32>)"#,
            Ok(&["tensor<2xf32>", "tensor<5x2xf32>"]),
        );
        check(
            "Scan",
            args,
            r#"%0:2 = "graph.Scan"(%s, %x) <{num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 1>, scan_output_axes = array<i64: -1>}> ({
^bb0(%a: tensor<2xf32>, %b: tensor<5xf32>):
  "graph.yield"(%a, %b) : (tensor<2xf32>, tensor<5xf32>) -> ()
}) : (tensor<2xf32>, tensor<5x2xf32>) -> (tensor<2xf32>, tensor<5x2xf32>)"#,
            Ok(&["tensor<2xf32>", "tensor<5x2xf32>"]),
        );
        check(
            "Scan",
            args,
            r#"%0 = "graph.Scan"(%s) <{num_scan_inputs = 3 : i64}> ({
^bb0(%a: tensor<2xf32>):
  "graph.yield"(%a) : (tensor<2xf32>) -> ()
}) : (tensor<2xf32>) -> tensor<2xf32>"#,
            Err("expects num_scan_inputs (3) to be at most the number of operands (1)"),
        );
        check(
            "Scan",
            args,
            r#"%0 = "graph.Scan"(%s, %x) <{num_scan_inputs = 1 : i64}> ({
^bb0(%a: tensor<2xf32>):
  "graph.yield"(%a) : (tensor<2xf32>) -> ()
}) : (tensor<2xf32>, tensor<5x2xf32>) -> tensor<2xf32>"#,
            Err("expects the body to have 2 arguments (one per operand), but it has 1"),
        );
        check(
            "Scan",
            args,
            r#"%0 = "graph.Scan"(%s, %x) <{num_scan_inputs = 1 : i64}> ({
^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>):
  "graph.yield"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> ()
}) : (tensor<2xf32>, tensor<5x2xf32>) -> tensor<2xf32>"#,
            Err("expects the body to yield 1 value (one per result), but it yields 2"),
        );
        check(
            "Scan",
            args,
            r#"%0 = "graph.Scan"(%s, %x) <{num_scan_inputs = 0 : i64}> ({
^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>):
  "graph.yield"(%a) : (tensor<2xf32>) -> ()
}) : (tensor<2xf32>, tensor<5x2xf32>) -> tensor<2xf32>"#,
            Err("num_scan_inputs must be positive, but got 0"),
        );
    }
}
