//! A new target in one file: a net-level "chip" that runs chains of `graph.Relu`, with a
//! compiler (its "SDK" turns a segment into a blob) and a runtime (which runs the blob without
//! any IR). `cargo run -p nart-target --example relu_chip` partitions a small function, prints
//! it before and after compilation, and checks the result against the interpreter.

use nart_interp::Interpreter;
use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::{Context, Diagnostic, Op, TypeData};
use nart_target::compile::compile_segments;
use nart_target::partition::partition_function;
use nart_target::rt::{Artifact, Executable, RtError, TargetRuntime};
use nart_target::{Level, Refusal, Setup, Support, Target, TargetRegistry};
use nart_tensor::Tensor;

/// The compiler side.
struct ReluChip;

impl Target for ReluChip {
    fn name(&self) -> &str {
        "relu-chip"
    }

    fn level(&self) -> Level {
        Level::Net
    }

    fn description(&self) -> &str {
        "an example chip: chains of graph.Relu on f32"
    }

    fn supports(&self, ctx: &Context, op: Op) -> Support {
        if ctx.op_name_str(op) != "graph.Relu" {
            return Support::Refused(Refusal::UnknownOp);
        }
        let ty = ctx.value_type(ctx.operand(op, 0));
        match ctx.type_data(ctx.element_type(ty)) {
            TypeData::Float(nart_ir::FloatKind::F32) => Support::Supported,
            _ => Support::Refused(Refusal::DType {
                value: "operand #0".into(),
                dtype: nart_ir::printer::type_to_string(ctx, ctx.element_type(ty)),
            }),
        }
    }

    /// The "SDK": a segment of this chip is a chain of Relus with one input and one output;
    /// the blob is the chain's length.
    fn compile(&self, ctx: &mut Context, segment: Op) -> Result<Artifact, Diagnostic> {
        if ctx.operands(segment).len() != 1 || ctx.results(segment).len() != 1 {
            return Err(ctx.op_error(
                segment,
                "relu-chip runs chains with one input and one output",
            ));
        }
        let body = ctx.region_blocks(ctx.region(segment, 0))[0];
        let relus = ctx.block_ops(body).len() - 1;
        Ok(Artifact::new(
            "relu-chip",
            "relu-count",
            "relu-sdk 1",
            (relus as u32).to_le_bytes().to_vec(),
        ))
    }

    fn runtime(&self) -> Box<dyn TargetRuntime> {
        Box::new(ReluRuntime)
    }
}

/// The runtime side: no IR, only the blob.
struct ReluRuntime;

struct ReluChain(u32);

impl TargetRuntime for ReluRuntime {
    fn target(&self) -> &str {
        "relu-chip"
    }

    fn load(&self, artifact: &Artifact) -> Result<Box<dyn Executable>, RtError> {
        artifact.expect_format("relu-count")?;
        let n: [u8; 4] = artifact.bytes.as_slice().try_into().map_err(|_| {
            RtError::corrupt(
                "relu-chip",
                format!("expected 4 bytes, got {}", artifact.bytes.len()),
            )
        })?;
        Ok(Box::new(ReluChain(u32::from_le_bytes(n))))
    }
}

impl Executable for ReluChain {
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RtError> {
        let [x] = inputs else {
            return Err(RtError::inputs(format!(
                "expected 1 input, got {}",
                inputs.len()
            )));
        };
        let mut v = x.to_f32_vec().map_err(|e| RtError::inputs(e.to_string()))?;
        for _ in 0..self.0 {
            v.iter_mut().for_each(|a| *a = a.max(0.0));
        }
        let y = Tensor::from_vec(x.shape().to_vec(), v).map_err(|e| RtError::run(e.to_string()))?;
        Ok(vec![y])
    }
}

const FUNCTION: &str = r#"
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = "graph.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("relu1")
  %b = "graph.Sigmoid"(%a) : (tensor<4xf32>) -> tensor<4xf32> loc("sigmoid")
  %c = "graph.Neg"(%b) : (tensor<4xf32>) -> tensor<4xf32> loc("neg")
  %d = "graph.Relu"(%c) : (tensor<4xf32>) -> tensor<4xf32> loc("relu2")
  %e = "graph.Relu"(%d) : (tensor<4xf32>) -> tensor<4xf32> loc("relu3")
  return %e : tensor<4xf32>
}
"#;

fn main() {
    // Register the chip next to the builtin targets (interp is the fallback).
    let mut registry = TargetRegistry::builtin();
    registry.register(Box::new(ReluChip));

    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    let module = nart_ir::parser::parse_source(&mut ctx, "example.mlir", FUNCTION).expect("parses");
    let func = ctx.block_ops(ctx.region_blocks(ctx.region(module, 0))[0])[0];
    nart_interp::register(&mut ctx);
    let x = Tensor::from_vec(vec![4], vec![-1.0f32, 0.5, -0.25, 2.0]).unwrap();
    let want = Interpreter::new(&ctx, func)
        .unwrap()
        .run(vec![x.clone()])
        .unwrap();

    // Partition: the Relus on the chip, the rest on interp.
    let setup = Setup::resolve(&registry, &["relu-chip".to_string()], &[]).unwrap();
    let out = partition_function(&mut ctx, func, &setup).expect("every op has a target");
    for p in &out.plan.ops {
        println!(
            "{:8} {:14} {:10} {}",
            p.name.as_deref().unwrap_or("-"),
            p.op_type,
            p.target,
            p.reason
        );
    }
    println!("{}", print_op(&ctx, module, &PrintOptions::default()));

    // Compile: each segment becomes a target.compiled holding its artifact.
    compile_segments(&mut ctx, module, &registry).expect("every segment compiles");
    println!("{}", print_op(&ctx, module, &PrintOptions::default()));

    // Run the compiled function segment by segment, through the runtimes only.
    let runtimes = registry.runtimes();
    let body = ctx.region_blocks(ctx.region(func, 0))[0];
    let mut values = std::collections::HashMap::from([(ctx.block_args(body)[0], x)]);
    for op in ctx.block_ops(body) {
        let inputs: Vec<Tensor> = ctx.operands(op).iter().map(|v| values[v].clone()).collect();
        match nart_target::compile::artifact_of(&ctx, op) {
            Some(artifact) => {
                let outputs = runtimes.load(&artifact).unwrap().run(&inputs).unwrap();
                values.extend(ctx.results(op).iter().copied().zip(outputs));
            }
            None => assert_eq!(
                inputs, want,
                "the function returns what the interpreter computes"
            ),
        }
    }
    println!("ok: the same as the interpreter");
}

#[test]
fn tour() {
    main();
}
