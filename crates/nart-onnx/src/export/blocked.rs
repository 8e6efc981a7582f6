//! The blocked channel layouts (`nchw<b>c`) as standard ONNX ops: `graph.reorder` as `Pad`,
//! `Reshape` and `Transpose` (into blocks) or `Transpose`, `Reshape` and `Slice` (back), and a
//! blocked `graph.fused_conv`/`graph.pool` as its channels-first op between an unblocking
//! `Transpose`/`Reshape` pair and a blocking `Reshape`/`Transpose` pair (the padded channels
//! kept, so the weight is only moved, not cut). `Reshape` keeps `N` with a 0, so a dynamic batch
//! stays dynamic; the channels and spatial sizes must be static.

use nart_ir::{Op, DYNAMIC};
use nart_onnx_proto::{AttributeProto, GraphProto, NodeProto, TensorProto};

use super::Exporter;

/// A blocked result waiting to be blocked again: the channels-first name the base op writes,
/// the op's result name, its padded channels-first shape and the block size.
pub(super) struct Reblock {
    from: String,
    to: String,
    shape: Vec<i64>,
    b: i64,
}

fn ints_attr(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(7),
        ints: v.to_vec(),
        ..Default::default()
    }
}

impl Exporter<'_> {
    /// The static shape of operand or result `v`, every dim but the batch (0) known.
    fn blocked_shape_of(
        &self,
        op: Op,
        v: nart_ir::Value,
        what: &str,
    ) -> Result<Vec<i64>, nart_ir::Diagnostic> {
        let ctx = self.ctx;
        ctx.shape_of(ctx.value_type(v))
            .map(<[i64]>::to_vec)
            .filter(|s| s.len() >= 3 && s[1..].iter().all(|&d| d != DYNAMIC))
            .ok_or_else(|| {
                self.err(
                    op,
                    format!("needs a static shape (but the batch) for its {what} to be written as standard ops"),
                )
            })
    }

    /// A `Constant` node holding the `i64` vector `v`; returns its output name.
    fn push_i64_const(&mut self, graph: &mut GraphProto, base: &str, v: &[i64]) -> String {
        let out = self.fresh(base);
        let t = TensorProto {
            dims: vec![v.len() as i64],
            data_type: Some(7),
            int64_data: v.to_vec(),
            ..Default::default()
        };
        graph.node.push(NodeProto {
            output: vec![out.clone()],
            name: Some(self.fresh_node(&out)),
            op_type: Some("Constant".into()),
            attribute: vec![AttributeProto {
                name: Some("value".into()),
                r#type: Some(4),
                t: Some(t),
                ..Default::default()
            }],
            ..Default::default()
        });
        out
    }

    fn push_node(
        &mut self,
        graph: &mut GraphProto,
        op_type: &str,
        input: Vec<String>,
        output: String,
        attribute: Vec<AttributeProto>,
    ) {
        graph.node.push(NodeProto {
            input,
            output: vec![output.clone()],
            name: Some(self.fresh_node(&output)),
            op_type: Some(op_type.into()),
            attribute,
            ..Default::default()
        });
    }

    /// `Reshape(from, shape)` into `to` (a dim 0 copies the input's).
    fn push_reshape(&mut self, graph: &mut GraphProto, from: String, to: String, shape: &[i64]) {
        let s = self.push_i64_const(graph, &format!("{to}_shape"), shape);
        self.push_node(graph, "Reshape", vec![from, s], to, Vec::new());
    }

    /// `[N, B, spatial..., b]` (shape `s`) → `[N, B * b, spatial...]`: returns the new name.
    fn push_unblock(
        &mut self,
        graph: &mut GraphProto,
        from: String,
        s: &[i64],
        base: &str,
    ) -> String {
        let r = s.len();
        let mut perm = vec![0, 1, r as i64 - 1];
        perm.extend(2..r as i64 - 1);
        let t = self.fresh(&format!("{base}_lanes"));
        self.push_node(
            graph,
            "Transpose",
            vec![from],
            t.clone(),
            vec![ints_attr("perm", &perm)],
        );
        let mut shape = vec![0, s[1] * s[r - 1]];
        shape.extend(&s[2..r - 1]);
        let out = self.fresh(&format!("{base}_nchw"));
        self.push_reshape(graph, t, out.clone(), &shape);
        out
    }

    /// `[N, C, spatial...]` (shape `s`, `C` a multiple of `b`) → `[N, C/b, spatial..., b]`
    /// written to `to`.
    fn push_block(&mut self, graph: &mut GraphProto, from: String, to: String, s: &[i64], b: i64) {
        let r = s.len() as i64;
        let mut shape = vec![0, s[1] / b, b];
        shape.extend(&s[2..]);
        let t = self.fresh(&format!("{to}_lanes"));
        self.push_reshape(graph, from, t.clone(), &shape);
        let mut perm = vec![0, 1];
        perm.extend(3..=r);
        perm.push(2);
        self.push_node(
            graph,
            "Transpose",
            vec![t],
            to,
            vec![ints_attr("perm", &perm)],
        );
    }

    /// A `graph.reorder`.
    pub(super) fn export_reorder(
        &mut self,
        op: Op,
        graph: &mut GraphProto,
    ) -> Result<(), nart_ir::Diagnostic> {
        use nart_dialect_graph::fused::ConvLayout;
        let ctx = self.ctx;
        let x = ctx.operands(op)[0];
        let sx = self.blocked_shape_of(op, x, "input")?;
        let input = self.operand_names(op).remove(0);
        let output = self.result_names(op).remove(0);
        let base = output.clone();
        match ConvLayout::of(ctx, op).map_err(|m| self.err(op, m))? {
            ConvLayout::Blocked(b) => {
                let (c, r) = (sx[1], sx.len());
                let cp = (c + b - 1) / b * b;
                let mut padded = input;
                if cp != c {
                    let mut pads = vec![0; 2 * r];
                    pads[r + 1] = cp - c;
                    let p = self.push_i64_const(graph, &format!("{base}_pads"), &pads);
                    let to = self.fresh(&format!("{base}_padded"));
                    self.push_node(graph, "Pad", vec![padded, p], to.clone(), Vec::new());
                    padded = to;
                }
                let mut s = sx.clone();
                s[1] = cp;
                self.push_block(graph, padded, output, &s, b);
            }
            ConvLayout::Nchw => {
                let c = ctx
                    .attr(op, "channels")
                    .and_then(|a| ctx.attr_int(a))
                    .ok_or_else(|| self.err(op, "requires attribute 'channels'"))?
                    as i64;
                let r = sx.len();
                if c == sx[1] * sx[r - 1] {
                    let un = self.push_unblock(graph, input, &sx, &base);
                    self.push_node(graph, "Identity", vec![un], output, Vec::new());
                } else {
                    let un = self.push_unblock(graph, input, &sx, &base);
                    let starts = self.push_i64_const(graph, &format!("{base}_starts"), &[0]);
                    let ends = self.push_i64_const(graph, &format!("{base}_ends"), &[c]);
                    let axes = self.push_i64_const(graph, &format!("{base}_axes"), &[1]);
                    self.push_node(
                        graph,
                        "Slice",
                        vec![un, starts, ends, axes],
                        output,
                        Vec::new(),
                    );
                }
            }
            ConvLayout::Nhwc => return Err(self.err(op, "layout must be \"nchw\" or \"nchw<b>c\"")),
        }
        self.opset = self.opset.max(13);
        Ok(())
    }

    /// The operands of a blocked `fused_conv` (`conv`) or `graph.pool` moved to channels-first
    /// (`input` names replaced), and its result renamed to a channels-first name that
    /// [`Self::push_reblock`] blocks again.
    pub(super) fn unblock_io(
        &mut self,
        op: Op,
        graph: &mut GraphProto,
        b: i64,
        conv: bool,
        input: &mut [String],
        output: &mut [String],
    ) -> Result<Reblock, nart_ir::Diagnostic> {
        let ctx = self.ctx;
        let sx = self.blocked_shape_of(op, ctx.operands(op)[0], "input")?;
        let sy = self.blocked_shape_of(op, ctx.result(op, 0), "result")?;
        let base = output[0].clone();
        input[0] = self.push_unblock(graph, input[0].clone(), &sx, &format!("{base}_x"));
        if conv {
            // [Mb, Kb, k..., bi, b] → [Mb, b, Kb, bi, k...] → [Mb * b, Kb * bi, k...].
            let sw = self.blocked_shape_of(op, ctx.operands(op)[1], "weight")?;
            let r = sw.len() as i64;
            let mut perm = vec![0, r - 1, 1, r - 2];
            perm.extend(2..r - 2);
            let t = self.fresh(&format!("{base}_w_lanes"));
            let w = std::mem::take(&mut input[1]);
            self.push_node(
                graph,
                "Transpose",
                vec![w],
                t.clone(),
                vec![ints_attr("perm", &perm)],
            );
            let rw = sw.len();
            let mut shape = vec![sw[0] * sw[rw - 1], sw[1] * sw[rw - 2]];
            shape.extend(&sw[2..rw - 2]);
            let wn = self.fresh(&format!("{base}_w_oihw"));
            self.push_reshape(graph, t, wn.clone(), &shape);
            input[1] = wn;
        }
        let from = self.fresh(&format!("{base}_y_nchw"));
        let to = std::mem::replace(&mut output[0], from.clone());
        let r = sy.len();
        let mut shape = vec![sy[0], sy[1] * sy[r - 1]];
        shape.extend(&sy[2..r - 1]);
        self.opset = self.opset.max(13);
        Ok(Reblock { from, to, shape, b })
    }

    /// The blocking nodes of a [`Reblock`].
    pub(super) fn push_reblock(&mut self, graph: &mut GraphProto, r: Reblock) {
        self.push_block(graph, r.from, r.to, &r.shape, r.b);
    }
}
