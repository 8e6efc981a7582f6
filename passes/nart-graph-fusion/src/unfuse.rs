//! `graph-unfuse`: every `graph.fused_*` op back to its standard ONNX ops (the base op, the
//! `fused_matmul` bias `Add`, then the activation op), for runtimes without ONNX Runtime's
//! contrib ops.

use nart_dialect_graph::fused::{Activation, ConvLayout};
use nart_ir::{Op, PatternRewriter, RewritePattern, Value};

use crate::util;

/// `graph.fused_*` → base op, bias `Add`, activation.
pub struct Unfuse;

impl RewritePattern for Unfuse {
    fn name(&self) -> &'static str {
        "Unfuse"
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let base = match rw.op_name_str(op) {
            "graph.fused_conv" => "Conv",
            "graph.fused_gemm" => "Gemm",
            "graph.fused_matmul" => "MatMul",
            _ => return false,
        };
        let Ok(act) = Activation::of(rw, op) else {
            return false;
        };
        let Ok(layout) = ConvLayout::of(rw, op) else {
            return false;
        };
        // A blocked convolution's operands are not `Conv`'s; the exporter writes it.
        if layout.block().is_some() {
            return rw.match_failure("a blocked convolution");
        }
        let mut ty = rw.value_type(rw.result(op, 0));
        let loc = rw.op_loc(op);
        let props: Vec<(String, nart_ir::Attr)> = rw
            .props(op)
            .iter()
            .chain(rw.attrs(op))
            .map(|na| (rw.str(na.name).to_string(), na.value))
            .filter(|(n, _)| n != "activation" && n != "activation_params" && n != "layout")
            .collect();
        let mut operands = rw.operands(op).to_vec();
        let bias = (base == "MatMul")
            .then(|| operands.pop())
            .flatten()
            .filter(|b| !util::is_none(rw, *b));
        rw.set_insertion_point_before(op);
        // Channels-last: `Conv` runs on `X` and `W` moved to channels-first (`[0, r-1, 1..]`),
        // and its result is moved back (`[0, 2.., 1]`) after the activation.
        let mut back = None;
        if layout == ConvLayout::Nhwc {
            let Some(rank) = util::rank(rw, operands[0]).filter(|&r| r >= 3) else {
                return false;
            };
            let r = rank as i64;
            let mut first = vec![0, r - 1];
            first.extend(1..r - 1);
            let mut last = vec![0];
            last.extend(2..r);
            last.push(1);
            let (Some(sx), Some(sw), Some(sy)) = (
                util::shape(rw, operands[0]),
                util::shape(rw, operands[1]),
                util::shape(rw, rw.result(op, 0)),
            ) else {
                return false;
            };
            if sw.len() != rank || sy.len() != rank {
                return false;
            }
            for (v, s) in operands.iter_mut().take(2).zip([sx, sw]) {
                let moved: Vec<i64> = first.iter().map(|&d| s[d as usize]).collect();
                let vty = rw.value_type(*v);
                let elem = rw.element_type(vty);
                let t_ty = rw.uniq().tensor_type(moved, elem);
                let perm = util::i64_array(rw, &first);
                let t = util::build(rw, "Transpose", &[*v], &[t_ty], vec![("perm", perm)], loc);
                *v = rw.result(t, 0);
            }
            let moved: Vec<i64> = first.iter().map(|&d| sy[d as usize]).collect();
            let outer = ty;
            let elem = rw.element_type(ty);
            ty = rw.uniq().tensor_type(moved, elem);
            back = Some((outer, last));
        }
        let mut st = nart_ir::OperationState::new(rw.uniq(), &format!("graph.{base}"), loc)
            .operands(&operands)
            .results(&[ty]);
        for (n, a) in props {
            st = st.prop(rw.uniq(), &n, a);
        }
        let b = rw.create(st);
        let mut y = rw.result(b, 0);
        if let Some(bias) = bias {
            let add = util::build(rw, "Add", &[y, bias], &[ty], Vec::new(), loc);
            y = rw.result(add, 0);
        }
        y = activation_op(rw, act, y, loc);
        if let Some((outer, last)) = back {
            let perm = util::i64_array(rw, &last);
            let t = util::build(rw, "Transpose", &[y], &[outer], vec![("perm", perm)], loc);
            y = rw.result(t, 0);
        }
        rw.replace_op(op, &[y]);
        true
    }
}

/// Builds the standard op of `act` on `y` at the insertion point (`y` itself for `none`).
pub fn activation_op(
    rw: &mut PatternRewriter<'_>,
    act: Activation,
    y: Value,
    loc: nart_ir::Location,
) -> Value {
    let ty = rw.value_type(y);
    let Some(name) = act.onnx_name() else {
        return y;
    };
    let mut operands = vec![y];
    let mut props = Vec::new();
    match act {
        Activation::LeakyRelu { alpha } => props.push(("alpha", util::f32_attr(rw, alpha as f64))),
        Activation::HardSigmoid { alpha, beta } => {
            props.push(("alpha", util::f32_attr(rw, alpha as f64)));
            props.push(("beta", util::f32_attr(rw, beta as f64)));
        }
        Activation::Clip { min, max } => {
            operands.push(util::f32_constant(rw, &[], &[min as f64], loc));
            operands.push(util::f32_constant(rw, &[], &[max as f64], loc));
        }
        _ => {}
    }
    let op = util::build(rw, name, &operands, &[ty], props, loc);
    rw.result(op, 0)
}

/// `graph.pool` → its base op (`MaxPool` with unused indices, or `AveragePool`), between
/// Transposes when it is channels-last. A blocked pool (`layout = "nchw<b>c"`) is left to the
/// exporter, which writes it with the reorders it needs.
pub struct UnfusePool;

impl RewritePattern for UnfusePool {
    fn name(&self) -> &'static str {
        "UnfusePool"
    }
    fn root(&self) -> Option<&'static str> {
        Some("graph.pool")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        use nart_dialect_graph::pool::PoolKind;
        let (Ok(kind), Ok(layout)) = (PoolKind::of(rw, op), ConvLayout::of(rw, op)) else {
            return rw.match_failure("the kind or layout attribute is invalid");
        };
        if layout.block().is_some() {
            return rw.match_failure("a blocked pool");
        }
        let loc = rw.op_loc(op);
        let props: Vec<(String, nart_ir::Attr)> = rw
            .props(op)
            .iter()
            .chain(rw.attrs(op))
            .map(|na| (rw.str(na.name).to_string(), na.value))
            .filter(|(n, _)| n != "kind" && n != "layout")
            .collect();
        let mut x = rw.operand(op, 0);
        let y = rw.result(op, 0);
        let y_ty = rw.value_type(y);
        let mut ty = y_ty;
        rw.set_insertion_point_before(op);
        let mut back = None;
        if layout == ConvLayout::Nhwc {
            let (Some(sx), Some(sy)) = (util::shape(rw, x), util::shape(rw, y)) else {
                return rw.match_failure("the input or the result is unranked");
            };
            let r = sx.len() as i64;
            if r < 3 || sy.len() != sx.len() {
                return rw.match_failure("input and result must have one rank, 3 or more");
            }
            let mut first = vec![0, r - 1];
            first.extend(1..r - 1);
            let mut last = vec![0];
            last.extend(2..r);
            last.push(1);
            let elem = rw.element_type(y_ty);
            let xs: Vec<i64> = first.iter().map(|&d| sx[d as usize]).collect();
            let x_ty = rw.uniq().tensor_type(xs, elem);
            let perm = util::i64_array(rw, &first);
            let t = util::build(rw, "Transpose", &[x], &[x_ty], vec![("perm", perm)], loc);
            x = rw.result(t, 0);
            let ys: Vec<i64> = first.iter().map(|&d| sy[d as usize]).collect();
            ty = rw.uniq().tensor_type(ys, elem);
            back = Some(last);
        }
        let mut results = vec![ty];
        if kind == PoolKind::Max {
            results.push(rw.uniq().none_type());
        }
        let refs: Vec<(&str, nart_ir::Attr)> =
            props.iter().map(|(n, a)| (n.as_str(), *a)).collect();
        let base = util::build(rw, kind.onnx_name(), &[x], &results, refs, loc);
        let mut out = rw.result(base, 0);
        if let Some(last) = back {
            let perm = util::i64_array(rw, &last);
            let t = util::build(rw, "Transpose", &[out], &[y_ty], vec![("perm", perm)], loc);
            out = rw.result(t, 0);
        }
        rw.replace_op(op, &[out]);
        true
    }
}
