//! ONNX Runtime's contrib ops (domain `com.microsoft`) that nart reads: the fused
//! `FusedConv`/`FusedGemm` (which `nart-opt -o X.onnx` writes for `graph.fused_conv`/`fused_gemm`),
//! expanded into the base op and its activation, and the quantized ops its quantizer writes in
//! the QOperator format (`quantize_static(..., quant_format=QuantFormat.QOperator)`), expanded
//! into the standard nodes that mean the same: dequantize every quantized input, the float op,
//! quantize the result. The importer then builds these nodes like any others, and
//! `quant-from-qdq` lifts the QDQ chains into quant ops, as it does for QDQ models.
//!
//! The expansion is exact as to meaning (ONNX Runtime's kernels compute the same formula in
//! float, or in integers where the result rounds the same), so a QOperator model imports to the
//! same IR as the QDQ model with the same parameters. What has no faithful expansion is a
//! located error naming the node and the reason (`channels_last=1`, a missing output zero point,
//! whose absence leaves the output type undecided).

use nart_onnx_proto::{attribute_proto::AttributeType, AttributeProto, NodeProto, TensorProto};

/// The standard nodes for `node` when it is a contrib op this module knows, `None` otherwise.
pub fn expand(node: &NodeProto) -> Option<Result<Vec<NodeProto>, String>> {
    if node.domain() != "com.microsoft" {
        return None;
    }
    let mut x = Expander {
        node,
        nodes: Vec::new(),
        count: 0,
    };
    let done = match node.op_type() {
        "QLinearAdd" => x.binary("Add"),
        "QLinearMul" => x.binary("Mul"),
        "QLinearSigmoid" => x.unary("Sigmoid", Vec::new()),
        "QLinearLeakyRelu" => {
            let alpha = float_attr(node, "alpha").unwrap_or(0.01);
            x.unary("LeakyRelu", vec![float("alpha", alpha)])
        }
        "QLinearGlobalAveragePool" => x.pool("GlobalAveragePool", Vec::new()),
        "QLinearAveragePool" => {
            let kept = [
                "auto_pad",
                "ceil_mode",
                "count_include_pad",
                "kernel_shape",
                "pads",
            ]
            .into_iter()
            .chain(["strides"])
            .filter_map(|n| node.attribute.iter().find(|a| a.name() == n).cloned())
            .collect();
            x.pool("AveragePool", kept)
        }
        "QLinearConcat" => x.concat(),
        "QGemm" => x.qgemm(),
        "FusedConv" => x.fused(
            "Conv",
            &[
                "auto_pad",
                "dilations",
                "group",
                "kernel_shape",
                "pads",
                "strides",
            ],
        ),
        "FusedGemm" => x.fused("Gemm", &["alpha", "beta", "transA", "transB"]),
        _ => return None,
    };
    Some(done.map(|()| x.nodes))
}

/// Builds the expansion of one contrib node.
struct Expander<'a> {
    node: &'a NodeProto,
    nodes: Vec<NodeProto>,
    count: usize,
}

impl Expander<'_> {
    /// Input `i`, or `""` (absent) when the node has fewer.
    fn input(&self, i: usize) -> String {
        self.node.input.get(i).cloned().unwrap_or_default()
    }

    fn required(&self, i: usize, what: &str) -> Result<String, String> {
        let v = self.input(i);
        if v.is_empty() {
            return Err(format!(
                "{} needs its input #{i} ({what})",
                self.node.op_type()
            ));
        }
        Ok(v)
    }

    /// A fresh name for an intermediate value, derived from the node's first output.
    fn fresh(&mut self, what: &str) -> String {
        self.count += 1;
        let base = self.node.output.first().map_or("", String::as_str);
        format!("{base}::{}.{what}{}", self.node.op_type(), self.count)
    }

    fn push(
        &mut self,
        op: &str,
        inputs: Vec<String>,
        outputs: Vec<String>,
        attrs: Vec<AttributeProto>,
    ) {
        let name = format!("{}/{op}{}", self.node.name(), self.nodes.len());
        self.nodes.push(NodeProto {
            input: inputs,
            output: outputs,
            name: Some(name),
            op_type: Some(op.to_string()),
            attribute: attrs,
            ..Default::default()
        });
    }

    /// `DequantizeLinear(x, scale, zero_point)` into a fresh value.
    fn dequantize(&mut self, x: String, scale: String, zp: String) -> String {
        let out = self.fresh("dq");
        let mut inputs = vec![x, scale];
        if !zp.is_empty() {
            inputs.push(zp);
        }
        self.push("DequantizeLinear", inputs, vec![out.clone()], Vec::new());
        out
    }

    /// `QuantizeLinear(x, scale, zero_point)` into the node's output. The zero point must be
    /// there: it gives the output's type.
    fn quantize_to_output(&mut self, x: String, scale: String, zp: String) -> Result<(), String> {
        if zp.is_empty() {
            return Err(format!(
                "{} without an output zero point leaves its output type undecided (u8 or i8); ONNX Runtime's quantizer always writes one",
                self.node.op_type()
            ));
        }
        let out = self.output()?;
        self.push("QuantizeLinear", vec![x, scale, zp], vec![out], Vec::new());
        Ok(())
    }

    fn output(&self) -> Result<String, String> {
        match self.node.output.as_slice() {
            [o] if !o.is_empty() => Ok(o.clone()),
            _ => Err(format!("{} has one output", self.node.op_type())),
        }
    }

    /// `QLinearAdd`/`QLinearMul`: `(A, As, Az, B, Bs, Bz, Cs, Cz)`.
    fn binary(&mut self, op: &str) -> Result<(), String> {
        let (a, as_) = (self.required(0, "A")?, self.required(1, "A_scale")?);
        let (b, bs) = (self.required(3, "B")?, self.required(4, "B_scale")?);
        let cs = self.required(6, "C_scale")?;
        let (az, bz, cz) = (self.input(2), self.input(5), self.input(7));
        let fa = self.dequantize(a, as_, az);
        let fb = self.dequantize(b, bs, bz);
        let y = self.fresh(op);
        self.push(op, vec![fa, fb], vec![y.clone()], Vec::new());
        self.quantize_to_output(y, cs, cz)
    }

    /// `QLinearSigmoid`, `QLinearLeakyRelu`: `(X, Xs, Xz, Ys, Yz)`.
    fn unary(&mut self, op: &str, attrs: Vec<AttributeProto>) -> Result<(), String> {
        let (x, xs) = (self.required(0, "X")?, self.required(1, "X_scale")?);
        let ys = self.required(3, "Y_scale")?;
        let (xz, yz) = (self.input(2), self.input(4));
        let fx = self.dequantize(x, xs, xz);
        let y = self.fresh(op);
        self.push(op, vec![fx], vec![y.clone()], attrs);
        self.quantize_to_output(y, ys, yz)
    }

    /// `QLinearGlobalAveragePool`, `QLinearAveragePool`: as [`unary`](Self::unary), in the
    /// channels-first layout only.
    fn pool(&mut self, op: &str, attrs: Vec<AttributeProto>) -> Result<(), String> {
        if int_attr(self.node, "channels_last").unwrap_or(0) != 0 {
            return Err(format!(
                "{} with channels_last=1 is not supported (nart's pooling is channels-first)",
                self.node.op_type()
            ));
        }
        self.unary(op, attrs)
    }

    /// `QLinearConcat`: `(Ys, Yz, X0, X0s, X0z, X1, ...)`, attribute `axis`.
    fn concat(&mut self) -> Result<(), String> {
        let (ys, yz) = (self.required(0, "Y_scale")?, self.input(1));
        let rest = self.node.input.len().saturating_sub(2);
        if rest == 0 || !rest.is_multiple_of(3) {
            return Err(format!(
                "QLinearConcat takes its inputs as (tensor, scale, zero point) triples after Y_scale and Y_zero_point; it has {rest} inputs after them"
            ));
        }
        let axis = int_attr(self.node, "axis")
            .ok_or_else(|| "QLinearConcat needs its 'axis' attribute".to_string())?;
        let mut parts = Vec::new();
        for k in 0..rest / 3 {
            let i = 2 + 3 * k;
            let (x, s) = (
                self.required(i, "a tensor")?,
                self.required(i + 1, "its scale")?,
            );
            let z = self.input(i + 2);
            parts.push(self.dequantize(x, s, z));
        }
        let y = self.fresh("Concat");
        self.push("Concat", parts, vec![y.clone()], vec![int("axis", axis)]);
        self.quantize_to_output(y, ys, yz)
    }

    /// `QGemm`: `(A, As, Az, B, Bs, Bz, C, Ys, Yz)`, attributes `alpha`, `transA`, `transB`.
    /// `C` is i32 at scale `alpha · As · Bs` (zero point 0), so
    /// `Y = alpha · (A·B + C · As · Bs)`: a float Gemm with `beta = alpha` on `C · As · Bs`.
    /// Without `Ys` the output is float.
    fn qgemm(&mut self) -> Result<(), String> {
        let (a, as_, az) = (
            self.required(0, "A")?,
            self.required(1, "a_scale")?,
            self.input(2),
        );
        let (b, bs, bz) = (
            self.required(3, "B")?,
            self.required(4, "b_scale")?,
            self.input(5),
        );
        let (c, ys, yz) = (self.input(6), self.input(7), self.input(8));
        let trans_b = int_attr(self.node, "transB").unwrap_or(0);
        let alpha = float_attr(self.node, "alpha").unwrap_or(1.0);
        let fa = self.dequantize(a, as_.clone(), az);
        // Per-column scales of B run along N: axis 1 of B, or axis 0 when B is transposed.
        let out = self.fresh("dq");
        let mut inputs = vec![b, bs.clone()];
        if !bz.is_empty() {
            inputs.push(bz);
        }
        self.push(
            "DequantizeLinear",
            inputs,
            vec![out.clone()],
            vec![int("axis", if trans_b != 0 { 0 } else { 1 })],
        );
        let fb = out;
        let mut gemm_in = vec![fa, fb];
        if !c.is_empty() {
            let cf = self.fresh("bias");
            self.push("Cast", vec![c], vec![cf.clone()], vec![int("to", 1)]);
            let c1 = self.fresh("bias");
            self.push("Mul", vec![cf, as_], vec![c1.clone()], Vec::new());
            let c2 = self.fresh("bias");
            self.push("Mul", vec![c1, bs], vec![c2.clone()], Vec::new());
            gemm_in.push(c2);
        }
        let mut attrs = vec![
            float("alpha", alpha),
            float("beta", alpha),
            int("transB", trans_b),
        ];
        attrs.push(int("transA", int_attr(self.node, "transA").unwrap_or(0)));
        if ys.is_empty() {
            let out = self.output()?;
            self.push("Gemm", gemm_in, vec![out], attrs);
            return Ok(());
        }
        let y = self.fresh("Gemm");
        self.push("Gemm", gemm_in, vec![y.clone()], attrs);
        self.quantize_to_output(y, ys, yz)
    }

    /// `FusedConv` (`X, W, B, Z`: `act(conv(X, W, B) + Z)`) and `FusedGemm` (`A, B, C`): the
    /// base op with its own attributes, the sum input, then the activation named by the
    /// `activation` attribute, with `activation_params` (FusedConv) or
    /// `activation_alpha`/`activation_beta` (FusedGemm) as its parameters.
    fn fused(&mut self, base: &str, kept: &[&str]) -> Result<(), String> {
        let op = self.node.op_type().to_string();
        let attrs: Vec<AttributeProto> = self
            .node
            .attribute
            .iter()
            .filter(|a| kept.contains(&a.name()))
            .cloned()
            .collect();
        let activation = self
            .node
            .attribute
            .iter()
            .find(|a| a.name() == "activation")
            .and_then(|a| a.s.as_deref())
            .map(|s| String::from_utf8_lossy(s).into_owned());
        let params: Vec<f32> = match self
            .node
            .attribute
            .iter()
            .find(|a| a.name() == "activation_params")
        {
            Some(a) => a.floats.clone(),
            None => ["activation_alpha", "activation_beta"]
                .iter()
                .map_while(|n| float_attr(self.node, n))
                .collect(),
        };
        // X, W, B (FusedConv; its 4th input is the sum) or A, B, C (FusedGemm).
        let mut inputs: Vec<String> = self.node.input.iter().take(3).cloned().collect();
        while inputs.last().is_some_and(String::is_empty) {
            inputs.pop();
        }
        let sum = if base == "Conv" {
            self.input(3)
        } else {
            String::new()
        };
        let out = self.output()?;
        let (act, act_attrs, act_inputs): (Option<&str>, Vec<AttributeProto>, Vec<f32>) =
            match (activation.as_deref(), params.as_slice()) {
                (None, _) | (Some(""), _) => (None, Vec::new(), Vec::new()),
                (Some(a @ ("Relu" | "Tanh" | "Sigmoid")), _) => (Some(a), Vec::new(), Vec::new()),
                (Some("LeakyRelu"), p) => (
                    Some("LeakyRelu"),
                    vec![float("alpha", p.first().copied().unwrap_or(0.01))],
                    Vec::new(),
                ),
                (Some("HardSigmoid"), p) => (
                    Some("HardSigmoid"),
                    vec![
                        float("alpha", p.first().copied().unwrap_or(0.2)),
                        float("beta", p.get(1).copied().unwrap_or(0.5)),
                    ],
                    Vec::new(),
                ),
                (Some("Clip"), [lo, hi, ..]) => (Some("Clip"), Vec::new(), vec![*lo, *hi]),
                (Some(a), _) => {
                    return Err(format!(
                        "{op} with activation '{a}' (and parameters {params:?}) is not supported"
                    ));
                }
            };
        let mut y = if act.is_none() && sum.is_empty() {
            out.clone()
        } else {
            self.fresh(base)
        };
        self.push(base, inputs, vec![y.clone()], attrs);
        if !sum.is_empty() {
            let added = if act.is_none() {
                out.clone()
            } else {
                self.fresh("sum")
            };
            self.push("Add", vec![y, sum], vec![added.clone()], Vec::new());
            y = added;
        }
        let Some(act) = act else { return Ok(()) };
        let mut act_in = vec![y];
        for v in act_inputs {
            let c = self.fresh("bound");
            let t = TensorProto {
                data_type: Some(1),
                float_data: vec![v],
                name: Some(c.clone()),
                ..Default::default()
            };
            let value = AttributeProto {
                name: Some("value".into()),
                r#type: Some(AttributeType::Tensor as i32),
                t: Some(t),
                ..Default::default()
            };
            self.push("Constant", Vec::new(), vec![c.clone()], vec![value]);
            act_in.push(c);
        }
        self.push(act, act_in, vec![out], act_attrs);
        Ok(())
    }
}

fn int_attr(node: &NodeProto, name: &str) -> Option<i64> {
    node.attribute
        .iter()
        .find(|a| a.name() == name)
        .and_then(|a| a.i)
}

fn float_attr(node: &NodeProto, name: &str) -> Option<f32> {
    node.attribute
        .iter()
        .find(|a| a.name() == name)
        .and_then(|a| a.f)
}

fn int(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.to_string()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(v),
        ..Default::default()
    }
}

fn float(name: &str, v: f32) -> AttributeProto {
    AttributeProto {
        name: Some(name.to_string()),
        r#type: Some(AttributeType::Float as i32),
        f: Some(v),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(op: &str, inputs: &[&str], attrs: Vec<AttributeProto>) -> NodeProto {
        NodeProto {
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec!["y".into()],
            name: Some("n".into()),
            op_type: Some(op.into()),
            domain: Some("com.microsoft".into()),
            attribute: attrs,
            ..Default::default()
        }
    }

    fn ops(nodes: &[NodeProto]) -> Vec<&str> {
        nodes.iter().map(|n| n.op_type()).collect()
    }

    #[test]
    fn qlinear_add_is_two_dequantizations_an_add_and_a_quantization() {
        let n = node(
            "QLinearAdd",
            &["a", "as", "az", "b", "bs", "bz", "cs", "cz"],
            vec![],
        );
        let nodes = expand(&n).unwrap().unwrap();
        assert_eq!(
            ops(&nodes),
            [
                "DequantizeLinear",
                "DequantizeLinear",
                "Add",
                "QuantizeLinear"
            ]
        );
        assert_eq!(nodes[3].output, vec!["y".to_string()]);
        assert_eq!(nodes[3].input[1..], ["cs".to_string(), "cz".to_string()]);
        // Intermediate names are fresh and distinct.
        let mut names: Vec<&String> = nodes.iter().flat_map(|n| &n.output).collect();
        names.dedup();
        assert_eq!(names.len(), 4);
    }

    #[test]
    fn qgemm_keeps_its_bias_scale_and_transposition() {
        let n = node(
            "QGemm",
            &["a", "as", "az", "b", "bs", "bz", "c", "ys", "yz"],
            vec![int("transB", 1), float("alpha", 0.5)],
        );
        let nodes = expand(&n).unwrap().unwrap();
        assert_eq!(
            ops(&nodes),
            [
                "DequantizeLinear",
                "DequantizeLinear",
                "Cast",
                "Mul",
                "Mul",
                "Gemm",
                "QuantizeLinear"
            ]
        );
        // B's per-column scales run along its first axis when it is transposed.
        assert_eq!(int_attr(&nodes[1], "axis"), Some(0));
        assert_eq!(float_attr(&nodes[5], "beta"), Some(0.5));
        // Without y_scale the Gemm writes the float output itself.
        let n = node("QGemm", &["a", "as", "az", "b", "bs", "bz"], vec![]);
        let nodes = expand(&n).unwrap().unwrap();
        assert_eq!(nodes.last().unwrap().op_type(), "Gemm");
        assert_eq!(nodes.last().unwrap().output, vec!["y".to_string()]);
    }

    #[test]
    fn fused_ops_are_the_base_op_then_the_activation() {
        let mut act = AttributeProto {
            name: Some("activation".into()),
            r#type: Some(AttributeType::String as i32),
            s: Some(b"Clip".to_vec()),
            ..Default::default()
        };
        let params = AttributeProto {
            name: Some("activation_params".into()),
            r#type: Some(AttributeType::Floats as i32),
            floats: vec![0.0, 6.0],
            ..Default::default()
        };
        let n = node(
            "FusedConv",
            &["x", "w", "b"],
            vec![act.clone(), params, int("group", 2)],
        );
        let nodes = expand(&n).unwrap().unwrap();
        assert_eq!(ops(&nodes), ["Conv", "Constant", "Constant", "Clip"]);
        assert_eq!(int_attr(&nodes[0], "group"), Some(2));
        assert_eq!(nodes[3].input.len(), 3);
        assert_eq!(nodes[3].output, vec!["y".to_string()]);
        act.s = Some(b"Relu".to_vec());
        let n = node("FusedConv", &["x", "w", "b", "z"], vec![act.clone()]);
        assert_eq!(ops(&expand(&n).unwrap().unwrap()), ["Conv", "Add", "Relu"]);
        act.s = Some(b"LeakyRelu".to_vec());
        let n = node(
            "FusedGemm",
            &["a", "b", "c"],
            vec![act.clone(), float("activation_alpha", 0.2)],
        );
        let nodes = expand(&n).unwrap().unwrap();
        assert_eq!(ops(&nodes), ["Gemm", "LeakyRelu"]);
        assert_eq!(float_attr(&nodes[1], "alpha"), Some(0.2));
        act.s = Some(b"Selu".to_vec());
        let n = node("FusedGemm", &["a", "b"], vec![act]);
        assert!(expand(&n).unwrap().unwrap_err().contains("'Selu'"));
    }

    #[test]
    fn what_has_no_faithful_expansion_is_an_error() {
        let n = node(
            "QLinearAdd",
            &["a", "as", "az", "b", "bs", "bz", "cs"],
            vec![],
        );
        assert!(expand(&n)
            .unwrap()
            .unwrap_err()
            .contains("output zero point"));
        let n = node(
            "QLinearGlobalAveragePool",
            &["x", "xs", "xz", "ys", "yz"],
            vec![int("channels_last", 1)],
        );
        assert!(expand(&n).unwrap().unwrap_err().contains("channels_last"));
        let n = node(
            "QLinearConcat",
            &["ys", "yz", "x0", "x0s"],
            vec![int("axis", 1)],
        );
        assert!(expand(&n).unwrap().unwrap_err().contains("triples"));
        // Other domains and unknown contrib ops are not this module's.
        let mut n = node("QLinearAdd", &[], vec![]);
        n.domain = None;
        assert!(expand(&n).is_none());
        assert!(expand(&node("Attention", &[], vec![])).is_none());
    }
}
