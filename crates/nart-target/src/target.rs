//! The [`Target`] trait: what a target says about itself, which ops it runs (and why not the
//! others), what running them costs, which precision it wants at its boundaries, how it
//! compiles a segment, and the runtime that loads what it compiles.

use std::fmt;

use nart_dialect_quant::UniformQuantizedType;
use nart_ir::interfaces::{OpCost, OpCostInterface};
use nart_ir::{Context, Diagnostic, Op, Value};
use nart_target_rt::{Artifact, TargetRuntime};

/// The bytes of a tensor value of static shape (0 for a value that is not a tensor: `none`),
/// or `None` when its shape is dynamic or unknown.
pub fn value_bytes(ctx: &Context, v: Value) -> Option<f64> {
    match nart_interp::convert::tensor_type_info(ctx, ctx.value_type(v)) {
        None => Some(0.0),
        Some((dtype, Some(dims))) => {
            let n: Option<usize> = dims.into_iter().product();
            let size = dtype.map(nart_tensor::elem_bytes).unwrap_or(4);
            n.map(|n| (n * size) as f64)
        }
        Some((_, None)) => None,
    }
}

/// How a target integrates a device (see `docs/targets.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// nart generates the code (LLVM for a CPU or GPU).
    Code,
    /// nart calls a kernel library op by op (oneDNN, cuDNN).
    Op,
    /// nart hands a whole subgraph to the vendor's compiler and keeps what it returns.
    Net,
}

impl Level {
    /// `code`, `op` or `net`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Code => "code",
            Level::Op => "op",
            Level::Net => "net",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A data layout a target wants its segments' convolution regions in
/// ([`Target::preferred_layout`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Channels first (ONNX's own): nothing to convert.
    Nchw,
    /// Channels last: convolutions, pools and BatchNorms of the segment as `graph-layout
    /// {layout=nhwc}` makes them (`graph.fused_conv`/`graph.pool` with `layout = "nhwc"`),
    /// Transposes only at the region's borders.
    Nhwc,
    /// Channels in blocks of 8 (`[N, C/8, H, W, 8]`): the segment's convolution regions as
    /// `graph-layout{layout=nchw8c}` makes them, `graph.reorder`s only at their borders.
    Nchw8c,
    /// Channels in blocks of 16 (`graph-layout{layout=nchw16c}`).
    Nchw16c,
}

impl Layout {
    /// The keyword of `graph-layout`'s `layout` option (`nhwc`).
    pub fn keyword(self) -> &'static str {
        match self {
            Layout::Nchw => "nchw",
            Layout::Nhwc => "nhwc",
            Layout::Nchw8c => "nchw8c",
            Layout::Nchw16c => "nchw16c",
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

/// Why a target does not run an op.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// The target does not know the op at all.
    UnknownOp,
    /// A value has an element type the target does not run.
    DType {
        /// Which value (`operand #0`, `result #1`).
        value: String,
        /// Its element type (`f64`).
        dtype: String,
    },
    /// A value has a shape the target does not run (a rank, a dynamic dimension, a size).
    Shape {
        /// Which value.
        value: String,
        /// Its shape (`tensor<?x3xf32>`, `rank 6`).
        shape: String,
    },
    /// An attribute has a value the target does not run.
    Attribute {
        /// The attribute's name.
        name: String,
        /// Its value, as text.
        value: String,
    },
    /// The op needs a version (of the op set, of the SDK) the target does not have.
    Version {
        /// What is needed (`opset 21`).
        required: String,
        /// What the target has (`opset 18`).
        available: String,
    },
    /// Anything else, in words.
    Other(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::UnknownOp => f.write_str("op not supported"),
            Refusal::DType { value, dtype } => {
                write!(f, "element type {dtype} of {value} not supported")
            }
            Refusal::Shape { value, shape } => write!(f, "shape {shape} of {value} not supported"),
            Refusal::Attribute { name, value } => {
                write!(f, "attribute {name} = {value} not supported")
            }
            Refusal::Version {
                required,
                available,
            } => write!(f, "needs {required}, target has {available}"),
            Refusal::Other(s) => f.write_str(s),
        }
    }
}

/// Whether a target runs an op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Support {
    /// It does.
    Supported,
    /// It does not, for this reason.
    Refused(Refusal),
}

impl Support {
    /// Whether the op is supported.
    pub fn is_supported(&self) -> bool {
        matches!(self, Support::Supported)
    }
}

/// `Ok` is [`Support::Supported`], an error the refusal: a target's checks can be a function
/// returning `Result<(), Refusal>` that refuses with `?`.
impl From<Result<(), Refusal>> for Support {
    fn from(r: Result<(), Refusal>) -> Support {
        match r {
            Ok(()) => Support::Supported,
            Err(why) => Support::Refused(why),
        }
    }
}

/// What a target achieves, for the default cost model: a roofline (the slower of compute and
/// memory traffic), plus fixed overheads per op and per segment, plus moving boundary tensors
/// to and from the device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Throughput {
    /// Arithmetic operations per second.
    pub flops_per_s: f64,
    /// Bytes read or written per second.
    pub bytes_per_s: f64,
    /// Seconds every op costs besides its work (dispatch, a kernel launch).
    pub op_overhead_s: f64,
    /// Seconds every segment costs besides its ops (a call into the SDK, synchronisation).
    pub segment_overhead_s: f64,
    /// Bytes per second moved between the host and the device at a segment's boundary
    /// (infinite for a target that runs in host memory).
    pub transfer_bytes_per_s: f64,
}

impl Default for Throughput {
    /// A modest CPU core running in host memory.
    fn default() -> Self {
        Throughput {
            flops_per_s: 1e10,
            bytes_per_s: 1e10,
            op_overhead_s: 1e-6,
            segment_overhead_s: 0.0,
            transfer_bytes_per_s: f64::INFINITY,
        }
    }
}

impl Throughput {
    /// The seconds an op of cost `c` takes here.
    pub fn op_seconds(&self, c: OpCost) -> f64 {
        self.op_overhead_s + (c.flops / self.flops_per_s).max(c.bytes / self.bytes_per_s)
    }

    /// The seconds moving `bytes` across a segment boundary takes here.
    pub fn transfer_seconds(&self, bytes: f64) -> f64 {
        bytes / self.transfer_bytes_per_s
    }
}

/// The estimated cost of running an op on a target.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    /// Estimated seconds.
    pub seconds: f64,
}

/// The precision a target wants a value in where it crosses one of its segments' boundaries.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IoPrecision {
    /// As the graph has it (the value's own type).
    AsIs,
    /// Quantized to this type (per tensor or per axis); its expressed type is the value's
    /// element type. The partitioner puts a `quant.qcast` where the value enters in this
    /// precision and a `quant.dcast` where it leaves.
    Quantized(UniformQuantizedType),
}

/// A target: a plug-in behind this trait, registered by name in a
/// [`TargetRegistry`](crate::TargetRegistry).
///
/// Only [`name`](Target::name), [`level`](Target::level),
/// [`description`](Target::description), [`supports`](Target::supports),
/// [`compile`](Target::compile) and [`runtime`](Target::runtime) must be written; the rest has
/// defaults (no quantization scheme, the default cost model on
/// [`throughput`](Target::throughput), every boundary value as the graph has it).
pub trait Target: Send + Sync {
    /// The name users type (`--targets interp,npu`): lowercase, no commas or `=`.
    fn name(&self) -> &str;

    /// How the target integrates its device.
    fn level(&self) -> Level;

    /// One line for `nart targets`.
    fn description(&self) -> &str;

    /// Whether the target can compile and run here: `Err(reason)` when what it needs is
    /// missing (a library loaded at run time, a device), which `nart targets` prints and
    /// `--targets auto` skips. An unavailable target stays registered so that its name is
    /// known; it refuses every op with the reason.
    fn availability(&self) -> Result<(), String> {
        Ok(())
    }

    /// The quantization scheme the target wants its segments in (a name in the scheme
    /// registry), if any.
    fn quant_scheme(&self) -> Option<&str> {
        None
    }

    /// The data layout the target wants each of its segments in before it compiles it, if
    /// any (the default: none, the segment as the graph has it). With `Some(layout)`, the
    /// compile flow (`nart compile`, through `nart_graph_opt::layout::convert_segment`)
    /// converts the segment's body with `graph-layout{layout=...}` and checks it with the
    /// verifier before [`compile`](Target::compile) sees it: the segment's operands and
    /// results keep their types, and Transposes sit at its borders. [`supports`](Target::supports)
    /// is asked about the ops as the graph has them; [`compile`](Target::compile) must then
    /// take their converted forms (`graph.fused_conv`/`graph.pool` with `layout = "nhwc"`,
    /// `Transpose`, `Reshape`, `Mul`/`Add` of constants, `ReduceMean`/`ReduceMax`).
    fn preferred_layout(&self) -> Option<Layout> {
        None
    }

    /// Registers in `ctx` what [`supports`](Target::supports) and
    /// [`compile`](Target::compile) need (dialects, attached interfaces). The partitioner calls
    /// it before asking anything else; it must be idempotent.
    fn prepare(&self, ctx: &mut Context) {
        let _ = ctx;
    }

    /// Whether the target runs `op` (a top-level op of a graph function, with its regions).
    fn supports(&self, ctx: &Context, op: Op) -> Support;

    /// The numbers of the default cost model.
    fn throughput(&self) -> Throughput {
        Throughput::default()
    }

    /// The estimated cost of running `op` here, or `None` when it cannot be estimated (dynamic
    /// shapes). The default applies [`throughput`](Target::throughput) to the op's
    /// [`OpCostInterface`].
    fn cost(&self, ctx: &Context, op: Op) -> Option<Cost> {
        let c = ctx.op_interface::<dyn OpCostInterface>(op)?.cost(ctx, op)?;
        Some(Cost {
            seconds: self.throughput().op_seconds(c),
        })
    }

    /// The estimated bytes a segment of `ops` (in block order) holds while it runs, besides
    /// the weights (which every target keeps once), or `None` when shapes are dynamic. The
    /// default suits a target that frees a value after its last use: the largest single op's
    /// operands and results. `--targets auto --goal memory` compares these.
    fn memory_bytes(&self, ctx: &Context, ops: &[Op]) -> Option<f64> {
        let mut peak: f64 = 0.0;
        for &op in ops {
            let mut here = 0.0;
            for &v in ctx.operands(op).iter().chain(ctx.results(op)) {
                here += value_bytes(ctx, v)?;
            }
            peak = peak.max(here);
        }
        Some(peak)
    }

    /// The precision the target wants `value` in where it enters or leaves one of its segments
    /// (the hook behind automatic quantize/dequantize at boundaries).
    fn io_precision(&self, ctx: &Context, value: Value) -> IoPrecision {
        let _ = (ctx, value);
        IoPrecision::AsIs
    }

    /// Compiles `segment` (a `target.segment` placed on this target) into an artifact.
    /// It may create scratch IR in `ctx` but must leave the segment as it found it.
    fn compile(&self, ctx: &mut Context, segment: Op) -> Result<Artifact, Diagnostic>;

    /// The runtime that loads this target's artifacts.
    fn runtime(&self) -> Box<dyn TargetRuntime>;
}
