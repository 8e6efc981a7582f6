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
    let func = outline_segment(ctx, segment, name)?;
    let text = print_op(ctx, func, &PrintOptions::default());
    ctx.erase_op(func);
    Ok(text)
}

/// A copy of the region of `segment` as a detached `func.func @name(...)`: the segment's
/// body with its `target.yield` as `func.return`. The caller erases it when done.
pub fn outline_segment(ctx: &mut Context, segment: Op, name: &str) -> Result<Op, Diagnostic> {
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
    Ok(func)
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
                        nart_interp::convert::loc_to_string(ctx, d.loc),
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
        self.run_owned(inputs.to_vec())
    }

    fn run_owned(&self, inputs: Vec<Tensor>) -> Result<Vec<Tensor>, RtError> {
        self.interp.run(inputs).map_err(|e| match e {
            InterpError::InputCount { .. }
            | InterpError::InputKind { .. }
            | InterpError::InputDType { .. }
            | InterpError::InputShape { .. } => RtError::Inputs(e.to_string()),
            e => RtError::Run(e.to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partition::{partition_function, Setup};
    use crate::TargetRegistry;

    const TEXT: &str = r#"
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %c = "graph.constant"() <{value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %a = "graph.Add"(%x, %c) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %m = "graph.Mul"(%a, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %m : tensor<3xf32>
}
"#;

    /// The artifact of `TEXT` as one interp segment.
    fn artifact() -> Artifact {
        let mut ctx = Context::new();
        nart_dialect_func::register(&mut ctx);
        nart_dialect_graph::register(&mut ctx);
        let m = nart_ir::parser::parse_source(&mut ctx, "t.mlir", TEXT).unwrap();
        let block = ctx.region_blocks(ctx.region(m, 0))[0];
        let func = ctx.block_ops(block)[0];
        let r = TargetRegistry::builtin();
        let setup = Setup::resolve(&r, &[], &[]).unwrap();
        let out = partition_function(&mut ctx, func, &setup).unwrap();
        let seg = out.segment_ops[0];
        let a = InterpTarget.compile(&mut ctx, seg).unwrap();
        // Compiling leaves the segment as it was.
        nart_ir::verify::verify(&ctx, m).unwrap();
        a
    }

    fn f32s(v: &[f32]) -> Tensor {
        Tensor::from_vec(vec![v.len()], v.to_vec()).unwrap()
    }

    #[test]
    fn artifacts_load_and_run() {
        let a = artifact();
        assert_eq!(
            (a.target.as_str(), a.format.as_str()),
            ("interp", "mlir-text")
        );
        let text = std::str::from_utf8(&a.bytes).unwrap();
        assert!(
            text.starts_with(
                "func.func @segment(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<3xf32> {"
            ),
            "{text}"
        );
        let exe = InterpRuntime::new().load(&a).unwrap();
        let out = exe
            .run(&[f32s(&[1.0, 1.0, 1.0]), f32s(&[2.0, 3.0, 4.0])])
            .unwrap();
        assert_eq!(out, [f32s(&[4.0, 9.0, 16.0])]);
    }

    #[test]
    fn bad_artifacts_and_inputs_are_errors() {
        let rt = InterpRuntime::new();
        let a = artifact();
        let exe = rt.load(&a).unwrap();
        let e = exe.run(&[f32s(&[1.0, 1.0, 1.0])]).unwrap_err();
        assert!(matches!(e, RtError::Inputs(_)), "{e}");
        assert!(e.to_string().contains("expected 2 inputs"), "{e}");
        let e = exe
            .run(&[f32s(&[1.0]), f32s(&[1.0, 1.0, 1.0])])
            .unwrap_err();
        assert!(e.to_string().contains("expected shape [3], got [1]"), "{e}");
        let i64s = Tensor::from_vec(vec![3], vec![1i64, 2, 3]).unwrap();
        let e = exe.run(&[i64s, f32s(&[1.0, 1.0, 1.0])]).unwrap_err();
        assert!(e.to_string().contains("expected element type"), "{e}");

        let with = |f: &dyn Fn(&mut Artifact)| {
            let mut b = a.clone();
            f(&mut b);
            rt.load(&b).map(|_| ()).unwrap_err().to_string()
        };
        assert_eq!(
            with(&|b| b.format = "blob".into()),
            "target 'interp' reads artifacts in format 'mlir-text', not 'blob'"
        );
        assert!(with(&|b| b.sdk_version = "openvino 2026.4".into())
            .contains("cannot load an artifact of SDK version 'openvino 2026.4'"));
        assert!(with(&|b| b.bytes = vec![0xff, 0xfe]).contains("not UTF-8"));
        let truncated = with(&|b| {
            let n = b.bytes.len() / 2;
            b.bytes.truncate(n)
        });
        assert!(
            truncated.starts_with("corrupt artifact for target 'interp': artifact.mlir:"),
            "{truncated}"
        );
        let renamed = with(&|b| {
            b.bytes = String::from_utf8(b.bytes.clone())
                .unwrap()
                .replace("@segment", "@other")
                .into_bytes()
        });
        assert!(renamed.contains("no function '@segment'"), "{renamed}");
    }

    #[test]
    fn supports_ops_with_reference_kernels_only() {
        let text = r#"
func.func @main(%c: tensor<i1>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %u = "t.unknown"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %y = "graph.If"(%c) ({
    %n = "t.unknown"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "graph.yield"(%n) : (tensor<4xf32>) -> ()
  }, {
    "graph.yield"(%x) : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  return %u, %y : tensor<4xf32>, tensor<4xf32>
}
"#;
        let mut ctx = Context::new();
        ctx.allow_unregistered = true;
        nart_dialect_func::register(&mut ctx);
        nart_dialect_graph::register(&mut ctx);
        let m = nart_ir::parser::parse_source(&mut ctx, "t.mlir", text).unwrap();
        InterpTarget.prepare(&mut ctx);
        let block = ctx.region_blocks(ctx.region(m, 0))[0];
        let body = ctx.region_blocks(ctx.region(ctx.block_ops(block)[0], 0))[0];
        let ops = ctx.block_ops(body);
        assert_eq!(
            InterpTarget.supports(&ctx, ops[0]),
            Support::Refused(Refusal::UnknownOp)
        );
        assert_eq!(
            InterpTarget.supports(&ctx, ops[1]),
            Support::Refused(Refusal::Other(
                "nested op 't.unknown' has no reference kernel".into()
            ))
        );
    }
}
