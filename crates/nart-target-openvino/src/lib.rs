//! The compiler half of nart's `openvino` target: a net-level target on OpenVINO's CPU device.
//!
//! [`OpenvinoTarget::supports`] accepts the graph ops of [`OPS`] (ops OpenVINO's ONNX frontend
//! converts) whose operands and results are `f32`, `i32` or `i64` tensors of known rank
//! (dynamic dims included: OpenVINO compiles dynamic shapes), and refuses every other op with
//! the reason: an op it does not list, an element type (`f16`, `f64`, quantized types), an
//! unranked tensor, a subgraph, or the library missing. [`OpenvinoTarget::compile`] outlines a
//! segment as a function, writes it as a standalone ONNX model with [`nart_onnx::export_model`],
//! has OpenVINO compile that for its CPU device (fp32, latency hint) and exports the compiled
//! model: the artifact is OpenVINO's blob (format `openvino-blob`, with the device and the hints
//! in a small header) and OpenVINO's version, and the runtime half (`nart-openvino-rt`) imports
//! it at load instead of reading and compiling ONNX again. The blob imports only into the
//! OpenVINO version that exported it; loading it elsewhere is an error naming both versions.
//!
//! Portable artifacts: [`OpenvinoTarget::with_version`] (or `NART_OPENVINO_ARTIFACT=onnx`) keeps
//! the ONNX bytes instead (format `onnx`), which any OpenVINO reads and compiles at load; that
//! needs no library at compile time.
//!
//! OpenVINO is loaded at run time: where it is missing the target is registered all the same,
//! says it is unavailable ([`Target::availability`]) and refuses every op with that reason.

#![deny(missing_docs)]

use nart_interp::convert::tensor_type_info;
use nart_ir::printer::type_to_string;
use nart_ir::{Context, Diagnostic, Op, TypeData, Value};
use nart_openvino_rt::{OpenvinoRuntime, BLOB_FORMAT, FORMAT, NAME};
use nart_target::rt::{Artifact, TargetRuntime};
use nart_target::{Level, Refusal, Support, Target, TargetRegistry, Throughput};
use nart_tensor::DType;

/// The ONNX op types (of the default domain) the target places on OpenVINO, in `f32` (and
/// `i32`/`i64` for indices and shapes).
pub const OPS: &[&str] = &[
    // Element-wise, unary.
    "Abs",
    "Ceil",
    "Clip",
    "Cos",
    "Elu",
    "Erf",
    "Exp",
    "Floor",
    "Gelu",
    "HardSigmoid",
    "HardSwish",
    "Identity",
    "LeakyRelu",
    "Log",
    "Neg",
    "Reciprocal",
    "Relu",
    "Selu",
    "Sigmoid",
    "Sin",
    "Softplus",
    "Sqrt",
    "Tanh",
    // Element-wise, binary and variadic (with broadcasting).
    "Add",
    "Div",
    "Max",
    "Min",
    "Mul",
    "Pow",
    "PRelu",
    "Sub",
    // Linear algebra.
    "Conv",
    "ConvTranspose",
    "Gemm",
    "MatMul",
    // Pooling.
    "AveragePool",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "MaxPool",
    // Normalization and softmax.
    "BatchNormalization",
    "InstanceNormalization",
    "LayerNormalization",
    "LogSoftmax",
    "Softmax",
    // Reductions.
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceSum",
    // Shapes and data movement.
    "Concat",
    "Expand",
    "Flatten",
    "Gather",
    "Reshape",
    "Shape",
    "Slice",
    "Split",
    "Squeeze",
    "Tile",
    "Transpose",
    "Unsqueeze",
];

/// Whether `v` is a tensor of an element type the target runs.
fn element_ok(ctx: &Context, v: Value) -> bool {
    matches!(
        tensor_type_info(ctx, ctx.value_type(v)),
        Some((Some(DType::F32 | DType::I32 | DType::I64), _))
    )
}

/// Why `v` (called `what`) cannot cross into or live in an OpenVINO segment, if it cannot.
fn check_value(ctx: &Context, v: Value, what: &str) -> Result<(), Refusal> {
    let ty = ctx.value_type(v);
    match ctx.type_data(ty) {
        // An absent optional operand.
        TypeData::None => Ok(()),
        TypeData::RankedTensor { .. } => {
            if element_ok(ctx, v) {
                Ok(())
            } else {
                Err(Refusal::DType {
                    value: what.to_string(),
                    dtype: type_to_string(ctx, ctx.element_type(ty)),
                })
            }
        }
        TypeData::UnrankedTensor { .. } => Err(Refusal::Shape {
            value: what.to_string(),
            shape: format!("{} (unranked)", type_to_string(ctx, ty)),
        }),
        _ => Err(Refusal::DType {
            value: what.to_string(),
            dtype: type_to_string(ctx, ty),
        }),
    }
}

/// Whether OpenVINO runs `op` (setting the library aside): the op type, the element types of
/// its operands and results, no subgraphs, and no optional results OpenVINO's ONNX frontend
/// does not produce.
pub fn op_support(ctx: &Context, op: Op) -> Result<(), Refusal> {
    let name = ctx.op_name_str(op);
    if name.starts_with("qnn.") || name.starts_with("quant.") {
        return Err(Refusal::Other(
            "quantized ops are not offered: the openvino target runs f32 segments".to_string(),
        ));
    }
    let Some(kind) = name.strip_prefix("graph.") else {
        return Err(Refusal::UnknownOp);
    };
    if !OPS.contains(&kind) {
        return Err(Refusal::UnknownOp);
    }
    if !ctx.regions(op).is_empty() {
        return Err(Refusal::Other(
            "ops with subgraphs are not offered".to_string(),
        ));
    }
    let results = ctx.results(op);
    // MaxPool's indices, the training statistics of BatchNormalization and the mean and
    // inverse deviation of LayerNormalization: present only as `none` here.
    if matches!(
        kind,
        "MaxPool" | "BatchNormalization" | "LayerNormalization"
    ) {
        for (i, &r) in results.iter().enumerate().skip(1) {
            if !matches!(ctx.type_data(ctx.value_type(r)), TypeData::None) {
                return Err(Refusal::Other(format!(
                    "{kind}'s result #{i} is used (only its first result is offered)"
                )));
            }
        }
    }
    for (i, &v) in ctx.operands(op).iter().enumerate() {
        check_value(ctx, v, &format!("operand #{i}"))?;
    }
    for (i, &v) in results.iter().enumerate() {
        check_value(ctx, v, &format!("result #{i}"))?;
    }
    Ok(())
}

/// The `openvino` target.
#[derive(Clone, Debug)]
pub struct OpenvinoTarget {
    /// The SDK version, or why OpenVINO cannot be loaded.
    sdk: Result<String, String>,
    /// Whether artifacts are compiled blobs (else ONNX models).
    blobs: bool,
}

/// The environment variable that makes [`OpenvinoTarget::new`] keep ONNX models (`onnx`)
/// instead of compiled blobs (`blob`, the default).
pub const ARTIFACT_ENV: &str = "NART_OPENVINO_ARTIFACT";

impl Default for OpenvinoTarget {
    fn default() -> Self {
        OpenvinoTarget::new()
    }
}

impl OpenvinoTarget {
    /// The target, on the OpenVINO this process can load (if any). Its artifacts are compiled
    /// blobs, unless [`ARTIFACT_ENV`] is `onnx`.
    pub fn new() -> OpenvinoTarget {
        let onnx = std::env::var(ARTIFACT_ENV).is_ok_and(|v| v.trim() == "onnx");
        OpenvinoTarget {
            sdk: nart_openvino_rt::availability(),
            blobs: !onnx,
        }
    }

    /// The target as if OpenVINO could not be loaded for `reason` (for tests of the refusal).
    pub fn unavailable(reason: &str) -> OpenvinoTarget {
        OpenvinoTarget {
            sdk: Err(reason.to_string()),
            blobs: false,
        }
    }

    /// The target as if OpenVINO `version` were loaded, producing portable ONNX artifacts: this
    /// needs no library, so it compiles segments anywhere (tests, packages built for another
    /// machine), and the runtime compiles them at load.
    pub fn with_version(version: &str) -> OpenvinoTarget {
        OpenvinoTarget {
            sdk: Ok(format!("{}{version}", nart_openvino_rt::SDK_PREFIX)),
            blobs: false,
        }
    }

    /// The format of the artifacts it produces (`openvino-blob` or `onnx`).
    pub fn artifact_format(&self) -> &'static str {
        if self.blobs {
            BLOB_FORMAT
        } else {
            FORMAT
        }
    }

    /// The SDK version its artifacts carry (`OpenVINO 2026.4.1-...`), or why there is none.
    pub fn sdk_version(&self) -> Result<&str, &str> {
        self.sdk.as_deref().map_err(|e| e.as_str())
    }
}

/// Registers the `openvino` target in `registry`.
pub fn register(registry: &mut TargetRegistry) {
    registry.register(Box::new(OpenvinoTarget::new()));
}

/// `segment` (a `target.segment`) as the bytes of a standalone ONNX model: its inputs are the
/// segment's operands and its outputs the segment's results, in order; its constants are
/// initializers. The same segment always gives the same bytes.
pub fn segment_to_onnx(ctx: &mut Context, segment: Op) -> Result<Vec<u8>, Diagnostic> {
    nart_dialect_func::register(ctx);
    let func = nart_target::interp::outline_segment(ctx, segment, "main_graph")?;
    let bytes = nart_onnx::export_model(ctx, func);
    ctx.erase_op(func);
    bytes.map_err(|mut d| {
        d.message = format!("openvino: exporting the segment as ONNX: {}", d.message);
        d
    })
}

impl Target for OpenvinoTarget {
    fn name(&self) -> &str {
        NAME
    }

    fn level(&self) -> Level {
        Level::Net
    }

    fn description(&self) -> &str {
        "OpenVINO's CPU device (libopenvino_c from the openvino wheel, loaded at run time), \
         segments compiled by OpenVINO and stored as its blobs: conv, matmul/gemm, pooling, \
         norms, softmax, eltwise, reductions, shape ops; f32"
    }

    fn availability(&self) -> Result<(), String> {
        self.sdk.as_ref().map(|_| ()).map_err(Clone::clone)
    }

    fn prepare(&self, ctx: &mut Context) {
        nart_dialect_func::register(ctx);
    }

    fn supports(&self, ctx: &Context, op: Op) -> Support {
        match op_support(ctx, op) {
            Err(r) => Support::Refused(r),
            Ok(()) => match &self.sdk {
                Ok(_) => Support::Supported,
                Err(e) => Support::Refused(Refusal::Other(format!("OpenVINO is unavailable: {e}"))),
            },
        }
    }

    fn throughput(&self) -> Throughput {
        // OpenVINO's CPU plugin fuses ops and runs vectorized kernels on every core; one
        // inference call costs tens of microseconds whatever the segment holds.
        Throughput {
            flops_per_s: 6e10,
            bytes_per_s: 2e10,
            op_overhead_s: 5e-7,
            segment_overhead_s: 3e-5,
            ..Throughput::default()
        }
    }

    fn compile(&self, ctx: &mut Context, segment: Op) -> Result<Artifact, Diagnostic> {
        let sdk = self
            .sdk
            .as_ref()
            .map_err(|e| ctx.op_error(segment, format!("OpenVINO is unavailable: {e}")))?
            .clone();
        let onnx = segment_to_onnx(ctx, segment)?;
        if !self.blobs {
            return Ok(Artifact::new(NAME, FORMAT, sdk, onnx));
        }
        let blob = nart_openvino_rt::compile_blob(&onnx)
            .map_err(|e| ctx.op_error(segment, format!("openvino: compiling the segment: {e}")))?;
        Ok(Artifact::new(NAME, BLOB_FORMAT, sdk, blob))
    }

    fn runtime(&self) -> Box<dyn TargetRuntime> {
        Box::new(OpenvinoRuntime)
    }
}
