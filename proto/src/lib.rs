//! ONNX protobuf types for nart.
//!
//! This crate holds nart's copy of the ONNX schema (`onnx.proto`, written for
//! this project with upstream's message names and field numbers) and the Rust
//! types that `prost` generates from it.
//! The build script compiles the schema with `protox`, so no system `protoc`
//! is needed.
//!
//! Entry points:
//! - [`decode_model`] and [`decode_tensor`] read `.onnx` files and serialized
//!   `TensorProto`s (such as the `input_0.pb` files of ONNX test data);
//!   malformed or truncated bytes give a [`DecodeError`], never a panic.
//! - [`encode_model`] and [`encode_tensor`] write them back.
//! - [`DataType`] names `TensorProto.data_type` codes and knows their widths.
//!
//! ```
//! use nart_onnx_proto::{decode_model, encode_model, ModelProto};
//!
//! let model = ModelProto { ir_version: Some(8), ..Default::default() };
//! let bytes = encode_model(&model);
//! assert_eq!(decode_model(&bytes).unwrap().ir_version, Some(8));
//! assert!(decode_model(&[0x08]).is_err());
//! ```

#![deny(missing_docs)]

mod data_type;
mod errors;

pub use data_type::DataType;
pub use errors::{DecodeError, UnknownDataType};

/// The generated ONNX message types (package `onnx`).
///
/// Field docs come from the comments in `onnx.proto`.
#[allow(missing_docs)]
#[allow(clippy::all)]
#[allow(rustdoc::all)]
pub mod onnx {
    include!(concat!(env!("OUT_DIR"), "/onnx.rs"));
}

pub use onnx::{
    attribute_proto, tensor_proto, tensor_shape_proto, type_proto, AttributeProto,
    DeviceConfigurationProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    OperatorStatus, SparseTensorProto, StringStringEntryProto, TensorAnnotation, TensorProto,
    TensorShapeProto, TrainingInfoProto, TypeProto, ValueInfoProto, Version,
};

impl ValueInfoProto {
    /// The `ValueInfoProto` of a tensor `name` of element type `elem` and static `dims` (empty
    /// for a scalar), as models built in code declare their inputs and outputs.
    ///
    /// ```
    /// use nart_onnx_proto::{DataType, ValueInfoProto};
    ///
    /// let x = ValueInfoProto::tensor("x", DataType::Float, &[1, 3]);
    /// assert_eq!(x.name.as_deref(), Some("x"));
    /// ```
    pub fn tensor(name: &str, elem: DataType, dims: &[i64]) -> ValueInfoProto {
        let dim = dims
            .iter()
            .map(|&d| tensor_shape_proto::Dimension {
                value: Some(tensor_shape_proto::dimension::Value::DimValue(d)),
                denotation: None,
            })
            .collect();
        ValueInfoProto {
            name: Some(name.into()),
            r#type: Some(TypeProto {
                value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                    elem_type: Some(elem.code()),
                    shape: Some(TensorShapeProto { dim }),
                })),
                denotation: None,
            }),
            ..Default::default()
        }
    }
}

/// The `prost` crate this crate's types implement [`prost::Message`] with,
/// re-exported so users need not pin a matching version themselves.
pub use prost;
pub use prost::Message;

/// Decodes the bytes of an `.onnx` file into a [`ModelProto`].
///
/// External tensor data (`data_location = EXTERNAL`) is not loaded; the
/// tensors keep their `external_data` entries for the caller to resolve.
/// Fields this schema does not know (from a newer ONNX) are skipped, as
/// protobuf requires, and are not written back by [`encode_model`].
pub fn decode_model(bytes: &[u8]) -> Result<ModelProto, DecodeError> {
    ModelProto::decode(bytes).map_err(|source| DecodeError::Protobuf {
        what: "ModelProto",
        source,
    })
}

/// Decodes one serialized [`TensorProto`], such as an ONNX test-data
/// `input_0.pb` file.
pub fn decode_tensor(bytes: &[u8]) -> Result<TensorProto, DecodeError> {
    TensorProto::decode(bytes).map_err(|source| DecodeError::Protobuf {
        what: "TensorProto",
        source,
    })
}

/// Encodes a model into `.onnx` file bytes.
///
/// The output is deterministic: fields are written in field-number order.
pub fn encode_model(model: &ModelProto) -> Vec<u8> {
    model.encode_to_vec()
}

/// Encodes one tensor into the bytes of a `.pb` file.
pub fn encode_tensor(tensor: &TensorProto) -> Vec<u8> {
    tensor.encode_to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written by `tests/data/make_tiny.py` with the `onnx` Python package.
    const TINY: &[u8] = include_bytes!("../tests/data/tiny.onnx");
    /// A 2x3 float tensor with `raw_data`, written by the same script.
    const TENSOR_F32: &[u8] = include_bytes!("../tests/data/tensor_f32.pb");

    fn attr<'a>(node: &'a NodeProto, name: &str) -> &'a AttributeProto {
        node.attribute
            .iter()
            .find(|it| it.name() == name)
            .unwrap_or_else(|| panic!("node {} has attribute {name}", node.name()))
    }

    #[test]
    fn decodes_model_written_by_python_onnx() {
        let model = decode_model(TINY).expect("tiny.onnx decodes");
        assert_eq!(model.ir_version, Some(8));
        assert_eq!(model.producer_name(), "nart-make-tiny");
        assert_eq!(model.model_version, Some(3));
        let opsets: Vec<(&str, i64)> = model
            .opset_import
            .iter()
            .map(|it| (it.domain(), it.version()))
            .collect();
        assert_eq!(opsets, [("", 17), ("nart.test", 1)]);
        let props: Vec<(&str, &str)> = model
            .metadata_props
            .iter()
            .map(|it| (it.key(), it.value()))
            .collect();
        assert!(props.contains(&("author", "nart")));

        let graph = model.graph.as_ref().expect("model has a graph");
        assert_eq!(graph.name(), "tiny");
        assert_eq!(graph.doc_string(), "tiny test graph");
        let ops: Vec<&str> = graph.node.iter().map(|it| it.op_type()).collect();
        assert_eq!(
            ops,
            ["Reshape", "Add", "LeakyRelu", "Transpose", "If", "ScaleBy2"]
        );
        assert_eq!(graph.node[1].doc_string(), "adds the weight");
        assert_eq!(graph.node[5].domain(), "nart.test");

        // Inputs: symbolic and static dimensions.
        let x = &graph.input[0];
        assert_eq!(x.name(), "X");
        let Some(type_proto::Value::TensorType(tt)) = &x.r#type.as_ref().unwrap().value else {
            panic!("X is a tensor");
        };
        assert_eq!(DataType::from_code(tt.elem_type()), Ok(DataType::Float));
        let dims: Vec<_> = tt
            .shape
            .as_ref()
            .unwrap()
            .dim
            .iter()
            .map(|d| d.value.clone())
            .collect();
        assert_eq!(
            dims,
            [
                Some(tensor_shape_proto::dimension::Value::DimParam(
                    "batch".into()
                )),
                Some(tensor_shape_proto::dimension::Value::DimValue(3)),
            ]
        );

        // Initializers: raw float data and typed int64 data.
        let w = &graph.initializer[0];
        assert_eq!(w.name(), "W");
        assert_eq!(w.elem_type(), Ok(DataType::Float));
        assert_eq!(w.dims, [2, 3]);
        let floats: Vec<f32> = w
            .raw_data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(floats, [0.0, 0.25, 0.5, 0.75, 1.0, 1.25]);
        let shape = &graph.initializer[1];
        assert_eq!(shape.elem_type(), Ok(DataType::Int64));
        assert_eq!(shape.int64_data, [-1, 3]);

        // Sparse initializer.
        let sparse = &graph.sparse_initializer[0];
        assert_eq!(sparse.dims, [2, 3]);
        assert_eq!(sparse.values.as_ref().unwrap().float_data, [1.5, -2.0]);
        assert_eq!(sparse.indices.as_ref().unwrap().int64_data, [0, 5]);

        // Attributes of several kinds.
        use attribute_proto::AttributeType as A;
        let leaky = attr(&graph.node[2], "alpha");
        assert_eq!((leaky.r#type(), leaky.f()), (A::Float, 0.125));
        let perm = attr(&graph.node[3], "perm");
        assert_eq!(
            (perm.r#type(), perm.ints.as_slice()),
            (A::Ints, &[1, 0][..])
        );
        let call = &graph.node[5];
        assert_eq!(attr(call, "note").s(), b"string attr");
        assert_eq!(attr(call, "weights").floats, [0.5, 0.25]);
        assert_eq!(attr(call, "names").strings, [b"a".to_vec(), b"b".to_vec()]);
        let then_branch = attr(&graph.node[4], "then_branch");
        assert_eq!(then_branch.r#type(), A::Graph);
        assert_eq!(
            then_branch.g.as_ref().unwrap().node[0].op_type(),
            "Identity"
        );

        // Model-local function.
        let func = &model.functions[0];
        assert_eq!((func.domain(), func.name()), ("nart.test", "ScaleBy2"));
        assert_eq!(func.attribute, ["note", "weights", "names"]);
        assert_eq!(func.node[0].op_type(), "Add");
    }

    #[test]
    fn decodes_tensor_pb() {
        let t = decode_tensor(TENSOR_F32).expect("tensor_f32.pb decodes");
        assert_eq!(t.name(), "t");
        assert_eq!(t.dims, [2, 3]);
        assert_eq!(t.elem_type(), Ok(DataType::Float));
        assert_eq!(t.raw_data().len(), 24);
        assert_eq!(
            t.raw_data().len() as u64,
            DataType::Float.raw_byte_len(6).unwrap()
        );
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        // Protobuf has no end marker, so a cut at a field boundary is a valid
        // (shorter) message; every other cut must be reported as an error.
        let mut n_err = 0;
        for len in 0..TINY.len() {
            match decode_model(&TINY[..len]) {
                Ok(model) => assert_ne!(model, decode_model(TINY).unwrap()),
                Err(err) => {
                    n_err += 1;
                    assert!(err.to_string().starts_with("invalid ModelProto protobuf"));
                }
            }
        }
        // The tiny model has only a handful of top-level fields, so almost
        // every cut lands inside one.
        assert!(
            n_err > TINY.len() * 9 / 10,
            "{n_err} of {} cuts failed",
            TINY.len()
        );
        for len in 0..TENSOR_F32.len() {
            let _ = decode_tensor(&TENSOR_F32[..len]);
        }
        assert!(decode_tensor(&TENSOR_F32[..TENSOR_F32.len() - 1]).is_err());
    }

    #[test]
    fn corrupt_bytes_are_errors_not_panics() {
        // Flip each byte of the model in turn; decoding may succeed or fail
        // but must return.
        let mut bytes = TINY.to_vec();
        for idx in 0..bytes.len() {
            let old = bytes[idx];
            bytes[idx] = old ^ 0xff;
            let _ = decode_model(&bytes);
            bytes[idx] = old;
        }
        // A length prefix far beyond the input.
        assert!(decode_model(&[0x3a, 0xff, 0xff, 0xff, 0xff, 0x0f]).is_err());
        // Deep nesting (graph attribute inside graph ...) hits the recursion
        // limit instead of overflowing the stack.
        let mut nested = Vec::new();
        for _ in 0..10_000 {
            // GraphProto.node (1) -> NodeProto.attribute (5) -> AttributeProto.g (6)
            let mut next = vec![0x32];
            push_varint(&mut next, nested.len() as u64);
            next.extend_from_slice(&nested);
            let mut node = vec![0x2a];
            push_varint(&mut node, next.len() as u64);
            node.extend_from_slice(&next);
            let mut graph = vec![0x0a];
            push_varint(&mut graph, node.len() as u64);
            graph.extend_from_slice(&node);
            nested = graph;
            if nested.len() > 1 << 20 {
                break;
            }
        }
        let mut model = vec![0x3a];
        push_varint(&mut model, nested.len() as u64);
        model.extend_from_slice(&nested);
        assert!(decode_model(&model).is_err());
    }

    fn push_varint(out: &mut Vec<u8>, mut value: u64) {
        loop {
            let byte = (value & 0x7f) as u8;
            value >>= 7;
            if value == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }

    #[test]
    fn round_trip_encode_decode() {
        let model = decode_model(TINY).unwrap();
        let bytes = encode_model(&model);
        assert_eq!(decode_model(&bytes).unwrap(), model);
        // Python's onnx writes fields in field-number order as prost does,
        // so the bytes match exactly.
        assert_eq!(bytes, TINY);

        let tensor = TensorProto {
            dims: vec![2, 2],
            data_type: Some(DataType::Int4.code()),
            raw_data: Some(vec![0x21, 0x43]),
            name: Some("packed".into()),
            ..Default::default()
        };
        let back = decode_tensor(&encode_tensor(&tensor)).unwrap();
        assert_eq!(back, tensor);
        assert_eq!(back.elem_type(), Ok(DataType::Int4));
        assert_eq!(
            encode_tensor(&decode_tensor(TENSOR_F32).unwrap()),
            TENSOR_F32
        );
    }

    #[test]
    fn decodes_committed_zoo_models_and_test_data() {
        // The small models of `scripts/models/build_zoo.py`, committed under
        // `tests/models/<name>/`.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models");
        let mut n_models = 0;
        let mut entries: Vec<_> = std::fs::read_dir(&root)
            .expect("tests/models exists")
            .map(|it| it.expect("readable entry").path())
            .collect();
        entries.sort();
        for dir in entries
            .into_iter()
            .filter(|it| it.join("model.onnx").exists())
        {
            let bytes = std::fs::read(dir.join("model.onnx")).unwrap();
            let model = decode_model(&bytes).unwrap();
            assert_eq!(encode_model(&model), bytes, "{} re-encodes", dir.display());
            let graph = model.graph.as_ref().unwrap();
            assert!(!graph.node.is_empty());
            for tensor in &graph.initializer {
                let ty = tensor.elem_type().unwrap();
                let n: i64 = tensor.dims.iter().product();
                assert_eq!(
                    Some(tensor.raw_data().len() as u64),
                    ty.raw_byte_len(n as u64),
                    "initializer {} of {}",
                    tensor.name(),
                    dir.display()
                );
            }
            let data = dir.join("test_data_set_0");
            let input = decode_tensor(&std::fs::read(data.join("input_0.pb")).unwrap()).unwrap();
            assert_eq!(input.name(), graph.input[0].name());
            let output = decode_tensor(&std::fs::read(data.join("output_0.pb")).unwrap()).unwrap();
            assert_eq!(output.name(), graph.output[0].name());
            n_models += 1;
        }
        assert!(
            n_models >= 3,
            "found {n_models} models in {}",
            root.display()
        );
    }

    #[test]
    fn builds_and_decodes_every_attribute_kind() {
        use attribute_proto::AttributeType as A;
        let tensor = TensorProto {
            dims: vec![1],
            data_type: Some(DataType::Float8E4M3FN.code()),
            int32_data: vec![0x38],
            ..Default::default()
        };
        let sparse = SparseTensorProto {
            values: Some(tensor.clone()),
            indices: Some(TensorProto {
                dims: vec![1],
                data_type: Some(DataType::Int64.code()),
                int64_data: vec![0],
                ..Default::default()
            }),
            dims: vec![4],
        };
        let ty = TypeProto {
            value: Some(type_proto::Value::SequenceType(Box::new(
                type_proto::Sequence {
                    elem_type: Some(Box::new(TypeProto {
                        value: Some(type_proto::Value::OptionalType(Box::new(
                            type_proto::Optional { elem_type: None },
                        ))),
                        denotation: None,
                    })),
                },
            ))),
            denotation: Some("TENSOR".into()),
        };
        let attrs = vec![
            AttributeProto {
                r#type: Some(A::Tensor as i32),
                t: Some(tensor.clone()),
                ..Default::default()
            },
            AttributeProto {
                r#type: Some(A::Graph as i32),
                g: Some(GraphProto::default()),
                ..Default::default()
            },
            AttributeProto {
                r#type: Some(A::SparseTensor as i32),
                sparse_tensor: Some(sparse.clone()),
                ..Default::default()
            },
            AttributeProto {
                r#type: Some(A::TypeProto as i32),
                tp: Some(ty.clone()),
                ..Default::default()
            },
            AttributeProto {
                r#type: Some(A::Tensors as i32),
                tensors: vec![tensor.clone(); 2],
                ..Default::default()
            },
            AttributeProto {
                r#type: Some(A::Graphs as i32),
                graphs: vec![GraphProto::default(); 2],
                ..Default::default()
            },
            AttributeProto {
                r#type: Some(A::SparseTensors as i32),
                sparse_tensors: vec![sparse],
                ..Default::default()
            },
            AttributeProto {
                r#type: Some(A::TypeProtos as i32),
                type_protos: vec![ty],
                ..Default::default()
            },
            AttributeProto {
                ref_attr_name: Some("outer".into()),
                ..Default::default()
            },
        ];
        let model = ModelProto {
            ir_version: Some(Version::IrVersion as i64),
            graph: Some(GraphProto {
                node: vec![NodeProto {
                    op_type: Some("Custom".into()),
                    attribute: attrs,
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        };
        let back = decode_model(&encode_model(&model)).unwrap();
        assert_eq!(back, model);
        assert_eq!(back.ir_version, Some(14));
    }
}
