//! The `interp` target: nart's reference interpreter as a target, and the fallback of every
//! partition.
//!
//! It runs every op that has a [`ReferenceKernel`] (with the ops nested in its regions).
//! Compiling a segment serialises it as MLIR text: a `func.func @segment` whose body is the
//! segment's region; loading parses that text into a context of its own and plans it with
//! [`nart_interp::Interpreter`], so a run does no parsing or planning.

use nart_interp::{InterpError, Interpreter, ReferenceKernel};
use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::{Context, Diagnostic, IrMapping, Op, Trait};
use nart_target_rt::{Artifact, Executable, RtError, TargetRuntime};
use nart_tensor::Tensor;

use crate::target::{Level, Refusal, Support, Target, Throughput};

/// The target's name.
pub const NAME: &str = "interp";
/// The format of its artifacts.
pub const FORMAT: &str = "mlir-text";
/// The name of the function an artifact holds.
pub const ENTRY: &str = "segment";

/// The SDK version its artifacts carry: nart's own.
pub fn sdk_version() -> String {
    format!("nart {}", env!("CARGO_PKG_VERSION"))
}

/// The reference interpreter as a target.
#[derive(Clone, Copy, Debug, Default)]
pub struct InterpTarget;

impl InterpTarget {
    /// The target.
    pub fn new() -> InterpTarget {
        InterpTarget
    }
}

/// Whether the interpreter runs a nested op: one with a reference kernel, a constant, an
/// operand-less pure op (`graph.none`), or the terminator that returns a region's values.
fn runs_nested(ctx: &Context, op: Op) -> bool {
    ctx.op_interface::<dyn ReferenceKernel>(op).is_some()
        || ctx.op_has_trait(op, Trait::ConstantLike)
        || ctx.op_has_trait(op, Trait::ReturnLike)
        || (ctx.op_has_trait(op, Trait::Pure)
            && ctx.operands(op).is_empty()
            && ctx.regions(op).is_empty())
}

impl Target for InterpTarget {
    fn name(&self) -> &str {
        NAME
    }

    fn level(&self) -> Level {
        Level::Op
    }

    fn description(&self) -> &str {
        "nart's reference interpreter: every op with a reference kernel (the fallback)"
    }

    fn prepare(&self, ctx: &mut Context) {
        let registered = ctx.lookup_ident("graph.Add").is_some_and(|id| {
            ctx.op_interface_by_name::<dyn ReferenceKernel>(id)
                .is_some()
        });
        if !registered {
            nart_interp::register(ctx);
        }
    }

    fn supports(&self, ctx: &Context, op: Op) -> Support {
        if ctx.op_interface::<dyn ReferenceKernel>(op).is_none() {
            return Support::Refused(Refusal::UnknownOp);
        }
        for nested in ctx.nested_ops(op) {
            if !runs_nested(ctx, nested) {
                return Support::Refused(Refusal::Other(format!(
                    "nested op '{}' has no reference kernel",
                    ctx.op_name_str(nested)
                )));
            }
        }
        Support::Supported
    }

    fn throughput(&self) -> Throughput {
        // The interpreter computes in plain loops (f32 GEMM aside) and allocates every result.
        Throughput {
            flops_per_s: 2e9,
            bytes_per_s: 4e9,
            op_overhead_s: 2e-6,
            ..Throughput::default()
        }
    }

    fn compile(&self, ctx: &mut Context, segment: Op) -> Result<Artifact, Diagnostic> {
        let text = segment_as_function(ctx, segment, ENTRY)?;
        Ok(Artifact::new(
            NAME,
            FORMAT,
            sdk_version(),
            text.into_bytes(),
        ))
    }

    fn runtime(&self) -> Box<dyn TargetRuntime> {
        Box::new(InterpRuntime::new())
    }
}

/// Prints the region of `segment` as `func.func @name(...)`: the segment's body with its
/// `target.yield` as `func.return`. The function is scratch IR, erased before returning.
pub fn segment_as_function(
    ctx: &mut Context,
    segment: Op,
    name: &str,
) -> Result<String, Diagnostic> {
    let loc = ctx.op_loc(segment);
    let Some(&body) = ctx.region_blocks(ctx.region(segment, 0)).first() else {
        return Err(ctx.op_error(segment, "has an empty body"));
    };
    let inputs: Vec<_> = ctx
        .block_args(body)
        .iter()
        .map(|&a| ctx.value_type(a))
        .collect();
    let results: Vec<_> = ctx
        .results(segment)
        .iter()
        .map(|&r| ctx.value_type(r))
        .collect();
    let (func, entry) = nart_dialect_func::build_func(ctx, name, &inputs, &results, loc);
    let mut map = IrMapping::default();
    for (&a, &b) in ctx
        .block_args(body)
        .to_vec()
        .iter()
        .zip(ctx.block_args(entry).to_vec().iter())
    {
        map.values.insert(a, b);
    }
    let ops = ctx.block_ops(body);
    let Some((&yield_op, ops)) = ops.split_last() else {
        return Err(ctx.op_error(segment, "has an empty body"));
    };
    for &op in ops {
        let new = ctx.clone_op(op, &mut map);
        ctx.append_op(entry, new);
    }
    let returned: Vec<_> = ctx
        .operands(yield_op)
        .iter()
        .map(|&v| map.lookup_value(v))
        .collect();
    let ret = nart_dialect_func::build_return(ctx, &returned, ctx.op_loc(yield_op));
    ctx.append_op(entry, ret);
    let text = print_op(ctx, func, &PrintOptions::default());
    ctx.erase_op(func);
    Ok(text)
}

/// Loads `interp` artifacts: parses the function in a context of its own (with the dialects
/// and reference kernels of `registrations`) and plans it.
#[derive(Clone, Debug)]
pub struct InterpRuntime {
    registrations: Vec<fn(&mut Context)>,
}

impl Default for InterpRuntime {
    fn default() -> Self {
        InterpRuntime::new()
    }
}

impl InterpRuntime {
    /// A runtime that knows the `func`, `graph` and `quant` dialects and the interpreter's
    /// kernels.
    pub fn new() -> InterpRuntime {
        InterpRuntime {
            registrations: vec![
                nart_dialect_func::register,
                nart_dialect_graph::register,
                nart_dialect_quant::register,
                nart_interp::register,
            ],
        }
    }

    /// Adds a registration (a dialect, or reference kernels attached to its ops) run on the
    /// context of every artifact it loads.
    pub fn with_registration(mut self, register: fn(&mut Context)) -> InterpRuntime {
        self.registrations.push(register);
        self
    }
}

impl TargetRuntime for InterpRuntime {
    fn target(&self) -> &str {
        NAME
    }

    fn load(&self, artifact: &Artifact) -> Result<Box<dyn Executable>, RtError> {
        artifact.expect_format(FORMAT)?;
        if !artifact.sdk_version.starts_with("nart ") {
            return Err(RtError::Version {
                target: NAME.into(),
                got: artifact.sdk_version.clone(),
                supported: "nart's".into(),
            });
        }
        let text = std::str::from_utf8(&artifact.bytes)
            .map_err(|e| RtError::corrupt(NAME, format!("the MLIR text is not UTF-8: {e}")))?;
        let mut ctx = Context::new();
        for r in &self.registrations {
            r(&mut ctx);
        }
        let render = |ctx: &Context, diags: &[Diagnostic]| {
            diags
                .iter()
                .map(|d| {
                    format!(
                        "{}: {}",
                        nart_ir::printer::loc_to_string(ctx, d.loc),
                        d.message
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        let module = nart_ir::parser::parse_source(&mut ctx, "artifact.mlir", text)
            .map_err(|d| RtError::corrupt(NAME, render(&ctx, &d)))?;
        nart_ir::verify::verify(&ctx, module)
            .map_err(|d| RtError::corrupt(NAME, render(&ctx, &d)))?;
        let interp = Interpreter::from_module(&ctx, module, Some(ENTRY))
            .map_err(|e| RtError::corrupt(NAME, e.to_string()))?;
        Ok(Box::new(InterpExecutable { interp }))
    }
}

/// A planned `interp` artifact.
#[derive(Debug)]
pub struct InterpExecutable {
    interp: Interpreter,
}

impl Executable for InterpExecutable {
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RtError> {
        self.interp.run(inputs.to_vec()).map_err(|e| match e {
            InterpError::InputCount { .. }
            | InterpError::InputKind { .. }
            | InterpError::InputDType { .. }
            | InterpError::InputShape { .. } => RtError::Inputs(e.to_string()),
            e => RtError::Run(e.to_string()),
        })
    }
}
