//! The round trip of fused ops through ONNX: the exporter writes `graph.fused_conv` and
//! `graph.fused_gemm` as ONNX Runtime's `com.microsoft` `FusedConv`/`FusedGemm` where its
//! kernels take the activation, and as standard nodes otherwise (`FusedGemm` has no `Clip`,
//! `FusedMatMul` no activation); after `graph-unfuse` the model has standard ops only. ONNX
//! Runtime (its own optimizations off) runs all three models and must agree with the model
//! before fusion.

mod common;

use common::{count, ctx, parse, python, python_has_onnxruntime, run};

const MODEL: &str = r#"
func.func @main_graph(%x: tensor<1x3x8x8xf32>, %a: tensor<4x6xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>) {
  %none = "graph.none"() : () -> none
  %w1 = "graph.constant"() <{value = dense<0.125> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
  %b1 = "graph.constant"() <{value = dense<[-0.5, 0.25, 0.0, 0.5]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %c1 = "graph.Conv"(%x, %w1, %b1) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r1 = "graph.Relu"(%c1) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %w2 = "graph.constant"() <{value = dense<-0.25> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
  %c2 = "graph.Conv"(%x, %w2, %none) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x6x6xf32>
  %cb = "graph.constant"() <{value = dense<[[[0.5]], [[1.0]], [[-1.0]], [[2.0]]]> : tensor<4x1x1xf32>}> : () -> tensor<4x1x1xf32>
  %c2b = "graph.Add"(%c2, %cb) : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %lo = "graph.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %hi = "graph.constant"() <{value = dense<6.0> : tensor<f32>}> : () -> tensor<f32>
  %r2 = "graph.Clip"(%c2b, %lo, %hi) : (tensor<1x4x6x6xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4x6x6xf32>
  %c3 = "graph.Conv"(%x, %w2, %b1) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %r3 = "graph.LeakyRelu"(%c3) <{alpha = 0.2 : f32}> : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %wg = "graph.constant"() <{value = dense<0.3> : tensor<6x5xf32>}> : () -> tensor<6x5xf32>
  %cg = "graph.constant"() <{value = dense<[0.1, -0.2, 0.3, -0.4, 0.5]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %g1 = "graph.Gemm"(%a, %wg, %cg) : (tensor<4x6xf32>, tensor<6x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %s1 = "graph.Sigmoid"(%g1) : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %g2 = "graph.Gemm"(%a, %wg, %cg) <{alpha = 2.0 : f32}> : (tensor<4x6xf32>, tensor<6x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %s2 = "graph.Clip"(%g2, %lo, %hi) : (tensor<4x5xf32>, tensor<f32>, tensor<f32>) -> tensor<4x5xf32>
  %g3 = "graph.Gemm"(%a, %wg, %none) : (tensor<4x6xf32>, tensor<6x5xf32>, none) -> tensor<4x5xf32>
  %s3 = "graph.HardSigmoid"(%g3) <{alpha = 0.3 : f32, beta = 0.4 : f32}> : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %m = "graph.MatMul"(%a, %wg) : (tensor<4x6xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  %mb = "graph.Add"(%m, %cg) : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %t = "graph.Tanh"(%mb) : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return %r1, %r2, %r3, %s1, %s2, %s3, %t : tensor<1x4x8x8xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>
}
"#;

const COMPARE: &str = r#"
import sys, onnx, numpy as np, onnxruntime as ort
ref, fused, unfused = sys.argv[1:4]
rng = np.random.default_rng(7)
feeds = {"input_0": rng.uniform(-1, 1, (1, 3, 8, 8)).astype(np.float32),
         "input_1": rng.uniform(-1, 1, (4, 6)).astype(np.float32)}
def run(path):
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    s = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    return s.run(None, feeds)
def nodes(path):
    m = onnx.load(path)
    return sorted((n.domain or "", n.op_type) for n in m.graph.node)
want = run(ref)
for path in (fused, unfused):
    got = run(path)
    for k, (g, w) in enumerate(zip(got, want)):
        err = float(np.max(np.abs(g - w) / (1e-5 + 1e-4 * np.abs(w))))
        print(path.rsplit("-", 1)[-1], "output", k, "error", err)
        if err > 1.0:
            sys.exit(1)
print("fused nodes", nodes(fused))
print("unfused nodes", nodes(unfused))
"#;

#[test]
fn fused_ops_round_trip_through_onnx_runtime() {
    let mut c = ctx();
    let m = parse(&mut c, MODEL);
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let write = |c: &nart_ir::Context, tag: &str| {
        let bytes = nart_onnx::export_model(c, m).unwrap_or_else(|d| panic!("{}", d.message));
        let p = dir.join(format!("nart-fused-{pid}-{tag}.onnx"));
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let reference = write(&c, "ref");
    run(
        &mut c,
        m,
        "builtin.module(func.func(graph-fuse-activation))",
    );
    assert_eq!(count(&c, m, "graph.fused_conv"), 3);
    assert_eq!(count(&c, m, "graph.fused_gemm"), 3);
    assert_eq!(count(&c, m, "graph.fused_matmul"), 1);
    let fused = write(&c, "fused");
    run(&mut c, m, "builtin.module(func.func(graph-unfuse))");
    assert_eq!(
        count(&c, m, "graph.fused_conv") + count(&c, m, "graph.fused_gemm"),
        0
    );
    let unfused = write(&c, "unfused");
    if !python_has_onnxruntime() {
        println!("SKIP: python3 with onnx and onnxruntime not found");
        return;
    }
    let text = python(
        COMPARE,
        &[
            reference.to_str().unwrap(),
            fused.to_str().unwrap(),
            unfused.to_str().unwrap(),
        ],
    );
    println!("{text}");
    let fused_line = text.lines().find(|l| l.starts_with("fused nodes")).unwrap();
    assert_eq!(fused_line.matches("'FusedConv'").count(), 3, "{text}");
    // Sigmoid and HardSigmoid as FusedGemm; Clip as Gemm + Clip.
    assert_eq!(fused_line.matches("'FusedGemm'").count(), 2, "{text}");
    let unfused_line = text
        .lines()
        .find(|l| l.starts_with("unfused nodes"))
        .unwrap();
    assert!(!unfused_line.contains("com.microsoft"), "{text}");
    for p in [reference, fused, unfused] {
        let _ = std::fs::remove_file(p);
    }
}
