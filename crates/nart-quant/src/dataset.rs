//! Calibration data: read from disk and checked against the model's inputs before anything
//! runs, so that bad data is an error naming the sample and the input, never a wrong range.
//!
//! A calibration set is one of:
//! - a folder of sample folders (`test_data_set_0/`, ... or any subfolders, sorted by name),
//!   each holding `input_0.pb`, `input_1.pb`, ... (ONNX `TensorProto`) or `.npy` files, as
//!   `nart run --dataset` reads them;
//! - a folder holding `input_N.pb` / `input_N.npy` itself: one sample;
//! - one `.pb` or `.npy` file holding a batch for a model with one input (such as
//!   `tests/models/digits_cnn/calib_inputs.pb`): its first dimension is split into samples of
//!   the model's batch size (the declared first dimension, or [`DEFAULT_BATCH`] rows when it is
//!   dynamic).
//!
//! Every sample must give every input with the declared element type and a shape that matches
//! the declared one (dynamic dimensions match anything), and float inputs must be finite.

use std::path::{Path, PathBuf};

use nart_interp::{InputSpec, Val};
use nart_tensor::{DType, Tensor};

use crate::errors::QuantError;

/// Rows per sample when a batch file is split for a model whose batch dimension is dynamic.
pub const DEFAULT_BATCH: usize = 32;

/// One calibration sample: a name for messages, and a value per model input.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Where it comes from: `sample 'test_data_set_3'`, `rows 32..64 of 'calib.pb'`.
    pub name: String,
    /// One value per model input.
    pub inputs: Vec<Val>,
}

fn data_err(msg: String) -> QuantError {
    QuantError::Data(msg)
}

/// Reads a tensor from a `.pb` (`TensorProto`) or `.npy` file.
pub fn read_tensor(path: &Path) -> Result<Tensor, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    if path.extension().is_some_and(|e| e == "npy") {
        return Tensor::from_npy_bytes(&bytes).map_err(|e| e.to_string());
    }
    let proto = nart_onnx_proto::decode_tensor(&bytes).map_err(|e| e.to_string())?;
    let mut ctx = nart_ir::Context::new();
    let (ty, data) =
        nart_onnx::tensor::tensor_to_dense(&mut ctx, &proto, None).map_err(|e| e.to_string())?;
    let Some((Some(dtype), Some(dims))) = nart_interp::convert::tensor_type_info(&ctx, ty) else {
        return Err(format!(
            "unsupported element type code {}",
            proto.data_type()
        ));
    };
    let shape: Vec<usize> = dims.into_iter().map(|d| d.unwrap_or(0)).collect();
    match data {
        nart_ir::DenseData::Elements(bytes) => {
            nart_interp::convert::decode_elements(dtype, shape, &bytes)
        }
        nart_ir::DenseData::Splat(bytes) => {
            let n: usize = shape.iter().product();
            nart_interp::convert::decode_elements(dtype, shape, &bytes.repeat(n))
        }
        nart_ir::DenseData::Strings { .. } => Err("string tensors cannot calibrate".into()),
    }
}

/// Checks one value of a sample against the input it is for.
pub fn check_value(
    sample: &str,
    index: usize,
    spec: &InputSpec,
    t: &Tensor,
) -> Result<(), QuantError> {
    let input = format!("input #{index} '{}'", spec.name);
    if let Some(dt) = spec.dtype {
        if dt != t.dtype() {
            return Err(data_err(format!(
                "{sample}, {input}: element type is {}, the model takes {dt}",
                t.dtype()
            )));
        }
    }
    if let Some(dims) = &spec.shape {
        let ok = dims.len() == t.rank()
            && dims
                .iter()
                .zip(t.shape())
                .all(|(d, &n)| d.is_none_or(|d| d == n));
        if !ok {
            return Err(data_err(format!(
                "{sample}, {input}: shape is {:?}, the model takes {}",
                t.shape(),
                spec.shape_text()
            )));
        }
    }
    if t.shape().iter().product::<usize>() == 0 {
        return Err(data_err(format!("{sample}, {input}: the tensor is empty")));
    }
    if matches!(
        t.dtype(),
        DType::F32 | DType::F64 | DType::F16 | DType::BF16
    ) {
        let v = t.to_f64_vec().map_err(|e| data_err(e.to_string()))?;
        if let Some((k, x)) = v.iter().enumerate().find(|(_, x)| !x.is_finite()) {
            let what = if x.is_nan() { "NaN" } else { "infinite" };
            // In a batch, say which row (sample) holds it.
            let rows = t.shape().first().copied().unwrap_or(1);
            let row = if rows > 1 {
                format!(" in row {}", k / (v.len() / rows))
            } else {
                String::new()
            };
            return Err(data_err(format!(
                "{sample}, {input}: element {k} is {what} ({x}){row}; the samples must be finite"
            )));
        }
    }
    Ok(())
}

fn input_file(dir: &Path, i: usize) -> Option<PathBuf> {
    [format!("input_{i}.pb"), format!("input_{i}.npy")]
        .into_iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())
}

/// Reads the sample in folder `dir` (named `name` in messages).
fn read_sample_dir(dir: &Path, name: &str, specs: &[InputSpec]) -> Result<Sample, QuantError> {
    let mut inputs = Vec::with_capacity(specs.len());
    for (i, spec) in specs.iter().enumerate() {
        let Some(path) = input_file(dir, i) else {
            return Err(data_err(format!(
                "{name}, input #{i} '{}': neither input_{i}.pb nor input_{i}.npy is in '{}'",
                spec.name,
                dir.display()
            )));
        };
        let t = read_tensor(&path).map_err(|e| {
            data_err(format!(
                "{name}, input #{i} '{}': cannot read '{}': {e}",
                spec.name,
                path.display()
            ))
        })?;
        check_value(name, i, spec, &t)?;
        inputs.push(Val::Tensor(t));
    }
    if input_file(dir, specs.len()).is_some() {
        return Err(data_err(format!(
            "{name}: '{}' holds more inputs than the model's {}",
            dir.display(),
            specs.len()
        )));
    }
    Ok(Sample {
        name: name.to_string(),
        inputs,
    })
}

/// Splits a batch tensor along its first dimension into samples of `batch` rows.
fn split_batch(t: &Tensor, batch: usize, file: &str) -> Result<Vec<Sample>, QuantError> {
    let rows = t.shape().first().copied().unwrap_or(0);
    let row: usize = t.shape()[1..].iter().product();
    let v = t.to_f64_vec().map_err(|e| data_err(e.to_string()))?;
    let mut out = Vec::new();
    let mut start = 0;
    while start < rows {
        let end = (start + batch).min(rows);
        let mut shape = t.shape().to_vec();
        shape[0] = end - start;
        let part = Tensor::from_f64(t.dtype(), shape, v[start * row..end * row].to_vec())
            .map_err(|e| data_err(e.to_string()))?;
        out.push(Sample {
            name: format!("sample rows {start}..{end} of '{file}'"),
            inputs: vec![Val::Tensor(part)],
        });
        start = end;
    }
    Ok(out)
}

/// Reads and checks a calibration set (see the module documentation).
pub fn load(path: &Path, specs: &[InputSpec]) -> Result<Vec<Sample>, QuantError> {
    if path.is_file() {
        let file = path.display().to_string();
        if specs.len() != 1 {
            return Err(data_err(format!(
                "'{file}' is one batch file, but the model takes {} inputs; give a folder of \
                 sample folders holding input_0.pb, input_1.pb, ...",
                specs.len()
            )));
        }
        let spec = &specs[0];
        let t = read_tensor(path).map_err(|e| {
            data_err(format!(
                "'{file}', input #0 '{}': cannot read it: {e}",
                spec.name
            ))
        })?;
        // Check the whole batch first (types, rank, finiteness), with the batch dimension free.
        let mut batch_spec = spec.clone();
        let declared = spec
            .shape
            .as_ref()
            .and_then(|d| d.first().copied().flatten());
        if let Some(d) = batch_spec.shape.as_mut().and_then(|d| d.first_mut()) {
            *d = None;
        }
        check_value(&format!("batch file '{file}'"), 0, &batch_spec, &t)?;
        let batch = declared.unwrap_or(DEFAULT_BATCH);
        let rows = t.shape().first().copied().unwrap_or(0);
        if declared.is_some() && rows % batch != 0 {
            return Err(data_err(format!(
                "batch file '{file}', input #0 '{}': {rows} rows cannot be split into samples of \
                 the model's batch size {batch}",
                spec.name
            )));
        }
        return split_batch(&t, batch, &file);
    }
    if !path.is_dir() {
        return Err(data_err(format!(
            "calibration data '{}' is neither a file nor a folder",
            path.display()
        )));
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| data_err(format!("cannot read '{}': {e}", path.display())))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    if dirs.is_empty() {
        if input_file(path, 0).is_some() {
            let name = format!("sample '{}'", path.display());
            return Ok(vec![read_sample_dir(path, &name, specs)?]);
        }
        return Err(data_err(format!(
            "calibration folder '{}' is empty: it holds no sample folders and no input_0.pb or \
             input_0.npy",
            path.display()
        )));
    }
    dirs.iter()
        .map(|d| {
            let name = format!(
                "sample '{}'",
                d.file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default()
            );
            read_sample_dir(d, &name, specs)
        })
        .collect()
}
