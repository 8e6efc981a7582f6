//! The ONNX side of each generated op: formal inputs and outputs, attribute kinds and defaults.
//!
//! The importer reads this table to map a `NodeProto` onto a `graph.*` op, and the exporter to
//! map it back.

use nart_ir::OpDef;

/// How many values a formal parameter takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Form {
    /// Exactly one.
    Single,
    /// Zero or one; absent ones are `graph.none` values in the IR.
    Optional,
    /// Any number (at least `min_arity`).
    Variadic,
}

/// A formal input or output of an ONNX schema.
#[derive(Clone, Copy, Debug)]
pub struct FormalParam {
    /// Name in the schema.
    pub name: &'static str,
    /// Arity.
    pub form: Form,
    /// Minimum number of values.
    pub min_arity: u32,
}

/// The kind of an ONNX attribute (`AttributeProto.AttributeType`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AttrKind {
    /// `INT`: an `i64` integer attribute.
    Int,
    /// `FLOAT`: an `f32` float attribute.
    Float,
    /// `STRING`: a string attribute.
    String,
    /// `INTS`: `array<i64: ...>`.
    Ints,
    /// `FLOATS`: `array<f32: ...>`.
    Floats,
    /// `STRINGS`: an array of string attributes.
    Strings,
    /// `TENSOR`: a dense elements attribute.
    Tensor,
    /// `SPARSE_TENSOR`: a dense elements attribute (densified on import).
    SparseTensor,
    /// `TYPE_PROTO`: a type attribute.
    TypeProto,
    /// `TYPE_PROTOS`: an array of type attributes.
    TypeProtos,
    /// `TENSORS`: an array of dense elements attributes.
    Tensors,
    /// `SPARSE_TENSORS`: an array of dense elements attributes.
    SparseTensors,
    /// `GRAPH`: a region of the op, named after the attribute.
    Graph,
    /// `GRAPHS`: not used by the default domain at the target opset.
    Graphs,
}

/// An attribute of an ONNX schema.
#[derive(Clone, Copy, Debug)]
pub struct OnnxAttr {
    /// Name.
    pub name: &'static str,
    /// Kind.
    pub kind: AttrKind,
    /// Whether a node must carry it.
    pub required: bool,
    /// The default in MLIR attribute syntax, empty when there is none.
    pub default: &'static str,
}

/// One ONNX operator schema and the op that stands for it.
#[derive(Clone, Copy, Debug)]
pub struct OnnxSchema {
    /// ONNX operator name (`Conv`).
    pub name: &'static str,
    /// Opset version of this schema.
    pub since_version: i64,
    /// The `graph.*` op.
    pub def: &'static OpDef,
    /// Formal inputs.
    pub inputs: &'static [FormalParam],
    /// Formal outputs.
    pub outputs: &'static [FormalParam],
    /// Attributes, sorted by name.
    pub attrs: &'static [OnnxAttr],
    /// The attributes the operator had at opset 21 (the opset exported models use when they
    /// can), or `None` when it did not exist then.
    pub attrs_at_21: Option<&'static [&'static str]>,
}

impl OnnxSchema {
    /// The attribute called `name`.
    pub fn attr(&self, name: &str) -> Option<&'static OnnxAttr> {
        self.attrs.iter().find(|a| a.name == name)
    }
}

/// The schema of ONNX operator `name` (default domain), if nart knows it.
pub fn schema(name: &str) -> Option<&'static OnnxSchema> {
    let all = &crate::ops_generated::SCHEMAS;
    all.binary_search_by(|s| s.name.cmp(name))
        .ok()
        .map(|i| &all[i])
}

/// The schema of a `graph.*` op name (`graph.Conv`).
pub fn schema_of_op(op_name: &str) -> Option<&'static OnnxSchema> {
    op_name.strip_prefix("graph.").and_then(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_finds_ops_and_their_parameters() {
        let conv = schema("Conv").expect("Conv is generated");
        assert_eq!(conv.def.name, "graph.Conv");
        assert_eq!(conv.inputs.len(), 3);
        assert_eq!(conv.inputs[2].form, Form::Optional);
        assert_eq!(conv.attr("group").map(|a| a.default), Some("1"));
        assert!(schema("NoSuchOp").is_none());
        assert_eq!(schema_of_op("graph.Relu").map(|s| s.name), Some("Relu"));
        let concat = schema("Concat").unwrap();
        assert_eq!(concat.inputs[0].form, Form::Variadic);
        assert_eq!(concat.attr("axis").map(|a| a.required), Some(true));
    }
}
