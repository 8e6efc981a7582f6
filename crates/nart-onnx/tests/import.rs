//! Imports the models `tests/data/make_models.py` writes, and checks the errors of the broken
//! ones under `tests/data/bad/`.

use std::path::PathBuf;

use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::{Context, Diagnostic};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn import(name: &str) -> (Context, Result<nart_ir::Op, Vec<Diagnostic>>) {
    let mut ctx = Context::new();
    let r = nart_onnx::import_file(&mut ctx, &data(name));
    (ctx, r)
}

fn import_ok(name: &str) -> (Context, nart_ir::Op) {
    let (ctx, r) = import(name);
    match r {
        Ok(m) => (ctx, m),
        Err(errs) => {
            let msgs: Vec<&str> = errs.iter().map(|d| d.message.as_str()).collect();
            panic!("{name} failed to import:\n{}", msgs.join("\n"));
        }
    }
}

fn errors(name: &str) -> Vec<String> {
    let (_, r) = import(name);
    match r {
        Ok(_) => panic!("{name} imported but should fail"),
        Err(errs) => errs.into_iter().map(|d| d.message).collect(),
    }
}

fn print(ctx: &Context, m: nart_ir::Op) -> String {
    print_op(ctx, m, &PrintOptions::default())
}

#[test]
fn every_good_model_imports_and_verifies() {
    for name in [
        "mlp.onnx",
        "cnn.onnx",
        "transformer_ops.onnx",
        "detection.onnx",
        "quant.onnx",
        "old_opset.onnx",
        "control_flow.onnx",
        "function.onnx",
        "typed_fields.onnx",
        "external.onnx",
    ] {
        let (ctx, m) = import_ok(name);
        nart_ir::verify::verify(&ctx, m).expect("the imported module verifies");
    }
}

#[test]
fn mlp_has_symbolic_batch_and_metadata() {
    let (ctx, m) = import_ok("mlp.onnx");
    let text = print(&ctx, m);
    assert!(text.contains("tensor<?x4xf32>"), "{text}");
    assert!(text.contains("tensor<?x3xf32>"), "{text}");
    assert!(text.contains("graph.dim_names"), "{text}");
    assert!(
        text.contains("onnx.producer_name = \"nart-make-models\""),
        "{text}"
    );
    assert!(text.contains("author"), "{text}");
    assert!(text.contains("graph.MatMul"), "{text}");
}

#[test]
fn cnn_shapes_are_inferred() {
    let (ctx, m) = import_ok("cnn.onnx");
    let text = print(&ctx, m);
    assert!(text.contains("tensor<1x8x8x8xf32>"), "conv output: {text}");
    assert!(text.contains("tensor<1x8x4x4xf32>"), "pool output: {text}");
    assert!(text.contains("tensor<1x10xf32>"), "{text}");
}

#[test]
fn old_opsets_are_upgraded() {
    let (ctx, m) = import_ok("old_opset.onnx");
    let text = print(&ctx, m);
    assert!(
        text.contains("graph.Resize"),
        "Upsample becomes Resize: {text}"
    );
    assert!(!text.contains("graph.Upsample"), "{text}");
    assert!(
        text.contains("tensor<2x3xf32>"),
        "Slice with attributes: {text}"
    );
    assert!(text.contains("tensor<1x3xf32>"), "Split sizes: {text}");
}

#[test]
fn subgraphs_become_regions_and_functions_are_inlined() {
    let (ctx, m) = import_ok("control_flow.onnx");
    let text = print(&ctx, m);
    assert!(text.contains("graph.If"), "{text}");
    assert!(text.contains("graph.Loop"), "{text}");
    assert!(text.contains("graph.yield"), "{text}");
    let (ctx, m) = import_ok("function.onnx");
    let text = print(&ctx, m);
    assert!(text.contains("graph.LeakyRelu"), "{text}");
    assert!(
        text.contains("alpha = 2.000000e-01"),
        "the referenced attribute is resolved: {text}"
    );
    assert!(!text.contains("ScaledRelu\""), "{text}");
}

#[test]
fn external_data_is_read() {
    let (ctx, m) = import_ok("external.onnx");
    let text = print(&ctx, m);
    assert!(text.contains("tensor<3x3xf32>"), "{text}");
}

#[test]
fn truncated_and_garbled_files_are_errors() {
    let e = errors("bad/truncated.onnx");
    assert!(e[0].contains("cannot decode"), "{e:?}");
    let e = errors("bad/garbage.onnx");
    assert!(!e.is_empty());
}

#[test]
fn missing_initializer_names_node_op_and_name() {
    let e = errors("bad/missing_initializer.onnx");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("node 'add_bias' (Add)"), "{e:?}");
    assert!(e[0].contains("'bias'"), "{e:?}");
}

#[test]
fn cycles_are_reported() {
    let e = errors("bad/cycle.onnx");
    assert!(
        e.iter()
            .any(|m| m.contains("cycle") && m.contains("node 'second' (Add)")),
        "{e:?}"
    );
}

#[test]
fn unknown_ops_are_all_reported_at_once() {
    let e = errors("bad/unknown_ops.onnx");
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(
        e[0].contains("node 'fancy' (FancyOp)") && e[0].contains("unknown operator"),
        "{e:?}"
    );
    assert!(
        e[1].contains("'mystery' (Mystery, domain 'com.example')"),
        "{e:?}"
    );
    // With unknown ops allowed, the rest of the model can still be inspected.
    let mut ctx = Context::new();
    let opts = nart_onnx::ImportOptions {
        allow_unknown_ops: true,
    };
    let m = nart_onnx::import_file_with(&mut ctx, &data("bad/unknown_ops.onnx"), &opts)
        .expect("imports with placeholders");
    let text = print(&ctx, m);
    assert!(text.contains("onnx.FancyOp"), "{text}");
    assert!(text.contains("graph.Relu"), "{text}");
}

#[test]
fn attribute_errors_name_the_attribute() {
    let e = errors("bad/missing_attr.onnx");
    assert!(
        e[0].contains("node 'cat' (Concat): missing required attribute 'axis'"),
        "{e:?}"
    );
    let e = errors("bad/bad_attr_type.onnx");
    assert!(
        e[0].contains("attribute 'perm' has type FLOATS but Transpose expects INTS"),
        "{e:?}"
    );
}

#[test]
fn shape_mismatches_are_errors() {
    let e = errors("bad/shape_mismatch.onnx");
    assert!(
        e[0].contains("operands are not broadcast-compatible: tensor<2x3xf32> and tensor<4xf32>"),
        "{e:?}"
    );
}

#[test]
fn external_paths_escaping_the_model_dir_are_rejected() {
    let e = errors("bad/external_escape.onnx");
    assert!(e[0].contains("escapes"), "{e:?}");
}

#[test]
fn locations_carry_node_names() {
    let (ctx, m) = import_ok("mlp.onnx");
    let opts = PrintOptions {
        debug_info: true,
        ..Default::default()
    };
    let text = print_op(&ctx, m, &opts);
    assert!(text.contains("\"fc1\""), "{text}");
}

/// Snapshots of the printed IR of small imported models (large constants elided).
#[test]
fn printed_ir_snapshots() {
    let opts = PrintOptions {
        elide_elements_larger_than: Some(4),
        ..Default::default()
    };
    for name in ["mlp", "old_opset", "control_flow"] {
        let (ctx, m) = import_ok(&format!("{name}.onnx"));
        insta::assert_snapshot!(name, print_op(&ctx, m, &opts));
    }
}

/// The models of the repository's own model zoo import and verify.
#[test]
fn zoo_models_import() {
    let zoo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/models");
    let Ok(entries) = std::fs::read_dir(&zoo) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path().join("model.onnx");
        if !path.exists() {
            continue;
        }
        let mut ctx = Context::new();
        if let Err(errs) = nart_onnx::import_file(&mut ctx, &path) {
            panic!("{}: {}", path.display(), errs[0].message);
        }
    }
}
