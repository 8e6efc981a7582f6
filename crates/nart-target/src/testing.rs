//! Targets for tests: [`FakeTarget`], a configurable stand-in for a device, and the
//! registrations that make the test targets known to a tool (as `mlir-opt` links its test
//! passes).
//!
//! A fake target runs a list of graph op types, in `f32` only; an `int8` one also wants every
//! `f32` tensor at its boundaries quantized (per tensor, symmetric, scale 1/32), which makes the
//! partitioner insert quantize/dequantize casts. Its artifacts are the same MLIR text as
//! `interp`'s, and its runtime runs them in the interpreter.

use nart_dialect_quant::UniformQuantizedType;
use nart_ir::{Context, Diagnostic, Op, TypeData, Value};
use nart_target_rt::{Artifact, Executable, RtError, TargetRuntime};

use crate::interp::{segment_as_function, InterpRuntime};
use crate::target::{IoPrecision, Layout, Level, Refusal, Support, Target, Throughput};
use crate::TargetRegistry;

/// A stand-in for a device, for tests.
#[derive(Clone, Debug)]
pub struct FakeTarget {
    name: String,
    description: String,
    ops: Vec<String>,
    int8: bool,
    throughput: Throughput,
    layout: Option<Layout>,
}

/// The scale of a fake `int8` target's boundary tensors.
pub const INT8_SCALE: f64 = 1.0 / 32.0;

impl FakeTarget {
    /// The test chip of the partitioner's tests: `Conv`, `Relu` and `Add` in `f32`, with `int8`
    /// boundaries.
    pub fn int8(name: &str) -> FakeTarget {
        FakeTarget {
            name: name.to_string(),
            description: "test only: graph.Conv, graph.Relu, graph.Add on f32, int8 at its \
                          boundaries"
                .to_string(),
            ops: ["Conv", "Relu", "Add"].map(String::from).to_vec(),
            int8: true,
            throughput: Throughput::default(),
            layout: None,
        }
    }

    /// A target that runs the graph ops `ops` (ONNX names: `Relu`) on `f32`, with float
    /// boundaries.
    pub fn float(name: &str, ops: &[&str]) -> FakeTarget {
        FakeTarget {
            name: name.to_string(),
            description: format!("test only: {} on f32", ops.join(", ")),
            ops: ops.iter().map(|s| s.to_string()).collect(),
            int8: false,
            throughput: Throughput::default(),
            layout: None,
        }
    }

    /// The same target asking for its segments in `layout` ([`Target::preferred_layout`]);
    /// its compiler takes the converted segment as it comes.
    pub fn with_layout(mut self, layout: Layout) -> FakeTarget {
        self.layout = Some(layout);
        self
    }

    /// The same target with other cost-model numbers.
    pub fn with_throughput(mut self, throughput: Throughput) -> FakeTarget {
        self.throughput = throughput;
        self
    }
}

fn is_f32_tensor(ctx: &Context, v: Value) -> bool {
    let ty = ctx.value_type(v);
    matches!(
        ctx.type_data(ty),
        TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. }
    ) && matches!(
        ctx.type_data(ctx.element_type(ty)),
        TypeData::Float(nart_ir::FloatKind::F32)
    )
}

impl Target for FakeTarget {
    fn name(&self) -> &str {
        &self.name
    }

    fn level(&self) -> Level {
        Level::Net
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn quant_scheme(&self) -> Option<&str> {
        self.int8.then_some("pow2")
    }

    fn preferred_layout(&self) -> Option<Layout> {
        self.layout
    }

    fn supports(&self, ctx: &Context, op: Op) -> Support {
        let Some(kind) = ctx
            .op_name_str(op)
            .strip_prefix("graph.")
            .filter(|k| self.ops.iter().any(|o| o == k))
        else {
            return Support::Refused(Refusal::UnknownOp);
        };
        let values = ctx
            .operands(op)
            .iter()
            .enumerate()
            .map(|(k, &v)| (format!("operand #{k}"), v))
            .chain(
                ctx.results(op)
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| (format!("result #{k}"), v)),
            );
        for (what, v) in values {
            let ty = ctx.value_type(v);
            if matches!(ctx.type_data(ty), TypeData::None) {
                continue;
            }
            if !is_f32_tensor(ctx, v) {
                return Support::Refused(Refusal::DType {
                    value: what,
                    dtype: nart_ir::printer::type_to_string(ctx, ctx.element_type(ty)),
                });
            }
        }
        if kind == "Conv" {
            if let Some(g) = ctx.attr(op, "group").and_then(|a| ctx.attr_int(a)) {
                if g != 1 {
                    return Support::Refused(Refusal::Attribute {
                        name: "group".into(),
                        value: g.to_string(),
                    });
                }
            }
            let input = ctx.value_type(ctx.operand(op, 0));
            if ctx.shape_of(input).is_none_or(|s| s.len() != 4) {
                return Support::Refused(Refusal::Shape {
                    value: "operand #0".into(),
                    shape: nart_ir::printer::type_to_string(ctx, input),
                });
            }
        }
        Support::Supported
    }

    fn throughput(&self) -> Throughput {
        self.throughput
    }

    fn io_precision(&self, ctx: &Context, value: Value) -> IoPrecision {
        if !self.int8 || !is_f32_tensor(ctx, value) {
            return IoPrecision::AsIs;
        }
        let f32_ty = ctx.element_type(ctx.value_type(value));
        IoPrecision::Quantized(UniformQuantizedType::per_tensor(
            8, true, f32_ty, INT8_SCALE, 0,
        ))
    }

    fn compile(&self, ctx: &mut Context, segment: Op) -> Result<Artifact, Diagnostic> {
        let text = segment_as_function(ctx, segment, crate::interp::ENTRY)?;
        Ok(Artifact::new(
            self.name.clone(),
            crate::interp::FORMAT,
            crate::interp::sdk_version(),
            text.into_bytes(),
        ))
    }

    fn runtime(&self) -> Box<dyn TargetRuntime> {
        Box::new(FakeRuntime {
            name: self.name.clone(),
        })
    }
}

/// Runs a fake target's artifacts in the interpreter.
struct FakeRuntime {
    name: String,
}

impl TargetRuntime for FakeRuntime {
    fn target(&self) -> &str {
        &self.name
    }

    fn load(&self, artifact: &Artifact) -> Result<Box<dyn Executable>, RtError> {
        let as_interp = Artifact {
            target: crate::interp::NAME.to_string(),
            ..artifact.clone()
        };
        InterpRuntime::new().load(&as_interp)
    }
}

/// The builtin targets plus the test ones: `test-int8` ([`FakeTarget::int8`]) and `test-f32`
/// (`Conv`, `Relu`, `Add`, `MaxPool` and `Gemm` on f32).
pub fn registry_with_test_targets() -> TargetRegistry {
    let mut r = TargetRegistry::builtin();
    r.register(Box::new(FakeTarget::int8("test-int8")));
    r.register(Box::new(FakeTarget::float(
        "test-f32",
        &["Conv", "Relu", "Add", "MaxPool", "Gemm"],
    )));
    r
}

/// Registers the passes of this crate with [`registry_with_test_targets`] as their targets
/// (for test tools such as `nart-opt`).
pub fn register_passes(registry: &mut nart_pass::PassRegistry) {
    registry.register(|| {
        Box::new(crate::pass::PartitionPass::with_targets(
            registry_with_test_targets,
        ))
    });
    registry.register(|| {
        Box::new(crate::pass::CompileSegmentsPass::with_targets(
            registry_with_test_targets,
        ))
    });
}
