//! Models exported from PyTorch-style graphs come out of `graph-recognize` with their GELU,
//! LayerNorm and attention recognized, and compute what they computed: in the interpreter,
//! against ONNX Runtime's reference outputs, and in ONNX Runtime itself after the round trip
//! through the exporter.
//!
//! `tests/models/tiny_transformer` (opset 17) has `LayerNormalization` already and decomposed
//! GELU (erf) and attention; `tests/models/decomposed_transformer`
//! (`scripts/models/build_decomposed.py`, opset 13) decomposes all three, as
//! `torch.onnx.export` writes them below opset 17, with a tanh GELU and a masked attention.

mod common;

use std::path::PathBuf;

use common::{count, ctx, eval, max_err, python, python_has_onnxruntime, read_pb, run};

fn model_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/models")
        .join(name)
}

const PIPELINE: &str = "builtin.module(func.func(graph-recognize, graph-fuse-activation))";

/// Imports the model, runs the pipeline, checks the op counts and the outputs; writes the
/// optimized model to `out` and returns its path.
fn check(name: &str, want: &[(&str, usize)], gone: &[&str]) -> PathBuf {
    let dir = model_dir(name);
    let mut c = ctx();
    let m = nart_onnx::import_file(&mut c, &dir.join("model.onnx"))
        .unwrap_or_else(|d| panic!("{}", d[0].message));
    let input = read_pb(&dir.join("test_data_set_0/input_0.pb"));
    let reference = read_pb(&dir.join("test_data_set_0/output_0.pb"));
    let before = eval(&c, m, std::slice::from_ref(&input));
    let report = run(&mut c, m, PIPELINE);
    for (op, n) in want {
        assert_eq!(count(&c, m, op), *n, "{name}: count of {op}\n{report}");
    }
    for op in gone {
        assert_eq!(count(&c, m, op), 0, "{name}: {op} is left\n{report}");
    }
    let after = eval(&c, m, &[input]);
    let e_ref = max_err(&after[0], &reference, 1e-4, 1e-3);
    let e_before = max_err(&after[0], &before[0], 1e-4, 1e-3);
    assert!(
        e_ref <= 1.0,
        "{name}: differs from ONNX Runtime's outputs ({e_ref})"
    );
    assert!(
        e_before <= 1.0,
        "{name}: differs from the unoptimized function ({e_before})"
    );
    let bytes = nart_onnx::export_model(&c, m).unwrap_or_else(|d| panic!("{}", d.message));
    let out = std::env::temp_dir().join(format!(
        "nart-graph-fusion-{name}-{}.onnx",
        std::process::id()
    ));
    std::fs::write(&out, bytes).unwrap();
    out
}

/// Runs `model` in ONNX Runtime on the model's stored input and compares with its stored
/// output; returns the op types of the model's nodes.
fn onnxruntime_agrees(model: &std::path::Path, name: &str) -> String {
    let dir = model_dir(name).join("test_data_set_0");
    let script = r#"
import sys, onnx, numpy as np, onnxruntime as ort
from onnx import numpy_helper
model, inp, outp = sys.argv[1:4]
x = numpy_helper.to_array(onnx.load_tensor(inp))
want = numpy_helper.to_array(onnx.load_tensor(outp))
m = onnx.load(model)
opts = ort.SessionOptions()
opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
s = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
got = s.run(None, {s.get_inputs()[0].name: x})[0]
err = float(np.max(np.abs(got - want) / (1e-4 + 1e-3 * np.abs(want))))
print("opset", [(o.domain, o.version) for o in m.opset_import])
print("ops", sorted(set(n.op_type for n in m.graph.node)))
print("error", err)
sys.exit(0 if err <= 1.0 else 1)
"#;
    python(
        script,
        &[
            model.to_str().unwrap(),
            dir.join("input_0.pb").to_str().unwrap(),
            dir.join("output_0.pb").to_str().unwrap(),
        ],
    )
}

#[test]
fn tiny_transformer_gelu_and_attention_are_recognized() {
    let out = check(
        "tiny_transformer",
        &[
            ("graph.Gelu", 2),
            ("graph.Attention", 2),
            ("graph.LayerNormalization", 4),
        ],
        &["graph.Erf", "graph.Softmax"],
    );
    if python_has_onnxruntime() {
        let text = onnxruntime_agrees(&out, "tiny_transformer");
        println!("{text}");
        assert!(
            text.contains("'Attention'") && text.contains("'Gelu'"),
            "{text}"
        );
    } else {
        println!("SKIP: python3 with onnx and onnxruntime not found");
    }
    let _ = std::fs::remove_file(out);
}

#[test]
fn decomposed_transformer_gelu_layernorm_and_attention_are_recognized() {
    let out = check(
        "decomposed_transformer",
        &[
            ("graph.Gelu", 2),
            ("graph.Attention", 2),
            ("graph.LayerNormalization", 5),
        ],
        &[
            "graph.Erf",
            "graph.Tanh",
            "graph.Softmax",
            "graph.ReduceMean",
            "graph.Sqrt",
            "graph.Pow",
        ],
    );
    if python_has_onnxruntime() {
        let text = onnxruntime_agrees(&out, "decomposed_transformer");
        println!("{text}");
        assert!(text.contains("'LayerNormalization'"), "{text}");
    } else {
        println!("SKIP: python3 with onnx and onnxruntime not found");
    }
    let _ = std::fs::remove_file(out);
}
