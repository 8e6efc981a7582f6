//! Every scheme applied to real models and run in the interpreter: the QDQ form (with the quant
//! casts' reference kernels: per tensor, per channel, per group, narrow, sub-byte and 16-bit
//! storage), the float-cast schemes, dynamic mode, and BatchNorm folding checked numerically.

use std::path::{Path, PathBuf};

use nart_interp::Interpreter;
use nart_ir::{Context, Op};
use nart_quant::apply::{ApplyOptions, Override};
use nart_quant::calib::Calibrator;
use nart_quant::collect::CalibOptions;
use nart_quant::dataset;
use nart_quant::passes::Mode;
use nart_quant::scheme::{Granularity, Scheme};
use nart_tensor::Tensor;

fn model_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/models")
        .join(name)
}

fn load(name: &str) -> (Context, Op, Op) {
    let mut ctx = Context::new();
    let module = nart_onnx::import_file(&mut ctx, &model_dir(name).join("model.onnx"))
        .unwrap_or_else(|_| panic!("{name} imports"));
    nart_quant::register(&mut ctx);
    let func = nart_quant::ir_util::functions(&ctx, module)[0];
    (ctx, module, func)
}

fn accuracy(ctx: &Context, func: Op, name: &str) -> f64 {
    let x = dataset::read_tensor(&model_dir(name).join("heldout_inputs.pb")).unwrap();
    let labels = dataset::read_tensor(&model_dir(name).join("heldout_labels.pb"))
        .unwrap()
        .to_i64_vec()
        .unwrap();
    let interp = Interpreter::new(ctx, func).unwrap();
    let v = interp.run(vec![x]).unwrap().remove(0).to_f64_vec().unwrap();
    let correct = labels
        .iter()
        .enumerate()
        .filter(|(i, &l)| {
            let row = &v[i * 10..(i + 1) * 10];
            (0..10).max_by(|&a, &b| row[a].total_cmp(&row[b])).unwrap() as i64 == l
        })
        .count();
    correct as f64 / labels.len() as f64
}

fn scheme(name: &str) -> Scheme {
    nart_quant::scheme::registry().get(name).unwrap().clone()
}

/// Calibrates `model` (minmax, per channel when the scheme wants it), applies `s` and returns
/// (float accuracy, quantized accuracy).
fn run_scheme(model: &str, s: &Scheme, mode: Mode) -> (f64, f64, Context, Op) {
    let (mut ctx, module, func) = load(model);
    let float = accuracy(&ctx, func, model);
    if mode == Mode::Static {
        let interp = Interpreter::new(&ctx, func).unwrap();
        let samples =
            dataset::load(&model_dir(model).join("calib_inputs.pb"), interp.inputs()).unwrap();
        let act = s.activations.int().copied();
        let opts = CalibOptions {
            calibrator: Calibrator::MinMax,
            bits: act.map_or(8, |a| a.bits),
            per_channel: act.is_some_and(|a| a.granularity == Granularity::PerChannel),
            ..CalibOptions::default()
        };
        nart_quant::collect::calibrate(&mut ctx, func, &samples, &opts).unwrap();
    }
    let opts = ApplyOptions {
        scheme: s.clone(),
        overrides: Vec::new(),
        user_params: None,
        fold_batchnorm: true,
    };
    nart_quant::passes::apply_all(&mut ctx, module, &opts, mode)
        .map_err(|(_, e)| e.to_string())
        .unwrap();
    nart_ir::verify::verify(&ctx, module).unwrap();
    let q = accuracy(&ctx, func, model);
    (float, q, ctx, func)
}

fn ops_of(ctx: &Context, func: Op) -> String {
    nart_ir::printer::print_op(ctx, func, &Default::default())
}

#[test]
fn every_scheme_runs_and_keeps_accuracy() {
    // (scheme, bits override, the model, top-1 points it may lose, text the IR must hold)
    let cases: &[(&str, Option<u32>, &str, f64, &str)] = &[
        ("onnx-qdq", None, "digits_mlp", 1.0, "!quant.uniform<u8:f32"),
        ("tensorrt", None, "digits_mlp", 1.0, "i8<-127:127>:f32:0, {"),
        (
            "snpe",
            None,
            "digits_mlp",
            1.5,
            "tensor<64x64xi8> to tensor<64x64x!quant.uniform<u8:f32,",
        ),
        (
            "sigmastar",
            None,
            "digits_cnn",
            1.0,
            "tensor<?x8x8x8x!quant.uniform<u8:f32:1, {",
        ),
        (
            "pow2",
            None,
            "digits_mlp",
            2.0,
            "tensor<?x64x!quant.uniform<i8:f32, 1.562500e-02>>",
        ),
        (
            "arm-lowbit",
            None,
            "digits_mlp",
            6.0,
            "!quant.uniform<u4:f32",
        ),
        (
            "arm-lowbit",
            Some(8),
            "digits_mlp",
            1.5,
            "!quant.uniform<u8:f32",
        ),
        (
            "w4-group",
            None,
            "digits_mlp",
            3.0,
            "x!quant.uniform<u4:f32:{0:1, 1:32}, {{",
        ),
        ("w8a16", None, "digits_mlp", 1.0, "!quant.uniform<u16:f32"),
        // W4A8 within 2 points of float on the CNN (the quantization issue's bar).
        (
            "w4a8",
            None,
            "digits_cnn",
            2.0,
            "tensor<8x1x3x3xi4> to tensor<8x1x3x3x!quant.uniform<i4:f32:0, {",
        ),
        ("fp16", None, "digits_mlp", 0.5, "tensor<64x64xf16>"),
        ("bf16", None, "digits_mlp", 1.0, "tensor<64x64xbf16>"),
    ];
    for &(name, bits, model, loss, want) in cases {
        let mut s = scheme(name);
        if let Some(b) = bits {
            s = s.with_bits(b).unwrap();
        }
        let (float, q, ctx, func) = run_scheme(model, &s, Mode::Static);
        let ir = ops_of(&ctx, func);
        eprintln!(
            "{model} {name}{}: float {:.2}%, quantized {:.2}% ({:+.2} points)",
            bits.map(|b| format!(" bits={b}")).unwrap_or_default(),
            100.0 * float,
            100.0 * q,
            100.0 * (q - float)
        );
        assert!(ir.contains(want), "{name}: '{want}' not in the IR");
        assert!(
            100.0 * (float - q) <= loss,
            "{name}: quantized {q} vs float {float} (may lose {loss} points)"
        );
    }
}

#[test]
fn two_bit_storage_runs_with_its_narrow_range() {
    let s = scheme("arm-lowbit").with_bits(2).unwrap();
    let (_, q, ctx, func) = run_scheme("digits_mlp", &s, Mode::Static);
    let ir = ops_of(&ctx, func);
    assert!(
        ir.contains("!quant.uniform<u2:f32") && ir.contains("xi2>"),
        "2-bit storage"
    );
    // Two bits cannot keep a classifier, but it runs and stays above chance.
    assert!(q > 0.1, "{q}");
}

#[test]
fn dynamic_mode_keeps_the_mlp_accurate_and_the_transformer_close() {
    let (float, q, ctx, func) = run_scheme("digits_mlp", &scheme("onnx-qdq"), Mode::Dynamic);
    eprintln!(
        "digits_mlp dynamic: float {:.2}%, quantized {:.2}%",
        100.0 * float,
        100.0 * q
    );
    assert!(100.0 * (float - q) <= 1.0, "{q} vs {float}");
    assert!(ops_of(&ctx, func).contains("graph.MatMulInteger"));
    // The transformer: its 12 MatMuls run as MatMulInteger; outputs stay close to float.
    let (mut ctx, module, func) = load("tiny_transformer");
    let data = model_dir("tiny_transformer").join("test_data_set_0");
    let x = dataset::read_tensor(&data.join("input_0.pb")).unwrap();
    let want: Tensor = Interpreter::new(&ctx, func)
        .unwrap()
        .run(vec![x.clone()])
        .unwrap()
        .remove(0);
    let opts = ApplyOptions {
        scheme: scheme("onnx-qdq"),
        overrides: Vec::new(),
        user_params: None,
        fold_batchnorm: false,
    };
    let r = nart_quant::passes::apply_all(&mut ctx, module, &opts, Mode::Dynamic).unwrap();
    assert_eq!(r.quantized_ops, 12);
    nart_ir::verify::verify(&ctx, module).unwrap();
    let got = Interpreter::new(&ctx, func)
        .unwrap()
        .run(vec![x])
        .unwrap()
        .remove(0);
    let (a, b) = (got.to_f64_vec().unwrap(), want.to_f64_vec().unwrap());
    let dot: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    let na: f64 = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| x * x).sum::<f64>().sqrt();
    let noise: f64 = a.iter().zip(&b).map(|(x, y)| (x - y) * (x - y)).sum();
    let sqnr = 10.0 * (nb * nb / noise).log10();
    eprintln!(
        "tiny_transformer dynamic: cosine {:.5}, SQNR {sqnr:.1} dB",
        dot / (na * nb)
    );
    assert!(dot / (na * nb) > 0.99, "cosine {}", dot / (na * nb));
    assert!(a != b, "quantization changed nothing");
}

#[test]
fn overrides_keep_layers_float_and_change_their_bits() {
    let (mut ctx, module, func) = load("digits_mlp");
    let interp = Interpreter::new(&ctx, func).unwrap();
    let samples = dataset::load(
        &model_dir("digits_mlp").join("calib_inputs.pb"),
        interp.inputs(),
    )
    .unwrap();
    nart_quant::collect::calibrate(&mut ctx, func, &samples, &CalibOptions::default()).unwrap();
    let registry = nart_quant::scheme::registry();
    let opts = ApplyOptions {
        scheme: scheme("onnx-qdq"),
        overrides: vec![
            Override::parse("logits=float", &registry).unwrap(),
            Override::parse("fc*=scheme:w8a16", &registry).unwrap(),
        ],
        user_params: None,
        fold_batchnorm: true,
    };
    let r = nart_quant::passes::apply_all(&mut ctx, module, &opts, Mode::Static).unwrap();
    assert_eq!(r.kept_float, vec!["logits".to_string()]);
    let ir = ops_of(&ctx, func);
    assert!(ir.contains("!quant.uniform<u16:f32"), "fc1 follows w8a16");
    assert_eq!(
        ir.matches("quant.scast").count(),
        2,
        "only fc1's weight and bias"
    );
    // The float layer reads a dequantized value: the lint says so.
    let lint = nart_quant::lint::lint(&ctx, func);
    assert_eq!(lint.warnings.len(), 2, "{:?}", lint.warnings);
    assert!(lint
        .warnings
        .iter()
        .any(|w| w.message.contains("'graph.Gemm' 'logits'")));
}

/// A Conv + BatchNormalization model, as IR text.
const CONV_BN: &str = r#"
func.func @f(%x: tensor<2x2x3x3xf32>) -> tensor<2x3x3x3xf32> {
  %w = "graph.constant"() <{value = dense<[[[[0.5]], [[-1.0]]], [[[2.0]], [[0.25]]], [[[-0.75]], [[1.5]]]]> : tensor<3x2x1x1xf32>}> : () -> tensor<3x2x1x1xf32>
  %b = "graph.constant"() <{value = dense<[0.1, -0.2, 0.3]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %s = "graph.constant"() <{value = dense<[1.5, 0.5, -2.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %o = "graph.constant"() <{value = dense<[0.0, 1.0, -1.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %m = "graph.constant"() <{value = dense<[0.2, -0.4, 0.6]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %v = "graph.constant"() <{value = dense<[0.5, 2.0, 0.1]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %c = "graph.Conv"(%x, %w, %b) <{kernel_shape = array<i64: 1, 1>}> : (tensor<2x2x3x3xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<2x3x3x3xf32>
  %y:3 = "graph.BatchNormalization"(%c, %s, %o, %m, %v) <{epsilon = 1.0e-3 : f32}> : (tensor<2x3x3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x3x3xf32>, none, none)
  return %y#0 : tensor<2x3x3x3xf32>
}
"#;

#[test]
fn batchnorm_folding_matches_the_unfolded_model_in_the_interpreter() {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_quant::register(&mut ctx);
    let module = nart_ir::parser::parse_source(&mut ctx, "bn.mlir", CONV_BN).unwrap();
    nart_ir::verify::verify(&ctx, module).unwrap();
    let func = nart_quant::ir_util::functions(&ctx, module)[0];
    let x: Vec<f32> = (0..36).map(|i| ((i * 7) % 11) as f32 / 5.0 - 1.0).collect();
    let x = Tensor::from_vec(vec![2, 2, 3, 3], x).unwrap();
    let before = Interpreter::new(&ctx, func)
        .unwrap()
        .run(vec![x.clone()])
        .unwrap();
    assert_eq!(nart_quant::fold_bn::fold_batchnorm(&mut ctx, func), 1);
    nart_ir::verify::verify(&ctx, module).unwrap();
    let ir = ops_of(&ctx, func);
    assert!(!ir.contains("BatchNormalization"), "{ir}");
    assert_eq!(
        ir.matches("graph.constant").count(),
        2,
        "folded weight and bias only:\n{ir}"
    );
    let after = Interpreter::new(&ctx, func).unwrap().run(vec![x]).unwrap();
    let (a, b) = (
        after[0].to_f64_vec().unwrap(),
        before[0].to_f64_vec().unwrap(),
    );
    let worst = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-5, "folded differs by {worst}");
    assert!(b.iter().any(|v| v.abs() > 1.0), "the check is not trivial");
}
