//! Invalid ONNX that ONNX Runtime rejects is rejected at import with a diagnostic naming the node
//! or the name (zero or negative windows, a graph input or initializer listed twice), and a graph
//! input that shares its name with an initializer overrides it, as ONNX says: the initializer
//! becomes the argument's `onnx.default` (IR version 4 and later), and stays a constant before.
//!
//! The models are built here with the prost types.

use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::Context;
use nart_onnx_proto::{
    AttributeProto, GraphProto, Message, ModelProto, NodeProto, OperatorSetIdProto, TensorProto,
    ValueInfoProto,
};

fn f32_info(name: &str, dims: &[i64]) -> ValueInfoProto {
    ValueInfoProto::tensor(name, nart_onnx_proto::DataType::Float, dims)
}

fn f32_tensor(name: &str, dims: &[i64], vals: &[f32]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(1),
        float_data: vals.to_vec(),
        ..Default::default()
    }
}

fn ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(7),
        ints: v.to_vec(),
        ..Default::default()
    }
}

fn node(
    op: &str,
    name: &str,
    inputs: &[&str],
    outputs: &[&str],
    attrs: Vec<AttributeProto>,
) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(name.into()),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        attribute: attrs,
        ..Default::default()
    }
}

fn model(ir_version: i64, graph: GraphProto) -> Vec<u8> {
    ModelProto {
        ir_version: Some(ir_version),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(21),
        }],
        graph: Some(graph),
        ..Default::default()
    }
    .encode_to_vec()
}

fn import(bytes: &[u8]) -> (Context, Result<nart_ir::Op, Vec<String>>) {
    let mut ctx = Context::new();
    let res = nart_onnx::import_model(&mut ctx, bytes, None)
        .map_err(|ds| ds.iter().map(|d| d.message.clone()).collect());
    (ctx, res)
}

fn errors(bytes: &[u8]) -> Vec<String> {
    import(bytes).1.expect_err("the model is invalid")
}

/// A 1x1x4x4 input through one windowed node.
fn windowed(op: &str, attrs: Vec<AttributeProto>, weight: bool) -> Vec<u8> {
    let inputs: &[&str] = if weight { &["x", "w"] } else { &["x"] };
    let mut g = GraphProto {
        name: Some("g".into()),
        node: vec![node(op, "win", inputs, &["y"], attrs)],
        input: vec![f32_info("x", &[1, 1, 4, 4])],
        output: vec![f32_info("y", &[])],
        ..Default::default()
    };
    g.output[0].r#type = None;
    if weight {
        g.initializer
            .push(f32_tensor("w", &[1, 1, 2, 2], &[1.0; 4]));
    }
    model(10, g)
}

#[test]
fn zero_or_negative_windows_are_rejected_naming_the_node() {
    let cases = [
        (
            "MaxPool",
            ints("kernel_shape", &[0, 0]),
            false,
            "'kernel_shape' must hold positive values, but is [0, 0]",
        ),
        (
            "MaxPool",
            ints("kernel_shape", &[-1, 2]),
            false,
            "'kernel_shape' must hold positive values, but is [-1, 2]",
        ),
        (
            "AveragePool",
            ints("kernel_shape", &[2, 0]),
            false,
            "'kernel_shape' must hold positive values",
        ),
        (
            "LpPool",
            ints("kernel_shape", &[0, 2]),
            false,
            "'kernel_shape' must hold positive values",
        ),
        (
            "Conv",
            ints("kernel_shape", &[0, 0]),
            true,
            "'kernel_shape' must hold positive values",
        ),
        (
            "Conv",
            ints("dilations", &[0, 1]),
            true,
            "'dilations' must hold positive values",
        ),
        (
            "ConvTranspose",
            ints("strides", &[1, -2]),
            true,
            "'strides' must hold positive values",
        ),
    ];
    for (op, attr, weight, want) in cases {
        let e = errors(&windowed(op, vec![attr], weight));
        assert_eq!(e.len(), 1, "{op}: {e:?}");
        assert!(
            e[0].starts_with(&format!("node 'win' ({op}): attribute ")) && e[0].contains(want),
            "{op}: {e:?}"
        );
    }
    // A valid window imports.
    let (_, res) = import(&windowed(
        "MaxPool",
        vec![ints("kernel_shape", &[2, 2])],
        false,
    ));
    res.expect("a 2x2 MaxPool imports");
}

#[test]
fn names_listed_twice_are_rejected() {
    let add = node("Add", "add", &["x", "x"], &["y"], vec![]);
    let g = GraphProto {
        name: Some("g".into()),
        node: vec![add.clone()],
        input: vec![f32_info("x", &[2]), f32_info("x", &[2])],
        output: vec![f32_info("y", &[2])],
        ..Default::default()
    };
    assert_eq!(
        errors(&model(10, g)),
        ["graph 'g' lists input 'x' more than once"]
    );
    let g = GraphProto {
        name: Some("g".into()),
        node: vec![node("Add", "add", &["x", "b"], &["y"], vec![])],
        input: vec![f32_info("x", &[2])],
        output: vec![f32_info("y", &[2])],
        initializer: vec![
            f32_tensor("b", &[2], &[1.0, 2.0]),
            f32_tensor("b", &[2], &[3.0, 4.0]),
        ],
        ..Default::default()
    };
    assert_eq!(
        errors(&model(10, g)),
        ["graph 'g' has more than one initializer named 'b'"]
    );
}

/// `y = x + b` where `b` is both a graph input and an initializer.
fn overriding(ir_version: i64, b_dims: &[i64]) -> Vec<u8> {
    let g = GraphProto {
        name: Some("g".into()),
        node: vec![node("Add", "add", &["x", "b"], &["y"], vec![])],
        // `b` comes first: arguments with defaults go after the others.
        input: vec![f32_info("b", b_dims), f32_info("x", &[2])],
        output: vec![f32_info("y", &[2])],
        initializer: vec![f32_tensor("b", &[2], &[10.0, 20.0])],
        ..Default::default()
    };
    model(ir_version, g)
}

#[test]
fn a_graph_input_overrides_the_initializer_of_its_name() {
    let (ctx, res) = import(&overriding(10, &[2]));
    let m = res.expect("imports");
    let text = print_op(&ctx, m, &PrintOptions::default());
    assert!(
        text.contains(
            "func.func @main_graph(%arg0: tensor<2xf32> {onnx.name = \"x\"}, %arg1: tensor<2xf32> {onnx.default = dense<[1.000000e+01, 2.000000e+01]> : tensor<2xf32>, onnx.name = \"b\"})"
        ),
        "{text}"
    );
    assert!(!text.contains("graph.constant"), "{text}");
    assert!(
        text.contains("\"graph.Add\"(%arg0, %arg1)") || text.contains("graph.Add %arg0, %arg1"),
        "{text}"
    );
    // Export keeps the default as an initializer of the same name, and it imports the same.
    let bytes = nart_onnx::export_model(&ctx, m).expect("exports");
    let back = ModelProto::decode(bytes.as_slice()).expect("decodes");
    let g = back.graph.as_ref().expect("a graph");
    assert!(g.initializer.iter().any(|t| t.name() == "b"), "{g:?}");
    let (ctx2, res2) = import(&bytes);
    let again = print_op(&ctx2, res2.expect("re-imports"), &PrintOptions::default());
    let func = |t: &str| t[t.find("func.func").expect("a function")..].to_string();
    assert_eq!(func(&again), func(&text));
}

#[test]
fn before_ir_version_4_initializers_listed_as_inputs_are_constants() {
    let (ctx, res) = import(&overriding(3, &[2]));
    let text = print_op(&ctx, res.expect("imports"), &PrintOptions::default());
    assert!(
        text.contains("@main_graph(%arg0: tensor<2xf32> {onnx.name = \"x\"})"),
        "{text}"
    );
    assert!(text.contains("graph.constant"), "{text}");
}

#[test]
fn a_default_must_fit_the_declared_input() {
    let e = errors(&overriding(10, &[3]));
    assert_eq!(
        e,
        ["graph input 'b': its initializer has type tensor<2xf32>, which does not fit the declared tensor<3xf32>"]
    );
}
