//! Upgrades nodes written against an older opset to the graph dialect's opset (28).
//!
//! Most changes between opsets only add types; the ones handled here changed a node's shape:
//! attributes that became inputs (`Slice` < 10, `TopK` < 10, `Pad` < 11, `Clip` < 11,
//! `Dropout` < 12, `Squeeze`/`Unsqueeze`/`ReduceSum`/`Split` < 13, the other `Reduce*` < 18,
//! `DFT` < 20),
//! `Upsample` and opset-10 `Resize` (become `Resize` with the old coordinate mapping),
//! `Cast` < 6 (string type names), `Softmax`/`LogSoftmax`/`Hardmax` < 13 (2-D coercion, kept
//! when the axis is the last one), and attributes that were dropped (`consumed_inputs`,
//! `is_test`, `spatial`, the legacy `broadcast`).

use nart_ir::{AttrData, Block, Context, DenseData, Location, OperationState, TypeData, Value};
use nart_onnx_proto::AttributeProto;

/// A node on its way into the IR: op type, resolved inputs (`None` for absent) and attributes.
#[derive(Debug)]
pub struct NodeView {
    /// ONNX op type; an upgrade may rename it (`Upsample` → `Resize`).
    pub op_type: String,
    /// Inputs in order.
    pub inputs: Vec<Option<Value>>,
    /// Attributes.
    pub attrs: Vec<AttributeProto>,
    /// Number of outputs the node declares.
    pub n_outputs: usize,
}

impl NodeView {
    fn take(&mut self, name: &str) -> Option<AttributeProto> {
        let k = self.attrs.iter().position(|a| a.name() == name)?;
        Some(self.attrs.remove(k))
    }

    fn set_input(&mut self, k: usize, v: Option<Value>) {
        if self.inputs.len() <= k {
            self.inputs.resize(k + 1, None);
        }
        self.inputs[k] = v;
    }

    fn set_attr(&mut self, a: AttributeProto) {
        let name = a.name().to_string();
        self.take(&name);
        self.attrs.push(a);
    }
}

fn str_attr(name: &str, v: &str) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(3),
        s: Some(v.as_bytes().to_vec()),
        ..Default::default()
    }
}

fn int_attr(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(2),
        i: Some(v),
        ..Default::default()
    }
}

/// Creates the constants an upgrade needs, in the block being imported.
pub struct ConstMaker<'c> {
    /// The context.
    pub ctx: &'c mut Context,
    /// Where constants go.
    pub block: Block,
    /// Their location (the node's).
    pub loc: Location,
}

impl ConstMaker<'_> {
    fn constant(&mut self, shape: Vec<i64>, elem: nart_ir::Type, bytes: Vec<u8>) -> Value {
        let ty = self.ctx.tensor_type(shape, elem);
        let attr = self.ctx.intern_attr(AttrData::DenseElements {
            ty,
            data: DenseData::Elements(bytes),
        });
        let st = OperationState::new(self.ctx, "graph.constant", self.loc)
            .results(&[ty])
            .prop(self.ctx, "value", attr);
        let op = self.ctx.create_op(st);
        self.ctx.append_op(self.block, op);
        self.ctx.result(op, 0)
    }

    /// A 1-D `i64` constant.
    pub fn i64s(&mut self, v: &[i64]) -> Value {
        let e = self.ctx.i64_type();
        let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.constant(vec![v.len() as i64], e, bytes)
    }

    /// A rank-0 `i64` constant.
    pub fn i64_scalar(&mut self, v: i64) -> Value {
        let e = self.ctx.i64_type();
        self.constant(vec![], e, v.to_le_bytes().to_vec())
    }

    /// A 1-D `f32` constant.
    pub fn f32s(&mut self, v: &[f32]) -> Value {
        let e = self.ctx.f32_type();
        let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.constant(vec![v.len() as i64], e, bytes)
    }

    /// A scalar of `like`'s element type (f16, f32, f64 or an integer), `f32` otherwise.
    pub fn scalar_like(&mut self, value: f64, like: Option<Value>) -> Value {
        let elem = like
            .map(|v| nart_dialect_graph::constraints::elem_of(self.ctx, self.ctx.value_type(v)));
        let data = elem.map(|e| self.ctx.type_data(e).clone());
        match (elem, data) {
            (Some(e), Some(TypeData::Float(nart_ir::FloatKind::F64))) => {
                self.constant(vec![], e, value.to_le_bytes().to_vec())
            }
            (Some(e), Some(TypeData::Float(nart_ir::FloatKind::F16))) => {
                let bits = nart_ir::util::f64_to_f16_bits(value);
                self.constant(vec![], e, bits.to_le_bytes().to_vec())
            }
            (Some(e), Some(TypeData::Integer { width, .. })) if width >= 8 => {
                let bytes = (value as i64).to_le_bytes()[..(width as usize / 8)].to_vec();
                self.constant(vec![], e, bytes)
            }
            _ => {
                let e = self.ctx.f32_type();
                self.constant(vec![], e, (value as f32).to_le_bytes().to_vec())
            }
        }
    }
}

const REDUCE_18: &[&str] = &[
    "ReduceMean",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceSumSquare",
];

const LEGACY_BROADCAST: &[&str] = &[
    "Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Greater", "Less", "Gemm",
    "PRelu",
];

/// Rewrites `view` from `opset` semantics to the target opset's.
pub fn upgrade(view: &mut NodeView, opset: i64, mk: &mut ConstMaker) -> Result<(), String> {
    view.take("consumed_inputs");
    let op = view.op_type.clone();
    match op.as_str() {
        "Slice" if opset < 10 => {
            let starts = view
                .take("starts")
                .ok_or("missing required attribute 'starts'")?;
            let ends = view
                .take("ends")
                .ok_or("missing required attribute 'ends'")?;
            let s = mk.i64s(&starts.ints);
            let e = mk.i64s(&ends.ints);
            view.set_input(1, Some(s));
            view.set_input(2, Some(e));
            if let Some(axes) = view.take("axes") {
                let a = mk.i64s(&axes.ints);
                view.set_input(3, Some(a));
            }
        }
        "Squeeze" | "Unsqueeze" | "ReduceSum" if opset < 13 => {
            if let Some(axes) = view.take("axes") {
                let a = mk.i64s(&axes.ints);
                view.set_input(1, Some(a));
            }
        }
        o if REDUCE_18.contains(&o) && opset < 18 => {
            if let Some(axes) = view.take("axes") {
                let a = mk.i64s(&axes.ints);
                view.set_input(1, Some(a));
            }
        }
        "Split" => {
            if opset < 13 {
                if let Some(split) = view.take("split") {
                    let s = mk.i64s(&split.ints);
                    view.set_input(1, Some(s));
                }
            }
            let has_split = view.inputs.get(1).is_some_and(Option::is_some);
            if !has_split && !view.attrs.iter().any(|a| a.name() == "num_outputs") {
                view.set_attr(int_attr("num_outputs", view.n_outputs as i64));
            }
        }
        "Pad" if opset < 11 => {
            let pads = view
                .take("pads")
                .or_else(|| view.take("paddings"))
                .ok_or("missing required attribute 'pads'")?;
            let p = mk.i64s(&pads.ints);
            view.set_input(1, Some(p));
            if let Some(value) = view.take("value") {
                let x = view.inputs.first().copied().flatten();
                let v = mk.scalar_like(value.f() as f64, x);
                view.set_input(2, Some(v));
            }
        }
        "Clip" if opset < 11 => {
            let x = view.inputs.first().copied().flatten();
            let min = view.take("min");
            let max = view.take("max");
            if let Some(m) = min {
                let v = mk.scalar_like(m.f() as f64, x);
                view.set_input(1, Some(v));
            }
            if let Some(m) = max {
                let v = mk.scalar_like(m.f() as f64, x);
                view.set_input(2, Some(v));
            }
        }
        "Dropout" if opset < 12 => {
            view.take("is_test");
            if let Some(r) = view.take("ratio") {
                let v = mk.scalar_like(r.f() as f64, None);
                view.set_input(1, Some(v));
            }
        }
        "DFT" if opset < 20 => {
            let axis = view.take("axis").map_or(1, |a| a.i());
            let a = mk.i64_scalar(axis);
            view.set_input(2, Some(a));
        }
        "TopK" if opset < 10 => {
            let k = view.take("k").ok_or("missing required attribute 'k'")?;
            let v = mk.i64s(&[k.i()]);
            view.set_input(1, Some(v));
        }
        "Upsample" => {
            let scales = if let Some(s) = view.take("scales") {
                Some(mk.f32s(&s.floats))
            } else {
                view.inputs.get(1).copied().flatten()
            };
            view.take("width_scale");
            view.take("height_scale");
            view.op_type = "Resize".into();
            view.inputs.truncate(1);
            view.set_input(2, scales);
            legacy_resize_modes(view);
        }
        "Resize" if opset < 11 => {
            let scales = view.inputs.get(1).copied().flatten();
            view.inputs.truncate(1);
            view.set_input(2, scales);
            legacy_resize_modes(view);
        }
        "Cast" if opset < 6 => {
            if let Some(to) = view.take("to") {
                let code = match to
                    .s
                    .as_deref()
                    .map(|s| String::from_utf8_lossy(s).to_uppercase())
                {
                    Some(name) => nart_onnx_proto::DataType::from_name(&name)
                        .map(|d| d as i64)
                        .ok_or_else(|| format!("unknown type name '{name}' in attribute 'to'"))?,
                    None => to.i(),
                };
                view.set_attr(int_attr("to", code));
            }
        }
        "Softmax" | "LogSoftmax" | "Hardmax" if opset < 13 => {
            let axis = view.take("axis").map_or(1, |a| a.i());
            let rank = view.inputs.first().copied().flatten().and_then(|x| {
                match mk.ctx.type_data(mk.ctx.value_type(x)) {
                    TypeData::RankedTensor { shape, .. } => Some(shape.len() as i64),
                    _ => None,
                }
            });
            match rank {
                Some(r) => {
                    let a = if axis < 0 { axis + r } else { axis };
                    if a != r - 1 {
                        return Err(format!(
                            "cannot upgrade {op} with axis {axis} on a rank-{r} input from opset {opset}: \
                             only the last axis keeps its meaning after opset 13"
                        ));
                    }
                    view.set_attr(int_attr("axis", -1));
                }
                None => view.set_attr(int_attr("axis", axis)),
            }
        }
        "BatchNormalization" if opset < 9 => {
            view.take("spatial");
            view.take("is_test");
        }
        o if LEGACY_BROADCAST.contains(&o) && opset < 7 => {
            view.take("broadcast");
            if view.take("axis").is_some() && o != "Gemm" {
                return Err("the legacy 'axis' broadcast of opset < 7 is not supported".into());
            }
        }
        _ => {}
    }
    Ok(())
}

fn legacy_resize_modes(view: &mut NodeView) {
    let mode = view
        .attrs
        .iter()
        .find(|a| a.name() == "mode")
        .map(|a| String::from_utf8_lossy(a.s()).to_string())
        .unwrap_or_else(|| "nearest".into());
    view.set_attr(str_attr("coordinate_transformation_mode", "asymmetric"));
    if mode == "nearest" {
        view.set_attr(str_attr("nearest_mode", "floor"));
    }
    if mode == "bilinear" || mode == "trilinear" {
        view.set_attr(str_attr("mode", "linear"));
    }
}
