//! The runtime half on bad artifacts and bad inputs: another target's format, another SDK,
//! bytes that are not an ONNX model, the wrong number of inputs, an element type segments do
//! not exchange, a shape the model does not take: each an error of its kind, never a panic.

mod common;

use nart_target::rt::{Artifact, Executable, RtError};
use nart_tensor::Tensor;

/// A one-op model (`Relu` of a 2x3 f32 input) as an artifact, from a real segment.
fn relu_artifact() -> Artifact {
    use nart_target::{Setup, Target, TargetRegistry};
    let text = r#"func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "graph.Relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
"#;
    let mut ctx = common::context();
    let m = nart_ir::parser::parse_source(&mut ctx, "relu.mlir", text).unwrap();
    let func = common::main_func(&ctx, m);
    let target = nart_target_openvino::OpenvinoTarget::with_version("2026.4.1-test");
    let mut registry = TargetRegistry::builtin();
    registry.register(Box::new(target.clone()));
    let setup = Setup::resolve(&registry, &["openvino".to_string()], &[]).unwrap();
    let parts = nart_target::partition_function(&mut ctx, func, &setup).unwrap();
    target.compile(&mut ctx, parts.segment_ops[0]).unwrap()
}

#[test]
fn foreign_artifacts_are_refused_before_loading_anything() {
    let a = relu_artifact();
    let other_format = Artifact::new(
        "openvino",
        "onednn-ops",
        a.sdk_version.clone(),
        a.bytes.clone(),
    );
    assert!(matches!(
        nart_openvino_rt::load(&other_format),
        Err(RtError::Format { .. })
    ));
    let other_sdk = Artifact::new("openvino", "onnx", "oneDNN 2.6.3", a.bytes.clone());
    let e = nart_openvino_rt::load(&other_sdk).unwrap_err();
    assert!(matches!(e, RtError::Version { .. }), "{e}");
}

#[test]
fn bad_bytes_and_bad_inputs_are_errors() {
    if !common::openvino_here("bad_bytes_and_bad_inputs_are_errors") {
        return;
    }
    let a = relu_artifact();
    let garbage = Artifact::new(
        "openvino",
        "onnx",
        a.sdk_version.clone(),
        b"not an onnx model".to_vec(),
    );
    let e = nart_openvino_rt::load(&garbage).unwrap_err();
    assert!(matches!(e, RtError::Corrupt { .. }), "{e}");
    let truncated = Artifact::new(
        "openvino",
        "onnx",
        a.sdk_version.clone(),
        a.bytes[..a.bytes.len() / 2].to_vec(),
    );
    assert!(nart_openvino_rt::load(&truncated).is_err());

    let exe = nart_openvino_rt::load(&a).unwrap();
    let x = Tensor::from_vec(vec![2, 3], vec![-1.0f32, 2.0, -3.0, 4.0, -5.0, 6.0]).unwrap();
    let y = exe.run(std::slice::from_ref(&x)).unwrap();
    assert_eq!(y[0].as_f32().unwrap(), &[0.0, 2.0, 0.0, 4.0, 0.0, 6.0]);
    let e = exe.run(&[x.clone(), x.clone()]).unwrap_err();
    assert_eq!(e.to_string(), "bad inputs: expected 1 inputs, got 2");
    let f64_input = Tensor::from_vec(vec![2, 3], vec![0.0f64; 6]).unwrap();
    let e = exe.run(&[f64_input]).unwrap_err();
    assert!(matches!(e, RtError::Inputs(_)), "{e}");
    let wrong_shape = Tensor::from_vec(vec![4, 5], vec![0.0f32; 20]).unwrap();
    assert!(exe.run(&[wrong_shape]).is_err());
    // The executable still runs after the errors.
    assert_eq!(exe.run(&[x]).unwrap(), y);
}
