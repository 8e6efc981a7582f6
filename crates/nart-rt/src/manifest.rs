//! The manifest: what a package holds, as JSON (the schema is in `docs/targets.md`).
//!
//! It names the model's inputs and outputs (dtype, shape with symbolic dimensions), the
//! targets and their SDK versions, the steps in execution order (segments, each run by its
//! target's runtime from a blob, and the quantize/dequantize casts between segments that the
//! runtime runs itself), and where each blob lies. Every value between steps has a name; a
//! step reads names that the inputs or an earlier step defined.
//!
//! [`Manifest::check`] validates everything that does not need the blobs, so that a package
//! that opens is consistent: a session never meets an undefined name or a missing blob.

use std::collections::{BTreeMap, HashMap, HashSet};

use nart_tensor::qnn::QParams;
use nart_tensor::DType;
use serde::{Deserialize, Serialize};

/// One dimension of a declared shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Dim {
    /// A fixed size.
    Static(u64),
    /// A symbolic size (`"N"`): every dimension with the same symbol takes the same size in one
    /// run. `"?"` is an unnamed dynamic dimension that binds nothing.
    Symbol(String),
}

impl std::fmt::Display for Dim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dim::Static(n) => write!(f, "{n}"),
            Dim::Symbol(s) => write!(f, "{s}"),
        }
    }
}

/// A model input or output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TensorSpec {
    /// Its name in the model.
    pub name: String,
    /// Its element type, in nart's spelling (`f32`, `i64`, `ui8`, `i1`).
    pub dtype: String,
    /// Its dimensions; `null` for a tensor of unknown rank.
    pub shape: Option<Vec<Dim>>,
    /// For an output: the value it returns, when that is not `name` (an input returned as
    /// is, or a value returned twice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

impl TensorSpec {
    /// The element type, if nart knows its name.
    pub fn dtype(&self) -> Option<DType> {
        DType::from_name(&self.dtype)
    }

    /// The value an output returns: [`TensorSpec::value`], or its name.
    pub fn value(&self) -> &str {
        self.value.as_deref().unwrap_or(&self.name)
    }

    /// The shape as text: `[N, 1, 8, 8]`, or `[*]` for an unknown rank.
    pub fn shape_string(&self) -> String {
        match &self.shape {
            None => "[*]".into(),
            Some(dims) => {
                let d: Vec<String> = dims.iter().map(Dim::to_string).collect();
                format!("[{}]", d.join(", "))
            }
        }
    }
}

/// A target the package uses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetInfo {
    /// The target's name (names its runtime).
    pub name: String,
    /// The SDK (or nart) version that compiled its artifacts.
    pub sdk_version: String,
}

/// A segment: an artifact run by its target's runtime.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentStep {
    /// The target that compiled it.
    pub target: String,
    /// The artifact's format, in the target's words.
    pub format: String,
    /// The SDK version that produced the artifact.
    pub sdk_version: String,
    /// The number of graph ops it holds (for reports).
    pub ops: u64,
    /// The values it reads, in the artifact's operand order.
    pub reads: Vec<String>,
    /// The values it writes, in the artifact's result order.
    pub writes: Vec<String>,
    /// The index of its artifact in [`Manifest::blobs`].
    pub blob: usize,
}

/// The parameters of a quantized tensor (mirrors `nart_tensor::qnn::QParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuantSpec {
    /// The storage element type (`i8`, `ui8`, `i4`, ...).
    pub storage: String,
    /// The storage width in bits.
    pub bits: u32,
    /// The smallest stored value.
    pub min: i64,
    /// The largest stored value.
    pub max: i64,
    /// One scale, or one per index of `axis` (or per block).
    pub scales: Vec<f64>,
    /// One zero point per scale.
    pub zero_points: Vec<i64>,
    /// The quantized dimension of a per-axis tensor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<usize>,
    /// The scale tensor's shape of a per-block tensor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_shape: Option<Vec<usize>>,
}

impl QuantSpec {
    /// The manifest form of `q`.
    pub fn from_qparams(q: &QParams) -> QuantSpec {
        QuantSpec {
            storage: q.dtype.name().to_string(),
            bits: q.bits,
            min: q.min,
            max: q.max,
            scales: q.scales.clone(),
            zero_points: q.zero_points.clone(),
            axis: q.axis,
            block_shape: q.block_shape.clone(),
        }
    }

    /// The kernel form, or what is wrong with it.
    pub fn to_qparams(&self) -> Result<QParams, String> {
        let dtype = DType::from_name(&self.storage)
            .filter(|d| d.is_int())
            .ok_or_else(|| format!("unknown storage type '{}'", self.storage))?;
        if self.scales.is_empty() || self.scales.len() != self.zero_points.len() {
            return Err(format!(
                "{} scales and {} zero points",
                self.scales.len(),
                self.zero_points.len()
            ));
        }
        if let Some(s) = self.scales.iter().find(|s| !(s.is_finite() && **s > 0.0)) {
            return Err(format!("scale {s} is not a positive number"));
        }
        if self.min > self.max || self.bits == 0 || self.bits > 64 {
            return Err(format!(
                "range [{}, {}] of {} bits",
                self.min, self.max, self.bits
            ));
        }
        if self.axis.is_none() && self.block_shape.is_none() && self.scales.len() != 1 {
            return Err(format!(
                "{} scales for a per-tensor type",
                self.scales.len()
            ));
        }
        Ok(QParams {
            dtype,
            min: self.min,
            max: self.max,
            bits: self.bits,
            scales: self.scales.clone(),
            zero_points: self.zero_points.clone(),
            axis: self.axis,
            block_shape: self.block_shape.clone(),
        })
    }
}

/// A cast between segments, run by the runtime itself with nart-tensor's exact kernels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CastStep {
    /// The value cast.
    pub reads: String,
    /// The value it defines.
    pub writes: String,
    /// The quantization of the quantized side.
    pub quant: QuantSpec,
    /// The float type of the float side (`f32`).
    pub float: String,
}

/// One step of the execution order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Step {
    /// A compiled segment.
    Segment(SegmentStep),
    /// `float -> quantized` (`quant.qcast`).
    Quantize(CastStep),
    /// `quantized -> float` (`quant.dcast`).
    Dequantize(CastStep),
}

impl Step {
    /// The values it reads.
    pub fn reads(&self) -> Vec<&str> {
        match self {
            Step::Segment(s) => s.reads.iter().map(String::as_str).collect(),
            Step::Quantize(c) | Step::Dequantize(c) => vec![c.reads.as_str()],
        }
    }

    /// The values it writes.
    pub fn writes(&self) -> Vec<&str> {
        match self {
            Step::Segment(s) => s.writes.iter().map(String::as_str).collect(),
            Step::Quantize(c) | Step::Dequantize(c) => vec![c.writes.as_str()],
        }
    }

    /// What it is, for messages: `segment #2 (interp)`, `quantize`.
    pub fn describe(&self, index: usize) -> String {
        match self {
            Step::Segment(s) => format!("step #{index} (segment on '{}')", s.target),
            Step::Quantize(_) => format!("step #{index} (quantize)"),
            Step::Dequantize(_) => format!("step #{index} (dequantize)"),
        }
    }
}

/// Where a blob lies in the package's data section, and its checksum.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlobRef {
    /// Bytes from the start of the data section (a multiple of the alignment).
    pub offset: u64,
    /// Its length in bytes.
    pub length: u64,
    /// The CRC-32 of its bytes.
    pub crc32: u32,
}

/// What a package holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The nart version that wrote the package.
    pub nart_version: String,
    /// The model's name (the ONNX graph name), if it has one.
    #[serde(default)]
    pub model: String,
    /// The model's inputs, in order.
    pub inputs: Vec<TensorSpec>,
    /// The model's outputs, in order.
    pub outputs: Vec<TensorSpec>,
    /// The targets the segments use, in order of first use.
    pub targets: Vec<TargetInfo>,
    /// The steps, in execution order.
    pub steps: Vec<Step>,
    /// The blobs of the data section.
    pub blobs: Vec<BlobRef>,
    /// Free-form notes (`quantization`: the scheme and calibrator).
    #[serde(default)]
    pub notes: BTreeMap<String, String>,
}

impl Manifest {
    /// Checks the manifest's own consistency: known dtypes, unique input names, every name
    /// read defined before (by an input or an earlier step) and written once, every output
    /// defined, every segment's blob and target listed, valid quantization parameters.
    pub fn check(&self) -> Result<(), String> {
        let mut defined: HashSet<&str> = HashSet::new();
        for (i, t) in self.inputs.iter().enumerate() {
            if t.dtype().is_none() {
                return Err(format!(
                    "input #{i} '{}' has unknown dtype '{}'",
                    t.name, t.dtype
                ));
            }
            if !defined.insert(&t.name) {
                return Err(format!("input name '{}' appears twice", t.name));
            }
        }
        let targets: HashMap<&str, &str> = self
            .targets
            .iter()
            .map(|t| (t.name.as_str(), t.sdk_version.as_str()))
            .collect();
        for (i, step) in self.steps.iter().enumerate() {
            let what = step.describe(i);
            for r in step.reads() {
                if !defined.contains(r) {
                    return Err(format!(
                        "{what} reads '{r}', which nothing before it defines"
                    ));
                }
            }
            for w in step.writes() {
                if !defined.insert(w) {
                    return Err(format!("{what} writes '{w}', which is already defined"));
                }
            }
            match step {
                Step::Segment(s) => {
                    if s.blob >= self.blobs.len() {
                        return Err(format!(
                            "{what} uses blob #{}, but the package has {} blobs",
                            s.blob,
                            self.blobs.len()
                        ));
                    }
                    if !targets.contains_key(s.target.as_str()) {
                        return Err(format!(
                            "{what}: target '{}' is not in the manifest's targets",
                            s.target
                        ));
                    }
                }
                Step::Quantize(c) | Step::Dequantize(c) => {
                    c.quant.to_qparams().map_err(|e| format!("{what}: {e}"))?;
                    if !DType::from_name(&c.float).is_some_and(|d| d.is_float()) {
                        return Err(format!("{what}: '{}' is not a float type", c.float));
                    }
                }
            }
        }
        for (i, t) in self.outputs.iter().enumerate() {
            if t.dtype().is_none() {
                return Err(format!(
                    "output #{i} '{}' has unknown dtype '{}'",
                    t.name, t.dtype
                ));
            }
            if !defined.contains(t.value()) {
                return Err(format!(
                    "output #{i} '{}' returns '{}', which no input or step defines",
                    t.name,
                    t.value()
                ));
            }
        }
        Ok(())
    }

    /// The segments, in execution order.
    pub fn segments(&self) -> impl Iterator<Item = &SegmentStep> {
        self.steps.iter().filter_map(|s| match s {
            Step::Segment(s) => Some(s),
            _ => None,
        })
    }
}
