//! `convert-nms-to-loops`: ONNX `NonMaxSuppression` as `scf` loops on buffers, with a result
//! of bounded size and a count of the rows it filled.
//!
//! `selected_indices` is `[num_selected, 3]` with `num_selected` known only when the op runs,
//! so a structured op cannot express it. When the function returns the op's result, the pass
//! gives the result a static upper bound, `batches * classes * min(max_output_boxes_per_class,
//! boxes)` rows when `max_output_boxes_per_class` is a constant and `batches * classes * boxes`
//! when it is read at run time (at least one row, so that no buffer is empty), and appends a `tensor<1xi64>` result
//! to the function holding the number of rows filled: one such count per returned position with
//! a run-time leading dimension, in the order of those positions. The code that runs the
//! function (`nart-cpu-rt`) keeps that many rows of the bounded result.
//!
//! The algorithm is the interpreter's (`nart_tensor::index::non_max_suppression`), step by
//! step, so that the selected indices are equal: for each batch and class, the boxes scoring
//! strictly above `score_threshold` (all boxes without one) are sorted by score, highest first
//! and ties by lower index (a stable insertion sort over the candidates in index order), then
//! taken greedily while fewer than `max_output_boxes_per_class` are kept, a box being
//! suppressed when its IoU with a kept box is greater than `iou_threshold`; corners and IoU are
//! computed in `f64` as the interpreter does, with corners normalized (`[y1, x1, y2, x2]` in any
//! diagonal order) or from centers (`center_point_box = 1`). Scores that are NaN sort in an
//! unspecified order, as in the interpreter.
//!
//! The loops are written on buffers inside a tensor function: the inputs are read through
//! `bufferization.to_buffer ... read_only`, the result and count are `tensor.empty`s written
//! through `bufferization.to_buffer` and read back with `bufferization.to_tensor`, and
//! `nart-bufferize` folds each `to_buffer(to_tensor(m))` pair to `m`.
//!
//! `max_output_boxes_per_class` (absent: no box is kept, as ONNX and the interpreter say),
//! `iou_threshold` (absent: 0) and `score_threshold` (absent: no threshold) may each be a
//! constant or a value of one element computed at run time.

use std::fmt::Write;

use nart_ir::{Context, Diagnostic, Op, TypeData, Value, WalkOrder};
use nart_pass::{Pass, PassFailure, PassState};

use crate::emit::{constant_scalar, is_none};

/// The op this pass lowers.
pub const OP: &str = "graph.NonMaxSuppression";

nart_pass::declare_pass! {
    /// The `convert-nms-to-loops` pass.
    pub struct ConvertNmsToLoopsPass {
        argument: "convert-nms-to-loops",
        name: "ConvertNmsToLoops",
        summary: "Lower NonMaxSuppression whose result the function returns to loops on buffers, with a bounded result and a count result",
        description: "Rewrites each `graph.NonMaxSuppression` of a function whose result only \
            `func.return` reads into `scf` loops over buffers that match the interpreter's \
            selection exactly. The returned result gets a static upper bound of rows \
            (batches * classes * min(max_output_boxes_per_class, boxes), or batches * classes * \
            boxes when the maximum is read at run time; at least 1) and the \
            function gets one more result per such position, a `tensor<1xi64>` with the number \
            of rows filled, appended in order. An op whose result is read by another op, or whose \
            shapes are not static, is \
            reported at its location.",
        statistics: [
            "LoweredOps" => "Number of NonMaxSuppression ops lowered",
        ],
    }
}

impl Pass for ConvertNmsToLoopsPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let n = lower_function(ctx, op).map_err(PassFailure::with_diagnostics)?;
        state.add_stat("LoweredOps", n as u64);
        Ok(())
    }
}

/// A threshold operand: absent, a constant, or a value of `ty` read at run time.
enum Scalar {
    Absent,
    Const(f32),
    Run(Value, String, usize),
}

/// What the lowering needs to know about one NonMaxSuppression.
struct Plan {
    batches: i64,
    classes: i64,
    boxes: i64,
    /// `min(max_output_boxes_per_class, boxes)`, at least 0, when the maximum is a constant
    /// (or absent); `None` when it is read at run time.
    per_class: Option<i64>,
    /// The maximum read at run time: the value and its type.
    max_run: Option<(Value, String, usize)>,
    center: bool,
    iou: Scalar,
    score: Scalar,
}

impl Plan {
    /// Rows of the bounded result.
    fn rows(&self) -> i64 {
        (self.batches * self.classes * self.per_class.unwrap_or(self.boxes)).max(1)
    }
}

fn static_tensor(ctx: &Context, v: Value) -> Option<(Vec<i64>, String)> {
    match ctx.type_data(ctx.value_type(v)) {
        TypeData::RankedTensor { shape, elem, .. } if shape.iter().all(|&d| d >= 0) => {
            Some((shape.clone(), nart_ir::printer::type_to_string(ctx, *elem)))
        }
        _ => None,
    }
}

fn scalar(ctx: &Context, op: Op, i: usize, what: &str) -> Result<Scalar, String> {
    let Some(v) = ctx
        .operands(op)
        .get(i)
        .copied()
        .filter(|&v| !is_none(ctx, v))
    else {
        return Ok(Scalar::Absent);
    };
    let (shape, elem) =
        static_tensor(ctx, v).ok_or_else(|| format!("{what} must be a tensor of static shape"))?;
    let count: i64 = shape.iter().product();
    // The interpreter reads an empty tensor as an absent input.
    if count == 0 {
        return Ok(Scalar::Absent);
    }
    if count != 1 || elem != "f32" {
        return Err(format!("{what} must hold one f32, not {count} of {elem}"));
    }
    if let Some(c) = constant_scalar(ctx, v) {
        if !c.is_finite() {
            return Err(format!("{what} {c} is not finite"));
        }
        return Ok(Scalar::Const(c as f32));
    }
    let ty = nart_ir::printer::type_to_string(ctx, ctx.value_type(v));
    Ok(Scalar::Run(v, ty, shape.len()))
}

/// Checks that `op` (a `graph.NonMaxSuppression`) can be lowered with a bounded result:
/// static shapes, thresholds of one `f32` and a maximum of one `i64`. It does
/// not look at the op's users. Returns the number of rows of the bounded result.
pub fn bound(ctx: &Context, op: Op) -> Result<i64, String> {
    plan(ctx, op).map(|p| p.rows())
}

fn plan(ctx: &Context, op: Op) -> Result<Plan, String> {
    let operand = |i: usize| ctx.operands(op).get(i).copied();
    let (bs, be) = operand(0)
        .and_then(|v| static_tensor(ctx, v))
        .ok_or("boxes must be a tensor of static shape")?;
    let (ss, se) = operand(1)
        .and_then(|v| static_tensor(ctx, v))
        .ok_or("scores must be a tensor of static shape")?;
    if be != "f32" || se != "f32" {
        return Err(format!("boxes and scores must be f32, not {be} and {se}"));
    }
    if bs.len() != 3 || bs[2] != 4 || ss.len() != 3 || ss[0] != bs[0] || ss[2] != bs[1] {
        return Err(format!(
            "boxes {bs:?} and scores {ss:?} are not [B, N, 4] and [B, C, N]"
        ));
    }
    let (max_out, max_run) = match operand(2).filter(|&v| !is_none(ctx, v)) {
        None => (Some(0), None),
        Some(v) => {
            let (shape, elem) = static_tensor(ctx, v)
                .ok_or("max_output_boxes_per_class must be a tensor of static shape")?;
            let count = shape.iter().product::<i64>();
            if count == 0 {
                (Some(0), None)
            } else if count != 1 || elem != "i64" {
                return Err(format!(
                    "max_output_boxes_per_class must hold one i64, not {count} of {elem}"
                ));
            } else if let Some(c) = constant_scalar(ctx, v) {
                (Some(c as i64), None)
            } else {
                let ty = nart_ir::printer::type_to_string(ctx, ctx.value_type(v));
                (None, Some((v, ty, shape.len())))
            }
        }
    };
    let center = match ctx.attr(op, "center_point_box") {
        None => false,
        Some(a) => match ctx.attr_int(a) {
            Some(0) => false,
            Some(1) => true,
            other => return Err(format!("center_point_box must be 0 or 1, not {other:?}")),
        },
    };
    Ok(Plan {
        batches: bs[0],
        classes: ss[1],
        boxes: bs[1],
        per_class: max_out.map(|m| m.clamp(0, bs[1])),
        max_run,
        center,
        iou: scalar(ctx, op, 3, "iou_threshold")?,
        score: scalar(ctx, op, 4, "score_threshold")?,
    })
}

/// Lowers every NonMaxSuppression of `func`; returns how many, or a diagnostic for each it
/// cannot lower (and leaves the function unchanged).
pub fn lower_function(ctx: &mut Context, func: Op) -> Result<usize, Vec<Diagnostic>> {
    let ops: Vec<Op> = ctx
        .collect_ops(func, WalkOrder::PreOrder)
        .into_iter()
        .filter(|&o| ctx.op_name_str(o) == OP)
        .collect();
    if ops.is_empty() {
        return Ok(0);
    }
    let mut plans = Vec::new();
    let mut errors = Vec::new();
    for &op in &ops {
        let res = ctx.results(op)[0];
        let only_returned = ctx.uses(res).iter().all(|u| {
            ctx.op_name_str(u.op) == "func.return" && ctx.op_parent_op(u.op) == Some(func)
        });
        let p = plan(ctx, op).and_then(|p| {
            if only_returned {
                Ok(p)
            } else {
                Err(
                    "its result has a run-time number of rows, so only the function may \
                     return it; no op may read it"
                        .to_string(),
                )
            }
        });
        match p {
            Ok(p) => plans.push(p),
            Err(m) => errors.push(ctx.op_error(op, format!("cannot lower {OP}: {m}"))),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let (inputs, mut results) = function_type(ctx, func)
        .ok_or_else(|| vec![ctx.op_error(func, "the function has no type")])?;
    for (&op, p) in ops.iter().zip(&plans) {
        let (bounded, count) = inline_kernel(ctx, op, p).map_err(|d| vec![d])?;
        let old = ctx.results(op)[0];
        // Each returned position of the result gets the bounded tensor and a count result.
        let uses: Vec<(Op, usize)> = ctx
            .uses(old)
            .iter()
            .map(|u| (u.op, u.index as usize))
            .collect();
        for (ret, k) in uses {
            let mut operands = ctx.operands(ret).to_vec();
            operands[k] = bounded;
            operands.push(count);
            ctx.set_operands(ret, &operands);
            results[k] = ctx.value_type(bounded);
            results.push(ctx.value_type(count));
        }
        ctx.erase_op(op);
    }
    let fty = ctx.intern_type(TypeData::Function { inputs, results });
    let fattr = ctx.type_attr(fty);
    ctx.set_prop(func, "function_type", fattr);
    if ctx.attr(func, "res_attrs").is_some() {
        ctx.remove_attr(func, "res_attrs");
    }
    Ok(ops.len())
}

fn function_type(ctx: &Context, func: Op) -> Option<(Vec<nart_ir::Type>, Vec<nart_ir::Type>)> {
    let t = ctx.attr_type(ctx.attr(func, "function_type")?)?;
    match ctx.type_data(t) {
        TypeData::Function { inputs, results } => Some((inputs.clone(), results.clone())),
        _ => None,
    }
}

/// Parses the kernel of `p` as a function, moves its body before `op` with its arguments
/// replaced by `op`'s operands, and returns the values it returned (the bounded result and
/// the count).
fn inline_kernel(ctx: &mut Context, op: Op, p: &Plan) -> Result<(Value, Value), Diagnostic> {
    let text = kernel_text(p);
    let module = nart_ir::parser::parse_source(ctx, "non-max-suppression", &text).map_err(|d| {
        let msg: Vec<String> = d.iter().map(|d| d.message.clone()).collect();
        ctx.op_error(
            op,
            format!(
                "internal error: the NonMaxSuppression kernel does not parse: {}",
                msg.join("; ")
            ),
        )
    })?;
    let kernel = ctx
        .collect_ops(module, WalkOrder::PreOrder)
        .into_iter()
        .find(|&o| ctx.op_name_str(o) == "func.func")
        .expect("the kernel text holds a function");
    let entry = ctx.region_blocks(ctx.region(kernel, 0))[0];
    let args = ctx.block_args(entry).to_vec();
    let mut actual = vec![ctx.operands(op)[0], ctx.operands(op)[1]];
    if let Some((v, _, _)) = &p.max_run {
        actual.push(*v);
    }
    for s in [&p.iou, &p.score] {
        if let Scalar::Run(v, _, _) = s {
            actual.push(*v);
        }
    }
    let loc = ctx.op_loc(op);
    let body = ctx.block_ops(entry);
    let (ret, body) = body.split_last().expect("the kernel ends in a return");
    for &o in body {
        ctx.move_op_before(o, op);
        for inner in ctx.collect_ops(o, WalkOrder::PreOrder) {
            ctx.set_op_loc(inner, loc);
        }
    }
    for (&a, &v) in args.iter().zip(&actual) {
        ctx.replace_all_uses(a, v);
    }
    let returned = ctx.operands(*ret).to_vec();
    ctx.erase_op(module);
    Ok((returned[0], returned[1]))
}

/// The kernel as MLIR text: a function of the boxes, the scores and the run-time thresholds
/// that returns the bounded result and the count.
fn kernel_text(p: &Plan) -> String {
    let (b, c, n) = (p.batches, p.classes, p.boxes);
    let rows = p.rows();
    let order_len = n.max(1);
    let boxes_t = format!("{b}x{n}x4xf32");
    let scores_t = format!("{b}x{c}x{n}xf32");
    let mut args = vec![
        format!("%boxes_t: tensor<{boxes_t}>"),
        format!("%scores_t: tensor<{scores_t}>"),
    ];
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(w, "  %c0 = arith.constant 0 : index");
    let _ = writeln!(w, "  %c1 = arith.constant 1 : index");
    let _ = writeln!(w, "  %c2 = arith.constant 2 : index");
    let _ = writeln!(w, "  %c3 = arith.constant 3 : index");
    let _ = writeln!(w, "  %false = arith.constant false");
    let _ = writeln!(w, "  %zero = arith.constant 0.000000e+00 : f64");
    let _ = writeln!(w, "  %two = arith.constant 2.000000e+00 : f64");
    let _ = writeln!(w, "  %cB = arith.constant {b} : index");
    let _ = writeln!(w, "  %cC = arith.constant {c} : index");
    let _ = writeln!(w, "  %cN = arith.constant {n} : index");
    match (&p.per_class, &p.max_run) {
        (Some(m), _) => {
            let _ = writeln!(w, "  %cM = arith.constant {m} : index");
        }
        (None, Some((_, ty, rank))) => {
            // min(max(m, 0), boxes), as the interpreter clamps it.
            args.push(format!("%max_t: {ty}"));
            let idx = vec!["%c0"; *rank].join(", ");
            let _ = writeln!(w, "  %max = tensor.extract %max_t[{idx}] : {ty}");
            let _ = writeln!(w, "  %max0 = arith.constant 0 : i64");
            let _ = writeln!(w, "  %maxN = arith.constant {n} : i64");
            let _ = writeln!(w, "  %max1 = arith.maxsi %max, %max0 : i64");
            let _ = writeln!(w, "  %max2 = arith.minsi %max1, %maxN : i64");
            let _ = writeln!(w, "  %cM = arith.index_cast %max2 : i64 to index");
        }
        (None, None) => unreachable!("a plan has a constant or a run-time maximum"),
    }
    // The thresholds as f32 scalars.
    for (name, sc) in [("iou", &p.iou), ("score", &p.score)] {
        match sc {
            Scalar::Absent => {
                let _ = writeln!(w, "  %{name} = arith.constant 0.000000e+00 : f32");
            }
            Scalar::Const(v) => {
                let _ = writeln!(w, "  %{name} = arith.constant {:.17e} : f32", f64::from(*v));
            }
            Scalar::Run(_, ty, rank) => {
                args.push(format!("%{name}_t: {ty}"));
                let idx = vec!["%c0"; *rank].join(", ");
                let _ = writeln!(w, "  %{name} = tensor.extract %{name}_t[{idx}] : {ty}");
            }
        }
    }
    let _ = writeln!(w, "  %iou64 = arith.extf %iou : f32 to f64");
    let _ = writeln!(w, "  %out_t = tensor.empty() : tensor<{rows}x3xi64>");
    let _ = writeln!(w, "  %count_t = tensor.empty() : tensor<1xi64>");
    let _ = writeln!(w, "  %order_t = tensor.empty() : tensor<{order_len}xi64>");
    for (name, ty, ro) in [
        ("boxes", boxes_t.as_str(), true),
        ("scores", scores_t.as_str(), true),
    ] {
        let _ = writeln!(
            w,
            "  %{name} = bufferization.to_buffer %{name}_t{} : tensor<{ty}> to memref<{ty}>",
            if ro { " read_only" } else { "" }
        );
    }
    let _ = writeln!(
        w,
        "  %out = bufferization.to_buffer %out_t : tensor<{rows}x3xi64> to memref<{rows}x3xi64>"
    );
    let _ = writeln!(
        w,
        "  %count = bufferization.to_buffer %count_t : tensor<1xi64> to memref<1xi64>"
    );
    let _ = writeln!(
        w,
        "  %order = bufferization.to_buffer %order_t : tensor<{order_len}xi64> to memref<{order_len}xi64>"
    );
    let sm = format!("memref<{scores_t}>");
    let om = format!("memref<{order_len}xi64>");
    let outm = format!("memref<{rows}x3xi64>");
    let take = match p.score {
        Scalar::Absent => "    %take = arith.constant true\n".to_string(),
        _ => "    %take = arith.cmpf ogt, %s, %score : f32\n".to_string(),
    };
    let corners_i = corners(p.center, "%b", "%i", "a", &boxes_t);
    let corners_k = corners(p.center, "%b", "%k", "q", &boxes_t);
    let _ = write!(
        w,
        r#"  %total = scf.for %b = %c0 to %cB step %c1 iter_args(%tb = %c0) -> (index) {{
   %b64 = arith.index_cast %b : index to i64
   %tc = scf.for %cl = %c0 to %cC step %c1 iter_args(%t0 = %tb) -> (index) {{
    %cl64 = arith.index_cast %cl : index to i64
    %n = scf.for %ci = %c0 to %cN step %c1 iter_args(%kc = %c0) -> (index) {{
     %s = memref.load %scores[%b, %cl, %ci] : {sm}
 {take}     %kn = scf.if %take -> (index) {{
      %ci64 = arith.index_cast %ci : index to i64
      memref.store %ci64, %order[%kc] : {om}
      %kc1 = arith.addi %kc, %c1 : index
      scf.yield %kc1 : index
     }} else {{
      scf.yield %kc : index
     }}
     scf.yield %kn : index
    }}
    scf.for %j = %c1 to %n step %c1 {{
     %key = memref.load %order[%j] : {om}
     %keyi = arith.index_cast %key : i64 to index
     %ks = memref.load %scores[%b, %cl, %keyi] : {sm}
     %pos = scf.while (%p = %j) : (index) -> index {{
      %more = arith.cmpi ugt, %p, %c0 : index
      %shift = scf.if %more -> (i1) {{
       %pm = arith.subi %p, %c1 : index
       %prev = memref.load %order[%pm] : {om}
       %previ = arith.index_cast %prev : i64 to index
       %ps = memref.load %scores[%b, %cl, %previ] : {sm}
       %lower = arith.cmpf olt, %ps, %ks : f32
       scf.yield %lower : i1
      }} else {{
       scf.yield %false : i1
      }}
      scf.condition(%shift) %p : index
     }} do {{
     ^bb0(%p: index):
      %pm = arith.subi %p, %c1 : index
      %prev = memref.load %order[%pm] : {om}
      memref.store %prev, %order[%p] : {om}
      scf.yield %pm : index
     }}
     memref.store %key, %order[%pos] : {om}
    }}
    %sel:2 = scf.for %t = %c0 to %n step %c1 iter_args(%kept = %c0, %tot = %t0) -> (index, index) {{
     %room = arith.cmpi ult, %kept, %cM : index
     %r:2 = scf.if %room -> (index, index) {{
      %i64 = memref.load %order[%t] : {om}
      %i = arith.index_cast %i64 : i64 to index
{corners_i}      %sup = scf.for %u = %c0 to %kept step %c1 iter_args(%sp = %false) -> (i1) {{
       %row = arith.addi %t0, %u : index
       %k64 = memref.load %out[%row, %c2] : {outm}
       %k = arith.index_cast %k64 : i64 to index
{corners_k}       %w0 = arith.minnumf %q2, %a2 : f64
       %w1 = arith.maxnumf %q0, %a0 : f64
       %w2 = arith.subf %w0, %w1 : f64
       %w = arith.maxnumf %w2, %zero : f64
       %h0 = arith.minnumf %q3, %a3 : f64
       %h1 = arith.maxnumf %q1, %a1 : f64
       %h2 = arith.subf %h0, %h1 : f64
       %h = arith.maxnumf %h2, %zero : f64
       %inter = arith.mulf %w, %h : f64
       %qx = arith.subf %q2, %q0 : f64
       %qy = arith.subf %q3, %q1 : f64
       %qa = arith.mulf %qx, %qy : f64
       %ax = arith.subf %a2, %a0 : f64
       %ay = arith.subf %a3, %a1 : f64
       %aa = arith.mulf %ax, %ay : f64
       %both = arith.addf %qa, %aa : f64
       %union = arith.subf %both, %inter : f64
       %empty = arith.cmpf ole, %union, %zero : f64
       %ratio = arith.divf %inter, %union : f64
       %iou_v = arith.select %empty, %zero, %ratio : f64
       %over = arith.cmpf ogt, %iou_v, %iou64 : f64
       %sp1 = arith.ori %sp, %over : i1
       scf.yield %sp1 : i1
      }}
      %r2:2 = scf.if %sup -> (index, index) {{
       scf.yield %kept, %tot : index, index
      }} else {{
       memref.store %b64, %out[%tot, %c0] : {outm}
       memref.store %cl64, %out[%tot, %c1] : {outm}
       memref.store %i64, %out[%tot, %c2] : {outm}
       %kept1 = arith.addi %kept, %c1 : index
       %tot1 = arith.addi %tot, %c1 : index
       scf.yield %kept1, %tot1 : index, index
      }}
      scf.yield %r2#0, %r2#1 : index, index
     }} else {{
      scf.yield %kept, %tot : index, index
     }}
     scf.yield %r#0, %r#1 : index, index
    }}
    scf.yield %sel#1 : index
   }}
   scf.yield %tc : index
  }}
  %total64 = arith.index_cast %total : index to i64
  memref.store %total64, %count[%c0] : memref<1xi64>
  %res = bufferization.to_tensor %out : {outm} to tensor<{rows}x3xi64>
  %cnt = bufferization.to_tensor %count : memref<1xi64> to tensor<1xi64>
  return %res, %cnt : tensor<{rows}x3xi64>, tensor<1xi64>
"#
    );
    format!(
        "func.func @non_max_suppression({}) -> (tensor<{rows}x3xi64>, tensor<1xi64>) {{\n{s}}}\n",
        args.join(", ")
    )
}

/// The corners `%{p}0..3` (f64) of box `idx` of batch `b`, in the interpreter's order:
/// from centers `[x - w/2, y - h/2, x + w/2, y + h/2]`, or normalized
/// `[min(y1, y2), min(x1, x2), max(y1, y2), max(x1, x2)]` of `[x1?, y1?, x2?, y2?]` as stored.
fn corners(center: bool, b: &str, idx: &str, p: &str, boxes_t: &str) -> String {
    let mut s = String::new();
    for j in 0..4 {
        let _ = writeln!(
            s,
            "      %{p}v{j}f = memref.load %boxes[{b}, {idx}, %c{j}] : memref<{boxes_t}>\n      %{p}v{j} = arith.extf %{p}v{j}f : f32 to f64"
        );
    }
    if center {
        let _ = writeln!(
            s,
            "      %{p}hw = arith.divf %{p}v2, %two : f64
      %{p}hh = arith.divf %{p}v3, %two : f64
      %{p}0 = arith.subf %{p}v0, %{p}hw : f64
      %{p}1 = arith.subf %{p}v1, %{p}hh : f64
      %{p}2 = arith.addf %{p}v0, %{p}hw : f64
      %{p}3 = arith.addf %{p}v1, %{p}hh : f64"
        );
    } else {
        let _ = writeln!(
            s,
            "      %{p}0 = arith.minnumf %{p}v1, %{p}v3 : f64
      %{p}1 = arith.minnumf %{p}v0, %{p}v2 : f64
      %{p}2 = arith.maxnumf %{p}v1, %{p}v3 : f64
      %{p}3 = arith.maxnumf %{p}v0, %{p}v2 : f64"
        );
    }
    s
}
