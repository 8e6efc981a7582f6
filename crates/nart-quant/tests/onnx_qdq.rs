//! QDQ ONNX in and out on `tests/models/digits_cnn`: the quant IR `quant-apply` makes goes to
//! ONNX (`quant-to-qdq` + the exporter) and back (the importer + `quant-from-qdq`) to the same
//! IR, and runs to the same bits in the interpreter in all three forms (quant IR, imported QDQ
//! graph ops, lifted quant IR). An ONNX Runtime `quantize_static` model of the same network
//! (`scripts/quant/make_ort_qdq.py`) lifts completely.

use std::path::{Path, PathBuf};

use nart_interp::Interpreter;
use nart_ir::{AttrData, Context, Op};
use nart_quant::apply::ApplyOptions;
use nart_quant::collect::CalibOptions;
use nart_quant::dataset;
use nart_tensor::Tensor;

fn model_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/models/digits_cnn")
}

fn main_func(ctx: &Context, module: Op) -> Op {
    nart_quant::ir_util::functions(ctx, module)[0]
}

/// digits_cnn calibrated with minmax and quantized with `scheme`, in a new context.
fn quantized(scheme: &str) -> (Context, Op) {
    let mut ctx = Context::new();
    let module = nart_onnx::import_file(&mut ctx, &model_dir().join("model.onnx"))
        .unwrap_or_else(|_| panic!("digits_cnn imports"));
    nart_quant::register(&mut ctx);
    let func = main_func(&ctx, module);
    let interp = Interpreter::new(&ctx, func).unwrap();
    let samples = dataset::load(&model_dir().join("calib_inputs.pb"), interp.inputs()).unwrap();
    let opts = CalibOptions {
        per_channel: scheme == "sigmastar",
        ..CalibOptions::default()
    };
    nart_quant::collect::calibrate(&mut ctx, func, &samples, &opts).unwrap();
    let apply = ApplyOptions {
        scheme: nart_quant::scheme::registry().get(scheme).unwrap().clone(),
        overrides: Vec::new(),
        user_params: None,
        fold_batchnorm: true,
    };
    nart_quant::apply::apply_static(&mut ctx, func, &apply).unwrap();
    nart_ir::verify::verify(&ctx, module).unwrap();
    (ctx, module)
}

/// Imports ONNX bytes into a new context, with the quant passes' dialects registered.
fn import(bytes: &[u8]) -> (Context, Op) {
    let mut ctx = Context::new();
    let module = nart_onnx::import_model(&mut ctx, bytes, Some(Path::new("q.onnx")))
        .unwrap_or_else(|d| panic!("the exported model imports: {d:?}"));
    nart_quant::register(&mut ctx);
    (ctx, module)
}

/// The exported bytes of a clone of `module` (the original stays quant IR).
fn export(ctx: &mut Context, module: Op) -> Vec<u8> {
    let copy = ctx.clone_op(module, &mut nart_ir::IrMapping::default());
    let bytes =
        nart_quant::onnx_qdq::export_onnx(ctx, copy).unwrap_or_else(|d| panic!("exports: {d:?}"));
    ctx.erase_op(copy);
    bytes
}

/// Removes calibration results (op attributes and argument attributes), which ONNX does not
/// carry.
fn strip_calibration(ctx: &mut Context, func: Op) {
    for op in ctx.collect_ops(func, nart_ir::WalkOrder::PreOrder) {
        ctx.remove_attr(op, "quant.calibrated");
        ctx.remove_attr(op, "quant.calibrated_channels");
    }
    let Some(dicts) = ctx.attr(func, "arg_attrs") else {
        return;
    };
    let AttrData::Array(items) = ctx.attr_data(dicts).clone() else {
        return;
    };
    let mut new = Vec::new();
    for d in items {
        let AttrData::Dictionary(entries) = ctx.attr_data(d).clone() else {
            new.push(d);
            continue;
        };
        let kept = entries
            .into_iter()
            .filter(|e| !ctx.str(e.name).starts_with("quant.calibrated"))
            .collect();
        new.push(ctx.dict_attr(kept));
    }
    let a = ctx.array_attr(new);
    if ctx
        .props(func)
        .iter()
        .any(|p| ctx.str(p.name) == "arg_attrs")
    {
        ctx.set_prop(func, "arg_attrs", a);
    } else {
        ctx.set_attr(func, "arg_attrs", a);
    }
}

/// Moves the constants that are not stored integers (float biases kept in float) to the start
/// of the function, in order, where the importer puts initializers.
fn hoist_float_constants(ctx: &mut Context, module: Op) {
    let func = main_func(ctx, module);
    let ops = nart_quant::ir_util::body_ops(ctx, func);
    let hoisted: Vec<Op> = ops
        .iter()
        .copied()
        .filter(|&op| {
            ctx.op_name_str(op) == "graph.constant"
                && ctx
                    .uses(ctx.result(op, 0))
                    .iter()
                    .all(|u| ctx.op_name_str(u.op) != "quant.scast")
        })
        .collect();
    for &op in hoisted.iter().rev() {
        let first = nart_quant::ir_util::first_op(ctx, func).unwrap();
        if first != op {
            ctx.move_op_before(op, first);
        }
    }
}

/// Gives stored integers (`quant.scast` results) the full range of their storage type: ONNX
/// keeps no narrowed range for an initializer (its values already lie in it).
fn widen_stored_ranges(ctx: &mut Context, module: Op) {
    use nart_dialect_quant::types::{default_range, UniformQuantizedType};
    for op in ctx.collect_ops(module, nart_ir::WalkOrder::PreOrder) {
        if ctx.op_name_str(op) != "quant.scast" {
            continue;
        }
        let r = ctx.result(op, 0);
        let ty = ctx.value_type(r);
        let Some(mut q) = ctx
            .type_as::<UniformQuantizedType>(ctx.element_type(ty))
            .cloned()
        else {
            continue;
        };
        (q.storage_min, q.storage_max) = default_range(q.storage_width, q.signed);
        let elem = ctx.dialect_type(q);
        let new = nart_quant::ir_util::with_element(ctx, ty, elem);
        ctx.set_value_type(r, new);
    }
}

fn print_func(ctx: &Context, module: Op) -> String {
    nart_ir::printer::print_op(ctx, main_func(ctx, module), &Default::default())
}

fn run(ctx: &Context, module: Op, x: &Tensor) -> Vec<f32> {
    let interp = Interpreter::new(ctx, main_func(ctx, module)).unwrap();
    let out = interp.run(vec![x.clone()]).unwrap().remove(0);
    out.to_f64_vec()
        .unwrap()
        .iter()
        .map(|&v| v as f32)
        .collect()
}

fn count(ctx: &Context, module: Op, name: &str) -> usize {
    ctx.collect_ops(module, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .filter(|&op| ctx.op_name_str(op) == name)
        .count()
}

#[test]
fn quant_ir_round_trips_through_onnx() {
    for scheme in [
        "onnx-qdq",
        "snpe",
        "w8a16",
        "sigmastar",
        "pow2",
        "arm-lowbit",
        "w4-group",
        "w4a8",
        "tensorrt",
    ] {
        let (mut ctx, module) = quantized(scheme);
        let bytes = export(&mut ctx, module);

        // The exported file holds QDQ operators, not quant ops.
        let (mut ctx2, module2) = import(&bytes);
        assert_eq!(count(&ctx2, module2, "quant.qcast"), 0, "{scheme}");
        let n_q = count(&ctx2, module2, "graph.QuantizeLinear");
        let n_dq = count(&ctx2, module2, "graph.DequantizeLinear");
        assert_eq!(n_q, count(&ctx, module, "quant.qcast"), "{scheme}");
        assert_eq!(n_dq, count(&ctx, module, "quant.dcast"), "{scheme}");

        // All three forms compute the same bits on the held-out digits.
        let x = dataset::read_tensor(&model_dir().join("heldout_inputs.pb")).unwrap();
        let want = run(&ctx, module, &x);
        let graph_form = run(&ctx2, module2, &x);
        assert_eq!(want, graph_form, "{scheme}: quant IR vs exported QDQ graph");

        let r = nart_quant::onnx_qdq::lift_qdq(&mut ctx2, module2).unwrap();
        nart_ir::verify::verify(&ctx2, module2).unwrap();
        assert_eq!(r.left, 0, "{scheme}: every QDQ op lifts");
        assert_eq!(r.quantize, n_q, "{scheme}");
        assert_eq!(count(&ctx2, module2, "graph.QuantizeLinear"), 0, "{scheme}");
        assert_eq!(
            count(&ctx2, module2, "graph.DequantizeLinear"),
            0,
            "{scheme}"
        );
        assert_eq!(run(&ctx2, module2, &x), want, "{scheme}: lifted IR");

        // The same IR, once calibration results (which ONNX does not carry) are gone, scales
        // are rounded to f32 (as ONNX stores them), stored weights have their type's full range
        // and float constants stand where the importer puts initializers.
        let func = main_func(&ctx, module);
        strip_calibration(&mut ctx, func);
        nart_quant::onnx_qdq::round_scales_to_expressed(&mut ctx, module);
        hoist_float_constants(&mut ctx, module);
        let narrow = print_func(&ctx, module).contains("i8<-127:127>");
        widen_stored_ranges(&mut ctx, module);
        // Narrowed activation ranges (tensorrt) come back through their Clip.
        assert_eq!(
            narrow,
            print_func(&ctx2, module2).contains("i8<-127:127>"),
            "{scheme}"
        );
        if std::env::var_os("QDQ_DUMP").is_some() {
            std::fs::write(format!("/tmp/qx/{scheme}.a"), print_func(&ctx2, module2)).unwrap();
            std::fs::write(format!("/tmp/qx/{scheme}.b"), print_func(&ctx, module)).unwrap();
        }
        assert_eq!(
            print_func(&ctx2, module2),
            print_func(&ctx, module),
            "{scheme}"
        );

        // And a second trip changes nothing.
        let again = export(&mut ctx2, module2);
        let (mut ctx3, module3) = import(&again);
        nart_quant::onnx_qdq::lift_qdq(&mut ctx3, module3).unwrap();
        assert_eq!(
            print_func(&ctx3, module3),
            print_func(&ctx2, module2),
            "{scheme}"
        );
    }
}

/// Top-1 accuracy of logits against the held-out labels.
fn top1(logits: &[f32]) -> f64 {
    let labels = dataset::read_tensor(&model_dir().join("heldout_labels.pb"))
        .unwrap()
        .to_i64_vec()
        .unwrap();
    let correct = labels
        .iter()
        .enumerate()
        .filter(|(i, &l)| {
            let row = &logits[i * 10..(i + 1) * 10];
            // The first of equal maxima, as NumPy's argmax (quantized logits tie).
            let arg = (1..10).fold(0, |best, k| if row[k] > row[best] { k } else { best });
            arg as i64 == l
        })
        .count();
    correct as f64 / labels.len() as f64
}

#[test]
fn onnxruntime_quantize_static_model_lifts_completely() {
    // Written by scripts/quant/make_ort_qdq.py: u8 activations, s8 per-tensor weights, i32
    // biases whose zero point is a scalar beside a one-element scale (as ONNX Runtime writes it).
    let bytes = std::fs::read(model_dir().join("ort_qdq.onnx")).unwrap();
    let (mut ctx, module) = import(&bytes);
    assert_eq!(count(&ctx, module, "graph.QuantizeLinear"), 7);
    assert_eq!(count(&ctx, module, "graph.DequantizeLinear"), 13);
    let x = dataset::read_tensor(&model_dir().join("heldout_inputs.pb")).unwrap();
    let want = run(&ctx, module, &x);

    let r = nart_quant::onnx_qdq::lift_qdq(&mut ctx, module).unwrap();
    nart_ir::verify::verify(&ctx, module).unwrap();
    assert_eq!(
        (r.quantize, r.dequantize, r.constants, r.left),
        (7, 13, 6, 0),
        "{r:?}"
    );
    assert_eq!(count(&ctx, module, "graph.QuantizeLinear"), 0);
    assert_eq!(count(&ctx, module, "graph.DequantizeLinear"), 0);
    assert_eq!(count(&ctx, module, "quant.scast"), 6);
    // The lifted model computes the same bits as the ONNX operators did.
    let got = run(&ctx, module, &x);
    assert_eq!(got, want);
    let acc = top1(&got);
    eprintln!(
        "onnxruntime quantize_static digits_cnn, run by nart: top-1 {:.2}%",
        100.0 * acc
    );
    assert!(
        acc > 0.95,
        "ONNX Runtime's int8 digits_cnn run by nart: top-1 {acc}"
    );

    // Every DequantizeLinear -> float op chain is reported: the two Convs and the Gemm.
    let lint = nart_quant::lint::lint(&ctx, module);
    let msgs: Vec<&str> = lint.warnings.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(msgs.len(), 3, "{msgs:?}");
    assert!(msgs[0].starts_with("'graph.Conv' 'conv1' computes in float on dequantized operands #0 ('input'), #1 ('conv1.weight_quantized'), #2 ('conv1.bias_quantized')"), "{msgs:?}");
    assert!(msgs[1].starts_with("'graph.Conv' 'conv2'"), "{msgs:?}");
    assert!(msgs[2].starts_with("'graph.Gemm' 'logits'"), "{msgs:?}");
    assert_eq!(lint.edges, 9);
}

#[test]
fn qoperator_ops_stay_graph_ops() {
    // ONNX Runtime's QOperator format (scripts/quant/make_ort_qdq.py): QuantizeLinear ->
    // QLinearConv -> DequantizeLinear. Nothing lifts: the QuantizeLinear feeds an integer op, and
    // the DequantizeLinear reads one; the model runs as ONNX defines it, the same before and after.
    let bytes = std::fs::read(model_dir().join("ort_qop.onnx")).unwrap();
    let (mut ctx, module) = import(&bytes);
    assert_eq!(count(&ctx, module, "graph.QLinearConv"), 2);
    let x = dataset::read_tensor(&model_dir().join("heldout_inputs.pb")).unwrap();
    let want = run(&ctx, module, &x);
    let r = nart_quant::onnx_qdq::lift_qdq(&mut ctx, module).unwrap();
    assert_eq!(
        (r.quantize, r.dequantize, r.constants, r.left),
        (0, 0, 0, 4),
        "{r:?}"
    );
    assert_eq!(count(&ctx, module, "graph.QLinearConv"), 2);
    assert_eq!(count(&ctx, module, "quant.qcast"), 0);
    assert_eq!(run(&ctx, module, &x), want);
    let acc = top1(&want);
    eprintln!(
        "onnxruntime QOperator digits_cnn (QLinearConv), run by nart: top-1 {:.2}%",
        100.0 * acc
    );
    assert!(acc > 0.95, "{acc}");
}

/// A tensor constant: f32 (data type 1) or int8 (3) values of shape `dims`.
fn tensor(
    name: &str,
    dims: &[i64],
    data_type: i32,
    values: &[f64],
) -> nart_onnx_proto::TensorProto {
    let mut t = nart_onnx_proto::TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(data_type),
        ..Default::default()
    };
    if data_type == 1 {
        t.float_data = values.iter().map(|&v| v as f32).collect();
    } else {
        t.int32_data = values.iter().map(|&v| v as i32).collect();
    }
    t
}

fn node(op: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> nart_onnx_proto::NodeProto {
    nart_onnx_proto::NodeProto {
        op_type: Some(op.into()),
        name: Some(name.into()),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

fn constant(name: &str, t: nart_onnx_proto::TensorProto) -> nart_onnx_proto::NodeProto {
    let mut n = node("Constant", name, &[], &[name]);
    n.attribute.push(nart_onnx_proto::AttributeProto {
        name: Some("value".into()),
        r#type: Some(4),
        t: Some(t),
        ..Default::default()
    });
    n
}

fn f32_info(name: &str, dims: &[i64]) -> nart_onnx_proto::ValueInfoProto {
    nart_onnx_proto::ValueInfoProto::tensor(name, nart_onnx_proto::DataType::Float, dims)
}

#[test]
fn constant_node_parameters_lift_as_pytorch_writes_them() {
    // PyTorch's exporter writes scales and zero points as Constant nodes (not initializers),
    // int8 activations, and per-channel weights as an int8 initializer with `axis`.
    let mut dq_w = node("DequantizeLinear", "dq_w", &["w", "ws", "wz"], &["wf"]);
    dq_w.attribute.push(nart_onnx_proto::AttributeProto {
        name: Some("axis".into()),
        r#type: Some(2),
        i: Some(1),
        ..Default::default()
    });
    let graph = nart_onnx_proto::GraphProto {
        name: Some("torch_style".into()),
        node: vec![
            constant("s", tensor("s", &[], 1, &[0.05])),
            constant("z", tensor("z", &[], 3, &[0.0])),
            node("QuantizeLinear", "q", &["x", "s", "z"], &["xq"]),
            node("DequantizeLinear", "dq", &["xq", "s", "z"], &["xd"]),
            constant("ws", tensor("ws", &[3], 1, &[0.1, 0.2, 0.3])),
            constant("wz", tensor("wz", &[3], 3, &[0.0, 0.0, 0.0])),
            dq_w,
            node("MatMul", "mm", &["xd", "wf"], &["y"]),
        ],
        initializer: vec![tensor("w", &[2, 3], 3, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0])],
        input: vec![f32_info("x", &[1, 2])],
        output: vec![f32_info("y", &[1, 3])],
        ..Default::default()
    };
    let model = nart_onnx_proto::ModelProto {
        ir_version: Some(8),
        opset_import: vec![nart_onnx_proto::OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        graph: Some(graph),
        ..Default::default()
    };
    let (mut ctx, module) = import(&nart_onnx_proto::encode_model(&model));
    let x = Tensor::from_vec(vec![1, 2], vec![1.0f32, -0.5]).unwrap();
    let want = run(&ctx, module, &x);
    let r = nart_quant::onnx_qdq::lift_qdq(&mut ctx, module).unwrap();
    nart_ir::verify::verify(&ctx, module).unwrap();
    assert_eq!(
        (r.quantize, r.dequantize, r.constants, r.left),
        (1, 2, 1, 0),
        "{r:?}"
    );
    let text = print_func(&ctx, module);
    assert!(
        text.contains("quant.qcast %arg0 : tensor<1x2xf32> to tensor<1x2x!quant.uniform<i8:f32, 5.000000074505806e-02>>"),
        "{text}"
    );
    assert!(
        text.contains("tensor<2x3x!quant.uniform<i8:f32:1, {1.0000000149011612e-01,2.0000000298023224e-01,3.0000001192092896e-01}>>"),
        "{text}"
    );
    assert_eq!(run(&ctx, module, &x), want);
    // x quantizes to [20, -10] steps of 0.05 (exactly 1.0 and -0.5), w dequantizes per column
    // to [[0, 0.2, 0.6], [0.3, 0.8, 1.5]], so y = [-0.15, -0.2, -0.15].
    for (got, exp) in want.iter().zip([-0.15f32, -0.2, -0.15]) {
        assert!((got - exp).abs() < 1e-6, "{want:?}");
    }
}
