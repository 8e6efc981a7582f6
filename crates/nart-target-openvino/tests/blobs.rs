//! Compiled blobs: `OpenvinoTarget::new` stores OpenVINO's exported blob (format
//! `openvino-blob`) instead of the ONNX model; it imports with the fp32 precision hint and runs
//! as the ONNX artifact does; a blob from another OpenVINO version is an error naming both
//! versions; a damaged header or blob is an error, never a panic.

mod common;

use nart_openvino_rt::{decode_blob, encode_blob, BLOB_FORMAT, DEVICE};
use nart_target::rt::{Artifact, RtError};
use nart_target::{Setup, Target, TargetRegistry};
use nart_target_openvino::OpenvinoTarget;
use nart_tensor::Tensor;

const TEXT: &str = r#"func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %c = "graph.constant"() <{value = dense<[[0.5, -1.0, 2.0], [0.25, 3.0, -0.75]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %shape = "graph.constant"() <{value = dense<[3, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %s = "graph.Add"(%x, %c) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = "graph.Tanh"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = "graph.Mul"(%t, %y) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = "graph.Reshape"(%m, %shape) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}
"#;

/// The segment of [`TEXT`] compiled by `target`.
fn compiled(target: &OpenvinoTarget) -> Artifact {
    let mut ctx = common::context();
    let m = nart_ir::parser::parse_source(&mut ctx, "t.mlir", TEXT).unwrap();
    let func = common::main_func(&ctx, m);
    let mut registry = TargetRegistry::builtin();
    registry.register(Box::new(target.clone()));
    let setup = Setup::resolve(&registry, &["openvino".to_string()], &[]).unwrap();
    let parts = nart_target::partition_function(&mut ctx, func, &setup).unwrap();
    target.compile(&mut ctx, parts.segment_ops[0]).unwrap()
}

fn inputs() -> Vec<Tensor> {
    let x = Tensor::from_vec(vec![2, 3], vec![-1.0f32, 0.5, 2.0, -3.0, 0.25, 1.0]).unwrap();
    let y = Tensor::from_vec(vec![2, 3], vec![0.3f32, -0.2, 0.1, 2.0, 0.7, -1.5]).unwrap();
    vec![x, y]
}

#[test]
fn the_header_round_trips_and_damage_is_an_error() {
    let hints = vec![("INFERENCE_PRECISION_HINT".to_string(), "f32".to_string())];
    let bytes = encode_blob("CPU", &hints, b"\x00blob\n\nbytes");
    let b = decode_blob(&bytes).unwrap();
    assert_eq!((b.device.as_str(), b.hints.clone()), ("CPU", hints));
    assert_eq!(b.blob, b"\x00blob\n\nbytes");
    let err = |bytes: &[u8]| decode_blob(bytes).unwrap_err();
    assert!(err(b"no header at all").contains("no header"));
    assert!(err(b"other-magic 1\ndevice CPU\n\nx").contains("does not start with"));
    assert!(err(b"nart-openvino-blob 1\nhint A\n\nx").contains("bad header line 'hint A'"));
    assert!(err(b"nart-openvino-blob 1\nhint A B\n\nx").contains("names no device"));
    assert!(err(b"nart-openvino-blob 1\ndevice CPU\n\n").contains("the blob is empty"));
}

#[test]
fn a_blob_imports_in_fp32_and_runs_as_the_onnx_model_does() {
    if !common::openvino_here("a_blob_imports_in_fp32_and_runs_as_the_onnx_model_does") {
        return;
    }
    let target = OpenvinoTarget::new();
    let blob = compiled(&target);
    assert_eq!(blob.format, BLOB_FORMAT);
    assert_eq!(blob.sdk_version, nart_openvino_rt::availability().unwrap());
    let header = decode_blob(&blob.bytes).unwrap();
    assert_eq!(header.device, DEVICE);
    assert_eq!(header.hints, nart_openvino_rt::compile_hints());
    // The ONNX artifact of the same segment, for the same OpenVINO.
    let version = blob.sdk_version.strip_prefix("OpenVINO ").unwrap();
    let onnx = compiled(&OpenvinoTarget::with_version(version));
    assert_eq!(onnx.format, "onnx");

    // The executable does not keep pointing into the artifact it was loaded from (OpenVINO's
    // import refers to the bytes it is given): zeroing them after loading changes nothing.
    let mut scratch = blob.clone();
    let from_blob = nart_openvino_rt::load(&scratch).unwrap();
    scratch.bytes.fill(0);
    drop(scratch);
    // Import takes no properties; the precision set on the core first holds.
    assert_eq!(
        from_blob.property("INFERENCE_PRECISION_HINT").unwrap(),
        "f32"
    );
    let from_onnx = nart_openvino_rt::load(&onnx).unwrap();
    use nart_target::rt::Executable;
    let got = from_blob.run(&inputs()).unwrap();
    assert_eq!(got, from_onnx.run(&inputs()).unwrap());
    let want = common::interpret(TEXT, &inputs());
    nart_target::harness::assert_close("add+tanh+mul+reshape", "openvino", &got, &want, 1e-6, 1e-5);
}

#[test]
fn another_version_or_device_or_damaged_blob_is_an_error() {
    if !common::openvino_here("another_version_or_device_or_damaged_blob_is_an_error") {
        return;
    }
    let blob = compiled(&OpenvinoTarget::new());
    let loaded = nart_openvino_rt::availability().unwrap();
    let old = Artifact::new(
        "openvino",
        BLOB_FORMAT,
        "OpenVINO 2025.0.0-test",
        blob.bytes.clone(),
    );
    let e = nart_openvino_rt::load(&old).unwrap_err();
    assert!(matches!(e, RtError::Version { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("OpenVINO 2025.0.0-test") && text.contains(&loaded),
        "{text}"
    );

    let header = decode_blob(&blob.bytes).unwrap();
    let on_gpu = encode_blob("GPU", &header.hints, header.blob);
    let gpu = Artifact::new("openvino", BLOB_FORMAT, loaded.clone(), on_gpu);
    let e = nart_openvino_rt::load(&gpu).unwrap_err();
    assert!(e.to_string().contains("compiled for device 'GPU'"), "{e}");

    let half = encode_blob(DEVICE, &header.hints, &header.blob[..header.blob.len() / 2]);
    let e = nart_openvino_rt::load(&Artifact::new(
        "openvino",
        BLOB_FORMAT,
        loaded.clone(),
        half,
    ))
    .unwrap_err();
    assert!(matches!(e, RtError::Corrupt { .. }), "{e}");
    let junk = encode_blob(DEVICE, &header.hints, b"not a blob");
    let e =
        nart_openvino_rt::load(&Artifact::new("openvino", BLOB_FORMAT, loaded, junk)).unwrap_err();
    assert!(matches!(e, RtError::Corrupt { .. }), "{e}");
}
