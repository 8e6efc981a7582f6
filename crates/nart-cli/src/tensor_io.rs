//! Reading and writing run-time values as ONNX test data: `input_N.pb` / `output_N.pb`
//! (`TensorProto`, or `SequenceProto` / `OptionalProto` for sequence and optional values) and
//! `input_N.npy`.

use std::path::{Path, PathBuf};

use nart_interp::{InputSpec, Val, ValueKind};
use nart_onnx_proto::{Message, TensorProto};
use nart_tensor::{DType, Data, Tensor};
use thiserror::Error;

/// `onnx.SequenceProto`, which the schema crate does not carry (it lives in `onnx-data.proto`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SequenceProto {
    /// Name.
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    /// Element kind: 1 tensor, 3 sequence, 5 optional.
    #[prost(int32, optional, tag = "2")]
    pub elem_type: Option<i32>,
    /// Tensor elements.
    #[prost(message, repeated, tag = "3")]
    pub tensor_values: Vec<TensorProto>,
    /// Sequence elements.
    #[prost(message, repeated, tag = "5")]
    pub sequence_values: Vec<SequenceProto>,
    /// Optional elements.
    #[prost(message, repeated, tag = "7")]
    pub optional_values: Vec<OptionalProto>,
}

/// `onnx.OptionalProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OptionalProto {
    /// Name.
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    /// Element kind: 0 empty, 1 tensor, 3 sequence.
    #[prost(int32, optional, tag = "2")]
    pub elem_type: Option<i32>,
    /// A tensor value.
    #[prost(message, optional, tag = "3")]
    pub tensor_value: Option<TensorProto>,
    /// A sequence value.
    #[prost(message, optional, boxed, tag = "5")]
    pub sequence_value: Option<Box<SequenceProto>>,
}

/// What can go wrong reading or writing test data.
#[derive(Debug, Error)]
pub enum DataError {
    /// A file could not be read or written.
    #[error("{path}: {msg}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What happened.
        msg: String,
    },
    /// A file's content is not a valid value.
    #[error("{path}: {msg}")]
    Decode {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        msg: String,
    },
    /// The folder holds inputs that do not match the model.
    #[error("{0}")]
    Inputs(String),
}

fn decode_err(path: &Path, msg: impl ToString) -> DataError {
    DataError::Decode {
        path: path.to_path_buf(),
        msg: msg.to_string(),
    }
}

/// Converts a `TensorProto` into a tensor (raw or typed fields, every element type).
pub fn tensor_from_proto(t: &TensorProto) -> Result<Tensor, String> {
    let mut ctx = nart_ir::Context::new();
    let (ty, data) =
        nart_onnx::tensor::tensor_to_dense(&mut ctx, t, None).map_err(|e| e.to_string())?;
    let (Some(dtype), Some(dims)) =
        nart_interp::convert::tensor_type_info(&ctx, ty).unwrap_or((None, None))
    else {
        return Err(format!("unsupported element type code {}", t.data_type()));
    };
    let shape: Vec<usize> = dims.into_iter().map(|d| d.unwrap_or(0)).collect();
    match data {
        nart_ir::DenseData::Elements(bytes) => {
            nart_interp::convert::decode_elements(dtype, shape, &bytes)
        }
        nart_ir::DenseData::Splat(bytes) => {
            let n = shape
                .iter()
                .try_fold(1usize, |a, &d| a.checked_mul(d))
                .filter(|n| {
                    n.checked_mul(bytes.len())
                        .is_some_and(|b| b <= nart_tensor::max_bytes())
                })
                .ok_or_else(|| format!("a tensor of shape {shape:?} is too large"))?;
            nart_interp::convert::decode_elements(dtype, shape, &bytes.repeat(n))
        }
        nart_ir::DenseData::Strings { values, .. } => Tensor::new(
            DType::String,
            shape,
            Data::Str(
                values
                    .iter()
                    .map(|v| String::from_utf8_lossy(v).into_owned())
                    .collect(),
            ),
        )
        .map_err(|e| e.to_string()),
    }
}

/// Converts a tensor into a `TensorProto` (raw data, strings in `string_data`).
pub fn tensor_to_proto(t: &Tensor, name: &str) -> TensorProto {
    let mut p = TensorProto {
        dims: t.shape().iter().map(|&d| d as i64).collect(),
        data_type: Some(t.dtype().onnx_code()),
        name: Some(name.to_string()),
        ..Default::default()
    };
    match t.data() {
        Data::Str(v) => p.string_data = v.iter().map(|s| s.as_bytes().to_vec()).collect(),
        _ => p.raw_data = Some(t.to_raw_bytes().unwrap_or_default()),
    }
    p
}

fn seq_from_proto(s: &SequenceProto) -> Result<Val, String> {
    let ts = s
        .tensor_values
        .iter()
        .map(tensor_from_proto)
        .collect::<Result<Vec<_>, _>>()?;
    if !s.sequence_values.is_empty() || !s.optional_values.is_empty() {
        return Err("sequences of sequences or optionals are not supported".into());
    }
    Ok(Val::Seq(ts))
}

/// Reads one value file for an input of the given kind.
pub fn read_value(path: &Path, kind: ValueKind) -> Result<Val, DataError> {
    let bytes = std::fs::read(path).map_err(|e| DataError::Io {
        path: path.to_path_buf(),
        msg: e.to_string(),
    })?;
    if path.extension().is_some_and(|e| e == "npy") {
        return Tensor::from_npy_bytes(&bytes)
            .map(Val::Tensor)
            .map_err(|e| decode_err(path, e));
    }
    match kind {
        ValueKind::Sequence => {
            let s = SequenceProto::decode(bytes.as_slice()).map_err(|e| decode_err(path, e))?;
            seq_from_proto(&s).map_err(|e| decode_err(path, e))
        }
        ValueKind::Optional => {
            let o = OptionalProto::decode(bytes.as_slice()).map_err(|e| decode_err(path, e))?;
            if let Some(t) = &o.tensor_value {
                return tensor_from_proto(t)
                    .map(Val::Tensor)
                    .map_err(|e| decode_err(path, e));
            }
            if let Some(s) = &o.sequence_value {
                return seq_from_proto(s).map_err(|e| decode_err(path, e));
            }
            Ok(Val::Empty)
        }
        _ => {
            let t = nart_onnx_proto::decode_tensor(&bytes).map_err(|e| decode_err(path, e))?;
            tensor_from_proto(&t)
                .map(Val::Tensor)
                .map_err(|e| decode_err(path, e))
        }
    }
}

/// The encoded bytes of a value: a `TensorProto`, or a `SequenceProto` / `OptionalProto`.
pub fn encode_value(v: &Val, name: &str, optional: bool) -> Vec<u8> {
    let seq = |ts: &[Tensor]| SequenceProto {
        name: Some(name.to_string()),
        elem_type: Some(1),
        tensor_values: ts.iter().map(|t| tensor_to_proto(t, "")).collect(),
        ..Default::default()
    };
    if optional {
        let o = match v {
            Val::Tensor(t) => OptionalProto {
                name: Some(name.into()),
                elem_type: Some(1),
                tensor_value: Some(tensor_to_proto(t, "")),
                ..Default::default()
            },
            Val::Seq(ts) => OptionalProto {
                name: Some(name.into()),
                elem_type: Some(3),
                sequence_value: Some(Box::new(seq(ts))),
                ..Default::default()
            },
            Val::Empty => OptionalProto {
                name: Some(name.into()),
                elem_type: Some(0),
                ..Default::default()
            },
        };
        return o.encode_to_vec();
    }
    match v {
        Val::Tensor(t) => nart_onnx_proto::encode_tensor(&tensor_to_proto(t, name)),
        Val::Seq(ts) => seq(ts).encode_to_vec(),
        Val::Empty => OptionalProto {
            name: Some(name.into()),
            elem_type: Some(0),
            ..Default::default()
        }
        .encode_to_vec(),
    }
}

/// Reads `input_0`, `input_1`, ... (`.pb` or `.npy`) from `dir` for the given inputs.
///
/// An input with a default value (an ONNX initializer the input overrides) may be left out;
/// other missing files, and extra files, are reported naming the input.
pub fn read_inputs(dir: &Path, specs: &[InputSpec]) -> Result<Vec<Val>, DataError> {
    if !dir.is_dir() {
        return Err(DataError::Inputs(format!(
            "'{}' is not a folder",
            dir.display()
        )));
    }
    let mut vals = Vec::with_capacity(specs.len());
    for (i, spec) in specs.iter().enumerate() {
        let pb = dir.join(format!("input_{i}.pb"));
        let npy = dir.join(format!("input_{i}.npy"));
        let path = if pb.exists() {
            pb
        } else if npy.exists() {
            npy
        } else if let Some(d) = &spec.default {
            // An input with a default (an ONNX initializer it overrides) may be left out.
            vals.push(Val::Tensor(d.clone()));
            continue;
        } else {
            return Err(DataError::Inputs(format!(
                "missing input #{i} '{}': neither input_{i}.pb nor input_{i}.npy is in '{}' (the model takes {} inputs)",
                spec.name,
                dir.display(),
                specs.len()
            )));
        };
        vals.push(read_value(&path, spec.kind).map_err(|e| match e {
            DataError::Decode { path, msg } => DataError::Inputs(format!(
                "input #{i} '{}': cannot read '{}': {msg}",
                spec.name,
                path.display()
            )),
            other => other,
        })?);
    }
    let extra = specs.len();
    if dir.join(format!("input_{extra}.pb")).exists()
        || dir.join(format!("input_{extra}.npy")).exists()
    {
        return Err(DataError::Inputs(format!(
            "'{}' holds more inputs than the model's {} ({})",
            dir.display(),
            specs.len(),
            specs
                .iter()
                .map(|s| format!("'{}'", s.name))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(vals)
}

/// Writes `output_N.pb` files into `dir` (created if needed).
pub fn write_outputs(
    dir: &Path,
    outs: &[Val],
    names: &[String],
    optional: &[bool],
) -> Result<(), DataError> {
    std::fs::create_dir_all(dir).map_err(|e| DataError::Io {
        path: dir.to_path_buf(),
        msg: e.to_string(),
    })?;
    for (i, v) in outs.iter().enumerate() {
        let name = names.get(i).map_or("", String::as_str);
        let bytes = encode_value(v, name, optional.get(i).copied().unwrap_or(false));
        let path = dir.join(format!("output_{i}.pb"));
        std::fs::write(&path, bytes).map_err(|e| DataError::Io {
            path,
            msg: e.to_string(),
        })?;
    }
    Ok(())
}

/// Reads expected `output_N.pb` files of a test data set; `kinds` says how to decode each.
pub fn read_outputs(dir: &Path, kinds: &[ValueKind]) -> Result<Vec<Val>, DataError> {
    kinds
        .iter()
        .enumerate()
        .map(|(i, &k)| read_value(&dir.join(format!("output_{i}.pb")), k))
        .collect()
}

/// The sample folders of a dataset: its `test_data_set_*` subfolders (or, if none, every
/// subfolder), sorted by name.
pub fn sample_dirs(dataset: &Path) -> Result<Vec<PathBuf>, DataError> {
    let rd = std::fs::read_dir(dataset).map_err(|e| DataError::Io {
        path: dataset.to_path_buf(),
        msg: e.to_string(),
    })?;
    let mut dirs: Vec<PathBuf> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let named: Vec<PathBuf> = dirs
        .iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("test_data_set_"))
        })
        .cloned()
        .collect();
    Ok(if named.is_empty() { dirs } else { named })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensor_proto_round_trip_for_several_types() {
        for t in [
            Tensor::from_vec(vec![2], vec![1.5f32, -2.0]).unwrap(),
            Tensor::from_vec(vec![3], vec![true, false, true]).unwrap(),
            Tensor::from_vec(vec![1, 1], vec![7i64]).unwrap(),
            Tensor::new(DType::I4, vec![3], Data::I8(vec![-8, 7, -1])).unwrap(),
            Tensor::from_vec(vec![2], vec!["a".to_string(), "bc".to_string()]).unwrap(),
        ] {
            let p = tensor_to_proto(&t, "x");
            assert_eq!(tensor_from_proto(&p).unwrap(), t);
        }
    }

    #[test]
    fn typed_fields_decode() {
        let p = TensorProto {
            dims: vec![2],
            data_type: Some(3),
            int32_data: vec![-3, 4],
            ..Default::default()
        };
        assert_eq!(
            tensor_from_proto(&p).unwrap(),
            Tensor::from_vec(vec![2], vec![-3i8, 4]).unwrap()
        );
    }
}
