//! The toy NPU end to end: quantize digits_cnn (pow2, qnn form), partition it on
//! `toy-npu,interp`, compile, package, run the package through nart-rt's `Session` with the
//! interp and toy-npu runtimes, and compare with the interpreter on the same quantized IR.

use std::path::{Path, PathBuf};

use nart_cli::quantize::{Form, QuantizeRequest, Session as Quantize};
use nart_interp::Interpreter;
use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::{Context, Op};
use nart_rt::manifest::Step;
use nart_rt::{Package, Session};
use nart_target::compile::compile_segments;
use nart_target::rt::Artifact;
use nart_target::{partition_function, Setup, Target, TargetRegistry};
use nart_tensor::Tensor;
use toy_npu::program::{Program, FORMAT};
use toy_npu::ToyNpu;

fn model_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/models/digits_cnn")
}

/// digits_cnn quantized with the pow2 scheme, in the qnn form: (context, module, function).
fn quantized() -> (Context, Op, Op) {
    let dir = model_dir();
    let mut q = Quantize::load(QuantizeRequest {
        model: dir.join("model.onnx"),
        calib: Some(dir.join("calib_inputs.pb")),
        scheme: "pow2".into(),
        bits: None,
        calibrator: "minmax".into(),
        mode: nart_quant::passes::Mode::Static,
        overrides: Vec::new(),
        qparams: None,
        export_qparams: None,
        output: PathBuf::from("digits_cnn.mlir"),
        progress: false,
        guard: Default::default(),
        form: Form::Qnn,
        calib_batch: None,
    })
    .expect("loads");
    q.calibrate().expect("calibrates");
    q.apply().expect("quantizes");
    q.lower().expect("lowers to qnn");
    (q.ctx, q.module, q.func)
}

fn registry() -> TargetRegistry {
    let mut r = TargetRegistry::builtin();
    r.register(Box::new(ToyNpu));
    r
}

/// A batch of 5 digits-like images: values in [0, 1.2] (a little past the calibrated range).
fn input() -> Tensor {
    let v: Vec<f32> = (0..5 * 64)
        .map(|i| ((i * 37 + 11) % 97) as f32 / 80.0)
        .collect();
    Tensor::from_vec(vec![5, 1, 8, 8], v).unwrap()
}

#[test]
fn digits_cnn_on_the_toy_npu_is_bit_exact_with_the_interpreter() {
    let (mut ctx, module, func) = quantized();
    nart_interp::register(&mut ctx);
    let want = Interpreter::new(&ctx, func)
        .unwrap()
        .run(vec![input()])
        .unwrap();
    let want = &want[0];

    let registry = registry();
    let setup = Setup::resolve(&registry, &["toy-npu".into(), "interp".into()], &[]).unwrap();
    let parts = partition_function(&mut ctx, func, &setup).expect("partitions");
    let placed = |t: &str| -> Vec<&str> {
        let ops = parts.plan.ops.iter().filter(|p| p.target == t);
        ops.map(|p| p.op_type.as_str()).collect()
    };
    assert_eq!(
        placed("toy-npu"),
        [
            "quant.scast",
            "quant.scast",
            "qnn.conv",
            "qnn.max_pool",
            "quant.scast",
            "quant.scast",
            "qnn.conv",
            "qnn.max_pool"
        ]
    );
    assert!(
        placed("interp").contains(&"qnn.matmul") && placed("interp").contains(&"graph.Flatten")
    );

    let counts: Vec<u64> = parts
        .plan
        .segments
        .iter()
        .map(|s| s.ops.len() as u64)
        .collect();
    // The toy NPU's segment, lowered to toynpu ops (what compile() serializes).
    let seg = parts.segment_ops.iter().copied();
    let seg = seg.filter(|&s| nart_target::compile::target_of(&ctx, s) == Some("toy-npu"));
    let seg: Vec<Op> = seg.collect();
    ToyNpu.prepare(&mut ctx);
    let (ops, yields) = toy_npu::lower(&mut ctx, seg[0]).expect("lowers");
    let printed: Vec<String> = ops
        .iter()
        .map(|&o| print_op(&ctx, o, &PrintOptions::default()))
        .collect();
    println!("{}", printed.join("\n"));
    let names: Vec<&str> = ops.iter().map(|&o| ctx.op_name_str(o)).collect();
    assert_eq!(
        names,
        [
            "toynpu.conv",
            "toynpu.max_pool",
            "toynpu.conv",
            "toynpu.max_pool"
        ]
    );
    assert!(
        printed[0].contains("relu") && printed[1].contains("kernel_shape"),
        "{printed:#?}"
    );
    assert_eq!(yields, [ctx.result(ops[3], 0)]);
    for &o in ops.iter().rev() {
        nart_ir::verify::verify(&ctx, o).expect("the toynpu ops verify");
        ctx.erase_op(o);
    }
    compile_segments(&mut ctx, module, &registry).expect("compiles");
    println!("{}", print_op(&ctx, module, &PrintOptions::default()));
    let text = print_op(&ctx, module, &PrintOptions::default());
    assert_eq!(text.matches("target.compiled").count(), 3, "{text}");
    let pkg = nart_cli::package::build_package(
        &ctx,
        func,
        "digits_cnn".into(),
        &counts,
        Default::default(),
    )
    .expect("packages");
    let pkg = Package::from_bytes(pkg.as_bytes().to_vec()).expect("reads back");
    let mut runtimes = nart_rt_std::runtimes();
    runtimes.register(ToyNpu.runtime());
    let session = Session::load(&pkg, &runtimes).expect("loads");
    let on = |t: &str| {
        let steps = pkg.manifest().steps.iter();
        steps
            .filter(|s| matches!(s, Step::Segment(g) if g.target == t))
            .count()
    };
    assert_eq!(
        (on("toy-npu"), on("interp")),
        (1, 2),
        "{:?}",
        pkg.manifest().steps
    );
    let got = session.run(vec![input()]).expect("runs");
    assert_eq!(got[0].shape(), &[5, 10]);
    let bits = |t: &Tensor| {
        t.as_f32()
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&got[0]), bits(want), "bit-exact with the interpreter");
    assert!(
        got[0].as_f32().unwrap().iter().any(|&x| x != 0.0),
        "not all zeros"
    );
}

#[test]
fn what_the_toy_npu_does_not_run_is_listed_with_its_reason() {
    let (mut ctx, _, func) = quantized();
    let registry = registry();
    let setup = Setup::resolve(&registry, &["toy-npu".into()], &[]).unwrap();
    let parts = partition_function(&mut ctx, func, &setup).expect("partitions");
    let matmul = parts
        .plan
        .ops
        .iter()
        .find(|p| p.op_type == "qnn.matmul")
        .expect("a matmul");
    assert_eq!(matmul.target, "interp");
    assert!(
        matmul
            .reason
            .to_string()
            .contains("toy-npu: op not supported"),
        "{}",
        matmul.reason
    );
}

#[test]
fn a_relu6_conv_or_a_u8_conv_is_refused_precisely() {
    let src = r#"func.func @f(%x: tensor<1x1x4x4x!quant.uniform<i8:f32, 0.5>>, %w: tensor<1x1x1x1x!quant.uniform<i8:f32, 0.5>>, %u: tensor<1x1x4x4x!quant.uniform<u8:f32, 0.5:128>>) -> (tensor<1x1x4x4x!quant.uniform<i8:f32, 0.5>>, tensor<1x1x4x4x!quant.uniform<i8:f32, 0.5>>) {
  %a = qnn.conv %x, %w act<relu6> : (tensor<1x1x4x4x!quant.uniform<i8:f32, 0.5>>, tensor<1x1x1x1x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x1x4x4x!quant.uniform<i8:f32, 0.5>>
  %b = qnn.conv %u, %w : (tensor<1x1x4x4x!quant.uniform<u8:f32, 0.5:128>>, tensor<1x1x1x1x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x1x4x4x!quant.uniform<i8:f32, 0.5>>
  return %a, %b : tensor<1x1x4x4x!quant.uniform<i8:f32, 0.5>>, tensor<1x1x4x4x!quant.uniform<i8:f32, 0.5>>
}"#;
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_qnn::register(&mut ctx);
    let m = nart_ir::parser::parse_source(&mut ctx, "t.mlir", src).expect("parses");
    let f = ctx.block_ops(ctx.region_blocks(ctx.region(m, 0))[0])[0];
    let body = ctx.region_blocks(ctx.region(f, 0))[0];
    let ops = ctx.block_ops(body).to_vec();
    let why = |op| match ToyNpu.supports(&ctx, op) {
        nart_target::Support::Refused(r) => r.to_string(),
        s => panic!("{s:?}"),
    };
    assert_eq!(why(ops[0]), "attribute activation = relu6 not supported");
    assert!(
        why(ops[1]).starts_with("element type !quant.uniform<u8"),
        "{}",
        why(ops[1])
    );
}

#[test]
fn corrupt_or_foreign_programs_are_errors() {
    let load = |bytes: Vec<u8>| {
        ToyNpu
            .runtime()
            .load(&Artifact::new("toy-npu", FORMAT, "toynpu 1", bytes))
            .err()
            .map(|e| e.to_string())
    };
    assert!(load(b"nope".to_vec()).unwrap().contains("no TNPU magic"));
    let mut v2 = b"TNPU".to_vec();
    v2.extend_from_slice(&2u32.to_le_bytes());
    assert!(load(v2).unwrap().contains("TNPU v2"));
    let good = Program::default().to_bytes();
    assert_eq!(load(good.clone()), None);
    assert!(load(good[..good.len() - 3].to_vec())
        .unwrap()
        .contains("corrupt artifact for target 'toy-npu'"));
    let wrong = ToyNpu
        .runtime()
        .load(&Artifact::new("toy-npu", "mlir-text", "1", good))
        .err()
        .unwrap();
    assert!(wrong
        .to_string()
        .contains("reads artifacts in format 'toynpu-program'"));
}

/// A chip fits in under 400 lines of Rust in `src/` (`wc -l`, comments included), using only
/// nart's public API: issue 10's bound on what adding a chip costs.
#[test]
fn the_crate_stays_small() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let n: usize = std::fs::read_dir(src)
        .unwrap()
        .map(|e| {
            std::fs::read_to_string(e.unwrap().path())
                .unwrap()
                .lines()
                .count()
        })
        .sum();
    assert!(n < 400, "{n} lines of Rust in src/");
}

/// `qnn.add` (with zero points, a fused relu, half-up rounding) on the chip, through a package,
/// against the interpreter.
#[test]
fn an_add_with_zero_points_is_bit_exact_too() {
    let src = r#"func.func @main(%a: tensor<2x8xf32>, %b: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %qa = quant.qcast %a : tensor<2x8xf32> to tensor<2x8x!quant.uniform<i8:f32, 2.500000e-01>>
  %qb = quant.qcast %b : tensor<2x8xf32> to tensor<2x8x!quant.uniform<i8:f32, 1.250000e-01:3>>
  %s = qnn.add %qa, %qb act<relu> round<half_up> : (tensor<2x8x!quant.uniform<i8:f32, 2.500000e-01>>, tensor<2x8x!quant.uniform<i8:f32, 1.250000e-01:3>>) -> tensor<2x8x!quant.uniform<i8:f32, 5.000000e-01:-2>>
  %y = quant.dcast %s : tensor<2x8x!quant.uniform<i8:f32, 5.000000e-01:-2>> to tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}"#;
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_quant::register(&mut ctx);
    nart_dialect_qnn::register(&mut ctx);
    nart_interp::register(&mut ctx);
    let module = nart_ir::parser::parse_source(&mut ctx, "add.mlir", src).expect("parses");
    let func = ctx.block_ops(ctx.region_blocks(ctx.region(module, 0))[0])[0];
    let a: Vec<f32> = (0..16).map(|i| i as f32 * 0.37 - 3.0).collect();
    let b: Vec<f32> = (0..16).map(|i| 2.0 - i as f32 * 0.29).collect();
    let inputs = vec![
        Tensor::from_vec(vec![2, 8], a).unwrap(),
        Tensor::from_vec(vec![2, 8], b).unwrap(),
    ];
    let want = Interpreter::new(&ctx, func)
        .unwrap()
        .run(inputs.clone())
        .unwrap();

    let registry = registry();
    let setup = Setup::resolve(&registry, &["toy-npu".into()], &[]).unwrap();
    let parts = partition_function(&mut ctx, func, &setup).expect("partitions");
    let add = parts
        .plan
        .ops
        .iter()
        .find(|p| p.op_type == "qnn.add")
        .unwrap();
    assert_eq!(add.target, "toy-npu");
    let counts: Vec<u64> = parts
        .plan
        .segments
        .iter()
        .map(|s| s.ops.len() as u64)
        .collect();
    compile_segments(&mut ctx, module, &registry).expect("compiles");
    let pkg =
        nart_cli::package::build_package(&ctx, func, "add".into(), &counts, Default::default())
            .expect("packages");
    let mut runtimes = nart_rt_std::runtimes();
    runtimes.register(ToyNpu.runtime());
    let got = Session::load(&pkg, &runtimes).unwrap().run(inputs).unwrap();
    let (got, want) = (got[0].as_f32().unwrap(), want[0].as_f32().unwrap());
    assert_eq!(got, want);
    assert!(
        got.contains(&0.0) && got.iter().any(|&x| x > 0.0),
        "{got:?}"
    );
}

/// Every Rust code block of docs/tutorials/new-chip.md is verbatim from the crate (`src/` or
/// `tests/`), so the tutorial shows the code that runs.
#[test]
fn the_tutorial_shows_the_crate_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("../../docs/tutorials/new-chip.md")).unwrap();
    let mut code = String::new();
    for dir in ["src", "tests"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            code.push_str(&std::fs::read_to_string(f).unwrap());
        }
    }
    let blocks: Vec<&str> = doc
        .split("```rust\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    assert!(blocks.len() >= 8, "{} rust blocks", blocks.len());
    for b in blocks {
        assert!(code.contains(b), "not in the crate:\n{b}");
    }
}
