//! The segment ops print and parse in both forms, and their verifiers reject malformed
//! segments with a message naming what is wrong.

use nart_test_dialect::roundtrip::{
    allow_unregistered, check_generic_round_trip, check_round_trip, parse,
};

const DIALECTS: &[fn(&mut nart_ir::Context)] = &[
    nart_dialect_func::register,
    crate::register,
    allow_unregistered,
];

const SEGMENT: &str = r#"func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = target.segment "npu"(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %1 = "t.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    target.yield %1, %a : tensor<4xf32>, tensor<4xf32>
  }
  %2 = target.compiled "interp"(%0#0) {artifact = "a\00b", format = "mlir-text", sdk_version = "nart 0.1.0"} : (tensor<4xf32>) -> tensor<4xf32>
  return %2, %0#1 : tensor<4xf32>, tensor<4xf32>
}
"#;

#[test]
fn segments_round_trip() {
    let custom = check_round_trip(DIALECTS, SEGMENT).unwrap();
    assert!(
        custom.contains(r#"%0:2 = target.segment "npu"(%arg0) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {"#),
        "{custom}"
    );
    assert!(
        custom.contains("target.yield %2, %arg1 : tensor<4xf32>, tensor<4xf32>"),
        "{custom}"
    );
    assert!(
        custom.contains(r#"target.compiled "interp"(%0#0)"#),
        "{custom}"
    );
    let generic = check_generic_round_trip(DIALECTS, SEGMENT).unwrap();
    assert!(
        generic.contains(r#""target.segment"(%arg0) <{target = "npu"}>"#),
        "{generic}"
    );
}

#[test]
fn an_empty_segment_round_trips() {
    let text = "func.func @f() {\n  target.segment \"npu\"() : () -> () {\n    target.yield\n  }\n  return\n}\n";
    let custom = check_round_trip(DIALECTS, text).unwrap();
    assert!(
        custom.contains("target.segment \"npu\"() : () -> () {\n      target.yield\n    }"),
        "{custom}"
    );
}

fn error_of(text: &str) -> String {
    match parse(DIALECTS, text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

#[test]
fn verifier_rejects_malformed_segments() {
    let seg = |sig: &str, arg: &str, body: &str| {
        format!(
            "func.func @f(%x: tensor<4xf32>) {{\n  %0 = target.segment \"npu\"(%x) : {sig} {{\n  ^bb0({arg}):\n{body}\n  }}\n  return\n}}\n"
        )
    };
    for (text, want) in [
        (
            seg("(tensor<4xf32>) -> tensor<4xf32>", "%a: tensor<4xi8>", "    target.yield %a : tensor<4xi8>"),
            "body argument #0 has type tensor<4xi8> but operand #0 has type tensor<4xf32>",
        ),
        (
            seg("(tensor<4xf32>) -> tensor<4xf32>", "%a: tensor<4xf32>, %b: tensor<4xf32>", "    target.yield %a : tensor<4xf32>"),
            "has 1 operands but its body takes 2 arguments",
        ),
        (
            seg("(tensor<4xf32>) -> tensor<4xf32>", "%a: tensor<4xf32>", "    target.yield %a, %a : tensor<4xf32>, tensor<4xf32>"),
            "yields 2 values but has 1 results",
        ),
        (
            seg("(tensor<4xf32>) -> tensor<4xi8>", "%a: tensor<4xf32>", "    target.yield %a : tensor<4xf32>"),
            "yielded value #0 has type tensor<4xf32> but result #0 has type tensor<4xi8>",
        ),
        (
            seg("(tensor<4xf32>) -> tensor<4xf32>", "%a: tensor<4xf32>", "    \"t.end\"(%a) : (tensor<4xf32>) -> ()"),
            "body must end with 'target.yield'",
        ),
        (
            "func.func @f(%x: tensor<4xf32>) {\n  %0 = target.segment \"\"(%x) : (tensor<4xf32>) -> tensor<4xf32> {\n  ^bb0(%a: tensor<4xf32>):\n    target.yield %a : tensor<4xf32>\n  }\n  return\n}\n".to_string(),
            "'target.segment' op requires a non-empty 'target'",
        ),
        (
            "func.func @f(%x: tensor<4xf32>) {\n  %0 = target.segment \"npu\"(%x) : (tensor<4xf32>) -> tensor<4xf32> {\n  ^bb0(%a: tensor<4xf32>):\n    %1 = \"t.use\"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n    target.yield %1 : tensor<4xf32>\n  }\n  return\n}\n".to_string(),
            "using value defined outside the region",
        ),
        (
            "func.func @f(%x: tensor<4xf32>) {\n  %0 = target.compiled \"npu\"(%x) {artifact = \"\", format = \"\", sdk_version = \"1\"} : (tensor<4xf32>) -> tensor<4xf32>\n  return\n}\n".to_string(),
            "'target.compiled' op requires a non-empty 'format'",
        ),
        (
            "func.func @f(%x: tensor<4xf32>) {\n  target.yield %x : tensor<4xf32>\n}\n".to_string(),
            "'target.yield' op expects parent op 'target.segment'",
        ),
    ] {
        let err = error_of(&text);
        assert!(err.contains(want), "want '{want}' in:\n{err}");
    }
}

/// `docs/dialects/target.md` is generated; `NART_BLESS=1` rewrites it.
#[test]
fn docs_are_up_to_date() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dialects/target.md");
    if let Err(e) =
        nart_ir::docs::check_generated_file(&path, &crate::render_docs(), "nart-dialect-target")
    {
        panic!("{e}");
    }
}
