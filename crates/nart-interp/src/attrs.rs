//! Attributes of one op, extracted once at plan time into owned values, with typed getters that
//! fall back to the ONNX schema's default when the op does not carry the attribute.

use nart_dialect_graph::schema::OnnxSchema;
use nart_ir::enums::EnumAttr;
use nart_ir::{Attr, AttrData, Context, DenseArrayData};
use nart_tensor::qnn::QParams;
use nart_tensor::{DType, KernelError, Result, Tensor};

use crate::convert::{dtype_of_elem, tensor_from_attr};

/// An attribute value, owned and typed.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// An integer (also booleans).
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// A list of integers.
    Ints(Vec<i64>),
    /// A list of floats.
    Floats(Vec<f64>),
    /// A list of strings.
    Strings(Vec<String>),
    /// A tensor.
    Tensor(Tensor),
    /// A list of tensors.
    Tensors(Vec<Tensor>),
    /// An element type (from a type attribute).
    Type(Option<DType>),
    /// Something the interpreter does not read.
    Other,
}

impl AttrValue {
    /// Converts an IR attribute.
    pub fn from_ir(ctx: &Context, attr: Attr) -> AttrValue {
        match ctx.attr_data(attr) {
            AttrData::Integer { value, .. } => AttrValue::Int(*value as i64),
            AttrData::Float { bits, .. } => AttrValue::Float(f64::from_bits(*bits)),
            AttrData::String { value, .. } => {
                AttrValue::Str(String::from_utf8_lossy(value).into_owned())
            }
            AttrData::DenseArray { data, .. } => match data {
                DenseArrayData::Int(v) => AttrValue::Ints(v.clone()),
                DenseArrayData::Float(v) => {
                    AttrValue::Floats(v.iter().map(|b| f64::from_bits(*b)).collect())
                }
            },
            AttrData::DenseElements { .. } | AttrData::DenseResource { .. } => {
                match tensor_from_attr(ctx, attr) {
                    Ok(t) => AttrValue::Tensor(t),
                    Err(_) => AttrValue::Other,
                }
            }
            AttrData::Dialect(_) if ctx.attr_as::<EnumAttr>(attr).is_some() => {
                // An enum attribute (`#qnn.rounding<half_away>`) reads as its keywords.
                let e = ctx
                    .attr_as::<EnumAttr>(attr)
                    .expect("invariant: checked just above");
                let mut s = String::new();
                e.enum_def().write_value(&mut s, e.value);
                AttrValue::Str(s)
            }
            AttrData::Type(t) => {
                let elem = match ctx.type_data(*t) {
                    nart_ir::TypeData::RankedTensor { elem, .. }
                    | nart_ir::TypeData::UnrankedTensor { elem } => *elem,
                    _ => *t,
                };
                AttrValue::Type(dtype_of_elem(ctx, elem))
            }
            AttrData::Array(items) => {
                let vals: Vec<AttrValue> =
                    items.iter().map(|a| AttrValue::from_ir(ctx, *a)).collect();
                if vals.iter().all(|v| matches!(v, AttrValue::Int(_))) {
                    AttrValue::Ints(
                        vals.iter()
                            .map(|v| if let AttrValue::Int(i) = v { *i } else { 0 })
                            .collect(),
                    )
                } else if vals.iter().all(|v| matches!(v, AttrValue::Float(_))) {
                    AttrValue::Floats(
                        vals.iter()
                            .map(|v| if let AttrValue::Float(f) = v { *f } else { 0.0 })
                            .collect(),
                    )
                } else if vals.iter().all(|v| matches!(v, AttrValue::Str(_))) {
                    AttrValue::Strings(
                        vals.into_iter()
                            .map(|v| {
                                if let AttrValue::Str(s) = v {
                                    s
                                } else {
                                    String::new()
                                }
                            })
                            .collect(),
                    )
                } else if vals.iter().all(|v| matches!(v, AttrValue::Tensor(_))) {
                    AttrValue::Tensors(
                        vals.into_iter()
                            .filter_map(|v| {
                                if let AttrValue::Tensor(t) = v {
                                    Some(t)
                                } else {
                                    None
                                }
                            })
                            .collect(),
                    )
                } else {
                    AttrValue::Other
                }
            }
            _ => AttrValue::Other,
        }
    }

    /// Parses a schema default written in MLIR attribute syntax (`1`, `0.5`, `"NOTSET"`,
    /// `array<i64: 0, 2>`, `["Tanh", "Sigmoid"]`).
    pub fn parse_default(text: &str) -> Option<AttrValue> {
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        if let Some(s) = text.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            return Some(AttrValue::Str(s.to_string()));
        }
        if let Some(body) = text
            .strip_prefix("array<")
            .and_then(|s| s.strip_suffix('>'))
        {
            let (elem, items) = body.split_once(':').unwrap_or((body, ""));
            let items: Vec<&str> = items
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect();
            return if elem.trim().starts_with('f') {
                Some(AttrValue::Floats(
                    items.iter().filter_map(|s| s.parse().ok()).collect(),
                ))
            } else {
                Some(AttrValue::Ints(
                    items.iter().filter_map(|s| s.parse().ok()).collect(),
                ))
            };
        }
        if let Some(body) = text.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            let items: Vec<&str> = body
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect();
            if items.iter().all(|s| s.starts_with('"')) {
                return Some(AttrValue::Strings(
                    items
                        .iter()
                        .map(|s| s.trim_matches('"').to_string())
                        .collect(),
                ));
            }
            if let Ok(v) = items.iter().map(|s| s.parse::<i64>()).collect() {
                return Some(AttrValue::Ints(v));
            }
            return items
                .iter()
                .map(|s| s.parse::<f64>())
                .collect::<std::result::Result<Vec<_>, _>>()
                .ok()
                .map(AttrValue::Floats);
        }
        if let Ok(i) = text.parse::<i64>() {
            return Some(AttrValue::Int(i));
        }
        text.parse::<f64>().ok().map(AttrValue::Float)
    }
}

/// One op as the interpreter sees it: its names, location, attributes and result types.
#[derive(Clone, Debug)]
pub struct Node {
    /// The full op name (`graph.Conv`).
    pub op: String,
    /// The ONNX operator name (`Conv`), used in kernel error messages.
    pub onnx: &'static str,
    /// The op's location as text.
    pub loc: String,
    /// Element types of the results, where the IR states them.
    pub out_dtypes: Vec<Option<DType>>,
    /// Static result shapes, where the IR states them fully.
    pub out_shapes: Vec<Option<Vec<usize>>>,
    /// The quantization of each operand whose type is quantized (`!quant.uniform`).
    pub in_quant: Vec<Option<QParams>>,
    /// The quantization of each result whose type is quantized.
    pub out_quant: Vec<Option<QParams>>,
    attrs: Vec<(String, AttrValue)>,
    schema: Option<&'static OnnxSchema>,
}

impl Node {
    /// A node with the given attributes (used by plan building and tests).
    pub fn new(
        op: &str,
        loc: String,
        attrs: Vec<(String, AttrValue)>,
        schema: Option<&'static OnnxSchema>,
    ) -> Node {
        Node {
            op: op.to_string(),
            onnx: schema.map(|s| s.name).unwrap_or("op"),
            loc,
            out_dtypes: Vec::new(),
            out_shapes: Vec::new(),
            in_quant: Vec::new(),
            out_quant: Vec::new(),
            attrs,
            schema,
        }
    }

    /// The attribute called `name`, or the schema's default for it.
    pub fn get(&self, name: &str) -> Option<AttrValue> {
        if let Some((_, v)) = self.attrs.iter().find(|(n, _)| n == name) {
            return Some(v.clone());
        }
        self.schema
            .and_then(|s| s.attr(name))
            .and_then(|a| AttrValue::parse_default(a.default))
    }

    /// Whether the op itself carries the attribute (ignoring defaults).
    pub fn has(&self, name: &str) -> bool {
        self.attrs.iter().any(|(n, _)| n == name)
    }

    fn present(&self, name: &str) -> Option<&AttrValue> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    fn bad(&self, name: &'static str, msg: impl Into<String>) -> KernelError {
        KernelError::attr(self.onnx, name, msg)
    }

    /// An integer attribute, or its default; an error if there is neither.
    pub fn int(&self, name: &'static str) -> Result<i64> {
        match self.get(name) {
            Some(AttrValue::Int(i)) => Ok(i),
            Some(AttrValue::Float(f)) if f.fract() == 0.0 => Ok(f as i64),
            Some(other) => Err(self.bad(name, format!("expected an integer, got {other:?}"))),
            None => Err(self.bad(name, "required attribute is missing")),
        }
    }

    /// An integer attribute, or its default, or `dflt`.
    pub fn int_or(&self, name: &'static str, dflt: i64) -> Result<i64> {
        if self.get(name).is_none() {
            return Ok(dflt);
        }
        self.int(name)
    }

    /// An integer attribute if present (schema defaults included).
    pub fn opt_int(&self, name: &'static str) -> Result<Option<i64>> {
        if self.get(name).is_none() {
            return Ok(None);
        }
        self.int(name).map(Some)
    }

    /// A float attribute, or its default; an error if there is neither.
    pub fn float(&self, name: &'static str) -> Result<f64> {
        match self.get(name) {
            Some(AttrValue::Float(f)) => Ok(f),
            Some(AttrValue::Int(i)) => Ok(i as f64),
            Some(other) => Err(self.bad(name, format!("expected a float, got {other:?}"))),
            None => Err(self.bad(name, "required attribute is missing")),
        }
    }

    /// A float attribute, or its default, or `dflt`.
    pub fn float_or(&self, name: &'static str, dflt: f64) -> Result<f64> {
        if self.get(name).is_none() {
            return Ok(dflt);
        }
        self.float(name)
    }

    /// A float attribute if present (schema defaults included).
    pub fn opt_float(&self, name: &'static str) -> Result<Option<f64>> {
        if self.get(name).is_none() {
            return Ok(None);
        }
        self.float(name).map(Some)
    }

    /// A string attribute, or its default, or `dflt`.
    pub fn str_or(&self, name: &'static str, dflt: &str) -> Result<String> {
        match self.get(name) {
            Some(AttrValue::Str(s)) => Ok(s),
            Some(other) => Err(self.bad(name, format!("expected a string, got {other:?}"))),
            None => Ok(dflt.to_string()),
        }
    }

    /// An integer-list attribute if present (schema defaults included).
    pub fn opt_ints(&self, name: &'static str) -> Result<Option<Vec<i64>>> {
        match self.get(name) {
            None => Ok(None),
            Some(AttrValue::Ints(v)) => Ok(Some(v)),
            Some(AttrValue::Int(i)) => Ok(Some(vec![i])),
            Some(AttrValue::Floats(v)) if v.is_empty() => Ok(Some(Vec::new())),
            Some(AttrValue::Strings(v)) if v.is_empty() => Ok(Some(Vec::new())),
            Some(other) => {
                Err(self.bad(name, format!("expected a list of integers, got {other:?}")))
            }
        }
    }

    /// An integer-list attribute, or its default, or an empty list.
    pub fn ints(&self, name: &'static str) -> Result<Vec<i64>> {
        Ok(self.opt_ints(name)?.unwrap_or_default())
    }

    /// A float-list attribute if present (schema defaults included).
    pub fn opt_floats(&self, name: &'static str) -> Result<Option<Vec<f64>>> {
        match self.get(name) {
            None => Ok(None),
            Some(AttrValue::Floats(v)) => Ok(Some(v)),
            Some(AttrValue::Ints(v)) => Ok(Some(v.into_iter().map(|i| i as f64).collect())),
            Some(AttrValue::Float(f)) => Ok(Some(vec![f])),
            Some(other) => Err(self.bad(name, format!("expected a list of floats, got {other:?}"))),
        }
    }

    /// A string-list attribute, or its default, or an empty list.
    pub fn strings(&self, name: &'static str) -> Result<Vec<String>> {
        match self.get(name) {
            None => Ok(Vec::new()),
            Some(AttrValue::Strings(v)) => Ok(v),
            Some(AttrValue::Str(s)) => Ok(vec![s]),
            Some(AttrValue::Ints(v)) if v.is_empty() => Ok(Vec::new()),
            Some(other) => {
                Err(self.bad(name, format!("expected a list of strings, got {other:?}")))
            }
        }
    }

    /// A tensor attribute if present.
    pub fn tensor(&self, name: &'static str) -> Option<&Tensor> {
        match self.present(name) {
            Some(AttrValue::Tensor(t)) => Some(t),
            _ => None,
        }
    }

    /// A raw attribute value if the op carries it.
    pub fn raw(&self, name: &str) -> Option<&AttrValue> {
        self.present(name)
    }

    /// An element type given as an ONNX data type code (`Cast.to`) or a type attribute.
    pub fn dtype(&self, name: &'static str) -> Result<Option<DType>> {
        match self.get(name) {
            None => Ok(None),
            Some(AttrValue::Int(code)) => DType::from_onnx_code(code as i32)
                .map(Some)
                .ok_or_else(|| self.bad(name, format!("unknown ONNX data type {code}"))),
            Some(AttrValue::Type(t)) => Ok(t),
            Some(other) => Err(self.bad(name, format!("expected a data type, got {other:?}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_schema_defaults() {
        assert_eq!(AttrValue::parse_default("1"), Some(AttrValue::Int(1)));
        assert_eq!(AttrValue::parse_default("0.5"), Some(AttrValue::Float(0.5)));
        assert_eq!(
            AttrValue::parse_default("\"NOTSET\""),
            Some(AttrValue::Str("NOTSET".into()))
        );
        assert_eq!(
            AttrValue::parse_default("array<i64: 0, 2, 3>"),
            Some(AttrValue::Ints(vec![0, 2, 3]))
        );
        assert_eq!(
            AttrValue::parse_default("[\"Tanh\", \"Sigmoid\"]"),
            Some(AttrValue::Strings(vec!["Tanh".into(), "Sigmoid".into()]))
        );
        assert_eq!(AttrValue::parse_default(""), None);
    }

    #[test]
    fn getters_fall_back_to_schema_defaults() {
        let conv = nart_dialect_graph::schema::schema("Conv");
        let node = Node::new(
            "graph.Conv",
            "x".into(),
            vec![("strides".into(), AttrValue::Ints(vec![2, 2]))],
            conv,
        );
        assert_eq!(node.int("group").unwrap(), 1);
        assert_eq!(node.ints("strides").unwrap(), vec![2, 2]);
        assert_eq!(node.str_or("auto_pad", "?").unwrap(), "NOTSET");
        assert!(node.ints("pads").unwrap().is_empty());
    }
}
